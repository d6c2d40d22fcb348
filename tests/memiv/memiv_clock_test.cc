// models/memiv/memiv_clock.h: a crossing between two clock domains, prepared once, must give
// exactly the definition floor(c × fb / fa) + 1 (docs/memiv.md §2, §7) for every clock pair and
// cycle: the multiplication by the reciprocal is checked here against the division.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

extern "C" {
#include "memiv_clock.h"
}

namespace {

uint64_t NextRand(uint64_t *x) {
  *x = *x * 6364136223846793005ull + 1442695040888963407ull;
  return *x >> 11;
}

// The definition in 128-bit arithmetic.
uint64_t Reference(uint64_t c, uint64_t fa, uint64_t fb) {
  return (uint64_t)((unsigned __int128)c * fb / fa) + 1;
}

// Cycles near the multiples of fa (where the floor steps), small, large, near the fast path's
// limit and past it.
void CheckPair(uint64_t fa, uint64_t fb, uint64_t *x) {
  const memiv_xing k = memiv_xing_make(fa, fb);
  for (int i = 0; i < 400; i++) {
    uint64_t c;
    switch (i % 5) {
      case 0: c = NextRand(x) % 100000; break;
      case 1: c = (NextRand(x) % 1000000) * fa + (NextRand(x) % 3) - 1; break;  // a step of the floor
      case 2: c = NextRand(x) % (1ull << 40); break;
      case 3: c = k.lim - 2 + NextRand(x) % 5; break;                           // across the limit
      default: c = NextRand(x) % (UINT64_MAX / (fb > fa ? fb : fa)); break;    // anywhere the quotient fits
    }
    if (c > UINT64_MAX / fb && (unsigned __int128)c * fb / fa >= UINT64_MAX) continue;
    ASSERT_EQ(memiv_xing_at(&k, c), Reference(c, fa, fb)) << c << " from " << fa << " kHz to " << fb << " kHz";
  }
}

}  // namespace

// The shipped clocks (kHz, -gpgpu_clock_domains): QV100's core, interconnect and L2 at 1 132 MHz and
// DRAM at 850 MHz, RTX 2060's 1 365 and 3 500 MHz, a few others, both ways.
TEST(MemivClock, CrossingsOfTheShippedClocksEqualTheDivision) {
  const uint64_t khz[] = {1132000, 850000, 1365000, 3500000, 1410000, 1215000, 1512000, 2619000, 700000, 924000};
  uint64_t x = 7;
  for (uint64_t fa : khz)
    for (uint64_t fb : khz) CheckPair(fa, fb, &x);
}

// Random clocks from 1 kHz to 10 GHz, and ratios that are integers, powers of two and their
// inverses (the reduced denominator 1 or 2^l: the magic number's edge cases).
TEST(MemivClock, CrossingsOfRandomClocksEqualTheDivision) {
  uint64_t x = 11;
  for (int i = 0; i < 2000; i++) {
    const uint64_t fa = 1 + NextRand(&x) % 10000000, fb = 1 + NextRand(&x) % 10000000;
    CheckPair(fa, fb, &x);
    const uint64_t k = 1 + NextRand(&x) % 64;
    CheckPair(fa, fa * k, &x);
    CheckPair(fa * k, fa, &x);
    CheckPair(fa, fa << (i % 20), &x);
    CheckPair(fa << (i % 20), fa, &x);
  }
  CheckPair(1, 1, &x);
  CheckPair(1, 10000000, &x);
  CheckPair(10000000, 1, &x);
  CheckPair(9999991, 9999973, &x);  // two primes: den near 2^24, not a power of two
}

// Equal clocks: the next cycle, at once.
TEST(MemivClock, EqualClocksCrossToTheNextCycle) {
  const memiv_xing k = memiv_xing_make(1132000, 1132000);
  EXPECT_TRUE(k.same);
  EXPECT_EQ(memiv_xing_at(&k, 0), 1u);
  EXPECT_EQ(memiv_xing_at(&k, 4127), 4128u);
  EXPECT_EQ(memiv_xing_at(&k, UINT64_MAX - 1), UINT64_MAX);
}

// By hand: QV100's L2 (1 132 MHz) to its DRAM (850 MHz), 2000 kHz in common: 566 to 425.
// L2 cycle 1000 is DRAM cycle 1000 × 425 / 566 = 750.88..., seen at 751; L2 cycle 566 at 426
// (exactly 425, so the next edge); and back, DRAM cycle 425 is L2 cycle 566, seen at 567.
TEST(MemivClock, Qv100L2ToDramByHand) {
  const memiv_xing to_dram = memiv_xing_make(1132000, 850000), to_l2 = memiv_xing_make(850000, 1132000);
  EXPECT_EQ(memiv_xing_at(&to_dram, 1000), 751u);
  EXPECT_EQ(memiv_xing_at(&to_dram, 566), 426u);
  EXPECT_EQ(memiv_xing_at(&to_l2, 425), 567u);
  EXPECT_EQ(memiv_xing_at(&to_l2, 0), 1u);
}

// The address decode's division by a channel count (RTX 2060's 12, GTX 480's 6, A100's 40, H100's
// and H200's 47, any other) of a line's bits above the channel: floor(p / den) for every p below
// 2^63, at the steps of the floor and anywhere.
TEST(MemivClock, DivisionByAnInvariantCountEqualsTheDivision) {
  uint64_t x = 13;
  std::vector<uint64_t> dens = {1, 2, 3, 6, 12, 40, 47, 64, 1000, (1ull << 62) + 1, (1ull << 63) - 1};
  for (int i = 0; i < 300; i++) dens.push_back(1 + NextRand(&x) % (i % 2 ? 100000 : (1ull << 53)));
  for (uint64_t den : dens) {
    const memiv_divisor d = memiv_divisor_make(den);
    for (int i = 0; i < 2000; i++) {
      uint64_t p = i % 3 == 0 ? NextRand(&x) << 10 ^ NextRand(&x) : i % 3 == 1 ? NextRand(&x) % 1000000 : den * (NextRand(&x) % (((1ull << 63) - 1) / den + 1));
      p &= (1ull << 63) - 1;
      if (i % 3 == 2 && i % 2 && p) p--;  // just below a multiple
      ASSERT_EQ(memiv_div(&d, p), p / den) << p << " / " << den;
    }
    ASSERT_EQ(memiv_div(&d, (1ull << 63) - 1), ((1ull << 63) - 1) / den) << den;
  }
}
