/* ptx_sched — load hoisting, the part of ptxas's instruction scheduling a PTX-driven timing model
 * misses most (docs/ptx.md "Load hoisting").
 *
 * nvcc's PTX interleaves each load with its use (ld, ld, fma, ld, ld, fma …); ptxas moves the
 * loads of a basic block ahead of independent arithmetic so that their latencies overlap. An
 * in-order SIMT core that issues the PTX as written stalls at the first use instead, and a naive
 * GEMM with a 4-way unrolled loop waits for every L2 access in turn (bench/hwcorr gemm_naive:
 * 4.8x the H100's time). This pass reorders a copy of the module's instructions:
 *
 *   - regions: the instructions of one basic block between "fixed" instructions, which keep their
 *     index: everything but plain loads (no memory-order qualifier) and the register-only
 *     arithmetic, logic, comparison, selection, move and conversion instructions (a whitelist:
 *     control flow, barriers, fences, stores, atomics, cp.async and its waits, wgmma, tex, shfl,
 *     vote … stay put), and among those, reads of %clock/%globaltimer, carry-flag producers and
 *     consumers, and anything whose operands this pass cannot list;
 *   - within a region a plain ld/ldu, and the instructions that compute its address, move up past
 *     every earlier instruction they have no register dependency with (read-after-write,
 *     write-after-read, write-after-write; the guard predicate counts as a read): list scheduling
 *     that takes the first ready one of those, else the earliest instruction left. Everything
 *     else keeps its order.
 *
 * Values never change (a load only passes instructions that do not touch memory or its
 * registers); indices of fixed instructions and block starts stay, so branch targets, reconvergence
 * points and call returns are unaffected. Deterministic, O(region²) once per module load. */
#include <stdlib.h>
#include <string.h>

#include "ptx.h"

#define SCHED_MAX_REGS 24u  /* registers one instruction may read or write here */
#define SCHED_MAX_REGION 256u

typedef struct sched_regs {
  uint32_t r[SCHED_MAX_REGS], w[SCHED_MAX_REGS];
  uint32_t n_r, n_w;
  bool overflow;
} sched_regs;

static void add_reg(sched_regs *s, bool write, uint32_t rclass, uint32_t index) {
  uint32_t key = (rclass << 24) | (index & 0xffffffu);
  uint32_t *v = write ? s->w : s->r, *n = write ? &s->n_w : &s->n_r;
  for (uint32_t i = 0; i < *n; i++)
    if (v[i] == key) return;
  if (*n == SCHED_MAX_REGS) {
    s->overflow = true;
    return;
  }
  v[(*n)++] = key;
}

static bool is_time_sreg(uint32_t s) {
  return s == PTX_SREG_CLOCK || s == PTX_SREG_CLOCK_HI || s == PTX_SREG_CLOCK64 || s == PTX_SREG_GLOBALTIMER ||
         s == PTX_SREG_GLOBALTIMER_LO || s == PTX_SREG_GLOBALTIMER_HI;
}

/* Adds the operand's registers; false when the instruction must stay fixed (a memory operand, a
 * time register, an operand this pass does not understand). */
static bool add_operand(const ptx_module *m, const ptx_operand *o, bool dest, bool load, sched_regs *s) {
  switch (o->kind) {
  case PTX_OPND_REG:
    if (o->rclass >= PTX_RC_COUNT) return false;
    add_reg(s, dest, o->rclass, o->index);
    if (dest && (o->flags & PTX_OPND_PAIR)) add_reg(s, true, PTX_RC_PRED, o->pair);
    return true;
  case PTX_OPND_ADDR:
    if (!load) return false; /* only a load's address may be a memory operand */
    if (o->index != PTX_NONE) {
      if (o->rclass >= PTX_RC_COUNT) return false;
      add_reg(s, false, o->rclass, o->index);
    }
    return true;
  case PTX_OPND_VEC:
  case PTX_OPND_LIST:
    for (uint32_t i = 0; i < o->count; i++) {
      if (o->index + i >= m->n_opnd_pool) return false;
      const ptx_operand *e = &m->opnd_pool[o->index + i];
      if (e->kind != PTX_OPND_REG && e->kind != PTX_OPND_IMM && e->kind != PTX_OPND_SINK) return false;
      if (e->kind == PTX_OPND_REG && !add_operand(m, e, dest, load, s)) return false;
    }
    return true;
  case PTX_OPND_SREG: return !is_time_sreg(o->index);
  case PTX_OPND_NONE:
  case PTX_OPND_IMM:
  case PTX_OPND_SINK:
  case PTX_OPND_SYMBOL: return true;
  default: return false; /* labels, functions, prototypes: control flow */
  }
}

static bool is_plain_load(const ptx_insn *in) {
  return (in->opcode == PTX_OP_LD || in->opcode == PTX_OP_LDU) && in->sem == PTX_SEM_NONE;
}

/* Instructions that only compute on registers (and loads, handled apart): everything else —
 * memory operations, control flow, barriers and fences, async-copy and wgmma waits, textures,
 * tensor-core loads and stores, instructions added later — keeps its place. A whitelist, so that
 * an instruction this pass does not know is never moved across. */
static bool is_register_only(uint32_t op) {
  switch ((ptx_opcode)op) {
  case PTX_OP_ABS: case PTX_OP_ADD: case PTX_OP_BFE: case PTX_OP_BFI: case PTX_OP_BFIND: case PTX_OP_BMSK:
  case PTX_OP_BREV: case PTX_OP_CLZ: case PTX_OP_COPYSIGN: case PTX_OP_COS: case PTX_OP_DIV: case PTX_OP_DP2A:
  case PTX_OP_DP4A: case PTX_OP_EX2: case PTX_OP_FMA: case PTX_OP_FNS: case PTX_OP_LG2: case PTX_OP_MAD:
  case PTX_OP_MAD24: case PTX_OP_MAX: case PTX_OP_MIN: case PTX_OP_MUL: case PTX_OP_MUL24: case PTX_OP_NEG:
  case PTX_OP_POPC: case PTX_OP_PRMT: case PTX_OP_RCP: case PTX_OP_REM: case PTX_OP_RSQRT: case PTX_OP_SAD:
  case PTX_OP_SIN: case PTX_OP_SQRT: case PTX_OP_SUB: case PTX_OP_SZEXT: case PTX_OP_TANH: case PTX_OP_TESTP:
  case PTX_OP_VABSDIFF: case PTX_OP_VABSDIFF2: case PTX_OP_VABSDIFF4: case PTX_OP_VADD: case PTX_OP_VMAX:
  case PTX_OP_VMIN: case PTX_OP_VSUB:
  case PTX_OP_AND: case PTX_OP_CNOT: case PTX_OP_CVT: case PTX_OP_CVTA: case PTX_OP_LOP3: case PTX_OP_MOV:
  case PTX_OP_NOT: case PTX_OP_OR: case PTX_OP_SELP: case PTX_OP_SET: case PTX_OP_SETP: case PTX_OP_SHF:
  case PTX_OP_SHL: case PTX_OP_SHR: case PTX_OP_SLCT: case PTX_OP_XOR:
    return true;
  default: return false; /* ADDC/SUBC/MADC (the carry flag) included */
  }
}

/* The instruction's registers; false when it is fixed. */
static bool regs_of(const ptx_module *m, const ptx_insn *in, sched_regs *s) {
  memset(s, 0, sizeof *s);
  bool load = is_plain_load(in), dest = ptx_insn_has_dest(in);
  if ((!load && !is_register_only(in->opcode)) || (in->mods & PTX_MOD_CC)) return false;
  if (in->guard != PTX_NONE) add_reg(s, false, PTX_RC_PRED, in->guard);
  for (uint32_t o = 0; o < in->nops && o < PTX_MAX_OPERANDS; o++)
    if (!add_operand(m, &in->ops[o], dest && o == 0, load, s)) return false;
  return !s->overflow;
}

static bool meets(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb) {
  for (uint32_t i = 0; i < na; i++)
    for (uint32_t j = 0; j < nb; j++)
      if (a[i] == b[j]) return true;
  return false;
}

/* j (later) may not pass i (earlier). */
static bool depends(const sched_regs *i, const sched_regs *j) {
  return meets(i->w, i->n_w, j->r, j->n_r) || meets(i->r, i->n_r, j->w, j->n_w) ||
         meets(i->w, i->n_w, j->w, j->n_w);
}

/* Schedules in[s, e) (movable instructions only) into out[s, e); returns how many moved. `early`
 * marks the loads and what their addresses are computed from (transitively, within the region):
 * the first of those that depends on no earlier unscheduled instruction goes next, else the
 * earliest unscheduled instruction. */
static uint32_t schedule_region(const ptx_insn *in, ptx_insn *out, const sched_regs *regs, bool *early,
                                bool *done, uint32_t s, uint32_t e) {
  for (uint32_t k = e; k-- > s;) {
    if (early[k - s]) continue;
    for (uint32_t j = k + 1; j < e && !early[k - s]; j++) /* k produces a register an early one reads */
      if (early[j - s] && meets(regs[k - s].w, regs[k - s].n_w, regs[j - s].r, regs[j - s].n_r)) early[k - s] = true;
  }
  uint32_t pos = s, moved = 0, first = s;
  for (uint32_t k = s; k < e; k++) done[k - s] = false;
  while (pos < e) {
    while (done[first - s]) first++;
    uint32_t pick = first;
    if (!early[first - s])
      for (uint32_t j = first + 1; j < e; j++) {
        if (done[j - s] || !early[j - s]) continue;
        bool ready = true;
        for (uint32_t i = first; i < j && ready; i++)
          if (!done[i - s] && depends(&regs[i - s], &regs[j - s])) ready = false;
        if (ready) {
          pick = j;
          break;
        }
      }
    if (pick != pos) moved++;
    out[pos++] = in[pick];
    done[pick - s] = true;
  }
  return moved;
}

uint32_t ptx_hoist_loads(const ptx_module *m, ptx_insn *out) {
  memcpy(out, m->insns, (size_t)m->n_insns * sizeof *out);
  sched_regs *regs = malloc(SCHED_MAX_REGION * sizeof *regs);
  bool *is_load = malloc(SCHED_MAX_REGION * sizeof *is_load), *done = malloc(SCHED_MAX_REGION * sizeof *done);
  uint32_t moved = 0;
  if (regs && is_load && done) {
    for (uint32_t b = 0; b < m->n_blocks; b++) {
      const ptx_block *bl = &m->blocks[b];
      uint32_t end = bl->first_insn + bl->n_insns, s = bl->first_insn;
      if (end > m->n_insns) continue;
      while (s < end) {
        uint32_t e = s, loads = 0;
        while (e < end && e - s < SCHED_MAX_REGION && regs_of(m, &m->insns[e], &regs[e - s])) {
          is_load[e - s] = is_plain_load(&m->insns[e]);
          loads += is_load[e - s];
          e++;
        }
        if (loads && e - s > 1) moved += schedule_region(m->insns, out, regs, is_load, done, s, e);
        s = e == s ? s + 1 : e; /* a fixed instruction keeps its place */
      }
    }
  }
  free(regs);
  free(is_load);
  free(done);
  return moved;
}
