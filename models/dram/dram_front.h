/* dram_front — private to models/dram: the request side every fidelity variant shares.
 *
 * Holds the scheduler queues (per bank, read and write lists in arrival order, plus the global
 * arrival order the FIFO scheduler needs), the write-queue watermark mode, the pool of queue
 * entries (no allocation per request once warm), the in-flight and return queues that hand
 * finished requests to ports.complete, and the statistics with their lazy per-cycle accounting:
 * occupancy-weighted sums are added per span of cycles when the state changes, never per idle cycle.
 * The ca/ and at/ variants own the banks and the timing; they call front_pick() to let the
 * scheduler choose the next request of a bank. */
#ifndef SIMTVP_DRAM_FRONT_H
#define SIMTVP_DRAM_FRONT_H

#include <stdbool.h>
#include <stdint.h>

#include "dram.h"

typedef struct dram_entry {
  mem_req *req;
  uint64_t seq;        /* arrival order, ties broken by push order */
  uint64_t arrival;    /* cycle it entered the controller */
  uint64_t done_at;    /* cycle its last data beat leaves the bus */
  uint32_t bank, group, row;
  uint16_t cols_left;  /* column commands still to issue */
  bool is_write;
  bool row_hit;        /* served without an activate of its own */
  struct dram_entry *next;      /* bank list / in-flight / return queue / free list */
  struct dram_entry *next_fifo; /* global arrival order (FIFO scheduler) */
} dram_entry;

typedef struct entry_list {
  dram_entry *head, *tail;
} entry_list;

typedef struct entry_chunk {
  struct entry_chunk *next;
  dram_entry entries[];
} entry_chunk;

/* Pointers into the stats sink (or into `local` when there is no sink). */
typedef struct front_counters {
  uint64_t *n_cmd, *n_nop, *n_act, *n_pre, *n_ref, *n_req, *n_rd, *n_write, *bus_busy,
      *n_activity, *row_hits, *mrqq_max, *mrqq_sum, *latency_sum;
} front_counters;

typedef struct dram_front {
  dram_config cfg;
  dram_derived der;
  dram_ports ports;
  uint32_t nbk;
  uint32_t bank_mask; /* 2^(bank bits of the map) - 1, for xor bank indexing */
  uint32_t group_size;

  entry_list *rd; /* [nbk]: reads, or every request when writes share the queue */
  entry_list *wr; /* [nbk]: writes when separate_write_queue */
  entry_list fifo_rd, fifo_wr; /* global arrival order, linked through next_fifo */
  uint64_t *queued;   /* [ceil(nbk / 64)]: bit per bank that holds a queued request */
  uint32_t n_rd_queued, n_wr_queued;
  bool write_mode;
  bool mode_stale;    /* a request left the queues since the watermark mode was last updated */
  uint64_t seq;

  entry_list inflight; /* sorted by done_at */
  entry_list returnq;
  uint32_t n_inflight, n_returnq;
  bool complete_blocked;
  uint32_t outstanding; /* accepted and not yet delivered */

  dram_entry *free;
  entry_chunk *chunks;

  uint64_t acc_t; /* statistics accounted for cycles < acc_t */
  uint64_t cmd_debt; /* commands issued for cycles not yet accounted (taken off n_nop later) */
  front_counters c;
  uint64_t local[16];
} dram_front;

simtvp_status front_init(dram_front *f, const dram_config *cfg, dram_ports ports, simtvp_diag *diag);
void front_fini(dram_front *f);

/* Admission: does the queue for this kind have room? */
bool front_can_accept(const dram_front *f, bool is_write);
/* Decodes and queues a request arriving at `arrival`; false when it has no room or no memory. */
bool front_enqueue(dram_front *f, mem_req *req, uint64_t arrival);

/* Adds span statistics for cycles [acc_t, upto) with the current state. */
void front_account(dram_front *f, uint64_t upto);

/* Watermark mode as it would be after an update; front_update_mode applies it. */
bool front_serve_writes(const dram_front *f);
void front_update_mode(dram_front *f);
/* Does the bank hold a queued request (read or write)? */
static inline bool front_bank_queued(const dram_front *f, uint32_t bank) {
  return (f->queued[bank / 64] >> (bank % 64)) & 1u;
}
/* Would front_pick(bank) return a request now? `writes` is front_serve_writes(f), computed once
 * by the caller for all banks. */
bool front_has_candidate(const dram_front *f, uint32_t bank, bool writes);
/* Removes and returns the scheduler's choice for a bank (FR-FCFS: the oldest request to the open
 * row, else the oldest; FIFO: the global head if it belongs to this bank), or NULL. */
dram_entry *front_pick(dram_front *f, uint32_t bank, bool open, uint32_t open_row);

/* Is there room in the return path for one more request to finish? */
bool front_return_room(const dram_front *f);
/* A request finished at e->done_at: queue it for delivery. */
void front_finish(dram_front *f, dram_entry *e);
/* Delivers everything due by `now` (moves in-flight to the return queue, calls the port). */
void front_deliver(dram_front *f, uint64_t now);
/* Earliest cycle >= from at which front_deliver has something to do, or DRAM_NEVER. */
uint64_t front_next_delivery(const dram_front *f, uint64_t from);

void front_get_stats(const dram_front *f, dram_stats *out);

static inline uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

#endif /* SIMTVP_DRAM_FRONT_H */
