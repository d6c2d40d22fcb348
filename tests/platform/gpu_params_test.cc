// models/gpuctl gpu_params: what the GPU's capability registers, control-side timing and functional
// engine get from a configuration, and the cycle <-> time conversions of the GPU module.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config.h"
#include "gpu_config.h"
#include "gpu_params.h"

namespace {

class GpuParams : public ::testing::Test {
 protected:
  // The default configuration file plus overrides.
  simtvp_status load(std::vector<const char *> overrides = {}) {
    if (registry) config_registry_destroy(registry);
    registry = config_registry_create(nullptr);
    std::string file = std::string(SIMTVP_SOURCE_DIR) + "/configs/default.config";
    simtvp_status st = gpu_config_register(registry, &cfg, &diag);
    if (st == SIMTVP_OK) st = config_registry_load_file(registry, file.c_str(), &diag);
    if (st == SIMTVP_OK && !overrides.empty())
      st = config_registry_parse_args(registry, static_cast<int>(overrides.size()), overrides.data(), &diag);
    if (st == SIMTVP_OK) st = gpu_config_finalize(&cfg, registry, &diag);
    return st;
  }
  void TearDown() override { config_registry_destroy(registry); }

  gpu_config cfg;
  config_registry *registry = nullptr;
  simtvp_diag diag;
  gpu_params p;
};

TEST_F(GpuParams, DefaultConfigurationMapsToTheCapabilityRegisters) {
  ASSERT_EQ(load(), SIMTVP_OK) << diag.message;
  ASSERT_EQ(gpu_params_from_config(&cfg, &p, &diag), SIMTVP_OK) << diag.message;
  const gpu_caps &c = p.ctl.caps;
  EXPECT_EQ(c.clusters, 8u);
  EXPECT_EQ(c.cores_per_cluster, 1u);
  EXPECT_EQ(c.cc_major, 7u);
  EXPECT_EQ(c.cc_minor, 5u);
  EXPECT_EQ(c.warp_size, 32u);
  EXPECT_EQ(c.max_threads_per_sm, 1024u);  // -gpgpu_shader_core_pipeline 1024:32
  EXPECT_EQ(c.max_warps_per_sm, 32u);
  EXPECT_EQ(c.max_ctas_per_sm, 32u);       // -gpgpu_shader_cta
  EXPECT_EQ(c.max_threads_per_block, 1024u);
  EXPECT_EQ(c.regs_per_sm, 65536u);
  EXPECT_EQ(c.smem_per_sm, 65536u);
  EXPECT_EQ(c.smem_per_block, 49152u);
  EXPECT_EQ(c.smem_per_block_optin, 65536u);  // -gpgpu_shmem_per_block
  EXPECT_EQ(c.l2_bytes, 6u * 64 * 128 * 16);  // 3 channels x 2 sub-partitions x S:64:128:16
  EXPECT_EQ(c.mem_bus_width_bits, 3u * 2 * 8); // 3 channels x 1 chip x 2 bytes
  EXPECT_EQ(c.core_clock_khz, 1365000u);
  EXPECT_EQ(c.mem_clock_khz, 3500000u);
  EXPECT_EQ(c.devmem_bytes, 4096ull << 20);
  EXPECT_EQ(p.core_clock_hz, 1365000000u);
  // Timing at 1365 MHz: DMA latency ceil(600 ns x 1.365) = 819 cycles; host link
  // 12 GB/s / 1.365 GHz = 8.8 -> 9 bytes per cycle; DRAM 3 x 2 B x 4 (data/command ratio) x
  // 3500 MHz = 84 GB/s -> 61.5 -> 62 bytes per cycle; device latency -dram_latency 100.
  EXPECT_EQ(p.ctl.cp.dma_cycles, 819u);
  EXPECT_EQ(p.ctl.ce.sysmem_latency_cycles, 819u);
  EXPECT_EQ(p.ctl.ce.sysmem_bytes_per_cycle, 9u);
  EXPECT_EQ(p.ctl.ce.devmem_bytes_per_cycle, 62u);
  EXPECT_EQ(p.ctl.ce.devmem_latency_cycles, 100u);
  // Functional engine; heap above device memory, 64 KiB apart.
  EXPECT_EQ(p.func.n_sms, 8u);
  EXPECT_EQ(p.func.max_warps_per_sm, 32u);
  EXPECT_EQ(p.func.stack_bytes, 1024u);
  EXPECT_EQ(p.heap_bytes, 8388608u);
  EXPECT_EQ(p.heap_base, c.devmem_base + c.devmem_bytes + 65536);
  EXPECT_STREQ(p.simt_model, "timing");  // the RTX2060 values ask for -simt_model ca
  EXPECT_EQ(p.ctl.ctas_per_cycle, 8u);    // one per core per cycle
}

TEST_F(GpuParams, FunctionalSideOnlyWhenEveryCoreIsFunctional) {
  ASSERT_EQ(load({"-simt_model", "func"}), SIMTVP_OK) << diag.message;
  ASSERT_EQ(gpu_params_from_config(&cfg, &p, &diag), SIMTVP_OK);
  EXPECT_STREQ(p.simt_model, "func");
  EXPECT_EQ(p.ctl.ctas_per_cycle, 0u);  // no issue limit
  ASSERT_EQ(load({"-simt_model", "func", "-simt_model_override", "3:ca"}), SIMTVP_OK) << diag.message;
  ASSERT_EQ(gpu_params_from_config(&cfg, &p, &diag), SIMTVP_OK);
  EXPECT_STREQ(p.simt_model, "timing");
  ASSERT_EQ(load({"-gpgpu_ptx_sim_mode", "1"}), SIMTVP_OK) << diag.message;
  ASSERT_EQ(gpu_params_from_config(&cfg, &p, &diag), SIMTVP_OK);
  EXPECT_STREQ(p.simt_model, "func");
}

TEST_F(GpuParams, LaunchLatenciesReachTheTimingSideOnly) {
  ASSERT_EQ(load({"-gpgpu_kernel_launch_latency", "5000", "-gpgpu_TB_launch_latency", "20"}), SIMTVP_OK)
      << diag.message;
  ASSERT_EQ(gpu_params_from_config(&cfg, &p, &diag), SIMTVP_OK);
  EXPECT_STREQ(p.simt_model, "timing");
  EXPECT_EQ(p.ctl.kernel_launch_cycles, 5000u);
  EXPECT_EQ(p.ctl.cta_launch_cycles, 20u);
  // The functional side runs kernels in zero GPU time: no latencies.
  ASSERT_EQ(load({"-simt_model", "func", "-gpgpu_kernel_launch_latency", "5000", "-gpgpu_TB_launch_latency", "20"}),
            SIMTVP_OK);
  ASSERT_EQ(gpu_params_from_config(&cfg, &p, &diag), SIMTVP_OK);
  EXPECT_EQ(p.ctl.kernel_launch_cycles, 0u);
  EXPECT_EQ(p.ctl.cta_launch_cycles, 0u);
}

TEST_F(GpuParams, FuncThreadsReachTheFunctionalEngine) {
  ASSERT_EQ(load({"-simt_model", "func"}), SIMTVP_OK) << diag.message;
  ASSERT_EQ(gpu_params_from_config(&cfg, &p, &diag), SIMTVP_OK);
  EXPECT_EQ(p.func.threads, 1u);
  ASSERT_EQ(load({"-simt_model", "func", "-func_threads", "4"}), SIMTVP_OK) << diag.message;
  ASSERT_EQ(gpu_params_from_config(&cfg, &p, &diag), SIMTVP_OK);
  EXPECT_EQ(p.func.threads, 4u);
}

TEST_F(GpuParams, PtxLineStatisticsTurnOnPerInstructionCountsOnEverySide) {
  ASSERT_EQ(load(), SIMTVP_OK) << diag.message;
  ASSERT_EQ(gpu_params_from_config(&cfg, &p, &diag), SIMTVP_OK);
  EXPECT_FALSE(p.func.pc_counts);
  ASSERT_EQ(load({"-enable_ptx_file_line_stats", "1"}), SIMTVP_OK) << diag.message;
  ASSERT_EQ(gpu_params_from_config(&cfg, &p, &diag), SIMTVP_OK);
  EXPECT_TRUE(p.func.pc_counts);
}

TEST_F(GpuParams, NamesFillTheNameRegistersAndLongerOnesAreRefused) {
  ASSERT_EQ(load({"-gpu_name", "01234567890123456789012345678901"}), SIMTVP_OK) << diag.message;
  ASSERT_EQ(gpu_params_from_config(&cfg, &p, &diag), SIMTVP_OK);
  EXPECT_STREQ(p.ctl.caps.name, "01234567890123456789012345678901");  // all 32 bytes
  EXPECT_NE(load({"-gpu_name", "0123456789012345678901234567890123456789"}), SIMTVP_OK);
  EXPECT_STREQ(diag.option, "-gpu_name");
}

TEST_F(GpuParams, OldComputeCapabilityLimitsBlocksAndGrids) {
  ASSERT_EQ(load({"-gpgpu_compute_capability_major", "1", "-gpgpu_compute_capability_minor", "3"}), SIMTVP_OK);
  ASSERT_EQ(gpu_params_from_config(&cfg, &p, &diag), SIMTVP_OK);
  EXPECT_EQ(p.ctl.caps.max_threads_per_block, 512u);
  EXPECT_EQ(p.ctl.caps.max_grid_dim[0], 65535u);
}

TEST_F(GpuParams, ZeroDeviceMemoryIsAConfigurationErrorNamingTheOption) {
  ASSERT_EQ(load({"-device_memory_mb", "0"}), SIMTVP_OK) << diag.message;
  EXPECT_EQ(gpu_params_from_config(&cfg, &p, &diag), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(diag.option, "-device_memory_mb");
}

TEST_F(GpuParams, ZeroBusBandwidthIsAConfigurationErrorNamingTheOption) {
  ASSERT_EQ(load({"-host_bus_bandwidth_gbs", "0"}), SIMTVP_OK) << diag.message;
  EXPECT_EQ(gpu_params_from_config(&cfg, &p, &diag), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(diag.option, "-host_bus_bandwidth_gbs");
}

// 1 cycle at 1132 MHz is 883.39 ps: rounded up to 884 ps, and 884 ps is 1 completed cycle.
TEST(GpuClock, CyclesAndPicosecondsRoundTrip) {
  EXPECT_EQ(gpu_cycles_to_ps(1, 1132000000u), 884u);
  EXPECT_EQ(gpu_ps_to_cycles(884, 1132000000u), 1u);
  EXPECT_EQ(gpu_ps_to_cycles(883, 1132000000u), 0u);
  EXPECT_EQ(gpu_cycles_to_ps(1000, 1000000000u), 1000000u);
  for (uint64_t c : {0ull, 1ull, 7ull, 123456789ull, 1ull << 40, 1ull << 50})
    for (uint64_t hz : {1000ull, 705000000ull, 1132000000ull, 3000000000ull}) {
      if (static_cast<double>(c) * 1e12 / static_cast<double>(hz) > 1.8e19) continue;  // > 2^64 ps
      EXPECT_EQ(gpu_ps_to_cycles(gpu_cycles_to_ps(c, hz), hz), c) << c << " cycles at " << hz;
    }
  EXPECT_EQ(gpu_cycles_to_ps(1ull << 40, 1000), UINT64_MAX);  // beyond 2^64 ps: saturates
}

}  // namespace
