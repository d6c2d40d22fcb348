// The driver on the model cores (registers, firmware, copy engines, dispatcher) through the C
// harness: device identification, memory, copies and memsets end to end, ring wrap-around,
// streams and events, callbacks, module loading, launches, and asynchronous GPU errors.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "driver.h"
#include "gpu_harness.h"
#include "gpu_image.h"
#include "ptx.h"
#include "test_module.h"

namespace {

class Driver : public ::testing::Test {
 protected:
  void open(const gpuctl_config *c = nullptr, uint32_t ring_bytes = 0) {
    h = gh_create(c);
    drv_config cfg{};
    cfg.ring_bytes = ring_bytes;
    simtvp_diag_clear(&diag);
    ASSERT_EQ(drv_open(&h->bus, &cfg, &d, &diag), SIMTVP_OK) << diag.message;
  }
  void SetUp() override {}
  void TearDown() override {
    drv_close(d);
    gh_destroy(h);
  }
  uint64_t alloc(uint64_t n) {
    uint64_t p = 0;
    EXPECT_EQ(drv_mem_alloc(d, n, &p, &diag), SIMTVP_OK) << diag.message;
    return p;
  }
  void sync() { ASSERT_EQ(drv_sync(d, &diag), SIMTVP_OK) << diag.message; }

  gpu_harness *h = nullptr;
  drv *d = nullptr;
  simtvp_diag diag;
};

TEST_F(Driver, OpenReadsTheGpuConfigurationFromItsRegisters) {
  open();
  const drv_device_props *p = drv_props(d);
  EXPECT_STREQ(p->name, "simtvp GPU");
  EXPECT_EQ(p->abi_version, GPU_ABI_VERSION);
  EXPECT_EQ(p->cc_major, 7u);
  EXPECT_EQ(p->cc_minor, 5u);
  EXPECT_EQ(p->sm_count, 4u);
  EXPECT_EQ(p->clusters, 2u);
  EXPECT_EQ(p->warp_size, 32u);
  EXPECT_EQ(p->max_block_dim[2], 64u);
  EXPECT_EQ(p->max_grid_dim[1], 65535u);
  EXPECT_EQ(p->devmem_base, 0x100000000000ull);
  EXPECT_EQ(p->devmem_bytes, 64ull << 20);
  EXPECT_EQ(p->n_channels, 8u);
  EXPECT_EQ(p->smem_per_block, 49152u);
  uint64_t free_b, total;
  drv_mem_info(d, &free_b, &total);
  // 1/64 of 64 MiB (1 MiB, the minimum) is kept for page tables at the top (docs/vm.md).
  EXPECT_EQ(total, (64ull << 20) - (1ull << 20));
  EXPECT_EQ(free_b, total);
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_ERR_STATUS), 0u) << "the driver's accesses are all legal";
}

TEST_F(Driver, OpenRefusesSomethingThatIsNotTheGpu) {
  h = gh_create(nullptr);
  drv_bus bus = h->bus;
  bus.mmio_read32 = [](void *, uint32_t) -> uint32_t { return 0xFFFFFFFF; };
  EXPECT_EQ(drv_open(&bus, nullptr, &d, &diag), SIMTVP_ERR_STATE);
  EXPECT_NE(std::string(diag.message).find("no simtvp GPU"), std::string::npos) << diag.message;
  EXPECT_EQ(d, nullptr);
}

TEST_F(Driver, AllocationsAreAlignedAndOutOfMemoryNamesTheSizes) {
  open();
  uint64_t a = alloc(1), b = alloc(1000);
  EXPECT_EQ(a % DRV_MEM_ALIGN, 0u);
  EXPECT_EQ(b % DRV_MEM_ALIGN, 0u);
  EXPECT_GE(b, a + 256);
  uint64_t base, size;
  EXPECT_TRUE(drv_mem_lookup(d, b + 999, &base, &size));
  EXPECT_EQ(base, b);
  EXPECT_EQ(size, 1000u);
  uint64_t p;
  EXPECT_EQ(drv_mem_alloc(d, 65ull << 20, &p, &diag), SIMTVP_ERR_LIMIT);
  EXPECT_NE(std::string(diag.message).find("out of device memory"), std::string::npos);
  EXPECT_EQ(drv_mem_free(d, b + 4, &diag), SIMTVP_ERR_ARG);
  EXPECT_EQ(diag.address, b + 4);
  EXPECT_EQ(drv_mem_free(d, b, &diag), SIMTVP_OK);
  EXPECT_EQ(drv_mem_free(d, 0, &diag), SIMTVP_OK);
}

TEST_F(Driver, HostToDeviceToHostCopyRoundTrips) {
  open();
  std::vector<uint8_t> src(100000), dst(100000, 0);
  for (size_t i = 0; i < src.size(); i++) src[i] = (uint8_t)(i * 31 + 7);
  uint64_t a = alloc(src.size()), b = alloc(src.size());
  ASSERT_EQ(drv_memcpy(d, nullptr, drv_device_ptr(a), drv_host_ptr(src.data()), src.size(), &diag), SIMTVP_OK);
  ASSERT_EQ(drv_memcpy(d, nullptr, drv_device_ptr(b), drv_device_ptr(a), src.size(), &diag), SIMTVP_OK);
  ASSERT_EQ(drv_memcpy(d, nullptr, drv_host_ptr(dst.data()), drv_device_ptr(b), dst.size(), &diag), SIMTVP_OK);
  ASSERT_EQ(drv_stream_sync(d, nullptr, &diag), SIMTVP_OK) << diag.message;
  EXPECT_EQ(src, dst);
  EXPECT_EQ(0, memcmp(gh_dev_ptr(h, b), src.data(), src.size()));
}

TEST_F(Driver, HostSourceIsCapturedAtTheCall) {
  open();
  uint32_t v = 1234;
  uint64_t a = alloc(4);
  ASSERT_EQ(drv_memcpy(d, nullptr, drv_device_ptr(a), drv_host_ptr(&v), 4, &diag), SIMTVP_OK);
  v = 0;  // the caller may reuse its buffer at once
  sync();
  uint32_t got;
  memcpy(&got, gh_dev_ptr(h, a), 4);
  EXPECT_EQ(got, 1234u);
}

TEST_F(Driver, CopyOutsideAnAllocationIsRejectedBeforeReachingTheGpu) {
  open();
  uint64_t a = alloc(100);
  char buf[200];
  EXPECT_EQ(drv_memcpy(d, nullptr, drv_device_ptr(a + 50), drv_host_ptr(buf), 51, &diag), SIMTVP_ERR_ARG);
  EXPECT_EQ(diag.address, a + 50);
  EXPECT_EQ(drv_memcpy(d, nullptr, drv_host_ptr(buf), drv_device_ptr(0x1234), 4, &diag), SIMTVP_ERR_ARG);
  EXPECT_EQ(drv_memcpy(d, nullptr, drv_device_ptr(a + 50), drv_host_ptr(buf), 50, &diag), SIMTVP_OK);
}

TEST_F(Driver, SystemMemoryAddressesAreCopiedWithoutStaging) {
  open();
  uint64_t bus = gh_sys_alloc(h, 4096), a = alloc(64);
  for (int i = 0; i < 64; i++) gh_sys_ptr(h, bus)[i] = (uint8_t)(200 - i);
  ASSERT_EQ(drv_memcpy(d, nullptr, drv_device_ptr(a), drv_system_ptr(bus), 64, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_memcpy(d, nullptr, drv_system_ptr(bus + 1024), drv_device_ptr(a), 64, &diag), SIMTVP_OK);
  sync();
  EXPECT_EQ(0, memcmp(gh_sys_ptr(h, bus + 1024), gh_sys_ptr(h, bus), 64));
}

// Zero-copy mappings (MAP_SYSMEM): the driver checks what it can, queues the packet and waits.
TEST_F(Driver, SysmemMappingReachesTheGpuAndIsRemovedAgain) {
  open();
  uint64_t bus = gh_sys_alloc(h, 0x4000);
  ASSERT_EQ(drv_sysmem_map(d, 0x7f0000000000ull, bus, 0x4000, &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(h->n_sysmaps, 1u);  // in place when the call returns
  EXPECT_EQ(h->sysmaps[0].va, 0x7f0000000000ull);
  EXPECT_EQ(h->sysmaps[0].bus, bus);
  EXPECT_EQ(h->sysmaps[0].bytes, 0x4000u);
  uint64_t base = 0, b = 0, n = 0;
  ASSERT_TRUE(drv_sysmem_lookup(d, 0x7f0000003fffull, &base, &b, &n));
  EXPECT_EQ(base, 0x7f0000000000ull);
  EXPECT_FALSE(drv_sysmem_lookup(d, 0x7f0000004000ull, nullptr, nullptr, nullptr));
  ASSERT_EQ(drv_sysmem_unmap(d, 0x7f0000000000ull, &diag), SIMTVP_OK) << diag.message;
  EXPECT_EQ(h->n_sysmaps, 0u);
  EXPECT_EQ(drv_device_error(d, &diag), SIMTVP_OK);
}

TEST_F(Driver, SysmemMappingErrorsNameTheRange) {
  open();
  uint64_t bus = gh_sys_alloc(h, 0x4000);
  EXPECT_EQ(drv_sysmem_map(d, 0x7f0000000100ull, bus, 0x1000, &diag), SIMTVP_ERR_ARG);  // not page-aligned
  EXPECT_NE(std::string(diag.message).find("4 KiB pages"), std::string::npos) << diag.message;
  EXPECT_EQ(drv_sysmem_map(d, 0x7f0000000000ull, bus, 0, &diag), SIMTVP_ERR_ARG);
  const drv_device_props *p = drv_props(d);
  EXPECT_EQ(drv_sysmem_map(d, p->devmem_base + 0x1000, bus, 0x1000, &diag), SIMTVP_ERR_ARG);
  EXPECT_NE(std::string(diag.message).find("device memory"), std::string::npos) << diag.message;
  ASSERT_EQ(drv_sysmem_map(d, 0x7f0000000000ull, bus, 0x2000, &diag), SIMTVP_OK);
  EXPECT_EQ(drv_sysmem_map(d, 0x7f0000001000ull, bus, 0x2000, &diag), SIMTVP_ERR_ARG);
  EXPECT_NE(std::string(diag.message).find("overlaps the mapping at 0x7f0000000000"), std::string::npos)
      << diag.message;
  EXPECT_EQ(drv_sysmem_unmap(d, 0x7f0000001000ull, &diag), SIMTVP_ERR_ARG);  // not a mapping's start
  EXPECT_EQ(h->n_sysmaps, 1u);
  EXPECT_EQ(drv_device_error(d, &diag), SIMTVP_OK);  // nothing reached the GPU that it refused
}

TEST_F(Driver, CloseRemovesTheSysmemMappingsItMade) {
  open();
  uint64_t bus = gh_sys_alloc(h, 0x2000);
  ASSERT_EQ(drv_sysmem_map(d, 0x7f0000000000ull, bus, 0x2000, &diag), SIMTVP_OK);
  drv_close(d);
  d = nullptr;
  EXPECT_EQ(h->n_sysmaps, 0u);
}

TEST_F(Driver, PitchedCopiesMoveRowsBetweenHostAndDevice) {
  open();
  // Host image: 6 rows of 50 bytes, host pitch 64; device pitch 128 (cudaMallocPitch-style).
  std::vector<uint8_t> host(6 * 64), back(6 * 64, 0xEE);
  for (size_t i = 0; i < host.size(); i++) host[i] = (uint8_t)(i ^ 0x5A);
  uint64_t dev = alloc(6 * 128);
  ASSERT_EQ(drv_memset(d, nullptr, drv_device_ptr(dev), 0, 1, 6 * 128, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_memcpy_2d(d, nullptr, drv_device_ptr(dev), 128, drv_host_ptr(host.data()), 64, 50, 6, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_memcpy_2d(d, nullptr, drv_host_ptr(back.data()), 64, drv_device_ptr(dev), 128, 50, 6, &diag), SIMTVP_OK);
  sync();
  for (int r = 0; r < 6; r++) {
    EXPECT_EQ(0, memcmp(gh_dev_ptr(h, dev + r * 128), &host[r * 64], 50)) << "row " << r;
    EXPECT_EQ(gh_dev_ptr(h, dev + r * 128)[50], 0) << "device padding untouched";
    EXPECT_EQ(0, memcmp(&back[r * 64], &host[r * 64], 50)) << "row " << r;
    EXPECT_EQ(back[r * 64 + 50], 0xEE) << "host padding untouched";
  }
  EXPECT_EQ(drv_memcpy_2d(d, nullptr, drv_device_ptr(dev), 40, drv_host_ptr(host.data()), 64, 50, 2, &diag),
            SIMTVP_ERR_ARG) << "width beyond pitch";
}

TEST_F(Driver, MemsetWritesBytesHalfwordsAndWords) {
  open();
  uint64_t a = alloc(4096);
  ASSERT_EQ(drv_memset(d, nullptr, drv_device_ptr(a), 0xFFFFFF7Fu, 1, 4096, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_memset(d, nullptr, drv_device_ptr(a + 2), 0x1234, 2, 3, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_memset(d, nullptr, drv_device_ptr(a + 64), 0xA1B2C3D4u, 4, 2, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_memset_2d(d, nullptr, drv_device_ptr(a + 1024), 256, 7, 4, 3, 2, &diag), SIMTVP_OK);
  sync();
  const uint8_t *p = gh_dev_ptr(h, a);
  EXPECT_EQ(p[0], 0x7F);
  EXPECT_EQ(p[1], 0x7F);
  uint16_t s;
  memcpy(&s, p + 6, 2);
  EXPECT_EQ(s, 0x1234);
  EXPECT_EQ(p[8], 0x7F);
  uint32_t w;
  memcpy(&w, p + 68, 4);
  EXPECT_EQ(w, 0xA1B2C3D4u);
  memcpy(&w, p + 1024 + 256 + 8, 4);
  EXPECT_EQ(w, 7u);
  EXPECT_EQ(p[1024 + 256 + 12], 0x7F) << "past the row";
  EXPECT_EQ(drv_memset(d, nullptr, drv_device_ptr(a + 1), 0, 4, 1, &diag), SIMTVP_ERR_ARG) << "misaligned";
  EXPECT_EQ(drv_memset(d, nullptr, drv_device_ptr(a), 0, 3, 1, &diag), SIMTVP_ERR_ARG) << "element size";
}

TEST_F(Driver, SmallRingWrapsManyTimesWithoutLosingWork) {
  open(nullptr, 4096);
  uint64_t a = alloc(4 * 1000);
  // Each memset is 8 dwords + a 5-dword fence = 52 bytes: 1000 of them wrap a 4 KiB ring ~12 times.
  for (uint32_t i = 0; i < 1000; i++)
    ASSERT_EQ(drv_memset(d, nullptr, drv_device_ptr(a + 4 * i), i * 3 + 1, 4, 1, &diag), SIMTVP_OK) << i;
  sync();
  for (uint32_t i = 0; i < 1000; i++) {
    uint32_t w;
    memcpy(&w, gh_dev_ptr(h, a + 4 * i), 4);
    ASSERT_EQ(w, i * 3 + 1) << i;
  }
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_ERR_STATUS), 0u);
}

TEST_F(Driver, EventsMeasureSimulatedTimeOfTheWorkBetweenThem) {
  open();
  drv_event *e0, *e1;
  ASSERT_EQ(drv_event_create(d, &e0, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_event_create(d, &e1, &diag), SIMTVP_OK);
  std::vector<uint8_t> src(120000, 1);
  uint64_t a = alloc(src.size());
  ASSERT_EQ(drv_event_record(d, e0, nullptr, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_memcpy(d, nullptr, drv_device_ptr(a), drv_host_ptr(src.data()), src.size(), &diag), SIMTVP_OK);
  ASSERT_EQ(drv_event_record(d, e1, nullptr, &diag), SIMTVP_OK);
  uint64_t ns;
  EXPECT_EQ(drv_event_elapsed_ns(d, e0, e1, &ns, &diag), SIMTVP_ERR_STATE) << "not complete yet";
  ASSERT_EQ(drv_event_sync(d, e1, &diag), SIMTVP_OK);
  bool done = false;
  ASSERT_EQ(drv_event_query(d, e0, &done, &diag), SIMTVP_OK);
  EXPECT_TRUE(done);
  ASSERT_EQ(drv_event_elapsed_ns(d, e0, e1, &ns, &diag), SIMTVP_OK) << diag.message;
  // The copy alone: 700 + 120000 / 12 = 10700 cycles at 1.365 GHz = 7838 ns (default host link).
  EXPECT_GE(ns, 7838u);
  EXPECT_LT(ns, 7838u + 2000u) << "plus a few packets of firmware time";
  drv_event_destroy(d, e0);
  drv_event_destroy(d, e1);
}

TEST_F(Driver, StreamWaitEventOrdersWorkAcrossChannels) {
  open();
  drv_stream *s1, *s2;
  ASSERT_EQ(drv_stream_create(d, DRV_STREAM_NON_BLOCKING, 0, &s1, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_stream_create(d, DRV_STREAM_NON_BLOCKING, 0, &s2, &diag), SIMTVP_OK);
  drv_event *ev;
  ASSERT_EQ(drv_event_create(d, &ev, &diag), SIMTVP_OK);
  std::vector<uint8_t> src(50000), dst(50000, 0);
  std::iota(src.begin(), src.end(), 0);
  uint64_t a = alloc(src.size());
  // s1: a long H2D copy; s2 must see its result.
  ASSERT_EQ(drv_memcpy(d, s1, drv_device_ptr(a), drv_host_ptr(src.data()), src.size(), &diag), SIMTVP_OK);
  ASSERT_EQ(drv_event_record(d, ev, s1, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_stream_wait_event(d, s2, ev, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_memcpy(d, s2, drv_host_ptr(dst.data()), drv_device_ptr(a), dst.size(), &diag), SIMTVP_OK);
  ASSERT_EQ(drv_stream_sync(d, s2, &diag), SIMTVP_OK) << diag.message;
  EXPECT_EQ(src, dst);
  drv_event_destroy(d, ev);
  ASSERT_EQ(drv_stream_destroy(d, s1, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_stream_destroy(d, s2, &diag), SIMTVP_OK);
  EXPECT_EQ(drv_stream_destroy(d, drv_default_stream(d), &diag), SIMTVP_ERR_ARG);
}

TEST_F(Driver, LegacyDefaultStreamWaitsForBlockingStreamsButNotNonBlockingOnes) {
  open();
  drv_stream *blocking, *nonblocking;
  ASSERT_EQ(drv_stream_create(d, 0, 0, &blocking, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_stream_create(d, DRV_STREAM_NON_BLOCKING, 0, &nonblocking, &diag), SIMTVP_OK);
  // Blocking stream: 200 KB (≈ 17 400 cycles); non-blocking: 2 MB (≈ 175 500 cycles); both start
  // at once on the two copy engines. The default stream's memset waits for the first only.
  std::vector<uint8_t> small(200000, 9), big(2000000, 7);
  uint64_t a = alloc(small.size()), b = alloc(big.size()), flag = alloc(4);
  ASSERT_EQ(drv_memcpy(d, blocking, drv_device_ptr(a), drv_host_ptr(small.data()), small.size(), &diag), SIMTVP_OK);
  ASSERT_EQ(drv_memcpy(d, nonblocking, drv_device_ptr(b), drv_host_ptr(big.data()), big.size(), &diag), SIMTVP_OK);
  ASSERT_EQ(drv_memset(d, nullptr, drv_device_ptr(flag), 1, 4, 1, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_stream_sync(d, nullptr, &diag), SIMTVP_OK);
  bool idle_blocking = false, idle_nonblocking = true;
  ASSERT_EQ(drv_stream_query(d, blocking, &idle_blocking, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_stream_query(d, nonblocking, &idle_nonblocking, &diag), SIMTVP_OK);
  EXPECT_TRUE(idle_blocking) << "the default stream waited for the blocking stream";
  EXPECT_FALSE(idle_nonblocking) << "but not for the non-blocking one";
  EXPECT_GE(h->now, 17400u);
  EXPECT_LT(h->now, 100000u);
  // Later work on the blocking stream waits for the default stream in turn.
  ASSERT_EQ(drv_memset(d, blocking, drv_device_ptr(flag), 2, 4, 1, &diag), SIMTVP_OK);
  sync();
  uint32_t w;
  memcpy(&w, gh_dev_ptr(h, flag), 4);
  EXPECT_EQ(w, 2u);
}

TEST_F(Driver, CallbackRunsAfterEarlierWorkAndBeforeLaterWork) {
  open();
  struct Ctx {
    gpu_harness *h;
    uint64_t a;
    uint32_t seen = 0;
    int calls = 0;
  } ctx{h, alloc(4)};
  ASSERT_EQ(drv_memset(d, nullptr, drv_device_ptr(ctx.a), 11, 4, 1, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_stream_add_callback(d, nullptr, [](void *p) {
              auto *c = static_cast<Ctx *>(p);
              memcpy(&c->seen, gh_dev_ptr(c->h, c->a), 4);
              c->calls++;
            }, &ctx, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_memset(d, nullptr, drv_device_ptr(ctx.a), 22, 4, 1, &diag), SIMTVP_OK);
  sync();
  EXPECT_EQ(ctx.calls, 1);
  EXPECT_EQ(ctx.seen, 11u);
  uint32_t w;
  memcpy(&w, gh_dev_ptr(h, ctx.a), 4);
  EXPECT_EQ(w, 22u);
}

// ---- modules and launches ----------------------------------------------------------------------

TEST_F(Driver, ModuleLoadPlacesImageGlobalsAndConstantsInDeviceMemory) {
  open();
  TestModule t;
  drv_module *mod;
  ASSERT_EQ(drv_module_load_parsed(d, &t.m, false, &mod, &diag), SIMTVP_OK) << diag.message;
  uint64_t img = drv_module_image_addr(mod);
  gpu_image_header hd;
  memcpy(&hd, gh_dev_ptr(h, img), sizeof hd);
  EXPECT_EQ(hd.magic, GPU_IMAGE_MAGIC);
  EXPECT_EQ(hd.n_functions, 2u);
  uint64_t g, gsize, c, csize, p, fp;
  ASSERT_EQ(drv_module_global(mod, "gtable", &g, &gsize, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_module_global(mod, "cvals", &c, &csize, &diag), SIMTVP_OK);
  EXPECT_EQ(gsize, 16u);
  EXPECT_EQ(g, hd.global_base);
  EXPECT_EQ(c, hd.const_base);
  for (int i = 0; i < 16; i++) EXPECT_EQ(gh_dev_ptr(h, g)[i], 0xA0 + i);
  for (int i = 0; i < 8; i++) EXPECT_EQ(gh_dev_ptr(h, c)[i], 0xC0 + i);
  memcpy(&p, gh_dev_ptr(h, g + 16), 8);
  EXPECT_EQ(p, g + 4) << "gptr = &gtable + 4";
  memcpy(&fp, gh_dev_ptr(h, g + 24), 8);
  EXPECT_EQ(fp, img + hd.insn_offset) << "fptr = &helper (instruction 0)";
  EXPECT_EQ(drv_module_global(mod, "nothere", &g, nullptr, &diag), SIMTVP_ERR_ARG);
  uint64_t base, size;
  EXPECT_TRUE(drv_mem_lookup(d, g + 3, &base, &size)) << "cudaMemcpyToSymbol ranges check out";
  // The image the GPU side loads back is the module.
  gpu_mem_port port{h, [](void *c2, uint64_t a, void *dst, uint64_t n) {
                      auto *hh = static_cast<gpu_harness *>(c2);
                      memcpy(dst, gh_dev_ptr(hh, a), n);
                      return true;
                    }, nullptr};
  gpu_image *gi;
  ASSERT_EQ(gpu_image_load(&port, img, &gi, &diag), SIMTVP_OK) << diag.message;
  EXPECT_STREQ(gi->module->functions[1].name, "kern");
  gpu_image_free(gi);
  ASSERT_EQ(drv_module_unload(d, mod, &diag), SIMTVP_OK);
}

TEST_F(Driver, KernelAttributesAndParameterLayoutComeFromTheEntry) {
  open();
  TestModule t;
  drv_module *mod;
  ASSERT_EQ(drv_module_load_parsed(d, &t.m, false, &mod, &diag), SIMTVP_OK) << diag.message;
  EXPECT_EQ(drv_module_function(mod, "helper"), nullptr) << ".func is not a kernel";
  drv_function *f = drv_module_function(mod, "kern");
  ASSERT_NE(f, nullptr);
  drv_function_attrs at;
  drv_function_get_attrs(d, f, &at);
  EXPECT_EQ(at.regs_per_thread, 20u);
  EXPECT_EQ(at.static_smem_bytes, 1024u);
  EXPECT_EQ(at.param_bytes, 12u);
  EXPECT_EQ(at.n_params, 2u);
  EXPECT_EQ(at.max_threads_per_block, 1024u);
  EXPECT_EQ(at.ptx_version, 85u);
  uint32_t off, bytes;
  ASSERT_TRUE(drv_function_param(f, 1, &off, &bytes));
  EXPECT_EQ(off, 8u);
  EXPECT_EQ(bytes, 4u);
  EXPECT_FALSE(drv_function_param(f, 2, &off, &bytes));
  uint64_t p0 = 0x1122334455667788ull;
  uint32_t p1 = 0xAABBCCDD;
  void *args[2] = {&p0, &p1};
  uint8_t buf[16];
  uint32_t used;
  ASSERT_EQ(drv_function_pack_params(f, args, buf, sizeof buf, &used, &diag), SIMTVP_OK);
  EXPECT_EQ(used, 12u);
  EXPECT_EQ(0, memcmp(buf, &p0, 8));
  EXPECT_EQ(0, memcmp(buf + 8, &p1, 4));
  // 48 KiB per SM... this GPU has 64 KiB per SM: (1024 static + 20480 dynamic) → 21504 per CTA → 3.
  EXPECT_EQ(drv_occupancy(d, f, 128, 20480), 3u);
  EXPECT_EQ(drv_occupancy(d, f, 2048, 0), 0u);
  ASSERT_EQ(drv_module_unload(d, mod, &diag), SIMTVP_OK);
}

TEST_F(Driver, OccupancyUsesTheDispatchersRulesFor48KiBAnd20KiB) {
  gpuctl_config c;
  gh_default_config(&c);
  c.caps.smem_per_sm = 48 * 1024;
  open(&c);
  TestModule t;
  t.functions[1].res.shared_bytes = 0;
  drv_module *mod;
  ASSERT_EQ(drv_module_load_parsed(d, &t.m, false, &mod, &diag), SIMTVP_OK) << diag.message;
  drv_function *f = drv_module_function(mod, "kern");
  // 48 KiB per SM / 20 KiB per CTA = 2 CTAs per SM.
  EXPECT_EQ(drv_occupancy(d, f, 128, 20 * 1024), 2u);
  // And the dispatcher places exactly that many per SM.
  uint32_t grid[3] = {16, 1, 1}, block[3] = {128, 1, 1};
  uint8_t params[12] = {};
  h->cta_cycles = 1000;
  ASSERT_EQ(drv_function_set_max_dynamic_smem(d, f, 20 * 1024, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_launch(d, nullptr, f, grid, block, 20 * 1024, params, 12, &diag), SIMTVP_OK) << diag.message;
  sync();
  for (uint32_t sm = 0; sm < 4; sm++) EXPECT_EQ(h->max_resident[sm], 2u) << "sm " << sm;
  EXPECT_EQ(h->n_ctas, 16u);
  ASSERT_EQ(drv_module_unload(d, mod, &diag), SIMTVP_OK);
}

TEST_F(Driver, LaunchReachesTheDispatcherWithGridBlockAndParameters) {
  open();
  TestModule t;
  drv_module *mod;
  ASSERT_EQ(drv_module_load_parsed(d, &t.m, false, &mod, &diag), SIMTVP_OK) << diag.message;
  drv_function *f = drv_module_function(mod, "kern");
  drv_stream *s;
  ASSERT_EQ(drv_stream_create(d, 0, 0, &s, &diag), SIMTVP_OK);
  uint64_t p0 = 0x0102030405060708ull;
  uint32_t p1 = 99;
  void *args[2] = {&p0, &p1};
  uint8_t buf[12];
  ASSERT_EQ(drv_function_pack_params(f, args, buf, sizeof buf, nullptr, &diag), SIMTVP_OK);
  uint32_t grid[3] = {3, 2, 1}, block[3] = {64, 2, 1};
  ASSERT_EQ(drv_launch(d, s, f, grid, block, 256, buf, sizeof buf, &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(drv_stream_sync(d, s, &diag), SIMTVP_OK) << diag.message;
  ASSERT_EQ(h->n_kernels, 1u);
  const gpu_launch_desc &k = h->kernels[0].k.desc;
  EXPECT_EQ(k.image_addr, drv_module_image_addr(mod));
  EXPECT_EQ(k.entry, 1u);
  EXPECT_EQ(k.grid[0], 3u);
  EXPECT_EQ(k.grid[1], 2u);
  EXPECT_EQ(k.block[0], 64u);
  EXPECT_EQ(k.block[1], 2u);
  EXPECT_EQ(k.smem_dynamic, 256u);
  EXPECT_EQ(k.smem_static, 1024u);
  EXPECT_EQ(k.regs_per_thread, 20u);
  EXPECT_EQ(k.local_bytes, 16u);
  EXPECT_NE(k.stream_id, 0u);
  ASSERT_EQ(k.param_bytes, 12u);
  EXPECT_EQ(0, memcmp(h->kernels[0].params, buf, 12));
  EXPECT_EQ(h->n_ctas, 6u);
  ASSERT_EQ(drv_stream_destroy(d, s, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_module_unload(d, mod, &diag), SIMTVP_OK);
}

TEST_F(Driver, InvalidLaunchConfigurationsAreRejectedByName) {
  open();
  TestModule t;
  drv_module *mod;
  ASSERT_EQ(drv_module_load_parsed(d, &t.m, false, &mod, &diag), SIMTVP_OK) << diag.message;
  drv_function *f = drv_module_function(mod, "kern");
  uint8_t buf[12] = {};
  uint32_t g1[3] = {1, 1, 1}, g0[3] = {0, 1, 1}, b_big[3] = {1024, 2, 1}, b_z[3] = {1, 1, 65}, b[3] = {32, 1, 1};
  EXPECT_EQ(drv_launch(d, nullptr, f, g0, b, 0, buf, 12, &diag), SIMTVP_ERR_ARG);
  EXPECT_NE(std::string(diag.message).find("grid dimension x"), std::string::npos) << diag.message;
  EXPECT_EQ(drv_launch(d, nullptr, f, g1, b_big, 0, buf, 12, &diag), SIMTVP_ERR_ARG);
  EXPECT_EQ(drv_launch(d, nullptr, f, g1, b_z, 0, buf, 12, &diag), SIMTVP_ERR_ARG);
  EXPECT_EQ(drv_launch(d, nullptr, f, g1, b, 60000, buf, 12, &diag), SIMTVP_ERR_ARG);
  EXPECT_NE(std::string(diag.message).find("dynamic shared memory"), std::string::npos) << diag.message;
  EXPECT_EQ(drv_launch(d, nullptr, f, g1, b, 0, buf, 8, &diag), SIMTVP_ERR_ARG) << "too few parameter bytes";
  EXPECT_EQ(h->n_kernels, 0u);
  sync();
  ASSERT_EQ(drv_module_unload(d, mod, &diag), SIMTVP_OK);
}

// ---- asynchronous errors ------------------------------------------------------------------------

TEST_F(Driver, KernelFaultBecomesAStickyErrorNamingTheAddress) {
  open();
  TestModule t;
  drv_module *mod;
  ASSERT_EQ(drv_module_load_parsed(d, &t.m, false, &mod, &diag), SIMTVP_OK) << diag.message;
  h->cta_fn = [](gpu_harness *, const gpu_kernel *, const uint32_t *) {
    return gpu_cta_result{SIMTVP_ERR_FAULT, 0xBADBAD00ull, 3};
  };
  uint8_t buf[12] = {};
  uint32_t g[3] = {2, 1, 1}, b[3] = {32, 1, 1};
  ASSERT_EQ(drv_launch(d, nullptr, drv_module_function(mod, "kern"), g, b, 0, buf, 12, &diag), SIMTVP_OK);
  EXPECT_EQ(drv_sync(d, &diag), SIMTVP_ERR_FAULT);
  EXPECT_NE(std::string(diag.message).find("KERNEL_FAULT"), std::string::npos) << diag.message;
  EXPECT_EQ(diag.address, 0xBADBAD00ull);
  EXPECT_EQ(drv_stream_sync(d, nullptr, &diag), SIMTVP_ERR_FAULT) << "sticky";
  EXPECT_EQ(drv_device_error(d, nullptr), SIMTVP_ERR_FAULT);
  drv_clear_error(d);
  h->cta_fn = nullptr;
  EXPECT_EQ(drv_sync(d, &diag), SIMTVP_OK);
  ASSERT_EQ(drv_module_unload(d, mod, &diag), SIMTVP_OK);
}

TEST_F(Driver, IllegalRegisterAccessSurfacesAtTheNextWait) {
  open();
  gh_mmio_write(h, GPU_REG_SM_COUNT, 5);  // a buggy driver's write to a read-only register
  uint64_t a = alloc(4);
  ASSERT_EQ(drv_memset(d, nullptr, drv_device_ptr(a), 1, 4, 1, &diag), SIMTVP_OK);
  EXPECT_EQ(drv_sync(d, &diag), SIMTVP_ERR_STATE);
  EXPECT_NE(std::string(diag.message).find("REG_RO_WRITE"), std::string::npos) << diag.message;
  EXPECT_EQ(diag.address, (uint64_t)GPU_REG_SM_COUNT);
  uint32_t w;
  memcpy(&w, gh_dev_ptr(h, a), 4);
  EXPECT_EQ(w, 1u) << "the GPU went on";
  drv_clear_error(d);
}

TEST_F(Driver, WaitingForWorkThatCanNeverFinishReportsDeadlockInsteadOfHanging) {
  open();
  TestModule t;
  drv_module *mod;
  ASSERT_EQ(drv_module_load_parsed(d, &t.m, false, &mod, &diag), SIMTVP_OK) << diag.message;
  h->hang_ctas = true;
  uint8_t buf[12] = {};
  uint32_t g[3] = {1, 1, 1}, b[3] = {32, 1, 1};
  ASSERT_EQ(drv_launch(d, nullptr, drv_module_function(mod, "kern"), g, b, 0, buf, 12, &diag), SIMTVP_OK);
  EXPECT_EQ(drv_stream_sync(d, nullptr, &diag), SIMTVP_ERR_DEADLOCK);
  EXPECT_NE(std::string(diag.message).find("no more progress"), std::string::npos) << diag.message;
  // Leave the GPU in a state drv_close can finish: forget the hung kernel.
  gpuctl_reset(h->g);
  drv_close(d);
  d = nullptr;
}

TEST_F(Driver, PtxModuleLoadsThroughTheParser) {
  open();
  static const char kPtx[] =
      ".version 8.5\n.target sm_75\n.address_size 64\n"
      ".global .align 4 .u32 counter = 42;\n"
      ".visible .entry inc(.param .u64 p, .param .u32 n)\n{\n"
      "  .reg .b64 %rd<2>;\n  ld.param.u64 %rd1, [p];\n  ret;\n}\n";
  drv_module *mod;
  ASSERT_EQ(drv_module_load_ptx(d, kPtx, sizeof kPtx - 1, "inc.ptx", &mod, &diag), SIMTVP_OK) << diag.message;
  uint64_t g, n;
  ASSERT_EQ(drv_module_global(mod, "counter", &g, &n, &diag), SIMTVP_OK);
  uint32_t v;
  memcpy(&v, gh_dev_ptr(h, g), 4);
  EXPECT_EQ(v, 42u);
  drv_function *f = drv_module_function(mod, "inc");
  ASSERT_NE(f, nullptr);
  uint32_t off, bytes;
  ASSERT_TRUE(drv_function_param(f, 1, &off, &bytes));
  EXPECT_EQ(off, 8u);
  EXPECT_EQ(bytes, 4u);
  ASSERT_EQ(drv_module_unload(d, mod, &diag), SIMTVP_OK);
  static const char kBad[] = ".version 8.5\n.target sm_75\n.address_size 64\n.entry k() { bogus.op; }\n";
  EXPECT_NE(drv_module_load_ptx(d, kBad, sizeof kBad - 1, "bad.ptx", &mod, &diag), SIMTVP_OK);
  EXPECT_NE(std::string(diag.message).find("bad.ptx"), std::string::npos) << diag.message;
}

// The device-memory map: the driver turns it on at open and declares every allocation (its own
// module blocks too); freeing ends the block, and a copy into freed memory faults on the GPU.
TEST_F(Driver, AllocationsAreDeclaredToTheGpusMemoryMap) {
  open();
  EXPECT_TRUE(h->memmap_on);
  uint32_t before = h->n_blocks;
  uint64_t a = alloc(8192), b = alloc(100);
  EXPECT_EQ(h->n_blocks, before + 2);
  bool found = false;
  for (uint32_t i = 0; i < h->n_blocks; i++)
    if (h->blocks[i].addr == a) found = h->blocks[i].size == 8192;
  EXPECT_TRUE(found);
  ASSERT_EQ(drv_mem_free(d, a, &diag), SIMTVP_OK);
  EXPECT_EQ(h->n_blocks, before + 1);
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_ERR_STATUS), 0u) << "every MEMMAP_OP was accepted";
  (void)b;
}

TEST_F(Driver, RefusedMemmapOperationsRaiseAnError) {
  open();
  gh_mmio_write(h, GPU_REG_MEMMAP_ADDR_LO, 0x1000);  // outside device memory
  gh_mmio_write(h, GPU_REG_MEMMAP_ADDR_HI, 0);
  gh_mmio_write(h, GPU_REG_MEMMAP_SIZE_LO, 64);
  gh_mmio_write(h, GPU_REG_MEMMAP_SIZE_HI, 0);
  gh_mmio_write(h, GPU_REG_MEMMAP_OP, 1);
  EXPECT_EQ(GPU_FIELD_GET(GPU_ERR_CODE_CODE, gh_mmio_read(h, GPU_REG_ERR_CODE)), (uint32_t)GPU_ERR_MEMMAP_OP);
  EXPECT_EQ(gh_mmio_read(h, GPU_REG_ERR_ADDR_LO), 0x1000u);
  gh_mmio_write(h, GPU_REG_ERR_STATUS, gh_mmio_read(h, GPU_REG_ERR_STATUS));
  gh_mmio_write(h, GPU_REG_MEMMAP_OP, 3);  // no such command
  EXPECT_EQ(GPU_FIELD_GET(GPU_ERR_CODE_CODE, gh_mmio_read(h, GPU_REG_ERR_CODE)), (uint32_t)GPU_ERR_MEMMAP_OP);
}

}  // namespace
