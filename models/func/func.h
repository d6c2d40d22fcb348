/* func — the warp-level functional engine: executes PTX semantics warp by warp.
 *
 * Follows the PTX ISA 9.0 (chapters 5 state spaces, 8 memory consistency, 9.7 instructions) and
 * GPGPU-Sim 3.x's SIMT model: a per-warp reconvergence stack at immediate post-dominators
 * (ptx_insn.reconverge). It executes the pre-decoded program image of models/ptx; at load time
 * every instruction gets a handler chosen from opcode, type and modifiers and operands resolved
 * to register-file offsets, so execution never looks at PTX again. Registers are kept per warp in
 * structure-of-arrays rows of 32 lanes; predicates are 32-bit lane masks. Values never depend on
 * timing: timing models only decide when a warp instruction executes (DESIGN.md §3).
 *
 * Two ways to drive it, one code path:
 *  (a) functional mode — func_launch_run executes a whole grid, CTA after CTA, as fast as possible
 *      (single host thread, deterministic; opt-in: several host threads, func_config.threads);
 *  (b) per-warp mode for the timing models — place a CTA on an SM (func_cta_start), peek at a
 *      warp's next instruction (func_warp_peek), execute one warp instruction (func_warp_step) and
 *      get back what it did (func_step: active mask, per-lane addresses of memory accesses,
 *      branch/divergence, barrier, exit), release barriers when the timing model decides; run a
 *      straight stretch of register-only instructions in one call (func_warp_run_plain), step one
 *      cheaply (func_warp_step_plain), or take records whose patterned shared-memory addresses
 *      are filled on demand (func_warp_step_lean, func_step_fill_addr).
 *
 * Memory spaces: global (and const) live in the device-memory store (devmem.h) at device
 * addresses; shared memory per CTA; local memory per thread (also the call stack); kernel
 * parameters in a per-launch buffer. Generic addresses map shared, local and the kernel parameter
 * buffer through fixed windows (FUNC_WINDOW_*), everything else is global, as on the hardware.
 *
 * Faults (unmapped or out-of-bounds access, misalignment, shared-memory and stack overflow,
 * barrier deadlock, trap, assert, instruction limit) never crash the host: the kernel stops and a
 * simtvp_diag names kernel, CTA, thread, PC, PTX file:line and address. docs/func.md is the manual.
 *
 * Lifetimes: the ptx_module outlives its func_program, which outlives its launches; a launch
 * outlives its CTAs (finish them before func_launch_destroy). Several launches may be live at once
 * (concurrent kernels). An engine and everything made from it are used by one host thread at a
 * time. Texture/surface descriptors: func_tex.h.
 */
#ifndef SIMTVP_FUNC_H
#define SIMTVP_FUNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "devmem.h"
#include "ptx.h"
#include "simtvp_diag.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- generic address windows ---------------------------------------------------------------
 * A generic address inside a window addresses that state space at (generic - window base);
 * everything outside the windows is a global (device) address. The driver's allocator must keep
 * device allocations out of [FUNC_WINDOW_LO, FUNC_WINDOW_HI). Each window is 4 GiB. */
#define FUNC_WINDOW_LO 0x00007ff000000000ull
#define FUNC_WINDOW_SHARED 0x00007ff000000000ull /* CTA shared memory */
#define FUNC_WINDOW_LOCAL 0x00007ff100000000ull  /* the thread's local memory (stack) */
#define FUNC_WINDOW_PARAM 0x00007ff200000000ull  /* the kernel parameter buffer (cvta.param) */
#define FUNC_WINDOW_BYTES 0x0000000100000000ull
#define FUNC_WINDOW_HI 0x00007ff300000000ull

/* Function addresses (mov of a function name, indirect call targets) when the program has no
 * code_base: FUNC_FUNCTION_ADDR_BASE + function index * FUNC_INSN_BYTES. */
#define FUNC_FUNCTION_ADDR_BASE 0x00007ff400000000ull
/* Bytes per instruction in the program image: instruction fetch address = code_base + pc * 16. */
#define FUNC_INSN_BYTES 16u

#define FUNC_WARP_SIZE 32u
#define FUNC_MAX_CTA_THREADS 1024u
#define FUNC_NUM_BARRIERS 16u
#define FUNC_MAX_CLUSTER_CTAS 16u /* CTAs per cluster (8 portable, 16 with the non-portable opt-in) */

typedef struct func_engine func_engine;
typedef struct func_program func_program;
typedef struct func_launch func_launch;
typedef struct func_cta func_cta;
typedef struct func_warp func_warp;
typedef struct func_step func_step;

/* ---- engine ------------------------------------------------------------------------------- */

typedef struct func_config {
  uint32_t n_sms;             /* %nsmid; 0 = 1 */
  uint32_t max_warps_per_sm;  /* %nwarpid; 0 = 64 */
  uint32_t stack_bytes;       /* per-thread call stack beyond the kernel's own local frame
                                 (cudaLimitStackSize); 0 = 1024 */
  uint64_t heap_base;         /* device heap for malloc/free: [heap_base, +heap_bytes) must be */
  uint64_t heap_bytes;        /* mapped in devmem; heap_bytes 0 = no heap (malloc returns NULL) */
  uint64_t max_warp_insns;    /* per launch, 0 = unlimited; exceeding it stops the kernel (LIMIT);
                                 with threads > 1 the limit applies per host thread */
  uint32_t envreg[32];        /* %envreg0..31 */
  /* Host threads func_launch_run spreads CTAs over; 0 or 1 = one thread, deterministic. With
   * more, CTAs run concurrently: device atomics stay atomic, but results that depend on the order
   * of CTAs (atomics' return values, float atomic sums, racy accesses, printf line order) can
   * differ from run to run. The per-warp interface is unaffected. */
  uint32_t threads;
  /* Per-instruction counts for PTX source-line statistics: every launch counts warp
   * and thread instructions per instruction index (func_launch_pc_counts), and with a stats sink
   * each program registers its instructions' PTX and source lines (stats_code_register) and each
   * launch adds its counts there when it is destroyed. Off: the hot loop is the one without it. */
  bool pc_counts;
  /* The memory checker (`simtvp --memcheck`, docs/memcheck.md): every global (and generic
   * global) ld/st/atom/red lane must lie inside a live block of the devmem (devmem_block_add, the
   * driver's allocations): an access past a block, into a freed one or outside every block stops
   * the kernel with SIMTVP_ERR_FAULT and a report naming the nearest block. Shared, local and
   * parameter accesses are checked exactly always. Off: the handlers are the ones without it. */
  bool memcheck;
  /* Per-warp mode with SMs driven from several host threads at once (the timing GPU's
   * -sim_threads, docs/timing.md "Parallel simulation"): each SM counts in its own counters and
   * translation cache, CTA bookkeeping is atomic, and device printf, malloc/free and fault reports
   * are serialised by one engine-wide lock. A launch's counts (func_launch_get_counts, func.*
   * statistics, per-instruction counts) are brought up to date whenever a launch of the engine is
   * created or destroyed — at kernel boundaries, the same points with any number of threads —
   * instead of at every CTA end. The CTAs of one SM must be driven by one host thread at a time;
   * func_launch_create/destroy and func_launch_run from the simulation thread only. */
  bool sm_threads;
} func_config;

/* A debugger attached to the engine (models/debug, docs/debugger.md). Every member may be NULL;
 * with `before` NULL no debugger is attached and the engine runs as if this port did not exist
 * (one test per warp instruction in the per-warp interface, one per time slice in functional
 * mode). With one attached, func_launch_run executes on the calling thread only (threads is
 * ignored) and every warp instruction goes through func_warp_step, in the order the run loop
 * would execute it without a debugger, so results and counts are the same. The callbacks may
 * block (an interactive debugger waits for its user there) and may inspect anything through the
 * inspection functions at the end of this header; they must not step warps or change state. */
typedef struct func_debug_port {
  void *ctx;
  /* A launch was created (begin) / is about to be destroyed. */
  void (*launch)(void *ctx, func_launch *l, bool begin);
  /* A CTA starts (its warps are set up, none has executed) / is about to be freed or reused. */
  void (*cta)(void *ctx, func_cta *cta, bool begin);
  /* Warp w is about to execute its next instruction (func_warp_peek describes it). */
  void (*before)(void *ctx, func_warp *w);
  /* Warp w executed an instruction: rec says what it did; func_warp_get_state tells whether it
   * faulted (func_launch_fault has the report). */
  void (*after)(void *ctx, func_warp *w, const func_step *rec);
} func_debug_port;

/* Everything that leaves the engine. Every member may be NULL/0. */
typedef struct func_ports {
  void *ctx;
  /* %clock64 of an SM (core cycles); NULL: warp instructions the SM's CTA has executed so far. */
  uint64_t (*clock)(void *ctx, uint32_t sm);
  /* %globaltimer in nanoseconds; NULL: 1 ns per warp instruction executed by the launch. */
  uint64_t (*globaltimer)(void *ctx);
  /* Device printf output (already formatted); NULL: discarded. */
  void (*print)(void *ctx, const char *text, size_t len);
  simtvp_msg_port messages; /* warnings (e.g. unsupported-but-ignored modifiers) */
  /* Names a block's allocation site (devmem_block.tag) for memory-checker reports, e.g.
   * "app+0x11a9"; returns the length written. NULL: the tag is printed as a number. */
  size_t (*site_name)(void *ctx, uint64_t tag, char *buf, size_t size);
  /* A failed device assert(), in CUDA's words ("file:line: function: block: [x,y,z],
   * thread: [x,y,z] Assertion `expr` failed.\n"), which CUDA prints on stderr; NULL: through
   * print. The launch then faults with SIMTVP_ERR_TRAP as before. */
  void (*assertion)(void *ctx, const char *text, size_t len);
  func_debug_port debug;    /* a debugger; zeros = none */
} func_ports;

/* The memory checker's leak report (docs/memcheck.md): one warning per live block of mem that is
 * not the driver's own (DEVMEM_BLOCK_INTERNAL), naming its size, address, allocation number and
 * site (site_name as in func_ports, may be NULL), then a total (a warning when anything leaked,
 * else an info line). Returns the number of leaked blocks. */
uint32_t func_memcheck_report_leaks(const devmem *mem, size_t (*site_name)(void *ctx, uint64_t tag, char *buf, size_t size),
                                    void *site_ctx, const simtvp_msg_port *msg);

/* The engine holds the devmem and stats pointers (not owned); stats may be NULL. */
func_engine *func_create(const func_config *config, const func_ports *ports, devmem *mem,
                         stats *st, simtvp_diag *diag);
void func_destroy(func_engine *e);
devmem *func_devmem(func_engine *e);

/* ---- program ------------------------------------------------------------------------------ */

/* Where the loader placed the module's variables. */
typedef struct func_placement {
  uint64_t global_base; /* device address of the module's .global segment (global_segment_bytes) */
  uint64_t const_base;  /* device address of the module's .const segment (const_segment_bytes) */
  /* Optional per-symbol device addresses (n_symbols entries, index = symbol index) for
   * module-scope .global/.const variables; UINT64_MAX entries fall back to base + offset. */
  const uint64_t *symbol_addr;
  uint64_t code_base;   /* device address of the instruction image; 0 = none */
} func_placement;

/* Builds the execution plan of every function of m (m must outlive the program). Fails with
 * SIMTVP_ERR_UNSUPPORTED naming file:line of an instruction this build cannot execute. */
simtvp_status func_program_load(func_engine *e, const ptx_module *m, const func_placement *pl,
                                func_program **out, simtvp_diag *diag);
void func_program_destroy(func_program *p);
/* Writes the .global and .const initialisers (relocations applied) into devmem; the segments
 * must be mapped. Loaders that write segments themselves need not call it. */
simtvp_status func_program_write_segments(func_program *p, simtvp_diag *diag);
const ptx_module *func_program_module(const func_program *p);
/* Entry (kernel) by name: function index, PTX_NONE when absent or not a .entry. */
uint32_t func_program_kernel(const func_program *p, const char *name);
/* Bytes of one warp's register frame of function `function` (0 for none): its registers, each
 * 32 lanes wide, with registers live only inside one basic block sharing rows (docs/func.md
 * "Register frames"; not while a debugger is attached), and its constant rows. */
uint32_t func_program_frame_bytes(const func_program *p, uint32_t function);
/* Device address of a module-scope variable / of a function (what `mov %rd, name` yields). */
uint64_t func_program_symbol_addr(const func_program *p, uint32_t symbol);
uint64_t func_program_function_addr(const func_program *p, uint32_t function);
/* The kernel parameter i of an entry: offset and size in the parameter buffer. */
bool func_program_param(const func_program *p, uint32_t kernel, uint32_t i, uint32_t *offset,
                        uint32_t *bytes);
/* Size of the kernel parameter buffer of an entry. */
uint32_t func_program_param_bytes(const func_program *p, uint32_t kernel);
/* Static shared memory of an entry (module-scope + function-scope), bytes. */
uint32_t func_program_static_smem(const func_program *p, uint32_t kernel);

/* ---- launch ------------------------------------------------------------------------------- */

typedef struct func_launch_params {
  uint32_t kernel;              /* function index of a .entry */
  uint32_t grid[3], block[3];
  uint32_t dynamic_smem;        /* bytes of .extern .shared */
  const void *params;           /* kernel parameter buffer (copied), laid out per func_program_param */
  uint32_t param_bytes;
  uint64_t grid_id;             /* %gridid */
  /* (addition) Thread block cluster dimensions (sm_90): CTAs per cluster in x, y, z, each dividing
   * the grid's; 0,0,0 = the kernel's .reqnctapercluster, or clusters of one CTA. Functional mode
   * runs the CTAs of a cluster together; in per-warp mode the caller starts them together. */
  uint32_t cluster[3];
  uint64_t launch_uid;          /* the GPU's launch number (from 1; 0 = none): debuggers show it */
  /* GPU virtual memory (may be NULL): global and const addresses of the launch are virtual and
   * translated by it (devmem.h devmem_xlate; copied, its ctx must outlive the launch). NULL:
   * they address the store directly. */
  const devmem_xlate *xlate;
} func_launch_params;

simtvp_status func_launch_create(func_engine *e, func_program *p, const func_launch_params *lp,
                                 func_launch **out, simtvp_diag *diag);
void func_launch_destroy(func_launch *l);
/* (addition) CTAs per thread block cluster of the launch (1 without clusters). */
uint32_t func_launch_cluster_size(const func_launch *l);

/* Functional mode: executes every CTA of the launch (in linear CTA order, one host thread).
 * Returns SIMTVP_OK or the first fault (diag filled); afterwards the launch is finished. */
simtvp_status func_launch_run(func_launch *l, simtvp_diag *diag);

/* Counters of a launch so far (also fed to the stats sink under func.* names). */
typedef struct func_launch_counts {
  uint64_t warp_insns, thread_insns;
  uint64_t loads[PTX_SPACE_COUNT], stores[PTX_SPACE_COUNT], atomics[PTX_SPACE_COUNT]; /* warp insns */
  uint64_t ctas_done;
} func_launch_counts;
void func_launch_get_counts(const func_launch *l, func_launch_counts *out);

/* Per-instruction counts of a launch (func_config.pc_counts), indexed by module-wide
 * instruction index (*n = the module's n_insns); NULL when counting is off. Functional mode counts
 * as func_launch_run executes (with several host threads: merged when it returns), the per-warp
 * interface at each func_warp_step. A timing model may add the cycles warps waited at an
 * instruction to stall_cycles (from the thread that steps the launch's warps). With a stats sink
 * the counts go to the program's stats_code when the launch is destroyed. */
typedef struct func_pc_count {
  uint64_t warp_insns;   /* warp instructions executed at this index */
  uint64_t thread_insns; /* their active threads (as func.thread_insn and gpu_sim_insn count) */
  uint64_t stall_cycles; /* added by timing models; 0 otherwise */
} func_pc_count;
func_pc_count *func_launch_pc_counts(func_launch *l, uint32_t *n);
/* (addition) The array a CTA's warps count in (the launch's, or with sm_threads its SM's): where a
 * timing model adds stall_cycles for the CTA's warps. NULL when counting is off. */
func_pc_count *func_cta_pc_counts(func_cta *cta, uint32_t *n);

/* ---- per-warp interface (timing models) ---------------------------------------------------- */

/* Starts CTA `ctaid` on SM `sm`; its warps get %warpid first_warp_slot, first_warp_slot+1, …
 * (the SM's warp slots). Allocates the CTA's shared and local memory. */
simtvp_status func_cta_start(func_launch *l, const uint32_t ctaid[3], uint32_t sm,
                             uint32_t first_warp_slot, func_cta **out, simtvp_diag *diag);
/* Frees a CTA (done or not). */
void func_cta_finish(func_cta *cta);
uint32_t func_cta_warp_count(const func_cta *cta);
func_warp *func_cta_warp(func_cta *cta, uint32_t index);
/* true when every warp of the CTA is done. */
bool func_cta_done(const func_cta *cta);

typedef enum func_warp_state {
  FUNC_WARP_READY = 0,   /* has an instruction to execute */
  FUNC_WARP_BARRIER,     /* waiting at a barrier (released by func_cta_release_barrier) */
  FUNC_WARP_DONE,        /* every thread has exited */
  FUNC_WARP_FAULTED,     /* a fault stopped it */
  FUNC_WARP_FAULT_WAIT   /* its next instruction touched a page that faults replayably (unified
                            memory: not resident): nothing of it was done; it waits until
                            func_warp_retry (after the MMU's replay). Only with
                            func_launch_allow_replay; otherwise such a fault is fatal. */
} func_warp_state;
func_warp_state func_warp_get_state(const func_warp *w);
/* Barrier the warp waits at (valid in FUNC_WARP_BARRIER). */
uint32_t func_warp_barrier(const func_warp *w);
/* Lets the launch's warps wait on replayable translation faults (FUNC_WARP_FAULT_WAIT) instead of
 * faulting fatally; for runners that step warps one by one (func_warp_step) and retry them. */
void func_launch_allow_replay(func_launch *l, bool on);
/* FUNC_WARP_FAULT_WAIT: the virtual address that faulted and its mmu_access (0 read, 1 write,
 * 2 atomic). */
void func_warp_replay_fault(const func_warp *w, uint64_t *va, uint8_t *access);
/* and the translator's fault number (DEVMEM_FAULT_REPLAY_ABSENT or _WRITE). */
void func_warp_replay_kind(const func_warp *w, uint8_t *kind);
/* Every distinct 4 KiB page (its address) the waiting instruction's lanes found not there, in lane
 * order (va has room for 32); returns how many (at least 1). */
uint32_t func_warp_replay_pages(const func_warp *w, uint64_t *va);
/* A waiting warp becomes READY again at the same instruction (it translates afresh). */
void func_warp_retry(func_warp *w);
/* (addition) The warp runs `cycles` core cycles (`ns` nanoseconds) ahead of the time the clock and
 * globaltimer ports answer — a timing model whose warps run ahead of the GPU's time (the interval
 * core) sets it before an instruction that may read %clock* or %globaltimer*, which then read
 * the port's value plus these. A new warp has 0, 0. */
void func_warp_set_time_ahead(func_warp *w, int64_t cycles, int64_t ns);

/* The warp's next instruction, not executed. */
typedef struct func_peek {
  uint32_t pc;               /* module-wide instruction index */
  const ptx_insn *insn;
  uint32_t active;           /* lanes that will execute it (before the guard predicate) */
  uint64_t fetch_addr;       /* code_base + pc * FUNC_INSN_BYTES */
  uint8_t kind;              /* func_step_kind the engine classifies it as (pipeline routing);
                                a kernel-level ret shows as RET here and as EXIT in the step */
} func_peek;
/* false when the warp is not READY. */
bool func_warp_peek(const func_warp *w, func_peek *out);
/* The warp's next pc and the lanes active there (valid while it is READY): the cheap part of a
 * peek, for timing models that step instructions without a record. */
uint32_t func_warp_pc(const func_warp *w);
uint32_t func_warp_active(const func_warp *w);

typedef enum func_step_kind {
  FUNC_STEP_ALU = 0,   /* register-only work (incl. warp shuffles, votes, special registers) */
  FUNC_STEP_SFU,       /* transcendental / division-class math */
  FUNC_STEP_MEM,       /* load / store / atomic / reduction: see mem */
  FUNC_STEP_BRANCH,    /* bra / brx: see diverged */
  FUNC_STEP_CALL,      /* call (incl. builtins printf/malloc/free) */
  FUNC_STEP_RET,
  FUNC_STEP_BARRIER,   /* bar / barrier: see barrier_* */
  FUNC_STEP_FENCE,     /* membar / fence / bar.warp.sync */
  FUNC_STEP_EXIT,      /* exit (or ret from the kernel) */
  FUNC_STEP_NOP
} func_step_kind;

/* What one warp instruction did. Memory addresses are in the resolved state space: global and
 * const: device address; shared: byte offset in the CTA's shared memory; local: byte offset in
 * the thread's local memory; param: byte offset in the kernel parameter buffer. */
enum { FUNC_HALF_UNIFORM = 1, FUNC_HALF_CONTIG = 2 };
typedef struct func_step {
  uint32_t pc;
  const ptx_insn *insn;
  uint8_t kind;              /* func_step_kind */
  uint32_t active;           /* lanes active at the instruction */
  uint32_t exec;             /* lanes that executed it (active and guard true) */
  uint32_t next_pc;          /* the warp's next pc after the step (when not done) */
  uint32_t next_active;      /* and the lanes active there */
  bool diverged;             /* a branch/call split the active lanes */
  /* memory (kind == MEM) */
  uint8_t space;             /* ptx_space of every lane, or PTX_SPACE_GENERIC when lanes differ */
  uint8_t lane_space[32];    /* per-lane resolved space when space == PTX_SPACE_GENERIC */
  bool is_load, is_store, is_atomic;
  uint16_t access_bytes;     /* bytes per lane (element size × vector length) */
  uint32_t mem_mask;         /* lanes that accessed memory */
  uint64_t addr[32];         /* per-lane address of the first byte */
  /* (addition) What a fast path learned about addr[] (0: nothing): for a full warp's 4-byte
   * shared access, per half-warp (bits 0-1 lanes 0-15, bits 2-3 lanes 16-31) FUNC_HALF_UNIFORM
   * when the half's lanes share one address, FUNC_HALF_CONTIG when they are consecutive words
   * (addr[i] = addr[first lane of the half] + 4 * lane within the half): a bank-conflict scan
   * can be skipped. */
  uint8_t addr_halves;
  /* barriers (kind == BARRIER) */
  uint8_t barrier_id;
  bool barrier_wait;         /* the warp now waits at the barrier */
  bool barrier_complete;     /* this arrival completed the barrier: call func_cta_release_barrier */
  /* exit */
  bool warp_done;            /* every thread of the warp has exited */
  /* (addition) the warp found what it waits for not yet there (an mbarrier test_wait/try_wait
   * that returned false) and spins: a runner that steps one warp at a time should let the others
   * run now (func_launch_run ends the warp's time slice) */
  bool yield;
} func_step;

/* Executes the warp's next instruction. rec may be NULL. Returns SIMTVP_OK, or the fault that
 * stopped the warp (diag filled; the warp is then FAULTED and the launch reports the fault). */
simtvp_status func_warp_step(func_warp *w, func_step *rec, simtvp_diag *diag);
/* (addition) func_warp_step with a record whose shared-memory addresses are filled lazily: when
 * the record's space is PTX_SPACE_SHARED and its addr_halves nonzero, addr[] holds only lanes 0
 * and 16 (each half-warp's first lane); func_step_fill_addr(rec) then writes the other lanes,
 * which the pattern fixes, exactly as func_warp_step records them. Everything else (rec NULL
 * included) is func_warp_step's. For a consumer that decides from addr_halves and those two lanes
 * first and reads the rest only sometimes (the interval core's shared-memory memo): the fill is
 * the dearest part of such a record. */
simtvp_status func_warp_step_lean(func_warp *w, func_step *rec, simtvp_diag *diag);
/* (addition) func_warp_step(w, NULL, diag) for a timing model's loop over register-only
 * instructions (func_program_insn_plain at the warp's pc; any other instruction is stepped as
 * func_warp_step steps it): *active gets the lanes active at the instruction (func_warp_active
 * before the step), *st SIMTVP_OK or the fault or refusal func_warp_step returns, and the result is
 * the warp's next pc (func_warp_pc after it). One call instead of three, without the record and
 * translation-cache tests a register-only instruction needs none of. */
uint32_t func_warp_step_plain(func_warp *w, uint32_t *active, simtvp_status *st, simtvp_diag *diag);
/* Completes a func_warp_step_lean record's addr[] (nothing to do unless it is a shared access
 * with addr_halves set; a full record stays as it is). */
void func_step_fill_shared_halves(func_step *rec);
static inline void func_step_fill_addr(func_step *rec) {
  if (rec->addr_halves && rec->space == PTX_SPACE_SHARED) func_step_fill_shared_halves(rec);
}
/* (addition) Runs warp w through consecutive register-only instructions — those func_warp_step
 * executes with a NULL record and no control transfer: ALU or SFU work (func_step_kind) that
 * touches no memory and reads no clock (%clock*, %globaltimer*, whose value depends on when it
 * executes); no load/store/atomic, texture, barrier, fence, branch, call, return or exit — at most
 * `max` of them, stopping before the first that is not one (func_program_insn_plain tells which
 * are), and after the one where the warp reconverges (its next pc is then another stack entry's).
 * Returns how many it executed: they were at pcs pc, pc+1, … pc+n−1 where pc = func_warp_pc(w)
 * before the call; 0 when the next one is not register-only, or when the warp is not READY (diag
 * then says why, as func_warp_step's refusal). Values and statistics exactly as n calls of
 * func_warp_step(w, NULL, diag). Should one fault it is the last counted, the warp is FAULTED and diag has the launch's report; one that yields ends the
 * run. It costs what func_launch_run's whole-warp loop costs per instruction, not a step. */
uint32_t func_warp_run_plain(func_warp *w, uint32_t max, simtvp_diag *diag);
/* (addition) What the last instruction of a func_warp_run did: the step record's facts a
 * scheduler that needs no per-instruction record acts on. */
typedef struct func_run_end {
  uint32_t pc;               /* its pc */
  const ptx_insn *insn;      /* and PTX instruction */
  uint8_t kind;              /* func_step_kind (NOP when the warp waits on a replayable fault) */
  uint8_t barrier_id;        /* kind BARRIER: as func_step's */
  bool barrier_wait, barrier_complete;
  bool warp_done, yield;     /* as func_step's */
} func_run_end;
/* (addition) Runs warp w for up to `max` instructions, exactly as that many
 * func_warp_step(w, rec, diag) calls would (values, statistics, state, faults) but without
 * records, and stops after the first instruction whose record a scheduler must see: a barrier
 * instruction (kind BARRIER), one that ends the warp (warp_done), yields, faults or waits on a
 * replayable fault (FUNC_WARP_FAULT_WAIT; it is counted in *n as func_warp_step's call is, though
 * its counts are undone). *n gets how many it executed, *end the facts of the last (zeroed when
 * none ran). Returns SIMTVP_OK, or the fault / refusal as func_warp_step does. Its cost per
 * instruction is a run loop's, not a step's (the functional GPU, models/gpuctl gpu_simt_func.c). */
simtvp_status func_warp_run(func_warp *w, uint32_t max, uint32_t *n, func_run_end *end, simtvp_diag *diag);
/* (addition) Whether the instruction at module-wide index pc is register-only (func_warp_run_plain
 * runs it), fixed at load time: a timing model may precompute run lengths per pc from it. A run
 * also ends where a warp reconverges, which depends on the warp (its SIMT stack). */
bool func_program_insn_plain(const func_program *p, uint32_t pc);
/* (addition) How many register-only instructions start at pc without passing the end of its basic
 * block (0: the one at pc is not). A warp reconverges only at the first instruction of a block, so
 * func_warp_run_plain(w, n) with n up to this many for the warp's pc runs exactly n (unless one
 * faults): a timing model can time a run before executing it. */
uint32_t func_program_plain_run(const func_program *p, uint32_t pc);

/* Releases every warp waiting at barrier `id` once it has completed; returns how many were
 * released. In per-warp mode a completed barrier stays closed until this call. */
uint32_t func_cta_release_barrier(func_cta *cta, uint32_t id);
/* (addition) func_cta_release_barrier for every barrier id, in id order (after a warp's exit,
 * which may complete barriers that waited only for it); returns how many warps were released. */
uint32_t func_cta_release_barriers(func_cta *cta);
/* Whether a warp of the CTA waits at a barrier (arrived with bar.sync/bar.red, not released):
 * false tells a timing model that no warp of it can be released or be deadlocked there. */
bool func_cta_barrier_waits(const func_cta *cta);

/* ---- inspection (debuggers; no side effects) ------------------------------------------------- */

func_engine *func_launch_engine(const func_launch *l);
const func_program *func_launch_program(const func_launch *l);
/* The launch's parameters as created; params points at the launch's own copy of the buffer. */
void func_launch_get_params(const func_launch *l, func_launch_params *out);
/* The launch's first fault (SIMTVP_OK when none); diag (may be NULL) gets its report. */
simtvp_status func_launch_fault(const func_launch *l, simtvp_diag *diag);

func_launch *func_cta_launch(const func_cta *cta);
/* CTA coordinates, SM and the %warpid of its warp 0. */
void func_cta_place(const func_cta *cta, uint32_t ctaid[3], uint32_t *sm, uint32_t *first_warp_slot);
/* Reads n bytes of the CTA's shared memory at byte offset off; false when outside it. */
bool func_cta_read_shared(const func_cta *cta, uint64_t off, void *dst, uint64_t n);

func_cta *func_warp_cta(const func_warp *w);
typedef struct func_warp_info {
  uint32_t index;       /* warp index in the CTA */
  uint8_t state;        /* func_warp_state */
  uint32_t pc;          /* next instruction (module-wide index; meaningless when DONE) */
  uint32_t active;      /* lanes at pc */
  uint32_t valid;       /* lanes that exist */
  uint32_t exited;      /* lanes that have exited */
  uint32_t barrier;     /* barrier waited at (state BARRIER) */
  uint32_t function;    /* function executing (module function index) */
  uint32_t stack_depth; /* SIMT stack entries */
  uint32_t call_depth;  /* calls in progress */
} func_warp_info;
void func_warp_get_info(const func_warp *w, func_warp_info *out);
/* %tid of a lane. */
void func_warp_thread(const func_warp *w, uint32_t lane, uint32_t tid[3]);
/* SIMT stack entry i (0 = bottom, stack_depth - 1 = top); false when i is outside it. */
typedef struct func_stack_entry {
  uint32_t pc;          /* where the entry's lanes continue */
  uint32_t rpc;         /* reconvergence pc (UINT32_MAX: none, function exit) */
  uint32_t mask;        /* its lanes */
  bool call;            /* a call frame: its lanes run a called function */
  uint32_t call_pc;     /* call: the call instruction */
} func_stack_entry;
bool func_warp_stack_entry(const func_warp *w, uint32_t i, func_stack_entry *out);
/* Register `index` of class rclass (ptx_reg_class) of the function the warp executes now, in
 * lane `lane`: value[0] the low 64 bits, value[1] the high ones (128-bit registers); a predicate
 * reads as 0 or 1. false when the register or lane does not exist. */
bool func_warp_read_reg(const func_warp *w, uint32_t rclass, uint32_t index, uint32_t lane, uint64_t value[2]);
/* Reads n bytes of lane `lane`'s local memory at local address off; false when outside it. */
bool func_warp_read_local(const func_warp *w, uint32_t lane, uint64_t off, void *dst, uint64_t n);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_FUNC_H */
