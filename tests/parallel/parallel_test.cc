// The pieces of parallel timing simulation (-sim_threads, docs/timing.md "Parallel simulation"):
// the worker pool, statistics shards, shared request pools, the domain driver's parallel phases
// and deferred work, and a whole memory system ticked on four threads against the same system on
// one. SystemC cases run one simulation per process (CTest runs each case alone).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "domain_driver.h"
#include "link.h"
#include "mem_system.h"
#include "traffic_gen.h"
#include "worker_pool.h"

extern "C" {
#include "mem_req.h"
#include "stats.h"
}

int sc_main(int, char *[]) { return 0; } // libsystemc refers to it; gtest's main runs the tests

using namespace simtvp;
using tlmtest::mem_access;
using tlmtest::traffic_gen;

namespace {

bool g_simulated = false;
#define ONE_SIMULATION_PER_PROCESS()                                                              \
  do {                                                                                            \
    if (g_simulated) GTEST_SKIP() << "SystemC runs one simulation per process; run this case alone"; \
    g_simulated = true;                                                                           \
  } while (0)

std::string json_of(const stats *s) {
  FILE *f = std::tmpfile();
  simtvp_diag d;
  simtvp_diag_clear(&d);
  EXPECT_EQ(stats_write_json_stream(s, f, &d), SIMTVP_OK) << d.message;
  std::rewind(f);
  std::string text;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
  return text;
}

// ---- worker pool -------------------------------------------------------------------------------

struct tally {
  std::vector<std::atomic<int>> hits;
  explicit tally(size_t n) : hits(n) {}
  static void item(void *ctx, size_t i) { static_cast<tally *>(ctx)->hits[i]++; }
};

TEST(WorkerPool, EveryItemRunsExactlyOnceWhateverTheThreadCount) {
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    worker_pool pool(threads);
    EXPECT_EQ(pool.threads(), threads ? threads : 1u);
    for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{7}, size_t{64}, size_t{1000}}) {
      tally t(n);
      pool.run(n, &tally::item, &t);
      for (size_t i = 0; i < n; i++) ASSERT_EQ(t.hits[i].load(), 1) << threads << " threads, item " << i << " of " << n;
    }
  }
}

TEST(WorkerPool, MoreItemsThanOneTicketHoldsRunInTurns) {
  // A ticket holds 65535 items; a run of more is handed out in turns, each item once.
  worker_pool pool(4);
  tally t(140000);
  pool.run(t.hits.size(), &tally::item, &t);
  for (size_t i = 0; i < t.hits.size(); i++) ASSERT_EQ(t.hits[i].load(), 1) << "item " << i;
}

TEST(WorkerPool, ManyShortRunsInARowEachSeeTheirOwnItems) {
  // What a simulation does: tens of thousands of tiny phases; a thread that wakes late must never
  // run an item of a run that is over, nor miss one of the current run.
  worker_pool pool(4);
  struct phase {
    uint64_t base;
    std::atomic<uint64_t> sum{0};
    static void item(void *ctx, size_t i) { static_cast<phase *>(ctx)->sum += static_cast<phase *>(ctx)->base + i; }
  };
  for (uint64_t r = 0; r < 20000; r++) {
    phase p;
    p.base = r * 1000;
    size_t n = 2 + r % 5;
    pool.run(n, &phase::item, &p);
    ASSERT_EQ(p.sum.load(), n * p.base + n * (n - 1) / 2) << "run " << r;
  }
  EXPECT_EQ(pool.runs(), 20000u);
}

// ---- statistics shards -------------------------------------------------------------------------

// The same registrations and counts, once on a sink and once through two shards of it: the JSON
// files are identical (order, names, per-kernel values, histograms).
TEST(StatsShards, CountingThroughShardsWritesTheSameJsonAsTheSinkItself) {
  stats *plain = stats_create(), *parent = stats_create();
  bool deferred = false;
  stats *a = stats_shard_create(parent, &deferred), *b = stats_shard_create(parent, &deferred);
  // Block A registers x and the aggregate total; block B registers total (shared) and y.
  struct sinks {
    stats *a, *b;
  };
  for (sinks s : {sinks{plain, plain}, sinks{a, b}}) {
    uint64_t *ax = stats_counter(s.a, "blk[0].x", "n", "x of block 0");
    uint64_t *at = stats_counter(s.a, "total", "n", "all blocks");
    uint64_t *bt = stats_counter(s.b, "total", "n", "all blocks");
    uint64_t *by = stats_counter(s.b, "blk[1].y", "n", "y of block 1");
    stats_ratio(s.b, "ratio", "y per total", "blk[1].y", "total");
    stats_histogram *ha = stats_histogram_register(s.a, "lat", "cycles", "latency", 4, 8);
    stats_histogram *hb = stats_histogram_register(s.b, "lat", "cycles", "latency", 4, 8);
    stats *top = s.a == plain ? plain : parent;
    stats_kernel_begin(top, "k1", 1);
    *ax += 3, *at += 3, *bt += 5, *by += 2;
    stats_histogram_add(ha, 1), stats_histogram_add(hb, 30), stats_histogram_add(hb, 9);
    stats_kernel_end(top);
    stats_kernel_begin(top, "k2", 2);
    *bt += 7;
    stats_histogram_add(ha, 100);
    stats_kernel_end(top);
  }
  EXPECT_EQ(json_of(parent), json_of(plain));
  int found = 0;
  EXPECT_EQ(stats_get(parent, "total", &found), 15u);
  EXPECT_TRUE(found);
  stats_destroy(parent);
  stats_destroy(plain);
}

TEST(StatsShards, RegistrationsInAParallelPhaseAreMadeInShardOrderAtTheSync) {
  stats *parent = stats_create();
  bool deferred = false;
  stats *a = stats_shard_create(parent, &deferred), *b = stats_shard_create(parent, &deferred);
  deferred = true;  // a parallel phase: b registers first in time, a second
  uint64_t *bz = stats_counter(b, "z", "n", "registered lazily by b");
  uint64_t *ay = stats_counter(a, "y", "n", "registered lazily by a");
  uint64_t *az = stats_counter(a, "z", "n", "registered lazily by a too");
  *bz += 1, *ay += 2, *az += 4;
  int found = 1;
  stats_get(b, "z", &found);
  EXPECT_TRUE(found) << "a shard sees its own pending registration";
  deferred = false;
  stats_shards_sync(parent);
  // Shard order (a before b), as a one-thread run ticking block a first would register them.
  std::string j = json_of(parent);
  size_t py = j.find("\"name\": \"y\""), pz = j.find("\"name\": \"z\"");
  ASSERT_NE(py, std::string::npos);
  ASSERT_NE(pz, std::string::npos);
  EXPECT_LT(py, pz);
  EXPECT_EQ(stats_get(parent, "z", &found), 5u);
  EXPECT_EQ(stats_get(parent, "y", &found), 2u);
  stats_destroy(parent);
}

TEST(StatsShards, ACounterTheParentsOwnUsersHoldIsUpToDateAfterEverySync) {
  // Simulation control reads gpu_sim_insn through its pointer: the sync after each parallel phase
  // must have added every shard's count to it.
  stats *parent = stats_create();
  bool deferred = false;
  stats *a = stats_shard_create(parent, &deferred), *b = stats_shard_create(parent, &deferred);
  uint64_t *ca = stats_counter(a, "gpu_sim_insn", "insn", "");
  uint64_t *cb = stats_counter(b, "gpu_sim_insn", "insn", "");
  const uint64_t *watched = stats_counter(parent, "gpu_sim_insn", "insn", "");
  *ca += 10, *cb += 32;
  stats_shards_sync(parent);
  EXPECT_EQ(*watched, 42u);
  *cb += 1;
  stats_shards_sync(parent);
  EXPECT_EQ(*watched, 43u);
  stats_destroy(parent);
}

// ---- shared request pools -------------------------------------------------------------------------

TEST(MemReqPool, ASharedPoolTakesFreesFromOtherThreadsWhileItsOwnerAllocates) {
  mem_req_pool *pool = mem_req_pool_create();
  mem_req_pool_set_shared(pool, true);
  const int kThreads = 4, kEach = 20000;
  std::vector<std::vector<mem_req *>> batches(kThreads);
  uint64_t expect_id = 0;
  for (int t = 0; t < kThreads; t++)
    for (int i = 0; i < kEach; i++) {
      mem_req *r = mem_req_alloc(pool);
      ASSERT_EQ(r->id, expect_id++) << "ids come in allocation order";
      batches[t].push_back(r);
    }
  EXPECT_EQ(mem_req_pool_outstanding(pool), size_t{kThreads * kEach});
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++)
    threads.emplace_back([&, t] {
      for (mem_req *r : batches[t]) mem_req_free(r);
    });
  // The owner keeps allocating (and freeing) while the others return theirs.
  for (int i = 0; i < kEach; i++) mem_req_free(mem_req_alloc(pool));
  for (std::thread &t : threads) t.join();
  EXPECT_EQ(mem_req_pool_outstanding(pool), 0u);
  // Everything came back: the next allocations reuse it before the pool grows.
  for (int i = 0; i < kThreads * kEach; i++) ASSERT_NE(mem_req_alloc(pool), nullptr);
  EXPECT_EQ(mem_req_pool_outstanding(pool), size_t{kThreads * kEach});
  mem_req_pool_destroy(pool);
}

// ---- the domain driver's parallel phases ----------------------------------------------------------

// A block that logs (in the serial phase) what it did at each edge.
struct logger : sc_core::sc_module, clocked {
  std::vector<std::string> *log;
  bool parallel;
  uint32_t id;
  uint64_t until;
  uint64_t cycle = 0;
  logger(sc_core::sc_module_name n, domain_driver &d, std::vector<std::string> *l, bool par, uint32_t i,
         uint64_t last)
      : sc_module(n), log(l), parallel(par), id(i), until(last) {
    d.add(*this);
    wake_at(1);
  }
  bool tick_in_parallel() const override { return parallel; }
  void tick(uint64_t c) override {
    cycle = c;
    EXPECT_EQ(deferring(), parallel);
    EXPECT_EQ(clocked::current_parallel(), parallel ? this : nullptr);
    std::string what = std::to_string(c) + ":" + std::to_string(id) + "a";
    serially([](void *ctx, const void *data, size_t n, uint64_t) {
      static_cast<logger *>(ctx)->log->push_back(std::string(static_cast<const char *>(data), n));
    }, this, what.data(), what.size());
    what.back() = 'b';
    serially([](void *ctx, const void *data, size_t n, uint64_t) {
      static_cast<logger *>(ctx)->log->push_back(std::string(static_cast<const char *>(data), n));
    }, this, what.data(), what.size());
  }
  uint64_t next_tick() const override { return cycle < until ? cycle + 1 : never; }
};

TEST(DomainDriverParallel, DeferredWorkRunsInRegistrationOrderAroundSerialBlocks) {
  ONE_SIMULATION_PER_PROCESS();
  // Blocks 0-2 parallel, 3 serial, 4-5 parallel: every edge logs 0a 0b 1a 1b … in registration
  // order, exactly as a one-thread driver ticking them one after the other would.
  worker_pool pool(4);
  domain_driver d("clock", clock_domain("c", 1000.0));
  d.set_workers(&pool);
  std::vector<std::string> log;
  std::vector<std::unique_ptr<logger>> blocks;
  for (uint32_t i = 0; i < 6; i++)
    blocks.push_back(std::make_unique<logger>(("b" + std::to_string(i)).c_str(), d, &log, i != 3, i, 3));
  sc_core::sc_start();
  std::vector<std::string> expect;
  for (uint64_t c = 1; c <= 3; c++)
    for (uint32_t i = 0; i < 6; i++)
      for (const char *k : {"a", "b"}) {
        expect.push_back(std::to_string(c) + ":" + std::to_string(i) + k);
      }
  EXPECT_EQ(log, expect);
  EXPECT_EQ(d.parallel_phases(), 6u) << "two parallel segments per edge (0-2 and 4-5), 3 edges";
  EXPECT_EQ(d.parallel_ticks(), 15u);
  EXPECT_EQ(d.ticks(), 18u);
}

// ---- a memory system on four threads ----------------------------------------------------------------

mem_system_config SmallSystem(stats *st, worker_pool *workers) {
  mem_system_config c;
  c.icnt_mhz = 1000.0;
  c.l2_mhz = 700.0;
  c.dram_mhz = 900.0;
  c.n_clusters = 4;
  c.n_channels = 4;
  c.n_sub = 2;
  icnt_config_default(&c.icnt);
  c.icnt.topology = ICNT_XBAR;
  mempart_config_default(&c.partition);
  c.partition.l2 = "S:16:128:4,L:B:m:L:L,A:32:4,8:0,32";
  dram_config_default(&c.dram);
  c.addr_mapping = "00000000000000000000000000000000RRRRRRRRRRRRRRRRBBBCCCDDCCCSSSSS";
  c.st = st;
  c.workers = workers;
  return c;
}

std::vector<mem_access> RandomTraffic(uint32_t seed, int n) {
  std::mt19937 rng(seed);
  std::vector<mem_access> list;
  for (int k = 0; k < n; k++) {
    uint64_t addr = (uint64_t)(rng() % (1u << 22)) & ~31ull;
    uint8_t kind = (rng() % 4 == 0) ? MEM_ACC_GLOBAL_W : MEM_ACC_GLOBAL_R;
    list.push_back({(uint64_t)k, addr, kind, 32, true});
  }
  return list;
}

struct system_under_test {
  std::unique_ptr<domain_driver> core;
  std::unique_ptr<mem_system> mem;
  std::vector<std::unique_ptr<traffic_gen>> gens;
  system_under_test(const std::string &n, const mem_system_config &cfg) {
    core = std::make_unique<domain_driver>((n + "_core_clock").c_str(), clock_domain("core", 1000.0));
    mem = std::make_unique<mem_system>((n + "_mem").c_str(), cfg);
    for (uint32_t c = 0; c < cfg.n_clusters; c++)
      gens.push_back(std::make_unique<traffic_gen>((n + "_cluster" + std::to_string(c)).c_str(), *core, *mem, c));
  }
};

TEST(SimThreadsMemory, PartitionsAndChannelsOnFourThreadsGiveTheOneThreadRunBitForBit) {
  ONE_SIMULATION_PER_PROCESS();
  // The same random traffic into two identical memory systems in one simulation, one ticked on
  // one thread, the other with its partitions and DRAM channels on four: every reply at the same
  // cycle, and the statistics JSON (every counter, histogram, per-kernel value) identical.
  worker_pool pool(4);
  stats *s1 = stats_create(), *s4 = stats_create();
  {
    system_under_test one("one", SmallSystem(s1, nullptr)), four("four", SmallSystem(s4, &pool));
    stats_kernel_begin(s1, "traffic", 1);
    stats_kernel_begin(s4, "traffic", 1);
    for (uint32_t c = 0; c < 4; c++) {
      one.gens[c]->script(RandomTraffic(40 + c, 1500));
      four.gens[c]->script(RandomTraffic(40 + c, 1500));
    }
    sc_core::sc_start();
    stats_kernel_end(s1);
    stats_kernel_end(s4);
    for (uint32_t c = 0; c < 4; c++) {
      const auto &r1 = one.gens[c]->records(), &r4 = four.gens[c]->records();
      ASSERT_EQ(one.gens[c]->replies(), 1500u);
      ASSERT_EQ(r1.size(), r4.size());
      for (size_t i = 0; i < r1.size(); i++) ASSERT_EQ(r1[i].replied, r4[i].replied) << "cluster " << c << " request " << i;
    }
    EXPECT_GT(four.mem->partition(0).driver()->parallel_phases(), 100u) << "the partitions did run in parallel";
    EXPECT_GT(four.mem->dram(0).driver()->parallel_phases(), 100u);
    EXPECT_EQ(one.mem->partition(0).driver()->parallel_phases(), 0u);
  }
  std::string j1 = json_of(s1), j4 = json_of(s4);
  EXPECT_GT(j1.size(), 1000u);
  EXPECT_TRUE(j1 == j4) << "the statistics differ between one and four threads";
  stats_destroy(s1);
  stats_destroy(s4);
}

}  // namespace
