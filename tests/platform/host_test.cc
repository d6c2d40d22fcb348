// simtvp_host (platform/host, libsimtvp.so) driven directly with sw/driver: the platform opened
// from the built-in default and from a given option file; allocate, copy, load PTX, launch, read
// back inside simtvp_host_call; simulated time from the configured latencies; events; device
// printf; faults; configuration errors; one platform per process.
//
// SystemC simulates once per process: every case opens its own platform, and CTest runs each case
// in its own process. Running this binary by hand, pick one case (--gtest_filter).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "driver.h"
#include "func.h"
#include "drv_kernel.h"
#include "host_platform.h"
#include "ptx_fixtures.h"
#include "simtvp_host.h"
#include "stats.h"
#include "test_files.h"

namespace {

using test_support::host_call;
using test_support::kBarrierDeadlockPtx;
using test_support::kernel_ptx;
using test_support::read_file;

// A scratch directory under the build tree for this test process.
std::string scratch_dir() {
  std::string d = test_support::scratch_dir("tests/platform", "host");
  EXPECT_FALSE(d.empty());
  return d;
}

class SimtvpHost : public ::testing::Test {
 protected:
  void SetUp() override {
    // The environment of a developer's shell must not change what the tests see.
    test_support::clear_platform_environment();
    simtvp_diag_clear(&diag);
  }
  void TearDown() override {
    if (host) simtvp_host_close(host);
  }

  // Opens with the given overrides (functional SIMT side unless the test says otherwise).
  void open(std::vector<std::string> overrides = {}, const char *config = nullptr, const char *out_dir = nullptr,
            bool quiet = true) {
    test_support::platform_options o;
    o.overrides = std::move(overrides);
    o.config = config ? config : "";
    o.out_dir = out_dir ? out_dir : "";
    o.quiet = quiet;
    host = test_support::open_platform(o, &diag);
    ASSERT_NE(host, nullptr) << diag.message;
    ASSERT_EQ(simtvp_host_driver(host, &d, &diag), SIMTVP_OK) << diag.message;
  }

  simtvp_host *host = nullptr;
  drv *d = nullptr;
  simtvp_diag diag;
};

TEST_F(SimtvpHost, OpensTheBuiltInDefaultConfiguration) {
  open();
  const drv_device_props *p = drv_props(d);
  // The name registers hold 32 bytes (gpu_abi.h NAME0..7): longer names are cut.
  EXPECT_STREQ(p->name, "simtvp default (RTX2060, 8 SMs)");
  EXPECT_EQ(p->sm_count, 8u);
  EXPECT_EQ(p->cc_major, 7u);
  EXPECT_EQ(p->cc_minor, 5u);
  EXPECT_EQ(p->devmem_bytes, 4096ull << 20);
  EXPECT_EQ(p->max_threads_per_sm, 1024u);
  EXPECT_EQ(p->smem_per_sm, 65536u);
  EXPECT_EQ(p->core_clock_khz, 1365000u);
  // L2: 3 channels x 2 sub-partitions of S:64:128:16 (131072 bytes each).
  EXPECT_EQ(p->l2_bytes, 6u * 64 * 128 * 16);
  // 3 channels x 1 chip x 2 bytes (GDDR6 x16), as the full part's 12 x 16 = 192 bits.
  EXPECT_EQ(p->mem_bus_width_bits, 48u);
}

// The GPU's generic-address windows (shared, local, parameter memory) are reserved in the host
// process when libsimtvp loads, so no host mapping — system memory's, the program's — can land
// there and be read by a kernel as shared/local/param memory (mapped memory, shared_va). Before
// the reservation, -system_mode shared_va's pingpong failed 1-3 % of runs this way.
TEST_F(SimtvpHost, GenericAddressWindowsAreReservedInTheHostProcess) {
  // Where something mapped itself there before libsimtvp loaded (the program's libraries, placed at
  // random; AddressSanitizer's allocator), the whole range cannot be reserved: then the platform
  // reserves the gaps and says so when it opens, naming the range (not when quiet).
  ::testing::internal::CaptureStderr();
  open({}, nullptr, nullptr, /*quiet=*/false);
  std::string said = ::testing::internal::GetCapturedStderr();
  std::ifstream maps("/proc/self/maps");
  ASSERT_TRUE(maps.good());
  std::string line, foreign;
  bool reserved = false;
  while (std::getline(maps, line)) {
    unsigned long long lo = 0, hi = 0;
    char perms[8] = {};
    if (std::sscanf(line.c_str(), "%llx-%llx %7s", &lo, &hi, perms) != 3) continue;
    if (lo < FUNC_WINDOW_HI && hi > FUNC_WINDOW_LO) {  // overlaps the windows
      if (lo == FUNC_WINDOW_LO && hi == FUNC_WINDOW_HI && std::string(perms) == "---p")
        reserved = true;
      else if (std::string(perms) != "---p")  // (the gaps' reservations are ---p)
        foreign += line + "\n";
    }
  }
  if (reserved) {
    EXPECT_EQ(said.find("generic-address windows"), std::string::npos) << said;
  } else {
    EXPECT_NE(said.find("host memory is mapped inside the GPU's generic-address windows [0x7ff000000000, "
                        "0x7ff300000000)"),
              std::string::npos)
        << "no reservation and no warning; mappings there:\n" << foreign << "stderr:\n" << said;
  }
}

// A program whose memory already sits inside the windows when libsimtvp.so loads: the platform
// opens (most programs never pass such a pointer to a kernel), reserves the rest of the range and
// warns, naming the range and what sits there — never a silent wrong answer.
TEST(SimtvpHostWindows, WarnsWhenTheProgramAlreadyHoldsMemoryInsideTheGenericAddressWindows) {
  std::string cmd = std::string(SIMTVP_WINDOW_PROBE) + " " + SIMTVP_LIBRARY + " 2>&1";
  FILE *f = popen(cmd.c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string said;
  char buf[512];
  while (std::fgets(buf, sizeof buf, f)) said += buf;
  int rc = pclose(f);
  ASSERT_TRUE(WIFEXITED(rc)) << said;
  if (WEXITSTATUS(rc) == 77) GTEST_SKIP() << "this process's address space already had something there";
  EXPECT_EQ(WEXITSTATUS(rc), 0) << said;
  EXPECT_NE(said.find("simtvp: warning: host memory is mapped inside the GPU's generic-address windows "
                      "[0x7ff000000000, 0x7ff300000000) (7ff000010000-7ff000011000 rw-p"),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("window bytes left unmapped: 0\n"), std::string::npos) << said;
}

TEST_F(SimtvpHost, OpensAGivenConfigurationFile) {
  std::string file = std::string(SIMTVP_SOURCE_DIR) + "/configs/SM75_RTX2060.config";
  open({"-simt_model", "func"}, file.c_str());
  const drv_device_props *p = drv_props(d);
  EXPECT_STREQ(p->name, "simtvp RTX2060-class (30 SMs)");
  EXPECT_EQ(p->sm_count, 30u);
  EXPECT_EQ(p->cc_major, 7u);
  EXPECT_EQ(p->cc_minor, 5u);
}

TEST_F(SimtvpHost, ConfigurationComesFromTheEnvironment) {
  std::string file = std::string(SIMTVP_SOURCE_DIR) + "/configs/SM2_GTX480.config";
  setenv("SIMTVP_CONFIG", file.c_str(), 1);
  setenv("SIMTVP_OPTIONS", "-gpgpu_n_clusters 3 -gpu_name 'env GPU'", 1);
  open();
  EXPECT_STREQ(drv_props(d)->name, "env GPU");
  EXPECT_EQ(drv_props(d)->sm_count, 3u);
  EXPECT_EQ(drv_props(d)->cc_major, 2u);
}

TEST_F(SimtvpHost, VectorAddFromCommittedPtxComputesOnTheGpu) {
  open({"-simt_model", "func"});
  const uint32_t n = 5000;
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (uint32_t i = 0; i < n; i++) {
    a[i] = 0.25f * i;
    b[i] = 1000.0f - i;
  }
  std::string ptx = kernel_ptx("vector_add.ptx");
  simtvp_status st = SIMTVP_ERR_STATE;
  ASSERT_EQ(host_call(host, [&] {
              uint64_t da, db, dc;
              int nn = n;
              if ((st = test_support::upload(d, a, &da, &diag)) || (st = test_support::upload(d, b, &db, &diag)) ||
                  (st = drv_mem_alloc(d, n * 4, &dc, &diag)) ||
                  (st = test_support::load_and_launch(d, ptx, "vector_add.ptx", "_Z10vector_addPKfS0_Pfi",
                                                      (n + 255) / 256 / 2, 256, {&da, &db, &dc, &nn}, &diag)) ||
                  (st = test_support::download(d, dc, &c, &diag)))
                return;
              st = drv_sync(d, &diag);
            }),
            SIMTVP_OK);
  ASSERT_EQ(st, SIMTVP_OK) << diag.message;
  for (uint32_t i = 0; i < n; i++) ASSERT_EQ(c[i], a[i] + b[i]) << "element " << i;
  // The kernel was counted: one kernel, 5000 adds and their loop in thread instructions.
  stats *s = simtvp_host_stats(host);
  ASSERT_EQ(stats_kernel_count(s), 1u);
  EXPECT_STREQ(stats_kernel_name(s, 0), "_Z10vector_addPKfS0_Pfi");
  int found = 0;
  EXPECT_GT(stats_kernel_get(s, 0, "gpu_sim_insn", &found), 5000u);
  EXPECT_TRUE(found);
}

// Hand computation: the call charges -host_api_overhead_ns once (50 ns), then 3 MMIO reads of
// 700 ns and 2 MMIO writes of 300 ns each: 50 + 3 * 700 + 2 * 300 = 2750 ns.
TEST_F(SimtvpHost, MmioAccessesCostTheirConfiguredLatency) {
  open({"-simt_model", "func", "-host_mmio_read_latency_ns", "700", "-host_mmio_write_latency_ns", "300",
        "-host_api_overhead_ns", "50"});
  const drv_bus *bus = simtvp_host_bus(host);
  uint32_t id = 0, scratch = 0;
  uint64_t t0 = simtvp_host_time_ps(host);
  ASSERT_EQ(host_call(host, [&] {
              id = bus->mmio_read32(bus->ctx, 0x000);   // ID
              bus->mmio_write32(bus->ctx, 0x10C, 0xCAFEF00D);  // SCRATCH
              bus->mmio_write32(bus->ctx, 0x10C, 0x12345678);
              (void)bus->mmio_read32(bus->ctx, 0x004);  // ABI_VERSION
              scratch = bus->mmio_read32(bus->ctx, 0x10C);
            }),
            SIMTVP_OK);
  EXPECT_EQ(simtvp_host_time_ps(host) - t0, 2750000u);
  EXPECT_EQ(id, 0x53565047u);
  EXPECT_EQ(scratch, 0x12345678u);
}

// Hand computation (1 GHz control clock: 1 cycle = 1 ns): a device-to-device copy of B bytes
// occupies a copy engine for dram_latency + B / (DRAM bytes per cycle) cycles (models/gpuctl
// gpu_ce.h), with dram_latency = 100 cycles (-dram_latency of the QV100 values; the test runs
// the QV100 configuration reduced to 8 SMs and 4 channels) and 4 channels x
// 16 bytes x 2 transfers per command cycle at 1000 MHz = 128 bytes per cycle. Between two events
// around the copy the GPU also spends firmware time on the packets (events of 20 cycles each,
// gpuctl_config_default), nearly the same for every size: 2 MiB takes 1 MiB / 128 = 8192 ns
// longer than 1 MiB, give or take the order in which the firmware meets the copy's completion
// and the next doorbell (one or two events), and each takes at least its copy time.
TEST_F(SimtvpHost, EventsMeasureGpuTimeOfCopies) {
  std::string qv100 = std::string(SIMTVP_SOURCE_DIR) + "/configs/SM7_QV100.config";
  open({"-simt_model", "func", "-gpgpu_n_clusters", "8", "-gpgpu_n_mem", "4", "-device_memory_mb", "4096",
        "-gpgpu_clock_domains", "1000:1000:1000:1000"},
       qv100.c_str());
  uint64_t ns[2] = {0, 0};
  simtvp_status st = SIMTVP_OK;
  const uint64_t mib = 1 << 20;
  ASSERT_EQ(host_call(host, [&] {
              uint64_t src, dst;
              drv_event *e0 = nullptr, *e1 = nullptr;
              if ((st = drv_mem_alloc(d, 2 * mib, &src, &diag)) || (st = drv_mem_alloc(d, 2 * mib, &dst, &diag)) ||
                  (st = drv_event_create(d, &e0, &diag)) || (st = drv_event_create(d, &e1, &diag))) {
                if (e0) drv_event_destroy(d, e0);
                return;
              }
              for (int i = 0; i < 2 && st == SIMTVP_OK; i++)
                if ((st = drv_event_record(d, e0, nullptr, &diag)) ||
                    (st = drv_memcpy(d, nullptr, drv_device_ptr(dst), drv_device_ptr(src), mib << i, &diag)) ||
                    (st = drv_event_record(d, e1, nullptr, &diag)) || (st = drv_event_sync(d, e1, &diag)) ||
                    (st = drv_event_elapsed_ns(d, e0, e1, &ns[i], &diag)))
                  break;
              drv_event_destroy(d, e0);  // (they leaked before: ASan's leak check found them)
              drv_event_destroy(d, e1);
            }),
            SIMTVP_OK);
  ASSERT_EQ(st, SIMTVP_OK) << diag.message;
  EXPECT_GE(ns[0], 100u + 8192u);
  EXPECT_GE(ns[1], 100u + 16384u);
  EXPECT_NEAR(static_cast<double>(ns[1] - ns[0]), 8192.0, 40.0);
}

TEST_F(SimtvpHost, DevicePrintfReachesStdout) {
  open({"-simt_model", "func"});
  std::string ptx = kernel_ptx("printf.ptx");
  simtvp_status st = SIMTVP_OK;
  testing::internal::CaptureStdout();
  ASSERT_EQ(host_call(host, [&] {
              int base = 1234;
              double scale = 0.125;
              if ((st = test_support::load_and_launch(d, ptx, "printf.ptx", "_Z13device_printfid", 1, 2,
                                                      {&base, &scale}, &diag)))
                return;
              st = drv_sync(d, &diag);
            }),
            SIMTVP_OK);
  std::string out = testing::internal::GetCapturedStdout();
  ASSERT_EQ(st, SIMTVP_OK) << diag.message;
  // The format of tests/kernels/printf.cu for thread 1 of block 0.
  EXPECT_NE(out.find("b0 t1:  1233|7   |10599979286528|0xbef0|b|odd|0.125|1.25e+02|1.5\n"), std::string::npos) << out;
  EXPECT_NE(out.find("b0 t0:  1234|0   |"), std::string::npos) << out;
}

const char kFaultPtx[] = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry bad(.param .u64 p)
{
  .reg .b64 %rd<2>;
  .reg .b32 %r<2>;
  mov.u64 %rd1, 16;
  mov.u32 %r1, 7;
  st.global.u32 [%rd1], %r1;
  ret;
}
)";

TEST_F(SimtvpHost, KernelFaultIsAnErrorNamingTheAddress) {
  open({"-simt_model", "func"});
  simtvp_status st = SIMTVP_OK;
  ASSERT_EQ(host_call(host, [&] {
              uint64_t p = 0;
              if ((st = test_support::load_and_launch(d, kFaultPtx, "fault.ptx", "bad", 1, 32, {&p}, &diag))) return;
              st = drv_sync(d, &diag);
            }),
            SIMTVP_OK);
  EXPECT_EQ(st, SIMTVP_ERR_FAULT);
  EXPECT_TRUE(diag.where & SIMTVP_WHERE_ADDRESS);
  EXPECT_EQ(diag.address, 16u);
  EXPECT_NE(std::string(diag.message).find("0x10"), std::string::npos) << diag.message;
  // The SIMT side's full report names the kernel and the thread too.
  simtvp_diag fault;
  ASSERT_TRUE(simtvp_host_last_fault(host, &fault));
  EXPECT_EQ(fault.status, SIMTVP_ERR_FAULT);
  EXPECT_NE(std::string(fault.message).find("bad"), std::string::npos) << fault.message;
}

TEST_F(SimtvpHost, BarrierDeadlockComesBackAsAStatus) {
  open({"-simt_model", "func"});
  simtvp_status st = SIMTVP_OK;
  ASSERT_EQ(host_call(host, [&] {
              if ((st = test_support::load_and_launch(d, kBarrierDeadlockPtx, "stuck.ptx", "stuck", 1, 64, {}, &diag)))
                return;
              st = drv_sync(d, &diag);
            }),
            SIMTVP_OK);
  EXPECT_NE(st, SIMTVP_OK);
  simtvp_diag fault;
  ASSERT_TRUE(simtvp_host_last_fault(host, &fault));
  EXPECT_EQ(fault.status, SIMTVP_ERR_DEADLOCK) << fault.message;
  EXPECT_NE(std::string(fault.message).find("barrier"), std::string::npos) << fault.message;
  // The platform stays usable: the next call works.
  EXPECT_EQ(host_call(host, [&] { drv_clear_error(d); }), SIMTVP_OK);
}

TEST_F(SimtvpHost, UnknownOptionInStrictModeNamesTheOptionAndFileLine) {
  std::string file = scratch_dir() + "/strict.config";
  std::ofstream(file) << "-gpgpu_n_clusters 4\n# a comment\n-no_such_option 3\n";
  simtvp_host_options o{};
  o.config_path = file.c_str();
  o.strict = true;
  o.quiet = true;
  EXPECT_EQ(simtvp_host_open(&o, &diag), nullptr);
  EXPECT_EQ(diag.status, SIMTVP_ERR_CONFIG) << diag.message;
  EXPECT_STREQ(diag.option, "-no_such_option");
  EXPECT_EQ(diag.line, 3u);
  EXPECT_NE(std::string(diag.message).find("strict.config:3"), std::string::npos) << diag.message;
  EXPECT_EQ(simtvp_host_check_options(&o, &diag), SIMTVP_ERR_CONFIG);
}

TEST_F(SimtvpHost, MalformedValueNamesTheOptionAndFileLine) {
  std::string file = scratch_dir() + "/bad.config";
  std::ofstream(file) << "-gpgpu_n_clusters 4\n-gpgpu_n_mem two\n";
  simtvp_host_options o{};
  o.config_path = file.c_str();
  o.quiet = true;
  EXPECT_EQ(simtvp_host_open(&o, &diag), nullptr);
  EXPECT_NE(diag.status, SIMTVP_OK);
  EXPECT_STREQ(diag.option, "-gpgpu_n_mem");
  EXPECT_EQ(diag.line, 2u);
  EXPECT_NE(std::string(diag.message).find("bad.config:2"), std::string::npos) << diag.message;
}

TEST_F(SimtvpHost, NegativeHostLatencyIsAConfigurationErrorWithItsPlace) {
  std::string file = scratch_dir() + "/host.config";
  std::ofstream(file) << "-gpgpu_n_clusters 4\n-host_mmio_read_latency_ns -5\n";
  simtvp_host_options o{};
  o.config_path = file.c_str();
  EXPECT_EQ(simtvp_host_open(&o, &diag), nullptr);
  EXPECT_EQ(diag.status, SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(diag.option, "-host_mmio_read_latency_ns");
  EXPECT_EQ(diag.line, 2u);
  EXPECT_NE(std::string(diag.message).find("host.config:2"), std::string::npos) << diag.message;
}

TEST_F(SimtvpHost, ZeroDeviceMemoryIsAConfigurationErrorWithItsPlace) {
  std::string file = scratch_dir() + "/mem.config";
  std::ofstream(file) << "-device_memory_mb 0\n";
  simtvp_host_options o{};
  o.config_path = file.c_str();
  EXPECT_EQ(simtvp_host_open(&o, &diag), nullptr);
  EXPECT_EQ(diag.status, SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(diag.option, "-device_memory_mb");
  EXPECT_EQ(diag.line, 1u);
  EXPECT_NE(std::string(diag.message).find("mem.config:1"), std::string::npos) << diag.message;
}

TEST_F(SimtvpHost, MissingConfigurationFileIsAnIoError) {
  simtvp_host_options o{};
  o.config_path = "/nonexistent/simtvp.config";
  EXPECT_EQ(simtvp_host_open(&o, &diag), nullptr);
  EXPECT_EQ(diag.status, SIMTVP_ERR_IO);
  EXPECT_NE(std::string(diag.message).find("/nonexistent/simtvp.config"), std::string::npos);
}

TEST_F(SimtvpHost, ConfigurationErrorLeavesTheProcessFreeToOpenAgain) {
  simtvp_host_options bad{};
  bad.config_path = "/nonexistent/simtvp.config";
  EXPECT_EQ(simtvp_host_open(&bad, &diag), nullptr);
  open({"-simt_model", "func"});
  EXPECT_EQ(drv_props(d)->sm_count, 8u);
}

TEST_F(SimtvpHost, SecondOpenIsAStateError) {
  open({"-simt_model", "func"});
  simtvp_diag second;
  EXPECT_EQ(simtvp_host_open(nullptr, &second), nullptr);
  EXPECT_EQ(second.status, SIMTVP_ERR_STATE);
  // Acquire shares the open platform instead.
  simtvp_host *shared = simtvp_host_acquire(nullptr, &second);
  EXPECT_EQ(shared, host);
  EXPECT_EQ(simtvp_host_get(), host);
  drv *again = nullptr;
  EXPECT_EQ(simtvp_host_driver(shared, &again, &second), SIMTVP_OK);
  EXPECT_EQ(again, d);
  simtvp_host_release(shared);  // the fixture's reference stays
  EXPECT_EQ(simtvp_host_get(), host);
}

TEST_F(SimtvpHost, OpenAfterCloseIsAStateError) {
  open({"-simt_model", "func"});
  simtvp_host_close(host);
  host = nullptr;
  EXPECT_EQ(simtvp_host_open(nullptr, &diag), nullptr);
  EXPECT_EQ(diag.status, SIMTVP_ERR_STATE);
}

TEST_F(SimtvpHost, WaitForInterruptOnAnIdleGpuReportsThatNoneCanCome) {
  open({"-simt_model", "func"});
  const drv_bus *bus = simtvp_host_bus(host);
  bool got = true;
  uint64_t t0 = simtvp_host_time_ps(host);
  ASSERT_EQ(host_call(host, [&] { got = bus->wait_for_interrupt(bus->ctx); }), SIMTVP_OK);
  EXPECT_FALSE(got);
  EXPECT_EQ(simtvp_host_time_ps(host), t0);  // returned at once
}

TEST_F(SimtvpHost, NestedCallRunsOnTheStubThreadAtOnce) {
  open({"-simt_model", "func", "-host_api_overhead_ns", "100"});
  int depth = 0;
  uint64_t t0 = simtvp_host_time_ps(host);
  ASSERT_EQ(host_call(host, [&] {
              depth = 1;
              EXPECT_EQ(host_call(host, [&] { depth = 2; }), SIMTVP_OK);
            }),
            SIMTVP_OK);
  EXPECT_EQ(depth, 2);
  EXPECT_EQ(simtvp_host_time_ps(host) - t0, 100000u);  // one API call's overhead, not two
}

TEST_F(SimtvpHost, StatisticsJsonAndConfigurationGoToTheOutputDirectory) {
  std::string out = scratch_dir() + "/out";
  open({"-simt_model", "func"}, nullptr, out.c_str());
  std::string ptx = kernel_ptx("vector_add.ptx");
  simtvp_status st = SIMTVP_OK;
  ASSERT_EQ(host_call(host, [&] {
              uint64_t buf;
              int n = 256;
              if ((st = drv_mem_alloc(d, 1024, &buf, &diag)) ||
                  (st = test_support::load_and_launch(d, ptx, "vector_add.ptx", "_Z10vector_addPKfS0_Pfi", 1, 256,
                                                      {&buf, &buf, &buf, &n}, &diag)))
                return;
              st = drv_sync(d, &diag);
            }),
            SIMTVP_OK);
  ASSERT_EQ(st, SIMTVP_OK) << diag.message;
  simtvp_host_close(host);
  host = nullptr;
  std::string json = read_file(out + "/stats.json");
  EXPECT_NE(json.find("\"format\": \"simtvp-stats\""), std::string::npos) << json.substr(0, 200);
  EXPECT_NE(json.find("_Z10vector_addPKfS0_Pfi"), std::string::npos);
  EXPECT_NE(json.find("\"gpu_sim_insn\""), std::string::npos);
  std::string dump = read_file(out + "/simtvp.config");
  EXPECT_NE(dump.find("-gpgpu_n_clusters"), std::string::npos);
}

TEST_F(SimtvpHost, KernelStatisticsAndRunSummaryGoToStderrUnlessQuiet) {
  open({"-simt_model", "func"}, nullptr, nullptr, false);
  simtvp_status st = SIMTVP_OK;
  testing::internal::CaptureStderr();
  ASSERT_EQ(host_call(host, [&] { st = test_support::run_vector_add(d, 1024, &diag); }), SIMTVP_OK);
  simtvp_host_close(host);
  host = nullptr;
  std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(st, SIMTVP_OK) << diag.message;
  // The default text: a short block per kernel and a table at the end (SIMTVP_STATS=full gives
  // GPGPU-Sim's name = value lines instead; tests/report).
  EXPECT_NE(err.find("simtvp: kernel 1: vector_add(float const*, float const*, float*, int)\n"), std::string::npos)
      << err;
  EXPECT_NE(err.find("functional (no timing): "), std::string::npos) << err;
  EXPECT_NE(err.find("simtvp: 1 kernel\n"), std::string::npos) << err;
  EXPECT_NE(err.find("simtvp: run summary: 1 kernel, "), std::string::npos) << err;
}

// -stats_series_period_ns samples the counters while the GPU works: a copy engine busy for
// 100 + 1 MiB / 128 = 8292 ns (1 GHz, see EventsMeasureGpuTimeOfCopies) with a 1000 ns period
// gives at least 8 samples.
TEST_F(SimtvpHost, TimeSeriesSamplesWhileTheGpuWorks) {
  open({"-simt_model", "func", "-gpgpu_clock_domains", "1000:1000:1000:1000", "-stats_series_period_ns", "1000",
        "-stats_series_prefixes", "ce.,cp."});
  simtvp_status st = SIMTVP_OK;
  ASSERT_EQ(host_call(host, [&] {
              uint64_t a, b;
              if ((st = drv_mem_alloc(d, 1 << 20, &a, &diag)) || (st = drv_mem_alloc(d, 1 << 20, &b, &diag)) ||
                  (st = drv_memcpy(d, nullptr, drv_device_ptr(a), drv_device_ptr(b), 1 << 20, &diag)))
                return;
              st = drv_sync(d, &diag);
            }),
            SIMTVP_OK);
  ASSERT_EQ(st, SIMTVP_OK) << diag.message;
  uint32_t samples = stats_sample_count(simtvp_host_stats(host));
  EXPECT_GE(samples, 8u);
  // Nothing is sampled while the GPU is idle: a long idle stretch adds no samples.
  const drv_bus *bus = simtvp_host_bus(host);
  ASSERT_EQ(host_call(host, [&] {
              for (int i = 0; i < 100; i++) (void)bus->mmio_read32(bus->ctx, 0x000);
            }),
            SIMTVP_OK);
  EXPECT_EQ(stats_sample_count(simtvp_host_stats(host)), samples);
}

TEST_F(SimtvpHost, BusUsedOutsideACallIsRefusedNotACrash) {
  open({"-simt_model", "func"});
  const drv_bus *bus = simtvp_host_bus(host);
  testing::internal::CaptureStderr();
  EXPECT_EQ(bus->mmio_read32(bus->ctx, 0x000), 0xFFFFFFFFu);
  EXPECT_FALSE(bus->wait_for_interrupt(bus->ctx));
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("outside simtvp_host_call"), std::string::npos) << err;
}

TEST_F(SimtvpHost, CallsFromAnotherThreadAreServedInTurn) {
  open({"-simt_model", "func", "-host_api_overhead_ns", "10"});
  const drv_bus *bus = simtvp_host_bus(host);
  uint32_t ids[2] = {0, 0};
  std::thread other([&] { host_call(host, [&] { ids[1] = bus->mmio_read32(bus->ctx, 0x000); }); });
  host_call(host, [&] { ids[0] = bus->mmio_read32(bus->ctx, 0x000); });
  other.join();
  EXPECT_EQ(ids[0], 0x53565047u);
  EXPECT_EQ(ids[1], 0x53565047u);
}

// Pinned memory: the host writes system memory through its own view, the GPU copies it by DMA.
TEST_F(SimtvpHost, HostViewOfSystemMemoryIsWhatTheGpuReadsByDma) {
  open({"-simt_model", "func"});
  const drv_bus *bus = simtvp_host_bus(host);
  uint64_t pinned = 0, dev = 0;
  simtvp_status st = SIMTVP_OK;
  ASSERT_EQ(host_call(host, [&] {
              if (!bus->sysmem_alloc(bus->ctx, 4096, 4096, &pinned)) st = SIMTVP_ERR_NOMEM;
            }),
            SIMTVP_OK);
  ASSERT_EQ(st, SIMTVP_OK);
  auto *p = static_cast<uint32_t *>(simtvp_host_sysmem_ptr(host, pinned, 4096));
  ASSERT_NE(p, nullptr);
  for (uint32_t i = 0; i < 1024; i++) p[i] = i * 3;
  std::vector<uint32_t> back(1024);
  ASSERT_EQ(host_call(host, [&] {
              if ((st = drv_mem_alloc(d, 4096, &dev, &diag)) ||
                  (st = drv_memcpy(d, nullptr, drv_device_ptr(dev), drv_system_ptr(pinned), 4096, &diag)) ||
                  (st = drv_memcpy(d, nullptr, drv_host_ptr(back.data()), drv_device_ptr(dev), 4096, &diag)))
                return;
              st = drv_sync(d, &diag);
            }),
            SIMTVP_OK);
  ASSERT_EQ(st, SIMTVP_OK) << diag.message;
  for (uint32_t i = 0; i < 1024; i++) ASSERT_EQ(back[i], i * 3);
  EXPECT_EQ(simtvp_host_sysmem_ptr(host, 0x1000, 16), nullptr);  // not system memory
}

// A kernel that waits for the host: one thread stores 1 to *flag (it runs), then spins on a
// volatile load of *flag until the host stores 2.
const char kWaitFlagPtx[] = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry wait_flag(.param .u64 flag)
{
  .reg .pred %p1;
  .reg .b32 %r<3>;
  .reg .b64 %rd1;
  ld.param.u64 %rd1, [flag];
  mov.u32 %r2, 1;
  st.volatile.global.u32 [%rd1], %r2;
LOOP:
  ld.volatile.global.u32 %r1, [%rd1];
  setp.ne.u32 %p1, %r1, 2;
  @%p1 bra LOOP;
  ret;
}
)";

// The program's own load and store of a watched page while a kernel runs are trapped, each runs
// the simulation for the host's access of its line (docs/system-modes.md §2.4): a host that
// waits with plain loads lets the kernel start, and the kernel sees the host's store and ends.
// Hand computation: a trapped access is not an API call (no
// -host_api_overhead_ns, 50 ns here) and costs one host cycle per 16 bytes of its 64-byte line:
// 4 × 0.5 ns (2000 MHz) = 2 ns; discrete system memory adds no time of its own.
TEST_F(SimtvpHost, ProgramsOwnAccessToAWatchedPageWhileAKernelRunsIsTrappedAndTimed) {
  open({"-simt_model", "func", "-host_api_overhead_ns", "50"});
  const drv_bus *bus = simtvp_host_bus(host);
  uint64_t pinned = 0;
  simtvp_status st = SIMTVP_OK;
  ASSERT_EQ(host_call(host, [&] {
              if (!bus->sysmem_alloc(bus->ctx, 4096, 4096, &pinned)) st = SIMTVP_ERR_NOMEM;
            }),
            SIMTVP_OK);
  ASSERT_EQ(st, SIMTVP_OK);
  auto *flag = static_cast<volatile uint32_t *>(simtvp_host_sysmem_ptr(host, pinned, 4096));
  ASSERT_NE(flag, nullptr);
  *flag = 0;
  uint64_t va = reinterpret_cast<uintptr_t>(flag);  // unified addressing: the GPU uses the host's address
  ASSERT_TRUE(simtvp_host_watch(host, const_cast<uint32_t *>(flag), 4096, pinned));
  ASSERT_EQ(host_call(host, [&] {
              if ((st = drv_sysmem_map(d, va, pinned, 4096, &diag))) return;
              st = test_support::load_and_launch(d, kWaitFlagPtx, "wait.ptx", "wait_flag", 1, 1, {&va}, &diag);
            }),
            SIMTVP_OK);
  ASSERT_EQ(st, SIMTVP_OK) << diag.message;
  // The host waits with plain loads only, each trapped: the GPU runs on by 2 ns per load until the
  // kernel has started and stored 1.
  uint64_t t0 = simtvp_host_time_ps(host);
  uint64_t loads = 1;
  while (*flag != 1 && loads < 10000000) loads++;
  ASSERT_EQ(*flag, 1u);
  loads++;  // the load of the ASSERT
  uint64_t t1 = simtvp_host_time_ps(host);
  EXPECT_EQ(t1 - t0, 2000u * loads);
  *flag = 2;  // a trapped store: the kernel, in its steps of -func_step_insns, sees it and ends
  EXPECT_EQ(simtvp_host_time_ps(host) - t1, 2000u);
  ASSERT_EQ(host_call(host, [&] { st = drv_sync(d, &diag); }), SIMTVP_OK);
  ASSERT_EQ(st, SIMTVP_OK) << diag.message;
  *flag = 3;  // the GPU is idle: untimed, not trapped
  stats *s = simtvp_host_stats(host);
  const uint64_t *reads = stats_counter_find(s, "host.trapped_reads");
  const uint64_t *writes = stats_counter_find(s, "host.trapped_writes");
  const uint64_t *yields = stats_counter_find(s, "func.step_yields");
  ASSERT_NE(reads, nullptr);
  ASSERT_NE(writes, nullptr);
  ASSERT_NE(yields, nullptr);
  EXPECT_EQ(*reads, loads);
  EXPECT_EQ(*writes, 1u);
  EXPECT_GT(*yields, 0u);  // the kernel waited in steps
  simtvp_host_unwatch(host, const_cast<uint32_t *>(flag), 4096);
}

// -host_trap_shared 0: nothing is watched (the program's accesses run natively, untimed); bad
// arguments are refused, not a crash.
TEST_F(SimtvpHost, WatchIsRefusedWhenTrappingIsOffOrTheRangeIsEmpty) {
  open({"-simt_model", "func", "-host_trap_shared", "0"});
  static uint32_t word;
  EXPECT_FALSE(simtvp_host_watch(host, &word, sizeof word, 0x100000000ull));
  EXPECT_FALSE(simtvp_host_watch(nullptr, &word, sizeof word, 0x100000000ull));
  EXPECT_FALSE(simtvp_host_watch(host, &word, 0, 0x100000000ull));
  simtvp_host_unwatch(host, &word, sizeof word);  // nothing watched: nothing happens
  simtvp_host_unwatch(nullptr, &word, sizeof word);
}

// ---- the one SIGSEGV owner (simtvp_host_fault_add; docs/system-modes.md §2.4) ---------------------

#if defined(__x86_64__) && defined(__linux__)
int g_program_faults = 0;    // the program's own handler ran
int g_registered_faults = 0; // the registered page's handler ran
bool g_registered_write = false;

void *page_of(void *a) { return reinterpret_cast<void *>(reinterpret_cast<uintptr_t>(a) & ~uintptr_t(4095)); }

// A program that handles faults on its own pages: opens the page, the access runs again.
void program_handler(int, siginfo_t *si, void *) {
  g_program_faults++;
  mprotect(page_of(si->si_addr), 4096, PROT_READ | PROT_WRITE);
}

// What unified memory's handler does: deals with faults on its page (ctx), passes on the rest.
bool registered_handler(void *ctx, uint64_t addr, bool write) {
  const uint64_t page = reinterpret_cast<uintptr_t>(ctx);
  if (addr < page || addr >= page + 4096) return false;
  g_registered_faults++;
  g_registered_write = write;
  mprotect(ctx, 4096, PROT_READ | PROT_WRITE);
  return true;
}

struct two_pages {
  char *ours, *theirs;
  two_pages() {
    void *p = mmap(nullptr, 2 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ours = p == MAP_FAILED ? nullptr : static_cast<char *>(p);
    theirs = ours ? ours + 4096 : nullptr;
  }
  ~two_pages() {
    if (ours) munmap(ours, 2 * 4096);
  }
};

// The program installed its own SIGSEGV handler before the platform's owner came: a fault on a
// registered page goes to that page's handler (once, with the CPU's write bit), every other fault
// to the program's handler, and a removed page's faults to the program's handler again.
TEST_F(SimtvpHost, RegisteredFaultPagesGoToTheirHandlerAndTheProgramsOwnFaultsToItsHandler) {
  struct sigaction sa {}, old {};
  sa.sa_sigaction = program_handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  ASSERT_EQ(sigaction(SIGSEGV, &sa, &old), 0);
  open({"-simt_model", "func"});
  two_pages m;
  ASSERT_NE(m.ours, nullptr);
  ASSERT_TRUE(simtvp_host_fault_add(m.ours + 100, 8, registered_handler, m.ours));  // the whole page
  volatile char *ours = m.ours, *theirs = m.theirs;
  ours[4000] = 1;  // a store on the registered page
  EXPECT_EQ(g_registered_faults, 1);
  EXPECT_TRUE(g_registered_write);
  EXPECT_EQ(g_program_faults, 0);
  EXPECT_EQ(theirs[7], 0);  // a load on the program's own page
  EXPECT_EQ(g_program_faults, 1);
  EXPECT_EQ(g_registered_faults, 1);
  mprotect(m.ours, 4096, PROT_NONE);
  EXPECT_EQ(ours[0], 0);  // a load: the handler sees a read
  EXPECT_EQ(g_registered_faults, 2);
  EXPECT_FALSE(g_registered_write);
  simtvp_host_fault_remove(m.ours, 1);
  mprotect(m.ours, 4096, PROT_NONE);
  EXPECT_EQ(ours[1], 0);
  EXPECT_EQ(g_program_faults, 2);
  EXPECT_EQ(g_registered_faults, 2);
  sigaction(SIGSEGV, &old, nullptr);
}

// Whether the watches or the fault pages came first, each fault reaches its own handler; a page
// is registered by one handler only, and bad arguments are refused.
void fault_pages_and_watches(bool watch_first, simtvp_host *host) {
  two_pages m;
  ASSERT_NE(m.ours, nullptr);
  static uint32_t word;
  if (watch_first) {
    ASSERT_TRUE(simtvp_host_watch(host, &word, sizeof word, 0x100000000ull));
  }
  ASSERT_TRUE(simtvp_host_fault_add(m.ours, 4096, registered_handler, m.ours));
  ASSERT_TRUE(simtvp_host_fault_add(m.ours, 4096, registered_handler, m.ours));  // counted
  if (!watch_first) {
    ASSERT_TRUE(simtvp_host_watch(host, &word, sizeof word, 0x100000000ull));
  }
  EXPECT_FALSE(simtvp_host_fault_add(m.ours, 4096, registered_handler, m.theirs));  // another handler
  EXPECT_FALSE(simtvp_host_fault_add(m.theirs, 0, registered_handler, m.theirs));
  EXPECT_FALSE(simtvp_host_fault_add(m.theirs, 4096, nullptr, m.theirs));
  word = 5;  // the GPU is idle: the watched page is open
  volatile char *ours = m.ours;
  ours[1] = 2;
  EXPECT_EQ(g_registered_faults, 1);
  simtvp_host_fault_remove(m.ours, 4096);  // one of two registrations: still registered
  mprotect(m.ours, 4096, PROT_NONE);
  ours[2] = 3;
  EXPECT_EQ(g_registered_faults, 2);
  simtvp_host_fault_remove(m.ours, 4096);
  simtvp_host_unwatch(host, &word, sizeof word);
  EXPECT_EQ(word, 5u);
}

TEST_F(SimtvpHost, FaultPagesAddedAfterAWatchReachTheirHandler) {
  open({"-simt_model", "func"});
  fault_pages_and_watches(true, host);
}

TEST_F(SimtvpHost, WatchesAddedAfterFaultPagesLeaveTheirHandlerInPlace) {
  open({"-simt_model", "func"});
  fault_pages_and_watches(false, host);
}
#endif

}  // namespace
