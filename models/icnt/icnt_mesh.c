/* icnt_mesh — a 2-D mesh of routers, one node per router (row-major), dimension-order routing
 * (X first, then Y: deadlock-free on a mesh) and virtual channels with virtual cut-through flow
 * control (Dally & Towles, "Principles and Practices of Interconnection Networks", ch. 13-14).
 *
 * A router has five ports: local (injection / ejection), east, west, north, south. Each input port
 * has n_vcs virtual channels, FIFOs of vc_buffer_flits flits; the local input port holds
 * -icnt_in_buffer_limit flits per class. A packet at the head of a VC, once its head has arrived,
 * requests the output its route needs; it may go when that output and its own input port are free
 * and a VC of its class downstream has room for the whole packet (cut-through: the room is taken at
 * once, the credit check of a real router). Each output grants round-robin over the input VCs.
 * A granted packet occupies its input port and output link for `flits` cycles; its head reaches the
 * next router hop_latency cycles later (router pipeline + link). With one subnet, requests and
 * replies use disjoint halves of the VCs so replies can never be stuck behind requests (protocol
 * deadlock). Unloaded latency over H hops: (H + 1) × hop_latency + flits - 1. */
#include <stdlib.h>
#include <string.h>

#include "icnt_internal.h"

enum { P_LOCAL = 0, P_EAST, P_WEST, P_NORTH, P_SOUTH, N_PORTS };

typedef struct mesh_vc {
  packet_list q;
  uint32_t used;       /* flits held (room is taken when a packet is granted toward it) */
  int32_t active_pos;  /* index in the active list, -1 when empty */
} mesh_vc;

typedef struct mesh_subnet {
  mesh_vc *vc;         /* [(router * 5 + port) * V + v] */
  uint64_t *in_busy;   /* [router * 5 + port] */
  uint64_t *out_busy;  /* [router * 5 + port] */
  uint32_t *rr;        /* per output: round-robin pointer over the router's 5 × V input VCs */
  uint32_t *vc_ptr;    /* per input port: where the downstream VC search starts */
  uint32_t *active;    /* VCs holding packets */
  uint32_t n_active;
} mesh_subnet;

typedef struct mesh {
  mesh_subnet sub[2];
  uint32_t R, V;
  int32_t *best;       /* [R * 5]: the VC each output grants this cycle, -1 */
  uint32_t *best_dist;
  uint32_t *touched;   /* outputs with a candidate this cycle */
  uint64_t *in_stamp;  /* [R * 5]: cycle + 1 when the input port was granted this cycle */
} mesh;

static uint32_t opposite(uint32_t q) {
  static const uint8_t k[N_PORTS] = {P_LOCAL, P_WEST, P_EAST, P_SOUTH, P_NORTH};
  return k[q];
}

static uint32_t route(const icnt *n, uint32_t r, uint32_t dst) {
  uint32_t x = r % n->cols, y = r / n->cols, dx = dst % n->cols, dy = dst / n->cols;
  if (dx > x) return P_EAST;
  if (dx < x) return P_WEST;
  if (dy > y) return P_SOUTH;
  if (dy < y) return P_NORTH;
  return P_LOCAL;
}

static uint32_t neighbour(const icnt *n, uint32_t r, uint32_t q) {
  switch (q) {
    case P_EAST: return r + 1;
    case P_WEST: return r - 1;
    case P_NORTH: return r - n->cols;
    case P_SOUTH: return r + n->cols;
    default: return r;
  }
}

static uint32_t vc_capacity(const icnt *n, uint32_t port) {
  if (port == P_LOCAL) return n->cfg.in_buffer_limit; /* 0 = unlimited */
  return n->cfg.vc_buffer_flits;
}

/* The VCs a class may use at a port: halves with one subnet; the local port is one FIFO a class. */
static void vc_range(const icnt *n, const mesh *m, uint32_t port, uint32_t cls, uint32_t *lo,
                     uint32_t *hi) {
  uint32_t V = m->V;
  if (n->subnets == 1) {
    *lo = cls * (V / 2);
    *hi = cls ? V : V / 2;
  } else {
    *lo = 0;
    *hi = V;
  }
  if (port == P_LOCAL) *hi = *lo + 1;
}

static bool vc_fits(const icnt *n, const mesh_vc *vc, uint32_t port, uint32_t flits) {
  uint32_t cap = vc_capacity(n, port);
  return !cap || vc->used == 0 || vc->used + flits <= cap;
}

/* A downstream VC at (router r, input port ip) for the class with room for flits, or -1. */
static int32_t choose_vc(const icnt *n, const mesh *m, const mesh_subnet *b, uint32_t r,
                         uint32_t ip, uint32_t cls, uint32_t flits) {
  uint32_t lo, hi;
  vc_range(n, m, ip, cls, &lo, &hi);
  uint32_t span = hi - lo, start = b->vc_ptr[r * N_PORTS + ip] % span;
  for (uint32_t k = 0; k < span; k++) {
    uint32_t v = lo + (start + k) % span;
    if (vc_fits(n, &b->vc[(r * N_PORTS + ip) * m->V + v], ip, flits)) return (int32_t)v;
  }
  return -1;
}

static void activate(mesh_subnet *b, uint32_t vi) {
  b->vc[vi].active_pos = (int32_t)b->n_active;
  b->active[b->n_active++] = vi;
}

static void deactivate(mesh_subnet *b, uint32_t vi) {
  uint32_t pos = (uint32_t)b->vc[vi].active_pos, last = b->active[--b->n_active];
  b->active[pos] = last;
  b->vc[last].active_pos = (int32_t)pos;
  b->vc[vi].active_pos = -1;
}

static void vc_push(mesh_subnet *b, uint32_t vi, icnt_packet *p) {
  mesh_vc *vc = &b->vc[vi];
  p->next = NULL;
  if (vc->q.tail) vc->q.tail->next = p;
  else vc->q.head = p;
  vc->q.tail = p;
  vc->used += p->flits;
  if (vc->active_pos < 0) activate(b, vi);
}

static simtvp_status mesh_create(icnt *n, simtvp_diag *diag) {
  mesh *m = calloc(1, sizeof *m);
  if (!m) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  n->topo = m;
  m->R = n->cols * n->rows;
  m->V = n->cfg.n_vcs;
  size_t ports = (size_t)m->R * N_PORTS, vcs = ports * m->V;
  bool ok = true;
  for (uint32_t s = 0; s < n->subnets; s++) {
    mesh_subnet *b = &m->sub[s];
    b->vc = calloc(vcs, sizeof *b->vc);
    b->in_busy = calloc(ports, sizeof *b->in_busy);
    b->out_busy = calloc(ports, sizeof *b->out_busy);
    b->rr = calloc(ports, sizeof *b->rr);
    b->vc_ptr = calloc(ports, sizeof *b->vc_ptr);
    b->active = calloc(vcs, sizeof *b->active);
    ok = ok && b->vc && b->in_busy && b->out_busy && b->rr && b->vc_ptr && b->active;
    if (b->vc)
      for (size_t i = 0; i < vcs; i++) b->vc[i].active_pos = -1;
  }
  m->best = malloc(ports * sizeof *m->best);
  m->best_dist = malloc(ports * sizeof *m->best_dist);
  m->touched = malloc(ports * sizeof *m->touched);
  m->in_stamp = calloc(ports, sizeof *m->in_stamp);
  if (!ok || !m->best || !m->best_dist || !m->touched || !m->in_stamp) {
    icnt_mesh_ops.destroy(n);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  }
  for (size_t i = 0; i < ports; i++) m->best[i] = -1;
  return SIMTVP_OK;
}

static void mesh_destroy(icnt *n) {
  mesh *m = n->topo;
  if (!m) return;
  for (uint32_t s = 0; s < 2; s++) {
    mesh_subnet *b = &m->sub[s];
    free(b->vc);
    free(b->in_busy);
    free(b->out_busy);
    free(b->rr);
    free(b->vc_ptr);
    free(b->active);
  }
  free(m->best);
  free(m->best_dist);
  free(m->touched);
  free(m->in_stamp);
  free(m);
  n->topo = NULL;
}

static bool mesh_can_inject(const icnt *n, uint32_t src, uint32_t dst, uint32_t subnet, uint32_t cls,
                            uint32_t flits) {
  (void)dst;
  const mesh *m = n->topo;
  uint32_t lo, hi;
  vc_range(n, m, P_LOCAL, n->subnets == 1 ? cls : 0, &lo, &hi);
  return vc_fits(n, &m->sub[subnet].vc[(src * N_PORTS + P_LOCAL) * m->V + lo], P_LOCAL, flits);
}

static void mesh_inject(icnt *n, icnt_packet *p, uint64_t when) {
  mesh *m = n->topo;
  uint32_t lo, hi, cls = n->subnets == 1 ? p->vc_class : 0;
  vc_range(n, m, P_LOCAL, cls, &lo, &hi);
  p->ready_t = when;
  vc_push(&m->sub[p->subnet], (p->src * N_PORTS + P_LOCAL) * m->V + lo, p);
}

/* Can the head of VC vi go at cycle t (ignoring port conflicts)? Fills its output. */
static bool head_can_go(const icnt *n, const mesh *m, const mesh_subnet *b, uint32_t s,
                        uint32_t vi, uint64_t t, uint32_t *out) {
  const icnt_packet *p = b->vc[vi].q.head;
  uint32_t r = vi / (N_PORTS * m->V), ip = (vi / m->V) % N_PORTS;
  if (p->ready_t > t || b->in_busy[r * N_PORTS + ip] > t) return false;
  uint32_t q = route(n, r, p->dst);
  if (b->out_busy[r * N_PORTS + q] > t) return false;
  if (q == P_LOCAL) {
    if (!icnt_eject_room(n, s, r, p->flits)) return false;
  } else if (choose_vc(n, m, b, neighbour(n, r, q), opposite(q), n->subnets == 1 ? p->vc_class : 0,
                       p->flits) < 0) {
    return false;
  }
  *out = r * N_PORTS + q;
  return true;
}

static void grant(icnt *n, mesh *m, mesh_subnet *b, uint32_t s, uint32_t vi, uint32_t o,
                  uint64_t t) {
  mesh_vc *vc = &b->vc[vi];
  icnt_packet *p = vc->q.head;
  uint32_t r = vi / (N_PORTS * m->V), ip = (vi / m->V) % N_PORTS, q = o % N_PORTS;
  vc->q.head = p->next;
  if (!vc->q.head) vc->q.tail = NULL;
  vc->used -= p->flits;
  if (!vc->q.head) deactivate(b, vi);
  if (ip == P_LOCAL) icnt_input_freed(n, r, s);
  b->in_busy[r * N_PORTS + ip] = t + p->flits;
  b->out_busy[o] = t + p->flits;
  b->rr[o] = (vi % (N_PORTS * m->V) + 1) % (N_PORTS * m->V);
  m->in_stamp[r * N_PORTS + ip] = t + 1;
  icnt_count_link(n, s, o, p->flits);
  if (q == P_LOCAL) {
    p->ready_t = t + n->cfg.hop_latency + p->flits - 1;
    icnt_deliver(n, p);
    return;
  }
  uint32_t nr = neighbour(n, r, q), nip = opposite(q);
  uint32_t cls = n->subnets == 1 ? p->vc_class : 0;
  int32_t v = choose_vc(n, m, b, nr, nip, cls, p->flits);
  b->vc_ptr[nr * N_PORTS + nip]++;
  p->ready_t = t + n->cfg.hop_latency;
  vc_push(b, (nr * N_PORTS + nip) * m->V + (uint32_t)v, p);
}

static void mesh_cycle(icnt *n, uint64_t t) {
  mesh *m = n->topo;
  uint32_t span = N_PORTS * m->V;
  for (uint32_t s = 0; s < n->subnets; s++) {
    mesh_subnet *b = &m->sub[s];
    if (!b->n_active) continue;
    uint32_t n_touched = 0;
    for (uint32_t k = 0; k < b->n_active; k++) {
      uint32_t vi = b->active[k], o;
      if (!head_can_go(n, m, b, s, vi, t, &o)) continue;
      uint32_t dist = (vi % span + span - b->rr[o]) % span;
      if (m->best[o] < 0) {
        m->touched[n_touched++] = o;
        m->best[o] = (int32_t)vi;
        m->best_dist[o] = dist;
      } else if (dist < m->best_dist[o]) {
        m->best[o] = (int32_t)vi;
        m->best_dist[o] = dist;
      }
    }
    /* Outputs in a fixed order (router, port) keep the result independent of list order. */
    for (uint32_t k = 1; k < n_touched; k++) {
      uint32_t x = m->touched[k], j = k;
      while (j > 0 && m->touched[j - 1] > x) {
        m->touched[j] = m->touched[j - 1];
        j--;
      }
      m->touched[j] = x;
    }
    for (uint32_t k = 0; k < n_touched; k++) {
      uint32_t o = m->touched[k], vi = (uint32_t)m->best[o];
      m->best[o] = -1;
      uint32_t r = vi / span, ip = (vi / m->V) % N_PORTS;
      if (m->in_stamp[r * N_PORTS + ip] == t + 1) continue; /* its input already sends */
      grant(n, m, b, s, vi, o, t);
    }
  }
}

static uint64_t mesh_next_event(const icnt *n) {
  const mesh *m = n->topo;
  uint64_t ev = ICNT_NEVER;
  for (uint32_t s = 0; s < n->subnets; s++) {
    const mesh_subnet *b = &m->sub[s];
    for (uint32_t k = 0; k < b->n_active; k++) {
      uint32_t vi = b->active[k], o;
      const icnt_packet *p = b->vc[vi].q.head;
      uint32_t r = vi / (N_PORTS * m->V), ip = (vi / m->V) % N_PORTS;
      uint32_t q = route(n, r, p->dst);
      uint64_t when = icnt_max(p->ready_t, icnt_max(b->in_busy[r * N_PORTS + ip],
                                                    b->out_busy[r * N_PORTS + q]));
      when = icnt_max(when, n->t);
      if (when >= ev) continue;
      /* Room downstream does not change with time alone: a blocked head waits for a grant or a
       * pop elsewhere, which is itself an event. */
      if (!head_can_go(n, m, b, s, vi, when, &o)) continue;
      ev = when;
      if (ev == n->t) return ev;
    }
  }
  return ev;
}

const icnt_topo_ops icnt_mesh_ops = {mesh_create,     mesh_destroy, mesh_can_inject,
                                     mesh_inject,     mesh_next_event, mesh_cycle};
