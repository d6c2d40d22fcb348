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

// The program's freed memory never holds the driver's own data (program images, module segments):
// a kernel writing through a stale pointer must not overwrite code.
TEST(DrvHeap, CleanAllocationsNeverTakeMemoryTheProgramFreed) {
  drv_heap *h = drv_heap_create(kBase, 1 << 20, 256);
  uint64_t a, b, c, img;
  ASSERT_TRUE(drv_heap_alloc(h, 4096, &a));
  ASSERT_TRUE(drv_heap_alloc(h, 4096, &b));
  ASSERT_TRUE(drv_heap_free_user(h, a));
  ASSERT_TRUE(drv_heap_alloc_clean(h, 1024, &img));
  EXPECT_EQ(img, b + 4096) << "not the freed block at the bottom";
  ASSERT_TRUE(drv_heap_alloc(h, 1024, &c));
  EXPECT_EQ(c, a) << "the program may reuse its own memory";
  ASSERT_TRUE(drv_heap_free(h, img));  // the driver's own memory stays clean
  uint64_t img2;
  ASSERT_TRUE(drv_heap_alloc_clean(h, 1024, &img2));
  EXPECT_EQ(img2, img);
  EXPECT_EQ(drv_heap_live_blocks(h), 3u);
  drv_heap_destroy(h);
}

TEST(DrvHeap, CleanAllocationIsTheSameAsAnyWhileNothingWasFreed) {
  drv_heap *h1 = drv_heap_create(kBase, 1 << 20, 256), *h2 = drv_heap_create(kBase, 1 << 20, 256);
  uint64_t sizes[] = {100, 4096, 300, 70000, 1};
  for (uint64_t n : sizes) {
    uint64_t x, y;
    ASSERT_TRUE(drv_heap_alloc(h1, n, &x));
    ASSERT_TRUE(drv_heap_alloc_clean(h2, n, &y));
    EXPECT_EQ(x, y) << n;
  }
  drv_heap_destroy(h1);
  drv_heap_destroy(h2);
}

TEST(DrvHeap, CleanAllocationFitsBetweenTaintedRanges) {
  drv_heap *h = drv_heap_create(kBase, 64 * 256, 256);
  uint64_t blk[8];
  for (int i = 0; i < 8; i++) ASSERT_TRUE(drv_heap_alloc(h, 2 * 256, &blk[i]));  // 16 units used
  ASSERT_TRUE(drv_heap_free_user(h, blk[1]));
  ASSERT_TRUE(drv_heap_free(h, blk[2]));  // the driver's: clean
  ASSERT_TRUE(drv_heap_free_user(h, blk[3]));
  uint64_t x;
  ASSERT_TRUE(drv_heap_alloc_clean(h, 2 * 256, &x));
  EXPECT_EQ(x, blk[2]) << "the clean hole between two freed program blocks";
  // free now: units 2-3 and 6-7 (the program's) and 16-63 (clean): 52 units, 48 of them clean
  EXPECT_FALSE(drv_heap_alloc_clean(h, 49 * 256, &x));
  ASSERT_TRUE(drv_heap_alloc_clean(h, 48 * 256, &x));
  EXPECT_EQ(x, blk[7] + 2 * 256);
  EXPECT_TRUE(drv_heap_alloc(h, 4 * 256, &x) == false) << "no 4 contiguous units left";
  EXPECT_TRUE(drv_heap_alloc(h, 2 * 256, &x));
  drv_heap_destroy(h);
}

}  // namespace
