/* simt_ldst — the load/store unit of one cycle-accurate SIMT core: the memory pipeline of the
 * GPGPU-Sim 3.x manual §2.2 ("Memory pipeline (LDST unit)") with the 4.x sector additions.
 *
 * The core's operand collector dispatches a memory instruction here after the functional engine
 * has executed it (DESIGN.md §3: values never depend on timing); the unit only decides *when*
 * it completes, from the per-lane addresses in the func_step:
 *   - shared memory: bank conflicts (banks of `smem_bank_bytes`, broadcast of equal words,
 *     optional limited broadcast and warp parts), then a fixed latency;
 *   - constant space: one L1C access per distinct address (divergent addresses serialise);
 *   - texture (tex/tld4/suld): through the L1T (GPGPU-Sim's prefetching texture cache);
 *   - global and local: coalesced into line/sector requests (the compute-capability 1.3 rule for
 *     -gpgpu_coalesce_arch 13, the sector rule otherwise) and sent through the L1D (or around it,
 *     -gpgpu_gmem_skip_L1D / "none"), one access per cycle per bank; local addresses are mapped to
 *     a per-core region of device memory, interleaved per thread so that a warp's accesses to the
 *     same local word coalesce (GPGPU-Sim's -gpgpu_local_mem_map);
 *   - global atomics and reductions: sent to the L2 (MEM_ACC_ATOMIC), which replies.
 * Misses, write-throughs and atomics leave through ports.send (the cluster's injection port) as
 * mem_req records with kind, sector and byte masks, sm/cluster/warp ids and the unit's bookkeeping
 * in owner_tag/owner_ctx; replies come back through simt_ldst_reply.
 *
 * Time is integer cycles of the core clock. Statistics go to the sink under GPGPU-Sim's names
 * (gpgpu_n_shmem_bkconflict, gpgpu_n_cache_bkconflict, gpgpu_n_mem_read_global, …, L1D/L1C/L1T
 * cache statistics, gpgpu_n_stall_shd_mem and the memory-stage stall breakdown). No allocation per
 * instruction: slots and queues are sized at create time. */
#ifndef SIMTVP_SIMT_LDST_H
#define SIMTVP_SIMT_LDST_H

#include <stdbool.h>
#include <stdint.h>

#include "func.h"
#include "mem_req.h"
#include "simtvp_diag.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SIMT_LDST_NEVER UINT64_MAX

typedef struct simt_ldst simt_ldst;

typedef struct simt_ldst_config {
  uint32_t sm;                 /* global core index (mem_req.sm, statistics instance names) */
  uint32_t cluster;            /* cluster index (mem_req.cluster) */
  uint32_t warp_size;          /* threads per warp (32) */
  uint32_t max_warps;          /* warp slots of the core (per-warp pending-store counts) */
  uint32_t max_threads;        /* thread slots of the core (local-memory interleaving) */
  /* shared memory */
  uint32_t smem_banks;         /* -gpgpu_shmem_num_banks */
  uint32_t smem_bank_bytes;    /* bytes per bank per cycle (4 on every NVIDIA part since Fermi) */
  uint32_t smem_latency;       /* -gpgpu_smem_latency, core cycles */
  bool smem_limited_broadcast; /* -gpgpu_shmem_limited_broadcast */
  int32_t smem_warp_parts;     /* -gpgpu_shmem_warp_parts */
  /* coalescing */
  int32_t coalesce_arch;       /* -gpgpu_coalesce_arch: 13 = GT200 rule, otherwise sector rule */
  /* caches: GPGPU-Sim configuration strings ("none" = no such cache) */
  const char *l1d;             /* -gpgpu_cache:dl1 */
  const char *l1c;             /* -gpgpu_const_cache:l1 */
  const char *l1t;             /* -gpgpu_tex_cache:l1 */
  uint32_t l1d_latency;        /* -gpgpu_l1_latency, core cycles */
  uint32_t l1d_banks;          /* -gpgpu_l1_banks */
  uint32_t l1d_bank_interleave; /* -gpgpu_l1_banks_byte_interleaving, bytes */
  uint32_t l1d_bank_hash;      /* -gpgpu_l1_banks_hashing_function */
  bool gmem_skip_l1d;          /* -gpgpu_gmem_skip_L1D: global accesses bypass the L1D */
  uint32_t response_buffer;    /* -gpgpu_n_ldst_response_buffer_size: replies held, packets */
  int32_t mem_unit_ports;      /* -gpgpu_mem_unit_ports: instructions accepted per cycle */
  uint64_t local_base;         /* device address of this core's local-memory region */
  stats *stats;                /* may be NULL */
  mem_req_pool *pool;          /* requests the unit creates; NULL = the unit owns a pool */
  uint32_t l1c_latency;        /* L1C hit latency, core cycles (0: in the cycle of the access) */
  uint32_t l1t_latency;        /* L1T hit latency, core cycles (0: in the cycle of the access) */
} simt_ldst_config;

typedef struct simt_ldst_ports {
  void *ctx;
  /* A request for the memory system (the cluster's injection port). false = refused this cycle:
   * the unit keeps it and offers it again at a later advance (simt_ldst_next_event says when). */
  bool (*send)(void *ctx, mem_req *req, uint64_t now);
  /* Memory instruction `tag` of warp `warp` is complete in the unit: a load's or atomic's data
   * has arrived for every lane (the core may now write its destination registers back and
   * release them in the scoreboard); a store has left the unit (its acknowledgements are counted
   * by simt_ldst_pending_stores). Called exactly once per simt_ldst_issue. */
  void (*complete)(void *ctx, uint32_t warp, uint64_t tag, uint64_t now);
} simt_ldst_ports;

/* SIMTVP_ERR_CONFIG (naming the option) for a malformed cache string or inconsistent values. */
simt_ldst *simt_ldst_create(const simt_ldst_config *config, simt_ldst_ports ports,
                            simtvp_diag *diag);
void simt_ldst_destroy(simt_ldst *u);

/* Can the unit accept an instruction at cycle now (its dispatch stage is free)? */
bool simt_ldst_can_issue(const simt_ldst *u, uint64_t now);
/* A memory instruction (step->kind == FUNC_STEP_MEM, as executed by func_warp_step) of warp slot
 * `warp` whose first thread is core thread slot `warp * warp_size`. The unit copies what it needs
 * from step. `tag` is the core's identifier of the instruction, returned by ports.complete. */
void simt_ldst_issue(simt_ldst *u, uint32_t warp, const func_step *step, uint64_t tag,
                     uint64_t now);
/* A reply from the memory system addressed to this unit (its own request with is_reply set).
 * false = the response buffer is full this cycle: the caller keeps it and retries. */
bool simt_ldst_reply(simt_ldst *u, mem_req *reply, uint64_t now);

/* Per core cycle `now`: simt_ldst_advance(now) first (replies in, requests out, completions),
 * then simt_ldst_can_issue / simt_ldst_issue. Work issued or replied at cycle t is handled from
 * cycle t + 1, so the order of calls inside one cycle does not change the timing. ports.complete
 * is called from inside simt_ldst_advance only. */
void simt_ldst_advance(simt_ldst *u, uint64_t now);
/* Next cycle at which the unit has something to do; SIMT_LDST_NEVER when it is idle or only
 * waiting for replies. */
uint64_t simt_ldst_next_event(const simt_ldst *u);

/* Stores of warp `warp` sent but not yet acknowledged (a warp is finished only at zero). */
uint32_t simt_ldst_pending_stores(const simt_ldst *u, uint32_t warp);
/* Nothing held, nothing in flight. */
bool simt_ldst_idle(const simt_ldst *u);
/* At a kernel boundary: flush (write back dirty lines) and/or invalidate the L1D
 * (-gpgpu_flush_l1_cache); returns the write-backs queued. */
uint32_t simt_ldst_flush_l1(simt_ldst *u, uint64_t now);
void simt_ldst_invalidate_l1(simt_ldst *u);

/* ---- additions (additive to the contract above) ------------------------------------------- */

/* Device address at which warp slot `warp`'s kernel parameter buffer is cached: param-space
 * offsets are read through the constant cache at base + offset (GPGPU-Sim keeps kernel
 * parameters in constant memory). Set it when a CTA is placed; default FUNC_WINDOW_PARAM. */
void simt_ldst_set_param_base(simt_ldst *u, uint32_t warp, uint64_t base);

/* SIMTVP_OK, or the first bad input the unit met (an issue that was not a memory instruction,
 * a warp slot out of range, an unsupported space or width, an issue while simt_ldst_can_issue
 * was false, a reply not addressed to this unit); diag (may be NULL) gets the message naming
 * warp, PC and PTX line. A bad issue is completed without memory traffic so the core never
 * hangs; an issue into a full stage is dropped (no completion). */
simtvp_status simt_ldst_status(const simt_ldst *u, simtvp_diag *diag);

/* Why the memory stage could not accept or progress, for the core's stall counters and deadlock
 * dumps: one line per held instruction and queued request. */
void simt_ldst_dump(const simt_ldst *u, void (*line)(void *ctx, const char *text), void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_SIMT_LDST_H */
