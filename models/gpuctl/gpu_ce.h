/* gpu_ce — copy engines: move real bytes between system memory (through the DMA port) and the
 * device-memory store (through the devmem port), linear or 2-D pitched, and fill memory (memset
 * of 1/2/4-byte elements).
 *
 * Timing is approximately timed: an operation on a free engine takes
 *   latency + ceil(bytes / bandwidth)
 * cycles of the control clock, where latency is the larger and bandwidth the smaller of the
 * memories it touches (system memory: the host link; device memory: DRAM as the copy engine sees
 * it). Data moves when the operation completes, in chunks through one bounce buffer (no
 * allocation per operation). A failed access ends the operation with the fault address (and,
 * when a device address did not translate, the MMU's fault kind). */
#ifndef SIMTVP_GPU_CE_H
#define SIMTVP_GPU_CE_H

#include <stdbool.h>
#include <stdint.h>

#include "gpu_hw.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_ce gpu_ce;

typedef struct gpu_ce_config {
  uint32_t n_engines;              /* operations in flight at once; 0 = 1 */
  uint32_t sysmem_bytes_per_cycle; /* host link bandwidth; 0 = 16 */
  uint32_t devmem_bytes_per_cycle; /* device-memory bandwidth available to a copy; 0 = 256 */
  uint32_t sysmem_latency_cycles;  /* 0 = 0 cycles */
  uint32_t devmem_latency_cycles;
  uint32_t chunk_bytes;            /* bounce buffer; 0 = 64 KiB (rounded up to 4 bytes) */
} gpu_ce_config;

typedef struct gpu_ce_ports {
  gpu_mem_port sysmem;
  gpu_mem_port devmem;  /* physical device memory */
  /* Translated device memory (the GPU's MMU, optional): DEVMEM sides of an operation go through
   * it with the operation's pdb (or physical when that side's *_phys is set), page by page, so a
   * translation fault names its page. Without it DEVMEM addresses are physical. */
  gpu_vmem_port vmem;
  /* An operation finished at cycle `now`; the engine is free again before this is called, so the
   * receiver may submit the next operation from inside. */
  struct {
    void *ctx;
    void (*done)(void *ctx, uint32_t tag, const gpu_copy_result *result, uint64_t now);
  } done;
} gpu_ce_ports;

typedef struct gpu_ce_counters {
  uint64_t copies, memsets, bytes, busy_cycles, faults;
} gpu_ce_counters;

/* NULL on allocation failure. */
gpu_ce *gpu_ce_create(const gpu_ce_config *config, gpu_ce_ports ports);
void gpu_ce_destroy(gpu_ce *ce);
void gpu_ce_reset(gpu_ce *ce); /* drops operations in flight without completing them */

/* Starts op on a free engine at cycle now; false when all engines are busy. */
bool gpu_ce_submit(gpu_ce *ce, const gpu_copy_op *op, uint32_t tag, uint64_t now);
/* Completes every operation due by now (in completion order). */
void gpu_ce_advance(gpu_ce *ce, uint64_t now);
/* Cycle of the next completion; UINT64_MAX when idle. */
uint64_t gpu_ce_next_event(const gpu_ce *ce);
uint32_t gpu_ce_busy_engines(const gpu_ce *ce);
/* Cycles op takes on an engine (the timing formula above). */
uint64_t gpu_ce_op_cycles(const gpu_ce *ce, const gpu_copy_op *op);
gpu_ce_counters gpu_ce_get_counters(const gpu_ce *ce);
/* Counts into the sink from now on (ce.copies, ce.memsets, ce.bytes, ce.busy_cycles, ce.faults);
 * call once, before the first operation. */
void gpu_ce_register_stats(gpu_ce *ce, stats *st);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_GPU_CE_H */
