// Kernel and CTA launch latencies (-gpgpu_kernel_launch_latency, -gpgpu_TB_launch_latency) seen
// from a whole platform: libsimtvp.so with sw/driver running tests/kernels' vector_add.
//
// SystemC simulates once per process, and comparing two latencies needs two platforms: each run
// happens in a forked child that reports the kernel's statistics through a pipe.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "driver.h"
#include "drv_kernel.h"
#include "host_platform.h"
#include "simtvp_host.h"
#include "stats.h"
#include "test_files.h"

namespace {

using test_support::host_call;
using test_support::read_file;

// sgemm_tiled C = A x B over m x n x k (16 x 16 threads per CTA, one CTA per 16 x 16 tile of C);
// A and B from a fixed pattern, C returned in *c.
simtvp_status launch_sgemm(drv *d, uint32_t m, uint32_t n, uint32_t k, std::vector<float> *c, simtvp_diag *diag) {
  std::vector<float> a(m * k), b(k * n);
  for (uint32_t i = 0; i < a.size(); i++) a[i] = static_cast<float>(static_cast<int>(i * 7 % 13) - 6) * 0.25f;
  for (uint32_t i = 0; i < b.size(); i++) b[i] = static_cast<float>(static_cast<int>(i * 5 % 11) - 5) * 0.5f;
  c->assign(m * n, 0.0f);
  uint64_t da, db, dc;
  int mm = static_cast<int>(m), nn = static_cast<int>(n), kk = static_cast<int>(k);
  float alpha = 1.0f, beta = 0.0f;
  simtvp_status st;
  if ((st = test_support::upload(d, a, &da, diag)) || (st = test_support::upload(d, b, &db, diag)) ||
      (st = drv_mem_alloc(d, c->size() * 4, &dc, diag)) ||
      (st = test_support::load_and_launch(d, test_support::kernel_ptx("sgemm.ptx"), "sgemm.ptx",
                                          "_Z11sgemm_tilediiifPKfS0_fPf", {(n + 15) / 16, (m + 15) / 16}, {16, 16},
                                          {&mm, &nn, &kk, &alpha, &da, &db, &beta, &dc}, diag)) ||
      (st = test_support::download(d, dc, c, diag)))
    return st;
  return drv_sync(d, diag);
}

// Runs body in a forked child on a fresh platform opened with `overrides`; returns what the body
// put in its payload, or sets *error (the platform's message, or how the child died).
using child_body = std::function<simtvp_status(simtvp_host *h, drv *d, std::string &payload, simtvp_diag *diag)>;

bool run_child(const std::vector<std::string> &overrides, const child_body &body, std::string *payload,
               std::string *error) {
  test_support::child_result c = test_support::run_in_child([&] {
    test_support::clear_platform_environment();
    if (const char *dir = getenv("SIMTVP_OUTDIR_FOR_CHILD")) setenv("SIMTVP_OUTDIR", dir, 1);
    test_support::platform_options o;
    o.overrides = overrides;
    simtvp_diag diag;
    simtvp_diag_clear(&diag);
    std::string out;
    simtvp_host *h = test_support::open_platform(o, &diag);
    drv *d = nullptr;
    simtvp_status st = h ? simtvp_host_driver(h, &d, &diag) : diag.status;
    if (st == SIMTVP_OK) st = body(h, d, out, &diag);
    // [ok][message length][message][payload]; the platform is not torn down in the child
    std::string msg = st == SIMTVP_OK ? "" : diag.message;
    std::string all(1, st == SIMTVP_OK ? '1' : '0');
    uint64_t n = msg.size();
    all.append(reinterpret_cast<const char *>(&n), sizeof n);
    return all + msg + out;
  });
  const std::string &data = c.payload;
  if (!c.ok || data.size() < 9) {
    *error = c.ok ? "short message from the child" : c.error;
    return false;
  }
  uint64_t n;
  std::memcpy(&n, data.data() + 1, sizeof n);
  *error = data.substr(9, n);
  *payload = data.substr(9 + n);
  return data[0] == '1';
}

// What a child reports about its one kernel.
struct kernel_run {
  bool ok = false;
  std::string error;
  uint64_t cycles = 0, insn = 0, ctas = 0;
};

// Opens a platform with `overrides` in a child process, runs vector_add over n elements and
// returns that kernel's gpu_sim_cycle, gpu_sim_insn and CTAs.
kernel_run run_in_child(const std::vector<std::string> &overrides, uint32_t n) {
  kernel_run r;
  std::string payload;
  r.ok = run_child(
      overrides,
      [n](simtvp_host *h, drv *d, std::string &out, simtvp_diag *diag) {
        simtvp_status st = SIMTVP_OK;
        host_call(h, [&] { st = test_support::run_vector_add(d, n, diag); });
        if (st != SIMTVP_OK) return st;
        stats *s = simtvp_host_stats(h);
        int found = 0;
        uint64_t v[4] = {stats_kernel_count(s), stats_kernel_get(s, 0, "gpu_sim_cycle", &found),
                         stats_kernel_get(s, 0, "gpu_sim_insn", &found),
                         stats_kernel_get(s, 0, "cta_disp.ctas_done", &found)};
        out.assign(reinterpret_cast<const char *>(v), sizeof v);
        return SIMTVP_OK;
      },
      &payload, &r.error);
  if (r.ok && payload.size() == 4 * sizeof(uint64_t)) {
    uint64_t v[4];
    std::memcpy(v, payload.data(), sizeof v);
    r.ok = v[0] == 1;
    r.cycles = v[1];
    r.insn = v[2];
    r.ctas = v[3];
  } else {
    r.ok = false;
  }
  return r;
}

// The timing GPU with every clock domain at 1 GHz: a kernel that starts k cycles later sees the
// interconnect, L2 and DRAM edges at the same phase, so it runs exactly as long. No launch
// latencies unless `more` sets them (the default configuration has a kernel launch latency).
std::vector<std::string> timing(std::vector<std::string> more = {}) {
  std::vector<std::string> o = {"-simt_model", "ca", "-gpgpu_clock_domains", "1000:1000:1000:1000",
                                "-gpgpu_kernel_launch_latency", "0", "-gpgpu_TB_launch_latency", "0"};
  o.insert(o.end(), more.begin(), more.end());
  return o;
}

// gpu_sim_cycle counts the cycles during which a kernel runs, from its start on the GPU (when the
// dispatcher takes it) to its last CTA's end. The kernel launch latency lies inside that window,
// so the kernel's gpu_sim_cycle grows by exactly the latency: base + 1000.
TEST(LaunchLatency, KernelLaunchLatencyAddsExactlyItsCyclesToGpuSimCycle) {
  kernel_run base = run_in_child(timing(), 1024);
  ASSERT_TRUE(base.ok) << base.error;
  kernel_run late = run_in_child(timing({"-gpgpu_kernel_launch_latency", "1000"}), 1024);
  ASSERT_TRUE(late.ok) << late.error;
  EXPECT_GT(base.cycles, 0u);
  EXPECT_EQ(late.cycles, base.cycles + 1000);
  EXPECT_EQ(late.insn, base.insn);
}

// 4 CTAs on 8 SMs are all issued in the kernel's first issue cycle (one per core per cycle), each
// reaching its core 37 cycles later: every CTA runs as before, shifted by 37 → base + 37.
TEST(LaunchLatency, CtaLaunchLatencyDelaysEveryCtaOfOneWaveByItsCycles) {
  kernel_run base = run_in_child(timing(), 1024);
  ASSERT_TRUE(base.ok) << base.error;
  kernel_run late = run_in_child(timing({"-gpgpu_TB_launch_latency", "37"}), 1024);
  ASSERT_TRUE(late.ok) << late.error;
  EXPECT_EQ(late.ctas, 4u);
  EXPECT_EQ(late.cycles, base.cycles + 37);
}

// Both: 500 + 37.
TEST(LaunchLatency, KernelAndCtaLaunchLatenciesAdd) {
  kernel_run base = run_in_child(timing(), 256);
  ASSERT_TRUE(base.ok) << base.error;
  kernel_run late =
      run_in_child(timing({"-gpgpu_kernel_launch_latency", "500", "-gpgpu_TB_launch_latency", "37"}), 256);
  ASSERT_TRUE(late.ok) << late.error;
  EXPECT_EQ(late.cycles, base.cycles + 537);
}

// The default configuration is the RTX2060 one, which has GPGPU-Sim's (Accel-Sim's)
// -gpgpu_kernel_launch_latency 5000: every kernel there is 5000 cycles longer than without it.
TEST(LaunchLatency, DefaultConfigurationHasTheRtx2060KernelLaunchLatency) {
  kernel_run base = run_in_child(timing(), 256);
  ASSERT_TRUE(base.ok) << base.error;
  kernel_run dflt = run_in_child({"-simt_model", "ca", "-gpgpu_clock_domains", "1000:1000:1000:1000"}, 256);
  ASSERT_TRUE(dflt.ok) << dflt.error;
  EXPECT_EQ(dflt.cycles, base.cycles + 5000);
}

// The functional side runs kernels in zero GPU time: the latencies do not apply there.
TEST(LaunchLatency, FunctionalSideIgnoresTheLaunchLatencies) {
  kernel_run r = run_in_child({"-simt_model", "func", "-gpgpu_kernel_launch_latency", "5000",
                               "-gpgpu_TB_launch_latency", "100"},
                              1024);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.cycles, 0u);
  EXPECT_EQ(r.ctas, 4u);
}

// A negative latency is a configuration error naming the option.
TEST(LaunchLatency, NegativeLatencyIsAConfigurationErrorNamingTheOption) {
  kernel_run r = run_in_child(timing({"-gpgpu_TB_launch_latency", "-1"}), 256);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("-gpgpu_TB_launch_latency"), std::string::npos) << r.error;
}

// ---- -func_threads: whole kernels over several host threads on the functional side ------------

// Counters whose totals must not depend on how many host threads ran the CTAs.
const char *const kFuncCounters[] = {"gpu_sim_insn",     "func.warp_insn",     "func.thread_insn",
                                     "func.cta",         "func.load.global",   "func.store.global",
                                     "func.load.shared", "func.store.shared",  "func.load.param",
                                     "cta_disp.ctas_done", "cta_disp.ctas_issued", "cta_disp.kernels"};

// SGEMM (96 x 80 x 64: 30 CTAs) and vector_add (5000 elements: 20 CTAs), both independent of the
// order of their CTAs: the outputs, then the counters' totals and each kernel's gpu_sim_insn.
std::string order_independent_run(simtvp_host *h, drv *d, simtvp_diag *diag, simtvp_status *st) {
  std::vector<float> c;
  *st = SIMTVP_OK;
  host_call(h, [&] {
    if ((*st = launch_sgemm(d, 96, 80, 64, &c, diag))) return;
    *st = test_support::run_vector_add(d, 5000, diag);
  });
  std::string out(reinterpret_cast<const char *>(c.data()), c.size() * sizeof(float));
  stats *s = simtvp_host_stats(h);
  int found = 0;
  for (const char *name : kFuncCounters) out += std::string(name) + "=" + std::to_string(stats_get(s, name, &found)) + "\n";
  for (uint32_t k = 0; k < stats_kernel_count(s); k++)
    out += std::string(stats_kernel_name(s, k)) + " gpu_sim_insn=" +
           std::to_string(stats_kernel_get(s, k, "gpu_sim_insn", &found)) + "\n";
  return out;
}

std::string func_run(uint32_t threads, std::string *error) {
  std::string payload;
  bool ok = run_child({"-simt_model", "func", "-func_threads", std::to_string(threads)},
                      [](simtvp_host *h, drv *d, std::string &out, simtvp_diag *diag) {
                        simtvp_status st;
                        out = order_independent_run(h, d, diag, &st);
                        return st;
                      },
                      &payload, error);
  return ok ? payload : "";
}

TEST(FuncThreads, FourHostThreadsGiveTheSingleThreadResultsAndStatistics) {
  std::string err1, err4;
  std::string one = func_run(1, &err1);
  ASSERT_FALSE(one.empty()) << err1;
  std::string four = func_run(4, &err4);
  ASSERT_FALSE(four.empty()) << err4;
  // Byte-exact outputs, identical counter totals and per-kernel instruction counts.
  EXPECT_EQ(four.size(), one.size());
  EXPECT_TRUE(four == one) << "one thread:\n" << one.substr(96 * 80 * 4) << "four threads:\n" << four.substr(96 * 80 * 4);
  EXPECT_NE(one.find("func.cta=50\n"), std::string::npos) << one.substr(96 * 80 * 4);
  // SGEMM computed something: C[0][0] = sum over p of A[0][p] * B[p][0].
  float c00;
  std::memcpy(&c00, four.data(), sizeof c00);
  float want = 0;
  for (uint32_t p = 0; p < 64; p++)
    want += static_cast<float>(static_cast<int>(p * 7 % 13) - 6) * 0.25f *
            (static_cast<float>(static_cast<int>(p * 80 * 5 % 11) - 5) * 0.5f);
  EXPECT_EQ(c00, want);
}

// A kernel that faults still reports the first fault with its address when its CTAs run on
// several host threads.
TEST(FuncThreads, FaultOnAHostThreadIsTheKernelsErrorNamingTheAddress) {
  std::string payload, error;
  bool ok = run_child({"-simt_model", "func", "-func_threads", "4"},
                      [](simtvp_host *h, drv *d, std::string &, simtvp_diag *diag) {
                        simtvp_status st = SIMTVP_OK;
                        host_call(h, [&] {
                          // vector_add with its output pointing at an unmapped address
                          uint64_t a, bad = 0x10;
                          int n = 4096;
                          if ((st = drv_mem_alloc(d, 4096 * 4, &a, diag)) ||
                              (st = test_support::load_and_launch(d, test_support::kernel_ptx("vector_add.ptx"),
                                                                  "vector_add.ptx", "_Z10vector_addPKfS0_Pfi", 16, 256,
                                                                  {&a, &a, &bad, &n}, diag)))
                            return;
                          st = drv_sync(d, diag);
                        });
                        return st;
                      },
                      &payload, &error);
  EXPECT_FALSE(ok);
  EXPECT_NE(error.find("0x"), std::string::npos) << error;
}

// ---- PTX source-line statistics (-enable_ptx_file_line_stats) on the whole platform -------------

// tests/platform/fixtures/line_stats.ptx (hand-written, with .loc to k.cu) on 3 CTAs of 64 threads;
// the hand computation is in tests/func/func_line_stats_test.cpp. Returns the text file written
// to `file` and, in *counts, per checked line: warp insns, thread insns, stall cycles of the kernel.
const uint32_t kCheckedLines[] = {21, 30, 32, 42};
const uint64_t kWantWarp[] = {6, 6, 12, 6}, kWantThread[] = {192, 96, 192, 192};

bool line_stats_run(std::vector<std::string> overrides, const std::string &out_dir, std::string *text,
                    std::vector<uint64_t> *counts, std::string *error) {
  std::string payload;
  bool ok = run_child(
      overrides,
      [&](simtvp_host *h, drv *d, std::string &out, simtvp_diag *diag) {
        simtvp_status st = SIMTVP_OK;
        host_call(h, [&] {
          std::string ptx = read_file(test_support::source_path("tests/platform/fixtures/line_stats.ptx"));
          uint64_t buf;
          if ((st = drv_mem_alloc(d, 3 * 64 * 4, &buf, diag)) ||
              (st = test_support::load_and_launch(d, ptx, "line_stats.ptx", "k", 3, 64, {&buf}, diag)))
            return;
          st = drv_sync(d, diag);
        });
        if (st != SIMTVP_OK) return st;
        stats *sk = simtvp_host_stats(h);
        for (uint32_t line : kCheckedLines)
          for (int c = 0; c < STATS_CODE_COLUMNS; c++) {
            uint64_t v = stats_code_kernel_line_get(sk, 0, "line_stats.ptx", line, c);
            out.append(reinterpret_cast<const char *>(&v), sizeof v);
          }
        for (int c = 0; c < STATS_CODE_COLUMNS; c++) {
          uint64_t v = stats_code_source_line_get(sk, "k.cu", 9, c);
          out.append(reinterpret_cast<const char *>(&v), sizeof v);
        }
        return SIMTVP_OK;
      },
      &payload, error);
  (void)out_dir;
  counts->assign(payload.size() / sizeof(uint64_t), 0);
  if (!payload.empty()) std::memcpy(counts->data(), payload.data(), payload.size());
  *text = ok ? read_file(out_dir + "/gpgpu_inst_stats.txt") : "";
  return ok;
}

// An output directory that does not exist yet: the platform creates it.
std::string scratch(const char *name) {
  std::string d = test_support::scratch_dir("tests/platform", name, false);
  EXPECT_FALSE(d.empty());
  return d;
}

// timing: the CA and AT cores attribute stall cycles (tests/simt checks their values against the
// issue trace); the functional side has none.
void expect_line_counts(const std::vector<uint64_t> &counts, bool timing = false) {
  ASSERT_EQ(counts.size(), (std::size(kCheckedLines) + 1) * STATS_CODE_COLUMNS);
  uint64_t stalls = 0;
  for (size_t i = 0; i < std::size(kCheckedLines); i++) {
    EXPECT_EQ(counts[i * 3 + 0], kWantWarp[i]) << "line " << kCheckedLines[i];
    EXPECT_EQ(counts[i * 3 + 1], kWantThread[i]) << "line " << kCheckedLines[i];
    stalls += counts[i * 3 + 2];
    if (!timing) {
      EXPECT_EQ(counts[i * 3 + 2], 0u) << "no stalls without timing";
    }
  }
  if (timing) {
    EXPECT_GT(stalls, 0u) << "the timing cores attribute stall cycles";
  }
  // k.cu:9 = line 30 (2 instructions) and the 4-line loop: 6 + 48 warp, 96 + 768 thread insns.
  EXPECT_EQ(counts[12], 54u);
  EXPECT_EQ(counts[13], 864u);
}

// The functional side: per-line counts in the statistics, and the text file in the output
// directory ($SIMTVP_OUTDIR, as `simtvp -o` sets it) with the kernel's section.
TEST(PtxLineStats, FunctionalRunWritesTheKernelsLinesToTheOutputDirectory) {
  std::string dir = scratch("func");
  setenv("SIMTVP_OUTDIR_FOR_CHILD", dir.c_str(), 1);
  std::string text, error;
  std::vector<uint64_t> counts;
  ASSERT_TRUE(line_stats_run({"-simt_model", "func", "-enable_ptx_file_line_stats", "1"}, dir, &text, &counts, &error))
      << error;
  expect_line_counts(counts);
  EXPECT_NE(text.find("# kernel k launch 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nline_stats.ptx:32\tk.cu:9\t12\t192\t0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nline_stats.ptx:24\tk.cu:5\t6\t192\t0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nk.cu:11\t36\t1152\t0\n"), std::string::npos) << text;
}

// The timing side's CA and AT cores execute through the same per-warp interface: the same counts.
TEST(PtxLineStats, TimingRunsCountTheSameLinesOnCaAndAtCores) {
  for (const char *model : {"ca", "at"}) {
    std::string dir = scratch(model);
    setenv("SIMTVP_OUTDIR_FOR_CHILD", dir.c_str(), 1);
    std::string text, error;
    std::vector<uint64_t> counts;
    ASSERT_TRUE(line_stats_run({"-simt_model", model, "-enable_ptx_file_line_stats", "1"}, dir, &text, &counts, &error))
        << model << ": " << error;
    expect_line_counts(counts, true);
    EXPECT_NE(text.find("\nline_stats.ptx:42\tk.cu:11\t6\t192\t"), std::string::npos) << model << "\n" << text;
  }
}

TEST(PtxLineStats, OffByDefaultNothingIsCountedOrWritten) {
  std::string dir = scratch("off");
  setenv("SIMTVP_OUTDIR_FOR_CHILD", dir.c_str(), 1);
  std::string text, error;
  std::vector<uint64_t> counts;
  ASSERT_TRUE(line_stats_run({"-simt_model", "func"}, dir, &text, &counts, &error)) << error;
  for (uint64_t v : counts) EXPECT_EQ(v, 0u);
  EXPECT_EQ(text, "");
}

// A file that cannot be written is an error naming the option and the path; the kernel is fine.
TEST(PtxLineStats, UnwritableFileIsAnErrorNamingTheOptionAndPath) {
  std::string dir = scratch("bad");
  setenv("SIMTVP_OUTDIR_FOR_CHILD", dir.c_str(), 1);
  std::string text, error;
  std::vector<uint64_t> counts;
  std::string bad = "/proc/simtvp-no-such-dir/lines.txt";
  testing::internal::CaptureStderr();
  bool ok = line_stats_run({"-simt_model", "func", "-enable_ptx_file_line_stats", "1", "-ptx_line_stats_filename", bad},
                           dir, &text, &counts, &error);
  std::string err = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(ok) << error;
  expect_line_counts(counts);
  EXPECT_NE(err.find("-ptx_line_stats_filename: cannot write the PTX line statistics to " + bad), std::string::npos)
      << err;
}

}  // namespace
