// hub_shell — the hub's shell (hub_shell.h).
#include "hub_shell.h"

#include <string>

namespace simtvp {

hub_shell::hub_shell(sc_core::sc_module_name name, const hub_config &cfg, domain_driver &driver, sysmem_port port)
    : sc_core::sc_module(name), port_(std::move(port)) {
  for (uint32_t i = 0; i < cfg.n_inputs; i++)
    in_.push_back(std::make_unique<req_in>(("in_" + std::to_string(i)).c_str(), *this, i));
  hub_config c = cfg;
  c.ports = {this, &hub_shell::on_translate, &hub_shell::on_issue, &hub_shell::on_reply};
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  if (hub_create(&c, &h_, &diag) != SIMTVP_OK) {
    SC_REPORT_ERROR(this->name(), diag.message);
    return;
  }
  driver.add(*this);
}

hub_shell::~hub_shell() {
  if (h_) hub_destroy(h_);
}

void hub_shell::set_trace(std::ostream *os) {
  for (auto &l : in_) l->set_trace(os);
}

uint64_t hub_shell::cycles_of(uint64_t now, const sc_core::sc_time &d) const {
  if (d == sc_core::SC_ZERO_TIME) return 0;
  const clock_domain &clk = domain();
  return clk.cycle_from(clk.time_of(now) + d) - now;
}

bool hub_shell::on_translate(void *ctx, const mem_req *req, uint64_t now, uint64_t *bus, uint64_t *cycles) {
  auto *s = static_cast<hub_shell *>(ctx);
  *cycles = 0;
  if (!s->port_.translate) {
    *bus = req->addr;
    return true;
  }
  sc_core::sc_time extra = sc_core::SC_ZERO_TIME;
  bool ok = s->port_.translate(*req, bus, &extra);
  *cycles = s->cycles_of(now, extra);
  return ok;
}

uint64_t hub_shell::on_issue(void *ctx, const mem_req *req, uint64_t bus, uint64_t now) {
  auto *s = static_cast<hub_shell *>(ctx);
  if (!s->port_.transport) return 0;
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  if (!s->port_.transport(*req, bus, &delay)) s->bus_errors_++;
  return s->cycles_of(now, delay);
}

bool hub_shell::on_reply(void *ctx, uint32_t input, mem_req *req, uint64_t) {
  return static_cast<hub_shell *>(ctx)->in_[input]->respond(req);
}

void hub_shell::tick(uint64_t c) {
  cycle_ = c;
  const uint32_t n = inputs();
  for (uint32_t i = 0; i < n; i++)
    if (in_[i]->take_ready()) hub_reply_ready(h_, i, c);
  for (uint32_t i = 0; i < n; i++)
    if (mem_req *r = in_[i]->peek())
      if (hub_push(h_, i, r, c)) in_[i]->pop();
  hub_advance(h_, c);
}

uint64_t hub_shell::next_tick() const {
  const uint64_t c1 = cycle_ + 1;
  for (const auto &l : in_) {
    if (l->retry_next_edge()) return c1;
    if (l->front() && hub_can_accept(h_)) return c1;
  }
  uint64_t next = hub_next_event(h_);
  if (next == HUB_NEVER) return never;
  return next > cycle_ ? next : c1;
}

}  // namespace simtvp
