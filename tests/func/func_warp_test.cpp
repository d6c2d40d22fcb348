// Warp-level operations of the functional engine (PTX ISA 9.7.12.x): vote{.sync} all/any/uni/
// ballot, shfl.sync up/down/bfly/idx with clamp and segment (the `width` of __shfl_*_sync) and the
// in-range predicate, match.any/all, redux.sync, activemask, elect — with full and partial member
// masks and inside divergent code.
#include "func_test_util.h"

using namespace functest;

namespace {

std::vector<Slot> run_warp(const std::string &body, uint32_t threads = 32) {
  std::vector<Slot> in(threads);
  for (uint32_t t = 0; t < threads; t++) in[t].set_u32(0, t * 7 % 11);  // a value per lane
  return run_lanes("ld.global.u32 %r2, [%rd4];\n mov.u32 %r20, 0; mov.u32 %r21, 0; mov.u32 %r22, 0; mov.u32 %r23, 0;\n" +
                       body + "\n st.global.v4.u32 [%rd5], {%r20, %r21, %r22, %r23};",
                   in);
}
uint32_t val(uint32_t t) { return t * 7 % 11; }

TEST(FuncWarp, VoteOverTheMemberLanes) {
  auto out = run_warp(R"(
  setp.gt.u32 %p1, %r2, 2;
  vote.sync.ballot.b32 %r20, %p1, 0xffffffff;
  vote.sync.ballot.b32 %r21, %p1, 0x0000ffff;
  vote.sync.all.pred %p2, %p1, 0xffffffff;
  vote.sync.any.pred %p3, %p1, 0xffffffff;
  setp.lt.u32 %p4, %r1, 40;
  vote.sync.uni.pred %p5, %p4, 0xffffffff;
  vote.all.pred %p6, %p4;
  selp.u32 %r3, 1, 0, %p2; selp.u32 %r4, 2, 0, %p3; selp.u32 %r5, 4, 0, %p5; selp.u32 %r6, 8, 0, %p6;
  or.b32 %r22, %r3, %r4; or.b32 %r22, %r22, %r5; or.b32 %r22, %r22, %r6;)");
  uint32_t ballot = 0;
  for (uint32_t t = 0; t < 32; t++) ballot |= (val(t) > 2 ? 1u : 0u) << t;
  for (uint32_t t = 0; t < 32; t++) {
    EXPECT_EQ(out[t].u32(0), ballot);
    EXPECT_EQ(out[t].u32(1), ballot & 0xffffu) << "only member lanes vote";
    EXPECT_EQ(out[t].u32(2), 2u | 4u | 8u);
  }
}

TEST(FuncWarp, VoteInsideADivergentBranchSeesOnlyThatBranch) {
  auto out = run_warp(R"(
  setp.lt.u32 %p1, %r1, 12;
  @!%p1 bra $skip;
  setp.ne.u32 %p2, %r2, 0;
  activemask.b32 %r3;
  vote.sync.ballot.b32 %r20, %p2, %r3;
  vote.sync.all.pred %p3, %p2, %r3;
  selp.u32 %r21, 1, 2, %p3;
$skip:)");
  uint32_t ballot = 0;
  for (uint32_t t = 0; t < 12; t++) ballot |= (val(t) != 0 ? 1u : 0u) << t;
  for (uint32_t t = 0; t < 32; t++) {
    EXPECT_EQ(out[t].u32(0), t < 12 ? ballot : 0u);
    EXPECT_EQ(out[t].u32(1), t < 12 ? 2u : 0u) << "lane 0 has value 0";
  }
}

// Reference of PTX shfl.sync (9.7.12.x pseudocode).
uint32_t ref_shfl(int mode, uint32_t lane, uint32_t b, uint32_t c, bool *ok) {
  uint32_t seg = (c >> 8) & 31, cl = c & 31;
  int maxl = (int)((lane & seg) | (cl & ~seg)), minl = (int)(lane & seg), j;
  switch (mode) {
  case 0: j = (int)lane - (int)b; *ok = j >= maxl; break;  // up
  case 1: j = (int)lane + (int)b; *ok = j <= maxl; break;  // down
  case 2: j = (int)(lane ^ b); *ok = j <= maxl; break;     // bfly
  default: j = minl | (int)(b & ~seg); *ok = j <= maxl; break;
  }
  return *ok ? (uint32_t)j : lane;
}

TEST(FuncWarp, ShuffleModesWithSegmentsAndClamps) {
  struct S { const char *mode; int m; uint32_t b, c; };
  // width 8: c = ((32 - 8) << 8) | 31 for down/bfly/idx, (32 - 8) << 8 for up
  S cases[] = {{"up", 0, 1, 0}, {"up", 0, 3, 0x1800}, {"down", 1, 1, 0x1f}, {"down", 1, 2, 0x181f},
               {"bfly", 2, 16, 0x1f}, {"bfly", 2, 3, 0x181f}, {"idx", 3, 5, 0x1f}, {"idx", 3, 13, 0x181f},
               {"down", 1, 4, 0x0a}, {"idx", 3, 2, 0x1c1f}};
  for (const S &c : cases) {
    char body[512];
    std::snprintf(body, sizeof body,
                  "shfl.sync.%s.b32 %%r20|%%p1, %%r2, %u, %u, 0xffffffff;\n selp.u32 %%r21, 1, 0, %%p1;\n"
                  "shfl.sync.%s.b32 %%r22, %%r1, %u, %u, 0xffffffff;",
                  c.mode, c.b, c.c, c.mode, c.b, c.c);
    auto out = run_warp(body);
    for (uint32_t t = 0; t < 32; t++) {
      bool ok;
      uint32_t j = ref_shfl(c.m, t, c.b, c.c, &ok);
      EXPECT_EQ(out[t].u32(0), val(j)) << c.mode << " b=" << c.b << " c=0x" << std::hex << c.c << " lane " << std::dec << t;
      EXPECT_EQ(out[t].u32(1), ok ? 1u : 0u) << c.mode << " lane " << t;
      EXPECT_EQ(out[t].u32(2), j);
    }
  }
}

TEST(FuncWarp, ShuffleReductionSumsTheWarp) {
  auto out = run_warp(R"(
  mov.u32 %r3, %r2;
  shfl.sync.bfly.b32 %r4, %r3, 16, 31, 0xffffffff; add.u32 %r3, %r3, %r4;
  shfl.sync.bfly.b32 %r4, %r3, 8, 31, 0xffffffff;  add.u32 %r3, %r3, %r4;
  shfl.sync.bfly.b32 %r4, %r3, 4, 31, 0xffffffff;  add.u32 %r3, %r3, %r4;
  shfl.sync.bfly.b32 %r4, %r3, 2, 31, 0xffffffff;  add.u32 %r3, %r3, %r4;
  shfl.sync.bfly.b32 %r4, %r3, 1, 31, 0xffffffff;  add.u32 %r20, %r3, %r4;
  redux.sync.add.u32 %r21, %r2, 0xffffffff;
  redux.sync.max.u32 %r22, %r2, 0x000000f0;
  redux.sync.or.b32 %r23, %r1, 0x0000ffff;)");
  uint32_t sum = 0, mx = 0;
  for (uint32_t t = 0; t < 32; t++) sum += val(t);
  for (uint32_t t = 4; t < 8; t++) mx = std::max(mx, val(t));
  for (uint32_t t = 0; t < 32; t++) {
    EXPECT_EQ(out[t].u32(0), sum);
    EXPECT_EQ(out[t].u32(1), sum);
    EXPECT_EQ(out[t].u32(2), mx);
    EXPECT_EQ(out[t].u32(3), 15u);
  }
}

TEST(FuncWarp, MatchGroupsLanesWithEqualValues) {
  auto out = run_warp(R"(
  match.any.sync.b32 %r20, %r2, 0xffffffff;
  match.all.sync.b32 %r21|%p1, %r2, 0xffffffff;
  selp.u32 %r22, 1, 0, %p1;
  and.b32 %r3, %r1, 0;
  match.all.sync.b32 %r23|%p2, %r3, 0x0f0f0f0f;)");
  for (uint32_t t = 0; t < 32; t++) {
    uint32_t same = 0;
    for (uint32_t u = 0; u < 32; u++) same |= (val(u) == val(t) ? 1u : 0u) << u;
    EXPECT_EQ(out[t].u32(0), same);
    EXPECT_EQ(out[t].u32(1), 0u);
    EXPECT_EQ(out[t].u32(2), 0u);
    EXPECT_EQ(out[t].u32(3), (0x0f0f0f0fu >> t) & 1 ? 0x0f0f0f0fu : 0u);
  }
}

TEST(FuncWarp, ActivemaskAndElectFollowTheActiveLanes) {
  auto out = run_warp(R"(
  and.b32 %r3, %r1, 3;
  setp.eq.u32 %p1, %r3, 2;
  @!%p1 bra $skip;
  activemask.b32 %r20;
  elect.sync %r21|%p2, 0xffffffff;
  selp.u32 %r22, 1, 0, %p2;
$skip:
  bar.warp.sync 0xffffffff;
  activemask.b32 %r23;)");
  for (uint32_t t = 0; t < 32; t++) {
    bool in = t % 4 == 2;
    EXPECT_EQ(out[t].u32(0), in ? 0x44444444u : 0u);
    EXPECT_EQ(out[t].u32(1), in ? 2u : 0u) << "the lowest executing lane is elected";
    EXPECT_EQ(out[t].u32(2), t == 2 ? 1u : 0u);
    EXPECT_EQ(out[t].u32(3), 0xffffffffu);
  }
}

// A partial warp (20 threads): shuffles among the existing lanes work; the in-range predicate
// follows the clamp only (reading a lane that does not exist is undefined in the ISA).
TEST(FuncWarp, PartialWarpsShuffleAmongExistingLanes) {
  auto out = run_warp("shfl.sync.down.b32 %r20|%p1, %r1, 4, 31, 0x000fffff;\n selp.u32 %r21, 1, 0, %p1;", 20);
  for (uint32_t t = 0; t < 20; t++) {
    if (t < 16) {
      EXPECT_EQ(out[t].u32(0), t + 4);
    }
    EXPECT_EQ(out[t].u32(1), 1u);
  }
}

}  // namespace
