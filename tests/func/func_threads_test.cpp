// The opt-in parallel functional mode (func_config.threads > 1): CTAs spread over host threads give
// the same results as one thread for order-independent kernels, device atomics stay atomic across
// host threads, and a fault in any CTA stops the launch with its diagnosis.
#include <algorithm>
#include <cstring>

#include "func_test_util.h"

using namespace functest;

namespace {

func_config threads(uint32_t n) {
  func_config c{};
  c.threads = n;
  return c;
}

TEST(FuncThreads, HistogramAtomicsStayExactAcrossHostThreads) {
  for (uint32_t n : {1u, 2u, 4u}) {
    Gpu g(threads(n));
    ASSERT_EQ(g.load(read_file(kernels_dir() + "histogram.ptx"), "histogram.ptx"), SIMTVP_OK) << g.diag.message;
    const int len = 50000, bins = 64;
    std::vector<uint8_t> data(len);
    std::vector<uint32_t> want(bins, 0);
    for (int i = 0; i < len; i++) data[i] = (uint8_t)((i * 97 + (i >> 5)) & 0xff), want[data[i] % bins]++;
    uint64_t dd = g.upload(data), b1 = g.upload(std::vector<uint32_t>(bins, 0)), b2 = g.upload(std::vector<uint32_t>(bins, 0));
    ASSERT_EQ(g.launch("_Z16histogram_sharedPKhPji", 37, 128, {dd, b1, (uint64_t)len}), SIMTVP_OK) << g.diag.message;
    ASSERT_EQ(g.launch("_Z16histogram_globalPKhPji", 37, 128, {dd, b2, (uint64_t)len}), SIMTVP_OK) << g.diag.message;
    EXPECT_EQ(g.download<uint32_t>(b1, bins), want) << n << " threads";
    EXPECT_EQ(g.download<uint32_t>(b2, bins), want) << n << " threads";
    func_launch_counts c;
    func_runner_last_counts(g.r, &c);
    EXPECT_EQ(c.ctas_done, 37u);
  }
}

TEST(FuncThreads, SgemmAndCountersMatchOneThread) {
  std::vector<float> results[2];
  uint64_t insns[2];
  for (int k = 0; k < 2; k++) {
    Gpu g(threads(k ? 3 : 1));
    ASSERT_EQ(g.load(read_file(kernels_dir() + "sgemm.ptx"), "sgemm.ptx"), SIMTVP_OK) << g.diag.message;
    const int m = 80, n = 64, kk = 48;
    std::vector<float> A(m * kk), B(kk * n), C(m * n, 1.0f);
    for (int i = 0; i < m * kk; i++) A[i] = (float)(i % 5) - 2;
    for (int i = 0; i < kk * n; i++) B[i] = (float)(i % 3) - 1;
    uint64_t dA = g.upload(A), dB = g.upload(B), dC = g.upload(C);
    float alpha = 1.0f, beta = 1.0f;
    uint32_t ab, bb;
    std::memcpy(&ab, &alpha, 4);
    std::memcpy(&bb, &beta, 4);
    ASSERT_EQ(g.launch("_Z11sgemm_tilediiifPKfS0_fPf", n / 16, 16, {(uint64_t)m, (uint64_t)n, (uint64_t)kk, ab, dA, dB, bb, dC},
                       0, m / 16, 16),
              SIMTVP_OK)
        << g.diag.message;
    results[k] = g.download<float>(dC, m * n);
    int found;
    insns[k] = stats_get(func_runner_stats(g.r), "func.thread_insn", &found);
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_EQ(insns[0], insns[1]);
}

TEST(FuncThreads, APrintfLineComesOutWhole) {
  Gpu g(threads(4));
  ASSERT_EQ(g.load(read_file(kernels_dir() + "printf.ptx"), "printf.ptx"), SIMTVP_OK) << g.diag.message;
  double scale = 0.125;
  uint64_t bits;
  std::memcpy(&bits, &scale, 8);
  ASSERT_EQ(g.launch("_Z13device_printfid", 8, 4, {1234, bits}), SIMTVP_OK) << g.diag.message;
  size_t lines = std::count(g.printed.begin(), g.printed.end(), '\n');
  EXPECT_EQ(lines, 32u);
  for (size_t pos = 0; pos < g.printed.size();) {
    size_t end = g.printed.find('\n', pos);
    ASSERT_NE(end, std::string::npos);
    EXPECT_EQ(g.printed[pos], 'b') << "each line starts with its block: no interleaving";
    pos = end + 1;
  }
}

TEST(FuncThreads, AFaultInOneCtaStopsTheLaunch) {
  Gpu g(threads(2));
  std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %ctaid.x;
  setp.eq.u32 %p1, %r1, 13;
  @%p1 ld.global.u32 %r2, [%rd1];
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.launch("k", 40, 64, {0x10}), SIMTVP_ERR_FAULT);
  EXPECT_EQ(g.diag.cta[0], 13u);
  EXPECT_EQ(g.diag.address, 0x10u);
}

}  // namespace
