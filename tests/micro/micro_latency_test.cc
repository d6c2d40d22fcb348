// The timing GPU reproduces its configured latencies when measured like bench_micro measures
// hardware: one thread, a PTX pointer chase or a chain of dependent instructions, timed with
// %clock64 inside the kernel (bench/micro/micro_kernels.cc). The tests assert the model's own
// documented behaviour (docs/simt.md, docs/simt-ldst.md, docs/mempart.md, docs/dram.md), not the
// hardware figures of docs/correlation.md.
//
// Every figure is a difference between two runs of the same kernel that differ in one thing (the
// number of loads or operations, or one option), so the kernel's prologue and epilogue cancel and
// what is left is the cost per load or operation. The configuration is configs/default.config
// (reduced RTX2060: core, interconnect and L2 at 1365 MHz, GDDR6 command clock 3500 MHz,
// -gpgpu_l1_latency 20, -gpgpu_smem_latency 20, -gpgpu_l2_rop_latency 160, -dram_latency 100,
// 16 register banks with 2 ports each, so no chain below has a register-bank conflict).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "micro_kernels.h"

namespace {

const std::string kDefault = std::string(SIMTVP_SOURCE_DIR) + "/configs/default.config";

std::vector<std::string> ca(std::vector<std::string> extra = {}) {
  std::vector<std::string> o = {"-simt_model", "ca", "-dram_model", "ca"};
  o.insert(o.end(), extra.begin(), extra.end());
  return o;
}

// %clock64 delta of the last pass of a chase over n elements `stride` bytes apart, for `loads`
// and for 2 x `loads` loads; returns the cycles per load of the difference.
double chase_slope(const std::vector<std::string> &ov, const char *kernel, uint32_t n, uint32_t stride,
                   uint32_t passes, uint32_t loads = 256) {
  micro::values v = micro::run(kDefault, ov, [&](micro::session &s, std::vector<double> &out) {
    out.push_back(static_cast<double>(micro::chase_global_cycles(s, kernel, n, stride, loads, passes)));
    out.push_back(static_cast<double>(micro::chase_global_cycles(s, kernel, n, stride, 2 * loads, passes)));
  });
  EXPECT_TRUE(v.ok) << v.error;
  if (v.v.size() != 2) return NAN;
  return (v.v[1] - v.v[0]) / loads;
}

// A memory instruction issued at cycle t with one register read (its address): collector unit at
// t+1, register read at t+2, OC_EX at t+3, the LDST unit takes it at t+4 and works on it from t+5
// (docs/simt.md "Timing of one instruction", docs/simt-ldst.md §1). Its destination is written back
// when the data is there and the dependent load issues in that same cycle. So a dependent chain
// costs 5 + (the memory path's own latency from t+5) per load.
constexpr double kCoreToMemPipe = 5;

// L1D hit: the access at t+5 hits and the data is back -gpgpu_l1_latency cycles later
// (docs/simt-ldst.md: "a load issued at 11 hits at 12 and completes at 32" with latency 20).
// 64 lines 128 B apart fit the L1D; pass 0 fills it, pass 1 is timed: 5 + L per load.
TEST(MicroLatency, L1HitChaseCostsL1LatencyPlusFiveCyclesPerLoad) {
  EXPECT_DOUBLE_EQ(chase_slope(ca(), "chase_ca", 64, 128, 2), kCoreToMemPipe + 20);  // 25
  EXPECT_DOUBLE_EQ(chase_slope(ca({"-gpgpu_l1_latency", "35"}), "chase_ca", 64, 128, 2),
                   kCoreToMemPipe + 35);  // 40
}

// Shared memory: an access with one conflict-free phase (D = 1) taken by the LDST unit at t+4
// completes at t+4+D+smem_latency (docs/simt-ldst.md §3): 5 + smem_latency per load.
TEST(MicroLatency, SharedMemoryChaseCostsSmemLatencyPlusFiveCyclesPerLoad) {
  for (uint32_t lat : {20u, 7u}) {
    micro::values v = micro::run(kDefault, ca({"-gpgpu_smem_latency", std::to_string(lat)}),
                                 [](micro::session &s, std::vector<double> &out) {
                                   out.push_back(micro::chase_shared(s, 64, 4, 256, 2) * 256);
                                   out.push_back(micro::chase_shared(s, 64, 4, 512, 2) * 512);
                                 });
    ASSERT_TRUE(v.ok) << v.error;
    ASSERT_EQ(v.v.size(), 2u);
    EXPECT_DOUBLE_EQ((v.v[1] - v.v[0]) / 256, kCoreToMemPipe + lat) << "-gpgpu_smem_latency " << lat;
  }
}

// Constant cache hit: the L1C is accessed at t+5 and its hit latency is 0 (the hit is back in its
// access cycle, docs/simt-ldst.md §2): 5 cycles per load. 16 lines of 64 B, pass 1.
TEST(MicroLatency, ConstantCacheHitChaseCostsFiveCyclesPerLoad) {
  micro::values v = micro::run(kDefault, ca(), [](micro::session &s, std::vector<double> &out) {
    out.push_back(micro::chase_const(s, 16, 64, 256, 2, false) * 256);
    out.push_back(micro::chase_const(s, 16, 64, 512, 2, false) * 512);
  });
  ASSERT_TRUE(v.ok) << v.error;
  ASSERT_EQ(v.v.size(), 2u);
  EXPECT_DOUBLE_EQ((v.v[1] - v.v[0]) / 256, kCoreToMemPipe + 0);
}

// Dependent ALU chains: an instruction issued at t with its reads in one cycle reaches its unit at
// t+4 and writes back L cycles later, when the dependent one issues: L + 4 per operation
// (docs/simt.md "Timing of one instruction"). L from configs/SM75_RTX2060.config: int ADD 4,
// int MAD 5, fp ADD 4, fp MAD 5, dp MAD 8 (this GPU has no DP units: the SP pipeline runs it with
// the dp latency), SFU 100. 8 and 16 iterations of 64 operations.
TEST(MicroLatency, DependentAluChainsCostTheirConfiguredLatencyPlusFourCycles) {
  const struct {
    const char *cls;
    double latency;
  } want[] = {{"iadd", 4}, {"imad", 5}, {"fadd", 4}, {"ffma", 5}, {"dfma", 8}, {"sfu", 100}};
  micro::values v = micro::run(kDefault, ca(), [&](micro::session &s, std::vector<double> &out) {
    for (const auto &w : want) {
      out.push_back(static_cast<double>(micro::alu_chain_cycles(s, w.cls, 8, 2)));
      out.push_back(static_cast<double>(micro::alu_chain_cycles(s, w.cls, 16, 2)));
    }
  });
  ASSERT_TRUE(v.ok) << v.error;
  ASSERT_EQ(v.v.size(), 2 * (sizeof want / sizeof want[0]));
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    const double ops = 8.0 * micro::kAluUnroll;  // the second run has this many more
    EXPECT_DOUBLE_EQ((v.v[2 * i + 1] - v.v[2 * i]) / ops, want[i].latency + 4) << want[i].cls;
    // %clock64 counts core cycles: the 512-operation pass spans at least 512 x (L + 4) of them.
    EXPECT_GE(v.v[2 * i], ops * (want[i].latency + 4)) << want[i].cls;
  }
}

// L2 hit: the L2 slice answers a hit R + 3 L2 cycles after the push, R = -gpgpu_l2_rop_latency
// (docs/mempart.md "Timing"); with the L2 clock equal to the core clock (1365 MHz here) every
// extra core cycle of ROP latency is one more cycle per load. ld.global.cg chase, 64 lines, pass 1.
TEST(MicroLatency, L2HitLatencyMovesOneForOneWithTheRopLatency) {
  double at160 = chase_slope(ca({"-gpgpu_l2_rop_latency", "160"}), "chase_cg", 64, 128, 2);
  double at200 = chase_slope(ca({"-gpgpu_l2_rop_latency", "200"}), "chase_cg", 64, 128, 2);
  EXPECT_DOUBLE_EQ(at200 - at160, 40.0);
  // Atomics are executed at the L2 like a read hit: the same path, the same latency.
  EXPECT_DOUBLE_EQ(chase_slope(ca({"-gpgpu_l2_rop_latency", "160"}), "chase_atom", 64, 128, 2), at160);
}

// L2 miss: the request waits -dram_latency (converted to L2 cycles, here the same) in the DRAM
// latency queue before the controller (docs/mempart.md): +50 core cycles of it add 50 per load.
// Cold chase over 1024 lines 4 KB apart (every load misses the L2); the DRAM clock is not the
// core's, so the crossing may round by a fraction of a cycle on average.
TEST(MicroLatency, DramLatencyOptionAddsOneForOneToAnL2Miss) {
  auto cold = [](const std::vector<std::string> &ov) {
    micro::values v = micro::run(kDefault, ov, [](micro::session &s, std::vector<double> &out) {
      out.push_back(static_cast<double>(micro::chase_global_cycles(s, "chase_cg", 1024, 4096, 256, 1)) / 256);
    });
    EXPECT_TRUE(v.ok) << v.error;
    return v.v.empty() ? NAN : v.v[0];
  };
  double at100 = cold(ca({"-dram_latency", "100"})), at150 = cold(ca({"-dram_latency", "150"}));
  EXPECT_NEAR(at150 - at100, 50.0, 1.0);
}

// Row-buffer miss versus hit (docs/dram.md, CA controller): a hit needs RD only; a miss on a bank
// whose other row is open needs PRE, then ACT after tRP, then RD after tRCD. The difference is
// tRP + tRCD = 20 + 20 GDDR6 command cycles at 3500 MHz = 40 / 3500 x 1365 = 15.6 core cycles per
// load. Chains placed with the address decoder (64 sectors of one row; two rows of one bank),
// 4 passes of 16 loads, passes 1-3 averaged.
TEST(MicroLatency, DramRowMissCostsTrpPlusTrcdMoreThanARowHit) {
  micro::gpu_setup gs;
  std::string err;
  ASSERT_TRUE(micro::load_gpu(kDefault, {}, &gs, &err)) << err;
  const uint64_t bytes = 16ull << 20;
  micro::values v = micro::run(kDefault, ca(), [&](micro::session &s, std::vector<double> &out) {
    for (int hit = 1; hit >= 0; hit--) {
      uint64_t buf = s.alloc(bytes);
      std::string why;
      std::vector<uint64_t> a =
          hit ? micro::row_hit_chain(gs.map, buf, bytes, &why) : micro::row_miss_chain(gs.map, buf, bytes, &why);
      if (a.empty()) {
        s.fail(why);
        return;
      }
      std::vector<double> p = micro::chase_list(s, "chase_cg", buf, bytes, a, 16, 4);
      out.push_back((p[1] + p[2] + p[3]) / 3);
    }
  });
  ASSERT_TRUE(v.ok) << v.error;
  ASSERT_EQ(v.v.size(), 2u);
  const double core_mhz = gs.g.derived.core_mhz, dram_mhz = gs.g.derived.dram_mhz;
  EXPECT_NEAR(v.v[1] - v.v[0], (20 + 20) / dram_mhz * core_mhz, 1.0)
      << "row hit " << v.v[0] << ", row miss " << v.v[1] << " cycles per load";
}

}  // namespace
