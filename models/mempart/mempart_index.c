/* mempart_index — the L2 slices' index address (channel and sub-partition bits removed); see
 * mempart_index.h. The map is read by config_addr_mapping_parse, as the DRAM decoder reads it. */
#include "mempart_index.h"

#include <string.h>

#include "config.h"

#define OPT_MAPPING "-gpgpu_mem_addr_mapping"

static simtvp_status bad_map(simtvp_diag *diag, const char *why) {
  return simtvp_diag_option_error(diag, SIMTVP_ERR_PARSE, OPT_MAPPING, "%s", why);
}

simtvp_status mempart_index_init(mempart_index *ix, const char *mapping, uint32_t n_channels,
                                 uint32_t n_sub, simtvp_diag *diag) {
  memset(ix, 0, sizeof *ix);
  if (!mapping) {
    ix->identity = true;
    return SIMTVP_OK;
  }
  if (n_channels == 0)
    return simtvp_diag_option_error(diag, SIMTVP_ERR_CONFIG, "-gpgpu_n_mem", "needs at least one channel");
  ix->n_channels = n_channels;
  config_addr_mapping map;
  char why[96];
  if (!config_addr_mapping_parse(mapping, &map, why, sizeof why)) return bad_map(diag, why);
  ix->by_division = map.by_division;
  ix->dramid_bit = map.dramid_bit;
  bool remove[64] = {false};
  uint32_t sub_bits = 0;
  while ((1u << sub_bits) < n_sub) sub_bits++;
  uint32_t banks_seen = 0;
  for (int bit = 0; bit < 64; bit++) {
    char c = map.field[bit];
    if (c == 'D') remove[bit] = true;
    if (c == 'B') {
      if (banks_seen < sub_bits) remove[bit] = true; /* the lowest bank bits pick the slice */
      banks_seen++;
    }
  }
  if (banks_seen < sub_bits)
    return bad_map(diag, "fewer bank (B) bits than sub-partition bits "
                         "(-gpgpu_n_sub_partition_per_mchannel)");
  for (int bit = 63; bit >= 0; bit--)
    if (remove[bit]) ix->removed[ix->n_removed++] = (uint8_t)bit;
  return SIMTVP_OK;
}

uint64_t mempart_index_apply(const mempart_index *ix, uint64_t addr) {
  if (ix->identity) return addr;
  uint64_t a = addr;
  if (ix->by_division) {
    uint32_t n = ix->dramid_bit;
    uint64_t upper = (addr >> n) / ix->n_channels;
    uint64_t low = n ? addr & ((1ull << n) - 1) : 0;
    a = (n ? upper << n : upper) | low;
  }
  /* Squeeze out the removed bits, highest first, so lower positions stay valid. */
  for (uint32_t i = 0; i < ix->n_removed; i++) {
    uint32_t b = ix->removed[i];
    uint64_t low = b ? a & ((1ull << b) - 1) : 0;
    uint64_t high = b >= 63 ? 0 : a >> (b + 1);
    a = (high << b) | low;
  }
  return a;
}
