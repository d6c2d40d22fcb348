// Tests of models/common: zeroed tables paid for by the page (simtvp_zalloc) and the request
// pool's reserve.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "mem_req.h"
#include "simtvp_zalloc.h"

// Small blocks (calloc) and large ones (mapped pages) alike read zero in every byte, take writes
// in every byte, are aligned for any type (a cache line for mapped ones) and free cleanly.
TEST(Zalloc, BlocksOfEverySizeAreZeroWritableAndAligned) {
  const size_t sizes[] = {1, 100, SIMTVP_ZALLOC_PAGES_FROM - 1, SIMTVP_ZALLOC_PAGES_FROM, 1u << 20};
  for (size_t bytes : sizes) {
    auto *p = static_cast<unsigned char *>(simtvp_zalloc(bytes));
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % (bytes >= SIMTVP_ZALLOC_PAGES_FROM ? 64 : 16), 0u) << bytes;
    size_t nonzero = 0;
    for (size_t i = 0; i < bytes; i++) nonzero += p[i] != 0;
    EXPECT_EQ(nonzero, 0u) << bytes;
    for (size_t i = 0; i < bytes; i++) p[i] = static_cast<unsigned char>(i);
    EXPECT_EQ(p[bytes - 1], static_cast<unsigned char>(bytes - 1));
    simtvp_zfree(p);
  }
  simtvp_zfree(nullptr);
}

namespace {

// Allocates n requests from pool, returning their ids and, for each after the first, whether it
// lies right after the one before in memory (same chunk, in order): the pool's allocation order.
void take(mem_req_pool *pool, size_t n, std::vector<uint64_t> *ids, std::vector<bool> *adjacent,
          std::vector<mem_req *> *held) {
  mem_req *prev = nullptr;
  for (size_t i = 0; i < n; i++) {
    mem_req *r = mem_req_alloc(pool);
    ASSERT_NE(r, nullptr);
    ids->push_back(r->id);
    if (prev) adjacent->push_back(r == prev + 1);
    prev = r;
    held->push_back(r);
  }
}

}  // namespace

// Reserving leaves a pool exactly as allocating and freeing that many would: the same ids next,
// requests handed out in the same order (chunk by chunk, in order), nothing outstanding — so
// building a GPU with cheap reserves changes no request id and no allocation order.
TEST(MemReqPool, ReserveLeavesWhatAllocatingAndFreeingLeaves) {
  const size_t reserve = 600, after = 900;  // over two chunks reserved, more taken after
  std::vector<uint64_t> ids[2];
  std::vector<bool> adjacent[2];
  for (int way = 0; way < 2; way++) {
    mem_req_pool *pool = mem_req_pool_create();
    ASSERT_NE(pool, nullptr);
    std::vector<mem_req *> held, scratch;
    std::vector<uint64_t> unused_ids;
    std::vector<bool> unused_adj;
    take(pool, 5, &unused_ids, &unused_adj, &held);
    mem_req_free(held[1]);  // a free list that is not just the chunk's tail
    mem_req_free(held[3]);
    if (way == 0) {
      EXPECT_TRUE(mem_req_pool_reserve(pool, reserve));
    } else {  // the long way: allocate, then free the last first
      take(pool, reserve, &unused_ids, &unused_adj, &scratch);
      for (size_t i = scratch.size(); i-- > 0;) mem_req_free(scratch[i]);
    }
    EXPECT_EQ(mem_req_pool_outstanding(pool), 3u);
    std::vector<mem_req *> got;
    take(pool, after, &ids[way], &adjacent[way], &got);
    for (mem_req *r : got) mem_req_free(r);
    mem_req_free(held[0]);
    mem_req_free(held[2]);
    mem_req_free(held[4]);
    EXPECT_EQ(mem_req_pool_outstanding(pool), 0u);
    mem_req_pool_destroy(pool);
  }
  EXPECT_EQ(ids[0], ids[1]);
  EXPECT_EQ(adjacent[0], adjacent[1]);
}
