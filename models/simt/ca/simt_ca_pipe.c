/* simt_ca_pipe — the back end of the CA SIMT core: operand collector with a banked register
 * file, execution units with latency, initiation interval and result buses, writeback
 * (GPGPU-Sim 3.x manual §2.3.3 "Operand collector", §2.3.4 "ALU pipelines"; 4.x sub-cores).
 *
 * Timing of one instruction issued at cycle t with k register reads, no conflicts:
 *   t        issue: into the ID_OC pipeline register of its class
 *   t+1      a collector unit is allocated (input port), its reads queue at their banks
 *   t+2..    one read per bank and port per cycle; writebacks of this cycle go first
 *   r+1      (r: cycle of the last read, or t+1 without reads) dispatch to OC_EX (output port)
 *   r+2 = d  enters a free execution unit, which takes no other instruction until d + II,
 *            when a result bus is free at d + L
 *   d + L    writeback: destination registers written, scoreboard released; a dependent
 *            instruction issues in this same cycle.
 * So a dependent chain of single-source instructions costs L + 4 cycles per instruction.
 *
 * With -gpgpu_alu_forwarding (Volta and later forward results and keep recently read operands
 * near the units, so the compiler spaces dependent fixed-latency instructions by their latency
 * alone), an SP/INT/DP instruction entering its unit at d releases its scoreboard entries at
 * max(d, d + L - 4): a dependent instruction issued then reaches its unit, at the earliest 4
 * cycles later, no earlier than the result is written. A chain then costs L per instruction;
 * writeback itself (result buses, register-bank writes, the instruction's retirement) is as
 * before. SFU, tensor and memory results (variable latency on the hardware) are not forwarded. */
#include <stdlib.h>
#include <string.h>

#include "simt_ca_internal.h"

/* ---- pools and lists ------------------------------------------------------------------------- */

static bool grow_insns(ca_core *c) {
  uint32_t n = c->n_insns_cap ? c->n_insns_cap * 2 : 64;
  ca_insn *p = realloc(c->insns, (size_t)n * sizeof *p);
  if (!p) return false;
  for (uint32_t i = c->n_insns_cap; i < n; i++) p[i].next = i + 1 < n ? i + 1 : c->insn_free;
  c->insn_free = c->n_insns_cap;
  c->insns = p;
  c->n_insns_cap = n;
  return true;
}

uint32_t ca_insn_alloc(ca_core *c) {
  if (c->insn_free == CA_NONE && !grow_insns(c)) return CA_NONE;
  uint32_t id = c->insn_free;
  c->insn_free = c->insns[id].next;
  c->insns[id].prev = c->insns[id].next = CA_NONE;
  c->insns[id].step = CA_NONE;
  return id;
}

void ca_insn_release(ca_core *c, uint32_t id) {
  c->insns[id].next = c->insn_free;
  c->insn_free = id;
}

uint32_t ca_step_alloc(ca_core *c) {
  if (!c->n_step_free) {
    uint32_t n = c->n_steps_cap ? c->n_steps_cap * 2 : 8;
    func_step *s = realloc(c->steps, (size_t)n * sizeof *s);
    if (!s) return CA_NONE;
    c->steps = s;
    uint32_t *f = realloc(c->step_free, (size_t)n * sizeof *f);
    if (!f) return CA_NONE;
    c->step_free = f;
    for (uint32_t i = c->n_steps_cap; i < n; i++) c->step_free[c->n_step_free++] = i;
    c->n_steps_cap = n;
  }
  return c->step_free[--c->n_step_free];
}

void ca_step_release(ca_core *c, uint32_t id) { c->step_free[c->n_step_free++] = id; }

void ca_list_push(ca_core *c, ca_list *l, uint32_t id) {
  ca_insn *in = &c->insns[id];
  in->next = CA_NONE;
  in->prev = l->tail;
  if (l->tail != CA_NONE) c->insns[l->tail].next = id;
  else l->head = id;
  l->tail = id;
  l->n++;
}

void ca_list_remove(ca_core *c, ca_list *l, uint32_t id) {
  ca_insn *in = &c->insns[id];
  if (in->prev != CA_NONE) c->insns[in->prev].next = in->next;
  else l->head = in->next;
  if (in->next != CA_NONE) c->insns[in->next].prev = in->prev;
  else l->tail = in->prev;
  in->prev = in->next = CA_NONE;
  l->n--;
}

/* ---- items ----------------------------------------------------------------------------------- */

/* n items over `parts` partitions: each partition gets its share when there are enough, else
 * partitions share items round robin (partition p uses item p mod n). */
static bool items_init(ca_items *it, uint32_t n, uint32_t parts) {
  it->n = n;
  it->v = calloc(n ? n : 1, sizeof *it->v);
  if (!it->v) return false;
  simt_base_share(n, parts, it->lo, it->hi);
  return true;
}

uint32_t ca_items_free_slot(const ca_items *it, uint32_t part) {
  for (uint32_t i = it->lo[part]; i < it->hi[part]; i++)
    if (!it->v[i]) return i;
  return CA_NONE;
}

/* A port of the partition not yet used in cycle now. */
static uint32_t free_port(const ca_items *it, uint32_t part, uint64_t now) {
  for (uint32_t i = it->lo[part]; i < it->hi[part]; i++)
    if (it->v[i] != now + 1) return i;
  return CA_NONE;
}

/* An execution unit of the partition that accepts an instruction in cycle now. */
static uint32_t free_unit(const ca_items *it, uint32_t part, uint64_t now) {
  for (uint32_t i = it->lo[part]; i < it->hi[part]; i++)
    if (it->v[i] <= now) return i;
  return CA_NONE;
}

/* ---- register banks -------------------------------------------------------------------------- */

static uint32_t bank_of(const ca_core *c, const ca_insn *in, uint32_t reg) {
  uint32_t r = reg + (c->base.cfg.reg_bank_use_warp_id ? in->warp : 0u);
  return in->part * c->banks_per_part + (c->bank_mask != UINT32_MAX ? r & c->bank_mask : r % c->banks_per_part);
}

static uint32_t *bank_use(ca_core *c, uint32_t b, uint64_t now) {
  if (c->bank_cycle[b] != now + 1) {
    c->bank_cycle[b] = now + 1;
    c->bank_used[b] = 0;
  }
  return &c->bank_used[b];
}

/* ---- writeback ------------------------------------------------------------------------------- */

/* Issue-to-execute depth of an instruction without register-bank conflicts (the header). */
#define CA_FORWARD_DEPTH 4u
/* Heap entries with this bit release an instruction's scoreboard entries (forwarding) rather
 * than retire it. */
#define CA_EARLY_RELEASE 0x80000000u

static void release_scoreboard(ca_core *c, ca_insn *in) {
  uint64_t *sb = ca_sb_of(c, in->warp);
  for (uint32_t i = 0; i < in->n_dst; i++) {
    ca_sb_clear(sb, in->dst[i]);
    ca_sb_clear(sb + c->sb_words, in->dst[i]);
  }
}

static void release_early(ca_core *c, ca_insn *in) {
  release_scoreboard(c, in);
  in->released = true;
  ca_sched_touch(c, c->warps[in->warp].sched);
}

void ca_insn_retire(ca_core *c, uint32_t id, uint64_t now) {
  ca_insn *in = &c->insns[id];
  uint32_t warp = in->warp;
  for (uint32_t i = 0; i < in->n_dst; i++) /* writes have priority over reads this cycle */
    ++*bank_use(c, bank_of(c, in, in->dst[i]), now);
  if (!in->released) release_scoreboard(c, in);
  ca_warp *w = &c->warps[warp];
  ca_sched_touch(c, w->sched);
  w->inflight--;
  if (in->unit == SIMT_UNIT_MEM) w->inflight_mem--;
  ca_insn_release(c, id);
  ca_warp_progress(c, warp, now);
}

void ca_writeback_stage(ca_core *c, uint64_t now) {
  while (c->heap.n && c->heap.v[0].at <= now) {
    uint64_t at = c->heap.v[0].at;
    uint32_t id = simt_heap_pop(&c->heap);
    if (id & CA_EARLY_RELEASE) {
      release_early(c, &c->insns[id & ~CA_EARLY_RELEASE]);
      continue;
    }
    c->wb_ring[at & c->wb_mask]--;
    ca_insn_retire(c, id, now);
  }
  c->base.lif->advance(c->base.ldst, now);
}

/* ---- execute --------------------------------------------------------------------------------- */

void ca_execute_stage(ca_core *c, uint64_t now) {
  uint32_t id = c->oc_ex.head;
  while (id != CA_NONE) {
    ca_insn *in = &c->insns[id];
    uint32_t next = in->next;
    if (in->unit == SIMT_UNIT_MEM) {
      if (!c->base.lif->can_issue(c->base.ldst, now)) {
        if (c->ldst_stall_cycle != now + 1) {
          c->ldst_stall_cycle = now + 1;
          ++*c->base.ldst_stall;
        }
        id = next;
        continue;
      }
      uint32_t warp = in->warp, step = in->step;
      ca_list_remove(c, &c->oc_ex, id);
      c->oc_ex_slots[SIMT_UNIT_MEM].v[in->item] = 0;
      in->step = CA_NONE;
      simt_base_count_mem_insn(&c->base, &c->steps[step]);
      /* may complete at once (ports.complete → ca_insn_retire): in is not touched after */
      c->base.lif->issue(c->base.ldst, warp, &c->steps[step], id, now);
      ca_step_release(c, step);
    } else {
      uint32_t u = free_unit(&c->units[in->unit], in->part, now);
      uint64_t at = now + in->lat;
      if (u != CA_NONE && c->wb_ring[at & c->wb_mask] < c->base.cfg.result_buses) {
        ca_list_remove(c, &c->oc_ex, id);
        c->oc_ex_slots[in->unit].v[in->item] = 0;
        c->units[in->unit].v[u] = now + in->ii;
        c->wb_ring[at & c->wb_mask]++;
        if (!simt_heap_push(&c->heap, at, id)) { /* out of host memory: complete at once rather than lose it */
          c->wb_ring[at & c->wb_mask]--;
          ca_insn_retire(c, id, now);
        } else if (c->base.cfg.alu_forwarding && in->unit <= SIMT_UNIT_INT) {
          /* SP, DP, INT: forwarded (header); a failed push just releases at writeback */
          if (in->lat <= CA_FORWARD_DEPTH) release_early(c, in);
          else (void)simt_heap_push(&c->heap, now + in->lat - CA_FORWARD_DEPTH, id | CA_EARLY_RELEASE);
        }
      }
    }
    id = next;
  }
}

/* ---- operand collector ----------------------------------------------------------------------- */

/* The collector units, oldest first, in one pass: a unit whose operands were all read by the
 * end of the last cycle moves to OC_EX through an output port (dispatch); the others get their
 * register reads granted, each bank serving reg_ports accesses per cycle (writebacks of the
 * cycle took theirs first). The two use different resources and a unit does one or the other,
 * so one pass in list order grants exactly what a dispatch pass followed by a read pass does. */
static void oc_dispatch_and_read(ca_core *c, uint64_t now) {
  uint32_t ports = c->base.cfg.reg_ports;
  uint32_t id = c->cu.head;
  while (id != CA_NONE) {
    ca_insn *in = &c->insns[id];
    uint32_t next = in->next;
    if (!in->reads) {
      uint32_t port = free_port(&c->out_ports[in->set], in->part, now);
      uint32_t slot = port == CA_NONE ? CA_NONE : ca_items_free_slot(&c->oc_ex_slots[in->unit], in->part);
      if (slot != CA_NONE) {
        c->out_ports[in->set].v[port] = now + 1;
        c->cus[in->set].v[in->item] = 0;
        c->oc_ex_slots[in->unit].v[slot] = (uint64_t)id + 1;
        in->item = slot;
        ca_list_remove(c, &c->cu, id);
        ca_list_push(c, &c->oc_ex, id);
      }
    } else if (in->alloc_cycle < now) {
      uint32_t pending = in->reads;
      while (pending) {
        uint32_t i = (uint32_t)__builtin_ctz(pending);
        pending &= pending - 1;
        uint32_t b = bank_of(c, in, in->src[i]);
        uint32_t *used = bank_use(c, b, now);
        if (*used < ports) {
          ++*used;
          in->reads &= ~(1u << i);
        } else if (c->bank_conflict_cycle[b] != now + 1) {
          c->bank_conflict_cycle[b] = now + 1;
          ++*c->bank_conflicts;
        }
      }
    }
    id = next;
  }
}

/* Instructions in ID_OC get a free collector unit of their set through an input port. */
static void oc_allocate(ca_core *c, uint64_t now) {
  uint32_t id = c->id_oc.head;
  while (id != CA_NONE) {
    ca_insn *in = &c->insns[id];
    uint32_t next = in->next;
    uint32_t port = free_port(&c->in_ports[in->set], in->part, now);
    uint32_t cu = port == CA_NONE ? CA_NONE : ca_items_free_slot(&c->cus[in->set], in->part);
    if (cu != CA_NONE) {
      c->in_ports[in->set].v[port] = now + 1;
      c->id_oc_slots[in->unit].v[in->item] = 0;
      /* an ID_OC slot of the sub-core is free again: its schedulers may issue */
      if (c->base.n_parts > 1) ca_sched_touch(c, in->part);
      else
        for (uint32_t si = 0; si < c->base.cfg.n_schedulers; si++) ca_sched_touch(c, si);
      c->cus[in->set].v[cu] = (uint64_t)id + 1;
      in->item = cu;
      in->alloc_cycle = now;
      in->reads = in->n_rf >= 32 ? 0xffffffffu : (1u << in->n_rf) - 1u;
      ca_list_remove(c, &c->id_oc, id);
      ca_list_push(c, &c->cu, id);
    }
    id = next;
  }
}

void ca_oc_stage(ca_core *c, uint64_t now) {
  if (c->cu.n) oc_dispatch_and_read(c, now);
  if (c->id_oc.n) oc_allocate(c, now);
}

/* ---- setup ----------------------------------------------------------------------------------- */

simtvp_status ca_pipe_init(ca_core *c, simtvp_diag *diag) {
  const simt_core_config *k = &c->base.cfg;
  uint32_t P = c->base.n_parts;
  c->id_oc.head = c->id_oc.tail = CA_NONE;
  c->cu = c->oc_ex = c->id_oc;
  c->insn_free = CA_NONE;
  simtvp_status st = simt_base_init_pipeline(&c->base, diag);
  if (st != SIMTVP_OK) return st;
  bool ok = true;
  for (int u = 0; u < SIMT_UNIT_N; u++) {
    ok = ok && items_init(&c->id_oc_slots[u], k->id_oc_width[u], P);
    ok = ok && items_init(&c->oc_ex_slots[u], k->oc_ex_width[u], P);
    ok = ok && items_init(&c->units[u], u == SIMT_UNIT_MEM ? 1 : k->n_units[u], P);
  }
  for (int s = 0; s < SIMT_OC_N; s++) {
    ok = ok && items_init(&c->cus[s], k->oc_units[s], P);
    ok = ok && items_init(&c->in_ports[s], k->oc_in_ports[s], P);
    ok = ok && items_init(&c->out_ports[s], k->oc_out_ports[s], P);
  }
  uint32_t max_lat = 1;
  for (int r = 0; r < SIMT_LAT_N; r++)
    for (int op = 0; op < GPU_OP_N; op++)
      if (c->base.lat[r][op] > max_lat) max_lat = c->base.lat[r][op];
  uint32_t ring = 1;
  while (ring <= max_lat + 1) ring <<= 1;
  c->wb_ring = calloc(ring, sizeof *c->wb_ring);
  c->wb_mask = ring - 1;
  c->banks_per_part = k->reg_banks / P;
  c->bank_mask = (c->banks_per_part & (c->banks_per_part - 1)) == 0 ? c->banks_per_part - 1 : UINT32_MAX;
  c->n_banks = k->reg_banks;
  c->bank_cycle = calloc(c->n_banks, sizeof *c->bank_cycle);
  c->bank_used = calloc(c->n_banks, sizeof *c->bank_used);
  c->bank_conflict_cycle = calloc(c->n_banks, sizeof *c->bank_conflict_cycle);
  if (!ok || !c->wb_ring || !c->bank_cycle || !c->bank_used || !c->bank_conflict_cycle || !grow_insns(c))
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", k->sm);
  return SIMTVP_OK;
}

void ca_pipe_free(ca_core *c) {
  for (int u = 0; u < SIMT_UNIT_N; u++) {
    free(c->id_oc_slots[u].v);
    free(c->oc_ex_slots[u].v);
    free(c->units[u].v);
  }
  for (int s = 0; s < SIMT_OC_N; s++) {
    free(c->cus[s].v);
    free(c->in_ports[s].v);
    free(c->out_ports[s].v);
  }
  free(c->wb_ring);
  free(c->bank_cycle);
  free(c->bank_used);
  free(c->bank_conflict_cycle);
  free(c->insns);
  free(c->steps);
  free(c->step_free);
  free(c->heap.v);
}
