/* alu_soft — private helpers of the alu library: exact rounding of a binary value to any of the
 * GPU's floating-point formats (IEEE 754-2019 section 4.3 roundings plus .rna, .satfinite) and
 * unpacking of format bit patterns. Used by cvt, the f16/bf16 arithmetic and the directed-rounding
 * f32 arithmetic. Not part of the public API. */
#ifndef SIMTVP_ALU_SOFT_H
#define SIMTVP_ALU_SOFT_H

#include <stdbool.h>
#include <stdint.h>

#include "alu.h"

/* A binary interchange format: 1 sign bit, exp_bits exponent bits, mant_bits fraction bits.
 * ieee_inf: the all-ones exponent encodes Inf (fraction 0) and NaN; otherwise (OCP e4m3) only
 * S.1111.111 is NaN, the rest of the top binade is finite and there is no Inf. */
typedef struct soft_fmt {
  uint8_t mant_bits;
  uint8_t exp_bits;
  bool ieee_inf;
  uint64_t nan;  /* canonical NaN bit pattern of results */
} soft_fmt;

static const soft_fmt SOFT_F64 = {52, 11, true, 0x7fffffffffffffffull};
static const soft_fmt SOFT_F32 = {23, 8, true, 0x7fffffffu};
static const soft_fmt SOFT_F16 = {10, 5, true, 0x7fffu};
static const soft_fmt SOFT_BF16 = {7, 8, true, 0x7fffu};
static const soft_fmt SOFT_TF32 = {10, 8, true, 0x3ffffu};   /* 19-bit image; register = bits << 13 */
static const soft_fmt SOFT_E4M3 = {3, 4, false, 0x7fu};
static const soft_fmt SOFT_E5M2 = {2, 5, true, 0x7fu};
static const soft_fmt SOFT_F64HI = {20, 11, true, 0x7fffffffu}; /* the 1.11.20 upper word of f64 */

static inline unsigned soft_total_bits(const soft_fmt *f) { return 1u + f->exp_bits + f->mant_bits; }
static inline int soft_bias(const soft_fmt *f) { return (1 << (f->exp_bits - 1)) - 1; }

/* Unpacked value: (-1)^sign * mant * 2^exp for SOFT_FINITE (mant != 0). */
typedef enum { SOFT_ZERO, SOFT_FINITE, SOFT_INF, SOFT_NAN } soft_class;
typedef struct soft_val {
  soft_class cls;
  bool sign;
  int exp;
  uint64_t mant;
} soft_val;

static inline soft_val soft_unpack(const soft_fmt *f, uint64_t bits) {
  soft_val v;
  unsigned tb = soft_total_bits(f);
  uint64_t fmask = (1ull << f->mant_bits) - 1;
  uint64_t emax = (1ull << f->exp_bits) - 1;
  uint64_t e = (bits >> f->mant_bits) & emax;
  uint64_t m = bits & fmask;
  v.sign = (bits >> (tb - 1)) & 1u;
  v.exp = 0;
  v.mant = 0;
  if (f->ieee_inf && e == emax) {
    v.cls = m ? SOFT_NAN : SOFT_INF;
  } else if (!f->ieee_inf && e == emax && m == fmask) {
    v.cls = SOFT_NAN;
  } else if (e == 0 && m == 0) {
    v.cls = SOFT_ZERO;
  } else {
    v.cls = SOFT_FINITE;
    v.mant = e ? (m | (1ull << f->mant_bits)) : m;
    v.exp = (int)(e ? e : 1) - soft_bias(f) - f->mant_bits;
  }
  return v;
}

static inline uint64_t soft_sign_bit(const soft_fmt *f, bool sign) {
  return (uint64_t)sign << (soft_total_bits(f) - 1);
}
static inline uint64_t soft_max_finite(const soft_fmt *f, bool sign) {
  uint64_t fmask = (1ull << f->mant_bits) - 1;
  uint64_t emax = (1ull << f->exp_bits) - 1;
  uint64_t mag = f->ieee_inf ? (((emax - 1) << f->mant_bits) | fmask) : ((emax << f->mant_bits) | (fmask - 1));
  return soft_sign_bit(f, sign) | mag;
}
static inline uint64_t soft_inf(const soft_fmt *f, bool sign) {
  uint64_t emax = (1ull << f->exp_bits) - 1;
  return soft_sign_bit(f, sign) | (emax << f->mant_bits);
}

/* Normalises a rounding mode for float results: NONE -> RN, RS (stochastic, no random bits here)
 * -> RZ, the integer forms keep their float meaning (RNI->RN …) for callers that reuse them. */
static inline ptx_rounding soft_float_rnd(ptx_rounding r) {
  switch (r) {
  case PTX_RND_RZ: case PTX_RND_RZI: case PTX_RND_RS: return PTX_RND_RZ;
  case PTX_RND_RM: case PTX_RND_RMI: return PTX_RND_RM;
  case PTX_RND_RP: case PTX_RND_RPI: return PTX_RND_RP;
  case PTX_RND_RNA: return PTX_RND_RNA;
  default: return PTX_RND_RN;
  }
}

/* Whether a magnitude that lies strictly between two representable neighbours rounds away from
 * zero. `half`: 0 below the midpoint, 1 exactly at it, 2 above it; `odd`: the lower neighbour's
 * last bit; `inexact` always true here. */
static inline bool soft_round_up(ptx_rounding rnd, bool sign, int half, bool odd) {
  switch (rnd) {
  case PTX_RND_RZ: return false;
  case PTX_RND_RM: return sign;
  case PTX_RND_RP: return !sign;
  case PTX_RND_RNA: return half >= 1;
  default: return half == 2 || (half == 1 && odd);
  }
}

/* Rounds (-1)^sign * (mant + sticky*eps) * 2^exp (mant != 0, 0 < eps < 1) to format f.
 * rnd must be one of RN/RNA/RZ/RM/RP (see soft_float_rnd). satfinite: overflow gives the largest
 * finite value instead of Inf (and is implied for formats without Inf). */
uint64_t soft_round_pack(const soft_fmt *f, bool sign, uint64_t mant, int exp, bool sticky,
                         ptx_rounding rnd, bool satfinite);

/* Rounds the exact value s + dir*eps to format f, where s is a finite non-zero double and eps is
 * a positive quantity smaller than half an ulp of s (dir = -1, 0, +1). This is how exact results
 * of double arithmetic with a known error sign (TwoSum, fma residuals) are rounded once. */
uint64_t soft_round_double(const soft_fmt *f, double s, int dir, ptx_rounding rnd, bool satfinite);

/* Value of a format bit pattern as a double (exact for every format here). NaN -> NaN. */
double soft_to_double(const soft_fmt *f, uint64_t bits);

/* Fast round-to-nearest-even conversions used on the hot paths (NaN -> canonical 0x7fff). */
static inline uint16_t soft_f32_to_f16_rn(uint32_t x) {
  uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return 0x7fffu;
  if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* >= 65520 (or Inf): Inf */
  if (ax >= 0x38800000u) {                                   /* normal f16: >= 2^-14 */
    uint32_t r = ax - 0x38000000u;                           /* rebias 127 -> 15 */
    r += 0xfffu + ((r >> 13) & 1u);
    return (uint16_t)(sign | (r >> 13));
  }
  if (ax <= 0x33000000u) return (uint16_t)sign; /* <= 2^-25: ties to even at 0 */
  uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126u - e; /* 14 .. 24: value / 2^-24 = m >> shift */
  uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
  q += rem > half || (rem == half && (q & 1u));
  return (uint16_t)(sign | q);
}
static inline uint16_t soft_f32_to_bf16_rn(uint32_t x) {
  if ((x & 0x7fffffffu) > 0x7f800000u) return 0x7fffu;
  return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
static inline uint32_t soft_f16_to_f32(uint16_t h) {
  uint32_t s = (uint32_t)(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1fu) return s | 0x7f800000u | (m << 13); /* Inf, NaN (payload kept) */
  if (e == 0) return m ? s | alu_f32_bits((float)m * 0x1p-24f) : s;
  return s | ((e + 112u) << 23) | (m << 13);
}

#endif /* SIMTVP_ALU_SOFT_H */
