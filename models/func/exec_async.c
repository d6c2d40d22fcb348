/* exec_async — asynchronous copies and mbarrier objects (PTX ISA 9.7.9.25 cp.async,
 * 9.7.9.26 cp.async.bulk, 9.7.13.15 mbarrier): cp.async.{ca,cg}.shared.global with src-size and
 * ignore-src, cp.async.commit_group / wait_group / wait_all, cp.async.mbarrier.arrive[.noinc],
 * mbarrier.init / inval / arrive[.expect_tx][.noComplete] / arrive_drop / expect_tx / complete_tx /
 * test_wait / try_wait[.parity] / pending_count.
 *
 * Copies complete when they are issued: the engine's memory is always up to date, so a copy's
 * data is in shared memory before any later instruction runs, and commit/wait groups have nothing
 * to wait for. That is one of the orders the hardware may produce (a wait only guarantees that
 * the copy has completed by then). Timing models see a cp.async as a global load (step kind MEM,
 * the source addresses) and wait_group/wait_all as a fence: the warp waits until its memory
 * instructions have completed (docs/func.md "Asynchronous copies and mbarriers").
 *
 * An mbarrier is a 64-bit object in shared memory whose layout the ISA leaves to the
 * implementation. Here (lowest bit first): 20 bits pending arrivals of the current phase, 20 bits
 * expected arrivals per phase, 22 bits transaction count (two's complement), one reserved bit, the
 * phase parity. A phase completes when its pending arrivals and its transaction count are both
 * zero; then the parity flips and the pending count is reset to the expected count. The state an
 * arrive returns is the object as it was before the arrive (test_wait compares its parity). Lanes
 * of a warp apply in lane order. A wait that finds its phase incomplete ends the warp's time slice
 * in functional mode, so the warps it waits for run. Using an object that was never initialised
 * (or was invalidated), arriving more often than a phase expects, or a transaction count outside
 * ±(2^20 - 1) is a fault naming the thread and the address. */
#include <inttypes.h>

#include "func_internal.h"

#define H(name) static void name(fx_warp *w, const fx_insn *in, uint32_t m)

/* ---- the mbarrier object ---------------------------------------------------------------------- */

#define MB_COUNT_MASK 0xfffffull
#define MB_TX_SHIFT 40
#define MB_TX_BITS 22
#define MB_PHASE_BIT (1ull << 63)
#define MB_MAX_COUNT 0xfffffu          /* 2^20 - 1: arrivals and transaction bytes */

static inline uint32_t mb_pending(uint64_t v) { return (uint32_t)(v & MB_COUNT_MASK); }
static inline uint32_t mb_expected(uint64_t v) { return (uint32_t)((v >> 20) & MB_COUNT_MASK); }
static inline int64_t mb_tx(uint64_t v) {
  uint64_t f = (v >> MB_TX_SHIFT) & ((1ull << MB_TX_BITS) - 1);
  return (int64_t)(f << (64 - MB_TX_BITS)) >> (64 - MB_TX_BITS);
}
static inline uint64_t mb_make(uint32_t pending, uint32_t expected, int64_t tx, uint64_t phase_bit) {
  return (uint64_t)pending | ((uint64_t)expected << 20) |
         (((uint64_t)tx & ((1ull << MB_TX_BITS) - 1)) << MB_TX_SHIFT) | phase_bit;
}
/* A phase whose arrivals and transactions are all in completes: parity flips, count resets. */
static inline uint64_t mb_settle(uint64_t v) {
  if (mb_pending(v) == 0 && mb_tx(v) == 0)
    return mb_make(mb_expected(v), mb_expected(v), 0, (v & MB_PHASE_BIT) ^ MB_PHASE_BIT);
  return v;
}

/* flags of mbarrier instructions */
enum {
  MB_F_COUNT = 1,     /* o[2] holds the arrival count (else 1) */
  MB_F_TX = 2,        /* o[3] holds a transaction count (expect_tx forms) */
  MB_F_STATE = 4,     /* o[0] receives the state (not a sink) */
  MB_F_PARITY = 8,    /* test/try_wait on a phase parity (o[2] is u32) */
  MB_F_DROP = 16,     /* arrive_drop */
  MB_F_NOCOMPLETE = 32
};

static const char *mb_what(uint32_t sub) {
  switch (sub) {
  case PTX_MBAR_INIT: return "mbarrier.init";
  case PTX_MBAR_INVAL: return "mbarrier.inval";
  case PTX_MBAR_ARRIVE: return "mbarrier.arrive";
  case PTX_MBAR_ARRIVE_DROP: return "mbarrier.arrive_drop";
  case PTX_MBAR_TEST_WAIT: return "mbarrier.test_wait";
  case PTX_MBAR_TRY_WAIT: return "mbarrier.try_wait";
  case PTX_MBAR_EXPECT_TX: return "mbarrier.expect_tx";
  case PTX_MBAR_COMPLETE_TX: return "mbarrier.complete_tx";
  default: return "cp.async.mbarrier.arrive";
  }
}

/* Resolves the mbarrier address of each lane of m to a host pointer in shared memory (8 bytes,
 * 8-byte aligned). A generic address must fall in the shared window. false: fault raised. */
static bool mb_resolve(fx_warp *w, const fx_insn *in, uint32_t m, bool write, uint64_t *addr, uint64_t **obj) {
  uint8_t *hp[32];
  fx_addr_gen(w, in, m, addr);
  if (in->space == PTX_SPACE_GENERIC) {
    FX_FOR_LANES(i, m) {
      uint64_t off;
      if (fx_generic_space(addr[i], &off) != PTX_SPACE_SHARED) {
        fx_fault(w, in, i, SIMTVP_ERR_FAULT, true, addr[i],
                 "%s: generic address 0x%" PRIx64 " is not in shared memory (an mbarrier object lives in "
                 "shared memory)", mb_what(in->aux), addr[i]);
        return false;
      }
    }
  }
  if (!fx_resolve(w, in, m, addr, in->space, 8, 8, write, hp)) return false;
  for (unsigned i = 0; i < 32; i++) obj[i] = (uint64_t *)(void *)hp[i];
  return true;
}

static bool mb_valid(fx_warp *w, const fx_insn *in, uint32_t lane, uint64_t addr, uint64_t v) {
  if (mb_expected(v) != 0) return true;
  fx_fault(w, in, lane, SIMTVP_ERR_FAULT, true, addr,
           "%s on the mbarrier object at shared address 0x%" PRIx64 ", which is not initialised "
           "(mbarrier.init) or was invalidated", mb_what(in->aux), addr);
  return false;
}

/* Adds delta to the transaction count; false (fault) outside the ISA's range. */
static bool mb_add_tx(fx_warp *w, const fx_insn *in, uint32_t lane, uint64_t addr, uint64_t *v, int64_t delta) {
  int64_t tx = mb_tx(*v) + delta;
  if (tx > (int64_t)MB_MAX_COUNT || tx < -(int64_t)MB_MAX_COUNT) {
    fx_fault(w, in, lane, SIMTVP_ERR_FAULT, true, addr,
             "%s: the transaction count of the mbarrier object at shared address 0x%" PRIx64
             " would be %" PRId64 ", outside +-%u", mb_what(in->aux), addr, tx, MB_MAX_COUNT);
    return false;
  }
  *v = mb_make(mb_pending(*v), mb_expected(*v), tx, *v & MB_PHASE_BIT);
  return true;
}

/* `count` arrivals (and, with drop, fewer expected from now on); false: fault. */
static bool mb_arrive(fx_warp *w, const fx_insn *in, uint32_t lane, uint64_t addr, uint64_t *v, uint32_t count,
                      bool drop) {
  if (count == 0 || count > mb_pending(*v) || (drop && count > mb_expected(*v))) {
    fx_fault(w, in, lane, SIMTVP_ERR_FAULT, true, addr,
             "%s of %u on the mbarrier object at shared address 0x%" PRIx64
             ", whose current phase waits for %u more arrivals (of %u)",
             mb_what(in->aux), count, addr, mb_pending(*v), mb_expected(*v));
    return false;
  }
  uint32_t expected = mb_expected(*v) - (drop ? count : 0);
  *v = mb_make(mb_pending(*v) - count, expected, mb_tx(*v), *v & MB_PHASE_BIT);
  if ((in->flags & MB_F_NOCOMPLETE) && mb_pending(*v) == 0 && mb_tx(*v) == 0) {
    fx_fault(w, in, lane, SIMTVP_ERR_FAULT, true, addr,
             "mbarrier.arrive.noComplete completed the current phase of the mbarrier object at shared "
             "address 0x%" PRIx64, addr);
    return false;
  }
  *v = mb_settle(*v);
  return true;
}

static void mb_record(fx_warp *w, bool atomic) {
  if (!w->rec) return;
  w->rec->is_atomic = atomic;
  w->rec->is_load = true;
  w->rec->is_store = atomic;
}

static inline uint32_t mb_u32(fx_warp *w, uint32_t off, uint32_t lane) { return FX_R32(w, off)[lane]; }

/* init [a], count   (o[2] count) */
H(mb_init_h) {
  uint64_t addr[32], *obj[32];
  mb_record(w, false);
  if (w->rec) w->rec->is_store = true, w->rec->is_load = false;
  if (!mb_resolve(w, in, m, true, addr, obj) || !m) return;
  w->counts->stores[PTX_SPACE_SHARED]++;
  FX_FOR_LANES(i, m) {
    uint32_t n = mb_u32(w, in->o[2], i);
    if (n == 0 || n > MB_MAX_COUNT) {
      fx_fault(w, in, i, SIMTVP_ERR_FAULT, true, addr[i],
               "mbarrier.init with an expected count of %u (the ISA allows 1 to %u)", n, MB_MAX_COUNT);
      return;
    }
    *obj[i] = mb_make(n, n, 0, 0);
  }
}

/* inval [a] */
H(mb_inval_h) {
  uint64_t addr[32], *obj[32];
  mb_record(w, false);
  if (w->rec) w->rec->is_store = true, w->rec->is_load = false;
  if (!mb_resolve(w, in, m, true, addr, obj) || !m) return;
  w->counts->stores[PTX_SPACE_SHARED]++;
  FX_FOR_LANES(i, m) *obj[i] = 0;
}

/* arrive / arrive_drop [.expect_tx]: state (o[0]), [a], count (o[2]) or tx-count (o[3]) */
H(mb_arrive_h) {
  uint64_t addr[32], *obj[32];
  mb_record(w, true);
  if (!mb_resolve(w, in, m, true, addr, obj) || !m) return;
  w->counts->atomics[PTX_SPACE_SHARED]++;
  uint64_t *state = (in->flags & MB_F_STATE) ? FX_R64(w, in->o[0]) : NULL;
  FX_FOR_LANES(i, m) {
    uint64_t v = *obj[i];
    if (!mb_valid(w, in, i, addr[i], v)) return;
    uint64_t before = v;
    if ((in->flags & MB_F_TX) && !mb_add_tx(w, in, i, addr[i], &v, (int64_t)mb_u32(w, in->o[3], i))) return;
    uint32_t count = (in->flags & MB_F_COUNT) ? mb_u32(w, in->o[2], i) : 1;
    if (!mb_arrive(w, in, i, addr[i], &v, count, in->flags & MB_F_DROP)) return;
    *obj[i] = v;
    if (state) state[i] = before;
  }
}

/* expect_tx / complete_tx [a], tx-count (o[3]); aux2 = 1 for complete_tx */
H(mb_tx_h) {
  uint64_t addr[32], *obj[32];
  mb_record(w, true);
  if (!mb_resolve(w, in, m, true, addr, obj) || !m) return;
  w->counts->atomics[PTX_SPACE_SHARED]++;
  FX_FOR_LANES(i, m) {
    uint64_t v = *obj[i];
    if (!mb_valid(w, in, i, addr[i], v)) return;
    int64_t n = (int64_t)mb_u32(w, in->o[3], i);
    if (!mb_add_tx(w, in, i, addr[i], &v, in->aux2 ? -n : n)) return;
    *obj[i] = in->aux2 ? mb_settle(v) : v;
  }
}

/* test_wait / try_wait[.parity] p (o[0]), [a], state | parity (o[2]) */
H(mb_wait_h) {
  uint64_t addr[32], *obj[32];
  mb_record(w, false);
  if (!mb_resolve(w, in, m, false, addr, obj) || !m) return;
  w->counts->loads[PTX_SPACE_SHARED]++;
  uint32_t done = 0;
  FX_FOR_LANES(i, m) {
    uint64_t v = *obj[i];
    if (!mb_valid(w, in, i, addr[i], v)) return;
    uint64_t waited = (in->flags & MB_F_PARITY) ? (uint64_t)(mb_u32(w, in->o[2], i) & 1u) << 63
                                                : FX_R64(w, in->o[2])[i] & MB_PHASE_BIT;
    if ((v & MB_PHASE_BIT) != waited) done |= 1u << i;
  }
  fx_putp(FX_P(w, in->o[0]), done, m);
  if (done != m) w->stop = true; /* functional mode: let the warps it waits for run */
}

/* pending_count d, state */
H(mb_pending_h) {
  uint32_t *d = FX_R32(w, in->o[0]);
  const uint64_t *s = FX_R64(w, in->o[1]);
  FX_FOR_LANES(i, m) d[i] = mb_pending(s[i]);
}

/* cp.async.mbarrier.arrive[.noinc] [a]: the arrive that follows the thread's earlier cp.async
 * operations. They have completed already, so without .noinc (pending count +1, then the arrive)
 * nothing changes; with .noinc it is an arrive the expected count accounts for. */
H(mb_cp_arrive_h) {
  uint64_t addr[32], *obj[32];
  mb_record(w, true);
  if (!mb_resolve(w, in, m, true, addr, obj) || !m) return;
  w->counts->atomics[PTX_SPACE_SHARED]++;
  FX_FOR_LANES(i, m) {
    uint64_t v = *obj[i];
    if (!mb_valid(w, in, i, addr[i], v)) return;
    if (!in->aux2) continue;
    if (!mb_arrive(w, in, i, addr[i], &v, 1, false)) return;
    *obj[i] = v;
  }
}

static simtvp_status mb_addr_operand(fx_build *b, uint32_t opnd) {
  const ptx_insn *pi = b->pi;
  if (opnd >= pi->nops) return fx_unsupported(b, "missing the mbarrier address");
  simtvp_status st = fx_mem_operand(b, &pi->ops[opnd], 1);
  if (st != SIMTVP_OK) return st;
  if (b->out->space != PTX_SPACE_SHARED && b->out->space != PTX_SPACE_GENERIC)
    return fx_unsupported(b, "an mbarrier object lives in shared memory (.shared or a generic address)");
  return SIMTVP_OK;
}

static simtvp_status build_mbarrier(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  in->cls = FX_C_MEM;
  in->aux = pi->sub_op;
  simtvp_status st = SIMTVP_OK;
  switch (pi->sub_op) {
  case PTX_MBAR_INIT:
    if (pi->nops < 2) return fx_unsupported(b, "mbarrier.init needs [addr], count");
    st = mb_addr_operand(b, 0);
    if (st == SIMTVP_OK) st = fx_src(b, 1, PTX_TYPE_U32, &in->o[2]);
    in->fn = mb_init_h;
    return st;
  case PTX_MBAR_INVAL:
    st = mb_addr_operand(b, 0);
    in->fn = mb_inval_h;
    return st;
  case PTX_MBAR_ARRIVE:
  case PTX_MBAR_ARRIVE_DROP:
    if (pi->nops < 2) return fx_unsupported(b, "mbarrier.arrive needs state, [addr]");
    if (pi->ops[0].kind != PTX_OPND_SINK) {
      st = fx_dst(b, 0, &in->o[0]);
      in->flags |= MB_F_STATE;
    }
    if (st == SIMTVP_OK) st = mb_addr_operand(b, 1);
    if (st == SIMTVP_OK && pi->nops >= 3) {
      if (pi->mods & PTX_MOD_EXPECT_TX) {
        in->flags |= MB_F_TX;
        st = fx_src(b, 2, PTX_TYPE_U32, &in->o[3]);
      } else {
        in->flags |= MB_F_COUNT;
        st = fx_src(b, 2, PTX_TYPE_U32, &in->o[2]);
      }
    } else if (pi->mods & PTX_MOD_EXPECT_TX) {
      return fx_unsupported(b, "mbarrier.arrive.expect_tx needs a transaction count");
    }
    if (pi->sub_op == PTX_MBAR_ARRIVE_DROP) in->flags |= MB_F_DROP;
    if (pi->mods & PTX_MOD_NOCOMPLETE) in->flags |= MB_F_NOCOMPLETE;
    in->fn = mb_arrive_h;
    return st;
  case PTX_MBAR_EXPECT_TX:
  case PTX_MBAR_COMPLETE_TX:
    if (pi->nops < 2) return fx_unsupported(b, "needs [addr], tx-count");
    st = mb_addr_operand(b, 0);
    if (st == SIMTVP_OK) st = fx_src(b, 1, PTX_TYPE_U32, &in->o[3]);
    in->aux2 = pi->sub_op == PTX_MBAR_COMPLETE_TX;
    in->fn = mb_tx_h;
    return st;
  case PTX_MBAR_TEST_WAIT:
  case PTX_MBAR_TRY_WAIT:
    if (pi->nops < 3) return fx_unsupported(b, "needs p, [addr], state or phase parity");
    {
      uint32_t neg;
      if (pi->ops[0].kind != PTX_OPND_REG || pi->ops[0].rclass != PTX_RC_PRED)
        return fx_unsupported(b, "the destination of a wait is a predicate");
      st = fx_pred_src(b, &pi->ops[0], &in->o[0], &neg);
    }
    if (st == SIMTVP_OK) st = mb_addr_operand(b, 1);
    if (st == SIMTVP_OK) {
      if (pi->mods & PTX_MOD_PARITY) {
        in->flags |= MB_F_PARITY;
        st = fx_src(b, 2, PTX_TYPE_U32, &in->o[2]);
      } else {
        st = fx_src(b, 2, PTX_TYPE_U64, &in->o[2]);
      }
    }
    /* a suspend-time hint (ops[3]) changes only how long the hardware may wait */
    in->fn = mb_wait_h;
    return st;
  case PTX_MBAR_PENDING_COUNT:
    in->cls = FX_C_ALU;
    if (pi->nops < 2) return fx_unsupported(b, "mbarrier.pending_count needs d, state");
    st = fx_dst(b, 0, &in->o[0]);
    if (st == SIMTVP_OK) st = fx_src(b, 1, PTX_TYPE_U64, &in->o[1]);
    in->fn = mb_pending_h;
    return st;
  default:
    return fx_unsupported(b, "unknown mbarrier operation");
  }
}

/* ---- cp.async --------------------------------------------------------------------------------- */

enum { CP_F_SRCSIZE = 1, CP_F_IGNORE = 2 };

/* The source operand's addressing (a second fx_insn: fx_addr_gen works on one). */
typedef struct fx_cp_async {
  fx_insn src;
} fx_cp_async;

/* cp.async.{ca,cg}.shared.global [dst], [src], cp-size (size), src-size (o[2]) | ignore-src (o[3]) */
H(cp_async_h) {
  const fx_cp_async *x = in->ext;
  uint64_t dst[32], src[32];
  uint8_t *dh[32], *sh[32];
  uint32_t n = in->size, sz[32], ms = 0;
  FX_FOR_LANES(i, m) {
    uint32_t s = n;
    if (in->flags & CP_F_SRCSIZE) s = FX_R32(w, in->o[2])[i];
    if ((in->flags & CP_F_IGNORE) && (((*FX_P(w, in->o[3]) ^ in->aux2) >> i) & 1u)) s = 0;
    if (s > n) {
      fx_fault(w, in, i, SIMTVP_ERR_FAULT, false, 0, "cp.async: src-size %u is larger than cp-size %u", s, n);
      return;
    }
    sz[i] = s;
    if (s) ms |= 1u << i;
  }
  fx_addr_gen(w, in, m, dst);
  if (!fx_resolve(w, in, m, dst, in->space, n, n, true, dh)) return;
  fx_addr_gen(w, &x->src, ms, src);
  if (ms && !fx_resolve(w, in, ms, src, PTX_SPACE_GLOBAL, n, n, false, sh)) return;
  if (!m) return;
  /* the record a timing model sees: a global load of the source (or, with nothing to read, the
   * shared-memory store of the zero fill) */
  if (w->rec) {
    if (ms) {
      w->rec->is_load = true;
    } else {
      fx_resolve(w, in, m, dst, in->space, n, n, true, dh);
      w->rec->is_store = true;
    }
  }
  w->counts->loads[PTX_SPACE_GLOBAL] += ms != 0;
  w->counts->stores[PTX_SPACE_SHARED]++;
  FX_FOR_LANES(i, m) {
    if (sz[i]) memcpy(dh[i], sh[i], sz[i]);
    if (sz[i] < n) memset(dh[i] + sz[i], 0, n - sz[i]);
  }
}

H(cp_async_nop_h) { (void)w, (void)in, (void)m; }

static simtvp_status build_cp_async(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  switch (pi->sub_op) {
  case PTX_CP_ASYNC_COMMIT_GROUP:
    in->cls = FX_C_ALU;
    in->fn = cp_async_nop_h;
    return SIMTVP_OK;
  case PTX_CP_ASYNC_WAIT_GROUP:
  case PTX_CP_ASYNC_WAIT_ALL:
    in->cls = FX_C_FENCE; /* timing: the warp waits for its memory instructions */
    in->fn = cp_async_nop_h;
    return SIMTVP_OK;
  case PTX_CP_ASYNC_MBARRIER_ARRIVE:
    in->cls = FX_C_MEM;
    in->aux = 0;
    in->aux2 = (pi->mods & PTX_MOD_NOINC) != 0;
    in->fn = mb_cp_arrive_h;
    return mb_addr_operand(b, 0);
  case PTX_CP_ASYNC_COPY:
    break;
  default:
    return fx_unsupported(b, "this cp.async form");
  }
  in->cls = FX_C_MEM;
  uint32_t nops = pi->nops - ((pi->mods & PTX_MOD_CACHE_HINT) ? 1 : 0);
  if (nops < 3) return fx_unsupported(b, "cp.async needs [dst], [src], cp-size");
  if (pi->space != PTX_SPACE_SHARED && pi->space != PTX_SPACE_SHARED_CLUSTER)
    return fx_unsupported(b, "cp.async copies into shared memory");
  const ptx_operand *cs = &pi->ops[2];
  if (cs->kind != PTX_OPND_IMM || (cs->value != 4 && cs->value != 8 && cs->value != 16))
    return fx_unsupported(b, "cp-size must be the constant 4, 8 or 16");
  if (pi->cache_op == PTX_CACHE_CG && cs->value != 16) return fx_unsupported(b, "cp.async.cg copies 16 bytes");
  in->size = (uint8_t)cs->value;
  simtvp_status st = fx_mem_operand(b, &pi->ops[0], 1);
  if (st != SIMTVP_OK) return st;
  fx_cp_async *x = fx_alloc(b->p, sizeof *x);
  if (!x) return simtvp_diag_set(b->diag, SIMTVP_ERR_NOMEM, "out of host memory");
  ptx_insn global = *pi;
  global.space = PTX_SPACE_GLOBAL;
  fx_build bs = *b;
  bs.pi = &global;
  bs.out = &x->src;
  st = fx_mem_operand(&bs, &pi->ops[1], 1);
  if (st != SIMTVP_OK) return st;
  in->ext = x;
  if (nops >= 4) {
    const ptx_operand *o = &pi->ops[3];
    if (o->kind == PTX_OPND_REG && o->rclass == PTX_RC_PRED) {
      in->flags |= CP_F_IGNORE;
      st = fx_pred_src(b, o, &in->o[3], &in->aux2);
    } else {
      in->flags |= CP_F_SRCSIZE;
      st = fx_src(b, 3, PTX_TYPE_U32, &in->o[2]);
    }
  }
  in->fn = cp_async_h;
  return st;
}

void fx_register_async(fx_builder *t) {
  t[PTX_OP_CP_ASYNC] = build_cp_async;
  t[PTX_OP_MBARRIER] = build_mbarrier;
}
