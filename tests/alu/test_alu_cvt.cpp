// cvt between every pair of types (PTX ISA 9.7.9.21): exhaustive over all 65536 f16 values for
// f16 <-> f32, every f16 rounding boundary in every mode, seeded random sweeps for the other pairs,
// each against alu_ref's exact rounding or exact integer arithmetic.
#include <gtest/gtest.h>

#include <cmath>

#include "alu.h"
#include "alu_ref.h"
#include "alu_test_util.h"

using namespace aluref;
using ref::u128;

namespace {

constexpr ptx_rounding kFloatModes[] = {PTX_RND_RN, PTX_RND_RZ, PTX_RND_RM, PTX_RND_RP, PTX_RND_RNA};
constexpr ptx_rounding kIntModes[] = {PTX_RND_RNI, PTX_RND_RZI, PTX_RND_RMI, PTX_RND_RPI};

struct TypeInfo {
  ptx_type t;
  const ref::Fmt *fmt;  // float formats
  unsigned bits;        // integers
  bool is_signed;
  uint64_t nan;         // canonical NaN of results
};
const TypeInfo kF16 = {PTX_TYPE_F16, &ref::F16, 0, false, 0x7fff};
const TypeInfo kBF16 = {PTX_TYPE_BF16, &ref::BF16, 0, false, 0x7fff};
const TypeInfo kF32 = {PTX_TYPE_F32, &ref::F32, 0, false, 0x7fffffff};
const TypeInfo kF64 = {PTX_TYPE_F64, &ref::F64, 0, false, 0};  // 0: IEEE propagation
const TypeInfo kE4M3 = {PTX_TYPE_E4M3, &ref::E4M3, 0, false, 0x7f};
const TypeInfo kE5M2 = {PTX_TYPE_E5M2, &ref::E5M2, 0, false, 0x7f};
const TypeInfo kTF32 = {PTX_TYPE_TF32, &ref::TF32, 0, false, 0x3ffff};
const TypeInfo kFloats[] = {kF16, kBF16, kF32, kF64};
const TypeInfo kInts[] = {
    {PTX_TYPE_U8, nullptr, 8, false, 0},   {PTX_TYPE_S8, nullptr, 8, true, 0},
    {PTX_TYPE_U16, nullptr, 16, false, 0}, {PTX_TYPE_S16, nullptr, 16, true, 0},
    {PTX_TYPE_U32, nullptr, 32, false, 0}, {PTX_TYPE_S32, nullptr, 32, true, 0},
    {PTX_TYPE_U64, nullptr, 64, false, 0}, {PTX_TYPE_S64, nullptr, 64, true, 0}};

// Type names for messages (the test does not link the PTX front end).
const char *tname(ptx_type t) {
  switch (t) {
    case PTX_TYPE_U8: return "u8"; case PTX_TYPE_S8: return "s8";
    case PTX_TYPE_U16: return "u16"; case PTX_TYPE_S16: return "s16";
    case PTX_TYPE_U32: return "u32"; case PTX_TYPE_S32: return "s32";
    case PTX_TYPE_U64: return "u64"; case PTX_TYPE_S64: return "s64";
    case PTX_TYPE_F16: return "f16"; case PTX_TYPE_BF16: return "bf16";
    case PTX_TYPE_F32: return "f32"; case PTX_TYPE_F64: return "f64";
    case PTX_TYPE_TF32: return "tf32"; case PTX_TYPE_E4M3: return "e4m3";
    case PTX_TYPE_E5M2: return "e5m2";
    default: return "?";
  }
}

uint64_t mask_of(unsigned bits) { return bits == 64 ? ~0ull : (1ull << bits) - 1; }

// Reference float -> float conversion (register image; tf32 lives in bits 31..13).
struct Want {
  uint64_t bits;
  bool any_nan;
};
Want ref_ff(const TypeInfo &s, uint64_t a, const TypeInfo &d, ptx_rounding rnd, uint64_t mods) {
  const ref::Fmt &sf = *s.fmt, &df = *d.fmt;
  if ((mods & PTX_MOD_FTZ) && s.t == PTX_TYPE_F32) a = flush(sf, a);
  ref::Decoded v = ref::decode(sf, a);
  bool satfinite = (mods & PTX_MOD_SATFINITE) != 0;
  uint64_t r;
  if (v.cls == ref::NAN_) {
    if (mods & PTX_MOD_SAT) return {0, false};
    if (d.nan == 0) return {0, true};
    return {d.t == PTX_TYPE_TF32 ? d.nan << 13 : d.nan, false};
  } else if (v.cls == ref::INF) {
    r = (satfinite || !df.has_inf) ? ref::max_finite(df, v.x.neg) : ref::inf(df, v.x.neg);
  } else if (v.cls == ref::ZERO) {
    r = v.x.neg ? sign_bit(df) : 0;
  } else {
    r = ref::round(df, v.x, mode_of(rnd), satfinite);
  }
  if ((mods & PTX_MOD_FTZ) && d.t == PTX_TYPE_F32) r = flush(df, r);
  if ((mods & PTX_MOD_RELU) && (r & sign_bit(df))) r = 0;
  if (mods & PTX_MOD_SAT) {
    uint64_t one = (uint64_t)df.bias << (df.p - 1);
    if (r & sign_bit(df)) r = 0;
    else if (r > one) r = one;
  }
  return {d.t == PTX_TYPE_TF32 ? r << 13 : r, false};
}

// Reference float -> integer: round with the integer mode, saturate, NaN rule of the ISA.
uint64_t ref_fi(const TypeInfo &s, uint64_t a, const TypeInfo &d, ptx_rounding rnd, uint64_t mods) {
  if ((mods & PTX_MOD_FTZ) && s.t == PTX_TYPE_F32) a = flush(*s.fmt, a);
  ref::Decoded v = ref::decode(*s.fmt, a);
  __int128 lo = d.is_signed ? -((__int128)1 << (d.bits - 1)) : 0;
  __int128 hi = d.is_signed ? ((__int128)1 << (d.bits - 1)) - 1 : ((__int128)1 << d.bits) - 1;
  __int128 val;
  if (v.cls == ref::NAN_) {
    if (s.t == PTX_TYPE_F64 || d.bits == 64) val = d.is_signed ? lo : ((__int128)1 << (d.bits - 1));
    else val = 0;
  } else if (v.cls == ref::INF) {
    val = v.x.neg ? lo : hi;
  } else if (v.cls == ref::ZERO) {
    val = 0;
  } else {
    bool ovf;
    u128 m = ref::to_integer(v.x, mode_of(rnd), &ovf);
    if (ovf) val = v.x.neg ? lo : hi;
    else {
      val = v.x.neg ? -(__int128)m : (__int128)m;
      if (val < lo) val = lo;
      if (val > hi) val = hi;
    }
  }
  return (uint64_t)(int64_t)val;  // signed: sign-extended to 64; unsigned: value < 2^64
}

uint64_t gen_int(ref::Gen &g, unsigned bits) {
  uint64_t v = g.u64();
  switch (g.u64() % 4) {
    case 0: v >>= g.u64() % 64; break;                       // small magnitudes
    case 1: v = ~(v >> (g.u64() % 64)); break;               // small negatives
    case 2: v = (1ull << (g.u64() % 64)) + (g.u64() % 5) - 2; break;  // near powers of two
    default: break;
  }
  return v & mask_of(bits);
}

}  // namespace

TEST(AluCvt, F16ToF32IsExactForAll65536Values) {
  for (uint32_t h = 0; h < 65536; h++) {
    ref::Decoded v = ref::decode(ref::F16, h);
    uint32_t want;
    if (v.cls == ref::NAN_) want = ALU_F32_NAN;
    else want = alu_f32_bits((float)to_double(ref::F16, h));  // exact: f16 is a subset of f32
    ASSERT_EQ(alu_cvt_f32_f16((uint16_t)h), want) << std::hex << h;
    ASSERT_EQ(alu_cvt(h, PTX_TYPE_F32, PTX_TYPE_F16, PTX_RND_NONE, 0), want) << std::hex << h;
    // and back: every f16 value survives the round trip in every mode
    if (v.cls != ref::NAN_) {
      for (ptx_rounding r : kFloatModes) {
        ASSERT_EQ(alu_cvt(want, PTX_TYPE_F16, PTX_TYPE_F32, r, 0), h) << std::hex << h;
      }
    } else {
      ASSERT_EQ(alu_cvt(want, PTX_TYPE_F16, PTX_TYPE_F32, PTX_RND_RN, 0), 0x7fffu);
    }
    // f16 -> f64 is exact too
    if (v.cls != ref::NAN_) {
      ASSERT_EQ(alu_cvt(h, PTX_TYPE_F64, PTX_TYPE_F16, PTX_RND_NONE, 0),
                alu_f64_bits(to_double(ref::F16, h)));
    }
  }
}

TEST(AluCvt, F32ToF16RoundsEveryBoundaryInEveryMode) {
  // For every pair of neighbouring f16 magnitudes, the f32 values at 1/4, 1/2 and 3/4 of the gap
  // (all exactly representable in f32), both signs, every mode, with and without .satfinite/.relu.
  int checked = 0;
  for (uint32_t h = 0; h < 0x7c00u; h++) {
    double lo = to_double(ref::F16, h), hi = h + 1 < 0x7c00u ? to_double(ref::F16, h + 1) : 65536.0;
    for (int q = 1; q <= 3; q++) {
      double x = lo + (hi - lo) * q / 4;
      for (int sgn = 0; sgn < 2; sgn++) {
        uint32_t f = alu_f32_bits((float)(sgn ? -x : x));
        ASSERT_EQ((double)alu_f32(f), sgn ? -x : x);
        for (ptx_rounding r : kFloatModes)
          for (uint64_t mods : {(uint64_t)0, (uint64_t)PTX_MOD_SATFINITE, (uint64_t)PTX_MOD_RELU}) {
            Want w = ref_ff(kF32, f, kF16, r, mods);
            ASSERT_EQ(alu_cvt(f, PTX_TYPE_F16, PTX_TYPE_F32, r, mods), w.bits)
                << std::hex << f << " mode " << r << " mods " << mods;
            if (r == PTX_RND_RN) {  // the inline fast form
              ASSERT_EQ(alu_cvt_rn_f16_f32(f, mods), w.bits) << std::hex << f << " mods " << mods;
            }
            checked++;
          }
      }
    }
  }
  EXPECT_GT(checked, 1000000);
}

TEST(AluCvt, FloatToFloatAllPairsAllModesMatchReference) {
  ref::Gen g(11);
  const TypeInfo srcs[] = {kF16, kBF16, kF32, kF64};
  const TypeInfo dsts[] = {kF16, kBF16, kF32, kF64, kTF32, kE4M3, kE5M2};
  const uint64_t mod_sets[] = {0, PTX_MOD_FTZ, PTX_MOD_SAT, PTX_MOD_RELU, PTX_MOD_SATFINITE,
                               PTX_MOD_RELU | PTX_MOD_SATFINITE};
  for (const TypeInfo &s : srcs)
    for (const TypeInfo &d : dsts) {
      int fails = 0;
      std::vector<uint64_t> in = ref::specials(*s.fmt);
      for (int i = 0; i < 4000; i++) in.push_back(g.bits(*s.fmt));
      for (uint64_t a : in)
        for (ptx_rounding r : kFloatModes)
          for (uint64_t mods : mod_sets) {
            uint64_t m = mods;
            if (d.t == PTX_TYPE_E4M3 || d.t == PTX_TYPE_E5M2) m |= PTX_MOD_SATFINITE;  // mandatory
            Want w = ref_ff(s, a, d, r, m);
            uint64_t got = alu_cvt(a, d.t, s.t, r, m);
            bool ok = w.any_nan ? alu_isnan_f64(got) : got == w.bits;
            if (!ok && fails++ < 5)
              ADD_FAILURE() << tname(s.t) << "->" << tname(d.t) << std::hex
                            << " a=" << a << " mode=" << r << " mods=" << m << " got=" << got
                            << " want=" << w.bits;
          }
      EXPECT_EQ(fails, 0) << tname(s.t) << "->" << tname(d.t);
    }
}

TEST(AluCvt, Fp8AndTf32KnownValues) {
  // e4m3: max finite 448 (0x7e), no Inf; e5m2: max finite 57344 (0x7b)
  EXPECT_EQ(alu_cvt(alu_f32_bits(448.0f), PTX_TYPE_E4M3, PTX_TYPE_F32, PTX_RND_RN, PTX_MOD_SATFINITE), 0x7eu);
  EXPECT_EQ(alu_cvt(alu_f32_bits(1e6f), PTX_TYPE_E4M3, PTX_TYPE_F32, PTX_RND_RN, PTX_MOD_SATFINITE), 0x7eu);
  EXPECT_EQ(alu_cvt(alu_f32_bits(-INFINITY), PTX_TYPE_E4M3, PTX_TYPE_F32, PTX_RND_RN, PTX_MOD_SATFINITE), 0xfeu);
  EXPECT_EQ(alu_cvt(ALU_F32_NAN, PTX_TYPE_E4M3, PTX_TYPE_F32, PTX_RND_RN, PTX_MOD_SATFINITE), 0x7fu);
  EXPECT_EQ(alu_cvt(alu_f32_bits(1.0f), PTX_TYPE_E4M3, PTX_TYPE_F32, PTX_RND_RN, PTX_MOD_SATFINITE), 0x38u);
  EXPECT_EQ(alu_cvt(alu_f32_bits(1e6f), PTX_TYPE_E5M2, PTX_TYPE_F32, PTX_RND_RN, PTX_MOD_SATFINITE), 0x7bu);
  EXPECT_EQ(alu_cvt(alu_f32_bits(1.0f), PTX_TYPE_E5M2, PTX_TYPE_F32, PTX_RND_RN, PTX_MOD_SATFINITE), 0x3cu);
  EXPECT_EQ(alu_cvt_pack_x2(alu_f32_bits(1.0f), alu_f32_bits(-2.0f), PTX_TYPE_E4M3X2, PTX_RND_RN, 0),
            0x38c0u);
  EXPECT_EQ(alu_cvt_unpack_x2_f16x2(0x38c0u, PTX_TYPE_E4M3X2, 0), 0x3c00c000u);
  EXPECT_EQ(alu_cvt_unpack_x2_f16x2(0x38c0u, PTX_TYPE_E4M3X2, PTX_MOD_RELU), 0x3c000000u);
  EXPECT_EQ(alu_cvt_unpack_x2_f16x2(0x3cbcu, PTX_TYPE_E5M2X2, 0), 0x3c00bc00u);
  // tf32: 10 fraction bits, .rna ties away; the low 13 register bits are zero
  EXPECT_EQ(alu_cvt(0x3f801000u, PTX_TYPE_TF32, PTX_TYPE_F32, PTX_RND_RNA, 0), 0x3f802000u);
  EXPECT_EQ(alu_cvt(0x3f801000u, PTX_TYPE_TF32, PTX_TYPE_F32, PTX_RND_RN, 0), 0x3f800000u);
  EXPECT_EQ(alu_cvt(0x3f801fffu, PTX_TYPE_TF32, PTX_TYPE_F32, PTX_RND_RZ, 0), 0x3f800000u);
  // packed f16x2 / bf16x2: a in the upper half, b in the lower
  EXPECT_EQ(alu_cvt_pack_x2(alu_f32_bits(1.0f), alu_f32_bits(2.0f), PTX_TYPE_F16X2, PTX_RND_RN, 0),
            0x3c004000u);
  EXPECT_EQ(alu_cvt_pack_x2(alu_f32_bits(-1.0f), alu_f32_bits(2.0f), PTX_TYPE_BF16X2, PTX_RND_RZ,
                            PTX_MOD_RELU),
            0x00004000u);
  EXPECT_EQ(alu_cvt_pack_x2(alu_f32_bits(1e9f), 0, PTX_TYPE_F16X2, PTX_RND_RN, PTX_MOD_SATFINITE),
            0x7bff0000u);
}

TEST(AluCvt, F32ToS32SaturatesAndMapsNanToZero) {
  EXPECT_EQ(alu_cvt_rzi_s32_f32(alu_f32_bits(3e9f)), 0x7fffffffu);
  EXPECT_EQ(alu_cvt_rzi_s32_f32(alu_f32_bits(-3e9f)), 0x80000000u);
  EXPECT_EQ(alu_cvt_rzi_s32_f32(ALU_F32_NAN), 0u);
  EXPECT_EQ(alu_cvt_rzi_s32_f32(0xff800000u), 0x80000000u);
  EXPECT_EQ(alu_cvt_rzi_s32_f32(alu_f32_bits(-2.75f)), (uint32_t)-2);
  EXPECT_EQ(alu_cvt_rzi_s32_f32(alu_f32_bits(2147483520.0f)), 2147483520u);
  EXPECT_EQ(alu_cvt_rzi_u32_f32(alu_f32_bits(-1.5f)), 0u);
  EXPECT_EQ(alu_cvt_rzi_u32_f32(alu_f32_bits(5e9f)), 0xffffffffu);
  EXPECT_EQ(alu_cvt_rzi_u32_f32(ALU_F32_NAN), 0u);
  EXPECT_EQ(alu_cvt(ALU_F32_NAN, PTX_TYPE_S32, PTX_TYPE_F32, PTX_RND_RNI, 0), 0u);
  EXPECT_EQ(alu_cvt(alu_f32_bits(-0.5f), PTX_TYPE_U32, PTX_TYPE_F32, PTX_RND_RMI, 0), 0u);
  // the generic and inline paths agree everywhere
  ref::Gen g(3);
  for (int i = 0; i < 200000; i++) {
    uint32_t a = (uint32_t)g.bits(ref::F32);
    ASSERT_EQ(alu_cvt_rzi_s32_f32(a), (uint32_t)alu_cvt(a, PTX_TYPE_S32, PTX_TYPE_F32, PTX_RND_RZI, 0));
    ASSERT_EQ(alu_cvt_rzi_u32_f32(a), (uint32_t)alu_cvt(a, PTX_TYPE_U32, PTX_TYPE_F32, PTX_RND_RZI, 0));
  }
}

TEST(AluCvt, NanToIntegerGivesMinIntForF64SourcesAnd64BitDestinations) {
  const uint64_t nan64 = 0x7ff8000000000000ull;
  EXPECT_EQ(alu_cvt(nan64, PTX_TYPE_S32, PTX_TYPE_F64, PTX_RND_RZI, 0), 0xffffffff80000000ull);
  EXPECT_EQ(alu_cvt(nan64, PTX_TYPE_U32, PTX_TYPE_F64, PTX_RND_RZI, 0), 0x80000000ull);
  EXPECT_EQ(alu_cvt(nan64, PTX_TYPE_S64, PTX_TYPE_F64, PTX_RND_RNI, 0), 0x8000000000000000ull);
  EXPECT_EQ(alu_cvt(ALU_F32_NAN, PTX_TYPE_U64, PTX_TYPE_F32, PTX_RND_RZI, 0), 0x8000000000000000ull);
  EXPECT_EQ(alu_cvt(ALU_F32_NAN, PTX_TYPE_S16, PTX_TYPE_F32, PTX_RND_RZI, 0), 0u);
  EXPECT_EQ(alu_cvt(0x7e00u, PTX_TYPE_U8, PTX_TYPE_F16, PTX_RND_RZI, 0), 0u);
}

TEST(AluCvt, FloatToIntegerAllModesAllWidthsMatchReference) {
  ref::Gen g(21);
  for (const TypeInfo &s : kFloats)
    for (const TypeInfo &d : kInts) {
      int fails = 0;
      std::vector<uint64_t> in = ref::specials(*s.fmt);
      for (int i = 0; i < 3000; i++) {
        uint64_t v = g.bits(*s.fmt);
        // also values around the integer range of the destination and around halves
        if (i % 3 == 0) {
          double x = std::ldexp((double)(g.u64() % 1000) / 4.0, (int)(g.u64() % (d.bits + 2)) - 2);
          if (g.u64() & 1) x = -x;
          uint64_t b = alu_f64_bits(x);
          v = s.t == PTX_TYPE_F64 ? b : alu_cvt(b, s.t, PTX_TYPE_F64, PTX_RND_RN, 0);
        }
        in.push_back(v);
      }
      for (uint64_t a : in)
        for (ptx_rounding r : kIntModes)
          for (uint64_t mods : {(uint64_t)0, (uint64_t)PTX_MOD_FTZ}) {
            uint64_t want = ref_fi(s, a, d, r, mods);
            uint64_t got = alu_cvt(a, d.t, s.t, r, mods);
            if (got != want && fails++ < 5)
              ADD_FAILURE() << tname(s.t) << "->" << tname(d.t) << std::hex
                            << " a=" << a << " mode=" << r << " got=" << got << " want=" << want;
          }
      EXPECT_EQ(fails, 0) << tname(s.t) << "->" << tname(d.t);
    }
  // .ftz matters for integer rounding: a positive subnormal rounds up to 1 only without it
  EXPECT_EQ(alu_cvt(1u, PTX_TYPE_S32, PTX_TYPE_F32, PTX_RND_RPI, 0), 1u);
  EXPECT_EQ(alu_cvt(1u, PTX_TYPE_S32, PTX_TYPE_F32, PTX_RND_RPI, PTX_MOD_FTZ), 0u);
}

TEST(AluCvt, IntegerToFloatAllModesMatchReference) {
  ref::Gen g(31);
  const TypeInfo dsts[] = {kF16, kBF16, kF32, kF64, kTF32};
  for (const TypeInfo &s : kInts)
    for (const TypeInfo &d : dsts) {
      int fails = 0;
      for (int i = 0; i < 5000; i++) {
        uint64_t a = gen_int(g, s.bits);
        // sign-extend for the exact value
        __int128 v = s.is_signed && s.bits < 64 && ((a >> (s.bits - 1)) & 1) ? (__int128)(int64_t)(a | ~mask_of(s.bits))
                     : s.is_signed ? (__int128)(int64_t)a : (__int128)a;
        for (ptx_rounding r : kFloatModes) {
          uint64_t want;
          if (v == 0) {
            want = 0;
          } else {
            ref::Exact x;
            x.neg = v < 0;
            x.m = (u128)(v < 0 ? -v : v);
            want = ref::round(*d.fmt, x, mode_of(r));
            if (d.t == PTX_TYPE_TF32) want <<= 13;
          }
          uint64_t got = alu_cvt(a, d.t, s.t, r, 0);
          if (got != want && fails++ < 5)
            ADD_FAILURE() << tname(s.t) << "->" << tname(d.t) << std::hex
                          << " a=" << a << " mode=" << r << " got=" << got << " want=" << want;
        }
      }
      EXPECT_EQ(fails, 0) << tname(s.t) << "->" << tname(d.t);
    }
  // the inline forms are the RN conversions
  for (uint32_t a : {0u, 1u, 0x7fffffffu, 0x80000000u, 0xffffffffu, 16777217u}) {
    EXPECT_EQ(alu_cvt_rn_f32_s32(a), alu_cvt(a, PTX_TYPE_F32, PTX_TYPE_S32, PTX_RND_RN, 0));
    EXPECT_EQ(alu_cvt_rn_f32_u32(a), alu_cvt(a, PTX_TYPE_F32, PTX_TYPE_U32, PTX_RND_RN, 0));
    EXPECT_EQ(alu_cvt_rn_f64_s32(a), alu_cvt(a, PTX_TYPE_F64, PTX_TYPE_S32, PTX_RND_RN, 0));
    EXPECT_EQ(alu_cvt_rn_f64_u32(a), alu_cvt(a, PTX_TYPE_F64, PTX_TYPE_U32, PTX_RND_RN, 0));
  }
  // u64 max to f16 overflows to Inf under .rn, to max finite under .rz
  EXPECT_EQ(alu_cvt(~0ull, PTX_TYPE_F16, PTX_TYPE_U64, PTX_RND_RN, 0), 0x7c00u);
  EXPECT_EQ(alu_cvt(~0ull, PTX_TYPE_F16, PTX_TYPE_U64, PTX_RND_RZ, 0), 0x7bffu);
  EXPECT_EQ(alu_cvt(5, PTX_TYPE_F32, PTX_TYPE_S32, PTX_RND_RN, PTX_MOD_SAT), 0x3f800000u);
}

TEST(AluCvt, IntegerToIntegerTruncatesExtendsAndSaturates) {
  ref::Gen g(41);
  for (const TypeInfo &s : kInts)
    for (const TypeInfo &d : kInts)
      for (int i = 0; i < 3000; i++) {
        uint64_t a = g.u64();
        if (i % 2) a = gen_int(g, s.bits);
        uint64_t x = a & mask_of(s.bits);
        __int128 v = (s.is_signed && s.bits < 64 && ((x >> (s.bits - 1)) & 1))
                         ? (__int128)(int64_t)(x | ~mask_of(s.bits))
                         : s.is_signed ? (__int128)(int64_t)x : (__int128)x;
        __int128 lo = d.is_signed ? -((__int128)1 << (d.bits - 1)) : 0;
        __int128 hi = d.is_signed ? ((__int128)1 << (d.bits - 1)) - 1 : ((__int128)1 << d.bits) - 1;
        for (bool sat : {false, true}) {
          __int128 w = v;
          if (sat) w = w < lo ? lo : w > hi ? hi : w;
          uint64_t t = (uint64_t)w & mask_of(d.bits);
          if (d.is_signed && d.bits < 64 && ((t >> (d.bits - 1)) & 1)) t |= ~mask_of(d.bits);
          ASSERT_EQ(alu_cvt(a, d.t, s.t, PTX_RND_NONE, sat ? PTX_MOD_SAT : 0), t)
              << tname(s.t) << "->" << tname(d.t) << " sat=" << sat << std::hex
              << " a=" << a;
        }
      }
  EXPECT_EQ(alu_cvt(0x1ff, PTX_TYPE_U8, PTX_TYPE_U32, PTX_RND_NONE, 0), 0xffu);
  EXPECT_EQ(alu_cvt(0x80, PTX_TYPE_S32, PTX_TYPE_S8, PTX_RND_NONE, 0), 0xffffffffffffff80ull);
  EXPECT_EQ(alu_cvt(300, PTX_TYPE_S8, PTX_TYPE_S32, PTX_RND_NONE, PTX_MOD_SAT), 127u);
  EXPECT_EQ(alu_cvt((uint32_t)-5, PTX_TYPE_U16, PTX_TYPE_S32, PTX_RND_NONE, PTX_MOD_SAT), 0u);
  EXPECT_EQ(alu_cvt(0xffffffffu, PTX_TYPE_S32, PTX_TYPE_U32, PTX_RND_NONE, PTX_MOD_SAT), 0x7fffffffu);
}

TEST(AluCvt, RoundToIntegralStaysInTheFloatFormat) {
  struct { float in; ptx_rounding r; float out; } t[] = {
      {2.5f, PTX_RND_RNI, 2.0f},   {3.5f, PTX_RND_RNI, 4.0f},  {-0.5f, PTX_RND_RNI, -0.0f},
      {0.3f, PTX_RND_RPI, 1.0f},   {-0.3f, PTX_RND_RPI, -0.0f}, {-0.3f, PTX_RND_RMI, -1.0f},
      {-2.7f, PTX_RND_RZI, -2.0f}, {1e30f, PTX_RND_RZI, 1e30f}, {8388607.5f, PTX_RND_RNI, 8388608.0f}};
  for (auto &c : t)
    EXPECT_EQ(alu_cvt(alu_f32_bits(c.in), PTX_TYPE_F32, PTX_TYPE_F32, c.r, 0), alu_f32_bits(c.out))
        << c.in << " mode " << c.r;
  EXPECT_EQ(alu_cvt(1u, PTX_TYPE_F32, PTX_TYPE_F32, PTX_RND_RPI, 0), 0x3f800000u);
  EXPECT_EQ(alu_cvt(1u, PTX_TYPE_F32, PTX_TYPE_F32, PTX_RND_RPI, PTX_MOD_FTZ), 0u);
  EXPECT_EQ(alu_cvt(0xff800000u, PTX_TYPE_F32, PTX_TYPE_F32, PTX_RND_RNI, 0), 0xff800000u);
  EXPECT_EQ(alu_cvt(0x7f800001u, PTX_TYPE_F32, PTX_TYPE_F32, PTX_RND_RNI, 0), ALU_F32_NAN);
  // random sweep against the reference, f32 and f64, every integer mode
  ref::Gen g(51);
  for (const TypeInfo &s : {kF32, kF64, kF16, kBF16})
    for (int i = 0; i < 20000; i++) {
      uint64_t a = g.bits(*s.fmt);
      ref::Decoded v = ref::decode(*s.fmt, a);
      if (v.cls != ref::FINITE) continue;
      for (ptx_rounding r : kIntModes) {
        bool ovf;
        u128 m = ref::to_integer(v.x, mode_of(r), &ovf);
        uint64_t want;
        if (ovf || m >= ((u128)1 << 100)) {
          want = a;  // huge values are already integral
        } else if (m == 0) {
          want = v.x.neg ? sign_bit(*s.fmt) : 0;
        } else {
          ref::Exact x;
          x.neg = v.x.neg;
          x.m = m;
          want = ref::round(*s.fmt, x, ref::RN);
        }
        ASSERT_EQ(alu_cvt(a, s.t, s.t, r, 0), want) << tname(s.t) << std::hex << " " << a;
      }
    }
}

TEST(AluCvt, F64ToF32InlineFormMatchesGeneric) {
  ref::Gen g(61);
  for (int i = 0; i < 200000; i++) {
    uint64_t a = g.bits(ref::F64);
    if (i % 2) a = alu_f64_bits(std::ldexp((double)(g.u64() >> 11), (int)(g.u64() % 300) - 200 - 52));
    for (uint64_t mods : {(uint64_t)0, (uint64_t)PTX_MOD_FTZ, (uint64_t)PTX_MOD_SAT})
      ASSERT_EQ(alu_cvt_rn_f32_f64(a, mods),
                (uint32_t)alu_cvt(a, PTX_TYPE_F32, PTX_TYPE_F64, PTX_RND_RN, mods))
          << std::hex << a;
    uint32_t f = (uint32_t)g.bits(ref::F32);
    ASSERT_EQ(alu_cvt_rn_f16_f32(f, 0), (uint16_t)alu_cvt(f, PTX_TYPE_F16, PTX_TYPE_F32, PTX_RND_RN, 0));
    uint64_t w = alu_cvt_f64_f32(f, 0);
    uint64_t gw = alu_cvt(f, PTX_TYPE_F64, PTX_TYPE_F32, PTX_RND_NONE, 0);
    ASSERT_EQ(w, gw) << std::hex << f;
  }
}
