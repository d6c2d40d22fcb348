/* exec_cvt — cvt (PTX ISA 9.7.9.21) between every pair of types alu_cvt knows, with rounding,
 * saturation, .ftz and .relu; the conversions nvcc emits most get inline vectorised handlers. */
#include "alu.h"
#include "func_internal.h"

#define H(name) static void name(fx_warp *w, const fx_insn *in, uint32_t m)

#define CV(name, SRC_T, SRC_R, DST_T, DST_R, put, EXPR)                                        \
  H(name) {                                                                                    \
    const SRC_T *A = SRC_R(w, in->o[1]);                                                       \
    DST_T r[32];                                                                               \
    for (unsigned i = 0; i < 32; i++) {                                                        \
      SRC_T a = A[i];                                                                          \
      r[i] = (EXPR);                                                                           \
    }                                                                                          \
    put(DST_R(w, in->o[0]), r, m);                                                             \
  }
CV(cvt_s64_s32, uint32_t, FX_R32, uint64_t, FX_R64, fx_put64, (uint64_t)(int64_t)(int32_t)a)
CV(cvt_u64_u32, uint32_t, FX_R32, uint64_t, FX_R64, fx_put64, (uint64_t)a)
CV(cvt_32_64, uint64_t, FX_R64, uint32_t, FX_R32, fx_put32, (uint32_t)a)
CV(cvt_u32_u16, uint32_t, FX_R32, uint32_t, FX_R32, fx_put32, a & 0xffffu)
CV(cvt_s32_s16, uint32_t, FX_R32, uint32_t, FX_R32, fx_put32, (uint32_t)(int32_t)(int16_t)a)
CV(cvt_u32_u8, uint32_t, FX_R32, uint32_t, FX_R32, fx_put32, a & 0xffu)
CV(cvt_s32_s8, uint32_t, FX_R32, uint32_t, FX_R32, fx_put32, (uint32_t)(int32_t)(int8_t)a)
CV(cvt_rn_f32_s32, uint32_t, FX_R32, uint32_t, FX_R32, fx_put32, alu_cvt_rn_f32_s32(a))
CV(cvt_rn_f32_u32, uint32_t, FX_R32, uint32_t, FX_R32, fx_put32, alu_cvt_rn_f32_u32(a))
CV(cvt_rn_f64_s32, uint32_t, FX_R32, uint64_t, FX_R64, fx_put64, alu_cvt_rn_f64_s32(a))
CV(cvt_rn_f64_u32, uint32_t, FX_R32, uint64_t, FX_R64, fx_put64, alu_cvt_rn_f64_u32(a))
CV(cvt_f64_f32, uint32_t, FX_R32, uint64_t, FX_R64, fx_put64, alu_cvt_f64_f32(a, 0))
CV(cvt_rzi_s32_f32, uint32_t, FX_R32, uint32_t, FX_R32, fx_put32, alu_cvt_rzi_s32_f32(a))
CV(cvt_rzi_u32_f32, uint32_t, FX_R32, uint32_t, FX_R32, fx_put32, alu_cvt_rzi_u32_f32(a))

/* any pair: flags 1 = source row 64-bit, 2 = destination row 64-bit */
H(cvt_any) {
  ptx_type dt = (ptx_type)in->type, st = (ptx_type)in->type2;
  ptx_rounding rnd = (ptx_rounding)in->aux;
  FX_FOR_LANES(i, m) {
    uint64_t a = (in->flags & 1) ? FX_R64(w, in->o[1])[i] : FX_R32(w, in->o[1])[i];
    uint64_t r = alu_cvt(a, dt, st, rnd, in->mods);
    if (in->flags & 2) FX_R64(w, in->o[0])[i] = r;
    else FX_R32(w, in->o[0])[i] = (uint32_t)r;
  }
}

/* cvt.rn.f16x2.f32 d, a, b and friends: d = {cvt(a) in the upper half, cvt(b) in the lower} */
H(cvt_pack) {
  const uint32_t *A = FX_R32(w, in->o[1]), *B = FX_R32(w, in->o[2]);
  uint32_t *D = FX_R32(w, in->o[0]);
  FX_FOR_LANES(i, m) D[i] = alu_cvt_pack_x2(A[i], B[i], (ptx_type)in->type, (ptx_rounding)in->aux, in->mods);
}
/* cvt.f16x2.e4m3x2 d, a (a: 16-bit packed) */
H(cvt_unpack) {
  const uint32_t *A = FX_R32(w, in->o[1]);
  uint32_t *D = FX_R32(w, in->o[0]);
  FX_FOR_LANES(i, m) D[i] = alu_cvt_unpack_x2_f16x2((uint16_t)A[i], (ptx_type)in->type2, in->mods);
}

static bool is_x2(ptx_type t) {
  return t == PTX_TYPE_F16X2 || t == PTX_TYPE_BF16X2 || t == PTX_TYPE_E4M3X2 || t == PTX_TYPE_E5M2X2;
}

static simtvp_status build_cvt(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  ptx_type dt = (ptx_type)pi->type, st_ = (ptx_type)pi->type2;
  if (pi->nops < 2) return fx_unsupported(b, "cvt needs two operands");
  simtvp_status st = fx_dst(b, 0, &in->o[0]);
  if (st == SIMTVP_OK) st = fx_src(b, 1, st_, &in->o[1]);
  if (st != SIMTVP_OK) return st;
  in->aux = pi->rounding;
  if (is_x2(dt) && pi->nops >= 3) {
    st = fx_src(b, 2, st_, &in->o[2]);
    in->fn = cvt_pack;
    return st;
  }
  if (is_x2(st_) && dt == PTX_TYPE_F16X2) {
    in->fn = cvt_unpack;
    return SIMTVP_OK;
  }
  const ptx_operand *d = &pi->ops[0], *a = &pi->ops[1];
  bool swide = a->kind == PTX_OPND_REG ? a->rclass == PTX_RC_B64 : ptx_type_bytes(st_) == 8;
  bool dwide = d->kind == PTX_OPND_REG ? d->rclass == PTX_RC_B64 : ptx_type_bytes(dt) == 8;
  if ((a->kind == PTX_OPND_REG && a->rclass > PTX_RC_B64) || (d->kind == PTX_OPND_REG && d->rclass > PTX_RC_B64))
    return fx_unsupported(b, "cvt of predicates or 128-bit registers");
  in->flags = (uint8_t)((swide ? 1 : 0) | (dwide ? 2 : 0));
  uint64_t mods = pi->mods;
  uint32_t rnd = pi->rounding;
  bool plain = !(mods & (PTX_MOD_SAT | PTX_MOD_FTZ | PTX_MOD_RELU | PTX_MOD_SATFINITE));
  fx_fn fast = NULL;
  if (plain) {
    if ((dt == PTX_TYPE_S64 && st_ == PTX_TYPE_S32) && !swide && dwide) fast = cvt_s64_s32;
    else if ((dt == PTX_TYPE_U64 || dt == PTX_TYPE_S64 || dt == PTX_TYPE_B64) &&
             (st_ == PTX_TYPE_U32 || st_ == PTX_TYPE_B32) && !swide && dwide)
      fast = cvt_u64_u32;
    else if (ptx_type_bytes(dt) == 4 && !ptx_type_is_float(dt) && ptx_type_bytes(st_) == 8 &&
             !ptx_type_is_float(st_) && swide && !dwide)
      fast = cvt_32_64;
    else if (!swide && !dwide && (dt == PTX_TYPE_U32 || dt == PTX_TYPE_S32) &&
             (st_ == PTX_TYPE_U16 || st_ == PTX_TYPE_U8))
      fast = st_ == PTX_TYPE_U16 ? cvt_u32_u16 : cvt_u32_u8;
    else if (!swide && !dwide && (dt == PTX_TYPE_S32 || dt == PTX_TYPE_U32) &&
             (st_ == PTX_TYPE_S16 || st_ == PTX_TYPE_S8))
      fast = st_ == PTX_TYPE_S16 ? cvt_s32_s16 : cvt_s32_s8;
    else if (dt == PTX_TYPE_F32 && (rnd == PTX_RND_RN || rnd == PTX_RND_NONE) && !swide && !dwide)
      fast = st_ == PTX_TYPE_S32 ? cvt_rn_f32_s32 : st_ == PTX_TYPE_U32 ? cvt_rn_f32_u32 : NULL;
    else if (dt == PTX_TYPE_F64 && (rnd == PTX_RND_RN || rnd == PTX_RND_NONE) && !swide && dwide)
      fast = st_ == PTX_TYPE_S32 ? cvt_rn_f64_s32 : st_ == PTX_TYPE_U32 ? cvt_rn_f64_u32
             : st_ == PTX_TYPE_F32 ? cvt_f64_f32 : NULL;
    else if (st_ == PTX_TYPE_F32 && (rnd == PTX_RND_RZI || rnd == PTX_RND_NONE) && !swide && !dwide)
      fast = dt == PTX_TYPE_S32 ? cvt_rzi_s32_f32 : dt == PTX_TYPE_U32 ? cvt_rzi_u32_f32 : NULL;
  }
  in->fn = fast ? fast : cvt_any;
  return SIMTVP_OK;
}

void fx_register_cvt(fx_builder *t) { t[PTX_OP_CVT] = build_cvt; }
