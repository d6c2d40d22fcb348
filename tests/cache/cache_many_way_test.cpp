// Many-way caches (more than 8 ways: a line map finds tags and each set keeps its replacement
// order) behave exactly as a scan of the set would: victims by LRU / FIFO against a reference
// model, invalidation and new associativities; and the retry support for owners
// (cache_state_epoch, cache_count_reservation_fail).
#include <sys/resource.h>

#include <algorithm>
#include <random>

#include "cache_test_util.h"

namespace {

// One access that must complete: its fetch (if any) is answered at once, the reply dropped.
void touch(CacheRig &r, uint64_t addr, uint64_t now) {
  cache_status st = r.access(r.read(addr), now);
  ASSERT_NE(CACHE_RESERVATION_FAIL, st) << std::hex << addr;
  for (mem_req *m : r.drain_misses()) r.fill(m, now);
  CacheRig::release(r.replies(now));
}

// Random reads over 160 lines of a one-set, 64-way cache; after each, the resident lines must be
// those a reference LRU (or FIFO) model of 64 ways holds.
void check_against_reference(bool lru) {
  CacheRig r(lru ? "N:1:128:64,L:R:m:N:L,A:256:4,256" : "N:1:128:64,F:R:m:N:L,A:256:4,256");
  r.build();
  std::vector<uint64_t> order;  // resident lines, oldest first (by use or by allocation)
  std::mt19937_64 rng(7);
  for (uint64_t now = 1; now <= 3000; now++) {
    uint64_t line = (rng() % 160) * 0x1000;
    auto it = std::find(order.begin(), order.end(), line);
    if (it != order.end()) {
      if (lru) {  // a hit makes it the newest
        order.erase(it);
        order.push_back(line);
      }
    } else {
      if (order.size() == 64) order.erase(order.begin());  // the oldest goes
      order.push_back(line);
    }
    touch(r, line, now);
    if (now % 97 == 0 || now == 3000) {
      for (uint64_t l = 0; l < 160; l++) {
        bool want = std::find(order.begin(), order.end(), l * 0x1000) != order.end();
        ASSERT_EQ(want, r.has_line(l * 0x1000)) << (lru ? "LRU" : "FIFO") << " line " << l << " at " << now;
      }
    }
  }
}

}  // namespace

TEST(CacheManyWays, LruVictimsMatchAReferenceModelOver64Ways) { check_against_reference(true); }
TEST(CacheManyWays, FifoVictimsMatchAReferenceModelOver64Ways) { check_against_reference(false); }

// Lines reserved by pending misses are never victims; the oldest unreserved one is.
TEST(CacheManyWays, ReservedLinesAreSkippedAndAFullyReservedSetRefuses) {
  CacheRig r("N:1:128:16,L:R:m:N:L,A:64:4,64");
  r.build();
  for (uint64_t i = 0; i < 16; i++) EXPECT_EQ(CACHE_MISS, r.access(r.read(i * 0x1000), 1));
  EXPECT_EQ(CACHE_FAIL_LINE_ALLOC, r.refused(r.read(0x100000), 2));  // every way reserved
  auto m = r.drain_misses();
  ASSERT_EQ(16u, m.size());
  r.fill(m[5], 3);  // line 5 is readable now, the others still reserved
  EXPECT_EQ(CACHE_MISS, r.access(r.read(0x100000), 4));
  EXPECT_FALSE(r.has_line(5 * 0x1000));
  EXPECT_TRUE(r.has_line(0x100000));
  for (size_t i = 0; i < m.size(); i++)
    if (i != 5) r.fill(m[i], 5);
  for (mem_req *x : r.drain_misses()) r.fill(x, 5);
  CacheRig::release(r.replies(5));
}

TEST(CacheManyWays, InvalidateAndNewAssociativityForgetEveryLine) {
  CacheRig r("N:2:128:32,L:R:m:N:L,A:128:4,128");
  r.cfg.max_assoc = 64;
  r.build();
  for (uint64_t i = 0; i < 48; i++) touch(r, i * 0x80, 1);
  EXPECT_TRUE(r.has_line(47 * 0x80));
  EXPECT_EQ(48u, cache_invalidate(r.c));
  for (uint64_t i = 0; i < 48; i++) EXPECT_FALSE(r.has_line(i * 0x80));
  for (uint64_t i = 0; i < 48; i++) touch(r, i * 0x80, 2);  // back in, found again
  EXPECT_EQ(CACHE_HIT, r.access(r.read(3 * 0x80), 3));
  CacheRig::release(r.replies(3));
  ASSERT_EQ(SIMTVP_OK, cache_set_assoc(r.c, 64, &r.diag)) << r.diag.message;
  EXPECT_FALSE(r.has_line(3 * 0x80));
  for (uint64_t i = 0; i < 128; i++) touch(r, i * 0x80, 4);  // 64 ways per set now
  for (uint64_t i = 0; i < 128; i++) EXPECT_TRUE(r.has_line(i * 0x80)) << i;
}

// A reservation failure changes nothing: the epoch stays, so an owner may count a retry instead
// of presenting it; the count is the one cache_access makes. Any change of state moves the epoch.
TEST(CacheRetry, FailuresKeepTheEpochAndCountedRetriesMatchRealOnes) {
  CacheRig r("N:4:128:2,L:R:m:N:L,A:8:2,2");  // miss queue of 2
  r.build();
  uint64_t e0 = cache_state_epoch(r.c);
  EXPECT_EQ(CACHE_MISS, r.access(r.read(0x0000), 1));
  EXPECT_NE(e0, cache_state_epoch(r.c));
  EXPECT_EQ(CACHE_MISS, r.access(r.read(0x0080), 1));
  uint64_t e1 = cache_state_epoch(r.c);
  EXPECT_EQ(CACHE_FAIL_MISS_QUEUE_FULL, r.refused(r.read(0x0100), 2));
  EXPECT_EQ(e1, cache_state_epoch(r.c));
  const std::string bd = "L1D_cache_stats_fail_breakdown[GLOBAL_ACC_R][MISS_QUEUE_FULL]";
  uint64_t fails = r.stat("L1D_total_cache_reservation_fails"), by_reason = r.stat(bd),
           col = r.stat("L1D_cache_stats_breakdown[GLOBAL_ACC_R][RESERVATION_FAIL]");
  cache_count_reservation_fail(r.c, MEM_ACC_GLOBAL_R, CACHE_FAIL_MISS_QUEUE_FULL, 3, 5);
  EXPECT_EQ(fails + 5, r.stat("L1D_total_cache_reservation_fails"));
  EXPECT_EQ(by_reason + 5, r.stat(bd));
  EXPECT_EQ(col + 5, r.stat("L1D_cache_stats_breakdown[GLOBAL_ACC_R][RESERVATION_FAIL]"));
  EXPECT_EQ(e1, cache_state_epoch(r.c));
  mem_req *first = cache_miss_pop(r.c);  // the interconnect takes one: the retry may succeed
  uint64_t e2 = cache_state_epoch(r.c);
  EXPECT_NE(e1, e2);
  r.fill(first, 4);
  EXPECT_NE(e2, cache_state_epoch(r.c));
  EXPECT_EQ(CACHE_MISS, r.access(r.read(0x0100), 5));
  for (mem_req *m : r.drain_misses()) r.fill(m, 6);
  CacheRig::release(r.replies(6));
  EXPECT_EQ(CACHE_HIT, r.access(r.read(0x0100), 7));  // the data port: free from then on
  EXPECT_LE(cache_data_port_free_from(r.c), 8u);
  CacheRig::release(r.replies(7));
}

// A cache just built holds no line in any way (its arrays are left as zero bytes, which encode
// empty lines): with the line map (64 ways) and with a scan of the set (4 ways), timed or not, no
// address — line 0 included, whose tag an all-zero line would carry — is found, its first read
// misses and, timed, its sectors are not ready (CACHE_NEVER).
TEST(CacheBuild, AFreshCacheHoldsNoLineInAnyWay) {
  for (uint32_t max_assoc : {64u, 4u}) {
    for (bool timed : {false, true}) {
      CacheRig r("S:2:128:4,L:B:m:W:L,A:64:4,64");
      r.cfg.max_assoc = max_assoc;
      r.cfg.timed = timed;
      r.build();
      for (uint64_t i = 0; i < 256; i++) EXPECT_FALSE(r.has_line(i * 0x80)) << max_assoc << " " << i;
      if (timed) {
        EXPECT_EQ(CACHE_NEVER, cache_timed_ready(r.c, 0, 0xf));
        continue;
      }
      EXPECT_EQ(CACHE_MISS, r.access(r.read(0), 1)) << max_assoc;
      for (mem_req *m : r.drain_misses()) r.fill(m, 1);
      CacheRig::release(r.replies(1));
      EXPECT_TRUE(r.has_line(0));
      cache_occupancy occ{};
      cache_get_occupancy(r.c, &occ);
      EXPECT_EQ(0u, occ.mshr_entries);
    }
  }
}

namespace {

// A fresh cache's lines, set orders, line map and MSHR hash chains link nothing (every link is
// stored as index + 1, so zero bytes are "none"; index 0 must not be read as a link). With S sets
// of W ways (W > 8: line map and set orders) and 48 MSHRs over S*W = 64 lines, in one life:
//  1. 48 misses to distinct lines (line i in set i % S): each a MISS with its own MSHR (no stale
//     hash chain merges it), its line reserved by exactly that miss (pending = its one chunk);
//  2. a 49th distinct line: MSHR_ENRTY_FAIL (the MSHRs never used are taken in order, exactly 48);
//  3. fills in reverse order release every entry (hash chains unlinked from their middles);
//  4. the 16 lines left take the 16 free ways: nothing evicted, all 64 lines resident;
//  5. one more line per set evicts the set's least recently used line — the first one it took,
//     i = s — and no other: the replacement order was built from an empty one.
void fresh_links(const char *spec, uint32_t sets) {
  CacheRig r(spec);
  r.build();
  const uint64_t stride = 0x80;  // line i: address i * 128, set i % sets (linear index)
  for (uint64_t i = 0; i < 48; i++) {
    ASSERT_EQ(CACHE_MISS, r.access(r.read(i * stride), 1)) << i;
    EXPECT_EQ(1u, r.line(i * stride).pending) << i;
  }
  cache_occupancy occ{};
  cache_get_occupancy(r.c, &occ);
  EXPECT_EQ(48u, occ.mshr_entries);
  EXPECT_EQ(CACHE_FAIL_MSHR_ENTRY, r.refused(r.read(48 * stride), 2));
  for (uint64_t i = 48; i < 64; i++) EXPECT_FALSE(r.has_line(i * stride)) << i;
  std::vector<mem_req *> m = r.drain_misses();
  ASSERT_EQ(48u, m.size());
  for (size_t k = m.size(); k-- > 0;) r.fill(m[k], 3);
  CacheRig::release(r.replies(3));
  for (uint64_t i = 0; i < 48; i++) EXPECT_EQ(0u, r.line(i * stride).pending) << i;
  for (uint64_t i = 48; i < 64; i++) touch(r, i * stride, 4);
  EXPECT_EQ(0u, r.stat("L1D_cache_core[0].write_back"));
  for (uint64_t i = 0; i < 64; i++) EXPECT_TRUE(r.has_line(i * stride)) << i;
  for (uint64_t s = 0; s < sets; s++) touch(r, (64 + s) * stride, 5);
  for (uint64_t i = 0; i < 64 + sets; i++) EXPECT_EQ(i >= sets, r.has_line(i * stride)) << i;
  cache_get_occupancy(r.c, &occ);
  EXPECT_EQ(0u, occ.mshr_entries);
}

}  // namespace

TEST(CacheBuild, AFreshCacheLinksNoMshrAndNoNeighbourWithTheLineMap) {
  fresh_links("N:2:128:32,L:R:m:N:L,A:48:4,64", 2);
}
TEST(CacheBuild, AFreshCacheLinksNoMshrWithoutTheLineMap) {
  fresh_links("N:8:128:8,L:R:m:N:L,A:48:4,64", 8);
}

// Timed, with the line map: a fresh set's first 64 lines take ways 0..63 in order (every way
// empty, none linked), and the 65th evicts the first (the oldest end of an order built from
// empty); a flush empties it, and the set fills from way 0 again.
TEST(CacheBuild, AFreshTimedSetFillsItsWaysInOrderAndEvictsTheFirst) {
  CacheRig r("S:1:128:64,L:L:s:N:L,A:256:8,16:0,32");
  r.cfg.timed = true;
  r.build();
  for (int round = 0; round < 2; round++) {
    for (uint64_t i = 0; i < 64; i++) {
      mem_req *q = r.read(i * 0x80, 128);
      cache_timed_result out{};
      cache_timed_access(r.c, q, 1, &out);
      mem_req_free(q);
      ASSERT_EQ(CACHE_MISS, out.status) << i;
      EXPECT_EQ(0u, out.wb_chunks) << i;
      EXPECT_EQ(i, r.line(i * 0x80).way) << round << " " << i;
    }
    mem_req *q = r.read(64 * 0x80, 128);
    cache_timed_result out{};
    cache_timed_access(r.c, q, 2, &out);
    mem_req_free(q);
    EXPECT_FALSE(r.has_line(0));
    EXPECT_EQ(0u, r.line(64 * 0x80).way);
    EXPECT_EQ(0u, cache_timed_flush(r.c, nullptr, nullptr));  // clean lines: nothing written back
    for (uint64_t i = 0; i <= 64; i++) EXPECT_FALSE(r.has_line(i * 0x80)) << i;
  }
}

// Building a cache writes none of its lines, line map slots or set orders, and flushing or
// invalidating a cache that used one set reads no other: a large cache's zeroed pages (the block
// is mapped pages, simtvp_zalloc) stay unmapped. 8192 sets x 64 ways: 524 288 lines (28 MiB) and
// a 16 MiB line map, 11 264 pages that building used to write, and 16 MiB of ready times; the
// minor page faults of the whole sequence (getrusage; this process does nothing else meanwhile)
// stay far below that (54 here). With transparent huge pages set to "always" a write
// costs one fault per 2 MiB, so there this test could not tell the difference (it still passes).
TEST(CacheBuild, BuildingAndFlushingALargeCacheTouchesOnlyTheSetsItUses) {
  CacheRig r("S:8192:128:64,L:B:m:L:L,A:64:4,32:0,32");
  r.cfg.timed = true;
  struct rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  r.build();
  for (uint64_t i = 0; i < 8; i++) {  // set 0 only
    mem_req *q = r.write(i * 8192 * 0x80, 32);
    cache_timed_result out{};
    cache_timed_access(r.c, q, 1, &out);
    mem_req_free(q);
  }
  EXPECT_EQ(8u, cache_timed_flush(r.c, nullptr, nullptr));  // each dirty line once
  EXPECT_EQ(0u, cache_timed_flush(r.c, nullptr, nullptr));
  EXPECT_EQ(0u, cache_invalidate(r.c));
  getrusage(RUSAGE_SELF, &after);
  EXPECT_LT(after.ru_minflt - before.ru_minflt, 1000) << "pages faulted in";
}
