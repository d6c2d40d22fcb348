// icnt_shell — the interconnect (models/icnt) as a SystemC module in the interconnect clock
// domain: one message-link target socket per node for injection (`in(node)`) and one initiator
// socket per node for ejection (`out(node)`). Nodes 0 .. n_shader_nodes-1 are SIMT clusters, then
// the memory sub-partitions (icnt.h).
//
// Per tick: requests that arrived on in(n) are injected at node n (a refused injection stays in
// the link, whose END_REQ is then withheld once its one-item inbox is full — back-pressure into
// the sender); the network advances; packets that have arrived at node n leave on out(n), one per
// edge, and stay in the network's ejection buffer while out(n) is busy — back-pressure into the
// network. The shell holds no GPU logic: routing is the model's, req->dst_node the sender's.
//
// With an approximately-timed network (-icnt_model at) the in(node) links also take timed
// transport: the packet is timed through the network at once (icnt_traverse) and handed on by
// timed transport when the destination takes it (an AT partition or cluster), the reply of a
// request coming back in the same call; toward an event-driven destination it waits in the
// network's ejection buffer and leaves on out(node) as any packet (the sender is told the
// request was kept: its reply comes on the links).
#ifndef SIMTVP_TLM_MEM_ICNT_SHELL_H
#define SIMTVP_TLM_MEM_ICNT_SHELL_H

#include <memory>
#include <vector>

#include <systemc>

#include "domain_driver.h"
#include "gpu_payload.h"
#include "link.h"

extern "C" {
#include "icnt.h"
}

namespace simtvp {

class icnt_shell : public sc_core::sc_module, public clocked, public timed_target {
 public:
  // cfg.ports is the shell's; cfg.stats is used as given. Errors in cfg: SC_REPORT_ERROR.
  icnt_shell(sc_core::sc_module_name name, const icnt_config &cfg, domain_driver &driver);
  ~icnt_shell() override;

  uint32_t nodes() const { return static_cast<uint32_t>(in_.size()); }
  msg_in &in(uint32_t node) { return *in_.at(node); }    // target socket "in_<node>"
  msg_out &out(uint32_t node) { return *out_.at(node); } // initiator socket "out_<node>"
  icnt *model() const { return net_; }
  // Writes every link's phases to os (nullptr: off).
  void set_trace(std::ostream *os);

  void tick(uint64_t cycle) override;
  uint64_t next_tick() const override;
  void link_activity(uint32_t link_id) override;
  // Timed transport on in(node) (an approximately-timed network only, docs/tlm.md).
  bool timed_transport(uint32_t node, mem_req *r, sc_core::sc_time &delay) override;

 private:
  static void on_arrived(void *ctx, uint32_t node, uint64_t now);
  static void on_inject_ready(void *ctx, uint32_t node, uint64_t now);
  void mark_inject(uint32_t node);
  void mark_eject(uint32_t node);

  icnt *net_ = nullptr;
  payload_pool pool_;
  std::vector<std::unique_ptr<msg_in>> in_;
  std::vector<std::unique_ptr<msg_out>> out_;
  // Worklists of nodes with something to inject / eject (no scan over every node per tick).
  std::vector<uint32_t> inject_work_, eject_work_, scratch_;
  std::vector<uint8_t> inject_marked_, eject_marked_, inject_blocked_;
  bool inject_retry_ = false;
  uint64_t cycle_ = 0;
};

}  // namespace simtvp

#endif  // SIMTVP_TLM_MEM_ICNT_SHELL_H
