// proc_mem — see proc_mem.h.
#include "proc_mem.h"

#include "system_agent.h"

#include <cstring>

namespace simtvp {

namespace {
constexpr uint64_t kPage = 4096;
}

proc_mem::proc_mem(sc_core::sc_module_name name) : sc_module(name), socket("socket") {
  socket.register_b_transport(this, &proc_mem::b_transport);
  socket.register_get_direct_mem_ptr(this, &proc_mem::get_direct_mem_ptr);
  socket.register_transport_dbg(this, &proc_mem::transport_dbg);
}

bool proc_mem::expose(uint64_t p, uint64_t bytes, uint64_t *window) {
  if (!bytes || p >= kLimit || bytes > kLimit - p) return false;
  const uint64_t lo = p & ~(kPage - 1), hi = (p + bytes + kPage - 1) & ~(kPage - 1);
  if (hi - lo > kLimit - next_) return false;
  ranges_[next_] = range{lo, hi - lo};
  *window = next_ + (p - lo);
  next_ += hi - lo;
  return true;
}

void proc_mem::unexpose(uint64_t p, uint64_t bytes) {
  if (!bytes || p >= kLimit || bytes > kLimit - p) return;
  const uint64_t lo = p & ~(kPage - 1), hi = (p + bytes + kPage - 1) & ~(kPage - 1);
  // The latest exposure of the range (ranges are few: registrations and one kernel's IOMMU pages).
  for (auto it = ranges_.rbegin(); it != ranges_.rend(); ++it) {
    if (it->second.host != lo || it->second.bytes != hi - lo) continue;
    const uint64_t w = it->first;
    ranges_.erase(std::next(it).base());
    socket->invalidate_direct_mem_ptr(w, w + (hi - lo) - 1);
    return;
  }
}

bool proc_mem::range_of(uint64_t w, uint64_t *lo, const range **r) const {
  auto it = ranges_.upper_bound(w);
  if (it == ranges_.begin()) return false;
  --it;
  if (w - it->first >= it->second.bytes) return false;
  *lo = it->first;
  *r = &it->second;
  return true;
}

bool proc_mem::exposed(uint64_t w, uint64_t bytes) const {
  uint64_t lo;
  const range *r;
  if (!bytes) return true;
  return range_of(w, &lo, &r) && bytes <= r->bytes - (w - lo);
}

uint8_t *proc_mem::host_of(uint64_t w) const {
  uint64_t lo;
  const range *r;
  if (!range_of(w, &lo, &r)) return nullptr;
  return reinterpret_cast<uint8_t *>(static_cast<uintptr_t>(r->host + (w - lo)));
}

void proc_mem::time_access(const tlm::tlm_generic_payload &t, uint64_t addr, unsigned len, bool write,
                           sc_core::sc_time &delay) {
  const system_agent_ext *who = t.get_extension<system_agent_ext>();
  sc_core::sc_time arrival = sc_core::sc_time_stamp() + delay;
  uint64_t at = static_cast<uint64_t>(arrival.to_seconds() * 1e12 + 0.5);
  int agent = who ? static_cast<int>(who->agent) : static_cast<int>(agent_other);
  uint64_t done = timing_(addr, len, write || (who && who->atomic), agent, who && who->writeback, at);
  delay += sc_core::sc_time(static_cast<double>(done - at), sc_core::SC_PS);
}

void proc_mem::b_transport(tlm::tlm_generic_payload &t, sc_core::sc_time &delay) {
  uint64_t addr = t.get_address();
  unsigned len = t.get_data_length();
  if (t.get_command() == tlm::TLM_IGNORE_COMMAND) {
    const system_agent_ext *who = t.get_extension<system_agent_ext>();
    if (timing_ && who && who->timing_only) time_access(t, addr, len, who->is_write, delay);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  if (!exposed(addr, len)) {
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (t.get_byte_enable_ptr()) {
    t.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return;
  }
  if (t.get_streaming_width() < len) {
    t.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  uint8_t *mem = host_of(addr);
  if (t.get_command() == tlm::TLM_READ_COMMAND)
    std::memcpy(t.get_data_ptr(), mem, len);
  else
    std::memcpy(mem, t.get_data_ptr(), len);
  if (timing_)
    time_access(t, addr, len, t.get_command() == tlm::TLM_WRITE_COMMAND, delay);
  else
    t.set_dmi_allowed(true);
  t.set_response_status(tlm::TLM_OK_RESPONSE);
}

void proc_mem::unexpose_all() {
  if (ranges_.empty()) return;
  ranges_.clear();
  socket->invalidate_direct_mem_ptr(0, kLimit - 1);
}

bool proc_mem::get_direct_mem_ptr(tlm::tlm_generic_payload &t, tlm::tlm_dmi &dmi) {
  uint64_t lo;
  const range *r;
  if (!range_of(t.get_address(), &lo, &r)) {
    // Refused over the page (the initiator asks again after an invalidation).
    uint64_t page = t.get_address() & ~(kPage - 1);
    dmi.set_start_address(page);
    dmi.set_end_address(page + kPage - 1);
    return false;
  }
  dmi.set_dmi_ptr(reinterpret_cast<unsigned char *>(static_cast<uintptr_t>(r->host)));
  dmi.set_start_address(lo);
  dmi.set_end_address(lo + r->bytes - 1);
  dmi.allow_read_write();
  dmi.set_read_latency(sc_core::SC_ZERO_TIME);
  dmi.set_write_latency(sc_core::SC_ZERO_TIME);
  return true;
}

unsigned int proc_mem::transport_dbg(tlm::tlm_generic_payload &t) {
  uint64_t addr = t.get_address(), lo;
  const range *r;
  if (!range_of(addr, &lo, &r)) return 0;
  unsigned len = static_cast<unsigned>(std::min<uint64_t>(t.get_data_length(), lo + r->bytes - addr));
  uint8_t *mem = host_of(addr);
  if (t.get_command() == tlm::TLM_READ_COMMAND)
    std::memcpy(t.get_data_ptr(), mem, len);
  else if (t.get_command() == tlm::TLM_WRITE_COMMAND)
    std::memcpy(mem, t.get_data_ptr(), len);
  else
    return 0;
  return len;
}

}  // namespace simtvp
