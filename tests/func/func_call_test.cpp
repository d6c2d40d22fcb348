// Calls of the functional engine (PTX ISA 9.7.12 call/ret, the nvcc calling convention with
// call-site .param blocks): parameters of every kind, return values, recursion with divergent depth,
// per-activation local frames, indirect calls whose targets differ per lane, and the built-in
// externs vprintf, malloc/free and __assertfail. Fixture: fixtures/calls.cu (nvcc PTX).
#include <cstdio>
#include <cstring>

#include "func_test_util.h"

using namespace functest;

namespace {

std::string calls_ptx() { return read_file(std::string(SIMTVP_SOURCE_DIR) + "/tests/func/fixtures/calls.ptx"); }

TEST(FuncCall, ArgumentsOfEveryKindReachTheCallee) {
  Gpu g;
  ASSERT_EQ(g.load(calls_ptx(), "calls.ptx"), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(64 * 4);
  ASSERT_EQ(g.launch("k_params", 1, 64, {out}), SIMTVP_OK) << g.diag.message;
  auto v = g.download<int32_t>(out, 64);
  for (int t = 0; t < 64; t++)
    EXPECT_EQ(v[t], t * 3 + t + (int)(0.5f + t) + t * 100 + (t + 1) * 1000 + (t + 2) * 10000) << t;
}

unsigned long long ref_fact(unsigned long long n) { return n < 2 ? 1 : n * ref_fact(n - 1); }
int ref_fib(int n) { return n < 2 ? n : ref_fib(n - 1) + ref_fib(n - 2); }
int ref_digits(int n, int depth) {
  int s = 0;
  for (int i = 0; i < 8; i++) s += ((n >> i) & 1) * (i + 1);
  return depth == 0 ? s : s + ref_digits(n + 1, depth - 1);
}

TEST(FuncCall, RecursionWithDivergentDepthReturnsEveryLanesResult) {
  Gpu g;
  ASSERT_EQ(g.load(calls_ptx(), "calls.ptx"), SIMTVP_OK) << g.diag.message;
  const int n = 70;
  uint64_t out = g.alloc(n * 8), out2 = g.alloc(n * 8);
  ASSERT_EQ(g.launch("k_recursion", 1, n, {out, out2}), SIMTVP_OK) << g.diag.message;
  auto f = g.download<unsigned long long>(out, n);
  auto v = g.download<int32_t>(out2, 2 * n);
  for (int t = 0; t < n; t++) {
    EXPECT_EQ(f[t], ref_fact(t % 21)) << t;
    EXPECT_EQ(v[2 * t], ref_fib(t % 12)) << t;
    EXPECT_EQ(v[2 * t + 1], ref_digits(t, t % 4)) << t;
  }
}

TEST(FuncCall, IndirectCallsDispatchEachLaneToItsTarget) {
  Gpu g;
  ASSERT_EQ(g.load(calls_ptx(), "calls.ptx"), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(96 * 4);
  ASSERT_EQ(g.launch("k_indirect", 1, 96, {out}), SIMTVP_OK) << g.diag.message;
  auto v = g.download<int32_t>(out, 96);
  auto f = [](int k, int x) { return k == 0 ? 2 * x : k == 1 ? x * x : -x; };
  for (int t = 0; t < 96; t++) {
    int r = f(t % 3, t);
    if (t & 4) r += f((t + 1) % 3, t);
    EXPECT_EQ(v[t], r) << t;
  }
}

TEST(FuncCall, PrintfFormatsEveryConversionInLaneOrder) {
  Gpu g;
  ASSERT_EQ(g.load(calls_ptx(), "calls.ptx"), SIMTVP_OK) << g.diag.message;
  const char name[] = "simtvp";
  uint64_t dname = g.alloc(sizeof name);
  func_runner_write(g.r, dname, name, sizeof name, &g.diag);
  double d = 1.25;
  uint64_t dbits;
  std::memcpy(&dbits, &d, 8);
  ASSERT_EQ(g.launch("k_printf", 1, 40, {3, 0x100000000ull, dbits, dname}), SIMTVP_OK) << g.diag.message;
  std::string want;
  char line[512];
  for (int t = 0; t < 3; t++) {
    std::snprintf(line, sizeof line,
                  "t=%d u=%u x=%x X=%08X c=%c s=%s ll=%lld f=%.3f e=%e g=%g p=0x%llx %%\n", t,
                  (unsigned)(t * 1000), t * 255, t * 4096, 'A' + t, name, 0x100000000ll + t, d * t, d, d + t,
                  0x1234ull);
    want += line;
  }
  EXPECT_EQ(g.printed, want);
}

TEST(FuncCall, MallocAndFreeManageTheDeviceHeap) {
  Gpu g;
  ASSERT_EQ(g.load(calls_ptx(), "calls.ptx"), SIMTVP_OK) << g.diag.message;
  const int n = 64;
  uint64_t out = g.alloc(2 * n * 4);
  ASSERT_EQ(g.launch("k_malloc", 1, n, {out, 6u << 20}), SIMTVP_OK) << g.diag.message;
  auto v = g.download<int32_t>(out, 2 * n);
  for (int t = 0; t < n; t++) EXPECT_EQ(v[t], t * t * (t + 1) / 2) << t;
  // lanes of a warp allocate in lane order: only one 6 MiB block fits the 8 MiB heap at a time
  for (int w = 0; w < n / 32; w++) {
    int got = 0;
    for (int l = 0; l < 32; l++) got += v[n + 32 * w + l];
    EXPECT_EQ(got, 1) << "warp " << w;
    EXPECT_EQ(v[n + 32 * w], 1);
  }
  // and after the kernel freed everything, the heap is whole again
  ASSERT_EQ(g.launch("k_malloc", 1, 1, {out, 7u << 20}), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.download<int32_t>(out, 2)[1], 1);
}

TEST(FuncCall, FailedAssertPrintsTheCudaMessageAndStopsTheKernel) {
  Gpu g;
  ASSERT_EQ(g.load(calls_ptx(), "calls.ptx"), SIMTVP_OK) << g.diag.message;
  std::vector<int32_t> data(64, 0);
  data[37] = 42;
  uint64_t d = g.upload(data);
  ASSERT_EQ(g.launch("k_assert", 1, 64, {d}), SIMTVP_ERR_TRAP);
  EXPECT_NE(g.printed.find("block: [0,0,0], thread: [37,0,0] Assertion `data[t] != 42` failed."), std::string::npos)
      << g.printed;
  EXPECT_NE(std::strstr(g.diag.message, "device assertion `data[t] != 42` failed"), nullptr) << g.diag.message;
  EXPECT_EQ(g.diag.thread[0], 37u);
  EXPECT_STREQ(g.diag.kernel, "k_assert");
  EXPECT_TRUE(g.diag.where & SIMTVP_WHERE_FILE);
}

// A hand-written callee with a guarded ret and registers as call operands.
TEST(FuncCall, GuardedReturnAndRegisterOperands) {
  Gpu g;
  std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.func (.param .b32 r) clampadd(.param .b32 a, .param .b32 b)
{
  .reg .pred %p<2>;
  .reg .b32 %x<4>;
  ld.param.b32 %x1, [a];
  ld.param.b32 %x2, [b];
  add.u32 %x3, %x1, %x2;
  st.param.b32 [r], %x3;
  setp.lt.u32 %p1, %x3, 50;
  @%p1 ret;
  st.param.b32 [r], 50;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  {
  .param .b32 pa;
  .param .b32 pb;
  .param .b32 pr;
  st.param.b32 [pa], %r1;
  st.param.b32 [pb], 7;
  call.uni (pr), clampadd, (pa, pb);
  ld.param.b32 %r2, [pr];
  }
  activemask.b32 %r3;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r2, %r3};
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(64 * 8);
  ASSERT_EQ(g.launch("k", 1, 64, {out}), SIMTVP_OK) << g.diag.message;
  auto v = g.download<uint32_t>(out, 128);
  for (uint32_t t = 0; t < 64; t++) {
    EXPECT_EQ(v[2 * t], t + 7 < 50 ? t + 7 : 50u) << t;
    EXPECT_EQ(v[2 * t + 1], 0xffffffffu) << "the warp reconverges after the call";
  }
}

// A callee's register frame that grows the warp's register stack starts at zero: a register the
// callee reads before writing (here %r9) never shows stale host memory, so every run is the same
// (a launch that filled the same frames with junk runs first).
TEST(FuncCall, RegistersReadBeforeWrittenInADeepCallReadZero) {
  Gpu g;
  ASSERT_EQ(g.load(R"(.version 9.0
.target sm_75
.address_size 64
.func (.param .b32 ret) down(.param .b32 n) {
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  ld.param.b32 %r1, [n];
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra LEAF;
  add.s32 %r2, %r1, -1;
  { .param .b32 a; st.param.b32 [a], %r2; .param .b32 r;
    call.uni (r), down, (a); ld.param.b32 %r3, [r]; }
  st.param.b32 [ret], %r3;
  ret;
LEAF:
  add.s32 %r10, %r9, %r8;
  st.param.b32 [ret], %r10;
  ret;
}
.func (.param .b32 ret) dirty(.param .b32 n) {
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  ld.param.b32 %r1, [n];
  mov.b32 %r8, 0x5a5a5a5a;
  mov.b32 %r9, 0x5a5a5a5a;
  mov.b32 %r10, 0x5a5a5a5a;
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra LEAF;
  add.s32 %r2, %r1, -1;
  { .param .b32 a; st.param.b32 [a], %r2; .param .b32 r;
    call.uni (r), dirty, (a); ld.param.b32 %r3, [r]; }
  st.param.b32 [ret], %r3;
  ret;
LEAF:
  st.param.b32 [ret], %r9;
  ret;
}
.visible .entry pollute(.param .u64 out) {
  .reg .b32 %r<4>;
  { .param .b32 a; st.param.b32 [a], 30; .param .b32 r;
    call.uni (r), dirty, (a); ld.param.b32 %r2, [r]; }
  ret;
}
.visible .entry k(.param .u64 out) {
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  { .param .b32 a; st.param.b32 [a], 30; .param .b32 r;
    call.uni (r), down, (a); ld.param.b32 %r2, [r]; }
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
})", "deep.ptx"), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.upload(std::vector<int32_t>(32, 0x5a5a5a5a));
  // The same frames filled with 0x5a5a5a5a first: host memory the next launch's register stacks
  // are likely to be carved from.
  ASSERT_EQ(g.launch("pollute", 1, 32, {out}), SIMTVP_OK) << g.diag.message;
  ASSERT_EQ(g.launch("k", 1, 32, {out}), SIMTVP_OK) << g.diag.message;
  auto v = g.download<int32_t>(out, 32);
  for (int t = 0; t < 32; t++) EXPECT_EQ(v[t], 0) << t;
}

}  // namespace
