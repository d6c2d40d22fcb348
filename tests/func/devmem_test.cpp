// Tests of the device-memory store (models/func/devmem.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "devmem.h"

namespace {

struct Mem {
  devmem *dm = devmem_create();
  ~Mem() { devmem_destroy(dm); }
};

TEST(Devmem, MappedMemoryReadsZeroAndKeepsWrites) {
  Mem m;
  simtvp_diag d{};
  ASSERT_EQ(devmem_map(m.dm, 0x10000, 3 * 4096, &d), SIMTVP_OK);
  uint32_t v = 123;
  ASSERT_EQ(devmem_read(m.dm, 0x10000 + 4, &v, 4, &d), SIMTVP_OK);
  EXPECT_EQ(v, 0u);
  std::vector<uint8_t> buf(9000);
  for (size_t i = 0; i < buf.size(); i++) buf[i] = (uint8_t)(i * 7);
  ASSERT_EQ(devmem_write(m.dm, 0x10000 + 100, buf.data(), buf.size(), &d), SIMTVP_OK);
  std::vector<uint8_t> back(buf.size());
  ASSERT_EQ(devmem_read(m.dm, 0x10000 + 100, back.data(), back.size(), &d), SIMTVP_OK);
  EXPECT_EQ(buf, back);
  EXPECT_EQ(devmem_mapped_bytes(m.dm), 3u * 4096);
}

// The reverse lookup of coherence invalidations (docs/system-modes.md §2.2): every GPU address
// whose external mapping reaches a bus address.
TEST(Devmem, AddressesOfABusAddressAreEveryExternalMappingOfIt) {
  Mem m;
  simtvp_diag d{};
  std::vector<uint8_t> host(2 * 4096, 0);
  ASSERT_EQ(devmem_map_external(m.dm, 0x7f0000001000ull, host.size(), host.data(), 0x100042000ull,
                                DEVMEM_APERTURE_SYSMEM, &d), SIMTVP_OK);
  ASSERT_EQ(devmem_map_external(m.dm, 0x500000000000ull, host.size(), host.data(), 0x100042000ull,
                                DEVMEM_APERTURE_SYSMEM, &d), SIMTVP_OK);
  std::vector<uint64_t> got;
  auto collect = [](void *ctx, uint64_t a) { static_cast<std::vector<uint64_t> *>(ctx)->push_back(a); };
  EXPECT_EQ(devmem_addrs_of_bus(m.dm, 0x100043010ull, collect, &got), 2u);
  std::sort(got.begin(), got.end());
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], 0x500000001010ull);
  EXPECT_EQ(got[1], 0x7f0000002010ull);
  got.clear();
  EXPECT_EQ(devmem_addrs_of_bus(m.dm, 0x100044000ull, collect, &got), 0u);  // past the mappings
}

// External mappings (system memory the GPU reaches over the bus): the store reads and writes the
// caller's memory and tells the timing side where each address lies on the bus.
TEST(Devmem, ExternalMappingReadsAndWritesTheCallersMemory) {
  Mem m;
  simtvp_diag d{};
  std::vector<uint8_t> host(3 * 4096, 0x5a);
  EXPECT_FALSE(devmem_has_external(m.dm));
  ASSERT_EQ(devmem_map_external(m.dm, 0x7f0000001000ull, host.size(), host.data(), 0x100042000ull,
                                DEVMEM_APERTURE_SYSMEM, &d),
            SIMTVP_OK);
  EXPECT_TRUE(devmem_has_external(m.dm));
  uint32_t v = 0;
  ASSERT_EQ(devmem_read(m.dm, 0x7f0000001000ull + 8, &v, 4, &d), SIMTVP_OK);
  EXPECT_EQ(v, 0x5a5a5a5au);
  v = 0x11223344;
  ASSERT_EQ(devmem_write(m.dm, 0x7f0000002ffcull, &v, 4, &d), SIMTVP_OK);
  uint32_t in_host;
  std::memcpy(&in_host, host.data() + 0x1ffc, 4);
  EXPECT_EQ(in_host, 0x11223344u);  // the caller's memory itself
  uint64_t bus = 0;
  uint8_t ap = 9;
  ASSERT_TRUE(devmem_bus_addr(m.dm, 0x7f0000002ffcull, &bus, &ap));
  EXPECT_EQ(bus, 0x100043ffcull);
  EXPECT_EQ(ap, DEVMEM_APERTURE_SYSMEM);
  EXPECT_FALSE(devmem_bus_addr(m.dm, 0x7f0000004000ull, &bus, &ap));  // past the end
  // Part of it unmapped: the rest keeps its bus addresses; the caller's memory is not freed.
  devmem_unmap(m.dm, 0x7f0000001000ull, 4096);
  ASSERT_TRUE(devmem_bus_addr(m.dm, 0x7f0000003010ull, &bus, nullptr));
  EXPECT_EQ(bus, 0x100044010ull);
  EXPECT_FALSE(devmem_is_mapped(m.dm, 0x7f0000001000ull, 1));
  devmem_unmap(m.dm, 0x7f0000002000ull, 2 * 4096);
  EXPECT_FALSE(devmem_has_external(m.dm));
  EXPECT_EQ(host[0], 0x5a);
}

TEST(Devmem, OwnMemoryHasNoBusAddress) {
  Mem m;
  simtvp_diag d{};
  ASSERT_EQ(devmem_map(m.dm, 0x10000, 4096, &d), SIMTVP_OK);
  std::vector<uint8_t> host(4096);
  ASSERT_EQ(devmem_map_external(m.dm, 0x20000, 4096, host.data(), 0x9000, DEVMEM_APERTURE_VIDMEM, &d), SIMTVP_OK);
  uint64_t bus = 0;
  uint8_t ap = 9;
  EXPECT_FALSE(devmem_bus_addr(m.dm, 0x10010, &bus, &ap));
  ASSERT_TRUE(devmem_bus_addr(m.dm, 0x20010, &bus, &ap));  // a carve-out: the GPU's own memory
  EXPECT_EQ(bus, 0x9010u);
  EXPECT_EQ(ap, DEVMEM_APERTURE_VIDMEM);
}

TEST(Devmem, ExternalMappingMustBeWholeFreePages) {
  Mem m;
  simtvp_diag d{};
  std::vector<uint8_t> host(8192);
  EXPECT_EQ(devmem_map_external(m.dm, 0x1100, 4096, host.data(), 0, DEVMEM_APERTURE_SYSMEM, &d), SIMTVP_ERR_ARG);
  EXPECT_EQ(devmem_map_external(m.dm, 0x1000, 100, host.data(), 0, DEVMEM_APERTURE_SYSMEM, &d), SIMTVP_ERR_ARG);
  ASSERT_EQ(devmem_map(m.dm, 0x2000, 4096, &d), SIMTVP_OK);
  EXPECT_EQ(devmem_map_external(m.dm, 0x1000, 8192, host.data(), 0, DEVMEM_APERTURE_SYSMEM, &d), SIMTVP_ERR_ARG);
  EXPECT_EQ(d.address, 0x2000u);  // the page already mapped
  EXPECT_EQ(devmem_map_external(m.dm, 0x1000, 4096, nullptr, 0, DEVMEM_APERTURE_SYSMEM, &d), SIMTVP_ERR_ARG);
}

TEST(Devmem, UnmappedAccessIsReportedWithItsAddress) {
  Mem m;
  simtvp_diag d{};
  ASSERT_EQ(devmem_map(m.dm, 0x20000, 4096, &d), SIMTVP_OK);
  uint8_t b[8];
  EXPECT_EQ(devmem_read(m.dm, 0x20000 + 4092, b, 8, &d), SIMTVP_ERR_FAULT);
  EXPECT_TRUE(d.where & SIMTVP_WHERE_ADDRESS);
  EXPECT_EQ(d.address, 0x21000u);
  EXPECT_EQ(devmem_write(m.dm, 0x1ff00, b, 1, &d), SIMTVP_ERR_FAULT);
  EXPECT_EQ(d.address, 0x1ff00u);
}

TEST(Devmem, OverlappingMapIsRejected) {
  Mem m;
  simtvp_diag d{};
  ASSERT_EQ(devmem_map(m.dm, 0x40000, 8192, &d), SIMTVP_OK);
  EXPECT_EQ(devmem_map(m.dm, 0x41000, 4096, &d), SIMTVP_ERR_ARG);
  EXPECT_NE(std::strstr(d.message, "already mapped"), nullptr);
}

TEST(Devmem, UnmapMakesPagesFaultAndInvalidatesTranslationCaches) {
  Mem m;
  simtvp_diag d{};
  ASSERT_EQ(devmem_map(m.dm, 0x50000, 2 * 4096, &d), SIMTVP_OK);
  devmem_tlb tlb;
  devmem_tlb_init(&tlb, m.dm);
  EXPECT_NE(devmem_tlb_translate(&tlb, 0x51008), nullptr);
  devmem_unmap(m.dm, 0x51000, 4096);
  devmem_tlb_sync(&tlb);
  EXPECT_EQ(devmem_tlb_translate(&tlb, 0x51008), nullptr);
  EXPECT_NE(devmem_tlb_translate(&tlb, 0x50008), nullptr);
  EXPECT_FALSE(devmem_is_mapped(m.dm, 0x50000, 2 * 4096));
  EXPECT_TRUE(devmem_is_mapped(m.dm, 0x50000, 4096));
}

TEST(Devmem, SpanIsContiguousOnlyInsideOneMapping) {
  Mem m;
  simtvp_diag d{};
  ASSERT_EQ(devmem_map(m.dm, 0x60000, 4 * 4096, &d), SIMTVP_OK);
  ASSERT_EQ(devmem_map(m.dm, 0x64000, 4096, &d), SIMTVP_OK);
  EXPECT_NE(devmem_span(m.dm, 0x60010, 4 * 4096 - 0x10), nullptr);
  EXPECT_EQ(devmem_span(m.dm, 0x63000, 2 * 4096), nullptr);
}

TEST(Devmem, ManyPagesSurviveTableGrowthAndRemoval) {
  Mem m;
  simtvp_diag d{};
  for (uint64_t i = 0; i < 3000; i++) ASSERT_EQ(devmem_map(m.dm, (i * 2) << 12, 4096, &d), SIMTVP_OK);
  for (uint64_t i = 0; i < 3000; i++) {
    uint64_t v = i;
    ASSERT_EQ(devmem_write(m.dm, (i * 2) << 12, &v, 8, &d), SIMTVP_OK);
  }
  for (uint64_t i = 0; i < 3000; i += 2) devmem_unmap(m.dm, (i * 2) << 12, 4096);
  for (uint64_t i = 0; i < 3000; i++) {
    uint64_t v = 0;
    simtvp_status st = devmem_read(m.dm, (i * 2) << 12, &v, 8, &d);
    if (i % 2 == 0) {
      EXPECT_EQ(st, SIMTVP_ERR_FAULT);
    } else {
      ASSERT_EQ(st, SIMTVP_OK);
      EXPECT_EQ(v, i);
    }
  }
}

// The platform maps all of device memory at once: a 32 GiB mapping is one segment, and only the
// pages written take host memory (calloc of that size is lazily zero-filled by the host OS).
TEST(Devmem, HugeMappingIsOneRangeReadableAtBothEnds) {
  Mem m;
  simtvp_diag d{};
  const uint64_t base = 0x100000000000ull, bytes = 32ull << 30;
  ASSERT_EQ(devmem_map(m.dm, base, bytes, &d), SIMTVP_OK) << d.message;
  EXPECT_EQ(devmem_mapped_bytes(m.dm), bytes);
  uint64_t v = 0x1122334455667788ull, r = 0;
  ASSERT_EQ(devmem_write(m.dm, base + bytes - 8, &v, 8, &d), SIMTVP_OK);
  ASSERT_EQ(devmem_read(m.dm, base + bytes - 8, &r, 8, &d), SIMTVP_OK);
  EXPECT_EQ(r, v);
  EXPECT_TRUE(devmem_is_mapped(m.dm, base, bytes));
  EXPECT_FALSE(devmem_is_mapped(m.dm, base, bytes + 1));
  EXPECT_EQ(devmem_read(m.dm, base + bytes - 4, &r, 8, &d), SIMTVP_ERR_FAULT);
  EXPECT_EQ(d.address, base + bytes);  // the first byte past the mapping
}

// Unmapping the middle of a mapping splits it: both sides keep their data, the hole faults and
// can be mapped again, and no span or copy crosses the hole.
TEST(Devmem, UnmappingTheMiddleSplitsTheMappingAndTheHoleCanBeRemapped) {
  Mem m;
  simtvp_diag d{};
  ASSERT_EQ(devmem_map(m.dm, 0x200000, 8 * 4096, &d), SIMTVP_OK);
  for (uint32_t p = 0; p < 8; p++) {
    uint32_t v = 100 + p;
    ASSERT_EQ(devmem_write(m.dm, 0x200000 + p * 4096 + 12, &v, 4, &d), SIMTVP_OK);
  }
  devmem_unmap(m.dm, 0x203000, 2 * 4096);  // pages 3 and 4
  EXPECT_EQ(devmem_mapped_bytes(m.dm), 6u * 4096);
  for (uint32_t p = 0; p < 8; p++) {
    uint32_t v = 0;
    simtvp_status st = devmem_read(m.dm, 0x200000 + p * 4096 + 12, &v, 4, &d);
    if (p == 3 || p == 4) {
      EXPECT_EQ(st, SIMTVP_ERR_FAULT) << p;
    } else {
      ASSERT_EQ(st, SIMTVP_OK) << p;
      EXPECT_EQ(v, 100 + p);
    }
  }
  EXPECT_EQ(devmem_span(m.dm, 0x202000, 2 * 4096), nullptr);
  EXPECT_NE(devmem_span(m.dm, 0x205000, 3 * 4096), nullptr);
  uint8_t buf[8 * 4096];
  EXPECT_EQ(devmem_read(m.dm, 0x200000, buf, sizeof buf, &d), SIMTVP_ERR_FAULT);
  EXPECT_EQ(d.address, 0x203000u);
  ASSERT_EQ(devmem_map(m.dm, 0x203000, 2 * 4096, &d), SIMTVP_OK) << d.message;
  EXPECT_TRUE(devmem_is_mapped(m.dm, 0x200000, 8 * 4096));
  uint32_t v = 1;
  ASSERT_EQ(devmem_read(m.dm, 0x203000 + 12, &v, 4, &d), SIMTVP_OK);
  EXPECT_EQ(v, 0u);  // a new mapping reads zero
  ASSERT_EQ(devmem_read(m.dm, 0x200000, buf, sizeof buf, &d), SIMTVP_OK);  // across three mappings
  uint32_t last;
  std::memcpy(&last, buf + 7 * 4096 + 12, 4);
  EXPECT_EQ(last, 107u);
  EXPECT_EQ(devmem_map(m.dm, 0x204800, 100, &d), SIMTVP_ERR_ARG);  // overlaps the remapped hole
  EXPECT_EQ(d.address, 0x204000u);
}

TEST(Devmem, CopyHandlesOverlapInBothDirections) {
  Mem m;
  simtvp_diag d{};
  ASSERT_EQ(devmem_map(m.dm, 0x80000, 4 * 4096, &d), SIMTVP_OK);
  std::vector<uint8_t> a(10000);
  for (size_t i = 0; i < a.size(); i++) a[i] = (uint8_t)(i * 13 + 1);
  ASSERT_EQ(devmem_write(m.dm, 0x80000, a.data(), a.size(), &d), SIMTVP_OK);
  ASSERT_EQ(devmem_copy(m.dm, 0x80000 + 100, 0x80000, 5000, &d), SIMTVP_OK);
  std::vector<uint8_t> b(5000);
  ASSERT_EQ(devmem_read(m.dm, 0x80000 + 100, b.data(), b.size(), &d), SIMTVP_OK);
  EXPECT_TRUE(std::equal(b.begin(), b.end(), a.begin()));
}

// ---- live blocks (the device-memory map the driver declares through MEMMAP_OP) ----------------

TEST(DevmemBlocks, AddingABlockMapsTheFreshPagesItTouches) {
  Mem m;
  simtvp_diag d{};
  ASSERT_EQ(devmem_block_add(m.dm, 0x10100, 0x2000, 7, 0, &d), SIMTVP_OK) << d.message;
  EXPECT_TRUE(devmem_is_mapped(m.dm, 0x10000, 0x3000)) << "pages 0x10000..0x12fff";
  EXPECT_FALSE(devmem_is_mapped(m.dm, 0x13000, 1));
  EXPECT_EQ(devmem_mapped_bytes(m.dm), 0x3000u);
  // a neighbour in the same last page: only its new page is mapped
  ASSERT_EQ(devmem_block_add(m.dm, 0x12100, 0x1000, 0, 0, &d), SIMTVP_OK) << d.message;
  EXPECT_EQ(devmem_mapped_bytes(m.dm), 0x4000u);
  const devmem_block *b = devmem_block_at(m.dm, 0x12000);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->addr, 0x10100u);
  EXPECT_EQ(b->tag, 7u);
  EXPECT_EQ(b->serial, 1u);
  EXPECT_EQ(devmem_block_at(m.dm, 0x12100)->serial, 2u);
  EXPECT_EQ(devmem_block_at(m.dm, 0x120ff)->addr, 0x10100u);
  EXPECT_EQ(devmem_block_at(m.dm, 0x13100), nullptr) << "past the second block";
  EXPECT_EQ(devmem_block_at(m.dm, 0x100ff), nullptr) << "before the first";
}

TEST(DevmemBlocks, OverlappingBlocksAreRefused) {
  Mem m;
  simtvp_diag d{};
  ASSERT_EQ(devmem_block_add(m.dm, 0x10000, 0x100, 0, 0, &d), SIMTVP_OK);
  EXPECT_EQ(devmem_block_add(m.dm, 0x100ff, 0x10, 0, 0, &d), SIMTVP_ERR_ARG);
  EXPECT_NE(std::strstr(d.message, "overlaps the live block 0x10000+0x100"), nullptr) << d.message;
  EXPECT_EQ(devmem_block_add(m.dm, 0x10000, 0, 0, 0, &d), SIMTVP_ERR_ARG) << "same start";
  EXPECT_EQ(devmem_block_add(m.dm, 0xff00, 0x101, 0, 0, &d), SIMTVP_ERR_ARG);
  EXPECT_EQ(devmem_block_add(m.dm, 0xff00, 0x100, 0, 0, &d), SIMTVP_OK) << "touching is fine";
  EXPECT_FALSE(devmem_block_remove(m.dm, 0x10010, true)) << "not the start of a block";
}

TEST(DevmemBlocks, RemovingUnmapsOnlyThePagesNoOtherBlockTouches) {
  Mem m;
  simtvp_diag d{};
  ASSERT_EQ(devmem_block_add(m.dm, 0x10000, 0x100, 0, 0, &d), SIMTVP_OK);   // page 0x10
  ASSERT_EQ(devmem_block_add(m.dm, 0x10100, 0x4000, 0, 0, &d), SIMTVP_OK);  // pages 0x10..0x14
  ASSERT_EQ(devmem_block_add(m.dm, 0x14100, 0x100, 0, 0, &d), SIMTVP_OK);   // page 0x14
  ASSERT_TRUE(devmem_block_remove(m.dm, 0x10100, true));
  EXPECT_TRUE(devmem_is_mapped(m.dm, 0x10000, 0x1000)) << "shared with the first block";
  EXPECT_TRUE(devmem_is_mapped(m.dm, 0x14000, 0x1000)) << "shared with the third block";
  EXPECT_FALSE(devmem_is_mapped(m.dm, 0x11000, 1));
  EXPECT_FALSE(devmem_is_mapped(m.dm, 0x13fff, 1));
  EXPECT_EQ(devmem_mapped_bytes(m.dm), 0x2000u);
  ASSERT_TRUE(devmem_block_remove(m.dm, 0x10000, true));
  EXPECT_FALSE(devmem_is_mapped(m.dm, 0x10000, 1));
  ASSERT_TRUE(devmem_block_remove(m.dm, 0x14100, false)) << "without unmapping";
  EXPECT_TRUE(devmem_is_mapped(m.dm, 0x14000, 0x1000));
}

TEST(DevmemBlocks, FreedBlocksAreRememberedNewestFirst) {
  Mem m;
  simtvp_diag d{};
  ASSERT_EQ(devmem_block_add(m.dm, 0x10000, 0x1000, 1, 0, &d), SIMTVP_OK);
  ASSERT_TRUE(devmem_block_remove(m.dm, 0x10000, true));
  ASSERT_EQ(devmem_block_add(m.dm, 0x10000, 0x800, 2, 0, &d), SIMTVP_OK);
  ASSERT_TRUE(devmem_block_remove(m.dm, 0x10000, true));
  devmem_block f;
  ASSERT_TRUE(devmem_block_freed(m.dm, 0x10010, &f));
  EXPECT_EQ(f.tag, 2u) << "the newest block that held the address";
  ASSERT_TRUE(devmem_block_freed(m.dm, 0x10900, &f));
  EXPECT_EQ(f.tag, 1u);
  EXPECT_FALSE(devmem_block_freed(m.dm, 0x11000, &f));
}

TEST(DevmemBlocks, NearestBlocksSkipTheOneHoldingTheAddressAndTheFlagsAsked) {
  Mem m;
  simtvp_diag d{};
  ASSERT_EQ(devmem_block_add(m.dm, 0x10000, 0x100, 0, 0, &d), SIMTVP_OK);
  ASSERT_EQ(devmem_block_add(m.dm, 0x20000, 0x100, 0, DEVMEM_BLOCK_INTERNAL | DEVMEM_BLOCK_CODE, &d), SIMTVP_OK);
  ASSERT_EQ(devmem_block_add(m.dm, 0x30000, 0x100, 0, 0, &d), SIMTVP_OK);
  const devmem_block *below, *above;
  devmem_block_near(m.dm, 0x20010, 0, &below, &above);
  EXPECT_EQ(below->addr, 0x10000u);
  EXPECT_EQ(above->addr, 0x30000u);
  devmem_block_near(m.dm, 0x10200, DEVMEM_BLOCK_INTERNAL, &below, &above);
  EXPECT_EQ(below->addr, 0x10000u);
  EXPECT_EQ(above->addr, 0x30000u) << "the driver's block is skipped";
  EXPECT_EQ(devmem_block_at(m.dm, 0x20000)->serial, 0u) << "internal blocks are not numbered";
  EXPECT_EQ(devmem_block_at(m.dm, 0x30000)->serial, 2u);
  uint32_t n;
  devmem_blocks(m.dm, &n);
  EXPECT_EQ(n, 3u);
}

}  // namespace
