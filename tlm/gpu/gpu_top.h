// gpu_top — the whole GPU as one SystemC/TLM-2.0 module with the sockets a SoC integrator expects
// (DESIGN.md section 1): a target socket for the BAR0 registers, an initiator socket for DMA into
// system memory, an interrupt output, and optional clock and reset inputs. Base protocol and the
// generic payload only at this boundary, so it plugs into any VP.
//
// Inside: the control side as one model core (models/gpuctl: registers, command processor running
// firmware/cp, copy engines, CTA dispatcher), the device-memory store (models/func devmem, mapped
// [devmem_base, +devmem_bytes) at reset) and the SIMT side behind simt_subsystem (functional now;
// timing sides plug in by configuration). The module sleeps until the control side's next event
// (control-clock cycles <-> sc_time); a BAR0 access is performed at the time its annotation says.
//
// Timing at the boundary (docs/platform.md "Timing annotations"):
//   - BAR0 b_transport: the access happens at sc_time_stamp() + delay. Called from a thread, the
//     module synchronises (waits out the delay) and returns delay 0; the register block has no
//     latency of its own (the bus and the initiator model the round trip).
//   - DMA: one b_transport per access of the copy engines and the command processor; the delay a
//     target returns is not added: the engines' own timing model (gpuctl: latency + bytes /
//     bandwidth) decides when a copy completes. DMI is used when the target grants it.
//   - irq: written when the level changes; level-triggered, high while INTR_PENDING is not 0.
#ifndef SIMTVP_TLM_GPU_TOP_H
#define SIMTVP_TLM_GPU_TOP_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "devmem.h"
#include "gpu_config.h"
#include "gpu_params.h"
#include "gpuctl.h"
#include "simt_subsystem.h"
#include "simtvp_diag.h"
#include "stats.h"

namespace simtvp {

// What the module needs besides the configuration. Every member is optional.
struct gpu_top_options {
  stats *st = nullptr;                  // statistics sink (not owned); null = no statistics
  simtvp_msg_port messages = {};        // fault reports and warnings; null emit = SC_REPORT_*
  // Device printf output (already formatted). Empty = written to the process's stdout.
  std::function<void(const char *text, std::size_t len)> print;
  // When the configuration asks for a timing SIMT side this build does not have: run the cores
  // functionally with a warning (true) or fail with SIMTVP_ERR_UNSUPPORTED naming -simt_model.
  bool simt_fallback_to_func = false;
  // Stack of the module's thread, where functional CTAs run and programs are decoded.
  std::size_t stack_bytes = 16u << 20;
  // (addition) Where a relative -ptx_line_stats_filename goes; empty = $SIMTVP_OUTDIR when set
  // (what `simtvp -o DIR` sets), else the working directory. Created when missing.
  std::string out_dir;
  // (addition) Names an allocation site (the tag the driver declared a block with) in memory-checker
  // reports, e.g. "app+0x11a9"; returns the length written. Empty = printed as a number.
  std::function<std::size_t(uint64_t tag, char *buf, std::size_t size)> site_name;
};

// A kernel as the statistics saw it (passed to the kernel-end hook).
struct gpu_kernel_record {
  std::string name;     // the .entry's name (mangled, as in the PTX)
  uint64_t launch_uid;  // dispatcher's launch number, from 1
  sc_core::sc_time begin, end;
  uint64_t core_cycles; // gpu_sim_cycle of the kernel
};

class gpu_top : public sc_core::sc_module {
 public:
  // BAR0: 32-bit, 4-byte aligned accesses inside [0, GPU_BAR0_BYTES). Other sizes get
  // TLM_BURST_ERROR_RESPONSE, byte enables TLM_BYTE_ENABLE_ERROR_RESPONSE, offsets outside the
  // aperture, misaligned or unmapped ones TLM_ADDRESS_ERROR_RESPONSE (the GPU also records the
  // bad access in ERR_STATUS as the ABI says). transport_dbg reads registers without side effects.
  tlm_utils::simple_target_socket<gpu_top> bar0;
  // DMA initiator: addresses are system bus addresses as the driver programs them.
  tlm_utils::simple_initiator_socket<gpu_top> dma;
  // Interrupt output, level-triggered.
  sc_core::sc_out<bool> irq;
  // Clock frequency in Hz (0 stops the clock); unbound = the configured core clock.
  sc_core::sc_port<sc_core::sc_signal_in_if<uint64_t>, 1, sc_core::SC_ZERO_OR_MORE_BOUND> clk;
  // Reset, active high, applied on the rising edge; unbound = no reset after construction.
  sc_core::sc_port<sc_core::sc_signal_in_if<bool>, 1, sc_core::SC_ZERO_OR_MORE_BOUND> rst;

  // Builds the GPU from a finalized configuration. Returns nullptr (and fills diag, naming the
  // option) when the configuration cannot be built; call during elaboration. The caller owns the
  // module (delete it after the simulation, or never).
  static gpu_top *create(sc_core::sc_module_name name, const gpu_config &config,
                         const gpu_top_options &options, simtvp_diag *diag);
  ~gpu_top() override;

  // Nothing queued, in flight or running, no event due and the interrupt output settled: the
  // interrupt cannot rise until the host writes a register.
  bool quiescent() const;
  // Notified when the GPU becomes quiescent.
  const sc_core::sc_event &quiescent_event() const { return quiescent_event_; }
  // Work is queued, in flight or running (counters may change); busy_event() when that starts.
  bool busy() const;
  const sc_core::sc_event &busy_event() const { return busy_event_; }

  // Called at every kernel end, after its statistics are recorded.
  void on_kernel_end(std::function<void(const gpu_kernel_record &)> hook) { kernel_hook_ = std::move(hook); }

  const gpu_params &params() const { return params_; }
  const char *simt_model() const { return simt_->model_name(); }
  // The SIMT side (tests and tools: a timing side is a simt_timing, tlm/gpu/simt_timing.h).
  simt_subsystem &simt_side() { return *simt_; }
  // The last kernel fault's full report (kernel, CTA, thread, PC, PTX line, address).
  const simtvp_diag &last_fault() const { return simt_->last_fault(); }
  // Control-clock cycle at the current simulated time.
  uint64_t cycle() const;
  // The model cores inside (tests, traces).
  gpuctl *control() { return ctl_; }
  devmem *memory() { return mem_; }
  // With -memcheck: reports every live block the program allocated (not the driver's own) as a
  // leak through the message port and returns how many there were (0 without -memcheck). Call at
  // the end of the run, after the driver closed.
  uint32_t report_leaks();

  SC_HAS_PROCESS(gpu_top);

 private:
  gpu_top(sc_core::sc_module_name name, const gpu_config &config, const gpu_params &params,
          const gpu_top_options &options);
  simtvp_status build(simtvp_diag *diag);
  simtvp_status map_memory(simtvp_diag *diag);
  void end_of_elaboration() override;

  void run();                                  // the module's thread: advance, sleep, repeat
  void drive_irq();                            // the only writer of irq
  uint64_t advance();                          // runs everything due by now; returns the cycle
  void apply_inputs();                         // clock and reset port changes
  sc_core::sc_time time_of(uint64_t cycle) const;
  void hardware_reset();
  void update_quiescence();                    // notifies quiescent_event_ / busy_event_ on changes

  // BAR0 target.
  void b_transport(tlm::tlm_generic_payload &trans, sc_core::sc_time &delay);
  unsigned int transport_dbg(tlm::tlm_generic_payload &trans);
  // DMA initiator.
  bool dma_access(tlm::tlm_command cmd, uint64_t addr, uint8_t *data, uint64_t len);
  void invalidate_dmi(sc_dt::uint64 start, sc_dt::uint64 end);

  // Statistics boundaries around the SIMT side.
  gpu_simt_port wrap_simt_port(gpu_simt_port inner);
  const std::string &kernel_name(const gpu_kernel &k);
  void cta_done(uint32_t sm, uint32_t kernel_slot, const gpu_cta_result &r);
  void message(simtvp_severity severity, const char *text);
  void mmu_enable(bool on);

  const gpu_config config_;
  gpu_params params_;
  gpu_top_options options_;
  gpuctl *ctl_ = nullptr;
  devmem *mem_ = nullptr;
  bool mmu_on_ = false;  // MMU_CTRL.ENABLE: only declared blocks are mapped
  std::unique_ptr<simt_subsystem> simt_;
  gpu_simt_port simt_inner_{};

  // Clock: cycle(t) = base_cycle_ + (t - base_time_) * hz_ (hz_ 0: stopped).
  uint64_t hz_ = 0;
  uint64_t base_cycle_ = 0;
  sc_core::sc_time base_time_;
  bool rst_level_ = false;
  bool irq_level_ = false, elaborated_ = false;
  simtvp_status build_status_ = SIMTVP_OK;
  simtvp_diag build_diag_;

  sc_core::sc_event wake_;            // something changed: re-evaluate the next event
  sc_core::sc_event irq_changed_;
  sc_core::sc_event quiescent_event_, busy_event_;
  sc_core::sc_event_or_list inputs_;  // wake_ plus the bound clk/rst ports' events
  bool was_quiescent_ = true, was_busy_ = false;

  // DMI region granted on the DMA socket (dmi_ptr_ null = none).
  tlm::tlm_dmi dmi_;
  bool dmi_valid_ = false, dmi_refused_ = false;

  // Statistics.
  void count_busy_cycles();
  uint64_t *gpu_sim_cycle_ = nullptr;
  uint32_t kernels_running_ = 0;
  uint64_t busy_mark_ = 0;  // cycle up to which gpu_sim_cycle counts
  struct running {
    uint64_t launch_uid = 0, begin_cycle = 0;
    sc_core::sc_time begin;
    std::string name;
  };
  std::vector<running> running_;      // by dispatcher slot
  std::map<std::pair<uint64_t, uint64_t>, std::vector<std::string>> names_; // (image, load_id)
  std::function<void(const gpu_kernel_record &)> kernel_hook_;

  // PTX source-line statistics (-enable_ptx_file_line_stats): one section per kernel, appended to
  // -ptx_line_stats_filename as each kernel ends (the file is started by the first).
  void write_line_stats(uint64_t launch_uid);
  std::FILE *line_stats_ = nullptr;
  bool line_stats_failed_ = false;
};

}  // namespace simtvp

#endif  // SIMTVP_TLM_GPU_TOP_H
