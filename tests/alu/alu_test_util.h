// Shared helpers of the alu tests: the reference result of an f32/f64/f16/bf16 arithmetic
// operation in any rounding mode, computed with alu_ref's exact arithmetic and rounding, plus the
// GPU's special-value rules written out independently of the library.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "alu.h"
#include "alu_ref.h"

namespace aluref {

enum Op { ADD, SUB, MUL, FMA, DIV, SQRT, RCP };

inline ref::Mode mode_of(ptx_rounding r) {
  switch (r) {
    case PTX_RND_RZ: case PTX_RND_RZI: return ref::RZ;
    case PTX_RND_RM: case PTX_RND_RMI: return ref::RM;
    case PTX_RND_RP: case PTX_RND_RPI: return ref::RP;
    case PTX_RND_RNA: return ref::RNA;
    default: return ref::RN;
  }
}

inline uint64_t sign_bit(const ref::Fmt &f) { return 1ull << (f.total_bits() - 1); }

inline uint64_t flush(const ref::Fmt &f, uint64_t v) {
  uint64_t exmask = ((1ull << f.exp_bits) - 1) << (f.p - 1);
  return (v & exmask) == 0 ? (v & sign_bit(f)) : v;
}

inline double to_double(const ref::Fmt &f, uint64_t v) {
  ref::Decoded d = ref::decode(f, v);
  switch (d.cls) {
    case ref::NAN_: return NAN;
    case ref::INF: return d.x.neg ? -INFINITY : INFINITY;
    case ref::ZERO: return d.x.neg ? -0.0 : 0.0;
    default: {
      double m = std::ldexp((double)(uint64_t)d.x.m, d.x.e);
      return d.x.neg ? -m : m;
    }
  }
}

// Reference result of one IEEE operation in format f (f32/f64/f16/bf16). `canon_nan`: the NaN the
// GPU returns (0 = IEEE propagation, checked by the caller as "is a NaN"). FTZ/SAT/RELU applied as
// the ISA says when `ftz_ok` (f32/f16) and the flags are set.
struct Result {
  uint64_t bits;
  bool any_nan;  // true: any NaN is acceptable (f64 propagation)
};

inline Result expect(const ref::Fmt &f, Op op, uint64_t a, uint64_t b, uint64_t c, ptx_rounding rnd,
                     uint64_t mods, uint64_t canon_nan) {
  const bool ftz = (mods & PTX_MOD_FTZ) != 0;
  if (ftz) {
    a = flush(f, a);
    b = flush(f, b);
    c = flush(f, c);
  }
  if (op == SQRT) b = c = 0;
  if (op != FMA) c = 0;
  if (op == SUB) {
    b ^= sign_bit(f);
    op = ADD;
  }
  if (op == RCP) {
    b = a;
    a = (uint64_t)f.bias << (f.p - 1);  // 1.0
    op = DIV;
  }
  ref::Mode mode = mode_of(rnd);
  ref::Decoded A = ref::decode(f, a), B = ref::decode(f, b), C = ref::decode(f, c);
  Result res{0, false};
  bool nan = false;
  uint64_t r = 0;
  bool have = false;
  // special values: decided with host doubles, which are exact for them
  double x = to_double(f, a), y = to_double(f, b), z = to_double(f, c);
  double host;
  switch (op) {
    case ADD: host = x + y; break;
    case MUL: host = x * y; break;
    case FMA: host = x * y + z; break;
    case DIV: host = x / y; break;
    default: host = std::sqrt(x); break;
  }
  if (std::isnan(host) || A.cls == ref::NAN_ || B.cls == ref::NAN_ ||
      (op == FMA && C.cls == ref::NAN_)) {
    nan = true;
  } else if (std::isinf(host) && (A.cls == ref::INF || B.cls == ref::INF ||
                                  (op == FMA && C.cls == ref::INF) || (op == DIV && B.cls == ref::ZERO))) {
    r = ref::inf(f, host < 0);
    have = true;
  } else {
    ref::Exact e;
    bool zero = false;
    bool zsign = false;
    switch (op) {
      case ADD:
        if (A.cls == ref::ZERO && B.cls == ref::ZERO) {
          zero = true;
          zsign = mode == ref::RM ? (A.x.neg || B.x.neg) : (A.x.neg && B.x.neg);
        } else {
          e = ref::add(A.x, B.x);
          if (e.is_zero()) {
            zero = true;
            zsign = mode == ref::RM;
          }
        }
        break;
      case MUL:
        if (A.cls == ref::ZERO || B.cls == ref::ZERO) {
          zero = true;
          zsign = A.x.neg != B.x.neg;
        } else {
          e = ref::mul(A.x, B.x);
        }
        break;
      case FMA: {
        bool pzero = A.cls == ref::ZERO || B.cls == ref::ZERO;
        bool pneg = A.x.neg != B.x.neg;
        if (pzero && C.cls == ref::ZERO) {
          zero = true;
          zsign = mode == ref::RM ? (pneg || C.x.neg) : (pneg && C.x.neg);
        } else if (pzero) {
          e = C.x;
        } else {
          ref::Exact p = ref::mul(A.x, B.x);
          e = C.cls == ref::ZERO ? p : ref::add(p, C.x);
          if (e.is_zero()) {
            zero = true;
            zsign = mode == ref::RM;
          }
        }
        break;
      }
      case DIV:
        if (A.cls == ref::ZERO || B.cls == ref::INF) {
          zero = true;
          zsign = A.x.neg != B.x.neg;
        } else {
          e = ref::div(A.x, B.x);
        }
        break;
      default:  // SQRT
        if (A.cls == ref::ZERO) {
          zero = true;
          zsign = A.x.neg;
        } else if (A.cls == ref::INF) {
          r = ref::inf(f, false);
          have = true;
        } else {
          e = ref::sqrt(A.x);
        }
        break;
    }
    if (!have) {
      r = zero ? (zsign ? sign_bit(f) : 0) : ref::round(f, e, mode);
      have = true;
    }
  }
  if (nan) {
    if ((mods & PTX_MOD_SAT)) return {0, false};
    if (canon_nan == 0) return {0, true};
    return {canon_nan, false};
  }
  if (ftz) r = flush(f, r);
  if ((mods & PTX_MOD_RELU) && (r & sign_bit(f))) r = 0;
  if (mods & PTX_MOD_SAT) {
    uint64_t one = (uint64_t)f.bias << (f.p - 1);
    if (r & sign_bit(f)) r = 0;
    else if (r > one) r = one;
  }
  res.bits = r;
  return res;
}

inline const char *mode_name(ptx_rounding r) {
  switch (r) {
    case PTX_RND_RZ: return "rz";
    case PTX_RND_RM: return "rm";
    case PTX_RND_RP: return "rp";
    case PTX_RND_RNA: return "rna";
    default: return "rn";
  }
}

constexpr ptx_rounding kModes[] = {PTX_RND_RN, PTX_RND_RZ, PTX_RND_RM, PTX_RND_RP};

}  // namespace aluref
