/* gpu_disp — kernel/CTA dispatcher (see gpu_disp.h). */
#include "gpu_disp.h"

#include <stdlib.h>
#include <string.h>

typedef struct disp_kernel {
  bool active;
  bool begun;
  uint32_t tag;
  gpu_kernel k;
  uint8_t *params;       /* max_param_bytes, owned */
  gpu_cta_usage use;
  uint64_t next_cta;     /* linear index of the next CTA to issue */
  uint64_t issue_from;   /* first cycle at which its CTAs may issue (kernel launch latency) */
  uint64_t ctas_done;
  gpu_kernel_result result;
  uint32_t cluster_size; /* CTAs issued together (thread block clusters), 1 without */
  /* No SM had room for a CTA of this kernel when d->releases was full_at - 1 (0: not known):
   * since then only an SM released later (release_seq >= full_at) can have room. */
  uint64_t full_at;
} disp_kernel;

typedef struct disp_sm {
  uint32_t threads, warps, ctas, regs, smem;
} disp_sm;

/* A CTA issued (its core's resources taken) that reaches the core at `due` (CTA launch latency). */
typedef struct disp_start {
  uint64_t due;
  uint32_t slot, sm;
  uint32_t cta[3];
} disp_start;

struct gpu_disp {
  gpu_disp_config cfg;
  gpu_disp_ports ports;
  uint32_t n_sms;
  disp_kernel *kernels;
  /* One past the highest active kernel slot, and the active count: the per-advance loops over
   * kernels stop there (32 slots by default, kernels take the lowest free one). */
  uint32_t kernels_hi, n_active;
  disp_sm *sms;
  uint32_t *resident;    /* [sm * max_kernels + slot] CTAs of that kernel on that SM */
  uint32_t *sm_of_pos;   /* [round-robin position] its SM (cluster-first order, sm_at) */
  uint32_t *pos_of_sm;   /* and back */
  uint64_t *release_seq; /* [sm] d->releases when a CTA last left it */
  uint32_t *release_log; /* [seq % n_sms] the SM of release number seq (the last n_sms releases) */
  uint64_t releases;     /* CTAs released so far */
  uint32_t next_pos;     /* round-robin position in the cluster-first SM order */
  uint64_t launch_uid;
  uint64_t issue_cycle;  /* cycle of the last issue round (ctas_per_cycle accounting) */
  uint32_t issued_this_cycle;
  uint64_t pending_at;   /* a CTA finished or a kernel arrived: advance is due at this cycle */
  uint64_t now;          /* cycle of the latest advance */
  /* CTAs on their way to a core, in issue order (a constant latency keeps `due` sorted): a ring
   * of one entry per CTA slot of the GPU, which bounds how many can be issued at once. */
  disp_start *starts;
  uint32_t starts_cap, starts_head, starts_n;
  bool in_advance;
  gpu_disp_counters local;
  struct { uint64_t *kernels, *ctas_issued, *ctas_done, *cta_faults; } ctr;
};

gpu_disp *gpu_disp_create(const gpu_disp_config *config, gpu_disp_ports ports) {
  gpu_disp *d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->cfg = *config;
  if (!d->cfg.max_kernels) d->cfg.max_kernels = 1;
  if (!d->cfg.max_param_bytes) d->cfg.max_param_bytes = 32764;
  if (!d->cfg.n_clusters) d->cfg.n_clusters = 1;
  if (!d->cfg.cores_per_cluster) d->cfg.cores_per_cluster = 1;
  d->ports = ports;
  d->ctr.kernels = &d->local.kernels;
  d->ctr.ctas_issued = &d->local.ctas_issued;
  d->ctr.ctas_done = &d->local.ctas_done;
  d->ctr.cta_faults = &d->local.cta_faults;
  d->n_sms = d->cfg.n_clusters * d->cfg.cores_per_cluster;
  d->kernels = calloc(d->cfg.max_kernels, sizeof *d->kernels);
  d->sms = calloc(d->n_sms, sizeof *d->sms);
  d->resident = calloc((size_t)d->n_sms * d->cfg.max_kernels, sizeof *d->resident);
  d->sm_of_pos = calloc(d->n_sms, sizeof *d->sm_of_pos);
  d->release_seq = calloc(d->n_sms, sizeof *d->release_seq);
  d->release_log = calloc(d->n_sms, sizeof *d->release_log);
  d->pos_of_sm = calloc(d->n_sms, sizeof *d->pos_of_sm);
  d->starts_cap = d->n_sms * (d->cfg.sm.max_ctas ? d->cfg.sm.max_ctas : 1);
  d->starts = d->cfg.cta_launch_cycles ? calloc(d->starts_cap, sizeof *d->starts) : NULL;
  if (!d->kernels || !d->sms || !d->resident || !d->sm_of_pos || !d->pos_of_sm || !d->release_seq ||
      !d->release_log || (d->cfg.cta_launch_cycles && !d->starts)) {
    gpu_disp_destroy(d);
    return NULL;
  }
  for (uint32_t pos = 0; pos < d->n_sms; pos++) {
    uint32_t cluster = pos % d->cfg.n_clusters, core = pos / d->cfg.n_clusters;
    d->sm_of_pos[pos] = cluster * d->cfg.cores_per_cluster + core;
    d->pos_of_sm[d->sm_of_pos[pos]] = pos;
  }
  for (uint32_t i = 0; i < d->cfg.max_kernels; i++) {
    d->kernels[i].params = malloc(d->cfg.max_param_bytes);
    if (!d->kernels[i].params) {
      gpu_disp_destroy(d);
      return NULL;
    }
  }
  d->pending_at = UINT64_MAX;
  return d;
}

void gpu_disp_destroy(gpu_disp *d) {
  if (!d) return;
  if (d->kernels)
    for (uint32_t i = 0; i < d->cfg.max_kernels; i++) free(d->kernels[i].params);
  free(d->kernels);
  free(d->sms);
  free(d->resident);
  free(d->sm_of_pos);
  free(d->release_seq);
  free(d->release_log);
  free(d->pos_of_sm);
  free(d->starts);
  free(d);
}

void gpu_disp_reset(gpu_disp *d) {
  for (uint32_t i = 0; i < d->cfg.max_kernels; i++) d->kernels[i].active = false;
  d->kernels_hi = d->n_active = 0;
  memset(d->sms, 0, d->n_sms * sizeof *d->sms);
  memset(d->resident, 0, (size_t)d->n_sms * d->cfg.max_kernels * sizeof *d->resident);
  d->next_pos = 0;
  d->pending_at = UINT64_MAX;
  d->issued_this_cycle = 0;
  d->starts_head = d->starts_n = 0;
}

bool gpu_disp_launch(gpu_disp *d, const gpu_launch_desc *desc, uint32_t tag, uint64_t now) {
  disp_kernel *dk = NULL;
  uint32_t threads = desc->block[0] * desc->block[1] * desc->block[2];
  gpu_cta_usage use = gpu_cta_usage_of(&d->cfg.sm, threads, desc->regs_per_thread,
                                       desc->smem_static + desc->smem_dynamic);
  if (gpu_occupancy(&d->cfg.sm, &use, NULL) == 0 || desc->param_bytes > d->cfg.max_param_bytes)
    return false;
  uint64_t csize = 1;
  for (int i = 0; i < 3; i++) {
    uint32_t c = desc->cluster[i] ? desc->cluster[i] : 1;
    if (desc->grid[i] % c) return false;
    csize *= c;
  }
  /* a cluster's CTAs must be resident together (the command processor checks this first) */
  if (csize > GPU_MAX_CLUSTER_CTAS || (uint64_t)gpu_occupancy(&d->cfg.sm, &use, NULL) * d->n_sms < csize)
    return false;
  for (uint32_t i = 0; i < d->cfg.max_kernels && !dk; i++)
    if (!d->kernels[i].active) dk = &d->kernels[i];
  if (!dk) return false;
  dk->active = true;
  d->n_active++;
  if (dk - d->kernels >= (ptrdiff_t)d->kernels_hi) d->kernels_hi = (uint32_t)(dk - d->kernels) + 1;
  dk->begun = false;
  dk->tag = tag;
  dk->use = use;
  dk->next_cta = 0;
  dk->issue_from = UINT64_MAX; /* set when it begins */
  dk->ctas_done = 0;
  dk->full_at = 0;
  memset(&dk->result, 0, sizeof dk->result);
  dk->k.slot = (uint32_t)(dk - d->kernels);
  dk->k.launch_uid = ++d->launch_uid;
  dk->k.n_ctas = (uint64_t)desc->grid[0] * desc->grid[1] * desc->grid[2];
  dk->k.threads_per_cta = threads;
  dk->k.desc = *desc;
  for (int i = 0; i < 3; i++)
    if (!dk->k.desc.cluster[i]) dk->k.desc.cluster[i] = 1;
  dk->cluster_size = dk->k.desc.cluster[0] * dk->k.desc.cluster[1] * dk->k.desc.cluster[2];
  if (desc->param_bytes) memcpy(dk->params, desc->params, desc->param_bytes);
  dk->k.desc.params = dk->params;
  ++*d->ctr.kernels;
  if (now < d->pending_at) d->pending_at = now;
  return true;
}

static bool fits(const gpu_disp *d, const disp_sm *s, const gpu_cta_usage *u) {
  const gpu_sm_limits *l = &d->cfg.sm;
  return s->ctas + 1 <= l->max_ctas && s->threads + u->threads <= l->max_threads &&
         s->warps + u->warps <= l->max_warps && s->regs + u->regs <= l->regs &&
         s->smem + u->smem <= l->smem_bytes;
}

static uint32_t sm_at(const gpu_disp *d, uint32_t pos) { return d->sm_of_pos[pos]; }

/* The first round-robin position from next_pos on whose SM has room for a CTA of dk, or
 * UINT32_MAX. A kernel no SM had room for (full_at) is looked for only on the SMs released since:
 * the others only filled up. Once every GPU slot is taken, a CTA leaving frees one SM, and the
 * scan after each issue (80 fits() on QV100) was most of the dispatcher's time per CTA. */
static uint32_t find_room(gpu_disp *d, disp_kernel *dk) {
  if (dk->full_at > d->releases) return UINT32_MAX; /* nothing left since it was full */
  if (dk->full_at && d->releases - dk->full_at < d->n_sms) {
    /* the few SMs released since, from the log: the fitting one nearest next_pos round robin */
    uint32_t best = UINT32_MAX, best_dist = UINT32_MAX;
    for (uint64_t q = dk->full_at; q <= d->releases; q++) {
      uint32_t sm = d->release_log[q % d->n_sms], pos = d->pos_of_sm[sm];
      uint32_t dist = pos >= d->next_pos ? pos - d->next_pos : pos + d->n_sms - d->next_pos;
      if (dist < best_dist && fits(d, &d->sms[sm], &dk->use)) best = pos, best_dist = dist;
    }
    if (best == UINT32_MAX) dk->full_at = d->releases + 1;
    return best;
  }
  uint32_t pos = d->next_pos;
  for (uint32_t j = 0; j < d->n_sms; j++) {
    uint32_t sm = d->sm_of_pos[pos];
    if (d->release_seq[sm] >= dk->full_at && fits(d, &d->sms[sm], &dk->use)) return pos;
    if (++pos == d->n_sms) pos = 0;
  }
  dk->full_at = d->releases + 1;
  return UINT32_MAX;
}

/* CTA coordinates of the i-th CTA a kernel issues: linear order, or, with clusters, cluster after
 * cluster (CTAs of one cluster by rank, x fastest) so a cluster's CTAs issue together. */
static void cta_of_index(const disp_kernel *dk, uint64_t i, uint32_t cta[3]) {
  const uint32_t *g = dk->k.desc.grid, *c = dk->k.desc.cluster;
  if (dk->cluster_size == 1) {
    cta[0] = (uint32_t)(i % g[0]);
    cta[1] = (uint32_t)((i / g[0]) % g[1]);
    cta[2] = (uint32_t)(i / ((uint64_t)g[0] * g[1]));
    return;
  }
  uint64_t q = i / dk->cluster_size, ncx = g[0] / c[0], ncy = g[1] / c[1];
  uint32_t r = (uint32_t)(i % dk->cluster_size);
  cta[0] = (uint32_t)(q % ncx) * c[0] + r % c[0];
  cta[1] = (uint32_t)((q / ncx) % ncy) * c[1] + (r / c[0]) % c[1];
  cta[2] = (uint32_t)(q / (ncx * ncy)) * c[2] + r / (c[0] * c[1]);
}

/* Plans where the next cluster of dk goes: its CTAs in rank order, one per SM round robin from
 * position `from` (as hardware spreads a cluster over the SMs of a GPC), an SM taking more than
 * one only when the others are full. Fills pos[0 .. cluster_size) and returns true when every CTA
 * fits now (the books are tried on copies; nothing is changed). */
static bool plan_cluster(const gpu_disp *d, const disp_kernel *dk, uint32_t from, uint32_t *pos) {
  uint32_t placed = 0, misses = 0;
  for (uint32_t p = from; placed < dk->cluster_size && misses < d->n_sms; p = (p + 1) % d->n_sms) {
    disp_sm s = d->sms[sm_at(d, p)];
    for (uint32_t i = 0; i < placed; i++)
      if (pos[i] == p) {
        s.ctas++;
        s.threads += dk->use.threads;
        s.warps += dk->use.warps;
        s.regs += dk->use.regs;
        s.smem += dk->use.smem;
      }
    if (fits(d, &s, &dk->use)) {
      pos[placed++] = p;
      misses = 0;
    } else {
      misses++;
    }
  }
  return placed == dk->cluster_size;
}

/* Places one CTA of `best` (its next) on the SM at round-robin position best_pos. */
static void place(gpu_disp *d, disp_kernel *best, uint32_t best_pos);

/* The oldest active kernel with CTAs left that fits some SM: issue one CTA, or with clusters
 * every CTA of its next cluster at once (all fit, or none is issued). */
static bool issue_one(gpu_disp *d) {
  disp_kernel *best = NULL;
  uint32_t best_pos = 0, plan[GPU_MAX_CLUSTER_CTAS], best_plan[GPU_MAX_CLUSTER_CTAS];
  for (uint32_t i = 0; i < d->kernels_hi; i++) {
    disp_kernel *dk = &d->kernels[i];
    if (!dk->active || !dk->begun || dk->next_cta >= dk->k.n_ctas || dk->issue_from > d->now) continue;
    if (best && best->k.launch_uid < dk->k.launch_uid) continue;
    if (dk->cluster_size > 1) {
      if (plan_cluster(d, dk, d->next_pos, plan)) {
        best = dk;
        memcpy(best_plan, plan, dk->cluster_size * sizeof plan[0]);
      }
      continue;
    }
    uint32_t pos = find_room(d, dk);
    if (pos != UINT32_MAX) {
      best = dk;
      best_pos = pos;
    }
  }
  if (!best) return false;
  if (best->cluster_size == 1) {
    place(d, best, best_pos);
    return true;
  }
  for (uint32_t n = 0; n < best->cluster_size; n++) place(d, best, best_plan[n]);
  return true;
}

static void place(gpu_disp *d, disp_kernel *best, uint32_t best_pos) {
  uint32_t sm = sm_at(d, best_pos);
  disp_sm *s = &d->sms[sm];
  uint64_t i = best->next_cta++;
  uint32_t cta[3];
  cta_of_index(best, i, cta);
  s->ctas++;
  s->threads += best->use.threads;
  s->warps += best->use.warps;
  s->regs += best->use.regs;
  s->smem += best->use.smem;
  d->resident[(size_t)sm * d->cfg.max_kernels + best->k.slot]++;
  d->next_pos = (best_pos + 1) % d->n_sms;
  ++*d->ctr.ctas_issued;
  if (d->cfg.cta_launch_cycles) {
    /* Cannot overflow: every entry holds one of the starts_cap CTA slots fits() hands out. */
    disp_start *e = &d->starts[(d->starts_head + d->starts_n++) % d->starts_cap];
    e->due = d->now + d->cfg.cta_launch_cycles;
    e->slot = best->k.slot;
    e->sm = sm;
    memcpy(e->cta, cta, sizeof e->cta);
  } else {
    d->ports.simt.launch_cta(d->ports.simt.ctx, &best->k, sm, cta);
  }
}

/* Hands the CTAs whose launch latency is over to their cores, in issue order. */
static bool start_due(gpu_disp *d) {
  bool any = false;
  while (d->starts_n && d->starts[d->starts_head].due <= d->now) {
    disp_start e = d->starts[d->starts_head];
    d->starts_head = (d->starts_head + 1) % d->starts_cap;
    d->starts_n--;
    any = true;
    d->ports.simt.launch_cta(d->ports.simt.ctx, &d->kernels[e.slot].k, e.sm, e.cta);
  }
  return any;
}

/* Frees the core resources of one CTA of dk on core sm. */
static void release(gpu_disp *d, disp_kernel *dk, uint32_t sm) {
  d->resident[(size_t)sm * d->cfg.max_kernels + dk->k.slot]--;
  disp_sm *s = &d->sms[sm];
  d->release_seq[sm] = ++d->releases;
  d->release_log[d->releases % d->n_sms] = sm;
  s->ctas--;
  s->threads -= dk->use.threads;
  s->warps -= dk->use.warps;
  s->regs -= dk->use.regs;
  s->smem -= dk->use.smem;
}

/* Some active kernel still has CTAs to issue (or has not begun). */
static bool ctas_to_issue(const gpu_disp *d) {
  for (uint32_t i = 0; i < d->kernels_hi; i++)
    if (d->kernels[i].active && d->kernels[i].next_cta < d->kernels[i].k.n_ctas) return true;
  return false;
}

void gpu_disp_cta_done(gpu_disp *d, uint32_t sm, uint32_t slot, const gpu_cta_result *r,
                       uint64_t now) {
  disp_kernel *dk;
  uint32_t *res;
  if (sm >= d->n_sms || slot >= d->cfg.max_kernels) return;
  dk = &d->kernels[slot];
  res = &d->resident[(size_t)sm * d->cfg.max_kernels + slot];
  if (!dk->active || *res == 0) return; /* not ours: ignore rather than corrupt the books */
  release(d, dk, sm);
  dk->ctas_done++;
  ++*d->ctr.ctas_done;
  if (r && r->status != SIMTVP_OK) {
    ++*d->ctr.cta_faults;
    if (dk->result.status == SIMTVP_OK) dk->result = *r;
  }
  /* The freed room matters now only to a kernel with CTAs left to issue; otherwise only the
   * kernel's last CTA makes work (its end). In a grid's tail — QV100 vector add 262 144: the
   * last 640 of 1 024 CTAs — the other completions leave nothing due, and the module's thread
   * is not woken for them (gpu_disp_next_event). */
  if (now < d->pending_at && (dk->ctas_done == dk->k.n_ctas || ctas_to_issue(d))) d->pending_at = now;
}

void gpu_disp_abort(gpu_disp *d, uint32_t slot, const gpu_kernel_result *why, uint64_t now) {
  if (slot >= d->cfg.max_kernels || !d->kernels[slot].active) return;
  disp_kernel *dk = &d->kernels[slot];
  uint64_t dropped = dk->k.n_ctas - dk->next_cta;
  dk->next_cta = dk->k.n_ctas;
  /* CTAs on their way to a core never get there: keep the others in order. */
  uint32_t kept = 0;
  for (uint32_t i = 0; i < d->starts_n; i++) {
    disp_start e = d->starts[(d->starts_head + i) % d->starts_cap];
    if (e.slot == slot) {
      release(d, dk, e.sm);
      dropped++;
    } else {
      d->starts[(d->starts_head + kept++) % d->starts_cap] = e;
    }
  }
  d->starts_n = kept;
  dk->ctas_done += dropped; /* for retiring the kernel; cta_disp.ctas_done counts CTAs that ran */
  if (why && why->status != SIMTVP_OK && dk->result.status == SIMTVP_OK) dk->result = *why;
  if (now < d->pending_at) d->pending_at = now;
}

static void finish(gpu_disp *d, disp_kernel *dk, uint64_t now) {
  gpu_kernel_result r = dk->result;
  uint32_t tag = dk->tag;
  if (dk->begun && d->ports.simt.kernel_end) d->ports.simt.kernel_end(d->ports.simt.ctx, &dk->k);
  dk->active = false;
  d->n_active--;
  while (d->kernels_hi && !d->kernels[d->kernels_hi - 1].active) d->kernels_hi--;
  if (d->ports.kernel_done.done) d->ports.kernel_done.done(d->ports.kernel_done.ctx, tag, &r, now);
}

void gpu_disp_advance(gpu_disp *d, uint64_t now) {
  bool progress;
  if (d->in_advance) return;
  d->in_advance = true;
  if (now > d->now) d->now = now;
  if (now != d->issue_cycle) {
    d->issue_cycle = now;
    d->issued_this_cycle = 0;
  }
  do {
    progress = false;
    for (uint32_t i = 0; i < d->kernels_hi; i++) {
      disp_kernel *dk = &d->kernels[i];
      if (dk->active && !dk->begun) {
        gpu_kernel_result why = {SIMTVP_OK, 0, 0};
        dk->begun = true;
        dk->issue_from = d->now + d->cfg.kernel_launch_cycles;
        if (d->ports.simt.kernel_begin && !d->ports.simt.kernel_begin(d->ports.simt.ctx, &dk->k, &why)) {
          if (why.status == SIMTVP_OK) why.status = SIMTVP_ERR_FAULT;
          dk->result = why;
          dk->next_cta = dk->k.n_ctas; /* nothing will be issued */
          dk->ctas_done = dk->k.n_ctas;
          dk->begun = false;           /* no kernel_end for a refused kernel */
        }
      }
    }
    if (start_due(d)) progress = true;
    while (!d->cfg.ctas_per_cycle || d->issued_this_cycle < d->cfg.ctas_per_cycle) {
      if (!issue_one(d)) break;
      d->issued_this_cycle++;
      progress = true;
    }
    for (uint32_t i = 0; i < d->kernels_hi; i++) {
      disp_kernel *dk = &d->kernels[i];
      if (dk->active && dk->ctas_done == dk->k.n_ctas && dk->next_cta == dk->k.n_ctas) {
        finish(d, dk, now);
        progress = true;
      }
    }
    d->pending_at = UINT64_MAX;
  } while (progress);
  d->in_advance = false;
}

static bool fits_somewhere(const gpu_disp *d, const disp_kernel *dk) {
  for (uint32_t s = 0; s < d->n_sms; s++)
    if (fits(d, &d->sms[s], &dk->use)) return true;
  return false;
}

uint64_t gpu_disp_next_event(const gpu_disp *d) {
  uint64_t t = d->pending_at;
  if (d->starts_n && d->starts[d->starts_head].due < t) t = d->starts[d->starts_head].due;
  bool limited = d->cfg.ctas_per_cycle && d->issued_this_cycle >= d->cfg.ctas_per_cycle;
  for (uint32_t i = 0; i < d->kernels_hi; i++) {
    const disp_kernel *dk = &d->kernels[i];
    if (!dk->active || !dk->begun || dk->next_cta >= dk->k.n_ctas) continue;
    if (dk->issue_from > d->now) {
      /* Its launch latency ends then (whether a CTA fits is decided at that cycle). */
      if (dk->issue_from < t) t = dk->issue_from;
    } else if (limited && d->issue_cycle + 1 < t && fits_somewhere(d, dk)) {
      /* With an issue limit, CTAs left over that fit go out next cycle. */
      t = d->issue_cycle + 1;
    }
  }
  return t;
}

uint32_t gpu_disp_running_kernels(const gpu_disp *d) { return d->n_active; }

uint32_t gpu_disp_resident_ctas(const gpu_disp *d, uint32_t sm) {
  return sm < d->n_sms ? d->sms[sm].ctas : 0;
}

uint32_t gpu_disp_resident_ctas_of(const gpu_disp *d, uint32_t sm, uint32_t slot) {
  return sm < d->n_sms && slot < d->cfg.max_kernels ? d->resident[(size_t)sm * d->cfg.max_kernels + slot] : 0;
}

uint32_t gpu_disp_starting_ctas(const gpu_disp *d) { return d->starts_n; }

gpu_disp_counters gpu_disp_get_counters(const gpu_disp *d) {
  gpu_disp_counters c = {*d->ctr.kernels, *d->ctr.ctas_issued, *d->ctr.ctas_done, *d->ctr.cta_faults};
  return c;
}

void gpu_disp_register_stats(gpu_disp *d, stats *st) {
  if (!st) return;
  d->ctr.kernels = stats_counter(st, "cta_disp.kernels", "kernels", "kernels accepted by the CTA dispatcher");
  d->ctr.ctas_issued = stats_counter(st, "cta_disp.ctas_issued", "ctas", "CTAs placed on SIMT cores");
  d->ctr.ctas_done = stats_counter(st, "cta_disp.ctas_done", "ctas", "CTAs that finished");
  d->ctr.cta_faults = stats_counter(st, "cta_disp.cta_faults", "ctas", "CTAs that ended with a fault or trap");
}
