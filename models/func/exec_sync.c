/* exec_sync — CTA barriers and fences (PTX ISA 9.7.12.x): bar{.cta}.sync / barrier{.cta}.sync
 * (.aligned), bar.arrive / barrier.arrive, bar.red.{popc,and,or}, bar.warp.sync, membar, fence.
 *
 * Barriers 0-15 per CTA count arriving warps (a warp counts as 32 threads toward a thread count,
 * as the hardware counts warps). Without a thread count a barrier completes when every warp of the
 * CTA that has not exited has arrived; with one, when that many threads have arrived. Warps that
 * wait are released together: at once in functional mode, when the timing model calls
 * func_cta_release_barrier in per-warp mode. Fences need nothing: accesses take effect at once. */
#include "simtvp_bits.h"
#include "func_internal.h"

#define H(name) static void name(fx_warp *w, const fx_insn *in, uint32_t m)

enum { BAR_COUNT = 1, BAR_RED_NEG = 2 };

H(bar_h) {
  if (!m) return;
  func_cta *cta = w->cta;
  uint32_t first = (uint32_t)__builtin_ctz(m);
  uint32_t id = FX_R32(w, in->o[1])[first];
  if (id >= FUNC_NUM_BARRIERS) {
    fx_fault(w, in, first, SIMTVP_ERR_FAULT, false, 0, "barrier id %u is outside 0..%u", id, FUNC_NUM_BARRIERS - 1);
    return;
  }
  uint32_t count = (in->flags & BAR_COUNT) ? FX_R32(w, in->o[2])[first] : 0;
  if (count > cta->n_warps * 32u) {
    fx_fault(w, in, first, SIMTVP_ERR_FAULT, false, 0,
             "barrier %u expects %u threads but the CTA has only %u warps", id, count, cta->n_warps);
    return;
  }
  fx_barrier *b = &cta->bar[id];
  uint32_t bit = 1u << w->index;
  if (!b->arrived) { /* first arrival of a phase */
    b->red_popc = 0;
    b->red_and = true;
    b->red_or = false;
  }
  if (!(b->arrived & bit)) {
    b->arrived |= bit;
    b->threads += 32;
  }
  if (count) b->expected = count;
  uint32_t mode = in->aux;
  if (mode >= PTX_BAR_RED_POPC && mode <= PTX_BAR_RED_OR) {
    uint32_t p = (*FX_P(w, in->o[3]) ^ in->aux2) & m;
    b->red_popc += (uint32_t)simtvp_popcount32(p);
    b->red_and = b->red_and && p == m;
    b->red_or = b->red_or || p != 0;
  }
  bool wait = mode != PTX_BAR_ARRIVE;
  if (wait) {
    w->state = FUNC_WARP_BARRIER;
    w->bar_id = id;
    w->stop = true;
    w->bar_dest = (mode >= PTX_BAR_RED_POPC && mode <= PTX_BAR_RED_OR) ? in->o[0] : FX_NONE;
    w->bar_red = (uint8_t)mode;
    w->bar_mask = m;
    b->waiting |= bit;
  }
  bool done = fx_barrier_check(cta, id);
  if (w->rec) {
    w->rec->barrier_id = (uint8_t)id;
    w->rec->barrier_wait = wait && w->state == FUNC_WARP_BARRIER;
    w->rec->barrier_complete = done;
  }
}

H(fence_h) { (void)w, (void)in, (void)m; }

/* barrier.cluster.arrive: the warp arrives in the current phase of its cluster's barrier. */
H(cluster_arrive_h) {
  (void)in;
  if (!m) return;
  fx_cluster_arrive(w);
}

/* barrier.cluster.wait: until the phase the warp arrived in has completed, the warp polls — it
 * stays at this instruction and ends its turn (functional mode runs the others; a timing model
 * sees the instruction issue again), so the cluster's CTAs on other SIMT cores need no release
 * from this core. */
H(cluster_wait_h) {
  if (!m) return;
  if (!w->cbar_arrived) {
    fx_fault(w, in, (uint32_t)__builtin_ctz(m), SIMTVP_ERR_FAULT, false, 0,
             "barrier.cluster.wait without an earlier barrier.cluster.arrive of this warp");
    return;
  }
  if (fx_cluster_wait_done(w)) return;
  w->pc--; /* again */
  w->stop = true;
}

static simtvp_status build_bar(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  in->cls = FX_C_BAR;
  uint32_t mode = pi->sub_op ? pi->sub_op : PTX_BAR_SYNC;
  if (pi->scope == PTX_SCOPE_CLUSTER) { /* barrier.cluster.arrive / .wait */
    if (mode == PTX_BAR_ARRIVE) in->fn = cluster_arrive_h;
    else if (mode == PTX_BAR_WAIT) in->fn = cluster_wait_h;
    else return fx_unsupported(b, "barrier.cluster has .arrive and .wait");
    return SIMTVP_OK;
  }
  if (mode > PTX_BAR_RED_OR) return fx_unsupported(b, "barrier .wait is barrier.cluster's");
  in->aux = mode;
  simtvp_status st = SIMTVP_OK;
  if (mode >= PTX_BAR_RED_POPC) {
    /* bar.red.op d, a{, b}, {!}c */
    if (pi->nops < 3) return fx_unsupported(b, "bar.red needs d, a, c");
    st = fx_dst(b, 0, &in->o[0]);
    if (st == SIMTVP_OK) st = fx_src(b, 1, PTX_TYPE_U32, &in->o[1]);
    if (st == SIMTVP_OK && pi->nops >= 4) {
      in->flags |= BAR_COUNT;
      st = fx_src(b, 2, PTX_TYPE_U32, &in->o[2]);
    }
    if (st == SIMTVP_OK) st = fx_pred_src(b, &pi->ops[pi->nops - 1], &in->o[3], &in->aux2);
  } else {
    if (pi->nops >= 1) st = fx_src(b, 0, PTX_TYPE_U32, &in->o[1]);
    else in->o[1] = fx_const_row(b, 0, 32);
    if (st == SIMTVP_OK && pi->nops >= 2) {
      in->flags |= BAR_COUNT;
      st = fx_src(b, 1, PTX_TYPE_U32, &in->o[2]);
    }
  }
  in->fn = bar_h;
  return st;
}

static simtvp_status build_fence(fx_build *b) {
  b->out->cls = FX_C_FENCE;
  b->out->fn = fence_h;
  return SIMTVP_OK;
}

void fx_register_sync(fx_builder *t) {
  t[PTX_OP_BAR] = build_bar;
  t[PTX_OP_BARRIER] = build_bar;
  t[PTX_OP_BAR_WARP_SYNC] = build_fence;
  t[PTX_OP_MEMBAR] = build_fence;
  t[PTX_OP_FENCE] = build_fence;
}
