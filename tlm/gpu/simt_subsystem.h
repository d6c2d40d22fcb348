// simt_subsystem — the SIMT side of the GPU top module behind one small interface, so the
// functional side (models/func through gpu_simt_func) and the timing sides (CA/AT SIMT clusters,
// interconnect, memory partitions and DRAM, each its own shell) are chosen by configuration
// (-simt_model func|at|ca, -simt_model_override) without touching the rest of the top.
//
// The top hands a SIMT side everything it may need in a simt_env, gives its gpu_simt_port to the
// CTA dispatcher (models/gpuctl gpu_disp.h) and forwards CTA completions the side reports through
// env.cta_done to the dispatcher at the current simulated time. A timing side is a SystemC
// module tree of its own (created as children of the top, so its processes run in the same
// simulation); the functional side has no processes and runs a CTA to completion inside
// launch_cta.
//
// Adding a side: implement simt_subsystem and add one row to the factory table in
// simt_factory.cc (docs/platform.md "Adding a SIMT side").
#ifndef SIMTVP_TLM_SIMT_SUBSYSTEM_H
#define SIMTVP_TLM_SIMT_SUBSYSTEM_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

#include <systemc>

#include "devmem.h"
#include "func.h"
#include "gpu_config.h"
#include "gpu_disp.h"
#include "gpu_params.h"
#include "hub_shell.h"
#include "simtvp_diag.h"
#include "stats.h"

namespace simtvp {

// What the GPU top gives a SIMT side. Pointers stay valid for the side's lifetime.
struct simt_env {
  const gpu_config *config = nullptr; // the whole configuration (timing sides read their options)
  const gpu_params *params = nullptr; // derived parameters (caps, func_config, heap placement)
  devmem *mem = nullptr;              // the device-memory store (real data, DESIGN.md section 3)
  stats *st = nullptr;                // statistics sink; may be null
  func_ports func = {};               // device printf, clock, globaltimer for the functional engine
  simtvp_msg_port messages = {};      // fault reports and warnings
  // A CTA finished on core sm: the top passes it to the dispatcher at sc_time_stamp(). May be
  // called from inside launch_cta (functional side) or from the side's own processes.
  std::function<void(uint32_t sm, uint32_t kernel_slot, const gpu_cta_result &result)> cta_done;
  // The side has work due: the top re-evaluates when it sleeps (a timing side normally needs
  // this only if it changes the control side's state outside cta_done).
  std::function<void()> wake;
  // The side stopped the kernel in kernel_slot (a simulation limit, a deadlock): the
  // top tells the dispatcher (gpuctl_abort_kernel) to issue none of its remaining CTAs and to drop
  // those still inside -gpgpu_TB_launch_latency, so the kernel ends once its resident CTAs are
  // reported, without waiting out -gpgpu_kernel_launch_latency. Always set by gpu_top.
  std::function<void(uint32_t kernel_slot, const gpu_cta_result &why)> abort_kernel;
  // How a timing side's hub reaches system memory: the bus address of a GPU address (the
  // store's external mappings), the timing transaction on the DMA initiator. Always set by
  // gpu_top.
  sysmem_port sysmem;
  // The physical address of a virtual one whose page the functional engine translated onto system
  // memory through a VIDMEM entry (a MAP_SYSMEM window: managed pages mapped remotely); the address
  // itself otherwise. Lets a side whose requests carry virtual addresses tag them SYSMEM. May be
  // empty; callable from several threads.
  std::function<uint64_t(uint64_t)> physical;
};

class simt_subsystem {
 public:
  virtual ~simt_subsystem() = default;
  // The port handed to the CTA dispatcher (gpuctl_ports.simt). A side bumps gpu_sim_insn (thread
  // instructions) in env.st; the top counts gpu_sim_cycle and the kernel boundaries.
  virtual gpu_simt_port port() = 0;
  // Hardware reset: CTAs in flight are dropped without completion (the dispatcher is reset too).
  virtual void reset() = 0;
  // Nothing resident or in flight (the top is idle only when the SIMT side is).
  virtual bool idle() const = 0;
  // Name of the side for messages and the statistics JSON ("func", "timing" …).
  virtual const char *model_name() const = 0;
  // The last fault's full report (kernel, CTA, thread, PC, PTX line, address); OK when none.
  virtual const simtvp_diag &last_fault() const = 0;
  // A coherence invalidation from the system's directory (docs/system-modes.md): the GPU's caches
  // that may hold the line at GPU address gpu_addr, which lies at bus address `bus` (what its
  // requests were routed by, mem_req_route_addr), drop it; returns the lines dropped. The
  // functional GPU models no caches (0).
  virtual uint32_t coherent_invalidate(uint64_t gpu_addr, uint64_t bus) {
    (void)gpu_addr;
    (void)bus;
    return 0;
  }
};

// Creates a SIMT side; parent is the GPU top (timing sides create their modules under it).
using simt_factory = std::unique_ptr<simt_subsystem> (*)(sc_core::sc_module_name name,
                                                          const simt_env &env, simtvp_diag *diag);

// The factory for a side ("func", "timing"), or nullptr when this build has none by that name.
simt_factory find_simt_factory(const char *model);

// The functional side (models/func through gpu_simt_func).
std::unique_ptr<simt_subsystem> make_simt_func(sc_core::sc_module_name name, const simt_env &env,
                                               simtvp_diag *diag);

}  // namespace simtvp

#endif  // SIMTVP_TLM_SIMT_SUBSYSTEM_H
