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
 *      use the primitive polynomials of models/common/simtvp_gf2 over the whole line number.
 *   X  bitwise XOR: the linear index XOR the low tag bits.
 * Tags always hold the whole line address, so any function keeps hits exact. */
#include <stdlib.h>

#include "cache_internal.h"
#include "simtvp_gf2.h"

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

simtvp_status cache_index_init(cache *c, simtvp_diag *diag) {
  bool linear = c->sets_pow2 && (c->spec.set_index == CACHE_INDEX_LINEAR || c->spec.set_index == CACHE_INDEX_CUSTOM);
  c->index_linear = linear && !c->index_addr;
  c->index_hook_linear = linear && c->index_addr;
  if (c->spec.set_index != CACHE_INDEX_IPOLY) return SIMTVP_OK;
  uint32_t degree = c->set_bits;
  if (degree > SIMTVP_GF2_MAX_DEGREE)
    return simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "IPOLY set index: at most 65536 sets");
  c->ipoly = calloc(8, sizeof *c->ipoly);
  if (!c->ipoly) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "cache_create: out of memory");
  uint32_t bits = ipoly_bits(degree);
  c->ipoly_mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
  uint32_t res[64];
  for (uint32_t i = 0; i < 64; i++) res[i] = simtvp_gf2_xpow_mod(i, degree);
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
