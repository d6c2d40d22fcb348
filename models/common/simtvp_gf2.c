/* simtvp_gf2 — polynomials over GF(2) for IPOLY hashing (simtvp_gf2.h). */
#include "simtvp_gf2.h"

/* Primitive polynomials over GF(2) by degree, the usual low-weight entries of the published
 * tables (trinomials where one exists, else pentanomials); each checked primitive (x has order
 * 2^degree - 1). */
static const uint32_t k_primitive[SIMTVP_GF2_MAX_DEGREE + 1] = {
    0x0,   0x3,   0x7,   0xB,    0x13,   0x25,   0x43,   0x83,    0x11D,
    0x211, 0x409, 0x805, 0x1053, 0x201B, 0x4443, 0x8003, 0x1100B,
};

uint32_t simtvp_gf2_poly(uint32_t degree) { return degree <= SIMTVP_GF2_MAX_DEGREE ? k_primitive[degree] : 0; }

uint32_t simtvp_gf2_xpow_mod(uint32_t i, uint32_t degree) {
  if (degree == 0 || degree > SIMTVP_GF2_MAX_DEGREE) return 0;
  const uint32_t p = k_primitive[degree];
  uint32_t r = 1;
  for (uint32_t k = 0; k < i; k++) {
    r <<= 1;
    if (r & (1u << degree)) r ^= p;
  }
  return r;
}
