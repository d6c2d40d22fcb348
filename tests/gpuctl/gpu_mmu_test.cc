// GpuMmu* — the control side of the GPU's MMU (models/gpuctl/gpu_mmu.c, docs/vm.md, gpu_abi.h
// "Virtual memory") on the C harness: the replayable-fault buffer (one entry per distinct page until
// the next replay, PUT, FAULT_PENDING, INTR_STATUS.MMU_FAULT, overflow when full or unwritable, fatal
// without a buffer), MMU_REPLAY and its CANCEL, MMU_INVALIDATE passing its range to the SIMT side and
// moving the translation generation, identity translation for channels without a PDB, and the SIMT
// side's port remembering walks until translations may change (counted in mmu.walks all the same).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "gpu_harness.h"
#include "gpu_mmu.h"

namespace {

struct SimtCalls {
  std::vector<uint64_t> inval_pdb, inval_va, inval_bytes;
  std::vector<bool> replays;  // cancel flag of each replay
};

void on_invalidate(void *ctx, uint64_t pdb, uint64_t va, uint64_t bytes, uint64_t) {
  auto *s = static_cast<SimtCalls *>(ctx);
  s->inval_pdb.push_back(pdb);
  s->inval_va.push_back(va);
  s->inval_bytes.push_back(bytes);
}
void on_replay(void *ctx, bool cancel, uint64_t) { static_cast<SimtCalls *>(ctx)->replays.push_back(cancel); }

class GpuMmu : public ::testing::Test {
 protected:
  void SetUp() override {
    h = gh_create(nullptr);
    m = gpuctl_mmu(h->g);
    gpu_mmu_set_simt(m, &calls, on_invalidate, on_replay);
  }
  void TearDown() override { gh_destroy(h); }
  // A fault buffer of n entries in system memory; MMU_FAULT interrupts enabled.
  void buffer(uint32_t n) {
    buf = gh_sys_alloc(h, (uint64_t)n * GPU_FAULT_ENTRY_BYTES);
    gh_mmio_write(h, GPU_REG_FAULT_BUF_BASE_LO, (uint32_t)buf);
    gh_mmio_write(h, GPU_REG_FAULT_BUF_BASE_HI, (uint32_t)(buf >> 32));
    gh_mmio_write(h, GPU_REG_FAULT_BUF_ENTRIES, n);
    gh_mmio_write(h, GPU_REG_INTR_ENABLE, GPU_FIELD_MASK(GPU_INTR_STATUS_MMU_FAULT));
  }
  bool fault(uint64_t va, mmu_access acc = MMU_ACCESS_READ, uint32_t sm = 2) {
    gpu_mmu_fault_info f{};
    f.va = va;
    f.channel = 3;
    f.grid_id = 77;
    f.sm = sm;
    f.access = (uint8_t)acc;
    f.kind = acc == MMU_ACCESS_READ ? MMU_FAULT_REPLAY_ABSENT : MMU_FAULT_REPLAY_WRITE;
    return gpu_mmu_record_fault(m, kPdb, &f, h->now);
  }
  gpu_fault_entry entry(uint32_t i) {
    gpu_fault_entry e;
    memcpy(&e, gh_sys_ptr(h, buf + (uint64_t)i * GPU_FAULT_ENTRY_BYTES), sizeof e);
    return e;
  }
  gpu_mmu_counters counters() { return gpu_mmu_get_counters(m); }

  static constexpr uint64_t kPdb = 0x1000003F0001ull;  // VALID, VIDMEM root at 0x1000003F0000
  gpu_harness *h = nullptr;
  gpu_mmu *m = nullptr;
  SimtCalls calls;
  uint64_t buf = 0;
};

TEST_F(GpuMmu, ReplayableFaultWritesOneEntryPerPageAndRaisesTheInterrupt) {
  buffer(8);
  ASSERT_TRUE(fault(0x7000001234ull, MMU_ACCESS_WRITE, 5)) << "the access waits";
  gpu_fault_entry e = entry(0);
  EXPECT_EQ(e.va, 0x7000001234ull);
  EXPECT_EQ(e.channel, 3u);
  EXPECT_EQ(e.grid_id, 77u);
  EXPECT_EQ(e.sm, 5u);
  EXPECT_EQ(e.access, (uint8_t)MMU_ACCESS_WRITE);
  EXPECT_EQ(e.kind, (uint8_t)MMU_FAULT_REPLAY_WRITE);
  EXPECT_EQ(e.valid, 1u);
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_FAULT_BUF_PUT), 1u);
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_FAULT_PENDING), 1u);
  EXPECT_TRUE(gh_mmio_read(h, GPU_REG_INTR_STATUS) & GPU_FIELD_MASK(GPU_INTR_STATUS_MMU_FAULT));
  EXPECT_TRUE(h->irq);
  // Another access to the same 4 KiB page (another SM, another byte) only waits: no second entry.
  ASSERT_TRUE(fault(0x7000001FF8ull, MMU_ACCESS_READ, 1));
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_FAULT_BUF_PUT), 1u);
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_FAULT_PENDING), 1u);
  // The next page is a new entry.
  ASSERT_TRUE(fault(0x7000002000ull));
  EXPECT_EQ(entry(1).va, 0x7000002000ull);
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_FAULT_BUF_PUT), 2u);
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_FAULT_PENDING), 2u);
  gpu_mmu_counters c = counters();
  EXPECT_EQ(c.replayable, 3u);
  EXPECT_EQ(c.entries, 2u);
  EXPECT_EQ(c.overflows, 0u);
}

TEST_F(GpuMmu, FullBufferSetsOverflowAndTheAccessStillWaits) {
  buffer(2);  // the GPU keeps one entry free: one usable entry
  ASSERT_TRUE(fault(0x10000ull));
  ASSERT_TRUE(fault(0x20000ull)) << "waits although nothing was written";
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_FAULT_BUF_PUT), 1u);
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_FAULT_STATUS), GPU_FIELD_MASK(GPU_FAULT_STATUS_OVERFLOW));
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_FAULT_PENDING), 2u);
  EXPECT_EQ(counters().overflows, 1u);
  // Software consumes the entry (GET = PUT) and clears OVERFLOW: the next page fits again.
  gh_mmio_write(h, GPU_REG_FAULT_BUF_GET, 1);
  gh_mmio_write(h, GPU_REG_FAULT_STATUS, GPU_FIELD_MASK(GPU_FAULT_STATUS_OVERFLOW));
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_FAULT_STATUS), 0u);
  ASSERT_TRUE(fault(0x30000ull));
  EXPECT_EQ(entry(1).va, 0x30000ull);
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_FAULT_BUF_PUT), 0u) << "wrapped";
}

TEST_F(GpuMmu, ABufferWhereNoSystemMemoryAnswersCountsTheFaultAsLost) {
  gh_mmio_write(h, GPU_REG_FAULT_BUF_BASE_LO, 0xFFFFFF00u);
  gh_mmio_write(h, GPU_REG_FAULT_BUF_BASE_HI, 0x7FFFu);
  gh_mmio_write(h, GPU_REG_FAULT_BUF_ENTRIES, 4);
  ASSERT_TRUE(fault(0x10000ull));
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_FAULT_STATUS), GPU_FIELD_MASK(GPU_FAULT_STATUS_OVERFLOW));
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_FAULT_BUF_PUT), 0u);
  EXPECT_EQ(counters().entries, 0u);
  EXPECT_EQ(counters().overflows, 1u);
}

TEST_F(GpuMmu, WithoutAFaultBufferAReplayableFaultIsFatal) {
  EXPECT_FALSE(fault(0x10000ull));
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_FAULT_PENDING), 0u);
  EXPECT_EQ(counters().replayable, 0u);
  EXPECT_FALSE(gh_mmio_read(h, GPU_REG_INTR_STATUS) & GPU_FIELD_MASK(GPU_INTR_STATUS_MMU_FAULT));
}

TEST_F(GpuMmu, ReplayEmptiesThePendingPagesAndTellsTheSimtSideCancelToo) {
  buffer(8);
  ASSERT_TRUE(fault(0x10000ull));
  ASSERT_TRUE(fault(0x20000ull));
  gh_mmio_write(h, GPU_REG_MMU_REPLAY, GPU_FIELD_MASK(GPU_MMU_REPLAY_REPLAY));
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_FAULT_PENDING), 0u);
  ASSERT_EQ(calls.replays.size(), 1u);
  EXPECT_FALSE(calls.replays[0]);
  // After the replay the same page faulting again is a new entry (the driver did not fix it).
  ASSERT_TRUE(fault(0x10008ull));
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_FAULT_BUF_PUT), 3u);
  gh_mmio_write(h, GPU_REG_MMU_REPLAY, GPU_FIELD_MASK(GPU_MMU_REPLAY_CANCEL));
  ASSERT_EQ(calls.replays.size(), 2u);
  EXPECT_TRUE(calls.replays[1]);
  gpu_mmu_counters c = counters();
  EXPECT_EQ(c.replays, 1u);
  EXPECT_EQ(c.cancels, 1u);
  // A write of 0 does nothing.
  gh_mmio_write(h, GPU_REG_MMU_REPLAY, 0);
  EXPECT_EQ(calls.replays.size(), 2u);
}

TEST_F(GpuMmu, InvalidatePassesItsRangeAndMovesTheGeneration) {
  gpu_mmu_port p = gpu_mmu_simt_port(m);
  uint64_t g0 = *p.generation;
  gh_mmio_write(h, GPU_REG_MMU_INVAL_PDB_LO, (uint32_t)kPdb);
  gh_mmio_write(h, GPU_REG_MMU_INVAL_PDB_HI, (uint32_t)(kPdb >> 32));
  gh_mmio_write(h, GPU_REG_MMU_INVAL_VA_LO, 0x00200000u);
  gh_mmio_write(h, GPU_REG_MMU_INVAL_VA_HI, 0x1000u);
  gh_mmio_write(h, GPU_REG_MMU_INVAL_PAGES, 512);
  EXPECT_EQ(*p.generation, g0) << "nothing happens before the trigger";
  gh_mmio_write(h, GPU_REG_MMU_INVALIDATE, GPU_FIELD_MASK(GPU_MMU_INVALIDATE_TRIGGER));
  EXPECT_NE(*p.generation, g0);
  ASSERT_EQ(calls.inval_pdb.size(), 1u);
  EXPECT_EQ(calls.inval_pdb[0], kPdb);
  EXPECT_EQ(calls.inval_va[0], 0x100000200000ull);
  EXPECT_EQ(calls.inval_bytes[0], 2ull << 20);
  // PAGES 0: the whole address space (va and bytes 0).
  gh_mmio_write(h, GPU_REG_MMU_INVAL_PAGES, 0);
  gh_mmio_write(h, GPU_REG_MMU_INVALIDATE, GPU_FIELD_MASK(GPU_MMU_INVALIDATE_TRIGGER));
  ASSERT_EQ(calls.inval_pdb.size(), 2u);
  EXPECT_EQ(calls.inval_va[1], 0u);
  EXPECT_EQ(calls.inval_bytes[1], 0u);
  EXPECT_EQ(counters().invalidates, 2u);
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_ERR_STATUS), 0u);
}

TEST_F(GpuMmu, AChannelWithoutAValidPdbUsesPhysicalAddresses) {
  mmu_translation t;
  ASSERT_EQ(gpu_mmu_translate(m, 0, 0x100000001234ull, MMU_ACCESS_WRITE, &t), MMU_FAULT_NONE);
  EXPECT_EQ(t.pa, 0x100000001234ull);
  EXPECT_EQ(t.aperture, (uint32_t)MMU_APERTURE_VIDMEM);
  EXPECT_EQ(t.n_reads, 0u) << "no walk";
  uint32_t v = 0xCAFEF00Du, got = 0, f = 99;
  ASSERT_TRUE(gpu_mmu_write(m, 0, 0x100000000100ull, &v, 4, &f));
  EXPECT_EQ(f, 0u);
  ASSERT_TRUE(gpu_mmu_read(m, 0, 0x100000000100ull, &got, 4, &f));
  EXPECT_EQ(got, v);
  // With a PDB whose root table is empty (zeroed device memory), the same access faults.
  EXPECT_FALSE(gpu_mmu_read(m, kPdb, 0x100000000100ull, &got, 4, &f));
  EXPECT_EQ(f, (uint32_t)MMU_FAULT_INVALID);
}

// The SIMT side's port remembers a successful walk per page and access until the generation moves,
// a replay or a kernel launch (gpu_mmu_forget_walks); every translation still counts as a walk.
// The control side's gpu_mmu_translate always walks.
TEST_F(GpuMmu, SimtPortRemembersWalksUntilTranslationsMayChange) {
  const uint64_t root = 0x1000003F0000ull, va = 0x100000200000ull;
  uint64_t table = root;
  for (uint32_t level = MMU_LEVELS - 1; level > 0; level--) {  // one table per level below the root
    uint64_t next = root + (uint64_t)(MMU_LEVELS - level) * MMU_TABLE_BYTES;
    uint64_t e = mmu_pte_make(next, MMU_APERTURE_VIDMEM, 0);
    memcpy(gh_dev_ptr(h, table + 8u * mmu_va_index(va, level)), &e, 8);
    table = next;
  }
  uint8_t *leaf = gh_dev_ptr(h, table + 8u * mmu_va_index(va, 0));
  auto map = [&](uint64_t pa, uint64_t flags = 0) {
    uint64_t e = mmu_pte_make(pa, MMU_APERTURE_VIDMEM, flags);
    memcpy(leaf, &e, 8);
  };
  gpu_mmu_port p = gpu_mmu_simt_port(m);
  auto pa_of = [&](uint64_t a, mmu_access acc = MMU_ACCESS_READ) {
    mmu_translation t;
    mmu_fault f = p.translate(p.ctx, kPdb, a, acc, &t);
    return f == MMU_FAULT_NONE ? t.pa : ~0ull - (uint64_t)f;
  };
  map(0x100000100000ull);
  EXPECT_EQ(pa_of(va + 0x10), 0x100000100010ull);
  map(0x100000300000ull);  // changed without MMU_INVALIDATE: the port still has the old walk
  EXPECT_EQ(pa_of(va + 0x20), 0x100000100020ull);
  EXPECT_EQ(pa_of(va + 0x20, MMU_ACCESS_WRITE), 0x100000300020ull) << "another access: its own walk";
  mmu_translation t;
  ASSERT_EQ(gpu_mmu_translate(m, kPdb, va, MMU_ACCESS_READ, &t), MMU_FAULT_NONE);
  EXPECT_EQ(t.pa, 0x100000300000ull) << "the control side walks every time";
  EXPECT_EQ(counters().walks, 4u) << "a remembered walk counts as one";
  gpu_mmu_forget_walks(m);  // a kernel launch
  EXPECT_EQ(pa_of(va), 0x100000300000ull);
  map(0x100000400000ull);
  gh_mmio_write(h, GPU_REG_MMU_INVAL_PAGES, 0);
  gh_mmio_write(h, GPU_REG_MMU_INVALIDATE, GPU_FIELD_MASK(GPU_MMU_INVALIDATE_TRIGGER));
  EXPECT_EQ(pa_of(va), 0x100000400000ull);
  map(0x100000500000ull);
  gh_mmio_write(h, GPU_REG_MMU_REPLAY, GPU_FIELD_MASK(GPU_MMU_REPLAY_REPLAY));
  EXPECT_EQ(pa_of(va), 0x100000500000ull);
  // A fault is not remembered: the page made writable is writable at once.
  map(0x100000600000ull, MMU_PTE_RO);
  gpu_mmu_forget_walks(m);
  EXPECT_EQ(pa_of(va, MMU_ACCESS_WRITE), ~0ull - (uint64_t)MMU_FAULT_PROTECTION);
  map(0x100000600000ull);
  EXPECT_EQ(pa_of(va, MMU_ACCESS_WRITE), 0x100000600000ull);
  EXPECT_EQ(counters().walks, 9u);
}

}  // namespace
