// docs/gpu-abi.md is generated from gpu_abi.h: the committed file must match the generator.
#include <gtest/gtest.h>

#include <cstring>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "gpu_abi.h"
#include "gpu_abi_doc.h"

namespace {

std::string generated() {
  FILE *f = tmpfile();
  gpu_abi_write_markdown(f);
  std::string s;
  rewind(f);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  fclose(f);
  return s;
}

TEST(GpuAbiDoc, CommittedDocumentMatchesTheHeader) {
  std::ifstream in(std::string(SIMTVP_SOURCE_DIR) + "/docs/gpu-abi.md", std::ios::binary);
  ASSERT_TRUE(in) << "docs/gpu-abi.md is missing";
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_TRUE(ss.str() == generated())
      << "docs/gpu-abi.md differs from models/gpuctl/gpu_abi.h; regenerate it with "
         "`cmake --build <build> --target gpu_abi_doc_update`";
}

TEST(GpuAbiDoc, EveryRegisterPacketAndErrorIsDocumented) {
  std::string doc = generated();
#define X(name, off, acc, rst, src, mask, desc) EXPECT_NE(doc.find("`" #name "`"), std::string::npos) << #name;
  GPU_ABI_REGS(X)
#undef X
#define X(name, off, acc, rst, mask, desc) EXPECT_NE(doc.find("`" #name "`"), std::string::npos) << #name;
  GPU_ABI_CH_REGS(X)
#undef X
#define X(name, op, dw, desc) EXPECT_NE(doc.find("### " #name " "), std::string::npos) << #name;
  GPU_ABI_PACKETS(X)
#undef X
#define X(name, code, cls, addr, info, desc) EXPECT_NE(doc.find("`" #name "`"), std::string::npos) << #name;
  GPU_ABI_ERRORS(X)
#undef X
}

TEST(GpuAbi, TablesAreConsistent) {
  // Register offsets are unique, aligned and inside their region; packet dwords lie inside packets.
  uint32_t offs[] = {
#define X(name, off, acc, rst, src, mask, desc) off,
      GPU_ABI_REGS(X)
#undef X
  };
  for (size_t i = 0; i < sizeof offs / sizeof offs[0]; i++) {
    EXPECT_EQ(offs[i] % 4, 0u);
    EXPECT_LT(offs[i], GPU_CH_BASE);
    for (size_t j = i + 1; j < sizeof offs / sizeof offs[0]; j++) EXPECT_NE(offs[i], offs[j]);
  }
#define X(name, off, acc, rst, mask, desc) EXPECT_LT((uint32_t)(off), GPU_CH_STRIDE) << #name;
  GPU_ABI_CH_REGS(X)
#undef X
  // LAUNCH's CLUSTER flag adds one dword (CLUSTER) after the fixed ones
#define X(pkt, field, idx, desc)                                                                   \
  EXPECT_LT((uint32_t)(idx), (uint32_t)GPU_PKT_##pkt##_DWORDS + (!strcmp(#pkt #field, "LAUNCHCLUSTER") ? 1u : 0u)) \
      << #pkt "." #field;
  GPU_ABI_PKT_DWORDS(X)
#undef X
  EXPECT_EQ(sizeof(gpu_image_header) % 8, 0u);
  EXPECT_EQ(sizeof(gpu_image_code_slot), (size_t)GPU_IMAGE_INSN_BYTES);
}

}  // namespace
