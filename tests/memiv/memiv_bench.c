/* memiv_bench — traffic patterns on models/memiv alone (not a test: speed and bandwidth figures for
 * docs/memiv.md). Every SM keeps `outstanding` requests in flight (closed loop: a new request
 * leaves when the one `outstanding` back has replied) and the SMs are visited round robin, one
 * request each, so requests reach memiv out of time order as interval cores send them. As
 * tests/tlm_mem/mem_bench (the CA / AT memory system alone, the same patterns) it sets
 * -gpgpu_memory_partition_indexing 2 and -network_mode 2, so the two compare.
 *
 *   memiv_bench <config file> <pattern> <requests per SM> [outstanding]
 *   pattern: stream (whole 128-byte lines, consecutive, SMs interleaved), strided (32-byte sectors
 *            2 KB + 64 B apart), random (32-byte sectors in 1 GiB) — tests/tlm_mem/mem_bench.cc's
 *            patterns for the CA / AT memory system — and reuse (32-byte sectors in 2 MiB: L2 hits)
 *
 * Host instructions per request (kernel of the loop only):
 *   valgrind --tool=callgrind --toggle-collect=run_pattern build/bin/memiv_bench \
 *            configs/SM7_QV100.config stream 2000
 * then the total Ir / (SMs × requests per SM). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "gpu_config.h"
#include "memiv.h"
#include "stats.h"

typedef struct result {
  uint64_t requests, last_reply, latency_sum;
} result;

static uint64_t next_rand(uint64_t *x) {
  *x = *x * 6364136223846793005ull + 1442695040888963407ull;
  return *x >> 16;
}

/* noinline: callgrind's --toggle-collect names it */
__attribute__((noinline)) void run_pattern(memiv *m, uint32_t n_sms, const char *pattern, uint32_t per_sm,
                                           uint32_t outstanding, result *out);

__attribute__((noinline)) void run_pattern(memiv *m, uint32_t n_sms, const char *pattern, uint32_t per_sm,
                                           uint32_t outstanding, result *out) {
  uint64_t *ring = calloc((size_t)n_sms * outstanding, sizeof *ring);
  uint64_t x = 1;
  /* the patterns of tests/tlm_mem/mem_bench.cc (the CA / AT memory system alone) plus reuse */
  int kind = !strcmp(pattern, "stream") ? 0 : !strcmp(pattern, "strided") ? 1 : !strcmp(pattern, "random") ? 2 : 3;
  memset(out, 0, sizeof *out);
  for (uint32_t i = 0; i < per_sm; i++) {
    for (uint32_t sm = 0; sm < n_sms; sm++) {
      uint64_t *slot = &ring[(size_t)sm * outstanding + i % outstanding];
      uint64_t at = *slot + 1; /* the request `outstanding` back has replied */
      uint64_t addr;
      uint8_t sectors;
      if (kind == 0) { /* streaming: whole 128-byte lines, consecutive, the SMs interleaved */
        addr = ((uint64_t)i * n_sms + sm) * 128;
        sectors = 0xF;
      } else {
        if (kind == 1) /* strided: 32-byte sectors 2 KB + 64 B apart */
          addr = ((uint64_t)i * n_sms + sm) * (2048 + 64);
        else /* random 32-byte sectors in 1 GiB; reuse: in 2 MiB */
          addr = next_rand(&x) % (kind == 2 ? 1ull << 30 : 2ull << 20) & ~31ull;
        sectors = (uint8_t)(1u << (addr >> 5) % 4);
      }
      uint64_t line = addr & ~127ull;
      uint64_t reply = memiv_access(m, sm, line, sectors, NULL, MEM_ACC_GLOBAL_R, false, 0, at);
      out->latency_sum += reply - at;
      if (reply > out->last_reply) out->last_reply = reply;
      *slot = reply;
      out->requests++;
    }
  }
  free(ring);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s <config file> stream|strided|random|reuse <requests per SM> [outstanding]\n", argv[0]);
    return 2;
  }
  gpu_config g;
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  /* as mem_bench: ipoly partition indexing and the crossbar, whatever the file says */
  const char *args[] = {"-gpgpu_memory_partition_indexing", "2", "-network_mode", "2"};
  config_registry *reg = config_registry_create(NULL);
  simtvp_status st = gpu_config_register(reg, &g, &diag);
  if (st == SIMTVP_OK) st = config_registry_load_file(reg, argv[1], &diag);
  if (st == SIMTVP_OK) st = config_registry_parse_args(reg, 4, args, &diag);
  if (st == SIMTVP_OK) st = gpu_config_finalize(&g, reg, &diag);
  config_registry_destroy(reg);
  memiv_config c;
  if (st == SIMTVP_OK) st = memiv_config_from_gpu(&g, &c, &diag);
  stats *s = stats_create();
  c.stats = s;
  memiv *m = st == SIMTVP_OK ? memiv_create(&c, &diag) : NULL;
  if (!m) {
    fprintf(stderr, "%s: %s\n", argv[1], diag.message);
    return 1;
  }
  uint32_t per_sm = (uint32_t)strtoul(argv[3], NULL, 10);
  uint32_t outstanding = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : 8;
  if (!outstanding) outstanding = 1;
  result r;
  run_pattern(m, c.n_sms, argv[2], per_sm, outstanding, &r);
  int found = 0;
  uint64_t dram_busy = 0, l2_miss = 0, l2_access = 0, row_hits = 0, dram_req = 0;
  for (uint32_t ch = 0; ch < c.n_channels; ch++) {
    char name[64];
    snprintf(name, sizeof name, "DRAM[%u].bwutil", ch);
    dram_busy += stats_get(s, name, &found);
    snprintf(name, sizeof name, "DRAM[%u].row_buffer_hits", ch);
    row_hits += stats_get(s, name, &found);
    snprintf(name, sizeof name, "DRAM[%u].n_req", ch);
    dram_req += stats_get(s, name, &found);
  }
  l2_access = stats_get(s, "L2_total_cache_accesses", &found);
  l2_miss = stats_get(s, "L2_total_cache_misses", &found);
  double dram_cycles = (double)r.last_reply * (double)c.dram_khz / (double)c.core_khz;
  /* bytes asked for per simulated ns against the peak (channels x chips x width x beats per
   * command clock x DRAM clock), as mem_bench reports it */
  double ns = (double)r.last_reply * 1e6 / (double)c.core_khz;
  double peak = (double)c.n_channels * c.chips_per_channel * c.bus_width_bytes * c.data_command_freq_ratio *
                (double)c.dram_khz / 1e6;
  double asked = (double)r.requests * (!strcmp(argv[2], "stream") ? 128.0 : 32.0);
  printf("%s %s: %" PRIu64 " requests, last reply at core cycle %" PRIu64 ", avg latency %.1f core cycles, "
         "L2 miss rate %.3f, DRAM bus busy %.1f%% of %u channels, row hits %.2f, achieved %.0f GB/s = %.1f%% of "
         "peak\n",
         argv[1], argv[2], r.requests, r.last_reply, (double)r.latency_sum / (double)r.requests,
         l2_access ? (double)l2_miss / (double)l2_access : 0.0,
         100.0 * (double)dram_busy / (dram_cycles * c.n_channels), c.n_channels,
         dram_req ? (double)row_hits / (double)dram_req : 0.0, asked / ns, 100.0 * asked / ns / peak);
  memiv_destroy(m);
  stats_destroy(s);
  return 0;
}
