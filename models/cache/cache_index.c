/* cache_index — set-index functions of the GPGPU-Sim cache configuration string.
 *
 *   L  linear: line number modulo the number of sets.
 *   H  the Fermi L1 hash measured by Nugteren et al. ("A detailed GPU cache model based on reuse
 *      distance theory", HPCA 2014): address bits 7-11 XOR bits {13,14,15,17,19}; with 64 sets
 *      address bit 12 is the sixth index bit.
 *   P  IPOLY (Rau, "Pseudo-randomly interleaved memory", ISCA 1991): the line number as a
 *      polynomial over GF(2) modulo an irreducible polynomial of degree log2(sets). For 16, 32 and
 *      64 sets the polynomials x^4+x+1, x^5+x^2+1, x^6+x+1 over the same address bits as
 *      GPGPU-Sim's IPOLY tables (so the same set for the same address); other power-of-two counts
 *      use the primitive polynomials below over the whole line number.
 *   X  bitwise XOR: the linear index XOR the low tag bits.
 * Tags always hold the whole line address, so any function keeps hits exact. */
#include <stdlib.h>

#include "cache_internal.h"

/* Primitive polynomials over GF(2) by degree (bit i = coefficient of x^i), the usual low-weight
 * entries of the published tables; each checked primitive (x has order 2^degree - 1). */
static const uint32_t ipoly_poly[17] = {
    0x1,     0x3,    0x7,    0xB,    0x13,   0x25,   0x43,   0x83,   0x11D,
    0x211,   0x409,  0x805,  0x1053, 0x201B, 0x4443, 0x8003, 0x1100B,
};

/* Line-number bits GPGPU-Sim's IPOLY equations use, for 16 / 32 / 64 sets (index bits plus the
 * 13 / 15 / 19 "higher" bits of its tables). */
static uint32_t ipoly_bits(uint32_t degree) {
  switch (degree) {
    case 4: return 4 + 13;
    case 5: return 5 + 15;
    case 6: return 6 + 19;
    default: return 64;
  }
}

/* x^i mod p for a polynomial p of the given degree. */
static uint32_t poly_residue(uint32_t i, uint32_t p, uint32_t degree) {
  uint32_t r = 1;
  for (uint32_t k = 0; k < i; k++) {
    r <<= 1;
    if (r & (1u << degree)) r ^= p;
  }
  return r;
}

simtvp_status cache_index_init(cache *c, simtvp_diag *diag) {
  if (c->spec.set_index != CACHE_INDEX_IPOLY) return SIMTVP_OK;
  uint32_t degree = c->set_bits;
  if (degree > 16)
    return simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "IPOLY set index: at most 65536 sets");
  c->ipoly = calloc(8, sizeof *c->ipoly);
  if (!c->ipoly) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "cache_create: out of memory");
  uint32_t bits = ipoly_bits(degree);
  c->ipoly_mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
  uint32_t res[64];
  for (uint32_t i = 0; i < 64; i++) res[i] = degree ? poly_residue(i, ipoly_poly[degree], degree) : 0;
  /* table[byte][value]: XOR of the residues of the bits set in that byte of the line number */
  for (uint32_t b = 0; b < 8; b++)
    for (uint32_t v = 0; v < 256; v++) {
      uint32_t r = 0;
      for (uint32_t k = 0; k < 8; k++)
        if (v & (1u << k)) r ^= res[8 * b + k];
      c->ipoly[b][v] = (uint16_t)r;
    }
  return SIMTVP_OK;
}

uint32_t cache_index_of(const cache *c, uint64_t addr) {
  uint64_t a = c->index_addr ? c->index_addr(c->index_ctx, addr) : addr;
  uint64_t ln = a >> c->line_log2;
  uint32_t n = c->spec.n_sets;
  switch (c->spec.set_index) {
    case CACHE_INDEX_FERMI_HASH: {
      uint32_t lower = (uint32_t)(ln & 0x1f);
      uint32_t upper = (uint32_t)(((a >> 13) & 0x7) | (((a >> 17) & 1) << 3) | (((a >> 19) & 1) << 4));
      uint32_t set = lower ^ upper;
      if (n == 64) set |= (uint32_t)((a >> 12) & 1) << 5;
      return set;
    }
    case CACHE_INDEX_IPOLY: {
      uint64_t v = ln & c->ipoly_mask;
      uint32_t set = 0;
      for (uint32_t b = 0; b < 8 && v; b++, v >>= 8) set ^= c->ipoly[b][v & 0xff];
      return set;
    }
    case CACHE_INDEX_XOR:
      return (uint32_t)((ln ^ (ln >> c->set_bits)) & (n - 1));
    case CACHE_INDEX_LINEAR:
    case CACHE_INDEX_CUSTOM:
    default:
      return c->sets_pow2 ? (uint32_t)(ln & (n - 1)) : (uint32_t)(ln % n);
  }
}
