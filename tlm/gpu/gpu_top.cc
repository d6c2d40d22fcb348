// gpu_top — the GPU module's shell (see gpu_top.h): sockets, clock and reset, and the translation
// between them and the model cores' ports. Behaviour lives in models/gpuctl and the SIMT side.
#include "gpu_top.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <utility>
#include <vector>

#include "config.h"
#include "devmem.h"
#include "gpu_config.h"
#include "gpu_image.h"
#include "gpu_params.h"
#include "gpu_regs.h"
#include "gpu_windows.h"
#include "gpuctl.h"
#include "simt_subsystem.h"
#include "simtvp_version.h"
#include "system_agent.h"

namespace simtvp {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

namespace {

// Device memory is mapped in pieces of at most this size: each piece is one host allocation that
// the OS backs lazily, and no single allocation is refused for being larger than the host's RAM.
constexpr uint64_t kMapChunk = 1ull << 30;
// DMI regions the DMA initiator keeps (most recently granted first).
constexpr size_t kDmiRegions = 4;

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

bool is_dir(const std::string &p) {
  struct stat sb;
  return !p.empty() && stat(p.c_str(), &sb) == 0 && S_ISDIR(sb.st_mode);
}

}  // namespace

// ---- where things are ---------------------------------------------------------------------------

std::string config_dir() {
  if (const char *env = std::getenv("SIMTVP_CONFIG_DIR"))
    if (*env) return env;
  // Installed: <libdir>/<SIMTVP_LIB_TO_CONFIGS> from the file that holds this code (the shared
  // library, or a program linked statically).
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&config_dir), &info) && info.dli_fname) {
    std::string lib = info.dli_fname;
    size_t slash = lib.rfind('/');
    if (slash != std::string::npos) {
      std::string installed = lib.substr(0, slash) + "/" SIMTVP_LIB_TO_CONFIGS;
      if (is_dir(installed)) return installed;
    }
  }
  if (is_dir(SIMTVP_SOURCE_CONFIG_DIR)) return SIMTVP_SOURCE_CONFIG_DIR;
  return "";
}

const char *version() { return SIMTVP_VERSION_STRING; }

namespace {

// FILE as given when readable or a path; else config_dir()/FILE or config_dir()/FILE.config.
std::string resolve_config_file(const std::string &name) {
  if (access(name.c_str(), R_OK) == 0 || name.find('/') != std::string::npos) return name;
  std::string dir = config_dir();
  if (!dir.empty())
    for (const char *suffix : {"", ".config"}) {
      std::string p = dir + "/" + name + suffix;
      if (access(p.c_str(), R_OK) == 0) return p;
    }
  return name;
}

}  // namespace

// ---- state --------------------------------------------------------------------------------------

struct gpu_top::state {
  state(const gpu_config &c, const gpu_params &p, const gpu_top_options &o) : config(c), params(p), options(o) {}

  const gpu_config config;
  gpu_params params;
  gpu_top_options options;
  gpuctl *ctl = nullptr;
  devmem *mem = nullptr;
  bool memmap_on = false;  // MEMMAP_CTRL.ENABLE: only declared blocks are mapped
  std::unique_ptr<simt_subsystem> simt;
  gpu_simt_port simt_inner{};
  gpu_top::ats_port ats;  // the system IOMMU (shared_va)

  // Clock: cycle(t) = base_cycle + (t - base_time) * hz (hz 0: stopped).
  uint64_t hz = 0;
  uint64_t base_cycle = 0;
  sc_time base_time;
  // The last cycle() asked and its instant: a CTA's completion and the thread's advance at the
  // same instant ask twice, and the cycle costs a 128-bit division. Forgotten when the clock
  // is rebased.
  mutable sc_time memo_time;
  mutable uint64_t memo_cycle = 0;
  mutable bool memo_valid = false;
  bool rst_level = false;
  bool irq_level = false, elaborated = false;
  simtvp_status build_status = SIMTVP_OK;
  simtvp_diag build_diag;

  sc_core::sc_event wake;                       // something changed: re-evaluate the next event
  sc_core::sc_event irq_changed;
  sc_core::sc_event quiescent_event, busy_event;
  sc_core::sc_event_or_list inputs;             // wake plus the bound clk/rst ports' events
  bool was_quiescent = true, was_busy = false;

  // DMA: DMI regions granted on the dma socket, ranges the target refused DMI for.
  struct dmi_region {
    sc_dt::uint64 start, end;
    unsigned char *ptr;
    bool read, write;
  };
  std::vector<dmi_region> dmi;
  std::vector<std::pair<sc_dt::uint64, sc_dt::uint64>> dmi_refused;
  gpu_dma_counters dma;
  // System memory mapped by MAP_SYSMEM: GPU address -> bytes (dropped at reset).
  std::map<uint64_t, uint64_t> sysmaps;
  // Virtual pages the functional engine translated onto a page the store maps onto system memory
  // (managed pages the GPU maps remotely) and back: where a timing side's request, which carries
  // the virtual address, goes (models/gpuctl/gpu_windows.h).
  std::unique_ptr<gpu_windows, void (*)(gpu_windows *)> windows{new_windows(), gpu_windows_destroy};
  static gpu_windows *new_windows() {
    gpu_windows *w = gpu_windows_create(DEVMEM_PAGE_BITS);
    if (!w) throw std::bad_alloc();
    return w;
  }

  // Statistics.
  uint64_t *gpu_sim_cycle = nullptr;
  uint32_t kernels_running = 0;
  uint64_t busy_mark = 0;  // cycle up to which gpu_sim_cycle counts
  struct running {
    uint64_t launch_uid = 0, begin_cycle = 0;
    sc_time begin;
    std::string name;
    gpu_kernel_record shape;  // grid, block … (the launch's shape, copied into the record)
  };
  std::vector<running> runs;  // by dispatcher slot
  std::map<std::pair<uint64_t, uint64_t>, std::vector<std::string>> names;  // (image, load_id)
  std::function<void(const gpu_kernel_record &)> kernel_hook;
  std::vector<std::function<void(const gpu_event &)>> observers;  // passive (add_observer)

  // PTX source-line statistics (-enable_ptx_file_line_stats): one section per kernel, appended to
  // -ptx_line_stats_filename as each kernel ends (the file is started by the first).
  std::FILE *line_stats = nullptr;
  bool line_stats_failed = false;
};

// ---- construction -----------------------------------------------------------------------------

gpu_top *gpu_top::create(sc_core::sc_module_name name, const gpu_config &config,
                         const gpu_top_options &options, simtvp_diag *diag) {
  gpu_params p;
  if (gpu_params_from_config(&config, &p, diag) != SIMTVP_OK) return nullptr;
  if (!find_simt_factory(p.simt_model)) {
    simtvp_diag_set(diag, SIMTVP_ERR_UNSUPPORTED, "-simt_model: no SIMT side named \"%s\"", p.simt_model);
    simtvp_diag_at_option(diag, "-simt_model");
    return nullptr;
  }
  auto *g = new gpu_top(name, std::make_unique<state>(config, p, options));
  if (g->s_->build_status != SIMTVP_OK) {
    if (diag) *diag = g->s_->build_diag;
    delete g;
    return nullptr;
  }
  return g;
}

gpu_top *gpu_top::create(sc_core::sc_module_name name, const gpu_top_config &src,
                         const gpu_top_options &options, simtvp_diag *diag) {
  auto cfg = std::make_unique<gpu_config>();
  config_registry *r = config_registry_create(options.messages.emit ? &options.messages : nullptr);
  if (!r) {
    simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
    return nullptr;
  }
  config_registry_set_strict(r, src.strict);
  simtvp_status st = gpu_config_register(r, cfg.get(), diag);
  std::vector<std::string> files = src.files;
  if (files.empty()) files.push_back("default.config");
  for (size_t i = 0; st == SIMTVP_OK && i < files.size(); i++) {
    std::string path = resolve_config_file(files[i]);
    if (access(path.c_str(), R_OK) != 0) {
      st = simtvp_diag_set(diag, SIMTVP_ERR_IO, "cannot read the configuration %s: %s%s", path.c_str(),
                           std::strerror(errno),
                           path.find('/') == std::string::npos ? " (not in the working directory nor in the "
                                                                 "installed configurations, config_dir())"
                                                               : "");
      simtvp_diag_at_file(diag, path.c_str(), 0, 0);
      break;
    }
    st = config_registry_load_file(r, path.c_str(), diag);
  }
  if (st == SIMTVP_OK && !src.options.empty()) {
    std::vector<const char *> argv;
    for (const std::string &w : src.options) argv.push_back(w.c_str());
    st = config_registry_parse_args(r, static_cast<int>(argv.size()), argv.data(), diag);
  }
  if (st == SIMTVP_OK) st = gpu_config_finalize(cfg.get(), r, diag);
  config_registry_destroy(r);
  if (st != SIMTVP_OK) return nullptr;
  return create(name, *cfg, options, diag);  // the module keeps its own copy
}

gpu_top::gpu_top(sc_core::sc_module_name name, std::unique_ptr<state> s)
    : sc_module(name), bar0("bar0"), dma("dma"), devmem_dbg("devmem_dbg"), irq("irq"), clk("clk"), rst("rst"),
      s_(std::move(s)) {
  bar0.register_b_transport(this, &gpu_top::b_transport);
  bar0.register_transport_dbg(this, &gpu_top::transport_dbg);
  devmem_dbg.register_b_transport(this, &gpu_top::devmem_b_transport);
  devmem_dbg.register_transport_dbg(this, &gpu_top::devmem_transport_dbg);
  dma.register_invalidate_direct_mem_ptr(this, &gpu_top::invalidate_dmi);
  irq.initialize(false);
  s_->hz = s_->params.core_clock_hz;
  s_->memo_valid = false;
  simtvp_diag_clear(&s_->build_diag);
  // Built here, inside the constructor, so that a timing SIMT side's modules become children of
  // this module.
  s_->build_status = build(&s_->build_diag);
  SC_THREAD(run);
  set_stack_size(s_->options.stack_bytes);  // functional CTAs and program decoding run here
  SC_METHOD(drive_irq);
  sensitive << s_->irq_changed;
  dont_initialize();
}

void gpu_top::drive_irq() {
  irq.write(s_->irq_level);
  s_->wake.notify(SC_ZERO_TIME);  // the thread re-evaluates quiescence once the port has the level
}

gpu_top::~gpu_top() {
  if (s_->line_stats) std::fclose(s_->line_stats);
  gpuctl_destroy(s_->ctl);
  s_->simt.reset();
  devmem_destroy(s_->mem);
}

void gpu_top::message(simtvp_severity severity, const char *text) {
  if (s_->options.messages.emit) {
    s_->options.messages.emit(s_->options.messages.ctx, severity, text);
    return;
  }
  switch (severity) {
  case SIMTVP_INFO: SC_REPORT_INFO(name(), text); break;
  case SIMTVP_WARNING: SC_REPORT_WARNING(name(), text); break;
  default: SC_REPORT_ERROR(name(), text); break;
  }
}

simtvp_status gpu_top::map_memory(simtvp_diag *diag) {
  const gpu_caps &c = s_->params.ctl.caps;
  // An integrated GPU's memory is system memory (its carve-out), mapped once the DMA socket is
  // bound (map_carveout).
  if (gpu_system_integrated(s_->config.system.mode)) return SIMTVP_OK;
  for (uint64_t off = 0; off < c.devmem_bytes; off += kMapChunk) {
    uint64_t n = std::min(kMapChunk, c.devmem_bytes - off);
    simtvp_status st = devmem_map(s_->mem, c.devmem_base + off, n, diag);
    if (st != SIMTVP_OK) return st;
  }
  if (!s_->params.heap_bytes) return SIMTVP_OK;
  // The device malloc heap is the GPU's own block (kernels reach it; the memory checker knows it).
  simtvp_status st = devmem_map(s_->mem, s_->params.heap_base, s_->params.heap_bytes, diag);
  if (st != SIMTVP_OK) return st;
  return devmem_block_add(s_->mem, s_->params.heap_base, s_->params.heap_bytes, 0, DEVMEM_BLOCK_INTERNAL, diag);
}

// MEMMAP_CTRL.ENABLE (gpu-abi.md "Device memory map"): on, device memory holds only the declared
// blocks' pages (contents dropped); off, all of it is mapped again.
void gpu_top::memmap_enable(bool on) {
  if (on == s_->memmap_on) return;
  s_->memmap_on = on;
  // An integrated GPU's device memory is its carve-out of system memory, mapped whole for its
  // lifetime: the blocks are kept for the memory checker, no page is dropped or remapped.
  if (gpu_system_integrated(s_->config.system.mode)) return;
  const gpu_caps &c = s_->params.ctl.caps;
  devmem_unmap(s_->mem, c.devmem_base, c.devmem_bytes);
  simtvp_diag d;
  simtvp_diag_clear(&d);
  simtvp_status st = SIMTVP_OK;
  if (!on) {
    for (uint64_t off = 0; off < c.devmem_bytes && st == SIMTVP_OK; off += kMapChunk)
      st = devmem_map(s_->mem, c.devmem_base + off, std::min(kMapChunk, c.devmem_bytes - off), &d);
  } else {  // blocks declared before: their pages again
    st = devmem_blocks_map(s_->mem, &d);
  }
  if (st != SIMTVP_OK) message(SIMTVP_ERROR, d.message);
}

uint32_t gpu_top::report_leaks() {
  if (!s_->params.func.memcheck) return 0;
  simtvp_msg_port msg{this, [](void *ctx, simtvp_severity sev, const char *text) {
                        static_cast<gpu_top *>(ctx)->message(sev, text);
                      }};
  auto site = [](void *ctx, uint64_t tag, char *buf, size_t size) -> size_t {
    auto *g = static_cast<gpu_top *>(ctx);
    return g->s_->options.site_name ? g->s_->options.site_name(tag, buf, size) : 0;
  };
  return func_memcheck_report_leaks(s_->mem, site, this, &msg);
}

simtvp_status gpu_top::build(simtvp_diag *diag) {
  state &s = *s_;
  s.mem = devmem_create();
  if (!s.mem) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "%s: out of host memory", name());
  simtvp_status st = map_memory(diag);
  if (st != SIMTVP_OK) return st;

  // GPGPU-Sim's headline statistics first, so the text output starts with them.
  if (s.options.st) {
    s.gpu_sim_cycle = stats_counter(s.options.st, "gpu_sim_cycle", "cycles",
                                    "core-clock cycles during which a kernel runs (concurrent kernels count once)");
    stats_counter(s.options.st, "gpu_sim_insn", "insn", "thread instructions executed");
    stats_ratio(s.options.st, "gpu_ipc", "thread instructions per core cycle", "gpu_sim_insn",
                "gpu_sim_cycle");
  }

  simt_env env;
  env.config = &s.config;
  env.params = &s.params;
  env.mem = s.mem;
  env.st = s.options.st;
  env.func.ctx = this;
  env.func.print = [](void *ctx, const char *text, size_t len) {
    auto *g = static_cast<gpu_top *>(ctx);
    if (g->s_->options.print) {
      g->s_->options.print(text, len);
    } else {
      std::fwrite(text, 1, len, stdout);
      std::fflush(stdout);
    }
  };
  // A failed device assert() is the program's own message, on stderr as CUDA prints it.
  env.func.assertion = [](void *ctx, const char *text, size_t len) {
    auto *g = static_cast<gpu_top *>(ctx);
    if (g->s_->options.assertion) {
      g->s_->options.assertion(text, len);
    } else {
      std::fflush(stdout);
      std::fwrite(text, 1, len, stderr);
      std::fflush(stderr);
    }
  };
  env.messages.ctx = this;
  env.messages.emit = [](void *ctx, simtvp_severity sev, const char *text) {
    static_cast<gpu_top *>(ctx)->message(sev, text);
  };
  env.func.messages = env.messages;
  if (s.options.site_name)
    env.func.site_name = [](void *ctx, uint64_t tag, char *buf, size_t size) {
      return static_cast<gpu_top *>(ctx)->s_->options.site_name(tag, buf, size);
    };
  if (s.options.debugger) env.func.debug = *s.options.debugger;
  env.cta_done = [this](uint32_t sm, uint32_t slot, const gpu_cta_result &r) { cta_done(sm, slot, r); };
  // The timing side's hub: where a GPU address lies on the bus (the store's external mappings),
  // and the timing transaction on the DMA initiator.
  env.physical = [this](uint64_t addr) { return physical_of(addr); };
  env.sysmem.translate = [this](const mem_req &req, uint64_t *bus, sc_time *extra) {
    *extra = SC_ZERO_TIME;
    if (devmem_bus_addr(s_->mem, physical_of(req.addr), bus, nullptr)) return true;
    // shared_va: a page the store does not hold may be a host page the system IOMMU translates.
    if (s_->ats.timed && !devmem_page(s_->mem, req.addr >> DEVMEM_PAGE_BITS) &&
        s_->ats.timed(req.addr, req.is_write || req.kind == MEM_ACC_ATOMIC, bus, extra))
      return true;
    // An integrated GPU has no other memory: what the store does not back (the kernel-parameter
    // bank's addresses) is timed as an access of its carve-out, at the same offset modulo its size.
    if (!gpu_system_integrated(s_->config.system.mode)) return false;
    const uint64_t carve = s_->params.ctl.caps.devmem_bytes;
    if (!carve) return false;
    *bus = s_->config.system.carveout_base + (req.addr % carve);
    return true;
  };
  env.sysmem.transport = [this](const mem_req &req, uint64_t bus, sc_time *delay) {
    // the bytes a write carries are those at the physical address (the store holds them there)
    return dma_timed(req.is_write && req.kind != MEM_ACC_ATOMIC, physical_of(req.addr), bus, req.size, delay,
                     req.kind == MEM_ACC_L2_WRBK, req.kind == MEM_ACC_ATOMIC);
  };
  if (s.config.system.mode == GPU_SYSTEM_SHARED_VA)
    env.sysmem.aperture_of = [this](uint64_t addr, uint64_t *bus) -> uint8_t {
      return s_->ats.maps && s_->ats.maps(addr, bus) ? MEM_APERTURE_SYSMEM : MEM_APERTURE_VIDMEM;
    };
  env.wake = [this]() { s_->wake.notify(SC_ZERO_TIME); };
  env.abort_kernel = [this](uint32_t slot, const gpu_cta_result &why) {
    gpuctl_abort_kernel(s_->ctl, slot, &why, cycle());
    s_->wake.notify(SC_ZERO_TIME);
  };
  s.simt = find_simt_factory(s.params.simt_model)("simt", env, diag);
  if (!s.simt) return diag ? diag->status : SIMTVP_ERR_CONFIG;

  gpuctl_ports ports{};
  ports.sysmem.ctx = this;
  ports.sysmem.read = [](void *ctx, uint64_t a, void *dst, uint64_t n) {
    return static_cast<gpu_top *>(ctx)->dma_access(tlm::TLM_READ_COMMAND, a, static_cast<uint8_t *>(dst), n);
  };
  ports.sysmem.write = [](void *ctx, uint64_t a, const void *src, uint64_t n) {
    return static_cast<gpu_top *>(ctx)->dma_access(tlm::TLM_WRITE_COMMAND, a,
                                                   const_cast<uint8_t *>(static_cast<const uint8_t *>(src)), n);
  };
  ports.devmem.ctx = s.mem;
  ports.devmem.read = [](void *ctx, uint64_t a, void *dst, uint64_t n) {
    return devmem_read(static_cast<devmem *>(ctx), a, dst, n, nullptr) == SIMTVP_OK;
  };
  ports.devmem.write = [](void *ctx, uint64_t a, const void *src, uint64_t n) {
    return devmem_write(static_cast<devmem *>(ctx), a, src, n, nullptr) == SIMTVP_OK;
  };
  ports.memmap.ctx = this;
  ports.memmap.enable = [](void *ctx, bool on) { static_cast<gpu_top *>(ctx)->memmap_enable(on); };
  ports.memmap.map = [](void *ctx, uint64_t a, uint64_t n, uint64_t tag, uint32_t flags) {
    auto *g = static_cast<gpu_top *>(ctx);
    simtvp_diag d;
    simtvp_diag_clear(&d);
    uint32_t f = ((flags & GPU_MEMMAP_INTERNAL) ? (uint32_t)DEVMEM_BLOCK_INTERNAL : 0u) |
                 ((flags & GPU_MEMMAP_CODE) ? (uint32_t)DEVMEM_BLOCK_CODE : 0u);
    return devmem_block_add(g->s_->mem, a, n, tag, f, &d) == SIMTVP_OK;
  };
  ports.memmap.unmap = [](void *ctx, uint64_t a) {
    auto *g = static_cast<gpu_top *>(ctx);
    return devmem_block_remove(g->s_->mem, a, g->s_->memmap_on && !gpu_system_integrated(g->s_->config.system.mode));
  };
  ports.simt = wrap_simt_port(s.simt->port());
  ports.host_page.ctx = this;
  ports.host_page.vidmem = [](void *ctx, uint64_t pa) {
    return devmem_page(static_cast<gpu_top *>(ctx)->s_->mem, pa >> DEVMEM_PAGE_BITS);
  };
  ports.host_page.translated = [](void *ctx, uint64_t va, uint32_t aperture, uint64_t pa) {
    static_cast<gpu_top *>(ctx)->translated(va, aperture, pa);
  };
  if (s.config.system.mode == GPU_SYSTEM_SHARED_VA) {
    // The system IOMMU (set_ats): host pages behind the SYSMEM translations it gives.
    ports.host_page.sysmem = [](void *ctx, uint64_t pa) -> uint8_t * {
      auto *g = static_cast<gpu_top *>(ctx);
      return g->s_->ats.host_page ? g->s_->ats.host_page(pa) : nullptr;
    };
    ports.ats.ctx = this;
    ports.ats.translate = [](void *ctx, uint64_t va, bool write, uint64_t *bus, bool *writable) -> uint32_t {
      auto *g = static_cast<gpu_top *>(ctx);
      return g->s_->ats.resolve ? g->s_->ats.resolve(va, write, bus, writable) : 1u;
    };
  }
  ports.sysmap.ctx = this;
  ports.sysmap.map = [](void *ctx, uint64_t va, uint64_t bus, uint64_t bytes) {
    return static_cast<gpu_top *>(ctx)->map_sysmem(va, bus, bytes);
  };
  ports.sysmap.unmap = [](void *ctx, uint64_t va, uint64_t bytes) {
    static_cast<gpu_top *>(ctx)->unmap_sysmem(va, bytes);
  };
  ports.irq.ctx = this;
  ports.irq.set = [](void *ctx, bool level) {
    auto *g = static_cast<gpu_top *>(ctx);
    // Written by the module's own method only: the port has one driver whichever process (the
    // module's thread, a b_transport caller) changed the level.
    if (!g->s_->observers.empty() && level != g->s_->irq_level) {
      gpu_event e{};
      e.kind = gpu_event::irq;
      e.begin = e.end = sc_core::sc_time_stamp();
      e.level = level;
      g->notify(e);
    }
    g->s_->irq_level = level;
    if (g->s_->elaborated) g->s_->irq_changed.notify(SC_ZERO_TIME);
  };
  s.ctl = gpuctl_create(&s.params.ctl, ports, diag);
  if (!s.ctl) return diag ? diag->status : SIMTVP_ERR_CONFIG;
  if (s.options.st) gpuctl_register_stats(s.ctl, s.options.st);
  return SIMTVP_OK;
}

// An integrated GPU (-system_mode other than discrete) has no memory of its own: device memory and
// the device heap are a carve-out of system memory at -gpu_carveout_base, reached through a DMI
// pointer from the DMA socket (the kernels' data), with bus addresses for the timing side's hub.
bool gpu_top::map_carveout() {
  state &s = *s_;
  const gpu_caps &c = s.params.ctl.caps;
  const uint64_t base = s.config.system.carveout_base;
  const uint64_t heap = (s.params.heap_bytes + DEVMEM_PAGE_MASK) & ~DEVMEM_PAGE_MASK;
  const uint64_t bytes = c.devmem_bytes + heap;
  tlm::tlm_generic_payload q;
  q.set_command(tlm::TLM_READ_COMMAND);
  q.set_address(base);
  q.set_data_length(0);
  tlm::tlm_dmi d;
  s.dma.dmi_requests++;
  char text[400];
  if (!dma->get_direct_mem_ptr(q, d) || !d.get_dmi_ptr() || !d.is_read_write_allowed() ||
      d.get_start_address() > base || bytes - 1 > d.get_end_address() - base) {
    std::snprintf(text, sizeof text,
                  "-system_mode %s: the GPU's memory (0x%" PRIx64 " bytes at bus address 0x%" PRIx64
                  ", -gpu_carveout_base) is not system memory that grants direct access; kernels "
                  "cannot run",
                  s.config.system.mode == GPU_SYSTEM_UNIFIED ? "unified" : "(integrated)", bytes, base);
    message(SIMTVP_ERROR, text);
    return false;
  }
  s.dma.dmi_grants++;
  uint8_t *host = d.get_dmi_ptr() + (base - d.get_start_address());
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  if (devmem_map_external(s.mem, c.devmem_base, c.devmem_bytes, host, base, DEVMEM_APERTURE_VIDMEM, &diag) !=
          SIMTVP_OK ||
      (heap && devmem_map_external(s.mem, s.params.heap_base, heap, host + c.devmem_bytes, base + c.devmem_bytes,
                                   DEVMEM_APERTURE_VIDMEM, &diag) != SIMTVP_OK)) {
    message(SIMTVP_ERROR, diag.message);
    return false;
  }
  // The device malloc heap is the GPU's own block (kernels reach it; the memory checker knows it).
  if (s.params.heap_bytes &&
      devmem_block_add(s.mem, s.params.heap_base, s.params.heap_bytes, 0, DEVMEM_BLOCK_INTERNAL, &diag) != SIMTVP_OK) {
    message(SIMTVP_ERROR, diag.message);
    return false;
  }
  return true;
}

void gpu_top::end_of_elaboration() {
  if (gpu_system_integrated(s_->config.system.mode)) map_carveout();
  s_->inputs |= s_->wake;
  if (clk.size()) s_->inputs |= clk->value_changed_event();
  if (rst.size()) s_->inputs |= rst->value_changed_event();
  s_->elaborated = true;
  irq.initialize(s_->irq_level);
}

// ---- accessors ----------------------------------------------------------------------------------

const sc_core::sc_event &gpu_top::quiescent_event() const { return s_->quiescent_event; }
const sc_core::sc_event &gpu_top::busy_event() const { return s_->busy_event; }
void gpu_top::on_kernel_end(std::function<void(const gpu_kernel_record &)> hook) { s_->kernel_hook = std::move(hook); }
uint64_t gpu_top::core_clock_hz() const { return s_->params.core_clock_hz; }
const char *gpu_top::simt_model() const { return s_->simt->model_name(); }
const simtvp_diag &gpu_top::last_fault() const { return s_->simt->last_fault(); }
const gpu_dma_counters &gpu_top::dma_counters() const { return s_->dma; }
const gpu_params &gpu_top::params() const { return s_->params; }
simt_subsystem &gpu_top::simt_side() { return *s_->simt; }
gpuctl *gpu_top::control() { return s_->ctl; }
devmem *gpu_top::memory() { return s_->mem; }

// ---- time -----------------------------------------------------------------------------------

// Cycle n of the control clock has its edge at floor(n x 10^12 / hz) ps after the base — the same
// edges as the timing side's clock domains (tlm/common clock_domain), so a core-clock block and
// the control side agree on the cycle of every instant.
uint64_t gpu_top::cycle() const {
  const state &s = *s_;
  if (!s.hz) return s.base_cycle;
  sc_time now = sc_core::sc_time_stamp();
  if (s.memo_valid && now == s.memo_time) return s.memo_cycle;
  unsigned __int128 ps = ps_of(now - s.base_time);
  s.memo_time = now;
  s.memo_cycle = s.base_cycle + static_cast<uint64_t>(((ps + 1) * s.hz - 1) / 1000000000000ull);
  s.memo_valid = true;
  return s.memo_cycle;
}

sc_time gpu_top::time_of(uint64_t c) const {
  const state &s = *s_;
  if (c <= s.base_cycle) return s.base_time;
  unsigned __int128 ps = static_cast<unsigned __int128>(c - s.base_cycle) * 1000000000000ull / s.hz;
  return s.base_time + time_of_ps(ps > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(ps));
}

void gpu_top::apply_inputs() {
  state &s = *s_;
  if (clk.size()) {
    uint64_t hz = clk->read();
    if (hz != s.hz) {  // rebase: cycles so far at the old frequency, the rest at the new one
      s.base_cycle = cycle();
      s.base_time = sc_core::sc_time_stamp();
      s.hz = hz;
      s.memo_valid = false;
    }
  }
  if (rst.size()) {
    bool level = rst->read();
    if (level && !s.rst_level) hardware_reset();
    s.rst_level = level;
  }
}

uint64_t gpu_top::advance() {
  apply_inputs();
  uint64_t now = cycle();
  gpuctl_advance(s_->ctl, now);
  return now;
}

bool gpu_top::busy() const {
  return !(gpuctl_idle(s_->ctl) && gpuctl_next_event(s_->ctl) == UINT64_MAX && s_->simt->idle());
}

bool gpu_top::quiescent() const {
  // An interrupt level not yet on the port (drive_irq writes it a delta later) is still to come.
  return !busy() && (!s_->elaborated || irq.read() == s_->irq_level);
}

void gpu_top::run() {
  for (;;) {
    advance();
    update_quiescence();
    uint64_t next = gpuctl_next_event(s_->ctl);
    if (next == UINT64_MAX || s_->hz == 0) {
      wait(s_->inputs);
    } else {
      sc_time t = time_of(next), now = sc_core::sc_time_stamp();
      wait(t > now ? t - now : SC_ZERO_TIME, s_->inputs);
    }
  }
}

void gpu_top::update_quiescence() {
  state &s = *s_;
  bool b = busy(), q = quiescent();
  if (b && !s.was_busy) s.busy_event.notify(SC_ZERO_TIME);
  if (q && !s.was_quiescent) s.quiescent_event.notify(SC_ZERO_TIME);
  s.was_busy = b;
  s.was_quiescent = q;
}

void gpu_top::hardware_reset() {
  state &s = *s_;
  gpuctl_reset(s.ctl);
  s.simt->reset();
  count_busy_cycles();
  s.kernels_running = 0;
  for (state::running &r : s.runs)
    if (r.launch_uid) {
      if (s.options.st) stats_kernel_end_uid(s.options.st, r.launch_uid);
      r.launch_uid = 0;
    }
  for (const auto &m : s.sysmaps) devmem_unmap(s.mem, m.first, m.second);
  s.sysmaps.clear();
  gpu_windows_clear(s.windows.get());
  // No block is live, the map is off (MEMMAP_CTRL resets to 0).
  uint32_t n_blocks;
  while (devmem_blocks(s.mem, &n_blocks), n_blocks)
    devmem_block_remove(s.mem, devmem_blocks(s.mem, &n_blocks)[0].addr, false);
  s.memmap_on = false;
  // Device memory reads as zero again; an integrated GPU's is system memory, which a GPU reset
  // leaves as it is (its heap block is declared again).
  if (gpu_system_integrated(s.config.system.mode)) {
    if (s.params.heap_bytes)
      devmem_block_add(s.mem, s.params.heap_base, s.params.heap_bytes, 0, DEVMEM_BLOCK_INTERNAL, nullptr);
    s.wake.notify(SC_ZERO_TIME);
    return;
  }
  const gpu_caps &c = s.params.ctl.caps;
  devmem_unmap(s.mem, c.devmem_base, c.devmem_bytes);
  if (s.params.heap_bytes) devmem_unmap(s.mem, s.params.heap_base, s.params.heap_bytes);
  simtvp_diag d;
  simtvp_diag_clear(&d);
  if (map_memory(&d) != SIMTVP_OK) message(SIMTVP_ERROR, d.message);
  s.wake.notify(SC_ZERO_TIME);
}

// ---- BAR0 -----------------------------------------------------------------------------------

void gpu_top::b_transport(tlm::tlm_generic_payload &t, sc_time &delay) {
  state &s = *s_;
  // The access happens at the annotated time: synchronise to it (MMIO is never decoupled).
  const bool thread = in_thread();
  if (delay > SC_ZERO_TIME && thread) {
    wait(delay);
    delay = SC_ZERO_TIME;
  }
  tlm::tlm_command cmd = t.get_command();
  if (cmd == tlm::TLM_IGNORE_COMMAND) {
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  gpu_regs *regs = gpuctl_regs(s.ctl);
  const uint64_t addr = t.get_address();
  const unsigned len = t.get_data_length();
  const bool write = cmd == tlm::TLM_WRITE_COMMAND;
  // Accesses the register block never sees are recorded here, as it would record them (ABI error
  // table), so the GPU's ERROR interrupt reports every bad access.
  if (addr >= GPU_BAR0_BYTES || len > GPU_BAR0_BYTES - addr) {
    gpu_regs_error(regs, GPU_ERR_REG_UNMAPPED, 0xFF, 0, addr, 0);
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (t.get_byte_enable_ptr()) {
    gpu_regs_error(regs, GPU_ERR_REG_ACCESS_SIZE, 0xFF, 0, addr, len);
    t.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return;
  }
  if (t.get_streaming_width() < len) {
    gpu_regs_error(regs, GPU_ERR_REG_ACCESS_SIZE, 0xFF, 0, addr, t.get_streaming_width());
    t.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  const uint32_t off = static_cast<uint32_t>(addr);
  const gpu_reg_info *ri = gpu_regs_lookup(regs, off & ~3u);
  // From a thread, the control side is brought up to now first (events due at this instant are
  // handled before the access, whichever process SystemC runs first) and a doorbell is handled at
  // once; the DMA that causes runs on the caller's thread. From a method (which must not block, nor
  // make the DMA target's b_transport run in a method), the access uses the state as the module's
  // thread left it and the thread handles the rest.
  uint64_t now = thread ? advance() : cycle();
  // Every access reaches the register block, which records bad ones in ERR_STATUS (gpu_abi.h).
  if (!write) {
    uint32_t v = gpuctl_mmio_read(s.ctl, off, len, now);
    std::memset(t.get_data_ptr(), 0, len);
    std::memcpy(t.get_data_ptr(), &v, std::min(len, 4u));
  } else {
    uint32_t v = 0;
    std::memcpy(&v, t.get_data_ptr(), std::min(len, 4u));
    gpuctl_mmio_write(s.ctl, off, len, v, now);
    if (thread) {
      gpuctl_advance(s.ctl, now);  // a doorbell is handled here
      update_quiescence();
    }
  }
  s.wake.notify();  // the next event may be earlier now
  if (len != 4)
    t.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
  else if ((off & 3) || !ri)
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
  else if ((write && ri->access == GPU_ACC_RO) || (!write && ri->access == GPU_ACC_WO))
    t.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
  else
    t.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned int gpu_top::transport_dbg(tlm::tlm_generic_payload &t) {
  uint64_t addr = t.get_address();
  unsigned len = t.get_data_length();
  if (t.get_command() != tlm::TLM_READ_COMMAND || addr >= GPU_BAR0_BYTES) return 0;
  len = static_cast<unsigned>(std::min<uint64_t>(len, GPU_BAR0_BYTES - addr));
  const gpu_regs *regs = gpuctl_regs(s_->ctl);
  for (unsigned i = 0; i < len; i++) {
    uint32_t word = gpu_regs_fw_read(regs, static_cast<uint32_t>((addr + i) & ~3ull));
    t.get_data_ptr()[i] = static_cast<unsigned char>(word >> (8 * ((addr + i) & 3)));
  }
  t.set_response_status(tlm::TLM_OK_RESPONSE);
  return len;
}

// ---- device memory for debuggers ----------------------------------------------------------------

void gpu_top::devmem_b_transport(tlm::tlm_generic_payload &t, sc_time &) {
  t.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
}

unsigned int gpu_top::devmem_transport_dbg(tlm::tlm_generic_payload &t) {
  const tlm::tlm_command cmd = t.get_command();
  if (cmd == tlm::TLM_IGNORE_COMMAND) return 0;
  uint64_t addr = t.get_address();
  unsigned char *p = t.get_data_ptr();
  unsigned left = t.get_data_length(), done = 0;
  // Page by page (4 KiB), so a range that runs into unmapped memory transfers its mapped start.
  while (left) {
    unsigned n = static_cast<unsigned>(std::min<uint64_t>(left, 4096 - (addr & 4095)));
    simtvp_status st = cmd == tlm::TLM_READ_COMMAND ? devmem_read(s_->mem, addr, p, n, nullptr)
                                                     : devmem_write(s_->mem, addr, p, n, nullptr);
    if (st != SIMTVP_OK) break;
    addr += n;
    p += n;
    left -= n;
    done += n;
  }
  t.set_response_status(done ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
  return done;
}

// ---- DMA ----------------------------------------------------------------------------------------

bool gpu_top::dma_access(tlm::tlm_command cmd, uint64_t addr, uint8_t *data, uint64_t len) {
  state &s = *s_;
  const bool read = cmd == tlm::TLM_READ_COMMAND;
  while (len) {
    // A granted DMI region that holds addr: copy what lies inside it.
    bool served = false;
    for (const state::dmi_region &r : s.dmi) {
      if (addr < r.start || addr > r.end || !(read ? r.read : r.write)) continue;
      uint64_t n = std::min<uint64_t>(len, r.end - addr + 1);
      if (n == 0) n = len;  // the region reaches the top of the address space
      uint8_t *p = r.ptr + (addr - r.start);
      if (read)
        std::memcpy(data, p, n);
      else
        std::memcpy(p, data, n);
      s.dma.dmi_accesses++;
      addr += n;
      data += n;
      len -= n;
      served = true;
      break;
    }
    if (served) continue;

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
    system_agent_ext who(agent_dma);
    scoped_agent tag(t, who);
    s.dma.transports++;
    dma->b_transport(t, delay);
    if (t.is_response_error()) return false;
    if (t.is_dmi_allowed()) {
      bool refused = false;
      for (const auto &range : s.dmi_refused)
        if (addr >= range.first && addr <= range.second) refused = true;
      if (!refused) {
        tlm::tlm_generic_payload q;
        q.set_command(cmd);
        q.set_address(addr);
        tlm::tlm_dmi d;
        s.dma.dmi_requests++;
        if (dma->get_direct_mem_ptr(q, d) && d.get_dmi_ptr() && d.get_start_address() <= addr &&
            addr <= d.get_end_address()) {
          s.dma.dmi_grants++;
          if (s.dmi.size() == kDmiRegions) s.dmi.pop_back();
          s.dmi.insert(s.dmi.begin(), {d.get_start_address(), d.get_end_address(), d.get_dmi_ptr(),
                                       d.is_read_allowed(), d.is_write_allowed()});
        } else {
          // The target says where it refuses (by default everywhere): do not ask there again
          // until it invalidates.
          s.dmi_refused.emplace_back(std::min(d.get_start_address(), static_cast<sc_dt::uint64>(addr)),
                                     std::max(d.get_end_address(), static_cast<sc_dt::uint64>(addr)));
        }
      }
    }
    addr += chunk;
    data += chunk;
    len -= chunk;
  }
  return true;
}

bool gpu_top::dma_timed(bool write, uint64_t gpu_addr, uint64_t bus, uint32_t bytes, sc_time *delay, bool writeback,
                        bool atomic) {
  state &s = *s_;
  uint8_t buf[256];
  if (bytes > sizeof buf) bytes = sizeof buf;  // requests cover at most one 128-byte line
  // A write carries what memory holds now: the kernel's store already happened when its
  // instruction executed (DESIGN.md section 3), so the transaction changes nothing and costs
  // what a write costs.
  if (write) {
    const uint8_t *p = devmem_span(s.mem, gpu_addr, bytes);
    if (!p && s.ats.host_page) {  // a host page the system IOMMU translates (shared_va)
      const uint8_t *h = s.ats.host_page(bus & ~uint64_t(4095));
      if (h && (bus & 4095) + bytes <= 4096) p = h + (bus & 4095);
    }
    if (!p) return false;  // unmapped meanwhile: nothing to carry
    std::memcpy(buf, p, bytes);
  }
  tlm::tlm_generic_payload t;
  t.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  t.set_address(bus);
  t.set_data_ptr(buf);
  t.set_data_length(bytes);
  t.set_streaming_width(bytes);
  t.set_byte_enable_ptr(nullptr);
  t.set_dmi_allowed(false);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_time d = SC_ZERO_TIME;
  system_agent_ext who(agent_gpu);
  who.writeback = writeback;
  who.atomic = atomic;
  scoped_agent tag(t, who);
  s.dma.timed++;
  dma->b_transport(t, d);
  *delay = d;
  return !t.is_response_error();
}

void gpu_top::set_ats(ats_port port) { s_->ats = std::move(port); }

uint32_t gpu_top::coherent_invalidate(uint64_t bus, uint64_t bytes) {
  struct walk {
    state *s;
    simt_subsystem *simt;
    uint32_t dropped;
    uint64_t bus, addr;
  } w{s_.get(), s_->simt.get(), 0, 0, 0};
  if (!w.simt) return 0;
  for (uint64_t b = bus & ~uint64_t(MEM_LINE_BYTES - 1); b < bus + bytes; b += MEM_LINE_BYTES) {
    w.bus = b;
    devmem_addrs_of_bus(s_->mem, b, [](void *ctx, uint64_t a) {
      auto *wk = static_cast<walk *>(ctx);
      wk->dropped += wk->simt->coherent_invalidate(a, wk->bus);
      // Remote managed pages: cores whose requests carry the virtual address hold the line there.
      wk->addr = a;
      gpu_windows_users(wk->s->windows.get(), a >> DEVMEM_PAGE_BITS, [](void *ctx2, uint64_t vp) {
        auto *wk2 = static_cast<walk *>(ctx2);
        wk2->dropped += wk2->simt->coherent_invalidate((vp << DEVMEM_PAGE_BITS) | (wk2->addr & DEVMEM_PAGE_MASK), wk2->bus);
      }, wk);
    }, &w);
  }
  return w.dropped;
}

void gpu_top::translated(uint64_t va, uint32_t aperture, uint64_t pa) {
  state &s = *s_;
  const uint64_t vp = va >> DEVMEM_PAGE_BITS, pp = pa >> DEVMEM_PAGE_BITS;
  const bool window = aperture == MMU_APERTURE_VIDMEM && vp != pp && devmem_bus_addr(s.mem, pa, nullptr, nullptr);
  if (gpu_windows_set(s.windows.get(), vp, window, pp) != SIMTVP_OK) throw std::bad_alloc();
}

uint64_t gpu_top::physical_of(uint64_t addr) const { return gpu_windows_physical(s_->windows.get(), addr); }

bool gpu_top::map_sysmem(uint64_t va, uint64_t bus, uint64_t bytes) {
  state &s = *s_;
  // The kernels' data goes through a direct-memory pointer: ask the target for one covering the
  // whole range (the bus translates addresses both ways).
  tlm::tlm_generic_payload q;
  q.set_command(tlm::TLM_READ_COMMAND);
  q.set_address(bus);
  q.set_data_length(0);
  tlm::tlm_dmi d;
  s.dma.dmi_requests++;
  if (!dma->get_direct_mem_ptr(q, d) || !d.get_dmi_ptr() || !d.is_read_write_allowed() ||
      d.get_start_address() > bus || bytes - 1 > d.get_end_address() - bus) {
    char text[300];
    std::snprintf(text, sizeof text,
                  "MAP_SYSMEM: the system memory at bus address 0x%" PRIx64 " (+0x%" PRIx64
                  ") grants no direct access for reading and writing; kernels cannot use it",
                  bus, bytes);
    message(SIMTVP_WARNING, text);
    return false;
  }
  s.dma.dmi_grants++;
  uint8_t *host = d.get_dmi_ptr() + (bus - d.get_start_address());
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  if (devmem_map_external(s.mem, va, bytes, host, bus, DEVMEM_APERTURE_SYSMEM, &diag) != SIMTVP_OK) {
    message(SIMTVP_WARNING, (std::string("MAP_SYSMEM: ") + diag.message).c_str());
    return false;
  }
  // A live block of its own, so that the memory checker lets kernels reach it (software's own
  // block: host memory is no device allocation that could leak).
  if (devmem_block_add(s.mem, va, bytes, 0, DEVMEM_BLOCK_INTERNAL, &diag) != SIMTVP_OK) {
    devmem_unmap(s.mem, va, bytes);
    message(SIMTVP_WARNING, (std::string("MAP_SYSMEM: ") + diag.message).c_str());
    return false;
  }
  s.sysmaps[va] = bytes;
  return true;
}

void gpu_top::unmap_sysmem(uint64_t va, uint64_t bytes) {
  state &s = *s_;
  // Only what MAP_SYSMEM mapped: device memory in the range stays.
  for (auto it = s.sysmaps.begin(); it != s.sysmaps.end();) {
    uint64_t a = it->first, n = it->second;
    if (a + n <= va || a >= va + bytes) {
      ++it;
      continue;
    }
    uint64_t lo = std::max(a, va), hi = std::min(a + n, va + bytes);
    devmem_block_remove(s.mem, a, false);
    devmem_unmap(s.mem, lo, hi - lo);
    it = s.sysmaps.erase(it);
    if (a < lo) {
      s.sysmaps[a] = lo - a;
      devmem_block_add(s.mem, a, lo - a, 0, DEVMEM_BLOCK_INTERNAL, nullptr);
    }
    if (hi < a + n) {
      s.sysmaps[hi] = a + n - hi;
      devmem_block_add(s.mem, hi, a + n - hi, 0, DEVMEM_BLOCK_INTERNAL, nullptr);
    }
  }
}

void gpu_top::invalidate_dmi(sc_dt::uint64 start, sc_dt::uint64 end) {
  state &s = *s_;
  s.dma.invalidations++;
  auto overlaps = [&](sc_dt::uint64 a, sc_dt::uint64 b) { return a <= end && b >= start; };
  s.dmi.erase(std::remove_if(s.dmi.begin(), s.dmi.end(),
                             [&](const state::dmi_region &r) { return overlaps(r.start, r.end); }),
              s.dmi.end());
  s.dmi_refused.erase(std::remove_if(s.dmi_refused.begin(), s.dmi_refused.end(),
                                     [&](const std::pair<sc_dt::uint64, sc_dt::uint64> &r) {
                                       return overlaps(r.first, r.second);
                                     }),
                      s.dmi_refused.end());
}

// ---- SIMT side and statistics -------------------------------------------------------------------

// gpu_sim_cycle counts the core cycles during which at least one kernel runs (concurrent kernels
// count once), added at every kernel boundary so each kernel's statistics hold its share.
void gpu_top::count_busy_cycles() {
  state &s = *s_;
  uint64_t now = cycle();
  if (s.kernels_running && s.gpu_sim_cycle && now > s.busy_mark) *s.gpu_sim_cycle += now - s.busy_mark;
  s.busy_mark = now;
}

void gpu_top::add_observer(std::function<void(const gpu_event &)> observer) {
  if (s_->observers.empty()) gpuctl_set_trace(s_->ctl, gpu_trace_port{this, &gpu_top::control_trace});
  s_->observers.push_back(std::move(observer));
}

void gpu_top::notify(const gpu_event &e) {
  for (auto &o : s_->observers) o(e);
}

void gpu_top::control_trace(void *ctx, const gpu_trace_event *t) {
  auto *g = static_cast<gpu_top *>(ctx);
  gpu_event e{};
  switch (t->kind) {
  case GPU_TRACE_COPY: e.kind = gpu_event::copy; break;
  case GPU_TRACE_CP_WORK: e.kind = gpu_event::cp_work; break;
  default: e.kind = gpu_event::cp_packet; break;
  }
  e.begin = g->time_of(t->begin);
  e.end = g->time_of(t->end);
  e.what = t->what;
  e.channel = t->channel;
  e.opcode = t->opcode;
  e.op = t->op;
  g->notify(e);
}

void gpu_top::cta_done(uint32_t sm, uint32_t kernel_slot, const gpu_cta_result &r) {
  if (!s_->observers.empty()) {
    gpu_event e{};
    e.kind = gpu_event::cta_end;
    e.begin = e.end = sc_core::sc_time_stamp();
    e.sm = sm;
    e.slot = kernel_slot;
    e.uid = kernel_slot < s_->runs.size() ? s_->runs[kernel_slot].launch_uid : 0;
    e.status = r.status;
    notify(e);
  }
  const uint64_t now = cycle();
  gpuctl_cta_done(s_->ctl, sm, kernel_slot, &r, now);
  // The thread runs the control side when the completion made work for it (room for a CTA
  // left to issue, a kernel's end); a CTA of a grid's tail frees room nobody waits for.
  if (gpuctl_next_event(s_->ctl) <= now) s_->wake.notify(SC_ZERO_TIME);
}

const std::string &gpu_top::kernel_name(const gpu_kernel &k) {
  static const std::string unknown = "(unknown kernel)";
  state &s = *s_;
  gpu_image_header h;
  gpu_mmu *mmu = gpuctl_mmu(s.ctl);
  if (!gpu_mmu_read(mmu, k.desc.pdb, k.desc.image_addr, &h, sizeof h, nullptr)) return unknown;
  auto key = std::make_pair(k.desc.image_addr, h.load_id);
  auto it = s.names.find(key);
  if (it == s.names.end()) {
    if (s.names.size() >= 256) s.names.clear();  // modules come and go; keep the cache small
    std::vector<std::string> names;
    struct reader {
      gpu_mmu *mmu;
      uint64_t pdb;
    } rd{mmu, k.desc.pdb};
    gpu_mem_port port{&rd,
                      [](void *ctx, uint64_t a, void *dst, uint64_t n) {
                        auto *r = static_cast<reader *>(ctx);
                        return gpu_mmu_read(r->mmu, r->pdb, a, dst, n, nullptr);
                      },
                      nullptr};
    gpu_image *img = nullptr;
    if (gpu_image_load(&port, k.desc.image_addr, &img, nullptr) == SIMTVP_OK) {
      for (uint32_t i = 0; i < img->module->n_functions; i++)
        names.emplace_back(img->module->functions[i].name ? img->module->functions[i].name : "");
      gpu_image_free(img);
    }
    it = s.names.emplace(key, std::move(names)).first;
  }
  if (k.desc.entry >= it->second.size()) return unknown;
  return it->second[k.desc.entry];
}

gpu_simt_port gpu_top::wrap_simt_port(gpu_simt_port inner) {
  s_->simt_inner = inner;
  gpu_simt_port p{};
  p.ctx = this;
  p.mmu_attach = [](void *ctx, const gpu_mmu_port *mmu) {
    state &s = *static_cast<gpu_top *>(ctx)->s_;
    if (s.simt_inner.mmu_attach) s.simt_inner.mmu_attach(s.simt_inner.ctx, mmu);
  };
  p.mmu_invalidate = [](void *ctx, uint64_t pdb, uint64_t va, uint64_t bytes, uint64_t now) {
    state &s = *static_cast<gpu_top *>(ctx)->s_;
    if (s.simt_inner.mmu_invalidate) s.simt_inner.mmu_invalidate(s.simt_inner.ctx, pdb, va, bytes, now);
  };
  p.mmu_replay = [](void *ctx, bool cancel, uint64_t now) {
    auto *g = static_cast<gpu_top *>(ctx);
    state &s = *g->s_;
    if (s.simt_inner.mmu_replay) s.simt_inner.mmu_replay(s.simt_inner.ctx, cancel, now);
    s.wake.notify(SC_ZERO_TIME);
  };
  p.kernel_begin = [](void *ctx, const gpu_kernel *k, gpu_kernel_result *why) {
    auto *g = static_cast<gpu_top *>(ctx);
    state &s = *g->s_;
    if (s.simt_inner.kernel_begin && !s.simt_inner.kernel_begin(s.simt_inner.ctx, k, why))
      return false;  // refused: ends at once with *why, no kernel_end, no statistics
    if (k->slot >= s.runs.size()) s.runs.resize(k->slot + 1);
    state::running &r = s.runs[k->slot];
    r.launch_uid = k->launch_uid;
    r.begin = sc_core::sc_time_stamp();
    r.begin_cycle = g->cycle();
    r.name = g->kernel_name(*k);
    for (int i = 0; i < 3; i++) {
      r.shape.grid[i] = k->desc.grid[i];
      r.shape.block[i] = k->desc.block[i];
    }
    r.shape.smem_bytes = k->desc.smem_static + k->desc.smem_dynamic;
    r.shape.regs_per_thread = k->desc.regs_per_thread;
    r.shape.stream_id = k->desc.stream_id;
    r.shape.n_ctas = k->n_ctas;
    g->count_busy_cycles();
    s.kernels_running++;
    if (s.options.st) stats_kernel_begin(s.options.st, r.name.c_str(), k->launch_uid);
    if (!s.observers.empty()) {
      gpu_event e{};
      e.kind = gpu_event::kernel_begin;
      e.begin = e.end = r.begin;
      e.uid = k->launch_uid;
      e.slot = k->slot;
      e.name = &r.name;
      e.kernel = k;
      g->notify(e);
    }
    return true;
  };
  p.launch_cta = [](void *ctx, const gpu_kernel *k, uint32_t sm, const uint32_t cta[3]) {
    auto *g = static_cast<gpu_top *>(ctx);
    if (!g->s_->observers.empty()) {
      gpu_event e{};
      e.kind = gpu_event::cta_begin;
      e.begin = e.end = sc_core::sc_time_stamp();
      e.uid = k->launch_uid;
      e.slot = k->slot;
      e.sm = sm;
      for (int i = 0; i < 3; i++) e.cta[i] = cta[i];
      g->notify(e);
    }
    g->s_->simt_inner.launch_cta(g->s_->simt_inner.ctx, k, sm, cta);
  };
  p.kernel_end = [](void *ctx, const gpu_kernel *k) {
    auto *g = static_cast<gpu_top *>(ctx);
    state &s = *g->s_;
    if (s.simt_inner.kernel_end) s.simt_inner.kernel_end(s.simt_inner.ctx, k);
    if (k->slot >= s.runs.size() || s.runs[k->slot].launch_uid != k->launch_uid) return;
    state::running &r = s.runs[k->slot];
    gpu_kernel_record rec = r.shape;
    rec.name = r.name;
    rec.launch_uid = r.launch_uid;
    rec.begin = r.begin;
    rec.end = sc_core::sc_time_stamp();
    rec.core_cycles = g->cycle() - r.begin_cycle;
    r.launch_uid = 0;
    g->count_busy_cycles();
    if (s.kernels_running) s.kernels_running--;
    if (s.options.st) stats_kernel_end_uid(s.options.st, rec.launch_uid);
    if (s.config.output.ptx_line_stats) g->write_line_stats(rec.launch_uid);
    if (!s.observers.empty()) {
      gpu_event e{};
      e.kind = gpu_event::kernel_end;
      e.begin = e.end = rec.end;
      e.uid = rec.launch_uid;
      e.slot = k->slot;
      e.name = &rec.name;
      g->notify(e);
    }
    if (s.kernel_hook) s.kernel_hook(rec);
  };
  return p;
}

// ---- PTX source-line statistics ----------------------------------------------------------------

// The kernel that just ended is the sink's last completed one; its per-line profile (counted per
// instruction by models/func, folded by models/stats) is appended as one section.
void gpu_top::write_line_stats(uint64_t launch_uid) {
  state &s = *s_;
  stats *st = s.options.st;
  if (!st || s.line_stats_failed) return;
  uint32_t n = stats_kernel_count(st);
  if (!n || stats_kernel_uid(st, n - 1) != launch_uid) return;
  if (!s.line_stats) {
    std::string path = s.config.output.ptx_line_stats_file;
    const char *env = std::getenv("SIMTVP_OUTDIR");
    std::string dir = !s.options.out_dir.empty() ? s.options.out_dir : env && *env ? env : "";
    if (path[0] != '/' && !dir.empty()) path = dir + "/" + path;
    if (!make_parent_dirs(path) || !(s.line_stats = std::fopen(path.c_str(), "w"))) {
      s.line_stats_failed = true;
      char text[1200];
      std::snprintf(text, sizeof text,
                    "-ptx_line_stats_filename: cannot write the PTX line statistics to %s: %s (the "
                    "statistics JSON still has them)",
                    path.c_str(), std::strerror(errno));
      message(SIMTVP_ERROR, text);
      return;
    }
    std::fprintf(s.line_stats, "# simtvp PTX source-line statistics (-enable_ptx_file_line_stats), one "
                               "section per kernel in completion order\n");
  }
  stats_write_code_lines(st, n - 1, s.line_stats);
  std::fflush(s.line_stats);
}

}  // namespace simtvp
