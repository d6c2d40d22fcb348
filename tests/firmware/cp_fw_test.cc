// Command-processor firmware, driven the way a driver would, one register and one ring dword at
// a time: every packet kind end to end, ring wrap-around, ordering, and every error path (the
// GPU reports and goes on).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "gpu_harness.h"

namespace {

constexpr uint32_t kRing = 4096;

class CpFw : public ::testing::Test {
 protected:
  void SetUp() override {
    h = gh_create(nullptr);
    wr(GPU_REG_INTR_ENABLE, 3);
    wr(GPU_REG_CTRL, 1);
    for (uint32_t c = 0; c < 2; c++) {
      ring[c] = gh_sys_alloc(h, kRing);
      enable(c, ring[c], kRing);
    }
    sem = gh_sys_alloc(h, 4096);
    param = gh_sys_alloc(h, 4096);
    buf = gh_sys_alloc(h, 65536);
  }
  void TearDown() override { gh_destroy(h); }

  void wr(uint32_t off, uint32_t v) { gh_mmio_write(h, off, v); }
  uint32_t rd(uint32_t off) { return gh_mmio_read(h, off); }
  void enable(uint32_t c, uint64_t base, uint32_t size) {
    wr(GPU_CH_REG(c, GPU_REG_CH_BASE_LO), (uint32_t)base);
    wr(GPU_CH_REG(c, GPU_REG_CH_BASE_HI), (uint32_t)(base >> 32));
    wr(GPU_CH_REG(c, GPU_REG_CH_SIZE), size);
    wr(GPU_CH_REG(c, GPU_REG_CH_PUT), put[c]);
    wr(GPU_CH_REG(c, GPU_REG_CH_CTRL), 1);
  }
  // Writes a packet at PUT (wrapping), advances PUT, rings the doorbell.
  void push(uint32_t c, std::vector<uint32_t> p, bool ring_bell = true) {
    for (uint32_t dw : p) {
      memcpy(gh_sys_ptr(h, ring[c] + put[c]), &dw, 4);
      put[c] = (put[c] + 4) % kRing;
    }
    if (ring_bell) bell(c);
  }
  void bell(uint32_t c) {
    wr(GPU_CH_REG(c, GPU_REG_CH_PUT), put[c]);
    wr(GPU_REG_DOORBELL, c);
  }
  void run() { gh_run(h, 100000000); }
  static uint32_t lo(uint64_t v) { return (uint32_t)v; }
  static uint32_t hi(uint64_t v) { return (uint32_t)(v >> 32); }
  std::vector<uint32_t> copy(uint64_t src, bool src_sys, uint64_t dst, bool dst_sys, uint64_t n, uint32_t extra = 0) {
    uint32_t f = (src_sys ? GPU_COPY_F_SRC_SYSMEM : 0) | (dst_sys ? GPU_COPY_F_DST_SYSMEM : 0) | extra;
    return {gpu_pkt_header(GPU_OP_COPY, GPU_PKT_COPY_DWORDS, f), lo(src), hi(src), lo(dst), hi(dst), lo(n), hi(n)};
  }
  std::vector<uint32_t> fence(uint64_t addr, uint64_t v, uint32_t flags) {
    return {gpu_pkt_header(GPU_OP_FENCE, GPU_PKT_FENCE_DWORDS, flags), lo(addr), hi(addr), lo(v), hi(v)};
  }
  std::vector<uint32_t> memset_pkt(uint64_t dst, uint32_t value, uint32_t elem_code, uint64_t count,
                                   uint32_t pitch = 0, uint32_t height = 1) {
    return {gpu_pkt_header(GPU_OP_MEMSET, GPU_PKT_MEMSET_DWORDS, elem_code << GPU_MEMSET_F_ELEM_LSB), lo(dst),
            hi(dst), value, pitch, lo(count), hi(count), height};
  }
  uint64_t dev(uint64_t off) { return h->dev_base + off; }
  uint32_t err_code() { return GPU_FIELD_GET(GPU_ERR_CODE_CODE, rd(GPU_REG_ERR_CODE)); }
  uint64_t err_addr() { return rd(GPU_REG_ERR_ADDR_LO) | (uint64_t)rd(GPU_REG_ERR_ADDR_HI) << 32; }
  void clear_errors() {
    wr(GPU_REG_ERR_STATUS, rd(GPU_REG_ERR_STATUS));
    wr(GPU_REG_INTR_STATUS, rd(GPU_REG_INTR_STATUS));
  }
  uint64_t fence_reg(uint32_t c) {
    return rd(GPU_CH_REG(c, GPU_REG_CH_FENCE_LO)) | (uint64_t)rd(GPU_CH_REG(c, GPU_REG_CH_FENCE_HI)) << 32;
  }
  // A minimal valid program image header in device memory (the CP checks only the header).
  uint64_t image(uint32_t n_functions = 2) {
    gpu_image_header ih{};
    ih.magic = GPU_IMAGE_MAGIC;
    ih.version = GPU_IMAGE_VERSION;
    ih.image_bytes = sizeof ih;
    ih.header_bytes = sizeof ih;
    ih.n_functions = n_functions;
    memcpy(gh_dev_ptr(h, dev(0x10000)), &ih, sizeof ih);
    return dev(0x10000);
  }
  std::vector<uint32_t> launch(uint64_t img, uint32_t entry, uint32_t gx, uint32_t bx, uint32_t smem_dyn,
                               uint64_t params, uint32_t pbytes, uint32_t regs = 16) {
    std::vector<uint32_t> p(GPU_PKT_LAUNCH_DWORDS, 0);
    p[0] = gpu_pkt_header(GPU_OP_LAUNCH, GPU_PKT_LAUNCH_DWORDS, 0);
    p[GPU_LAUNCH_IMAGE_LO] = lo(img);
    p[GPU_LAUNCH_IMAGE_HI] = hi(img);
    p[GPU_LAUNCH_ENTRY] = entry;
    p[GPU_LAUNCH_GRID_X] = gx;
    p[GPU_LAUNCH_GRID_Y] = 1;
    p[GPU_LAUNCH_GRID_Z] = 1;
    p[GPU_LAUNCH_BLOCK_X] = bx;
    p[GPU_LAUNCH_BLOCK_Y] = 1;
    p[GPU_LAUNCH_BLOCK_Z] = 1;
    p[GPU_LAUNCH_SMEM_DYNAMIC] = smem_dyn;
    p[GPU_LAUNCH_REGS_PER_THREAD] = regs;
    p[GPU_LAUNCH_PARAM_LO] = lo(params);
    p[GPU_LAUNCH_PARAM_HI] = hi(params);
    p[GPU_LAUNCH_PARAM_BYTES] = pbytes;
    p[GPU_LAUNCH_STREAM_ID] = 3;
    p[GPU_LAUNCH_GRID_ID] = 77;
    return p;
  }

  gpu_harness *h = nullptr;
  uint64_t ring[8] = {}, sem = 0, param = 0, buf = 0;
  uint32_t put[8] = {};
};

TEST_F(CpFw, InterruptPacketRaisesCompletion) {
  push(0, {gpu_pkt_header(GPU_OP_NOP, 3, 0), 0xAAAA, 0xBBBB});
  run();
  EXPECT_EQ(rd(GPU_REG_INTR_STATUS), 0u) << "a NOP without INTR is silent";
  push(0, {gpu_pkt_header(GPU_OP_INTERRUPT, 1, 0)});
  run();
  EXPECT_EQ(rd(GPU_REG_INTR_STATUS), GPU_FIELD_MASK(GPU_INTR_STATUS_COMPLETION));
  EXPECT_TRUE(h->irq);
  EXPECT_EQ(rd(GPU_CH_REG(0, GPU_REG_CH_GET)), put[0]);
  EXPECT_EQ(rd(GPU_CH_REG(0, GPU_REG_CH_PKT_COUNT)), 2u);
  EXPECT_TRUE(rd(GPU_REG_STATUS) & GPU_FIELD_MASK(GPU_STATUS_IDLE));
}

TEST_F(CpFw, CopyPacketsMoveBytesBothWays) {
  for (int i = 0; i < 5000; i++) gh_sys_ptr(h, buf)[i] = (uint8_t)(i * 13 + 1);
  push(0, copy(buf, true, dev(0x100), false, 5000));
  push(0, copy(dev(0x100), false, dev(0x3000), false, 5000));
  push(0, copy(dev(0x3000), false, buf + 0x8000, true, 5000));
  push(0, fence(sem, 1, GPU_PKT_FLAG_INTR | GPU_FENCE_F_SYSMEM));
  run();
  EXPECT_EQ(0, memcmp(gh_dev_ptr(h, dev(0x100)), gh_sys_ptr(h, buf), 5000));
  EXPECT_EQ(0, memcmp(gh_sys_ptr(h, buf + 0x8000), gh_sys_ptr(h, buf), 5000));
  EXPECT_EQ(rd(GPU_REG_ERR_STATUS), 0u);
}

TEST_F(CpFw, PitchedCopyAndMemsetPackets) {
  for (int i = 0; i < 1000; i++) gh_sys_ptr(h, buf)[i] = (uint8_t)i;
  std::vector<uint32_t> p = {gpu_pkt_header(GPU_OP_COPY_2D, GPU_PKT_COPY_2D_DWORDS, GPU_COPY_2D_F_SRC_SYSMEM),
                             lo(buf), hi(buf), 100, lo(dev(0)), hi(dev(0)), 64, 40, 5};
  push(0, p);
  push(0, memset_pkt(dev(0x1000), 0xA5, 0, 10));
  push(0, memset_pkt(dev(0x1100), 0xBEEF, 1, 10));
  push(0, memset_pkt(dev(0x1200), 0xCAFEF00D, 2, 4, 16, 3));  // 2-D: 3 rows of 4 words, pitch 16
  run();
  for (int r = 0; r < 5; r++) EXPECT_EQ(0, memcmp(gh_dev_ptr(h, dev(r * 64)), gh_sys_ptr(h, buf + r * 100), 40));
  EXPECT_EQ(gh_dev_ptr(h, dev(40))[0], 0);
  EXPECT_EQ(gh_dev_ptr(h, dev(0x1000))[9], 0xA5);
  EXPECT_EQ(gh_dev_ptr(h, dev(0x1000))[10], 0);
  uint16_t s;
  memcpy(&s, gh_dev_ptr(h, dev(0x1100 + 18)), 2);
  EXPECT_EQ(s, 0xBEEF);
  uint32_t w;
  memcpy(&w, gh_dev_ptr(h, dev(0x1200 + 2 * 16 + 12)), 4);
  EXPECT_EQ(w, 0xCAFEF00Du);
  memcpy(&w, gh_dev_ptr(h, dev(0x1200 + 2 * 16 + 16)), 4);
  EXPECT_EQ(w, 0u) << "past the last row";
  EXPECT_EQ(rd(GPU_REG_ERR_STATUS), 0u);
}

TEST_F(CpFw, FenceSetsRegisterAndWritesSemaphoreWithTimestamp) {
  gh_run_until(h, 5000);
  push(1, fence(sem, 0x123456789ull, GPU_PKT_FLAG_INTR | GPU_FENCE_F_SYSMEM | GPU_FENCE_F_TIMESTAMP));
  run();
  gpu_semaphore_ts ts;
  memcpy(&ts, gh_sys_ptr(h, sem), sizeof ts);
  EXPECT_EQ(ts.value, 0x123456789ull);
  EXPECT_GE(ts.timestamp_ns, gpuctl_cycles_to_ns(h->g, 5000));
  EXPECT_EQ(fence_reg(1), 0x123456789ull);
  push(1, fence(sem + 64, 7, GPU_FENCE_F_SYSMEM | GPU_FENCE_F_VALUE32));
  run();
  uint64_t v;
  memcpy(&v, gh_sys_ptr(h, sem + 64), 8);
  EXPECT_EQ(v, 7u) << "VALUE32 writes 4 bytes only";
}

TEST_F(CpFw, PacketsOfOneChannelRunInOrderAndChannelsRunConcurrently) {
  // A long copy then a fence on channel 0; a fence on channel 1 right away.
  push(0, copy(buf, true, dev(0), false, 60000));
  push(0, fence(sem, 1, GPU_FENCE_F_SYSMEM));
  push(1, fence(sem + 8, 1, GPU_FENCE_F_SYSMEM));
  uint64_t t0 = h->now;
  // Step time and watch: channel 1's fence lands long before channel 0's.
  uint64_t c0 = 0, c1 = 0;
  for (uint64_t t = t0; t < t0 + 20000 && !(c0 && c1); t += 50) {
    gh_run_until(h, t);
    uint64_t v0, v1;
    memcpy(&v0, gh_sys_ptr(h, sem), 8);
    memcpy(&v1, gh_sys_ptr(h, sem + 8), 8);
    if (v0 && !c0) c0 = t;
    if (v1 && !c1) c1 = t;
  }
  ASSERT_TRUE(c0 && c1);
  // The copy alone takes 700 + 60000 / 12 = 5700 cycles (gpuctl_config_default's host link).
  EXPECT_GE(c0 - t0, 5700u);
  EXPECT_LT(c1 - t0, 1000u);
}

TEST_F(CpFw, SemaphoreWaitBlocksTheChannelUntilTheValueIsReached) {
  push(0, {gpu_pkt_header(GPU_OP_SEM_WAIT, GPU_PKT_SEM_WAIT_DWORDS, 0), lo(sem), hi(sem), 5, 0});
  push(0, fence(sem + 8, 1, GPU_FENCE_F_SYSMEM));
  gh_run_until(h, h->now + 10000);
  uint64_t v;
  memcpy(&v, gh_sys_ptr(h, sem + 8), 8);
  EXPECT_EQ(v, 0u);
  EXPECT_TRUE(rd(GPU_CH_REG(0, GPU_REG_CH_STATUS)) & GPU_FIELD_MASK(GPU_CH_STATUS_WAITING));
  uint64_t five = 5;
  memcpy(gh_sys_ptr(h, sem), &five, 8);  // the host (or another channel) releases it
  gh_run_until(h, h->now + 3000);        // within a poll period (1000 cycles) or so
  memcpy(&v, gh_sys_ptr(h, sem + 8), 8);
  EXPECT_EQ(v, 1u);
  EXPECT_FALSE(rd(GPU_CH_REG(0, GPU_REG_CH_STATUS)) & GPU_FIELD_MASK(GPU_CH_STATUS_WAITING));
}

TEST_F(CpFw, ChannelWaitsForAnotherChannelsFence) {
  push(1, {gpu_pkt_header(GPU_OP_SEM_WAIT, GPU_PKT_SEM_WAIT_DWORDS, 0), lo(sem), hi(sem), 1, 0});
  push(1, copy(dev(0), false, buf + 0x100, true, 16));
  for (int i = 0; i < 16; i++) gh_sys_ptr(h, buf)[i] = (uint8_t)(0x50 + i);
  push(0, copy(buf, true, dev(0), false, 16));
  push(0, fence(sem, 1, GPU_FENCE_F_SYSMEM));
  run();
  EXPECT_EQ(0, memcmp(gh_sys_ptr(h, buf + 0x100), gh_sys_ptr(h, buf), 16)) << "channel 1 saw channel 0's data";
}

TEST_F(CpFw, PacketsWrapAroundTheEndOfTheRing) {
  // Fill the ring with NOPs up to 8 bytes before its end; the next packet straddles the end.
  uint32_t nops = (kRing - 8) / 4;
  while (nops) {
    uint32_t n = nops > 255 ? 255 : nops;
    std::vector<uint32_t> p(n, 0);
    p[0] = gpu_pkt_header(GPU_OP_NOP, n, 0);
    push(0, p);
    nops -= n;
  }
  run();
  ASSERT_EQ(put[0], kRing - 8);
  for (int i = 0; i < 64; i++) gh_sys_ptr(h, buf)[i] = (uint8_t)(i + 3);
  push(0, copy(buf, true, dev(0x200), false, 64));  // 7 dwords: 2 before the end, 5 after
  push(0, fence(sem, 9, GPU_FENCE_F_SYSMEM));
  run();
  EXPECT_EQ(put[0], 20u + 20u);
  EXPECT_EQ(rd(GPU_CH_REG(0, GPU_REG_CH_GET)), put[0]);
  EXPECT_EQ(0, memcmp(gh_dev_ptr(h, dev(0x200)), gh_sys_ptr(h, buf), 64));
  EXPECT_EQ(fence_reg(0), 9u);
  EXPECT_EQ(rd(GPU_REG_ERR_STATUS), 0u);
}

TEST_F(CpFw, LaunchReachesTheDispatcherWithGridBlockAndParameters) {
  uint64_t img = image();
  uint32_t params[3] = {0x11111111, 0x22222222, 0x33333333};
  memcpy(gh_sys_ptr(h, param), params, sizeof params);
  std::vector<uint32_t> p = launch(img, 1, 6, 128, 512, param, 12);
  p[GPU_LAUNCH_SMEM_STATIC] = 1024;
  p[GPU_LAUNCH_LOCAL_BYTES] = 32;
  push(0, p);
  push(0, fence(sem, 1, GPU_PKT_FLAG_INTR | GPU_FENCE_F_SYSMEM));
  run();
  ASSERT_EQ(h->n_kernels, 1u);
  const gpu_launch_desc &d = h->kernels[0].k.desc;
  EXPECT_EQ(d.image_addr, img);
  EXPECT_EQ(d.entry, 1u);
  EXPECT_EQ(d.grid[0], 6u);
  EXPECT_EQ(d.block[0], 128u);
  EXPECT_EQ(d.smem_dynamic, 512u);
  EXPECT_EQ(d.smem_static, 1024u);
  EXPECT_EQ(d.regs_per_thread, 16u);
  EXPECT_EQ(d.local_bytes, 32u);
  EXPECT_EQ(d.stream_id, 3u);
  EXPECT_EQ(d.grid_id, 77u);
  EXPECT_EQ(d.channel, 0u);
  ASSERT_EQ(d.param_bytes, 12u);
  EXPECT_EQ(0, memcmp(h->kernels[0].params, params, 12));
  EXPECT_EQ(h->n_ctas, 6u);
  EXPECT_TRUE(h->kernels[0].ended);
  EXPECT_EQ(fence_reg(0), 1u);
}

// The CLUSTER flag adds dword 19: CTAs per cluster, x [7:0], y [15:8], z [23:16], each >= 1.
uint32_t cl(uint32_t x, uint32_t y = 1, uint32_t z = 1) { return x | y << 8 | z << 16; }
std::vector<uint32_t> with_cluster(std::vector<uint32_t> p, uint32_t cluster) {
  p[0] = gpu_pkt_header(GPU_OP_LAUNCH, GPU_PKT_LAUNCH_DWORDS + 1, GPU_LAUNCH_F_CLUSTER);
  p.push_back(cluster);
  return p;
}

TEST_F(CpFw, LaunchWithTheClusterFlagCarriesTheClusterDimensions) {
  std::vector<uint32_t> p = launch(image(), 0, 4, 32, 0, 0, 0);
  p[GPU_LAUNCH_GRID_Y] = 2;
  push(0, with_cluster(p, cl(2, 2)));
  push(0, launch(image(), 0, 3, 32, 0, 0, 0));  // no flag: clusters of one CTA
  push(0, fence(sem, 1, GPU_FENCE_F_SYSMEM));
  run();
  EXPECT_EQ(rd(GPU_REG_ERR_STATUS), 0u) << err_code() << " info " << rd(GPU_REG_ERR_INFO);
  ASSERT_EQ(h->n_kernels, 2u);
  const gpu_launch_desc &d = h->kernels[0].k.desc;
  EXPECT_EQ(d.cluster[0], 2u);
  EXPECT_EQ(d.cluster[1], 2u);
  EXPECT_EQ(d.cluster[2], 1u);
  EXPECT_EQ(h->kernels[1].k.desc.cluster[0], 1u);
  // CTAs issue cluster by cluster: the first four are cluster (0,0)'s
  ASSERT_EQ(h->n_ctas, 11u);
  EXPECT_EQ(h->ctas[1].cta[0], 1u);
  EXPECT_EQ(h->ctas[2].cta[1], 1u);
  EXPECT_EQ(fence_reg(0), 1u);
}

TEST_F(CpFw, BadClusterFieldsAreReported) {
  std::vector<uint32_t> p = launch(image(), 0, 6, 32, 0, 0, 0);
  struct Case {
    std::vector<uint32_t> pkt;
    gpu_err code;
  } cases[] = {
      {with_cluster(p, cl(4)), GPU_ERR_PKT_FIELD},              // 4 does not divide 6
      {with_cluster(p, cl(2) | 1 << 24), GPU_ERR_PKT_FIELD},    // reserved bits
      {with_cluster(p, cl(2, 0)), GPU_ERR_PKT_FIELD},           // a dimension of 0
      {with_cluster(p, cl(3, 1, 2)), GPU_ERR_PKT_FIELD},        // 2 does not divide the grid's 1
      {with_cluster(launch(image(), 0, 34, 32, 0, 0, 0), cl(17)), GPU_ERR_PKT_FIELD},  // over 16
      {with_cluster(launch(image(), 0, 16, 32, 40000, 0, 0), cl(16)), GPU_ERR_LAUNCH_LIMIT},  // 1 CTA/SM, 4 SMs
  };
  for (const Case &c : cases) {
    clear_errors();
    push(0, c.pkt);
    run();
    EXPECT_EQ(err_code(), (uint32_t)c.code) << " info " << rd(GPU_REG_ERR_INFO);
    EXPECT_EQ(rd(GPU_REG_ERR_INFO), (uint32_t)GPU_LAUNCH_CLUSTER);
  }
  // The flag with only 19 dwords: a length error.
  clear_errors();
  std::vector<uint32_t> q = p;
  q[0] = gpu_pkt_header(GPU_OP_LAUNCH, GPU_PKT_LAUNCH_DWORDS, GPU_LAUNCH_F_CLUSTER);
  push(0, q);
  run();
  EXPECT_EQ(err_code(), (uint32_t)GPU_ERR_PKT_SIZE);
  EXPECT_EQ(h->n_kernels, 0u);
}

TEST_F(CpFw, FenceAfterLaunchWaitsForEveryCta) {
  h->cta_cycles = 10000;
  push(0, launch(image(), 0, 2, 32, 0, 0, 0));
  push(0, fence(sem, 1, GPU_FENCE_F_SYSMEM));
  gh_run_until(h, h->now + 5000);
  EXPECT_EQ(fence_reg(0), 0u);
  run();
  EXPECT_EQ(fence_reg(0), 1u);
  EXPECT_GE(h->kernels[0].ended_at, h->ctas[0].at + 10000);
}

// ---- errors: reported with status, code and address; the GPU goes on --------------------------

TEST_F(CpFw, UnknownOpcodeIsReportedAndTheRestUpToPutIsSkipped) {
  uint64_t at = ring[0] + put[0];
  push(0, {gpu_pkt_header(0x7E, 2, 0), 0}, false);
  push(0, fence(sem, 1, GPU_FENCE_F_SYSMEM), true);  // lost with the bad packet
  run();
  EXPECT_EQ(rd(GPU_REG_ERR_STATUS), GPU_FIELD_MASK(GPU_ERR_STATUS_PACKET));
  EXPECT_EQ(err_code(), (uint32_t)GPU_ERR_PKT_OPCODE);
  EXPECT_EQ(GPU_FIELD_GET(GPU_ERR_CODE_OPCODE, rd(GPU_REG_ERR_CODE)), 0x7Eu);
  EXPECT_EQ(GPU_FIELD_GET(GPU_ERR_CODE_CHANNEL, rd(GPU_REG_ERR_CODE)), 0u);
  EXPECT_EQ(err_addr(), at);
  EXPECT_TRUE(rd(GPU_REG_INTR_STATUS) & GPU_FIELD_MASK(GPU_INTR_STATUS_ERROR));
  EXPECT_TRUE(h->irq);
  EXPECT_EQ(fence_reg(0), 0u);
  EXPECT_TRUE(rd(GPU_CH_REG(0, GPU_REG_CH_STATUS)) & GPU_FIELD_MASK(GPU_CH_STATUS_ERROR));
  // The channel goes on with new work.
  clear_errors();
  push(0, fence(sem, 2, GPU_FENCE_F_SYSMEM));
  run();
  EXPECT_EQ(fence_reg(0), 2u);
  EXPECT_EQ(rd(GPU_REG_ERR_STATUS), 0u);
}

TEST_F(CpFw, WrongLengthAndReservedBitsAndBadFieldsAreEachReported) {
  struct Case {
    std::vector<uint32_t> pkt;
    gpu_err code;
    uint32_t info;  // ~0u: not checked
  } cases[] = {
      {{gpu_pkt_header(GPU_OP_FENCE, 4, 0), 0, 0, 0}, GPU_ERR_PKT_SIZE, ~0u},
      {{gpu_pkt_header(GPU_OP_INTERRUPT, 1, 0) | 0x01000000u}, GPU_ERR_PKT_RESERVED, ~0u},
      {{gpu_pkt_header(GPU_OP_INTERRUPT, 1, 0x80)}, GPU_ERR_PKT_RESERVED, ~0u},
      {memset_pkt(dev(0), 0, 3, 4), GPU_ERR_PKT_FIELD, 0},
      {memset_pkt(dev(1), 0, 2, 4), GPU_ERR_PKT_ALIGN, GPU_MEMSET_DST_LO},
      {memset_pkt(dev(0), 0, 0, 4, 0, 0), GPU_ERR_PKT_FIELD, GPU_MEMSET_HEIGHT},
      {fence(sem + 4, 1, GPU_FENCE_F_SYSMEM), GPU_ERR_PKT_ALIGN, GPU_FENCE_ADDR_LO},
      {fence(sem, 1, GPU_FENCE_F_TIMESTAMP), GPU_ERR_PKT_FIELD, 0},
      {launch(image(), 0, 0, 32, 0, 0, 0), GPU_ERR_PKT_FIELD, GPU_LAUNCH_GRID_X},
      {launch(image(), 0, 1, 2048, 0, 0, 0), GPU_ERR_PKT_FIELD, GPU_LAUNCH_BLOCK_X},
      {launch(image(), 0, 1, 32, 70000, 0, 0), GPU_ERR_LAUNCH_LIMIT, GPU_LAUNCH_SMEM_DYNAMIC},
      {launch(image(), 0, 1, 1024, 0, 0, 0, 80), GPU_ERR_LAUNCH_LIMIT, GPU_LAUNCH_REGS_PER_THREAD},
      {launch(image(), 0, 1, 32, 0, param + 2, 4), GPU_ERR_PKT_ALIGN, GPU_LAUNCH_PARAM_LO},
      {launch(image(), 0, 1, 32, 0, param, 40000), GPU_ERR_PKT_FIELD, GPU_LAUNCH_PARAM_BYTES},
      {launch(image(2), 5, 1, 32, 0, 0, 0), GPU_ERR_LAUNCH_IMAGE, 5},
      {launch(dev(0x20000), 0, 1, 32, 0, 0, 0), GPU_ERR_LAUNCH_IMAGE, 0},
  };
  for (const Case &c : cases) {
    clear_errors();
    uint64_t at = ring[0] + put[0];
    push(0, c.pkt);
    push(0, fence(sem, 100 + (uint32_t)c.code, GPU_FENCE_F_SYSMEM));
    run();
    SCOPED_TRACE("error " + std::to_string(c.code));
    EXPECT_EQ(err_code(), (uint32_t)c.code);
    if (c.code != GPU_ERR_LAUNCH_IMAGE) {
      EXPECT_EQ(err_addr(), at);
    }
    if (c.info != ~0u) {
      EXPECT_EQ(rd(GPU_REG_ERR_INFO), c.info);
    }
    EXPECT_TRUE(h->irq);
    if (c.code != GPU_ERR_PKT_SIZE) {
      EXPECT_EQ(fence_reg(0), 100u + c.code) << "the next packet still ran";
    }
  }
  EXPECT_EQ(h->n_kernels, 0u) << "no rejected launch reached the dispatcher";
}

TEST_F(CpFw, PacketRunningPastPutIsTruncatedAndSkipped) {
  std::vector<uint32_t> p = copy(buf, true, dev(0), false, 16);
  p.resize(4);  // the header promises 7 dwords, PUT covers 4
  push(0, p);
  run();
  EXPECT_EQ(err_code(), (uint32_t)GPU_ERR_PKT_SIZE);
  EXPECT_EQ(rd(GPU_CH_REG(0, GPU_REG_CH_GET)), put[0]);
}

TEST_F(CpFw, DoorbellForADisabledOrMissingChannelIsReported) {
  wr(GPU_REG_DOORBELL, 5);  // exists (8 channels) but disabled
  run();
  EXPECT_EQ(err_code(), (uint32_t)GPU_ERR_DOORBELL);
  EXPECT_EQ(err_addr(), 5u);
  EXPECT_EQ(rd(GPU_REG_ERR_STATUS), GPU_FIELD_MASK(GPU_ERR_STATUS_RING));
  clear_errors();
  wr(GPU_REG_DOORBELL, 200);
  run();
  EXPECT_EQ(err_code(), (uint32_t)GPU_ERR_DOORBELL);
}

TEST_F(CpFw, BadRingConfigurationLeavesTheChannelDisabled) {
  enable(3, buf, 3000);  // not a power of two
  run();
  EXPECT_EQ(err_code(), (uint32_t)GPU_ERR_RING_CONFIG);
  EXPECT_EQ(err_addr(), buf);
  EXPECT_EQ(rd(GPU_REG_ERR_INFO), 3000u);
  EXPECT_EQ(rd(GPU_CH_REG(3, GPU_REG_CH_CTRL)), 0u);
}

TEST_F(CpFw, CopyFaultsReportTheFailingAddressAndTheChannelContinues) {
  push(0, copy(0x10, true, dev(0), false, 64));  // no system memory at 0x10
  push(0, fence(sem, 1, GPU_FENCE_F_SYSMEM));
  run();
  EXPECT_EQ(err_code(), (uint32_t)GPU_ERR_DMA_FAULT);
  EXPECT_EQ(err_addr(), 0x10u);
  EXPECT_EQ(fence_reg(0), 1u);
  clear_errors();
  push(0, copy(buf, true, dev(0) + h->dev_bytes, false, 64));  // past device memory
  run();
  EXPECT_EQ(err_code(), (uint32_t)GPU_ERR_DEVMEM_FAULT);
  EXPECT_EQ(err_addr(), dev(0) + h->dev_bytes);
  EXPECT_EQ(rd(GPU_REG_ERR_STATUS), GPU_FIELD_MASK(GPU_ERR_STATUS_DEVMEM));
}

TEST_F(CpFw, KernelFaultIsReportedWithAddressAndGridId) {
  h->cta_fn = [](gpu_harness *, const gpu_kernel *, const uint32_t cta[3]) {
    gpu_cta_result r{SIMTVP_OK, 0, 0};
    if (cta[0] == 1) r = {SIMTVP_ERR_FAULT, 0xDEAD0000ull, 12};
    return r;
  };
  push(0, launch(image(), 0, 3, 32, 0, 0, 0));
  push(0, fence(sem, 1, GPU_FENCE_F_SYSMEM));
  run();
  EXPECT_EQ(err_code(), (uint32_t)GPU_ERR_KERNEL_FAULT);
  EXPECT_EQ(err_addr(), 0xDEAD0000ull);
  EXPECT_EQ(rd(GPU_REG_ERR_INFO), 77u);
  EXPECT_EQ(rd(GPU_REG_ERR_STATUS), GPU_FIELD_MASK(GPU_ERR_STATUS_KERNEL));
  EXPECT_EQ(h->n_ctas, 3u) << "the other CTAs still ran";
  EXPECT_EQ(fence_reg(0), 1u);
}

// CUDA's own codes need the kind of a kernel's end: a misaligned access (cudaErrorMisalignedAddress,
// 716) and a stop by a limit or the watchdog (cudaErrorLaunchTimeout, 702) have codes of their own.
TEST_F(CpFw, MisalignedAccessAndStopsHaveTheirOwnErrorCodes) {
  struct Case {
    simtvp_status status;
    uint32_t code;
  } cases[] = {{SIMTVP_ERR_MISALIGNED, GPU_ERR_KERNEL_MISALIGNED},
               {SIMTVP_ERR_LIMIT, GPU_ERR_KERNEL_STOPPED},
               {SIMTVP_ERR_DEADLOCK, GPU_ERR_KERNEL_STOPPED}};
  static simtvp_status status;
  for (const Case &c : cases) {
    status = c.status;
    h->cta_fn = [](gpu_harness *, const gpu_kernel *, const uint32_t cta[3]) {
      gpu_cta_result r{SIMTVP_OK, 0, 0};
      if (cta[0] == 0) r = {status, 0xBEEF0004ull, 3};
      return r;
    };
    clear_errors();
    push(0, launch(image(), 0, 2, 32, 0, 0, 0));
    run();
    EXPECT_EQ(err_code(), c.code) << simtvp_status_name(c.status);
    EXPECT_EQ(rd(GPU_REG_ERR_INFO), 77u);
    EXPECT_EQ(rd(GPU_REG_ERR_STATUS), GPU_FIELD_MASK(GPU_ERR_STATUS_KERNEL));
    if (c.code == GPU_ERR_KERNEL_MISALIGNED) {
      EXPECT_EQ(err_addr(), 0xBEEF0004ull);
    }
  }
}

// A program image the SIMT side cannot decode (a buggy driver) is LAUNCH_IMAGE, not a kernel fault.
TEST_F(CpFw, ImageTheSimtSideCannotDecodeIsALaunchImageError) {
  h->refuse_kernels = true;
  h->refuse_status = SIMTVP_ERR_PARSE;
  uint64_t img = image();
  push(0, launch(img, 1, 2, 32, 0, 0, 0));
  push(0, fence(sem, 9, GPU_FENCE_F_SYSMEM));
  run();
  EXPECT_EQ(err_code(), (uint32_t)GPU_ERR_LAUNCH_IMAGE);
  EXPECT_EQ(err_addr(), img);
  EXPECT_EQ(rd(GPU_REG_ERR_INFO), 1u) << "the entry";
  EXPECT_EQ(fence_reg(0), 9u) << "the channel continues";
}

// A host whose register writes take no time (a loosely-timed CPU model annotating zero delay)
// enables a channel, writes two packets, moves PUT and rings the doorbell, all at one cycle, while
// the command processor still has earlier events queued (each costs event_cycles). The enable must
// start the ring at the PUT of the enable write (0), not at the PUT the firmware finds when it
// gets to the enable event (after both packets): otherwise GET = PUT skips them and the fence
// never comes.
TEST_F(CpFw, ZeroTimeHostStartsTheRingAtThePutOfTheEnableWrite) {
  h->mmio_cycles = 0;
  const uint64_t r = gh_sys_alloc(h, kRing);
  put[2] = 0;
  ring[2] = r;
  wr(GPU_REG_SCRATCH, 0);
  enable(2, r, kRing);                                   // CH_CTRL event queued at this cycle
  push(2, fence(sem, 9, GPU_FENCE_F_SYSMEM), false);     // no doorbell yet
  push(2, fence(sem + 8, 10, GPU_FENCE_F_SYSMEM));       // PUT moved, doorbell, same cycle
  const uint64_t at = h->now;
  run();
  EXPECT_EQ(fence_reg(2), 10u) << "both packets ran";
  uint32_t v = 0;
  memcpy(&v, gh_sys_ptr(h, sem), 4);
  EXPECT_EQ(v, 9u);
  EXPECT_EQ(rd(GPU_REG_ERR_STATUS), 0u);
  EXPECT_GT(h->now, at) << "the firmware handled the events after the writes";
}

TEST_F(CpFw, GlobalEnableGatesFetching) {
  wr(GPU_REG_CTRL, 0);
  push(0, fence(sem, 4, GPU_FENCE_F_SYSMEM));
  run();
  EXPECT_EQ(fence_reg(0), 0u);
  wr(GPU_REG_CTRL, 1);
  run();
  EXPECT_EQ(fence_reg(0), 4u);
}

}  // namespace

namespace {

// MAP_SYSMEM (docs/gpu-abi.md): maps a GPU address range onto system memory, in channel order.
TEST_F(CpFw, MapSysmemMapsAndUnmapsInChannelOrder) {
  auto map = [&](uint64_t va, uint64_t bus, uint64_t bytes, uint32_t flags) -> std::vector<uint32_t> {
    return {gpu_pkt_header(GPU_OP_MAP_SYSMEM, GPU_PKT_MAP_SYSMEM_DWORDS, flags), lo(va), hi(va), lo(bus), hi(bus),
            lo(bytes), hi(bytes)};
  };
  push(0, map(0x7f0000000000ull, buf, 0x3000, GPU_PKT_FLAG_INTR));
  run();
  ASSERT_EQ(h->n_sysmaps, 1u);
  EXPECT_EQ(h->sysmaps[0].va, 0x7f0000000000ull);
  EXPECT_EQ(h->sysmaps[0].bus, buf);
  EXPECT_EQ(h->sysmaps[0].bytes, 0x3000u);
  EXPECT_EQ(rd(GPU_REG_INTR_STATUS), GPU_FIELD_MASK(GPU_INTR_STATUS_COMPLETION));
  EXPECT_EQ(rd(GPU_REG_ERR_STATUS), 0u);
  clear_errors();
  push(0, map(0x7f0000000000ull, 0, 0x3000, GPU_MAP_SYSMEM_F_UNMAP));
  push(0, fence(sem, 1, GPU_FENCE_F_SYSMEM));
  run();
  EXPECT_EQ(h->n_sysmaps, 0u);
  EXPECT_EQ(fence_reg(0), 1u);
  EXPECT_EQ(rd(GPU_REG_ERR_STATUS), 0u);
}

TEST_F(CpFw, MapSysmemErrorsAreReportedAndTheChannelGoesOn) {
  auto map = [&](uint64_t va, uint64_t bus, uint64_t bytes) -> std::vector<uint32_t> {
    return {gpu_pkt_header(GPU_OP_MAP_SYSMEM, GPU_PKT_MAP_SYSMEM_DWORDS, 0), lo(va), hi(va), lo(bus), hi(bus),
            lo(bytes), hi(bytes)};
  };
  struct Case {
    uint64_t va, bus, bytes;
    uint32_t code, info;
  } cases[] = {
      {0x7f0000000100ull, buf, 0x1000, GPU_ERR_PKT_ALIGN, GPU_MAP_SYSMEM_VA_LO},
      {0x7f0000000000ull, buf + 8, 0x1000, GPU_ERR_PKT_ALIGN, GPU_MAP_SYSMEM_BUS_LO},
      {0x7f0000000000ull, buf, 0x1001, GPU_ERR_PKT_ALIGN, GPU_MAP_SYSMEM_BYTES_LO},
      {0x7f0000000000ull, buf, 0, GPU_ERR_PKT_FIELD, GPU_MAP_SYSMEM_BYTES_LO},
  };
  for (const Case &k : cases) {
    clear_errors();
    push(0, map(k.va, k.bus, k.bytes));
    run();
    EXPECT_EQ(err_code(), k.code) << std::hex << k.va << " " << k.bytes;
    EXPECT_EQ(rd(GPU_REG_ERR_INFO), k.info);
  }
  EXPECT_EQ(h->n_sysmaps, 0u);
  // The GPU refuses the mapping itself (an overlap): SYSMEM_MAP naming the GPU address.
  clear_errors();
  push(0, map(0x7f0000000000ull, buf, 0x2000));
  push(0, map(0x7f0000001000ull, buf, 0x1000));
  push(0, fence(sem, 5, GPU_FENCE_F_SYSMEM));
  run();
  EXPECT_EQ(err_code(), (uint32_t)GPU_ERR_SYSMEM_MAP);
  EXPECT_EQ(err_addr(), 0x7f0000001000ull);
  EXPECT_TRUE(rd(GPU_REG_ERR_STATUS) & GPU_FIELD_MASK(GPU_ERR_STATUS_DMA));
  EXPECT_EQ(h->n_sysmaps, 1u);
  EXPECT_EQ(fence_reg(0), 5u);  // the channel went on
}

TEST(CpFwStats, BlocksCountIntoTheStatsSink) {
  gpu_harness *h = gh_create(nullptr);
  stats *st = stats_create();
  gpuctl_register_stats(h->g, st);
  drv *d;
  simtvp_diag diag;
  ASSERT_EQ(drv_open(&h->bus, nullptr, &d, &diag), SIMTVP_OK) << diag.message;
  uint64_t a;
  ASSERT_EQ(drv_mem_alloc(d, 4096, &a, &diag), SIMTVP_OK);
  std::vector<uint8_t> buf(4096, 3);
  ASSERT_EQ(drv_memcpy(d, nullptr, drv_device_ptr(a), drv_host_ptr(buf.data()), 4096, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_memset(d, nullptr, drv_device_ptr(a), 0, 4, 256, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK);
  int found = 0;
  // The driver's page tables are copy-engine writes too (docs/vm.md): drv_open writes the new
  // root table (4096 bytes); the first allocation maps its 2 MiB chunk, which writes the new
  // level-2 and level-1 tables whole (2 x 4096) and the one root entry pointing at them (8): four
  // copies, 12,296 bytes, before the test's own copy of 4096 bytes and memset of 1024.
  EXPECT_EQ(stats_get(st, "ce.copies", &found), 4u + 1u);
  EXPECT_TRUE(found);
  EXPECT_EQ(stats_get(st, "ce.memsets", &found), 1u);
  EXPECT_EQ(stats_get(st, "ce.bytes", &found), 3u * 4096u + 8u + 4096u + 1024u);
  EXPECT_GT(stats_get(st, "cp.events", &found), 0u);
  EXPECT_GT(stats_get(st, "cp.dma_accesses", &found), 0u);
  EXPECT_EQ(stats_get(st, "cta_disp.kernels", &found), 0u);
  EXPECT_TRUE(found);
  drv_close(d);
  gh_destroy(h);
  stats_destroy(st);
}

}  // namespace
