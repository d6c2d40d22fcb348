// dram_shell — the DRAM-controller shell (dram_shell.h).
#include "dram_shell.h"

extern "C" {
#include "stats.h"
}

namespace simtvp {

dram_shell::dram_shell(sc_core::sc_module_name name, const dram_config &cfg, domain_driver &driver,
                       bool parallel)
    : sc_core::sc_module(name), parallel_(parallel) {
  in_ = std::make_unique<req_in>("in", *this, 0);
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  dram_config c = cfg;
  if (parallel_ && c.stats) c.stats = stats_shard_create(c.stats, deferring_flag());
  if (dram_create(&c, dram_ports{this, &dram_shell::on_complete}, &d_, &diag) != SIMTVP_OK) {
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
  if (s->busy_hook_ && s->held_ && --s->held_ == 0) s->serially(&dram_shell::deliver_busy, s, nullptr, 0, 0);
  return true;
}

// The observer is outside the block: after a parallel tick, in the serial phase (same time).
void dram_shell::deliver_busy(void *ctx, const void *, size_t, uint64_t busy) {
  static_cast<dram_shell *>(ctx)->busy_hook_(busy != 0);
}

void dram_shell::tick(uint64_t c) {
  cycle_ = c;
  if (in_->take_ready()) dram_complete_ready(d_);
  if (mem_req *r = in_->peek())
    if (dram_push(d_, r, c)) {
      in_->pop();
      if (busy_hook_ && held_++ == 0) serially(&dram_shell::deliver_busy, this, nullptr, 0, 1);
    }
  dram_advance(d_, c);
  // For next_tick, computed on the thread that ticked the channel (its deferred work, the
  // responses, does not touch the controller).
  uint64_t next = dram_next_event(d_);
  model_next_ = next == DRAM_NEVER ? never : next;
}

uint64_t dram_shell::next_tick() const {
  if (in_->retry_next_edge()) return cycle_ + 1;
  if (const mem_req *r = in_->front())
    if (dram_can_accept(d_, r->is_write)) return cycle_ + 1;
  return model_next_;
}

}  // namespace simtvp
