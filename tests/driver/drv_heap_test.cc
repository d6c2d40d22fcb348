// Device-memory allocator: alignment, reuse, merging of free neighbours, fragmentation, OOM.
#include <gtest/gtest.h>

#include "drv_heap.h"

namespace {

constexpr uint64_t kBase = 0x100000000000ull;

TEST(DrvHeap, BlocksAre256ByteAlignedAndZeroSizeTakesOneUnit) {
  drv_heap *h = drv_heap_create(kBase, 1 << 20, 256);
  uint64_t a, b, c;
  ASSERT_TRUE(drv_heap_alloc(h, 1, &a));
  ASSERT_TRUE(drv_heap_alloc(h, 0, &b));
  ASSERT_TRUE(drv_heap_alloc(h, 300, &c));
  EXPECT_EQ(a % 256, 0u);
  EXPECT_EQ(b, a + 256);
  EXPECT_EQ(c, b + 256);
  EXPECT_EQ(drv_heap_free_bytes(h), (1u << 20) - 256 - 256 - 512);
  drv_heap_destroy(h);
}

TEST(DrvHeap, LookupFindsTheBlockContainingAnAddressButNotItsPadding) {
  drv_heap *h = drv_heap_create(kBase, 1 << 20, 256);
  uint64_t a, base, size;
  ASSERT_TRUE(drv_heap_alloc(h, 100, &a));
  ASSERT_TRUE(drv_heap_lookup(h, a + 99, &base, &size));
  EXPECT_EQ(base, a);
  EXPECT_EQ(size, 100u);
  EXPECT_FALSE(drv_heap_lookup(h, a + 100, nullptr, nullptr));
  EXPECT_FALSE(drv_heap_lookup(h, kBase - 1, nullptr, nullptr));
  drv_heap_destroy(h);
}

TEST(DrvHeap, FreedNeighboursMergeSoALargeBlockFitsAgain) {
  drv_heap *h = drv_heap_create(kBase, 4096, 256);
  uint64_t a[16], big;
  for (auto &x : a) ASSERT_TRUE(drv_heap_alloc(h, 256, &x));
  EXPECT_FALSE(drv_heap_alloc(h, 1, &big));
  // Free every other block: 2 KiB free in 8 holes of 256 B — fragmented.
  for (int i = 0; i < 16; i += 2) ASSERT_TRUE(drv_heap_free(h, a[i]));
  EXPECT_EQ(drv_heap_free_bytes(h), 2048u);
  EXPECT_EQ(drv_heap_free_blocks(h), 8u);
  EXPECT_EQ(drv_heap_largest_free(h), 256u);
  EXPECT_FALSE(drv_heap_alloc(h, 512, &big)) << "fragmented: no 512-byte hole";
  // Free the rest: everything merges into one segment.
  for (int i = 1; i < 16; i += 2) ASSERT_TRUE(drv_heap_free(h, a[i]));
  EXPECT_EQ(drv_heap_free_blocks(h), 1u);
  EXPECT_EQ(drv_heap_largest_free(h), 4096u);
  ASSERT_TRUE(drv_heap_alloc(h, 4096, &big));
  EXPECT_EQ(big, kBase);
  drv_heap_destroy(h);
}

TEST(DrvHeap, BestFitPrefersTheSmallestHoleThatFits) {
  drv_heap *h = drv_heap_create(kBase, 8192, 256);
  uint64_t a, b, c, d, x;
  ASSERT_TRUE(drv_heap_alloc(h, 1024, &a));
  ASSERT_TRUE(drv_heap_alloc(h, 256, &b));
  ASSERT_TRUE(drv_heap_alloc(h, 512, &c));
  ASSERT_TRUE(drv_heap_alloc(h, 256, &d));
  drv_heap_free(h, a);  // 1024 hole
  drv_heap_free(h, c);  // 512 hole
  ASSERT_TRUE(drv_heap_alloc(h, 400, &x));
  EXPECT_EQ(x, c);
  drv_heap_destroy(h);
}

TEST(DrvHeap, FreeingSomethingThatIsNotABlockStartChangesNothing) {
  drv_heap *h = drv_heap_create(kBase, 4096, 256);
  uint64_t a;
  ASSERT_TRUE(drv_heap_alloc(h, 512, &a));
  EXPECT_FALSE(drv_heap_free(h, a + 256));
  EXPECT_FALSE(drv_heap_free(h, kBase + 2048));
  EXPECT_TRUE(drv_heap_free(h, a));
  EXPECT_FALSE(drv_heap_free(h, a)) << "double free";
  EXPECT_EQ(drv_heap_free_bytes(h), 4096u);
  drv_heap_destroy(h);
}

TEST(DrvHeap, HugeRequestsFailCleanly) {
  drv_heap *h = drv_heap_create(kBase, 4096, 256);
  uint64_t a;
  EXPECT_FALSE(drv_heap_alloc(h, UINT64_MAX, &a));
  EXPECT_FALSE(drv_heap_alloc(h, 4097, &a));
  drv_heap_destroy(h);
}

}  // namespace
