// Replayable page faults on the SIMT cores (CA, AT and func; docs/vm.md "Unified memory"): a
// warp whose store touches a page that is not resident waits, unscheduled, until the driver's
// MMU_REPLAY; after a replay it issues the same instruction again, after MMU_REPLAY.CANCEL its CTA
// ends with a fault naming the kernel (simt_base_cancel_replay for CA and AT; the func core parks
// the waiting CTA and resumes or ends it the same way). The
// harness (sh_set_absent_pages) translates through an identity MMU and plays the driver.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "simt_test_util.h"

namespace {

using simttest::Gpu;

// k(out): out[i] = i + 1 (8 bytes per thread); 8 CTAs of 128 threads write 2 pages, CTAs 0-3 the
// first, CTAs 4-7 the second.
const std::string kStoreKernel = simttest::kernel(std::string(simttest::kOutSlot) +
                                                   "  add.u32 %r1, %r31, 1;\n  cvt.u64.u32 %rd2, %r1;\n"
                                                   "  st.global.u64 [%rd1], %rd2;\n");

class SimtReplay : public ::testing::TestWithParam<const char *> {
 protected:
  void SetUp() override {
    g = std::make_unique<Gpu>("configs/SM7_QV100.config",
                              std::vector<const char *>{"-simt_model", GetParam(), "-gpgpu_n_clusters", "1"});
    ASSERT_EQ(g->load(kStoreKernel), SIMTVP_OK) << g->diag.message;
    uint64_t raw = g->alloc(3 * 4096);
    out = (raw + 4095) & ~4095ull;
  }
  std::vector<uint64_t> values() { return g->download<uint64_t>(out, 1024); }
  std::unique_ptr<Gpu> g;
  uint64_t out = 0;
};

// The second page is absent: CTAs 4-7's warps all wait on it, one fault (one page until the
// replay), one replay; then every thread's value is there.
TEST_P(SimtReplay, WarpsWaitingOnAnAbsentPageStoreAfterTheReplay) {
  const uint64_t absent = out + 4096;
  sh_set_absent_pages(g->h, &absent, 1, SH_FAULTS_MIGRATE);
  ASSERT_EQ(g->launch("k", 8, 128, {out}), SIMTVP_OK) << g->diag.message;
  EXPECT_EQ(sh_faults(g->h), 1u);
  EXPECT_EQ(sh_replays(g->h), 1u);
  std::vector<uint64_t> v = values();
  for (uint32_t i = 0; i < 1024; i++) ASSERT_EQ(v[i], i + 1u) << i;
  // the func core's CTAs wait in zero time: the harness replays in the cycle they fault
  if (std::string(GetParam()) != "func") {
    EXPECT_GT(g->stat("um.fault_stall_cycles"), 0u);
  }
}

// MMU_REPLAY.CANCEL: the waiting CTAs end with a fault naming the kernel and the cancel; the first
// page's CTAs had finished, the second page holds nothing.
TEST_P(SimtReplay, CancelledReplayEndsTheWaitingCtasWithAFaultNamingTheKernel) {
  const uint64_t absent = out + 4096;
  sh_set_absent_pages(g->h, &absent, 1, SH_FAULTS_CANCEL);
  EXPECT_EQ(g->launch("k", 8, 128, {out}), SIMTVP_ERR_FAULT);
  EXPECT_NE(std::string(g->diag.message).find("kernel k"), std::string::npos) << g->diag.message;
  EXPECT_NE(std::string(g->diag.message).find("cancelled (MMU_REPLAY.CANCEL)"), std::string::npos) << g->diag.message;
  EXPECT_EQ(sh_faults(g->h), 1u);
  EXPECT_EQ(sh_replays(g->h), 1u);
  sh_set_absent_pages(g->h, nullptr, 0, SH_FAULTS_NONE);
  std::vector<uint64_t> v = values();
  for (uint32_t i = 0; i < 512; i++) ASSERT_EQ(v[i], i + 1u) << i;
  for (uint32_t i = 512; i < 1024; i++) ASSERT_EQ(v[i], 0u) << i;
}

// Without a fault buffer the recorder refuses: the first warp that touches the absent page ends the
// kernel with a fault naming the address; nothing is recorded, nothing replayed.
TEST_P(SimtReplay, ReplayableFaultWithoutAFaultBufferEndsTheKernelNamingTheAddress) {
  const uint64_t absent = out + 4096;
  sh_set_absent_pages(g->h, &absent, 1, SH_FAULTS_NO_BUFFER);
  EXPECT_EQ(g->launch("k", 8, 128, {out}), SIMTVP_ERR_FAULT);
  EXPECT_NE(std::string(g->diag.message).find("kernel k"), std::string::npos) << g->diag.message;
  EXPECT_NE(std::string(g->diag.message).find("no fault buffer"), std::string::npos) << g->diag.message;
  char addr[32];
  std::snprintf(addr, sizeof addr, "0x%llx", static_cast<unsigned long long>(absent));
  EXPECT_NE(std::string(g->diag.message).find(addr), std::string::npos) << g->diag.message;
  EXPECT_EQ(sh_faults(g->h), 0u);
  EXPECT_EQ(sh_replays(g->h), 0u);
}

INSTANTIATE_TEST_SUITE_P(TimingCores, SimtReplay, ::testing::Values("ca", "at", "func"),
                         [](const ::testing::TestParamInfo<const char *> &i) { return std::string(i.param); });

}  // namespace
