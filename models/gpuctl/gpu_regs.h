/* gpu_regs — the GPU's BAR0 register block: the registers of gpu_abi.h with their reset values
 * and host access rules (RO/RW/W1C/WO, reserved bits, 32-bit aligned accesses), the interrupt
 * line (INTR_STATUS & INTR_ENABLE) and the first-error capture (ERR_*).
 *
 * An illegal host access never crashes and never takes effect beyond what docs/gpu-abi.md says:
 * it is captured as an error (status, code, address, info) and raises the ERROR interrupt.
 * Firmware reaches every register through gpu_regs_fw_read/write without host rules.
 * No timing of its own: accesses take effect at once (the shell annotates bus latency). */
#ifndef SIMTVP_GPU_REGS_H
#define SIMTVP_GPU_REGS_H

#include <stdbool.h>
#include <stdint.h>

#include "gpu_abi.h"
#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_regs gpu_regs;

/* The configuration the capability registers report (the CFG reset values of gpu_abi.h). */
typedef struct gpu_caps {
  char name[33];
  uint32_t cc_major, cc_minor;
  uint32_t clusters, cores_per_cluster, warp_size;
  uint32_t max_threads_per_block, max_block_dim[3], max_grid_dim[3];
  uint32_t max_threads_per_sm, max_warps_per_sm, max_ctas_per_sm;
  uint32_t regs_per_sm, regs_per_block, reg_alloc_unit;
  uint32_t smem_per_sm, smem_per_block, smem_per_block_optin, smem_alloc_unit;
  uint32_t const_mem_bytes, l2_bytes, mem_bus_width_bits;
  uint32_t core_clock_khz, mem_clock_khz;
  uint64_t devmem_base, devmem_bytes;
  uint32_t n_channels, n_copy_engines, max_concurrent_kernels, max_param_bytes;
  uint64_t heap_base, heap_bytes; /* the device malloc heap (HEAP_BASE/HEAP_SIZE); 0 bytes: none */
  uint32_t system;  /* SYSTEM register: GPU_SYSTEM_* field bits */
  bool replayable;  /* MMU_CAPS.REPLAYABLE: the SIMT side lets warps wait on replayable faults */
} gpu_caps;

/* The defaults of gpu_abi.h's CFG column (30 SMs of compute capability 7.5, an RTX 2060-class
 * organisation); gpu_params_from_config replaces them with a configuration's. */
void gpu_caps_default(gpu_caps *caps);
/* Checks ranges (channels 1..64, non-zero warp size …); SIMTVP_ERR_CONFIG naming the field. */
simtvp_status gpu_caps_check(const gpu_caps *caps, simtvp_diag *diag);

typedef struct gpu_regs_ports {
  /* The interrupt line changed level. */
  struct { void *ctx; void (*set)(void *ctx, bool level); } irq;
  /* The host wrote a register the command processor or the MMU watches (CTRL, DOORBELL, CH_CTRL,
   * MMU_INVALIDATE, MMU_REPLAY); value is the register's new content (write-only registers: the
   * value written). */
  struct { void *ctx; void (*written)(void *ctx, uint32_t offset, uint32_t value); } notify;
  /* Global timer in nanoseconds (TIMER_LO/HI). */
  struct { void *ctx; uint64_t (*now_ns)(void *ctx); } timer;
} gpu_regs_ports;

gpu_regs *gpu_regs_create(const gpu_caps *caps, gpu_regs_ports ports);
void gpu_regs_destroy(gpu_regs *r);
/* Every register to its reset value; the interrupt line drops. */
void gpu_regs_reset(gpu_regs *r);

/* Host (BAR0) accesses: bytes is the access size. A read returns the value (0 when illegal). */
uint32_t gpu_regs_host_read(gpu_regs *r, uint32_t offset, uint32_t bytes);
void gpu_regs_host_write(gpu_regs *r, uint32_t offset, uint32_t bytes, uint32_t value);

/* Firmware accesses: any register, no rules, no notifications. Unmapped offsets read 0. */
uint32_t gpu_regs_fw_read(const gpu_regs *r, uint32_t offset);
void gpu_regs_fw_write(gpu_regs *r, uint32_t offset, uint32_t value);

/* Sets INTR_STATUS bits (hardware event). */
void gpu_regs_raise(gpu_regs *r, uint32_t intr_bits);
/* Records an error: sets its ERR_STATUS class bit, captures code/channel/opcode/address/info when
 * ERR_STATUS was clear, counts it, raises INTR_STATUS.ERROR. */
void gpu_regs_error(gpu_regs *r, gpu_err code, uint32_t channel, uint32_t opcode, uint64_t addr,
                    uint32_t info);

bool gpu_regs_irq_level(const gpu_regs *r);

/* Register metadata from the tables, for the doc generator and tests. */
typedef struct gpu_reg_info {
  const char *name;
  uint32_t offset;      /* BAR0 offset (channel registers: of channel 0) */
  gpu_access access;
  uint32_t reset;
  gpu_reset_source reset_source;
  uint32_t mask;        /* defined bits */
  const char *description;
  bool per_channel;
} gpu_reg_info;
/* The register at offset (channel registers of any existing channel); NULL when unmapped. */
const gpu_reg_info *gpu_regs_lookup(const gpu_regs *r, uint32_t offset);
/* All rows of the tables (global registers, then channel registers). */
const gpu_reg_info *gpu_reg_table(uint32_t *count);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_GPU_REGS_H */
