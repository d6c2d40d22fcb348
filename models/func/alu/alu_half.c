/* alu_half — f16 / f16x2 / bf16 / bf16x2 arithmetic (PTX ISA 9.7.4 half precision instructions).
 *
 * Operands are widened exactly to double; the sum or product is formed in double together with the
 * sign of its rounding error (TwoSum, exact products), then rounded once to the 16-bit format in
 * software. So every result is correctly rounded in the requested mode. NaN results are the
 * canonical 0x7fff. */
#include "alu.h"
#include "alu_soft.h"

#include <math.h>

typedef enum { H_ADD, H_SUB, H_MUL, H_FMA } h_op;

/* Sign of the rounding error of s = RN(a + b): the exact sum is s + err (Knuth's TwoSum). */
static inline int two_sum_dir(double a, double b, double s) {
  double bb = s - a;
  double err = (a - (s - bb)) + (b - bb);
  return err > 0 ? 1 : err < 0 ? -1 : 0;
}

static uint16_t h_post(const soft_fmt *f, bool is_f16, uint64_t r, uint64_t mods) {
  bool nan = (f == &SOFT_F16) ? alu_isnan_f16((uint16_t)r) : alu_isnan_bf16((uint16_t)r);
  if (is_f16 && (mods & PTX_MOD_FTZ) && !nan) r = alu_ftz_f16((uint16_t)r);
  if ((mods & PTX_MOD_RELU) && !nan && (r & 0x8000u)) r = 0;
  if (mods & PTX_MOD_SAT) {
    uint64_t one = is_f16 ? 0x3c00u : 0x3f80u;
    if (nan || (r & 0x8000u)) r = 0;
    else if (r > one) r = one;
  }
  return (uint16_t)r;
}

static uint16_t h_arith(bool is_f16, h_op op, uint16_t a, uint16_t b, uint16_t c, ptx_rounding rnd,
                        uint64_t mods) {
  const soft_fmt *f = is_f16 ? &SOFT_F16 : &SOFT_BF16;
  if (is_f16 && (mods & PTX_MOD_FTZ)) {
    a = alu_ftz_f16(a);
    b = alu_ftz_f16(b);
    c = alu_ftz_f16(c);
  }
  rnd = soft_float_rnd(rnd);
  if (rnd == PTX_RND_RN && op != H_FMA) {
    /* Fast path: the sum, difference or product rounded to f32 and then to f16/bf16 is correctly
     * rounded, because f32 has more than 2p+2 bits (double rounding is innocuous for +, -, x;
     * Figueroa 1995). bf16 results in the f32 subnormal range take the exact path below. */
    float x = alu_f32(is_f16 ? soft_f16_to_f32(a) : (uint32_t)a << 16);
    float y = alu_f32(is_f16 ? soft_f16_to_f32(b) : (uint32_t)b << 16);
    float r = op == H_ADD ? x + y : op == H_SUB ? x - y : x * y;
    uint32_t u = alu_f32_bits(r);
    if (is_f16) return h_post(f, true, soft_f32_to_f16_rn(u), mods);
    if ((u & 0x7f800000u) != 0 || (u & 0x7fffffffu) == 0) return h_post(f, false, soft_f32_to_bf16_rn(u), mods);
  }
  double x = soft_to_double(f, a), y = soft_to_double(f, b), z = soft_to_double(f, c);
  double s, p = 0, q = 0; /* p, q: the two addends, for the sign of an exact zero */
  int dir = 0;
  switch (op) {
  case H_SUB: y = -y; /* fall through */
  case H_ADD:
    p = x;
    q = y;
    s = x + y;
    dir = two_sum_dir(x, y, s);
    break;
  case H_MUL:
    s = x * y; /* exact: at most 2 x 11 significant bits */
    break;
  default:
    p = x * y; /* exact */
    q = z;
    s = p + q;
    dir = isfinite(s) ? two_sum_dir(p, q, s) : 0;
    break;
  }
  uint64_t r;
  if (isnan(s)) {
    r = f->nan;
  } else if (isinf(s)) {
    r = soft_inf(f, signbit(s) != 0);
  } else if (s == 0) {
    /* exact zero: IEEE 754 6.3 — a sum of opposite-signed values is +0, except -0 under .rm */
    bool neg = signbit(s) != 0;
    if (op != H_MUL && rnd == PTX_RND_RM) neg = signbit(p) || signbit(q);
    r = neg ? 0x8000u : 0;
  } else {
    r = soft_round_double(f, s, dir, rnd, false);
  }
  return h_post(f, is_f16, r, mods);
}

static uint16_t h_minmax(bool is_f16, uint16_t a, uint16_t b, uint64_t mods, bool is_max) {
  if (is_f16 && (mods & PTX_MOD_FTZ)) {
    a = alu_ftz_f16(a);
    b = alu_ftz_f16(b);
  }
  uint16_t xsign = (a ^ b) & 0x8000u;
  if (mods & PTX_MOD_ABS) {
    a &= 0x7fffu;
    b &= 0x7fffu;
  }
  bool na = is_f16 ? alu_isnan_f16(a) : alu_isnan_bf16(a);
  bool nb = is_f16 ? alu_isnan_f16(b) : alu_isnan_bf16(b);
  if (na || nb) {
    if ((mods & PTX_MOD_NAN) || (na && nb)) return 0x7fffu;
    a = na ? b : a;
    b = a;
  }
  int ka = (a & 0x8000u) ? ~(int)(a & 0x7fffu) : (int)a;
  int kb = (b & 0x8000u) ? ~(int)(b & 0x7fffu) : (int)b;
  uint16_t r = (is_max ? ka > kb : ka < kb) ? a : b;
  if ((mods & PTX_MOD_XORSIGN) && (mods & PTX_MOD_ABS)) r = (uint16_t)((r & 0x7fffu) | xsign);
  if (mods & PTX_MOD_RELU) r = (r & 0x8000u) ? 0 : r; /* min/max.relu (sm_90): NaN already handled */
  return r;
}

/* ---- f16 ---- */
uint16_t alu_add_f16(uint16_t a, uint16_t b, ptx_rounding rnd, uint64_t mods) {
  return h_arith(true, H_ADD, a, b, 0, rnd, mods);
}
uint16_t alu_sub_f16(uint16_t a, uint16_t b, ptx_rounding rnd, uint64_t mods) {
  return h_arith(true, H_SUB, a, b, 0, rnd, mods);
}
uint16_t alu_mul_f16(uint16_t a, uint16_t b, ptx_rounding rnd, uint64_t mods) {
  return h_arith(true, H_MUL, a, b, 0, rnd, mods);
}
uint16_t alu_fma_f16(uint16_t a, uint16_t b, uint16_t c, ptx_rounding rnd, uint64_t mods) {
  return h_arith(true, H_FMA, a, b, c, rnd, mods);
}
uint16_t alu_neg_f16(uint16_t a, uint64_t mods) {
  return (uint16_t)(((mods & PTX_MOD_FTZ) ? alu_ftz_f16(a) : a) ^ 0x8000u);
}
uint16_t alu_abs_f16(uint16_t a, uint64_t mods) {
  return (uint16_t)(((mods & PTX_MOD_FTZ) ? alu_ftz_f16(a) : a) & 0x7fffu);
}
uint16_t alu_min_f16(uint16_t a, uint16_t b, uint64_t mods) { return h_minmax(true, a, b, mods, false); }
uint16_t alu_max_f16(uint16_t a, uint16_t b, uint64_t mods) { return h_minmax(true, a, b, mods, true); }

/* ---- bf16 (no .ftz / .sat in the ISA; the flags are honoured if given) ---- */
uint16_t alu_add_bf16(uint16_t a, uint16_t b, ptx_rounding rnd, uint64_t mods) {
  return h_arith(false, H_ADD, a, b, 0, rnd, mods);
}
uint16_t alu_sub_bf16(uint16_t a, uint16_t b, ptx_rounding rnd, uint64_t mods) {
  return h_arith(false, H_SUB, a, b, 0, rnd, mods);
}
uint16_t alu_mul_bf16(uint16_t a, uint16_t b, ptx_rounding rnd, uint64_t mods) {
  return h_arith(false, H_MUL, a, b, 0, rnd, mods);
}
uint16_t alu_fma_bf16(uint16_t a, uint16_t b, uint16_t c, ptx_rounding rnd, uint64_t mods) {
  return h_arith(false, H_FMA, a, b, c, rnd, mods);
}
uint16_t alu_neg_bf16(uint16_t a, uint64_t mods) { (void)mods; return (uint16_t)(a ^ 0x8000u); }
uint16_t alu_abs_bf16(uint16_t a, uint64_t mods) { (void)mods; return (uint16_t)(a & 0x7fffu); }
uint16_t alu_min_bf16(uint16_t a, uint16_t b, uint64_t mods) { return h_minmax(false, a, b, mods, false); }
uint16_t alu_max_bf16(uint16_t a, uint16_t b, uint64_t mods) { return h_minmax(false, a, b, mods, true); }

/* ---- packed: element 0 in bits 15..0, element 1 in bits 31..16 ---- */
#define LO(x) ((uint16_t)((x) & 0xffffu))
#define HI(x) ((uint16_t)((x) >> 16))
#define PACK(h, l) (((uint32_t)(h) << 16) | (uint32_t)(l))

uint32_t alu_add_f16x2(uint32_t a, uint32_t b, ptx_rounding rnd, uint64_t mods) {
  return PACK(alu_add_f16(HI(a), HI(b), rnd, mods), alu_add_f16(LO(a), LO(b), rnd, mods));
}
uint32_t alu_sub_f16x2(uint32_t a, uint32_t b, ptx_rounding rnd, uint64_t mods) {
  return PACK(alu_sub_f16(HI(a), HI(b), rnd, mods), alu_sub_f16(LO(a), LO(b), rnd, mods));
}
uint32_t alu_mul_f16x2(uint32_t a, uint32_t b, ptx_rounding rnd, uint64_t mods) {
  return PACK(alu_mul_f16(HI(a), HI(b), rnd, mods), alu_mul_f16(LO(a), LO(b), rnd, mods));
}
uint32_t alu_fma_f16x2(uint32_t a, uint32_t b, uint32_t c, ptx_rounding rnd, uint64_t mods) {
  return PACK(alu_fma_f16(HI(a), HI(b), HI(c), rnd, mods), alu_fma_f16(LO(a), LO(b), LO(c), rnd, mods));
}
uint32_t alu_neg_f16x2(uint32_t a, uint64_t mods) {
  return PACK(alu_neg_f16(HI(a), mods), alu_neg_f16(LO(a), mods));
}
uint32_t alu_abs_f16x2(uint32_t a, uint64_t mods) {
  return PACK(alu_abs_f16(HI(a), mods), alu_abs_f16(LO(a), mods));
}
uint32_t alu_min_f16x2(uint32_t a, uint32_t b, uint64_t mods) {
  return PACK(alu_min_f16(HI(a), HI(b), mods), alu_min_f16(LO(a), LO(b), mods));
}
uint32_t alu_max_f16x2(uint32_t a, uint32_t b, uint64_t mods) {
  return PACK(alu_max_f16(HI(a), HI(b), mods), alu_max_f16(LO(a), LO(b), mods));
}

uint32_t alu_add_bf16x2(uint32_t a, uint32_t b, ptx_rounding rnd, uint64_t mods) {
  return PACK(alu_add_bf16(HI(a), HI(b), rnd, mods), alu_add_bf16(LO(a), LO(b), rnd, mods));
}
uint32_t alu_sub_bf16x2(uint32_t a, uint32_t b, ptx_rounding rnd, uint64_t mods) {
  return PACK(alu_sub_bf16(HI(a), HI(b), rnd, mods), alu_sub_bf16(LO(a), LO(b), rnd, mods));
}
uint32_t alu_mul_bf16x2(uint32_t a, uint32_t b, ptx_rounding rnd, uint64_t mods) {
  return PACK(alu_mul_bf16(HI(a), HI(b), rnd, mods), alu_mul_bf16(LO(a), LO(b), rnd, mods));
}
uint32_t alu_fma_bf16x2(uint32_t a, uint32_t b, uint32_t c, ptx_rounding rnd, uint64_t mods) {
  return PACK(alu_fma_bf16(HI(a), HI(b), HI(c), rnd, mods), alu_fma_bf16(LO(a), LO(b), LO(c), rnd, mods));
}
uint32_t alu_neg_bf16x2(uint32_t a, uint64_t mods) {
  return PACK(alu_neg_bf16(HI(a), mods), alu_neg_bf16(LO(a), mods));
}
uint32_t alu_abs_bf16x2(uint32_t a, uint64_t mods) {
  return PACK(alu_abs_bf16(HI(a), mods), alu_abs_bf16(LO(a), mods));
}
uint32_t alu_min_bf16x2(uint32_t a, uint32_t b, uint64_t mods) {
  return PACK(alu_min_bf16(HI(a), HI(b), mods), alu_min_bf16(LO(a), LO(b), mods));
}
uint32_t alu_max_bf16x2(uint32_t a, uint32_t b, uint64_t mods) {
  return PACK(alu_max_bf16(HI(a), HI(b), mods), alu_max_bf16(LO(a), LO(b), mods));
}
