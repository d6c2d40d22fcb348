// Read path of the cache: hits and misses, sectors, MSHR merging and its limits, miss queue,
// replacement, allocation on fill / streaming, hit latency, ports, the disabled cache.
#include "cache_test_util.h"

// 4 sets x 2 ways x 128 B, LRU, read-only, allocate on miss; 4 MSHRs merging 2, miss queue 4.
static const char *kSmall = "N:4:128:2,L:R:m:N:L,A:4:2,4";

TEST(CacheL1d, FirstReadMissesThenHits) {
  CacheRig r(kSmall);
  r.build();
  mem_req *a = r.read(0x1000);
  cache_outcome o{};
  EXPECT_EQ(CACHE_MISS, r.access(a, 1, &o));
  EXPECT_EQ(1, o.fetches);
  EXPECT_FALSE(o.sector_miss);
  auto misses = r.drain_misses();
  ASSERT_EQ(1u, misses.size());
  // One fetch of the whole 128-byte line, same kind and route as the request.
  EXPECT_EQ(0x1000u, misses[0]->addr);
  EXPECT_EQ(128u, misses[0]->size);
  EXPECT_EQ(MEM_ACC_GLOBAL_R, misses[0]->kind);
  EXPECT_FALSE(misses[0]->is_write);
  EXPECT_EQ(3, misses[0]->sm);
  EXPECT_EQ(0xFu, misses[0]->sector_mask);
  EXPECT_TRUE(r.replies(4).empty());  // nothing until the fill
  r.fill(misses[0], 5);
  auto rep = r.replies(5);
  ASSERT_EQ(1u, rep.size());
  EXPECT_EQ(a, rep[0]);
  EXPECT_TRUE(a->is_reply);
  CacheRig::release(rep);

  mem_req *b = r.read(0x1040);  // same line
  EXPECT_EQ(CACHE_HIT, r.access(b, 6));
  EXPECT_EQ(0u, cache_miss_queue_length(r.c));
  rep = r.replies(6);
  ASSERT_EQ(1u, rep.size());
  EXPECT_EQ(b, rep[0]);
  CacheRig::release(rep);
  EXPECT_TRUE(cache_is_idle(r.c));
  EXPECT_EQ(0u, mem_req_pool_outstanding(r.pool));
}

TEST(CacheL1d, HitLatencyDelaysTheReply) {
  CacheRig r(kSmall, /*hit_latency=*/20);
  r.build();
  r.access(r.read(0x1000), 0);
  r.fill(r.drain_misses()[0], 3);
  CacheRig::release(r.replies(3));  // a released miss is ready at its fill
  // Hit at cycle 10 with a 20-cycle latency: reply ready at 10 + 20 = 30.
  mem_req *b = r.read(0x1000);
  EXPECT_EQ(CACHE_HIT, r.access(b, 10));
  EXPECT_EQ(30u, cache_next_event(r.c));
  EXPECT_EQ(nullptr, cache_reply_pop(r.c, 29));
  EXPECT_EQ(b, cache_reply_pop(r.c, 30));
  mem_req_free(b);
  EXPECT_EQ(CACHE_NEVER, cache_next_event(r.c));
}

TEST(CacheL1d, SectorMissFetchesOnlyMissingSectors) {
  CacheRig r("S:4:128:4,L:R:m:N:L,A:8:4,4");
  r.build();
  // Sector 0 of line 0x2000: a 32-byte fetch.
  mem_req *a = r.read(0x2000, 32);
  EXPECT_EQ(CACHE_MISS, r.access(a, 1));
  auto m = r.drain_misses();
  ASSERT_EQ(1u, m.size());
  EXPECT_EQ(0x2000u, m[0]->addr);
  EXPECT_EQ(32u, m[0]->size);
  EXPECT_EQ(0x1u, m[0]->sector_mask);
  r.fill(m[0], 2);
  CacheRig::release(r.replies(2));
  EXPECT_EQ(0x1, r.line(0x2000).valid);  // only sector 0 is valid

  // Sectors 1 and 2 (bytes 32..95): a sector miss fetching just those two, 64 bytes at 0x2020.
  mem_req *b = r.read(0x2020, 64);
  cache_outcome o{};
  EXPECT_EQ(CACHE_MISS, r.access(b, 3, &o));
  EXPECT_TRUE(o.sector_miss);
  m = r.drain_misses();
  ASSERT_EQ(1u, m.size());
  EXPECT_EQ(0x2020u, m[0]->addr);
  EXPECT_EQ(64u, m[0]->size);
  EXPECT_EQ(0x6u, m[0]->sector_mask);
  EXPECT_EQ(0x6, r.line(0x2000).pending);
  EXPECT_EQ(CACHE_HIT, r.access(r.read(0x2000, 32), 4));  // sector 0 still hits
  r.fill(m[0], 5);
  EXPECT_EQ(0x7, r.line(0x2000).valid);
  EXPECT_EQ(0x0, r.line(0x2000).pending);
  CacheRig::release(r.replies(5));
  EXPECT_EQ(1u, r.stat("L1D_cache_core[0].sector_miss"));
}

TEST(CacheL1d, PendingHitMergesIntoMshr) {
  CacheRig r(kSmall);
  r.build();
  mem_req *a = r.read(0x1000), *b = r.read(0x1010);
  EXPECT_EQ(CACHE_MISS, r.access(a, 1));
  EXPECT_EQ(CACHE_HIT_RESERVED, r.access(b, 2));  // same line, fetch in flight: merged
  auto m = r.drain_misses();
  EXPECT_EQ(1u, m.size());  // no second fetch
  cache_occupancy occ;
  cache_get_occupancy(r.c, &occ);
  EXPECT_EQ(1u, occ.mshr_entries);
  EXPECT_EQ(2u, occ.merged);
  r.fill(m[0], 9);
  auto rep = r.replies(9);
  ASSERT_EQ(2u, rep.size());  // released in merge order
  EXPECT_EQ(a, rep[0]);
  EXPECT_EQ(b, rep[1]);
  CacheRig::release(rep);
  EXPECT_EQ(1u, r.stat("L1D_cache_core[0].pending_hit"));
  EXPECT_EQ(1u, r.stat("L1D_cache_core[0].miss"));
}

TEST(CacheL1d, FillsReleaseEachRequestWhenAllItsSectorsArriveInMergeOrder) {
  CacheRig r("S:4:128:4,L:R:m:N:L,A:8:4,8");
  r.build();
  mem_req *r1 = r.read(0x3000, 32);  // sector 0: miss
  mem_req *r2 = r.read(0x3000, 64);  // sectors 0,1: 1 missing → miss fetching sector 1 only
  mem_req *r3 = r.read(0x3020, 32);  // sector 1: in flight → pending hit
  EXPECT_EQ(CACHE_MISS, r.access(r1, 1));
  EXPECT_EQ(CACHE_MISS, r.access(r2, 2));
  EXPECT_EQ(CACHE_HIT_RESERVED, r.access(r3, 3));
  auto m = r.drain_misses();
  ASSERT_EQ(2u, m.size());
  EXPECT_EQ(0x1u, m[0]->sector_mask);
  EXPECT_EQ(0x2u, m[1]->sector_mask);
  r.fill(m[1], 10);  // sector 1 first: only r3 has everything it needs
  auto rep = r.replies(10);
  ASSERT_EQ(1u, rep.size());
  EXPECT_EQ(r3, rep[0]);
  r.fill(m[0], 12);  // sector 0: r1 and r2, in merge order
  auto rep2 = r.replies(12);
  ASSERT_EQ(2u, rep2.size());
  EXPECT_EQ(r1, rep2[0]);
  EXPECT_EQ(r2, rep2[1]);
  CacheRig::release(rep);
  CacheRig::release(rep2);
  EXPECT_TRUE(cache_is_idle(r.c));
}

TEST(CacheL1d, MshrMergeLimitGivesReservationFail) {
  CacheRig r(kSmall);  // max merge 2 (the first miss counts, as in GPGPU-Sim)
  r.build();
  EXPECT_EQ(CACHE_MISS, r.access(r.read(0x1000), 1));
  EXPECT_EQ(CACHE_HIT_RESERVED, r.access(r.read(0x1000), 2));
  EXPECT_EQ(CACHE_FAIL_MSHR_MERGE, r.refused(r.read(0x1000), 3));
  EXPECT_EQ(1u, r.stat("L1D_cache_core[0].reservation_fail"));
  EXPECT_EQ(1u, r.stat("L1D_cache_core[0].stats_fail_breakdown[GLOBAL_ACC_R][MSHR_MERGE_ENRTY_FAIL]"));
  r.fill(r.drain_misses()[0], 4);
  CacheRig::release(r.replies(4));
}

// Every waiter slot (MSHR entries x max merge) in use at once, twice over: those never used are
// taken as needed, the freed ones reused, and each fill still releases its own requests in merge
// order; destroying the cache with waiters held returns them to the pool.
TEST(CacheL1d, WaiterPoolFillsUpReleasesInMergeOrderAndIsReused) {
  CacheRig r("N:4:128:2,L:R:m:N:L,A:2:3,8");  // 2 entries x 3 merges: 6 waiters
  r.build();
  for (int round = 0; round < 2; round++) {
    const uint64_t lines[2] = {0x0000 + round * 0x1000ull, 0x0080 + round * 0x1000ull};
    std::vector<mem_req *> sent[2];
    for (int i = 0; i < 3; i++)
      for (int l = 0; l < 2; l++) {
        mem_req *q = r.read(lines[l] + 32 * i);
        EXPECT_EQ(i ? CACHE_HIT_RESERVED : CACHE_MISS, r.access(q, 1 + i)) << round;
        sent[l].push_back(q);
      }
    EXPECT_EQ(CACHE_FAIL_MSHR_MERGE, r.refused(r.read(lines[0]), 4));
    auto m = r.drain_misses();
    ASSERT_EQ(2u, m.size());
    r.fill(m[1], 10);  // the second line first: its three, in the order they merged
    auto rep = r.replies(10);
    EXPECT_EQ(rep, sent[1]) << round;
    r.fill(m[0], 11);
    auto rep0 = r.replies(11);
    EXPECT_EQ(rep0, sent[0]) << round;
    CacheRig::release(rep);
    CacheRig::release(rep0);
  }
  EXPECT_EQ(CACHE_MISS, r.access(r.read(0x5000), 20));  // held by the cache when it is destroyed
  EXPECT_EQ(CACHE_HIT_RESERVED, r.access(r.read(0x5000), 21));
  cache_destroy(r.c);  // its fetch goes with its own pool, the two waiting reads back to ours
  r.c = nullptr;
  EXPECT_EQ(0u, mem_req_pool_outstanding(r.pool));
}

TEST(CacheL1d, MshrEntriesExhaustedGivesReservationFail) {
  CacheRig r("N:4:128:2,L:R:m:N:L,A:2:2,8");  // 2 MSHR entries
  r.build();
  EXPECT_EQ(CACHE_MISS, r.access(r.read(0x0000), 1));
  EXPECT_EQ(CACHE_MISS, r.access(r.read(0x0080), 1));
  EXPECT_EQ(CACHE_FAIL_MSHR_ENTRY, r.refused(r.read(0x0100), 2));
  auto m = r.drain_misses();
  r.fill(m[0], 3);  // frees one entry
  mem_req *c3 = r.read(0x0100);
  EXPECT_EQ(CACHE_MISS, r.access(c3, 4));
  r.fill(m[1], 5);
  r.fill(r.drain_misses()[0], 6);
  CacheRig::release(r.replies(6));
  EXPECT_EQ(1u, r.stat("L1D_total_cache_reservation_fails"));
}

TEST(CacheL1d, SectorCacheCountsMshrCapacityInSectors) {
  CacheRig r("S:4:128:4,L:R:m:N:L,A:2:4,8");  // 2 sector MSHRs
  r.build();
  mem_req *a = r.read(0x0000, 64);  // sectors 0 and 1: both MSHR slots
  EXPECT_EQ(CACHE_MISS, r.access(a, 1));
  EXPECT_EQ(CACHE_FAIL_MSHR_ENTRY, r.refused(r.read(0x0080, 32), 2));  // 2 + 1 > 2
  cache_occupancy occ;
  cache_get_occupancy(r.c, &occ);
  EXPECT_EQ(1u, occ.mshr_entries);
  EXPECT_EQ(2u, occ.mshr_sectors);
  r.fill(r.drain_misses()[0], 3);
  CacheRig::release(r.replies(3));
}

TEST(CacheL1d, MissQueueFullGivesReservationFail) {
  CacheRig r("N:4:128:2,L:R:m:N:L,A:8:2,2");  // miss queue of 2
  r.build();
  EXPECT_EQ(CACHE_MISS, r.access(r.read(0x0000), 1));
  EXPECT_EQ(CACHE_MISS, r.access(r.read(0x0080), 1));
  EXPECT_EQ(CACHE_FAIL_MISS_QUEUE_FULL, r.refused(r.read(0x0100), 1));
  mem_req *first = cache_miss_pop(r.c);  // the interconnect takes one
  EXPECT_EQ(CACHE_MISS, r.access(r.read(0x0100), 2));
  r.fill(first, 3);
  for (mem_req *m : r.drain_misses()) r.fill(m, 4);
  CacheRig::release(r.replies(4));
  EXPECT_EQ(1u, r.stat("L1D_cache_stats_fail_breakdown[GLOBAL_ACC_R][MISS_QUEUE_FULL]"));
}

TEST(CacheL1d, AllLinesOfTheSetReservedGivesLineAllocFail) {
  CacheRig r("N:1:128:2,L:R:m:N:L,A:8:4,8");  // one set of two ways
  r.build();
  EXPECT_EQ(CACHE_MISS, r.access(r.read(0x0000), 1));
  EXPECT_EQ(CACHE_MISS, r.access(r.read(0x1000), 1));
  EXPECT_EQ(CACHE_FAIL_LINE_ALLOC, r.refused(r.read(0x2000), 2));
  auto m = r.drain_misses();
  r.fill(m[0], 3);  // line 0x0000 is no longer reserved: it becomes the victim
  EXPECT_EQ(CACHE_MISS, r.access(r.read(0x2000), 4));
  EXPECT_FALSE(r.has_line(0x0000));
  r.fill(m[1], 5);
  r.fill(r.drain_misses()[0], 6);
  CacheRig::release(r.replies(6));
}

// Loads A and B into a one-set two-way cache, then touches A.
static void load_ab_touch_a(CacheRig &r) {
  r.access(r.read(0x0000), 1);
  r.access(r.read(0x1000), 2);
  for (mem_req *m : r.drain_misses()) r.fill(m, 3);
  EXPECT_EQ(CACHE_HIT, r.access(r.read(0x0000), 4));
  CacheRig::release(r.replies(4));
}

TEST(CacheL1d, LruEvictsTheLeastRecentlyUsedLine) {
  CacheRig r("N:1:128:2,L:R:m:N:L,A:8:4,8");
  r.build();
  load_ab_touch_a(r);
  // Use order: A(1) B(2) A(4) → B is least recently used.
  r.access(r.read(0x2000), 5);
  EXPECT_TRUE(r.has_line(0x0000));
  EXPECT_FALSE(r.has_line(0x1000));
  r.fill(r.drain_misses()[0], 6);
  CacheRig::release(r.replies(6));
}

TEST(CacheL1d, FifoEvictsTheFirstAllocatedLine) {
  CacheRig r("N:1:128:2,F:R:m:N:L,A:8:4,8");
  r.build();
  load_ab_touch_a(r);
  // Allocation order: A(1) B(2); A's hit at 4 does not matter → A goes.
  r.access(r.read(0x2000), 5);
  EXPECT_FALSE(r.has_line(0x0000));
  EXPECT_TRUE(r.has_line(0x1000));
  r.fill(r.drain_misses()[0], 6);
  CacheRig::release(r.replies(6));
}

TEST(CacheL1d, AllocateOnFillTakesTheLineWhenTheFillArrives) {
  CacheRig r("N:1:128:1,L:R:f:N:L,A:8:4,8");  // one line only
  r.build();
  EXPECT_EQ(CACHE_MISS, r.access(r.read(0x0000), 1));
  EXPECT_FALSE(r.has_line(0x0000));                        // nothing reserved at the miss
  EXPECT_EQ(CACHE_MISS, r.access(r.read(0x1000), 1));      // so no line-allocation failure
  EXPECT_EQ(CACHE_HIT_RESERVED, r.access(r.read(0x0000), 2));  // merges through the MSHR
  auto m = r.drain_misses();
  ASSERT_EQ(2u, m.size());
  r.fill(m[0], 3);
  EXPECT_TRUE(r.has_line(0x0000));
  r.fill(m[1], 4);  // evicts 0x0000
  EXPECT_TRUE(r.has_line(0x1000));
  EXPECT_FALSE(r.has_line(0x0000));
  auto rep = r.replies(4);  // the two reads of 0x0000 and the read of 0x1000
  EXPECT_EQ(3u, rep.size());
  CacheRig::release(rep);
}

TEST(CacheL1d, StreamingNeverFailsOnLineAllocation) {
  CacheRig r("S:1:128:2,L:T:s:N:L,A:64:4,64");
  r.build();
  // 8 different lines into a one-set, two-way cache: all misses, none refused.
  for (uint64_t i = 0; i < 8; i++) EXPECT_EQ(CACHE_MISS, r.access(r.read(i * 0x1000), 1));
  auto m = r.drain_misses();
  ASSERT_EQ(8u, m.size());
  for (mem_req *f : m) r.fill(f, 2);
  CacheRig::release(r.replies(2));
  EXPECT_EQ(0u, r.stat("L1D_total_cache_reservation_fails"));
  EXPECT_TRUE(r.has_line(0x7000));
  EXPECT_TRUE(r.has_line(0x6000));
}

TEST(CacheL1d, RepliesToForwardedRequestsAreNotFills) {
  CacheRig r("N:4:128:2,L:T:m:N:L,A:4:2,4");
  r.build();
  mem_req *w = r.write(0x1000);
  EXPECT_EQ(CACHE_MISS, r.access(w, 1));
  auto m = r.drain_misses();
  ASSERT_EQ(1u, m.size());
  EXPECT_EQ(w, m[0]);  // the write itself goes on
  w->is_reply = true;  // the L2's acknowledgement comes back to the core
  EXPECT_FALSE(cache_fill(r.c, w, 5));
  mem_req_free(w);
}

TEST(CacheL1d, DisabledCacheForwardsEveryAccess) {
  CacheRig r("none");
  r.build();
  mem_req *a = r.read(0x1000);
  cache_outcome o{};
  EXPECT_EQ(CACHE_MISS, r.access(a, 1, &o));
  EXPECT_TRUE(o.forwarded);
  EXPECT_EQ(a, cache_miss_pop(r.c));
  EXPECT_FALSE(cache_fill(r.c, a, 2));
  mem_req_free(a);
  EXPECT_FALSE(cache_line_lookup(r.c, 0x1000, nullptr));
}

namespace {
struct PortLog {
  std::vector<mem_req *> got;
  int refuse = 0;  // refuse this many offers first
};
bool port_send(void *ctx, mem_req *r, uint64_t) {
  PortLog *p = static_cast<PortLog *>(ctx);
  if (p->refuse > 0) {
    p->refuse--;
    return false;
  }
  p->got.push_back(r);
  return true;
}
}  // namespace

TEST(CachePorts, MissesAndRepliesLeaveThroughPortsOnAdvance) {
  CacheRig r(kSmall, /*hit_latency=*/2);
  PortLog next, reply;
  next.refuse = 1;
  r.cfg.ports.next_level = {&next, port_send};
  r.cfg.ports.reply = {&reply, port_send};
  r.build();
  mem_req *a = r.read(0x1000);
  EXPECT_EQ(CACHE_MISS, r.access(a, 10));
  EXPECT_EQ(10u, cache_next_event(r.c));  // something to hand out now
  cache_advance(r.c, 10);                 // refused once
  EXPECT_TRUE(next.got.empty());
  EXPECT_EQ(11u, cache_next_event(r.c));  // offered again next cycle
  cache_advance(r.c, 11);
  ASSERT_EQ(1u, next.got.size());
  r.fill(next.got[0], 20);
  cache_advance(r.c, 20);
  ASSERT_EQ(1u, reply.got.size());
  EXPECT_EQ(a, reply.got[0]);
  mem_req *b = r.read(0x1000);
  EXPECT_EQ(CACHE_HIT, r.access(b, 21));
  EXPECT_EQ(23u, cache_next_event(r.c));  // 21 + 2
  cache_advance(r.c, 23);
  ASSERT_EQ(2u, reply.got.size());
  EXPECT_EQ(CACHE_NEVER, cache_next_event(r.c));
  CacheRig::release(reply.got);
}

namespace {
// A receiver that owns mem_req.next once it accepts: it links accepted requests into its own
// intrusive queue inside send, as the interconnect and the LDST unit do.
struct LinkingPort {
  mem_req *head = nullptr, *tail = nullptr;
  int accepted = 0, capacity = 0;
};
bool linking_send(void *ctx, mem_req *r, uint64_t) {
  LinkingPort *p = static_cast<LinkingPort *>(ctx);
  if (p->accepted == p->capacity) return false;
  r->next = nullptr;
  if (p->tail) p->tail->next = r;
  else p->head = r;
  p->tail = r;
  p->accepted++;
  return true;
}
}  // namespace

TEST(CachePorts, ReceiverMayLinkAcceptedRequestsThroughNextInsideSend) {
  CacheRig r(kSmall);
  LinkingPort next;
  next.capacity = 2;  // takes two of the three misses, refuses the third
  r.cfg.ports.next_level = {&next, linking_send};
  r.build();
  mem_req *a = r.read(0x1000), *b = r.read(0x1080), *c = r.read(0x1100);  // sets 0, 1, 2
  EXPECT_EQ(CACHE_MISS, r.access(a, 1));
  EXPECT_EQ(CACHE_MISS, r.access(b, 1));
  EXPECT_EQ(CACHE_MISS, r.access(c, 1));
  cache_advance(r.c, 1);
  ASSERT_EQ(2, next.accepted);
  // The receiver's queue holds exactly the first two fetches; the cache still holds the third.
  EXPECT_EQ(0x1000u, next.head->addr);
  EXPECT_EQ(0x1080u, next.head->next->addr);
  EXPECT_EQ(nullptr, next.head->next->next);
  EXPECT_EQ(1u, cache_miss_queue_length(r.c));
  ASSERT_NE(nullptr, cache_miss_peek(r.c));
  EXPECT_EQ(0x1100u, cache_miss_peek(r.c)->addr);
  EXPECT_EQ(2u, cache_next_event(r.c));  // refused: offered again next cycle
  next.capacity = 3;
  cache_advance(r.c, 2);
  EXPECT_EQ(3, next.accepted);
  EXPECT_EQ(0u, cache_miss_queue_length(r.c));
  std::vector<mem_req *> fetches;
  for (mem_req *m = next.head; m;) {
    mem_req *n = m->next;
    fetches.push_back(m);
    m = n;
  }
  ASSERT_EQ(3u, fetches.size());
  for (mem_req *m : fetches) r.fill(m, 3);
  CacheRig::release(r.replies(3));
}

TEST(CacheL1d, BanksAcceptOneAccessPerCycle) {
  CacheRig r(kSmall);
  r.cfg.n_banks = 4;
  r.cfg.bank_interleave_bytes = 128;
  r.build();
  EXPECT_EQ(1u, cache_bank(r.c, 0x80));
  EXPECT_EQ(0u, cache_bank(r.c, 0x200));  // (0x200 / 128) % 4 = 4 % 4 = 0
  EXPECT_TRUE(cache_bank_free(r.c, 0x000, 5));
  r.access(r.read(0x000), 5);
  EXPECT_FALSE(cache_bank_free(r.c, 0x200, 5));  // same bank, same cycle
  EXPECT_TRUE(cache_bank_free(r.c, 0x080, 5));   // other bank
  EXPECT_TRUE(cache_bank_free(r.c, 0x200, 6));   // next cycle
  r.fill(r.drain_misses()[0], 6);
  CacheRig::release(r.replies(6));
}

TEST(CacheL1d, DataPortWidthSetsHitOccupancy) {
  CacheRig r("N:4:128:2,L:R:m:N:L,A:4:2,4:0,32");  // 32 bytes per cycle
  r.build();
  r.access(r.read(0x1000), 0);
  r.fill(r.drain_misses()[0], 1);  // 128-byte fill: fill port busy 128/32 = 4 cycles
  EXPECT_FALSE(cache_fill_port_free(r.c, 4));
  EXPECT_TRUE(cache_fill_port_free(r.c, 5));
  CacheRig::release(r.replies(1));
  r.access(r.read(0x1000, 64), 10);  // 64-byte hit: data port busy 2 cycles (10, 11)
  EXPECT_FALSE(cache_data_port_free(r.c, 11));
  EXPECT_TRUE(cache_data_port_free(r.c, 12));
  CacheRig::release(r.replies(10));
  EXPECT_EQ(2u, r.stat("L1D_cache_core[0].data_port_busy"));
  EXPECT_EQ(4u, r.stat("L1D_cache_core[0].fill_port_busy"));
}

TEST(CacheL1c, SixtyFourByteLinesFetchTheirHalfOfThe128ByteLine) {
  // Constant cache string: 128 sets x 64 B x 8 ways, allocate on fill, 2 MSHRs merging 64.
  CacheRig r("N:128:64:8,L:R:f:N:L,S:2:64,4", 0, CACHE_LEVEL_L1, "L1C_cache_core[0]", "L1C");
  r.build();
  mem_req *a = r.req(0x10C4, MEM_ACC_CONST_R, 4);  // upper half of the 128-byte line 0x1080
  EXPECT_EQ(CACHE_MISS, r.access(a, 1));
  auto m = r.drain_misses();
  ASSERT_EQ(1u, m.size());
  // Line 0x10C0 (64 bytes) = sectors 2 and 3 of 0x1080; bytes 64..127 → byte_mask[1] all ones.
  EXPECT_EQ(0x10C0u, m[0]->addr);
  EXPECT_EQ(64u, m[0]->size);
  EXPECT_EQ(0xCu, m[0]->sector_mask);
  EXPECT_EQ(0ull, m[0]->byte_mask[0]);
  EXPECT_EQ(~0ull, m[0]->byte_mask[1]);
  EXPECT_EQ(MEM_ACC_CONST_R, m[0]->kind);
  r.fill(m[0], 2);
  CacheRig::release(r.replies(2));
  EXPECT_EQ(CACHE_HIT, r.access(r.req(0x10F8, MEM_ACC_CONST_R, 8), 3));
  EXPECT_EQ(CACHE_MISS, r.access(r.req(0x1080, MEM_ACC_CONST_R, 4), 3));  // the other half
  r.fill(r.drain_misses()[0], 4);
  CacheRig::release(r.replies(4));
  EXPECT_EQ(3u, r.stat("L1C_total_cache_accesses"));  // miss, hit, miss
}

// A coherence invalidation from the system (docs/system-modes.md §2.2) drops one line: the next
// access to it misses and fetches again, the other lines stay.
TEST(CacheL1d, InvalidatingOneLineMakesItsNextAccessMiss) {
  CacheRig r(kSmall);
  r.build();
  for (uint64_t a : {0x1000ull, 0x2000ull}) {
    r.access(r.read(a), 0);
    r.fill(r.drain_misses()[0], 3);
    CacheRig::release(r.replies(3));
  }
  EXPECT_TRUE(cache_line_lookup(r.c, 0x1000, nullptr));
  EXPECT_TRUE(cache_invalidate_line(r.c, 0x1010));  // any byte of the line
  EXPECT_FALSE(cache_line_lookup(r.c, 0x1000, nullptr));
  EXPECT_TRUE(cache_line_lookup(r.c, 0x2000, nullptr));
  EXPECT_FALSE(cache_invalidate_line(r.c, 0x1000));  // no longer held
  mem_req *a = r.read(0x1000);
  EXPECT_EQ(CACHE_MISS, r.access(a, 10));
  r.fill(r.drain_misses()[0], 12);
  CacheRig::release(r.replies(12));
  mem_req *b = r.read(0x2000);
  EXPECT_EQ(CACHE_HIT, r.access(b, 13));
  CacheRig::release(r.replies(100));
}
