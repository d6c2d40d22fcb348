// gpu_top — the GPU module's shell (see gpu_top.h): sockets, clock and reset, and the translation
// between them and the model cores' ports. Behaviour lives in models/gpuctl and the SIMT side.
#include "gpu_top.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "gpu_image.h"
#include "gpu_regs.h"

namespace simtvp {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

namespace {

// Device memory is mapped in pieces of at most this size: each piece is one host allocation that
// the OS backs lazily, and no single allocation is refused for being larger than the host's RAM.
constexpr uint64_t kMapChunk = 1ull << 30;

uint64_t ps_of(const sc_time &t) {
  return static_cast<uint64_t>(t.value() * (sc_core::sc_get_time_resolution().to_seconds() * 1e12) + 0.5);
}

sc_time time_of_ps(uint64_t ps) { return sc_time(static_cast<double>(ps), sc_core::SC_PS); }

// mkdir -p of the directory part of path.
bool make_parent_dirs(const std::string &path) {
  for (size_t i = 1; i < path.size(); i++)
    if (path[i] == '/' && mkdir(path.substr(0, i).c_str(), 0777) != 0 && errno != EEXIST) return false;
  return true;
}

bool in_thread() {
  sc_core::sc_process_handle h = sc_core::sc_get_current_process_handle();
  return h.valid() && h.proc_kind() == sc_core::SC_THREAD_PROC_;
}

}  // namespace

// ---- construction -----------------------------------------------------------------------------

gpu_top *gpu_top::create(sc_core::sc_module_name name, const gpu_config &config,
                         const gpu_top_options &options, simtvp_diag *diag) {
  gpu_params p;
  if (gpu_params_from_config(&config, &p, diag) != SIMTVP_OK) return nullptr;
  if (!find_simt_factory(p.simt_model)) {
    if (!options.simt_fallback_to_func) {
      simtvp_diag_set(diag, SIMTVP_ERR_UNSUPPORTED,
                      "-simt_model: the timing SIMT side (cycle-accurate or approximately timed "
                      "cores) is not part of this build; use -simt_model func");
      simtvp_diag_at_option(diag, "-simt_model");
      return nullptr;
    }
    simtvp_msg(&options.messages, SIMTVP_WARNING,
               "-simt_model %s: the timing SIMT side is not part of this build yet; the SIMT cores "
               "run functionally (no kernel timing)",
               gpu_fidelity_name(static_cast<gpu_fidelity>(config.fidelity.simt_model)));
    p.simt_model = "func";
    p.ctl.ctas_per_cycle = 0;  // as gpu_params gives the functional side
    p.ctl.kernel_launch_cycles = 0;
    p.ctl.cta_launch_cycles = 0;
  }
  auto *g = new gpu_top(name, config, p, options);
  if (g->build_status_ != SIMTVP_OK) {
    if (diag) *diag = g->build_diag_;
    delete g;
    return nullptr;
  }
  return g;
}

gpu_top::gpu_top(sc_core::sc_module_name name, const gpu_config &config, const gpu_params &params,
                 const gpu_top_options &options)
    : sc_module(name), bar0("bar0"), dma("dma"), irq("irq"), clk("clk"), rst("rst"),
      config_(config), params_(params), options_(options) {
  bar0.register_b_transport(this, &gpu_top::b_transport);
  bar0.register_transport_dbg(this, &gpu_top::transport_dbg);
  dma.register_invalidate_direct_mem_ptr(this, &gpu_top::invalidate_dmi);
  irq.initialize(false);
  hz_ = params_.core_clock_hz;
  simtvp_diag_clear(&build_diag_);
  // Built here, inside the constructor, so that a timing SIMT side's modules become children of
  // this module.
  build_status_ = build(&build_diag_);
  SC_THREAD(run);
  set_stack_size(options_.stack_bytes);  // functional CTAs and program decoding run here
  SC_METHOD(drive_irq);
  sensitive << irq_changed_;
  dont_initialize();
}

void gpu_top::drive_irq() {
  irq.write(irq_level_);
  wake_.notify(SC_ZERO_TIME);  // the thread re-evaluates quiescence once the port has the level
}

gpu_top::~gpu_top() {
  if (line_stats_) std::fclose(line_stats_);
  gpuctl_destroy(ctl_);
  simt_.reset();
  devmem_destroy(mem_);
}

void gpu_top::message(simtvp_severity severity, const char *text) {
  if (options_.messages.emit) {
    options_.messages.emit(options_.messages.ctx, severity, text);
    return;
  }
  switch (severity) {
  case SIMTVP_INFO: SC_REPORT_INFO(name(), text); break;
  case SIMTVP_WARNING: SC_REPORT_WARNING(name(), text); break;
  default: SC_REPORT_ERROR(name(), text); break;
  }
}

simtvp_status gpu_top::map_memory(simtvp_diag *diag) {
  const gpu_caps &c = params_.ctl.caps;
  for (uint64_t off = 0; off < c.devmem_bytes; off += kMapChunk) {
    uint64_t n = std::min(kMapChunk, c.devmem_bytes - off);
    simtvp_status st = devmem_map(mem_, c.devmem_base + off, n, diag);
    if (st != SIMTVP_OK) return st;
  }
  if (!params_.heap_bytes) return SIMTVP_OK;
  // The device malloc heap is the GPU's own block (kernels reach it; the memory checker knows it).
  simtvp_status st = devmem_map(mem_, params_.heap_base, params_.heap_bytes, diag);
  if (st != SIMTVP_OK) return st;
  return devmem_block_add(mem_, params_.heap_base, params_.heap_bytes, 0, DEVMEM_BLOCK_INTERNAL, diag);
}

// MMU_CTRL.ENABLE (gpu-abi.md "Device memory map"): on, device memory holds only the declared
// blocks' pages (contents dropped); off, all of it is mapped again.
void gpu_top::mmu_enable(bool on) {
  if (on == mmu_on_) return;
  mmu_on_ = on;
  const gpu_caps &c = params_.ctl.caps;
  devmem_unmap(mem_, c.devmem_base, c.devmem_bytes);
  simtvp_diag d;
  simtvp_diag_clear(&d);
  simtvp_status st = SIMTVP_OK;
  if (!on) {
    for (uint64_t off = 0; off < c.devmem_bytes && st == SIMTVP_OK; off += kMapChunk)
      st = devmem_map(mem_, c.devmem_base + off, std::min(kMapChunk, c.devmem_bytes - off), &d);
  } else {  // blocks declared before: their pages again
    st = devmem_blocks_map(mem_, &d);
  }
  if (st != SIMTVP_OK) message(SIMTVP_ERROR, d.message);
}

uint32_t gpu_top::report_leaks() {
  if (!params_.func.memcheck) return 0;
  uint32_t n, leaks = 0;
  uint64_t bytes = 0;
  const devmem_block *b = devmem_blocks(mem_, &n);
  for (uint32_t i = 0; i < n; i++) {
    if (b[i].flags & DEVMEM_BLOCK_INTERNAL) continue;
    char site[200] = "";
    if (b[i].tag) {
      char name[160] = "";
      if (options_.site_name && options_.site_name(b[i].tag, name, sizeof name) > 0)
        std::snprintf(site, sizeof site, ", allocated at %s", name);
      else
        std::snprintf(site, sizeof site, ", allocated at host 0x%" PRIx64, b[i].tag);
    }
    char text[400];
    std::snprintf(text, sizeof text, "memcheck: leak: %" PRIu64 " bytes at 0x%" PRIx64 " (allocation #%u%s) were never freed",
                  b[i].size, b[i].addr, b[i].serial, site);
    message(SIMTVP_WARNING, text);
    leaks++;
    bytes += b[i].size;
  }
  char text[200];
  std::snprintf(text, sizeof text, "memcheck: %u allocation%s (%" PRIu64 " bytes) leaked", leaks, leaks == 1 ? "" : "s",
                bytes);
  message(leaks ? SIMTVP_WARNING : SIMTVP_INFO, text);
  return leaks;
}

simtvp_status gpu_top::build(simtvp_diag *diag) {
  mem_ = devmem_create();
  if (!mem_) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "%s: out of host memory", name());
  simtvp_status st = map_memory(diag);
  if (st != SIMTVP_OK) return st;

  // GPGPU-Sim's headline statistics first, so the text output starts with them.
  if (options_.st) {
    gpu_sim_cycle_ = stats_counter(options_.st, "gpu_sim_cycle", "cycles",
                                   "core-clock cycles during which a kernel runs (concurrent kernels count once)");
    stats_counter(options_.st, "gpu_sim_insn", "insn", "thread instructions executed");
    stats_ratio(options_.st, "gpu_ipc", "thread instructions per core cycle", "gpu_sim_insn",
                "gpu_sim_cycle");
  }

  simt_env env;
  env.config = &config_;
  env.params = &params_;
  env.mem = mem_;
  env.st = options_.st;
  env.func.ctx = this;
  env.func.print = [](void *ctx, const char *text, size_t len) {
    auto *g = static_cast<gpu_top *>(ctx);
    if (g->options_.print) {
      g->options_.print(text, len);
    } else {
      std::fwrite(text, 1, len, stdout);
      std::fflush(stdout);
    }
  };
  env.messages.ctx = this;
  env.messages.emit = [](void *ctx, simtvp_severity sev, const char *text) {
    static_cast<gpu_top *>(ctx)->message(sev, text);
  };
  env.func.messages = env.messages;
  if (options_.site_name)
    env.func.site_name = [](void *ctx, uint64_t tag, char *buf, size_t size) {
      return static_cast<gpu_top *>(ctx)->options_.site_name(tag, buf, size);
    };
  env.cta_done = [this](uint32_t sm, uint32_t slot, const gpu_cta_result &r) { cta_done(sm, slot, r); };
  env.wake = [this]() { wake_.notify(SC_ZERO_TIME); };
  env.abort_kernel = [this](uint32_t slot, const gpu_cta_result &why) {
    gpuctl_abort_kernel(ctl_, slot, &why, cycle());
    wake_.notify(SC_ZERO_TIME);
  };
  simt_ = find_simt_factory(params_.simt_model)("simt", env, diag);
  if (!simt_) return diag ? diag->status : SIMTVP_ERR_CONFIG;

  gpuctl_ports ports{};
  ports.sysmem.ctx = this;
  ports.sysmem.read = [](void *ctx, uint64_t a, void *dst, uint64_t n) {
    return static_cast<gpu_top *>(ctx)->dma_access(tlm::TLM_READ_COMMAND, a, static_cast<uint8_t *>(dst), n);
  };
  ports.sysmem.write = [](void *ctx, uint64_t a, const void *src, uint64_t n) {
    return static_cast<gpu_top *>(ctx)->dma_access(tlm::TLM_WRITE_COMMAND, a,
                                                   const_cast<uint8_t *>(static_cast<const uint8_t *>(src)), n);
  };
  ports.devmem.ctx = mem_;
  ports.devmem.read = [](void *ctx, uint64_t a, void *dst, uint64_t n) {
    return devmem_read(static_cast<devmem *>(ctx), a, dst, n, nullptr) == SIMTVP_OK;
  };
  ports.devmem.write = [](void *ctx, uint64_t a, const void *src, uint64_t n) {
    return devmem_write(static_cast<devmem *>(ctx), a, src, n, nullptr) == SIMTVP_OK;
  };
  ports.mmu.ctx = this;
  ports.mmu.enable = [](void *ctx, bool on) { static_cast<gpu_top *>(ctx)->mmu_enable(on); };
  ports.mmu.map = [](void *ctx, uint64_t a, uint64_t n, uint64_t tag, uint32_t flags) {
    auto *g = static_cast<gpu_top *>(ctx);
    simtvp_diag d;
    simtvp_diag_clear(&d);
    uint32_t f = ((flags & GPU_MMU_INTERNAL) ? (uint32_t)DEVMEM_BLOCK_INTERNAL : 0u) |
                 ((flags & GPU_MMU_CODE) ? (uint32_t)DEVMEM_BLOCK_CODE : 0u);
    return devmem_block_add(g->mem_, a, n, tag, f, &d) == SIMTVP_OK;
  };
  ports.mmu.unmap = [](void *ctx, uint64_t a) {
    auto *g = static_cast<gpu_top *>(ctx);
    return devmem_block_remove(g->mem_, a, g->mmu_on_);
  };
  ports.simt = wrap_simt_port(simt_->port());
  ports.irq.ctx = this;
  ports.irq.set = [](void *ctx, bool level) {
    auto *g = static_cast<gpu_top *>(ctx);
    // Written by the module's own method only: the port has one driver whichever process (the
    // module's thread, a b_transport caller) changed the level.
    g->irq_level_ = level;
    if (g->elaborated_) g->irq_changed_.notify(SC_ZERO_TIME);
  };
  ctl_ = gpuctl_create(&params_.ctl, ports, diag);
  if (!ctl_) return diag ? diag->status : SIMTVP_ERR_CONFIG;
  if (options_.st) gpuctl_register_stats(ctl_, options_.st);
  return SIMTVP_OK;
}

void gpu_top::end_of_elaboration() {
  inputs_ |= wake_;
  if (clk.size()) inputs_ |= clk->value_changed_event();
  if (rst.size()) inputs_ |= rst->value_changed_event();
  elaborated_ = true;
  irq.initialize(irq_level_);
}

// ---- time -----------------------------------------------------------------------------------

// Cycle n of the control clock has its edge at floor(n x 10^12 / hz) ps after the base — the same
// edges as the timing side's clock domains (tlm/common clock_domain), so a core-clock block and
// the control side agree on the cycle of every instant.
uint64_t gpu_top::cycle() const {
  if (!hz_) return base_cycle_;
  sc_time now = sc_core::sc_time_stamp();
  unsigned __int128 ps = ps_of(now - base_time_);
  return base_cycle_ + static_cast<uint64_t>(((ps + 1) * hz_ - 1) / 1000000000000ull);
}

sc_time gpu_top::time_of(uint64_t c) const {
  if (c <= base_cycle_) return base_time_;
  unsigned __int128 ps = static_cast<unsigned __int128>(c - base_cycle_) * 1000000000000ull / hz_;
  return base_time_ + time_of_ps(ps > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(ps));
}

void gpu_top::apply_inputs() {
  if (clk.size()) {
    uint64_t hz = clk->read();
    if (hz != hz_) {  // rebase: cycles so far at the old frequency, the rest at the new one
      base_cycle_ = cycle();
      base_time_ = sc_core::sc_time_stamp();
      hz_ = hz;
    }
  }
  if (rst.size()) {
    bool level = rst->read();
    if (level && !rst_level_) hardware_reset();
    rst_level_ = level;
  }
}

uint64_t gpu_top::advance() {
  apply_inputs();
  uint64_t now = cycle();
  gpuctl_advance(ctl_, now);
  return now;
}

bool gpu_top::busy() const {
  return !(gpuctl_idle(ctl_) && gpuctl_next_event(ctl_) == UINT64_MAX && simt_->idle());
}

bool gpu_top::quiescent() const {
  // An interrupt level not yet on the port (drive_irq writes it a delta later) is still to come.
  return !busy() && (!elaborated_ || irq.read() == irq_level_);
}

void gpu_top::run() {
  for (;;) {
    advance();
    update_quiescence();
    uint64_t next = gpuctl_next_event(ctl_);
    if (next == UINT64_MAX || hz_ == 0) {
      wait(inputs_);
    } else {
      sc_time t = time_of(next), now = sc_core::sc_time_stamp();
      wait(t > now ? t - now : SC_ZERO_TIME, inputs_);
    }
  }
}

void gpu_top::update_quiescence() {
  bool b = busy(), q = quiescent();
  if (b && !was_busy_) busy_event_.notify(SC_ZERO_TIME);
  if (q && !was_quiescent_) quiescent_event_.notify(SC_ZERO_TIME);
  was_busy_ = b;
  was_quiescent_ = q;
}

void gpu_top::hardware_reset() {
  gpuctl_reset(ctl_);
  simt_->reset();
  count_busy_cycles();
  kernels_running_ = 0;
  for (running &r : running_)
    if (r.launch_uid) {
      if (options_.st) stats_kernel_end_uid(options_.st, r.launch_uid);
      r.launch_uid = 0;
    }
  // Device memory reads as zero again; no block is live, the MMU is off (MMU_CTRL resets to 0).
  const gpu_caps &c = params_.ctl.caps;
  uint32_t n_blocks;
  while (devmem_blocks(mem_, &n_blocks), n_blocks)
    devmem_block_remove(mem_, devmem_blocks(mem_, &n_blocks)[0].addr, false);
  mmu_on_ = false;
  devmem_unmap(mem_, c.devmem_base, c.devmem_bytes);
  if (params_.heap_bytes) devmem_unmap(mem_, params_.heap_base, params_.heap_bytes);
  simtvp_diag d;
  simtvp_diag_clear(&d);
  if (map_memory(&d) != SIMTVP_OK) message(SIMTVP_ERROR, d.message);
  wake_.notify(SC_ZERO_TIME);
}

// ---- BAR0 -----------------------------------------------------------------------------------

void gpu_top::b_transport(tlm::tlm_generic_payload &t, sc_time &delay) {
  // The access happens at the annotated time: synchronise to it (MMIO is never decoupled).
  if (delay > SC_ZERO_TIME && in_thread()) {
    wait(delay);
    delay = SC_ZERO_TIME;
  }
  t.set_dmi_allowed(false);
  tlm::tlm_command cmd = t.get_command();
  if (cmd == tlm::TLM_IGNORE_COMMAND) {
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  uint64_t addr = t.get_address();
  unsigned len = t.get_data_length();
  if (addr >= GPU_BAR0_BYTES || len > GPU_BAR0_BYTES - addr) {
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
  uint32_t off = static_cast<uint32_t>(addr);
  bool mapped = gpu_regs_lookup(gpuctl_regs(ctl_), off & ~3u) != nullptr;
  uint64_t now = advance();
  // Every access reaches the register block, which records bad ones in ERR_STATUS (gpu_abi.h).
  if (cmd == tlm::TLM_READ_COMMAND) {
    uint32_t v = gpuctl_mmio_read(ctl_, off, len, now);
    std::memset(t.get_data_ptr(), 0, len);
    std::memcpy(t.get_data_ptr(), &v, std::min(len, 4u));
  } else {
    uint32_t v = 0;
    std::memcpy(&v, t.get_data_ptr(), std::min(len, 4u));
    gpuctl_mmio_write(ctl_, off, len, v, now);
    gpuctl_advance(ctl_, now);  // a doorbell is handled here
    update_quiescence();
  }
  wake_.notify();  // the next event may be earlier now
  if (len != 4)
    t.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
  else if ((off & 3) || !mapped)
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
  else
    t.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned int gpu_top::transport_dbg(tlm::tlm_generic_payload &t) {
  uint64_t addr = t.get_address();
  unsigned len = t.get_data_length();
  if (t.get_command() != tlm::TLM_READ_COMMAND || addr >= GPU_BAR0_BYTES) return 0;
  len = static_cast<unsigned>(std::min<uint64_t>(len, GPU_BAR0_BYTES - addr));
  const gpu_regs *regs = gpuctl_regs(ctl_);
  for (unsigned i = 0; i < len; i++) {
    uint32_t word = gpu_regs_fw_read(regs, static_cast<uint32_t>((addr + i) & ~3ull));
    t.get_data_ptr()[i] = static_cast<unsigned char>(word >> (8 * ((addr + i) & 3)));
  }
  t.set_response_status(tlm::TLM_OK_RESPONSE);
  return len;
}

// ---- DMA ----------------------------------------------------------------------------------------

bool gpu_top::dma_access(tlm::tlm_command cmd, uint64_t addr, uint8_t *data, uint64_t len) {
  while (len) {
    if (dmi_valid_ && addr >= dmi_.get_start_address() && addr - dmi_.get_start_address() < (1ull << 62) &&
        len - 1 <= dmi_.get_end_address() - addr &&
        (cmd == tlm::TLM_READ_COMMAND ? dmi_.is_read_allowed() : dmi_.is_write_allowed())) {
      uint8_t *p = dmi_.get_dmi_ptr() + (addr - dmi_.get_start_address());
      if (cmd == tlm::TLM_READ_COMMAND)
        std::memcpy(data, p, len);
      else
        std::memcpy(p, data, len);
      return true;
    }
    unsigned chunk = static_cast<unsigned>(std::min<uint64_t>(len, 1u << 30));
    tlm::tlm_generic_payload t;
    t.set_command(cmd);
    t.set_address(addr);
    t.set_data_ptr(data);
    t.set_data_length(chunk);
    t.set_streaming_width(chunk);
    t.set_byte_enable_ptr(nullptr);
    t.set_dmi_allowed(false);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time delay = SC_ZERO_TIME;  // the engines' own timing decides; see gpu_top.h
    dma->b_transport(t, delay);
    if (t.is_response_error()) return false;
    if (t.is_dmi_allowed() && !dmi_valid_ && !dmi_refused_) {
      tlm::tlm_generic_payload q;
      q.set_command(cmd);
      q.set_address(addr);
      dmi_.init();
      dmi_valid_ = dma->get_direct_mem_ptr(q, dmi_);
      dmi_refused_ = !dmi_valid_;
    }
    addr += chunk;
    data += chunk;
    len -= chunk;
  }
  return true;
}

void gpu_top::invalidate_dmi(sc_dt::uint64 start, sc_dt::uint64 end) {
  if (dmi_valid_ && start <= dmi_.get_end_address() && end >= dmi_.get_start_address()) dmi_valid_ = false;
  dmi_refused_ = false;
}

// ---- SIMT side and statistics -------------------------------------------------------------------

// gpu_sim_cycle counts the core cycles during which at least one kernel runs (concurrent kernels
// count once), added at every kernel boundary so each kernel's statistics hold its share.
void gpu_top::count_busy_cycles() {
  uint64_t now = cycle();
  if (kernels_running_ && gpu_sim_cycle_ && now > busy_mark_) *gpu_sim_cycle_ += now - busy_mark_;
  busy_mark_ = now;
}

void gpu_top::cta_done(uint32_t sm, uint32_t kernel_slot, const gpu_cta_result &r) {
  gpuctl_cta_done(ctl_, sm, kernel_slot, &r, cycle());
  wake_.notify(SC_ZERO_TIME);
}

const std::string &gpu_top::kernel_name(const gpu_kernel &k) {
  static const std::string unknown = "(unknown kernel)";
  gpu_image_header h;
  if (devmem_read(mem_, k.desc.image_addr, &h, sizeof h, nullptr) != SIMTVP_OK) return unknown;
  auto key = std::make_pair(k.desc.image_addr, h.load_id);
  auto it = names_.find(key);
  if (it == names_.end()) {
    if (names_.size() >= 256) names_.clear();  // modules come and go; keep the cache small
    std::vector<std::string> names;
    gpu_mem_port port{mem_,
                      [](void *ctx, uint64_t a, void *dst, uint64_t n) {
                        return devmem_read(static_cast<devmem *>(ctx), a, dst, n, nullptr) == SIMTVP_OK;
                      },
                      nullptr};
    gpu_image *img = nullptr;
    if (gpu_image_load(&port, k.desc.image_addr, &img, nullptr) == SIMTVP_OK) {
      for (uint32_t i = 0; i < img->module->n_functions; i++)
        names.emplace_back(img->module->functions[i].name ? img->module->functions[i].name : "");
      gpu_image_free(img);
    }
    it = names_.emplace(key, std::move(names)).first;
  }
  if (k.desc.entry >= it->second.size()) return unknown;
  return it->second[k.desc.entry];
}

gpu_simt_port gpu_top::wrap_simt_port(gpu_simt_port inner) {
  simt_inner_ = inner;
  gpu_simt_port p;
  p.ctx = this;
  p.kernel_begin = [](void *ctx, const gpu_kernel *k, gpu_kernel_result *why) {
    auto *g = static_cast<gpu_top *>(ctx);
    if (g->simt_inner_.kernel_begin && !g->simt_inner_.kernel_begin(g->simt_inner_.ctx, k, why))
      return false;  // refused: ends at once with *why, no kernel_end, no statistics
    if (k->slot >= g->running_.size()) g->running_.resize(k->slot + 1);
    running &r = g->running_[k->slot];
    r.launch_uid = k->launch_uid;
    r.begin = sc_core::sc_time_stamp();
    r.begin_cycle = g->cycle();
    r.name = g->kernel_name(*k);
    g->count_busy_cycles();
    g->kernels_running_++;
    if (g->options_.st) stats_kernel_begin(g->options_.st, r.name.c_str(), k->launch_uid);
    return true;
  };
  p.launch_cta = [](void *ctx, const gpu_kernel *k, uint32_t sm, const uint32_t cta[3]) {
    auto *g = static_cast<gpu_top *>(ctx);
    g->simt_inner_.launch_cta(g->simt_inner_.ctx, k, sm, cta);
  };
  p.kernel_end = [](void *ctx, const gpu_kernel *k) {
    auto *g = static_cast<gpu_top *>(ctx);
    if (g->simt_inner_.kernel_end) g->simt_inner_.kernel_end(g->simt_inner_.ctx, k);
    if (k->slot >= g->running_.size() || g->running_[k->slot].launch_uid != k->launch_uid) return;
    running &r = g->running_[k->slot];
    gpu_kernel_record rec;
    rec.name = r.name;
    rec.launch_uid = r.launch_uid;
    rec.begin = r.begin;
    rec.end = sc_core::sc_time_stamp();
    rec.core_cycles = g->cycle() - r.begin_cycle;
    r.launch_uid = 0;
    g->count_busy_cycles();
    if (g->kernels_running_) g->kernels_running_--;
    if (g->options_.st) stats_kernel_end_uid(g->options_.st, rec.launch_uid);
    if (g->config_.output.ptx_line_stats) g->write_line_stats(rec.launch_uid);
    if (g->kernel_hook_) g->kernel_hook_(rec);
  };
  return p;
}

// ---- PTX source-line statistics ----------------------------------------------------------------

// The kernel that just ended is the sink's last completed one; its per-line profile (counted per
// instruction by models/func, folded by models/stats) is appended as one section.
void gpu_top::write_line_stats(uint64_t launch_uid) {
  stats *st = options_.st;
  if (!st || line_stats_failed_) return;
  uint32_t n = stats_kernel_count(st);
  if (!n || stats_kernel_uid(st, n - 1) != launch_uid) return;
  if (!line_stats_) {
    std::string path = config_.output.ptx_line_stats_file;
    const char *env = std::getenv("SIMTVP_OUTDIR");
    std::string dir = !options_.out_dir.empty() ? options_.out_dir : env && *env ? env : "";
    if (path[0] != '/' && !dir.empty()) path = dir + "/" + path;
    if (!make_parent_dirs(path) || !(line_stats_ = std::fopen(path.c_str(), "w"))) {
      line_stats_failed_ = true;
      char text[1200];
      std::snprintf(text, sizeof text,
                    "-ptx_line_stats_filename: cannot write the PTX line statistics to %s: %s (the "
                    "statistics JSON still has them)",
                    path.c_str(), std::strerror(errno));
      message(SIMTVP_ERROR, text);
      return;
    }
    std::fprintf(line_stats_, "# simtvp PTX source-line statistics (-enable_ptx_file_line_stats), one "
                              "section per kernel in completion order\n");
  }
  stats_write_code_lines(st, n - 1, line_stats_);
  std::fflush(line_stats_);
}

}  // namespace simtvp
