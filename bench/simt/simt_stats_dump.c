/* simt_stats_dump — every statistic of one run of each tests/kernels workload
 * (tests/simt_at/at_workloads.h) on the SIMT harness, as JSON, for golden comparisons: a change
 * meant to make the models faster without changing what they compute must leave this output
 * byte for byte the same (diff the output of the build before and after the change).
 *
 *   simt_stats_dump <ca|at|func|"override string"> [config = configs/SM7_QV100.config] [sms = 4]
 *                   [scale = 2] [mem_latency = 100] [ldst = real|fake]
 *
 * The first argument is the -simt_model value, or with a colon a -simt_model_override on CA
 * cores (e.g. "0:at,2:at"). Each workload prints "== <name>: <status> <cycles> cycles" and the
 * statistics JSON of its harness (cycles, every core, LDST, cache and cluster counter). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "at_workloads.h"
#include "simt_harness.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: simt_stats_dump <ca|at|func|override> [config] [sms] [scale] [mem_latency] [real|fake]\n");
    return 2;
  }
  const char *model = argv[1];
  const char *config = argc > 2 ? argv[2] : "configs/SM7_QV100.config";
  const char *sms = argc > 3 ? argv[3] : "4";
  uint32_t scale = argc > 4 ? (uint32_t)atoi(argv[4]) : 2u;
  uint32_t lat = argc > 5 ? (uint32_t)atoi(argv[5]) : 100u;
  bool fake = argc > 6 && !strcmp(argv[6], "fake");
  char path[1024];
  snprintf(path, sizeof path, "%s%s%s", config[0] == '/' ? "" : SIMTVP_SOURCE_DIR, config[0] == '/' ? "" : "/",
           config);
  const char *args[6] = {"-gpgpu_n_clusters", sms, "-simt_model", model, NULL, NULL};
  int n_args = 4;
  if (strchr(model, ':')) {
    args[3] = "ca";
    args[4] = "-simt_model_override";
    args[5] = model;
    n_args = 6;
  }
  for (uint32_t i = 0; i < at_n_workloads; i++) {
    const at_workload *w = &at_workloads[i];
    sh_options o;
    memset(&o, 0, sizeof o);
    o.config_file = path;
    o.args = args;
    o.n_args = n_args;
    o.mem_latency = lat;
    o.ldst = fake ? SH_LDST_FAKE_TRAFFIC : SH_LDST_REAL;
    o.quiet = true;
    o.max_cycles = 100000000ull;
    o.stack_bytes = w->stack_bytes;
    simt_harness *h = NULL;
    simtvp_diag d = {0};
    if (sh_create(&o, &h, &d) != SIMTVP_OK) {
      fprintf(stderr, "simt_stats_dump: %s\n", d.message);
      return 1;
    }
    char ptx[1024];
    snprintf(ptx, sizeof ptx, "%s/tests/kernels/ptx/%s.ptx", SIMTVP_SOURCE_DIR, w->name);
    at_run r;
    memset(&r, 0, sizeof r);
    if (sh_load_ptx_file(h, ptx, &d) != SIMTVP_OK) {
      fprintf(stderr, "simt_stats_dump: %s\n", d.message);
      return 1;
    }
    w->run(h, scale, &r);
    printf("== %s: %s %llu cycles\n", w->name, simtvp_status_name(r.status), (unsigned long long)r.cycles);
    fflush(stdout);
    if (stats_write_json_stream(sh_stats(h), stdout, &d) != SIMTVP_OK) fprintf(stderr, "%s\n", d.message);
    printf("\n");
    sh_destroy(h);
  }
  return 0;
}
