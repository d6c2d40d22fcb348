/* simt_interval_internal — state of the interval SIMT core (private to models/simt/interval).
 *
 * The interval core (docs/simt-interval.md) runs each resident warp ahead of the GPU's time by up
 * to a horizon (-interval_horizon, 2 048 cycles by default): the warp executes instruction after instruction in
 * models/func and a per-warp timeline `t` advances by each instruction's issue rule (register
 * ready times, coarse throughput bins per scheduler and per unit, the L1 port), until the
 * timeline passes the horizon, the warp waits at a barrier, exits or waits on a replayable fault.
 * Every memory access is timed at once: shared memory from its bank conflicts, the L1 caches
 * from models/cache in timed use, and everything beyond the L1 by one call of
 * simt_core_config.interval_mem (or a fixed latency when nothing is connected). Nothing is
 * stepped cycle by cycle, no request leaves the core, and no instruction is an event. */
#ifndef SIMTVP_SIMT_INTERVAL_INTERNAL_H
#define SIMTVP_SIMT_INTERVAL_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "iv_bins.h"
#include "ldst_coalesce.h"
#include "simt_core_base.h"

#define IV_NONE SIMT_NONE
#define IV_NEVER SIMT_NEVER
#define IV_NO_UNIT 0xffu
#define IV_NO_L1I_BIT 0xffu
#define IV_NO_SPACE 0xffu
/* Cycles from issue to the execution unit (operand collector, register read, OC_EX: the CA
 * core's stages, docs/simt.md §3), so a dependent ALU chain costs latency + 4 per instruction. */
#define IV_ISSUE_TO_UNIT 4u
/* How far (core cycles) a warp's timeline may run ahead of the time the core is advanced to
 * (-interval_horizon, iv_core.horizon). The core asks to be advanced again when its earliest warp
 * is half a horizon ahead, so each call runs every warp about half a horizon further
 * (docs/simt-interval.md §1). At most IV_HORIZON_MAX: the bins' ring (iv_bins.h) holds a horizon
 * and the longest latency. */
#define IV_HORIZON_DEFAULT 2048u
#define IV_HORIZON_MIN 16u
#define IV_HORIZON_MAX 2048u
#define IV_HORIZON_RAMP_START 256u /* -interval_horizon_ramp: the horizon a launch starts a core at */
/* What the core needs of an instruction, learnt once per pc and CTA slot. */
enum {
  IV_PLAIN = 1u,   /* register-only work, executed without a step record */
  IV_KNOWN = 2u,   /* the entry is filled */
  IV_UNIFORM = 4u, /* its address has no register ([symbol+offset], [offset]): every lane's is one */
  IV_FF_KNOWN = 8u, /* ff_len is filled (-at_sample's fast-forward, docs/simt-interval.md §10) */
  IV_FF_MEM = 16u,  /* a memory instruction not of the shared space: fast-forwarded, its accesses
                     * still go through the memory stage (iv_mem_issue, §10) */
  IV_RUN_NO = 32u   /* -interval_runs: no run of IV_RUN_MIN instructions starts here (§11) */
};

typedef struct iv_pc {
  uint8_t unit;      /* pipeline (SIMT_UNIT_MEM for memory, IV_NO_UNIT for barriers/fences) */
  uint8_t flags;     /* IV_* */
  uint8_t to_unit;   /* issue to unit: IV_ISSUE_TO_UNIT, one less without register reads */
  uint8_t n_deps;    /* registers it reads and writes: regs[0, n_deps) */
  uint8_t n_src;     /* of which it only reads the first n_src (it writes regs[n_src, n_deps)) */
  uint8_t fence;     /* simt_insn_info.fence */
  uint16_t ii;       /* initiation interval on its unit */
  uint32_t lat;      /* unit to writeback */
  uint32_t ready;    /* unit to the cycle a dependent may use the result */
  const uint32_t *regs;
  uint64_t l1i_line; /* the L1I line holding it, + 1 */
  uint8_t l1i_bit;   /* that line's index from the start of the kernel's code (IV_NO_L1I_BIT: ≥ 64) */
  uint8_t mi_space;  /* memory: the space of its last access with a class (IV_NO_SPACE: none yet) */
  uint8_t mi;        /* and that class (SIMT_MI_*, gpgpu_n_*_insn) */
  uint16_t ff_len;   /* fast-forward: instructions from pc on that run with pc's active lanes (to
                      * the end of its basic block or a call, whichever is first; IV_FF_KNOWN) */
  uint32_t s_n;      /* -at_sample: its issues measured in the windows (§10) … */
  uint64_t s_cyc;    /* … and the cycles from each to its warp's next issue */
  uint32_t s_ln;     /* memory: its detailed issues under -at_sample … */
  uint64_t s_lat;    /* … and the cycles from each to its data or acknowledgement */
  uint32_t s_q;      /* its fast-forward cost (ff_cost: s_cyc / s_n in IV_FF_ONE, at least one) … */
  uint32_t s_mlat;   /* … and its mean latency (s_lat / s_ln), kept with the sums */
  /* -interval_runs (§11): a shared-memory access's pipeline cycles and of them its bank-conflict
   * cycles, as its last detailed issue found them (0: none yet), and the run that starts here
   * (its word in the launch's run arena + 1; 0: none built) */
  uint16_t sm_cyc, sm_extra;
  uint16_t run_wait;  /* how far after it the last try found an instruction not known yet (0: 1) */
  uint32_t run;
} iv_pc;

/* -interval_runs (docs/simt-interval.md §11): a run is a straight stretch of IV_RUN_MIN or more
 * instructions of one basic block, each register-only or a shared-memory load or store, all of
 * them issued in detail once before (their iv_pc known). It is timed as one step from a schedule
 * built once per launch and core: the issue offset of each instruction from the run's first issue
 * as one warp alone would issue them (I-buffer, its own dependencies, each unit's latency, a
 * shared access at its remembered bank-conflict cost), for either I-buffer fill at entry (v:
 * ib_n - 1). A register the run reads or writes before it writes it is a live-in: the run starts
 * late by what it lacks at its first touch. A register it writes is a live-out: ready at its last
 * write's offset. The run's issues, unit work, shared-memory cycles and fetches are filled into
 * the bins from its start at its own pace; full bins stretch it. */
#define IV_RUN_MIN 4u
/* A run's shared accesses execute as steps and their bank-conflict costs are checked on its first
 * IV_SM_TRUSTED takes on the core, then on every IV_SM_RECHECK-th; once a check finds another cost
 * than the schedule's, on every take (IV_SM_VARIES). */
#define IV_SM_TRUSTED 4u
#define IV_SM_RECHECK 16u
#define IV_SM_VARIES 0xffffu
typedef struct iv_run_smem {
  uint16_t at;        /* its index in the run */
  uint16_t cyc, extra; /* its pipeline and bank-conflict cycles in the schedule */
} iv_run_smem;
#define IV_RUN_MAX 256u
/* run_build's mark of a live-out a take need not write (register ids are below 2^24) */
#define IV_RUN_REG_DROP 0x80000000u
typedef struct iv_run_reg {
  uint32_t reg;
  uint16_t off[2]; /* live-in: its first touch's issue offset; live-out: its ready offset */
} iv_run_reg;
typedef struct iv_run {
  uint16_t n, n_in, n_out, n_units;
  uint16_t n_out_all;  /* live-outs with those a take need not write (n_out kept first) */
  uint16_t len[2];     /* offset of the warp's next issue after the run */
  uint16_t stall[2];   /* cycles its instructions wait for their registers inside the run */
  uint16_t fetches[2]; /* I-buffer refills */
  uint16_t done[2];    /* latest result (writeback, a shared store's end) */
  uint8_t ib_out[2];   /* ib_n after it */
  uint16_t n_shared;   /* shared-memory accesses (memory-stage dispatches) */
  uint16_t takes;      /* takes while every check found the schedule's costs (IV_SM_VARIES: not) */
  uint8_t n_mi;        /* gpgpu_n_*_insn classes of its shared accesses … */
  uint8_t mi[2];
  uint16_t mi_n[2];    /* … and how many of each */
  uint32_t smem_cycles, smem_extra;
  uint64_t l1i_mask;   /* the L1I lines it spans (iv_pc.l1i_bit) */
  uint64_t last_line;  /* its last instruction's line (iv_pc.l1i_line) */
  uint8_t unit[SIMT_UNIT_MEM];  /* n_units unit kinds … */
  uint32_t work[SIMT_UNIT_MEM]; /* … and their work (initiation intervals) */
  iv_run_reg regs[];   /* n_in live-ins, then n_out_all live-outs, then n_shared iv_run_smem */
} iv_run;

typedef struct iv_warp {
  bool live;          /* holds a warp of a resident CTA until it is finished */
  bool exited;        /* issues nothing more; finished at last_done */
  uint8_t wait;       /* simt_wait: barrier or replayable fault */
  uint8_t ib_n;       /* instructions left in its I-buffer (a fetch brings two) */
  uint32_t pc, cta, index, sched, part;
  uint32_t bar_id, bar_pc;
  uint64_t t;         /* the earliest cycle its next instruction may issue */
  uint64_t last_done; /* latest completion of its instructions (results, store acknowledgements) */
  uint64_t fence_hold;/* the first cycle it may issue after its last fence's scope latency */
  uint64_t fault_since;
  uint64_t line;      /* the L1I line it fetches from, + 1 (0: none) */
  uint64_t l1i_seen;  /* bit i: it looked up L1I line i of its kernel's code (iv_pc.l1i_bit) */
  uint64_t *rr;       /* per register id: the cycle its value is ready */
  /* -at_sample (docs/simt-interval.md §10): its last detailed issue (cycle, pc; NULL: none to
   * measure from) and the fraction of a cycle (/ IV_FF_ONE) its fast-forwarded timeline is past t */
  uint64_t last_issue;
  struct iv_pc *last_p;
  uint32_t ff_frac;
  const simt_program *prog;
  iv_pc *pcs;
  struct iv_launch_pcs *lp; /* the table pcs belongs to */
  struct iv_bins *issue;    /* its scheduler's issue bins */
  struct iv_bins *const *units; /* its sub-core's unit bins, by unit kind */
  func_warp *fw;
  /* -interval_fold (docs/simt-interval.md §13): a follower is timed by its group's leader and
   * kept out of the runnable set (folded); fold_off is its place among the group's warps on its
   * scheduler (its issues that many cycles after the leader's). A leader lists its followers'
   * slots, and counts the group's warps per scheduler (n_on) and the most on one (pace: the
   * cycles between the group's issues). */
  bool folded;
  uint8_t fold_off, n_fol, pace;
  uint8_t n_on[SIMT_MAX_SCHEDULERS];
  uint16_t fol[SIMT_MAX_CTA_WARPS - 1];
} iv_warp;

/* A scheduler's stall estimate (docs/simt-interval.md §7): since `from`, the instructions its
 * warps issued and the cycles they waited, by simt_reason; scaled to the cycles it did not issue
 * in when the core empties. */
typedef struct iv_sched {
  uint64_t from, issued;
  uint64_t gap[SIMT_R_N];
} iv_sched;

/* The per-pc facts of one kernel launch on this core, shared by its resident CTAs (learnt once
 * per launch, not per CTA): `touched` lists the entries filled, cleared when the table moves to
 * another launch. */
typedef struct iv_launch_pcs {
  const func_launch *launch; /* the launch (and its uid) whose facts it holds */
  uint64_t uid;
  bool used;          /* scratch of fit_kernel: a resident CTA uses it */
  iv_pc *pcs;
  uint32_t *touched;
  uint32_t n_touched, cap;
  uint64_t s_n;        /* -at_sample: its pcs' measurements (§10) … */
  uint64_t s_origin;   /* … and the cycle its periods count from (its first CTA's start here) */
  uint64_t *runs;      /* -interval_runs: its runs (iv_run, word-aligned; §11) */
  uint32_t runs_used, runs_cap; /* in words */
} iv_launch_pcs;

typedef struct iv_mem_stats {
  simt_mem_counters req;   /* gpgpu_n_mem_read_global … simt_ldst.atomic_requests */
  uint64_t *port_requests; /* interval_mem_requests: accesses beyond the L1 */
  uint64_t *reordered;     /* interval_l1_reordered_fills: waits on a later-issued fill shortened */
  uint64_t *merge_fail;    /* interval_l1_mshr_merge_fails: reads that found their fill's MSHR entry full */
} iv_mem_stats;

/* A fill in flight in one L1 (docs/simt-interval.md §4, reordered fills and MSHR merges): the
 * line, the time of the miss that fetched it, the ready time the cache was told and the ready time
 * answered; the chunks it fetches and the reads waiting on each (the miss's included). */
typedef struct iv_fill {
  uint64_t line, miss_at, told, ready;
  uint8_t chunks;
  uint8_t waiters[MEM_SECTORS_PER_LINE];
} iv_fill;
/* Per L1: fills by line, direct-mapped (a power of two ≥ the cache's line count); the cache's
 * MSHR merge limit (requests an entry holds per chunk) and whether its chunks are sectors. */
typedef struct iv_fills {
  iv_fill *e;
  uint32_t mask;
  uint32_t max_merge;
  bool sector;
} iv_fills;

/* The last shared-memory access seen at a pc (simt_interval_mem.c: smem_cost). */
#define IV_SMEM_MEMO 64u
typedef struct iv_smem_memo {
  const simt_program *prog;
  uint32_t pc, mask, bytes;
  bool atomic;
  uint8_t halves;         /* its record's addr_halves (0: none) … */
  uint64_t d16;           /* … and lane 16's address less lane 0's, which with them fix off[] */
  uint64_t a0;            /* its first active lane's address (the word alignment must match) */
  uint64_t off[32];       /* each active lane's address less a0 */
  ldst_smem_cost cost;
} iv_smem_memo;

/* Sampled timing (-at_sample DETAIL,PERIOD on interval cores, docs/simt-interval.md §10): a
 * warp's timeline t is in period t / period; its first `detail` cycles are timed in detail, the
 * rest fast-forwarded, each instruction costing what its pc cost the core's warps of its launch
 * in the measured windows (the second half of each detail phase after the launch's first). */
#define IV_FF_ONE 256u       /* fixed point of the fast-forward's cycles per instruction */
#define IV_FF_STRETCH 64u    /* cycles timed in detail (and measured) at a pc not measured yet */
#define IV_FF_MIN_INSNS 64u  /* warp instructions a core measures of a launch before it fast-forwards */
typedef struct iv_sample {
  uint32_t detail, period;    /* 0,0: off */
  uint64_t *ff_insn;          /* iv_sample_ff_warp_insn */
} iv_sample;

typedef struct iv_core {
  simt_core_base base;  /* configuration, ports, CTAs, shared statistics */
  iv_sample sample;
  bool runs;            /* -interval_runs: straight runs timed as one step (§11) */
  bool fold;            /* -interval_fold: a CTA's warps timed as one group (§13) */
  uint32_t horizon;     /* the horizon now: core cycles a warp runs ahead of the advance (§1) */
  uint32_t horizon_max; /* -interval_horizon: what it ramps up to */
  uint32_t ramp_step;   /* -interval_horizon_ramp: core cycles per doubling (0: no ramp) */
  uint64_t ramp_uid;    /* the launch the ramp started for … */
  uint64_t ramp_from;   /* … and the cycle it started */
  uint64_t fold_pending;/* CTA slots whose released warps may form a group (after a barrier) */
  uint64_t take_start;  /* the cycle the last run_take started its run at */
  uint64_t *fold_insns; /* iv_fold_warp_insn: warp instructions timed by a group's leader */
  uint32_t *run_ready, *run_seen; /* scratch of a run's schedule, per register id */
  uint32_t run_scratch_n;
  uint64_t *run_insns;  /* iv_run_warp_insn: warp instructions timed in runs */
  uint64_t next;        /* cached next_event */
  uint64_t now;         /* the cycle of the advance running warps: what the clock ports answer */
  uint64_t busy_from;   /* first cycle of the resident period not counted yet */
  uint64_t *fault_stall, fault_stall_scratch;

  iv_warp *warps;
  uint32_t n_live_warps;
  uint64_t *runnable;   /* bit s of word s / 64: warp slot s may issue (live, not exited, not waiting) */
  iv_launch_pcs *lpcs;  /* max_ctas tables, one per launch with resident CTAs at most */
  uint32_t *lpcs_of;    /* per CTA slot: its launch's table (index into lpcs) */
  uint64_t *rr;
  uint32_t rr_stride;
  simt_heap finish;     /* (cycle, warp slot): exited warps finished then */

  /* throughput: per scheduler its issue slots, per sub-core and unit kind its units */
  iv_bins issue[SIMT_MAX_SCHEDULERS];
  iv_sched sched[SIMT_MAX_SCHEDULERS];
  iv_bins fetch;        /* -gpgpu_inst_fetch_throughput fetches (of two instructions) per cycle */
  iv_bins *unit[SIMT_MAX_SCHEDULERS][SIMT_UNIT_MEM];
  iv_bins *unit_block;  /* where they are: n_parts × SIMT_UNIT_MEM (simtvp_zalloc) */

  /* memory (simt_interval_mem.c) */
  iv_bins l1_port;      /* one access through the L1 port per cycle (per L1D bank) */
  iv_bins data_port;    /* the L1D data array: a hit holds it size / port width cycles */
  iv_bins fill_port;    /* the L1 fill port: a fill holds it sectors × 32 / port width cycles */
  iv_bins response;     /* the response buffer hands the core one reply per cycle */
  iv_bins miss_queue;   /* requests leave the core one per cycle */
  iv_bins dispatch;     /* -gpgpu_mem_unit_ports instructions in the memory stage at once: each
                         * holds its slot until its accesses have taken the L1 port */
  uint32_t l1d_port_bytes;
  bool l1d_data_port;   /* the data port limits L1D hits: one bank only (the CA unit's rule; banks
                         * are the limit otherwise, l1_port) */
  iv_bins smem;         /* the shared-memory pipeline: one bank phase per cycle */
  ldst_smem_geometry smem_geo;
  uint16_t *bank_count; /* scratch for ldst_smem_cost_of */
  iv_smem_memo smem_memo[IV_SMEM_MEMO];
  cache *l1d, *l1c, *l1t;
  iv_fills fills[3];    /* per L1 (l1d, l1c, l1t): the fills in flight */
  uint64_t hold;        /* scratch of iv_mem_issue: the memory stage is held until this cycle (an
                         * access that failed to merge waits there for its fill) */
  uint32_t l1d_block, l1c_block, l1t_block;
  uint64_t *param_of;   /* per warp slot: where its kernel parameters are cached (L1C) */
  ldst_range *ranges;   /* scratch: LDST_MAX_RANGES */
  ldst_access *acc;     /* scratch: LDST_MAX_ACCESSES */
  iv_mem_stats ms;
  uint64_t *smem_conflicts;
} iv_core;

static inline uint64_t iv_max(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t iv_min(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* iv_bins_find(&c->dispatch, m, 1), also giving the bin's counter (NULL: not tracked), so that
 * a memory instruction books its held cycles there without finding the bin again. */
static inline uint64_t iv_dispatch_find(iv_core *c, uint64_t m, uint32_t **used) {
  for (;;) {
    uint32_t *u = iv_bins_slot(&c->dispatch, m);
    if (!u || *u == 0 || *u + 1 <= c->dispatch.cap) {
      *used = u;
      return m;
    }
    m = (m / IV_BIN + 1) * IV_BIN;
  }
}

/* The usual shared-memory instruction of a tiled kernel, inline in the core's step
 * (docs/simt-interval.md §4): a full warp's shared-only access whose record has half-warp
 * patterns (func_step.addr_halves) the last warp at its pc had too, with lane 16 at the same
 * offset from lane 0 and the first word aligned alike — then every lane sits where the last
 * warp's did and its remembered bank-conflict cost is the scan's answer. Booked as iv_mem_issue
 * books it; *done its data's (or acknowledgement's) cycle. false (nothing booked): iv_mem_issue. */
static inline __attribute__((always_inline)) bool iv_mem_shared_fast(iv_core *c, const simt_program *prog,
                                                                    const func_step *st, uint64_t m, uint64_t *done) {
  if (st->space != PTX_SPACE_SHARED || !st->addr_halves) return false;
  const iv_smem_memo *e = &c->smem_memo[st->pc % IV_SMEM_MEMO];
  uint64_t a0 = st->addr[0];
  /* (equal nonzero halves: both records are full warps' 4-byte accesses) */
  if (e->halves != st->addr_halves || e->pc != st->pc || e->prog != prog || e->atomic != st->is_atomic ||
      st->addr[16] - a0 != e->d16 || ((e->a0 ^ a0) & ((1u << c->smem_geo.word_shift) - 1u)))
    return false;
  uint32_t *slot_used;
  m = iv_dispatch_find(c, m, &slot_used); /* a free slot of the memory stage */
  ldst_smem_cost cost = e->cost;
  *c->smem_conflicts += cost.cycles - cost.phases;
  uint64_t start = iv_bins_take(&c->smem, m + 1, cost.cycles), end = start + cost.cycles - 1;
  uint64_t held = iv_max(m + 1, end);
  *done = iv_max(m + 1, st->is_load || st->is_atomic ? end + c->base.cfg.ldst.smem_latency : end);
  if (slot_used) *slot_used += (uint32_t)(held - m > IV_BIN ? IV_BIN : held - m);
  return true;
}

/* simt_interval_mem.c */
simtvp_status iv_mem_init(iv_core *c, simtvp_diag *diag);
void iv_mem_free(iv_core *c);
/* Memory instruction st of warp slot `slot` enters the memory stage at m (uniform: its pc has
 * IV_UNIFORM): the cycle its data (a
 * load's, an atomic's) or its acknowledgement (a store's) is back. */
uint64_t iv_mem_issue(iv_core *c, uint32_t slot, const func_step *st, bool uniform, uint64_t m);
uint32_t iv_mem_flush(iv_core *c, uint64_t now);
/* The shared-memory pipeline cost of shared access st (a full record) as the memory stage finds
 * it; nothing booked (-interval_runs' check of a run's shared accesses, §11). */
ldst_smem_cost iv_mem_smem_cost(iv_core *c, uint32_t slot, const func_step *st);
/* The warp's fetch at pc p needs a new L1I line at cycle t: the cycle its instructions are there
 * (t on a hit; a miss waits for the fill through the interval port). */
uint64_t iv_mem_fetch(iv_core *c, iv_warp *w, const iv_pc *p, uint64_t t);

#endif /* SIMTVP_SIMT_INTERVAL_INTERNAL_H */
