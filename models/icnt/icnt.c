/* icnt — what every interconnect topology shares (see icnt.h): configuration checks, the packet
 * pool, ejection buffers with their flit limits, the heap of packets not yet announced as arrived
 * (it gives next_event its arrival times), statistics, the perfect and fixed-latency topologies,
 * and the event loop that simulates only cycles in which something can happen. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "icnt_internal.h"
#include "stats.h"

#define CHUNK_PACKETS 256u

void icnt_config_default(icnt_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->topology = ICNT_XBAR;
  cfg->n_shader_nodes = 40; /* TITAN V: 40 clusters of 2 SMs */
  cfg->n_mem_nodes = 48;    /* 24 channels × 2 sub-partitions */
  cfg->subnets = 2;
  cfg->flit_size = 40;
  cfg->in_buffer_limit = 512;
  cfg->out_buffer_limit = 512;
  cfg->arbiter = ICNT_ARB_ISLIP;
  cfg->islip_iterations = 1;
  cfg->latency = 1;
  cfg->hop_latency = 1;
  cfg->n_vcs = 2;
  cfg->vc_buffer_flits = 8;
  cfg->hist_bucket_width = 8;
  cfg->hist_buckets = 64;
}

/* ---- packet pool and arrival heap ----------------------------------------------------------------- */

static bool pool_grow(icnt *n) {
  packet_chunk *c = malloc(sizeof *c + CHUNK_PACKETS * sizeof(icnt_packet));
  uint32_t cap = n->capacity + CHUNK_PACKETS;
  icnt_packet **heap = realloc(n->heap, cap * sizeof *heap);
  if (!c || !heap) {
    free(c);
    if (heap) n->heap = heap;
    return false;
  }
  n->heap = heap;
  n->heap_cap = cap;
  n->capacity = cap;
  c->next = n->chunks;
  n->chunks = c;
  for (uint32_t i = 0; i < CHUNK_PACKETS; i++) {
    c->packets[i].next = n->free;
    n->free = &c->packets[i];
  }
  return true;
}

static bool before(const icnt_packet *a, const icnt_packet *b) {
  return a->ready_t < b->ready_t || (a->ready_t == b->ready_t && a->seq < b->seq);
}

static void heap_push(icnt *n, icnt_packet *p) {
  uint32_t i = n->heap_len++;
  while (i > 0) {
    uint32_t parent = (i - 1) / 2;
    if (!before(p, n->heap[parent])) break;
    n->heap[i] = n->heap[parent];
    i = parent;
  }
  n->heap[i] = p;
}

static icnt_packet *heap_pop(icnt *n) {
  icnt_packet *top = n->heap[0], *last = n->heap[--n->heap_len];
  uint32_t i = 0;
  for (;;) {
    uint32_t l = 2 * i + 1, r = l + 1, m = i;
    const icnt_packet *best = last;
    if (l < n->heap_len && before(n->heap[l], best)) {
      m = l;
      best = n->heap[l];
    }
    if (r < n->heap_len && before(n->heap[r], best)) m = r;
    if (m == i) break;
    n->heap[i] = n->heap[m];
    i = m;
  }
  if (n->heap_len) n->heap[i] = last;
  return top;
}

/* ---- shared helpers ------------------------------------------------------------------------------- */

bool icnt_eject_room(const icnt *n, uint32_t subnet, uint32_t node, uint32_t flits) {
  if (n->cfg.topology == ICNT_PERFECT || n->cfg.topology == ICNT_FIXED) return true;
  uint32_t used = n->eject_flits[subnet * n->nodes + node];
  return !n->cfg.out_buffer_limit || used == 0 || used + flits <= n->cfg.out_buffer_limit;
}

void icnt_deliver(icnt *n, icnt_packet *p) {
  uint32_t k = p->subnet * n->nodes + p->dst;
  packet_list *l = &n->eject[k];
  n->eject_flits[k] += p->flits;
  /* Ordered by ready time: usually the tail (one output serialises its packets). */
  icnt_packet *prev = NULL, *x = l->head;
  if (l->tail && !before(p, l->tail)) {
    prev = l->tail;
    x = NULL;
  } else {
    while (x && !before(p, x)) {
      prev = x;
      x = x->next;
    }
  }
  p->next = x;
  if (prev) prev->next = p;
  else l->head = p;
  if (!x) l->tail = p;
  heap_push(n, p);
}

void icnt_input_freed(icnt *n, uint32_t src, uint32_t subnet) {
  bool *r = &n->refused[subnet * n->nodes + src];
  if (*r) {
    *r = false;
    n->notify[n->n_notify++] = src;
  }
}

void icnt_count_link(icnt *n, uint32_t subnet, uint32_t link, uint32_t flits) {
  if (n->link_ctr) *n->link_ctr[subnet * n->links_per_subnet + link] += flits;
}

/* ---- perfect and fixed ---------------------------------------------------------------------------- */

static uint32_t hops(const icnt *n, uint32_t a, uint32_t b) {
  int ax = (int)(a % n->cols), ay = (int)(a / n->cols), bx = (int)(b % n->cols),
      by = (int)(b / n->cols);
  return (uint32_t)(abs(ax - bx) + abs(ay - by));
}

static simtvp_status ideal_create(icnt *n, simtvp_diag *diag) {
  (void)n;
  (void)diag;
  return SIMTVP_OK;
}
static void ideal_destroy(icnt *n) { (void)n; }
static bool ideal_can_inject(const icnt *n, uint32_t src, uint32_t dst, uint32_t subnet, uint32_t cls,
                             uint32_t flits) {
  (void)n, (void)src, (void)dst, (void)subnet, (void)cls, (void)flits;
  return true; /* infinite bandwidth, infinite buffers */
}
static void ideal_inject(icnt *n, icnt_packet *p, uint64_t when) {
  uint64_t lat = 0;
  if (n->cfg.topology == ICNT_FIXED)
    lat = n->cfg.latency + (uint64_t)n->cfg.hop_latency * hops(n, p->src, p->dst);
  p->ready_t = when + lat;
  icnt_count_link(n, p->subnet, p->dst, p->flits);
  icnt_deliver(n, p);
}
static uint64_t ideal_next_event(const icnt *n) {
  (void)n;
  return ICNT_NEVER; /* arrivals come from the heap */
}
static void ideal_cycle(icnt *n, uint64_t t) { (void)n, (void)t; }

static const icnt_topo_ops ideal_ops = {ideal_create,     ideal_destroy,    ideal_can_inject,
                                        ideal_inject,     ideal_next_event, ideal_cycle};

/* ---- lifetime ------------------------------------------------------------------------------------- */

static simtvp_status cfg_error(simtvp_diag *diag, const char *option, const char *what) {
  return simtvp_diag_option_error(diag, SIMTVP_ERR_CONFIG, option, "%s", what);
}

static void register_stats(icnt *n) {
  struct {
    uint64_t **slot;
    const char *name, *unit, *desc;
  } const k[] = {
      {&n->c.cycles, "icnt.cycles", "cycles", "interconnect cycles simulated"},
      {&n->c.packets_injected, "icnt.packets_injected", "packets", "packets injected"},
      {&n->c.flits_injected, "icnt.flits_injected", "flits", "flits injected"},
      {&n->c.packets_ejected, "icnt.packets_ejected", "packets", "packets arrived"},
      {&n->c.flits_ejected, "icnt.flits_ejected", "flits", "flits arrived (accepted)"},
      {&n->c.latency_sum, "icnt.latency_sum", "cycles", "packet latency summed"},
      {&n->c.latency_max, "icnt.latency_max", "cycles", "largest packet latency"},
      {&n->c.refused, "icnt.refused", "packets", "injections refused (back-pressure)"},
  };
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
    if (n->cfg.stats) *k[i].slot = stats_counter(n->cfg.stats, k[i].name, k[i].unit, k[i].desc);
    if (!*k[i].slot) *k[i].slot = &n->local[i];
  }
  if (n->link_ctr) {
    static const char *const k_dir[5] = {"eject", "east", "west", "north", "south"};
    for (uint32_t s = 0; s < n->subnets; s++) {
      const char *net = n->subnets == 1 ? "net" : s ? "rep" : "req";
      for (uint32_t l = 0; l < n->links_per_subnet; l++) {
        uint64_t **slot = &n->link_ctr[s * n->links_per_subnet + l];
        *slot = &n->link_flits[s * n->links_per_subnet + l];
        if (!n->cfg.stats) continue;
        char name[96];
        if (n->cfg.topology == ICNT_MESH)
          snprintf(name, sizeof name, "icnt.%s.link[%u.%s].flits", net, l / 5, k_dir[l % 5]);
        else
          snprintf(name, sizeof name, "icnt.%s.link[%u].flits", net, l);
        *slot = stats_counter(n->cfg.stats, name, "flits", "flits that crossed this link");
      }
    }
  }
  if (n->cfg.stats) {
    stats_ratio(n->cfg.stats, "icnt.avg_latency", "average packet latency (cycles)",
                "icnt.latency_sum", "icnt.packets_ejected");
    stats_ratio(n->cfg.stats, "icnt.accepted_rate", "flits accepted per cycle (all nodes)",
                "icnt.flits_ejected", "icnt.cycles");
    if (n->cfg.hist_buckets)
      n->hist = stats_histogram_register(n->cfg.stats, "icnt.packet_latency", "cycles",
                                         "packet latency, inject to arrival",
                                         n->cfg.hist_bucket_width ? n->cfg.hist_bucket_width : 1,
                                         n->cfg.hist_buckets);
  }
}

simtvp_status icnt_create(const icnt_config *cfg, icnt **out, simtvp_diag *diag) {
  *out = NULL;
  uint32_t nodes = cfg->n_shader_nodes + cfg->n_mem_nodes;
  if (nodes == 0 || nodes > 65535)
    return cfg_error(diag, "-gpgpu_n_clusters", "the interconnect needs 1..65535 nodes");
  if (cfg->subnets != 1 && cfg->subnets != 2)
    return cfg_error(diag, "-icnt_subnets", "must be 1 or 2");
  if (cfg->flit_size == 0) return cfg_error(diag, "-icnt_flit_size", "must be at least 1 byte");
  if (cfg->topology > ICNT_MESH)
    return cfg_error(diag, "-network_mode", "unknown interconnect topology");
  if (cfg->topology == ICNT_XBAR) {
    if (cfg->arbiter != ICNT_ARB_RR && cfg->arbiter != ICNT_ARB_ISLIP)
      return cfg_error(diag, "-icnt_arbiter_algo", "must be 0 (round-robin) or 1 (iSLIP)");
  }
  if (cfg->topology == ICNT_MESH) {
    if (cfg->hop_latency == 0) return cfg_error(diag, "-icnt_hop_latency", "must be at least 1");
    if (cfg->n_vcs == 0 || cfg->n_vcs > 64) return cfg_error(diag, "-icnt_vcs", "must be 1..64");
    if (cfg->subnets == 1 && cfg->n_vcs < 2)
      return cfg_error(diag, "-icnt_vcs",
                       "a shared network needs 2 virtual channels (requests and replies apart)");
    if (cfg->vc_buffer_flits == 0) return cfg_error(diag, "-icnt_vc_buffer", "must be at least 1");
  }
  icnt *n = calloc(1, sizeof *n);
  if (!n) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  n->cfg = *cfg;
  n->nodes = nodes;
  n->subnets = cfg->subnets;
  n->cols = cfg->mesh_cols ? cfg->mesh_cols : (uint32_t)ceil(sqrt((double)nodes));
  n->rows = (nodes + n->cols - 1) / n->cols;
  n->ops = cfg->timed                   ? &icnt_at_ops
           : cfg->topology == ICNT_XBAR ? &icnt_xbar_ops
           : cfg->topology == ICNT_MESH ? &icnt_mesh_ops
                                        : &ideal_ops;
  n->eject = calloc((size_t)n->subnets * nodes, sizeof *n->eject);
  n->eject_flits = calloc((size_t)n->subnets * nodes, sizeof *n->eject_flits);
  n->refused = calloc((size_t)n->subnets * nodes, sizeof *n->refused);
  n->notify = calloc((size_t)n->subnets * nodes, sizeof *n->notify);
  n->links_per_subnet = cfg->topology == ICNT_MESH ? n->cols * n->rows * 5 : nodes;
  if (cfg->per_link_stats)
  if (cfg->per_link_stats) {
    n->link_flits = calloc((size_t)n->subnets * n->links_per_subnet, sizeof *n->link_flits);
    n->link_ctr = calloc((size_t)n->subnets * n->links_per_subnet, sizeof *n->link_ctr);
  }
  if (!n->eject || !n->eject_flits || !n->refused || !n->notify ||
      (cfg->per_link_stats && (!n->link_flits || !n->link_ctr)) || !pool_grow(n)) {
    icnt_destroy(n);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  }
  simtvp_status st = n->ops->create(n, diag);
  if (st != SIMTVP_OK) {
    n->ops = &ideal_ops; /* nothing of the topology to destroy */
    icnt_destroy(n);
    return st;
  }
  register_stats(n);
  *out = n;
  return SIMTVP_OK;
}

void icnt_destroy(icnt *n) {
  if (!n) return;
  if (n->ops) n->ops->destroy(n);
  while (n->chunks) {
    packet_chunk *c = n->chunks;
    n->chunks = c->next;
    free(c);
  }
  free(n->heap);
  free(n->eject);
  free(n->eject_flits);
  free(n->refused);
  free(n->notify);
  free(n->link_flits);
  free(n->link_ctr);
  free(n);
}

/* ---- ports ---------------------------------------------------------------------------------------- */

uint32_t icnt_nodes(const icnt *n) { return n->nodes; }
bool icnt_is_timed(const icnt *n) { return n->cfg.timed; }

uint32_t icnt_flits(const icnt *n, const mem_req *req) {
  uint32_t bytes = mem_req_wire_bytes(req);
  uint32_t f = (bytes + n->cfg.flit_size - 1) / n->cfg.flit_size;
  return f ? f : 1;
}

static uint32_t subnet_of(const icnt *n, const mem_req *req) {
  return n->subnets == 2 && req->is_reply ? 1u : 0u;
}

bool icnt_can_inject(const icnt *n, uint32_t src, const mem_req *req) {
  if (src >= n->nodes || req->dst_node >= n->nodes) return false;
  return n->ops->can_inject(n, src, req->dst_node, subnet_of(n, req), req->is_reply ? 1 : 0, icnt_flits(n, req));
}

static bool inject(icnt *n, uint32_t src, mem_req *req, uint64_t now, bool force) {
  if (src >= n->nodes || req->dst_node >= n->nodes) return false;
  uint32_t s = subnet_of(n, req), flits = icnt_flits(n, req);
  /* everything before `now` happens first (an approximately-timed network times the packet now,
   * whatever cycle it enters at) */
  if (!n->cfg.timed && now > n->t) icnt_advance(n, now - 1);
  if (n->cfg.timed && now > n->timed_now) n->timed_now = now;
  if ((!force && !n->ops->can_inject(n, src, req->dst_node, s, req->is_reply ? 1 : 0, flits)) ||
      (!n->free && !pool_grow(n))) {
    n->refused[s * n->nodes + src] = true;
    *n->c.refused += 1;
    return false;
  }
  icnt_packet *p = n->free;
  n->free = p->next;
  p->req = req;
  p->seq = n->seq++;
  p->inject_t = now;
  p->src = src;
  p->dst = req->dst_node;
  p->flits = (uint16_t)(flits > 65535 ? 65535 : flits);
  p->subnet = (uint8_t)s;
  p->vc_class = req->is_reply ? 1 : 0;
  p->announced = false;
  p->next = NULL;
  req->src_node = (uint16_t)src;
  *n->c.packets_injected += 1;
  *n->c.flits_injected += flits;
  n->ops->inject(n, p, n->cfg.timed ? now : icnt_max(now, n->t));
  return true;
}

bool icnt_inject(icnt *n, uint32_t src, mem_req *req, uint64_t now) { return inject(n, src, req, now, false); }

bool icnt_inject_timed(icnt *n, uint32_t src, mem_req *req, uint64_t at) {
  return n->cfg.timed && inject(n, src, req, at, true);
}

static icnt_packet *eject_head(const icnt *n, uint32_t node, uint64_t now, uint32_t *subnet) {
  icnt_packet *best = NULL;
  for (uint32_t s = 0; s < n->subnets; s++) {
    icnt_packet *p = n->eject[s * n->nodes + node].head;
    if (p && p->ready_t <= now && (!best || before(p, best))) {
      best = p;
      *subnet = s;
    }
  }
  return best;
}

mem_req *icnt_peek(const icnt *n, uint32_t node, uint64_t now) {
  uint32_t s;
  if (node >= n->nodes) return NULL;
  icnt_packet *p = eject_head(n, node, now, &s);
  return p ? p->req : NULL;
}

mem_req *icnt_pop(icnt *n, uint32_t node, uint64_t now) {
  uint32_t s = 0;
  if (node >= n->nodes) return NULL;
  icnt_packet *p = eject_head(n, node, now, &s);
  if (!p) return NULL;
  packet_list *l = &n->eject[s * n->nodes + node];
  l->head = p->next;
  if (!l->head) l->tail = NULL;
  n->eject_flits[s * n->nodes + node] -= p->flits;
  /* It may not have been announced yet (popped in the cycle it arrived): it stays in the heap
   * until then, and the announcer returns it to the pool. */
  mem_req *req = p->req;
  p->req = NULL;
  if (p->announced) {
    p->next = n->free;
    n->free = p;
  }
  return req;
}

/* ---- event loop ----------------------------------------------------------------------------------- */

static uint64_t next_internal(const icnt *n) {
  uint64_t ev = n->ops->next_event(n);
  if (n->heap_len) ev = icnt_min(ev, icnt_max(n->t, n->heap[0]->ready_t));
  return ev;
}

uint64_t icnt_next_event(const icnt *n) { return next_internal(n); }

static void announce(icnt *n, uint64_t t) {
  while (n->heap_len && n->heap[0]->ready_t <= t) {
    icnt_packet *p = heap_pop(n);
    p->announced = true;
    uint64_t lat = p->ready_t - p->inject_t;
    *n->c.packets_ejected += 1;
    *n->c.flits_ejected += p->flits;
    *n->c.latency_sum += lat;
    if (lat > *n->c.latency_max) *n->c.latency_max = lat;
    if (n->hist) stats_histogram_add(n->hist, lat);
    if (!p->req) { /* popped before it was announced */
      p->next = n->free;
      n->free = p;
    } else if (n->cfg.ports.arrived) {
      n->cfg.ports.arrived(n->cfg.ports.ctx, p->dst, t);
    }
  }
}

void icnt_advance(icnt *n, uint64_t now) {
  if (now == ICNT_NEVER) now = ICNT_NEVER - 1;
  while (n->t <= now) {
    uint64_t t = next_internal(n);
    if (t > now) break;
    n->n_notify = 0;
    n->ops->cycle(n, t);
    *n->c.cycles += t + 1 - n->t;
    n->t = t + 1;
    announce(n, t);
    for (uint32_t i = 0; i < n->n_notify; i++)
      if (n->cfg.ports.inject_ready) n->cfg.ports.inject_ready(n->cfg.ports.ctx, n->notify[i], t);
  }
  if (n->t <= now) {
    *n->c.cycles += now + 1 - n->t;
    n->t = now + 1;
  }
}

void icnt_get_stats(const icnt *n, icnt_stats *o) {
  memset(o, 0, sizeof *o);
  o->cycles = *n->c.cycles;
  o->packets_injected = *n->c.packets_injected;
  o->flits_injected = *n->c.flits_injected;
  o->packets_ejected = *n->c.packets_ejected;
  o->flits_ejected = *n->c.flits_ejected;
  o->latency_sum = *n->c.latency_sum;
  o->latency_max = *n->c.latency_max;
  o->refused = *n->c.refused;
  o->avg_latency = o->packets_ejected ? (double)o->latency_sum / (double)o->packets_ejected : 0.0;
  o->accepted_rate =
      o->cycles ? (double)o->flits_ejected / ((double)o->cycles * (double)n->nodes) : 0.0;
}

uint64_t icnt_link_flits(const icnt *n, uint32_t subnet, uint32_t port) {
  if (!n->link_ctr || subnet >= n->subnets || port >= n->links_per_subnet) return 0;
  return *n->link_ctr[subnet * n->links_per_subnet + port];
}
