/* debug — the debugger's state and the functional engine's hooks: which launches and CTAs run,
 * the breakpoint/watchpoint table resolved per launch into a per-instruction table, and the stop
 * decision made before and after every warp instruction (see debug.h, docs/debugger.md).
 *
 * Cost while attached: per warp instruction a launch lookup (the last one is remembered), a peek,
 * one byte of the launch's per-instruction table, and only when something asks for it the
 * pending CTA/thread breakpoints and the watched words (read before and compared after memory
 * instructions). Detached, every hook returns at once. */
#include "debug_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dbg_out(dbg *d, const char *fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof buf) {
    /* long text (a listing line with a long name): format again into a buffer that fits */
    char *big = malloc((size_t)n + 1);
    if (!big) {
      d->p.write(d->p.ctx, buf, sizeof buf - 1);
      return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    d->p.write(d->p.ctx, big, (size_t)n);
    free(big);
    return;
  }
  d->p.write(d->p.ctx, buf, (size_t)n);
}

/* ---- matching ---------------------------------------------------------------------------------- */

bool dbg_file_matches(const char *path, const char *want) {
  if (!path || !want || !*want) return false;
  size_t lp = strlen(path), lw = strlen(want);
  if (lp == lw) return strcmp(path, want) == 0;
  return lp > lw && path[lp - lw - 1] == '/' && strcmp(path + lp - lw, want) == 0;
}

/* Copies the demangled name without its parameter list and leading return type, then optionally
 * without template arguments and namespaces, and compares each form with want. */
static bool pretty_matches(const char *pretty, const char *want) {
  char base[DBG_NAME];
  size_t n = strlen(pretty);
  if (n >= sizeof base) return false;
  memcpy(base, pretty, n + 1);
  /* the parameter list: the last top-level '(' */
  int depth = 0;
  char *paren = NULL;
  for (char *p = base; *p; p++) {
    if (*p == '<') depth++;
    else if (*p == '>') depth--;
    else if (*p == '(' && depth == 0 && !paren) paren = p;
  }
  if (paren) *paren = '\0';
  char *name = base;
  /* a template's return type comes first ("void sgemm<16>"): the last space at depth 0 */
  depth = 0;
  for (char *p = base; *p; p++) {
    if (*p == '<') depth++;
    else if (*p == '>') depth--;
    else if (*p == ' ' && depth == 0) name = p + 1;
  }
  if (strcmp(name, want) == 0) return true;
  char *lt = strchr(name, '<');
  if (lt) *lt = '\0';
  if (strcmp(name, want) == 0) return true;
  const char *last = name;
  for (const char *p = name; (p = strstr(p, "::")) != NULL; p += 2) last = p + 2;
  return strcmp(last, want) == 0;
}

bool dbg_kernel_matches(const dbg_launch *L, const char *want, uint64_t launch_no) {
  if (launch_no) return L->uid == launch_no;
  if (!want || !*want) return true;
  const char *mangled = L->m->functions[L->lp.kernel].name;
  if (mangled && strcmp(mangled, want) == 0) return true;
  if (L->pretty && (strcmp(L->pretty, want) == 0 || pretty_matches(L->pretty, want))) return true;
  return false;
}

static bool point_kernel_ok(const dbg_point *p, const dbg_launch *L) {
  return dbg_kernel_matches(L, p->kernel, p->launch_no);
}

/* pc starts a stretch of instructions of source line `line` of a file matching `file`. */
static bool source_stretch_start(const ptx_module *m, uint32_t pc, const char *file, uint32_t line) {
  const ptx_insn *in = &m->insns[pc];
  if (in->loc_line != line || !in->loc_file || in->loc_file >= m->n_files) return false;
  if (!dbg_file_matches(m->files[in->loc_file], file)) return false;
  if (pc == m->functions[in->function].first_insn) return true;
  const ptx_insn *prev = &m->insns[pc - 1];
  return prev->loc_line != line || prev->loc_file != in->loc_file;
}

static bool point_at_pc(const dbg_point *p, const dbg_launch *L, uint32_t pc) {
  const ptx_module *m = L->m;
  if (p->kind == DBG_BP_PTX)
    return m->insns[pc].ptx_line == p->line && (!p->file[0] || dbg_file_matches(m->source_name, p->file));
  if (p->kind == DBG_BP_SOURCE) return source_stretch_start(m, pc, p->file, p->line);
  if (p->kind == DBG_BP_PC) return pc == p->pc;
  return false;
}

static void resolve(dbg *d, dbg_launch *L) {
  if (!L->at_pc) return;
  memset(L->at_pc, 0, L->m->n_insns ? L->m->n_insns : 1);
  for (uint32_t i = 0; i < d->n_pts; i++) {
    const dbg_point *p = &d->pts[i];
    if (!p->enabled || (p->kind != DBG_BP_PTX && p->kind != DBG_BP_SOURCE && p->kind != DBG_BP_PC) ||
        !point_kernel_ok(p, L))
      continue;
    for (uint32_t pc = 0; pc < L->m->n_insns; pc++)
      if (point_at_pc(p, L, pc)) L->at_pc[pc] = 1;
  }
}

uint32_t dbg_point_resolved(const dbg *d, const dbg_point *p, uint32_t *launches) {
  uint32_t n = 0;
  *launches = 0;
  for (uint32_t i = 0; i < d->n_launches; i++) {
    const dbg_launch *L = d->launches[i];
    if (!point_kernel_ok(p, L)) continue;
    uint32_t k = 0;
    for (uint32_t pc = 0; pc < L->m->n_insns; pc++) k += point_at_pc(p, L, pc);
    if (k) (*launches)++;
    n += k;
  }
  return n;
}

void dbg_resolve_all(dbg *d) {
  d->n_watch = 0;
  for (uint32_t i = 0; i < d->n_pts; i++)
    if (d->pts[i].enabled && d->pts[i].kind == DBG_WATCH) d->n_watch++;
  for (uint32_t i = 0; i < d->n_launches; i++) resolve(d, d->launches[i]);
}

uint32_t dbg_warp_pc(const dbg *d, const func_warp *w) {
  func_warp_info wi;
  func_warp_get_info(w, &wi);
  return wi.state == FUNC_WARP_FAULTED && w == d->fault_warp ? d->fault_pc : wi.pc;
}

dbg_point *dbg_point_by_id(dbg *d, uint32_t id) {
  for (uint32_t i = 0; i < d->n_pts; i++)
    if (d->pts[i].id == id) return &d->pts[i];
  return NULL;
}

/* ---- memory ------------------------------------------------------------------------------------ */

devmem *dbg_devmem(const dbg *d) { return d->engine ? func_devmem(d->engine) : NULL; }

bool dbg_watch_read(const dbg *d, const dbg_point *p, uint8_t out[8]) {
  devmem *mem = dbg_devmem(d);
  memset(out, 0, 8);
  return mem && devmem_read(mem, p->addr, out, p->bytes, NULL) == SIMTVP_OK;
}

static void watch_refresh(dbg *d) {
  for (uint32_t i = 0; i < d->n_pts; i++) {
    dbg_point *p = &d->pts[i];
    if (p->enabled && p->kind == DBG_WATCH) p->old_valid = dbg_watch_read(d, p, p->old);
  }
}

/* ---- launches and CTAs --------------------------------------------------------------------------- */

dbg_launch *dbg_launch_of(dbg *d, const func_launch *l) {
  for (uint32_t i = d->n_launches; i-- > 0;)
    if (d->launches[i]->l == l) {
      if (i + 1 != d->n_launches) { /* keep the one asked for last at the end: found at once */
        dbg_launch *t = d->launches[i];
        d->launches[i] = d->launches[d->n_launches - 1];
        d->launches[d->n_launches - 1] = t;
      }
      return d->launches[d->n_launches - 1];
    }
  return NULL;
}

dbg_cta *dbg_cta_of(dbg *d, const func_cta *c) {
  for (uint32_t i = 0; i < d->n_ctas; i++)
    if (d->ctas[i].c == c) return &d->ctas[i];
  return NULL;
}

static void launch_begin(dbg *d, func_launch *l) {
  dbg_launch *L = calloc(1, sizeof *L);
  if (!L) return;
  L->l = l;
  L->m = func_program_module(func_launch_program(l));
  func_launch_get_params(l, &L->lp);
  d->launches_seen++;
  L->uid = L->lp.launch_uid ? L->lp.launch_uid : d->launches_seen;
  L->at_pc = calloc(L->m->n_insns ? L->m->n_insns : 1, 1);
  const char *name = L->m->functions[L->lp.kernel].name;
  char buf[DBG_NAME * 2];
  if (d->p.demangle && name && d->p.demangle(d->p.ctx, name, buf, sizeof buf)) {
    size_t n = strlen(buf) + 1;
    if ((L->pretty = malloc(n)) != NULL) memcpy(L->pretty, buf, n);
  }
  if (d->n_launches == d->cap_launches) {
    uint32_t cap = d->cap_launches ? d->cap_launches * 2 : 8;
    dbg_launch **n = realloc(d->launches, cap * sizeof *n);
    if (!n) {
      free(L->at_pc);
      free(L->pretty);
      free(L);
      return;
    }
    d->launches = n;
    d->cap_launches = cap;
  }
  d->launches[d->n_launches++] = L;
  d->engine = func_launch_engine(l);
  resolve(d, L);
  for (uint32_t i = 0; i < d->n_pts; i++) {
    const dbg_point *p = &d->pts[i];
    if (p->enabled && p->kind == DBG_BP_KERNEL && point_kernel_ok(p, L)) {
      L->kernel_stop = p->id;
      break;
    }
  }
  if (d->n_watch) watch_refresh(d); /* copies since the last kernel changed memory */
}

static void launch_end(dbg *d, func_launch *l) {
  for (uint32_t i = 0; i < d->n_launches; i++) {
    dbg_launch *L = d->launches[i];
    if (L->l != l) continue;
    if (d->focus_L == L) {
      d->focus = NULL;
      d->focus_L = NULL;
    }
    for (uint32_t k = 0; k < d->n_ctas;) /* CTAs are finished first; be safe anyway */
      if (d->ctas[k].L == L) d->ctas[k] = d->ctas[--d->n_ctas];
      else k++;
    free(L->at_pc);
    free(L->pretty);
    free(L);
    d->launches[i] = d->launches[--d->n_launches];
    return;
  }
}

static bool coords_eq(const uint32_t a[3], const uint32_t b[3]) { return a[0] == b[0] && a[1] == b[1] && a[2] == b[2]; }

static void cta_begin(dbg *d, func_cta *c) {
  dbg_launch *L = dbg_launch_of(d, func_cta_launch(c));
  if (!L) return;
  if (d->n_ctas == d->cap_ctas) {
    uint32_t cap = d->cap_ctas ? d->cap_ctas * 2 : 64;
    dbg_cta *n = realloc(d->ctas, cap * sizeof *n);
    if (!n) return;
    d->ctas = n;
    d->cap_ctas = cap;
  }
  dbg_cta *r = &d->ctas[d->n_ctas++];
  memset(r, 0, sizeof *r);
  r->c = c;
  r->L = L;
  uint32_t ctaid[3];
  func_cta_place(c, ctaid, NULL, NULL);
  for (uint32_t i = 0; i < d->n_pts && !r->pending; i++) {
    const dbg_point *p = &d->pts[i];
    if (!p->enabled || (p->kind != DBG_BP_CTA && p->kind != DBG_BP_THREAD) || !point_kernel_ok(p, L)) continue;
    if (p->has_cta && !coords_eq(p->cta, ctaid)) continue;
    if (p->kind == DBG_BP_THREAD) {
      const uint32_t *b = L->lp.block;
      if (p->thread[0] >= b[0] || p->thread[1] >= b[1] || p->thread[2] >= b[2]) continue;
      uint32_t lin = p->thread[0] + p->thread[1] * b[0] + p->thread[2] * b[0] * b[1];
      r->pending_thread = true;
      r->warp = lin / 32;
      r->lane = lin % 32;
    }
    r->pending = p->id;
    d->n_pending++;
  }
}

static void cta_end(dbg *d, func_cta *c) {
  for (uint32_t i = 0; i < d->n_ctas; i++) {
    if (d->ctas[i].c != c) continue;
    if (d->ctas[i].pending) d->n_pending--;
    d->ctas[i] = d->ctas[--d->n_ctas];
    break;
  }
  if (d->focus && func_warp_cta(d->focus) == c) d->focus = NULL;
  if (d->step_warp && func_warp_cta(d->step_warp) == c) d->step_warp = NULL;
  if (d->fault_warp && func_warp_cta(d->fault_warp) == c) d->fault_warp = NULL;
}

/* ---- the stop decision ----------------------------------------------------------------------------- */

static void stop_at(dbg *d, func_warp *w, dbg_launch *L, uint32_t lane, bool after) {
  d->focus = w;
  d->focus_L = L;
  d->focus_lane = lane;
  d->focus_after = after;
  d->step_warp = NULL;
  d->list_m = NULL;
  dbg_show_stop(d);
  dbg_repl(d);
}

static uint32_t first_lane(uint32_t mask) { return mask ? (uint32_t)__builtin_ctz(mask) : 0; }

/* A line breakpoint at pk->pc whose filters w satisfies: its id, and the lane it names. */
static uint32_t line_breakpoint(dbg *d, const dbg_launch *L, func_warp *w, const func_peek *pk, uint32_t *lane) {
  uint32_t ctaid[3];
  func_cta_place(func_warp_cta(w), ctaid, NULL, NULL);
  func_warp_info wi;
  func_warp_get_info(w, &wi);
  for (uint32_t i = 0; i < d->n_pts; i++) {
    dbg_point *p = &d->pts[i];
    if (!p->enabled || !point_at_pc(p, L, pk->pc) || !point_kernel_ok(p, L)) continue;
    if (p->has_cta && !coords_eq(p->cta, ctaid)) continue;
    uint32_t ln = first_lane(pk->active);
    if (p->has_thread) {
      const uint32_t *b = L->lp.block;
      if (p->thread[0] >= b[0] || p->thread[1] >= b[1] || p->thread[2] >= b[2]) continue;
      uint32_t lin = p->thread[0] + p->thread[1] * b[0] + p->thread[2] * b[0] * b[1];
      if (lin / 32 != wi.index || !((pk->active >> (lin % 32)) & 1u)) continue;
      ln = lin % 32;
    }
    p->hits++;
    *lane = ln;
    return p->id;
  }
  return 0;
}

static void headline_breakpoint(dbg *d, uint32_t id, const dbg_launch *L, func_warp *w, uint32_t pc, uint32_t lane) {
  const dbg_point *p = dbg_point_by_id(d, id);
  if (!p) return;
  char place[DBG_NAME], src[DBG_NAME];
  uint32_t ctaid[3], tid[3];
  func_cta_place(func_warp_cta(w), ctaid, NULL, NULL);
  func_warp_thread(w, lane, tid);
  switch (p->kind) {
  case DBG_BP_KERNEL:
    dbg_out(d, "\nBreakpoint %u, kernel %llu %s, grid (%u,%u,%u), block (%u,%u,%u)\n", id,
            (unsigned long long)L->uid, dbg_kernel_name(L), L->lp.grid[0], L->lp.grid[1], L->lp.grid[2],
            L->lp.block[0], L->lp.block[1], L->lp.block[2]);
    break;
  case DBG_BP_CTA: dbg_out(d, "\nBreakpoint %u, CTA (%u,%u,%u) starts\n", id, ctaid[0], ctaid[1], ctaid[2]); break;
  case DBG_BP_THREAD:
    dbg_out(d, "\nBreakpoint %u, thread (%u,%u,%u) of CTA (%u,%u,%u) starts\n", id, tid[0], tid[1], tid[2], ctaid[0],
            ctaid[1], ctaid[2]);
    break;
  default:
    dbg_ptx_place(L, pc, place, sizeof place);
    dbg_source_place(L, pc, false, src, sizeof src);
    dbg_out(d, "\nBreakpoint %u, %s%s%s\n", id, src[0] ? src : place, src[0] ? ", " : "", src[0] ? place : "");
    break;
  }
}

static void on_before(void *ctx, func_warp *w) {
  dbg *d = ctx;
  if (!d->attached) return;
  func_peek pk;
  if (!func_warp_peek(w, &pk)) return;
  func_cta *c = func_warp_cta(w);
  dbg_launch *L = d->n_launches && d->launches[d->n_launches - 1]->l == func_cta_launch(c)
                      ? d->launches[d->n_launches - 1]
                      : dbg_launch_of(d, func_cta_launch(c));
  if (!L) return;
  if (d->n_watch && pk.kind == FUNC_STEP_MEM) watch_refresh(d);
  uint32_t bp = 0, lane = first_lane(pk.active);
  bool step = d->step_warp == w && d->step_left == 0;
  bool interrupted = d->interrupt != 0;
  if (L->kernel_stop) {
    bp = L->kernel_stop;
    L->kernel_stop = 0;
    dbg_point *p = dbg_point_by_id(d, bp);
    if (p) p->hits++;
  }
  if (!bp && L->at_pc[pk.pc]) bp = line_breakpoint(d, L, w, &pk, &lane);
  if (!bp && d->n_pending) {
    dbg_cta *r = dbg_cta_of(d, c);
    if (r && r->pending) {
      func_warp_info wi;
      func_warp_get_info(w, &wi);
      if (!r->pending_thread || (wi.index == r->warp && ((pk.active >> r->lane) & 1u))) {
        bp = r->pending;
        if (r->pending_thread) lane = r->lane;
        r->pending = 0;
        d->n_pending--;
        dbg_point *p = dbg_point_by_id(d, bp);
        if (p) p->hits++;
      }
    }
  }
  if (!bp && !step && !interrupted) return;
  d->interrupt = 0;
  if (bp) headline_breakpoint(d, bp, L, w, pk.pc, lane);
  else if (interrupted) dbg_out(d, "\nInterrupted.\n");
  if (step && !bp && !interrupted) {
    /* a step ends quietly: just where the warp is now */
    d->focus = w;
    d->focus_L = L;
    d->focus_after = false;
    d->step_warp = NULL;
    dbg_show_pc(d, L, pk.pc, "=>", true);
    dbg_repl(d);
    return;
  }
  stop_at(d, w, L, lane, false);
}

static bool overlaps(uint64_t a, uint64_t an, uint64_t b, uint64_t bn) { return a < b + bn && b < a + an; }

static void on_after(void *ctx, func_warp *w, const func_step *rec) {
  dbg *d = ctx;
  if (!d->attached) return;
  func_warp_info wi;
  func_warp_get_info(w, &wi);
  dbg_launch *L = dbg_launch_of(d, func_cta_launch(func_warp_cta(w)));
  if (!L) return;
  if (wi.state == FUNC_WARP_FAULTED) {
    if (L->fault_shown) return;
    L->fault_shown = true;
    d->fault_warp = w;
    d->fault_pc = rec->pc;
    simtvp_diag diag;
    func_launch_fault(L->l, &diag);
    dbg_out(d, "\nKernel fault: %s\n", diag.message);
    uint32_t lane = first_lane(rec->exec ? rec->exec : rec->active);
    if (diag.where & SIMTVP_WHERE_THREAD) {
      for (uint32_t i = 0; i < 32; i++) {
        uint32_t tid[3];
        func_warp_thread(w, i, tid);
        if (coords_eq(tid, diag.thread) && ((wi.valid >> i) & 1u)) {
          lane = i;
          break;
        }
      }
    }
    stop_at(d, w, L, lane, true);
    return;
  }
  if (d->step_warp == w) {
    if (rec->warp_done) {
      uint32_t ctaid[3];
      func_cta_place(func_warp_cta(w), ctaid, NULL, NULL);
      dbg_out(d, "[warp %u of CTA (%u,%u,%u) exited; continuing]\n", wi.index, ctaid[0], ctaid[1], ctaid[2]);
      d->step_warp = NULL;
    } else if (d->step_left) {
      d->step_left--;
    }
  }
  if (!d->n_watch || rec->kind != FUNC_STEP_MEM) return;
  bool hit = false;
  uint32_t hit_lane = first_lane(rec->exec);
  for (uint32_t i = 0; i < d->n_pts; i++) {
    dbg_point *p = &d->pts[i];
    if (!p->enabled || p->kind != DBG_WATCH) continue;
    uint8_t now[8];
    bool ok = dbg_watch_read(d, p, now);
    bool changed = ok && p->old_valid && memcmp(now, p->old, p->bytes) != 0;
    int lane = -1;
    if (rec->is_store || rec->is_atomic) {
      for (uint32_t ln = 0; ln < 32; ln++) { /* the last lane wins, as lanes apply in order */
        if (!((rec->mem_mask >> ln) & 1u)) continue;
        uint8_t sp = rec->space == PTX_SPACE_GENERIC ? rec->lane_space[ln] : rec->space;
        if (sp == PTX_SPACE_GLOBAL && overlaps(rec->addr[ln], rec->access_bytes, p->addr, p->bytes)) lane = (int)ln;
      }
    }
    if (changed || lane >= 0) {
      uint32_t ln = lane >= 0 ? (uint32_t)lane : first_lane(rec->exec);
      uint32_t ctaid[3], tid[3], sm;
      func_cta_place(func_warp_cta(w), ctaid, &sm, NULL);
      func_warp_thread(w, ln, tid);
      char oldv[64], newv[64];
      if (p->old_valid) dbg_format_value(p->old, p->bytes, p->fmt, oldv, sizeof oldv);
      else snprintf(oldv, sizeof oldv, "(not mapped)");
      if (ok) dbg_format_value(now, p->bytes, p->fmt, newv, sizeof newv);
      else snprintf(newv, sizeof newv, "(not mapped)");
      p->hits++;
      dbg_out(d, "\nWatchpoint %u: 0x%llx (%u bytes) written by kernel %llu %s, CTA (%u,%u,%u), warp %u, thread (%u,%u,%u), SM %u\n",
              p->id, (unsigned long long)p->addr, p->bytes, (unsigned long long)L->uid, dbg_kernel_name(L),
              ctaid[0], ctaid[1], ctaid[2], wi.index, tid[0], tid[1], tid[2], sm);
      dbg_show_pc(d, L, rec->pc, "  at", true);
      dbg_out(d, "Old value = %s\nNew value = %s\n", oldv, newv);
      if (!hit) hit_lane = ln;
      hit = true;
    }
    if (ok) memcpy(p->old, now, 8);
    p->old_valid = ok;
  }
  if (hit) stop_at(d, w, L, hit_lane, true);
}

static void on_launch(void *ctx, func_launch *l, bool begin) {
  dbg *d = ctx;
  if (begin) launch_begin(d, l);
  else launch_end(d, l);
}

static void on_cta(void *ctx, func_cta *c, bool begin) {
  dbg *d = ctx;
  if (begin) cta_begin(d, c);
  else cta_end(d, c);
}

/* ---- API ------------------------------------------------------------------------------------------- */

dbg *dbg_create(const dbg_config *config, const dbg_ports *ports, simtvp_diag *diag) {
  if (!ports || !ports->read_line || !ports->write) {
    simtvp_diag_set(diag, SIMTVP_ERR_ARG, "dbg_create: the read_line and write ports are required");
    return NULL;
  }
  dbg *d = calloc(1, sizeof *d);
  if (!d) {
    simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
    return NULL;
  }
  if (config) d->cfg = *config;
  if (d->cfg.program) snprintf(d->program, sizeof d->program, "%s", d->cfg.program);
  d->cfg.program = d->program;
  d->p = *ports;
  d->attached = true;
  d->next_id = 1;
  d->x_fmt = 'x';
  d->x_unit = 'w';
  return d;
}

void dbg_destroy(dbg *d) {
  if (!d) return;
  for (uint32_t i = 0; i < d->n_launches; i++) {
    free(d->launches[i]->at_pc);
    free(d->launches[i]->pretty);
    free(d->launches[i]);
  }
  free(d->launches);
  free(d->ctas);
  free(d->pts);
  free(d);
}

func_debug_port dbg_func_port(dbg *d) {
  func_debug_port p;
  p.ctx = d;
  p.launch = on_launch;
  p.cta = on_cta;
  p.before = on_before;
  p.after = on_after;
  return p;
}

void dbg_start(dbg *d) {
  if (!d->attached) return;
  dbg_out(d, "simtvp debugger%s%s: set breakpoints and watchpoints, then `continue` (`help` lists the commands).\n",
          d->program[0] ? " on " : "", d->program);
  dbg_repl(d);
}

void dbg_finish(dbg *d) {
  if (!d->attached) return;
  dbg_out(d, "[the program is done with the GPU: %llu kernel launch%s]\n", (unsigned long long)d->launches_seen,
          d->launches_seen == 1 ? "" : "es");
}

bool dbg_command(dbg *d, const char *line) { return dbg_execute(d, line); }

void dbg_interrupt(dbg *d) { d->interrupt = 1; }

bool dbg_attached(const dbg *d) { return d->attached; }
