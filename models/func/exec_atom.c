/* exec_atom — atom and red (PTX ISA 9.7.13.5-6): and or xor cas exch add inc dec min max on
 * 32/64-bit integers, add on f32/f64 and f16/f16x2/bf16/bf16x2, in global, shared and generic
 * memory. Lanes of a warp are applied one after the other in lane order, so colliding lanes see
 * each other's results exactly as serialised hardware atomics do, and the outcome is deterministic.
 * Memory-order and scope qualifiers need no action (every access is immediate, in order). */
#include <inttypes.h>

#include "alu.h"
#include "func_internal.h"

enum { AT_ATOMIC_FLAG = 0x80, AT_RED = 0x40, AT_SIGNED = 0x01 };

static uint64_t atom_apply(uint32_t op, ptx_type t, uint64_t old, uint64_t b, uint64_t c, bool *ok) {
  uint32_t bytes = ptx_type_bytes(t);
  bool s = ptx_type_is_signed(t);
  uint64_t mask = bytes >= 8 ? ~0ull : (1ull << (bytes * 8)) - 1;
  *ok = true;
  switch (op) {
  case PTX_ATOM_AND: return old & b;
  case PTX_ATOM_OR: return old | b;
  case PTX_ATOM_XOR: return old ^ b;
  case PTX_ATOM_EXCH: return b;
  case PTX_ATOM_CAS: return ((old ^ b) & mask) == 0 ? c : old;
  case PTX_ATOM_INC: return (old & mask) >= (b & mask) ? 0 : old + 1;
  case PTX_ATOM_DEC: return ((old & mask) == 0 || (old & mask) > (b & mask)) ? b : old - 1;
  case PTX_ATOM_ADD:
    switch (t) {
    case PTX_TYPE_F32: return alu_add_f32((uint32_t)old, (uint32_t)b, PTX_MOD_FTZ);
    case PTX_TYPE_F64: return alu_add_f64(old, b);
    case PTX_TYPE_F16: return alu_add_f16((uint16_t)old, (uint16_t)b, PTX_RND_RN, 0);
    case PTX_TYPE_F16X2: return alu_add_f16x2((uint32_t)old, (uint32_t)b, PTX_RND_RN, 0);
    case PTX_TYPE_BF16: return alu_add_bf16((uint16_t)old, (uint16_t)b, PTX_RND_RN, 0);
    case PTX_TYPE_BF16X2: return alu_add_bf16x2((uint32_t)old, (uint32_t)b, PTX_RND_RN, 0);
    default: return old + b;
    }
  case PTX_ATOM_MIN:
  case PTX_ATOM_MAX: {
    bool mx = op == PTX_ATOM_MAX;
    if (t == PTX_TYPE_F32) return mx ? alu_max_f32((uint32_t)old, (uint32_t)b, 0) : alu_min_f32((uint32_t)old, (uint32_t)b, 0);
    if (t == PTX_TYPE_F64) return mx ? alu_max_f64(old, b) : alu_min_f64(old, b);
    if (bytes == 8) {
      if (s) return (mx ? (int64_t)b > (int64_t)old : (int64_t)b < (int64_t)old) ? b : old;
      return (mx ? b > old : b < old) ? b : old;
    }
    if (s) return (mx ? (int32_t)b > (int32_t)old : (int32_t)b < (int32_t)old) ? b : old;
    return (mx ? (uint32_t)b > (uint32_t)old : (uint32_t)b < (uint32_t)old) ? b : old;
  }
  default: *ok = false; return old;
  }
}

static void atom_h(fx_warp *w, const fx_insn *in, uint32_t m) {
  uint64_t addr[32];
  uint8_t *hp[32];
  uint32_t n = in->size;
  bool red = in->flags & AT_RED;
  if (w->rec) {
    w->rec->is_atomic = true;
    w->rec->is_load = !red;
    w->rec->is_store = true;
  }
  fx_addr_gen(w, in, m, addr);
  if (!fx_resolve(w, in, m, addr, in->space, n, n, true, hp) || !m) return;
  w->counts->atomics[in->space == FX_SPACE_TPARAM ? PTX_SPACE_PARAM : in->space]++;
  bool wide = in->vec; /* operand rows are 64-bit */
  ptx_type t = (ptx_type)in->type;
  /* one lane after the other; each read-modify-write is a host atomic (compare-and-swap loop), so
   * it stays atomic when several host threads run CTAs (func_config.threads) */
  FX_FOR_LANES(i, m) {
    uint64_t b = wide ? FX_R64(w, in->o[2])[i] : FX_R32(w, in->o[2])[i];
    uint64_t c = in->aux2 ? (wide ? FX_R64(w, in->o[3])[i] : FX_R32(w, in->o[3])[i]) : 0;
    bool ok;
    uint64_t old;
    switch (n) {
    case 2: {
      uint16_t *p = (uint16_t *)(void *)hp[i], o = __atomic_load_n(p, __ATOMIC_RELAXED);
      while (!__atomic_compare_exchange_n(p, &o, (uint16_t)atom_apply(in->aux, t, o, b, c, &ok), false,
                                          __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
      }
      old = o;
      break;
    }
    case 4: {
      uint32_t *p = (uint32_t *)(void *)hp[i], o = __atomic_load_n(p, __ATOMIC_RELAXED);
      while (!__atomic_compare_exchange_n(p, &o, (uint32_t)atom_apply(in->aux, t, o, b, c, &ok), false,
                                          __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
      }
      old = o;
      break;
    }
    default: {
      uint64_t *p = (uint64_t *)(void *)hp[i], o = __atomic_load_n(p, __ATOMIC_RELAXED);
      while (!__atomic_compare_exchange_n(p, &o, atom_apply(in->aux, t, o, b, c, &ok), false, __ATOMIC_SEQ_CST,
                                          __ATOMIC_RELAXED)) {
      }
      old = o;
      break;
    }
    }
    if (!red) {
      if (wide) FX_R64(w, in->o[0])[i] = old;
      else FX_R32(w, in->o[0])[i] = (uint32_t)old;
    }
  }
}

static simtvp_status build_atom(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  bool red = pi->opcode == PTX_OP_RED;
  ptx_type t = (ptx_type)pi->type;
  uint32_t n = ptx_type_bytes(t);
  in->cls = FX_C_MEM;
  in->flags = AT_ATOMIC_FLAG | (red ? AT_RED : 0);
  in->aux = pi->sub_op;
  if (pi->vec > 1) return fx_unsupported(b, "vector atomics");
  if (n != 2 && n != 4 && n != 8) return fx_unsupported(b, "atomic type not supported");
  if (n == 2 && pi->sub_op != PTX_ATOM_CAS && pi->sub_op != PTX_ATOM_ADD && pi->sub_op != PTX_ATOM_EXCH)
    return fx_unsupported(b, "16-bit atomic operation not supported");
  in->size = (uint8_t)n;
  uint32_t base = red ? 0 : 1;
  if (pi->nops < base + 2) return fx_unsupported(b, "too few operands");
  simtvp_status st = fx_mem_operand(b, &pi->ops[base], 1);
  if (st != SIMTVP_OK) return st;
  if (in->space != PTX_SPACE_GLOBAL && in->space != PTX_SPACE_SHARED && in->space != PTX_SPACE_GENERIC)
    return fx_unsupported(b, "atomics work on global, shared or generic addresses");
  if (!red) st = fx_dst(b, 0, &in->o[0]);
  if (st == SIMTVP_OK) st = fx_src(b, base + 1, t, &in->o[2]);
  if (st == SIMTVP_OK && pi->sub_op == PTX_ATOM_CAS) {
    if (pi->nops < base + 3) return fx_unsupported(b, "cas needs a swap value");
    st = fx_src(b, base + 2, t, &in->o[3]);
    in->aux2 = 1;
  }
  if (st != SIMTVP_OK) return st;
  in->vec = n == 8; /* reused: 64-bit operand rows */
  in->fn = atom_h;
  return SIMTVP_OK;
}

void fx_register_atom(fx_builder *t) {
  t[PTX_OP_ATOM] = build_atom;
  t[PTX_OP_RED] = build_atom;
}
