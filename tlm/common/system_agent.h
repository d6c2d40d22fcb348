// system_agent — who issued a transaction on the system bus, as an ignorable TLM-2.0 extension
// (docs/system-modes.md): the host CPU, the GPU's kernels (its hub), the GPU's DMA engines, the
// system-level cache. System memory's timing model and the system cache read it for their
// statistics and the coherence directory for who holds a line; a target that does not know it sees
// an ordinary transaction. Values are models/socmem's socmem_agent.
#ifndef SIMTVP_TLM_SYSTEM_AGENT_H
#define SIMTVP_TLM_SYSTEM_AGENT_H

#include <cstdint>

#include <tlm>

namespace simtvp {

enum system_agent : uint8_t {
  agent_host = 0,   // the host CPU
  agent_gpu = 1,    // the GPU's kernels (the hub)
  agent_dma = 2,    // the GPU's copy engines and command processor
  agent_cache = 3,  // the system-level cache (its fills and write-backs)
  agent_other = 4
};

class system_agent_ext : public tlm::tlm_extension<system_agent_ext> {
 public:
  explicit system_agent_ext(system_agent a = agent_other, bool timing_only = false)
      : agent(a), timing_only(timing_only) {}
  tlm::tlm_extension_base *clone() const override {
    auto *e = new system_agent_ext(agent, timing_only);
    e->is_write = is_write;
    e->writeback = writeback;
    e->atomic = atomic;
    return e;
  }
  void copy_from(const tlm::tlm_extension_base &e) override {
    const auto &o = static_cast<const system_agent_ext &>(e);
    agent = o.agent;
    timing_only = o.timing_only;
    is_write = o.is_write;
    writeback = o.writeback;
    atomic = o.atomic;
  }
  system_agent agent;
  // A TLM_IGNORE_COMMAND that stands for a read or write of its address and length (is_write)
  // for timing only: memory charges what the access costs and moves no data (the system cache's
  // fills and write-backs, whose data the cache does not hold).
  bool timing_only;
  bool is_write = false;
  // A write that gives up the initiator's cached copy (a dirty line it evicts: the GPU L2's
  // write-backs): the coherence directory stops counting the initiator as a holder.
  bool writeback = false;
  // A read-modify-write (the GPU's atomics on system memory, performed at the system): a write
  // for the coherence directory and the system cache, whatever the command.
  bool atomic = false;
};

// The agent of t; agent_other when it carries none.
inline system_agent system_agent_of(const tlm::tlm_generic_payload &t) {
  const system_agent_ext *e = t.get_extension<system_agent_ext>();
  return e ? e->agent : agent_other;
}

// Sets ext on t for the scope of the object (stack-allocated payloads have no memory manager).
class scoped_agent {
 public:
  scoped_agent(tlm::tlm_generic_payload &t, system_agent_ext &ext) : t_(t), ext_(ext) { t_.set_extension(&ext_); }
  ~scoped_agent() { t_.clear_extension(&ext_); }
  scoped_agent(const scoped_agent &) = delete;
  scoped_agent &operator=(const scoped_agent &) = delete;

 private:
  tlm::tlm_generic_payload &t_;
  system_agent_ext &ext_;
};

}  // namespace simtvp

#endif  // SIMTVP_TLM_SYSTEM_AGENT_H
