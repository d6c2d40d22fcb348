// Register block: reset values, access rules, interrupts and error capture (docs/gpu-abi.md).
#include <gtest/gtest.h>

#include <vector>

#include "gpu_regs.h"

namespace {

struct Recorder {
  bool irq = false;
  int irq_changes = 0;
  std::vector<std::pair<uint32_t, uint32_t>> notified;
  uint64_t now_ns = 0;
};

class GpuRegs : public ::testing::Test {
 protected:
  void SetUp() override {
    gpu_caps_default(&caps);
    caps.n_channels = 4;
    gpu_regs_ports p{};
    p.irq.ctx = &rec;
    p.irq.set = [](void *c, bool l) {
      auto *r = static_cast<Recorder *>(c);
      r->irq = l;
      r->irq_changes++;
    };
    p.notify.ctx = &rec;
    p.notify.written = [](void *c, uint32_t off, uint32_t v) {
      static_cast<Recorder *>(c)->notified.push_back({off, v});
    };
    p.timer.ctx = &rec;
    p.timer.now_ns = [](void *c) { return static_cast<Recorder *>(c)->now_ns; };
    r = gpu_regs_create(&caps, p);
    ASSERT_NE(r, nullptr);
  }
  void TearDown() override { gpu_regs_destroy(r); }
  uint32_t rd(uint32_t off) { return gpu_regs_host_read(r, off, 4); }
  void wr(uint32_t off, uint32_t v) { gpu_regs_host_write(r, off, 4, v); }
  uint32_t fw(uint32_t off) { return gpu_regs_fw_read(r, off); }
  uint32_t err_code() { return GPU_FIELD_GET(GPU_ERR_CODE_CODE, fw(GPU_REG_ERR_CODE)); }

  gpu_caps caps;
  Recorder rec;
  gpu_regs *r = nullptr;
};

TEST_F(GpuRegs, EveryRegisterResetsToItsTableValue) {
  uint32_t n;
  const gpu_reg_info *t = gpu_reg_table(&n);
  gpu_caps def;
  gpu_caps_default(&def);
  for (uint32_t i = 0; i < n; i++) {
    if (t[i].access == GPU_ACC_WO) continue;
    if (t[i].offset == GPU_REG_N_CHANNELS) continue; /* this fixture uses 4 channels */
    if (t[i].offset == GPU_REG_STATUS) continue;     /* IDLE is set by the firmware at boot */
    uint32_t off = t[i].offset;
    EXPECT_EQ(fw(off), t[i].reset) << t[i].name;
    if (t[i].per_channel) {
      EXPECT_EQ(fw(off + 3 * GPU_CH_STRIDE), t[i].reset) << t[i].name << " ch3";
    }
  }
}

TEST_F(GpuRegs, CapabilityRegistersReportTheConfiguration) {
  EXPECT_EQ(rd(GPU_REG_ID), GPU_ID_VALUE);
  EXPECT_EQ(rd(GPU_REG_ABI_VERSION), GPU_ABI_VERSION);
  EXPECT_EQ(rd(GPU_REG_N_CHANNELS), 4u);
  EXPECT_EQ(rd(GPU_REG_SM_COUNT), caps.clusters * caps.cores_per_cluster);
  EXPECT_EQ(GPU_FIELD_GET(GPU_CC_MAJOR, rd(GPU_REG_CC)), 7u);
  EXPECT_EQ(GPU_FIELD_GET(GPU_CC_MINOR, rd(GPU_REG_CC)), 5u);
  char name[33] = {};
  for (int i = 0; i < 8; i++) {
    uint32_t v = rd(GPU_REG_NAME0 + 4 * i);
    memcpy(name + 4 * i, &v, 4);
  }
  EXPECT_STREQ(name, "simtvp GPU");
  uint64_t base = rd(GPU_REG_DEVMEM_BASE_LO) | (uint64_t)rd(GPU_REG_DEVMEM_BASE_HI) << 32;
  EXPECT_EQ(base, caps.devmem_base);
  EXPECT_EQ(rd(GPU_REG_ERR_STATUS), 0u) << "legal reads raise no error";
}

TEST_F(GpuRegs, WriteToReadOnlyRegisterIsIgnoredAndRaisesErrorWithAddressAndValue) {
  wr(GPU_REG_INTR_ENABLE, 0x3);
  wr(GPU_REG_SM_COUNT, 1234);
  EXPECT_EQ(rd(GPU_REG_SM_COUNT), caps.clusters * caps.cores_per_cluster);
  EXPECT_EQ(rd(GPU_REG_ERR_STATUS), GPU_FIELD_MASK(GPU_ERR_STATUS_REG));
  EXPECT_EQ(err_code(), (uint32_t)GPU_ERR_REG_RO_WRITE);
  EXPECT_EQ(rd(GPU_REG_ERR_ADDR_LO), (uint32_t)GPU_REG_SM_COUNT);
  EXPECT_EQ(rd(GPU_REG_ERR_INFO), 1234u);
  EXPECT_TRUE(rd(GPU_REG_INTR_STATUS) & GPU_FIELD_MASK(GPU_INTR_STATUS_ERROR));
  EXPECT_TRUE(rec.irq);
}

TEST_F(GpuRegs, ReadOfWriteOnlyDoorbellReturnsZeroAndRaisesError) {
  EXPECT_EQ(rd(GPU_REG_DOORBELL), 0u);
  EXPECT_EQ(err_code(), (uint32_t)GPU_ERR_REG_WO_READ);
  EXPECT_EQ(fw(GPU_REG_ERR_ADDR_LO), (uint32_t)GPU_REG_DOORBELL);
}

TEST_F(GpuRegs, UnmappedOffsetsReadZeroAndRaiseError) {
  EXPECT_EQ(rd(0x0F00), 0u);
  EXPECT_EQ(err_code(), (uint32_t)GPU_ERR_REG_UNMAPPED);
  EXPECT_EQ(fw(GPU_REG_ERR_ADDR_LO), 0x0F00u);
  // Channel 4 does not exist with 4 channels.
  wr(GPU_REG_ERR_STATUS, 0xFFFFFFFFu & GPU_FIELD_MASK(GPU_ERR_STATUS_REG));
  wr(GPU_CH_REG(4, GPU_REG_CH_PUT), 8);
  EXPECT_EQ(err_code(), (uint32_t)GPU_ERR_REG_UNMAPPED);
  EXPECT_EQ(fw(GPU_REG_ERR_ADDR_LO), GPU_CH_REG(4, GPU_REG_CH_PUT));
  EXPECT_EQ(fw(GPU_REG_ERR_INFO), 8u);
}

TEST_F(GpuRegs, ReservedBitsAreDroppedAndReported) {
  wr(GPU_CH_REG(1, GPU_REG_CH_BASE_LO), 0x12345678);  // bits [7:0] reserved (256-byte aligned)
  EXPECT_EQ(rd(GPU_CH_REG(1, GPU_REG_CH_BASE_LO)), 0x12345600u);
  EXPECT_EQ(err_code(), (uint32_t)GPU_ERR_REG_RESERVED_BITS);
  EXPECT_EQ(fw(GPU_REG_ERR_INFO), 0x12345678u);
}

TEST_F(GpuRegs, NarrowOrMisalignedAccessIsRejected) {
  gpu_regs_host_write(r, GPU_REG_SCRATCH, 2, 0xFFFF);
  EXPECT_EQ(rd(GPU_REG_SCRATCH), 0u);
  EXPECT_EQ(err_code(), (uint32_t)GPU_ERR_REG_ACCESS_SIZE);
  EXPECT_EQ(fw(GPU_REG_ERR_INFO), 2u);
  EXPECT_EQ(gpu_regs_host_read(r, GPU_REG_SCRATCH + 1, 4), 0u);
}

TEST_F(GpuRegs, ReadWriteRegisterKeepsWhatWasWritten) {
  wr(GPU_REG_SCRATCH, 0xDEADBEEF);
  EXPECT_EQ(rd(GPU_REG_SCRATCH), 0xDEADBEEFu);
  EXPECT_EQ(rd(GPU_REG_ERR_STATUS), 0u);
}

TEST_F(GpuRegs, WriteOneToClearClearsOnlyTheWrittenBits) {
  gpu_regs_raise(r, 0x3);
  EXPECT_EQ(rd(GPU_REG_INTR_STATUS), 0x3u);
  wr(GPU_REG_INTR_STATUS, 0x1);
  EXPECT_EQ(rd(GPU_REG_INTR_STATUS), 0x2u);
  wr(GPU_REG_INTR_STATUS, 0x0);
  EXPECT_EQ(rd(GPU_REG_INTR_STATUS), 0x2u);
}

TEST_F(GpuRegs, InterruptLineFollowsStatusAndEnable) {
  gpu_regs_raise(r, GPU_FIELD_MASK(GPU_INTR_STATUS_COMPLETION));
  EXPECT_FALSE(rec.irq) << "disabled causes do not assert the line";
  EXPECT_EQ(rd(GPU_REG_INTR_PENDING), 0u);
  wr(GPU_REG_INTR_ENABLE, GPU_FIELD_MASK(GPU_INTR_STATUS_COMPLETION));
  EXPECT_TRUE(rec.irq);
  EXPECT_EQ(rd(GPU_REG_INTR_PENDING), 1u);
  wr(GPU_REG_INTR_STATUS, 1);
  EXPECT_FALSE(rec.irq);
}

TEST_F(GpuRegs, ErrorCaptureKeepsTheFirstErrorUntilStatusIsCleared) {
  wr(GPU_REG_SM_COUNT, 1);      // first: RO write
  rd(GPU_REG_DOORBELL);         // second: WO read
  EXPECT_EQ(err_code(), (uint32_t)GPU_ERR_REG_RO_WRITE);
  EXPECT_EQ(rd(GPU_REG_ERR_COUNT), 2u);
  wr(GPU_REG_ERR_STATUS, rd(GPU_REG_ERR_STATUS));
  EXPECT_EQ(rd(GPU_REG_ERR_STATUS), 0u);
  gpu_regs_error(r, GPU_ERR_PKT_FIELD, 2, GPU_OP_LAUNCH, 0x80001000ull, 7);
  EXPECT_EQ(err_code(), (uint32_t)GPU_ERR_PKT_FIELD);
  EXPECT_EQ(GPU_FIELD_GET(GPU_ERR_CODE_CHANNEL, rd(GPU_REG_ERR_CODE)), 2u);
  EXPECT_EQ(GPU_FIELD_GET(GPU_ERR_CODE_OPCODE, rd(GPU_REG_ERR_CODE)), (uint32_t)GPU_OP_LAUNCH);
  EXPECT_EQ(rd(GPU_REG_ERR_ADDR_LO), 0x80001000u);
  EXPECT_EQ(rd(GPU_REG_ERR_INFO), 7u);
  EXPECT_EQ(rd(GPU_REG_ERR_STATUS), GPU_FIELD_MASK(GPU_ERR_STATUS_PACKET));
  EXPECT_TRUE(rd(GPU_REG_STATUS) & GPU_FIELD_MASK(GPU_STATUS_ERROR));
}

TEST_F(GpuRegs, HostWritesTheFirmwareWatchesAreNotified) {
  wr(GPU_REG_SCRATCH, 1);
  wr(GPU_REG_DOORBELL, 3);
  wr(GPU_CH_REG(2, GPU_REG_CH_CTRL), 1);
  wr(GPU_REG_CTRL, 1);
  ASSERT_EQ(rec.notified.size(), 3u);
  EXPECT_EQ(rec.notified[0], std::make_pair((uint32_t)GPU_REG_DOORBELL, 3u));
  EXPECT_EQ(rec.notified[1], std::make_pair(GPU_CH_REG(2, GPU_REG_CH_CTRL), 1u));
  EXPECT_EQ(rec.notified[2], std::make_pair((uint32_t)GPU_REG_CTRL, 1u));
  EXPECT_EQ(rd(GPU_REG_SCRATCH), 1u);
}

TEST_F(GpuRegs, TimerHighHalfIsLatchedByReadingLowHalf) {
  rec.now_ns = 0x0000000500000010ull;
  EXPECT_EQ(rd(GPU_REG_TIMER_LO), 0x10u);
  rec.now_ns = 0x0000000600000000ull;
  EXPECT_EQ(rd(GPU_REG_TIMER_HI), 5u);
}

TEST_F(GpuRegs, FirmwareViewIgnoresHostRules) {
  gpu_regs_fw_write(r, GPU_CH_REG(0, GPU_REG_CH_GET), 0x40);
  EXPECT_EQ(rd(GPU_CH_REG(0, GPU_REG_CH_GET)), 0x40u);
  EXPECT_EQ(rd(GPU_REG_ERR_STATUS), 0u);
}

TEST(GpuCaps, InconsistentConfigurationIsRejectedByName) {
  gpu_caps c;
  gpu_caps_default(&c);
  c.n_channels = 65;
  simtvp_diag d;
  simtvp_diag_clear(&d);
  EXPECT_EQ(gpu_caps_check(&c, &d), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(d.option, "n_channels");
}

}  // namespace
