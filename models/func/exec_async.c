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
#include "func_tensormap.h"

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

/* ---- cp.async.bulk ---------------------------------------------------------------------------- */

/* Operand addressing of a bulk copy besides the destination (in the fx_insn itself). */
typedef struct fx_bulk {
  fx_insn src;      /* source address */
  fx_insn mbar;     /* mbarrier (global/shared -> shared forms), am/space 0 when none */
  bool has_mbar;
  uint8_t src_space, dst_space; /* PTX_SPACE_GLOBAL or PTX_SPACE_SHARED */
} fx_bulk;

/* Host pointer to [a, a + n) of the executing CTA's shared memory; NULL after a fault. */
static uint8_t *shared_span(fx_warp *w, const fx_insn *in, uint32_t lane, uint64_t a, uint64_t n, bool write) {
  uint8_t *hp[32];
  uint64_t addr[32];
  for (unsigned i = 0; i < 32; i++) addr[i] = a;
  if (!fx_resolve(w, in, 1u << lane, addr, PTX_SPACE_SHARED, 1, 1, write, hp)) return NULL;
  uint64_t off;
  func_cta *c = fx_cluster_cta(w, a, &off); /* the executing CTA, or one of its cluster (mapa) */
  if (!c || off + n > c->smem_bytes || off + n < off) {
    fx_fault(w, in, lane, SIMTVP_ERR_FAULT, true, a,
             "%" PRIu64 " bytes at shared address 0x%" PRIx64 " run past the %u bytes of the CTA's shared memory", n,
             a, c ? c->smem_bytes : 0);
    return NULL;
  }
  return hp[lane];
}

/* The step record a timing model sees for a bulk copy: the source (the destination for a copy
 * out of shared memory is the global write) as up to 32 pseudo-lanes of 32 bytes — the first
 * KiB of the copy; the LDST unit moves at most 32 bytes per lane. */
static void bulk_record(fx_warp *w, uint64_t base, uint64_t n, uint8_t space, bool load) {
  func_step *r = w->rec;
  if (!r) return;
  uint32_t lanes = (uint32_t)((n + 31) / 32);
  if (lanes > 32) lanes = 32;
  r->space = space;
  r->access_bytes = 32;
  r->mem_mask = lanes >= 32 ? FX_FULL : (1u << lanes) - 1u;
  for (uint32_t i = 0; i < lanes; i++) r->addr[i] = base + 32ull * i;
  r->is_load = load;
  r->is_store = !load;
  r->is_atomic = false;
}

/* cp.async.bulk: o[2] size; dst through `in`, src and mbar through the ext */
H(bulk_h) {
  const fx_bulk *x = in->ext;
  uint64_t dst[32], src[32], mb[32];
  if (!m) {
    if (w->rec) w->rec->is_load = true;
    return;
  }
  fx_addr_gen(w, in, m, dst);
  fx_addr_gen(w, &x->src, m, src);
  if (x->has_mbar) fx_addr_gen(w, &x->mbar, m, mb);
  devmem *dm = w->l->e->mem;
  FX_FOR_LANES(i, m) {
    uint32_t n = FX_R32(w, in->o[2])[i];
    if (n % 16 || (dst[i] | src[i]) % 16) {
      fx_fault(w, in, i, SIMTVP_ERR_FAULT, true, (dst[i] | src[i]) % 16 ? ((dst[i] % 16) ? dst[i] : src[i]) : 0,
               "cp.async.bulk of %u bytes from 0x%" PRIx64 " to 0x%" PRIx64
               ": size and addresses must be multiples of 16", n, src[i], dst[i]);
      return;
    }
    uint8_t *from = NULL, *to = NULL;
    if (x->src_space == PTX_SPACE_SHARED && !(from = shared_span(w, in, i, src[i], n, false))) return;
    if (x->dst_space == PTX_SPACE_SHARED && !(to = shared_span(w, in, i, dst[i], n, true))) return;
    simtvp_diag d;
    simtvp_status st = SIMTVP_OK;
    if (from && to) memmove(to, from, n);
    else if (to) st = devmem_read(dm, src[i], to, n, &d);
    else st = devmem_write(dm, dst[i], from, n, &d);
    if (st != SIMTVP_OK) {
      uint64_t bad = to ? src[i] : dst[i];
      fx_fault(w, in, i, SIMTVP_ERR_FAULT, true, bad,
               "cp.async.bulk of %u bytes: global range 0x%" PRIx64 "..0x%" PRIx64 " is not mapped in device memory",
               n, bad, bad + n);
      return;
    }
    if (x->has_mbar) { /* completes n bytes of transactions on the destination CTA's mbarrier */
      uint64_t *obj = (uint64_t *)(void *)shared_span(w, in, i, mb[i], 8, true);
      if (!obj) return;
      if (mb[i] % 8) {
        fx_fault(w, in, i, SIMTVP_ERR_FAULT, true, mb[i], "cp.async.bulk: mbarrier address 0x%" PRIx64 " is not "
                 "8-byte aligned", mb[i]);
        return;
      }
      uint64_t v = *obj;
      if (!mb_valid(w, in, i, mb[i], v) || !mb_add_tx(w, in, i, mb[i], &v, -(int64_t)n)) return;
      *obj = mb_settle(v);
    }
  }
  uint32_t f = (uint32_t)__builtin_ctz(m), n0 = FX_R32(w, in->o[2])[f];
  if (x->src_space == PTX_SPACE_GLOBAL) bulk_record(w, src[f], n0, PTX_SPACE_GLOBAL, true);
  else if (x->dst_space == PTX_SPACE_GLOBAL) bulk_record(w, dst[f], n0, PTX_SPACE_GLOBAL, false);
  else bulk_record(w, src[f], n0, PTX_SPACE_SHARED, true);
  if (x->src_space == PTX_SPACE_GLOBAL) w->counts->loads[PTX_SPACE_GLOBAL]++;
  if (x->dst_space == PTX_SPACE_GLOBAL) w->counts->stores[PTX_SPACE_GLOBAL]++;
  else w->counts->stores[PTX_SPACE_SHARED]++;
}

static simtvp_status shadow_operand(fx_build *b, const ptx_operand *op, uint8_t space, fx_insn *out) {
  ptx_insn tmp = *b->pi;
  tmp.space = space;
  fx_build bs = *b;
  bs.pi = &tmp;
  bs.out = out;
  return fx_mem_operand(&bs, op, 1);
}

static simtvp_status build_bulk(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  in->cls = FX_C_MEM;
  if (pi->mods & PTX_MOD_MULTICAST)
    return fx_unsupported(b, "cp.async.bulk .multicast::cluster is not supported (one destination CTA is)");
  uint8_t dsp = pi->space == PTX_SPACE_SHARED_CLUSTER ? PTX_SPACE_SHARED : pi->space;
  uint8_t ssp = pi->geom == PTX_SPACE_SHARED_CLUSTER ? PTX_SPACE_SHARED : pi->geom;
  bool g2s = dsp == PTX_SPACE_SHARED && ssp == PTX_SPACE_GLOBAL, s2s = dsp == PTX_SPACE_SHARED && ssp == PTX_SPACE_SHARED;
  bool s2g = dsp == PTX_SPACE_GLOBAL && ssp == PTX_SPACE_SHARED;
  if (!g2s && !s2s && !s2g)
    return fx_unsupported(b, "cp.async.bulk copies global -> shared, shared -> shared::cluster or shared -> global "
                             "(name both state spaces)");
  uint32_t nops = pi->nops - ((pi->mods & PTX_MOD_CACHE_HINT) ? 1 : 0);
  if (nops < (s2g ? 3u : 4u)) return fx_unsupported(b, s2g ? "needs [dst], [src], size" : "needs [dst], [src], size, [mbar]");
  fx_bulk *x = fx_alloc(b->p, sizeof *x);
  if (!x) return simtvp_diag_set(b->diag, SIMTVP_ERR_NOMEM, "out of host memory");
  x->src_space = ssp;
  x->dst_space = dsp;
  simtvp_status st = shadow_operand(b, &pi->ops[0], dsp, in);
  if (st == SIMTVP_OK) st = shadow_operand(b, &pi->ops[1], ssp, &x->src);
  if (st == SIMTVP_OK) st = fx_src(b, 2, PTX_TYPE_U32, &in->o[2]);
  if (st == SIMTVP_OK && !s2g) {
    x->has_mbar = true;
    st = shadow_operand(b, &pi->ops[3], PTX_SPACE_SHARED, &x->mbar);
  }
  if (st != SIMTVP_OK) return st;
  in->ext = x;
  in->fn = bulk_h;
  return SIMTVP_OK;
}

/* ---- cp.async.bulk.tensor (tile mode) ------------------------------------------------------- */

typedef struct fx_tensor_copy {
  fx_insn tmap;      /* tensor-map address */
  fx_insn smem;      /* shared-memory side: destination (load) or source (store) */
  fx_insn mbar;      /* load: the mbarrier */
  uint32_t coord[FUNC_TMAP_MAX_RANK]; /* frame offsets of the coordinate registers */
  uint8_t rank;
  bool store;        /* shared -> global */
} fx_tensor_copy;

/* Shared address of box element `linear` (bytes from the box start) under a swizzle mode: the
 * 16-byte unit index within each 128-byte row XOR-ed with the row number (bits 7..9 of the
 * address), over 32, 64 or 128 bytes (CU_TENSOR_MAP_SWIZZLE_32B/64B/128B). */
static inline uint64_t swizzled(uint64_t addr, uint32_t mode) {
  if (!mode) return addr;
  uint64_t mask = (1ull << mode) - 1; /* 1, 3 or 7 units */
  return addr ^ (((addr >> 7) & mask) << 4);
}

H(tensor_copy_h) {
  const fx_tensor_copy *x = in->ext;
  if (!m) {
    if (w->rec) w->rec->is_load = true;
    return;
  }
  uint64_t ta[32], sa[32], mb[32];
  uint8_t *hp[32];
  fx_addr_gen(w, &x->tmap, m, ta);
  fx_addr_gen(w, &x->smem, m, sa);
  if (!x->store) fx_addr_gen(w, &x->mbar, m, mb);
  devmem *dm = w->l->e->mem;
  uint64_t rec_addr = 0, rec_bytes = 0;
  FX_FOR_LANES(i, m) {
    func_tensor_map t;
    if (!fx_resolve(w, in, 1u << i, ta, x->tmap.space, FUNC_TMAP_BYTES, 64, false, hp)) return;
    memcpy(&t, hp[i], sizeof t);
    if (t.magic != FUNC_TMAP_MAGIC) {
      fx_fault(w, in, i, SIMTVP_ERR_FAULT, true, ta[i],
               "cp.async.bulk.tensor: 0x%" PRIx64 " does not hold a tensor map (cuTensorMapEncodeTiled)", ta[i]);
      return;
    }
    if (t.rank != x->rank) {
      fx_fault(w, in, i, SIMTVP_ERR_FAULT, true, ta[i],
               "cp.async.bulk.tensor.%ud: the tensor map at 0x%" PRIx64 " has rank %u", x->rank, ta[i], t.rank);
      return;
    }
    int64_t c[FUNC_TMAP_MAX_RANK];
    uint32_t n[FUNC_TMAP_MAX_RANK];
    uint64_t total = t.elem_bytes;
    for (uint32_t d = 0; d < t.rank; d++) {
      c[d] = (int32_t)FX_R32(w, x->coord[d])[i];
      n[d] = (t.box[d] + t.elem_stride[d] - 1) / t.elem_stride[d];
      total *= n[d];
    }
    if (sa[i] % 128) {
      fx_fault(w, in, i, SIMTVP_ERR_FAULT, true, sa[i],
               "cp.async.bulk.tensor: shared address 0x%" PRIx64 " is not 128-byte aligned", sa[i]);
      return;
    }
    uint8_t *box = shared_span(w, in, i, sa[i], total, !x->store);
    if (!box) return;
    uint8_t fill[8] = {0};
    if (t.oob_nan) { /* the canonical NaN of the element type */
      static const uint8_t f16[2] = {0xff, 0x7f}, f32[4] = {0xff, 0xff, 0xff, 0x7f},
                           f64[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
      memcpy(fill, t.elem_bytes == 2 ? f16 : t.elem_bytes == 4 ? f32 : f64, t.elem_bytes);
    }
    /* every box element in order (dimension 0 fastest) */
    uint32_t k[FUNC_TMAP_MAX_RANK] = {0};
    for (uint64_t e = 0; e < total / t.elem_bytes; e++) {
      bool inside = true;
      uint64_t g = t.global_address;
      for (uint32_t d = 0; d < t.rank; d++) {
        int64_t coord = c[d] + (int64_t)k[d] * t.elem_stride[d];
        if (coord < 0 || coord >= (int64_t)t.dim[d]) inside = false;
        g += (uint64_t)coord * (d == 0 ? t.elem_bytes : t.stride[d - 1]);
      }
      uint8_t *s = box + (swizzled(sa[i] + e * t.elem_bytes, t.swizzle) - sa[i]);
      simtvp_diag d;
      if (x->store) {
        if (inside && devmem_write(dm, g, s, t.elem_bytes, &d) != SIMTVP_OK) {
          fx_fault(w, in, i, SIMTVP_ERR_FAULT, true, g, "cp.async.bulk.tensor: tensor element at 0x%" PRIx64
                   " is not mapped in device memory", g);
          return;
        }
      } else if (!inside) {
        memcpy(s, fill, t.elem_bytes);
      } else if (devmem_read(dm, g, s, t.elem_bytes, &d) != SIMTVP_OK) {
        fx_fault(w, in, i, SIMTVP_ERR_FAULT, true, g, "cp.async.bulk.tensor: tensor element at 0x%" PRIx64
                 " is not mapped in device memory", g);
        return;
      }
      for (uint32_t d2 = 0; d2 < t.rank && ++k[d2] == n[d2]; d2++) k[d2] = 0;
    }
    if (!x->store) { /* the whole box counts as transactions, out-of-bounds elements too */
      if (mb[i] % 8) {
        fx_fault(w, in, i, SIMTVP_ERR_FAULT, true, mb[i], "cp.async.bulk.tensor: mbarrier address 0x%" PRIx64
                 " is not 8-byte aligned", mb[i]);
        return;
      }
      uint64_t *obj = (uint64_t *)(void *)shared_span(w, in, i, mb[i], 8, true);
      if (!obj) return;
      uint64_t v = *obj;
      if (!mb_valid(w, in, i, mb[i], v) || !mb_add_tx(w, in, i, mb[i], &v, -(int64_t)total)) return;
      *obj = mb_settle(v);
    }
    if (!rec_bytes) {
      rec_addr = t.global_address;
      for (uint32_t d = 0; d < t.rank; d++) {
        int64_t coord = c[d] < 0 ? 0 : c[d];
        rec_addr += (uint64_t)coord * (d == 0 ? t.elem_bytes : t.stride[d - 1]);
      }
      rec_bytes = total;
    }
  }
  bulk_record(w, rec_addr, rec_bytes, PTX_SPACE_GLOBAL, !x->store);
  if (x->store) w->counts->stores[PTX_SPACE_GLOBAL]++;
  else w->counts->loads[PTX_SPACE_GLOBAL]++;
}

simtvp_status fx_build_tensor_copy(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  in->cls = FX_C_MEM;
  if (pi->mods & PTX_MOD_IM2COL) return fx_unsupported(b, "cp.async.bulk.tensor .im2col is not supported (.tile is)");
  if (pi->mods & PTX_MOD_MULTICAST)
    return fx_unsupported(b, "cp.async.bulk.tensor .multicast::cluster is not supported (one destination CTA is)");
  uint8_t dsp = pi->space == PTX_SPACE_SHARED_CLUSTER ? PTX_SPACE_SHARED : pi->space;
  uint8_t ssp = pi->geom == PTX_SPACE_SHARED_CLUSTER ? PTX_SPACE_SHARED : pi->geom;
  bool load = dsp == PTX_SPACE_SHARED && ssp == PTX_SPACE_GLOBAL, store = dsp == PTX_SPACE_GLOBAL && ssp == PTX_SPACE_SHARED;
  if (!load && !store)
    return fx_unsupported(b, "cp.async.bulk.tensor copies global -> shared or shared -> global (name both spaces)");
  fx_tensor_copy *x = fx_alloc(b->p, sizeof *x);
  if (!x) return simtvp_diag_set(b->diag, SIMTVP_ERR_NOMEM, "out of host memory");
  x->rank = pi->vec;
  x->store = store;
  if (x->rank < 1 || x->rank > FUNC_TMAP_MAX_RANK) return fx_unsupported(b, "cp.async.bulk.tensor needs .1d to .5d");
  /* operands: load [dst], [tmap], {coords}, [mbar]; store [tmap], {coords}, [src] */
  uint32_t t = load ? 1 : 0;
  if (pi->nops < t + 3 || pi->ops[t + 1].kind != PTX_OPND_VEC)
    return fx_unsupported(b, "cp.async.bulk.tensor needs [tensorMap, {coordinates}]");
  const ptx_operand *coords = &pi->ops[t + 1];
  if (coords->count != x->rank) return fx_unsupported(b, "the coordinate vector must have one register per dimension");
  const ptx_operand *el = fx_vec_elems(b, coords);
  simtvp_status st = SIMTVP_OK;
  for (uint32_t d = 0; d < x->rank && st == SIMTVP_OK; d++) st = fx_src_op(b, &el[d], PTX_TYPE_S32, &x->coord[d]);
  /* the tensor map: a generic (or .param/.const/.global) address */
  if (st == SIMTVP_OK) st = shadow_operand(b, &pi->ops[t], PTX_SPACE_GENERIC, &x->tmap);
  if (st == SIMTVP_OK) st = shadow_operand(b, &pi->ops[load ? 0 : 2], PTX_SPACE_SHARED, &x->smem);
  if (st == SIMTVP_OK && load) st = shadow_operand(b, &pi->ops[3], PTX_SPACE_SHARED, &x->mbar);
  if (st != SIMTVP_OK) return st;
  in->ext = x;
  in->fn = tensor_copy_h;
  return SIMTVP_OK;
}

static simtvp_status build_cp_async_dispatch(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  switch (pi->sub_op) {
  case PTX_CP_ASYNC_BULK: return build_bulk(b);
  case PTX_CP_ASYNC_BULK_COMMIT_GROUP:
    in->cls = FX_C_ALU;
    in->fn = cp_async_nop_h;
    return SIMTVP_OK;
  case PTX_CP_ASYNC_BULK_WAIT_GROUP:
    in->cls = FX_C_FENCE; /* timing: the warp waits for its memory instructions */
    in->fn = cp_async_nop_h;
    return SIMTVP_OK;
  case PTX_CP_ASYNC_BULK_PREFETCH: /* a hint: nothing to compute */
    in->cls = FX_C_NOP;
    in->fn = cp_async_nop_h;
    return SIMTVP_OK;
  case PTX_CP_ASYNC_BULK_TENSOR: return fx_build_tensor_copy(b);
  default: return build_cp_async(b);
  }
}

void fx_register_async(fx_builder *t) {
  t[PTX_OP_CP_ASYNC] = build_cp_async_dispatch;
  t[PTX_OP_MBARRIER] = build_mbarrier;
}
