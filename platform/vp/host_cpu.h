// host_cpu — the host CPU stub: runs host software (sw/driver, called by libcudart/libcuda or
// tests) inside an SC_THREAD with a large stack, so every register access and every system-memory
// access of the driver is a TLM transaction on the system bus with its time annotation, and
// waiting for an interrupt lets the GPU run (DESIGN.md section 1).
//
// The CUDA program runs natively; an API call hands its work to the stub with post() and runs the
// SystemC kernel until the stub's thread calls sc_pause() when the work is done.
//
// Costs (docs/platform.md "Timing annotations"):
//   MMIO read   -host_mmio_read_latency_ns   (round trip; the host waits it out)
//   MMIO write  -host_mmio_write_latency_ns  (posted write: the cost to the host)
//   system memory read/write by the host     one host cycle (-host_clock_mhz) per 16 bytes, at
//                                            least one (the driver filling rings, staging data)
//   interrupt   -host_irq_latency_ns         from the line rising to wait_for_interrupt returning
//   API call    -host_api_overhead_ns        charged when a posted request starts
// Each access is issued with its cost as the TLM delay annotation; the stub then waits out
// whatever the target did not consume, so host time always equals the sum of the costs.
#ifndef SIMTVP_PLATFORM_HOST_CPU_H
#define SIMTVP_PLATFORM_HOST_CPU_H

#include <cstddef>
#include <cstdint>
#include <functional>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "driver.h"
#include "simtvp_diag.h"

namespace simtvp {

struct host_cpu_config {
  sc_core::sc_time mmio_read, mmio_write, irq_latency, api_overhead;
  sc_core::sc_time host_cycle;     // one cycle of the host clock
  uint64_t bar0_base = 0;          // bus address of the GPU's BAR0
  std::size_t stack_bytes = 64u << 20;
};

class host_cpu : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<host_cpu> bus;
  sc_core::sc_in<bool> irq;

  host_cpu(sc_core::sc_module_name name, const host_cpu_config &config);

  // System-memory allocation for the driver (the OS's DMA allocator): bus addresses.
  void set_allocator(std::function<bool(uint64_t size, uint64_t align, uint64_t *bus_addr)> alloc,
                     std::function<void(uint64_t bus_addr)> free);
  // Whether the interrupt can still rise (false: nothing left that could raise it) and the event
  // notified when that may have changed. Unset: the stub waits for the line unconditionally.
  void set_interrupt_source(std::function<bool()> can_rise, const sc_core::sc_event *changed);
  // Reports bus errors (an access answered with an error response).
  void set_messages(simtvp_msg_port messages) { messages_ = messages; }

  // The drv_bus whose functions issue this stub's transactions (valid only on the stub's thread).
  const drv_bus *driver_bus() const { return &drv_bus_; }

  // Hands fn(ctx) to the stub's thread (call from outside the simulation, then sc_start()).
  // api_call: the request is an API call and costs -host_api_overhead_ns first (false: the
  // program's own memory access that the platform trapped, docs/system-modes.md §2.4).
  void post(void (*fn)(void *), void *ctx, bool api_call = true);
  // The program's own load or store of the host cache line holding bus_addr, timed on the
  // stub's thread: a timing-only transaction of the line (TLM_IGNORE_COMMAND, agent host) that the
  // system memory's timing model, the system-level cache and the coherence directory see as the
  // host's access, plus one host cycle per 16 bytes; moves no data (the program's instruction
  // does, natively).
  void touch(uint64_t bus_addr, bool write);
  static constexpr uint64_t kLineBytes = 64;  // a host cache line
  // The posted work has finished (the thread called sc_pause()).
  bool done() const { return !pending_; }
  // The calling code runs on the stub's thread (a nested call from inside posted work).
  bool on_thread() const;

  // Counters of the bus traffic the stub issued.
  struct counters {
    uint64_t mmio_reads = 0, mmio_writes = 0, sysmem_reads = 0, sysmem_writes = 0;
    uint64_t sysmem_bytes = 0, interrupts = 0, bus_errors = 0;
  };
  const counters &traffic() const { return counters_; }

  SC_HAS_PROCESS(host_cpu);

 private:
  void run();
  bool access(tlm::tlm_command cmd, uint64_t addr, void *data, uint64_t len, sc_core::sc_time cost);
  sc_core::sc_time copy_cost(uint64_t len) const;

  static uint32_t mmio_read32(void *ctx, uint32_t offset);
  static uint32_t mmio_peek32(void *ctx, uint32_t offset);  // debug transport: no time
  static void mmio_write32(void *ctx, uint32_t offset, uint32_t value);
  static bool sysmem_alloc(void *ctx, uint64_t size, uint64_t align, uint64_t *bus_addr);
  static void sysmem_free(void *ctx, uint64_t bus_addr);
  static void sysmem_read(void *ctx, uint64_t bus_addr, void *dst, uint64_t len);
  static void sysmem_write(void *ctx, uint64_t bus_addr, const void *src, uint64_t len);
  static bool wait_for_interrupt(void *ctx);

  host_cpu_config config_;
  drv_bus drv_bus_{};
  std::function<bool(uint64_t, uint64_t, uint64_t *)> alloc_;
  std::function<void(uint64_t)> free_;
  std::function<bool()> can_rise_;
  const sc_core::sc_event *changed_ = nullptr;
  simtvp_msg_port messages_{};

  sc_core::sc_event request_;
  void (*fn_)(void *) = nullptr;
  void *ctx_ = nullptr;
  bool pending_ = false;
  bool api_call_ = true;
  sc_core::sc_process_handle thread_;
  counters counters_;
};

}  // namespace simtvp

#endif  // SIMTVP_PLATFORM_HOST_CPU_H
