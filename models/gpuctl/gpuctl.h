/* gpuctl — the GPU's control side as one model core: the BAR0 register block, the command
 * processor running firmware/cp, the copy engines, the CTA dispatcher and the MMU (gpu_mmu.h:
 * every engine's device addresses are translated through the channel's page tables), wired
 * together.
 *
 * This is what the GPU top module's shell instantiates (DESIGN.md §2): it translates BAR0
 * b_transport calls into gpuctl_mmio_read/write, the DMA initiator socket into the sysmem port,
 * the device-memory store into the devmem port, the SIMT cores into the simt port (and calls
 * gpuctl_cta_done when they finish CTAs), the irq port into the interrupt output, and sleeps
 * until gpuctl_next_event. One clock (the control clock, cycles of gpuctl_config.clock_khz) for
 * all four blocks; the global timer runs in nanoseconds derived from it.
 * Each block is also usable alone (gpu_regs.h, gpu_cp.h, gpu_ce.h, gpu_disp.h). */
#ifndef SIMTVP_GPUCTL_H
#define SIMTVP_GPUCTL_H

#include <stdbool.h>
#include <stdint.h>

#include "gpu_abi.h"
#include "gpu_ce.h"
#include "gpu_cp.h"
#include "gpu_disp.h"
#include "gpu_hw.h"
#include "gpu_mmu.h"
#include "gpu_regs.h"
#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpuctl gpuctl;

typedef struct gpuctl_config {
  gpu_caps caps;            /* what the capability registers report; also the dispatcher's limits */
  uint32_t clock_khz;       /* control clock; 0 = caps.core_clock_khz */
  gpu_cp_config cp;
  gpu_ce_config ce;         /* n_engines 0 = caps.n_copy_engines */
  uint32_t ctas_per_cycle;  /* dispatcher issue limit; 0 = none (functional mode) */
  /* launch latencies in control-clock (= core) cycles, gpu_disp_config's */
  uint32_t kernel_launch_cycles; /* -gpgpu_kernel_launch_latency: kernel begin -> first CTA issue */
  uint32_t cta_launch_cycles;    /* -gpgpu_TB_launch_latency: CTA issue -> its core gets it */
} gpuctl_config;

void gpuctl_config_default(gpuctl_config *c);

typedef struct gpuctl_ports {
  gpu_mem_port sysmem;      /* DMA initiator: system memory */
  gpu_mem_port devmem;      /* device-memory store (models/func's devmem in functional mode) */
  gpu_simt_port simt;       /* SIMT cores */
  /* Host addresses of physical pages (optional): what the SIMT side's functional engine reads and
   * writes directly (gpu_mmu_ports.host_page). */
  struct {
    void *ctx;
    uint8_t *(*vidmem)(void *ctx, uint64_t pa);
    uint8_t *(*sysmem)(void *ctx, uint64_t pa);
    /* (addition, optional) Every translation the functional engine makes for a kernel (virtual
     * page va, the entry's aperture, physical page pa), so that a timing side whose requests
     * carry virtual addresses can route those of a page mapped onto system memory (a MAP_SYSMEM
     * window behind a VIDMEM entry) as system-memory requests. */
    void (*translated)(void *ctx, uint64_t va, uint32_t aperture, uint64_t pa);
  } host_page;
  gpu_sysmap_port sysmap;   /* MAP_SYSMEM packets (optional: without it they are refused) */
  gpu_ats_port ats;         /* (addition) the system IOMMU's translation (gpu_mmu.h), optional */
  struct { void *ctx; void (*set)(void *ctx, bool level); } irq; /* interrupt output */
  gpu_memmap_port memmap;   /* (addition) the device-memory map; unconnected: all memory accessible */
} gpuctl_ports;

/* SIMTVP_ERR_CONFIG (naming the field) for an inconsistent configuration. */
gpuctl *gpuctl_create(const gpuctl_config *config, gpuctl_ports ports, simtvp_diag *diag);
void gpuctl_destroy(gpuctl *g);
/* Hardware reset: registers to reset values, engines and firmware restarted, work dropped. */
void gpuctl_reset(gpuctl *g);

/* BAR0 accesses at cycle now (bytes = access size; illegal ones are reported by the GPU itself).
 * Call gpuctl_advance afterwards: a doorbell is handled there. */
uint32_t gpuctl_mmio_read(gpuctl *g, uint32_t offset, uint32_t bytes, uint64_t now);
void gpuctl_mmio_write(gpuctl *g, uint32_t offset, uint32_t bytes, uint32_t value, uint64_t now);

/* A SIMT core finished a CTA (gpu_disp_cta_done). */
void gpuctl_cta_done(gpuctl *g, uint32_t sm, uint32_t kernel_slot, const gpu_cta_result *r,
                     uint64_t now);

/* The SIMT side stopped a kernel (gpu_disp_abort): no further CTAs; it ends once its resident
 * CTAs are reported. Call gpuctl_advance afterwards. */
void gpuctl_abort_kernel(gpuctl *g, uint32_t kernel_slot, const gpu_kernel_result *why, uint64_t now);

void gpuctl_advance(gpuctl *g, uint64_t now);
uint64_t gpuctl_next_event(const gpuctl *g); /* UINT64_MAX when idle */
bool gpuctl_irq_level(const gpuctl *g);
/* Nothing queued, in flight or running. */
bool gpuctl_idle(const gpuctl *g);
uint64_t gpuctl_cycles_to_ns(const gpuctl *g, uint64_t cycles);

/* Registers every block's counters with the sink (ce.*, cp.*, cta_disp.*); call once, before work. */
void gpuctl_register_stats(gpuctl *g, stats *st);

/* Timeline of the control side (gpu_hw.h gpu_trace_event): copy-engine operations,
 * command-processor work and decoded packets go to port. Passive; off by default. */
void gpuctl_set_trace(gpuctl *g, gpu_trace_port port);

/* The blocks inside (tests, statistics, traces). */
gpu_regs *gpuctl_regs(gpuctl *g);
gpu_cp *gpuctl_cp(gpuctl *g);
gpu_ce *gpuctl_ce(gpuctl *g);
gpu_disp *gpuctl_disp(gpuctl *g);
gpu_mmu *gpuctl_mmu(gpuctl *g);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_GPUCTL_H */
