/* mempart_index — private to models/mempart: the address an L2 slice indexes its sets with.
 *
 * GPGPU-Sim's "partition address": the device address with the bits that chose the channel and
 * the sub-partition removed, so that a slice — which only ever sees its own share of the address
 * space — spreads that share over all of its sets. Read from -gpgpu_mem_addr_mapping:
 *   D form      the D bits (channel) and the lowest log2(n_sub) B bits (sub-partition = bank mod
 *               n_sub) are squeezed out, higher bits move down;
 *   dramid@N    the channel is (addr >> N) mod n: the address becomes ((addr >> N) / n) << N |
 *               (addr mod 2^N) (what the map then describes), and the sub-partition bits of that
 *               are squeezed out. */
#ifndef SIMTVP_MEMPART_INDEX_H
#define SIMTVP_MEMPART_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "simtvp_diag.h"

typedef struct mempart_index {
  bool identity;       /* no mapping: the address as it is */
  bool by_division;    /* dramid@N */
  uint32_t dramid_bit; /* N */
  uint32_t n_channels;
  uint8_t removed[64]; /* address bits to squeeze out, highest first */
  uint32_t n_removed;
} mempart_index;

/* mapping NULL: identity. A malformed map fails with a diag naming -gpgpu_mem_addr_mapping. */
simtvp_status mempart_index_init(mempart_index *ix, const char *mapping, uint32_t n_channels,
                                 uint32_t n_sub, simtvp_diag *diag);
uint64_t mempart_index_apply(const mempart_index *ix, uint64_t addr);

#endif /* SIMTVP_MEMPART_INDEX_H */
