/* simt_at_internal — state of the approximately-timed SIMT core (private to models/simt/at).
 *
 * The AT core computes *when* each warp instruction issues and completes from times, not from a
 * cycle-by-cycle pipeline (docs/simt-at.md): per warp the cycle its I-buffer head is decoded and
 * its next instruction's scoreboard clears, per register the cycle its pending write lands, per
 * pipeline resource (ID_OC slot, collector unit, register bank, OC_EX slot, execution unit) the
 * cycle it is next free, per scheduler the next cycle it may issue. Only cycles in which
 * something is due are visited. Memory instructions go through the LDST unit (simt_ldst_iface),
 * so the memory system sees the same requests as behind the CA core. */
#ifndef SIMTVP_SIMT_AT_INTERNAL_H
#define SIMTVP_SIMT_AT_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "simt_core_base.h"

#define AT_NONE SIMT_NONE
#define AT_NEVER SIMT_NEVER
#define AT_NO_UNIT 0xffu
#define AT_UNIT_UNKNOWN 0xfeu
#define AT_MAX_ITEMS 8u /* resources of one kind a sub-core may use (more change nothing here) */
#define AT_SMEM_MAX_WORDS 256u /* bank words one shared-memory phase may touch */

typedef struct at_warp {
  /* what deciding the next issue reads (one cache line) */
  bool live;          /* holds a warp of a resident CTA until the warp is finished */
  bool exited;        /* issues nothing more (every thread exited, or its CTA is aborting) */
  uint8_t wait;       /* simt_wait */
  uint8_t unit;       /* pipeline of the next instruction (simt_unit), AT_NO_UNIT: none */
  uint8_t ib_n;       /* instructions in the I-buffer (from ib_time on) */
  uint32_t pc;        /* next instruction */
  uint32_t ib_pc;     /* pc of the I-buffer head */
  const simt_program *prog;
  uint8_t *unit_of;   /* its CTA's pipeline per pc (AT_UNIT_UNKNOWN until first needed) */
  uint64_t *rr;       /* per register id: cycle its pending write lands (AT_NEVER: memory) */
  uint64_t ib_time;   /* cycle from which the I-buffer head may issue; AT_NEVER while fetching */
  uint64_t next_issue; /* cycle after its last issue */
  uint64_t *sready, *sibt; /* its entries of its scheduler's ready[] and ibt[] */
  uint64_t sb_time;   /* cycle the next instruction's registers are free (scoreboard) */
  uint64_t ready;     /* max(ib_time, sb_time, one issue per cycle); AT_NEVER when waiting */
  /* the rest */
  bool imiss;         /* its fetch waits for an L1I fill */
  bool fill_ready;    /* a fetch came back around a disabled L1I: the next fetch is served */
  bool fetch_queued;  /* a fetch that needs an L1I access waits in the fetch queue */
  bool draining;      /* counted in n_drain: waits for its memory work (exited, or at a fence) */
  uint32_t fetch_pc;  /* next pc to fetch when the I-buffer is empty */
  uint32_t cta, index, sched, part;
  uint32_t pos;       /* index in its scheduler's warps[] / ready[] */
  uint32_t bar_id, bar_pc;
  uint32_t inflight_mem; /* memory instructions issued and not yet completed by the LDST unit */
  uint64_t last_wb;   /* latest writeback of its ALU instructions */
  uint64_t mem_done;  /* latest completion of its shared-memory accesses (timed at once) */
  uint64_t line;      /* L1I line of its last fetch that accessed the cache, + 1 (0: none) */
  uint64_t age;       /* launch order: GTO / oldest */
  func_warp *fw;
} at_warp;

/* Per CTA slot: the pipeline of each instruction of its module, learnt from func_warp_peek. */
typedef struct at_cta_units {
  uint8_t *unit_of;
  uint32_t cap;
} at_cta_units;

typedef struct at_sched {
  uint32_t *warps;    /* its live warp slots, oldest first */
  uint64_t *ready;    /* their ready times (at_warp.ready), for a compact scan */
  uint64_t *ibt;      /* their I-buffer times: AT_NEVER waiting or exited, AT_NEVER - 1 fetching */
  uint32_t n;
  uint32_t greedy;    /* last warp issued (GTO), AT_NONE */
  uint32_t rr;        /* LRR: position after the last issuer */
  uint64_t acct_from; /* first cycle not yet classified (W0_* counters) */
  uint8_t bucket, reason; /* classification of the cycles since acct_from */
} at_sched;

/* n interchangeable resources and the share [lo[p], hi[p]) of each sub-core p; free[i] is the
 * cycle resource i is next free. */
typedef struct at_res {
  uint32_t n;
  uint32_t lo[SIMT_MAX_SCHEDULERS], hi[SIMT_MAX_SCHEDULERS];
  uint64_t *free;
} at_res;

/* A memory instruction from issue until the LDST unit completes it (its tag). */
typedef struct at_mop {
  uint64_t ready;     /* cycle it may enter the LDST unit (after the operand collector) */
  uint32_t warp;
  uint32_t part;
  const uint32_t *dst;
  uint8_t n_dst;
  uint32_t prev, next; /* memory queue, or free list (next) */
} at_mop;

typedef struct at_fetch {
  uint64_t at;        /* fetch cycle */
  uint32_t slot;
  uint8_t decode;     /* cycles from the fetch to the first issue */
} at_fetch;

typedef struct at_core {
  simt_core_base base; /* configuration, ports, L1I, LDST unit, CTAs, shared statistics */

  /* time (base.done_until: every cycle before it is processed) */
  uint64_t next;       /* cached next_event */
  uint64_t ldst_next;  /* the LDST unit's next_event */
  uint64_t l1i_next;   /* the L1I's next_event */
  bool l1i_missq;      /* the L1I's miss queue may hold requests to send */

  /* configuration derived at create */
  uint32_t banks_per_part, mem_slots;

  /* warps, CTAs, schedulers */
  at_warp *warps;
  uint32_t n_live_warps;
  at_cta_units *cta_units; /* per CTA slot */
  at_sched sched[SIMT_MAX_SCHEDULERS];
  uint64_t sched_next[SIMT_MAX_SCHEDULERS]; /* next cycle a scheduler may issue (early, never late) */
  uint32_t *order;     /* a scheduler's candidates in priority order (max_warps entries) */
  uint64_t next_age;
  uint32_t n_drain;
  uint64_t *drain_mask; /* bit per warp slot: draining */
  bool any_check_bars;
  uint64_t *rr;        /* per warp rr_stride register ready times */
  uint32_t rr_stride;

  /* fetch: one fetch buffer, fetch_throughput fetches per cycle */
  uint64_t fetch_cycle;
  uint32_t fetch_used;
  at_fetch *fetchq;
  uint32_t fetchq_head, fetchq_n, fetchq_cap;

  /* pipeline resources by time */
  at_res idoc[SIMT_UNIT_N], ocex[SIMT_UNIT_N], units[SIMT_UNIT_N], cus[SIMT_OC_N];
  uint64_t *bank_cycle; /* per register bank: the cycle of its next free read port ... */
  uint32_t *bank_used;  /* ... and how many of that cycle's ports are taken */
  uint32_t n_banks;

  /* memory instructions */
  at_mop *mops;
  func_step *steps;    /* one per mop: the executed step until the LDST unit takes it */
  uint32_t n_mops_cap, mop_free;
  uint32_t memq_head, memq_tail, memq_n;
  uint32_t memq_part[SIMT_MAX_SCHEDULERS];
  uint64_t memq_retry; /* the LDST refused: next try */
  uint64_t smem_free;  /* first cycle the shared-memory pipeline is free */
  uint64_t smem_slot[AT_MAX_ITEMS]; /* LDST dispatch slots held by shared accesses: until then */
  uint32_t n_smem_slots; /* -gpgpu_mem_unit_ports */
  func_step scratch_step;

  /* warps to finish (exited, written back at the entry's cycle) */
  simt_heap heap;

  /* shared-memory geometry (simt_at_smem.c) */
  uint32_t smem_banks, smem_bank_bytes, smem_parts, smem_shift, smem_bank_mask;
  uint32_t smem_epoch;
  uint32_t *smem_epoch_of;
  uint16_t *smem_head, *smem_count;
  uint64_t *smem_conflicts; /* gpgpu_n_shmem_bkconflict */

  /* statistics (the shared ones are base's) */
  uint64_t busy_from;      /* first cycle of the current resident period not yet counted */
} at_core;

/* simt_at_issue.c: schedulers, issue, the pipeline by times */
simtvp_status at_pipe_init(at_core *c, simtvp_diag *diag);
void at_pipe_free(at_core *c);
void at_sched_cycle(at_core *c, uint32_t si, uint64_t t);
/* Recomputes the warp's next instruction, pipeline and ready time. */
void at_warp_refresh(at_core *c, uint32_t slot);
/* The warp may issue earlier than its scheduler thinks (not before floor). */
void at_wake(at_core *c, uint32_t slot, uint64_t floor);
/* Classifies the scheduler's cycles [acct_from, t) as its current bucket. */
void at_sched_account(at_core *c, at_sched *s, uint64_t t);
uint32_t at_mop_alloc(at_core *c);
void at_mop_release(at_core *c, uint32_t id);

/* simt_at_smem.c: shared-memory accesses */
simtvp_status at_smem_init(at_core *c, simtvp_diag *diag);
void at_smem_free(at_core *c);
bool at_smem_only(const func_step *st);
/* Cycles the access holds the shared-memory pipeline; *conflicts: of which bank conflicts. */
uint32_t at_smem_cycles(at_core *c, const func_step *st, uint32_t *conflicts);

/* simt_at.c: hooks the issue stage calls */
void at_fetch_request(at_core *c, uint32_t slot, uint64_t t);
void at_warp_progress(at_core *c, uint32_t slot, uint64_t now);
void at_finish_push(at_core *c, uint32_t slot, uint64_t at);
void at_set_drain(at_core *c, at_warp *w, bool on);

static inline uint64_t at_max(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t at_min(uint64_t a, uint64_t b) { return a < b ? a : b; }
static inline void at_set_ready(at_core *c, at_warp *w, uint64_t t) {
  (void)c;
  w->ready = t;
  if (!w->live) return;
  *w->sready = t;
  *w->sibt = w->exited || w->wait ? AT_NEVER : w->ib_n && w->ib_time != AT_NEVER ? w->ib_time : AT_NEVER - 1;
}
static inline const simt_program *at_prog(const at_core *c, const at_warp *w) { (void)c; return w->prog; }

#endif /* SIMTVP_SIMT_AT_INTERNAL_H */
