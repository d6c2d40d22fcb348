// hub_shell — the GPU's hub (models/hub: the path from the memory partitions to system memory) as
// a SystemC module in the L2 clock domain.
//
// Sockets: one request-link target `in(i)` per input (a memory partition's link toward system
// memory); the reply to a request goes back on the link it came by. What the hub needs from the
// GPU around it comes as functions (sysmem_port): the translation of a GPU address to a bus
// address, and the bus transaction itself (the GPU top issues it on its DMA initiator and returns
// the delay the target annotated). Per tick: ready notes (hub_reply_ready), at most one request per
// input (hub_push; refused: END_REQ withheld upstream), hub_advance.
#ifndef SIMTVP_TLM_MEM_HUB_SHELL_H
#define SIMTVP_TLM_MEM_HUB_SHELL_H

#include <functional>
#include <memory>
#include <vector>

#include <systemc>

#include "domain_driver.h"
#include "link.h"

extern "C" {
#include "hub.h"
}

namespace simtvp {

// How the hub reaches the system (provided by the GPU top; tests give their own).
struct sysmem_port {
  // GPU address → bus address; *extra: translation time (an IOMMU walk). false: no translation.
  std::function<bool(const mem_req &req, uint64_t *bus, sc_core::sc_time *extra)> translate;
  // The bus transaction for req at `bus` (req.size bytes; a read, or a write carrying what memory
  // holds; an atomic as a read) at the current time: false on a bus error; *delay: what the target
  // annotated (the system's time to answer).
  std::function<bool(const mem_req &req, uint64_t bus, sc_core::sc_time *delay)> transport;
  // The aperture of a GPU address the device-memory store does not hold (optional; the pages the
  // system IOMMU translates, -system_mode shared_va: MEM_APERTURE_SYSMEM, and its bus address in
  // *bus when bus is not null).
  std::function<uint8_t(uint64_t addr, uint64_t *bus)> aperture_of;
};

class hub_shell : public sc_core::sc_module, public clocked {
 public:
  // cfg.ports are the shell's. Errors: SC_REPORT_ERROR with the model's diag.
  hub_shell(sc_core::sc_module_name name, const hub_config &cfg, domain_driver &driver, sysmem_port port);
  ~hub_shell() override;

  req_in &in(uint32_t i) { return *in_.at(i); }  // "in_<i>"
  uint32_t inputs() const { return static_cast<uint32_t>(in_.size()); }
  hub *model() const { return h_; }
  void set_trace(std::ostream *os);
  uint64_t bus_errors() const { return bus_errors_; }

  void tick(uint64_t cycle) override;
  uint64_t next_tick() const override;

 private:
  static bool on_translate(void *ctx, const mem_req *req, uint64_t now, uint64_t *bus, uint64_t *cycles);
  static uint64_t on_issue(void *ctx, const mem_req *req, uint64_t bus, uint64_t now);
  static bool on_reply(void *ctx, uint32_t input, mem_req *req, uint64_t now);
  uint64_t cycles_of(uint64_t now, const sc_core::sc_time &d) const;

  hub *h_ = nullptr;
  sysmem_port port_;
  std::vector<std::unique_ptr<req_in>> in_;
  uint64_t cycle_ = 0, bus_errors_ = 0;
};

}  // namespace simtvp

#endif  // SIMTVP_TLM_MEM_HUB_SHELL_H
