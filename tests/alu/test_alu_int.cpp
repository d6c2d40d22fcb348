// Integer, extended-precision, bit-manipulation and video instructions (PTX ISA 9.7.1, 9.7.2,
// 9.7.8.7, 9.7.18) against exact wide arithmetic and bit-by-bit transcriptions of the ISA's
// pseudocode.
#include <gtest/gtest.h>

#include <cstdlib>

#include "alu.h"
#include "alu_ref.h"

namespace {

using i128 = __int128;
using u128 = unsigned __int128;

// Operands weighted to the corners: 0, ±1, extremes, powers of two, random.
uint32_t pick32(ref::Gen &g) {
  static const uint32_t corners[] = {0u, 1u, 2u, 0x7fffffffu, 0x80000000u, 0x80000001u,
                                     0xffffffffu, 0xfffffffeu, 0x00ffffffu, 0x00800000u};
  switch (g.u32() % 4) {
    case 0: return corners[g.u32() % 10];
    case 1: return 1u << (g.u32() % 32);
    default: return g.u32();
  }
}
uint64_t pick64(ref::Gen &g) {
  static const uint64_t corners[] = {0ull, 1ull, 0x7fffffffffffffffull, 0x8000000000000000ull,
                                     ~0ull, 0xffffffffull, 0x100000000ull};
  switch (g.u32() % 4) {
    case 0: return corners[g.u32() % 7];
    case 1: return 1ull << (g.u32() % 64);
    default: return g.u64();
  }
}

}  // namespace

TEST(AluInt, AddSubSaturateS32AtTheLimits) {
  EXPECT_EQ(alu_add_sat_s32(0x7fffffffu, 1), 0x7fffffffu);
  EXPECT_EQ(alu_add_sat_s32(0x80000000u, 0xffffffffu), 0x80000000u);
  EXPECT_EQ(alu_sub_sat_s32(0x80000000u, 1), 0x80000000u);
  EXPECT_EQ(alu_sub_sat_s32(0x7fffffffu, 0xffffffffu), 0x7fffffffu);
  ref::Gen g(1);
  for (int i = 0; i < 100000; i++) {
    uint32_t a = pick32(g), b = pick32(g);
    i128 s = (i128)(int32_t)a + (int32_t)b, d = (i128)(int32_t)a - (int32_t)b;
    auto clamp = [](i128 v) { return (uint32_t)(int32_t)(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v); };
    ASSERT_EQ(alu_add_sat_s32(a, b), clamp(s));
    ASSERT_EQ(alu_sub_sat_s32(a, b), clamp(d));
  }
}

TEST(AluInt, MulHiAndWideMatchExactProducts) {
  ref::Gen g(2);
  for (int i = 0; i < 100000; i++) {
    uint32_t a = pick32(g), b = pick32(g);
    uint64_t A = pick64(g), B = pick64(g);
    i128 sp = (i128)(int64_t)A * (int64_t)B;
    u128 up = (u128)A * B;
    ASSERT_EQ(alu_mul_hi_s64(A, B), (uint64_t)((u128)sp >> 64));
    ASSERT_EQ(alu_mul_hi_u64(A, B), (uint64_t)(up >> 64));
    int64_t s32 = (int64_t)(int32_t)a * (int32_t)b;
    ASSERT_EQ(alu_mul_hi_s32(a, b), (uint32_t)((uint64_t)s32 >> 32));
    ASSERT_EQ(alu_mul_hi_u32(a, b), (uint32_t)(((uint64_t)a * b) >> 32));
    ASSERT_EQ(alu_mul_wide_s32(a, b), (uint64_t)s32);
    ASSERT_EQ(alu_mul_wide_u32(a, b), (uint64_t)a * b);
    uint16_t h = (uint16_t)a, k = (uint16_t)b;
    ASSERT_EQ(alu_mul_wide_s16(h, k), (uint32_t)((int32_t)(int16_t)h * (int16_t)k));
    ASSERT_EQ(alu_mul_wide_u16(h, k), (uint32_t)h * k);
    ASSERT_EQ(alu_mul_hi_s16(h, k), (uint16_t)((uint32_t)((int32_t)(int16_t)h * (int16_t)k) >> 16));
    ASSERT_EQ(alu_mul_hi_u16(h, k), (uint16_t)(((uint32_t)h * k) >> 16));
    i128 hs = (i128)(int32_t)alu_mul_hi_s32(a, b) + (int32_t)b;  // mad.hi.sat.s32 with c = b
    ASSERT_EQ(alu_mad_hi_sat_s32(a, b, b),
              (uint32_t)(int32_t)(hs > INT32_MAX ? INT32_MAX : hs < INT32_MIN ? INT32_MIN : hs));
  }
  EXPECT_EQ(alu_mul_hi_s32(0x80000000u, 0x80000000u), 0x40000000u);
  EXPECT_EQ(alu_mul_hi_u64(~0ull, ~0ull), 0xfffffffffffffffeull);
}

TEST(AluInt, Mul24UsesTheLow24BitsAndMad24HiIsBits47To16) {
  ref::Gen g(3);
  for (int i = 0; i < 100000; i++) {
    uint32_t a = pick32(g), b = pick32(g);
    int64_t sa = (int64_t)((int32_t)(a << 8) >> 8), sb = (int64_t)((int32_t)(b << 8) >> 8);
    uint64_t ua = a & 0xffffff, ub = b & 0xffffff;
    ASSERT_EQ(alu_mul24_lo_s32(a, b), (uint32_t)(uint64_t)(sa * sb));
    ASSERT_EQ(alu_mul24_hi_s32(a, b), (uint32_t)((uint64_t)(sa * sb) >> 16));
    ASSERT_EQ(alu_mul24_lo_u32(a, b), (uint32_t)(ua * ub));
    ASSERT_EQ(alu_mul24_hi_u32(a, b), (uint32_t)((ua * ub) >> 16));
  }
  EXPECT_EQ(alu_mul24_lo_u32(0xff000002u, 3), 6u);          // upper byte ignored
  EXPECT_EQ(alu_mul24_lo_s32(0x00ffffffu, 2), 0xfffffffeu);  // 0xffffff is -1 as s24
}

TEST(AluInt, SadAddsTheAbsoluteDifference) {
  EXPECT_EQ(alu_sad_s32(0xfffffffbu /*-5*/, 3, 100), 108u);
  EXPECT_EQ(alu_sad_u32(0xfffffffbu, 3, 100), 100u + 0xfffffff8u);
  EXPECT_EQ(alu_sad_s32(0x80000000u, 0x7fffffffu, 0), 0xffffffffu);  // |INT_MIN - INT_MAX| mod 2^32
  EXPECT_EQ(alu_sad_s64((uint64_t)-7, 2, 1), 10u);
  EXPECT_EQ(alu_sad_u64(2, 9, 1), 8u);
}

TEST(AluInt, CarryChainsBuild128BitAddSubAndMultiwordMultiply) {
  ref::Gen g(4);
  for (int i = 0; i < 50000; i++) {
    u128 x = ((u128)pick64(g) << 64) | pick64(g), y = ((u128)pick64(g) << 64) | pick64(g);
    // add.cc.u32 / addc.cc.u32 x3 / addc.u32 over four 32-bit words
    uint32_t cf = 0, d[4];
    for (int w = 0; w < 4; w++)
      d[w] = alu_addc_u32((uint32_t)(x >> (32 * w)), (uint32_t)(y >> (32 * w)), w ? cf : 0, &cf);
    u128 s = x + y, r = 0;
    for (int w = 0; w < 4; w++) r |= (u128)d[w] << (32 * w);
    ASSERT_TRUE(r == s);
    ASSERT_EQ(cf, (uint32_t)(s < x));  // carry out of the top word
    // the same with 64-bit words
    uint32_t c64 = 0;
    uint64_t lo = alu_addc_u64((uint64_t)x, (uint64_t)y, 0, &c64);
    uint64_t hi = alu_addc_u64((uint64_t)(x >> 64), (uint64_t)(y >> 64), c64, &c64);
    ASSERT_TRUE((((u128)hi << 64) | lo) == s);
    // sub.cc / subc: the flag is a borrow
    cf = 0;
    for (int w = 0; w < 4; w++)
      d[w] = alu_subc_u32((uint32_t)(x >> (32 * w)), (uint32_t)(y >> (32 * w)), w ? cf : 0, &cf);
    r = 0;
    for (int w = 0; w < 4; w++) r |= (u128)d[w] << (32 * w);
    ASSERT_TRUE(r == x - y);
    ASSERT_EQ(cf, (uint32_t)(x < y));
    c64 = 0;
    lo = alu_subc_u64((uint64_t)x, (uint64_t)y, 0, &c64);
    hi = alu_subc_u64((uint64_t)(x >> 64), (uint64_t)(y >> 64), c64, &c64);
    ASSERT_TRUE((((u128)hi << 64) | lo) == x - y);
    ASSERT_EQ(c64, (uint32_t)(x < y));
  }
  // The ISA's example: [r3,r2,r1,r0] = [r5,r4] * [r7,r6] with mul/mad.lo.cc/madc.hi/madc.hi.cc
  for (int i = 0; i < 50000; i++) {
    uint64_t A = pick64(g), B = pick64(g);
    uint32_t r4 = (uint32_t)A, r5 = (uint32_t)(A >> 32), r6 = (uint32_t)B, r7 = (uint32_t)(B >> 32);
    uint32_t cf, r0, r1, r2, r3;
    r0 = r4 * r6;                                  // mul.lo.u32
    r1 = alu_mul_hi_u32(r4, r6);                   // mul.hi.u32
    r1 = alu_madc_lo_u32(r5, r6, r1, 0, &cf);      // mad.lo.cc.u32  r1, r5, r6, r1
    r2 = alu_madc_hi_u32(r5, r6, 0, cf, &cf);      // madc.hi.u32    r2, r5, r6, 0
    r1 = alu_madc_lo_u32(r4, r7, r1, 0, &cf);      // mad.lo.cc.u32  r1, r4, r7, r1
    r2 = alu_madc_hi_u32(r4, r7, r2, cf, &cf);     // madc.hi.cc.u32 r2, r4, r7, r2
    uint32_t cf2;
    r3 = alu_addc_u32(0, 0, cf, &cf2);             // addc.u32       r3, 0, 0
    r2 = alu_madc_lo_u32(r5, r7, r2, 0, &cf);      // mad.lo.cc.u32  r2, r5, r7, r2
    r3 = alu_madc_hi_u32(r5, r7, r3, cf, &cf);     // madc.hi.u32    r3, r5, r7, r3
    u128 p = (u128)A * B;
    u128 got = ((u128)r3 << 96) | ((u128)r2 << 64) | ((u128)r1 << 32) | r0;
    ASSERT_TRUE(got == p) << std::hex << A << " * " << B;
  }
  uint32_t cf;
  EXPECT_EQ(alu_madc_hi_s32(0xffffffffu, 1, 5, 1, &cf), 5u);  // hi(-1*1) = -1; -1+5+1 = 5 carry 1
  EXPECT_EQ(cf, 1u);
  uint64_t r = alu_madc_lo_u64(~0ull, 2, 1, 1, &cf);  // (2^65-2 mod 2^64) + 1 + 1
  EXPECT_EQ(r, 0ull);
  EXPECT_EQ(cf, 1u);
  EXPECT_EQ(alu_madc_hi_s64(0x8000000000000000ull, 2, 0, 0, &cf), ~0ull);
}

TEST(AluInt, DivRemDefineDivisionByZeroAndOverflow) {
  EXPECT_EQ(alu_div_u32(7, 0), 0xffffffffu);
  EXPECT_EQ(alu_rem_u32(7, 0), 7u);
  EXPECT_EQ(alu_div_s32(7, 0), 0xffffffffu);
  EXPECT_EQ(alu_div_s32((uint32_t)-7, 0), 1u);
  EXPECT_EQ(alu_rem_s32((uint32_t)-7, 0), (uint32_t)-7);
  EXPECT_EQ(alu_div_s32(0x80000000u, 0xffffffffu), 0x80000000u);
  EXPECT_EQ(alu_rem_s32(0x80000000u, 0xffffffffu), 0u);
  EXPECT_EQ(alu_div_u64(1, 0), ~0ull);
  EXPECT_EQ(alu_div_s64((uint64_t)-1, 0), 1ull);
  EXPECT_EQ(alu_div_s64(0x8000000000000000ull, ~0ull), 0x8000000000000000ull);
  EXPECT_EQ(alu_rem_s64(0x8000000000000000ull, ~0ull), 0ull);
  EXPECT_EQ(alu_rem_u64(9, 0), 9ull);
  ref::Gen g(5);
  for (int i = 0; i < 100000; i++) {
    uint32_t a = pick32(g), b = pick32(g);
    if (b == 0) continue;
    int32_t sa = (int32_t)a, sb = (int32_t)b;
    ASSERT_EQ(alu_div_u32(a, b), a / b);
    ASSERT_EQ(alu_rem_u32(a, b), a % b);
    if (!(sa == INT32_MIN && sb == -1)) {
      ASSERT_EQ(alu_div_s32(a, b), (uint32_t)(sa / sb));  // truncating, as PTX
      ASSERT_EQ(alu_rem_s32(a, b), (uint32_t)(sa % sb));  // sign of the dividend
    }
    uint64_t A = pick64(g), B = pick64(g) | 1;
    ASSERT_EQ(alu_div_u64(A, B), A / B);
    if (!((int64_t)A == INT64_MIN && (int64_t)B == -1)) {
      ASSERT_EQ(alu_div_s64(A, B), (uint64_t)((int64_t)A / (int64_t)B));
      ASSERT_EQ(alu_rem_s64(A, B), (uint64_t)((int64_t)A % (int64_t)B));
    }
  }
}

TEST(AluInt, MinMaxAbsNeg) {
  EXPECT_EQ(alu_min_s32(0xffffffffu, 1), 0xffffffffu);
  EXPECT_EQ(alu_min_u32(0xffffffffu, 1), 1u);
  EXPECT_EQ(alu_max_s64(0x8000000000000000ull, 0), 0ull);
  EXPECT_EQ(alu_max_u64(0x8000000000000000ull, 0), 0x8000000000000000ull);
  EXPECT_EQ(alu_abs_s32(0x80000000u), 0x80000000u);
  EXPECT_EQ(alu_abs_s32((uint32_t)-3), 3u);
  EXPECT_EQ(alu_abs_s64((uint64_t)-3), 3ull);
  EXPECT_EQ(alu_relu_s32((uint32_t)-3), 0u);
  EXPECT_EQ(alu_relu_s32(3), 3u);
}

TEST(AluInt, ShiftsClampAmountsAtTheWidth) {
  for (uint32_t n : {0u, 1u, 15u, 16u, 17u, 31u, 32u, 33u, 63u, 64u, 65u, 255u, 0xffffffffu}) {
    EXPECT_EQ(alu_shl_b32(0x80000001u, n), n >= 32 ? 0u : 0x80000001u << n);
    EXPECT_EQ(alu_shr_u32(0x80000001u, n), n >= 32 ? 0u : 0x80000001u >> n);
    EXPECT_EQ(alu_shr_s32(0x80000001u, n), n >= 32 ? 0xffffffffu : (uint32_t)((int32_t)0x80000001u >> n));
    EXPECT_EQ(alu_shr_s32(0x40000000u, n), n >= 32 ? 0u : 0x40000000u >> n);
    EXPECT_EQ(alu_shl_b64(3, n), n >= 64 ? 0ull : 3ull << n);
    EXPECT_EQ(alu_shr_u64(~0ull, n), n >= 64 ? 0ull : ~0ull >> n);
    EXPECT_EQ(alu_shr_s64(0x8000000000000000ull, n), n >= 64 ? ~0ull : (uint64_t)((int64_t)0x8000000000000000ull >> n));
    EXPECT_EQ(alu_shl_b16(0x8001u, n), n >= 16 ? 0u : (uint16_t)(0x8001u << n));
    EXPECT_EQ(alu_shr_u16(0x8001u, n), n >= 16 ? 0u : (uint16_t)(0x8001u >> n));
    EXPECT_EQ(alu_shr_s16(0x8001u, n), n >= 16 ? 0xffffu : (uint16_t)((int16_t)0x8001 >> n));
  }
}

TEST(AluInt, FunnelShiftClampAndWrap) {
  ref::Gen g(6);
  for (int i = 0; i < 100000; i++) {
    uint32_t a = g.u32(), b = g.u32(), c = (i & 1) ? g.u32() % 70 : g.u32();
    uint64_t v = ((uint64_t)b << 32) | a;
    uint32_t nc = c > 32 ? 32 : c, nw = c & 31;
    ASSERT_EQ(alu_shf_l_b32(a, b, c, false), (uint32_t)((nc == 64 ? 0 : v << nc) >> 32));
    ASSERT_EQ(alu_shf_l_b32(a, b, c, true), (uint32_t)((v << nw) >> 32));
    ASSERT_EQ(alu_shf_r_b32(a, b, c, false), (uint32_t)(v >> nc));
    ASSERT_EQ(alu_shf_r_b32(a, b, c, true), (uint32_t)(v >> nw));
  }
  EXPECT_EQ(alu_shf_l_b32(0x12345678u, 0x9abcdef0u, 32, false), 0x12345678u);
  EXPECT_EQ(alu_shf_r_b32(0x12345678u, 0x9abcdef0u, 40, false), 0x9abcdef0u);
  EXPECT_EQ(alu_shf_r_b32(0x12345678u, 0x9abcdef0u, 32, true), 0x12345678u);
}

TEST(AluInt, PopcClzBrevBfind) {
  ref::Gen g(7);
  for (int i = 0; i < 100000; i++) {
    uint32_t a = pick32(g);
    uint64_t A = pick64(g);
    int pc = 0, lz = 0;
    for (int k = 0; k < 32; k++) pc += (a >> k) & 1;
    while (lz < 32 && !((a << lz) & 0x80000000u)) lz++;
    ASSERT_EQ(alu_popc_b32(a), (uint32_t)pc);
    ASSERT_EQ(alu_clz_b32(a), (uint32_t)lz);
    uint32_t rev = 0;
    for (int k = 0; k < 32; k++) rev |= ((a >> k) & 1u) << (31 - k);
    ASSERT_EQ(alu_brev_b32(a), rev);
    uint64_t rev64 = 0;
    for (int k = 0; k < 64; k++) rev64 |= ((A >> k) & 1ull) << (63 - k);
    ASSERT_EQ(alu_brev_b64(A), rev64);
    int lz64 = 0;
    while (lz64 < 64 && !((A << lz64) & 0x8000000000000000ull)) lz64++;
    ASSERT_EQ(alu_clz_b64(A), (uint32_t)lz64);
    ASSERT_EQ(alu_popc_b64(A), (uint32_t)__builtin_popcountll(A));
    // bfind: the ISA's loop
    for (int is_signed = 0; is_signed < 2; is_signed++)
      for (int shiftamt = 0; shiftamt < 2; shiftamt++) {
        uint32_t x = (is_signed && (a & 0x80000000u)) ? ~a : a;
        uint32_t d = 0xffffffffu;
        for (int k = 31; k >= 0; k--)
          if (x & (1u << k)) { d = (uint32_t)k; break; }
        if (shiftamt && d != 0xffffffffu) d = 31 - d;
        ASSERT_EQ(is_signed ? alu_bfind_s32(a, shiftamt) : alu_bfind_u32(a, shiftamt), d);
        uint64_t X = (is_signed && (A >> 63)) ? ~A : A;
        uint32_t D = 0xffffffffu;
        for (int k = 63; k >= 0; k--)
          if ((X >> k) & 1) { D = (uint32_t)k; break; }
        if (shiftamt && D != 0xffffffffu) D = 63 - D;
        ASSERT_EQ(is_signed ? alu_bfind_s64(A, shiftamt) : alu_bfind_u64(A, shiftamt), D);
      }
  }
  EXPECT_EQ(alu_clz_b32(0), 32u);
  EXPECT_EQ(alu_clz_b64(0), 64u);
  EXPECT_EQ(alu_bfind_s32(0xffffffffu, false), 0xffffffffu);
}

TEST(AluInt, BfeAndBfiFollowTheIsaPseudocode) {
  ref::Gen g(8);
  for (int i = 0; i < 200000; i++) {
    uint64_t A = pick64(g), B = pick64(g);
    uint32_t pos = (i & 1) ? g.u32() % 80 : g.u32(), len = (i & 2) ? g.u32() % 80 : g.u32();
    for (unsigned width : {32u, 64u})
      for (int is_signed = 0; is_signed < 2; is_signed++) {
        uint64_t a = width == 32 ? (uint32_t)A : A;
        unsigned msb = width - 1, p = pos & 0xff, l = len & 0xff;
        unsigned sbit = (!is_signed || l == 0) ? 0 : (a >> (p + l - 1 < msb ? p + l - 1 : msb)) & 1;
        uint64_t d = 0;
        for (unsigned k = 0; k <= msb; k++) {
          uint64_t bit = (k < l && p + k <= msb) ? (a >> (p + k)) & 1 : sbit;
          d |= bit << k;
        }
        uint64_t got = width == 32 ? (is_signed ? alu_bfe_s32((uint32_t)a, pos, len) : alu_bfe_u32((uint32_t)a, pos, len))
                                   : (is_signed ? alu_bfe_s64(a, pos, len) : alu_bfe_u64(a, pos, len));
        ASSERT_EQ(got, d) << "width " << width << " signed " << is_signed << std::hex << " a=" << a
                          << " pos=" << pos << " len=" << len;
        // bfi f, a, b, c, d
        uint64_t b = width == 32 ? (uint32_t)B : B;
        uint64_t f = b;
        for (unsigned k = 0; k < l && p + k <= msb; k++)
          f = (f & ~(1ull << (p + k))) | (((a >> k) & 1) << (p + k));
        uint64_t gi = width == 32 ? alu_bfi_b32((uint32_t)a, (uint32_t)b, pos, len) : alu_bfi_b64(a, b, pos, len);
        ASSERT_EQ(gi, f);
      }
  }
}

TEST(AluInt, PrmtAllModes) {
  const uint32_t a = 0x33221100u, b = 0x77665544u;  // byte k holds 0xkk
  // generic: selectors 7,3,5,1 -> d = 0x77 33 55 11 read from the top nibble down
  EXPECT_EQ(alu_prmt_b32(a, b, 0x7351u, PTX_PRMT_DEFAULT), 0x77335511u);
  EXPECT_EQ(alu_prmt_b32(0x00000080u, 0, 0x8880u, PTX_PRMT_DEFAULT), 0xffffff80u);  // sign replicate
  EXPECT_EQ(alu_prmt_b32(a, b, 0x3210u, PTX_PRMT_DEFAULT), a);
  // the special modes' tables (d.b3 d.b2 d.b1 d.b0 for c[1:0] = 0..3)
  const uint32_t f4e[] = {0x33221100u, 0x44332211u, 0x55443322u, 0x66554433u};
  const uint32_t b4e[] = {0x55667700u, 0x66770011u, 0x77001122u, 0x00112233u};
  const uint32_t rc8[] = {0x00000000u, 0x11111111u, 0x22222222u, 0x33333333u};
  const uint32_t ecl[] = {0x33221100u, 0x33221111u, 0x33222222u, 0x33333333u};
  const uint32_t ecr[] = {0x00000000u, 0x11111100u, 0x22221100u, 0x33221100u};
  const uint32_t rc16[] = {0x11001100u, 0x33223322u, 0x11001100u, 0x33223322u};
  for (uint32_t c = 0; c < 8; c++) {
    EXPECT_EQ(alu_prmt_b32(a, b, c, PTX_PRMT_F4E), f4e[c & 3]) << c;
    EXPECT_EQ(alu_prmt_b32(a, b, c, PTX_PRMT_B4E), b4e[c & 3]) << c;
    EXPECT_EQ(alu_prmt_b32(a, b, c, PTX_PRMT_RC8), rc8[c & 3]) << c;
    EXPECT_EQ(alu_prmt_b32(a, b, c, PTX_PRMT_ECL), ecl[c & 3]) << c;
    EXPECT_EQ(alu_prmt_b32(a, b, c, PTX_PRMT_ECR), ecr[c & 3]) << c;
    EXPECT_EQ(alu_prmt_b32(a, b, c, PTX_PRMT_RC16), rc16[c & 3]) << c;
  }
}

TEST(AluInt, BmskAndSzextFollowTheIsaPseudocode) {
  // bmsk: the ISA's own formulation, evaluated with 64-bit shifts
  for (uint32_t a = 0; a < 70; a++)
    for (uint32_t b = 0; b < 70; b++)
      for (int wrap = 0; wrap < 2; wrap++) {
        uint32_t a1 = a & 0x1f, b1 = b & 0x1f, sum = a1 + b1;
        uint32_t mask0 = (uint32_t)(~0ull << a1), mask1 = (uint32_t)(~0ull << sum);
        bool ovf = sum >= 32;
        if (!wrap) {
          if (a >= 32) { ovf = true; mask0 = 0; }
          if (b >= 32) ovf = true;
        }
        if (ovf) mask1 = 0;
        else if (b1 == 0) mask1 = ~0u;
        ASSERT_EQ(alu_bmsk_b32(a, b, wrap), mask0 & ~mask1) << a << " " << b << " wrap " << wrap;
      }
  EXPECT_EQ(alu_bmsk_b32(1, 2, true), 6u);  // the ISA's example
  EXPECT_EQ(alu_bmsk_b32(0, 32, false), 0xffffffffu);
  ref::Gen g(9);
  for (int i = 0; i < 100000; i++) {
    uint32_t a = pick32(g), b = (i & 1) ? g.u32() % 70 : g.u32();
    for (int wrap = 0; wrap < 2; wrap++)
      for (int is_signed = 0; is_signed < 2; is_signed++) {
        uint32_t n = wrap ? (b & 31) : (b > 32 ? 32 : b);
        uint32_t want;
        if (n == 0) want = 0;
        else if (n >= 32) want = a;
        else {
          uint32_t low = a & ((1u << n) - 1);
          want = (is_signed && ((low >> (n - 1)) & 1)) ? low | ~((1u << n) - 1) : low;
        }
        ASSERT_EQ(alu_szext_b32(a, b, is_signed, wrap), want) << std::hex << a << " " << b;
      }
  }
  EXPECT_EQ(alu_szext_b32(0xffffffffu, 0, false, true), 0u);  // the ISA's example
}

TEST(AluInt, Lop3EvaluatesEveryTruthTable) {
  ref::Gen g(10);
  for (uint32_t lut = 0; lut < 256; lut++)
    for (int i = 0; i < 50; i++) {
      uint32_t a = g.u32(), b = g.u32(), c = g.u32(), want = 0;
      for (int k = 0; k < 32; k++) {
        unsigned idx = (((a >> k) & 1) << 2) | (((b >> k) & 1) << 1) | ((c >> k) & 1);
        want |= ((lut >> idx) & 1u) << k;
      }
      ASSERT_EQ(alu_lop3_b32(a, b, c, lut), want) << lut;
    }
  // the ISA's way of writing a LUT: F(0xF0, 0xCC, 0xAA)
  EXPECT_EQ(alu_lop3_b32(0xf0, 0xcc, 0xaa, 0x80), 0xf0u & 0xccu & 0xaau);
  EXPECT_EQ(alu_lop3_b32(0xf0, 0xcc, 0xaa, 0x96), 0xf0u ^ 0xccu ^ 0xaau);
}

TEST(AluInt, Dp4aDp2aSignednessPerOperand) {
  ref::Gen g(11);
  for (int i = 0; i < 100000; i++) {
    uint32_t a = g.u32(), b = g.u32(), c = g.u32();
    for (int as = 0; as < 2; as++)
      for (int bs = 0; bs < 2; bs++) {
        int64_t s = (int32_t)c;
        for (int k = 0; k < 4; k++) {
          int64_t x = as ? (int8_t)(a >> (8 * k)) : (uint8_t)(a >> (8 * k));
          int64_t y = bs ? (int8_t)(b >> (8 * k)) : (uint8_t)(b >> (8 * k));
          s += x * y;
        }
        ASSERT_EQ(alu_dp4a(a, b, c, as, bs), (uint32_t)s);
        for (int hi = 0; hi < 2; hi++) {
          int64_t t = (int32_t)c;
          for (int k = 0; k < 2; k++) {
            int64_t x = as ? (int16_t)(a >> (16 * k)) : (uint16_t)(a >> (16 * k));
            int64_t y = bs ? (int8_t)(b >> (8 * (k + 2 * hi))) : (uint8_t)(b >> (8 * (k + 2 * hi)));
            t += x * y;
          }
          ASSERT_EQ(alu_dp2a(a, b, c, as, bs, hi), (uint32_t)t);
        }
      }
  }
}

TEST(AluInt, FnsFindsTheNthSetBit) {
  // the ISA's examples
  EXPECT_EQ(alu_fns_b32(0xaaaaaaaau, 3, 1), 3u);
  EXPECT_EQ(alu_fns_b32(0xaaaaaaaau, 3, -1), 3u);
  EXPECT_EQ(alu_fns_b32(0xaaaaaaaau, 2, 1), 3u);
  EXPECT_EQ(alu_fns_b32(0xaaaaaaaau, 2, -1), 1u);
  EXPECT_EQ(alu_fns_b32(0xaaaaaaaau, 2, 0), 0xffffffffu);
  EXPECT_EQ(alu_fns_b32(0x1u, 0, 2), 0xffffffffu);
  EXPECT_EQ(alu_fns_b32(0x80000001u, 0, 2), 31u);
}

TEST(AluInt, VideoAbsdiff4AndScalarForms) {
  // vabsdiff4.u32.u32.u32.add: c + sum |a.b_i - b.b_i|
  EXPECT_EQ(alu_video4(ALU_VABSDIFF, 0x0a0b0c0du, 0x0d0c0b0au, 100, false, false, false, PTX_VIDEO_ADD),
            100u + 3 + 1 + 1 + 3);
  EXPECT_EQ(alu_video4(ALU_VABSDIFF, 0xff000000u, 0x01000000u, 0, false, false, false, PTX_VIDEO_NONE),
            0xfe000000u);
  EXPECT_EQ(alu_video4(ALU_VABSDIFF, 0xff000000u, 0x01000000u, 0, true, true, false, PTX_VIDEO_NONE),
            0x02000000u);  // |-1 - 1| = 2
  EXPECT_EQ(alu_video4(ALU_VADD, 0x80ff7f01u, 0x80017f01u, 0, true, true, true, PTX_VIDEO_NONE),
            0x80007f02u);  // -128+-128 -> -128, -1+1 = 0, 127+127 -> 127, 1+1 = 2
  EXPECT_EQ(alu_video4(ALU_VSUB, 0x00000001u, 0x00000002u, 0, false, false, true, PTX_VIDEO_NONE), 0u);
  EXPECT_EQ(alu_video4(ALU_VMAX, 0x01020304u, 0x04030201u, 0, false, false, false, PTX_VIDEO_NONE),
            0x04030304u);
  // random .add sweep against a direct computation
  ref::Gen g(12);
  for (int i = 0; i < 50000; i++) {
    uint32_t a = g.u32(), b = g.u32(), c = g.u32();
    uint32_t want = c;
    for (int k = 0; k < 4; k++) {
      int x = (uint8_t)(a >> (8 * k)), y = (uint8_t)(b >> (8 * k));
      want += (uint32_t)std::abs(x - y);
    }
    ASSERT_EQ(alu_video4(ALU_VABSDIFF, a, b, c, false, false, false, PTX_VIDEO_ADD), want);
  }
  EXPECT_EQ(alu_video1(ALU_VADD, 0x7fffffffu, 1, 0, true, true, true, true, PTX_VIDEO_NONE), 0x7fffffffu);
  EXPECT_EQ(alu_video1(ALU_VADD, 0x7fffffffu, 1, 0, true, true, true, false, PTX_VIDEO_NONE), 0x80000000u);
  EXPECT_EQ(alu_video1(ALU_VSUB, 1, 2, 0, false, false, false, true, PTX_VIDEO_NONE), 0u);
  EXPECT_EQ(alu_video1(ALU_VABSDIFF, 1, 0xffffffffu, 10, true, true, true, false, PTX_VIDEO_ADD), 12u);
  EXPECT_EQ(alu_video1(ALU_VMIN, 5, 9, 3, false, false, false, false, PTX_VIDEO_MAX), 5u);
  EXPECT_EQ(alu_video1(ALU_VMAX, 5, 9, 3, false, false, false, false, PTX_VIDEO_MIN), 3u);
}
