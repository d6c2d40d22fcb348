/* exec_mma — warp-level matrix instructions with architected fragment layouts (PTX ISA 9.7.14.5):
 * mma.sync.aligned with the shapes and types below, ldmatrix / stmatrix (m8n8, .x1/.x2/.x4,
 * .trans, .b16) and movmatrix (m8n8.trans.b16).
 *
 *   m16n8k8   .f16/.bf16 x .f16/.bf16 -> .f16/.f32;  .tf32 x .tf32 -> .f32
 *   m16n8k16  .f16/.bf16 -> .f16/.f32;  .s8/.u8 -> .s32
 *   m16n8k4   .tf32 -> .f32
 *   m8n8k4    .f64 -> .f64
 *   m8n8k16   .s8/.u8 -> .s32
 *   m16n8k32  .s8/.u8 -> .s32;  .e4m3/.e5m2 -> .f16/.f32
 *
 * Unlike wmma, mma's fragments are laid out by the ISA ("Matrix fragments for mma.m16n8k*"):
 * with g = %laneid >> 2 and t = %laneid % 4, each element i of a lane's fragment is one matrix
 * element (row, col); the tables are in frag_pos below and in docs/func.md. The same layouts are
 * what CUTLASS's SM80 MMA traits encode. ldmatrix gives lane l elements (l / 4, 2 (l % 4) + {0,1})
 * of each 8x8 matrix, the layout the mma A/B fragments of 16-bit types are built from.
 *
 * Arithmetic: products of the inputs are exact in the accumulator type (f16, bf16 and tf32 are
 * narrower than half of f32's mantissa); sums are accumulated in k order with one rounding per
 * step (fmaf for f32, fma for f64), then D is rounded to its type (f16: round to nearest even).
 * tf32 inputs use their 19 significant bits (the low 13 bits of the register are ignored, as the
 * hardware does). Integer products accumulate exactly (64-bit) and wrap to 32 bits, or clamp with
 * .satfinite. The hardware's internal accumulation order is not documented: results are bit-exact
 * whenever the partial sums are exact (as with small integers), and otherwise within one rounding
 * per k step of it. */
#include <inttypes.h>

#include "alu.h"
#include "func_internal.h"

#define H(name) static void name(fx_warp *w, const fx_insn *in, uint32_t m)

/* ---- fragment layouts ------------------------------------------------------------------------- */

enum { OP_A, OP_B, OP_C };

typedef struct fx_mma {
  uint32_t M, N, K;
  uint8_t dtype, atype, btype, ctype;
  uint8_t satfinite;
  uint32_t nd, na, nb, nc;          /* elements per lane of each fragment */
  uint32_t d[8], a[8], b[8], c[8];  /* register offsets; 64-bit rows for f64 */
} fx_mma;

static uint32_t elem_bits(uint32_t t) {
  switch (t) {
  case PTX_TYPE_F16: case PTX_TYPE_BF16: return 16;
  case PTX_TYPE_S8: case PTX_TYPE_U8: case PTX_TYPE_E4M3: case PTX_TYPE_E5M2: return 8;
  case PTX_TYPE_F64: return 64;
  default: return 32;
  }
}

/* (row, col) of element i of lane l's fragment of operand `op` (A is M x K, B is K x N, C and D
 * are M x N) for the shape and the input type. */
static void frag_pos(const fx_mma *x, uint32_t op, uint32_t lane, uint32_t i, uint32_t *row, uint32_t *col) {
  uint32_t g = lane >> 2, t = lane & 3;
  if (op == OP_C) {
    if (x->M == 8) { /* m8n8: one row per group */
      *row = g;
      *col = 2 * t + i;
    } else {
      *row = g + 8 * (i >> 1);
      *col = 2 * t + (i & 1);
    }
    return;
  }
  uint32_t bits = elem_bits(op == OP_A ? x->atype : x->btype);
  if (bits == 64) { /* m8n8k4 f64 */
    if (op == OP_A) *row = g, *col = t;
    else *row = t, *col = g;
    return;
  }
  if (bits == 32) { /* tf32 */
    if (op == OP_A) {
      *row = g + 8 * (i & 1);
      *col = t + 4 * (i >> 1);
    } else {
      *row = t + 4 * i;
      *col = g;
    }
    return;
  }
  if (bits == 16) {
    if (op == OP_A) {
      *row = g + 8 * ((i >> 1) & 1);
      *col = 2 * t + (i & 1) + 8 * (i >> 2);
    } else {
      *row = 2 * t + (i & 1) + 8 * (i >> 1);
      *col = g;
    }
    return;
  }
  /* 8-bit types */
  if (x->M == 8) { /* m8n8k16 */
    if (op == OP_A) *row = g, *col = 4 * t + i;
    else *row = 4 * t + i, *col = g;
    return;
  }
  if (op == OP_A) {
    *row = g + 8 * ((i >> 2) & 1);
    *col = 4 * t + (i & 3) + 16 * (i >> 3);
  } else {
    *row = 4 * t + (i & 3) + 16 * (i >> 2);
    *col = g;
  }
}

/* Element i of a lane's fragment stored in registers regs (elements packed from bit 0 up). */
static uint64_t frag_get(const fx_warp *w, const uint32_t *regs, uint32_t bits, uint32_t lane, uint32_t i) {
  if (bits == 64) return FX_R64(w, regs[i])[lane];
  uint32_t per = 32 / bits, v = FX_R32(w, regs[i / per])[lane];
  return bits == 32 ? v : (v >> ((i % per) * bits)) & ((1u << bits) - 1u);
}

static double real_of(uint64_t v, uint32_t t) {
  switch (t) {
  case PTX_TYPE_F16: return alu_f32(alu_cvt_f32_f16((uint16_t)v));
  case PTX_TYPE_BF16: return alu_f32((uint32_t)v << 16);
  case PTX_TYPE_TF32: return alu_f32((uint32_t)v & 0xffffe000u);
  case PTX_TYPE_F32: return alu_f32((uint32_t)v);
  case PTX_TYPE_F64: return alu_f64(v);
  case PTX_TYPE_E4M3: case PTX_TYPE_E5M2:
    return alu_f32((uint32_t)alu_cvt(v, PTX_TYPE_F32, (ptx_type)t, PTX_RND_NONE, 0));
  default: return 0;
  }
}

static int64_t int_of(uint64_t v, uint32_t t) {
  switch (t) {
  case PTX_TYPE_S8: return (int8_t)v;
  case PTX_TYPE_U8: return (uint8_t)v;
  default: return (int32_t)v;
  }
}

H(mma_h) {
  if (!m) return;
  const fx_mma *x = in->ext;
  /* gather A (M x K), B (K x N), C (M x N) from every lane's fragment */
  uint64_t A[16 * 32], B[32 * 8], C[16 * 8], D[16 * 8];
  uint32_t ab = elem_bits(x->atype), bb = elem_bits(x->btype), cb = elem_bits(x->ctype), db = elem_bits(x->dtype);
  for (uint32_t l = 0; l < 32; l++) {
    uint32_t r, c;
    for (uint32_t i = 0; i < x->na; i++) {
      frag_pos(x, OP_A, l, i, &r, &c);
      A[r * x->K + c] = frag_get(w, x->a, ab, l, i);
    }
    for (uint32_t i = 0; i < x->nb; i++) {
      frag_pos(x, OP_B, l, i, &r, &c);
      B[r * x->N + c] = frag_get(w, x->b, bb, l, i);
    }
    for (uint32_t i = 0; i < x->nc; i++) {
      frag_pos(x, OP_C, l, i, &r, &c);
      C[r * x->N + c] = frag_get(w, x->c, cb, l, i);
    }
  }
  for (uint32_t r = 0; r < x->M; r++)
    for (uint32_t c = 0; c < x->N; c++) {
      uint64_t *d = &D[r * x->N + c];
      if (x->dtype == PTX_TYPE_S32) {
        int64_t acc = int_of(C[r * x->N + c], PTX_TYPE_S32);
        for (uint32_t k = 0; k < x->K; k++)
          acc += int_of(A[r * x->K + k], x->atype) * int_of(B[k * x->N + c], x->btype);
        if (x->satfinite) acc = acc > INT32_MAX ? INT32_MAX : acc < INT32_MIN ? INT32_MIN : acc;
        *d = (uint32_t)acc;
      } else if (x->dtype == PTX_TYPE_F64) {
        double acc = real_of(C[r * x->N + c], PTX_TYPE_F64);
        for (uint32_t k = 0; k < x->K; k++)
          acc = __builtin_fma(real_of(A[r * x->K + k], x->atype), real_of(B[k * x->N + c], x->btype), acc);
        *d = alu_f64_bits(acc);
      } else {
        float acc = (float)real_of(C[r * x->N + c], x->ctype);
        for (uint32_t k = 0; k < x->K; k++)
          acc = __builtin_fmaf((float)real_of(A[r * x->K + k], x->atype), (float)real_of(B[k * x->N + c], x->btype), acc);
        *d = x->dtype == PTX_TYPE_F16 ? alu_cvt_rn_f16_f32(alu_f32_bits(acc), 0) : alu_f32_bits(acc);
      }
    }
  /* scatter D into the executing lanes' fragments */
  uint64_t out[8][32];
  uint32_t nregs = db == 64 ? x->nd : (x->nd * db + 31) / 32;
  for (uint32_t k = 0; k < nregs; k++)
    for (uint32_t l = 0; l < 32; l++) out[k][l] = 0;
  for (uint32_t l = 0; l < 32; l++)
    for (uint32_t i = 0; i < x->nd; i++) {
      uint32_t r, c;
      frag_pos(x, OP_C, l, i, &r, &c);
      uint64_t v = D[r * x->N + c];
      if (db == 64) out[i][l] = v;
      else out[i * db / 32][l] |= v << ((i % (32 / db)) * db);
    }
  for (uint32_t k = 0; k < nregs; k++) {
    if (db == 64) {
      uint64_t *d = FX_R64(w, x->d[k]);
      FX_FOR_LANES(l, m) d[l] = out[k][l];
    } else {
      uint32_t *d = FX_R32(w, x->d[k]);
      FX_FOR_LANES(l, m) d[l] = (uint32_t)out[k][l];
    }
  }
}

static simtvp_status mma_regs(fx_build *b, uint32_t opnd, bool dst, bool wide, uint32_t want, uint32_t *off) {
  const ptx_operand *op = &b->pi->ops[opnd];
  if (op->kind != PTX_OPND_VEC) return fx_unsupported(b, "mma operands are vectors of registers");
  if (op->count != want) {
    char why[96];
    snprintf(why, sizeof why, "operand %u of this mma shape and type has %u registers, not %u", opnd + 1, want,
             op->count);
    return fx_unsupported(b, why);
  }
  const ptx_operand *el = fx_vec_elems(b, op);
  for (uint32_t i = 0; i < want; i++) {
    if (el[i].kind != PTX_OPND_REG || el[i].rclass != (wide ? PTX_RC_B64 : PTX_RC_B32))
      return fx_unsupported(b, wide ? "f64 mma fragments are 64-bit registers" : "mma fragments are 32-bit registers");
    simtvp_status st = dst ? fx_dst_op(b, &el[i], &off[i]) : fx_src_op(b, &el[i], PTX_TYPE_B32, &off[i]);
    if (st != SIMTVP_OK) return st;
  }
  return SIMTVP_OK;
}

static simtvp_status build_mma(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  fx_mma *x = fx_alloc(b->p, sizeof *x);
  if (!x) return simtvp_diag_set(b->diag, SIMTVP_ERR_NOMEM, "out of host memory");
  in->cls = FX_C_ALU; /* the timing decode puts mma on the tensor cores */
  if (pi->nops < 4) return fx_unsupported(b, "mma needs d, a, b, c");
  x->dtype = pi->type;
  x->ctype = pi->type2;
  x->atype = pi->type3;
  x->btype = pi->type4;
  x->satfinite = (pi->mods & PTX_MOD_SATFINITE) != 0;
  switch (pi->geom) {
  case PTX_WMMA_M16N8K8: x->M = 16, x->N = 8, x->K = 8; break;
  case PTX_WMMA_M16N8K16: x->M = 16, x->N = 8, x->K = 16; break;
  case PTX_WMMA_M16N8K4: x->M = 16, x->N = 8, x->K = 4; break;
  case PTX_WMMA_M16N8K32: x->M = 16, x->N = 8, x->K = 32; break;
  case PTX_WMMA_M8N8K4: x->M = 8, x->N = 8, x->K = 4; break;
  case PTX_WMMA_M8N8K16: x->M = 8, x->N = 8, x->K = 16; break;
  default: return fx_unsupported(b, "mma shape not supported (m16n8k4/8/16/32, m8n8k4 f64 and m8n8k16 are)");
  }
  uint32_t a = x->atype, bt = x->btype, d = x->dtype, c = x->ctype;
  bool f16ab = (a == PTX_TYPE_F16 && bt == PTX_TYPE_F16) || (a == PTX_TYPE_BF16 && bt == PTX_TYPE_BF16);
  bool f16cd = (d == PTX_TYPE_F16 || d == PTX_TYPE_F32) && (c == PTX_TYPE_F16 || c == PTX_TYPE_F32) &&
               (a == PTX_TYPE_F16 || (d == PTX_TYPE_F32 && c == PTX_TYPE_F32));
  bool i8 = (a == PTX_TYPE_S8 || a == PTX_TYPE_U8) && (bt == PTX_TYPE_S8 || bt == PTX_TYPE_U8) &&
            d == PTX_TYPE_S32 && c == PTX_TYPE_S32;
  bool f8 = (a == PTX_TYPE_E4M3 || a == PTX_TYPE_E5M2) && (bt == PTX_TYPE_E4M3 || bt == PTX_TYPE_E5M2) &&
            (d == PTX_TYPE_F16 || d == PTX_TYPE_F32) && c == d;
  bool ok;
  if (x->M == 8 && x->K == 4) ok = a == PTX_TYPE_F64 && bt == PTX_TYPE_F64 && d == PTX_TYPE_F64 && c == PTX_TYPE_F64;
  else if (x->K == 4) ok = a == PTX_TYPE_TF32 && bt == PTX_TYPE_TF32 && d == PTX_TYPE_F32 && c == PTX_TYPE_F32;
  else if (x->K == 8)
    ok = (f16ab && f16cd) || (a == PTX_TYPE_TF32 && bt == PTX_TYPE_TF32 && d == PTX_TYPE_F32 && c == PTX_TYPE_F32);
  else if (x->M == 8) ok = i8;
  else if (x->K == 16) ok = (f16ab && f16cd) || i8;
  else ok = i8 || f8;
  if (!ok) {
    if (x->M == 8 && x->K == 4)
      return fx_unsupported(b, "mma.m8n8k4 with .f16 (Volta's quad-pair layout) is not supported; .f64 is");
    return fx_unsupported(b, "mma type combination not supported for this shape");
  }
  /* elements per lane: (rows x cols) / 32 */
  x->na = x->M * x->K / 32;
  x->nb = x->K * x->N / 32;
  x->nc = x->nd = x->M * x->N / 32;
  uint32_t rega = a == PTX_TYPE_F64 ? x->na : x->na * elem_bits(a) / 32;
  uint32_t regb = bt == PTX_TYPE_F64 ? x->nb : x->nb * elem_bits(bt) / 32;
  uint32_t regc = c == PTX_TYPE_F64 ? x->nc : (x->nc * elem_bits(c) + 31) / 32;
  uint32_t regd = d == PTX_TYPE_F64 ? x->nd : (x->nd * elem_bits(d) + 31) / 32;
  bool wide = d == PTX_TYPE_F64;
  simtvp_status st = mma_regs(b, 0, true, wide, regd, x->d);
  if (st == SIMTVP_OK) st = mma_regs(b, 1, false, wide, rega, x->a);
  if (st == SIMTVP_OK) st = mma_regs(b, 2, false, wide, regb, x->b);
  if (st == SIMTVP_OK) st = mma_regs(b, 3, false, wide, regc, x->c);
  if (st != SIMTVP_OK) return st;
  in->ext = x;
  in->fn = mma_h;
  return SIMTVP_OK;
}

/* ---- ldmatrix / stmatrix / movmatrix ------------------------------------------------------------ */

typedef struct fx_ldmatrix {
  uint32_t n;          /* matrices: 1, 2 or 4 */
  bool trans;
  uint32_t reg[4];     /* one 32-bit register per matrix */
} fx_ldmatrix;

/* Element pair of lane l in an 8x8 b16 matrix: (row, col) of its low half; the high half is the
 * next column (or, transposed, the next row). */
static inline void pair_pos(uint32_t lane, bool trans, uint32_t half, uint32_t *row, uint32_t *col) {
  uint32_t r = lane >> 2, c = 2 * (lane & 3) + half;
  if (trans) *row = c, *col = r;
  else *row = r, *col = c;
}

/* Lanes 0 .. 8n-1 give the row addresses (lane 8j + r: row r of matrix j); the step record holds
 * them (16 bytes each). */
static bool matrix_rows(fx_warp *w, const fx_insn *in, uint32_t m, uint32_t n, bool store, uint8_t **row_ptr) {
  uint32_t give = n == 4 ? FX_FULL : (1u << (8 * n)) - 1u;
  uint64_t addr[32];
  uint8_t *hp[32];
  /* every lane of the warp executes the instruction (.sync.aligned); the addresses come from the
   * lanes that give them */
  if (m != w->active || (give & ~m)) {
    fx_fault(w, in, m ? (uint32_t)__builtin_ctz(m) : 0, SIMTVP_ERR_FAULT, false, 0,
             "%s needs lanes 0-%u to execute it together (lanes 0x%08x did)",
             store ? "stmatrix" : "ldmatrix", 8 * n - 1, m);
    return false;
  }
  if (w->rec) {
    if (store) w->rec->is_store = true;
    else w->rec->is_load = true;
  }
  fx_addr_gen(w, in, give, addr);
  if (!fx_resolve(w, in, give, addr, in->space, 16, 16, store, hp)) return false;
  for (uint32_t i = 0; i < 8 * n; i++) row_ptr[i] = hp[i];
  if (store) w->counts->stores[in->space == PTX_SPACE_GENERIC ? PTX_SPACE_GENERIC : PTX_SPACE_SHARED]++;
  else w->counts->loads[in->space == PTX_SPACE_GENERIC ? PTX_SPACE_GENERIC : PTX_SPACE_SHARED]++;
  return true;
}

H(ldmatrix_h) {
  if (!m) return;
  const fx_ldmatrix *x = in->ext;
  uint8_t *rows[32];
  if (!matrix_rows(w, in, m, x->n, false, rows)) return;
  uint32_t v[4][32];
  for (uint32_t j = 0; j < x->n; j++)
    for (uint32_t l = 0; l < 32; l++) {
      uint32_t word = 0;
      for (uint32_t h = 0; h < 2; h++) {
        uint32_t r, c;
        uint16_t e;
        pair_pos(l, x->trans, h, &r, &c);
        memcpy(&e, rows[8 * j + r] + 2 * c, 2);
        word |= (uint32_t)e << (16 * h);
      }
      v[j][l] = word;
    }
  for (uint32_t j = 0; j < x->n; j++) fx_put32(FX_R32(w, x->reg[j]), v[j], m);
}

H(stmatrix_h) {
  if (!m) return;
  const fx_ldmatrix *x = in->ext;
  uint8_t *rows[32];
  if (!matrix_rows(w, in, m, x->n, true, rows)) return;
  for (uint32_t j = 0; j < x->n; j++) {
    const uint32_t *s = FX_R32(w, x->reg[j]);
    for (uint32_t l = 0; l < 32; l++)
      for (uint32_t h = 0; h < 2; h++) {
        uint32_t r, c;
        uint16_t e = (uint16_t)(s[l] >> (16 * h));
        pair_pos(l, x->trans, h, &r, &c);
        memcpy(rows[8 * j + r] + 2 * c, &e, 2);
      }
  }
}

/* movmatrix.trans: o[0] d, o[1] a (one 8x8 b16 matrix in the ldmatrix layout) */
H(movmatrix_h) {
  if (!m) return;
  const uint32_t *a = FX_R32(w, in->o[1]);
  uint16_t mat[8][8];
  for (uint32_t l = 0; l < 32; l++)
    for (uint32_t h = 0; h < 2; h++) {
      uint32_t r, c;
      pair_pos(l, false, h, &r, &c);
      mat[r][c] = (uint16_t)(a[l] >> (16 * h));
    }
  uint32_t d[32];
  for (uint32_t l = 0; l < 32; l++) {
    uint32_t word = 0;
    for (uint32_t h = 0; h < 2; h++) {
      uint32_t r, c;
      pair_pos(l, true, h, &r, &c);
      word |= (uint32_t)mat[r][c] << (16 * h);
    }
    d[l] = word;
  }
  fx_put32(FX_R32(w, in->o[0]), d, m);
}

static simtvp_status build_ldst_matrix(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  bool store = pi->opcode == PTX_OP_STMATRIX;
  in->cls = FX_C_MEM;
  if (pi->geom != PTX_WMMA_M8N8) return fx_unsupported(b, "ldmatrix/stmatrix shape (m8n8 is supported)");
  if (pi->type && ptx_type_bytes((ptx_type)pi->type) != 2)
    return fx_unsupported(b, "ldmatrix/stmatrix element type (.b16 is supported)");
  if (pi->nops < 2) return fx_unsupported(b, "needs a vector and an address");
  fx_ldmatrix *x = fx_alloc(b->p, sizeof *x);
  if (!x) return simtvp_diag_set(b->diag, SIMTVP_ERR_NOMEM, "out of host memory");
  x->n = pi->vec ? pi->vec : 1;
  if (x->n != 1 && x->n != 2 && x->n != 4) return fx_unsupported(b, "ldmatrix/stmatrix counts are .x1, .x2, .x4");
  x->trans = (pi->mods & PTX_MOD_TRANS) != 0;
  const ptx_operand *vec = &pi->ops[store ? 1 : 0], *addr = &pi->ops[store ? 0 : 1];
  simtvp_status st = fx_mem_operand(b, addr, 1);
  if (st != SIMTVP_OK) return st;
  if (in->space != PTX_SPACE_SHARED && in->space != PTX_SPACE_GENERIC)
    return fx_unsupported(b, "ldmatrix/stmatrix address shared memory");
  uint32_t count = vec->kind == PTX_OPND_VEC ? vec->count : 1;
  if (count != x->n) return fx_unsupported(b, "the vector must have one register per matrix");
  const ptx_operand *el = vec->kind == PTX_OPND_VEC ? fx_vec_elems(b, vec) : vec;
  for (uint32_t j = 0; j < x->n; j++) {
    if (el[j].kind != PTX_OPND_REG || el[j].rclass != PTX_RC_B32)
      return fx_unsupported(b, "ldmatrix/stmatrix registers are 32-bit");
    st = store ? fx_src_op(b, &el[j], PTX_TYPE_B32, &x->reg[j]) : fx_dst_op(b, &el[j], &x->reg[j]);
    if (st != SIMTVP_OK) return st;
  }
  in->ext = x;
  in->fn = store ? stmatrix_h : ldmatrix_h;
  return SIMTVP_OK;
}

static simtvp_status build_movmatrix(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  if (pi->geom != PTX_WMMA_M8N8 || !(pi->mods & PTX_MOD_TRANS))
    return fx_unsupported(b, "movmatrix.sync.aligned.m8n8.trans.b16 is the only form");
  simtvp_status st = fx_dst(b, 0, &in->o[0]);
  if (st == SIMTVP_OK) st = fx_src(b, 1, PTX_TYPE_B32, &in->o[1]);
  in->fn = movmatrix_h;
  return st;
}

/* ---- wgmma (sm_90a): warpgroup-level MMA --------------------------------------------------------
 * wgmma.mma_async.sync.aligned.m64nNkK: the four warps of a warpgroup (warps 4g .. 4g+3 of the CTA)
 * compute D (64 x N) = A (64 x K) x B (K x N) + D together; warp r of the group owns rows
 * 16 r .. 16 r + 15, so each warp's part depends only on A's rows it owns, B and its own
 * accumulators, and the engine computes it when the warp executes the instruction (the copy is
 * complete at once: wgmma.fence, commit_group and wait_group have nothing to wait for).
 *
 * Fragments (PTX ISA "Register fragments and shared memory matrix layouts" of wgmma): D of warp r
 * is the m16n8 accumulator fragment of mma repeated for every 8 columns: element i of lane l is
 * row 16 r + l/4 + 8 ((i/2) & 1), column 8 (i/4) + 2 (l%4) + (i&1) (f16 D: two per register). A in
 * registers is the A fragment of mma.m16n8k16 (f16/bf16), m16n8k8 (tf32) or m16n8k32 (8-bit).
 *
 * A and B in shared memory are given by 64-bit matrix descriptors: start address bits 0-13,
 * leading-dimension byte offset (LBO) bits 16-29, stride-dimension byte offset (SBO) bits 32-45
 * (each in 16-byte units), base offset bits 49-51, layout bits 62-63 (0 interleave, 1 128-byte,
 * 2 64-byte, 3 32-byte swizzle). The matrix is made of 8 x 16-byte core matrices; an element's byte
 * address in the canonical layouts (the same CUTLASS's make_gmma_desc describes), with e the element
 * size, i its M (or N) index and k its K index, W = 1, 2, 4, 8 the 16-byte units of a swizzle row:
 *   K-major:  interleave: (i%8)*16 + (i/8)*SBO + (k*e/16)*LBO + k*e%16
 *             swizzled:   (i%8)*16W + (i/8)*SBO + k*e            (k*e < 32: one wgmma's K)
 *   MN-major: interleave: i*e%16 + (i*e/16)*SBO + (k%8)*16 + (k/8)*LBO
 *             swizzled:   i*e%(16W) + (i*e/(16W))*LBO + (k%8)*16W + (k/8)*SBO
 * then start + that, and for a swizzle its 16-byte unit index (bits 4..) XOR-ed with bits 7.. of
 * the address (Swizzle<log2 W, 4, 3>). The base offset (for patterns not aligned to their repeat)
 * must be 0. imm-trans-a/b = 1 selects MN-major (16-bit types only); imm-scale-a/b = -1 negates
 * A or B; scale-d = false ignores D's old value. */

typedef struct fx_wgmma {
  uint32_t N, K;
  uint8_t dtype, atype, btype;
  bool satfinite, a_regs, trans_a, trans_b, neg_a, neg_b;
  uint32_t nd, dregs;          /* accumulator elements per lane (N/2), registers holding them */
  uint32_t d[128];             /* accumulator registers (read and written) */
  uint32_t a[4];               /* A fragment registers, or a[0] = A descriptor (64-bit) */
  uint32_t bdesc;              /* B descriptor (64-bit register or constant row) */
  uint32_t scale_d, scale_neg; /* predicate word and its negation mask */
} fx_wgmma;

/* Byte offset in the CTA's shared memory of element (i, k) of a descriptor's matrix; false (and a
 * fault) when it lies outside. */
static bool wg_elem(fx_warp *w, const fx_insn *in, uint32_t lane, uint64_t desc, bool mn_major, uint32_t e,
                    uint32_t i, uint32_t k, uint64_t *at) {
  uint64_t start = (desc & 0x3fffu) << 4, lbo = ((desc >> 16) & 0x3fffu) << 4, sbo = ((desc >> 32) & 0x3fffu) << 4;
  uint32_t layout = (uint32_t)(desc >> 62), W = layout == 0 ? 1 : layout == 1 ? 8 : layout == 2 ? 4 : 2;
  uint64_t off;
  if (!mn_major) {
    uint32_t kb = k * e;
    if (W == 1) off = (i % 8) * 16u + (i / 8) * sbo + (kb / 16) * lbo + kb % 16;
    else off = (i % 8) * 16u * W + (i / 8) * sbo + kb;
  } else {
    uint32_t ib = i * e;
    if (W == 1) off = ib % 16 + (ib / 16) * sbo + (k % 8) * 16u + (k / 8) * lbo;
    else off = ib % (16 * W) + (ib / (16 * W)) * lbo + (k % 8) * 16u * W + (k / 8) * sbo;
  }
  uint64_t a = start + off;
  if (W > 1) a ^= ((a >> 7) & (W - 1)) << 4;
  if (a + e > w->cta->smem_bytes) {
    fx_fault(w, in, lane, SIMTVP_ERR_FAULT, true, a,
             "wgmma: matrix descriptor 0x%016" PRIx64 " reaches shared-memory offset 0x%" PRIx64
             ", beyond the CTA's %u bytes", desc, a, w->cta->smem_bytes);
    return false;
  }
  *at = a;
  return true;
}

static uint64_t wg_load(const fx_warp *w, uint64_t at, uint32_t e) {
  uint64_t v = 0;
  memcpy(&v, w->cta->smem + at, e);
  return v;
}

H(wgmma_h) {
  if (!m) return;
  const fx_wgmma *x = in->ext;
  const uint32_t lane0 = (uint32_t)__builtin_ctz(m), rank = w->index & 3, K = x->K, N = x->N;
  const uint32_t ab = elem_bits(x->atype), bb = elem_bits(x->btype);
  static _Thread_local uint32_t A[16 * 32], B[32 * 256];
  fx_mma frag = {.M = 16, .N = 8, .K = K, .atype = x->atype, .btype = x->btype};
  if (x->a_regs) {
    for (uint32_t l = 0; l < 32; l++)
      for (uint32_t i = 0; i < 16 * K / 32; i++) {
        uint32_t r, c;
        frag_pos(&frag, OP_A, l, i, &r, &c);
        A[r * K + c] = (uint32_t)frag_get(w, x->a, ab, l, i);
      }
  } else {
    uint64_t desc = FX_R64(w, x->a[0])[lane0], at;
    for (uint32_t r = 0; r < 16; r++)
      for (uint32_t k = 0; k < K; k++) {
        if (!wg_elem(w, in, lane0, desc, x->trans_a, ab / 8, 16 * rank + r, k, &at)) return;
        A[r * K + k] = (uint32_t)wg_load(w, at, ab / 8);
      }
  }
  uint64_t bdesc = FX_R64(w, x->bdesc)[lane0], at;
  for (uint32_t n = 0; n < N; n++)
    for (uint32_t k = 0; k < K; k++) {
      if (!wg_elem(w, in, lane0, bdesc, x->trans_b, bb / 8, n, k, &at)) return;
      B[k * N + n] = (uint32_t)wg_load(w, at, bb / 8);
    }
  bool keep = ((FX_P(w, x->scale_d)[0] ^ x->scale_neg) >> lane0) & 1u;
  const uint32_t db = elem_bits(x->dtype);
  uint32_t out[128][32];
  FX_FOR_LANES(l, m) {
    uint32_t g = l >> 2, t = l & 3;
    for (uint32_t i = 0; i < x->nd; i++) {
      uint32_t r = g + 8 * ((i >> 1) & 1), c = 8 * (i >> 2) + 2 * t + (i & 1);
      uint32_t reg = db == 16 ? i / 2 : i, shift = db == 16 ? 16 * (i & 1) : 0;
      uint32_t old = (FX_R32(w, x->d[reg])[l] >> shift) & (db == 16 ? 0xffffu : 0xffffffffu), v;
      if (x->dtype == PTX_TYPE_S32) {
        int64_t acc = keep ? (int32_t)old : 0;
        for (uint32_t k = 0; k < K; k++) acc += int_of(A[r * K + k], x->atype) * int_of(B[k * N + c], x->btype);
        if (x->satfinite) acc = acc > INT32_MAX ? INT32_MAX : acc < INT32_MIN ? INT32_MIN : acc;
        v = (uint32_t)acc;
      } else {
        float acc = keep ? (float)real_of(old, x->dtype) : 0.0f;
        for (uint32_t k = 0; k < K; k++) {
          float a = (float)real_of(A[r * K + k], x->atype), bv = (float)real_of(B[k * N + c], x->btype);
          acc = __builtin_fmaf(x->neg_a ? -a : a, x->neg_b ? -bv : bv, acc);
        }
        v = x->dtype == PTX_TYPE_F16 ? alu_cvt_rn_f16_f32(alu_f32_bits(acc), 0) : alu_f32_bits(acc);
      }
      if (db == 16) {
        if (!(i & 1)) out[reg][l] = 0;
        out[reg][l] |= v << shift;
      } else {
        out[reg][l] = v;
      }
    }
  }
  for (uint32_t k = 0; k < x->dregs; k++) {
    uint32_t *d = FX_R32(w, x->d[k]);
    FX_FOR_LANES(l, m) d[l] = out[k][l];
  }
}

H(wgmma_nop_h) { (void)w, (void)in, (void)m; }

static simtvp_status build_wgmma_sync(fx_build *b) {
  fx_insn *in = b->out;
  /* wait_group: timing models let the warp wait for its outstanding work */
  in->cls = b->pi->opcode == PTX_OP_WGMMA_WAIT_GROUP ? FX_C_FENCE : FX_C_ALU;
  in->fn = wgmma_nop_h;
  return SIMTVP_OK;
}

static simtvp_status build_wgmma(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  fx_wgmma *x = fx_alloc(b->p, sizeof *x);
  if (!x) return simtvp_diag_set(b->diag, SIMTVP_ERR_NOMEM, "out of host memory");
  in->cls = FX_C_ALU; /* the timing decode puts wgmma on the tensor cores */
  x->N = 8u * pi->vec;
  x->K = pi->geom;
  x->dtype = pi->type, x->atype = pi->type2, x->btype = pi->type3;
  x->satfinite = (pi->mods & PTX_MOD_SATFINITE) != 0;
  uint32_t d = x->dtype, a = x->atype, bt = x->btype;
  bool f16 = a == PTX_TYPE_F16 && bt == PTX_TYPE_F16 && (d == PTX_TYPE_F16 || d == PTX_TYPE_F32) && x->K == 16;
  bool bf16 = a == PTX_TYPE_BF16 && bt == PTX_TYPE_BF16 && d == PTX_TYPE_F32 && x->K == 16;
  bool tf32 = a == PTX_TYPE_TF32 && bt == PTX_TYPE_TF32 && d == PTX_TYPE_F32 && x->K == 8;
  bool f8 = (a == PTX_TYPE_E4M3 || a == PTX_TYPE_E5M2) && (bt == PTX_TYPE_E4M3 || bt == PTX_TYPE_E5M2) &&
            (d == PTX_TYPE_F16 || d == PTX_TYPE_F32) && x->K == 32;
  bool i8 = (a == PTX_TYPE_S8 || a == PTX_TYPE_U8) && (bt == PTX_TYPE_S8 || bt == PTX_TYPE_U8) && d == PTX_TYPE_S32 &&
            x->K == 32;
  if (!x->N || !(f16 || bf16 || tf32 || f8 || i8))
    return fx_unsupported(b, "wgmma shape and types (f16/bf16 k16, tf32 k8, e4m3/e5m2 k32, s8/u8 k32 are supported)");
  if (x->satfinite && !i8) return fx_unsupported(b, "wgmma .satfinite is for integer types");
  if (pi->nops < 4) return fx_unsupported(b, "wgmma.mma_async needs d, a, b-desc, scale-d");
  /* the immediates after scale-d */
  int64_t imm[4] = {0};
  uint32_t n_imm = 0;
  if (pi->nops == 5) {
    const ptx_operand *v = &pi->ops[4], *el = fx_vec_elems(b, v);
    n_imm = v->count;
    for (uint32_t i = 0; i < n_imm && i < 4; i++) imm[i] = el[i].value;
  }
  const ptx_operand *ao = &pi->ops[1];
  x->a_regs = ao->kind == PTX_OPND_VEC;
  bool sixteen = f16 || bf16;
  uint32_t want = i8 ? 0 : sixteen ? (x->a_regs ? 3 : 4) : 2;
  if (n_imm != want) {
    char why[120];
    snprintf(why, sizeof why, "this wgmma form takes %u immediates after scale-d (imm-scale-a, imm-scale-b%s), not %u",
             want, !sixteen ? "" : x->a_regs ? ", imm-trans-b" : ", imm-trans-a, imm-trans-b", n_imm);
    return fx_unsupported(b, why);
  }
  if (want >= 2) {
    if ((imm[0] != 1 && imm[0] != -1) || (imm[1] != 1 && imm[1] != -1))
      return fx_unsupported(b, "imm-scale-a and imm-scale-b are 1 or -1");
    x->neg_a = imm[0] == -1, x->neg_b = imm[1] == -1;
  }
  if (want == 4) x->trans_a = imm[2] != 0, x->trans_b = imm[3] != 0;
  if (want == 3) x->trans_b = imm[2] != 0;
  if ((want == 4 && (uint64_t)imm[2] > 1) || (want >= 3 && (uint64_t)imm[want - 1] > 1))
    return fx_unsupported(b, "imm-trans-a and imm-trans-b are 0 or 1");
  /* accumulators: N/2 per lane, in N/2 32-bit registers (N/4 for f16) */
  x->nd = x->N / 2;
  x->dregs = d == PTX_TYPE_F16 ? x->N / 4 : x->N / 2;
  const ptx_operand *dv = &pi->ops[0];
  if (dv->kind != PTX_OPND_VEC || dv->count != x->dregs) {
    char why[96];
    snprintf(why, sizeof why, "this wgmma shape and type has %u accumulator registers", x->dregs);
    return fx_unsupported(b, why);
  }
  const ptx_operand *el = fx_vec_elems(b, dv);
  simtvp_status st = SIMTVP_OK;
  for (uint32_t i = 0; i < x->dregs && st == SIMTVP_OK; i++) {
    if (el[i].kind != PTX_OPND_REG || el[i].rclass != PTX_RC_B32)
      return fx_unsupported(b, "wgmma accumulators are 32-bit registers");
    st = fx_dst_op(b, &el[i], &x->d[i]);
  }
  if (st == SIMTVP_OK) {
    if (x->a_regs) {
      if (ao->count != 4) return fx_unsupported(b, "wgmma's A fragment is 4 registers");
      const ptx_operand *ae = fx_vec_elems(b, ao);
      for (uint32_t i = 0; i < 4 && st == SIMTVP_OK; i++) {
        if (ae[i].kind != PTX_OPND_REG || ae[i].rclass != PTX_RC_B32)
          return fx_unsupported(b, "wgmma's A fragment is 32-bit registers");
        st = fx_src_op(b, &ae[i], PTX_TYPE_B32, &x->a[i]);
      }
    } else {
      st = fx_src(b, 1, PTX_TYPE_U64, &x->a[0]);
    }
  }
  if (st == SIMTVP_OK) st = fx_src(b, 2, PTX_TYPE_U64, &x->bdesc);
  if (st == SIMTVP_OK) st = fx_pred_src(b, &pi->ops[3], &x->scale_d, &x->scale_neg);
  if (st != SIMTVP_OK) return st;
  if ((x->trans_a || x->trans_b) && !sixteen) return fx_unsupported(b, "wgmma transposes only 16-bit types");
  in->ext = x;
  in->fn = wgmma_h;
  return SIMTVP_OK;
}

void fx_register_mma(fx_builder *t) {
  t[PTX_OP_MMA] = build_mma;
  t[PTX_OP_LDMATRIX] = build_ldst_matrix;
  t[PTX_OP_STMATRIX] = build_ldst_matrix;
  t[PTX_OP_MOVMATRIX] = build_movmatrix;
  t[PTX_OP_WGMMA_MMA_ASYNC] = build_wgmma;
  t[PTX_OP_WGMMA_FENCE] = build_wgmma_sync;
  t[PTX_OP_WGMMA_COMMIT_GROUP] = build_wgmma_sync;
  t[PTX_OP_WGMMA_WAIT_GROUP] = build_wgmma_sync;
}
