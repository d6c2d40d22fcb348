// dram_shell — the DRAM-controller shell (dram_shell.h).
#include "dram_shell.h"

namespace simtvp {

dram_shell::dram_shell(sc_core::sc_module_name name, const dram_config &cfg, domain_driver &driver)
    : sc_core::sc_module(name) {
  in_ = std::make_unique<req_in>("in", *this, 0);
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  if (dram_create(&cfg, dram_ports{this, &dram_shell::on_complete}, &d_, &diag) != SIMTVP_OK) {
    SC_REPORT_ERROR(this->name(), diag.message);
    return;
  }
  driver.add(*this);
}

dram_shell::~dram_shell() {
  if (d_) dram_destroy(d_);
}

bool dram_shell::on_complete(void *ctx, mem_req *req, uint64_t) {
  auto *s = static_cast<dram_shell *>(ctx);
  if (!s->in_->respond(req)) return false;
  if (s->busy_hook_ && s->held_ && --s->held_ == 0) s->busy_hook_(false);
  return true;
}

void dram_shell::tick(uint64_t c) {
  cycle_ = c;
  if (in_->take_ready()) dram_complete_ready(d_);
  if (mem_req *r = in_->peek())
    if (dram_push(d_, r, c)) {
      in_->pop();
      if (busy_hook_ && held_++ == 0) busy_hook_(true);
    }
  dram_advance(d_, c);
}

uint64_t dram_shell::next_tick() const {
  if (in_->retry_next_edge()) return cycle_ + 1;
  if (const mem_req *r = in_->front())
    if (dram_can_accept(d_, r->is_write)) return cycle_ + 1;
  uint64_t next = dram_next_event(d_);
  return next == DRAM_NEVER ? never : next;
}

}  // namespace simtvp
