/* cp_hal — the hardware abstraction the command-processor firmware runs on.
 *
 * The firmware (cp_fw.c) touches the GPU only through these functions, so the same C code runs in
 * the model (models/gpuctl/gpu_cp.c implements the HAL over the register block, the DMA port,
 * the copy engine and the CTA dispatcher) and could run on a microcontroller whose HAL programs
 * real engines. Register offsets and packet formats are gpu_abi.h; engine commands gpu_hw.h.
 *
 * The firmware is event driven (run to completion): a real microcontroller sleeps in a
 * wait-for-event loop and calls the cpfw_on_* handler of each event; the model calls the same
 * handlers when the event happens. Nothing in the HAL blocks. */
#ifndef SIMTVP_CP_HAL_H
#define SIMTVP_CP_HAL_H

#include <stdbool.h>
#include <stdint.h>

#include "gpu_abi.h"
#include "gpu_hw.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cp_hal {
  void *ctx;
  /* Registers, firmware view: every register is readable and writable (no host access rules);
   * writes do not notify the firmware back. */
  uint32_t (*reg_read)(void *ctx, uint32_t offset);
  void (*reg_write)(void *ctx, uint32_t offset, uint32_t value);
  /* DMA to system memory (ring fetch, parameters, semaphores); false = the access failed. */
  bool (*sysmem_read)(void *ctx, uint64_t addr, void *dst, uint32_t len);
  bool (*sysmem_write)(void *ctx, uint64_t addr, const void *src, uint32_t len);
  /* Device memory read (program-image header checks) at a virtual address of address space pdb
   * (a channel's CH_PDB; not VALID: physical); false = the access failed, *fault = the MMU's
   * fault kind (0 when the memory itself failed). */
  bool (*devmem_read)(void *ctx, uint64_t pdb, uint64_t addr, void *dst, uint32_t len, uint32_t *fault);
  /* Starts an operation on a free copy engine; false when every engine is busy (the firmware
   * retries after the next cpfw_on_copy_done). Completion: cpfw_on_copy_done(tag). */
  bool (*copy_start)(void *ctx, const gpu_copy_op *op, uint32_t tag);
  /* Hands a kernel to the CTA dispatcher (which copies desc and its params); false when it runs
   * its maximum of concurrent kernels (retry after the next cpfw_on_launch_done). Completion:
   * cpfw_on_launch_done(tag). */
  bool (*launch_start)(void *ctx, const gpu_launch_desc *desc, uint32_t tag);
  /* Sets INTR_STATUS bits (GPU_FIELD_MASK(GPU_INTR_STATUS_*)). */
  void (*raise_intr)(void *ctx, uint32_t status_bits);
  /* Records an error in the error-capture registers (ERR_STATUS, first-error code/address/info)
   * and raises the ERROR interrupt. channel 0xFF = none, opcode 0 when not a packet error. */
  void (*report_error)(void *ctx, gpu_err code, uint32_t channel, uint32_t opcode, uint64_t addr,
                       uint32_t info);
  /* Calls cpfw_on_timer once, `cycles` cycles of the command processor's clock from now (semaphore
   * polling). A later request replaces an earlier one. */
  void (*wake_after)(void *ctx, uint32_t cycles);
  /* (optional: NULL = the GPU cannot map system memory; MAP_SYSMEM is then reported as
   * SYSMEM_MAP) Maps [va, va + bytes) of the GPU's address space onto system memory at bus
   * address `bus`, or with unmap removes the mappings in [va, va + bytes). false = refused (an
   * overlap, or memory the GPU cannot reach there); nothing changed. */
  bool (*map_sysmem)(void *ctx, uint64_t va, uint64_t bus, uint64_t bytes, bool unmap);
  /* (optional: NULL = none) The firmware decoded a well-formed packet of `opcode` on
   * `channel` and starts executing it — for timelines and traces; changes nothing. */
  void (*packet)(void *ctx, uint32_t channel, uint32_t opcode);
} cp_hal;

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_CP_HAL_H */
