// Thread block clusters in the functional engine (sm_90): %cluster_* special registers, the
// kernel's .reqnctapercluster, barrier.cluster phases, distributed shared memory through mapa
// (shared::cluster and generic addresses) and getctarank, mbarrier arrivals on another CTA's
// object, launch checks and faults. Functional mode runs a cluster's CTAs together.
#include <cstring>

#include "func_test_util.h"

using namespace functest;

namespace {

const char *kHeader = ".version 8.0\n.target sm_90\n.address_size 64\n";

simtvp_status launch_cluster(Gpu &g, const char *k, std::vector<uint32_t> grid, uint32_t threads,
                             std::vector<uint32_t> cluster, std::vector<uint64_t> params) {
  std::vector<const void *> args;
  for (auto &p : params) args.push_back(&p);
  uint32_t gr[3] = {grid[0], grid[1], grid[2]}, bl[3] = {threads, 1, 1}, cl[3] = {cluster[0], cluster[1], cluster[2]};
  simtvp_diag_clear(&g.diag);
  return func_runner_launch_cluster(g.r, k, gr, bl, cl, 0, args.data(), &g.diag);
}

// Every thread stores 12 special registers at out + 48 * (global thread index).
const std::string kSregs = std::string(kHeader) + R"(
.visible .entry sregs(.param .u64 out)
{
  .reg .b32 %r<24>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ctaid.y;
  mov.u32 %r3, %nctaid.x;
  mad.lo.u32 %r4, %r2, %r3, %r1;
  mov.u32 %r5, %ntid.x;
  mov.u32 %r6, %tid.x;
  mad.lo.u32 %r7, %r4, %r5, %r6;
  mul.wide.u32 %rd2, %r7, 48;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r8, %clusterid.x;
  mov.u32 %r9, %clusterid.y;
  mov.u32 %r10, %nclusterid.x;
  mov.u32 %r11, %nclusterid.y;
  mov.u32 %r12, %cluster_ctaid.x;
  mov.u32 %r13, %cluster_ctaid.y;
  mov.u32 %r14, %cluster_nctaid.x;
  mov.u32 %r15, %cluster_nctaid.y;
  mov.u32 %r16, %cluster_ctarank;
  mov.u32 %r17, %cluster_nctarank;
  mov.pred %p1, %is_explicit_cluster;
  selp.u32 %r18, 1, 0, %p1;
  st.global.v4.u32 [%rd3], {%r8, %r9, %r10, %r11};
  st.global.v4.u32 [%rd3+16], {%r12, %r13, %r14, %r15};
  st.global.v4.u32 [%rd3+32], {%r16, %r17, %r18, %r4};
  ret;
}
)";

}  // namespace

// Grid 4 x 2 of clusters of 2 x 2 CTAs: cluster (x / 2, y / 2) of 2 x 1 clusters; rank = x % 2 +
// 2 (y % 2). Without cluster dimensions every CTA is a cluster of one and not explicit.
TEST(FuncCluster, SpecialRegistersDescribeTheCluster) {
  Gpu g;
  std::string ptx = kSregs;
  // mov.pred from %is_explicit_cluster: declare the predicate
  ptx.replace(ptx.find(".reg .b32 %r<24>;"), 17, ".reg .b32 %r<24>;\n  .reg .pred %p<2>;");
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(8 * 32 * 48);
  ASSERT_EQ(launch_cluster(g, "sregs", {4, 2, 1}, 32, {2, 2, 1}, {out}), SIMTVP_OK) << g.diag.message;
  auto v = g.download<uint32_t>(out, 8 * 32 * 12);
  for (uint32_t cta = 0; cta < 8; cta++) {
    uint32_t x = cta % 4, y = cta / 4;
    const uint32_t *e = &v[cta * 32 * 12 + 5 * 12];  // thread 5 of the CTA
    uint32_t want[12] = {x / 2, y / 2, 2, 1, x % 2, y % 2, 2, 2, x % 2 + 2 * (y % 2), 4, 1, cta};
    for (int i = 0; i < 12; i++) EXPECT_EQ(e[i], want[i]) << "CTA (" << x << "," << y << ") register " << i;
  }
  ASSERT_EQ(launch_cluster(g, "sregs", {4, 2, 1}, 32, {0, 0, 0}, {out}), SIMTVP_OK) << g.diag.message;
  v = g.download<uint32_t>(out, 8 * 32 * 12);
  const uint32_t *e = &v[(1 * 4 + 3) * 32 * 12];  // CTA (3, 1), thread 0
  uint32_t want[12] = {3, 1, 4, 2, 0, 0, 1, 1, 0, 1, 0, 7};
  for (int i = 0; i < 12; i++) EXPECT_EQ(e[i], want[i]) << "register " << i;
}

// Clusters of 4 CTAs (__cluster_dims__(4,1,1) as .reqnctapercluster) of 64 threads. Each CTA
// writes s[t] = 1000 rank + t, meets the others at barrier.cluster, then reads s[t] of rank
// (rank + 1) % 4 through mapa.shared::cluster and of rank (rank + 2) % 4 through a generic mapa'd
// address, and getctarank of both; a second barrier.cluster keeps every CTA's shared memory alive
// until all have read it. Run with one host thread and with three.
TEST(FuncCluster, DistributedSharedMemoryAndClusterBarriers) {
  std::string ptx = std::string(kHeader) + R"(
.visible .entry dsm(.param .u64 out)
.explicitcluster
.reqnctapercluster 4, 1, 1
{
  .reg .b32 %r<24>;
  .reg .b64 %rd<12>;
  .shared .align 4 .b32 s[64];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, s;
  shl.b32 %r5, %r1, 2;
  add.u32 %r6, %r4, %r5;
  mad.lo.u32 %r7, %r2, 1000, %r1;
  st.shared.u32 [%r6], %r7;
  barrier.cluster.arrive.release.aligned;
  barrier.cluster.wait.acquire.aligned;
  add.u32 %r8, %r2, 1;
  and.b32 %r8, %r8, 3;
  mapa.shared::cluster.u32 %r9, %r6, %r8;
  ld.shared::cluster.u32 %r10, [%r9];
  getctarank.shared::cluster.u32 %r11, %r9;
  add.u32 %r12, %r2, 2;
  and.b32 %r12, %r12, 3;
  cvta.shared.u64 %rd2, s;
  cvt.u64.u32 %rd3, %r5;
  add.s64 %rd4, %rd2, %rd3;
  mapa.u64 %rd5, %rd4, %r12;
  ld.u32 %r13, [%rd5];
  getctarank.u64 %r14, %rd5;
  getctarank.shared::cluster.u32 %r15, %r6;
  barrier.cluster.arrive;
  barrier.cluster.wait;
  mad.lo.u32 %r16, %r3, 64, %r1;
  mul.wide.u32 %rd6, %r16, 16;
  add.s64 %rd7, %rd1, %rd6;
  st.global.v4.u32 [%rd7], {%r10, %r11, %r13, %r14};
  st.global.u32 [%rd7+12], %r15;
  ret;
}
)";
  for (uint32_t threads : {1u, 3u}) {
    func_config fc{};
    fc.threads = threads;
    Gpu g(fc);
    ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
    uint64_t out = g.alloc(8 * 64 * 16);
    ASSERT_EQ(g.launch("dsm", 8, 64, {out}), SIMTVP_OK) << g.diag.message;
    auto v = g.download<uint32_t>(out, 8 * 64 * 4);
    for (uint32_t c = 0; c < 8; c++)
      for (uint32_t t = 0; t < 64; t++) {
        const uint32_t *e = &v[(c * 64 + t) * 4];
        uint32_t rank = c % 4, r1 = (rank + 1) % 4, r2 = (rank + 2) % 4;
        EXPECT_EQ(e[0], 1000 * r1 + t) << "CTA " << c << " thread " << t << " (" << threads << " host threads)";
        EXPECT_EQ(e[1], r1);
        EXPECT_EQ(e[2], 1000 * r2 + t);
        EXPECT_EQ(e[3], rank) << "getctarank of its own shared::cta address";
      }
  }
}

// Rank 0 of each cluster of 2 initialises an mbarrier for 2 arrivals; after a cluster barrier
// thread 0 of both CTAs arrives on rank 0's object through a mapa'd address (release.cluster),
// and rank 0 waits for the phase; a spinning warp lets the other CTA of the cluster run.
TEST(FuncCluster, MbarrierArrivalsReachAnotherCtasObject) {
  Gpu g;
  std::string ptx = std::string(kHeader) + R"(
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 8 .b64 mb;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %cluster_ctarank;
  mov.u32 %r3, mb;
  or.b32 %r4, %r1, %r2;
  setp.ne.u32 %p1, %r4, 0;
  @%p1 bra SYNC;
  mbarrier.init.shared::cta.b64 [%r3], 2;
  fence.mbarrier_init.release.cluster;
SYNC:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  setp.ne.u32 %p2, %r1, 0;
  @%p2 bra DONE;
  mov.u32 %r5, 0;
  mapa.shared::cluster.u32 %r6, %r3, %r5;
  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r6];
  setp.ne.u32 %p3, %r2, 0;
  @%p3 bra DONE;
WAIT:
  mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p3, [%r3], 0;
  @!%p3 bra WAIT;
  mov.u32 %r7, %ctaid.x;
  mul.wide.u32 %rd2, %r7, 4;
  add.s64 %rd3, %rd1, %rd2;
  mov.u32 %r8, 77;
  st.global.u32 [%rd3], %r8;
DONE:
  barrier.cluster.arrive;
  barrier.cluster.wait;
  ret;
}
)";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(6 * 4);
  ASSERT_EQ(launch_cluster(g, "k", {6, 1, 1}, 64, {2, 1, 1}, {out}), SIMTVP_OK) << g.diag.message;
  auto v = g.download<uint32_t>(out, 6);
  for (uint32_t c = 0; c < 6; c++) EXPECT_EQ(v[c], c % 2 == 0 ? 77u : 0u) << c;
}

// A cluster that does not divide the grid, one of more than 16 CTAs, and an .explicitcluster
// kernel launched without cluster dimensions are refused; mapa of a rank outside the cluster and
// barrier.cluster.wait without an arrive are faults.
TEST(FuncCluster, BadClustersAreRefusedAndMisuseFaults) {
  Gpu g;
  std::string ptx = kSregs;
  ptx.replace(ptx.find(".reg .b32 %r<24>;"), 17, ".reg .b32 %r<24>;\n  .reg .pred %p<2>;");
  ptx += R"(
.visible .entry needs(.param .u64 out)
.explicitcluster
{
  ret;
}
.visible .entry far(.param .u64 out)
{
  .reg .b32 %r<4>;
  mov.u32 %r1, 0;
  mov.u32 %r2, 2;
  mapa.shared::cluster.u32 %r3, %r1, %r2;
  ret;
}
.visible .entry nowait(.param .u64 out)
{
  barrier.cluster.wait;
  ret;
}
)";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(64 * 48);
  EXPECT_EQ(launch_cluster(g, "sregs", {3, 1, 1}, 32, {2, 1, 1}, {out}), SIMTVP_ERR_ARG);
  EXPECT_NE(std::string(g.diag.message).find("must divide the grid"), std::string::npos) << g.diag.message;
  EXPECT_EQ(launch_cluster(g, "sregs", {32, 1, 1}, 32, {32, 1, 1}, {out}), SIMTVP_ERR_ARG);
  EXPECT_NE(std::string(g.diag.message).find("at most 16"), std::string::npos) << g.diag.message;
  EXPECT_EQ(launch_cluster(g, "needs", {2, 1, 1}, 32, {0, 0, 0}, {out}), SIMTVP_ERR_ARG);
  EXPECT_NE(std::string(g.diag.message).find("needs cluster dimensions"), std::string::npos) << g.diag.message;
  EXPECT_EQ(launch_cluster(g, "needs", {2, 1, 1}, 32, {2, 1, 1}, {out}), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(launch_cluster(g, "far", {2, 1, 1}, 32, {2, 1, 1}, {out}), SIMTVP_ERR_FAULT);
  EXPECT_NE(std::string(g.diag.message).find("rank 2 is outside the cluster of 2"), std::string::npos) << g.diag.message;
  EXPECT_EQ(launch_cluster(g, "nowait", {1, 1, 1}, 32, {0, 0, 0}, {out}), SIMTVP_ERR_FAULT);
  EXPECT_NE(std::string(g.diag.message).find("without an earlier barrier.cluster.arrive"), std::string::npos)
      << g.diag.message;
}
