/* memiv — the memory system beyond the L1 in closed form (memiv.h, docs/memiv.md). */
#include "memiv.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "config.h"
#include "gpu_config.h"
#include "icnt.h"
#include "memiv_cal.h"
#include "memiv_clock.h"
#include "mempart.h"
#include "simtvp_bits.h"
#include "stats.h"

/* ---- a port's booked cycles: memiv_cal.h ---- */

/* ---- state ---------------------------------------------------------------------------------------- */

#define MEMIV_ROW_USES 8u /* rows a bank remembers (the FR-FCFS window in time order, docs/memiv.md §3) */

/* A bank's open row and the rows it opened before, each with the arrival of the request that
 * opened it (its place in time order), its ACT, the earliest that ACT could have been whatever
 * that arrival (the row before's PRE readiness + tRP and its ACT + tRC), and its PRE (UINT64_MAX
 * for the open row). Kept as columns, in no particular order: a search visits them all; a full
 * bank forgets its rows in the order it remembered them. */
typedef struct memiv_bank {
  uint64_t pre_ready; /* earliest PRE of the open row: ACT + tRAS, after the last read's burst / write's recovery */
  uint64_t closes;    /* no remembered row but the open one is open at or after this cycle */
  uint32_t open;      /* the open row's entry: the latest to arrive */
  uint32_t n;         /* rows remembered (0: never activated) */
  uint32_t evict;     /* the entry a row remembered on a full bank replaces (in turn, never the open row) */
  uint32_t row[MEMIV_ROW_USES];
  uint64_t arrived[MEMIV_ROW_USES], act[MEMIV_ROW_USES], floor[MEMIV_ROW_USES], close[MEMIV_ROW_USES];
} memiv_bank;

typedef struct memiv_channel {
  memiv_bank *bank;
  memiv_cal *group;    /* per bank group: cycles its column commands occupy (tCCDL apart) */
  memiv_cal_pair_hint *column; /* per bank group, reads then writes: what its column commands' searches learnt */
  memiv_cal bus;       /* the data bus (DRAM cycles) */
  memiv_cal activate;  /* each ACT holds the channel's activate window tRRD cycles */
  memiv_cal arbiter;   /* the partition's one request per L2 cycle toward the DRAM (L2 cycles) */
  uint64_t accounted;  /* DRAM cycles counted into n_cmd */
  uint64_t *n_cmd, *n_act, *n_pre, *n_req, *n_rd, *n_write, *bwutil, *row_hits, *latency_sum;
} memiv_channel;

typedef struct memiv_slice {
  cache *l2;
  memiv_cal intake, data, fill;  /* L2 cycles */
  memiv_cal req_out, reply_in;   /* its interconnect node: ejection of requests, injection of replies */
  uint64_t atomic_free;          /* first L2 cycle the atomic unit takes another atomic */
} memiv_slice;

typedef struct memiv_cluster {
  memiv_cal req_in, reply_out;   /* its interconnect node (icnt cycles) */
} memiv_cluster;

/* Where a line lives: its channel, global slice, bank (after -dram_bnk_indexing_policy) and row.
 * Every shipped address map decodes bits 0-6 as burst (S) or column (C) bits, so all sectors of a
 * line share them; memiv decodes the line once. */
typedef struct memiv_where {
  uint64_t line;       /* the line it belongs to (a memo entry: UINT64_MAX when empty) */
  uint64_t index;      /* the L2 index address of the line */
  uint32_t channel, slice, bank, row;
} memiv_where;

/* A fill on its way in an L2 slice, as memiv booked it: the line, the cycle its miss was at the
 * slice (A), the cycle the cache was told its sectors are readable (the cache's own record), and
 * the cycle memiv now answers for (earlier when a request of an earlier time asked afterwards). */
/* The raw route of one address byte (memiv.route_linear). */
typedef struct memiv_byte_route {
  uint64_t index;                /* its part of the L2 index address */
  uint64_t rbc;                  /* row | the decoder's bank (before -dram_bnk_indexing_policy) << 32 |
                                    channel << 48: one XOR for the three */
} memiv_byte_route;

typedef struct memiv_fill {
  uint64_t line, issued, cache_ready, ready;
} memiv_fill;

#define MEMIV_FILLS 2048u /* fills remembered (direct mapped by line, 64 KiB) */

#define MEMIV_MEMO 4096u /* decoded lines remembered (direct mapped, 160 KiB): a decode costs ~230 instructions */

enum { C_REQUESTS, C_SYSMEM, C_BYPASSED, C_LATE, C_LATENCY, C_WRITEBACKS, C_REORDERED, C_COUNT };

struct memiv {
  memiv_config cfg;
  dram_addrmap *map;
  /* the L2 index address: the channel and slice bits squeezed out (as models/mempart) */
  bool ix_identity, ix_division;
  uint32_t ix_dramid_bit;
  bool ix_pow2;          /* the division by the channel count is a shift by ix_ch_shift */
  uint32_t ix_ch_shift;
  uint64_t ix_keep[65];  /* the kept bits as runs: index = OR of (a & ix_keep[i]) >> ix_shift[i] */
  uint8_t ix_shift[65];
  uint32_t ix_n_runs;
  bool ix_offset_kept; /* the index address keeps bits 0-6: index(addr) = index(line) | offset */
  uint32_t n_clusters, n_slices, cols;
  uint32_t atom_bytes, burst_cycles, bank_mask;
  uint32_t n_groups, group_size; /* bank groups (-gpgpu_dram_timing_opt nbkgrp) and banks per group */
  uint32_t *group_of;            /* a bank's group (-dram_bnkgrp_indexing_policy), per bank */
  uint32_t *cluster_of;          /* an SM's cluster, per SM */
  /* what k 32-byte chunks cost (k up to 8: the bits of a chunk mask, models/cache's uint8_t): their
   * column commands and their data or fill port cycles (every slice's port has one width) */
  uint32_t dram_cols[9], port_cycles[9];
  bool xbar;                     /* the interconnect is the crossbar (-network_mode 1, 2) */
  bool nbk_pow2;                 /* the banks are a power of two: bank % nbk is bank & bank_mask */
  uint32_t group_gap, bus_step;  /* column commands of one group tCCDL apart, of the channel tCCD and
                                    a burst apart (DRAM cycles) */
  bool has_l2;
  memiv_cluster *cluster;
  memiv_slice *slice;
  memiv_channel *channel;
  memiv_where memo[MEMIV_MEMO];  /* recently decoded lines */
  /* With a linear address map and index address (both bit selections and XOR hashes: no division
   * by a channel count that is not a power of two), a line's route is the XOR of one entry per
   * address byte, each the route of that byte alone (built at create from the decode itself). */
  bool route_linear;
  /* With a map that divides by a channel count that is not a power of two (dramid@N) and linear
   * partition indexing, the channel is (line >> N) % channels and the rest is linear in the key
   * ((line >> N) / channels) << N | the N bits below: byte_route is then that key's (channel 0). */
  bool route_division;
  memiv_divisor per_channel;     /* the division by the channel count (memiv_clock.h) */
  memiv_byte_route byte_route[8][256];
  uint64_t upper_key;            /* bits 24-63 of the table key locate last decoded (UINT64_MAX: none) */
  memiv_byte_route upper;        /* their route (route_upper) */
  memiv_fill fills[MEMIV_FILLS]; /* recent L2 fills (out-of-order pending hits, slice_serve) */
  mem_req scratch;               /* the request presented to an L2 slice (only its timing fields change) */
  uint64_t byte_mask[16][2];     /* bytes of a line that a sector mask covers */
  uint32_t flits[MEM_SECTORS_PER_LINE + 1]; /* a packet carrying k sectors (and its 8-byte header) */
  uint64_t latest_dram;          /* latest DRAM cycle a request completed (flush write-backs) */
  /* the crossings a request makes (memiv_clock.h: prepared once, no division per request) */
  memiv_xing core_icnt, icnt_l2, l2_icnt, icnt_core, l2_dram, dram_l2;
  memiv_cal link;                /* the hub's link to system memory: cycles its transfers occupy (L2) */
  uint64_t *c[C_COUNT];
  uint64_t local[C_COUNT];
  uint64_t local_dram[9];        /* a channel's counters without a stats sink (shared: never read) */
};

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t min64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Cycles in [t, t + n) of a port, booked; returns the first. Counts bookings older than the window. */
__attribute__((always_inline)) static inline uint64_t take(memiv *m, memiv_cal *k, uint64_t t, uint32_t n) {
  if (t < k->base) {
    t = k->base;
    ++*m->c[C_LATE];
  }
  uint64_t s = memiv_cal_find(k, t, n);
  memiv_cal_book(k, s, n);
  return s;
}

/* As take, booking nothing (the caller books what it finally chooses; it counted a late want). */
static uint64_t find(memiv_cal *k, uint64_t t, uint32_t n) { return memiv_cal_find(k, t < k->base ? k->base : t, n); }

/* ---- configuration ---------------------------------------------------------------------------------- */

static uint64_t khz_of(double mhz) { return (uint64_t)(mhz * 1000.0 + 0.5); }

simtvp_status memiv_config_from_gpu(const gpu_config *g, memiv_config *cfg, simtvp_diag *diag) {
  memset(cfg, 0, sizeof *cfg);
  const gpu_config_derived *d = &g->derived;
  if (!(d->core_mhz > 0) || !(d->icnt_mhz > 0) || !(d->l2_mhz > 0) || !(d->dram_mhz > 0))
    return simtvp_diag_option_error(diag, SIMTVP_ERR_CONFIG, "-gpgpu_clock_domains",
                                    "memiv: the core, interconnect, L2 and DRAM clocks must be positive");
  cfg->n_sms = d->n_cores;
  cfg->cores_per_cluster = g->core.n_cores_per_cluster ? g->core.n_cores_per_cluster : 1;
  cfg->core_khz = khz_of(d->core_mhz);
  cfg->icnt_khz = khz_of(d->icnt_mhz);
  cfg->l2_khz = khz_of(d->l2_mhz);
  cfg->dram_khz = khz_of(d->dram_mhz);
  if (!cfg->core_khz || !cfg->icnt_khz || !cfg->l2_khz || !cfg->dram_khz)
    return simtvp_diag_option_error(diag, SIMTVP_ERR_CONFIG, "-gpgpu_clock_domains",
                                    "memiv: a clock below 1 kHz");

  /* The interconnect, as the memory system builds it (tlm/mem/mem_system.cc): the crossbar's
   * switch latency is models/icnt's default (icnt_config_default). */
  icnt_config ic;
  icnt_config_default(&ic);
  cfg->icnt_latency = ic.latency;
  cfg->icnt_hop_latency = g->icnt.hop_latency;
  switch (g->icnt.network_mode) {
    case 1: /* intersim: the memory system models it as the crossbar too (it warns once) */
    case 2: cfg->topology = MEMIV_ICNT_XBAR; break;
    case 3: cfg->topology = MEMIV_ICNT_PERFECT; break;
    case 4: cfg->topology = MEMIV_ICNT_FIXED; break;
    default:
      return simtvp_diag_option_error(diag, SIMTVP_ERR_UNSUPPORTED, "-network_mode",
                                      "memiv: supported values are 1 (as 2), 2 (crossbar), 3 (perfect), 4 (fixed); "
                                      "got %d", g->icnt.network_mode);
  }
  if (!g->icnt.flit_size)
    return simtvp_diag_option_error(diag, SIMTVP_ERR_CONFIG, "-icnt_flit_size", "memiv: a flit must hold a byte");
  cfg->flit_bytes = g->icnt.flit_size;

  /* Partitions: the latencies converted to L2 cycles exactly as models/mempart does. */
  mempart_config pc;
  mempart_config_default(&pc);
  simtvp_status s = mempart_config_from_gpu(g, 0, &pc, diag);
  if (s != SIMTVP_OK) return s;
  cfg->n_channels = g->mem.n_channels;
  cfg->n_sub = g->mem.sub_partitions_per_channel;
  cfg->addr_mapping = g->mem.addr_mapping; /* as the memory system decodes it (tlm/mem) */
  s = dram_partition_indexing_from_option(g->mem.partition_indexing, NULL, &cfg->indexing, diag);
  if (s != SIMTVP_OK) return s;
  cfg->l2 = pc.l2;
  cfg->l2_texture_only = pc.l2_texture_only;
  cfg->l2_ideal = pc.l2_ideal;
  cfg->rop_latency = pc.rop_latency;
  cfg->dram_latency = pc.dram_latency;
  cfg->atomic_ops = pc.atomic_ops;

  s = dram_timing_parse(g->dram.timing, &cfg->timing, diag);
  if (s != SIMTVP_OK) return s;
  cfg->bus_width_bytes = g->dram.bus_width;
  cfg->burst_length = g->dram.burst_length;
  cfg->data_command_freq_ratio = g->dram.data_command_freq_ratio;
  cfg->chips_per_channel = g->mem.chips_per_channel;
  cfg->bank_indexing = g->dram.bank_indexing;
  cfg->bank_group_indexing = g->dram.bankgroup_indexing;

  /* System memory: the hub's link latency (-host_sysmem_latency_ns, or the SoC fabric's in the
   * integrated modes), in L2 cycles, there and back. */
  const bool integrated = gpu_system_integrated(g->system.mode);
  double ns = integrated ? g->system.fabric_latency_ns : g->host.sysmem_latency_ns;
  cfg->sysmem_latency = (uint32_t)(ns * d->l2_mhz / 1000.0 + 0.5);
  /* ... and its bandwidth (-host_bus_bandwidth_gbs, or -soc_fabric_bandwidth_gbs), in bytes per
   * 1000 L2 cycles as tlm/mem/mem_system.cc gives it to models/hub. */
  double gbs = integrated ? g->system.fabric_bandwidth_gbs : g->host.bus_bandwidth_gbs;
  if (!(gbs > 0))
    return simtvp_diag_option_error(diag, SIMTVP_ERR_CONFIG,
                                    integrated ? "-soc_fabric_bandwidth_gbs" : "-host_bus_bandwidth_gbs",
                                    "memiv: the bandwidth must be positive (%g)", gbs);
  cfg->sysmem_bytes_per_kcycle = (uint64_t)llround(gbs * 1e6 / d->l2_mhz);
  if (!cfg->sysmem_bytes_per_kcycle) cfg->sysmem_bytes_per_kcycle = 1;
  return SIMTVP_OK;
}

/* ---- construction ------------------------------------------------------------------------------------ */

static simtvp_status index_init(memiv *m, simtvp_diag *diag) {
  const char *mapping = m->cfg.addr_mapping;
  if (!mapping || !mapping[0]) {
    m->ix_identity = m->ix_offset_kept = true;
    return SIMTVP_OK;
  }
  config_addr_mapping map;
  char why[96];
  if (!config_addr_mapping_parse(mapping, &map, why, sizeof why))
    return simtvp_diag_option_error(diag, SIMTVP_ERR_PARSE, "-gpgpu_mem_addr_mapping", "%s", why);
  m->ix_division = map.by_division;
  m->ix_dramid_bit = map.dramid_bit;
  m->ix_pow2 = !(m->cfg.n_channels & (m->cfg.n_channels - 1));
  while ((1u << m->ix_ch_shift) < m->cfg.n_channels) m->ix_ch_shift++;
  bool remove[64] = {false};
  uint32_t sub_bits = 0, banks_seen = 0;
  while ((1u << sub_bits) < m->cfg.n_sub) sub_bits++;
  for (int bit = 0; bit < 64; bit++) {
    char c = map.field[bit];
    if (c == 'D') remove[bit] = true;
    if (c == 'B' && banks_seen++ < sub_bits) remove[bit] = true; /* the lowest bank bits pick the slice */
  }
  m->ix_offset_kept = !m->ix_division || m->ix_dramid_bit >= 7;
  /* squeezing the removed bits out moves each run of kept bits down by the removed bits below it */
  uint32_t below = 0;
  for (int bit = 0; bit < 64; bit++) {
    if (remove[bit]) {
      below++;
      if (bit < 7) m->ix_offset_kept = false;
      continue;
    }
    if (bit == 0 || remove[bit - 1] || !m->ix_n_runs) m->ix_shift[m->ix_n_runs++] = (uint8_t)below;
    m->ix_keep[m->ix_n_runs - 1] |= 1ull << bit;
  }
  return SIMTVP_OK;
}

static uint64_t index_addr(const memiv *m, uint64_t addr) {
  if (m->ix_identity) return addr;
  uint64_t a = addr;
  if (m->ix_division) {
    uint32_t n = m->ix_dramid_bit;
    uint64_t upper = m->ix_pow2 ? addr >> n >> m->ix_ch_shift : (addr >> n) / m->cfg.n_channels;
    a = (n ? upper << n : upper) | (n ? addr & ((1ull << n) - 1) : 0);
  }
  uint64_t x = 0;
  for (uint32_t i = 0; i < m->ix_n_runs; i++) x |= (a & m->ix_keep[i]) >> m->ix_shift[i];
  return x;
}

/* The slices' set index (called by models/cache on every access and fill): from the decode memo
 * when the line is there. */
static uint64_t index_hook(void *ctx, uint64_t addr) {
  const memiv *m = ctx;
  uint64_t line = addr & ~127ull;
  const memiv_where *w = &m->memo[(line >> 7) % MEMIV_MEMO];
  if (m->ix_offset_kept && w->line == line) return w->index | (addr & 127);
  return index_addr(m, addr);
}

static void register_stats(memiv *m) {
  static const struct {
    const char *name, *unit, *desc;
  } k[C_COUNT] = {
      {"memiv.requests", "requests", "requests the interval cores sent beyond their L1s"},
      {"memiv.sysmem_requests", "requests", "of them to system memory (through the hub's link)"},
      {"memiv.l2_bypassed", "requests", "of them that went around the L2 (no L2, texture-only L2, forwarded)"},
      {"memiv.late_bookings", "bookings", "port bookings older than a port's 4096-cycle window (placed at its start)"},
      {"memiv.latency_sum", "cycles", "core cycles from a request's departure to its reply, summed"},
      {"memiv.l2_writebacks", "requests", "dirty L2 lines written back to DRAM"},
      {"memiv.reordered_fills", "requests", "L2 pending hits that arrived before the miss they wait for "
                                            "(out of time order): the fill is answered from their arrival"},
  };
  for (uint32_t i = 0; i < C_COUNT; i++)
    m->c[i] = m->cfg.stats ? stats_counter(m->cfg.stats, k[i].name, k[i].unit, k[i].desc) : &m->local[i];
  if (m->cfg.stats) stats_ratio(m->cfg.stats, "memiv.avg_latency", "average core cycles from request to reply",
                                "memiv.latency_sum", "memiv.requests");
  /* DRAM: GPGPU-Sim's names as models/dram registers them (the same counters when a DRAM
   * controller of the memory system registered them first: its traffic and memiv's add up). */
  static const struct {
    size_t off;
    const char *name, *unit, *desc;
  } d[] = {
      {offsetof(memiv_channel, n_cmd), "n_cmd", "cycles", "DRAM command-clock cycles simulated"},
      {offsetof(memiv_channel, n_act), "n_act", "commands", "activate commands"},
      {offsetof(memiv_channel, n_pre), "n_pre", "commands", "precharge commands"},
      {offsetof(memiv_channel, n_req), "n_req", "requests", "requests served"},
      {offsetof(memiv_channel, n_rd), "n_rd", "commands", "read column commands"},
      {offsetof(memiv_channel, n_write), "n_write", "commands", "write column commands"},
      {offsetof(memiv_channel, bwutil), "bwutil", "cycles", "data-bus busy cycles"},
      {offsetof(memiv_channel, row_hits), "row_buffer_hits", "requests", "requests served from an open row"},
      {offsetof(memiv_channel, latency_sum), "latency_sum", "cycles",
       "request latency (arrival to last data) summed"},
  };
  for (uint32_t ch = 0; ch < m->cfg.n_channels; ch++) {
    memiv_channel *c = &m->channel[ch];
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
      uint64_t **slot = (uint64_t **)((char *)c + d[i].off);
      if (m->cfg.stats) {
        char name[64];
        snprintf(name, sizeof name, "DRAM[%u].%s", ch, d[i].name);
        *slot = stats_counter(m->cfg.stats, name, d[i].unit, d[i].desc);
      } else {
        *slot = &m->local_dram[i];
      }
    }
    if (m->cfg.stats) {
      static const struct {
        const char *name, *desc, *num, *den;
      } r[] = {
          {"bw_util", "data-bus utilisation", "bwutil", "n_cmd"},
          {"row_buffer_locality", "row-buffer hit rate", "row_buffer_hits", "n_req"},
          {"avg_latency", "average request latency (cycles)", "latency_sum", "n_req"},
      };
      for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        char name[64], num[64], den[64];
        snprintf(name, sizeof name, "DRAM[%u].%s", ch, r[i].name);
        snprintf(num, sizeof num, "DRAM[%u].%s", ch, r[i].num);
        snprintf(den, sizeof den, "DRAM[%u].%s", ch, r[i].den);
        stats_ratio(m->cfg.stats, name, r[i].desc, num, den);
      }
    }
  }
}

static memiv *fail(memiv *m, simtvp_diag *diag, simtvp_status st, const char *option, const char *why) {
  if (option) simtvp_diag_option_error(diag, st, option, "memiv: %s", why);
  memiv_destroy(m);
  return NULL;
}

memiv *memiv_create(const memiv_config *cfg, simtvp_diag *diag) {
  memiv *m = calloc(1, sizeof *m);
  if (!m) {
    simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "memiv: out of host memory");
    return NULL;
  }
  m->cfg = *cfg;
  const memiv_config *c = &m->cfg;
  if (!c->core_khz || !c->icnt_khz || !c->l2_khz || !c->dram_khz)
    return fail(m, diag, SIMTVP_ERR_CONFIG, "-gpgpu_clock_domains", "every clock must be positive");
  if (!c->n_sms) return fail(m, diag, SIMTVP_ERR_CONFIG, "-gpgpu_n_clusters", "no SIMT core");
  if (!c->n_channels) return fail(m, diag, SIMTVP_ERR_CONFIG, "-gpgpu_n_mem", "no memory channel");
  if (!c->n_sub || (c->n_sub & (c->n_sub - 1)))
    return fail(m, diag, SIMTVP_ERR_CONFIG, "-gpgpu_n_sub_partition_per_mchannel", "must be a power of two");
  if (!c->flit_bytes) return fail(m, diag, SIMTVP_ERR_CONFIG, "-icnt_flit_size", "a flit must hold a byte");
  if (!c->timing.nbk || !c->bus_width_bytes || !c->burst_length || !c->data_command_freq_ratio ||
      !c->chips_per_channel)
    return fail(m, diag, SIMTVP_ERR_CONFIG, "-gpgpu_dram_timing_opt",
                "banks, bus width, burst length, data/command ratio and chips per channel must be positive");
  m->core_icnt = memiv_xing_make(c->core_khz, c->icnt_khz);
  m->icnt_l2 = memiv_xing_make(c->icnt_khz, c->l2_khz);
  m->l2_icnt = memiv_xing_make(c->l2_khz, c->icnt_khz);
  m->icnt_core = memiv_xing_make(c->icnt_khz, c->core_khz);
  m->l2_dram = memiv_xing_make(c->l2_khz, c->dram_khz);
  m->dram_l2 = memiv_xing_make(c->dram_khz, c->l2_khz);
  uint32_t cpc = c->cores_per_cluster ? c->cores_per_cluster : 1;
  m->n_clusters = (c->n_sms + cpc - 1) / cpc;
  m->n_slices = c->n_channels * c->n_sub;
  uint32_t nodes = m->n_clusters + m->n_slices;
  while ((uint64_t)m->cols * m->cols < nodes) m->cols++; /* models/icnt's 2-D layout: ceil(sqrt(nodes)) */
  m->atom_bytes = c->burst_length * c->bus_width_bytes * c->chips_per_channel;
  m->burst_cycles = (c->burst_length + c->data_command_freq_ratio - 1) / c->data_command_freq_ratio;
  if (!m->burst_cycles) m->burst_cycles = 1;
  m->n_groups = c->timing.nbkgrp > 1 && c->timing.nbk % c->timing.nbkgrp == 0 ? c->timing.nbkgrp : 1;
  m->group_size = c->timing.nbk / m->n_groups;
  m->group_gap = c->timing.tCCD;
  if (m->n_groups > 1 && c->timing.tCCDL > m->group_gap) m->group_gap = c->timing.tCCDL;
  if (!m->group_gap) m->group_gap = 1;
  m->bus_step = m->burst_cycles > c->timing.tCCD ? m->burst_cycles : c->timing.tCCD;
  if (!m->bus_step) m->bus_step = 1;
  m->xbar = c->topology != MEMIV_ICNT_PERFECT && c->topology != MEMIV_ICNT_FIXED;
  m->bank_mask = 1;
  while (m->bank_mask < c->timing.nbk) m->bank_mask <<= 1;
  m->bank_mask--;
  m->nbk_pow2 = m->bank_mask + 1 == c->timing.nbk;

  dram_addrmap_config mc = {c->addr_mapping, c->n_channels, c->n_sub, c->indexing};
  if (dram_addrmap_create(&mc, &m->map, diag) != SIMTVP_OK) return fail(m, diag, SIMTVP_OK, NULL, NULL);
  if (index_init(m, diag) != SIMTVP_OK) return fail(m, diag, SIMTVP_OK, NULL, NULL);
  if (dram_addrmap_linear(m->map) && (m->ix_identity || !m->ix_division || m->ix_pow2)) {
    for (uint32_t b = 0; b < 8; b++)
      for (uint32_t v = 0; v < 256; v++) {
        uint64_t addr = (uint64_t)v << (8 * b);
        dram_addr a;
        dram_addrmap_decode(m->map, addr, &a);
        m->byte_route[b][v] = (memiv_byte_route){
            index_addr(m, addr), (uint64_t)a.row | (uint64_t)(uint16_t)a.bank << 32 | (uint64_t)(uint16_t)a.channel << 48};
      }
    m->route_linear = true;
  } else if (m->ix_division && !m->ix_pow2 && m->ix_dramid_bit < 64 && c->indexing == DRAM_PART_LINEAR) {
    const uint32_t n = m->ix_dramid_bit;
    for (uint32_t b = 0; b < 8; b++)
      for (uint32_t v = 0; v < 256; v++) {
        /* the address whose key is v << 8b, in channel 0; a key whose address would not fit in 64
         * bits belongs to no address (a byte of an address's key is at most that of the largest
         * key), its entry stays zero */
        uint64_t key = (uint64_t)v << (8 * b), upper = key >> n;
        if (upper > (UINT64_MAX >> n) / c->n_channels) continue;
        uint64_t addr = (upper * c->n_channels) << n | (key & ((1ull << n) - 1));
        dram_addr a;
        dram_addrmap_decode(m->map, addr, &a);
        m->byte_route[b][v] = (memiv_byte_route){index_addr(m, addr), (uint64_t)a.row | (uint64_t)(uint16_t)a.bank << 32};
      }
    m->route_division = true;
    m->per_channel = memiv_divisor_make(c->n_channels);
  }

  for (uint32_t i = 0; i < MEMIV_MEMO; i++) m->memo[i].line = UINT64_MAX;
  m->upper_key = UINT64_MAX;
  for (uint32_t mask = 0; mask < 16; mask++)
    for (uint32_t i = 0; i < MEM_SECTORS_PER_LINE; i++)
      if (mask >> i & 1u) m->byte_mask[mask][i / 2] |= 0xFFFFFFFFull << (32 * (i % 2));
  for (uint32_t k = 0; k <= MEM_SECTORS_PER_LINE; k++)
    m->flits[k] = (MEM_REQ_CONTROL_BYTES + k * MEM_SECTOR_BYTES + c->flit_bytes - 1) / c->flit_bytes;
  m->scratch.needs_reply = true;
  m->cluster = calloc(m->n_clusters, sizeof *m->cluster);
  m->slice = calloc(m->n_slices, sizeof *m->slice);
  m->channel = calloc(c->n_channels, sizeof *m->channel);
  if (!m->cluster || !m->slice || !m->channel) return fail(m, diag, SIMTVP_ERR_NOMEM, "memiv", "out of host memory");
  for (uint32_t ch = 0; ch < c->n_channels; ch++)
    if (!(m->channel[ch].bank = calloc(c->timing.nbk, sizeof *m->channel[ch].bank)) ||
        !(m->channel[ch].group = calloc(m->n_groups, sizeof *m->channel[ch].group)) ||
        !(m->channel[ch].column = calloc(2 * (size_t)m->n_groups, sizeof *m->channel[ch].column)))
      return fail(m, diag, SIMTVP_ERR_NOMEM, "memiv", "out of host memory");
  if (!(m->group_of = calloc(c->timing.nbk, sizeof *m->group_of)) ||
      !(m->cluster_of = calloc(c->n_sms, sizeof *m->cluster_of)))
    return fail(m, diag, SIMTVP_ERR_NOMEM, "memiv", "out of host memory");
  for (uint32_t b = 0; b < c->timing.nbk; b++) {
    uint32_t group = c->bank_group_indexing == 1 ? b % m->n_groups : b / m->group_size;
    m->group_of[b] = group < m->n_groups ? group : 0;
  }
  for (uint32_t sm = 0; sm < c->n_sms; sm++) m->cluster_of[sm] = sm / cpc;
  register_stats(m);

  m->has_l2 = c->l2 && c->l2[0] && strcmp(c->l2, "none") != 0;
  uint32_t port_bytes = 128; /* every slice's data / fill port width (the L2 spec's, one for all) */
  if (m->has_l2) {
    cache_spec spec;
    if (cache_spec_parse(c->l2, "-gpgpu_cache:dl2", &spec, diag) != SIMTVP_OK)
      return fail(m, diag, SIMTVP_OK, NULL, NULL);
    for (uint32_t i = 0; i < m->n_slices; i++) {
      char name[64];
      snprintf(name, sizeof name, "L2_cache_bank[%u]", i);
      cache_config cc;
      memset(&cc, 0, sizeof cc);
      cc.spec = spec;
      cc.level = CACHE_LEVEL_L2;
      cc.stats = c->stats;
      cc.name = name;
      cc.stats_group = "L2";
      cc.index_addr = index_hook;
      cc.index_ctx = m;
      cc.timed = true;
      if (cache_create(&cc, &m->slice[i].l2, diag) != SIMTVP_OK) return fail(m, diag, SIMTVP_OK, NULL, NULL);
    }
    const uint32_t width = spec.data_port_bytes ? spec.data_port_bytes : spec.line_bytes;
    if (width) port_bytes = width;
  }
  for (uint32_t k = 0; k < 9; k++) {
    const uint32_t bytes = k * MEM_SECTOR_BYTES;
    m->dram_cols[k] = bytes > m->atom_bytes ? (bytes + m->atom_bytes - 1) / m->atom_bytes : 1;
    m->port_cycles[k] = bytes ? (bytes + port_bytes - 1) / port_bytes : 1;
  }
  return m;
}

void memiv_destroy(memiv *m) {
  if (!m) return;
  if (m->slice)
    for (uint32_t i = 0; i < m->n_slices; i++) cache_destroy(m->slice[i].l2);
  if (m->channel)
    for (uint32_t ch = 0; ch < m->cfg.n_channels; ch++) {
      free(m->channel[ch].bank);
      free(m->channel[ch].group);
      free(m->channel[ch].column);
    }
  free(m->group_of);
  free(m->cluster_of);
  free(m->cluster);
  free(m->slice);
  free(m->channel);
  dram_addrmap_destroy(m->map);
  free(m);
}

/* ---- the path of a request ------------------------------------------------------------------------------ */

static uint32_t hops(const memiv *m, uint32_t a, uint32_t b) {
  int ax = (int)(a % m->cols), ay = (int)(a / m->cols), bx = (int)(b % m->cols), by = (int)(b / m->cols);
  return (uint32_t)(abs(ax - bx) + abs(ay - by));
}

/* A packet between two nodes entering at icnt cycle t on the perfect or fixed-latency network. */
static uint64_t traverse_fixed(const memiv *m, uint32_t src, uint32_t dst, uint64_t t) {
  if (m->cfg.topology == MEMIV_ICNT_PERFECT) return t;
  return t + m->cfg.icnt_latency + (uint64_t)m->cfg.icnt_hop_latency * hops(m, src, dst);
}

/* A packet of `flits` from port `in` (node src) to port `out` (node dst) entering at icnt cycle t:
 * the icnt cycle it has fully arrived (models/icnt's AT rules). */
__attribute__((always_inline)) static inline uint64_t traverse(memiv *m, memiv_cal *in, memiv_cal *out, uint32_t src,
                                                               uint32_t dst, uint32_t flits, uint64_t t) {
  if (!m->xbar) return traverse_fixed(m, src, dst, t);
  /* the crossbar: the first cycles both ports are free for the whole packet */
  uint64_t lo = max64(in->base, out->base);
  if (t < lo) {
    ++*m->c[C_LATE];
    t = lo;
  }
  uint64_t g = memiv_cal_find_both(in, out, t, flits);
  memiv_cal_book(in, g, flits);
  memiv_cal_book(out, g, flits);
  return g + m->cfg.icnt_latency + flits - 1;
}

/* The entry a bank remembers a new row in: a free one, else the next in turn that is not the open
 * row (a full bank forgets its rows in the order it remembered them). */
static uint32_t remember(memiv_bank *b) {
  if (b->n < MEMIV_ROW_USES) return b->n++;
  uint32_t e = b->evict;
  if (e == b->open) e = (e + 1) % MEMIV_ROW_USES;
  b->evict = (e + 1) % MEMIV_ROW_USES;
  return e;
}

/* One DRAM request of `bytes` (whole 32-byte chunks, at most 8: a chunk mask's) to (bank, row) of
 * channel ch arriving at DRAM cycle t; returns the cycle its last data beat is on the bus. */
static uint64_t dram_serve(memiv *m, uint32_t ch_i, uint32_t bank, uint32_t row, uint32_t bytes, bool write,
                           uint64_t t) {
  const dram_timing *tm = &m->cfg.timing;
  memiv_channel *ch = &m->channel[ch_i];
  memiv_bank *b = &ch->bank[bank];
  const uint32_t o = b->open;
  uint64_t col;
  bool on_open = false; /* served on the bank's open row (its PRE readiness moves) */
  uint32_t hit = MEMIV_ROW_USES;
  if (b->n && t >= b->arrived[o]) { /* in time order after the open row's opener */
    if (b->row[o] == row) { /* row hit: the column command once the row is open */
      col = max64(t, b->act[o] + tm->tRCD);
      ++*ch->row_hits;
      on_open = true;
      goto column;
    }
    if (t < b->closes) /* a row remembered may still be open: the latest to arrive of its row */
      for (uint32_t i = 0; i < b->n; i++)
        if (b->row[i] == row && t < b->close[i] && (hit == MEMIV_ROW_USES || b->arrived[i] >= b->arrived[hit])) hit = i;
  } else if (b->n) {
    /* Out of time order: the request that opened the bank's row arrived after this one (requests
     * reach memiv in host order, up to the interval cores' horizon apart in time). In time order
     * this request came first; it never waits for a row of the bank's future. One look at the
     * remembered rows: the latest to arrive at or before t that was still open at t (its PRE
     * after t) and is its row, FR-FCFS's row hit; the first to arrive after t; whether any
     * arrived at or before t. If that next row is its row, it was that row's opener: its ACT at
     * the earliest the bank allowed (the row before's PRE readiness + tRP and ACT + tRC, its own
     * arrival + tRP when a row was open), no later than the row's booked ACT; the ACT is already
     * counted and the requests that joined the row are its hits, the row's timing stays. Else a
     * row miss: PRE at its arrival (once the row before it in time order has been open tRAS), its
     * own ACT tRP later and tRC after that row's (the channel's activate window still applies), remembered in its place in time order, open until the next row's PRE. The bank's
     * open row and its later state stay as they are. */
    uint32_t next = o, prev = MEMIV_ROW_USES;
    for (uint32_t i = 0; i < b->n; i++) {
      uint64_t a = b->arrived[i];
      if (a <= t) {
        if (prev == MEMIV_ROW_USES || a >= b->arrived[prev]) prev = i;
        if (b->row[i] == row && t < b->close[i] && (hit == MEMIV_ROW_USES || a >= b->arrived[hit])) hit = i;
      } else if (a < b->arrived[next]) {
        next = i;
      }
    }
    bool before = prev < MEMIV_ROW_USES;
    if (hit == MEMIV_ROW_USES) {
      if (b->row[next] == row) {
        uint64_t act = max64(b->floor[next], before ? t + tm->tRP : t);
        col = min64(act, b->act[next]) + tm->tRCD;
        ++*ch->row_hits;
        on_open = next == o;
      } else {
        /* the row before it in time order: closed at its arrival, or precharged then once tRAS
         * after its ACT has passed; its own ACT also tRC after that row's */
        uint64_t act = t + tm->tRP;
        if (before) {
          uint64_t p_act = b->act[prev];
          act = t >= b->close[prev] ? max64(t, b->close[prev] + tm->tRP) : max64(t, p_act + tm->tRAS) + tm->tRP;
          act = max64(act, p_act + tm->tRC);
        }
        act = take(m, &ch->activate, act, tm->tRRD ? tm->tRRD : 1);
        col = act + tm->tRCD;
        ++*ch->n_pre;
        ++*ch->n_act;
        if (before || b->n < MEMIV_ROW_USES) { /* (older than every row remembered: forgotten) */
          uint64_t close = b->act[next] > tm->tRP ? b->act[next] - tm->tRP : 0; /* (next may be replaced) */
          uint32_t e = remember(b);
          b->row[e] = row;
          b->arrived[e] = t;
          b->act[e] = act;
          b->floor[e] = 0;
          b->close[e] = close;
          b->closes = max64(b->closes, close);
        }
      }
      goto column;
    }
  }
  if (hit < MEMIV_ROW_USES) { /* a row open at its arrival: FR-FCFS serves it before that row's PRE */
    col = max64(t, b->act[hit] + tm->tRCD);
    ++*ch->row_hits;
  } else { /* in order, closed or another row open: PRE (if open), ACT, tRCD */
    uint64_t act = t, floor = 0;
    if (b->n) {
      uint64_t pre = max64(t, b->pre_ready);
      act = max64(pre + tm->tRP, b->act[o] + tm->tRC);
      floor = max64(b->pre_ready + tm->tRP, b->act[o] + tm->tRC);
      b->close[o] = pre;
      b->closes = max64(b->closes, pre);
      ++*ch->n_pre;
    }
    act = take(m, &ch->activate, act, tm->tRRD ? tm->tRRD : 1); /* ACTs of a channel tRRD apart */
    col = act + tm->tRCD;
    uint32_t e = remember(b);
    b->row[e] = row;
    b->arrived[e] = t;
    b->act[e] = act;
    b->floor[e] = floor;
    b->close[e] = UINT64_MAX;
    b->open = e;
    b->pre_ready = act + tm->tRAS;
    ++*ch->n_act;
    on_open = true;
  }
column:;
  uint32_t cols = m->dram_cols[bytes / MEM_SECTOR_BYTES];
  /* the column commands: tCCDL apart in their bank group, tCCD and a burst apart on the bus; the
   * first cycle both the group's command slots and the bus's data cycles are free */
  uint32_t lat = write ? tm->WL : tm->CL;
  uint32_t group = m->group_of[bank];
  memiv_cal *g = &ch->group[group];
  memiv_cal_pair_hint *learnt = &ch->column[2 * group + write];
  uint32_t g_len = cols * m->group_gap, bus_len = cols * m->bus_step;
  if (col < g->base || col + lat < ch->bus.base) ++*m->c[C_LATE];
  col = max64(col, g->base);
  if (col + lat < ch->bus.base) col = ch->bus.base - lat;
  col = memiv_cal_find_pair(g, g_len, &ch->bus, lat, bus_len, col, learnt);
  memiv_cal_pair_booked(learnt, col, g_len);
  memiv_cal_book_backlog(g, col, g_len);
  memiv_cal_book_backlog(&ch->bus, col + lat, bus_len);
  uint32_t step = m->group_gap > m->bus_step ? m->group_gap : m->bus_step;
  uint64_t data = col + lat;
  uint64_t end = data + (uint64_t)(cols - 1) * step + m->burst_cycles;
  uint32_t busy = cols * m->burst_cycles;
  /* reads: PRE after the last column command's burst (tRTP); writes: after write recovery */
  if (on_open)
    b->pre_ready = max64(b->pre_ready, write ? end + tm->tWR : col + (uint64_t)(cols - 1) * step + m->burst_cycles);
  ++*ch->n_req;
  *(write ? ch->n_write : ch->n_rd) += cols;
  *ch->bwutil += busy;
  *ch->latency_sum += end - t;
  if (end > ch->accounted) {
    *ch->n_cmd += end - ch->accounted;
    ch->accounted = end;
  }
  if (end > m->latest_dram) m->latest_dram = end;
  return end;
}

/* The route of an address's bytes 3-7 (bits 24-63) alone, with a linear map: the XOR of their
 * table entries. */
static memiv_byte_route route_upper(const memiv *m, uint64_t line) {
  const memiv_byte_route *e3 = &m->byte_route[3][(line >> 24) & 0xffu], *e4 = &m->byte_route[4][(line >> 32) & 0xffu],
                         *e5 = &m->byte_route[5][(line >> 40) & 0xffu], *e6 = &m->byte_route[6][(line >> 48) & 0xffu],
                         *e7 = &m->byte_route[7][line >> 56];
  return (memiv_byte_route){e3->index ^ e4->index ^ e5->index ^ e6->index ^ e7->index,
                            e3->rbc ^ e4->rbc ^ e5->rbc ^ e6->rbc ^ e7->rbc};
}

/* Decodes `line` into *w; with a table route, `key` is the address the tables are indexed by (the
 * line, or route_division's key), `ch` the channel the key leaves out and `upper` route_upper(m, key). */
__attribute__((always_inline)) static inline void decode_with(const memiv *m, uint64_t line, uint64_t key, uint32_t ch, const memiv_byte_route *upper,
                        memiv_where *w) {
  uint32_t raw_bank, row, channel;
  if (m->route_linear || m->route_division) {
    /* bytes 0-2 (a byte that is zero adds a zero entry), then the upper bytes' route */
    const memiv_byte_route *e0 = &m->byte_route[0][key & 0xffu], *e1 = &m->byte_route[1][(key >> 8) & 0xffu],
                           *e2 = &m->byte_route[2][(key >> 16) & 0xffu];
    uint64_t index = e0->index ^ e1->index ^ e2->index ^ upper->index;
    uint64_t rbc = e0->rbc ^ e1->rbc ^ e2->rbc ^ upper->rbc;
    w->index = index;
    row = (uint32_t)rbc;
    raw_bank = (uint16_t)(rbc >> 32);
    channel = (uint16_t)(rbc >> 48) ^ ch;
  } else {
    dram_addr a;
    dram_addrmap_decode(m->map, line, &a);
    w->index = index_addr(m, line);
    raw_bank = a.bank;
    row = a.row;
    channel = a.channel;
  }
  uint32_t sub = channel * m->cfg.n_sub + (raw_bank & (m->cfg.n_sub - 1)); /* as dram_addrmap_decode */
  uint32_t bank = raw_bank;
  if (m->cfg.bank_indexing == 1) bank ^= row & m->bank_mask;
  w->line = line;
  w->channel = channel;
  w->slice = sub < m->n_slices ? sub : 0;
  w->bank = m->nbk_pow2 ? bank & m->bank_mask : bank % m->cfg.timing.nbk;
  w->row = row;
}

/* route_division's key of a line (the address with the channel squeezed out) and its channel, as
 * dram_addrmap_decode divides. */
static uint64_t division_key(const memiv *m, uint64_t line, uint32_t *ch) {
  const uint32_t n = m->ix_dramid_bit;
  const uint64_t hi = line >> n;
  const uint64_t q = hi >> 63 ? hi / m->cfg.n_channels : memiv_div(&m->per_channel, hi);
  *ch = (uint32_t)(hi - q * m->cfg.n_channels);
  return q << n | (line & ((1ull << n) - 1));
}

static void decode(const memiv *m, uint64_t line, memiv_where *w) {
  memiv_byte_route upper = {0, 0};
  uint64_t key = line;
  uint32_t ch = 0;
  if (m->route_division) key = division_key(m, line, &ch);
  if (m->route_linear || m->route_division) upper = route_upper(m, key);
  decode_with(m, line, key, ch, &upper, w);
}

/* The decoded line (remembered: a pure function of the address, so the memo changes no result).
 * The route of the table key's upper bytes is remembered too: a kernel's lines mostly share bits
 * 24-63. */
static const memiv_where *locate(memiv *m, uint64_t line) {
  memiv_where *w = &m->memo[(line >> 7) % MEMIV_MEMO];
  if (w->line == line) return w;
  if (!m->route_linear && !m->route_division) {
    decode(m, line, w);
    return w;
  }
  uint64_t key = line;
  uint32_t ch = 0;
  if (m->route_division) key = division_key(m, line, &ch);
  if (key >> 24 != m->upper_key) {
    m->upper_key = key >> 24;
    m->upper = route_upper(m, key);
  }
  decode_with(m, line, key, ch, &m->upper, w);
  return w;
}

/* A request leaving the partition toward the DRAM at L2 cycle t (after -dram_latency and the
 * arbiter): the L2 cycle its data (or a write's completion) is back at the partition. */
static uint64_t to_dram(memiv *m, const memiv_where *w, uint32_t bytes, bool write, uint64_t t) {
  uint32_t channel = w->channel, bank = w->bank, row = w->row;
  uint64_t d = take(m, &m->channel[channel].arbiter, t, 1);
  uint64_t end = dram_serve(m, channel, bank, row, bytes, write, memiv_xing_at(&m->l2_dram, d));
  return memiv_xing_at(&m->dram_l2, end);
}

/* System memory through models/hub: the partition hands the request on as it would to its DRAM
 * (one per L2 cycle, at t), the hub's link carries its bytes once, whichever way they flow
 * (ceil(bytes × 1000 / bytes_per_kcycle) cycles, transfers one after another), and the reply is
 * back at the partition the link's round trip later. Returns that L2 cycle. */
static uint64_t to_host(memiv *m, const memiv_where *w, uint32_t bytes, uint64_t t) {
  const memiv_config *c = &m->cfg;
  uint64_t d = take(m, &m->channel[w->channel].arbiter, t, 1) + 1;
  uint64_t ser = 0;
  if (c->sysmem_bytes_per_kcycle) {
    ser = ((uint64_t)bytes * 1000 + c->sysmem_bytes_per_kcycle - 1) / c->sysmem_bytes_per_kcycle;
    if (ser > MEMIV_CAL_CYCLES / 2) ser = MEMIV_CAL_CYCLES / 2;
    if (ser) d = take(m, &m->link, d, (uint32_t)ser);
  }
  return d + ser + c->sysmem_latency + 1;
}

/* The slice's part: the request reaches slice `si` at L2 cycle t; returns the L2 cycle its reply
 * leaves the slice. */
static uint64_t slice_serve(memiv *m, const memiv_where *w, uint8_t sectors, const uint64_t *byte_mask, uint8_t kind,
                            bool is_write, uint8_t n_ops, bool sysmem, uint64_t t) {
  const memiv_config *c = &m->cfg;
  const uint32_t si = w->slice;
  const uint64_t line = w->line;
  memiv_slice *s = &m->slice[si];
  uint32_t bytes = (uint32_t)simtvp_popcount32(sectors) * MEM_SECTOR_BYTES;
  uint64_t first = line + (uint64_t)__builtin_ctz(sectors) * MEM_SECTOR_BYTES;
  uint64_t a = take(m, &s->intake, t, 1);
  uint64_t A = a + c->rop_latency + 1;
  uint32_t ops = kind == MEM_ACC_ATOMIC ? (n_ops ? n_ops : 1u) : 0u;
  if (ops && c->atomic_ops && A < s->atomic_free) A = s->atomic_free;
  if (A < s->data.base) ++*m->c[C_LATE];
  A = find(&s->data, A, 1);
  if (ops && c->atomic_ops) s->atomic_free = A + (ops + c->atomic_ops - 1) / c->atomic_ops;
  uint64_t dram_at = A + 2 + c->dram_latency;

  if (sysmem) { /* around the L2, through the partition's DRAM-side queue, to the hub and back */
    memiv_cal_book(&s->data, A, 1);
    ++*m->c[C_SYSMEM];
    return to_host(m, w, bytes, dram_at);
  }
  if (c->l2_ideal) return A + 1;
  if (!m->has_l2 || (c->l2_texture_only && kind != MEM_ACC_TEXTURE_R)) { /* around the L2 */
    memiv_cal_book(&s->data, A, 1);
    ++*m->c[C_BYPASSED];
    return to_dram(m, w, bytes, is_write && kind != MEM_ACC_ATOMIC, dram_at) + 1;
  }

  mem_req *req = &m->scratch;
  req->addr = first;
  req->size = bytes;
  req->sector_mask = sectors;
  req->kind = kind;
  req->is_write = is_write;
  req->n_ops = n_ops;
  req->byte_mask[0] = m->byte_mask[sectors][0];
  req->byte_mask[1] = m->byte_mask[sectors][1];
  if (byte_mask && is_write) { /* a partial write: the sectors' other bytes stay unwritten (lazy fetch-on-read) */
    req->byte_mask[0] &= byte_mask[0];
    req->byte_mask[1] &= byte_mask[1];
  }
  cache_timed_result r;
  cache_timed_access(s->l2, req, A, &r);
  bool hit = r.status != CACHE_MISS;
  memiv_cal_book(&s->data, A, hit && !r.forward ? m->port_cycles[bytes / MEM_SECTOR_BYTES] : 1);
  if (r.wb_chunks) { /* a dirty victim: written back, nobody waits */
    ++*m->c[C_WRITEBACKS];
    memiv_where victim; /* decoded aside: the memo entry `w` stays this request's */
    decode(m, r.wb_line, &victim);
    uint8_t wb = cache_line_sectors(s->l2, r.wb_line, r.wb_chunks); /* (an unsectored line: whole) */
    to_dram(m, &victim, (uint32_t)simtvp_popcount32(wb) * MEM_SECTOR_BYTES, true, dram_at);
  }
  uint64_t filled = 0;
  if (r.fetch) {
    uint8_t fetch = cache_line_sectors(s->l2, r.line, r.fetch);
    uint32_t fbytes = (uint32_t)simtvp_popcount32(fetch) * MEM_SECTOR_BYTES;
    uint64_t back = to_dram(m, w, fbytes, false, dram_at);
    filled = take(m, &s->fill, back, m->port_cycles[fbytes / MEM_SECTOR_BYTES]);
    cache_timed_fill(s->l2, r.line, r.fetch, filled);
  }
  if (r.forward) { /* write-through, write-evict, no-allocate miss: the request goes on to DRAM */
    ++*m->c[C_BYPASSED];
    return to_dram(m, w, bytes, is_write && kind != MEM_ACC_ATOMIC, dram_at) + 1;
  }
  uint64_t pending = r.status == CACHE_MISS ? r.pending_ready : r.status == CACHE_HIT_RESERVED ? r.ready : 0;
  if (r.fetch) {
    memiv_fill *f = &m->fills[(line >> 7) % MEMIV_FILLS];
    f->line = line;
    f->issued = A;
    f->cache_ready = f->ready = filled;
  } else if (pending && pending != CACHE_NEVER) {
    /* Waiting for a fill that a request of a later time started: requests reach memiv in host
     * order, up to the interval cores' horizon out of time order. In time order this request came
     * first and would have been the miss: it waits the miss's own latency from its arrival, and
     * so does every later request for that fill. */
    memiv_fill *f = &m->fills[(line >> 7) % MEMIV_FILLS];
    if (f->line == line && f->cache_ready == pending) {
      if (A < f->issued) {
        f->ready -= f->issued - A;
        f->issued = A;
        ++*m->c[C_REORDERED];
      }
      if (r.status == CACHE_MISS) r.pending_ready = f->ready;
      else r.ready = f->ready;
    }
  }
  bool reads = !is_write || kind == MEM_ACC_ATOMIC;
  if (!reads) return A + 2; /* a write the L2 absorbed: acknowledged as a hit */
  uint64_t ready = A;
  if (r.status == CACHE_MISS) ready = max64(A, max64(filled, r.pending_ready));
  else if (r.ready != CACHE_NEVER) ready = max64(A, r.ready);
  return ready + 2;
}

uint64_t memiv_access(void *ctx, uint32_t sm, uint64_t line_addr, uint8_t sector_mask, const uint64_t *byte_mask,
                      uint8_t kind, bool is_write, uint8_t n_ops, uint64_t at) {
  memiv *m = ctx;
  const memiv_config *c = &m->cfg;
  uint8_t sectors = sector_mask & 0xFu;
  if (!sectors) sectors = 0xFu;
  line_addr &= ~(uint64_t)(MEM_SECTOR_BYTES * MEM_SECTORS_PER_LINE - 1);
  uint32_t n_sectors = (uint32_t)simtvp_popcount32(sectors);
  uint32_t cl = sm < c->n_sms ? m->cluster_of[sm] : 0;
  ++*m->c[C_REQUESTS];

  /* where the line lives: system memory is routed by its bus address, as the partitions do */
  bool sysmem = false;
  uint64_t route = line_addr;
  if (c->aperture.of_bus) {
    uint64_t bus = 0;
    sysmem = c->aperture.of_bus(c->aperture.ctx, line_addr, &bus) == MEM_APERTURE_SYSMEM;
    if (sysmem && bus) route = bus & ~(uint64_t)127;
  } else if (c->aperture.of) {
    sysmem = c->aperture.of(c->aperture.ctx, line_addr) == MEM_APERTURE_SYSMEM;
  }
  const memiv_where *w = locate(m, route);
  uint32_t si = w->slice;
  uint32_t src = cl, dst = m->n_clusters + si;

  /* request: core → icnt → slice */
  uint32_t req_flits = m->flits[is_write ? n_sectors : 0];
  uint64_t t = memiv_xing_at(&m->core_icnt, at);
  t = traverse(m, &m->cluster[cl].req_in, &m->slice[si].req_out, src, dst, req_flits, t);
  t = memiv_xing_at(&m->icnt_l2, t);
  t = slice_serve(m, w, sectors, byte_mask, kind, is_write, n_ops, sysmem, t);

  /* reply: slice → icnt → core (data for reads and atomics with a result, an acknowledgement for
   * writes and reductions: mem_req_wire_bytes' rule) */
  bool data_back = !is_write;
  uint32_t reply_flits = m->flits[data_back ? n_sectors : 0];
  t = memiv_xing_at(&m->l2_icnt, t);
  t = traverse(m, &m->slice[si].reply_in, &m->cluster[cl].reply_out, dst, src, reply_flits, t);
  t = memiv_xing_at(&m->icnt_core, t);
  *m->c[C_LATENCY] += t - at;
  return t;
}

/* ---- kernel boundaries --------------------------------------------------------------------------------- */

typedef struct flush_ctx {
  memiv *m;
  const cache *l2; /* the slice being flushed */
  uint64_t at;     /* L2 cycle the write-backs leave */
} flush_ctx;

static void flush_write_back(void *ctx, uint64_t line, uint8_t chunks) {
  flush_ctx *f = ctx;
  ++*f->m->c[C_WRITEBACKS];
  memiv_where w;
  decode(f->m, line, &w);
  to_dram(f->m, &w, (uint32_t)simtvp_popcount32(cache_line_sectors(f->l2, line, chunks)) * MEM_SECTOR_BYTES, true,
          f->at);
}

uint32_t memiv_flush_l2(memiv *m) {
  if (!m->has_l2) return 0;
  flush_ctx f = {m, NULL, memiv_xing_at(&m->dram_l2, m->latest_dram)};
  uint32_t n = 0;
  for (uint32_t i = 0; i < m->n_slices; i++) {
    f.l2 = m->slice[i].l2;
    n += cache_timed_flush(m->slice[i].l2, flush_write_back, &f);
  }
  return n;
}

void memiv_reset(memiv *m) {
  for (uint32_t i = 0; i < m->n_slices; i++) {
    memiv_slice *s = &m->slice[i];
    if (s->l2) cache_invalidate(s->l2);
    cache *l2 = s->l2;
    memset(s, 0, sizeof *s);
    s->l2 = l2;
  }
  memset(m->cluster, 0, m->n_clusters * sizeof *m->cluster);
  memset(m->fills, 0, sizeof m->fills);
  for (uint32_t ch = 0; ch < m->cfg.n_channels; ch++) {
    memiv_channel *c = &m->channel[ch];
    memset(c->bank, 0, m->cfg.timing.nbk * sizeof *c->bank);
    memset(c->group, 0, m->n_groups * sizeof *c->group);
    memset(c->column, 0, 2 * (size_t)m->n_groups * sizeof *c->column);
    memset(&c->bus, 0, sizeof c->bus);
    memset(&c->arbiter, 0, sizeof c->arbiter);
    memset(&c->activate, 0, sizeof c->activate);
  }
  memset(&m->link, 0, sizeof m->link);
}

void memiv_route_of(const memiv *m, uint64_t addr, memiv_route *out) {
  memiv_where w;
  decode(m, addr, &w);
  out->channel = w.channel;
  out->slice = w.slice;
  out->bank = w.bank;
  out->row = w.row;
  out->index_addr = w.index; /* the decode's own, as the slices' tags get it (index_hook) */
}
