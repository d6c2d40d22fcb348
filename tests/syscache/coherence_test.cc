// The MESI directory (models/coherence/coherence.h). Timing rule: a request costs lookup_ps (5);
// one that sends messages waits one message_ps (40) more; a write-back the directory asks for must
// also complete (the port here answers now + 100). Host and GPU cache (caching mask), the copy
// engines (DMA) do not.
#include <gtest/gtest.h>

#include <vector>

extern "C" {
#include "coherence.h"
#include "stats.h"
}

namespace {

struct Inval {
  socmem_agent agent;
  uint64_t line;
};

class Directory : public ::testing::Test {
 protected:
  void SetUp() override { make(64, 4); }
  void make(uint32_t sets, uint32_t ways) {
    if (d_) coherence_destroy(d_);
    coherence_config c{};
    c.sets = sets;
    c.ways = ways;
    c.line_bytes = 64;
    c.caching = (1u << SOCMEM_HOST) | (1u << SOCMEM_GPU);
    c.lookup_ps = 5;
    c.message_ps = 40;
    c.port = {this, &Directory::invalidate, &Directory::writeback};
    simtvp_diag d;
    simtvp_diag_clear(&d);
    ASSERT_EQ(coherence_create(&c, &d_, &d), SIMTVP_OK) << d.message;
  }
  void TearDown() override { coherence_destroy(d_); }
  static void invalidate(void *ctx, socmem_agent a, uint64_t line) {
    static_cast<Directory *>(ctx)->inval_.push_back({a, line});
  }
  static uint64_t writeback(void *ctx, socmem_agent, uint64_t, uint64_t now) {
    static_cast<Directory *>(ctx)->writebacks_++;
    return now + 100;
  }
  coherence_state st(uint64_t a, socmem_agent who) const { return coherence_state_of(d_, a, who); }
  coherence_stats stats() const {
    coherence_stats s;
    coherence_get_stats(d_, &s);
    return s;
  }
  coherence *d_ = nullptr;
  std::vector<Inval> inval_;
  int writebacks_ = 0;
};

TEST_F(Directory, AFirstReaderGetsExclusiveASecondMakesBothShared) {
  EXPECT_EQ(coherence_access(d_, 0x1000, 4, false, SOCMEM_HOST, 0), 5u);  // I → E, lookup only
  EXPECT_EQ(st(0x1000, SOCMEM_HOST), COH_E);
  // GPU reads: the host's E copy is snooped (E → S): 5 + 40
  EXPECT_EQ(coherence_access(d_, 0x1010, 4, false, SOCMEM_GPU, 100), 145u);
  EXPECT_EQ(st(0x1000, SOCMEM_HOST), COH_S);
  EXPECT_EQ(st(0x1000, SOCMEM_GPU), COH_S);
  coherence_stats s = stats();
  EXPECT_EQ(s.messages, 1u);
  EXPECT_EQ(s.downgrades[SOCMEM_HOST], 1u);
  EXPECT_TRUE(inval_.empty());
}

TEST_F(Directory, AHostWriteInvalidatesTheGpuCopyAndViceVersa) {
  coherence_access(d_, 0x2000, 4, false, SOCMEM_GPU, 0);   // GPU E
  coherence_access(d_, 0x2000, 4, false, SOCMEM_HOST, 0);  // both S (1 message)
  // host writes: GPU S → I, one invalidation: 5 + 40; host S → M
  EXPECT_EQ(coherence_access(d_, 0x2000, 4, true, SOCMEM_HOST, 1000), 1045u);
  EXPECT_EQ(st(0x2000, SOCMEM_GPU), COH_I);
  EXPECT_EQ(st(0x2000, SOCMEM_HOST), COH_M);
  ASSERT_EQ(inval_.size(), 1u);
  EXPECT_EQ(inval_[0].agent, SOCMEM_GPU);
  EXPECT_EQ(inval_[0].line, 0x2000u);
  // the GPU writes: the host's M copy is invalidated; the GPU takes the dirty data with the
  // ownership (no write-back): 5 + 40
  EXPECT_EQ(coherence_access(d_, 0x2004, 4, true, SOCMEM_GPU, 2000), 2045u);
  EXPECT_EQ(st(0x2000, SOCMEM_HOST), COH_I);
  EXPECT_EQ(st(0x2000, SOCMEM_GPU), COH_M);
  EXPECT_EQ(writebacks_, 0);
  coherence_stats s = stats();
  EXPECT_EQ(s.invalidations[SOCMEM_GPU], 1u);
  EXPECT_EQ(s.invalidations[SOCMEM_HOST], 1u);
  EXPECT_EQ(s.messages, 3u);
  EXPECT_EQ(s.writes[SOCMEM_HOST], 1u);
  EXPECT_EQ(s.writes[SOCMEM_GPU], 1u);
}

TEST_F(Directory, AnExclusiveOwnerWritesWithoutMessages) {
  coherence_access(d_, 0x3000, 4, false, SOCMEM_GPU, 0);  // E
  EXPECT_EQ(coherence_access(d_, 0x3000, 4, true, SOCMEM_GPU, 10), 15u);  // E → M silently
  EXPECT_EQ(st(0x3000, SOCMEM_GPU), COH_M);
  EXPECT_EQ(coherence_access(d_, 0x3000, 4, false, SOCMEM_GPU, 20), 25u);  // M: a read hit
  EXPECT_EQ(stats().messages, 0u);
}

TEST_F(Directory, AReadOfAModifiedLineDowngradesItWithAWriteBack) {
  coherence_access(d_, 0x4000, 4, true, SOCMEM_HOST, 0);  // host M
  // the GPU reads: snoop (5 + 40 = 45) and the host's write-back (5 + 100 = 105): done at 105
  EXPECT_EQ(coherence_access(d_, 0x4000, 4, false, SOCMEM_GPU, 0), 105u);
  EXPECT_EQ(st(0x4000, SOCMEM_HOST), COH_S);
  EXPECT_EQ(st(0x4000, SOCMEM_GPU), COH_S);
  EXPECT_EQ(writebacks_, 1);
  EXPECT_EQ(stats().downgrades[SOCMEM_HOST], 1u);
  EXPECT_EQ(stats().latency_ps, 5u + 105u);
}

TEST_F(Directory, CopyEnginesAreIoCoherentTheyNeverHoldALine) {
  // a DMA read of a line nobody holds: lookup only, no entry
  EXPECT_EQ(coherence_access(d_, 0x5000, 64, false, SOCMEM_DMA, 0), 5u);
  EXPECT_EQ(st(0x5000, SOCMEM_DMA), COH_I);
  coherence_access(d_, 0x5000, 4, true, SOCMEM_GPU, 0);  // GPU M
  // a DMA write: the GPU's M copy is written back (it is merged in memory) and invalidated:
  // 5 + 100 = 105 (> 5 + 40)
  EXPECT_EQ(coherence_access(d_, 0x5000, 64, true, SOCMEM_DMA, 0), 105u);
  EXPECT_EQ(st(0x5000, SOCMEM_GPU), COH_I);
  EXPECT_EQ(writebacks_, 1);
  EXPECT_EQ(stats().invalidations[SOCMEM_GPU], 1u);
}

TEST_F(Directory, AFullSetRecallsItsLeastRecentlyUsedEntry) {
  make(1, 2);  // one set of two entries
  coherence_access(d_, 0x000, 4, false, SOCMEM_GPU, 0);   // entry A (GPU E)
  coherence_access(d_, 0x040, 4, true, SOCMEM_HOST, 0);   // entry B (host M)
  coherence_access(d_, 0x000, 4, false, SOCMEM_GPU, 0);   // A most recent
  coherence_access(d_, 0x080, 4, false, SOCMEM_HOST, 0);  // C: B is recalled (host M: write-back)
  EXPECT_EQ(st(0x040, SOCMEM_HOST), COH_I);
  EXPECT_EQ(st(0x000, SOCMEM_GPU), COH_E);
  EXPECT_EQ(st(0x080, SOCMEM_HOST), COH_E);
  EXPECT_EQ(writebacks_, 1);
  coherence_stats s = stats();
  EXPECT_EQ(s.recalls, 1u);
  EXPECT_EQ(s.invalidations[SOCMEM_HOST], 1u);
}

TEST_F(Directory, AnEvictionDropsTheCopyAndFreesTheEntry) {
  coherence_access(d_, 0x6000, 4, true, SOCMEM_GPU, 0);
  coherence_evict(d_, 0x6000, SOCMEM_GPU, 10);
  EXPECT_EQ(st(0x6000, SOCMEM_GPU), COH_I);
  EXPECT_EQ(writebacks_, 1);
  // the next reader is alone again: E, no messages
  EXPECT_EQ(coherence_access(d_, 0x6000, 4, false, SOCMEM_HOST, 20), 25u);
  EXPECT_EQ(st(0x6000, SOCMEM_HOST), COH_E);
  EXPECT_EQ(stats().messages, 0u);
}

TEST_F(Directory, AWriteBackInvalidatesOtherCopiesAndLeavesTheWriterWithout) {
  coherence_access(d_, 0x7000, 4, false, SOCMEM_GPU, 0);   // GPU E
  coherence_access(d_, 0x7000, 4, false, SOCMEM_HOST, 0);  // both S
  // the GPU L2 writes the line back (it had dirtied it unseen): the host copy is stale (5 + 40)
  EXPECT_EQ(coherence_writeback(d_, 0x7000, 64, SOCMEM_GPU, 100), 145u);
  EXPECT_EQ(st(0x7000, SOCMEM_HOST), COH_I);
  EXPECT_EQ(st(0x7000, SOCMEM_GPU), COH_I);
  EXPECT_EQ(stats().writebacks, 1u);
  EXPECT_EQ(stats().writes[SOCMEM_GPU], 1u);
}

TEST_F(Directory, AWriteThroughWritesBackAndInvalidatesOtherCopiesAndKeepsNone) {
  coherence_access(d_, 0x8000, 4, true, SOCMEM_HOST, 0);  // host M
  // the GPU writes 4 bytes through (it caches host memory for reads only): the host's M copy is
  // written back first (the GPU's bytes merge into memory) and invalidated: the write-back ends
  // at 10 + 5 + 100 = 115, after the message round (10 + 5 + 40)
  EXPECT_EQ(coherence_write_through(d_, 0x8000, 4, SOCMEM_GPU, 10), 115u);
  EXPECT_EQ(st(0x8000, SOCMEM_HOST), COH_I);
  EXPECT_EQ(st(0x8000, SOCMEM_GPU), COH_I);
  EXPECT_EQ(stats().writebacks, 1u);  // the host's, not the GPU's write
  EXPECT_EQ(stats().writes[SOCMEM_GPU], 1u);
  EXPECT_EQ(writebacks_, 1);
  // a line nobody holds: the write-through leaves no entry behind, lookup only
  EXPECT_EQ(coherence_write_through(d_, 0x9000, 4, SOCMEM_GPU, 200), 205u);
  EXPECT_EQ(st(0x9000, SOCMEM_GPU), COH_I);
}

TEST(DirectoryConfig, BadGeometryNamesTheOption) {
  coherence_config c{};
  c.sets = 16;
  c.ways = 65;
  c.line_bytes = 64;
  coherence *d = nullptr;
  simtvp_diag g;
  simtvp_diag_clear(&g);
  EXPECT_EQ(coherence_create(&c, &d, &g), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(g.option, "-coherence_dir_ways");
  c.ways = 4;
  c.line_bytes = 100;
  EXPECT_EQ(coherence_create(&c, &d, &g), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(g.option, "-syscache_line_bytes");
}

}  // namespace
