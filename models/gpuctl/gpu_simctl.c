/* gpu_simctl — simulation control of the timing GPU (gpu_simctl.h). */
#include "gpu_simctl.h"

#include <stdlib.h>
#include <string.h>

typedef struct simctl_core {
  uint32_t warps;    /* warps of the resident CTAs */
  uint64_t since;    /* cycle up to which the core's occupancy is accounted */
} simctl_core;

struct gpu_simctl {
  gpu_simctl_config cfg;
  uint32_t running;          /* kernels running */
  uint64_t busy_total;       /* busy cycles before busy_since */
  uint64_t busy_since;       /* start of the current busy period (running > 0) */
  uint64_t ctas_started, ctas_ended; /* resident CTAs = started - ended */
  gpu_simctl_stop sticky;    /* a cycle or instruction limit that stopped the run */
  uint64_t progress;         /* instructions + CTAs ended at the last change */
  uint64_t last_progress;    /* cycle of the last change */
  simctl_core *cores;
  uint64_t *warp_cycles, *slot_cycles;
  uint64_t scratch[2];
  bool held;              /* gpu_simctl_hold: warps wait on the driver (replayable faults) */
};

simtvp_status gpu_simctl_create(const gpu_simctl_config *cfg, gpu_simctl **out, simtvp_diag *diag) {
  *out = NULL;
  if (!cfg->insn || cfg->n_cores == 0)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "gpu_simctl: needs an instruction counter and at least one core");
  gpu_simctl *s = calloc(1, sizeof *s);
  if (!s) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "gpu_simctl: out of host memory");
  s->cfg = *cfg;
  if (s->cfg.deadlock_detect && s->cfg.deadlock_cycles == 0) s->cfg.deadlock_cycles = 1;
  s->cores = calloc(cfg->n_cores, sizeof *s->cores);
  if (!s->cores) {
    free(s);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "gpu_simctl: out of host memory");
  }
  if (cfg->st) {
    s->warp_cycles = stats_counter(cfg->st, "simt.resident_warp_cycles", "warp-cycles",
                                   "warps of resident CTAs, summed over the core cycles in which a core held a CTA");
    s->slot_cycles = stats_counter(cfg->st, "simt.warp_slot_cycles", "warp-cycles",
                                   "warp slots, summed over the core cycles in which a core held a CTA");
    stats_ratio(cfg->st, "gpu_occupancy", "resident warps per warp slot while a core holds a CTA (0..1)",
                "simt.resident_warp_cycles", "simt.warp_slot_cycles");
  } else {
    s->warp_cycles = &s->scratch[0];
    s->slot_cycles = &s->scratch[1];
  }
  *out = s;
  return SIMTVP_OK;
}

void gpu_simctl_destroy(gpu_simctl *s) {
  if (!s) return;
  free(s->cores);
  free(s);
}

/* ---- occupancy ----------------------------------------------------------------------------- */

static void account(gpu_simctl *s, uint32_t sm, uint64_t now) {
  simctl_core *c = &s->cores[sm];
  if (now <= c->since) return;
  if (c->warps) {
    uint64_t n = now - c->since;
    *s->warp_cycles += (uint64_t)c->warps * n;
    *s->slot_cycles += (uint64_t)s->cfg.max_warps * n;
  }
  c->since = now;
}

static void account_all(gpu_simctl *s, uint64_t now) {
  for (uint32_t i = 0; i < s->cfg.n_cores; i++) account(s, i, now);
}

/* ---- kernels and CTAs ---------------------------------------------------------------------- */

static void note_progress(gpu_simctl *s, uint64_t now) {
  uint64_t p = *s->cfg.insn + s->ctas_ended;
  if (p != s->progress) {
    s->progress = p;
    s->last_progress = now;
  }
}

void gpu_simctl_kernel_begin(gpu_simctl *s, uint64_t now) {
  if (s->running++ == 0) {
    s->busy_since = now;
    s->progress = *s->cfg.insn + s->ctas_ended;
    s->last_progress = now;
  }
}

void gpu_simctl_kernel_end(gpu_simctl *s, uint64_t now) {
  account_all(s, now); /* the kernel's statistics end here: bring occupancy up to date */
  if (s->running == 0) return;
  if (--s->running == 0) s->busy_total += now > s->busy_since ? now - s->busy_since : 0;
}

uint32_t gpu_simctl_running_kernels(const gpu_simctl *s) { return s->running; }

bool gpu_simctl_may_start(const gpu_simctl *s, gpu_simctl_stop *why) {
  gpu_simctl_stop w = GPU_SIMCTL_RUN;
  if (s->sticky != GPU_SIMCTL_RUN)
    w = s->sticky;
  else if (s->cfg.max_cta && s->ctas_started >= s->cfg.max_cta)
    w = GPU_SIMCTL_MAX_CTA;
  if (why) *why = w;
  return w == GPU_SIMCTL_RUN;
}

void gpu_simctl_cta_start(gpu_simctl *s, uint32_t sm, uint32_t warps, uint64_t now) {
  if (sm >= s->cfg.n_cores) return;
  account(s, sm, now);
  /* The deadlock window opens when the first CTA becomes resident: before that a kernel may
   * legitimately wait (-gpgpu_kernel_launch_latency, -gpgpu_TB_launch_latency). */
  if (s->ctas_started == s->ctas_ended) {
    s->progress = *s->cfg.insn + s->ctas_ended;
    s->last_progress = now;
  }
  s->cores[sm].warps += warps;
  s->ctas_started++;
}

void gpu_simctl_cta_end(gpu_simctl *s, uint32_t sm, uint32_t warps, uint64_t now) {
  if (sm >= s->cfg.n_cores) return;
  account(s, sm, now);
  s->cores[sm].warps = s->cores[sm].warps > warps ? s->cores[sm].warps - warps : 0;
  s->ctas_ended++;
  note_progress(s, now);
}

/* ---- checks -------------------------------------------------------------------------------- */

uint64_t gpu_simctl_busy_cycles(const gpu_simctl *s, uint64_t now) {
  return s->busy_total + (s->running && now > s->busy_since ? now - s->busy_since : 0);
}

uint64_t gpu_simctl_quiet_cycles(const gpu_simctl *s, uint64_t now) {
  return s->running && now > s->last_progress ? now - s->last_progress : 0;
}

uint64_t gpu_simctl_ctas_started(const gpu_simctl *s) { return s->ctas_started; }

void gpu_simctl_hold(gpu_simctl *s, bool on, uint64_t now) {
  if (s->held && !on) s->last_progress = now; /* the window starts again */
  s->held = on;
}

gpu_simctl_stop gpu_simctl_check(gpu_simctl *s, uint64_t now) {
  if (!s->running) return GPU_SIMCTL_RUN;
  note_progress(s, now);
  if (s->sticky == GPU_SIMCTL_RUN) {
    if (s->cfg.max_cycle && gpu_simctl_busy_cycles(s, now) >= s->cfg.max_cycle) return GPU_SIMCTL_MAX_CYCLE;
    if (s->cfg.max_insn && *s->cfg.insn >= s->cfg.max_insn) return GPU_SIMCTL_MAX_INSN;
  }
  if (s->cfg.deadlock_detect && !s->held && s->ctas_started != s->ctas_ended &&
      now - s->last_progress >= s->cfg.deadlock_cycles)
    return GPU_SIMCTL_DEADLOCK;
  return GPU_SIMCTL_RUN;
}

uint64_t gpu_simctl_next_check(const gpu_simctl *s) {
  if (!s->running) return GPU_SIMCTL_NEVER;
  uint64_t t = GPU_SIMCTL_NEVER;
  if (s->cfg.max_cycle && s->sticky == GPU_SIMCTL_RUN) {
    uint64_t left = s->cfg.max_cycle > s->busy_total ? s->cfg.max_cycle - s->busy_total : 0;
    t = s->busy_since + left;
  }
  if (s->cfg.deadlock_detect && !s->held && s->ctas_started != s->ctas_ended) {
    uint64_t d = s->last_progress + s->cfg.deadlock_cycles;
    if (d < t) t = d;
  }
  return t;
}

void gpu_simctl_stopped(gpu_simctl *s, gpu_simctl_stop why, uint64_t now) {
  if (why == GPU_SIMCTL_MAX_CYCLE || why == GPU_SIMCTL_MAX_INSN) s->sticky = why;
  s->progress = *s->cfg.insn + s->ctas_ended;
  s->last_progress = now;
}

void gpu_simctl_reset(gpu_simctl *s, uint64_t now) {
  account_all(s, now);
  for (uint32_t i = 0; i < s->cfg.n_cores; i++) s->cores[i].warps = 0;
  if (s->running) s->busy_total += now > s->busy_since ? now - s->busy_since : 0;
  s->running = 0;
}

const char *gpu_simctl_stop_option(gpu_simctl_stop why) {
  switch (why) {
  case GPU_SIMCTL_MAX_CYCLE: return "-gpgpu_max_cycle";
  case GPU_SIMCTL_MAX_INSN: return "-gpgpu_max_insn";
  case GPU_SIMCTL_MAX_CTA: return "-gpgpu_max_cta";
  case GPU_SIMCTL_DEADLOCK: return "-deadlock_cycles";
  default: return "";
  }
}

simtvp_status gpu_simctl_stop_status(gpu_simctl_stop why) {
  switch (why) {
  case GPU_SIMCTL_RUN: return SIMTVP_OK;
  case GPU_SIMCTL_DEADLOCK: return SIMTVP_ERR_DEADLOCK;
  default: return SIMTVP_ERR_LIMIT;
  }
}
