/* memiv_cal — a port's booked cycles (internal to models/memiv: memiv.c and its tests).
 *
 * One bit per cycle in a ring of MEMIV_CAL_CYCLES cycles (the same idea as models/common/
 * simtvp_cal.h, with a window four times longer: interval cores run ahead of each other by up to a
 * few thousand cycles, so bookings arrive that much out of time order). A booking takes the first
 * run of free cycles at or after the one it wants, so an out-of-order booking still takes the
 * cycles earlier-timed ones left free. The caller places a booking wanted before the window's start
 * (older than MEMIV_CAL_CYCLES behind the port's latest) at the window's start (memiv.c counts it).
 *
 * Invariant: a set bit always stands for a cycle before `hi` (every booking ends by hi, and the
 * words the window leaves behind are cleared), so every cycle from min(hi, window end) on is free.
 * The search works 64 cycles at a time: the starts of n free cycles in a 64-cycle window by shifts
 * and one count-trailing-zeros, words that are wholly booked skipped by the `full` summary (a
 * backlog); runs longer than 64 cycles word by word. Bookings in time order (at or after hi) cost a
 * compare, bookings within a word one mask. */
#ifndef SIMTVP_MEMIV_CAL_H
#define SIMTVP_MEMIV_CAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define MEMIV_CAL_WORDS 64u
#define MEMIV_CAL_CYCLES (MEMIV_CAL_WORDS * 64u)

typedef struct memiv_cal {
  uint64_t base;                    /* first cycle the ring holds (a multiple of 64) */
  uint64_t hi;                      /* every cycle from here on is free (the latest booking's end) */
  uint64_t full;                    /* bit w set: every cycle of bits[w] is taken (skips backlogs) */
  /* what a search learnt: no run of hint_n (or more) free cycles starts in [hint_from, hint_to)
   * (empty when hint_to <= hint_from). Bookings only take cycles, so it stays true; a search
   * asked from inside it starts at hint_to (a saturated port's backlog, full of holes too short
   * for the bookings, is walked once, not by every request). */
  uint64_t hint_from, hint_to;
  uint32_t hint_n;
  uint64_t bits[MEMIV_CAL_WORDS];   /* bit c % MEMIV_CAL_CYCLES set: cycle c is taken */
} memiv_cal;

/* The window moves so that cycle `last` (past its end) is in it (the words it leaves are cleared). */
__attribute__((noinline)) static void memiv_cal_move(memiv_cal *k, uint64_t last) {
  uint64_t nb = (last - MEMIV_CAL_CYCLES + 64) & ~63ull;
  if (nb >= k->base + MEMIV_CAL_CYCLES) {
    memset(k->bits, 0, sizeof k->bits);
    k->full = 0;
  } else { /* the words from base's to nb's (fewer than MEMIV_CAL_WORDS), their summary bits at once */
    const uint32_t first = (uint32_t)((k->base / 64) % MEMIV_CAL_WORDS), n = (uint32_t)(nb / 64 - k->base / 64);
    if (n <= 8) { /* a few words: stores (a call costs more) */
      for (uint32_t i = 0; i < n; i++) k->bits[(first + i) % MEMIV_CAL_WORDS] = 0;
    } else if (first + n <= MEMIV_CAL_WORDS) {
      memset(&k->bits[first], 0, n * sizeof k->bits[0]);
    } else { /* across the ring's end */
      memset(&k->bits[first], 0, (MEMIV_CAL_WORDS - first) * sizeof k->bits[0]);
      memset(k->bits, 0, (first + n - MEMIV_CAL_WORDS) * sizeof k->bits[0]);
    }
    const uint64_t run = (1ull << n) - 1; /* n < 64 */
    k->full &= ~(first ? run << first | run >> (64 - first) : run);
  }
  k->base = nb;
}

/* The window moves so that cycle `last` is in it. A move by one word (the common one: a port's
 * bookings mostly advance a few cycles at a time) is memiv_cal_move's n = 1 case inline: the word
 * the window leaves is cleared with its summary bit. */
__attribute__((always_inline)) static inline void memiv_cal_reach(memiv_cal *k, uint64_t last) {
  if (last < k->base + MEMIV_CAL_CYCLES) return;
  if (last < k->base + MEMIV_CAL_CYCLES + 64) {
    const uint32_t w = (uint32_t)((k->base / 64) % MEMIV_CAL_WORDS);
    k->bits[w] = 0;
    k->full &= ~(1ull << w);
    k->base += 64;
    return;
  }
  memiv_cal_move(k, last);
}

/* The 64 cycles from t as bits (bit i: cycle t + i taken), those from lim on free. t >= base. */
static inline uint64_t memiv_cal_window(const memiv_cal *k, uint64_t t, uint64_t lim) {
  if (t >= lim) return 0;
  uint32_t off = (uint32_t)(t % 64), w = (uint32_t)((t / 64) % MEMIV_CAL_WORDS);
  /* the word and the next as one 128-bit value, shifted: no branch on off */
  uint64_t x = (uint64_t)(((unsigned __int128)k->bits[(w + 1) % MEMIV_CAL_WORDS] << 64 | k->bits[w]) >> off);
  if (lim - t < 64) x &= (1ull << (lim - t)) - 1;
  return x;
}

/* The last cycle from which every later one is free: min(hi, the window's end). */
static inline uint64_t memiv_cal_limit(const memiv_cal *k) {
  const uint64_t end = k->base + MEMIV_CAL_CYCLES;
  return k->hi < end ? k->hi : end;
}

/* Offsets p (bit p) in a 64-cycle window x at which n (1..64) cycles are free, none past bit 63. */
static inline uint64_t memiv_cal_starts(uint64_t x, uint32_t n) {
  uint64_t r = ~x; /* bit p: the run from p is at least `have` long */
  uint32_t have = 1;
  for (; 2 * have <= n; have *= 2) r &= r >> have;
  if (have < n) r &= r >> (n - have); /* two overlapping runs of `have` cover n */
  return r;
}

/* The search below when t is before hi: first t' >= t (t >= base) with [t', t' + n) free. */
__attribute__((noinline)) static uint64_t memiv_cal_search(const memiv_cal *k, uint64_t t, uint32_t n) {
  const uint64_t end = k->base + MEMIV_CAL_CYCLES;
  const uint64_t lim = k->hi < end ? k->hi : end; /* every cycle from here on is free */
  if (n <= 64) { /* 64 cycles at a time: a start among the first 65 - n, else on past them */
    for (;;) {
      uint64_t r = memiv_cal_starts(memiv_cal_window(k, t, lim), n);
      if (r) return t + (uint64_t)__builtin_ctzll(r);
      t += 65 - n;
      if (t >= lim) return t;
      uint32_t w = (uint32_t)((t / 64) % MEMIV_CAL_WORDS);
      if (!(k->full >> w & 1u)) continue;
      /* t's word and those after it that are wholly booked (a backlog) hold no start; past the
       * window's end every cycle is free */
      uint64_t rot = w ? k->full >> w | k->full << (64 - w) : k->full;
      if (~rot == 0) return end;
      t = (t / 64 + (uint64_t)__builtin_ctzll(~rot)) * 64;
      if (t >= lim) return t >= end ? end : t;
    }
  }
  for (;;) {
    if (t >= lim) return t;
    /* the first busy cycle in [t, min(t + n, lim)), word by word */
    const uint64_t stop = t + n < lim ? t + n : lim;
    uint64_t c = t, busy = UINT64_MAX;
    while (c < stop) {
      uint32_t off = (uint32_t)(c % 64);
      uint64_t word = k->bits[(c / 64) % MEMIV_CAL_WORDS] >> off;
      uint64_t span = 64 - off;
      if (stop - c < span) {
        span = stop - c;
        word &= (1ull << span) - 1;
      }
      if (word) {
        busy = c + (uint64_t)__builtin_ctzll(word);
        break;
      }
      c += span;
    }
    if (busy == UINT64_MAX) return t;
    /* past the busy run that starts there: its ones in this word, then whole booked words */
    t = busy;
    for (;;) {
      uint32_t off = (uint32_t)(t % 64);
      uint64_t word = k->bits[(t / 64) % MEMIV_CAL_WORDS] >> off;
      /* ~word has ones above the shifted-out part; a full word at off 0 has none */
      uint32_t run = ~word ? (uint32_t)__builtin_ctzll(~word) : 64u;
      if (run < 64 - off) {
        t += run;
        break;
      }
      t += 64 - off;
      if (t >= lim) return t;
      uint32_t w = (uint32_t)((t / 64) % MEMIV_CAL_WORDS);
      uint64_t rot = w ? k->full >> w | k->full << (64 - w) : k->full;
      if (~rot == 0) return end;
      t += 64 * (uint64_t)__builtin_ctzll(~rot); /* a run that wraps the ring ends at its end */
      if (t >= lim) return t >= end ? end : t;
    }
  }
}

/* memiv_cal_search, and, when `learn`, what it learnt kept: no start for n in [t, found). Joined
 * with the hint when they touch (same n), else the one reaching further is kept. */
__attribute__((noinline)) static uint64_t memiv_cal_search_learn(memiv_cal *k, uint64_t t, uint32_t n, bool learn) {
  uint64_t found = memiv_cal_search(k, t, n);
  if (learn && found > t) {
    if (n == k->hint_n && t <= k->hint_to && found >= k->hint_from) {
      if (t < k->hint_from) k->hint_from = t;
      if (found > k->hint_to) k->hint_to = found;
    } else if (found > k->hint_to) {
      k->hint_from = t;
      k->hint_to = found;
      k->hint_n = n;
    }
  }
  return found;
}

/* n (1..64) ones from bit `off` (off + n <= 64). */
static inline uint64_t memiv_cal_run(uint32_t n, uint32_t off) { return (~0ull >> (64 - n)) << off; }

/* The first t' >= t with [t', t' + n) free (n >= 1; t >= base; cycles past the ring's end free);
 * a long search is learnt when `learn`. */
__attribute__((always_inline)) static inline uint64_t memiv_cal_find_as(memiv_cal *k, uint64_t t, uint32_t n, bool learn) {
  if (t >= k->hi) return t; /* in time order: after every booking */
  if (t < k->hint_to && t >= k->hint_from && n >= k->hint_n) { /* inside what a search learnt */
    t = k->hint_to;
    if (t >= k->hi) return t;
  }
  /* within one word (t < hi <= the window's end, so the word is in the window): free at once? */
  uint32_t off = (uint32_t)(t % 64);
  if (off + n <= 64 && !(k->bits[(t / 64) % MEMIV_CAL_WORDS] & memiv_cal_run(n, off))) return t;
  return memiv_cal_search_learn(k, t, n, learn);
}

/* The first t' >= t with [t', t' + n) free (n >= 1; t >= base; cycles past the ring's end free). */
__attribute__((always_inline)) static inline uint64_t memiv_cal_find(memiv_cal *k, uint64_t t, uint32_t n) {
  return memiv_cal_find_as(k, t, n, true);
}

/* What a column command's search learnt about its bank group `a` and its bus `b`: no start t' in
 * [from, to) has [t', t' + na) free in a and [t' + off, t' + off + nb) free in b (empty when
 * to <= from). Bookings only take cycles, so it stays true; a search asked from inside it goes on
 * from its end (the bus's holes that the group refused are walked once, not by every request to
 * that group; a walk that reaches it from before is not sent on: the checks on every turn cost
 * more than they saved). One per bank group and direction (CL or WL apart). */
typedef struct memiv_cal_pair_hint {
  uint64_t from, to, off;
  uint32_t na, nb;
} memiv_cal_pair_hint;

/* The first t' >= t with [t', t' + na) free in a and [t' + off, t' + off + nb) free in b (t >= a's
 * base, t + off >= b's; na, nb >= 1): a column command holds its bank group's command slots and,
 * `off` later, the data bus. Each port's first free start in turn until they agree, b's first (the
 * busier: the data bus): each step skips only starts that one port refuses, so the first they
 * agree on is the least. With a hint `h` (a and b always the same two ports), what it learnt is
 * skipped and the walk is learnt. */
__attribute__((always_inline)) static inline uint64_t memiv_cal_find_pair(memiv_cal *a, uint32_t na, memiv_cal *b,
                                                                          uint64_t off, uint32_t nb, uint64_t t,
                                                                          memiv_cal_pair_hint *h) {
  const uint64_t t0 = t;
  if (h && t < h->to && t >= h->from && h->off == off && na >= h->na && nb >= h->nb) t = h->to; /* inside it */
  uint64_t fb = memiv_cal_find(b, t + off, nb) - off;
  for (;;) {
    uint64_t fa = memiv_cal_find(a, fb, na);
    if (fa == fb) break;
    /* b's free start fb, which a refused, stays free, so a search of b from after it cannot join
     * what b learnt before; kept, it would replace that hint, which every later request asked
     * from before the backlog needs (QV100 vector add 1 M: memiv_access 6 % fewer host
     * instructions with this walk unlearnt, docs/memiv.md §3) */
    fb = memiv_cal_find_as(b, fa + off, nb, false) - off;
  }
  if (h && fb > t0) { /* no start in [t0, fb): joined with the hint when they touch, else the further kept */
    if (h->off == off && h->na == na && h->nb == nb && t0 <= h->to && fb >= h->from) {
      if (t0 < h->from) h->from = t0;
      if (fb > h->to) h->to = fb;
    } else if (fb > h->to || h->off != off) {
      *h = (memiv_cal_pair_hint){t0, fb, off, na, nb};
    }
  }
  return fb;
}

/* A column command booked at t, holding its group's slots na cycles from t: every start from h's end
 * up to t + na now overlaps them, so h reaches past the booking when it ends fewer than h->na
 * cycles before t (the group's next walk starts there). */
__attribute__((always_inline)) static inline void memiv_cal_pair_booked(memiv_cal_pair_hint *h, uint64_t t, uint32_t na) {
  if (h->to + h->na > t && h->to < t + na) h->to = t + na;
}

/* The first t' >= t with [t', t' + n) free in both a and b (t >= both bases): a packet through the
 * crossbar holds its input and output ports over the same cycles. The next 64 starts of both at
 * one look, then as memiv_cal_find_pair. (That look does not pay for a column command's ports:
 * there the data bus is the busy one, and its next 64 cycles are mostly full.) */
__attribute__((always_inline)) static inline uint64_t memiv_cal_find_both(memiv_cal *a, memiv_cal *b, uint64_t t, uint32_t n) {
  if (t >= a->hi && t >= b->hi) return t;
  if (n <= 64) {
    uint64_t r = memiv_cal_starts(memiv_cal_window(a, t, memiv_cal_limit(a)) | memiv_cal_window(b, t, memiv_cal_limit(b)), n);
    if (r) return t + (uint64_t)__builtin_ctzll(r);
    t += 65 - n; /* no start at t .. t + 64 - n suits both */
  }
  return memiv_cal_find_pair(a, n, b, 0, n, t, NULL);
}

/* Books [t, t + n) (n >= 1) across words (memiv_cal_book's general case). */
__attribute__((noinline)) static void memiv_cal_book_words(memiv_cal *k, uint64_t t, uint32_t n) {
  for (uint64_t c = t, e = t + n; c < e;) {
    uint32_t off = (uint32_t)(c % 64);
    uint64_t span = 64 - off;
    if (e - c < span) span = e - c;
    uint64_t mask = (span == 64 ? ~0ull : (1ull << span) - 1) << off;
    uint32_t w = (uint32_t)((c / 64) % MEMIV_CAL_WORDS);
    if ((k->bits[w] |= mask) == ~0ull) k->full |= 1ull << w;
    c += span;
  }
}

/* Books [t, t + n) (n >= 1). */
__attribute__((always_inline)) static inline void memiv_cal_book(memiv_cal *k, uint64_t t, uint32_t n) {
  memiv_cal_reach(k, t + n - 1);
  if (t + n > k->hi) k->hi = t + n;
  uint32_t off = (uint32_t)(t % 64);
  if (off + n <= 64) {
    uint32_t w = (uint32_t)((t / 64) % MEMIV_CAL_WORDS);
    if ((k->bits[w] |= memiv_cal_run(n, off)) == ~0ull) k->full |= 1ull << w;
    return;
  }
  memiv_cal_book_words(k, t, n);
}

/* Books [t, t + n) (n >= 1) on a port whose searches walk a backlog (a DRAM channel's data bus and
 * its bank groups' command slots). A booking that covers the end of what a search learnt, or starts
 * fewer than hint_n cycles after it, extends it: every start in [hint_to, t + n) then overlaps a
 * booked cycle, so the next search into that backlog starts past this booking instead of walking
 * it again (the answers stay those of the definition). A calendar that never learnt has hint_to 0
 * and hint_n 0, which extends nothing. Not for every port: on the ports that are seldom searched
 * the test costs more than it saves. */
__attribute__((always_inline)) static inline void memiv_cal_book_backlog(memiv_cal *k, uint64_t t, uint32_t n) {
  if (k->hint_to + k->hint_n > t && k->hint_to < t + n) k->hint_to = t + n;
  memiv_cal_book(k, t, n);
}

#endif /* SIMTVP_MEMIV_CAL_H */
