// gpu_testbench — see gpu_testbench.h.
#include "gpu_testbench.h"

#include <gtest/gtest.h>

#include <cstring>

#include "config.h"
#include "drv_kernel.h"
#include "gpu_config.h"
#include "gpu_params.h"

namespace test_support {

using sc_core::sc_time;
using sc_core::SC_NS;
using sc_core::SC_ZERO_TIME;

gpu_testbench::gpu_testbench(sc_core::sc_module_name n, uint64_t memory_bytes, sc_time latency)
    : sc_module(n), memory(memory_bytes), dma_latency(latency) {
  dma.register_b_transport(this, &gpu_testbench::serve_dma);
  dma.register_get_direct_mem_ptr(this, &gpu_testbench::serve_dmi);
  mmio.register_nb_transport_bw(this, &gpu_testbench::mmio_bw);
  nb_payload_.set_mm(this);
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
    auto *tb = static_cast<gpu_testbench *>(c);
    std::memcpy(dst, tb->memory.data() + (a - kTestbenchMemBase), n);
    tb->cpu_spend(n);
  };
  bus.sysmem_write = [](void *c, uint64_t a, const void *src, uint64_t n) {
    auto *tb = static_cast<gpu_testbench *>(c);
    std::memcpy(tb->memory.data() + (a - kTestbenchMemBase), src, n);
    tb->cpu_spend(n);
  };
  bus.wait_for_interrupt = [](void *c) {
    auto *tb = static_cast<gpu_testbench *>(c);
    if (tb->mode.quantum > SC_ZERO_TIME) tb->qk_.sync();  // a decoupled CPU catches up before it sleeps
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
  mmio.bind(bar0_check.target_socket);
  bar0_check.initiator_socket.bind(g->bar0);
  g->dma.bind(dma_check.target_socket);
  dma_check.initiator_socket.bind(dma);
  debug.bind(debug_check.target_socket);
  debug_check.initiator_socket.bind(g->devmem_dbg);
  g->irq.bind(irq);
  links = simtvp::check_links(*g);
  if (bind_reset) g->rst.bind(rst);
  if (bind_clock) {
    g->clk.bind(clk);
    clk.write(g->core_clock_hz());
  }
}

void gpu_testbench::run() {
  if (mode.quantum > SC_ZERO_TIME) {
    tlm_utils::tlm_quantumkeeper::set_global_quantum(mode.quantum);
    qk_.reset();
  }
  if (body) {
    body(*this);
    sc_core::sc_stop();
    return;
  }
  for (;;) {
    while (!job_) wait(job_ready_);
    job_(*this);
    job_ = nullptr;
    sc_core::sc_pause();  // call() returns at the end of this delta
  }
}

void gpu_testbench::call(std::function<void(gpu_testbench &)> job) {
  job_ = std::move(job);
  job_ready_.notify(SC_ZERO_TIME);
  while (job_ && sc_core::sc_get_status() != sc_core::SC_STOPPED) {
    sc_core::sc_start();
    if (job_ && sc_core::sc_pending_activity() == false) {
      ADD_FAILURE() << "the simulation ran out of events before the testbench's job finished";
      job_ = nullptr;
    }
  }
}

sc_time gpu_testbench::cpu_time() {
  return sc_core::sc_time_stamp() + (mode.quantum > SC_ZERO_TIME ? qk_.get_local_time() : SC_ZERO_TIME);
}

void gpu_testbench::cpu_compute(const sc_time &t) {
  if (mode.quantum == SC_ZERO_TIME) {
    wait(t);
    return;
  }
  qk_.inc(t);
  if (qk_.need_sync()) qk_.sync();
}

// A decoupled CPU spends 1 ns per 64 bytes of its own memory accesses in local time.
void gpu_testbench::cpu_spend(uint64_t bytes) {
  if (mode.quantum == SC_ZERO_TIME) return;
  qk_.inc(sc_time(static_cast<double>((bytes + 63) / 64), SC_NS));
  if (qk_.need_sync()) qk_.sync();
}

tlm::tlm_response_status gpu_testbench::access(tlm::tlm_command cmd, uint64_t addr, void *data, unsigned len,
                                               unsigned char *byte_enable) {
  const bool decoupled = mode.quantum > SC_ZERO_TIME;
  tlm::tlm_generic_payload local;
  tlm::tlm_generic_payload &t = mode.nb ? nb_payload_ : local;
  t.set_command(cmd);
  t.set_address(addr);
  t.set_data_ptr(static_cast<unsigned char *>(data));
  t.set_data_length(len);
  t.set_streaming_width(len);
  t.set_byte_enable_ptr(byte_enable);
  t.set_byte_enable_length(byte_enable ? len : 0);
  t.set_dmi_allowed(false);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_time delay = mode.mmio_delay + (decoupled ? qk_.get_local_time() : SC_ZERO_TIME);
  if (!mode.nb) {
    mmio->b_transport(t, delay);
    if (decoupled) {
      qk_.set(delay);  // what the target did not wait out stays the CPU's local time
      if (qk_.need_sync()) qk_.sync();
    } else {
      wait(delay);
    }
    return t.get_response_status();
  }
  // nb_transport: BEGIN_REQ at the annotated time, the response when it comes.
  t.acquire();
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  tlm::tlm_sync_enum s = mmio->nb_transport_fw(t, phase, delay);
  if (s == tlm::TLM_COMPLETED) {
    wait(delay);
  } else if (s == tlm::TLM_UPDATED && phase == tlm::BEGIN_RESP) {
    wait(delay);
    phase = tlm::END_RESP;
    delay = SC_ZERO_TIME;
    mmio->nb_transport_fw(t, phase, delay);
  } else {
    wait(nb_response_);
  }
  if (decoupled) qk_.reset();  // the CPU waited for the response: it is in step now
  tlm::tlm_response_status st = t.get_response_status();
  t.release();
  return st;
}

tlm::tlm_sync_enum gpu_testbench::mmio_bw(tlm::tlm_generic_payload &, tlm::tlm_phase &phase, sc_time &delay) {
  if (phase == tlm::BEGIN_RESP) {
    nb_response_.notify(delay);
    return tlm::TLM_COMPLETED;
  }
  return tlm::TLM_ACCEPTED;  // END_REQ
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
  if (grant_dmi || dmi_hint_only) t.set_dmi_allowed(true);
  t.set_response_status(tlm::TLM_OK_RESPONSE);
}

bool gpu_testbench::serve_dmi(tlm::tlm_generic_payload &, tlm::tlm_dmi &d) {
  dmi_requests++;
  if (!grant_dmi) return false;  // refused everywhere (the descriptor's initial range)
  dmi_grants++;
  d.set_dmi_ptr(memory.data());
  d.set_start_address(kTestbenchMemBase);
  d.set_end_address(kTestbenchMemBase + memory.size() - 1);
  d.allow_read_write();
  d.set_read_latency(dma_latency);
  d.set_write_latency(dma_latency);
  return true;
}

void gpu_testbench::invalidate_dmi() { dma->invalidate_direct_mem_ptr(0, ~static_cast<sc_dt::uint64>(0)); }

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

// ---- the testbench as a kernel_checks device ----------------------------------------------------

namespace {

class testbench_device : public kernel_checks::device {
 public:
  testbench_device(const std::vector<std::string> &args, cpu_mode mode, uint32_t stack_bytes) {
    simtvp_diag_clear(&diag_);
    std::vector<std::string> words = args;
    if (stack_bytes) {
      words.push_back("-gpgpu_stack_size_limit");
      words.push_back(std::to_string(stack_bytes));
    }
    std::vector<const char *> argv;
    for (const std::string &w : words) argv.push_back(w.c_str());
    cfg_ = std::make_unique<gpu_config>();
    if (load_default_config(cfg_.get(), argv, &diag_) != SIMTVP_OK) {
      ADD_FAILURE() << diag_.message;
      return;
    }
    simtvp::gpu_top_options o;
    o.print = [this](const char *text, size_t len) { printed_.append(text, len); };
    // Kernel faults are expected by some checks: kept, not reported as SystemC errors.
    o.messages.ctx = &messages_;
    o.messages.emit = [](void *ctx, simtvp_severity, const char *text) {
      static_cast<std::string *>(ctx)->append(text).append("\n");
    };
    gpu_ = simtvp::gpu_top::create("gpu", *cfg_, o, &diag_);
    if (!gpu_) {
      ADD_FAILURE() << diag_.message;
      return;
    }
    tb_ = new gpu_testbench("tb", 64u << 20, sc_time(50, SC_NS));
    tb_->mode = mode;
    tb_->attach(gpu_);
    sc_core::sc_start(SC_ZERO_TIME);
    simtvp_status st = SIMTVP_OK;
    tb_->call([&](gpu_testbench &tb) { st = drv_open(&tb.bus, nullptr, &d_, &diag_); });
    if (st != SIMTVP_OK) ADD_FAILURE() << diag_.message;
  }

  ~testbench_device() override {
    // The driver closes on the CPU's thread (it talks to the GPU); modules go with it.
    if (d_) tb_->call([&](gpu_testbench &) { drv_close(d_); });
  }

  simtvp_status load(const std::string &ptx, const char *name) override {
    return run([&] { return drv_module_load_ptx(d_, ptx.data(), ptx.size(), name, &mod_, &diag_); });
  }
  simtvp_status alloc(uint64_t bytes, uint64_t *addr) override {
    return run([&] { return drv_mem_alloc(d_, bytes, addr, &diag_); });
  }
  simtvp_status write(uint64_t addr, const void *src, uint64_t bytes) override {
    return run([&] {
      simtvp_status st = drv_memcpy(d_, nullptr, drv_device_ptr(addr), drv_host_ptr(src), bytes, &diag_);
      return st != SIMTVP_OK ? st : drv_sync(d_, &diag_);
    });
  }
  simtvp_status read(uint64_t addr, void *dst, uint64_t bytes) override {
    return run([&] {
      simtvp_status st = drv_memcpy(d_, nullptr, drv_host_ptr(dst), drv_device_ptr(addr), bytes, &diag_);
      return st != SIMTVP_OK ? st : drv_sync(d_, &diag_);
    });
  }
  simtvp_status launch(const char *kernel, const uint32_t grid[3], const uint32_t block[3], uint32_t smem,
                       const void **args) override {
    return run([&] {
      drv_function *f = mod_ ? drv_module_function(mod_, kernel) : nullptr;
      if (!f) return simtvp_diag_set(&diag_, SIMTVP_ERR_ARG, "no kernel %s", kernel);
      drv_function_attrs attrs;
      drv_function_get_attrs(d_, f, &attrs);
      std::vector<void *> argv;
      for (uint32_t i = 0; i < attrs.n_params; i++) argv.push_back(const_cast<void *>(args[i]));
      simtvp_status st = test_support::launch(d_, f, dims(grid[0], grid[1], grid[2]),
                                              dims(block[0], block[1], block[2]), argv, &diag_, smem);
      if (st == SIMTVP_OK) st = drv_sync(d_, &diag_);
      // A kernel fault: the GPU's full report (kernel, CTA, thread, PC, line, address), as the
      // platform gives it (simtvp_host_last_fault).
      if (st != SIMTVP_OK && gpu_->last_fault().status != SIMTVP_OK) diag_ = gpu_->last_fault();
      return st;
    });
  }
  bool symbol(const char *name, uint64_t *addr, uint64_t *bytes) override {
    simtvp_diag d;
    return mod_ && drv_module_global(mod_, name, addr, bytes, &d) == SIMTVP_OK;
  }
  std::string printed() const override { return printed_; }
  const simtvp_diag &diag() const override { return diag_; }

 private:
  template <class F>
  simtvp_status run(F fn) {
    if (!d_) return SIMTVP_ERR_STATE;
    simtvp_status st = SIMTVP_ERR_STATE;
    tb_->call([&](gpu_testbench &) { st = fn(); });
    return st;
  }

  std::unique_ptr<gpu_config> cfg_;
  simtvp::gpu_top *gpu_ = nullptr;  // owned by the simulation (one per process)
  gpu_testbench *tb_ = nullptr;
  drv *d_ = nullptr;
  drv_module *mod_ = nullptr;
  std::string printed_, messages_;
  simtvp_diag diag_;
};

}  // namespace

std::unique_ptr<kernel_checks::device> make_testbench_device(const std::vector<std::string> &args, cpu_mode mode,
                                                             uint32_t stack_bytes) {
  return std::make_unique<testbench_device>(args, mode, stack_bytes);
}

}  // namespace test_support
