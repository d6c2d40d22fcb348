// Every fault path of the functional engine stops the kernel cleanly (no host crash, no silent
// result) and names kernel, CTA, thread, PC, PTX file:line and, for memory faults, the address.
#include <cstring>

#include "func_test_util.h"

using namespace functest;

namespace {

// Kernel `bad(out, ptr)`: only thread (37,0,0) of CTA (2,0,0) executes BODY (which uses %rd2 = ptr
// and %r1 = tid), on line 16 of the PTX text; its first instruction has pc 6.
std::string one_thread_kernel(const std::string &body, const std::string &decls = "") {
  return ".version 8.0\n.target sm_80\n.address_size 64\n" + decls +   // lines 1-3 (+decls, one line)
         "\n.visible .entry bad(.param .u64 out, .param .u64 ptr)\n{\n"     // 4-6
         "  .reg .pred %p<4>;\n  .reg .b32 %r<16>;\n  .reg .b64 %rd<16>;\n"   // 7-9
         "  ld.param.u64 %rd2, [ptr];\n  mov.u32 %r1, %tid.x;\n  mov.u32 %r2, %ctaid.x;\n"  // 10-12
         "  setp.ne.u32 %p1, %r1, 37;\n  setp.ne.or.u32 %p1, %r2, 2, %p1;\n"  // 13-14
         "  @%p1 bra $skip;\n  " + body + "\n$skip:\n  ret;\n}\n";         // 15, 16
}

struct Faulted {
  simtvp_status st;
  simtvp_diag d;
};

Faulted run_bad(Gpu &g, const std::string &ptx, uint64_t ptr) {
  EXPECT_EQ(g.load(ptx, "bad.ptx"), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(64);
  simtvp_status st = g.launch("bad", 4, 64, {out, ptr});
  return {st, g.diag};
}

void expect_place(const simtvp_diag &d, uint32_t line, bool address, uint64_t addr = 0) {
  EXPECT_TRUE(d.where & SIMTVP_WHERE_THREAD) << d.message;
  EXPECT_TRUE(d.where & SIMTVP_WHERE_PC);
  EXPECT_TRUE(d.where & SIMTVP_WHERE_FILE);
  EXPECT_STREQ(d.kernel, "bad");
  EXPECT_EQ(d.cta[0], 2u);
  EXPECT_EQ(d.thread[0], 37u);
  EXPECT_EQ(d.line, line);
  EXPECT_STREQ(d.file, "bad.ptx");
  EXPECT_EQ(d.pc, 6u) << "the seventh instruction";
  EXPECT_NE(std::strstr(d.message, "kernel bad, CTA (2,0,0), thread (37,0,0), pc 6 (bad.ptx:16"), nullptr) << d.message;
  if (address) {
    EXPECT_TRUE(d.where & SIMTVP_WHERE_ADDRESS);
    EXPECT_EQ(d.address, addr);
  }
}

TEST(FuncFault, UnmappedGlobalLoadNamesTheAddress) {
  Gpu g;
  auto f = run_bad(g, one_thread_kernel("ld.global.u32 %r3, [%rd2+8];"), 0x40);
  EXPECT_EQ(f.st, SIMTVP_ERR_FAULT);
  expect_place(f.d, 16, true, 0x48);
  EXPECT_NE(std::strstr(f.d.message, "not mapped"), nullptr) << f.d.message;
}

TEST(FuncFault, RunningOffTheEndOfABufferHitsTheGuardPage) {
  Gpu g;
  uint64_t buf = g.alloc(1000);  // 1024 bytes usable (256-byte granularity), then a guard page
  auto f = run_bad(g, one_thread_kernel("st.global.u32 [%rd2+1024], %r1;"), buf);
  EXPECT_EQ(f.st, SIMTVP_ERR_FAULT);
  expect_place(f.d, 16, true, buf + 1024);
  EXPECT_NE(std::strstr(f.d.message, "store of 4 bytes at global address"), nullptr) << f.d.message;
}

TEST(FuncFault, MisalignedAccessIsAFault) {
  Gpu g;
  uint64_t buf = g.alloc(256);
  auto f = run_bad(g, one_thread_kernel("ld.global.v2.u32 {%r3, %r4}, [%rd2+4];"), buf);
  EXPECT_EQ(f.st, SIMTVP_ERR_MISALIGNED) << "CUDA's own code (716), not an illegal address";
  expect_place(f.d, 16, true, buf + 4);
  EXPECT_NE(std::strstr(f.d.message, "misaligned"), nullptr) << f.d.message;
}

TEST(FuncFault, SharedMemoryOverflowIsAFault) {
  Gpu g;
  auto f = run_bad(g, one_thread_kernel("st.shared.u32 [sh+256], %r1;", ".shared .align 4 .b8 sh[256];"), 0);
  EXPECT_EQ(f.st, SIMTVP_ERR_FAULT);
  expect_place(f.d, 16, true, 256);
  EXPECT_NE(std::strstr(f.d.message, "shared memory"), nullptr) << f.d.message;
}

TEST(FuncFault, TrapStopsTheKernel) {
  Gpu g;
  auto f = run_bad(g, one_thread_kernel("trap;"), 0);
  EXPECT_EQ(f.st, SIMTVP_ERR_TRAP);
  expect_place(f.d, 16, false);
  EXPECT_NE(std::strstr(f.d.message, "trap"), nullptr);
}

TEST(FuncFault, FreeOfAPointerMallocDidNotReturnIsAFault) {
  Gpu g;
  std::string decl = ".extern .func free (.param .b64 p);";
  std::string body = "{ .param .b64 a; st.param.b64 [a], %rd2; call.uni free, (a); }";
  auto f = run_bad(g, one_thread_kernel(body, decl), 0x12340);
  EXPECT_EQ(f.st, SIMTVP_ERR_FAULT);
  EXPECT_EQ(f.d.thread[0], 37u);
  EXPECT_EQ(f.d.address, 0x12340u);
  EXPECT_NE(std::strstr(f.d.message, "free of 0x12340"), nullptr) << f.d.message;
}

TEST(FuncFault, IndirectCallToANonFunctionIsAFault) {
  Gpu g;
  std::string body = "{ .param .b32 a; st.param.b32 [a], %r1; proto: .callprototype _ (.param .b32 x); call %rd2, (a), proto; }";
  auto f = run_bad(g, one_thread_kernel(body), 0x5000);
  EXPECT_EQ(f.st, SIMTVP_ERR_FAULT);
  EXPECT_EQ(f.d.address, 0x5000u);
  EXPECT_NE(std::strstr(f.d.message, "not a device function"), nullptr) << f.d.message;
}

TEST(FuncFault, StackOverflowFromRunawayRecursion) {
  Gpu g;
  std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.func down(.param .b32 n)
{
  .local .align 4 .b8 frame[64];
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [n];
  st.local.u32 [frame], %r1;
  add.u32 %r2, %r1, 1;
  { .param .b32 a; st.param.b32 [a], %r2; call down, (a); }
  ret;
}
.visible .entry bad(.param .u64 out, .param .u64 ptr)
{
  .reg .b32 %r<4>;
  mov.u32 %r1, 0;
  { .param .b32 a; st.param.b32 [a], %r1; call down, (a); }
  ret;
})";
  ASSERT_EQ(g.load(ptx, "bad.ptx"), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.launch("bad", 1, 32, {0, 0}), SIMTVP_ERR_FAULT);
  EXPECT_NE(std::strstr(g.diag.message, "call stack overflow calling down"), nullptr) << g.diag.message;
  EXPECT_EQ(g.diag.line, 11u);
}

TEST(FuncFault, BarrierDeadlockIsDetected) {
  Gpu g;
  std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry bad(.param .u64 out, .param .u64 ptr)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bar.sync 0;
  @!%p1 bar.sync 1;
  ret;
})";
  ASSERT_EQ(g.load(ptx, "bad.ptx"), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.launch("bad", 1, 64, {0, 0}), SIMTVP_ERR_DEADLOCK);
  EXPECT_NE(std::strstr(g.diag.message, "barrier deadlock"), nullptr) << g.diag.message;
  EXPECT_TRUE(g.diag.where & SIMTVP_WHERE_THREAD);
  EXPECT_TRUE(g.diag.where & SIMTVP_WHERE_FILE);
  EXPECT_STREQ(g.diag.kernel, "bad");
  EXPECT_TRUE(g.diag.line == 10u || g.diag.line == 11u);
}

TEST(FuncFault, InstructionLimitStopsARunawayLoop) {
  func_config c{};
  c.max_warp_insns = 100000;
  Gpu g(c);
  std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry bad(.param .u64 out, .param .u64 ptr)
{
$spin:
  bra.uni $spin;
})";
  ASSERT_EQ(g.load(ptx, "bad.ptx"), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.launch("bad", 1, 32, {0, 0}), SIMTVP_ERR_LIMIT);
  EXPECT_NE(std::strstr(g.diag.message, "instruction limit"), nullptr) << g.diag.message;
  EXPECT_EQ(g.diag.line, 7u);
}

// Regression (issue 14, bug 4): the limit used to be reported with an empty message when no warp
// was ready at the check. Here warp 0 waits at a 64-thread barrier that warp 1 never reaches:
// warp 1 loops 3 x 100 instructions and exits, crossing the limit of 100 in the same sweep, so the
// only live warp is the one at the barrier.
TEST(FuncFault, InstructionLimitWithEveryLiveWarpAtABarrierNamesThatWarp) {
  func_config c{};
  c.max_warp_insns = 100;
  Gpu g(c);
  std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry bad(.param .u64 out, .param .u64 ptr)
{
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bar.sync 1, 64;
  @%p1 ret;
  mov.u32 %r2, 0;
$loop:
  add.u32 %r2, %r2, 1;
  setp.lt.u32 %p2, %r2, 100;
  @%p2 bra $loop;
  ret;
})";
  ASSERT_EQ(g.load(ptx, "bad.ptx"), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.launch("bad", 1, 64, {0, 0}), SIMTVP_ERR_LIMIT);
  EXPECT_EQ(g.diag.status, SIMTVP_ERR_LIMIT);
  EXPECT_NE(std::strstr(g.diag.message, "instruction limit of 100"), nullptr) << g.diag.message;
  EXPECT_TRUE(g.diag.where & SIMTVP_WHERE_THREAD);
  EXPECT_EQ(g.diag.thread[0], 0u) << "warp 0, the one at the barrier";
  EXPECT_EQ(g.diag.line, 10u) << "the bar.sync it waits at";
}

TEST(FuncFault, BarrierIdOutOfRangeIsAFault) {
  Gpu g;
  auto f = run_bad(g, one_thread_kernel("bar.sync %r1;"), 0);
  EXPECT_EQ(f.st, SIMTVP_ERR_FAULT);
  EXPECT_NE(std::strstr(f.d.message, "barrier id 37"), nullptr) << f.d.message;
}

TEST(FuncFault, UnsupportedInstructionFailsTheLoadNamingTheLine) {
  Gpu g;
  std::string ptx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n"
                    "  .reg .b64 %rd<2>;\n  stacksave.u64 %rd1;\n  ret;\n}\n";
  EXPECT_EQ(g.load(ptx, "u.ptx"), SIMTVP_ERR_UNSUPPORTED);
  EXPECT_NE(std::strstr(g.diag.message, "u.ptx:7:"), nullptr) << g.diag.message;
  EXPECT_EQ(g.diag.line, 7u);
}

TEST(FuncFault, BadLaunchesAreRejected) {
  Gpu g;
  ASSERT_EQ(g.load(lane_kernel("")), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.launch("k", 1, 2048, {0, 0}), SIMTVP_ERR_ARG) << "more than 1024 threads";
  EXPECT_EQ(g.launch("k", 0, 32, {0, 0}), SIMTVP_ERR_ARG) << "empty grid";
  EXPECT_EQ(g.launch("nope", 1, 32, {0, 0}), SIMTVP_ERR_ARG);
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  EXPECT_EQ(func_runner_launch(g.r, "k", grid, block, 0, nullptr, &g.diag), SIMTVP_ERR_ARG);
}

TEST(FuncFault, AFaultInOneLaunchLeavesTheRunnerUsable) {
  Gpu g;
  ASSERT_EQ(g.load(one_thread_kernel("ld.global.u32 %r3, [%rd2];"), "bad.ptx"), SIMTVP_OK);
  EXPECT_EQ(g.launch("bad", 4, 64, {0, 8}), SIMTVP_ERR_FAULT);
  uint64_t ok = g.alloc(16);
  EXPECT_EQ(g.launch("bad", 4, 64, {0, ok}), SIMTVP_OK) << g.diag.message;
}

}  // namespace

namespace {

// A memory instruction whose guard is false in every lane touches nothing (its address may be
// garbage), faults on nothing and is not counted as an access.
TEST(FuncFault, GuardedOffMemoryInstructionsTouchNothing) {
  Gpu g;
  std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 s[4];
  mov.u32 %r1, %tid.x;
  setp.gt.u32 %p1, %r1, 1000;
  mov.u64 %rd1, 0xdead0000dead;
  @%p1 ld.global.u32 %r2, [%rd1];
  @%p1 ld.global.f32 %f1, [%rd1+4];
  @%p1 ld.global.u64 %rd2, [%rd1+8];
  @%p1 st.global.u32 [%rd1], %r1;
  @%p1 ld.shared.u32 %r3, [%r1+4096];
  @%p1 atom.global.add.u32 %r3, [%rd1], 1;
  @%p1 ld.global.v2.u32 {%r2, %r3}, [%rd1];
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  ASSERT_EQ(g.launch("k", 4, 64, {0}), SIMTVP_OK) << g.diag.message;
  func_launch_counts c;
  func_runner_last_counts(g.r, &c);
  EXPECT_EQ(c.loads[PTX_SPACE_GLOBAL] + c.stores[PTX_SPACE_GLOBAL] + c.atomics[PTX_SPACE_GLOBAL] + c.loads[PTX_SPACE_SHARED], 0u);
}

// ---- the memory checker (func_config.memcheck) on the functional runner's allocations --------

func_config memcheck_config() {
  func_config c{};
  c.memcheck = true;
  return c;
}

TEST(FuncMemcheck, StorePastTheEndOfABlockInsideItsMappingIsReported) {
  Gpu g(memcheck_config());
  uint64_t buf = g.alloc(1000);  // mapped to the page end: the 24 bytes after it are padding
  auto f = run_bad(g, one_thread_kernel("st.global.u32 [%rd2+1000], %r1;"), buf);
  EXPECT_EQ(f.st, SIMTVP_ERR_FAULT);
  expect_place(f.d, 16, true, buf + 1000);
  EXPECT_NE(std::strstr(f.d.message, "memcheck: invalid global write of 4 bytes at"), nullptr) << f.d.message;
  EXPECT_NE(std::strstr(f.d.message, "out of bounds: right after the end of a 1000-byte block at"), nullptr)
      << f.d.message;
  Gpu plain;  // without the checker the padding is mapped memory: nothing to see
  uint64_t b2 = plain.alloc(1000);
  EXPECT_EQ(run_bad(plain, one_thread_kernel("st.global.u32 [%rd2+1000], %r1;"), b2).st, SIMTVP_OK);
}

TEST(FuncMemcheck, VectorLoadStraddlingTheEndIsReported) {
  Gpu g(memcheck_config());
  uint64_t buf = g.alloc(1000);
  auto f = run_bad(g, one_thread_kernel("ld.global.v4.u32 {%r3, %r4, %r5, %r6}, [%rd2+992];"), buf);
  EXPECT_EQ(f.st, SIMTVP_ERR_FAULT);
  EXPECT_NE(std::strstr(f.d.message, "invalid global read of 16 bytes"), nullptr) << f.d.message;
  EXPECT_NE(std::strstr(f.d.message, "its last 8 bytes lie past the end of a 1000-byte block"), nullptr) << f.d.message;
}

TEST(FuncMemcheck, AtomicThroughAGenericAddressIsChecked) {
  Gpu g(memcheck_config());
  uint64_t buf = g.alloc(1000);
  auto f = run_bad(g, one_thread_kernel("atom.add.u32 %r3, [%rd2+1004], 1;"), buf);
  EXPECT_EQ(f.st, SIMTVP_ERR_FAULT);
  EXPECT_NE(std::strstr(f.d.message, "invalid global atomic of 4 bytes"), nullptr) << f.d.message;
  EXPECT_NE(std::strstr(f.d.message, "4 bytes past the end of a 1000-byte block"), nullptr) << f.d.message;
}

TEST(FuncMemcheck, InBoundsAccessesAndModuleGlobalsPass) {
  Gpu g(memcheck_config());
  uint64_t buf = g.alloc(1000);
  auto f = run_bad(g, one_thread_kernel("st.global.u32 [%rd2+996], %r1;\n  ld.global.u32 %r3, [gv+4];\n"
                                        "  st.global.u32 [gv], %r3;",
                                        ".global .align 4 .u32 gv[2];"),
                   buf);
  EXPECT_EQ(f.st, SIMTVP_OK) << f.d.message;
}

TEST(FuncMemcheck, AccessToAFreedBlockIsAUseAfterFree) {
  Gpu g(memcheck_config());
  uint64_t buf = g.alloc(256);
  ASSERT_EQ(func_runner_free(g.r, buf, &g.diag), SIMTVP_OK);
  uint64_t keep = g.alloc(256);  // a later block elsewhere
  (void)keep;
  auto f = run_bad(g, one_thread_kernel("ld.global.u32 %r3, [%rd2+16];"), buf);
  EXPECT_EQ(f.st, SIMTVP_ERR_FAULT);
  EXPECT_NE(std::strstr(f.d.message, "use after free: 16 bytes into a 256-byte block at"), nullptr) << f.d.message;
}

}  // namespace
