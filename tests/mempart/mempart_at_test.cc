// The approximately-timed memory partition (models/mempart/mempart_at.c): the zero-load figures
// of the cycle-accurate partition for every kind of access (each case runs on both models), timed
// access (done at once or deferred to the fill), requests waiting for one fill, back-pressure at
// its ports, and the CA-vs-AT difference under random load.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "mempart_harness.h"

using mptest::Part;

namespace {

constexpr uint32_t R = 10, L = 5, D = 20; // ROP and DRAM-queue latency; the stub DRAM's service

mempart_config Config(const char *model, uint32_t rop = R, uint32_t lat = L, const char *l2 = mptest::kL2WriteBack) {
  mempart_config c = Part::Config(rop, lat, l2);
  c.model = model;
  return c;
}

class MempartBothModels : public ::testing::TestWithParam<const char *> {};

// Every case is the hand count of the CA partition (tests/mempart/mempart_test.cc), which the AT
// partition must give too.
TEST_P(MempartBothModels, LoneMissReachesTheDramAtRop3LatAndRepliesTwoCyclesAfterTheFill) {
  Part p(Config(GetParam()));
  ASSERT_EQ(p.status(), SIMTVP_OK) << p.diag().message;
  uint64_t id = p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 0);
  p.RunToIdle();
  ASSERT_EQ(p.dram_sends().size(), 1u);
  EXPECT_EQ(p.dram_sends()[0].at, R + 3 + L);       // 18
  EXPECT_EQ(p.ReplyAt(id), R + 3 + L + D + 2);      // back at 38, out at 40
  EXPECT_EQ(std::string(mempart_model_name(p.mp())), GetParam());
}

TEST_P(MempartBothModels, HitRepliesRopPlusThreeLater) {
  Part p(Config(GetParam()));
  p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 0);
  p.RunToIdle();
  uint64_t id = p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 100);
  p.RunToIdle();
  EXPECT_EQ(p.ReplyAt(id), 100u + R + 3);
  EXPECT_EQ(p.dram_sends().size(), 1u);
  EXPECT_EQ(p.Stat("L2_total_cache_accesses"), 2u);
  EXPECT_EQ(p.Stat("L2_total_cache_misses"), 1u);
}

TEST_P(MempartBothModels, WriteBackL2AcknowledgesAWriteAsAHitAndWritesItBackOnFlush) {
  Part p(Config(GetParam()));
  uint64_t id = p.Push(0, 0x2000, MEM_ACC_GLOBAL_W, 0);
  p.RunToIdle();
  EXPECT_EQ(p.ReplyAt(id), R + 3);
  EXPECT_TRUE(p.dram_sends().empty());
  EXPECT_EQ(mempart_flush_l2(p.mp(), 20), 1u);
  p.RunToIdle();
  ASSERT_EQ(p.dram_sends().size(), 1u);
  EXPECT_EQ(p.dram_sends()[0].kind, MEM_ACC_L2_WRBK);
  EXPECT_TRUE(mempart_is_idle(p.mp()));
  EXPECT_EQ(p.Stat("mem_partition[0].dram_writes"), 1u);
}

TEST_P(MempartBothModels, WriteThroughL2AcknowledgesOneCycleAfterTheDram) {
  Part p(Config(GetParam(), R, L, mptest::kL2WriteThrough));
  uint64_t id = p.Push(0, 0x2000, MEM_ACC_GLOBAL_W, 0);
  p.RunToIdle();
  ASSERT_EQ(p.dram_sends().size(), 1u);
  EXPECT_TRUE(p.dram_sends()[0].is_write);
  EXPECT_EQ(p.ReplyAt(id), R + L + D + 4); // at the DRAM at 18, back at 38, out at 39
}

TEST_P(MempartBothModels, WriteWithoutNeedsReplyEndsInThePartition) {
  for (const char *l2 : {mptest::kL2WriteBack, mptest::kL2WriteThrough, "none"}) {
    Part p(Config(GetParam(), R, L, l2));
    p.Push(0, 0x2000, MEM_ACC_GLOBAL_W, 0, 32, false);
    p.RunToIdle();
    EXPECT_TRUE(p.replies().empty()) << l2;
    EXPECT_EQ(p.Outstanding(), 0u) << l2;
  }
}

TEST_P(MempartBothModels, IdealL2RepliesRopPlusTwo) {
  mempart_config c = Config(GetParam());
  c.l2_ideal = true;
  Part p(c);
  uint64_t r = p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 0);
  uint64_t w = p.Push(0, 0x2000, MEM_ACC_GLOBAL_W, 1);
  p.RunToIdle();
  EXPECT_EQ(p.ReplyAt(r), R + 2);
  EXPECT_EQ(p.ReplyAt(w), R + 3);
  EXPECT_TRUE(p.dram_sends().empty());
}

TEST_P(MempartBothModels, AtomicMissFetchesTheLineAndLeavesItDirty) {
  Part p(Config(GetParam()));
  uint64_t miss = p.Push(0, 0x3000, MEM_ACC_ATOMIC, 0, 4);
  p.RunToIdle();
  EXPECT_EQ(p.ReplyAt(miss), R + 3 + L + D + 2);
  ASSERT_EQ(p.dram_sends().size(), 1u);
  EXPECT_FALSE(p.dram_sends()[0].is_write);
  cache_line_state ls;
  ASSERT_TRUE(cache_line_lookup(mempart_l2(p.mp(), 0), 0x3000, &ls));
  EXPECT_EQ(ls.dirty, 0x1);
  uint64_t hit = p.Push(0, 0x3004, MEM_ACC_ATOMIC, 100, 4);
  p.RunToIdle();
  EXPECT_EQ(p.ReplyAt(hit), 100u + R + 3);
}

TEST_P(MempartBothModels, AtomicsToOneSliceWaitForItsAtomicUnit) {
  // -gpgpu_l2_atomic_ops_per_cycle 1: an atomic of k lane operations holds the slice's atomic
  // unit k cycles. The line is warmed first (a miss, one operation). Three atomics of 8
  // operations arrive at 100, 101, 102: the first is accessed at 100 + R + 1 = 111 and replies two
  // cycles later (113, as any hit); the unit is busy until 119, so the second is accessed then
  // (121) and the third at 127 (129). Without the unit they reply one cycle apart.
  for (uint32_t ops_per_cycle : {1u, 0u}) {
    mempart_config c = Config(GetParam());
    c.atomic_ops = ops_per_cycle;
    Part p(c);
    p.Push(0, 0x3000, MEM_ACC_ATOMIC, 0, 4);
    p.RunToIdle();
    uint64_t id[3];
    for (uint64_t i = 0; i < 3; i++) {
      mem_req *r = p.Make(0x3000, MEM_ACC_ATOMIC, 4, true);
      r->n_ops = 8;
      id[i] = r->id;
      ASSERT_TRUE(mempart_push(p.mp(), 0, r, 100 + i));
    }
    p.RunToIdle();
    for (uint64_t i = 0; i < 3; i++) {
      EXPECT_EQ(p.ReplyAt(id[i]), ops_per_cycle ? 113 + 8 * i : 113 + i) << ops_per_cycle << " " << i;
    }
    if (ops_per_cycle && std::string(GetParam()) == "ca") {
      EXPECT_EQ(p.Stat("mem_partition[0].l2_atomic_ops"), 25u);
    }
  }
}

TEST_P(MempartBothModels, TextureOnlyL2LetsOtherReadsGoAround) {
  mempart_config c = Config(GetParam());
  c.l2_texture_only = true;
  Part p(c);
  p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 0);
  p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 50);
  p.Push(0, 0x5000, MEM_ACC_TEXTURE_R, 100);
  p.RunToIdle();
  EXPECT_EQ(p.Stat("mem_partition[0].l2_bypassed"), 2u);
  EXPECT_EQ(p.Stat("L2_total_cache_accesses"), 1u);
  EXPECT_EQ(p.dram_sends().size(), 3u);
  EXPECT_EQ(p.replies().size(), 3u);
}

TEST_P(MempartBothModels, RefusedRepliesWaitForReplyReady) {
  Part p(Config(GetParam()));
  p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 0);
  p.RunToIdle();
  p.SetReplyRefuse(true);
  uint64_t id = p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 100);
  p.RunTo(200);
  EXPECT_EQ(p.ReplyAt(id), UINT64_MAX); // held at the port
  EXPECT_FALSE(mempart_is_idle(p.mp()));
  p.ReplyReady(0, 300);
  p.RunToIdle();
  EXPECT_EQ(p.ReplyAt(id), 300u);
}

TEST_P(MempartBothModels, RefusedDramRequestsWaitForDramReady) {
  Part p(Config(GetParam()));
  p.SetDramRefuse(true);
  uint64_t id = p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 0);
  p.RunTo(100);
  EXPECT_TRUE(p.dram_sends().empty());
  p.DramReady(100);
  p.RunToIdle();
  ASSERT_EQ(p.dram_sends().size(), 1u);
  EXPECT_EQ(p.dram_sends()[0].at, 100u);
  EXPECT_EQ(p.ReplyAt(id), 100u + D + 2);
}

INSTANTIATE_TEST_SUITE_P(Models, MempartBothModels, ::testing::Values("ca", "at"),
                         [](const ::testing::TestParamInfo<const char *> &i) { return std::string(i.param); });

// ---- the AT partition alone ---------------------------------------------------------------------

TEST(MempartAt, TimedAccessAnswersAHitAtOnceAsTheReply) {
  Part p(Config("at"));
  ASSERT_TRUE(mempart_is_timed(p.mp()));
  p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 0);
  p.RunToIdle();
  mem_req *r = p.Make(0x1000, MEM_ACC_GLOBAL_R);
  uint64_t at = 0;
  ASSERT_EQ(mempart_access_timed(p.mp(), 0, r, 100, &at), MEMPART_DONE);
  EXPECT_EQ(at, 100u + R + 3);
  EXPECT_TRUE(r->is_reply);
  EXPECT_EQ(r->dst_node, 3u); // back to the node that sent it
  mem_req_free(r);
  EXPECT_TRUE(p.replies().size() == 1u); // the timed one did not go through the reply port
}

TEST(MempartAt, TimedMissIsDeferredAndItsReplyLeavesAfterTheFill) {
  Part p(Config("at"));
  mem_req *r = p.Make(0x1000, MEM_ACC_GLOBAL_R);
  uint64_t id = r->id, at = 0;
  ASSERT_EQ(mempart_access_timed(p.mp(), 0, r, 0, &at), MEMPART_DEFERRED);
  p.RunToIdle();
  EXPECT_EQ(p.ReplyAt(id), R + 3 + L + D + 2);
}

TEST(MempartAt, RequestsForALineOnItsWayWaitForThatFill) {
  Part p(Config("at"));
  uint64_t a = p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 0);
  uint64_t b = p.Push(0, 0x1010, MEM_ACC_GLOBAL_R, 1, 16); // same sector, untimed fill: waits
  p.RunToIdle();
  EXPECT_EQ(p.dram_sends().size(), 1u);
  EXPECT_EQ(p.ReplyAt(a), 40u);
  EXPECT_EQ(p.ReplyAt(b), 40u); // the CA partition lets them out one per cycle: 40, 41
  EXPECT_EQ(p.Stat("L2_total_cache_pending_hits"), 1u);
  // Once the fill time is known, a request for the line is a pending hit timed at once.
  uint64_t c = p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 30);
  p.RunToIdle();
  EXPECT_EQ(p.ReplyAt(c), 30u + R + 3);
}

TEST(MempartAt, SliceTakesOneRequestPerCycleAndHitsHoldTheDataPort) {
  Part p(Config("at"));
  p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 0, 128); // whole line, four sectors
  p.RunToIdle();
  // Four 128-byte hits arriving together: accepted one per cycle, each holding the 32-byte data
  // port four cycles: out at 113, 117, 121, 125.
  std::vector<uint64_t> ids;
  for (int k = 0; k < 4; k++) ids.push_back(p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 100, 128));
  p.RunToIdle();
  for (int k = 0; k < 4; k++) EXPECT_EQ(p.ReplyAt(ids[k]), 113u + 4u * k) << k;
}

TEST(MempartAt, UnknownModelNamesTheOption) {
  Part p(Config("fast"));
  EXPECT_EQ(p.status(), SIMTVP_ERR_CONFIG);
  EXPECT_NE(std::string(p.diag().message).find("-mempart_model"), std::string::npos) << p.diag().message;
}

// Random reads and writes over a working set about twice the L2, with DRAM service time and
// arrivals spread so both models are loaded: the AT partition's last reply within 10% of the CA
// one's, every request answered, nothing left behind.
TEST(MempartAt, RandomLoadEndsWithinTenPercentOfTheCaPartition) {
  uint64_t last[2] = {0, 0};
  size_t n_replies[2] = {0, 0};
  const char *models[2] = {"ca", "at"};
  for (int m = 0; m < 2; m++) {
    Part p(Config(models[m]));
    std::mt19937_64 rng(7);
    uint64_t t = 0;
    for (int i = 0; i < 2000; i++) {
      uint64_t addr = (rng() % 256) * 128 + (rng() % 4) * 32;
      uint8_t kind = rng() % 4 == 0 ? MEM_ACC_GLOBAL_W : MEM_ACC_GLOBAL_R;
      while (p.Push(0, addr, kind, t) == Part::kRefused) p.Step(++t);
      t += rng() % 5;
      p.RunTo(t);
    }
    p.RunToIdle();
    for (auto &r : p.replies()) last[m] = std::max(last[m], r.at);
    n_replies[m] = p.replies().size();
    EXPECT_EQ(p.Outstanding(), 0u) << models[m];
    EXPECT_TRUE(mempart_is_idle(p.mp())) << models[m];
  }
  EXPECT_EQ(n_replies[0], n_replies[1]);
  double err = ((double)last[1] - (double)last[0]) / (double)last[0];
  EXPECT_LT(std::abs(err), 0.10) << "CA " << last[0] << " AT " << last[1];
}

}  // namespace
