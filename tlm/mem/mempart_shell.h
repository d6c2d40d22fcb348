// mempart_shell — one memory partition (models/mempart: L2 sub-partitions and their queues) as a
// SystemC module in the L2 clock domain.
//
// Sockets: per sub-partition a message-link target `from_icnt(s)` (requests ejected by the
// interconnect at the sub-partition's node) and a message-link initiator `to_icnt(s)` (replies,
// injected at the same node); one request-link initiator `to_dram()` toward the partition's DRAM
// controller shell, whose responses come back on the same socket; with `sysmem_link`, one more
// request-link initiator `to_hub()` toward the GPU's hub for requests to system memory
// (mem_req.aperture SYSMEM: zero-copy host memory, docs/system-modes.md).
//
// Per tick: ready notes from links that were busy (mempart_reply_ready / mempart_dram_ready), one
// request per sub-partition from the interconnect (mempart_push), one DRAM response
// (mempart_dram_return), then mempart_advance; the model's ports send on the links. A refused
// push leaves the request in the link (END_REQ withheld once its inbox is full); a refused DRAM
// return withholds END_RESP.
//
// An approximately-timed partition (-mempart_model at) also takes timed transport on from_icnt(s)
// (mempart_access_timed: a hit's reply goes back in the same call, a miss is kept) and sends the
// replies it times later by timed transport on to_icnt(s) when the interconnect takes it.
#ifndef SIMTVP_TLM_MEM_MEMPART_SHELL_H
#define SIMTVP_TLM_MEM_MEMPART_SHELL_H

#include <memory>
#include <vector>

#include <systemc>

#include "domain_driver.h"
#include "gpu_payload.h"
#include "link.h"

extern "C" {
#include "mempart.h"
}

namespace simtvp {

class mempart_shell : public sc_core::sc_module, public clocked, public timed_target {
 public:
  // cfg.ports is the shell's. Errors in cfg: SC_REPORT_ERROR with the model's diag.
  // parallel: ticked with the other partitions on worker threads (docs/tlm.md §3): statistics
  // through a shard of cfg.stats, the partition's requests from a pool other threads may free
  // into, messages in the serial phase.
  mempart_shell(sc_core::sc_module_name name, const mempart_config &cfg, domain_driver &driver,
                bool parallel = false, bool sysmem_link = false);
  ~mempart_shell() override;

  uint32_t sub_partitions() const { return static_cast<uint32_t>(from_icnt_.size()); }
  msg_in &from_icnt(uint32_t sub) { return *from_icnt_.at(sub); } // "from_icnt_<s>"
  msg_out &to_icnt(uint32_t sub) { return *to_icnt_.at(sub); }    // "to_icnt_<s>"
  req_out &to_dram() { return *to_dram_; }                        // "to_dram"
  bool has_hub_link() const { return to_hub_ != nullptr; }
  req_out &to_hub() { return *to_hub_; }                          // "to_hub" (sysmem_link only)
  mempart *model() const { return mp_; }
  void set_trace(std::ostream *os);

  void tick(uint64_t cycle) override;
  uint64_t next_tick() const override;
  bool tick_in_parallel() const override { return parallel_; }
  // Timed transport on from_icnt(sub) (an approximately-timed partition only).
  bool timed_transport(uint32_t sub, mem_req *r, sc_core::sc_time &delay) override;

 private:
  static bool on_reply(void *ctx, uint32_t sub, mem_req *req, uint64_t now);
  static bool on_reply_timed(void *ctx, uint32_t sub, mem_req *req, uint64_t at, uint64_t now);
  static bool on_dram(void *ctx, mem_req *req, uint64_t now);
  static bool on_hub(void *ctx, mem_req *req, uint64_t now);

  bool parallel_ = false;
  uint64_t model_next_ = never;  // mempart_next_event after the last tick
  serial_messages messages_;
  mem_req_pool *req_pool_ = nullptr;  // parallel: the partition's own requests (shared pool)
  mempart *mp_ = nullptr;
  payload_pool pool_;
  std::vector<std::unique_ptr<msg_in>> from_icnt_;
  std::vector<std::unique_ptr<msg_out>> to_icnt_;
  std::unique_ptr<req_out> to_dram_, to_hub_;
  uint64_t cycle_ = 0;
};

}  // namespace simtvp

#endif  // SIMTVP_TLM_MEM_MEMPART_SHELL_H
