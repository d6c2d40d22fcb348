/* simt_cluster — cores sharing an injection port and a response FIFO (simt_cluster.h). */
#include "simt_cluster.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct core_port {
  simt_cluster *cl;
  uint32_t index;
} core_port;

struct simt_cluster {
  simt_cluster_config cfg;
  simt_cluster_ports ports;
  simt_core **cores;
  core_port *core_ports;
  uint32_t *sm_of;       /* global sm of core i */
  mem_req **fifo;        /* response FIFO (ring) */
  uint32_t fifo_cap, fifo_head, fifo_n;
  uint32_t rr;           /* core that goes first this cycle */
  uint64_t refused_at;   /* cycle + 1 in which the interconnect refused a request */
  uint64_t advanced_to;  /* cycle + 1 of the last advance */
  uint64_t *injected, *inject_refused, *fifo_full;
  uint64_t scratch;
  /* timed replies for cores that cannot take them ahead: (cycle, arrival order), earliest first */
  struct timed_reply { uint64_t at, seq; mem_req *req; } *timed;
  uint32_t n_timed, timed_cap;
  uint64_t timed_seq;
  /* CTAs of thread block clusters (launches of more than one CTA per cluster) resident in the
   * cores; slot_clustered[kernel slot]: whether the slot's kernel is such a launch */
  uint32_t cluster_ctas;
  bool *slot_clustered;
  uint32_t n_slots;
  /* an interval core (models/simt/interval) calls its memory port synchronously: the port's
   * model is shared by every SM, so the cluster ticks on the simulation thread */
  bool has_interval;
};

static bool timed_before(const struct timed_reply *a, const struct timed_reply *b) {
  return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static bool timed_push(simt_cluster *cl, uint64_t at, mem_req *req) {
  if (cl->n_timed == cl->timed_cap) {
    uint32_t cap = cl->timed_cap ? cl->timed_cap * 2 : 16;
    struct timed_reply *v = realloc(cl->timed, cap * sizeof *v);
    if (!v) return false;
    cl->timed = v;
    cl->timed_cap = cap;
  }
  struct timed_reply it = {at, cl->timed_seq++, req};
  uint32_t i = cl->n_timed++;
  while (i > 0 && timed_before(&it, &cl->timed[(i - 1) / 2])) {
    cl->timed[i] = cl->timed[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  cl->timed[i] = it;
  return true;
}

static mem_req *timed_pop(simt_cluster *cl) {
  mem_req *top = cl->timed[0].req;
  struct timed_reply last = cl->timed[--cl->n_timed];
  uint32_t i = 0;
  for (;;) {
    uint32_t l = 2 * i + 1, r = l + 1, m = i;
    const struct timed_reply *best = &last;
    if (l < cl->n_timed && timed_before(&cl->timed[l], best)) m = l, best = &cl->timed[l];
    if (r < cl->n_timed && timed_before(&cl->timed[r], best)) m = r;
    if (m == i) break;
    cl->timed[i] = cl->timed[m];
    i = m;
  }
  if (cl->n_timed) cl->timed[i] = last;
  return top;
}

/* ---- injection ------------------------------------------------------------------------------- */

/* Route: the sub-partition of the address, the interconnect nodes. */
/* System memory goes by its bus address (mem_req.bus_addr), as a GPU routes by physical address:
 * its virtual address is the host's, which moves between runs. */
static void route(const simt_cluster *cl, mem_req *req) {
  uint32_t sub = 0, part = 0;
  const mem_aperture_port *ap = &cl->cfg.aperture;
  req->bus_addr = 0;
  req->aperture = ap->of_bus ? ap->of_bus(ap->ctx, req->addr, &req->bus_addr)
                  : ap->of   ? ap->of(ap->ctx, req->addr)
                             : (uint8_t)MEM_APERTURE_VIDMEM;
  if (cl->cfg.addrmap) {
    dram_addr a;
    dram_addrmap_decode(cl->cfg.addrmap, mem_req_route_addr(req), &a);
    sub = a.sub_partition;
    part = a.channel;
  }
  req->partition = part;
  req->sub_partition = sub;
  req->src_node = (uint16_t)cl->cfg.cluster;
  req->dst_node = (uint16_t)(cl->cfg.n_clusters + sub);
}

static bool core_send(void *ctx, mem_req *req, uint64_t now) {
  core_port *p = ctx;
  simt_cluster *cl = p->cl;
  if (cl->refused_at == now + 1) return false; /* the port already said no this cycle */
  route(cl, req);
  if (!cl->ports.inject(cl->ports.ctx, req, now)) {
    cl->refused_at = now + 1;
    ++*cl->inject_refused;
    return false;
  }
  ++*cl->injected;
  return true;
}

/* Timed injection (an approximately-timed interconnect behind the cluster's port): the cores
 * share the port as with send, but the memory system times the request at once. */
static uint64_t core_send_timed(void *ctx, mem_req *req, uint64_t at) {
  core_port *p = ctx;
  simt_cluster *cl = p->cl;
  route(cl, req);
  uint64_t r = cl->ports.inject_timed(cl->ports.ctx, req, at);
  if (r != SIMT_MEM_UNTIMED) ++*cl->injected;
  return r;
}

static void core_cta_done(void *ctx, uint32_t sm, uint32_t slot, const gpu_cta_result *r, uint64_t now) {
  core_port *p = ctx;
  if (slot < p->cl->n_slots && p->cl->slot_clustered[slot] && p->cl->cluster_ctas) p->cl->cluster_ctas--;
  p->cl->ports.cta_done(p->cl->ports.ctx, sm, slot, r, now);
}

static void core_fault(void *ctx, uint32_t sm, uint32_t slot, const simtvp_diag *report, uint64_t now) {
  core_port *p = ctx;
  p->cl->ports.fault(p->cl->ports.ctx, sm, slot, report, now);
}

/* ---- lifecycle ------------------------------------------------------------------------------- */

simtvp_status simt_cluster_create(const simt_cluster_config *config, simt_cluster_ports ports,
                                  simt_cluster **out, simtvp_diag *diag) {
  *out = NULL;
  if (!ports.inject || !ports.cta_done || config->n_cores == 0 || !config->cores)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG,
                           "SIMT cluster %u: needs cores and connected inject and cta_done ports", config->cluster);
  if (config->ejection_buffer == 0) {
    simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "SIMT cluster %u: the response FIFO needs at least one entry",
                    config->cluster);
    simtvp_diag_at_option(diag, "-gpgpu_n_cluster_ejection_buffer_size");
    return SIMTVP_ERR_CONFIG;
  }
  simt_cluster *cl = calloc(1, sizeof *cl);
  if (!cl) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT cluster: out of host memory");
  cl->cfg = *config;
  cl->cfg.cores = NULL;
  cl->ports = ports;
  uint32_t n = config->n_cores;
  cl->cores = calloc(n, sizeof *cl->cores);
  cl->core_ports = calloc(n, sizeof *cl->core_ports);
  cl->sm_of = calloc(n, sizeof *cl->sm_of);
  cl->fifo_cap = config->ejection_buffer;
  cl->fifo = calloc(cl->fifo_cap, sizeof *cl->fifo);
  if (!cl->cores || !cl->core_ports || !cl->sm_of || !cl->fifo) {
    simt_cluster_destroy(cl);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT cluster: out of host memory");
  }
  stats *st = config->stats;
  if (st) {
    char name[96];
    snprintf(name, sizeof name, "simt_cluster[%u].injected", config->cluster);
    cl->injected = stats_counter(st, name, "requests", "requests the cluster injected into the interconnect");
    snprintf(name, sizeof name, "simt_cluster[%u].inject_refused", config->cluster);
    cl->inject_refused = stats_counter(st, name, "requests", "injections the interconnect refused (retried)");
    cl->fifo_full = stats_counter(st, "gpu_stall_icnt2sh", "cycles",
                                  "replies refused because a cluster's response FIFO was full");
    stats_mark_cumulative(st, "gpu_stall_icnt2sh");
  } else {
    cl->injected = cl->inject_refused = cl->fifo_full = &cl->scratch;
  }
  for (uint32_t i = 0; i < n; i++) {
    for (uint32_t j = 0; j < i; j++)
      if (config->cores[j].sm == config->cores[i].sm) {
        simt_cluster_destroy(cl);
        return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "SIMT cluster %u: two cores are SM %u", config->cluster,
                               config->cores[i].sm);
      }
    cl->core_ports[i].cl = cl;
    cl->core_ports[i].index = i;
    cl->sm_of[i] = config->cores[i].sm;
    cl->has_interval |= config->cores[i].model == GPU_FIDELITY_INTERVAL;
    simt_core_ports cp = {&cl->core_ports[i], core_send, core_cta_done, ports.messages,
                          ports.fault ? core_fault : NULL, ports.inject_timed ? core_send_timed : NULL};
    simtvp_status s = simt_core_create(&config->cores[i], cp, &cl->cores[i], diag);
    if (s != SIMTVP_OK) {
      simt_cluster_destroy(cl);
      return s;
    }
  }
  *out = cl;
  return SIMTVP_OK;
}

void simt_cluster_destroy(simt_cluster *cl) {
  if (!cl) return;
  for (uint32_t i = 0; i < cl->n_timed; i++) mem_req_free(cl->timed[i].req);
  free(cl->timed);
  for (uint32_t i = 0; i < cl->fifo_n; i++) mem_req_free(cl->fifo[(cl->fifo_head + i) % cl->fifo_cap]);
  for (uint32_t i = 0; cl->cores && i < cl->cfg.n_cores; i++) simt_core_destroy(cl->cores[i]);
  free(cl->cores);
  free(cl->core_ports);
  free(cl->sm_of);
  free(cl->fifo);
  free(cl->slot_clustered);
  free(cl);
}

uint32_t simt_cluster_core_count(const simt_cluster *cl) { return cl->cfg.n_cores; }
simt_core *simt_cluster_core(simt_cluster *cl, uint32_t i) { return i < cl->cfg.n_cores ? cl->cores[i] : NULL; }

static uint32_t index_of(const simt_cluster *cl, uint32_t sm) {
  for (uint32_t i = 0; i < cl->cfg.n_cores; i++)
    if (cl->sm_of[i] == sm) return i;
  return UINT32_MAX;
}

simt_core *simt_cluster_core_of(simt_cluster *cl, uint32_t sm) {
  uint32_t i = index_of(cl, sm);
  return i == UINT32_MAX ? NULL : cl->cores[i];
}

/* ---- operation ------------------------------------------------------------------------------- */

simtvp_status simt_cluster_launch_cta(simt_cluster *cl, uint32_t sm, const simt_kernel *k,
                                      const uint32_t cta[3], uint64_t now, simtvp_diag *diag) {
  uint32_t i = index_of(cl, sm);
  if (i == UINT32_MAX)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "SIMT cluster %u has no SM %u", cl->cfg.cluster, sm);
  if (k->slot >= cl->n_slots) {
    uint32_t n = k->slot + 8;
    bool *f = realloc(cl->slot_clustered, n * sizeof *f);
    if (!f) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT cluster %u: out of host memory", cl->cfg.cluster);
    memset(f + cl->n_slots, 0, (n - cl->n_slots) * sizeof *f);
    cl->slot_clustered = f;
    cl->n_slots = n;
  }
  /* counted first: a func core finishes the CTA (cta_done) inside the launch */
  bool clustered = k->launch && func_launch_cluster_size(k->launch) > 1;
  cl->slot_clustered[k->slot] = clustered;
  if (clustered) cl->cluster_ctas++;
  simtvp_status st = simt_core_launch_cta(cl->cores[i], k, cta, now, diag);
  if (st != SIMTVP_OK && clustered && cl->cluster_ctas) cl->cluster_ctas--;
  return st;
}

bool simt_cluster_runs_cluster_ctas(const simt_cluster *cl) { return cl->cluster_ctas != 0 || cl->has_interval; }

bool simt_cluster_deliver(simt_cluster *cl, mem_req *reply, uint64_t now) {
  (void)now;
  if (cl->fifo_n == cl->fifo_cap) {
    ++*cl->fifo_full;
    return false;
  }
  cl->fifo[(cl->fifo_head + cl->fifo_n) % cl->fifo_cap] = reply;
  cl->fifo_n++;
  return true;
}

void simt_cluster_deliver_at(simt_cluster *cl, mem_req *reply, uint64_t at) {
  uint32_t i = index_of(cl, reply->sm);
  if (i != UINT32_MAX && simt_core_mem_reply_at(cl->cores[i], reply, at)) return;
  if (!timed_push(cl, at, reply)) mem_req_free(reply); /* out of host memory */
}

void simt_cluster_advance(simt_cluster *cl, uint64_t now) {
  /* timed replies that are due join the response FIFO (a full FIFO keeps them waiting) */
  while (cl->n_timed && cl->timed[0].at <= now && cl->fifo_n < cl->fifo_cap) {
    cl->fifo[(cl->fifo_head + cl->fifo_n) % cl->fifo_cap] = timed_pop(cl);
    cl->fifo_n++;
  }
  /* one reply per cycle from the response FIFO to its core */
  if (cl->fifo_n && cl->advanced_to <= now) {
    mem_req *r = cl->fifo[cl->fifo_head];
    uint32_t i = index_of(cl, r->sm);
    bool taken = true;
    if (i == UINT32_MAX) {
      simtvp_msg(&cl->ports.messages, SIMTVP_ERROR,
                 "SIMT cluster %u: reply for address 0x%" PRIx64 " names SM %u, which is not in this cluster: dropped",
                 cl->cfg.cluster, r->addr, r->sm);
      mem_req_free(r);
    } else {
      taken = simt_core_mem_reply(cl->cores[i], r, now);
    }
    if (taken) {
      cl->fifo_head = (cl->fifo_head + 1) % cl->fifo_cap;
      cl->fifo_n--;
    }
  }
  /* the cores, the first one rotating each cycle: round-robin access to the injection port */
  uint32_t n = cl->cfg.n_cores;
  for (uint32_t k = 0; k < n; k++) {
    simt_core *c = cl->cores[(cl->rr + k) % n];
    if (simt_core_next_event(c) <= now) simt_core_advance(c, now);
  }
  cl->rr = (cl->rr + 1) % n;
  cl->advanced_to = now + 1;
}

uint64_t simt_cluster_next_event(const simt_cluster *cl) {
  uint64_t t = cl->fifo_n ? cl->advanced_to : SIMT_NEVER;
  if (cl->n_timed && cl->fifo_n < cl->fifo_cap) {
    uint64_t due = cl->timed[0].at > cl->advanced_to ? cl->timed[0].at : cl->advanced_to;
    if (due < t) t = due;
  }
  for (uint32_t i = 0; i < cl->cfg.n_cores; i++) {
    uint64_t e = simt_core_next_event(cl->cores[i]);
    if (e < t) t = e;
  }
  return t;
}

bool simt_cluster_idle(const simt_cluster *cl) {
  if (cl->fifo_n || cl->n_timed) return false;
  for (uint32_t i = 0; i < cl->cfg.n_cores; i++)
    if (!simt_core_idle(cl->cores[i])) return false;
  return true;
}

uint32_t simt_cluster_pending_replies(const simt_cluster *cl) { return cl->fifo_n; }

void simt_cluster_dump(const simt_cluster *cl, void (*line)(void *ctx, const char *text), void *ctx) {
  char buf[160];
  snprintf(buf, sizeof buf, "SIMT cluster %u: %u of %u response FIFO entries used", cl->cfg.cluster, cl->fifo_n,
           cl->fifo_cap);
  line(ctx, buf);
  for (uint32_t i = 0; i < cl->cfg.n_cores; i++) simt_core_dump(cl->cores[i], line, ctx);
}
