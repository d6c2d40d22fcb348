/* cp_fw — command-processor firmware: fetches packets from the channels' rings in system memory,
 * validates them, runs copies and memsets on the copy engines, hands launches to the CTA
 * dispatcher, releases and acquires semaphores (fences) and raises interrupts.
 *
 * Follows docs/gpu-abi.md (generated from models/gpuctl/gpu_abi.h). Each channel runs its packets
 * in order, one at a time; channels proceed independently (round robin). A malformed packet is
 * reported through the HAL's error capture (ERR_* registers + ERROR interrupt) and skipped; the
 * firmware never stops on bad input.
 *
 * Entry points are event handlers (see cp_hal.h); each runs to completion. */
#ifndef SIMTVP_CP_FW_H
#define SIMTVP_CP_FW_H

#include <stdbool.h>
#include <stdint.h>

#include "cp_hal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cpfw cpfw;

typedef struct cpfw_config {
  uint32_t sem_poll_cycles; /* SEM_WAIT re-reads its semaphore this often; 0 = 1000 */
} cpfw_config;

/* Creates the firmware and boots it (cpfw_reset). The HAL is copied. NULL on allocation failure. */
cpfw *cpfw_create(const cp_hal *hal, const cpfw_config *config);
void cpfw_destroy(cpfw *fw);

/* Boot: reads N_CHANNELS and the limits from the capability registers, disables every channel,
 * forgets work in flight. */
void cpfw_reset(cpfw *fw);

/* The host wrote a register the firmware watches (CTRL, DOORBELL, CH_CTRL); value is the
 * register's new content. Other offsets are ignored. A CH_CTRL write reads the channel's ring
 * registers now (cpfw_on_channel_ctrl with what they hold when the firmware runs). */
void cpfw_on_reg_write(cpfw *fw, uint32_t offset, uint32_t value);

/* A channel's ring registers as the host had programmed them (CH_BASE_LO/HI, CH_SIZE, CH_PUT). */
typedef struct cpfw_ring {
  uint64_t base;
  uint32_t size, put;
} cpfw_ring;

/* The host wrote CH_CTRL of `channel` (value: the register's new content) while the ring
 * registers held *ring. A host interface that latches them at the write calls this instead of
 * cpfw_on_reg_write: the firmware may run long after the write (a host that writes with zero
 * delay enables a channel, advances PUT and rings the doorbell before the firmware has handled
 * the enable), and ENABLE 0->1 must start the ring at the PUT of the enable (GET = PUT), not at
 * the PUT the host wrote since. */
void cpfw_on_channel_ctrl(cpfw *fw, uint32_t channel, uint32_t value, const cpfw_ring *ring);
/* A copy engine finished the operation started with `tag`. */
void cpfw_on_copy_done(cpfw *fw, uint32_t tag, const gpu_copy_result *result);
/* The CTA dispatcher finished the kernel started with `tag`. */
void cpfw_on_launch_done(cpfw *fw, uint32_t tag, const gpu_kernel_result *result);
/* The wake_after timer expired. */
void cpfw_on_timer(cpfw *fw);

/* No packet pending or in flight on any channel. */
bool cpfw_idle(const cpfw *fw);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_CP_FW_H */
