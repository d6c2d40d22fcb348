// host_cpu — see host_cpu.h.
#include "host_cpu.h"

#include "system_agent.h"

#include <algorithm>
#include <cinttypes>
#include <cstring>

namespace simtvp {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

namespace {
constexpr uint64_t kBytesPerHostCycle = 16;  // host memcpy: 32 GB/s at 2 GHz (an assumption)
}

host_cpu::host_cpu(sc_core::sc_module_name name, const host_cpu_config &config)
    : sc_module(name), bus("bus"), irq("irq"), config_(config) {
  drv_bus_.ctx = this;
  drv_bus_.mmio_read32 = mmio_read32;
  drv_bus_.mmio_write32 = mmio_write32;
  drv_bus_.sysmem_alloc = sysmem_alloc;
  drv_bus_.sysmem_free = sysmem_free;
  drv_bus_.sysmem_read = sysmem_read;
  drv_bus_.sysmem_write = sysmem_write;
  drv_bus_.wait_for_interrupt = wait_for_interrupt;
  drv_bus_.mmio_peek32 = mmio_peek32;
  SC_THREAD(run);
  set_stack_size(config_.stack_bytes);  // the driver parses PTX and the GPU may run kernels here
}

void host_cpu::set_allocator(std::function<bool(uint64_t, uint64_t, uint64_t *)> alloc,
                             std::function<void(uint64_t)> free) {
  alloc_ = std::move(alloc);
  free_ = std::move(free);
}

void host_cpu::set_interrupt_source(std::function<bool()> can_rise, const sc_core::sc_event *changed) {
  can_rise_ = std::move(can_rise);
  changed_ = changed;
}

void host_cpu::post(void (*fn)(void *), void *ctx, bool api_call) {
  fn_ = fn;
  ctx_ = ctx;
  api_call_ = api_call;
  pending_ = true;
  request_.notify(SC_ZERO_TIME);
}

bool host_cpu::on_thread() const {
  return pending_ && thread_.valid() && sc_core::sc_get_current_process_handle() == thread_;
}

void host_cpu::run() {
  thread_ = sc_core::sc_get_current_process_handle();
  for (;;) {
    if (!pending_) wait(request_);
    if (api_call_ && config_.api_overhead > SC_ZERO_TIME) wait(config_.api_overhead);
    fn_(ctx_);
    pending_ = false;
    sc_core::sc_pause();  // back to the program: sc_start() returns at the end of this delta
  }
}

sc_time host_cpu::copy_cost(uint64_t len) const {
  uint64_t cycles = std::max<uint64_t>(1, (len + kBytesPerHostCycle - 1) / kBytesPerHostCycle);
  return config_.host_cycle * static_cast<double>(cycles);
}

bool host_cpu::access(tlm::tlm_command cmd, uint64_t addr, void *data, uint64_t len, sc_time cost) {
  if (!on_thread()) {  // the bus works only inside simtvp_host_call (a TLM initiator needs a thread)
    counters_.bus_errors++;
    simtvp_msg(&messages_, SIMTVP_ERROR,
               "%s: driver bus used outside simtvp_host_call (%s at bus address 0x%" PRIx64 " ignored)",
               name(), cmd == tlm::TLM_READ_COMMAND ? "read" : "write", addr);
    return false;
  }
  bool ok = true;
  uint8_t *p = static_cast<uint8_t *>(data);
  sc_time delay = cost;
  do {  // one transaction per 1 GiB (the generic payload's length is 32 bits)
    unsigned chunk = static_cast<unsigned>(std::min<uint64_t>(len, 1u << 30));
    tlm::tlm_generic_payload t;
    t.set_command(cmd);
    t.set_address(addr);
    t.set_data_ptr(p);
    t.set_data_length(chunk);
    t.set_streaming_width(chunk);
    t.set_byte_enable_ptr(nullptr);
    t.set_dmi_allowed(false);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    system_agent_ext who(agent_host);
    scoped_agent tag(t, who);
    bus->b_transport(t, delay);
    if (t.is_response_error()) {
      ok = false;
      counters_.bus_errors++;
      simtvp_msg(&messages_, SIMTVP_WARNING, "%s: %s of %u bytes at bus address 0x%" PRIx64 ": %s",
                 name(), cmd == tlm::TLM_READ_COMMAND ? "read" : "write", chunk, addr,
                 t.get_response_string().c_str());
      break;
    }
    addr += chunk;
    p += chunk;
    len -= chunk;
  } while (len);
  if (delay > SC_ZERO_TIME) wait(delay);  // the host has spent the whole cost when it goes on
  return ok;
}

void host_cpu::touch(uint64_t bus_addr, bool write) {
  if (!on_thread()) return;
  tlm::tlm_generic_payload t;
  t.set_command(tlm::TLM_IGNORE_COMMAND);
  t.set_address(bus_addr & ~(kLineBytes - 1));
  t.set_data_ptr(nullptr);
  t.set_data_length(static_cast<unsigned>(kLineBytes));
  t.set_streaming_width(static_cast<unsigned>(kLineBytes));
  t.set_byte_enable_ptr(nullptr);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  system_agent_ext who(agent_host, true);
  who.is_write = write;
  scoped_agent tag(t, who);
  sc_time delay = copy_cost(kLineBytes);
  bus->b_transport(t, delay);
  if (delay > SC_ZERO_TIME) wait(delay);
}

uint32_t host_cpu::mmio_read32(void *ctx, uint32_t offset) {
  auto *h = static_cast<host_cpu *>(ctx);
  uint32_t v = 0;
  h->counters_.mmio_reads++;
  // A failed read returns all ones, as a PCIe read that no device answers does.
  if (!h->access(tlm::TLM_READ_COMMAND, h->config_.bar0_base + offset, &v, 4, h->config_.mmio_read))
    v = 0xFFFFFFFFu;
  return v;
}

uint32_t host_cpu::mmio_peek32(void *ctx, uint32_t offset) {
  auto *h = static_cast<host_cpu *>(ctx);
  uint32_t v = 0xFFFFFFFFu;
  tlm::tlm_generic_payload t;
  t.set_command(tlm::TLM_READ_COMMAND);
  t.set_address(h->config_.bar0_base + offset);
  t.set_data_ptr(reinterpret_cast<unsigned char *>(&v));
  t.set_data_length(4);
  t.set_streaming_width(4);
  if (h->bus->transport_dbg(t) != 4) v = 0xFFFFFFFFu;
  return v;
}

void host_cpu::mmio_write32(void *ctx, uint32_t offset, uint32_t value) {
  auto *h = static_cast<host_cpu *>(ctx);
  h->counters_.mmio_writes++;
  h->access(tlm::TLM_WRITE_COMMAND, h->config_.bar0_base + offset, &value, 4, h->config_.mmio_write);
}

bool host_cpu::sysmem_alloc(void *ctx, uint64_t size, uint64_t align, uint64_t *bus_addr) {
  auto *h = static_cast<host_cpu *>(ctx);
  return h->alloc_ && h->alloc_(size, align, bus_addr);
}

void host_cpu::sysmem_free(void *ctx, uint64_t bus_addr) {
  auto *h = static_cast<host_cpu *>(ctx);
  if (h->free_) h->free_(bus_addr);
}

void host_cpu::sysmem_read(void *ctx, uint64_t bus_addr, void *dst, uint64_t len) {
  auto *h = static_cast<host_cpu *>(ctx);
  h->counters_.sysmem_reads++;
  h->counters_.sysmem_bytes += len;
  if (!h->access(tlm::TLM_READ_COMMAND, bus_addr, dst, len, h->copy_cost(len))) std::memset(dst, 0, len);
}

void host_cpu::sysmem_write(void *ctx, uint64_t bus_addr, const void *src, uint64_t len) {
  auto *h = static_cast<host_cpu *>(ctx);
  h->counters_.sysmem_writes++;
  h->counters_.sysmem_bytes += len;
  h->access(tlm::TLM_WRITE_COMMAND, bus_addr, const_cast<void *>(src), len, h->copy_cost(len));
}

bool host_cpu::wait_for_interrupt(void *ctx) {
  auto *h = static_cast<host_cpu *>(ctx);
  if (h->irq.read()) return true;  // level-triggered: still asserted
  if (!h->on_thread()) {
    simtvp_msg(&h->messages_, SIMTVP_ERROR, "%s: wait_for_interrupt outside simtvp_host_call", h->name());
    return false;
  }
  for (;;) {
    if (h->can_rise_ && !h->can_rise_()) return false;
    if (h->changed_)
      h->wait(h->irq.value_changed_event() | *h->changed_);
    else
      h->wait(h->irq.value_changed_event());
    if (h->irq.read()) {
      h->counters_.interrupts++;
      if (h->config_.irq_latency > SC_ZERO_TIME) h->wait(h->config_.irq_latency);
      return true;
    }
  }
}

}  // namespace simtvp
