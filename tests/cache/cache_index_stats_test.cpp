// Set-index functions (L, H, P, X), statistics under GPGPU-Sim's names, and a long random run
// that must drain cleanly and give the same counts twice.
#include <set>

#include "cache_test_util.h"

TEST(CacheIndex, LinearIndexIsTheLineNumberModuloSets) {
  CacheRig r("N:4:128:2,L:R:m:N:L,A:4:2,4");
  r.build();
  EXPECT_EQ(3u, cache_set_of(r.c, 0x1380));  // line 0x27 = 39; 39 mod 4 = 3
  CacheRig r24("N:24:128:1,L:R:m:N:L,A:4:2,4");
  r24.build();
  EXPECT_EQ(1u, cache_set_of(r24.c, 25 * 128));  // 25 mod 24 = 1
  EXPECT_EQ(23u, cache_set_of(r24.c, 47 * 128 + 5));
}

TEST(CacheIndex, FermiHashXorsUpperAddressBitsIntoTheIndex) {
  CacheRig r("N:32:128:4,L:R:m:N:H,A:4:2,4");
  r.build();
  // 0x80: bits 7-11 = 1, upper bits 0 → set 1.
  EXPECT_EQ(1u, cache_set_of(r.c, 0x80));
  // 0x2000: bits 7-11 = 0, bit 13 → upper bit 0 → set 1 (collides with 0x80).
  EXPECT_EQ(1u, cache_set_of(r.c, 0x2000));
  // 0x2080: 1 ^ 1 = 0.
  EXPECT_EQ(0u, cache_set_of(r.c, 0x2080));
  // 0x80000: bit 19 → upper bit 4 → set 16.  0x20000: bit 17 → upper bit 3 → set 8.
  EXPECT_EQ(16u, cache_set_of(r.c, 0x80000));
  EXPECT_EQ(8u, cache_set_of(r.c, 0x20000));
  // 64 sets: address bit 12 is index bit 5.
  CacheRig r64("N:64:128:6,L:L:m:N:H,A:128:8,8");
  r64.build();
  EXPECT_EQ(32u, cache_set_of(r64.c, 0x1000));
  EXPECT_EQ(33u, cache_set_of(r64.c, 0x3000));  // bit 12 → 32, bit 13 → upper 1 → 33
}

TEST(CacheIndex, IpolyIsTheLineNumberModuloAnIrreduciblePolynomial) {
  CacheRig r("N:32:128:4,L:R:m:N:P,A:4:2,4");  // x^5 + x^2 + 1
  r.build();
  EXPECT_EQ(7u, cache_set_of(r.c, 7 * 128));  // below 32 lines: the line number itself
  // Line 32 = x^5 ≡ x^2 + 1 = 0b00101 = 5.  Line 64 = x^6 ≡ x^3 + x = 0b01010 = 10.
  EXPECT_EQ(5u, cache_set_of(r.c, 32 * 128));
  EXPECT_EQ(10u, cache_set_of(r.c, 64 * 128));
  // Line 33 = x^5 + 1 ≡ x^2 = 4 (the residues add, over GF(2)).
  EXPECT_EQ(4u, cache_set_of(r.c, 33 * 128));
}

TEST(CacheIndex, IpolySpreadsPowerOfTwoStridesOverAllSets) {
  // Lines k * 32 (a 4 KB stride), k = 0..31: x^5 * k(x) mod P is a bijection on degree-<5
  // polynomials because P is irreducible, so the 32 lines take 32 different sets. A linear
  // index would put all of them in set 0.
  CacheRig r("N:32:128:4,L:R:m:N:P,A:4:2,4");
  r.build();
  std::set<uint32_t> sets;
  for (uint64_t k = 0; k < 32; k++) sets.insert(cache_set_of(r.c, k * 32 * 128));
  EXPECT_EQ(32u, sets.size());
}

TEST(CacheIndex, XorIndexXorsTheLowTagBits) {
  CacheRig r("N:4:128:2,L:R:m:N:X,A:4:2,4");
  r.build();
  // Line 7 = 0b111: index 0b11 XOR tag-low (7 >> 2) & 3 = 0b01 → 0b10 = 2.
  EXPECT_EQ(2u, cache_set_of(r.c, 7 * 128));
  EXPECT_EQ(3u, cache_set_of(r.c, 3 * 128));
}

TEST(CacheStats, CountsEveryOutcomeUnderGpgpuSimNames) {
  CacheRig r("N:4:128:2,L:R:m:N:L,A:4:2,1");
  r.cfg.stats_total_alias = "dl1";
  r.build();
  r.access(r.read(0x1000), 1);                                              // MISS
  r.access(r.read(0x1000), 2);                                              // HIT_RESERVED
  EXPECT_EQ(CACHE_FAIL_MISS_QUEUE_FULL, r.refused(r.read(0x2000), 2));      // RESERVATION_FAIL
  r.fill(r.drain_misses()[0], 3);
  r.access(r.req(0x1000, MEM_ACC_LOCAL_R), 4);                              // HIT
  CacheRig::release(r.replies(4));
  // Accesses exclude reservation failures (GPGPU-Sim): 3 accepted, 1 miss, 1 pending hit.
  EXPECT_EQ(3u, r.stat("L1D_cache_core[0].access"));
  EXPECT_EQ(1u, r.stat("L1D_cache_core[0].miss"));
  EXPECT_EQ(1u, r.stat("L1D_cache_core[0].pending_hit"));
  EXPECT_EQ(1u, r.stat("L1D_cache_core[0].reservation_fail"));
  EXPECT_EQ(1u, r.stat("L1D_cache_core[0].fill"));
  EXPECT_EQ(3u, r.stat("L1D_total_cache_accesses"));
  EXPECT_EQ(1u, r.stat("L1D_total_cache_misses"));
  EXPECT_EQ(1u, r.stat("L1D_total_cache_pending_hits"));
  EXPECT_EQ(1u, r.stat("L1D_total_cache_reservation_fails"));
  EXPECT_EQ(1u, r.stat("L1D_cache_stats_breakdown[GLOBAL_ACC_R][MISS]"));
  EXPECT_EQ(1u, r.stat("L1D_cache_stats_breakdown[GLOBAL_ACC_R][HIT_RESERVED]"));
  EXPECT_EQ(1u, r.stat("L1D_cache_stats_breakdown[GLOBAL_ACC_R][RESERVATION_FAIL]"));
  EXPECT_EQ(1u, r.stat("L1D_cache_stats_breakdown[LOCAL_ACC_R][HIT]"));
  EXPECT_EQ(1u, r.stat("L1D_cache_stats_fail_breakdown[GLOBAL_ACC_R][MISS_QUEUE_FULL]"));
  EXPECT_EQ(1u, r.stat("L1D_cache_core[0].stats_breakdown[LOCAL_ACC_R][HIT]"));
  EXPECT_EQ(3u, r.stat("total_dl1_accesses"));
  EXPECT_EQ(1u, r.stat("total_dl1_misses"));
  int found = 0;
  EXPECT_DOUBLE_EQ(1.0 / 3.0, stats_get_ratio(r.st, "L1D_total_cache_miss_rate", &found));
  EXPECT_TRUE(found);
  EXPECT_DOUBLE_EQ(1.0 / 3.0, stats_get_ratio(r.st, "total_dl1_miss_rate", &found));
  EXPECT_DOUBLE_EQ(1.0 / 3.0, stats_get_ratio(r.st, "L1D_cache_core[0].miss_rate", &found));
}

TEST(CacheStats, GroupTotalsSumOverInstances) {
  CacheRig r("N:4:128:2,L:R:m:N:L,A:4:2,4");
  r.build();
  cache_config cfg2 = r.cfg;
  cfg2.name = "L1D_cache_core[1]";
  cache *c2 = nullptr;
  ASSERT_EQ(SIMTVP_OK, cache_create(&cfg2, &c2, nullptr));
  r.access(r.read(0x1000), 1);
  mem_req *b = r.read(0x5000);
  cache_access(c2, b, 1, nullptr);
  cache_access(c2, r.read(0x5000), 1, nullptr);
  EXPECT_EQ(1u, r.stat("L1D_cache_core[0].access"));
  EXPECT_EQ(2u, r.stat("L1D_cache_core[1].access"));
  EXPECT_EQ(3u, r.stat("L1D_total_cache_accesses"));
  EXPECT_EQ(2u, r.stat("L1D_total_cache_misses"));
  cache_destroy(c2);  // returns what it still holds to the pools
  EXPECT_EQ(0u, r.stat("L1D_total_cache_reservation_fails"));
}

// The group's and the alias's counters are resolved once per sink and shared: a cache built after
// the group's first counted an outcome uses that breakdown counter, and one the later cache
// registers first (a failure breakdown) is the one the first cache then counts in.
TEST(CacheStats, GroupCountersAreSharedByCachesBuiltBeforeAndAfterFirstUse) {
  CacheRig r("N:4:128:2,L:R:m:N:L,A:4:2,1");  // a one-entry miss queue: the second miss is refused
  r.cfg.stats_total_alias = "dl1";
  r.build();
  r.access(r.read(0x1000), 1);  // core 0: GLOBAL_ACC_R MISS, registered by core 0
  cache_config cfg2 = r.cfg;
  cfg2.name = "L1D_cache_core[1]";
  cache *c2 = nullptr;
  ASSERT_EQ(SIMTVP_OK, cache_create(&cfg2, &c2, nullptr));
  cache_access(c2, r.read(0x5000), 1, nullptr);  // core 1: the same breakdown counter
  mem_req *refused = r.read(0x6000);
  EXPECT_EQ(CACHE_RESERVATION_FAIL, cache_access(c2, refused, 2, nullptr));  // registered by core 1
  mem_req_free(refused);
  EXPECT_EQ(CACHE_FAIL_MISS_QUEUE_FULL, r.refused(r.read(0x7000), 2));  // core 0: core 1's counter
  EXPECT_EQ(2u, r.stat("L1D_cache_stats_breakdown[GLOBAL_ACC_R][MISS]"));
  EXPECT_EQ(2u, r.stat("L1D_cache_stats_breakdown[GLOBAL_ACC_R][RESERVATION_FAIL]"));
  EXPECT_EQ(2u, r.stat("L1D_cache_stats_fail_breakdown[GLOBAL_ACC_R][MISS_QUEUE_FULL]"));
  EXPECT_EQ(2u, r.stat("L1D_total_cache_accesses"));
  EXPECT_EQ(2u, r.stat("L1D_total_cache_reservation_fails"));
  EXPECT_EQ(2u, r.stat("total_dl1_accesses"));
  EXPECT_EQ(2u, r.stat("total_dl1_misses"));
  EXPECT_EQ(1u, r.stat("L1D_cache_core[0].reservation_fail"));
  EXPECT_EQ(1u, r.stat("L1D_cache_core[1].reservation_fail"));
  cache_destroy(c2);
}

TEST(CacheStats, NoStatsSinkCountsNothingAndStillWorks) {
  CacheRig r("N:4:128:2,L:R:m:N:L,A:4:2,4");
  r.cfg.stats = nullptr;
  r.build();
  EXPECT_EQ(CACHE_MISS, r.access(r.read(0x1000), 1));
  r.fill(r.drain_misses()[0], 2);
  CacheRig::release(r.replies(2));
  int found = 1;
  stats_get(r.st, "L1D_total_cache_accesses", &found);
  EXPECT_FALSE(found);
}

namespace {

// One run of random traffic against a cache; returns a digest of everything observable.
struct Digest {
  uint64_t hash = 1469598103934665603ull;
  void add(uint64_t v) { hash = (hash ^ v) * 1099511628211ull; }
};

uint64_t random_run(const char *spec, cache_level level, size_t *leftover) {
  CacheRig r(spec, /*hit_latency=*/3, level, "X[0]", "X");
  r.build();
  uint64_t seed = 12345;
  auto rnd = [&seed](uint64_t n) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (seed >> 33) % n;
  };
  struct Pending {
    mem_req *req;
    uint64_t due;
  };
  std::vector<Pending> memory;  // the next level: answers fetches after a random delay
  Digest d;
  mem_req *retry = nullptr;
  for (uint64_t now = 0; now < 20000 || !cache_is_idle(r.c) || !memory.empty() || retry; now++) {
    if (now > 200000) {
      ADD_FAILURE() << spec << ": no progress (deadlock?)";
      break;
    }
    bool issue = now < 20000;
    if (issue && !retry) {
      uint64_t line = (rnd(4) ? rnd(48) : rnd(4096)) * 128;  // hot lines and a cold tail
      uint32_t sector = (uint32_t)rnd(4);
      bool write = rnd(4) == 0;
      mem_access_kind k = write ? (rnd(2) ? MEM_ACC_GLOBAL_W : MEM_ACC_LOCAL_W)
                                : (rnd(8) == 0 ? MEM_ACC_ATOMIC : MEM_ACC_GLOBAL_R);
      retry = r.req(line + sector * 32, k, 32, write);
      retry->needs_reply = !write || rnd(2);
    }
    if (retry) {
      cache_outcome o{};
      cache_status st = cache_access(r.c, retry, now, &o);
      d.add(st * 16 + o.reason);
      if (st != CACHE_RESERVATION_FAIL) retry = nullptr;
    }
    if (rnd(3)) {  // the interconnect takes at most one request a cycle, not always
      if (mem_req *m = cache_miss_pop(r.c)) {
        d.add(m->addr ^ (uint64_t)m->kind << 40 ^ (uint64_t)m->sector_mask << 48);
        if (m->owner_ctx == r.c && !m->is_write) memory.push_back({m, now + 5 + rnd(40)});
        else mem_req_free(m);  // write-backs and forwarded writes: consumed below
      }
    }
    for (size_t i = 0; i < memory.size();) {  // fills in due order, ties by arrival
      if (memory[i].due <= now) {
        memory[i].req->is_reply = true;
        EXPECT_TRUE(cache_fill(r.c, memory[i].req, now));
        memory.erase(memory.begin() + (long)i);
      } else {
        i++;
      }
    }
    while (mem_req *rep = cache_reply_pop(r.c, now)) {
      d.add(rep->id);
      mem_req_free(rep);
    }
  }
  d.add(r.stat("X_total_cache_accesses"));
  d.add(r.stat("X_total_cache_misses"));
  d.add(r.stat("X_total_cache_pending_hits"));
  d.add(r.stat("X_total_cache_reservation_fails"));
  EXPECT_GT(r.stat("X_total_cache_misses"), 500u) << spec;
  EXPECT_GT(r.stat("X_total_cache_accesses"), r.stat("X_total_cache_misses")) << spec;
  EXPECT_TRUE(cache_is_idle(r.c));
  *leftover = mem_req_pool_outstanding(r.pool);
  return d.hash;
}

}  // namespace

TEST(CacheStress, RandomTrafficDrainsCleanlyAndRepeatsExactly) {
  const struct { const char *spec; cache_level level; } cases[] = {
      {"S:32:128:24,L:B:m:L:P,A:192:4,32:0,32", CACHE_LEVEL_L2},  // L2 slice
      {"S:2:128:4,L:B:m:F:X,A:8:2,4:0,32", CACHE_LEVEL_L2},       // tiny: lots of failures
      {"S:4:128:64,L:T:m:L:L,A:512:8,16:0,32", CACHE_LEVEL_L1},   // Volta L1D
      {"N:64:128:6,L:L:m:N:H,A:128:8,8", CACHE_LEVEL_L1},         // Fermi L1D
      {"N:2:128:2,F:T:f:W:L,A:4:2,4", CACHE_LEVEL_L1},            // on fill, write-allocate
      {"S:2:128:2,L:T:s:N:L,A:8:4,4", CACHE_LEVEL_L1},            // streaming
      {"N:4:128:4,L:R:m:N:L,T:8:2,4:2", CACHE_LEVEL_L1},          // texture
  };
  for (auto &k : cases) {
    size_t left1 = 1, left2 = 1;
    uint64_t h1 = random_run(k.spec, k.level, &left1);
    uint64_t h2 = random_run(k.spec, k.level, &left2);
    EXPECT_EQ(h1, h2) << k.spec;
    EXPECT_EQ(0u, left1) << k.spec << ": every request came back to its pool";
    EXPECT_EQ(0u, left2) << k.spec;
  }
}
