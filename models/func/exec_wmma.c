/* exec_wmma — warp-level matrix multiply-accumulate (PTX ISA 9.7.14.4 wmma.load, wmma.store,
 * wmma.mma) for the shapes m16n16k16, m32n8k16 and m8n32k16: f16 or bf16 inputs with f32 or f16
 * accumulators, and u8/s8 inputs with s32 accumulators.
 *
 * The ISA leaves the distribution of fragment elements over the lanes unspecified; programs only
 * rely on load, mma and store agreeing (and on element-wise operations, which any distribution
 * supports). The engine's distribution: a fragment of T elements with P elements per lane (the
 * register count times the elements per 32-bit register) gives element e of lane l the matrix
 * element (l * P + e) mod T, counted row by row of the logical matrix (A: M x K, B: K x N, C and
 * D: M x N) — so fragments with P * 32 > T hold every element twice, like the hardware's A and B
 * fragments. mma multiplies exactly and accumulates in the accumulator type in k order (one
 * rounding per step with fmaf for f32); inputs whose partial sums are exact give the hardware's
 * result bit for bit. */
#include <inttypes.h>

#include "alu.h"
#include "func_internal.h"

typedef struct fx_frag {
  uint32_t n_regs;
  uint32_t off[16];
  uint8_t skip[16];
} fx_frag;

typedef struct fx_wmma {
  uint32_t m, n, k;
  uint8_t which;          /* 'a', 'b', 'c', 'd' for load/store */
  uint8_t etype;          /* element type of the fragment (load/store) */
  uint8_t row;            /* load/store: memory is row-major */
  uint8_t has_stride;
  fx_frag frag;           /* load/store operand */
  fx_frag d, a, b, c;     /* mma operands */
  uint8_t dtype, atype, btype, ctype;
} fx_wmma;

static uint32_t per_reg(uint32_t t) {
  switch (t) {
  case PTX_TYPE_F16:
  case PTX_TYPE_BF16: return 2;
  case PTX_TYPE_U8:
  case PTX_TYPE_S8: return 4;
  default: return 1;
  }
}
static uint32_t esize(uint32_t t) { return 4u / per_reg(t); }

static void dims(const fx_wmma *x, uint8_t which, uint32_t *rows, uint32_t *cols) {
  if (which == 'a') *rows = x->m, *cols = x->k;
  else if (which == 'b') *rows = x->k, *cols = x->n;
  else *rows = x->m, *cols = x->n;
}

/* Element e of lane l's fragment of T elements with P per lane. */
static inline uint32_t frag_index(uint32_t lane, uint32_t e, uint32_t P, uint32_t T) { return (lane * P + e) % T; }

/* Register element `e` (of P) of a lane: 32-bit row and position within it. */
static inline uint32_t get_elem(const fx_warp *w, const fx_frag *f, uint32_t ety, uint32_t lane, uint32_t e) {
  uint32_t pr = per_reg(ety), reg = e / pr, sub = e % pr, bits = 32 / pr;
  uint32_t v = f->skip[reg] ? 0 : FX_R32(w, f->off[reg])[lane];
  return bits == 32 ? v : (v >> (sub * bits)) & ((1u << bits) - 1u);
}
static inline void set_elem(fx_warp *w, const fx_frag *f, uint32_t ety, uint32_t lane, uint32_t e, uint32_t v) {
  uint32_t pr = per_reg(ety), reg = e / pr, sub = e % pr, bits = 32 / pr;
  if (f->skip[reg]) return;
  uint32_t *r = &FX_R32(w, f->off[reg])[lane];
  if (bits == 32) {
    *r = v;
  } else {
    uint32_t mask = ((1u << bits) - 1u) << (sub * bits);
    *r = (*r & ~mask) | ((v << (sub * bits)) & mask);
  }
}

static void wmma_mem(fx_warp *w, const fx_insn *in, uint32_t m, bool store) {
  if (!m) return;
  const fx_wmma *x = in->ext;
  uint32_t rows, cols;
  dims(x, x->which, &rows, &cols);
  uint32_t T = rows * cols, es = esize(x->etype), P = x->frag.n_regs * per_reg(x->etype);
  uint32_t first = (uint32_t)__builtin_ctz(m);
  uint64_t base[32];
  fx_addr_gen(w, in, m, base);
  uint64_t b0 = base[first];
  uint32_t stride = x->has_stride ? FX_R32(w, in->o[2])[first] : (x->row ? cols : rows);
  if (w->rec) {
    if (store) w->rec->is_store = true;
    else w->rec->is_load = true;
  }
  for (uint32_t e = 0; e < P; e++) {
    uint64_t addr[32];
    uint8_t *host[32];
    for (uint32_t l = 0; l < 32; l++) {
      uint32_t idx = frag_index(l, e, P, T), r = idx / cols, c = idx % cols;
      uint64_t el = x->row ? (uint64_t)r * stride + c : (uint64_t)c * stride + r;
      addr[l] = b0 + el * es;
    }
    if (!fx_resolve(w, in, m, addr, in->space, es, es, store, host)) return;
    FX_FOR_LANES(l, m) {
      if (store) {
        uint32_t v = get_elem(w, &x->frag, x->etype, l, e);
        memcpy(host[l], &v, es);
      } else {
        uint32_t v = 0;
        memcpy(&v, host[l], es);
        set_elem(w, &x->frag, x->etype, l, e, v);
      }
    }
  }
  if (store) w->counts->stores[in->space]++;
  else w->counts->loads[in->space]++;
}

static void wmma_load_h(fx_warp *w, const fx_insn *in, uint32_t m) { wmma_mem(w, in, m, false); }
static void wmma_store_h(fx_warp *w, const fx_insn *in, uint32_t m) { wmma_mem(w, in, m, true); }

static double to_real(uint32_t v, uint32_t t) {
  switch (t) {
  case PTX_TYPE_F16: return alu_f32(alu_cvt_f32_f16((uint16_t)v));
  case PTX_TYPE_BF16: return alu_f32(v << 16);
  case PTX_TYPE_F32: return alu_f32(v);
  case PTX_TYPE_S8: return (double)(int8_t)v;
  case PTX_TYPE_U8: return (double)(uint8_t)v;
  case PTX_TYPE_S32: return (double)(int32_t)v;
  default: return (double)v;
  }
}

/* Gathers a fragment into a dense row-major matrix. */
static void gather(const fx_warp *w, const fx_frag *f, uint32_t ety, uint32_t T, uint32_t *mat) {
  uint32_t P = f->n_regs * per_reg(ety);
  for (uint32_t l = 32; l-- > 0;)
    for (uint32_t e = 0; e < P; e++) mat[frag_index(l, e, P, T)] = get_elem(w, f, ety, l, e);
}

static void wmma_mma_h(fx_warp *w, const fx_insn *in, uint32_t m) {
  if (!m) return;
  const fx_wmma *x = in->ext;
  uint32_t M = x->m, N = x->n, K = x->k;
  uint32_t A[32 * 16], B[16 * 32], C[256], D[256];
  gather(w, &x->a, x->atype, M * K, A);
  gather(w, &x->b, x->btype, K * N, B);
  gather(w, &x->c, x->ctype, M * N, C);
  bool integer = x->dtype == PTX_TYPE_S32;
  for (uint32_t r = 0; r < M; r++)
    for (uint32_t c = 0; c < N; c++) {
      if (integer) {
        uint32_t acc = C[r * N + c];
        for (uint32_t p = 0; p < K; p++)
          acc += (uint32_t)((int64_t)to_real(A[r * K + p], x->atype) * (int64_t)to_real(B[p * N + c], x->btype));
        D[r * N + c] = acc;
      } else {
        float acc = (float)to_real(C[r * N + c], x->ctype);
        for (uint32_t p = 0; p < K; p++)
          acc = __builtin_fmaf((float)to_real(A[r * K + p], x->atype), (float)to_real(B[p * N + c], x->btype), acc);
        D[r * N + c] = x->dtype == PTX_TYPE_F16 ? alu_cvt_rn_f16_f32(alu_f32_bits(acc), 0) : alu_f32_bits(acc);
      }
    }
  uint32_t P = x->d.n_regs * per_reg(x->dtype);
  FX_FOR_LANES(l, m)
  for (uint32_t e = 0; e < P; e++) set_elem(w, &x->d, x->dtype, l, e, D[frag_index(l, e, P, M * N)]);
}

/* ---- builders ---------------------------------------------------------------------------------------- */

static simtvp_status shape(fx_build *b, fx_wmma *x) {
  switch (b->pi->geom) {
  case PTX_WMMA_M16N16K16: x->m = 16, x->n = 16, x->k = 16; return SIMTVP_OK;
  case PTX_WMMA_M32N8K16: x->m = 32, x->n = 8, x->k = 16; return SIMTVP_OK;
  case PTX_WMMA_M8N32K16: x->m = 8, x->n = 32, x->k = 16; return SIMTVP_OK;
  default: return fx_unsupported(b, "wmma shape not supported (m16n16k16, m32n8k16, m8n32k16 are)");
  }
}

static simtvp_status frag_operand(fx_build *b, const ptx_operand *op, bool dst, fx_frag *f) {
  if (op->kind != PTX_OPND_VEC || op->count == 0 || op->count > 16) return fx_unsupported(b, "wmma fragment must be a vector of registers");
  const ptx_operand *el = fx_vec_elems(b, op);
  f->n_regs = op->count;
  for (uint32_t i = 0; i < op->count; i++) {
    if (el[i].kind == PTX_OPND_SINK) {
      f->skip[i] = 1;
      continue;
    }
    if (el[i].kind == PTX_OPND_REG && el[i].rclass != PTX_RC_B32)
      return fx_unsupported(b, "wmma fragment registers must be 32-bit");
    simtvp_status st = dst ? fx_dst_op(b, &el[i], &f->off[i]) : fx_src_op(b, &el[i], PTX_TYPE_B32, &f->off[i]);
    if (st != SIMTVP_OK) return st;
  }
  return SIMTVP_OK;
}

static bool type_ok(uint32_t t) {
  return t == PTX_TYPE_F16 || t == PTX_TYPE_BF16 || t == PTX_TYPE_F32 || t == PTX_TYPE_S32 || t == PTX_TYPE_S8 ||
         t == PTX_TYPE_U8;
}

static simtvp_status build_wmma_mem(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  bool store = pi->opcode == PTX_OP_WMMA_STORE;
  fx_wmma *x = fx_alloc(b->p, sizeof *x);
  if (!x) return simtvp_diag_set(b->diag, SIMTVP_ERR_NOMEM, "out of host memory");
  simtvp_status st = shape(b, x);
  if (st != SIMTVP_OK) return st;
  x->which = store ? 'd' : pi->sub_op;
  if (x->which != 'a' && x->which != 'b' && x->which != 'c' && x->which != 'd') return fx_unsupported(b, "wmma fragment kind");
  x->etype = pi->type;
  if (!type_ok(x->etype)) return fx_unsupported(b, "wmma element type not supported");
  x->row = (pi->mods & PTX_MOD_ROW) != 0;
  in->cls = FX_C_MEM;
  const ptx_operand *addr = &pi->ops[store ? 0 : 1], *frag = &pi->ops[store ? 1 : 0];
  st = fx_mem_operand(b, addr, 1);
  if (st == SIMTVP_OK) st = frag_operand(b, frag, !store, &x->frag);
  if (st == SIMTVP_OK && pi->nops >= 3) {
    x->has_stride = 1;
    st = fx_src(b, 2, PTX_TYPE_U32, &in->o[2]);
  }
  if (st != SIMTVP_OK) return st;
  uint32_t rows, cols;
  dims(x, x->which, &rows, &cols);
  if (x->frag.n_regs * per_reg(x->etype) * 32 < rows * cols) return fx_unsupported(b, "wmma fragment too small for the shape");
  in->ext = x;
  in->fn = store ? wmma_store_h : wmma_load_h;
  return SIMTVP_OK;
}

static simtvp_status build_wmma_mma(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  fx_wmma *x = fx_alloc(b->p, sizeof *x);
  if (!x) return simtvp_diag_set(b->diag, SIMTVP_ERR_NOMEM, "out of host memory");
  simtvp_status st = shape(b, x);
  if (st != SIMTVP_OK) return st;
  if (pi->nops < 4) return fx_unsupported(b, "wmma.mma needs d, a, b, c");
  x->dtype = pi->type;
  x->ctype = pi->type2 ? pi->type2 : pi->type;
  x->atype = pi->type3 ? pi->type3 : PTX_TYPE_F16;
  x->btype = pi->type4 ? pi->type4 : x->atype;
  if (!type_ok(x->dtype) || !type_ok(x->ctype) || !type_ok(x->atype) || !type_ok(x->btype))
    return fx_unsupported(b, "wmma.mma types not supported");
  st = frag_operand(b, &pi->ops[0], true, &x->d);
  if (st == SIMTVP_OK) st = frag_operand(b, &pi->ops[1], false, &x->a);
  if (st == SIMTVP_OK) st = frag_operand(b, &pi->ops[2], false, &x->b);
  if (st == SIMTVP_OK) st = frag_operand(b, &pi->ops[3], false, &x->c);
  if (st != SIMTVP_OK) return st;
  if (x->a.n_regs * per_reg(x->atype) * 32 < x->m * x->k || x->b.n_regs * per_reg(x->btype) * 32 < x->k * x->n ||
      x->c.n_regs * per_reg(x->ctype) * 32 < x->m * x->n || x->d.n_regs * per_reg(x->dtype) * 32 < x->m * x->n)
    return fx_unsupported(b, "wmma fragment too small for the shape");
  in->ext = x;
  in->fn = wmma_mma_h;
  return SIMTVP_OK;
}

void fx_register_wmma(fx_builder *t) {
  t[PTX_OP_WMMA_LOAD] = build_wmma_mem;
  t[PTX_OP_WMMA_STORE] = build_wmma_mem;
  t[PTX_OP_WMMA_MMA] = build_wmma_mma;
}
