// Calendars (models/common/simtvp_cal.h), which the AT core books its issue slots, units and
// ports in: simtvp_cal_take1, the short path of one-cycle bookings, books exactly what
// simtvp_cal_take(k, t, 1) books — inside the ring, on busy cycles, before the ring's base
// (forgotten history) and past its end (the ring slides).
#include <gtest/gtest.h>

#include <cstdint>

#include "simtvp_cal.h"

namespace {

TEST(SimtvpCal, TakeOneCycleBooksWhatTakeBooks) {
  simtvp_cal a, b;
  simtvp_cal_reset(&a, 100);
  simtvp_cal_reset(&b, 100);
  // A reproducible walk: mostly near the last booking (the AT core's case), sometimes far back
  // (before the base) or far ahead (the ring slides by more than its length).
  uint64_t x = 12345, t = 100;
  for (int i = 0; i < 200000; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t r = (uint32_t)(x >> 33);
    if (r % 1000 == 0) t += 3 * SIMTVP_CAL_CYCLES;
    else if (r % 1000 == 1) t = t > 2 * SIMTVP_CAL_CYCLES ? t - 2 * SIMTVP_CAL_CYCLES : 0;
    else t = t + r % 7 - (t >= 3 ? 3 : 0);
    if (r % 5 == 0) { // some multi-cycle bookings in between, the same in both
      uint64_t s = simtvp_cal_take(&a, t, 1 + r % 9);
      ASSERT_EQ(simtvp_cal_take(&b, t, 1 + r % 9), s) << i;
      continue;
    }
    uint64_t want = simtvp_cal_take(&a, t, 1);
    ASSERT_EQ(simtvp_cal_take1(&b, t), want) << "booking " << i << " from cycle " << t;
    ASSERT_EQ(a.base, b.base) << i;
    for (uint32_t w = 0; w < SIMTVP_CAL_WORDS; w++) ASSERT_EQ(a.bits[w], b.bits[w]) << i << " word " << w;
  }
}

TEST(SimtvpCal, TakeOneCycleTakesTheFirstFreeCycle) {
  simtvp_cal k;
  simtvp_cal_reset(&k, 0);
  simtvp_cal_book(&k, 10, 3); // cycles 10, 11, 12 busy
  EXPECT_EQ(simtvp_cal_take1(&k, 9), 9u);
  EXPECT_EQ(simtvp_cal_take1(&k, 10), 13u);
  EXPECT_EQ(simtvp_cal_take1(&k, 9), 14u); // 9 and 10-13 are taken now
  EXPECT_EQ(simtvp_cal_take1(&k, SIMTVP_CAL_CYCLES + 5), SIMTVP_CAL_CYCLES + 5); // past the end: slides
  EXPECT_GT(k.base, 0u);
  EXPECT_EQ(simtvp_cal_take1(&k, 0), k.base); // before the base: the first free cycle of the ring
}

}  // namespace
