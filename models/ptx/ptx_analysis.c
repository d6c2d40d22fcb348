/* ptx_analysis — per function: basic blocks and the CFG, immediate post-dominators (the SIMT
 * reconvergence points of GPGPU-Sim's stack, Fung et al., MICRO 2007), computed with the
 * Cooper–Harvey–Kennedy iterative algorithm ("A Simple, Fast Dominance Algorithm", 2001) on the
 * reversed CFG with a virtual exit node, and register pressure from a backward liveness analysis
 * (regs_per_thread, see ptx.h and docs/ptx.md for the counting rule). */
#include <stdlib.h>
#include <string.h>

#include "ptx_internal.h"

/* Registers the estimate adds to the liveness maximum: ptxas keeps a few for its own use
 * (stack pointer, address temporaries of spills and calls); 2 brings small kernels in line with
 * what `ptxas -v` reports for them (docs/ptx.md). */
#define PTX_REG_OVERHEAD 2
/* Bit-vector words one liveness table may hold before the estimate falls back to counting every
 * declared register (very large functions only). */
#define PTX_LIVENESS_WORD_LIMIT (4u * 1024u * 1024u) /* 32 MiB per table, 3 tables */

/* ---- registers read and written -------------------------------------------------------------- */

static void visit_operand(const ptx_operand *pool, const ptx_operand *o, bool def, ptx_reg_visit fn, void *ctx) {
  switch (o->kind) {
  case PTX_OPND_REG: fn(ctx, o->rclass, o->index, def); break;
  case PTX_OPND_ADDR:
    if (o->index != PTX_NONE) fn(ctx, o->rclass, o->index, false);
    break;
  case PTX_OPND_VEC:
  case PTX_OPND_LIST:
    for (uint32_t i = 0; i < o->count; i++) {
      const ptx_operand *e = &pool[o->index + i];
      if (e->kind == PTX_OPND_REG) fn(ctx, e->rclass, e->index, def);
      else if (e->kind == PTX_OPND_ADDR && e->index != PTX_NONE) fn(ctx, e->rclass, e->index, false);
    }
    break;
  default: break;
  }
  if (o->flags & PTX_OPND_PAIR) fn(ctx, PTX_RC_PRED, o->pair, def);
}

void ptx_insn_visit_regs(const ptx_operand *pool, const ptx_insn *in, ptx_reg_visit fn, void *ctx) {
  if (in->guard != PTX_NONE) fn(ctx, PTX_RC_PRED, in->guard, false);
  bool dest = ptx_insn_has_dest(in);
  for (uint32_t i = 0; i < in->nops && i < PTX_MAX_OPERANDS; i++) {
    bool def = (i == 0 && dest) || (in->opcode == PTX_OP_CALL && i == 0);
    visit_operand(pool, &in->ops[i], def, fn, ctx);
  }
}

/* ---- CFG ------------------------------------------------------------------------------------- */

static bool is_exit(const ptx_insn *in) {
  return in->opcode == PTX_OP_RET || in->opcode == PTX_OP_EXIT || in->opcode == PTX_OP_TRAP;
}

static bool push_succ(ptx_parser *p, ptx_block *b, uint32_t s) {
  for (uint32_t i = 0; i < b->n_succ; i++)
    if (p->succs.v[b->first_succ + i] == s) return true;
  if (!PTX_VEC_RESERVE(p->succs, p->succs.n + 1)) return ptx_nomem(p);
  p->succs.v[p->succs.n++] = s;
  if (b->n_succ < 2) b->succ[b->n_succ] = s;
  b->n_succ++;
  return true;
}

static bool build_blocks(ptx_parser *p, ptx_function *f) {
  const uint32_t first = f->first_insn, n = f->n_insns;
  uint8_t *leader = calloc(n + 1, 1);
  if (!leader) return ptx_nomem(p);
  leader[0] = 1;
  for (uint32_t i = 0; i < n; i++) {
    const ptx_insn *in = &p->insns.v[first + i];
    if (in->opcode == PTX_OP_BRA) {
      uint32_t t = in->ops[0].index;
      if (t < first || t >= first + n) {
        free(leader);
        return ptx_error_at(p, in->ptx_line, in->ptx_column, "branch target outside its function");
      }
      leader[t - first] = 1;
      leader[i + 1] = 1;
    } else if (in->opcode == PTX_OP_BRX) {
      const ptx_operand *l = &in->ops[1];
      for (uint32_t k = 0; k < l->count; k++) {
        uint32_t t = p->opnds.v[l->index + k].index;
        if (t < first || t >= first + n) {
          free(leader);
          return ptx_error_at(p, in->ptx_line, in->ptx_column, "branch target outside its function");
        }
        leader[t - first] = 1;
      }
      leader[i + 1] = 1;
    } else if (is_exit(in)) {
      leader[i + 1] = 1;
    }
  }
  f->first_block = p->blocks.n;
  for (uint32_t i = 0; i < n; i++) {
    if (leader[i]) {
      if (!PTX_VEC_RESERVE(p->blocks, p->blocks.n + 1)) {
        free(leader);
        return ptx_nomem(p);
      }
      ptx_block *b = &p->blocks.v[p->blocks.n++];
      memset(b, 0, sizeof *b);
      b->first_insn = first + i;
      b->succ[0] = b->succ[1] = PTX_NONE;
      b->ipdom = PTX_NONE;
    }
    p->blocks.v[p->blocks.n - 1].n_insns++;
    p->insns.v[first + i].block = p->blocks.n - 1;
  }
  free(leader);
  f->n_blocks = p->blocks.n - f->first_block;
  for (uint32_t b = f->first_block; b < p->blocks.n; b++) {
    ptx_block *blk = &p->blocks.v[b];
    blk->first_succ = p->succs.n;
    const uint32_t last_i = blk->first_insn + blk->n_insns - 1;
    const ptx_insn *last = &p->insns.v[last_i];
    bool falls = true;
    if (last->opcode == PTX_OP_BRA) {
      if (!push_succ(p, blk, p->insns.v[last->ops[0].index].block)) return false;
      falls = last->guard != PTX_NONE;
    } else if (last->opcode == PTX_OP_BRX) {
      const ptx_operand *l = &last->ops[1];
      for (uint32_t k = 0; k < l->count; k++)
        if (!push_succ(p, blk, p->insns.v[p->opnds.v[l->index + k].index].block)) return false;
      falls = last->guard != PTX_NONE;
    } else if (is_exit(last)) {
      blk->exits = true;
      falls = last->guard != PTX_NONE;
    }
    if (falls) {
      if (last_i + 1 < f->first_insn + f->n_insns) {
        if (!push_succ(p, blk, b + 1)) return false;
      } else {
        blk->exits = true; /* cannot happen after finish_function's implicit ret; kept safe */
      }
    }
  }
  return true;
}

/* ---- post-dominators ------------------------------------------------------------------------- */

static bool post_dominators(ptx_parser *p, ptx_function *f) {
  const uint32_t nb = f->n_blocks, fb = f->first_block, X = nb; /* X: virtual exit */
  const uint32_t nn = nb + 1;
  /* predecessors (CSR), original direction; the exit's predecessors are the exiting blocks */
  uint32_t *npred = calloc(nn + 1, sizeof *npred);
  uint32_t *order = malloc(nn * sizeof *order);  /* postorder of the reversed graph from X */
  uint32_t *po = malloc(nn * sizeof *po);        /* postorder number, UINT32_MAX = unreachable */
  uint32_t *idom = malloc(nn * sizeof *idom);
  uint32_t *stack = malloc(nn * sizeof *stack);
  uint32_t *iter = calloc(nn, sizeof *iter);
  uint32_t total_edges = 0;
  for (uint32_t b = 0; b < nb; b++) total_edges += p->blocks.v[fb + b].n_succ + (p->blocks.v[fb + b].exits ? 1 : 0);
  uint32_t *preds = malloc((total_edges + 1) * sizeof *preds);
  if (!npred || !order || !po || !idom || !stack || !iter || !preds) {
    free(npred), free(order), free(po), free(idom), free(stack), free(iter), free(preds);
    return ptx_nomem(p);
  }
  for (uint32_t b = 0; b < nb; b++) {
    const ptx_block *blk = &p->blocks.v[fb + b];
    for (uint32_t k = 0; k < blk->n_succ; k++) npred[p->succs.v[blk->first_succ + k] - fb + 1]++;
    if (blk->exits) npred[X + 1]++;
  }
  for (uint32_t v = 0; v < nn; v++) npred[v + 1] += npred[v];
  uint32_t *fill = calloc(nn, sizeof *fill);
  if (!fill) {
    free(npred), free(order), free(po), free(idom), free(stack), free(iter), free(preds);
    return ptx_nomem(p);
  }
  for (uint32_t b = 0; b < nb; b++) {
    const ptx_block *blk = &p->blocks.v[fb + b];
    for (uint32_t k = 0; k < blk->n_succ; k++) {
      uint32_t s = p->succs.v[blk->first_succ + k] - fb;
      preds[npred[s] + fill[s]++] = b;
    }
    if (blk->exits) preds[npred[X] + fill[X]++] = b;
  }
  free(fill);
  /* iterative DFS from X over predecessor edges (= successors in the reversed graph) */
  for (uint32_t v = 0; v < nn; v++) po[v] = UINT32_MAX, idom[v] = UINT32_MAX;
  uint32_t sp = 0, npo = 0;
  uint8_t *visited = calloc(nn, 1);
  if (!visited) {
    free(npred), free(order), free(po), free(idom), free(stack), free(iter), free(preds);
    return ptx_nomem(p);
  }
  stack[sp++] = X;
  visited[X] = 1;
  while (sp) {
    uint32_t v = stack[sp - 1];
    if (npred[v] + iter[v] < npred[v + 1]) {
      uint32_t w = preds[npred[v] + iter[v]++];
      if (!visited[w]) {
        visited[w] = 1;
        stack[sp++] = w;
      }
    } else {
      sp--;
      po[v] = npo;
      order[npo++] = v;
    }
  }
  free(visited);
  /* reversed-graph predecessors of v = original successors of v (plus X when v exits) */
  idom[X] = X;
  bool changed = true;
  while (changed) {
    changed = false;
    for (uint32_t k = npo; k-- > 0;) { /* reverse postorder */
      uint32_t v = order[k];
      if (v == X) continue;
      const ptx_block *blk = &p->blocks.v[fb + v];
      uint32_t nd = UINT32_MAX;
      for (uint32_t e = 0; e <= blk->n_succ; e++) {
        uint32_t s;
        if (e < blk->n_succ) s = p->succs.v[blk->first_succ + e] - fb;
        else if (blk->exits) s = X;
        else break;
        if (idom[s] == UINT32_MAX) continue;
        if (nd == UINT32_MAX) {
          nd = s;
          continue;
        }
        uint32_t a = s, b = nd;
        while (a != b) {
          while (po[a] < po[b]) a = idom[a];
          while (po[b] < po[a]) b = idom[b];
        }
        nd = a;
      }
      if (nd != UINT32_MAX && idom[v] != nd) {
        idom[v] = nd;
        changed = true;
      }
    }
  }
  for (uint32_t b = 0; b < nb; b++) {
    ptx_block *blk = &p->blocks.v[fb + b];
    blk->ipdom = (idom[b] == UINT32_MAX || idom[b] == X) ? PTX_NONE : fb + idom[b];
  }
  free(npred), free(order), free(po), free(idom), free(stack), free(iter), free(preds);
  for (uint32_t b = 0; b < nb; b++) {
    const ptx_block *blk = &p->blocks.v[fb + b];
    ptx_insn *last = &p->insns.v[blk->first_insn + blk->n_insns - 1];
    if (last->opcode == PTX_OP_BRA || last->opcode == PTX_OP_BRX)
      last->reconverge = blk->ipdom == PTX_NONE ? PTX_NONE : p->blocks.v[blk->ipdom].first_insn;
  }
  return true;
}

/* ---- liveness -------------------------------------------------------------------------------- */

typedef struct live_ctx {
  uint32_t base[PTX_RC_COUNT]; /* first bit of each class; PRED is not tracked */
  uint32_t limit[PTX_RC_COUNT];
  uint64_t *use, *def; /* the block's sets while they are built */
  uint32_t defs[64], uses[64];
  uint32_t ndefs, nuses;
  bool overflow;
} live_ctx;

static uint32_t reg_bit(const live_ctx *c, uint8_t rclass, uint32_t index) {
  if (rclass == PTX_RC_PRED || rclass >= PTX_RC_COUNT || index >= c->limit[rclass]) return UINT32_MAX;
  return c->base[rclass] + index;
}

static void collect(void *ctx, uint8_t rclass, uint32_t index, bool is_def) {
  live_ctx *c = ctx;
  uint32_t bit = reg_bit(c, rclass, index);
  if (bit == UINT32_MAX) return;
  if (is_def) {
    if (c->ndefs < 64) c->defs[c->ndefs++] = bit;
    else c->overflow = true;
  } else {
    if (c->nuses < 64) c->uses[c->nuses++] = bit;
    else c->overflow = true;
  }
}

static uint32_t weight_of(const live_ctx *c, uint32_t bit) {
  if (bit >= c->base[PTX_RC_B128]) return 4;
  if (bit >= c->base[PTX_RC_B64]) return 2;
  return 1;
}

static bool test_bit(const uint64_t *s, uint32_t b) { return (s[b >> 6] >> (b & 63)) & 1; }
static void set_bit(uint64_t *s, uint32_t b) { s[b >> 6] |= 1ull << (b & 63); }
static void clear_bit(uint64_t *s, uint32_t b) { s[b >> 6] &= ~(1ull << (b & 63)); }

static uint32_t all_registers_weight(const ptx_function *f) {
  return f->n_regs[PTX_RC_B32] + 2 * f->n_regs[PTX_RC_B64] + 4 * f->n_regs[PTX_RC_B128];
}

static bool register_pressure(ptx_parser *p, ptx_function *f, uint32_t *out) {
  live_ctx c;
  memset(&c, 0, sizeof c);
  c.base[PTX_RC_B32] = 0;
  c.base[PTX_RC_B64] = f->n_regs[PTX_RC_B32];
  c.base[PTX_RC_B128] = c.base[PTX_RC_B64] + f->n_regs[PTX_RC_B64];
  c.limit[PTX_RC_B32] = f->n_regs[PTX_RC_B32];
  c.limit[PTX_RC_B64] = f->n_regs[PTX_RC_B64];
  c.limit[PTX_RC_B128] = f->n_regs[PTX_RC_B128];
  const uint64_t nbits = (uint64_t)c.base[PTX_RC_B128] + f->n_regs[PTX_RC_B128];
  const uint32_t nb = f->n_blocks, fb = f->first_block;
  const uint64_t W = (nbits + 63) / 64;
  if (nbits == 0 || nb == 0) {
    *out = 0;
    return true;
  }
  if (W * nb > PTX_LIVENESS_WORD_LIMIT) {
    *out = all_registers_weight(f);
    return true;
  }
  uint64_t *use = calloc(W * nb, sizeof *use);
  uint64_t *def = calloc(W * nb, sizeof *def);
  uint64_t *in = calloc(W * nb, sizeof *in);
  uint64_t *live = calloc(W, sizeof *live);
  if (!use || !def || !in || !live) {
    free(use), free(def), free(in), free(live);
    return ptx_nomem(p);
  }
  /* use = read before any unconditional write in the block; def = written unconditionally */
  for (uint32_t b = 0; b < nb; b++) {
    const ptx_block *blk = &p->blocks.v[fb + b];
    uint64_t *u = use + W * b, *d = def + W * b;
    for (uint32_t k = blk->first_insn; k < blk->first_insn + blk->n_insns; k++) {
      const ptx_insn *ins = &p->insns.v[k];
      c.ndefs = c.nuses = 0;
      ptx_insn_visit_regs(p->opnds.v, ins, collect, &c);
      for (uint32_t i = 0; i < c.nuses; i++)
        if (!test_bit(d, c.uses[i])) set_bit(u, c.uses[i]);
      if (ins->guard == PTX_NONE)
        for (uint32_t i = 0; i < c.ndefs; i++) set_bit(d, c.defs[i]);
    }
  }
  /* in = use | (out & ~def), out = union of successors' in; backward sweeps to a fixed point */
  bool changed = true;
  while (changed) {
    changed = false;
    for (uint32_t b = nb; b-- > 0;) {
      const ptx_block *blk = &p->blocks.v[fb + b];
      uint64_t *ib = in + W * b;
      const uint64_t *u = use + W * b, *d = def + W * b;
      for (uint64_t w = 0; w < W; w++) {
        uint64_t o = 0;
        for (uint32_t k = 0; k < blk->n_succ; k++) o |= in[W * (p->succs.v[blk->first_succ + k] - fb) + w];
        uint64_t v = u[w] | (o & ~d[w]);
        if (v != ib[w]) {
          ib[w] = v;
          changed = true;
        }
      }
    }
  }
  /* walk each block backwards from its live-out set; pressure at an instruction counts what is
   * live after it plus what it writes */
  uint32_t max_pressure = 0;
  for (uint32_t b = 0; b < nb; b++) {
    const ptx_block *blk = &p->blocks.v[fb + b];
    memset(live, 0, W * sizeof *live);
    for (uint32_t k = 0; k < blk->n_succ; k++) {
      const uint64_t *is = in + W * (p->succs.v[blk->first_succ + k] - fb);
      for (uint64_t w = 0; w < W; w++) live[w] |= is[w];
    }
    uint32_t weight = 0;
    for (uint64_t w = 0; w < W; w++) {
      uint64_t bits = live[w];
      while (bits) {
        uint32_t bit = (uint32_t)(w * 64 + (uint64_t)__builtin_ctzll(bits));
        weight += weight_of(&c, bit);
        bits &= bits - 1;
      }
    }
    if (weight > max_pressure) max_pressure = weight;
    for (uint32_t k = blk->first_insn + blk->n_insns; k-- > blk->first_insn;) {
      const ptx_insn *ins = &p->insns.v[k];
      c.ndefs = c.nuses = 0;
      ptx_insn_visit_regs(p->opnds.v, ins, collect, &c);
      uint32_t at = weight;
      for (uint32_t i = 0; i < c.ndefs; i++)
        if (!test_bit(live, c.defs[i])) at += weight_of(&c, c.defs[i]);
      if (at > max_pressure) max_pressure = at;
      if (ins->guard == PTX_NONE)
        for (uint32_t i = 0; i < c.ndefs; i++)
          if (test_bit(live, c.defs[i])) {
            clear_bit(live, c.defs[i]);
            weight -= weight_of(&c, c.defs[i]);
          }
      for (uint32_t i = 0; i < c.nuses; i++)
        if (!test_bit(live, c.uses[i])) {
          set_bit(live, c.uses[i]);
          weight += weight_of(&c, c.uses[i]);
        }
      if (weight > max_pressure) max_pressure = weight;
    }
  }
  free(use), free(def), free(in), free(live);
  *out = c.overflow ? all_registers_weight(f) : max_pressure;
  return true;
}

bool ptx_analyse_function(ptx_parser *p, uint32_t fn) {
  ptx_function *f = &p->funcs.v[fn];
  if (!build_blocks(p, f)) return false;
  f = &p->funcs.v[fn];
  if (!post_dominators(p, f)) return false;
  uint32_t pressure;
  if (!register_pressure(p, f, &pressure)) return false;
  uint32_t regs = pressure + PTX_REG_OVERHEAD;
  if (f->maxnreg && regs > f->maxnreg) regs = f->maxnreg;
  if (regs > 255) regs = 255; /* the architectural limit: the rest spills to local memory */
  f->res.regs_per_thread = regs;
  return true;
}
