/* simtvp_gf2 — polynomials over GF(2) for IPOLY hashing (Rau, "Pseudo-randomly interleaved
 * memory", ISCA 1991): an address is read as a polynomial and reduced modulo a primitive
 * polynomial of degree k, giving k index bits. One table of polynomials for every user: the cache
 * set index (models/cache, 'P') and the channel hash of -gpgpu_memory_partition_indexing 2
 * (models/dram dram_addrdec). */
#ifndef SIMTVP_GF2_H
#define SIMTVP_GF2_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SIMTVP_GF2_MAX_DEGREE 16

/* The primitive polynomial of a degree 1..16 (bit i = coefficient of x^i, x^degree included:
 * x^4+x+1 = 0x13); 0 for other degrees. */
uint32_t simtvp_gf2_poly(uint32_t degree);
/* x^i mod simtvp_gf2_poly(degree): the residue address bit i contributes (0 for degree 0 or
 * above the maximum). */
uint32_t simtvp_gf2_xpow_mod(uint32_t i, uint32_t degree);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_GF2_H */
