/* dram_addrdec — device address → memory partition (DRAM channel), L2 sub-partition, bank, row,
 * column and burst offset, as GPGPU-Sim's -gpgpu_mem_addr_mapping (manual §2.5.2 "Address
 * decoding") and -gpgpu_memory_partition_indexing.
 *
 * The map is 64 characters, most significant bit first ('.' separators are ignored):
 *   D channel bits, B bank, R row, C column, S burst (byte within a column access), 0 unused.
 * "dramid@N;<map>" instead places the channel at bit N by division, which allows channel counts
 * that are not powers of two: channel = (addr >> N) % n, and the map then describes the address
 * with those channel "bits" removed: ((addr >> N) / n) << N | (addr & (2^N - 1)). A map may not mix
 * D characters with dramid@.
 *
 * Partition indexing then spreads strided traffic over channels:
 *   linear  the channel as decoded;
 *   xor     channel ^ (row & (2^k - 1)), k = ceil(log2 n);
 *   ipoly   channel ^ ((u · x^k) mod P_k(x)) over GF(2), u = the address above the channel field,
 *           P_k an irreducible polynomial of degree k (x^4+x+1 for 16 channels …).
 * For n not a power of two the remapped value is kept only when it is < n (which keeps the map
 * one-to-one). Sub-partition = channel × n_sub + (bank mod n_sub), as GPGPU-Sim numbers L2 slices.
 *
 * The map text is read by config_addr_mapping_parse (models/config), the option's one parser. */
#ifndef SIMTVP_DRAM_ADDRDEC_H
#define SIMTVP_DRAM_ADDRDEC_H

#include <stdbool.h>
#include <stdint.h>

#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum dram_partition_indexing {
  DRAM_PART_LINEAR = 0, /* -gpgpu_memory_partition_indexing 0 */
  DRAM_PART_XOR = 1,    /* 1 */
  DRAM_PART_IPOLY = 2   /* 2 */
} dram_partition_indexing;

/* -gpgpu_memory_partition_indexing -> the indexing the decoder models: 0-2 as they are; 3 (pae),
 * 4 (random) and 5 (custom) are not modelled and fall back to 2 (ipoly), which also spreads
 * strided traffic, with a warning through msg (may be NULL); anything else is SIMTVP_ERR_CONFIG
 * naming the option. The one place that decides, for the memory system and every harness. */
simtvp_status dram_partition_indexing_from_option(int32_t option, const simtvp_msg_port *msg,
                                                  dram_partition_indexing *out, simtvp_diag *diag);

typedef struct dram_addrmap_config {
  const char *mapping;          /* -gpgpu_mem_addr_mapping text */
  uint32_t n_channels;          /* -gpgpu_n_mem */
  uint32_t n_sub_partitions;    /* -gpgpu_n_sub_partition_per_mchannel (power of two) */
  dram_partition_indexing indexing;
} dram_addrmap_config;

typedef struct dram_addr {
  uint32_t channel;       /* memory partition */
  uint32_t sub_partition; /* global L2 slice index */
  uint32_t bank;
  uint32_t row;
  uint32_t column;
  uint32_t burst;         /* byte offset inside a column access */
} dram_addr;

typedef struct dram_addrmap dram_addrmap;

/* Builds the decoder; a malformed map or inconsistent counts fail with a diag naming the option
 * (-gpgpu_mem_addr_mapping, -gpgpu_n_mem, …) and the offending character or value. */
simtvp_status dram_addrmap_create(const dram_addrmap_config *cfg, dram_addrmap **out,
                                  simtvp_diag *diag);
void dram_addrmap_destroy(dram_addrmap *map);

void dram_addrmap_decode(const dram_addrmap *map, uint64_t addr, dram_addr *out);

/* Number of bank, row and column bits the map declares. */
uint32_t dram_addrmap_bank_bits(const dram_addrmap *map);
uint32_t dram_addrmap_row_bits(const dram_addrmap *map);
uint32_t dram_addrmap_column_bits(const dram_addrmap *map);
uint32_t dram_addrmap_channels(const dram_addrmap *map);
/* True when the decode is linear over GF(2) in the address bits (no division by a channel count
 * that is not a power of two): every field of a ^ b is then the XOR of those of a and b, and the
 * decode of 0 is all zeros. */
bool dram_addrmap_linear(const dram_addrmap *map);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_DRAM_ADDRDEC_H */
