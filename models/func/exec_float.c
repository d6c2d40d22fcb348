/* exec_float — floating-point arithmetic (PTX ISA 9.7.3 f32/f64, 9.7.4 half precision),
 * comparison and selection (9.7.5: setp, set, slct, testp) and copysign.
 *
 * The default rounding (.rn) of f32/f64 runs inline from alu.h in vectorised lane loops, with the
 * modifier set (.ftz, .sat) fixed per handler at load time. Directed rounding goes through alu's
 * lane-array functions (one host rounding-mode switch per warp instruction). Transcendentals and
 * half precision call alu per lane. fma.rn.f32 has a second handler compiled for hosts with FMA
 * instructions, chosen at load time when the host has them. */
#include "alu.h"
#include "func_internal.h"

#define H(name) static void name(fx_warp *w, const fx_insn *in, uint32_t m)

/* ---- f32 / f64 arithmetic, default rounding ----------------------------------------------------- */

#define F32BIN(name, EXPR)                                                                     \
  H(name) {                                                                                    \
    const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]);                         \
    uint32_t r[32];                                                                            \
    for (unsigned i = 0; i < 32; i++) {                                                        \
      uint32_t a = A[i], b = B[i];                                                             \
      r[i] = (EXPR);                                                                           \
    }                                                                                          \
    fx_put32(FX_R32(w, in->o[0]), r, m);                                                       \
  }
#define F32TER(name, EXPR)                                                                     \
  H(name) {                                                                                    \
    const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]), *C = FX_R32(w, in->o[3]); \
    uint32_t r[32];                                                                            \
    for (unsigned i = 0; i < 32; i++) {                                                        \
      uint32_t a = A[i], b = B[i], c = C[i];                                                   \
      r[i] = (EXPR);                                                                           \
    }                                                                                          \
    fx_put32(FX_R32(w, in->o[0]), r, m);                                                       \
  }
#define F32UN(name, EXPR)                                                                      \
  H(name) {                                                                                    \
    const uint32_t *A = FX_R32(w, in->o[1]);                                                   \
    uint32_t r[32];                                                                            \
    for (unsigned i = 0; i < 32; i++) {                                                        \
      uint32_t a = A[i];                                                                       \
      r[i] = (EXPR);                                                                           \
    }                                                                                          \
    fx_put32(FX_R32(w, in->o[0]), r, m);                                                       \
  }
#define F64BIN(name, EXPR)                                                                     \
  H(name) {                                                                                    \
    const uint64_t *A = FX_R64(w, in->o[1]), *B = FX_R64(w, in->o[2]);                         \
    uint64_t r[32];                                                                            \
    for (unsigned i = 0; i < 32; i++) {                                                        \
      uint64_t a = A[i], b = B[i];                                                             \
      r[i] = (EXPR);                                                                           \
    }                                                                                          \
    fx_put64(FX_R64(w, in->o[0]), r, m);                                                       \
  }
#define F64TER(name, EXPR)                                                                     \
  H(name) {                                                                                    \
    const uint64_t *A = FX_R64(w, in->o[1]), *B = FX_R64(w, in->o[2]), *C = FX_R64(w, in->o[3]); \
    uint64_t r[32];                                                                            \
    for (unsigned i = 0; i < 32; i++) {                                                        \
      uint64_t a = A[i], b = B[i], c = C[i];                                                   \
      r[i] = (EXPR);                                                                           \
    }                                                                                          \
    fx_put64(FX_R64(w, in->o[0]), r, m);                                                       \
  }
#define F64UN(name, EXPR)                                                                      \
  H(name) {                                                                                    \
    const uint64_t *A = FX_R64(w, in->o[1]);                                                   \
    uint64_t r[32];                                                                            \
    for (unsigned i = 0; i < 32; i++) {                                                        \
      uint64_t a = A[i];                                                                       \
      r[i] = (EXPR);                                                                           \
    }                                                                                          \
    fx_put64(FX_R64(w, in->o[0]), r, m);                                                       \
  }

/* four modifier combinations per f32 operation: none, .ftz, .sat, .ftz.sat */
#define F32BIN4(op)                                                                            \
  F32BIN(op##_f32, alu_##op##_f32(a, b, 0))                                                    \
  F32BIN(op##_f32_ftz, alu_##op##_f32(a, b, PTX_MOD_FTZ))                                      \
  F32BIN(op##_f32_sat, alu_##op##_f32(a, b, PTX_MOD_SAT))                                      \
  F32BIN(op##_f32_ftz_sat, alu_##op##_f32(a, b, PTX_MOD_FTZ | PTX_MOD_SAT))
F32BIN4(add)
F32BIN4(sub)
F32BIN4(mul)
F32TER(fma_f32, alu_fma_f32(a, b, c, 0))
F32TER(fma_f32_ftz, alu_fma_f32(a, b, c, PTX_MOD_FTZ))
F32TER(fma_f32_sat, alu_fma_f32(a, b, c, PTX_MOD_SAT))
F32TER(fma_f32_ftz_sat, alu_fma_f32(a, b, c, PTX_MOD_FTZ | PTX_MOD_SAT))
F32BIN(div_rn_f32, alu_div_f32(a, b, in->mods))
F32UN(sqrt_rn_f32, alu_sqrt_f32(a, in->mods))
F32UN(rcp_rn_f32, alu_rcp_f32(a, in->mods))

#if defined(__x86_64__) && defined(__GNUC__)
/* The same fma.rn.f32 loop compiled for hosts with FMA3/AVX2: one vfmadd per 8 lanes instead of
 * a libm fmaf call per lane (SGEMM's inner loop is this instruction). */
#define FX_HAVE_FMA_VARIANT 1
__attribute__((target("avx2,fma"))) static void fma_f32_hw(fx_warp *w, const fx_insn *in, uint32_t m) {
  const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]), *C = FX_R32(w, in->o[3]);
  uint32_t r[32];
  for (unsigned i = 0; i < 32; i++) r[i] = alu_f32_finish(__builtin_fmaf(alu_f32(A[i]), alu_f32(B[i]), alu_f32(C[i])), 0);
  uint32_t *d = FX_R32(w, in->o[0]);
  if (m == FX_FULL) {
    memcpy(d, r, sizeof r);
  } else {
    for (unsigned i = 0; i < 32; i++) {
      uint32_t sel = 0u - ((m >> i) & 1u);
      d[i] = (r[i] & sel) | (d[i] & ~sel);
    }
  }
}
static bool host_has_fma(void) {
#if defined(SIMTVP_NO_HOST_SIMD) /* (SIMTVP_HOST_SIMD=OFF: the portable handlers only) */
  return false;
#else
  __builtin_cpu_init();
  return __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
#endif
}
#endif

F64BIN(add_f64, alu_add_f64(a, b))
F64BIN(sub_f64, alu_sub_f64(a, b))
F64BIN(mul_f64, alu_mul_f64(a, b))
F64TER(fma_f64, alu_fma_f64(a, b, c))
F64BIN(div_rn_f64, alu_div_f64(a, b))
F64UN(sqrt_rn_f64, alu_sqrt_f64(a))
F64UN(rcp_rn_f64, alu_rcp_f64(a))

/* directed rounding through alu's lane-array functions */
H(f32_rnd2) {
  uint32_t r[32];
  const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]);
  ptx_rounding rnd = (ptx_rounding)in->aux;
  switch (in->aux2) {
  case PTX_OP_ADD: alu_add_f32_n(r, A, B, 32, rnd, in->mods); break;
  case PTX_OP_SUB: alu_sub_f32_n(r, A, B, 32, rnd, in->mods); break;
  case PTX_OP_MUL: alu_mul_f32_n(r, A, B, 32, rnd, in->mods); break;
  default: alu_div_f32_n(r, A, B, 32, rnd, in->mods); break;
  }
  fx_put32(FX_R32(w, in->o[0]), r, m);
}
H(f32_rnd1) {
  uint32_t r[32];
  const uint32_t *A = FX_R32(w, in->o[1]);
  if (in->aux2 == PTX_OP_SQRT) alu_sqrt_f32_n(r, A, 32, (ptx_rounding)in->aux, in->mods);
  else alu_rcp_f32_n(r, A, 32, (ptx_rounding)in->aux, in->mods);
  fx_put32(FX_R32(w, in->o[0]), r, m);
}
H(f32_rnd3) {
  uint32_t r[32];
  alu_fma_f32_n(r, FX_R32(w, in->o[1]), FX_R32(w, in->o[2]), FX_R32(w, in->o[3]), 32,
                (ptx_rounding)in->aux, in->mods);
  fx_put32(FX_R32(w, in->o[0]), r, m);
}
H(f64_rnd2) {
  uint64_t r[32];
  const uint64_t *A = FX_R64(w, in->o[1]), *B = FX_R64(w, in->o[2]);
  ptx_rounding rnd = (ptx_rounding)in->aux;
  switch (in->aux2) {
  case PTX_OP_ADD: alu_add_f64_n(r, A, B, 32, rnd); break;
  case PTX_OP_SUB: alu_sub_f64_n(r, A, B, 32, rnd); break;
  case PTX_OP_MUL: alu_mul_f64_n(r, A, B, 32, rnd); break;
  default: alu_div_f64_n(r, A, B, 32, rnd); break;
  }
  fx_put64(FX_R64(w, in->o[0]), r, m);
}
H(f64_rnd1) {
  uint64_t r[32];
  const uint64_t *A = FX_R64(w, in->o[1]);
  if (in->aux2 == PTX_OP_SQRT) alu_sqrt_f64_n(r, A, 32, (ptx_rounding)in->aux);
  else alu_rcp_f64_n(r, A, 32, (ptx_rounding)in->aux);
  fx_put64(FX_R64(w, in->o[0]), r, m);
}
H(f64_rnd3) {
  uint64_t r[32];
  alu_fma_f64_n(r, FX_R64(w, in->o[1]), FX_R64(w, in->o[2]), FX_R64(w, in->o[3]), 32,
                (ptx_rounding)in->aux);
  fx_put64(FX_R64(w, in->o[0]), r, m);
}

/* approximate / special functions, per lane through alu */
#define LANES32(name, EXPR)                                                                    \
  H(name) {                                                                                    \
    const uint32_t *A = FX_R32(w, in->o[1]);                                                   \
    uint32_t *D = FX_R32(w, in->o[0]);                                                         \
    FX_FOR_LANES(i, m) {                                                                       \
      uint32_t a = A[i];                                                                       \
      D[i] = (EXPR);                                                                           \
    }                                                                                          \
  }
#define LANES32B(name, EXPR)                                                                   \
  H(name) {                                                                                    \
    const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]);                         \
    uint32_t *D = FX_R32(w, in->o[0]);                                                         \
    FX_FOR_LANES(i, m) {                                                                       \
      uint32_t a = A[i], b = B[i];                                                             \
      D[i] = (EXPR);                                                                           \
    }                                                                                          \
  }
#define LANES32C(name, EXPR)                                                                   \
  H(name) {                                                                                    \
    const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]), *C = FX_R32(w, in->o[3]); \
    uint32_t *D = FX_R32(w, in->o[0]);                                                         \
    FX_FOR_LANES(i, m) {                                                                       \
      uint32_t a = A[i], b = B[i], c = C[i];                                                   \
      D[i] = (EXPR);                                                                           \
    }                                                                                          \
  }
#define LANES64(name, EXPR)                                                                    \
  H(name) {                                                                                    \
    const uint64_t *A = FX_R64(w, in->o[1]);                                                   \
    uint64_t *D = FX_R64(w, in->o[0]);                                                         \
    FX_FOR_LANES(i, m) {                                                                       \
      uint64_t a = A[i];                                                                       \
      D[i] = (EXPR);                                                                           \
    }                                                                                          \
  }
#define LANES64B(name, EXPR)                                                                   \
  H(name) {                                                                                    \
    const uint64_t *A = FX_R64(w, in->o[1]), *B = FX_R64(w, in->o[2]);                         \
    uint64_t *D = FX_R64(w, in->o[0]);                                                         \
    FX_FOR_LANES(i, m) {                                                                       \
      uint64_t a = A[i], b = B[i];                                                             \
      D[i] = (EXPR);                                                                           \
    }                                                                                          \
  }

LANES32B(div_approx_f32, alu_div_approx_f32(a, b, in->mods))
LANES32B(div_full_f32, alu_div_full_f32(a, b, in->mods))
LANES32(rcp_approx_f32, alu_rcp_approx_f32(a, in->mods))
LANES32(sqrt_approx_f32, alu_sqrt_approx_f32(a, in->mods))
LANES32(rsqrt_approx_f32, alu_rsqrt_approx_f32(a, in->mods))
LANES32(sin_approx_f32, alu_sin_approx_f32(a, in->mods))
LANES32(cos_approx_f32, alu_cos_approx_f32(a, in->mods))
LANES32(ex2_approx_f32, alu_ex2_approx_f32(a, in->mods))
LANES32(lg2_approx_f32, alu_lg2_approx_f32(a, in->mods))
LANES32(tanh_approx_f32, alu_tanh_approx_f32(a))
LANES32(ex2_approx_f16, alu_ex2_approx_f16((uint16_t)a))
LANES32(tanh_approx_f16, alu_tanh_approx_f16((uint16_t)a))
LANES32(ex2_approx_f16x2, (uint32_t)alu_ex2_approx_f16((uint16_t)a) |
                              ((uint32_t)alu_ex2_approx_f16((uint16_t)(a >> 16)) << 16))
LANES32(tanh_approx_f16x2, (uint32_t)alu_tanh_approx_f16((uint16_t)a) |
                               ((uint32_t)alu_tanh_approx_f16((uint16_t)(a >> 16)) << 16))
LANES64(rcp_approx_ftz_f64, alu_rcp_approx_ftz_f64(a))
LANES64(rsqrt_approx_f64, alu_rsqrt_approx_f64(a, in->mods))

F32UN(abs_f32, alu_abs_f32(a, in->mods))
F32UN(neg_f32, alu_neg_f32(a, in->mods))
F64UN(abs_f64, alu_abs_f64(a))
F64UN(neg_f64, alu_neg_f64(a))
LANES32B(min_f32, alu_min_f32(a, b, in->mods))
LANES32B(max_f32, alu_max_f32(a, b, in->mods))
LANES64B(min_f64, alu_min_f64(a, b))
LANES64B(max_f64, alu_max_f64(a, b))
F32BIN(copysign_f32, alu_copysign_f32(a, b))
F64BIN(copysign_f64, alu_copysign_f64(a, b))

/* half precision: aux = rounding, mods as given */
#define R ((ptx_rounding)in->aux)
LANES32B(add_f16, alu_add_f16((uint16_t)a, (uint16_t)b, R, in->mods))
LANES32B(sub_f16, alu_sub_f16((uint16_t)a, (uint16_t)b, R, in->mods))
LANES32B(mul_f16, alu_mul_f16((uint16_t)a, (uint16_t)b, R, in->mods))
LANES32C(fma_f16, alu_fma_f16((uint16_t)a, (uint16_t)b, (uint16_t)c, R, in->mods))
LANES32(neg_f16, alu_neg_f16((uint16_t)a, in->mods))
LANES32(abs_f16, alu_abs_f16((uint16_t)a, in->mods))
LANES32B(min_f16, alu_min_f16((uint16_t)a, (uint16_t)b, in->mods))
LANES32B(max_f16, alu_max_f16((uint16_t)a, (uint16_t)b, in->mods))
LANES32B(add_f16x2, alu_add_f16x2(a, b, R, in->mods))
LANES32B(sub_f16x2, alu_sub_f16x2(a, b, R, in->mods))
LANES32B(mul_f16x2, alu_mul_f16x2(a, b, R, in->mods))
LANES32C(fma_f16x2, alu_fma_f16x2(a, b, c, R, in->mods))
LANES32(neg_f16x2, alu_neg_f16x2(a, in->mods))
LANES32(abs_f16x2, alu_abs_f16x2(a, in->mods))
LANES32B(min_f16x2, alu_min_f16x2(a, b, in->mods))
LANES32B(max_f16x2, alu_max_f16x2(a, b, in->mods))
LANES32B(add_bf16, alu_add_bf16((uint16_t)a, (uint16_t)b, R, in->mods))
LANES32B(sub_bf16, alu_sub_bf16((uint16_t)a, (uint16_t)b, R, in->mods))
LANES32B(mul_bf16, alu_mul_bf16((uint16_t)a, (uint16_t)b, R, in->mods))
LANES32C(fma_bf16, alu_fma_bf16((uint16_t)a, (uint16_t)b, (uint16_t)c, R, in->mods))
LANES32(neg_bf16, alu_neg_bf16((uint16_t)a, in->mods))
LANES32(abs_bf16, alu_abs_bf16((uint16_t)a, in->mods))
LANES32B(min_bf16, alu_min_bf16((uint16_t)a, (uint16_t)b, in->mods))
LANES32B(max_bf16, alu_max_bf16((uint16_t)a, (uint16_t)b, in->mods))
LANES32B(add_bf16x2, alu_add_bf16x2(a, b, R, in->mods))
LANES32B(sub_bf16x2, alu_sub_bf16x2(a, b, R, in->mods))
LANES32B(mul_bf16x2, alu_mul_bf16x2(a, b, R, in->mods))
LANES32C(fma_bf16x2, alu_fma_bf16x2(a, b, c, R, in->mods))
LANES32(neg_bf16x2, alu_neg_bf16x2(a, in->mods))
LANES32(abs_bf16x2, alu_abs_bf16x2(a, in->mods))
LANES32B(min_bf16x2, alu_min_bf16x2(a, b, in->mods))
LANES32B(max_bf16x2, alu_max_bf16x2(a, b, in->mods))
#undef R

/* ---- setp / set / slct / testp -------------------------------------------------------------------- */

/* flags: 1 = 64-bit operands, 2 = pair destination in o[3], 4 = combine with predicate o[4]
 * (aux2 = its negation mask, aux = ptx_bool_op) */
static inline void setp_write(fx_warp *w, const fx_insn *in, uint32_t r, uint32_t m) {
  uint32_t q = ~r;
  if (in->flags & 4) {
    uint32_t c = *FX_P(w, in->o[4]) ^ in->aux2;
    switch (in->aux) {
    case PTX_BOOL_AND: r &= c, q &= c; break;
    case PTX_BOOL_OR: r |= c, q |= c; break;
    default: r ^= c, q ^= c; break;
    }
  }
  fx_putp(FX_P(w, in->o[0]), r, m);
  if (in->flags & 2) fx_putp(FX_P(w, in->o[3]), q, m);
}

#define SETP32(name, EXPR)                                                                     \
  H(name) {                                                                                    \
    const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]);                         \
    int32_t t[32];                                                                             \
    for (unsigned i = 0; i < 32; i++) {                                                        \
      uint32_t a = A[i], b = B[i];                                                             \
      t[i] = -(int32_t)(EXPR);                                                                 \
    }                                                                                          \
    setp_write(w, in, fx_lane_mask(t), m);                                                     \
  }
#define SETP64(name, EXPR)                                                                     \
  H(name) {                                                                                    \
    const uint64_t *A = FX_R64(w, in->o[1]), *B = FX_R64(w, in->o[2]);                         \
    int32_t t[32];                                                                             \
    for (unsigned i = 0; i < 32; i++) {                                                        \
      uint64_t a = A[i], b = B[i];                                                             \
      t[i] = -(int32_t)(EXPR);                                                                 \
    }                                                                                          \
    setp_write(w, in, fx_lane_mask(t), m);                                                     \
  }
#define SETP_INT(sfx, T, MAC, ST, UT)                                                          \
  MAC(setp_eq_##sfx, a == b)                                                                   \
  MAC(setp_ne_##sfx, a != b)                                                                   \
  MAC(setp_lt_s##sfx, (ST)a < (ST)b)                                                           \
  MAC(setp_le_s##sfx, (ST)a <= (ST)b)                                                          \
  MAC(setp_gt_s##sfx, (ST)a > (ST)b)                                                           \
  MAC(setp_ge_s##sfx, (ST)a >= (ST)b)                                                          \
  MAC(setp_lt_u##sfx, (UT)a < (UT)b)                                                           \
  MAC(setp_le_u##sfx, (UT)a <= (UT)b)                                                          \
  MAC(setp_gt_u##sfx, (UT)a > (UT)b)                                                           \
  MAC(setp_ge_u##sfx, (UT)a >= (UT)b)
SETP_INT(32, uint32_t, SETP32, int32_t, uint32_t)
SETP_INT(64, uint64_t, SETP64, int64_t, uint64_t)
/* ordered float comparisons: false when either operand is NaN, which C's operators give */
SETP32(setp_eq_f32, alu_f32(a) == alu_f32(b))
SETP32(setp_ne_f32, alu_f32(a) < alu_f32(b) || alu_f32(a) > alu_f32(b))
SETP32(setp_lt_f32, alu_f32(a) < alu_f32(b))
SETP32(setp_le_f32, alu_f32(a) <= alu_f32(b))
SETP32(setp_gt_f32, alu_f32(a) > alu_f32(b))
SETP32(setp_ge_f32, alu_f32(a) >= alu_f32(b))
SETP64(setp_eq_f64, alu_f64(a) == alu_f64(b))
SETP64(setp_ne_f64, alu_f64(a) < alu_f64(b) || alu_f64(a) > alu_f64(b))
SETP64(setp_lt_f64, alu_f64(a) < alu_f64(b))
SETP64(setp_le_f64, alu_f64(a) <= alu_f64(b))
SETP64(setp_gt_f64, alu_f64(a) > alu_f64(b))
SETP64(setp_ge_f64, alu_f64(a) >= alu_f64(b))

/* any type, any comparison: alu_cmp per lane */
H(setp_any) {
  uint32_t r = 0;
  ptx_type t = (ptx_type)in->type2;
  ptx_cmp c = (ptx_cmp)in->size;
  if (in->flags & 1) {
    const uint64_t *A = FX_R64(w, in->o[1]), *B = FX_R64(w, in->o[2]);
    for (unsigned i = 0; i < 32; i++) r |= (uint32_t)alu_cmp(A[i], B[i], t, c, in->mods) << i;
  } else {
    const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]);
    for (unsigned i = 0; i < 32; i++) r |= (uint32_t)alu_cmp(A[i], B[i], t, c, in->mods) << i;
  }
  setp_write(w, in, r, m);
}

/* f16x2 / bf16x2 setp: two results, d|p gets the low and high halves (PTX 9.7.4.x setp) */
H(setp_x2) {
  uint32_t lo = 0, hi = 0;
  ptx_type t = (ptx_type)in->type2 == PTX_TYPE_F16X2 ? PTX_TYPE_F16 : PTX_TYPE_BF16;
  ptx_cmp c = (ptx_cmp)in->size;
  const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]);
  for (unsigned i = 0; i < 32; i++) {
    lo |= (uint32_t)alu_cmp(A[i] & 0xffffu, B[i] & 0xffffu, t, c, in->mods) << i;
    hi |= (uint32_t)alu_cmp(A[i] >> 16, B[i] >> 16, t, c, in->mods) << i;
  }
  if (in->flags & 4) {
    uint32_t cc = *FX_P(w, in->o[4]) ^ in->aux2;
    switch (in->aux) {
    case PTX_BOOL_AND: lo &= cc, hi &= cc; break;
    case PTX_BOOL_OR: lo |= cc, hi |= cc; break;
    default: lo ^= cc, hi ^= cc; break;
    }
  }
  fx_putp(FX_P(w, in->o[0]), lo, m);
  if (in->flags & 2) fx_putp(FX_P(w, in->o[3]), hi, m);
}

/* set: d = value of the (combined) comparison in the destination type */
H(set_any) {
  ptx_type t = (ptx_type)in->type2;
  ptx_cmp c = (ptx_cmp)in->size;
  uint32_t r = 0;
  if (in->flags & 1) {
    const uint64_t *A = FX_R64(w, in->o[1]), *B = FX_R64(w, in->o[2]);
    for (unsigned i = 0; i < 32; i++) r |= (uint32_t)alu_cmp(A[i], B[i], t, c, in->mods) << i;
  } else {
    const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]);
    for (unsigned i = 0; i < 32; i++) r |= (uint32_t)alu_cmp(A[i], B[i], t, c, in->mods) << i;
  }
  if (in->flags & 4) {
    uint32_t cc = *FX_P(w, in->o[4]) ^ in->aux2;
    switch (in->aux) {
    case PTX_BOOL_AND: r &= cc; break;
    case PTX_BOOL_OR: r |= cc; break;
    default: r ^= cc; break;
    }
  }
  uint32_t *D = FX_R32(w, in->o[0]);
  FX_FOR_LANES(i, m) D[i] = alu_set_value((r >> i) & 1u, (ptx_type)in->type);
}

/* slct: d = c >= 0 ? a : b; flags 1: 64-bit a/b; 2: c is f32 */
H(slct_h) {
  const uint32_t *C = FX_R32(w, in->o[3]);
  uint32_t pick = 0;
  for (unsigned i = 0; i < 32; i++)
    pick |= (uint32_t)((in->flags & 2) ? alu_slct_pick_a_f32(C[i], in->mods) : alu_slct_pick_a_s32(C[i])) << i;
  if (in->flags & 1) {
    const uint64_t *A = FX_R64(w, in->o[1]), *B = FX_R64(w, in->o[2]);
    uint64_t *D = FX_R64(w, in->o[0]);
    FX_FOR_LANES(i, m) D[i] = ((pick >> i) & 1u) ? A[i] : B[i];
  } else {
    const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]);
    uint32_t *D = FX_R32(w, in->o[0]);
    FX_FOR_LANES(i, m) D[i] = ((pick >> i) & 1u) ? A[i] : B[i];
  }
}

H(testp_h) {
  uint32_t r = 0;
  if (in->flags & 1) {
    const uint64_t *A = FX_R64(w, in->o[1]);
    for (unsigned i = 0; i < 32; i++) r |= (uint32_t)alu_testp_f64(A[i], (ptx_testp_kind)in->aux) << i;
  } else {
    const uint32_t *A = FX_R32(w, in->o[1]);
    for (unsigned i = 0; i < 32; i++) r |= (uint32_t)alu_testp_f32(A[i], (ptx_testp_kind)in->aux) << i;
  }
  fx_putp(FX_P(w, in->o[0]), r, m);
}

/* ---- builders ---------------------------------------------------------------------------------------- */

static simtvp_status ops(fx_build *b, uint32_t nsrc, ptx_type t) {
  fx_insn *in = b->out;
  if (b->pi->nops < nsrc + 1) return fx_unsupported(b, "too few operands");
  simtvp_status st = fx_dst(b, 0, &in->o[0]);
  for (uint32_t k = 0; k < nsrc && st == SIMTVP_OK; k++) st = fx_src(b, k + 1, t, &in->o[k + 1]);
  return st;
}

static bool directed(uint32_t rnd) { return rnd == PTX_RND_RZ || rnd == PTX_RND_RM || rnd == PTX_RND_RP; }

static fx_fn pick4(uint64_t mods, fx_fn n, fx_fn f, fx_fn s, fx_fn fs) {
  bool ftz = mods & PTX_MOD_FTZ, sat = mods & PTX_MOD_SAT;
  return ftz ? (sat ? fs : f) : (sat ? s : n);
}

static simtvp_status build_half(fx_build *b, uint32_t nsrc) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  ptx_type t = (ptx_type)pi->type;
  simtvp_status st = ops(b, nsrc, t);
  if (st != SIMTVP_OK) return st;
  in->aux = pi->rounding;
  int k = t == PTX_TYPE_F16 ? 0 : t == PTX_TYPE_F16X2 ? 1 : t == PTX_TYPE_BF16 ? 2 : t == PTX_TYPE_BF16X2 ? 3 : -1;
  if (k < 0) return fx_unsupported(b, "type not supported");
  static const fx_fn add[4] = {add_f16, add_f16x2, add_bf16, add_bf16x2};
  static const fx_fn sub[4] = {sub_f16, sub_f16x2, sub_bf16, sub_bf16x2};
  static const fx_fn mul[4] = {mul_f16, mul_f16x2, mul_bf16, mul_bf16x2};
  static const fx_fn fma[4] = {fma_f16, fma_f16x2, fma_bf16, fma_bf16x2};
  static const fx_fn neg[4] = {neg_f16, neg_f16x2, neg_bf16, neg_bf16x2};
  static const fx_fn abs_[4] = {abs_f16, abs_f16x2, abs_bf16, abs_bf16x2};
  static const fx_fn mn[4] = {min_f16, min_f16x2, min_bf16, min_bf16x2};
  static const fx_fn mx[4] = {max_f16, max_f16x2, max_bf16, max_bf16x2};
  switch (pi->opcode) {
  case PTX_OP_ADD: in->fn = add[k]; break;
  case PTX_OP_SUB: in->fn = sub[k]; break;
  case PTX_OP_MUL: in->fn = mul[k]; break;
  case PTX_OP_FMA:
  case PTX_OP_MAD: in->fn = fma[k]; break;
  case PTX_OP_NEG: in->fn = neg[k]; break;
  case PTX_OP_ABS: in->fn = abs_[k]; break;
  case PTX_OP_MIN: in->fn = mn[k]; break;
  case PTX_OP_MAX: in->fn = mx[k]; break;
  default: return fx_unsupported(b, "half-precision form not supported");
  }
  return SIMTVP_OK;
}

/* add/sub/mul/mad/fma/div/abs/neg/min/max with a float type (called from exec_int's builders) */
simtvp_status fx_build_float_arith(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  ptx_type t = (ptx_type)pi->type;
  uint32_t op = pi->opcode;
  bool unary = op == PTX_OP_ABS || op == PTX_OP_NEG;
  bool ternary = op == PTX_OP_FMA || op == PTX_OP_MAD;
  if (t != PTX_TYPE_F32 && t != PTX_TYPE_F64) return build_half(b, unary ? 1 : ternary ? 3 : 2);
  simtvp_status st = ops(b, unary ? 1 : ternary ? 3 : 2, t);
  if (st != SIMTVP_OK) return st;
  bool f64 = t == PTX_TYPE_F64;
  uint32_t rnd = pi->rounding;
  uint64_t mods = pi->mods;
  in->aux = rnd;
  in->aux2 = op;
  switch (op) {
  case PTX_OP_ADD:
  case PTX_OP_SUB:
  case PTX_OP_MUL:
    if (directed(rnd)) in->fn = f64 ? f64_rnd2 : f32_rnd2;
    else if (f64) in->fn = op == PTX_OP_ADD ? add_f64 : op == PTX_OP_SUB ? sub_f64 : mul_f64;
    else if (op == PTX_OP_ADD) in->fn = pick4(mods, add_f32, add_f32_ftz, add_f32_sat, add_f32_ftz_sat);
    else if (op == PTX_OP_SUB) in->fn = pick4(mods, sub_f32, sub_f32_ftz, sub_f32_sat, sub_f32_ftz_sat);
    else in->fn = pick4(mods, mul_f32, mul_f32_ftz, mul_f32_sat, mul_f32_ftz_sat);
    break;
  case PTX_OP_FMA:
  case PTX_OP_MAD:
    if (directed(rnd)) in->fn = f64 ? f64_rnd3 : f32_rnd3;
    else if (f64) in->fn = fma_f64;
    else {
      in->fn = pick4(mods, fma_f32, fma_f32_ftz, fma_f32_sat, fma_f32_ftz_sat);
#ifdef FX_HAVE_FMA_VARIANT
      if (in->fn == fma_f32 && host_has_fma()) in->fn = fma_f32_hw;
#endif
    }
    break;
  case PTX_OP_DIV:
    in->cls = FX_C_SFU;
    if (f64) in->fn = directed(rnd) ? f64_rnd2 : div_rn_f64;
    else if (mods & PTX_MOD_APPROX) in->fn = div_approx_f32;
    else if (mods & PTX_MOD_FULL) in->fn = div_full_f32;
    else in->fn = directed(rnd) ? f32_rnd2 : div_rn_f32;
    break;
  case PTX_OP_ABS: in->fn = f64 ? abs_f64 : abs_f32; break;
  case PTX_OP_NEG: in->fn = f64 ? neg_f64 : neg_f32; break;
  case PTX_OP_MIN: in->fn = f64 ? min_f64 : min_f32; break;
  case PTX_OP_MAX: in->fn = f64 ? max_f64 : max_f32; break;
  default: return fx_unsupported(b, "float form not supported");
  }
  return SIMTVP_OK;
}

static simtvp_status build_fma(fx_build *b) { return fx_build_float_arith(b); }

static simtvp_status build_sfu(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  ptx_type t = (ptx_type)pi->type;
  simtvp_status st = ops(b, 1, t);
  if (st != SIMTVP_OK) return st;
  in->cls = FX_C_SFU;
  bool approx = pi->mods & PTX_MOD_APPROX;
  uint32_t rnd = pi->rounding;
  in->aux = rnd;
  in->aux2 = pi->opcode;
  if (t == PTX_TYPE_F64) {
    switch (pi->opcode) {
    case PTX_OP_SQRT: in->fn = directed(rnd) ? f64_rnd1 : sqrt_rn_f64; break;
    case PTX_OP_RCP:
      in->fn = approx ? rcp_approx_ftz_f64 : directed(rnd) ? f64_rnd1 : rcp_rn_f64;
      break;
    case PTX_OP_RSQRT: in->fn = rsqrt_approx_f64; break;
    default: return fx_unsupported(b, "f64 form not supported");
    }
    return SIMTVP_OK;
  }
  if (t == PTX_TYPE_F16 || t == PTX_TYPE_F16X2) {
    if (pi->opcode == PTX_OP_EX2) in->fn = t == PTX_TYPE_F16 ? ex2_approx_f16 : ex2_approx_f16x2;
    else if (pi->opcode == PTX_OP_TANH) in->fn = t == PTX_TYPE_F16 ? tanh_approx_f16 : tanh_approx_f16x2;
    else return fx_unsupported(b, "half-precision form not supported");
    return SIMTVP_OK;
  }
  if (t != PTX_TYPE_F32) return fx_unsupported(b, "type not supported");
  switch (pi->opcode) {
  case PTX_OP_SQRT: in->fn = approx ? sqrt_approx_f32 : directed(rnd) ? f32_rnd1 : sqrt_rn_f32; break;
  case PTX_OP_RCP: in->fn = approx ? rcp_approx_f32 : directed(rnd) ? f32_rnd1 : rcp_rn_f32; break;
  case PTX_OP_RSQRT: in->fn = rsqrt_approx_f32; break;
  case PTX_OP_SIN: in->fn = sin_approx_f32; break;
  case PTX_OP_COS: in->fn = cos_approx_f32; break;
  case PTX_OP_EX2: in->fn = ex2_approx_f32; break;
  case PTX_OP_LG2: in->fn = lg2_approx_f32; break;
  case PTX_OP_TANH: in->fn = tanh_approx_f32; break;
  default: return fx_unsupported(b, "not supported");
  }
  return SIMTVP_OK;
}

static simtvp_status build_copysign(fx_build *b) {
  ptx_type t = (ptx_type)b->pi->type;
  simtvp_status st = ops(b, 2, t);
  if (st != SIMTVP_OK) return st;
  b->out->fn = t == PTX_TYPE_F64 ? copysign_f64 : copysign_f32;
  return SIMTVP_OK;
}

static bool wide_operand(const fx_build *b, uint32_t k, ptx_type t) {
  const ptx_operand *op = &b->pi->ops[k];
  if (op->kind == PTX_OPND_REG) return op->rclass == PTX_RC_B64;
  return ptx_type_bytes(t) == 8;
}

static fx_fn setp_fast(ptx_type t, ptx_cmp c, uint64_t mods) {
  static const fx_fn s32[] = {setp_eq_32, setp_ne_32, setp_lt_s32, setp_le_s32, setp_gt_s32, setp_ge_s32};
  static const fx_fn u32[] = {setp_eq_32, setp_ne_32, setp_lt_u32, setp_le_u32, setp_gt_u32, setp_ge_u32};
  static const fx_fn s64[] = {setp_eq_64, setp_ne_64, setp_lt_s64, setp_le_s64, setp_gt_s64, setp_ge_s64};
  static const fx_fn u64[] = {setp_eq_64, setp_ne_64, setp_lt_u64, setp_le_u64, setp_gt_u64, setp_ge_u64};
  static const fx_fn f32[] = {setp_eq_f32, setp_ne_f32, setp_lt_f32, setp_le_f32, setp_gt_f32, setp_ge_f32};
  static const fx_fn f64[] = {setp_eq_f64, setp_ne_f64, setp_lt_f64, setp_le_f64, setp_gt_f64, setp_ge_f64};
  int k;
  bool unsigned_cmp = false;
  switch (c) {
  case PTX_CMP_EQ: k = 0; break;
  case PTX_CMP_NE: k = 1; break;
  case PTX_CMP_LT: k = 2; break;
  case PTX_CMP_LE: k = 3; break;
  case PTX_CMP_GT: k = 4; break;
  case PTX_CMP_GE: k = 5; break;
  case PTX_CMP_LO: k = 2, unsigned_cmp = true; break;
  case PTX_CMP_LS: k = 3, unsigned_cmp = true; break;
  case PTX_CMP_HI: k = 4, unsigned_cmp = true; break;
  case PTX_CMP_HS: k = 5, unsigned_cmp = true; break;
  default: return NULL;
  }
  switch (t) {
  case PTX_TYPE_S32: return unsigned_cmp ? u32[k] : s32[k];
  case PTX_TYPE_U32:
  case PTX_TYPE_B32: return u32[k];
  case PTX_TYPE_S64: return unsigned_cmp ? u64[k] : s64[k];
  case PTX_TYPE_U64:
  case PTX_TYPE_B64: return u64[k];
  case PTX_TYPE_F32: return (unsigned_cmp || (mods & PTX_MOD_FTZ)) ? NULL : f32[k];
  case PTX_TYPE_F64: return unsigned_cmp ? NULL : f64[k];
  default: return NULL;
  }
}

/* setp: type = operand type. set: type = destination, type2 = operand type. */
static simtvp_status build_setp(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  bool is_set = pi->opcode == PTX_OP_SET;
  ptx_type t = (ptx_type)(is_set ? pi->type2 : pi->type);
  if (pi->nops < 3) return fx_unsupported(b, "too few operands");
  simtvp_status st = fx_dst(b, 0, &in->o[0]);
  if (st == SIMTVP_OK) st = fx_src(b, 1, t, &in->o[1]);
  if (st == SIMTVP_OK) st = fx_src(b, 2, t, &in->o[2]);
  if (st != SIMTVP_OK) return st;
  if (!is_set && (pi->ops[0].flags & PTX_OPND_PAIR)) {
    in->flags |= 2;
    in->o[3] = b->f->off_pred + 4u * pi->ops[0].pair;
  }
  if (pi->bool_op != PTX_BOOL_NONE) {
    if (pi->nops < 4) return fx_unsupported(b, "combining predicate missing");
    in->flags |= 4;
    in->aux = pi->bool_op;
    st = fx_pred_src(b, &pi->ops[3], &in->o[4], &in->aux2);
    if (st != SIMTVP_OK) return st;
  }
  if (wide_operand(b, 1, t)) in->flags |= 1;
  in->type2 = (uint8_t)t;
  in->size = pi->cmp;
  if (is_set) {
    in->fn = set_any;
    return SIMTVP_OK;
  }
  if (t == PTX_TYPE_F16X2 || t == PTX_TYPE_BF16X2) {
    in->fn = setp_x2;
    return SIMTVP_OK;
  }
  fx_fn fast = setp_fast(t, (ptx_cmp)pi->cmp, pi->mods);
  in->fn = fast ? fast : setp_any;
  return SIMTVP_OK;
}

static simtvp_status build_slct(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  ptx_type t = (ptx_type)pi->type, tc = (ptx_type)pi->type2;
  if (pi->nops < 4) return fx_unsupported(b, "too few operands");
  simtvp_status st = fx_dst(b, 0, &in->o[0]);
  if (st == SIMTVP_OK) st = fx_src(b, 1, t, &in->o[1]);
  if (st == SIMTVP_OK) st = fx_src(b, 2, t, &in->o[2]);
  if (st == SIMTVP_OK) st = fx_src(b, 3, tc, &in->o[3]);
  if (st != SIMTVP_OK) return st;
  if (ptx_type_bytes(t) == 8) in->flags |= 1;
  if (tc == PTX_TYPE_F32) in->flags |= 2;
  in->fn = slct_h;
  return SIMTVP_OK;
}

static simtvp_status build_testp(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  ptx_type t = (ptx_type)pi->type;
  simtvp_status st = fx_dst(b, 0, &in->o[0]);
  if (st == SIMTVP_OK) st = fx_src(b, 1, t, &in->o[1]);
  if (st != SIMTVP_OK) return st;
  if (t == PTX_TYPE_F64) in->flags |= 1;
  in->aux = pi->sub_op;
  in->fn = testp_h;
  return SIMTVP_OK;
}

void fx_register_float(fx_builder *t) {
  t[PTX_OP_FMA] = build_fma;
  t[PTX_OP_SQRT] = build_sfu;
  t[PTX_OP_RCP] = build_sfu;
  t[PTX_OP_RSQRT] = build_sfu;
  t[PTX_OP_SIN] = build_sfu;
  t[PTX_OP_COS] = build_sfu;
  t[PTX_OP_EX2] = build_sfu;
  t[PTX_OP_LG2] = build_sfu;
  t[PTX_OP_TANH] = build_sfu;
  t[PTX_OP_COPYSIGN] = build_copysign;
  t[PTX_OP_SETP] = build_setp;
  t[PTX_OP_SET] = build_setp;
  t[PTX_OP_SLCT] = build_slct;
  t[PTX_OP_TESTP] = build_testp;
}
