// gpu_windows: the remote-window table (models/gpuctl/gpu_windows.h) — forward lookups, users of a
// window, replacement and removal, against a std::map reference over random operations, and
// concurrent fills from several threads.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "gpu_windows.h"

namespace {

std::vector<uint64_t> users_of(gpu_windows *t, uint64_t pp) {
  std::vector<uint64_t> v;
  gpu_windows_users(t, pp, [](void *ctx, uint64_t vp) { static_cast<std::vector<uint64_t> *>(ctx)->push_back(vp); }, &v);
  return v;
}

TEST(GpuWindows, AnEmptyTableLeavesAddressesAsTheyAre) {
  gpu_windows *t = gpu_windows_create(12);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(gpu_windows_count(t), 0u);
  EXPECT_EQ(gpu_windows_physical(t, 0x7f12'3456'7890ull), 0x7f12'3456'7890ull);
  EXPECT_EQ(gpu_windows_set(t, 5, false, 0), SIMTVP_OK);  // no window: nothing to forget
  EXPECT_EQ(gpu_windows_count(t), 0u);
  EXPECT_TRUE(users_of(t, 9).empty());
  gpu_windows_destroy(t);
}

TEST(GpuWindows, AWindowMovesThePageAndKeepsTheOffset) {
  gpu_windows *t = gpu_windows_create(12);
  ASSERT_EQ(gpu_windows_set(t, 0x7f000, true, 0x42), SIMTVP_OK);
  EXPECT_EQ(gpu_windows_count(t), 1u);
  EXPECT_EQ(gpu_windows_physical(t, 0x7f000'abcull), 0x42'abcull);
  EXPECT_EQ(gpu_windows_physical(t, 0x7f001'abcull), 0x7f001'abcull);  // the next page has none
  ASSERT_EQ(gpu_windows_set(t, 0x7f001, true, 0x42), SIMTVP_OK);      // two pages onto one window
  EXPECT_EQ(users_of(t, 0x42), (std::vector<uint64_t>{0x7f000, 0x7f001}));
  ASSERT_EQ(gpu_windows_set(t, 0x7f000, true, 0x43), SIMTVP_OK);  // moved: no longer a user of 0x42
  EXPECT_EQ(users_of(t, 0x42), (std::vector<uint64_t>{0x7f001}));
  EXPECT_EQ(users_of(t, 0x43), (std::vector<uint64_t>{0x7f000}));
  ASSERT_EQ(gpu_windows_set(t, 0x7f001, false, 0), SIMTVP_OK);  // translated onto device memory now
  EXPECT_TRUE(users_of(t, 0x42).empty());
  EXPECT_EQ(gpu_windows_physical(t, 0x7f001'000ull), 0x7f001'000ull);
  EXPECT_EQ(gpu_windows_count(t), 1u);
  gpu_windows_clear(t);  // a GPU reset
  EXPECT_EQ(gpu_windows_count(t), 0u);
  EXPECT_EQ(gpu_windows_physical(t, 0x7f000'abcull), 0x7f000'abcull);
  EXPECT_TRUE(users_of(t, 0x43).empty());
  gpu_windows_destroy(t);
}

TEST(GpuWindows, BadPageSizeIsRefused) {
  EXPECT_EQ(gpu_windows_create(0), nullptr);
  EXPECT_EQ(gpu_windows_create(31), nullptr);
}

// Thousands of random sets, moves and removals over few pages and windows (long probe runs,
// growth, removal shifting runs back): every lookup and every users list equals the reference's.
TEST(GpuWindows, RandomOperationsMatchAReferenceMap) {
  gpu_windows *t = gpu_windows_create(12);
  std::map<uint64_t, uint64_t> ref;                  // vp -> pp
  std::map<uint64_t, std::vector<uint64_t>> ref_users;  // pp -> vps in set order
  std::mt19937_64 rng(11);
  for (int op = 0; op < 40000; op++) {
    uint64_t vp = rng() % 700, pp = 0x1000 + rng() % 90;
    bool window = rng() % 3 != 0;
    ASSERT_EQ(gpu_windows_set(t, vp, window, pp), SIMTVP_OK);
    auto old = ref.find(vp);
    if (old != ref.end() && (!window || old->second != pp)) {
      auto &u = ref_users[old->second];
      u.erase(std::find(u.begin(), u.end(), vp));
      if (u.empty()) ref_users.erase(old->second);
    }
    if (window) {
      if (old == ref.end() || old->second != pp) ref_users[pp].push_back(vp);
      ref[vp] = pp;
    } else {
      ref.erase(vp);
    }
    if (op % 997 == 0 || op == 39999) {
      ASSERT_EQ(gpu_windows_count(t), ref.size()) << "after " << op;
      for (uint64_t v = 0; v < 700; v++) {
        auto it = ref.find(v);
        uint64_t want = it == ref.end() ? (v << 12) | 5 : (it->second << 12) | 5;
        ASSERT_EQ(gpu_windows_physical(t, (v << 12) | 5), want) << "page " << v << " after " << op;
      }
      for (uint64_t p = 0x1000; p < 0x1000 + 90; p++) {
        auto it = ref_users.find(p);
        ASSERT_EQ(users_of(t, p), it == ref_users.end() ? std::vector<uint64_t>{} : it->second)
            << "window " << p << " after " << op;
      }
    }
  }
  gpu_windows_destroy(t);
}

// The functional engine fills translation caches from several threads: concurrent sets of
// distinct pages all land.
TEST(GpuWindows, ConcurrentFillsFromSeveralThreadsAllLand) {
  gpu_windows *t = gpu_windows_create(12);
  std::vector<std::thread> threads;
  for (uint64_t k = 0; k < 4; k++)
    threads.emplace_back([t, k] {
      for (uint64_t i = 0; i < 2000; i++) {
        EXPECT_EQ(gpu_windows_set(t, k * 100000 + i, true, 0x500 + i % 7), SIMTVP_OK);
        (void)gpu_windows_physical(t, (k * 100000 + i / 2) << 12);
      }
    });
  for (auto &th : threads) th.join();
  EXPECT_EQ(gpu_windows_count(t), 8000u);
  size_t users = 0;
  for (uint64_t p = 0x500; p < 0x507; p++) users += users_of(t, p).size();
  EXPECT_EQ(users, 8000u);
  EXPECT_EQ(gpu_windows_physical(t, (3 * 100000 + 1999ull) << 12 | 0x10), (uint64_t(0x500 + 1999 % 7) << 12) | 0x10);
  gpu_windows_destroy(t);
}

}  // namespace
