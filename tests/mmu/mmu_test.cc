// Mmu* — the GPU MMU model core: the page walk over the four-level format of mmu_pte.h (4 KiB and
// 2 MiB leaves, apertures, read-only and replayable entries, every malformed encoding), the fault
// descriptions, and the set-associative LRU TLB (hits, misses, replacement, both page sizes,
// invalidation by PDB and range, configuration errors).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>

extern "C" {
#include "mmu.h"
#include "stats.h"
}

namespace {

// Page tables in a sparse memory of two apertures; tables are allocated bottom-up at 0x10000 + n *
// 4 KiB of the aperture asked for.
struct Tables {
  std::map<std::pair<uint32_t, uint64_t>, uint64_t> mem;
  uint64_t next[2] = {0x10000, 0x80000};
  uint64_t root;
  uint32_t root_ap;
  mmu_mem_port port{this, &Tables::Read};
  int reads = 0;

  explicit Tables(uint32_t root_aperture = MMU_APERTURE_VIDMEM) : root_ap(root_aperture) {
    root = NewTable(root_aperture);
  }
  static bool Read(void *ctx, uint32_t ap, uint64_t addr, uint64_t *e) {
    auto *t = static_cast<Tables *>(ctx);
    t->reads++;
    if (addr >= 0x40000000) return false;  // nothing answers up there
    auto it = t->mem.find({ap, addr});
    *e = it == t->mem.end() ? 0 : it->second;
    return true;
  }
  uint64_t NewTable(uint32_t ap) {
    uint64_t a = next[ap];
    next[ap] += MMU_TABLE_BYTES;
    return a;
  }
  uint64_t Pdb() const { return mmu_pdb_make(root, static_cast<mmu_aperture>(root_ap)); }
  // Entry address of va at level, creating the tables above it (in aperture ap).
  uint64_t Slot(uint64_t va, uint32_t level, uint32_t *slot_ap, uint32_t ap = MMU_APERTURE_VIDMEM) {
    uint64_t table = root;
    uint32_t tap = root_ap;
    for (uint32_t l = MMU_LEVELS - 1; l > level; l--) {
      uint64_t addr = table + 8u * mmu_va_index(va, l);
      uint64_t &e = mem[{tap, addr}];
      if (!mmu_pte_valid(e)) e = mmu_pte_make(NewTable(ap), static_cast<mmu_aperture>(ap), 0);
      table = mmu_pte_addr(e);
      tap = mmu_pte_aperture(e);
    }
    *slot_ap = tap;
    return table + 8u * mmu_va_index(va, level);
  }
  void Set(uint64_t va, uint32_t level, uint64_t entry, uint32_t ap = MMU_APERTURE_VIDMEM) {
    uint32_t sap;
    uint64_t a = Slot(va, level, &sap, ap);
    mem[{sap, a}] = entry;
  }
  void Map4k(uint64_t va, uint64_t pa, uint64_t flags = 0, mmu_aperture ap = MMU_APERTURE_VIDMEM) {
    Set(va, 0, mmu_pte_make(pa, ap, flags));
  }
  mmu_translation Walk(uint64_t va, mmu_access acc = MMU_ACCESS_READ) {
    mmu_translation t;
    mmu_walk(&port, Pdb(), va, acc, &t);
    return t;
  }
};

TEST(MmuWalk, SmallPageTranslatesThroughFourLevelsReadingOneEntryEach) {
  Tables t;
  t.Map4k(0x1000'0000'3000ull, 0x5000'7000ull);
  mmu_translation r = t.Walk(0x1000'0000'3abcull);
  ASSERT_EQ(r.fault, MMU_FAULT_NONE);
  EXPECT_EQ(r.pa, 0x5000'7abcull);
  EXPECT_EQ(r.aperture, MMU_APERTURE_VIDMEM);
  EXPECT_EQ(r.page_bits, 12u);
  EXPECT_EQ(r.level, 0u);
  ASSERT_EQ(r.n_reads, 4u);
  // The root entry for VA[47:39] = 0x20 sits at root + 0x20 * 8.
  EXPECT_EQ(r.read_addr[0], t.root + 8u * 0x20);
  EXPECT_EQ(t.reads, 4);
}

TEST(MmuWalk, BigPageIsALevelOneLeafWithTheLowTwentyOneBitsFromTheAddress) {
  Tables t;
  t.Set(0x2000'0040'0000ull, 1, mmu_pte_make(0x4000'0000ull, MMU_APERTURE_VIDMEM, MMU_PTE_PS));
  mmu_translation r = t.Walk(0x2000'005f'1234ull);
  ASSERT_EQ(r.fault, MMU_FAULT_NONE);
  EXPECT_EQ(r.page_bits, 21u);
  EXPECT_EQ(r.level, 1u);
  EXPECT_EQ(r.n_reads, 3u);
  EXPECT_EQ(r.pa, 0x4000'0000ull + 0x1f'1234ull);
}

TEST(MmuWalk, SysmemLeafAndSysmemTablesCarryTheirAperture) {
  Tables t(MMU_APERTURE_SYSMEM);
  t.Set(0x3000'0000'0000ull, 0, mmu_pte_make(0x9'0000'0000ull, MMU_APERTURE_SYSMEM, 0), MMU_APERTURE_SYSMEM);
  mmu_translation r = t.Walk(0x3000'0000'0010ull);
  ASSERT_EQ(r.fault, MMU_FAULT_NONE);
  EXPECT_EQ(r.aperture, MMU_APERTURE_SYSMEM);
  EXPECT_EQ(r.pa, 0x9'0000'0010ull);
  for (int i = 0; i < 4; i++) EXPECT_EQ(r.read_aperture[i], MMU_APERTURE_SYSMEM) << i;
}

TEST(MmuWalk, MissingEntryAtAnyLevelIsInvalidAndNamesTheLevel) {
  Tables t;
  mmu_translation r = t.Walk(0x1234'5678'9000ull);
  EXPECT_EQ(r.fault, MMU_FAULT_INVALID);
  EXPECT_EQ(r.level, 3u);
  EXPECT_EQ(r.n_reads, 1u);
  t.Map4k(0x1000'0000'0000ull, 0x1000);
  r = t.Walk(0x1000'0000'1000ull);  // tables exist, the level-0 entry does not
  EXPECT_EQ(r.fault, MMU_FAULT_INVALID);
  EXPECT_EQ(r.level, 0u);
  char buf[256];
  std::string d = mmu_describe_fault(&r, 0x1000'0000'1000ull, MMU_ACCESS_READ, buf, sizeof buf);
  EXPECT_NE(d.find("level-0 entry at VIDMEM 0x"), std::string::npos) << d;
  EXPECT_NE(d.find("not valid"), std::string::npos) << d;
}

TEST(MmuWalk, NotPresentEntryWithReplayIsAReplayableFault) {
  Tables t;
  t.Set(0x1000'0000'0000ull, 0, mmu_pte_replayable_absent());
  mmu_translation r = t.Walk(0x1000'0000'0008ull, MMU_ACCESS_WRITE);
  EXPECT_EQ(r.fault, MMU_FAULT_REPLAY_ABSENT);
  EXPECT_TRUE(mmu_fault_replayable(r.fault));
  EXPECT_FALSE(mmu_fault_replayable(MMU_FAULT_INVALID));
}

TEST(MmuWalk, ReadOnlyPageAllowsReadsAndFaultsWritesAndAtomics) {
  Tables t;
  t.Map4k(0x1000'0000'0000ull, 0x2000, MMU_PTE_RO);
  t.Map4k(0x1000'0000'1000ull, 0x3000, MMU_PTE_RO | MMU_PTE_REPLAY);
  EXPECT_EQ(t.Walk(0x1000'0000'0000ull).fault, MMU_FAULT_NONE);
  EXPECT_EQ(t.Walk(0x1000'0000'0000ull, MMU_ACCESS_WRITE).fault, MMU_FAULT_PROTECTION);
  EXPECT_EQ(t.Walk(0x1000'0000'0000ull, MMU_ACCESS_ATOMIC).fault, MMU_FAULT_PROTECTION);
  EXPECT_EQ(t.Walk(0x1000'0000'1000ull, MMU_ACCESS_WRITE).fault, MMU_FAULT_REPLAY_WRITE);
  EXPECT_EQ(mmu_leaf_check(mmu_pte_make(0, MMU_APERTURE_VIDMEM, MMU_PTE_RO), MMU_ACCESS_READ), MMU_FAULT_NONE);
}

TEST(MmuWalk, MalformedEntriesAreFatal) {
  const uint64_t va = 0x1000'0000'0000ull;
  {
    Tables t;  // reserved bit 7
    t.Set(va, 0, mmu_pte_make(0x1000, MMU_APERTURE_VIDMEM, 1ull << 7));
    EXPECT_EQ(t.Walk(va).fault, MMU_FAULT_MALFORMED);
  }
  {
    Tables t;  // reserved aperture 2
    t.Set(va, 0, (0x1000ull) | (2ull << MMU_PTE_APERTURE_LSB) | MMU_PTE_VALID);
    EXPECT_EQ(t.Walk(va).fault, MMU_FAULT_MALFORMED);
  }
  {
    Tables t;  // PS at level 2
    t.Set(va, 2, mmu_pte_make(0, MMU_APERTURE_VIDMEM, MMU_PTE_PS));
    EXPECT_EQ(t.Walk(va).fault, MMU_FAULT_MALFORMED);
  }
  {
    Tables t;  // 2 MiB page at an address that is not 2 MiB aligned
    t.Set(va, 1, mmu_pte_make(0x1000, MMU_APERTURE_VIDMEM, MMU_PTE_PS));
    mmu_translation r = t.Walk(va);
    EXPECT_EQ(r.fault, MMU_FAULT_MALFORMED);
    EXPECT_EQ(r.level, 1u);
  }
  {
    Tables t;  // a PDB with RO set
    mmu_translation r;
    EXPECT_EQ(mmu_walk(&t.port, t.Pdb() | MMU_PTE_RO, va, MMU_ACCESS_READ, &r), MMU_FAULT_MALFORMED);
  }
  {
    Tables t;  // software bits are ignored
    t.Map4k(va, 0x7000, 0x00F0'0000'0000'0000ull);
    EXPECT_EQ(t.Walk(va).fault, MMU_FAULT_NONE);
  }
}

TEST(MmuWalk, AddressBeyondFortyEightBitsAndUnreadableTablesAreReported) {
  Tables t;
  EXPECT_EQ(t.Walk(1ull << 48).fault, MMU_FAULT_RANGE);
  EXPECT_EQ(t.reads, 0);
  t.Set(0x1000'0000'0000ull, 2, mmu_pte_make(0x4000'0000ull, MMU_APERTURE_VIDMEM, 0));  // table nowhere
  mmu_translation r = t.Walk(0x1000'0000'0000ull);
  EXPECT_EQ(r.fault, MMU_FAULT_TABLE_READ);
  EXPECT_EQ(r.level, 1u);
  mmu_translation off;
  EXPECT_EQ(mmu_walk(&t.port, 0, 0x1000, MMU_ACCESS_READ, &off), MMU_FAULT_INVALID);
}

// ---- TLB --------------------------------------------------------------------------------------

mmu_tlb *MakeTlb(uint32_t entries, uint32_t assoc, stats *st = nullptr) {
  mmu_tlb_config c{entries, assoc, "l1_tlb", st, "-gpgpu_l1_tlb_entries"};
  simtvp_diag d;
  mmu_tlb *t = mmu_tlb_create(&c, &d);
  EXPECT_NE(t, nullptr) << d.message;
  return t;
}

TEST(MmuTlb, MissThenFillThenHitReturnsTheEntry) {
  mmu_tlb *t = MakeTlb(16, 0);
  mmu_tlb_hit h;
  EXPECT_FALSE(mmu_tlb_lookup(t, 0x11, 0x5000, &h));
  mmu_tlb_fill(t, 0x11, 0x5000, 12, 0xABC001);
  ASSERT_TRUE(mmu_tlb_lookup(t, 0x11, 0x5fff, &h));
  EXPECT_EQ(h.entry, 0xABC001u);
  EXPECT_EQ(h.page_bits, 12u);
  EXPECT_FALSE(mmu_tlb_lookup(t, 0x22, 0x5000, &h));  // another address space
  EXPECT_FALSE(mmu_tlb_lookup(t, 0x11, 0x6000, &h));  // the next page
  mmu_tlb_counters c = mmu_tlb_get_counters(t);
  EXPECT_EQ(c.hits, 1u);
  EXPECT_EQ(c.misses, 3u);
  EXPECT_EQ(c.fills, 1u);
  mmu_tlb_destroy(t);
}

TEST(MmuTlb, BigPageEntryCoversTwoMegabytes) {
  mmu_tlb *t = MakeTlb(4, 4);
  mmu_tlb_fill(t, 1, 0x4020'0000, 21, 0x77);
  EXPECT_TRUE(mmu_tlb_probe(t, 1, 0x4020'0000, nullptr));
  EXPECT_TRUE(mmu_tlb_probe(t, 1, 0x403f'ffff, nullptr));
  EXPECT_FALSE(mmu_tlb_probe(t, 1, 0x4040'0000, nullptr));
  EXPECT_FALSE(mmu_tlb_probe(t, 1, 0x401f'ffff, nullptr));
  mmu_tlb_destroy(t);
}

TEST(MmuTlb, FullyAssociativeReplacesTheLeastRecentlyUsed) {
  mmu_tlb *t = MakeTlb(4, 0);
  for (uint64_t p = 0; p < 4; p++) mmu_tlb_fill(t, 1, p << 12, 12, p);
  EXPECT_TRUE(mmu_tlb_lookup(t, 1, 0x0000, nullptr));  // page 0 becomes MRU; page 1 is LRU
  mmu_tlb_fill(t, 1, 4 << 12, 12, 4);
  EXPECT_FALSE(mmu_tlb_probe(t, 1, 1 << 12, nullptr));
  EXPECT_TRUE(mmu_tlb_probe(t, 1, 0 << 12, nullptr));
  EXPECT_TRUE(mmu_tlb_probe(t, 1, 4 << 12, nullptr));
  EXPECT_EQ(mmu_tlb_get_counters(t).evictions, 1u);
  mmu_tlb_destroy(t);
}

TEST(MmuTlb, SetIndexIsThePageNumberModuloTheSets) {
  // 8 entries, 2 ways: 4 sets. Pages 0, 4, 8 share set 0: the third evicts the first.
  mmu_tlb *t = MakeTlb(8, 2);
  mmu_tlb_fill(t, 1, 0u << 12, 12, 0);
  mmu_tlb_fill(t, 1, 4u << 12, 12, 4);
  mmu_tlb_fill(t, 1, 1u << 12, 12, 1);  // set 1: no effect on set 0
  mmu_tlb_fill(t, 1, 8u << 12, 12, 8);
  EXPECT_FALSE(mmu_tlb_probe(t, 1, 0u << 12, nullptr));
  EXPECT_TRUE(mmu_tlb_probe(t, 1, 4u << 12, nullptr));
  EXPECT_TRUE(mmu_tlb_probe(t, 1, 8u << 12, nullptr));
  EXPECT_TRUE(mmu_tlb_probe(t, 1, 1u << 12, nullptr));
  mmu_tlb_destroy(t);
}

TEST(MmuTlb, RefillOfAPresentPageReplacesItInPlace) {
  mmu_tlb *t = MakeTlb(2, 0);
  mmu_tlb_fill(t, 1, 0x1000, 12, 1);
  mmu_tlb_fill(t, 1, 0x2000, 12, 2);
  mmu_tlb_fill(t, 1, 0x1000, 12, 9);
  mmu_tlb_hit h;
  ASSERT_TRUE(mmu_tlb_probe(t, 1, 0x1000, &h));
  EXPECT_EQ(h.entry, 9u);
  EXPECT_TRUE(mmu_tlb_probe(t, 1, 0x2000, nullptr));
  EXPECT_EQ(mmu_tlb_get_counters(t).evictions, 0u);
  mmu_tlb_destroy(t);
}

TEST(MmuTlb, InvalidateDropsOnlyThePdbAndRangeAsked) {
  mmu_tlb *t = MakeTlb(16, 0);
  mmu_tlb_fill(t, 1, 0x1000, 12, 1);
  mmu_tlb_fill(t, 1, 0x2000, 12, 2);
  mmu_tlb_fill(t, 2, 0x1000, 12, 3);
  mmu_tlb_fill(t, 1, 0x20'0000, 21, 4);
  EXPECT_EQ(mmu_tlb_invalidate(t, 1, 0x2000, 0x1000), 1u);
  EXPECT_TRUE(mmu_tlb_probe(t, 1, 0x1000, nullptr));
  EXPECT_FALSE(mmu_tlb_probe(t, 1, 0x2000, nullptr));
  EXPECT_EQ(mmu_tlb_invalidate(t, 1, 0x30'0000, 0x1000), 1u);  // inside the 2 MiB page
  EXPECT_EQ(mmu_tlb_invalidate(t, 0, 0, 0), 2u);                  // everything left
  EXPECT_FALSE(mmu_tlb_probe(t, 2, 0x1000, nullptr));
  EXPECT_EQ(mmu_tlb_get_counters(t).invalidations, 4u);
  mmu_tlb_destroy(t);
}

TEST(MmuTlb, ZeroEntriesAlwaysMisses) {
  mmu_tlb *t = MakeTlb(0, 0);
  mmu_tlb_fill(t, 1, 0x1000, 12, 1);
  EXPECT_FALSE(mmu_tlb_lookup(t, 1, 0x1000, nullptr));
  EXPECT_EQ(mmu_tlb_get_counters(t).misses, 1u);
  mmu_tlb_destroy(t);
}

TEST(MmuTlb, InstancesWithOneNameShareTheirCounters) {
  stats *st = stats_create();
  mmu_tlb *a = MakeTlb(4, 0, st), *b = MakeTlb(4, 0, st);
  mmu_tlb_lookup(a, 1, 0, nullptr);
  mmu_tlb_lookup(b, 1, 0, nullptr);
  int found = 0;
  EXPECT_EQ(stats_get(st, "l1_tlb.misses", &found), 2u);
  EXPECT_TRUE(found);
  mmu_tlb_destroy(a);
  mmu_tlb_destroy(b);
  stats_destroy(st);
}

TEST(MmuTlb, EntriesNotAMultipleOfTheAssociativityIsAConfigurationError) {
  mmu_tlb_config c{12, 8, nullptr, nullptr, "-gpgpu_l2_tlb_assoc"};
  simtvp_diag d;
  EXPECT_EQ(mmu_tlb_create(&c, &d), nullptr);
  EXPECT_EQ(d.status, SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(d.option, "-gpgpu_l2_tlb_assoc");
  EXPECT_NE(std::string(d.message).find("not a multiple"), std::string::npos) << d.message;
}

}  // namespace
