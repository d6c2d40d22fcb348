/* gpu_cp — the command processor: a microcontroller that runs the command-processor firmware
 * (firmware/cp) and implements its HAL (firmware/cp/cp_hal.h) over ports to the register block,
 * system memory (DMA), device memory, the copy engines and the CTA dispatcher.
 *
 * Events (host register writes the firmware watches, copy and kernel completions, the firmware's
 * timer) are queued with their cycle and handed to the firmware in order. Firmware time is
 * approximated: each handled event costs event_cycles plus dma_cycles per DMA access, the
 * controller is busy meanwhile, and what the firmware starts (a copy, a launch) starts at the
 * cycle the firmware reached when it called the HAL. */
#ifndef SIMTVP_GPU_CP_H
#define SIMTVP_GPU_CP_H

#include <stdbool.h>
#include <stdint.h>

#include "gpu_abi.h"
#include "gpu_hw.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_cp gpu_cp;

typedef struct gpu_cp_config {
  uint32_t event_cycles;    /* firmware cost of handling one event; 0 = 0 (instant) */
  uint32_t dma_cycles;      /* cost of one DMA access (ring fetch, parameters, semaphore) */
  uint32_t sem_poll_cycles; /* SEM_WAIT polling period; 0 = 1000 */
} gpu_cp_config;

typedef struct gpu_cp_ports {
  /* The register block, firmware view (gpu_regs_fw_read/write, gpu_regs_raise, gpu_regs_error). */
  struct {
    void *ctx;
    uint32_t (*read)(void *ctx, uint32_t offset);
    void (*write)(void *ctx, uint32_t offset, uint32_t value);
    void (*raise)(void *ctx, uint32_t intr_bits);
    void (*error)(void *ctx, gpu_err code, uint32_t channel, uint32_t opcode, uint64_t addr,
                  uint32_t info);
  } regs;
  gpu_mem_port sysmem;
  gpu_mem_port devmem;  /* physical device memory */
  gpu_vmem_port vmem;   /* translated device memory (optional; the program-image header read) */
  gpu_sysmap_port sysmap; /* MAP_SYSMEM (optional: map NULL refuses every mapping) */
  /* The engines (gpu_ce_submit, gpu_disp_launch): false when none is free. */
  struct {
    void *ctx;
    bool (*copy_start)(void *ctx, const gpu_copy_op *op, uint32_t tag, uint64_t now);
    bool (*launch_start)(void *ctx, const gpu_launch_desc *desc, uint32_t tag, uint64_t now);
  } engines;
} gpu_cp_ports;

typedef struct gpu_cp_counters {
  uint64_t events, dma_accesses, busy_cycles;
} gpu_cp_counters;

/* Boots the firmware (it reads the capability registers through the port). NULL on failure. */
gpu_cp *gpu_cp_create(const gpu_cp_config *config, gpu_cp_ports ports);
void gpu_cp_destroy(gpu_cp *cp);
void gpu_cp_reset(gpu_cp *cp); /* drops queued events and reboots the firmware */

/* Event inputs (queued; handled by gpu_cp_advance). A CH_CTRL write latches the channel's ring
 * registers (read through the regs port now), so the firmware enables the ring the host had
 * programmed at the write even when it handles the event after later host writes. */
void gpu_cp_reg_written(gpu_cp *cp, uint32_t offset, uint32_t value, uint64_t now);
void gpu_cp_copy_done(gpu_cp *cp, uint32_t tag, const gpu_copy_result *r, uint64_t now);
void gpu_cp_launch_done(gpu_cp *cp, uint32_t tag, const gpu_kernel_result *r, uint64_t now);

void gpu_cp_advance(gpu_cp *cp, uint64_t now);
uint64_t gpu_cp_next_event(const gpu_cp *cp); /* UINT64_MAX when idle */
/* No queued event and the firmware has nothing pending or in flight. */
bool gpu_cp_idle(const gpu_cp *cp);
gpu_cp_counters gpu_cp_get_counters(const gpu_cp *cp);
/* Counts into the sink from now on (cp.events, cp.dma_accesses, cp.busy_cycles); call once. */
void gpu_cp_register_stats(gpu_cp *cp, stats *st);

/* Timeline: every handled event (GPU_TRACE_CP_WORK) and every packet the firmware
 * decodes (GPU_TRACE_PACKET) go to port. Passive; off by default. */
void gpu_cp_set_trace(gpu_cp *cp, gpu_trace_port port);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_GPU_CP_H */
