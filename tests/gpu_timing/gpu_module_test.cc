// The timing GPU inside the GPU module alone (tlm/gpu gpu_top in a plain SystemC testbench, as a
// SoC integrator uses it, no platform): its assembly (clusters, memory system, clock domains,
// local-memory regions) and a hardware reset while a memory-bound kernel runs on it.
// One simulation per process: CTest runs every case alone.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "config.h"
#include "driver.h"
#include "gpu_config.h"
#include "gpu_top.h"
#include "simt_timing.h"

int sc_main(int, char *[]) { return 0; }

namespace {

using sc_core::sc_time;
using sc_core::SC_NS;

constexpr uint64_t kMemBase = 0x80000000ull;
constexpr uint64_t kMemBytes = 64u << 20;

// MMIO initiator, DMA target with its own memory, interrupt and reset signals.
struct testbench : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<testbench> mmio{"mmio"};
  tlm_utils::simple_target_socket<testbench> dma{"dma"};
  sc_core::sc_signal<bool> irq{"irq"}, rst{"rst"};
  std::vector<uint8_t> memory = std::vector<uint8_t>(kMemBytes);
  uint64_t next_free = kMemBase;
  simtvp::gpu_top *gpu = nullptr;
  std::function<void(testbench &)> body;
  drv_bus bus{};

  SC_HAS_PROCESS(testbench);
  explicit testbench(sc_core::sc_module_name n) : sc_module(n) {
    dma.register_b_transport(this, &testbench::serve_dma);
    bus.ctx = this;
    bus.mmio_read32 = [](void *c, uint32_t off) { return static_cast<testbench *>(c)->access(true, off, 0); };
    bus.mmio_write32 = [](void *c, uint32_t off, uint32_t v) { static_cast<testbench *>(c)->access(false, off, v); };
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
    set_stack_size(16u << 20);
  }
  void run() {
    body(*this);
    sc_core::sc_stop();
  }
  uint32_t access(bool read, uint32_t off, uint32_t v) {
    tlm::tlm_generic_payload t;
    t.set_command(read ? tlm::TLM_READ_COMMAND : tlm::TLM_WRITE_COMMAND);
    t.set_address(off);
    t.set_data_ptr(reinterpret_cast<unsigned char *>(&v));
    t.set_data_length(4);
    t.set_streaming_width(4);
    t.set_byte_enable_ptr(nullptr);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time delay(100, SC_NS);
    mmio->b_transport(t, delay);
    wait(delay);
    return v;
  }
  void serve_dma(tlm::tlm_generic_payload &t, sc_time &) {
    uint64_t a = t.get_address();
    unsigned n = t.get_data_length();
    if (a < kMemBase || a - kMemBase > kMemBytes || n > kMemBytes - (a - kMemBase)) {
      t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    uint8_t *p = memory.data() + (a - kMemBase);
    if (t.is_read()) std::memcpy(t.get_data_ptr(), p, n);
    else if (t.is_write()) std::memcpy(p, t.get_data_ptr(), n);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

gpu_config g_cfg;

simtvp::gpu_top *make_gpu(std::vector<const char *> args) {
  config_registry *r = config_registry_create(nullptr);
  simtvp_diag diag;
  std::string file = std::string(SIMTVP_SOURCE_DIR) + "/configs/default.config";
  EXPECT_EQ(gpu_config_register(r, &g_cfg, &diag), SIMTVP_OK);
  EXPECT_EQ(config_registry_load_file(r, file.c_str(), &diag), SIMTVP_OK) << diag.message;
  EXPECT_EQ(config_registry_parse_args(r, static_cast<int>(args.size()), args.data(), &diag), SIMTVP_OK)
      << diag.message;
  EXPECT_EQ(gpu_config_finalize(&g_cfg, r, &diag), SIMTVP_OK) << diag.message;
  config_registry_destroy(r);
  simtvp::gpu_top_options o;
  simtvp::gpu_top *gpu = simtvp::gpu_top::create("gpu", g_cfg, o, &diag);
  EXPECT_NE(gpu, nullptr) << diag.message;
  return gpu;
}

// Local memory: one region per core, max_threads x 64 KiB, above device memory and the malloc
// heap, below the generic-address windows, none overlapping.
TEST(GpuTimingAssembly, ClustersMemorySystemAndLocalMemoryRegionsAreInPlace) {
  simtvp::gpu_top *gpu = make_gpu({"-simt_model", "ca", "-device_memory_mb", "64", "-gpgpu_heap_size_limit", "8388608"});
  ASSERT_NE(gpu, nullptr);
  EXPECT_STREQ(gpu->simt_model(), "timing");
  auto *t = dynamic_cast<simtvp::simt_timing *>(&gpu->simt_side());
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->cluster_count(), g_cfg.core.n_clusters);
  EXPECT_EQ(t->memory().channels(), g_cfg.mem.n_channels);
  EXPECT_EQ(t->local_region_bytes(), uint64_t{g_cfg.derived.max_threads_per_core} * (64u << 10));
  const gpu_params &p = gpu->params();
  uint64_t devmem_end = p.ctl.caps.devmem_base + p.ctl.caps.devmem_bytes;
  EXPECT_GE(t->local_base(0), devmem_end);
  EXPECT_GE(t->local_base(0), p.heap_base + p.heap_bytes);
  for (uint32_t sm = 1; sm < g_cfg.derived.n_cores; sm++)
    EXPECT_EQ(t->local_base(sm), t->local_base(sm - 1) + t->local_region_bytes());
  EXPECT_LE(t->local_base(g_cfg.derived.n_cores - 1) + t->local_region_bytes(), 0x00007ff000000000ull);
  // The core clock domain drives the clusters and the supervisor; the memory system its own three.
  EXPECT_EQ(t->core_driver().blocks(), g_cfg.core.n_clusters + 1u);
  EXPECT_NEAR(t->memory().dram_driver().domain().period().to_seconds(), 1.0 / (g_cfg.derived.dram_mhz * 1e6), 1e-12);
  delete gpu;
}

const char kStreamPtx[] = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry stream(.param .u64 in, .param .u64 out, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  mov.u32 %r6, %nctaid.x;
  mul.lo.s32 %r6, %r6, %r3;
  mov.f32 %f1, 0f00000000;
  mov.u32 %r7, %r5;
LOOP:
  setp.ge.u32 %p1, %r7, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd3, %r7, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.f32 %f2, [%rd4];
  add.f32 %f1, %f1, %f2;
  add.s32 %r7, %r7, %r6;
  bra LOOP;
DONE:
  mul.wide.u32 %rd5, %r5, 4;
  add.s64 %rd5, %rd2, %rd5;
  st.global.f32 [%rd5], %f1;
  ret;
}
)";

// Runs `stream` over n floats equal to 1 with grid x 128 threads; returns the per-thread sums.
std::vector<float> run_stream(drv *d, uint32_t n, uint32_t grid, bool wait, simtvp_status *st) {
  uint64_t in = 0, out = 0;
  drv_mem_alloc(d, n * 4ull, &in, nullptr);
  drv_mem_alloc(d, grid * 128 * 4ull, &out, nullptr);
  std::vector<float> ones(n, 1.0f), sums(grid * 128, -1.0f);
  drv_memcpy(d, nullptr, drv_device_ptr(in), drv_host_ptr(ones.data()), n * 4ull, nullptr);
  drv_module *mod = nullptr;
  simtvp_diag diag;
  *st = drv_module_load_ptx(d, kStreamPtx, sizeof kStreamPtx - 1, "stream.ptx", &mod, &diag);
  if (*st != SIMTVP_OK) return sums;
  drv_function *f = drv_module_function(mod, "stream");
  void *args[] = {&in, &out, &n};
  uint8_t params[64];
  uint32_t used = 0;
  drv_function_pack_params(f, args, params, sizeof params, &used, nullptr);
  uint32_t g[3] = {grid, 1, 1}, b[3] = {128, 1, 1};
  *st = drv_launch(d, nullptr, f, g, b, 0, params, used, &diag);
  if (*st != SIMTVP_OK || !wait) return sums;
  drv_memcpy(d, nullptr, drv_host_ptr(sums.data()), drv_device_ptr(out), sums.size() * 4, nullptr);
  *st = drv_sync(d, &diag);
  return sums;
}

// A reset while a memory-bound kernel has requests all over the memory system: the kernel is
// dropped, the cluster cores start over (replies to the old requests are discarded when they
// come back), and a new driver runs a kernel to the right result.
TEST(GpuTimingAssembly, ResetDuringAMemoryBoundKernelDropsItAndTheNextKernelRunsRight) {
  simtvp::gpu_top *gpu = make_gpu({"-simt_model", "ca", "-device_memory_mb", "64"});
  ASSERT_NE(gpu, nullptr);
  auto *tb = new testbench("tb");
  tb->gpu = gpu;
  bool checked = false;
  tb->body = [&](testbench &t) {
    drv *d = nullptr;
    simtvp_diag diag;
    ASSERT_EQ(drv_open(&t.bus, nullptr, &d, &diag), SIMTVP_OK) << diag.message;
    simtvp_status st;
    run_stream(d, 4u << 20, 64, false, &st);  // 16 MiB of reads: long
    ASSERT_EQ(st, SIMTVP_OK);
    sc_core::wait(60, sc_core::SC_US);
    auto *side = dynamic_cast<simtvp::simt_timing *>(&t.gpu->simt_side());
    ASSERT_NE(side, nullptr);
    EXPECT_FALSE(side->idle()) << "the kernel still runs";
    EXPECT_FALSE(side->memory().idle()) << "requests are in the memory system";
    t.rst.write(true);
    sc_core::wait(10, SC_NS);
    t.rst.write(false);
    sc_core::wait(10, SC_NS);
    EXPECT_TRUE(side->idle());
    drv *d2 = nullptr;  // the GPU forgot the old driver's rings: start over (the old one is abandoned)
    t.next_free = (t.next_free + (1u << 20)) & ~uint64_t{0xFFFFF};
    ASSERT_EQ(drv_open(&t.bus, nullptr, &d2, &diag), SIMTVP_OK) << diag.message;
    std::vector<float> sums = run_stream(d2, 100000, 8, true, &st);
    ASSERT_EQ(st, SIMTVP_OK);
    double total = 0;
    for (float v : sums) total += v;
    EXPECT_EQ(total, 100000.0);
    checked = true;
  };
  tb->mmio.bind(gpu->bar0);
  gpu->dma.bind(tb->dma);
  gpu->irq.bind(tb->irq);
  gpu->rst.bind(tb->rst);
  sc_core::sc_start();
  EXPECT_TRUE(checked);
}

}  // namespace
