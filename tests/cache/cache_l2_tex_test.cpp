// The cache as an L2 slice (atomics, incoming L1 write-backs, L2 write-allocate kinds, the
// partition-address hook) and as a texture cache (fragment FIFO, reorder buffer, result FIFO).
#include "cache_test_util.h"

// The Volta-class L2 slice string.
static const char *kL2 = "S:32:128:24,L:B:m:L:P,A:192:4,32:0,32";

TEST(CacheL2, AtomicHitLeavesTheSectorDirty) {
  CacheRig r(kL2, 0, CACHE_LEVEL_L2, "L2_cache_bank[0]", "L2");
  r.build();
  ASSERT_EQ(CACHE_MISS, r.access(r.read(0x4000, 32), 1));
  r.fill(r.drain_misses()[0], 2);
  CacheRig::release(r.replies(2));
  mem_req *at = r.req(0x4004, MEM_ACC_ATOMIC, 4);
  EXPECT_EQ(CACHE_HIT, r.access(at, 3));
  EXPECT_EQ(0x1, r.line(0x4000).dirty);
  auto rep = r.replies(3);
  ASSERT_EQ(1u, rep.size());  // the atomic's reply (its value is the functional model's)
  EXPECT_EQ(at, rep[0]);
  CacheRig::release(rep);
  EXPECT_EQ(1u, r.stat("L2_cache_stats_breakdown[ATOMIC_ACC][HIT]"));
}

TEST(CacheL2, AtomicMissDirtiesTheSectorWhenTheFillArrives) {
  CacheRig r(kL2, 0, CACHE_LEVEL_L2, "L2_cache_bank[0]", "L2");
  r.build();
  mem_req *at = r.req(0x4024, MEM_ACC_ATOMIC, 4);
  EXPECT_EQ(CACHE_MISS, r.access(at, 1));
  auto m = r.drain_misses();
  ASSERT_EQ(1u, m.size());
  EXPECT_FALSE(m[0]->is_write);     // DRAM reads the sector
  EXPECT_EQ(0x2u, m[0]->sector_mask);
  EXPECT_EQ(0x0, r.line(0x4000).dirty);
  r.fill(m[0], 9);
  EXPECT_EQ(0x2, r.line(0x4000).dirty);
  CacheRig::release(r.replies(9));
}

TEST(CacheL2, IncomingL1WriteBackIsAWriteIntoTheSlice) {
  CacheRig r(kL2, 0, CACHE_LEVEL_L2, "L2_cache_bank[0]", "L2");
  r.build();
  mem_req *wb = r.write(0x8000, 128, MEM_ACC_L1_WRBK);
  wb->sector_mask = 0xF;
  wb->needs_reply = false;
  EXPECT_EQ(CACHE_MISS, r.access(wb, 1));  // lazy fetch-on-read: whole sectors validated
  EXPECT_EQ(0u, cache_miss_queue_length(r.c));
  EXPECT_EQ(0xF, r.line(0x8000).valid);
  EXPECT_EQ(0xF, r.line(0x8000).dirty);
  EXPECT_EQ(1u, r.stat("L2_cache_stats_breakdown[L1_WRBK_ACC][MISS]"));
}

TEST(CacheL2, FetchOnWriteUsesTheL2WriteAllocateKind) {
  CacheRig r("S:4:128:4,L:B:m:F:L,A:8:4,8", 0, CACHE_LEVEL_L2, "L2_cache_bank[1]", "L2");
  r.build();
  EXPECT_EQ(CACHE_MISS, r.access(r.write(0x1000, 4), 1));
  auto m = r.drain_misses();
  ASSERT_EQ(1u, m.size());
  EXPECT_EQ(MEM_ACC_L2_WR_ALLOC_R, m[0]->kind);
  r.fill(m[0], 2);
  CacheRig::release(r.replies(2));
}

static uint64_t drop_bit8(void *, uint64_t addr) {
  // e.g. two partitions interleaved at 256 bytes: bit 8 picks the partition, not the set
  return ((addr >> 9) << 8) | (addr & 0xff);
}

TEST(CacheL2, PartitionAddressHookChoosesTheSetButTagsStayWhole) {
  CacheRig r("N:4:128:2,L:B:m:N:L,A:8:4,8", 0, CACHE_LEVEL_L2, "L2_cache_bank[0]", "L2");
  r.cfg.index_addr = drop_bit8;
  r.build();
  // 0x080 → line 1 → set 1. 0x180 → with bit 8 dropped 0x080 → set 1 too (linear would say 3).
  EXPECT_EQ(1u, cache_set_of(r.c, 0x080));
  EXPECT_EQ(1u, cache_set_of(r.c, 0x180));
  ASSERT_EQ(CACHE_MISS, r.access(r.read(0x080), 1));
  r.fill(r.drain_misses()[0], 1);
  CacheRig::release(r.replies(1));
  EXPECT_EQ(CACHE_MISS, r.access(r.read(0x180), 2));  // same set, different tag: no false hit
  r.fill(r.drain_misses()[0], 2);
  CacheRig::release(r.replies(2));
}

// Texture: fragment FIFO 8, request FIFO 2, reorder buffer 4, result FIFO 2.
static const char *kTex = "N:4:128:4,L:R:m:N:L,T:8:2,4:2";

TEST(CacheTex, ResultsLeaveInAccessOrderWhenFillsReturnOutOfOrder) {
  CacheRig r(kTex, 0, CACHE_LEVEL_L1, "L1T[0]", "L1T");
  r.build();
  mem_req *a = r.req(0x1000, MEM_ACC_TEXTURE_R), *b = r.req(0x2000, MEM_ACC_TEXTURE_R);
  EXPECT_EQ(CACHE_MISS, r.access(a, 1));
  EXPECT_EQ(CACHE_MISS, r.access(b, 1));
  auto m = r.drain_misses();
  ASSERT_EQ(2u, m.size());
  r.fill(m[1], 5);  // B's data first
  EXPECT_EQ(nullptr, cache_reply_pop(r.c, 5));  // B waits behind A in the fragment FIFO
  EXPECT_EQ(CACHE_NEVER, cache_next_event(r.c));
  r.fill(m[0], 7);
  EXPECT_EQ(a, cache_reply_pop(r.c, 7));
  EXPECT_EQ(b, cache_reply_pop(r.c, 7));
  mem_req_free(a);
  mem_req_free(b);
  EXPECT_TRUE(cache_is_idle(r.c));
}

TEST(CacheTex, TagsRunAheadSoAHitOnALineInFlightWaitsForItsMiss) {
  CacheRig r(kTex, 0, CACHE_LEVEL_L1, "L1T[0]", "L1T");
  r.build();
  mem_req *a1 = r.req(0x1000, MEM_ACC_TEXTURE_R), *a2 = r.req(0x1040, MEM_ACC_TEXTURE_R);
  EXPECT_EQ(CACHE_MISS, r.access(a1, 1));
  EXPECT_EQ(CACHE_HIT, r.access(a2, 2));  // tag already there: no second fetch
  EXPECT_EQ(1u, cache_miss_queue_length(r.c));
  EXPECT_EQ(nullptr, cache_reply_pop(r.c, 3));  // the hit may not pass the miss
  r.fill(cache_miss_pop(r.c), 10);
  EXPECT_EQ(a1, cache_reply_pop(r.c, 10));
  EXPECT_EQ(a2, cache_reply_pop(r.c, 10));
  mem_req_free(a1);
  mem_req_free(a2);
}

TEST(CacheTex, HitLatencyAppliesToHitFragments) {
  CacheRig r(kTex, /*hit_latency=*/4, CACHE_LEVEL_L1, "L1T[0]", "L1T");
  r.build();
  mem_req *a = r.req(0x1000, MEM_ACC_TEXTURE_R);
  r.access(a, 0);
  r.fill(cache_miss_pop(r.c), 1);
  EXPECT_EQ(a, cache_reply_pop(r.c, 1));
  mem_req_free(a);
  mem_req *h = r.req(0x1000, MEM_ACC_TEXTURE_R);
  EXPECT_EQ(CACHE_HIT, r.access(h, 10));
  EXPECT_EQ(14u, cache_next_event(r.c));  // 10 + 4
  EXPECT_EQ(nullptr, cache_reply_pop(r.c, 13));
  EXPECT_EQ(h, cache_reply_pop(r.c, 14));
  mem_req_free(h);
}

TEST(CacheTex, FullFragmentFifoGivesReservationFail) {
  CacheRig r("N:4:128:4,L:R:m:N:L,T:2:4,4:2", 0, CACHE_LEVEL_L1, "L1T[0]", "L1T");
  r.build();
  r.access(r.req(0x1000, MEM_ACC_TEXTURE_R), 1);
  r.access(r.req(0x2000, MEM_ACC_TEXTURE_R), 1);
  EXPECT_EQ(CACHE_FAIL_FRAGMENT_FIFO_FULL, r.refused(r.req(0x1000, MEM_ACC_TEXTURE_R), 2));
  EXPECT_EQ(1u, r.stat("L1T_cache_stats_fail_breakdown[TEXTURE_ACC_R][FRAGMENT_FIFO_FULL]"));
  for (mem_req *m : r.drain_misses()) r.fill(m, 3);
  CacheRig::release(r.replies(3));
}

TEST(CacheTex, FullRequestFifoGivesMissQueueFull) {
  CacheRig r("N:4:128:4,L:R:m:N:L,T:8:1,4:2", 0, CACHE_LEVEL_L1, "L1T[0]", "L1T");
  r.build();
  r.access(r.req(0x1000, MEM_ACC_TEXTURE_R), 1);
  EXPECT_EQ(CACHE_FAIL_MISS_QUEUE_FULL, r.refused(r.req(0x2000, MEM_ACC_TEXTURE_R), 1));
  r.fill(cache_miss_pop(r.c), 2);
  CacheRig::release(r.replies(2));
}

TEST(CacheTex, FullReorderBufferGivesRobFull) {
  CacheRig r("N:4:128:4,L:R:m:N:L,T:8:4,1:2", 0, CACHE_LEVEL_L1, "L1T[0]", "L1T");
  r.build();
  r.access(r.req(0x1000, MEM_ACC_TEXTURE_R), 1);
  EXPECT_EQ(CACHE_FAIL_ROB_FULL, r.refused(r.req(0x2000, MEM_ACC_TEXTURE_R), 1));
  EXPECT_EQ(CACHE_HIT, r.access(r.req(0x1000, MEM_ACC_TEXTURE_R), 1));  // hits need no slot
  r.fill(cache_miss_pop(r.c), 2);
  CacheRig::release(r.replies(2));
}

TEST(CacheTex, ResultFifoBoundsWhatWaitsForTheCore) {
  CacheRig r(kTex, 0, CACHE_LEVEL_L1, "L1T[0]", "L1T");
  r.build();
  r.access(r.req(0x1000, MEM_ACC_TEXTURE_R), 0);
  r.fill(cache_miss_pop(r.c), 0);
  CacheRig::release(r.replies(0));
  for (int i = 0; i < 3; i++) EXPECT_EQ(CACHE_HIT, r.access(r.req(0x1000, MEM_ACC_TEXTURE_R), 1));
  cache_advance(r.c, 1);
  cache_occupancy occ;
  cache_get_occupancy(r.c, &occ);
  EXPECT_EQ(2u, occ.replies);       // result FIFO of 2 is full
  EXPECT_EQ(1u, occ.mshr_entries);  // the third fragment waits in the fragment FIFO
  EXPECT_EQ(1u, cache_next_event(r.c));  // results are waiting to be taken now
  mem_req *x = cache_reply_pop(r.c, 1);   // taking one lets the third move up
  cache_get_occupancy(r.c, &occ);
  EXPECT_EQ(2u, occ.replies);
  EXPECT_EQ(0u, occ.mshr_entries);
  mem_req_free(x);
  CacheRig::release(r.replies(1));
}

TEST(CacheTex, WritesGoByAndInvalidate) {
  CacheRig r(kTex, 0, CACHE_LEVEL_L1, "L1T[0]", "L1T");
  r.build();
  r.access(r.req(0x1000, MEM_ACC_TEXTURE_R), 0);
  r.fill(cache_miss_pop(r.c), 0);
  CacheRig::release(r.replies(0));
  mem_req *w = r.write(0x1000, 4);
  cache_outcome o{};
  EXPECT_EQ(CACHE_HIT, r.access(w, 1, &o));
  EXPECT_TRUE(o.forwarded);
  EXPECT_FALSE(r.has_line(0x1000));
  EXPECT_EQ(w, cache_miss_pop(r.c));
  mem_req_free(w);
}
