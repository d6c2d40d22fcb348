/* icnt_xbar — a crossbar with virtual output queues and an iSLIP arbiter (McKeown, "The iSLIP
 * scheduling algorithm for input-queued switches", IEEE/ACM ToN 1999), in the role of GPGPU-Sim's
 * built-in local crossbar (-network_mode 2).
 *
 * Every node is an input and an output. An input keeps one queue per output (VOQ), all sharing the
 * input's buffer (-icnt_in_buffer_limit flits), so a packet for a busy output does not block one
 * for an idle output. Each cycle, free inputs and outputs are matched:
 *   iSLIP  request: an input asks every output it has a packet for (and that has room);
 *          grant:   an output grants the requesting input next after its grant pointer;
 *          accept:  an input accepts the granting output next after its accept pointer;
 *          pointers move one past the match only when a grant is accepted in the first
 *          iteration, which is what makes iSLIP fair and desynchronises the outputs;
 *          unmatched ports try again in further iterations.
 *   RR     outputs in turn grant the next free input after their pointer (greedy).
 * A matched packet streams one flit per cycle: input and output are busy for `flits` cycles and
 * the packet is complete in the output's ejection buffer (-icnt_out_buffer_limit flits, freed when
 * the destination pops) at grant + latency + flits - 1. */
#include <stdlib.h>
#include <string.h>

#include "icnt_internal.h"

typedef struct xbar_subnet {
  packet_list *voq;        /* [in * nodes + out] */
  uint64_t *req_bits;      /* [out * words]: inputs with a packet for this output */
  uint32_t *in_flits;      /* flits queued at each input */
  uint64_t *in_busy;       /* input sends until this cycle */
  uint64_t *out_busy;      /* output receives until this cycle */
  uint32_t *grant_ptr, *accept_ptr;
  uint32_t queued;         /* packets waiting in VOQs */
} xbar_subnet;

typedef struct xbar {
  xbar_subnet sub[2];
  uint32_t words;          /* 64-bit words per input bitset */
  uint32_t rr_start;       /* RR arbiter: output that goes first, rotating */
  /* scratch for one cycle */
  int32_t *grant;          /* [out]: input granted this iteration, -1 */
  int32_t *accept;         /* [in]: output accepted, -1 */
  uint8_t *in_matched, *out_matched;
  uint64_t *free_in;       /* [words] */
  uint64_t *cand;          /* [words] */
} xbar;

static inline void bit_set(uint64_t *b, uint32_t i) { b[i / 64] |= 1ull << (i % 64); }
static inline void bit_clear(uint64_t *b, uint32_t i) { b[i / 64] &= ~(1ull << (i % 64)); }

static simtvp_status xbar_create(icnt *n, simtvp_diag *diag) {
  xbar *x = calloc(1, sizeof *x);
  if (!x) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  n->topo = x;
  uint32_t N = n->nodes;
  x->words = (N + 63) / 64;
  bool ok = true;
  for (uint32_t s = 0; s < n->subnets; s++) {
    xbar_subnet *b = &x->sub[s];
    b->voq = calloc((size_t)N * N, sizeof *b->voq);
    b->req_bits = calloc((size_t)N * x->words, sizeof *b->req_bits);
    b->in_flits = calloc(N, sizeof *b->in_flits);
    b->in_busy = calloc(N, sizeof *b->in_busy);
    b->out_busy = calloc(N, sizeof *b->out_busy);
    b->grant_ptr = calloc(N, sizeof *b->grant_ptr);
    b->accept_ptr = calloc(N, sizeof *b->accept_ptr);
    ok = ok && b->voq && b->req_bits && b->in_flits && b->in_busy && b->out_busy &&
         b->grant_ptr && b->accept_ptr;
  }
  x->grant = malloc(N * sizeof *x->grant);
  x->accept = malloc(N * sizeof *x->accept);
  x->in_matched = malloc(N);
  x->out_matched = malloc(N);
  x->free_in = calloc(x->words, sizeof *x->free_in);
  x->cand = calloc(x->words, sizeof *x->cand);
  if (!ok || !x->grant || !x->accept || !x->in_matched || !x->out_matched || !x->free_in ||
      !x->cand) {
    icnt_xbar_ops.destroy(n);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  }
  return SIMTVP_OK;
}

static void xbar_destroy(icnt *n) {
  xbar *x = n->topo;
  if (!x) return;
  for (uint32_t s = 0; s < 2; s++) {
    xbar_subnet *b = &x->sub[s];
    free(b->voq);
    free(b->req_bits);
    free(b->in_flits);
    free(b->in_busy);
    free(b->out_busy);
    free(b->grant_ptr);
    free(b->accept_ptr);
  }
  free(x->grant);
  free(x->accept);
  free(x->in_matched);
  free(x->out_matched);
  free(x->free_in);
  free(x->cand);
  free(x);
  n->topo = NULL;
}

static bool xbar_can_inject(const icnt *n, uint32_t src, uint32_t dst, uint32_t subnet, uint32_t cls,
                            uint32_t flits) {
  (void)cls, (void)dst;
  const xbar *x = n->topo;
  uint32_t used = x->sub[subnet].in_flits[src], limit = n->cfg.in_buffer_limit;
  return !limit || used == 0 || used + flits <= limit; /* an empty buffer takes any packet */
}

static void xbar_inject(icnt *n, icnt_packet *p, uint64_t when) {
  xbar *x = n->topo;
  xbar_subnet *b = &x->sub[p->subnet];
  packet_list *q = &b->voq[(size_t)p->src * n->nodes + p->dst];
  p->ready_t = when; /* may be switched from this cycle on */
  p->next = NULL;
  if (q->tail) q->tail->next = p;
  else q->head = p;
  q->tail = p;
  b->in_flits[p->src] += p->flits;
  b->queued++;
  bit_set(&b->req_bits[(size_t)p->dst * x->words], p->src);
}

/* The packet input i would send to output o at cycle t, if it can go now. */
static icnt_packet *eligible(const icnt *n, const xbar_subnet *b, uint32_t s, uint32_t i,
                             uint32_t o, uint64_t t) {
  icnt_packet *p = b->voq[(size_t)i * n->nodes + o].head;
  if (!p || p->ready_t > t) return NULL;
  if (!icnt_eject_room(n, s, o, p->flits)) return NULL;
  return p;
}

/* First input at or after `from` (cyclically) among `cand` (inputs that request o, are free and
 * unmatched) whose packet for o can go now; -1 if none. Walks set bits only. */
static int32_t pick_input(const icnt *n, const xbar *x, const xbar_subnet *b, uint32_t s,
                          uint32_t o, const uint64_t *cand, uint32_t from, uint64_t t) {
  uint32_t N = n->nodes;
  for (uint32_t pass = 0; pass < 2; pass++) {
    uint32_t lo = pass ? 0 : from, hi = pass ? from : N;
    for (uint32_t w = lo / 64; w * 64 < hi; w++) {
      uint64_t m = cand[w];
      if (w == lo / 64 && lo % 64) m &= ~0ull << (lo % 64);
      if ((w + 1) * 64 > hi && hi % 64) m &= (1ull << (hi % 64)) - 1;
      for (; m; m &= m - 1) {
        uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(m);
        if (eligible(n, b, s, i, o, t)) return (int32_t)i;
      }
    }
  }
  (void)x;
  return -1;
}

/* cand = inputs that request o and are free (not sending, not matched this cycle). */
static bool candidates(const icnt *n, const xbar *x, const xbar_subnet *b, uint32_t o,
                       uint64_t *cand) {
  const uint64_t *req = &b->req_bits[(size_t)o * x->words];
  uint64_t any = 0;
  for (uint32_t w = 0; w < x->words; w++) any |= cand[w] = req[w] & x->free_in[w];
  (void)n;
  return any != 0;
}

/* Inputs free to send at t and not yet matched. */
static void compute_free_inputs(const icnt *n, xbar *x, const xbar_subnet *b, uint64_t t) {
  memset(x->free_in, 0, x->words * sizeof *x->free_in);
  for (uint32_t i = 0; i < n->nodes; i++)
    if (!x->in_matched[i] && b->in_busy[i] <= t && b->in_flits[i]) bit_set(x->free_in, i);
}

static void transfer(icnt *n, xbar *x, xbar_subnet *b, uint32_t s, uint32_t i, uint32_t o,
                     uint64_t t) {
  packet_list *q = &b->voq[(size_t)i * n->nodes + o];
  icnt_packet *p = q->head;
  q->head = p->next;
  if (!q->head) {
    q->tail = NULL;
    bit_clear(&b->req_bits[(size_t)o * x->words], i);
  }
  b->queued--;
  b->in_flits[i] -= p->flits;
  icnt_input_freed(n, i, s);
  b->in_busy[i] = t + p->flits;
  b->out_busy[o] = t + p->flits;
  icnt_count_link(n, s, o, p->flits);
  p->ready_t = t + n->cfg.latency + p->flits - 1;
  icnt_deliver(n, p);
}

static void islip(icnt *n, xbar *x, xbar_subnet *b, uint32_t s, uint64_t t) {
  uint32_t N = n->nodes;
  uint32_t iters = n->cfg.islip_iterations ? n->cfg.islip_iterations : 1;
  for (uint32_t it = 0; it < iters; it++) {
    bool any = false;
    compute_free_inputs(n, x, b, t);
    for (uint32_t o = 0; o < N; o++) {
      x->grant[o] = -1;
      if (x->out_matched[o] || b->out_busy[o] > t || !candidates(n, x, b, o, x->cand)) continue;
      x->grant[o] = pick_input(n, x, b, s, o, x->cand, b->grant_ptr[o], t);
      any |= x->grant[o] >= 0;
    }
    if (!any) break;
    /* Accept: each input takes the granting output closest after its accept pointer. */
    for (uint32_t i = 0; i < N; i++) x->accept[i] = -1;
    for (uint32_t o = 0; o < N; o++) {
      int32_t i = x->grant[o];
      if (i < 0) continue;
      int32_t cur = x->accept[i];
      uint32_t ptr = b->accept_ptr[i];
      uint32_t d_new = (o + N - ptr) % N, d_cur = cur < 0 ? N : ((uint32_t)cur + N - ptr) % N;
      if (d_new < d_cur) x->accept[i] = (int32_t)o;
    }
    for (uint32_t o = 0; o < N; o++) {
      int32_t i = x->grant[o];
      if (i < 0 || x->accept[i] != (int32_t)o) continue;
      x->in_matched[i] = 1;
      x->out_matched[o] = 1;
      if (it == 0) { /* iSLIP: pointers move only on a first-iteration accept */
        b->grant_ptr[o] = ((uint32_t)i + 1) % N;
        b->accept_ptr[i] = (o + 1) % N;
      }
      transfer(n, x, b, s, (uint32_t)i, o, t);
    }
  }
}

static void round_robin(icnt *n, xbar *x, xbar_subnet *b, uint32_t s, uint64_t t) {
  uint32_t N = n->nodes;
  compute_free_inputs(n, x, b, t);
  for (uint32_t k = 0; k < N; k++) {
    uint32_t o = (x->rr_start + k) % N;
    if (b->out_busy[o] > t || !candidates(n, x, b, o, x->cand)) continue;
    int32_t i = pick_input(n, x, b, s, o, x->cand, b->grant_ptr[o], t);
    if (i < 0) continue;
    x->in_matched[i] = 1;
    bit_clear(x->free_in, (uint32_t)i);
    b->grant_ptr[o] = ((uint32_t)i + 1) % N;
    transfer(n, x, b, s, (uint32_t)i, o, t);
  }
}

static void xbar_cycle(icnt *n, uint64_t t) {
  xbar *x = n->topo;
  for (uint32_t s = 0; s < n->subnets; s++) {
    xbar_subnet *b = &x->sub[s];
    if (!b->queued) continue;
    memset(x->in_matched, 0, n->nodes);
    memset(x->out_matched, 0, n->nodes);
    if (n->cfg.arbiter == ICNT_ARB_ISLIP) islip(n, x, b, s, t);
    else round_robin(n, x, b, s, t);
  }
  x->rr_start = (uint32_t)((t + 1) % n->nodes);
}

/* Earliest cycle a queued packet could be switched: its input and output both free. Packets held
 * back by a full ejection buffer wait for a pop, which is not an event of the network. */
static uint64_t xbar_next_event(const icnt *n) {
  const xbar *x = n->topo;
  uint64_t ev = ICNT_NEVER;
  for (uint32_t s = 0; s < n->subnets; s++) {
    const xbar_subnet *b = &x->sub[s];
    if (!b->queued) continue;
    for (uint32_t o = 0; o < n->nodes; o++) {
      const uint64_t *bits = &b->req_bits[(size_t)o * x->words];
      for (uint32_t w = 0; w < x->words; w++) {
        for (uint64_t m = bits[w]; m; m &= m - 1) {
          uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(m);
          const icnt_packet *p = b->voq[(size_t)i * n->nodes + o].head;
          if (!icnt_eject_room(n, s, o, p->flits)) continue;
          uint64_t when = icnt_max(icnt_max(p->ready_t, b->in_busy[i]), b->out_busy[o]);
          ev = icnt_min(ev, icnt_max(when, n->t));
          if (ev == n->t) return ev;
        }
      }
    }
  }
  return ev;
}

const icnt_topo_ops icnt_xbar_ops = {xbar_create,     xbar_destroy, xbar_can_inject,
                                     xbar_inject,     xbar_next_event, xbar_cycle};
