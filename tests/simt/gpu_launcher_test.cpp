// gpu_launcher (models/gpuctl): program images read from device memory once per (address,
// load_id), launches per dispatcher slot, timing-model attachments built once per image, images
// of running kernels never evicted, unreadable or malformed images refused with the address.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include "gpu_image.h"
#include "gpu_launcher.h"
#include "simt.h"
}

namespace {

const char *kPtx = ".version 7.0\n.target sm_70\n.address_size 64\n"
                   ".visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r<4>;\n  mov.u32 %r1, 1;\n  exit;\n}\n";

struct GpuLauncher : ::testing::Test {
  devmem *mem = nullptr;
  func_engine *e = nullptr;
  ptx_module *m = nullptr;
  gpu_launcher *l = nullptr;
  int builds = 0, frees = 0;
  uint8_t params[8] = {0};
  simtvp_diag d{};

  static bool rd(void *ctx, uint64_t a, void *dst, uint64_t n) {
    return devmem_read(static_cast<GpuLauncher *>(ctx)->mem, a, dst, n, nullptr) == SIMTVP_OK;
  }
  void SetUp() override {
    mem = devmem_create();
    func_config fc{};
    e = func_create(&fc, nullptr, mem, nullptr, &d);
    m = ptx_parse(kPtx, strlen(kPtx), "k.ptx", nullptr, &d);
    ASSERT_NE(m, nullptr) << d.message;
    gpu_launcher_attach att{};
    att.ctx = this;
    att.build = [](void *ctx, const ptx_module *mod, simtvp_diag *diag) -> void * {
      static_cast<GpuLauncher *>(ctx)->builds++;
      return simt_program_build(nullptr, mod, diag);
    };
    att.free = [](void *ctx, void *p) {
      static_cast<GpuLauncher *>(ctx)->frees++;
      simt_program_free(nullptr, p);
    };
    l = gpu_launcher_create(e, gpu_mem_port{this, rd, nullptr}, &att, &d);
    ASSERT_NE(l, nullptr) << d.message;
  }
  void TearDown() override {
    gpu_launcher_destroy(l);
    ptx_module_destroy(m);
    func_destroy(e);
    devmem_destroy(mem);
  }
  // Writes an image of the module at addr with the given load id.
  void image_at(uint64_t addr, uint64_t load_id) {
    uint64_t n = gpu_image_size(m);
    std::vector<uint8_t> buf(n);
    ASSERT_EQ(gpu_image_build(m, 0, 0, buf.data(), n, &d), SIMTVP_OK) << d.message;
    gpu_image_set_load_id(buf.data(), load_id);
    ASSERT_EQ(devmem_map(mem, addr, n, &d), SIMTVP_OK);
    ASSERT_EQ(devmem_write(mem, addr, buf.data(), n, &d), SIMTVP_OK);
  }
  gpu_kernel kernel(uint32_t slot, uint64_t image) {
    gpu_kernel k{};
    k.slot = slot;
    k.launch_uid = slot + 1;
    k.n_ctas = 1;
    k.threads_per_cta = 32;
    k.desc.image_addr = image;
    k.desc.entry = 0;
    k.desc.grid[0] = k.desc.grid[1] = k.desc.grid[2] = 1;
    k.desc.block[0] = 32, k.desc.block[1] = k.desc.block[2] = 1;
    k.desc.params = params;
    k.desc.param_bytes = 8;
    return k;
  }
};

TEST_F(GpuLauncher, ImageIsDecodedOncePerAddressAndLoadId) {
  image_at(0x100000, 7);
  gpu_kernel_result why{};
  for (uint32_t i = 0; i < 3; i++) {
    gpu_kernel k = kernel(i % 2, 0x100000);
    ASSERT_TRUE(gpu_launcher_begin(l, &k, &why, &d)) << d.message;
    EXPECT_NE(gpu_launcher_launch(l, k.slot), nullptr);
    EXPECT_NE(gpu_launcher_attachment(l, k.slot), nullptr);
    EXPECT_EQ(simt_program_module(static_cast<simt_program *>(gpu_launcher_attachment(l, k.slot))),
              gpu_launcher_module(l, k.slot));
    EXPECT_NE(gpu_launcher_program(l, k.slot), nullptr);
    gpu_launcher_end(l, &k);
    EXPECT_EQ(gpu_launcher_launch(l, k.slot), nullptr);
  }
  EXPECT_EQ(builds, 1);
  image_at(0x200000, 8);
  gpu_kernel k = kernel(0, 0x200000);
  ASSERT_TRUE(gpu_launcher_begin(l, &k, &why, &d)) << d.message;
  gpu_launcher_end(l, &k);
  EXPECT_EQ(builds, 2);
}

TEST_F(GpuLauncher, UnreadableImageIsRefusedWithItsAddress) {
  gpu_kernel k = kernel(0, 0xdead000);
  gpu_kernel_result why{};
  EXPECT_FALSE(gpu_launcher_begin(l, &k, &why, &d));
  EXPECT_EQ(why.status, SIMTVP_ERR_FAULT);
  EXPECT_EQ(why.fault_addr, 0xdead000u);
  EXPECT_NE(std::string(d.message).find("0xdead000"), std::string::npos) << d.message;
  EXPECT_EQ(gpu_launcher_launch(l, 0), nullptr);
}

TEST_F(GpuLauncher, MalformedImageIsRefused) {
  ASSERT_EQ(devmem_map(mem, 0x300000, 4096, &d), SIMTVP_OK);
  std::vector<uint8_t> junk(4096, 0x5a);
  ASSERT_EQ(devmem_write(mem, 0x300000, junk.data(), junk.size(), &d), SIMTVP_OK);
  gpu_kernel k = kernel(1, 0x300000);
  gpu_kernel_result why{};
  EXPECT_FALSE(gpu_launcher_begin(l, &k, &why, &d));
  EXPECT_NE(why.status, SIMTVP_OK);
  EXPECT_EQ(why.fault_addr, 0x300000u);
}

TEST_F(GpuLauncher, ImagesOfRunningKernelsAreNeverEvicted) {
  // 16 cached images, each used by a running kernel: a 17th image cannot be decoded until one
  // of them ends; the images in use stay valid.
  gpu_kernel_result why{};
  std::vector<gpu_kernel> ks;
  for (uint32_t i = 0; i < 16; i++) {
    image_at(0x1000000 + (uint64_t)i * 0x100000, 100 + i);
    ks.push_back(kernel(i, 0x1000000 + (uint64_t)i * 0x100000));
    ASSERT_TRUE(gpu_launcher_begin(l, &ks.back(), &why, &d)) << d.message;
  }
  image_at(0x3000000, 999);
  gpu_kernel extra = kernel(16, 0x3000000);
  EXPECT_FALSE(gpu_launcher_begin(l, &extra, &why, &d));
  // A state of the GPU, not a limit the kernel hit (SIMTVP_ERR_LIMIT reads as a stopped kernel).
  EXPECT_EQ(why.status, SIMTVP_ERR_STATE);
  for (uint32_t i = 0; i < 16; i++) EXPECT_NE(gpu_launcher_module(l, i), nullptr);
  gpu_launcher_end(l, &ks[3]);
  EXPECT_TRUE(gpu_launcher_begin(l, &extra, &why, &d)) << d.message;
  EXPECT_EQ(frees, 1);
  gpu_launcher_end(l, &extra);
  for (auto &k : ks) gpu_launcher_end(l, &k);
}

}  // namespace
