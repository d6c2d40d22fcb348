// SimtLdstTlb* — the LDST unit's translation stage (simt_ldst.h cfg.mmu, docs/vm.md "Timing TLBs"):
// an L1 TLB hit costs nothing, an L1 miss that hits the shared L2 TLB waits l2_tlb_latency, an L2
// miss walks the page tables with one 32-byte read per level through the memory system, one after
// the other; requests carry physical addresses; warps without a VALID PDB are not translated;
// 2 MiB pages cover their whole range; invalidation forces a walk again; statistics per level.
#include "ldst_harness.h"

extern "C" {
#include "mmu.h"
#include "ptx.h"
}

using namespace ldst_test;

namespace {

constexpr uint64_t kPdb = 0x100000F00001ull;    // VALID, VIDMEM root at 0x100000F00000
constexpr uint64_t kVa = 0x200000000000ull;     // a 4 KiB page (below kBigVa)
constexpr uint64_t kBigVa = 0x300000000000ull;  // 2 MiB pages from here
constexpr uint64_t kPaOffset = 0x0000100000000ull;
constexpr uint32_t kL = 10;                     // memory latency of the fake memory system

// A page table that maps va to va - 0x200000000000 + 0x100000000000 + kPaOffset: 4 KiB pages below
// kBigVa (four entry reads), 2 MiB pages from there (three reads). The entries' addresses are those
// of a real radix tree: one table per level under the root.
mmu_fault fake_walk(void *ctx, uint64_t pdb, uint64_t va, mmu_translation *t) {
  ++*static_cast<int *>(ctx);
  std::memset(t, 0, sizeof *t);
  if (pdb != kPdb) return t->fault = MMU_FAULT_INVALID;
  bool big = va >= kBigVa;
  uint64_t pa = va - 0x100000000000ull + kPaOffset;
  t->page_bits = big ? 21 : 12;
  t->entry = mmu_pte_make(pa & ~((1ull << t->page_bits) - 1), MMU_APERTURE_VIDMEM, big ? MMU_PTE_PS : 0);
  t->pa = pa;
  t->n_reads = big ? 3 : 4;
  for (uint32_t l = 0; l < t->n_reads; l++) {
    uint32_t level = 3 - l;
    t->read_addr[l] = 0x100000F00000ull + 0x1000ull * l + 8ull * mmu_va_index(va, level);
  }
  t->level = big ? 1 : 0;
  return MMU_FAULT_NONE;
}

struct TlbHarness : Harness {
  int walks = 0;
  mmu_tlb *l2 = nullptr;
  explicit TlbHarness(uint32_t l1_entries = 16, uint32_t l2_latency = 5) {
    cfg.mmu.ctx = &walks;
    cfg.mmu.walk = fake_walk;
    cfg.l1_tlb_entries = l1_entries;
    cfg.l1_tlb_assoc = 4;
    mmu_tlb_config c = {64, 8, "l2_tlb", st, "-gpgpu_tlb_l2"};
    simtvp_diag d;
    l2 = mmu_tlb_create(&c, &d);
    cfg.l2_tlb = l2;
    cfg.l2_tlb_latency = l2_latency;
    auto_latency = kL;
  }
  ~TlbHarness() {
    if (u) simt_ldst_destroy(u);
    u = nullptr;
    mmu_tlb_destroy(l2);
  }
  // One warp-wide 4-byte load of the 128 bytes at va.
  void load_line(uint32_t warp, uint64_t va, uint64_t tag) {
    issue(warp, load(PTX_SPACE_GLOBAL, 4, [va](uint32_t i) { return va + 4ull * i; }), tag);
  }
};

// Without translation the load's request leaves at cycle 1 and its reply (sent 1, due 1 + L,
// taken the cycle after) completes it at L + 2 = 12.
TEST(SimtLdstTlb, NoTranslationStageWithoutAWalkPort) {
  Harness h;
  h.auto_latency = kL;
  h.create();
  h.issue(0, load(PTX_SPACE_GLOBAL, 4, [](uint32_t i) { return kVa + 4ull * i; }), 1);
  ASSERT_TRUE(h.drain());
  EXPECT_EQ(h.done_at(1), kL + 2);
  ASSERT_EQ(h.sent.size(), 1u);
  EXPECT_EQ(h.sent[0].addr, kVa);
  int found = 1;
  stats_get(h.st, "tlb.walks", &found);
  EXPECT_FALSE(found) << "no TLB statistics without translation";
}

// L1 and L2 miss: four walk reads, each sent when the one before is taken (L + 1 cycles apart):
// at 1, 12, 23, 34; the leaf arrives at 45 = 1 + 4 (L + 1), the data request leaves then with the
// physical address and completes at 45 + L + 1 = 56 (12 without translation + 44 for the walk).
TEST(SimtLdstTlb, MissInBothTlbsWalksFourLevelsThroughMemory) {
  TlbHarness h;
  h.create();
  simt_ldst_set_pdb(h.u, 0, kPdb);
  h.load_line(0, kVa + 0x80, 1);
  ASSERT_TRUE(h.drain()) << h.status();
  EXPECT_EQ(h.walks, 1);
  ASSERT_EQ(h.sent.size(), 5u);
  const uint64_t at[4] = {1, 12, 23, 34};
  for (int l = 0; l < 4; l++) {
    uint64_t entry = 0x100000F00000ull + 0x1000ull * l + 8ull * mmu_va_index(kVa, 3 - l);
    EXPECT_EQ(h.sent[l].addr, entry & ~31ull) << "level " << 3 - l;
    EXPECT_EQ(h.sent[l].size, 32u);
    EXPECT_EQ(h.sent[l].kind, (uint8_t)MEM_ACC_GLOBAL_R);
    EXPECT_EQ(h.sent[l].at, at[l]) << "read " << l;
  }
  EXPECT_EQ(h.sent[4].at, 45u);
  EXPECT_EQ(h.sent[4].addr, kVa + 0x80 - 0x100000000000ull + kPaOffset) << "physical address";
  EXPECT_EQ(h.done_at(1), 56u);
  EXPECT_EQ(h.stat("tlb.walks"), 1u);
  EXPECT_EQ(h.stat("tlb.walk_cycles"), 44u);
  EXPECT_EQ(h.stat("l1_tlb.misses"), 1u);
  EXPECT_EQ(h.stat("l2_tlb.misses"), 1u);
  EXPECT_EQ(h.stat("l1_tlb.hits"), 0u);
}

// The walk filled the L1 TLB: a later load of the same page is not delayed (issued at 100,
// request at 101, done at 101 + L + 1 = 112).
TEST(SimtLdstTlb, L1HitCostsNothing) {
  TlbHarness h;
  h.create();
  simt_ldst_set_pdb(h.u, 0, kPdb);
  h.load_line(0, kVa, 1);
  ASSERT_TRUE(h.drain());
  h.run_to(100);
  h.load_line(0, kVa + 0xF80, 2);
  ASSERT_TRUE(h.drain());
  EXPECT_EQ(h.walks, 1);
  EXPECT_EQ(h.done_at(2), 112u);
  EXPECT_EQ(h.sent.back().addr, kVa + 0xF80 - 0x100000000000ull + kPaOffset);
  EXPECT_EQ(h.stat("l1_tlb.hits"), 1u);
}

// L1 miss, L2 hit: the access waits l2_tlb_latency = 5 cycles: issued at 100, looked up at 101,
// request at 106, done at 106 + L + 1 = 117. The L1 TLB is emptied by invalidation first.
TEST(SimtLdstTlb, L1MissThatHitsTheL2WaitsItsLatency) {
  TlbHarness h;
  h.create();
  simt_ldst_set_pdb(h.u, 0, kPdb);
  h.load_line(0, kVa, 1);
  ASSERT_TRUE(h.drain());
  EXPECT_EQ(simt_ldst_tlb_invalidate(h.u, kPdb, kVa, 4096), 1u);
  h.run_to(100);
  h.load_line(0, kVa, 2);
  ASSERT_TRUE(h.drain());
  EXPECT_EQ(h.walks, 1) << "no second walk";
  EXPECT_EQ(h.sent.back().at, 106u);
  EXPECT_EQ(h.done_at(2), 117u);
  EXPECT_EQ(h.stat("tlb.l2_hit_waits"), 1u);
  EXPECT_EQ(h.stat("l2_tlb.hits"), 1u);
  // Invalidating both levels makes the next access walk again.
  EXPECT_EQ(simt_ldst_tlb_invalidate(h.u, 0, 0, 0), 1u);
  EXPECT_EQ(mmu_tlb_invalidate(h.l2, kPdb, 0, 0), 1u);
  h.run_to(200);
  h.load_line(0, kVa, 3);
  ASSERT_TRUE(h.drain());
  EXPECT_EQ(h.walks, 2);
}

// A 2 MiB page: three walk reads (at 1, 12, 23; leaf at 34), and one entry covers the page, so an
// access 1 MiB further hits the L1 TLB.
TEST(SimtLdstTlb, BigPageWalksThreeLevelsAndCoversTwoMegabytes) {
  TlbHarness h;
  h.create();
  simt_ldst_set_pdb(h.u, 0, kPdb);
  h.load_line(0, kBigVa, 1);
  ASSERT_TRUE(h.drain());
  ASSERT_EQ(h.sent.size(), 4u);
  EXPECT_EQ(h.sent[3].at, 34u);
  EXPECT_EQ(h.stat("tlb.walk_cycles"), 33u);
  h.load_line(0, kBigVa + (1u << 20), 2);
  ASSERT_TRUE(h.drain());
  EXPECT_EQ(h.walks, 1);
  EXPECT_EQ(h.sent.back().addr, kBigVa + (1u << 20) - 0x100000000000ull + kPaOffset);
}

// Warps of a kernel without a VALID PDB (physical addresses) skip the stage; so do shared loads.
TEST(SimtLdstTlb, PhysicalWarpsAndSharedMemoryAreNotTranslated) {
  TlbHarness h;
  h.create();
  simt_ldst_set_pdb(h.u, 1, kPdb);  // warp 0 stays physical
  h.load_line(0, kVa, 1);
  ASSERT_TRUE(h.drain());
  EXPECT_EQ(h.done_at(1), kL + 2);
  EXPECT_EQ(h.sent.back().addr, kVa);
  h.issue(1, load(PTX_SPACE_SHARED, 4, [](uint32_t i) { return 4ull * i; }), 2);
  ASSERT_TRUE(h.drain());
  EXPECT_EQ(h.walks, 0);
}

// Stores are translated too, and every access of a divergent instruction is looked up: two pages,
// two walks, one after the other (the second starts when the first access has left).
TEST(SimtLdstTlb, EachPageOfAnInstructionIsTranslated) {
  TlbHarness h;
  h.create();
  simt_ldst_set_pdb(h.u, 0, kPdb);
  h.issue(0, store(PTX_SPACE_GLOBAL, 4, [](uint32_t i) { return kVa + 0x1000ull * (i % 2) + 4ull * i; }), 1);
  ASSERT_TRUE(h.drain()) << h.status();
  EXPECT_EQ(h.walks, 2);
  ASSERT_EQ(h.sent.size(), 10u);  // 4 walk reads + a store, twice
  EXPECT_TRUE(h.sent[4].is_write);
  EXPECT_EQ(h.sent[4].addr, kVa - 0x100000000000ull + kPaOffset);
  EXPECT_TRUE(h.sent[9].is_write);
  EXPECT_EQ(h.sent[9].addr, kVa + 0x1000 - 0x100000000000ull + kPaOffset);
  EXPECT_EQ(simt_ldst_pending_stores(h.u, 0), 0u);
}

TEST(SimtLdstTlb, L1TlbEntriesNotAMultipleOfTheWaysIsAConfigurationError) {
  TlbHarness h(10);
  h.cfg.stats = h.st;
  h.cfg.pool = h.pool;
  simt_ldst_ports p{};
  p.ctx = &h;
  p.send = &Harness::send_cb;
  p.complete = &Harness::complete_cb;
  simtvp_diag d;
  simtvp_diag_clear(&d);
  EXPECT_EQ(simt_ldst_create(&h.cfg, p, &d), nullptr);
  EXPECT_EQ(d.status, SIMTVP_ERR_CONFIG);
  EXPECT_NE(std::string(d.message).find("-gpgpu_tlb_l1"), std::string::npos) << d.message;
}

}  // namespace
