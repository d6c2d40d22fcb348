// f32 / f64 arithmetic, min/max, abs/neg/copysign, testp and comparisons (PTX ISA 9.7.3, 9.7.5).
// References: alu_ref's exact arithmetic with its own rounding (every mode), and for the directed
// f32 paths additionally the host FPU under fesetround.
#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <vector>

#include "alu.h"
#include "alu_ref.h"
#include "alu_test_util.h"

using namespace aluref;

namespace {

uint32_t f32_call(Op op, uint32_t a, uint32_t b, uint32_t c, ptx_rounding rnd, uint64_t mods) {
  switch (op) {
    case ADD: return alu_add_f32_rnd(a, b, rnd, mods);
    case SUB: return alu_sub_f32_rnd(a, b, rnd, mods);
    case MUL: return alu_mul_f32_rnd(a, b, rnd, mods);
    case FMA: return alu_fma_f32_rnd(a, b, c, rnd, mods);
    case DIV: return alu_div_f32_rnd(a, b, rnd, mods);
    case SQRT: return alu_sqrt_f32_rnd(a, rnd, mods);
    default: return alu_rcp_f32_rnd(a, rnd, mods);
  }
}

uint32_t f32_inline(Op op, uint32_t a, uint32_t b, uint32_t c, uint64_t mods) {
  switch (op) {
    case ADD: return alu_add_f32(a, b, mods);
    case SUB: return alu_sub_f32(a, b, mods);
    case MUL: return alu_mul_f32(a, b, mods);
    case FMA: return alu_fma_f32(a, b, c, mods);
    case DIV: return alu_div_f32(a, b, mods);
    case SQRT: return alu_sqrt_f32(a, mods);
    default: return alu_rcp_f32(a, mods);
  }
}

uint64_t f64_call(Op op, uint64_t a, uint64_t b, uint64_t c, ptx_rounding rnd) {
  switch (op) {
    case ADD: return alu_add_f64_rnd(a, b, rnd);
    case SUB: return alu_sub_f64_rnd(a, b, rnd);
    case MUL: return alu_mul_f64_rnd(a, b, rnd);
    case FMA: return alu_fma_f64_rnd(a, b, c, rnd);
    case DIV: return alu_div_f64_rnd(a, b, rnd);
    case SQRT: return alu_sqrt_f64_rnd(a, rnd);
    default: return alu_rcp_f64_rnd(a, rnd);
  }
}

const char *op_name(Op op) {
  static const char *names[] = {"add", "sub", "mul", "fma", "div", "sqrt", "rcp"};
  return names[op];
}

constexpr Op kOps[] = {ADD, SUB, MUL, FMA, DIV, SQRT, RCP};

// Inputs: all pairs of specials, then random values (half of them with close exponents).
template <typename F>
void sweep(const ref::Fmt &fmt, uint64_t seed, int n_random, F &&check) {
  std::vector<uint64_t> sp = ref::specials(fmt);
  for (uint64_t a : sp)
    for (uint64_t b : sp) check(a, b, sp[(a ^ b) % sp.size()]);
  ref::Gen g(seed);
  for (int i = 0; i < n_random; i++) {
    uint64_t a = g.bits(fmt);
    uint64_t b = (i & 1) ? g.near(fmt, a) : g.bits(fmt);
    uint64_t c = (i & 2) ? g.near(fmt, a ^ b) : g.bits(fmt);
    check(a, b, c);
  }
}

}  // namespace

TEST(AluFloat, F32AllOpsAllModesMatchExactReference) {
  for (Op op : kOps)
    for (ptx_rounding rnd : kModes)
      for (uint64_t mods : {(uint64_t)0, (uint64_t)PTX_MOD_FTZ, (uint64_t)PTX_MOD_SAT}) {
        int fails = 0;
        sweep(ref::F32, 1000 + op * 10 + rnd, 20000, [&](uint64_t a, uint64_t b, uint64_t c) {
          Result want = expect(ref::F32, op, a, b, c, rnd, mods, ALU_F32_NAN);
          uint32_t got = f32_call(op, (uint32_t)a, (uint32_t)b, (uint32_t)c, rnd, mods);
          if (got != want.bits && fails++ < 5)
            ADD_FAILURE() << op_name(op) << "." << mode_name(rnd) << " mods=" << mods << std::hex
                          << " a=" << a << " b=" << b << " c=" << c << " got=" << got
                          << " want=" << want.bits;
        });
        EXPECT_EQ(fails, 0) << op_name(op) << "." << mode_name(rnd) << " mods=" << mods;
      }
}

TEST(AluFloat, F32InlineRoundToNearestMatchesExactReference) {
  for (Op op : kOps)
    for (uint64_t mods : {(uint64_t)0, (uint64_t)PTX_MOD_FTZ, (uint64_t)(PTX_MOD_FTZ | PTX_MOD_SAT)}) {
      int fails = 0;
      sweep(ref::F32, 77 + op, 20000, [&](uint64_t a, uint64_t b, uint64_t c) {
        Result want = expect(ref::F32, op, a, b, c, PTX_RND_RN, mods, ALU_F32_NAN);
        uint32_t got = f32_inline(op, (uint32_t)a, (uint32_t)b, (uint32_t)c, mods);
        if (got != want.bits && fails++ < 5)
          ADD_FAILURE() << op_name(op) << " mods=" << mods << std::hex << " a=" << a << " b=" << b
                        << " c=" << c << " got=" << got << " want=" << want.bits;
      });
      EXPECT_EQ(fails, 0) << op_name(op);
    }
}

TEST(AluFloat, F32DirectedRoundingAgreesWithHostFpuUnderFesetround) {
  // A second, independent oracle: the host's IEEE arithmetic under the same rounding mode.
  const int host_modes[] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
  ref::Gen g(4242);
  for (int m = 0; m < 4; m++) {
    ptx_rounding rnd = kModes[m];
    for (int i = 0; i < 50000; i++) {
      uint32_t a = (uint32_t)g.bits(ref::F32), b = (uint32_t)g.near(ref::F32, a),
               c = (uint32_t)g.bits(ref::F32);
      volatile float x = alu_f32(a), y = alu_f32(b), z = alu_f32(c);
      fesetround(host_modes[m]);
      volatile float s = x + y, p = x * y, q = x / y, f = std::fmaf(x, y, z);
      fesetround(FE_TONEAREST);
      auto canon = [](float v) { return std::isnan(v) ? ALU_F32_NAN : alu_f32_bits(v); };
      ASSERT_EQ(alu_add_f32_rnd(a, b, rnd, 0), canon(s)) << std::hex << a << " " << b;
      ASSERT_EQ(alu_mul_f32_rnd(a, b, rnd, 0), canon(p)) << std::hex << a << " " << b;
      ASSERT_EQ(alu_div_f32_rnd(a, b, rnd, 0), canon(q)) << std::hex << a << " " << b;
      ASSERT_EQ(alu_fma_f32_rnd(a, b, c, rnd, 0), canon(f)) << std::hex << a << " " << b << " " << c;
    }
  }
}

TEST(AluFloat, F64AllOpsAllModesMatchExactReference) {
  for (Op op : kOps)
    for (ptx_rounding rnd : kModes) {
      int fails = 0;
      sweep(ref::F64, 3000 + op * 10 + rnd, 20000, [&](uint64_t a, uint64_t b, uint64_t c) {
        Result want = expect(ref::F64, op, a, b, c, rnd, 0, 0);
        uint64_t got = f64_call(op, a, b, c, rnd);
        bool ok = want.any_nan ? alu_isnan_f64(got) : got == want.bits;
        if (!ok && fails++ < 5)
          ADD_FAILURE() << op_name(op) << "." << mode_name(rnd) << std::hex << " a=" << a
                        << " b=" << b << " c=" << c << " got=" << got << " want=" << want.bits;
      });
      EXPECT_EQ(fails, 0) << op_name(op) << "." << mode_name(rnd);
    }
}

TEST(AluFloat, F64InlineRoundToNearestMatchesExactReference) {
  int fails = 0;
  sweep(ref::F64, 99, 50000, [&](uint64_t a, uint64_t b, uint64_t c) {
    struct { Op op; uint64_t got; } r[] = {
        {ADD, alu_add_f64(a, b)}, {SUB, alu_sub_f64(a, b)}, {MUL, alu_mul_f64(a, b)},
        {FMA, alu_fma_f64(a, b, c)}, {DIV, alu_div_f64(a, b)}, {SQRT, alu_sqrt_f64(a)},
        {RCP, alu_rcp_f64(a)}};
    for (auto &x : r) {
      Result want = expect(ref::F64, x.op, a, b, c, PTX_RND_RN, 0, 0);
      bool ok = want.any_nan ? alu_isnan_f64(x.got) : x.got == want.bits;
      if (!ok && fails++ < 5)
        ADD_FAILURE() << op_name(x.op) << std::hex << " a=" << a << " b=" << b << " c=" << c
                      << " got=" << x.got << " want=" << want.bits;
    }
  });
  EXPECT_EQ(fails, 0);
}

TEST(AluFloat, LaneArraysMatchScalarFormsAndRestoreTheHostRoundingMode) {
  constexpr unsigned n = 37;  // not a multiple of any vector width
  ref::Gen g(7);
  uint32_t a[n], b[n], c[n], d[n];
  uint64_t a64[n], b64[n], c64[n], d64[n];
  for (unsigned i = 0; i < n; i++) {
    a[i] = (uint32_t)g.bits(ref::F32);
    b[i] = (uint32_t)g.bits(ref::F32);
    c[i] = (uint32_t)g.bits(ref::F32);
    a64[i] = g.bits(ref::F64);
    b64[i] = g.bits(ref::F64);
    c64[i] = g.bits(ref::F64);
  }
  for (ptx_rounding rnd : {PTX_RND_NONE, PTX_RND_RN, PTX_RND_RZ, PTX_RND_RM, PTX_RND_RP}) {
    for (uint64_t mods : {(uint64_t)0, (uint64_t)PTX_MOD_FTZ}) {
      alu_add_f32_n(d, a, b, n, rnd, mods);
      for (unsigned i = 0; i < n; i++) EXPECT_EQ(d[i], alu_add_f32_rnd(a[i], b[i], rnd, mods));
      alu_fma_f32_n(d, a, b, c, n, rnd, mods);
      for (unsigned i = 0; i < n; i++) EXPECT_EQ(d[i], alu_fma_f32_rnd(a[i], b[i], c[i], rnd, mods));
      alu_sqrt_f32_n(d, a, n, rnd, mods);
      for (unsigned i = 0; i < n; i++) EXPECT_EQ(d[i], alu_sqrt_f32_rnd(a[i], rnd, mods));
    }
    alu_mul_f64_n(d64, a64, b64, n, rnd);
    for (unsigned i = 0; i < n; i++) EXPECT_EQ(d64[i], alu_mul_f64_rnd(a64[i], b64[i], rnd));
    alu_fma_f64_n(d64, a64, b64, c64, n, rnd);
    for (unsigned i = 0; i < n; i++) EXPECT_EQ(d64[i], alu_fma_f64_rnd(a64[i], b64[i], c64[i], rnd));
    // in-place (d aliases a)
    uint64_t t[n];
    for (unsigned i = 0; i < n; i++) t[i] = a64[i];
    alu_div_f64_n(t, t, b64, n, rnd);
    for (unsigned i = 0; i < n; i++) EXPECT_EQ(t[i], alu_div_f64_rnd(a64[i], b64[i], rnd));
    EXPECT_EQ(fegetround(), FE_TONEAREST);
  }
  fesetround(FE_UPWARD);  // a caller running with another mode gets it back
  alu_add_f64_n(d64, a64, b64, n, PTX_RND_RZ);
  EXPECT_EQ(fegetround(), FE_UPWARD);
  fesetround(FE_TONEAREST);
}

TEST(AluFloat, F32FtzFlushesSubnormalInputsAndResultsKeepingTheSign) {
  const uint32_t sub = 0x00000001u, nsub = 0x80000001u, minnorm = 0x00800000u;
  EXPECT_EQ(alu_add_f32(sub, sub, 0), 0x00000002u);
  EXPECT_EQ(alu_add_f32(sub, sub, PTX_MOD_FTZ), 0u);
  EXPECT_EQ(alu_add_f32(nsub, nsub, PTX_MOD_FTZ), 0x80000000u);
  EXPECT_EQ(alu_mul_f32(minnorm, 0x3f000000u /*0.5*/, 0), 0x00400000u);
  EXPECT_EQ(alu_mul_f32(minnorm, 0x3f000000u, PTX_MOD_FTZ), 0u);
  EXPECT_EQ(alu_mul_f32(minnorm | 0x80000000u, 0x3f000000u, PTX_MOD_FTZ), 0x80000000u);
  // a subnormal input is zero under .ftz: 1 + sub == 1, sub * 2^100 == 0
  EXPECT_EQ(alu_mul_f32(sub, 0x71800000u /*2^100*/, PTX_MOD_FTZ), 0u);
  EXPECT_NE(alu_mul_f32(sub, 0x71800000u, 0), 0u);
  EXPECT_EQ(alu_div_f32(0x3f800000u, sub, PTX_MOD_FTZ), 0x7f800000u);  // 1/0 = Inf
  EXPECT_EQ(alu_sqrt_f32(nsub, PTX_MOD_FTZ), 0x80000000u);              // sqrt(-0) = -0
  // under .rp a tiny positive result rounds up to the smallest subnormal, which .ftz then flushes
  EXPECT_EQ(alu_mul_f32_rnd(sub, sub, PTX_RND_RP, 0), 1u);
  EXPECT_EQ(alu_mul_f32_rnd(minnorm, 0x3f000000u, PTX_RND_RP, PTX_MOD_FTZ), 0u);
}

TEST(AluFloat, F32SatClampsToUnitIntervalAndMapsNanToPositiveZero) {
  const uint64_t S = PTX_MOD_SAT;
  EXPECT_EQ(alu_add_f32(0x3f800000u, 0x3f800000u, S), 0x3f800000u);  // 2 -> 1
  EXPECT_EQ(alu_sub_f32(0u, 0x3f800000u, S), 0u);                    // -1 -> +0
  EXPECT_EQ(alu_mul_f32(0x80000000u, 0x3f800000u, S), 0u);            // -0 -> +0
  EXPECT_EQ(alu_add_f32(0x7f800000u, 0xff800000u, S), 0u);            // NaN -> +0
  EXPECT_EQ(alu_add_f32(0x7f800000u, 0u, S), 0x3f800000u);            // Inf -> 1
  EXPECT_EQ(alu_fma_f32(0x3f000000u, 0x3f000000u, 0u, S), 0x3e800000u);  // 0.25 stays
}

TEST(AluFloat, F32NanResultsAreTheCanonicalNan) {
  const uint32_t snan = 0x7f800001u, negq = 0xffc00123u;
  EXPECT_EQ(alu_add_f32(snan, 0x3f800000u, 0), ALU_F32_NAN);
  EXPECT_EQ(alu_mul_f32(negq, 0x3f800000u, 0), ALU_F32_NAN);
  EXPECT_EQ(alu_mul_f32(0x7f800000u, 0u, 0), ALU_F32_NAN);           // Inf * 0
  EXPECT_EQ(alu_sub_f32(0x7f800000u, 0x7f800000u, 0), ALU_F32_NAN);  // Inf - Inf
  EXPECT_EQ(alu_div_f32(0u, 0u, 0), ALU_F32_NAN);
  EXPECT_EQ(alu_sqrt_f32(0xbf800000u, 0), ALU_F32_NAN);
  EXPECT_EQ(alu_fma_f32(0x7f800000u, 0u, negq, 0), ALU_F32_NAN);
  EXPECT_EQ(alu_add_f32_rnd(snan, 0u, PTX_RND_RZ, 0), ALU_F32_NAN);
}

TEST(AluFloat, F64NanResultsFollowIeeePropagation) {
  // Documented choice (docs/func-alu.md): an invalid operation gives 0xfff8000000000000, a NaN
  // operand propagates with its payload, quieted.
  // (through a volatile: clang folds Inf - Inf of constants into its own +NaN at compile time; the
  // engine computes on run-time values, as here)
  volatile uint64_t inf = 0x7ff0000000000000ull;
  EXPECT_EQ(alu_sub_f64(inf, inf), ALU_F64_NAN);
  EXPECT_EQ(alu_add_f64(0x7ff0000000000123ull, 0x3ff0000000000000ull), 0x7ff8000000000123ull);
  EXPECT_TRUE(alu_isnan_f64(alu_mul_f64_rnd(0x7ff0000000000000ull, 0, PTX_RND_RM)));
}

TEST(AluFloat, MinMaxReturnTheNumberForOneNanAndOrderNegativeZeroFirst) {
  const uint32_t one = 0x3f800000u, two = 0x40000000u, qnan = 0x7fc00000u;
  EXPECT_EQ(alu_min_f32(one, two, 0), one);
  EXPECT_EQ(alu_max_f32(one, two, 0), two);
  EXPECT_EQ(alu_min_f32(qnan, two, 0), two);
  EXPECT_EQ(alu_max_f32(two, 0xffc00001u, 0), two);
  EXPECT_EQ(alu_min_f32(qnan, 0xffc00001u, 0), ALU_F32_NAN);
  EXPECT_EQ(alu_min_f32(0u, 0x80000000u, 0), 0x80000000u);
  EXPECT_EQ(alu_min_f32(0x80000000u, 0u, 0), 0x80000000u);
  EXPECT_EQ(alu_max_f32(0x80000000u, 0u, 0), 0u);
  EXPECT_EQ(alu_max_f32(0xbf800000u, 0xc0000000u, 0), 0xbf800000u);  // -1 > -2
  EXPECT_EQ(alu_min_f32(0x7f800000u, 0xff800000u, 0), 0xff800000u);
  // .ftz: a subnormal compares as a signed zero
  EXPECT_EQ(alu_max_f32(0x00000005u, 0u, PTX_MOD_FTZ), 0u);
  EXPECT_EQ(alu_min_f32(0x80000005u, 0u, PTX_MOD_FTZ), 0x80000000u);
  EXPECT_EQ(alu_max_f32(0x00000005u, 0u, 0), 0x00000005u);
  // f64 follows the same rules
  EXPECT_EQ(alu_min_f64(0x7ff8000000000000ull, 0x4000000000000000ull), 0x4000000000000000ull);
  EXPECT_EQ(alu_max_f64(0x8000000000000000ull, 0ull), 0ull);
  EXPECT_EQ(alu_min_f64(0x8000000000000000ull, 0ull), 0x8000000000000000ull);
  EXPECT_TRUE(alu_isnan_f64(alu_max_f64(0x7ff8000000000000ull, 0xfff0000000000001ull)));
}

TEST(AluFloat, MinMaxNanModifierAndXorsignAbs) {
  const uint32_t two = 0x40000000u, m3 = 0xc0400000u, qnan = 0x7fc00000u;
  EXPECT_EQ(alu_min_f32(qnan, two, PTX_MOD_NAN), ALU_F32_NAN);
  EXPECT_EQ(alu_max_f32(two, 0xff800001u, PTX_MOD_NAN), ALU_F32_NAN);
  EXPECT_EQ(alu_max_f32(two, m3, PTX_MOD_NAN), two);
  const uint64_t XA = PTX_MOD_XORSIGN | PTX_MOD_ABS;
  EXPECT_EQ(alu_min_f32(two, m3, XA), 0xc0000000u);  // min(|2|,|-3|) = 2, sign 0^1 -> -2
  EXPECT_EQ(alu_max_f32(two, m3, XA), 0xc0400000u);  // 3 with sign -> -3
  EXPECT_EQ(alu_max_f32(m3, m3, XA), 0x40400000u);   // signs cancel
  EXPECT_EQ(alu_max_f32(m3, two, PTX_MOD_ABS), 0x40400000u);
  EXPECT_EQ(alu_min_f32(qnan, m3, XA), 0xc0400000u);  // NaN ignored, sign of the NaN still xored
  EXPECT_EQ(alu_min_f32(qnan, m3, XA | PTX_MOD_NAN), ALU_F32_NAN);  // NaN result: no xorsign
}

TEST(AluFloat, AbsNegCopysignAreSignBitOperations) {
  EXPECT_EQ(alu_abs_f32(0xbf800000u, 0), 0x3f800000u);
  EXPECT_EQ(alu_abs_f32(0xffc00001u, 0), 0x7fc00001u);  // NaN payload kept
  EXPECT_EQ(alu_neg_f32(0u, 0), 0x80000000u);
  EXPECT_EQ(alu_neg_f32(0x00000003u, PTX_MOD_FTZ), 0x80000000u);
  EXPECT_EQ(alu_abs_f32(0x80000003u, PTX_MOD_FTZ), 0u);
  EXPECT_EQ(alu_neg_f32(0x00000003u, 0), 0x80000003u);
  EXPECT_EQ(alu_abs_f64(0x8000000000000001ull), 1ull);
  EXPECT_EQ(alu_neg_f64(0x3ff0000000000000ull), 0xbff0000000000000ull);
  // copysign d, a, b: sign of a, magnitude of b
  EXPECT_EQ(alu_copysign_f32(0x80000000u, 0x40000000u), 0xc0000000u);
  EXPECT_EQ(alu_copysign_f32(0x3f800000u, 0xc0000000u), 0x40000000u);
  EXPECT_EQ(alu_copysign_f64(0x8000000000000000ull, 0x7ff8000000000000ull), 0xfff8000000000000ull);
}

TEST(AluFloat, TestpClassifiesEveryKind) {
  struct { uint32_t v; bool fin, inf, num, nan, norm, sub; } t32[] = {
      {0u, true, false, true, false, false, false},
      {0x80000000u, true, false, true, false, false, false},
      {1u, true, false, true, false, false, true},
      {0x807fffffu, true, false, true, false, false, true},
      {0x00800000u, true, false, true, false, true, false},
      {0xff7fffffu, true, false, true, false, true, false},
      {0x7f800000u, false, true, true, false, false, false},
      {0xff800000u, false, true, true, false, false, false},
      {0x7fc00000u, false, false, false, true, false, false},
      {0xff800001u, false, false, false, true, false, false},
  };
  for (auto &t : t32) {
    EXPECT_EQ(alu_testp_f32(t.v, PTX_TESTP_FINITE), t.fin) << std::hex << t.v;
    EXPECT_EQ(alu_testp_f32(t.v, PTX_TESTP_INFINITE), t.inf) << std::hex << t.v;
    EXPECT_EQ(alu_testp_f32(t.v, PTX_TESTP_NUMBER), t.num) << std::hex << t.v;
    EXPECT_EQ(alu_testp_f32(t.v, PTX_TESTP_NOTANUMBER), t.nan) << std::hex << t.v;
    EXPECT_EQ(alu_testp_f32(t.v, PTX_TESTP_NORMAL), t.norm) << std::hex << t.v;
    EXPECT_EQ(alu_testp_f32(t.v, PTX_TESTP_SUBNORMAL), t.sub) << std::hex << t.v;
  }
  EXPECT_TRUE(alu_testp_f64(1ull, PTX_TESTP_SUBNORMAL));
  EXPECT_TRUE(alu_testp_f64(0x0010000000000000ull, PTX_TESTP_NORMAL));
  EXPECT_TRUE(alu_testp_f64(0xfff0000000000000ull, PTX_TESTP_INFINITE));
  EXPECT_TRUE(alu_testp_f64(0x7ff0000000000001ull, PTX_TESTP_NOTANUMBER));
  EXPECT_FALSE(alu_testp_f64(0x8000000000000000ull, PTX_TESTP_NORMAL));
  EXPECT_FALSE(alu_testp_f64(0x8000000000000000ull, PTX_TESTP_SUBNORMAL));
}

TEST(AluFloat, FloatComparisonsOrderedFalseAndUnorderedTrueOnNan) {
  const ptx_cmp all[] = {PTX_CMP_EQ,  PTX_CMP_NE,  PTX_CMP_LT,  PTX_CMP_LE,  PTX_CMP_GT,
                         PTX_CMP_GE,  PTX_CMP_EQU, PTX_CMP_NEU, PTX_CMP_LTU, PTX_CMP_LEU,
                         PTX_CMP_GTU, PTX_CMP_GEU, PTX_CMP_NUM, PTX_CMP_NAN};
  // independent truth: the relation of two doubles, written per comparison name
  auto truth = [](ptx_cmp c, double x, double y) {
    bool u = std::isnan(x) || std::isnan(y);
    switch (c) {
      case PTX_CMP_EQ: return !u && x == y;
      case PTX_CMP_NE: return !u && x != y;
      case PTX_CMP_LT: return !u && x < y;
      case PTX_CMP_LE: return !u && x <= y;
      case PTX_CMP_GT: return !u && x > y;
      case PTX_CMP_GE: return !u && x >= y;
      case PTX_CMP_EQU: return u || x == y;
      case PTX_CMP_NEU: return u || x != y;
      case PTX_CMP_LTU: return u || x < y;
      case PTX_CMP_LEU: return u || x <= y;
      case PTX_CMP_GTU: return u || x > y;
      case PTX_CMP_GEU: return u || x >= y;
      case PTX_CMP_NUM: return !u;
      default: return u;
    }
  };
  std::vector<uint64_t> sp = ref::specials(ref::F32);
  for (uint64_t a : sp)
    for (uint64_t b : sp)
      for (ptx_cmp c : all) {
        double x = alu_f32((uint32_t)a), y = alu_f32((uint32_t)b);
        EXPECT_EQ(alu_cmp_f32((uint32_t)a, (uint32_t)b, c, 0), truth(c, x, y))
            << c << std::hex << " " << a << " " << b;
        EXPECT_EQ(alu_cmp(a, b, PTX_TYPE_F32, c, 0), truth(c, x, y));
        uint64_t A = alu_cvt_f64_f32((uint32_t)a, 0), B = alu_cvt_f64_f32((uint32_t)b, 0);
        EXPECT_EQ(alu_cmp_f64(A, B, c), truth(c, x, y));
      }
  // -0 == +0; .ftz makes subnormals equal to zero
  EXPECT_TRUE(alu_cmp_f32(0x80000000u, 0u, PTX_CMP_EQ, 0));
  EXPECT_FALSE(alu_cmp_f32(1u, 0u, PTX_CMP_EQ, 0));
  EXPECT_TRUE(alu_cmp_f32(1u, 0u, PTX_CMP_EQ, PTX_MOD_FTZ));
  EXPECT_TRUE(alu_cmp_f16(0x0001u, 0x8000u, PTX_CMP_EQ, PTX_MOD_FTZ));
  EXPECT_TRUE(alu_cmp_f16(0x3c00u, 0x4000u, PTX_CMP_LT, 0));
  EXPECT_TRUE(alu_cmp_f16(0x7e00u, 0x4000u, PTX_CMP_NAN, 0));
  EXPECT_TRUE(alu_cmp_bf16(0x3f80u, 0xbf80u, PTX_CMP_GT));
}

TEST(AluFloat, IntegerComparisonsSignedAndUnsignedLoLsHiHs) {
  const uint32_t m1 = 0xffffffffu;  // -1 signed, max unsigned
  EXPECT_TRUE(alu_cmp_s32(m1, 1, PTX_CMP_LT));
  EXPECT_FALSE(alu_cmp_u32(m1, 1, PTX_CMP_LT));
  EXPECT_FALSE(alu_cmp_s32(m1, 1, PTX_CMP_LO));  // lo is unsigned whatever the type
  EXPECT_TRUE(alu_cmp_s32(m1, 1, PTX_CMP_HI));
  EXPECT_TRUE(alu_cmp_u32(5, 5, PTX_CMP_LS));
  EXPECT_TRUE(alu_cmp_u32(5, 5, PTX_CMP_HS));
  EXPECT_FALSE(alu_cmp_u32(5, 5, PTX_CMP_HI));
  EXPECT_TRUE(alu_cmp_s64(0x8000000000000000ull, 0, PTX_CMP_LT));
  EXPECT_TRUE(alu_cmp_u64(0x8000000000000000ull, 0, PTX_CMP_GT));
  EXPECT_TRUE(alu_cmp_s64(7, 7, PTX_CMP_GE));
  EXPECT_TRUE(alu_cmp(0xff, 0x01, PTX_TYPE_S8, PTX_CMP_LT, 0));    // -1 < 1
  EXPECT_TRUE(alu_cmp(0xff, 0x01, PTX_TYPE_U8, PTX_CMP_GT, 0));
  EXPECT_TRUE(alu_cmp(0x1ffff, 0xffff, PTX_TYPE_S16, PTX_CMP_EQ, 0));  // upper bits ignored
  EXPECT_TRUE(alu_cmp(0x8000, 0x7fff, PTX_TYPE_B16, PTX_CMP_GT, 0));
  // exhaustive-ish cross check against wide arithmetic
  ref::Gen g(5);
  for (int i = 0; i < 20000; i++) {
    uint32_t a = g.u32(), b = (i & 1) ? a + (g.u32() % 3) - 1 : g.u32();
    int32_t sa = (int32_t)a, sb = (int32_t)b;
    EXPECT_EQ(alu_cmp_s32(a, b, PTX_CMP_LE), sa <= sb);
    EXPECT_EQ(alu_cmp_s32(a, b, PTX_CMP_GT), sa > sb);
    EXPECT_EQ(alu_cmp_u32(a, b, PTX_CMP_GE), a >= b);
    EXPECT_EQ(alu_cmp_s32(a, b, PTX_CMP_LS), a <= b);
    EXPECT_EQ(alu_cmp_s32(a, b, PTX_CMP_NE), a != b);
  }
}

TEST(AluFloat, SetValueAndSlctSelection) {
  EXPECT_EQ(alu_set_value(true, PTX_TYPE_U32), 0xffffffffu);
  EXPECT_EQ(alu_set_value(false, PTX_TYPE_S32), 0u);
  EXPECT_EQ(alu_set_value(true, PTX_TYPE_F32), 0x3f800000u);
  EXPECT_TRUE(alu_slct_pick_a_s32(0));
  EXPECT_FALSE(alu_slct_pick_a_s32(0x80000000u));
  EXPECT_TRUE(alu_slct_pick_a_f32(0x80000000u, 0));  // -0 >= 0
  EXPECT_FALSE(alu_slct_pick_a_f32(0x7fc00000u, 0)); // NaN selects b
  EXPECT_FALSE(alu_slct_pick_a_f32(0xbf800000u, 0));
  EXPECT_TRUE(alu_slct_pick_a_f32(0x80000001u, PTX_MOD_FTZ));  // flushed to -0
  EXPECT_TRUE(alu_slct_pick_a_f32(0x7f800000u, 0));
}

TEST(AluFloat, F32FmaIsSinglyRoundedEvenWhereDoubleRoundingWouldFail) {
  // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 is exactly an f32 midpoint; adding ±2^-60 decides the
  // rounding, but a sum rounded to double first would lose it and tie to even.
  const uint32_t a = 0x3f800800u, up = 0x21800000u /*2^-60*/, down = 0xa1800000u;
  EXPECT_EQ(alu_fma_f32(a, a, up, 0), 0x3f801001u);
  EXPECT_EQ(alu_fma_f32(a, a, down, 0), 0x3f801000u);
  EXPECT_EQ(alu_fma_f32(a, a, 0u, 0), 0x3f801000u);  // the tie itself: to even
  EXPECT_EQ(alu_fma_f32_rnd(a, a, up, PTX_RND_RZ, 0), 0x3f801000u);
  EXPECT_EQ(alu_fma_f32_rnd(a, a, down, PTX_RND_RP, 0), 0x3f801001u);
  // subnormal results go through the exact path too
  EXPECT_EQ(alu_fma_f32(0x00800000u, 0x3f000000u, 0x00000001u, 0), 0x00400001u);
  EXPECT_EQ(alu_fma_f32(0x00800001u, 0x3f000000u, 0u, 0), 0x00400000u);  // tie to even
}

TEST(AluFloat, F32FmaLaneArrayMatchesExactReference) {
  // alu_fma_f32_n dispatches to the host's FMA unit when it has one; both paths must agree with
  // the reference, .ftz and .sat included.
  ref::Gen g(808);
  constexpr unsigned n = 32;
  for (uint64_t mods : {(uint64_t)0, (uint64_t)PTX_MOD_FTZ, (uint64_t)PTX_MOD_SAT}) {
    for (int it = 0; it < 2000; it++) {
      uint32_t a[n], b[n], c[n], d[n];
      for (unsigned i = 0; i < n; i++) {
        a[i] = (uint32_t)g.bits(ref::F32);
        b[i] = (uint32_t)g.bits(ref::F32);
        c[i] = (uint32_t)((i & 1) ? g.near(ref::F32, a[i] ^ b[i]) : g.bits(ref::F32));
      }
      alu_fma_f32_n(d, a, b, c, n, PTX_RND_RN, mods);
      for (unsigned i = 0; i < n; i++) {
        Result want = expect(ref::F32, FMA, a[i], b[i], c[i], PTX_RND_RN, mods, ALU_F32_NAN);
        ASSERT_EQ(d[i], want.bits) << std::hex << a[i] << " " << b[i] << " " << c[i];
      }
    }
  }
}
