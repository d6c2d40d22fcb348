/* gpu_harness — the GPU's control side (models/gpuctl) without SystemC: flat system memory with an
 * allocator, a flat device-memory store, a fake SIMT side and a drv_bus whose every call runs the
 * model cores up to the host's time. Tests of gpuctl, firmware/cp and sw/driver use it.
 *
 * Time: one clock (the control clock). Each MMIO access costs mmio_cycles; the GPU is advanced
 * to the host's time on every access; wait_for_interrupt advances until the line rises (false
 * when nothing is left to happen). */
#ifndef SIMTVP_GPU_HARNESS_H
#define SIMTVP_GPU_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "driver.h"
#include "gpuctl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GH_MAX_CTAS 4096
#define GH_MAX_KERNELS 64
#define GH_MAX_SYSMAPS 64

typedef struct gh_cta {
  uint32_t kernel_slot, sm, cta[3];
  uint64_t launch_uid;
  uint64_t at;          /* cycle it was launched */
  uint64_t done_at;     /* cycle it completes */
  bool done;
} gh_cta;

typedef struct gh_kernel {
  gpu_kernel k;         /* copy at kernel_begin (desc.params points into params) */
  uint8_t params[4096];
  uint64_t begun_at, ended_at;
  bool ended;
} gh_kernel;

typedef struct gpu_harness gpu_harness;

/* Runs one CTA functionally (tests that compute something); may be NULL. Returns its result. */
typedef gpu_cta_result (*gh_cta_fn)(gpu_harness *h, const gpu_kernel *k, const uint32_t cta[3]);

struct gpu_harness {
  gpuctl *g;
  uint64_t now;
  uint32_t mmio_cycles;
  /* system memory */
  uint8_t *sys;
  uint64_t sys_base, sys_bytes;
  void *sys_heap;       /* drv_heap */
  /* device memory */
  uint8_t *dev;
  uint64_t dev_base, dev_bytes;
  /* device-memory map (MEMMAP registers): with memmap_on, only pages of declared blocks are accessible */
  bool memmap_on;
  uint32_t n_blocks;
  struct { uint64_t addr, size; } blocks[4096];
  bool irq;
  uint64_t irq_rises;
  /* fake SIMT side */
  uint64_t cta_cycles;  /* every CTA takes this long (0: done inside launch_cta) */
  gh_cta_fn cta_fn;
  void *user;
  gh_cta ctas[GH_MAX_CTAS];
  uint32_t n_ctas;
  uint32_t max_resident[256]; /* per SM, the most CTAs seen resident at once */
  gh_kernel kernels[GH_MAX_KERNELS];
  uint32_t n_kernels;
  bool refuse_kernels;  /* kernel_begin returns false */
  simtvp_status refuse_status; /* the status of that refusal (SIMTVP_OK: SIMTVP_ERR_FAULT) */
  bool hang_ctas;       /* CTAs never finish (deadlock tests) */
  /* MAP_SYSMEM: the GPU's map of system memory (a mapping is refused when it overlaps another or
   * refuse_sysmaps is set) */
  struct { uint64_t va, bus, bytes; } sysmaps[GH_MAX_SYSMAPS];
  uint32_t n_sysmaps;
  bool refuse_sysmaps;
  drv_bus bus;
};

/* The default control configuration shrunk for tests: devmem 64 MiB at 0x100000000000, 4 SMs. */
void gh_default_config(gpuctl_config *c);
/* NULL config = gh_default_config. Aborts the test program if the model cannot be built. */
gpu_harness *gh_create(const gpuctl_config *config);
/* Same with another device-memory store and/or SIMT side (NULL = the harness's own); with an
 * external devmem, gh_dev_ptr is not available. */
gpu_harness *gh_create_with(const gpuctl_config *config, const gpu_mem_port *devmem,
                            const gpu_simt_port *simt);
/* Same, with the host address of a physical device page in the external store (what a
 * functional SIMT side reads through the MMU: gpuctl_ports.host_page.vidmem). */
gpu_harness *gh_create_with_pages(const gpuctl_config *config, const gpu_mem_port *devmem,
                                  const gpu_simt_port *simt, void *page_ctx,
                                  uint8_t *(*vidmem_page)(void *ctx, uint64_t pa));
void gh_destroy(gpu_harness *h);

/* Host-side helpers. */
void gh_mmio_write(gpu_harness *h, uint32_t off, uint32_t v);
uint32_t gh_mmio_read(gpu_harness *h, uint32_t off);
/* Runs the GPU until nothing is left to do or `limit` cycles passed; returns the cycle reached. */
uint64_t gh_run(gpu_harness *h, uint64_t limit);
/* Runs until cycle t. */
void gh_run_until(gpu_harness *h, uint64_t t);
uint64_t gh_sys_alloc(gpu_harness *h, uint64_t bytes);
uint8_t *gh_sys_ptr(gpu_harness *h, uint64_t bus);
uint8_t *gh_dev_ptr(gpu_harness *h, uint64_t dptr);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_GPU_HARNESS_H */
