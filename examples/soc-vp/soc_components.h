// soc_components — the parts of the example SoC that are not the GPU: a memory that grants DMI, an
// address-decoding bus for several initiators and targets (DMI and debug transport passed through
// with address translation, invalidations passed back), and a level-sensitive interrupt
// controller with memory-mapped registers. Plain SystemC/TLM-2.0, the way an SoC team would have
// them already; nothing here knows about simtvp.
#ifndef SOC_VP_COMPONENTS_H
#define SOC_VP_COMPONENTS_H

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_target_socket.h>

namespace soc {

// RAM with a fixed access latency; grants DMI over all of itself (read and write).
struct memory : sc_core::sc_module {
  tlm_utils::simple_target_socket<memory> socket{"socket"};
  std::vector<unsigned char> bytes;
  sc_core::sc_time latency;

  memory(sc_core::sc_module_name n, uint64_t size, sc_core::sc_time lat)
      : sc_module(n), bytes(size), latency(lat) {
    socket.register_b_transport(this, &memory::b_transport);
    socket.register_get_direct_mem_ptr(this, &memory::get_direct_mem_ptr);
    socket.register_transport_dbg(this, &memory::transport_dbg);
  }
  bool in_range(const tlm::tlm_generic_payload &t) const {
    return t.get_address() < bytes.size() && t.get_data_length() <= bytes.size() - t.get_address();
  }
  void b_transport(tlm::tlm_generic_payload &t, sc_core::sc_time &delay) {
    if (!in_range(t)) {
      t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    if (t.get_byte_enable_ptr() || t.get_streaming_width() < t.get_data_length()) {
      t.set_response_status(t.get_byte_enable_ptr() ? tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE
                                                   : tlm::TLM_BURST_ERROR_RESPONSE);
      return;
    }
    unsigned char *p = &bytes[t.get_address()];
    if (t.is_read()) std::memcpy(t.get_data_ptr(), p, t.get_data_length());
    if (t.is_write()) std::memcpy(p, t.get_data_ptr(), t.get_data_length());
    delay += latency;
    t.set_dmi_allowed(true);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload &, tlm::tlm_dmi &d) {
    d.set_dmi_ptr(bytes.data());
    d.set_start_address(0);
    d.set_end_address(bytes.size() - 1);
    d.allow_read_write();
    d.set_read_latency(latency);
    d.set_write_latency(latency);
    return true;
  }
  unsigned int transport_dbg(tlm::tlm_generic_payload &t) {
    if (t.get_address() >= bytes.size()) return 0;
    unsigned n = static_cast<unsigned>(std::min<uint64_t>(t.get_data_length(), bytes.size() - t.get_address()));
    if (t.is_read()) std::memcpy(t.get_data_ptr(), &bytes[t.get_address()], n);
    if (t.is_write()) std::memcpy(&bytes[t.get_address()], t.get_data_ptr(), n);
    return n;
  }
};

// Routes by address: a target is [base, base + size), reached with the address minus base.
struct bus : sc_core::sc_module {
  tlm_utils::multi_passthrough_target_socket<bus> in{"in"};    // initiators bind here
  tlm_utils::multi_passthrough_initiator_socket<bus> out{"out"};  // bind to targets in map() order
  struct region {
    uint64_t base, size;
    std::string name;
  };
  std::vector<region> regions;  // region i is out[i]

  explicit bus(sc_core::sc_module_name n) : sc_module(n) {
    in.register_b_transport(this, &bus::b_transport);
    in.register_get_direct_mem_ptr(this, &bus::get_direct_mem_ptr);
    in.register_transport_dbg(this, &bus::transport_dbg);
    out.register_invalidate_direct_mem_ptr(this, &bus::invalidate_direct_mem_ptr);
  }
  // Adds the next target's address range (bind out to it in the same order).
  void map(const char *name, uint64_t base, uint64_t size) { regions.push_back({base, size, name}); }

  int decode(uint64_t addr) const {
    for (size_t i = 0; i < regions.size(); i++)
      if (addr >= regions[i].base && addr - regions[i].base < regions[i].size) return static_cast<int>(i);
    return -1;
  }
  void b_transport(int, tlm::tlm_generic_payload &t, sc_core::sc_time &delay) {
    const uint64_t addr = t.get_address();
    int i = decode(addr);
    if (i < 0) {
      t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    t.set_address(addr - regions[i].base);
    out[i]->b_transport(t, delay);
    t.set_address(addr);
  }
  bool get_direct_mem_ptr(int, tlm::tlm_generic_payload &t, tlm::tlm_dmi &d) {
    const uint64_t addr = t.get_address();
    int i = decode(addr);
    if (i < 0) return false;
    t.set_address(addr - regions[i].base);
    bool granted = out[i]->get_direct_mem_ptr(t, d);
    t.set_address(addr);
    // Back into bus addresses, clipped to the region.
    const region &r = regions[i];
    d.set_start_address(r.base + d.get_start_address());
    uint64_t end = d.get_end_address() >= r.size ? r.size - 1 : d.get_end_address();
    d.set_end_address(r.base + end);
    return granted;
  }
  unsigned int transport_dbg(int, tlm::tlm_generic_payload &t) {
    const uint64_t addr = t.get_address();
    int i = decode(addr);
    if (i < 0) return 0;
    t.set_address(addr - regions[i].base);
    unsigned n = out[i]->transport_dbg(t);
    t.set_address(addr);
    return n;
  }
  void invalidate_direct_mem_ptr(int target, sc_dt::uint64 start, sc_dt::uint64 end) {
    const region &r = regions[target];
    sc_dt::uint64 s = r.base + start, e = end >= r.size ? r.base + r.size - 1 : r.base + end;
    for (unsigned k = 0; k < in.size(); k++) in[k]->invalidate_direct_mem_ptr(s, e);
  }
};

// Level-sensitive interrupt controller with `lines` inputs (up to 32): irq_out is high while any
// enabled input is high. Registers (32-bit): 0x0 PENDING (read-only: input levels & ENABLE),
// 0x4 ENABLE.
struct intc : sc_core::sc_module {
  tlm_utils::simple_target_socket<intc> socket{"socket"};
  sc_core::sc_vector<sc_core::sc_in<bool>> irq_in;
  sc_core::sc_out<bool> irq_out{"irq_out"};
  uint32_t enable = 0;

  SC_HAS_PROCESS(intc);
  intc(sc_core::sc_module_name n, unsigned lines) : sc_module(n), irq_in("irq_in", lines) {
    socket.register_b_transport(this, &intc::b_transport);
    SC_METHOD(update);
    for (auto &line : irq_in) sensitive << line;
    sensitive << changed;
  }
  uint32_t pending() const {
    uint32_t p = 0;
    for (unsigned i = 0; i < irq_in.size(); i++)
      if (irq_in[i].read()) p |= 1u << i;
    return p & enable;
  }
  void update() { irq_out.write(pending() != 0); }
  void b_transport(tlm::tlm_generic_payload &t, sc_core::sc_time &) {
    if (t.get_data_length() != 4 || t.get_byte_enable_ptr() || (t.get_address() != 0 && t.get_address() != 4)) {
      t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    uint32_t v = 0;
    if (t.is_read()) {
      v = t.get_address() == 0 ? pending() : enable;
      std::memcpy(t.get_data_ptr(), &v, 4);
    } else if (t.is_write()) {
      if (t.get_address() == 0) {
        t.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
      }
      std::memcpy(&enable, t.get_data_ptr(), 4);
      changed.notify(sc_core::SC_ZERO_TIME);
    }
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  sc_core::sc_event changed;
};

}  // namespace soc

#endif  // SOC_VP_COMPONENTS_H
