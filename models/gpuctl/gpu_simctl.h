/* gpu_simctl — simulation control of the timing GPU: the bookkeeping behind GPGPU-Sim's
 * -gpgpu_max_cycle, -gpgpu_max_insn, -gpgpu_max_cta and -gpgpu_deadlock_detect/-deadlock_cycles
 * (GPGPU-Sim 3.x manual §3.2 "Simulation control" options), and the GPU occupancy statistic
 * (gpu_occupancy: resident warps over warp slots, in core cycles while a core holds a CTA).
 *
 * The timing SIMT side's model core (gpu_simt_timing.c) tells it when kernels begin and end and
 * when CTAs start and finish, calls gpu_simctl_check after every cluster tick and at the cycle
 * gpu_simctl_next_check names, and performs the stop the check asks for (it drops the resident
 * CTAs and reports them to the dispatcher with the stop's status). Everything is counted on
 * events: nothing runs per idle cycle.
 *
 * Meanings (all totals over the run, as GPGPU-Sim's gpu_tot_* checks):
 *   max_cycle  core cycles during which at least one kernel runs (gpu_tot_sim_cycle);
 *   max_insn   thread instructions executed (gpu_tot_sim_insn, the counter the cores bump);
 *   max_cta    CTAs started; once reached, no further CTA starts (the running ones finish);
 *   deadlock   a kernel runs and a CTA is resident, but no thread instruction executed and no CTA
 *              finished for deadlock_cycles core cycles (the window opens when the first CTA
 *              becomes resident: a kernel waiting out its launch latencies is not deadlocked).
 * A cycle or instruction limit, once reached, stays reached: later kernels are refused. */
#ifndef SIMTVP_GPU_SIMCTL_H
#define SIMTVP_GPU_SIMCTL_H

#include <stdbool.h>
#include <stdint.h>

#include "simtvp_diag.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPU_SIMCTL_NEVER UINT64_MAX

typedef enum gpu_simctl_stop {
  GPU_SIMCTL_RUN = 0,       /* keep going */
  GPU_SIMCTL_MAX_CYCLE,     /* -gpgpu_max_cycle reached */
  GPU_SIMCTL_MAX_INSN,      /* -gpgpu_max_insn reached */
  GPU_SIMCTL_MAX_CTA,       /* -gpgpu_max_cta reached (no further CTA starts) */
  GPU_SIMCTL_DEADLOCK       /* no progress for -deadlock_cycles */
} gpu_simctl_stop;

typedef struct gpu_simctl_config {
  uint64_t max_cycle;       /* core cycles with a kernel running, whole run; 0 = no limit */
  uint64_t max_insn;        /* thread instructions, whole run; 0 = no limit */
  uint32_t max_cta;         /* CTAs started, whole run; 0 = no limit */
  bool deadlock_detect;     /* -gpgpu_deadlock_detect */
  uint64_t deadlock_cycles; /* -deadlock_cycles, core cycles (0 with detection on: 1) */
  uint32_t n_cores;         /* SIMT cores (occupancy) */
  uint32_t max_warps;       /* warp slots per core (occupancy) */
  const uint64_t *insn;     /* thread-instruction counter (gpu_sim_insn); must not be NULL */
  stats *st;                /* occupancy counters and ratio; may be NULL */
} gpu_simctl_config;

typedef struct gpu_simctl gpu_simctl;

/* SIMTVP_ERR_ARG without an instruction counter or cores. */
simtvp_status gpu_simctl_create(const gpu_simctl_config *cfg, gpu_simctl **out, simtvp_diag *diag);
void gpu_simctl_destroy(gpu_simctl *s);

/* Kernel boundaries (any number may run at once). */
void gpu_simctl_kernel_begin(gpu_simctl *s, uint64_t now);
void gpu_simctl_kernel_end(gpu_simctl *s, uint64_t now);
uint32_t gpu_simctl_running_kernels(const gpu_simctl *s);

/* May a CTA start? false once a cycle or instruction limit stopped the run or max_cta CTAs have
 * started; *why (may be NULL) then says which. */
bool gpu_simctl_may_start(const gpu_simctl *s, gpu_simctl_stop *why);
/* A CTA of `warps` warps started / ended on core sm at cycle now. */
void gpu_simctl_cta_start(gpu_simctl *s, uint32_t sm, uint32_t warps, uint64_t now);
void gpu_simctl_cta_end(gpu_simctl *s, uint32_t sm, uint32_t warps, uint64_t now);

/* What the run must do at cycle now (call after every tick of the SIMT cores and at
 * gpu_simctl_next_check): RUN, or the first limit reached (cycle, then instruction), or DEADLOCK.
 * Notes progress (instructions, finished CTAs) as it goes. */
gpu_simctl_stop gpu_simctl_check(gpu_simctl *s, uint64_t now);
/* The cycle at which a check must run even if no core ticks (cycle limit, end of the deadlock
 * window); GPU_SIMCTL_NEVER when no kernel runs. */
uint64_t gpu_simctl_next_check(const gpu_simctl *s);
/* The stop was carried out at cycle now: cycle and instruction limits stay in force; the deadlock
 * window starts again. */
void gpu_simctl_stopped(gpu_simctl *s, gpu_simctl_stop why, uint64_t now);

/* Core cycles with a kernel running, up to now. */
uint64_t gpu_simctl_busy_cycles(const gpu_simctl *s, uint64_t now);
/* Cycles since the last progress (0 when no kernel runs). */
uint64_t gpu_simctl_quiet_cycles(const gpu_simctl *s, uint64_t now);
/* CTAs started so far. */
uint64_t gpu_simctl_ctas_started(const gpu_simctl *s);

/* Warps wait on replayable faults the driver services (on) / the replay came (off, at cycle now):
 * meanwhile the deadlock window is suspended (the driver's migration takes GPU time without
 * instructions); it starts again at the replay. */
void gpu_simctl_hold(gpu_simctl *s, bool on, uint64_t now);

/* Hardware reset at cycle now: no kernel, no CTA (totals and reached limits are kept). */
void gpu_simctl_reset(gpu_simctl *s, uint64_t now);

/* The option behind a stop ("-gpgpu_max_cycle" …, "-deadlock_cycles"), and its status
 * (SIMTVP_ERR_LIMIT, or SIMTVP_ERR_DEADLOCK). */
const char *gpu_simctl_stop_option(gpu_simctl_stop why);
simtvp_status gpu_simctl_stop_status(gpu_simctl_stop why);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_GPU_SIMCTL_H */
