// f16 / f16x2 / bf16 / bf16x2 arithmetic (PTX ISA 9.7.4): every operation, every rounding, .ftz,
// .sat, .relu against alu_ref's exact arithmetic; packed forms element by element.
#include <gtest/gtest.h>

#include <array>

#include "alu.h"
#include "alu_ref.h"
#include "alu_test_util.h"

using namespace aluref;

namespace {

uint16_t h_call(bool f16, Op op, uint16_t a, uint16_t b, uint16_t c, ptx_rounding r, uint64_t m) {
  switch (op) {
    case ADD: return f16 ? alu_add_f16(a, b, r, m) : alu_add_bf16(a, b, r, m);
    case SUB: return f16 ? alu_sub_f16(a, b, r, m) : alu_sub_bf16(a, b, r, m);
    case MUL: return f16 ? alu_mul_f16(a, b, r, m) : alu_mul_bf16(a, b, r, m);
    default: return f16 ? alu_fma_f16(a, b, c, r, m) : alu_fma_bf16(a, b, c, r, m);
  }
}

void check_format(bool f16, uint64_t seed) {
  const ref::Fmt &fmt = f16 ? ref::F16 : ref::BF16;
  std::vector<uint64_t> mod_sets = {0, PTX_MOD_RELU};
  if (f16) {
    mod_sets.push_back(PTX_MOD_FTZ);
    mod_sets.push_back(PTX_MOD_SAT);
    mod_sets.push_back(PTX_MOD_FTZ | PTX_MOD_SAT);
  }
  std::vector<uint64_t> sp = ref::specials(fmt);
  ref::Gen g(seed);
  std::vector<std::array<uint64_t, 3>> in;
  for (uint64_t a : sp)
    for (uint64_t b : sp) in.push_back({a, b, sp[(a * 7 + b) % sp.size()]});
  for (int i = 0; i < 30000; i++) {
    uint64_t a = g.bits(fmt), b = (i & 1) ? g.near(fmt, a) : g.bits(fmt);
    uint64_t c = (i & 2) ? g.near(fmt, a ^ b) : g.bits(fmt);
    in.push_back({a, b, c});
  }
  for (Op op : {ADD, SUB, MUL, FMA})
    for (ptx_rounding r : kModes)
      for (uint64_t m : mod_sets) {
        int fails = 0;
        for (auto &v : in) {
          Result want = expect(fmt, op, v[0], v[1], v[2], r, m, 0x7fff);
          uint16_t got = h_call(f16, op, (uint16_t)v[0], (uint16_t)v[1], (uint16_t)v[2], r, m);
          if (got != want.bits && fails++ < 5)
            ADD_FAILURE() << (f16 ? "f16 " : "bf16 ") << op << " mode " << r << " mods " << m
                          << std::hex << " a=" << v[0] << " b=" << v[1] << " c=" << v[2]
                          << " got=" << got << " want=" << want.bits;
        }
        EXPECT_EQ(fails, 0) << (f16 ? "f16 " : "bf16 ") << op << " mode " << r << " mods " << m;
      }
}

}  // namespace

TEST(AluHalf, F16AddSubMulFmaMatchExactReferenceInEveryModeWithFtzSatRelu) { check_format(true, 101); }

TEST(AluHalf, Bf16AddSubMulFmaMatchExactReferenceInEveryMode) { check_format(false, 202); }

TEST(AluHalf, KnownValues) {
  EXPECT_EQ(alu_add_f16(0x3c00u, 0x3c00u, PTX_RND_RN, 0), 0x4000u);  // 1 + 1
  EXPECT_EQ(alu_add_f16(0x7bffu, 0x7bffu, PTX_RND_RN, 0), 0x7c00u);  // overflow -> Inf
  EXPECT_EQ(alu_add_f16(0x7bffu, 0x7bffu, PTX_RND_RZ, 0), 0x7bffu);
  EXPECT_EQ(alu_mul_f16(0x0001u, 0x3c00u, PTX_RND_RN, PTX_MOD_FTZ), 0u);
  EXPECT_EQ(alu_mul_f16(0x0001u, 0x3c00u, PTX_RND_RN, 0), 1u);
  EXPECT_EQ(alu_sub_f16(0x3c00u, 0x3c00u, PTX_RND_RM, 0), 0x8000u);  // x - x = -0 under .rm
  EXPECT_EQ(alu_sub_f16(0x3c00u, 0x3c00u, PTX_RND_RN, 0), 0u);
  EXPECT_EQ(alu_add_f16(0x7c00u, 0xfc00u, PTX_RND_RN, 0), 0x7fffu);  // canonical NaN
  EXPECT_EQ(alu_add_f16(0x7c00u, 0xfc00u, PTX_RND_RN, PTX_MOD_SAT), 0u);
  EXPECT_EQ(alu_fma_f16(0xbc00u, 0x3c00u, 0u, PTX_RND_RN, PTX_MOD_RELU), 0u);
  EXPECT_EQ(alu_fma_f16(0x7e00u, 0x3c00u, 0u, PTX_RND_RN, PTX_MOD_RELU), 0x7fffu);
  EXPECT_EQ(alu_add_bf16(0x3f80u, 0x3f80u, PTX_RND_RN, 0), 0x4000u);
  EXPECT_EQ(alu_mul_bf16(0x7f80u, 0u, PTX_RND_RN, 0), 0x7fffu);
  // a bf16 fma whose exact result needs far more than 53 bits
  EXPECT_EQ(alu_fma_bf16(0x7f00u, 0x7f00u, 0x0001u, PTX_RND_RN, 0), 0x7f80u);
  EXPECT_EQ(alu_fma_bf16(0x3f80u, 0x3f80u, 0x0001u, PTX_RND_RP, 0), 0x3f81u);  // 1 + tiny, up
  EXPECT_EQ(alu_fma_bf16(0x3f80u, 0x3f80u, 0x8001u, PTX_RND_RZ, 0), 0x3f7fu);  // 1 - tiny, down
}

TEST(AluHalf, PackedFormsWorkElementWise) {
  ref::Gen g(303);
  for (int i = 0; i < 20000; i++) {
    uint32_t a = g.u32(), b = g.u32(), c = g.u32();
    uint64_t m = (i & 1) ? PTX_MOD_FTZ : 0;
    auto lo = [](uint32_t x) { return (uint16_t)x; };
    auto hi = [](uint32_t x) { return (uint16_t)(x >> 16); };
    auto pk = [](uint16_t h, uint16_t l) { return ((uint32_t)h << 16) | l; };
    ASSERT_EQ(alu_add_f16x2(a, b, PTX_RND_RN, m),
              pk(alu_add_f16(hi(a), hi(b), PTX_RND_RN, m), alu_add_f16(lo(a), lo(b), PTX_RND_RN, m)));
    ASSERT_EQ(alu_sub_f16x2(a, b, PTX_RND_RN, m),
              pk(alu_sub_f16(hi(a), hi(b), PTX_RND_RN, m), alu_sub_f16(lo(a), lo(b), PTX_RND_RN, m)));
    ASSERT_EQ(alu_mul_f16x2(a, b, PTX_RND_RN, m),
              pk(alu_mul_f16(hi(a), hi(b), PTX_RND_RN, m), alu_mul_f16(lo(a), lo(b), PTX_RND_RN, m)));
    ASSERT_EQ(alu_fma_f16x2(a, b, c, PTX_RND_RN, m),
              pk(alu_fma_f16(hi(a), hi(b), hi(c), PTX_RND_RN, m),
                 alu_fma_f16(lo(a), lo(b), lo(c), PTX_RND_RN, m)));
    ASSERT_EQ(alu_min_f16x2(a, b, m), pk(alu_min_f16(hi(a), hi(b), m), alu_min_f16(lo(a), lo(b), m)));
    ASSERT_EQ(alu_max_f16x2(a, b, m), pk(alu_max_f16(hi(a), hi(b), m), alu_max_f16(lo(a), lo(b), m)));
    ASSERT_EQ(alu_neg_f16x2(a, m), pk(alu_neg_f16(hi(a), m), alu_neg_f16(lo(a), m)));
    ASSERT_EQ(alu_abs_f16x2(a, m), pk(alu_abs_f16(hi(a), m), alu_abs_f16(lo(a), m)));
    ASSERT_EQ(alu_add_bf16x2(a, b, PTX_RND_RN, 0),
              pk(alu_add_bf16(hi(a), hi(b), PTX_RND_RN, 0), alu_add_bf16(lo(a), lo(b), PTX_RND_RN, 0)));
    ASSERT_EQ(alu_fma_bf16x2(a, b, c, PTX_RND_RN, 0),
              pk(alu_fma_bf16(hi(a), hi(b), hi(c), PTX_RND_RN, 0),
                 alu_fma_bf16(lo(a), lo(b), lo(c), PTX_RND_RN, 0)));
    ASSERT_EQ(alu_max_bf16x2(a, b, 0), pk(alu_max_bf16(hi(a), hi(b), 0), alu_max_bf16(lo(a), lo(b), 0)));
  }
}

TEST(AluHalf, MinMaxFollowTheF32Rules) {
  // compare against the f32 functions on exactly converted values
  ref::Gen g(404);
  const uint64_t mod_sets[] = {0, PTX_MOD_NAN, PTX_MOD_XORSIGN | PTX_MOD_ABS, PTX_MOD_FTZ};
  for (int i = 0; i < 100000; i++) {
    uint16_t a = (uint16_t)g.bits(ref::F16), b = (uint16_t)((i & 1) ? g.near(ref::F16, a) : g.bits(ref::F16));
    for (uint64_t m : mod_sets) {
      uint64_t m32 = m & ~(uint64_t)PTX_MOD_FTZ;
      uint16_t fa = (m & PTX_MOD_FTZ) ? alu_ftz_f16(a) : a, fb = (m & PTX_MOD_FTZ) ? alu_ftz_f16(b) : b;
      // widen keeping a NaN's sign (xorsign reads it)
      auto wide = [](uint16_t h) {
        return alu_isnan_f16(h) ? ((uint32_t)(h & 0x8000u) << 16) | 0x7fc00000u : alu_cvt_f32_f16(h);
      };
      uint32_t w = alu_min_f32(wide(fa), wide(fb), m32);
      uint16_t want = alu_isnan_f32(w) ? 0x7fffu : (uint16_t)alu_cvt(w, PTX_TYPE_F16, PTX_TYPE_F32, PTX_RND_RN, 0);
      ASSERT_EQ(alu_min_f16(a, b, m), want) << std::hex << a << " " << b << " mods " << m;
      w = alu_max_f32(wide(fa), wide(fb), m32);
      want = alu_isnan_f32(w) ? 0x7fffu : (uint16_t)alu_cvt(w, PTX_TYPE_F16, PTX_TYPE_F32, PTX_RND_RN, 0);
      ASSERT_EQ(alu_max_f16(a, b, m), want) << std::hex << a << " " << b << " mods " << m;
    }
  }
  EXPECT_EQ(alu_max_f16(0x8000u, 0u, 0), 0u);
  EXPECT_EQ(alu_min_f16(0x7e00u, 0x3c00u, 0), 0x3c00u);
  EXPECT_EQ(alu_min_f16(0x7e00u, 0x3c00u, PTX_MOD_NAN), 0x7fffu);
  EXPECT_EQ(alu_max_bf16(0xbf80u, 0x3f80u, PTX_MOD_RELU), 0x3f80u);
  EXPECT_EQ(alu_min_bf16(0xbf80u, 0x3f80u, PTX_MOD_RELU), 0u);
}
