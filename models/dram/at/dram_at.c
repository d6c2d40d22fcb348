/* dram_at — approximately-timed DRAM channel controller.
 *
 * Same queues, scheduler and statistics as the CA controller (dram_front), but no per-cycle work:
 * a bank acts only at two instants per request.
 *   pick    when the bank is free, the scheduler chooses its next request; its row commands are
 *           computed at once from the bank's open-row state — a hit needs none, a closed bank an
 *           ACT, a conflict PRE + ACT — placed at the first cycles that satisfy tRAS/tRTP/tWTP,
 *           tRP, tRC and tRRD (against every ACT already booked) and have a free command-bus slot;
 *           the column step is booked at ACT + tRCD.
 *   column  at that cycle the channel constraints (tCCD/tCCDL, read/write turnaround, data-bus
 *           occupancy, a free command slot) are checked; if they push it later the step moves, else
 *           all the request's column commands are booked back to back and its completion time
 *           (last command + CL or WL + burst) is known.
 * Column steps run in time order across banks, so the data bus is granted in the order the CA
 * controller would grant it; row commands are booked ahead on a calendar of command-bus slots
 * (one bus, or separate row and column buses for HBM). What it leaves out against CA: the per-cycle
 * round-robin among banks ready in the same cycle, and that a booked ACT/PRE cannot be overtaken.
 * Times are DRAM command-clock cycles. */
#include <stdlib.h>
#include <string.h>

#include "../dram_front.h"

/* ---- command-bus calendar ------------------------------------------------------------------------- */

#define CAL_SLOTS 4096u /* horizon in cycles; bookings are never that far ahead */
#define CAL_WORDS (CAL_SLOTS / 64u)

typedef struct cmd_calendar {
  uint64_t bits[CAL_WORDS]; /* bit (c mod CAL_SLOTS) set: a command is booked in cycle c */
  uint64_t base;            /* slots below base are forgotten */
} cmd_calendar;

/* Forgets slots below t (they are in the past), clearing whole words at a time. */
static void cal_forget(cmd_calendar *cal, uint64_t t) {
  if (t <= cal->base) return;
  if (t - cal->base >= CAL_SLOTS) {
    memset(cal->bits, 0, sizeof cal->bits);
    cal->base = t;
    return;
  }
  for (uint64_t c = cal->base; c < t;) {
    uint32_t bit = (uint32_t)(c % CAL_SLOTS), w = bit / 64, off = bit % 64;
    uint64_t n = 64 - off;
    if (n > t - c) n = t - c;
    uint64_t mask = n == 64 ? ~0ull : (((1ull << n) - 1) << off);
    cal->bits[w] &= ~mask;
    c += n;
  }
  cal->base = t;
}

static bool cal_busy(const cmd_calendar *cal, uint64_t c) {
  if (c < cal->base || c - cal->base >= CAL_SLOTS) return false;
  uint32_t bit = (uint32_t)(c % CAL_SLOTS);
  return (cal->bits[bit / 64] >> (bit % 64)) & 1u;
}

static uint64_t cal_first_free(const cmd_calendar *cal, uint64_t c) {
  while (cal_busy(cal, c)) c++;
  return c;
}

static void cal_book(cmd_calendar *cal, uint64_t c) {
  if (c < cal->base || c - cal->base >= CAL_SLOTS) return;
  uint32_t bit = (uint32_t)(c % CAL_SLOTS);
  cal->bits[bit / 64] |= 1ull << (bit % 64);
}

/* ---- state ---------------------------------------------------------------------------------------- */

#define MAX_ACTS 64u /* ACTs booked ahead (bounded by banks; kept sorted) */

typedef struct at_bank {
  bool open;
  uint32_t row;
  uint64_t act_ready, pre_ready, col_ready;
  dram_entry *cur;     /* request whose column step is booked */
  uint64_t cur_at;     /* cycle of that column step */
  uint64_t free_at;    /* earliest cycle of the next pick */
  bool waiting_room;   /* column step waits for room in the return queue */
} at_bank;

typedef struct at_group {
  uint64_t ccdl_ready, rtpl_ready;
} at_group;

typedef struct dram_at {
  dram_front f;
  at_bank *banks;
  at_group *groups;
  uint64_t t; /* first cycle not yet simulated */
  uint64_t ccd_ready, wtr_ready, rtw_ready, bus_free;
  uint64_t acts[MAX_ACTS]; /* booked ACT cycles, ascending */
  uint32_t n_acts;
  cmd_calendar row_cal, col_cal; /* the same calendar unless dual_bus */
  uint64_t next_refresh;
  uint64_t *busy; /* [ceil(nbk / 64)]: bit per bank whose column step is booked (cur set) */
} dram_at;

/* The first bank in [from, hi) that has work — a booked column step or a queued request — or hi.
 * Banks without either are skipped: nothing can happen at them (pick would find nothing). */
static uint32_t next_active(const dram_at *a, uint32_t from, uint32_t hi) {
  while (from < hi) {
    uint32_t w = from / 64;
    uint64_t bits = (a->busy[w] | a->f.queued[w]) >> (from % 64);
    if (bits) {
      uint32_t i = from + (uint32_t)__builtin_ctzll(bits);
      return i < hi ? i : hi;
    }
    from = (w + 1) * 64;
  }
  return hi;
}

static cmd_calendar *row_cal(dram_at *a) { return &a->row_cal; }
static cmd_calendar *col_cal(dram_at *a) { return a->f.cfg.dual_bus ? &a->col_cal : &a->row_cal; }

static uint32_t group_of(const dram_at *a, uint32_t bank) {
  return a->f.cfg.bank_group_indexing == 1 ? bank % a->f.cfg.timing.nbkgrp : bank / a->f.group_size;
}

/* Books a PRE at the first free row-command slot at or after `want`. */
static uint64_t book_pre(dram_at *a, uint64_t want) {
  uint64_t c = cal_first_free(row_cal(a), want);
  cal_book(row_cal(a), c);
  a->f.cmd_debt++;
  *a->f.c.n_pre += 1;
  return c;
}

/* Books an ACT at the first cycle >= want that is tRRD away from every booked ACT and has a free
 * row-command slot. */
static uint64_t book_act(dram_at *a, uint64_t want) {
  uint64_t rrd = a->f.cfg.timing.tRRD;
  uint64_t now = a->t;
  uint32_t keep = 0; /* forget ACTs that can no longer constrain anything */
  for (uint32_t i = 0; i < a->n_acts; i++)
    if (a->acts[i] + rrd > now) a->acts[keep++] = a->acts[i];
  a->n_acts = keep;
  uint64_t c = want;
  for (;;) {
    uint64_t before = c;
    for (uint32_t i = 0; i < a->n_acts; i++)
      if (c + rrd > a->acts[i] && c < a->acts[i] + rrd) c = a->acts[i] + rrd;
    c = cal_first_free(row_cal(a), c);
    if (c == before) break;
  }
  cal_book(row_cal(a), c);
  if (a->n_acts < MAX_ACTS) {
    uint32_t i = a->n_acts++;
    while (i > 0 && a->acts[i - 1] > c) {
      a->acts[i] = a->acts[i - 1];
      i--;
    }
    a->acts[i] = c;
  }
  a->f.cmd_debt++;
  *a->f.c.n_act += 1;
  return c;
}

/* Opens `row` in bank b with an ACT booked at or after want. */
static void open_row(dram_at *a, at_bank *b, uint32_t row, uint64_t want) {
  const dram_timing *tm = &a->f.cfg.timing;
  uint64_t act = book_act(a, max_u64(want, b->act_ready));
  b->open = true;
  b->row = row;
  b->col_ready = act + tm->tRCD;
  b->pre_ready = max_u64(b->pre_ready, act + tm->tRAS);
  b->act_ready = max_u64(b->act_ready, act + tm->tRC);
}

/* ---- the two steps -------------------------------------------------------------------------------- */

static void pick(dram_at *a, uint32_t i, uint64_t t) {
  at_bank *b = &a->banks[i];
  dram_entry *e = front_pick(&a->f, i, b->open, b->row);
  if (!e) return;
  if (b->open && b->row == e->row) {
    e->row_hit = true;
  } else {
    e->row_hit = false;
    uint64_t act_min = t;
    if (b->open) {
      uint64_t pre = book_pre(a, max_u64(t, max_u64(b->pre_ready, a->groups[group_of(a, i)].rtpl_ready)));
      act_min = pre + a->f.cfg.timing.tRP;
    }
    open_row(a, b, e->row, act_min);
  }
  b->cur = e;
  b->cur_at = max_u64(t, b->col_ready);
  a->busy[i / 64] |= 1ull << (i % 64);
}

/* Returns true when the column commands were booked, false when the step moved later. */
static bool column(dram_at *a, uint32_t i, uint64_t t) {
  dram_front *f = &a->f;
  const dram_timing *tm = &f->cfg.timing;
  at_bank *b = &a->banks[i];
  dram_entry *e = b->cur;
  if (!front_return_room(f)) {
    b->waiting_room = true;
    return false;
  }
  b->waiting_room = false;
  uint64_t lat = e->is_write ? tm->WL : tm->CL;
  uint64_t c = max_u64(t, max_u64(b->col_ready, a->ccd_ready));
  if (tm->nbkgrp > 1) c = max_u64(c, a->groups[e->group].ccdl_ready);
  c = max_u64(c, e->is_write ? a->rtw_ready : a->wtr_ready);
  if (a->bus_free > lat) c = max_u64(c, a->bus_free - lat);
  c = cal_first_free(col_cal(a), c);
  if (c > t) {
    b->cur_at = c;
    return false;
  }
  /* One column command now; a multi-atom request comes back for the next one no earlier than
   * tCCDL later, so other banks' columns can interleave as they do in CA. */
  cal_book(col_cal(a), c);
  a->ccd_ready = c + tm->tCCD;
  a->groups[e->group].ccdl_ready = c + f->der.tCCDL;
  if (e->is_write) {
    a->wtr_ready = max_u64(a->wtr_ready, c + f->der.tWTR);
    b->pre_ready = max_u64(b->pre_ready, c + f->der.tWTP);
    *f->c.n_write += 1;
  } else {
    a->rtw_ready = max_u64(a->rtw_ready, c + f->der.tRTW);
    b->pre_ready = max_u64(b->pre_ready, c + f->der.tRTP);
    a->groups[e->group].rtpl_ready = max_u64(a->groups[e->group].rtpl_ready, c + tm->tRTPL);
    *f->c.n_rd += 1;
  }
  a->bus_free = c + lat + f->der.burst_cycles;
  *f->c.bus_busy += f->der.burst_cycles;
  f->cmd_debt += 1;
  if (--e->cols_left) {
    b->cur_at = c + max_u64(f->der.tCCDL, 1);
    return true;
  }
  e->done_at = c + lat + f->der.burst_cycles;
  front_finish(f, e);
  b->cur = NULL;
  a->busy[i / 64] &= ~(1ull << (i % 64));
  b->free_at = c + 1;
  return true;
}

/* All-bank refresh at the first cycle every bank can be closed; requests already booked re-open
 * their row after tRFC. */
static void refresh(dram_at *a, uint64_t t) {
  const dram_config *cfg = &a->f.cfg;
  uint64_t ref = t;
  for (uint32_t i = 0; i < a->f.nbk; i++) {
    at_bank *b = &a->banks[i];
    uint64_t ready = b->act_ready;
    if (b->open) {
      ready = max_u64(ready, max_u64(b->pre_ready, t) + cfg->timing.tRP);
      a->f.cmd_debt++;
      *a->f.c.n_pre += 1;
    }
    ref = max_u64(ref, ready);
  }
  a->f.cmd_debt++;
  *a->f.c.n_ref += 1;
  for (uint32_t i = 0; i < a->f.nbk; i++) {
    at_bank *b = &a->banks[i];
    b->open = false;
    b->act_ready = max_u64(b->act_ready, ref + cfg->tRFC);
    if (b->cur) {
      b->cur->row_hit = false;
      open_row(a, b, b->cur->row, b->act_ready);
      b->cur_at = max_u64(b->cur_at, b->col_ready);
    }
  }
  a->next_refresh += cfg->tREFI;
}

/* ---- event loop ----------------------------------------------------------------------------------- */

static uint64_t next_internal(const void *impl) {
  const dram_at *a = impl;
  const dram_front *f = &a->f;
  uint64_t t0 = a->t;
  uint64_t ev = front_next_delivery(f, t0);
  if (ev == t0) return t0;
  if (f->cfg.tREFI) ev = min_u64(ev, max_u64(t0, a->next_refresh));
  bool room = front_return_room(f), writes = front_serve_writes(f);
  for (uint32_t i = next_active(a, 0, f->nbk); i < f->nbk; i = next_active(a, i + 1, f->nbk)) {
    const at_bank *b = &a->banks[i];
    if (b->cur) {
      if (!b->waiting_room || room) ev = min_u64(ev, max_u64(t0, b->waiting_room ? t0 : b->cur_at));
    } else if (front_has_candidate(f, i, writes)) {
      ev = min_u64(ev, max_u64(t0, b->free_at));
    }
    if (ev == t0) return t0;
  }
  return ev;
}

/* Banks [lo, hi) in order at cycle t: a free bank picks its next request, a booked column step
 * that is due issues. Banks with no work are passed over; at each of them the CA-equivalent loop
 * would only have updated the write-queue watermark mode (front_pick finds nothing), which
 * matters only when a request left the queues since the last update (front_update_mode is
 * idempotent while the queues only grow), so that update is made once per run of idle banks. */
static void visit(dram_at *a, uint32_t lo, uint32_t hi, uint64_t t) {
  for (uint32_t i = lo;;) {
    uint32_t j = next_active(a, i, hi);
    if (j > i && a->f.mode_stale) front_update_mode(&a->f);
    if (j >= hi) return;
    at_bank *b = &a->banks[j];
    if (!b->cur && b->free_at <= t) pick(a, j, t);
    if (b->cur && b->cur_at <= t) column(a, j, t);
    i = j + 1;
  }
}

static void step(dram_at *a, uint64_t t) {
  dram_front *f = &a->f;
  front_account(f, t + 1);
  cal_forget(&a->row_cal, t);
  cal_forget(&a->col_cal, t);
  front_deliver(f, t);
  if (f->cfg.tREFI && t >= a->next_refresh) refresh(a, t);
  uint32_t nbk = f->nbk, prio = (uint32_t)(t % nbk);
  visit(a, prio, nbk, t); /* round-robin from bank t mod nbk */
  visit(a, 0, prio, t);
}

/* Idle channels are not woken for refresh (see dram_ca.c): missed refreshes are caught up. */
static uint64_t at_next_event(const void *impl) {
  const dram_at *a = impl;
  return a->f.outstanding ? next_internal(a) : DRAM_NEVER;
}

/* Idle with every bank closed and ready: refreshes due up to now apply in closed form. */
static bool skip_idle_refreshes(dram_at *a, uint64_t now) {
  dram_front *f = &a->f;
  uint64_t tREFI = f->cfg.tREFI;
  if (!tREFI || f->outstanding || a->next_refresh > now) return false;
  for (uint32_t i = 0; i < f->nbk; i++)
    if (a->banks[i].open || a->banks[i].act_ready > a->next_refresh) return false;
  uint64_t k = (now - a->next_refresh) / tREFI + 1;
  uint64_t last = a->next_refresh + (k - 1) * tREFI;
  front_account(f, last + 1);
  *f->c.n_ref += k;
  *f->c.n_nop -= k;
  for (uint32_t i = 0; i < f->nbk; i++)
    a->banks[i].act_ready = max_u64(a->banks[i].act_ready, last + f->cfg.tRFC);
  a->next_refresh = last + tREFI;
  a->t = last + 1;
  return true;
}

static void at_advance(void *impl, uint64_t now) {
  dram_at *a = impl;
  if (now == DRAM_NEVER) now = DRAM_NEVER - 1;
  while (a->t <= now) {
    if (skip_idle_refreshes(a, now)) continue;
    uint64_t t = next_internal(a);
    if (t > now) break;
    step(a, t);
    a->t = t + 1;
  }
  if (a->t <= now) a->t = now + 1;
  front_account(&a->f, a->t);
}

/* ---- ops ------------------------------------------------------------------------------------------ */

static simtvp_status at_create(const dram_config *cfg, dram_ports ports, void **impl,
                               simtvp_diag *diag) {
  dram_at *a = calloc(1, sizeof *a);
  if (!a) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  simtvp_status st = front_init(&a->f, cfg, ports, diag);
  if (st != SIMTVP_OK) {
    free(a);
    return st;
  }
  a->banks = calloc(cfg->timing.nbk, sizeof *a->banks);
  a->groups = calloc(cfg->timing.nbkgrp, sizeof *a->groups);
  a->busy = calloc((cfg->timing.nbk + 63) / 64, sizeof *a->busy);
  if (!a->banks || !a->groups || !a->busy) {
    front_fini(&a->f);
    free(a->banks);
    free(a->groups);
    free(a->busy);
    free(a);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  }
  a->next_refresh = cfg->tREFI;
  *impl = a;
  return SIMTVP_OK;
}

static void at_destroy(void *impl) {
  dram_at *a = impl;
  front_fini(&a->f);
  free(a->banks);
  free(a->groups);
  free(a->busy);
  free(a);
}

static bool at_can_accept(const void *impl, bool is_write) {
  return front_can_accept(&((const dram_at *)impl)->f, is_write);
}

static bool at_push(void *impl, mem_req *req, uint64_t now) {
  dram_at *a = impl;
  if (now > a->t) at_advance(a, now - 1);
  return front_enqueue(&a->f, req, max_u64(now, a->t));
}

static void at_complete_ready(void *impl) { ((dram_at *)impl)->f.complete_blocked = false; }

static void at_get_stats(const void *impl, dram_stats *out) {
  front_get_stats(&((const dram_at *)impl)->f, out);
}

const dram_ops dram_at_ops = {
    .name = "at",
    .create = at_create,
    .destroy = at_destroy,
    .can_accept = at_can_accept,
    .push = at_push,
    .advance = at_advance,
    .next_event = at_next_event,
    .complete_ready = at_complete_ready,
    .get_stats = at_get_stats,
};
