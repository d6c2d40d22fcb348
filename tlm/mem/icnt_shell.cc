// icnt_shell — the interconnect shell (icnt_shell.h).
#include "icnt_shell.h"

#include <string>

namespace simtvp {

icnt_shell::icnt_shell(sc_core::sc_module_name name, const icnt_config &cfg, domain_driver &driver)
    : sc_core::sc_module(name) {
  icnt_config c = cfg;
  c.ports = {this, &icnt_shell::on_arrived, &icnt_shell::on_inject_ready};
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  if (icnt_create(&c, &net_, &diag) != SIMTVP_OK) {
    SC_REPORT_ERROR(this->name(), diag.message);
    return;
  }
  uint32_t n = icnt_nodes(net_);
  for (uint32_t i = 0; i < n; i++) {
    in_.push_back(std::make_unique<msg_in>(("in_" + std::to_string(i)).c_str(), *this, i));
    out_.push_back(
        std::make_unique<msg_out>(("out_" + std::to_string(i)).c_str(), *this, n + i, pool_));
  }
  if (icnt_is_timed(net_))
    for (auto &l : in_) l->set_timed(this);
  inject_marked_.assign(n, 0);
  eject_marked_.assign(n, 0);
  inject_blocked_.assign(n, 0);
  inject_work_.reserve(n);
  eject_work_.reserve(n);
  scratch_.reserve(n);
  driver.add(*this);
}

icnt_shell::~icnt_shell() {
  if (net_) icnt_destroy(net_);
}

void icnt_shell::set_trace(std::ostream *os) {
  for (auto &l : in_) l->set_trace(os);
  for (auto &l : out_) l->set_trace(os);
}

void icnt_shell::mark_inject(uint32_t node) {
  if (inject_marked_[node]) return;
  inject_marked_[node] = 1;
  inject_work_.push_back(node);
}

void icnt_shell::mark_eject(uint32_t node) {
  if (eject_marked_[node]) return;
  eject_marked_[node] = 1;
  eject_work_.push_back(node);
}

void icnt_shell::link_activity(uint32_t link_id) {
  uint32_t n = nodes();
  if (link_id < n) mark_inject(link_id);
  else if (link_id < 2 * n) mark_eject(link_id - n);
}

void icnt_shell::on_arrived(void *ctx, uint32_t node, uint64_t) {
  static_cast<icnt_shell *>(ctx)->mark_eject(node);
}

void icnt_shell::on_inject_ready(void *ctx, uint32_t node, uint64_t) {
  auto *self = static_cast<icnt_shell *>(ctx);
  if (self->inject_blocked_[node]) {
    self->inject_blocked_[node] = 0;
    self->inject_retry_ = true;
  }
}

void icnt_shell::tick(uint64_t c) {
  cycle_ = c;
  inject_retry_ = false;
  // 1. Injection: what arrived on in(n) before this edge enters the network at node n.
  scratch_.swap(inject_work_);
  inject_work_.clear();
  for (uint32_t node : scratch_) inject_marked_[node] = 0;
  for (uint32_t node : scratch_) {
    msg_in &l = *in_[node];
    while (mem_req *r = l.peek()) {
      if (!icnt_inject(net_, node, r, c)) {
        inject_blocked_[node] = 1; // the model calls inject_ready when it has room
        break;
      }
      l.pop();
    }
    if (!l.empty()) mark_inject(node);
  }
  // 2. The network.
  icnt_advance(net_, c);
  // 3. Ejection: one packet per node and edge, while the link can take it.
  scratch_.swap(eject_work_);
  eject_work_.clear();
  for (uint32_t node : scratch_) eject_marked_[node] = 0;
  for (uint32_t node : scratch_) {
    mem_req *r = icnt_peek(net_, node, c);
    if (!r) continue;
    if (out_[node]->send(r)) icnt_pop(net_, node, c);
    if (icnt_peek(net_, node, c)) mark_eject(node); // more to go (now or when out is free)
  }
}

bool icnt_shell::timed_transport(uint32_t node, mem_req *r, sc_core::sc_time &delay) {
  const clock_domain &clk = domain();
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const uint64_t t = clk.cycle_after(now + delay);
  const bool reply = r->is_reply, wants_reply = r->needs_reply;
  const uint32_t dst = r->dst_node;
  r->src_node = static_cast<uint16_t>(node);
  msg_out &o = *out_[dst];
  if (!o.timed()) { // an event-driven destination takes it from the ejection buffer
    icnt_inject_timed(net_, node, r, t);
    uint64_t next = icnt_next_event(net_);
    if (next != ICNT_NEVER) wake_at(next);
    return reply; // a reply has been handed over; a request's reply comes on the links
  }
  sc_core::sc_time d = clk.time_of(icnt_traverse(net_, node, r, t)) - now;
  bool done = o.transport(r, d);
  if (reply) return true;
  if (!done) return false; // the destination keeps the request
  if (!wants_reply) {      // a write the destination took (and owns)
    delay = d;
    return true;
  }
  // r is now the reply, leaving the destination at now + d, back to `node`.
  delay = clk.time_of(icnt_traverse(net_, dst, r, clk.cycle_after(now + d))) - now;
  return true;
}

uint64_t icnt_shell::next_tick() const {
  uint64_t next = icnt_next_event(net_);
  if (next == ICNT_NEVER) next = never;
  if (inject_retry_) return cycle_ + 1;
  for (uint32_t node : eject_work_)
    if (!out_[node]->awaiting()) return cycle_ + 1; // free again at the next edge
  return next;
}

}  // namespace simtvp
