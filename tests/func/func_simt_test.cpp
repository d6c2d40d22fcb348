// SIMT execution of the functional engine: divergence and reconvergence at immediate
// post-dominators (GPGPU-Sim 3.x stack semantics) — if/else, nesting, loops with per-lane trip
// counts, early exit, break — and CTA barriers (bar.sync with named barriers and thread counts,
// bar.arrive, bar.red). activemask shows which lanes run together.
#include "func_test_util.h"

using namespace functest;

namespace {

// Body runs with %r1 = tid; results in %r20..%r23 are stored per thread.
std::vector<Slot> run_simt(const std::string &body, uint32_t threads = 32) {
  std::vector<Slot> in(threads);
  return run_lanes("mov.u32 %r20, 0; mov.u32 %r21, 0; mov.u32 %r22, 0; mov.u32 %r23, 0;\n" + body +
                       "\n st.global.v4.u32 [%rd5], {%r20, %r21, %r22, %r23};",
                   in);
}

TEST(FuncSimt, IfElseRunsEachSideWithItsLanesAndReconverges) {
  auto out = run_simt(R"(
  setp.lt.u32 %p1, %r1, 10;
  @%p1 bra $then;
  activemask.b32 %r20;
  add.u32 %r23, %r1, 100;
  bra.uni $join;
$then:
  activemask.b32 %r21;
  add.u32 %r23, %r1, 200;
$join:
  activemask.b32 %r22;)");
  for (uint32_t t = 0; t < 32; t++) {
    EXPECT_EQ(out[t].u32(0), t < 10 ? 0u : 0xfffffc00u);
    EXPECT_EQ(out[t].u32(1), t < 10 ? 0x3ffu : 0u);
    EXPECT_EQ(out[t].u32(2), 0xffffffffu) << "reconverged at the join";
    EXPECT_EQ(out[t].u32(3), t + (t < 10 ? 200u : 100u));
  }
}

TEST(FuncSimt, NestedDivergenceReconvergesInnerThenOuter) {
  auto out = run_simt(R"(
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra $even;
  setp.lt.u32 %p2, %r1, 16;
  @%p2 bra $odd_low;
  mov.u32 %r23, 3;
  bra.uni $odd_join;
$odd_low:
  mov.u32 %r23, 2;
$odd_join:
  activemask.b32 %r20;
  bra.uni $join;
$even:
  setp.lt.u32 %p2, %r1, 8;
  @!%p2 bra $even_join;
  mov.u32 %r23, 1;
  activemask.b32 %r21;
$even_join:
  activemask.b32 %r20;
$join:
  activemask.b32 %r22;)");
  for (uint32_t t = 0; t < 32; t++) {
    bool even = t % 2 == 0;
    EXPECT_EQ(out[t].u32(0), even ? 0x55555555u : 0xaaaaaaaau) << t;
    EXPECT_EQ(out[t].u32(1), even && t < 8 ? 0x55u : 0u) << t;
    EXPECT_EQ(out[t].u32(2), 0xffffffffu);
    EXPECT_EQ(out[t].u32(3), even ? (t < 8 ? 1u : 0u) : (t < 16 ? 2u : 3u));
  }
}

TEST(FuncSimt, LoopsWithPerLaneTripCountsKeepOnlyLoopingLanesActive) {
  auto out = run_simt(R"(
  rem.u32 %r2, %r1, 5;       // trips 0..4
  mov.u32 %r3, 0;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra $done;
$loop:
  activemask.b32 %r4;
  popc.b32 %r5, %r4;
  add.u32 %r20, %r20, %r5;   // sum of active-lane counts over my iterations
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p2, %r3, %r2;
  @%p2 bra $loop;
$done:
  mov.u32 %r21, %r3;
  activemask.b32 %r22;)");
  // lanes with trip count >= k are active in iteration k
  uint32_t active_at[6] = {0};
  for (uint32_t t = 0; t < 32; t++)
    for (uint32_t k = 1; k <= t % 5; k++) active_at[k]++;
  for (uint32_t t = 0; t < 32; t++) {
    uint32_t want = 0;
    for (uint32_t k = 1; k <= t % 5; k++) want += active_at[k];
    EXPECT_EQ(out[t].u32(0), want) << t;
    EXPECT_EQ(out[t].u32(1), t % 5);
    EXPECT_EQ(out[t].u32(2), 0xffffffffu);
  }
}

TEST(FuncSimt, BreakOutOfALoopReconvergesAtTheLoopExit) {
  auto out = run_simt(R"(
  mov.u32 %r3, 0;
$loop:
  add.u32 %r3, %r3, 1;
  setp.eq.u32 %p1, %r3, %r1;    // break when the counter reaches tid
  @%p1 bra $out;
  setp.lt.u32 %p2, %r3, 20;
  @%p2 bra $loop;
$out:
  mov.u32 %r20, %r3;
  activemask.b32 %r21;)");
  for (uint32_t t = 0; t < 32; t++) {
    EXPECT_EQ(out[t].u32(0), t >= 1 && t <= 20 ? t : 20u) << t;
    EXPECT_EQ(out[t].u32(1), 0xffffffffu);
  }
}

TEST(FuncSimt, EarlyExitLeavesTheRemainingLanesRunning) {
  Gpu g;
  std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  and.b32 %r2, %r1, 3;
  setp.eq.u32 %p1, %r2, 3;
  @%p1 bra $quit;
  setp.eq.u32 %p2, %r2, 1;
  @%p2 exit;
  activemask.b32 %r3;
  st.global.u32 [%rd3], %r3;
  ret;
$quit:
  st.global.u32 [%rd3], 7;
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.upload(std::vector<uint32_t>(40, 0xdeadu));
  ASSERT_EQ(g.launch("k", 1, 40, {out}), SIMTVP_OK) << g.diag.message;
  auto v = g.download<uint32_t>(out, 40);
  for (uint32_t t = 0; t < 40; t++) {
    uint32_t want = t % 4 == 3 ? 7u : t % 4 == 1 ? 0xdeadu : (t < 32 ? 0x55555555u : 0x55u);
    EXPECT_EQ(v[t], want) << t;
  }
}

TEST(FuncSimt, NamedBarriersWithThreadCountsSynchroniseProducerAndConsumerWarps) {
  // warps 0-1 produce into shared memory and arrive at barrier 1; warps 2-3 wait there (count 128)
  // and then read; all four then meet at barrier 0 and the producers read the consumers' results.
  Gpu g;
  std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .shared .align 4 .b32 buf[128];
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, buf;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  setp.lt.u32 %p1, %r1, 64;
  @!%p1 bra $consumer;
  mul.lo.u32 %r5, %r1, 3;
  st.shared.u32 [%r4], %r5;
  bar.arrive 1, 128;
  bra.uni $meet;
$consumer:
  bar.sync 1, 128;
  sub.u32 %r6, %r3, 256;
  add.u32 %r7, %r2, %r6;
  ld.shared.u32 %r8, [%r7];
  add.u32 %r8, %r8, 1;
  st.shared.u32 [%r4], %r8;
$meet:
  barrier.sync 0;
  xor.b32 %r9, %r3, 256;
  add.u32 %r10, %r2, %r9;
  ld.shared.u32 %r11, [%r10];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r11;
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(128 * 4);
  ASSERT_EQ(g.launch("k", 2, 128, {out}), SIMTVP_OK) << g.diag.message;
  auto v = g.download<uint32_t>(out, 128);
  for (uint32_t t = 0; t < 128; t++) {
    uint32_t other = t ^ 64;
    uint32_t want = other < 64 ? other * 3 : (other - 64) * 3 + 1;
    EXPECT_EQ(v[t], want) << t;
  }
}

TEST(FuncSimt, BarrierReductionsCountAndCombinePredicatesOfTheCta) {
  auto in = std::vector<Slot>(100);
  auto out = run_lanes(R"(
  rem.u32 %r2, %r1, 3;
  setp.eq.u32 %p1, %r2, 0;
  bar.red.popc.u32 %r3, 0, %p1;
  setp.lt.u32 %p2, %r1, 1000;
  bar.red.and.pred %p3, 0, %p2;
  bar.red.or.pred %p4, 0, !%p2;
  selp.u32 %r4, 1, 0, %p3;
  selp.u32 %r5, 1, 0, %p4;
  st.global.v4.u32 [%rd5], {%r3, %r4, %r5, %r2};)",
                       in);
  for (uint32_t t = 0; t < 100; t++) {
    EXPECT_EQ(out[t].u32(0), 34u) << "threads 0, 3, ..., 99";
    EXPECT_EQ(out[t].u32(1), 1u);
    EXPECT_EQ(out[t].u32(2), 0u);
  }
}

TEST(FuncSimt, ExitedWarpsNoLongerHoldBackABarrier) {
  // warp 1 exits; the others synchronise at bar.sync 0 (no count: every non-exited warp)
  auto in = std::vector<Slot>(96);
  auto out = run_lanes(R"(
  shr.u32 %r2, %r1, 5;
  setp.eq.u32 %p1, %r2, 1;
  @%p1 exit;
  bar.sync 0;
  mov.u32 %r3, 5;
  st.global.u32 [%rd5], %r3;)",
                       in);
  for (uint32_t t = 0; t < 96; t++) EXPECT_EQ(out[t].u32(0), t / 32 == 1 ? 0u : 5u);
}

}  // namespace

namespace {

TEST(FuncSimt, IndirectBranchThroughATargetListDivergesPerLane) {
  auto out = run_simt(R"(
  rem.u32 %r2, %r1, 3;
  ts: .branchtargets $c0, $c1, $c2;
  brx.idx %r2, ts;
$c0:
  mov.u32 %r20, 100;
  activemask.b32 %r21;
  bra.uni $join;
$c1:
  mov.u32 %r20, 200;
  activemask.b32 %r21;
  bra.uni $join;
$c2:
  mov.u32 %r20, 300;
  activemask.b32 %r21;
$join:
  activemask.b32 %r22;)");
  for (uint32_t t = 0; t < 32; t++) {
    uint32_t grp = 0;
    for (uint32_t u = 0; u < 32; u++) grp |= (u % 3 == t % 3 ? 1u : 0u) << u;
    EXPECT_EQ(out[t].u32(0), 100u * (t % 3 + 1)) << t;
    EXPECT_EQ(out[t].u32(1), grp) << t;
    EXPECT_EQ(out[t].u32(2), 0xffffffffu);
  }
}

}  // namespace
