// bench_sim_threads — the scaling table of parallel timing simulation (-sim_threads, docs/timing.md
// "Parallel simulation"): tiled SGEMM and vector add on the QV100 configuration (80 SMs, 32 DRAM
// channels) with every core and channel cycle-accurate, each run with 1, 2, … host threads;
// host wall-clock and CPU seconds of the kernel (launch to synchronisation) and the speed-up over
// one thread. Also checks that every thread count simulated the same cycles and instructions.
// Not a test (speed goes in bench/): run it on a machine that is otherwise idle — it prints the
// load average it started and ended under.
//
//   bench_sim_threads [threads = 1,2] [kernels = sgemm,vector] [sgemm_n = 256] [vector_n = 1048576]
//                     [repeats = 1] [config = qv100|default|rtx2060] [fidelity = ca|at]
// (fidelity at: AT cores, memory partitions and DRAM behind the CA interconnect, so the clusters
// still tick in parallel; docs/timing.md §12.)
//
// One SystemC simulation per process: every run is a forked child that sends its numbers back.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "driver.h"
#include "drv_kernel.h"
#include "host_platform.h"
#include "simtvp_host.h"
#include "stats.h"
#include "test_files.h"

namespace {

std::string g_src = SIMTVP_SOURCE_DIR;
std::string g_fidelity = "ca";  // every core, partition and channel: ca or at

struct result {
  bool ok = false;
  char error[SIMTVP_DIAG_MESSAGE_MAX] = "";
  double wall_s = 0, cpu_s = 0;
  uint64_t cycles = 0, warp_insn = 0, l2_accesses = 0;
};

struct kernel {
  std::string ptx, name;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  std::vector<uint64_t> buffers;   // bytes, filled with small floats
  std::vector<int> arg_buf;        // buffer index, or -1: immediate
  std::vector<uint64_t> arg_imm;
};

double cpu_seconds() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a.empty() ? "unknown" : a + " " + b + " " + c;
}

result run_child(const std::string &config, unsigned threads, const kernel &k) {
  result r;
  test_support::clear_platform_environment();
  test_support::platform_options o;
  o.config = config;
  o.overrides = {"-simt_model", g_fidelity, "-dram_model", g_fidelity, "-mempart_model", g_fidelity,
                 "-device_memory_mb", "1024", "-sim_threads", std::to_string(threads)};
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  simtvp_host *h = test_support::open_platform(o, &diag);
  drv *d = nullptr;
  if (!h || simtvp_host_driver(h, &d, &diag) != SIMTVP_OK) {
    std::snprintf(r.error, sizeof r.error, "%s", diag.message);
    return r;
  }
  drv_function *f = nullptr;
  std::vector<uint64_t> values(k.arg_buf.size());
  std::vector<void *> args(values.size());
  test_support::host_call(h, [&] {
    simtvp_diag dd;
    drv_module *mod = nullptr;
    if (drv_module_load_ptx(d, k.ptx.data(), k.ptx.size(), "bench.ptx", &mod, &dd) != SIMTVP_OK) {
      std::snprintf(r.error, sizeof r.error, "%s", dd.message);
      return;
    }
    f = drv_module_function(mod, k.name.c_str());
    std::vector<uint64_t> addr(k.buffers.size());
    for (size_t i = 0; i < addr.size(); i++) {
      drv_mem_alloc(d, k.buffers[i], &addr[i], &dd);
      std::vector<float> v(k.buffers[i] / 4);
      for (size_t j = 0; j < v.size(); j++) v[j] = static_cast<float>(j % 7) - 3.0f;
      drv_memcpy(d, nullptr, drv_device_ptr(addr[i]), drv_host_ptr(v.data()), v.size() * 4, &dd);
    }
    for (size_t i = 0; i < values.size(); i++) {
      values[i] = k.arg_buf[i] >= 0 ? addr[static_cast<size_t>(k.arg_buf[i])] : k.arg_imm[i];
      args[i] = &values[i];
    }
    drv_sync(d, &dd);
  }, &diag);
  if (r.error[0] || !f) {
    if (!r.error[0]) std::snprintf(r.error, sizeof r.error, "no kernel %s", k.name.c_str());
    simtvp_host_close(h);
    return r;
  }
  stats *st = simtvp_host_stats(h);
  int found = 0;
  uint64_t c0 = stats_get(st, "gpu_sim_cycle", &found), w0 = stats_get(st, "gpgpu_n_tot_w_icount", &found),
           l0 = stats_get(st, "L2_total_cache_accesses", &found);
  double cpu0 = cpu_seconds();
  auto t0 = std::chrono::steady_clock::now();
  test_support::host_call(h, [&] {
    simtvp_diag dd;
    test_support::dims grid(k.grid[0], k.grid[1], k.grid[2]), block(k.block[0], k.block[1], k.block[2]);
    if (test_support::launch(d, f, grid, block, args, &dd) != SIMTVP_OK || drv_sync(d, &dd) != SIMTVP_OK)
      std::snprintf(r.error, sizeof r.error, "%s", dd.message);
  }, &diag);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.cpu_s = cpu_seconds() - cpu0;
  r.cycles = stats_get(st, "gpu_sim_cycle", &found) - c0;
  r.warp_insn = stats_get(st, "gpgpu_n_tot_w_icount", &found) - w0;
  r.l2_accesses = stats_get(st, "L2_total_cache_accesses", &found) - l0;
  r.ok = !r.error[0];
  simtvp_host_close(h);
  return r;
}

result run(const std::string &config, unsigned threads, const kernel &k) {
  test_support::child_result c = test_support::run_in_child([&] {
    result r = run_child(config, threads, k);
    return std::string(reinterpret_cast<const char *>(&r), sizeof r);
  }, true);
  result r;
  if (c.ok && c.payload.size() == sizeof r)
    std::memcpy(static_cast<void *>(&r), c.payload.data(), sizeof r);
  else
    std::snprintf(r.error, sizeof r.error, "the run died (%s)", c.ok ? "short message" : c.error.c_str());
  // The configuration's warnings are the same for every run: shown once (and with any failure).
  static bool shown = false;
  if (!shown || !r.ok) std::fputs(c.err.c_str(), stderr);
  shown = true;
  return r;
}

kernel sgemm(uint32_t n) {
  kernel k;
  k.ptx = test_support::read_file(g_src + "/tests/kernels/ptx/sgemm.ptx");
  k.name = "_Z11sgemm_tilediiifPKfS0_fPf";
  k.grid[0] = k.grid[1] = (n + 15) / 16;
  k.block[0] = k.block[1] = 16;
  uint64_t b = static_cast<uint64_t>(n) * n * 4;
  k.buffers = {b, b, b};
  float alpha = 1.0f, beta = 0.0f;
  uint32_t ab, bb;
  std::memcpy(&ab, &alpha, 4);
  std::memcpy(&bb, &beta, 4);
  k.arg_buf = {-1, -1, -1, -1, 0, 1, -1, 2};
  k.arg_imm = {n, n, n, ab, 0, 0, bb, 0};
  return k;
}

kernel vector_add(uint32_t n) {
  kernel k;
  k.ptx = test_support::read_file(g_src + "/tests/kernels/ptx/vector_add.ptx");
  k.name = "_Z10vector_addPKfS0_Pfi";
  k.block[0] = 256;
  k.grid[0] = (n + 255) / 256;
  k.buffers = {n * 4ull, n * 4ull, n * 4ull};
  k.arg_buf = {0, 1, 2, -1};
  k.arg_imm = {0, 0, 0, n};
  return k;
}

std::vector<std::string> split(const std::string &s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<std::string> thread_list = split(argc > 1 ? argv[1] : "1,2");
  std::vector<std::string> kernels = split(argc > 2 ? argv[2] : "sgemm,vector");
  uint32_t sgemm_n = argc > 3 ? static_cast<uint32_t>(std::atoi(argv[3])) : 256;
  uint32_t vector_n = argc > 4 ? static_cast<uint32_t>(std::atoi(argv[4])) : 1048576;
  int repeats = argc > 5 ? std::atoi(argv[5]) : 1;
  std::string config = argc > 6 ? argv[6] : "qv100";
  g_fidelity = argc > 7 ? argv[7] : "ca";
  if (const char *src = std::getenv("SIMTVP_SOURCE_DIR")) g_src = src;
  std::string file = config == "qv100"     ? g_src + "/configs/SM7_QV100.config"
                     : config == "rtx2060" ? g_src + "/configs/SM75_RTX2060.config"
                     : config == "default" ? std::string()
                                           : std::string("?");
  std::vector<unsigned> threads;
  for (const std::string &t : thread_list) threads.push_back(static_cast<unsigned>(std::atoi(t.c_str())));
  if (file == "?" || threads.empty() || repeats < 1 || (g_fidelity != "ca" && g_fidelity != "at")) {
    std::fprintf(stderr, "usage: bench_sim_threads [threads=1,2] [kernels=sgemm,vector] [sgemm_n] [vector_n] "
                         "[repeats] [config=qv100|default|rtx2060] [fidelity=ca|at]\n");
    return 2;
  }
  std::printf("Parallel timing simulation (-sim_threads), %s configuration, %s cores, partitions and DRAM, "
              "kernel only;\nbest wall time of %d run(s); load average at start: %s\n\n",
              config.c_str(), g_fidelity == "at" ? "AT" : "CA", repeats, load_average().c_str());
  std::printf("| kernel | threads | core cycles | warp instructions | host wall s | host CPU s | speed-up |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|\n");
  bool identical = true, failed = false;
  for (const std::string &kn : kernels) {
    kernel k = kn == "sgemm" ? sgemm(sgemm_n) : vector_add(vector_n);
    std::string label = kn == "sgemm" ? "tiled SGEMM " + std::to_string(sgemm_n) + "³"
                                      : "vector add " + std::to_string(vector_n);
    double base = 0;
    result first;
    for (unsigned t : threads) {
      result best;
      for (int i = 0; i < repeats; i++) {
        result r = run(file, t, k);
        if (!r.ok) {
          best = r;
          break;
        }
        if (!best.ok || r.wall_s < best.wall_s) best = r;
      }
      if (!best.ok) {
        std::printf("| %s | %u | failed: %s |\n", label.c_str(), t, best.error);
        failed = true;
        continue;
      }
      if (!first.ok) first = best;
      if (best.cycles != first.cycles || best.warp_insn != first.warp_insn || best.l2_accesses != first.l2_accesses)
        identical = false;
      if (base == 0) base = best.wall_s;
      std::printf("| %s | %u | %llu | %llu | %.2f | %.2f | %.2fx |\n", label.c_str(), t,
                  static_cast<unsigned long long>(best.cycles), static_cast<unsigned long long>(best.warp_insn),
                  best.wall_s, best.cpu_s, base / best.wall_s);
      std::fflush(stdout);
    }
  }
  std::printf("\nLoad average at end: %s. Cycles, warp instructions and L2 accesses %s for every thread count.\n",
              load_average().c_str(), identical ? "are the same" : "DIFFER");
  return identical && !failed ? 0 : 1;
}
