/* icnt_at — the approximately-timed interconnect (-icnt_model at; docs/icnt.md "Approximately
 * timed"): no flit is stepped. A packet's arrival is computed when it is injected, from the same
 * parameters as the cycle-accurate topologies, with each port's bandwidth as a next-free time:
 *
 *   crossbar  the packet streams one flit per cycle through its input and its output port:
 *             grant = max(inject, input free, output free); both ports are busy for `flits`
 *             cycles; complete at grant + latency + flits - 1 (the CA crossbar's zero-load rule);
 *   mesh      injection serialises at the source router's local port and ejection at the
 *             destination's; between them the head takes hop_latency per router:
 *             complete at out_start + flits - 1, out_start = max(grant + (H + 1) × hop_latency,
 *             ejection free) (the CA mesh's zero-load rule; contention inside the mesh is left out);
 *   perfect / fixed  as their CA versions (they have no contention to model).
 * What it leaves out against the CA networks: the iSLIP matching order among simultaneous
 * requests (ports are granted in the order packets are injected), input-buffer limits (waiting at
 * a busy port is time, not refusal) and link contention inside a mesh. Back-pressure stays: an
 * injection toward a node whose ejection buffer holds -icnt_out_buffer_limit flits that the
 * receiver has not popped is refused, as on the CA networks.
 *
 * Packets injected through icnt_inject are placed in their destination's ejection buffer at once
 * with their arrival time (icnt_deliver); icnt_traverse times a packet that an approximately-timed
 * neighbour hands through without a packet record (the shells' timed transport). */
#include <stdlib.h>
#include <string.h>

#include "icnt_internal.h"

typedef struct at_ports {
  uint64_t *in_free;  /* [subnet * nodes + node]: first cycle the injection port is free */
  uint64_t *out_free; /* [subnet * nodes + node]: first cycle the ejection port is free */
} at_ports;

static uint32_t hops(const icnt *n, uint32_t a, uint32_t b) {
  int ax = (int)(a % n->cols), ay = (int)(a / n->cols), bx = (int)(b % n->cols), by = (int)(b / n->cols);
  return (uint32_t)(abs(ax - bx) + abs(ay - by));
}

static simtvp_status at_create(icnt *n, simtvp_diag *diag) {
  at_ports *p = calloc(1, sizeof *p);
  if (!p) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  size_t k = (size_t)n->subnets * n->nodes;
  p->in_free = calloc(k, sizeof *p->in_free);
  p->out_free = calloc(k, sizeof *p->out_free);
  n->topo = p;
  if (!p->in_free || !p->out_free) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  return SIMTVP_OK;
}

static void at_destroy(icnt *n) {
  at_ports *p = n->topo;
  if (!p) return;
  free(p->in_free);
  free(p->out_free);
  free(p);
  n->topo = NULL;
}

/* The cycle a packet of `flits` flits injected at `when` has fully arrived; reserves the ports. */
static uint64_t at_time(icnt *n, uint32_t subnet, uint32_t src, uint32_t dst, uint32_t flits, uint64_t when) {
  at_ports *p = n->topo;
  size_t s = (size_t)subnet * n->nodes;
  switch (n->cfg.topology) {
    case ICNT_PERFECT:
      return when;
    case ICNT_FIXED:
      return when + n->cfg.latency + (uint64_t)n->cfg.hop_latency * hops(n, src, dst);
    case ICNT_XBAR: {
      uint64_t g = icnt_max(when, icnt_max(p->in_free[s + src], p->out_free[s + dst]));
      p->in_free[s + src] = p->out_free[s + dst] = g + flits;
      icnt_count_link(n, subnet, dst, flits);
      return g + n->cfg.latency + flits - 1;
    }
    case ICNT_MESH:
    default: {
      uint64_t g = icnt_max(when, p->in_free[s + src]);
      p->in_free[s + src] = g + flits;
      uint64_t head = g + (uint64_t)(hops(n, src, dst) + 1) * n->cfg.hop_latency;
      uint64_t o = icnt_max(head, p->out_free[s + dst]);
      p->out_free[s + dst] = o + flits;
      icnt_count_link(n, subnet, dst * 5u, flits);
      return o + flits - 1;
    }
  }
}

static bool at_can_inject(const icnt *n, uint32_t src, uint32_t dst, uint32_t subnet, uint32_t cls, uint32_t flits) {
  (void)src, (void)cls;
  return icnt_eject_room(n, subnet, dst, flits);
}

static void at_inject(icnt *n, icnt_packet *p, uint64_t when) {
  p->ready_t = at_time(n, p->subnet, p->src, p->dst, p->flits, when);
  icnt_deliver(n, p);
}

static uint64_t at_next_event(const icnt *n) {
  (void)n;
  return ICNT_NEVER; /* arrivals come from the heap */
}

static void at_cycle(icnt *n, uint64_t t) { (void)n, (void)t; }

const icnt_topo_ops icnt_at_ops = {at_create, at_destroy, at_can_inject, at_inject, at_next_event, at_cycle};

uint64_t icnt_traverse(icnt *n, uint32_t src, const mem_req *req, uint64_t now) {
  uint32_t s = n->subnets == 2 && req->is_reply ? 1u : 0u, flits = icnt_flits(n, req);
  if (src >= n->nodes || req->dst_node >= n->nodes) return now;
  uint64_t done = at_time(n, s, src, req->dst_node, flits, now);
  uint64_t lat = done - now;
  *n->c.packets_injected += 1;
  *n->c.flits_injected += flits;
  *n->c.packets_ejected += 1;
  *n->c.flits_ejected += flits;
  *n->c.latency_sum += lat;
  if (lat > *n->c.latency_max) *n->c.latency_max = lat;
  if (n->hist) stats_histogram_add(n->hist, lat);
  if (done > *n->c.cycles) *n->c.cycles = done;
  return done;
}
