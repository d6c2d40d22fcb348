// Kernel and CTA launch latencies (-gpgpu_kernel_launch_latency, -gpgpu_TB_launch_latency) seen
// from a whole platform: libsimtvp.so with sw/driver running tests/kernels' vector_add.
//
// SystemC simulates once per process, and comparing two latencies needs two platforms: each run
// happens in a forked child that reports the kernel's statistics through a pipe.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "driver.h"
#include "simtvp_host.h"
#include "stats.h"

namespace {

std::string read_file(const std::string &path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

template <class F>
simtvp_status call(simtvp_host *h, F &&f, simtvp_diag *diag = nullptr) {
  return simtvp_host_call(h, [](void *ctx) { (*static_cast<F *>(ctx))(); }, &f, diag);
}

// vector_add over n elements: one CTA of 256 threads per 256 elements.
simtvp_status launch_vector_add(drv *d, uint32_t n, simtvp_diag *diag) {
  std::string ptx = read_file(std::string(SIMTVP_SOURCE_DIR) + "/tests/kernels/ptx/vector_add.ptx");
  uint64_t a, b, c;
  drv_module *mod;
  simtvp_status st;
  if ((st = drv_mem_alloc(d, n * 4, &a, diag)) || (st = drv_mem_alloc(d, n * 4, &b, diag)) ||
      (st = drv_mem_alloc(d, n * 4, &c, diag)) ||
      (st = drv_module_load_ptx(d, ptx.data(), ptx.size(), "vector_add.ptx", &mod, diag)))
    return st;
  drv_function *f = drv_module_function(mod, "_Z10vector_addPKfS0_Pfi");
  if (!f) return SIMTVP_ERR_ARG;
  int nn = static_cast<int>(n);
  void *args[] = {&a, &b, &c, &nn};
  uint8_t params[64];
  uint32_t used = 0;
  if ((st = drv_function_pack_params(f, args, params, sizeof params, &used, diag))) return st;
  uint32_t grid[3] = {(n + 255) / 256, 1, 1}, block[3] = {256, 1, 1};
  if ((st = drv_launch(d, nullptr, f, grid, block, 0, params, used, diag))) return st;
  return drv_sync(d, diag);
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
  int fds[2];
  if (pipe(fds) != 0) {
    r.error = "pipe failed";
    return r;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    r.error = "fork failed";
    return r;
  }
  if (pid == 0) {
    close(fds[0]);
    for (const char *v : {"SIMTVP_CONFIG", "SIMTVP_OUTDIR", "SIMTVP_OPTIONS", "SIMTVP_STRICT", "SIMTVP_QUIET"})
      unsetenv(v);
    std::vector<const char *> argv;
    for (const std::string &w : overrides) argv.push_back(w.c_str());
    simtvp_host_options o{};
    o.overrides = argv.data();
    o.n_overrides = static_cast<int>(argv.size());
    o.quiet = true;
    simtvp_diag diag;
    simtvp_diag_clear(&diag);
    char msg[1100] = "";
    uint64_t out[4] = {0, 0, 0, 0};  // ok, cycles, insn, ctas
    simtvp_host *h = simtvp_host_open(&o, &diag);
    drv *d = nullptr;
    simtvp_status st = h ? simtvp_host_driver(h, &d, &diag) : diag.status;
    if (st == SIMTVP_OK) call(h, [&] { st = launch_vector_add(d, n, &diag); });
    if (st == SIMTVP_OK) {
      stats *s = simtvp_host_stats(h);
      int found = 0;
      out[0] = stats_kernel_count(s) == 1;
      out[1] = stats_kernel_get(s, 0, "gpu_sim_cycle", &found);
      out[2] = stats_kernel_get(s, 0, "gpu_sim_insn", &found);
      out[3] = stats_kernel_get(s, 0, "cta_disp.ctas_done", &found);
    } else {
      std::snprintf(msg, sizeof msg, "%s", diag.message);
    }
    if (write(fds[1], out, sizeof out) != sizeof out || write(fds[1], msg, sizeof msg) != sizeof msg) _exit(4);
    _exit(0);  // no close: the platform is not torn down in the child
  }
  close(fds[1]);
  uint64_t in[4] = {0, 0, 0, 0};
  char msg[1100] = "";
  bool got = read(fds[0], in, sizeof in) == sizeof in && read(fds[0], msg, sizeof msg) == sizeof msg;
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    r.error = "the child died (status " + std::to_string(status) + ")";
    return r;
  }
  r.ok = in[0] == 1;
  r.error = msg;
  r.cycles = in[1];
  r.insn = in[2];
  r.ctas = in[3];
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

}  // namespace
