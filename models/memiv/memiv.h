/* memiv — the memory system beyond the L1, interval style: a closed-form model of the
 * interconnect, the L2 slices and the DRAM channels that answers at once, with no events, the
 * question an interval SIMT core (models/simt/interval) asks through simt_interval_mem_port:
 * "this request for these sectors of this 128-byte line leaves SM `sm` at core cycle `at`; when is
 * its reply back at the SM?" (docs/memiv.md).
 *
 * It is a model of the same hardware as models/icnt (AT crossbar rule), models/mempart (AT
 * partition rule, models/cache tags per slice) and models/dram (bank/row state, data bus), with
 * every latency, width and rate taken from the configuration (memiv_config_from_gpu):
 *   request   core → icnt clock; the cluster's injection port and the slice's ejection port each
 *             stream ceil(bytes / -icnt_flit_size) flits (one per icnt cycle), arrival at
 *             grant + latency + flits - 1 (crossbar; fixed: latency + hops × -icnt_hop_latency;
 *             perfect: 0);
 *   L2 slice  icnt → L2 clock; intake one request per L2 cycle, -gpgpu_l2_rop_latency, one access
 *             per L2 cycle (a hit holds the data port ceil(bytes / port width) cycles), the tags of
 *             -gpgpu_cache:dl2 exactly (models/cache, timed use), the atomic unit
 *             (-gpgpu_l2_atomic_ops_per_cycle); hit reply at A + 2;
 *   DRAM      miss: -dram_latency and the partition's one-per-cycle arbiter, L2 → DRAM clock;
 *             per bank its last 8 rows in time order, each with its ACT and PRE (the open one's
 *             PRE readiness) (-gpgpu_dram_timing_opt: a row hit waits for nothing but the bus, a
 *             miss costs tRP + tRCD, tRC and tRAS respected; a request to a row that was open at
 *             its arrival, before that row's PRE, is served as the FR-FCFS scheduler would: a hit;
 *             ACTs of a channel tRRD apart), column commands tCCDL apart
 *             within a bank group, CL or WL,
 *             then the channel's data bus busy burst cycles per column command; back to
 *             the L2 clock, the fill port, reply at fill + 2; dirty evictions occupy the bank and
 *             bus, nobody waits for them;
 *   sysmem    a line the aperture names system memory goes around the L2 to the partition's
 *             queue toward its DRAM side (-dram_latency, the arbiter), then through the hub's
 *             link: its bytes serialised at the link's bandwidth (one calendar for the GPU), then
 *             the link's round trip (-host_sysmem_latency_ns / -host_bus_bandwidth_gbs, or the
 *             SoC fabric's when integrated), as models/hub; the hub's request limit left out;
 *   reply     L2 → icnt clock; the slice's injection port and the cluster's ejection port on the
 *             reply subnet; icnt → core clock.
 * Every crossing between clock domains lands on the receiver's first edge strictly after the
 * sender's (the shells' link rule, docs/tlm.md), in exact integer arithmetic on kHz.
 *
 * Ports (interconnect ports, slice intake, L2 data and fill ports, partition arbiter, a channel's
 * activate window, bank groups' command slots and data bus) are calendars of booked cycles (a
 * ring of 4096 per port): requests arrive in host order, up to a few thousand cycles out of time
 * order (interval cores run ahead by a horizon), and a booking takes the first free cycles at or
 * after the ones it wants, so an out-of-order booking does not queue behind later-timed ones; one
 * wanted before a port's window starts at the window (memiv.late_bookings counts them). A request
 * that arrived before the one that opened its DRAM bank's row (a hit on a row open at its
 * arrival, the opener of the next row when that is its row, else its own row in its place in
 * time order), or before the miss whose fill it waits for in the L2, is served as in time order
 * it would have been, never waiting for a later one (docs/memiv.md §3).
 *
 * What it leaves out: queue capacities and refusals (waiting is time, never refusal: no
 * back-pressure into the cores beyond the waiting itself), L2 MSHR limits, the DRAM scheduler's
 * reordering beyond "a row hit may use a row that was open at its arrival" (and beyond a bank's
 * last 8 rows), command-bus slots,
 * tFAW, refresh and read/write turnaround; the interconnect's iSLIP order among
 * simultaneous requests. C11, no globals, no allocation per request, deterministic. */
#ifndef SIMTVP_MEMIV_H
#define SIMTVP_MEMIV_H

#include <stdbool.h>
#include <stdint.h>

#include "dram.h"
#include "mem_req.h"
#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

struct stats;
struct gpu_config;

typedef enum memiv_topology {
  MEMIV_ICNT_XBAR = 0, /* -network_mode 1 (as 2) and 2: crossbar, ports serialise */
  MEMIV_ICNT_PERFECT,  /* -network_mode 3: no latency, no contention */
  MEMIV_ICNT_FIXED     /* -network_mode 4: latency + hops × hop latency, no contention */
} memiv_topology;

/* Plain data. Latencies in the clock named; frequencies in kHz (all four > 0). */
typedef struct memiv_config {
  /* SMs and clocks */
  uint32_t n_sms;               /* SIMT cores (simt_interval_mem_port's sm < n_sms) */
  uint32_t cores_per_cluster;   /* an SM injects through its cluster's port: sm / cores_per_cluster */
  uint64_t core_khz, icnt_khz, l2_khz, dram_khz; /* -gpgpu_clock_domains */
  /* interconnect (icnt cycles) */
  memiv_topology topology;
  uint32_t icnt_latency;        /* crossbar: cycles through the switch; fixed: base latency */
  uint32_t icnt_hop_latency;    /* fixed: cycles per hop on the 2-D node layout (models/icnt) */
  uint32_t flit_bytes;          /* -icnt_flit_size */
  /* memory partitions (L2 cycles) */
  uint32_t n_channels;          /* -gpgpu_n_mem */
  uint32_t n_sub;               /* -gpgpu_n_sub_partition_per_mchannel: L2 slices per channel */
  const char *addr_mapping;     /* -gpgpu_mem_addr_mapping (NULL or "": linear, 256-byte chunks) */
  dram_partition_indexing indexing; /* -gpgpu_memory_partition_indexing */
  const char *l2;               /* -gpgpu_cache:dl2 per slice (NULL or "none": no L2) */
  bool l2_texture_only;         /* -gpgpu_cache:dl2_texture_only */
  bool l2_ideal;                /* -l2_ideal: every access hits */
  uint32_t rop_latency;         /* -gpgpu_l2_rop_latency, converted to L2 cycles */
  uint32_t dram_latency;        /* -dram_latency, converted to L2 cycles */
  uint32_t atomic_ops;          /* -gpgpu_l2_atomic_ops_per_cycle (0: unlimited) */
  /* DRAM (DRAM command-clock cycles) */
  dram_timing timing;           /* -gpgpu_dram_timing_opt */
  uint32_t bus_width_bytes;     /* -gpgpu_dram_buswidth */
  uint32_t burst_length;        /* -gpgpu_dram_burst_length */
  uint32_t data_command_freq_ratio; /* -dram_data_command_freq_ratio */
  uint32_t chips_per_channel;   /* -gpgpu_n_mem_per_ctrlr */
  uint32_t bank_indexing;       /* -dram_bnk_indexing_policy: 1 = bank ^= row bits */
  uint32_t bank_group_indexing; /* -dram_bnkgrp_indexing_policy: 0 upper, 1 lower bank bits */
  /* system memory (zero-copy host memory) */
  mem_aperture_port aperture;   /* ctx/of NULL: every line is device memory */
  uint32_t sysmem_latency;      /* L2 cycles of the hub's link, there and back (models/hub's latency) */
  uint64_t sysmem_bytes_per_kcycle; /* the hub link's bandwidth: bytes per 1000 L2 cycles (0: unlimited) */
  struct stats *stats;          /* counters registered here when non-NULL (docs/memiv.md) */
} memiv_config;

/* Fills every field from a finalized gpu_config (stats and aperture left NULL). A malformed or
 * inconsistent option (the dl2 string, the DRAM timing, the clocks, the address map, a network
 * mode memiv cannot model) fails with a diag naming it. */
simtvp_status memiv_config_from_gpu(const struct gpu_config *g, memiv_config *cfg, simtvp_diag *diag);

typedef struct memiv memiv;

/* NULL with *diag naming the option on a bad configuration, or on host memory exhaustion. */
memiv *memiv_create(const memiv_config *cfg, simtvp_diag *diag);
void memiv_destroy(memiv *m);

/* simt_interval_mem_port.access: one request for `sector_mask` (0: the whole line) of the line at
 * line_addr (a write's bytes in byte_mask, NULL: every byte of its sectors; the L2 sees partial
 * writes as the CA partition's does), of mem_access_kind `kind`, leaving SM `sm` at core cycle
 * `at`; returns the core cycle its reply is back at the SM (> at). ctx is the memiv. Never fails
 * (an sm out of range uses cluster 0's port). */
uint64_t memiv_access(void *ctx, uint32_t sm, uint64_t line_addr, uint8_t sector_mask, const uint64_t *byte_mask,
                      uint8_t kind, bool is_write, uint8_t n_ops, uint64_t at);

/* Kernel end with -gpgpu_flush_l2_cache: every dirty line is written back (booked on its channel
 * at the latest DRAM cycle seen) and the slices emptied; returns the lines written back. */
uint32_t memiv_flush_l2(memiv *m);
/* Reset: the slices emptied without write-back, the DRAM banks closed, the ports forgotten. */
void memiv_reset(memiv *m);

/* Where an address goes (for tests and dumps): channel, global slice, bank, row, and the address
 * the slice indexes its sets with (the channel and slice bits removed, as models/mempart). */
typedef struct memiv_route {
  uint32_t channel, slice, bank, row;
  uint64_t index_addr;
} memiv_route;
void memiv_route_of(const memiv *m, uint64_t addr, memiv_route *out);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_MEMIV_H */
