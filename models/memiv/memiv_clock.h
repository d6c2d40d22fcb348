/* memiv_clock — a crossing between two clock domains (internal to models/memiv: memiv.c and its
 * tests).
 *
 * Cycle c of a domain at fa kHz is seen by a domain at fb kHz at its first edge strictly after:
 * floor(c × fb / fa) + 1 (the shells' link rule, docs/tlm.md; equal clocks: c + 1). A request
 * crosses six times (core → icnt → L2 → DRAM and back), each a 64-bit division and, before it, a
 * division to test the product for overflow: tens of CPU cycles each. The ratio is fixed at create,
 * so a crossing is prepared once: the fraction reduced (fb / fa = num / den) and the division by
 * den done as a multiplication by its rounded-up reciprocal and a shift (Granlund and Montgomery,
 * "Division by invariant integers using multiplication", PLDI 1994, theorem 4.2: with
 * l = ceil(log2 den), s = 63 + l and magic = ceil(2^s / den), floor(p / den) =
 * floor(p × magic / 2^s) for every p < 2^63; memiv_divisor, also the address decode's division by
 * a channel count that is not a power of two). The answers are the definition's, bit for bit
 * (MemivClock.* check them on random clocks and cycles); a product c × num of 2^63 or more (never in
 * a run: 2^63 / 10^7 cycles) takes the division. */
#ifndef SIMTVP_MEMIV_CLOCK_H
#define SIMTVP_MEMIV_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* A division by an invariant den >= 1 of any p below 2^63, as a multiplication and a shift. */
typedef struct memiv_divisor {
  uint64_t magic;    /* ceil(2^(63 + l) / den), l = ceil(log2 den) (den 1: unused) */
  uint32_t shift;    /* l - 1 */
  bool one;          /* den is 1: p itself */
} memiv_divisor;

typedef struct memiv_xing {
  uint64_t fa, fb;   /* the sender's and the receiver's clocks (kHz) */
  uint64_t num;      /* fb / gcd(fa, fb) */
  uint64_t lim;      /* the largest c whose product c × num is below 2^63 */
  memiv_divisor den; /* fa / gcd(fa, fb) */
  bool same;         /* equal clocks: c + 1 */
} memiv_xing;

/* floor(c × fb / fa) + 1, one division (the definition; a product past 64 bits in 128). */
static inline uint64_t memiv_xing_divide(uint64_t c, uint64_t fa, uint64_t fb) {
  if (fa == fb) return c + 1;
  return (uint64_t)((unsigned __int128)c * fb / fa) + 1;
}

static inline uint64_t memiv_gcd(uint64_t a, uint64_t b) {
  while (b) {
    uint64_t r = a % b;
    a = b;
    b = r;
  }
  return a;
}

/* The divisor den (>= 1). */
static inline memiv_divisor memiv_divisor_make(uint64_t den) {
  memiv_divisor d = {0, 0, den == 1};
  if (den > 1) {
    uint32_t l = 0;
    while (l < 64 && (1ull << l) < den) l++;
    const unsigned __int128 two_s = (unsigned __int128)1 << (63 + l);
    d.magic = (uint64_t)((two_s + den - 1) / den); /* below 2^64 unless den is 2^l: then 2^63 */
    d.shift = l - 1;
  }
  return d;
}

/* floor(p / den) for p below 2^63 (den 1: p itself). */
static inline uint64_t memiv_div(const memiv_divisor *d, uint64_t p) {
  if (d->one) return p;
  return (uint64_t)(((unsigned __int128)p * d->magic) >> 64) >> d->shift;
}

/* The crossing from a domain at fa kHz to one at fb kHz (both positive). */
static inline memiv_xing memiv_xing_make(uint64_t fa, uint64_t fb) {
  const uint64_t g = memiv_gcd(fa, fb);
  memiv_xing x = {fa, fb, fb / g, 0, memiv_divisor_make(fa / g), fa == fb};
  x.lim = ((1ull << 63) - 1) / x.num;
  return x;
}

/* floor(c × fb / fa) + 1: the receiver's first edge strictly after sender cycle c. */
static inline uint64_t memiv_xing_at(const memiv_xing *x, uint64_t c) {
  if (x->same) return c + 1;
  if (c > x->lim) return memiv_xing_divide(c, x->fa, x->fb);
  return memiv_div(&x->den, c * x->num) + 1; /* c × num below 2^63 */
}

#endif /* SIMTVP_MEMIV_CLOCK_H */
