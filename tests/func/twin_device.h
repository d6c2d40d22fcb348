// twin_device — two functional GPUs fed the same calls, for the per-warp driver suites
// (func_plain_test.cpp, func_run_test.cpp): `ref_` runs each launch with the reference driver,
// `test_` with the driver under test (both of type Driver, configured by the suite). Loads,
// allocations, writes, reads and symbols must agree on both; every launch compares the two
// drivers' traces, instruction counts, per-pc counts and printf output, then the suite's own
// checks (check_drivers).
//
// Driver needs: `simtvp_status run(func_launch *, simtvp_diag *)`, and the fields `executed`
// (instructions of the last launch), `trace` (a hash of what the driver saw), `counts`
// (func_launch_get_counts) and `pc_counts` (func_launch_pc_counts).
#ifndef SIMTVP_TWIN_DEVICE_H
#define SIMTVP_TWIN_DEVICE_H

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "func_runner.h"
#include "kernel_checks.h"

namespace functest {

template <class Driver>
class twin_device : public kernel_checks::device {
 public:
  explicit twin_device(uint32_t stack_bytes) {
    for (int i = 0; i < 2; i++) {
      func_runner_config cfg{};
      cfg.engine.stack_bytes = stack_bytes;
      cfg.engine.pc_counts = true;
      cfg.print = [](void *ctx, const char *text, size_t len) { static_cast<std::string *>(ctx)->append(text, len); };
      cfg.print_ctx = &printed_[i];
      cfg.run_launch = [](void *ctx, func_launch *l, simtvp_diag *diag) { return static_cast<Driver *>(ctx)->run(l, diag); };
      cfg.run_ctx = i == 0 ? &ref_ : &test_;
      r_[i] = func_runner_create(&cfg, &diag_[i]);
    }
  }
  ~twin_device() override {
    for (auto *r : r_) func_runner_destroy(r);
  }
  twin_device(const twin_device &) = delete;
  twin_device &operator=(const twin_device &) = delete;

  simtvp_status load(const std::string &ptx, const char *name) override {
    simtvp_status a = func_runner_load_ptx(r_[0], ptx.data(), ptx.size(), name, &diag_[0]);
    EXPECT_EQ(func_runner_load_ptx(r_[1], ptx.data(), ptx.size(), name, &diag_[1]), a);
    return a;
  }
  simtvp_status alloc(uint64_t bytes, uint64_t *addr) override {
    uint64_t other = 0;
    simtvp_status a = func_runner_alloc(r_[0], bytes, addr, &diag_[0]);
    EXPECT_EQ(func_runner_alloc(r_[1], bytes, &other, &diag_[1]), a);
    EXPECT_EQ(*addr, other);
    return a;
  }
  simtvp_status write(uint64_t addr, const void *src, uint64_t bytes) override {
    simtvp_status a = func_runner_write(r_[0], addr, src, bytes, &diag_[0]);
    EXPECT_EQ(func_runner_write(r_[1], addr, src, bytes, &diag_[1]), a);
    return a;
  }
  simtvp_status read(uint64_t addr, void *dst, uint64_t bytes) override {
    simtvp_status a = func_runner_read(r_[0], addr, dst, bytes, &diag_[0]);
    std::vector<uint8_t> other(bytes);
    EXPECT_EQ(func_runner_read(r_[1], addr, other.data(), bytes, &diag_[1]), a);
    if (a == SIMTVP_OK) {
      EXPECT_EQ(std::memcmp(dst, other.data(), bytes), 0) << "device memory differs at 0x" << std::hex << addr;
    }
    return a;
  }
  simtvp_status launch(const char *kernel, const uint32_t grid[3], const uint32_t block[3], uint32_t smem,
                       const void **args) override {
    simtvp_diag_clear(&diag_[0]);
    simtvp_diag_clear(&diag_[1]);
    simtvp_status a = func_runner_launch(r_[0], kernel, grid, block, smem, args, &diag_[0]);
    simtvp_status b = func_runner_launch(r_[1], kernel, grid, block, smem, args, &diag_[1]);
    EXPECT_EQ(a, b) << kernel << ": " << diag_[0].message << " / " << diag_[1].message;
    EXPECT_EQ(std::string(diag_[0].message), std::string(diag_[1].message)) << kernel;
    EXPECT_EQ(ref_.executed, test_.executed) << kernel;
    EXPECT_EQ(ref_.trace, test_.trace) << kernel << ": the drivers' traces differ";
    EXPECT_EQ(ref_.counts.warp_insns, test_.counts.warp_insns) << kernel;
    EXPECT_EQ(ref_.counts.thread_insns, test_.counts.thread_insns) << kernel;
    EXPECT_EQ(ref_.counts.ctas_done, test_.counts.ctas_done) << kernel;
    EXPECT_EQ(std::memcmp(ref_.counts.loads, test_.counts.loads, sizeof ref_.counts.loads), 0) << kernel;
    EXPECT_EQ(std::memcmp(ref_.counts.stores, test_.counts.stores, sizeof ref_.counts.stores), 0) << kernel;
    EXPECT_EQ(std::memcmp(ref_.counts.atomics, test_.counts.atomics, sizeof ref_.counts.atomics), 0) << kernel;
    EXPECT_EQ(ref_.pc_counts.size(), test_.pc_counts.size()) << kernel;
    for (size_t i = 0; i < ref_.pc_counts.size() && i < test_.pc_counts.size(); i++) {
      EXPECT_EQ(ref_.pc_counts[i].warp_insns, test_.pc_counts[i].warp_insns) << kernel << " pc " << i;
      EXPECT_EQ(ref_.pc_counts[i].thread_insns, test_.pc_counts[i].thread_insns) << kernel << " pc " << i;
    }
    EXPECT_EQ(printed_[0], printed_[1]) << kernel;
    check_drivers(kernel);
    return a;
  }
  bool symbol(const char *name, uint64_t *addr, uint64_t *bytes) override {
    uint64_t a2 = 0, b2 = 0;
    bool a = func_runner_symbol(r_[0], name, addr, bytes);
    EXPECT_EQ(func_runner_symbol(r_[1], name, &a2, &b2), a);
    if (a) {
      EXPECT_EQ(*addr, a2);
    }
    return a;
  }
  std::string printed() const override { return printed_[0]; }
  const simtvp_diag &diag() const override { return diag_[0]; }

 protected:
  // The suite's own checks after every launch's common ones.
  virtual void check_drivers(const char *kernel) { (void)kernel; }
  Driver ref_, test_;

 private:
  func_runner *r_[2] = {nullptr, nullptr};
  simtvp_diag diag_[2]{};
  std::string printed_[2];
};

}  // namespace functest

#endif  // SIMTVP_TWIN_DEVICE_H
