// Write policies (the manual's table) and write-allocate variants: write-back with dirty
// evictions, write-through, write-evict, local-WB / global-WT, no-write-allocate, write-allocate,
// fetch-on-write, lazy fetch-on-read; writes landing on sectors in flight; flush and invalidate.
#include "cache_test_util.h"

// Brings line `addr` into the cache (read miss + fill) and drops the read's reply.
static void warm(CacheRig &r, uint64_t addr, uint64_t now, mem_access_kind kind = MEM_ACC_GLOBAL_R,
                 uint32_t size = 128) {
  ASSERT_EQ(CACHE_MISS, r.access(r.req(addr, kind, size), now));
  for (mem_req *m : r.drain_misses()) r.fill(m, now);
  CacheRig::release(r.replies(now));
}

TEST(CacheWrite, WriteBackHitMarksDirtyAndAcknowledgesLocally) {
  CacheRig r("N:4:128:2,L:B:m:N:L,A:4:2,4");
  r.build();
  warm(r, 0x1000, 1);
  mem_req *w = r.write(0x1000, 4);
  EXPECT_EQ(CACHE_HIT, r.access(w, 5));
  EXPECT_EQ(0u, cache_miss_queue_length(r.c));  // nothing goes down
  EXPECT_EQ(0x1, r.line(0x1000).dirty);
  auto rep = r.replies(5);
  ASSERT_EQ(1u, rep.size());
  EXPECT_EQ(w, rep[0]);  // the write's acknowledgement comes from the cache
  CacheRig::release(rep);
}

TEST(CacheWrite, WriteBackEvictionOfDirtyLineProducesL1WrbkRequest) {
  CacheRig r("N:1:128:1,L:B:m:N:L,A:4:2,4");  // a single line
  r.build();
  warm(r, 0x1000, 1, MEM_ACC_LOCAL_R);
  mem_req *w = r.write(0x1008, 8, MEM_ACC_LOCAL_W);  // bytes 8..15
  w->needs_reply = false;                            // freed by the cache when done
  EXPECT_EQ(CACHE_HIT, r.access(w, 2));
  cache_outcome o{};
  EXPECT_EQ(CACHE_MISS, r.access(r.read(0x2000), 3, &o));
  EXPECT_EQ(1, o.write_backs);
  auto m = r.drain_misses();
  ASSERT_EQ(2u, m.size());
  // The write-back leaves first: the whole line, bytes 8..15 dirty → byte_mask[0] = 0xFF << 8.
  EXPECT_EQ(MEM_ACC_L1_WRBK, m[0]->kind);
  EXPECT_TRUE(m[0]->is_write);
  EXPECT_FALSE(m[0]->needs_reply);
  EXPECT_EQ(0x1000u, m[0]->addr);
  EXPECT_EQ(128u, m[0]->size);
  EXPECT_EQ(0xFF00ull, m[0]->byte_mask[0]);
  EXPECT_EQ(0ull, m[0]->byte_mask[1]);
  EXPECT_EQ(MEM_ACC_GLOBAL_R, m[1]->kind);
  mem_req_free(m[0]);  // the next level consumes write-backs
  r.fill(m[1], 4);
  CacheRig::release(r.replies(4));
  EXPECT_EQ(1u, r.stat("L1D_cache_core[0].write_back"));
}

TEST(CacheWrite, SectorWriteBackCarriesOnlyDirtySectorsAsL2Wrbk) {
  CacheRig r("S:1:128:1,L:B:m:L:L,A:4:4,4", 0, CACHE_LEVEL_L2, "L2_cache_bank[0]", "L2");
  r.build();
  // Sector 0 fully written (lazy: validated), 4 bytes of sector 2 written (not readable).
  EXPECT_EQ(CACHE_MISS, r.access(r.write(0x1000, 32, MEM_ACC_L1_WRBK), 1));
  EXPECT_EQ(CACHE_MISS, r.access(r.write(0x1044, 4), 2));
  EXPECT_EQ(0u, cache_miss_queue_length(r.c));  // lazy fetch-on-read: nothing fetched
  cache_line_state s = r.line(0x1000);
  EXPECT_EQ(0x1, s.valid);
  EXPECT_EQ(0x4, s.written);
  EXPECT_EQ(0x5, s.dirty);
  CacheRig::release(r.replies(2));
  EXPECT_EQ(CACHE_MISS, r.access(r.read(0x2000), 3));
  auto m = r.drain_misses();
  ASSERT_EQ(2u, m.size());
  // Dirty sectors 0 and 2: 64 bytes from the first dirty sector; bytes 0..31 and 68..71.
  EXPECT_EQ(MEM_ACC_L2_WRBK, m[0]->kind);
  EXPECT_EQ(0x1000u, m[0]->addr);
  EXPECT_EQ(64u, m[0]->size);
  EXPECT_EQ(0x5u, m[0]->sector_mask);
  EXPECT_EQ(0xFFFFFFFFull, m[0]->byte_mask[0]);
  EXPECT_EQ(0xF0ull, m[0]->byte_mask[1]);  // byte 68 = bit 4 of the second word
  mem_req_free(m[0]);
  r.fill(m[1], 4);
  CacheRig::release(r.replies(4));
}

TEST(CacheWrite, WriteThroughHitForwardsAndLineStaysClean) {
  CacheRig r("N:4:128:2,L:T:m:N:L,A:4:2,4");
  r.build();
  warm(r, 0x1000, 1);
  mem_req *w = r.write(0x1000, 4);
  cache_outcome o{};
  EXPECT_EQ(CACHE_HIT, r.access(w, 2, &o));
  EXPECT_TRUE(o.forwarded);
  auto m = r.drain_misses();
  ASSERT_EQ(1u, m.size());
  EXPECT_EQ(w, m[0]);  // the write itself goes down; the next level acknowledges it
  EXPECT_EQ(0x1, r.line(0x1000).valid);
  EXPECT_EQ(0x0, r.line(0x1000).dirty);
  EXPECT_TRUE(r.replies(2).empty());
  mem_req_free(w);
}

TEST(CacheWrite, WriteThroughRefusesWhenTheMissQueueIsFull) {
  CacheRig r("N:4:128:2,L:T:m:N:L,A:4:2,1");
  r.build();
  warm(r, 0x1000, 1);
  EXPECT_EQ(CACHE_HIT, r.access(r.write(0x1000, 4), 2));
  EXPECT_EQ(CACHE_FAIL_MISS_QUEUE_FULL, r.refused(r.write(0x1000, 4), 2));
  CacheRig::release(r.drain_misses());
}

TEST(CacheWrite, WriteEvictHitInvalidatesTheLineAndForwards) {
  CacheRig r("N:4:128:2,L:E:m:N:L,A:4:2,4");
  r.build();
  warm(r, 0x1000, 1);
  mem_req *w = r.write(0x1000, 4);
  EXPECT_EQ(CACHE_HIT, r.access(w, 2));
  EXPECT_FALSE(r.has_line(0x1000));
  auto m = r.drain_misses();
  ASSERT_EQ(1u, m.size());
  EXPECT_EQ(w, m[0]);
  mem_req_free(w);
  EXPECT_EQ(CACHE_MISS, r.access(r.read(0x1000), 3));  // gone: the next read misses
  r.fill(r.drain_misses()[0], 4);
  CacheRig::release(r.replies(4));
}

TEST(CacheWrite, LocalWritesGoBackGlobalWritesGoThroughAndEvict) {
  CacheRig r("N:64:128:6,L:L:m:N:H,A:128:8,8");  // the Fermi L1D string
  r.build();
  warm(r, 0x1000, 1, MEM_ACC_LOCAL_R);
  warm(r, 0x8000, 2, MEM_ACC_GLOBAL_R);
  cache_outcome o{};
  EXPECT_EQ(CACHE_HIT, r.access(r.write(0x1000, 4, MEM_ACC_LOCAL_W), 3, &o));
  EXPECT_FALSE(o.forwarded);
  EXPECT_EQ(0x1, r.line(0x1000).dirty);  // local: write-back
  mem_req *g = r.write(0x8000, 4, MEM_ACC_GLOBAL_W);
  EXPECT_EQ(CACHE_HIT, r.access(g, 3, &o));
  EXPECT_TRUE(o.forwarded);
  EXPECT_FALSE(r.has_line(0x8000));  // global: through, line evicted
  auto m = r.drain_misses();
  ASSERT_EQ(1u, m.size());
  EXPECT_EQ(g, m[0]);
  mem_req_free(g);
  CacheRig::release(r.replies(3));
}

TEST(CacheWrite, NoWriteAllocateMissForwardsWithoutALine) {
  CacheRig r("N:4:128:2,L:B:m:N:L,A:4:2,4");
  r.build();
  mem_req *w = r.write(0x1000, 4);
  cache_outcome o{};
  EXPECT_EQ(CACHE_MISS, r.access(w, 1, &o));
  EXPECT_TRUE(o.forwarded);
  EXPECT_EQ(0, o.fetches);
  EXPECT_FALSE(r.has_line(0x1000));
  EXPECT_EQ(w, cache_miss_pop(r.c));
  mem_req_free(w);
}

TEST(CacheWrite, WriteAllocateMissForwardsTheWriteAndFetchesTheLine) {
  CacheRig r("N:4:128:2,L:T:m:W:L,A:4:2,4");
  r.build();
  mem_req *w = r.write(0x1000, 4);
  cache_outcome o{};
  EXPECT_EQ(CACHE_MISS, r.access(w, 1, &o));
  EXPECT_TRUE(o.forwarded);
  EXPECT_EQ(1, o.fetches);
  auto m = r.drain_misses();
  ASSERT_EQ(2u, m.size());
  EXPECT_EQ(w, m[0]);                              // the write first,
  EXPECT_EQ(MEM_ACC_L1_WR_ALLOC_R, m[1]->kind);    // then the fill read
  EXPECT_EQ(128u, m[1]->size);
  EXPECT_EQ(0x1, r.line(0x1000).pending);          // the line is reserved
  mem_req_free(w);
  r.fill(m[1], 5);
  EXPECT_EQ(0x1, r.line(0x1000).valid);
  EXPECT_EQ(0x0, r.line(0x1000).dirty);
  EXPECT_TRUE(r.replies(5).empty());
  EXPECT_EQ(CACHE_HIT, r.access(r.read(0x1000), 6));
  CacheRig::release(r.replies(6));
}

TEST(CacheWrite, FetchOnWriteOfAWholeSectorValidatesWithoutFetching) {
  CacheRig r("S:4:128:2,L:B:m:F:L,A:4:4,4");
  r.build();
  mem_req *w = r.write(0x1020, 32);  // all of sector 1
  cache_outcome o{};
  EXPECT_EQ(CACHE_MISS, r.access(w, 1, &o));
  EXPECT_EQ(0, o.fetches);
  EXPECT_EQ(0u, cache_miss_queue_length(r.c));
  EXPECT_EQ(0x2, r.line(0x1000).valid);
  EXPECT_EQ(0x2, r.line(0x1000).dirty);
  auto rep = r.replies(1);
  ASSERT_EQ(1u, rep.size());
  EXPECT_EQ(w, rep[0]);
  CacheRig::release(rep);
}

TEST(CacheWrite, FetchOnWriteOfPartOfASectorFetchesAndCompletesOnFill) {
  CacheRig r("S:4:128:2,L:B:m:F:L,A:4:4,4");
  r.build();
  mem_req *w = r.write(0x1000, 8);
  cache_outcome o{};
  EXPECT_EQ(CACHE_MISS, r.access(w, 1, &o));
  auto m = r.drain_misses();
  ASSERT_EQ(1u, m.size());
  EXPECT_EQ(MEM_ACC_L1_WR_ALLOC_R, m[0]->kind);
  EXPECT_EQ(32u, m[0]->size);
  EXPECT_EQ(0x1u, m[0]->sector_mask);
  EXPECT_TRUE(r.replies(2).empty());  // the write waits in the MSHR for its sector
  r.fill(m[0], 7);
  auto rep = r.replies(7);
  ASSERT_EQ(1u, rep.size());
  EXPECT_EQ(w, rep[0]);
  EXPECT_EQ(0x1, r.line(0x1000).valid);
  EXPECT_EQ(0x1, r.line(0x1000).dirty);
  CacheRig::release(rep);
}

TEST(CacheWrite, LazyFetchOnReadDefersTheFetchToTheFirstRead) {
  CacheRig r("S:4:128:2,L:B:m:L:L,A:4:4,4");
  r.build();
  mem_req *w = r.write(0x1000, 8);
  EXPECT_EQ(CACHE_MISS, r.access(w, 1));
  EXPECT_EQ(0u, cache_miss_queue_length(r.c));  // no fetch
  cache_line_state s = r.line(0x1000);
  EXPECT_EQ(0x0, s.valid);
  EXPECT_EQ(0x1, s.written);
  EXPECT_EQ(0x1, s.dirty);
  CacheRig::release(r.replies(1));  // acknowledged at once
  mem_req *rd = r.read(0x1000, 4);
  cache_outcome o{};
  EXPECT_EQ(CACHE_MISS, r.access(rd, 2, &o));  // written bytes are not readable
  EXPECT_TRUE(o.sector_miss);
  auto m = r.drain_misses();
  ASSERT_EQ(1u, m.size());
  EXPECT_EQ(MEM_ACC_GLOBAL_R, m[0]->kind);
  EXPECT_EQ(0x1u, m[0]->sector_mask);
  r.fill(m[0], 5);
  s = r.line(0x1000);
  EXPECT_EQ(0x1, s.valid);
  EXPECT_EQ(0x0, s.written);
  EXPECT_EQ(0x1, s.dirty);  // still holds the write
  auto rep = r.replies(5);
  ASSERT_EQ(1u, rep.size());
  EXPECT_EQ(rd, rep[0]);
  CacheRig::release(rep);
}

TEST(CacheWrite, WriteThroughLazyFetchKeepsWrittenBytesClean) {
  CacheRig r("S:4:128:64,L:T:m:L:L,A:512:8,16:0,32");  // the Volta L1D string
  r.build();
  mem_req *w = r.write(0x1000, 8);
  cache_outcome o{};
  EXPECT_EQ(CACHE_MISS, r.access(w, 1, &o));
  EXPECT_TRUE(o.forwarded);
  EXPECT_EQ(0, o.fetches);
  cache_line_state s = r.line(0x1000);
  EXPECT_EQ(0x1, s.written);
  EXPECT_EQ(0x0, s.dirty);
  EXPECT_EQ(w, cache_miss_pop(r.c));
  mem_req_free(w);
}

TEST(CacheWrite, WriteToASectorInFlightMergesInAWriteBackCache) {
  CacheRig r("N:4:128:2,L:B:m:N:L,A:4:4,4");
  r.build();
  mem_req *rd = r.read(0x1000);
  mem_req *w = r.write(0x1004, 4);
  EXPECT_EQ(CACHE_MISS, r.access(rd, 1));
  EXPECT_EQ(CACHE_HIT_RESERVED, r.access(w, 2));
  auto m = r.drain_misses();
  ASSERT_EQ(1u, m.size());  // the write waits for the line; nothing else goes down
  r.fill(m[0], 6);
  auto rep = r.replies(6);
  ASSERT_EQ(2u, rep.size());
  EXPECT_EQ(rd, rep[0]);
  EXPECT_EQ(w, rep[1]);
  EXPECT_EQ(0x1, r.line(0x1000).dirty);
  CacheRig::release(rep);
}

TEST(CacheWrite, FlushWritesBackEveryDirtyLineAndInvalidates) {
  CacheRig r("N:4:128:2,L:B:m:N:L,A:4:2,8");
  r.build();
  warm(r, 0x1000, 1);  // sets 0, 1, 2
  warm(r, 0x1080, 1);
  warm(r, 0x1100, 1);
  EXPECT_EQ(CACHE_HIT, r.access(r.write(0x1000, 4), 2));
  EXPECT_EQ(CACHE_HIT, r.access(r.write(0x1100, 4), 2));
  CacheRig::release(r.replies(2));
  EXPECT_EQ(2u, cache_flush(r.c, 3));
  auto m = r.drain_misses();
  ASSERT_EQ(2u, m.size());
  EXPECT_EQ(MEM_ACC_L1_WRBK, m[0]->kind);
  EXPECT_EQ(MEM_ACC_L1_WRBK, m[1]->kind);
  CacheRig::release(m);
  EXPECT_FALSE(r.has_line(0x1000));
  EXPECT_FALSE(r.has_line(0x1080));
  warm(r, 0x2000, 4);
  EXPECT_EQ(1u, cache_invalidate(r.c));
  EXPECT_FALSE(r.has_line(0x2000));
}

TEST(CacheWrite, SetAssocChangesWaysBetweenKernels) {
  CacheRig r("N:1:128:2,L:R:m:N:L,A:4:2,8");
  r.cfg.max_assoc = 4;
  r.build();
  EXPECT_EQ(CACHE_MISS, r.access(r.read(0x0000), 1));
  simtvp_diag d{};
  EXPECT_EQ(SIMTVP_ERR_STATE, cache_set_assoc(r.c, 4, &d));  // a miss is outstanding
  r.fill(r.drain_misses()[0], 2);
  CacheRig::release(r.replies(2));
  EXPECT_EQ(SIMTVP_ERR_ARG, cache_set_assoc(r.c, 5, &d));
  EXPECT_EQ(SIMTVP_OK, cache_set_assoc(r.c, 4, &d));
  for (uint64_t i = 0; i < 4; i++) warm(r, i * 0x1000, 3);
  for (uint64_t i = 0; i < 4; i++) EXPECT_TRUE(r.has_line(i * 0x1000));  // four ways now
}
