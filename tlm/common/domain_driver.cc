// domain_driver — ticks the blocks of one clock domain at the edges where they have work
// (domain_driver.h).
#include "domain_driver.h"

#include <cstring>
#include <string>

#include "worker_pool.h"

namespace simtvp {

namespace {
// The block whose parallel tick this host thread runs (clocked::current_parallel).
thread_local clocked *t_current = nullptr;
}  // namespace

clocked *clocked::current_parallel() { return t_current; }

void clocked::serially(deferred_fn fn, void *ctx, const void *data, size_t bytes, uint64_t arg) {
  if (!deferring_) {
    fn(ctx, bytes ? data : nullptr, bytes, arg);
    return;
  }
  size_t offset = deferred_data_.size();
  if (bytes) {
    deferred_data_.resize(offset + bytes);
    std::memcpy(deferred_data_.data() + offset, data, bytes);
  }
  deferred_.push_back({fn, ctx, offset, bytes, arg});
}

void serial_messages::emit(void *ctx, simtvp_severity severity, const char *text) {
  auto *self = static_cast<serial_messages *>(ctx);
  if (clocked *b = clocked::current_parallel())
    b->serially(&serial_messages::deliver, self, text, std::strlen(text) + 1, severity);
  else if (self->to_.emit)
    self->to_.emit(self->to_.ctx, severity, text);
}

void serial_messages::deliver(void *ctx, const void *text, size_t, uint64_t severity) {
  auto *self = static_cast<serial_messages *>(ctx);
  if (self->to_.emit)
    self->to_.emit(self->to_.ctx, static_cast<simtvp_severity>(severity), static_cast<const char *>(text));
}

void clocked::run_deferred() {
  // Capacity stays: after the first busy edges a phase allocates nothing.
  for (const deferred &d : deferred_)
    d.fn(d.ctx, d.bytes ? deferred_data_.data() + d.offset : nullptr, d.bytes, d.arg);
  deferred_.clear();
  deferred_data_.clear();
}

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
  due_.resize(slots_.size());
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
  if (running_) { // run() schedules what is due when it finishes
    if (s.due > edge_ && s.due < requested_) requested_ = s.due; // (blocks due now: run() reads them)
    return;
  }
  if (!started_) return;
  schedule(cycle);
}

void domain_driver::run() {
  bool initialisation = !started_;
  started_ = true;
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const uint64_t c = domain_.cycle_at(now);
  if (scheduled_ <= c) scheduled_ = clocked::never; // this is the notification that fired
  if (!initialisation) activations_++;
  uint64_t next = clocked::never;
  if (domain_.time_of(c) == now) {
    running_ = true;
    edge_ = c;
    requested_ = clocked::never;
    // Wakes during this edge are for later edges (request() clamps them), so the blocks due now
    // are known before the first tick. One pass over the blocks: those due now, and the earliest
    // edge of the others — which only requests can bring forward (requested_), while the ticked
    // blocks' own are known after their ticks. (A second pass after the ticks over every block
    // was most of the driver's time: 81 blocks on QV100 for ~4 ticks an edge with interval cores.)
    const slot *slots = slots_.data();
    const size_t n = slots_.size();
    size_t *due_now = due_.data(), m = 0;
    for (size_t i = 0; i < n; i++) {
      const uint64_t due = slots[i].due;
      if (due <= c) due_now[m++] = i;
      else if (due < next) next = due;
    }
    due_n_ = m;
    for (size_t k = 0; k < due_n_;) {
      slot &s = slots_[due_[k]];
      if (pool_ && s.block->tick_in_parallel()) {
        // A run of parallel blocks: one phase (a lone block is ticked on this thread, the same
        // way: deferred work after the listeners, so what it reads is what it reads in a phase).
        size_t e = k + 1;
        while (e < due_n_ && slots_[due_[e]].block->tick_in_parallel()) e++;
        tick_parallel(k, e, c);
        k = e;
        continue;
      }
      tick_one(s, c);
      k++;
    }
    for (size_t k = 0; k < due_n_; k++)
      if (slots_[due_[k]].due < next) next = slots_[due_[k]].due;
    if (requested_ < next) next = requested_;
    running_ = false;
  } else {
    for (const slot &s : slots_)
      if (s.due < next) next = s.due;
  }
  if (next != clocked::never) {
    if (next <= c) next = c + 1; // never an edge that has passed (c is the last edge at or before now)
    schedule(next);
  }
}

}  // namespace simtvp

namespace simtvp {

void domain_driver::after_tick(slot &s, uint64_t c) {
  uint64_t n = s.block->next_tick();
  if (n <= c) n = c + 1; // a block cannot ask for the edge it is being ticked at
  if (n < s.due) {
    if (s.due < s.later) s.later = s.due;
    s.due = n;
  }
}

void domain_driver::tick_one(slot &s, uint64_t c) {
  s.due = s.later; // requests for later edges survive this tick; wakes during it add more
  s.later = clocked::never;
  ticks_++;
  s.block->tick(c);
  after_tick(s, c);
}

void domain_driver::parallel_item(void *ctx, size_t item) {
  auto *d = static_cast<domain_driver *>(ctx);
  clocked *b = d->slots_[d->phase_slots_[item]].block;
  t_current = b;
  b->tick(d->phase_cycle_);
  t_current = nullptr;
}

// The parallel phase over due_[from, to), then its serial phase: each block's deferred work and
// next_tick in registration order — what the serial loop would have done, since the ticks of one
// edge do not see each other.
void domain_driver::tick_parallel(size_t from, size_t to, uint64_t c) {
  for (size_t k = from; k < to; k++) {
    slot &s = slots_[due_[k]];
    s.due = s.later;
    s.later = clocked::never;
    s.block->deferring_ = true;
  }
  ticks_ += to - from;
  if (to - from >= 2) {
    parallel_ticks_ += to - from;
    parallel_phases_++;
  }
  phase_slots_ = &due_[from];
  phase_cycle_ = c;
  pool_->run(to - from, &domain_driver::parallel_item, this);  // (one item: on this thread)
  // What the blocks share (statistics read by simulation control) is brought up to date first,
  // so the deferred work sees the whole edge's counts, as its last block would in a serial run.
  for (const phase_listener &l : phase_end_) l.fn(l.ctx);
  for (size_t k = from; k < to; k++) {
    slot &s = slots_[due_[k]];
    s.block->deferring_ = false;
    s.block->run_deferred();
    after_tick(s, c);
  }
}

}  // namespace simtvp
