// The GPU module (tlm/gpu gpu_top) alone in a plain SystemC testbench, as a SoC integrator uses
// it: a tiny TLM initiator writes its registers, the testbench serves the GPU's DMA from its own
// memory and watches the interrupt line; sw/driver runs on a drv_bus made of those sockets.
// No simtvp platform, no libsimtvp.so. One simulation per process (CTest runs each case alone).
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "driver.h"
#include "drv_kernel.h"
#include "gpu_abi.h"
#include "gpu_config.h"
#include "gpu_testbench.h"
#include "gpu_top.h"
#include "test_files.h"

int sc_main(int, char *[]) { return 0; }  // libsystemc refers to it; gtest's main runs the tests

namespace {

using sc_core::sc_time;
using sc_core::SC_NS;
using test_support::gpu_testbench;

constexpr uint64_t kMemBytes = 16u << 20;  // the testbench's memory

class GpuTop : public ::testing::Test {
 protected:
  // Builds the GPU from the default configuration (functional SIMT side, 64 MiB of device memory)
  // and the testbench, binds them, runs body on the testbench's thread.
  void run(std::function<void(gpu_testbench &)> body, bool bind_reset = false, bool bind_clock = false) {
    simtvp_diag diag;
    std::vector<const char *> args = {"-simt_model", "func", "-device_memory_mb", "64"};
    args.insert(args.end(), more_args.begin(), more_args.end());
    ASSERT_EQ(test_support::load_default_config(&cfg, args, &diag), SIMTVP_OK) << diag.message;

    simtvp::gpu_top_options o;
    o.print = [this](const char *text, size_t len) { printed.append(text, len); };
    o.st = st;
    o.out_dir = out_dir;
    gpu = simtvp::gpu_top::create("gpu", cfg, o, &diag);
    ASSERT_NE(gpu, nullptr) << diag.message;
    // The integrator's memory answers DMA 50 ns late.
    tb = new gpu_testbench("tb", kMemBytes, sc_time(50, SC_NS));
    tb->body = std::move(body);
    tb->attach(gpu, bind_reset, bind_clock);
    sc_core::sc_start();
  }

  gpu_config cfg;
  simtvp::gpu_top *gpu = nullptr;
  gpu_testbench *tb = nullptr;
  std::string printed;
  std::vector<const char *> more_args;  // options after the default configuration's
  stats *st = nullptr;                   // the module's statistics sink (options.st)
  std::string out_dir;                   // options.out_dir
};

TEST_F(GpuTop, RegistersAnswerOnBar0AndBadAccessesGetTlmErrors) {
  run([](gpu_testbench &tb) {
    EXPECT_EQ(tb.read(0x000), GPU_ID_VALUE);
    EXPECT_EQ(tb.read(0x02C), 8u);  // SM_COUNT of the default configuration
    uint32_t v = 0;
    uint16_t h = 0;
    unsigned char be[4] = {0xFF, 0, 0xFF, 0};
    EXPECT_EQ(tb.access(tlm::TLM_READ_COMMAND, 0x000, &h, 2), tlm::TLM_BURST_ERROR_RESPONSE);
    EXPECT_EQ(tb.access(tlm::TLM_READ_COMMAND, GPU_BAR0_BYTES, &v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(tb.access(tlm::TLM_READ_COMMAND, 0x002, &v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(tb.access(tlm::TLM_WRITE_COMMAND, 0xFF0, &v, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);  // unmapped
    EXPECT_EQ(tb.access(tlm::TLM_READ_COMMAND, 0x000, &v, 4, be), tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    // The GPU itself recorded the first bad access (REG_ACCESS_SIZE at offset 0) in ERR_STATUS.
    EXPECT_NE(tb.read(0x300), 0u);
    EXPECT_EQ(tb.read(0x308), 0u);
  });
}

TEST_F(GpuTop, MmioAccessHappensAtItsAnnotatedTime) {
  run([](gpu_testbench &tb) {
    sc_time t0 = sc_core::sc_time_stamp();
    tb.read(0x000);
    tb.write(0x10C, 5);
    EXPECT_EQ(sc_core::sc_time_stamp() - t0, sc_time(200, SC_NS));  // two accesses of 100 ns
  });
}

const char kVaddPtx[] = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry vadd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<11>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [c];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd7, %r5, 4;
  add.s64 %rd8, %rd1, %rd7;
  add.s64 %rd9, %rd2, %rd7;
  add.s64 %rd10, %rd3, %rd7;
  ld.global.f32 %f1, [%rd8];
  ld.global.f32 %f2, [%rd9];
  add.f32 %f3, %f1, %f2;
  st.global.f32 [%rd10], %f3;
DONE:
  ret;
}
)";

TEST_F(GpuTop, DriverRunsOnATestbenchThatServesDmaFromItsOwnMemory) {
  run([](gpu_testbench &tb) {
    drv *d = nullptr;
    simtvp_diag diag;
    ASSERT_EQ(drv_open(&tb.bus, nullptr, &d, &diag), SIMTVP_OK) << diag.message;
    EXPECT_EQ(drv_props(d)->sm_count, 8u);
    const uint32_t n = 1000;
    std::vector<float> a(n), b(n), c(n, 0.0f);
    for (uint32_t i = 0; i < n; i++) {
      a[i] = 1.5f * i;
      b[i] = 2.0f;
    }
    uint64_t da, db, dc;
    ASSERT_EQ(test_support::upload(d, a, &da, &diag), SIMTVP_OK) << diag.message;
    ASSERT_EQ(test_support::upload(d, b, &db, &diag), SIMTVP_OK) << diag.message;
    ASSERT_EQ(drv_mem_alloc(d, n * 4, &dc, &diag), SIMTVP_OK);
    uint32_t nn = n;
    ASSERT_EQ(test_support::load_and_launch(d, kVaddPtx, "vadd.ptx", "vadd", (n + 127) / 128, 128,
                                            {&da, &db, &dc, &nn}, &diag),
              SIMTVP_OK)
        << diag.message;
    ASSERT_EQ(test_support::download(d, dc, &c, &diag), SIMTVP_OK);
    ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
    for (uint32_t i = 0; i < n; i++) ASSERT_EQ(c[i], a[i] + b[i]) << "element " << i;
    EXPECT_GT(tb.dma_accesses, 0u);  // rings, parameters, fences and copies all came by DMA
    drv_close(d);
  });
}

// -enable_ptx_file_line_stats on the module alone: the per-line profile goes to the sink, and the
// text file to gpu_top_options::out_dir (created when missing). vadd over 1000 elements in 8 CTAs
// of 128 threads = 32 warps: every warp runs line 11 (ld.param) with 32 threads = 1024; the store
// on line 28 runs in every warp too, but the last warp has 1000 - 992 = 8 threads in bounds = 1000.
TEST_F(GpuTop, PtxLineStatisticsGoToTheSinkAndToTheOutputDirectory) {
  more_args = {"-enable_ptx_file_line_stats", "1", "-ptx_line_stats_filename", "lines.txt"};
  stats *sink = stats_create();
  st = sink;
  out_dir = test_support::scratch_dir("tests/platform", "standalone", false) + "/out";
  run([](gpu_testbench &tb) {
    drv *d = nullptr;
    simtvp_diag diag;
    ASSERT_EQ(drv_open(&tb.bus, nullptr, &d, &diag), SIMTVP_OK) << diag.message;
    const uint32_t n = 1000;
    uint64_t da;
    ASSERT_EQ(drv_mem_alloc(d, n * 4, &da, &diag), SIMTVP_OK);
    uint32_t nn = n;
    ASSERT_EQ(test_support::load_and_launch(d, kVaddPtx, "vadd.ptx", "vadd", 8, 128, {&da, &da, &da, &nn}, &diag),
              SIMTVP_OK)
        << diag.message;
    ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
    drv_close(d);
  });
  EXPECT_EQ(stats_code_kernel_line_get(sink, 0, "vadd.ptx", 11, STATS_CODE_THREAD_INSN), 1024u);
  EXPECT_EQ(stats_code_kernel_line_get(sink, 0, "vadd.ptx", 28, STATS_CODE_WARP_INSN), 32u);
  EXPECT_EQ(stats_code_kernel_line_get(sink, 0, "vadd.ptx", 28, STATS_CODE_THREAD_INSN), 1000u);
  std::string text = test_support::read_file(out_dir + "/lines.txt");
  EXPECT_NE(text.find("\n# kernel vadd launch 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nvadd.ptx:28\t-\t32\t1000\t0\n"), std::string::npos) << text;
  // The sink must outlive the module, which the fixture never deletes (one simulation per process).
}

TEST_F(GpuTop, ResetInputReturnsRegistersToTheirResetValues) {
  run(
      [](gpu_testbench &tb) {
        tb.write(0x10C, 0xABCD);  // SCRATCH
        EXPECT_EQ(tb.read(0x10C), 0xABCDu);
        tb.rst.write(true);
        sc_core::wait(10, SC_NS);
        tb.rst.write(false);
        sc_core::wait(10, SC_NS);
        EXPECT_EQ(tb.read(0x10C), 0u);
        EXPECT_EQ(tb.read(0x000), GPU_ID_VALUE);
      },
      true);
}

// The global timer counts control-clock cycles: with the clock stopped (clk = 0 Hz) it stands still.
TEST_F(GpuTop, StoppedClockFreezesTheGpu) {
  run(
      [](gpu_testbench &tb) {
        auto timer = [&tb]() { return tb.read(0x110); };  // TIMER_LO, ns
        sc_core::wait(10, sc_core::SC_US);
        uint32_t running0 = timer();
        sc_core::wait(10, sc_core::SC_US);
        uint32_t running1 = timer();
        EXPECT_GE(running1 - running0, 10000u);  // 10 us passed (plus the read's 100 ns)
        tb.clk.write(0);
        sc_core::wait(1, SC_NS);
        uint32_t stopped0 = timer();
        sc_core::wait(10, sc_core::SC_US);
        uint32_t stopped1 = timer();
        EXPECT_EQ(stopped1, stopped0);
      },
      false, true);
}

}  // namespace
