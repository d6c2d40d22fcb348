// bench_micro — microbenchmarks of the timing GPU against published hardware figures.
//
//   bench_micro [what] [--config NAME|FILE]... [--set -option value]... [--simt ca|at] [--dram ca|at]
//
//   what     all (default) | latency | bandwidth | launch | clock
//   --config rtx2060 (configs/SM75_RTX2060.config, 30 SMs), qv100 (configs/SM7_QV100.config,
//            80 SMs), default (the reduced RTX2060, 8 SMs) or a file; default: rtx2060 and qv100
//
// Each quantity runs in its own forked child with the platform open (libsimtvp.so + sw/driver, as
// a CUDA program would run): PTX kernels of micro_kernels.cc, timed with %clock64 inside the
// kernel like the papers do (latencies, per-SM bandwidths; whole-GPU bandwidths from the first
// CTA's start to the last CTA's end). The table gives the simtvp value, the published value with its source,
// the error, and the configuration option that mostly sets the value. docs/correlation.md has the
// method, the results and what they mean.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "micro_kernels.h"


namespace {

std::string g_src = SIMTVP_SOURCE_DIR;

// ---- published figures ------------------------------------------------------------------------

// Sources (docs/correlation.md cites them in full).
const char *kSources[][2] = {
    {"AS-TV",
     "Accel-Sim tuner output on a TITAN V (GV100, 80 SMs, HBM2 850 MHz, base clock 1200 MHz): "
     "github.com/accel-sim/accel-sim-framework util/tuner/GPU_Microbenchmark/output.file @66ad690c"},
    {"SF-2070",
     "sjfeng1999/gpu-arch-microbenchmark README, GeForce RTX 2070 (Turing; the README names TU104), SASS "
     "microbenchmarks @00f39161; bandwidth table of the same README as indexed by docs.rs/GitHub search"},
    {"DS",
     "NVIDIA data: RTX 2060 14 Gbps GDDR6 on 192 bits = 336 GB/s, 1365/1680 MHz; Quadro GV100 HBM2 "
     "4096 bits at 850 MHz = 870 GB/s, 1132/1627 MHz"},
    {"(Volta)", "no Turing figure found: the TITAN V figure (AS-TV) stands in"},
};

struct reference {
  double value = NAN;
  const char *source = "";
};

// ---- the GPU a run uses ----------------------------------------------------------------------

struct gpu_info {
  std::string label, file;
  std::vector<std::string> overrides;
  micro::gpu_setup setup;
  const gpu_config &g() const { return setup.g; }
  bool turing = false;  // which published figures apply
  double datasheet_gbs = NAN;  // the product's peak DRAM bandwidth [DS], when the file is a full product
  double peak_gbs() const { return micro::peak_dram_gbs(setup.g); }
  // Theoretical L2 bandwidth of the model: one 32-byte sector per slice and L2 cycle, in bytes
  // per core cycle.
  double l2_peak_bpc() const {
    return setup.g.derived.n_sub_partitions * 32.0 * setup.g.derived.l2_mhz / setup.g.derived.core_mhz;
  }
};

// ---- one row of the table -------------------------------------------------------------------

struct row {
  row(std::string q, std::string u) : quantity(std::move(q)), unit(std::move(u)) {}
  std::string quantity, unit;
  double sim = NAN;
  reference ref;
  std::string knob;   // the option(s) that mostly set the simulated value
  std::string extra;  // shown after the simulated value (e.g. the absolute figure of a ratio)
  std::string note;   // why there is no value
};

void print_row(const row &r) {
  char sim[64] = "—", pub[32] = "—", err[32] = "—";
  if (!std::isnan(r.sim)) std::snprintf(sim, sizeof sim, "%.1f%s%s", r.sim, r.extra.empty() ? "" : " ", r.extra.c_str());
  if (!std::isnan(r.ref.value)) std::snprintf(pub, sizeof pub, "%.1f", r.ref.value);
  if (!std::isnan(r.sim) && !std::isnan(r.ref.value) && r.ref.value != 0)
    std::snprintf(err, sizeof err, "%+.0f%%", 100.0 * (r.sim - r.ref.value) / r.ref.value);
  std::printf("| %s | %s | %s | %s %s | %s | %s |%s%s\n", r.quantity.c_str(), r.unit.c_str(), sim, pub,
              r.ref.source[0] ? (std::string("[") + r.ref.source + "]").c_str() : "", err, r.knob.c_str(),
              r.note.empty() ? "" : " ", r.note.c_str());
  std::fflush(stdout);
}

std::vector<std::string> base_overrides(const gpu_info &gi, const std::string &simt, const std::string &dram) {
  std::vector<std::string> o = gi.overrides;
  o.insert(o.end(), {"-simt_model", simt, "-dram_model", dram});
  return o;
}

// Runs body in a child; the first value it pushes is the row's simulated value.
double measure(const gpu_info &gi, const std::vector<std::string> &ov,
               const std::function<void(micro::session &, std::vector<double> &)> &body, std::string *err,
               std::vector<double> *all = nullptr) {
  micro::values v = micro::run(gi.file, ov, body);
  if (!v.ok || v.v.empty()) {
    *err = v.error.empty() ? "no value" : v.error;
    return NAN;
  }
  if (all) *all = v.v;
  return v.v[0];
}

std::string fmt(const char *f, double a) {
  char b[128];
  std::snprintf(b, sizeof b, f, a);
  return b;
}

// ---- the measurements -----------------------------------------------------------------------

struct options {
  std::string simt = "ca", dram = "ca";
};

void latency(const gpu_info &gi, const options &op) {
  const std::vector<std::string> ov = base_overrides(gi, op.simt, op.dram);
  const gpu_config &g = gi.g();
  const bool t = gi.turing;
  auto ref = [&](double turing_v, const char *turing_src, double volta_v, const char *volta_src) {
    return t ? reference{turing_v, turing_src} : reference{volta_v, volta_src};
  };
  std::printf("| quantity | unit | simtvp | published | error | set mostly by |\n|---|---|---:|---:|---:|---|\n");

  {  // L1D hit: 64 lines 128 B apart (8 KB), pass 0 fills the L1D, pass 1 is timed.
    row r{"L1D hit latency (ld.global.ca chase, 8 KB)", "cycles"};
    r.sim = measure(gi, ov, [](micro::session &s, std::vector<double> &v) {
      v.push_back(micro::chase_global(s, "chase_ca", 64, 128, 256, 2));
    }, &r.note);
    r.ref = ref(32, "SF-2070", 33.7, "AS-TV");
    r.knob = "-gpgpu_l1_latency " + std::to_string(g.core.l1d_latency);
    print_row(r);
  }
  {  // L2 hit: the same chain with ld.global.cg (around the L1D): pass 1 hits in the L2.
    row r{"L2 hit latency (ld.global.cg chase, 8 KB)", "cycles"};
    r.sim = measure(gi, ov, [](micro::session &s, std::vector<double> &v) {
      v.push_back(micro::chase_global(s, "chase_cg", 64, 128, 256, 2));
    }, &r.note);
    r.ref = ref(236, "SF-2070", 211.1, "AS-TV");
    r.knob = "-gpgpu_l2_rop_latency " + std::to_string(g.mem.rop_latency) + ", icnt";
    print_row(r);
  }
  // DRAM chains use ld.global.cg over a 16 MB buffer the kernels never touched: every load of a
  // pass is an L2 miss. 4 passes; passes 1-3 (warm instruction cache) are the figure.
  const uint64_t dram_bytes = 16ull << 20;
  auto mean13 = [](const std::vector<double> &p) { return (p[1] + p[2] + p[3]) / 3; };
  {  // 512 distinct lines in a shuffled order, 128 loads per pass.
    row r{"DRAM latency (L2 miss, random lines of 16 MB)", "cycles"};
    r.sim = measure(gi, ov, [&](micro::session &s, std::vector<double> &v) {
      uint64_t buf = s.alloc(dram_bytes), base = (buf + 127) & ~uint64_t(127);
      uint64_t lines = (buf + dram_bytes - base) / 128, x = 0x9E3779B97F4A7C15ull;
      std::vector<bool> used(lines, false);
      std::vector<uint64_t> a;
      while (a.size() < 512) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t l = x % lines;
        if (!used[l]) used[l] = true, a.push_back(base + l * 128);
      }
      v.push_back(mean13(micro::chase_list(s, "chase_cg", buf, dram_bytes, a, 128, 4)));
    }, &r.note);
    r.ref = ref(NAN, "", 313.5, "AS-TV");
    r.knob = "-dram_latency " + std::to_string(g.mem.dram_latency) + " + DRAM timing";
    print_row(r);
  }
  for (int hit = 1; hit >= 0; hit--) {
    // 64 sectors, 16 per pass: pass 0 opens the row (hit chain) or starts the ping-pong.
    row r{hit ? "DRAM row-buffer hit latency (64 sectors of one row)" : "DRAM row-buffer miss latency (two rows of one bank)",
          "cycles"};
    r.sim = measure(gi, ov, [&](micro::session &s, std::vector<double> &v) {
      uint64_t buf = s.alloc(dram_bytes);
      std::string why;
      std::vector<uint64_t> a = hit ? micro::row_hit_chain(gi.setup.map, buf, dram_bytes, &why) : micro::row_miss_chain(gi.setup.map, buf, dram_bytes, &why);
      if (a.empty()) {
        s.fail(why);
        return;
      }
      v.push_back(mean13(micro::chase_list(s, "chase_cg", buf, dram_bytes, a, 16, 4)));
    }, &r.note);
    r.knob = "-gpgpu_dram_timing_opt (tRCD, CL, tRP)";
    print_row(r);
  }
  {  // Shared memory: 64 words 4 bytes apart.
    row r{"shared memory latency (ld.shared.u32 chase)", "cycles"};
    r.sim = measure(gi, ov, [](micro::session &s, std::vector<double> &v) {
      v.push_back(micro::chase_shared(s, 64, 4, 256, 2));
    }, &r.note);
    r.ref = ref(23, "SF-2070", 27.0, "AS-TV");
    r.knob = "-gpgpu_smem_latency " + std::to_string(g.core.smem_latency);
    print_row(r);
  }
  {  // Constant cache hit: 16 elements 64 B apart (1 KB), pass 1.
    row r{"constant cache hit latency (ld.const chase, 1 KB)", "cycles"};
    r.sim = measure(gi, ov, [](micro::session &s, std::vector<double> &v) {
      v.push_back(micro::chase_const(s, 16, 64, 256, 2, false));
    }, &r.note);
    r.ref = ref(4, "SF-2070", NAN, "");
    r.knob = "L1C hit latency 0 (not an option)";
    print_row(r);
  }
  {  // Constant cache miss, L2 hit: 256 lines 64 B apart, all in the L2, pass 0 (cold L1C).
    row r{"constant cache miss latency (L2 hit, 256 lines)", "cycles"};
    r.sim = measure(gi, ov, [](micro::session &s, std::vector<double> &v) {
      v.push_back(micro::chase_const(s, 256, 64, 256, 1, true));
    }, &r.note);
    r.ref = ref(62, "SF-2070", NAN, "");
    r.knob = "no L1.5 constant cache";
    print_row(r);
  }
  {  // L2 atomics: atom.global.exch chain on 64 lines, pass 1 (lines in the L2).
    row r{"atomic latency (atom.global.exch chase, L2)", "cycles"};
    r.sim = measure(gi, ov, [](micro::session &s, std::vector<double> &v) {
      v.push_back(micro::chase_global(s, "chase_atom", 64, 128, 256, 2));
    }, &r.note);
    r.ref = ref(NAN, "", 243.6, "AS-TV");
    r.knob = "-gpgpu_l2_rop_latency " + std::to_string(g.mem.rop_latency);
    print_row(r);
  }
  // Dependent ALU chains: 64 per iteration, 8 iterations, pass 2 of 2.
  const struct {
    const char *cls;
    double volta;
    std::string knob;
  } alus[] = {
      {"iadd", 4.35, "-ptx_opcode_latency_int ADD " + std::to_string(g.derived.latency_int[0])},
      {"imad", NAN, "-ptx_opcode_latency_int MAD " + std::to_string(g.derived.latency_int[3])},
      {"fadd", NAN, "-ptx_opcode_latency_fp ADD " + std::to_string(g.derived.latency_fp[0])},
      {"ffma", 4.13, "-ptx_opcode_latency_fp MAD " + std::to_string(g.derived.latency_fp[3])},
      {"dfma", 8.08, "-ptx_opcode_latency_dp MAD " + std::to_string(g.derived.latency_dp[3])},
      {"sfu", 21.1, "-ptx_opcode_latency_sfu " + std::to_string(g.derived.latency_sfu)},
  };
  for (const auto &a : alus) {
    const micro::alu_class *c = nullptr;
    for (const micro::alu_class &k : micro::alu_classes())
      if (std::strcmp(k.name, a.cls) == 0) c = &k;
    row r{std::string(c->what) + " dependent latency", "cycles"};
    r.sim = measure(gi, ov, [&](micro::session &s, std::vector<double> &v) {
      v.push_back(micro::alu_chain(s, a.cls, 8, 2));
    }, &r.note);
    r.ref = ref(a.volta, std::isnan(a.volta) ? "" : "(Volta)", a.volta, std::isnan(a.volta) ? "" : "AS-TV");
    r.knob = a.knob;
    print_row(r);
  }
}

void bandwidth(const gpu_info &gi, const options &op) {
  const std::vector<std::string> ov = base_overrides(gi, op.simt, op.dram);
  const gpu_config &g = gi.g();
  const uint32_t sms = g.derived.n_cores, threads = g.derived.max_threads_per_core;
  const double mhz = g.derived.core_mhz;
  std::printf("| quantity | unit | simtvp | published | error | set mostly by |\n|---|---|---:|---:|---:|---|\n");
  // Whole-GPU streaming: every SM full of 256-thread CTAs (one wave); buffer well beyond the L2.
  // Timed with %clock64 from the first CTA's start to the last CTA's end, so the kernel launch
  // latency (-gpgpu_kernel_launch_latency) is not part of it, as on hardware.
  const uint32_t block = 256, grid = sms * (threads / block);
  const uint64_t g4 = static_cast<uint64_t>(grid) * block * 4;  // float4 per sweep of the grid
  {
    row r{"DRAM bandwidth, streaming float4 reads (64 MB)", "% of peak"};
    std::vector<double> all;
    uint64_t n4 = ((64ull << 20) / 16) / g4 * g4;
    r.sim = measure(gi, ov, [&](micro::session &s, std::vector<double> &v) {
      uint64_t in = s.alloc(n4 * 16), out = s.alloc(static_cast<uint64_t>(grid) * block * 4), clk = s.alloc(16ull * grid);
      uint32_t n = static_cast<uint32_t>(n4), reps = 1;
      s.launch("stream_ca", {&in, &out, &clk, &n, &reps}, grid, block);
      uint64_t cycles = micro::grid_span(s, clk, grid);
      double gbs = n4 * 16.0 / (cycles / (mhz * 1e6)) / 1e9;
      v.push_back(100.0 * gbs / gi.peak_gbs());
      v.push_back(gbs);
    }, &r.note, &all);
    r.ref = gi.turing ? reference{100.0 * 391.83 / 448.0, "SF-2070"} : reference{100.0 * 521.05 / 652.8, "AS-TV"};
    r.knob = fmt("peak %.0f GB/s", gi.peak_gbs());
    if (all.size() > 1) r.extra = fmt("(%.0f GB/s)", all[1]);
    print_row(r);
  }
  {
    row r{"L2 bandwidth, float4 ld.global.cg reads of L2-resident data", "% of model peak"};
    std::vector<double> all;
    // A quarter of the L2, 8 passes, after one warming launch.
    uint64_t l2_bytes = 0;
    {
      uint32_t sets = 0, line = 0, assoc = 0;
      std::sscanf(g.mem.l2 + 2, "%u:%u:%u", &sets, &line, &assoc);
      l2_bytes = static_cast<uint64_t>(sets) * line * assoc * g.derived.n_sub_partitions;
    }
    uint64_t n4 = std::max<uint64_t>(1, (l2_bytes / 4 / 16) / g4) * g4;
    r.sim = measure(gi, ov, [&](micro::session &s, std::vector<double> &v) {
      uint64_t in = s.alloc(n4 * 16), out = s.alloc(static_cast<uint64_t>(grid) * block * 4), clk = s.alloc(16ull * grid);
      uint32_t n = static_cast<uint32_t>(n4), reps = 1;
      s.launch("stream_cg", {&in, &out, &clk, &n, &reps}, grid, block);
      reps = 8;
      s.launch("stream_cg", {&in, &out, &clk, &n, &reps}, grid, block);
      uint64_t cycles = micro::grid_span(s, clk, grid);
      double bpc = n4 * 16.0 * reps / cycles;
      v.push_back(100.0 * bpc / gi.l2_peak_bpc());
      v.push_back(bpc);
    }, &r.note, &all);
    r.ref = gi.turing ? reference{} : reference{100.0 * 1365.42 / 1536.0, "AS-TV"};
    r.knob = fmt("%.0f B/clk model peak", gi.l2_peak_bpc());
    if (all.size() > 1) r.extra = fmt("(%.0f B/clk)", all[1]);
    print_row(r);
  }
  {
    row r{"shared-memory bandwidth per SM (ld.shared.u32, 1 CTA)", "B/clk/SM"};
    r.sim = measure(gi, ov, [&](micro::session &s, std::vector<double> &v) {
      const uint32_t tb = std::min<uint32_t>(threads, 1024), iters = 32;
      uint64_t out = s.alloc(512 + tb * 4);
      s.launch("smem_bw", {&out, &iters}, 1, tb);
      uint64_t cycles = 0;
      s.read(&cycles, out, 8);
      v.push_back(static_cast<double>(tb) * 4 * 16 * iters / cycles);
    }, &r.note);
    r.ref = gi.turing ? reference{} : reference{126.48, "AS-TV"};
    r.knob = "-gpgpu_shmem_num_banks " + std::to_string(g.core.shmem_banks);
    print_row(r);
  }
  {
    row r{"L1D bandwidth per SM (float4 hits, 16 KB window, 1 CTA)", "B/clk/SM"};
    r.sim = measure(gi, ov, [&](micro::session &s, std::vector<double> &v) {
      const uint32_t tb = std::min<uint32_t>(threads, 1024), iters = 16, n4 = 1024;
      uint64_t in = s.alloc(n4 * 16), out = s.alloc(512 + tb * 4);
      s.launch("l1_bw", {&in, &out, &n4, &iters}, 1, tb);
      uint64_t cycles = 0;
      s.read(&cycles, out, 8);
      v.push_back(16.0 * n4 * iters / cycles);
    }, &r.note);
    r.ref = gi.turing ? reference{} : reference{116.44, "AS-TV"};
    r.knob = "-gpgpu_l1_banks " + std::to_string(g.core.l1d_banks) + ", -gpgpu_cache:dl1";
    print_row(r);
  }
}

void launch_overhead(const gpu_info &gi, const options &op) {
  const std::vector<std::string> ov = base_overrides(gi, op.simt, op.dram);
  const double mhz = gi.g().derived.core_mhz;
  std::printf("| quantity | unit | simtvp | published | error | set mostly by |\n|---|---|---:|---:|---:|---|\n");
  std::vector<double> all;
  std::string err;
  measure(gi, ov, [&](micro::session &s, std::vector<double> &v) {
    if (!s.load()) return;
    drv_function *f = drv_module_function(s.module(), "empty");
    const uint32_t g1[3] = {1, 1, 1};
    simtvp_diag dg;
    simtvp_diag_clear(&dg);
    s.launch("empty", {}, 1, 1);  // warm: the module image is decoded at the first launch
    uint64_t t0 = s.time_ps();
    uint64_t k = s.launch("empty", {}, 1, 1);
    uint64_t t1 = s.time_ps();
    const int n = 16;
    for (int i = 0; i < n; i++) drv_launch(s.driver(), nullptr, f, g1, g1, 0, nullptr, 0, &dg);
    drv_sync(s.driver(), &dg);
    uint64_t t2 = s.time_ps();
    v.push_back(static_cast<double>(k));
    v.push_back((t1 - t0) * 1e-12 * mhz * 1e6);
    v.push_back((t2 - t1) * 1e-12 * mhz * 1e6 / n);
  }, &err, &all);
  const char *names[3] = {"empty kernel: gpu_sim_cycle", "empty kernel: launch call to sync return (host view)",
                          "empty kernels back to back: simulated time per launch"};
  for (int i = 0; i < 3; i++) {
    row r{names[i], "core cycles"};
    r.sim = all.size() == 3 ? all[static_cast<size_t>(i)] : NAN;
    if (i == 2) r.ref = reference{7257.6, "AS-TV"};
    r.knob = i == 0 ? "-gpgpu_kernel_launch_latency " + std::to_string(gi.g().sim.kernel_launch_latency)
                    : "driver MMIO, command ring, firmware";
    r.note = err;
    print_row(r);
  }
}

// %clock64 on the timing side answers the core clock domain's cycle (tlm/gpu/simt_timing.cc): the
// span of the warm pass of a 1024-add chain must be the CA core's hand count, 1024 x (L + 4)
// (docs/simt.md "Timing of one instruction") plus 9 cycles of prologue and epilogue (the loop
// counter's own latency before the first add, the read of the result before the second clock
// read; tests/micro measures the slope, this prints the whole span).
void clock_check(const gpu_info &gi, const options &op) {
  const std::vector<std::string> ov = base_overrides(gi, op.simt, op.dram);
  std::vector<double> all;
  std::string err;
  measure(gi, ov, [&](micro::session &s, std::vector<double> &v) {
    v.push_back(static_cast<double>(micro::alu_chain_cycles(s, "iadd", 16, 2)));
  }, &err, &all);
  const double hand = 1024.0 * (gi.g().derived.latency_int[0] + 4) + 9;
  if (all.size() == 1)
    std::printf("%%clock64 span of the warm pass of a 1024-add chain: %.0f core cycles; hand count 1024 x (%u + 4) + 9 = "
                "%.0f (%+.0f: register-bank conflicts of the loop counter when the configuration has few banks)\n",
                all[0], gi.g().derived.latency_int[0], hand, all[0] - hand);
  else
    std::printf("clock check failed: %s\n", err.c_str());
}

void usage() {
  std::fprintf(stderr,
               "usage: bench_micro [all|latency|bandwidth|launch|clock] [--config rtx2060|qv100|default|FILE]... "
               "[--set -option value]... [--simt ca|at] [--dram ca|at]\n");
}

}  // namespace

int main(int argc, char **argv) {
  if (const char *src = std::getenv("SIMTVP_SOURCE_DIR")) g_src = src;
  std::string what = "all";
  std::vector<std::string> configs, sets;
  options op;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--config" && i + 1 < argc) configs.push_back(argv[++i]);
    else if (a == "--set" && i + 2 < argc) {
      sets.push_back(argv[++i]);
      sets.push_back(argv[++i]);
    } else if (a == "--simt" && i + 1 < argc) op.simt = argv[++i];
    else if (a == "--dram" && i + 1 < argc) op.dram = argv[++i];
    else if (a == "all" || a == "latency" || a == "bandwidth" || a == "launch" || a == "clock") what = a;
    else {
      usage();
      return 2;
    }
  }
  if (configs.empty()) configs = {"rtx2060", "qv100"};
  for (const std::string &c : configs) {
    gpu_info gi;
    gi.overrides = sets;
    if (c == "rtx2060")
      gi.label = "RTX2060 (configs/SM75_RTX2060.config)", gi.file = g_src + "/configs/SM75_RTX2060.config",
      gi.datasheet_gbs = 336;
    else if (c == "qv100")
      gi.label = "QV100 (configs/SM7_QV100.config)", gi.file = g_src + "/configs/SM7_QV100.config",
      gi.datasheet_gbs = 870;
    else if (c == "default") gi.label = "default (reduced RTX2060)", gi.file = g_src + "/configs/default.config";
    else gi.label = c, gi.file = c;
    std::string err;
    if (!micro::load_gpu(gi.file, gi.overrides, &gi.setup, &err)) {
      std::printf("%s: %s\n", c.c_str(), err.c_str());
      continue;
    }
    gi.turing = gi.g().sim.cc_major == 7 && gi.g().sim.cc_minor == 5;
    const gpu_config &g = gi.g();
    std::printf("\n## %s: %u SMs, core %.0f MHz, L2 %.0f MHz, DRAM %.0f MHz, %u channels x %u L2 slices, "
                "peak DRAM %.1f GB/s%s; SIMT %s, DRAM %s\n\n",
                gi.label.c_str(), g.derived.n_cores, g.derived.core_mhz, g.derived.l2_mhz, g.derived.dram_mhz,
                g.mem.n_channels, g.mem.sub_partitions_per_channel, gi.peak_gbs(),
                std::isnan(gi.datasheet_gbs) ? "" : fmt(" (data sheet %.0f GB/s [DS])", gi.datasheet_gbs).c_str(),
                op.simt.c_str(), op.dram.c_str());
    // Each section ends with a blank line.
    if (what == "all" || what == "latency") latency(gi, op), std::printf("\n");
    if (what == "all" || what == "bandwidth") bandwidth(gi, op), std::printf("\n");
    if (what == "all" || what == "launch") launch_overhead(gi, op), std::printf("\n");
    if (what == "all" || what == "clock") clock_check(gi, op), std::printf("\n");
  }
  std::printf("Sources:\n");
  for (auto &s : kSources) std::printf("- [%s] %s\n", s[0], s[1]);
  return 0;
}
