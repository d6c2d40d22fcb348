// The timed use (cache_timed_access / _fill / _ready): outcomes and statistics of a short sequence
// worked out by hand, and the lookup memos (the line the last timed lookup found; the lines
// cache_timed_read_hit last found, one per line address modulo 8) never answering for a line that
// was evicted, replaced or is outside the ways in use — in caches with a line map (64 ways) and
// without (2 ways); a flush that empties a mapped cache at once, whole-line (4-sector) ready
// times, cache_timed_read_hit answering a read exactly as cache_timed_access, and write-evict
// stores (forwarded, placing nothing, dropping the sectors they write).
#include <random>
#include <vector>

#include "cache_test_util.h"

namespace {

uint64_t counter(const CacheRig &r, const char *name) {
  int found = 0;
  uint64_t v = stats_get(r.st, name, &found);
  EXPECT_TRUE(found) << name;
  return v;
}

cache_timed_result timed(CacheRig &r, uint64_t addr, uint64_t now, bool write = false, uint32_t size = 32) {
  mem_req *q = write ? r.write(addr, size) : r.read(addr, size);
  cache_timed_result o{};
  cache_timed_access(r.c, q, now, &o);
  mem_req_free(q);
  return o;
}

}  // namespace

TEST(CacheTimed, MissFillPendingHitAndSectorMissCountUnderTheCaNames) {
  // Sectored, 4 sets × 2 ways, 128-byte lines (4 sectors of 32 bytes), write-back.
  CacheRig r("S:4:128:2,L:B:m:F:L,A:4:4,4");
  r.cfg.timed = true;
  r.build();
  cache_timed_result o = timed(r, 0x1000, 10);  // sector 0 of line 0x1000: a miss, fetch sector 0
  EXPECT_EQ(CACHE_MISS, o.status);
  EXPECT_EQ(0x1u, o.fetch);
  EXPECT_EQ(CACHE_NEVER, cache_timed_ready(r.c, 0x1000, 1));
  o = timed(r, 0x1000, 11);  // on its way, fill not timed yet: a pending hit, ready unknown
  EXPECT_EQ(CACHE_HIT_RESERVED, o.status);
  EXPECT_EQ(CACHE_NEVER, o.ready);
  cache_timed_fill(r.c, 0x1000, 1, 50);
  EXPECT_EQ(50u, cache_timed_ready(r.c, 0x1000, 1));
  o = timed(r, 0x1000, 20);  // before the fill lands: pending hit ready at 50
  EXPECT_EQ(CACHE_HIT_RESERVED, o.status);
  EXPECT_EQ(50u, o.ready);
  o = timed(r, 0x1000, 60);  // after: a hit
  EXPECT_EQ(CACHE_HIT, o.status);
  EXPECT_EQ(60u, o.ready);
  o = timed(r, 0x1020, 61);  // sector 1 of the same line: a sector miss fetching sector 1 only
  EXPECT_EQ(CACHE_MISS, o.status);
  EXPECT_EQ(0x2u, o.fetch);
  // 5 accesses: 1 miss + 1 sector miss (misses 2), 2 pending hits, 1 hit; 1 fill.
  EXPECT_EQ(5u, counter(r, "L1D_cache_core[0].access"));
  EXPECT_EQ(2u, counter(r, "L1D_cache_core[0].miss"));
  EXPECT_EQ(1u, counter(r, "L1D_cache_core[0].sector_miss"));
  EXPECT_EQ(2u, counter(r, "L1D_cache_core[0].pending_hit"));
  EXPECT_EQ(1u, counter(r, "L1D_cache_core[0].fill"));
  EXPECT_EQ(5u, counter(r, "L1D_total_cache_accesses"));
  EXPECT_EQ(2u, counter(r, "L1D_total_cache_misses"));
  EXPECT_EQ(1u, counter(r, "L1D_cache_stats_breakdown[GLOBAL_ACC_R][HIT]"));
  EXPECT_EQ(2u, counter(r, "L1D_cache_stats_breakdown[GLOBAL_ACC_R][HIT_RESERVED]"));
  EXPECT_EQ(1u, counter(r, "L1D_cache_stats_breakdown[GLOBAL_ACC_R][MISS]"));
  EXPECT_EQ(1u, counter(r, "L1D_cache_stats_breakdown[GLOBAL_ACC_R][SECTOR_MISS]"));
  EXPECT_EQ(1u, counter(r, "L1D_cache_core[0].stats_breakdown[GLOBAL_ACC_R][SECTOR_MISS]"));
  int found = 1;
  stats_get(r.st, "L1D_cache_stats_breakdown[GLOBAL_ACC_W][HIT]", &found);
  EXPECT_FALSE(found) << "breakdowns are registered on first use only";
}

TEST(CacheTimed, AFillForALineEvictedSinceItsMissIsDropped) {
  // 1 set × 2 ways: the miss on A is the last lookup, then B and C evict A before its fill.
  CacheRig r("N:1:128:2,L:R:m:N:L,A:8:4,8");
  r.cfg.timed = true;
  r.build();
  EXPECT_EQ(CACHE_MISS, timed(r, 0x0000, 1).status);  // A
  EXPECT_EQ(CACHE_MISS, timed(r, 0x1000, 2).status);  // B
  EXPECT_EQ(CACHE_MISS, timed(r, 0x2000, 3).status);  // C replaces A (LRU)
  cache_timed_fill(r.c, 0x0000, 1, 9);                // A's fill finds no line: dropped
  EXPECT_EQ(CACHE_NEVER, cache_timed_ready(r.c, 0x0000, 1));
  EXPECT_EQ(CACHE_NEVER, cache_timed_ready(r.c, 0x2000, 1));  // C's own fill is not timed yet
  EXPECT_EQ(0u, counter(r, "L1D_cache_core[0].fill"));
  EXPECT_EQ(CACHE_MISS, timed(r, 0x0000, 10).status);  // A again misses (and replaces B)
  EXPECT_FALSE(r.has_line(0x1000));
}

// Random timed reads and fills against a reference of which lines are resident (LRU over
// one set): every outcome's hit/miss must match, whatever line the last lookup found.
// flush_at: a timed flush at that cycle empties the cache (and the reference).
void check_lookups(const char *spec, uint32_t ways, uint64_t flush_at = 0) {
  CacheRig r(spec);
  r.cfg.timed = true;
  r.build();
  std::vector<uint64_t> order;  // resident lines, least recently used first
  std::mt19937_64 rng(11);
  for (uint64_t now = 1; now <= 4000; now++) {
    if (now == flush_at) {
      EXPECT_EQ(0u, cache_timed_flush(r.c, nullptr, nullptr));  // reads only: nothing dirty
      order.clear();
    }
    uint64_t line = (rng() % (ways + ways / 2 + 2)) * 0x1000;
    if (rng() % 4 == 0) {  // a fill for a line that may have gone since its miss
      cache_timed_fill(r.c, line, 1, now);
      continue;
    }
    bool resident = false;
    for (size_t i = 0; i < order.size(); i++)
      if (order[i] == line) {
        order.erase(order.begin() + (long)i);
        resident = true;
        break;
      }
    if (!resident && order.size() == ways) order.erase(order.begin());
    order.push_back(line);
    cache_timed_result o = timed(r, line, now);
    ASSERT_EQ(resident, o.status != CACHE_MISS) << std::hex << line << std::dec << " at " << now;
  }
}

TEST(CacheTimed, LookupsMatchAReferenceLruWithALineMap) { check_lookups("N:1:128:64,L:R:m:N:L,A:256:4,256", 64); }

TEST(CacheTimed, LookupsMatchAReferenceLruScanningTheSet) { check_lookups("N:1:128:2,L:R:m:N:L,A:8:4,8", 2); }

TEST(CacheTimed, AFlushLeavesAMappedCacheThatFillsLikeAnEmptyOne) {
  // The flush resets the line map, the set order and the way bitmaps at once: lookups and
  // replacement after it must match a reference that starts empty again.
  check_lookups("N:1:128:64,L:R:m:N:L,A:256:4,256", 64, 2000);
}

TEST(CacheTimed, AFlushReportsEveryDirtyLineOnceAndForgetsTheLines) {
  // Write-back, 64 ways (line map), 2 sets: 3 lines written (dirty), 2 read; the flush reports
  // the 3 written lines with their written sectors, and every line misses afterwards.
  CacheRig r("S:2:128:64,L:B:m:L:L,A:256:4,256");
  r.cfg.timed = true;
  r.build();
  const uint64_t written[] = {0x0000, 0x0080, 0x1000}, read[] = {0x2000, 0x2080};
  for (uint64_t a : written) timed(r, a + 0x20, 1, true);  // sector 1 of each
  for (uint64_t a : read) timed(r, a, 2);
  std::vector<std::pair<uint64_t, uint8_t>> wb;
  auto record = [](void *ctx, uint64_t line, uint8_t chunks) {
    static_cast<std::vector<std::pair<uint64_t, uint8_t>> *>(ctx)->push_back({line, chunks});
  };
  EXPECT_EQ(3u, cache_timed_flush(r.c, record, &wb));
  ASSERT_EQ(3u, wb.size());
  for (const auto &w : wb) EXPECT_EQ(0x2u, w.second) << std::hex << w.first;
  for (uint64_t a : written) EXPECT_FALSE(r.has_line(a));
  for (uint64_t a : read) EXPECT_EQ(CACHE_MISS, timed(r, a, 10).status);
  EXPECT_EQ(CACHE_HIT_RESERVED, timed(r, read[0], 11).status);  // placed again by its miss
}

TEST(CacheTimed, AWholeSectoredLineIsReadyWhenItsLastSectorIs) {
  // A 128-byte read covers all 4 sectors: a hit only once every sector's fill has landed, and a
  // pending hit until the latest one (sectors timed 40, 55, 30, 70: ready at 70).
  CacheRig r("S:4:128:2,L:B:m:F:L,A:4:4,4");
  r.cfg.timed = true;
  r.build();
  auto whole = [&](uint64_t now) {
    mem_req *q = r.read(0x1000, 128);
    cache_timed_result o{};
    cache_timed_access(r.c, q, now, &o);
    mem_req_free(q);
    return o;
  };
  cache_timed_result o = whole(1);
  EXPECT_EQ(CACHE_MISS, o.status);
  EXPECT_EQ(0xfu, o.fetch);
  const uint64_t at[4] = {40, 55, 30, 70};
  for (uint32_t k = 0; k < 4; k++) cache_timed_fill(r.c, 0x1000, (uint8_t)(1u << k), at[k]);
  cache_timed_fill(r.c, 0x1000, 0xf, 99);  // a second fill of timed sectors changes nothing
  EXPECT_EQ(70u, cache_timed_ready(r.c, 0x1000, 0xf));
  o = whole(60);
  EXPECT_EQ(CACHE_HIT_RESERVED, o.status);
  EXPECT_EQ(70u, o.ready);
  o = whole(70);
  EXPECT_EQ(CACHE_HIT, o.status);
  EXPECT_TRUE(o.data_port);
  EXPECT_EQ(30u, cache_timed_ready(r.c, 0x1040, 0x4));
}

TEST(CacheTimed, LinesBeyondAReducedAssociativityAreNotFound) {
  // 64 ways allocated, 64 in use: fill all; then 8 in use: the cache forgets every line, and no
  // lookup may find one of the old lines in a way beyond the eighth.
  CacheRig r("N:1:128:64,L:R:m:N:L,A:256:4,256");
  r.cfg.timed = true;
  r.build();
  for (uint64_t i = 0; i < 64; i++) timed(r, i * 0x1000, i + 1);
  EXPECT_EQ(CACHE_HIT_RESERVED, timed(r, 63 * 0x1000, 100).status);  // the last lookup: way 63
  ASSERT_EQ(SIMTVP_OK, cache_set_assoc(r.c, 8, &r.diag)) << r.diag.message;
  EXPECT_EQ(CACHE_NEVER, cache_timed_ready(r.c, 63 * 0x1000, 1));
  EXPECT_EQ(CACHE_MISS, timed(r, 63 * 0x1000, 101).status);
  for (uint64_t i = 0; i < 8; i++) EXPECT_EQ(CACHE_MISS, timed(r, i * 0x1000, 200 + i).status);
  EXPECT_EQ(CACHE_HIT_RESERVED, timed(r, 3 * 0x1000, 300).status);
}

// cache_timed_read_hit, tried before every plain read (a MISS then goes to cache_timed_access, as
// the interval core does), against a twin cache that takes every access through
// cache_timed_access: the same outcome, ready cycle and line at every step of a random mix of
// reads (sector masks, sizes without a mask), writes, atomics and fills, and every statistic equal
// at the end. Breaking the shortcut's LRU touch, its counting or its miss detection fails here.
void check_read_hit_twin(const char *spec, uint32_t lines) {
  CacheRig ref(spec), fast(spec);
  ref.cfg.timed = fast.cfg.timed = true;
  ref.build();
  fast.build();
  std::mt19937_64 rng(7);
  uint32_t shortcut_hits = 0, shortcut_misses = 0;
  for (uint64_t now = 1; now <= 6000; now++) {
    uint64_t addr = (rng() % lines) * 0x80 + (rng() % 4) * 0x20;
    uint32_t op = (uint32_t)(rng() % 8);
    if (op == 0) {  // a fill, maybe for a line gone since its miss, maybe late
      uint8_t chunks = (uint8_t)(1u + rng() % 15);
      uint64_t t = now + rng() % 40;
      cache_timed_fill(ref.c, addr & ~0x7full, chunks, t);
      cache_timed_fill(fast.c, addr & ~0x7full, chunks, t);
      continue;
    }
    mem_access_kind kind = op == 1 ? MEM_ACC_GLOBAL_W : op == 2 ? MEM_ACC_ATOMIC : MEM_ACC_GLOBAL_R;
    uint32_t size = op == 3 ? 8 : 32;
    uint8_t mask = op == 3 ? 0 : (uint8_t)(1u << ((addr >> 5) & 3));
    if (op == 4) {  // a whole line
      addr &= ~0x7full;
      size = 128;
      mask = 0xf;
    }
    mem_req *a = ref.req(addr, kind, size, kind != MEM_ACC_GLOBAL_R);
    a->sector_mask = mask;
    cache_timed_result want{};
    cache_timed_access(ref.c, a, now, &want);
    mem_req_free(a);
    cache_timed_result got{};
    uint64_t ready = 0, line = 0;
    cache_status st = kind == MEM_ACC_GLOBAL_W ? CACHE_MISS
                                               : cache_timed_read_hit(fast.c, addr, size, mask, (uint8_t)kind, now, &ready, &line);
    if (kind == MEM_ACC_ATOMIC) {
      ASSERT_EQ(CACHE_MISS, st) << "atomics take cache_timed_access";
    }
    if (st != CACHE_MISS) {
      shortcut_hits++;
      got.status = st;
      got.ready = ready;
      got.line = line;
      got.data_port = st == CACHE_HIT;
    } else {
      if (kind == MEM_ACC_GLOBAL_R) shortcut_misses++;
      mem_req *b = fast.req(addr, kind, size, kind != MEM_ACC_GLOBAL_R);
      b->sector_mask = mask;
      cache_timed_access(fast.c, b, now, &got);
      mem_req_free(b);
    }
    ASSERT_EQ(want.status, got.status) << std::hex << addr << std::dec << " at " << now;
    ASSERT_EQ(want.ready, got.ready) << std::hex << addr << std::dec << " at " << now;
    ASSERT_EQ(want.line, got.line) << std::hex << addr << std::dec << " at " << now;
    ASSERT_EQ(want.fetch, got.fetch) << std::hex << addr << std::dec << " at " << now;
    ASSERT_EQ(want.data_port, got.data_port) << std::hex << addr << std::dec << " at " << now;
  }
  EXPECT_GT(shortcut_hits, 500u);
  EXPECT_GT(shortcut_misses, 500u);
  ASSERT_EQ(stats_counter_count(ref.st), stats_counter_count(fast.st));
  for (uint32_t i = 0; i < stats_counter_count(ref.st); i++) {
    const char *name = stats_counter_name(ref.st, i);
    int found = 0;
    EXPECT_EQ(stats_get(ref.st, name, &found), stats_get(fast.st, name, &found)) << name;
  }
}

TEST(CacheTimed, AReadHitShortcutCountsAndTouchesAsTheFullAccessWithALineMap) {
  check_read_hit_twin("S:2:128:64,L:B:m:F:L,A:256:4,256", 200);
}

TEST(CacheTimed, AReadHitShortcutCountsAndTouchesAsTheFullAccessScanningTheSet) {
  check_read_hit_twin("S:4:128:2,L:L:s:N:L,A:8:4,8", 14);
}

TEST(CacheTimed, AReadHitShortcutCountsAndTouchesAsTheFullAccessUnsectored) {
  check_read_hit_twin("N:4:128:4,L:R:f:N:L,A:8:4,8", 24);
}

TEST(CacheTimed, AReadHitMemoNeverAnswersForALineReplacedSinceItWasFound) {
  // 1 set × 2 ways, unsectored: A (line 0x0000) and C (0x2000) share read-hit memo entry 0 (line
  // numbers 0 and 64, modulo 8). A is found by a read hit (remembered), then B and C replace it in
  // its way: the entry now points at C's way, which a read hit of A must not take for A.
  CacheRig r("N:1:128:2,L:R:m:N:L,A:8:4,8");
  r.cfg.timed = true;
  r.build();
  uint64_t ready = 0, line = 0;
  EXPECT_EQ(CACHE_MISS, timed(r, 0x0000, 1).status);
  cache_timed_fill(r.c, 0x0000, 1, 5);
  EXPECT_EQ(CACHE_HIT, cache_timed_read_hit(r.c, 0x0000, 32, 0, MEM_ACC_GLOBAL_R, 6, &ready, &line));
  EXPECT_EQ(CACHE_MISS, timed(r, 0x1000, 7).status);  // B
  EXPECT_EQ(CACHE_MISS, timed(r, 0x2000, 8).status);  // C replaces A (least recently used)
  cache_timed_fill(r.c, 0x2000, 1, 9);
  EXPECT_EQ(CACHE_MISS, cache_timed_read_hit(r.c, 0x0000, 32, 0, MEM_ACC_GLOBAL_R, 10, &ready, &line));
  EXPECT_EQ(CACHE_HIT, cache_timed_read_hit(r.c, 0x2000, 32, 0, MEM_ACC_GLOBAL_R, 11, &ready, &line));
  EXPECT_EQ(0x2000u, line);
  // 2 read hits + 3 misses through cache_timed_access; the MISS answer above counts nothing
  EXPECT_EQ(5u, counter(r, "L1D_cache_core[0].access"));
  EXPECT_EQ(2u, counter(r, "L1D_cache_stats_breakdown[GLOBAL_ACC_R][HIT]"));
}

TEST(CacheTimed, AReadHitMemoNeverAnswersForALineBeyondAReducedAssociativity) {
  // LinesBeyondAReducedAssociativityAreNotFound through cache_timed_read_hit: the line in way 63
  // is found (and remembered) by a read hit; with 8 ways in use it is gone.
  CacheRig r("N:1:128:64,L:R:m:N:L,A:256:4,256");
  r.cfg.timed = true;
  r.build();
  for (uint64_t i = 0; i < 64; i++) {
    timed(r, i * 0x1000, i + 1);
    cache_timed_fill(r.c, i * 0x1000, 1, i + 1);
  }
  uint64_t ready = 0, line = 0;
  EXPECT_EQ(CACHE_HIT, cache_timed_read_hit(r.c, 63 * 0x1000, 32, 0, MEM_ACC_GLOBAL_R, 100, &ready, &line));
  ASSERT_EQ(SIMTVP_OK, cache_set_assoc(r.c, 8, &r.diag)) << r.diag.message;
  EXPECT_EQ(CACHE_MISS, cache_timed_read_hit(r.c, 63 * 0x1000, 32, 0, MEM_ACC_GLOBAL_R, 101, &ready, &line));
}

TEST(CacheTimed, ReadHitsTakingTurnsAtEightLinesAreEachAHitOnItsOwnLine) {
  // A kernel's code lines (16 ways, a line map, as the L1I): 8 lines filled, then read in turn
  // 10 times — each read hit answers for its own line, with the fill's ready cycle until then.
  CacheRig r("N:1:128:16,L:R:f:N:L,S:2:48,4");
  r.cfg.timed = true;
  r.build();
  for (uint64_t i = 0; i < 8; i++) {
    EXPECT_EQ(CACHE_MISS, timed(r, i * 0x80, 1).status);
    cache_timed_fill(r.c, i * 0x80, 1, 50 + i);
  }
  uint64_t ready = 0, line = 0;
  for (uint64_t k = 0; k < 80; k++) {
    uint64_t i = k % 8, now = 10 + k;
    cache_status want = now >= 50 + i ? CACHE_HIT : CACHE_HIT_RESERVED;
    ASSERT_EQ(want, cache_timed_read_hit(r.c, i * 0x80, 8, 0, MEM_ACC_INST_R, now, &ready, &line)) << k;
    EXPECT_EQ(i * 0x80, line);
    EXPECT_EQ(want == CACHE_HIT ? now : 50 + i, ready);
  }
  EXPECT_EQ(88u, counter(r, "L1D_cache_core[0].access"));
}

TEST(CacheTimed, LazyFetchOnReadLeavesPartlyWrittenSectorsForAReadToFetch) {
  // Sectored, write-back, lazy fetch-on-read (L), as cache.c: a write covering a whole sector
  // makes it valid; one covering part of it leaves it written but unreadable (later writes to it
  // hit), and a read of it is a sector miss fetching it. Nothing is fetched by the writes.
  CacheRig r("S:4:128:2,L:B:m:L:L,A:4:4,4");
  r.cfg.timed = true;
  r.build();
  cache_timed_result o = timed(r, 0x1000, 1, true, 16);  // half of sector 0 of a new line
  EXPECT_EQ(CACHE_MISS, o.status);
  EXPECT_EQ(0u, o.fetch);
  EXPECT_EQ(CACHE_HIT, timed(r, 0x1010, 2, true, 16).status);  // the other half: lands on the written sector
  EXPECT_EQ(CACHE_MISS, timed(r, 0x1020, 3, true).status);      // sector 1 whole: a sector miss, valid now
  EXPECT_EQ(CACHE_HIT, timed(r, 0x1020, 4).status);
  o = timed(r, 0x1000, 5);  // sector 0: written in two halves, still to be fetched
  EXPECT_EQ(CACHE_MISS, o.status);
  EXPECT_EQ(0x1u, o.fetch);
  cache_timed_fill(r.c, 0x1000, 0x1, 40);
  EXPECT_EQ(CACHE_HIT, timed(r, 0x1000, 50).status);
  EXPECT_EQ(2u, counter(r, "L1D_cache_stats_breakdown[GLOBAL_ACC_R][HIT]"));
  EXPECT_EQ(1u, counter(r, "L1D_cache_stats_breakdown[GLOBAL_ACC_R][SECTOR_MISS]"));
  EXPECT_EQ(1u, counter(r, "L1D_cache_stats_breakdown[GLOBAL_ACC_W][HIT]"));
}

TEST(CacheTimed, ALinesSectorsAreItsChunksOrTheWholeLine) {
  // What a fill or write-back of some chunks reads or writes beyond the cache (cache_line_sectors):
  // a sectored cache's chunks; an unsectored 128-byte line all four sectors; a 64-byte line the
  // two sectors of the 128-byte line it spans.
  auto sectors = [](const char *spec, uint64_t line, uint8_t chunks) {
    CacheRig r(spec);
    r.cfg.timed = true;
    r.build();
    return cache_line_sectors(r.c, line, chunks);
  };
  EXPECT_EQ(0x5u, sectors("S:4:128:2,L:B:m:L:L,A:4:4,4", 0x1000, 0x5));
  EXPECT_EQ(0xFu, sectors("N:4:128:2,L:B:m:N:L,A:4:4,4", 0x1000, 0x1));
  EXPECT_EQ(0x3u, sectors("N:4:64:2,L:R:f:N:L,A:4:4,4", 0x1000, 0x1));
  EXPECT_EQ(0xCu, sectors("N:4:64:2,L:R:f:N:L,A:4:4,4", 0x1040, 0x1));
}

TEST(CacheTimed, AWriteEvictStoreIsForwardedAndDropsOnlyTheSectorsItWrites) {
  // Sectored, 4 sets × 2 ways, write-evict: a store to a line the cache does not hold is a
  // forwarded miss that places nothing; a store to a held line drops the sectors it writes (a hit
  // when they were all there, else a sector miss) and the line leaves with its last sector.
  CacheRig r("S:4:128:2,L:E:m:N:L,A:4:4,4");
  r.cfg.timed = true;
  r.build();
  cache_timed_result o = timed(r, 0x1000, 1, true);
  EXPECT_EQ(CACHE_MISS, o.status);
  EXPECT_TRUE(o.forward);
  EXPECT_EQ(0u, o.fetch);
  EXPECT_FALSE(r.has_line(0x1000));
  EXPECT_EQ(CACHE_MISS, timed(r, 0x2000, 2).status);  // sector 0 fetched
  EXPECT_EQ(CACHE_MISS, timed(r, 0x2020, 3).status);  // sector 1: a sector miss
  cache_timed_fill(r.c, 0x2000, 3, 10);
  o = timed(r, 0x2000, 20, true);  // sector 0, there: a hit, forwarded, sector 0 dropped
  EXPECT_EQ(CACHE_HIT, o.status);
  EXPECT_TRUE(o.forward);
  EXPECT_EQ(CACHE_NEVER, cache_timed_ready(r.c, 0x2000, 1));
  EXPECT_EQ(10u, cache_timed_ready(r.c, 0x2020, 2));
  EXPECT_EQ(CACHE_MISS, timed(r, 0x2000, 21, true).status);  // sector 0 again: a sector miss
  EXPECT_TRUE(r.has_line(0x2000));
  EXPECT_EQ(CACHE_HIT, timed(r, 0x2020, 22, true).status);  // the last sector: the line leaves
  EXPECT_FALSE(r.has_line(0x2000));
  // 6 accesses: misses 4 (a store and a read to absent lines, 2 sector misses), 4 forwarded
  EXPECT_EQ(6u, counter(r, "L1D_cache_core[0].access"));
  EXPECT_EQ(4u, counter(r, "L1D_cache_core[0].miss"));
  EXPECT_EQ(2u, counter(r, "L1D_cache_core[0].sector_miss"));
  EXPECT_EQ(4u, counter(r, "L1D_cache_core[0].forwarded"));
  EXPECT_EQ(1u, counter(r, "L1D_cache_stats_breakdown[GLOBAL_ACC_W][MISS]"));
  EXPECT_EQ(1u, counter(r, "L1D_cache_stats_breakdown[GLOBAL_ACC_W][SECTOR_MISS]"));
  EXPECT_EQ(2u, counter(r, "L1D_cache_stats_breakdown[GLOBAL_ACC_W][HIT]"));
}

// A timed miss takes the lowest free way among those in use (one bitmap word a set: the ways in
// use as a mask, kept by cache_set_assoc; more than 64 ways: a scan of the words). Once every way
// in use holds a line the next miss replaces the least recently used one, never a way beyond.
static void check_free_ways_then_lru(const char *spec, uint32_t ways, uint32_t in_use, uint32_t before = 0) {
  CacheRig r(spec);
  r.cfg.timed = true;
  r.build();
  if (before) {  // ways in use reduced first, then raised again: the mask follows both
    ASSERT_EQ(SIMTVP_OK, cache_set_assoc(r.c, before, &r.diag)) << r.diag.message;
  }
  if (in_use != ways || before) {
    ASSERT_EQ(SIMTVP_OK, cache_set_assoc(r.c, in_use, &r.diag)) << r.diag.message;
  }
  for (uint64_t i = 0; i < in_use; i++) EXPECT_EQ(CACHE_MISS, timed(r, i * 0x1000, i + 1).status) << i;
  for (uint64_t i = 0; i < in_use; i++) EXPECT_NE(CACHE_MISS, timed(r, i * 0x1000, 100 + i).status) << i;
  EXPECT_EQ(CACHE_MISS, timed(r, in_use * 0x1000ull, 300).status);  // replaces line 0 (LRU)
  for (uint64_t i = 1; i <= in_use; i++) EXPECT_NE(CACHE_MISS, timed(r, i * 0x1000, 400 + i).status) << i;
  EXPECT_EQ(CACHE_MISS, timed(r, 0, 500).status) << "line 0 should have been replaced";
}

TEST(CacheTimed, AMissTakesAFreeWayInUseThenTheLruLine) {
  check_free_ways_then_lru("N:1:128:64,L:R:m:N:L,A:256:4,256", 64, 64);
  check_free_ways_then_lru("N:1:128:64,L:R:m:N:L,A:256:4,256", 64, 24);
  check_free_ways_then_lru("N:1:128:64,L:R:m:N:L,A:256:4,256", 64, 40, 8);
  check_free_ways_then_lru("N:1:128:96,L:R:m:N:L,A:256:4,256", 96, 96);
  check_free_ways_then_lru("N:1:128:96,L:R:m:N:L,A:256:4,256", 96, 70);
}

static uint64_t set_bits_dropped(void *, uint64_t addr) { return addr & ~0x180ull; }

// A linear set index after the owner's index_addr (the L2 slices' translation) is taken inline:
// it must still be the hook's set. The hook sends every line to set 0, so 17 lines that a plain
// linear index would spread over four sets of 16 ways meet in one, and the 17th replaces the first.
TEST(CacheTimed, ALinearIndexAfterTheOwnersHookUsesTheHooksSet) {
  for (const char *spec : {"N:4:128:16,L:R:m:N:L,A:256:4,256", "N:4:128:4,L:R:m:N:L,A:256:4,256"}) {
    CacheRig r(spec);
    r.cfg.timed = true;
    r.cfg.index_addr = set_bits_dropped;
    r.build();
    uint32_t ways = cache_get_spec(r.c)->assoc;
    for (uint64_t i = 0; i <= ways; i++) {
      EXPECT_EQ(0u, cache_set_of(r.c, i * 0x80));
      EXPECT_EQ(CACHE_MISS, timed(r, i * 0x80, i + 1).status) << spec << " " << i;
    }
    for (uint64_t i = 1; i <= ways; i++) EXPECT_NE(CACHE_MISS, timed(r, i * 0x80, 100 + i).status) << spec << " " << i;
    EXPECT_EQ(CACHE_MISS, timed(r, 0, 200).status) << spec << ": line 0 should have been replaced";
  }
}
