// sys_bus — the platform's system bus: an address router between initiators (host CPU stub, the
// GPU's DMA) and targets (system memory, the GPU's BAR0). Base protocol: b_transport, DMI (with
// the addresses translated both ways and invalidations passed back to every initiator) and debug
// transport. An address no target claims gets TLM_ADDRESS_ERROR_RESPONSE. The bus adds no
// latency: the initiators annotate their accesses (docs/platform.md "Timing annotations").
#ifndef SIMTVP_PLATFORM_SYS_BUS_H
#define SIMTVP_PLATFORM_SYS_BUS_H

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

namespace simtvp {

class sys_bus : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<sys_bus> targ;    // initiators bind here
  tlm_utils::multi_passthrough_initiator_socket<sys_bus> init; // bound to targets in port order

  explicit sys_bus(sc_core::sc_module_name name);
  // [base, base + size) goes to init[port] with the address made relative to base. Ranges must
  // not overlap (checked: returns false).
  bool map(uint64_t base, uint64_t size, unsigned port, const std::string &what);

  struct range {
    uint64_t base, size;
    unsigned port;
    std::string what;
  };
  const std::vector<range> &ranges() const { return map_; }

 private:
  const range *decode(uint64_t addr) const;
  void b_transport(int id, tlm::tlm_generic_payload &t, sc_core::sc_time &delay);
  bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload &t, tlm::tlm_dmi &dmi);
  unsigned int transport_dbg(int id, tlm::tlm_generic_payload &t);
  void invalidate_direct_mem_ptr(int port, sc_dt::uint64 start, sc_dt::uint64 end);

  std::vector<range> map_;
};

}  // namespace simtvp

#endif  // SIMTVP_PLATFORM_SYS_BUS_H
