// alu_ref — exact reference arithmetic for the alu tests (see alu_ref.h).
#include "alu_ref.h"

#include <cassert>

namespace ref {

const Fmt F64 = {53, 11, 1023, true};
const Fmt F32 = {24, 8, 127, true};
const Fmt F16 = {11, 5, 15, true};
const Fmt BF16 = {8, 8, 127, true};
const Fmt TF32 = {11, 8, 127, true};
const Fmt E4M3 = {4, 4, 7, false};
const Fmt E5M2 = {3, 5, 15, true};

static int msb128(u128 v) {
  int n = 0;
  while (v >> 1) {
    v >>= 1;
    n++;
  }
  return n;
}

Decoded decode(const Fmt &f, uint64_t bits) {
  Decoded d;
  int fb = f.p - 1;
  uint64_t frac = bits & ((1ull << fb) - 1);
  uint64_t ex = (bits >> fb) & ((1ull << f.exp_bits) - 1);
  uint64_t exmax = (1ull << f.exp_bits) - 1;
  d.x.neg = (bits >> (f.total_bits() - 1)) & 1;
  if (f.has_inf && ex == exmax) {
    d.cls = frac ? NAN_ : INF;
  } else if (!f.has_inf && ex == exmax && frac == (1ull << fb) - 1) {
    d.cls = NAN_;
  } else if (ex == 0 && frac == 0) {
    d.cls = ZERO;
  } else {
    d.cls = FINITE;
    if (ex == 0) {
      d.x.m = frac;
      d.x.e = f.emin() - fb;
    } else {
      d.x.m = frac | (1ull << fb);
      d.x.e = (int)ex - f.bias - fb;
    }
  }
  return d;
}

uint64_t max_finite(const Fmt &f, bool neg) {
  int fb = f.p - 1;
  uint64_t sign = (uint64_t)neg << (f.total_bits() - 1);
  uint64_t exmax = (1ull << f.exp_bits) - 1;
  if (f.has_inf) return sign | ((exmax - 1) << fb) | ((1ull << fb) - 1);
  return sign | (exmax << fb) | ((1ull << fb) - 2);
}

uint64_t inf(const Fmt &f, bool neg) {
  uint64_t sign = (uint64_t)neg << (f.total_bits() - 1);
  return sign | (((1ull << f.exp_bits) - 1) << (f.p - 1));
}

uint64_t round(const Fmt &f, const Exact &x, Mode mode, bool satfinite) {
  assert(x.m != 0);
  const int p = f.p;
  int lead = msb128(x.m) + x.e;
  int ulp = lead - (p - 1);
  int min_ulp = f.emin() - (p - 1);
  if (ulp < min_ulp) ulp = min_ulp;
  int k = ulp - x.e;  // bits to drop
  u128 q;
  int cmp;            // remainder against half an ulp: -1 below, 0 equal, +1 above
  bool inexact;
  if (k <= 0) {
    q = x.m << -k;
    inexact = x.sticky;
    cmp = -1;
  } else if (k >= 129) {
    q = 0;
    inexact = true;
    cmp = -1;
  } else {
    u128 r, half;
    if (k == 128) {
      q = 0;
      r = x.m;
      half = (u128)1 << 127;
    } else {
      q = x.m >> k;
      r = x.m - (q << k);
      half = (u128)1 << (k - 1);
    }
    inexact = r != 0 || x.sticky;
    cmp = r > half ? 1 : r < half ? -1 : (x.sticky ? 1 : 0);
  }
  bool up = false;
  if (inexact) {
    switch (mode) {
      case RN: up = cmp > 0 || (cmp == 0 && (q & 1)); break;
      case RNA: up = cmp >= 0; break;
      case RZ: up = false; break;
      case RM: up = x.neg; break;
      case RP: up = !x.neg; break;
    }
  }
  q += up;
  if (q == ((u128)1 << p)) {
    q >>= 1;
    ulp++;
  }
  uint64_t sign = (uint64_t)x.neg << (f.total_bits() - 1);
  bool normal = q >= ((u128)1 << (p - 1));
  int lead_r = ulp + p - 1;
  uint64_t frac = (uint64_t)(q & (((u128)1 << (p - 1)) - 1));
  bool overflow = normal && (lead_r > f.emax() ||
                             (!f.has_inf && lead_r == f.emax() && frac == (1ull << (p - 1)) - 1));
  if (overflow) {
    bool to_inf;
    switch (mode) {
      case RZ: to_inf = false; break;
      case RM: to_inf = x.neg; break;
      case RP: to_inf = !x.neg; break;
      default: to_inf = true; break;
    }
    if (satfinite || !f.has_inf) to_inf = false;
    return to_inf ? inf(f, x.neg) : max_finite(f, x.neg);
  }
  uint64_t biased = normal ? (uint64_t)(lead_r + f.bias) : 0;
  if (q == 0) return sign;
  return sign | (biased << (p - 1)) | frac;
}

Exact mul(const Exact &a, const Exact &b) {
  Exact r;
  r.neg = a.neg != b.neg;
  r.m = a.m * b.m;
  r.e = a.e + b.e;
  assert(!a.sticky && !b.sticky);
  return r;
}

Exact add(const Exact &a0, const Exact &b0) {
  assert(!a0.sticky && !b0.sticky);
  if (a0.m == 0) return b0;
  if (b0.m == 0) return a0;
  // big: the operand with the higher leading bit
  Exact a = a0, b = b0;
  if (msb128(b.m) + b.e > msb128(a.m) + a.e) std::swap(a, b);
  int sa = 124 - msb128(a.m);
  u128 M = a.m << sa;
  int E = a.e - sa;
  int shift = b.e - E;
  u128 S;
  bool sticky = false;
  if (shift >= 0) {
    S = b.m << shift;
  } else if (-shift >= 128) {
    S = 0;
    sticky = true;
  } else {
    S = b.m >> -shift;
    sticky = (S << -shift) != b.m;
  }
  Exact r;
  r.e = E;
  if (a.neg == b.neg) {
    r.neg = a.neg;
    r.m = M + S;
    r.sticky = sticky;
  } else if (M >= S) {
    r.neg = a.neg;
    r.m = M - S;
    if (sticky) {  // M - (S + frac) = (M - S - 1) + (1 - frac)
      r.m -= 1;
      r.sticky = true;
    }
  } else {  // only possible without sticky (equal leading exponents)
    r.neg = b.neg;
    r.m = S - M;
  }
  return r;
}

Exact div(const Exact &a, const Exact &b) {
  assert(a.m && b.m);
  int sa = 63 - msb128(a.m), sb = 63 - msb128(b.m);
  u128 A = a.m << sa, B = b.m << sb;  // both have their leading bit at 63
  u128 N = A << 63;
  Exact r;
  r.neg = a.neg != b.neg;
  r.m = N / B;
  r.sticky = N % B != 0;
  r.e = (a.e - sa) - 63 - (b.e - sb);
  return r;
}

static u128 isqrt(u128 v, bool *exact) {
  u128 res = 0, bit = (u128)1 << 126;
  while (bit > v) bit >>= 2;
  while (bit) {
    if (v >= res + bit) {
      v -= res + bit;
      res = (res >> 1) + bit;
    } else {
      res >>= 1;
    }
    bit >>= 2;
  }
  *exact = v == 0;
  return res;
}

Exact sqrt(const Exact &a) {
  assert(a.m && !a.neg);
  int s = 124 - msb128(a.m);
  if ((a.e - s) & 1) s--;
  Exact r;
  bool exact;
  r.m = isqrt(a.m << s, &exact);
  r.sticky = !exact;
  r.e = (a.e - s) / 2;
  return r;
}

u128 to_integer(const Exact &x, Mode mode, bool *overflow) {
  *overflow = false;
  if (x.m == 0) return 0;
  if (x.e >= 0) {
    if (msb128(x.m) + x.e >= 127) {
      *overflow = true;
      return 0;
    }
    return x.m << x.e;
  }
  int k = -x.e;
  u128 q = k >= 128 ? 0 : x.m >> k;
  u128 r = k >= 128 ? x.m : x.m - (q << k);
  bool inexact = r != 0 || x.sticky;
  int cmp = -1;
  if (k <= 128) {
    u128 half = (u128)1 << (k - 1);
    cmp = r > half ? 1 : r < half ? -1 : (x.sticky ? 1 : 0);
  }
  bool up = false;
  if (inexact) {
    switch (mode) {
      case RN: up = cmp > 0 || (cmp == 0 && (q & 1)); break;
      case RNA: up = cmp >= 0; break;
      case RZ: break;
      case RM: up = x.neg; break;
      case RP: up = !x.neg; break;
    }
  }
  return q + up;
}

uint64_t Gen::bits(const Fmt &f) {
  int tb = f.total_bits();
  uint64_t all = tb == 64 ? ~0ull : (1ull << tb) - 1;
  uint64_t v = rng_() & all;
  int fb = f.p - 1;
  uint64_t exmax = (1ull << f.exp_bits) - 1;
  switch (rng_() % 8) {
    case 0: v &= ~(exmax << fb); break;                                  // subnormal / zero
    case 1: v = (v & ~(exmax << fb)) | ((uint64_t)f.bias << fb); break;  // in [1, 2)
    case 2: v |= (exmax - 1) << fb; break;                               // near overflow
    case 3: v = (v & ~(exmax << fb)) | (((uint64_t)(rng_() % 3 + 1)) << fb); break;  // tiny normal
    default: break;                                                      // anything
  }
  return v;
}

uint64_t Gen::near(const Fmt &f, uint64_t other) {
  int fb = f.p - 1;
  uint64_t exmax = (1ull << f.exp_bits) - 1;
  int64_t ex = (int64_t)((other >> fb) & exmax) + (int64_t)(rng_() % 5) - 2;
  if (ex < 0) ex = 0;
  if ((uint64_t)ex >= exmax) ex = (int64_t)exmax - 1;
  uint64_t frac = rng_() & ((1ull << fb) - 1);
  if (rng_() % 2) frac = (other & ((1ull << fb) - 1)) ^ (rng_() & 7);  // nearly equal
  uint64_t sign = (rng_() & 1) << (f.total_bits() - 1);
  return sign | ((uint64_t)ex << fb) | frac;
}

std::vector<uint64_t> specials(const Fmt &f) {
  int fb = f.p - 1;
  uint64_t sign = 1ull << (f.total_bits() - 1);
  uint64_t exmax = (1ull << f.exp_bits) - 1;
  std::vector<uint64_t> pos = {
      0,                                      // +0
      1,                                      // min subnormal
      (1ull << fb) - 1,                       // max subnormal
      1ull << fb,                             // min normal
      (uint64_t)f.bias << fb,                 // 1.0
      ((uint64_t)f.bias << fb) | 1,           // 1 + ulp
      ((uint64_t)(f.bias - 1) << fb) | ((1ull << fb) - 1),  // 1 - ulp/2
      max_finite(f, false),
  };
  if (f.has_inf) {
    pos.push_back(exmax << fb);                          // Inf
    pos.push_back((exmax << fb) | (1ull << (fb - 1)));   // quiet NaN
    if (fb >= 2) pos.push_back((exmax << fb) | 1);       // signalling NaN
  } else {
    pos.push_back((exmax << fb) | ((1ull << fb) - 1));   // the NaN
  }
  std::vector<uint64_t> all;
  for (uint64_t v : pos) {
    all.push_back(v);
    all.push_back(v | sign);
  }
  return all;
}

}  // namespace ref
