// vp_platform — the whole virtual platform, assembled from a configuration: host CPU stub,
// system bus, system memory and the GPU module, wired as in DESIGN.md section 1, plus the
// outputs (per-kernel statistics text, statistics JSON, time series, run summary).
//
//   simtvp.host (host_cpu) --bus--> simtvp.bus (sys_bus) --> simtvp.sysmem (sys_mem)
//   simtvp.gpu.dma -----------------^                   \--> simtvp.gpu.bar0 (gpu_top)
//   simtvp.gpu.irq --(simtvp.irq)--> simtvp.host.irq
//
// Address map: system memory at kSysmemBase (kSysmemBytes), BAR0 at kBar0Base.
#ifndef SIMTVP_PLATFORM_VP_PLATFORM_H
#define SIMTVP_PLATFORM_VP_PLATFORM_H

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <systemc>

#include "config.h"
#include "gpu_config.h"
#include "gpu_top.h"
#include "host_cpu.h"
#include "stats.h"
#include "sys_bus.h"
#include "sys_mem.h"
#include "vp_config.h"

namespace simtvp {

class vp_platform : public sc_core::sc_module {
 public:
  static constexpr uint64_t kSysmemBase = 0x100000000ull;  // 4 GiB
  static constexpr uint64_t kSysmemBytes = 8ull << 30;
  static constexpr uint64_t kBar0Base = 0xF0000000ull;

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
    if (bus_addr < kSysmemBase || bus_addr - kSysmemBase > kSysmemBytes || bytes > kSysmemBytes - (bus_addr - kSysmemBase))
      return nullptr;
    return mem_->data() + (bus_addr - kSysmemBase);
  }

  // The last GPU fault's report (from the SIMT side).
  const simtvp_diag &last_fault() const { return gpu_->last_fault(); }

  // Writes the outputs of the run: statistics JSON and the effective configuration into the out
  // dir (and -stats_json), and the run summary on stderr unless quiet. Call once, at the end.
  simtvp_status finish(simtvp_diag *diag);

  // The message port the platform prints through ("simtvp: warning: …" on stderr).
  const simtvp_msg_port &messages() const { return messages_; }

  SC_HAS_PROCESS(vp_platform);

 private:
  void sample();  // time series: every -stats_series_period_ns while the GPU is busy
  void kernel_ended(const gpu_kernel_record &k);
  static void emit(void *ctx, simtvp_severity severity, const char *text);

  vp_settings settings_;
  gpu_config config_;
  config_registry *registry_;
  simtvp_msg_port messages_{};
  stats *stats_ = nullptr;
  std::unique_ptr<host_cpu> host_;
  std::unique_ptr<sys_bus> bus_;
  std::unique_ptr<sys_mem> mem_;
  std::unique_ptr<gpu_top> gpu_;
  sc_core::sc_signal<bool> irq_;
  simtvp_diag build_diag_;
  simtvp_status build_status_ = SIMTVP_OK;
  std::chrono::steady_clock::time_point started_;
  bool finished_ = false;
};

}  // namespace simtvp

#endif  // SIMTVP_PLATFORM_VP_PLATFORM_H
