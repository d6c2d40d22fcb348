// Helpers for the cache tests: a cache built from a configuration string, requests from a pool,
// and the owner's side of the protocol (drain the miss queue, answer fetches, pop replies).
#ifndef SIMTVP_TESTS_CACHE_TEST_UTIL_H
#define SIMTVP_TESTS_CACHE_TEST_UTIL_H

#include <gtest/gtest.h>

#include <string>
#include <vector>

extern "C" {
#include "cache.h"
#include "mem_req.h"
#include "stats.h"
}

struct CacheRig {
  mem_req_pool *pool = nullptr;  // the requester's pool (SIMT core / partition)
  stats *st = nullptr;
  cache *c = nullptr;
  cache_config cfg{};
  simtvp_diag diag{};

  explicit CacheRig(const char *spec, uint32_t hit_latency = 0, cache_level level = CACHE_LEVEL_L1,
                    const char *name = "L1D_cache_core[0]", const char *group = "L1D") {
    pool = mem_req_pool_create();
    st = stats_create();
    EXPECT_EQ(SIMTVP_OK, cache_spec_parse(spec, "-gpgpu_cache:test", &cfg.spec, &diag))
        << diag.message;
    cfg.level = level;
    cfg.hit_latency = hit_latency;
    cfg.stats = st;
    cfg.name = name;
    cfg.stats_group = group;
    cfg.stats_instance_breakdown = true;
  }
  // Creates the cache (after the test adjusted cfg).
  CacheRig &build() {
    EXPECT_EQ(SIMTVP_OK, cache_create(&cfg, &c, &diag)) << diag.message;
    return *this;
  }
  ~CacheRig() {
    cache_destroy(c);
    stats_destroy(st);
    mem_req_pool_destroy(pool);
  }

  mem_req *req(uint64_t addr, mem_access_kind kind, uint32_t size = 32, bool write = false) {
    mem_req *r = mem_req_alloc(pool);
    r->addr = addr;
    r->size = size;
    r->kind = (uint8_t)kind;
    r->is_write = write;
    r->needs_reply = true;
    r->sm = 3;
    r->warp = 7;
    return r;
  }
  mem_req *read(uint64_t addr, uint32_t size = 32) { return req(addr, MEM_ACC_GLOBAL_R, size); }
  mem_req *write(uint64_t addr, uint32_t size = 32, mem_access_kind k = MEM_ACC_GLOBAL_W) {
    return req(addr, k, size, true);
  }

  cache_status access(mem_req *r, uint64_t now, cache_outcome *o = nullptr) {
    return cache_access(c, r, now, o);
  }
  // Access that must be refused: the request stays with the caller, who frees it here.
  cache_fail_reason refused(mem_req *r, uint64_t now) {
    cache_outcome o{};
    EXPECT_EQ(CACHE_RESERVATION_FAIL, cache_access(c, r, now, &o));
    mem_req_free(r);
    return o.reason;
  }

  // Everything in the miss queue, in order.
  std::vector<mem_req *> drain_misses() {
    std::vector<mem_req *> v;
    while (mem_req *r = cache_miss_pop(c)) v.push_back(r);
    return v;
  }
  // The next level answers a fetch.
  void fill(mem_req *fetch, uint64_t now) {
    fetch->is_reply = true;
    EXPECT_TRUE(cache_fill(c, fetch, now));
  }
  std::vector<mem_req *> replies(uint64_t now) {
    std::vector<mem_req *> v;
    while (mem_req *r = cache_reply_pop(c, now)) v.push_back(r);
    return v;
  }
  // Frees requests handed out by the cache (the requester is the last holder).
  static void release(const std::vector<mem_req *> &v) {
    for (mem_req *r : v) mem_req_free(r);
  }
  uint64_t stat(const std::string &name) {
    int found = 0;
    uint64_t v = stats_get(st, name.c_str(), &found);
    EXPECT_TRUE(found) << name;
    return v;
  }
  cache_line_state line(uint64_t addr) {
    cache_line_state s{};
    EXPECT_TRUE(cache_line_lookup(c, addr, &s)) << std::hex << addr;
    return s;
  }
  bool has_line(uint64_t addr) { return cache_line_lookup(c, addr, nullptr); }
};

#endif  // SIMTVP_TESTS_CACHE_TEST_UTIL_H
