// Asynchronous copies and mbarrier objects (models/func/exec_async.c): cp.async with src-size and
// ignore-src, commit/wait groups, mbarrier phases, parities, transaction counts, arrive_drop,
// cp.async.mbarrier.arrive, and every misuse the engine reports. Expected values are computed by
// hand in the comments; the mbarrier word's layout is the one docs/func.md documents (pending
// arrivals in bits 0-19, expected arrivals 20-39, transaction count 40-61, phase parity bit 63).
#include <algorithm>
#include <cstring>

#include "func_test_util.h"

using namespace functest;

namespace {

const char *kHeader = ".version 8.0\n.target sm_80\n.address_size 64\n";

uint64_t mb_word(uint32_t pending, uint32_t expected, int64_t tx, uint32_t phase) {
  return (uint64_t)pending | ((uint64_t)expected << 20) | (((uint64_t)tx & 0x3fffff) << 40) | ((uint64_t)phase << 63);
}

// Runs a one-CTA kernel `k(out, in)` of `threads` threads; returns the status (diag in g).
simtvp_status run(Gpu &g, const std::string &ptx, uint32_t threads, uint64_t out, uint64_t in) {
  EXPECT_EQ(g.load(ptx, "async.ptx"), SIMTVP_OK) << g.diag.message;
  return g.launch("k", 1, threads, {out, in});
}

}  // namespace

// 64 threads copy in[63 - t] into s[t] with 4-byte cp.async.ca; threads t % 4 == 3 give src-size 0
// (the word is zero-filled, the source pointer is never read: it points nowhere); threads 0-15
// also copy 16 bytes with cp.async.cg and src-size 8 (words in[4t], in[4t+1], 0, 0), threads 8-15
// with ignore-src set (all zero). After commit_group, wait_group 0 and bar.sync every thread reads
// s[t] and the four words of s2[t / 4].
TEST(FuncAsync, CpAsyncCopiesZeroFillsAndIgnoresTheSource) {
  Gpu g;
  std::string ptx = std::string(kHeader) + R"(
.visible .entry k(.param .u64 out, .param .u64 in)
{
  .reg .pred %p<4>;
  .reg .b32 %r<24>;
  .reg .b64 %rd<12>;
  .shared .align 16 .b32 s[64];
  .shared .align 16 .b32 s2[64];
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.u32 %r4, %r3, %r2;
  sub.u32 %r5, 63, %r1;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  and.b32 %r6, %r1, 3;
  setp.eq.u32 %p1, %r6, 3;
  selp.u32 %r7, 0, 4, %p1;
  @%p1 mov.u64 %rd4, 16;
  cp.async.ca.shared.global [%r4], [%rd4], 4, %r7;
  setp.lt.u32 %p2, %r1, 16;
  @!%p2 bra SKIP;
  shl.b32 %r8, %r1, 4;
  mov.u32 %r9, s2;
  add.u32 %r10, %r9, %r8;
  mul.wide.u32 %rd5, %r1, 16;
  add.s64 %rd6, %rd2, %rd5;
  setp.ge.u32 %p3, %r1, 8;
  cp.async.cg.shared.global [%r10], [%rd6], 16, 8;
  cp.async.cg.shared.global [%r10], [%rd6], 16, %p3;
  @%p3 bra SKIP;
  cp.async.cg.shared.global [%r10], [%rd6], 16, 8;
SKIP:
  cp.async.commit_group;
  cp.async.wait_group 0;
  cp.async.wait_all;
  bar.sync 0;
  ld.shared.u32 %r11, [%r4];
  mul.wide.u32 %rd7, %r1, 20;
  add.s64 %rd8, %rd1, %rd7;
  st.global.u32 [%rd8], %r11;
  shr.u32 %r12, %r1, 2;
  shl.b32 %r13, %r12, 4;
  mov.u32 %r9, s2;
  add.u32 %r14, %r9, %r13;
  ld.shared.v4.u32 {%r15, %r16, %r17, %r18}, [%r14];
  st.global.u32 [%rd8+4], %r15;
  st.global.u32 [%rd8+8], %r16;
  st.global.u32 [%rd8+12], %r17;
  st.global.u32 [%rd8+16], %r18;
  ret;
})";
  std::vector<uint32_t> in(64);
  for (uint32_t i = 0; i < 64; i++) in[i] = 1000 + i;
  uint64_t din = g.upload(in), out = g.alloc(64 * 20);
  ASSERT_EQ(run(g, ptx, 64, out, din), SIMTVP_OK) << g.diag.message;
  auto v = g.download<uint32_t>(out, 64 * 5);
  for (uint32_t t = 0; t < 64; t++) {
    EXPECT_EQ(v[t * 5], t % 4 == 3 ? 0u : 1000 + (63 - t)) << t;
    uint32_t q = t / 4;  // s2 slot read by thread t
    bool copied = q < 8; // slots 8-15 were last written with ignore-src (zero), 16+ never
    EXPECT_EQ(v[t * 5 + 1], copied ? 1000 + 4 * q : 0u) << t;
    EXPECT_EQ(v[t * 5 + 2], copied ? 1000 + 4 * q + 1 : 0u) << t;
    EXPECT_EQ(v[t * 5 + 3], 0u) << t;
    EXPECT_EQ(v[t * 5 + 4], 0u) << t;
  }
}

// 64 threads (2 warps), mbarrier initialised by thread 0 to 64 arrivals. Phase 0 (parity 0): every
// thread arrives (keeping the state) and spins on test_wait; the state of each arrive holds the
// object before it, so the pending counts seen are 64, 63, …, 1 (each once). Phase 1 (parity 1):
// every thread arrives with a sink and spins on try_wait.parity 1, true once phase 1 completed;
// then parity 0 is the phase in progress again, so try_wait.parity 0 is false. The object
// afterwards: parity 0, 64 pending of 64.
TEST(FuncAsync, MbarrierPhasesCompleteWhenEveryThreadArrived) {
  Gpu g;
  std::string ptx = std::string(kHeader) + R"(
.visible .entry k(.param .u64 out, .param .u64 in)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<12>;
  .shared .align 8 .b64 mb;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra READY;
  mbarrier.init.shared.b64 [mb], 64;
READY:
  bar.sync 0;
  mbarrier.arrive.shared.b64 %rd2, [mb];
WAIT0:
  mbarrier.test_wait.shared.b64 %p2, [mb], %rd2;
  @!%p2 bra WAIT0;
  mbarrier.pending_count.b64 %r2, %rd2;
  mbarrier.arrive.release.cta.shared::cta.b64 _, [mb];
WAIT1:
  mbarrier.try_wait.parity.shared.b64 %p3, [mb], 1;
  @!%p3 bra WAIT1;
  mbarrier.try_wait.parity.shared.b64 %p3, [mb], 0;
  selp.u32 %r3, 1, 0, %p3;
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r2;
  st.global.u32 [%rd4+4], %r3;
  bar.sync 0;
  ld.shared.u64 %rd5, [mb];
  st.global.u64 [%rd4+8], %rd5;
  ret;
})";
  uint64_t out = g.alloc(64 * 16);
  ASSERT_EQ(run(g, ptx, 64, out, 0), SIMTVP_OK) << g.diag.message;
  auto v = g.download<uint32_t>(out, 64 * 4);
  std::vector<uint32_t> pending;
  for (uint32_t t = 0; t < 64; t++) {
    pending.push_back(v[t * 4]);
    EXPECT_EQ(v[t * 4 + 1], 0u) << "parity 0 is the phase in progress after two phases, thread " << t;
    uint64_t word;
    std::memcpy(&word, &v[t * 4 + 2], 8);
    EXPECT_EQ(word, mb_word(64, 64, 0, 0)) << t;
  }
  std::sort(pending.begin(), pending.end());
  for (uint32_t i = 0; i < 64; i++) EXPECT_EQ(pending[i], i + 1);
}

// One thread: init to 1 arrival; arrive.expect_tx 16 leaves 0 arrivals pending but 16 bytes of
// transactions, so the phase is still open (test_wait false); expect_tx 8 makes it 24; complete_tx
// 20 leaves 4; complete_tx 4 completes the phase (test_wait true). A second object of 3 arrivals:
// arrive_drop leaves 2 pending of 2 expected, an arrive with a count of 2 completes phase 0, so the
// object holds 2 pending of 2 with parity 1.
TEST(FuncAsync, TransactionCountsHoldAPhaseOpenUntilComplete) {
  std::string body = R"(
  mov.u32 %r2, mb;
  mbarrier.init.shared.b64 [%r2], 1;
  mbarrier.arrive.expect_tx.shared.b64 %rd6, [%r2], 16;
  mbarrier.test_wait.shared.b64 %p1, [%r2], %rd6;
  ld.shared.u64 %rd7, [%r2];
  mbarrier.expect_tx.relaxed.cta.shared.b64 [%r2], 8;
  mbarrier.complete_tx.shared.b64 [%r2], 20;
  ld.shared.u64 %rd8, [%r2];
  mbarrier.test_wait.shared.b64 %p2, [%r2], %rd6;
  mbarrier.complete_tx.shared.b64 [%r2], 4;
  mbarrier.test_wait.shared.b64 %p3, [%r2], %rd6;
  selp.u32 %r3, 1, 0, %p1;
  selp.u32 %r4, 1, 0, %p2;
  selp.u32 %r5, 1, 0, %p3;
  mov.u32 %r6, mb2;
  mbarrier.init.shared.b64 [%r6], 3;
  mbarrier.arrive_drop.shared.b64 %rd9, [%r6];
  mov.u32 %r7, 2;
  mbarrier.arrive.shared.b64 %rd10, [%r6], %r7;
  ld.shared.u64 %rd11, [%r6];
  st.global.v4.u32 [%rd5], {%r3, %r4, %r5, %r7};
  st.global.u64 [%rd5+16], %rd7;
  st.global.u64 [%rd5+24], %rd8;
  st.global.u64 [%rd4], %rd11;
  st.global.u64 [%rd4+8], %rd9;)";
  std::string decls = ".shared .align 8 .b64 mb;\n.shared .align 8 .b64 mb2;\n";
  Gpu g;
  ASSERT_EQ(g.load(lane_kernel(body, decls)), SIMTVP_OK) << g.diag.message;
  std::vector<Slot> in(1), out(1);
  uint64_t din = g.upload(in), dout = g.upload(out);
  ASSERT_EQ(g.launch("k", 1, 1, {dout, din}), SIMTVP_OK) << g.diag.message;
  Slot o = g.download<Slot>(dout, 1)[0], i = g.download<Slot>(din, 1)[0];
  EXPECT_EQ(o.u32(0), 0u) << "16 bytes outstanding";
  EXPECT_EQ(o.u32(1), 0u) << "4 bytes outstanding";
  EXPECT_EQ(o.u32(2), 1u) << "every byte arrived";
  EXPECT_EQ(o.q[2], mb_word(0, 1, 16, 0));
  EXPECT_EQ(o.q[3], mb_word(0, 1, 4, 0));
  EXPECT_EQ(i.q[0], mb_word(2, 2, 0, 1)) << "arrive_drop then 2 arrivals complete phase 0 of 2";
  EXPECT_EQ(i.q[1], mb_word(3, 3, 0, 0)) << "the state of arrive_drop";
}

// cp.async.mbarrier.arrive.noinc counts as an arrival (the copies before it are complete); the
// plain form increments the pending count first, so it changes nothing.
TEST(FuncAsync, CpAsyncMbarrierArriveNoincIsAnArrival) {
  std::string body = R"(
  mov.u32 %r2, mb;
  mbarrier.init.shared.b64 [%r2], 2;
  cp.async.ca.shared.global [%r2+8], [%rd4], 4;
  cp.async.mbarrier.arrive.shared.b64 [%r2];
  ld.shared.u64 %rd6, [%r2];
  cp.async.mbarrier.arrive.noinc.shared.b64 [%r2];
  ld.shared.u64 %rd7, [%r2];
  ld.shared.u32 %r3, [%r2+8];
  st.global.u64 [%rd5], %rd6;
  st.global.u64 [%rd5+8], %rd7;
  st.global.u32 [%rd5+16], %r3;)";
  std::vector<Slot> in(1);
  in[0].set_u32(0, 77);
  auto out = run_lanes(body, in, nullptr, ".shared .align 8 .b64 mb[2];\n");
  EXPECT_EQ(out[0].q[0], mb_word(2, 2, 0, 0));
  EXPECT_EQ(out[0].q[1], mb_word(1, 2, 0, 0));
  EXPECT_EQ(out[0].u32(4), 77u);
}

// Misuse is a fault naming the instruction, the thread and the address.
TEST(FuncAsync, MbarrierMisuseIsAFault) {
  struct Case {
    const char *body, *what;
  } cases[] = {
      {"mov.u32 %r2, mb;\n  mbarrier.arrive.shared.b64 %rd6, [%r2];", "not initialised"},
      {"mov.u32 %r2, mb;\n  mbarrier.init.shared.b64 [%r2], 1;\n  mov.u32 %r3, 2;\n"
       "  mbarrier.arrive.shared.b64 %rd6, [%r2], %r3;", "waits for 1 more arrivals"},
      {"mov.u32 %r2, mb;\n  mbarrier.init.shared.b64 [%r2], 0;", "expected count of 0"},
      {"mbarrier.init.b64 [%rd4], 1;", "not in shared memory"},
      {"mov.u32 %r2, mb;\n  mbarrier.init.shared.b64 [%r2], 1;\n  mbarrier.arrive.noComplete.shared.b64 %rd6, [%r2], 1;",
       "noComplete completed"},
      {"mov.u32 %r2, mb;\n  mbarrier.init.shared.b64 [%r2], 1;\n  mbarrier.expect_tx.shared.b64 [%r2], 1048575;\n"
       "  mbarrier.expect_tx.shared.b64 [%r2], 1;", "outside"},
      {"mov.u32 %r2, mb;\n  mbarrier.init.shared.b64 [%r2+4], 1;", "misaligned"},
      {"mov.u32 %r2, mb;\n  mov.u32 %r3, 3;\n  cp.async.ca.shared.global [%r2], [%rd4], 4, %r3;\n"
       "  cp.async.ca.shared.global [%r2], [%rd4], 4, 5;", "src-size 5 is larger than cp-size 4"},
  };
  for (const Case &c : cases) {
    std::string err;
    run_lanes(c.body, std::vector<Slot>(1), &err, ".shared .align 8 .b64 mb[2];\n");
    EXPECT_NE(err.find(c.what), std::string::npos) << c.body << "\n -> " << err;
    EXPECT_NE(err.find("thread (0,0,0)"), std::string::npos) << err;
  }
}

// Forms the engine cannot execute are refused at load time, naming the line.
TEST(FuncAsync, CpAsyncNeedsAConstantSizeIntoSharedMemory) {
  std::string err;
  run_lanes("cp.async.cg.shared.global [%r2], [%rd4], 8;", std::vector<Slot>(1), &err);
  EXPECT_NE(err.find("cp.async.cg copies 16 bytes"), std::string::npos) << err;
  EXPECT_NE(err.find("test.ptx:"), std::string::npos) << err;
}
