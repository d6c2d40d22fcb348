// Shared memory in the load/store unit: bank conflicts (distinct words per bank, broadcast,
// limited broadcast, warp parts, 64/128-bit phases, atomics) and the resulting timing.
#include "ldst_harness.h"

extern "C" {
#include "ldst_coalesce.h"
}

using namespace ldst_test;

namespace {

// Issues one shared-memory instruction at cycle 0 and returns its completion cycle.
uint64_t shared_completion(Harness &h, const func_step &s) {
  h.issue(0, s, 1);
  h.run_to(200);
  return h.done_at(1);
}

}  // namespace

// Stride of one word: the 32 lanes hit 32 banks. Issue at 0, one phase in cycle 1, data
// smem_latency (3) later: complete at 0 + 1 + 3 = 4.
TEST(SimtLdstSmem, UnitStrideIsConflictFree) {
  Harness h;
  h.create();
  EXPECT_EQ(shared_completion(h, load(PTX_SPACE_SHARED, 4, [](uint32_t i) { return 4ull * i; })), 4u);
  EXPECT_EQ(h.stat("gpgpu_n_shmem_bkconflict"), 0u);
  EXPECT_EQ(h.stat("gpgpu_stall_shd_mem[s_mem][bk_conf]"), 0u);
  EXPECT_TRUE(h.sent.empty());
}

// Stride of two words: lanes i and i+16 share bank (2i mod 32): degree 2, one extra cycle:
// complete at 0 + 2 + 3 = 5.
TEST(SimtLdstSmem, StrideTwoIsTwoWayConflict) {
  Harness h;
  h.create();
  EXPECT_EQ(shared_completion(h, load(PTX_SPACE_SHARED, 4, [](uint32_t i) { return 8ull * i; })), 5u);
  EXPECT_EQ(h.stat("gpgpu_n_shmem_bkconflict"), 1u);
  EXPECT_EQ(h.stat("gpgpu_stall_shd_mem[s_mem][bk_conf]"), 1u);
  stats_histogram_view v;
  stats_histogram_read(stats_histogram_find(h.st, "simt_ldst.smem_conflict_degree"), &v);
  EXPECT_EQ(v.count, 1u);
  EXPECT_EQ(v.max, 2u);
}

// Stride of 32 words: every lane in bank 0, 32 distinct words: degree 32: 31 extra cycles,
// complete at 0 + 32 + 3 = 35; the next instruction can issue when the phases are over (cycle
// 32), not before.
TEST(SimtLdstSmem, StrideThirtyTwoSerialisesTheWarp) {
  Harness h;
  h.create();
  h.issue(0, load(PTX_SPACE_SHARED, 4, [](uint32_t i) { return 128ull * i; }), 1);
  h.run_to(31);
  EXPECT_FALSE(h.can_issue());
  h.run_to(32);
  EXPECT_TRUE(h.can_issue());
  h.run_to(100);
  EXPECT_EQ(h.done_at(1), 35u);
  EXPECT_EQ(h.stat("gpgpu_n_shmem_bkconflict"), 31u);
  EXPECT_EQ(h.stat("gpgpu_n_stall_shd_mem"), 31u);
}

// Every lane reads the same word: one bank delivers it once and it is broadcast: no conflict.
TEST(SimtLdstSmem, SameWordIsBroadcast) {
  Harness h;
  h.create();
  EXPECT_EQ(shared_completion(h, load(PTX_SPACE_SHARED, 4, [](uint32_t) { return 64ull; })), 4u);
  EXPECT_EQ(h.stat("gpgpu_n_shmem_bkconflict"), 0u);
}

// Lanes reading different bytes of one word share it too (8 words, each read by 4 lanes).
TEST(SimtLdstSmem, BytesOfOneWordAreBroadcast) {
  Harness h;
  h.create();
  EXPECT_EQ(shared_completion(h, load(PTX_SPACE_SHARED, 1, [](uint32_t i) { return (uint64_t)i; })), 4u);
  EXPECT_EQ(h.stat("gpgpu_n_shmem_bkconflict"), 0u);
}

// Limited broadcast (compute capability 1.x): lanes 0-15 read word 0 (bank 0), lanes 16-31 word
// 1 (bank 1). Unlimited: one word per bank, degree 1. Limited: step 1 broadcasts word 0 and
// serves one request of bank 1 (lane 16); step 2 broadcasts word 1 to the other 15: degree 2.
TEST(SimtLdstSmem, LimitedBroadcastSharesOneWordPerCycle) {
  auto addr = [](uint32_t i) { return i < 16 ? 0ull : 4ull; };
  {
    Harness h;
    h.create();
    EXPECT_EQ(shared_completion(h, load(PTX_SPACE_SHARED, 4, addr)), 4u);
  }
  Harness h;
  h.cfg.smem_limited_broadcast = true;
  h.create();
  EXPECT_EQ(shared_completion(h, load(PTX_SPACE_SHARED, 4, addr)), 5u);
  EXPECT_EQ(h.stat("gpgpu_n_shmem_bkconflict"), 1u);
}

// 64-bit accesses move a half-warp per phase (16 lanes x 2 words fill the 32 banks): two
// conflict-free phases, complete at 0 + 2 + 3 = 5, no conflict counted.
TEST(SimtLdstSmem, SixtyFourBitAccessTakesTwoHalfWarpPhases) {
  Harness h;
  h.create();
  EXPECT_EQ(shared_completion(h, load(PTX_SPACE_SHARED, 8, [](uint32_t i) { return 8ull * i; })), 5u);
  EXPECT_EQ(h.stat("gpgpu_n_shmem_bkconflict"), 0u);
}

// 128-bit accesses: a quarter-warp per phase, four phases: complete at 0 + 4 + 3 = 7.
TEST(SimtLdstSmem, OneTwentyEightBitAccessTakesFourQuarterWarpPhases) {
  Harness h;
  h.create();
  EXPECT_EQ(shared_completion(h, load(PTX_SPACE_SHARED, 16, [](uint32_t i) { return 16ull * i; })), 7u);
  EXPECT_EQ(h.stat("gpgpu_n_shmem_bkconflict"), 0u);
}

// GT200: 16 banks, warp split in 2 parts. Unit stride: two conflict-free half-warp phases (5);
// stride 16 words: each half-warp all in bank 0, degree 16: 32 cycles, 30 of them conflicts,
// complete at 0 + 32 + 3 = 35.
TEST(SimtLdstSmem, WarpPartsCheckHalfWarpsSeparately) {
  {
    Harness h;
    h.cfg.smem_banks = 16;
    h.cfg.smem_warp_parts = 2;
    h.create();
    EXPECT_EQ(shared_completion(h, load(PTX_SPACE_SHARED, 4, [](uint32_t i) { return 4ull * i; })), 5u);
    EXPECT_EQ(h.stat("gpgpu_n_shmem_bkconflict"), 0u);
  }
  Harness h;
  h.cfg.smem_banks = 16;
  h.cfg.smem_warp_parts = 2;
  h.create();
  EXPECT_EQ(shared_completion(h, load(PTX_SPACE_SHARED, 4, [](uint32_t i) { return 64ull * i; })), 35u);
  EXPECT_EQ(h.stat("gpgpu_n_shmem_bkconflict"), 30u);
}

// A shared atomic on one word: no broadcast for read-modify-writes, the 32 lanes serialise:
// complete at 0 + 32 + 3 = 35. A reduction on it completes when its phases are over (32).
TEST(SimtLdstSmem, AtomicsOnOneWordSerialise) {
  Harness h;
  h.create();
  h.issue(0, mem_step(PTX_SPACE_SHARED, true, true, true, 4, 0xffffffffu, [](uint32_t) { return 0ull; }), 1);
  h.run_to(100);
  EXPECT_EQ(h.done_at(1), 35u);
  h.issue(1, mem_step(PTX_SPACE_SHARED, false, true, true, 4, 0xffffffffu, [](uint32_t) { return 0ull; }), 2);
  uint64_t t0 = h.now;
  h.run_to(200);
  EXPECT_EQ(h.done_at(2), t0 + 32);
  EXPECT_EQ(simt_ldst_pending_stores(h.u, 1), 0u);  // shared stores need no acknowledgement
  EXPECT_TRUE(h.sent.empty());
}

// A store completes when its phases are over (no latency), a load smem_latency later.
TEST(SimtLdstSmem, StoreCompletesWhenItsPhasesAreOver) {
  Harness h;
  h.create();
  h.issue(0, store(PTX_SPACE_SHARED, 4, [](uint32_t i) { return 8ull * i; }), 1);  // 2 phases
  h.run_to(50);
  EXPECT_EQ(h.done_at(1), 2u);
}

// Back-to-back conflict-free loads: one per cycle, each 1 + 3 after its issue.
TEST(SimtLdstSmem, ConflictFreeLoadsIssueEveryCycle) {
  Harness h;
  h.create();
  for (uint64_t k = 0; k < 4; k++) {
    h.issue((uint32_t)k, load(PTX_SPACE_SHARED, 4, [](uint32_t i) { return 4ull * i; }), 10 + k);
    h.tick();
  }
  h.run_to(50);
  for (uint64_t k = 0; k < 4; k++) EXPECT_EQ(h.done_at(10 + k), k + 4);
}

// next_event is exact: issue at 0 -> 1 (phases start), 4 phases end at cycle 4 -> 4, data at
// 4 + 3 = 7 -> 7, then idle.
TEST(SimtLdstSmem, NextEventIsExact) {
  Harness h;
  h.create();
  EXPECT_EQ(simt_ldst_next_event(h.u), SIMT_LDST_NEVER);
  h.issue(0, load(PTX_SPACE_SHARED, 4, [](uint32_t i) { return 128ull * (i % 4); }), 1);  // degree 4
  EXPECT_EQ(simt_ldst_next_event(h.u), 1u);
  simt_ldst_advance(h.u, 1);
  EXPECT_EQ(simt_ldst_next_event(h.u), 4u);
  simt_ldst_advance(h.u, 4);
  EXPECT_EQ(simt_ldst_next_event(h.u), 7u);
  simt_ldst_advance(h.u, 7);
  ASSERT_EQ(h.done.size(), 1u);
  EXPECT_EQ(h.done[0].at, 7u);
  EXPECT_EQ(simt_ldst_next_event(h.u), SIMT_LDST_NEVER);
  EXPECT_TRUE(simt_ldst_idle(h.u));
}

// The pure cost function, for a few more patterns (degree and cycles).
TEST(SimtLdstSmem, CostFunctionCountsDistinctWordsPerBank) {
  ldst_smem_geometry g{};
  g.banks = 32, g.bank_bytes = 4, g.warp_size = 32, g.warp_parts = 1, g.limited_broadcast = false;
  ldst_smem_geometry_init(&g);
  uint16_t scratch[32] = {0};
  uint64_t addr[32];
  ldst_smem_cost c;
  // stride 3 words: 3 and 32 are coprime: conflict-free
  for (uint32_t i = 0; i < 32; i++) addr[i] = 12ull * i;
  ldst_smem_cost_of(&g, 0xffffffffu, addr, 4, false, scratch, &c);
  EXPECT_EQ(c.cycles, 1u);
  // stride 4 words: 8 banks used, 4 words each
  for (uint32_t i = 0; i < 32; i++) addr[i] = 16ull * i;
  ldst_smem_cost_of(&g, 0xffffffffu, addr, 4, false, scratch, &c);
  EXPECT_EQ(c.degree, 4u);
  // only two lanes active, same bank, different words
  addr[3] = 0;
  addr[9] = 128;
  ldst_smem_cost_of(&g, (1u << 3) | (1u << 9), addr, 4, false, scratch, &c);
  EXPECT_EQ(c.cycles, 2u);
  EXPECT_EQ(c.phases, 1u);
  // no lane active: still one pass through the stage
  ldst_smem_cost_of(&g, 0, addr, 4, false, scratch, &c);
  EXPECT_EQ(c.cycles, 1u);
  for (uint32_t b = 0; b < 32; b++) EXPECT_EQ(scratch[b], 0u);
}
