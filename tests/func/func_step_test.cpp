// The per-warp interface of the functional engine that timing models drive (func.h): place CTAs,
// peek at a warp's next instruction, execute one warp instruction and read its record (memory
// space, per-lane addresses and sizes, divergence, barriers, exit), release barriers — and the
// results equal those of functional mode whatever the interleaving of warps and CTAs.
#include <cstring>
#include <memory>

#include "func_tex.h"
#include "func_test_util.h"
#include "ptx.h"

using namespace functest;

namespace {

const char *kStepPtx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 data)
{
  .shared .align 4 .b32 sh[64];
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [data];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3];
  shl.b32 %r3, %r1, 2;
  mov.u32 %r6, sh;
  add.u32 %r7, %r6, %r3;
  st.shared.u32 [%r7], %r2;
  bar.sync 0;
  setp.lt.u32 %p1, %r1, 8;
  @%p1 bra $small;
  add.u32 %r2, %r2, 1;
$small:
  xor.b32 %r4, %r3, 4;
  add.u32 %r7, %r6, %r4;
  ld.shared.u32 %r5, [%r7];
  st.global.u32 [%rd3], %r5;
  ret;
})";

TEST(FuncStep, PeekShowsTheNextInstructionWithoutExecutingIt) {
  Engine en(kStepPtx);
  uint64_t data = en.alloc(256);
  func_launch *l = en.launch("k", 1, 64, {data});
  func_cta *cta;
  uint32_t ctaid[3] = {0, 0, 0};
  ASSERT_EQ(func_cta_start(l, ctaid, 3, 8, &cta, &en.d), SIMTVP_OK);
  ASSERT_EQ(func_cta_warp_count(cta), 2u);
  func_warp *w = func_cta_warp(cta, 1);
  func_peek a, b;
  ASSERT_TRUE(func_warp_peek(w, &a));
  ASSERT_TRUE(func_warp_peek(w, &b));
  EXPECT_EQ(a.pc, b.pc);
  EXPECT_EQ(a.insn->opcode, PTX_OP_LD);
  EXPECT_EQ(a.kind, FUNC_STEP_MEM);
  EXPECT_EQ(a.active, 0xffffffffu);
  EXPECT_EQ(a.fetch_addr, 0x7000000u + a.pc * FUNC_INSN_BYTES);
  func_step r;
  ASSERT_EQ(func_warp_step(w, &r, &en.d), SIMTVP_OK);
  EXPECT_EQ(r.pc, a.pc);
  ASSERT_TRUE(func_warp_peek(w, &b));
  EXPECT_EQ(b.pc, a.pc + 1);
  func_cta_finish(cta);
  func_launch_destroy(l);
}

// Steps a warp until the next memory instruction and returns its record.
func_step step_to_mem(func_warp *w, simtvp_diag *d) {
  func_step r{};
  for (int i = 0; i < 100; i++) {
    EXPECT_EQ(func_warp_step(w, &r, d), SIMTVP_OK) << d->message;
    if (r.kind == FUNC_STEP_MEM && r.insn->space != PTX_SPACE_PARAM) return r;
  }
  ADD_FAILURE() << "no memory instruction";
  return r;
}

TEST(FuncStep, MemoryRecordsCarrySpacePerLaneAddressesAndSize) {
  Engine en(kStepPtx);
  uint64_t data = en.alloc(256);
  func_launch *l = en.launch("k", 1, 40, {data});
  func_cta *cta;
  uint32_t ctaid[3] = {0, 0, 0};
  ASSERT_EQ(func_cta_start(l, ctaid, 0, 0, &cta, &en.d), SIMTVP_OK);
  func_warp *w = func_cta_warp(cta, 1);  // threads 32..39
  func_step r = step_to_mem(w, &en.d);
  EXPECT_TRUE(r.is_load);
  EXPECT_FALSE(r.is_store);
  EXPECT_EQ(r.space, PTX_SPACE_GLOBAL);
  EXPECT_EQ(r.access_bytes, 4u);
  EXPECT_EQ(r.mem_mask, 0xffu);
  for (uint32_t i = 0; i < 8; i++) EXPECT_EQ(r.addr[i], data + 4 * (32 + i));
  r = step_to_mem(w, &en.d);
  EXPECT_TRUE(r.is_store);
  EXPECT_EQ(r.space, PTX_SPACE_SHARED);
  for (uint32_t i = 0; i < 8; i++) EXPECT_EQ(r.addr[i], 4 * (32 + i)) << "shared offsets";
  func_cta_finish(cta);
  func_launch_destroy(l);
}

// ld.param of each size: every lane's address in the record is the parameter's offset in the
// kernel parameter buffer (4- and 8-byte values have handlers of their own), in full and lean
// records alike, and the loaded values are the parameters.
TEST(FuncStep, ParamLoadRecordsGiveEveryLaneTheParameterOffset) {
  Engine en(R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u32 n, .param .u64 out, .param .s16 h)
{
  .reg .b16 %h<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<6>;
  ld.param.u32 %r1, [n];
  ld.param.u64 %rd1, [out];
  ld.param.s16 %h1, [h];
  cvt.s32.s16 %r2, %h1;
  mov.u32 %r3, %tid.x;
  mul.wide.u32 %rd2, %r3, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r1, %r2};
  ret;
})");
  uint64_t out = en.alloc(64 * 8);
  func_launch *l = en.launch("k", 1, 40, {0x89abcdefu, out, 0xfffeu});
  func_cta *cta;
  uint32_t ctaid[3] = {0, 0, 0};
  ASSERT_EQ(func_cta_start(l, ctaid, 0, 0, &cta, &en.d), SIMTVP_OK);
  const uint64_t offset[3] = {0, 8, 16};
  const uint16_t bytes[3] = {4, 8, 2};
  for (uint32_t wi = 0; wi < 2; wi++) {
    func_warp *w = func_cta_warp(cta, wi);
    uint32_t lanes = wi == 0 ? 0xffffffffu : 0xffu;
    for (uint32_t k = 0; k < 3; k++) {
      func_step r;
      std::memset(&r, 0x5a, sizeof r);
      if (wi == 0) ASSERT_EQ(func_warp_step(w, &r, &en.d), SIMTVP_OK) << en.d.message;
      else ASSERT_EQ(func_warp_step_lean(w, &r, &en.d), SIMTVP_OK) << en.d.message;
      EXPECT_EQ(r.kind, FUNC_STEP_MEM);
      EXPECT_TRUE(r.is_load);
      EXPECT_EQ(r.space, PTX_SPACE_PARAM);
      EXPECT_EQ(r.access_bytes, bytes[k]);
      EXPECT_EQ(r.mem_mask, lanes);
      for (uint32_t i = 0; i < 32; i++) {
        if (!(lanes >> i & 1u)) continue;
        EXPECT_EQ(r.addr[i], offset[k]) << "param " << k << ", warp " << wi << ", lane " << i;
      }
    }
    while (func_warp_get_state(w) == FUNC_WARP_READY) ASSERT_EQ(func_warp_step(w, nullptr, &en.d), SIMTVP_OK);
  }
  func_cta_finish(cta);
  func_launch_destroy(l);
  auto v = en.read32(out, 40 * 2);
  for (uint32_t t = 0; t < 40; t++) {
    EXPECT_EQ(v[2 * t], 0x89abcdefu) << "thread " << t;
    EXPECT_EQ(v[2 * t + 1], 0xfffffffeu) << "sign-extended .s16, thread " << t;
  }
}

// A full warp takes the engine's whole-warp fast paths (a contiguous global load, a shared store
// whose half-warps are contiguous) and, for lane i reading word i ^ 1, the per-lane gather: every
// record carries each lane's own address, as the general path's does.
TEST(FuncStep, FullWarpRecordsCarryEveryLanesAddressOnEachPath) {
  Engine en(kStepPtx);
  uint64_t data = en.alloc(256);
  func_launch *l = en.launch("k", 1, 40, {data});
  func_cta *cta;
  uint32_t ctaid[3] = {0, 0, 0};
  ASSERT_EQ(func_cta_start(l, ctaid, 0, 0, &cta, &en.d), SIMTVP_OK);
  func_warp *w = func_cta_warp(cta, 0);  // threads 0..31
  func_step r = step_to_mem(w, &en.d);
  EXPECT_TRUE(r.is_load);
  EXPECT_EQ(r.space, PTX_SPACE_GLOBAL);
  EXPECT_EQ(r.mem_mask, 0xffffffffu);
  for (uint32_t i = 0; i < 32; i++) EXPECT_EQ(r.addr[i], data + 4 * i) << "lane " << i;
  r = step_to_mem(w, &en.d);
  EXPECT_TRUE(r.is_store);
  EXPECT_EQ(r.space, PTX_SPACE_SHARED);
  EXPECT_EQ(r.access_bytes, 4u);
  EXPECT_EQ(r.mem_mask, 0xffffffffu);
  for (uint32_t i = 0; i < 32; i++) EXPECT_EQ(r.addr[i], 4u * i) << "shared store, lane " << i;
  // both warps to the barrier; the second arrival completes it
  for (uint32_t wi = 0; wi < 2; wi++) {
    func_warp *x = func_cta_warp(cta, wi);
    while (func_warp_get_state(x) == FUNC_WARP_READY) {
      func_step s;
      ASSERT_EQ(func_warp_step(x, &s, &en.d), SIMTVP_OK) << en.d.message;
      if (s.barrier_complete) func_cta_release_barrier(cta, s.barrier_id);
    }
  }
  ASSERT_EQ(func_warp_get_state(w), FUNC_WARP_READY);
  r = step_to_mem(w, &en.d);
  EXPECT_TRUE(r.is_load);
  EXPECT_EQ(r.space, PTX_SPACE_SHARED);
  for (uint32_t i = 0; i < 32; i++) EXPECT_EQ(r.addr[i], 4u * (i ^ 1u)) << "shared gather, lane " << i;
  func_cta_finish(cta);
  func_launch_destroy(l);
}

TEST(FuncStep, BarriersWaitForEveryWarpAndReleaseOnRequest) {
  Engine en(kStepPtx);
  uint64_t data = en.alloc(256);
  func_launch *l = en.launch("k", 1, 64, {data});
  func_cta *cta;
  uint32_t ctaid[3] = {0, 0, 0};
  ASSERT_EQ(func_cta_start(l, ctaid, 0, 0, &cta, &en.d), SIMTVP_OK);
  func_warp *w0 = func_cta_warp(cta, 0), *w1 = func_cta_warp(cta, 1);
  func_step r{};
  do ASSERT_EQ(func_warp_step(w0, &r, &en.d), SIMTVP_OK);
  while (r.kind != FUNC_STEP_BARRIER);
  EXPECT_TRUE(r.barrier_wait);
  EXPECT_FALSE(r.barrier_complete);
  EXPECT_EQ(func_warp_get_state(w0), FUNC_WARP_BARRIER);
  func_peek pk;
  EXPECT_FALSE(func_warp_peek(w0, &pk));
  EXPECT_EQ(func_cta_release_barrier(cta, 0), 0u) << "not complete yet";
  do ASSERT_EQ(func_warp_step(w1, &r, &en.d), SIMTVP_OK);
  while (r.kind != FUNC_STEP_BARRIER);
  EXPECT_TRUE(r.barrier_complete);
  EXPECT_EQ(r.barrier_id, 0u);
  EXPECT_EQ(func_warp_get_state(w1), FUNC_WARP_BARRIER) << "waits until the timing model releases it";
  EXPECT_EQ(func_cta_release_barrier(cta, 0), 2u);
  EXPECT_EQ(func_warp_get_state(w0), FUNC_WARP_READY);
  EXPECT_EQ(func_warp_get_state(w1), FUNC_WARP_READY);
  func_cta_finish(cta);
  func_launch_destroy(l);
}

TEST(FuncStep, DivergentBranchesAndExitAreReported) {
  Engine en(kStepPtx);
  uint64_t data = en.alloc(256);
  func_launch *l = en.launch("k", 1, 32, {data});
  func_cta *cta;
  uint32_t ctaid[3] = {0, 0, 0};
  ASSERT_EQ(func_cta_start(l, ctaid, 0, 0, &cta, &en.d), SIMTVP_OK);
  func_warp *w = func_cta_warp(cta, 0);
  func_step r{};
  bool saw_branch = false, saw_done = false;
  for (int i = 0; i < 100 && !saw_done; i++) {
    if (func_warp_get_state(w) == FUNC_WARP_BARRIER) func_cta_release_barrier(cta, 0);
    ASSERT_EQ(func_warp_step(w, &r, &en.d), SIMTVP_OK);
    if (r.kind == FUNC_STEP_BRANCH) {
      saw_branch = true;
      EXPECT_TRUE(r.diverged);
      EXPECT_EQ(r.exec, 0xffu);
      EXPECT_EQ(r.next_active, 0xffffff00u) << "the not-taken lanes run first";
    }
    saw_done = r.warp_done;
  }
  EXPECT_TRUE(saw_branch);
  EXPECT_TRUE(saw_done);
  EXPECT_EQ(r.kind, FUNC_STEP_EXIT);
  EXPECT_EQ(func_warp_get_state(w), FUNC_WARP_DONE);
  EXPECT_TRUE(func_cta_done(cta));
  EXPECT_NE(func_warp_step(w, &r, &en.d), SIMTVP_OK) << "a done warp cannot step";
  func_cta_finish(cta);
  func_launch_destroy(l);
}

TEST(FuncStep, GenericAccessesReportTheSpaceOfEachLane) {
  std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 data)
{
  .shared .align 8 .b64 sh[32];
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [data];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 8;
  mov.u64 %rd3, sh;
  cvta.shared.u64 %rd4, %rd3;
  add.s64 %rd5, %rd4, %rd2;
  add.s64 %rd6, %rd1, %rd2;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  selp.b64 %rd7, %rd5, %rd6, %p1;
  st.u64 [%rd7], %rd2;
  ret;
})";
  Engine en(ptx);
  uint64_t data = en.alloc(256);
  func_launch *l = en.launch("k", 1, 32, {data});
  func_cta *cta;
  uint32_t ctaid[3] = {0, 0, 0};
  ASSERT_EQ(func_cta_start(l, ctaid, 0, 0, &cta, &en.d), SIMTVP_OK);
  func_step r = step_to_mem(func_cta_warp(cta, 0), &en.d);
  EXPECT_EQ(r.space, PTX_SPACE_GENERIC);
  EXPECT_EQ(r.access_bytes, 8u);
  for (uint32_t i = 0; i < 32; i++) {
    EXPECT_EQ(r.lane_space[i], i % 2 == 0 ? PTX_SPACE_SHARED : PTX_SPACE_GLOBAL);
    EXPECT_EQ(r.addr[i], i % 2 == 0 ? 8u * i : data + 8 * i);
  }
  func_cta_finish(cta);
  func_launch_destroy(l);
}

// SGEMM from tests/kernels in per-warp mode: CTAs two at a time on different SMs, their warps
// stepped in a scrambled order, barriers released one step after completing — the same result as
// functional mode, bit for bit.
TEST(FuncStep, PerWarpExecutionGivesTheResultsOfFunctionalMode) {
  Engine en(read_file(kernels_dir() + "sgemm.ptx"));
  const int m = 40, n = 36, k = 48;
  std::vector<float> A(m * k), B(k * n), C(m * n);
  for (int i = 0; i < m * k; i++) A[i] = (float)(i % 7) - 3;
  for (int i = 0; i < k * n; i++) B[i] = (float)(i % 5) - 2;
  for (int i = 0; i < m * n; i++) C[i] = (float)(i % 3);
  uint64_t dA = en.alloc(A.size() * 4), dB = en.alloc(B.size() * 4), dC1 = en.alloc(C.size() * 4),
           dC2 = en.alloc(C.size() * 4);
  devmem_write(en.mem, dA, A.data(), A.size() * 4, nullptr);
  devmem_write(en.mem, dB, B.data(), B.size() * 4, nullptr);
  devmem_write(en.mem, dC1, C.data(), C.size() * 4, nullptr);
  devmem_write(en.mem, dC2, C.data(), C.size() * 4, nullptr);
  float alpha = 2.0f, beta = 0.5f;
  uint32_t ab, bb;
  std::memcpy(&ab, &alpha, 4);
  std::memcpy(&bb, &beta, 4);
  const char *kern = "_Z11sgemm_tilediiifPKfS0_fPf";
  uint32_t gx = (n + 15) / 16, gy = (m + 15) / 16;
  func_launch *l1 = en.launch(kern, gx, 16, {(uint64_t)m, (uint64_t)n, (uint64_t)k, ab, dA, dB, bb, dC1}, gy, 16);
  ASSERT_NE(l1, nullptr);
  ASSERT_EQ(func_launch_run(l1, &en.d), SIMTVP_OK) << en.d.message;
  func_launch_destroy(l1);

  func_launch *l2 = en.launch(kern, gx, 16, {(uint64_t)m, (uint64_t)n, (uint64_t)k, ab, dA, dB, bb, dC2}, gy, 16);
  std::vector<std::pair<uint32_t, uint32_t>> ctas;
  for (uint32_t y = 0; y < gy; y++)
    for (uint32_t x = 0; x < gx; x++) ctas.push_back({x, y});
  uint32_t rng = 12345;
  for (size_t c = 0; c < ctas.size(); c += 2) {
    func_cta *pair[2] = {nullptr, nullptr};
    for (int j = 0; j < 2 && c + j < ctas.size(); j++) {
      uint32_t id[3] = {ctas[c + j].first, ctas[c + j].second, 0};
      ASSERT_EQ(func_cta_start(l2, id, (uint32_t)j, 0, &pair[j], &en.d), SIMTVP_OK);
    }
    std::vector<uint32_t> pending[2];
    for (int guard = 0; guard < 1000000; guard++) {
      bool all_done = true;
      for (int j = 0; j < 2; j++) {
        if (!pair[j]) continue;
        for (uint32_t b : pending[j]) func_cta_release_barrier(pair[j], b);
        pending[j].clear();
        if (!func_cta_done(pair[j])) all_done = false;
      }
      if (all_done) break;
      rng = rng * 1103515245u + 12345u;
      int j = (rng >> 16) & 1;
      if (!pair[j] || func_cta_done(pair[j])) j ^= 1;
      func_warp *w = func_cta_warp(pair[j], (rng >> 8) % func_cta_warp_count(pair[j]));
      if (func_warp_get_state(w) != FUNC_WARP_READY) continue;
      func_step r;
      ASSERT_EQ(func_warp_step(w, &r, &en.d), SIMTVP_OK) << en.d.message;
      if (r.barrier_complete) pending[j].push_back(r.barrier_id);
    }
    for (auto *p : pair) {
      if (p) {
        EXPECT_TRUE(func_cta_done(p));
      }
      func_cta_finish(p);
    }
  }
  func_launch_counts cnt;
  func_launch_get_counts(l2, &cnt);
  EXPECT_EQ(cnt.ctas_done, (uint64_t)gx * gy);
  func_launch_destroy(l2);
  std::vector<float> r1(C.size()), r2(C.size());
  devmem_read(en.mem, dC1, r1.data(), r1.size() * 4, nullptr);
  devmem_read(en.mem, dC2, r2.data(), r2.size() * 4, nullptr);
  EXPECT_EQ(r1, r2);
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      float acc = 0;
      for (int p = 0; p < k; p++) acc += A[i * k + p] * B[p * n + j];
      ASSERT_EQ(r1[i * n + j], alpha * acc + beta * C[i * n + j]);
    }
}


// Timing models time a texture access by the texels it reads: each lane's record carries the
// address of its own first texel and the texel size, not the texture's base.
TEST(FuncStep, TextureRecordsCarryEachLanesTexelAddress) {
  Engine en(R"(.version 9.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 t) {
  .reg .b32 %r<4>;
  .reg .f32 %f<6>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [t];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 1;
  tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r2}];
  ret;
})");
  uint64_t data = en.alloc(64 * 4), dd = en.alloc(sizeof(func_tex_desc));
  func_tex_desc t{};
  t.magic = FUNC_TEX_MAGIC;
  t.resource = FUNC_TEX_RES_LINEAR;
  t.dims = 1;
  t.channels = 1;
  t.channel_type = PTX_TYPE_F32;
  t.width = 64, t.height = 1, t.depth = 1, t.layers = 1;
  t.data = data;
  t.pitch = 64 * 4;
  ASSERT_EQ(devmem_write(en.mem, dd, &t, sizeof t, &en.d), SIMTVP_OK);
  func_launch *l = en.launch("k", 1, 32, {dd});
  func_cta *cta;
  uint32_t ctaid[3] = {0, 0, 0};
  ASSERT_EQ(func_cta_start(l, ctaid, 0, 0, &cta, &en.d), SIMTVP_OK);
  func_step r = step_to_mem(func_cta_warp(cta, 0), &en.d);
  EXPECT_EQ(r.space, PTX_SPACE_TEX);
  EXPECT_EQ(r.access_bytes, 4u);
  EXPECT_EQ(r.mem_mask, 0xffffffffu);
  for (uint32_t lane = 0; lane < 32; lane++)
    EXPECT_EQ(r.addr[lane], data + 4u * 2u * lane) << "lane " << lane;  // texel 2*lane
  func_cta_finish(cta);
  func_launch_destroy(l);
}

}  // namespace
