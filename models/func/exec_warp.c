/* exec_warp — warp-level operations (PTX ISA 9.7.12.x-13.x): vote{.sync}, shfl.sync, match.sync,
 * redux.sync, activemask, elect.sync.
 *
 * Member masks: the lanes that take part are those executing the instruction (active and guard
 * true) and named in membermask. A source lane of shfl that is named in the member mask but not
 * executing (diverged elsewhere under the stack model) provides its current register value; the
 * ISA leaves that case undefined. */
#include "func_internal.h"

#define H(name) static void name(fx_warp *w, const fx_insn *in, uint32_t m)

/* member mask: o[3] (first executing lane's value), or every lane when absent (aux bit) */
static inline uint32_t members(const fx_warp *w, const fx_insn *in, uint32_t m) {
  if (!(in->flags & 1)) return FX_FULL;
  return FX_R32(w, in->o[3])[__builtin_ctz(m)];
}

/* vote: o[1] predicate (aux = negation mask); aux2 = mode */
H(vote_h) {
  if (!m) return;
  uint32_t part = m & members(w, in, m);
  uint32_t p = (*FX_P(w, in->o[1]) ^ in->aux) & part;
  switch (in->aux2) {
  case PTX_VOTE_ALL: fx_putp(FX_P(w, in->o[0]), p == part ? FX_FULL : 0, m); break;
  case PTX_VOTE_ANY: fx_putp(FX_P(w, in->o[0]), p ? FX_FULL : 0, m); break;
  case PTX_VOTE_UNI: fx_putp(FX_P(w, in->o[0]), (p == 0 || p == part) ? FX_FULL : 0, m); break;
  default: {
    uint32_t *d = FX_R32(w, in->o[0]);
    FX_FOR_LANES(i, m) d[i] = p;
    break;
  }
  }
}

/* shfl.sync: o[1] a, o[2] b, o[4] c, o[3] membermask; aux = mode; flags 2: predicate dest in aux2 */
H(shfl_h) {
  if (!m) return;
  const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]), *C = FX_R32(w, in->o[4]);
  uint32_t r[32], pv = 0;
  FX_FOR_LANES(lane, m) {
    uint32_t bval = B[lane] & 31u, cval = C[lane] & 31u, seg = (C[lane] >> 8) & 31u;
    int32_t maxl = (int32_t)((lane & seg) | (cval & ~seg)), minl = (int32_t)(lane & seg), j;
    bool ok;
    switch (in->aux) {
    case PTX_SHFL_UP: j = (int32_t)lane - (int32_t)bval; ok = j >= maxl; break;
    case PTX_SHFL_DOWN: j = (int32_t)lane + (int32_t)bval; ok = j <= maxl; break;
    case PTX_SHFL_BFLY: j = (int32_t)(lane ^ bval); ok = j <= maxl; break;
    default: j = minl | (int32_t)(bval & ~seg); ok = j <= maxl; break;
    }
    if (!ok) j = (int32_t)lane;
    r[lane] = A[j & 31];
    pv |= (uint32_t)ok << lane;
  }
  uint32_t *d = FX_R32(w, in->o[0]);
  FX_FOR_LANES(lane, m) d[lane] = r[lane];
  if (in->flags & 2) fx_putp(FX_P(w, in->aux2), pv, m);
}

/* match.any / match.all: o[1] a (flags 4: 64-bit), o[3] membermask; flags 2: predicate dest aux2 */
H(match_h) {
  if (!m) return;
  uint32_t part = m & members(w, in, m);
  uint64_t v[32];
  FX_FOR_LANES(i, part) v[i] = (in->flags & 4) ? FX_R64(w, in->o[1])[i] : FX_R32(w, in->o[1])[i];
  uint32_t *d = FX_R32(w, in->o[0]);
  if (in->aux == PTX_MATCH_ALL) {
    uint32_t first = part ? (uint32_t)__builtin_ctz(part) : 0;
    bool all = true;
    FX_FOR_LANES(i, part) all = all && v[i] == v[first];
    FX_FOR_LANES(i, m) d[i] = (all && ((part >> i) & 1u)) ? part : 0;
    if (in->flags & 2) fx_putp(FX_P(w, in->aux2), all ? FX_FULL : 0, m);
    return;
  }
  FX_FOR_LANES(i, m) {
    uint32_t same = 0;
    if ((part >> i) & 1u) FX_FOR_LANES(j, part) if (v[j] == v[i]) same |= 1u << j;
    d[i] = same;
  }
}

/* redux.sync: o[1] a, o[3] membermask; aux = op; flags 8: signed */
H(redux_h) {
  if (!m) return;
  uint32_t part = m & members(w, in, m);
  const uint32_t *A = FX_R32(w, in->o[1]);
  bool s = in->flags & 8;
  uint32_t acc = 0, first = 1;
  FX_FOR_LANES(i, part) {
    uint32_t a = A[i];
    if (first) {
      acc = a;
      first = 0;
      continue;
    }
    switch (in->aux) {
    case PTX_REDUX_ADD: acc += a; break;
    case PTX_REDUX_MIN: acc = s ? ((int32_t)a < (int32_t)acc ? a : acc) : (a < acc ? a : acc); break;
    case PTX_REDUX_MAX: acc = s ? ((int32_t)a > (int32_t)acc ? a : acc) : (a > acc ? a : acc); break;
    case PTX_REDUX_AND: acc &= a; break;
    case PTX_REDUX_OR: acc |= a; break;
    default: acc ^= a; break;
    }
  }
  uint32_t *d = FX_R32(w, in->o[0]);
  FX_FOR_LANES(i, m) d[i] = acc;
}

H(activemask_h) {
  (void)in;
  uint32_t *d = FX_R32(w, in->o[0]);
  uint32_t a = w->active;
  FX_FOR_LANES(i, m) d[i] = a;
}

/* elect.sync d|p, membermask: the lowest participating lane is elected */
H(elect_h) {
  if (!m) return;
  uint32_t part = m & members(w, in, m);
  uint32_t leader = part ? (uint32_t)__builtin_ctz(part) : 0;
  if (!(in->flags & 16)) {
    uint32_t *d = FX_R32(w, in->o[0]);
    FX_FOR_LANES(i, m) d[i] = leader;
  }
  if (in->flags & 2) fx_putp(FX_P(w, in->aux2), part ? (1u << leader) : 0, m);
}

/* ---- builders ---------------------------------------------------------------------------------------- */

static simtvp_status member_operand(fx_build *b, uint32_t k) {
  if (k >= b->pi->nops) return SIMTVP_OK; /* non-.sync form: every lane */
  b->out->flags |= 1;
  return fx_src(b, k, PTX_TYPE_B32, &b->out->o[3]);
}

static simtvp_status pair_dest(fx_build *b) {
  const ptx_operand *d = &b->pi->ops[0];
  if (d->flags & PTX_OPND_PAIR) {
    b->out->flags |= 2;
    b->out->aux2 = b->f->off_pred + 4u * d->pair;
  }
  return SIMTVP_OK;
}

static simtvp_status build_vote(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  if (pi->nops < 2) return fx_unsupported(b, "vote needs a predicate");
  simtvp_status st = fx_dst(b, 0, &in->o[0]);
  if (st == SIMTVP_OK) st = fx_pred_src(b, &pi->ops[1], &in->o[1], &in->aux);
  if (st == SIMTVP_OK) st = member_operand(b, 2);
  in->aux2 = pi->sub_op;
  in->fn = vote_h;
  return st;
}

static simtvp_status build_shfl(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  if (pi->nops < 4) return fx_unsupported(b, "shfl needs d, a, b, c");
  simtvp_status st = fx_dst(b, 0, &in->o[0]);
  if (st == SIMTVP_OK) st = fx_src(b, 1, PTX_TYPE_B32, &in->o[1]);
  if (st == SIMTVP_OK) st = fx_src(b, 2, PTX_TYPE_B32, &in->o[2]);
  if (st == SIMTVP_OK) st = fx_src(b, 3, PTX_TYPE_B32, &in->o[4]);
  if (st == SIMTVP_OK) st = member_operand(b, 4);
  if (st == SIMTVP_OK) st = pair_dest(b);
  in->aux = pi->sub_op;
  in->fn = shfl_h;
  return st;
}

static simtvp_status build_match(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  if (pi->nops < 2) return fx_unsupported(b, "match needs d, a");
  simtvp_status st = fx_dst(b, 0, &in->o[0]);
  if (st == SIMTVP_OK) st = fx_src(b, 1, (ptx_type)pi->type, &in->o[1]);
  if (st == SIMTVP_OK) st = member_operand(b, 2);
  if (st == SIMTVP_OK) st = pair_dest(b);
  if (ptx_type_bytes((ptx_type)pi->type) == 8) in->flags |= 4;
  in->aux = pi->sub_op;
  in->fn = match_h;
  return st;
}

static simtvp_status build_redux(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  if (pi->nops < 2) return fx_unsupported(b, "redux needs d, a");
  if (ptx_type_bytes((ptx_type)pi->type) != 4) return fx_unsupported(b, "redux.sync on 32-bit integers only");
  simtvp_status st = fx_dst(b, 0, &in->o[0]);
  if (st == SIMTVP_OK) st = fx_src(b, 1, (ptx_type)pi->type, &in->o[1]);
  if (st == SIMTVP_OK) st = member_operand(b, 2);
  if (ptx_type_is_signed((ptx_type)pi->type)) in->flags |= 8;
  in->aux = pi->sub_op;
  in->fn = redux_h;
  return st;
}

static simtvp_status build_activemask(fx_build *b) {
  b->out->fn = activemask_h;
  return fx_dst(b, 0, &b->out->o[0]);
}

static simtvp_status build_elect(fx_build *b) {
  fx_insn *in = b->out;
  const ptx_operand *d = &b->pi->ops[0];
  simtvp_status st = SIMTVP_OK;
  if (d->kind == PTX_OPND_SINK) in->flags |= 16;
  else st = fx_dst(b, 0, &in->o[0]);
  if (st == SIMTVP_OK) st = member_operand(b, 1);
  if (st == SIMTVP_OK) st = pair_dest(b);
  in->fn = elect_h;
  return st;
}

void fx_register_warp(fx_builder *t) {
  t[PTX_OP_VOTE] = build_vote;
  t[PTX_OP_SHFL] = build_shfl;
  t[PTX_OP_MATCH] = build_match;
  t[PTX_OP_REDUX] = build_redux;
  t[PTX_OP_ACTIVEMASK] = build_activemask;
  t[PTX_OP_ELECT] = build_elect;
}
