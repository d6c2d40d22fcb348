// domain_driver — one SystemC process per clock domain that ticks the blocks of that domain.
//
// A shell that holds a model core derives from `clocked` and registers with the driver of its
// clock domain. The driver runs only at the edges where some block has work: it ticks every block
// whose due cycle has come (in registration order, so a run is deterministic), asks each for its
// next cycle, and sleeps until the earliest one — or until a block is woken because a transaction
// arrived for it. A domain whose blocks are all idle has no pending event at all: idle blocks and
// idle domains cost no host time.
//
// How a shell takes part (docs/tlm.md "Writing a shell"):
//   class my_shell : public sc_core::sc_module, public simtvp::clocked {
//     my_shell(sc_module_name n, domain_driver &drv, …) : sc_module(n) { drv.add(*this); … }
//     void tick(uint64_t cycle) override;     // inputs → model_advance(cycle) → outputs
//     uint64_t next_tick() const override;    // model_next_event, or cycle + 1 for link work
//   };
// and its link ends (link.h) wake it when a transaction arrives or a withheld phase ends.
//
// Rules the driver guarantees: tick(c) is called at simulated time time_of(c) exactly; cycles are
// strictly increasing per block; a block is never ticked twice for one cycle; blocks woken during
// a tick are ticked at a later edge.
//
// Parallel ticking (set_workers, the timing GPU's -sim_threads; docs/tlm.md §3): blocks that say
// tick_in_parallel() and are due at the same edge, consecutive in registration order, are ticked
// at the same time on the pool's host threads (the parallel phase); then, on the simulation
// thread and in registration order, each one's deferred work runs and its next_tick() is asked
// (the serial phase). The link rule (an item sent at an edge is seen at the first edge strictly
// after it) makes the ticks of one edge independent; what a parallel tick does outside its block
// waits for the serial phase: link ends defer their transfers by themselves, a shell defers the
// rest with serially(). So a run gives the same result, bit for bit, with any number of threads.
// A parallel tick must not call SystemC (events, sc_report, module methods) except reading the
// time, nor touch another block.
#ifndef SIMTVP_TLM_DOMAIN_DRIVER_H
#define SIMTVP_TLM_DOMAIN_DRIVER_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include <systemc>

#include "clock_domain.h"

extern "C" {
#include "simtvp_diag.h"
}

namespace simtvp {

class domain_driver;
class worker_pool;

class clocked {
 public:
  static constexpr uint64_t never = UINT64_MAX;
  virtual ~clocked() = default;

  // Everything the block does at `cycle` of its domain: take what arrived before this edge,
  // advance the model to `cycle`, send what it produced (at the current time, = time_of(cycle)).
  virtual void tick(uint64_t cycle) = 0;
  // The next cycle the block needs a tick for, or `never` when idle. Asked right after each tick.
  virtual uint64_t next_tick() const = 0;
  // A link end of this block saw activity (link.h calls it with the end's id; optional: shells
  // with many links keep a worklist, others ignore it and look at every link in tick).
  virtual void link_activity(uint32_t link_id) { (void)link_id; }

  // Asks for a tick at `cycle` (> the current cycle of the domain when called inside a tick).
  void wake_at(uint64_t cycle);
  // Asks for a tick at the first edge strictly after time t (transaction arrivals use this).
  void wake_after(const sc_core::sc_time &t);
  domain_driver *driver() const { return driver_; }
  const clock_domain &domain() const;

  // ---- parallel ticking (see the file comment) ----
  // This block's tick may run on a worker thread, at the same time as the ticks of the other
  // parallel blocks of its domain at that edge (opt-in; default: always on the simulation thread).
  virtual bool tick_in_parallel() const { return false; }
  // Work that leaves the block: run at once, or — inside a parallel tick — in the serial phase
  // after it, in call order. fn gets ctx, a copy of the `bytes` bytes at `data` (valid during the
  // call; nullptr when bytes is 0) and `arg`.
  using deferred_fn = void (*)(void *ctx, const void *data, size_t bytes, uint64_t arg);
  void serially(deferred_fn fn, void *ctx, const void *data = nullptr, size_t bytes = 0, uint64_t arg = 0);
  // True while this block's tick runs in a parallel phase (link ends defer then).
  bool deferring() const { return deferring_; }
  // The block whose parallel tick runs on the calling host thread, or nullptr (on the simulation
  // thread outside a parallel phase). Ports of shared engines use it to defer their callbacks.
  static clocked *current_parallel();
  // The flag behind deferring(), for model-side helpers that must know (a stats shard).
  const bool *deferring_flag() const { return &deferring_; }

 private:
  friend class domain_driver;
  struct deferred {
    deferred_fn fn;
    void *ctx;
    size_t offset, bytes;  // into deferred_data_
    uint64_t arg;
  };
  void run_deferred();

  domain_driver *driver_ = nullptr;
  size_t slot_ = 0;
  bool deferring_ = false;
  std::vector<deferred> deferred_;
  std::vector<unsigned char> deferred_data_;
};

// A message port that forwards to `to`, in the serial phase when the message comes from a
// parallel tick (of whichever block runs on the calling thread), so messages keep the order a
// one-thread run gives them. Give port() to a model core in place of `to`.
class serial_messages {
 public:
  explicit serial_messages(simtvp_msg_port to = {}) : to_(to) {}
  void set_target(simtvp_msg_port to) { to_ = to; }
  simtvp_msg_port port() { return simtvp_msg_port{this, &serial_messages::emit}; }

 private:
  static void emit(void *ctx, simtvp_severity severity, const char *text);
  static void deliver(void *ctx, const void *text, size_t bytes, uint64_t severity);
  simtvp_msg_port to_;
};

class domain_driver : public sc_core::sc_module {
 public:
  domain_driver(sc_core::sc_module_name name, const clock_domain &domain);

  const clock_domain &domain() const { return domain_; }
  // Registers a block (during elaboration, before the simulation starts).
  void add(clocked &block);
  size_t blocks() const { return slots_.size(); }

  // The cycle of the domain at the current simulated time (the last edge at or before it).
  uint64_t current_cycle() const { return domain_.cycle_at(sc_core::sc_time_stamp()); }
  // Edges at which the driver ran (not counting SystemC's initialisation call) and block ticks.
  uint64_t activations() const { return activations_; }
  uint64_t ticks() const { return ticks_; }

  // Parallel ticking on `pool`'s threads (nullptr: every tick on the simulation thread, the
  // default). The pool may be shared by several drivers (they never run at the same time) and must
  // outlive the simulation's use of this driver.
  void set_workers(worker_pool *pool) { pool_ = pool; }
  worker_pool *workers() const { return pool_; }
  // Parallel phases run and the ticks in them (benchmarks, tests).
  uint64_t parallel_phases() const { return parallel_phases_; }
  uint64_t parallel_ticks() const { return parallel_ticks_; }
  // fn(ctx) runs on the simulation thread after every run of parallel blocks this driver ticked
  // (a parallel phase, or a lone due block ticked on the simulation thread the same way), before
  // their deferred work and before the blocks registered after them tick (e.g. bringing shared
  // statistics up to date for readers). Only while workers are set.
  void on_parallel_phase_end(void (*fn)(void *ctx), void *ctx) { phase_end_.push_back({fn, ctx}); }

 private:
  friend class clocked;
  struct slot {
    clocked *block;
    uint64_t due;   // the earliest cycle the block must be ticked at
    uint64_t later; // the earliest request after `due` (kept when the tick at `due` runs)
  };
  void run();
  void request(size_t index, uint64_t cycle);
  void schedule(uint64_t cycle);
  void tick_one(slot &s, uint64_t c);       // tick, then next_tick (the serial way)
  void after_tick(slot &s, uint64_t c);     // next_tick bookkeeping
  void tick_parallel(size_t from, size_t to, uint64_t c);  // due_[from, to)
  static void parallel_item(void *ctx, size_t item);

  clock_domain domain_;
  std::vector<slot> slots_;
  sc_core::sc_event wake_;
  uint64_t scheduled_ = clocked::never; // cycle the pending notification is for
  bool started_ = false, running_ = false;
  // While running at edge edge_: the earliest due a request set on a block not due at edge_.
  uint64_t edge_ = 0, requested_ = clocked::never;
  uint64_t activations_ = 0, ticks_ = 0;
  // Parallel ticking.
  struct phase_listener {
    void (*fn)(void *ctx);
    void *ctx;
  };
  worker_pool *pool_ = nullptr;
  std::vector<size_t> due_;                  // [due_n_]: slots due at the current edge, in order
  size_t due_n_ = 0;                         // (due_ has a place for every block)
  const size_t *phase_slots_ = nullptr;      // the parallel phase's slots (into due_)
  uint64_t phase_cycle_ = 0;
  std::vector<phase_listener> phase_end_;
  uint64_t parallel_phases_ = 0, parallel_ticks_ = 0;
};

}  // namespace simtvp

#endif  // SIMTVP_TLM_DOMAIN_DRIVER_H
