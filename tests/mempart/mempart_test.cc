// Mempart* — the memory partition model core: queue timing (ROP, DRAM latency, one stage per
// cycle), L2 hits and misses, write policies and atomics at the L2, back-pressure from the reply
// and DRAM ports and into the interconnect, sub-partition arbitration, the L2 index address,
// statistics, configuration errors, determinism.
//
// Timing convention (mempart.h): every queue-to-queue move takes one L2 cycle and stages run
// downstream first. With ROP latency R, DRAM latency L (≥ 1) and a controller that answers D
// cycles after it accepts, a request pushed at cycle 0 moves:
//   R      ROP → ICNT→L2
//   R+1    L2 access (hit: reply into the L2's reply list; miss: fetch into its miss queue)
//   R+2    hit: L2 replies → L2→ICNT          miss: miss queue → L2→DRAM
//   R+3    hit: reply port                    miss: arbitration → DRAM latency queue (ready +L)
//   R+3+L  DRAM port; R+3+L+D  DRAM return → DRAM→L2 → fill; +1 → L2→ICNT; +2 → reply port
// so a hit replies at R+3 and a read miss at R+L+D+5.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "mempart_harness.h"

extern "C" {
#include "config.h"
#include "dram_addrdec.h"
#include "gpu_config.h"
}

using mptest::Part;

namespace {

constexpr uint32_t R = 10, L = 5, D = 20;

TEST(MempartTiming, ReadMissRepliesAfterRopDramLatencyAndServicePlusFiveStages) {
  Part p(Part::Config(R, L));
  ASSERT_EQ(p.status(), SIMTVP_OK) << p.diag().message;
  uint64_t id = p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 0);
  ASSERT_NE(id, Part::kRefused);
  p.RunToIdle();
  // R+L+D+5 = 10+5+20+5 = 40; the fetch reached the controller at R+3+L = 18.
  EXPECT_EQ(p.ReplyAt(id), 40u);
  ASSERT_EQ(p.dram_sends().size(), 1u);
  EXPECT_EQ(p.dram_sends()[0].at, 18u);
  EXPECT_FALSE(p.dram_sends()[0].is_write);
  EXPECT_EQ(p.dram_sends()[0].kind, MEM_ACC_GLOBAL_R);
  EXPECT_EQ(p.replies()[0].sub, 0u);
}

TEST(MempartTiming, ReadHitRepliesRopPlusThreeCyclesLater) {
  Part p(Part::Config(R, L));
  p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 0);
  p.RunToIdle();
  uint64_t id = p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 100);
  p.RunToIdle();
  // 100 + R + 3 = 113: ICNT→L2 at 110, hit at 111, L2→ICNT at 112, port at 113.
  EXPECT_EQ(p.ReplyAt(id), 113u);
  EXPECT_EQ(p.dram_sends().size(), 1u); // no second fetch
  EXPECT_EQ(p.Stat("L2_total_cache_accesses"), 2u);
  EXPECT_EQ(p.Stat("L2_total_cache_misses"), 1u);
}

TEST(MempartTiming, MergedMissesLeaveOnePerCycleAfterTheFill) {
  Part p(Part::Config(R, L));
  uint64_t a = p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 0);
  uint64_t b = p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 1); // pending hit on the same sector
  p.RunToIdle();
  // Both are released by the fill at 38; the L2's replies move one per cycle into L2→ICNT
  // (39, 40) and leave one per cycle (40, 41).
  EXPECT_EQ(p.ReplyAt(a), 40u);
  EXPECT_EQ(p.ReplyAt(b), 41u);
  EXPECT_EQ(p.dram_sends().size(), 1u);
  EXPECT_EQ(p.Stat("L2_total_cache_pending_hits"), 1u);
}

TEST(MempartTiming, RopLatencyDelaysEveryRequestByExactlyItsValue) {
  for (uint32_t rop : {0u, 7u, 50u}) {
    mempart_config cfg = Part::Config(rop, L);
    cfg.l2_ideal = true; // every access hits: reply at R+2 (ICNT→L2 at R, L2→ICNT at R+1)
    Part p(cfg);
    uint64_t id = p.Push(0, 0x40, MEM_ACC_GLOBAL_R, 3);
    p.RunToIdle();
    EXPECT_EQ(p.ReplyAt(id), 3u + rop + 2u) << "rop " << rop;
  }
}

TEST(MempartTiming, DramLatencyQueueAddsItsLatencyToMisses) {
  for (uint32_t lat : {1u, 5u, 40u}) {
    Part p(Part::Config(R, lat));
    uint64_t id = p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 0);
    p.RunToIdle();
    EXPECT_EQ(p.ReplyAt(id), R + lat + D + 5) << "dram latency " << lat;
  }
}

TEST(MempartQueues, AcceptsOneRequestPerCyclePerSubPartition) {
  Part p(Part::Config(R, L));
  EXPECT_NE(p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 0), Part::kRefused);
  EXPECT_FALSE(mempart_can_accept(p.mp(), 0, 0));
  EXPECT_EQ(p.Push(0, 0x2000, MEM_ACC_GLOBAL_R, 0), Part::kRefused);
  EXPECT_TRUE(mempart_can_accept(p.mp(), 0, 1));
  EXPECT_NE(p.Push(0, 0x2000, MEM_ACC_GLOBAL_R, 1), Part::kRefused);
  p.RunToIdle();
  EXPECT_EQ(p.Stat("gpu_stall_dramfull"), 0u); // a busy cycle is not a full partition
  EXPECT_EQ(p.replies().size(), 2u);
}

TEST(MempartQueues, FullIcntToL2QueueRefusesAndCountsDramfullStall) {
  mempart_config cfg = Part::Config(0, L);
  cfg.l2_ideal = true;
  cfg.queue_icnt_to_l2 = 2;
  cfg.queue_l2_to_icnt = 1;
  Part p(cfg);
  p.SetReplyRefuse(true);
  // c0: A → ROP → ICNT→L2.  c1: B; A → L2→ICNT.  c2: C; A refused by the port (blocked from 2),
  // B and C wait in ICNT→L2 (2 = full).  c3: D refused.
  uint64_t a = p.Push(0, 0x000, MEM_ACC_GLOBAL_R, 0);
  p.Step(0);
  p.Push(0, 0x080, MEM_ACC_GLOBAL_R, 1);
  p.Step(1);
  p.Push(0, 0x100, MEM_ACC_GLOBAL_R, 2);
  p.Step(2);
  EXPECT_FALSE(mempart_can_accept(p.mp(), 0, 3));
  EXPECT_EQ(p.Push(0, 0x180, MEM_ACC_GLOBAL_R, 3), Part::kRefused);
  p.RunTo(9);
  EXPECT_TRUE(p.replies().empty());
  mempart_occupancy occ;
  mempart_get_occupancy(p.mp(), 0, &occ);
  EXPECT_EQ(occ.icnt_to_l2, 2u);
  EXPECT_EQ(occ.l2_to_icnt, 1u);
  EXPECT_EQ(mempart_next_event(p.mp()), MEMPART_NEVER); // blocked on the port: nothing to do
  // c10: the port has room: A leaves (waited 10 - 2 = 8), B → L2→ICNT; c11: D accepted
  // (waited 11 - 3 = 8).
  p.ReplyReady(0, 10);
  p.Step(10);
  EXPECT_EQ(p.ReplyAt(a), 10u);
  EXPECT_NE(p.Push(0, 0x180, MEM_ACC_GLOBAL_R, 11), Part::kRefused);
  p.RunToIdle();
  EXPECT_EQ(p.replies().size(), 4u);
  EXPECT_EQ(p.Stat("gpu_stall_icnt2sh"), 8u);
  EXPECT_EQ(p.Stat("gpu_stall_dramfull"), 8u);
  mempart_stats s;
  mempart_get_stats(p.mp(), &s);
  EXPECT_EQ(s.stall_dramfull, 8u);
  EXPECT_EQ(s.stall_icnt2sh, 8u);
}

TEST(MempartQueues, DramPortRefusalHoldsTheLatencyQueueUntilReady) {
  mempart_config cfg = Part::Config(0, 1, "none");
  Part p(cfg);
  p.SetDramRefuse(true);
  // c0 ROP → ICNT→L2, c1 bypass → L2→DRAM, c2 arbitration (ready 3), c3 refused.
  uint64_t id = p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 0);
  p.RunTo(9);
  EXPECT_TRUE(p.dram_sends().empty());
  mempart_occupancy occ;
  mempart_get_occupancy(p.mp(), 0, &occ);
  EXPECT_EQ(occ.dram_latency, 1u);
  EXPECT_EQ(mempart_next_event(p.mp()), MEMPART_NEVER);
  p.DramReady(10);
  p.RunToIdle();
  ASSERT_EQ(p.dram_sends().size(), 1u);
  EXPECT_EQ(p.dram_sends()[0].at, 10u);
  // Back at 10 + D = 30 into DRAM→L2; not an L2 fill: L2→ICNT at 30, port at 31.
  EXPECT_EQ(p.ReplyAt(id), 31u);
  EXPECT_EQ(p.Stat("mem_partition[0].dram_port_stall"), 7u); // 10 - 3
  EXPECT_EQ(p.Stat("mem_partition[0].l2_bypassed"), 1u);
}

TEST(MempartQueues, FullDramToL2QueueRefusesReturnsButNotWriteBacks) {
  mempart_config cfg = Part::Config(R, L, "none");
  cfg.queue_dram_to_l2 = 1;
  Part p(cfg);
  p.SetReplyRefuse(true);
  mem_req *r1 = p.Make(0x0, MEM_ACC_GLOBAL_R);
  mem_req *r2 = p.Make(0x80, MEM_ACC_GLOBAL_R);
  EXPECT_TRUE(mempart_dram_return(p.mp(), r1, 0));
  EXPECT_FALSE(mempart_dram_return(p.mp(), r2, 0));
  mem_req *wb = p.Make(0x100, MEM_ACC_L2_WRBK, 32, false);
  wb->is_write = true;
  EXPECT_TRUE(mempart_dram_return(p.mp(), wb, 0)); // written: ends here
  mem_req *w = p.Make(0x180, MEM_ACC_GLOBAL_W, 32, false);
  EXPECT_TRUE(mempart_dram_return(p.mp(), w, 0));
  p.ReplyReady(0, 1);
  p.RunToIdle();
  EXPECT_TRUE(mempart_dram_return(p.mp(), r2, 5));
  p.RunToIdle();
  EXPECT_EQ(p.replies().size(), 2u);
  EXPECT_EQ(p.Outstanding(), 0u);
}

TEST(MempartL2, WriteBackL2AbsorbsWriteAndAcknowledgesLikeAHit) {
  Part p(Part::Config(R, L, mptest::kL2WriteBack));
  uint64_t id = p.Push(0, 0x2000, MEM_ACC_GLOBAL_W, 0); // one whole sector, needs_reply
  p.RunToIdle();
  // Lazy fetch-on-read: allocated without a fetch, the sector written and dirty, acknowledged as
  // a hit: R + 3 = 13.
  EXPECT_EQ(p.ReplyAt(id), 13u);
  EXPECT_TRUE(p.replies()[0].is_write);
  EXPECT_TRUE(p.dram_sends().empty());
  cache_line_state ls;
  ASSERT_TRUE(cache_line_lookup(mempart_l2(p.mp(), 0), 0x2000, &ls));
  EXPECT_EQ(ls.dirty, 0x1);
  // Flush at 20 (it acts in cycle 20): the write-back leaves the miss queue at 20, is granted at
  // 21, reaches the controller at 21 + L = 26 and ends there (no reply).
  EXPECT_EQ(mempart_flush_l2(p.mp(), 20), 1u);
  p.RunToIdle();
  ASSERT_EQ(p.dram_sends().size(), 1u);
  EXPECT_EQ(p.dram_sends()[0].at, 26u);
  EXPECT_EQ(p.dram_sends()[0].kind, MEM_ACC_L2_WRBK);
  EXPECT_TRUE(p.dram_sends()[0].is_write);
  EXPECT_EQ(p.replies().size(), 1u);
  EXPECT_EQ(p.Stat("mem_partition[0].dram_writes"), 1u);
  EXPECT_TRUE(mempart_is_idle(p.mp()));
}

TEST(MempartL2, WriteThroughL2ForwardsWriteAndAcknowledgesAfterDram) {
  Part p(Part::Config(R, L, mptest::kL2WriteThrough));
  uint64_t id = p.Push(0, 0x2000, MEM_ACC_GLOBAL_W, 0);
  p.RunToIdle();
  // Forwarded at 11, L2→DRAM 12, granted 13, controller 18, back 38 into DRAM→L2 and straight to
  // L2→ICNT (not a fill), port at 39: R + L + D + 4.
  ASSERT_EQ(p.dram_sends().size(), 1u);
  EXPECT_TRUE(p.dram_sends()[0].is_write);
  EXPECT_EQ(p.ReplyAt(id), 39u);
}

TEST(MempartL2, WriteWithoutNeedsReplyGetsNoAcknowledgement) {
  for (const char *l2 : {mptest::kL2WriteBack, mptest::kL2WriteThrough, "none"}) {
    Part p(Part::Config(R, L, l2));
    p.Push(0, 0x2000, MEM_ACC_GLOBAL_W, 0, 32, false);
    p.RunToIdle();
    EXPECT_TRUE(p.replies().empty()) << l2;
    EXPECT_EQ(p.Outstanding(), 0u) << l2; // the last holder returned it to its pool
  }
}

TEST(MempartL2, AtomicsExecuteAtTheL2AndLeaveTheLineDirty) {
  Part p(Part::Config(R, L));
  uint64_t miss = p.Push(0, 0x3000, MEM_ACC_ATOMIC, 0, 4);
  p.RunToIdle();
  EXPECT_EQ(p.ReplyAt(miss), 40u); // a read miss: R + L + D + 5
  ASSERT_EQ(p.dram_sends().size(), 1u);
  EXPECT_FALSE(p.dram_sends()[0].is_write); // the line is fetched, not written through
  cache_line_state ls;
  ASSERT_TRUE(cache_line_lookup(mempart_l2(p.mp(), 0), 0x3000, &ls));
  EXPECT_EQ(ls.dirty, 0x1);
  uint64_t hit = p.Push(0, 0x3004, MEM_ACC_ATOMIC, 100, 4);
  p.RunToIdle();
  EXPECT_EQ(p.ReplyAt(hit), 113u); // a hit: R + 3
  EXPECT_EQ(p.Stat("L2_cache_stats_breakdown[ATOMIC_ACC][HIT]"), 1u);
}

TEST(MempartL2, TextureOnlyL2CachesOnlyTextureReads) {
  mempart_config cfg = Part::Config(R, L);
  cfg.l2_texture_only = true;
  Part p(cfg);
  p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 0);
  p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 50);
  p.Push(0, 0x5000, MEM_ACC_TEXTURE_R, 100);
  p.RunToIdle();
  EXPECT_EQ(p.Stat("mem_partition[0].l2_bypassed"), 2u);
  EXPECT_EQ(p.Stat("L2_total_cache_accesses"), 1u);
  EXPECT_EQ(p.dram_sends().size(), 3u);
  EXPECT_EQ(p.replies().size(), 3u);
}

TEST(MempartL2, IdealL2RepliesRopPlusTwoCyclesWithoutDram) {
  mempart_config cfg = Part::Config(R, L);
  cfg.l2_ideal = true;
  Part p(cfg);
  uint64_t r = p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 0);
  uint64_t w = p.Push(0, 0x2000, MEM_ACC_GLOBAL_W, 1);
  p.RunToIdle();
  EXPECT_EQ(p.ReplyAt(r), 12u);
  EXPECT_EQ(p.ReplyAt(w), 13u);
  EXPECT_TRUE(p.dram_sends().empty());
}

TEST(MempartArbitration, SubPartitionsTakeTurnsTowardTheDram) {
  mempart_config cfg = Part::Config(0, 1, "none");
  cfg.n_sub = 2;
  Part p(cfg);
  for (uint64_t k = 0; k < 3; k++) {
    p.Push(0, 0x1000 * (k + 1), MEM_ACC_GLOBAL_R, k);
    p.Push(1, 0x1000 * (k + 1) + 0x80, MEM_ACC_GLOBAL_R, k);
    p.Step(k);
  }
  p.RunToIdle();
  // Each request reaches its L2→DRAM queue one cycle after it was pushed; from cycle 2 both
  // queues have a head and the arbiter alternates (sub 0 first), one grant per cycle, each at the
  // controller one cycle (L = 1) after its grant: 3, 4, 5, 6, 7, 8.
  ASSERT_EQ(p.dram_sends().size(), 6u);
  for (size_t i = 0; i < 6; i++) {
    EXPECT_EQ(p.dram_sends()[i].sub_partition, i % 2) << i;
    EXPECT_EQ(p.dram_sends()[i].at, 3 + i) << i;
  }
  EXPECT_EQ(p.replies().size(), 6u);
  // Replies leave from the sub-partition the request came to.
  for (const auto &r : p.replies()) EXPECT_LT(r.sub, 2u);
}

// 4 channels on D bits 9..8, 2 sub-partitions on the lowest bank bit (13):
// bits 31..16 R | 15..13 B | 12..10 C | 9..8 D | 7..5 C | 4..0 S
constexpr const char *kMap4 =
    "00000000000000000000000000000000RRRRRRRRRRRRRRRRBBBCCCDDCCCSSSSS";

TEST(MempartIndex, PartitionAndSubPartitionBitsAreSqueezedOutOfTheL2Index) {
  mempart_config cfg = Part::Config(R, L);
  cfg.addr_mapping = kMap4;
  cfg.n_channels = 4;
  cfg.n_sub = 2;
  Part p(cfg);
  ASSERT_EQ(p.status(), SIMTVP_OK) << p.diag().message;
  EXPECT_EQ(mempart_index_addr(p.mp(), 0x2300), 0x0u);    // bits 13, 9, 8 only
  EXPECT_EQ(mempart_index_addr(p.mp(), 0x0080), 0x80u);   // below the removed bits: unchanged
  EXPECT_EQ(mempart_index_addr(p.mp(), 0x0400), 0x100u);  // bit 10 drops two places
  EXPECT_EQ(mempart_index_addr(p.mp(), 0x4000), 0x800u);  // bit 14 drops three
  EXPECT_EQ(mempart_index_addr(p.mp(), 0x10000), 0x2000u); // bit 16 drops three
  // Consecutive lines of partition 0, sub-partition 0 fill consecutive sets (linear index, 16
  // sets): without the squeeze 0x400 would land in set 8.
  const cache *l2 = mempart_l2(p.mp(), 0);
  EXPECT_EQ(cache_set_of(l2, 0x000), 0u);
  EXPECT_EQ(cache_set_of(l2, 0x080), 1u);
  EXPECT_EQ(cache_set_of(l2, 0x400), 2u);
  EXPECT_EQ(cache_set_of(l2, 0x480), 3u);
}

TEST(MempartIndex, DramidMapDividesTheChannelOut) {
  mempart_config cfg = Part::Config(R, L);
  cfg.addr_mapping = "dramid@8;00000000.00000000.00000000.00000000.0000RRRR.RRRRRRRR.RBBBCCCC.CCCSSSSS";
  cfg.n_channels = 3;
  Part p(cfg);
  ASSERT_EQ(p.status(), SIMTVP_OK) << p.diag().message;
  // (0x310 >> 8) = 3 → 3 / 3 = 1 → 0x100 | 0x10
  EXPECT_EQ(mempart_index_addr(p.mp(), 0x310), 0x110u);
  EXPECT_EQ(mempart_index_addr(p.mp(), 0x2ff), 0x0ffu);
}

TEST(MempartRouting, MisroutedRequestIsReportedOnceCountedAndServed) {
  dram_addrmap_config mc = {kMap4, 4, 2, DRAM_PART_LINEAR};
  dram_addrmap *map = nullptr;
  simtvp_diag diag;
  ASSERT_EQ(dram_addrmap_create(&mc, &map, &diag), SIMTVP_OK) << diag.message;
  mempart_config cfg = Part::Config(R, L);
  cfg.addr_mapping = kMap4;
  cfg.n_channels = 4;
  cfg.n_sub = 2;
  cfg.addrmap = map;
  {
    Part p(cfg);
    p.Push(0, 0x0000, MEM_ACC_GLOBAL_R, 0); // belongs here
    uint64_t bad = p.Push(0, 0x0100, MEM_ACC_GLOBAL_R, 1); // channel 1
    p.Push(1, 0x0200, MEM_ACC_GLOBAL_R, 2); // channel 2
    p.RunToIdle();
    EXPECT_NE(p.ReplyAt(bad), UINT64_MAX);
    EXPECT_EQ(p.Stat("mem_partition[0].misrouted"), 2u);
    ASSERT_EQ(p.messages().size(), 1u);
    EXPECT_NE(p.messages()[0].find("0x100"), std::string::npos) << p.messages()[0];
    EXPECT_NE(p.messages()[0].find("belongs to partition 1"), std::string::npos)
        << p.messages()[0];
  }
  dram_addrmap_destroy(map);
}

TEST(MempartStats, QueueOccupancyIsAccountedPerSpanOfCycles) {
  Part p(Part::Config(R, L));
  p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 0);
  p.RunToIdle();
  p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 100);
  p.RunToIdle();
  // Miss: ROP [0,10) ICNT→L2 [10,11) L2→DRAM [12,13) latency [13,18) DRAM→L2 0 cycles (filled
  // in the cycle it arrived) L2→ICNT [39,40). Hit: ROP [100,110) ICNT→L2 [110,111)
  // L2→ICNT [112,113). Cycles accounted up to the last one simulated (113) + 1.
  EXPECT_EQ(p.Stat("mem_sub_partition[0].rop_queue.sum"), 20u);
  EXPECT_EQ(p.Stat("mem_sub_partition[0].icnt_to_l2_queue.sum"), 2u);
  EXPECT_EQ(p.Stat("mem_sub_partition[0].l2_to_dram_queue.sum"), 1u);
  EXPECT_EQ(p.Stat("mem_sub_partition[0].dram_to_l2_queue.sum"), 0u);
  EXPECT_EQ(p.Stat("mem_sub_partition[0].l2_to_icnt_queue.sum"), 2u);
  EXPECT_EQ(p.Stat("mem_partition[0].dram_latency_queue.sum"), 5u);
  EXPECT_EQ(p.Stat("mem_sub_partition[0].rop_queue.max"), 1u);
  EXPECT_EQ(p.Stat("mem_partition[0].cycles"), 114u);
  EXPECT_EQ(p.Stat("mem_partition[0].requests"), 2u);
  EXPECT_EQ(p.Stat("mem_partition[0].replies"), 2u);
  EXPECT_EQ(p.Stat("mem_partition[0].dram_reads"), 1u);
  int found = 0;
  double avg = stats_get_ratio(p.st(), "mem_sub_partition[0].rop_queue.avg", &found);
  EXPECT_TRUE(found);
  EXPECT_DOUBLE_EQ(avg, 20.0 / 114.0);
}

TEST(MempartStats, IdlePartitionHasNoEventAndCostsNothing) {
  Part p(Part::Config(R, L));
  EXPECT_EQ(mempart_next_event(p.mp()), MEMPART_NEVER);
  p.Push(0, 0x1000, MEM_ACC_GLOBAL_R, 0);
  EXPECT_EQ(mempart_next_event(p.mp()), R); // the ROP delay: nothing to do before it
  p.RunToIdle();
  EXPECT_EQ(mempart_next_event(p.mp()), MEMPART_NEVER);
  EXPECT_TRUE(mempart_is_idle(p.mp()));
  EXPECT_EQ(p.Outstanding(), 0u);
}

// Random traffic with random back-pressure: everything completes, every request returns to its
// pool, and the run repeats bit for bit.
struct RunResult {
  std::vector<std::pair<uint64_t, uint64_t>> replies;
  std::vector<uint64_t> stats;
};

RunResult RandomRun(uint32_t seed) {
  mempart_config cfg = Part::Config(6, 3);
  cfg.n_sub = 2;
  cfg.queue_icnt_to_l2 = 4;
  cfg.queue_l2_to_dram = 2;
  cfg.queue_dram_to_l2 = 2;
  cfg.queue_l2_to_icnt = 2;
  cfg.addr_mapping = kMap4;
  cfg.n_channels = 4;
  Part p(cfg, 17);
  std::mt19937 rng(seed);
  const uint8_t kinds[] = {MEM_ACC_GLOBAL_R, MEM_ACC_GLOBAL_R, MEM_ACC_GLOBAL_W,
                           MEM_ACC_ATOMIC, MEM_ACC_TEXTURE_R, MEM_ACC_LOCAL_W};
  uint64_t t = 0;
  int pushed = 0;
  while (pushed < 3000) {
    uint32_t sub = rng() % 2;
    uint64_t addr = (uint64_t)(rng() % 512) * 32;
    addr = (addr & ~0x2300ull) | (sub ? 0x2000ull : 0); // partition 0, the chosen sub-partition
    uint8_t kind = kinds[rng() % 6];
    bool needs_reply = kind != MEM_ACC_LOCAL_W || (rng() & 1);
    if (p.Push(sub, addr, kind, t, 32, needs_reply)) pushed++;
    if (rng() % 7 == 0) p.SetReplyRefuse(true);
    if (rng() % 5 == 0) p.ReplyReady(rng() % 2, t);
    if (rng() % 11 == 0) p.SetDramRefuse(true);
    if (rng() % 3 == 0) p.DramReady(t);
    p.RunTo(t);
    t += 1 + rng() % 3;
  }
  p.ReplyReady(0, t);
  p.ReplyReady(1, t);
  p.DramReady(t);
  p.RunToIdle();
  mempart_flush_l2(p.mp(), t + 1000000);
  p.RunToIdle(UINT64_MAX - 1);
  EXPECT_TRUE(mempart_is_idle(p.mp()));
  EXPECT_EQ(mempart_next_event(p.mp()), MEMPART_NEVER);
  EXPECT_EQ(p.Outstanding(), 0u);
  RunResult out;
  for (auto &r : p.replies()) out.replies.push_back({r.id, r.at});
  for (const char *n : {"L2_total_cache_accesses", "L2_total_cache_misses", "gpu_stall_dramfull",
                        "gpu_stall_icnt2sh", "mem_partition[0].dram_reads",
                        "mem_partition[0].dram_writes", "mem_partition[0].cycles",
                        "mem_sub_partition[1].l2_to_dram_queue.sum"})
    out.stats.push_back(p.Stat(n));
  return out;
}

TEST(MempartStress, RandomTrafficWithBackPressureDrainsAndRepeatsBitForBit) {
  RunResult a = RandomRun(7), b = RandomRun(7);
  EXPECT_GT(a.replies.size(), 2000u);
  EXPECT_EQ(a.replies, b.replies);
  EXPECT_EQ(a.stats, b.stats);
  EXPECT_GT(a.stats[2], 0u); // the partition did fill up
  EXPECT_GT(a.stats[3], 0u); // and the reply port did push back
}

// ---- configuration ----------------------------------------------------------------------------

simtvp_status TryCreate(mempart_config cfg, simtvp_diag *diag) {
  Part p(cfg);
  *diag = p.diag();
  return p.status();
}

TEST(MempartConfig, BadL2StringNamesTheOption) {
  simtvp_diag diag;
  EXPECT_EQ(TryCreate(Part::Config(R, L, "S:16:128:4,L:Z:m:L:L,A:32:4,8:0,32"), &diag),
            SIMTVP_ERR_PARSE);
  EXPECT_STREQ(diag.option, "-gpgpu_cache:dl2");
  EXPECT_EQ(TryCreate(Part::Config(R, L, "N:4:128:24,L:R:m:N:L,T:128:4,128:2"), &diag),
            SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(diag.option, "-gpgpu_cache:dl2");
  EXPECT_NE(std::string(diag.message).find("texture"), std::string::npos) << diag.message;
}

TEST(MempartConfig, SubPartitionCountMustBeAPowerOfTwo) {
  mempart_config cfg = Part::Config(R, L);
  cfg.n_sub = 3;
  simtvp_diag diag;
  EXPECT_EQ(TryCreate(cfg, &diag), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(diag.option, "-gpgpu_n_sub_partition_per_mchannel");
}

TEST(MempartConfig, MalformedAddressMappingNamesTheOption) {
  mempart_config cfg = Part::Config(R, L);
  cfg.addr_mapping = "DDBBRRCC";
  cfg.n_channels = 4;
  simtvp_diag diag;
  EXPECT_EQ(TryCreate(cfg, &diag), SIMTVP_ERR_PARSE);
  EXPECT_STREQ(diag.option, "-gpgpu_mem_addr_mapping");
  cfg.addr_mapping = "dramid@x;00";
  EXPECT_EQ(TryCreate(cfg, &diag), SIMTVP_ERR_PARSE);
  EXPECT_STREQ(diag.option, "-gpgpu_mem_addr_mapping");
  cfg.addr_mapping = kMap4;
  cfg.n_sub = 16; // 16 slices need 4 bank bits; the map has 3
  EXPECT_EQ(TryCreate(cfg, &diag), SIMTVP_ERR_PARSE);
  EXPECT_NE(std::string(diag.message).find("bank"), std::string::npos) << diag.message;
}

TEST(MempartConfig, MissingPortsAreRefused) {
  mempart_config cfg = Part::Config(R, L);
  mempart *mp = nullptr;
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  EXPECT_EQ(mempart_create(&cfg, &mp, &diag), SIMTVP_ERR_ARG);
  EXPECT_EQ(mp, nullptr);
  EXPECT_NE(std::string(diag.message).find("port"), std::string::npos) << diag.message;
}

TEST(MempartConfig, FromGpuConfigConvertsCoreCyclesToL2CyclesRoundingUp) {
  gpu_config g;
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  config_registry *r = config_registry_create(nullptr);
  ASSERT_EQ(gpu_config_register(r, &g, &diag), SIMTVP_OK) << diag.message;
  const char *text =
      "-gpgpu_clock_domains 1000.0:1000.0:700.0:850.0\n"
      "-gpgpu_l2_rop_latency 85\n-dram_latency 30\n"
      "-gpgpu_n_mem 4\n-gpgpu_n_sub_partition_per_mchannel 2\n"
      "-gpgpu_dram_partition_queues 4:5:6:7\n"
      "-gpgpu_cache:dl2 S:32:128:24,L:B:m:L:L,A:192:4,32:0,32\n-gpgpu_cache:dl2_texture_only 0\n";
  ASSERT_EQ(config_registry_load_text(r, text, "<test>", nullptr, &diag), SIMTVP_OK)
      << diag.message;
  ASSERT_EQ(gpu_config_finalize(&g, r, &diag), SIMTVP_OK) << diag.message;
  mempart_config cfg;
  mempart_config_default(&cfg);
  ASSERT_EQ(mempart_config_from_gpu(&g, 3, &cfg, &diag), SIMTVP_OK) << diag.message;
  EXPECT_EQ(cfg.partition, 3u);
  EXPECT_EQ(cfg.n_sub, 2u);
  EXPECT_EQ(cfg.rop_latency, 60u);  // ceil(85 × 700 / 1000) = ceil(59.5)
  EXPECT_EQ(cfg.dram_latency, 21u); // 30 × 0.7 = 21 exactly
  EXPECT_EQ(cfg.queue_icnt_to_l2, 4u);
  EXPECT_EQ(cfg.queue_l2_to_dram, 5u);
  EXPECT_EQ(cfg.queue_dram_to_l2, 6u);
  EXPECT_EQ(cfg.queue_l2_to_icnt, 7u);
  EXPECT_FALSE(cfg.l2_texture_only);
  EXPECT_EQ(cfg.n_channels, 4u);
  EXPECT_EQ(mempart_config_from_gpu(&g, 4, &cfg, &diag), SIMTVP_ERR_ARG);
  EXPECT_STREQ(diag.option, "-gpgpu_n_mem");
  config_registry_destroy(r);
}

}  // namespace
