/* alu_cvt — cvt between every pair of PTX scalar types (PTX ISA 9.7.9.21), exact software
 * rounding in every mode. docs/func-alu.md lists the NaN and saturation choices. */
#include "alu.h"
#include "alu_soft.h"

static const soft_fmt *float_fmt(ptx_type t) {
  switch (t) {
  case PTX_TYPE_F64: return &SOFT_F64;
  case PTX_TYPE_F32: return &SOFT_F32;
  case PTX_TYPE_F16: return &SOFT_F16;
  case PTX_TYPE_BF16: return &SOFT_BF16;
  case PTX_TYPE_TF32: return &SOFT_TF32;
  case PTX_TYPE_E4M3: return &SOFT_E4M3;
  case PTX_TYPE_E5M2: return &SOFT_E5M2;
  default: return NULL;
  }
}

/* Width and signedness of an integer type; false for anything else. */
static bool int_info(ptx_type t, unsigned *bits, bool *is_signed) {
  switch (t) {
  case PTX_TYPE_U8: case PTX_TYPE_B8: *bits = 8; *is_signed = false; return true;
  case PTX_TYPE_U16: case PTX_TYPE_B16: *bits = 16; *is_signed = false; return true;
  case PTX_TYPE_U32: case PTX_TYPE_B32: *bits = 32; *is_signed = false; return true;
  case PTX_TYPE_U64: case PTX_TYPE_B64: *bits = 64; *is_signed = false; return true;
  case PTX_TYPE_S8: *bits = 8; *is_signed = true; return true;
  case PTX_TYPE_S16: *bits = 16; *is_signed = true; return true;
  case PTX_TYPE_S32: *bits = 32; *is_signed = true; return true;
  case PTX_TYPE_S64: *bits = 64; *is_signed = true; return true;
  default: return false;
  }
}

static inline uint64_t low_mask(unsigned bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }

/* The register image of a format's bit pattern (tf32 lives in the upper 19 bits of a .b32). */
static inline uint64_t to_register(ptx_type t, uint64_t bits) {
  return t == PTX_TYPE_TF32 ? bits << 13 : bits;
}

static bool is_integer_rounding(ptx_rounding r) {
  return r == PTX_RND_RNI || r == PTX_RND_RZI || r == PTX_RND_RMI || r == PTX_RND_RPI;
}

/* Rounds |v| (finite) to an integer with the float-style mode rnd. *big is set when the magnitude
 * is 2^64 or more (the result is then meaningless and the caller saturates). */
static uint64_t round_to_integer(const soft_val *v, ptx_rounding rnd, bool *big) {
  int lead = 63 - __builtin_clzll(v->mant) + v->exp;
  *big = false;
  if (lead >= 64) {
    *big = true;
    return 0;
  }
  if (v->exp >= 0) return v->mant << v->exp;
  int shift = -v->exp;
  uint64_t q, r, h;
  if (shift >= 64) {
    q = 0;
    r = v->mant;
    h = shift == 64 ? 1ull << 63 : 0; /* h == 0 marks "half is beyond mant" */
  } else {
    q = v->mant >> shift;
    r = v->mant & ((1ull << shift) - 1);
    h = 1ull << (shift - 1);
  }
  if (r == 0) return q;
  int half = h == 0 ? 0 : r > h ? 2 : r == h ? 1 : 0;
  if (soft_round_up(rnd, v->sign, half, q & 1u)) {
    q++;
    if (q == 0) *big = true;
  }
  return q;
}

/* NaN result of a float -> float conversion: canonical for the narrow formats; f64 keeps the sign
 * and payload and sets the quiet bit, as IEEE 754 recommends and x86 does. */
static uint64_t nan_result(const soft_fmt *sf, uint64_t src_bits, const soft_fmt *df) {
  if (df == &SOFT_F64) {
    uint64_t payload = src_bits & ((1ull << sf->mant_bits) - 1);
    return soft_sign_bit(df, (src_bits >> (soft_total_bits(sf) - 1)) & 1u) | 0x7ff8000000000000ull |
           (payload << (52 - sf->mant_bits));
  }
  return df->nan;
}

/* .relu, .sat and .ftz applied to a float result (bits in format df, not yet register image). */
static uint64_t float_post(const soft_fmt *df, ptx_type dst, uint64_t r, uint64_t mods) {
  soft_val v = soft_unpack(df, r);
  if ((mods & PTX_MOD_FTZ) && dst == PTX_TYPE_F32 && v.cls == SOFT_FINITE && ((r >> 23) & 0xffu) == 0)
    r = r & 0x80000000u; /* flush a subnormal f32 result */
  if ((mods & PTX_MOD_RELU) && v.cls != SOFT_NAN && v.sign) r = 0; /* negative (and -0) -> +0 */
  if ((mods & PTX_MOD_RELU) && v.cls == SOFT_NAN) r = df->nan;
  if (mods & PTX_MOD_SAT) {
    uint64_t one = soft_round_pack(df, false, 1, 0, false, PTX_RND_RN, false);
    if (v.cls == SOFT_NAN || ((r >> (soft_total_bits(df) - 1)) & 1u)) r = 0;
    else if (r > one) r = one; /* positive values order like their bit patterns */
  }
  return r;
}

static uint64_t cvt_float_to_float(const soft_fmt *sf, uint64_t bits, const soft_fmt *df,
                                   ptx_type dst, ptx_rounding rnd, uint64_t mods) {
  soft_val v = soft_unpack(sf, bits);
  bool satfinite = (mods & PTX_MOD_SATFINITE) != 0;
  uint64_t r;
  switch (v.cls) {
  case SOFT_NAN:
    if (mods & PTX_MOD_SAT) return 0;
    return to_register(dst, nan_result(sf, bits, df));
  case SOFT_INF:
    r = (satfinite || !df->ieee_inf) ? soft_max_finite(df, v.sign) : soft_inf(df, v.sign);
    break;
  case SOFT_ZERO:
    r = soft_sign_bit(df, v.sign);
    break;
  default:
    if (is_integer_rounding(rnd)) {
      /* round to an integral value (cvt.rni.f32.f32 …), then store it exactly */
      if (v.exp >= 0) {
        r = soft_round_pack(df, v.sign, v.mant, v.exp, false, PTX_RND_RN, satfinite);
      } else {
        bool big;
        uint64_t q = round_to_integer(&v, soft_float_rnd(rnd), &big);
        r = q ? soft_round_pack(df, v.sign, q, 0, false, PTX_RND_RN, satfinite)
              : soft_sign_bit(df, v.sign);
      }
    } else {
      r = soft_round_pack(df, v.sign, v.mant, v.exp, false, soft_float_rnd(rnd), satfinite);
    }
    break;
  }
  return to_register(dst, float_post(df, dst, r, mods));
}

static uint64_t cvt_float_to_int(const soft_fmt *sf, uint64_t bits, ptx_type src, unsigned dbits,
                                 bool dsigned, ptx_rounding rnd) {
  soft_val v = soft_unpack(sf, bits);
  uint64_t maxv = dsigned ? low_mask(dbits - 1) : low_mask(dbits);
  uint64_t minv = dsigned ? ~0ull << (dbits - 1) : 0; /* sign-extended image of MININT */
  switch (v.cls) {
  case SOFT_NAN:
    /* PTX 9.7.9.21: 0, except f64 sources and 64-bit destinations give 1 << (width - 1). */
    if (src == PTX_TYPE_F64 || dbits == 64) return dsigned ? minv : 1ull << (dbits - 1);
    return 0;
  case SOFT_INF: return v.sign ? minv : maxv;
  case SOFT_ZERO: return 0;
  default: break;
  }
  ptx_rounding r = rnd == PTX_RND_NONE ? PTX_RND_RZ : soft_float_rnd(rnd);
  bool big;
  uint64_t mag = round_to_integer(&v, r, &big);
  if (v.sign) {
    if (!dsigned || (mag == 0 && !big)) return 0;
    if (big || mag > (1ull << (dbits - 1))) return minv;
    return 0ull - mag; /* sign-extended to 64 bits */
  }
  if (big || mag > maxv) return maxv;
  return mag;
}

uint64_t alu_cvt(uint64_t a, ptx_type dst, ptx_type src, ptx_rounding rnd, uint64_t mods) {
  const soft_fmt *sf = float_fmt(src == PTX_TYPE_TF32 ? PTX_TYPE_F32 : src);
  const soft_fmt *df = float_fmt(dst);
  unsigned sbits = 0, dbits = 0;
  bool ssigned = false, dsigned = false;
  bool sint = int_info(src, &sbits, &ssigned);
  bool dint = int_info(dst, &dbits, &dsigned);

  if (sf) {
    uint64_t bits = a & low_mask(soft_total_bits(sf));
    if ((mods & PTX_MOD_FTZ) && sf == &SOFT_F32) bits = alu_ftz_f32((uint32_t)bits);
    if (df) return cvt_float_to_float(sf, bits, df, dst, rnd, mods);
    if (dint) return cvt_float_to_int(sf, bits, src, dbits, dsigned, rnd);
    return 0;
  }
  if (!sint) return 0;

  /* integer source: extend to 64 bits with its signedness */
  uint64_t x = a & low_mask(sbits);
  bool neg = false;
  if (ssigned && sbits < 64 && ((x >> (sbits - 1)) & 1u)) x |= ~low_mask(sbits);
  if (ssigned && (int64_t)x < 0) neg = true;

  if (df) {
    uint64_t mag = neg ? 0ull - x : x;
    uint64_t r = mag == 0 ? 0
                          : soft_round_pack(df, neg, mag, 0, false, soft_float_rnd(rnd),
                                            (mods & PTX_MOD_SATFINITE) != 0);
    return to_register(dst, float_post(df, dst, r, mods));
  }
  if (!dint) return 0;
  if (mods & PTX_MOD_SAT) {
    if (dsigned) {
      int64_t lo = dbits == 64 ? INT64_MIN : -(int64_t)(1ull << (dbits - 1));
      int64_t hi = (int64_t)low_mask(dbits - 1);
      if (neg) {
        if ((int64_t)x < lo) x = (uint64_t)lo;
      } else if (x > (uint64_t)hi) {
        x = (uint64_t)hi;
      }
    } else {
      if (neg) x = 0;
      else if (x > low_mask(dbits)) x = low_mask(dbits);
    }
  }
  x &= low_mask(dbits);
  if (dsigned && dbits < 64 && ((x >> (dbits - 1)) & 1u)) x |= ~low_mask(dbits);
  return x;
}

uint32_t alu_cvt_pack_x2(uint32_t a_hi, uint32_t b_lo, ptx_type dst, ptx_rounding rnd, uint64_t mods) {
  switch (dst) {
  case PTX_TYPE_F16X2:
  case PTX_TYPE_BF16X2: {
    ptx_type e = dst == PTX_TYPE_F16X2 ? PTX_TYPE_F16 : PTX_TYPE_BF16;
    return (uint32_t)(alu_cvt(a_hi, e, PTX_TYPE_F32, rnd, mods) << 16) |
           (uint32_t)alu_cvt(b_lo, e, PTX_TYPE_F32, rnd, mods);
  }
  case PTX_TYPE_E4M3X2:
  case PTX_TYPE_E5M2X2: {
    ptx_type e = dst == PTX_TYPE_E4M3X2 ? PTX_TYPE_E4M3 : PTX_TYPE_E5M2;
    uint64_t m = mods | PTX_MOD_SATFINITE; /* mandatory for the fp8 destinations */
    return (uint32_t)(alu_cvt(a_hi, e, PTX_TYPE_F32, rnd, m) << 8) |
           (uint32_t)alu_cvt(b_lo, e, PTX_TYPE_F32, rnd, m);
  }
  default: return 0;
  }
}

uint32_t alu_cvt_unpack_x2_f16x2(uint16_t a, ptx_type src, uint64_t mods) {
  ptx_type e = (src == PTX_TYPE_E5M2X2 || src == PTX_TYPE_E5M2) ? PTX_TYPE_E5M2 : PTX_TYPE_E4M3;
  uint64_t m = mods & PTX_MOD_RELU;
  return (uint32_t)(alu_cvt(a >> 8, PTX_TYPE_F16, e, PTX_RND_RN, m) << 16) |
         (uint32_t)alu_cvt(a & 0xffu, PTX_TYPE_F16, e, PTX_RND_RN, m);
}

uint32_t alu_cvt_rn_f32_f64(uint64_t a, uint64_t mods) {
  /* the host's double -> float conversion rounds to nearest even, subnormals included */
  uint32_t r = alu_f32_bits((float)alu_f64(a));
  if (alu_isnan_f32(r)) return (mods & PTX_MOD_SAT) ? 0 : ALU_F32_NAN;
  if ((mods & PTX_MOD_FTZ)) r = alu_ftz_f32(r);
  if (mods & PTX_MOD_SAT) r = (uint32_t)float_post(&SOFT_F32, PTX_TYPE_F32, r, PTX_MOD_SAT);
  return r;
}

uint32_t alu_cvt_f32_f16(uint16_t h) {
  uint32_t s = (uint32_t)(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1fu) return m ? ALU_F32_NAN : s | 0x7f800000u;
  if (e == 0) return m ? s | alu_f32_bits((float)m * 0x1p-24f) : s;
  return s | ((e + 112u) << 23) | (m << 13);
}

uint16_t alu_cvt_rn_f16_f32(uint32_t a, uint64_t mods) {
  if (mods & (PTX_MOD_SAT | PTX_MOD_RELU | PTX_MOD_SATFINITE))
    return (uint16_t)alu_cvt(a, PTX_TYPE_F16, PTX_TYPE_F32, PTX_RND_RN, mods);
  return soft_f32_to_f16_rn((mods & PTX_MOD_FTZ) ? alu_ftz_f32(a) : a);
}
