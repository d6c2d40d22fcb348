// domain_driver — ticks the blocks of one clock domain at the edges where they have work
// (domain_driver.h).
#include "domain_driver.h"

#include <string>

namespace simtvp {

void clocked::wake_at(uint64_t cycle) {
  if (driver_) driver_->request(slot_, cycle);
}

void clocked::wake_after(const sc_core::sc_time &t) {
  if (driver_) driver_->request(slot_, driver_->domain().cycle_after(t));
}

const clock_domain &clocked::domain() const {
  if (!driver_) SC_REPORT_FATAL("simtvp/clocked", "block used before it was added to a driver");
  return driver_->domain();
}

domain_driver::domain_driver(sc_core::sc_module_name name, const clock_domain &domain)
    : sc_core::sc_module(name), domain_(domain) {
  SC_HAS_PROCESS(domain_driver);
  SC_METHOD(run); // runs once at initialisation (time 0), then only when woken
  sensitive << wake_;
}

void domain_driver::add(clocked &block) {
  if (block.driver_) {
    SC_REPORT_ERROR(name(), "a block was added to a second domain driver");
    return;
  }
  block.driver_ = this;
  block.slot_ = slots_.size();
  slots_.push_back({&block, clocked::never, clocked::never});
}

void domain_driver::schedule(uint64_t cycle) {
  if (cycle >= scheduled_) return; // an earlier (or the same) notification is pending
  scheduled_ = cycle;
  sc_core::sc_time at = domain_.time_of(cycle), now = sc_core::sc_time_stamp();
  wake_.notify(at > now ? at - now : sc_core::SC_ZERO_TIME);
}

void domain_driver::request(size_t index, uint64_t cycle) {
  if (index >= slots_.size()) return;
  if (started_) { /* only later edges: the current one may already have been run */
    uint64_t first = domain_.cycle_after(sc_core::sc_time_stamp());
    if (cycle < first) cycle = first;
  }
  slot &s = slots_[index];
  if (cycle < s.due) {
    if (s.due < s.later) s.later = s.due;
    s.due = cycle;
  } else if (cycle > s.due && cycle < s.later) {
    s.later = cycle; // e.g. an arrival for the next edge before this edge's tick has run
  }
  if (running_ || !started_) return; // run() schedules what is due when it finishes
  schedule(cycle);
}

void domain_driver::run() {
  bool initialisation = !started_;
  started_ = true;
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const uint64_t c = domain_.cycle_at(now);
  if (scheduled_ <= c) scheduled_ = clocked::never; // this is the notification that fired
  if (!initialisation) activations_++;
  if (domain_.time_of(c) == now) {
    running_ = true;
    for (slot &s : slots_) {
      if (s.due > c) continue;
      s.due = s.later; // requests for later edges survive this tick; wakes during it add more
      s.later = clocked::never;
      ticks_++;
      s.block->tick(c);
      uint64_t n = s.block->next_tick();
      if (n <= c) n = c + 1; // a block cannot ask for the edge it is being ticked at
      if (n < s.due) {
        if (s.due < s.later) s.later = s.due;
        s.due = n;
      }
    }
    running_ = false;
  }
  uint64_t next = clocked::never;
  for (const slot &s : slots_)
    if (s.due < next) next = s.due;
  if (next != clocked::never) {
    if (domain_.time_of(next) <= now) next = c + 1; // never an edge that has passed
    schedule(next);
  }
}

}  // namespace simtvp
