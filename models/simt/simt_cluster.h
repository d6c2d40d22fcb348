/* simt_cluster — a SIMT core cluster (GPGPU-Sim 3.x manual §2.2 "SIMT Core Clusters"): a few
 * SIMT cores (simt.h, any mix of variants) sharing one injection port into the interconnect and
 * one response FIFO out of it (-gpgpu_n_cluster_ejection_buffer_size).
 *
 * Requests of the cores leave through ports.inject with src_node = the cluster's interconnect
 * node and dst_node = n_clusters + the global L2 sub-partition of the address (dram_addrdec.h;
 * partition, sub_partition, the aperture and a SYSMEM request's bus address (cfg.aperture) are
 * filled too; system memory is routed by its bus address, mem_req_route_addr). The cores get the injection port in round-robin
 * order, one core further each cycle; once the interconnect refuses a request, no core injects
 * again that cycle. Replies enter the response FIFO through simt_cluster_deliver (false when it
 * is full: the interconnect keeps the packet); one reply per cycle leaves the FIFO for the core
 * in mem_req.sm, which routes it to its L1I (instruction fetches) or its LDST unit. */
#ifndef SIMTVP_SIMT_CLUSTER_H
#define SIMTVP_SIMT_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "dram_addrdec.h"
#include "simt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct simt_cluster simt_cluster;

typedef struct simt_cluster_config {
  uint32_t cluster;            /* cluster index = its interconnect node */
  uint32_t n_clusters;         /* memory nodes are numbered from n_clusters */
  uint32_t n_cores;
  const simt_core_config *cores; /* n_cores configurations (their sm numbers must differ) */
  uint32_t ejection_buffer;    /* -gpgpu_n_cluster_ejection_buffer_size: response FIFO, replies */
  const dram_addrmap *addrmap; /* address → sub-partition (not owned); NULL: every request to
                                  sub-partition 0 */
  stats *stats;                /* may be NULL */
  mem_aperture_port aperture;  /* address → mem_aperture, set in every request sent (the GPU's
                                  translation; docs/system-modes.md); of and of_bus NULL:
                                  all VIDMEM */
} simt_cluster_config;

typedef struct simt_cluster_ports {
  void *ctx;
  /* A request into the interconnect. false = refused this cycle. */
  bool (*inject)(void *ctx, mem_req *req, uint64_t now);
  /* A CTA of one of the cluster's cores finished (see simt_core_ports.cta_done). */
  void (*cta_done)(void *ctx, uint32_t sm, uint32_t kernel_slot, const gpu_cta_result *r,
                   uint64_t now);
  simtvp_msg_port messages;
  /* Optional (may be NULL): a core's structured fault or barrier-deadlock report (see
   * simt_core_ports.fault), forwarded as the core sends it. */
  void (*fault)(void *ctx, uint32_t sm, uint32_t kernel_slot, const simtvp_diag *report, uint64_t now);
  /* Optional (may be NULL): timed injection (simt_core_ports.send_timed): the request, routed,
   * enters the interconnect at cycle `at`; returns the cycle its reply is back at the cluster,
   * SIMT_MEM_DEFERRED, or SIMT_MEM_UNTIMED (nothing taken). */
  uint64_t (*inject_timed)(void *ctx, mem_req *req, uint64_t at);
} simt_cluster_ports;

/* Creates the cluster and its cores; fails with the first core's diag. */
simtvp_status simt_cluster_create(const simt_cluster_config *config, simt_cluster_ports ports,
                                  simt_cluster **out, simtvp_diag *diag);
void simt_cluster_destroy(simt_cluster *cl);

uint32_t simt_cluster_core_count(const simt_cluster *cl);
/* Core i of the cluster (0 ≤ i < core count). */
simt_core *simt_cluster_core(simt_cluster *cl, uint32_t i);
/* The core with global index sm, NULL when it is not in this cluster. */
simt_core *simt_cluster_core_of(simt_cluster *cl, uint32_t sm);

/* Starts a CTA on core sm (simt_core_launch_cta). */
simtvp_status simt_cluster_launch_cta(simt_cluster *cl, uint32_t sm, const simt_kernel *k,
                                      const uint32_t cta[3], uint64_t now, simtvp_diag *diag);
/* A reply from the interconnect for one of the cluster's cores. false = the response FIFO is
 * full this cycle (counted as gpu_stall_icnt2sh). */
bool simt_cluster_deliver(simt_cluster *cl, mem_req *reply, uint64_t now);
/* A reply that arrives at cycle `at` (timed transport; at may lie ahead): a core that takes timed
 * replies (simt_core_mem_reply_at) gets it at once; for the others the cluster keeps it and
 * delivers it through its response FIFO from `at` on. */
void simt_cluster_deliver_at(simt_cluster *cl, mem_req *reply, uint64_t at);

void simt_cluster_advance(simt_cluster *cl, uint64_t now);
uint64_t simt_cluster_next_event(const simt_cluster *cl);
bool simt_cluster_idle(const simt_cluster *cl);
/* (addition) Whether CTAs of a thread block cluster launch (more than one CTA per cluster) are
 * resident — they share barriers and shared memory with CTAs on other SMs — or the cluster holds
 * an interval core, whose memory port (simt_interval_mem_port) is called on the simulation
 * thread only: a shell ticks this cluster on the simulation thread then (-sim_threads stays
 * deterministic). */
bool simt_cluster_runs_cluster_ctas(const simt_cluster *cl);
/* Replies waiting in the response FIFO. */
uint32_t simt_cluster_pending_replies(const simt_cluster *cl);
/* The FIFO and every core (simt_core_dump). */
void simt_cluster_dump(const simt_cluster *cl, void (*line)(void *ctx, const char *text), void *ctx);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_SIMT_CLUSTER_H */
