// CUDA's math library and integer intrinsics compiled by nvcc (fixtures/mathlib.cu), with and
// without --use_fast_math: they expand into most arithmetic forms nvcc emits (libdevice's
// rounding, ftz and approximation variants, 64-bit integer sequences). Results are compared with
// the host's libm within CUDA's documented error bounds, integer results exactly.
#include <climits>
#include <cmath>

#include "func_test_util.h"

using namespace functest;

namespace {

std::string fixture(const char *name) {
  return read_file(std::string(SIMTVP_SOURCE_DIR) + "/tests/func/fixtures/" + name);
}

std::vector<float> float_inputs() {
  std::vector<float> x;
  for (int i = 0; i < 200; i++) x.push_back(-4.0f + 8.0f * (float)i / 199.0f + 0.001f * (float)(i % 7));
  return x;
}

void check_float(const char *file, double rel, double abs_tol) {
  Gpu g;
  ASSERT_EQ(g.load(fixture(file), file), SIMTVP_OK) << g.diag.message;
  auto x = float_inputs();
  const int n = (int)x.size();
  uint64_t dx = g.upload(x), dout = g.alloc(n * 16 * 4);
  ASSERT_EQ(g.launch("k_float", (n + 63) / 64, 64, {dx, dout, (uint64_t)n}), SIMTVP_OK) << g.diag.message;
  auto o = g.download<float>(dout, n * 16);
  for (int i = 0; i < n; i++) {
    double v = x[i];
    double want[16] = {std::exp(v), std::log(std::fabs(v) + 1e-3), std::sin(v), std::cos(v), std::tan(v * 0.3),
                       std::pow(std::fabs(v) + 0.5, 1.7), std::sqrt(std::fabs(v)), 1.0 / std::sqrt(std::fabs(v) + 1.0),
                       std::erf(v), std::atan2(v, 1.5), std::tanh(v), std::cbrt(v), v / (v * v + 1.0),
                       std::fmod((double)(x[i] * 7.0f), 2.5), std::log2(std::fabs(v) + 2.0) + std::exp2(v * 0.5),
                       0};
    float f = x[i];
    want[15] = (double)(int)std::nearbyint(f * 1000.0f) + std::floor(f) + std::ceil(f) + std::trunc(f) + std::round(f);
    for (int k = 0; k < 16; k++)
      ASSERT_NEAR(o[i * 16 + k], want[k], abs_tol + rel * std::fabs(want[k])) << file << " function " << k << " x=" << v;
  }
}

TEST(FuncMathlib, FloatFunctionsMeetCudasErrorBounds) { check_float("mathlib.ptx", 3e-6, 1e-6); }
TEST(FuncMathlib, FastMathFunctionsStayClose) { check_float("mathlib_fast.ptx", 2e-4, 1e-4); }

TEST(FuncMathlib, DoubleFunctionsMeetCudasErrorBounds) {
  Gpu g;
  ASSERT_EQ(g.load(fixture("mathlib.ptx"), "mathlib.ptx"), SIMTVP_OK) << g.diag.message;
  std::vector<double> x;
  for (int i = 0; i < 150; i++) x.push_back(-5.0 + 10.0 * i / 149.0 + 1e-7 * i);
  const int n = (int)x.size();
  uint64_t dx = g.upload(x), dout = g.alloc(n * 8 * 8);
  ASSERT_EQ(g.launch("k_double", (n + 63) / 64, 64, {dx, dout, (uint64_t)n}), SIMTVP_OK) << g.diag.message;
  auto o = g.download<double>(dout, n * 8);
  for (int i = 0; i < n; i++) {
    double v = x[i];
    double want[8] = {std::exp(v), std::log(std::fabs(v) + 1e-3), std::sin(v), std::cos(v), std::pow(std::fabs(v) + 0.5, 1.7),
                      std::sqrt(std::fabs(v)), v / (v * v + 1.0), std::atan(v) + std::cbrt(v)};
    for (int k = 0; k < 8; k++) ASSERT_NEAR(o[i * 8 + k], want[k], 1e-15 + 1e-14 * std::fabs(want[k])) << k << " x=" << v;
  }
}

TEST(FuncMathlib, IntegerIntrinsicsAreExact) {
  Gpu g;
  ASSERT_EQ(g.load(fixture("mathlib.ptx"), "mathlib.ptx"), SIMTVP_OK) << g.diag.message;
  std::vector<uint32_t> x = {0u, 1u, 2u, 0x80000000u, 0xffffffffu, 0x7fffffffu, 0x12345678u, 0xdeadbeefu,
                             1000u, 0xfffffffeu, 0x00010001u, 77u, 0x80000001u, 0x40000000u};
  for (uint32_t s = 1; x.size() < 70; s = s * 2654435761u + 12345u) x.push_back(s);
  const int n = (int)x.size();
  uint64_t dx = g.upload(x), dout = g.alloc(n * 12 * 8);
  ASSERT_EQ(g.launch("k_int", 1, n, {dx, dout, (uint64_t)n}), SIMTVP_OK) << g.diag.message;
  auto o = g.download<uint64_t>(dout, n * 12);
  auto ffs = [](uint64_t v) { return v ? (uint64_t)__builtin_ctzll(v) + 1 : 0ull; };
  auto brev32 = [](uint32_t v) {
    uint32_t r = 0;
    for (int i = 0; i < 32; i++) r |= ((v >> i) & 1u) << (31 - i);
    return r;
  };
  for (int i = 0; i < n; i++) {
    uint32_t a = x[i], b = x[(i + 1) % n];
    uint64_t A = ((uint64_t)a << 32) | b;
    const uint64_t *r = &o[i * 12];
    EXPECT_EQ(r[0], (uint64_t)(unsigned)(__builtin_popcount(a) + (b ? __builtin_clz(b) : 32) + (int)ffs(a))) << i;
    EXPECT_EQ(r[1], (uint64_t)brev32(a));
    uint64_t bytes = ((uint64_t)b << 32) | a;
    uint32_t perm = 0;
    for (int k = 0; k < 4; k++) perm |= (uint32_t)((bytes >> (8 * ((0x5140 >> (4 * k)) & 7))) & 0xff) << (8 * k);
    EXPECT_EQ(r[2], (uint64_t)perm);
    uint32_t sh = (uint32_t)i & 31, fl = (uint32_t)((((uint64_t)b << 32 | a) << sh) >> 32),
             fr = (uint32_t)(((uint64_t)b << 32 | a) >> sh);
    EXPECT_EQ(r[3], (uint64_t)(fl ^ fr)) << i;
    int32_t a24 = (int32_t)(a << 8) >> 8, b24 = (int32_t)(b << 8) >> 8;
    EXPECT_EQ(r[4], (uint64_t)((uint32_t)(((uint64_t)a * b) >> 32) ^ (uint32_t)((int64_t)a24 * b24)));
    int32_t sa = (int32_t)a, sb = (int32_t)b;
    EXPECT_EQ(r[5], (uint64_t)(uint32_t)((sa < sb ? (uint32_t)sb - (uint32_t)sa : (uint32_t)sa - (uint32_t)sb) + 7u));
    EXPECT_EQ(r[6], (uint64_t)(((unsigned __int128)A * (A + 12345)) >> 64));
    EXPECT_EQ(r[7], A / (uint64_t)(b | 1));
    int64_t d = (int32_t)b | 1;
    EXPECT_EQ(r[8], (uint64_t)(d == -1 ? 0 : (int64_t)A % d));
    EXPECT_EQ(r[9], (uint64_t)(__builtin_popcountll(A) + (A ? __builtin_clzll(A) : 64) + ffs(A)));
    int32_t q = (sa == INT_MIN && ((int32_t)b | 1) == -1) ? INT_MIN : sa / ((int32_t)b | 1);
    EXPECT_EQ(r[10], (uint64_t)(uint32_t)q ^ ((uint64_t)(a % (b | 1)) << 32)) << i;
    uint64_t brev64 = ((uint64_t)brev32((uint32_t)A) << 32) | brev32((uint32_t)(A >> 32));
    EXPECT_EQ(r[11], brev64 ^ (A >> (a & 63)) ^ (uint64_t)((int64_t)A >> (b & 63))) << i;
  }
}

}  // namespace
