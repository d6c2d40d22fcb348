// dram_shell — one DRAM channel controller (models/dram, any variant behind the dram ops table:
// "ca" or "at", chosen per channel by cfg.model) as a SystemC module in the DRAM clock domain.
//
// One request-link target socket `from_mempart()`: the memory partition's requests arrive as
// BEGIN_REQ; END_REQ is withheld while the controller's queue for the request's kind is full
// (after the link's one-item inbox); a finished request goes back as BEGIN_RESP on the same
// transaction, one response in flight at a time — a controller whose response is not yet ended
// keeps the next in its return queue (dram_complete_ready when the link frees).
#ifndef SIMTVP_TLM_MEM_DRAM_SHELL_H
#define SIMTVP_TLM_MEM_DRAM_SHELL_H

#include <functional>
#include <memory>

#include <systemc>

#include "domain_driver.h"
#include "link.h"

extern "C" {
#include "dram.h"
}

namespace simtvp {

class dram_shell : public sc_core::sc_module, public clocked {
 public:
  // Errors in cfg (unknown model, bad timing …): SC_REPORT_ERROR with the model's diag.
  // parallel: ticked with the other channels on worker threads (docs/tlm.md §3), statistics
  // through a shard of cfg.stats.
  dram_shell(sc_core::sc_module_name name, const dram_config &cfg, domain_driver &driver,
             bool parallel = false);
  ~dram_shell() override;

  req_in &from_mempart() { return *in_; } // target socket "in"
  dram *model() const { return d_; }
  void set_trace(std::ostream *os) { in_->set_trace(os); }

  void tick(uint64_t cycle) override;
  uint64_t next_tick() const override;
  bool tick_in_parallel() const override { return parallel_; }

  // Passive observer for timelines: told when the channel turns busy (it holds a
  // request: accepted and not yet returned) and when it turns idle again, at that DRAM edge
  // (sc_time_stamp()). Changes nothing.
  void on_busy_change(std::function<void(bool busy)> hook) { busy_hook_ = std::move(hook); }

 private:
  static bool on_complete(void *ctx, mem_req *req, uint64_t now);
  static void deliver_busy(void *ctx, const void *, size_t, uint64_t busy);

  bool parallel_ = false;
  uint64_t model_next_ = never;  // dram_next_event after the last tick
  dram *d_ = nullptr;
  std::unique_ptr<req_in> in_;
  uint64_t cycle_ = 0;
  uint64_t held_ = 0;  // requests accepted and not yet returned (for busy_hook_)
  std::function<void(bool)> busy_hook_;
};

}  // namespace simtvp

#endif  // SIMTVP_TLM_MEM_DRAM_SHELL_H
