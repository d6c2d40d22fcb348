// The runner API's bookkeeping (func_runner.h) and the simtvp-func CLI built on it: statistics
// reach the stats sink per state space, buffers are guarded, the CLI runs its demo, runs a PTX file
// with buffers and arguments, and rejects bad usage with exit status 2.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>

#include "func_test_util.h"

using namespace functest;

namespace {

TEST(FuncRunner, CountersReachTheStatsSinkPerStateSpace) {
  Gpu g;
  std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
  .shared .align 4 .b32 s[64];
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3];
  st.shared.u32 [s], %r2;
  atom.global.add.u32 %r3, [%rd1], 1;
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  uint64_t buf = g.alloc(256);
  ASSERT_EQ(g.launch("k", 3, 64, {buf}), SIMTVP_OK) << g.diag.message;
  stats *st = func_runner_stats(g.r);
  int found = 0;
  EXPECT_EQ(stats_get(st, "func.warp_insn", &found), 3u * 2 * 8);
  EXPECT_TRUE(found);
  EXPECT_EQ(stats_get(st, "func.thread_insn", &found), 3u * 64 * 8);
  EXPECT_EQ(stats_get(st, "func.load.global", &found), 6u);
  EXPECT_EQ(stats_get(st, "func.store.shared", &found), 6u);
  EXPECT_EQ(stats_get(st, "func.atomic.global", &found), 6u);
  EXPECT_EQ(stats_get(st, "func.load.param", &found), 6u);
  EXPECT_EQ(stats_get(st, "func.cta", &found), 3u);
  EXPECT_EQ(stats_get(st, "gpu_sim_insn", &found), 3u * 64 * 8);
  func_launch_counts c;
  func_runner_last_counts(g.r, &c);
  EXPECT_EQ(c.warp_insns, 48u);  // 8 instructions, 2 warps, 3 CTAs
  EXPECT_EQ(c.ctas_done, 3u);
}

TEST(FuncRunner, FreedBuffersFaultAndUnknownFreesAreRejected) {
  Gpu g;
  uint64_t a = g.alloc(100);
  uint32_t v = 7;
  EXPECT_EQ(func_runner_write(g.r, a, &v, 4, &g.diag), SIMTVP_OK);
  EXPECT_EQ(func_runner_free(g.r, a, &g.diag), SIMTVP_OK);
  EXPECT_EQ(func_runner_write(g.r, a, &v, 4, &g.diag), SIMTVP_ERR_FAULT);
  EXPECT_EQ(func_runner_free(g.r, a, &g.diag), SIMTVP_ERR_ARG);
  EXPECT_EQ(func_runner_free(g.r, 0, &g.diag), SIMTVP_OK);
}

std::string cli() { return std::string(SIMTVP_BINARY_DIR) + "/bin/simtvp-func"; }

int run(const std::string &cmd, std::string *out) {
  FILE *p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out->append(buf, n);
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

TEST(FuncCli, DemoPassesAndPrintsStatistics) {
  std::string out;
  ASSERT_EQ(run(cli(), &out), 0) << out;
  EXPECT_NE(out.find("PASS vector_add"), std::string::npos) << out;
  EXPECT_NE(out.find("PASS sgemm_tiled"), std::string::npos) << out;
  EXPECT_NE(out.find("gpu_sim_insn = "), std::string::npos) << out;
  EXPECT_NE(out.find("func.load.shared = "), std::string::npos) << out;
}

TEST(FuncCli, RunsAPtxFileWithBuffersAndArguments) {
  std::string out;
  std::string demo = std::string(SIMTVP_SOURCE_DIR) + "/platform/simtvp-func/demo.ptx";
  ASSERT_EQ(run(cli() + " -q -k vector_add -g 1 -b 64 --buf a=256:iotaf --buf b=256:iotaf --buf c=256 -a a -a b -a c"
                        " -a s32:64 --dump c:f32:4 " + demo,
                &out),
            0)
      << out;
  EXPECT_NE(out.find("vector_add completed"), std::string::npos) << out;
  EXPECT_NE(out.find("[    0]            0            2            4            6"), std::string::npos) << out;
}

TEST(FuncCli, FaultsExitWithOneAndBadUsageWithTwo) {
  std::string out;
  std::string demo = std::string(SIMTVP_SOURCE_DIR) + "/platform/simtvp-func/demo.ptx";
  EXPECT_EQ(run(cli() + " -q -k vector_add -b 128 --buf a=64 -a a -a a -a a -a s32:128 " + demo, &out), 1) << out;
  EXPECT_NE(out.find("not mapped"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(run(cli() + " --bogus", &out), 2) << out;
  out.clear();
  EXPECT_EQ(run(cli() + " -k vector_add -a s32:1 " + demo, &out), 2) << out;
  EXPECT_NE(out.find("has 4 parameters, 1 given"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(run(cli() + " --help", &out), 0);
  EXPECT_NE(out.find("usage: simtvp-func"), std::string::npos);
}

}  // namespace
