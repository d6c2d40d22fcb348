// proc_mem — the program's own (pageable) memory as a TLM-2.0 target on the system bus: the
// window through which the GPU's DMA reaches host memory the program allocated itself —
// registered with cudaHostRegister, or reached through the IOMMU (-system_mode shared_va). On a
// real machine these are the physical pages behind the program's virtual addresses; here each
// expose() gives its whole pages the next free addresses of the window, in the order of the calls
// (the socket sees the window address, the bus adds its base). So bus addresses, and the
// partitions, caches and directory entries they select, are the same in every run, whereas the
// program's own addresses move with the host's address-space randomisation. A page exposed twice
// (a registration and an IOMMU page request) has two window addresses, as two pinnings would.
//
// Only ranges the platform exposed (the host's page tables: pages it pinned for a registration,
// or pages its fault handler made present) answer; anything else is TLM_ADDRESS_ERROR_RESPONSE.
// b_transport, DMI (per exposed range, read/write) and debug transport; no latency of its own
// (the system memory's timing is the bus's and the memory model's business). Unexposing
// invalidates DMI over the range.
#ifndef SIMTVP_PLATFORM_PROC_MEM_H
#define SIMTVP_PLATFORM_PROC_MEM_H

#include <cstdint>
#include <functional>
#include <map>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

namespace simtvp {

class proc_mem : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<proc_mem> socket;

  // Program addresses p with p < limit can be exposed (the user half of an x86-64 address space);
  // the window is as large.
  static constexpr uint64_t kLimit = 1ull << 47;

  explicit proc_mem(sc_core::sc_module_name name);
  // Exposes [p, p + bytes) rounded out to 4 KiB pages at the next free window addresses: *window
  // is p's. false when the range is not the program's or the window is used up (it is not reused).
  bool expose(uint64_t p, uint64_t bytes, uint64_t *window);
  // Undoes the latest expose of the same [p, p + bytes) (invalidates DMI over its window).
  void unexpose(uint64_t p, uint64_t bytes);
  // Every byte of window [w, w + bytes) is exposed (in one exposed range).
  bool exposed(uint64_t w, uint64_t bytes) const;
  // The program's byte behind window address w; nullptr when w is not exposed.
  uint8_t *host_of(uint64_t w) const;
  // Unexposes every page (an IOMMU that dropped all its mappings) and invalidates DMI.
  void unexpose_all();
  // The shared modes time these pages as host memory (docs/system-modes.md): fn(p, bytes, write,
  // agent (socmem_agent), writeback, at_ps) returns the completion; b_transport then adds it to
  // the delay and offers no DMI, so every access is seen. Empty (default): no latency of its own.
  using timing_fn = std::function<uint64_t(uint64_t p, uint64_t bytes, bool write, int agent, bool writeback,
                                           uint64_t at_ps)>;
  void set_timing(timing_fn fn) { timing_ = std::move(fn); }

 private:
  void b_transport(tlm::tlm_generic_payload &t, sc_core::sc_time &delay);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload &t, tlm::tlm_dmi &dmi);
  unsigned int transport_dbg(tlm::tlm_generic_payload &t);
  struct range {
    uint64_t host;   // the program's address of the first page
    uint64_t bytes;  // whole pages
  };
  // The exposed range holding window address w: its window start and range. false when none.
  bool range_of(uint64_t w, uint64_t *lo, const range **r) const;

  std::map<uint64_t, range> ranges_;  // window address of the first page -> range
  uint64_t next_ = 0;                 // the next free window address
  timing_fn timing_;
  // Adds what the timing model says [addr, addr + len) costs to delay.
  void time_access(const tlm::tlm_generic_payload &t, uint64_t addr, unsigned len, bool write, sc_core::sc_time &delay);
};

}  // namespace simtvp

#endif  // SIMTVP_PLATFORM_PROC_MEM_H
