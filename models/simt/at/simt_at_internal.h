/* simt_at_internal — state of the approximately-timed SIMT core (private to models/simt/at).
 *
 * The AT core (docs/simt-at.md) advances warps by intervals: a warp issues instruction after
 * instruction — each at the first cycle its registers are ready, its scheduler has an issue slot
 * and its unit takes it — until it runs past a window of cycles ahead of the core's time, waits
 * for a result not timed yet, or reaches a barrier, fence or exit; then the next warp does the
 * same. Resources keep the cycles they are booked for (models/common/simtvp_cal.h), so warps handled later fill
 * the cycles earlier ones left free. An issued instruction's completion is computed at once — an
 * ALU result from the latency tables, a memory access from the shared-memory banks, the L1 caches
 * (models/cache in timed use) and, through timed transport, the memory system behind the core.
 * Nothing is stepped cycle by cycle and no instruction is a separate event. */
#ifndef SIMTVP_SIMT_AT_INTERNAL_H
#define SIMTVP_SIMT_AT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "ldst_coalesce.h"
#include "simtvp_cal.h"
#include "simt_core_base.h"

#define AT_NONE SIMT_NONE
#define AT_NEVER SIMT_NEVER
#define AT_NO_UNIT 0xffu
#define AT_UNIT_UNKNOWN 0xfeu
#define AT_MAX_ITEMS 8u        /* units of one kind a sub-core uses (more change nothing here) */
#define AT_SMEM_MAX_WORDS 256u /* bank words one shared-memory phase may touch */
/* Cycles from issue to the execution unit: operand collector, register read, OC_EX (the CA
 * core's stages, docs/simt.md §3), so a dependent chain costs latency + 4 per instruction. */
#define AT_ISSUE_TO_UNIT 4u
/* How far (cycles) a warp may run ahead of the time the core is advanced to. */
#define AT_WINDOW 64u

/* What the core knows of an instruction (per pc, learnt the first time a warp reaches it). */
enum {
  AT_PLAIN = 1u,   /* register-only work: executed without a step record */
  AT_KNOWN = 2u,   /* the entry is filled */
};

typedef struct at_pc {
  uint8_t unit;      /* pipeline (SIMT_UNIT_MEM for memory, AT_NO_UNIT for barriers/fences) */
  uint8_t flags;     /* AT_PLAIN, AT_KNOWN */
  uint8_t bank_extra;/* cycles its own register reads lose to bank conflicts */
  uint8_t to_unit;   /* issue to unit: AT_ISSUE_TO_UNIT, one less without register reads */
  uint8_t n_deps;    /* registers it reads and writes (RAW and WAW) */
  uint8_t n_dst;     /* registers it writes (the last n_dst of the n_deps) */
  uint8_t fetch_n;   /* instructions a fetch at this pc brings (2; 1 at a line's or function's
                      * end); 0: not known yet (filled by the first fetch, apart from AT_KNOWN) */
  uint8_t fence;     /* simt_insn_info.fence: the scope of a fence or wait */
  uint32_t ii;       /* initiation interval on its unit */
  uint32_t lat;      /* unit to writeback */
  uint32_t ready;    /* unit to the cycle a dependent may use the result (lat less forwarding) */
  const uint32_t *regs; /* its registers (simt_program.regs): n_deps − n_dst sources, then n_dst */
  uint64_t l1i_line; /* the L1I line its fetch reads, + 1 (with fetch_n) */
} at_pc;

typedef struct at_warp {
  bool live;          /* holds a warp of a resident CTA until it is finished */
  bool exited;        /* issues nothing more */
  uint8_t wait;       /* simt_wait: barrier, fence or replayable fault */
  uint64_t fault_since; /* SIMT_WAIT_FAULT: the cycle its replayable fault was found */
  bool blocked;       /* its next instruction needs a result whose time is not known yet */
  bool fetching;      /* its next instruction waits for an L1I fill not timed yet */
  uint8_t why;        /* simt_reason that decided `next` (statistics of the cycles it waits) */
  uint32_t pc;        /* next instruction */
  uint32_t cta, index, sched, part;
  uint32_t bar_id, bar_pc;
  uint32_t heap_pos;  /* in its scheduler's heap, AT_NONE when not */
  uint8_t ib_n;       /* instructions left in its I-buffer (a fetch brings two) */
  uint32_t deferred;  /* memory instructions whose completion is not known yet */
  uint64_t next;      /* earliest cycle its next instruction may issue (I-buffer, barrier…) */
  uint64_t last_done; /* latest known completion of its instructions (fences, exit) */
  uint64_t fence_hold;  /* the first cycle it may issue after its last fence (-gpgpu_fence_latency) */
  uint64_t line;      /* L1I line of its last fetch that looked up the cache, + 1 (0: none) */
  uint64_t age;       /* launch order: the oldest ready warp issues first */
  uint64_t *rr;       /* per register id: cycle its value is ready (AT_NEVER: not known yet) */
  const simt_program *prog;
  at_pc *pcs;         /* its CTA slot's per-pc facts */
  func_warp *fw;
} at_warp;

/* A CTA slot's per-pc facts, learnt by its CTA's warps; a new CTA clears only the entries the
 * previous one filled (`touched`), so a CTA launch costs what its warps ran, not the module's size. */
typedef struct at_cta_units {
  at_pc *pcs;
  uint32_t *touched;  /* pcs whose entry is filled */
  uint32_t n_touched, cap;
} at_cta_units;

typedef struct at_sched {
  uint32_t *heap;     /* warp slots, earliest `next` first (then oldest) */
  uint32_t n;
  uint32_t n_live;    /* live warps of the scheduler */
  simtvp_cal issue;       /* its issue slots: one instruction per cycle */
  uint64_t from;      /* first cycle of the resident period whose stalls are not counted yet */
  uint64_t issued;    /* instructions issued since `from` */
  uint64_t gap[SIMT_R_N]; /* cycles its warps waited since `from`, by reason (scaled when counted) */
} at_sched;

/* Sampled timing (-at_sample DETAIL,PERIOD; docs/simt-at.md §6a). Cycle t belongs to period
 * t / PERIOD; its first DETAIL cycles are timed in detail, the rest fast-forward. In a fast-forward
 * phase the core still issues by §2's rules (issue slots, units, registers, the fetch port), but
 * without L1I lookups, and a memory instruction does not go to the memory stage: it holds a
 * dispatch slot for the mean occupancy, and its data is there after the mean latency, that the
 * core measured for its kind in the detail phases — the latency a loaded memory system gave, so
 * the warps in flight keep the throughput it had (Little's law). Nothing reaches the memory
 * system. Each detail phase measures over its window
 * [DETAIL/2, DETAIL − 2·AT_WINDOW) (the memory system refilled after the fast-forward; the
 * run-ahead's stragglers left out); the means are over the valid windows since the kernel arrived.
 * A fast-forward phase is taken only when the core measured AT_SAMPLE_MIN_INSNS instructions in its
 * period's window with the same kernel resident all along; a memory instruction of a kind without
 * a measured latency is timed in detail. */
#define AT_SAMPLE_MIN_INSNS 32u
/* Kinds of memory instruction whose latencies are measured apart: shared memory; constant,
 * parameter and texture (their own caches); global, local and generic. */
enum { AT_SK_SHARED = 0, AT_SK_CONST, AT_SK_GLOBAL, AT_SAMPLE_KINDS };

typedef struct at_sample {
  uint32_t detail, period;  /* core cycles; period 0: off */
  uint32_t win_from, win_to; /* the measured window, offsets in the period */
  uint64_t cached_start;    /* first cycle of the period last looked up (phase_of) */
  uint64_t cached_k;        /* its index */
  uint64_t resident_since;  /* the CTAs resident now (same kernel) have been since this cycle */
  uint64_t kernel_uid;      /* launch_uid of the kernel of the last CTA launched */
  uint64_t meas_k;          /* period whose window meas_insns counts */
  uint64_t meas_insns;      /* warp instructions issued in that window */
  /* memory instructions with results (loads, atomics) by kind (at_sample_kind): Σ cycles from
   * the memory stage to the data and count, over the windows since the kernel arrived; those
   * still waiting for the memory system count as far as they got (so that long latencies are
   * not left out of a phase's mean): their number and Σ stage cycles */
  uint64_t lat_sum[AT_SAMPLE_KINDS], lat_n[AT_SAMPLE_KINDS];
  uint64_t out_n, out_from_sum; /* (global kind only: the others are never deferred) */
  uint64_t lat[AT_SAMPLE_KINDS]; /* the means, fixed when a fast-forward phase starts (0: none) */
  /* every memory instruction by kind: Σ cycles it held its memory-stage slot (its accesses through
   * the L1 port), count; the mean fixed with lat */
  uint64_t hold_sum[AT_SAMPLE_KINDS], hold_n[AT_SAMPLE_KINDS];
  uint32_t hold[AT_SAMPLE_KINDS];
  uint64_t ff_k;            /* period whose fast-forward is decided (AT_NEVER: none yet) */
  bool ff_valid;            /* that period fast-forwards */
  uint64_t stage_from;      /* the memory instruction at_mem_issue handles now entered the stage
                             * then and its latency is measured (AT_NEVER: not measured) */
  uint64_t *ff_insn;        /* at_sample_ff_warp_insn */
  uint64_t *ff_phases;      /* at_sample_ff_phases: fast-forward phases the core took */
} at_sample;

/* A memory instruction whose completion waits for the memory system (deferred pieces). */
typedef struct at_mop {
  uint32_t warp;
  uint32_t pieces;    /* requests still to come back */
  uint64_t done;      /* latest completion known so far */
  const uint32_t *dst; /* its destination registers (simt_program.regs) */
  uint8_t n_dst;
  uint32_t next;      /* free list */
  uint64_t measure_from; /* -at_sample: the cycle it entered the memory stage when its latency is
                          * measured (at_sample.stage_from then), AT_NEVER when not */
} at_mop;

/* A memory instruction waiting for one fetch (several fetches may each have one for it). */
typedef struct at_waiter {
  uint32_t mop;
  uint32_t next;
} at_waiter;

/* An L1 fetch (or a request around the L1) on its way through an event-driven memory system. */
typedef struct at_fetch {
  bool live;
  uint8_t cache;      /* AT_L1D / AT_L1C / AT_L1T / AT_L1I / AT_BYPASS */
  uint8_t chunks;     /* sectors fetched (cache fetches) */
  uint64_t line;
  uint32_t waiters;   /* memory instructions waiting (chain of at_waiter), AT_NONE */
  uint32_t warps;     /* L1I: warps waiting (chain through at_core.fetch_wait), AT_NONE */
  uint32_t next_free;
} at_fetch;

enum { AT_L1D = 0, AT_L1C, AT_L1T, AT_L1I, AT_BYPASS, AT_N_PATHS };

/* A request for an event-driven memory system, waiting for its cycle at the port. */
typedef struct at_out {
  uint64_t at;
  mem_req *req;
} at_out;

typedef struct at_core {
  simt_core_base base; /* configuration, ports, L1I, CTAs, shared statistics */

  uint64_t next;       /* cached next_event */
  uint64_t *fault_stall; /* um.fault_stall_cycles (registered at the first replayable fault) */
  uint64_t fault_stall_scratch;
  uint64_t busy_from;  /* first cycle of the current resident period not yet counted */
  at_sample sample;    /* -at_sample */

  /* warps and schedulers */
  at_warp *warps;
  uint32_t n_live_warps;
  at_cta_units *cta_units;
  at_sched sched[SIMT_MAX_SCHEDULERS];
  uint64_t next_age;
  uint64_t *rr;
  uint32_t rr_stride;
  /* the fetch port: -gpgpu_inst_fetch_throughput fetches per cycle (a calendar per fetch) */
  simtvp_cal fetch_cal[AT_MAX_ITEMS];
  uint32_t n_fetch;
  simt_heap finish;    /* (cycle, warp slot): exited warps whose last result lands then */
  simt_heap wake;      /* (cycle, warp slot): warps released from a barrier or fence at that cycle */
  uint32_t *fetch_wait; /* per warp slot: next warp waiting for the same L1I fetch */

  /* register file: an instruction's reads lose a cycle per read beyond a bank's ports
   * (-gpgpu_reg_file_port_throughput); reads of different instructions are not arbitrated */
  uint32_t banks_per_part;
  uint64_t *reg_bank_stalls; /* gpu_reg_bank_conflict_stalls (an estimate) */
  /* execution units: per sub-core, pipeline and unit, the cycles its input is busy */
  simtvp_cal *unit_cal[SIMT_MAX_SCHEDULERS][SIMT_UNIT_N];
  uint32_t n_unit[SIMT_UNIT_N]; /* units per sub-core (≥ 1) */

  /* the memory stage: -gpgpu_mem_unit_ports dispatch slots, each holding an instruction until its
   * shared phases are through and its accesses accepted: one per L1D bank, one by the L1C, one by
   * the L1T and one around the L1D per cycle (the CA LDST unit's rule, docs/simt-ldst.md) */
  simtvp_cal slot_cal[AT_MAX_ITEMS];
  uint32_t n_slots;
  simtvp_cal *bank_cal;    /* per L1D bank */
  uint32_t n_banks, bank_bits, bank_interleave, bank_hash;
  simtvp_cal port_cal[AT_N_PATHS]; /* L1C, L1T and around the L1D (AT_L1D: unused) */
  /* each L1's data port (hits, written data) and fill port: bytes per cycle, busy cycles */
  uint32_t port_bytes[AT_N_PATHS];
  simtvp_cal data_cal[AT_N_PATHS], fill_cal[AT_N_PATHS];
  simtvp_cal resp_cal;     /* the response buffer hands the unit one reply per cycle */
  simtvp_cal miss_cal[AT_N_PATHS]; /* each L1's miss queue sends one request per cycle */
  simtvp_cal smem_cal;     /* the shared-memory pipeline */
  cache *l1d, *l1c, *l1t;
  uint32_t l1d_latency, l1c_latency, l1t_latency;
  uint32_t l1d_block, l1c_block, l1t_block; /* coalescing block: the line, at most 128 bytes */
  simt_mem_counters *acc_stats; /* the request counters (simt_at_mem.c) */
  uint64_t *param_of;  /* per warp slot: where its kernel parameters are cached (L1C) */
  ldst_range *ranges;  /* scratch: LDST_MAX_RANGES */
  ldst_access *acc;    /* scratch: LDST_MAX_ACCESSES */
  uint32_t stage_held; /* cycles the last at_mem_issue held its memory-stage slot (-at_sample) */
  uint64_t stage_at;   /* and the cycle it got the slot */
  bool timed_memory;   /* the port times requests (known after the first send) */
  bool timed_known;

  /* memory instructions and fetches waiting for an event-driven memory system */
  at_mop *mops;
  uint32_t n_mops, mop_free;
  at_waiter *waiters;
  uint32_t n_waiters, waiter_free;
  at_fetch *fetches;
  uint32_t n_fetches, fetch_free, live_fetches;
  at_out *out;         /* requests waiting for their cycle at the port (min-heap on at) */
  uint32_t n_out, out_cap;
  uint64_t out_retry;  /* the port refused: next try */

  /* shared-memory geometry (simt_at_smem.c) */
  uint32_t smem_banks, smem_bank_bytes, smem_parts, smem_shift, smem_bank_mask;
  uint32_t smem_epoch;
  uint32_t *smem_epoch_of;
  uint16_t *smem_head, *smem_count;
  uint64_t *smem_conflicts; /* gpgpu_n_shmem_bkconflict */
} at_core;

static inline uint64_t at_max(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t at_min(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* simt_at_smem.c */
simtvp_status at_smem_init(at_core *c, simtvp_diag *diag);
void at_smem_free(at_core *c);
bool at_smem_only(const func_step *st);
uint32_t at_smem_cycles(at_core *c, const func_step *st, uint32_t *conflicts);

/* simt_at_mem.c: the memory stage */
simtvp_status at_mem_init(at_core *c, simtvp_diag *diag);
void at_mem_free(at_core *c);
/* The memory instruction `st` of warp slot `slot`, ready for the stage at t: its completion cycle (the ready
 * time of its destinations; AT_NEVER when a piece waits for an event-driven memory system — the
 * warp's registers are released by at_mem_reply then). */
uint64_t at_mem_issue(at_core *c, uint32_t slot, const func_step *st, uint64_t t);
/* -at_sample's fast-forward: a memory instruction ready for the stage at t holds the first free
 * dispatch slot for `cycles`; the cycle it gets it. */
uint64_t at_mem_hold(at_core *c, uint64_t t, uint32_t cycles);
/* A reply from an event-driven memory system (or a timed reply now due). */
void at_mem_reply(at_core *c, mem_req *r, uint64_t now);
/* Requests waiting for their cycle go out (event-driven memory system). */
void at_mem_send_due(at_core *c, uint64_t now);
uint64_t at_mem_next(const at_core *c);
bool at_mem_idle(const at_core *c);
/* Memory instructions waiting for the memory system (dumps). */
uint32_t at_mem_waiting(const at_core *c);
/* The L1I for the warp's fetch at pc from cycle t: the cycle its instruction is decoded, or
 * AT_NEVER when the fetch waits for an event-driven memory system (the warp is then woken). */
uint64_t at_mem_fetch(at_core *c, uint32_t slot, uint64_t t);
uint32_t at_mem_flush(at_core *c, uint64_t now);

/* simt_at.c: what the memory stage calls back */
/* Memory instruction m (of warp m->warp), whose completion was not known, completes at `at`. */
void at_result_known(at_core *c, const at_mop *m, uint64_t at);
/* The warp's L1I fetch came back at `at`. */
void at_fetch_known(at_core *c, uint32_t slot, uint64_t at);

#endif /* SIMTVP_SIMT_AT_INTERNAL_H */
