// bench_gpu — speed of the whole timing GPU (CA SIMT clusters + interconnect + memory partitions +
// DRAM inside the GPU top module, driven through libsimtvp.so and sw/driver as a CUDA program
// would), and the AT-vs-CA DRAM comparison on memory-bound kernels. Not a test: it prints the
// tables of docs/timing.md.
//
//   bench_gpu [speed|dram|fidelity|all] [sgemm_n = 256] [vector_n = 1048576] [repeats = 1] [configs = all]
//             [kernels = all] [fidelity = ca]
//
// configs (speed only): all, or a comma-separated list of qv100, default, rtx2060; kernels: all,
// sgemm or vector; fidelity (speed only): ca (default: every block CA), at (every block AT),
// interval (interval SIMT cores, docs/simt-interval.md), interval-runs and interval-fold (§11, §13),
// at-cores (AT SIMT cores, CA memory), at-mem (CA cores, AT interconnect/partitions/DRAM) or func
// (the functional SIMT side: no timing; the floor any timing model's speed stands on), or a mix
// block=model,… of simt, icnt, mempart and dram (the others CA); any of them with @DETAIL,PERIOD
// appended (e.g. at@2000,20000) adds -at_sample DETAIL,PERIOD (sampled AT cores). Under callgrind (valgrind --tool=callgrind --trace-children=yes
// --collect-atstart=no bench_gpu ...) each child collects only its kernel (CALLGRIND_TOGGLE_COLLECT
// around launch and synchronisation), one callgrind.out file per run. With BENCH_GPU_OUTDIR set,
// each run writes its statistics JSON there (run one configuration and kernel at a time).
// GPU options after the fidelity (`-name value` pairs, e.g. `-interval_horizon 512`) are added to
// every run of speed and fidelity, after the assignment's own.
//
// speed: tiled SGEMM (tests/kernels/ptx/sgemm.ptx, sgemm_tiled, n x n x n) and vector add
//   (tests/kernels/ptx/vector_add.ptx) on configs/SM7_QV100.config (80 SMs), the default reduced
//   configuration (8 SMs) and configs/SM75_RTX2060.config (30 SMs, GPGPU-Sim's published
//   matmul-256 figure is ~11 K warp-instructions/s on it); simulated warp instructions and core
//   cycles per host second, counting only the kernel (launch to synchronisation), best of
//   `repeats`. host s is the kernel's CPU time, user + system; the system part and the minor page
//   faults beside it are mostly first touches of host memory (the CTAs' register frames), which
//   callgrind's host instruction counts do not see.
// dram: streaming (float4, consecutive), strided (one 4-byte read per thread, 2 KB + 64 B apart)
//   and random (one 4-byte read per thread in 256 MB) reads on the default configuration with
//   every DRAM channel CA, then every channel AT: total kernel cycles and the difference.
//
// fidelity: each kernel on each selected configuration under eight per-block mixes — all CA; AT
//   memory (interconnect, memory partitions and DRAM AT, CA cores); AT cores (CA memory); all AT;
//   all AT with sampled cores (-at_sample 4000,12000, docs/simt-at.md §6a); interval cores
//   (docs/simt-interval.md) with the memory blocks AT, without and with straight runs
//   (-interval_runs 1, docs/simt-interval.md §11), and with runs and folded warps (-interval_fold 1,
//   §13) —
//   with core cycles against all-CA, host seconds, warp instructions per host second and the
//   speed-up over all-CA (docs/simt-at.md).
//
// One SystemC simulation per process: every run is a forked child that sends its numbers back.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "driver.h"
#include "drv_kernel.h"
#include "gpu_config.h"
#include "host_platform.h"
#include "simtvp_host.h"
#include "stats.h"
#include "test_files.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define COLLECT_TOGGLE() CALLGRIND_TOGGLE_COLLECT
#endif
#endif
#ifndef COLLECT_TOGGLE
#define COLLECT_TOGGLE() ((void)0)
#endif

namespace {

struct run_result {
  bool ok = false;
  char error[SIMTVP_DIAG_MESSAGE_MAX] = "";
  double wall_s = 0, cpu_s = 0;   // the kernel's simulation only
  double sys_s = 0;               // of cpu_s, in the kernel (mostly first touches of host memory)
  long page_faults = 0;           // minor page faults during the kernel
  uint64_t cycles = 0, warp_insn = 0, thread_insn = 0;
  uint64_t ff_warp_insn = 0;      // fast-forwarded by sampled cores (-at_sample)
  double open_s = 0;              // opening the platform
};

double seconds(const timeval &t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; }

using test_support::host_call;
using test_support::read_file;

// What a run does inside the platform: allocate and fill, then the timed part (launch + sync).
struct workload {
  std::string ptx;      // PTX text
  std::string kernel;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  std::vector<uint64_t> buffer_bytes;   // allocated and filled with small floats
  // argument i: buffer index (>= 0) or immediate (arg_imm[i]) when arg_buf[i] < 0
  std::vector<int> arg_buf;
  std::vector<uint64_t> arg_imm;
};

run_result run_child(const std::string &config, const std::vector<std::string> &overrides, const workload &w) {
  run_result r;
  // BENCH_GPU_OUTDIR: the run's statistics JSON goes there (golden comparisons of speed changes)
  const char *out_dir = std::getenv("BENCH_GPU_OUTDIR");
  test_support::clear_platform_environment();
  test_support::platform_options o;
  o.overrides = overrides;
  o.config = config;
  o.out_dir = out_dir ? out_dir : "";
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  auto t0 = std::chrono::steady_clock::now();
  simtvp_host *h = test_support::open_platform(o, &diag);
  drv *d = nullptr;
  if (!h || simtvp_host_driver(h, &d, &diag) != SIMTVP_OK) {
    std::snprintf(r.error, sizeof r.error, "%s", diag.message);
    return r;
  }
  r.open_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  drv_function *f = nullptr;
  std::vector<uint64_t> values(w.arg_buf.size());
  std::vector<void *> args(values.size());
  host_call(h, [&] {
    simtvp_diag dd;
    drv_module *mod = nullptr;
    if (drv_module_load_ptx(d, w.ptx.data(), w.ptx.size(), "bench.ptx", &mod, &dd) != SIMTVP_OK) {
      std::snprintf(r.error, sizeof r.error, "%s", dd.message);
      return;
    }
    f = drv_module_function(mod, w.kernel.c_str());
    std::vector<uint64_t> addr(w.buffer_bytes.size());
    for (size_t i = 0; i < addr.size(); i++) {
      drv_mem_alloc(d, w.buffer_bytes[i], &addr[i], &dd);
      std::vector<float> v(std::min<uint64_t>(w.buffer_bytes[i], 64u << 20) / 4);
      for (size_t j = 0; j < v.size(); j++) v[j] = static_cast<float>(j % 7) - 3.0f;
      drv_memcpy(d, nullptr, drv_device_ptr(addr[i]), drv_host_ptr(v.data()), v.size() * 4, &dd);
    }
    for (size_t i = 0; i < values.size(); i++) {
      values[i] = w.arg_buf[i] >= 0 ? addr[static_cast<size_t>(w.arg_buf[i])] : w.arg_imm[i];
      args[i] = &values[i];
    }
    drv_sync(d, &dd);
  }, &diag);
  if (r.error[0] || !f) {
    if (!r.error[0]) std::snprintf(r.error, sizeof r.error, "no kernel %s", w.kernel.c_str());
    simtvp_host_close(h);
    return r;
  }
  stats *st = simtvp_host_stats(h);
  int found = 0;
  uint64_t c0 = stats_get(st, "gpu_sim_cycle", &found), w0 = stats_get(st, "gpgpu_n_tot_w_icount", &found),
           t0i = stats_get(st, "gpu_sim_insn", &found);
  uint64_t f0 = stats_get(st, "iv_sample_ff_warp_insn", &found) + stats_get(st, "at_sample_ff_warp_insn", &found);
  rusage u0;
  getrusage(RUSAGE_SELF, &u0);
  auto k0 = std::chrono::steady_clock::now();
  simtvp_status sync = SIMTVP_OK;
  COLLECT_TOGGLE();
  host_call(h, [&] {
    simtvp_diag dd;
    test_support::dims grid(w.grid[0], w.grid[1], w.grid[2]), block(w.block[0], w.block[1], w.block[2]);
    if (test_support::launch(d, f, grid, block, args, &dd) != SIMTVP_OK ||
        (sync = drv_sync(d, &dd)) != SIMTVP_OK)
      std::snprintf(r.error, sizeof r.error, "%s", dd.message);
  }, &diag);
  COLLECT_TOGGLE();
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - k0).count();
  rusage u1;
  getrusage(RUSAGE_SELF, &u1);
  r.sys_s = seconds(u1.ru_stime) - seconds(u0.ru_stime);
  r.cpu_s = seconds(u1.ru_utime) - seconds(u0.ru_utime) + r.sys_s;
  r.page_faults = u1.ru_minflt - u0.ru_minflt;
  r.cycles = stats_get(st, "gpu_sim_cycle", &found) - c0;
  r.warp_insn = stats_get(st, "gpgpu_n_tot_w_icount", &found) - w0;
  r.thread_insn = stats_get(st, "gpu_sim_insn", &found) - t0i;
  r.ff_warp_insn = stats_get(st, "iv_sample_ff_warp_insn", &found) + stats_get(st, "at_sample_ff_warp_insn", &found) - f0;
  r.ok = !r.error[0];
  simtvp_host_close(h);
  return r;
}

run_result run(const std::string &config, const std::vector<std::string> &overrides, const workload &w) {
  test_support::child_result c = test_support::run_in_child([&] {
    run_result r = run_child(config, overrides, w);
    return std::string(reinterpret_cast<const char *>(&r), sizeof r);
  });
  run_result r;
  if (c.ok && c.payload.size() == sizeof r)
    std::memcpy(static_cast<void *>(&r), c.payload.data(), sizeof r);
  else
    std::snprintf(r.error, sizeof r.error, "the run died (%s)", c.ok ? "short message" : c.error.c_str());
  return r;
}

// ---- workloads -------------------------------------------------------------------------------------

std::string g_src = SIMTVP_SOURCE_DIR;
std::vector<std::string> g_extra;  // GPU options after the fidelity argument, added to every run

workload sgemm(uint32_t n) {
  workload w;
  w.ptx = read_file(g_src + "/tests/kernels/ptx/sgemm.ptx");
  w.kernel = "_Z11sgemm_tilediiifPKfS0_fPf";
  w.grid[0] = w.grid[1] = (n + 15) / 16;
  w.block[0] = w.block[1] = 16;
  uint64_t b = static_cast<uint64_t>(n) * n * 4;
  w.buffer_bytes = {b, b, b};
  float alpha = 1.0f, beta = 0.0f;
  uint32_t ab, bb;
  std::memcpy(&ab, &alpha, 4);
  std::memcpy(&bb, &beta, 4);
  w.arg_buf = {-1, -1, -1, -1, 0, 1, -1, 2};
  w.arg_imm = {n, n, n, ab, 0, 0, bb, 0};
  return w;
}

workload vector_add(uint32_t n) {
  workload w;
  w.ptx = read_file(g_src + "/tests/kernels/ptx/vector_add.ptx");
  w.kernel = "_Z10vector_addPKfS0_Pfi";
  w.block[0] = 256;
  w.grid[0] = (n + 255) / 256;
  w.buffer_bytes = {n * 4ull, n * 4ull, n * 4ull};
  w.arg_buf = {0, 1, 2, -1};
  w.arg_imm = {0, 0, 0, n};
  return w;
}

// Each thread reads `loads` values: streaming float4 consecutive per warp, strided one float 2112
// bytes apart, random one float in a 256 MB window; one store per thread keeps the loads alive.
const char kReadPtx[] = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry reads(.param .u64 in, .param .u64 out, .param .u32 loads, .param .u32 mode)
{
  .reg .pred %p<3>;
  .reg .b32 %r<16>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [loads];
  ld.param.u32 %r2, [mode];
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mov.u32 %r5, %tid.x;
  mad.lo.s32 %r6, %r3, %r4, %r5;
  mov.u32 %r7, %nctaid.x;
  mul.lo.s32 %r7, %r7, %r4;
  mov.f32 %f1, 0f00000000;
  mov.u32 %r8, 0;
LOOP:
  mad.lo.s32 %r9, %r8, %r7, %r6;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra STREAM;
  setp.eq.u32 %p2, %r2, 1;
  @%p2 bra STRIDED;
  mul.lo.s32 %r10, %r9, -1640531535;
  shr.u32 %r11, %r10, 13;
  xor.b32 %r10, %r10, %r11;
  mul.lo.s32 %r10, %r10, 1540483477;
  and.b32 %r10, %r10, 8388607;
  mul.wide.u32 %rd3, %r10, 32;
  bra LOAD1;
STRIDED:
  mul.wide.u32 %rd3, %r9, 2112;
LOAD1:
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f2, [%rd4];
  add.f32 %f1, %f1, %f2;
  bra NEXT;
STREAM:
  mul.wide.u32 %rd3, %r9, 16;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v4.f32 {%f2, %f3, %f4, %f5}, [%rd4];
  add.f32 %f1, %f1, %f2;
NEXT:
  add.s32 %r8, %r8, 1;
  setp.lt.u32 %p1, %r8, %r1;
  @%p1 bra LOOP;
  mul.wide.u32 %rd5, %r6, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.f32 [%rd6], %f1;
  ret;
}
)";

workload reads(uint32_t mode, uint32_t threads, uint32_t loads) {
  workload w;
  w.ptx = kReadPtx;
  w.kernel = "reads";
  w.block[0] = 256;
  w.grid[0] = threads / 256;
  uint64_t in = mode == 0 ? static_cast<uint64_t>(threads) * loads * 16
                : mode == 1 ? static_cast<uint64_t>(threads) * loads * 2112 + 4096
                            : (256ull << 20) + 4096;
  w.buffer_bytes = {in, threads * 4ull};
  w.arg_buf = {0, 1, -1, -1};
  w.arg_imm = {0, 0, loads, mode};
  return w;
}

// The first item of a comma list that is not one of `known` ("" when every item is).
std::string unknown_item(const std::string &list, std::initializer_list<const char *> known) {
  if (list == "all") return "";
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    bool ok = false;
    for (const char *k : known) ok |= item == k;
    if (!ok) return item.empty() ? "(empty)" : item;
  }
  return "";
}

bool selected(const std::string &list, const char *name) {
  if (list == "all") return true;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ','))
    if (item == name) return true;
  return false;
}

std::vector<std::string> mix_options(const std::string &model);

void speed(uint32_t sgemm_n, uint32_t vector_n, int repeats, const std::string &configs, const std::string &kernels,
           const std::string &model) {
  struct cfg {
    const char *label, *file, *key;
  } cfgs[] = {{"QV100 (80 SMs)", "configs/SM7_QV100.config", "qv100"},
              {"default (8 SMs)", "", "default"},
              {"RTX2060 (30 SMs)", "configs/SM75_RTX2060.config", "rtx2060"}};
  std::printf("| configuration | kernel | warp instructions | core cycles | host s | of which sys s | page faults | "
              "warp-insn/s | cycles/s |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const cfg &c : cfgs) {
    if (!selected(configs, c.key)) continue;
    std::string file = c.file[0] ? g_src + "/" + c.file : "";
    for (int k = 0; k < 2; k++) {
      if (!selected(kernels, k == 0 ? "sgemm" : "vector")) continue;
      workload w = k == 0 ? sgemm(sgemm_n) : vector_add(vector_n);
      run_result best;
      for (int i = 0; i < repeats; i++) {
        std::vector<std::string> opts = mix_options(model);
        opts.insert(opts.end(), {"-device_memory_mb", "1024"});
        opts.insert(opts.end(), g_extra.begin(), g_extra.end());
        run_result r = run(file, opts, w);
        if (!r.ok) {
          best = r;
          break;
        }
        if (!best.ok || r.cpu_s < best.cpu_s) best = r;
      }
      char name[64];
      if (k == 0)
        std::snprintf(name, sizeof name, "tiled SGEMM %u³", sgemm_n);
      else
        std::snprintf(name, sizeof name, "vector add %u", vector_n);
      if (!best.ok) {
        std::printf("| %s | %s | failed: %s |\n", c.label, name, best.error);
        continue;
      }
      std::printf("| %s | %s | %llu | %llu | %.3f | %.3f | %ld | %.0f K | %.0f K |\n", c.label, name,
                  static_cast<unsigned long long>(best.warp_insn), static_cast<unsigned long long>(best.cycles),
                  best.cpu_s, best.sys_s, best.page_faults, best.warp_insn / best.cpu_s / 1e3,
                  best.cycles / best.cpu_s / 1e3);
      if (best.ff_warp_insn) /* sampled cores (-at_sample, fidelity@DETAIL,PERIOD) */
        std::printf("  (fast-forwarded: %llu warp instructions, %.1f %%)\n",
                    static_cast<unsigned long long>(best.ff_warp_insn), 100.0 * best.ff_warp_insn / best.warp_insn);
      std::fflush(stdout);
    }
  }
}

// The same kernels under each per-block fidelity mix: cycles against all-CA, host speed.
struct fidelity_mix {
  const char *label;
  std::vector<std::string> options;
};

const fidelity_mix kMixes[] = {
    {"all CA", {"-simt_model", "ca", "-icnt_model", "ca", "-mempart_model", "ca", "-dram_model", "ca"}},
    {"AT memory (icnt, mempart, DRAM)", {"-simt_model", "ca", "-icnt_model", "at", "-mempart_model", "at", "-dram_model", "at"}},
    {"AT cores", {"-simt_model", "at", "-icnt_model", "ca", "-mempart_model", "ca", "-dram_model", "ca"}},
    {"all AT", {"-simt_model", "at", "-icnt_model", "at", "-mempart_model", "at", "-dram_model", "at"}},
    {"all AT, sampled 4000,12000",
     {"-simt_model", "at", "-icnt_model", "at", "-mempart_model", "at", "-dram_model", "at", "-at_sample", "4000,12000"}},
    {"all interval (interval cores, AT memory)",
     {"-simt_model", "interval", "-icnt_model", "at", "-mempart_model", "at", "-dram_model", "at"}},
    {"all interval, straight runs (-interval_runs 1)",
     {"-simt_model", "interval", "-icnt_model", "at", "-mempart_model", "at", "-dram_model", "at", "-interval_runs", "1"}},
    {"all interval, runs and folded warps (-interval_fold 1)",
     {"-simt_model", "interval", "-icnt_model", "at", "-mempart_model", "at", "-dram_model", "at", "-interval_runs", "1",
      "-interval_fold", "1"}},
};

// speed's fidelity argument, as simtvp compare reads it (gpu_fidelity_spec_options): ca, at,
// at-cores, at-mem, func or block=model items. An unknown one is reported and ends the benchmark.
// A suffix @DETAIL,PERIOD adds -at_sample DETAIL,PERIOD (sampled AT cores, docs/simt-at.md §6a).
std::vector<std::string> mix_options(const std::string &model) {
  const char *words[GPU_FIDELITY_SPEC_WORDS];
  uint32_t n = 0;
  char why[512];
  size_t at = model.find('@');
  std::string spec = model.substr(0, at);
  if (!gpu_fidelity_spec_options(spec.c_str(), words, &n, why, sizeof why)) {
    std::fprintf(stderr, "bench_gpu: %s\n", why);
    std::exit(2);
  }
  std::vector<std::string> opts(words, words + n);
  if (at != std::string::npos) opts.insert(opts.end(), {"-at_sample", model.substr(at + 1)});
  return opts;
}

void fidelity(uint32_t sgemm_n, uint32_t vector_n, int repeats, const std::string &configs, const std::string &kernels) {
  struct cfg {
    const char *label, *file, *key;
  } cfgs[] = {{"QV100 (80 SMs)", "configs/SM7_QV100.config", "qv100"},
              {"default (8 SMs)", "", "default"},
              {"RTX2060 (30 SMs)", "configs/SM75_RTX2060.config", "rtx2060"}};
  std::printf("| configuration | kernel | fidelity | core cycles | vs all CA | host s | warp-insn/s | speed-up |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|---:|\n");
  for (const cfg &c : cfgs) {
    if (!selected(configs, c.key)) continue;
    std::string file = c.file[0] ? g_src + "/" + c.file : "";
    for (int k = 0; k < 2; k++) {
      if (!selected(kernels, k == 0 ? "sgemm" : "vector")) continue;
      workload w = k == 0 ? sgemm(sgemm_n) : vector_add(vector_n);
      char name[64];
      if (k == 0)
        std::snprintf(name, sizeof name, "tiled SGEMM %u³", sgemm_n);
      else
        std::snprintf(name, sizeof name, "vector add %u", vector_n);
      run_result ref;
      for (const fidelity_mix &m : kMixes) {
        std::vector<std::string> opts = m.options;
        opts.insert(opts.end(), {"-device_memory_mb", "1024"});
        opts.insert(opts.end(), g_extra.begin(), g_extra.end());
        run_result best;
        for (int i = 0; i < repeats; i++) {
          run_result r = run(file, opts, w);
          if (!r.ok) {
            best = r;
            break;
          }
          if (!best.ok || r.cpu_s < best.cpu_s) best = r;
        }
        if (!best.ok) {
          std::printf("| %s | %s | %s | failed: %s |\n", c.label, name, m.label, best.error);
          continue;
        }
        if (&m == &kMixes[0]) ref = best;
        double err = ref.ok ? 100.0 * (double(best.cycles) - double(ref.cycles)) / double(ref.cycles) : 0.0;
        std::printf("| %s | %s | %s | %llu | %+.1f%% | %.2f | %.0f K | %.1f× |\n", c.label, name, m.label,
                    static_cast<unsigned long long>(best.cycles), err, best.cpu_s,
                    best.warp_insn / best.cpu_s / 1e3, ref.ok ? ref.cpu_s / best.cpu_s : 0.0);
        std::fflush(stdout);
      }
    }
  }
}

void dram() {
  const char *names[3] = {"streaming (float4, consecutive)", "strided (4 B, 2112 B apart)",
                          "random (4 B in 256 MB)"};
  const uint32_t loads[3] = {32, 8, 8};
  std::printf("| kernel | CA DRAM cycles | AT DRAM cycles | AT vs CA | host s (CA / AT) |\n");
  std::printf("|---|---:|---:|---:|---:|\n");
  for (uint32_t mode = 0; mode < 3; mode++) {
    workload w = reads(mode, 8192, loads[mode]);
    run_result ca = run("", {"-simt_model", "ca", "-dram_model", "ca", "-device_memory_mb", "1024"}, w);
    run_result at = run("", {"-simt_model", "ca", "-dram_model", "at", "-device_memory_mb", "1024"}, w);
    if (!ca.ok || !at.ok) {
      std::printf("| %s | failed: %s %s |\n", names[mode], ca.error, at.error);
      continue;
    }
    std::printf("| %s | %llu | %llu | %+.1f%% | %.2f / %.2f |\n", names[mode], static_cast<unsigned long long>(ca.cycles),
                static_cast<unsigned long long>(at.cycles), 100.0 * (double(at.cycles) - double(ca.cycles)) / ca.cycles,
                ca.cpu_s, at.cpu_s);
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char **argv) {
  std::string what = argc > 1 ? argv[1] : "all";
  uint32_t sgemm_n = argc > 2 ? static_cast<uint32_t>(std::atoi(argv[2])) : 256;
  uint32_t vector_n = argc > 3 ? static_cast<uint32_t>(std::atoi(argv[3])) : 1048576;
  int repeats = argc > 4 ? std::atoi(argv[4]) : 1;
  std::string configs = argc > 5 ? argv[5] : "all", kernels = argc > 6 ? argv[6] : "all";
  std::string model = argc > 7 ? argv[7] : "ca";
  for (int i = 8; i < argc; i++) g_extra.push_back(argv[i]);
  if (const char *src = std::getenv("SIMTVP_SOURCE_DIR")) g_src = src;
  if ((what != "speed" && what != "dram" && what != "fidelity" && what != "all") || g_extra.size() % 2 ||
      (!g_extra.empty() && g_extra[0][0] != '-')) {
    std::fprintf(stderr, "usage: bench_gpu [speed|dram|fidelity|all] [sgemm_n] [vector_n] [repeats] "
                         "[configs: all|qv100,default,rtx2060] [kernels: all|sgemm|vector] [fidelity: ca|at|interval|interval-runs|interval-fold|at-cores|at-mem|func|simt=M,icnt=M,mempart=M,dram=M][@DETAIL,PERIOD] "
                         "[-option value ...]\n");
    return 2;
  }
  std::string bad_config = unknown_item(configs, {"qv100", "default", "rtx2060"});
  std::string bad_kernel = unknown_item(kernels, {"sgemm", "vector"});
  if (!bad_config.empty() || !bad_kernel.empty()) {
    if (!bad_config.empty())
      std::fprintf(stderr, "bench_gpu: unknown configuration '%s' (argument 5): all, or a list of qv100, default, "
                           "rtx2060\n", bad_config.c_str());
    if (!bad_kernel.empty())
      std::fprintf(stderr, "bench_gpu: unknown kernel '%s' (argument 6): all, or a list of sgemm, vector\n",
                   bad_kernel.c_str());
    return 2;
  }
  if (what == "speed" || what == "all") {
    mix_options(model);  // an unknown assignment ends the benchmark here, naming it
    std::printf("Timing GPU speed (%s), one host core, kernel only:\n\n",
                model == "ca" ? "all CA" : model == "at" ? "all AT" : model == "interval" ? "interval cores" : model == "at-cores" ? "AT cores, CA memory" : model == "func" ? "functional SIMT side, no timing" : model == "at-mem" ? "CA cores, AT memory" : model.c_str());
    speed(sgemm_n, vector_n, repeats, configs, kernels, model);
    std::printf("\n");
  }
  if (what == "dram" || what == "all") {
    std::printf("AT versus CA DRAM, default configuration, 8192 threads:\n\n");
    dram();
    std::printf("\n");
  }
  if (what == "fidelity" || what == "all") {
    std::printf("Per-block fidelity mixes against all-CA, one host core, kernel only:\n\n");
    fidelity(sgemm_n, vector_n, repeats, configs, kernels);
  }
  return 0;
}
