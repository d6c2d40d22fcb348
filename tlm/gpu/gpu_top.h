// gpu_top — the whole GPU as one SystemC/TLM-2.0 module with the sockets a SoC integrator expects
// (DESIGN.md section 1): a target socket for the BAR0 registers, an initiator socket for DMA into
// system memory, an interrupt output, optional clock and reset inputs, and a debug socket into
// device memory. Base protocol and the generic payload only at this boundary, so it plugs into any
// VP. docs/platform.md "Integrating the GPU" is the guide.
//
// Inside: the control side as one model core (models/gpuctl: registers, command processor running
// firmware/cp, copy engines, CTA dispatcher), the device-memory store (models/func devmem, mapped
// [devmem_base, +devmem_bytes) at reset) and the SIMT side behind simt_subsystem (functional, or
// the timing GPU, by configuration). The module sleeps until the control side's next event
// (control-clock cycles <-> sc_time); a BAR0 access is performed at the time its annotation says.
//
// Timing at the boundary (docs/platform.md "Timing modes"):
//   - BAR0 b_transport: the access happens at sc_time_stamp() + delay. Called from a thread (a
//     loosely-timed CPU, temporally decoupled or not), the module synchronises (waits out the
//     delay) and returns delay 0: register side effects are never decoupled. Any delay works,
//     zero included. Called from a method, the access happens at once. nb_transport_fw works too
//     (BEGIN_REQ is performed at its annotated time, the response comes as BEGIN_RESP).
//   - DMA: one b_transport per access of the copy engines and the command processor, from the
//     module's own thread or the thread of a BAR0 caller; the delay a target returns is not added:
//     the engines' own timing model (gpuctl: latency + bytes / bandwidth) decides when a copy
//     completes. DMI is used when the target grants it (DMI hint); invalidations are honoured.
//   - DMA for kernels (the hub: zero-copy accesses, and every DRAM access of an integrated GPU,
//     docs/system-modes.md): a kernel's data moves when its instruction executes, through the DMI
//     pointer a MAP_SYSMEM packet obtained (a target that grants no DMI there refuses the mapping);
//     its timing is one b_transport per request, issued from a method process of the GPU's L2
//     clock with zero delay — the target annotates what the access costs and must not wait() — and
//     carrying, for a write, the bytes memory already holds.
//   - irq: written when the level changes; level-triggered, high while INTR_PENDING is not 0.
//
// This header is public (installed as <simtvp/gpu_top.h>): it names the model's internals only by
// forward declarations.
#ifndef SIMTVP_TLM_GPU_TOP_H
#define SIMTVP_TLM_GPU_TOP_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "simtvp_diag.h"
#include "stats.h"

// The model cores inside (models/, not installed): opaque here.
struct gpu_config;
struct gpu_params;
struct gpuctl;
struct devmem;
struct gpu_kernel;
struct gpu_cta_result;
struct gpu_simt_port;
struct gpu_trace_event;
struct gpu_copy_op;
struct func_debug_port;

namespace simtvp {

class simt_subsystem;

// What the module needs besides the configuration. Every member is optional.
struct gpu_top_options {
  stats *st = nullptr;                  // statistics sink (not owned); null = no statistics
  simtvp_msg_port messages = {};        // fault reports and warnings; null emit = SC_REPORT_*
  // Device printf output (already formatted). Empty = written to the process's stdout.
  std::function<void(const char *text, std::size_t len)> print;
  // A failed device assert() in CUDA's words. Empty = written to the process's stderr.
  std::function<void(const char *text, std::size_t len)> assertion;
  // Stack of the module's thread, where functional CTAs run and programs are decoded.
  std::size_t stack_bytes = 16u << 20;
  // Where a relative -ptx_line_stats_filename goes; empty = $SIMTVP_OUTDIR when set (what
  // `simtvp -o DIR` sets), else the working directory. Created when missing.
  std::string out_dir;
  // Names an allocation site (the tag the driver declared a block with) in memory-checker
  // reports, e.g. "app+0x11a9"; returns the length written. Empty = printed as a number.
  std::function<std::size_t(uint64_t tag, char *buf, std::size_t size)> site_name;
  // A debugger on the functional engine (models/debug's port, docs/debugger.md; not owned, must
  // outlive the module); null = none.
  const func_debug_port *debugger = nullptr;
};

// A configuration by files and options, for integrators (no models/config headers needed).
struct gpu_top_config {
  // GPGPU-Sim-style option files, loaded in order. A name that is not a readable file and has no
  // '/' is looked up in config_dir() (with or without ".config": "SM75_RTX2060"). Empty: the
  // default configuration, config_dir()/default.config.
  std::vector<std::string> files;
  // Option words applied after the files: {"-gpgpu_n_clusters", "4", "-simt_model", "func"}.
  std::vector<std::string> options;
  // Unknown options are errors (default: warnings through gpu_top_options::messages).
  bool strict = false;
};

// The folder of the shipped GPU configurations: $SIMTVP_CONFIG_DIR when set; else, for an
// installed simtvp, <prefix>/share/simtvp/configs found from the location of the library that
// holds this code; else the configs/ folder of the source tree it was built from. Empty when none
// exists.
std::string config_dir();

// The simtvp version ("0.1.0"): the project's version (CMake project VERSION).
const char *version();

// A kernel as the statistics saw it (passed to the kernel-end hook).
struct gpu_kernel_record {
  std::string name;     // the .entry's name (mangled, as in the PTX)
  uint64_t launch_uid;  // dispatcher's launch number, from 1
  sc_core::sc_time begin, end;
  uint64_t core_cycles; // gpu_sim_cycle of the kernel
  // the launch's shape and where it came from
  uint32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  uint32_t smem_bytes = 0, regs_per_thread = 0, stream_id = 0;
  uint64_t n_ctas = 0;
};

// What happened on the GPU, for timelines, progress lines and reports. Observers are
// passive: they are told after the fact and change nothing the GPU does, so statistics are the
// same with and without them.
struct gpu_event {
  enum kind_t : uint8_t {
    kernel_begin,  // at begin: uid, slot, name, kernel (grid, block …)
    kernel_end,    // at begin: uid, slot, name
    cta_begin,     // at begin: the CTA reached core `sm`: uid, cta[3]
    cta_end,       // at begin: a CTA of kernel uid finished on core sm: status
    copy,          // [begin, end): a copy-engine operation: op
    cp_work,       // [begin, end): the command processor handled an event: what (gpu_trace_cp_what)
    cp_packet,     // at begin: the firmware decoded a packet: channel, opcode (gpu_abi.h)
    irq,           // at begin: the interrupt output changes to level
  };
  kind_t kind;
  sc_core::sc_time begin, end;  // end == begin for instants
  uint64_t uid = 0;             // kernel launch uid
  uint32_t slot = 0, sm = 0;
  uint32_t cta[3] = {0, 0, 0};
  uint32_t what = 0, channel = 0, opcode = 0;
  bool level = false;
  simtvp_status status = SIMTVP_OK;
  const std::string *name = nullptr;  // kernel_begin / kernel_end
  const gpu_kernel *kernel = nullptr; // kernel_begin
  const gpu_copy_op *op = nullptr;    // copy
};

// What the DMA initiator did (tests, integrators checking their DMI).
struct gpu_dma_counters {
  uint64_t transports = 0;     // b_transport calls on the dma socket
  uint64_t dmi_accesses = 0;   // accesses served through a DMI pointer
  uint64_t dmi_requests = 0;   // get_direct_mem_ptr calls
  uint64_t dmi_grants = 0;     // of which granted
  uint64_t invalidations = 0;  // invalidate_direct_mem_ptr calls received
  uint64_t timed = 0;          // timing transactions of the hub (zero-copy and integrated-GPU
                               // traffic: b_transport calls that carry what memory holds)
};

class gpu_top : public sc_core::sc_module {
 public:
  // BAR0: 32-bit, 4-byte aligned accesses inside [0, GPU_BAR0_BYTES). A bad access answers with a
  // TLM error response and is also recorded by the GPU in ERR_STATUS (ERROR interrupt when
  // enabled), as the ABI says: outside the aperture, misaligned or unmapped:
  // TLM_ADDRESS_ERROR_RESPONSE; not 4 bytes or a streaming width below the length:
  // TLM_BURST_ERROR_RESPONSE; byte enables: TLM_BYTE_ENABLE_ERROR_RESPONSE; a write to a read-only
  // or a read of a write-only register: TLM_COMMAND_ERROR_RESPONSE. transport_dbg reads registers
  // without side effects (debug writes transfer nothing). No DMI.
  tlm_utils::simple_target_socket<gpu_top> bar0;
  // DMA initiator: addresses are system bus addresses as the driver programs them.
  tlm_utils::simple_initiator_socket<gpu_top> dma;
  // Device memory for debuggers (optional to bind): transport_dbg reads and writes device memory
  // at device addresses (DEVMEM_BASE…, the heap above it), without side effects or time; it stops
  // at the first unmapped byte. b_transport answers TLM_COMMAND_ERROR_RESPONSE (not a bus aperture).
  tlm_utils::simple_target_socket_optional<gpu_top> devmem_dbg;
  // Interrupt output, level-triggered.
  sc_core::sc_out<bool> irq;
  // Clock frequency in Hz (0 stops the clock); unbound = the configured core clock.
  sc_core::sc_port<sc_core::sc_signal_in_if<uint64_t>, 1, sc_core::SC_ZERO_OR_MORE_BOUND> clk;
  // Reset, active high, applied on the rising edge; unbound = no reset after construction.
  sc_core::sc_port<sc_core::sc_signal_in_if<bool>, 1, sc_core::SC_ZERO_OR_MORE_BOUND> rst;

  // Builds the GPU from a finalized configuration (models/config gpu_config.h). Returns nullptr
  // (and fills diag, naming the option) when it cannot be built; call during elaboration. The
  // caller owns the module (delete it after the simulation, or never).
  static gpu_top *create(sc_core::sc_module_name name, const gpu_config &config,
                         const gpu_top_options &options, simtvp_diag *diag);
  // The same from option files and words (gpu_top_config). Errors name the option and its
  // file:line, or the file that cannot be read.
  static gpu_top *create(sc_core::sc_module_name name, const gpu_top_config &config,
                         const gpu_top_options &options, simtvp_diag *diag);
  ~gpu_top() override;

  // Nothing queued, in flight or running, no event due and the interrupt output settled: the
  // interrupt cannot rise until the host writes a register.
  bool quiescent() const;
  // Notified when the GPU becomes quiescent.
  const sc_core::sc_event &quiescent_event() const;
  // Work is queued, in flight or running (counters may change); busy_event() when that starts.
  bool busy() const;
  const sc_core::sc_event &busy_event() const;

  // Called at every kernel end, after its statistics are recorded.
  void on_kernel_end(std::function<void(const gpu_kernel_record &)> hook);
  // Adds a passive observer of gpu_event (kernels, CTAs, copies, command-processor work and
  // packets, interrupts). Observers are called in the order they were added.
  void add_observer(std::function<void(const gpu_event &)> observer);

  // The configured core clock (the control clock when clk is unbound), Hz.
  uint64_t core_clock_hz() const;
  // "func" or "timing" (docs/timing.md).
  const char *simt_model() const;
  // The last kernel fault's full report (kernel, CTA, thread, PC, PTX line, address).
  const simtvp_diag &last_fault() const;
  // Control-clock cycle at the current simulated time.
  uint64_t cycle() const;
  const gpu_dma_counters &dma_counters() const;

  // The internals (tests and tools built with the source tree): the parameters derived from the
  // configuration (gpu_params.h), the SIMT side (a timing side is a simt_timing,
  // tlm/gpu/simt_timing.h), the control side's model core and the device-memory store.
  const gpu_params &params() const;
  simt_subsystem &simt_side();
  gpuctl *control();
  devmem *memory();
  // A coherence invalidation from the system's directory (docs/system-modes.md): the GPU's L2
  // drops its copies of [bus, bus + bytes) of system memory, wherever the GPU maps it; returns
  // the lines dropped.
  uint32_t coherent_invalidate(uint64_t bus, uint64_t bytes);
  // The system IOMMU's address translation services for -system_mode shared_va
  // (docs/system-modes.md), set by the platform before the first kernel: a virtual address the
  // GPU's page tables do not map is translated with the host's page tables. resolve: the
  // functional translation (0, or an iommu_fault number; may make the page present); host_page:
  // the host memory behind a bus page it gave; timed: the hub's translation of a request, with
  // the IOMMU's time; maps: whether the IOMMU holds va (the request's aperture is SYSMEM). Called
  // from several host threads under -sim_threads: the platform serialises.
  struct ats_port {
    std::function<uint32_t(uint64_t va, bool write, uint64_t *bus, bool *writable)> resolve;
    std::function<uint8_t *(uint64_t bus)> host_page;
    std::function<bool(uint64_t va, bool write, uint64_t *bus, sc_core::sc_time *extra)> timed;
    std::function<bool(uint64_t va, uint64_t *bus)> maps;  // bus may be null
  };
  void set_ats(ats_port port);
  // With -memcheck: reports every live block the program allocated (not the driver's own) as a
  // leak through the message port and returns how many there were (0 without -memcheck). Call at
  // the end of the run, after the driver closed.
  uint32_t report_leaks();

  SC_HAS_PROCESS(gpu_top);

 private:
  struct state;
  gpu_top(sc_core::sc_module_name name, std::unique_ptr<state> s);
  simtvp_status build(simtvp_diag *diag);
  simtvp_status map_memory(simtvp_diag *diag);
  bool map_carveout();
  void end_of_elaboration() override;

  void run();                                  // the module's thread: advance, sleep, repeat
  void drive_irq();                            // the only writer of irq
  uint64_t advance();                          // runs everything due by now; returns the cycle
  void apply_inputs();                         // clock and reset port changes
  sc_core::sc_time time_of(uint64_t cycle) const;
  void hardware_reset();
  void update_quiescence();                    // notifies quiescent_event / busy_event on changes

  // BAR0 target.
  void b_transport(tlm::tlm_generic_payload &trans, sc_core::sc_time &delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload &trans);
  // Device-memory debug target.
  void devmem_b_transport(tlm::tlm_generic_payload &trans, sc_core::sc_time &delay);
  unsigned int devmem_transport_dbg(tlm::tlm_generic_payload &trans);
  // DMA initiator.
  bool dma_access(tlm::tlm_command cmd, uint64_t addr, uint8_t *data, uint64_t len);
  // The hub's timing transaction for a kernel's access to system memory (see above).
  bool dma_timed(bool write, uint64_t gpu_addr, uint64_t bus, uint32_t bytes, sc_core::sc_time *delay,
                 bool writeback = false, bool atomic = false);
  // MAP_SYSMEM: [va, va + bytes) onto system memory at bus (through a DMI pointer).
  bool map_sysmem(uint64_t va, uint64_t bus, uint64_t bytes);
  void translated(uint64_t va, uint32_t aperture, uint64_t pa);
  uint64_t physical_of(uint64_t addr) const;
  void unmap_sysmem(uint64_t va, uint64_t bytes);
  void invalidate_dmi(sc_dt::uint64 start, sc_dt::uint64 end);

  // Statistics boundaries around the SIMT side.
  gpu_simt_port wrap_simt_port(gpu_simt_port inner);
  const std::string &kernel_name(const gpu_kernel &k);
  void cta_done(uint32_t sm, uint32_t kernel_slot, const gpu_cta_result &r);
  void message(simtvp_severity severity, const char *text);
  void memmap_enable(bool on);
  void count_busy_cycles();
  void notify(const gpu_event &e);
  static void control_trace(void *ctx, const gpu_trace_event *e);
  void write_line_stats(uint64_t launch_uid);

  std::unique_ptr<state> s_;
};

}  // namespace simtvp

#endif  // SIMTVP_TLM_GPU_TOP_H
