// mem_bench — the memory system alone under saturating traffic (not a test: it prints the table in
// docs/mempart.md). Every cluster of the configuration is a closed-loop traffic generator
// (traffic_gen.h) with a fixed number of requests in flight; the memory system is built from the
// configuration file exactly as the GPU builds it (mem_system_config_from_gpu).
//
//   mem_bench [requests per cluster = 2000] [config = configs/SM7_QV100.config] [outstanding = 64]
//
// Patterns, all reads (no reuse: every L2 access misses): streaming (128-byte lines, consecutive,
// the clusters interleaved line by line), strided (32-byte sectors 2 KB + 64 B apart), random
// (32-byte sectors over 1 GB).
// Each pattern runs with every channel CA, then every channel AT. One SystemC simulation per
// process: every run is a forked child that prints its row.
//
// Reported: simulated time, achieved bandwidth (bytes the clusters asked for / time), DRAM
// data-bus utilisation (bus-busy cycles / DRAM cycles, all channels), peak DRAM bandwidth
// (channels × bus width × chips × beats per command cycle × DRAM clock), host time.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>

#include "mem_system.h"
#include "traffic_gen.h"

extern "C" {
#include "config.h"
#include "gpu_config.h"
#include "stats.h"
}

int sc_main(int, char *[]) { return 0; }

using namespace simtvp;

namespace {

enum pattern { STREAM_READ, STRIDED_READ, RANDOM_READ, PATTERN_COUNT };
const char *const kPatternName[PATTERN_COUNT] = {"streaming (128 B lines)",
                                                 "strided (32 B, 2 KB + 64 B apart)",
                                                 "random (32 B sectors in 1 GB)"};

struct result {
  double sim_ns = 0, achieved_gbs = 0, bus_util = 0, peak_gbs = 0, host_s = 0, row_hit = 0;
  uint64_t core_cycles = 0, dram_cycles = 0, requests = 0;
};

int run_one(const char *config_path, pattern pat, const char *model, uint32_t per_cluster,
            uint32_t outstanding, result *out) {
  gpu_config g;
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  config_registry *r = config_registry_create(nullptr);
  if (gpu_config_register(r, &g, &diag) != SIMTVP_OK ||
      config_registry_load_file(r, config_path, &diag) != SIMTVP_OK) {
    fprintf(stderr, "%s\n", diag.message);
    return 1;
  }
  const char *args[] = {"-dram_model", model, "-gpgpu_memory_partition_indexing", "2",
                        "-network_mode", "2"};
  if (config_registry_parse_args(r, 6, args, &diag) != SIMTVP_OK ||
      gpu_config_finalize(&g, r, &diag) != SIMTVP_OK) {
    fprintf(stderr, "%s\n", diag.message);
    return 1;
  }
  stats *st = stats_create();
  mem_system_config cfg;
  if (mem_system_config_from_gpu(g, st, nullptr, &cfg, &diag) != SIMTVP_OK) {
    fprintf(stderr, "%s\n", diag.message);
    return 1;
  }
  clock_domain core_clock("core", g.derived.core_mhz);
  auto core = std::make_unique<domain_driver>("core_clock", core_clock);
  auto mem = std::make_unique<mem_system>("mem", cfg);
  std::vector<std::unique_ptr<tlmtest::traffic_gen>> gens;
  const uint32_t n = cfg.n_clusters;
  for (uint32_t c = 0; c < n; c++) {
    gens.push_back(std::make_unique<tlmtest::traffic_gen>(("cluster" + std::to_string(c)).c_str(),
                                                          *core, *mem, c, outstanding));
    auto rng = std::make_shared<std::mt19937_64>(1234 + c);
    auto k = std::make_shared<uint64_t>(0);
    gens.back()->closed_loop([=](uint64_t, tlmtest::mem_access &a) {
      if (*k >= per_cluster) return false;
      uint64_t i = (*k)++;
      switch (pat) {
        case STREAM_READ:
          a.addr = (i * n + c) * 128;
          a.size = 128;
          a.kind = MEM_ACC_GLOBAL_R;
          break;
        case STRIDED_READ:
          a.addr = (i * n + c) * (2048 + 64);
          a.size = 32;
          a.kind = MEM_ACC_GLOBAL_R;
          break;
        default:
          a.addr = ((*rng)() % (1ull << 30)) & ~31ull;
          a.size = 32;
          a.kind = MEM_ACC_GLOBAL_R;
          break;
      }
      a.needs_reply = true;
      return true;
    });
  }
  auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_start();
  auto t1 = std::chrono::steady_clock::now();

  uint64_t bytes = 0, last = 0;
  for (auto &gen : gens) {
    for (const auto &rec : gen->records())
      if (rec.replied != UINT64_MAX) bytes += pat == STREAM_READ ? 128 : 32;
    out->requests += gen->replies();
    if (gen->last_reply_cycle() > last) last = gen->last_reply_cycle();
  }
  uint64_t bus_busy = 0, cycles = 0, hits = 0, reqs = 0;
  for (uint32_t ch = 0; ch < cfg.n_channels; ch++) {
    dram_advance(mem->dram(ch).model(), mem->dram_driver().current_cycle());
    dram_stats ds;
    dram_get_stats(mem->dram(ch).model(), &ds);
    bus_busy += ds.bus_busy;
    cycles += mem->dram_driver().current_cycle() + 1;
    hits += ds.row_hits;
    reqs += ds.n_req;
  }
  out->core_cycles = last;
  out->sim_ns = core_clock.time_of(last).to_seconds() * 1e9;
  out->achieved_gbs = bytes / out->sim_ns; // bytes per ns = GB/s
  out->bus_util = cycles ? (double)bus_busy / (double)cycles : 0;
  out->row_hit = reqs ? (double)hits / (double)reqs : 0;
  out->dram_cycles = mem->dram_driver().current_cycle();
  double beat_bytes = (double)cfg.dram.bus_width_bytes * cfg.dram.chips_per_channel;
  out->peak_gbs = cfg.n_channels * beat_bytes * cfg.dram.data_command_freq_ratio * cfg.dram_mhz / 1000.0;
  out->host_s = std::chrono::duration<double>(t1 - t0).count();
  if (!mem->idle()) fprintf(stderr, "warning: memory system not idle at the end\n");
  mem.reset();
  gens.clear();
  stats_destroy(st);
  config_registry_destroy(r);
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  uint32_t per_cluster = argc > 1 ? (uint32_t)atoi(argv[1]) : 2000;
  std::string config = argc > 2 ? argv[2] : std::string(SIMTVP_SOURCE_DIR) + "/configs/SM7_QV100.config";
  uint32_t outstanding = argc > 3 ? (uint32_t)atoi(argv[3]) : 64;
  printf("config %s, %u requests per cluster, %u in flight per cluster\n\n", config.c_str(),
         per_cluster, outstanding);
  printf("| pattern | DRAM | core cycles | achieved GB/s | of peak | DRAM bus busy | row hits | host s |\n");
  printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
  fflush(stdout);
  double peak = 0;
  for (int p = 0; p < PATTERN_COUNT; p++) {
    uint64_t ca_cycles = 0;
    for (const char *model : {"ca", "at"}) {
      int fds[2];
      if (pipe(fds) != 0) return 1;
      pid_t pid = fork();
      if (pid == 0) {
        close(fds[0]);
        result res;
        int rc = run_one(config.c_str(), (pattern)p, model, per_cluster, outstanding, &res);
        if (write(fds[1], &res, sizeof res) != (ssize_t)sizeof res) rc = 1;
        _exit(rc);
      }
      close(fds[1]);
      result res;
      bool ok = read(fds[0], &res, sizeof res) == (ssize_t)sizeof res;
      close(fds[0]);
      int status = 0;
      waitpid(pid, &status, 0);
      if (!ok || !WIFEXITED(status) || WEXITSTATUS(status)) {
        printf("| %s | %s | failed |\n", kPatternName[p], model);
        continue;
      }
      if (!strcmp(model, "ca")) ca_cycles = res.core_cycles;
      char vs[32] = "";
      if (strcmp(model, "ca") && ca_cycles)
        snprintf(vs, sizeof vs, " (%+.1f%%)", 100.0 * ((double)res.core_cycles / ca_cycles - 1.0));
      printf("| %s | %s | %llu%s | %.0f | %.1f%% | %.1f%% | %.2f | %.2f |\n", kPatternName[p], model,
             (unsigned long long)res.core_cycles, vs, res.achieved_gbs,
             100.0 * res.achieved_gbs / res.peak_gbs, 100.0 * res.bus_util, res.row_hit, res.host_s);
      if (!peak) peak = res.peak_gbs;
      fflush(stdout);
    }
  }
  printf("\npeak DRAM bandwidth %.0f GB/s\n", peak);
  return 0;
}
