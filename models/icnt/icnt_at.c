/* icnt_at — the approximately-timed interconnect (-icnt_model at; docs/icnt.md "Approximately
 * timed"): no flit is stepped. A packet's arrival is computed when it is injected, from the same
 * parameters as the cycle-accurate topologies, with each port's bandwidth as the cycles it is
 * booked for (models/common/simtvp_cal.h: packets are timed out of order — a reply may be timed
 * hundreds of cycles ahead — and a later-timed packet still takes the cycles an earlier-timed one
 * left free):
 *
 *   crossbar  the packet streams one flit per cycle through its input and its output port:
 *             grant = the first cycle from its injection on when both ports are free for `flits`
 *             cycles, which it books; complete at grant + latency + flits - 1 (the CA crossbar's
 *             zero-load rule);
 *   mesh      injection serialises at the source router's local port and ejection at the
 *             destination's; between them the head takes hop_latency per router:
 *             complete at out_start + flits - 1, out_start = the first free ejection cycles from
 *             grant + (H + 1) × hop_latency (the CA mesh's zero-load rule; contention inside the
 *             mesh is left out);
 *   perfect / fixed  as their CA versions (they have no contention to model).
 * What it leaves out against the CA networks: the iSLIP matching order among simultaneous
 * requests (ports are granted in the order packets are injected) and link contention inside a
 * mesh. Back-pressure stays (at_can_inject): a packet is refused while its injection port holds
 * -icnt_in_buffer_limit flits not streamed out yet, or its destination's ejection buffer holds
 * -icnt_out_buffer_limit flits that arrived and that the receiver has not popped.
 *
 * Packets injected through icnt_inject are placed in their destination's ejection buffer at once
 * with their arrival time (icnt_deliver); icnt_traverse times a packet that an approximately-timed
 * neighbour hands through without a packet record (the shells' timed transport). */
#include <stdlib.h>
#include <string.h>

#include "icnt_internal.h"
#include "simtvp_cal.h"

typedef struct at_ports {
  simtvp_cal *in;  /* [subnet * nodes + node]: the cycles the injection port streams flits */
  simtvp_cal *out; /* [subnet * nodes + node]: the cycles the ejection port streams flits */
} at_ports;

static uint32_t hops(const icnt *n, uint32_t a, uint32_t b) {
  int ax = (int)(a % n->cols), ay = (int)(a / n->cols), bx = (int)(b % n->cols), by = (int)(b / n->cols);
  return (uint32_t)(abs(ax - bx) + abs(ay - by));
}

static simtvp_status at_create(icnt *n, simtvp_diag *diag) {
  at_ports *p = calloc(1, sizeof *p);
  if (!p) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  size_t k = (size_t)n->subnets * n->nodes;
  p->in = calloc(k, sizeof *p->in);
  p->out = calloc(k, sizeof *p->out);
  n->topo = p;
  if (!p->in || !p->out) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  return SIMTVP_OK;
}

static void at_destroy(icnt *n) {
  at_ports *p = n->topo;
  if (!p) return;
  free(p->in);
  free(p->out);
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
    case ICNT_XBAR: { /* the first cycles both ports are free for the whole packet */
      simtvp_cal *in = &p->in[s + src], *out = &p->out[s + dst];
      uint64_t g = simtvp_cal_find(in, when, flits);
      for (;;) {
        uint64_t o = simtvp_cal_find(out, g, flits);
        if (o == g) break;
        g = simtvp_cal_find(in, o, flits);
      }
      simtvp_cal_book(in, g, flits);
      simtvp_cal_book(out, g, flits);
      icnt_count_link(n, subnet, dst, flits);
      return g + n->cfg.latency + flits - 1;
    }
    case ICNT_MESH:
    default: {
      uint64_t g = simtvp_cal_take(&p->in[s + src], when, flits);
      uint64_t head = g + (uint64_t)(hops(n, src, dst) + 1) * n->cfg.hop_latency;
      uint64_t o = simtvp_cal_take(&p->out[s + dst], head, flits);
      icnt_count_link(n, subnet, dst * 5u, flits);
      return o + flits - 1;
    }
  }
}

/* Back-pressure as the CA networks exert it, at the cycle of the latest injection: a packet enters
 * only when its source's injection buffer has room for it (the flits queued there are those its
 * port has not streamed out yet) and its destination's ejection buffer holds fewer than
 * -icnt_out_buffer_limit flits that arrived and were not taken (packets still on their way are in
 * the network's buffers, not there). */
static bool at_can_inject(const icnt *n, uint32_t src, uint32_t dst, uint32_t subnet, uint32_t cls, uint32_t flits) {
  (void)cls;
  if (n->cfg.topology == ICNT_PERFECT || n->cfg.topology == ICNT_FIXED) return true;
  const at_ports *p = n->topo;
  uint64_t now = n->timed_now, queued = simtvp_cal_booked_from(&p->in[(size_t)subnet * n->nodes + src], now);
  if (n->cfg.in_buffer_limit && queued && queued + flits > n->cfg.in_buffer_limit) return false;
  if (!n->cfg.out_buffer_limit) return true;
  uint64_t arrived = 0;
  for (const icnt_packet *x = n->eject[(size_t)subnet * n->nodes + dst].head; x && x->ready_t <= now; x = x->next)
    arrived += x->flits;
  return !arrived || arrived + flits <= n->cfg.out_buffer_limit;
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
