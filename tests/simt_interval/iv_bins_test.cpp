// The interval core's throughput bins (models/simt/interval/iv_bins.h, docs/simt-interval.md §3,
// §11): iv_bins_fill, the paced booking of a straight run's work, against its definition walked
// cycle range by cycle range — the same bins, the same answer, for random rings, runs and loads.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

extern "C" {
#include "interval/iv_bins.h"
}

namespace {

// The definition: from t, bin by bin, the run's pace's share by each bin's end (or by its end)
// less what was placed, as far as the bin has room; past the run's end whatever is left.
uint64_t fill_reference(iv_bins *b, uint64_t t, uint32_t len, uint32_t work) {
  if (!work) return t + len;
  if (!len) len = 1;
  uint64_t end = t + len, x = t, left = work, placed = 0;
  uint64_t bin = t / IV_BIN;
  if ((end - 1) / IV_BIN == bin) {
    uint32_t *s = iv_bins_slot(b, t);
    if (!s) return end;
    if (*s == 0 || *s + work <= b->cap) {
      *s += work;
      return end;
    }
  }
  uint64_t rate = ((uint64_t)work << 16) / len;
  for (;;) {
    uint64_t nb = (x / IV_BIN + 1) * IV_BIN, e = nb < end ? nb : end;
    uint64_t due = x >= end || e >= end ? work : (rate * (e - t)) >> 16;
    uint64_t want = due > placed ? due - placed : 0;
    uint32_t *s = iv_bins_slot(b, x);
    uint64_t room = !s ? want : *s >= b->cap ? (*s ? 0 : want) : b->cap - *s;
    uint64_t take = want < room ? want : room;
    if (take > left) take = left;
    if (s) *s += (uint32_t)take;
    left -= take;
    placed += take;
    if (!left) return x < end ? end : x + take;
    x = nb;
  }
}

TEST(IvBins, FillBooksWhatItsDefinitionBooks) {
  std::mt19937_64 rng(20261127);
  static iv_bins a, b;
  for (int round = 0; round < 400; round++) {
    std::memset(&a, 0, sizeof a);
    a.cap = 1u + (uint32_t)(rng() % 96u);
    uint64_t base = rng() % 100000u;
    // a ring part filled: some bins full, some older (recycled), some later (untracked)
    for (uint32_t i = 0; i < IV_RING; i++) {
      uint64_t bin = base / IV_BIN + i;
      uint32_t kind = (uint32_t)(rng() % 8u);
      a.id[bin % IV_RING] = kind == 0 ? bin - IV_RING : kind == 1 ? bin + IV_RING : bin;
      a.used[bin % IV_RING] = kind == 2 ? a.cap : (uint32_t)(rng() % (a.cap + 1u));
    }
    std::memcpy(&b, &a, sizeof a);
    for (int k = 0; k < 20; k++) {
      uint64_t t = base + rng() % 2000u;
      uint32_t len = (uint32_t)(rng() % 300u), work = (uint32_t)(rng() % 400u);
      if (k % 5 == 0) len = (uint32_t)(rng() % 40u);
      uint64_t want = fill_reference(&b, t, len, work);
      uint64_t got = iv_bins_fill(&a, t, len, work);
      ASSERT_EQ(got, want) << "round " << round << " t " << t << " len " << len << " work " << work;
      ASSERT_EQ(0, std::memcmp(&a, &b, sizeof a)) << "round " << round << " t " << t;
    }
  }
}

TEST(IvBins, AnUncontendedRunEndsOnTimeAndSpreadsItsWorkAtItsPace) {
  static iv_bins b;
  std::memset(&b, 0, sizeof b);
  b.cap = 64;
  // 96 units over 96 cycles from cycle 16: 16 in the first bin, 32 in each of the next two, 16 last
  EXPECT_EQ(iv_bins_fill(&b, 16, 96, 96), 112u);
  EXPECT_EQ(b.used[0], 16u);
  EXPECT_EQ(b.used[1], 32u);
  EXPECT_EQ(b.used[2], 32u);
  EXPECT_EQ(b.used[3], 16u);
}

TEST(IvBins, FullBinsStretchARunPastItsEnd) {
  static iv_bins b;
  std::memset(&b, 0, sizeof b);
  b.cap = 32;
  for (uint32_t i = 0; i < 3; i++) b.id[i] = i, b.used[i] = 32; // cycles 0..95 full
  // 40 units from cycle 0 over 64 cycles: nothing fits before cycle 96, then 32 and 8
  EXPECT_EQ(iv_bins_fill(&b, 0, 64, 40), 128u + 8u);
  EXPECT_EQ(b.id[3], 3u);
  EXPECT_EQ(b.used[3], 32u);
  EXPECT_EQ(b.used[4], 8u);
}

} // namespace
