/* exec_mem — memory instructions: ld, ldu, st, prefetch, cvta, isspacep (PTX ISA 9.7.9), and the
 * address resolution every memory-touching handler shares (state spaces of PTX chapter 5,
 * generic addressing through the FUNC_WINDOW_* windows).
 *
 * .volatile/.relaxed/.acquire/.release, scopes and cache operators need no action here: the engine
 * performs every access at once, in program order, so each is already sequentially consistent. */
#include <inttypes.h>

#include "func_internal.h"
#ifdef FX_AVX2
#include <immintrin.h>
#endif

#define H(name) static void name(fx_warp *w, const fx_insn *in, uint32_t m)

/* A handler with an FX_AVX2 variant (name##_avx2): the one for this host (func_internal.h). */
#ifdef FX_AVX2
#define HOST_PICK(name) (fx_host_avx2() ? name##_avx2 : name)
#else
#define HOST_PICK(name) (name)
#endif
/* A handler and its FX_AVX2 variant from one body, name##_body(w, in, m, wide). */
#ifdef FX_AVX2
#define HOST_VARIANTS(name)                                                                    \
  static void name(fx_warp *w, const fx_insn *in, uint32_t m) { name##_body(w, in, m, false); } \
  FX_AVX2 static void name##_avx2(fx_warp *w, const fx_insn *in, uint32_t m) { name##_body(w, in, m, true); }
#else
#define HOST_VARIANTS(name)                                                                    \
  static void name(fx_warp *w, const fx_insn *in, uint32_t m) { name##_body(w, in, m, false); }
#endif

static const char *space_name(uint32_t s) {
  switch (s) {
  case PTX_SPACE_GLOBAL: return "global";
  case PTX_SPACE_SHARED: return "shared";
  case PTX_SPACE_LOCAL: return "local";
  case PTX_SPACE_CONST: return "const";
  case PTX_SPACE_PARAM: return "param";
  case FX_SPACE_TPARAM: return "param";
  case PTX_SPACE_GENERIC: return "generic";
  default: return "?";
  }
}

void fx_addr_gen(const fx_warp *w, const fx_insn *in, uint32_t m, uint64_t *addr) {
  (void)m;
  const uint64_t off = in->imm;
  switch (in->am) {
  case FX_AM_R64: {
    const uint64_t *r = FX_R64(w, in->o[1]);
    for (unsigned i = 0; i < 32; i++) addr[i] = r[i] + off;
    break;
  }
  case FX_AM_R32: {
    const uint32_t *r = FX_R32(w, in->o[1]);
    for (unsigned i = 0; i < 32; i++) addr[i] = (uint64_t)r[i] + off;
    break;
  }
  case FX_AM_FP:
    for (unsigned i = 0; i < 32; i++) addr[i] = w->fp + off;
    break;
  default:
    for (unsigned i = 0; i < 32; i++) addr[i] = off;
    break;
  }
  /* Shared, local and parameter addresses are 32 bits wide on the hardware: [%r4+68] with
   * %r4 = -64 is address 4, not 0x100000004 (the sum wraps). A tagged parameter address keeps
   * its tag (the thread's own .param frame). Generic, global and const addresses are 64-bit. */
  switch (in->space) {
  case PTX_SPACE_SHARED:
  case PTX_SPACE_LOCAL:
  case FX_SPACE_KPARAM:
    for (unsigned i = 0; i < 32; i++) addr[i] = (uint32_t)addr[i];
    break;
  case FX_SPACE_TPARAM:
    for (unsigned i = 0; i < 32; i++) addr[i] = (addr[i] & FX_PARAM_LOCAL_TAG) | (uint32_t)addr[i];
    break;
  default:
    break;
  }
}

bool fx_local_check(fx_warp *w, const fx_insn *in, uint32_t lane, uint64_t addr, uint32_t bytes) {
  if (addr + bytes > w->local_stride || addr + bytes < addr) {
    fx_fault(w, in, lane, SIMTVP_ERR_FAULT, true, addr,
             "local memory access of %u bytes at local address 0x%" PRIx64
             " is outside the thread's %u bytes of local memory",
             bytes, addr, w->local_stride);
    return false;
  }
  return true;
}

static void bad_addr(fx_warp *w, const fx_insn *in, uint32_t lane, uint32_t space, uint64_t a,
                     uint32_t bytes, bool write, const char *why) {
  bool atomic = in->cls == FX_C_MEM && (in->flags & 0x80);
  fx_fault(w, in, lane, SIMTVP_ERR_FAULT, true, a, "%s of %u bytes at %s address 0x%" PRIx64 ": %s",
           atomic ? "atomic" : write ? "store" : "load", bytes, space_name(space), a, why);
}

/* Host pointer of one lane's access in a concrete space; NULL after raising a fault. */
static uint8_t *lane_ptr(fx_warp *w, const fx_insn *in, uint32_t lane, uint32_t space, uint64_t a,
                         uint32_t bytes, bool write) {
  func_launch *l = w->l;
  switch (space) {
  case PTX_SPACE_GLOBAL:
  case PTX_SPACE_CONST: {
    bool w_ok = write && space == PTX_SPACE_GLOBAL; /* a const store is refused below */
    uint8_t *h = w_ok ? devmem_tlb_translate_w(w->tlb, a) : devmem_tlb_translate(w->tlb, a);
    if (!h && fx_replay_wait(w, in, a, w_ok)) return NULL;
    if (!h) {
      char why[400];
      fx_describe_unmapped(w, a, write, why, sizeof why);
      bad_addr(w, in, lane, space, a, bytes, write, why);
    } else if (write && space == PTX_SPACE_CONST) {
      bad_addr(w, in, lane, space, a, bytes, write, "constant memory is read-only");
      return NULL;
    }
    return h;
  }
  case PTX_SPACE_SHARED: {
    if (a + bytes <= w->cta->smem_bytes && a + bytes >= a) return w->cta->smem + a;
    /* a shared::cluster address of another CTA of the cluster (mapa) */
    uint64_t off;
    func_cta *c = a >> FX_CLUSTER_RANK_SHIFT ? fx_cluster_cta(w, a, &off) : NULL;
    if (c && off + bytes <= c->smem_bytes) return c->smem + off;
    char why[160];
    if (a >> FX_CLUSTER_RANK_SHIFT) {
      uint64_t rank = (a >> FX_CLUSTER_RANK_SHIFT) - 1;
      if (rank >= w->cta->cluster->n)
        snprintf(why, sizeof why, "cluster rank %" PRIu64 " is outside the cluster of %u CTAs", rank, w->cta->cluster->n);
      else if (!c)
        snprintf(why, sizeof why, "the CTA of cluster rank %" PRIu64 " is not running", rank);
      else
        snprintf(why, sizeof why, "outside the %u bytes of shared memory of cluster rank %" PRIu64, c->smem_bytes, rank);
    } else {
      snprintf(why, sizeof why, "outside the CTA's %u bytes of shared memory", w->cta->smem_bytes);
    }
    bad_addr(w, in, lane, space, a, bytes, write, why);
    return NULL;
  }
  case PTX_SPACE_LOCAL:
    if (a + bytes > w->local_stride || a + bytes < a) {
      char why[128];
      snprintf(why, sizeof why, "outside the thread's %u bytes of local memory", w->local_stride);
      bad_addr(w, in, lane, space, a, bytes, write, why);
      return NULL;
    }
    return fx_lane_local(w, lane) + a;
  case PTX_SPACE_PARAM:
    if (write) {
      bad_addr(w, in, lane, space, a, bytes, write, "the kernel parameter buffer is read-only");
      return NULL;
    }
    if (a + bytes > l->param_bytes || a + bytes < a) {
      char why[128];
      snprintf(why, sizeof why, "outside the kernel's %u bytes of parameters", l->param_bytes);
      bad_addr(w, in, lane, space, a, bytes, write, why);
      return NULL;
    }
    return l->params + a;
  default:
    bad_addr(w, in, lane, space, a, bytes, write, "state space not addressable");
    return NULL;
  }
}

/* Whole-warp facts about the addresses of the lanes in m, computed without per-lane branches so
 * the loop vectorises: lanes outside m stand in with the first active lane's address. */
typedef struct lanes_info {
  uint64_t first;    /* address of the first active lane */
  uint64_t misalign; /* OR of (address & (align - 1)) */
  uint64_t diff;     /* OR of (address ^ first) */
  uint64_t hi;       /* largest address */
} lanes_info;

static inline void lanes_scan(const uint64_t *addr, uint32_t m, uint32_t align, uint64_t *eff, lanes_info *li) {
  uint64_t a0 = addr[__builtin_ctz(m)], bad = 0, diff = 0, hi = 0, am = align - 1;
  for (unsigned i = 0; i < 32; i++) {
    uint64_t a = ((m >> i) & 1u) ? addr[i] : a0;
    eff[i] = a;
    bad |= a & am;
    diff |= a ^ a0;
    hi = a > hi ? a : hi;
  }
  li->first = a0;
  li->misalign = bad;
  li->diff = diff;
  li->hi = hi;
}

static bool misaligned(fx_warp *w, const fx_insn *in, uint32_t m, const uint64_t *addr, uint32_t space,
                       uint32_t align, bool write) {
  FX_FOR_LANES(i, m) if (addr[i] & (align - 1)) {
    fx_fault(w, in, i, SIMTVP_ERR_MISALIGNED, true, addr[i], "misaligned %s %s: address 0x%" PRIx64 " is not a multiple of %u",
             space_name(space), write ? "store" : "load", addr[i], align);
    return false;
  }
  return true;
}

/* Every lane gets a valid host pointer (lanes outside m point where the first active lane does),
 * so callers may read all 32 lanes and blend. */
bool fx_resolve(fx_warp *w, const fx_insn *in, uint32_t m, const uint64_t *addr, uint32_t space,
                uint32_t bytes, uint32_t align, bool write, uint8_t **host) {
  func_step *rec = w->rec;
  if (rec) {
    rec->mem_mask = m;
    rec->access_bytes = (uint16_t)bytes;
  }
  if (!m) {
    if (rec) rec->space = (uint8_t)(space == FX_SPACE_TPARAM ? PTX_SPACE_PARAM : space);
    return true;
  }
  if (space == PTX_SPACE_GLOBAL || space == PTX_SPACE_CONST || space == PTX_SPACE_SHARED) {
    uint64_t eff[32];
    lanes_info li;
    lanes_scan(addr, m, align, eff, &li);
    if (li.misalign) return misaligned(w, in, m, addr, space, align, write);
    if (rec) {
      rec->space = (uint8_t)space;
      FX_FOR_LANES(i, m) rec->addr[i] = addr[i];
    }
    if (space == PTX_SPACE_SHARED) {
      if (li.hi + bytes <= w->cta->smem_bytes && li.hi + bytes > li.hi) {
        uint8_t *s = w->cta->smem;
        for (unsigned i = 0; i < 32; i++) host[i] = s + eff[i];
        return true;
      }
    } else if ((li.diff >> DEVMEM_PAGE_BITS) == 0) { /* one page: translate once */
      uint8_t *h = lane_ptr(w, in, (uint32_t)__builtin_ctz(m), space, li.first, bytes, write);
      if (!h) return false;
      uint8_t *base = h - (li.first & DEVMEM_PAGE_MASK);
      for (unsigned i = 0; i < 32; i++) host[i] = base + (eff[i] & DEVMEM_PAGE_MASK);
      return true;
    }
    uint32_t first = (uint32_t)__builtin_ctz(m);
    FX_FOR_LANES(i, m) {
      host[i] = lane_ptr(w, in, i, space, addr[i], bytes, write);
      if (!host[i] && w->state != FUNC_WARP_FAULT_WAIT) return false;
    }
    if (w->state == FUNC_WARP_FAULT_WAIT) return false; /* every lane's page reported: one wait */
    for (unsigned i = 0; i < 32; i++)
      if (!((m >> i) & 1u)) host[i] = host[first];
    return true;
  }
  uint32_t first = (uint32_t)__builtin_ctz(m);
  if (space == PTX_SPACE_GENERIC) {
    /* fast path: every lane in the (global) page of the first lane */
    uint64_t off0;
    if (fx_generic_space(addr[first], &off0) == PTX_SPACE_GLOBAL) {
      uint64_t eff[32];
      lanes_info li;
      lanes_scan(addr, m, align, eff, &li);
      if (!li.misalign && (li.diff >> DEVMEM_PAGE_BITS) == 0) {
        uint8_t *h = lane_ptr(w, in, first, PTX_SPACE_GLOBAL, li.first, bytes, write);
        if (!h) return false;
        if (rec) {
          rec->space = PTX_SPACE_GLOBAL;
          FX_FOR_LANES(i, m) rec->addr[i] = addr[i];
        }
        uint8_t *base = h - (li.first & DEVMEM_PAGE_MASK);
        for (unsigned i = 0; i < 32; i++) host[i] = base + (eff[i] & DEVMEM_PAGE_MASK);
        return true;
      }
    }
  }
  if (!misaligned(w, in, m, addr, space, align, write)) return false;
  if (space == PTX_SPACE_LOCAL || space == PTX_SPACE_PARAM) {
    if (rec) {
      rec->space = (uint8_t)space;
      FX_FOR_LANES(i, m) rec->addr[i] = addr[i];
    }
    FX_FOR_LANES(i, m) {
      host[i] = lane_ptr(w, in, i, space, addr[i], bytes, write);
      if (!host[i]) return false;
    }
    for (unsigned i = 0; i < 32; i++)
      if (!((m >> i) & 1u)) host[i] = host[first];
    return true;
  }
  /* generic and tagged-param: resolve lane by lane */
  uint32_t first_space = PTX_SPACE_NONE;
  bool mixed = false;
  FX_FOR_LANES(i, m) {
    uint64_t off;
    uint32_t s;
    if (space == FX_SPACE_TPARAM) {
      if (addr[i] & FX_PARAM_LOCAL_TAG) {
        s = PTX_SPACE_LOCAL;
        off = addr[i] & ~FX_PARAM_LOCAL_TAG;
      } else {
        s = PTX_SPACE_PARAM;
        off = addr[i];
      }
    } else {
      s = fx_generic_space(addr[i], &off);
    }
    if (first_space == PTX_SPACE_NONE) first_space = s;
    else if (s != first_space) mixed = true;
    if (rec) {
      rec->addr[i] = off;
      rec->lane_space[i] = (uint8_t)s;
    }
    host[i] = lane_ptr(w, in, i, s, off, bytes, write);
    if (!host[i] && w->state != FUNC_WARP_FAULT_WAIT) return false;
  }
  if (w->state == FUNC_WARP_FAULT_WAIT) return false;
  if (rec) rec->space = (uint8_t)(mixed ? PTX_SPACE_GENERIC : first_space);
  for (unsigned i = 0; i < 32; i++)
    if (!((m >> i) & 1u)) host[i] = host[first];
  return true;
}

/* ---- ld / ldu ------------------------------------------------------------------------------------ */

enum { LD_SIGN = 1, LD_WIDE = 2 }; /* flags: sign-extend; destination rows are 64-bit */

typedef struct fx_vec_ops {
  uint32_t off[8];
  uint8_t wide[8];
  uint8_t skip[8]; /* sink `_` */
} fx_vec_ops;

static void count_mem(fx_warp *w, const fx_insn *in, bool load) {
  uint32_t s = in->space == FX_SPACE_TPARAM ? PTX_SPACE_PARAM : in->space;
  if (load) w->counts->loads[s]++;
  else w->counts->stores[s]++;
}

static void ld_scalar32(fx_warp *w, const fx_insn *in, uint32_t m) {
  uint64_t addr[32];
  uint8_t *hp[32];
  if (w->rec) w->rec->is_load = true;
  fx_addr_gen(w, in, m, addr);
  if (!fx_resolve(w, in, m, addr, in->space, 4, 4, false, hp) || !m) return;
  count_mem(w, in, true);
  uint32_t r[32];
  for (unsigned i = 0; i < 32; i++) memcpy(&r[i], hp[i], 4);
  fx_put32(FX_R32(w, in->o[0]), r, m);
}

static void ld_scalar64(fx_warp *w, const fx_insn *in, uint32_t m) {
  uint64_t addr[32];
  uint8_t *hp[32];
  if (w->rec) w->rec->is_load = true;
  fx_addr_gen(w, in, m, addr);
  if (!fx_resolve(w, in, m, addr, in->space, 8, 8, false, hp) || !m) return;
  count_mem(w, in, true);
  uint64_t r[32];
  for (unsigned i = 0; i < 32; i++) memcpy(&r[i], hp[i], 8);
  fx_put64(FX_R64(w, in->o[0]), r, m);
}

static void st_scalar32(fx_warp *w, const fx_insn *in, uint32_t m);

/* ---- fast paths for the hottest forms: 4-byte ld/st, shared through a 32-bit register address
 * (tiled kernels' inner loops) and global through a 64-bit one. Whole-warp checks in vectorisable
 * arithmetic (lanes outside m stand in with the first active lane); a step record gets what the
 * general path would record; whenever a check fails the general path runs and reports precisely. */

static const uint32_t lane_bit[32] = {
    1u << 0,  1u << 1,  1u << 2,  1u << 3,  1u << 4,  1u << 5,  1u << 6,  1u << 7,
    1u << 8,  1u << 9,  1u << 10, 1u << 11, 1u << 12, 1u << 13, 1u << 14, 1u << 15,
    1u << 16, 1u << 17, 1u << 18, 1u << 19, 1u << 20, 1u << 21, 1u << 22, 1u << 23,
    1u << 24, 1u << 25, 1u << 26, 1u << 27, 1u << 28, 1u << 29, 1u << 30, 1u << 31};

/* A fast path's step record: what fx_resolve records on the general path (the lanes outside m
 * carry the first active lane's address; readers look at mem_mask's lanes only). */
static inline void rec_fast32(func_step *rec, uint32_t m, uint8_t space, uint16_t bytes, bool load,
                              const uint32_t *a) {
  rec->is_load = load;
  rec->is_store = !load;
  rec->mem_mask = m;
  rec->access_bytes = bytes;
  rec->space = space;
  for (unsigned i = 0; i < 32; i++) rec->addr[i] = a[i];
}
static inline void rec_fast64(func_step *rec, uint32_t m, uint8_t space, uint16_t bytes, bool load,
                              const uint64_t *a) {
  rec->is_load = load;
  rec->is_store = !load;
  rec->mem_mask = m;
  rec->access_bytes = bytes;
  rec->space = space;
  for (unsigned i = 0; i < 32; i++) rec->addr[i] = a[i];
}

/* Shared offsets of the lanes (32-bit sums that wrap, as fx_addr_gen's): false when any active
 * lane is misaligned or out of bounds. */
static inline bool shared_r32_ok(const fx_warp *w, const fx_insn *in, uint32_t m, uint32_t *a) {
  const uint32_t *R = FX_R32(w, in->o[1]);
  uint32_t off = (uint32_t)in->imm, a0 = R[__builtin_ctz(m)] + off, bad = 0, over = 0;
  uint32_t size = w->cta->smem_bytes;
  if (size < 4 || size > 0x80000000u) return false;
  uint32_t lim = size - 4;
  /* Branch-free, so the loops vectorise (SSE2): with every offset below 2^31 (bit 31 of `bad`
   * clear) and lim < 2^31, lim - x is negative (bit 31 set) exactly when x > lim. */
  if (m == FX_FULL) {
    for (unsigned i = 0; i < 32; i++) {
      uint32_t x = R[i] + off;
      a[i] = x;
      bad |= x;
      over |= lim - x;
    }
  } else {
    for (unsigned i = 0; i < 32; i++) {
      uint32_t sel = 0u - (uint32_t)((m & lane_bit[i]) != 0);
      uint32_t x = ((R[i] + off) & sel) | (a0 & ~sel);
      a[i] = x;
      bad |= x;
      over |= lim - x;
    }
  }
  return !(bad & 0x80000003u) && !(over & 0x80000000u);
}

/* Full warps of tiled kernels address shared memory by half-warps (lanes 0–15 and 16–31 are a
 * row of a 16×16 tile each): each half reads one word (uniform: a broadcast) or 16 consecutive
 * words (contiguous: a block copy). Classifies both halves of a full warp's offsets R[i] + off
 * (32-bit sums that wrap, as fx_addr_gen's) and checks them: true when both halves have a pattern,
 * every lane is 4-byte aligned and inside the `size` bytes of shared memory. Then a0 and a1 are
 * the halves' first offsets and kinds has bit 0 (bit 1) set when the lower (upper) half is
 * contiguous. Only a sufficient test: what it refuses goes through shared_r32_ok, which decides
 * precisely. Both halves at once, against their first lanes r0 and r1: the differences d (mod
 * 2^32, as the sums wrap) are all 0 in a uniform half and 4i in a contiguous one. The usual warp
 * has both halves of one kind, which one test each decides; a mixed warp takes a test per half. */
static inline bool shared_halves_ok(const uint32_t *R, uint32_t off, uint32_t size, uint32_t *a0, uint32_t *a1,
                                    uint32_t *kinds) {
  uint32_t r0 = R[0], r1 = R[16];
  fx_v4u32 d[8];
  for (unsigned j = 0; j < 4; j++) {
    d[j] = fx_v4_load(R + 4 * j) - r0;
    d[4 + j] = fx_v4_load(R + 16 + 4 * j) - r1;
  }
  fx_v4u32 u0 = (d[0] | d[1]) | (d[2] | d[3]), u1 = (d[4] | d[5]) | (d[6] | d[7]);
  uint32_t k;
  if (fx_v4_zero(u0 | u1)) {
    k = 0; /* both uniform */
  } else {
    const fx_v4u32 c = {0, 4, 8, 12};
    fx_v4u32 c0 = ((d[0] ^ c) | (d[1] ^ (c + 16))) | ((d[2] ^ (c + 32)) | (d[3] ^ (c + 48)));
    fx_v4u32 c1 = ((d[4] ^ c) | (d[5] ^ (c + 16))) | ((d[6] ^ (c + 32)) | (d[7] ^ (c + 48)));
    if (fx_v4_zero(c0 | c1)) {
      k = 3; /* both contiguous */
    } else {
      bool uu0 = fx_v4_zero(u0), uu1 = fx_v4_zero(u1);
      if (!(uu0 || fx_v4_zero(c0)) || !(uu1 || fx_v4_zero(c1))) return false;
      k = (uint32_t)!uu0 | (uint32_t)!uu1 << 1;
    }
  }
  uint32_t b0 = r0 + off, b1 = r1 + off;
  /* a contiguous half ends 64 bytes after its first lane, a uniform one 4 (64-bit sums: no wrap) */
  uint64_t e0 = (uint64_t)b0 + ((k & 1u) ? 64 : 4), e1 = (uint64_t)b1 + ((k & 2u) ? 64 : 4);
  if (((b0 | b1) & 3u) || (e0 > e1 ? e0 : e1) > size) return false;
  *a0 = b0;
  *a1 = b1;
  *kinds = k;
  return true;
}

#ifdef FX_AVX2
/* shared_halves_ok eight lanes a register, for the FX_AVX2 variants: the same tests in AVX2
 * (vptest decides each), the same answers. */
FX_AVX2 static inline bool shared_halves_ok8(const uint32_t *R, uint32_t off, uint32_t size, uint32_t *a0,
                                             uint32_t *a1, uint32_t *kinds) {
  uint32_t r0 = R[0], r1 = R[16];
  __m256i v0 = _mm256_set1_epi32((int)r0), v1 = _mm256_set1_epi32((int)r1);
  __m256i d0 = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)R), v0);
  __m256i d1 = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(R + 8)), v0);
  __m256i d2 = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(R + 16)), v1);
  __m256i d3 = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(R + 24)), v1);
  __m256i u0 = _mm256_or_si256(d0, d1), u1 = _mm256_or_si256(d2, d3), u = _mm256_or_si256(u0, u1);
  uint32_t k;
  if (_mm256_testz_si256(u, u)) {
    k = 0; /* both uniform */
  } else {
    const __m256i c = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28), c32 = _mm256_add_epi32(c, _mm256_set1_epi32(32));
    __m256i c0 = _mm256_or_si256(_mm256_xor_si256(d0, c), _mm256_xor_si256(d1, c32));
    __m256i c1 = _mm256_or_si256(_mm256_xor_si256(d2, c), _mm256_xor_si256(d3, c32));
    __m256i cc = _mm256_or_si256(c0, c1);
    if (_mm256_testz_si256(cc, cc)) {
      k = 3; /* both contiguous */
    } else {
      bool uu0 = _mm256_testz_si256(u0, u0), uu1 = _mm256_testz_si256(u1, u1);
      if (!(uu0 || _mm256_testz_si256(c0, c0)) || !(uu1 || _mm256_testz_si256(c1, c1))) return false;
      k = (uint32_t)!uu0 | (uint32_t)!uu1 << 1;
    }
  }
  uint32_t b0 = r0 + off, b1 = r1 + off;
  /* a contiguous half ends 64 bytes after its first lane, a uniform one 4 (64-bit sums: no wrap) */
  uint64_t e0 = (uint64_t)b0 + ((k & 1u) ? 64 : 4), e1 = (uint64_t)b1 + ((k & 2u) ? 64 : 4);
  if (((b0 | b1) & 3u) || (e0 > e1 ? e0 : e1) > size) return false;
  *a0 = b0;
  *a1 = b1;
  *kinds = k;
  return true;
}
#endif

/* The 16 addresses of a half-warp from its first (h) and pattern: one word, or consecutive words. */
static inline void rec_half(uint64_t *addr, uint64_t h, bool contig) {
  uint64_t e = contig ? 4 : 0;
  fx_v2u64 v = {h, h + e}, step = {2 * e, 2 * e};
  for (unsigned j = 0; j < 8; j++, v += step) memcpy(addr + 2 * j, &v, sizeof v);
}

/* Step record of a full-warp 4-byte access (shared or global) whose halves shared_halves_ok or
 * global_halves_ok classified: what the lane-by-lane paths record for the same addresses (a lean
 * record of a shared access, func_warp_step_lean's: the halves' first lanes only). */
static inline void rec_full(const fx_warp *w, bool load, uint8_t space, uint64_t h0, uint64_t h1, uint32_t kinds) {
  func_step *rec = w->rec;
  rec->is_load = load;
  rec->is_store = !load;
  rec->mem_mask = FX_FULL;
  rec->access_bytes = 4;
  rec->space = space;
  if (space == PTX_SPACE_SHARED && w->rec_lean) {
    rec->addr[0] = h0;
    rec->addr[16] = h1;
  } else {
    rec_half(rec->addr, h0, kinds & 1u);
    rec_half(rec->addr + 16, h1, kinds & 2u);
  }
  rec->addr_halves = (uint8_t)((kinds & 1u ? FUNC_HALF_CONTIG : FUNC_HALF_UNIFORM) |
                               (kinds & 2u ? FUNC_HALF_CONTIG : FUNC_HALF_UNIFORM) << 2);
}

void func_step_fill_shared_halves(func_step *rec) {
  uint8_t h = rec->addr_halves;
  if (!h || rec->space != PTX_SPACE_SHARED) return;
  rec_half(rec->addr, rec->addr[0], (h & 3u) == FUNC_HALF_CONTIG);
  rec_half(rec->addr + 16, rec->addr[16], (h >> 2) == FUNC_HALF_CONTIG);
}

/* ld_shared32_r32 when the full-warp pattern test fails: every lane checked (or the general path). */
static __attribute__((noinline)) void ld_shared32_lanes(fx_warp *w, const fx_insn *in, uint32_t m) {
  uint32_t a[32], r[32];
  if (!m || !shared_r32_ok(w, in, m, a)) {
    ld_scalar32(w, in, m);
    return;
  }
  if (w->rec) rec_fast32(w->rec, m, PTX_SPACE_SHARED, 4, true, a);
  const uint8_t *s = w->cta->smem;
  for (unsigned i = 0; i < 32; i++) memcpy(&r[i], s + a[i], 4);
  fx_put32(FX_R32(w, in->o[0]), r, m);
  w->counts->loads[PTX_SPACE_SHARED]++;
}

/* The classifier of a variant: shared_halves_ok, or its eight-lane form in the FX_AVX2 ones. */
static inline __attribute__((always_inline)) bool shared_halves_of(bool wide, const uint32_t *R, uint32_t off,
                                                                   uint32_t size, uint32_t *a0, uint32_t *a1,
                                                                   uint32_t *kinds) {
#ifdef FX_AVX2
  if (wide) return shared_halves_ok8(R, off, size, a0, a1, kinds);
#endif
  (void)wide;
  return shared_halves_ok(R, off, size, a0, a1, kinds);
}

/* ld.shared.b32 [%r + imm]: a full warp whose halves have a pattern at once, anything else lane by
 * lane. `wide`: the FX_AVX2 variant's classifier. */
static inline __attribute__((always_inline)) void ld_shared32_r32_body(fx_warp *w, const fx_insn *in, uint32_t m,
                                                                   bool wide) {
  if (m == FX_FULL) {
    const uint32_t *R = FX_R32(w, in->o[1]);
    uint32_t off = (uint32_t)in->imm, h0, h1, kinds;
    if (w->cta->smem_bytes <= 0x80000000u && shared_halves_of(wide, R, off, w->cta->smem_bytes, &h0, &h1, &kinds)) {
      if (w->rec) rec_full(w, true, PTX_SPACE_SHARED, h0, h1, kinds);
      const uint8_t *s = w->cta->smem;
      uint32_t *d = FX_R32(w, in->o[0]); /* may be R itself: not read below */
      if (kinds & 1u) {
        memcpy(d, s + h0, 64);
      } else {
        uint32_t v;
        memcpy(&v, s + h0, 4);
        for (unsigned i = 0; i < 16; i++) d[i] = v;
      }
      if (kinds & 2u) {
        memcpy(d + 16, s + h1, 64);
      } else {
        uint32_t v;
        memcpy(&v, s + h1, 4);
        for (unsigned i = 16; i < 32; i++) d[i] = v;
      }
      w->counts->loads[PTX_SPACE_SHARED]++;
      return;
    }
  }
  ld_shared32_lanes(w, in, m);
}
HOST_VARIANTS(ld_shared32_r32)

/* st_shared32_r32 when the full-warp pattern test fails: every lane checked (or the general path). */
static __attribute__((noinline)) void st_shared32_lanes(fx_warp *w, const fx_insn *in, uint32_t m) {
  uint32_t a[32];
  if (!m || !shared_r32_ok(w, in, m, a)) {
    st_scalar32(w, in, m);
    return;
  }
  if (w->rec) rec_fast32(w->rec, m, PTX_SPACE_SHARED, 4, false, a);
  uint8_t *s = w->cta->smem;
  const uint32_t *v = FX_R32(w, in->o[2]);
  if (m == FX_FULL) {
    for (unsigned i = 0; i < 32; i++) memcpy(s + a[i], &v[i], 4);
  } else {
    FX_FOR_LANES(i, m) memcpy(s + a[i], &v[i], 4);
  }
  w->counts->stores[PTX_SPACE_SHARED]++;
}

static inline __attribute__((always_inline)) void st_shared32_r32_body(fx_warp *w, const fx_insn *in, uint32_t m,
                                                                   bool wide) {
  if (m == FX_FULL) {
    const uint32_t *R = FX_R32(w, in->o[1]);
    uint32_t off = (uint32_t)in->imm, h0, h1, kinds;
    if (w->cta->smem_bytes <= 0x80000000u && shared_halves_of(wide, R, off, w->cta->smem_bytes, &h0, &h1, &kinds)) {
      if (w->rec) rec_full(w, false, PTX_SPACE_SHARED, h0, h1, kinds);
      uint8_t *s = w->cta->smem;
      const uint32_t *v = FX_R32(w, in->o[2]);
      /* lanes store in lane order: a uniform half leaves its last lane's value, and the upper
       * half lands after the lower one */
      if (kinds & 1u) memcpy(s + h0, v, 64);
      else memcpy(s + h0, &v[15], 4);
      if (kinds & 2u) memcpy(s + h1, v + 16, 64);
      else memcpy(s + h1, &v[31], 4);
      w->counts->stores[PTX_SPACE_SHARED]++;
      return;
    }
  }
  st_shared32_lanes(w, in, m);
}
HOST_VARIANTS(st_shared32_r32)

/* Host address of the page all active lanes share, NULL when they do not (or it is unmapped);
 * *spread is set when the lanes are aligned but on several pages (global_lane_ptrs' case). */
static inline uint8_t *global_r64_page(fx_warp *w, const fx_insn *in, uint32_t m, uint32_t align, uint64_t *a,
                                       bool write, bool *contig, bool *spread) {
  const uint64_t *R = FX_R64(w, in->o[1]);
  uint64_t off = in->imm, a0 = R[__builtin_ctz(m)] + off, bad = 0, diff = 0, con = 1;
  if (m == FX_FULL) {
    /* con: whether lane i reads element i from lane 0's address (a block copy) */
    con = 0;
    for (unsigned i = 0; i < 32; i++) {
      uint64_t x = R[i] + off;
      a[i] = x;
      bad |= x;
      diff |= x ^ a0;
      con |= x ^ (a0 + (uint64_t)align * i);
    }
  } else {
    for (unsigned i = 0; i < 32; i++) {
      uint64_t sel = 0ull - (uint64_t)((m & lane_bit[i]) != 0);
      uint64_t x = ((R[i] + off) & sel) | (a0 & ~sel);
      a[i] = x;
      bad |= x;
      diff |= x ^ a0;
    }
  }
  *contig = con == 0;
  *spread = !(bad & (align - 1)) && (diff >> DEVMEM_PAGE_BITS);
  if ((bad & (align - 1)) || (diff >> DEVMEM_PAGE_BITS)) return NULL;
  uint8_t *h = write ? devmem_tlb_translate_w(w->tlb, a0) : devmem_tlb_translate(w->tlb, a0);
  return h ? h - (a0 & DEVMEM_PAGE_MASK) : NULL;
}

/* Host pointers of the lanes of m (aligned, on several pages: a tile's rows of a large matrix),
 * translating each page once as the lanes change page, before anything is read or written. false
 * when a page does not translate (the general path then reports or waits). */
static inline bool global_lane_ptrs(fx_warp *w, const uint64_t *a, uint32_t m, bool write, uint8_t **hp) {
  uint64_t page = UINT64_MAX;
  uint8_t *base = NULL;
  FX_FOR_LANES(i, m) {
    uint64_t pg = a[i] >> DEVMEM_PAGE_BITS;
    if (pg != page) {
      uint8_t *h = write ? devmem_tlb_translate_w(w->tlb, a[i]) : devmem_tlb_translate(w->tlb, a[i]);
      if (!h) return false;
      base = h - (a[i] & DEVMEM_PAGE_MASK);
      page = pg;
    }
    hp[i] = base + (a[i] & DEVMEM_PAGE_MASK);
  }
  return true;
}

/* ld_global32_r64 when global_halves_ok refuses: any pattern, lane by lane where needed. */
static __attribute__((noinline)) void ld_global32_lanes(fx_warp *w, const fx_insn *in, uint32_t m) {
  uint64_t a[32];
  uint32_t r[32];
  uint8_t *base, *hp[32];
  bool contig, spread;
  if (!m) {
    ld_scalar32(w, in, m);
    return;
  }
  if (!(base = global_r64_page(w, in, m, 4, a, false, &contig, &spread))) {
    if (!spread || !global_lane_ptrs(w, a, m, false, hp)) {
      ld_scalar32(w, in, m);
      return;
    }
    if (w->rec) rec_fast64(w->rec, m, PTX_SPACE_GLOBAL, 4, true, a);
    uint32_t *d = FX_R32(w, in->o[0]);
    FX_FOR_LANES(i, m) memcpy(&d[i], hp[i], 4);
    w->counts->loads[PTX_SPACE_GLOBAL]++;
    return;
  }
  if (w->rec) rec_fast64(w->rec, m, PTX_SPACE_GLOBAL, 4, true, a);
  if (contig) { /* a full warp reading 128 consecutive bytes of one page */
    memcpy(FX_R32(w, in->o[0]), base + (a[0] & DEVMEM_PAGE_MASK), FX_ROW32);
  } else {
    for (unsigned i = 0; i < 32; i++) memcpy(&r[i], base + (a[i] & DEVMEM_PAGE_MASK), 4);
    fx_put32(FX_R32(w, in->o[0]), r, m);
  }
  w->counts->loads[PTX_SPACE_GLOBAL]++;
}

static void ld_global64_r64(fx_warp *w, const fx_insn *in, uint32_t m) {
  uint64_t a[32], r[32];
  uint8_t *base, *hp[32];
  bool contig, spread;
  if (!m) {
    ld_scalar64(w, in, m);
    return;
  }
  if (!(base = global_r64_page(w, in, m, 8, a, false, &contig, &spread))) {
    if (!spread || !global_lane_ptrs(w, a, m, false, hp)) {
      ld_scalar64(w, in, m);
      return;
    }
    if (w->rec) rec_fast64(w->rec, m, PTX_SPACE_GLOBAL, 8, true, a);
    uint64_t *d = FX_R64(w, in->o[0]);
    FX_FOR_LANES(i, m) memcpy(&d[i], hp[i], 8);
    w->counts->loads[PTX_SPACE_GLOBAL]++;
    return;
  }
  if (w->rec) rec_fast64(w->rec, m, PTX_SPACE_GLOBAL, 8, true, a);
  if (contig) {
    memcpy(FX_R64(w, in->o[0]), base + (a[0] & DEVMEM_PAGE_MASK), FX_ROW64);
  } else {
    for (unsigned i = 0; i < 32; i++) memcpy(&r[i], base + (a[i] & DEVMEM_PAGE_MASK), 8);
    fx_put64(FX_R64(w, in->o[0]), r, m);
  }
  w->counts->loads[PTX_SPACE_GLOBAL]++;
}

/* st_global32_r64 when global_halves_ok refuses. */
static __attribute__((noinline)) void st_global32_lanes(fx_warp *w, const fx_insn *in, uint32_t m) {
  uint64_t a[32];
  uint8_t *base, *hp[32];
  bool contig, spread;
  if (!m) {
    st_scalar32(w, in, m);
    return;
  }
  if (!(base = global_r64_page(w, in, m, 4, a, true, &contig, &spread))) {
    if (!spread || !global_lane_ptrs(w, a, m, true, hp)) {
      st_scalar32(w, in, m);
      return;
    }
    if (w->rec) rec_fast64(w->rec, m, PTX_SPACE_GLOBAL, 4, false, a);
    const uint32_t *v = FX_R32(w, in->o[2]);
    FX_FOR_LANES(i, m) memcpy(hp[i], &v[i], 4); /* lane order, as the general path */
    w->counts->stores[PTX_SPACE_GLOBAL]++;
    return;
  }
  if (w->rec) rec_fast64(w->rec, m, PTX_SPACE_GLOBAL, 4, false, a);
  const uint32_t *v = FX_R32(w, in->o[2]);
  if (contig) {
    memcpy(base + (a[0] & DEVMEM_PAGE_MASK), v, FX_ROW32);
  } else if (m == FX_FULL) {
    for (unsigned i = 0; i < 32; i++) memcpy(base + (a[i] & DEVMEM_PAGE_MASK), &v[i], 4);
  } else {
    FX_FOR_LANES(i, m) memcpy(base + (a[i] & DEVMEM_PAGE_MASK), &v[i], 4);
  }
  w->counts->stores[PTX_SPACE_GLOBAL]++;
}

/* A full warp's global addresses R[i] + off by half-warps, as shared_halves_ok: each half one
 * address (uniform) or consecutive elements of `elem` bytes (contiguous, differences elem*i mod
 * 2^64), every lane aligned, each half inside one page. Then a0/a1 are the halves' first addresses
 * and kinds has bit 0 (bit 1) set when the lower (upper) half is contiguous. Tiled and streaming
 * kernels (a row of a tile per half, or a whole warp on consecutive words) pass; what it refuses
 * goes through the lane-by-lane path. */
static inline bool global_half_kind(const uint64_t *R, uint32_t elem, bool *contig) {
  /* contiguous first: global accesses are mostly consecutive elements */
  fx_v2u64 d[8], k = {0, elem}, c = {0, 0};
  uint64_t r = R[0];
  for (unsigned j = 0; j < 8; j++) {
    memcpy(&d[j], R + 2 * j, sizeof d[j]);
    d[j] -= r;
    c |= d[j] ^ (k + (uint64_t)2 * elem * j);
  }
  if (!(c[0] | c[1])) {
    *contig = true;
    return true;
  }
  fx_v2u64 u = {0, 0};
  for (unsigned j = 0; j < 8; j++) u |= d[j];
  *contig = false;
  return !(u[0] | u[1]);
}
/* Whether the whole warp is one run (lane i at R[0] + elem*i): a 1-D grid's streaming access, the
 * usual case, decided in one pass against the expected addresses instead of a pass per half. */
static inline bool global_warp_run(const uint64_t *R, uint32_t elem) {
  fx_v2u64 e = {R[0], R[0] + elem}, step = {2ull * elem, 2ull * elem}, c = {0, 0};
  for (unsigned j = 0; j < 16; j++, e += step) {
    fx_v2u64 d;
    memcpy(&d, R + 2 * j, sizeof d);
    c |= d ^ e;
  }
  return !(c[0] | c[1]);
}
#ifdef FX_AVX2
/* global_warp_run of 4-byte lanes four addresses a register, for the FX_AVX2 variants. */
FX_AVX2 static inline bool global_warp_run8(const uint64_t *R) {
  __m256i e = _mm256_add_epi64(_mm256_set1_epi64x((long long)R[0]), _mm256_setr_epi64x(0, 4, 8, 12));
  const __m256i step = _mm256_set1_epi64x(16);
  __m256i c = _mm256_setzero_si256();
  for (unsigned j = 0; j < 8; j++, e = _mm256_add_epi64(e, step))
    c = _mm256_or_si256(c, _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(R + 4 * j)), e));
  return _mm256_testz_si256(c, c);
}
#endif
/* `wide`: the FX_AVX2 variant's test (4-byte elements only). */
static inline __attribute__((always_inline)) bool global_warp_run_of(bool wide, const uint64_t *R, uint32_t elem) {
#ifdef FX_AVX2
  if (wide && elem == 4) return global_warp_run8(R);
#endif
  (void)wide;
  return global_warp_run(R, elem);
}
static inline __attribute__((always_inline)) bool global_halves_ok(bool wide, const uint64_t *R, uint64_t off,
                                                                   uint32_t elem, uint64_t *a0, uint64_t *a1,
                                                                   uint32_t *kinds) {
  bool con0, con1;
  if (R[16] == R[0] + 16ull * elem && global_warp_run_of(wide, R, elem)) con0 = con1 = true;
  else if (!global_half_kind(R, elem, &con0) || !global_half_kind(R + 16, elem, &con1)) return false;
  uint64_t b0 = R[0] + off, b1 = R[16] + off;
  if (((b0 | b1) & (elem - 1)) || (b0 & DEVMEM_PAGE_MASK) + (con0 ? 16u * elem : elem) > DEVMEM_PAGE_BYTES ||
      (b1 & DEVMEM_PAGE_MASK) + (con1 ? 16u * elem : elem) > DEVMEM_PAGE_BYTES)
    return false;
  *a0 = b0;
  *a1 = b1;
  *kinds = (uint32_t)con0 | (uint32_t)con1 << 1;
  return true;
}


/* Whether two global addresses lie on one page: the second then needs no translation of its own
 * (the first one's is what the translation cache would give it). */
static inline bool same_page(uint64_t a, uint64_t b) { return ((a ^ b) >> DEVMEM_PAGE_BITS) == 0; }

static inline __attribute__((always_inline)) void ld_global32_r64_body(fx_warp *w, const fx_insn *in, uint32_t m,
                                                                       bool wide) {
  uint64_t h0, h1;
  uint32_t kinds;
  if (m == FX_FULL && global_halves_ok(wide, FX_R64(w, in->o[1]), in->imm, 4, &h0, &h1, &kinds)) {
    /* the pages in lane order, as the lane path translates them; one that does not translate: the
     * general path reports (or waits) */
    const uint8_t *p0 = devmem_tlb_translate(w->tlb, h0), *p1 = NULL;
    if (p0)
      p1 = same_page(h0, h1) ? p0 - (h0 & DEVMEM_PAGE_MASK) + (h1 & DEVMEM_PAGE_MASK) : devmem_tlb_translate(w->tlb, h1);
    if (!p1) {
      ld_scalar32(w, in, m);
      return;
    }
    if (w->rec) rec_full(w, true, PTX_SPACE_GLOBAL, h0, h1, kinds);
    uint32_t *d = FX_R32(w, in->o[0]);
    if (kinds & 1u) {
      memcpy(d, p0, 64);
    } else {
      uint32_t v;
      memcpy(&v, p0, 4);
      for (unsigned i = 0; i < 16; i++) d[i] = v;
    }
    if (kinds & 2u) {
      memcpy(d + 16, p1, 64);
    } else {
      uint32_t v;
      memcpy(&v, p1, 4);
      for (unsigned i = 16; i < 32; i++) d[i] = v;
    }
    w->counts->loads[PTX_SPACE_GLOBAL]++;
    return;
  }
  ld_global32_lanes(w, in, m);
}
HOST_VARIANTS(ld_global32_r64)

static inline __attribute__((always_inline)) void st_global32_r64_body(fx_warp *w, const fx_insn *in, uint32_t m,
                                                                       bool wide) {
  uint64_t h0, h1;
  uint32_t kinds;
  if (m == FX_FULL && global_halves_ok(wide, FX_R64(w, in->o[1]), in->imm, 4, &h0, &h1, &kinds)) {
    uint8_t *p0 = devmem_tlb_translate_w(w->tlb, h0), *p1 = NULL;
    if (p0)
      p1 = same_page(h0, h1) ? p0 - (h0 & DEVMEM_PAGE_MASK) + (h1 & DEVMEM_PAGE_MASK) : devmem_tlb_translate_w(w->tlb, h1);
    if (!p1) {
      st_scalar32(w, in, m);
      return;
    }
    if (w->rec) rec_full(w, false, PTX_SPACE_GLOBAL, h0, h1, kinds);
    const uint32_t *v = FX_R32(w, in->o[2]);
    /* lane order: a uniform half leaves its last lane's value, the upper half lands last */
    if (kinds & 1u) memcpy(p0, v, 64);
    else memcpy(p0, &v[15], 4);
    if (kinds & 2u) memcpy(p1, v + 16, 64);
    else memcpy(p1, &v[31], 4);
    w->counts->stores[PTX_SPACE_GLOBAL]++;
    return;
  }
  st_global32_lanes(w, in, m);
}
HOST_VARIANTS(st_global32_r64)

/* Step record of a load every lane of m makes at one address a (readers look at mem_mask's
 * lanes: all 32 get it, in 16 two-lane stores). */
static inline void rec_uniform_load(func_step *rec, uint32_t m, uint8_t space, uint16_t bytes, uint64_t a) {
  rec->is_load = true;
  rec->space = space;
  rec->mem_mask = m;
  rec->access_bytes = bytes;
  fx_v2u64 v = {a, a};
#pragma GCC unroll 16
  for (unsigned j = 0; j < 16; j++) memcpy(rec->addr + 2 * j, &v, sizeof v);
}

static bool kparam_outside(fx_warp *w, const fx_insn *in, uint32_t m, uint64_t a, uint32_t n) {
  if (a + n <= w->l->param_bytes) return false;
  fx_fault(w, in, (uint32_t)__builtin_ctz(m), SIMTVP_ERR_FAULT, true, a,
           "param load of %u bytes at param offset 0x%" PRIx64 " is outside the kernel's %u bytes of parameters",
           n, a, w->l->param_bytes);
  return true;
}

/* Uniform kernel-parameter load: one address for every lane. */
static void ld_kparam(fx_warp *w, const fx_insn *in, uint32_t m) {
  uint32_t n = in->size;
  uint64_t a = in->imm;
  if (w->rec) rec_uniform_load(w->rec, m, PTX_SPACE_PARAM, (uint16_t)n, a);
  if (!m || kparam_outside(w, in, m, a, n)) return;
  count_mem(w, in, true);
  uint64_t v = fx_load_le(w->l->params + a, n, in->flags & LD_SIGN);
  if (in->flags & LD_WIDE) fx_fill64(FX_R64(w, in->o[0]), v, m);
  else fx_fill32(FX_R32(w, in->o[0]), (uint32_t)v, m);
}
/* ld_kparam's two usual forms, a 4-byte value into a 32-bit register and an 8-byte one (a
 * pointer) into a 64-bit register: fixed-size reads, no extension to decide (a kernel's first
 * instructions; 4 of vector add's 27 per warp). */
static inline __attribute__((always_inline)) void ld_kparam32_body(fx_warp *w, const fx_insn *in, uint32_t m,
                                                                   bool wide) {
  (void)wide;
  uint64_t a = in->imm;
  if (w->rec) rec_uniform_load(w->rec, m, PTX_SPACE_PARAM, 4, a);
  if (!m || kparam_outside(w, in, m, a, 4)) return;
  w->counts->loads[PTX_SPACE_PARAM]++;
  uint32_t v;
  memcpy(&v, w->l->params + a, 4);
  fx_fill32(FX_R32(w, in->o[0]), v, m);
}
HOST_VARIANTS(ld_kparam32)
static inline __attribute__((always_inline)) void ld_kparam64_body(fx_warp *w, const fx_insn *in, uint32_t m,
                                                                   bool wide) {
  (void)wide;
  uint64_t a = in->imm;
  if (w->rec) rec_uniform_load(w->rec, m, PTX_SPACE_PARAM, 8, a);
  if (!m || kparam_outside(w, in, m, a, 8)) return;
  w->counts->loads[PTX_SPACE_PARAM]++;
  uint64_t v;
  memcpy(&v, w->l->params + a, 8);
  fx_fill64(FX_R64(w, in->o[0]), v, m);
}
HOST_VARIANTS(ld_kparam64)

static void ld_general(fx_warp *w, const fx_insn *in, uint32_t m) {
  uint64_t addr[32];
  uint8_t *hp[32];
  uint32_t n = in->size, vec = in->vec, bytes = n * vec;
  if (w->rec) w->rec->is_load = true;
  fx_addr_gen(w, in, m, addr);
  if (!fx_resolve(w, in, m, addr, in->space, bytes, bytes, false, hp) || !m) return;
  count_mem(w, in, true);
  bool sign = in->flags & LD_SIGN;
  if (vec == 1) {
    if (in->flags & LD_WIDE) {
      uint64_t *d = FX_R64(w, in->o[0]);
      FX_FOR_LANES(i, m) d[i] = fx_load_le(hp[i], n, sign);
    } else {
      uint32_t *d = FX_R32(w, in->o[0]);
      FX_FOR_LANES(i, m) d[i] = (uint32_t)fx_load_le(hp[i], n, sign);
    }
    return;
  }
  const fx_vec_ops *v = in->ext;
  for (uint32_t k = 0; k < vec; k++) {
    if (v->skip[k]) continue;
    if (v->wide[k]) {
      uint64_t *d = FX_R64(w, v->off[k]);
      FX_FOR_LANES(i, m) d[i] = fx_load_le(hp[i] + k * n, n, sign);
    } else {
      uint32_t *d = FX_R32(w, v->off[k]);
      FX_FOR_LANES(i, m) d[i] = (uint32_t)fx_load_le(hp[i] + k * n, n, sign);
    }
  }
}

/* ld.b128 / 16-byte scalar loads into a 128-bit register row */
static void ld_b128(fx_warp *w, const fx_insn *in, uint32_t m) {
  uint64_t addr[32];
  uint8_t *hp[32];
  if (w->rec) w->rec->is_load = true;
  fx_addr_gen(w, in, m, addr);
  if (!fx_resolve(w, in, m, addr, in->space, 16, 16, false, hp) || !m) return;
  count_mem(w, in, true);
  uint8_t *d = w->regs + in->o[0];
  FX_FOR_LANES(i, m) memcpy(d + 16 * i, hp[i], 16);
}

static simtvp_status vec_operand(fx_build *b, const ptx_operand *op, uint32_t vec, ptx_type t,
                                 bool dst, fx_vec_ops **out) {
  if (op->kind != PTX_OPND_VEC || op->count != vec) return fx_unsupported(b, "vector operand does not match .v");
  fx_vec_ops *v = fx_alloc(b->p, sizeof *v);
  if (!v) return simtvp_diag_set(b->diag, SIMTVP_ERR_NOMEM, "out of host memory");
  const ptx_operand *el = fx_vec_elems(b, op);
  for (uint32_t k = 0; k < vec && k < 8; k++) {
    if (el[k].kind == PTX_OPND_SINK) {
      v->skip[k] = 1;
      continue;
    }
    simtvp_status st = dst ? fx_dst_op(b, &el[k], &v->off[k]) : fx_src_op(b, &el[k], t, &v->off[k]);
    if (st != SIMTVP_OK) return st;
    v->wide[k] = el[k].kind == PTX_OPND_REG ? el[k].rclass == PTX_RC_B64 : ptx_type_bytes(t) == 8;
  }
  *out = v;
  return SIMTVP_OK;
}

static simtvp_status build_ld(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  in->cls = FX_C_MEM;
  uint32_t n = ptx_type_bytes((ptx_type)pi->type);
  if (n == 0 || pi->nops < 2) return fx_unsupported(b, "ld without a data type");
  in->size = (uint8_t)n;
  in->vec = pi->vec ? pi->vec : 1;
  simtvp_status st = fx_mem_operand(b, &pi->ops[1], 1);
  if (st != SIMTVP_OK) return st;
  if (ptx_type_is_signed((ptx_type)pi->type)) in->flags |= LD_SIGN;
  const ptx_operand *d = &pi->ops[0];
  if (in->vec > 1) {
    fx_vec_ops *v;
    st = vec_operand(b, d, in->vec, (ptx_type)pi->type, true, &v);
    if (st != SIMTVP_OK) return st;
    in->ext = v;
    in->fn = ld_general;
    return SIMTVP_OK;
  }
  st = fx_dst_op(b, d, &in->o[0]);
  if (st != SIMTVP_OK) return st;
  bool wide = d->kind == PTX_OPND_REG ? d->rclass == PTX_RC_B64 : n == 8;
  if (d->kind == PTX_OPND_REG && d->rclass == PTX_RC_B128) {
    if (n != 16) return fx_unsupported(b, "ld into a 128-bit register needs a 128-bit type");
    in->fn = ld_b128;
    return SIMTVP_OK;
  }
  if (n > 8) return fx_unsupported(b, "128-bit load into a narrower register");
  if (wide) in->flags |= LD_WIDE;
  if (in->space == FX_SPACE_KPARAM && in->am == FX_AM_IMM)
    in->fn = n == 4 && !wide ? HOST_PICK(ld_kparam32) : n == 8 && wide ? HOST_PICK(ld_kparam64) : ld_kparam;
  else if (n == 4 && !wide) {
    if (in->space == PTX_SPACE_SHARED && in->am == FX_AM_R32) in->fn = HOST_PICK(ld_shared32_r32);
    else if (in->space == PTX_SPACE_GLOBAL && in->am == FX_AM_R64) in->fn = HOST_PICK(ld_global32_r64);
    else in->fn = ld_scalar32;
  } else if (n == 8 && wide) {
    in->fn = (in->space == PTX_SPACE_GLOBAL && in->am == FX_AM_R64) ? ld_global64_r64 : ld_scalar64;
  } else in->fn = ld_general;
  return SIMTVP_OK;
}

/* ---- st ------------------------------------------------------------------------------------------ */

static void st_scalar32(fx_warp *w, const fx_insn *in, uint32_t m) {
  uint64_t addr[32];
  uint8_t *hp[32];
  if (w->rec) w->rec->is_store = true;
  fx_addr_gen(w, in, m, addr);
  if (!fx_resolve(w, in, m, addr, in->space, 4, 4, true, hp) || !m) return;
  count_mem(w, in, false);
  const uint32_t *v = FX_R32(w, in->o[2]);
  if (m == FX_FULL) {
    for (unsigned i = 0; i < 32; i++) memcpy(hp[i], &v[i], 4);
  } else {
    FX_FOR_LANES(i, m) memcpy(hp[i], &v[i], 4);
  }
}

static void st_general(fx_warp *w, const fx_insn *in, uint32_t m) {
  uint64_t addr[32];
  uint8_t *hp[32];
  uint32_t n = in->size, vec = in->vec, bytes = n * vec;
  if (w->rec) w->rec->is_store = true;
  fx_addr_gen(w, in, m, addr);
  if (!fx_resolve(w, in, m, addr, in->space, bytes, bytes, true, hp) || !m) return;
  count_mem(w, in, false);
  if (vec == 1) {
    if (in->flags & LD_WIDE) {
      const uint64_t *v = FX_R64(w, in->o[2]);
      FX_FOR_LANES(i, m) memcpy(hp[i], &v[i], n);
    } else if (n == 16) {
      const uint8_t *v = w->regs + in->o[2];
      FX_FOR_LANES(i, m) memcpy(hp[i], v + 16 * i, 16);
    } else {
      const uint32_t *v = FX_R32(w, in->o[2]);
      FX_FOR_LANES(i, m) memcpy(hp[i], &v[i], n);
    }
    return;
  }
  const fx_vec_ops *v = in->ext;
  for (uint32_t k = 0; k < vec; k++) {
    if (v->skip[k]) continue;
    if (v->wide[k]) {
      const uint64_t *s = FX_R64(w, v->off[k]);
      FX_FOR_LANES(i, m) memcpy(hp[i] + k * n, &s[i], n);
    } else {
      const uint32_t *s = FX_R32(w, v->off[k]);
      FX_FOR_LANES(i, m) memcpy(hp[i] + k * n, &s[i], n);
    }
  }
}

static simtvp_status build_st(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  in->cls = FX_C_MEM;
  uint32_t n = ptx_type_bytes((ptx_type)pi->type);
  if (n == 0 || pi->nops < 2) return fx_unsupported(b, "st without a data type");
  in->size = (uint8_t)n;
  in->vec = pi->vec ? pi->vec : 1;
  simtvp_status st = fx_mem_operand(b, &pi->ops[0], 1);
  if (st != SIMTVP_OK) return st;
  const ptx_operand *s = &pi->ops[1];
  if (in->vec > 1) {
    fx_vec_ops *v;
    st = vec_operand(b, s, in->vec, (ptx_type)pi->type, false, &v);
    if (st != SIMTVP_OK) return st;
    in->ext = v;
    in->fn = st_general;
    return SIMTVP_OK;
  }
  st = fx_src_op(b, s, (ptx_type)pi->type, &in->o[2]);
  if (st != SIMTVP_OK) return st;
  bool wide = s->kind == PTX_OPND_REG ? s->rclass == PTX_RC_B64 : n == 8;
  if (s->kind == PTX_OPND_REG && s->rclass == PTX_RC_B128) {
    if (n != 16) return fx_unsupported(b, "st from a 128-bit register needs a 128-bit type");
    in->fn = st_general;
    return SIMTVP_OK;
  }
  if (n > 8) return fx_unsupported(b, "128-bit store from a narrower register");
  if (wide) in->flags |= LD_WIDE;
  if (n == 4 && !wide) {
    if (in->space == PTX_SPACE_SHARED && in->am == FX_AM_R32) in->fn = HOST_PICK(st_shared32_r32);
    else if (in->space == PTX_SPACE_GLOBAL && in->am == FX_AM_R64) in->fn = HOST_PICK(st_global32_r64);
    else in->fn = st_scalar32;
  } else {
    in->fn = st_general;
  }
  return SIMTVP_OK;
}

/* ---- prefetch: no architectural effect ----------------------------------------------------------- */

static void fx_nop(fx_warp *w, const fx_insn *in, uint32_t m) { (void)w, (void)in, (void)m; }

static simtvp_status build_prefetch(fx_build *b) {
  b->out->cls = FX_C_NOP;
  b->out->fn = fx_nop;
  return SIMTVP_OK;
}

/* ---- cvta / isspacep ----------------------------------------------------------------------------- */

static uint64_t window_of(uint32_t space) {
  switch (space) {
  case PTX_SPACE_SHARED:
  case PTX_SPACE_SHARED_CLUSTER: return FUNC_WINDOW_SHARED;
  case PTX_SPACE_LOCAL: return FUNC_WINDOW_LOCAL;
  case PTX_SPACE_PARAM: return FUNC_WINDOW_PARAM;
  default: return 0;
  }
}

/* cvta to generic (+window) or to the space (-window); flags bit 0: 32-bit values. */
static void cvta_h(fx_warp *w, const fx_insn *in, uint32_t m) {
  int64_t delta = (int64_t)in->imm;
  if (in->flags & 1) {
    const uint32_t *a = FX_R32(w, in->o[1]);
    uint32_t r[32];
    for (int i = 0; i < 32; i++) r[i] = a[i] + (uint32_t)delta;
    fx_put32(FX_R32(w, in->o[0]), r, m);
  } else {
    const uint64_t *a = FX_R64(w, in->o[1]);
    uint64_t r[32], *D = FX_R64(w, in->o[0]);
    bool direct = m == FX_FULL && fx_apart(in->o[0], FX_ROW64, in->o[1], FX_ROW64);
    uint64_t *out = direct ? D : r;
    for (int i = 0; i < 32; i++) out[i] = a[i] + (uint64_t)delta;
    if (!direct) fx_put64(D, r, m);
  }
}

/* cvta between generic and global (window 0) of a 64-bit register: a copy (nothing when d is a) */
static void cvta_global64_h(fx_warp *w, const fx_insn *in, uint32_t m) {
  if (in->o[0] == in->o[1]) return;
  const uint64_t *a = FX_R64(w, in->o[1]);
  uint64_t *D = FX_R64(w, in->o[0]);
  if (m == FX_FULL && fx_apart(in->o[0], FX_ROW64, in->o[1], FX_ROW64)) {
    memcpy(D, a, FX_ROW64);
  } else {
    uint64_t r[32];
    memcpy(r, a, sizeof r);
    fx_put64(D, r, m);
  }
}

/* cvta of a local/param symbol from the frame: d = fp + imm (+window) */
static void cvta_fp_h(fx_warp *w, const fx_insn *in, uint32_t m) {
  uint64_t v = w->fp + in->imm;
  if (in->flags & 1) {
    uint32_t r[32];
    for (int i = 0; i < 32; i++) r[i] = (uint32_t)v;
    fx_put32(FX_R32(w, in->o[0]), r, m);
  } else {
    uint64_t r[32];
    for (int i = 0; i < 32; i++) r[i] = v;
    fx_put64(FX_R64(w, in->o[0]), r, m);
  }
}

static simtvp_status build_cvta(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  if (pi->nops < 2) return fx_unsupported(b, "cvta needs two operands");
  bool to = pi->mods & PTX_MOD_TO;
  uint64_t win = window_of(pi->space);
  in->imm = to ? (uint64_t)(-(int64_t)win) : win;
  if (ptx_type_bytes((ptx_type)pi->type) == 4) in->flags |= 1;
  simtvp_status st = fx_dst(b, 0, &in->o[0]);
  if (st != SIMTVP_OK) return st;
  const ptx_operand *a = &pi->ops[1];
  if (a->kind == PTX_OPND_SYMBOL) {
    bool fp_rel;
    uint64_t v = fx_symbol_value(b->p, b->f, a->index, false, &fp_rel) + (uint64_t)a->value;
    if (fp_rel) {
      in->imm = (v & ~FX_PARAM_LOCAL_TAG) + (to ? 0 : FUNC_WINDOW_LOCAL);
      in->fn = cvta_fp_h;
      return SIMTVP_OK;
    }
    ptx_operand c = *a;
    c.kind = PTX_OPND_IMM;
    c.flags = 0;
    c.value = (int64_t)v;
    st = fx_src_op(b, &c, (ptx_type)pi->type, &in->o[1]);
  } else {
    st = fx_src(b, 1, (ptx_type)pi->type, &in->o[1]);
  }
  if (st != SIMTVP_OK) return st;
  in->fn = in->imm == 0 && !(in->flags & 1) ? cvta_global64_h : cvta_h;
  return SIMTVP_OK;
}

static void isspacep_h(fx_warp *w, const fx_insn *in, uint32_t m) {
  const uint64_t *a = FX_R64(w, in->o[1]);
  uint32_t r = 0;
  const func_program *p = w->l->p;
  for (uint32_t i = 0; i < 32; i++) {
    uint64_t off;
    uint32_t s = fx_generic_space(a[i], &off);
    bool yes;
    switch (in->aux) {
    case PTX_SPACE_GLOBAL: yes = s == PTX_SPACE_GLOBAL; break;
    case PTX_SPACE_CONST:
      yes = s == PTX_SPACE_GLOBAL && a[i] >= p->pl.const_base &&
            a[i] - p->pl.const_base < p->m->const_segment_bytes;
      break;
    default: yes = s == in->aux; break;
    }
    r |= (uint32_t)yes << i;
  }
  fx_putp(FX_P(w, in->o[0]), r, m);
}

static simtvp_status build_isspacep(fx_build *b) {
  fx_insn *in = b->out;
  in->aux = b->pi->space == PTX_SPACE_SHARED_CLUSTER ? PTX_SPACE_SHARED : b->pi->space;
  simtvp_status st = fx_dst(b, 0, &in->o[0]);
  if (st == SIMTVP_OK) st = fx_src(b, 1, PTX_TYPE_U64, &in->o[1]);
  if (st == SIMTVP_OK && b->pi->ops[1].kind == PTX_OPND_REG && b->pi->ops[1].rclass != PTX_RC_B64)
    return fx_unsupported(b, "isspacep needs a 64-bit address");
  in->fn = isspacep_h;
  return st;
}

/* ---- distributed shared memory: mapa, getctarank (PTX ISA 9.7.9.x) ------------------------------
 * A shared::cluster address holds rank + 1 of a CTA of the cluster above its 24-bit offset (0: the
 * executing CTA; func_internal.h FX_CLUSTER_RANK_SHIFT); a generic one is that plus the shared
 * window. flags 1: generic address; 2: 64-bit operands. mapa: o[1] a, o[2] target rank. */

static bool cluster_addr(fx_warp *w, const fx_insn *in, uint32_t lane, uint64_t a, uint64_t *sa) {
  if (!(in->flags & 1)) {
    *sa = a & 0xffffffffull;
    return true;
  }
  uint64_t off;
  if (fx_generic_space(a, &off) != PTX_SPACE_SHARED) {
    fx_fault(w, in, lane, SIMTVP_ERR_FAULT, true, a, "%s: generic address 0x%" PRIx64 " is not in shared memory",
             in->aux ? "getctarank" : "mapa", a);
    return false;
  }
  *sa = off;
  return true;
}

H(mapa_h) {
  uint64_t r[32];
  uint32_t n = w->cta->cluster->n;
  FX_FOR_LANES(i, m) {
    uint64_t a = (in->flags & 2) ? FX_R64(w, in->o[1])[i] : FX_R32(w, in->o[1])[i], sa;
    if (!cluster_addr(w, in, i, a, &sa)) return;
    uint32_t rank = FX_R32(w, in->o[2])[i];
    if (rank >= n) {
      fx_fault(w, in, i, SIMTVP_ERR_FAULT, false, 0, "mapa: CTA rank %u is outside the cluster of %u CTAs", rank, n);
      return;
    }
    uint64_t off = sa >> FX_CLUSTER_RANK_SHIFT ? sa & FX_CLUSTER_OFFSET_MASK : sa;
    uint64_t d = ((uint64_t)(rank + 1) << FX_CLUSTER_RANK_SHIFT) | off;
    r[i] = (in->flags & 1) ? FUNC_WINDOW_SHARED + d : d;
  }
  if (in->flags & 2) FX_FOR_LANES(i, m) FX_R64(w, in->o[0])[i] = r[i];
  else FX_FOR_LANES(i, m) FX_R32(w, in->o[0])[i] = (uint32_t)r[i];
}

H(getctarank_h) {
  uint32_t *d = FX_R32(w, in->o[0]);
  FX_FOR_LANES(i, m) {
    uint64_t a = (in->flags & 2) ? FX_R64(w, in->o[1])[i] : FX_R32(w, in->o[1])[i], sa;
    if (!cluster_addr(w, in, i, a, &sa)) return;
    uint64_t rank = sa >> FX_CLUSTER_RANK_SHIFT;
    d[i] = rank ? (uint32_t)(rank - 1) : w->cta->rank;
  }
}

static simtvp_status build_mapa(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  bool rank = pi->opcode == PTX_OP_GETCTARANK;
  in->aux = rank;
  if (pi->space == PTX_SPACE_GENERIC) in->flags |= 1;
  else if (pi->space != PTX_SPACE_SHARED_CLUSTER) return fx_unsupported(b, "mapa/getctarank work on .shared::cluster or generic addresses");
  if (ptx_type_bytes((ptx_type)pi->type) == 8) in->flags |= 2;
  if (pi->nops < (rank ? 2u : 3u)) return fx_unsupported(b, rank ? "getctarank needs d, a" : "mapa needs d, a, rank");
  simtvp_status st = fx_dst(b, 0, &in->o[0]);
  if (st == SIMTVP_OK) st = fx_src(b, 1, (in->flags & 2) ? PTX_TYPE_U64 : PTX_TYPE_U32, &in->o[1]);
  if (st == SIMTVP_OK && !rank) st = fx_src(b, 2, PTX_TYPE_U32, &in->o[2]);
  in->fn = rank ? getctarank_h : mapa_h;
  return st;
}

void fx_register_mem(fx_builder *t) {
  t[PTX_OP_LD] = build_ld;
  t[PTX_OP_LDU] = build_ld;
  t[PTX_OP_ST] = build_st;
  t[PTX_OP_PREFETCH] = build_prefetch;
  t[PTX_OP_PREFETCHU] = build_prefetch;
  t[PTX_OP_MAPA] = build_mapa;
  t[PTX_OP_GETCTARANK] = build_mapa;
  t[PTX_OP_CVTA] = build_cvta;
  t[PTX_OP_ISSPACEP] = build_isspacep;
}
