// Load hoisting (models/ptx/ptx_sched.c): within a basic block, plain loads and the instructions
// that compute their addresses move ahead of independent work; fixed instructions (stores,
// branches, barriers, clock reads) keep their index, and no register dependency is broken.
#include <string>
#include <vector>

#include "ptx_test_util.h"

using namespace ptxtest;

namespace {

std::vector<std::string> order(const ptx_module *m, const std::vector<ptx_insn> &v) {
  std::vector<std::string> s;
  char buf[256];
  for (const ptx_insn &in : v) {
    ptx_insn_format(m, &in, buf, sizeof buf);
    s.push_back(buf);
  }
  return s;
}

std::vector<ptx_insn> hoist(const ptx_module *m, uint32_t *moved) {
  std::vector<ptx_insn> out(m->n_insns);
  *moved = ptx_hoist_loads(m, out.data());
  return out;
}

}  // namespace

TEST(PtxSched, UnrolledDotProductIssuesEveryLoadBeforeTheFirstFma) {
  // nvcc's 2-way unrolled loop body (bench/hwcorr gemm_naive): ld, ld, fma, add, ld, ld, fma.
  // Hoisted: both load pairs (and the add that forms the second address) come first; the fmas
  // follow in order; the branch keeps its index (9).
  auto r = parse(kernel(".reg .pred %p<2>;\n.reg .f32 %f<8>;\n.reg .b64 %rd<8>;\n"
                        "ld.param.u64 %rd1, [a];\nld.param.u64 %rd2, [b];\nLOOP:\n"
                        "ld.global.f32 %f1, [%rd1];\nld.global.f32 %f2, [%rd2];\nfma.rn.f32 %f5, %f1, %f2, %f5;\n"
                        "add.s64 %rd3, %rd1, 512;\nld.global.f32 %f3, [%rd3];\nld.global.f32 %f4, [%rd2+4];\n"
                        "fma.rn.f32 %f5, %f3, %f4, %f5;\n@%p1 bra LOOP;\nret;",
                        ".param .u64 a, .param .u64 b"));
  ASSERT_TRUE(r->m) << r->diag.message;
  uint32_t moved = 0;
  auto out = order(r->m.get(), hoist(r->m.get(), &moved));
  ASSERT_EQ(out.size(), 11u);
  EXPECT_EQ(out[2], "ld.global.f32 %f1, [%rd1];");
  EXPECT_EQ(out[3], "ld.global.f32 %f2, [%rd2];");
  EXPECT_EQ(out[4], "add.s64 %rd3, %rd1, 512;");
  EXPECT_EQ(out[5], "ld.global.f32 %f3, [%rd3];");
  EXPECT_EQ(out[6], "ld.global.f32 %f4, [%rd2+4];");
  EXPECT_EQ(out[7], "fma.rn.f32 %f5, %f1, %f2, %f5;");
  EXPECT_EQ(out[8], "fma.rn.f32 %f5, %f3, %f4, %f5;");
  EXPECT_EQ(out[9].rfind("@%p1 bra", 0), 0u) << out[9];
  EXPECT_EQ(out[10], "ret;");
  EXPECT_EQ(moved, 4u); // places 4..7 changed hands; the second fma stays at 8
}

TEST(PtxSched, LoadsNeverPassStoresClockReadsOrTheirOwnDependencies) {
  // The load that overwrites %f2 stays after the add that reads %f2 (write-after-read); the store
  // keeps its index and the load after it moves up only as far as the store; the %clock read
  // keeps its index and the load after it passes only the add behind the clock read.
  auto r = parse(kernel(".reg .f32 %f<8>;\n.reg .b64 %rd<8>;\n.reg .b32 %r<4>;\n"
                        "ld.param.u64 %rd1, [a];\n"
                        "add.f32 %f3, %f2, %f2;\nld.global.f32 %f2, [%rd1];\n"
                        "st.global.f32 [%rd1+8], %f3;\nadd.f32 %f4, %f3, %f3;\nld.global.f32 %f5, [%rd1+8];\n"
                        "mov.u32 %r1, %clock;\nadd.f32 %f6, %f4, %f4;\nld.global.f32 %f7, [%rd1+16];\nret;",
                        ".param .u64 a"));
  ASSERT_TRUE(r->m) << r->diag.message;
  uint32_t moved = 0;
  auto hoisted = hoist(r->m.get(), &moved);
  auto out = order(r->m.get(), hoisted);
  std::vector<std::string> want = {"ld.param.u64 %rd1, [a];",       "add.f32 %f3, %f2, %f2;",
                                   "ld.global.f32 %f2, [%rd1];",    "st.global.f32 [%rd1+8], %f3;",
                                   "ld.global.f32 %f5, [%rd1+8];", "add.f32 %f4, %f3, %f3;",
                                   "mov.u32 %r1, %clock;",          "ld.global.f32 %f7, [%rd1+16];",
                                   "add.f32 %f6, %f4, %f4;",        "ret;"};
  EXPECT_EQ(out, want);
  EXPECT_EQ(moved, 4u); // two pairs swapped
  for (uint32_t i = 0; i < r->m->n_insns; i++) EXPECT_EQ(hoisted[i].block, r->m->insns[i].block) << i;
}

TEST(PtxSched, LoadsStayBehindAsyncCopyWaitsAndClusterBarriers) {
  // cp.async.wait_all and barrier.cluster.wait carry no memory operand, yet the shared-memory
  // load after each reads what they wait for: both keep their index and the loads stay behind.
  auto r = parse(kernel(".reg .b32 %r<8>;\n.shared .align 4 .b8 buf[64];\n"
                        "mov.u32 %r1, buf;\nadd.s32 %r2, %r3, %r3;\ncp.async.wait_all;\n"
                        "ld.shared.u32 %r4, [%r1];\nadd.s32 %r5, %r2, %r2;\nbarrier.cluster.wait;\n"
                        "ld.shared.u32 %r6, [%r1+4];\nret;"));
  ASSERT_TRUE(r->m) << r->diag.message;
  uint32_t moved = 0;
  auto out = order(r->m.get(), hoist(r->m.get(), &moved));
  EXPECT_EQ(moved, 0u);
  EXPECT_EQ(out[2], "cp.async.wait_all;");
  EXPECT_EQ(out[3], "ld.shared.u32 %r4, [%r1];");
  EXPECT_EQ(out[5].rfind("barrier", 0), 0u) << out[5]; // barrier.cluster.wait
  EXPECT_EQ(out[6], "ld.shared.u32 %r6, [%r1+4];");
}
