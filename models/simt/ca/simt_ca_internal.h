/* simt_ca_internal — state of the cycle-accurate SIMT core (private to models/simt/ca).
 *
 * Pipeline per cycle, in reverse order as GPGPU-Sim's shader_core_ctx::cycle (manual §2.3 and
 * §4.4.1.2): writeback → execute → operand collector (dispatch, read, allocate) → issue →
 * (decode → fetch) × fetch throughput. docs/simt.md describes each stage and its timing. */
#ifndef SIMTVP_SIMT_CA_INTERNAL_H
#define SIMTVP_SIMT_CA_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "simt_core_base.h"

#define CA_NONE SIMT_NONE
#define CA_IBUF 2u /* I-buffer entries per warp (GPGPU-Sim: two) */

typedef struct ca_warp {
  bool live;          /* holds a warp of a resident CTA until the warp is finished */
  bool exited;        /* issues nothing more: every thread exited, or its CTA is aborting */
  bool imiss;         /* waiting for an L1I fill */
  bool fill_ready;    /* a fetch came back from memory around a disabled L1I: next fetch is served */
  bool in_fetch;      /* in the fetch buffer, decoded next */
  bool draining;      /* counted in n_drain: waits for its stores (exited, or at a fence) */
  bool tl_active;     /* two-level scheduler: in the active set */
  uint8_t wait;       /* simt_wait */
  uint64_t fault_since; /* SIMT_WAIT_FAULT: the cycle its replayable fault was found */
  uint64_t fence_until; /* SIMT_WAIT_FENCE: the first cycle its next instruction may issue */
  bool fence_drain;     /* and the fence waits for the warp's memory accesses (.gpu, .sys) */
  uint8_t ib_n;       /* valid I-buffer entries; ib_pc[0] is the head */
  uint32_t ib_pc[CA_IBUF];
  uint32_t fetch_pc;  /* instruction after the I-buffer: the next one to fetch */
  uint32_t cta;       /* CTA slot */
  uint32_t index;     /* warp index in its CTA */
  uint32_t sched;     /* scheduler (slot % schedulers) */
  uint32_t part;      /* sub-core partition of its scheduler */
  uint32_t bar_id;
  uint32_t bar_pc;    /* the barrier instruction it waits at */
  uint32_t sb_pc, sb_reg; /* the register that last blocked the instruction at sb_pc */
  uint32_t sb_clear_pc;   /* the instruction at this pc found no pending write since the warp's
                             last issue (only its own issues add pending writes), CA_NONE */
  uint32_t inflight;     /* issued instructions not yet written back */
  uint32_t inflight_mem; /* of which memory instructions */
  uint64_t age;       /* dynamic warp id: order for GTO / oldest */
  func_warp *fw;
  /* func_warp_peek's answer for the warp (its pc and the pipeline it routes to), kept while
   * pk_ok: the engine's warp changes only when stepped or released from a barrier, which clear
   * it, so a warp retried while its pipeline is full is not peeked again */
  bool pk_ok;
  uint8_t pk_unit;
  uint32_t pk_pc;
} ca_warp;

/* An issued instruction on its way through the pipeline (or in the LDST unit). Lives in exactly
 * one stage list (ID_OC, collector, OC_EX) until it enters an execution unit. */
typedef struct ca_insn {
  uint32_t warp, pc;
  uint8_t unit;       /* simt_unit after fallbacks */
  uint8_t set;        /* operand-collector set */
  uint8_t part;       /* sub-core partition */
  uint8_t n_rf, n_dst;
  bool released;      /* scoreboard released early (forwarding): retire leaves it alone */
  uint32_t reads;     /* register reads still to be granted (bit i = source i) */
  uint32_t item;      /* pipeline-register slot or collector unit it holds */
  uint32_t step;      /* step buffer (memory instructions), CA_NONE otherwise */
  uint16_t lat, ii;
  const uint32_t *src, *dst;
  uint64_t alloc_cycle;
  uint32_t prev, next; /* stage list, or free list */
} ca_insn;

typedef struct ca_list {
  uint32_t head, tail, n;
} ca_list;

/* n interchangeable resources (pipeline-register slots, collector units, ports, execution
 * units) and the part each sub-core partition may use: [lo[p], hi[p]). */
typedef struct ca_items {
  uint32_t n;
  uint32_t lo[SIMT_MAX_SCHEDULERS], hi[SIMT_MAX_SCHEDULERS];
  uint64_t *v;        /* slots: occupant + 1 (0 free); ports: cycle used + 1; units: free at */
} ca_items;

typedef struct ca_sched {
  uint32_t *warps;    /* its warp slots, oldest first */
  uint32_t n;
  uint32_t greedy;    /* last warp issued (GTO, two-level inner GTO), CA_NONE */
  uint32_t rr;        /* LRR: position after the last issuer; RRR: rotation */
  uint32_t *active;   /* two-level: active set (slots) */
  uint32_t n_active;
  uint8_t bucket, reason; /* classification of the cycles skipped while quiet */
  /* The scheduler's last cycle issued nothing and nothing that decides an issue has changed
   * since (none of its warps' I-buffer, scoreboard, barrier or fence wait, life; no ID_OC slot of
   * its sub-core freed): the next cycle issues nothing either and counts as idle_bucket /
   * idle_reason without a scan. Cleared by ca_sched_touch. */
  bool idle_valid;
  uint8_t idle_bucket, idle_reason;
} ca_sched;

typedef struct ca_core {
  simt_core_base base; /* configuration, ports, L1I, LDST unit, CTAs, shared statistics */

  /* time (base.done_until: cycles before it are simulated or accounted) */
  uint64_t next;       /* next cycle to simulate */
  uint64_t *fault_stall; /* um.fault_stall_cycles (registered at the first replayable fault) */
  uint64_t fault_stall_scratch;
  bool quiet;          /* sched[].bucket/reason describe the skipped cycles */

  /* configuration derived at create */
  uint32_t banks_per_part;

  /* warps, schedulers */
  ca_warp *warps;
  uint32_t n_live_warps;
  ca_sched sched[SIMT_MAX_SCHEDULERS];
  uint64_t next_age;
  uint32_t n_drain;     /* warps that wait for stores (exited or at a fence) */
  uint64_t fence_wake;  /* the earliest fence_until of a warp at a fence (UINT64_MAX: none) */
  uint64_t *need_fetch; /* bitset over warp slots: may fetch now */
  uint32_t fetch_words;
  uint32_t last_fetched;
  /* fetch buffer (GPGPU-Sim's m_inst_fetch_buffer) */
  bool fb_valid;
  uint32_t fb_warp, fb_pc, fb_n;

  /* scoreboard: per warp sb_words words of pending writes, then sb_words of memory writes */
  uint64_t *sb;
  uint32_t sb_words;

  /* pipeline */
  ca_insn *insns;
  uint32_t n_insns_cap, insn_free;
  func_step *steps;
  uint32_t *step_free;
  uint32_t n_steps_cap, n_step_free;
  func_step scratch_step;
  ca_list id_oc, cu, oc_ex;
  ca_items id_oc_slots[SIMT_UNIT_N], oc_ex_slots[SIMT_UNIT_N];
  ca_items cus[SIMT_OC_N], in_ports[SIMT_OC_N], out_ports[SIMT_OC_N];
  ca_items units[SIMT_UNIT_N];
  uint32_t *wb_ring;    /* completions per cycle (result buses) */
  uint32_t wb_mask;
  simt_heap heap;       /* execution units' completions (cycle, insn) */
  uint32_t n_banks;
  uint32_t bank_mask;   /* banks_per_part - 1 when a power of two, else UINT32_MAX */
  uint64_t *bank_cycle; /* cycle the bank's use count belongs to */
  uint32_t *bank_used;
  uint64_t *bank_conflict_cycle;
  uint64_t ldst_stall_cycle;

  bool any_check_bars; /* some CTA has check_bars set */

  /* statistics of its own (the shared ones are base's) */
  uint64_t *bank_conflicts;
} ca_core;

/* simt_ca_pipe.c: operand collector, execution units, writeback */
simtvp_status ca_pipe_init(ca_core *c, simtvp_diag *diag);
void ca_pipe_free(ca_core *c);
uint32_t ca_insn_alloc(ca_core *c);
void ca_insn_release(ca_core *c, uint32_t id);
uint32_t ca_step_alloc(ca_core *c);
void ca_step_release(ca_core *c, uint32_t id);
void ca_list_push(ca_core *c, ca_list *l, uint32_t id);
void ca_list_remove(ca_core *c, ca_list *l, uint32_t id);
/* A free slot of `items` for partition part, CA_NONE when none. */
uint32_t ca_items_free_slot(const ca_items *it, uint32_t part);
void ca_writeback_stage(ca_core *c, uint64_t now);
void ca_execute_stage(ca_core *c, uint64_t now);
void ca_oc_stage(ca_core *c, uint64_t now);
/* Destination registers of an instruction are written at cycle now: bank writes, scoreboard
 * release, the warp's in-flight count (also for the LDST unit's completions). */
void ca_insn_retire(ca_core *c, uint32_t id, uint64_t now);

/* Something that can change scheduler si's next issue happened (see ca_sched.idle_valid). */
static inline void ca_sched_touch(ca_core *c, uint32_t si) { c->sched[si].idle_valid = false; }

/* simt_ca.c: hooks the pipeline calls */
void ca_warp_progress(ca_core *c, uint32_t warp, uint64_t now);

static inline bool ca_sb_test(const uint64_t *bm, uint32_t id) { return (bm[id >> 6] >> (id & 63)) & 1u; }
static inline void ca_sb_set(uint64_t *bm, uint32_t id) { bm[id >> 6] |= 1ull << (id & 63); }
static inline void ca_sb_clear(uint64_t *bm, uint32_t id) { bm[id >> 6] &= ~(1ull << (id & 63)); }
static inline uint64_t *ca_sb_of(ca_core *c, uint32_t warp) { return c->sb + (size_t)warp * 2 * c->sb_words; }

#endif /* SIMTVP_SIMT_CA_INTERNAL_H */
