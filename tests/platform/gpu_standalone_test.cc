// The GPU module (tlm/gpu gpu_top) alone in a plain SystemC testbench, as a SoC integrator uses
// it: a tiny TLM initiator writes its registers, the testbench serves the GPU's DMA from its own
// memory and watches the interrupt line; sw/driver runs on a drv_bus made of those sockets.
// No simtvp platform, no libsimtvp.so. One simulation per process (CTest runs each case alone).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "config.h"
#include "driver.h"
#include "gpu_abi.h"
#include "gpu_config.h"
#include "gpu_top.h"

int sc_main(int, char *[]) { return 0; }  // libsystemc refers to it; gtest's main runs the tests

namespace {

using sc_core::sc_time;
using sc_core::SC_NS;
using sc_core::SC_ZERO_TIME;

constexpr uint64_t kMemBase = 0x80000000ull;  // the testbench's memory, as the GPU's DMA sees it
constexpr uint64_t kMemBytes = 16u << 20;

// What the integrator writes: an initiator for MMIO, a target for DMA, an interrupt signal.
struct testbench : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<testbench> mmio{"mmio"};
  tlm_utils::simple_target_socket<testbench> dma{"dma"};
  sc_core::sc_signal<bool> irq{"irq"}, rst{"rst"};
  sc_core::sc_signal<uint64_t> clk{"clk"};
  std::vector<uint8_t> memory = std::vector<uint8_t>(kMemBytes);
  uint64_t next_free = kMemBase;
  simtvp::gpu_top *gpu = nullptr;
  std::function<void(testbench &)> body;
  drv_bus bus{};
  uint64_t dma_accesses = 0;

  SC_HAS_PROCESS(testbench);
  explicit testbench(sc_core::sc_module_name n) : sc_module(n) {
    dma.register_b_transport(this, &testbench::serve_dma);
    bus.ctx = this;
    bus.mmio_read32 = [](void *c, uint32_t off) { return static_cast<testbench *>(c)->read(off); };
    bus.mmio_write32 = [](void *c, uint32_t off, uint32_t v) { static_cast<testbench *>(c)->write(off, v); };
    bus.sysmem_alloc = [](void *c, uint64_t size, uint64_t align, uint64_t *addr) {
      auto *tb = static_cast<testbench *>(c);
      uint64_t a = (tb->next_free + align - 1) & ~(align - 1);
      if (a + size > kMemBase + kMemBytes) return false;
      tb->next_free = a + size;
      *addr = a;
      return true;
    };
    bus.sysmem_free = [](void *, uint64_t) {};
    bus.sysmem_read = [](void *c, uint64_t a, void *dst, uint64_t n) {
      std::memcpy(dst, static_cast<testbench *>(c)->memory.data() + (a - kMemBase), n);
    };
    bus.sysmem_write = [](void *c, uint64_t a, const void *src, uint64_t n) {
      std::memcpy(static_cast<testbench *>(c)->memory.data() + (a - kMemBase), src, n);
    };
    bus.wait_for_interrupt = [](void *c) {
      auto *tb = static_cast<testbench *>(c);
      while (!tb->irq.read()) {
        if (tb->gpu->quiescent()) return false;
        sc_core::wait(tb->irq.value_changed_event() | tb->gpu->quiescent_event());
      }
      return true;
    };
    SC_THREAD(run);
  }

  void run() {
    body(*this);
    sc_core::sc_stop();
  }

  // One 32-bit MMIO access with a 100 ns annotation; returns the response status.
  tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, void *data, unsigned len,
                                  unsigned char *byte_enable = nullptr) {
    tlm::tlm_generic_payload t;
    t.set_command(cmd);
    t.set_address(addr);
    t.set_data_ptr(static_cast<unsigned char *>(data));
    t.set_data_length(len);
    t.set_streaming_width(len);
    t.set_byte_enable_ptr(byte_enable);
    t.set_byte_enable_length(byte_enable ? len : 0);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time delay(100, SC_NS);
    mmio->b_transport(t, delay);
    wait(delay);
    return t.get_response_status();
  }
  uint32_t read(uint32_t off) {
    uint32_t v = 0;
    EXPECT_EQ(access(tlm::TLM_READ_COMMAND, off, &v, 4), tlm::TLM_OK_RESPONSE) << "read " << off;
    return v;
  }
  void write(uint32_t off, uint32_t v) {
    EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, off, &v, 4), tlm::TLM_OK_RESPONSE) << "write " << off;
  }

  void serve_dma(tlm::tlm_generic_payload &t, sc_time &delay) {
    dma_accesses++;
    uint64_t a = t.get_address();
    unsigned n = t.get_data_length();
    if (a < kMemBase || a - kMemBase > kMemBytes || n > kMemBytes - (a - kMemBase)) {
      t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    uint8_t *p = memory.data() + (a - kMemBase);
    if (t.is_read())
      std::memcpy(t.get_data_ptr(), p, n);
    else if (t.is_write())
      std::memcpy(p, t.get_data_ptr(), n);
    delay += sc_time(50, SC_NS);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

class GpuTop : public ::testing::Test {
 protected:
  // Builds the GPU from the default configuration (functional SIMT side, 64 MiB of device memory)
  // and the testbench, binds them, runs body on the testbench's thread.
  void run(std::function<void(testbench &)> body, bool bind_reset = false, bool bind_clock = false) {
    config_registry *r = config_registry_create(nullptr);
    simtvp_diag diag;
    std::string file = std::string(SIMTVP_SOURCE_DIR) + "/configs/default.config";
    const char *files[] = {file.c_str()};
    ASSERT_EQ(gpu_config_register(r, &cfg, &diag), SIMTVP_OK);
    ASSERT_EQ(config_registry_load_file(r, files[0], &diag), SIMTVP_OK) << diag.message;
    std::vector<const char *> args = {"-simt_model", "func", "-device_memory_mb", "64"};
    args.insert(args.end(), more_args.begin(), more_args.end());
    ASSERT_EQ(config_registry_parse_args(r, static_cast<int>(args.size()), args.data(), &diag), SIMTVP_OK)
        << diag.message;
    ASSERT_EQ(gpu_config_finalize(&cfg, r, &diag), SIMTVP_OK) << diag.message;
    config_registry_destroy(r);

    simtvp::gpu_top_options o;
    o.print = [this](const char *text, size_t len) { printed.append(text, len); };
    o.st = st;
    o.out_dir = out_dir;
    gpu = simtvp::gpu_top::create("gpu", cfg, o, &diag);
    ASSERT_NE(gpu, nullptr) << diag.message;
    tb = new testbench("tb");
    tb->gpu = gpu;
    tb->body = std::move(body);
    tb->mmio.bind(gpu->bar0);
    gpu->dma.bind(tb->dma);
    gpu->irq.bind(tb->irq);
    if (bind_reset) gpu->rst.bind(tb->rst);
    if (bind_clock) {
      gpu->clk.bind(tb->clk);
      tb->clk.write(gpu->params().core_clock_hz);
    }
    sc_core::sc_start();
  }

  gpu_config cfg;
  simtvp::gpu_top *gpu = nullptr;
  testbench *tb = nullptr;
  std::string printed;
  std::vector<const char *> more_args;  // options after the default configuration's
  stats *st = nullptr;                   // the module's statistics sink (options.st)
  std::string out_dir;                   // options.out_dir
};

TEST_F(GpuTop, RegistersAnswerOnBar0AndBadAccessesGetTlmErrors) {
  run([](testbench &tb) {
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
  run([](testbench &tb) {
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
  run([](testbench &tb) {
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
    drv_module *mod;
    ASSERT_EQ(drv_mem_alloc(d, n * 4, &da, &diag), SIMTVP_OK);
    ASSERT_EQ(drv_mem_alloc(d, n * 4, &db, &diag), SIMTVP_OK);
    ASSERT_EQ(drv_mem_alloc(d, n * 4, &dc, &diag), SIMTVP_OK);
    ASSERT_EQ(drv_memcpy(d, nullptr, drv_device_ptr(da), drv_host_ptr(a.data()), n * 4, &diag), SIMTVP_OK);
    ASSERT_EQ(drv_memcpy(d, nullptr, drv_device_ptr(db), drv_host_ptr(b.data()), n * 4, &diag), SIMTVP_OK);
    ASSERT_EQ(drv_module_load_ptx(d, kVaddPtx, sizeof kVaddPtx - 1, "vadd.ptx", &mod, &diag), SIMTVP_OK)
        << diag.message;
    drv_function *f = drv_module_function(mod, "vadd");
    uint32_t nn = n;
    void *args[] = {&da, &db, &dc, &nn};
    uint8_t params[64];
    uint32_t used = 0;
    ASSERT_EQ(drv_function_pack_params(f, args, params, sizeof params, &used, &diag), SIMTVP_OK);
    uint32_t grid[3] = {(n + 127) / 128, 1, 1}, block[3] = {128, 1, 1};
    ASSERT_EQ(drv_launch(d, nullptr, f, grid, block, 0, params, used, &diag), SIMTVP_OK) << diag.message;
    ASSERT_EQ(drv_memcpy(d, nullptr, drv_host_ptr(c.data()), drv_device_ptr(dc), n * 4, &diag), SIMTVP_OK);
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
  out_dir = std::string(SIMTVP_BINARY_DIR) + "/tests/platform/scratch-standalone-" + std::to_string(getpid()) + "/out";
  run([](testbench &tb) {
    drv *d = nullptr;
    simtvp_diag diag;
    ASSERT_EQ(drv_open(&tb.bus, nullptr, &d, &diag), SIMTVP_OK) << diag.message;
    const uint32_t n = 1000;
    uint64_t da;
    drv_module *mod;
    ASSERT_EQ(drv_mem_alloc(d, n * 4, &da, &diag), SIMTVP_OK);
    ASSERT_EQ(drv_module_load_ptx(d, kVaddPtx, sizeof kVaddPtx - 1, "vadd.ptx", &mod, &diag), SIMTVP_OK)
        << diag.message;
    drv_function *f = drv_module_function(mod, "vadd");
    uint32_t nn = n;
    void *args[] = {&da, &da, &da, &nn};
    uint8_t params[64];
    uint32_t used = 0;
    ASSERT_EQ(drv_function_pack_params(f, args, params, sizeof params, &used, &diag), SIMTVP_OK);
    uint32_t grid[3] = {8, 1, 1}, block[3] = {128, 1, 1};
    ASSERT_EQ(drv_launch(d, nullptr, f, grid, block, 0, params, used, &diag), SIMTVP_OK) << diag.message;
    ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
    drv_close(d);
  });
  EXPECT_EQ(stats_code_kernel_line_get(sink, 0, "vadd.ptx", 11, STATS_CODE_THREAD_INSN), 1024u);
  EXPECT_EQ(stats_code_kernel_line_get(sink, 0, "vadd.ptx", 28, STATS_CODE_WARP_INSN), 32u);
  EXPECT_EQ(stats_code_kernel_line_get(sink, 0, "vadd.ptx", 28, STATS_CODE_THREAD_INSN), 1000u);
  std::ifstream f(out_dir + "/lines.txt");
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_NE(text.str().find("\n# kernel vadd launch 1\n"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("\nvadd.ptx:28\t-\t32\t1000\t0\n"), std::string::npos) << text.str();
  // The sink must outlive the module, which the fixture never deletes (one simulation per process).
}

TEST_F(GpuTop, ResetInputReturnsRegistersToTheirResetValues) {
  run(
      [](testbench &tb) {
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
      [](testbench &tb) {
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
