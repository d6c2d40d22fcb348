/* gpu_params — what the GPU top module builds its model cores from, derived from a gpu_config
 * (models/config): the control side's capabilities and timing (gpuctl_config) and the functional
 * engine's configuration (func_config), plus the device-memory layout.
 *
 * One place maps GPGPU-Sim options to what the capability registers report (docs/platform.md
 * "Configuration → GPU"), so the platform, the `simtvp` command and a SoC integrator instantiating
 * the GPU module in their own VP all get the same GPU from the same option file. Plain C, no
 * SystemC: unit-testable alone. */
#ifndef SIMTVP_GPU_PARAMS_H
#define SIMTVP_GPU_PARAMS_H

#include <stdint.h>

#include "func.h"
#include "gpu_config.h"
#include "gpuctl.h"
#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_params {
  gpuctl_config ctl;       /* caps (capability registers), control clock, CP and copy-engine timing */
  func_config func;        /* functional engine: SM count, warps, stack, heap, instruction limit */
  uint64_t heap_base;      /* device malloc heap, mapped in the store beside device memory */
  uint64_t heap_bytes;     /* (from -gpgpu_heap_size_limit; placed right above device memory) */
  uint64_t core_clock_hz;  /* SIMT core clock (-gpgpu_clock_domains core) = the control clock */
  const char *simt_model;  /* "func" when every core is functional, else "timing" */
} gpu_params;

/* Fills p from cfg (which must have been finalized). SIMTVP_ERR_CONFIG naming the option when a
 * value cannot be represented (device memory larger than the address space, zero clock …). */
simtvp_status gpu_params_from_config(const gpu_config *cfg, gpu_params *p, simtvp_diag *diag);

/* Cycles of a clock of hz Hz -> picoseconds (rounded up) and picoseconds -> completed cycles
 * (rounded down), so that gpu_ps_to_cycles(gpu_cycles_to_ps(c, hz), hz) == c for any hz up to
 * 1 THz, while the time fits 64 bits of picoseconds (213 days; beyond, gpu_cycles_to_ps
 * saturates at UINT64_MAX). 128-bit intermediates. hz must not be 0. */
uint64_t gpu_cycles_to_ps(uint64_t cycles, uint64_t hz);
uint64_t gpu_ps_to_cycles(uint64_t ps, uint64_t hz);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_GPU_PARAMS_H */
