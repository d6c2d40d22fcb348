/* memiv_bench — traffic patterns on models/memiv alone (not a test: speed and bandwidth figures for
 * docs/memiv.md). Every SM keeps `outstanding` requests in flight (closed loop: a new request
 * leaves when the one `outstanding` back has replied) and the SMs are visited round robin, one
 * request each, so requests reach memiv out of time order as interval cores send them.
 *
 *   memiv_bench <config file> <pattern> <requests per SM> [outstanding]
 *   pattern: stream (consecutive whole lines per SM), random (random sectors over 1 GiB),
 *            reuse (random sectors of a 2 MiB working set: mostly L2 hits)
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
  int kind = !strcmp(pattern, "stream") ? 0 : !strcmp(pattern, "random") ? 1 : 2;
  memset(out, 0, sizeof *out);
  for (uint32_t i = 0; i < per_sm; i++) {
    for (uint32_t sm = 0; sm < n_sms; sm++) {
      uint64_t *slot = &ring[(size_t)sm * outstanding + i % outstanding];
      uint64_t at = *slot + 1; /* the request `outstanding` back has replied */
      uint64_t line;
      uint8_t sectors = 0xF;
      if (kind == 0) {
        line = ((uint64_t)i * n_sms + sm) * 128;
      } else {
        uint64_t r = next_rand(&x);
        line = (r & (kind == 1 ? (1ull << 30) - 1 : (2ull << 20) - 1)) & ~127ull;
        sectors = (uint8_t)(1u << (r >> 40) % 4);
      }
      uint64_t reply = memiv_access(m, sm, line, sectors, MEM_ACC_GLOBAL_R, false, 0, at);
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
    fprintf(stderr, "usage: %s <config file> stream|random|reuse <requests per SM> [outstanding]\n", argv[0]);
    return 2;
  }
  gpu_config g;
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  const char *files[] = {argv[1]};
  config_registry *reg = config_registry_create(NULL);
  simtvp_status st = gpu_config_load(&g, reg, files, 1, &diag);
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
  uint64_t dram_busy = 0, l2_miss = 0, l2_access = 0;
  for (uint32_t ch = 0; ch < c.n_channels; ch++) {
    char name[64];
    snprintf(name, sizeof name, "DRAM[%u].bwutil", ch);
    dram_busy += stats_get(s, name, &found);
  }
  l2_access = stats_get(s, "L2_total_cache_accesses", &found);
  l2_miss = stats_get(s, "L2_total_cache_misses", &found);
  double dram_cycles = (double)r.last_reply * (double)c.dram_khz / (double)c.core_khz;
  printf("%s %s: %" PRIu64 " requests, last reply at core cycle %" PRIu64 ", avg latency %.1f core cycles, "
         "L2 miss rate %.3f, DRAM bus busy %.1f%% of %u channels\n",
         argv[1], argv[2], r.requests, r.last_reply, (double)r.latency_sum / (double)r.requests,
         l2_access ? (double)l2_miss / (double)l2_access : 0.0,
         100.0 * (double)dram_busy / (dram_cycles * c.n_channels), c.n_channels);
  memiv_destroy(m);
  stats_destroy(s);
  return 0;
}
