/* simtvp_bits — bit counting for hot loops without a CPU flag.
 *
 * __builtin_popcount compiles to a libgcc call (__popcountdi2) on the x86-64 baseline (no
 * -mpopcnt), which costs a call and ~30 instructions in the models' per-instruction paths; these
 * inline SWAR forms cost ~12 instructions and vectorise in lane loops. The project must not
 * require a CPU flag, so they are used instead of the builtin where it is hot. */
#ifndef SIMTVP_BITS_H
#define SIMTVP_BITS_H

#include <stdint.h>

static inline uint32_t simtvp_popcount32(uint32_t v) {
  v = v - ((v >> 1) & 0x55555555u);
  v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
  v = (v + (v >> 4)) & 0x0f0f0f0fu;
  return (v * 0x01010101u) >> 24;
}

static inline uint32_t simtvp_popcount64(uint64_t v) {
  v = v - ((v >> 1) & 0x5555555555555555ull);
  v = (v & 0x3333333333333333ull) + ((v >> 2) & 0x3333333333333333ull);
  v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return (uint32_t)((v * 0x0101010101010101ull) >> 56);
}

#endif /* SIMTVP_BITS_H */
