// sys_mem — the platform's system memory: a TLM-2.0 target (b_transport, DMI, debug transport)
// over one zero-filled host mapping that the OS backs page by page on first touch, plus the
// allocator for DMA-able memory (what an OS's dma_alloc_coherent does for a driver: the driver's
// drv_bus.sysmem_alloc lands here). Addresses on the socket are offsets from the memory's start;
// the system bus maps it at its base.
#ifndef SIMTVP_PLATFORM_SYS_MEM_H
#define SIMTVP_PLATFORM_SYS_MEM_H

#include <cstdint>
#include <functional>
#include <map>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

struct socmem;

namespace simtvp {

class sys_mem : public sc_core::sc_module {
 public:
  // Where the first instance's host view is mapped when that range is free (data()): above
  // AddressSanitizer's shadow, below the GPU's device memory (0x5000_0000_0000) and far from where
  // the host places libraries and heaps.
  static constexpr uint64_t kPreferredHostAddress = 0x200000000000ull;
  tlm_utils::simple_target_socket<sys_mem> socket;

  // size: bytes (a multiple of 4 KiB). Without a timing model the memory has no latency of its
  // own: initiators annotate their accesses (the host CPU stub) or model their timing (the GPU's
  // engines).
  sys_mem(sc_core::sc_module_name name, uint64_t size);
  // The SoC memory's timing (integrated GPUs, docs/system-modes.md): every b_transport adds to its
  // delay what the access costs there (queueing behind other agents' accesses, transfer, latency)
  // for the agent its system_agent_ext names, a TLM_IGNORE_COMMAND marked timing_only included;
  // and b_transport no longer offers DMI, so initiators keep sending transactions the model sees
  // (get_direct_mem_ptr still grants it: a GPU's functional data uses it). Not owned; null: none.
  void set_timing(::socmem *timing) { timing_ = timing; }
  // The same, through a chain the platform composes (the shared modes: the coherence directory,
  // then the system-level cache, then the SoC memory): given an access (offset, bytes, write, the
  // agent: a socmem_agent value) arriving at at_ps, returns when it completes. Replaces set_timing's
  // model; empty: none.
  using timing_fn = std::function<uint64_t(uint64_t offset, uint64_t bytes, bool write, int agent,
                                           bool writeback, uint64_t at_ps)>;
  void set_timing(timing_fn fn) { timing_fn_ = std::move(fn); }
  // Takes [offset, offset + bytes) out of the allocator (an integrated GPU's carve-out). false
  // when it is not wholly free.
  bool reserve(uint64_t offset, uint64_t bytes);
  ~sys_mem() override;
  bool ok() const { return data_ != nullptr; }
  uint64_t size() const { return size_; }
  // The host view of the memory (what the host CPU's own loads and stores reach).
  uint8_t *data() { return data_; }

  // DMA-able allocation: size bytes aligned to align (a power of two; at least 64 is used).
  // Returns false when no free range fits.
  bool alloc(uint64_t size, uint64_t align, uint64_t *offset);
  // Frees an allocation by its offset; unknown offsets are ignored (returns false).
  bool free(uint64_t offset);
  uint64_t allocated_bytes() const { return allocated_; }

 private:
  void b_transport(tlm::tlm_generic_payload &t, sc_core::sc_time &delay);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload &t, tlm::tlm_dmi &dmi);
  unsigned int transport_dbg(tlm::tlm_generic_payload &t);
  bool in_range(uint64_t addr, uint64_t len) const { return addr <= size_ && len <= size_ - addr; }

  uint8_t *data_ = nullptr;
  uint64_t size_ = 0;
  std::map<uint64_t, uint64_t> free_;  // offset -> bytes, coalesced
  std::map<uint64_t, uint64_t> used_;  // offset -> bytes
  uint64_t allocated_ = 0;
  ::socmem *timing_ = nullptr;
  timing_fn timing_fn_;
  bool timed() const { return timing_ || timing_fn_; }
  // The access's completion time (≥ at) from the timing model.
  uint64_t time_access(uint64_t addr, uint64_t len, bool write, int agent, bool writeback, uint64_t at);
};

}  // namespace simtvp

#endif  // SIMTVP_PLATFORM_SYS_MEM_H
