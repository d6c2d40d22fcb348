/* dram_ca — cycle-accurate DRAM channel controller (GPGPU-Sim manual §2.5, "DRAM timing model").
 *
 * Each command-clock cycle: finished requests are handed back, refresh comes due, empty bank slots
 * are filled by the scheduler (dram_front), and at most one command is issued on the command bus —
 * or one row command (ACT/PRE) plus one column command (RD/WR) with the dual-bus (HBM) interface.
 * Column commands go first (they move data); among banks the search starts at a round-robin
 * priority that rotates every cycle (prio = cycle mod nbk, so it is the same whether cycles are
 * simulated or skipped). Timing constraints are kept as "earliest cycle" values rather than
 * per-cycle counters, which lets next_event() name the exact next cycle in which any command can
 * issue: cycles in between are skipped and only accounted for in the statistics.
 *
 * Constraints (command-clock cycles; tRTW, tWTR, tWTP, tRTP derived as in dram_derive):
 *   ACT  bank: tRP after PRE, tRC after ACT, tRFC after REF; channel: tRRD after any ACT
 *   PRE  bank: tRAS after ACT, tRTP after RD, tWTP after WR; bank group: tRTPL after RD
 *   RD   bank: tRCD after ACT; channel: tCCD after RD/WR, tWTR after WR; group: tCCDL
 *   WR   bank: tRCD after ACT; channel: tCCD after RD/WR, tRTW after RD; group: tCCDL
 *   data bus: a burst occupies it for burst_cycles starting CL (RD) or WL (WR) after the command.
 * A request of more than one atom (burst × bus width × chips) needs several column commands. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "../dram_front.h"

typedef struct ca_bank {
  bool open;
  uint32_t row;
  uint64_t act_ready; /* earliest ACT */
  uint64_t pre_ready; /* earliest PRE */
  uint64_t col_ready; /* earliest RD/WR (tRCD) */
  dram_entry *slot;   /* the request this bank is working on */
} ca_bank;

typedef struct ca_group {
  uint64_t ccdl_ready; /* earliest column command in this group */
  uint64_t rtpl_ready; /* earliest PRE in this group after a read */
} ca_group;

typedef struct dram_ca {
  dram_front f;
  ca_bank *banks;
  ca_group *groups;
  uint64_t t;          /* first cycle not yet simulated */
  uint64_t ccd_ready;  /* earliest column command (tCCD) */
  uint64_t rrd_ready;  /* earliest ACT (tRRD) */
  uint64_t wtr_ready;  /* earliest RD after a WR */
  uint64_t rtw_ready;  /* earliest WR after a RD */
  uint64_t bus_free;   /* first data-bus cycle not yet taken */
  uint64_t next_refresh;
  bool refresh_pending;
  uint8_t *cmd;   /* [nbk] scratch for cycle(): the command each bank needs */
  uint64_t *when; /* [nbk] and when it can issue */
} dram_ca;

/* ---- when can a command issue ----------------------------------------------------------------------- */

static uint64_t col_time(const dram_ca *c, const ca_bank *b, const dram_entry *e) {
  const dram_timing *tm = &c->f.cfg.timing;
  uint64_t lat = e->is_write ? tm->WL : tm->CL;
  uint64_t t = max_u64(b->col_ready, c->ccd_ready);
  if (tm->nbkgrp > 1) t = max_u64(t, c->groups[e->group].ccdl_ready);
  t = max_u64(t, e->is_write ? c->rtw_ready : c->wtr_ready);
  if (c->bus_free > lat) t = max_u64(t, c->bus_free - lat);
  return t;
}

static uint64_t pre_time(const dram_ca *c, uint32_t bank) {
  const ca_bank *b = &c->banks[bank];
  uint32_t g = c->f.cfg.bank_group_indexing == 1 ? bank % c->f.cfg.timing.nbkgrp
                                                 : bank / c->f.group_size;
  return max_u64(b->pre_ready, c->groups[g].rtpl_ready);
}

static uint64_t act_time(const dram_ca *c, const ca_bank *b) {
  return max_u64(b->act_ready, c->rrd_ready);
}

/* ---- issuing -------------------------------------------------------------------------------------- */

static void issue_column(dram_ca *c, uint32_t bank, uint64_t t) {
  dram_front *f = &c->f;
  const dram_timing *tm = &f->cfg.timing;
  ca_bank *b = &c->banks[bank];
  dram_entry *e = b->slot;
  uint64_t lat = e->is_write ? tm->WL : tm->CL;
  c->ccd_ready = t + tm->tCCD;
  c->groups[e->group].ccdl_ready = t + f->der.tCCDL;
  if (e->is_write) {
    c->wtr_ready = max_u64(c->wtr_ready, t + f->der.tWTR);
    b->pre_ready = max_u64(b->pre_ready, t + f->der.tWTP);
    *f->c.n_write += 1;
  } else {
    c->rtw_ready = max_u64(c->rtw_ready, t + f->der.tRTW);
    b->pre_ready = max_u64(b->pre_ready, t + f->der.tRTP);
    c->groups[e->group].rtpl_ready = max_u64(c->groups[e->group].rtpl_ready, t + tm->tRTPL);
    *f->c.n_rd += 1;
  }
  c->bus_free = t + lat + f->der.burst_cycles;
  *f->c.bus_busy += f->der.burst_cycles;
  if (--e->cols_left == 0) {
    b->slot = NULL;
    e->done_at = t + lat + f->der.burst_cycles;
    front_finish(f, e);
  }
}

static void issue_act(dram_ca *c, uint32_t bank, uint64_t t) {
  const dram_timing *tm = &c->f.cfg.timing;
  ca_bank *b = &c->banks[bank];
  b->open = true;
  b->row = b->slot->row;
  b->slot->row_hit = false;
  b->col_ready = t + tm->tRCD;
  b->pre_ready = max_u64(b->pre_ready, t + tm->tRAS);
  b->act_ready = max_u64(b->act_ready, t + tm->tRC);
  c->rrd_ready = t + tm->tRRD;
  *c->f.c.n_act += 1;
}

static void issue_pre(dram_ca *c, uint32_t bank, uint64_t t) {
  ca_bank *b = &c->banks[bank];
  b->open = false;
  b->act_ready = max_u64(b->act_ready, t + c->f.cfg.timing.tRP);
  *c->f.c.n_pre += 1;
}

/* All banks closed and past their precharge: the cycle a REF may issue. */
static uint64_t ref_time(const dram_ca *c) {
  uint64_t t = 0;
  for (uint32_t i = 0; i < c->f.nbk; i++) {
    if (c->banks[i].open) return DRAM_NEVER;
    t = max_u64(t, c->banks[i].act_ready);
  }
  return t;
}

static void issue_ref(dram_ca *c, uint64_t t) {
  const dram_config *cfg = &c->f.cfg;
  for (uint32_t i = 0; i < c->f.nbk; i++)
    c->banks[i].act_ready = max_u64(c->banks[i].act_ready, t + cfg->tRFC);
  c->refresh_pending = false;
  c->next_refresh += cfg->tREFI;
  *c->f.c.n_ref += 1;
}

/* The command bank `i` needs next and the cycle it can issue (DRAM_NEVER when none). */
enum { CMD_NONE, CMD_COL, CMD_ACT, CMD_PRE };
static int needed(const dram_ca *c, uint32_t i, uint64_t *when) {
  const ca_bank *b = &c->banks[i];
  if (c->refresh_pending) {
    if (!b->open) return CMD_NONE;
    *when = pre_time(c, i);
    return CMD_PRE;
  }
  const dram_entry *e = b->slot;
  if (!e) return CMD_NONE;
  if (b->open && b->row == e->row) {
    if (!front_return_room(&c->f)) return CMD_NONE; /* waits for a delivery, itself an event */
    *when = col_time(c, b, e);
    return CMD_COL;
  }
  if (b->open) {
    *when = pre_time(c, i);
    return CMD_PRE;
  }
  *when = act_time(c, b);
  return CMD_ACT;
}

/* Simulates cycle t (every earlier cycle has been simulated). */
static void cycle(dram_ca *c, uint64_t t) {
  dram_front *f = &c->f;
  const dram_config *cfg = &f->cfg;
  uint32_t nbk = f->nbk;
  front_account(f, t + 1); /* occupancy as it stands at the start of cycle t */
  front_deliver(f, t);
  if (cfg->tREFI && !c->refresh_pending && t >= c->next_refresh) c->refresh_pending = true;
  if (!c->refresh_pending && f->n_rd_queued + f->n_wr_queued) {
    for (uint32_t i = 0; i < nbk; i++) {
      ca_bank *b = &c->banks[i];
      if (!b->slot) {
        b->slot = front_pick(f, i, b->open, b->row);
        if (b->slot) b->slot->row_hit = b->open && b->row == b->slot->row;
      }
    }
  }
  uint32_t prio = (uint32_t)(t % nbk);
  bool col_done = false, row_done = false, any_row = false;
  /* What each bank needs, evaluated once: one column command can issue per cycle, and row
   * commands are re-evaluated below (a column command moves tRTP/tRTPL). */
  for (uint32_t i = 0; i < nbk; i++) {
    c->cmd[i] = (uint8_t)needed(c, i, &c->when[i]);
    any_row |= c->cmd[i] == CMD_PRE || c->cmd[i] == CMD_ACT;
  }
  /* Column commands first: they are what moves data. */
  for (uint32_t k = 0; k < nbk && !col_done; k++) {
    uint32_t i = (prio + k) % nbk;
    if (c->cmd[i] == CMD_COL && c->when[i] <= t) {
      issue_column(c, i, t);
      col_done = true;
    }
  }
  if ((!col_done || cfg->dual_bus) && (any_row || c->refresh_pending)) {
    for (uint32_t k = 0; k < nbk && !row_done; k++) {
      uint32_t i = (prio + k) % nbk;
      if (c->cmd[i] != CMD_PRE && c->cmd[i] != CMD_ACT) continue;
      uint64_t when;
      int cmd = needed(c, i, &when);
      if (cmd == CMD_PRE && when <= t) {
        issue_pre(c, i, t);
        row_done = true;
      } else if (cmd == CMD_ACT && when <= t) {
        issue_act(c, i, t);
        row_done = true;
      }
    }
    if (!row_done && c->refresh_pending && ref_time(c) <= t) {
      issue_ref(c, t);
      row_done = true;
    }
  }
  if (col_done || row_done) *f->c.n_nop -= 1;
}

/* ---- next_event ------------------------------------------------------------------------------------- */

/* The next cycle in which cycle() has something to do, refresh of an idle channel included. */
static uint64_t next_internal(const dram_ca *c) {
  const dram_front *f = &c->f;
  uint64_t t0 = c->t;
  uint64_t ev = front_next_delivery(f, t0);
  if (ev == t0) return t0;
  if (f->cfg.tREFI) {
    if (!c->refresh_pending) ev = min_u64(ev, max_u64(t0, c->next_refresh));
    else ev = min_u64(ev, max_u64(t0, ref_time(c)));
  }
  bool writes = front_serve_writes(f), queued = f->n_rd_queued + f->n_wr_queued != 0;
  for (uint32_t i = 0; i < f->nbk; i++) {
    const ca_bank *b = &c->banks[i];
    if (queued && !b->slot && !c->refresh_pending && front_has_candidate(f, i, writes)) return t0;
    uint64_t when;
    if (needed(c, i, &when) != CMD_NONE) ev = min_u64(ev, max_u64(t0, when));
    if (ev == t0) return t0;
  }
  return ev;
}

/* An idle channel is not woken for refresh: next_event says "never" and the refreshes it missed
 * are caught up when it is next advanced (a request arrives, or statistics are read). */
static uint64_t ca_next_event(const void *impl) {
  const dram_ca *c = impl;
  if (c->f.cfg.every_cycle) return c->f.outstanding ? c->t : DRAM_NEVER;
  return c->f.outstanding ? next_internal(c) : DRAM_NEVER;
}

/* Idle, every bank closed and ready: each refresh due in [next_refresh, now] would issue REF
 * exactly when due (tRFC < tREFI), so they are applied in closed form. Returns false when the
 * state does not allow it (the refresh is then simulated cycle by cycle). */
static bool skip_idle_refreshes(dram_ca *c, uint64_t now) {
  dram_front *f = &c->f;
  uint64_t tREFI = f->cfg.tREFI;
  if (!tREFI || f->outstanding || c->refresh_pending || c->next_refresh > now) return false;
  for (uint32_t i = 0; i < f->nbk; i++)
    if (c->banks[i].open || c->banks[i].act_ready > c->next_refresh) return false;
  uint64_t k = (now - c->next_refresh) / tREFI + 1;
  uint64_t last = c->next_refresh + (k - 1) * tREFI;
  front_account(f, last + 1);
  *f->c.n_ref += k;
  *f->c.n_nop -= k;
  for (uint32_t i = 0; i < f->nbk; i++)
    c->banks[i].act_ready = max_u64(c->banks[i].act_ready, last + f->cfg.tRFC);
  c->next_refresh = last + tREFI;
  c->t = last + 1;
  return true;
}

static void ca_advance(void *impl, uint64_t now) {
  dram_ca *c = impl;
  if (now == DRAM_NEVER) now = DRAM_NEVER - 1;
  while (c->t <= now) {
    if (c->f.cfg.every_cycle) {
      cycle(c, c->t);
      c->t++;
      continue;
    }
    if (skip_idle_refreshes(c, now)) continue;
    uint64_t t = next_internal(c);
    if (t > now) break;
    cycle(c, t);
    c->t = t + 1;
  }
  if (c->t <= now) c->t = now + 1;
  front_account(&c->f, c->t);
}

/* ---- ops -------------------------------------------------------------------------------------------- */

static simtvp_status ca_create(const dram_config *cfg, dram_ports ports, void **impl,
                               simtvp_diag *diag) {
  dram_ca *c = calloc(1, sizeof *c);
  if (!c) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  simtvp_status st = front_init(&c->f, cfg, ports, diag);
  if (st != SIMTVP_OK) {
    free(c);
    return st;
  }
  c->banks = calloc(cfg->timing.nbk, sizeof *c->banks);
  c->groups = calloc(cfg->timing.nbkgrp, sizeof *c->groups);
  c->cmd = calloc(cfg->timing.nbk, sizeof *c->cmd);
  c->when = calloc(cfg->timing.nbk, sizeof *c->when);
  if (!c->banks || !c->groups || !c->cmd || !c->when) {
    front_fini(&c->f);
    free(c->banks);
    free(c->groups);
    free(c->cmd);
    free(c->when);
    free(c);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  }
  c->next_refresh = cfg->tREFI;
  *impl = c;
  return SIMTVP_OK;
}

static void ca_destroy(void *impl) {
  dram_ca *c = impl;
  front_fini(&c->f);
  free(c->banks);
  free(c->groups);
  free(c->cmd);
  free(c->when);
  free(c);
}

static bool ca_can_accept(const void *impl, bool is_write) {
  return front_can_accept(&((const dram_ca *)impl)->f, is_write);
}

static bool ca_push(void *impl, mem_req *req, uint64_t now) {
  dram_ca *c = impl;
  if (now > c->t) ca_advance(c, now - 1); /* everything before `now` happens first */
  return front_enqueue(&c->f, req, max_u64(now, c->t));
}

static void ca_complete_ready(void *impl) { ((dram_ca *)impl)->f.complete_blocked = false; }

static void ca_get_stats(const void *impl, dram_stats *out) {
  front_get_stats(&((const dram_ca *)impl)->f, out);
}

const dram_ops dram_ca_ops = {
    .name = "ca",
    .create = ca_create,
    .destroy = ca_destroy,
    .can_accept = ca_can_accept,
    .push = ca_push,
    .advance = ca_advance,
    .next_event = ca_next_event,
    .complete_ready = ca_complete_ready,
    .get_stats = ca_get_stats,
};
