// simt_timing — the timing SIMT side of the GPU top module (docs/timing.md): one SIMT-cluster
// shell per -gpgpu_n_clusters (tlm/simt, cores of per-core fidelity: -simt_model,
// -simt_model_override), the memory system (tlm/mem mem_system: interconnect, memory partitions
// with their L2 slices, DRAM controllers of per-channel fidelity), the clock domains of
// -gpgpu_clock_domains (the core domain's driver is this side's, the others the memory system's),
// the program launcher (models/gpuctl gpu_launcher with the SIMT cores' timing decode attached
// per program image) and the functional engine the cores execute through.
//
// The CTA dispatcher's port (gpu_simt_port) is answered here: kernel_begin loads the program
// image, launch_cta hands the CTA to the cluster of its core (it starts at the next core edge),
// kernel_end flushes the L1s / L2 (-gpgpu_flush_l1_cache, -gpgpu_flush_l2_cache) and ends the
// launch. CTA completions go back through env.cta_done at the core edge the core reports them.
//
// Simulation control (gpu_simctl.h): -gpgpu_max_cycle, -gpgpu_max_insn, -gpgpu_max_cta and the
// deadlock watchdog (-gpgpu_deadlock_detect, -deadlock_cycles). A stop drops the resident CTAs
// (each reported to the dispatcher with SIMTVP_ERR_LIMIT or SIMTVP_ERR_DEADLOCK, so the kernel
// ends with that error and the driver sees it), replaces the cluster model cores by fresh ones,
// and — for a deadlock — first dumps every warp's state and the memory requests in flight.
//
// Each core's local memory is a region of the device address space above device memory and the
// malloc heap (never mapped in the store: timing models move addresses, not data): core sm gets
// [local_base(sm), +max_threads × local_bytes_per_thread), interleaved per 32-bit word as
// docs/simt-ldst.md describes.
#ifndef SIMTVP_TLM_SIMT_TIMING_H
#define SIMTVP_TLM_SIMT_TIMING_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "domain_driver.h"
#include "mem_system.h"
#include "simt_cluster_shell.h"
#include "simt_subsystem.h"
#include "worker_pool.h"

extern "C" {
#include "gpu_launcher.h"
#include "gpu_simctl.h"
#include "simt.h"
}

namespace simtvp {

class simt_timing final : public sc_core::sc_module, public simt_subsystem {
 public:
  // Local memory reserved per thread slot (bytes): a kernel whose local frame plus call stack
  // needs more aliases the next core's region in the caches (timing only; a warning says so).
  static constexpr uint64_t kLocalBytesPerThread = 64u << 10;

  simt_timing(sc_core::sc_module_name name, const simt_env &env);
  ~simt_timing() override;
  // Construction status: false with *diag naming the option when the configuration cannot be
  // built (the factory then returns nullptr).
  bool ok(simtvp_diag *diag) const;

  // simt_subsystem
  gpu_simt_port port() override;
  void reset() override;
  bool idle() const override;
  const char *model_name() const override { return "timing"; }
  const simtvp_diag &last_fault() const override { return fault_; }

  // Inside (tests, benches, traces).
  mem_system &memory() { return *mem_; }
  uint32_t cluster_count() const { return static_cast<uint32_t>(clusters_.size()); }
  simt_cluster_shell &cluster(uint32_t c) { return *clusters_.at(c); }
  domain_driver &core_driver() { return *core_drv_; }
  const gpu_simctl *control() const { return ctl_; }
  uint64_t core_cycle() const;
  // Device address of core sm's local-memory region.
  uint64_t local_base(uint32_t sm) const { return local_base_ + sm * local_region_bytes_; }
  uint64_t local_region_bytes() const { return local_region_bytes_; }
  // Writes the deadlock dump (every cluster, every warp, requests in flight, the memory
  // system's queues) as lines to env.messages; tests call it directly too.
  void dump_state(simtvp_severity severity);

 private:
  struct supervisor_clock final : clocked {
    simt_timing *side = nullptr;
    uint64_t cycle = 0;
    void tick(uint64_t c) override;
    uint64_t next_tick() const override;
  };
  struct slot_state {
    bool active = false;
    gpu_kernel k{};
    simt_kernel sk{};
    uint32_t warps = 0;              // per CTA
    bool aborted = false;            // its CTAs are reported at once with abort_status
    simtvp_status abort_status = SIMTVP_OK;
    bool fault_recorded = false;
    bool limit_reported = false;
    bool have_report = false;        // report: a core's structured fault/deadlock report
    simtvp_diag report{};
  };

  simtvp_status build(simtvp_diag *diag);
  gpu_mem_port store_port() const;
  void wake_supervisor();
  void supervise(uint64_t c);
  void stop(gpu_simctl_stop why, uint64_t c);
  void report(uint32_t sm, uint32_t slot, const gpu_cta_result &r);
  void record_fault(uint32_t slot, const gpu_cta_result &r);
  void set_fault(simtvp_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
  void dump_memory(simtvp_severity severity);
  simt_cluster_shell &shell_of(uint32_t sm) { return *clusters_[sm / cores_per_cluster_]; }

  // dispatcher port
  static bool kernel_begin(void *ctx, const gpu_kernel *k, gpu_kernel_result *why);
  static void launch_cta(void *ctx, const gpu_kernel *k, uint32_t sm, const uint32_t cta[3]);
  static void kernel_end(void *ctx, const gpu_kernel *k);
  // cluster ports
  static void on_cta_done(void *ctx, uint32_t sm, uint32_t slot, const gpu_cta_result *r, uint64_t cycle);
  static void on_ticked(void *ctx, uint64_t cycle);
  static void on_message(void *ctx, simtvp_severity severity, const char *text);
  static void on_fault(void *ctx, uint32_t sm, uint32_t slot, const simtvp_diag *report, uint64_t cycle);

  simt_env env_;
  const gpu_config &g_;
  stats *st_ = nullptr;
  stats *own_stats_ = nullptr;
  func_engine *engine_ = nullptr;
  gpu_launcher *launcher_ = nullptr;
  gpu_simctl *ctl_ = nullptr;
  // -sim_threads > 1: the host threads of every domain driver's parallel phases (docs/timing.md
  // "Parallel simulation"); declared before the drivers, so it outlives them.
  std::unique_ptr<worker_pool> workers_;
  serial_messages func_messages_;  // the functional engine's warnings, in serial order
  std::unique_ptr<domain_driver> core_drv_;
  std::unique_ptr<gpu_config> mem_cfg_;  // what the memory system is built from (kept alive)
  std::unique_ptr<mem_system> mem_;
  std::vector<simt_core_config> core_cfgs_;
  std::vector<std::unique_ptr<simt_cluster_shell>> clusters_;
  supervisor_clock supervisor_;
  std::vector<slot_state> slots_;
  std::vector<uint32_t> resident_;  // [sm * slots + slot]
  uint64_t resident_total_ = 0;
  uint32_t cores_per_cluster_ = 1, n_cores_ = 0;
  uint64_t local_base_ = 0, local_region_bytes_ = 0;
  gpu_simctl_stop pending_stop_ = GPU_SIMCTL_RUN;
  simtvp_status status_ = SIMTVP_OK;
  simtvp_diag diag_;
  simtvp_diag fault_;
  bool local_warned_ = false;
};

// The timing side (factory row "timing").
std::unique_ptr<simt_subsystem> make_simt_timing(sc_core::sc_module_name name, const simt_env &env,
                                                 simtvp_diag *diag);

}  // namespace simtvp

#endif  // SIMTVP_TLM_SIMT_TIMING_H
