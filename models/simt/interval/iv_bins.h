/* iv_bins — the interval SIMT core's throughput bins (docs/simt-interval.md §3, §11).
 *
 * A resource (a scheduler's issue port, a unit kind, the shared-memory pipeline, the fetch port,
 * the memory stage's dispatch) has a budget of work per IV_BIN cycles; the core books each
 * instruction's work in the bin of its cycle and looks for the first bin with room when one is
 * full, instead of keeping a calendar of cycles. Self-contained (no other model header), so that
 * tests can drive the bins alone. */
#ifndef SIMTVP_SIMT_INTERVAL_BINS_H
#define SIMTVP_SIMT_INTERVAL_BINS_H

#include <stdint.h>

/* Throughput bins: IV_BIN cycles each, a ring of IV_RING bins (8 192 cycles: the horizon plus
 * the longest latency, with room) per resource. */
#define IV_BIN 32u
#define IV_RING 256u

/* A resource's budget per bin: `cap` units of work per IV_BIN cycles (an instruction on a unit
 * with initiation interval II costs II; a unit kind with n units has cap IV_BIN × n). Bin b of
 * the ring holds the work booked in cycles [b·IV_BIN, (b+1)·IV_BIN); a slot whose id is older
 * than the bin asked for is recycled. */
typedef struct iv_bins {
  uint64_t id[IV_RING];
  uint32_t used[IV_RING];
  uint32_t cap;
} iv_bins;

/* The bin slot of cycle t, recycled when it holds an older bin; NULL when it already holds a
 * later one (a warp far behind the others: its work is not tracked). */
static inline uint32_t *iv_bins_slot(iv_bins *b, uint64_t t) {
  uint64_t bin = t / IV_BIN;
  uint32_t s = (uint32_t)(bin % IV_RING);
  if (b->id[s] != bin) {
    if (b->id[s] > bin) return NULL;
    b->id[s] = bin;
    b->used[s] = 0;
  }
  return &b->used[s];
}

/* The first cycle ≥ t whose bin has room for `cost` (an empty bin takes any cost); *slot its bin's
 * counter (NULL: not tracked), for booking there later without a second lookup. */
static inline uint64_t iv_bins_find_slot(iv_bins *b, uint64_t t, uint32_t cost, uint32_t **slot) {
  for (;;) {
    uint32_t *u = iv_bins_slot(b, t);
    if (!u || *u == 0 || *u + cost <= b->cap) {
      *slot = u;
      return t;
    }
    t = (t / IV_BIN + 1) * IV_BIN;
  }
}

/* The first cycle ≥ t whose bin has room for `cost`. */
static inline uint64_t iv_bins_find(iv_bins *b, uint64_t t, uint32_t cost) {
  uint32_t *slot;
  return iv_bins_find_slot(b, t, cost, &slot);
}

static inline void iv_bins_book(iv_bins *b, uint64_t t, uint32_t cost) {
  uint32_t *u = iv_bins_slot(b, t);
  if (u) *u += cost;
}

/* iv_bins_take past its usual case. */
static __attribute__((noinline, unused)) uint64_t iv_bins_take_search(iv_bins *b, uint64_t t, uint32_t cost) {
  t = iv_bins_find(b, t, cost);
  iv_bins_book(b, t, cost);
  return t;
}

/* iv_bins_find, then booked there. The usual cases — t's bin is the ring's and has room, or its
 * slot holds an older bin (recycled: empty) — are one test each; the rest is
 * iv_bins_take_search. */
static inline uint64_t iv_bins_take(iv_bins *b, uint64_t t, uint32_t cost) {
  uint64_t bin = t / IV_BIN;
  uint32_t s = (uint32_t)(bin % IV_RING), u = b->used[s];
  if (b->id[s] == bin) {
    if (u == 0 || u + cost <= b->cap) {
      b->used[s] = u + cost;
      return t;
    }
  } else if (b->id[s] < bin) {
    b->id[s] = bin;
    b->used[s] = cost;
    return t;
  }
  return iv_bins_take_search(b, t, cost);
}

/* `work` units of a straight run issuing from t for `len` cycles, booked in the bins b from t on
 * at the run's own pace (work / len per cycle, 16.16 fixed point) where they have room, the rest
 * carried into the bins after: the cycle the last unit is booked by (t + len when nothing waited;
 * past the run's end, about one a cycle). A bin older than the ring (a warp far behind) is not
 * tracked. docs/simt-interval.md §11. The run's own bins take their shares first, then the bins
 * after it whatever is left; each bin is visited once. */
static inline uint64_t iv_bins_fill(iv_bins *b, uint64_t t, uint32_t len, uint32_t work) {
  if (!work) return t + len;
  if (!len) len = 1;
  const uint64_t end = t + len, last = (end - 1) / IV_BIN;
  const uint32_t cap = b->cap;
  uint64_t bin = t / IV_BIN;
  if (bin == last) { /* the usual short run: one bin with room */
    uint32_t *s = iv_bins_slot(b, t);
    if (!s) return end;
    if (*s == 0 || *s + work <= cap) {
      *s += work;
      return end;
    }
  }
  const uint64_t rate = ((uint64_t)work << 16) / len;
  uint32_t placed = 0;
  for (;; bin++) {
    /* its pace's share by the bin's end (the whole work in its last bin and after), less what
     * was placed; what the bin has room for */
    uint32_t due = bin < last ? (uint32_t)((rate * ((bin + 1) * IV_BIN - t)) >> 16) : work;
    uint32_t want = due > placed ? due - placed : 0, s = (uint32_t)(bin % IV_RING), take = want;
    uint64_t id = b->id[s];
    if (id <= bin) {
      uint32_t u = 0;
      if (id == bin) u = b->used[s];
      else b->id[s] = bin;
      if (u >= cap) take = u ? 0 : want;
      else if (cap - u < want) take = cap - u;
      b->used[s] = u + take;
    }
    placed += take;
    if (placed == work) return bin <= last ? end : bin * IV_BIN + take;
  }
}

#endif
