// Copy engines: bytes moved (linear, 2-D pitched, memset 8/16/32), timing, engine count, faults.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "gpu_ce.h"

namespace {

struct Mem {
  uint64_t base;
  std::vector<uint8_t> bytes;
  bool in(uint64_t a, uint64_t n) const { return a >= base && a - base <= bytes.size() && n <= bytes.size() - (a - base); }
};

bool mem_read(void *c, uint64_t a, void *d, uint64_t n) {
  auto *m = static_cast<Mem *>(c);
  if (!m->in(a, n)) return false;
  memcpy(d, &m->bytes[a - m->base], n);
  return true;
}
bool mem_write(void *c, uint64_t a, const void *s, uint64_t n) {
  auto *m = static_cast<Mem *>(c);
  if (!m->in(a, n)) return false;
  memcpy(&m->bytes[a - m->base], s, n);
  return true;
}

struct Done {
  uint32_t tag;
  gpu_copy_result r;
  uint64_t at;
};

class GpuCe : public ::testing::Test {
 protected:
  void make(uint32_t engines) {
    gpu_ce_config c{};
    c.n_engines = engines;
    c.sysmem_bytes_per_cycle = 16;
    c.devmem_bytes_per_cycle = 64;
    c.sysmem_latency_cycles = 100;
    c.devmem_latency_cycles = 20;
    c.chunk_bytes = 256;  // small, so copies cross chunk boundaries
    gpu_ce_ports p{};
    p.sysmem = {&sys, mem_read, mem_write};
    p.devmem = {&dev, mem_read, mem_write};
    p.done.ctx = &done;
    p.done.done = [](void *c, uint32_t tag, const gpu_copy_result *r, uint64_t now) {
      static_cast<std::vector<Done> *>(c)->push_back({tag, *r, now});
    };
    ce = gpu_ce_create(&c, p);
    ASSERT_NE(ce, nullptr);
  }
  void TearDown() override { gpu_ce_destroy(ce); }
  static gpu_copy_op copy(uint8_t sa, uint64_t src, uint8_t da, uint64_t dst, uint64_t n) {
    gpu_copy_op o{};
    o.kind = GPU_COPY_COPY;
    o.src_aperture = sa;
    o.dst_aperture = da;
    o.src = src;
    o.dst = dst;
    o.width = n;
    o.height = 1;
    return o;
  }
  Mem sys{0x1000, std::vector<uint8_t>(8192)};
  Mem dev{0x100000, std::vector<uint8_t>(8192)};
  std::vector<Done> done;
  gpu_ce *ce = nullptr;
};

TEST_F(GpuCe, HostToDeviceCopyMovesTheBytesAtCompletion) {
  make(1);
  for (int i = 0; i < 1000; i++) sys.bytes[16 + i] = (uint8_t)(i * 7);
  gpu_copy_op o = copy(GPU_APERTURE_SYSMEM, 0x1010, GPU_APERTURE_DEVMEM, 0x100020, 1000);
  ASSERT_TRUE(gpu_ce_submit(ce, &o, 5, 0));
  // latency max(100, 20) + ceil(1000 / min(16, 64)) = 100 + 63 = 163 cycles
  EXPECT_EQ(gpu_ce_next_event(ce), 163u);
  gpu_ce_advance(ce, 162);
  EXPECT_TRUE(done.empty());
  EXPECT_EQ(dev.bytes[0x20], 0) << "data moves when the operation completes";
  gpu_ce_advance(ce, 163);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].tag, 5u);
  EXPECT_TRUE(done[0].r.ok);
  EXPECT_EQ(done[0].at, 163u);
  EXPECT_EQ(0, memcmp(&dev.bytes[0x20], &sys.bytes[16], 1000));
  EXPECT_EQ(dev.bytes[0x20 + 1000], 0) << "not one byte more";
}

TEST_F(GpuCe, DeviceToDeviceCopyUsesDeviceBandwidth) {
  make(1);
  gpu_copy_op o = copy(GPU_APERTURE_DEVMEM, 0x100000, GPU_APERTURE_DEVMEM, 0x101000, 640);
  // 20 + 640 / 64 = 30 cycles
  EXPECT_EQ(gpu_ce_op_cycles(ce, &o), 30u);
}

TEST_F(GpuCe, PitchedCopyMovesOnlyTheRows) {
  make(1);
  for (int i = 0; i < 4096; i++) dev.bytes[i] = (uint8_t)i;
  gpu_copy_op o = copy(GPU_APERTURE_DEVMEM, 0x100000, GPU_APERTURE_SYSMEM, 0x1000, 10);
  o.src_pitch = 100;
  o.dst_pitch = 16;
  o.height = 3;
  ASSERT_TRUE(gpu_ce_submit(ce, &o, 0, 0));
  gpu_ce_advance(ce, 1000);
  ASSERT_EQ(done.size(), 1u);
  for (int r = 0; r < 3; r++) {
    EXPECT_EQ(0, memcmp(&sys.bytes[r * 16], &dev.bytes[r * 100], 10)) << "row " << r;
    EXPECT_EQ(sys.bytes[r * 16 + 10], 0) << "gap after row " << r << " untouched";
  }
}

TEST_F(GpuCe, MemsetWritesEachElementSize) {
  make(1);
  for (uint8_t eb : {1, 2, 4}) {
    std::fill(dev.bytes.begin(), dev.bytes.end(), 0xEE);
    gpu_copy_op o{};
    o.kind = GPU_COPY_MEMSET;
    o.dst_aperture = GPU_APERTURE_DEVMEM;
    o.elem_bytes = eb;
    o.value = 0x11223344;
    o.dst = 0x100004;
    o.width = 600 * eb;  // crosses the 256-byte chunks
    o.height = 1;
    done.clear();
    ASSERT_TRUE(gpu_ce_submit(ce, &o, 0, 0));
    gpu_ce_advance(ce, 100000);
    ASSERT_EQ(done.size(), 1u);
    for (int i = 0; i < 600; i++) {
      uint32_t v = 0;
      memcpy(&v, &dev.bytes[4 + i * eb], eb);
      uint32_t want = eb == 4 ? 0x11223344u : eb == 2 ? 0x3344u : 0x44u;
      ASSERT_EQ(v, want) << "element " << i << " of size " << (int)eb;
    }
    EXPECT_EQ(dev.bytes[3], 0xEE);
    EXPECT_EQ(dev.bytes[4 + 600 * eb], 0xEE);
  }
}

TEST_F(GpuCe, OperationsQueueWhenEveryEngineIsBusy) {
  make(2);
  gpu_copy_op o = copy(GPU_APERTURE_DEVMEM, 0x100000, GPU_APERTURE_DEVMEM, 0x101000, 64);
  EXPECT_TRUE(gpu_ce_submit(ce, &o, 1, 0));
  EXPECT_TRUE(gpu_ce_submit(ce, &o, 2, 0));
  EXPECT_FALSE(gpu_ce_submit(ce, &o, 3, 0));
  EXPECT_EQ(gpu_ce_busy_engines(ce), 2u);
  gpu_ce_advance(ce, 21);  // 20 + 64/64
  EXPECT_EQ(done.size(), 2u);
  EXPECT_TRUE(gpu_ce_submit(ce, &o, 3, 21));
}

TEST_F(GpuCe, AccessOutsideMemoryEndsTheCopyWithTheFaultAddress) {
  make(1);
  gpu_copy_op o = copy(GPU_APERTURE_SYSMEM, 0x1000, GPU_APERTURE_DEVMEM, 0x101F00, 1024);
  ASSERT_TRUE(gpu_ce_submit(ce, &o, 9, 0));
  gpu_ce_advance(ce, 1000);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_FALSE(done[0].r.ok);
  EXPECT_EQ(done[0].r.fault_aperture, GPU_APERTURE_DEVMEM);
  // chunks of 256: 0x101F00 fits (ends at 0x102000 = end of device memory), 0x102000 faults
  EXPECT_EQ(done[0].r.fault_addr, 0x102000u);
  EXPECT_EQ(gpu_ce_get_counters(ce).faults, 1u);
}

}  // namespace
