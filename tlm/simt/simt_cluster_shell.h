// simt_cluster_shell — a SIMT core cluster (models/simt simt_cluster: cores of any fidelity, one
// injection port, one response FIFO) as a SystemC module in the core clock domain (docs/tlm.md
// §6, docs/timing.md).
//
// Ports ↔ links:
//   - the cluster's injection port sends on `to_icnt` (a message link to the interconnect node of
//     the cluster: bind it to mem_system::cluster_in(c)); a busy link refuses and the core offers
//     the request again later;
//   - replies arrive on `from_icnt` (bind mem_system::cluster_out(c) to it) and enter the
//     cluster's response FIFO; while the FIFO is full they stay in the link, whose END_REQ is then
//     withheld (back-pressure into the interconnect);
//   - CTAs handed over with launch_cta() start at the first core edge strictly after the current
//     time (the links' timing rule 1, so the result does not depend on the order in which SystemC
//     runs processes of one instant); CTA completions leave through ports.cta_done at the edge
//     the model reports them.
// Per tick: pending CTA starts → replies that arrived → simt_cluster_advance(cycle).
//
// Timed transport (docs/tlm.md): when the interconnect behind to_icnt takes it, the cores'
// requests are timed through the memory system at once (the reply's arrival cycle comes back to
// the core, or the memory system keeps the request and replies later); replies timed by the
// memory system arrive on from_icnt by timed transport and are delivered for their cycle.
//
// Parallel ticking (`parallel` = true, the timing GPU's -sim_threads > 1; docs/tlm.md §3): the
// shell ticks on a worker thread with the other clusters; its cores count through a statistics
// shard of their sink, its request pools accept frees from other threads, and CTA completions,
// fault reports, messages and the per-tick note to the owner are delivered in the serial phase
// in the order a one-thread run gives them. Not behind a timed interconnect: a request timed at
// once needs the memory system's answer inside the tick, so such a cluster ticks on the
// simulation thread.
//
// Lifecycle: rebuild() replaces the model core by a fresh one (a stop or a GPU reset drops the
// resident CTAs). Each model generation gets its own request pool; replies to requests of an
// earlier generation are returned to their pool when they arrive, never delivered. The shell
// keeps the requests that wait for a reply (address, kind, SM, warp, sent cycle) for deadlock
// dumps.
#ifndef SIMTVP_TLM_SIMT_CLUSTER_SHELL_H
#define SIMTVP_TLM_SIMT_CLUSTER_SHELL_H

#include <cstdint>
#include <memory>
#include <vector>

#include <systemc>

#include "domain_driver.h"
#include "gpu_payload.h"
#include "link.h"

extern "C" {
#include "mem_req.h"
#include "simt.h"
#include "simt_cluster.h"
}

namespace simtvp {

// What the owner (the timing SIMT side) gets from the shell. ticked may be null.
struct simt_cluster_shell_ports {
  void *ctx = nullptr;
  void (*cta_done)(void *ctx, uint32_t sm, uint32_t kernel_slot, const gpu_cta_result *r,
                   uint64_t cycle) = nullptr;
  void (*ticked)(void *ctx, uint64_t cycle) = nullptr; // after every tick (simulation control)
  simtvp_msg_port messages{};
  // A core's structured fault or barrier-deadlock report (simt_core_ports.fault); may be null.
  void (*fault)(void *ctx, uint32_t sm, uint32_t kernel_slot, const simtvp_diag *report,
                uint64_t cycle) = nullptr;
};

class simt_cluster_shell : public sc_core::sc_module, public clocked, public timed_target {
  payload_pool pool_;  // before the links that use it

 public:
  msg_out to_icnt;   // injection: bind to mem_system::cluster_in(cluster)
  msg_in from_icnt;  // ejection: bind mem_system::cluster_out(cluster) to it

  // cfg.cores[i].pool is the shell's (set per generation); the other fields are used as given
  // (cfg.cores must stay valid for the shell's lifetime: rebuild() reads them again).
  simt_cluster_shell(sc_core::sc_module_name name, domain_driver &core_clock,
                     const simt_cluster_config &cfg, const simt_cluster_shell_ports &ports,
                     bool parallel = false);
  ~simt_cluster_shell() override;
  // The model core could be built (false: *diag says why, naming the option).
  bool ok(simtvp_diag *diag) const;

  simt_cluster *model() const { return model_; }
  uint32_t cluster() const { return cfg_.cluster; }
  // Starts CTA cta[] of k on core sm at the first edge strictly after now (k must stay valid).
  void launch_cta(uint32_t sm, const simt_kernel *k, const uint32_t cta[3]);
  // CTA starts handed over and not yet given to the model.
  uint32_t pending_launches() const { return static_cast<uint32_t>(pending_.size()); }
  // A fresh model core; pending CTA starts are dropped (the owner reports them).
  simtvp_status rebuild(simtvp_diag *diag);
  // The model is idle and nothing is pending in the shell.
  bool idle() const;
  // Asks for a tick at the next edge (the owner changed the model outside a tick, e.g. a flush).
  void poke();
  // Requests waiting for a reply (oldest first, at most max lines) and the links' state, then the
  // model's own dump (every core, every warp), one line per call.
  void dump(void (*line)(void *ctx, const char *text), void *ctx, uint32_t max_requests = 64) const;
  using sc_core::sc_module::dump;  // sc_object's dump(std::ostream &) stays visible
  // Requests of the current generation sent and not yet answered.
  size_t requests_in_flight() const { return inflight_n_; }

  void tick(uint64_t cycle) override;
  uint64_t next_tick() const override;
  // CTAs of a thread block cluster launch share barriers and shared memory across SMs: the
  // cluster then ticks on the simulation thread (the result is the same with any -sim_threads).
  bool tick_in_parallel() const override {
    return parallel_ && !to_icnt.timed() && !simt_cluster_runs_cluster_ctas(model_);
  }
  // Timed replies on from_icnt (an approximately-timed interconnect): delivered for their cycle.
  bool timed_transport(uint32_t link_id, mem_req *r, sc_core::sc_time &delay) override;

 private:
  struct pending_cta {
    uint32_t sm;
    const simt_kernel *k;
    uint32_t cta[3];
  };
  struct inflight {
    const mem_req *req = nullptr;
    uint64_t sent = 0;
  };
  static bool on_inject(void *ctx, mem_req *req, uint64_t now);
  static uint64_t on_inject_timed(void *ctx, mem_req *req, uint64_t at);
  static void on_cta_done(void *ctx, uint32_t sm, uint32_t slot, const gpu_cta_result *r, uint64_t now);
  static void on_fault(void *ctx, uint32_t sm, uint32_t slot, const simtvp_diag *report, uint64_t now);
  simtvp_status create_model(simtvp_diag *diag);
  // To the owner, in the serial phase when the tick is parallel.
  void cta_done(uint32_t sm, uint32_t slot, const gpu_cta_result &r, uint64_t cycle);
  static void deliver_cta_done(void *ctx, const void *data, size_t, uint64_t cycle);
  static void deliver_fault(void *ctx, const void *data, size_t, uint64_t cycle);
  static void deliver_ticked(void *ctx, const void *, size_t, uint64_t cycle);
  void track(const mem_req *r, uint64_t cycle);
  void untrack(const mem_req *r);
  size_t slot_of(const mem_req *r) const;

  simt_cluster_config cfg_;
  std::vector<simt_core_config> cores_;
  simt_cluster_shell_ports ports_;
  simt_cluster *model_ = nullptr;
  mem_req_pool *req_pool_ = nullptr;               // the current generation's
  std::vector<mem_req_pool *> retired_pools_;      // earlier generations' (requests may come back)
  std::vector<pending_cta> pending_, starting_;
  std::vector<inflight> inflight_;                 // open addressing by request pointer
  size_t inflight_n_ = 0;
  simtvp_status status_ = SIMTVP_OK;
  simtvp_diag diag_;
  uint64_t cycle_ = 0;
  bool parallel_ = false;
  uint64_t model_next_ = never;  // simt_cluster_next_event after the last tick
  serial_messages messages_;  // the model's messages (deferred in parallel ticks)
};

}  // namespace simtvp

#endif  // SIMTVP_TLM_SIMT_CLUSTER_SHELL_H
