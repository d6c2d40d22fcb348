/* alu — lane-level semantics of PTX arithmetic, exactly as a GPU computes it.
 *
 * Follows the PTX ISA 9.0 chapter 9.7 (integer 9.7.1, extended precision 9.7.2, floating point
 * 9.7.3, half precision 9.7.4, comparison 9.7.5, logic 9.7.7, cvt 9.7.9.21, video 9.7.13).
 * docs/func-alu.md lists every semantic choice, with section references, and what we return where
 * the hardware is undefined.
 *
 * Conventions
 *  - Values are register bit patterns: f32 as uint32_t, f64 as uint64_t, f16/bf16 as uint16_t,
 *    f16x2/bf16x2 as uint32_t (element 0 in bits 15..0). Integers are passed as their unsigned
 *    bits; functions named _s* interpret them as two's complement.
 *  - `mods` is the instruction's PTX_MOD_* bit set (ptx_insn.mods) passed through unchanged; each
 *    function says which bits it reads and ignores the others.
 *  - Arithmetic NaN results are the GPU's canonical NaN (ALU_F32_NAN …); input NaN payloads are not
 *    propagated (PTX 9.7.3: "NaN payloads are not preserved").
 *  - No allocation, no globals, no I/O; every function is deterministic and thread-safe.
 *
 * Rounding modes and speed (the contract)
 *  - The static inline functions below compute the default rounding (.rn for f32/f64 arithmetic)
 *    with plain host operations and never touch the host floating-point environment; call them per
 *    lane inside the engine's loops (they vectorise; no per-lane rounding-mode switching).
 *  - Directed rounding (.rz .rm .rp) of f32/f64 add/sub/mul/fma/div/sqrt/rcp is offered as lane-array
 *    functions alu_*_n(d, a, b, n, rnd, mods): they switch the host rounding mode ONCE, process n
 *    lanes, and restore the caller's mode before returning. They live in a translation unit compiled
 *    with -frounding-math. d may alias a, b or c element for element (d[i] is written after a[i],
 *    b[i], c[i] are read); all n lanes are computed (the caller masks the write-back). They accept
 *    every rounding including PTX_RND_NONE/RN (no mode switch then).
 *    The _rnd scalar forms are the same for one lane (convenient, slower: two mode switches).
 *    Never call the static inline functions with a non-default host rounding mode in force: they
 *    are compiled in the caller's unit, which assumes round-to-nearest.
 *  - Conversions (alu_cvt), f16/bf16 arithmetic and the integer functions round in software with
 *    exact integer arithmetic: any rounding, no host mode involved.
 *  - The host must run with MXCSR FTZ/DAZ clear (the default); .ftz is implemented in software.
 */
#ifndef SIMTVP_ALU_H
#define SIMTVP_ALU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "ptx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------------
 * Bit views and constants
 * ---------------------------------------------------------------------------------------------- */

#define ALU_F32_NAN 0x7fffffffu            /* canonical NaN of f32 results (PTX 9.7.3) */
#define ALU_F64_NAN 0x7fffffffffffffffull  /* canonical NaN of f64 results */
#define ALU_F16_NAN ((uint16_t)0x7fff)     /* canonical NaN of f16 results (PTX 9.7.4) */
#define ALU_BF16_NAN ((uint16_t)0x7fff)    /* canonical NaN of bf16 results */

static inline float alu_f32(uint32_t bits) { float f; memcpy(&f, &bits, 4); return f; }
static inline uint32_t alu_f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline double alu_f64(uint64_t bits) { double f; memcpy(&f, &bits, 8); return f; }
static inline uint64_t alu_f64_bits(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }

static inline bool alu_isnan_f32(uint32_t a) { return (a & 0x7fffffffu) > 0x7f800000u; }
static inline bool alu_isnan_f64(uint64_t a) {
  return (a & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
}
static inline bool alu_isnan_f16(uint16_t a) { return (a & 0x7fffu) > 0x7c00u; }
static inline bool alu_isnan_bf16(uint16_t a) { return (a & 0x7fffu) > 0x7f80u; }

/* Flush a subnormal to sign-preserving zero (the .ftz input and result rule). */
static inline uint32_t alu_ftz_f32(uint32_t a) {
  return (a & 0x7f800000u) == 0 ? (a & 0x80000000u) : a;
}
static inline uint64_t alu_ftz_f64(uint64_t a) {
  return (a & 0x7ff0000000000000ull) == 0 ? (a & 0x8000000000000000ull) : a;
}
static inline uint16_t alu_ftz_f16(uint16_t a) {
  return (uint16_t)((a & 0x7c00u) == 0 ? (a & 0x8000u) : a);
}

/* ------------------------------------------------------------------------------------------------
 * f32 / f64 arithmetic, default rounding (.rn), per lane, inline.
 * f32 mods: PTX_MOD_FTZ (flush subnormal inputs and result), PTX_MOD_SAT (clamp to [+0, 1],
 * NaN -> +0). mad.f32 (sm_20+) is fma.rn.f32. f64 has neither modifier.
 * ---------------------------------------------------------------------------------------------- */

/* Result post-processing shared by the f32 operations: canonical NaN, .ftz, .sat. */
static inline uint32_t alu_f32_finish(float r, uint64_t mods) {
  uint32_t u = alu_f32_bits(r);
  u = alu_isnan_f32(u) ? ALU_F32_NAN : u;
  u = (mods & PTX_MOD_FTZ) ? alu_ftz_f32(u) : u;
  if (mods & PTX_MOD_SAT) {
    /* NaN and every negative value (incl. -0) -> +0; above 1.0 -> 1.0 */
    u = (u & 0x80000000u) || u > 0x7f800000u ? 0u : (u > 0x3f800000u ? 0x3f800000u : u);
  }
  return u;
}
static inline float alu_f32_in(uint32_t a, uint64_t mods) {
  return alu_f32((mods & PTX_MOD_FTZ) ? alu_ftz_f32(a) : a);
}
static inline uint64_t alu_f64_finish(double r) {
  uint64_t u = alu_f64_bits(r);
  return alu_isnan_f64(u) ? ALU_F64_NAN : u;
}

static inline uint32_t alu_add_f32(uint32_t a, uint32_t b, uint64_t mods) {
  return alu_f32_finish(alu_f32_in(a, mods) + alu_f32_in(b, mods), mods);
}
static inline uint32_t alu_sub_f32(uint32_t a, uint32_t b, uint64_t mods) {
  return alu_f32_finish(alu_f32_in(a, mods) - alu_f32_in(b, mods), mods);
}
static inline uint32_t alu_mul_f32(uint32_t a, uint32_t b, uint64_t mods) {
  return alu_f32_finish(alu_f32_in(a, mods) * alu_f32_in(b, mods), mods);
}
/* fma.rn.f32 / mad.rn.f32: one rounding (compile with -mfma for a single instruction; otherwise
 * the C library's fmaf, which is exact). */
static inline uint32_t alu_fma_f32(uint32_t a, uint32_t b, uint32_t c, uint64_t mods) {
  return alu_f32_finish(__builtin_fmaf(alu_f32_in(a, mods), alu_f32_in(b, mods), alu_f32_in(c, mods)),
                        mods);
}
/* div.rn.f32 (IEEE, also what div.f32 without modifiers means in PTX >= 1.4 with .rn) */
static inline uint32_t alu_div_f32(uint32_t a, uint32_t b, uint64_t mods) {
  return alu_f32_finish(alu_f32_in(a, mods) / alu_f32_in(b, mods), mods);
}
static inline uint32_t alu_sqrt_f32(uint32_t a, uint64_t mods) {
  return alu_f32_finish(__builtin_sqrtf(alu_f32_in(a, mods)), mods);
}
static inline uint32_t alu_rcp_f32(uint32_t a, uint64_t mods) {
  return alu_f32_finish(1.0f / alu_f32_in(a, mods), mods);
}

static inline uint64_t alu_add_f64(uint64_t a, uint64_t b) { return alu_f64_finish(alu_f64(a) + alu_f64(b)); }
static inline uint64_t alu_sub_f64(uint64_t a, uint64_t b) { return alu_f64_finish(alu_f64(a) - alu_f64(b)); }
static inline uint64_t alu_mul_f64(uint64_t a, uint64_t b) { return alu_f64_finish(alu_f64(a) * alu_f64(b)); }
static inline uint64_t alu_fma_f64(uint64_t a, uint64_t b, uint64_t c) {
  return alu_f64_finish(__builtin_fma(alu_f64(a), alu_f64(b), alu_f64(c)));
}
static inline uint64_t alu_div_f64(uint64_t a, uint64_t b) { return alu_f64_finish(alu_f64(a) / alu_f64(b)); }
static inline uint64_t alu_sqrt_f64(uint64_t a) { return alu_f64_finish(__builtin_sqrt(alu_f64(a))); }
static inline uint64_t alu_rcp_f64(uint64_t a) { return alu_f64_finish(1.0 / alu_f64(a)); }

/* ------------------------------------------------------------------------------------------------
 * f32 / f64 arithmetic with any rounding: lane arrays (mode switched once) and scalar forms.
 * rnd: PTX_RND_NONE or RN/RZ/RM/RP. mods as for the inline functions (f64 ignores them).
 * ---------------------------------------------------------------------------------------------- */

void alu_add_f32_n(uint32_t *d, const uint32_t *a, const uint32_t *b, unsigned n, ptx_rounding rnd, uint64_t mods);
void alu_sub_f32_n(uint32_t *d, const uint32_t *a, const uint32_t *b, unsigned n, ptx_rounding rnd, uint64_t mods);
void alu_mul_f32_n(uint32_t *d, const uint32_t *a, const uint32_t *b, unsigned n, ptx_rounding rnd, uint64_t mods);
void alu_fma_f32_n(uint32_t *d, const uint32_t *a, const uint32_t *b, const uint32_t *c, unsigned n,
                   ptx_rounding rnd, uint64_t mods);
void alu_div_f32_n(uint32_t *d, const uint32_t *a, const uint32_t *b, unsigned n, ptx_rounding rnd, uint64_t mods);
void alu_sqrt_f32_n(uint32_t *d, const uint32_t *a, unsigned n, ptx_rounding rnd, uint64_t mods);
void alu_rcp_f32_n(uint32_t *d, const uint32_t *a, unsigned n, ptx_rounding rnd, uint64_t mods);

void alu_add_f64_n(uint64_t *d, const uint64_t *a, const uint64_t *b, unsigned n, ptx_rounding rnd);
void alu_sub_f64_n(uint64_t *d, const uint64_t *a, const uint64_t *b, unsigned n, ptx_rounding rnd);
void alu_mul_f64_n(uint64_t *d, const uint64_t *a, const uint64_t *b, unsigned n, ptx_rounding rnd);
void alu_fma_f64_n(uint64_t *d, const uint64_t *a, const uint64_t *b, const uint64_t *c, unsigned n,
                   ptx_rounding rnd);
void alu_div_f64_n(uint64_t *d, const uint64_t *a, const uint64_t *b, unsigned n, ptx_rounding rnd);
void alu_sqrt_f64_n(uint64_t *d, const uint64_t *a, unsigned n, ptx_rounding rnd);
void alu_rcp_f64_n(uint64_t *d, const uint64_t *a, unsigned n, ptx_rounding rnd);

uint32_t alu_add_f32_rnd(uint32_t a, uint32_t b, ptx_rounding rnd, uint64_t mods);
uint32_t alu_sub_f32_rnd(uint32_t a, uint32_t b, ptx_rounding rnd, uint64_t mods);
uint32_t alu_mul_f32_rnd(uint32_t a, uint32_t b, ptx_rounding rnd, uint64_t mods);
uint32_t alu_fma_f32_rnd(uint32_t a, uint32_t b, uint32_t c, ptx_rounding rnd, uint64_t mods);
uint32_t alu_div_f32_rnd(uint32_t a, uint32_t b, ptx_rounding rnd, uint64_t mods);
uint32_t alu_sqrt_f32_rnd(uint32_t a, ptx_rounding rnd, uint64_t mods);
uint32_t alu_rcp_f32_rnd(uint32_t a, ptx_rounding rnd, uint64_t mods);
uint64_t alu_add_f64_rnd(uint64_t a, uint64_t b, ptx_rounding rnd);
uint64_t alu_sub_f64_rnd(uint64_t a, uint64_t b, ptx_rounding rnd);
uint64_t alu_mul_f64_rnd(uint64_t a, uint64_t b, ptx_rounding rnd);
uint64_t alu_fma_f64_rnd(uint64_t a, uint64_t b, uint64_t c, ptx_rounding rnd);
uint64_t alu_div_f64_rnd(uint64_t a, uint64_t b, ptx_rounding rnd);
uint64_t alu_sqrt_f64_rnd(uint64_t a, ptx_rounding rnd);
uint64_t alu_rcp_f64_rnd(uint64_t a, ptx_rounding rnd);

/* ------------------------------------------------------------------------------------------------
 * Approximate f32 / f64 functions (PTX 9.7.3.x .approx / .full), per lane. mods: PTX_MOD_FTZ.
 * Each stays within the ISA's documented error (tests/alu prove the bound) and is deterministic.
 * ---------------------------------------------------------------------------------------------- */

uint32_t alu_div_approx_f32(uint32_t a, uint32_t b, uint64_t mods); /* a * rcp.approx(b)        */
uint32_t alu_div_full_f32(uint32_t a, uint32_t b, uint64_t mods);   /* full range, <= 2 ulp     */
uint32_t alu_rcp_approx_f32(uint32_t a, uint64_t mods);             /* <= 1 ulp                 */
uint32_t alu_sqrt_approx_f32(uint32_t a, uint64_t mods);
uint32_t alu_rsqrt_approx_f32(uint32_t a, uint64_t mods);
uint32_t alu_sin_approx_f32(uint32_t a, uint64_t mods);
uint32_t alu_cos_approx_f32(uint32_t a, uint64_t mods);
uint32_t alu_ex2_approx_f32(uint32_t a, uint64_t mods);
uint32_t alu_lg2_approx_f32(uint32_t a, uint64_t mods);
uint32_t alu_tanh_approx_f32(uint32_t a);
uint64_t alu_rcp_approx_ftz_f64(uint64_t a);   /* the ISA's 1.11.20 "gross approximation" */
uint64_t alu_rsqrt_approx_f64(uint64_t a, uint64_t mods); /* PTX_MOD_FTZ: rsqrt.approx.ftz.f64 */
uint16_t alu_ex2_approx_f16(uint16_t a);       /* ex2.approx.f16 (sm_75+)  */
uint16_t alu_tanh_approx_f16(uint16_t a);      /* tanh.approx.f16 (sm_75+) */

/* ------------------------------------------------------------------------------------------------
 * min / max / abs / neg / copysign / testp (PTX 9.7.3.x)
 * ---------------------------------------------------------------------------------------------- */

/* mods: PTX_MOD_FTZ, PTX_MOD_NAN (.NaN: any NaN input -> canonical NaN), PTX_MOD_XORSIGN|PTX_MOD_ABS
 * (.xorsign.abs) or PTX_MOD_ABS alone. Without .NaN a single NaN input returns the other input;
 * two NaNs give the canonical NaN. -0.0 < +0.0. */
uint32_t alu_min_f32(uint32_t a, uint32_t b, uint64_t mods);
uint32_t alu_max_f32(uint32_t a, uint32_t b, uint64_t mods);
uint64_t alu_min_f64(uint64_t a, uint64_t b);
uint64_t alu_max_f64(uint64_t a, uint64_t b);

/* abs/neg are sign-bit operations (NaN keeps its payload, as the hardware does); .ftz flushes a
 * subnormal input first. */
static inline uint32_t alu_abs_f32(uint32_t a, uint64_t mods) {
  return ((mods & PTX_MOD_FTZ) ? alu_ftz_f32(a) : a) & 0x7fffffffu;
}
static inline uint32_t alu_neg_f32(uint32_t a, uint64_t mods) {
  return ((mods & PTX_MOD_FTZ) ? alu_ftz_f32(a) : a) ^ 0x80000000u;
}
static inline uint64_t alu_abs_f64(uint64_t a) { return a & 0x7fffffffffffffffull; }
static inline uint64_t alu_neg_f64(uint64_t a) { return a ^ 0x8000000000000000ull; }
/* copysign.f32 d, a, b: magnitude of b, sign of a (note the PTX operand order). */
static inline uint32_t alu_copysign_f32(uint32_t a, uint32_t b) {
  return (b & 0x7fffffffu) | (a & 0x80000000u);
}
static inline uint64_t alu_copysign_f64(uint64_t a, uint64_t b) {
  return (b & 0x7fffffffffffffffull) | (a & 0x8000000000000000ull);
}

bool alu_testp_f32(uint32_t a, ptx_testp_kind kind);
bool alu_testp_f64(uint64_t a, ptx_testp_kind kind);

/* ------------------------------------------------------------------------------------------------
 * Comparisons for setp / set / slct (PTX 9.7.5). Ordered comparisons are false when either operand
 * is NaN; the ...U forms and NAN are true then; NUM is true when neither is NaN. For integers,
 * LO/LS/HI/HS are the unsigned forms of LT/LE/GT/GE; EQ/NE/LT/LE/GT/GE follow the signedness of
 * the function. f32 mods: PTX_MOD_FTZ.
 * ---------------------------------------------------------------------------------------------- */

bool alu_cmp_f32(uint32_t a, uint32_t b, ptx_cmp cmp, uint64_t mods);
bool alu_cmp_f64(uint64_t a, uint64_t b, ptx_cmp cmp);
bool alu_cmp_f16(uint16_t a, uint16_t b, ptx_cmp cmp, uint64_t mods);
bool alu_cmp_bf16(uint16_t a, uint16_t b, ptx_cmp cmp);
bool alu_cmp_s32(uint32_t a, uint32_t b, ptx_cmp cmp);
bool alu_cmp_u32(uint32_t a, uint32_t b, ptx_cmp cmp);
bool alu_cmp_s64(uint64_t a, uint64_t b, ptx_cmp cmp);
bool alu_cmp_u64(uint64_t a, uint64_t b, ptx_cmp cmp);
/* Any type: integers of 8..64 bits (bits above the type width are ignored; signed types are
 * sign-extended first), .b types compare as unsigned, f16/bf16/f32/f64. */
bool alu_cmp(uint64_t a, uint64_t b, ptx_type type, ptx_cmp cmp, uint64_t mods);

/* set's destination value for a predicate result: integer types 0xffffffff / 0, f32 1.0f / 0.0f. */
static inline uint32_t alu_set_value(bool r, ptx_type dtype) {
  return dtype == PTX_TYPE_F32 ? (r ? 0x3f800000u : 0u) : (r ? 0xffffffffu : 0u);
}
/* slct: d = (c >= 0) ? a : b. For f32 c (.ftz allowed): -0 selects a, NaN selects b. */
static inline bool alu_slct_pick_a_s32(uint32_t c) { return (int32_t)c >= 0; }
static inline bool alu_slct_pick_a_f32(uint32_t c, uint64_t mods) {
  (void)mods; /* a flushed subnormal keeps its sign: same answer with and without .ftz */
  return !(c & 0x80000000u) ? !alu_isnan_f32(c) : (c & 0x7fffffffu) == 0;
}

/* ------------------------------------------------------------------------------------------------
 * cvt (PTX 9.7.9.21) between any pair of: u8..u64, s8..s64, b*, f16, bf16, tf32, f32, f64,
 * e4m3, e5m2 (x2 packed forms through alu_cvt_x2). Exact software rounding, every mode:
 *  - float -> float: .rn .rz .rm .rp .rna (tf32: .rna/.rn/.rz), and .rni .rzi .rmi .rpi (round to
 *    integral within the same or another float type); mods PTX_MOD_FTZ, PTX_MOD_SAT (clamp to
 *    [0,1]), PTX_MOD_RELU (negative -> +0, NaN -> canonical NaN), PTX_MOD_SATFINITE (overflow to
 *    max finite, NaN -> NaN).
 *  - float -> integer: .rni .rzi .rmi .rpi (NONE = .rzi), always saturating, NaN -> 0.
 *  - integer -> float: .rn .rz .rm .rp (NONE = .rn).
 *  - integer -> integer: truncate / sign- or zero-extend; PTX_MOD_SAT clamps to the destination.
 * `a` holds the source bits (upper bits beyond the source width are ignored). The result is the
 * destination's bits; signed integer destinations are sign-extended to 64 bits (PTX's rule for a
 * register wider than the type), everything else zero-extended. Unsupported pairs return 0.
 * ---------------------------------------------------------------------------------------------- */
uint64_t alu_cvt(uint64_t a, ptx_type dst, ptx_type src, ptx_rounding rnd, uint64_t mods);
/* Packed conversions: cvt.rn{.relu}{.satfinite}.f16x2.f32 d, a, b (d = {cvt(a) hi, cvt(b) lo}),
 * likewise bf16x2 and e4m3x2/e5m2x2 from two f32; and e4m3x2/e5m2x2 -> f16x2. */
uint32_t alu_cvt_pack_x2(uint32_t a_hi, uint32_t b_lo, ptx_type dst, ptx_rounding rnd, uint64_t mods);
uint32_t alu_cvt_unpack_x2_f16x2(uint16_t a, ptx_type src, uint64_t mods);

/* Hot conversions, inline. */
static inline uint32_t alu_cvt_rn_f32_s32(uint32_t a) { return alu_f32_bits((float)(int32_t)a); }
static inline uint32_t alu_cvt_rn_f32_u32(uint32_t a) { return alu_f32_bits((float)a); }
static inline uint64_t alu_cvt_rn_f64_s32(uint32_t a) { return alu_f64_bits((double)(int32_t)a); }
static inline uint64_t alu_cvt_rn_f64_u32(uint32_t a) { return alu_f64_bits((double)a); }
static inline uint64_t alu_cvt_f64_f32(uint32_t a, uint64_t mods) {
  uint32_t x = (mods & PTX_MOD_FTZ) ? alu_ftz_f32(a) : a;
  return alu_isnan_f32(x) ? ALU_F64_NAN : alu_f64_bits((double)alu_f32(x));
}
/* cvt.rzi.s32.f32: truncate, saturate, NaN -> 0 (the .ftz flag cannot change an integer result). */
static inline uint32_t alu_cvt_rzi_s32_f32(uint32_t a) {
  float f = alu_f32(a);
  return alu_isnan_f32(a) ? 0u
         : f >= 2147483648.0f ? 0x7fffffffu
         : f <= -2147483648.0f ? 0x80000000u : (uint32_t)(int32_t)f;
}
static inline uint32_t alu_cvt_rzi_u32_f32(uint32_t a) {
  float f = alu_f32(a);
  return alu_isnan_f32(a) || f <= 0.0f ? 0u : f >= 4294967296.0f ? 0xffffffffu : (uint32_t)f;
}
uint32_t alu_cvt_rn_f32_f64(uint64_t a, uint64_t mods);
uint32_t alu_cvt_f32_f16(uint16_t a);                       /* exact; NaN -> canonical f32 NaN */
uint16_t alu_cvt_rn_f16_f32(uint32_t a, uint64_t mods);

/* ------------------------------------------------------------------------------------------------
 * f16 / f16x2 / bf16 / bf16x2 arithmetic (PTX 9.7.4). rnd: NONE or RN (the ISA's only choice;
 * RZ/RM/RP also work). mods: PTX_MOD_FTZ (f16 only), PTX_MOD_SAT (f16 only), PTX_MOD_RELU (fma,
 * min/max with PTX_MOD_NAN / XORSIGN|ABS as for f32). Packed forms work element-wise.
 * ---------------------------------------------------------------------------------------------- */
uint16_t alu_add_f16(uint16_t a, uint16_t b, ptx_rounding rnd, uint64_t mods);
uint16_t alu_sub_f16(uint16_t a, uint16_t b, ptx_rounding rnd, uint64_t mods);
uint16_t alu_mul_f16(uint16_t a, uint16_t b, ptx_rounding rnd, uint64_t mods);
uint16_t alu_fma_f16(uint16_t a, uint16_t b, uint16_t c, ptx_rounding rnd, uint64_t mods);
uint16_t alu_neg_f16(uint16_t a, uint64_t mods);
uint16_t alu_abs_f16(uint16_t a, uint64_t mods);
uint16_t alu_min_f16(uint16_t a, uint16_t b, uint64_t mods);
uint16_t alu_max_f16(uint16_t a, uint16_t b, uint64_t mods);
uint32_t alu_add_f16x2(uint32_t a, uint32_t b, ptx_rounding rnd, uint64_t mods);
uint32_t alu_sub_f16x2(uint32_t a, uint32_t b, ptx_rounding rnd, uint64_t mods);
uint32_t alu_mul_f16x2(uint32_t a, uint32_t b, ptx_rounding rnd, uint64_t mods);
uint32_t alu_fma_f16x2(uint32_t a, uint32_t b, uint32_t c, ptx_rounding rnd, uint64_t mods);
uint32_t alu_neg_f16x2(uint32_t a, uint64_t mods);
uint32_t alu_abs_f16x2(uint32_t a, uint64_t mods);
uint32_t alu_min_f16x2(uint32_t a, uint32_t b, uint64_t mods);
uint32_t alu_max_f16x2(uint32_t a, uint32_t b, uint64_t mods);

uint16_t alu_add_bf16(uint16_t a, uint16_t b, ptx_rounding rnd, uint64_t mods);
uint16_t alu_sub_bf16(uint16_t a, uint16_t b, ptx_rounding rnd, uint64_t mods);
uint16_t alu_mul_bf16(uint16_t a, uint16_t b, ptx_rounding rnd, uint64_t mods);
uint16_t alu_fma_bf16(uint16_t a, uint16_t b, uint16_t c, ptx_rounding rnd, uint64_t mods);
uint16_t alu_neg_bf16(uint16_t a, uint64_t mods);
uint16_t alu_abs_bf16(uint16_t a, uint64_t mods);
uint16_t alu_min_bf16(uint16_t a, uint16_t b, uint64_t mods);
uint16_t alu_max_bf16(uint16_t a, uint16_t b, uint64_t mods);
uint32_t alu_add_bf16x2(uint32_t a, uint32_t b, ptx_rounding rnd, uint64_t mods);
uint32_t alu_sub_bf16x2(uint32_t a, uint32_t b, ptx_rounding rnd, uint64_t mods);
uint32_t alu_mul_bf16x2(uint32_t a, uint32_t b, ptx_rounding rnd, uint64_t mods);
uint32_t alu_fma_bf16x2(uint32_t a, uint32_t b, uint32_t c, ptx_rounding rnd, uint64_t mods);
uint32_t alu_neg_bf16x2(uint32_t a, uint64_t mods);
uint32_t alu_abs_bf16x2(uint32_t a, uint64_t mods);
uint32_t alu_min_bf16x2(uint32_t a, uint32_t b, uint64_t mods);
uint32_t alu_max_bf16x2(uint32_t a, uint32_t b, uint64_t mods);

/* ------------------------------------------------------------------------------------------------
 * Integer arithmetic (PTX 9.7.1), inline. Plain add/sub/mul.lo/and/or/xor/not are the engine's own
 * wrap-around C operations on uint32_t/uint64_t.
 * ---------------------------------------------------------------------------------------------- */

/* add.sat.s32 / sub.sat.s32: clamp to [INT32_MIN, INT32_MAX]. */
static inline uint32_t alu_add_sat_s32(uint32_t a, uint32_t b) {
  int64_t r = (int64_t)(int32_t)a + (int32_t)b;
  return (uint32_t)(int32_t)(r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : r);
}
static inline uint32_t alu_sub_sat_s32(uint32_t a, uint32_t b) {
  int64_t r = (int64_t)(int32_t)a - (int32_t)b;
  return (uint32_t)(int32_t)(r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : r);
}

/* mul.hi / mul.wide (16/32/64 bits). */
static inline uint16_t alu_mul_hi_s16(uint16_t a, uint16_t b) {
  return (uint16_t)((uint32_t)((int32_t)(int16_t)a * (int16_t)b) >> 16);
}
static inline uint16_t alu_mul_hi_u16(uint16_t a, uint16_t b) {
  return (uint16_t)(((uint32_t)a * b) >> 16);
}
static inline uint32_t alu_mul_hi_s32(uint32_t a, uint32_t b) {
  return (uint32_t)((uint64_t)((int64_t)(int32_t)a * (int32_t)b) >> 32);
}
static inline uint32_t alu_mul_hi_u32(uint32_t a, uint32_t b) {
  return (uint32_t)(((uint64_t)a * b) >> 32);
}
static inline uint64_t alu_mul_hi_s64(uint64_t a, uint64_t b) {
  return (uint64_t)((unsigned __int128)((__int128)(int64_t)a * (int64_t)b) >> 64);
}
static inline uint64_t alu_mul_hi_u64(uint64_t a, uint64_t b) {
  return (uint64_t)(((unsigned __int128)a * b) >> 64);
}
static inline uint32_t alu_mul_wide_s16(uint16_t a, uint16_t b) {
  return (uint32_t)((int32_t)(int16_t)a * (int16_t)b);
}
static inline uint32_t alu_mul_wide_u16(uint16_t a, uint16_t b) { return (uint32_t)a * b; }
static inline uint64_t alu_mul_wide_s32(uint32_t a, uint32_t b) {
  return (uint64_t)((int64_t)(int32_t)a * (int32_t)b);
}
static inline uint64_t alu_mul_wide_u32(uint32_t a, uint32_t b) { return (uint64_t)a * b; }

/* mad.hi.sat.s32: d = sat(hi(a*b) + c), the only saturating mad. mad.lo/.hi/.wide otherwise are
 * mul.lo/hi/wide followed by a wrap-around add. */
static inline uint32_t alu_mad_hi_sat_s32(uint32_t a, uint32_t b, uint32_t c) {
  return alu_add_sat_s32(alu_mul_hi_s32(a, b), c);
}

/* mul24 / mad24 (PTX 9.7.1.8-9): operands are the low 24 bits (sign-extended for .s32); .lo is
 * bits 31..0 of the 48-bit product, .hi bits 47..16. mad24.hi.sat.s32 saturates the add. */
static inline uint32_t alu_mul24_lo_s32(uint32_t a, uint32_t b) {
  int64_t p = (int64_t)(((int32_t)(a << 8)) >> 8) * (int64_t)(((int32_t)(b << 8)) >> 8);
  return (uint32_t)(uint64_t)p;
}
static inline uint32_t alu_mul24_hi_s32(uint32_t a, uint32_t b) {
  int64_t p = (int64_t)(((int32_t)(a << 8)) >> 8) * (int64_t)(((int32_t)(b << 8)) >> 8);
  return (uint32_t)((uint64_t)p >> 16);
}
static inline uint32_t alu_mul24_lo_u32(uint32_t a, uint32_t b) {
  return (uint32_t)((uint64_t)(a & 0xffffffu) * (b & 0xffffffu));
}
static inline uint32_t alu_mul24_hi_u32(uint32_t a, uint32_t b) {
  return (uint32_t)(((uint64_t)(a & 0xffffffu) * (b & 0xffffffu)) >> 16);
}

/* sad: d = c + |a - b| (PTX 9.7.1.10). */
static inline uint32_t alu_sad_s32(uint32_t a, uint32_t b, uint32_t c) {
  int32_t x = (int32_t)a, y = (int32_t)b;
  return c + (x < y ? (uint32_t)y - (uint32_t)x : (uint32_t)x - (uint32_t)y);
}
static inline uint32_t alu_sad_u32(uint32_t a, uint32_t b, uint32_t c) {
  return c + (a < b ? b - a : a - b);
}
static inline uint64_t alu_sad_s64(uint64_t a, uint64_t b, uint64_t c) {
  int64_t x = (int64_t)a, y = (int64_t)b;
  return c + (x < y ? b - a : a - b);
}
static inline uint64_t alu_sad_u64(uint64_t a, uint64_t b, uint64_t c) {
  return c + (a < b ? b - a : a - b);
}

/* Carry chains (PTX 9.7.2). The carry flag CC.CF is an explicit value (0 or 1):
 *   add.cc  = alu_addc_*(a, b, 0, &cf)        addc{.cc} = alu_addc_*(a, b, cf, &cf)
 *   sub.cc  = alu_subc_*(a, b, 0, &cf)        subc{.cc} = alu_subc_*(a, b, cf, &cf)
 *   mad.lo.cc = alu_madc_lo_*(a, b, c, 0, &cf) madc.lo{.cc} = alu_madc_lo_*(a, b, c, cf, &cf) (.hi alike)
 * For subtraction CF is a borrow: d = a - (b + cin), cout = 1 when the exact result is negative
 * (unsigned view). Without .cc the caller discards *cout. */
static inline uint32_t alu_addc_u32(uint32_t a, uint32_t b, uint32_t cin, uint32_t *cout) {
  uint64_t s = (uint64_t)a + b + (cin & 1u);
  *cout = (uint32_t)(s >> 32);
  return (uint32_t)s;
}
static inline uint32_t alu_subc_u32(uint32_t a, uint32_t b, uint32_t cin, uint32_t *cout) {
  uint64_t s = (uint64_t)a - b - (cin & 1u);
  *cout = (uint32_t)(s >> 63);
  return (uint32_t)s;
}
static inline uint64_t alu_addc_u64(uint64_t a, uint64_t b, uint32_t cin, uint32_t *cout) {
  unsigned __int128 s = (unsigned __int128)a + b + (cin & 1u);
  *cout = (uint32_t)(s >> 64);
  return (uint64_t)s;
}
static inline uint64_t alu_subc_u64(uint64_t a, uint64_t b, uint32_t cin, uint32_t *cout) {
  unsigned __int128 s = (unsigned __int128)a - b - (cin & 1u);
  *cout = (uint32_t)(s >> 127);
  return (uint64_t)s;
}
/* madc: (lo|hi)(a*b) + c + cin with carry out of that addition; signed .s32/.s64 forms take the
 * hi half of the signed product (use the _s variants). */
static inline uint32_t alu_madc_lo_u32(uint32_t a, uint32_t b, uint32_t c, uint32_t cin, uint32_t *cout) {
  return alu_addc_u32(a * b, c, cin, cout);
}
static inline uint32_t alu_madc_hi_u32(uint32_t a, uint32_t b, uint32_t c, uint32_t cin, uint32_t *cout) {
  return alu_addc_u32(alu_mul_hi_u32(a, b), c, cin, cout);
}
static inline uint32_t alu_madc_hi_s32(uint32_t a, uint32_t b, uint32_t c, uint32_t cin, uint32_t *cout) {
  return alu_addc_u32(alu_mul_hi_s32(a, b), c, cin, cout);
}
static inline uint64_t alu_madc_lo_u64(uint64_t a, uint64_t b, uint64_t c, uint32_t cin, uint32_t *cout) {
  return alu_addc_u64(a * b, c, cin, cout);
}
static inline uint64_t alu_madc_hi_u64(uint64_t a, uint64_t b, uint64_t c, uint32_t cin, uint32_t *cout) {
  return alu_addc_u64(alu_mul_hi_u64(a, b), c, cin, cout);
}
static inline uint64_t alu_madc_hi_s64(uint64_t a, uint64_t b, uint64_t c, uint32_t cin, uint32_t *cout) {
  return alu_addc_u64(alu_mul_hi_s64(a, b), c, cin, cout);
}

/* div / rem. Division by zero is defined as the hardware's software sequence yields it:
 *   div.u: x/0 = all ones;            rem.u: x%0 = x
 *   div.s: x/0 = -1 for x >= 0, 1 for x < 0;   rem.s: x%0 = x
 *   div.s: INT_MIN/-1 = INT_MIN;      rem.s: INT_MIN%-1 = 0
 * 8/16-bit forms: extend to 32 bits (sign or zero), call the 32-bit form, truncate. */
static inline uint32_t alu_div_u32(uint32_t a, uint32_t b) { return b ? a / b : 0xffffffffu; }
static inline uint32_t alu_rem_u32(uint32_t a, uint32_t b) { return b ? a % b : a; }
static inline uint32_t alu_div_s32(uint32_t a, uint32_t b) {
  int32_t x = (int32_t)a, y = (int32_t)b;
  return y == 0 ? (x < 0 ? 1u : 0xffffffffu)
         : (y == -1 ? 0u - a : (uint32_t)(x / y));
}
static inline uint32_t alu_rem_s32(uint32_t a, uint32_t b) {
  int32_t x = (int32_t)a, y = (int32_t)b;
  return y == 0 ? a : (y == -1 ? 0u : (uint32_t)(x % y));
}
static inline uint64_t alu_div_u64(uint64_t a, uint64_t b) { return b ? a / b : ~0ull; }
static inline uint64_t alu_rem_u64(uint64_t a, uint64_t b) { return b ? a % b : a; }
static inline uint64_t alu_div_s64(uint64_t a, uint64_t b) {
  int64_t x = (int64_t)a, y = (int64_t)b;
  return y == 0 ? (x < 0 ? 1ull : ~0ull) : (y == -1 ? 0ull - a : (uint64_t)(x / y));
}
static inline uint64_t alu_rem_s64(uint64_t a, uint64_t b) {
  int64_t x = (int64_t)a, y = (int64_t)b;
  return y == 0 ? a : (y == -1 ? 0ull : (uint64_t)(x % y));
}

/* min / max / abs / neg. abs.s32(INT_MIN) = INT_MIN (wraps). */
static inline uint32_t alu_min_s32(uint32_t a, uint32_t b) { return (int32_t)a < (int32_t)b ? a : b; }
static inline uint32_t alu_max_s32(uint32_t a, uint32_t b) { return (int32_t)a > (int32_t)b ? a : b; }
static inline uint32_t alu_min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }
static inline uint32_t alu_max_u32(uint32_t a, uint32_t b) { return a > b ? a : b; }
static inline uint64_t alu_min_s64(uint64_t a, uint64_t b) { return (int64_t)a < (int64_t)b ? a : b; }
static inline uint64_t alu_max_s64(uint64_t a, uint64_t b) { return (int64_t)a > (int64_t)b ? a : b; }
static inline uint64_t alu_min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static inline uint64_t alu_max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint32_t alu_abs_s32(uint32_t a) { return (int32_t)a < 0 ? 0u - a : a; }
static inline uint64_t alu_abs_s64(uint64_t a) { return (int64_t)a < 0 ? 0ull - a : a; }
/* min.relu.s32 / max.relu.s32 (sm_90): clamp the result at 0. */
static inline uint32_t alu_relu_s32(uint32_t a) { return (int32_t)a < 0 ? 0u : a; }

/* ------------------------------------------------------------------------------------------------
 * Bit manipulation (PTX 9.7.1.13-22, 9.7.7, 9.7.8), inline.
 * ---------------------------------------------------------------------------------------------- */

static inline uint32_t alu_popc_b32(uint32_t a) { return (uint32_t)__builtin_popcount(a); }
static inline uint32_t alu_popc_b64(uint64_t a) { return (uint32_t)__builtin_popcountll(a); }
static inline uint32_t alu_clz_b32(uint32_t a) { return a ? (uint32_t)__builtin_clz(a) : 32u; }
static inline uint32_t alu_clz_b64(uint64_t a) { return a ? (uint32_t)__builtin_clzll(a) : 64u; }

/* bfind: bit position of the most significant non-sign bit; 0xffffffff when none. With .shiftamt
 * the result is the left-shift amount that brings that bit to the top (width-1-pos); none stays
 * 0xffffffff. */
static inline uint32_t alu_bfind_u32(uint32_t a, bool shiftamt) {
  return a == 0 ? 0xffffffffu : shiftamt ? (uint32_t)__builtin_clz(a) : 31u - (uint32_t)__builtin_clz(a);
}
static inline uint32_t alu_bfind_s32(uint32_t a, bool shiftamt) {
  return alu_bfind_u32((int32_t)a < 0 ? ~a : a, shiftamt);
}
static inline uint32_t alu_bfind_u64(uint64_t a, bool shiftamt) {
  return a == 0 ? 0xffffffffu
         : shiftamt ? (uint32_t)__builtin_clzll(a) : 63u - (uint32_t)__builtin_clzll(a);
}
static inline uint32_t alu_bfind_s64(uint64_t a, bool shiftamt) {
  return alu_bfind_u64((int64_t)a < 0 ? ~a : a, shiftamt);
}

uint32_t alu_brev_b32(uint32_t a);
uint64_t alu_brev_b64(uint64_t a);

/* bfe: extract len bits at pos (both taken from bits 7..0 of b and c); pos >= width or len == 0
 * give 0 (.u) or the sign fill (.s: sign of the last available bit), per the ISA's pseudocode. */
uint32_t alu_bfe_u32(uint32_t a, uint32_t pos, uint32_t len);
uint32_t alu_bfe_s32(uint32_t a, uint32_t pos, uint32_t len);
uint64_t alu_bfe_u64(uint64_t a, uint32_t pos, uint32_t len);
uint64_t alu_bfe_s64(uint64_t a, uint32_t pos, uint32_t len);
/* bfi: insert the low len bits of a into b at pos (pos, len from bits 7..0). */
uint32_t alu_bfi_b32(uint32_t a, uint32_t b, uint32_t pos, uint32_t len);
uint64_t alu_bfi_b64(uint64_t a, uint64_t b, uint32_t pos, uint32_t len);

/* prmt.b32{.mode} d, a, b, c (all modes of ptx_prmt_mode). */
uint32_t alu_prmt_b32(uint32_t a, uint32_t b, uint32_t c, ptx_prmt_mode mode);

/* shl / shr: amounts >= the width clamp to the width (shl/shr.u -> 0, shr.s -> sign fill). */
static inline uint32_t alu_shl_b32(uint32_t a, uint32_t n) { return n >= 32 ? 0u : a << n; }
static inline uint32_t alu_shr_u32(uint32_t a, uint32_t n) { return n >= 32 ? 0u : a >> n; }
static inline uint32_t alu_shr_s32(uint32_t a, uint32_t n) {
  return (uint32_t)((int32_t)a >> (n >= 32 ? 31 : n));
}
static inline uint64_t alu_shl_b64(uint64_t a, uint32_t n) { return n >= 64 ? 0ull : a << n; }
static inline uint64_t alu_shr_u64(uint64_t a, uint32_t n) { return n >= 64 ? 0ull : a >> n; }
static inline uint64_t alu_shr_s64(uint64_t a, uint32_t n) {
  return (uint64_t)((int64_t)a >> (n >= 64 ? 63 : n));
}
static inline uint16_t alu_shl_b16(uint16_t a, uint32_t n) { return (uint16_t)(n >= 16 ? 0u : (uint32_t)a << n); }
static inline uint16_t alu_shr_u16(uint16_t a, uint32_t n) { return (uint16_t)(n >= 16 ? 0u : (uint32_t)a >> n); }
static inline uint16_t alu_shr_s16(uint16_t a, uint32_t n) {
  return (uint16_t)((int32_t)(int16_t)a >> (n >= 16 ? 15 : n));
}

/* shf.l / shf.r .b32 d, a, b, c: funnel shift of the 64-bit {b:a} by c; .clamp: min(c, 32),
 * .wrap: c & 31 (pass wrap=false for .clamp). */
static inline uint32_t alu_shf_l_b32(uint32_t a, uint32_t b, uint32_t c, bool wrap) {
  uint32_t n = wrap ? (c & 31u) : (c > 32u ? 32u : c);
  return (uint32_t)((((uint64_t)b << 32 | a) << n) >> 32);
}
static inline uint32_t alu_shf_r_b32(uint32_t a, uint32_t b, uint32_t c, bool wrap) {
  uint32_t n = wrap ? (c & 31u) : (c > 32u ? 32u : c);
  return (uint32_t)(((uint64_t)b << 32 | a) >> n);
}

/* bmsk.b32 d, a, b: mask of b bits starting at bit a; .clamp: positions/widths saturate at 32,
 * .wrap: a and b taken mod 32. */
uint32_t alu_bmsk_b32(uint32_t a, uint32_t b, bool wrap);
/* szext.{clamp,wrap}.{s32,u32} d, a, b: sign- or zero-extend a from its low b bits. */
uint32_t alu_szext_b32(uint32_t a, uint32_t b, bool is_signed, bool wrap);

/* lop3.b32 d, a, b, c, immLut: any 3-input boolean function. */
static inline uint32_t alu_lop3_b32(uint32_t a, uint32_t b, uint32_t c, uint32_t lut) {
  uint32_t r = 0;
  r |= (lut & 0x01u) ? (~a & ~b & ~c) : 0u;
  r |= (lut & 0x02u) ? (~a & ~b & c) : 0u;
  r |= (lut & 0x04u) ? (~a & b & ~c) : 0u;
  r |= (lut & 0x08u) ? (~a & b & c) : 0u;
  r |= (lut & 0x10u) ? (a & ~b & ~c) : 0u;
  r |= (lut & 0x20u) ? (a & ~b & c) : 0u;
  r |= (lut & 0x40u) ? (a & b & ~c) : 0u;
  r |= (lut & 0x80u) ? (a & b & c) : 0u;
  return r;
}

/* dp4a.atype.btype d, a, b, c: c + sum of 4 byte products; dp2a.{lo,hi}: c + two 16x8 products
 * using bytes 0-1 (lo) or 2-3 (hi) of b. Signedness per operand; the sum wraps in 32 bits. */
uint32_t alu_dp4a(uint32_t a, uint32_t b, uint32_t c, bool a_signed, bool b_signed);
uint32_t alu_dp2a(uint32_t a, uint32_t b, uint32_t c, bool a_signed, bool b_signed, bool hi);

/* ------------------------------------------------------------------------------------------------
 * Video instructions (PTX 9.7.13), the forms real code uses.
 * ---------------------------------------------------------------------------------------------- */
/* vabsdiff4/vadd4/vsub4/vmin4/vmax4 .u32.u32.u32 (or signed) d, a, b, c with secondary op
 * sec: PTX_VIDEO_NONE -> per-byte results merged with c under mask (all 4 bytes),
 * PTX_VIDEO_ADD -> c + sum of the 4 byte results, MIN/MAX -> per-byte min/max with c.
 * sat: saturate each byte result to the destination range (not with .add). */
typedef enum alu_vop { ALU_VABSDIFF = 0, ALU_VADD, ALU_VSUB, ALU_VMIN, ALU_VMAX } alu_vop;
uint32_t alu_video4(alu_vop op, uint32_t a, uint32_t b, uint32_t c, bool a_signed, bool b_signed,
                    bool sat, ptx_video_op sec);
/* Scalar video (vadd, vsub, vabsdiff, vmin, vmax) on full 32-bit operands (no byte/half selectors):
 * d = sec(op(a, b), c), computed in 34-bit precision, .sat clamps to the destination type. */
uint32_t alu_video1(alu_vop op, uint32_t a, uint32_t b, uint32_t c, bool a_signed, bool b_signed,
                    bool d_signed, bool sat, ptx_video_op sec);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_ALU_H */
