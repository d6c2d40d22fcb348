/* gpu_hw — command formats inside the GPU's control side: what the command-processor firmware
 * hands to the copy engine and the CTA dispatcher, what they report back, the memory port both
 * use, and the per-SM resource rules (occupancy) shared by the dispatcher and the driver.
 *
 * These are internal hardware interfaces (firmware HAL ↔ engines), not part of the software ABI
 * (gpu_abi.h); they may change without an ABI version bump. */
#ifndef SIMTVP_GPU_HW_H
#define SIMTVP_GPU_HW_H

#include <stdbool.h>
#include <stdint.h>

#include "mmu.h"
#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A byte-addressed memory the GPU reaches: system memory through the DMA initiator, or the
 * device-memory store. false = the access failed (unmapped, out of range, bus error). */
typedef struct gpu_mem_port {
  void *ctx;
  bool (*read)(void *ctx, uint64_t addr, void *dst, uint64_t len);
  bool (*write)(void *ctx, uint64_t addr, const void *src, uint64_t len);
} gpu_mem_port;

/* Device memory as the GPU's address spaces see it: addresses are virtual, translated by the
 * GPU's MMU through `pdb` (mmu_pte.h; a PDB without VALID means physical addresses). false = the
 * access failed; *fault (may be NULL) gets the mmu_fault that stopped it, or MMU_FAULT_NONE when
 * the memory behind a translated address did not answer. */
typedef struct gpu_vmem_port {
  void *ctx;
  bool (*read)(void *ctx, uint64_t pdb, uint64_t va, void *dst, uint64_t len, uint32_t *fault);
  bool (*write)(void *ctx, uint64_t pdb, uint64_t va, const void *src, uint64_t len, uint32_t *fault);
} gpu_vmem_port;

/* A replayable fault as a SIMT core reports it to the MMU (gpu_abi.h gpu_fault_entry). */
typedef struct gpu_mmu_fault_info {
  uint64_t va;       /* faulting virtual address */
  uint32_t channel;  /* the kernel's channel */
  uint32_t grid_id;
  uint32_t sm;
  uint8_t access;    /* mmu_access */
  uint8_t kind;      /* mmu_fault (a replayable one) */
} gpu_mmu_fault_info;

/* The GPU's MMU as the SIMT sides use it (models/gpuctl gpu_mmu implements it): translations for
 * the functional engine, the memory behind them, and replayable faults. */
/* The system IOMMU's address translation services (ATS) for the GPU (gpu_mmu.h ports.ats). */
typedef struct gpu_ats_port {
  void *ctx;
  uint32_t (*translate)(void *ctx, uint64_t va, bool write, uint64_t *bus, bool *writable);
} gpu_ats_port;

typedef struct gpu_mmu_port {
  void *ctx;
  /* Walks va in address space pdb (not VALID: physical, identity); fills *t. */
  mmu_fault (*translate)(void *ctx, uint64_t pdb, uint64_t va, mmu_access access, mmu_translation *t);
  /* Host address of the physical page holding pa in `aperture` (the data store behind it), NULL
   * when nothing backs it there. */
  uint8_t *(*host_page)(void *ctx, uint32_t aperture, uint64_t pa);
  /* Changes whenever software invalidated translations (MMU_INVALIDATE): caches compare it. */
  const uint64_t *generation;
  /* Records a replayable fault at cycle now; true = the access waits for a replay (the entry was
   * written, the page was already pending, or the buffer overflowed), false = no fault buffer:
   * the fault is fatal. */
  bool (*fault)(void *ctx, uint64_t pdb, const gpu_mmu_fault_info *f, uint64_t now);
  /* (addition) Whether a replayable fault would wait (a fault buffer is set up) without recording
   * anything; reads registers only, so a core's tick on a worker thread may ask. May be NULL. */
  bool (*fault_buffer)(void *ctx);
  /* (addition) Told every successful translation of a kernel access (gpuctl_ports.host_page
   * .translated); may be NULL. */
  void (*translated)(void *ctx, uint64_t va, uint32_t aperture, uint64_t pa);
} gpu_mmu_port;

/* The GPU's map of system memory (MAP_SYSMEM packets): GPU addresses backed by system memory at a
 * bus address (zero-copy; docs/system-modes.md). map false = refused (overlap, or memory the GPU
 * cannot reach); unmap removes every mapping in the range. */
typedef struct gpu_sysmap_port {
  void *ctx;
  bool (*map)(void *ctx, uint64_t va, uint64_t bus, uint64_t bytes);
  void (*unmap)(void *ctx, uint64_t va, uint64_t bytes);
} gpu_sysmap_port;

/* The device-memory map behind the MEMMAP registers (gpu_abi.h MEMMAP_*): which blocks of device memory
 * are live. enable(true): from now on only declared blocks are accessible. map declares the block
 * [addr, addr+size) with the software's tag (internal: the driver's own); unmap ends the block
 * starting at addr. false = refused (nothing changed): outside device memory, overlapping a live
 * block, no block there. May be left unconnected (all NULL): every operation then succeeds and
 * all of device memory stays accessible. */
enum { GPU_MEMMAP_INTERNAL = 1u << 0, GPU_MEMMAP_CODE = 1u << 1 }; /* map flags (MEMMAP_OP fields) */
typedef struct gpu_memmap_port {
  void *ctx;
  void (*enable)(void *ctx, bool on);
  bool (*map)(void *ctx, uint64_t addr, uint64_t size, uint64_t tag, uint32_t flags);
  bool (*unmap)(void *ctx, uint64_t addr);
} gpu_memmap_port;

/* ---- copy engine ----------------------------------------------------------------------------- */

typedef enum gpu_aperture { GPU_APERTURE_DEVMEM = 0, GPU_APERTURE_SYSMEM = 1 } gpu_aperture;

typedef enum gpu_copy_kind { GPU_COPY_COPY = 0, GPU_COPY_MEMSET = 1 } gpu_copy_kind;

/* One copy-engine operation: `height` rows of `width` bytes. A linear copy has height 1. */
typedef struct gpu_copy_op {
  uint8_t kind;          /* gpu_copy_kind */
  uint8_t src_aperture;  /* gpu_aperture (COPY only) */
  uint8_t dst_aperture;
  uint8_t elem_bytes;    /* MEMSET: 1, 2 or 4 */
  uint32_t value;        /* MEMSET pattern (low elem_bytes bytes, little-endian) */
  uint64_t src, dst;     /* addresses of the first row */
  uint64_t src_pitch, dst_pitch; /* bytes between row starts (ignored when height is 1) */
  uint64_t width;        /* bytes per row (MEMSET: a multiple of elem_bytes) */
  uint64_t height;       /* rows, ≥ 1 */
  uint64_t pdb;          /* address space of DEVMEM sides (the channel's CH_PDB; not VALID: physical) */
  uint8_t src_phys, dst_phys; /* that side's DEVMEM address is physical (COPY *_PHYS flags) */
} gpu_copy_op;

typedef struct gpu_copy_result {
  bool ok;
  uint8_t fault_aperture; /* gpu_aperture of the failed access when !ok */
  uint64_t fault_addr;    /* first address of the failed access */
  uint32_t fault_kind;    /* mmu_fault when a DEVMEM address did not translate, else 0 */
} gpu_copy_result;

/* ---- kernels and CTAs ------------------------------------------------------------------------ */

/* A kernel as the firmware hands it to the CTA dispatcher (fields from the LAUNCH packet;
 * params points at the fetched parameter bytes, copied by the dispatcher). */
typedef struct gpu_launch_desc {
  uint64_t image_addr;   /* program image in device memory (gpu_abi.h "program image") */
  uint32_t entry;        /* function index of the .entry in the image */
  uint32_t grid[3], block[3];
  uint32_t smem_dynamic, smem_static; /* bytes per CTA */
  uint32_t regs_per_thread;
  uint32_t local_bytes;  /* per thread */
  uint32_t channel, stream_id, grid_id;
  const uint8_t *params;
  uint32_t param_bytes;
  uint64_t pdb;          /* the channel's address space (CH_PDB) when the launch started */
  /* (addition) thread block cluster: CTAs per cluster per dimension, each >= 1 (1,1,1: none);
   * the dispatcher makes a cluster's CTAs resident together */
  uint32_t cluster[3];
} gpu_launch_desc;

/* (addition) The most CTAs a thread block cluster may have (Hopper's non-portable limit). */
#define GPU_MAX_CLUSTER_CTAS 16

/* A kernel as the SIMT cores see it while it runs (owned by the dispatcher; valid from
 * kernel_begin to kernel_end). */
typedef struct gpu_kernel {
  uint32_t slot;         /* dispatcher slot, < max concurrent kernels; stable while it runs */
  uint64_t launch_uid;   /* increases by one per accepted launch, from 1 */
  uint64_t n_ctas;       /* grid[0] * grid[1] * grid[2] */
  uint32_t threads_per_cta;
  gpu_launch_desc desc;  /* desc.params points at the dispatcher's own copy */
} gpu_kernel;

/* How a CTA (or a kernel) ended. */
typedef struct gpu_cta_result {
  simtvp_status status;  /* SIMTVP_OK, SIMTVP_ERR_FAULT (bad access), SIMTVP_ERR_TRAP, … */
  uint64_t fault_addr;   /* FAULT: the address; TRAP: 0 */
  uint64_t pc;           /* instruction address or index where it happened */
} gpu_cta_result;

typedef gpu_cta_result gpu_kernel_result; /* the first non-OK CTA result, or OK */

/* ---- timeline --------------------------------------------------------------------------------- */

/* What the control side did, for traces and reports. A trace port is optional and passive: it is
 * told after the fact and changes nothing (statistics stay identical with and without it). Times
 * are control-clock cycles. */
typedef enum gpu_trace_kind {
  GPU_TRACE_COPY = 0, /* a copy-engine operation occupies an engine for [begin, end): op */
  GPU_TRACE_CP_WORK,  /* the command processor handled one event in [begin, end): what */
  GPU_TRACE_PACKET    /* the firmware decoded a packet at cycle begin: channel, opcode */
} gpu_trace_kind;

typedef enum gpu_trace_cp_what {
  GPU_TRACE_CP_REG_WRITE = 0, /* a host register write (doorbell, control) */
  GPU_TRACE_CP_COPY_DONE,     /* a copy-engine completion */
  GPU_TRACE_CP_LAUNCH_DONE,   /* a kernel completion */
  GPU_TRACE_CP_TIMER          /* the firmware's timer (semaphore polling) */
} gpu_trace_cp_what;

typedef struct gpu_trace_event {
  uint8_t kind;             /* gpu_trace_kind */
  uint8_t what;             /* CP_WORK: gpu_trace_cp_what */
  uint32_t channel, opcode; /* PACKET: ring channel and gpu_abi.h opcode; CP_WORK REG_WRITE: the
                               register offset in opcode */
  uint64_t begin, end;      /* end == begin for instants */
  const gpu_copy_op *op;    /* COPY: the operation (valid during the call) */
} gpu_trace_event;

typedef struct gpu_trace_port {
  void *ctx;
  void (*event)(void *ctx, const gpu_trace_event *e); /* NULL = off */
} gpu_trace_port;

/* ---- per-SM resources and occupancy ---------------------------------------------------------- */

typedef struct gpu_sm_limits {
  uint32_t warp_size;       /* threads per warp */
  uint32_t max_threads;     /* resident threads per SM */
  uint32_t max_warps;       /* resident warps per SM */
  uint32_t max_ctas;        /* CTA slots per SM */
  uint32_t regs;            /* 32-bit registers per SM */
  uint32_t reg_alloc_unit;  /* registers per warp are rounded up to a multiple of this */
  uint32_t smem_bytes;      /* shared memory per SM */
  uint32_t smem_alloc_unit; /* shared memory per CTA is rounded up to a multiple of this */
} gpu_sm_limits;

/* What one CTA occupies on an SM. */
typedef struct gpu_cta_usage {
  uint32_t threads;         /* rounded up to whole warps */
  uint32_t warps;
  uint32_t regs;            /* warps × round_up(regs_per_thread × warp_size, reg_alloc_unit) */
  uint32_t smem;            /* round_up(static + dynamic, smem_alloc_unit) */
} gpu_cta_usage;

typedef enum gpu_occ_limiter {
  GPU_OCC_NONE = 0, GPU_OCC_THREADS, GPU_OCC_WARPS, GPU_OCC_CTAS, GPU_OCC_REGS, GPU_OCC_SMEM
} gpu_occ_limiter;

static inline uint64_t gpu_round_up(uint64_t x, uint64_t unit) {
  return unit ? (x + unit - 1) / unit * unit : x;
}

static inline gpu_cta_usage gpu_cta_usage_of(const gpu_sm_limits *sm, uint32_t block_threads,
                                             uint32_t regs_per_thread, uint32_t smem_bytes) {
  gpu_cta_usage u;
  uint32_t ws = sm->warp_size ? sm->warp_size : 32;
  u.warps = (block_threads + ws - 1) / ws;
  u.threads = u.warps * ws;
  u.regs = u.warps * (uint32_t)gpu_round_up((uint64_t)regs_per_thread * ws, sm->reg_alloc_unit);
  u.smem = (uint32_t)gpu_round_up(smem_bytes, sm->smem_alloc_unit);
  return u;
}

/* CTAs of this shape that fit on one empty SM at once, and which resource limits it (the first
 * in the order threads, warps, CTA slots, registers, shared memory that reaches the minimum).
 * 0 when a single CTA does not fit. */
static inline uint32_t gpu_occupancy(const gpu_sm_limits *sm, const gpu_cta_usage *u,
                                     gpu_occ_limiter *limiter) {
  uint32_t by[5];
  gpu_occ_limiter names[5] = {GPU_OCC_THREADS, GPU_OCC_WARPS, GPU_OCC_CTAS, GPU_OCC_REGS, GPU_OCC_SMEM};
  uint32_t best = UINT32_MAX;
  gpu_occ_limiter why = GPU_OCC_NONE;
  by[0] = u->threads ? sm->max_threads / u->threads : UINT32_MAX;
  by[1] = u->warps ? sm->max_warps / u->warps : UINT32_MAX;
  by[2] = sm->max_ctas;
  by[3] = u->regs ? sm->regs / u->regs : UINT32_MAX;
  by[4] = u->smem ? sm->smem_bytes / u->smem : UINT32_MAX;
  for (int i = 0; i < 5; i++)
    if (by[i] < best) { best = by[i]; why = names[i]; }
  if (limiter) *limiter = why;
  return best;
}

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_GPU_HW_H */
