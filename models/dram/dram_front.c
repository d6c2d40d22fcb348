/* dram_front — scheduler queues, watermark mode, return path and statistics shared by the CA and
 * AT DRAM controllers (see dram_front.h). The scheduling policies follow the GPGPU-Sim manual §2.5:
 * FIFO serves requests in arrival order with head-of-line blocking; FR-FCFS serves, per bank, the
 * oldest request to the open row first and otherwise the oldest request. */
#include "dram_front.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

#define CHUNK_ENTRIES 64u

/* ---- entry pool ---------------------------------------------------------------------------------- */

static bool pool_grow(dram_front *f, uint32_t n) {
  entry_chunk *c = malloc(sizeof *c + (size_t)n * sizeof(dram_entry));
  if (!c) return false;
  c->next = f->chunks;
  f->chunks = c;
  for (uint32_t i = 0; i < n; i++) {
    c->entries[i].next = f->free;
    f->free = &c->entries[i];
  }
  return true;
}

static dram_entry *entry_alloc(dram_front *f) {
  if (!f->free && !pool_grow(f, CHUNK_ENTRIES)) return NULL;
  dram_entry *e = f->free;
  f->free = e->next;
  return e;
}

static void entry_free(dram_front *f, dram_entry *e) {
  e->next = f->free;
  f->free = e;
}

static void list_append(entry_list *l, dram_entry *e) {
  e->next = NULL;
  if (l->tail) l->tail->next = e;
  else l->head = e;
  l->tail = e;
}

static void fifo_append(entry_list *l, dram_entry *e) {
  e->next_fifo = NULL;
  if (l->tail) l->tail->next_fifo = e;
  else l->head = e;
  l->tail = e;
}

/* Unlinks e (whose predecessor in l is prev, NULL for the head). */
static void list_remove(entry_list *l, dram_entry *prev, dram_entry *e) {
  if (prev) prev->next = e->next;
  else l->head = e->next;
  if (l->tail == e) l->tail = prev;
  e->next = NULL;
}

/* ---- statistics ----------------------------------------------------------------------------------- */

static void register_counters(dram_front *f) {
  struct {
    uint64_t **slot;
    const char *name, *unit, *desc;
  } const k[] = {
      {&f->c.n_cmd, "n_cmd", "cycles", "DRAM command-clock cycles simulated"},
      {&f->c.n_nop, "n_nop", "cycles", "cycles with no command issued"},
      {&f->c.n_act, "n_act", "commands", "activate commands"},
      {&f->c.n_pre, "n_pre", "commands", "precharge commands"},
      {&f->c.n_ref, "n_ref_event", "commands", "refresh commands"},
      {&f->c.n_req, "n_req", "requests", "requests served"},
      {&f->c.n_rd, "n_rd", "commands", "read column commands"},
      {&f->c.n_write, "n_write", "commands", "write column commands"},
      {&f->c.bus_busy, "bwutil", "cycles", "data-bus busy cycles"},
      {&f->c.n_activity, "n_activity", "cycles", "cycles with a request in the controller"},
      {&f->c.row_hits, "row_buffer_hits", "requests", "requests served from an open row"},
      {&f->c.mrqq_max, "mrqq_max", "entries", "largest scheduler queue occupancy"},
      {&f->c.mrqq_sum, "mrqq_sum", "entry-cycles", "scheduler queue occupancy summed per cycle"},
      {&f->c.latency_sum, "latency_sum", "cycles", "request latency (arrival to last data) summed"},
  };
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
    if (f->cfg.stats) {
      char name[96];
      snprintf(name, sizeof name, "DRAM[%u].%s", f->cfg.channel, k[i].name);
      *k[i].slot = stats_counter(f->cfg.stats, name, k[i].unit, k[i].desc);
    }
    if (!*k[i].slot) *k[i].slot = &f->local[i];
  }
  if (f->cfg.stats) {
    struct {
      const char *name, *desc, *num, *den;
    } const r[] = {
        {"bw_util", "data-bus utilisation", "bwutil", "n_cmd"},
        {"dram_eff", "data-bus utilisation while active", "bwutil", "n_activity"},
        {"row_buffer_locality", "row-buffer hit rate", "row_buffer_hits", "n_req"},
        {"mrqq_avg", "average scheduler queue occupancy", "mrqq_sum", "n_cmd"},
        {"avg_latency", "average request latency (cycles)", "latency_sum", "n_req"},
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
      char name[96], num[96], den[96];
      snprintf(name, sizeof name, "DRAM[%u].%s", f->cfg.channel, r[i].name);
      snprintf(num, sizeof num, "DRAM[%u].%s", f->cfg.channel, r[i].num);
      snprintf(den, sizeof den, "DRAM[%u].%s", f->cfg.channel, r[i].den);
      stats_ratio(f->cfg.stats, name, r[i].desc, num, den);
    }
  }
}

void front_account(dram_front *f, uint64_t upto) {
  if (upto <= f->acc_t) return;
  uint64_t span = upto - f->acc_t;
  *f->c.n_cmd += span;
  /* Every cycle counts as a NOP until a command is known to have issued in it: the CA variant
   * takes its cycle back at once, the AT variant books commands ahead as cmd_debt. */
  uint64_t take = f->cmd_debt < span ? f->cmd_debt : span;
  *f->c.n_nop += span - take;
  f->cmd_debt -= take;
  *f->c.mrqq_sum += (uint64_t)(f->n_rd_queued + f->n_wr_queued) * span;
  if (f->outstanding) *f->c.n_activity += span;
  f->acc_t = upto;
}

void front_get_stats(const dram_front *f, dram_stats *o) {
  memset(o, 0, sizeof *o);
  o->n_cmd = *f->c.n_cmd;
  o->n_nop = *f->c.n_nop;
  o->n_act = *f->c.n_act;
  o->n_pre = *f->c.n_pre;
  o->n_ref = *f->c.n_ref;
  o->n_req = *f->c.n_req;
  o->n_rd = *f->c.n_rd;
  o->n_write = *f->c.n_write;
  o->bus_busy = *f->c.bus_busy;
  o->n_activity = *f->c.n_activity;
  o->row_hits = *f->c.row_hits;
  o->mrqq_max = *f->c.mrqq_max;
  o->mrqq_sum = *f->c.mrqq_sum;
  o->latency_sum = *f->c.latency_sum;
  o->bw_util = o->n_cmd ? (double)o->bus_busy / (double)o->n_cmd : 0.0;
  o->dram_eff = o->n_activity ? (double)o->bus_busy / (double)o->n_activity : 0.0;
  o->row_hit_rate = o->n_req ? (double)o->row_hits / (double)o->n_req : 0.0;
  o->mrqq_avg = o->n_cmd ? (double)o->mrqq_sum / (double)o->n_cmd : 0.0;
}

/* ---- lifetime ------------------------------------------------------------------------------------- */

simtvp_status front_init(dram_front *f, const dram_config *cfg, dram_ports ports,
                         simtvp_diag *diag) {
  memset(f, 0, sizeof *f);
  f->cfg = *cfg;
  f->ports = ports;
  dram_derive(cfg, &f->der);
  f->nbk = cfg->timing.nbk;
  f->group_size = cfg->timing.nbk / cfg->timing.nbkgrp;
  f->bank_mask = (uint32_t)((1ull << dram_addrmap_bank_bits(cfg->addrmap)) - 1);
  f->rd = calloc(f->nbk, sizeof *f->rd);
  f->wr = calloc(f->nbk, sizeof *f->wr);
  f->queued = calloc((f->nbk + 63) / 64, sizeof *f->queued);
  uint32_t warm = cfg->sched_queue_size + cfg->write_queue_size + cfg->return_queue_size + f->nbk;
  if (!f->rd || !f->wr || !f->queued || !pool_grow(f, warm < CHUNK_ENTRIES ? CHUNK_ENTRIES : warm)) {
    front_fini(f);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "DRAM[%u]: out of host memory", cfg->channel);
  }
  register_counters(f);
  return SIMTVP_OK;
}

void front_fini(dram_front *f) {
  free(f->rd);
  free(f->wr);
  free(f->queued);
  while (f->chunks) {
    entry_chunk *c = f->chunks;
    f->chunks = c->next;
    free(c);
  }
  f->rd = f->wr = NULL;
  f->queued = NULL;
}

/* ---- admission ------------------------------------------------------------------------------------ */

bool front_can_accept(const dram_front *f, bool is_write) {
  if (f->cfg.separate_write_queue && is_write)
    return !f->cfg.write_queue_size || f->n_wr_queued < f->cfg.write_queue_size;
  uint32_t queued = f->cfg.separate_write_queue ? f->n_rd_queued : f->n_rd_queued + f->n_wr_queued;
  return !f->cfg.sched_queue_size || queued < f->cfg.sched_queue_size;
}

bool front_enqueue(dram_front *f, mem_req *req, uint64_t arrival) {
  if (!front_can_accept(f, req->is_write)) return false;
  dram_entry *e = entry_alloc(f);
  if (!e) return false;
  dram_addr a;
  dram_addrmap_decode(f->cfg.addrmap, req->addr, &a);
  uint32_t bank = a.bank;
  if (f->cfg.bank_indexing == 1) bank ^= a.row & f->bank_mask; /* spreads row-strided traffic */
  bank %= f->nbk;
  e->req = req;
  e->seq = f->seq++;
  e->arrival = arrival;
  e->done_at = 0;
  e->bank = bank;
  e->group = f->cfg.bank_group_indexing == 1 ? bank % f->cfg.timing.nbkgrp : bank / f->group_size;
  e->row = a.row;
  uint32_t size = req->size ? req->size : 1;
  uint32_t cols = (size + f->der.atom_bytes - 1) / f->der.atom_bytes;
  e->cols_left = (uint16_t)(cols ? cols : 1);
  e->is_write = req->is_write;
  e->row_hit = true;
  bool to_wr = f->cfg.separate_write_queue && req->is_write;
  list_append(to_wr ? &f->wr[bank] : &f->rd[bank], e);
  f->queued[bank / 64] |= 1ull << (bank % 64);
  if (f->cfg.scheduler == DRAM_SCHED_FIFO) fifo_append(to_wr ? &f->fifo_wr : &f->fifo_rd, e);
  if (req->is_write) f->n_wr_queued++;
  else f->n_rd_queued++;
  f->outstanding++;
  uint64_t occ = f->n_rd_queued + f->n_wr_queued;
  if (occ > *f->c.mrqq_max) *f->c.mrqq_max = occ;
  return true;
}

/* ---- scheduling ----------------------------------------------------------------------------------- */

static bool mode_after_update(const dram_front *f) {
  bool wm = f->write_mode;
  if (wm && f->n_wr_queued <= f->cfg.write_low_watermark) wm = false;
  if (!wm && f->n_wr_queued >= f->cfg.write_high_watermark) wm = true;
  return wm;
}

bool front_serve_writes(const dram_front *f) {
  if (!f->cfg.separate_write_queue) return false;
  bool wm = mode_after_update(f);
  if (wm) return f->n_wr_queued > 0 || f->n_rd_queued == 0;
  /* Below the high watermark writes wait for reads, but never forever: with no read queued the
   * controller drains writes (otherwise a kernel's last writes would never reach DRAM). */
  return f->n_rd_queued == 0 && f->n_wr_queued > 0;
}

void front_update_mode(dram_front *f) {
  if (f->cfg.separate_write_queue) f->write_mode = mode_after_update(f);
  f->mode_stale = false;
}

static entry_list *serve_list(dram_front *f, uint32_t bank, entry_list **fifo, bool writes) {
  bool wr = f->cfg.separate_write_queue && writes;
  *fifo = wr ? &f->fifo_wr : &f->fifo_rd;
  return wr ? &f->wr[bank] : &f->rd[bank];
}

bool front_has_candidate(const dram_front *f, uint32_t bank, bool writes) {
  bool wr = f->cfg.separate_write_queue && writes;
  if (f->cfg.scheduler == DRAM_SCHED_FIFO) {
    const dram_entry *h = wr ? f->fifo_wr.head : f->fifo_rd.head;
    return h && h->bank == bank;
  }
  return (wr ? f->wr[bank].head : f->rd[bank].head) != NULL;
}

dram_entry *front_pick(dram_front *f, uint32_t bank, bool open, uint32_t open_row) {
  front_update_mode(f);
  entry_list *fifo;
  entry_list *l = serve_list(f, bank, &fifo, front_serve_writes(f));
  dram_entry *e = NULL, *prev = NULL;
  if (f->cfg.scheduler == DRAM_SCHED_FIFO) {
    dram_entry *h = fifo->head;
    if (!h || h->bank != bank) return NULL;
    fifo->head = h->next_fifo;
    if (fifo->tail == h) fifo->tail = NULL;
    e = l->head; /* the oldest of its kind is also the oldest of its bank */
    assert(e == h);
  } else {
    if (!l->head) return NULL;
    if (open) {
      for (dram_entry *p = NULL, *x = l->head; x; p = x, x = x->next)
        if (x->row == open_row) {
          e = x;
          prev = p;
          break;
        }
    }
    if (!e) e = l->head;
  }
  list_remove(l, prev, e);
  if (!f->rd[bank].head && !f->wr[bank].head) f->queued[bank / 64] &= ~(1ull << (bank % 64));
  if (e->is_write) f->n_wr_queued--;
  else f->n_rd_queued--;
  f->mode_stale = f->cfg.separate_write_queue;
  return e;
}

/* ---- return path ---------------------------------------------------------------------------------- */

bool front_return_room(const dram_front *f) {
  return !f->cfg.return_queue_size || f->n_inflight + f->n_returnq < f->cfg.return_queue_size;
}

void front_finish(dram_front *f, dram_entry *e) {
  *f->c.n_req += 1;
  *f->c.latency_sum += e->done_at - e->arrival;
  if (e->row_hit) *f->c.row_hits += 1;
  /* In-flight requests finish in almost issue order: insert from the front, usually O(1). */
  dram_entry *prev = NULL, *x = f->inflight.head;
  while (x && x->done_at <= e->done_at) {
    prev = x;
    x = x->next;
  }
  e->next = x;
  if (prev) prev->next = e;
  else f->inflight.head = e;
  if (!x) f->inflight.tail = e;
  f->n_inflight++;
}

void front_deliver(dram_front *f, uint64_t now) {
  while (f->inflight.head && f->inflight.head->done_at <= now) {
    dram_entry *e = f->inflight.head;
    list_remove(&f->inflight, NULL, e);
    f->n_inflight--;
    list_append(&f->returnq, e);
    f->n_returnq++;
  }
  while (f->returnq.head && !f->complete_blocked) {
    dram_entry *e = f->returnq.head;
    if (f->ports.complete && !f->ports.complete(f->ports.ctx, e->req, now)) {
      f->complete_blocked = true;
      break;
    }
    list_remove(&f->returnq, NULL, e);
    f->n_returnq--;
    f->outstanding--;
    entry_free(f, e);
  }
}

uint64_t front_next_delivery(const dram_front *f, uint64_t from) {
  if (f->returnq.head && !f->complete_blocked) return from;
  if (f->inflight.head) return max_u64(from, f->inflight.head->done_at);
  return DRAM_NEVER;
}
