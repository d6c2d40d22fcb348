// DriverVm* — the driver's page tables (sw/driver/drv_vm.c, docs/vm.md) on the model cores through
// the C harness: the default address space (device allocations at their own address in 2 MiB
// chunks, unmapped with their last allocation, TLBs invalidated), the tables the GPU's MMU walks in
// device memory matching the driver's shadow, further address spaces (4 KiB and 2 MiB pages,
// splitting a 2 MiB page, read-only and system-memory entries), channels translating through the
// address space bound to them (copies land where that space maps), the GPU's view of an unmapped
// address (DEVMEM_FAULT with the fault kind), the device malloc heap in every space, and every
// refused input.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "driver.h"
#include "gpu_harness.h"
#include "mmu.h"

namespace {

constexpr uint64_t kBig = 2ull << 20, kSmall = 4096;

class DriverVm : public ::testing::Test {
 protected:
  void open(const gpuctl_config *c = nullptr, uint64_t pt_bytes = 0) {
    h = gh_create(c);
    drv_config cfg{};
    cfg.page_table_bytes = pt_bytes;
    simtvp_diag_clear(&diag);
    ASSERT_EQ(drv_open(&h->bus, &cfg, &d, &diag), SIMTVP_OK) << diag.message;
  }
  void TearDown() override {
    if (d) drv_close(d);
    gh_destroy(h);
  }
  uint64_t alloc(uint64_t n) {
    uint64_t p = 0;
    EXPECT_EQ(drv_mem_alloc(d, n, &p, &diag), SIMTVP_OK) << diag.message;
    return p;
  }
  // What the GPU's MMU makes of va in address space v (it walks the tables in device memory).
  mmu_translation gpu_walk(const drv_vas *v, uint64_t va, mmu_access acc = MMU_ACCESS_READ) {
    mmu_translation t;
    gpu_mmu_translate(gpuctl_mmu(h->g), drv_vas_pdb(v), va, acc, &t);
    return t;
  }
  uint64_t invalidates() { return gpu_mmu_get_counters(gpuctl_mmu(h->g)).invalidates; }

  gpu_harness *h = nullptr;
  drv *d = nullptr;
  simtvp_diag diag;
};

TEST_F(DriverVm, EveryChannelTranslatesThroughTheDefaultAddressSpace) {
  open();
  uint64_t pdb = drv_vas_pdb(drv_default_vas(d));
  EXPECT_TRUE(mmu_pte_valid(pdb));
  for (uint32_t c = 0; c < 8; c++) {
    EXPECT_EQ(gh_mmio_read(h, GPU_CH_REG(c, GPU_REG_CH_PDB_LO)), (uint32_t)pdb) << c;
    EXPECT_EQ(gh_mmio_read(h, GPU_CH_REG(c, GPU_REG_CH_PDB_HI)), (uint32_t)(pdb >> 32)) << c;
    EXPECT_EQ(gpu_mmu_channel_pdb(gpuctl_mmu(h->g), c), pdb);
  }
  // The root table sits in the page-table pool at the top of device memory (63..64 MiB).
  EXPECT_GE(mmu_pte_addr(pdb), 0x100000000000ull + (63ull << 20));
}

TEST_F(DriverVm, AllocationIsMappedAtItsOwnAddressWithOneBigPagePerChunk) {
  open();
  uint64_t a = alloc(1000);
  uint64_t e;
  uint32_t bits;
  ASSERT_TRUE(drv_vas_lookup(drv_default_vas(d), a + 999, &e, &bits));
  EXPECT_EQ(bits, 21u);
  EXPECT_TRUE(e & MMU_PTE_PS);
  EXPECT_EQ(mmu_pte_addr(e), a & ~(kBig - 1));
  // The GPU reads the same from device memory: three entries (levels 3, 2, 1), pa == va.
  mmu_translation t = gpu_walk(drv_default_vas(d), a + 999, MMU_ACCESS_WRITE);
  ASSERT_EQ(t.fault, MMU_FAULT_NONE);
  EXPECT_EQ(t.pa, a + 999);
  EXPECT_EQ(t.page_bits, 21u);
  EXPECT_EQ(t.n_reads, 3u);
  // The rest of the chunk is mapped too (sub-allocations share it), the next chunk is not.
  EXPECT_EQ(gpu_walk(drv_default_vas(d), (a & ~(kBig - 1)) + kBig - 8).fault, MMU_FAULT_NONE);
  EXPECT_EQ(gpu_walk(drv_default_vas(d), (a & ~(kBig - 1)) + kBig).fault, MMU_FAULT_INVALID);
}

TEST_F(DriverVm, AllocationSpanningChunksMapsEachOfThem) {
  open();
  uint64_t a = alloc(5 * kBig);  // the first allocation starts at device memory's first chunk
  ASSERT_EQ(a & (kBig - 1), 0u);
  drv_vm_stats s;
  drv_vm_get_stats(d, &s);
  for (uint64_t off = 0; off < 5 * kBig; off += kBig)
    EXPECT_EQ(gpu_walk(drv_default_vas(d), a + off).fault, MMU_FAULT_NONE) << off;
  // Root, one level-2 and one level-1 table: three tables hold every mapping of the first 1 GiB.
  EXPECT_EQ(s.tables, 3u);
}

TEST_F(DriverVm, LastFreeInAChunkUnmapsItAndInvalidatesTheTlbs) {
  open();
  uint64_t a = alloc(256), b = alloc(256);
  ASSERT_EQ(a & ~(kBig - 1), b & ~(kBig - 1)) << "both in the first chunk";
  uint64_t inv0 = invalidates();
  ASSERT_EQ(drv_mem_free(d, a, &diag), SIMTVP_OK);
  EXPECT_EQ(gpu_walk(drv_default_vas(d), b).fault, MMU_FAULT_NONE) << "b still holds the chunk";
  EXPECT_EQ(invalidates(), inv0) << "nothing changed";
  ASSERT_EQ(drv_mem_free(d, b, &diag), SIMTVP_OK);
  mmu_translation t = gpu_walk(drv_default_vas(d), b);
  EXPECT_EQ(t.fault, MMU_FAULT_INVALID);
  EXPECT_EQ(t.level, 1u);
  EXPECT_EQ(invalidates(), inv0 + 1) << "one MMU_INVALIDATE for the chunk";
  // Its range: the chunk in the default address space.
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_MMU_INVAL_VA_LO), (uint32_t)(b & ~(kBig - 1)));
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_MMU_INVAL_PAGES), 512u);
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_MMU_INVAL_PDB_LO), (uint32_t)drv_vas_pdb(drv_default_vas(d)));
}

TEST_F(DriverVm, PageTablesAreNotReachableThroughAnyMapping) {
  open();
  (void)alloc(60ull << 20);  // (nearly) all of the allocator's range
  uint64_t root = mmu_pte_addr(drv_vas_pdb(drv_default_vas(d)));
  EXPECT_EQ(gpu_walk(drv_default_vas(d), root).fault, MMU_FAULT_INVALID);
}

TEST_F(DriverVm, MapUsesBigPagesWhereBothAddressesAllowAndSmallOnesElsewhere) {
  open();
  drv_vas *v;
  ASSERT_EQ(drv_vas_create(d, &v, &diag), SIMTVP_OK) << diag.message;
  uint64_t pa = alloc(8 * kBig);
  uint64_t pa_big = (pa + kBig - 1) & ~(kBig - 1);
  const uint64_t va = 0x200000000000ull;
  // 2 MiB + 8 KiB: one 2 MiB page, then two 4 KiB pages.
  ASSERT_EQ(drv_vas_map(d, v, va, pa_big, kBig + 2 * kSmall, 0, &diag), SIMTVP_OK) << diag.message;
  uint64_t e;
  uint32_t bits;
  ASSERT_TRUE(drv_vas_lookup(v, va + 5, &e, &bits));
  EXPECT_EQ(bits, 21u);
  ASSERT_TRUE(drv_vas_lookup(v, va + kBig + kSmall, &e, &bits));
  EXPECT_EQ(bits, 12u);
  EXPECT_EQ(mmu_pte_addr(e), pa_big + kBig + kSmall);
  EXPECT_FALSE(drv_vas_lookup(v, va + kBig + 2 * kSmall, &e, &bits));
  mmu_translation t = gpu_walk(v, va + kBig + kSmall + 12);
  ASSERT_EQ(t.fault, MMU_FAULT_NONE);
  EXPECT_EQ(t.pa, pa_big + kBig + kSmall + 12);
  EXPECT_EQ(t.n_reads, 4u);
  // Forced small pages: 512 entries for 2 MiB.
  ASSERT_EQ(drv_vas_map(d, v, va + 8 * kBig, pa_big, kBig, DRV_MAP_SMALL, &diag), SIMTVP_OK);
  ASSERT_TRUE(drv_vas_lookup(v, va + 8 * kBig + kBig - 1, &e, &bits));
  EXPECT_EQ(bits, 12u);
  // Misaligned physical address: small pages even for a whole 2 MiB.
  ASSERT_EQ(drv_vas_map(d, v, va + 16 * kBig, pa_big + kSmall, kBig, 0, &diag), SIMTVP_OK);
  ASSERT_TRUE(drv_vas_lookup(v, va + 16 * kBig, &e, &bits));
  EXPECT_EQ(bits, 12u);
  ASSERT_EQ(drv_vas_destroy(d, v, &diag), SIMTVP_OK);
}

TEST_F(DriverVm, UnmappingPartOfABigPageSplitsItIntoSmallPages) {
  open();
  drv_vas *v;
  ASSERT_EQ(drv_vas_create(d, &v, &diag), SIMTVP_OK);
  uint64_t pa = (alloc(3 * kBig) + kBig - 1) & ~(kBig - 1);
  const uint64_t va = 0x200000000000ull;
  ASSERT_EQ(drv_vas_map(d, v, va, pa, kBig, 0, &diag), SIMTVP_OK);
  uint64_t inv0 = invalidates();
  ASSERT_EQ(drv_vas_unmap(d, v, va + 7 * kSmall, kSmall, &diag), SIMTVP_OK);
  EXPECT_EQ(gpu_walk(v, va + 7 * kSmall).fault, MMU_FAULT_INVALID);
  mmu_translation t = gpu_walk(v, va + 8 * kSmall + 3);
  ASSERT_EQ(t.fault, MMU_FAULT_NONE);
  EXPECT_EQ(t.pa, pa + 8 * kSmall + 3);
  EXPECT_EQ(t.page_bits, 12u) << "the neighbours became 4 KiB pages";
  EXPECT_EQ(gpu_walk(v, va + 6 * kSmall).pa, pa + 6 * kSmall);
  EXPECT_EQ(invalidates(), inv0 + 1);
  // Unmapping the whole 2 MiB drops the level-0 table again.
  ASSERT_EQ(drv_vas_unmap(d, v, va, kBig, &diag), SIMTVP_OK);
  mmu_translation u = gpu_walk(v, va + 8 * kSmall);
  EXPECT_EQ(u.fault, MMU_FAULT_INVALID);
  EXPECT_EQ(u.level, 1u);
  ASSERT_EQ(drv_vas_destroy(d, v, &diag), SIMTVP_OK);
}

TEST_F(DriverVm, ReadOnlyAndSystemMemoryMappingsCarryTheirBits) {
  open();
  drv_vas *v;
  ASSERT_EQ(drv_vas_create(d, &v, &diag), SIMTVP_OK);
  uint64_t pa = alloc(kSmall);
  const uint64_t va = 0x200000000000ull;
  ASSERT_EQ(drv_vas_map(d, v, va, pa & ~(kSmall - 1), kSmall, DRV_MAP_RO, &diag), SIMTVP_OK);
  EXPECT_EQ(gpu_walk(v, va).fault, MMU_FAULT_NONE);
  EXPECT_EQ(gpu_walk(v, va, MMU_ACCESS_WRITE).fault, MMU_FAULT_PROTECTION);
  ASSERT_EQ(drv_vas_map(d, v, va + kSmall, 0x80000000ull, kSmall, DRV_MAP_SYSMEM | DRV_MAP_VOL, &diag), SIMTVP_OK);
  mmu_translation t = gpu_walk(v, va + kSmall + 4);
  ASSERT_EQ(t.fault, MMU_FAULT_NONE);
  EXPECT_EQ(t.aperture, (uint32_t)MMU_APERTURE_SYSMEM);
  EXPECT_EQ(t.pa, 0x80000004ull);
  EXPECT_TRUE(t.entry & MMU_PTE_VOL);
  ASSERT_EQ(drv_vas_destroy(d, v, &diag), SIMTVP_OK);
}

TEST_F(DriverVm, CopiesTranslateThroughTheAddressSpaceOfTheirChannel) {
  open();
  uint64_t pa1 = alloc(kSmall) & ~(kSmall - 1), pa2 = alloc(2 * kSmall);
  pa2 = (pa2 + kSmall - 1) & ~(kSmall - 1);
  ASSERT_NE(pa1, pa2);
  drv_vas *v1, *v2;
  ASSERT_EQ(drv_vas_create(d, &v1, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_vas_create(d, &v2, &diag), SIMTVP_OK);
  // The same virtual address, a different page in each space. The driver checks device ranges
  // against its allocations, so the shared virtual address is an allocation's (pa1's page).
  const uint64_t va = pa1;
  ASSERT_EQ(drv_vas_map(d, v1, va, pa1, kSmall, 0, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_vas_map(d, v2, va, pa2, kSmall, 0, &diag), SIMTVP_OK);
  drv_stream *s1, *s2;
  ASSERT_EQ(drv_stream_create(d, 0, 0, &s1, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_stream_create(d, 0, 0, &s2, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_stream_set_vas(d, s1, v1, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_stream_set_vas(d, s2, v2, &diag), SIMTVP_OK);
  uint32_t one = 0x11111111u, two = 0x22222222u;
  ASSERT_EQ(drv_memcpy(d, s1, drv_device_ptr(va), drv_host_ptr(&one), 4, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_memcpy(d, s2, drv_device_ptr(va), drv_host_ptr(&two), 4, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
  uint32_t got1, got2;
  memcpy(&got1, gh_dev_ptr(h, pa1), 4);
  memcpy(&got2, gh_dev_ptr(h, pa2), 4);
  EXPECT_EQ(got1, one);
  EXPECT_EQ(got2, two);
  EXPECT_EQ(drv_vas_destroy(d, v1, &diag), SIMTVP_ERR_STATE) << "s1's channel uses it";
  EXPECT_NE(std::string(diag.message).find("still translates through it"), std::string::npos) << diag.message;
  ASSERT_EQ(drv_stream_set_vas(d, s1, nullptr, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_stream_set_vas(d, s2, nullptr, &diag), SIMTVP_OK);
  EXPECT_EQ(drv_vas_destroy(d, v1, &diag), SIMTVP_OK);
  EXPECT_EQ(drv_vas_destroy(d, v2, &diag), SIMTVP_OK);
  drv_stream_destroy(d, s1, &diag);
  drv_stream_destroy(d, s2, &diag);
}

TEST_F(DriverVm, CopyToAnAddressItsSpaceDoesNotMapIsADevmemFaultNamingPageAndKind) {
  open();
  uint64_t a = alloc(64);
  drv_vas *empty;
  ASSERT_EQ(drv_vas_create(d, &empty, &diag), SIMTVP_OK);
  drv_stream *s;
  ASSERT_EQ(drv_stream_create(d, 0, 0, &s, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_stream_set_vas(d, s, empty, &diag), SIMTVP_OK);
  uint32_t v = 7;
  ASSERT_EQ(drv_memcpy(d, s, drv_device_ptr(a), drv_host_ptr(&v), 4, &diag), SIMTVP_OK);
  EXPECT_EQ(drv_stream_sync(d, s, &diag), SIMTVP_ERR_FAULT);
  std::string m = diag.message;
  EXPECT_NE(m.find("DEVMEM_FAULT"), std::string::npos) << m;
  EXPECT_NE(m.find("info 0x1"), std::string::npos) << "MMU_FAULT_INVALID: " << m;
  EXPECT_EQ(diag.address, a);
  drv_clear_error(d);
  ASSERT_EQ(drv_stream_set_vas(d, s, nullptr, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_vas_destroy(d, empty, &diag), SIMTVP_OK);
  drv_stream_destroy(d, s, &diag);
}

TEST_F(DriverVm, TheDeviceMallocHeapIsMappedInEveryAddressSpace) {
  gpuctl_config c;
  gh_default_config(&c);
  c.caps.heap_base = 0x100000000000ull + (64ull << 20) + (64u << 10);
  c.caps.heap_bytes = 1ull << 20;
  open(&c);
  drv_vas *v;
  ASSERT_EQ(drv_vas_create(d, &v, &diag), SIMTVP_OK);
  for (const drv_vas *s : {(const drv_vas *)drv_default_vas(d), (const drv_vas *)v}) {
    mmu_translation t = gpu_walk(s, c.caps.heap_base + 12345);
    ASSERT_EQ(t.fault, MMU_FAULT_NONE);
    EXPECT_EQ(t.pa, c.caps.heap_base + 12345);
    EXPECT_EQ(gpu_walk(s, c.caps.heap_base + c.caps.heap_bytes).fault, MMU_FAULT_INVALID);
  }
  ASSERT_EQ(drv_vas_destroy(d, v, &diag), SIMTVP_OK);
}

TEST_F(DriverVm, RunningOutOfPageTableMemoryIsALimitErrorNamingThePool) {
  open(nullptr, 4 * kSmall);  // four tables: the default space's root and three more
  drv_vas *v1, *v2;
  ASSERT_EQ(drv_vas_create(d, &v1, &diag), SIMTVP_OK);  // 2 of 4
  ASSERT_EQ(drv_vas_create(d, &v2, &diag), SIMTVP_OK);  // 3 of 4
  // The first allocation needs a level-2 and a level-1 table under the default root: one short.
  uint64_t a = 0;
  EXPECT_EQ(drv_mem_alloc(d, 256, &a, &diag), SIMTVP_ERR_LIMIT);
  EXPECT_NE(std::string(diag.message).find("out of page-table memory"), std::string::npos) << diag.message;
  uint64_t free_b, total;
  drv_mem_info(d, &free_b, &total);
  EXPECT_EQ(free_b, total) << "the allocation was undone";
  ASSERT_EQ(drv_vas_destroy(d, v2, &diag), SIMTVP_OK);
  EXPECT_EQ(drv_mem_alloc(d, 256, &a, &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(drv_vas_destroy(d, v1, &diag), SIMTVP_OK);
}

TEST_F(DriverVm, BadRangesAreRefusedNamingTheAddress) {
  open();
  drv_vas *v;
  ASSERT_EQ(drv_vas_create(d, &v, &diag), SIMTVP_OK);
  EXPECT_EQ(drv_vas_map(d, v, 0x200000000100ull, 0x100000000000ull, kSmall, 0, &diag), SIMTVP_ERR_ARG);
  EXPECT_EQ(diag.address, 0x200000000100ull);
  EXPECT_NE(std::string(diag.message).find("4 KiB aligned"), std::string::npos) << diag.message;
  EXPECT_EQ(drv_vas_map(d, v, 0x200000000000ull, 0x100000000000ull, 0, 0, &diag), SIMTVP_ERR_ARG);
  EXPECT_EQ(drv_vas_map(d, v, 0xFFFFFFFFF000ull, 0x100000000000ull, 2 * kSmall, 0, &diag), SIMTVP_ERR_ARG)
      << "past 2^48";
  EXPECT_EQ(drv_vas_unmap(d, v, 0x123, kSmall, &diag), SIMTVP_ERR_ARG);
  EXPECT_EQ(drv_vas_destroy(d, drv_default_vas(d), &diag), SIMTVP_ERR_ARG);
  ASSERT_EQ(drv_vas_destroy(d, v, &diag), SIMTVP_OK);
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_ERR_STATUS), 0u) << "every register access was legal";
}

TEST_F(DriverVm, TableWritesAreCopyEngineWorkOnThePagingChannel) {
  open();
  drv_vm_stats s0, s1;
  drv_vm_get_stats(d, &s0);
  // drv_open wrote the root table: one copy of 4096 bytes.
  EXPECT_EQ(s0.table_writes, 1u);
  EXPECT_EQ(s0.table_bytes, 4096u);
  (void)alloc(256);
  drv_vm_get_stats(d, &s1);
  // The first chunk: new level-2 and level-1 tables (4096 each) and one root entry (8 bytes).
  EXPECT_EQ(s1.table_writes - s0.table_writes, 3u);
  EXPECT_EQ(s1.table_bytes - s0.table_bytes, 2u * 4096u + 8u);
  EXPECT_EQ(s1.pte_writes - s0.pte_writes, 3u) << "root entry, level-2 entry, 2 MiB leaf";
  // The paging channel (the last of 8) did it; the default stream's channel is untouched.
  EXPECT_EQ(gh_mmio_read(h, GPU_CH_REG(7, GPU_REG_CH_PKT_COUNT)), 6u) << "4 copies, 2 fences";
  EXPECT_EQ(gh_mmio_read(h, GPU_CH_REG(0, GPU_REG_CH_PKT_COUNT)), 0u);
}

}  // namespace
