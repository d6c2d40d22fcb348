// DramAt — the approximately-timed DRAM controller: exact on isolated requests and simple command
// sequences (the same hand computations as the CA tests, see dram_ca_test.cc), close to CA on
// request streams, and event-driven (no per-cycle work).
#include <gtest/gtest.h>

#include <cmath>

#include "dram_harness.h"

using namespace dramtest;

TEST(DramAt, FactoryChoosesTheVariantByName) {
  Harness h;
  ASSERT_EQ(h.Create(h.Config("at")), SIMTVP_OK);
  EXPECT_STREQ(dram_model_name(h.d()), "at");
  Harness h2;
  ASSERT_EQ(h2.Create(h2.Config("ca")), SIMTVP_OK);
  EXPECT_STREQ(dram_model_name(h2.d()), "ca");
  Harness h3;
  EXPECT_EQ(h3.Create(h3.Config("rtl")), SIMTVP_ERR_CONFIG);
  EXPECT_NE(std::string(h3.diag().message).find("-dram_model"), std::string::npos);
  EXPECT_EQ(h3.d(), nullptr);
}

TEST(DramAt, RowMissCostsTrpPlusTrcdPlusCl) {
  Harness h;
  ASSERT_EQ(h.Create(h.Config("at")), SIMTVP_OK);
  uint64_t a = h.Push(Addr(2, 7), false, 0);
  h.Run();
  EXPECT_EQ(h.DoneAt(a), 26u);  // ACT 0, RD 12, + CL 12 + burst 2
  uint64_t b = h.Push(Addr(2, 9), false, 100);
  h.Run();
  EXPECT_EQ(h.DoneAt(b), 100u + 12 + 12 + 12 + 2);  // PRE 100, ACT 112, RD 124, done 138
  uint64_t c = h.Push(Addr(2, 9, 1), false, 200);
  h.Run();
  EXPECT_EQ(h.DoneAt(c), 214u);  // row hit: RD 200
}

TEST(DramAt, RowHitStreamIsLimitedByTccd) {
  Harness h;
  dram_config cfg = h.Config("at");
  cfg.timing.tCCD = 4;
  ASSERT_EQ(h.Create(cfg), SIMTVP_OK);
  std::vector<uint64_t> ids;
  for (uint32_t c = 0; c < 8; c++) ids.push_back(h.Push(Addr(0, 5, c), false, 0));
  h.Run();
  for (uint32_t k = 0; k < 8; k++) EXPECT_EQ(h.DoneAt(ids[k]), 26u + 4 * k);  // RD_k = 12 + 4k
}

TEST(DramAt, BankLevelParallelismIsLimitedByTrrd) {
  Harness h;
  dram_config cfg = h.Config("at");
  cfg.dual_bus = true;
  ASSERT_EQ(h.Create(cfg), SIMTVP_OK);
  std::vector<uint64_t> ids;
  for (uint32_t b = 0; b < 4; b++) ids.push_back(h.Push(Addr(b, 3), false, 0));
  h.Run();
  for (uint32_t b = 0; b < 4; b++) EXPECT_EQ(h.DoneAt(ids[b]), 26u + 6 * b);  // ACT_b = 6b
}

TEST(DramAt, ReadWriteTurnaroundUsesDerivedTrtwAndTwtr) {
  Harness h;
  ASSERT_EQ(h.Create(h.Config("at")), SIMTVP_OK);
  uint64_t r0 = h.Push(Addr(1, 4, 0), false, 0);
  uint64_t w = h.Push(Addr(1, 4, 1), true, 0);
  uint64_t r1 = h.Push(Addr(1, 4, 2), false, 0);
  h.Run();
  EXPECT_EQ(h.DoneAt(r0), 26u);  // RD 12
  EXPECT_EQ(h.DoneAt(w), 30u);   // WR 12 + tRTW 12 = 24
  EXPECT_EQ(h.DoneAt(r1), 49u);  // RD 24 + tWTR 11 = 35
}

TEST(DramAt, FrFcfsServesRowHitsBeforeAnOlderMiss) {
  Harness h;
  ASSERT_EQ(h.Create(h.Config("at")), SIMTVP_OK);
  uint64_t a = h.Push(Addr(0, 1, 0), false, 0);
  uint64_t b = h.Push(Addr(0, 2, 0), false, 0);
  uint64_t c = h.Push(Addr(0, 1, 1), false, 0);
  h.Run();
  EXPECT_EQ(h.DoneAt(a), 26u);
  EXPECT_EQ(h.DoneAt(c), 28u);
  EXPECT_EQ(h.DoneAt(b), 66u);
}

TEST(DramAt, FifoServesInArrivalOrder) {
  Harness h;
  dram_config cfg = h.Config("at");
  cfg.scheduler = DRAM_SCHED_FIFO;
  ASSERT_EQ(h.Create(cfg), SIMTVP_OK);
  uint64_t a = h.Push(Addr(0, 1, 0), false, 0);
  uint64_t b = h.Push(Addr(0, 2, 0), false, 0);
  uint64_t c = h.Push(Addr(0, 1, 1), false, 0);
  h.Run();
  EXPECT_EQ(h.DoneAt(a), 26u);
  EXPECT_EQ(h.DoneAt(b), 66u);
  EXPECT_EQ(h.DoneAt(c), 106u);
}

TEST(DramAt, RefreshStallsRequests) {
  Harness h;
  dram_config cfg = h.Config("at");
  cfg.tREFI = 200;
  cfg.tRFC = 50;
  ASSERT_EQ(h.Create(cfg), SIMTVP_OK);
  h.Push(Addr(0, 3), false, 0);
  h.Run(150);
  uint64_t r = h.Push(Addr(0, 3, 1), false, 205);
  h.Run();
  // As in CA: PRE 200, REF 212, bank ready 262: ACT 262, RD 274, done 288.
  EXPECT_EQ(h.DoneAt(r), 288u);
  EXPECT_EQ(h.Stats().n_ref, 1u);
}

TEST(DramAt, IdleControllerHasNoEvents) {
  Harness h;
  dram_config cfg = h.Config("at");
  cfg.tREFI = 1000;
  cfg.tRFC = 100;
  ASSERT_EQ(h.Create(cfg), SIMTVP_OK);
  EXPECT_EQ(dram_next_event(h.d()), DRAM_NEVER);  // refresh of an idle channel is caught up later
  uint64_t a = h.Push(Addr(0, 0), false, 10500);
  // Ten refreshes happened while idle (1000 .. 10000); the last one blocks the bank until 10100.
  EXPECT_EQ(dram_next_event(h.d()), 10500u);
  dram_advance(h.d(), 10500);
  EXPECT_EQ(dram_next_event(h.d()), 10512u);  // tRCD after the ACT: the wait is skipped
  h.Run();
  EXPECT_EQ(h.DoneAt(a), 10526u);
  EXPECT_EQ(h.Stats().n_ref, 10u);
}

// AT must stay within 10% of CA in total time on simple streams (docs/dram.md has the full table
// from tests/dram/dram_compare).
class DramAtVsCa : public ::testing::TestWithParam<int> {};

TEST_P(DramAtVsCa, TotalTimeWithinTenPercentOfCa) {
  Stream s = static_cast<Stream>(GetParam());
  uint64_t total[2];
  const char *models[2] = {"ca", "at"};
  for (int m = 0; m < 2; m++) {
    Harness h;
    dram_config cfg = h.Config(models[m]);
    cfg.sched_queue_size = 16;
    ASSERT_EQ(h.Create(cfg), SIMTVP_OK);
    total[m] = RunStream(h, s, 2000, 4);
    ASSERT_EQ(h.completions().size(), 2000u);
  }
  double err = std::fabs((double)total[1] - (double)total[0]) / (double)total[0];
  EXPECT_LT(err, 0.10) << StreamName(s) << ": CA " << total[0] << " AT " << total[1];
}

INSTANTIATE_TEST_SUITE_P(Streams, DramAtVsCa, ::testing::Values(0, 1, 2),
                         [](const ::testing::TestParamInfo<int> &i) {
                           return std::string(StreamName(static_cast<Stream>(i.param)));
                         });
