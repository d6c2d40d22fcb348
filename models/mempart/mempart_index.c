/* mempart_index — the L2 slices' index address (channel and sub-partition bits removed); see
 * mempart_index.h. The map text is read only for the positions of its D and B characters; the
 * DRAM block's dram_addrmap_create is what validates a map in full. */
#include "mempart_index.h"

#include <string.h>

#define OPT_MAPPING "-gpgpu_mem_addr_mapping"

static simtvp_status bad_map(simtvp_diag *diag, const char *why) {
  simtvp_diag_set(diag, SIMTVP_ERR_PARSE, "%s: %s", OPT_MAPPING, why);
  simtvp_diag_at_option(diag, OPT_MAPPING);
  return SIMTVP_ERR_PARSE;
}

simtvp_status mempart_index_init(mempart_index *ix, const char *mapping, uint32_t n_channels,
                                 uint32_t n_sub, simtvp_diag *diag) {
  memset(ix, 0, sizeof *ix);
  if (!mapping) {
    ix->identity = true;
    return SIMTVP_OK;
  }
  if (n_channels == 0) {
    simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "-gpgpu_n_mem: needs at least one channel");
    simtvp_diag_at_option(diag, "-gpgpu_n_mem");
    return SIMTVP_ERR_CONFIG;
  }
  ix->n_channels = n_channels;
  const char *p = mapping;
  while (*p == ' ' || *p == '\t' || *p == '"') p++;
  if (strncmp(p, "dramid@", 7) == 0) {
    p += 7;
    uint32_t n = 0;
    if (*p < '0' || *p > '9') return bad_map(diag, "dramid@ needs a bit number");
    while (*p >= '0' && *p <= '9' && n < 1000) n = n * 10 + (uint32_t)(*p++ - '0');
    if (n >= 64 || *p != ';') return bad_map(diag, "expected dramid@N; with N below 64");
    p++;
    ix->by_division = true;
    ix->dramid_bit = n;
  }
  /* bit_of[i] = the character for address bit i */
  char bit_of[64];
  int count = 0;
  for (; *p && *p != '"'; p++) {
    char c = *p;
    if (c == '.' || c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    if (count == 64) return bad_map(diag, "map has more than 64 bit characters");
    bit_of[63 - count] = c;
    count++;
  }
  if (count != 64) return bad_map(diag, "map must have exactly 64 bit characters");

  bool remove[64] = {false};
  uint32_t sub_bits = 0;
  while ((1u << sub_bits) < n_sub) sub_bits++;
  uint32_t banks_seen = 0;
  for (int bit = 0; bit < 64; bit++) {
    char c = bit_of[bit];
    if (c == 'D' || c == 'd') remove[bit] = true;
    if (c == 'B' || c == 'b') {
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
