// sys_mem — see sys_mem.h.
#include "sys_mem.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <iterator>

#include "socmem.h"
#include "system_agent.h"

namespace simtvp {

namespace {
constexpr uint64_t kGranule = 64;  // allocation unit: one host cache line
}

sys_mem::sys_mem(sc_core::sc_module_name name, uint64_t size) : sc_module(name), socket("socket"), size_(size) {
  socket.register_b_transport(this, &sys_mem::b_transport);
  socket.register_get_direct_mem_ptr(this, &sys_mem::get_direct_mem_ptr);
  socket.register_transport_dbg(this, &sys_mem::transport_dbg);
  // Anonymous private memory reads as zero and is backed only where written. The host view sits at
  // kPreferredHostAddress when that range is free: pinned memory's host pointers are GPU virtual
  // addresses too (mapped memory), which the GPU's page walks, TLBs and address hashes see, so one
  // fixed place keeps statistics the same from run to run (address-space randomisation would move
  // them). A second instance, or an occupied range, takes whatever address the host gives.
  const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  void *want = reinterpret_cast<void *>(kPreferredHostAddress);
  void *p = mmap(want, size_, PROT_READ | PROT_WRITE, flags | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == MAP_FAILED) p = mmap(nullptr, size_, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p != MAP_FAILED) {
    data_ = static_cast<uint8_t *>(p);
    free_[0] = size_;
  }
}

sys_mem::~sys_mem() {
  if (data_) munmap(data_, size_);
}

bool sys_mem::alloc(uint64_t size, uint64_t align, uint64_t *offset) {
  if (align & (align - 1)) return false;  // not a power of two (0 means any)
  if (align < kGranule) align = kGranule;
  size = size ? (size + kGranule - 1) / kGranule * kGranule : kGranule;
  for (auto it = free_.begin(); it != free_.end(); ++it) {  // first fit, lowest address
    uint64_t start = (it->first + align - 1) & ~(align - 1);
    uint64_t end = it->first + it->second;
    if (start >= end || end - start < size) continue;
    uint64_t block = it->first;
    free_.erase(it);
    if (start > block) free_[block] = start - block;
    if (start + size < end) free_[start + size] = end - (start + size);
    used_[start] = size;
    allocated_ += size;
    *offset = start;
    return true;
  }
  return false;
}

bool sys_mem::free(uint64_t offset) {
  auto u = used_.find(offset);
  if (u == used_.end()) return false;
  uint64_t start = offset, size = u->second;
  used_.erase(u);
  allocated_ -= size;
  auto next = free_.lower_bound(start);
  if (next != free_.end() && next->first == start + size) {  // merge with the free range after
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {  // and with the one before
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      prev->second += size;
      return true;
    }
  }
  free_[start] = size;
  return true;
}

bool sys_mem::reserve(uint64_t offset, uint64_t bytes) {
  if (!bytes) return true;
  auto it = free_.upper_bound(offset);
  if (it == free_.begin()) return false;
  --it;
  uint64_t start = it->first, end = it->first + it->second;
  if (offset < start || offset + bytes > end) return false;
  free_.erase(it);
  if (offset > start) free_[start] = offset - start;
  if (offset + bytes < end) free_[offset + bytes] = end - (offset + bytes);
  return true;
}

void sys_mem::b_transport(tlm::tlm_generic_payload &t, sc_core::sc_time &delay) {
  uint64_t addr = t.get_address();
  unsigned len = t.get_data_length();
  const system_agent_ext *who = t.get_extension<system_agent_ext>();
  if (t.get_command() == tlm::TLM_IGNORE_COMMAND) {
    if (timed() && who && who->timing_only && in_range(addr, len)) {
      sc_core::sc_time arrival = sc_core::sc_time_stamp() + delay;
      uint64_t at = static_cast<uint64_t>(arrival.to_seconds() * 1e12 + 0.5);
      uint64_t done = time_access(addr, len, who->is_write, who->agent, who->writeback, at);
      delay += sc_core::sc_time(static_cast<double>(done - at), sc_core::SC_PS);
    }
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  if (!in_range(addr, len)) {
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
  if (t.get_command() == tlm::TLM_READ_COMMAND)
    std::memcpy(t.get_data_ptr(), data_ + addr, len);
  else
    std::memcpy(data_ + addr, t.get_data_ptr(), len);
  if (timed()) {
    sc_core::sc_time arrival = sc_core::sc_time_stamp() + delay;
    uint64_t at = static_cast<uint64_t>(arrival.to_seconds() * 1e12 + 0.5);
    int agent = who ? static_cast<int>(who->agent) : static_cast<int>(SOCMEM_OTHER);
    const bool write = t.get_command() == tlm::TLM_WRITE_COMMAND || (who && who->atomic);
    uint64_t done = time_access(addr, len, write, agent, who && who->writeback, at);
    delay += sc_core::sc_time(static_cast<double>(done - at), sc_core::SC_PS);
  } else {
    t.set_dmi_allowed(true);
  }
  t.set_response_status(tlm::TLM_OK_RESPONSE);
}

uint64_t sys_mem::time_access(uint64_t addr, uint64_t len, bool write, int agent, bool writeback, uint64_t at) {
  if (timing_fn_) return timing_fn_(addr, len, write, agent, writeback, at);
  return socmem_access(timing_, addr, len, write, static_cast<socmem_agent>(agent), at);
}

bool sys_mem::get_direct_mem_ptr(tlm::tlm_generic_payload &, tlm::tlm_dmi &dmi) {
  dmi.set_dmi_ptr(data_);
  dmi.set_start_address(0);
  dmi.set_end_address(size_ - 1);
  dmi.allow_read_write();
  dmi.set_read_latency(sc_core::SC_ZERO_TIME);
  dmi.set_write_latency(sc_core::SC_ZERO_TIME);
  return true;
}

unsigned int sys_mem::transport_dbg(tlm::tlm_generic_payload &t) {
  uint64_t addr = t.get_address();
  if (addr >= size_) return 0;
  unsigned len = static_cast<unsigned>(std::min<uint64_t>(t.get_data_length(), size_ - addr));
  if (t.get_command() == tlm::TLM_READ_COMMAND)
    std::memcpy(t.get_data_ptr(), data_ + addr, len);
  else if (t.get_command() == tlm::TLM_WRITE_COMMAND)
    std::memcpy(data_ + addr, t.get_data_ptr(), len);
  else
    return 0;
  return len;
}

}  // namespace simtvp
