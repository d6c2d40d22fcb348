/* simt_variant — the ops table behind simt_core (simt.h): what a fidelity variant of the SIMT core
 * implements. simt.c picks the table by simt_core_config.model and forwards every call; the
 * caller never knows which variant it holds (DESIGN.md §2).
 *
 * Contract every variant keeps (docs/simt.md "Variants"):
 *   - Functional results come from models/func's per-warp interface only (func_cta_start,
 *     func_warp_peek/step, func_cta_release_barrier, func_cta_finish); values never depend on
 *     timing. Every CTA started is finished (func_cta_finish) and reported exactly once through
 *     ports.cta_done with the kernel's slot: OK, or the status of the first fault (details,
 *     naming kernel, CTA, thread and PC, through ports.messages), or SIMTVP_ERR_DEADLOCK for a
 *     barrier that can never complete.
 *   - Time: advance(now) does everything due up to and including now; next_event is the next
 *     cycle with something to do (SIMT_NEVER when idle or waiting for replies). It may be early,
 *     never late. Calls into the variant (launch_cta, mem_reply) come with a now ≥ the last
 *     advance.
 *   - Memory: requests leave through ports.send with kind, sm, cluster, warp set (the cluster
 *     fills src/dst nodes); replies come back through mem_reply (false = retry later). Writes
 *     the variant does not need acknowledged have needs_reply = false.
 *   - Statistics: registered once at create, bumped on events: gpu_sim_insn and
 *     gpgpu_n_tot_{thrd,w}_icount for every warp instruction executed (thread count = active
 *     lanes), simt_core[<sm>].warp_insn; timing variants also the shared names of docs/simt.md.
 * What an AT variant must do in particular: place CTAs and account occupancy like the CA core
 * (warp slots, CTA slots), compute each CTA's completion from the instructions it executes
 * (e.g. per-warp issue times from latencies and a throughput model, memory latency from its own
 * requests or a fixed estimate) rather than cycle by cycle, report next_event as the completion
 * time of the earliest CTA or request, and send real memory requests when the memory system is
 * to see its traffic. Its sources go in models/simt/at/ and define `const simt_core_ops
 * simt_at_ops`; models/simt/CMakeLists.txt adds them when models/simt/at/sources.cmake exists
 * (setting SIMTVP_SIMT_AT_SOURCES), and simt.c then offers "at". */
#ifndef SIMTVP_SIMT_VARIANT_H
#define SIMTVP_SIMT_VARIANT_H

#include "simt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct simt_core_ops {
  const char *name;
  simtvp_status (*create)(const simt_core_config *config, simt_core_ports ports, void **state,
                          simtvp_diag *diag);
  void (*destroy)(void *state);
  simtvp_status (*launch_cta)(void *state, const simt_kernel *k, const uint32_t cta[3],
                              uint64_t now, simtvp_diag *diag);
  bool (*mem_reply)(void *state, mem_req *reply, uint64_t now);
  void (*advance)(void *state, uint64_t now);
  uint64_t (*next_event)(const void *state);
  bool (*idle)(const void *state);
  uint32_t (*resident_ctas)(const void *state);
  uint32_t (*flush_l1)(void *state, uint64_t now);
  void (*dump)(const void *state, void (*line)(void *ctx, const char *text), void *ctx);
  /* optional (NULL: the caller delivers timed replies when they are due) */
  bool (*mem_reply_at)(void *state, mem_req *reply, uint64_t at);
  /* optional (NULL: the variant never lets warps wait on replayable faults) */
  void (*replay)(void *state, bool cancel, uint64_t now);
} simt_core_ops;

extern const simt_core_ops simt_func_ops;
extern const simt_core_ops simt_ca_ops;
extern const simt_core_ops simt_at_ops;
extern const simt_core_ops simt_interval_ops;

/* Shared by the variants: the instruction and thread counters every variant bumps. */
typedef struct simt_insn_counters {
  uint64_t *gpu_sim_insn;      /* thread instructions (active lanes) */
  uint64_t *thrd_icount;       /* gpgpu_n_tot_thrd_icount */
  uint64_t *w_icount;          /* gpgpu_n_tot_w_icount */
  uint64_t *core_warp_insn;    /* simt_core[<sm>].warp_insn */
  uint64_t *core_thread_insn;  /* simt_core[<sm>].thread_insn */
} simt_insn_counters;
/* Registers them (stats may be NULL: the pointers then point at private scratch). */
void simt_insn_counters_register(simt_insn_counters *c, stats *st, uint32_t sm, uint64_t *scratch);

/* Fault and deadlock reports, shared by the variants: the text goes through ports->messages
 * (SIMTVP_ERROR) and, when ports->fault is connected, the structured report (simt.h).
 * simt_report_fault: a fault models/func reported in d (every place field it filled is kept),
 * ending a CTA with status; text is the human-readable report (it becomes report->message).
 * simt_report_deadlock: a barrier deadlock of CTA cta[] of k; pc is the barrier instruction the
 * first waiting warp waits at (its PTX file:line from k->program's module); thread is (0,0,0);
 * text is the headline (the report's message), sent with "; warps:" when warps_follow (the
 * caller then sends one line per warp). */
void simt_report_fault(const simt_core_ports *ports, uint32_t sm, uint32_t kernel_slot, simtvp_status status,
                       const simtvp_diag *d, const char *text, uint64_t now);
void simt_report_deadlock(const simt_core_ports *ports, uint32_t sm, const simt_kernel *k, const uint32_t cta[3],
                          uint32_t pc, const char *text, bool warps_follow, uint64_t now);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_SIMT_VARIANT_H */
