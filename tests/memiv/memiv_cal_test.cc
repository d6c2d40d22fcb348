// models/memiv/memiv_cal.h: a port's calendar of booked cycles. Its word-at-a-time search must
// give exactly the answer of the definition — the first t' >= t with every cycle of [t', t' + n)
// free, cycles past the window's end free — which a cycle-by-cycle search over a plain set of
// booked cycles gives here (docs/memiv.md §3, §7).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

extern "C" {
#include "memiv_cal.h"
}

namespace {

// Every cycle ever booked on a port, one flag per cycle.
struct Booked {
  std::vector<char> at;
  bool count(uint64_t c) const { return c < at.size() && at[c]; }
  void insert(uint64_t c) {
    if (c >= at.size()) at.resize(c + 4096);
    at[c] = 1;
  }
};

// The definition, one cycle at a time: the window holds the cycles from base on (every asked
// cycle is at or after base), those past its end are free.
uint64_t ReferenceFind(const Booked &booked, uint64_t base, uint64_t t, uint32_t n) {
  const uint64_t end = base + MEMIV_CAL_CYCLES;
  for (;; t++) {
    uint32_t i = 0;
    while (i < n && t + i < end && !booked.count(t + i)) i++;
    if (i == n || t + i >= end) return t;
  }
}

uint64_t NextRand(uint64_t *x) {
  *x = *x * 6364136223846793005ull + 1442695040888963407ull;
  return *x >> 33;
}

// Random bookings out of time order (up to a window behind the latest), of 1 to 200 cycles, on a
// port that is sometimes saturated (backlogs of whole words) and sometimes sparse.
// With `fixed`, bookings are max_len cycles long, a few one shorter (a data bus's column commands of
// whole lines and some sectors), and some answers are not booked.
// With `leaps`, time now and then leaps 600 to 3 600 cycles ahead (the window moves by many words
// at once, across the ring's end). With `backlog`, bookings are memiv_cal_book_backlog's (a DRAM
// bus's: each may extend what a search learnt).
void RunAgainstReference(uint64_t seed, uint32_t max_len, uint32_t spread, bool fixed = false, bool leaps = false,
                         bool backlog = false) {
  memiv_cal k;
  memset(&k, 0, sizeof k);
  Booked booked;
  uint64_t x = seed, clock = 0;
  for (int i = 0; i < 20000; i++) {
    clock += NextRand(&x) % 3;
    if (leaps && NextRand(&x) % 64 == 0) clock += 600 + NextRand(&x) % 3000;
    uint64_t back = NextRand(&x) % spread;
    uint64_t t = clock > back ? clock - back : 0;
    if (t < k.base) t = k.base;
    uint32_t n = fixed ? max_len - (max_len > 1 && NextRand(&x) % 4 == 0) : 1 + (uint32_t)(NextRand(&x) % max_len);
    uint64_t want = ReferenceFind(booked, k.base, t, n);
    uint64_t got = memiv_cal_find(&k, t, n);
    ASSERT_EQ(got, want) << "booking " << i << " at " << t << " for " << n << " cycles, window from " << k.base;
    if (fixed && NextRand(&x) % 4 == 0) continue;  // asked, not booked (a column command its bank group refused)
    if (backlog) memiv_cal_book_backlog(&k, got, n);
    else memiv_cal_book(&k, got, n);
    for (uint64_t c = got; c < got + n; c++) booked.insert(c);
  }
}

}  // namespace

TEST(MemivCal, WordSearchEqualsTheCycleByCycleDefinitionOnShortBookings) {
  RunAgainstReference(1, 4, 3000);
  RunAgainstReference(2, 2, 200);
}

TEST(MemivCal, BookingsOfOneLengthSomeNotBookedEqualTheDefinition) {
  RunAgainstReference(8, 4, 400, true);
  RunAgainstReference(9, 16, 1500, true);
  RunAgainstReference(10, 1, 300, true);
  RunAgainstReference(11, 90, 3000, true);
}

// A saturated port asked far behind its latest bookings again and again (a DRAM bus under a
// streaming kernel): the regions earlier searches learnt hold no start (the calendar's hint), and
// the answers stay the definition's when lengths change between searches.
TEST(MemivCal, SearchesIntoALearntBacklogEqualTheDefinition) {
  RunAgainstReference(14, 2, 3000, true);
  RunAgainstReference(15, 3, 4000);
  RunAgainstReference(16, 8, 2500, true, true);
}

// Bookings that extend what a search learnt (memiv_cal_book_backlog), searches asked before a learnt
// backlog that go on from its end: the answers stay the definition's.
TEST(MemivCal, SearchesThroughBacklogsExtendedByBookingsEqualTheDefinition) {
  RunAgainstReference(17, 4, 3000, true, false, true);
  RunAgainstReference(18, 8, 2500, true, true, true);
  RunAgainstReference(19, 3, 4000, false, false, true);
  RunAgainstReference(20, 70, 3000, false, true, true);
}

TEST(MemivCal, WindowLeapingManyWordsAtOnceKeepsTheSearchEqualToTheDefinition) {
  RunAgainstReference(12, 8, 400, false, true);
  RunAgainstReference(13, 4, 300, true, true);
}

TEST(MemivCal, WordSearchEqualsTheCycleByCycleDefinitionAcrossWordsAndBacklogs) {
  RunAgainstReference(3, 70, 5000);
  RunAgainstReference(4, 200, 500);
}

// Two ports held at once, the second `off` cycles after the first for its own length (a packet
// through the crossbar: both ports, same cycles; a column command: its bank group's slots, then
// the data bus CL later): the first start both leave free, against the definition on both sets of
// booked cycles, each port with its own window.
void RunPairAgainstReference(uint64_t seed, uint64_t off, bool same_length) {
  memiv_cal a, b;
  memset(&a, 0, sizeof a);
  memset(&b, 0, sizeof b);
  Booked booked_a, booked_b;
  uint64_t x = seed, clock = 0;
  auto busy = [](const Booked &bk, const memiv_cal &k, uint64_t c) {
    return c < k.base + MEMIV_CAL_CYCLES && bk.count(c) > 0;
  };
  for (int i = 0; i < 20000; i++) {
    clock += NextRand(&x) % 3;
    uint64_t back = NextRand(&x) % 2000;
    uint64_t t = clock > back ? clock - back : 0;
    uint32_t na = 1 + (uint32_t)(NextRand(&x) % (i % 2 ? 4 : 80));
    uint32_t nb = same_length ? na : 1 + (uint32_t)(NextRand(&x) % (i % 3 ? 8 : 70));
    int which = (int)(NextRand(&x) % 4);  // 0: a alone, 1: b alone, else both
    if (which < 2) {
      memiv_cal *k = which ? &b : &a;
      Booked &bk = which ? booked_b : booked_a;
      uint32_t n = which ? nb : na;
      uint64_t s = memiv_cal_find(k, t < k->base ? k->base : t, n);
      memiv_cal_book(k, s, n);
      for (uint64_t c = s; c < s + n; c++) bk.insert(c);
    } else {
      uint64_t s0 = std::max(t, a.base);
      if (s0 + off < b.base) s0 = b.base - off;
      uint64_t want = s0;
      for (;; want++) {
        bool ok = true;
        for (uint32_t k = 0; ok && k < na; k++) ok = !busy(booked_a, a, want + k);
        for (uint32_t k = 0; ok && k < nb; k++) ok = !busy(booked_b, b, want + off + k);
        if (ok) break;
      }
      uint64_t got = off == 0 && same_length ? memiv_cal_find_both(&a, &b, s0, na)
                                             : memiv_cal_find_pair(&a, na, &b, off, nb, s0, NULL);
      ASSERT_EQ(got, want) << "booking " << i << " at " << s0 << " for " << na << " and " << nb << " cycles";
      memiv_cal_book_backlog(&a, got, na);  // as memiv books a column command
      memiv_cal_book_backlog(&b, got + off, nb);
      for (uint64_t c = got; c < got + na; c++) booked_a.insert(c);
      for (uint64_t c = got + off; c < got + off + nb; c++) booked_b.insert(c);
    }
  }
}

TEST(MemivCal, JointSearchOfTwoPortsEqualsTheCycleByCycleDefinition) {
  RunPairAgainstReference(5, 0, true);
  RunPairAgainstReference(6, 12, false);
  RunPairAgainstReference(7, 3, false);
}

// A DRAM channel's column commands with what their searches learnt (memiv_cal_pair_hint): a bus
// shared by `groups` bank groups, each with a hint for reads (off) and one for writes (off2), the
// bus saturated and out-of-order asks (a backlog full of holes the groups refuse), line-long
// commands with now and then a shorter or longer one, some answers not booked, bus bookings of
// other groups in between; every answer against the cycle-by-cycle definition. With `leaps`,
// time now and then leaps ahead (the windows move by many words, past what was learnt).
void RunColumnsAgainstReference(uint64_t seed, uint32_t groups, uint64_t off, uint64_t off2, bool leaps) {
  std::vector<memiv_cal> group(groups);
  std::vector<memiv_cal_pair_hint> learnt(2 * groups);
  memiv_cal bus;
  memset(group.data(), 0, groups * sizeof group[0]);
  memset(learnt.data(), 0, learnt.size() * sizeof learnt[0]);
  memset(&bus, 0, sizeof bus);
  std::vector<Booked> booked_group(groups);
  Booked booked_bus;
  uint64_t x = seed, clock = 0;
  auto busy = [](const Booked &bk, const memiv_cal &k, uint64_t c) {
    return c < k.base + MEMIV_CAL_CYCLES && bk.count(c) > 0;
  };
  for (int i = 0; i < 20000; i++) {
    clock += NextRand(&x) % 10;  // 4.5 cycles apart: the bus 89 % busy
    if (leaps && NextRand(&x) % 128 == 0) clock += 600 + NextRand(&x) % 3000;
    uint64_t back = NextRand(&x) % 1500;
    uint64_t t = clock > back ? clock - back : 0;
    uint32_t gi = (uint32_t)(NextRand(&x) % groups);
    bool write = NextRand(&x) % 3 == 0;
    uint64_t o = write ? off2 : off;
    uint32_t r = (uint32_t)(NextRand(&x) % 16);
    uint32_t na = r == 0 ? 2 : r == 1 ? 12 : 8, nb = r == 0 ? 1 : r == 1 ? 6 : 4;
    memiv_cal &a = group[gi];
    uint64_t s0 = std::max(t, a.base);
    if (s0 + o < bus.base) s0 = bus.base - o;
    uint64_t want = s0;
    for (;; want++) {
      bool ok = true;
      for (uint32_t k = 0; ok && k < na; k++) ok = !busy(booked_group[gi], a, want + k);
      for (uint32_t k = 0; ok && k < nb; k++) ok = !busy(booked_bus, bus, want + o + k);
      if (ok) break;
    }
    memiv_cal_pair_hint *h = &learnt[2 * gi + write];
    uint64_t got = memiv_cal_find_pair(&a, na, &bus, o, nb, s0, h);
    ASSERT_EQ(got, want) << "command " << i << " of group " << gi << " at " << s0 << " for " << na << " and " << nb
                         << " cycles, learnt [" << h->from << ", " << h->to << ")";
    if (NextRand(&x) % 8 == 0) continue;  // asked, not booked
    memiv_cal_pair_booked(h, got, na);
    memiv_cal_book_backlog(&a, got, na);
    memiv_cal_book_backlog(&bus, got + o, nb);
    for (uint64_t c = got; c < got + na; c++) booked_group[gi].insert(c);
    for (uint64_t c = got + o; c < got + o + nb; c++) booked_bus.insert(c);
  }
}

TEST(MemivCal, ColumnCommandSearchesSkippingWhatTheyLearntEqualTheDefinition) {
  RunColumnsAgainstReference(11, 4, 14, 4, false);
  RunColumnsAgainstReference(12, 4, 14, 4, true);
  RunColumnsAgainstReference(13, 2, 3, 3, false);
  RunColumnsAgainstReference(14, 1, 20, 9, true);
}

TEST(MemivCal, BookingsInTimeOrderTakeTheCycleTheyWant) {
  memiv_cal k;
  memset(&k, 0, sizeof k);
  memiv_cal_book(&k, 10, 5);  // 10..14
  EXPECT_EQ(memiv_cal_find(&k, 15, 3), 15u);
  EXPECT_EQ(memiv_cal_find(&k, 8, 2), 8u);    // 8, 9 free
  EXPECT_EQ(memiv_cal_find(&k, 8, 3), 15u);   // 8..10 overlaps
  memiv_cal_book(&k, 60, 10);                 // 60..69 crosses a word
  EXPECT_EQ(memiv_cal_find(&k, 50, 12), 70u); // 50..61 overlaps, 15..: starts >= 50
  EXPECT_EQ(memiv_cal_find(&k, 50, 10), 50u); // 50..59 free
}

// Among holes of 3 cycles a search for 4 goes on to the backlog's end, one for 3 finds the holes.
TEST(MemivCal, ShorterAndLongerSearchesAmongShortHolesEqualTheDefinition) {
  memiv_cal k;
  memset(&k, 0, sizeof k);
  for (uint64_t c = 100; c < 300; c += 8) memiv_cal_book(&k, c, 5);  // 5 booked, 3 free, ... to 300
  memiv_cal_book(&k, 300, 20);                                         // 300..319
  EXPECT_EQ(memiv_cal_find(&k, 101, 4), 320u);  // no hole of 4 from 101
  EXPECT_EQ(memiv_cal_find(&k, 150, 3), 153u);  // 3-cycle holes at 105, 113, ..., 153, ...
  EXPECT_EQ(memiv_cal_find(&k, 150, 5), 320u);
  memiv_cal_book(&k, 325, 4);                   // 320..324 free, 325..328 booked
  EXPECT_EQ(memiv_cal_find(&k, 200, 4), 320u);
  EXPECT_EQ(memiv_cal_find(&k, 200, 6), 329u);
}

// memiv_cal_book_backlog extends what a search learnt only over starts its booking makes
// impossible. Booked 100..109 and 118..199: a search for 4 from 100 finds the hole at 110 and
// learns "no start for 4 in [100, 110)". A booking of 114..117 leaves 110..113 free (a run of 4
// ends where it begins): nothing more learnt. One of 112..113 covers every start for 4 in
// 110..113: the learnt backlog reaches 114, and 114..199 is booked, so a search for 4 from 100
// answers 200; one for 2 still finds 110..111.
TEST(MemivCal, BacklogBookingsExtendWhatASearchLearntOnlyOverStartsTheyCover) {
  memiv_cal k;
  memset(&k, 0, sizeof k);
  memiv_cal_book(&k, 100, 10);
  memiv_cal_book(&k, 118, 82);
  EXPECT_EQ(memiv_cal_find(&k, 100, 4), 110u);
  EXPECT_EQ(k.hint_to, 110u);
  memiv_cal_book_backlog(&k, 114, 4);  // 110..113 still free: a start for 4
  EXPECT_EQ(k.hint_to, 110u);
  EXPECT_EQ(memiv_cal_find(&k, 100, 4), 110u);
  memiv_cal_book_backlog(&k, 112, 2);  // 110..111 free, too short for 4
  EXPECT_EQ(k.hint_to, 114u);
  EXPECT_EQ(memiv_cal_find(&k, 100, 4), 200u);  // 114..117 booked above: the backlog's end
  EXPECT_EQ(memiv_cal_find(&k, 100, 2), 110u);  // shorter than what was learnt: the hint does not apply
}
