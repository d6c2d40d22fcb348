// The GPU module (tlm/gpu gpu_top) as other people's virtual platforms drive it (issue 11,
// docs/platform.md "Integrating the GPU"): loosely-timed CPUs whose MMIO carries any annotation,
// zero included, temporally decoupled under a tlm_quantumkeeper (global quantum 1 µs … 100 µs),
// through b_transport or nb_transport_fw, or from a method process; a DMA target that grants DMI
// and withdraws it; debug transport into registers and device memory; the TLM error responses
// and the GPU's own error interrupt for bad accesses; two GPUs in one simulation; the base
// protocol on every GPU-internal link of the timing GPU. Every socket at the GPU's boundary goes
// through the TLM-2.0 protocol checker (tests/support gpu_testbench), so a violation fails.
// One simulation per process (CTest runs every case alone).
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "driver.h"
#include "drv_kernel.h"
#include "gpu_abi.h"
#include "gpu_config.h"
#include "gpu_params.h"
#include "gpu_testbench.h"
#include "gpu_top.h"
#include "kernel_checks.h"
#include "link.h"
#include "stats.h"

int sc_main(int, char *[]) { return 0; }  // libsystemc refers to it; gtest's main runs the tests

namespace {

using sc_core::sc_time;
using sc_core::SC_NS;
using sc_core::SC_US;
using sc_core::SC_ZERO_TIME;
using test_support::cpu_mode;
using test_support::gpu_testbench;
using test_support::kTestbenchMemBase;

constexpr uint64_t kMemBytes = 16u << 20;

simtvp::gpu_top *make_gpu(const char *name, std::vector<const char *> args, stats *st = nullptr) {
  simtvp_diag diag;
  std::vector<const char *> all = {"-device_memory_mb", "64"};
  all.insert(all.end(), args.begin(), args.end());
  gpu_config cfg;
  EXPECT_EQ(test_support::load_default_config(&cfg, all, &diag), SIMTVP_OK) << diag.message;
  simtvp::gpu_top_options o;
  o.st = st;
  simtvp::gpu_top *g = simtvp::gpu_top::create(name, cfg, o, &diag);
  EXPECT_NE(g, nullptr) << diag.message;
  return g;
}

// A functional GPU and a testbench whose CPU is in `mode`; body runs on the CPU's thread.
void run_on_testbench(cpu_mode mode, std::function<void(gpu_testbench &)> body,
                      std::function<void(gpu_testbench &)> setup = nullptr) {
  simtvp::gpu_top *gpu = make_gpu("gpu", {"-simt_model", "func"});
  ASSERT_NE(gpu, nullptr);
  auto *tb = new gpu_testbench("tb", kMemBytes, sc_time(50, SC_NS));
  tb->mode = mode;
  tb->body = std::move(body);
  if (setup) setup(*tb);
  tb->attach(gpu);
  sc_core::sc_start();
  EXPECT_TRUE(tb->bar0_check.monitor().violations().empty());
  EXPECT_TRUE(tb->dma_check.monitor().violations().empty());
}

// Opens the driver, runs tests/kernels' vector add over n elements, checks it.
void vector_add_on(gpu_testbench &tb, uint32_t n = 5000) {
  drv *d = nullptr;
  simtvp_diag diag;
  ASSERT_EQ(drv_open(&tb.bus, nullptr, &d, &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(test_support::run_vector_add(d, n, &diag), SIMTVP_OK) << diag.message;
  drv_close(d);
}

// ---- loosely-timed CPUs ------------------------------------------------------------------------

// The report: with zero-delay BAR0 accesses the GPU never fetched its command ring (the
// command processor enabled the channel at the PUT the host had written since, GET == PUT).
TEST(GpuTopLt, ZeroDelayMmioFetchesTheCommandRing) {
  cpu_mode m;
  m.mmio_delay = SC_ZERO_TIME;
  uint64_t dma_before_launch = 0;
  run_on_testbench(m, [&](gpu_testbench &tb) {
    sc_time t0 = sc_core::sc_time_stamp();
    drv *d = nullptr;
    simtvp_diag diag;
    ASSERT_EQ(drv_open(&tb.bus, nullptr, &d, &diag), SIMTVP_OK) << diag.message;
    EXPECT_EQ(sc_core::sc_time_stamp(), t0) << "opening the driver takes no simulated time";
    dma_before_launch = tb.dma_accesses;
    ASSERT_EQ(test_support::run_vector_add(d, 4096, &diag), SIMTVP_OK) << diag.message;
    EXPECT_GT(tb.dma_accesses, dma_before_launch) << "the GPU fetched its ring";
    EXPECT_EQ(tb.read(GPU_REG_ERR_STATUS), 0u);
    drv_close(d);
  });
}

struct lt_case {
  const char *name;
  sc_time quantum, mmio_delay;
  bool nb;
};

class GpuTopLtModes : public ::testing::TestWithParam<lt_case> {};

// The driver runs vector add on every CPU flavour: zero-delay or decoupled with a global quantum
// of 1, 10 or 100 µs, b_transport or nb_transport_fw.
TEST_P(GpuTopLtModes, DriverRunsVectorAdd) {
  cpu_mode m;
  m.quantum = GetParam().quantum;
  m.mmio_delay = GetParam().mmio_delay;
  m.nb = GetParam().nb;
  run_on_testbench(m, [](gpu_testbench &tb) { vector_add_on(tb); });
}

INSTANTIATE_TEST_SUITE_P(
    Cpus, GpuTopLtModes,
    ::testing::Values(lt_case{"ZeroDelayNb", SC_ZERO_TIME, SC_ZERO_TIME, true},
                      lt_case{"Quantum1usZeroDelay", sc_time(1, SC_US), SC_ZERO_TIME, false},
                      lt_case{"Quantum10us", sc_time(10, SC_US), sc_time(20, SC_NS), false},
                      lt_case{"Quantum100us", sc_time(100, SC_US), sc_time(20, SC_NS), false},
                      lt_case{"Quantum1usNb", sc_time(1, SC_US), sc_time(20, SC_NS), true},
                      lt_case{"Quantum100usNb", sc_time(100, SC_US), SC_ZERO_TIME, true}),
    [](const ::testing::TestParamInfo<lt_case> &i) { return std::string(i.param.name); });

// A decoupled CPU computes 7 µs in local time (quantum 100 µs: no synchronisation), then reads
// TIMER_LO with a 30 ns annotation: the GPU performs the read at the CPU's time, 7.03 µs after
// the start (the timer counts control-clock cycles, shown in whole ns: within 2 ns),
// and the CPU is in step with the simulation afterwards.
TEST(GpuTopLt, DecoupledMmioHappensAtTheCpusLocalTime) {
  cpu_mode m;
  m.quantum = sc_time(100, SC_US);
  m.mmio_delay = sc_time(30, SC_NS);
  run_on_testbench(m, [](gpu_testbench &tb) {
    sc_time t0 = sc_core::sc_time_stamp();
    uint32_t timer0 = tb.read(GPU_REG_TIMER_LO);  // at t0 + 30 ns
    tb.cpu_compute(sc_time(7, SC_US));
    EXPECT_EQ(sc_core::sc_time_stamp(), t0 + sc_time(30, SC_NS)) << "the CPU ran ahead without synchronising";
    EXPECT_EQ(tb.cpu_time(), t0 + sc_time(7030, SC_NS));
    uint32_t timer1 = tb.read(GPU_REG_TIMER_LO);  // at the CPU's 7.03 µs + 30 ns
    EXPECT_NEAR(static_cast<double>(timer1 - timer0), 7030.0, 2.0);
    EXPECT_EQ(sc_core::sc_time_stamp(), t0 + sc_time(7060, SC_NS)) << "MMIO synchronised the CPU";
    EXPECT_EQ(tb.cpu_time(), sc_core::sc_time_stamp());
  });
}

// nb_transport_fw on BAR0: BEGIN_REQ with a 250 ns annotation; the register is accessed at that
// time and the response (BEGIN_RESP) comes then.
TEST(GpuTopLt, NbTransportMmioIsPerformedAtItsAnnotatedTime) {
  cpu_mode m;
  m.nb = true;
  m.mmio_delay = sc_time(250, SC_NS);
  run_on_testbench(m, [](gpu_testbench &tb) {
    sc_time t0 = sc_core::sc_time_stamp();
    tb.write(GPU_REG_SCRATCH, 0x1234);
    EXPECT_EQ(sc_core::sc_time_stamp(), t0 + sc_time(250, SC_NS));
    EXPECT_EQ(tb.read(GPU_REG_SCRATCH), 0x1234u);
    EXPECT_EQ(sc_core::sc_time_stamp(), t0 + sc_time(500, SC_NS));
    uint32_t v = 0;
    EXPECT_EQ(tb.access(tlm::TLM_WRITE_COMMAND, GPU_REG_ID, &v, 4), tlm::TLM_COMMAND_ERROR_RESPONSE);
  });
}

// A CPU model that issues its MMIO from a method process (it cannot wait): it sets up a ring and
// writes a FENCE packet with the INTR flag in one activation, and 1 µs later (the command
// processor is idle then) moves PUT and rings the doorbell, all with zero delay. The base protocol wants b_transport called from threads (IEEE 1666-2011 11.1.1.4 b:
// the protocol checker would say so on BAR0), but the GPU tolerates such a caller: it performs
// the accesses at once and fetches the ring on its own thread, so the DMA target's b_transport is
// never called from the method (the checker on the DMA path would report it), and the fence
// lands with its interrupt.
struct method_cpu : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<method_cpu> socket{"socket"};
  gpu_testbench *tb = nullptr;
  bool done = false;
  SC_HAS_PROCESS(method_cpu);
  explicit method_cpu(sc_core::sc_module_name n) : sc_module(n) {
    SC_METHOD(program);
    dont_initialize();
    sensitive << start;
  }
  sc_core::sc_event start;
  void wr(uint32_t off, uint32_t v) {
    tlm::tlm_generic_payload t;
    t.set_command(tlm::TLM_WRITE_COMMAND);
    t.set_address(off);
    t.set_data_ptr(reinterpret_cast<unsigned char *>(&v));
    t.set_data_length(4);
    t.set_streaming_width(4);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time d = SC_ZERO_TIME;
    socket->b_transport(t, d);
    EXPECT_EQ(t.get_response_status(), tlm::TLM_OK_RESPONSE) << "write " << off;
  }
  int step = 0;
  void program() {
    if (step++ == 1) {
      wr(GPU_CH_REG(0, GPU_REG_CH_PUT), 4 * GPU_PKT_FENCE_DWORDS);
      wr(GPU_REG_DOORBELL, 0);
      done = true;
      return;
    }
    const uint64_t ring = kTestbenchMemBase, sem = kTestbenchMemBase + 0x2000;
    uint32_t pkt[GPU_PKT_FENCE_DWORDS] = {
        gpu_pkt_header(GPU_OP_FENCE, GPU_PKT_FENCE_DWORDS, GPU_FENCE_F_SYSMEM | GPU_PKT_FLAG_INTR),
        static_cast<uint32_t>(sem), static_cast<uint32_t>(sem >> 32), 77, 0};
    std::memcpy(tb->memory.data(), pkt, sizeof pkt);
    wr(GPU_REG_INTR_ENABLE, 3);
    wr(GPU_REG_CTRL, 1);
    wr(GPU_CH_REG(0, GPU_REG_CH_BASE_LO), static_cast<uint32_t>(ring));
    wr(GPU_CH_REG(0, GPU_REG_CH_BASE_HI), static_cast<uint32_t>(ring >> 32));
    wr(GPU_CH_REG(0, GPU_REG_CH_SIZE), 4096);
    wr(GPU_CH_REG(0, GPU_REG_CH_PUT), 0);
    wr(GPU_CH_REG(0, GPU_REG_CH_CTRL), 1);
    next_trigger(1, SC_US);
  }
};

struct unused_target : sc_core::sc_module {
  tlm_utils::simple_target_socket<unused_target> socket{"socket"};
  explicit unused_target(sc_core::sc_module_name n) : sc_module(n) {
    socket.register_b_transport(this, &unused_target::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload &t, sc_time &) {
    ADD_FAILURE() << "called";
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
  }
};

TEST(GpuTopLt, MmioFromAMethodProcessLeavesTheDmaToTheGpusThread) {
  simtvp::gpu_top *gpu = make_gpu("gpu", {"-simt_model", "func"});
  ASSERT_NE(gpu, nullptr);
  auto *tb = new gpu_testbench("tb", kMemBytes, SC_ZERO_TIME);
  auto *cpu = new method_cpu("cpu");
  cpu->tb = tb;
  // The method CPU takes BAR0; the testbench keeps DMA and the interrupt, its own MMIO socket
  // goes (through its checker) to a target that is never called.
  auto *unused = new unused_target("unused");
  cpu->socket.bind(gpu->bar0);
  tb->mmio.bind(tb->bar0_check.target_socket);
  tb->bar0_check.initiator_socket.bind(unused->socket);
  tb->gpu = gpu;
  gpu->dma.bind(tb->dma_check.target_socket);
  tb->dma_check.initiator_socket.bind(tb->dma);
  tb->debug.bind(tb->debug_check.target_socket);
  tb->debug_check.initiator_socket.bind(gpu->devmem_dbg);
  gpu->irq.bind(tb->irq);
  uint32_t fence = 0;
  bool irq_seen = false;
  tb->body = [&](gpu_testbench &t) {
    sc_core::wait(10, SC_NS);
    cpu->start.notify(SC_ZERO_TIME);
    sc_core::wait(t.irq.posedge_event());
    irq_seen = true;
    std::memcpy(&fence, t.memory.data() + 0x2000, 4);
  };
  sc_core::sc_start(1, sc_core::SC_MS);
  EXPECT_TRUE(cpu->done);
  EXPECT_TRUE(irq_seen);
  EXPECT_EQ(fence, 77u);
  EXPECT_GT(tb->dma_accesses, 0u);
  EXPECT_TRUE(tb->dma_check.monitor().violations().empty());
  EXPECT_GT(tb->dma_check.monitor().transactions(), 0u);
}

// ---- DMA and DMI -------------------------------------------------------------------------------

// The target sets the DMI hint and grants DMI over its memory: after the first access the GPU's
// ring fetches, parameters, fences and copies go through the pointer (no more b_transport).
// When the target invalidates and stops offering DMI, the GPU goes back to b_transport; the
// results are right both ways.
TEST(GpuTopDma, UsesDmiWhereTheTargetGrantsItUntilInvalidated) {
  simtvp::gpu_top *gpu = nullptr;
  run_on_testbench(
      cpu_mode{},
      [&](gpu_testbench &tb) {
        gpu = tb.gpu;
        drv *d = nullptr;
        simtvp_diag diag;
        ASSERT_EQ(drv_open(&tb.bus, nullptr, &d, &diag), SIMTVP_OK) << diag.message;
        ASSERT_EQ(test_support::run_vector_add(d, 3000, &diag), SIMTVP_OK) << diag.message;
        const simtvp::gpu_dma_counters c1 = tb.gpu->dma_counters();
        EXPECT_EQ(tb.dma_accesses, 1u) << "only the first access went through b_transport";
        EXPECT_EQ(c1.transports, 1u);
        EXPECT_EQ(c1.dmi_grants, 1u);
        EXPECT_GT(c1.dmi_accesses, 10u);

        tb.grant_dmi = false;
        tb.invalidate_dmi();
        ASSERT_EQ(test_support::run_vector_add(d, 3000, &diag), SIMTVP_OK) << diag.message;
        const simtvp::gpu_dma_counters c2 = tb.gpu->dma_counters();
        EXPECT_EQ(c2.invalidations, 1u);
        EXPECT_EQ(c2.dmi_accesses, c1.dmi_accesses) << "no DMI after the invalidation";
        EXPECT_GT(tb.dma_accesses, 10u);
        EXPECT_EQ(c2.dmi_requests, c1.dmi_requests) << "no hint, no request";
        drv_close(d);
      },
      [](gpu_testbench &tb) { tb.grant_dmi = true; });
  ASSERT_NE(gpu, nullptr);
}

// The target sets the hint but refuses get_direct_mem_ptr (leaving the descriptor's whole range
// refused): the GPU asks once and then keeps to b_transport.
TEST(GpuTopDma, AsksOnceWhereTheTargetRefusesDmi) {
  run_on_testbench(
      cpu_mode{},
      [](gpu_testbench &tb) {
        vector_add_on(tb, 2000);
        EXPECT_EQ(tb.dmi_requests, 1u);
        EXPECT_EQ(tb.gpu->dma_counters().dmi_accesses, 0u);
        EXPECT_EQ(tb.gpu->dma_counters().transports, tb.dma_accesses);
      },
      [](gpu_testbench &tb) { tb.dmi_hint_only = true; });
}

// ---- debug transport ---------------------------------------------------------------------------

unsigned dbg(tlm_utils::simple_initiator_socket<gpu_testbench> &s, tlm::tlm_command cmd, uint64_t addr, void *data,
             unsigned len) {
  tlm::tlm_generic_payload t;
  t.set_command(cmd);
  t.set_address(addr);
  t.set_data_ptr(static_cast<unsigned char *>(data));
  t.set_data_length(len);
  t.set_streaming_width(len);
  return s->transport_dbg(t);
}

// BAR0's debug transport reads registers as they are, without side effects (reading TIMER_LO by
// debug latches nothing, reading ERR_STATUS clears nothing) and without time; debug writes
// transfer nothing.
TEST(GpuTopDebug, DebugTransportReadsRegistersWithoutSideEffects) {
  run_on_testbench(cpu_mode{}, [](gpu_testbench &tb) {
    uint32_t words[4] = {};
    EXPECT_EQ(dbg(tb.mmio, tlm::TLM_READ_COMMAND, GPU_REG_ID, words, 16), 16u);
    EXPECT_EQ(words[0], GPU_ID_VALUE);
    tb.write(GPU_REG_SCRATCH, 0xCAFE);
    uint32_t v = 0;
    EXPECT_EQ(dbg(tb.mmio, tlm::TLM_READ_COMMAND, GPU_REG_SCRATCH, &v, 4), 4u);
    EXPECT_EQ(v, 0xCAFEu);
    uint32_t bad = 0;
    tb.access(tlm::TLM_WRITE_COMMAND, GPU_REG_ID, &bad, 4);  // a bad access: ERR_STATUS.REG
    EXPECT_EQ(dbg(tb.mmio, tlm::TLM_READ_COMMAND, GPU_REG_ERR_STATUS, &v, 4), 4u);
    EXPECT_EQ(v, GPU_FIELD_MASK(GPU_ERR_STATUS_REG));
    EXPECT_EQ(tb.read(GPU_REG_ERR_STATUS), GPU_FIELD_MASK(GPU_ERR_STATUS_REG)) << "the debug read cleared nothing";
    v = 7;
    EXPECT_EQ(dbg(tb.mmio, tlm::TLM_WRITE_COMMAND, GPU_REG_SCRATCH, &v, 4), 0u);
    EXPECT_EQ(tb.read(GPU_REG_SCRATCH), 0xCAFEu);
    EXPECT_EQ(dbg(tb.mmio, tlm::TLM_READ_COMMAND, GPU_BAR0_BYTES, &v, 4), 0u) << "outside the aperture";
  });
}

// The device-memory debug socket reads what the driver copied and writes what a kernel then
// reads; a range that runs off the mapped pages transfers its mapped part only.
TEST(GpuTopDebug, DebugTransportReadsAndWritesDeviceMemory) {
  run_on_testbench(cpu_mode{}, [](gpu_testbench &tb) {
    drv *d = nullptr;
    simtvp_diag diag;
    ASSERT_EQ(drv_open(&tb.bus, nullptr, &d, &diag), SIMTVP_OK) << diag.message;
    std::vector<uint32_t> host(1024);
    for (uint32_t i = 0; i < host.size(); i++) host[i] = i * 3 + 1;
    uint64_t buf = 0;
    ASSERT_EQ(test_support::upload(d, host, &buf, &diag), SIMTVP_OK);
    ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message;
    sc_time t0 = sc_core::sc_time_stamp();
    std::vector<uint32_t> seen(1024);
    EXPECT_EQ(dbg(tb.debug, tlm::TLM_READ_COMMAND, buf, seen.data(), 4096), 4096u);
    EXPECT_EQ(seen, host);
    uint32_t patch[2] = {0xAAAA5555u, 0x12345678u};
    EXPECT_EQ(dbg(tb.debug, tlm::TLM_WRITE_COMMAND, buf + 8, patch, 8), 8u);
    EXPECT_EQ(sc_core::sc_time_stamp(), t0) << "debug transport takes no time";
    std::vector<uint32_t> back(4);
    ASSERT_EQ(test_support::download(d, buf, &back, &diag), SIMTVP_OK);
    ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK);
    EXPECT_EQ(back[2], 0xAAAA5555u);
    EXPECT_EQ(back[3], 0x12345678u);
    // The driver turns the device-memory map on at open (gpu-abi.md): only the pages of live blocks
    // are mapped, so a range that runs off the last page of the last allocation (buf) transfers
    // its mapped part only.
    const uint64_t end = (buf + 4096 + 4095) & ~4095ull;
    std::vector<uint8_t> tail(8192);
    EXPECT_EQ(dbg(tb.debug, tlm::TLM_READ_COMMAND, end - 4096, tail.data(), 8192), 4096u);
    uint32_t v = 0;
    EXPECT_EQ(dbg(tb.debug, tlm::TLM_READ_COMMAND, 0x10, &v, 4), 0u) << "not device memory";
    drv_close(d);
  });
}

// ---- errors ------------------------------------------------------------------------------------

// Every kind of bad access answers with its TLM response status, and the GPU records it in the
// error-capture registers and raises its ERROR interrupt (INTR_ENABLE.ERROR set).
TEST(GpuTopErrors, EveryBadAccessGetsItsTlmResponseAndTheGpuErrorInterrupt) {
  run_on_testbench(cpu_mode{}, [](gpu_testbench &tb) {
    struct bad {
      const char *what;
      tlm::tlm_command cmd;
      uint64_t addr;
      unsigned len;
      bool byte_enables;
      tlm::tlm_response_status status;
      gpu_err code;
    };
    const bad cases[] = {
        {"outside the aperture", tlm::TLM_READ_COMMAND, GPU_BAR0_BYTES + 0x40, 4, false,
         tlm::TLM_ADDRESS_ERROR_RESPONSE, GPU_ERR_REG_UNMAPPED},
        {"unmapped offset", tlm::TLM_WRITE_COMMAND, 0xFF0, 4, false, tlm::TLM_ADDRESS_ERROR_RESPONSE,
         GPU_ERR_REG_UNMAPPED},
        {"misaligned", tlm::TLM_READ_COMMAND, GPU_REG_SCRATCH + 2, 4, false, tlm::TLM_ADDRESS_ERROR_RESPONSE,
         GPU_ERR_REG_ACCESS_SIZE},
        {"16-bit access", tlm::TLM_READ_COMMAND, GPU_REG_SCRATCH, 2, false, tlm::TLM_BURST_ERROR_RESPONSE,
         GPU_ERR_REG_ACCESS_SIZE},
        {"byte enables", tlm::TLM_WRITE_COMMAND, GPU_REG_SCRATCH, 4, true, tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE,
         GPU_ERR_REG_ACCESS_SIZE},
        {"write to a read-only register", tlm::TLM_WRITE_COMMAND, GPU_REG_ID, 4, false,
         tlm::TLM_COMMAND_ERROR_RESPONSE, GPU_ERR_REG_RO_WRITE},
        {"read of a write-only register", tlm::TLM_READ_COMMAND, GPU_REG_DOORBELL, 4, false,
         tlm::TLM_COMMAND_ERROR_RESPONSE, GPU_ERR_REG_WO_READ},
    };
    tb.write(GPU_REG_INTR_ENABLE, GPU_FIELD_MASK(GPU_INTR_STATUS_ERROR));
    for (const bad &b : cases) {
      uint32_t data[2] = {0, 0};
      unsigned char be[4] = {0xFF, 0xFF, 0, 0};
      EXPECT_EQ(tb.access(b.cmd, b.addr, data, b.len, b.byte_enables ? be : nullptr), b.status) << b.what;
      EXPECT_EQ(GPU_FIELD_GET(GPU_ERR_CODE_CODE, tb.read(GPU_REG_ERR_CODE)), static_cast<uint32_t>(b.code)) << b.what;
      EXPECT_EQ(tb.read(GPU_REG_ERR_ADDR_LO), static_cast<uint32_t>(b.addr)) << b.what;
      sc_core::wait(SC_ZERO_TIME);  // the interrupt line follows a delta later
      EXPECT_TRUE(tb.irq.read()) << b.what;
      tb.write(GPU_REG_ERR_STATUS, tb.read(GPU_REG_ERR_STATUS));  // clear, re-arm the capture
      tb.write(GPU_REG_INTR_STATUS, GPU_FIELD_MASK(GPU_INTR_STATUS_ERROR));
      sc_core::wait(SC_ZERO_TIME);
      EXPECT_FALSE(tb.irq.read()) << b.what;
    }
    uint32_t v = 0;
    EXPECT_EQ(tb.access(tlm::TLM_IGNORE_COMMAND, GPU_REG_SCRATCH, &v, 4), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(tb.read(GPU_REG_ERR_STATUS), 0u) << "an ignore command touches nothing";
  });
}

// ---- several GPUs ------------------------------------------------------------------------------

// Two timing GPUs (CA cores, 2 clusters) with their own testbenches and statistics sinks in one
// simulation, at once: each runs its own kernels to the right results, and a GPU's statistics do
// not depend on the other's work (the first vector add of each took the same cycles: identical
// GPUs, identical work, no shared state). Every internal link of both follows the base protocol.
TEST(GpuTopInstances, TwoTimingGpusInOneSimulationRunIndependently) {
  stats *st[2] = {stats_create(), stats_create()};
  const std::vector<const char *> args = {"-simt_model", "ca", "-gpgpu_n_clusters", "2"};
  simtvp::gpu_top *gpu[2] = {make_gpu("gpu0", args, st[0]), make_gpu("gpu1", args, st[1])};
  ASSERT_NE(gpu[0], nullptr);
  ASSERT_NE(gpu[1], nullptr);
  simtvp::link_checks links[2] = {simtvp::check_links(*gpu[0]), simtvp::check_links(*gpu[1])};
  EXPECT_GT(links[0].links(), 10u);
  EXPECT_EQ(links[0].links(), links[1].links());
  gpu_testbench *tb[2];
  bool done[2] = {false, false};
  sc_core::sc_event finished;
  for (int i = 0; i < 2; i++) {
    tb[i] = new gpu_testbench(i ? "tb1" : "tb0", kMemBytes, sc_time(50, SC_NS));
    tb[i]->body = [&, i](gpu_testbench &t) {
      drv *d = nullptr;
      simtvp_diag diag;
      EXPECT_EQ(drv_open(&t.bus, nullptr, &d, &diag), SIMTVP_OK) << diag.message;
      for (int k = 0; d && k <= i; k++)  // gpu0 one vector add, gpu1 two
        EXPECT_EQ(test_support::run_vector_add(d, 2048, &diag), SIMTVP_OK) << "gpu" << i << ": " << diag.message;
      if (d) drv_close(d);
      done[i] = true;
      finished.notify(SC_ZERO_TIME);
      while (!(done[0] && done[1])) sc_core::wait(finished);  // the testbench stops the simulation when its body returns
    };
    tb[i]->attach(gpu[i]);
  }
  sc_core::sc_start();
  EXPECT_TRUE(done[0] && done[1]);
  ASSERT_EQ(stats_kernel_count(st[0]), 1u);
  ASSERT_EQ(stats_kernel_count(st[1]), 2u);
  int found = 0;
  EXPECT_EQ(stats_kernel_get(st[0], 0, "gpu_sim_cycle", &found), stats_kernel_get(st[1], 0, "gpu_sim_cycle", &found));
  EXPECT_GT(stats_kernel_get(st[0], 0, "gpu_sim_cycle", &found), 0u);
  for (int i = 0; i < 2; i++) {
    EXPECT_EQ(links[i].violations(), 0u);
    EXPECT_GT(links[i].transactions(), 100u);
    EXPECT_EQ(links[i].open_transactions(), 0u);
  }
}

// ---- the base protocol inside the timing GPU ------------------------------------------------------

class GpuTopChecks : public ::testing::TestWithParam<const char *> {};

// Every GPU-internal link (cluster ⇄ interconnect ⇄ partition ⇄ DRAM) of an all-CA or an all-AT
// GPU (AT interconnect and partitions: timed transport between them) checked by the protocol
// checker through vector add: no violation, every transaction ended.
TEST_P(GpuTopChecks, EveryInternalLinkOfTheTimingGpuFollowsTheBaseProtocol) {
  const std::string model = GetParam();
  const char *m = model.c_str();
  simtvp::gpu_top *gpu = make_gpu("gpu", {"-simt_model", m, "-dram_model", m, "-icnt_model", m, "-mempart_model", m});
  ASSERT_NE(gpu, nullptr);
  simtvp::link_checks links = simtvp::check_links(*gpu);
  auto *tb = new gpu_testbench("tb", kMemBytes, sc_time(50, SC_NS));
  tb->body = [](gpu_testbench &t) { vector_add_on(t, 20000); };
  tb->attach(gpu);
  sc_core::sc_start();
  EXPECT_GT(links.links(), 10u);
  EXPECT_GT(links.transactions(), 1000u);
  EXPECT_EQ(links.violations(), 0u);
  EXPECT_EQ(links.open_transactions(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Models, GpuTopChecks, ::testing::Values("ca", "at"));

// ---- the tests/kernels checks on loosely-timed CPUs ----------------------------------------------------

// Every whole-kernel check of tests/support/kernel_checks through sw/driver on a testbench CPU
// that annotates zero delay, and on one decoupled with a 100 µs global quantum (functional SIMT
// side: the boundary is the subject). Compute capability 9.0, so the driver launches the hopper
// check's thread block clusters.
const bool registered_zero_delay =
    (kernel_checks::register_all(
         "GpuTopZeroDelayKernels",
         [](uint32_t stack_bytes) {
           cpu_mode m;
           m.mmio_delay = SC_ZERO_TIME;
           return test_support::make_testbench_device({"-simt_model", "func", "-device_memory_mb", "256",
                                                       "-gpgpu_compute_capability_major", "9"},  // clusters
                                                      m, stack_bytes);
         },
         __FILE__, __LINE__),
     true);

const bool registered_decoupled =
    (kernel_checks::register_all(
         "GpuTopDecoupledKernels",
         [](uint32_t stack_bytes) {
           cpu_mode m;
           m.mmio_delay = sc_time(10, SC_NS);
           m.quantum = sc_time(100, SC_US);
           return test_support::make_testbench_device({"-simt_model", "func", "-device_memory_mb", "256",
                                                       "-gpgpu_compute_capability_major", "9"},  // clusters
                                                      m, stack_bytes);
         },
         __FILE__, __LINE__),
     true);

}  // namespace
