// gpu_testbench — the GPU module (tlm/gpu gpu_top) alone in a plain SystemC testbench, as a SoC
// integrator uses it: an initiator socket for its registers (BAR0), a target socket serving its DMA
// from the testbench's own memory, interrupt, reset and clock signals, and a drv_bus made of them
// so that sw/driver runs on the testbench's thread. No simtvp platform, no libsimtvp.so.
//
// Every socket at the GPU's boundary goes through a TLM-2.0 base-protocol checker (tlm/common
// tlm_checker.h), and every GPU-internal link of a timing GPU is checked too (check_links): a
// protocol violation stops the simulation and fails the test.
//
// The CPU side can be any loosely-timed initiator: MMIO annotated with any delay (zero included),
// temporally decoupled under a tlm_quantumkeeper, through b_transport or nb_transport_fw, from the
// thread or from a method process; the DMA target may grant DMI.
#ifndef SIMTVP_TESTS_SUPPORT_GPU_TESTBENCH_H
#define SIMTVP_TESTS_SUPPORT_GPU_TESTBENCH_H

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "driver.h"
#include "gpu_top.h"
#include "kernel_checks.h"
#include "link.h"
#include "tlm_checker.h"

struct gpu_config;

namespace test_support {

// Where the testbench's memory starts, as the GPU's DMA sees it.
constexpr uint64_t kTestbenchMemBase = 0x80000000ull;

// How the testbench's CPU reaches the GPU's registers.
struct cpu_mode {
  sc_core::sc_time mmio_delay{100, sc_core::SC_NS};  // annotation of every MMIO access
  // > 0: the CPU is temporally decoupled with a tlm_quantumkeeper of this global quantum: MMIO is
  // annotated with its local time plus mmio_delay, its own memory accesses cost local time (1 ns
  // per 64 bytes) without synchronising, and it synchronises before waiting for the interrupt.
  sc_core::sc_time quantum = sc_core::SC_ZERO_TIME;
  bool nb = false;      // MMIO through nb_transport_fw (BEGIN_REQ ... BEGIN_RESP) instead of b_transport
};

struct gpu_testbench : sc_core::sc_module, tlm::tlm_mm_interface {
  tlm_utils::simple_initiator_socket<gpu_testbench> mmio{"mmio"};
  tlm_utils::simple_target_socket<gpu_testbench> dma{"dma"};
  tlm_utils::simple_initiator_socket<gpu_testbench> debug{"debug"};  // a debugger, on gpu->devmem_dbg
  simtvp::tlm_protocol_checker<> bar0_check{"bar0_check"}, dma_check{"dma_check"}, debug_check{"debug_check"};
  sc_core::sc_signal<bool> irq{"irq"}, rst{"rst"};
  sc_core::sc_signal<uint64_t> clk{"clk"};
  std::vector<uint8_t> memory;
  uint64_t next_free = kTestbenchMemBase;  // the driver's system-memory allocations go up from here
  simtvp::gpu_top *gpu = nullptr;
  std::function<void(gpu_testbench &)> body;  // runs on the testbench's thread, then the simulation stops
  drv_bus bus{};
  cpu_mode mode;
  uint64_t dma_accesses = 0;     // b_transport calls the DMA target served
  sc_core::sc_time dma_latency;  // added to every DMA access's annotation
  bool grant_dmi = false;        // the DMA target offers DMI over all of memory (read and write)
  bool dmi_hint_only = false;    // it sets the DMI hint but refuses get_direct_mem_ptr
  uint64_t dmi_requests = 0, dmi_grants = 0;
  simtvp::link_checks links;     // the GPU's internal links, checked from attach() on

  SC_HAS_PROCESS(gpu_testbench);
  gpu_testbench(sc_core::sc_module_name n, uint64_t memory_bytes, sc_core::sc_time dma_latency);

  // Binds the GPU's BAR0, DMA and interrupt (and reset and clock when asked) to this testbench
  // through the protocol checkers; with the clock bound, clk starts at the GPU's core clock.
  void attach(simtvp::gpu_top *g, bool bind_reset = false, bool bind_clock = false);

  // One MMIO access in the CPU's mode, waited for; returns the response status.
  tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, void *data, unsigned len,
                                  unsigned char *byte_enable = nullptr);
  uint32_t read(uint32_t off);  // a 32-bit register, expected to succeed
  void write(uint32_t off, uint32_t v);
  // The CPU's time: the simulation's plus its quantum keeper's local offset.
  sc_core::sc_time cpu_time();
  // The CPU computes for t: local time when decoupled (synchronising at the quantum), else waits.
  void cpu_compute(const sc_core::sc_time &t);
  // The DMA target withdraws every DMI pointer it granted.
  void invalidate_dmi();

  // Without a body the thread serves calls: call() runs job on it (from outside the simulation,
  // after elaboration) and returns when the job has (sc_start until the thread pauses).
  void call(std::function<void(gpu_testbench &)> job);

  // tlm_mm_interface: the MMIO payload of nb mode is the testbench's own (never freed).
  void free(tlm::tlm_generic_payload *) override {}

 private:
  void run();
  void serve_dma(tlm::tlm_generic_payload &t, sc_core::sc_time &delay);
  bool serve_dmi(tlm::tlm_generic_payload &t, tlm::tlm_dmi &dmi);
  tlm::tlm_sync_enum mmio_bw(tlm::tlm_generic_payload &t, tlm::tlm_phase &phase, sc_core::sc_time &delay);
  void cpu_spend(uint64_t bytes);

  tlm_utils::tlm_quantumkeeper qk_;
  tlm::tlm_generic_payload nb_payload_;
  sc_core::sc_event nb_response_, job_ready_;
  std::function<void(gpu_testbench &)> job_;
};

// Loads configs/default.config followed by `args` into *cfg (gpu_config_register, load, parse,
// finalize).
simtvp_status load_default_config(gpu_config *cfg, const std::vector<const char *> &args, simtvp_diag *diag);

// A kernel_checks device (the tests/kernels whole-kernel checks) made of a GPU module from the
// default configuration plus `args` and a testbench whose CPU runs sw/driver in `mode`: every
// call runs on the testbench's thread inside the simulation. One per process (SystemC).
std::unique_ptr<kernel_checks::device> make_testbench_device(const std::vector<std::string> &args, cpu_mode mode,
                                                             uint32_t stack_bytes);

}  // namespace test_support

#endif  // SIMTVP_TESTS_SUPPORT_GPU_TESTBENCH_H
