// Floating-point semantics of the functional engine (PTX ISA 9.7.3, 9.7.4, 9.7.9.21): rounding
// modes, canonical NaN, ±Inf, subnormals with and without .ftz, .sat, conversions with rounding and
// saturation, comparisons with NaN, the approximate functions within their documented error.
// Expectations come from the host (IEEE arithmetic under std::fesetround), not from alu.
#include <cfenv>
#include <cmath>
#include <functional>
#include <limits>

#include "func_test_util.h"
#include "half_float.h"

using namespace functest;

namespace {

const float kf[] = {0.0f, -0.0f, 1.0f, -1.0f, 1.5f, 3.0f, 0.1f, -2.75f, 1e30f, -1e30f, 3.4e38f,
                    1e-40f /* subnormal */, -1e-42f, 1.17549435e-38f /* FLT_MIN */,
                    std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                    std::numeric_limits<float>::quiet_NaN(), 16777217.0f, 0.33333334f, 1e-20f};
const double kd[] = {0.0, -0.0, 1.0, -1.0, 0.1, 1e300, -1e300, 4.9e-324, 2.2250738585072014e-308,
                     std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN(),
                     3.141592653589793, -2.5, 1e-310};

std::vector<Slot> fpairs() {
  std::vector<Slot> in;
  for (float a : kf)
    for (float b : kf) {
      Slot s;
      s.set_f32(0, a);
      s.set_f32(1, b);
      s.set_f32(2, a * 0.5f - b);
      in.push_back(s);
    }
  return in;
}
std::vector<Slot> dpairs() {
  std::vector<Slot> in;
  for (double a : kd)
    for (double b : kd) {
      Slot s;
      s.set_f64(0, a);
      s.set_f64(1, b);
      s.set_f64(2, a * 0.25 + b);
      in.push_back(s);
    }
  return in;
}

bool is_nan32(uint32_t u) { return (u & 0x7fffffffu) > 0x7f800000u; }
uint32_t canon(uint32_t u) { return is_nan32(u) ? 0x7fffffffu : u; }
// f64 NaNs follow IEEE propagation (alu.h: payload of a NaN operand, default NaN for invalid ops), as the host does
uint64_t canon64(uint64_t u) { return u; }
float ftz(float x) { return std::fabs(x) < 1.17549435e-38f ? std::copysign(0.0f, x) : x; }

// Host arithmetic in functions the compiler cannot move or merge across fesetround (GCC does not honour
// -frounding-math reliably for inline code).
#if defined(__clang__)
#define NOINLINE __attribute__((noinline))  // clang has no noipa; noinline keeps the calls
#else
#define NOINLINE __attribute__((noipa))
#endif

// IEEE binary16 for the host references (tests/support/half_float.h).
uint16_t f16_bits(double d) { return half_bits(d); }
float f16_value(uint16_t u) { return half_value(u); }
NOINLINE float h_add(float a, float b) { return a + b; }
NOINLINE float h_mul(float a, float b) { return a * b; }
NOINLINE float h_div(float a, float b) { return a / b; }
NOINLINE float h_fma(float a, float b, float c) { return std::fma(a, b, c); }
NOINLINE double h_addd(double a, double b) { return a + b; }
NOINLINE double h_muld(double a, double b) { return a * b; }
NOINLINE double h_sqrtd(double a) { return std::sqrt(a); }
NOINLINE float h_d2f(double a) { return (float)a; }
NOINLINE float h_u2f(uint32_t a) { return (float)a; }

// host computation under a rounding mode
template <class F> auto with_rounding(int mode, F f) {
  int old = std::fegetround();
  std::fesetround(mode);
  auto r = f();
  std::fesetround(old);
  return r;
}

void checkf(const std::string &op, const std::function<uint32_t(float, float, float)> &want) {
  auto in = fpairs();
  auto out = run_lanes("ld.global.f32 %f1, [%rd4];\n ld.global.f32 %f2, [%rd4+4];\n ld.global.f32 %f3, [%rd4+8];\n" + op +
                           "\n st.global.f32 [%rd5], %f4;",
                       in);
  for (size_t i = 0; i < in.size(); i++) {
    float a = in[i].f32(0), b = in[i].f32(1), c = in[i].f32(2);
    ASSERT_EQ(out[i].u32(0), want(a, b, c)) << op << " a=" << a << " b=" << b << " c=" << c << " got "
                                            << out[i].f32(0);
  }
}
void checkd(const std::string &op, const std::function<uint64_t(double, double, double)> &want) {
  auto in = dpairs();
  auto out = run_lanes("ld.global.f64 %fd1, [%rd4];\n ld.global.f64 %fd2, [%rd4+8];\n ld.global.f64 %fd3, [%rd4+16];\n" +
                           op + "\n st.global.f64 [%rd5], %fd4;",
                       in);
  for (size_t i = 0; i < in.size(); i++) {
    double a = in[i].f64(0), b = in[i].f64(1), c = in[i].f64(2);
    ASSERT_EQ(out[i].q[0], want(a, b, c)) << op << " a=" << a << " b=" << b << " c=" << c << " got "
                                          << out[i].f64(0);
  }
}

TEST(FuncFloat, AddSubMulRoundToNearestWithCanonicalNaN) {
  checkf("add.f32 %f4, %f1, %f2;", [](float a, float b, float) { return canon(f2u(a + b)); });
  checkf("sub.rn.f32 %f4, %f1, %f2;", [](float a, float b, float) { return canon(f2u(a - b)); });
  checkf("mul.f32 %f4, %f1, %f2;", [](float a, float b, float) { return canon(f2u(a * b)); });
  checkf("fma.rn.f32 %f4, %f1, %f2, %f3;", [](float a, float b, float c) { return canon(f2u(std::fma(a, b, c))); });
  checkf("mad.f32 %f4, %f1, %f2, %f3;", [](float a, float b, float c) { return canon(f2u(std::fma(a, b, c))); });
  checkd("add.f64 %fd4, %fd1, %fd2;", [](double a, double b, double) { return canon64(d2u(a + b)); });
  checkd("mul.rn.f64 %fd4, %fd1, %fd2;", [](double a, double b, double) { return canon64(d2u(a * b)); });
  checkd("fma.rn.f64 %fd4, %fd1, %fd2, %fd3;", [](double a, double b, double c) { return canon64(d2u(std::fma(a, b, c))); });
}

TEST(FuncFloat, DirectedRoundingModesOfF32AndF64) {
  struct M { const char *name; int mode; };
  for (M m : {M{"rz", FE_TOWARDZERO}, M{"rm", FE_DOWNWARD}, M{"rp", FE_UPWARD}}) {
    checkf(std::string("add.") + m.name + ".f32 %f4, %f1, %f2;", [&](float a, float b, float) {
      return canon(with_rounding(m.mode, [&] { return f2u(h_add(a, b)); }));
    });
    checkf(std::string("mul.") + m.name + ".f32 %f4, %f1, %f2;", [&](float a, float b, float) {
      return canon(with_rounding(m.mode, [&] { return f2u(h_mul(a, b)); }));
    });
    checkf(std::string("fma.") + m.name + ".f32 %f4, %f1, %f2, %f3;", [&](float a, float b, float c) {
      return canon(with_rounding(m.mode, [&] { return f2u(h_fma(a, b, c)); }));
    });
    checkf(std::string("div.") + m.name + ".f32 %f4, %f1, %f2;", [&](float a, float b, float) {
      return canon(with_rounding(m.mode, [&] { return f2u(h_div(a, b)); }));
    });
    checkd(std::string("add.") + m.name + ".f64 %fd4, %fd1, %fd2;", [&](double a, double b, double) {
      return canon64(with_rounding(m.mode, [&] { return d2u(h_addd(a, b)); }));
    });
    checkd(std::string("mul.") + m.name + ".f64 %fd4, %fd1, %fd2;", [&](double a, double b, double) {
      return canon64(with_rounding(m.mode, [&] { return d2u(h_muld(a, b)); }));
    });
    checkd(std::string("sqrt.") + m.name + ".f64 %fd4, %fd1;", [&](double a, double, double) {
      return canon64(with_rounding(m.mode, [&] { return d2u(h_sqrtd(a)); }));
    });
  }
}

TEST(FuncFloat, FtzFlushesSubnormalInputsAndResults) {
  checkf("add.ftz.f32 %f4, %f1, %f2;", [](float a, float b, float) { return canon(f2u(ftz(ftz(a) + ftz(b)))); });
  checkf("mul.ftz.f32 %f4, %f1, %f2;", [](float a, float b, float) { return canon(f2u(ftz(ftz(a) * ftz(b)))); });
  checkf("fma.rn.ftz.f32 %f4, %f1, %f2, %f3;",
         [](float a, float b, float c) { return canon(f2u(ftz(std::fma(ftz(a), ftz(b), ftz(c))))); });
}

TEST(FuncFloat, SaturationClampsToUnitIntervalAndNaNToZero) {
  checkf("add.sat.f32 %f4, %f1, %f2;", [](float a, float b, float) {
    float r = a + b;
    if (std::isnan(r) || r <= 0.0f) return 0u;
    return r > 1.0f ? f2u(1.0f) : f2u(r);
  });
}

TEST(FuncFloat, DivisionSqrtAndReciprocalRoundCorrectly) {
  checkf("div.rn.f32 %f4, %f1, %f2;", [](float a, float b, float) { return canon(f2u(a / b)); });
  checkf("sqrt.rn.f32 %f4, %f1;", [](float a, float, float) { return canon(f2u(std::sqrt(a))); });
  checkf("rcp.rn.f32 %f4, %f1;", [](float a, float, float) { return canon(f2u(1.0f / a)); });
  checkd("div.rn.f64 %fd4, %fd1, %fd2;", [](double a, double b, double) { return canon64(d2u(a / b)); });
  checkd("rcp.rn.f64 %fd4, %fd1;", [](double a, double, double) { return canon64(d2u(1.0 / a)); });
}

TEST(FuncFloat, ApproximateFunctionsStayWithinTheirDocumentedError) {
  std::vector<Slot> in;
  for (int i = 0; i < 256; i++) {
    Slot s;
    s.set_f32(0, -3.0f + 6.0f * (float)i / 255.0f);   // sin/cos: |x| <= pi
    s.set_f32(1, 0.01f + 100.0f * (float)i / 255.0f);  // positive for lg2/rsqrt/sqrt
    in.push_back(s);
  }
  auto out = run_lanes(
      "ld.global.f32 %f1, [%rd4]; ld.global.f32 %f2, [%rd4+4];\n"
      "sin.approx.f32 %f3, %f1; cos.approx.f32 %f4, %f1; ex2.approx.f32 %f5, %f1; lg2.approx.f32 %f6, %f2;\n"
      "rsqrt.approx.f32 %f7, %f2; sqrt.approx.f32 %f8, %f2; rcp.approx.f32 %f9, %f2; div.full.f32 %f10, %f1, %f2;\n"
      "st.global.v4.f32 [%rd5], {%f3, %f4, %f5, %f6};\n st.global.v4.f32 [%rd5+16], {%f7, %f8, %f9, %f10};",
      in);
  for (size_t i = 0; i < in.size(); i++) {
    float x = in[i].f32(0), y = in[i].f32(1);
    EXPECT_NEAR(out[i].f32(0), std::sin(x), 1.0e-6 * 4) << x;  // 2^-20.9 absolute in [-pi, pi]
    EXPECT_NEAR(out[i].f32(1), std::cos(x), 1.0e-6 * 4) << x;
    EXPECT_NEAR(out[i].f32(2), std::exp2(x), std::exp2(x) * 4e-7 + 1e-7) << x;
    EXPECT_NEAR(out[i].f32(3), std::log2(y), 1e-6 * 2 + std::fabs(std::log2(y)) * 3e-7) << y;
    EXPECT_NEAR(out[i].f32(4), 1.0f / std::sqrt(y), 3e-7f / std::sqrt(y)) << y;
    EXPECT_NEAR(out[i].f32(5), std::sqrt(y), 3e-7f * std::sqrt(y)) << y;
    EXPECT_NEAR(out[i].f32(6), 1.0f / y, 2e-7f / y) << y;
    EXPECT_NEAR(out[i].f32(7), x / y, std::fabs(x / y) * 3e-7f + 1e-30f) << x << " " << y;
  }
}

TEST(FuncFloat, MinMaxPreferNumbersAndOrderSignedZeros) {
  checkf("min.f32 %f4, %f1, %f2;", [](float a, float b, float) -> uint32_t {
    if (std::isnan(a) && std::isnan(b)) return 0x7fffffffu;
    if (std::isnan(a)) return f2u(b);
    if (std::isnan(b)) return f2u(a);
    if (a == 0.0f && b == 0.0f) return (std::signbit(a) || std::signbit(b)) ? 0x80000000u : 0u;
    return f2u(a < b ? a : b);
  });
  checkf("max.f32 %f4, %f1, %f2;", [](float a, float b, float) -> uint32_t {
    if (std::isnan(a) && std::isnan(b)) return 0x7fffffffu;
    if (std::isnan(a)) return f2u(b);
    if (std::isnan(b)) return f2u(a);
    if (a == 0.0f && b == 0.0f) return (!std::signbit(a) || !std::signbit(b)) ? 0u : 0x80000000u;
    return f2u(a > b ? a : b);
  });
  checkf("abs.f32 %f4, %f1;", [](float a, float, float) { return f2u(a) & 0x7fffffffu; });
  checkf("neg.f32 %f4, %f1;", [](float a, float, float) { return f2u(a) ^ 0x80000000u; });
  checkf("copysign.f32 %f4, %f1, %f2;", [](float a, float b, float) { return (f2u(b) & 0x7fffffffu) | (f2u(a) & 0x80000000u); });
}

TEST(FuncFloat, SetpHandlesOrderedUnorderedAndNaN) {
  struct C { const char *op; std::function<bool(float, float)> f; };
  std::vector<C> cmps = {
      {"eq", [](float a, float b) { return a == b; }},
      {"ne", [](float a, float b) { return a < b || a > b; }},
      {"lt", [](float a, float b) { return a < b; }},
      {"ge", [](float a, float b) { return a >= b; }},
      {"equ", [](float a, float b) { return std::isnan(a) || std::isnan(b) || a == b; }},
      {"neu", [](float a, float b) { return !(a == b); }},
      {"ltu", [](float a, float b) { return !(a >= b); }},
      {"geu", [](float a, float b) { return !(a < b); }},
      {"num", [](float a, float b) { return !std::isnan(a) && !std::isnan(b); }},
      {"nan", [](float a, float b) { return std::isnan(a) || std::isnan(b); }},
  };
  for (auto &c : cmps)
    checkf(std::string("setp.") + c.op + ".f32 %p1, %f1, %f2; selp.f32 %f4, 0f3F800000, 0f00000000, %p1;",
           [&](float a, float b, float) { return c.f(a, b) ? f2u(1.0f) : 0u; });
  checkd("setp.gtu.f64 %p1, %fd1, %fd2; selp.f64 %fd4, 0d3FF0000000000000, 0d0000000000000000, %p1;",
         [](double a, double b, double) { return !(a <= b) ? d2u(1.0) : 0ull; });
}

TEST(FuncFloat, TestpClassifiesValues) {
  checkf("testp.finite.f32 %p1, %f1; testp.subnormal.f32 %p2, %f1; testp.notanumber.f32 %p3, %f1;\n"
         "selp.u32 %r2, 1, 0, %p1; selp.u32 %r3, 2, 0, %p2; selp.u32 %r4, 4, 0, %p3;\n"
         "or.b32 %r2, %r2, %r3; or.b32 %r2, %r2, %r4; mov.b32 %f4, %r2;",
         [](float a, float, float) {
           return (std::isfinite(a) ? 1u : 0u) | (std::fpclassify(a) == FP_SUBNORMAL ? 2u : 0u) | (std::isnan(a) ? 4u : 0u);
         });
}

TEST(FuncFloat, ConversionsToIntegersSaturateAndMapNaNToZero) {
  auto sat32 = [](double r) -> uint32_t {
    if (std::isnan(r)) return 0;
    if (r >= 2147483647.0) return 0x7fffffffu;
    if (r <= -2147483648.0) return 0x80000000u;
    return (uint32_t)(int32_t)r;
  };
  checkf("cvt.rzi.s32.f32 %r2, %f1; mov.b32 %f4, %r2;", [&](float a, float, float) { return sat32(std::trunc(a)); });
  checkf("cvt.rni.s32.f32 %r2, %f1; mov.b32 %f4, %r2;", [&](float a, float, float) { return sat32(std::nearbyint(a)); });
  checkf("cvt.rmi.s32.f32 %r2, %f1; mov.b32 %f4, %r2;", [&](float a, float, float) { return sat32(std::floor(a)); });
  checkf("cvt.rpi.s32.f32 %r2, %f1; mov.b32 %f4, %r2;", [&](float a, float, float) { return sat32(std::ceil(a)); });
  checkf("cvt.rzi.u32.f32 %r2, %f1; mov.b32 %f4, %r2;", [](float a, float, float) -> uint32_t {
    if (std::isnan(a) || a <= 0.0f) return 0;
    if (a >= 4294967295.0f) return 0xffffffffu;
    return (uint32_t)a;
  });
  checkf("cvt.rzi.s64.f32 %rd6, %f1; cvt.u32.u64 %r2, %rd6; shr.u64 %rd6, %rd6, 32; cvt.u32.u64 %r3, %rd6; xor.b32 %r2, %r2, %r3; mov.b32 %f4, %r2;",
         [](float a, float, float) -> uint32_t {
           // NaN to a 64-bit integer gives MININT on the hardware (docs/func-alu.md)
           int64_t v = std::isnan(a) ? INT64_MIN : a >= 9.2233720368547758e18f ? INT64_MAX : a <= -9.2233720368547758e18f ? INT64_MIN : (int64_t)a;
           return (uint32_t)v ^ (uint32_t)((uint64_t)v >> 32);
         });
}

TEST(FuncFloat, ConversionsBetweenFloatTypesRound) {
  // a NaN narrows to the canonical f32 NaN, which widens with its payload: 0x7fffffffe0000000
  checkd("cvt.rn.f32.f64 %f1, %fd1; cvt.f64.f32 %fd4, %f1;", [](double a, double, double) {
    float f = (float)a;
    return std::isnan(a) ? 0x7fffffffe0000000ull : d2u((double)f);
  });
  checkd("cvt.rz.f32.f64 %f1, %fd1; cvt.f64.f32 %fd4, %f1;", [](double a, double, double) {
    float f = with_rounding(FE_TOWARDZERO, [&] { return h_d2f(a); });
    return std::isnan(a) ? 0x7fffffffe0000000ull : d2u((double)f);
  });
  checkf("cvt.rn.f16.f32 %h1, %f1; cvt.f32.f16 %f4, %h1;", [](float a, float, float) {
    // reference: binary16 round to nearest even and back
    float back = f16_value(f16_bits(a));
    return std::isnan(a) ? 0x7fffffffu : f2u(back);
  });
  checkf("cvt.rni.f32.f32 %f4, %f1;", [](float a, float, float) { return canon(f2u(std::nearbyint(a))); });
  checkf("cvt.sat.f32.f32 %f4, %f1;", [](float a, float, float) -> uint32_t {
    if (std::isnan(a) || a <= 0.0f) return 0u;
    return a > 1.0f ? f2u(1.0f) : f2u(a);
  });
}

TEST(FuncFloat, IntegerToFloatConversionsRound) {
  std::vector<Slot> in;
  for (uint32_t v : {0u, 1u, 16777217u, 16777219u, 0x7fffffffu, 0x80000000u, 0xffffffffu, 123456789u}) {
    Slot s;
    s.set_u32(0, v);
    in.push_back(s);
  }
  auto out = run_lanes("ld.global.u32 %r2, [%rd4];\n cvt.rn.f32.s32 %f1, %r2; cvt.rz.f32.u32 %f2, %r2;"
                       " cvt.rn.f64.s32 %fd1, %r2; cvt.rp.f32.u32 %f3, %r2;\n"
                       "st.global.f32 [%rd5], %f1; st.global.f32 [%rd5+4], %f2; st.global.f64 [%rd5+8], %fd1; st.global.f32 [%rd5+16], %f3;",
                       in);
  for (size_t i = 0; i < in.size(); i++) {
    uint32_t v = in[i].u32(0);
    EXPECT_EQ(out[i].f32(0), (float)(int32_t)v);
    EXPECT_EQ(out[i].f32(1), with_rounding(FE_TOWARDZERO, [&] { return h_u2f(v); }));
    EXPECT_EQ(out[i].f64(1), (double)(int32_t)v);
    EXPECT_EQ(out[i].f32(4), with_rounding(FE_UPWARD, [&] { return h_u2f(v); }));
  }
}

TEST(FuncFloat, IntegerConversionsExtendTruncateAndSaturate) {
  std::vector<Slot> in;
  for (uint32_t v : {0u, 0x7fu, 0x80u, 0xffu, 0x1234u, 0x8000u, 0xffffffffu, 0x80000000u, 300u}) {
    Slot s;
    s.set_u32(0, v);
    in.push_back(s);
  }
  auto out = run_lanes("ld.global.u32 %r2, [%rd4];\n cvt.s32.s8 %r3, %r2; cvt.u32.u8 %r4, %r2; cvt.sat.s8.s32 %r5, %r2;"
                       " cvt.sat.u8.s32 %r6, %r2; cvt.s64.s32 %rd6, %r2;\n"
                       "st.global.v4.u32 [%rd5], {%r3, %r4, %r5, %r6}; st.global.u64 [%rd5+16], %rd6;",
                       in);
  for (size_t i = 0; i < in.size(); i++) {
    uint32_t v = in[i].u32(0);
    int32_t sv = (int32_t)v;
    EXPECT_EQ(out[i].u32(0), (uint32_t)(int32_t)(int8_t)v);
    EXPECT_EQ(out[i].u32(1), v & 0xff);
    EXPECT_EQ((int8_t)out[i].u32(2), (int8_t)(sv > 127 ? 127 : sv < -128 ? -128 : sv));
    EXPECT_EQ(out[i].u32(3) & 0xff, (uint32_t)(sv > 255 ? 255 : sv < 0 ? 0 : sv));
    EXPECT_EQ(out[i].q[2], (uint64_t)(int64_t)sv);
  }
}

TEST(FuncFloat, HalfPrecisionPackedArithmetic) {
  std::vector<Slot> in;
  float vals[] = {1.0f, -2.5f, 0.1f, 65504.0f, 3.0f, -0.0f, 1000.0f, 0.5f};
  for (float a : vals)
    for (float b : vals) {
      Slot s;
      uint16_t ua = f16_bits(a), ub = f16_bits(b), uc = f16_bits(a - b);
      s.set_u32(0, (uint32_t)ua | (uint32_t)ub << 16);
      s.set_u32(1, (uint32_t)ub | (uint32_t)uc << 16);
      in.push_back(s);
    }
  auto out = run_lanes("ld.global.b32 %r2, [%rd4]; ld.global.b32 %r3, [%rd4+4];\n"
                       "add.f16x2 %r4, %r2, %r3; mul.rn.f16x2 %r5, %r2, %r3; fma.rn.f16x2 %r6, %r2, %r3, %r2;\n"
                       "st.global.v4.b32 [%rd5], {%r4, %r5, %r6, %r2};",
                       in);
  auto h = [](uint32_t w, int k) { return f16_value((uint16_t)(w >> (16 * k))); };
  auto bits = [](double x) { return (uint32_t)f16_bits(x); };
  for (size_t i = 0; i < in.size(); i++) {
    uint32_t a = in[i].u32(0), b = in[i].u32(1);
    for (int k = 0; k < 2; k++) {
      float x = h(a, k), y = h(b, k);
      EXPECT_EQ((out[i].u32(0) >> (16 * k)) & 0xffff, bits(x + y));
      EXPECT_EQ((out[i].u32(1) >> (16 * k)) & 0xffff, bits(x * y));
      EXPECT_EQ((out[i].u32(2) >> (16 * k)) & 0xffff, bits(std::fma((double)x, (double)y, (double)x)));
    }
  }
}

}  // namespace
