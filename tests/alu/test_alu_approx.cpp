// Approximate functions (PTX ISA 9.7.3.8-22, 9.7.4.9-10): each checked against a 113-bit
// libquadmath reference over seeded random sweeps of its whole input range, with the error bound
// the ISA documents, plus the ISA's special-value tables.
#include <gtest/gtest.h>

#include <quadmath.h>

#include <cmath>

#include "alu.h"
#include "alu_ref.h"

namespace {

using q = __float128;

// Error of an f32 result in units of the last place of the exact value (subnormal ulp floor).
double ulp_err_f32(uint32_t got, q exact) {
  q ax = fabsq(exact);
  int e = ax == 0 ? -126 : ilogbq(ax);
  if (e < -126) e = -126;
  q ulp = ldexpq(1, e - 23);
  return (double)(fabsq((q)alu_f32(got) - exact) / ulp);
}
double rel_err(double got, q exact) { return (double)(fabsq((q)got - exact) / fabsq(exact)); }

// Random positive finite f32 over the whole exponent range (subnormals included).
uint32_t any_pos_f32(ref::Gen &g) {
  uint32_t v;
  do v = g.u32() & 0x7fffffffu; while (v >= 0x7f800000u || v == 0);
  return v;
}
uint32_t in_range(ref::Gen &g, double lo, double hi) {
  double u = (double)(g.u64() >> 11) * 0x1p-53;
  return alu_f32_bits((float)(lo + (hi - lo) * u));
}

}  // namespace

TEST(AluApprox, RcpApproxF32IsWithinOneUlpAcrossTheFullRange) {
  ref::Gen g(1);
  double worst = 0;
  for (int i = 0; i < 300000; i++) {
    uint32_t a = any_pos_f32(g) | ((g.u32() & 1) << 31);
    q exact = 1 / (q)alu_f32(a);
    if (fabsq(exact) > (q)FLT_MAX) continue;  // overflows: Inf is the right answer
    double e = ulp_err_f32(alu_rcp_approx_f32(a, 0), exact);
    worst = std::max(worst, e);
    ASSERT_LE(e, 1.0) << std::hex << a;
  }
  RecordProperty("worst_ulp", std::to_string(worst));
  // the ISA's table
  EXPECT_EQ(alu_rcp_approx_f32(0xff800000u, 0), 0x80000000u);
  EXPECT_EQ(alu_rcp_approx_f32(0x80000000u, 0), 0xff800000u);
  EXPECT_EQ(alu_rcp_approx_f32(0x00000000u, 0), 0x7f800000u);
  EXPECT_EQ(alu_rcp_approx_f32(0x7f800000u, 0), 0x00000000u);
  EXPECT_EQ(alu_rcp_approx_f32(0x7fc00001u, 0), ALU_F32_NAN);
  EXPECT_EQ(alu_rcp_approx_f32(0x00000001u, PTX_MOD_FTZ), 0x7f800000u);  // subnormal in -> +0 -> Inf
  EXPECT_EQ(alu_rcp_approx_f32(0x7f000000u, PTX_MOD_FTZ), 0u);           // subnormal out -> 0
  EXPECT_EQ(alu_rcp_approx_f32(0x7f000000u, 0), 0x00400000u);
}

TEST(AluApprox, DivApproxIsTwoUlpInRangeAndZeroForHugeDivisors) {
  ref::Gen g(2);
  for (int i = 0; i < 300000; i++) {
    uint32_t a = any_pos_f32(g) | ((g.u32() & 1) << 31);
    uint32_t b = in_range(g, 0x1p-126, 0x1p126) | ((g.u32() & 1) << 31);
    q exact = (q)alu_f32(a) / (q)alu_f32(b);
    if (fabsq(exact) > (q)FLT_MAX || fabsq(exact) < (q)FLT_MIN) continue;
    ASSERT_LE(ulp_err_f32(alu_div_approx_f32(a, b, 0), exact), 2.0) << std::hex << a << " / " << b;
    ASSERT_LE(ulp_err_f32(alu_div_full_f32(a, b, 0), exact), 2.0) << std::hex << a << " / " << b;
  }
  // 2^126 < |b| < 2^128: 0, or NaN for an infinite dividend (PTX 9.7.3.8)
  EXPECT_EQ(alu_div_approx_f32(alu_f32_bits(3.0f), alu_f32_bits(0x1.8p127f), 0), 0u);
  EXPECT_EQ(alu_div_approx_f32(0x7f800000u, alu_f32_bits(0x1.8p127f), 0), ALU_F32_NAN);
  // div.full covers that range accurately
  q exact = (q)3.0 / (q)0x1.8p127;
  EXPECT_LE(ulp_err_f32(alu_div_full_f32(alu_f32_bits(3.0f), alu_f32_bits(0x1.8p127f), 0), exact), 2.0);
  EXPECT_EQ(alu_div_full_f32(alu_f32_bits(1.0f), alu_f32_bits(0x1.8p127f), PTX_MOD_FTZ), 0u);
}

TEST(AluApprox, SqrtAndRsqrtApproxStayInsideTheIsaRelativeError) {
  ref::Gen g(3);
  for (int i = 0; i < 300000; i++) {
    uint32_t a = any_pos_f32(g);
    q x = (q)alu_f32(a);
    ASSERT_LE(rel_err(alu_f32(alu_sqrt_approx_f32(a, 0)), sqrtq(x)), std::ldexp(1.0, -23)) << std::hex << a;
    q r = 1 / sqrtq(x);
    if (r <= (q)FLT_MAX) {
      ASSERT_LE(rel_err(alu_f32(alu_rsqrt_approx_f32(a, 0)), r), std::pow(2.0, -22.9)) << std::hex << a;
    }
  }
  EXPECT_EQ(alu_sqrt_approx_f32(0xbf800000u, 0), ALU_F32_NAN);
  EXPECT_EQ(alu_sqrt_approx_f32(0x80000000u, 0), 0x80000000u);
  EXPECT_EQ(alu_sqrt_approx_f32(0x7f800000u, 0), 0x7f800000u);
  EXPECT_EQ(alu_rsqrt_approx_f32(0x80000000u, 0), 0xff800000u);
  EXPECT_EQ(alu_rsqrt_approx_f32(0x00000000u, 0), 0x7f800000u);
  EXPECT_EQ(alu_rsqrt_approx_f32(0x7f800000u, 0), 0u);
  EXPECT_EQ(alu_rsqrt_approx_f32(0xff800000u, 0), ALU_F32_NAN);
  EXPECT_EQ(alu_rsqrt_approx_f32(0xbf800000u, 0), ALU_F32_NAN);
  EXPECT_EQ(alu_rsqrt_approx_f32(0x00000001u, PTX_MOD_FTZ), 0x7f800000u);
}

TEST(AluApprox, SinCosAbsoluteErrorWithinIsaBoundsOnBothRanges) {
  ref::Gen g(4);
  const double pi = M_PI;
  double worst_small = 0, worst_big = 0;
  for (int i = 0; i < 300000; i++) {
    bool small = i & 1;
    double lim = small ? 2 * pi : 100 * pi;
    uint32_t a = in_range(g, -lim, lim);
    q x = (q)alu_f32(a);
    double es = (double)fabsq((q)alu_f32(alu_sin_approx_f32(a, 0)) - sinq(x));
    double ec = (double)fabsq((q)alu_f32(alu_cos_approx_f32(a, 0)) - cosq(x));
    double bound = small ? std::pow(2.0, -20.5) : std::pow(2.0, -14.7);
    ASSERT_LE(es, bound) << std::hex << a;
    ASSERT_LE(ec, bound) << std::hex << a;
    (small ? worst_small : worst_big) = std::max(small ? worst_small : worst_big, std::max(es, ec));
  }
  RecordProperty("worst_log2_small", std::to_string(std::log2(worst_small)));
  RecordProperty("worst_log2_big", std::to_string(std::log2(worst_big)));
  EXPECT_EQ(alu_sin_approx_f32(0x80000000u, 0), 0x80000000u);
  EXPECT_EQ(alu_sin_approx_f32(0u, 0), 0u);
  EXPECT_EQ(alu_cos_approx_f32(0x80000000u, 0), 0x3f800000u);
  EXPECT_EQ(alu_sin_approx_f32(0x7f800000u, 0), ALU_F32_NAN);
  EXPECT_EQ(alu_cos_approx_f32(0xff800000u, 0), ALU_F32_NAN);
  EXPECT_EQ(alu_sin_approx_f32(0x7fc00000u, 0), ALU_F32_NAN);
  // Like the hardware, very large arguments lose the fraction of a revolution entirely.
  EXPECT_EQ(alu_sin_approx_f32(alu_f32_bits(0x1p40f), 0), 0u);
}

TEST(AluApprox, Ex2IsWithinTwoUlpAndLg2WithinItsAbsoluteAndRelativeBounds) {
  ref::Gen g(5);
  for (int i = 0; i < 300000; i++) {
    uint32_t a = in_range(g, -149.0, 128.0);
    q exact = exp2q((q)alu_f32(a));
    if (exact < (q)FLT_MAX) {
      ASSERT_LE(ulp_err_f32(alu_ex2_approx_f32(a, 0), exact), 2.0) << std::hex << a;
    }
    uint32_t b = (i & 1) ? in_range(g, 0.5, 2.0) : any_pos_f32(g);
    q x = (q)alu_f32(b), l = log2q(x);
    double got = alu_f32(alu_lg2_approx_f32(b, 0));
    if (x > 0.5 && x < 2) {
      ASSERT_LE((double)fabsq((q)got - l), std::ldexp(1.0, -22)) << std::hex << b;
    } else {
      ASSERT_LE(rel_err(got, l), std::ldexp(1.0, -22)) << std::hex << b;
    }
  }
  EXPECT_EQ(alu_ex2_approx_f32(0xff800000u, 0), 0u);
  EXPECT_EQ(alu_ex2_approx_f32(0x80000000u, 0), 0x3f800000u);
  EXPECT_EQ(alu_ex2_approx_f32(0x7f800000u, 0), 0x7f800000u);
  EXPECT_EQ(alu_ex2_approx_f32(alu_f32_bits(-130.0f), PTX_MOD_FTZ), 0u);  // subnormal result flushed
  EXPECT_NE(alu_ex2_approx_f32(alu_f32_bits(-130.0f), 0), 0u);
  EXPECT_EQ(alu_lg2_approx_f32(0xbf800000u, 0), ALU_F32_NAN);
  EXPECT_EQ(alu_lg2_approx_f32(0x80000000u, 0), 0xff800000u);
  EXPECT_EQ(alu_lg2_approx_f32(0x00000000u, 0), 0xff800000u);
  EXPECT_EQ(alu_lg2_approx_f32(0x7f800000u, 0), 0x7f800000u);
  EXPECT_EQ(alu_lg2_approx_f32(0x00000001u, PTX_MOD_FTZ), 0xff800000u);
  EXPECT_EQ(alu_lg2_approx_f32(0x00000001u, 0), alu_f32_bits(-149.0f));
}

TEST(AluApprox, TanhRelativeErrorWithinTwoToMinusEleven) {
  ref::Gen g(6);
  for (int i = 0; i < 300000; i++) {
    uint32_t a = (i & 1) ? in_range(g, -10, 10) : (any_pos_f32(g) | ((g.u32() & 1) << 31));
    q exact = tanhq((q)alu_f32(a));
    ASSERT_LE(rel_err(alu_f32(alu_tanh_approx_f32(a)), exact), std::ldexp(1.0, -11)) << std::hex << a;
  }
  EXPECT_EQ(alu_tanh_approx_f32(0xff800000u), 0xbf800000u);
  EXPECT_EQ(alu_tanh_approx_f32(0x7f800000u), 0x3f800000u);
  EXPECT_EQ(alu_tanh_approx_f32(0x80000000u), 0x80000000u);
  EXPECT_EQ(alu_tanh_approx_f32(0x00000005u), 0x00000005u);  // subnormals pass through
  EXPECT_EQ(alu_tanh_approx_f32(0x7fc00000u), ALU_F32_NAN);
}

TEST(AluApprox, F64RcpAndRsqrtFtzUseTheUpperWordAndClearTheLowWord) {
  ref::Gen g(7);
  for (int i = 0; i < 300000; i++) {
    uint64_t a = g.u64() & 0x7fffffffffffffffull;
    if ((a >> 52) == 0x7ff || (a >> 52) == 0) continue;
    a |= (g.u64() & 1) << 63;
    uint64_t r = alu_rcp_approx_ftz_f64(a);
    ASSERT_EQ(r & 0xffffffffull, 0u);
    q exact = 1 / (q)alu_f64(a);
    if (fabsq(exact) >= (q)0x1p-1022) {
      // the upper-word input (20 fraction bits) and the 20-bit result cost about 2^-20 each
      ASSERT_LE(rel_err(alu_f64(r), exact), std::ldexp(1.0, -19)) << std::hex << a;
    } else {
      ASSERT_EQ(r & 0x7fffffffffffffffull, 0u);  // subnormal results flushed
    }
    uint64_t p = a & 0x7fffffffffffffffull;
    uint64_t s = alu_rsqrt_approx_f64(p, PTX_MOD_FTZ);
    ASSERT_EQ(s & 0xffffffffull, 0u);
    ASSERT_LE(rel_err(alu_f64(s), 1 / sqrtq((q)alu_f64(p))), std::ldexp(1.0, -19)) << std::hex << p;
    double full = alu_f64(alu_rsqrt_approx_f64(p, 0));
    ASSERT_LE(rel_err(full, 1 / sqrtq((q)alu_f64(p))), std::ldexp(1.0, -52)) << std::hex << p;
  }
  // the ISA's tables
  EXPECT_EQ(alu_rcp_approx_ftz_f64(0xfff0000000000000ull), 0x8000000000000000ull);
  EXPECT_EQ(alu_rcp_approx_ftz_f64(0x8000000000000001ull), 0xfff0000000000000ull);  // -subnormal
  EXPECT_EQ(alu_rcp_approx_ftz_f64(0x8000000000000000ull), 0xfff0000000000000ull);
  EXPECT_EQ(alu_rcp_approx_ftz_f64(0x0000000100000000ull), 0x7ff0000000000000ull);  // +subnormal
  EXPECT_EQ(alu_rcp_approx_ftz_f64(0x7ff0000000000000ull), 0u);
  EXPECT_EQ(alu_rcp_approx_ftz_f64(0x7ff8000000000000ull), 0x7fffffff00000000ull);
  EXPECT_EQ(alu_rcp_approx_ftz_f64(0x3ff0000000000000ull), 0x3ff0000000000000ull);
  EXPECT_EQ(alu_rcp_approx_ftz_f64(0x4000000012345678ull), 0x3fe0000000000000ull);  // low word ignored
  EXPECT_EQ(alu_rsqrt_approx_f64(0xfff0000000000000ull, PTX_MOD_FTZ), 0x7fffffff00000000ull);
  EXPECT_EQ(alu_rsqrt_approx_f64(0x8000000000000001ull, PTX_MOD_FTZ), 0xfff0000000000000ull);
  EXPECT_EQ(alu_rsqrt_approx_f64(0x0000000000000000ull, PTX_MOD_FTZ), 0x7ff0000000000000ull);
  EXPECT_EQ(alu_rsqrt_approx_f64(0x7ff0000000000000ull, PTX_MOD_FTZ), 0u);
  EXPECT_EQ(alu_rsqrt_approx_f64(0x4010000000000000ull, PTX_MOD_FTZ), 0x3fe0000000000000ull);
  EXPECT_EQ(alu_rsqrt_approx_f64(0x8000000000000000ull, 0), 0xfff0000000000000ull);
  EXPECT_TRUE(alu_isnan_f64(alu_rsqrt_approx_f64(0xbff0000000000000ull, 0)));
}

TEST(AluApprox, HalfPrecisionEx2AndTanh) {
  for (uint32_t h = 0; h < 65536; h++) {
    if (alu_isnan_f16((uint16_t)h)) {
      EXPECT_EQ(alu_ex2_approx_f16((uint16_t)h), ALU_F16_NAN);
      continue;
    }
    double x = alu_f32(alu_cvt_f32_f16((uint16_t)h));
    q e = exp2q((q)x), t = tanhq((q)x);
    double ge = alu_f32(alu_cvt_f32_f16(alu_ex2_approx_f16((uint16_t)h)));
    double gt = alu_f32(alu_cvt_f32_f16(alu_tanh_approx_f16((uint16_t)h)));
    if (e <= (q)65504 && e >= (q)0x1p-14) {
      ASSERT_LE(rel_err(ge, e), std::pow(2.0, -9.9)) << std::hex << h;
    }
    if (fabsq(t) >= (q)0x1p-14) {
      ASSERT_LE(rel_err(gt, t), std::pow(2.0, -10.0)) << std::hex << h;
    }
  }
}
