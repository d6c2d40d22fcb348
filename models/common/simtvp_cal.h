/* simtvp_cal — a resource's busy cycles, for approximately-timed models that book out of order.
 *
 * Approximately-timed blocks compute a request's whole path when it arrives, so their resources
 * (issue slots, ports, buses, pipelines) are booked out of time order: the AT SIMT core lets
 * warps run ahead by a window of cycles, and a memory system times a reply hundreds of cycles
 * ahead. A "next free cycle" would then waste every idle cycle before the latest booking; a
 * calendar keeps each booked cycle instead, and a late booking takes the first free cycle at or
 * after the one it wants, as the hardware's arbiter would have given it.
 *
 * One bit per cycle in a ring of SIMTVP_CAL_CYCLES cycles starting at `base`. Cycles before base are
 * taken (forgotten history). A booking past the ring's end slides it: the oldest cycles drop out. */
#ifndef SIMTVP_CAL_H
#define SIMTVP_CAL_H

#include "simtvp_bits.h"
#include <stdint.h>
#include <string.h>

#define SIMTVP_CAL_WORDS 16u
#define SIMTVP_CAL_CYCLES (SIMTVP_CAL_WORDS * 64u)

typedef struct simtvp_cal {
  uint64_t base;                 /* first cycle the ring holds (a multiple of 64) */
  uint64_t bits[SIMTVP_CAL_WORDS];   /* bit (c % SIMTVP_CAL_CYCLES) set: cycle c is taken */
} simtvp_cal;

static inline void simtvp_cal_reset(simtvp_cal *k, uint64_t from) {
  k->base = from & ~63ull;
  memset(k->bits, 0, sizeof k->bits);
}

/* Makes cycle `last` part of the ring (sliding the ring forward if needed). */
static inline void simtvp_cal_reach(simtvp_cal *k, uint64_t last) {
  if (last < k->base + SIMTVP_CAL_CYCLES) return;
  uint64_t nb = (last - SIMTVP_CAL_CYCLES + 64) & ~63ull;
  if (nb >= k->base + SIMTVP_CAL_CYCLES) {
    simtvp_cal_reset(k, nb);
    return;
  }
  for (uint64_t w = k->base / 64; w < nb / 64; w++) k->bits[w % SIMTVP_CAL_WORDS] = 0;
  k->base = nb;
}

static inline int simtvp_cal_busy(const simtvp_cal *k, uint64_t c) {
  return (int)((k->bits[(c / 64) % SIMTVP_CAL_WORDS] >> (c % 64)) & 1u);
}

/* The first cycle t' >= t with cycles [t', t'+n) free (n >= 1), not booked. A lookup changes
 * nothing: cycles past the ring's end are free (a booking there would have slid the ring), so a
 * run that reaches past the end needs only its part inside the ring free. (Sliding the ring on a
 * lookup, as this did first, made later bookings of earlier cycles wait for cycles that had only
 * been looked at: the result depended on which lookups were made.) */
static inline uint64_t simtvp_cal_find(const simtvp_cal *k, uint64_t t, uint32_t n) {
  if (t < k->base) t = k->base;
  const uint64_t end = k->base + SIMTVP_CAL_CYCLES;
  /* the usual case: the wanted cycles inside one word of the ring, and free */
  if (n && t + n - 1 < end && t % 64 + n <= 64) {
    uint64_t want = (n == 64 ? ~0ull : (1ull << n) - 1) << (t % 64);
    if (!(k->bits[(t / 64) % SIMTVP_CAL_WORDS] & want)) return t;
  }
  for (;;) {
    if (t >= end) return t;
    /* skip whole busy runs a word at a time */
    uint64_t word = k->bits[(t / 64) % SIMTVP_CAL_WORDS] >> (t % 64);
    if (word & 1u) {
      uint64_t free_from = ~word;
      t += free_from ? (uint64_t)__builtin_ctzll(free_from) : 64 - t % 64;
      continue;
    }
    uint32_t i = 1;
    while (i < n && t + i < end && !simtvp_cal_busy(k, t + i)) i++;
    if (i == n || t + i >= end) return t;
    t += i + 1;
  }
}

static inline void simtvp_cal_book(simtvp_cal *k, uint64_t t, uint32_t n) {
  simtvp_cal_reach(k, t + n - 1);
  if (t >= k->base && t % 64 + n <= 64) { /* inside one word: one mask */
    k->bits[(t / 64) % SIMTVP_CAL_WORDS] |= (n == 64 ? ~0ull : (1ull << n) - 1) << (t % 64);
    return;
  }
  for (uint64_t c = t < k->base ? k->base : t; c < t + n; c++) k->bits[(c / 64) % SIMTVP_CAL_WORDS] |= 1ull << (c % 64);
}

/* Books the first n free cycles from t on (consecutive); returns the first. */
static inline uint64_t simtvp_cal_take(simtvp_cal *k, uint64_t t, uint32_t n) {
  uint64_t s = simtvp_cal_find(k, t, n);
  simtvp_cal_book(k, s, n);
  return s;
}

/* simtvp_cal_take(k, t, 1) (the same cycle, the same booking), with the usual case — t inside
 * the ring and free — in a few instructions: one slot per cycle (issue slots, ports) is booked
 * once per simulated instruction or request. */
static inline uint64_t simtvp_cal_take1(simtvp_cal *k, uint64_t t) {
  if (t >= k->base && t < k->base + SIMTVP_CAL_CYCLES) {
    uint64_t *word = &k->bits[(t / 64) % SIMTVP_CAL_WORDS], bit = 1ull << (t % 64);
    if (!(*word & bit)) {
      *word |= bit;
      return t;
    }
  }
  return simtvp_cal_take(k, t, 1);
}

/* Cycles booked at t or later. */
static inline uint64_t simtvp_cal_booked_from(const simtvp_cal *k, uint64_t t) {
  if (t < k->base) t = k->base;
  uint64_t n = 0, end = k->base + SIMTVP_CAL_CYCLES;
  if (t >= end) return 0;
  uint64_t first = k->bits[(t / 64) % SIMTVP_CAL_WORDS] >> (t % 64);
  n += (uint64_t)simtvp_popcount64(first);
  for (uint64_t w = t / 64 + 1; w < end / 64; w++) n += (uint64_t)simtvp_popcount64(k->bits[w % SIMTVP_CAL_WORDS]);
  return n;
}

#endif /* SIMTVP_CAL_H */
