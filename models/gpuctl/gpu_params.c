/* gpu_params — gpu_config -> the GPU top module's parameters (see gpu_params.h). */
#include "gpu_params.h"

#include "gpu_abi.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "cache.h"
#include "devmem.h"

static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* Cycles of a clock of khz kHz that cover ns nanoseconds (rounded up). */
static uint32_t ns_to_cycles(double ns, uint32_t khz) {
  double c = ceil(ns * (double)khz / 1e6);
  return c > 4e9 ? 4000000000u : (uint32_t)c;
}

uint64_t gpu_cycles_to_ps(uint64_t cycles, uint64_t hz) {
  unsigned __int128 num = (unsigned __int128)cycles * 1000000000000ull;
  unsigned __int128 ps = (num + hz - 1) / hz;
  return ps > UINT64_MAX ? UINT64_MAX : (uint64_t)ps;
}

uint64_t gpu_ps_to_cycles(uint64_t ps, uint64_t hz) {
  return (uint64_t)((unsigned __int128)ps * hz / 1000000000000ull);
}

/* L2 capacity of the whole GPU: one -gpgpu_cache:dl2 per sub-partition. */
static uint64_t l2_bytes(const gpu_config *cfg) {
  cache_spec spec;
  if (cache_spec_parse(cfg->mem.l2, "-gpgpu_cache:dl2", &spec, NULL) != SIMTVP_OK || spec.disabled)
    return 0;
  return cache_spec_capacity(&spec) * cfg->derived.n_sub_partitions;
}

simtvp_status gpu_params_from_config(const gpu_config *cfg, gpu_params *p, simtvp_diag *diag) {
  const gpu_config_derived *d = &cfg->derived;
  gpu_caps *c = &p->ctl.caps;
  memset(p, 0, sizeof *p);
  gpuctl_config_default(&p->ctl);

  /* ---- identity and organisation (what cudaGetDeviceProperties reports) ---- */
  size_t n = 0; /* the register file holds 32 bytes of name: longer names are cut */
  while (n < sizeof c->name - 1 && cfg->host.gpu_name[n]) {
    c->name[n] = cfg->host.gpu_name[n];
    n++;
  }
  c->name[n] = '\0';
  c->cc_major = cfg->sim.cc_major;
  c->cc_minor = cfg->sim.cc_minor;
  c->clusters = cfg->core.n_clusters;
  c->cores_per_cluster = cfg->core.n_cores_per_cluster;
  c->warp_size = d->warp_size;
  c->max_threads_per_sm = d->max_threads_per_core;
  c->max_warps_per_sm = d->max_warps_per_core;
  c->max_ctas_per_sm = cfg->core.max_ctas_per_core;
  /* CUDA's per-block thread limit: 512 before compute capability 2.0, 1024 since; never more than
   * an SM holds. Block dimensions follow it (z is 64 on every architecture). */
  c->max_threads_per_block = min_u32(cfg->sim.cc_major < 2 ? 512 : 1024, c->max_threads_per_sm);
  c->max_block_dim[0] = c->max_threads_per_block;
  c->max_block_dim[1] = c->max_threads_per_block;
  c->max_block_dim[2] = 64;
  if (cfg->sim.cc_major < 3) c->max_grid_dim[0] = 65535; /* 2^31-1 from Kepler (cc 3.0) on */
  c->regs_per_sm = cfg->core.registers_per_core;
  c->regs_per_block = min_u32(cfg->core.registers_per_cta, c->regs_per_sm);
  c->smem_per_sm = cfg->core.shmem_size;
  /* 48 KiB per block by default (CUDA's static limit), more only on opt-in, never more than an
   * SM has or -gpgpu_shmem_per_block allows. */
  c->smem_per_block_optin = min_u32(cfg->core.shmem_per_cta, c->smem_per_sm);
  c->smem_per_block = min_u32(49152, c->smem_per_block_optin);
  uint64_t l2 = l2_bytes(cfg);
  c->l2_bytes = l2 > UINT32_MAX ? UINT32_MAX : (uint32_t)l2;
  uint64_t bus_bits = (uint64_t)cfg->mem.n_channels * cfg->mem.chips_per_channel *
                      cfg->dram.bus_width * 8u;
  c->mem_bus_width_bits = bus_bits > UINT32_MAX ? UINT32_MAX : (uint32_t)bus_bits;
  if (!(d->core_mhz >= 0.001) || d->core_mhz > 4e6)
    return simtvp_diag_option_error(diag, SIMTVP_ERR_CONFIG, "-gpgpu_clock_domains", "the core clock must be between 1 kHz and 4 THz");
  c->core_clock_khz = (uint32_t)llround(d->core_mhz * 1000.0);
  c->mem_clock_khz = (uint32_t)llround(d->dram_mhz * 1000.0);
  if (cfg->host.device_memory_mb == 0 || cfg->host.device_memory_mb > (1ull << 30))
    return simtvp_diag_option_error(diag, SIMTVP_ERR_CONFIG, "-device_memory_mb", "device memory must be between 1 MiB and 1 PiB");
  c->devmem_bytes = cfg->host.device_memory_mb << 20;
  c->devmem_base = cfg->host.device_memory_base;
  if (c->devmem_base % (64u << 10) || c->devmem_base < (1ull << 32) || c->devmem_base >= FUNC_WINDOW_LO)
    return simtvp_diag_option_error(diag, SIMTVP_ERR_CONFIG, "-device_memory_base",
                                    "must be 64 KiB aligned, at least 4 GiB and below the generic-address "
                                    "windows at 0x%llx", (unsigned long long)FUNC_WINDOW_LO);
  c->max_concurrent_kernels =
      cfg->sim.max_concurrent_kernel > 0 ? (uint32_t)cfg->sim.max_concurrent_kernel : 1;
  /* How the GPU sits in the system (docs/system-modes.md), for the SYSTEM register. */
  const int32_t mode = cfg->system.mode;
  c->system = 0;
  if (gpu_system_integrated(mode)) c->system |= GPU_FIELD_MASK(GPU_SYSTEM_INTEGRATED);
  if (mode == GPU_SYSTEM_SHARED_LLC || mode == GPU_SYSTEM_SHARED_VA) c->system |= GPU_FIELD_MASK(GPU_SYSTEM_COHERENT);
  if (mode == GPU_SYSTEM_SHARED_VA) c->system |= GPU_FIELD_MASK(GPU_SYSTEM_PAGEABLE);
  if (gpu_caps_check(c, diag) != SIMTVP_OK) return diag ? diag->status : SIMTVP_ERR_CONFIG;

  /* ---- control clock and engine timing ---- */
  p->core_clock_hz = (uint64_t)llround(d->core_mhz * 1e6);
  p->ctl.clock_khz = c->core_clock_khz;
  const gpu_host_config *h = &cfg->host;
  if (!(h->bus_bandwidth_gbs > 0.0))
    return simtvp_diag_option_error(diag, SIMTVP_ERR_CONFIG, "-host_bus_bandwidth_gbs", "the bus bandwidth must be positive");
  if (!(h->sysmem_latency_ns >= 0.0))
    return simtvp_diag_option_error(diag, SIMTVP_ERR_CONFIG, "-host_sysmem_latency_ns", "the latency must not be negative");
  /* A firmware DMA access (ring fetch, parameters, semaphore) and a copy engine's start-up both
   * pay the DMA latency to system memory: the host link of a discrete GPU, the SoC fabric and
   * memory of an integrated one. */
  const gpu_system_config *sy = &cfg->system;
  const bool integrated = gpu_system_integrated(mode);
  double sys_ns = integrated ? sy->fabric_latency_ns + sy->sysmem_latency_ns : h->sysmem_latency_ns;
  double sys_gbs = integrated ? (sy->fabric_bandwidth_gbs < sy->sysmem_bandwidth_gbs ? sy->fabric_bandwidth_gbs
                                                                                        : sy->sysmem_bandwidth_gbs)
                              : h->bus_bandwidth_gbs;
  p->ctl.cp.dma_cycles = ns_to_cycles(sys_ns, p->ctl.clock_khz);
  p->ctl.ce.sysmem_latency_cycles = p->ctl.cp.dma_cycles;
  double per_cycle = sys_gbs * 1e9 / ((double)p->ctl.clock_khz * 1e3);
  p->ctl.ce.sysmem_bytes_per_cycle = per_cycle < 1.0 ? 1u : (uint32_t)llround(per_cycle);
  /* Peak DRAM bandwidth: channels x chips x bus bytes x data transfers per command cycle x
   * command clock (GPGPU-Sim's DRAM clock is the command clock). An integrated GPU's device
   * memory is system memory: the same figures as above. */
  double dram_bps = (double)cfg->mem.n_channels * cfg->mem.chips_per_channel * cfg->dram.bus_width *
                    cfg->dram.data_command_freq_ratio * d->dram_mhz * 1e6;
  per_cycle = dram_bps / ((double)p->ctl.clock_khz * 1e3);
  p->ctl.ce.devmem_bytes_per_cycle = per_cycle < 1.0 ? 1u : (uint32_t)llround(per_cycle);
  p->ctl.ce.devmem_latency_cycles = cfg->mem.dram_latency;
  if (integrated) {
    p->ctl.ce.devmem_bytes_per_cycle = p->ctl.ce.sysmem_bytes_per_cycle;
    p->ctl.ce.devmem_latency_cycles = p->ctl.cp.dma_cycles;
  }

  /* ---- SIMT side ---- */
  p->simt_model = "func";
  for (uint32_t i = 0; i < d->n_cores && i < GPU_CONFIG_MAX_CORES; i++)
    if (d->simt_model_of_core[i] != GPU_FIDELITY_FUNC) p->simt_model = "timing";
  /* Functional mode runs a CTA to completion the moment it is placed: no issue limit. Timing
   * sides get at most one new CTA per core per cycle over the GPU (GPGPU-Sim's issue loop visits
   * every core once a cycle). */
  p->ctl.ctas_per_cycle = strcmp(p->simt_model, "func") == 0 ? 0 : d->n_cores;
  /* Launch latencies (core cycles = control-clock cycles), GPGPU-Sim's -gpgpu_kernel_launch_latency
   * and -gpgpu_TB_launch_latency; checked whatever the side, so a bad file fails either way. The
   * functional side runs kernels in zero GPU time and gets none (docs/platform.md). */
  if (cfg->sim.kernel_launch_latency < 0)
    return simtvp_diag_option_error(diag, SIMTVP_ERR_CONFIG, "-gpgpu_kernel_launch_latency", "the latency must not be negative");
  if (cfg->sim.cta_launch_latency < 0)
    return simtvp_diag_option_error(diag, SIMTVP_ERR_CONFIG, "-gpgpu_TB_launch_latency", "the latency must not be negative");
  if (strcmp(p->simt_model, "func") != 0) {
    p->ctl.kernel_launch_cycles = (uint32_t)cfg->sim.kernel_launch_latency;
    p->ctl.cta_launch_cycles = (uint32_t)cfg->sim.cta_launch_latency;
  }

  /* ---- functional engine ---- */
  p->func.n_sms = d->n_cores;
  p->func.max_warps_per_sm = d->max_warps_per_core;
  p->func.stack_bytes = cfg->sim.stack_size_limit > 0 ? (uint32_t)cfg->sim.stack_size_limit : 0;
  p->func.threads = cfg->fidelity.func_threads ? cfg->fidelity.func_threads : 1;
  /* Warps wait on replayable faults (unified memory) on every SIMT side, which parks them: the
   * functional side (with several engine threads it runs kernels CTA by CTA on one once the
   * driver has set up the fault buffer), and the timing GPU, whose CA, AT and func cores all park
   * waiting warps (with any -sim_threads: faults are recorded in the serial phase, docs/vm.md). */
  p->ctl.caps.replayable = true;
  p->func.pc_counts = cfg->output.ptx_line_stats; /* PTX source-line statistics, every side */
  p->func.memcheck = cfg->sim.memcheck;
  if (cfg->sim.max_insn) /* thread instructions -> warp instructions, per launch */
    p->func.max_warp_insns = (cfg->sim.max_insn + c->warp_size - 1) / c->warp_size;
  /* The device malloc heap sits above device memory with a 64 KiB unmapped gap, so running off
   * the end of the last allocation faults instead of landing in the heap. */
  p->heap_bytes = cfg->sim.heap_size_limit > 0 ? (uint64_t)cfg->sim.heap_size_limit : 0;
  p->heap_base = c->devmem_base + c->devmem_bytes + (64u << 10);
  p->heap_base = (p->heap_base + DEVMEM_PAGE_MASK) & ~DEVMEM_PAGE_MASK;
  if (c->devmem_bytes > FUNC_WINDOW_LO - c->devmem_base || p->heap_base + p->heap_bytes > FUNC_WINDOW_LO)
    return simtvp_diag_option_error(diag, SIMTVP_ERR_CONFIG, "-device_memory_mb",
                                    "device memory (%" PRIu64 " MiB from -device_memory_base 0x%" PRIx64
                                    ") and the device heap above it must end below the generic-address "
                                    "windows at 0x%llx", cfg->host.device_memory_mb, c->devmem_base,
                                    (unsigned long long)FUNC_WINDOW_LO);
  p->func.heap_base = p->heap_bytes ? p->heap_base : 0;
  p->func.heap_bytes = p->heap_bytes;
  c->heap_base = p->func.heap_base;
  c->heap_bytes = p->heap_bytes;
  return SIMTVP_OK;
}
