/* func_exec — engine, launches, CTAs and warps: the SIMT reconvergence stack (GPGPU-Sim 3.x
 * semantics: push at a divergent branch with the immediate post-dominator as reconvergence pc,
 * pop when the top entry reaches it), call frames, barriers, faults, the functional-mode run loop
 * and the per-warp step interface (func.h). */
#define _XOPEN_SOURCE 700 /* recursive pthread mutexes */
#define _DEFAULT_SOURCE   /* MAP_ANONYMOUS */
#include "simtvp_bits.h"
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "func_internal.h"

/* Warp instructions a warp runs before the functional-mode scheduler moves to the next warp of the
 * CTA: long enough to keep the hot loop hot, short enough that warps spinning on a flag another
 * warp sets still make progress. */
#define FX_SLICE 4096u

/* ---- engine ------------------------------------------------------------------------------------ */

static const char *space_short(uint32_t s) {
  switch (s) {
  case PTX_SPACE_GENERIC: return "generic";
  case PTX_SPACE_GLOBAL: return "global";
  case PTX_SPACE_SHARED: return "shared";
  case PTX_SPACE_LOCAL: return "local";
  case PTX_SPACE_CONST: return "const";
  case PTX_SPACE_PARAM: return "param";
  case PTX_SPACE_TEX: return "tex";
  default: return NULL;
  }
}

func_engine *func_create(const func_config *config, const func_ports *ports, devmem *mem,
                         stats *st, simtvp_diag *diag) {
  if (!mem) {
    simtvp_diag_set(diag, SIMTVP_ERR_ARG, "func_create: no device memory");
    return NULL;
  }
  func_engine *e = calloc(1, sizeof *e);
  if (!e) {
    simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
    return NULL;
  }
  if (config) e->cfg = *config;
  if (!e->cfg.n_sms) e->cfg.n_sms = 1;
  if (!e->cfg.max_warps_per_sm) e->cfg.max_warps_per_sm = 64;
  if (!e->cfg.stack_bytes) e->cfg.stack_bytes = 1024;
  if (ports) e->ports = *ports;
  e->zero_frames = e->ports.debug.before || e->ports.debug.after || e->ports.debug.cta || e->ports.debug.launch;
  e->mem = mem;
  e->st = st;
  if (e->cfg.sm_threads) {
    pthread_mutex_t *lock = malloc(sizeof *lock);
    pthread_mutexattr_t attr;
    if (!lock) {
      free(e);
      simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
      return NULL;
    }
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(lock, &attr);
    pthread_mutexattr_destroy(&attr);
    e->sm_lock = lock;
  }
  uint64_t *sink = &e->sink;
  e->c_warp_insns = e->c_thread_insns = e->c_ctas = sink;
  for (int s = 0; s < PTX_SPACE_COUNT; s++) e->c_ld[s] = e->c_st[s] = e->c_atom[s] = sink;
  if (st) {
    e->c_warp_insns = stats_counter(st, "func.warp_insn", "insn", "warp instructions executed by the functional engine");
    e->c_thread_insns = stats_counter(st, "func.thread_insn", "insn",
                                      "thread instructions executed (active lanes of each warp instruction)");
    e->c_ctas = stats_counter(st, "func.cta", "ctas", "CTAs completed");
    /* only the combinations PTX allows: no stores to const, atomics on global/shared/generic */
    for (int s = 0; s < PTX_SPACE_COUNT; s++) {
      const char *n = space_short((uint32_t)s);
      if (!n || s == PTX_SPACE_TEX) continue;
      char name[64], desc[128];
      snprintf(name, sizeof name, "func.load.%s", n);
      snprintf(desc, sizeof desc, "warp load instructions in the %s state space", n);
      e->c_ld[s] = stats_counter(st, name, "insn", desc);
      if (s != PTX_SPACE_CONST) {
        snprintf(name, sizeof name, "func.store.%s", n);
        snprintf(desc, sizeof desc, "warp store instructions in the %s state space", n);
        e->c_st[s] = stats_counter(st, name, "insn", desc);
      }
      if (s == PTX_SPACE_GLOBAL || s == PTX_SPACE_SHARED || s == PTX_SPACE_GENERIC) {
        snprintf(name, sizeof name, "func.atomic.%s", n);
        snprintf(desc, sizeof desc, "warp atomic/reduction instructions in the %s state space", n);
        e->c_atom[s] = stats_counter(st, name, "insn", desc);
      }
    }
  }
  return e;
}

void func_destroy(func_engine *e) {
  if (!e) return;
  free(e->heap);
  free(e->print_buf);
  if (e->sm_lock) {
    pthread_mutex_destroy((pthread_mutex_t *)e->sm_lock);
    free(e->sm_lock);
  }
  free(e->live);
  free(e);
}

devmem *func_devmem(func_engine *e) { return e->mem; }

/* sm_threads: the launch's counts become the sum of its SMs' (warps count per SM). */
static void sum_sm_counts(func_launch *l) {
  if (!l->sm_counts) return;
  fx_counts *c = &l->counts;
  func_pc_count *pc = c->pc;
  uint32_t n_pc = pc ? l->p->m->n_insns + 1 : 0;
  memset(c, 0, sizeof *c);
  if (pc) memset(pc, 0, n_pc * sizeof *pc);
  c->pc = pc;
  for (uint32_t i = 0; i < l->n_sm; i++) {
    const fx_counts *s = &l->sm_counts[i];
    c->warp_insns += s->warp_insns;
    c->thread_insns += s->thread_insns;
    c->ctas_done += s->ctas_done;
    for (int k = 0; k < PTX_SPACE_COUNT; k++) {
      c->loads[k] += s->loads[k];
      c->stores[k] += s->stores[k];
      c->atomics[k] += s->atomics[k];
    }
    if (pc && s->pc) {
      for (uint32_t j = 0; j < n_pc; j++) {
        pc[j].warp_insns += s->pc[j].warp_insns;
        pc[j].thread_insns += s->pc[j].thread_insns;
        pc[j].stall_cycles += s->pc[j].stall_cycles;
      }
    }
  }
}

void fx_flush_counts(func_launch *l) {
  func_engine *e = l->e;
  sum_sm_counts(l);
  fx_counts *c = &l->counts, *f = &l->flushed;
  *e->c_warp_insns += c->warp_insns - f->warp_insns;
  *e->c_thread_insns += c->thread_insns - f->thread_insns;
  *e->c_ctas += c->ctas_done - f->ctas_done;
  for (int s = 0; s < PTX_SPACE_COUNT; s++) {
    *e->c_ld[s] += c->loads[s] - f->loads[s];
    *e->c_st[s] += c->stores[s] - f->stores[s];
    *e->c_atom[s] += c->atomics[s] - f->atomics[s];
  }
  *f = *c;
  e->sink = 0;
}

void fx_lock(func_launch *l) {
  if (l->lock) pthread_mutex_lock((pthread_mutex_t *)l->lock);
}
void fx_unlock(func_launch *l) {
  if (l->lock) pthread_mutex_unlock((pthread_mutex_t *)l->lock);
}

/* ---- faults ------------------------------------------------------------------------------------ */

void fx_fault(fx_warp *w, const fx_insn *in, uint32_t lane, simtvp_status status, bool has_addr,
              uint64_t addr, const char *fmt, ...) {
  func_launch *l = w->l;
  w->stop = true;
  w->state = FUNC_WARP_FAULTED;
  fx_lock(l);
  if (l->fault != SIMTVP_OK) { /* the first fault is the one reported */
    fx_unlock(l);
    return;
  }
  char what[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  simtvp_diag *d = &l->fault_diag;
  simtvp_diag_clear(d);
  const ptx_module *m = l->p->m;
  const char *kname = l->kf->pf->name ? l->kf->pf->name : "?";
  uint32_t thread[3] = {w->tid[0][lane & 31], w->tid[1][lane & 31], w->tid[2][lane & 31]};
  uint32_t pc = in ? (uint32_t)(in - l->p->code) : w->pc;
  const ptx_insn *pi = pc < m->n_insns ? &m->insns[pc] : NULL;
  char text[160] = "";
  if (pi) ptx_insn_format(m, pi, text, sizeof text);
  const char *file = m->source_name ? m->source_name : "<ptx>";
  char source[200] = ""; /* the CUDA source line when the PTX carries .loc (nvcc -lineinfo / -G) */
  if (pi && pi->loc_line && pi->loc_file < m->n_files && m->files[pi->loc_file] && m->files[pi->loc_file][0])
    snprintf(source, sizeof source, ", source %s:%u", m->files[pi->loc_file], pi->loc_line);
  simtvp_diag_set(d, status,
                  "%s: %s in kernel %s, CTA (%u,%u,%u), thread (%u,%u,%u), pc %u (%s:%u: `%s`%s)",
                  file, what, kname, w->cta->ctaid[0], w->cta->ctaid[1], w->cta->ctaid[2], thread[0],
                  thread[1], thread[2], pc, file, pi ? pi->ptx_line : 0, text, source);
  simtvp_diag_at_thread(d, kname, w->cta->ctaid, thread);
  simtvp_diag_at_pc(d, pc);
  if (pi) simtvp_diag_at_file(d, file, pi->ptx_line, pi->ptx_column);
  if (has_addr) simtvp_diag_at_address(d, addr);
  __atomic_store_n(&l->fault, status, __ATOMIC_RELEASE);
  fx_unlock(l);
}

/* ---- device memory on slow paths ---------------------------------------------------------------- */

static bool dev_access(fx_warp *w, uint64_t addr, uint8_t *buf, uint64_t n, bool write, uint64_t *bad) {
  devmem_tlb_sync(w->tlb);
  while (n) {
    uint64_t k = DEVMEM_PAGE_BYTES - (addr & DEVMEM_PAGE_MASK);
    if (k > n) k = n;
    uint8_t *h = write ? devmem_tlb_translate_w(w->tlb, addr) : devmem_tlb_translate(w->tlb, addr);
    if (!h) {
      if (bad) *bad = addr;
      return false;
    }
    if (write) memcpy(h, buf, k);
    else memcpy(buf, h, k);
    addr += k;
    buf += k;
    n -= k;
  }
  return true;
}

bool fx_dev_read(fx_warp *w, uint64_t addr, void *dst, uint64_t n, uint64_t *bad) {
  return dev_access(w, addr, dst, n, false, bad);
}

bool fx_dev_write(fx_warp *w, uint64_t addr, const void *src, uint64_t n, uint64_t *bad) {
  return dev_access(w, addr, (uint8_t *)(uintptr_t)src, n, true, bad);
}

void fx_describe_unmapped(fx_warp *w, uint64_t addr, bool write, char *buf, size_t n) {
  const devmem_xlate *x = w->tlb->xlate;
  if (x && x->describe) x->describe(x->ctx, addr, write, buf, n);
  else if (x) snprintf(buf, n, "GPU page fault: the address does not translate");
  else snprintf(buf, n, "address is not mapped in device memory");
}

/* ---- special registers ------------------------------------------------------------------------- */

uint64_t fx_sreg_value(fx_warp *w, uint32_t sreg, uint32_t lane) {
  func_launch *l = w->l;
  func_cta *c = w->cta;
  func_engine *e = l->e;
  switch (sreg) {
  case PTX_SREG_TID_X: return w->tid[0][lane];
  case PTX_SREG_TID_Y: return w->tid[1][lane];
  case PTX_SREG_TID_Z: return w->tid[2][lane];
  case PTX_SREG_NTID_X: return l->block[0];
  case PTX_SREG_NTID_Y: return l->block[1];
  case PTX_SREG_NTID_Z: return l->block[2];
  case PTX_SREG_CTAID_X: return c->ctaid[0];
  case PTX_SREG_CTAID_Y: return c->ctaid[1];
  case PTX_SREG_CTAID_Z: return c->ctaid[2];
  case PTX_SREG_NCTAID_X: return l->grid[0];
  case PTX_SREG_NCTAID_Y: return l->grid[1];
  case PTX_SREG_NCTAID_Z: return l->grid[2];
  case PTX_SREG_LANEID: return lane;
  case PTX_SREG_WARPID: return c->warp_slot + w->index;
  case PTX_SREG_NWARPID: return e->cfg.max_warps_per_sm;
  case PTX_SREG_SMID: return c->sm;
  case PTX_SREG_NSMID: return e->cfg.n_sms;
  case PTX_SREG_GRIDID: return l->grid_id;
  case PTX_SREG_LANEMASK_EQ: return 1u << lane;
  case PTX_SREG_LANEMASK_LE: return lane == 31 ? FX_FULL : (2u << lane) - 1u;
  case PTX_SREG_LANEMASK_LT: return (1u << lane) - 1u;
  case PTX_SREG_LANEMASK_GE: return ~((1u << lane) - 1u);
  case PTX_SREG_LANEMASK_GT: return lane == 31 ? 0u : ~((2u << lane) - 1u);
  case PTX_SREG_CLOCK:
  case PTX_SREG_CLOCK_HI:
  case PTX_SREG_CLOCK64: {
    uint64_t t = e->ports.clock ? e->ports.clock(e->ports.ctx, c->sm) + (uint64_t)w->ahead_cycles : w->counts->warp_insns;
    return sreg == PTX_SREG_CLOCK ? (uint32_t)t : sreg == PTX_SREG_CLOCK_HI ? (uint32_t)(t >> 32) : t;
  }
  case PTX_SREG_GLOBALTIMER:
  case PTX_SREG_GLOBALTIMER_LO:
  case PTX_SREG_GLOBALTIMER_HI: {
    uint64_t t = e->ports.globaltimer ? e->ports.globaltimer(e->ports.ctx) + (uint64_t)w->ahead_ns : w->counts->warp_insns;
    return sreg == PTX_SREG_GLOBALTIMER_LO ? (uint32_t)t
           : sreg == PTX_SREG_GLOBALTIMER_HI ? (uint32_t)(t >> 32) : t;
  }
  case PTX_SREG_CLUSTERID_X: case PTX_SREG_CLUSTERID_Y: case PTX_SREG_CLUSTERID_Z:
    return c->ctaid[sreg - PTX_SREG_CLUSTERID_X] / l->cluster[sreg - PTX_SREG_CLUSTERID_X];
  case PTX_SREG_NCLUSTERID_X: case PTX_SREG_NCLUSTERID_Y: case PTX_SREG_NCLUSTERID_Z:
    return l->grid[sreg - PTX_SREG_NCLUSTERID_X] / l->cluster[sreg - PTX_SREG_NCLUSTERID_X];
  case PTX_SREG_CLUSTER_CTAID_X: case PTX_SREG_CLUSTER_CTAID_Y: case PTX_SREG_CLUSTER_CTAID_Z:
    return c->ctaid[sreg - PTX_SREG_CLUSTER_CTAID_X] % l->cluster[sreg - PTX_SREG_CLUSTER_CTAID_X];
  case PTX_SREG_CLUSTER_NCTAID_X: case PTX_SREG_CLUSTER_NCTAID_Y: case PTX_SREG_CLUSTER_NCTAID_Z:
    return l->cluster[sreg - PTX_SREG_CLUSTER_NCTAID_X];
  case PTX_SREG_CLUSTER_CTARANK: return c->rank;
  case PTX_SREG_CLUSTER_NCTARANK: return l->cluster_size;
  case PTX_SREG_IS_EXPLICIT_CLUSTER: return l->explicit_cluster;
  case PTX_SREG_DYNAMIC_SMEM_SIZE: return l->dynamic_smem;
  case PTX_SREG_TOTAL_SMEM_SIZE: return l->smem_bytes;
  case PTX_SREG_AGGR_SMEM_SIZE: return l->smem_bytes;
  default:
    if (sreg >= PTX_SREG_ENVREG0 && sreg < PTX_SREG_ENVREG0 + 32) return e->cfg.envreg[sreg - PTX_SREG_ENVREG0];
    return 0; /* %pm0..7 performance monitors read as 0 */
  }
}

/* ---- SIMT stack -------------------------------------------------------------------------------- */

void fx_stack_load_top(fx_warp *w) {
  if (w->depth == 0) {
    w->active = 0;
    w->nactive = 0;
    w->rpc = FX_NONE;
    return;
  }
  const fx_sentry *t = &w->stack[w->depth - 1];
  w->pc = t->pc == FX_NONE ? w->l->p->m->n_insns : t->pc;
  w->active = t->mask;
  w->rpc = t->rpc;
  w->nactive = (uint32_t)simtvp_popcount32(t->mask);
}

void fx_lost(fx_warp *w, const fx_insn *in, uint32_t m) {
  (void)in;
  fx_fault(w, NULL, m ? (uint32_t)__builtin_ctz(m) : 0, SIMTVP_ERR_STATE, false, 0,
           "internal error: lanes 0x%08x reached the end of a function without ret or exit", m);
}

bool fx_stack_push(fx_warp *w, fx_sentry e) {
  if (w->depth == w->cap) {
    uint32_t cap = w->cap * 2;
    fx_sentry *n = w->stack_heap ? realloc(w->stack, cap * sizeof *n) : malloc(cap * sizeof *n);
    if (!n) {
      fx_fault(w, NULL, 0, SIMTVP_ERR_NOMEM, false, 0, "out of host memory growing the SIMT stack");
      return false;
    }
    if (!w->stack_heap) memcpy(n, w->stack, w->cap * sizeof *n); /* leaves the CTA's block */
    w->stack = n;
    w->stack_heap = true;
    w->cap = cap;
  }
  w->stack[w->depth++] = e;
  return true;
}

static void warp_done(fx_warp *w) {
  w->state = FUNC_WARP_DONE;
  w->stop = true;
  w->active = 0;
  w->nactive = 0;
  fx_cta_warp_done(w->cta, w);
}

/* Pops empty entries from the top; a popped call entry restores its caller's frame. */
static void pop_empty(fx_warp *w) {
  while (w->depth && w->stack[w->depth - 1].mask == 0) {
    fx_sentry e = w->stack[--w->depth];
    if (e.kind == FX_SE_CALL) fx_finish_call(w, &e);
  }
  if (w->depth == 0) {
    warp_done(w);
    return;
  }
  fx_stack_load_top(w);
  if (w->pc == w->rpc) fx_stack_reconverge(w);
}

void fx_stack_reconverge(fx_warp *w) {
  while (w->depth > 1 && w->pc == w->rpc) {
    w->depth--;
    fx_stack_load_top(w);
  }
}

void fx_stack_remove_lanes(fx_warp *w, uint32_t lanes, uint32_t down_to) {
  w->stack[w->depth - 1].pc = w->pc;
  for (uint32_t k = w->depth; k-- > down_to;) w->stack[k].mask &= ~lanes;
  pop_empty(w);
}

void fx_warp_exit_lanes(fx_warp *w, uint32_t lanes) {
  w->exited |= lanes;
  fx_stack_remove_lanes(w, lanes, 0);
}

bool fx_enter_function(fx_warp *w, const fx_insn *in, fx_func *callee, uint32_t mask) {
  fx_func *caller = w->fn;
  const fx_call *c = in->ext;
  size_t new_top = (w->rs_top + caller->frame_bytes + 63) & ~(size_t)63;
  size_t need = new_top + callee->frame_bytes + FX_ROW128; /* slack: see cta_alloc */
  if (need > w->rs_cap) {
    size_t cap = w->rs_cap * 2 > need ? w->rs_cap * 2 : need;
    uint8_t *n = w->rs_heap ? realloc(w->rs, cap) : malloc(cap);
    if (!n) {
      fx_fault(w, in, (uint32_t)__builtin_ctz(mask), SIMTVP_ERR_NOMEM, false, 0,
               "out of host memory growing the register stack");
      return false;
    }
    if (!w->rs_heap) memcpy(n, w->rs, w->rs_cap); /* leaves the CTA's block */
    w->rs_heap = true;
    /* no clearing: the callee's frame clears the registers it may read before writing
     * (fx_frame_clear below), as a CTA's kernel frame does */
    w->rs = n;
    w->rs_cap = cap;
    w->regs = w->rs + w->rs_top;
  }
  uint64_t new_fp = w->fp + caller->lm_bytes;
  if (new_fp + callee->lm_bytes > w->local_stride) {
    fx_fault(w, in, (uint32_t)__builtin_ctz(mask), SIMTVP_ERR_FAULT, false, 0,
             "call stack overflow calling %s: needs %" PRIu64 " bytes of local memory per thread, "
             "%u available (raise the stack size)",
             callee->pf->name, new_fp + callee->lm_bytes, w->local_stride);
    return false;
  }
  /* arguments: caller's call-site params (or registers) → callee's param area */
  for (uint32_t i = 0; i < c->n_args && i < callee->n_params; i++) {
    const fx_call_arg *a = &c->args[i];
    uint32_t n = a->bytes < callee->param_size[i] ? a->bytes : callee->param_size[i];
    uint64_t dst = new_fp + callee->param_off[i];
    FX_FOR_LANES(lane, mask) {
      uint8_t *lm = fx_lane_local(w, lane);
      if (a->kind == 0) {
        memmove(lm + dst, lm + w->fp + a->off, n);
      } else {
        uint64_t v = a->wide ? FX_R64(w, a->off)[lane] : FX_R32(w, a->off)[lane];
        memcpy(lm + dst, &v, n > 8 ? 8 : n);
      }
    }
  }
  w->stack[w->depth - 1].pc = w->pc;
  fx_sentry e = {callee->pf->first_insn, FX_NONE, mask, FX_SE_CALL, in, caller, mask, w->rs_top, w->fp};
  if (!fx_stack_push(w, e)) return false;
  w->rs_top = new_top;
  w->regs = w->rs + new_top;
  memcpy(w->regs + callee->off_const, callee->const_img, callee->frame_bytes - callee->off_const);
  fx_frame_clear(callee, w->regs, w->l->e->zero_frames);
  w->fp = new_fp;
  w->fn = callee;
  w->call_depth++;
  fx_stack_load_top(w);
  return true;
}

void fx_finish_call(fx_warp *w, const fx_sentry *e) {
  fx_func *callee = w->fn;
  const fx_call *c = e->call->ext;
  uint32_t lanes = e->call_mask & ~w->exited;
  uint64_t callee_fp = w->fp;
  /* restore the caller's frame first: register returns land in its rows */
  w->rs_top = e->saved_rs_top;
  w->regs = w->rs + w->rs_top;
  w->fp = e->saved_fp;
  w->fn = e->caller;
  w->call_depth--;
  for (uint32_t i = 0; i < c->n_rets && i < callee->n_rets; i++) {
    const fx_call_arg *r = &c->rets[i];
    uint32_t src_off = callee->param_off[callee->n_params + i];
    uint32_t n = r->bytes < callee->param_size[callee->n_params + i] ? r->bytes
                                                                       : callee->param_size[callee->n_params + i];
    FX_FOR_LANES(lane, lanes) {
      uint8_t *lm = fx_lane_local(w, lane);
      if (r->kind == 0) {
        memmove(lm + w->fp + r->off, lm + callee_fp + src_off, n);
      } else if (r->kind == 1) {
        uint64_t v = 0;
        memcpy(&v, lm + callee_fp + src_off, n > 8 ? 8 : n);
        if (r->wide) FX_R64(w, r->off)[lane] = v;
        else FX_R32(w, r->off)[lane] = (uint32_t)v;
      }
    }
  }
}

/* ---- barriers ---------------------------------------------------------------------------------- */

void fx_barrier_release(func_cta *cta, uint32_t id) {
  fx_barrier *b = &cta->bar[id];
  for (uint32_t wi = 0; wi < cta->n_warps; wi++) {
    if (!(b->waiting & (1u << wi))) continue;
    fx_warp *w = &cta->warps[wi];
    if (w->state != FUNC_WARP_BARRIER) continue;
    if (w->bar_dest != FX_NONE) {
      if (w->bar_red == PTX_BAR_RED_POPC) {
        uint32_t *d = FX_R32(w, w->bar_dest);
        FX_FOR_LANES(lane, w->bar_mask) d[lane] = b->res_popc;
      } else {
        bool r = w->bar_red == PTX_BAR_RED_AND ? b->res_and : b->res_or;
        fx_putp(FX_P(w, w->bar_dest), r ? FX_FULL : 0, w->bar_mask);
      }
    }
    w->state = FUNC_WARP_READY;
  }
  b->waiting = 0;
  b->complete = false;
}

bool fx_barrier_check(func_cta *cta, uint32_t id) {
  fx_barrier *b = &cta->bar[id];
  if (!b->arrived) return false;
  bool done = b->expected ? b->threads >= b->expected : (b->arrived & cta->live) == cta->live;
  if (!done) return false;
  b->complete = true;
  b->res_popc = b->red_popc;
  b->res_and = b->red_and;
  b->res_or = b->red_or;
  b->arrived = 0;
  b->threads = 0;
  b->expected = 0;
  if (cta->l->auto_release) fx_barrier_release(cta, id);
  return true;
}

/* A phase of barrier.cluster completes when every warp that has not exited arrived. */
static void cluster_bar_check(fx_cluster *k) {
  if (k->bar_arrived && k->bar_arrived >= k->live_warps) {
    k->bar_phase++;
    k->bar_arrived = 0;
  }
}

void fx_cta_warp_done(func_cta *cta, fx_warp *w) {
  cta->live &= ~(1u << w->index);
  uint32_t any = 0; /* (most warps exit with no barrier phase open: one pass without branches) */
  for (uint32_t id = 0; id < FUNC_NUM_BARRIERS; id++) any |= cta->bar[id].arrived;
  if (any)
    for (uint32_t id = 0; id < FUNC_NUM_BARRIERS; id++)
      if (cta->bar[id].arrived) fx_barrier_check(cta, id);
  fx_cluster *k = cta->cluster;
  if (k) {
    /* with sm_threads the CTAs of a cluster run on several host threads: its counters are shared */
    bool shared = k->n > 1;
    if (shared) fx_lock(cta->l);
    if (k->live_warps) k->live_warps--;
    /* a warp that arrived in the current phase and then exited no longer counts */
    if (w->cbar_arrived == k->bar_phase + 1 && k->bar_arrived) k->bar_arrived--;
    cluster_bar_check(k);
    if (shared) fx_unlock(cta->l);
  }
}

/* barrier.cluster.arrive / .wait (exec_sync.c): arrive counts the warp once per phase; wait
 * returns true when the phase the warp last arrived in has completed. */
void fx_cluster_arrive(fx_warp *w) {
  fx_cluster *k = w->cta->cluster;
  bool shared = k->n > 1;
  if (shared) fx_lock(w->l);
  if (w->cbar_arrived != k->bar_phase + 1) { /* else its lanes arrived in parts */
    w->cbar_arrived = k->bar_phase + 1;
    k->bar_arrived++;
    cluster_bar_check(k);
  }
  if (shared) fx_unlock(w->l);
}
bool fx_cluster_wait_done(const fx_warp *w) {
  fx_cluster *k = w->cta->cluster;
  bool shared = k->n > 1;
  if (shared) fx_lock(w->l);
  bool done = w->cbar_arrived && w->cbar_arrived <= k->bar_phase;
  if (shared) fx_unlock(w->l);
  return done;
}

func_cta *fx_cluster_cta(const fx_warp *w, uint64_t a, uint64_t *offset) {
  func_cta *c = w->cta;
  uint64_t rank = a >> FX_CLUSTER_RANK_SHIFT;
  *offset = a & FX_CLUSTER_OFFSET_MASK;
  if (rank == 0) {
    *offset = a; /* the executing CTA: the whole offset */
    return c;
  }
  fx_cluster *k = c->cluster;
  if (!k || rank - 1 >= k->n) return NULL;
  return k->cta[rank - 1];
}

/* ---- launches ---------------------------------------------------------------------------------- */

static bool grow_live(func_engine *e) {
  uint32_t cap = e->cap_live ? e->cap_live * 2 : 8;
  func_launch **n = realloc(e->live, cap * sizeof *n);
  if (!n) return false;
  e->live = n;
  e->cap_live = cap;
  return true;
}

static void flush_live(func_engine *e) {
  for (uint32_t i = 0; i < e->n_live; i++) fx_flush_counts(e->live[i]);
}

simtvp_status func_launch_create(func_engine *e, func_program *p, const func_launch_params *lp,
                                 func_launch **out, simtvp_diag *diag) {
  *out = NULL;
  if (!e || !p || !lp) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "func_launch_create: missing argument");
  const ptx_module *m = p->m;
  if (lp->kernel >= m->n_functions || !p->funcs[lp->kernel].is_entry || !p->funcs[lp->kernel].built)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "func_launch_create: function %u is not a kernel", lp->kernel);
  fx_func *kf = &p->funcs[lp->kernel];
  uint64_t threads = (uint64_t)lp->block[0] * lp->block[1] * lp->block[2];
  uint64_t ctas = (uint64_t)lp->grid[0] * lp->grid[1] * lp->grid[2];
  if (threads == 0 || threads > FUNC_MAX_CTA_THREADS)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "launch of %s: block (%u,%u,%u) must have 1..%u threads",
                           kf->pf->name, lp->block[0], lp->block[1], lp->block[2], FUNC_MAX_CTA_THREADS);
  if (ctas == 0)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "launch of %s: grid (%u,%u,%u) is empty", kf->pf->name,
                           lp->grid[0], lp->grid[1], lp->grid[2]);
  uint32_t need = func_program_param_bytes(p, lp->kernel);
  if (lp->param_bytes < need || (need && !lp->params))
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG,
                           "launch of %s: parameter buffer has %u bytes, the kernel needs %u",
                           kf->pf->name, lp->param_bytes, need);
  /* CUDA's largest parameter buffer is 32764 bytes; far more is a caller's bug, not a kernel */
  if (lp->param_bytes > FX_MAX_KERNEL_PARAMS)
    return simtvp_diag_set(diag, SIMTVP_ERR_LIMIT, "launch of %s: %u bytes of parameters, more than the %u the "
                           "engine takes", kf->pf->name, lp->param_bytes, FX_MAX_KERNEL_PARAMS);
  func_launch *l = calloc(1, sizeof *l);
  if (!l) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  l->e = e;
  l->debug_step = e->ports.debug.before || e->ports.debug.after;
  l->p = p;
  l->kf = kf;
  memcpy(l->grid, lp->grid, sizeof l->grid);
  memcpy(l->block, lp->block, sizeof l->block);
  l->dynamic_smem = lp->dynamic_smem;
  l->grid_id = lp->grid_id;
  l->launch_uid = lp->launch_uid;
  l->param_bytes = lp->param_bytes;
  l->params = malloc(lp->param_bytes ? lp->param_bytes : 1);
  if (!l->params) {
    free(l);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  }
  if (lp->param_bytes) memcpy(l->params, lp->params, lp->param_bytes);
  l->dyn_smem_base = p->shared_module_bytes + p->shared_funcs_bytes;
  l->smem_bytes = l->dyn_smem_base + lp->dynamic_smem;
  l->local_per_thread = (kf->lm_bytes + e->cfg.stack_bytes + 15u) & ~15u;
  l->threads_per_cta = (uint32_t)threads;
  l->warps_per_cta = (uint32_t)((threads + 31) / 32);
  l->n_ctas = ctas;
  /* thread block clusters: the launch's dimensions, else the kernel's .reqnctapercluster */
  const ptx_function *pf = kf->pf;
  bool given = lp->cluster[0] || lp->cluster[1] || lp->cluster[2];
  bool compiled = pf->reqnctapercluster[0] || pf->reqnctapercluster[1] || pf->reqnctapercluster[2];
  for (int i = 0; i < 3; i++) {
    uint32_t c = given ? lp->cluster[i] : compiled ? pf->reqnctapercluster[i] : 1;
    l->cluster[i] = c ? c : 1;
  }
  l->explicit_cluster = given || compiled;
  l->cluster_size = l->cluster[0] * l->cluster[1] * l->cluster[2];
  const char *bad = NULL;
  if ((pf->flags & PTX_FN_EXPLICIT_CLUSTER) && !l->explicit_cluster) bad = "the kernel (.explicitcluster) needs cluster dimensions";
  else if (l->cluster_size > FUNC_MAX_CLUSTER_CTAS) bad = "a cluster has at most 16 CTAs";
  else if (lp->grid[0] % l->cluster[0] || lp->grid[1] % l->cluster[1] || lp->grid[2] % l->cluster[2])
    bad = "the cluster dimensions must divide the grid's";
  if (bad) {
    simtvp_diag_set(diag, SIMTVP_ERR_ARG, "launch of %s: grid (%u,%u,%u), cluster (%u,%u,%u): %s", pf->name,
                    lp->grid[0], lp->grid[1], lp->grid[2], l->cluster[0], l->cluster[1], l->cluster[2], bad);
    free(l->params);
    free(l);
    return SIMTVP_ERR_ARG;
  }
  l->n_clusters = ctas / l->cluster_size;
  if (e->cfg.pc_counts) {
    l->counts.pc = calloc((size_t)m->n_insns + 1, sizeof *l->counts.pc);
    if (!l->counts.pc) {
      free(l->params);
      free(l);
      return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
    }
  }
  if (lp->xlate && lp->xlate->page) l->xlate = *lp->xlate;
  devmem_tlb_init_xlate(&l->tlb, e->mem, l->xlate.page ? &l->xlate : NULL);
  if (e->cfg.sm_threads) {
    l->n_sm = e->cfg.n_sms;
    l->sm_counts = calloc(l->n_sm, sizeof *l->sm_counts);
    l->sm_tlb = calloc(l->n_sm, sizeof *l->sm_tlb);
    l->sm_free = calloc(l->n_sm, sizeof *l->sm_free);
    if (!l->sm_counts || !l->sm_tlb || !l->sm_free ||
        (e->n_live == e->cap_live && !grow_live(e))) {
      free(l->sm_counts);
      free(l->sm_tlb);
      free(l->sm_free);
      free(l->counts.pc);
      free(l->params);
      free(l);
      return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
    }
    for (uint32_t i = 0; i < l->n_sm; i++) devmem_tlb_init_xlate(&l->sm_tlb[i], e->mem, l->xlate.page ? &l->xlate : NULL);
    l->lock = e->sm_lock;
    flush_live(e); /* a kernel boundary: every running launch's counts are brought up to date */
    l->live_index = e->n_live;
    e->live[e->n_live++] = l;
  }
  *out = l;
  if (e->ports.debug.launch) e->ports.debug.launch(e->ports.debug.ctx, l, true);
  return SIMTVP_OK;
}

/* A CTA's local memory (every thread's stack and .local): zero-filled. Large areas are mapped
 * from the system, which hands out zero pages as they are first touched, so a CTA whose threads
 * use a few bytes of their 1 KiB stacks costs no clearing of the rest. */
#define FX_LOCAL_MAP_BYTES (64u << 10)

static void *local_alloc(size_t bytes) {
  if (bytes >= FX_LOCAL_MAP_BYTES) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
  }
  return calloc(1, bytes ? bytes : 1);
}

static void local_free(void *p, size_t bytes) {
  if (!p) return;
  if (bytes >= FX_LOCAL_MAP_BYTES) munmap(p, bytes);
  else free(p);
}

static size_t local_bytes(const func_cta *c) { return (size_t)c->n_warps * 32 * c->local_per_thread; }

static void cta_free(func_cta *c) {
  if (!c) return;
  for (uint32_t i = 0; c->warps && i < c->n_warps; i++) {
    if (c->warps[i].stack_heap) free(c->warps[i].stack);
    if (c->warps[i].rs_heap) free(c->warps[i].rs);
    free(c->warps[i].replay_pages);
  }
  local_free(c->local, local_bytes(c));
  free(c->block); /* the allocation that holds c (cta_alloc) */
}

static void cta_free_cluster(func_launch *l, func_cta **cs) {
  if (!cs) return;
  for (uint32_t i = 0; i < l->cluster_size; i++) cta_free(cs[i]);
  free(cs);
}

/* The launch's per-instruction counts go to the program's statistics (nonzero rows only). */
static void flush_pc_counts(func_launch *l) {
  const func_pc_count *pc = l->counts.pc;
  if (!pc || !l->p->line_stats) return;
  for (uint32_t i = 0; i < l->p->m->n_insns; i++) {
    if (!pc[i].warp_insns && !pc[i].stall_cycles) continue;
    uint64_t v[STATS_CODE_COLUMNS];
    v[STATS_CODE_WARP_INSN] = pc[i].warp_insns;
    v[STATS_CODE_THREAD_INSN] = pc[i].thread_insns;
    v[STATS_CODE_STALL_CYCLES] = pc[i].stall_cycles;
    stats_code_add(l->p->line_stats, i, v);
  }
}

void func_launch_destroy(func_launch *l) {
  if (!l) return;
  if (l->e->ports.debug.launch) l->e->ports.debug.launch(l->e->ports.debug.ctx, l, false);
  func_engine *e = l->e;
  if (l->sm_counts) { /* a kernel boundary: every running launch is brought up to date */
    e->live[l->live_index] = e->live[--e->n_live];
    e->live[l->live_index]->live_index = l->live_index;
    flush_live(e);
  }
  fx_flush_counts(l);
  flush_pc_counts(l);
  cta_free_cluster(l, l->pool);
  for (uint32_t i = 0; i < l->n_active; i++) free(l->active[i]);
  free(l->active);
  while (l->free_ctas) {
    func_cta *c = l->free_ctas;
    l->free_ctas = c->next_free;
    cta_free(c);
  }
  for (uint32_t i = 0; l->sm_free && i < l->n_sm; i++) {
    while (l->sm_free[i]) {
      func_cta *c = l->sm_free[i];
      l->sm_free[i] = c->next_free;
      cta_free(c);
    }
  }
  free(l->sm_free);
  free(l->counts.pc);
  if (l->sm_counts)
    for (uint32_t i = 0; i < l->n_sm; i++) free(l->sm_counts[i].pc);
  free(l->sm_counts);
  free(l->sm_tlb);
  free(l->params);
  free(l);
}

uint32_t func_launch_cluster_size(const func_launch *l) { return l ? l->cluster_size : 1; }

func_pc_count *func_launch_pc_counts(func_launch *l, uint32_t *n) {
  if (n) *n = l && l->counts.pc ? l->p->m->n_insns : 0;
  if (l) sum_sm_counts(l);
  return l ? l->counts.pc : NULL;
}

func_pc_count *func_cta_pc_counts(func_cta *cta, uint32_t *n) {
  func_pc_count *pc = cta && cta->counts ? cta->counts->pc : NULL;
  if (n) *n = pc ? cta->l->p->m->n_insns : 0;
  return pc;
}

void func_launch_get_counts(const func_launch *l, func_launch_counts *out) {
  if (l) sum_sm_counts((func_launch *)l);
  memset(out, 0, sizeof *out);
  out->warp_insns = l->counts.warp_insns;
  out->thread_insns = l->counts.thread_insns;
  memcpy(out->loads, l->counts.loads, sizeof out->loads);
  memcpy(out->stores, l->counts.stores, sizeof out->stores);
  memcpy(out->atomics, l->counts.atomics, sizeof out->atomics);
  out->ctas_done = l->counts.ctas_done;
}

/* ---- CTAs -------------------------------------------------------------------------------------- */

static func_cta *cta_alloc(func_launch *l) {
  /* One allocation (64-byte aligned parts) holds the CTA, its warps, each warp's first SIMT stack (16
   * entries) and register stack (the kernel's frame and one 128-bit row of slack past it: a
   * register operand of a class narrower than its instruction writes — a corrupted program image;
   * the parser never makes one — stays inside; a call moves the stack to the heap,
   * fx_enter_function), then shared memory. The warps' frames lie next to each other: each page a
   * kernel touches first costs a page fault (QV100 vector add 262 144 under interval cores: 13 688
   * faults in the kernel with room for two frames per warp, 9 275 with one). None of it is zeroed beyond
   * the warps' headers: thread ids and shared memory are set by cta_init, register frames zeroed
   * only where a thread may read before writing (fx_find_unwritten_reads, fx_frame_clear).
   * Zeroing whole frames here cost more host instructions than short kernels execute. */
#define FX_A64(x) (((size_t)(x) + 63) & ~(size_t)63)
  const uint32_t n_warps = l->warps_per_cta, smem_bytes = l->smem_bytes;
  const size_t frame = FX_A64(l->kf->frame_bytes), rs_cap = FX_A64(frame + FX_ROW128);
  const size_t head = FX_A64(sizeof(func_cta));
  const size_t warps = FX_A64((size_t)n_warps * sizeof(fx_warp)), stack = FX_A64(16 * sizeof(fx_sentry));
  const size_t total = head + warps + (size_t)n_warps * (stack + rs_cap) + FX_A64(smem_bytes ? smem_bytes : 1);
  /* (malloc and a rounding up: aligned_alloc's split of a larger chunk cost ~790 host
   * instructions per CTA, the allocation ~100) */
  uint8_t *raw = malloc(total + 63);
  if (!raw) return NULL;
  uint8_t *a = (uint8_t *)(((uintptr_t)raw + 63) & ~(uintptr_t)63);
  func_cta *c = (func_cta *)a;
  memset(c, 0, sizeof *c);
  c->block = raw;
  c->l = l;
  c->counts = &l->counts;
  c->tlb = &l->tlb;
  c->n_threads = l->threads_per_cta;
  c->n_warps = n_warps;
  c->smem_bytes = smem_bytes;
  c->local_per_thread = l->local_per_thread;
  uint8_t *b = a + head;
  c->local = local_alloc(local_bytes(c));
  if (!c->local) {
    cta_free(c);
    return NULL;
  }
  c->warps = (fx_warp *)b;
  c->smem = b + warps + (size_t)c->n_warps * (stack + rs_cap);
  const uint32_t bx = l->block[0], by = l->block[1];
  for (uint32_t i = 0; i < c->n_warps; i++) {
    fx_warp *w = &c->warps[i];
    memset(w, 0, offsetof(fx_warp, tid));
    w->cap = 16;
    w->stack = (fx_sentry *)(b + warps + (size_t)i * (stack + rs_cap));
    w->rs_cap = rs_cap;
    w->rs = (uint8_t *)w->stack + stack;
    /* what a warp of this launch's CTAs starts with wherever its CTA sits in the grid, set once
     * here for every reuse of the object (func_cta_start): its index, local memory, lanes and
     * thread ids (nothing else writes them) */
    w->index = i;
    w->local_stride = c->local_per_thread;
    w->local = c->local + (size_t)i * 32 * c->local_per_thread;
    uint32_t first = i * 32, n = c->n_threads - first < 32 ? c->n_threads - first : 32;
    w->valid = n == 32 ? FX_FULL : (1u << n) - 1u;
    /* thread ids of the lanes, counted up without a division per lane; a warp inside one row
     * of the block (x from x0 to x0 + 31, the usual case) in loops the compiler vectorises */
    uint32_t x = first % bx, y = (first / bx) % by, z = first / (bx * by);
    if (x + 32 <= bx) {
      for (uint32_t lane = 0; lane < 32; lane++) w->tid[0][lane] = x + lane;
      for (uint32_t lane = 0; lane < 32; lane++) w->tid[1][lane] = y;
      for (uint32_t lane = 0; lane < 32; lane++) w->tid[2][lane] = z;
    } else {
      for (uint32_t lane = 0; lane < 32; lane++) {
        w->tid[0][lane] = x;
        w->tid[1][lane] = y;
        w->tid[2][lane] = z;
        if (++x == bx) {
          x = 0;
          if (++y == by) y = 0, z++;
        }
      }
    }
  }
#undef FX_A64
  return c;
}

static void cta_init(func_cta *c, const uint32_t ctaid[3], uint32_t sm, uint32_t slot) {
  func_launch *l = c->l;
  fx_func *kf = l->kf;
  memcpy(c->ctaid, ctaid, sizeof c->ctaid);
  c->sm = sm;
  c->warp_slot = slot;
  memset(c->bar, 0, sizeof c->bar);
  memset(c->smem, 0, c->smem_bytes);
  c->live = c->n_warps >= 32 ? FX_FULL : (1u << c->n_warps) - 1u;
  c->started = true;
  for (uint32_t wi = 0; wi < c->n_warps; wi++) {
    fx_warp *w = &c->warps[wi];
    w->cta = c;
    w->l = l;
    w->counts = c->counts;
    w->tlb = c->tlb;
    w->code = l->p->code;
    w->fn = kf;
    w->rs_top = 0;
    w->regs = w->rs;
    memcpy(w->regs + kf->off_const, kf->const_img, kf->frame_bytes - kf->off_const);
    fx_frame_clear(kf, w->regs, l->e->zero_frames);
    w->fp = 0;
    w->cc = 0;
    w->exited = 0;
    w->call_depth = 0;
    w->rec = NULL;
    w->rec_lean = false;
    w->bar_dest = FX_NONE;
    w->cbar_arrived = 0;
    w->depth = 1;
    w->stack[0] = (fx_sentry){kf->pf->first_insn, FX_NONE, w->valid, FX_SE_NORMAL, NULL, NULL, 0, 0, 0};
    /* fx_stack_load_top of that entry, whose lanes are counted already */
    w->pc = kf->pf->first_insn == FX_NONE ? l->p->m->n_insns : kf->pf->first_insn;
    w->active = w->valid;
    w->rpc = FX_NONE;
    w->nactive = w->valid == FX_FULL ? 32u : (uint32_t)simtvp_popcount32(w->valid);
    w->state = FUNC_WARP_READY;
    w->stop = false;
  }
  const func_debug_port *dbg = &l->e->ports.debug;
  if (dbg->cta) dbg->cta(dbg->ctx, c, true);
}

/* Coordinates of CTA `rank` of cluster `q` (both linear, x fastest). */
static void cluster_cta_coords(const func_launch *l, uint64_t q, uint32_t rank, uint32_t ctaid[3]) {
  uint64_t ncx = l->grid[0] / l->cluster[0], ncy = l->grid[1] / l->cluster[1];
  ctaid[0] = (uint32_t)(q % ncx) * l->cluster[0] + rank % l->cluster[0];
  ctaid[1] = (uint32_t)((q / ncx) % ncy) * l->cluster[1] + (rank / l->cluster[0]) % l->cluster[1];
  ctaid[2] = (uint32_t)(q / (ncx * ncy)) * l->cluster[2] + rank / (l->cluster[0] * l->cluster[1]);
}

/* The cluster (linear index) of a CTA and its rank in it. */
static uint64_t cluster_of(const func_launch *l, const uint32_t ctaid[3], uint32_t *rank) {
  uint64_t ncx = l->grid[0] / l->cluster[0], ncy = l->grid[1] / l->cluster[1];
  uint32_t r[3];
  for (int i = 0; i < 3; i++) r[i] = ctaid[i] % l->cluster[i];
  *rank = r[0] + l->cluster[0] * (r[1] + l->cluster[1] * r[2]);
  return ctaid[0] / l->cluster[0] + ncx * (ctaid[1] / l->cluster[1] + ncy * (ctaid[2] / l->cluster[2]));
}

static void cluster_reset(fx_cluster *k, const func_launch *l, uint64_t id) {
  memset(k, 0, sizeof *k);
  k->id = id;
  k->n = l->cluster_size;
  k->live_warps = l->cluster_size * l->warps_per_cta;
}

static uint64_t cta_linear(const func_launch *l, const uint32_t ctaid[3]) {
  return ctaid[0] + (uint64_t)l->grid[0] * (ctaid[1] + (uint64_t)l->grid[1] * ctaid[2]);
}

/* Per-warp mode: joins the CTA to its cluster (made when the first of its CTAs starts). */
static bool cluster_attach(func_launch *l, func_cta *c) {
  uint32_t rank;
  uint64_t q = cluster_of(l, c->ctaid, &rank);
  c->rank = rank;
  if (l->cluster_size == 1) {
    cluster_reset(&c->own, l, q);
    c->own.cta[0] = c;
    c->cluster = &c->own;
    return true;
  }
  fx_cluster *k = NULL;
  for (uint32_t i = 0; i < l->n_active && !k; i++)
    if (l->active[i]->id == q) k = l->active[i];
  if (!k) {
    if (l->n_active == l->cap_active) {
      uint32_t cap = l->cap_active ? 2 * l->cap_active : 8;
      fx_cluster **n = realloc(l->active, cap * sizeof *n);
      if (!n) return false;
      l->active = n;
      l->cap_active = cap;
    }
    if (!(k = malloc(sizeof *k))) return false;
    cluster_reset(k, l, q);
    l->active[l->n_active++] = k;
  }
  k->cta[rank] = c;
  k->attached++;
  c->cluster = k;
  return true;
}

static void cluster_detach(func_launch *l, func_cta *c) {
  fx_cluster *k = c->cluster;
  if (!k || k == &c->own) return;
  k->cta[c->rank] = NULL;
  if (++k->finished < k->n) return;
  for (uint32_t i = 0; i < l->n_active; i++)
    if (l->active[i] == k) {
      l->active[i] = l->active[--l->n_active];
      break;
    }
  free(k);
}

simtvp_status func_cta_start(func_launch *l, const uint32_t ctaid[3], uint32_t sm,
                             uint32_t first_warp_slot, func_cta **out, simtvp_diag *diag) {
  *out = NULL;
  if (ctaid[0] >= l->grid[0] || ctaid[1] >= l->grid[1] || ctaid[2] >= l->grid[2])
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "CTA (%u,%u,%u) is outside grid (%u,%u,%u)", ctaid[0],
                           ctaid[1], ctaid[2], l->grid[0], l->grid[1], l->grid[2]);
  /* A finished CTA of this launch is reused as it is: cta_init sets everything a CTA starts with
   * (like func_launch_run's pool); local memory keeps what the last CTA left there, as on hardware
   * (uninitialised), and costs no clearing per CTA. */
  func_cta *c;
  if (l->sm_counts) { /* sm_threads: each SM reuses its own, so which CTA comes back is the same
                         whatever thread ran the others (and needs no lock) */
    func_cta **list = &l->sm_free[sm % l->n_sm];
    c = *list;
    if (c) *list = c->next_free;
  } else {
    fx_lock(l);
    c = l->free_ctas;
    if (c) l->free_ctas = c->next_free;
    fx_unlock(l);
  }
  if (!c) c = cta_alloc(l);
  if (!c) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory for a CTA");
  if (l->sm_counts) { /* this SM's counters and translation cache (its host thread's alone) */
    fx_counts *sc = &l->sm_counts[sm % l->n_sm];
    if (l->counts.pc && !sc->pc && !(sc->pc = calloc((size_t)l->p->m->n_insns + 1, sizeof *sc->pc))) {
      cta_free(c);
      return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory for a CTA");
    }
    c->counts = sc;
    c->tlb = &l->sm_tlb[sm % l->n_sm];
    devmem_tlb_sync(c->tlb);
  }
  cta_init(c, ctaid, sm, first_warp_slot);
  bool attached;
  if (l->cluster_size == 1) { /* its own cluster: nothing shared */
    attached = cluster_attach(l, c);
  } else {
    fx_lock(l);
    attached = cluster_attach(l, c);
    fx_unlock(l);
  }
  if (!attached) {
    cta_free(c);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory for a cluster");
  }
  __atomic_fetch_add(&l->live_ctas, 1, __ATOMIC_RELAXED);
  *out = c;
  return SIMTVP_OK;
}

void func_cta_finish(func_cta *cta) {
  if (!cta) return;
  func_launch *l = cta->l;
  const func_debug_port *dbg = &l->e->ports.debug;
  if (dbg->cta) dbg->cta(dbg->ctx, cta, false);
  if (l->sm_counts) { /* counted per SM (flushed at kernel boundaries); kept for its SM's next CTA */
    if (cta->live == 0) cta->counts->ctas_done++;
    __atomic_fetch_sub(&l->live_ctas, 1, __ATOMIC_RELAXED);
    if (l->cluster_size > 1) {
      fx_lock(l);
      cluster_detach(l, cta);
      fx_unlock(l);
    }
    func_cta **list = &l->sm_free[cta->sm % l->n_sm];
    cta->next_free = *list;
    *list = cta;
    return;
  }
  if (cta->live == 0) l->counts.ctas_done++;
  l->live_ctas--;
  fx_flush_counts(l);
  fx_lock(l);
  cluster_detach(l, cta);
  cta->next_free = l->free_ctas;
  l->free_ctas = cta;
  fx_unlock(l);
}

uint32_t func_cta_warp_count(const func_cta *cta) { return cta->n_warps; }
func_warp *func_cta_warp(func_cta *cta, uint32_t index) {
  return index < cta->n_warps ? &cta->warps[index] : NULL;
}
bool func_cta_done(const func_cta *cta) { return cta->live == 0; }
func_warp_state func_warp_get_state(const func_warp *w) { return (func_warp_state)w->state; }
uint32_t func_warp_barrier(const func_warp *w) { return w->bar_id; }

void func_launch_allow_replay(func_launch *l, bool on) { l->replay_ok = on; }

void func_warp_replay_fault(const func_warp *w, uint64_t *va, uint8_t *access) {
  *va = w->replay_va;
  *access = w->replay_access;
}

void func_warp_replay_kind(const func_warp *w, uint8_t *kind) { *kind = w->replay_kind; }

uint32_t func_warp_replay_pages(const func_warp *w, uint64_t *va) {
  for (uint32_t i = 0; i < w->n_replay_pages; i++) va[i] = w->replay_pages[i] << DEVMEM_PAGE_BITS;
  return w->n_replay_pages;
}

void func_warp_set_time_ahead(func_warp *w, int64_t cycles, int64_t ns) {
  w->ahead_cycles = cycles;
  w->ahead_ns = ns;
}

void func_warp_retry(func_warp *w) {
  if (w->state == FUNC_WARP_FAULT_WAIT) w->state = FUNC_WARP_READY;
}

static void replay_page(fx_warp *w, uint64_t addr) {
  uint64_t page = addr >> DEVMEM_PAGE_BITS;
  for (uint32_t i = 0; i < w->n_replay_pages; i++)
    if (w->replay_pages[i] == page) return;
  if (w->n_replay_pages < 32) w->replay_pages[w->n_replay_pages++] = page;
}

bool fx_replay_wait(fx_warp *w, const fx_insn *in, uint64_t addr, bool write) {
  uint32_t f = w->tlb->fault;
  if (!w->l->replay_ok || (f != DEVMEM_FAULT_REPLAY_ABSENT && f != DEVMEM_FAULT_REPLAY_WRITE)) return false;
  if (w->state == FUNC_WARP_FAULT_WAIT) { /* another lane of the same instruction */
    replay_page(w, addr);
    return true;
  }
  if (!w->replay_pages && !(w->replay_pages = malloc(32 * sizeof *w->replay_pages))) return false;
  w->n_replay_pages = 0;
  replay_page(w, addr);
  uint32_t pc = (uint32_t)(in - w->code);
  bool atomic = in->cls == FX_C_MEM && (in->flags & 0x80);
  /* the step is undone: it runs again, whole, after the replay */
  w->counts->warp_insns--;
  w->counts->thread_insns -= w->nactive;
  if (w->counts->pc) {
    w->counts->pc[pc].warp_insns--;
    w->counts->pc[pc].thread_insns -= w->nactive;
  }
  w->pc = pc;
  w->stop = true;
  w->state = FUNC_WARP_FAULT_WAIT;
  w->replay_va = addr;
  w->replay_access = atomic ? 2 : write ? 1 : 0;
  w->replay_kind = (uint8_t)f;
  return true;
}

uint32_t func_cta_release_barrier(func_cta *cta, uint32_t id) {
  if (id >= FUNC_NUM_BARRIERS || !cta->bar[id].complete) return 0;
  uint32_t n = (uint32_t)simtvp_popcount32(cta->bar[id].waiting);
  fx_barrier_release(cta, id);
  return n;
}

uint32_t func_cta_release_barriers(func_cta *cta) {
  uint32_t n = 0;
  for (uint32_t id = 0; id < FUNC_NUM_BARRIERS; id++)
    if (cta->bar[id].complete) n += func_cta_release_barrier(cta, id);
  return n;
}

bool func_cta_barrier_waits(const func_cta *cta) {
  uint32_t any = 0; /* (one pass without branches: most CTAs have no warp waiting) */
  for (uint32_t id = 0; id < FUNC_NUM_BARRIERS; id++) any |= cta->bar[id].waiting;
  return any != 0;
}

/* ---- execution --------------------------------------------------------------------------------- */

/* The hot loop: executes up to `budget` warp instructions or until the warp stops (barrier wait,
 * exit of every thread, fault). Inlined into two callers: pc == NULL (no per-instruction counts,
 * the loop as it always was) and the counting one, so counting costs nothing when it is off. */
static inline __attribute__((always_inline)) void run_warp_body(fx_warp *w, uint32_t budget, func_pc_count *pc) {
  fx_counts *c = w->counts;
  w->stop = false;
  uint64_t n = 0, t = 0;
  while (budget--) {
    const fx_insn *in = &w->code[w->pc];
    uint32_t m = w->active & (*(const uint32_t *)(w->regs + in->guard) ^ in->gneg);
    n++;
    t += w->nactive;
    if (pc) {
      pc[w->pc].warp_insns++;
      pc[w->pc].thread_insns += w->nactive;
    }
    w->pc++;
    in->fn(w, in, m);
    if (w->pc == w->rpc) fx_stack_reconverge(w);
    if (w->stop) break;
  }
  c->warp_insns += n;
  c->thread_insns += t;
}

static void run_warp(fx_warp *w, uint32_t budget) { run_warp_body(w, budget, NULL); }
static void run_warp_counted(fx_warp *w, uint32_t budget) { run_warp_body(w, budget, w->counts->pc); }
/* With a debugger attached: the same instructions in the same order, each through
 * func_warp_step (which calls the debugger and counts), leaving where run_warp_body would. */
static void run_warp_debugged(fx_warp *w, uint32_t budget) {
  while (budget--) {
    func_step rec;
    if (func_warp_step(w, &rec, NULL) != SIMTVP_OK || w->stop) break;
  }
}

static void deadlock(func_cta *c) {
  func_launch *l = c->l;
  for (uint32_t wi = 0; wi < c->n_warps; wi++) {
    fx_warp *w = &c->warps[wi];
    if (w->state != FUNC_WARP_BARRIER) continue;
    const fx_barrier *b = &c->bar[w->bar_id];
    uint32_t lane = w->active ? (uint32_t)__builtin_ctz(w->active) : 0;
    const fx_insn *in = &l->p->code[w->pc - 1];
    uint32_t missing = c->live & ~b->arrived;
    fx_fault(w, in, lane, SIMTVP_ERR_DEADLOCK, false, 0,
             "barrier deadlock: warp %u waits at barrier %u (%u of %u threads arrived%s) but no "
             "other warp can proceed (%u live warps never arrive)",
             wi, w->bar_id, b->threads, b->expected ? b->expected : (uint32_t)simtvp_popcount32(c->live) * 32,
             b->expected ? "" : ", all live warps expected", (uint32_t)simtvp_popcount32(missing));
    return;
  }
}

/* Runs the CTAs of one cluster (one CTA without clusters) to completion, warps in turn. */
static simtvp_status run_cluster(func_cta **cs, uint32_t n) {
  func_launch *l = cs[0]->l;
  fx_counts *counts = cs[0]->counts;
  uint64_t limit = l->e->cfg.max_warp_insns;
  for (;;) {
    bool live = false, progress = false;
    for (uint32_t ci = 0; ci < n; ci++) {
      func_cta *c = cs[ci];
      if (!c->live) continue;
      live = true;
      for (uint32_t wi = 0; wi < c->n_warps; wi++) {
        fx_warp *w = &c->warps[wi];
        if (w->state != FUNC_WARP_READY) continue;
        progress = true;
        if (l->e->ports.debug.before)
          run_warp_debugged(w, FX_SLICE);
        else if (counts->pc)
          run_warp_counted(w, FX_SLICE);
        else
          run_warp(w, FX_SLICE);
        simtvp_status f = __atomic_load_n(&l->fault, __ATOMIC_ACQUIRE);
        if (f != SIMTVP_OK) return f;
      }
    }
    if (!live) break;
    if (!progress) {
      for (uint32_t ci = 0; ci < n; ci++)
        if (cs[ci]->live) {
          deadlock(cs[ci]);
          if (l->fault != SIMTVP_OK) break;
        }
      return l->fault;
    }
    if (limit && counts->warp_insns > limit) {
      /* The report names a ready warp where there is one, else a live one (every live warp may be
       * waiting at a barrier when the limit is crossed), so it is never empty. */
      fx_warp *w = NULL;
      for (uint32_t ci = 0; ci < n && !w; ci++)
        for (uint32_t wi = 0; wi < cs[ci]->n_warps && !w; wi++)
          if (cs[ci]->warps[wi].state == FUNC_WARP_READY) w = &cs[ci]->warps[wi];
      for (uint32_t ci = 0; ci < n && !w; ci++)
        for (uint32_t wi = 0; wi < cs[ci]->n_warps && !w; wi++)
          if (cs[ci]->live & (1u << wi)) w = &cs[ci]->warps[wi];
      if (!w) w = &cs[0]->warps[0];
      uint32_t pc = w->state == FUNC_WARP_BARRIER && w->pc ? w->pc - 1 : w->pc;
      if (l->fault == SIMTVP_OK)
        fx_fault(w, &l->p->code[pc], w->active ? (uint32_t)__builtin_ctz(w->active) : 0, SIMTVP_ERR_LIMIT,
                 false, 0, "instruction limit of %" PRIu64 " warp instructions exceeded", limit);
      return l->fault != SIMTVP_OK ? l->fault : SIMTVP_ERR_LIMIT;
    }
  }
  counts->ctas_done += n;
  return SIMTVP_OK;
}

/* Functional mode: sets up cluster q in the CTAs cs (cluster_size of them, sharing k) and runs it. */
static simtvp_status run_cluster_id(func_launch *l, func_cta **cs, fx_cluster *k, uint64_t q) {
  cluster_reset(k, l, q);
  for (uint32_t r = 0; r < l->cluster_size; r++) {
    uint32_t ctaid[3];
    cluster_cta_coords(l, q, r, ctaid);
    cta_init(cs[r], ctaid, (uint32_t)(cta_linear(l, ctaid) % l->e->cfg.n_sms), 0);
    cs[r]->cluster = k;
    cs[r]->rank = r;
    k->cta[r] = cs[r];
  }
  return run_cluster(cs, l->cluster_size);
}

/* A cluster's worth of CTAs (cluster_size), or NULL. */
static func_cta **cta_alloc_cluster(func_launch *l) {
  func_cta **cs = calloc(l->cluster_size, sizeof *cs);
  for (uint32_t i = 0; cs && i < l->cluster_size; i++)
    if (!(cs[i] = cta_alloc(l))) {
      for (uint32_t j = 0; j < i; j++) cta_free(cs[j]);
      free(cs);
      return NULL;
    }
  return cs;
}

/* A host thread of the opt-in parallel functional mode: takes clusters (CTAs without clusters)
 * from the launch's counter. */
typedef struct fx_worker {
  func_launch *l;
  func_cta **ctas;   /* a cluster's worth */
  fx_cluster cluster;
  fx_counts counts;
  devmem_tlb tlb;
  pthread_t thread;
} fx_worker;

static void *worker_main(void *arg) {
  fx_worker *wk = arg;
  func_launch *l = wk->l;
  while (__atomic_load_n(&l->fault, __ATOMIC_ACQUIRE) == SIMTVP_OK) {
    uint64_t id = __atomic_fetch_add(&l->next_cta, 1, __ATOMIC_RELAXED);
    if (id >= l->n_clusters) break;
    if (run_cluster_id(l, wk->ctas, &wk->cluster, id) != SIMTVP_OK) break;
  }
  return NULL;
}

static simtvp_status run_threads(func_launch *l, uint32_t n, simtvp_diag *diag) {
  pthread_mutex_t lock;
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&lock, &attr);
  pthread_mutexattr_destroy(&attr);
  fx_worker *wk = calloc(n, sizeof *wk);
  uint32_t started = 0;
  simtvp_status st = SIMTVP_OK;
  if (!wk) st = simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  l->lock = &lock;
  for (uint32_t i = 0; i < n && st == SIMTVP_OK; i++) {
    wk[i].l = l;
    wk[i].ctas = cta_alloc_cluster(l);
    if (!wk[i].ctas) {
      st = simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory for a CTA");
      break;
    }
    devmem_tlb_init_xlate(&wk[i].tlb, l->e->mem, l->xlate.page ? &l->xlate : NULL);
    if (l->counts.pc && !(wk[i].counts.pc = calloc((size_t)l->p->m->n_insns + 1, sizeof *wk[i].counts.pc))) {
      cta_free_cluster(l, wk[i].ctas);
      wk[i].ctas = NULL;
      st = simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
      break;
    }
    for (uint32_t r = 0; r < l->cluster_size; r++) {
      wk[i].ctas[r]->counts = &wk[i].counts;
      wk[i].ctas[r]->tlb = &wk[i].tlb;
    }
    if (pthread_create(&wk[i].thread, NULL, worker_main, &wk[i]) != 0) {
      cta_free_cluster(l, wk[i].ctas);
      wk[i].ctas = NULL;
      if (!started) st = simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "cannot start a host thread");
      break;
    }
    started++;
  }
  for (uint32_t i = 0; i < started; i++) pthread_join(wk[i].thread, NULL);
  l->lock = NULL;
  pthread_mutex_destroy(&lock);
  for (uint32_t i = 0; wk && i < n; i++) {
    fx_counts *c = &wk[i].counts;
    l->counts.warp_insns += c->warp_insns;
    l->counts.thread_insns += c->thread_insns;
    l->counts.ctas_done += c->ctas_done;
    for (int s = 0; s < PTX_SPACE_COUNT; s++) {
      l->counts.loads[s] += c->loads[s];
      l->counts.stores[s] += c->stores[s];
      l->counts.atomics[s] += c->atomics[s];
    }
    if (c->pc) {
      for (uint32_t j = 0; j <= l->p->m->n_insns; j++) {
        l->counts.pc[j].warp_insns += c->pc[j].warp_insns;
        l->counts.pc[j].thread_insns += c->pc[j].thread_insns;
      }
      free(c->pc);
    }
    cta_free_cluster(l, wk[i].ctas);
  }
  free(wk);
  return st != SIMTVP_OK ? st : l->fault;
}

simtvp_status func_launch_run(func_launch *l, simtvp_diag *diag) {
  if (l->fault != SIMTVP_OK) {
    if (diag) *diag = l->fault_diag;
    return l->fault;
  }
  l->auto_release = true;
  devmem_tlb_sync(&l->tlb);
  /* one host thread with a debugger attached (it is driven by one), or counted per SM */
  uint32_t threads = l->sm_counts || l->e->ports.debug.before ? 1 : l->e->cfg.threads;
  simtvp_status st = SIMTVP_OK;
  /* next_cta counts clusters here (a cluster of one CTA without clusters) */
  if (threads > 1 && l->n_clusters - l->next_cta > 1) {
    if (threads > l->n_clusters - l->next_cta) threads = (uint32_t)(l->n_clusters - l->next_cta);
    st = run_threads(l, threads, diag);
    fx_flush_counts(l);
    if (st != SIMTVP_OK && l->fault != SIMTVP_OK && diag) *diag = l->fault_diag;
    return st;
  }
  if (!l->pool) {
    if (!(l->pool = cta_alloc_cluster(l))) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory for a CTA");
    if (l->sm_counts) {
      for (uint32_t r = 0; r < l->cluster_size; r++) {
        l->pool[r]->counts = &l->sm_counts[0];
        l->pool[r]->tlb = &l->sm_tlb[0];
      }
      if (l->counts.pc && !l->sm_counts[0].pc &&
          !(l->sm_counts[0].pc = calloc((size_t)l->p->m->n_insns + 1, sizeof *l->sm_counts[0].pc)))
        return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
    }
  }
  while (l->next_cta < l->n_clusters) {
    st = run_cluster_id(l, l->pool, &l->pool_cluster, l->next_cta++);
    if (l->e->ports.debug.cta)
      for (uint32_t r = 0; r < l->cluster_size; r++) l->e->ports.debug.cta(l->e->ports.debug.ctx, l->pool[r], false);
    if (st != SIMTVP_OK) break;
  }
  fx_flush_counts(l);
  if (st != SIMTVP_OK && diag) *diag = l->fault_diag;
  return st;
}

bool func_warp_peek(const func_warp *w, func_peek *out) {
  if (w->state != FUNC_WARP_READY) return false;
  out->pc = w->pc;
  out->insn = &w->l->p->m->insns[w->pc];
  out->active = w->active;
  out->fetch_addr = w->l->p->pl.code_base + (uint64_t)w->pc * FUNC_INSN_BYTES;
  out->kind = w->code[w->pc].cls;
  return true;
}

uint32_t func_warp_pc(const func_warp *w) { return w->pc; }
uint32_t func_warp_active(const func_warp *w) { return w->active; }

/* The step record's fields before the instruction runs (handlers fill the rest). */
static inline void step_rec_begin(func_step *rec, const fx_warp *w, const fx_insn *in, uint32_t m) {
  rec->pc = w->pc;
  rec->insn = in->src;
  rec->kind = in->cls;
  rec->active = w->active;
  rec->exec = m;
  rec->diverged = false;
  rec->space = PTX_SPACE_NONE;
  rec->is_load = rec->is_store = rec->is_atomic = false;
  rec->access_bytes = 0;
  rec->mem_mask = 0;
  rec->addr_halves = 0;
  rec->barrier_id = 0;
  rec->barrier_wait = rec->barrier_complete = false;
  rec->warp_done = false;
  rec->yield = false;
}
static inline void step_rec_end(func_step *rec, const fx_warp *w) {
  rec->next_pc = w->pc;
  rec->next_active = w->active;
  rec->warp_done = w->state == FUNC_WARP_DONE;
  if (w->state == FUNC_WARP_FAULT_WAIT) rec->kind = FUNC_STEP_NOP; /* nothing was done */
  rec->yield = w->state == FUNC_WARP_READY && w->stop;
}

/* Executes the instruction at w->pc (warp READY, no fault, translation cache in sync). */
static inline __attribute__((always_inline)) void step_exec(fx_warp *w, func_step *rec) {
  const fx_insn *in = &w->code[w->pc];
  uint32_t m = w->active & (*(const uint32_t *)(w->regs + in->guard) ^ in->gneg);
  if (rec) step_rec_begin(rec, w, in, m);
  w->rec = rec;
  w->stop = false;
  fx_counts *c = w->counts;
  c->thread_insns += w->nactive; /* (the warp count in another basic block: func_warp_step_plain) */
  if (c->pc) {
    c->pc[w->pc].warp_insns++;
    c->pc[w->pc].thread_insns += w->nactive;
  }
  c->warp_insns++;
  w->pc++;
  in->fn(w, in, m);
  if (w->state == FUNC_WARP_READY || w->state == FUNC_WARP_BARRIER)
    if (w->pc == w->rpc) fx_stack_reconverge(w);
  if (rec) {
    w->rec = NULL;
    step_rec_end(rec, w);
  }
}

/* func_warp_step with a debugger attached: it sees the warp before and the record after. */
static __attribute__((noinline)) void step_debugged(fx_warp *w, func_step *rec, const func_debug_port *dbg) {
  func_step own;
  if (dbg->before) {
    dbg->before(dbg->ctx, w); /* may stop here for as long as its user likes */
    if (!rec) rec = &own;     /* the debugger sees what the instruction did */
  }
  devmem_tlb_sync(w->tlb);
  step_exec(w, rec);
  if (dbg->after) dbg->after(dbg->ctx, w, rec);
}

static __attribute__((noinline)) simtvp_status step_fault(const func_launch *l, simtvp_diag *diag) {
  if (diag) *diag = l->fault_diag;
  return l->fault;
}

static __attribute__((noinline)) simtvp_status step_refused(const fx_warp *w, simtvp_diag *diag) {
  const func_launch *l = w->l;
  if (w->state != FUNC_WARP_READY)
    return simtvp_diag_set(diag, SIMTVP_ERR_STATE, "func_warp_step: warp %u is not ready (state %u)",
                           w->index, w->state);
  return step_fault(l, diag);
}

/* func_warp_step's rarer cases: not ready, a fault, a debugger. */
static __attribute__((noinline)) simtvp_status step_slow(fx_warp *w, func_step *rec, simtvp_diag *diag) {
  func_launch *l = w->l;
  if (w->state != FUNC_WARP_READY || l->fault != SIMTVP_OK) return step_refused(w, diag);
  step_debugged(w, rec, &l->e->ports.debug);
  if (l->fault != SIMTVP_OK) return step_fault(l, diag);
  return SIMTVP_OK;
}

/* func_warp_step's two common cases, each its own function (reached by a tail call, so each saves
 * only the registers it needs): with a record, and without (AT's fast-forward, the interval
 * core's register-only instructions). Register-only instructions and shared/local/param accesses
 * read no device memory: the translation cache need not be in sync for them. */
static __attribute__((noinline)) simtvp_status step_rec(fx_warp *w, func_step *rec, simtvp_diag *diag) {
  if (!rec) __builtin_unreachable(); /* (the callers pass one) */
  if (!w->code[w->pc].nosync) devmem_tlb_sync(w->tlb);
  step_exec(w, rec);
  if (__builtin_expect(w->l->fault != SIMTVP_OK, 0)) return step_fault(w->l, diag);
  return SIMTVP_OK;
}
static __attribute__((noinline)) simtvp_status step_norec(fx_warp *w, simtvp_diag *diag) {
  if (!w->code[w->pc].nosync) devmem_tlb_sync(w->tlb);
  step_exec(w, NULL);
  if (__builtin_expect(w->l->fault != SIMTVP_OK, 0)) return step_fault(w->l, diag);
  return SIMTVP_OK;
}

simtvp_status func_warp_step(func_warp *w, func_step *rec, simtvp_diag *diag) {
  const func_launch *l = w->l;
  if (__builtin_expect(w->state != FUNC_WARP_READY || l->fault != SIMTVP_OK || l->debug_step, 0))
    return step_slow(w, rec, diag);
  return rec ? step_rec(w, rec, diag) : step_norec(w, diag);
}

/* func_warp_step_lean's usual case: step_rec with the lean flag on (the debugger's and the rarer
 * cases record in full, which is a valid lean record too). */
static __attribute__((noinline)) simtvp_status step_rec_lean(fx_warp *w, func_step *rec, simtvp_diag *diag) {
  if (!rec) __builtin_unreachable(); /* (the callers pass one) */
  if (!w->code[w->pc].nosync) devmem_tlb_sync(w->tlb);
  w->rec_lean = true;
  step_exec(w, rec);
  w->rec_lean = false;
  if (__builtin_expect(w->l->fault != SIMTVP_OK, 0)) return step_fault(w->l, diag);
  return SIMTVP_OK;
}

simtvp_status func_warp_step_lean(func_warp *w, func_step *rec, simtvp_diag *diag) {
  const func_launch *l = w->l;
  if (__builtin_expect(w->state != FUNC_WARP_READY || l->fault != SIMTVP_OK || l->debug_step || !rec, 0))
    return step_slow(w, rec, diag);
  return step_rec_lean(w, rec, diag);
}

/* func_warp_step_plain after a step that stopped the warp or reached its reconvergence point. A
 * fault during the step is this warp's (fx_fault sets its stop flag); another host thread's is
 * seen by the next step's entry check. */
static __attribute__((noinline)) void plain_after(fx_warp *w, simtvp_status *st, simtvp_diag *diag) {
  if (w->pc == w->rpc && (w->state == FUNC_WARP_READY || w->state == FUNC_WARP_BARRIER)) fx_stack_reconverge(w);
  if (w->l->fault != SIMTVP_OK) *st = step_fault(w->l, diag);
}

uint32_t func_warp_step_plain(func_warp *w, uint32_t *active, simtvp_status *st, simtvp_diag *diag) {
  const func_launch *l = w->l;
  const fx_insn *in = &w->code[w->pc];
  *active = w->active;
  if (__builtin_expect(w->state != FUNC_WARP_READY || l->fault != SIMTVP_OK || l->debug_step || !in->plain, 0)) {
    *st = func_warp_step(w, NULL, diag);
    return w->pc;
  }
  /* step_exec without a record for an instruction that is register-only (nosync); calling
   * step_exec(w, NULL) here measured 578 -> 581 host instructions per warp instruction on QV100
   * SGEMM interval (callgrind), so the hot path keeps its own copy. The launch is not kept across
   * the handler's call (plain_after reloads it): one callee-saved register fewer, and no stack
   * adjustment (QV100 vector add interval: 59 -> ~50 host instructions per call). */
  uint32_t m = w->active & (*(const uint32_t *)(w->regs + in->guard) ^ in->gneg);
  fx_counts *c = w->counts;
  /* the thread count and the warp count in different basic blocks: side by side, GCC pairs the
   * two additions into SSE2 operations (9 host instructions instead of 4) */
  c->thread_insns += w->nactive;
  if (c->pc) {
    c->pc[w->pc].warp_insns++;
    c->pc[w->pc].thread_insns += w->nactive;
  }
  c->warp_insns++;
  w->stop = false; /* (w->rec is NULL between steps) */
  w->pc++;
  *st = SIMTVP_OK;
  in->fn(w, in, m);
  if (__builtin_expect(w->pc == w->rpc || w->stop, 0)) plain_after(w, st, diag);
  return w->pc;
}

/* The facts of a step record func_warp_run reports. */
static inline void run_end_from(func_run_end *end, const func_step *rec) {
  end->pc = rec->pc;
  end->insn = rec->insn;
  end->kind = rec->kind;
  end->barrier_id = rec->barrier_id;
  end->barrier_wait = rec->barrier_wait;
  end->barrier_complete = rec->barrier_complete;
  end->warp_done = rec->warp_done;
  end->yield = rec->yield;
}

/* One step with a record, out of func_warp_run's loop. */
static __attribute__((noinline)) void step_recorded(fx_warp *w, func_step *rec) {
  devmem_tlb_sync(w->tlb);
  step_exec(w, rec);
}

/* func_warp_run's loop (after its entry checks), inlined into two callers as run_warp_body is:
 * pcc == NULL (no per-instruction counts) and the counting one. */
static inline __attribute__((always_inline)) simtvp_status warp_run_body(fx_warp *w, uint32_t max, uint32_t *n_out,
                                                                         func_run_end *end, simtvp_diag *diag,
                                                                         func_pc_count *pcc) {
  func_launch *l = w->l;
  uint32_t n = 0;
  func_step rec;
  fx_counts *c = w->counts;
  const fx_insn *code = w->code, *in = NULL;
  /* Warp instructions run here count as n - base, added to the counter before an instruction
   * that reads it (a %clock read: step_exec counts an instruction before it runs) and at the end;
   * the rest only add to it (a replayable wait takes its step back). */
  uint32_t base = 0;
  w->rec = NULL;
  w->stop = false;
  while (n < max) {
    uint32_t pc = w->pc;
    in = &code[pc];
    n++;
    if (__builtin_expect(in->run != 0, 0)) { /* (one byte for what !plain, nosync and clock say) */
      if (in->run & FX_RUN_RECORD) {
        /* with a record: a barrier ends the run with its facts; a ret's record says whether it
         * was the kernel's (its threads' exit); step_exec counts it */
        c->warp_insns += n - 1 - base;
        base = n;
        step_recorded(w, &rec);
        if (in->cls == FX_C_BAR || w->stop || n == max) {
          run_end_from(end, &rec);
          in = NULL;
          break;
        }
        continue;
      }
      if (in->run & FX_RUN_SYNC) devmem_tlb_sync(w->tlb);
      if (in->run & FX_RUN_CLOCK) {
        c->warp_insns += n - base;
        base = n;
      }
    }
    c->thread_insns += w->nactive;
    if (pcc) {
      pcc[pc].warp_insns++;
      pcc[pc].thread_insns += w->nactive;
    }
    uint32_t m = w->active & (*(const uint32_t *)(w->regs + in->guard) ^ in->gneg);
    w->pc = pc + 1;
    in->fn(w, in, m);
    if (w->pc == w->rpc && (w->state == FUNC_WARP_READY || w->state == FUNC_WARP_BARRIER))
      fx_stack_reconverge(w);
    if (w->stop) break;
  }
  c->warp_insns += n - base;
  if (in) {
    end->pc = (uint32_t)(in - code);
    end->insn = in->src;
    end->kind = w->state == FUNC_WARP_FAULT_WAIT ? FUNC_STEP_NOP : in->cls; /* as the record's */
    end->warp_done = w->state == FUNC_WARP_DONE;
    end->yield = w->state == FUNC_WARP_READY && w->stop;
  }
  *n_out = n;
  if (l->fault != SIMTVP_OK) return step_fault(l, diag);
  return SIMTVP_OK;
}
static __attribute__((noinline)) simtvp_status warp_run(fx_warp *w, uint32_t max, uint32_t *n_out, func_run_end *end,
                                                        simtvp_diag *diag) {
  return warp_run_body(w, max, n_out, end, diag, NULL);
}
static __attribute__((noinline)) simtvp_status warp_run_counted(fx_warp *w, uint32_t max, uint32_t *n_out,
                                                                func_run_end *end, simtvp_diag *diag) {
  return warp_run_body(w, max, n_out, end, diag, w->counts->pc);
}

/* A warp's run until something its scheduler must see: step_exec without records, except for
 * barrier instructions (which end the run with their record's facts). */
simtvp_status func_warp_run(func_warp *w, uint32_t max, uint32_t *n_out, func_run_end *end, simtvp_diag *diag) {
  func_launch *l = w->l;
  *n_out = 0;
  memset(end, 0, sizeof *end);
  if (w->state != FUNC_WARP_READY || l->fault != SIMTVP_OK) return step_refused(w, diag);
  if (__builtin_expect(l->debug_step, 0)) { /* each through the debugger, with a record */
    uint32_t n = 0;
    simtvp_status st = SIMTVP_OK;
    func_step rec;
    while (n < max) {
      n++;
      st = func_warp_step(w, &rec, diag);
      run_end_from(end, &rec);
      if (st != SIMTVP_OK || rec.kind == FUNC_STEP_BARRIER || rec.warp_done || rec.yield ||
          w->state == FUNC_WARP_FAULT_WAIT)
        break;
    }
    *n_out = n;
    return st;
  }
  return w->counts->pc ? warp_run_counted(w, max, n_out, end, diag) : warp_run(w, max, n_out, end, diag);
}

/* A straight run of register-only instructions: run_warp_body's loop without the step record,
 * stopping before the first instruction that is not plain, after one that faults or yields, and
 * where the warp reconverges (its next pc is then not the next instruction). */
uint32_t func_warp_run_plain(func_warp *w, uint32_t max, simtvp_diag *diag) {
  func_launch *l = w->l;
  if (w->state != FUNC_WARP_READY || l->fault != SIMTVP_OK) {
    step_refused(w, diag);
    return 0;
  }
  const fx_insn *code = w->code;
  uint32_t n = 0;
  if (l->e->ports.debug.before || l->e->ports.debug.after) { /* each through the debugger */
    while (n < max && code[w->pc].plain) {
      uint32_t next = w->pc + 1;
      n++;
      if (func_warp_step(w, NULL, diag) != SIMTVP_OK || w->stop || w->pc != next) break;
    }
    return n;
  }
  fx_counts *c = w->counts;
  func_pc_count *pc = c->pc;
  uint64_t t = 0;
  w->rec = NULL;
  w->stop = false;
  while (n < max) {
    const fx_insn *in = &code[w->pc];
    if (!in->plain) break;
    uint32_t m = w->active & (*(const uint32_t *)(w->regs + in->guard) ^ in->gneg);
    n++;
    t += w->nactive;
    if (pc) {
      pc[w->pc].warp_insns++;
      pc[w->pc].thread_insns += w->nactive;
    }
    w->pc++;
    in->fn(w, in, m);
    if (w->pc == w->rpc) { /* as step_exec: a faulted warp's stack stays as it was */
      if (w->state == FUNC_WARP_READY || w->state == FUNC_WARP_BARRIER) fx_stack_reconverge(w);
      break;
    }
    if (w->stop) break;
  }
  c->warp_insns += n;
  c->thread_insns += t;
  if (l->fault != SIMTVP_OK) step_fault(l, diag);
  return n;
}

bool func_program_insn_plain(const func_program *p, uint32_t pc) {
  return p && pc < p->m->n_insns && p->code[pc].plain;
}

uint32_t func_program_plain_run(const func_program *p, uint32_t pc) {
  return p && pc < p->m->n_insns ? p->plain_run[pc] : 0;
}

/* ---- inspection -------------------------------------------------------------------------------- */

func_engine *func_launch_engine(const func_launch *l) { return l->e; }
const func_program *func_launch_program(const func_launch *l) { return l->p; }

void func_launch_get_params(const func_launch *l, func_launch_params *out) {
  memset(out, 0, sizeof *out);
  out->kernel = l->kf->index;
  memcpy(out->grid, l->grid, sizeof out->grid);
  memcpy(out->block, l->block, sizeof out->block);
  out->dynamic_smem = l->dynamic_smem;
  out->params = l->params;
  out->param_bytes = l->param_bytes;
  out->grid_id = l->grid_id;
  out->launch_uid = l->launch_uid;
}

simtvp_status func_launch_fault(const func_launch *l, simtvp_diag *diag) {
  simtvp_status st = __atomic_load_n(&l->fault, __ATOMIC_ACQUIRE);
  if (diag) {
    if (st != SIMTVP_OK) *diag = l->fault_diag;
    else simtvp_diag_clear(diag);
  }
  return st;
}

func_launch *func_cta_launch(const func_cta *cta) { return cta->l; }

void func_cta_place(const func_cta *cta, uint32_t ctaid[3], uint32_t *sm, uint32_t *first_warp_slot) {
  if (ctaid) memcpy(ctaid, cta->ctaid, sizeof cta->ctaid);
  if (sm) *sm = cta->sm;
  if (first_warp_slot) *first_warp_slot = cta->warp_slot;
}

bool func_cta_read_shared(const func_cta *cta, uint64_t off, void *dst, uint64_t n) {
  if (off > cta->smem_bytes || n > cta->smem_bytes - off) return false;
  memcpy(dst, cta->smem + off, n);
  return true;
}

func_cta *func_warp_cta(const func_warp *w) { return w->cta; }

void func_warp_get_info(const func_warp *w, func_warp_info *out) {
  memset(out, 0, sizeof *out);
  out->index = w->index;
  out->state = w->state;
  out->pc = w->pc;
  out->active = w->active;
  out->valid = w->valid;
  out->exited = w->exited;
  out->barrier = w->bar_id;
  out->function = w->fn->index;
  out->stack_depth = w->depth;
  out->call_depth = w->call_depth;
}

void func_warp_thread(const func_warp *w, uint32_t lane, uint32_t tid[3]) {
  lane &= 31u;
  for (int d = 0; d < 3; d++) tid[d] = w->tid[d][lane];
}

bool func_warp_stack_entry(const func_warp *w, uint32_t i, func_stack_entry *out) {
  if (i >= w->depth) return false;
  const fx_sentry *e = &w->stack[i];
  /* the top entry's pc lives in the warp until something pushes over it */
  out->pc = i + 1 == w->depth ? w->pc : e->pc;
  out->rpc = e->rpc == FX_NONE ? UINT32_MAX : e->rpc;
  out->mask = e->mask;
  out->call = e->kind == FX_SE_CALL;
  out->call_pc = out->call && e->call ? (uint32_t)(e->call - w->l->p->code) : 0;
  return true;
}

bool func_warp_read_reg(const func_warp *w, uint32_t rclass, uint32_t index, uint32_t lane, uint64_t value[2]) {
  const fx_func *f = w->fn;
  if (rclass >= PTX_RC_COUNT || lane >= 32 || index >= f->pf->n_regs[rclass]) return false;
  value[0] = value[1] = 0;
  const uint8_t *row = w->regs + fx_reg_off(f, rclass, index); /* (a debugger's frames share no rows) */
  switch (rclass) {
  case PTX_RC_PRED: value[0] = (*(const uint32_t *)row >> lane) & 1u; break;
  case PTX_RC_B32: value[0] = ((const uint32_t *)row)[lane]; break;
  case PTX_RC_B64: value[0] = ((const uint64_t *)row)[lane]; break;
  default: memcpy(value, row + 16u * lane, 16); break;
  }
  return true;
}

bool func_warp_read_local(const func_warp *w, uint32_t lane, uint64_t off, void *dst, uint64_t n) {
  if (lane >= 32 || off > w->local_stride || n > w->local_stride - off) return false;
  memcpy(dst, fx_lane_local(w, lane) + off, n);
  return true;
}
