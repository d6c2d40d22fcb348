/* alu_soft — exact rounding to the GPU's floating-point formats (see alu_soft.h). */
#include "alu_soft.h"

#include <math.h>

uint64_t soft_round_pack(const soft_fmt *f, bool sign, uint64_t mant, int exp, bool sticky,
                         ptx_rounding rnd, bool satfinite) {
  const int bias = soft_bias(f);
  const int emin = 1 - bias;            /* exponent of the smallest normal's leading bit */
  const int m = f->mant_bits;
  int lead = 63 - __builtin_clzll(mant) + exp; /* exponent of the leading one */
  int lsb = (lead < emin ? emin : lead) - m;   /* exponent of the result's last bit */
  int shift = lsb - exp;                       /* bits of mant below the result's last bit */
  uint64_t q;
  int half;        /* 0: below the midpoint, 1: at it, 2: above it */
  bool inexact;
  if (shift <= 0) {
    q = mant << -shift; /* lead - lsb <= m, so this cannot overflow */
    inexact = sticky;
    half = 0;
  } else if (shift > 64) {
    q = 0;
    inexact = true;
    half = 0; /* mant < 2^64 <= 2^(shift-1) */
  } else {
    uint64_t r, h;
    if (shift == 64) {
      q = 0;
      r = mant;
      h = 1ull << 63;
    } else {
      q = mant >> shift;
      r = mant & ((1ull << shift) - 1);
      h = 1ull << (shift - 1);
    }
    inexact = r != 0 || sticky;
    half = r > h ? 2 : r == h ? (sticky ? 2 : 1) : 0;
  }
  if (inexact && soft_round_up(rnd, sign, half, q & 1u)) q++;
  if (q >> (m + 1)) { /* carried into the next binade: q == 2^(m+1) exactly */
    q >>= 1;
    lsb++;
  }
  uint64_t fmask = (1ull << m) - 1;
  uint64_t emax = (1ull << f->exp_bits) - 1;
  uint64_t biased, frac;
  if (q >> m) {
    biased = (uint64_t)(lsb + m + bias);
    frac = q & fmask;
  } else {
    biased = 0; /* subnormal or zero: lsb == emin - m here */
    frac = q;
  }
  bool overflow = f->ieee_inf ? biased >= emax : (biased > emax || (biased == emax && frac == fmask));
  if (overflow) {
    bool to_max = satfinite || !f->ieee_inf || rnd == PTX_RND_RZ || (rnd == PTX_RND_RM && !sign) ||
                  (rnd == PTX_RND_RP && sign);
    return to_max ? soft_max_finite(f, sign) : soft_inf(f, sign);
  }
  return soft_sign_bit(f, sign) | (biased << m) | frac;
}

uint64_t soft_round_double(const soft_fmt *f, double s, int dir, ptx_rounding rnd, bool satfinite) {
  soft_val v = soft_unpack(&SOFT_F64, alu_f64_bits(s));
  if (dir == 0) return soft_round_pack(f, v.sign, v.mant, v.exp, false, rnd, satfinite);
  /* Make room for an exact "just below / just above" marker: eleven spare low bits. */
  uint64_t mant = v.mant << 11;
  int exp = v.exp - 11;
  bool toward_zero = (dir < 0) != v.sign;
  if (toward_zero) mant -= 1; /* exact value lies in (s - ulp/2, s): below s, above s - 2^-11 ulp */
  return soft_round_pack(f, v.sign, mant, exp, true, rnd, satfinite);
}

double soft_to_double(const soft_fmt *f, uint64_t bits) {
  soft_val v = soft_unpack(f, bits);
  switch (v.cls) {
  case SOFT_ZERO: return v.sign ? -0.0 : 0.0;
  case SOFT_INF: return v.sign ? -INFINITY : INFINITY;
  case SOFT_NAN: return NAN;
  default: {
    double x = ldexp((double)v.mant, v.exp);
    return v.sign ? -x : x;
  }
  }
}
