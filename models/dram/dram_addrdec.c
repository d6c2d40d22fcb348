/* dram_addrdec — GPGPU-Sim-style address decoding (-gpgpu_mem_addr_mapping, read by
 * config_addr_mapping_parse) and partition indexing (linear / xor / ipoly over simtvp_gf2's
 * polynomials). See dram_addrdec.h for the format and the hash definitions.
 *
 * The map is compiled once into runs of contiguous bits per field, each a mask and a shift; the
 * ipoly hash into one table per address byte (it is linear over GF(2): the XOR of its bytes'
 * residues), a power-of-two dramid@N division into shifts. When no division by a channel count
 * that is not a power of two is left, the whole decode is linear too and is compiled into one
 * table per address byte: a decode is then the XOR of an entry per non-zero byte (a hot path:
 * every request is decoded at the partition and again by its controller, and by models/memiv for
 * every line it has not kept). */
#include "dram_addrdec.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "simtvp_gf2.h"

#define OPT_MAPPING "-gpgpu_mem_addr_mapping"

enum { FIELD_D, FIELD_B, FIELD_R, FIELD_C, FIELD_S, FIELD_COUNT };
#define MAX_RUNS 32

typedef struct bit_run {
  uint64_t mask; /* the run's address bits in place */
  uint8_t src;   /* lowest address bit of the run */
  uint8_t width; /* bits in the run */
  uint8_t dst;   /* bit of the field value it lands at (<= src: the field's lower bits lie below) */
  uint8_t shift; /* src - dst */
} bit_run;

typedef struct field_map {
  bit_run runs[MAX_RUNS];
  uint32_t n_runs;
  uint32_t bits;
  int32_t highest; /* highest address bit, -1 when the field is absent */
} field_map;

struct dram_addrmap {
  field_map fields[FIELD_COUNT];
  uint32_t n_channels;
  uint32_t n_sub;
  uint32_t channel_bits_k; /* ceil(log2 n_channels) */
  bool by_division;        /* dramid@N form */
  uint32_t dramid_bit;     /* N of dramid@N */
  dram_partition_indexing indexing;
  bool div_pow2;            /* dramid@N with a power-of-two channel count: a shift, not a division */
  uint32_t channel_shift;   /* then log2(n_channels) */
  /* ipoly: x^(i + k) mod P_k for every bit i of the address above the channel field, and per byte
   * of that address the XOR of the terms of its set bits */
  uint32_t ipoly_term[64];
  uint32_t ipoly_byte[8][256];
  /* Without a division by a channel count that is not a power of two, the whole decode is linear
   * over GF(2) in the address bits (bit selections, the XOR and ipoly hashes, a power-of-two
   * remap that never leaves the channels): then it is the XOR of one entry per address byte, each
   * the decode of that byte alone, packed as {row | column << 32, bank | burst << 16 | channel << 48}. */
  bool linear;
  uint64_t byte_decode[8][256][2];
};

static uint32_t ceil_log2(uint32_t n) {
  uint32_t k = 0;
  while ((1ull << k) < n) k++;
  return k;
}

static bool is_pow2(uint32_t n) { return n && !(n & (n - 1)); }

static inline uint64_t extract(const field_map *f, uint64_t addr) {
  uint64_t v = 0;
  for (uint32_t i = 0; i < f->n_runs; i++) v |= (addr & f->runs[i].mask) >> f->runs[i].shift;
  return v;
}

static int field_of(char c) {
  switch (c) {
    case 'D': return FIELD_D;
    case 'B': return FIELD_B;
    case 'R': return FIELD_R;
    case 'C': return FIELD_C;
    case 'S': return FIELD_S;
    default: return -1;
  }
}

static simtvp_status fail(simtvp_diag *diag, simtvp_status st, const char *option, const char *msg,
                          const char *detail) {
  return simtvp_diag_option_error(diag, st, option, "%s%s%s", msg, detail ? ": " : "", detail ? detail : "");
}

/* Fills the runs of every field from the parsed map (field[i]: address bit i). */
static simtvp_status compile_map(dram_addrmap *m, const config_addr_mapping *map, simtvp_diag *diag) {
  for (int f = 0; f < FIELD_COUNT; f++) m->fields[f].highest = -1;
  for (int bit = 0; bit < 64; bit++) {
    int f = field_of(map->field[bit]);
    if (f < 0) continue;
    field_map *fm = &m->fields[f];
    bit_run *last = fm->n_runs ? &fm->runs[fm->n_runs - 1] : NULL;
    if (last && last->src + last->width == bit) {
      last->width++;
    } else {
      if (fm->n_runs == MAX_RUNS)
        return fail(diag, SIMTVP_ERR_PARSE, OPT_MAPPING, "too many separate runs of one field", NULL);
      fm->runs[fm->n_runs++] = (bit_run){.src = (uint8_t)bit, .width = 1, .dst = (uint8_t)fm->bits};
    }
    fm->bits++;
    fm->highest = bit;
  }
  for (int f = 0; f < FIELD_COUNT; f++)
    for (uint32_t i = 0; i < m->fields[f].n_runs; i++) {
      bit_run *r = &m->fields[f].runs[i];
      r->mask = (r->width >= 64 ? ~0ull : ((1ull << r->width) - 1)) << r->src;
      r->shift = (uint8_t)(r->src - r->dst);
    }
  return SIMTVP_OK;
}

static void decode_fields(const dram_addrmap *m, uint64_t addr, dram_addr *out);

simtvp_status dram_addrmap_create(const dram_addrmap_config *cfg, dram_addrmap **out,
                                  simtvp_diag *diag) {
  *out = NULL;
  if (!cfg || !cfg->mapping)
    return fail(diag, SIMTVP_ERR_CONFIG, OPT_MAPPING, "no address mapping given", NULL);
  if (cfg->n_channels == 0 || cfg->n_channels > 65536)
    return fail(diag, SIMTVP_ERR_CONFIG, "-gpgpu_n_mem", "channel count must be 1..65536", NULL);
  uint32_t n_sub = cfg->n_sub_partitions ? cfg->n_sub_partitions : 1;
  if (!is_pow2(n_sub))
    return fail(diag, SIMTVP_ERR_CONFIG, "-gpgpu_n_sub_partition_per_mchannel",
                "must be a power of two", NULL);
  if (cfg->indexing > DRAM_PART_IPOLY)
    return fail(diag, SIMTVP_ERR_CONFIG, "-gpgpu_memory_partition_indexing",
                "supported values are 0 (linear), 1 (xor), 2 (ipoly)", NULL);

  dram_addrmap *m = calloc(1, sizeof *m);
  if (!m) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  m->n_channels = cfg->n_channels;
  m->n_sub = n_sub;
  m->channel_bits_k = ceil_log2(cfg->n_channels);
  m->indexing = cfg->indexing;

  config_addr_mapping map;
  char why[96];
  if (!config_addr_mapping_parse(cfg->mapping, &map, why, sizeof why)) {
    free(m);
    return fail(diag, SIMTVP_ERR_PARSE, OPT_MAPPING, why, NULL);
  }
  m->by_division = map.by_division;
  m->dramid_bit = map.dramid_bit;
  simtvp_status st = compile_map(m, &map, diag);
  if (st != SIMTVP_OK) {
    free(m);
    return st;
  }
  uint32_t dbits = m->fields[FIELD_D].bits;
  if (!m->by_division && (1ull << dbits) != cfg->n_channels) {
    free(m);
    return fail(diag, SIMTVP_ERR_CONFIG, "-gpgpu_n_mem",
                "channel count must equal 2^(number of D bits) in the address map "
                "(use dramid@N for other counts)", NULL);
  }
  if (m->fields[FIELD_R].bits > 32 || m->fields[FIELD_C].bits > 32 ||
      m->fields[FIELD_B].bits > 16) {
    free(m);
    return fail(diag, SIMTVP_ERR_PARSE, OPT_MAPPING,
                "at most 32 row, 32 column and 16 bank bits are supported", NULL);
  }
  if (m->indexing == DRAM_PART_IPOLY && m->channel_bits_k > SIMTVP_GF2_MAX_DEGREE) {
    free(m);
    return fail(diag, SIMTVP_ERR_CONFIG, "-gpgpu_memory_partition_indexing",
                "ipoly supports up to 65536 channels", NULL);
  }
  if (m->indexing == DRAM_PART_IPOLY) { /* bit i of the address above the channel field: x^(i+k) */
    for (uint32_t i = 0; i < 64; i++)
      m->ipoly_term[i] = simtvp_gf2_xpow_mod(i + m->channel_bits_k, m->channel_bits_k);
    for (uint32_t b = 0; b < 8; b++)
      for (uint32_t v = 0; v < 256; v++) {
        uint32_t g = 0;
        for (uint32_t k = 0; k < 8; k++)
          if (v >> k & 1u) g ^= m->ipoly_term[8 * b + k];
        m->ipoly_byte[b][v] = g;
      }
  }
  m->div_pow2 = m->by_division && is_pow2(m->n_channels);
  m->channel_shift = m->channel_bits_k;
  /* fields that fit the packed entries (bank, row and column checked above; channels <= 65536) */
  if ((!m->by_division || m->div_pow2) && m->fields[FIELD_S].bits <= 32) {
    for (uint32_t b = 0; b < 8; b++)
      for (uint32_t v = 0; v < 256; v++) {
        dram_addr d;
        decode_fields(m, (uint64_t)v << (8 * b), &d);
        m->byte_decode[b][v][0] = d.row | (uint64_t)d.column << 32;
        m->byte_decode[b][v][1] = d.bank | (uint64_t)d.burst << 16 | (uint64_t)d.channel << 48;
      }
    m->linear = true;
  }
  *out = m;
  return SIMTVP_OK;
}

void dram_addrmap_destroy(dram_addrmap *map) { free(map); }

/* The decode from the compiled fields (every map; the tables of a linear map are built with it). */
static void decode_fields(const dram_addrmap *m, uint64_t addr, dram_addr *out) {
  uint64_t a = addr, upper; /* upper: the address above the channel field */
  uint32_t ch;
  if (m->by_division) {
    uint32_t n = m->dramid_bit;
    uint64_t hi = addr >> n;
    if (m->div_pow2) {
      ch = (uint32_t)(hi & (m->n_channels - 1));
      upper = hi >> m->channel_shift;
    } else {
      ch = (uint32_t)(hi % m->n_channels);
      upper = hi / m->n_channels;
    }
    uint64_t low = n ? addr & ((1ull << n) - 1) : 0;
    a = (n ? upper << n : upper) | low;
  } else {
    ch = (uint32_t)extract(&m->fields[FIELD_D], addr);
    int h = m->fields[FIELD_D].highest;
    upper = h < 0 ? addr : (h >= 63 ? 0 : addr >> (h + 1));
  }
  out->bank = (uint32_t)extract(&m->fields[FIELD_B], a);
  out->row = (uint32_t)extract(&m->fields[FIELD_R], a);
  out->column = (uint32_t)extract(&m->fields[FIELD_C], a);
  out->burst = (uint32_t)extract(&m->fields[FIELD_S], a);

  uint32_t k = m->channel_bits_k;
  if (k && m->indexing != DRAM_PART_LINEAR) {
    uint32_t mask = (uint32_t)((1ull << k) - 1), g = 0;
    if (m->indexing == DRAM_PART_XOR) {
      g = out->row & mask;
    } else {
      for (uint32_t b = 0; upper; b++, upper >>= 8) g ^= m->ipoly_byte[b][upper & 0xffu];
    }
    uint32_t remapped = ch ^ g;
    if (remapped < m->n_channels) ch = remapped; /* keeps non-power-of-two maps one-to-one */
  }
  out->channel = ch;
  out->sub_partition = ch * m->n_sub + (out->bank & (m->n_sub - 1));
}

void dram_addrmap_decode(const dram_addrmap *m, uint64_t addr, dram_addr *out) {
  if (!m->linear) {
    decode_fields(m, addr, out);
    return;
  }
  uint64_t w0 = 0, w1 = 0;
  for (uint32_t b = 0; addr; b++, addr >>= 8) {
    const uint64_t *e = m->byte_decode[b][addr & 0xffu];
    w0 ^= e[0];
    w1 ^= e[1];
  }
  out->row = (uint32_t)w0;
  out->column = (uint32_t)(w0 >> 32);
  out->bank = (uint32_t)(w1 & 0xffffu);
  out->burst = (uint32_t)(w1 >> 16);
  out->channel = (uint32_t)(w1 >> 48);
  out->sub_partition = out->channel * m->n_sub + (out->bank & (m->n_sub - 1));
}

uint32_t dram_addrmap_bank_bits(const dram_addrmap *m) { return m->fields[FIELD_B].bits; }
uint32_t dram_addrmap_row_bits(const dram_addrmap *m) { return m->fields[FIELD_R].bits; }
uint32_t dram_addrmap_column_bits(const dram_addrmap *m) { return m->fields[FIELD_C].bits; }
uint32_t dram_addrmap_channels(const dram_addrmap *m) { return m->n_channels; }
bool dram_addrmap_linear(const dram_addrmap *m) { return m->linear; }

simtvp_status dram_partition_indexing_from_option(int32_t option, const simtvp_msg_port *msg,
                                                  dram_partition_indexing *out, simtvp_diag *diag) {
  static const char *const fallback_names[] = {"pae", "random", "custom"};
  switch (option) {
    case 0: *out = DRAM_PART_LINEAR; return SIMTVP_OK;
    case 1: *out = DRAM_PART_XOR; return SIMTVP_OK;
    case 2: *out = DRAM_PART_IPOLY; return SIMTVP_OK;
    case 3: case 4: case 5:
      simtvp_msg(msg, SIMTVP_WARNING,
                 "-gpgpu_memory_partition_indexing %d (%s) is not modelled by the memory system: using 2 (ipoly "
                 "hashing), which also spreads strided traffic over the channels",
                 (int)option, fallback_names[option - 3]);
      *out = DRAM_PART_IPOLY;
      return SIMTVP_OK;
    default:
      return fail(diag, SIMTVP_ERR_CONFIG, "-gpgpu_memory_partition_indexing",
                  "supported values are 0 (linear), 1 (xor), 2 (ipoly); 3-5 fall back to 2", NULL);
  }
}
