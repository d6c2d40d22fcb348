/* func_internal — private structures of the functional engine shared by its translation units:
 * the execution plan (fx_insn per PTX instruction, fx_func per function), warp/CTA/launch state,
 * and the helpers instruction handlers use. Nothing here is visible outside models/func.
 *
 * Execution plan. Every instruction becomes an fx_insn with a handler `fn` chosen at load time and
 * operand offsets `o[]` into the warp's register frame. A register frame holds, for one function
 * activation: predicate words (one 32-bit lane mask per predicate), 32-bit rows (32 lanes × 4
 * bytes), 64-bit rows (32 × 8), 128-bit rows (32 × 16), then read-only constant rows: every
 * immediate operand is materialised once per frame as a row holding the value in all 32 lanes, so
 * handlers never distinguish registers from immediates. The frame also holds a true-predicate word
 * (FX_PT) that unguarded instructions use as their guard, so the guard test is branch-free.
 *
 * Handler contract: fn(w, in, m) executes `in` for the lanes in m (= active lanes whose guard is
 * true). Before the call the dispatcher has advanced w->pc to the next instruction; control-flow
 * handlers overwrite it and manipulate the SIMT stack. A handler that faults calls fx_fault (which
 * sets w->stop). Handlers never allocate.
 *
 * Families register their builders in the dispatch table (fx_builder per opcode) from their own
 * files: exec_int.c, exec_float.c, exec_cvt.c, exec_mem.c, exec_atom.c, exec_ctrl.c, exec_warp.c,
 * exec_sync.c, exec_call.c; textures/surfaces and wmma plug in the same way (exec_tex.c …). */
#ifndef SIMTVP_FUNC_INTERNAL_H
#define SIMTVP_FUNC_INTERNAL_H

#include <stdio.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "devmem.h"
#include "func.h"

#define FX_FULL 0xffffffffu
#define FX_NONE UINT32_MAX

/* Row sizes of the register classes. */
#define FX_ROW32 (32u * 4u)
#define FX_ROW64 (32u * 8u)
#define FX_ROW128 (32u * 16u)

/* A kernel's parameter space: CUDA's largest is 32764 bytes; the engine takes up to 1 MiB (a
 * program image may claim any size; func_program_load refuses more). */
#define FX_MAX_KERNEL_PARAMS (1u << 20)

/* Tag on a param-space address that designates the thread's own .param frame (function and
 * call-site parameters, which live in local memory) rather than the kernel parameter buffer. */
#define FX_PARAM_LOCAL_TAG (1ull << 62)

typedef struct fx_insn fx_insn;
typedef struct func_warp fx_warp;
typedef struct fx_func fx_func;
typedef void (*fx_fn)(fx_warp *w, const fx_insn *in, uint32_t m);

/* Instruction classes reported in step records (func_step_kind values). */
enum {
  FX_C_ALU = FUNC_STEP_ALU,
  FX_C_SFU = FUNC_STEP_SFU,
  FX_C_MEM = FUNC_STEP_MEM,
  FX_C_BRANCH = FUNC_STEP_BRANCH,
  FX_C_CALL = FUNC_STEP_CALL,
  FX_C_RET = FUNC_STEP_RET,
  FX_C_BAR = FUNC_STEP_BARRIER,
  FX_C_FENCE = FUNC_STEP_FENCE,
  FX_C_EXIT = FUNC_STEP_EXIT,
  FX_C_NOP = FUNC_STEP_NOP
};

/* Address modes of memory operands (fx_insn.am). */
enum {
  FX_AM_IMM = 0, /* addr = imm (symbol address + offset, uniform) */
  FX_AM_R64,     /* addr = r64[lane] + imm */
  FX_AM_R32,     /* addr = r32[lane] + imm (zero-extended) */
  FX_AM_FP,      /* addr = frame pointer + imm (the function's local/param frame, uniform) */
  FX_AM_FP_R64   /* unused placeholder for frame-relative register addresses */
};

/* Execution spaces of memory operands (fx_insn.space): ptx_space values, plus: */
#define FX_SPACE_KPARAM PTX_SPACE_PARAM /* kernel parameter buffer */
#define FX_SPACE_TPARAM 200             /* param address from a register: tagged local or kernel */

struct fx_insn {
  fx_fn fn;
  uint32_t o[5];   /* operand offsets in the frame; o[0] is the destination when there is one */
  uint32_t guard;  /* frame offset of the guard predicate word (FX_PT offset when unguarded) */
  uint32_t gneg;   /* 0, or FX_FULL for @!p */
  uint8_t cls;     /* FX_C_* */
  uint8_t space;   /* memory: execution space */
  uint8_t am;      /* memory: FX_AM_* */
  uint8_t size;    /* memory: element bytes; others: family-specific */
  uint8_t vec;     /* memory: vector length */
  uint8_t type;    /* ptx_type of the operation */
  uint8_t type2;
  uint8_t flags;   /* family-specific */
  uint8_t plain;   /* register-only: func_warp_run_plain may run it (fx_insn_is_plain) */
  uint8_t nosync;  /* touches no device memory: the translation cache need not be synced before it */
  uint8_t clock;   /* reads %clock or %globaltimer (by default the warp instruction count) */
  uint8_t run;     /* FX_RUN_* bits: what func_warp_run must do besides calling fn (0 for
                      register-only work and shared/local/param ld/st: nothing) */
  uint32_t aux;    /* family-specific (branch target, barrier id …) */
  uint32_t aux2;
  uint64_t imm;    /* memory: address offset; others: family-specific */
  uint64_t mods;   /* PTX_MOD_* of the instruction */
  const ptx_insn *src;
  const void *ext; /* family-specific data (vector operand lists, call descriptions …) */
};

/* fx_insn.run bits, fixed at load time so func_warp_run tests one byte per instruction. */
enum {
  FX_RUN_RECORD = 1, /* bar or ret: executed with a step record (a barrier ends the run) */
  FX_RUN_SYNC = 2,   /* may touch device memory: devmem_tlb_sync first (!nosync) */
  FX_RUN_CLOCK = 4   /* reads the warp instruction count (clock) */
};

/* Built-in implementations of extern functions nvcc calls (no PTX body). */
enum { FX_BI_NONE = 0, FX_BI_VPRINTF, FX_BI_MALLOC, FX_BI_FREE, FX_BI_ASSERTFAIL };

struct fx_func {
  uint32_t index;
  const ptx_function *pf;
  bool is_entry, has_body, built;
  uint8_t builtin;
  /* register frame layout (bytes) */
  uint32_t off_pred, off_b32, off_b64, off_b128, off_const, frame_bytes;
  /* The row of each 32-bit and 64-bit register (NULL: its index). Registers live only inside one
   * basic block share rows (share_rows in func_load.c, docs/func.md "Register frames"). */
  uint32_t *row32, *row64;
  uint32_t off_pt; /* the always-true predicate word */
  /* image of [off_const, frame_bytes): constant rows (and FX_PT), copied when a frame starts */
  uint8_t *const_img;
  uint32_t n_const32, n_const64, cap_const32, cap_const64;
  uint64_t *const32_val, *const64_val; /* during building: values of the constant rows */
  /* local-memory frame: [params and return values][.local variables][call-site params] */
  uint32_t lm_depot, lm_callp, lm_bytes;
  uint32_t n_params, n_rets;
  uint32_t *param_off, *param_size; /* params then return values, in declaration order */
  /* shared memory: base of the function's own .shared variables in the CTA's shared memory */
  uint32_t shared_base, shared_bytes;
  /* Registers an activation must start with zeroed (fx_find_unwritten_reads): byte ranges
   * (offset, bytes) of the register area [0, off_const), adjacent rows merged. Every other
   * register is written in full by each thread before that thread reads it, so what an
   * activation finds there (a previous CTA's values) can never be observed. */
  uint32_t *zero_ranges;
  uint32_t n_zero_ranges;
};

/* Byte offset in a warp's frame of register `index` of class `rclass` (PTX_RC_*) of f. */
static inline uint32_t fx_reg_off(const fx_func *f, uint32_t rclass, uint32_t index) {
  switch (rclass) {
  case PTX_RC_PRED: return f->off_pred + 4u * index;
  case PTX_RC_B32: return f->off_b32 + FX_ROW32 * (f->row32 ? f->row32[index] : index);
  case PTX_RC_B64: return f->off_b64 + FX_ROW64 * (f->row64 ? f->row64[index] : index);
  default: return f->off_b128 + FX_ROW128 * index;
  }
}

/* A call instruction's description (fx_insn.ext of call). */
typedef struct fx_call_arg {
  uint8_t kind;     /* 0 = frame param symbol (caller call area), 1 = register row, 2 = constant row */
  uint8_t bytes;    /* size copied */
  uint8_t wide;     /* register row is 64-bit */
  uint32_t off;     /* kind 0: offset in the caller's local frame; 1/2: frame offset of the row */
} fx_call_arg;
typedef struct fx_call {
  fx_func *target;         /* direct call; NULL for indirect (target register in o[1]) */
  uint32_t n_args, n_rets;
  fx_call_arg *args, *rets;
} fx_call;

/* SIMT stack entry (GPGPU-Sim 3.x: pc, reconvergence pc, active mask; plus call frames). */
enum { FX_SE_NORMAL = 0, FX_SE_CALL = 1 };
typedef struct fx_sentry {
  uint32_t pc, rpc, mask, kind;
  /* kind == CALL: what to restore when every lane of the call has returned or exited */
  const fx_insn *call;
  fx_func *caller;
  uint32_t call_mask;
  size_t saved_rs_top;
  uint64_t saved_fp;
} fx_sentry;

typedef struct fx_barrier {
  uint32_t arrived;    /* warps (bit per warp of the CTA) that arrived in this phase */
  uint32_t waiting;    /* warps blocked at it (arrived with .sync/.red) */
  uint32_t threads;    /* threads counted (32 per arriving warp) */
  uint32_t expected;   /* thread count of this phase, 0 = all live warps */
  bool complete;       /* completed, waiting warps not yet released (per-warp mode) */
  uint32_t red_popc;   /* bar.red accumulators of the current phase */
  bool red_and, red_or;
  uint32_t res_popc;   /* bar.red results of the completed phase (delivered at release) */
  bool res_and, res_or;
} fx_barrier;

/* A thread block cluster (sm_90): the CTAs that run together, reach each other's shared memory
 * (shared::cluster addresses, see FX_CLUSTER_RANK_SHIFT) and meet at barrier.cluster. */
typedef struct fx_cluster {
  uint64_t id;             /* linear cluster index in the launch */
  uint32_t n;              /* CTAs in the cluster */
  uint32_t attached, finished; /* per-warp mode: CTAs started and finished so far */
  struct func_cta *cta[FUNC_MAX_CLUSTER_CTAS]; /* by rank; NULL while not resident */
  /* barrier.cluster: warps arrive per phase; a phase completes when every warp of the cluster that
   * has not exited has arrived */
  uint32_t bar_phase;      /* phases completed */
  uint32_t bar_arrived;    /* warps arrived in the current phase */
  uint32_t live_warps;     /* warps of the cluster that have not exited */
} fx_cluster;

/* shared::cluster addresses: the low 24 bits are an offset in a CTA's shared memory; bits 24 and
 * up hold rank + 1 of the CTA in the cluster, or 0 for the executing CTA (so a shared::cta
 * address is a valid shared::cluster address of its own CTA, as the ISA says). mapa builds them. */
#define FX_CLUSTER_RANK_SHIFT 24
#define FX_CLUSTER_OFFSET_MASK ((1u << FX_CLUSTER_RANK_SHIFT) - 1u)

typedef struct fx_counts {
  uint64_t warp_insns, thread_insns;
  uint64_t loads[PTX_SPACE_COUNT], stores[PTX_SPACE_COUNT], atomics[PTX_SPACE_COUNT];
  uint64_t ctas_done;
  func_pc_count *pc;       /* per instruction index (n_insns + 1: the sentinel), NULL = not counted */
} fx_counts;

struct func_warp {
  /* hot state first */
  uint8_t *regs;           /* current register frame */
  uint32_t pc, active, rpc, nactive; /* mirror of the SIMT stack top */
  bool stop;               /* leave the run loop after this instruction */
  uint8_t state;           /* func_warp_state */
  uint8_t replay_access;   /* FUNC_WARP_FAULT_WAIT: mmu_access of the access that waits */
  uint8_t replay_kind;     /* and the translator's fault number */
  uint32_t cc;             /* carry flags (CC.CF) as a lane mask */
  uint64_t fp;             /* local-memory frame pointer of the current function */
  const fx_insn *code;
  fx_func *fn;             /* current function */
  func_cta *cta;
  func_launch *l;
  struct fx_counts *counts; /* where this warp counts (the launch's, or a worker thread's) */
  devmem_tlb *tlb;          /* translation cache of the host thread running it */
  func_step *rec;          /* step record being filled, or NULL */
  bool rec_lean;           /* and it is func_warp_step_lean's (addresses of patterned halves:
                              first lanes only) */
  uint64_t replay_va;      /* FUNC_WARP_FAULT_WAIT: the address whose page is not there */
  uint64_t *replay_pages;  /* and every distinct page of the instruction that faulted replayably
                              (32 slots, allocated at the first such fault) */
  uint32_t n_replay_pages;
  uint8_t *local;          /* local memory of lane 0; lane i at local + i * local_stride */
  uint32_t local_stride;
  uint32_t index;          /* warp index in the CTA */
  uint32_t valid;          /* lanes that exist */
  uint32_t exited;
  /* SIMT stack (and the register stack below) start inside their CTA's block (func_cta.block)
   * and move to an allocation of their own when they grow (stack_heap, rs_heap) */
  fx_sentry *stack;
  uint32_t depth, cap;
  bool stack_heap, rs_heap;
  uint32_t call_depth;
  /* register stack: frames of the call chain, current at rs + rs_top */
  uint8_t *rs;
  size_t rs_cap, rs_top;
  /* barrier.cluster: 1 + the cluster barrier phase this warp last arrived in (0: none) */
  uint32_t cbar_arrived;
  /* barrier wait */
  uint32_t bar_id;
  uint32_t bar_dest;       /* bar.red destination offset, FX_NONE when none */
  uint8_t bar_red;         /* ptx_bar_mode of the waiting bar.red */
  uint32_t bar_mask;       /* lanes that executed the bar.red */
  /* func_warp_set_time_ahead: how far this warp runs ahead of what the clock ports answer */
  int64_t ahead_cycles, ahead_ns;
  /* thread ids */
  uint32_t tid[3][32];
};

struct func_cta {
  func_launch *l;
  uint32_t ctaid[3];
  uint32_t sm, warp_slot;
  uint32_t n_threads, n_warps;
  uint32_t live;           /* warps not done (bit per warp) */
  uint8_t *smem;
  uint32_t smem_bytes;
  void *block;             /* one allocation: warps, their first SIMT and register stacks, smem */
  uint8_t *local;
  uint32_t local_per_thread;
  fx_warp *warps;
  fx_barrier bar[FUNC_NUM_BARRIERS];
  bool started;
  struct fx_counts *counts; /* counts and translation cache of the host thread running the CTA */
  devmem_tlb *tlb;
  fx_cluster *cluster;     /* the cluster it belongs to (one of one CTA without clusters) */
  uint32_t rank;           /* %cluster_ctarank */
  fx_cluster own;          /* the cluster of a per-warp CTA launched without clusters */
  func_cta *next_free;     /* the launch's list of finished CTAs kept for reuse */
};

struct func_program {
  func_engine *e;
  const ptx_module *m;
  func_placement pl;
  fx_insn *code;           /* module-wide, indexed by pc */
  fx_func *funcs;
  uint64_t *sym_addr;      /* module-scope global/const: device address; shared: shared offset;
                              kernel params: buffer offset; function-scope local/param: frame
                              offset (add fp) */
  uint32_t shared_module_bytes; /* module-scope static .shared, then function frames follow */
  uint32_t shared_funcs_bytes;  /* .shared of non-entry functions (placed after every entry's) */
  void **allocs;           /* ext data to free */
  uint32_t n_allocs, cap_allocs;
  stats_code *line_stats;  /* per-instruction statistics (pc_counts with a sink), or NULL */
  fx_fn *mc_inner;         /* memcheck: the handler each checked instruction wraps (else NULL) */
  uint32_t *plain_run;     /* per pc: register-only instructions from it to the end of its basic
                              block (func_program_plain_run; n_insns + 1 entries) */
};

struct func_launch {
  func_engine *e;
  func_program *p;
  fx_func *kf;
  uint32_t grid[3], block[3];
  uint32_t dynamic_smem;
  uint64_t grid_id, launch_uid;
  uint8_t *params;
  uint32_t param_bytes;
  uint32_t smem_bytes, dyn_smem_base;
  uint32_t local_per_thread;
  uint32_t threads_per_cta, warps_per_cta;
  uint64_t n_ctas, next_cta;  /* functional mode hands out clusters: next_cta counts clusters */
  uint32_t cluster[3], cluster_size; /* CTAs per cluster per dimension, and in all */
  bool explicit_cluster;       /* %is_explicit_cluster */
  uint64_t n_clusters;         /* clusters in the grid */
  fx_cluster **active;         /* per-warp mode: clusters with resident CTAs */
  uint32_t n_active, cap_active;
  bool auto_release;       /* functional mode: barriers release as soon as they complete */
  bool replay_ok;          /* replayable faults make warps wait (func_launch_allow_replay) */
  bool debug_step;         /* the engine's debugger has before/after hooks: every step goes to them */
  fx_counts counts, flushed;
  simtvp_status fault;
  simtvp_diag fault_diag;
  devmem_xlate xlate;      /* the launch's address translation (page == NULL: none) */
  devmem_tlb tlb;
  func_cta **pool;         /* a cluster's CTAs, reused by func_launch_run */
  fx_cluster pool_cluster;
  func_cta *free_ctas;     /* CTAs that finished (func_cta_finish), reused by func_cta_start: a
                              launch allocates only as many CTAs as ever ran at once */
  uint32_t live_ctas;
  void *lock;              /* pthread mutex while several host threads run the launch, else NULL */
  /* func_config.sm_threads: per-SM counts and translation caches (n_sms entries each); the
   * launch's `counts` are their sum as of the last flush. */
  fx_counts *sm_counts;
  devmem_tlb *sm_tlb;
  func_cta **sm_free;      /* finished CTAs kept for reuse, per SM */
  uint32_t n_sm;
  uint32_t live_index;     /* in the engine's list of live launches */
};

struct func_engine {
  func_config cfg;
  func_ports ports;
  bool zero_frames; /* a debugger is attached: new register frames are zeroed whole (it may read
                       any register, fx_frame_clear) */
  devmem *mem;
  stats *st;
  /* stats counters (point at `sink` when there is no stats sink) */
  uint64_t *c_warp_insns, *c_thread_insns, *c_ctas;
  uint64_t *c_ld[PTX_SPACE_COUNT], *c_st[PTX_SPACE_COUNT], *c_atom[PTX_SPACE_COUNT];
  uint64_t sink;
  /* device heap (malloc/free): blocks sorted by address */
  struct fx_heap_block *heap;
  uint32_t heap_n, heap_cap;
  char *print_buf;
  size_t print_cap;
  /* func_config.sm_threads: the engine-wide lock (printf buffer, heap, faults) and the live
   * launches, flushed together at every launch's creation and end. */
  void *sm_lock;
  func_launch **live;
  uint32_t n_live, cap_live;
};

/* ---- register access ------------------------------------------------------------------------ */

#define FX_R32(w, off) ((uint32_t *)((w)->regs + (off)))
#define FX_R64(w, off) ((uint64_t *)((w)->regs + (off)))
#define FX_P(w, off) ((uint32_t *)((w)->regs + (off)))

/* Writes r into the lanes of m of row d. */
static inline void fx_put32(uint32_t *d, const uint32_t *r, uint32_t m) {
  if (m == FX_FULL) {
    memcpy(d, r, FX_ROW32);
  } else {
    for (unsigned i = 0; i < 32; i++) {
      uint32_t sel = 0u - ((m >> i) & 1u);
      d[i] = (r[i] & sel) | (d[i] & ~sel);
    }
  }
}
static inline void fx_put64(uint64_t *d, const uint64_t *r, uint32_t m) {
  if (m == FX_FULL) {
    memcpy(d, r, FX_ROW64);
  } else {
    for (unsigned i = 0; i < 32; i++) {
      uint64_t sel = 0ull - (uint64_t)((m >> i) & 1u);
      d[i] = (r[i] & sel) | (d[i] & ~sel);
    }
  }
}
/* Whether a handler may compute a full warp straight into its destination row (frame offset d,
 * db bytes) while reading source row s (sb bytes): the same row at the same width (lane i reads
 * its element before it writes it, in vector chunks too) or rows that do not overlap. Otherwise it
 * computes into a temporary and copies (fx_put64): what it always did. Worth it for 64-bit rows,
 * where the copy is 32 loads and stores. */
static inline bool fx_apart(uint32_t d, uint32_t db, uint32_t s, uint32_t sb) {
  return (d == s && db == sb) || d + db <= s || s + sb <= d;
}

/* Writes v into the lanes of m of row d. */
static inline void fx_fill32(uint32_t *d, uint32_t v, uint32_t m) {
  if (m == FX_FULL) {
    for (unsigned i = 0; i < 32; i++) d[i] = v;
  } else {
    for (unsigned i = 0; i < 32; i++) {
      uint32_t sel = 0u - ((m >> i) & 1u);
      d[i] = (v & sel) | (d[i] & ~sel);
    }
  }
}
static inline void fx_fill64(uint64_t *d, uint64_t v, uint32_t m) {
  if (m == FX_FULL) {
    for (unsigned i = 0; i < 32; i++) d[i] = v;
  } else {
    for (unsigned i = 0; i < 32; i++) {
      uint64_t sel = 0ull - (uint64_t)((m >> i) & 1u);
      d[i] = (v & sel) | (d[i] & ~sel);
    }
  }
}
static inline void fx_putp(uint32_t *p, uint32_t r, uint32_t m) { *p = (*p & ~m) | (r & m); }

/* The lane mask of 32 per-lane flags, each 0 or all ones (-1): flag i becomes bit i. Comparison
 * handlers fill the flags in a loop the compiler vectorises (compares give all-ones lanes) and
 * pack them here: on x86-64 two saturating packs and a byte movemask per 16 lanes, instead of a
 * shift and an or per lane. */
static inline uint32_t fx_lane_mask(const int32_t *t) {
#if defined(__SSE2__)
  uint32_t r = 0;
  for (unsigned k = 0; k < 2; k++) {
    const int32_t *q = t + 16 * k;
    __m128i a = _mm_loadu_si128((const __m128i *)q), b = _mm_loadu_si128((const __m128i *)(q + 4));
    __m128i c = _mm_loadu_si128((const __m128i *)(q + 8)), d = _mm_loadu_si128((const __m128i *)(q + 12));
    r |= (uint32_t)_mm_movemask_epi8(_mm_packs_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d))) << (16 * k);
  }
  return r;
#else
  uint32_t r = 0;
  for (unsigned i = 0; i < 32; i++) r |= ((uint32_t)t[i] & 1u) << i;
  return r;
#endif
}

/* Four 32-bit or two 64-bit lanes (GCC/Clang vector extensions: SSE2 on x86-64), for the few hot
 * checks the compiler does not vectorise well by itself. Loads and stores go through memcpy
 * (rows need not be 16-byte aligned). */
typedef uint32_t fx_v4u32 __attribute__((vector_size(16)));
typedef uint64_t fx_v2u64 __attribute__((vector_size(16)));
static inline fx_v4u32 fx_v4_load(const uint32_t *p) {
  fx_v4u32 v;
  memcpy(&v, p, sizeof v);
  return v;
}
/* Whether every lane of v is zero. */
static inline bool fx_v4_zero(fx_v4u32 v) {
  uint64_t a, b;
  memcpy(&a, &v, 8);
  memcpy(&b, (const char *)&v + 8, 8);
  return !(a | b);
}

/* Handlers compiled a second time for hosts with AVX2 (x86-64, GCC/Clang): the same source, lane
 * loops 8 × 32 or 4 × 64 bits wide instead of SSE2's 4 or 2, and SSE4.1's 32-bit multiply. A
 * builder picks the variant once, at load time (fx_host_avx2); both compute every lane exactly
 * alike (integer arithmetic and copies only), so results and statistics do not depend on the host.
 * Built with SIMTVP_HOST_SIMD=OFF (SIMTVP_NO_HOST_SIMD) the builders never pick them: how a host
 * without AVX2 runs, and what the release CI stage tests. */
#if defined(__x86_64__) && defined(__GNUC__)
#define FX_AVX2 __attribute__((target("avx2")))
static inline bool fx_host_avx2(void) {
#if defined(SIMTVP_NO_HOST_SIMD)
  return false;
#else
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
#endif
}
#endif

/* Lane loop over the set bits of m. */
#define FX_FOR_LANES(i, m) \
  for (uint32_t fx_mm_ = (m), i; fx_mm_ && ((i = (uint32_t)__builtin_ctz(fx_mm_)), 1); fx_mm_ &= fx_mm_ - 1)

/* ---- faults --------------------------------------------------------------------------------- */

/* Stops the launch with a fault at (w, in, lane): fills the launch's diag with kernel, CTA,
 * thread, PC, file:line (and address when has_addr), sets w->stop and the warp FAULTED. */
void fx_fault(fx_warp *w, const fx_insn *in, uint32_t lane, simtvp_status status, bool has_addr,
              uint64_t addr, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;

/* ---- memory checker (memcheck.c) ---------------------------------------------------------- */

/* Wraps the handler of every ld/ldu/st/atom/red of p with the checker (func_config.memcheck). */
simtvp_status fx_memcheck_wrap(func_program *p, simtvp_diag *diag);

/* ---- SIMT stack ------------------------------------------------------------------------------ */

void fx_stack_load_top(fx_warp *w);      /* mirror the top entry into w->pc/active/rpc */
/* Handler of the sentinel instruction after the last one (pc == n_insns): a warp whose lanes are
 * parked at a "reconverge at function exit" entry got there with lanes still active. */
void fx_lost(fx_warp *w, const fx_insn *in, uint32_t m);
bool fx_stack_push(fx_warp *w, fx_sentry e); /* false (fault set) when out of host memory */
void fx_stack_reconverge(fx_warp *w);    /* pop entries whose pc reached their rpc */
/* Lanes in `lanes` leave every entry from the top down to entry `down_to`; empty entries are
 * popped (finishing calls). Then the top is mirrored. */
void fx_stack_remove_lanes(fx_warp *w, uint32_t lanes, uint32_t down_to);
void fx_warp_exit_lanes(fx_warp *w, uint32_t lanes);
/* Starts a function activation (register frame + local frame) for the lanes of `mask`. */
bool fx_enter_function(fx_warp *w, const fx_insn *in, fx_func *callee, uint32_t mask);
void fx_finish_call(fx_warp *w, const fx_sentry *e);

/* ---- barriers -------------------------------------------------------------------------------- */
bool fx_barrier_check(func_cta *cta, uint32_t id); /* true when this call completed it */
void fx_barrier_release(func_cta *cta, uint32_t id);
void fx_cta_warp_done(func_cta *cta, fx_warp *w);

/* ---- clusters ---------------------------------------------------------------------------------- */

/* The CTA a shared address of the executing CTA names (its own, or a rank's through a shared::cluster
 * address) and the offset in it; NULL when the rank is outside the cluster or not resident. */
func_cta *fx_cluster_cta(const fx_warp *w, uint64_t shared_addr, uint64_t *offset);
void fx_cluster_arrive(fx_warp *w);             /* barrier.cluster.arrive of the warp */
bool fx_cluster_wait_done(const fx_warp *w);    /* its phase has completed */

/* ---- memory ----------------------------------------------------------------------------------- */

/* Computes the per-lane addresses of a memory operand (address mode in->am) for lanes m. */
void fx_addr_gen(const fx_warp *w, const fx_insn *in, uint32_t m, uint64_t *addr);
/* Resolves each lane's address in `space` (an execution space, generic included) to a host
 * pointer, checking mapping, bounds and alignment (align bytes). Fills the step record. false
 * (fault raised) on any bad lane. */
bool fx_resolve(fx_warp *w, const fx_insn *in, uint32_t m, const uint64_t *addr, uint32_t space,
                uint32_t bytes, uint32_t align, bool write, uint8_t **host);
/* Reads/writes device memory at a global (virtual) address through the warp's translation cache,
 * page by page (slow paths: printf strings, texture descriptors and texels). false when a page
 * does not translate; *bad gets the first such address. */
bool fx_dev_read(fx_warp *w, uint64_t addr, void *dst, uint64_t n, uint64_t *bad);
bool fx_dev_write(fx_warp *w, uint64_t addr, const void *src, uint64_t n, uint64_t *bad);
/* Why a global address does not translate (the translator's description, or the store's). */
void fx_describe_unmapped(fx_warp *w, uint64_t addr, bool write, char *buf, size_t n);
/* The last translation failed replayably and the launch lets warps wait: the warp stops before
 * instruction `in` (nothing of it done) in FUNC_WARP_FAULT_WAIT; true when it does. */
bool fx_replay_wait(fx_warp *w, const fx_insn *in, uint64_t addr, bool write);
/* Thread local memory of lane i. */
static inline uint8_t *fx_lane_local(const fx_warp *w, uint32_t lane) {
  return w->local + (size_t)lane * w->local_stride;
}
/* Reads/writes of a thread's local memory at a local address (bounds-checked, fault on error). */
bool fx_local_check(fx_warp *w, const fx_insn *in, uint32_t lane, uint64_t addr, uint32_t bytes);

/* Reads `bytes` (1..8) little-endian from p, sign- or zero-extended to 64 bits. */
static inline uint64_t fx_load_le(const uint8_t *p, uint32_t bytes, bool sign) {
  uint64_t v = 0;
  memcpy(&v, p, bytes);
  if (sign && bytes < 8) {
    uint32_t sh = 64u - bytes * 8u;
    v = (uint64_t)((int64_t)(v << sh) >> sh);
  }
  return v;
}

/* Generic address resolution of one address: returns the space and sets *off. */
static inline uint32_t fx_generic_space(uint64_t g, uint64_t *off) {
  if (g - FUNC_WINDOW_LO < FUNC_WINDOW_HI - FUNC_WINDOW_LO) {
    if (g < FUNC_WINDOW_LOCAL) { *off = g - FUNC_WINDOW_SHARED; return PTX_SPACE_SHARED; }
    if (g < FUNC_WINDOW_PARAM) { *off = g - FUNC_WINDOW_LOCAL; return PTX_SPACE_LOCAL; }
    *off = g - FUNC_WINDOW_PARAM;
    return PTX_SPACE_PARAM;
  }
  *off = g;
  return PTX_SPACE_GLOBAL;
}

/* ---- building --------------------------------------------------------------------------------- */

/* What a builder gets: the program, the function, the instruction. Builders fill `out` (fn, o[],
 * …) and return SIMTVP_OK, or fail with a diag naming the instruction. */
typedef struct fx_build {
  func_program *p;
  fx_func *f;
  const ptx_insn *pi;
  uint32_t pc;
  fx_insn *out;
  simtvp_diag *diag;
} fx_build;
typedef simtvp_status (*fx_builder)(fx_build *b);

/* Operand resolution for builders. `width` is the operand's value width in bits (8..128); an
 * immediate is converted to `type` (its PTX type) and materialised as a constant row. */
simtvp_status fx_src(fx_build *b, uint32_t opnd, ptx_type type, uint32_t *off);
simtvp_status fx_src_op(fx_build *b, const ptx_operand *op, ptx_type type, uint32_t *off);
simtvp_status fx_dst(fx_build *b, uint32_t opnd, uint32_t *off);
simtvp_status fx_dst_op(fx_build *b, const ptx_operand *op, uint32_t *off);
simtvp_status fx_pred_src(fx_build *b, const ptx_operand *op, uint32_t *off, uint32_t *neg);
uint32_t fx_const_row(fx_build *b, uint64_t value, uint32_t bits); /* 32 or 64 */
/* Resolves an ADDR operand into in->am, in->o[slot], in->imm and in->space (from the
 * instruction's state space). */
simtvp_status fx_mem_operand(fx_build *b, const ptx_operand *op, uint32_t slot);
const ptx_operand *fx_vec_elems(const fx_build *b, const ptx_operand *op); /* VEC/LIST elements */
void *fx_alloc(func_program *p, size_t bytes); /* zeroed, freed with the program */
/* Finds the registers of f that a thread may read before writing them and fills f->zero_ranges
 * (func_load.c; after the function is built). */
simtvp_status fx_find_unwritten_reads(func_program *p, fx_func *f, simtvp_diag *diag);
/* Zeroes what a new activation of f must find zeroed in its register frame: the rows of
 * zero_ranges, or the whole register area when `all` (a debugger can read any register). */
static inline void fx_frame_clear(const fx_func *f, uint8_t *regs, bool all) {
  if (all) {
    memset(regs, 0, f->off_const);
    return;
  }
  for (uint32_t i = 0; i < f->n_zero_ranges; i++)
    memset(regs + f->zero_ranges[2 * i], 0, f->zero_ranges[2 * i + 1]);
}
simtvp_status fx_unsupported(fx_build *b, const char *why);
/* Register class width in bits of a register operand. */
uint32_t fx_rc_bits(uint32_t rclass);
/* Address of a symbol as a value (mov d, sym). *dynamic set when it must be added to fp. */
uint64_t fx_symbol_value(func_program *p, fx_func *f, uint32_t sym, bool generic, bool *fp_rel);
fx_func *fx_function_at(const func_program *p, uint64_t addr);

/* Builder registration, one per family file. */
void fx_register_int(fx_builder *t);
void fx_register_float(fx_builder *t);
void fx_register_cvt(fx_builder *t);
void fx_register_mem(fx_builder *t);
void fx_register_atom(fx_builder *t);
void fx_register_ctrl(fx_builder *t);
void fx_register_warp(fx_builder *t);
void fx_register_sync(fx_builder *t);
void fx_register_call(fx_builder *t);
void fx_register_wmma(fx_builder *t);
void fx_register_tex(fx_builder *t);
void fx_register_async(fx_builder *t);
void fx_register_mma(fx_builder *t);
/* cp.async.bulk.tensor (exec_async.c) */
simtvp_status fx_build_tensor_copy(fx_build *b);

/* Builtins (exec_call.c). */
void fx_builtin_call(fx_warp *w, const fx_insn *in, const fx_call *c, uint32_t m);

/* Special register value of lane `lane`. */
uint64_t fx_sreg_value(fx_warp *w, uint32_t sreg, uint32_t lane);

/* Flushes the launch's counters into the stats sink. */
void fx_flush_counts(func_launch *l);

/* Serialises engine-level state (first fault, printf buffer, device heap) when several host
 * threads run a launch; no-ops otherwise. */
void fx_lock(func_launch *l);
void fx_unlock(func_launch *l);

#endif /* SIMTVP_FUNC_INTERNAL_H */
