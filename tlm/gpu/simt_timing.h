// simt_timing — the SystemC shell of the timing SIMT side (docs/timing.md). The policy (kernel
// slots, CTA residency, simulation control and its stops, faults, local-memory layout) is the C
// model core models/gpuctl/gpu_simt_timing; this shell builds what it drives and forwards:
//   - one SIMT-cluster shell per -gpgpu_n_clusters (tlm/simt, cores of per-core fidelity, built
//     from the model core's per-core configurations),
//   - the memory system (tlm/mem mem_system: interconnect, memory partitions with their L2
//     slices, DRAM controllers of per-channel fidelity) bound to the clusters,
//   - the core clock's domain driver (the other domains are the memory system's) and the
//     supervisor, ticked after the clusters, which runs the model core's simulation control;
//   - the deadlock dump (the clusters' and the memory system's state as lines).
// The dispatcher's port is the model core's (gpu_simt_timing_port).
#ifndef SIMTVP_TLM_SIMT_TIMING_H
#define SIMTVP_TLM_SIMT_TIMING_H

#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>

#include "domain_driver.h"
#include "mem_system.h"
#include "simt_cluster_shell.h"
#include "simt_subsystem.h"
#include "worker_pool.h"

extern "C" {
#include "gpu_simt_timing.h"
}

namespace simtvp {

class simt_timing final : public sc_core::sc_module, public simt_subsystem {
 public:
  simt_timing(sc_core::sc_module_name name, const simt_env &env);
  ~simt_timing() override;
  // Construction status: false with *diag naming the option when the configuration cannot be
  // built (the factory then returns nullptr).
  bool ok(simtvp_diag *diag) const;

  // simt_subsystem
  gpu_simt_port port() override { return gpu_simt_timing_port(side_); }
  void reset() override { gpu_simt_timing_reset(side_); }
  bool idle() const override { return gpu_simt_timing_idle(side_); }
  const char *model_name() const override { return "timing"; }
  const simtvp_diag &last_fault() const override { return *gpu_simt_timing_last_fault(side_); }
  uint32_t coherent_invalidate(uint64_t gpu_addr, uint64_t bus) override {
    return mem_->invalidate_l2_line(gpu_addr, bus) ? 1 : 0;
  }

  // Inside (tests, benches, traces).
  gpu_simt_timing *model() const { return side_; }
  mem_system &memory() { return *mem_; }
  uint32_t cluster_count() const { return static_cast<uint32_t>(clusters_.size()); }
  simt_cluster_shell &cluster(uint32_t c) { return *clusters_.at(c); }
  domain_driver &core_driver() { return *core_drv_; }
  uint64_t core_cycle() const { return core_drv_->current_cycle(); }
  // Device address of core sm's local-memory region.
  uint64_t local_base(uint32_t sm) const { return gpu_simt_timing_local_base(side_, sm); }
  uint64_t local_region_bytes() const { return gpu_simt_timing_local_region_bytes(side_); }
  // Writes the deadlock dump (every busy cluster, every warp, requests in flight, the memory
  // system's queues) as lines to env.messages; tests call it directly too.
  void dump_state(simtvp_severity severity);

 private:
  struct supervisor_clock final : clocked {
    simt_timing *side = nullptr;
    uint64_t cycle = 0;
    void tick(uint64_t c) override;
    uint64_t next_tick() const override;
  };

  simtvp_status build(simtvp_diag *diag);
  gpu_simt_timing_ports model_ports();
  // Where an address lives (system memory with its bus address, or device memory): the clusters'
  // requests and the interval cores' memory model (models/memiv) route by it.
  mem_aperture_port aperture_port();

  simt_env env_;
  const gpu_config &g_;
  gpu_simt_timing *side_ = nullptr;
  // -sim_threads > 1: the host threads of every domain driver's parallel phases (docs/timing.md
  // §12); declared before the drivers, so it outlives them.
  std::unique_ptr<worker_pool> workers_;
  serial_messages func_messages_;  // the functional engine's warnings, in a one-thread run's order
  std::unique_ptr<domain_driver> core_drv_;
  std::unique_ptr<mem_system> mem_;
  std::vector<std::unique_ptr<simt_cluster_shell>> clusters_;
  supervisor_clock supervisor_;
  simtvp_status status_ = SIMTVP_OK;
  simtvp_diag diag_;
};

// The timing side (factory row "timing").
std::unique_ptr<simt_subsystem> make_simt_timing(sc_core::sc_module_name name, const simt_env &env,
                                                 simtvp_diag *diag);

}  // namespace simtvp

#endif  // SIMTVP_TLM_SIMT_TIMING_H
