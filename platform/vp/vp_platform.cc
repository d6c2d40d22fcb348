// vp_platform — see vp_platform.h.
#include "vp_platform.h"

#include <dlfcn.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "demangle.h"
#include "gpu_abi.h"
#include "gpu_params.h"
#include "html_report.h"
#include "simt_timing.h"
#include "coherence.h"
#include "iommu.h"
#include "socmem.h"
#include "syscache.h"
#include "trace_json.h"
#include "trace_vcd.h"

namespace simtvp {

using sc_core::sc_time;

namespace {

sc_time ns_time(double ns) { return ns > 0 ? sc_time(ns, sc_core::SC_NS) : sc_core::SC_ZERO_TIME; }

const char *severity_name(simtvp_severity s) {
  switch (s) {
  case SIMTVP_INFO: return "info";
  case SIMTVP_WARNING: return "warning";
  default: return "error";
  }
}

// mkdir -p
bool make_dirs(const std::string &path) {
  std::string p;
  for (size_t i = 0; i <= path.size(); i++) {
    if (i == path.size() || path[i] == '/') {
      if (!p.empty() && mkdir(p.c_str(), 0777) != 0 && errno != EEXIST) return false;
    }
    if (i < path.size()) p.push_back(path[i]);
  }
  return true;
}

// "1.234567 ms" style: the largest unit that keeps the number at least 1.
std::string human_time(double seconds) {
  char buf[64];
  if (seconds >= 1)
    std::snprintf(buf, sizeof buf, "%.6f s", seconds);
  else if (seconds >= 1e-3)
    std::snprintf(buf, sizeof buf, "%.6f ms", seconds * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.3f us", seconds * 1e6);
  return buf;
}

std::string human_rate(double per_second) {
  char buf[64];
  if (per_second >= 1e9)
    std::snprintf(buf, sizeof buf, "%.2f G", per_second / 1e9);
  else if (per_second >= 1e6)
    std::snprintf(buf, sizeof buf, "%.2f M", per_second / 1e6);
  else if (per_second >= 1e3)
    std::snprintf(buf, sizeof buf, "%.2f K", per_second / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.0f ", per_second);
  return buf;
}

uint64_t ps_of(const sc_time &t) {
  return static_cast<uint64_t>(t.value() * (sc_core::sc_get_time_resolution().to_seconds() * 1e12) + 0.5);
}

uint64_t now_ps() { return ps_of(sc_core::sc_time_stamp()); }

// A configuration latency in ns as whole picoseconds (0 for none).
uint64_t ps_of_ns(double ns) { return ns > 0 ? static_cast<uint64_t>(std::llround(ns * 1000.0)) : 0ull; }

// The process's CPU time and minor page faults so far (host_time.json reports them per kernel: a
// short kernel's host time is often mostly first touches of the model's tables, each a page fault).
// The sum of user and system time is exact; the split between them is sampled at clock ticks, too
// coarse for a kernel of milliseconds, so only the sum is kept.
host_usage host_usage_now() {
  host_usage h;
  struct rusage u;
  if (getrusage(RUSAGE_SELF, &u) == 0) {
    h.cpu_s = static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
              static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
    h.page_faults = u.ru_minflt;
  }
  return h;
}

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A GPU that counts no instruction for this long (simulated) while kernels run is stuck or waits:
// the ticker stops waking until the next kernel event, so that "no event left" is still detected.
constexpr uint64_t kTickerGivesUpPs = 10000000000ull;  // 10 ms
constexpr uint64_t kProgressPeriodPs = 1000000ull;     // 1 us of simulated time between polls

}  // namespace

void vp_platform::emit(void *ctx, simtvp_severity severity, const char *text) {
  auto *p = static_cast<vp_platform *>(ctx);
  if (severity == SIMTVP_INFO && p->settings_.quiet) return;
  // A failed device assert() was printed in CUDA's words on stderr when it happened (the
  // program's own message); the SIMT side's fault report of it would say the same again.
  if (severity == SIMTVP_ERROR && std::strstr(text, ": device assertion `")) return;
  if (severity != SIMTVP_INFO) p->problems_++;
  if (p->progress_) p->progress_->clear();
  std::fflush(stdout);  // keep the program's output and ours in order on a terminal
  // Errors go through the fold (a deadlock dump of many alike CTAs becomes a few lines); anything
  // else first lets out what the fold holds.
  std::vector<std::string> lines = severity == SIMTVP_ERROR ? p->fold_.feed(text) : p->fold_.flush();
  for (const std::string &l : lines) std::fprintf(stderr, "simtvp: error: %s\n", l.c_str());
  if (severity != SIMTVP_ERROR) std::fprintf(stderr, "simtvp: %s: %s\n", severity_name(severity), text);
}

void vp_platform::flush_messages() {
  std::vector<std::string> lines = fold_.flush();
  if (lines.empty()) return;
  std::fflush(stdout);
  for (const std::string &l : lines) std::fprintf(stderr, "simtvp: error: %s\n", l.c_str());
  std::fflush(stderr);
}

void vp_platform::print_text(FILE *out, const std::string &text) {
  yield_terminal();
  std::fflush(stdout);
  std::fputs(text.c_str(), out);
  std::fflush(out);
}

vp_platform::vp_platform(sc_core::sc_module_name name, const vp_settings &settings,
                         const gpu_config &config, config_registry *registry)
    : sc_module(name), settings_(settings), config_(config), registry_(registry), irq_("irq") {
  started_ = std::chrono::steady_clock::now();
  simtvp_diag_clear(&build_diag_);
  messages_.ctx = this;
  messages_.emit = emit;
  stats_ = stats_create();
  if (!stats_) {
    build_status_ = simtvp_diag_set(&build_diag_, SIMTVP_ERR_NOMEM, "out of host memory");
    return;
  }

  // The debugger (simtvp --debug), whose port the GPU's functional engine gets.
  if (settings_.debug && !settings_.check_only) {
    std::string why;
    debugger_ = debug_frontend::from_environment(program_invocation_short_name, &why);
    if (!debugger_ && !why.empty()) {
      build_status_ = simtvp_diag_set(&build_diag_, SIMTVP_ERR_ARG, "%s", why.c_str());
      return;
    }
  }

  // GPU first: its statistics lead the text output.
  gpu_top_options go;
  go.st = stats_;
  go.messages = messages_;
  go.print = [this](const char *text, std::size_t len) {  // device printf: after the progress line goes
    yield_terminal();
    std::fwrite(text, 1, len, stdout);
    std::fflush(stdout);
  };
  go.out_dir = settings_.out_dir;  // a relative -ptx_line_stats_filename goes beside stats.json
  // Allocation sites are host return addresses (the CUDA runtime runs in this process): name
  // them "object+offset", which addr2line turns into a source line.
  go.site_name = [](uint64_t tag, char *buf, std::size_t size) -> std::size_t {
    Dl_info info;
    if (!dladdr(reinterpret_cast<void *>(tag), &info) || !info.dli_fname) return 0;
    const char *base = std::strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    int n = info.dli_sname
                ? std::snprintf(buf, size, "%s (%s+0x%" PRIxPTR ")", info.dli_sname, base,
                                static_cast<uintptr_t>(tag - reinterpret_cast<uintptr_t>(info.dli_fbase)))
                : std::snprintf(buf, size, "%s+0x%" PRIxPTR, base,
                                static_cast<uintptr_t>(tag - reinterpret_cast<uintptr_t>(info.dli_fbase)));
    return n > 0 ? static_cast<std::size_t>(n) : 0;
  };
  if (debugger_) go.debugger = debugger_->port();
  gpu_.reset(gpu_top::create("gpu", config_, go, &build_diag_));
  if (!gpu_) {
    build_status_ = build_diag_.status;
    return;
  }
  gpu_->on_kernel_end([this](const gpu_kernel_record &k) { kernel_ended(k); });

  // What the run shows besides statistics: progress (unless quiet), and with -o or a trace the
  // timeline and the report's samples. All passive.
  record_ = !settings_.check_only &&
            (!settings_.out_dir.empty() || !settings_.trace_path.empty() || !settings_.vcd_path.empty());
  // (No progress line under the debugger: its prompt and output own the terminal.)
  report::progress::mode_t mode =
      report::progress_mode_for(stderr, settings_.quiet || settings_.check_only || debugger_ != nullptr);
  if (mode != report::progress::off) {
    progress_ = std::make_unique<report::progress>(mode, stderr, config_.output.liveness_message_freq, wall_seconds);
    if (progress_->mode() == report::progress::off) progress_.reset();
  }
  if (record_) series_ = std::make_unique<report::series>();
  insn_ = stats_counter_find(stats_, "gpu_sim_insn");
  sim_cycle_ = stats_counter_find(stats_, "gpu_sim_cycle");
  gpu_->add_observer([this](const gpu_event &e) { observe(e); });
  if (record_)
    if (auto *t = dynamic_cast<simt_timing *>(&gpu_->simt_side()))
      for (uint32_t ch = 0; t->memory().has_dram() && ch < config_.mem.n_channels; ch++)
        t->memory().dram(ch).on_busy_change([this, ch](bool busy) { timeline_.dram_busy(ch, busy, now_ps()); });

  // An integrated GPU's memory is a carve-out of system memory right above what the allocator
  // hands out (-gpu_carveout_base), and the SoC memory has a timing model (docs/system-modes.md).
  const gpu_system_config &sy = config_.system;
  const bool integrated = gpu_system_integrated(sy.mode);
  const gpu_params &gp = gpu_->params();
  const uint64_t carve_bytes = integrated ? gp.ctl.caps.devmem_bytes + ((gp.heap_bytes + 4095) & ~4095ull) : 0;
  if (integrated && (sy.carveout_base < kSysmemBase + kSysmemBytes ||
                     sy.carveout_base - kSysmemBase > (64ull << 40))) {
    build_status_ = simtvp_diag_set(&build_diag_, SIMTVP_ERR_CONFIG,
                                    "-gpu_carveout_base: 0x%" PRIx64 " must lie above the platform's %" PRIu64
                                    " GiB of system memory at 0x%" PRIx64 " (0x%" PRIx64 " or more)",
                                    sy.carveout_base, kSysmemBytes >> 30, kSysmemBase, kSysmemBase + kSysmemBytes);
    simtvp_diag_at_option(&build_diag_, "-gpu_carveout_base");
    return;
  }
  const uint64_t mem_bytes = integrated ? sy.carveout_base - kSysmemBase + carve_bytes : kSysmemBytes;
  mem_ = std::make_unique<sys_mem>("sysmem", mem_bytes);
  if (!mem_->ok()) {
    build_status_ = simtvp_diag_set(&build_diag_, SIMTVP_ERR_NOMEM,
                                    "cannot reserve %" PRIu64 " bytes of system memory", mem_bytes);
    return;
  }
  if (integrated) {
    mem_->reserve(kSysmemBytes, mem_bytes - kSysmemBytes);  // the allocator hands out the first 8 GiB
    socmem_config smc;
    socmem_config_from(&smc, sy.sysmem_channels, sy.sysmem_interleave, sy.sysmem_latency_ns, sy.sysmem_bandwidth_gbs);
    smc.stats = stats_;
    if (socmem_create(&smc, &socmem_, &build_diag_) != SIMTVP_OK) {
      build_status_ = build_diag_.status;
      return;
    }
    mem_->set_timing(socmem_);
  }
  proc_ = std::make_unique<proc_mem>("procmem");
  if (gpu_system_shared(sy.mode) && !build_shared()) return;
  bus_ = std::make_unique<sys_bus>("bus");
  bus_->map(kSysmemBase, mem_bytes, 0, "sysmem");
  bus_->map(kBar0Base, GPU_BAR0_BYTES, 1, "gpu.bar0");
  bus_->map(kProcBase, proc_mem::kLimit, 2, "procmem");

  const gpu_host_config &h = config_.host;
  host_cpu_config hc;
  hc.mmio_read = ns_time(h.mmio_read_ns);
  hc.mmio_write = ns_time(h.mmio_write_ns);
  hc.irq_latency = ns_time(h.irq_latency_ns);
  hc.api_overhead = ns_time(h.api_overhead_ns);
  hc.host_cycle = ns_time(1e3 / h.host_clock_mhz);
  hc.bar0_base = kBar0Base;
  host_ = std::make_unique<host_cpu>("host", hc);
  host_->set_messages(messages_);
  host_->set_allocator(
      [this](uint64_t size, uint64_t align, uint64_t *bus_addr) {
        uint64_t off;
        if (!mem_->alloc(size, align, &off)) return false;
        *bus_addr = kSysmemBase + off;
        return true;
      },
      [this](uint64_t bus_addr) {
        if (bus_addr >= kSysmemBase) mem_->free(bus_addr - kSysmemBase);
      });
  host_->set_interrupt_source([this]() { return !gpu_->quiescent(); }, &gpu_->quiescent_event());

  // Wiring.
  host_->bus.bind(bus_->targ);
  gpu_->dma.bind(bus_->targ);
  bus_->init.bind(mem_->socket);
  bus_->init.bind(gpu_->bar0);
  bus_->init.bind(proc_->socket);
  gpu_->irq.bind(irq_);
  host_->irq.bind(irq_);

  // Statistics set-up.
  stats_set_info(stats_, "config", settings_.config_name.c_str());
  stats_set_info(stats_, "gpu", config_.host.gpu_name);
  stats_set_info(stats_, "simt_model", gpu_->simt_model());
  char fidelity[512];
  gpu_config_fidelity_map(&config_, fidelity, sizeof fidelity);
  stats_set_info(stats_, "fidelity", fidelity);  // every block instance's model
  stats_set_info(stats_, "version", "simtvp 0.1.0");
  if (config_.output.series_period_ns) {
    std::string prefixes = config_.output.series_prefixes;
    size_t start = 0;
    while (start <= prefixes.size() && !prefixes.empty()) {
      size_t end = prefixes.find(',', start);
      if (end == std::string::npos) end = prefixes.size();
      if (end > start) stats_series_include(stats_, prefixes.substr(start, end - start).c_str());
      start = end + 1;
    }
    SC_THREAD(sample);
  }
  if (progress_ || record_) SC_THREAD(ticker);
  // Everything is built: the debugger's first commands (breakpoints, watchpoints), before the
  // program's first kernel.
  if (debugger_) debugger_->start();
}

vp_platform::~vp_platform() {
  if (stats_txt_) std::fclose(stats_txt_);
  host_.reset();
  gpu_.reset();
  bus_.reset();
  proc_.reset();
  mem_.reset();
  iommu_destroy(iommu_);
  coherence_destroy(coherence_);
  syscache_destroy(syscache_);
  socmem_destroy(socmem_);
  stats_destroy(stats_);
  config_registry_destroy(registry_);
}

// The shared modes (docs/system-modes.md §2): every timed access of system memory passes the
// coherence directory when it touches host memory (below the carve-out: pages the host and the GPU
// share), then the system-level cache, whose fills and write-backs reach the SoC memory.
bool vp_platform::build_shared() {
  const gpu_system_config &sy = config_.system;
  syscache_config cc{};
  cc.sets = sy.syscache_sets;
  cc.ways = sy.syscache_ways;
  cc.line_bytes = sy.syscache_line;
  cc.hit_ps = ps_of_ns(sy.syscache_latency_ns);
  cc.stats = stats_;
  cc.port.ctx = this;
  cc.port.memory = [](void *ctx, uint64_t addr, uint32_t bytes, bool write, uint64_t now) {
    return socmem_access(static_cast<vp_platform *>(ctx)->socmem_, addr, bytes, write, SOCMEM_CACHE, now);
  };
  if (syscache_create(&cc, &syscache_, &build_diag_) != SIMTVP_OK) {
    build_status_ = build_diag_.status;
    return false;
  }
  coherence_config dc{};
  dc.sets = sy.dir_sets;
  dc.ways = sy.dir_ways;
  dc.line_bytes = sy.syscache_line;
  dc.caching = (1u << SOCMEM_HOST) | (1u << SOCMEM_GPU);
  dc.lookup_ps = ps_of_ns(sy.dir_lookup_ns);
  dc.message_ps = ps_of_ns(sy.dir_message_ns);
  dc.stats = stats_;
  dc.port.ctx = this;
  // A dirty copy the directory recalls or downgrades goes into the system-level cache.
  dc.port.writeback = [](void *ctx, socmem_agent agent, uint64_t line, uint64_t now) {
    auto *p = static_cast<vp_platform *>(ctx);
    return syscache_access(p->syscache_, line, p->config_.system.syscache_line, true, agent, now);
  };
  dc.port.invalidate = [](void *ctx, socmem_agent agent, uint64_t line) {
    auto *p = static_cast<vp_platform *>(ctx);
    if (agent != SOCMEM_GPU || !p->gpu_) return;
    p->gpu_->coherent_invalidate(line, p->config_.system.syscache_line);
    // A page of the program the IOMMU translates is cached at its own (virtual) address.
    if (line >= kProcBase && p->iommu_)
      if (const uint8_t *va = p->proc_->host_of(line - kProcBase))
        p->gpu_->simt_side().coherent_invalidate(reinterpret_cast<uintptr_t>(va), line);
  };
  if (coherence_create(&dc, &coherence_, &build_diag_) != SIMTVP_OK) {
    build_status_ = build_diag_.status;
    return false;
  }
  // Both see bus addresses: system memory's offsets and the program's pages (proc_mem's window,
  // registered memory and the IOMMU's pages) are host memory alike.
  mem_->set_timing([this](uint64_t off, uint64_t bytes, bool write, int agent, bool writeback, uint64_t at) {
    return time_shared(kSysmemBase + off, bytes, write, agent, writeback, at);
  });
  proc_->set_timing([this](uint64_t p, uint64_t bytes, bool write, int agent, bool writeback, uint64_t at) {
    return time_shared(kProcBase + p, bytes, write, agent, writeback, at);
  });
  if (sy.mode == GPU_SYSTEM_SHARED_VA) build_iommu();
  return build_status_ == SIMTVP_OK;
}

// /proc/self/maps says whether the program maps va (readable; *writable too).
static bool host_maps(uint64_t va, bool *writable) {
  FILE *f = std::fopen("/proc/self/maps", "r");
  if (!f) return false;
  char line[512];
  bool found = false;
  while (std::fgets(line, sizeof line, f)) {
    unsigned long long lo = 0, hi = 0;
    char perms[8] = {0};
    if (std::sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) != 3) continue;
    if (va < lo || va >= hi) continue;
    found = perms[0] == 'r';
    *writable = perms[1] == 'w';
    break;
  }
  std::fclose(f);
  return found;
}

bool vp_platform::os_page_request(uint64_t va, bool write) {
  const uint64_t page = va & ~4095ull;
  bool writable = false;
  if (page >= proc_mem::kLimit || !host_maps(page, &writable) || (write && !writable)) return false;
  uint64_t w = 0;
  if (!proc_->expose(page, 4096, &w)) return false;
  iommu_pages_.push_back(page);
  return iommu_map(iommu_, page, kProcBase + w, writable) == SIMTVP_OK;
}

// shared_va (docs/system-modes.md): the system IOMMU translates what the GPU's page tables do not
// map with the host's page tables, which the OS fills on page requests from what the program maps.
void vp_platform::build_iommu() {
  const gpu_system_config &sy = config_.system;
  iommu_config ic{};
  ic.tlb_sets = sy.iommu_tlb_sets;
  ic.tlb_ways = sy.iommu_tlb_ways;
  ic.tlb_hit_ps = ps_of_ns(sy.iommu_tlb_ns);
  ic.walk_level_ps = ps_of_ns(sy.iommu_walk_ns);
  ic.stats = stats_;
  ic.port.ctx = this;
  ic.port.page_request = [](void *ctx, ::iommu *, uint64_t va, bool write) {
    return static_cast<vp_platform *>(ctx)->os_page_request(va, write);
  };
  if (iommu_create(&ic, &iommu_, &build_diag_) != SIMTVP_OK) {
    build_status_ = build_diag_.status;
    return;
  }
  gpu_top::ats_port ats;
  ats.resolve = [this](uint64_t va, bool write, uint64_t *bus, bool *writable) -> uint32_t {
    std::lock_guard<std::mutex> lock(iommu_mutex_);
    iommu_fault f = iommu_resolve(iommu_, va, write, bus);
    uint64_t b;
    *writable = iommu_lookup(iommu_, va, true, &b) == IOMMU_OK;
    return static_cast<uint32_t>(f);
  };
  ats.host_page = [this](uint64_t bus) -> uint8_t * {
    // The program's page behind proc_mem's window address.
    return bus >= kProcBase && bus - kProcBase < proc_mem::kLimit ? proc_->host_of(bus - kProcBase) : nullptr;
  };
  ats.timed = [this](uint64_t va, bool write, uint64_t *bus, sc_core::sc_time *extra) {
    std::lock_guard<std::mutex> lock(iommu_mutex_);
    // Only the program's pages: other addresses the store does not hold (the kernel-parameter
    // bank) are the GPU's own and not the IOMMU's business.
    if (iommu_lookup(iommu_, va, false, bus) != IOMMU_OK) return false;
    uint64_t now = now_ps(), done = now;
    if (iommu_translate(iommu_, va, write, now, bus, &done) != IOMMU_OK) return false;
    *extra = sc_core::sc_time(static_cast<double>(done - now), sc_core::SC_PS);
    return true;
  };
  ats.maps = [this](uint64_t va, uint64_t *bus) {
    std::lock_guard<std::mutex> lock(iommu_mutex_);
    uint64_t b;
    return iommu_lookup(iommu_, va, false, bus ? bus : &b) == IOMMU_OK;
  };
  gpu_->set_ats(std::move(ats));
}

uint64_t vp_platform::time_shared(uint64_t off, uint64_t bytes, bool write, int agent, bool writeback, uint64_t at) {
  const socmem_agent a = static_cast<socmem_agent>(agent);
  uint64_t t = at;
  // Host memory (shared pages) passes the directory. The GPU's L2 caches it for reads only: its
  // writes and atomics go through (mempart_bypasses_l2) and, like a write-back, leave it no copy.
  if ((off < kSysmemBase + kSysmemBytes || off >= kProcBase) && a != SOCMEM_CACHE)
    t = write && writeback            ? coherence_writeback(coherence_, off, bytes, a, at)
        : write && a == SOCMEM_GPU    ? coherence_write_through(coherence_, off, bytes, a, at)
                                      : coherence_access(coherence_, off, bytes, write, a, at);
  return syscache_access(syscache_, off, bytes, write, a, t);
}

bool vp_platform::ok(simtvp_diag *diag) const {
  if (build_status_ == SIMTVP_OK) return true;
  if (diag) *diag = build_diag_;
  return false;
}

void vp_platform::sample() {
  const sc_time period(static_cast<double>(config_.output.series_period_ns), sc_core::SC_NS);
  for (;;) {
    if (!gpu_->busy()) {
      // Nothing changes while the GPU has no work: wait for work, then continue on the period grid.
      wait(gpu_->busy_event());
      if (!gpu_->busy()) continue;
    }
    double n = std::ceil(sc_core::sc_time_stamp() / period);
    sc_time next = period * n;
    if (next > sc_core::sc_time_stamp()) wait(next - sc_core::sc_time_stamp());
    stats_sample(stats_, static_cast<uint64_t>(sc_core::sc_time_stamp().to_seconds() * 1e12 + 0.5));
    wait(period);
  }
}

void vp_platform::observe(const gpu_event &e) {
  switch (e.kind) {
  case gpu_event::kernel_begin: {
    kernels_seen_++;
    if (iommu_) {
      // The OS keeps no stale device mappings of the program's pages across launches (what an
      // MMU notifier does when the program unmaps memory): each kernel requests its pages anew.
      std::lock_guard<std::mutex> lock(iommu_mutex_);
      iommu_clear(iommu_);
      for (uint64_t page : iommu_pages_) proc_->unexpose(page, 4096);
      iommu_pages_.clear();
    }
    kernel_walls_.push_back(
        {e.uid, std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count(), -1, host_usage_now(), {}});
    live_kernel k;
    k.uid = e.uid;
    k.n_ctas = e.kernel ? e.kernel->n_ctas : 0;
    k.begin_cycle = boundary_cycle_ = gpu_->cycle();
    k.insn_at_begin = insn_ ? *insn_ : 0;
    k.display = report::demangle(e.name ? *e.name : std::string());
    live_.push_back(k);
    report::kernel_span ks;
    ks.uid = e.uid;
    ks.name = e.name ? *e.name : std::string();
    if (e.kernel) {
      for (int i = 0; i < 3; i++) {
        ks.grid[i] = e.kernel->desc.grid[i];
        ks.block[i] = e.kernel->desc.block[i];
      }
      ks.smem_bytes = e.kernel->desc.smem_static + e.kernel->desc.smem_dynamic;
      ks.regs_per_thread = e.kernel->desc.regs_per_thread;
      ks.stream_id = e.kernel->desc.stream_id;
      ks.n_ctas = e.kernel->n_ctas;
    }
    ks.begin_ps = ps_of(e.begin);
    timeline_.kernel_begin(ks);  // always: the summary shows grid and block
    if (series_) {
      if (series_->columns().empty()) series_->attach(stats_);
      series_->sample(ks.begin_ps);
    }
    kernel_event_.notify(sc_core::SC_ZERO_TIME);
    poll_progress();
    break;
  }
  case gpu_event::kernel_end:
    for (kernel_wall &w : kernel_walls_)
      if (w.uid == e.uid && w.end_s < 0) {
        w.end_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
        w.end_use = host_usage_now();
        w.ended = true;
      }
    for (size_t i = 0; i < live_.size(); i++)
      if (live_[i].uid == e.uid) {
        live_.erase(live_.begin() + static_cast<long>(i));
        break;
      }
    boundary_cycle_ = gpu_->cycle();
    if (series_) series_->sample(ps_of(e.begin));
    kernel_event_.notify(sc_core::SC_ZERO_TIME);
    break;
  case gpu_event::cta_begin:
    if (record_) timeline_.cta_begin(e.uid, e.sm, ps_of(e.begin));
    break;
  case gpu_event::cta_end:
    for (live_kernel &k : live_)
      if (k.uid == e.uid) k.ctas_done++;
    if (record_) timeline_.cta_end(e.uid, e.sm, ps_of(e.begin), static_cast<uint32_t>(e.status));
    poll_progress();  // functional mode: simulated time stands still while CTAs run
    break;
  case gpu_event::copy:
    if (record_ && e.op)
      timeline_.copy(ps_of(e.begin), ps_of(e.end), e.op->width * e.op->height, e.op->kind, e.op->src_aperture,
                     e.op->dst_aperture);
    break;
  case gpu_event::cp_work:
    if (record_) timeline_.cp_work(ps_of(e.begin), ps_of(e.end), e.what, e.opcode);
    break;
  case gpu_event::cp_packet:
    if (record_) timeline_.packet(ps_of(e.begin), e.channel, e.opcode);
    break;
  case gpu_event::irq:
    if (record_) timeline_.irq(ps_of(e.begin), e.level);
    break;
  }
}

void vp_platform::poll_progress() {
  if (!progress_ || !progress_->due()) return;
  report::progress_state st;
  st.kernel_index = kernels_seen_;
  st.running = static_cast<uint32_t>(live_.size());
  uint64_t insn = insn_ ? *insn_ : 0, now = gpu_->cycle();
  if (!live_.empty()) {
    const live_kernel &k = live_.back();
    st.kernel_index = static_cast<uint32_t>(k.uid);
    st.kernel = k.display;
    st.kernel_cycles = now - k.begin_cycle;
    st.kernel_insn = insn - k.insn_at_begin;
    st.ctas_done = k.ctas_done;
    st.ctas_total = k.n_ctas;
  }
  st.total_insn = insn;
  st.total_cycles = (sim_cycle_ ? *sim_cycle_ : 0) + (live_.empty() ? 0 : now - boundary_cycle_);
  progress_->print(st);
}

void vp_platform::ticker() {
  uint64_t last_insn = 0, still_since = 0;
  for (;;) {
    if (live_.empty()) {
      wait(kernel_event_);
      still_since = now_ps();
      continue;
    }
    uint64_t period = series_ ? series_->period_ps() : kProgressPeriodPs;
    uint64_t now = now_ps();
    uint64_t next = (now / period + 1) * period;
    wait(sc_time(static_cast<double>(next - now), sc_core::SC_PS), kernel_event_);
    if (live_.empty()) continue;
    now = now_ps();
    if (series_ && !series_->columns().empty()) series_->sample(now);
    poll_progress();
    uint64_t insn = insn_ ? *insn_ : 0;
    if (insn != last_insn) {
      last_insn = insn;
      still_since = now;
    } else if (now - still_since > kTickerGivesUpPs) {
      wait(kernel_event_);
      still_since = now_ps();
    }
  }
}

void vp_platform::kernel_ended(const gpu_kernel_record &rec) {
  timeline_.kernel_end(rec.launch_uid, ps_of(rec.end), rec.core_cycles);
  uint32_t n = stats_kernel_count(stats_), k = n;
  for (uint32_t i = n; i-- > 0;)
    if (stats_kernel_uid(stats_, i) == rec.launch_uid) {
      k = i;
      break;
    }
  if (k == n) return;
  figures_.push_back(report::kernel_figures_of(stats_, k, &timeline_));
  // OUTDIR/stats.txt: GPGPU-Sim's full text, kernel by kernel, whatever stderr shows.
  if (!settings_.out_dir.empty() && !stats_txt_ && !stats_txt_failed_) {
    std::string path = settings_.out_dir + "/stats.txt";
    if (!make_dirs(settings_.out_dir) || !(stats_txt_ = std::fopen(path.c_str(), "w"))) {
      stats_txt_failed_ = true;
      char text[1200];
      std::snprintf(text, sizeof text, "cannot write %s: %s", path.c_str(), std::strerror(errno));
      emit(this, SIMTVP_ERROR, text);
    }
  }
  if (stats_txt_) {
    stats_print_kernel(stats_, stats_txt_);
    stats_print_totals(stats_, stats_txt_);
    std::fflush(stats_txt_);
  }
  if (settings_.quiet || !config_.output.print_kernel_stats) return;
  if (settings_.stats_text == "full") {
    // GPGPU-Sim's layout: the kernel's own values, then the totals so far (gpu_tot_* and every
    // cumulative counter), which scripts diff between kernels.
    yield_terminal();
    std::fflush(stdout);
    stats_print_kernel(stats_, stderr);
    stats_print_totals(stats_, stderr);
    std::fflush(stderr);
  } else if (settings_.stats_text != "none") {
    print_text(stderr, report::kernel_block(figures_.back()));
  }
}

// The report's facts about the configuration.
namespace {

report::html_info report_info(const gpu_config &c, const config_registry *r, const vp_settings &settings,
                              const char *simt_model) {
  report::html_info info;
  const char *prog = program_invocation_short_name;
  info.title = prog && *prog ? prog : "program";
  info.gpu = c.host.gpu_name;
  info.config = settings.config_name;
  info.simt_model = simt_model;
  info.version = "simtvp 0.1.0";
  info.core_mhz = c.derived.core_mhz;
  info.warp_size = c.derived.warp_size ? c.derived.warp_size : 32;
  info.max_warps_per_sm = c.derived.max_warps_per_core;
  info.dram_peak_gbs = static_cast<double>(c.mem.n_channels) * c.mem.chips_per_channel * c.dram.bus_width *
                       c.dram.data_command_freq_ratio * c.derived.dram_mhz * 1e6 / 1e9;
  bool timing = std::strcmp(simt_model, "func") != 0;
  for (uint32_t i = 0; i < c.derived.n_cores && i < GPU_CONFIG_MAX_CORES; i++)
    info.sm_model.push_back(timing ? gpu_fidelity_name(static_cast<gpu_fidelity>(c.derived.simt_model_of_core[i]))
                                   : "func");
  if (timing)
    for (uint32_t i = 0; i < c.mem.n_channels && i < GPU_CONFIG_MAX_CHANNELS; i++)
      info.dram_model.push_back(gpu_fidelity_name(static_cast<gpu_fidelity>(c.derived.dram_model_of_channel[i])));
  char buf[640];
  auto param = [&](const char *label, const std::string &v) { info.params.emplace_back(label, v); };
  std::snprintf(buf, sizeof buf, "%u clusters x %u cores = %u SMs, %u warps of %u threads per SM", c.core.n_clusters,
                c.core.n_cores_per_cluster, c.derived.n_cores, c.derived.max_warps_per_core, c.derived.warp_size);
  param("SIMT cores", buf);
  std::snprintf(buf, sizeof buf, "core %.0f, interconnect %.0f, L2 %.0f, DRAM %.0f MHz", c.derived.core_mhz,
                c.derived.icnt_mhz, c.derived.l2_mhz, c.derived.dram_mhz);
  param("clocks", buf);
  param("L1D (-gpgpu_cache:dl1)", c.core.l1d);
  std::snprintf(buf, sizeof buf, "%u channels x %u sub-partitions, each %s", c.mem.n_channels,
                c.mem.sub_partitions_per_channel, c.mem.l2);
  param("L2 (-gpgpu_cache:dl2)", buf);
  std::snprintf(buf, sizeof buf, "%u chips x %u bytes per channel, peak %.1f GB/s", c.mem.chips_per_channel,
                c.dram.bus_width, info.dram_peak_gbs);
  param("DRAM", buf);
  for (size_t i = 0; r && i < config_registry_count(r); i++) {
    const config_block *b = nullptr;
    const config_option *o = config_registry_option(r, i, &b);
    const char *file = nullptr;
    uint32_t line = 0;
    bool set = false;
    if (!o || !config_registry_origin(r, o->name, &file, &line, &set) || !set) continue;
    const char *v = config_registry_value(r, o->name);
    std::string where = file ? std::string(file) + (line ? ":" + std::to_string(line) : std::string()) : "program";
    info.options.push_back({o->name, v ? v : "", where});
    if (o->flags & CONFIG_NOT_MODELLED) info.not_modelled.push_back(o->name);
  }
  return info;
}

}  // namespace

void vp_platform::write_outputs_now() {
  if (finished_ || outputs_written_) return;
  simtvp_diag d;
  simtvp_diag_clear(&d);
  if (write_files(&d) != SIMTVP_OK) std::fprintf(stderr, "simtvp: error: %s\n", d.message);
}

simtvp_status vp_platform::write_files(simtvp_diag *diag) {
  if (outputs_written_) return SIMTVP_OK;
  outputs_written_ = true;
  simtvp_status st = SIMTVP_OK;
  uint64_t end = now_ps();
  timeline_.close(end);
  if (series_ && !series_->columns().empty()) series_->sample(end);
  if (stats_txt_) std::fflush(stats_txt_);
  std::string json;
  if (config_.output.stats_json[0])
    json = config_.output.stats_json;
  else if (!settings_.out_dir.empty())
    json = settings_.out_dir + "/stats.json";
  if (!settings_.out_dir.empty()) {
    if (!make_dirs(settings_.out_dir)) {
      st = simtvp_diag_set(diag, SIMTVP_ERR_IO, "%s: cannot create the output directory: %s",
                           settings_.out_dir.c_str(), std::strerror(errno));
    } else {
      std::string dump = settings_.out_dir + "/simtvp.config";
      if (FILE *f = std::fopen(dump.c_str(), "w")) {
        config_registry_dump(registry_, f);
        std::fclose(f);
      }
    }
  }
  if (!json.empty() && st == SIMTVP_OK) {
    size_t slash = json.rfind('/');
    if (slash != std::string::npos && slash > 0) make_dirs(json.substr(0, slash));
    st = stats_write_json(stats_, json.c_str(), diag);
  }
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  if (!settings_.out_dir.empty() && st == SIMTVP_OK) {
    // OUTDIR/host_time.json: how long the host took, the whole run and each kernel (simtvp compare).
    std::string path = settings_.out_dir + "/host_time.json";
    if (FILE *f = std::fopen(path.c_str(), "w")) {
      std::fprintf(f, "{\n  \"format\": \"simtvp-host-time\",\n  \"version\": 1,\n  \"wall_s\": %.6f,\n  \"kernels\": [", wall);
      host_usage now = host_usage_now();
      for (size_t i = 0; i < kernel_walls_.size(); i++) {
        const kernel_wall &k = kernel_walls_[i];
        const host_usage &end = k.ended ? k.end_use : now;
        std::fprintf(f,
                     "%s\n    {\"kernel_launch_uid\": %" PRIu64 ", \"wall_s\": %.6f, \"cpu_s\": %.6f, \"page_faults\": %ld}",
                     i ? "," : "", k.uid, (k.end_s < 0 ? wall : k.end_s) - k.begin_s, end.cpu_s - k.begin_use.cpu_s,
                     end.page_faults - k.begin_use.page_faults);
      }
      std::fprintf(f, "\n  ]\n}\n");
      std::fclose(f);
    }
  }
  report::html_info info = report_info(config_, registry_, settings_, gpu_->simt_model());
  info.wall_s = wall;
  info.sim_ps = end;
  if (!settings_.out_dir.empty() && st == SIMTVP_OK) {
    std::string path = settings_.out_dir + "/report.html";
    FILE *f = std::fopen(path.c_str(), "w");
    bool ok = f && report::write_html_report(f, stats_, timeline_, series_.get(), info);
    if (f && std::fclose(f) != 0) ok = false;
    if (!ok)
      st = simtvp_diag_set(diag, SIMTVP_ERR_IO, "%s: cannot write the report: %s", path.c_str(), std::strerror(errno));
  }
  if (!settings_.trace_path.empty()) {
    size_t slash = settings_.trace_path.rfind('/');
    if (slash != std::string::npos && slash > 0) make_dirs(settings_.trace_path.substr(0, slash));
    FILE *f = std::fopen(settings_.trace_path.c_str(), "w");
    report::trace_info ti;
    ti.gpu = info.gpu;
    ti.config = info.config;
    ti.simt_model = info.simt_model;
    ti.core_mhz = info.core_mhz;
    bool ok = f && report::write_trace_json(f, timeline_, series_.get(), ti);
    if (f && std::fclose(f) != 0) ok = false;
    if (!ok && st == SIMTVP_OK)
      st = simtvp_diag_set(diag, SIMTVP_ERR_IO, "--trace %s: cannot write the trace: %s", settings_.trace_path.c_str(),
                           std::strerror(errno));
  }
  if (!settings_.vcd_path.empty()) {
    size_t slash = settings_.vcd_path.rfind('/');
    if (slash != std::string::npos && slash > 0) make_dirs(settings_.vcd_path.substr(0, slash));
    FILE *f = std::fopen(settings_.vcd_path.c_str(), "w");
    report::vcd_info vi;
    vi.gpu = info.gpu;
    vi.config = info.config;
    vi.simt_model = info.simt_model;
    bool ok = f && report::write_trace_vcd(f, timeline_, vi);
    if (f && std::fclose(f) != 0) ok = false;
    if (!ok && st == SIMTVP_OK)
      st = simtvp_diag_set(diag, SIMTVP_ERR_IO, "--vcd %s: cannot write the waveforms: %s", settings_.vcd_path.c_str(),
                           std::strerror(errno));
  }
  return st;
}

simtvp_status vp_platform::finish(simtvp_diag *diag) {
  if (finished_) return SIMTVP_OK;
  if (debugger_) debugger_->finish();
  if (settings_.check_only) {  // built to be checked: nothing ran, nothing to write or summarise
    finished_ = true;
    flush_messages();
    return SIMTVP_OK;
  }
  gpu_->report_leaks();  // the memory checker's leaks (nothing when it is off)
  simtvp_status st = write_files(diag);
  finished_ = true;
  yield_terminal();
  if (!settings_.quiet && settings_.stats_text == "summary" && !figures_.empty())
    print_text(stderr, report::kernel_table(figures_));
  if (!settings_.quiet) {
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    double sim = sc_core::sc_time_stamp().to_seconds();
    int found = 0;
    uint64_t insn = stats_get(stats_, "gpu_sim_insn", &found);
    std::fflush(stdout);
    std::fprintf(stderr,
                 "simtvp: run summary: %u kernel%s, %" PRIu64 " thread instructions, simulated %s, "
                 "wall %.3f s, %sinsn/s, %s simulated per wall second (%s SIMT, %s)\n",
                 stats_kernel_count(stats_), stats_kernel_count(stats_) == 1 ? "" : "s", insn,
                 human_time(sim).c_str(), wall, human_rate(wall > 0 ? insn / wall : 0).c_str(),
                 human_time(wall > 0 ? sim / wall : 0).c_str(), gpu_->simt_model(),
                 config_.host.gpu_name);
  }
  return st;
}

}  // namespace simtvp
