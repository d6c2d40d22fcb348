/* func_load — builds the execution plan of a PTX module once (func.h: func_program_load).
 *
 * Lays out every function's register frame (predicate words, 32/64/128-bit rows, constant rows)
 * and local-memory frame (parameters, .local variables, call-site parameters), places .shared
 * variables in the CTA's shared memory, resolves symbol addresses from the loader's placement and
 * picks a handler per instruction through the opcode dispatch table the family files fill. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>

#include "alu.h"
#include "func_internal.h"

static uint64_t align_up(uint64_t v, uint64_t a) { return a ? (v + a - 1) / a * a : v; }

void *fx_alloc(func_program *p, size_t bytes) {
  void *mem = calloc(1, bytes ? bytes : 1);
  if (!mem) return NULL;
  if (p->n_allocs == p->cap_allocs) {
    uint32_t cap = p->cap_allocs ? p->cap_allocs * 2 : 64;
    void **n = realloc(p->allocs, cap * sizeof *n);
    if (!n) {
      free(mem);
      return NULL;
    }
    p->allocs = n;
    p->cap_allocs = cap;
  }
  p->allocs[p->n_allocs++] = mem;
  return mem;
}

static void at_insn(const fx_build *b, simtvp_diag *diag) {
  const ptx_module *m = b->p->m;
  simtvp_diag_at_file(diag, m->source_name, b->pi->ptx_line, b->pi->ptx_column);
  simtvp_diag_at_pc(diag, b->pc);
}

simtvp_status fx_unsupported(fx_build *b, const char *why) {
  char text[160];
  ptx_insn_format(b->p->m, b->pi, text, sizeof text);
  simtvp_diag_set(b->diag, SIMTVP_ERR_UNSUPPORTED, "%s:%u:%u: `%s`: %s",
                  b->p->m->source_name ? b->p->m->source_name : "<ptx>", b->pi->ptx_line,
                  b->pi->ptx_column, text, why);
  at_insn(b, b->diag);
  return SIMTVP_ERR_UNSUPPORTED;
}

uint32_t fx_rc_bits(uint32_t rclass) {
  switch (rclass) {
  case PTX_RC_PRED: return 1;
  case PTX_RC_B32: return 32;
  case PTX_RC_B64: return 64;
  default: return 128;
  }
}

const ptx_operand *fx_vec_elems(const fx_build *b, const ptx_operand *op) {
  /* an empty list (`call g, ();`) in a module without any list has no pool to point into */
  const ptx_operand *pool = b->p->m->opnd_pool;
  return pool ? pool + op->index : NULL;
}

/* ---- constant rows --------------------------------------------------------------------------- */

uint32_t fx_const_row(fx_build *b, uint64_t value, uint32_t bits) {
  fx_func *f = b->f;
  uint32_t *n = bits == 64 ? &f->n_const64 : &f->n_const32;
  uint32_t *cap = bits == 64 ? &f->cap_const64 : &f->cap_const32;
  uint64_t **vals = bits == 64 ? &f->const64_val : &f->const32_val;
  if (bits != 64) value &= 0xffffffffull;
  for (uint32_t i = 0; i < *n; i++)
    if ((*vals)[2 * i] == value) return (uint32_t)(*vals)[2 * i + 1];
  if (*n == *cap) {
    uint32_t c = *cap ? *cap * 2 : 16;
    uint64_t *nv = realloc(*vals, 2 * c * sizeof *nv);
    if (!nv) return FX_NONE;
    *vals = nv;
    *cap = c;
  }
  /* rows are appended after everything else; frame_bytes grows */
  uint32_t off = f->frame_bytes;
  f->frame_bytes += bits == 64 ? FX_ROW64 : FX_ROW32;
  (*vals)[2 * *n] = value;
  (*vals)[2 * *n + 1] = off;
  (*n)++;
  return off;
}

/* ---- immediates ------------------------------------------------------------------------------ */

static uint32_t type_bits(ptx_type t) {
  uint32_t n = ptx_type_bytes(t) * 8u;
  return n ? n : 32u;
}

/* Converts an immediate operand to the bit pattern of `type`. */
static uint64_t imm_as(const ptx_operand *op, ptx_type type) {
  uint64_t v = (uint64_t)op->value;
  bool is_f32 = op->flags & PTX_OPND_IMM_F32, is_f64 = op->flags & PTX_OPND_IMM_F64;
  switch (type) {
  case PTX_TYPE_F32:
    if (is_f32) return v & 0xffffffffull;
    if (is_f64) return alu_cvt_rn_f32_f64(v, 0);
    return alu_f32_bits((float)(int64_t)v);
  case PTX_TYPE_F64:
    if (is_f64) return v;
    if (is_f32) return alu_f64_bits((double)alu_f32((uint32_t)v));
    return alu_f64_bits((double)(int64_t)v);
  case PTX_TYPE_F16:
  case PTX_TYPE_BF16:
    if (is_f32) return alu_cvt(v & 0xffffffffull, type, PTX_TYPE_F32, PTX_RND_RN, 0);
    if (is_f64) return alu_cvt(v, type, PTX_TYPE_F64, PTX_RND_RN, 0);
    return v & 0xffff;
  default: {
    if (is_f32 || is_f64) return v; /* bit pattern of a float literal used as bits */
    uint32_t bits = type_bits(type);
    return bits >= 64 ? v : (v & ((1ull << bits) - 1));
  }
  }
}

uint64_t fx_symbol_value(func_program *p, fx_func *f, uint32_t sym, bool generic, bool *fp_rel) {
  (void)f;
  const ptx_symbol *s = &p->m->symbols[sym];
  uint64_t a = p->sym_addr[sym];
  *fp_rel = false;
  switch (s->space) {
  case PTX_SPACE_SHARED:
  case PTX_SPACE_SHARED_CLUSTER:
    return generic ? FUNC_WINDOW_SHARED + a : a;
  case PTX_SPACE_LOCAL:
    *fp_rel = true;
    return generic ? FUNC_WINDOW_LOCAL + a : a;
  case PTX_SPACE_PARAM:
    if (s->flags & PTX_SYM_ENTRY_PARAM) return generic ? FUNC_WINDOW_PARAM + a : a;
    *fp_rel = true;
    return generic ? FUNC_WINDOW_LOCAL + a : (FX_PARAM_LOCAL_TAG | a);
  default:
    return a;
  }
}

simtvp_status fx_src_op(fx_build *b, const ptx_operand *op, ptx_type type, uint32_t *off) {
  fx_func *f = b->f;
  switch (op->kind) {
  case PTX_OPND_REG:
    /* A predicate (a 4-byte lane mask) read as 64-bit rows would be misaligned and read past it:
     * the parser never emits one, a program image may. (Wider reads of narrower rows stay inside
     * the frame: cta_alloc leaves a row of slack.) */
    if (op->rclass == PTX_RC_PRED && type != PTX_TYPE_NONE && type_bits(type) > 32)
      return fx_unsupported(b, "a predicate register as a 64-bit source");
    *off = fx_reg_off(f, op->rclass, op->index);
    return SIMTVP_OK;
  case PTX_OPND_IMM: {
    uint64_t v = imm_as(op, type);
    *off = fx_const_row(b, v, type_bits(type) > 32 ? 64 : 32);
    break;
  }
  case PTX_OPND_SYMBOL: {
    bool fp_rel;
    uint64_t v = fx_symbol_value(b->p, f, op->index, op->flags & PTX_OPND_GENERIC_SYM, &fp_rel);
    if (fp_rel) return fx_unsupported(b, "address of a local or parameter variable as an operand");
    *off = fx_const_row(b, v + (uint64_t)op->value, type_bits(type) > 32 ? 64 : 32);
    break;
  }
  case PTX_OPND_FUNC:
    *off = fx_const_row(b, func_program_function_addr(b->p, op->index), 64);
    break;
  case PTX_OPND_SREG:
    return fx_unsupported(b, "special register as an operand of this instruction");
  default:
    return fx_unsupported(b, "operand kind not valid here");
  }
  if (*off == FX_NONE) return simtvp_diag_set(b->diag, SIMTVP_ERR_NOMEM, "out of host memory");
  return SIMTVP_OK;
}

simtvp_status fx_src(fx_build *b, uint32_t opnd, ptx_type type, uint32_t *off) {
  if (opnd >= b->pi->nops) return fx_unsupported(b, "missing operand");
  return fx_src_op(b, &b->pi->ops[opnd], type, off);
}

simtvp_status fx_dst_op(fx_build *b, const ptx_operand *op, uint32_t *off) {
  if (op->kind == PTX_OPND_SINK) {
    /* `_`: a scratch row of its own in the constant area, which nothing reads */
    *off = b->f->frame_bytes;
    b->f->frame_bytes += FX_ROW64;
    return SIMTVP_OK;
  }
  if (op->kind != PTX_OPND_REG) return fx_unsupported(b, "destination is not a register");
  return fx_src_op(b, op, PTX_TYPE_NONE, off);
}

simtvp_status fx_dst(fx_build *b, uint32_t opnd, uint32_t *off) {
  if (opnd >= b->pi->nops) return fx_unsupported(b, "missing destination");
  return fx_dst_op(b, &b->pi->ops[opnd], off);
}

simtvp_status fx_pred_src(fx_build *b, const ptx_operand *op, uint32_t *off, uint32_t *neg) {
  *neg = (op->flags & PTX_OPND_NEG) ? FX_FULL : 0;
  if (op->kind == PTX_OPND_IMM) { /* a literal predicate (0 or 1) */
    *off = b->f->off_pt;
    *neg = op->value ? *neg : ~*neg;
    return SIMTVP_OK;
  }
  if (op->kind != PTX_OPND_REG || op->rclass != PTX_RC_PRED)
    return fx_unsupported(b, "operand is not a predicate");
  *off = b->f->off_pred + 4u * op->index;
  return SIMTVP_OK;
}

/* ---- memory operands -------------------------------------------------------------------------- */

simtvp_status fx_mem_operand(fx_build *b, const ptx_operand *op, uint32_t slot) {
  fx_insn *in = b->out;
  uint32_t space = b->pi->space;
  if (space == PTX_SPACE_NONE) space = PTX_SPACE_GENERIC;
  if (space == PTX_SPACE_SHARED_CLUSTER) space = PTX_SPACE_SHARED;
  if (op->kind != PTX_OPND_ADDR) {
    if (op->kind == PTX_OPND_REG) { /* tolerate `[%rd]` decoded as a plain register */
      in->am = op->rclass == PTX_RC_B64 ? FX_AM_R64 : FX_AM_R32;
      in->imm = 0;
      in->space = (uint8_t)(space == PTX_SPACE_PARAM ? FX_SPACE_TPARAM : space);
      return fx_src_op(b, op, PTX_TYPE_U64, &in->o[slot]);
    }
    return fx_unsupported(b, "expected an address operand");
  }
  in->imm = (uint64_t)op->value;
  if (op->base_sym != PTX_NONE) {
    const ptx_symbol *s = &b->p->m->symbols[op->base_sym];
    bool generic = space == PTX_SPACE_GENERIC, fp_rel;
    uint64_t a = fx_symbol_value(b->p, b->f, op->base_sym, generic, &fp_rel);
    uint32_t sspace = s->space == PTX_SPACE_SHARED_CLUSTER ? PTX_SPACE_SHARED : s->space;
    if (!generic && sspace != space && !(space == PTX_SPACE_GLOBAL && sspace == PTX_SPACE_CONST))
      return fx_unsupported(b, "variable is not in the instruction's state space");
    if (space == PTX_SPACE_PARAM) {
      if (s->flags & PTX_SYM_ENTRY_PARAM) {
        in->space = FX_SPACE_KPARAM;
        in->am = FX_AM_IMM;
        in->imm += a;
      } else {
        in->space = PTX_SPACE_LOCAL;
        in->am = FX_AM_FP;
        in->imm += a & ~FX_PARAM_LOCAL_TAG;
      }
      return SIMTVP_OK;
    }
    in->space = (uint8_t)space;
    in->am = fp_rel ? FX_AM_FP : FX_AM_IMM;
    in->imm += a;
    return SIMTVP_OK;
  }
  if (op->index != PTX_NONE) {
    in->am = op->rclass == PTX_RC_B64 ? FX_AM_R64 : FX_AM_R32;
    in->space = (uint8_t)(space == PTX_SPACE_PARAM ? FX_SPACE_TPARAM : space);
    ptx_operand r = *op;
    r.kind = PTX_OPND_REG;
    return fx_src_op(b, &r, PTX_TYPE_U64, &in->o[slot]);
  }
  in->am = FX_AM_IMM;
  in->space = (uint8_t)(space == PTX_SPACE_PARAM ? FX_SPACE_KPARAM : space);
  return SIMTVP_OK;
}

/* ---- layout ----------------------------------------------------------------------------------- */

/* Bounds on what one function may ask for (a module from a program image is checked for
 * consistency, not for size): a warp's register frame and a thread's local frame. Far above what
 * nvcc emits (a kernel with 100k virtual 32-bit registers has a 13 MB frame). */
#define FX_MAX_WARP_FRAME (256u << 20)
#define FX_MAX_LOCAL_FRAME (64u << 20)

static simtvp_status too_big(const fx_func *f, simtvp_diag *diag, const char *what, uint64_t bytes,
                             uint64_t limit) {
  return simtvp_diag_set(diag, SIMTVP_ERR_LIMIT, "function %s needs %llu bytes of %s, more than the %llu this "
                         "engine allows", f->pf->name ? f->pf->name : "?", (unsigned long long)bytes, what,
                         (unsigned long long)limit);
}

static simtvp_status share_rows(const func_program *p, fx_func *f, uint32_t *rows32, uint32_t *rows64,
                                simtvp_diag *diag);

static simtvp_status layout_function(func_program *p, fx_func *f, simtvp_diag *diag) {
  const ptx_module *m = p->m;
  const ptx_function *pf = f->pf;
  uint64_t need = align_up(4ull * pf->n_regs[PTX_RC_PRED], 128) + (uint64_t)FX_ROW32 * pf->n_regs[PTX_RC_B32] +
                  (uint64_t)FX_ROW64 * pf->n_regs[PTX_RC_B64] + (uint64_t)FX_ROW128 * pf->n_regs[PTX_RC_B128] + 128;
  if (need > FX_MAX_WARP_FRAME) return too_big(f, diag, "registers per warp", need, FX_MAX_WARP_FRAME);
  uint32_t rows32 = pf->n_regs[PTX_RC_B32], rows64 = pf->n_regs[PTX_RC_B64];
  simtvp_status st = share_rows(p, f, &rows32, &rows64, diag);
  if (st != SIMTVP_OK) return st;
  uint32_t off = 0;
  f->off_pred = 0;
  off += 4u * pf->n_regs[PTX_RC_PRED];
  off = (uint32_t)align_up(off, 128);
  f->off_b32 = off;
  off += FX_ROW32 * rows32;
  f->off_b64 = off;
  off += FX_ROW64 * rows64;
  f->off_b128 = off;
  off += FX_ROW128 * pf->n_regs[PTX_RC_B128];
  f->off_const = off;
  f->off_pt = off;           /* first word of the constant area */
  f->frame_bytes = off + 128; /* the PT block */

  /* local frame: parameters and return values (device functions only) */
  uint64_t n64 = f->is_entry ? 0 : (uint64_t)pf->n_params + pf->n_rets;
  if (n64 > (1u << 16)) return too_big(f, diag, "parameters and return values (count)", n64, 1u << 16);
  uint32_t n = (uint32_t)n64;
  f->n_params = f->is_entry ? 0 : pf->n_params;
  f->n_rets = f->is_entry ? 0 : pf->n_rets;
  f->param_off = calloc(n ? n : 1, sizeof *f->param_off);
  f->param_size = calloc(n ? n : 1, sizeof *f->param_size);
  if (!f->param_off || !f->param_size) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  uint64_t lm = 0;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t sym = i < pf->n_params ? m->param_list[pf->first_param + i]
                                    : m->param_list[pf->first_ret + (i - pf->n_params)];
    const ptx_symbol *s = &m->symbols[sym];
    uint64_t al = s->align ? s->align : (s->size >= 8 ? 8 : s->size ? s->size : 1);
    if (al > 16) al = 16;
    lm = align_up(lm, al);
    f->param_off[i] = (uint32_t)lm;
    f->param_size[i] = (uint32_t)s->size;
    p->sym_addr[sym] = lm;
    lm += s->size;
    if (s->size > FX_MAX_LOCAL_FRAME || lm > FX_MAX_LOCAL_FRAME)
      return too_big(f, diag, "parameters and return values", lm, FX_MAX_LOCAL_FRAME);
  }
  if (f->is_entry) { /* the launch copies the parameter space: bound it here, not at launch */
    uint64_t kp = pf->res.param_bytes;
    for (uint32_t i = 0; i < pf->n_params; i++) {
      const ptx_symbol *s = &m->symbols[m->param_list[pf->first_param + i]];
      uint64_t end = s->offset + s->size;
      if (end < s->offset) end = UINT64_MAX;
      if (end > kp) kp = end;
    }
    if (kp > FX_MAX_KERNEL_PARAMS) return too_big(f, diag, "kernel parameters", kp, FX_MAX_KERNEL_PARAMS);
  }
  f->lm_depot = (uint32_t)align_up(lm, 16);
  uint64_t depot = pf->res.local_bytes, callp = pf->res.call_param_bytes, shared = 0;
  for (uint32_t s = 0; s < m->n_symbols; s++) {
    const ptx_symbol *sy = &m->symbols[s];
    if (sy->function != f->index) continue;
    if (sy->space == PTX_SPACE_LOCAL && sy->offset + sy->size > depot) depot = sy->offset + sy->size;
    if (sy->space == PTX_SPACE_PARAM && (sy->flags & PTX_SYM_CALL_PARAM) &&
        sy->offset + sy->size > callp)
      callp = sy->offset + sy->size;
    if ((sy->space == PTX_SPACE_SHARED || sy->space == PTX_SPACE_SHARED_CLUSTER) &&
        !(sy->flags & PTX_SYM_EXTERN) && sy->offset + sy->size > shared)
      shared = sy->offset + sy->size;
  }
  uint64_t lm_bytes = align_up(align_up(align_up(lm, 16) + depot, 16) + callp, 16);
  if (lm > FX_MAX_LOCAL_FRAME || depot > FX_MAX_LOCAL_FRAME || callp > FX_MAX_LOCAL_FRAME ||
      lm_bytes > FX_MAX_LOCAL_FRAME)
    return too_big(f, diag, "local memory per thread", lm_bytes, FX_MAX_LOCAL_FRAME);
  if (shared > UINT32_MAX / 4) return too_big(f, diag, "shared memory", shared, UINT32_MAX / 4);
  f->lm_callp = (uint32_t)align_up(f->lm_depot + depot, 16);
  f->lm_bytes = (uint32_t)align_up(f->lm_callp + callp, 16);
  f->shared_bytes = (uint32_t)shared;
  return SIMTVP_OK;
}

/* Names of extern functions the engine implements itself. */
static uint8_t builtin_of(const char *name) {
  if (!name) return FX_BI_NONE;
  if (!strcmp(name, "vprintf")) return FX_BI_VPRINTF;
  if (!strcmp(name, "malloc")) return FX_BI_MALLOC;
  if (!strcmp(name, "free")) return FX_BI_FREE;
  if (!strcmp(name, "__assertfail")) return FX_BI_ASSERTFAIL;
  return FX_BI_NONE;
}

static simtvp_status place_symbols(func_program *p, simtvp_diag *diag) {
  const ptx_module *m = p->m;
  /* shared memory: [module-scope][each entry's own (overlapping)][non-entry functions][dynamic] */
  p->shared_module_bytes = (uint32_t)align_up(m->shared_segment_bytes, 16);
  uint32_t entry_max = 0, funcs = 0;
  for (uint32_t i = 0; i < m->n_functions; i++) {
    fx_func *f = &p->funcs[i];
    if (!f->has_body) continue;
    if (f->is_entry) {
      f->shared_base = p->shared_module_bytes;
      if (f->shared_bytes > entry_max) entry_max = f->shared_bytes;
    }
  }
  entry_max = (uint32_t)align_up(entry_max, 16);
  for (uint32_t i = 0; i < m->n_functions; i++) {
    fx_func *f = &p->funcs[i];
    if (!f->has_body || f->is_entry || !f->shared_bytes) continue;
    f->shared_base = p->shared_module_bytes + entry_max + funcs;
    funcs += (uint32_t)align_up(f->shared_bytes, 16);
  }
  p->shared_funcs_bytes = entry_max + funcs;
  uint32_t dyn_base = p->shared_module_bytes + p->shared_funcs_bytes;

  for (uint32_t s = 0; s < m->n_symbols; s++) {
    const ptx_symbol *sy = &m->symbols[s];
    bool module_scope = sy->function == PTX_NONE;
    switch (sy->space) {
    case PTX_SPACE_GLOBAL:
      p->sym_addr[s] = (module_scope && p->pl.symbol_addr && p->pl.symbol_addr[s] != UINT64_MAX)
                           ? p->pl.symbol_addr[s]
                           : p->pl.global_base + sy->offset;
      break;
    case PTX_SPACE_CONST:
      p->sym_addr[s] = (module_scope && p->pl.symbol_addr && p->pl.symbol_addr[s] != UINT64_MAX)
                           ? p->pl.symbol_addr[s]
                           : p->pl.const_base + sy->offset;
      break;
    case PTX_SPACE_SHARED:
    case PTX_SPACE_SHARED_CLUSTER:
      if ((sy->flags & PTX_SYM_EXTERN) && sy->size == 0)
        p->sym_addr[s] = dyn_base;
      else if (module_scope)
        p->sym_addr[s] = sy->offset;
      else
        p->sym_addr[s] = p->funcs[sy->function].shared_base + sy->offset;
      break;
    case PTX_SPACE_LOCAL:
      p->sym_addr[s] = module_scope ? sy->offset : p->funcs[sy->function].lm_depot + sy->offset;
      break;
    case PTX_SPACE_PARAM:
      if (sy->flags & PTX_SYM_ENTRY_PARAM)
        p->sym_addr[s] = sy->offset;
      else if (sy->flags & PTX_SYM_CALL_PARAM)
        p->sym_addr[s] = (sy->function != PTX_NONE ? p->funcs[sy->function].lm_callp : 0) + sy->offset;
      /* function params were placed by layout_function */
      break;
    default:
      break;
    }
  }
  (void)diag;
  return SIMTVP_OK;
}

/* ---- program ---------------------------------------------------------------------------------- */

/* A register-only instruction (func_warp_run_plain, func_program_insn_plain): ALU or SFU work
 * that touches no memory (txq and istypep read a descriptor, wgmma reads shared memory) and reads
 * no clock (%clock*, %globaltimer*: their value depends on when the warp executes it). */
static bool insn_reads_clock(const ptx_module *m, const ptx_insn *pi) {
  for (uint32_t i = 0; i < pi->nops && i < PTX_MAX_OPERANDS; i++) {
    const ptx_operand *o = &pi->ops[i];
    bool list = o->kind == PTX_OPND_VEC || o->kind == PTX_OPND_LIST;
    for (uint32_t e = 0; e < (list ? o->count : 1u); e++) {
      const ptx_operand *x = list ? &m->opnd_pool[o->index + e] : o;
      if (x->kind == PTX_OPND_SREG && x->index >= PTX_SREG_CLOCK && x->index <= PTX_SREG_GLOBALTIMER_HI) return true;
    }
  }
  return false;
}
static bool insn_is_plain(const ptx_module *m, const ptx_insn *pi, const fx_insn *in) {
  if (in->cls != FX_C_ALU && in->cls != FX_C_SFU) return false;
  if (pi->opcode == PTX_OP_TXQ || pi->opcode == PTX_OP_ISTYPEP || pi->opcode == PTX_OP_WGMMA_MMA_ASYNC) return false;
  return !insn_reads_clock(m, pi);
}

static simtvp_status build_function(func_program *p, fx_func *f, const fx_builder *table,
                                    simtvp_diag *diag) {
  const ptx_module *m = p->m;
  const ptx_function *pf = f->pf;
  for (uint32_t k = 0; k < pf->n_insns; k++) {
    uint32_t pc = pf->first_insn + k;
    const ptx_insn *pi = &m->insns[pc];
    fx_insn *in = &p->code[pc];
    fx_build b = {p, f, pi, pc, in, diag};
    memset(in, 0, sizeof *in);
    in->src = pi;
    in->mods = pi->mods;
    in->type = pi->type;
    in->type2 = pi->type2;
    in->cls = FX_C_ALU;
    if (pi->guard != PTX_NONE) {
      in->guard = f->off_pred + 4u * pi->guard;
      in->gneg = pi->guard_neg ? FX_FULL : 0;
    } else {
      in->guard = f->off_pt;
      in->gneg = 0;
    }
    fx_builder builder = pi->opcode < PTX_OP_COUNT ? table[pi->opcode] : NULL;
    if (!builder) return fx_unsupported(&b, "instruction not implemented by the functional engine");
    simtvp_status st = builder(&b);
    if (st != SIMTVP_OK) return st;
    if (!in->fn) return fx_unsupported(&b, "no handler for this form of the instruction");
    in->plain = insn_is_plain(m, pi, in);
    in->clock = insn_reads_clock(m, pi);
    /* register-only work, and ld/st of shared, local or parameter memory (host blocks of the
     * engine), touch no device memory: step and run loops skip devmem_tlb_sync before them */
    in->nosync = in->plain || ((pi->opcode == PTX_OP_LD || pi->opcode == PTX_OP_ST) && in->cls == FX_C_MEM &&
                               (in->space == PTX_SPACE_SHARED || in->space == PTX_SPACE_LOCAL ||
                                in->space == PTX_SPACE_PARAM));
    in->run = (uint8_t)((in->cls == FX_C_BAR || in->cls == FX_C_RET ? FX_RUN_RECORD : 0) |
                        (in->nosync ? 0 : FX_RUN_SYNC) | (in->clock ? FX_RUN_CLOCK : 0));
  }
  /* constant image: PT word then the constant rows */
  uint32_t img_bytes = f->frame_bytes - f->off_const;
  f->const_img = calloc(1, img_bytes);
  if (!f->const_img) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  uint32_t *pt = (uint32_t *)f->const_img;
  pt[0] = FX_FULL;
  for (uint32_t i = 0; i < f->n_const32; i++) {
    uint32_t *row = (uint32_t *)(f->const_img + (f->const32_val[2 * i + 1] - f->off_const));
    for (int l = 0; l < 32; l++) row[l] = (uint32_t)f->const32_val[2 * i];
  }
  for (uint32_t i = 0; i < f->n_const64; i++) {
    uint64_t *row = (uint64_t *)(f->const_img + (f->const64_val[2 * i + 1] - f->off_const));
    for (int l = 0; l < 32; l++) row[l] = f->const64_val[2 * i];
  }
  free(f->const32_val);
  free(f->const64_val);
  f->const32_val = f->const64_val = NULL;
  f->built = true;
  return SIMTVP_OK;
}

/* ---- registers read before written ------------------------------------------------------------
 * A new register frame (a CTA's kernel frame, a callee's frame) holds whatever the last user of
 * that memory left, and zeroing all of it at every CTA start cost more than short kernels execute
 * (a calloc/memset of twice the frame per warp). PTX leaves a register's value undefined until it
 * is written; the engine gives such reads zero, so a frame zeroes exactly the registers a thread
 * may read before it has written them, found here once per function:
 *
 * - every thread follows a path of the CFG (the SIMT stack only serialises the paths of a warp's
 *   threads), so a register read by a thread at instruction U was written by that thread when an
 *   unguarded full write of it lies on every path from the function's entry to U: a forward
 *   "definitely written" analysis over the basic blocks (must: intersection at joins);
 * - a full write is one whose handler stores the whole register element of each lane it executes
 *   for: lane-local instructions (mov, ld, cvt, cvta and the integer/float arithmetic, logic,
 *   shift, setp and selp handlers) with the destination's width equal to its register class
 *   (16-bit results are stored zero-extended to 32 bits); anything else counts as a read;
 * - instructions outside that list may read lanes other than their own (shfl, mma, wmma, …) or
 *   registers at other times (call arguments and returns, bar.red): every register they name is
 *   always zeroed;
 * - a read wider than its register's row (a 64-bit operand in a 32-bit register: the parser
 *   accepts it, and the handler then reads into the next row) makes the whole register area
 *   zeroed for the function, as it was before. */

typedef struct fx_rw {
  const fx_func *f;
  uint32_t base[PTX_RC_COUNT]; /* first row index of each class */
  uint32_t n_rows;
  bool zero_all;
} fx_rw;

static uint32_t rw_row(fx_rw *c, uint8_t rclass, uint32_t index) {
  if (rclass >= PTX_RC_COUNT || index >= c->f->pf->n_regs[rclass]) {
    c->zero_all = true; /* a register the function does not declare */
    return UINT32_MAX;
  }
  return c->base[rclass] + index;
}

static uint32_t rc_bits(uint8_t rclass) { return rclass == PTX_RC_PRED ? 1 : fx_rc_bits(rclass); }
static uint32_t type_bits_of(uint8_t t) { return t == PTX_TYPE_PRED ? 1 : 8u * ptx_type_bytes((ptx_type)t); }

/* Lane-local instructions whose handlers write full elements of the lanes they execute for. */
static bool rw_lane_local(const ptx_insn *in) {
  switch ((ptx_opcode)in->opcode) {
  case PTX_OP_MOV: case PTX_OP_LD: case PTX_OP_ST: case PTX_OP_CVT: case PTX_OP_CVTA:
  case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_MAD: case PTX_OP_FMA:
  case PTX_OP_MIN: case PTX_OP_MAX: case PTX_OP_NEG: case PTX_OP_ABS: case PTX_OP_AND:
  case PTX_OP_OR: case PTX_OP_XOR: case PTX_OP_NOT: case PTX_OP_SHL: case PTX_OP_SHR:
  case PTX_OP_SETP: case PTX_OP_SELP: case PTX_OP_BRA: case PTX_OP_EXIT: case PTX_OP_RET:
    return true;
  default:
    return false;
  }
}

/* Operand roles of one instruction: each register with whether it is written in full (a
 * definite write) and the bits each lane reads from it (0: none). */
typedef struct fx_rw_op {
  uint32_t row;
  bool def;
  uint32_t read_bits;
} fx_rw_op;

static void rw_add(fx_rw *c, fx_rw_op *ops, uint32_t *n, uint8_t rclass, uint32_t index, bool def,
                   uint32_t read_bits) {
  uint32_t row = rw_row(c, rclass, index);
  if (row == UINT32_MAX || *n >= 64) {
    if (*n >= 64) c->zero_all = true;
    return;
  }
  if (rclass == PTX_RC_PRED) read_bits = read_bits ? 1 : 0; /* a lane mask word, read as such */
  ops[(*n)++] = (fx_rw_op){row, def, read_bits};
}

/* cvt's packed forms (cvt.rn.f16x2.f32 d, a, b; cvt.f16x2.e4m3x2 d, a) read and write by type;
 * the others by register class. */
static bool rw_cvt_by_class(const ptx_insn *in) {
  const uint8_t x2[] = {PTX_TYPE_F16X2, PTX_TYPE_BF16X2, PTX_TYPE_E4M3X2, PTX_TYPE_E5M2X2};
  for (unsigned k = 0; k < sizeof x2; k++)
    if (in->type == x2[k] || in->type2 == x2[k]) return false;
  return in->nops == 2;
}

/* The bits a lane-local instruction reads from source operand i (its width rules). */
static uint32_t rw_src_bits(const ptx_insn *in, uint32_t i, uint8_t rclass) {
  switch ((ptx_opcode)in->opcode) {
  case PTX_OP_CVT:
    return rw_cvt_by_class(in) ? rc_bits(rclass) : type_bits_of(in->type2);
  case PTX_OP_MOV: case PTX_OP_LD: case PTX_OP_ST:
    return rc_bits(rclass); /* these handlers read by register class */
  case PTX_OP_SHL: case PTX_OP_SHR:
    if (i == 2) return 32; /* the shift amount is a u32 */
    break;
  case PTX_OP_MAD:
    if (i == 3 && (in->mods & PTX_MOD_WIDE)) return 2 * type_bits_of(in->type);
    break;
  case PTX_OP_SETP:
    if (i >= 3) return 1; /* the combining predicate */
    break;
  case PTX_OP_SELP:
    if (i == 3) return 1;
    break;
  default:
    break;
  }
  return type_bits_of(in->type);
}

/* The register operands of instruction `in` into ops; returns whether it is lane-local. */
static bool rw_collect(fx_rw *c, const ptx_module *m, const ptx_insn *in, fx_rw_op *ops, uint32_t *n) {
  *n = 0;
  bool local = rw_lane_local(in);
  if (in->guard != PTX_NONE) rw_add(c, ops, n, PTX_RC_PRED, in->guard, false, 1);
  bool dest = ptx_insn_has_dest(in) || in->opcode == PTX_OP_CALL;
  bool guarded = in->guard != PTX_NONE;
  uint32_t opaque_bits = 0; /* what an instruction outside the list may read: its widest type */
  const uint8_t types[4] = {in->type, in->type2, in->type3, in->type4};
  for (int k = 0; k < 4; k++)
    if (types[k] != PTX_TYPE_PRED && 8u * ptx_type_bytes((ptx_type)types[k]) > opaque_bits)
      opaque_bits = 8u * ptx_type_bytes((ptx_type)types[k]);
  for (uint32_t i = 0; i < in->nops && i < PTX_MAX_OPERANDS; i++) {
    const ptx_operand *o = &in->ops[i];
    bool is_dest = i == 0 && dest;
    bool list = o->kind == PTX_OPND_VEC || o->kind == PTX_OPND_LIST;
    for (uint32_t e = 0; e < (list ? o->count : 1u); e++) {
      const ptx_operand *x = list ? &m->opnd_pool[o->index + e] : o;
      if (x->kind == PTX_OPND_ADDR) { /* the base register, read by its class (FX_AM_R32/R64) */
        if (x->index != PTX_NONE) rw_add(c, ops, n, x->rclass, x->index, false, rc_bits(x->rclass));
        continue;
      }
      if (x->kind != PTX_OPND_REG) continue;
      uint32_t rb = rc_bits(x->rclass);
      if (!local) {
        /* dests count as reads (a partial write keeps the rest); sources may be read this wide */
        uint32_t want = is_dest ? 0 : opaque_bits;
        if (x->rclass != PTX_RC_PRED && want > rb) c->zero_all = true;
        rw_add(c, ops, n, x->rclass, x->index, false, is_dest ? rb : (want ? want : rb));
        continue;
      }
      if (is_dest) {
        uint32_t wb = type_bits_of(in->type);
        if ((in->opcode == PTX_OP_MUL || in->opcode == PTX_OP_MAD) && (in->mods & PTX_MOD_WIDE)) wb *= 2;
        if (in->opcode == PTX_OP_SETP) wb = 1;
        /* mov/ld/cvt store by register class; mov's unpack into a vector is left as a read */
        bool by_class = in->opcode == PTX_OP_LD || (in->opcode == PTX_OP_CVT && rw_cvt_by_class(in)) ||
                        (in->opcode == PTX_OP_MOV && o->kind == PTX_OPND_REG);
        bool full = !guarded && (by_class || wb == rb || (rb == 32 && wb >= 8 && wb < 32 &&
                                                          x->rclass == PTX_RC_B32));
        if (in->opcode == PTX_OP_MOV && o->kind != PTX_OPND_REG) full = false;
        rw_add(c, ops, n, x->rclass, x->index, full, full ? 0 : rb);
        continue;
      }
      uint32_t want = rw_src_bits(in, i, x->rclass);
      if (x->rclass != PTX_RC_PRED && want > rb) c->zero_all = true;
      rw_add(c, ops, n, x->rclass, x->index, false, rb);
    }
    if (o->flags & PTX_OPND_PAIR) /* setp's second destination p|q */
      rw_add(c, ops, n, PTX_RC_PRED, o->pair, local && is_dest && !guarded, local && is_dest && !guarded ? 0 : 1);
  }
  return local;
}

static inline bool bit_get(const uint64_t *s, uint32_t b) { return (s[b >> 6] >> (b & 63)) & 1; }
static inline void bit_set(uint64_t *s, uint32_t b) { s[b >> 6] |= 1ull << (b & 63); }

/* The class of row r. */
static uint32_t rw_class(const fx_rw *c, uint32_t r) {
  return r < c->base[PTX_RC_B32] ? PTX_RC_PRED : r < c->base[PTX_RC_B64] ? PTX_RC_B32 : r < c->base[PTX_RC_B128] ? PTX_RC_B64 : PTX_RC_B128;
}

/* Byte offset and size of row r in the frame. */
static void rw_row_place(const fx_rw *c, uint32_t r, uint32_t *off, uint32_t *bytes) {
  static const uint32_t size[PTX_RC_COUNT] = {[PTX_RC_PRED] = 4, [PTX_RC_B32] = FX_ROW32, [PTX_RC_B64] = FX_ROW64,
                                              [PTX_RC_B128] = FX_ROW128};
  uint32_t k = rw_class(c, r);
  *off = fx_reg_off(c->f, k, r - c->base[k]);
  *bytes = size[k];
}

/* rw's rows of function f (fx_find_unwritten_reads, share_rows). */
static void rw_init(fx_rw *c, const fx_func *f) {
  const ptx_function *pf = f->pf;
  *c = (fx_rw){.f = f};
  c->base[PTX_RC_PRED] = 0;
  c->base[PTX_RC_B32] = pf->n_regs[PTX_RC_PRED];
  c->base[PTX_RC_B64] = c->base[PTX_RC_B32] + pf->n_regs[PTX_RC_B32];
  c->base[PTX_RC_B128] = c->base[PTX_RC_B64] + pf->n_regs[PTX_RC_B64];
  c->n_rows = c->base[PTX_RC_B128] + pf->n_regs[PTX_RC_B128];
}

/* Whether function pf's blocks carry their successor lists: every block either has successors or
 * lets control leave the function (a module without the lists, which no source in this tree
 * builds, leaves both analyses below on their safe side). */
static bool fx_has_cfg(const ptx_module *m, const ptx_function *pf) {
  if (pf->n_blocks == 0) return false;
  for (uint32_t b = 0; b < pf->n_blocks; b++) {
    const ptx_block *bl = &m->blocks[pf->first_block + b];
    if (bl->n_succ == 0 && !bl->exits) return false;
  }
  return true;
}

simtvp_status fx_find_unwritten_reads(func_program *p, fx_func *f, simtvp_diag *diag) {
  const ptx_module *m = p->m;
  const ptx_function *pf = f->pf;
  fx_rw c;
  rw_init(&c, f);
  free(f->zero_ranges);
  f->zero_ranges = NULL;
  f->n_zero_ranges = 0;
  if (c.n_rows == 0) return SIMTVP_OK;
  const uint32_t nb = pf->n_blocks, fb = pf->first_block;
  const uint64_t W = (c.n_rows + 63) / 64;
  if (!fx_has_cfg(m, pf) || W * (nb + 2) > (64u << 20) / 8) { /* no CFG, or a huge one: zero everything */
    c.zero_all = true;
  }
  uint64_t *in = NULL, *gen = NULL, *need = NULL, *cur = NULL;
  if (!c.zero_all) {
    in = malloc(W * nb * sizeof *in);
    gen = calloc(W * nb, sizeof *gen);
    need = calloc(W, sizeof *need);
    cur = malloc(W * sizeof *cur);
    if (!in || !gen || !need || !cur) {
      free(in), free(gen), free(need), free(cur);
      return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
    }
    fx_rw_op ops[64];
    uint32_t n;
    /* gen: rows a block writes in full */
    for (uint32_t b = 0; b < nb && !c.zero_all; b++) {
      const ptx_block *blk = &m->blocks[fb + b];
      for (uint32_t k = blk->first_insn; k < blk->first_insn + blk->n_insns; k++) {
        rw_collect(&c, m, &m->insns[k], ops, &n);
        for (uint32_t i = 0; i < n; i++)
          if (ops[i].def) bit_set(gen + W * b, ops[i].row);
      }
    }
    /* in[entry] = nothing written; in[b] = intersection of its predecessors' out; start from
     * "everything" and shrink to the greatest fixed point (blocks nothing reaches keep it) */
    memset(in, 0xff, W * nb * sizeof *in);
    memset(in, 0, W * sizeof *in); /* the entry block is the function's first */
    bool changed = true;
    while (changed && !c.zero_all) {
      changed = false;
      for (uint32_t b = 0; b < nb; b++) {
        const ptx_block *blk = &m->blocks[fb + b];
        for (uint32_t s = 0; s < blk->n_succ; s++) {
          uint32_t t = m->succ_list[blk->first_succ + s] - fb;
          if (t >= nb) continue;
          for (uint64_t w = 0; w < W; w++) {
            uint64_t v = in[W * t + w] & (in[W * b + w] | gen[W * b + w]);
            if (v != in[W * t + w]) {
              in[W * t + w] = v;
              changed = true;
            }
          }
        }
      }
    }
    /* reads of rows not yet written in full, and every row of the other instructions */
    for (uint32_t b = 0; b < nb && !c.zero_all; b++) {
      const ptx_block *blk = &m->blocks[fb + b];
      memcpy(cur, in + W * b, W * sizeof *cur);
      for (uint32_t k = blk->first_insn; k < blk->first_insn + blk->n_insns; k++) {
        bool local = rw_collect(&c, m, &m->insns[k], ops, &n);
        for (uint32_t i = 0; i < n; i++)
          if (!local || (ops[i].read_bits && !bit_get(cur, ops[i].row))) bit_set(need, ops[i].row);
        for (uint32_t i = 0; i < n; i++)
          if (ops[i].def) bit_set(cur, ops[i].row);
      }
    }
  }
  simtvp_status st = SIMTVP_OK;
  if (c.zero_all) { /* one range: the whole register area */
    f->zero_ranges = malloc(2 * sizeof *f->zero_ranges);
    if (!f->zero_ranges) st = simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
    else if (f->off_const) {
      f->zero_ranges[0] = 0;
      f->zero_ranges[1] = f->off_const;
      f->n_zero_ranges = 1;
    }
  } else {
    uint32_t cnt = 0;
    for (uint32_t r = 0; r < c.n_rows; r++) cnt += bit_get(need, r);
    f->zero_ranges = malloc(2 * (cnt ? cnt : 1) * sizeof *f->zero_ranges);
    if (!f->zero_ranges) {
      st = simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
    } else {
      for (uint32_t r = 0; r < c.n_rows; r++) {
        if (!bit_get(need, r)) continue;
        uint32_t off, bytes;
        rw_row_place(&c, r, &off, &bytes);
        uint32_t k = f->n_zero_ranges;
        if (k && f->zero_ranges[2 * k - 2] + f->zero_ranges[2 * k - 1] == off) {
          f->zero_ranges[2 * k - 1] += bytes;
        } else {
          f->zero_ranges[2 * k] = off;
          f->zero_ranges[2 * k + 1] = bytes;
          f->n_zero_ranges++;
        }
      }
    }
  }
  free(in), free(gen), free(need), free(cur);
  return st;
}

/* Rows for the 32-bit and 64-bit registers of f (docs/func.md "Register frames"). nvcc's PTX
 * names every value anew, so a kernel declares far more registers than it keeps live: SGEMM's
 * unrolled tile loop loads 32 values into 32 registers, each read once by the next fma. Two
 * registers share a row when their live ranges never meet, as a register allocator would place
 * them, with liveness taken per thread: a thread's lane of a row is written only by instructions
 * that thread runs (every write is masked by the active lanes, and a guarded or partial write
 * counts as a read of what it keeps), so what a thread can still read is what its own paths
 * through the CFG read. Liveness is the usual backward dataflow over the CFG, for the registers
 * some block reads before writing them in full (the others live inside blocks); a register's
 * range is the hull, in instruction order, of the instructions that touch it and of the blocks
 * it is live into or out of. Ranges are packed into rows by a linear scan (each range, by its
 * start, into the lowest row whose occupant ended before), so registers of one instruction never
 * share a row (each range holds that instruction). Registers an instruction outside the
 * lane-local list touches (rw_lane_local: shuffles and votes read other lanes' rows, calls and
 * the rest are not modelled here) keep a row of their own, and so do the registers live across
 * blocks of a function too large for the dataflow's bit sets; registers no instruction touches
 * share one row.
 * Only the frame's size and locality change: instructions read and write the same values
 * (statistics and results are byte-identical). Off when a debugger is attached (it reads any
 * register at any time, e->zero_frames), for functions without a CFG, and where rw_collect
 * meets a register read wider than its class (the frame's neighbouring rows are then seen). */
static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* The most words of the liveness bit sets (blocks × words per set) a function may take. */
#define FX_SHARE_MAX_WORDS (1u << 21)

/* Whether row r is a 32-bit or 64-bit register (the classes that share rows). */
static bool shares_class(const fx_rw *c, uint32_t r) {
  uint32_t k = rw_class(c, r);
  return k == PTX_RC_B32 || k == PTX_RC_B64;
}

/* out = the union of the live-in sets (wg words each, by block of the function starting at block
 * fb, nb blocks) of block bl's successors. */
static void live_out(const ptx_module *m, const ptx_block *bl, uint32_t fb, uint32_t nb, const uint64_t *in,
                     size_t wg, uint64_t *out) {
  memset(out, 0, wg * sizeof *out);
  for (uint32_t s = 0; s < bl->n_succ; s++) {
    uint32_t t = m->succ_list[bl->first_succ + s] - fb;
    if (t < nb)
      for (size_t w = 0; w < wg; w++) out[w] |= in[wg * t + w];
  }
}

static simtvp_status share_rows(const func_program *p, fx_func *f, uint32_t *rows32, uint32_t *rows64,
                                simtvp_diag *diag) {
  const ptx_module *m = p->m;
  const ptx_function *pf = f->pf;
  free(f->row32), free(f->row64);
  f->row32 = f->row64 = NULL;
  fx_rw c;
  rw_init(&c, f);
  if (p->e->zero_frames || !f->has_body || pf->n_blocks == 0 || c.n_rows == 0) return SIMTVP_OK;
  const uint32_t nb = pf->n_blocks, fb = pf->first_block, nr = c.n_rows, NONE = UINT32_MAX;
  const size_t wr = ((size_t)nr + 63) / 64;
  uint32_t *lo = malloc(nr * sizeof *lo), *hi = malloc(nr * sizeof *hi), *gid = malloc(nr * sizeof *gid);
  uint32_t *g_row = malloc(nr * sizeof *g_row), *row_end = malloc(nr * sizeof *row_end);
  uint8_t *pinned = calloc(nr, 1), *exposed = calloc(nr, 1);
  uint64_t *written = calloc(wr, sizeof *written), *order = malloc(nr * sizeof *order);
  uint64_t *use = NULL, *kill = NULL, *in = NULL, *out = NULL;
  simtvp_status st = SIMTVP_OK;
  if (!lo || !hi || !gid || !g_row || !row_end || !pinned || !exposed || !written || !order) {
    st = simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
    goto done;
  }
  for (uint32_t r = 0; r < nr; r++) lo[r] = NONE, hi[r] = 0, gid[r] = NONE;
  fx_rw_op ops[64];
  uint32_t n;
  /* the instructions touching each register (its range's first hull), the registers an
   * instruction outside the lane-local list touches, and those a block reads before writing */
  for (uint32_t b = 0; b < nb && !c.zero_all; b++) {
    const ptx_block *bl = &m->blocks[fb + b];
    for (uint32_t k = bl->first_insn; k < bl->first_insn + bl->n_insns; k++) {
      bool local = rw_collect(&c, m, &m->insns[k], ops, &n);
      for (uint32_t i = 0; i < n; i++) {
        uint32_t r = ops[i].row;
        if (k < lo[r]) lo[r] = k;
        if (k > hi[r]) hi[r] = k;
        if (!local) pinned[r] = 1;
        if (ops[i].read_bits && !bit_get(written, r)) exposed[r] = 1;
      }
      for (uint32_t i = 0; i < n; i++)
        if (ops[i].def) bit_set(written, ops[i].row);
    }
    for (uint32_t k = bl->first_insn; k < bl->first_insn + bl->n_insns; k++) { /* clear what it wrote */
      rw_collect(&c, m, &m->insns[k], ops, &n);
      for (uint32_t i = 0; i < n; i++) written[ops[i].row >> 6] = 0;
    }
  }
  if (c.zero_all) goto done; /* (rows as declared) */
  /* registers live across blocks: the dataflow's, unless its bit sets would be too large */
  uint32_t ng = 0;
  for (uint32_t r = 0; r < nr; r++)
    if (exposed[r] && !pinned[r] && shares_class(&c, r)) g_row[ng] = r, gid[r] = ng++;
  const size_t wg = ((size_t)ng + 63) / 64;
  if (ng && (wg * nb > FX_SHARE_MAX_WORDS || !fx_has_cfg(m, pf))) {
    for (uint32_t g = 0; g < ng; g++) pinned[g_row[g]] = 1;
    ng = 0;
  }
  if (ng) {
    use = calloc(wg * nb, sizeof *use);
    kill = calloc(wg * nb, sizeof *kill);
    in = calloc(wg * nb, sizeof *in);
    out = calloc(wg, sizeof *out);
    if (!use || !kill || !in || !out) {
      st = simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
      goto done;
    }
    for (uint32_t b = 0; b < nb; b++) { /* use: read before written in full; kill: written in full */
      const ptx_block *bl = &m->blocks[fb + b];
      uint64_t *u = use + wg * b, *x = kill + wg * b;
      for (uint32_t k = bl->first_insn; k < bl->first_insn + bl->n_insns; k++) {
        rw_collect(&c, m, &m->insns[k], ops, &n);
        for (uint32_t i = 0; i < n; i++) {
          uint32_t g = gid[ops[i].row];
          if (g != NONE && ops[i].read_bits && !bit_get(x, g)) bit_set(u, g);
        }
        for (uint32_t i = 0; i < n; i++) {
          uint32_t g = gid[ops[i].row];
          if (g != NONE && ops[i].def) bit_set(x, g);
        }
      }
    }
    /* in[b] = use[b] | (out[b] & ~kill[b]), out[b] = the union of its successors' in: the least
     * fixed point, blocks visited last to first */
    memcpy(in, use, wg * nb * sizeof *in);
    for (bool changed = true; changed;) {
      changed = false;
      for (uint32_t b = nb; b-- > 0;) {
        live_out(m, &m->blocks[fb + b], fb, nb, in, wg, out);
        for (size_t w = 0; w < wg; w++) {
          uint64_t v = use[wg * b + w] | (out[w] & ~kill[wg * b + w]);
          if (v != in[wg * b + w]) in[wg * b + w] = v, changed = true;
        }
      }
    }
    /* a register live into a block spans it from its first instruction, one live out of it to
     * its last */
    for (uint32_t b = 0; b < nb; b++) {
      const ptx_block *bl = &m->blocks[fb + b];
      if (!bl->n_insns) continue;
      const uint32_t first = bl->first_insn, last = first + bl->n_insns - 1;
      live_out(m, bl, fb, nb, in, wg, out);
      for (size_t w = 0; w < wg; w++) { /* (the set bits only: a large function has many blocks) */
        for (uint64_t x = in[wg * b + w]; x; x &= x - 1) {
          uint32_t r = g_row[64 * w + (uint32_t)__builtin_ctzll(x)];
          if (first < lo[r]) lo[r] = first;
        }
        for (uint64_t x = out[w]; x; x &= x - 1) {
          uint32_t r = g_row[64 * w + (uint32_t)__builtin_ctzll(x)];
          if (last > hi[r]) hi[r] = last;
        }
      }
    }
  }
  /* rows of their own first, in register order; the untouched registers' row; then the ranges */
  uint32_t *counts[2] = {rows32, rows64}, **maps[2] = {&f->row32, &f->row64};
  const uint32_t classes[2] = {PTX_RC_B32, PTX_RC_B64};
  for (int x = 0; x < 2; x++) {
    const uint32_t r0 = c.base[classes[x]], nx = pf->n_regs[classes[x]];
    uint32_t ranges = 0, unused = 0;
    for (uint32_t i = 0; i < nx; i++) {
      unused += lo[r0 + i] == NONE;
      ranges += lo[r0 + i] != NONE && !pinned[r0 + i];
    }
    if (ranges + unused < 2) continue; /* nothing to share */
    uint32_t *map = malloc((size_t)nx * sizeof *map), own = 0, used = 0, t = 0;
    if (!map) {
      st = simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
      goto done;
    }
    for (uint32_t i = 0; i < nx; i++)
      if (lo[r0 + i] != NONE && pinned[r0 + i]) map[i] = own++;
    if (unused) {
      for (uint32_t i = 0; i < nx; i++)
        if (lo[r0 + i] == NONE) map[i] = own;
      own++;
    }
    for (uint32_t i = 0; i < nx; i++)
      if (lo[r0 + i] != NONE && !pinned[r0 + i]) order[t++] = (uint64_t)lo[r0 + i] << 32 | i;
    qsort(order, ranges, sizeof *order, cmp_u64);
    for (t = 0; t < ranges; t++) {
      uint32_t i = (uint32_t)order[t], start = (uint32_t)(order[t] >> 32), s = 0;
      while (s < used && row_end[s] >= start) s++;
      if (s == used) used++;
      row_end[s] = hi[r0 + i];
      map[i] = own + s;
    }
    *maps[x] = map;
    *counts[x] = own + used;
  }
done:
  free(lo), free(hi), free(gid), free(g_row), free(row_end), free(pinned), free(exposed), free(written);
  free(order), free(use), free(kill), free(in), free(out);
  return st;
}

/* Straight-run lengths per pc (func_program_plain_run): register-only instructions from pc on,
 * not past the end of pc's basic block — a warp reconverges only at a block's first instruction,
 * so func_warp_run_plain runs exactly that many. */
static simtvp_status plain_runs(func_program *p, simtvp_diag *diag) {
  const ptx_module *m = p->m;
  p->plain_run = calloc((size_t)m->n_insns + 1, sizeof *p->plain_run);
  if (!p->plain_run) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  for (uint32_t b = 0; b < m->n_blocks; b++) {
    const ptx_block *blk = &m->blocks[b];
    uint32_t run = 0;
    for (uint32_t k = blk->first_insn + blk->n_insns; k-- > blk->first_insn;) {
      run = k < m->n_insns && p->code[k].plain ? run + 1 : 0;
      if (k < m->n_insns) p->plain_run[k] = run;
    }
  }
  return SIMTVP_OK;
}

/* PTX line statistics: the program's instructions with their PTX line and .loc source place. */
static simtvp_status register_code(func_program *p, simtvp_diag *diag) {
  const ptx_module *m = p->m;
  stats_code_loc *locs = calloc(m->n_insns ? m->n_insns : 1, sizeof *locs);
  if (!locs) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  for (uint32_t i = 0; i < m->n_insns; i++) {
    locs[i].ptx_line = m->insns[i].ptx_line;
    locs[i].src_file = m->insns[i].loc_file;
    locs[i].src_line = m->insns[i].loc_line;
  }
  p->line_stats = stats_code_register(p->e->st, m->source_name ? m->source_name : "<ptx>", locs, m->n_insns,
                                m->files, m->n_files);
  free(locs);
  if (!p->line_stats) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  return SIMTVP_OK;
}

simtvp_status func_program_load(func_engine *e, const ptx_module *m, const func_placement *pl,
                                func_program **out, simtvp_diag *diag) {
  *out = NULL;
  if (!e || !m) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "func_program_load: no engine or module");
  func_program *p = calloc(1, sizeof *p);
  if (!p) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  p->e = e;
  p->m = m;
  if (pl) p->pl = *pl;
  p->code = calloc(m->n_insns + 1, sizeof *p->code);
  p->funcs = calloc(m->n_functions ? m->n_functions : 1, sizeof *p->funcs);
  p->sym_addr = calloc(m->n_symbols ? m->n_symbols : 1, sizeof *p->sym_addr);
  if (!p->code || !p->funcs || !p->sym_addr) {
    func_program_destroy(p);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  }
  simtvp_status st = SIMTVP_OK;
  for (uint32_t i = 0; i < m->n_functions && st == SIMTVP_OK; i++) {
    fx_func *f = &p->funcs[i];
    f->index = i;
    f->pf = &m->functions[i];
    f->is_entry = f->pf->flags & PTX_FN_ENTRY;
    f->has_body = !(f->pf->flags & (PTX_FN_DECL_ONLY | PTX_FN_PROTOTYPE));
    f->builtin = f->has_body ? FX_BI_NONE : builtin_of(f->pf->name);
    st = layout_function(p, f, diag);
  }
  if (st == SIMTVP_OK) st = place_symbols(p, diag);
  p->code[m->n_insns].fn = fx_lost; /* sentinel: see fx_lost */
  p->code[m->n_insns].cls = FX_C_NOP;
  p->code[m->n_insns].run = FX_RUN_SYNC; /* (as its nosync says) */
  if (st == SIMTVP_OK) {
    fx_builder table[PTX_OP_COUNT];
    memset(table, 0, sizeof table);
    fx_register_int(table);
    fx_register_float(table);
    fx_register_cvt(table);
    fx_register_mem(table);
    fx_register_atom(table);
    fx_register_ctrl(table);
    fx_register_warp(table);
    fx_register_sync(table);
    fx_register_call(table);
    fx_register_wmma(table);
    fx_register_tex(table);
    fx_register_async(table);
    fx_register_mma(table);
    for (uint32_t i = 0; i < m->n_functions && st == SIMTVP_OK; i++)
      if (p->funcs[i].has_body) {
        st = build_function(p, &p->funcs[i], table, diag);
        if (st == SIMTVP_OK) st = fx_find_unwritten_reads(p, &p->funcs[i], diag);
      }
  }
  if (st == SIMTVP_OK) st = plain_runs(p, diag);
  if (st == SIMTVP_OK && e->cfg.pc_counts && e->st) st = register_code(p, diag);
  if (st == SIMTVP_OK && e->cfg.memcheck) st = fx_memcheck_wrap(p, diag);
  if (st != SIMTVP_OK) {
    func_program_destroy(p);
    return st;
  }
  *out = p;
  return SIMTVP_OK;
}

void func_program_destroy(func_program *p) {
  if (!p) return;
  if (p->funcs) {
    for (uint32_t i = 0; i < p->m->n_functions; i++) {
      fx_func *f = &p->funcs[i];
      free(f->const_img);
      free(f->const32_val);
      free(f->const64_val);
      free(f->param_off);
      free(f->param_size);
      free(f->zero_ranges);
      free(f->row32);
      free(f->row64);
    }
  }
  for (uint32_t i = 0; i < p->n_allocs; i++) free(p->allocs[i]);
  free(p->allocs);
  free(p->mc_inner);
  free(p->plain_run);
  free(p->code);
  free(p->funcs);
  free(p->sym_addr);
  free(p);
}

const ptx_module *func_program_module(const func_program *p) { return p->m; }

uint32_t func_program_kernel(const func_program *p, const char *name) {
  uint32_t f = ptx_find_function(p->m, name);
  if (f == PTX_NONE || !(p->m->functions[f].flags & PTX_FN_ENTRY)) return PTX_NONE;
  return f;
}

uint32_t func_program_frame_bytes(const func_program *p, uint32_t function) {
  return p && function < p->m->n_functions ? p->funcs[function].frame_bytes : 0;
}

uint64_t func_program_symbol_addr(const func_program *p, uint32_t symbol) {
  return symbol < p->m->n_symbols ? p->sym_addr[symbol] : 0;
}

uint64_t func_program_function_addr(const func_program *p, uint32_t function) {
  if (function >= p->m->n_functions) return 0;
  if (p->pl.code_base)
    return p->pl.code_base + (uint64_t)p->m->functions[function].first_insn * FUNC_INSN_BYTES;
  return FUNC_FUNCTION_ADDR_BASE + (uint64_t)function * FUNC_INSN_BYTES;
}

fx_func *fx_function_at(const func_program *p, uint64_t addr) {
  const ptx_module *m = p->m;
  if (p->pl.code_base) {
    for (uint32_t i = 0; i < m->n_functions; i++)
      if (func_program_function_addr(p, i) == addr && !(m->functions[i].flags & PTX_FN_PROTOTYPE))
        return &p->funcs[i];
    return NULL;
  }
  if (addr < FUNC_FUNCTION_ADDR_BASE || (addr - FUNC_FUNCTION_ADDR_BASE) % FUNC_INSN_BYTES) return NULL;
  uint64_t i = (addr - FUNC_FUNCTION_ADDR_BASE) / FUNC_INSN_BYTES;
  if (i >= m->n_functions || (m->functions[i].flags & PTX_FN_PROTOTYPE)) return NULL;
  return &p->funcs[i];
}

bool func_program_param(const func_program *p, uint32_t kernel, uint32_t i, uint32_t *offset,
                        uint32_t *bytes) {
  if (kernel >= p->m->n_functions) return false;
  const ptx_function *pf = &p->m->functions[kernel];
  if (i >= pf->n_params) return false;
  const ptx_symbol *s = &p->m->symbols[p->m->param_list[pf->first_param + i]];
  if (offset) *offset = (uint32_t)s->offset;
  if (bytes) *bytes = (uint32_t)s->size;
  return true;
}

uint32_t func_program_param_bytes(const func_program *p, uint32_t kernel) {
  if (kernel >= p->m->n_functions) return 0;
  const ptx_function *pf = &p->m->functions[kernel];
  uint64_t end = pf->res.param_bytes;
  for (uint32_t i = 0; i < pf->n_params; i++) {
    const ptx_symbol *s = &p->m->symbols[p->m->param_list[pf->first_param + i]];
    if (s->offset + s->size > end) end = s->offset + s->size;
  }
  return (uint32_t)end;
}

uint32_t func_program_static_smem(const func_program *p, uint32_t kernel) {
  (void)kernel;
  return p->shared_module_bytes + p->shared_funcs_bytes;
}

simtvp_status func_program_write_segments(func_program *p, simtvp_diag *diag) {
  const ptx_module *m = p->m;
  devmem *mem = p->e->mem;
  for (uint32_t s = 0; s < m->n_symbols; s++) {
    const ptx_symbol *sy = &m->symbols[s];
    if (sy->function != PTX_NONE || !(sy->flags & PTX_SYM_HAS_INIT)) continue;
    if (sy->space != PTX_SPACE_GLOBAL && sy->space != PTX_SPACE_CONST) continue;
    if (sy->init_offset + sy->size > m->init_data_size)
      return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "initialiser of %s out of range", sy->name);
    simtvp_status st = devmem_write(mem, p->sym_addr[s], m->init_data + sy->init_offset, sy->size, diag);
    if (st != SIMTVP_OK) return st;
  }
  for (uint32_t r = 0; r < m->n_relocs; r++) {
    const ptx_reloc *rl = &m->relocs[r];
    if (rl->symbol >= m->n_symbols) continue;
    const ptx_symbol *sy = &m->symbols[rl->symbol];
    if (sy->space != PTX_SPACE_GLOBAL && sy->space != PTX_SPACE_CONST) continue;
    uint64_t v;
    if (rl->is_function) {
      v = func_program_function_addr(p, rl->target);
    } else {
      bool fp_rel;
      v = fx_symbol_value(p, NULL, rl->target, rl->generic, &fp_rel);
    }
    v += (uint64_t)rl->addend;
    simtvp_status st = devmem_write(mem, p->sym_addr[rl->symbol] + rl->offset, &v,
                                    rl->bytes == 4 ? 4 : 8, diag);
    if (st != SIMTVP_OK) return st;
  }
  return SIMTVP_OK;
}
