// gpu_testbench — see gpu_testbench.h.
#include "gpu_testbench.h"

#include <gtest/gtest.h>

#include <cstring>

#include "config.h"

namespace test_support {

using sc_core::sc_time;
using sc_core::SC_NS;

gpu_testbench::gpu_testbench(sc_core::sc_module_name n, uint64_t memory_bytes, sc_time latency)
    : sc_module(n), memory(memory_bytes), dma_latency(latency) {
  dma.register_b_transport(this, &gpu_testbench::serve_dma);
  bus.ctx = this;
  bus.mmio_read32 = [](void *c, uint32_t off) { return static_cast<gpu_testbench *>(c)->read(off); };
  bus.mmio_write32 = [](void *c, uint32_t off, uint32_t v) { static_cast<gpu_testbench *>(c)->write(off, v); };
  bus.sysmem_alloc = [](void *c, uint64_t size, uint64_t align, uint64_t *addr) {
    auto *tb = static_cast<gpu_testbench *>(c);
    uint64_t a = (tb->next_free + align - 1) & ~(align - 1);
    if (a + size > kTestbenchMemBase + tb->memory.size()) return false;
    tb->next_free = a + size;
    *addr = a;
    return true;
  };
  bus.sysmem_free = [](void *, uint64_t) {};
  bus.sysmem_read = [](void *c, uint64_t a, void *dst, uint64_t n) {
    std::memcpy(dst, static_cast<gpu_testbench *>(c)->memory.data() + (a - kTestbenchMemBase), n);
  };
  bus.sysmem_write = [](void *c, uint64_t a, const void *src, uint64_t n) {
    std::memcpy(static_cast<gpu_testbench *>(c)->memory.data() + (a - kTestbenchMemBase), src, n);
  };
  bus.wait_for_interrupt = [](void *c) {
    auto *tb = static_cast<gpu_testbench *>(c);
    while (!tb->irq.read()) {
      if (tb->gpu->quiescent()) return false;
      sc_core::wait(tb->irq.value_changed_event() | tb->gpu->quiescent_event());
    }
    return true;
  };
  SC_THREAD(run);
  set_stack_size(16u << 20);  // the driver runs on this thread
}

void gpu_testbench::attach(simtvp::gpu_top *g, bool bind_reset, bool bind_clock) {
  gpu = g;
  mmio.bind(g->bar0);
  g->dma.bind(dma);
  g->irq.bind(irq);
  if (bind_reset) g->rst.bind(rst);
  if (bind_clock) {
    g->clk.bind(clk);
    clk.write(g->params().core_clock_hz);
  }
}

void gpu_testbench::run() {
  body(*this);
  sc_core::sc_stop();
}

tlm::tlm_response_status gpu_testbench::access(tlm::tlm_command cmd, uint64_t addr, void *data, unsigned len,
                                               unsigned char *byte_enable) {
  tlm::tlm_generic_payload t;
  t.set_command(cmd);
  t.set_address(addr);
  t.set_data_ptr(static_cast<unsigned char *>(data));
  t.set_data_length(len);
  t.set_streaming_width(len);
  t.set_byte_enable_ptr(byte_enable);
  t.set_byte_enable_length(byte_enable ? len : 0);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_time delay(100, SC_NS);
  mmio->b_transport(t, delay);
  wait(delay);
  return t.get_response_status();
}

uint32_t gpu_testbench::read(uint32_t off) {
  uint32_t v = 0;
  EXPECT_EQ(access(tlm::TLM_READ_COMMAND, off, &v, 4), tlm::TLM_OK_RESPONSE) << "read " << off;
  return v;
}

void gpu_testbench::write(uint32_t off, uint32_t v) {
  EXPECT_EQ(access(tlm::TLM_WRITE_COMMAND, off, &v, 4), tlm::TLM_OK_RESPONSE) << "write " << off;
}

void gpu_testbench::serve_dma(tlm::tlm_generic_payload &t, sc_time &delay) {
  dma_accesses++;
  uint64_t a = t.get_address(), bytes = memory.size();
  unsigned n = t.get_data_length();
  if (a < kTestbenchMemBase || a - kTestbenchMemBase > bytes || n > bytes - (a - kTestbenchMemBase)) {
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  uint8_t *p = memory.data() + (a - kTestbenchMemBase);
  if (t.is_read())
    std::memcpy(t.get_data_ptr(), p, n);
  else if (t.is_write())
    std::memcpy(p, t.get_data_ptr(), n);
  delay += dma_latency;
  t.set_response_status(tlm::TLM_OK_RESPONSE);
}

simtvp_status load_default_config(gpu_config *cfg, const std::vector<const char *> &args, simtvp_diag *diag) {
  config_registry *r = config_registry_create(nullptr);
  std::string file = std::string(SIMTVP_SOURCE_DIR) + "/configs/default.config";
  simtvp_status st = gpu_config_register(r, cfg, diag);
  if (st == SIMTVP_OK) st = config_registry_load_file(r, file.c_str(), diag);
  if (st == SIMTVP_OK) st = config_registry_parse_args(r, static_cast<int>(args.size()), args.data(), diag);
  if (st == SIMTVP_OK) st = gpu_config_finalize(cfg, r, diag);
  config_registry_destroy(r);
  return st;
}

}  // namespace test_support
