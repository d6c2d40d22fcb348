/* simt_core_base — what the two timing variants of the SIMT core (ca/, at/) share: everything of a
 * core that does not depend on how its time is modelled (private to models/simt; docs/simt.md §2
 * "Variants", §3 "Barriers, fences, exit", §5, §7).
 *
 *   - configuration checks, the L1I and the LDST unit (created the same way), teardown;
 *   - CTA records: slots, start in models/func, completion reports (queued and delivered when a
 *     call into the core ends), faults, barrier release and barrier-deadlock detection with the
 *     warp dump;
 *   - the pipeline classes derived from the configuration (pipeline per unit, collector set,
 *     latency and initiation tables) and the share of n resources per sub-core;
 *   - the statistics both variants feed under the same names;
 *   - a completion heap (cycle, id).
 *
 * A variant's core struct starts with a simt_core_base (member `base`), so the base and the core
 * are the same pointer: the variant's hooks (simt_variant_hooks) cast it back. What decides *when*
 * — fetch, issue, the operand collector, execution, the memory queue — stays in each variant. */
#ifndef SIMTVP_SIMT_CORE_BASE_H
#define SIMTVP_SIMT_CORE_BASE_H

#include "simtvp_bits.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cache.h"
#include "simt_program.h"
#include "simt_variant.h"

#define SIMT_NONE UINT32_MAX
#define SIMT_MAX_CTA_WARPS (FUNC_MAX_CTA_THREADS / FUNC_WARP_SIZE)

/* What keeps a warp from issuing besides its instructions: a barrier or a fence. */
enum simt_wait { SIMT_WAIT_NONE = 0, SIMT_WAIT_BARRIER, SIMT_WAIT_FENCE, SIMT_WAIT_FAULT /* replayable fault */ };

/* Classification of a scheduler-cycle without issue (GPGPU-Sim's shader_cycle_distro: W0_Idle,
 * W0_Scoreboard, Stall) and its reason (simt_sched_stall[*]), docs/simt.md §5. */
enum simt_bucket { SIMT_B_IDLE = 0, SIMT_B_SCOREBOARD, SIMT_B_STALL, SIMT_B_N };
enum simt_reason {
  SIMT_R_NO_WARP = 0, /* the scheduler has no live warp */
  SIMT_R_BARRIER,     /* every live warp waits at a barrier or fence, or has exited */
  SIMT_R_IBUFFER,     /* a warp has no decoded instruction (fetch, L1I miss, control hazard) */
  SIMT_R_SCOREBOARD,  /* a warp has one, blocked by a pending register write */
  SIMT_R_PIPE,        /* a warp is ready but its pipeline register / unit is busy */
  SIMT_R_N
};

/* gpgpu_n_*_insn: memory instructions by space, in threads. */
enum {
  SIMT_MI_LOAD, SIMT_MI_STORE, SIMT_MI_SHMEM, SIMT_MI_SSTARR, SIMT_MI_TEX, SIMT_MI_CONST, SIMT_MI_PARAM, SIMT_MI_N
};

/* A resident CTA. */
typedef struct simt_cta {
  bool live;
  bool aborting;      /* a fault or deadlock ended it: waits for its in-flight work, then reports */
  bool check_bars;    /* a barrier may have completed or deadlocked during this issue stage */
  const simt_kernel *k;
  func_cta *fc;
  uint32_t id[3];
  uint32_t n_warps, n_finished;
  uint32_t warp_slot[SIMT_MAX_CTA_WARPS];
  /* bit i: warp i finished. Its slot is free then and a CTA started later may hold it while this
   * one is still resident, so the CTA's own code reads only the slots of warps it still holds
   * (simt_cta_holds). */
  uint32_t finished;
  uint64_t code_base; /* fetch address of instruction 0 */
  gpu_cta_result result;
} simt_cta;

_Static_assert(SIMT_MAX_CTA_WARPS <= 32, "simt_cta.finished has a bit per warp");

/* Warp i of the CTA has not finished: warp_slot[i] is still its own. */
static inline bool simt_cta_holds(const simt_cta *cta, uint32_t i) { return !(cta->finished >> i & 1u); }

/* What the shared CTA code reads of a warp. */
typedef struct simt_warp_view {
  bool live;          /* holds a warp of a resident CTA until the warp is finished */
  bool exited;        /* issues nothing more */
  uint8_t wait;       /* simt_wait */
  uint32_t bar_id, bar_pc; /* the barrier it waits at and its instruction */
  func_warp *fw;
} simt_warp_view;

typedef struct simt_core_base simt_core_base;

/* The variant's side of the shared code (b is the variant's core). */
typedef struct simt_variant_hooks {
  void (*warp_view)(const simt_core_base *b, uint32_t slot, simt_warp_view *v);
  /* The core's per-warp tables can hold kernel k in CTA slot cta_slot (grown when needed); false:
   * out of host memory. */
  bool (*fit_kernel)(simt_core_base *b, uint32_t cta_slot, const simt_kernel *k);
  /* A barrier released the warp at the end of cycle now: it may issue from now + 1. */
  void (*barrier_released)(simt_core_base *b, uint32_t slot, uint64_t now);
  /* Ends the CTA early (fault, deadlock) with result r: its warps issue nothing more; it is
   * reported once their in-flight work has drained. */
  void (*abort_cta)(simt_core_base *b, simt_cta *cta, const gpu_cta_result *r, uint64_t now);
  /* One line of the warp dump (simt_warp_line_head and the variant's own state). */
  void (*warp_line)(const simt_core_base *b, uint32_t slot, char *buf, size_t n);
} simt_variant_hooks;

struct simt_core_base {
  simt_core_config cfg;      /* reg_ports ≥ 1 */
  simt_core_ports ports;
  const simt_variant_hooks *hooks;
  const simt_ldst_iface *lif;
  simt_ldst *ldst;
  cache *l1i;                /* NULL with a perfect L1I */
  bool l1i_enabled;          /* a real L1I (not "none") */
  uint32_t l1i_line;         /* fetch groups do not cross it */
  mem_req_pool *pool;
  bool own_pool;
  uint64_t done_until;       /* cycles < done_until are simulated or accounted */

  /* configuration derived at create (simt_base_init_pipeline) */
  uint32_t n_parts;          /* sub-cores: schedulers with -gpgpu_sub_core_model, else 1 */
  uint8_t eff_unit[SIMT_UNIT_N];    /* pipeline a class runs on (SP without units of its own) */
  uint8_t set_of_unit[SIMT_UNIT_N]; /* operand-collector set of a pipeline */
  uint32_t lat[SIMT_LAT_N][GPU_OP_N], ii[SIMT_LAT_N][GPU_OP_N]; /* ≥ 1 */

  /* CTAs and their completion reports, delivered when the current call into the core ends */
  simt_cta *ctas;
  uint32_t n_ctas;
  struct { uint32_t slot; gpu_cta_result r; } *reports;
  uint32_t n_reports, reports_cap;

  /* statistics (registered by simt_base_init) */
  simt_insn_counters n;
  uint64_t *distro[3 + 32];  /* W0_Idle, W0_Scoreboard, Stall, W1..W32 */
  uint64_t *reason[SIMT_R_N];
  uint64_t *mem_insn[SIMT_MI_N];
  uint64_t *cycles, *ctas_done;
  uint64_t *ldst_stall;      /* registered by the variant (simt_base_register_ldst_stall) */
  uint64_t scratch;

  /* PTX line profile (-enable_ptx_file_line_stats): per warp slot, the launch's per-instruction
   * counts (NULL: off) and the first cycle at which the warp could issue its next instruction;
   * the cycles until it does are that instruction's stall_cycles (docs/statistics.md §4). */
  func_pc_count **warp_pcc;
  uint64_t *warp_ready;
  /* bit s of word s / 64: warp slot s holds a warp (simt_base_start_cta to simt_base_finish_warp) */
  uint64_t *slot_used;
};

/* ---- lifetime --------------------------------------------------------------------------------- */

/* Checks what every variant needs of cfg (warp size, schedulers, CTA slots, fetch and issue
 * widths, an LDST interface), copies cfg and ports and registers the shared statistics.
 * SIMTVP_ERR_CONFIG naming the option, SIMTVP_ERR_UNSUPPORTED without an LDST unit. */
simtvp_status simt_base_init(simt_core_base *b, const simt_core_config *cfg, simt_core_ports ports,
                             const simt_variant_hooks *hooks, simtvp_diag *diag);
/* A counter of the stats sink, or scratch without one. */
uint64_t *simt_base_counter(simt_core_base *b, const char *name, const char *unit, const char *description);
/* A warp's instruction found pages not resident (unified memory): each is reported to the MMU
 * through the kernel's recorder, and um.fault_stall_cycles is registered at the first (*stall
 * points at scratch until then). true = the warp waits for the replay; false = no fault buffer
 * (fatal), *fault_va then holds the address for the report. Shared by the CA and AT cores. */
bool simt_base_report_replayable_fault(simt_core_base *b, const simt_kernel *k, func_warp *fw, uint64_t now,
                                       uint64_t **stall, uint64_t *scratch, uint64_t *fault_va);
/* MMU_REPLAY.CANCEL: the CTA of a warp that waited on a replayable fault ends with
 * SIMTVP_ERR_FAULT, reported through `fault`. Shared by the CA and AT cores. */
void simt_base_cancel_replay(simt_core_base *b, simt_cta *cta, uint64_t now);
/* simt_stall_ldst_busy (each variant registers it where its statistics order puts it). */
void simt_base_register_ldst_stall(simt_core_base *b);
/* The core's busy cycles up to last_cycle, from *busy_from on (which moves past it). */
static inline void simt_base_count_busy(simt_core_base *b, uint64_t *busy_from, uint64_t last_cycle) {
  if (last_cycle + 1 > *busy_from) *b->cycles += last_cycle + 1 - *busy_from;
  *busy_from = last_cycle + 1;
}
/* A scheduler's cycles [*from, now) without an issue (*issued of them issued), split by why its
 * warps waited: gap[r] cycles for reason r, scaled to the idle cycles (an estimate; the rest after
 * rounding to the last reason, or to no warp). gap and *issued restart at 0, *from at now. Shared
 * by the AT and interval cores (docs/simt-at.md §4). */
void simt_base_count_stalls(simt_core_base *b, uint64_t *from, uint64_t *issued, uint64_t gap[SIMT_R_N],
                            uint64_t now);
/* A timed L1 (the AT and interval cores): `text` parsed as `option` (NULL: none), the cache
 * "<group>_cache_core[<sm>]" created in *out (NULL when disabled), *block its coalescing block (the
 * line, at most MEM_LINE_BYTES), *spec its parsed spec for the variant's own tables. */
simtvp_status simt_base_make_timed_l1(simt_core_base *b, cache **out, const char *text, const char *option,
                                      const char *group, const char *alias, uint32_t *block, cache_spec *spec,
                                      simtvp_diag *diag);
/* The request counters of a timed LD/ST path (the AT and interval cores): gpgpu_n_mem_read_global …
 * simt_ldst.atomic_requests, registered by simt_base_mem_counters in that order. */
typedef struct simt_mem_counters {
  uint64_t *read_global, *write_global, *read_local, *write_local, *mem_const, *mem_texture, *atomic;
} simt_mem_counters;
void simt_base_mem_counters(simt_core_base *b, simt_mem_counters *s);
/* One request of kind (MEM_ACC_*) counted; other kinds count nowhere. */
static inline void simt_mem_count_request(const simt_mem_counters *s, uint8_t kind) {
  switch (kind) {
    case MEM_ACC_GLOBAL_R: ++*s->read_global; break;
    case MEM_ACC_GLOBAL_W: ++*s->write_global; break;
    case MEM_ACC_LOCAL_R: ++*s->read_local; break;
    case MEM_ACC_LOCAL_W: ++*s->write_local; break;
    case MEM_ACC_CONST_R: ++*s->mem_const; break;
    case MEM_ACC_TEXTURE_R: ++*s->mem_texture; break;
    case MEM_ACC_ATOMIC: ++*s->atomic; break;
    default: break;
  }
}
/* A kernel's per-pc table (entries of `elem` bytes, the pcs filled listed in touched[0, n_touched))
 * made ready for n_insns pcs (at least one), every entry zero: grown (zeroed) when *cap is smaller,
 * else only its touched entries cleared. False (the table as it was) when out of host memory. The
 * AT core's per-CTA tables and the interval core's per-launch ones. */
bool simt_pc_table_fit(void **pcs, uint32_t **touched, uint32_t *n_touched, uint32_t *cap, uint32_t n_insns,
                       size_t elem);
/* The warps' register ready times laid out again with `stride` entries per warp (max_warps rows):
 * when keep, zeroed and each warp's old_stride entries of `old` copied; else left unset (the
 * caller clears a warp's row when it launches one). `old` freed. NULL (`old` kept) when out of
 * host memory. The caller points its warps at their rows. */
uint64_t *simt_base_regrow_ready(const simt_core_base *b, uint64_t *old, uint32_t old_stride, uint32_t stride,
                                 bool keep);
/* Lanes of a memory step by the space they accessed (the AT and interval cores' LD/ST paths). */
typedef struct simt_space_masks {
  uint32_t shared, local, global, konst, param, tex;
} simt_space_masks;
/* A texture or surface instruction: its lanes go through the L1T whatever their space. */
static inline bool simt_texture_op(const func_step *st) {
  uint16_t op = st->insn ? st->insn->opcode : 0;
  return op == PTX_OP_TEX || op == PTX_OP_TLD4 || op == PTX_OP_SULD || op == PTX_OP_SUST || op == PTX_OP_SURED;
}
static inline void simt_space_masks_of(const func_step *st, simt_space_masks *m) {
  memset(m, 0, sizeof *m);
  if (simt_texture_op(st)) {
    m->tex = st->mem_mask;
    return;
  }
  if (st->space != PTX_SPACE_GENERIC) { /* one space for every lane */
    uint32_t all = st->mem_mask;
    switch (st->space) {
      case PTX_SPACE_SHARED:
      case PTX_SPACE_SHARED_CLUSTER: m->shared = all; break;
      case PTX_SPACE_LOCAL: m->local = all; break;
      case PTX_SPACE_CONST: m->konst = all; break;
      case PTX_SPACE_PARAM: m->param = all; break;
      case PTX_SPACE_TEX: m->tex = all; break;
      default: m->global = all; break;
    }
    return;
  }
  for (uint32_t k = st->mem_mask; k; k &= k - 1) {
    uint32_t lane = (uint32_t)__builtin_ctz(k), bit = 1u << lane;
    switch (st->lane_space[lane]) {
      case PTX_SPACE_SHARED:
      case PTX_SPACE_SHARED_CLUSTER: m->shared |= bit; break;
      case PTX_SPACE_LOCAL: m->local |= bit; break;
      case PTX_SPACE_CONST: m->konst |= bit; break;
      case PTX_SPACE_PARAM: m->param |= bit; break;
      case PTX_SPACE_TEX: m->tex |= bit; break;
      default: m->global |= bit; break;
    }
  }
}
/* Pipeline classes, latency/initiation tables and their checks (n_parts set): SIMTVP_ERR_CONFIG
 * naming the option for a pipeline without units, register or collector; for the variants'
 * resources, simt_base_share. */
simtvp_status simt_base_init_pipeline(simt_core_base *b, simtvp_diag *diag);
/* n interchangeable resources over `parts` sub-cores: sub-core p uses [lo[p], hi[p]), its share
 * when there are enough, else resource p mod n (docs/simt.md "Sub-cores"). */
void simt_base_share(uint32_t n, uint32_t parts, uint32_t *lo, uint32_t *hi);
/* The memory pool, CTA slots, the L1I (after the variant's statistics: its counters follow) and
 * the LDST unit, whose completions go to complete(ctx = b). complete NULL: the variant times its
 * memory path itself (the AT core): no LDST unit, and the L1I is created for timed use. */
simtvp_status simt_base_attach(simt_core_base *b,
                               void (*complete)(void *ctx, uint32_t warp, uint64_t tag, uint64_t now),
                               simtvp_diag *diag);
/* Finishes resident CTAs in models/func, destroys the LDST unit, the L1I, the pool if its own. */
void simt_base_destroy(simt_core_base *b);

/* ---- CTAs ------------------------------------------------------------------------------------- */

/* Starts CTA id of k: the first free CTA slot and the first free warp slots (in order), the
 * variant's tables fitted (hooks.fit_kernel), models/func's CTA started and the record set up
 * (live, counted in n_ctas). *cta_slot, slots[0..*n_warps). SIMTVP_ERR_STATE when no slot is free. */
simtvp_status simt_base_start_cta(simt_core_base *b, const simt_kernel *k, const uint32_t id[3], uint32_t *cta_slot,
                                  uint32_t slots[SIMT_MAX_CTA_WARPS], uint32_t *n_warps, simtvp_diag *diag);
/* Warp i of the CTA finished (the variant freed its slot): counted and marked (simt_cta_holds),
 * its profile pointer dropped; after the CTA's last warp simt_base_finish_cta. */
void simt_base_finish_warp(simt_core_base *b, simt_cta *cta, uint32_t i);
/* Every warp of the CTA finished: models/func's CTA finished, the slot free, the report queued. */
void simt_base_finish_cta(simt_core_base *b, simt_cta *cta);
/* Delivers the queued reports through ports.cta_done (the dispatcher may start CTAs from it). */
void simt_base_flush_reports(simt_core_base *b, uint64_t now);
/* Barriers of the CTA that completed this cycle release their warps (hooks.barrier_released);
 * then, when every live warp waits at a barrier nothing can complete, the deadlock report
 * (headline, structured report, one line per warp) and hooks.abort_cta. */
void simt_base_settle_barriers(simt_core_base *b, simt_cta *cta, uint64_t now);
/* func_warp_step of warp fw failed with st: the warp that faulted reports (d's place fields, the
 * core and cycle in front), and the CTA ends (hooks.abort_cta). */
void simt_base_fault_cta(simt_core_base *b, simt_cta *cta, func_warp *fw, simtvp_status st, const simtvp_diag *d,
                         uint64_t now);

/* A warp instruction of warp slot `slot` at pc issued at cycle now with `active` lanes: the
 * instruction counters, W1..W32 and the issue trace. */
static inline void simt_base_count_issue(simt_core_base *b, uint32_t slot, uint32_t pc, uint32_t active, uint64_t now) {
  uint32_t n = (uint32_t)simtvp_popcount32(active);
  *b->n.gpu_sim_insn += n;
  *b->n.thrd_icount += n;
  *b->n.core_thread_insn += n;
  ++*b->n.w_icount;
  ++*b->n.core_warp_insn;
  if (n >= 1 && n <= 32) ++*b->distro[2 + n];
  if (b->cfg.trace.issue) b->cfg.trace.issue(b->cfg.trace.ctx, b->cfg.sm, slot, pc, active, now);
  func_pc_count *pcc = b->warp_pcc ? b->warp_pcc[slot] : NULL;
  if (pcc) {
    if (now > b->warp_ready[slot]) pcc[pc].stall_cycles += now - b->warp_ready[slot];
    b->warp_ready[slot] = now + 1;
  }
}

/* k warp instructions of one warp with the same `active` lanes, counted at once: what k calls of
 * simt_base_count_issue count, for a warp without an issue trace or a per-pc profile
 * (simt_base_issue_batchable). */
static inline bool simt_base_issue_batchable(const simt_core_base *b, uint32_t slot) {
  return !b->cfg.trace.issue && !(b->warp_pcc && b->warp_pcc[slot]);
}
static inline void simt_base_count_issues(simt_core_base *b, uint32_t active, uint64_t k) {
  uint64_t n = (uint64_t)simtvp_popcount32(active);
  *b->n.gpu_sim_insn += n * k;
  *b->n.thrd_icount += n * k;
  *b->n.core_thread_insn += n * k;
  *b->n.w_icount += k;
  *b->n.core_warp_insn += k;
  if (n >= 1 && n <= 32) *b->distro[2 + n] += k;
}
/* A run's warp instructions counted in batches while their active lanes stay the same (`on`:
 * simt_base_issue_batchable), else one by one; simt_batch_flush when the run ends. Shared by the
 * AT and interval cores' issue loops. */
typedef struct simt_issue_batch {
  bool on;
  uint32_t active;
  uint64_t n;
} simt_issue_batch;
static inline __attribute__((always_inline)) void simt_batch_add(simt_core_base *b, simt_issue_batch *k,
                                                                 uint32_t active, uint64_t n) {
  if (active != k->active) {
    if (k->n) simt_base_count_issues(b, k->active, k->n);
    k->active = active;
    k->n = 0;
  }
  k->n += n;
}
static inline __attribute__((always_inline)) void simt_batch_issue(simt_core_base *b, simt_issue_batch *k,
                                                                   uint32_t slot, uint32_t pc, uint32_t active,
                                                                   uint64_t now) {
  if (!k->on) {
    simt_base_count_issue(b, slot, pc, active, now);
    return;
  }
  simt_batch_add(b, k, active, 1);
}
static inline void simt_batch_flush(simt_core_base *b, simt_issue_batch *k) {
  if (k->n) simt_base_count_issues(b, k->active, k->n);
  k->n = 0;
}

/* ---- memory ----------------------------------------------------------------------------------- */

/* The LDST unit's send port (ctx = b): the core's. */
bool simt_base_ldst_send(void *ctx, mem_req *req, uint64_t now);
/* Nothing left in the LDST unit and the L1I. */
bool simt_base_memory_idle(const simt_core_base *b);
/* gpgpu_n_*_insn for a memory instruction entering the LDST unit: threads that accessed memory,
 * by space; global and local loads and atomics count as loads (docs/simt.md §5). */
void simt_base_count_mem_insn(simt_core_base *b, const func_step *st);
/* The gpgpu_n_*_insn counter (SIMT_MI_*) every thread of the memory instruction counts in, or −1
 * when its lanes' spaces differ (a generic access: simt_base_count_mem_insn counts lane by lane).
 * A texture or store opcode is its instruction's; only a generic access's space varies. */
int simt_base_mem_insn_class(const func_step *st);

/* ---- dump ------------------------------------------------------------------------------------- */

/* headline, then per resident CTA a line and its live warps (hooks.warp_line), the L1I and the
 * LDST unit. */
void simt_base_dump(const simt_core_base *b, const char *headline, void (*line)(void *ctx, const char *text),
                    void *ctx);
/* The start of a warp's dump line: "  warp <index> (slot <slot>, sched <sched>): <state>", the
 * barrier " <id> (pc <pc> `<insn>`)" when it waits at one, ", next pc <pc> (<file>:<line>)
 * `<insn>`"; returns the length written (snprintf's). */
int simt_warp_line_head(char *buf, size_t n, const ptx_module *m, uint32_t index, uint32_t slot, uint32_t sched,
                        const char *state, const simt_warp_view *v, uint32_t pc);

/* ---- completion heap: (cycle, id), earliest first --------------------------------------------- */

typedef struct simt_heap_entry {
  uint64_t at;
  uint32_t id;
} simt_heap_entry;

typedef struct simt_heap {
  simt_heap_entry *v;
  uint32_t n, cap;
} simt_heap;

bool simt_heap_grow(simt_heap *h);

/* false: out of host memory (nothing pushed). Ties leave in any order: callers' same-cycle
 * entries are independent. */
static inline bool simt_heap_push(simt_heap *h, uint64_t at, uint32_t id) {
  if (h->n == h->cap && !simt_heap_grow(h)) return false;
  uint32_t i = h->n++;
  while (i > 0) {
    uint32_t parent = (i - 1) / 2;
    if (h->v[parent].at <= at) break;
    h->v[i] = h->v[parent];
    i = parent;
  }
  h->v[i].at = at;
  h->v[i].id = id;
  return true;
}

/* The id of the earliest entry, removed (h->n > 0). */
static inline uint32_t simt_heap_pop(simt_heap *h) {
  uint32_t top = h->v[0].id;
  simt_heap_entry last = h->v[--h->n];
  uint32_t i = 0;
  for (;;) {
    uint32_t l = 2 * i + 1, r = l + 1, m = i;
    uint64_t at = last.at;
    if (l < h->n && h->v[l].at < at) m = l, at = h->v[l].at;
    if (r < h->n && h->v[r].at < at) m = r;
    if (m == i) break;
    h->v[i] = h->v[m];
    i = m;
  }
  if (h->n) h->v[i] = last;
  return top;
}

static inline uint64_t simt_heap_top(const simt_heap *h) { return h->n ? h->v[0].at : SIMT_NEVER; }

#endif /* SIMTVP_SIMT_CORE_BASE_H */
