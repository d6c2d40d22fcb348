/* exec_ctrl — control flow (PTX ISA 9.7.12): bra, brx.idx, exit, trap, brkpt, nanosleep, pmevent.
 *
 * A divergent branch turns the top SIMT-stack entry into the reconvergence entry (its pc becomes
 * the branch's immediate post-dominator, ptx_insn.reconverge) and pushes one entry per path with
 * that reconvergence pc; the not-taken path is pushed last and so runs first. A path whose first
 * pc is the reconvergence pc itself is not pushed. Calls and returns live in exec_call.c. */
#include "func_internal.h"

#define H(name) static void name(fx_warp *w, const fx_insn *in, uint32_t m)

H(bra_h) {
  uint32_t nt = w->active & ~m;
  if (!m) return;              /* nobody takes it: fall through */
  if (!nt) {                   /* uniform */
    w->pc = in->aux;
    return;
  }
  uint32_t rpc = in->aux2, fall = w->pc;
  fx_sentry *top = &w->stack[w->depth - 1];
  top->pc = rpc;
  if (in->aux != rpc && !fx_stack_push(w, (fx_sentry){in->aux, rpc, m, FX_SE_NORMAL, NULL, NULL, 0, 0, 0})) return;
  if (fall != rpc && !fx_stack_push(w, (fx_sentry){fall, rpc, nt, FX_SE_NORMAL, NULL, NULL, 0, 0, 0})) return;
  if (w->rec) w->rec->diverged = true;
  fx_stack_load_top(w);
}

/* brx.idx a, targets: per-lane index into the target list */
typedef struct fx_brx {
  uint32_t n;
  uint32_t *target;
} fx_brx;

H(brx_h) {
  const fx_brx *t = in->ext;
  const uint32_t *idx = FX_R32(w, in->o[1]);
  uint32_t nt = w->active & ~m;
  if (!m) return;
  FX_FOR_LANES(i, m) if (idx[i] >= t->n) {
    fx_fault(w, in, i, SIMTVP_ERR_FAULT, false, 0, "brx.idx index %u is outside its %u targets", idx[i], t->n);
    return;
  }
  uint32_t first = (uint32_t)__builtin_ctz(m), t0 = t->target[idx[first]], same = 0;
  FX_FOR_LANES(i, m) if (t->target[idx[i]] == t0) same |= 1u << i;
  if (same == m && !nt) {
    w->pc = t0;
    return;
  }
  uint32_t rpc = in->aux2, fall = w->pc;
  w->stack[w->depth - 1].pc = rpc;
  /* one entry per distinct target, the lowest lane's target on top */
  uint32_t left = m, groups[32], gtarget[32], ng = 0;
  while (left) {
    uint32_t l0 = (uint32_t)__builtin_ctz(left), tg = t->target[idx[l0]], g = 0;
    FX_FOR_LANES(i, left) if (t->target[idx[i]] == tg) g |= 1u << i;
    groups[ng] = g;
    gtarget[ng++] = tg;
    left &= ~g;
  }
  if (nt && fall != rpc && !fx_stack_push(w, (fx_sentry){fall, rpc, nt, FX_SE_NORMAL, NULL, NULL, 0, 0, 0})) return;
  for (uint32_t k = ng; k-- > 0;)
    if (gtarget[k] != rpc && !fx_stack_push(w, (fx_sentry){gtarget[k], rpc, groups[k], FX_SE_NORMAL, NULL, NULL, 0, 0, 0}))
      return;
  if (w->rec) w->rec->diverged = true;
  fx_stack_load_top(w);
}

H(exit_h) {
  (void)in;
  if (m) fx_warp_exit_lanes(w, m);
}

H(trap_h) {
  if (!m) return;
  fx_fault(w, in, (uint32_t)__builtin_ctz(m), SIMTVP_ERR_TRAP, false, 0, "trap instruction executed");
}

H(nop_h) { (void)w, (void)in, (void)m; }

static uint32_t reconv(const fx_build *b) {
  return b->pi->reconverge == PTX_NONE ? FX_NONE : b->pi->reconverge;
}

static simtvp_status build_bra(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  in->cls = FX_C_BRANCH;
  if (pi->nops < 1 || pi->ops[0].kind != PTX_OPND_LABEL) return fx_unsupported(b, "bra needs a label");
  in->aux = pi->ops[0].index;
  in->aux2 = reconv(b);
  if (in->aux >= b->p->m->n_insns) return fx_unsupported(b, "branch target outside the program");
  in->fn = bra_h;
  return SIMTVP_OK;
}

static simtvp_status build_brx(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  in->cls = FX_C_BRANCH;
  if (pi->nops < 2 || pi->ops[1].kind != PTX_OPND_LIST) return fx_unsupported(b, "brx.idx needs a target list");
  simtvp_status st = fx_src(b, 0, PTX_TYPE_U32, &in->o[1]);
  if (st != SIMTVP_OK) return st;
  fx_brx *t = fx_alloc(b->p, sizeof *t);
  uint32_t n = pi->ops[1].count;
  if (!t || !(t->target = fx_alloc(b->p, (n ? n : 1) * sizeof *t->target)))
    return simtvp_diag_set(b->diag, SIMTVP_ERR_NOMEM, "out of host memory");
  const ptx_operand *el = fx_vec_elems(b, &pi->ops[1]);
  for (uint32_t k = 0; k < n; k++) {
    if (el[k].kind != PTX_OPND_LABEL) return fx_unsupported(b, "brx.idx target is not a label");
    t->target[k] = el[k].index;
  }
  t->n = n;
  in->ext = t;
  in->aux2 = reconv(b);
  in->fn = brx_h;
  return SIMTVP_OK;
}

static simtvp_status build_exit(fx_build *b) {
  b->out->cls = FX_C_EXIT;
  b->out->fn = exit_h;
  return SIMTVP_OK;
}

static simtvp_status build_trap(fx_build *b) {
  b->out->cls = FX_C_EXIT;
  b->out->fn = trap_h;
  return SIMTVP_OK;
}

static simtvp_status build_nop(fx_build *b) {
  b->out->cls = FX_C_NOP;
  b->out->fn = nop_h;
  return SIMTVP_OK;
}

/* setmaxnreg.{inc,dec}.sync.aligned.u32 N: moves registers between the warpgroups of a CTA; the
 * engine has every register a function declares, so only the operand is checked (PTX ISA: N in
 * 24 .. 256, a multiple of 8). */
static simtvp_status build_setmaxnreg(fx_build *b) {
  const ptx_insn *pi = b->pi;
  if (pi->nops < 1 || pi->ops[0].kind != PTX_OPND_IMM || pi->ops[0].value < 24 || pi->ops[0].value > 256 ||
      pi->ops[0].value % 8)
    return fx_unsupported(b, "setmaxnreg takes a constant register count from 24 to 256, a multiple of 8");
  return build_nop(b);
}

/* createpolicy d, …: an L2 cache policy for .L2::cache_hint operands, which change no value: the
 * policy is 0 (caches are the timing models' business). */
H(policy_h) {
  uint64_t *d = FX_R64(w, in->o[0]);
  FX_FOR_LANES(i, m) d[i] = 0;
}
static simtvp_status build_createpolicy(fx_build *b) {
  b->out->fn = policy_h;
  if (b->pi->nops < 1 || b->pi->ops[0].kind != PTX_OPND_REG || b->pi->ops[0].rclass != PTX_RC_B64)
    return fx_unsupported(b, "createpolicy writes a 64-bit register");
  return fx_dst(b, 0, &b->out->o[0]);
}

void fx_register_ctrl(fx_builder *t) {
  t[PTX_OP_SETMAXNREG] = build_setmaxnreg;
  t[PTX_OP_CREATEPOLICY] = build_createpolicy;
  t[PTX_OP_DISCARD] = build_nop;       /* L2 hints: the data stays what it is */
  t[PTX_OP_APPLYPRIORITY] = build_nop;
  t[PTX_OP_BRA] = build_bra;
  t[PTX_OP_BRX] = build_brx;
  t[PTX_OP_EXIT] = build_exit;
  t[PTX_OP_TRAP] = build_trap;
  t[PTX_OP_BRKPT] = build_nop;     /* no debugger attached: continue */
  t[PTX_OP_NANOSLEEP] = build_nop; /* time is the timing model's business */
  t[PTX_OP_PMEVENT] = build_nop;
  t[PTX_OP_GRIDDEPCONTROL] = build_nop;
}
