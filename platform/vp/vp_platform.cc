// vp_platform — see vp_platform.h.
#include "vp_platform.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>

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

}  // namespace

void vp_platform::emit(void *ctx, simtvp_severity severity, const char *text) {
  auto *p = static_cast<vp_platform *>(ctx);
  if (severity == SIMTVP_INFO && p->settings_.quiet) return;
  std::fflush(stdout);  // keep the program's output and ours in order on a terminal
  std::fprintf(stderr, "simtvp: %s: %s\n", severity_name(severity), text);
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

  // GPU first: its statistics lead the text output.
  gpu_top_options go;
  go.st = stats_;
  go.messages = messages_;
  go.simt_fallback_to_func = true;
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
  gpu_.reset(gpu_top::create("gpu", config_, go, &build_diag_));
  if (!gpu_) {
    build_status_ = build_diag_.status;
    return;
  }
  gpu_->on_kernel_end([this](const gpu_kernel_record &k) { kernel_ended(k); });

  mem_ = std::make_unique<sys_mem>("sysmem", kSysmemBytes);
  if (!mem_->ok()) {
    build_status_ = simtvp_diag_set(&build_diag_, SIMTVP_ERR_NOMEM,
                                    "cannot reserve %" PRIu64 " bytes of system memory", kSysmemBytes);
    return;
  }
  bus_ = std::make_unique<sys_bus>("bus");
  bus_->map(kSysmemBase, kSysmemBytes, 0, "sysmem");
  bus_->map(kBar0Base, GPU_BAR0_BYTES, 1, "gpu.bar0");

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
  gpu_->irq.bind(irq_);
  host_->irq.bind(irq_);

  // Statistics set-up.
  stats_set_info(stats_, "config", settings_.config_name.c_str());
  stats_set_info(stats_, "gpu", config_.host.gpu_name);
  stats_set_info(stats_, "simt_model", gpu_->simt_model());
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
}

vp_platform::~vp_platform() {
  host_.reset();
  gpu_.reset();
  bus_.reset();
  mem_.reset();
  stats_destroy(stats_);
  config_registry_destroy(registry_);
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

void vp_platform::kernel_ended(const gpu_kernel_record &) {
  if (settings_.quiet || !config_.output.print_kernel_stats) return;
  // GPGPU-Sim's layout: the kernel's own values, then the totals so far (gpu_tot_* and every
  // cumulative counter), which scripts diff between kernels.
  std::fflush(stdout);
  stats_print_kernel(stats_, stderr);
  stats_print_totals(stats_, stderr);
  std::fflush(stderr);
}

simtvp_status vp_platform::finish(simtvp_diag *diag) {
  if (finished_) return SIMTVP_OK;
  finished_ = true;
  gpu_->report_leaks();
  simtvp_status st = SIMTVP_OK;
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
