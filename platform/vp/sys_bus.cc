// sys_bus — see sys_bus.h.
#include "sys_bus.h"

namespace simtvp {

sys_bus::sys_bus(sc_core::sc_module_name name) : sc_module(name), targ("targ"), init("init") {
  targ.register_b_transport(this, &sys_bus::b_transport);
  targ.register_get_direct_mem_ptr(this, &sys_bus::get_direct_mem_ptr);
  targ.register_transport_dbg(this, &sys_bus::transport_dbg);
  init.register_invalidate_direct_mem_ptr(this, &sys_bus::invalidate_direct_mem_ptr);
}

bool sys_bus::map(uint64_t base, uint64_t size, unsigned port, const std::string &what) {
  if (size == 0 || base + size - 1 < base) return false;
  for (const range &r : map_)
    if (base <= r.base + r.size - 1 && r.base <= base + size - 1) return false;
  map_.push_back(range{base, size, port, what});
  return true;
}

const sys_bus::range *sys_bus::decode(uint64_t addr) const {
  for (const range &r : map_)
    if (addr >= r.base && addr - r.base < r.size) return &r;
  return nullptr;
}

void sys_bus::b_transport(int, tlm::tlm_generic_payload &t, sc_core::sc_time &delay) {
  uint64_t addr = t.get_address();
  const range *r = decode(addr);
  // The whole access must lie in one target.
  if (!r || t.get_data_length() > r->size - (addr - r->base)) {
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  t.set_address(addr - r->base);
  init[r->port]->b_transport(t, delay);
  t.set_address(addr);
}

bool sys_bus::get_direct_mem_ptr(int, tlm::tlm_generic_payload &t, tlm::tlm_dmi &dmi) {
  uint64_t addr = t.get_address();
  const range *r = decode(addr);
  if (!r) return false;
  t.set_address(addr - r->base);
  bool ok = init[r->port]->get_direct_mem_ptr(t, dmi);
  t.set_address(addr);
  // Back to bus addresses, the end clipped to the target's window (a denial's range too: it
  // tells the initiator where not to ask again).
  uint64_t start = dmi.get_start_address(), end = dmi.get_end_address();
  if (end > r->size - 1) end = r->size - 1;
  if (start > end) return false;
  dmi.set_start_address(r->base + start);
  dmi.set_end_address(r->base + end);
  return ok;
}

unsigned int sys_bus::transport_dbg(int, tlm::tlm_generic_payload &t) {
  uint64_t addr = t.get_address();
  const range *r = decode(addr);
  if (!r) return 0;
  unsigned len = t.get_data_length();
  if (len > r->size - (addr - r->base)) t.set_data_length(static_cast<unsigned>(r->size - (addr - r->base)));
  t.set_address(addr - r->base);
  unsigned n = init[r->port]->transport_dbg(t);
  t.set_address(addr);
  t.set_data_length(len);
  return n;
}

void sys_bus::invalidate_direct_mem_ptr(int port, sc_dt::uint64 start, sc_dt::uint64 end) {
  for (const range &r : map_) {
    if (r.port != static_cast<unsigned>(port)) continue;
    uint64_t s = start < r.size ? start : r.size - 1;
    uint64_t e = end < r.size ? end : r.size - 1;
    for (unsigned i = 0; i < targ.size(); i++) targ[i]->invalidate_direct_mem_ptr(r.base + s, r.base + e);
  }
}

}  // namespace simtvp
