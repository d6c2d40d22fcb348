/* simt — one SIMT core of the GPU: the block that runs the CTAs the dispatcher places on it
 * (GPGPU-Sim 3.x manual §2.3 "SIMT Cores", with the 4.x additions: sub-cores, per-opcode
 * latency and initiation-interval tables, several schedulers per core, dual issue).
 *
 * Fidelity variants share this interface through an ops table (DESIGN.md §2; simt_variant.h),
 * chosen per core by configuration (-simt_model, -simt_model_override); the caller never knows
 * which one it holds:
 *   func — runs each CTA to completion inside simt_core_launch_cta: zero time, no memory traffic
 *          (for SMs whose timing is of no interest);
 *   ca   — cycle-accurate: fetch and L1I, I-buffer, warp schedulers, scoreboard, operand
 *          collector with a banked register file, SP/DP/INT/SFU/tensor pipelines, the LDST unit
 *          (models/simt/ldst), writeback (docs/simt.md);
 *   at   — approximately timed: ready times per warp and register, pipeline resources as
 *          next-free times, only cycles with work visited, the same LDST unit (models/simt/at,
 *          docs/simt-at.md);
 *   interval — warps run ahead in intervals of a horizon, timed by per-warp register ready
 *          times, coarse issue/unit throughput bins and an L1D tag model; traffic beyond the L1
 *          answered at once by simt_core_config.interval_mem (models/simt/interval,
 *          docs/simt-interval.md).
 *
 * Values never depend on timing (DESIGN.md §3): every variant executes warp instructions through
 * models/func's per-warp interface; a timing variant decides *when*. Memory requests leave
 * through ports.send (the cluster's injection port, simt_cluster.h) and replies come back through
 * simt_core_mem_reply. Time is integer cycles of the core clock; an idle core, and an active core
 * that waits for memory, costs nothing: simt_core_next_event is exact and cycle-weighted
 * statistics are added in bulk for skipped cycles. */
#ifndef SIMTVP_SIMT_H
#define SIMTVP_SIMT_H

#include <stdbool.h>
#include <stdint.h>

#include "func.h"
#include "gpu_config.h"
#include "gpu_hw.h"
#include "mem_req.h"
#include "simt_ldst.h"
#include "simtvp_diag.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SIMT_NEVER UINT64_MAX
#define SIMT_MAX_SCHEDULERS 16u

/* Execution pipelines (operand-collector classes). MEM is the LDST unit. */
typedef enum simt_unit {
  SIMT_UNIT_SP = 0, SIMT_UNIT_DP, SIMT_UNIT_INT, SIMT_UNIT_SFU, SIMT_UNIT_TENSOR, SIMT_UNIT_MEM,
  SIMT_UNIT_N
} simt_unit;
/* Operand-collector unit sets: one per pipeline plus the generic set. */
enum { SIMT_OC_GEN = SIMT_UNIT_N, SIMT_OC_N };

/* Latency tables (rows) by the data type of an instruction; columns are GPU_OP_* (ADD, MAX, MUL,
 * MAD, DIV, SHFL). SFU and TENSOR have one value, used for every column. */
enum { SIMT_LAT_INT = 0, SIMT_LAT_FP, SIMT_LAT_DP, SIMT_LAT_SFU, SIMT_LAT_TENSOR, SIMT_LAT_N };

/* The LDST unit as the CA core calls it: models/simt/ldst's simt_ldst_* functions by default
 * (simt_core_config.ldst_iface = NULL); tests and experiments may give their own. */
typedef struct simt_ldst_iface {
  simt_ldst *(*create)(const simt_ldst_config *config, simt_ldst_ports ports, simtvp_diag *diag);
  void (*destroy)(simt_ldst *u);
  bool (*can_issue)(const simt_ldst *u, uint64_t now);
  void (*issue)(simt_ldst *u, uint32_t warp, const func_step *step, uint64_t tag, uint64_t now);
  bool (*reply)(simt_ldst *u, mem_req *reply, uint64_t now);
  void (*advance)(simt_ldst *u, uint64_t now);
  uint64_t (*next_event)(const simt_ldst *u);
  uint32_t (*pending_stores)(const simt_ldst *u, uint32_t warp);
  bool (*idle)(const simt_ldst *u);
  uint32_t (*flush_l1)(simt_ldst *u, uint64_t now);
  void (*invalidate_l1)(simt_ldst *u);
  void (*dump)(const simt_ldst *u, void (*line)(void *ctx, const char *text), void *ctx);
  /* optional (may be NULL): where warp `warp`'s kernel parameters are cached */
  void (*set_param_base)(simt_ldst *u, uint32_t warp, uint64_t base);
  /* optional (may be NULL): the address space warp `warp`'s global accesses translate through */
  void (*set_pdb)(simt_ldst *u, uint32_t warp, uint64_t pdb);
} simt_ldst_iface;

/* The interface of models/simt/ldst when this build has it, else NULL. */
const simt_ldst_iface *simt_ldst_default_iface(void);

/* Optional trace of issued warp instructions (tests, debugging): one call per issue. */
typedef struct simt_trace_port {
  void *ctx;
  void (*issue)(void *ctx, uint32_t sm, uint32_t warp_slot, uint32_t pc, uint32_t active, uint64_t cycle);
} simt_trace_port;

/* Where an interval core's (models/simt/interval) traffic beyond its L1 goes: a closed-form
 * model of the interconnect, L2 slices and DRAM (models/memiv behind gpu_simt_timing; a fixed
 * latency in core tests). access: one request for the sectors `sector_mask` (bit i = bytes
 * [32i, 32i+32)) of the 128-byte line at `line_addr` — of a write, the bytes it writes in
 * `byte_mask` (mem_req.byte_mask's layout; NULL: the sectors' every byte) — of mem_access_kind `kind` (`is_write`:
 * data toward memory; `n_ops`: lane operations of an atomic, 0 counts as 1), leaving core `sm`
 * at core cycle `at`; returns the core cycle its reply (data, or a write's acknowledgement) is
 * back at the core (> at). Never fails; called on the simulation thread only. ctx NULL: not
 * connected (the core then uses a fixed latency of its own). */
typedef struct simt_interval_mem_port {
  void *ctx;
  uint64_t (*access)(void *ctx, uint32_t sm, uint64_t line_addr, uint8_t sector_mask, const uint64_t *byte_mask,
                     uint8_t kind, bool is_write, uint8_t n_ops, uint64_t at);
} simt_interval_mem_port;

/* One core. Plain data; strings are not copied (they must outlive simt_core_create). Cycles are
 * core-clock cycles. simt_core_config_from_gpu fills every field from a gpu_config. */
typedef struct simt_core_config {
  uint8_t model;                  /* gpu_fidelity: GPU_FIDELITY_FUNC, _AT, _CA, _INTERVAL */
  uint32_t sm;                    /* global core index (mem_req.sm, CTA-done reports, stat names) */
  uint32_t cluster;               /* cluster index (mem_req.cluster) */
  uint32_t warp_size;             /* threads per warp: 32 */
  uint32_t max_warps;             /* warp slots */
  uint32_t max_threads;           /* thread slots */
  uint32_t max_ctas;              /* CTA slots (-gpgpu_shader_cta) */
  /* fetch */
  const char *l1i;                /* -gpgpu_cache:il1 ("none": every fetch goes to memory) */
  bool perfect_l1i;               /* -gpgpu_perfect_inst_const_cache: every fetch hits */
  uint32_t fetch_throughput;      /* -gpgpu_inst_fetch_throughput: fetch+decode steps per cycle */
  /* issue */
  uint32_t n_schedulers;          /* -gpgpu_num_sched_per_core (≤ SIMT_MAX_SCHEDULERS) */
  uint8_t scheduler;              /* gpu_scheduler_policy (-gpgpu_scheduler) */
  uint32_t scheduler_params[3];   /* two_level_active: active warps, inner, outer; warp_limiting */
  uint32_t max_issue_per_warp;    /* -gpgpu_max_insn_issue_per_warp: 1 or 2 */
  bool dual_issue_diff_units;     /* -gpgpu_dual_issue_diff_exec_units */
  bool sub_core;                  /* -gpgpu_sub_core_model */
  /* register file and operand collector */
  uint32_t reg_banks;             /* -gpgpu_num_reg_banks */
  bool reg_bank_use_warp_id;      /* -gpgpu_reg_bank_use_warp_id */
  bool alu_forwarding;            /* -gpgpu_alu_forwarding: early scoreboard release (CA core) */
  uint32_t fence_latency[GPU_FENCE_N]; /* -gpgpu_fence_latency: by gpu_fence_scope */
  uint32_t sample_detail, sample_period; /* -at_sample (AT and interval cores; 0,0: every cycle detailed) */
  bool interval_runs;                    /* -interval_runs: interval cores time straight runs as one step */
  bool interval_fold;                    /* -interval_fold: interval cores time a CTA's warps as one group */
  uint32_t interval_horizon;             /* -interval_horizon: core cycles an interval core runs ahead per call
                                            (0: the default, 2 048) */
  uint32_t interval_horizon_ramp;        /* -interval_horizon_ramp: core cycles per doubling of the horizon from
                                            a launch's start at 256 (0: none) */
  uint32_t core_khz;                     /* core clock (-gpgpu_clock_domains): a cycle's nanoseconds for %globaltimer */
  uint32_t reg_ports;             /* -gpgpu_reg_file_port_throughput: accesses per bank per cycle */
  bool specialized_oc;            /* -gpgpu_enable_specialized_operand_collector */
  uint32_t oc_units[SIMT_OC_N];   /* -gpgpu_operand_collector_num_units_{sp,dp,int,sfu,tensor_core,mem,gen} */
  uint32_t oc_in_ports[SIMT_OC_N];  /* ..._num_in_ports_* */
  uint32_t oc_out_ports[SIMT_OC_N]; /* ..._num_out_ports_* */
  /* pipeline registers (-gpgpu_pipeline_widths) and execution units */
  uint32_t id_oc_width[SIMT_UNIT_N];
  uint32_t oc_ex_width[SIMT_UNIT_N];
  uint32_t result_buses;          /* EX_WB width: results written back per cycle */
  uint32_t n_units[SIMT_UNIT_N];  /* -gpgpu_num_{sp,dp,int,sfu,tensor_core}_units (MEM: unused) */
  /* -ptx_opcode_latency_* / -ptx_opcode_initiation_*, by SIMT_LAT_* row and GPU_OP_* column */
  uint32_t latency[SIMT_LAT_N][GPU_OP_N];
  uint32_t initiation[SIMT_LAT_N][GPU_OP_N];
  /* the LDST unit (sm, cluster, warp_size, max_warps, max_threads, stats and pool are set by the
   * core from the fields above) */
  simt_ldst_config ldst;
  const simt_ldst_iface *ldst_iface; /* NULL: simt_ldst_default_iface() */
  /* outputs */
  stats *stats;                   /* may be NULL */
  mem_req_pool *pool;             /* requests the core creates (fetches, LDST); NULL: its own */
  simt_trace_port trace;          /* optional */
  simt_interval_mem_port interval_mem; /* interval cores: the memory system beyond the L1 */
  uint32_t interval_miss_latency; /* interval cores without interval_mem: the cycles from an
                                     access leaving the L1 to its reply (-gpgpu_l2_rop_latency +
                                     -dram_latency: an L2 miss with idle queues) */
  bool every_cycle;               /* simulate every cycle while a CTA is resident instead of
                                     skipping quiet ones (a check: it must change no statistic) */
} simt_core_config;

/* Fills cfg for core `sm` (0 ≤ sm < derived.n_cores) from a finalized gpu_config (strings point
 * into g). ldst.local_base is left 0: the GPU assembly places each core's local memory. */
simtvp_status simt_core_config_from_gpu(const gpu_config *g, uint32_t sm, simt_core_config *cfg,
                                        simtvp_diag *diag);

/* ---- programs and kernels ------------------------------------------------------------------- */

/* The timing decode of a module: per instruction its pipeline, latency class and the registers
 * it reads and writes. Built once per module and shared by every core (read-only). */
typedef struct simt_program simt_program;
simtvp_status simt_program_create(const ptx_module *m, simt_program **out, simtvp_diag *diag);
void simt_program_destroy(simt_program *p);
const ptx_module *simt_program_module(const simt_program *p);
/* gpu_launcher_attach callbacks (gpu_launcher.h): {NULL, simt_program_build, simt_program_free}. */
void *simt_program_build(void *ctx, const ptx_module *m, simtvp_diag *diag);
void simt_program_free(void *ctx, void *program);

/* A running kernel as the cores see it; must stay valid while any of its CTAs runs. */
typedef struct simt_kernel {
  uint32_t slot;                  /* dispatcher slot, reported back with each CTA */
  uint64_t launch_uid;
  const char *name;               /* entry name, for messages */
  func_launch *launch;
  const simt_program *program;    /* decode of the launch's module (ignored by func) */
  uint64_t pdb;                   /* the kernel's address space (CH_PDB; 0: physical addresses) */
  /* (addition) Records the replayable faults of one warp instruction of this kernel on core sm
   * (unified memory, docs/vm.md): the n distinct pages it found not resident. true = the warp
   * waits for simt_core_replay, false = the faults are fatal (no fault buffer). n 0 asks only
   * whether faults can wait (records nothing). NULL: replayable faults are fatal. Called from the
   * core's tick, which may run on a worker thread (-sim_threads > 1): the recorder answers at once
   * and records where thread timing cannot change the order (gpu_simt_timing: the serial phase). */
  bool (*replayable_fault)(void *ctx, const struct simt_kernel *k, uint32_t sm, const uint64_t *pages, uint32_t n,
                           uint8_t access, uint8_t kind, uint64_t now);
  void *fault_ctx;
} simt_kernel;

/* ---- the core ------------------------------------------------------------------------------- */

typedef struct simt_core simt_core;

typedef struct simt_core_ports {
  void *ctx;
  /* A memory request (instruction fetch, LDST traffic). false = refused this cycle: the core
   * keeps it and offers it again later. */
  bool (*send)(void *ctx, mem_req *req, uint64_t now);
  /* A CTA finished (or ended with a fault or a barrier deadlock: r->status). */
  void (*cta_done)(void *ctx, uint32_t sm, uint32_t kernel_slot, const gpu_cta_result *r,
                   uint64_t now);
  simtvp_msg_port messages;       /* fault and deadlock reports (kernel, CTA, thread, PC) */
  /* Optional (may be NULL): the structured report of a fault or barrier deadlock that ends a CTA
   * of the kernel in dispatcher slot kernel_slot, delivered once per CTA when the core finds it
   * (before that CTA's cta_done; it must not call back into the core). report->status is the
   * CTA's status; its place fields are, for a fault, every field models/func filled (kernel,
   * CTA, thread, pc, PTX file:line, address), for a barrier deadlock the kernel, the CTA and the
   * pc (with its PTX file:line) of the first waiting warp. report->message is the first line of
   * the text sent through messages. Only the warp that faulted reports; CTAs of the same launch
   * that stop because the launch already faulted end through cta_done alone. */
  void (*fault)(void *ctx, uint32_t sm, uint32_t kernel_slot, const simtvp_diag *report, uint64_t now);
  /* Optional (may be NULL): timed memory (an approximately-timed memory system, docs/timing.md
   * "Timed transport"). The request enters the memory system at cycle `at` (≥ the current cycle);
   * returns the cycle its reply arrives back at the core (a request that needs no reply: the cycle
   * the memory system took it; the request is then the memory system's), SIMT_MEM_DEFERRED when
   * the memory system kept it (its reply comes through simt_core_mem_reply or
   * simt_core_mem_reply_at), or SIMT_MEM_UNTIMED when the path cannot time it (nothing taken:
   * use send). */
  uint64_t (*send_timed)(void *ctx, mem_req *req, uint64_t at);
} simt_core_ports;

#define SIMT_MEM_UNTIMED UINT64_MAX
#define SIMT_MEM_DEFERRED (UINT64_MAX - 1)

/* SIMTVP_ERR_CONFIG naming the option for inconsistent values; SIMTVP_ERR_UNSUPPORTED for a
 * model this build does not have. */
simtvp_status simt_core_create(const simt_core_config *config, simt_core_ports ports,
                               simt_core **out, simtvp_diag *diag);
void simt_core_destroy(simt_core *c);
/* "func", "at" or "ca". */
const char *simt_core_model_name(const simt_core *c);

/* Starts CTA cta[] of k at cycle now. The dispatcher has checked that it fits; SIMTVP_ERR_STATE
 * when no CTA or warp slot is free, or the functional engine's status when it cannot start the
 * CTA. The func variant runs the CTA and reports it done before returning. */
simtvp_status simt_core_launch_cta(simt_core *c, const simt_kernel *k, const uint32_t cta[3],
                                   uint64_t now, simtvp_diag *diag);
/* A reply for one of the core's requests (instruction fill or LDST traffic). false = cannot take
 * it this cycle (the LDST response buffer is full): the caller keeps it and retries. */
bool simt_core_mem_reply(simt_core *c, mem_req *reply, uint64_t now);
/* A reply whose arrival cycle `at` is known before it comes (timed transport); the core takes it
 * at `at` however far ahead that is. false: this variant cannot (the caller delivers it with
 * simt_core_mem_reply at `at`). */
bool simt_core_mem_reply_at(simt_core *c, mem_req *reply, uint64_t at);
/* Simulates every cycle up to and including now. Call it whenever now ≥ simt_core_next_event,
 * and before handing the core anything at a later cycle. */
void simt_core_advance(simt_core *c, uint64_t now);
/* Next cycle at which the core has something to do; SIMT_NEVER when idle or only waiting for
 * replies. */
uint64_t simt_core_next_event(const simt_core *c);
/* No resident CTA, nothing in flight. */
bool simt_core_idle(const simt_core *c);
uint32_t simt_core_resident_ctas(const simt_core *c);
/* At a kernel boundary (-gpgpu_flush_l1_cache): write back and invalidate the L1D; returns the
 * write-backs queued. */
uint32_t simt_core_flush_l1(simt_core *c, uint64_t now);
/* MMU_REPLAY at core cycle now: warps waiting on replayable faults retry their instruction
 * (cancel: their CTAs end with SIMTVP_ERR_FAULT). No-op on variants without fault waits. */
void simt_core_replay(simt_core *c, bool cancel, uint64_t now);
/* Every resident warp's state (pc and instruction, I-buffer, scoreboard, what it waits for),
 * the pipeline occupancy and the LDST unit's pending requests, one line per call: for deadlock
 * reports. */
void simt_core_dump(const simt_core *c, void (*line)(void *ctx, const char *text), void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_SIMT_H */
