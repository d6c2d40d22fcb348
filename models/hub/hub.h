/* hub — the GPU's path to system memory: the block that bridges the memory partitions to the
 * system bus (NVIDIA's GPUs call it the hub; it sits in front of PCIe on a discrete GPU and of the
 * SoC fabric on an integrated one). docs/system-modes.md §1 is its manual.
 *
 * Requests a memory partition sends to system memory — zero-copy accesses to mapped host memory,
 * and, on a GPU without DRAM of its own (-system_mode other than discrete), every request its DRAM
 * side sends — queue here, are translated to a bus address (ports.translate: the GPU's aperture
 * map, or the IOMMU), cross the link (a bandwidth and a round-trip latency) and become transactions
 * on the GPU's DMA initiator (ports.issue, which answers with the time the system took); the reply
 * goes back to the input the request came from.
 *
 * Timing, in cycles of the hub's clock (the shell runs it in the L2 clock), for a request pushed at
 * cycle a on any input:
 *   x     = a + translation cycles (ports.translate; 0 for the aperture map)
 *   start = max(x, link_free); link_free = start + ser, ser = ceil(size × 1000 / bytes_per_kcycle)
 *           (a request occupies the link for its data bytes once, whichever way they flow)
 *   issue = start + ser: the bus transaction (ports.issue); the system answers D cycles later
 *   reply = issue + D + latency, handed to ports.reply (refused: kept until hub_reply_ready)
 * At most max_outstanding requests are held from push to reply (a push beyond is refused: the
 * partition keeps it, back-pressure). Atomics cross as one non-posted read transaction.
 *
 * Deterministic; no allocation per request (entries come from a pool sized at create); idle costs
 * nothing (next_event is exact). Statistics are registered when the first request arrives, so a
 * GPU that never reaches system memory reports none. */
#ifndef SIMTVP_HUB_H
#define SIMTVP_HUB_H

#include <stdbool.h>
#include <stdint.h>

#include "mem_req.h"
#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

struct stats;

#define HUB_NEVER UINT64_MAX

typedef struct hub_ports {
  void *ctx;
  /* GPU address of req → bus address. *cycles: translation time (0 for a table lookup; an IOMMU
   * walk takes longer). false: no translation (the request crosses nothing and is answered
   * after the link latency; counted as hub.translation_faults). */
  bool (*translate)(void *ctx, const mem_req *req, uint64_t now, uint64_t *bus, uint64_t *cycles);
  /* The bus transaction of req at `bus` (req->size bytes, a read or a write), issued at cycle now.
   * Returns the cycles the system took to answer (the target's annotated delay). */
  uint64_t (*issue)(void *ctx, const mem_req *req, uint64_t bus, uint64_t now);
  /* The reply of a request that came in on `input`. false = refused: the hub keeps it at the
   * head of that input's replies until hub_reply_ready(input). */
  bool (*reply)(void *ctx, uint32_t input, mem_req *req, uint64_t now);
} hub_ports;

typedef struct hub_config {
  const char *name;          /* statistics prefix ("hub"); NULL: "hub" */
  uint32_t n_inputs;         /* partitions' links into the hub (≥ 1) */
  uint32_t latency;          /* round-trip latency of the link, cycles */
  uint64_t bytes_per_kcycle; /* link bandwidth: bytes per 1000 cycles (≥ 1) */
  uint32_t max_outstanding;  /* requests held at once (≥ 1) */
  struct stats *stats;       /* may be NULL */
  hub_ports ports;           /* translate may be NULL (identity); issue NULL: the system answers at once */
} hub_config;

typedef struct hub hub;

/* SIMTVP_ERR_CONFIG naming the option for a zero bandwidth, no inputs or no room (-hub_*). */
simtvp_status hub_create(const hub_config *cfg, hub **out, simtvp_diag *diag);
/* Requests still held are returned to their pools. */
void hub_destroy(hub *h);

/* Would a push be taken now? */
bool hub_can_accept(const hub *h);
/* A request from input `input` at cycle now (≥ every earlier now). false = refused (full). */
bool hub_push(hub *h, uint32_t input, mem_req *req, uint64_t now);
/* The reply port of `input` that refused has room again. */
void hub_reply_ready(hub *h, uint32_t input, uint64_t now);
void hub_advance(hub *h, uint64_t now);
/* Next cycle something can happen; HUB_NEVER when idle or waiting for ready notes only. */
uint64_t hub_next_event(const hub *h);
/* Requests held (pushed, not yet replied). */
uint32_t hub_outstanding(const hub *h);

typedef struct hub_stats {
  uint64_t requests, reads, writes, atomics, bytes;
  uint64_t latency_cycles;     /* sum over requests of push → reply */
  uint64_t link_busy_cycles;   /* cycles the link carried data */
  uint64_t translation_cycles; /* sum of translation times */
  uint64_t translation_faults, refused;
} hub_stats;
void hub_get_stats(const hub *h, hub_stats *out);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_HUB_H */
