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
#ifndef SIMTVP_TLM_DOMAIN_DRIVER_H
#define SIMTVP_TLM_DOMAIN_DRIVER_H

#include <cstdint>
#include <vector>

#include <systemc>

#include "clock_domain.h"

namespace simtvp {

class domain_driver;

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

 private:
  friend class domain_driver;
  domain_driver *driver_ = nullptr;
  size_t slot_ = 0;
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

  clock_domain domain_;
  std::vector<slot> slots_;
  sc_core::sc_event wake_;
  uint64_t scheduled_ = clocked::never; // cycle the pending notification is for
  bool started_ = false, running_ = false;
  uint64_t activations_ = 0, ticks_ = 0;
};

}  // namespace simtvp

#endif  // SIMTVP_TLM_DOMAIN_DRIVER_H
