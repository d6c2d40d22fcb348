/* icnt_internal — private to models/icnt: the packet record, the parts every topology shares
 * (packet pool, ejection buffers, arrival heap, statistics) and the topology ops table. */
#ifndef SIMTVP_ICNT_INTERNAL_H
#define SIMTVP_ICNT_INTERNAL_H

#include "icnt.h"
#include "stats.h"

typedef struct icnt_packet {
  mem_req *req;
  uint64_t seq;       /* injection order: ties are broken by it */
  uint64_t inject_t;  /* cycle it was injected */
  uint64_t ready_t;   /* when it can move on from where it is (fully arrived, at the ejection) */
  uint32_t src, dst;
  uint16_t flits;
  uint8_t subnet;
  uint8_t vc_class;   /* 0 request, 1 reply */
  bool announced;     /* out of the arrival heap (statistics counted, `arrived` called) */
  struct icnt_packet *next;
} icnt_packet;

typedef struct packet_list {
  icnt_packet *head, *tail;
} packet_list;

typedef struct packet_chunk {
  struct packet_chunk *next;
  icnt_packet packets[];
} packet_chunk;

typedef struct icnt_topo_ops {
  simtvp_status (*create)(icnt *n, simtvp_diag *diag);
  void (*destroy)(icnt *n);
  /* Room for `flits` more at the injection port of src on subnet s, for class cls (0 request,
   * 1 reply), toward node dst? */
  bool (*can_inject)(const icnt *n, uint32_t src, uint32_t dst, uint32_t subnet, uint32_t cls, uint32_t flits);
  void (*inject)(icnt *n, icnt_packet *p, uint64_t when);
  /* Earliest cycle >= n->t at which cycle() can move a packet, ICNT_NEVER if none. */
  uint64_t (*next_event)(const icnt *n);
  void (*cycle)(icnt *n, uint64_t t);
} icnt_topo_ops;

typedef struct icnt_counters {
  uint64_t *cycles, *packets_injected, *flits_injected, *packets_ejected, *flits_ejected,
      *latency_sum, *latency_max, *refused;
} icnt_counters;

struct icnt {
  icnt_config cfg;
  const icnt_topo_ops *ops;
  void *topo;
  uint32_t nodes;
  uint32_t subnets;
  uint32_t cols, rows; /* 2-D layout (mesh, fixed) */
  uint64_t t;          /* first cycle not yet simulated */
  uint64_t timed_now;  /* approximately timed: the latest injection cycle seen (back-pressure) */
  uint64_t seq;

  icnt_packet *free;
  packet_chunk *chunks;
  uint32_t capacity;   /* packets allocated in the pool */

  packet_list *eject;  /* [subnets * nodes], ordered by ready_t */
  uint32_t *eject_flits;

  icnt_packet **heap;  /* packets not yet announced as arrived, min-heap on (ready_t, seq) */
  uint32_t heap_len, heap_cap;

  bool *refused;       /* [subnets * nodes]: an injection was refused, announce room */
  uint32_t *notify;    /* nodes to tell about room at the end of the cycle */
  uint32_t n_notify;

  uint64_t *link_flits; /* per_link_stats: [subnets * links_per_subnet] (no stats sink) */
  uint64_t **link_ctr;  /* per_link_stats: where each link's count lives (sink or link_flits) */
  uint32_t links_per_subnet;

  icnt_counters c;
  uint64_t local[8];
  struct stats_histogram *hist;
};

extern const icnt_topo_ops icnt_xbar_ops;
extern const icnt_topo_ops icnt_mesh_ops;
extern const icnt_topo_ops icnt_at_ops; /* -icnt_model at, any topology (icnt_at.c) */

/* Shared helpers the topologies call. */
bool icnt_eject_room(const icnt *n, uint32_t subnet, uint32_t node, uint32_t flits);
/* The packet has been switched to its destination's ejection buffer and is complete at ready_t. */
void icnt_deliver(icnt *n, icnt_packet *p);
/* Injection space was freed at src: remember to tell the source if it had been refused. */
void icnt_input_freed(icnt *n, uint32_t src, uint32_t subnet);
void icnt_count_link(icnt *n, uint32_t subnet, uint32_t link, uint32_t flits);
static inline uint64_t icnt_max(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t icnt_min(uint64_t a, uint64_t b) { return a < b ? a : b; }

#endif /* SIMTVP_ICNT_INTERNAL_H */
