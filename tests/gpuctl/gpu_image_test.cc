// Program image: what the driver writes is what the GPU side reads back.
#include <gtest/gtest.h>

#include <vector>

#include "gpu_image.h"
#include "test_module.h"

namespace {

TEST(GpuImage, RoundTripRebuildsTheModule) {
  TestModule t;
  uint64_t n = gpu_image_size(&t.m);
  std::vector<uint8_t> buf(n);
  ASSERT_EQ(gpu_image_build(&t.m, 0x1000, 0x2000, buf.data(), n, nullptr), SIMTVP_OK);
  gpu_image *img = nullptr;
  simtvp_diag d;
  simtvp_diag_clear(&d);
  ASSERT_EQ(gpu_image_load_bytes(buf.data(), n, 0x5000, &img, &d), SIMTVP_OK) << d.message;
  const ptx_module *m = img->module;
  EXPECT_EQ(img->header.magic, GPU_IMAGE_MAGIC);
  EXPECT_EQ(img->header.global_base, 0x1000u);
  EXPECT_EQ(img->header.const_base, 0x2000u);
  EXPECT_EQ(img->header.n_functions, 2u);
  EXPECT_STREQ(m->source_name, "test_module.ptx");
  ASSERT_EQ(m->n_functions, 2u);
  EXPECT_STREQ(m->functions[1].name, "kern");
  EXPECT_EQ(m->functions[1].res.shared_bytes, 1024u);
  ASSERT_EQ(m->n_symbols, 6u);
  EXPECT_STREQ(m->symbols[4].name, "cvals");
  ASSERT_EQ(m->n_insns, 5u);
  EXPECT_EQ(m->insns[3].ptx_line, 13u);
  EXPECT_EQ(0, memcmp(m->insns, t.m.insns, 5 * sizeof(ptx_insn)));
  EXPECT_STREQ(m->reg_names[1], "%rd2");
  EXPECT_STREQ(m->files[1], "kern.cu");
  EXPECT_EQ(m->init_data_size, t.m.init_data_size);
  EXPECT_EQ(0, memcmp(m->init_data, t.m.init_data, t.m.init_data_size));
  EXPECT_EQ(m->n_relocs, 2u);
  EXPECT_TRUE(m->relocs[1].is_function);
  EXPECT_EQ(m->global_segment_bytes, 32u);
  EXPECT_EQ(m->param_list[1], 1u);
  gpu_image_free(img);
}

TEST(GpuImage, CodeSlotsSit16BytesApartAndNameTheirInstruction) {
  TestModule t;
  uint64_t n = gpu_image_size(&t.m);
  std::vector<uint8_t> buf(n);
  ASSERT_EQ(gpu_image_build(&t.m, 0, 0, buf.data(), n, nullptr), SIMTVP_OK);
  gpu_image_header h;
  memcpy(&h, buf.data(), sizeof h);
  EXPECT_EQ(h.insn_stride, 16u);
  EXPECT_EQ(h.insn_offset % 16, 0u);
  gpu_image_code_slot s;
  memcpy(&s, buf.data() + h.insn_offset + 3 * 16, sizeof s);
  EXPECT_EQ(s.pc, 3u);
  EXPECT_EQ(s.opcode, 4u);
  EXPECT_EQ(s.function, 1u);
  // Function 1 starts at instruction 2: its address is code_base + 2 * 16.
  EXPECT_EQ(gpu_image_function_addr(0x10000, &h, &t.m, 1), 0x10000 + h.insn_offset + 32);
}

TEST(GpuImage, CorruptImageIsRejectedNotMisread) {
  TestModule t;
  uint64_t n = gpu_image_size(&t.m);
  std::vector<uint8_t> buf(n);
  ASSERT_EQ(gpu_image_build(&t.m, 0, 0, buf.data(), n, nullptr), SIMTVP_OK);
  gpu_image *img = nullptr;
  simtvp_diag d;
  std::vector<uint8_t> bad = buf;
  bad[0] ^= 0xFF;  // magic
  EXPECT_EQ(gpu_image_load_bytes(bad.data(), n, 0x7000, &img, &d), SIMTVP_ERR_PARSE);
  EXPECT_EQ(d.address, 0x7000u);
  EXPECT_EQ(img, nullptr);
  EXPECT_EQ(gpu_image_load_bytes(buf.data(), n / 2, 0, &img, &d), SIMTVP_ERR_PARSE) << "truncated";
  bad = buf;
  gpu_image_header h;
  memcpy(&h, bad.data(), sizeof h);
  uint32_t huge = 0x7FFFFFFF;  // layout: sizeof_function field
  memcpy(bad.data() + h.layout_offset, &huge, 4);
  EXPECT_EQ(gpu_image_load_bytes(bad.data(), n, 0, &img, &d), SIMTVP_ERR_PARSE);
  EXPECT_NE(std::string(d.message).find("record sizes"), std::string::npos) << d.message;
}

TEST(GpuImage, TooSmallBufferIsAnArgumentError) {
  TestModule t;
  std::vector<uint8_t> buf(64);
  EXPECT_EQ(gpu_image_build(&t.m, 0, 0, buf.data(), buf.size(), nullptr), SIMTVP_ERR_ARG);
}

}  // namespace
