// The system-level cache (models/syscache/syscache.h). Timing rule: a line hit completes at
// now + hit_ps; a miss fills through the memory port at now + hit_ps; a whole-line write miss
// needs no fill; a dirty victim is written back at now + hit_ps. Here the memory port is a fixed
// 100 ps and records every access, so each figure is a sum the comment shows.
#include <gtest/gtest.h>

#include <vector>

extern "C" {
#include "stats.h"
#include "syscache.h"
}

namespace {

struct MemAccess {
  uint64_t addr;
  uint32_t bytes;
  bool write;
  uint64_t at;
};

class SysCache : public ::testing::Test {
 protected:
  void make(uint32_t sets, uint32_t ways, uint32_t line = 64, uint64_t hit_ps = 10) {
    st_ = stats_create();
    syscache_config c{};
    c.sets = sets;
    c.ways = ways;
    c.line_bytes = line;
    c.hit_ps = hit_ps;
    c.port = {this, &SysCache::memory};
    c.stats = st_;
    simtvp_diag d;
    simtvp_diag_clear(&d);
    ASSERT_EQ(syscache_create(&c, &c_, &d), SIMTVP_OK) << d.message;
  }
  void TearDown() override {
    syscache_destroy(c_);
    if (st_) stats_destroy(st_);
  }
  static uint64_t memory(void *ctx, uint64_t addr, uint32_t bytes, bool write, uint64_t now) {
    auto *t = static_cast<SysCache *>(ctx);
    t->mem_.push_back({addr, bytes, write, now});
    return now + 100;
  }
  syscache_stats stats() const {
    syscache_stats s;
    syscache_get_stats(c_, &s);
    return s;
  }
  syscache *c_ = nullptr;
  ::stats *st_ = nullptr;
  std::vector<MemAccess> mem_;
};

TEST_F(SysCache, AMissFillsTheLineAndTheNextAccessHits) {
  make(4, 2);
  // miss: tag 10 ps, fill 100 ps from 10 → 110
  EXPECT_EQ(syscache_access(c_, 0x1000, 8, false, SOCMEM_HOST, 0), 110u);
  ASSERT_EQ(mem_.size(), 1u);
  EXPECT_EQ(mem_[0].addr, 0x1000u);
  EXPECT_EQ(mem_[0].bytes, 64u);
  EXPECT_FALSE(mem_[0].write);
  EXPECT_EQ(mem_[0].at, 10u);
  // same line, another agent: hit at 200 + 10
  EXPECT_EQ(syscache_access(c_, 0x1038, 8, false, SOCMEM_GPU, 200), 210u);
  EXPECT_EQ(mem_.size(), 1u);
  syscache_stats s = stats();
  EXPECT_EQ(s.misses[SOCMEM_HOST], 1u);
  EXPECT_EQ(s.hits[SOCMEM_GPU], 1u);
  EXPECT_EQ(s.fills, 1u);
  int found = 0;
  EXPECT_EQ(stats_get(st_, "syscache.gpu.hits", &found), 1u);
  EXPECT_TRUE(found);
}

TEST_F(SysCache, LruEvictsTheLeastRecentlyUsedWayAndWritesBackDirtyVictims) {
  make(2, 2);  // 2 sets x 2 ways of 64 B: lines 0x0, 0x80, 0x100 all map to set 0
  syscache_access(c_, 0x000, 4, true, SOCMEM_HOST, 0);   // miss, fill, line 0 dirty
  syscache_access(c_, 0x080, 4, false, SOCMEM_DMA, 0);   // miss, fill
  syscache_access(c_, 0x000, 4, false, SOCMEM_GPU, 0);   // hit: line 0 most recent
  mem_.clear();
  // 0x100 misses; the LRU way is 0x80 (clean): no write-back, one fill
  EXPECT_EQ(syscache_access(c_, 0x100, 4, false, SOCMEM_GPU, 1000), 1110u);
  ASSERT_EQ(mem_.size(), 1u);
  EXPECT_FALSE(syscache_probe(c_, 0x080, nullptr));
  // 0x080 again: the LRU way is now 0x000 (dirty): write-back at 1010, then the fill
  mem_.clear();
  EXPECT_EQ(syscache_access(c_, 0x080, 4, false, SOCMEM_DMA, 1000), 1110u);
  ASSERT_EQ(mem_.size(), 2u);
  EXPECT_TRUE(mem_[0].write);
  EXPECT_EQ(mem_[0].addr, 0x000u);
  EXPECT_EQ(mem_[0].at, 1010u);
  EXPECT_FALSE(mem_[1].write);
  syscache_stats s = stats();
  EXPECT_EQ(s.writebacks[SOCMEM_DMA], 1u);
  EXPECT_EQ(s.misses[SOCMEM_HOST] + s.misses[SOCMEM_DMA] + s.misses[SOCMEM_GPU], 4u);
  EXPECT_EQ(s.hits[SOCMEM_GPU], 1u);
}

TEST_F(SysCache, AWholeLineWriteMissAllocatesWithoutAFill) {
  make(8, 4);
  // 128 bytes at 0x40: lines 0x40 and 0x80 wholly written: no fill, done at 0 + 10
  EXPECT_EQ(syscache_access(c_, 0x40, 128, true, SOCMEM_DMA, 0), 10u);
  EXPECT_TRUE(mem_.empty());
  bool dirty = false;
  EXPECT_TRUE(syscache_probe(c_, 0x80, &dirty));
  EXPECT_TRUE(dirty);
  // 8 bytes at 0x1000 (a partial write): fill at 10, done at 110
  EXPECT_EQ(syscache_access(c_, 0x1000, 8, true, SOCMEM_DMA, 0), 110u);
  EXPECT_EQ(stats().fills, 1u);
}

TEST_F(SysCache, AnAccessOverSeveralLinesLooksThemUpInParallel) {
  make(16, 2);
  syscache_access(c_, 0x40, 4, false, SOCMEM_GPU, 0);  // line 0x40 present
  // 0x20..0x9f: lines 0x0 (miss), 0x40 (hit), 0x80 (miss): done at the slower fill, 500 + 110
  EXPECT_EQ(syscache_access(c_, 0x20, 128, false, SOCMEM_HOST, 500), 610u);
  syscache_stats s = stats();
  EXPECT_EQ(s.hits[SOCMEM_HOST], 1u);
  EXPECT_EQ(s.misses[SOCMEM_HOST], 2u);
}

TEST(SysCacheConfig, BadGeometryNamesTheOption) {
  syscache_config c{};
  c.sets = 4;
  c.ways = 2;
  c.line_bytes = 48;
  c.port.memory = [](void *, uint64_t, uint32_t, bool, uint64_t now) { return now; };
  syscache *s = nullptr;
  simtvp_diag d;
  simtvp_diag_clear(&d);
  EXPECT_EQ(syscache_create(&c, &s, &d), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(d.option, "-syscache_line_bytes");
  c.line_bytes = 64;
  c.ways = 0;
  EXPECT_EQ(syscache_create(&c, &s, &d), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(d.option, "-syscache_ways");
  c.ways = 2;
  c.sets = 0;
  EXPECT_EQ(syscache_create(&c, &s, &d), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(d.option, "-syscache_sets");
  EXPECT_EQ(s, nullptr);
}

TEST(SysCacheDeterminism, TheSameSequenceGivesTheSameTimes) {
  auto run = []() {
    syscache_config c{};
    c.sets = 8;
    c.ways = 2;
    c.line_bytes = 64;
    c.hit_ps = 7;
    c.port.memory = [](void *, uint64_t a, uint32_t, bool w, uint64_t now) { return now + 50 + (a & 0x40) + (w ? 3 : 0); };
    syscache *s = nullptr;
    simtvp_diag d;
    simtvp_diag_clear(&d);
    EXPECT_EQ(syscache_create(&c, &s, &d), SIMTVP_OK);
    uint64_t sum = 0;
    for (uint64_t i = 0; i < 1000; i++)
      sum += syscache_access(s, (i * 2654435761u) & 0xffff, 1 + i % 200, i % 3 == 0, (socmem_agent)(i % 3), i * 10);
    syscache_destroy(s);
    return sum;
  };
  EXPECT_EQ(run(), run());
}

}  // namespace
