/* dram — one GPU DRAM channel controller: request queues, a scheduler (FIFO or FR-FCFS), banks and
 * bank groups with open-page row buffers, GDDR/HBM command timing and a data bus.
 *
 * Follows the GPGPU-Sim 3.x manual §2.5 ("DRAM") and its 4.x options (-gpgpu_dram_timing_opt,
 * -gpgpu_dram_scheduler, -dram_dual_bus_interface, -dram_seperate_write_queue_enable, …). Two
 * fidelity variants share one ops table (DESIGN.md §2) and are chosen per channel by name:
 *   "ca"  cycle-accurate: every ACT/PRE/RD/WR/REF command is scheduled on the command bus cycle by
 *         cycle, but cycles in which nothing can happen are skipped (next_event is exact);
 *   "at"  approximately-timed: each request's service time is computed directly from the per-bank
 *         open-row state, the channel's bus occupancy and its queue; no per-cycle work.
 * The caller holds a `dram *` and never learns which variant it has.
 *
 * Time is integer cycles of the DRAM command clock (GPGPU-Sim's DRAM clock domain). Timing values
 * are in command-clock cycles, as in gpgpusim.config files. Requests carry addresses, not data
 * (DESIGN.md §3); the controller decodes bank and row through a dram_addrmap (dram_addrdec.h). */
#ifndef SIMTVP_DRAM_H
#define SIMTVP_DRAM_H

#include <stdbool.h>
#include <stdint.h>

#include "dram_addrdec.h"
#include "mem_req.h"
#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

struct stats;

/* ---- timing ------------------------------------------------------------------------------------ */

/* The fields of -gpgpu_dram_timing_opt, in command-clock cycles (nbk, nbkgrp are counts). */
typedef struct dram_timing {
  uint32_t nbk;    /* banks per channel */
  uint32_t tCCD;   /* column command to column command */
  uint32_t tRRD;   /* activate to activate, different banks */
  uint32_t tRCD;   /* activate to column command */
  uint32_t tRAS;   /* activate to precharge */
  uint32_t tRP;    /* precharge to activate */
  uint32_t tRC;    /* activate to activate, same bank */
  uint32_t CL;     /* read command to first data beat (CAS latency) */
  uint32_t WL;     /* write command to first data beat */
  uint32_t tCDLR;  /* last write data to read command (feeds tWTR) */
  uint32_t tWR;    /* last write data to precharge (write recovery, feeds tWTP) */
  uint32_t nbkgrp; /* bank groups (1 = none) */
  uint32_t tCCDL;  /* column to column within one bank group (0 = tCCD) */
  uint32_t tRTPL;  /* read to precharge within one bank group */
} dram_timing;

/* Parses -gpgpu_dram_timing_opt in either form:
 *   ordered  "nbk:tCCD:tRRD:tRCD:tRAS:tRP:tRC:CL:WL:tCDLR:tWR[:nbkgrp:tCCDL:tRTPL]"
 *   named    "nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:nbkgrp=1:CCDL=0:RTPL=0"
 * Whitespace (newlines included) and surrounding quotes are ignored; named keys may carry a leading
 * 't' (tRCD=12). Omitted bank-group fields default to nbkgrp=1, tCCDL=0, tRTPL=0. Malformed, missing,
 * duplicate or unknown fields fail with SIMTVP_ERR_PARSE and a diag naming the option and field. */
simtvp_status dram_timing_parse(const char *text, dram_timing *out, simtvp_diag *diag);

/* ---- configuration ----------------------------------------------------------------------------- */

typedef enum dram_scheduler_kind {
  DRAM_SCHED_FIFO = 0,  /* -gpgpu_dram_scheduler 0: in order, head of line blocks */
  DRAM_SCHED_FRFCFS = 1 /* -gpgpu_dram_scheduler 1: per bank, open-row hits first, then oldest */
} dram_scheduler_kind;

typedef struct dram_config {
  const char *model;       /* "ca" or "at" (see dram_model_for_channel for per-channel choice) */
  uint32_t channel;        /* channel index: names the statistics ("DRAM[3].n_act") */
  dram_timing timing;      /* -gpgpu_dram_timing_opt */
  uint32_t bus_width_bytes;         /* -gpgpu_dram_buswidth: bytes per chip per data beat */
  uint32_t burst_length;            /* -gpgpu_dram_burst_length: data beats per column command */
  uint32_t data_command_freq_ratio; /* -dram_data_command_freq_ratio: beats per command cycle */
  uint32_t chips_per_channel;       /* -gpgpu_n_mem_per_ctrlr */
  bool dual_bus;                    /* -dram_dual_bus_interface: separate row and column buses */
  uint32_t bank_indexing;           /* -dram_bnk_indexing_policy: 0 linear, 1 bank ^= row bits */
  uint32_t bank_group_indexing;     /* -dram_bnkgrp_indexing_policy: 0 upper, 1 lower bank bits */
  dram_scheduler_kind scheduler;    /* -gpgpu_dram_scheduler */
  uint32_t sched_queue_size;  /* -gpgpu_frfcfs_dram_sched_queue_size: entries, 0 = unlimited */
  uint32_t return_queue_size; /* -gpgpu_dram_return_queue_size: entries, 0 = unlimited */
  bool separate_write_queue;  /* -dram_seperate_write_queue_enable */
  uint32_t write_queue_size;  /* -dram_write_queue_size <size>:<high>:<low>, entries, 0 = unlimited */
  uint32_t write_high_watermark; /* switch to draining writes at this many queued writes */
  uint32_t write_low_watermark;  /* switch back to reads at this many */
  uint32_t tREFI;             /* refresh interval in command cycles; 0 = no refresh */
  uint32_t tRFC;              /* refresh cycle time (all banks blocked) */
  bool every_cycle;           /* CA only: simulate every cycle instead of skipping to the next
                               * event (a reference that shows skipping changes nothing) */
  const dram_addrmap *addrmap; /* decodes bank and row; required, must outlive the controller */
  struct stats *stats;         /* counters are registered here when non-NULL */
} dram_config;

/* A config with GPGPU-Sim's GTX480-style GDDR5 defaults (named timing string of the manual,
 * 4-byte chips ×2, BL 8, ratio 4, FR-FCFS 16 entries), model "ca", no refresh; addrmap unset. */
void dram_config_default(dram_config *cfg);

/* Derived quantities every variant uses (command-clock cycles unless noted). */
typedef struct dram_derived {
  uint32_t burst_cycles; /* data-bus cycles per column command: ceil(BL / ratio) */
  uint32_t atom_bytes;   /* bytes per column command: BL × bus width × chips */
  uint32_t tRTW;         /* read to write:   CL + burst + 2 - WL (2 = bus turnaround) */
  uint32_t tWTR;         /* write to read:   WL + burst + tCDLR */
  uint32_t tWTP;         /* write to precharge: WL + burst + tWR */
  uint32_t tRTP;         /* read to precharge: burst */
  uint32_t tCCDL;        /* same-group column spacing: max(tCCD, tCCDL) when nbkgrp > 1 */
} dram_derived;
void dram_derive(const dram_config *cfg, dram_derived *out);

/* Checks a config for consistency; SIMTVP_ERR_CONFIG with the option named on failure. */
simtvp_status dram_config_check(const dram_config *cfg, simtvp_diag *diag);

/* ---- ports ------------------------------------------------------------------------------------- */

/* Where finished requests go (reads with their data returned, writes written). The receiver may
 * refuse (return false) when it is full; the controller keeps the request in its return queue and
 * stops retrying until dram_complete_ready() says there is room again. */
typedef struct dram_ports {
  void *ctx;
  bool (*complete)(void *ctx, mem_req *req, uint64_t now);
} dram_ports;

/* ---- statistics -------------------------------------------------------------------------------- */

/* Per-channel statistics under GPGPU-Sim's names. Cycle counts are command-clock cycles. */
typedef struct dram_stats {
  uint64_t n_cmd;      /* cycles simulated */
  uint64_t n_nop;      /* cycles in which no command was issued */
  uint64_t n_act, n_pre, n_ref;
  uint64_t n_req;      /* requests completed */
  uint64_t n_rd;       /* read column commands */
  uint64_t n_write;    /* write column commands */
  uint64_t bus_busy;   /* data-bus cycles (GPGPU-Sim's bwutil numerator) */
  uint64_t n_activity; /* cycles with any request in the controller */
  uint64_t row_hits;   /* requests served without an activate of their own */
  uint64_t mrqq_max;   /* largest scheduler-queue occupancy seen */
  uint64_t mrqq_sum;   /* sum over cycles of queue occupancy (avg = mrqq_sum / n_cmd) */
  uint64_t latency_sum; /* sum over requests of completion - arrival */
  double bw_util;      /* bus_busy / n_cmd */
  double dram_eff;     /* bus_busy / n_activity */
  double row_hit_rate; /* row_hits / n_req */
  double mrqq_avg;     /* mrqq_sum / n_cmd */
} dram_stats;

/* ---- the controller ---------------------------------------------------------------------------- */

typedef struct dram dram;

/* Fidelity variants implement this table; dram_* below dispatch through it. */
typedef struct dram_ops {
  const char *name;
  simtvp_status (*create)(const dram_config *cfg, dram_ports ports, void **impl,
                          simtvp_diag *diag);
  void (*destroy)(void *impl);
  bool (*can_accept)(const void *impl, bool is_write);
  bool (*push)(void *impl, mem_req *req, uint64_t now);
  void (*advance)(void *impl, uint64_t now);
  uint64_t (*next_event)(const void *impl);
  void (*complete_ready)(void *impl);
  void (*get_stats)(const void *impl, dram_stats *out);
} dram_ops;

extern const dram_ops dram_ca_ops;
extern const dram_ops dram_at_ops;

/* The ops table of a variant by name ("ca", "at"); NULL if unknown. */
const dram_ops *dram_find_ops(const char *model);

/* Picks the model of one channel from a -dram_model value: a default model optionally followed by
 * per-channel overrides, e.g. "at", "ca", "at;0-3=ca;7=ca". */
simtvp_status dram_model_for_channel(const char *spec, uint32_t channel, const char **model,
                                     simtvp_diag *diag);

/* Creates the variant named by cfg->model. On failure *out is NULL and diag says why. */
simtvp_status dram_create(const dram_config *cfg, dram_ports ports, dram **out, simtvp_diag *diag);
void dram_destroy(dram *d);
const char *dram_model_name(const dram *d);

/* True when a read (or write) would be accepted now. */
bool dram_can_accept(const dram *d, bool is_write);
/* Hands a request to the controller at cycle `now` (>= every earlier now). Returns false, keeping
 * nothing, when the queue for its kind is full. The request is returned through ports.complete. */
bool dram_push(dram *d, mem_req *req, uint64_t now);
/* Does everything due up to and including cycle `now`. */
void dram_advance(dram *d, uint64_t now);
/* The next cycle at which something can happen (UINT64_MAX when idle or blocked). */
uint64_t dram_next_event(const dram *d);
/* The receiver behind ports.complete has room again after refusing. */
void dram_complete_ready(dram *d);
/* Statistics up to the last cycle advanced. */
void dram_get_stats(const dram *d, dram_stats *out);

#define DRAM_NEVER UINT64_MAX

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_DRAM_H */
