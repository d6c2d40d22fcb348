// mempart_shell — the memory-partition shell (mempart_shell.h).
#include "mempart_shell.h"

extern "C" {
#include "stats.h"
}

#include <string>

namespace simtvp {

mempart_shell::mempart_shell(sc_core::sc_module_name name, const mempart_config &cfg,
                             domain_driver &driver, bool parallel, bool sysmem_link)
    : sc_core::sc_module(name), parallel_(parallel), messages_(cfg.msg) {
  mempart_config c = cfg;
  c.ports = {this, &mempart_shell::on_reply, &mempart_shell::on_dram, &mempart_shell::on_reply_timed,
             sysmem_link ? &mempart_shell::on_hub : nullptr};
  if (parallel_) {
    if (c.stats) c.stats = stats_shard_create(c.stats, deferring_flag());
    if (!c.pool) c.pool = req_pool_ = mem_req_pool_create();
    mem_req_pool_set_shared(c.pool, true);
    c.msg = messages_.port();
  }
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  if (mempart_create(&c, &mp_, &diag) != SIMTVP_OK) {
    SC_REPORT_ERROR(this->name(), diag.message);
    return;
  }
  uint32_t n = cfg.n_sub;
  for (uint32_t s = 0; s < n; s++) {
    from_icnt_.push_back(
        std::make_unique<msg_in>(("from_icnt_" + std::to_string(s)).c_str(), *this, s));
    to_icnt_.push_back(
        std::make_unique<msg_out>(("to_icnt_" + std::to_string(s)).c_str(), *this, n + s, pool_));
  }
  to_dram_ = std::make_unique<req_out>("to_dram", *this, 2 * n, pool_);
  if (sysmem_link) to_hub_ = std::make_unique<req_out>("to_hub", *this, 2 * n + 1, pool_);
  if (mempart_is_timed(mp_))
    for (auto &l : from_icnt_) l->set_timed(this);
  driver.add(*this);
}

mempart_shell::~mempart_shell() {
  if (mp_) mempart_destroy(mp_);
  mem_req_pool_destroy(req_pool_);
}

void mempart_shell::set_trace(std::ostream *os) {
  for (auto &l : from_icnt_) l->set_trace(os);
  for (auto &l : to_icnt_) l->set_trace(os);
  if (to_dram_) to_dram_->set_trace(os);
  if (to_hub_) to_hub_->set_trace(os);
}

bool mempart_shell::on_reply(void *ctx, uint32_t sub, mem_req *req, uint64_t) {
  return static_cast<mempart_shell *>(ctx)->to_icnt_[sub]->send(req);
}

bool mempart_shell::on_dram(void *ctx, mem_req *req, uint64_t) {
  return static_cast<mempart_shell *>(ctx)->to_dram_->send(req);
}

bool mempart_shell::on_hub(void *ctx, mem_req *req, uint64_t) {
  return static_cast<mempart_shell *>(ctx)->to_hub_->send(req);
}

bool mempart_shell::on_reply_timed(void *ctx, uint32_t sub, mem_req *req, uint64_t at, uint64_t) {
  auto *self = static_cast<mempart_shell *>(ctx);
  msg_out &o = *self->to_icnt_[sub];
  if (!o.timed()) return false;
  const sc_core::sc_time now = sc_core::sc_time_stamp(), t = self->domain().time_of(at);
  o.post(req, t > now ? t - now : sc_core::SC_ZERO_TIME);  // (after a parallel tick: serially)
  return true;
}

bool mempart_shell::timed_transport(uint32_t sub, mem_req *r, sc_core::sc_time &delay) {
  const clock_domain &clk = domain();
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  uint64_t at = 0;
  mempart_timed_status st = mempart_access_timed(mp_, sub, r, clk.cycle_after(now + delay), &at);
  uint64_t next = mempart_next_event(mp_); // misses wait for the DRAM: their requests leave later
  if (next != MEMPART_NEVER) wake_at(next);
  if (st == MEMPART_DEFERRED) return false;
  delay = clk.time_of(at) - now;
  return true;
}

void mempart_shell::tick(uint64_t c) {
  cycle_ = c;
  uint32_t n = sub_partitions();
  for (uint32_t s = 0; s < n; s++)
    if (to_icnt_[s]->take_ready()) mempart_reply_ready(mp_, s, c);
  if (to_dram_->take_ready()) mempart_dram_ready(mp_, c);
  if (to_hub_ && to_hub_->take_ready()) mempart_dram_ready(mp_, c);
  for (uint32_t s = 0; s < n; s++) {
    msg_in &l = *from_icnt_[s];
    if (mem_req *r = l.peek())
      if (mempart_push(mp_, s, r, c)) l.pop();
  }
  if (mem_req *r = to_dram_->peek_response())
    if (mempart_dram_return(mp_, r, c)) to_dram_->pop_response();
  if (to_hub_)
    if (mem_req *r = to_hub_->peek_response())
      if (mempart_dram_return(mp_, r, c)) to_hub_->pop_response();
  mempart_advance(mp_, c);
  // For next_tick, computed on the thread that ticked the partition (its deferred work does not
  // touch the model).
  uint64_t next = mempart_next_event(mp_);
  model_next_ = next == MEMPART_NEVER ? never : next;
}

uint64_t mempart_shell::next_tick() const {
  const uint64_t c1 = cycle_ + 1;
  uint32_t n = sub_partitions();
  for (uint32_t s = 0; s < n; s++) {
    if (to_icnt_[s]->retry_next_edge()) return c1;
    if (from_icnt_[s]->front() && mempart_can_accept(mp_, s, c1)) return c1;
  }
  if (to_dram_->retry_next_edge()) return c1;
  if (const mem_req *r = to_dram_->front_response())
    if (mempart_can_return(mp_, r)) return c1;
  if (to_hub_) {
    if (to_hub_->retry_next_edge()) return c1;
    if (const mem_req *r = to_hub_->front_response())
      if (mempart_can_return(mp_, r)) return c1;
  }
  return model_next_;
}

}  // namespace simtvp
