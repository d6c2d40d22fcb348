// The IOMMU of -system_mode shared_va (models/iommu/iommu.h). Timing rule: an IOTLB hit completes
// at now + tlb_hit_ps (3); a miss walks four levels, one read each (walk_level_ps 20): now + 3 +
// 4 × 20 = now + 83, and fills the IOTLB.
#include <gtest/gtest.h>

#include <vector>

extern "C" {
#include "iommu.h"
}

namespace {

class Iommu : public ::testing::Test {
 protected:
  void make(uint32_t sets = 4, uint32_t ways = 2) {
    if (io_) iommu_destroy(io_); /* a test that makes its own replaces SetUp's */
    io_ = nullptr;
    iommu_config c{};
    c.tlb_sets = sets;
    c.tlb_ways = ways;
    c.tlb_hit_ps = 3;
    c.walk_level_ps = 20;
    c.port = {this, &Iommu::page_request};
    simtvp_diag d;
    simtvp_diag_clear(&d);
    ASSERT_EQ(iommu_create(&c, &io_, &d), SIMTVP_OK) << d.message;
  }
  void SetUp() override { make(); }
  void TearDown() override { iommu_destroy(io_); }
  // The OS: pages below 0x10000000 exist; those below 0x1000000 are writable.
  static bool page_request(void *ctx, iommu *io, uint64_t va, bool write) {
    auto *t = static_cast<Iommu *>(ctx);
    t->requests_.push_back(va);
    if (va >= 0x10000000) return false;
    bool writable = va < 0x1000000;
    if (write && !writable) return false;
    return iommu_map(io, va & ~0xFFFull, 0x1000000000000000ull + (va & ~0xFFFull), writable) == SIMTVP_OK;
  }
  iommu_stats stats() const {
    iommu_stats s;
    iommu_get_stats(io_, &s);
    return s;
  }
  iommu *io_ = nullptr;
  std::vector<uint64_t> requests_;
};

TEST_F(Iommu, AFirstTouchIsAPageRequestThenThePageTranslates) {
  uint64_t bus = 0;
  EXPECT_EQ(iommu_resolve(io_, 0x123456, false, &bus), IOMMU_OK);
  EXPECT_EQ(bus, 0x1000000000123456ull);
  ASSERT_EQ(requests_.size(), 1u);
  EXPECT_EQ(iommu_resolve(io_, 0x123FF0, true, &bus), IOMMU_OK);  // same page: no request
  EXPECT_EQ(requests_.size(), 1u);
  iommu_stats s = stats();
  EXPECT_EQ(s.page_requests, 1u);
  EXPECT_EQ(s.pages_mapped, 1u);
  EXPECT_EQ(s.faults, 0u);
}

TEST_F(Iommu, AnIotlbMissWalksFourLevelsAHitCostsTheLookup) {
  uint64_t bus = 0, done = 0;
  ASSERT_EQ(iommu_resolve(io_, 0x5000, false, &bus), IOMMU_OK);
  EXPECT_EQ(iommu_translate(io_, 0x5010, false, 1000, &bus, &done), IOMMU_OK);
  EXPECT_EQ(done, 1083u);  // 1000 + 3 + 4 x 20
  EXPECT_EQ(bus, 0x1000000000005010ull);
  EXPECT_EQ(iommu_translate(io_, 0x5FFC, true, 2000, &bus, &done), IOMMU_OK);
  EXPECT_EQ(done, 2003u);  // IOTLB hit
  iommu_stats s = stats();
  EXPECT_EQ(s.iotlb_hits, 1u);
  EXPECT_EQ(s.iotlb_misses, 1u);
  EXPECT_EQ(s.walks, 1u);
  EXPECT_EQ(s.walk_ps, 80u);
}

TEST_F(Iommu, TheIotlbEvictsItsLeastRecentlyUsedEntry) {
  make(1, 2);  // one set, two entries
  uint64_t bus, done;
  for (uint64_t p : {0x1000ull, 0x2000ull, 0x3000ull}) ASSERT_EQ(iommu_resolve(io_, p, false, &bus), IOMMU_OK);
  iommu_translate(io_, 0x1000, false, 0, &bus, &done);  // miss
  iommu_translate(io_, 0x2000, false, 0, &bus, &done);  // miss
  iommu_translate(io_, 0x1000, false, 0, &bus, &done);  // hit: 0x2000 is now LRU
  iommu_translate(io_, 0x3000, false, 0, &bus, &done);  // miss, evicts 0x2000
  iommu_translate(io_, 0x1000, false, 0, &bus, &done);  // hit
  iommu_translate(io_, 0x2000, false, 0, &bus, &done);  // miss
  EXPECT_EQ(stats().iotlb_hits, 2u);
  EXPECT_EQ(stats().iotlb_misses, 4u);
}

TEST_F(Iommu, UnmappedAndReadOnlyPagesFault) {
  uint64_t bus = 0, done = 0;
  EXPECT_EQ(iommu_resolve(io_, 0x20000000, false, &bus), IOMMU_NOT_PRESENT);  // the OS refuses
  EXPECT_EQ(iommu_resolve(io_, 0x2000000, false, &bus), IOMMU_OK);          // read-only page
  EXPECT_EQ(iommu_resolve(io_, 0x2000000, true, &bus), IOMMU_READ_ONLY);
  EXPECT_EQ(iommu_translate(io_, 0x2000000, true, 0, &bus, &done), IOMMU_READ_ONLY);
  EXPECT_EQ(iommu_resolve(io_, 1ull << 48, false, &bus), IOMMU_OUT_OF_RANGE);
  EXPECT_EQ(stats().faults, 4u);
  EXPECT_STREQ(iommu_fault_name(IOMMU_NOT_PRESENT), "not present");
}

TEST_F(Iommu, UnmapRemovesThePageAndItsIotlbEntry) {
  uint64_t bus = 0, done = 0;
  ASSERT_EQ(iommu_resolve(io_, 0x7000, false, &bus), IOMMU_OK);
  iommu_translate(io_, 0x7000, false, 0, &bus, &done);
  iommu_unmap(io_, 0x7000, 4096);
  EXPECT_EQ(stats().pages_mapped, 0u);
  EXPECT_EQ(iommu_translate(io_, 0x7000, false, 0, &bus, &done), IOMMU_NOT_PRESENT);  // walks, finds nothing
  EXPECT_EQ(stats().iotlb_misses, 2u);
}

TEST_F(Iommu, ClearDropsEveryMapping) {
  uint64_t bus = 0, done = 0;
  for (uint64_t p : {0x1000ull, 0x400000ull, 0x80000000ull & 0xFFFFFFull}) ASSERT_EQ(iommu_resolve(io_, p, false, &bus), IOMMU_OK);
  iommu_translate(io_, 0x1000, false, 0, &bus, &done);
  iommu_clear(io_);
  EXPECT_EQ(stats().pages_mapped, 0u);
  EXPECT_EQ(iommu_lookup(io_, 0x1000, false, &bus), IOMMU_NOT_PRESENT);
  EXPECT_EQ(iommu_resolve(io_, 0x1000, false, &bus), IOMMU_OK);  // a new page request
  EXPECT_EQ(requests_.size(), 4u);
}

TEST(IommuConfig, BadIotlbNamesTheOption) {
  iommu_config c{};
  c.tlb_sets = 4;
  c.tlb_ways = 0;
  iommu *io = nullptr;
  simtvp_diag d;
  simtvp_diag_clear(&d);
  EXPECT_EQ(iommu_create(&c, &io, &d), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(d.option, "-iommu_tlb_ways");
}

}  // namespace
