/* simt_interval_mem — the interval core's memory stage (docs/simt-interval.md §4): shared memory
 * from its bank conflicts, the rest coalesced with the CA LDST unit's rules (ldst_coalesce.h)
 * into accesses of one 128-byte line, each through its L1 (models/cache in timed use) at the
 * first cycle the L1 port has room, and everything that leaves the L1 — line fills, writes the
 * L1 forwards, write-backs, accesses around it, atomics — answered at once by the interval
 * memory port (simt_core_config.interval_mem), or after interval_miss_latency cycles when the
 * port is not connected. Nothing is queued: an instruction's completion is known when it issues.
 * Hot path (docs/simt-interval.md §4): shared-only instructions skip the space split; a full
 * warp in a usual shape (one address, one run, rows of runs) is coalesced straight from its
 * runs; the lane checks are vector code, four lanes at a time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simt_interval_internal.h"
#include "simtvp_zalloc.h"

/* The cycle the reply to an access leaving the L1 at `at` is back at the core. */
static uint64_t beyond_l1(iv_core *c, uint64_t line, uint8_t sectors, const uint64_t *bytes, uint8_t kind, bool write,
                          uint8_t n_ops, uint64_t at) {
  ++*c->ms.port_requests;
  at = iv_bins_take(&c->miss_queue, at, 1);
  const simt_interval_mem_port *p = &c->base.cfg.interval_mem;
  if (!p->ctx || !p->access) return at + c->base.cfg.interval_miss_latency;
  uint64_t back = p->access(p->ctx, c->base.cfg.sm, line, sectors, bytes, kind, write, n_ops, at);
  return back > at ? back : at + 1;
}

static uint64_t line_of(uint64_t addr) { return addr & ~(uint64_t)(MEM_LINE_BYTES - 1); }

/* Bytes [lo, hi) of a 128-byte line (0 ≤ lo ≤ hi ≤ 128) into a mem_req byte mask, no loop. */
static inline void line_bytes(uint64_t m[2], uint32_t lo, uint32_t hi) {
  typedef unsigned __int128 u128;
  u128 r = (hi - lo >= 128 ? ~(u128)0 : ((u128)1 << (hi - lo)) - 1) << lo;
  m[0] |= (uint64_t)r;
  m[1] |= (uint64_t)(r >> 64);
}

/* The 32-byte sectors of a byte mask. */
static inline uint8_t sectors_of_bytes(const uint64_t m[2]) {
  return (uint8_t)((uint32_t)!!(uint32_t)m[0] | (uint32_t)!!(m[0] >> 32) << 1 | (uint32_t)!!(uint32_t)m[1] << 2 |
                   (uint32_t)!!(m[1] >> 32) << 3);
}

/* The 32-byte sectors of bytes [lo, hi) of a line (lo < hi ≤ 128). */
static inline uint8_t sectors_between(uint32_t lo, uint32_t hi) {
  return (uint8_t)(((2u << ((hi - 1) / MEM_SECTOR_BYTES)) - 1u) & ~((1u << (lo / MEM_SECTOR_BYTES)) - 1u));
}

/* Lane checks, four lanes an operation (GCC/Clang vector extension: two SSE2 operations per
 * step, one with AVX2, which x86-64 GCC builds pick at load time). */
typedef uint64_t iv_v4 __attribute__((vector_size(32)));
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__linux__)
#define IV_LANE_CHECK __attribute__((target_clones("avx2", "default"), noinline))
#else
#define IV_LANE_CHECK __attribute__((noinline))
#endif

/* Nonzero unless each row of w lanes of the warp x (w = 4, 8 or 16) sits at its first lane's
 * address, + step, + 2·step, …: one pass. */
IV_LANE_CHECK static uint64_t rows_misses(const uint64_t *x, uint32_t w, uint64_t step) {
  const iv_v4 lane = {0, step, 2 * step, 3 * step}, inc = {4 * step, 4 * step, 4 * step, 4 * step};
  iv_v4 acc = {0}, v;
  for (uint32_t r = 0; r < 32; r += w) {
    iv_v4 e = lane + x[r];
    for (uint32_t i = 0; i < w; i += 4) {
      memcpy(&v, x + r + i, sizeof v);
      acc |= v ^ e;
      e += inc;
    }
  }
  return acc[0] | acc[1] | acc[2] | acc[3];
}

/* Nonzero unless the 32 lanes of x sit at b, b + step, b + 2·step, …: one pass, unrolled. */
IV_LANE_CHECK static uint64_t warp_run_misses(const uint64_t *x, uint64_t b, uint64_t step) {
  iv_v4 e = {b, b + step, b + 2 * step, b + 3 * step}, inc = {4 * step, 4 * step, 4 * step, 4 * step}, acc = {0},
        v;
#pragma GCC unroll 8
  for (uint32_t i = 0; i < 32; i += 4) {
    memcpy(&v, x + i, sizeof v);
    acc |= v ^ e;
    e += inc;
  }
  return acc[0] | acc[1] | acc[2] | acc[3];
}

/* Nonzero unless every lane of x sits at a0 + off[lane] (32 lanes): one pass. */
IV_LANE_CHECK static uint64_t offset_misses(const uint64_t *x, uint64_t a0, const uint64_t *off) {
  const iv_v4 base = {a0, a0, a0, a0};
  iv_v4 acc0 = {0}, acc1 = {0}, v0, v1, o0, o1;
#pragma GCC unroll 4
  for (uint32_t l = 0; l < 32; l += 8) {
    memcpy(&v0, x + l, sizeof v0);
    memcpy(&o0, off + l, sizeof o0);
    memcpy(&v1, x + l + 4, sizeof v1);
    memcpy(&o1, off + l + 4, sizeof o1);
    acc0 |= (v0 - base) ^ o0;
    acc1 |= (v1 - base) ^ o1;
  }
  acc0 |= acc1;
  return acc0[0] | acc0[1] | acc0[2] | acc0[3];
}

/* Cycles the L1D's data or fill port is busy with `bytes`. */
static uint32_t port_cycles(const iv_core *c, uint32_t bytes) {
  return bytes ? (bytes + c->l1d_port_bytes - 1) / c->l1d_port_bytes : 1;
}

/* A reply back at the core at `back`: the response buffer hands over one per cycle from the
 * cycle after; a fill of `fill_bytes` then waits for the fill port. The cycle its data is there. */
static uint64_t reply_taken(iv_core *c, uint64_t back, uint32_t fill_bytes) {
  uint64_t r = iv_bins_take(&c->response, back + 1, 1);
  if (fill_bytes) r = iv_bins_take(&c->fill_port, r, port_cycles(c, fill_bytes));
  return r;
}

/* The slot of `line` in an L1's table of fills in flight. */
static iv_fill *fill_slot(const iv_fills *t, uint64_t line) {
  return &t->e[(line / MEM_LINE_BYTES) & t->mask];
}

/* Reordered fills: an access at a, earlier in time than the miss that made `line` pending
 * (warps run ahead), waits that miss's own latency from a, not the later fill. *ready is the
 * ready time the cache answered; a slot that holds another line or another fill leaves it. */
static void reordered_fill(iv_core *c, const iv_fills *t, uint64_t line, uint64_t a, uint64_t *ready) {
  iv_fill *f = fill_slot(t, line);
  if (f->line != line + 1 || f->told != *ready) return;
  if (a < f->miss_at) {
    f->ready -= f->miss_at - a;
    f->miss_at = a;
    ++*c->ms.reordered;
  }
  *ready = f->ready;
}

/* The chunks of a fills table's cache that `sectors` touch: the sectors themselves in a sectored
 * cache, the one chunk of a whole line otherwise (cache_req_chunks_of's answer for the accesses
 * built here, whose sector masks are always set, without a call on the hot path). */
static inline uint8_t chunks_of(const iv_fills *t, uint8_t sectors) { return t->sector ? (uint8_t)(sectors & 0xfu) : 1u; }

/* A read at a waiting on `chunks` of a fill in flight that the cache said is ready at `ready`:
 * the cycle its data is there (lat: the L1's hit latency). reordered_fill's correction first; then
 * the MSHR merge, as the CA cache makes it: the read joins the fill's MSHR entry while each chunk
 * it waits on has fewer than max_merge reads waiting (the miss counts), and is counted there. One
 * past that fails reservation, as in the CA LDST unit, and is tried again every cycle until the
 * fill is in, holding the memory stage (c->hold): it then hits. A fill the table does not hold
 * (its slot taken by another line) merges without a limit. */
static uint64_t pending_read(iv_core *c, const iv_fills *t, uint64_t line, uint8_t chunks, uint64_t a, uint64_t ready,
                             uint32_t lat) {
  iv_fill *f = fill_slot(t, line);
  if (f->line != line + 1 || f->told != ready) return iv_max(a + lat, ready);
  reordered_fill(c, t, line, a, &ready);
  uint8_t need = chunks & f->chunks;
  for (uint8_t m = need; m; m &= (uint8_t)(m - 1))
    if (f->waiters[__builtin_ctz(m)] >= t->max_merge) { /* the entry is full: wait for the fill, then hit */
      ++*c->ms.merge_fail;
      c->hold = iv_max(c->hold, ready);
      return ready + lat;
    }
  for (uint8_t m = need; m; m &= (uint8_t)(m - 1)) /* (kept at 255: a limit above acts as none) */
    if (f->waiters[__builtin_ctz(m)] < UINT8_MAX) f->waiters[__builtin_ctz(m)]++;
  return iv_max(a + lat, ready);
}

/* The request the L1 lookups are made with: zeroed once (iv_mem_init, after the scratch
 * accesses), then only the fields a lookup reads are set per access — no clearing per access. */
static inline mem_req *req_scratch(iv_core *c) { return (mem_req *)(void *)(c->acc + LDST_MAX_ACCESSES); }
_Static_assert(LDST_MAX_ACCESSES * sizeof(ldst_access) % _Alignof(mem_req) == 0, "mem_req after the accesses");

/* One access through `path` (x's) at cycle a: the cycle its data (or acknowledgement) is back.
 * Inlined where the path is a constant (the L1D's, most accesses), so its choices fold away. */
static inline __attribute__((always_inline)) uint64_t access_on(iv_core *c, const ldst_access *x, uint64_t a,
                                                               uint8_t path) {
  simt_mem_count_request(&c->ms.req, x->kind);
  cache *cc = path == LDST_PATH_L1D ? c->l1d : path == LDST_PATH_L1C ? c->l1c : path == LDST_PATH_L1T ? c->l1t : NULL;
  uint8_t n_ops = x->kind == MEM_ACC_ATOMIC ? x->lanes : 0;
  if (!cc) /* around the L1: the reply is taken the cycle after it is back */
    return reply_taken(c, beyond_l1(c, line_of(x->addr), x->sector_mask, x->byte_mask, x->kind, x->is_write, n_ops, a + 1), 0);
  const simt_ldst_config *lc = &c->base.cfg.ldst;
  uint32_t lat = path == LDST_PATH_L1D ? lc->l1d_latency : path == LDST_PATH_L1C ? lc->l1c_latency : lc->l1t_latency;
  bool l1d = path == LDST_PATH_L1D;
  const iv_fills *ft = &c->fills[path == LDST_PATH_L1D ? 0 : path == LDST_PATH_L1C ? 1 : 2];
  uint32_t port_n = port_cycles(c, x->size);
  if (l1d && c->l1d_data_port) a = iv_bins_find(&c->data_port, a, port_n); /* the data port */
  if (!x->is_write && !l1d) { /* an L1C or L1T read that hits (the usual case): answered without
                                 * a request; an L1D read misses too often to be looked up twice */
    uint64_t ready, line;
    cache_status hit = cache_timed_read_hit(cc, x->addr, x->size, x->sector_mask, x->kind, a, &ready, &line);
    if (hit == CACHE_HIT) return a + lat;
    if (hit == CACHE_HIT_RESERVED) { /* an MSHR hit: the data comes with the fill on its way */
      if (ready == CACHE_NEVER) return a + lat;
      return pending_read(c, ft, line, chunks_of(ft, x->sector_mask), a, ready, lat);
    }
  }
  mem_req *q = req_scratch(c);
  q->addr = x->addr;
  q->size = x->size;
  q->kind = x->kind;
  q->is_write = x->is_write;
  q->sector_mask = x->sector_mask;
  q->byte_mask[0] = x->byte_mask[0];
  q->byte_mask[1] = x->byte_mask[1];
  cache_timed_result r;
  cache_timed_access(cc, q, a, &r);
  if (l1d && c->l1d_data_port && r.data_port) iv_bins_book(&c->data_port, a, port_n);
  if (r.wb_chunks) /* a dirty line leaves: written back (its chunks' sectors), nobody waits for it */
    beyond_l1(c, r.wb_line, cache_line_sectors(cc, r.wb_line, r.wb_chunks), NULL, MEM_ACC_L1_WRBK, true, 0, a + 1);
  uint64_t done = a + lat;
  if (r.status == CACHE_HIT_RESERVED && r.ready != CACHE_NEVER) { /* an MSHR hit */
    if (x->is_write) reordered_fill(c, ft, r.line, a, &r.ready);
    else done = pending_read(c, ft, r.line, chunks_of(ft, x->sector_mask), a, r.ready, lat); /* the data with the fill */
  }
  if (r.status == CACHE_MISS && r.pending_ready && r.pending_ready != CACHE_NEVER)
    reordered_fill(c, ft, r.line, a, &r.pending_ready);
  if (r.fetch) { /* a line fill: the sectors are readable the cycle after the reply is back */
    uint8_t kind = x->is_write ? MEM_ACC_L1_WR_ALLOC_R : x->kind;
    uint8_t sectors = cache_line_sectors(cc, r.line, r.fetch);
    uint64_t back = beyond_l1(c, r.line, sectors, NULL, kind, false, 0, a + 1);
    uint32_t fill_bytes = (uint32_t)simtvp_popcount32(sectors) * MEM_SECTOR_BYTES;
    uint64_t fill = reply_taken(c, back, l1d ? fill_bytes : 0);
    cache_timed_fill(cc, r.line, r.fetch, fill);
    if (!r.pending_ready || r.pending_ready == CACHE_NEVER) { /* the whole line is this miss's */
      iv_fill *f = fill_slot(ft, r.line);
      const uint32_t m = chunks_of(ft, x->sector_mask) & r.fetch; /* the miss waits on these: one waiter each */
      f->line = r.line + 1;
      f->miss_at = a;
      f->told = f->ready = fill;
      f->chunks = r.fetch;
      for (uint32_t k = 0; k < MEM_SECTORS_PER_LINE; k++) f->waiters[k] = (uint8_t)(m >> k & 1u);
    }
    if (!x->is_write || !r.forward) done = iv_max(done, fill);
    if (r.pending_ready != CACHE_NEVER) done = iv_max(done, r.pending_ready);
  }
  if (r.forward) { /* the access itself goes on (write-through, write-evict, no allocation) */
    uint64_t back = reply_taken(c, beyond_l1(c, line_of(x->addr), x->sector_mask, x->byte_mask, x->kind, x->is_write, n_ops, a + 1), 0);
    done = iv_max(done, back);
  }
  return done;
}

/* access of any path. */
static __attribute__((noinline)) uint64_t access(iv_core *c, const ldst_access *x, uint64_t a) {
  return access_on(c, x, a, x->path);
}

/* The sector rule with 128-byte blocks when no lane's bytes cross a line (the usual case): one
 * access per line in order of first touch, with its touched bytes, sectors and the lanes that
 * start in it — ldst_coalesce_blocks's answer, in one pass over the lanes. false (nothing
 * appended) when a lane crosses a line or cap is reached. */
static bool coalesce_lines(iv_core *c, uint32_t k, uint32_t *n, uint32_t cap) {
  uint32_t first = *n, count = *n, last = *n;
  for (uint32_t i = 0; i < k; i++) {
    const ldst_range *r = &c->ranges[i];
    uint64_t line = r->addr & ~(uint64_t)(MEM_LINE_BYTES - 1);
    uint32_t lo = (uint32_t)(r->addr & (MEM_LINE_BYTES - 1)), len = r->bytes;
    if (!len || lo + len > MEM_LINE_BYTES) return false;
    uint32_t j = last;
    if (j == count || c->acc[j].addr != line) {
      for (j = first; j < count && c->acc[j].addr != line; j++) {
      }
      if (j == count) {
        if (count == cap) return false;
        ldst_access *o = &c->acc[count++];
        memset(o, 0, sizeof *o);
        o->addr = line;
      }
      last = j;
    }
    ldst_access *o = &c->acc[j];
    if ((lo & 63u) + len <= 64u)
      o->byte_mask[lo >> 6] |= (len == 64 ? ~0ull : ((1ull << len) - 1)) << (lo & 63u);
    else
      for (uint32_t b = lo; b < lo + len; b++) o->byte_mask[b >> 6] |= 1ull << (b & 63u);
    if (o->lanes < 255) o->lanes++;
  }
  for (uint32_t j = first; j < count; j++) {
    ldst_access *o = &c->acc[j];
    uint8_t sec = 0;
    for (uint32_t q = 0; q < MEM_SECTORS_PER_LINE; q++)
      if ((o->byte_mask[q / 2] >> ((q % 2) * 32)) & 0xffffffffull) sec |= (uint8_t)(1u << q);
    o->sector_mask = sec;
    o->addr += MEM_SECTOR_BYTES * (uint32_t)__builtin_ctz(sec);
    o->size = MEM_SECTOR_BYTES * (uint32_t)simtvp_popcount32(sec);
  }
  *n = count;
  return true;
}

/* Appends the coalesced accesses of c->ranges[0..k) (in lane order). */
static uint32_t coalesce(iv_core *c, uint32_t k, ldst_shape shape, uint32_t block, uint32_t bytes, bool gt200,
                         uint8_t kind, uint8_t path, bool write, uint32_t n) {
  uint32_t first = n;
  if (!ldst_coalesce_shaped(c->ranges, k, shape, block, bytes, gt200, c->base.cfg.warp_size / 2, c->acc, &n,
                            LDST_MAX_ACCESSES) &&
      (block != MEM_LINE_BYTES || !coalesce_lines(c, k, &n, LDST_MAX_ACCESSES)))
    ldst_coalesce_blocks(c->ranges, k, block, c->acc, &n, LDST_MAX_ACCESSES);
  ldst_tag_accesses(c->acc, first, n, kind, path, write);
  return n;
}

/* A full warp's lanes as rows of w lanes (w = 16, 8 or 4), each row a run of `bytes` per lane
 * (lane i of a row at its first lane's address + i × bytes): a 2-D block's rows (threadIdx.x
 * fastest). The widest w whose first row ends where a run would is checked for every row in one
 * pass; 0 when that fails (the general path then). */
static uint32_t row_width(const uint64_t *x, uint32_t bytes) {
  for (uint32_t w = 16; w >= 4; w /= 2)
    if (x[w - 1] == x[0] + (uint64_t)(w - 1) * bytes) return rows_misses(x, w, bytes) ? 0 : w;
  return 0;
}

/* The sector rule's accesses for `rows` runs of w lanes (run r: lanes [r·w, r·w + w), `bytes`
 * each from x[r·w] + off), appended at *n in order of first touch with their bytes, sectors and
 * the lanes that start in each — ldst_coalesce_blocks's answer on those lanes, built a block at a
 * time: no lane's bytes cross a block because bytes is a power of two ≤ block and every run
 * starts aligned to it (false otherwise, *n unchanged). */
static bool runs_to_accesses(iv_core *c, const uint64_t *x, uint32_t w, uint32_t rows, uint64_t off, uint32_t bytes,
                             uint32_t block, uint32_t *n) {
  uint32_t first = *n, count = *n, hit = *n;
  const uint64_t bmask = ~(uint64_t)(block - 1);
  const uint32_t shift = (uint32_t)__builtin_ctz(bytes);
  for (uint32_t r = 0; r < rows; r++) {
    uint64_t lo = x[r * w] + off, hi = lo + ((uint64_t)w << shift);
    if (lo & (bytes - 1)) return false;
    for (uint64_t blk = lo & bmask;; blk += block) { /* the blocks the run touches, in order */
      uint64_t a = lo > blk ? lo : blk, e = hi < blk + block ? hi : blk + block;
      uint32_t j = hit;
      if (j == count || c->acc[j].addr != blk) {
        for (j = first; j < count && c->acc[j].addr != blk; j++) {
        }
        if (j == count) { /* a new block (32 lanes never fill LDST_MAX_ACCESSES) */
          ldst_access *o = &c->acc[count++];
          o->addr = blk;
          o->byte_mask[0] = o->byte_mask[1] = 0;
          o->lanes = 0;
        }
        hit = j;
      }
      ldst_access *o = &c->acc[j];
      uint32_t lo_b = (uint32_t)(a & (MEM_LINE_BYTES - 1));
      line_bytes(o->byte_mask, lo_b, lo_b + (uint32_t)(e - a));
      o->lanes = (uint8_t)(o->lanes + ((e - a) >> shift));
      if (e == hi) break;
    }
  }
  for (uint32_t j = first; j < count; j++) { /* block base -> the lowest touched sector */
    ldst_access *o = &c->acc[j];
    uint8_t sec = sectors_of_bytes(o->byte_mask);
    o->sector_mask = sec;
    o->addr = line_of(o->addr) + MEM_SECTOR_BYTES * (uint32_t)__builtin_ctz(sec);
    o->size = MEM_SECTOR_BYTES * (uint32_t)simtvp_popcount32(sec);
  }
  *n = count;
  return true;
}

/* The access of `lanes` lanes touching [lo, lo + len) inside one block, appended at *n. */
static inline void block_access(iv_core *c, uint64_t lo, uint32_t len, uint32_t lanes, uint32_t *n) {
  ldst_access *o = &c->acc[(*n)++];
  uint32_t lo_b = (uint32_t)(lo & (MEM_LINE_BYTES - 1));
  o->byte_mask[0] = o->byte_mask[1] = 0;
  line_bytes(o->byte_mask, lo_b, lo_b + len);
  uint8_t sec = sectors_between(lo_b, lo_b + len);
  o->sector_mask = sec;
  o->addr = line_of(lo) + MEM_SECTOR_BYTES * (uint32_t)__builtin_ctz(sec);
  o->size = MEM_SECTOR_BYTES * (uint32_t)simtvp_popcount32(sec);
  o->lanes = (uint8_t)lanes;
}

/* The access of 32 lanes touching [lo, lo + len) inside one block, appended at *n. */
static inline void one_block(iv_core *c, uint64_t lo, uint32_t len, uint32_t *n) { block_access(c, lo, len, 32, n); }

/* A full warp of 4-byte lanes whose halves are each a run of 16 words (func_step.addr_halves),
 * with 128-byte blocks, in the two usual cases: one aligned line (a 1-D block; lane 16 right
 * after lane 15) — one access of its four sectors — or two rows each inside its own block (a 2-D
 * block 16 threads wide) — two accesses in lane order. full_warp's accesses, appended at *n
 * (0); false (nothing appended) for anything else. */
static inline bool halves_to_accesses(iv_core *c, const uint64_t *x, uint32_t *n) {
  const uint64_t lo = x[0], lo1 = x[16], bmask = ~(uint64_t)(MEM_LINE_BYTES - 1);
  if (lo1 == lo + 64) {
    if (lo & (MEM_LINE_BYTES - 1)) return false;
    ldst_access *o = &c->acc[(*n)++];
    o->addr = lo;
    o->byte_mask[0] = o->byte_mask[1] = ~0ull;
    o->size = MEM_LINE_BYTES;
    o->sector_mask = 0xf;
    o->lanes = 32;
    return true;
  }
  if ((lo & 3u) || (lo1 & 3u) || (lo & bmask) != ((lo + 63) & bmask) || (lo1 & bmask) != ((lo1 + 63) & bmask) ||
      (lo & bmask) == (lo1 & bmask))
    return false;
  block_access(c, lo, 64, 16, n);
  block_access(c, lo1, 64, 16, n);
  return true;
}

/* A full warp (every lane active, addresses x + off) in one of the usual shapes — one address
 * for every lane, or rows of runs (row_width) — coalesced directly: true with the accesses
 * appended at *n; false (nothing appended) for any other shape, which gather and coalesce take.
 * One address, or one run inside one block (a 1-D block's aligned load: the most common access),
 * is one access built at once. `halves` is the record's func_step.addr_halves for x: both halves
 * 16 consecutive words (one word) with lane 16 right after lane 15 (at lane 0) is the one run (one
 * address) without the lane scan. */
static bool full_warp(iv_core *c, const uint64_t *x, uint8_t halves, uint64_t off, uint32_t bytes, uint32_t block,
                      uint32_t *n) {
  if ((bytes & (bytes - 1)) || bytes > block) return false;
  const uint64_t x0 = x[0], lo = x0 + off, bmask = ~(uint64_t)(block - 1);
  if (lo & (bytes - 1)) return false;
  if (x[1] == x0 + bytes && x[31] == x0 + 31ull * bytes) { /* one run (a 1-D block) */
    bool known = halves == (FUNC_HALF_CONTIG | FUNC_HALF_CONTIG << 2) && bytes == 4 && x[16] == x0 + 64;
    if (!known && warp_run_misses(x, x0, bytes)) return false;
    if ((lo & bmask) != ((lo + 32ull * bytes - 1) & bmask)) /* more than one block */
      return runs_to_accesses(c, x, 32, 1, off, bytes, block, n);
    one_block(c, lo, 32u * bytes, n);
    return true;
  }
  if (x[1] == x0) { /* one address: one lane's block, every lane's operations */
    bool known = halves == (FUNC_HALF_UNIFORM | FUNC_HALF_UNIFORM << 2) && x[16] == x0;
    if (!known && warp_run_misses(x, x0, 0)) return false;
    one_block(c, lo, bytes, n);
    return true;
  }
  if (x[1] != x0 + bytes) return false;
  if (halves == (FUNC_HALF_CONTIG | FUNC_HALF_CONTIG << 2) && bytes == 4) {
    /* two rows of 16 words (a 2-D block 16 threads wide: SGEMM's tiles), known from the record
     * without the lane scan; when each row lies in one block and the blocks differ, the rows are
     * the two accesses in lane order, as runs_to_accesses builds them */
    uint64_t lo1 = x[16] + off;
    if ((lo & bmask) == ((lo + 63) & bmask) && (lo1 & bmask) == ((lo1 + 63) & bmask) &&
        (lo & bmask) != (lo1 & bmask) && !(lo1 & 3u)) {
      block_access(c, lo, 64, 16, n);
      block_access(c, lo1, 64, 16, n);
      return true;
    }
    return runs_to_accesses(c, x, 16, 2, off, bytes, block, n);
  }
  uint32_t w = row_width(x, bytes);
  return w && runs_to_accesses(c, x, w, 32 / w, off, bytes, block, n);
}

/* Gathers the lanes of `mask` into c->ranges (addresses + pbase for param lanes in pmask), and
 * their shape: one address, or one span (active lane i at a0 + i × bytes). A warp with every lane
 * active in one space is first checked for those shapes in one pass without gathering (the
 * coalescer then needs only the first lane). */
static ldst_shape gather(iv_core *c, const func_step *st, uint32_t mask, uint32_t pmask, uint64_t pbase,
                          uint32_t bytes, uint32_t *k) {
  if (mask == ~0u && (pmask == 0 || pmask == ~0u)) {
    const uint64_t *x = st->addr, a0 = x[0];
    uint64_t nu0 = 0, nu1 = 0, ns0 = 0, ns1 = 0;
    for (uint32_t i = 0; i < 32; i += 2) {
      nu0 |= x[i] ^ a0;
      nu1 |= x[i + 1] ^ a0;
      ns0 |= x[i] ^ (a0 + (uint64_t)i * bytes);
      ns1 |= x[i + 1] ^ (a0 + (uint64_t)(i + 1) * bytes);
    }
    if (!(nu0 | nu1) || !(ns0 | ns1)) {
      c->ranges[0] = (ldst_range){a0 + (pmask ? pbase : 0), bytes, 0};
      *k = 32;
      return !(nu0 | nu1) ? LDST_SHAPE_UNIFORM : LDST_SHAPE_SPAN;
    }
  }
  uint64_t a0 = 0, not_span = 0, not_uniform = 0;
  uint32_t n = 0;
  for (uint32_t l = mask; l; l &= l - 1) {
    uint32_t lane = (uint32_t)__builtin_ctz(l);
    uint64_t a = st->addr[lane] + ((pmask >> lane & 1u) ? pbase : 0);
    if (!n) a0 = a;
    not_span |= a ^ (a0 + (uint64_t)n * bytes);
    not_uniform |= a ^ a0;
    c->ranges[n++] = (ldst_range){a, bytes, lane};
  }
  *k = n;
  return n < 2 ? LDST_SHAPE_ANY : !not_uniform ? LDST_SHAPE_UNIFORM : !not_span ? LDST_SHAPE_SPAN : LDST_SHAPE_ANY;
}

/* The accesses of st's lanes `mask` (param lanes `pmask` at pbase + their address), appended at
 * n with their kind, path and direction: a full warp in a usual shape directly (full_warp), any
 * other through gather and coalesce. The new count. */
static inline __attribute__((always_inline)) uint32_t
lanes_to_accesses(iv_core *c, const func_step *st, uint32_t mask, uint32_t pmask, uint64_t pbase, uint32_t bytes,
                  uint32_t block, bool gt200, uint8_t kind, uint8_t path, bool write, uint32_t n) {
  uint32_t first = n;
  if (mask == ~0u && (pmask == 0 || pmask == ~0u) && !gt200 &&
      full_warp(c, st->addr, st->addr_halves, pmask ? pbase : 0, bytes, block, &n)) {
    for (uint32_t i = first; i < n; i++) {
      c->acc[i].kind = kind;
      c->acc[i].path = path;
      c->acc[i].is_write = write;
    }
    return n;
  }
  uint32_t k;
  ldst_shape span = gather(c, st, mask, pmask, pbase, bytes, &k);
  return coalesce(c, k, span, block, bytes, gt200, kind, path, write, n);
}

/* smem_cost's miss: ldst_smem_cost_of, then remembered for the pc (kept out of the hit path). */
static __attribute__((noinline)) ldst_smem_cost smem_cost_scan(iv_core *c, iv_smem_memo *e, const iv_warp *w,
                                                               uint32_t pc, const func_step *st, uint32_t mask,
                                                               uint32_t bytes, bool atomic, uint64_t a0) {
  ldst_smem_cost cost;
  ldst_smem_cost_of(&c->smem_geo, mask, st->addr, bytes, atomic, c->bank_count, &cost);
  e->prog = w->prog;
  e->pc = pc;
  e->mask = mask;
  e->bytes = bytes;
  e->atomic = atomic;
  e->a0 = a0;
  e->halves = st->addr_halves;
  e->d16 = st->addr[16] - st->addr[0];
  for (uint32_t l = 0; l < 32; l++) e->off[l] = (mask >> l & 1u) ? st->addr[l] - a0 : 0;
  e->cost = cost;
  return cost;
}

/* Shared-memory cost of st's lanes `mask`: ldst_smem_cost_of's answer, remembered per pc. A bank
 * conflict between two lanes depends only on the difference of their addresses (same bank,
 * different word), so a warp whose lanes sit at the same offsets from its first active lane as
 * the last warp at this pc costs what it did (the usual case: warps of a tile differ by a row);
 * only then is the scan of every phase saved (docs/simt-interval.md §4). */
static inline __attribute__((always_inline)) ldst_smem_cost smem_cost(iv_core *c, const iv_warp *w, uint32_t pc,
                                                                      const func_step *st, uint32_t mask,
                                                                      uint32_t bytes, bool atomic) {
  iv_smem_memo *e = &c->smem_memo[pc % IV_SMEM_MEMO];
  uint64_t a0 = st->addr[__builtin_ctz(mask)];
  bool same = e->prog == w->prog && e->pc == pc && e->mask == mask && e->bytes == bytes && e->atomic == atomic &&
              ((e->a0 ^ a0) & ((1u << c->smem_geo.word_shift) - 1u)) == 0; /* words start alike */
  if (same) {
    uint64_t d = 0;
    if (st->addr_halves && st->addr_halves == e->halves) {
      /* both records' half-warp patterns (func_step.addr_halves: a full warp, each half one word
       * or 16 consecutive words from its first lane) are the same: every lane's offset from lane
       * 0 follows from the pattern and lane 16's offset, so comparing that one offset is the
       * lane scan's answer */
      d = (st->addr[16] - a0) ^ e->d16;
    } else if (mask == ~0u) {
      d = offset_misses(st->addr, a0, e->off);
    } else {
      for (uint32_t l = mask; l; l &= l - 1) {
        uint32_t i = (uint32_t)__builtin_ctz(l);
        d |= (st->addr[i] - a0) ^ e->off[i];
      }
    }
    if (!d) return e->cost;
  }
  return smem_cost_scan(c, e, w, pc, st, mask, bytes, atomic, a0);
}

/* Shared-memory lanes `mask` of st, entering the memory stage at m: their bank phases on the
 * shared-memory pipeline from m + 1; *held and *done at least its last phase (a load's data
 * -gpgpu_smem_latency later). */
static inline __attribute__((always_inline)) void smem_stage(iv_core *c, uint32_t slot, const func_step *st,
                                                             uint32_t mask, uint32_t bytes, bool load, uint64_t m,
                                                             uint64_t *held, uint64_t *done) {
  ldst_smem_cost cost = smem_cost(c, &c->warps[slot], st->pc, st, mask, bytes, st->is_atomic);
  *c->smem_conflicts += cost.cycles - cost.phases;
  uint64_t start = iv_bins_take(&c->smem, m + 1, cost.cycles), end = start + cost.cycles - 1;
  *held = iv_max(*held, end);
  *done = iv_max(*done, load ? end + c->base.cfg.ldst.smem_latency : end);
}

/* -interval_runs (docs/simt-interval.md §11): the pipeline cost of shared access st (a full
 * record, func_step_fill_addr done) as the memory stage would find it, from the pc's memo or a
 * scan; nothing booked or counted. */
ldst_smem_cost iv_mem_smem_cost(iv_core *c, uint32_t slot, const func_step *st) {
  ldst_smem_cost none = {1, 1, 1};
  if (!st->mem_mask) return none;
  return smem_cost(c, &c->warps[slot], st->pc, st, st->mem_mask, st->access_bytes ? st->access_bytes : 4,
                   st->is_atomic);
}

/* The one access of a load whose lanes all read [a, a + bytes) inside one line, as the sector
 * rule makes it (ldst_coalesce_blocks on one lane, the operations of every lane). */
static bool one_access(iv_core *c, uint64_t a, uint32_t bytes, uint32_t lanes, uint8_t kind, uint8_t path) {
  uint32_t lo = (uint32_t)(a & (MEM_LINE_BYTES - 1)), hi = lo + bytes;
  if (!bytes || hi > MEM_LINE_BYTES) return false;
  ldst_access *x = &c->acc[0];
  uint32_t s0 = lo / MEM_SECTOR_BYTES, s1 = (hi - 1) / MEM_SECTOR_BYTES;
  x->addr = (a & ~(uint64_t)(MEM_LINE_BYTES - 1)) + (uint64_t)s0 * MEM_SECTOR_BYTES;
  x->size = (s1 - s0 + 1) * MEM_SECTOR_BYTES;
  x->sector_mask = (uint8_t)(((1u << (s1 + 1)) - 1u) & ~((1u << s0) - 1u));
  x->byte_mask[0] = x->byte_mask[1] = 0;
  line_bytes(x->byte_mask, lo, hi);
  x->kind = kind;
  x->path = path;
  x->is_write = 0;
  x->lanes = (uint8_t)(lanes > 255 ? 255 : lanes);
  return true;
}

/* An instruction that took the memory-stage slot at m held it until held, past m's bin (an access
 * that failed to merge waited there for its fill, c->hold, which is cleared): the later bins'
 * cycles booked too (m's bin took its share, at most a bin's, as every instruction's does). */
static __attribute__((noinline)) void dispatch_hold(iv_core *c, uint64_t m, uint64_t held) {
  for (uint64_t b = (m / IV_BIN + 1) * IV_BIN; b < held; b += IV_BIN)
    iv_bins_book(&c->dispatch, b, (uint32_t)iv_min(IV_BIN, held - b));
  c->hold = 0;
}

/* iv_mem_issue of any instruction but a shared-memory-only one. */
static __attribute__((noinline)) uint64_t issue_accesses(iv_core *c, uint32_t slot, const func_step *st, bool uniform,
                                                         uint64_t m) {
  bool load = st->is_load || st->is_atomic;
  uint32_t bytes = st->access_bytes ? st->access_bytes : 4;
  uint32_t *slot_used;
  m = iv_dispatch_find(c, m, &slot_used); /* a free slot of the memory stage */
  uint64_t m0 = m, held = m + 1;
  uint64_t done = m + 1;
  const simt_ldst_config *lc = &c->base.cfg.ldst;
  bool atomic = st->is_atomic, store = st->is_store && !load;
  /* what carries data toward memory, as the CA LDST unit sends it: stores and reductions (an
   * atomic without a result); an atomic with one is a request for data, its reply the data */
  const bool writes = atomic ? !st->is_load : store;
  bool gt200 = lc->coalesce_arch == 13;
  simt_space_masks sm;
  uint32_t n = 0, k;
  if (uniform && load && !atomic && st->mem_mask && !gt200 &&
      (st->space == PTX_SPACE_PARAM || st->space == PTX_SPACE_CONST)) {
    /* a kernel parameter or constant every lane reads at one address: one access, no gathering */
    uint64_t a = st->addr[__builtin_ctz(st->mem_mask)] + (st->space == PTX_SPACE_PARAM ? c->param_of[slot] : 0);
    if (one_access(c, a, bytes, (uint32_t)simtvp_popcount32(st->mem_mask), MEM_ACC_CONST_R,
                   c->l1c ? LDST_PATH_L1C : LDST_PATH_BYPASS)) {
      n = 1;
      goto accesses;
    }
  }
  if (st->space == PTX_SPACE_GLOBAL && st->mem_mask == ~0u && !atomic && !gt200 && bytes == 4 &&
      st->addr_halves == (FUNC_HALF_CONTIG | FUNC_HALF_CONTIG << 2) && c->l1d_block == MEM_LINE_BYTES &&
      !simt_texture_op(st) && halves_to_accesses(c, st->addr, &n)) {
    /* a full warp's words whose halves are runs (known from the record): one line or two rows,
     * without the space split; tagged as the global branch below tags them */
    uint8_t kind = store ? MEM_ACC_GLOBAL_W : MEM_ACC_GLOBAL_R;
    uint8_t path = (!c->l1d || lc->gmem_skip_l1d || (load && ldst_load_bypasses_l1(st->insn))) ? LDST_PATH_BYPASS
                                                                                                : LDST_PATH_L1D;
    for (uint32_t i = 0; i < n; i++) {
      ldst_access *x = &c->acc[i];
      x->kind = kind;
      x->path = path;
      x->is_write = !load;
    }
    goto accesses;
  }
  simt_space_masks_of(st, &sm);
  if (sm.shared) smem_stage(c, slot, st, sm.shared, bytes, load, m, &held, &done);
  if (sm.local) {
    k = ldst_local_warp_ranges(lc->local_base, c->base.cfg.max_threads, slot * c->base.cfg.warp_size, sm.local,
                               st->addr, bytes, c->ranges, LDST_MAX_RANGES);
    uint8_t kind = atomic ? MEM_ACC_ATOMIC : store ? MEM_ACC_LOCAL_W : MEM_ACC_LOCAL_R;
    n = coalesce(c, k, LDST_SHAPE_ANY, c->l1d_block, bytes, gt200, kind, (atomic || !c->l1d) ? LDST_PATH_BYPASS : LDST_PATH_L1D,
                 writes, n);
  }
  if (sm.global) {
    bool l2_only = load && !atomic && ldst_load_bypasses_l1(st->insn); /* as the CA LDST unit */
    uint8_t kind = atomic ? MEM_ACC_ATOMIC : store ? MEM_ACC_GLOBAL_W : MEM_ACC_GLOBAL_R;
    uint8_t path = (atomic || !c->l1d || lc->gmem_skip_l1d || l2_only) ? LDST_PATH_BYPASS : LDST_PATH_L1D;
    n = lanes_to_accesses(c, st, sm.global, 0, 0, bytes, c->l1d_block, gt200, kind, path, writes, n);
  }
  if (sm.konst | sm.param)
    n = lanes_to_accesses(c, st, sm.konst | sm.param, sm.param, c->param_of[slot], bytes, c->l1c_block, false,
                          MEM_ACC_CONST_R, c->l1c ? LDST_PATH_L1C : LDST_PATH_BYPASS, false, n);
  if (sm.tex)
    n = lanes_to_accesses(c, st, sm.tex, 0, 0, bytes, c->l1t_block, false, MEM_ACC_TEXTURE_R,
                          c->l1t ? LDST_PATH_L1T : LDST_PATH_BYPASS, false, n);
accesses:;
  /* the accesses in order, one per cycle through the L1 port (shared by the core's warps); one
   * that fails to merge holds the rest until its fill is in */
  uint64_t a = m;
  for (uint32_t i = 0; i < n; i++) {
    a = iv_bins_take(&c->l1_port, a + 1, 1);
    held = iv_max(held, a);
    const ldst_access *x = &c->acc[i];
    uint64_t d = x->path == LDST_PATH_L1D ? access_on(c, x, a, LDST_PATH_L1D) : access(c, x, a);
    if (d > done) done = d;
    if (__builtin_expect(c->hold > a, 0)) held = a = c->hold;
  }
  /* the slot is free again once the instruction's work is through: held − m0 cycles (≥ 1) */
  if (slot_used) *slot_used += (uint32_t)(held - m0 > IV_BIN ? IV_BIN : held - m0);
  if (__builtin_expect(c->hold != 0, 0)) dispatch_hold(c, m0, held);
  return done;
}

/* issue_accesses of a uniform ld.param / ld.const (issue_accesses's one access, one_access's)
 * when it hits the L1C (the usual case: a kernel's parameters stay there), without issue_accesses's
 * setup or building the access: through the L1 port at the first cycle from the memory-stage slot's
 * + 1 with room, answered as access answers a hit. true with *done; false, nothing booked or
 * counted: issue_accesses (which finds the same memory-stage slot again). */
static inline __attribute__((always_inline)) bool uniform_load(iv_core *c, uint32_t slot, const func_step *st,
                                                               uint64_t m, uint64_t *done) {
  uint64_t a = st->addr[__builtin_ctz(st->mem_mask)] + (st->space == PTX_SPACE_PARAM ? c->param_of[slot] : 0);
  uint32_t bytes = st->access_bytes ? st->access_bytes : 4;
  uint32_t lo = (uint32_t)(a & (MEM_LINE_BYTES - 1)), hi = lo + bytes;
  if (hi > MEM_LINE_BYTES) return false;
  uint32_t *slot_used, *port;
  m = iv_dispatch_find(c, m, &slot_used); /* a free slot of the memory stage */
  uint64_t ready, line, at = iv_bins_find_slot(&c->l1_port, m + 1, 1, &port); /* booked there on a hit */
  /* [a, a + bytes) itself: one_access's sectors are the ones those bytes cover, which the cache
   * works out only when it is sectored (an L1C seldom is) */
  cache_status hit = cache_timed_read_hit(c->l1c, a, bytes, 0, MEM_ACC_CONST_R, at, &ready, &line);
  if (hit == CACHE_MISS) return false;
  if (port) ++*port; /* iv_bins_book(&c->l1_port, at, 1) */
  simt_mem_count_request(&c->ms.req, MEM_ACC_CONST_R);
  uint64_t d = at + c->base.cfg.ldst.l1c_latency, held = at; /* held: the port's cycle, or the fill's */
  if (hit == CACHE_HIT_RESERVED && ready != CACHE_NEVER) { /* an MSHR hit: the data with the fill */
    d = pending_read(c, &c->fills[1], line, chunks_of(&c->fills[1], (uint8_t)sectors_between(lo, hi)), at, ready,
                     c->base.cfg.ldst.l1c_latency);
    if (c->hold) held = c->hold; /* (the entry was full) */
  }
  if (slot_used) *slot_used += (uint32_t)(held - m > IV_BIN ? IV_BIN : held - m);
  if (__builtin_expect(held != at, 0)) dispatch_hold(c, m, held);
  *done = d;
  return true;
}

/* iv_mem_issue of an instruction that touches shared memory only (most memory instructions of a
 * tiled kernel, those iv_mem_shared_fast leaves): its bank phases, nothing through the L1 port. */
static __attribute__((noinline)) uint64_t issue_shared(iv_core *c, uint32_t slot, const func_step *st, uint64_t m) {
  uint32_t *slot_used;
  m = iv_dispatch_find(c, m, &slot_used); /* a free slot of the memory stage */
  uint64_t held = m + 1, done = m + 1;
  if (st->mem_mask) smem_stage(c, slot, st, st->mem_mask, st->access_bytes ? st->access_bytes : 4,
                               st->is_load || st->is_atomic, m, &held, &done);
  if (slot_used) *slot_used += (uint32_t)(held - m > IV_BIN ? IV_BIN : held - m);
  return done;
}

/* A uniform load's L1C hit is timed here (uniform_load inlined: no second call); anything else
 * goes on to issue_shared or issue_accesses. */
uint64_t iv_mem_issue(iv_core *c, uint32_t slot, const func_step *st, bool uniform, uint64_t m) {
  if ((st->space == PTX_SPACE_SHARED || st->space == PTX_SPACE_SHARED_CLUSTER) && !simt_texture_op(st))
    return issue_shared(c, slot, st, m);
  if (!(uniform && c->l1c && st->is_load && !st->is_atomic && st->mem_mask &&
        (st->space == PTX_SPACE_PARAM || st->space == PTX_SPACE_CONST) && c->base.cfg.ldst.coalesce_arch != 13))
    return issue_accesses(c, slot, st, uniform, m);
  uint64_t done;
  if (uniform_load(c, slot, st, m, &done)) return done;
  return issue_accesses(c, slot, st, uniform, m);
}

/* iv_mem_fetch of a line the L1I does not hold whole: the full lookup, a miss filled through the
 * port (out of line: the usual hit makes no call but the cache's). */
static __attribute__((noinline)) uint64_t fetch_miss(iv_core *c, iv_warp *w, uint64_t addr, uint64_t t) {
  mem_req *q = req_scratch(c);
  q->addr = addr;
  q->size = FUNC_INSN_BYTES;
  q->kind = MEM_ACC_INST_R;
  q->is_write = false;
  q->sector_mask = 0;
  q->byte_mask[0] = q->byte_mask[1] = 0;
  cache_timed_result r;
  cache_timed_access(c->base.l1i, q, t, &r);
  if (r.status == CACHE_HIT) return t;
  if (r.status == CACHE_HIT_RESERVED) return r.ready != CACHE_NEVER ? iv_max(t, r.ready) : t;
  uint64_t back = beyond_l1(c, r.fetch ? r.line : q->addr, r.fetch ? cache_line_sectors(c->base.l1i, r.line, r.fetch) : 1,
                            NULL, MEM_ACC_INST_R, false, 0, t + 1);
  if (r.fetch) cache_timed_fill(c->base.l1i, r.line, r.fetch, back);
  else w->line = 0; /* no L1I: every new line fetches again */
  return back;
}

uint64_t iv_mem_fetch(iv_core *c, iv_warp *w, const iv_pc *p, uint64_t t) {
  w->line = p->l1i_line;
  uint64_t addr = (p->l1i_line - 1) * c->base.l1i_line, ready, line;
  /* the usual case, a line the CTA's warps fetched before: its hit without a request */
  cache_status hit = cache_timed_read_hit(c->base.l1i, addr, FUNC_INSN_BYTES, 0, MEM_ACC_INST_R, t, &ready, &line);
  if (hit == CACHE_HIT) return t;
  if (hit == CACHE_HIT_RESERVED) return ready != CACHE_NEVER ? iv_max(t, ready) : t;
  return fetch_miss(c, w, addr, t);
}

typedef struct flush_ctx {
  iv_core *c;
  uint64_t now;
} flush_ctx;

static void flush_write_back(void *ctx, uint64_t line, uint8_t chunks) {
  flush_ctx *f = ctx;
  beyond_l1(f->c, line, cache_line_sectors(f->c->l1d, line, chunks), NULL, MEM_ACC_L1_WRBK, true, 0, f->now);
}

/* -gpgpu_flush_l1_cache at a kernel boundary: dirty lines written back, the L1D emptied. */
uint32_t iv_mem_flush(iv_core *c, uint64_t now) {
  if (!c->l1d) return 0;
  flush_ctx f = {c, now};
  return cache_timed_flush(c->l1d, flush_write_back, &f);
}

/* ---- setup ---------------------------------------------------------------------------------- */

static simtvp_status make_cache(iv_core *c, cache **out, const char *text, const char *option, const char *group,
                                const char *alias, uint32_t *block, simtvp_diag *diag) {
  cache_spec spec;
  simtvp_status st = simt_base_make_timed_l1(&c->base, out, text, option, group, alias, block, &spec, diag);
  if (st != SIMTVP_OK || !*out) return st;
  /* its table of fills in flight */
  iv_fills *t = &c->fills[out == &c->l1d ? 0 : out == &c->l1c ? 1 : 2];
  uint64_t lines = (uint64_t)spec.n_sets * spec.assoc, n = 1;
  while (n < lines && n < (1u << 20)) n <<= 1;
  t->e = simtvp_zalloc(n * sizeof *t->e); /* zeroed pages: a short kernel touches few */
  t->mask = (uint32_t)n - 1;
  /* (a texture cache's F/T MSHR is a request FIFO: no merge limit here) */
  bool fifo = spec.mshr_type == CACHE_MSHR_TEX_FIFO || spec.mshr_type == CACHE_MSHR_SECTOR_TEX_FIFO;
  t->max_merge = spec.mshr_max_merge && !fifo ? spec.mshr_max_merge : UINT32_MAX;
  t->sector = spec.type == CACHE_TYPE_SECTOR;
  if (!t->e) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", c->base.cfg.sm);
  if (out == &c->l1d) c->l1d_port_bytes = spec.data_port_bytes ? spec.data_port_bytes : spec.line_bytes;
  return st;
}

static uint64_t *counter(iv_core *c, const char *name, const char *desc) {
  return simt_base_counter(&c->base, name, "requests", desc);
}

simtvp_status iv_mem_init(iv_core *c, simtvp_diag *diag) {
  const simt_ldst_config *lc = &c->base.cfg.ldst;
  iv_mem_stats *s = &c->ms;
  simt_base_mem_counters(&c->base, &s->req);
  s->port_requests = counter(c, "interval_mem_requests",
                             "accesses interval SIMT cores sent beyond their L1 (fills, forwarded writes, "
                             "write-backs, accesses around the L1)");
  s->reordered = counter(c, "interval_l1_reordered_fills",
                         "L1 pending hits (or pending parts of misses) of interval SIMT cores earlier in time "
                         "than the miss that fetched their line: they waited that miss's latency from their own time");
  s->merge_fail = counter(c, "interval_l1_mshr_merge_fails",
                          "L1 reads of interval SIMT cores that found the MSHR entry of their line's fill full "
                          "(its merge limit): they held the memory stage until the fill was in, then hit");
  simtvp_status st = make_cache(c, &c->l1d, lc->l1d, "-gpgpu_cache:dl1", "L1D", "dl1", &c->l1d_block, diag);
  if (st == SIMTVP_OK) st = make_cache(c, &c->l1c, lc->l1c, "-gpgpu_const_cache:l1", "L1C", NULL, &c->l1c_block, diag);
  if (st == SIMTVP_OK) st = make_cache(c, &c->l1t, lc->l1t, "-gpgpu_tex_cache:l1", "L1T", NULL, &c->l1t_block, diag);
  if (st != SIMTVP_OK) return st;
  c->smem_geo = (ldst_smem_geometry){lc->smem_banks ? lc->smem_banks : 32u, lc->smem_bank_bytes ? lc->smem_bank_bytes : 4u,
                                     c->base.cfg.warp_size, lc->smem_warp_parts > 0 ? (uint32_t)lc->smem_warp_parts : 1u,
                                     lc->smem_limited_broadcast, 0, 0, false};
  ldst_smem_geometry_init(&c->smem_geo);
  c->l1_port.cap = IV_BIN * (lc->l1d_banks ? lc->l1d_banks : 1u); /* one access per bank and cycle */
  /* as the CA LDST unit (try_access): a single-bank L1D waits for its data port, a banked one
   * only for its banks */
  c->l1d_data_port = lc->l1d_banks <= 1;
  c->smem.cap = IV_BIN;
  c->data_port.cap = c->fill_port.cap = c->response.cap = IV_BIN;
  c->miss_queue.cap = IV_BIN;
  c->dispatch.cap = IV_BIN * (lc->mem_unit_ports > 0 ? (uint32_t)lc->mem_unit_ports : 1u);
  if (!c->l1d_port_bytes) c->l1d_port_bytes = MEM_LINE_BYTES;
  c->bank_count = calloc(c->smem_geo.banks, sizeof *c->bank_count);
  c->param_of = calloc(c->base.cfg.max_warps, sizeof *c->param_of);
  c->ranges = calloc(LDST_MAX_RANGES, sizeof *c->ranges);
  c->acc = calloc(1, LDST_MAX_ACCESSES * sizeof *c->acc + sizeof(mem_req)); /* + req_scratch */
  if (!c->bank_count || !c->param_of || !c->ranges || !c->acc)
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", c->base.cfg.sm);
  return SIMTVP_OK;
}

void iv_mem_free(iv_core *c) {
  if (c->l1d) cache_destroy(c->l1d);
  if (c->l1c) cache_destroy(c->l1c);
  if (c->l1t) cache_destroy(c->l1t);
  for (int i = 0; i < 3; ++i) simtvp_zfree(c->fills[i].e);
  free(c->bank_count);
  free(c->param_of);
  free(c->ranges);
  free(c->acc);
}
