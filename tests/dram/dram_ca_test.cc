// DramCa — the cycle-accurate DRAM controller against hand-computed command sequences.
//
// Timing (the manual's named example, see dram_harness.h): tCCD=2 tRRD=6 tRCD=12 tRAS=28 tRP=12
// tRC=40 CL=12 WL=4 tCDLR=5 tWR=12; burst = 2 command cycles; derived tRTW=12 tWTR=11 tWTP=18
// tRTP=2. A request completes when its last data beat leaves the bus: RD + CL + burst = RD + 14,
// WR + WL + burst = WR + 6. A request pushed at cycle t is scheduled in cycle t; a bank slot freed
// by a column command at t is refilled at t + 1. Column commands win the command bus over
// ACT/PRE in the same cycle (single bus).
#include <gtest/gtest.h>

#include <cstring>

#include "dram_harness.h"

using namespace dramtest;

TEST(DramCa, RowHitStreamIsLimitedByTccd) {
  Harness h;
  dram_config cfg = h.Config();
  cfg.timing.tCCD = 4;  // wider than the 2-cycle burst, so tCCD is what limits the stream
  ASSERT_EQ(h.Create(cfg), SIMTVP_OK) << h.diag().message;
  std::vector<uint64_t> ids;
  for (uint32_t c = 0; c < 8; c++) ids.push_back(h.Push(Addr(0, 5, c), false, 0));
  h.Run();
  // ACT at 0, RD0 at tRCD = 12 -> done 26. Each next RD is a row hit that waits for tCCD:
  // RD_k = 12 + 4k -> done_k = 26 + 4k.
  for (uint32_t k = 0; k < 8; k++) EXPECT_EQ(h.DoneAt(ids[k]), 26u + 4 * k) << "request " << k;
  dram_stats s = h.Stats();
  EXPECT_EQ(s.n_act, 1u);
  EXPECT_EQ(s.n_rd, 8u);
  EXPECT_EQ(s.row_hits, 7u);
}

TEST(DramCa, RowHitStreamAtTccdEqualToBurstFillsTheBus) {
  Harness h;
  ASSERT_EQ(h.Create(h.Config()), SIMTVP_OK);
  std::vector<uint64_t> ids;
  for (uint32_t c = 0; c < 16; c++) ids.push_back(h.Push(Addr(3, 1, c), false, 0));
  h.Run();
  // RD_k = 12 + 2k (tCCD = burst = 2): done_k = 26 + 2k; the bus is busy 32 of cycles 24..56.
  for (uint32_t k = 0; k < 16; k++) EXPECT_EQ(h.DoneAt(ids[k]), 26u + 2 * k);
  dram_stats s = h.Stats();
  EXPECT_EQ(s.bus_busy, 32u);
  EXPECT_EQ(s.n_req, 16u);
}

TEST(DramCa, RowHitStreamIsLimitedByTheBurstWhenItIsLongerThanTccd) {
  Harness h;
  dram_config cfg = h.Config();
  cfg.data_command_freq_ratio = 2;  // DDR: BL 8 takes 4 command cycles on the bus
  ASSERT_EQ(h.Create(cfg), SIMTVP_OK);
  std::vector<uint64_t> ids;
  for (uint32_t c = 0; c < 6; c++) ids.push_back(h.Push(Addr(0, 0, c), false, 0));
  h.Run();
  // burst = 8 / 2 = 4 > tCCD = 2: RD_k = 12 + 4k (the data bus is free again 4 cycles later);
  // done_k = RD_k + CL 12 + 4 = 28 + 4k; the bus is 100% busy from cycle 24 on.
  for (uint32_t k = 0; k < 6; k++) EXPECT_EQ(h.DoneAt(ids[k]), 28u + 4 * k);
  EXPECT_EQ(h.Stats().bus_busy, 24u);
}

TEST(DramCa, RowMissCostsTrpPlusTrcdPlusCl) {
  Harness h;
  ASSERT_EQ(h.Create(h.Config()), SIMTVP_OK);
  uint64_t a = h.Push(Addr(2, 7), false, 0);
  h.Run();
  // Closed bank: ACT 0, RD 12, done 12 + CL 12 + burst 2 = 26.
  EXPECT_EQ(h.DoneAt(a), 26u);
  uint64_t b = h.Push(Addr(2, 9), false, 100);
  h.Run();
  // Row conflict at 100 (tRAS, tRTP long satisfied): PRE 100, ACT 100 + tRP = 112,
  // RD 112 + tRCD = 124, first data 124 + CL = 136 = 100 + tRP + tRCD + CL; last beat 138.
  EXPECT_EQ(h.DoneAt(b), 100u + 12 + 12 + 12 + 2);
  uint64_t c = h.Push(Addr(2, 9, 1), false, 200);
  h.Run();
  // Row hit: RD at 200, done 200 + CL + burst = 214.
  EXPECT_EQ(h.DoneAt(c), 214u);
  dram_stats s = h.Stats();
  EXPECT_EQ(s.n_act, 2u);
  EXPECT_EQ(s.n_pre, 1u);
  EXPECT_EQ(s.row_hits, 1u);
}

TEST(DramCa, RowConflictWaitsForTras) {
  Harness h;
  ASSERT_EQ(h.Create(h.Config()), SIMTVP_OK);
  uint64_t a = h.Push(Addr(0, 1), false, 0);
  uint64_t b = h.Push(Addr(0, 2), false, 0);
  h.Run();
  // ACT 0, RD 12 (done 26); the conflict's PRE waits for tRAS: 28; ACT max(28 + tRP, tRC) = 40;
  // RD 52; done 66.
  EXPECT_EQ(h.DoneAt(a), 26u);
  EXPECT_EQ(h.DoneAt(b), 66u);
}

TEST(DramCa, BankLevelParallelismIsLimitedByTrrd) {
  Harness h;
  dram_config cfg = h.Config();
  cfg.dual_bus = true;  // row and column commands never compete: only tRRD spaces the ACTs
  ASSERT_EQ(h.Create(cfg), SIMTVP_OK);
  std::vector<uint64_t> ids;
  for (uint32_t b = 0; b < 4; b++) ids.push_back(h.Push(Addr(b, 3), false, 0));
  h.Run();
  // ACT_b = 6b (tRRD), RD_b = 6b + 12, done_b = 6b + 26: four misses overlap, 44 cycles in all
  // instead of 4 × 26 one after the other.
  for (uint32_t b = 0; b < 4; b++) EXPECT_EQ(h.DoneAt(ids[b]), 26u + 6 * b);
}

TEST(DramCa, SingleCommandBusDelaysActivateBehindRead) {
  Harness h;
  ASSERT_EQ(h.Create(h.Config()), SIMTVP_OK);
  std::vector<uint64_t> ids;
  for (uint32_t b = 0; b < 4; b++) ids.push_back(h.Push(Addr(b, 3), false, 0));
  h.Run();
  // ACT b0 0, ACT b1 6; cycle 12: RD b0 takes the bus, so ACT b2 slips to 13; ACT b3 19 (tRRD);
  // RD b1 18, RD b2 25, RD b3 31. done = RD + 14: 26, 32, 39, 45.
  EXPECT_EQ(h.DoneAt(ids[0]), 26u);
  EXPECT_EQ(h.DoneAt(ids[1]), 32u);
  EXPECT_EQ(h.DoneAt(ids[2]), 39u);
  EXPECT_EQ(h.DoneAt(ids[3]), 45u);
}

TEST(DramCa, ReadWriteTurnaroundUsesDerivedTrtwAndTwtr) {
  Harness h;
  ASSERT_EQ(h.Create(h.Config()), SIMTVP_OK);
  uint64_t r0 = h.Push(Addr(1, 4, 0), false, 0);
  uint64_t w = h.Push(Addr(1, 4, 1), true, 0);
  uint64_t r1 = h.Push(Addr(1, 4, 2), false, 0);
  h.Run();
  // R0: ACT 0, RD 12, done 26.
  // W:  slot at 13; WR waits for tRTW = CL + burst + 2 - WL = 12 after the RD: WR 24, done 30.
  // R1: slot at 25; RD waits for tWTR = WL + burst + tCDLR = 11 after the WR: RD 35, done 49.
  EXPECT_EQ(h.DoneAt(r0), 26u);
  EXPECT_EQ(h.DoneAt(w), 30u);
  EXPECT_EQ(h.DoneAt(r1), 49u);
}

TEST(DramCa, WriteToPrechargeUsesTwtp) {
  Harness h;
  ASSERT_EQ(h.Create(h.Config()), SIMTVP_OK);
  uint64_t w = h.Push(Addr(0, 1), true, 100);
  uint64_t r = h.Push(Addr(0, 2), false, 100);
  h.Run();
  // W: ACT 100, WR 112, done 118. The conflict's PRE waits for max(tRAS: 128,
  // tWTP = WL + burst + tWR = 18 after WR: 130) = 130; ACT max(142, tRC 140) = 142; RD 154;
  // done 168.
  EXPECT_EQ(h.DoneAt(w), 118u);
  EXPECT_EQ(h.DoneAt(r), 168u);
}

TEST(DramCa, BankGroupsSpaceSameGroupColumnsByTccdl) {
  for (int same_group = 0; same_group < 2; same_group++) {
    Harness h;
    dram_config cfg = h.Config();
    cfg.timing.nbkgrp = 4;  // groups of 4 banks: 0-3, 4-7, ...
    cfg.timing.tCCDL = 4;
    ASSERT_EQ(h.Create(cfg), SIMTVP_OK);
    uint32_t other = same_group ? 1 : 4;
    h.Push(Addr(0, 0), false, 0);
    h.Push(Addr(other, 0), false, 0);
    h.Run();  // both rows are now open
    uint64_t a = h.Push(Addr(0, 0, 1), false, 100);
    uint64_t b = h.Push(Addr(other, 0, 1), false, 100);
    h.Run();
    // Both hit at 100; prio = 100 mod 16 = 4 puts bank 4 first when it is used.
    // Same group (0, 1): RD b0 100, RD b1 at 100 + tCCDL = 104: done 114, 118.
    // Different groups (0, 4): RD b4 100, RD b0 at 100 + tCCD = 102: done 114, 116.
    if (same_group) {
      EXPECT_EQ(h.DoneAt(a), 114u);
      EXPECT_EQ(h.DoneAt(b), 118u);
    } else {
      EXPECT_EQ(h.DoneAt(b), 114u);
      EXPECT_EQ(h.DoneAt(a), 116u);
    }
  }
}

TEST(DramCa, BankGroupReadToPrechargeUsesTrtpl) {
  Harness h;
  dram_config cfg = h.Config();
  cfg.timing.nbkgrp = 4;
  cfg.timing.tCCDL = 4;
  cfg.timing.tRTPL = 10;
  ASSERT_EQ(h.Create(cfg), SIMTVP_OK);
  h.Push(Addr(0, 0), false, 0);
  h.Run();
  uint64_t b = h.Push(Addr(0, 1), false, 100);
  uint64_t c = h.Push(Addr(1, 0), false, 100);
  h.Run();
  // Cycle 100: bank 0 needs PRE, bank 1 (same group) ACT; prio 4 picks bank 0 first: PRE 100.
  // ACT b1 at 101; ACT b0 at max(112, 101 + tRRD 6) = 112. RD b1 at 113 (done 127);
  // RD b0 at 124 (done 138).
  EXPECT_EQ(h.DoneAt(c), 127u);
  EXPECT_EQ(h.DoneAt(b), 138u);
  // Now a read to bank 0's row then a conflict in bank 2 (same group) must wait tRTPL.
  h.Push(Addr(2, 0), false, 200);  // opens bank 2: ACT 200, RD 212
  h.Run();
  uint64_t r = h.Push(Addr(1, 0, 3), false, 300);  // RD in bank 1 at 300
  uint64_t x = h.Push(Addr(2, 5), false, 300);     // conflict in bank 2
  h.Run();
  // RD b1 300 (column first); PRE b2 >= 300 + tRTPL = 310; ACT 322; RD 334; done 348.
  EXPECT_EQ(h.DoneAt(r), 314u);
  EXPECT_EQ(h.DoneAt(x), 348u);
}

TEST(DramCa, MultiAtomRequestNeedsSeveralColumnCommands) {
  Harness h;
  ASSERT_EQ(h.Create(h.Config()), SIMTVP_OK);
  uint64_t a = h.Push(Addr(0, 0), false, 0, 128);  // two 64-byte atoms
  h.Run();
  // ACT 0, RD 12, RD 14, done 14 + 14 = 28.
  EXPECT_EQ(h.DoneAt(a), 28u);
  EXPECT_EQ(h.Stats().n_rd, 2u);
  EXPECT_EQ(h.Stats().n_req, 1u);
}

TEST(DramCa, FrFcfsServesRowHitsBeforeAnOlderMiss) {
  Harness h;
  ASSERT_EQ(h.Create(h.Config()), SIMTVP_OK);
  uint64_t a = h.Push(Addr(0, 1, 0), false, 0);
  uint64_t b = h.Push(Addr(0, 2, 0), false, 0);
  uint64_t c = h.Push(Addr(0, 1, 1), false, 0);
  h.Run();
  // A: ACT 0, RD 12, done 26. C (row 1, hit) jumps ahead of B: RD 14, done 28.
  // B: PRE at tRAS 28, ACT 40, RD 52, done 66.
  EXPECT_EQ(h.DoneAt(a), 26u);
  EXPECT_EQ(h.DoneAt(c), 28u);
  EXPECT_EQ(h.DoneAt(b), 66u);
  EXPECT_EQ(h.Stats().n_act, 2u);
}

TEST(DramCa, FifoServesInArrivalOrder) {
  Harness h;
  dram_config cfg = h.Config();
  cfg.scheduler = DRAM_SCHED_FIFO;
  ASSERT_EQ(h.Create(cfg), SIMTVP_OK);
  uint64_t a = h.Push(Addr(0, 1, 0), false, 0);
  uint64_t b = h.Push(Addr(0, 2, 0), false, 0);
  uint64_t c = h.Push(Addr(0, 1, 1), false, 0);
  h.Run();
  // A done 26; B: PRE 28, ACT 40, RD 52, done 66; C must re-open row 1:
  // PRE at max(tRAS after 40 = 68, RD + tRTP = 54) = 68, ACT max(80, tRC 80) = 80, RD 92, done 106.
  EXPECT_EQ(h.DoneAt(a), 26u);
  EXPECT_EQ(h.DoneAt(b), 66u);
  EXPECT_EQ(h.DoneAt(c), 106u);
  EXPECT_EQ(h.Stats().n_act, 3u);
}

TEST(DramCa, FifoHeadOfLineBlocksOtherBanks) {
  Harness h;
  dram_config cfg = h.Config();
  cfg.scheduler = DRAM_SCHED_FIFO;
  cfg.dual_bus = true;
  ASSERT_EQ(h.Create(cfg), SIMTVP_OK);
  h.Push(Addr(0, 1), false, 0);
  uint64_t b = h.Push(Addr(0, 2), false, 0);  // conflict: waits in bank 0's slot until RD 52
  uint64_t c = h.Push(Addr(5, 1), false, 0);  // another bank, but behind B in the FIFO
  h.Run();
  // A: ACT 0, RD 12. B is the FIFO head until bank 0's slot frees: dispatched at 13, and C right
  // behind it in the same cycle: ACT 13, RD 25, done 39 (B: PRE 28, ACT 40, RD 52, done 66).
  // With FR-FCFS C would be dispatched at 0 (ACT 6, RD 18, done 32).
  EXPECT_EQ(h.DoneAt(b), 66u);
  EXPECT_EQ(h.DoneAt(c), 39u);
}

TEST(DramCa, WritesWaitBelowHighWatermark) {
  Harness h;
  dram_config cfg = h.Config();
  cfg.separate_write_queue = true;
  cfg.write_queue_size = 8;
  cfg.write_high_watermark = 4;
  cfg.write_low_watermark = 2;
  ASSERT_EQ(h.Create(cfg), SIMTVP_OK);
  std::vector<uint64_t> writes, reads;
  for (uint32_t i = 0; i < 3; i++) writes.push_back(h.Push(Addr(1 + i, 0), true, 0));
  for (uint32_t i = 0; i < 20; i++) reads.push_back(h.Push(Addr(0, 0, i), false, 0));
  h.Run();
  // 3 writes < high watermark 4: reads go first; the writes drain once no read is queued.
  uint64_t last_read = 0, first_write = UINT64_MAX;
  for (auto id : reads) last_read = std::max(last_read, h.DoneAt(id));
  for (auto id : writes) first_write = std::min(first_write, h.DoneAt(id));
  // The last read is scheduled at 49 (RD 50, done 64); W1..W3 are picked in that same cycle, W1's
  // WR waits for tRTW after RD 50: 62, done 68.
  EXPECT_EQ(last_read, 64u);
  EXPECT_EQ(first_write, 68u);
  EXPECT_EQ(h.Stats().n_write, 3u);
}

TEST(DramCa, HighWatermarkDrainsWritesDownToLowWatermark) {
  Harness h;
  dram_config cfg = h.Config();
  cfg.separate_write_queue = true;
  cfg.write_queue_size = 8;
  cfg.write_high_watermark = 4;
  cfg.write_low_watermark = 2;
  ASSERT_EQ(h.Create(cfg), SIMTVP_OK);
  std::vector<uint64_t> writes, reads;
  for (uint32_t i = 0; i < 4; i++) writes.push_back(h.Push(Addr(1 + i, 0), true, 0));
  for (uint32_t i = 0; i < 20; i++) reads.push_back(h.Push(Addr(0, 0, i), false, 0));
  h.Run();
  // Cycle 0: 4 queued writes reach the high watermark: write mode. Bank 0 has only reads and
  // gets nothing; banks 1 and 2 take W1, W2, leaving 2 = low watermark queued: back to reads.
  // W1: ACT 0, WR 12, done 18 — before the first read (bank 0 slot at 1, ACT 6, RD waits for
  // tWTR after the WR: 12 + 11 = 23, done 37).
  // W3/W4 stay queued until no read is left (W2, already in its bank, waits for a gap in the
  // read stream's tRTW windows).
  uint64_t first_read = UINT64_MAX, last_read = 0;
  for (auto id : reads) {
    first_read = std::min(first_read, h.DoneAt(id));
    last_read = std::max(last_read, h.DoneAt(id));
  }
  EXPECT_EQ(h.DoneAt(writes[0]), 18u);
  EXPECT_EQ(first_read, 37u);
  EXPECT_GT(h.DoneAt(writes[2]), last_read);
  EXPECT_GT(h.DoneAt(writes[3]), last_read);
}

TEST(DramCa, WriteQueueRefusesBeyondItsSize) {
  Harness h;
  dram_config cfg = h.Config();
  cfg.separate_write_queue = true;
  cfg.write_queue_size = 2;
  cfg.write_high_watermark = 2;
  cfg.write_low_watermark = 0;
  cfg.sched_queue_size = 1;
  ASSERT_EQ(h.Create(cfg), SIMTVP_OK);
  EXPECT_NE(h.Push(Addr(0, 0), true, 0), Harness::kRefused);
  EXPECT_NE(h.Push(Addr(0, 0, 1), true, 0), Harness::kRefused);
  EXPECT_FALSE(dram_can_accept(h.d(), true));
  EXPECT_EQ(h.Push(Addr(0, 0, 2), true, 0), Harness::kRefused);  // back-pressure
  EXPECT_TRUE(dram_can_accept(h.d(), false));  // reads have their own queue
  EXPECT_NE(h.Push(Addr(0, 0, 3), false, 0), Harness::kRefused);
  EXPECT_EQ(h.Push(Addr(0, 0, 4), false, 0), Harness::kRefused);
  h.Run();
  EXPECT_EQ(h.completions().size(), 3u);
  EXPECT_EQ(h.outstanding(), 0u);
}

TEST(DramCa, RefreshStallsRequests) {
  Harness h;
  dram_config cfg = h.Config();
  cfg.tREFI = 200;
  cfg.tRFC = 50;
  ASSERT_EQ(h.Create(cfg), SIMTVP_OK);
  h.Push(Addr(0, 3), false, 0);  // ACT 0, RD 12, done 26; the row stays open
  h.Run(150);
  uint64_t r = h.Push(Addr(0, 3, 1), false, 205);
  h.Run();
  // Refresh due at 200: PRE 200, REF at 200 + tRP = 212 (bank ready again at 212 + tRFC = 262).
  // The read that arrived at 205 (a row hit without refresh: done 219) re-opens the row:
  // ACT 262, RD 274, done 288.
  EXPECT_EQ(h.DoneAt(r), 288u);
  dram_stats s = h.Stats();
  EXPECT_EQ(s.n_ref, 1u);
  EXPECT_EQ(s.n_pre, 1u);
  EXPECT_EQ(s.n_act, 2u);
}

TEST(DramCa, IdleAndTimingWaitsAreSkipped) {
  Harness h;
  ASSERT_EQ(h.Create(h.Config()), SIMTVP_OK);
  EXPECT_EQ(dram_next_event(h.d()), DRAM_NEVER);
  h.Push(Addr(0, 0), false, 1000);
  EXPECT_EQ(dram_next_event(h.d()), 1000u);
  dram_advance(h.d(), 1000);  // ACT at 1000
  EXPECT_EQ(dram_next_event(h.d()), 1012u);  // nothing can happen before tRCD
  dram_advance(h.d(), 1012);  // RD
  EXPECT_EQ(dram_next_event(h.d()), 1026u);  // the data leaves the bus
  dram_advance(h.d(), 1026);
  EXPECT_EQ(dram_next_event(h.d()), DRAM_NEVER);
  dram_advance(h.d(), 5000);  // idle span: accounted, not simulated
  dram_stats s = h.Stats();
  EXPECT_EQ(s.n_cmd, 5001u);
  EXPECT_EQ(s.n_nop, 5001u - 2);  // ACT and RD
  EXPECT_EQ(s.n_activity, 27u);   // cycles 1000..1026 (handed back during 1026)
}

TEST(DramCa, RefusedCompletionIsHeldUntilReceiverIsReady) {
  Harness h;
  ASSERT_EQ(h.Create(h.Config()), SIMTVP_OK);
  uint64_t a = h.Push(Addr(0, 0), false, 0);
  h.set_refuse(true);
  h.Run();
  EXPECT_EQ(h.completions().size(), 0u);
  EXPECT_EQ(dram_next_event(h.d()), DRAM_NEVER);  // blocked: costs nothing while waiting
  h.set_refuse(false);
  dram_complete_ready(h.d());
  EXPECT_EQ(dram_next_event(h.d()), 27u);
  h.Run();
  EXPECT_EQ(h.DoneAt(a), 27u);
}

TEST(DramCa, StatisticsUseGpgpuSimNames) {
  Harness h;
  stats *s = stats_create();
  dram_config cfg = h.Config();
  cfg.stats = s;
  cfg.channel = 3;
  ASSERT_EQ(h.Create(cfg), SIMTVP_OK);
  for (uint32_t c = 0; c < 4; c++) h.Push(Addr(0, 0, c), false, 0);
  h.Push(Addr(0, 1), true, 0);
  h.Run();
  dram_advance(h.d(), 199);
  int found = 0;
  EXPECT_EQ(stats_get(s, "DRAM[3].n_cmd", &found), 200u);
  EXPECT_TRUE(found);
  EXPECT_EQ(stats_get(s, "DRAM[3].n_act", &found), 2u);
  EXPECT_EQ(stats_get(s, "DRAM[3].n_pre", &found), 1u);
  EXPECT_EQ(stats_get(s, "DRAM[3].n_rd", &found), 4u);
  EXPECT_EQ(stats_get(s, "DRAM[3].n_write", &found), 1u);
  EXPECT_EQ(stats_get(s, "DRAM[3].n_req", &found), 5u);
  EXPECT_EQ(stats_get(s, "DRAM[3].mrqq_max", &found), 5u);
  for (const char *name : {"DRAM[3].n_nop", "DRAM[3].n_activity", "DRAM[3].bwutil",
                           "DRAM[3].row_buffer_hits", "DRAM[3].mrqq_sum"}) {
    stats_get(s, name, &found);
    EXPECT_TRUE(found) << name;
  }
  dram_stats ds = h.Stats();
  EXPECT_DOUBLE_EQ(stats_get_ratio(s, "DRAM[3].bw_util", &found), ds.bw_util);
  EXPECT_TRUE(found);
  EXPECT_DOUBLE_EQ(stats_get_ratio(s, "DRAM[3].dram_eff", &found), ds.dram_eff);
  EXPECT_DOUBLE_EQ(stats_get_ratio(s, "DRAM[3].row_buffer_locality", &found), 3.0 / 5.0);
  EXPECT_DOUBLE_EQ(ds.bw_util, 10.0 / 200.0);
  h.Destroy();  // the controller holds pointers into the sink
  stats_destroy(s);
}

// Skipping cycles must not change anything: the same mixed stream (reads, writes, two sizes,
// row hits and conflicts, write-queue watermarks, refresh) gives identical completion times and
// statistics when every cycle is simulated.
TEST(DramCa, SkippingIdleCyclesIsExact) {
  for (int sched = 0; sched < 2; sched++) {
    std::vector<Completion> runs[2];
    dram_stats st[2];
    for (int every = 0; every < 2; every++) {
      Harness h;
      dram_config cfg = h.Config();
      cfg.scheduler = sched ? DRAM_SCHED_FRFCFS : DRAM_SCHED_FIFO;
      cfg.every_cycle = every;
      cfg.separate_write_queue = true;
      cfg.write_queue_size = 16;
      cfg.write_high_watermark = 8;
      cfg.write_low_watermark = 4;
      cfg.tREFI = 700;
      cfg.tRFC = 60;
      cfg.timing.nbkgrp = 4;
      cfg.timing.tCCDL = 3;
      cfg.timing.tRTPL = 4;
      cfg.return_queue_size = 8;
      ASSERT_EQ(h.Create(cfg), SIMTVP_OK);
      uint64_t lcg = 99, now = 0;
      for (uint32_t i = 0; i < 3000; i++) {
        lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t bank = (lcg >> 40) % 16, row = (lcg >> 50) % 4, col = (lcg >> 30) % 64;
        bool w = ((lcg >> 20) % 4) == 0;
        now += (lcg >> 10) % 5 == 0 ? (lcg >> 12) % 300 : (lcg >> 14) % 3;  // bursts and gaps
        while (h.Push(Addr(bank, row, col), w, now, (lcg >> 16) & 1 ? 128 : 64) ==
               Harness::kRefused) {
          now++;
          dram_advance(h.d(), now - 1);
        }
      }
      h.Run();
      dram_advance(h.d(), now + 100000);
      runs[every] = h.completions();
      st[every] = h.Stats();
    }
    ASSERT_EQ(runs[0].size(), runs[1].size());
    for (size_t i = 0; i < runs[0].size(); i++) {
      ASSERT_EQ(runs[0][i].id, runs[1][i].id) << i;
      ASSERT_EQ(runs[0][i].at, runs[1][i].at) << i;
    }
    EXPECT_EQ(0, memcmp(&st[0], &st[1], sizeof st[0]));
    EXPECT_GT(st[0].n_ref, 0u);
  }
}
