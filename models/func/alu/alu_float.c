/* alu_float — f32 arithmetic in every rounding mode, comparisons, testp and the approximate
 * functions (PTX ISA 9.7.3, 9.7.5).
 *
 * Directed-rounding f32: the operation is done in double, where it is either exact (products) or
 * its rounding error is known exactly (TwoSum for sums, the fma residual for quotients and square
 * roots); the exact result is then rounded once to f32 in software. No host rounding mode is used,
 * so these functions are safe anywhere and need no -frounding-math. */
#include "alu.h"
#include "alu_soft.h"

#include <math.h>

float alu_fma_f32_exact(float a, float b, float c) { return fmaf(a, b, c); }

/* ------------------------------------------------------------------------------------------------
 * f32 with any rounding
 * ---------------------------------------------------------------------------------------------- */

typedef enum { F_ADD, F_SUB, F_MUL, F_FMA, F_DIV, F_SQRT, F_RCP } f_op;

static inline int sign_dir(double e) { return e > 0 ? 1 : e < 0 ? -1 : 0; }

static uint32_t f32_op(f_op op, uint32_t ua, uint32_t ub, uint32_t uc, ptx_rounding rnd, uint64_t mods) {
  if (rnd == PTX_RND_NONE || rnd == PTX_RND_RN) {
    switch (op) {
    case F_ADD: return alu_add_f32(ua, ub, mods);
    case F_SUB: return alu_sub_f32(ua, ub, mods);
    case F_MUL: return alu_mul_f32(ua, ub, mods);
    case F_FMA: return alu_fma_f32(ua, ub, uc, mods);
    case F_DIV: return alu_div_f32(ua, ub, mods);
    case F_SQRT: return alu_sqrt_f32(ua, mods);
    default: return alu_rcp_f32(ua, mods);
    }
  }
  rnd = soft_float_rnd(rnd);
  double a = alu_f32_in(ua, mods), b = alu_f32_in(ub, mods), c = alu_f32_in(uc, mods);
  double s, p = 0, q = 0;
  int dir = 0;
  bool sum = false;
  switch (op) {
  case F_SUB: b = -b; /* fall through */
  case F_ADD:
    p = a;
    q = b;
    s = a + b;
    sum = true;
    break;
  case F_MUL:
    s = a * b; /* exact: 24 x 24 bits */
    break;
  case F_FMA:
    p = a * b; /* exact */
    q = c;
    s = p + q;
    sum = true;
    break;
  case F_RCP:
    b = a;
    a = 1.0; /* fall through */
  default:
    if (op == F_SQRT) {
      s = sqrt(a);
      if (isfinite(s) && s != 0) dir = sign_dir(__builtin_fma(-s, s, a)); /* exact residual */
    } else {
      s = a / b;
      if (isfinite(s) && s != 0) {
        double r = __builtin_fma(-s, b, a); /* exact residual a - s*b */
        dir = sign_dir(r) * (b < 0 ? -1 : 1);
      }
    }
    break;
  }
  if (sum && isfinite(s) && s != 0) {
    double bb = s - p;
    dir = sign_dir((p - (s - bb)) + (q - bb)); /* TwoSum: exact error of s */
  }
  float r;
  if (isnan(s)) return alu_f32_finish(NAN, mods);
  if (isinf(s) || (s == 0 && !sum)) {
    r = (float)s; /* exact */
  } else if (s == 0) {
    /* exact zero sum: +0, or -0 when both addends are negative; under .rm any negative addend */
    bool neg = rnd == PTX_RND_RM ? (signbit(p) || signbit(q)) : (signbit(p) && signbit(q));
    r = neg ? -0.0f : 0.0f;
  } else {
    r = alu_f32((uint32_t)soft_round_double(&SOFT_F32, s, dir, rnd, false));
  }
  return alu_f32_finish(r, mods);
}

uint32_t alu_add_f32_rnd(uint32_t a, uint32_t b, ptx_rounding rnd, uint64_t mods) {
  return f32_op(F_ADD, a, b, 0, rnd, mods);
}
uint32_t alu_sub_f32_rnd(uint32_t a, uint32_t b, ptx_rounding rnd, uint64_t mods) {
  return f32_op(F_SUB, a, b, 0, rnd, mods);
}
uint32_t alu_mul_f32_rnd(uint32_t a, uint32_t b, ptx_rounding rnd, uint64_t mods) {
  return f32_op(F_MUL, a, b, 0, rnd, mods);
}
uint32_t alu_fma_f32_rnd(uint32_t a, uint32_t b, uint32_t c, ptx_rounding rnd, uint64_t mods) {
  return f32_op(F_FMA, a, b, c, rnd, mods);
}
uint32_t alu_div_f32_rnd(uint32_t a, uint32_t b, ptx_rounding rnd, uint64_t mods) {
  return f32_op(F_DIV, a, b, 0, rnd, mods);
}
uint32_t alu_sqrt_f32_rnd(uint32_t a, ptx_rounding rnd, uint64_t mods) {
  return f32_op(F_SQRT, a, 0, 0, rnd, mods);
}
uint32_t alu_rcp_f32_rnd(uint32_t a, ptx_rounding rnd, uint64_t mods) {
  return f32_op(F_RCP, a, 0, 0, rnd, mods);
}

/* Lane arrays: the RN case is a plain loop the compiler vectorises; the directed modes call the
 * exact software path per lane. */
#define F32_ARRAY2(name, OP, INLINE)                                                                 \
  void name(uint32_t *d, const uint32_t *a, const uint32_t *b, unsigned n, ptx_rounding rnd,        \
            uint64_t mods) {                                                                         \
    if (rnd == PTX_RND_NONE || rnd == PTX_RND_RN) {                                                  \
      for (unsigned i = 0; i < n; i++) d[i] = INLINE(a[i], b[i], mods);                              \
    } else {                                                                                         \
      for (unsigned i = 0; i < n; i++) d[i] = f32_op(OP, a[i], b[i], 0, rnd, mods);                  \
    }                                                                                                \
  }
F32_ARRAY2(alu_add_f32_n, F_ADD, alu_add_f32)
F32_ARRAY2(alu_sub_f32_n, F_SUB, alu_sub_f32)
F32_ARRAY2(alu_mul_f32_n, F_MUL, alu_mul_f32)
F32_ARRAY2(alu_div_f32_n, F_DIV, alu_div_f32)

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__FMA__)
/* Hosts with an FMA unit (checked once per call): one vfmadd per lane, vectorised. */
__attribute__((target("fma"))) static void fma_f32_rn_hw(uint32_t *d, const uint32_t *a, const uint32_t *b,
                                                         const uint32_t *c, unsigned n, uint64_t mods) {
  if (mods & (PTX_MOD_FTZ | PTX_MOD_SAT)) {
    for (unsigned i = 0; i < n; i++)
      d[i] = alu_f32_finish(__builtin_fmaf(alu_f32_in(a[i], mods), alu_f32_in(b[i], mods), alu_f32_in(c[i], mods)),
                            mods);
    return;
  }
  for (unsigned i = 0; i < n; i++) { /* the common case, a branch-free loop the compiler vectorises */
    uint32_t u = alu_f32_bits(__builtin_fmaf(alu_f32(a[i]), alu_f32(b[i]), alu_f32(c[i])));
    d[i] = alu_isnan_f32(u) ? ALU_F32_NAN : u;
  }
}
#define ALU_HAVE_FMA_DISPATCH 1
#endif

void alu_fma_f32_n(uint32_t *d, const uint32_t *a, const uint32_t *b, const uint32_t *c, unsigned n,
                   ptx_rounding rnd, uint64_t mods) {
  if (rnd == PTX_RND_NONE || rnd == PTX_RND_RN) {
#ifdef ALU_HAVE_FMA_DISPATCH
    if (__builtin_cpu_supports("fma")) {
      fma_f32_rn_hw(d, a, b, c, n, mods);
      return;
    }
#endif
    for (unsigned i = 0; i < n; i++) d[i] = alu_fma_f32(a[i], b[i], c[i], mods);
  } else {
    for (unsigned i = 0; i < n; i++) d[i] = f32_op(F_FMA, a[i], b[i], c[i], rnd, mods);
  }
}
void alu_sqrt_f32_n(uint32_t *d, const uint32_t *a, unsigned n, ptx_rounding rnd, uint64_t mods) {
  for (unsigned i = 0; i < n; i++) d[i] = f32_op(F_SQRT, a[i], 0, 0, rnd, mods);
}
void alu_rcp_f32_n(uint32_t *d, const uint32_t *a, unsigned n, ptx_rounding rnd, uint64_t mods) {
  for (unsigned i = 0; i < n; i++) d[i] = f32_op(F_RCP, a[i], 0, 0, rnd, mods);
}

/* ------------------------------------------------------------------------------------------------
 * testp, comparisons
 * ---------------------------------------------------------------------------------------------- */

bool alu_testp_f32(uint32_t a, ptx_testp_kind kind) {
  uint32_t m = a & 0x7fffffffu;
  switch (kind) {
  case PTX_TESTP_FINITE: return m < 0x7f800000u;
  case PTX_TESTP_INFINITE: return m == 0x7f800000u;
  case PTX_TESTP_NUMBER: return m <= 0x7f800000u;
  case PTX_TESTP_NOTANUMBER: return m > 0x7f800000u;
  case PTX_TESTP_NORMAL: return m >= 0x00800000u && m < 0x7f800000u;
  case PTX_TESTP_SUBNORMAL: return m != 0 && m < 0x00800000u;
  default: return false;
  }
}

bool alu_testp_f64(uint64_t a, ptx_testp_kind kind) {
  uint64_t m = a & 0x7fffffffffffffffull;
  const uint64_t inf = 0x7ff0000000000000ull, minnorm = 0x0010000000000000ull;
  switch (kind) {
  case PTX_TESTP_FINITE: return m < inf;
  case PTX_TESTP_INFINITE: return m == inf;
  case PTX_TESTP_NUMBER: return m <= inf;
  case PTX_TESTP_NOTANUMBER: return m > inf;
  case PTX_TESTP_NORMAL: return m >= minnorm && m < inf;
  case PTX_TESTP_SUBNORMAL: return m != 0 && m < minnorm;
  default: return false;
  }
}

static inline bool cmp_double(double x, double y, ptx_cmp cmp) {
  bool unord = isnan(x) || isnan(y);
  return alu_cmp_outcome(cmp, !unord && x < y, !unord && x == y, !unord && x > y, unord);
}

bool alu_cmp_f16(uint16_t a, uint16_t b, ptx_cmp cmp, uint64_t mods) {
  if (mods & PTX_MOD_FTZ) {
    a = alu_ftz_f16(a);
    b = alu_ftz_f16(b);
  }
  return cmp_double(soft_to_double(&SOFT_F16, a), soft_to_double(&SOFT_F16, b), cmp);
}
bool alu_cmp_bf16(uint16_t a, uint16_t b, ptx_cmp cmp) {
  return cmp_double(soft_to_double(&SOFT_BF16, a), soft_to_double(&SOFT_BF16, b), cmp);
}

bool alu_cmp(uint64_t a, uint64_t b, ptx_type type, ptx_cmp cmp, uint64_t mods) {
  unsigned bits;
  bool is_signed;
  switch (type) {
  case PTX_TYPE_F32: return alu_cmp_f32((uint32_t)a, (uint32_t)b, cmp, mods);
  case PTX_TYPE_F64: return alu_cmp_f64(a, b, cmp);
  case PTX_TYPE_F16: return alu_cmp_f16((uint16_t)a, (uint16_t)b, cmp, mods);
  case PTX_TYPE_BF16: return alu_cmp_bf16((uint16_t)a, (uint16_t)b, cmp);
  case PTX_TYPE_B8: case PTX_TYPE_U8: bits = 8; is_signed = false; break;
  case PTX_TYPE_B16: case PTX_TYPE_U16: bits = 16; is_signed = false; break;
  case PTX_TYPE_B32: case PTX_TYPE_U32: bits = 32; is_signed = false; break;
  case PTX_TYPE_B64: case PTX_TYPE_U64: bits = 64; is_signed = false; break;
  case PTX_TYPE_S8: bits = 8; is_signed = true; break;
  case PTX_TYPE_S16: bits = 16; is_signed = true; break;
  case PTX_TYPE_S32: bits = 32; is_signed = true; break;
  case PTX_TYPE_S64: bits = 64; is_signed = true; break;
  default: return false;
  }
  if (bits < 64) {
    uint64_t mask = (1ull << bits) - 1, top = 1ull << (bits - 1);
    a &= mask;
    b &= mask;
    if (is_signed) { /* sign-extend */
      a = (a ^ top) - top;
      b = (b ^ top) - top;
    }
  }
  return is_signed ? alu_cmp_s64(a, b, cmp) : alu_cmp_u64(a, b, cmp);
}

/* ------------------------------------------------------------------------------------------------
 * Approximate functions. Each is deterministic and inside the ISA's stated error; where the
 * hardware's method is known (sin/cos range reduction, div.approx as a*rcp(b), the f64 1.11.20
 * approximations) the same method is used so that out-of-range behaviour matches too.
 * ---------------------------------------------------------------------------------------------- */

/* Rounds a double to f32 (RN) and applies canonical NaN and .ftz to the result. */
static inline uint32_t f32_from_double(double x, uint64_t mods) {
  return alu_f32_finish((float)x, mods & PTX_MOD_FTZ);
}

uint32_t alu_rcp_approx_f32(uint32_t a, uint64_t mods) {
  /* correctly rounded: within the ISA's 1 ulp */
  return alu_f32_finish(1.0f / alu_f32_in(a, mods), mods & PTX_MOD_FTZ);
}

uint32_t alu_div_approx_f32(uint32_t a, uint32_t b, uint64_t mods) {
  /* PTX 9.7.3.8: d = a * (1/b); for 2^126 < |b| < 2^128 the reciprocal underflows to zero, so the
   * result is 0 (NaN for an infinite a), as the ISA documents. The reciprocal is flushed. */
  float x = alu_f32_in(a, mods);
  uint32_t rb = alu_ftz_f32(alu_rcp_approx_f32(b, mods));
  return alu_f32_finish(x * alu_f32(rb), mods & PTX_MOD_FTZ);
}

uint32_t alu_div_full_f32(uint32_t a, uint32_t b, uint64_t mods) {
  /* full-range, <= 2 ulp in the ISA: we return the correctly rounded quotient */
  return alu_f32_finish(alu_f32_in(a, mods) / alu_f32_in(b, mods), mods & PTX_MOD_FTZ);
}

uint32_t alu_sqrt_approx_f32(uint32_t a, uint64_t mods) {
  return alu_f32_finish(sqrtf(alu_f32_in(a, mods)), mods & PTX_MOD_FTZ);
}

uint32_t alu_rsqrt_approx_f32(uint32_t a, uint64_t mods) {
  double x = alu_f32_in(a, mods);
  if (x == 0) return signbit(x) ? 0xff800000u : 0x7f800000u;
  return f32_from_double(1.0 / sqrt(x), mods);
}

/* sin/cos.approx: sm_70+ hardware first scales the angle to revolutions with an f32 multiply
 * rounded toward zero by 1/(2 pi) (0x3e22f983), then evaluates sin/cos(2 pi t). Doing the same
 * reproduces the GPU's loss of accuracy for large arguments; the ISA's bounds (2^-20.5 absolute in
 * [-2pi, 2pi], 2^-14.7 in [-100pi, 100pi]) are exactly the error of that reduction. */
static double revolutions(uint32_t a, uint64_t mods) {
  uint32_t t = alu_mul_f32_rnd(a, 0x3e22f983u, PTX_RND_RZ, mods & PTX_MOD_FTZ);
  double x = alu_f32(t);
  if (!isfinite(x)) return x;
  return x - nearbyint(x); /* exact: the fraction of a revolution */
}
static const double two_pi = 6.283185307179586476925286766559;

uint32_t alu_sin_approx_f32(uint32_t a, uint64_t mods) {
  double t = revolutions(a, mods);
  if (t == 0) return alu_f32_bits(alu_f32_in(a, mods)) & 0x80000000u; /* sin(±0) = ±0 */
  return f32_from_double(sin(two_pi * t), mods);
}

uint32_t alu_cos_approx_f32(uint32_t a, uint64_t mods) {
  return f32_from_double(cos(two_pi * revolutions(a, mods)), mods);
}

uint32_t alu_ex2_approx_f32(uint32_t a, uint64_t mods) {
  return f32_from_double(exp2((double)alu_f32_in(a, mods)), mods);
}

uint32_t alu_lg2_approx_f32(uint32_t a, uint64_t mods) {
  double x = alu_f32_in(a, mods);
  if (x == 0) return 0xff800000u; /* lg2(±0) = -Inf */
  return f32_from_double(log2(x), mods);
}

uint32_t alu_tanh_approx_f32(uint32_t a) {
  return f32_from_double(tanh((double)alu_f32(a)), 0);
}

/* rcp.approx.ftz.f64 / rsqrt.approx.ftz.f64 (PTX 9.7.3.14, 9.7.3.17): only the upper 32 bits of
 * the operand (1.11.20) are used, the result is a 1.11.20 upper word with the low word zero.
 * NaN -> 0x7fffffff00000000; subnormal inputs and results flush to sign-preserving zero. */
static uint64_t f64_hi_approx(uint64_t a, bool rsqrt) {
  uint64_t hi = a & 0xffffffff00000000ull;
  if (alu_isnan_f64(hi)) return 0x7fffffff00000000ull; /* the low word is ignored */
  hi = alu_ftz_f64(hi);
  double x = alu_f64(hi), r;
  if (rsqrt) {
    if (x == 0) return signbit(x) ? 0xfff0000000000000ull : 0x7ff0000000000000ull;
    if (x < 0) return 0x7fffffff00000000ull;
    r = 1.0 / sqrt(x);
  } else {
    r = 1.0 / x;
  }
  if (!isfinite(r)) return alu_f64_bits(r) & 0xfff0000000000000ull; /* ±Inf */
  if (r == 0) return alu_f64_bits(r);
  uint64_t w = soft_round_double(&SOFT_F64HI, r, 0, PTX_RND_RN, false);
  uint64_t d = w << 32;
  return alu_ftz_f64(d);
}

uint64_t alu_rcp_approx_ftz_f64(uint64_t a) { return f64_hi_approx(a, false); }

uint64_t alu_rsqrt_approx_f64(uint64_t a, uint64_t mods) {
  if (mods & PTX_MOD_FTZ) return f64_hi_approx(a, true);
  /* rsqrt.approx.f64 is a software sequence on the GPU: we return 1/sqrt(a) rounded from
   * long double (within 1 ulp). */
  double x = alu_f64(a);
  if (x == 0) return signbit(x) ? 0xfff0000000000000ull : 0x7ff0000000000000ull;
  if (isnan(x)) return a | 0x0008000000000000ull;
  if (x < 0) return ALU_F64_NAN;
  return alu_f64_bits((double)(1.0L / sqrtl((long double)x)));
}

uint16_t alu_ex2_approx_f16(uint16_t a) {
  double x = soft_to_double(&SOFT_F16, a);
  if (isnan(x)) return ALU_F16_NAN;
  return (uint16_t)alu_cvt(alu_f64_bits(exp2(x)), PTX_TYPE_F16, PTX_TYPE_F64, PTX_RND_RN, 0);
}

uint16_t alu_tanh_approx_f16(uint16_t a) {
  double x = soft_to_double(&SOFT_F16, a);
  if (isnan(x)) return ALU_F16_NAN;
  return (uint16_t)alu_cvt(alu_f64_bits(tanh(x)), PTX_TYPE_F16, PTX_TYPE_F64, PTX_RND_RN, 0);
}
