/* ldst_coalesce — the address arithmetic of the load/store unit, free of timing state:
 *   - shared-memory bank conflicts (GPGPU-Sim 3.x manual §2.2 "shared memory"; CUDA Programming
 *     Guide, compute capabilities 1.x and 2.x+ "Shared Memory": broadcast of a word read by several
 *     threads, 64-bit accesses in half-warp and 128-bit accesses in quarter-warp phases);
 *   - the interleaved local-memory layout (-gpgpu_local_mem_map);
 *   - the two coalescing rules: compute capability 1.2/1.3 segments (-gpgpu_coalesce_arch 13) and
 *     the sector rule of later parts (GPGPU-Sim 4.x: 128-byte lines, 32-byte sectors).
 * Nothing here allocates; every bound is a compile-time constant of ldst_internal.h. */
#include "simtvp_bits.h"
#include "ldst_coalesce.h"

#include <string.h>

static inline uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }
static inline uint32_t max_u32(uint32_t a, uint32_t b) { return a > b ? a : b; }

/* ---- shared memory -------------------------------------------------------------------------- */

void ldst_smem_geometry_init(ldst_smem_geometry *g) {
  uint32_t wb = g->bank_bytes ? g->bank_bytes : 1;
  g->word_shift = 0;
  while ((1u << g->word_shift) < wb) g->word_shift++;
  g->banks_pow2 = g->banks && !(g->banks & (g->banks - 1));
  g->bank_mask = g->banks_pow2 ? g->banks - 1 : 0;
}

static inline uint32_t bank_of_word(const ldst_smem_geometry *g, uint64_t word) {
  return g->banks_pow2 ? (uint32_t)(word & g->bank_mask) : (uint32_t)(word % g->banks);
}

/* Distinct-word conflict degree of one phase: the most words any bank must deliver. Lanes that
 * read the same word share it (broadcast); with limited broadcast (compute capability 1.x) only
 * one word per step is shared and every other bank serves one request per step, so the degree is
 * the number of such steps. Atomics never share: every lane's word is a separate bank access. */
static uint32_t phase_degree(const ldst_smem_geometry *g, const uint64_t *words, uint32_t n,
                             bool atomic, uint16_t *bank_count) {
  uint32_t degree = 0;
  if (atomic || !g->limited_broadcast) {
    /* per bank, a chain of the distinct words it must deliver (bank_count holds the chain head,
     * item index + 1): a conflict-free access costs one comparison per lane */
    uint16_t next[LDST_MAX_RANGES], len[LDST_MAX_RANGES];
    for (uint32_t i = 0; i < n; i++) {
      uint32_t b = bank_of_word(g, words[i]);
      uint16_t h = bank_count[b];
      bool known = false;
      if (!atomic)
        for (uint16_t j = h; j && !known; j = next[j - 1]) known = words[j - 1] == words[i];
      if (known) continue;
      next[i] = h;
      len[i] = (uint16_t)((h ? len[h - 1] : 0) + 1);
      bank_count[b] = (uint16_t)(i + 1);
      if (len[i] > degree) degree = len[i];
    }
    for (uint32_t i = 0; i < n; i++) bank_count[bank_of_word(g, words[i])] = 0;
    return degree;
  }
  /* limited broadcast: the step procedure of the CUDA Programming Guide (compute capability
   * 1.x): pick the first remaining word as the broadcast word, serve every request for it, and
   * one request in each other bank; repeat until every request is served */
  bool served[LDST_MAX_RANGES];
  uint32_t taken[LDST_MAX_RANGES];
  memset(served, 0, n * sizeof *served);
  uint32_t left = n;
  while (left) {
    degree++;
    uint32_t first = 0;
    while (served[first]) first++;
    uint64_t bw = words[first];
    uint32_t bb = bank_of_word(g, bw);
    uint32_t nt = 0;
    for (uint32_t k = first; k < n; k++) {
      if (served[k]) continue;
      uint32_t b = bank_of_word(g, words[k]);
      if (words[k] == bw) {
        served[k] = true;
        left--;
      } else if (b != bb && !bank_count[b]) {
        bank_count[b] = 1;
        taken[nt++] = b;
        served[k] = true;
        left--;
      }
    }
    for (uint32_t i = 0; i < nt; i++) bank_count[taken[i]] = 0;
  }
  return degree;
}

/* The lanes of `mask` each touch one word (word = addr >> shift, bank = word & bank_mask, at most
 * 64 banks) and no bank must deliver two different words (atomics: two words at all): the phase
 * is conflict-free. false also when a lane's bytes span two words (the general count decides). */
static bool one_word_conflict_free(const uint64_t *addr, uint32_t mask, uint32_t shift, uint32_t bank_mask,
                                   uint32_t lane_bytes, bool atomic) {
  uint64_t used = 0, first_word[64];
  const uint64_t span = lane_bytes - 1;
  for (uint32_t m = mask; m; m &= m - 1) {
    uint64_t a = addr[__builtin_ctz(m)];
    uint64_t w = a >> shift;
    if (((a + span) >> shift) != w) return false;
    uint32_t b = (uint32_t)w & bank_mask;
    uint64_t bit = 1ull << b;
    if (used & bit) {
      if (atomic || first_word[b] != w) return false;
    } else {
      used |= bit;
      first_word[b] = w;
    }
  }
  return true;
}

void ldst_smem_cost_of(const ldst_smem_geometry *g, uint32_t mask, const uint64_t *addr,
                       uint32_t bytes, bool atomic, uint16_t *bank_count, ldst_smem_cost *out) {
  uint32_t wb = g->bank_bytes;
  uint32_t lane_bytes = max_u32(bytes, 1);
  /* a phase moves at most one word per bank: wide accesses take fewer lanes per phase
   * (64-bit: half a warp, 128-bit: a quarter with 32 banks of 4 bytes) */
  uint32_t part = max_u32(g->warp_size / g->warp_parts, 1);
  uint32_t width = max_u32((g->banks * wb) / max_u32(lane_bytes, wb), 1);
  uint32_t per_phase = min_u32(part, width);
  out->cycles = out->phases = out->degree = 0;
  const uint32_t shift = g->word_shift;
  /* one word per lane and at most 64 banks (the usual case): a phase is conflict-free when no
   * bank is asked for two different words (atomics: for two words at all), found with a bank
   * mask; otherwise, or in general, the per-bank word chains of phase_degree */
  const bool one_word = lane_bytes <= wb && g->banks_pow2 && g->banks <= 64 && !g->limited_broadcast;
  for (uint32_t first = 0; first < g->warp_size; first += per_phase) {
    uint64_t words[LDST_MAX_RANGES];
    uint32_t n = 0;
    uint32_t last = min_u32(first + per_phase, g->warp_size);
    uint32_t lanes = mask & ((last - first >= 32 ? ~0u : ((1u << (last - first)) - 1u)) << first);
    if (!lanes) continue;
    uint32_t d = 0;
    if (one_word && one_word_conflict_free(addr, lanes, shift, g->bank_mask, lane_bytes, atomic)) d = 1;
    if (!d) {
      for (uint32_t m = lanes; m; m &= m - 1) {
        uint32_t lane = (uint32_t)__builtin_ctz(m);
        uint64_t w0 = addr[lane] >> shift, w1 = (addr[lane] + lane_bytes - 1) >> shift;
        for (uint64_t w = w0; w <= w1 && n < LDST_MAX_RANGES; w++) words[n++] = w;
      }
      d = phase_degree(g, words, n, atomic, bank_count);
    }
    out->phases++;
    out->cycles += d;
    out->degree = max_u32(out->degree, d);
  }
  if (!out->phases) { /* no lane accessed memory: the instruction still passes the stage once */
    out->cycles = out->phases = out->degree = 1;
  }
}

/* ---- local memory --------------------------------------------------------------------------- */

uint32_t ldst_local_ranges(uint64_t base, uint32_t max_threads, uint32_t thread, uint32_t lane,
                           uint64_t offset, uint32_t bytes, ldst_range *out, uint32_t n,
                           uint32_t cap) {
  uint64_t pos = offset, end = offset + max_u32(bytes, 1);
  while (pos < end && n < cap) {
    uint64_t word = pos / 4;
    uint64_t word_end = (word + 1) * 4 < end ? (word + 1) * 4 : end;
    out[n].addr = base + (word * max_threads + thread) * 4 + (pos & 3u);
    out[n].bytes = (uint32_t)(word_end - pos);
    out[n].lane = lane;
    n++;
    pos = word_end;
  }
  return n;
}

/* ---- coalescing ----------------------------------------------------------------------------- */

/* Bytes [lo, hi) of a 128-byte line into a mem_req byte mask. */
static inline void mask_bytes(uint64_t m[2], uint32_t lo, uint32_t hi) {
  uint32_t len = hi - lo;
  if (lo < hi && (lo & 63u) + len <= 64u) { /* within one 64-byte half (every aligned word) */
    m[lo >> 6] |= (len == 64 ? ~0ull : ((1ull << len) - 1)) << (lo & 63u);
    return;
  }
  for (uint32_t half = 0; half < 2; half++) {
    uint32_t a = max_u32(lo, half * 64), b = min_u32(hi, half * 64 + 64);
    if (a >= b) continue;
    uint32_t len = b - a;
    uint64_t bits = len == 64 ? ~0ull : ((1ull << len) - 1);
    m[half] |= bits << (a - half * 64);
  }
}

static uint8_t sectors_of(const uint64_t m[2]) {
  uint8_t s = 0;
  for (uint32_t i = 0; i < MEM_SECTORS_PER_LINE; i++) {
    uint64_t part = (m[i / 2] >> ((i % 2) * 32)) & 0xffffffffull;
    if (part) s |= (uint8_t)(1u << i);
  }
  return s;
}

/* Lanes in order, each touching `bytes` right after the previous one's (a fully coalesced access). */
static bool contiguous(const ldst_range *r, uint32_t n) {
  uint64_t a = r[0].addr, b = r[0].bytes, bad = b == 0;
  for (uint32_t i = 1; i < n; i++) bad |= (r[i].addr ^ (a + i * b)) | (r[i].bytes ^ b);
  return !bad;
}

/* Every lane touches the same bytes (a uniform address: parameters, broadcasts). The lane-by-lane
 * rule adds nothing after the first such lane, so its blocks are the first lane's. */
static bool uniform(const ldst_range *r, uint32_t n) {
  uint64_t a = r[0].addr, bad = 0;
  uint32_t b = r[0].bytes;
  for (uint32_t i = 1; i < n; i++) bad |= (r[i].addr ^ a) | (r[i].bytes ^ b);
  return !bad;
}

/* The blocks of one span of n_lanes lanes, `bytes` each from lo on, in order; false at cap. */
static bool span_blocks(uint64_t lo, uint32_t n_lanes, uint32_t bytes, uint32_t block_bytes, ldst_access *out,
                        uint32_t *count, uint32_t cap) {
  uint64_t bmask = ~(uint64_t)(block_bytes - 1), hi = lo + (uint64_t)n_lanes * bytes;
  for (uint64_t block = lo & bmask; block < hi; block += block_bytes) {
    if (*count == cap) return false;
    uint64_t a = lo > block ? lo : block, e = hi < block + block_bytes ? hi : block + block_bytes;
    ldst_access *o = &out[(*count)++];
    memset(o, 0, sizeof *o);
    o->addr = block;
    uint32_t off = (uint32_t)(a & (MEM_LINE_BYTES - 1));
    mask_bytes(o->byte_mask, off, off + (uint32_t)(e - a));
    o->lanes = (uint8_t)((e - a + bytes - 1) / (bytes ? bytes : 1));
  }
  return true;
}

/* Block bases -> the lowest touched sector, with the sectors and their size. */
static void finish_blocks(ldst_access *out, uint32_t start, uint32_t count) {
  for (uint32_t j = start; j < count; j++) {
    uint8_t s = sectors_of(out[j].byte_mask);
    out[j].sector_mask = s;
    out[j].addr = (out[j].addr & ~(uint64_t)(MEM_LINE_BYTES - 1)) + MEM_SECTOR_BYTES * (uint32_t)__builtin_ctz(s);
    out[j].size = MEM_SECTOR_BYTES * (uint32_t)simtvp_popcount32(s);
  }
}

static bool coalesce_blocks(const ldst_range *r, uint32_t n_ranges, uint32_t block_bytes, ldst_access *out,
                            uint32_t *n, uint32_t cap);

bool ldst_coalesce_span(uint64_t lo, uint32_t n_lanes, uint32_t lane0, uint32_t bytes, uint32_t block_bytes,
                        ldst_access *out, uint32_t *n, uint32_t cap) {
  if (n_lanes < 2 || !bytes) { /* not a span of lanes: the lane-by-lane rule */
    ldst_range r = {lo, bytes, lane0};
    return n_lanes ? coalesce_blocks(&r, 1, block_bytes, out, n, cap) : true;
  }
  uint32_t start = *n, count = *n;
  if (!span_blocks(lo, n_lanes, bytes, block_bytes, out, &count, cap)) {
    *n = count;
    return false;
  }
  finish_blocks(out, start, count);
  *n = count;
  return true;
}

bool ldst_coalesce_blocks(const ldst_range *r, uint32_t n_ranges, uint32_t block_bytes, ldst_access *out,
                          uint32_t *n, uint32_t cap) {
  return coalesce_blocks(r, n_ranges, block_bytes, out, n, cap);
}

static bool coalesce_blocks(const ldst_range *r, uint32_t n_ranges, uint32_t block_bytes, ldst_access *out,
                            uint32_t *n, uint32_t cap) {
  uint32_t start = *n, count = *n, hit = *n;
  uint64_t bmask = ~(uint64_t)(block_bytes - 1);
  uint32_t uniform_lanes = 0; /* the same bytes for every lane: one lane's blocks, every lane's operations */
  if (n_ranges > 1 && r[1].addr == r[0].addr && uniform(r, n_ranges)) {
    uniform_lanes = n_ranges;
    n_ranges = 1;
  }
  if (n_ranges > 1 && r[1].addr == r[0].addr + r[0].bytes && contiguous(r, n_ranges)) {
    /* one span: the blocks it covers, in order */
    if (!span_blocks(r[0].addr, n_ranges, r[0].bytes, block_bytes, out, &count, cap)) {
      *n = count;
      return false;
    }
    n_ranges = 0; /* nothing left for the lane-by-lane rule */
  }
  for (uint32_t i = 0; i < n_ranges; i++) {
    uint64_t a = r[i].addr, end = r[i].addr + max_u32(r[i].bytes, 1);
    if (hit < count && (a & bmask) == out[hit].addr && ((end - 1) & bmask) == out[hit].addr) {
      /* the usual lane: inside the block the previous one touched */
      uint32_t off = (uint32_t)(a & (MEM_LINE_BYTES - 1));
      mask_bytes(out[hit].byte_mask, off, off + (uint32_t)(end - a));
      out[hit].lanes++;
      continue;
    }
    while (a < end) {
      uint64_t block = a & bmask;
      uint64_t piece_end = block + block_bytes < end ? block + block_bytes : end;
      /* neighbouring lanes usually touch the block the previous one did: look there first */
      uint32_t j = hit;
      if (j >= count || out[j].addr != block) {
        for (j = start; j < count && out[j].addr != block; j++) {
        }
      }
      if (j == count) {
        if (count == cap) {
          *n = count;
          return false;
        }
        memset(&out[j], 0, sizeof out[j]);
        out[j].addr = block;
        count++;
      }
      hit = j;
      if (a == r[i].addr) out[j].lanes++;
      uint32_t off = (uint32_t)(a & (MEM_LINE_BYTES - 1));
      mask_bytes(out[j].byte_mask, off, off + (uint32_t)(piece_end - a));
      a = piece_end;
    }
  }
  if (uniform_lanes && count > start) out[start].lanes = (uint8_t)(uniform_lanes > 255 ? 255 : uniform_lanes);
  finish_blocks(out, start, count);
  *n = count;
  return true;
}

bool ldst_coalesce_gt200(const ldst_range *r, uint32_t n_ranges, uint32_t half_lanes,
                         uint32_t word_bytes, ldst_access *out, uint32_t *n, uint32_t cap) {
  /* segment size by word size (CUDA Programming Guide, compute capability 1.2 and 1.3) */
  uint32_t seg_bytes = word_bytes == 1 ? 32u : word_bytes == 2 ? 64u : 128u;
  bool served[LDST_MAX_RANGES];
  uint32_t nr = min_u32(n_ranges, LDST_MAX_RANGES);
  memset(served, 0, nr * sizeof *served);
  half_lanes = max_u32(half_lanes, 1);
  for (uint32_t i = 0; i < nr; i++) {
    if (served[i]) continue;
    /* the lowest remaining lane of this half-warp opens a segment */
    uint32_t half = r[i].lane / half_lanes;
    uint32_t size = seg_bytes;
    uint64_t seg = r[i].addr & ~(uint64_t)(size - 1);
    uint64_t lo = UINT64_MAX, hi = 0;
    uint64_t bytes[2] = {0, 0};
    uint32_t lanes = 0;
    for (uint32_t k = i; k < nr; k++) {
      if (served[k] || r[k].lane / half_lanes != half) continue;
      if (r[k].addr < seg || r[k].addr >= seg + size) continue;
      uint64_t end = r[k].addr + max_u32(r[k].bytes, 1);
      if (end > seg + size) end = seg + size; /* never for aligned words */
      served[k] = true;
      lanes++;
      if (r[k].addr < lo) lo = r[k].addr;
      if (end > hi) hi = end;
      uint32_t off = (uint32_t)(r[k].addr & (MEM_LINE_BYTES - 1));
      mask_bytes(bytes, off, off + (uint32_t)(end - r[k].addr));
    }
    /* reduce: 128 -> 64 -> 32 while only one half of the segment is used */
    while (size > 32) {
      uint32_t h = size / 2;
      if (hi <= seg + h) {
        size = h;
      } else if (lo >= seg + h) {
        seg += h;
        size = h;
      } else {
        break;
      }
    }
    if (*n == cap) return false;
    ldst_access *a = &out[(*n)++];
    memset(a, 0, sizeof *a);
    a->addr = seg;
    a->size = size;
    a->byte_mask[0] = bytes[0];
    a->byte_mask[1] = bytes[1];
    uint64_t span[2] = {0, 0};
    uint32_t off = (uint32_t)(seg & (MEM_LINE_BYTES - 1));
    mask_bytes(span, off, off + size);
    a->sector_mask = sectors_of(span);
    a->lanes = (uint8_t)lanes;
  }
  return true;
}
