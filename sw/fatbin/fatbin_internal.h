/* fatbin_internal.h — little-endian field readers shared by the container and cubin parsers.
 * Callers check bounds before reading; these only assemble bytes (no alignment assumed). */
#ifndef SIMTVP_FATBIN_INTERNAL_H
#define SIMTVP_FATBIN_INTERNAL_H

#include <stdint.h>

static inline uint16_t fatbin_rd16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

static inline uint32_t fatbin_rd32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline uint64_t fatbin_rd64(const uint8_t *p) {
  return (uint64_t)fatbin_rd32(p) | ((uint64_t)fatbin_rd32(p + 4) << 32);
}

#endif /* SIMTVP_FATBIN_INTERNAL_H */
