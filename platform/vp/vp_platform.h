// vp_platform — the whole virtual platform, assembled from a configuration: host CPU stub,
// system bus, system memory and the GPU module, wired as in DESIGN.md section 1, plus the
// outputs (per-kernel statistics text, statistics JSON, time series, run summary).
//
//   simtvp.host (host_cpu) --bus--> simtvp.bus (sys_bus) --> simtvp.sysmem (sys_mem)
//   simtvp.gpu.dma -----------------^                   |--> simtvp.gpu.bar0 (gpu_top)
//                                                       \--> simtvp.procmem (proc_mem)
//   simtvp.gpu.irq --(simtvp.irq)--> simtvp.host.irq
//
// Address map: system memory at kSysmemBase (kSysmemBytes, plus an integrated GPU's carve-out right
// above: -gpu_carveout_base), BAR0 at kBar0Base, the program's own memory (what cudaHostRegister
// exposes, and the IOMMU's pages) in proc_mem's window at kProcBase, in the order it is exposed.
#ifndef SIMTVP_PLATFORM_VP_PLATFORM_H
#define SIMTVP_PLATFORM_VP_PLATFORM_H

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>
#include <string>

#include <systemc>

#include "config.h"
#include "debug_frontend.h"
#include "gpu_config.h"
#include "gpu_top.h"
#include "host_cpu.h"
#include "message_fold.h"
#include "progress.h"
#include "series.h"
#include "stats.h"
#include "summary.h"
#include "timeline.h"
#include "proc_mem.h"
#include "sys_bus.h"
#include "sys_mem.h"
#include "vp_config.h"

struct syscache;
struct coherence;
struct iommu;

namespace simtvp {

// The process's CPU time (user and system, every thread) and minor page faults at a moment
// (getrusage), for host_time.json.
struct host_usage {
  double cpu_s = 0;
  long page_faults = 0;
};

class vp_platform : public sc_core::sc_module {
 public:
  static constexpr uint64_t kSysmemBase = 0x100000000ull;  // 4 GiB
  static constexpr uint64_t kSysmemBytes = 8ull << 30;
  static constexpr uint64_t kBar0Base = 0xF0000000ull;
  static constexpr uint64_t kProcBase = 1ull << 60;

  // Builds the platform from a loaded configuration (takes the registry). Check ok() after.
  vp_platform(sc_core::sc_module_name name, const vp_settings &settings, const gpu_config &config,
              config_registry *registry);
  ~vp_platform() override;
  bool ok(simtvp_diag *diag) const;

  host_cpu &host() { return *host_; }
  gpu_top &gpu() { return *gpu_; }
  stats *statistics() { return stats_; }
  const vp_settings &settings() const { return settings_; }
  const gpu_config &config() const { return config_; }

  // Host view of system memory [bus_addr, +bytes), or nullptr when that is not all system memory.
  uint8_t *sysmem_ptr(uint64_t bus_addr, uint64_t bytes) {
    const uint64_t size = mem_->size();
    if (bus_addr < kSysmemBase || bus_addr - kSysmemBase > size || bytes > size - (bus_addr - kSysmemBase))
      return nullptr;
    return mem_->data() + (bus_addr - kSysmemBase);
  }

  // The program's memory [p, p + bytes) (whole pages) made reachable from the bus (the host's
  // page tables pin it): its bus address, false when it cannot be. unexpose undoes one expose.
  // The bus address is the next free one of proc_mem's window, the same in every run.
  bool expose(const void *p, uint64_t bytes, uint64_t *bus_addr) {
    uint64_t w = 0;
    if (!proc_->expose(reinterpret_cast<uintptr_t>(p), bytes, &w)) return false;
    *bus_addr = kProcBase + w;
    return true;
  }
  void unexpose(const void *p, uint64_t bytes) { proc_->unexpose(reinterpret_cast<uintptr_t>(p), bytes); }

  // The last GPU fault's report (from the SIMT side).
  const simtvp_diag &last_fault() const { return gpu_->last_fault(); }

  // Writes the outputs of the run: statistics JSON and the effective configuration into the out
  // dir (and -stats_json), and the run summary on stderr unless quiet. Call once, at the end.
  simtvp_status finish(simtvp_diag *diag);

  // The message port the platform prints through ("simtvp: warning: …" on stderr).
  const simtvp_msg_port &messages() const { return messages_; }

  // Control returns to the program: the progress line (if one is on the terminal) is
  // erased so that the program's own output starts on a clean line.
  void yield_terminal() {
    if (progress_) progress_->clear();
    flush_messages();
  }
  // Kernels that began so far (the `simtvp` command's "no CUDA call" note and abnormal exits).
  uint32_t kernels_begun() const { return timeline_.kernels_begun(); }
  // Warnings and errors printed so far (simtvp --check counts them).
  uint32_t problems() const { return problems_; }
  // The outputs of finish() that need no simulation (statistics JSON and text, report, trace),
  // for a process that ends abnormally (a crash after kernels ran): written once, at most.
  void write_outputs_now();

  SC_HAS_PROCESS(vp_platform);

 private:
  void sample();  // time series: every -stats_series_period_ns while the GPU is busy
  void kernel_ended(const gpu_kernel_record &k);
  static void emit(void *ctx, simtvp_severity severity, const char *text);
  // Observers of the GPU (timeline, progress bookkeeping, report samples) — passive.
  void observe(const gpu_event &e);
  // Wakes at fixed simulated instants while a kernel runs: report samples and progress polls.
  void ticker();
  void poll_progress();
  simtvp_status write_files(simtvp_diag *diag);  // JSON, config dump, report, trace
  void print_text(FILE *out, const std::string &text);
  void flush_messages();  // what message_fold still holds
  report::message_fold fold_;

  // Kernels running now (by launch uid): what the progress line shows.
  struct live_kernel {
    uint64_t uid = 0, n_ctas = 0, ctas_done = 0, begin_cycle = 0, insn_at_begin = 0;
    std::string display;
  };
  std::vector<live_kernel> live_;
  uint32_t kernels_seen_ = 0;
  uint64_t boundary_cycle_ = 0;
  const uint64_t *insn_ = nullptr, *sim_cycle_ = nullptr;
  sc_core::sc_event kernel_event_;
  report::timeline timeline_;
  std::unique_ptr<report::series> series_;
  std::unique_ptr<report::progress> progress_;
  bool record_ = false;     // timeline and series wanted (-o or --trace)
  std::FILE *stats_txt_ = nullptr;
  bool stats_txt_failed_ = false;
  std::vector<report::kernel_figures> figures_;
  bool outputs_written_ = false;
  uint32_t problems_ = 0;

  vp_settings settings_;
  gpu_config config_;
  config_registry *registry_;
  simtvp_msg_port messages_{};
  stats *stats_ = nullptr;
  std::unique_ptr<host_cpu> host_;
  std::unique_ptr<sys_bus> bus_;
  std::unique_ptr<sys_mem> mem_;
  ::socmem *socmem_ = nullptr;  // the SoC memory's timing (integrated modes)
  ::syscache *syscache_ = nullptr;    // the system-level cache (shared modes)
  ::coherence *coherence_ = nullptr;  // the MESI directory over host memory (shared modes)
  ::iommu *iommu_ = nullptr;          // the system IOMMU over the host's page tables (shared_va)
  std::mutex iommu_mutex_;            // the GPU translates from several host threads
  std::vector<uint64_t> iommu_pages_; // pages the IOMMU's page requests exposed in proc_
  // The OS's answer to an IOMMU page request: maps the page holding va if the program has it.
  bool os_page_request(uint64_t va, bool write);
  void build_iommu();
  // The shared modes' system side: directory (host memory only), system-level cache, SoC memory.
  uint64_t time_shared(uint64_t offset, uint64_t bytes, bool write, int agent, bool writeback, uint64_t at);
  bool build_shared();
  std::unique_ptr<proc_mem> proc_;
  std::unique_ptr<debug_frontend> debugger_;  // simtvp --debug (before the GPU, which uses its port)
  std::unique_ptr<gpu_top> gpu_;
  sc_core::sc_signal<bool> irq_;
  simtvp_diag build_diag_;
  simtvp_status build_status_ = SIMTVP_OK;
  std::chrono::steady_clock::time_point started_;
  // Host (wall) seconds of each kernel from its begin to its end, for OUTDIR/host_time.json: kept
  // out of stats.json, whose contents are deterministic.
  struct kernel_wall {
    uint64_t uid = 0;
    double begin_s = 0, end_s = -1;
    host_usage begin_use, end_use;  // the process's CPU time and page faults (getrusage)
    bool ended = false;
  };
  std::vector<kernel_wall> kernel_walls_;
  bool finished_ = false;
};

}  // namespace simtvp

#endif  // SIMTVP_PLATFORM_VP_PLATFORM_H
