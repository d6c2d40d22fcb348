// gpu_testbench — the GPU module (tlm/gpu gpu_top) alone in a plain SystemC testbench, as a SoC
// integrator uses it: an initiator socket for its registers (BAR0), a target socket serving its DMA
// from the testbench's own memory, interrupt, reset and clock signals, and a drv_bus made of them
// so that sw/driver runs on the testbench's thread. No simtvp platform, no libsimtvp.so.
#ifndef SIMTVP_TESTS_SUPPORT_GPU_TESTBENCH_H
#define SIMTVP_TESTS_SUPPORT_GPU_TESTBENCH_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "driver.h"
#include "gpu_config.h"
#include "gpu_top.h"

namespace test_support {

// Where the testbench's memory starts, as the GPU's DMA sees it.
constexpr uint64_t kTestbenchMemBase = 0x80000000ull;

struct gpu_testbench : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<gpu_testbench> mmio{"mmio"};
  tlm_utils::simple_target_socket<gpu_testbench> dma{"dma"};
  sc_core::sc_signal<bool> irq{"irq"}, rst{"rst"};
  sc_core::sc_signal<uint64_t> clk{"clk"};
  std::vector<uint8_t> memory;
  uint64_t next_free = kTestbenchMemBase;  // the driver's system-memory allocations go up from here
  simtvp::gpu_top *gpu = nullptr;
  std::function<void(gpu_testbench &)> body;  // runs on the testbench's thread, then the simulation stops
  drv_bus bus{};
  uint64_t dma_accesses = 0;
  sc_core::sc_time dma_latency;  // added to every DMA access's annotation

  SC_HAS_PROCESS(gpu_testbench);
  gpu_testbench(sc_core::sc_module_name n, uint64_t memory_bytes, sc_core::sc_time dma_latency);

  // Binds the GPU's BAR0, DMA and interrupt (and reset and clock when asked) to this testbench;
  // with the clock bound, clk starts at the GPU's core clock.
  void attach(simtvp::gpu_top *g, bool bind_reset = false, bool bind_clock = false);

  // One MMIO access with a 100 ns annotation, waited for; returns the response status.
  tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, void *data, unsigned len,
                                  unsigned char *byte_enable = nullptr);
  uint32_t read(uint32_t off);  // a 32-bit register, expected to succeed
  void write(uint32_t off, uint32_t v);

 private:
  void run();
  void serve_dma(tlm::tlm_generic_payload &t, sc_core::sc_time &delay);
};

// Loads configs/default.config followed by `args` into *cfg (gpu_config_register, load, parse,
// finalize).
simtvp_status load_default_config(gpu_config *cfg, const std::vector<const char *> &args, simtvp_diag *diag);

}  // namespace test_support

#endif  // SIMTVP_TESTS_SUPPORT_GPU_TESTBENCH_H
