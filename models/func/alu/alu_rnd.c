/* alu_rnd — f64 add/sub/mul/fma/div/sqrt/rcp with the PTX rounding modifiers .rn .rz .rm .rp
 * (PTX ISA 9.7.3.3-9.7.3.13).
 *
 * Compiled with -frounding-math -ffp-contract=off: each lane-array function switches the host
 * rounding mode once, runs a plain loop (vectorisable, no per-lane switching) and restores the
 * caller's mode before returning. The host's IEEE 754 double operations (and the C library's fma)
 * are correctly rounded in every mode, so the results are exact to the ISA. */
#include "alu.h"

#include <fenv.h>
#include <math.h>

static int host_mode(ptx_rounding rnd) {
  switch (rnd) {
  case PTX_RND_RZ: case PTX_RND_RZI: return FE_TOWARDZERO;
  case PTX_RND_RM: case PTX_RND_RMI: return FE_DOWNWARD;
  case PTX_RND_RP: case PTX_RND_RPI: return FE_UPWARD;
  default: return FE_TONEAREST;
  }
}

/* Switches to the wanted mode when it differs from the current one; returns the mode to restore
 * (or -1 when nothing changed). */
static int mode_begin(ptx_rounding rnd) {
  int want = host_mode(rnd), have = fegetround();
  if (want == have) return -1;
  fesetround(want);
  return have;
}
static void mode_end(int saved) {
  if (saved >= 0) fesetround(saved);
}

/* noinline: the scalar wrappers below must pass their operands through memory so that no
 * operation can be scheduled across the mode switch (GCC does not order arithmetic against
 * fesetround by itself, see GCC PR 34678). */
#define F64_ARRAY2(name, EXPR)                                                                       \
  __attribute__((noinline)) void name(uint64_t *d, const uint64_t *a, const uint64_t *b, unsigned n, ptx_rounding rnd) {       \
    int saved = mode_begin(rnd);                                                                     \
    for (unsigned i = 0; i < n; i++) {                                                               \
      double x = alu_f64(a[i]), y = alu_f64(b[i]);                                                   \
      d[i] = alu_f64_bits(EXPR);                                                                     \
    }                                                                                                \
    mode_end(saved);                                                                                 \
  }
F64_ARRAY2(alu_add_f64_n, x + y)
F64_ARRAY2(alu_sub_f64_n, x - y)
F64_ARRAY2(alu_mul_f64_n, x * y)
F64_ARRAY2(alu_div_f64_n, x / y)

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__FMA__)
/* Hosts with an FMA unit: vfmadd honours the MXCSR rounding mode, no libm call per lane. */
__attribute__((target("fma"), noinline)) static void fma_f64_hw(uint64_t *d, const uint64_t *a, const uint64_t *b,
                                                              const uint64_t *c, unsigned n) {
  for (unsigned i = 0; i < n; i++) d[i] = alu_f64_bits(__builtin_fma(alu_f64(a[i]), alu_f64(b[i]), alu_f64(c[i])));
}
#define ALU_HAVE_FMA_DISPATCH 1
#endif

__attribute__((noinline)) void alu_fma_f64_n(uint64_t *d, const uint64_t *a, const uint64_t *b, const uint64_t *c, unsigned n,
                   ptx_rounding rnd) {
  int saved = mode_begin(rnd);
#ifdef ALU_HAVE_FMA_DISPATCH
  if (__builtin_cpu_supports("fma")) {
    fma_f64_hw(d, a, b, c, n);
    mode_end(saved);
    return;
  }
#endif
  for (unsigned i = 0; i < n; i++) d[i] = alu_f64_bits(fma(alu_f64(a[i]), alu_f64(b[i]), alu_f64(c[i])));
  mode_end(saved);
}
__attribute__((noinline)) void alu_sqrt_f64_n(uint64_t *d, const uint64_t *a, unsigned n, ptx_rounding rnd) {
  int saved = mode_begin(rnd);
  for (unsigned i = 0; i < n; i++) d[i] = alu_f64_bits(sqrt(alu_f64(a[i])));
  mode_end(saved);
}
__attribute__((noinline)) void alu_rcp_f64_n(uint64_t *d, const uint64_t *a, unsigned n, ptx_rounding rnd) {
  int saved = mode_begin(rnd);
  for (unsigned i = 0; i < n; i++) d[i] = alu_f64_bits(1.0 / alu_f64(a[i]));
  mode_end(saved);
}

uint64_t alu_add_f64_rnd(uint64_t a, uint64_t b, ptx_rounding rnd) {
  uint64_t d;
  alu_add_f64_n(&d, &a, &b, 1, rnd);
  return d;
}
uint64_t alu_sub_f64_rnd(uint64_t a, uint64_t b, ptx_rounding rnd) {
  uint64_t d;
  alu_sub_f64_n(&d, &a, &b, 1, rnd);
  return d;
}
uint64_t alu_mul_f64_rnd(uint64_t a, uint64_t b, ptx_rounding rnd) {
  uint64_t d;
  alu_mul_f64_n(&d, &a, &b, 1, rnd);
  return d;
}
uint64_t alu_fma_f64_rnd(uint64_t a, uint64_t b, uint64_t c, ptx_rounding rnd) {
  uint64_t d;
  alu_fma_f64_n(&d, &a, &b, &c, 1, rnd);
  return d;
}
uint64_t alu_div_f64_rnd(uint64_t a, uint64_t b, ptx_rounding rnd) {
  uint64_t d;
  alu_div_f64_n(&d, &a, &b, 1, rnd);
  return d;
}
uint64_t alu_sqrt_f64_rnd(uint64_t a, ptx_rounding rnd) {
  uint64_t d;
  alu_sqrt_f64_n(&d, &a, 1, rnd);
  return d;
}
uint64_t alu_rcp_f64_rnd(uint64_t a, ptx_rounding rnd) {
  uint64_t d;
  alu_rcp_f64_n(&d, &a, 1, rnd);
  return d;
}
