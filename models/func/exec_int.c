/* exec_int — integer arithmetic (PTX ISA 9.7.1), extended precision (9.7.2), logic and shift
 * (9.7.7), data movement mov (9.7.9.1) and selp (9.7.6). Lane semantics come from alu.h where they
 * have subtleties (saturation, division by zero, bit-field rules); the plain wrap-around
 * operations are written here as lane loops the compiler vectorises.
 *
 * Registers of 8/16-bit types share 32-bit storage: readers mask or sign-extend to the type width,
 * writers of 16-bit results store them zero-extended. */
#include "alu.h"
#include "func_internal.h"
#ifdef FX_AVX2
#include <immintrin.h>
#endif

static inline uint32_t sx16(uint32_t x) { return (uint32_t)(int32_t)(int16_t)x; }
static inline uint32_t zx16(uint32_t x) { return x & 0xffffu; }

/* ---- handler generators ------------------------------------------------------------------------- */

#define H(name) static void name(fx_warp *w, const fx_insn *in, uint32_t m)

#define BIN32(name, EXPR) BIN32_AT(name, , EXPR)
#define BIN32_AT(name, ATTR, EXPR)                                                             \
  ATTR H(name) {                                                                               \
    const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]);                         \
    uint32_t r[32];                                                                            \
    for (unsigned i = 0; i < 32; i++) {                                                        \
      uint32_t a = A[i], b = B[i];                                                             \
      (void)a, (void)b;                                                                        \
      r[i] = (EXPR);                                                                           \
    }                                                                                          \
    fx_put32(FX_R32(w, in->o[0]), r, m);                                                       \
  }
#define BIN64(name, EXPR) BIN64_AT(name, , EXPR)
#define BIN64_AT(name, ATTR, EXPR)                                                             \
  ATTR H(name) {                                                                               \
    const uint64_t *A = FX_R64(w, in->o[1]), *B = FX_R64(w, in->o[2]);                         \
    uint64_t r[32], *D = FX_R64(w, in->o[0]);                                                  \
    bool direct = m == FX_FULL && fx_apart(in->o[0], FX_ROW64, in->o[1], FX_ROW64) &&          \
                  fx_apart(in->o[0], FX_ROW64, in->o[2], FX_ROW64);                            \
    uint64_t *out = direct ? D : r;                                                            \
    for (unsigned i = 0; i < 32; i++) {                                                        \
      uint64_t a = A[i], b = B[i];                                                             \
      (void)a, (void)b;                                                                        \
      out[i] = (EXPR);                                                                         \
    }                                                                                          \
    if (!direct) fx_put64(D, r, m);                                                            \
  }
/* 64-bit a, 32-bit b (shift amounts, bit positions) */
#define BIN64_32(name, EXPR)                                                                   \
  H(name) {                                                                                    \
    const uint64_t *A = FX_R64(w, in->o[1]);                                                   \
    const uint32_t *B = FX_R32(w, in->o[2]);                                                   \
    uint64_t r[32], *D = FX_R64(w, in->o[0]);                                                  \
    bool direct = m == FX_FULL && fx_apart(in->o[0], FX_ROW64, in->o[1], FX_ROW64) &&          \
                  fx_apart(in->o[0], FX_ROW64, in->o[2], FX_ROW32);                            \
    uint64_t *out = direct ? D : r;                                                            \
    for (unsigned i = 0; i < 32; i++) {                                                        \
      uint64_t a = A[i];                                                                       \
      uint32_t b = B[i];                                                                       \
      out[i] = (EXPR);                                                                         \
    }                                                                                          \
    if (!direct) fx_put64(D, r, m);                                                            \
  }
/* 32-bit operands, 64-bit result (mul.wide) */
#define WIDE32(name, EXPR) WIDE32_AT(name, , EXPR)
#define WIDE32_AT(name, ATTR, EXPR)                                                            \
  ATTR H(name) {                                                                               \
    const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]);                         \
    uint64_t r[32], *D = FX_R64(w, in->o[0]);                                                  \
    bool direct = m == FX_FULL && fx_apart(in->o[0], FX_ROW64, in->o[1], FX_ROW32) &&          \
                  fx_apart(in->o[0], FX_ROW64, in->o[2], FX_ROW32);                            \
    uint64_t *out = direct ? D : r;                                                            \
    for (unsigned i = 0; i < 32; i++) {                                                        \
      uint32_t a = A[i], b = B[i];                                                             \
      out[i] = (EXPR);                                                                         \
    }                                                                                          \
    if (!direct) fx_put64(D, r, m);                                                            \
  }
#define UN32(name, EXPR)                                                                       \
  H(name) {                                                                                    \
    const uint32_t *A = FX_R32(w, in->o[1]);                                                   \
    uint32_t r[32];                                                                            \
    for (unsigned i = 0; i < 32; i++) {                                                        \
      uint32_t a = A[i];                                                                       \
      r[i] = (EXPR);                                                                           \
    }                                                                                          \
    fx_put32(FX_R32(w, in->o[0]), r, m);                                                       \
  }
#define UN64(name, EXPR)                                                                       \
  H(name) {                                                                                    \
    const uint64_t *A = FX_R64(w, in->o[1]);                                                   \
    uint64_t r[32], *D = FX_R64(w, in->o[0]);                                                  \
    bool direct = m == FX_FULL && fx_apart(in->o[0], FX_ROW64, in->o[1], FX_ROW64);            \
    uint64_t *out = direct ? D : r;                                                            \
    for (unsigned i = 0; i < 32; i++) {                                                        \
      uint64_t a = A[i];                                                                       \
      out[i] = (EXPR);                                                                         \
    }                                                                                          \
    if (!direct) fx_put64(D, r, m);                                                            \
  }
/* 64-bit source, 32-bit result (popc.b64, clz.b64, bfind.u64) */
#define UN64TO32(name, EXPR)                                                                   \
  H(name) {                                                                                    \
    const uint64_t *A = FX_R64(w, in->o[1]);                                                   \
    uint32_t r[32];                                                                            \
    for (unsigned i = 0; i < 32; i++) {                                                        \
      uint64_t a = A[i];                                                                       \
      r[i] = (EXPR);                                                                           \
    }                                                                                          \
    fx_put32(FX_R32(w, in->o[0]), r, m);                                                       \
  }
#define TER32(name, EXPR) TER32_AT(name, , EXPR)
#define TER32_AT(name, ATTR, EXPR)                                                             \
  ATTR H(name) {                                                                               \
    const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]), *C = FX_R32(w, in->o[3]); \
    uint32_t r[32];                                                                            \
    for (unsigned i = 0; i < 32; i++) {                                                        \
      uint32_t a = A[i], b = B[i], c = C[i];                                                   \
      r[i] = (EXPR);                                                                           \
    }                                                                                          \
    fx_put32(FX_R32(w, in->o[0]), r, m);                                                       \
  }
#define TER64(name, EXPR)                                                                      \
  H(name) {                                                                                    \
    const uint64_t *A = FX_R64(w, in->o[1]), *B = FX_R64(w, in->o[2]), *C = FX_R64(w, in->o[3]); \
    uint64_t r[32], *D = FX_R64(w, in->o[0]);                                                  \
    bool direct = m == FX_FULL && fx_apart(in->o[0], FX_ROW64, in->o[1], FX_ROW64) &&          \
                  fx_apart(in->o[0], FX_ROW64, in->o[2], FX_ROW64) &&                          \
                  fx_apart(in->o[0], FX_ROW64, in->o[3], FX_ROW64);                            \
    uint64_t *out = direct ? D : r;                                                            \
    for (unsigned i = 0; i < 32; i++) {                                                        \
      uint64_t a = A[i], b = B[i], c = C[i];                                                   \
      out[i] = (EXPR);                                                                         \
    }                                                                                          \
    if (!direct) fx_put64(D, r, m);                                                            \
  }
/* 32-bit a, b; 64-bit c and d (mad.wide) */
#define MADW(name, EXPR)                                                                       \
  H(name) {                                                                                    \
    const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]);                         \
    const uint64_t *C = FX_R64(w, in->o[3]);                                                   \
    uint64_t r[32], *D = FX_R64(w, in->o[0]);                                                  \
    bool direct = m == FX_FULL && fx_apart(in->o[0], FX_ROW64, in->o[1], FX_ROW32) &&          \
                  fx_apart(in->o[0], FX_ROW64, in->o[2], FX_ROW32) &&                          \
                  fx_apart(in->o[0], FX_ROW64, in->o[3], FX_ROW64);                            \
    uint64_t *out = direct ? D : r;                                                            \
    for (unsigned i = 0; i < 32; i++) {                                                        \
      uint32_t a = A[i], b = B[i];                                                             \
      uint64_t c = C[i];                                                                       \
      out[i] = (EXPR);                                                                         \
    }                                                                                          \
    if (!direct) fx_put64(D, r, m);                                                            \
  }
/* 64-bit a, b; 32-bit c (bfe.b64 pos/len, bfi.b64) */
#define BFX64(name, EXPR)                                                                      \
  H(name) {                                                                                    \
    const uint64_t *A = FX_R64(w, in->o[1]);                                                   \
    const uint32_t *B = FX_R32(w, in->o[2]), *C = FX_R32(w, in->o[3]);                         \
    uint64_t r[32];                                                                            \
    for (unsigned i = 0; i < 32; i++) {                                                        \
      uint64_t a = A[i];                                                                       \
      uint32_t b = B[i], c = C[i];                                                             \
      r[i] = (EXPR);                                                                           \
    }                                                                                          \
    fx_put64(FX_R64(w, in->o[0]), r, m);                                                       \
  }

/* ---- add / sub / mul / mad ----------------------------------------------------------------------- */

BIN32(add32, a + b)
BIN32(add16, zx16(a + b))
BIN64(add64, a + b)
BIN32(add_sat_s32, alu_add_sat_s32(a, b))
BIN32(sub32, a - b)
BIN32(sub16, zx16(a - b))
BIN64(sub64, a - b)
BIN32(sub_sat_s32, alu_sub_sat_s32(a, b))
BIN32(mul_lo32, a * b)
BIN32(mul_lo16, zx16(a * b))
BIN64(mul_lo64, a * b)
BIN32(mul_hi_u32, alu_mul_hi_u32(a, b))
BIN32(mul_hi_s32, alu_mul_hi_s32(a, b))
BIN32(mul_hi_u16, alu_mul_hi_u16((uint16_t)a, (uint16_t)b))
BIN32(mul_hi_s16, alu_mul_hi_s16((uint16_t)a, (uint16_t)b))
BIN64(mul_hi_u64, alu_mul_hi_u64(a, b))
BIN64(mul_hi_s64, alu_mul_hi_s64(a, b))
WIDE32(mul_wide_u32, alu_mul_wide_u32(a, b))
/* mul.wide.s32 from the unsigned 32x32->64 product (SSE2 has it, pmuludq; not the signed one):
 * with a = ua - 2^32*[a<0] and b likewise, a*b = ua*ub - 2^32*([a<0]*ub + [b<0]*ua) mod 2^64,
 * bit for bit alu_mul_wide_s32. */
static inline uint64_t mul_wide_s32_via_u(uint32_t a, uint32_t b) {
  uint32_t fix = ((uint32_t)((int32_t)a >> 31) & b) + ((uint32_t)((int32_t)b >> 31) & a);
  return (uint64_t)a * b - ((uint64_t)fix << 32);
}
WIDE32(mul_wide_s32, mul_wide_s32_via_u(a, b))
/* mul.wide by an immediate 2^k (k = in->aux < 31), the index scaling of nearly every address
 * computation (mul.wide.s32 %rd, %r, 4): the product is a's extension shifted left by k, exact in
 * 64 bits, so bit for bit mul_wide_s32 / mul_wide_u32, in a third of their host instructions
 * (SSE2 has no 64-bit multiply; the sign fix above costs as much again). */
#define WIDE32_POW2(name, EXT) WIDE32_POW2_AT(name, , EXT)
#define WIDE32_POW2_AT(name, ATTR, EXT)                                                        \
  ATTR H(name) {                                                                               \
    const uint32_t *A = FX_R32(w, in->o[1]);                                                   \
    const uint32_t k = in->aux;                                                                \
    uint64_t r[32], *D = FX_R64(w, in->o[0]);                                                  \
    bool direct = m == FX_FULL && fx_apart(in->o[0], FX_ROW64, in->o[1], FX_ROW32);            \
    uint64_t *out = direct ? D : r;                                                            \
    for (unsigned i = 0; i < 32; i++) out[i] = (uint64_t)(EXT(A[i])) << k;                     \
    if (!direct) fx_put64(D, r, m);                                                            \
  }
#define SX32(x) (int64_t)(int32_t)(x)
#define ZX32(x) (uint64_t)(x)
WIDE32_POW2(mul_wide_s32_pow2, SX32)
WIDE32_POW2(mul_wide_u32_pow2, ZX32)
BIN32(mul_wide_u16, alu_mul_wide_u16((uint16_t)a, (uint16_t)b))
BIN32(mul_wide_s16, alu_mul_wide_s16((uint16_t)a, (uint16_t)b))
TER32(mad_lo32, a * b + c)
TER32(mad_lo16, zx16(a * b + c))
TER64(mad_lo64, a * b + c)
TER32(mad_hi_u32, alu_mul_hi_u32(a, b) + c)
TER32(mad_hi_s32, alu_mul_hi_s32(a, b) + c)
TER32(mad_hi_sat_s32, alu_mad_hi_sat_s32(a, b, c))
TER32(mad_hi_u16, zx16(alu_mul_hi_u16((uint16_t)a, (uint16_t)b) + c))
TER32(mad_hi_s16, zx16(alu_mul_hi_s16((uint16_t)a, (uint16_t)b) + c))
TER64(mad_hi_u64, alu_mul_hi_u64(a, b) + c)
TER64(mad_hi_s64, alu_mul_hi_s64(a, b) + c)
MADW(mad_wide_u32, alu_mul_wide_u32(a, b) + c)
MADW(mad_wide_s32, mul_wide_s32_via_u(a, b) + c)
TER32(mad_wide_u16, alu_mul_wide_u16((uint16_t)a, (uint16_t)b) + c)
TER32(mad_wide_s16, alu_mul_wide_s16((uint16_t)a, (uint16_t)b) + c)
#ifdef FX_AVX2
/* AVX2 variants of the integer arithmetic every kernel's index and address computations run
 * (func_internal.h, FX_AVX2), and the builder's map from a handler to its variant. */
BIN32_AT(add32_avx2, FX_AVX2, a + b)
/* A full warp's 64-bit add/sub: every lane read into eight registers before any is written, so
 * the destination may be any row (no overlap checks, no temporary, no stack frame). */
#define BIN64_AVX2(name, OP)                                                                   \
  FX_AVX2 H(name) {                                                                            \
    const uint64_t *A = FX_R64(w, in->o[1]), *B = FX_R64(w, in->o[2]);                         \
    uint64_t *D = FX_R64(w, in->o[0]);                                                         \
    __m256i x[8];                                                                              \
    for (unsigned j = 0; j < 8; j++)                                                           \
      x[j] = OP(_mm256_loadu_si256((const __m256i *)(A + 4 * j)),                              \
                _mm256_loadu_si256((const __m256i *)(B + 4 * j)));                             \
    if (m == FX_FULL) {                                                                        \
      for (unsigned j = 0; j < 8; j++) _mm256_storeu_si256((__m256i *)(D + 4 * j), x[j]);      \
    } else {                                                                                   \
      uint64_t r[32];                                                                          \
      for (unsigned j = 0; j < 8; j++) _mm256_storeu_si256((__m256i *)(r + 4 * j), x[j]);      \
      fx_put64(D, r, m);                                                                       \
    }                                                                                          \
  }
BIN64_AVX2(add64_avx2, _mm256_add_epi64)
BIN32_AT(sub32_avx2, FX_AVX2, a - b)
BIN64_AVX2(sub64_avx2, _mm256_sub_epi64)
BIN32_AT(mul_lo32_avx2, FX_AVX2, a * b)
TER32_AT(mad_lo32_avx2, FX_AVX2, a * b + c)
WIDE32_AT(mul_wide_u32_avx2, FX_AVX2, alu_mul_wide_u32(a, b))
WIDE32_AT(mul_wide_s32_avx2, FX_AVX2, mul_wide_s32_via_u(a, b))
WIDE32_POW2_AT(mul_wide_s32_pow2_avx2, FX_AVX2, SX32)
WIDE32_POW2_AT(mul_wide_u32_pow2_avx2, FX_AVX2, ZX32)
static const struct {
  fx_fn base, avx2;
} int_avx2[] = {{add32, add32_avx2},         {add64, add64_avx2},
                {sub32, sub32_avx2},         {sub64, sub64_avx2},
                {mul_lo32, mul_lo32_avx2},   {mad_lo32, mad_lo32_avx2},
                {mul_wide_u32, mul_wide_u32_avx2}, {mul_wide_s32, mul_wide_s32_avx2},
                {mul_wide_s32_pow2, mul_wide_s32_pow2_avx2}, {mul_wide_u32_pow2, mul_wide_u32_pow2_avx2}};
#endif
/* The handler f, or its AVX2 variant when it has one and the host runs AVX2. */
static fx_fn host_variant(fx_fn f) {
#ifdef FX_AVX2
  if (fx_host_avx2())
    for (size_t i = 0; i < sizeof int_avx2 / sizeof int_avx2[0]; i++)
      if (int_avx2[i].base == f) return int_avx2[i].avx2;
#endif
  return f;
}

BIN32(mul24_lo_u32, alu_mul24_lo_u32(a, b))
BIN32(mul24_lo_s32, alu_mul24_lo_s32(a, b))
BIN32(mul24_hi_u32, alu_mul24_hi_u32(a, b))
BIN32(mul24_hi_s32, alu_mul24_hi_s32(a, b))
TER32(mad24_lo_u32, alu_mul24_lo_u32(a, b) + c)
TER32(mad24_lo_s32, alu_mul24_lo_s32(a, b) + c)
TER32(mad24_hi_u32, alu_mul24_hi_u32(a, b) + c)
TER32(mad24_hi_s32, alu_mul24_hi_s32(a, b) + c)
TER32(mad24_hi_sat_s32, alu_add_sat_s32(alu_mul24_hi_s32(a, b), c))
TER32(sad_u32, alu_sad_u32(a, b, c))
TER32(sad_s32, alu_sad_s32(a, b, c))
TER32(sad_u16, zx16(alu_sad_u32(zx16(a), zx16(b), c)))
TER32(sad_s16, zx16(alu_sad_s32(sx16(a), sx16(b), c)))
TER64(sad_u64, alu_sad_u64(a, b, c))
TER64(sad_s64, alu_sad_s64(a, b, c))

/* ---- div / rem: lane by lane (no vector division, and inactive lanes must not matter) ---------- */

#define DIVH(name, T, R, EXPR)                                                                 \
  H(name) {                                                                                    \
    const T *A = R(w, in->o[1]), *B = R(w, in->o[2]);                                          \
    T *D = R(w, in->o[0]);                                                                     \
    FX_FOR_LANES(i, m) {                                                                       \
      T a = A[i], b = B[i];                                                                    \
      D[i] = (EXPR);                                                                           \
    }                                                                                          \
  }
DIVH(div_u32, uint32_t, FX_R32, alu_div_u32(a, b))
DIVH(div_s32, uint32_t, FX_R32, alu_div_s32(a, b))
DIVH(rem_u32, uint32_t, FX_R32, alu_rem_u32(a, b))
DIVH(rem_s32, uint32_t, FX_R32, alu_rem_s32(a, b))
DIVH(div_u16, uint32_t, FX_R32, zx16(alu_div_u32(zx16(a), zx16(b))))
DIVH(div_s16, uint32_t, FX_R32, zx16(alu_div_s32(sx16(a), sx16(b))))
DIVH(rem_u16, uint32_t, FX_R32, zx16(alu_rem_u32(zx16(a), zx16(b))))
DIVH(rem_s16, uint32_t, FX_R32, zx16(alu_rem_s32(sx16(a), sx16(b))))
DIVH(div_u64, uint64_t, FX_R64, alu_div_u64(a, b))
DIVH(div_s64, uint64_t, FX_R64, alu_div_s64(a, b))
DIVH(rem_u64, uint64_t, FX_R64, alu_rem_u64(a, b))
DIVH(rem_s64, uint64_t, FX_R64, alu_rem_s64(a, b))

/* ---- abs / neg / min / max ------------------------------------------------------------------------ */

UN32(abs_s32, alu_abs_s32(a))
UN32(abs_s16, zx16(alu_abs_s32(sx16(a))))
UN64(abs_s64, alu_abs_s64(a))
UN32(neg32, 0u - a)
UN32(neg16, zx16(0u - a))
UN64(neg64, 0ull - a)
BIN32(min_u32, alu_min_u32(a, b))
BIN32(min_s32, alu_min_s32(a, b))
BIN32(max_u32, alu_max_u32(a, b))
BIN32(max_s32, alu_max_s32(a, b))
BIN32(min_relu_s32, alu_relu_s32(alu_min_s32(a, b)))
BIN32(max_relu_s32, alu_relu_s32(alu_max_s32(a, b)))
BIN32(min_u16, alu_min_u32(zx16(a), zx16(b)))
BIN32(min_s16, zx16(alu_min_s32(sx16(a), sx16(b))))
BIN32(max_u16, alu_max_u32(zx16(a), zx16(b)))
BIN32(max_s16, zx16(alu_max_s32(sx16(a), sx16(b))))
BIN64(min_u64, alu_min_u64(a, b))
BIN64(min_s64, alu_min_s64(a, b))
BIN64(max_u64, alu_max_u64(a, b))
BIN64(max_s64, alu_max_s64(a, b))

/* ---- bit operations ------------------------------------------------------------------------------- */

UN32(popc32, alu_popc_b32(a))
UN64TO32(popc64, alu_popc_b64(a))
UN32(clz32, alu_clz_b32(a))
UN64TO32(clz64, alu_clz_b64(a))
UN32(bfind_u32, alu_bfind_u32(a, false))
UN32(bfind_s32, alu_bfind_s32(a, false))
UN32(bfind_u32_sa, alu_bfind_u32(a, true))
UN32(bfind_s32_sa, alu_bfind_s32(a, true))
UN64TO32(bfind_u64, alu_bfind_u64(a, false))
UN64TO32(bfind_s64, alu_bfind_s64(a, false))
UN64TO32(bfind_u64_sa, alu_bfind_u64(a, true))
UN64TO32(bfind_s64_sa, alu_bfind_s64(a, true))
UN32(brev32, alu_brev_b32(a))
UN64(brev64, alu_brev_b64(a))
TER32(bfe_u32, alu_bfe_u32(a, b, c))
TER32(bfe_s32, alu_bfe_s32(a, b, c))
BFX64(bfe_u64, alu_bfe_u64(a, b, c))
BFX64(bfe_s64, alu_bfe_s64(a, b, c))
H(bfi32) {
  const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]), *C = FX_R32(w, in->o[3]),
                 *L = FX_R32(w, in->o[4]);
  uint32_t r[32];
  for (unsigned i = 0; i < 32; i++) r[i] = alu_bfi_b32(A[i], B[i], C[i], L[i]);
  fx_put32(FX_R32(w, in->o[0]), r, m);
}
H(bfi64) {
  const uint64_t *A = FX_R64(w, in->o[1]), *B = FX_R64(w, in->o[2]);
  const uint32_t *C = FX_R32(w, in->o[3]), *L = FX_R32(w, in->o[4]);
  uint64_t r[32];
  for (unsigned i = 0; i < 32; i++) r[i] = alu_bfi_b64(A[i], B[i], C[i], L[i]);
  fx_put64(FX_R64(w, in->o[0]), r, m);
}
H(prmt32) {
  const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]), *C = FX_R32(w, in->o[3]);
  uint32_t r[32];
  for (unsigned i = 0; i < 32; i++) r[i] = alu_prmt_b32(A[i], B[i], C[i], (ptx_prmt_mode)in->aux);
  fx_put32(FX_R32(w, in->o[0]), r, m);
}
/* 32-bit shifts: the lanes of a warp usually shift by one amount (an immediate's constant row, or
 * a uniform register), tested once; then the loop has a loop-invariant count and vectorises (SSE2
 * has no per-lane shift counts). */
#define SHIFT32(name, EXPR)                                                                    \
  H(name) {                                                                                    \
    const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]);                         \
    uint32_t r[32], n = B[0], u = 0;                                                           \
    for (unsigned i = 0; i < 32; i++) u |= B[i] ^ n;                                           \
    if (!u) {                                                                                  \
      for (unsigned i = 0; i < 32; i++) {                                                      \
        uint32_t a = A[i], b = n;                                                              \
        r[i] = (EXPR);                                                                         \
      }                                                                                        \
    } else {                                                                                   \
      for (unsigned i = 0; i < 32; i++) {                                                      \
        uint32_t a = A[i], b = B[i];                                                           \
        r[i] = (EXPR);                                                                         \
      }                                                                                        \
    }                                                                                          \
    fx_put32(FX_R32(w, in->o[0]), r, m);                                                       \
  }
SHIFT32(shl32, alu_shl_b32(a, b))
BIN32(shl16, alu_shl_b16((uint16_t)a, b))
BIN64_32(shl64, alu_shl_b64(a, b))
SHIFT32(shr_u32, alu_shr_u32(a, b))
SHIFT32(shr_s32, alu_shr_s32(a, b))
BIN32(shr_u16, alu_shr_u16((uint16_t)a, b))
BIN32(shr_s16, alu_shr_s16((uint16_t)a, b))
BIN64_32(shr_u64, alu_shr_u64(a, b))
BIN64_32(shr_s64, alu_shr_s64(a, b))
TER32(shf_l_clamp, alu_shf_l_b32(a, b, c, false))
TER32(shf_l_wrap, alu_shf_l_b32(a, b, c, true))
TER32(shf_r_clamp, alu_shf_r_b32(a, b, c, false))
TER32(shf_r_wrap, alu_shf_r_b32(a, b, c, true))
BIN32(and32, a & b)
BIN64(and64, a & b)
BIN32(or32, a | b)
BIN64(or64, a | b)
BIN32(xor32, a ^ b)
BIN64(xor64, a ^ b)
UN32(not32, ~a)
UN32(not16, zx16(~a))
UN64(not64, ~a)
UN32(cnot32, a == 0)
UN32(cnot16, zx16(a) == 0)
UN64(cnot64, a == 0)
H(lop3_32) {
  const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]), *C = FX_R32(w, in->o[3]);
  uint32_t lut = in->aux, r[32];
  for (unsigned i = 0; i < 32; i++) r[i] = alu_lop3_b32(A[i], B[i], C[i], lut);
  fx_put32(FX_R32(w, in->o[0]), r, m);
}
BIN32(bmsk_clamp, alu_bmsk_b32(a, b, false))
BIN32(bmsk_wrap, alu_bmsk_b32(a, b, true))
BIN32(szext_s_clamp, alu_szext_b32(a, b, true, false))
BIN32(szext_s_wrap, alu_szext_b32(a, b, true, true))
BIN32(szext_u_clamp, alu_szext_b32(a, b, false, false))
BIN32(szext_u_wrap, alu_szext_b32(a, b, false, true))
H(dp4a_h) {
  const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]), *C = FX_R32(w, in->o[3]);
  uint32_t r[32];
  bool as = in->flags & 1, bs = in->flags & 2;
  for (unsigned i = 0; i < 32; i++) r[i] = alu_dp4a(A[i], B[i], C[i], as, bs);
  fx_put32(FX_R32(w, in->o[0]), r, m);
}
H(dp2a_h) {
  const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]), *C = FX_R32(w, in->o[3]);
  uint32_t r[32];
  bool as = in->flags & 1, bs = in->flags & 2, hi = in->flags & 4;
  for (unsigned i = 0; i < 32; i++) r[i] = alu_dp2a(A[i], B[i], C[i], as, bs, hi);
  fx_put32(FX_R32(w, in->o[0]), r, m);
}

/* predicate logic: and/or/xor/not on lane masks */
H(pand) { fx_putp(FX_P(w, in->o[0]), (*FX_P(w, in->o[1]) ^ in->aux) & (*FX_P(w, in->o[2]) ^ in->aux2), m); }
H(por) { fx_putp(FX_P(w, in->o[0]), (*FX_P(w, in->o[1]) ^ in->aux) | (*FX_P(w, in->o[2]) ^ in->aux2), m); }
H(pxor) { fx_putp(FX_P(w, in->o[0]), (*FX_P(w, in->o[1]) ^ in->aux) ^ (*FX_P(w, in->o[2]) ^ in->aux2), m); }
H(pnot) { fx_putp(FX_P(w, in->o[0]), ~(*FX_P(w, in->o[1]) ^ in->aux), m); }
H(pmov) { fx_putp(FX_P(w, in->o[0]), *FX_P(w, in->o[1]) ^ in->aux, m); }

/* ---- extended precision: carry flag per lane in w->cc --------------------------------------------- */

/* flags: 1 = uses carry in, 2 = writes carry out; aux: 0 add, 1 sub, 2 mad.lo, 3 mad.hi (u), 4 mad.hi (s) */
H(carry32) {
  const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]);
  const uint32_t *C = in->aux >= 2 ? FX_R32(w, in->o[3]) : NULL;
  uint32_t *D = FX_R32(w, in->o[0]);
  uint32_t cc = w->cc, out = cc;
  FX_FOR_LANES(i, m) {
    uint32_t cin = (in->flags & 1) ? (cc >> i) & 1u : 0u, co = 0, r;
    switch (in->aux) {
    case 0: r = alu_addc_u32(A[i], B[i], cin, &co); break;
    case 1: r = alu_subc_u32(A[i], B[i], cin, &co); break;
    case 2: r = alu_madc_lo_u32(A[i], B[i], C[i], cin, &co); break;
    case 3: r = alu_madc_hi_u32(A[i], B[i], C[i], cin, &co); break;
    default: r = alu_madc_hi_s32(A[i], B[i], C[i], cin, &co); break;
    }
    D[i] = r;
    out = (out & ~(1u << i)) | (co << i);
  }
  if (in->flags & 2) w->cc = out;
}
H(carry64) {
  const uint64_t *A = FX_R64(w, in->o[1]), *B = FX_R64(w, in->o[2]);
  const uint64_t *C = in->aux >= 2 ? FX_R64(w, in->o[3]) : NULL;
  uint64_t *D = FX_R64(w, in->o[0]);
  uint32_t cc = w->cc, out = cc;
  FX_FOR_LANES(i, m) {
    uint32_t cin = (in->flags & 1) ? (cc >> i) & 1u : 0u, co = 0;
    uint64_t r;
    switch (in->aux) {
    case 0: r = alu_addc_u64(A[i], B[i], cin, &co); break;
    case 1: r = alu_subc_u64(A[i], B[i], cin, &co); break;
    case 2: r = alu_madc_lo_u64(A[i], B[i], C[i], cin, &co); break;
    case 3: r = alu_madc_hi_u64(A[i], B[i], C[i], cin, &co); break;
    default: r = alu_madc_hi_s64(A[i], B[i], C[i], cin, &co); break;
    }
    D[i] = r;
    out = (out & ~(1u << i)) | (co << i);
  }
  if (in->flags & 2) w->cc = out;
}

/* ---- mov / selp ------------------------------------------------------------------------------------ */

H(mov32) { fx_put32(FX_R32(w, in->o[0]), FX_R32(w, in->o[1]), m); }
H(mov64) { fx_put64(FX_R64(w, in->o[0]), FX_R64(w, in->o[1]), m); }
H(mov128) {
  uint8_t *d = w->regs + in->o[0];
  const uint8_t *a = w->regs + in->o[1];
  FX_FOR_LANES(i, m) memmove(d + 16 * i, a + 16 * i, 16);
}
H(mov_tid_x) { fx_put32(FX_R32(w, in->o[0]), w->tid[0], m); }
H(mov_tid_y) { fx_put32(FX_R32(w, in->o[0]), w->tid[1], m); }
H(mov_tid_z) { fx_put32(FX_R32(w, in->o[0]), w->tid[2], m); }
/* special registers with one value per warp (%ntid, %ctaid, %clock …): computed once */
H(mov_sreg_uni32) {
  uint32_t v = (uint32_t)fx_sreg_value(w, in->aux, 0);
  if (in->flags & 1) v &= 0xffffu;
  fx_fill32(FX_R32(w, in->o[0]), v, m);
}
/* %ntid, %ctaid and %nctaid (dimension in->aux2) without fx_sreg_value's switch: each kernel's
 * index arithmetic reads them (mov_sreg_uni32 for the rest) */
H(mov_ntid) { fx_fill32(FX_R32(w, in->o[0]), w->l->block[in->aux2], m); }
H(mov_ctaid) { fx_fill32(FX_R32(w, in->o[0]), w->cta->ctaid[in->aux2], m); }
H(mov_nctaid) { fx_fill32(FX_R32(w, in->o[0]), w->l->grid[in->aux2], m); }
H(mov_sreg32) {
  uint32_t r[32];
  FX_FOR_LANES(i, m) r[i] = (uint32_t)fx_sreg_value(w, in->aux, i);
  uint32_t *d = FX_R32(w, in->o[0]);
  FX_FOR_LANES(i, m) d[i] = in->flags & 1 ? zx16(r[i]) : r[i];
}
H(mov_sreg_pred) {
  fx_putp(FX_P(w, in->o[0]), fx_sreg_value(w, in->aux, 0) ? FX_FULL : 0, m);
}
H(mov_sreg64) {
  uint64_t *d = FX_R64(w, in->o[0]);
  FX_FOR_LANES(i, m) d[i] = fx_sreg_value(w, in->aux, i);
}
/* mov of a frame-relative address (local variable, parameter): fp + imm */
H(mov_fp32) {
  uint32_t *d = FX_R32(w, in->o[0]);
  FX_FOR_LANES(i, m) d[i] = (uint32_t)(w->fp + in->imm);
}
H(mov_fp64) {
  uint64_t *d = FX_R64(w, in->o[0]);
  uint64_t v = (in->flags & 2) ? ((w->fp + (in->imm & ~FX_PARAM_LOCAL_TAG)) | FX_PARAM_LOCAL_TAG)
                               : w->fp + in->imm;
  FX_FOR_LANES(i, m) d[i] = v;
}

/* pack {a, b, …} into d / unpack d into {a, b, …}: element width in in->size (bits), count in vec */
typedef struct fx_pack {
  uint32_t off[8];
  uint8_t wide[8]; /* element register is 64-bit */
  uint8_t skip[8];
} fx_pack;
H(pack_h) {
  const fx_pack *pk = in->ext;
  uint32_t bits = in->size, n = in->vec;
  uint64_t emask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
  if (in->flags & 1) { /* 128-bit destination from two 64-bit halves */
    uint8_t *d = w->regs + in->o[0];
    const uint64_t *lo = FX_R64(w, pk->off[0]), *hi = FX_R64(w, pk->off[1]);
    FX_FOR_LANES(i, m) {
      memcpy(d + 16 * i, &lo[i], 8);
      memcpy(d + 16 * i + 8, &hi[i], 8);
    }
    return;
  }
  uint64_t r[32];
  FX_FOR_LANES(i, m) {
    uint64_t v = 0;
    for (uint32_t k = 0; k < n; k++) {
      uint64_t e = pk->wide[k] ? FX_R64(w, pk->off[k])[i] : FX_R32(w, pk->off[k])[i];
      v |= (e & emask) << (k * bits);
    }
    r[i] = v;
  }
  if (in->flags & 2) {
    uint64_t *d = FX_R64(w, in->o[0]);
    FX_FOR_LANES(i, m) d[i] = r[i];
  } else {
    uint32_t *d = FX_R32(w, in->o[0]);
    FX_FOR_LANES(i, m) d[i] = (uint32_t)r[i];
  }
}
H(unpack_h) {
  const fx_pack *pk = in->ext;
  uint32_t bits = in->size, n = in->vec;
  uint64_t emask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
  uint64_t src[32][2];
  FX_FOR_LANES(i, m) {
    if (in->flags & 1) memcpy(src[i], w->regs + in->o[1] + 16 * i, 16);
    else {
      src[i][0] = (in->flags & 2) ? FX_R64(w, in->o[1])[i] : FX_R32(w, in->o[1])[i];
      src[i][1] = 0;
    }
  }
  for (uint32_t k = 0; k < n; k++) {
    if (pk->skip[k]) continue;
    FX_FOR_LANES(i, m) {
      uint64_t v = (in->flags & 1) ? src[i][k] : (src[i][0] >> (k * bits)) & emask;
      if (pk->wide[k]) FX_R64(w, pk->off[k])[i] = v;
      else FX_R32(w, pk->off[k])[i] = (uint32_t)v;
    }
  }
}

H(selp32) {
  const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]);
  uint32_t p = *FX_P(w, in->o[3]) ^ in->aux, r[32];
  for (unsigned i = 0; i < 32; i++) r[i] = ((p >> i) & 1u) ? A[i] : B[i];
  fx_put32(FX_R32(w, in->o[0]), r, m);
}
H(selp64) {
  const uint64_t *A = FX_R64(w, in->o[1]), *B = FX_R64(w, in->o[2]);
  uint32_t p = *FX_P(w, in->o[3]) ^ in->aux;
  uint64_t r[32];
  for (unsigned i = 0; i < 32; i++) r[i] = ((p >> i) & 1u) ? A[i] : B[i];
  fx_put64(FX_R64(w, in->o[0]), r, m);
}

/* ---- builders ---------------------------------------------------------------------------------------- */

static uint32_t bits_of(ptx_type t) { return ptx_type_bytes(t) * 8u; }

/* Resolves d, then sources 1..nsrc with the given types. */
static simtvp_status ops(fx_build *b, uint32_t nsrc, ptx_type t1, ptx_type t2, ptx_type t3, ptx_type t4) {
  fx_insn *in = b->out;
  if (b->pi->nops < nsrc + 1) return fx_unsupported(b, "too few operands");
  simtvp_status st = fx_dst(b, 0, &in->o[0]);
  ptx_type ts[4] = {t1, t2, t3, t4};
  for (uint32_t k = 0; k < nsrc && st == SIMTVP_OK; k++) st = fx_src(b, k + 1, ts[k], &in->o[k + 1]);
  return st;
}

/* Whether source operand `opnd` (already in in->o[opnd]) is an immediate whose 32-bit constant
 * row holds 2^k with k < 31 (positive as .s32 too); *k gets k. */
static bool pow2_operand(const fx_build *b, uint32_t opnd, uint32_t *k) {
  const fx_func *f = b->f;
  if (b->pi->ops[opnd].kind != PTX_OPND_IMM) return false;
  for (uint32_t i = 0; i < f->n_const32; i++) {
    if ((uint32_t)f->const32_val[2 * i + 1] != b->out->o[opnd]) continue;
    uint64_t v = f->const32_val[2 * i];
    if (!v || (v & (v - 1)) || v >= (1ull << 31)) return false;
    *k = (uint32_t)__builtin_ctzll(v);
    return true;
  }
  return false;
}

static bool is_int(ptx_type t) {
  return (t >= PTX_TYPE_B8 && t <= PTX_TYPE_S64) && t != PTX_TYPE_B128;
}

/* Picks a handler by integer width: 16, 32 or 64 bits. */
#define PICK(b16, b32, b64) (bits == 16 ? (b16) : bits == 32 ? (b32) : bits == 64 ? (b64) : NULL)

static simtvp_status build_addsub(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  ptx_type t = (ptx_type)pi->type;
  bool sub = pi->opcode == PTX_OP_SUB || pi->opcode == PTX_OP_SUBC;
  bool carry = pi->opcode == PTX_OP_ADDC || pi->opcode == PTX_OP_SUBC || (pi->mods & PTX_MOD_CC);
  if (!is_int(t)) return fx_unsupported(b, "type not supported for this instruction");
  uint32_t bits = bits_of(t);
  simtvp_status st = ops(b, 2, t, t, PTX_TYPE_NONE, PTX_TYPE_NONE);
  if (st != SIMTVP_OK) return st;
  if (carry) {
    in->aux = sub ? 1 : 0;
    in->flags = (uint8_t)(((pi->opcode == PTX_OP_ADDC || pi->opcode == PTX_OP_SUBC) ? 1 : 0) |
                          ((pi->mods & PTX_MOD_CC) ? 2 : 0));
    in->fn = bits == 64 ? carry64 : bits == 32 ? carry32 : NULL;
    return SIMTVP_OK;
  }
  if (pi->mods & PTX_MOD_SAT) {
    if (t != PTX_TYPE_S32) return fx_unsupported(b, ".sat needs .s32");
    in->fn = sub ? sub_sat_s32 : add_sat_s32;
    return SIMTVP_OK;
  }
  in->fn = sub ? PICK(sub16, sub32, sub64) : PICK(add16, add32, add64);
  return SIMTVP_OK;
}

static simtvp_status build_mul(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  ptx_type t = (ptx_type)pi->type;
  if (!is_int(t)) return fx_unsupported(b, "type not supported for this instruction");
  uint32_t bits = bits_of(t);
  bool s = ptx_type_is_signed(t);
  simtvp_status st = ops(b, 2, t, t, PTX_TYPE_NONE, PTX_TYPE_NONE);
  if (st != SIMTVP_OK) return st;
  uint32_t k;
  if ((pi->mods & PTX_MOD_WIDE) && bits == 32 && pow2_operand(b, 2, &k)) {
    in->aux = k;
    in->fn = s ? mul_wide_s32_pow2 : mul_wide_u32_pow2;
  } else if (pi->mods & PTX_MOD_WIDE) in->fn = bits == 16 ? (s ? mul_wide_s16 : mul_wide_u16) : bits == 32 ? (s ? mul_wide_s32 : mul_wide_u32) : NULL;
  else if (pi->mods & PTX_MOD_HI) in->fn = s ? PICK(mul_hi_s16, mul_hi_s32, mul_hi_s64) : PICK(mul_hi_u16, mul_hi_u32, mul_hi_u64);
  else in->fn = PICK(mul_lo16, mul_lo32, mul_lo64);
  return SIMTVP_OK;
}

static simtvp_status build_mad(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  ptx_type t = (ptx_type)pi->type;
  if (!is_int(t)) return fx_unsupported(b, "type not supported for this instruction");
  uint32_t bits = bits_of(t);
  bool s = ptx_type_is_signed(t), wide = pi->mods & PTX_MOD_WIDE;
  ptx_type tc = wide ? (bits == 32 ? (s ? PTX_TYPE_S64 : PTX_TYPE_U64) : (s ? PTX_TYPE_S32 : PTX_TYPE_U32)) : t;
  simtvp_status st = ops(b, 3, t, t, tc, PTX_TYPE_NONE);
  if (st != SIMTVP_OK) return st;
  if (pi->opcode == PTX_OP_MADC || (pi->mods & PTX_MOD_CC)) {
    in->aux = (pi->mods & PTX_MOD_HI) ? (s ? 4 : 3) : 2;
    in->flags = (uint8_t)((pi->opcode == PTX_OP_MADC ? 1 : 0) | ((pi->mods & PTX_MOD_CC) ? 2 : 0));
    in->fn = bits == 64 ? carry64 : bits == 32 ? carry32 : NULL;
    return SIMTVP_OK;
  }
  if (wide) in->fn = bits == 16 ? (s ? mad_wide_s16 : mad_wide_u16) : bits == 32 ? (s ? mad_wide_s32 : mad_wide_u32) : NULL;
  else if (pi->mods & PTX_MOD_HI) {
    if (pi->mods & PTX_MOD_SAT) in->fn = t == PTX_TYPE_S32 ? mad_hi_sat_s32 : NULL;
    else in->fn = s ? PICK(mad_hi_s16, mad_hi_s32, mad_hi_s64) : PICK(mad_hi_u16, mad_hi_u32, mad_hi_u64);
  } else in->fn = PICK(mad_lo16, mad_lo32, mad_lo64);
  return SIMTVP_OK;
}

static simtvp_status build_mul24(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  ptx_type t = (ptx_type)pi->type;
  bool s = t == PTX_TYPE_S32, hi = pi->mods & PTX_MOD_HI;
  bool mad = pi->opcode == PTX_OP_MAD24;
  simtvp_status st = ops(b, mad ? 3 : 2, t, t, t, PTX_TYPE_NONE);
  if (st != SIMTVP_OK) return st;
  if (!mad) in->fn = hi ? (s ? mul24_hi_s32 : mul24_hi_u32) : (s ? mul24_lo_s32 : mul24_lo_u32);
  else if (hi && (pi->mods & PTX_MOD_SAT)) in->fn = s ? mad24_hi_sat_s32 : NULL;
  else in->fn = hi ? (s ? mad24_hi_s32 : mad24_hi_u32) : (s ? mad24_lo_s32 : mad24_lo_u32);
  return SIMTVP_OK;
}

static simtvp_status build_sad(fx_build *b) {
  ptx_type t = (ptx_type)b->pi->type;
  uint32_t bits = bits_of(t);
  bool s = ptx_type_is_signed(t);
  simtvp_status st = ops(b, 3, t, t, t, PTX_TYPE_NONE);
  if (st != SIMTVP_OK) return st;
  b->out->fn = s ? PICK(sad_s16, sad_s32, sad_s64) : PICK(sad_u16, sad_u32, sad_u64);
  return SIMTVP_OK;
}

static simtvp_status build_divrem(fx_build *b) {
  const ptx_insn *pi = b->pi;
  ptx_type t = (ptx_type)pi->type;
  if (!is_int(t)) return fx_unsupported(b, "type not supported for this instruction");
  uint32_t bits = bits_of(t);
  bool s = ptx_type_is_signed(t), rem = pi->opcode == PTX_OP_REM;
  simtvp_status st = ops(b, 2, t, t, PTX_TYPE_NONE, PTX_TYPE_NONE);
  if (st != SIMTVP_OK) return st;
  b->out->cls = FX_C_SFU;
  if (rem) b->out->fn = s ? PICK(rem_s16, rem_s32, rem_s64) : PICK(rem_u16, rem_u32, rem_u64);
  else b->out->fn = s ? PICK(div_s16, div_s32, div_s64) : PICK(div_u16, div_u32, div_u64);
  return SIMTVP_OK;
}

static simtvp_status build_absneg(fx_build *b) {
  const ptx_insn *pi = b->pi;
  ptx_type t = (ptx_type)pi->type;
  if (!is_int(t)) return fx_unsupported(b, "type not supported for this instruction");
  uint32_t bits = bits_of(t);
  simtvp_status st = ops(b, 1, t, PTX_TYPE_NONE, PTX_TYPE_NONE, PTX_TYPE_NONE);
  if (st != SIMTVP_OK) return st;
  b->out->fn = pi->opcode == PTX_OP_ABS ? PICK(abs_s16, abs_s32, abs_s64) : PICK(neg16, neg32, neg64);
  return SIMTVP_OK;
}

static simtvp_status build_minmax(fx_build *b) {
  const ptx_insn *pi = b->pi;
  ptx_type t = (ptx_type)pi->type;
  if (!is_int(t)) return fx_unsupported(b, "type not supported for this instruction");
  uint32_t bits = bits_of(t);
  bool s = ptx_type_is_signed(t), mx = pi->opcode == PTX_OP_MAX;
  simtvp_status st = ops(b, 2, t, t, PTX_TYPE_NONE, PTX_TYPE_NONE);
  if (st != SIMTVP_OK) return st;
  if (pi->mods & PTX_MOD_RELU) {
    b->out->fn = t == PTX_TYPE_S32 ? (mx ? max_relu_s32 : min_relu_s32) : NULL;
    return SIMTVP_OK;
  }
  b->out->fn = mx ? (s ? PICK(max_s16, max_s32, max_s64) : PICK(max_u16, max_u32, max_u64))
                  : (s ? PICK(min_s16, min_s32, min_s64) : PICK(min_u16, min_u32, min_u64));
  return SIMTVP_OK;
}

static simtvp_status build_bitcount(fx_build *b) {
  const ptx_insn *pi = b->pi;
  ptx_type t = (ptx_type)pi->type;
  uint32_t bits = bits_of(t);
  simtvp_status st = ops(b, 1, t, PTX_TYPE_NONE, PTX_TYPE_NONE, PTX_TYPE_NONE);
  if (st != SIMTVP_OK) return st;
  fx_insn *in = b->out;
  bool s = ptx_type_is_signed(t), sa = pi->mods & PTX_MOD_SHIFTAMT;
  switch (pi->opcode) {
  case PTX_OP_POPC: in->fn = bits == 64 ? popc64 : popc32; break;
  case PTX_OP_CLZ: in->fn = bits == 64 ? clz64 : clz32; break;
  case PTX_OP_BREV: in->fn = bits == 64 ? brev64 : brev32; break;
  case PTX_OP_BFIND:
    in->fn = bits == 64 ? (s ? (sa ? bfind_s64_sa : bfind_s64) : (sa ? bfind_u64_sa : bfind_u64))
                        : (s ? (sa ? bfind_s32_sa : bfind_s32) : (sa ? bfind_u32_sa : bfind_u32));
    break;
  default: break;
  }
  return SIMTVP_OK;
}

static simtvp_status build_bfe(fx_build *b) {
  ptx_type t = (ptx_type)b->pi->type;
  bool s = ptx_type_is_signed(t);
  simtvp_status st = ops(b, 3, t, PTX_TYPE_U32, PTX_TYPE_U32, PTX_TYPE_NONE);
  if (st != SIMTVP_OK) return st;
  b->out->fn = bits_of(t) == 64 ? (s ? bfe_s64 : bfe_u64) : (s ? bfe_s32 : bfe_u32);
  return SIMTVP_OK;
}

static simtvp_status build_bfi(fx_build *b) {
  ptx_type t = (ptx_type)b->pi->type;
  simtvp_status st = ops(b, 4, t, t, PTX_TYPE_U32, PTX_TYPE_U32);
  if (st != SIMTVP_OK) return st;
  b->out->fn = bits_of(t) == 64 ? bfi64 : bfi32;
  return SIMTVP_OK;
}

static simtvp_status build_prmt(fx_build *b) {
  simtvp_status st = ops(b, 3, PTX_TYPE_B32, PTX_TYPE_B32, PTX_TYPE_B32, PTX_TYPE_NONE);
  if (st != SIMTVP_OK) return st;
  b->out->aux = b->pi->sub_op;
  b->out->fn = prmt32;
  return SIMTVP_OK;
}

static simtvp_status build_shift(fx_build *b) {
  const ptx_insn *pi = b->pi;
  ptx_type t = (ptx_type)pi->type;
  uint32_t bits = bits_of(t);
  bool s = ptx_type_is_signed(t);
  simtvp_status st = ops(b, 2, t, PTX_TYPE_U32, PTX_TYPE_NONE, PTX_TYPE_NONE);
  if (st != SIMTVP_OK) return st;
  if (pi->opcode == PTX_OP_SHL) b->out->fn = PICK(shl16, shl32, shl64);
  else b->out->fn = s ? PICK(shr_s16, shr_s32, shr_s64) : PICK(shr_u16, shr_u32, shr_u64);
  return SIMTVP_OK;
}

static simtvp_status build_shf(fx_build *b) {
  const ptx_insn *pi = b->pi;
  simtvp_status st = ops(b, 3, PTX_TYPE_B32, PTX_TYPE_B32, PTX_TYPE_U32, PTX_TYPE_NONE);
  if (st != SIMTVP_OK) return st;
  bool wrap = pi->mods & PTX_MOD_WRAP, left = pi->mods & PTX_MOD_LEFT;
  b->out->fn = left ? (wrap ? shf_l_wrap : shf_l_clamp) : (wrap ? shf_r_wrap : shf_r_clamp);
  return SIMTVP_OK;
}

static simtvp_status build_logic(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  ptx_type t = (ptx_type)pi->type;
  bool unary = pi->opcode == PTX_OP_NOT || pi->opcode == PTX_OP_CNOT;
  if (t == PTX_TYPE_PRED) {
    if (pi->opcode == PTX_OP_CNOT) return fx_unsupported(b, "cnot.pred");
    simtvp_status st = fx_dst(b, 0, &in->o[0]);
    if (st == SIMTVP_OK) st = fx_pred_src(b, &pi->ops[1], &in->o[1], &in->aux);
    if (st == SIMTVP_OK && !unary) st = fx_pred_src(b, &pi->ops[2], &in->o[2], &in->aux2);
    if (st != SIMTVP_OK) return st;
    switch (pi->opcode) {
    case PTX_OP_AND: in->fn = pand; break;
    case PTX_OP_OR: in->fn = por; break;
    case PTX_OP_XOR: in->fn = pxor; break;
    default: in->fn = pnot; break;
    }
    return SIMTVP_OK;
  }
  uint32_t bits = bits_of(t);
  simtvp_status st = ops(b, unary ? 1 : 2, t, t, PTX_TYPE_NONE, PTX_TYPE_NONE);
  if (st != SIMTVP_OK) return st;
  switch (pi->opcode) {
  case PTX_OP_AND: in->fn = bits == 64 ? and64 : and32; break;
  case PTX_OP_OR: in->fn = bits == 64 ? or64 : or32; break;
  case PTX_OP_XOR: in->fn = bits == 64 ? xor64 : xor32; break;
  case PTX_OP_NOT: in->fn = PICK(not16, not32, not64); break;
  case PTX_OP_CNOT: in->fn = PICK(cnot16, cnot32, cnot64); break;
  default: break;
  }
  return SIMTVP_OK;
}

static simtvp_status build_lop3(fx_build *b) {
  const ptx_insn *pi = b->pi;
  simtvp_status st = ops(b, 3, PTX_TYPE_B32, PTX_TYPE_B32, PTX_TYPE_B32, PTX_TYPE_NONE);
  if (st != SIMTVP_OK) return st;
  if (pi->nops < 5 || pi->ops[4].kind != PTX_OPND_IMM) return fx_unsupported(b, "lop3 needs an immediate LUT");
  b->out->aux = (uint32_t)pi->ops[4].value & 0xffu;
  b->out->fn = lop3_32;
  return SIMTVP_OK;
}

static simtvp_status build_bmsk(fx_build *b) {
  simtvp_status st = ops(b, 2, PTX_TYPE_U32, PTX_TYPE_U32, PTX_TYPE_NONE, PTX_TYPE_NONE);
  if (st != SIMTVP_OK) return st;
  b->out->fn = (b->pi->mods & PTX_MOD_WRAP) ? bmsk_wrap : bmsk_clamp;
  return SIMTVP_OK;
}

static simtvp_status build_szext(fx_build *b) {
  simtvp_status st = ops(b, 2, PTX_TYPE_U32, PTX_TYPE_U32, PTX_TYPE_NONE, PTX_TYPE_NONE);
  if (st != SIMTVP_OK) return st;
  bool wrap = b->pi->mods & PTX_MOD_WRAP, s = b->pi->type == PTX_TYPE_S32;
  b->out->fn = s ? (wrap ? szext_s_wrap : szext_s_clamp) : (wrap ? szext_u_wrap : szext_u_clamp);
  return SIMTVP_OK;
}

static simtvp_status build_dp(fx_build *b) {
  const ptx_insn *pi = b->pi;
  simtvp_status st = ops(b, 3, PTX_TYPE_B32, PTX_TYPE_B32, PTX_TYPE_B32, PTX_TYPE_NONE);
  if (st != SIMTVP_OK) return st;
  /* dp4a.atype.btype: type = atype, type2 = btype */
  b->out->flags = (uint8_t)((ptx_type_is_signed((ptx_type)pi->type) ? 1 : 0) |
                            (ptx_type_is_signed((ptx_type)pi->type2) ? 2 : 0) |
                            ((pi->mods & PTX_MOD_HI) ? 4 : 0));
  b->out->fn = pi->opcode == PTX_OP_DP4A ? dp4a_h : dp2a_h;
  return SIMTVP_OK;
}

static simtvp_status build_pack(fx_build *b, bool unpack) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  const ptx_operand *vec = unpack ? &pi->ops[0] : &pi->ops[1];
  const ptx_operand *scalar = unpack ? &pi->ops[1] : &pi->ops[0];
  uint32_t total = bits_of((ptx_type)pi->type);
  if (scalar->kind == PTX_OPND_REG) total = fx_rc_bits(scalar->rclass);
  if (!vec->count || vec->count > 8) return fx_unsupported(b, "vector operand of mov");
  fx_pack *pk = fx_alloc(b->p, sizeof *pk);
  if (!pk) return simtvp_diag_set(b->diag, SIMTVP_ERR_NOMEM, "out of host memory");
  in->size = (uint8_t)(total / vec->count);
  in->vec = vec->count;
  if (total == 128) {
    if (vec->count != 2) return fx_unsupported(b, "128-bit mov packs two 64-bit halves");
    in->flags |= 1;
  } else if (total == 64) {
    in->flags |= 2;
  }
  const ptx_operand *el = fx_vec_elems(b, vec);
  ptx_type et = in->size == 64 ? PTX_TYPE_B64 : in->size == 16 ? PTX_TYPE_B16 : in->size == 8 ? PTX_TYPE_B8 : PTX_TYPE_B32;
  for (uint32_t k = 0; k < vec->count; k++) {
    simtvp_status st;
    if (el[k].kind == PTX_OPND_SINK) {
      pk->skip[k] = 1;
      continue;
    }
    st = unpack ? fx_dst_op(b, &el[k], &pk->off[k]) : fx_src_op(b, &el[k], et, &pk->off[k]);
    if (st != SIMTVP_OK) return st;
    pk->wide[k] = el[k].kind == PTX_OPND_REG ? el[k].rclass == PTX_RC_B64 : in->size == 64;
  }
  simtvp_status st = unpack ? fx_src_op(b, scalar, (ptx_type)pi->type, &in->o[1]) : fx_dst_op(b, scalar, &in->o[0]);
  if (st != SIMTVP_OK) return st;
  in->ext = pk;
  in->fn = unpack ? unpack_h : pack_h;
  return SIMTVP_OK;
}

static simtvp_status build_mov(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  if (pi->nops < 2) return fx_unsupported(b, "mov needs two operands");
  const ptx_operand *d = &pi->ops[0], *a = &pi->ops[1];
  ptx_type t = (ptx_type)pi->type;
  if (d->kind == PTX_OPND_VEC) return build_pack(b, true);
  if (a->kind == PTX_OPND_VEC) return build_pack(b, false);
  if ((t == PTX_TYPE_PRED || (d->kind == PTX_OPND_REG && d->rclass == PTX_RC_PRED)) && a->kind == PTX_OPND_SREG) {
    /* a predicate special register (%is_explicit_cluster) */
    in->aux = a->index;
    in->fn = mov_sreg_pred;
    return fx_dst(b, 0, &in->o[0]);
  }
  if (t == PTX_TYPE_PRED || (d->kind == PTX_OPND_REG && d->rclass == PTX_RC_PRED)) {
    simtvp_status st = fx_dst(b, 0, &in->o[0]);
    if (st == SIMTVP_OK) st = fx_pred_src(b, a, &in->o[1], &in->aux);
    in->fn = pmov;
    return st;
  }
  simtvp_status st = fx_dst(b, 0, &in->o[0]);
  if (st != SIMTVP_OK) return st;
  uint32_t dbits = d->kind == PTX_OPND_REG ? fx_rc_bits(d->rclass) : bits_of(t);
  if (a->kind == PTX_OPND_SREG) {
    in->aux = a->index;
    bool per_lane = a->index == PTX_SREG_LANEID || (a->index >= PTX_SREG_LANEMASK_EQ && a->index <= PTX_SREG_LANEMASK_GT);
    bool narrow = bits_of(t) == 16;
    if (narrow) in->flags |= 1;
    if (dbits == 64) in->fn = mov_sreg64;
    else if (a->index == PTX_SREG_TID_X && !narrow) in->fn = mov_tid_x;
    else if (a->index == PTX_SREG_TID_Y && !narrow) in->fn = mov_tid_y;
    else if (a->index == PTX_SREG_TID_Z && !narrow) in->fn = mov_tid_z;
    else if (per_lane || a->index == PTX_SREG_TID_X || a->index == PTX_SREG_TID_Y || a->index == PTX_SREG_TID_Z)
      in->fn = mov_sreg32;
    else if (a->index >= PTX_SREG_NTID_X && a->index <= PTX_SREG_NCTAID_Z && !narrow) {
      uint32_t g = (a->index - PTX_SREG_NTID_X) / 3u;
      in->aux2 = (a->index - PTX_SREG_NTID_X) % 3u;
      in->fn = g == 0 ? mov_ntid : g == 1 ? mov_ctaid : mov_nctaid;
    } else in->fn = mov_sreg_uni32;
    return SIMTVP_OK;
  }
  if (a->kind == PTX_OPND_SYMBOL) {
    bool fp_rel;
    uint64_t v = fx_symbol_value(b->p, b->f, a->index, a->flags & PTX_OPND_GENERIC_SYM, &fp_rel);
    if (fp_rel) {
      if (v & FX_PARAM_LOCAL_TAG) in->flags |= 2;
      in->imm = v + (uint64_t)a->value;
      in->fn = dbits == 64 ? mov_fp64 : mov_fp32;
      return SIMTVP_OK;
    }
  }
  st = fx_src_op(b, a, t, &in->o[1]);
  if (st != SIMTVP_OK) return st;
  in->fn = dbits == 128 ? mov128 : dbits == 64 ? mov64 : mov32;
  return SIMTVP_OK;
}

static simtvp_status build_selp(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  ptx_type t = (ptx_type)pi->type;
  simtvp_status st = ops(b, 2, t, t, PTX_TYPE_NONE, PTX_TYPE_NONE);
  if (st == SIMTVP_OK && pi->nops >= 4) st = fx_pred_src(b, &pi->ops[3], &in->o[3], &in->aux);
  else if (st == SIMTVP_OK) return fx_unsupported(b, "selp needs a predicate");
  if (st != SIMTVP_OK) return st;
  in->fn = bits_of(t) == 64 ? selp64 : selp32;
  return SIMTVP_OK;
}

/* Float opcodes shared with integers: fall through to the float family when the type is float. */
simtvp_status fx_build_float_arith(fx_build *b); /* exec_float.c */

static simtvp_status int_or_float(fx_build *b, fx_builder intb) {
  return ptx_type_is_float((ptx_type)b->pi->type) ? fx_build_float_arith(b) : intb(b);
}
/* The integer builders whose handlers have host variants (host_variant). */
static simtvp_status build_addsub_h(fx_build *b) {
  simtvp_status st = build_addsub(b);
  b->out->fn = host_variant(b->out->fn);
  return st;
}
static simtvp_status build_mul_h(fx_build *b) {
  simtvp_status st = build_mul(b);
  b->out->fn = host_variant(b->out->fn);
  return st;
}
static simtvp_status build_mad_h(fx_build *b) {
  simtvp_status st = build_mad(b);
  b->out->fn = host_variant(b->out->fn);
  return st;
}
static simtvp_status b_add(fx_build *b) { return int_or_float(b, build_addsub_h); }
static simtvp_status b_mul(fx_build *b) { return int_or_float(b, build_mul_h); }
static simtvp_status b_mad(fx_build *b) { return int_or_float(b, build_mad_h); }
static simtvp_status b_div(fx_build *b) { return int_or_float(b, build_divrem); }
static simtvp_status b_absneg(fx_build *b) { return int_or_float(b, build_absneg); }
static simtvp_status b_minmax(fx_build *b) { return int_or_float(b, build_minmax); }

void fx_register_int(fx_builder *t) {
  t[PTX_OP_ADD] = b_add;
  t[PTX_OP_SUB] = b_add;
  t[PTX_OP_ADDC] = build_addsub;
  t[PTX_OP_SUBC] = build_addsub;
  t[PTX_OP_MUL] = b_mul;
  t[PTX_OP_MAD] = b_mad;
  t[PTX_OP_MADC] = build_mad;
  t[PTX_OP_MUL24] = build_mul24;
  t[PTX_OP_MAD24] = build_mul24;
  t[PTX_OP_SAD] = build_sad;
  t[PTX_OP_DIV] = b_div;
  t[PTX_OP_REM] = build_divrem;
  t[PTX_OP_ABS] = b_absneg;
  t[PTX_OP_NEG] = b_absneg;
  t[PTX_OP_MIN] = b_minmax;
  t[PTX_OP_MAX] = b_minmax;
  t[PTX_OP_POPC] = build_bitcount;
  t[PTX_OP_CLZ] = build_bitcount;
  t[PTX_OP_BREV] = build_bitcount;
  t[PTX_OP_BFIND] = build_bitcount;
  t[PTX_OP_BFE] = build_bfe;
  t[PTX_OP_BFI] = build_bfi;
  t[PTX_OP_PRMT] = build_prmt;
  t[PTX_OP_SHL] = build_shift;
  t[PTX_OP_SHR] = build_shift;
  t[PTX_OP_SHF] = build_shf;
  t[PTX_OP_AND] = build_logic;
  t[PTX_OP_OR] = build_logic;
  t[PTX_OP_XOR] = build_logic;
  t[PTX_OP_NOT] = build_logic;
  t[PTX_OP_CNOT] = build_logic;
  t[PTX_OP_LOP3] = build_lop3;
  t[PTX_OP_BMSK] = build_bmsk;
  t[PTX_OP_SZEXT] = build_szext;
  t[PTX_OP_DP4A] = build_dp;
  t[PTX_OP_DP2A] = build_dp;
  t[PTX_OP_MOV] = build_mov;
  t[PTX_OP_SELP] = build_selp;
}
