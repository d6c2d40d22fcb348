/* icnt — the on-chip interconnect between SIMT core clusters and memory sub-partitions.
 *
 * Follows the GPGPU-Sim 3.x manual §2.4 ("Interconnection network") and its 4.x built-in local
 * crossbar (-network_mode 2, -icnt_in_buffer_limit, -icnt_out_buffer_limit, -icnt_subnets,
 * -icnt_flit_size, -icnt_arbiter_algo). Four topologies behind one interface (an ops table inside):
 *   perfect  zero latency, infinite bandwidth: a packet can be popped in the cycle it was injected;
 *   fixed    a fixed latency plus a per-hop latency on a 2-D layout, infinite bandwidth;
 *   xbar     a crossbar with virtual output queues, an iSLIP (or round-robin) arbiter, one flit per
 *            cycle per input and per output, input and output buffer limits in flits;
 *   mesh     a 2-D mesh, dimension-order (XY) routing, virtual channels with credit-style buffer
 *            limits and virtual cut-through, per-hop router+link latency.
 * Nodes 0 .. n_shader_nodes-1 are SIMT clusters, then the memory sub-partitions. With two subnets
 * (GPGPU-Sim's default) requests and replies travel on separate networks (req->is_reply picks);
 * with one, they share links and (mesh) use separate virtual-channel classes.
 *
 * Packets are mem_req records (addresses, no data); a packet's size on the wire is
 * mem_req_wire_bytes() and it occupies ceil(bytes / flit_size) flits. Time is integer cycles of
 * the interconnect clock. The block never allocates per packet once warm. */
#ifndef SIMTVP_ICNT_H
#define SIMTVP_ICNT_H

#include <stdbool.h>
#include <stdint.h>

#include "mem_req.h"
#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

struct stats;

typedef enum icnt_topology {
  ICNT_PERFECT = 0,
  ICNT_FIXED = 1,
  ICNT_XBAR = 2,
  ICNT_MESH = 3
} icnt_topology;

typedef enum icnt_arbiter {
  ICNT_ARB_RR = 0,   /* -icnt_arbiter_algo 0: each output grants round-robin */
  ICNT_ARB_ISLIP = 1 /* -icnt_arbiter_algo 1: iSLIP request/grant/accept */
} icnt_arbiter;

/* Called when a packet has fully arrived in `node`'s ejection buffer (pop it when you can). */
typedef void (*icnt_arrived_fn)(void *ctx, uint32_t node, uint64_t now);
/* Called when `node`, which had an injection refused, has input-buffer room again. */
typedef void (*icnt_inject_ready_fn)(void *ctx, uint32_t node, uint64_t now);

typedef struct icnt_ports {
  void *ctx;
  icnt_arrived_fn arrived;           /* may be NULL (then poll icnt_peek) */
  icnt_inject_ready_fn inject_ready; /* may be NULL (then poll icnt_can_inject) */
} icnt_ports;

typedef struct icnt_config {
  icnt_topology topology;
  uint32_t n_shader_nodes;   /* SIMT core clusters */
  uint32_t n_mem_nodes;      /* memory sub-partitions */
  uint32_t subnets;          /* -icnt_subnets: 1 or 2 (requests and replies apart) */
  uint32_t flit_size;        /* -icnt_flit_size: bytes per flit */
  uint32_t in_buffer_limit;  /* -icnt_in_buffer_limit: flits an injection port holds */
  uint32_t out_buffer_limit; /* -icnt_out_buffer_limit: flits an ejection port holds */
  icnt_arbiter arbiter;      /* xbar */
  uint32_t islip_iterations; /* xbar, iSLIP: request/grant/accept rounds per cycle (>= 1) */
  uint32_t latency;          /* xbar: cycles through the switch; fixed: base latency */
  uint32_t hop_latency;      /* mesh: router + link cycles per hop; fixed: cycles per hop */
  uint32_t mesh_cols;        /* mesh/fixed layout: routers per row (0 = ceil(sqrt(nodes))) */
  uint32_t n_vcs;            /* mesh: virtual channels per port (>= 2 when subnets == 1) */
  uint32_t vc_buffer_flits;  /* mesh: flits per virtual-channel buffer (>= largest packet) */
  bool per_link_stats;       /* count flits per link ("icnt.link[...]") */
  bool timed;                /* -icnt_model at: approximately timed (icnt_at.c): arrivals computed at
                                injection from the topology's latencies and per-port bandwidth */
  uint32_t hist_bucket_width; /* packet-latency histogram: cycles per bucket */
  uint32_t hist_buckets;      /* and number of buckets (plus overflow) */
  struct stats *stats;        /* counters are registered here when non-NULL */
  icnt_ports ports;
} icnt_config;

/* GPGPU-Sim's TITAN V local crossbar: 2 subnets, 40-byte flits, 512-flit buffers, iSLIP. */
void icnt_config_default(icnt_config *cfg);

typedef struct icnt_stats {
  uint64_t cycles;           /* interconnect cycles simulated */
  uint64_t packets_injected, flits_injected;
  uint64_t packets_ejected, flits_ejected; /* arrived at their destination */
  uint64_t latency_sum, latency_max;       /* inject -> fully arrived, cycles */
  uint64_t refused;          /* injections refused (back-pressure) */
  double avg_latency;
  double accepted_rate;      /* flits arrived per node per cycle */
} icnt_stats;

typedef struct icnt icnt;

simtvp_status icnt_create(const icnt_config *cfg, icnt **out, simtvp_diag *diag);
void icnt_destroy(icnt *n);

uint32_t icnt_nodes(const icnt *n);
/* Flits a request occupies: ceil(mem_req_wire_bytes(req) / flit_size). */
uint32_t icnt_flits(const icnt *n, const mem_req *req);
/* True when node `src` can inject req now (its injection buffer has room). */
bool icnt_can_inject(const icnt *n, uint32_t src, const mem_req *req);
/* Injects req at node src toward req->dst_node at cycle now (>= every earlier now); the subnet is
 * chosen by req->is_reply. Returns false (keeping nothing) when the buffer is full. */
bool icnt_inject(icnt *n, uint32_t src, mem_req *req, uint64_t now);
/* The oldest packet that has arrived at `node` by cycle `now`, or NULL. */
mem_req *icnt_peek(const icnt *n, uint32_t node, uint64_t now);
/* Removes and returns it (frees its ejection-buffer space), or NULL. */
mem_req *icnt_pop(icnt *n, uint32_t node, uint64_t now);
/* Does everything due up to and including cycle now. */
void icnt_advance(icnt *n, uint64_t now);
/* -icnt_model at (icnt_config.timed). */
bool icnt_is_timed(const icnt *n);
/* Approximately timed only: the cycle a packet for req (src → req->dst_node, its subnet by
 * is_reply) injected at `now` has fully arrived, its ports reserved and its statistics counted,
 * without a packet record (an approximately-timed neighbour's timed transport). */
uint64_t icnt_traverse(icnt *n, uint32_t src, const mem_req *req, uint64_t now);
/* Approximately timed only: injects req at src at cycle `at` (≥ now; a timed neighbour's item)
 * without refusal: it waits in its destination's ejection buffer from its computed arrival on,
 * for icnt_peek/icnt_pop as any packet. false: not a timed network (or out of host memory). */
bool icnt_inject_timed(icnt *n, uint32_t src, mem_req *req, uint64_t at);
/* The next cycle at which something can happen, ICNT_NEVER when idle or blocked. */
uint64_t icnt_next_event(const icnt *n);
void icnt_get_stats(const icnt *n, icnt_stats *out);
/* Flits that crossed one link (per_link_stats): xbar `port` = output node; mesh `port` =
 * router * 5 + direction (0 local/eject, 1 east, 2 west, 3 north, 4 south). */
uint64_t icnt_link_flits(const icnt *n, uint32_t subnet, uint32_t port);

#define ICNT_NEVER UINT64_MAX

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_ICNT_H */
