// The load/store unit fed with real step records: a small PTX kernel runs through the functional
// engine's per-warp interface (func.h) and every memory instruction it executes is timed by the
// unit, as the CA core will do it. Checks the spaces, sizes and addresses the engine reports
// (param, global, local offsets, shared offsets, atomics) against the requests the unit makes.
#include <map>

#include "ldst_harness.h"

extern "C" {
#include "devmem.h"
#include "func.h"
#include "ptx.h"
}

using namespace ldst_test;

namespace {

const char *kPtx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 data)
{
  .local .align 4 .b8 loc[64];
  .shared .align 4 .b32 sh[128];
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [data];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.u32 %r2, [%rd3+256];
  st.local.u32 [loc+8], %r2;
  ld.local.u32 %r3, [loc+8];
  shl.b32 %r4, %r1, 3;
  mov.u32 %r6, sh;
  add.u32 %r7, %r6, %r4;
  and.b32 %r7, %r7, 511;
  st.shared.u32 [%r7], %r3;
  atom.global.add.u32 %r5, [%rd1], 1;
  st.global.u32 [%rd3+256], %r5;
  ret;
})";

}  // namespace

// Two warps of one CTA run the kernel; each memory instruction waits in its warp until the unit
// completes it (one memory instruction in flight per warp, as a scoreboard would keep it here).
TEST(SimtLdstFunc, KernelStepRecordsBecomeTheExpectedRequests) {
  simtvp_diag d{};
  devmem *mem = devmem_create();
  func_engine *e = func_create(nullptr, nullptr, mem, nullptr, &d);
  ASSERT_NE(e, nullptr) << d.message;
  ptx_module *m = ptx_parse(kPtx, std::strlen(kPtx), "ldst.ptx", nullptr, &d);
  ASSERT_NE(m, nullptr) << d.message;
  const uint64_t data = 0x100000000ull;
  ASSERT_EQ(devmem_map(mem, data, 4096, &d), SIMTVP_OK);
  ASSERT_EQ(devmem_map(mem, 0x200000000ull, 4096, &d), SIMTVP_OK);
  func_placement pl = {0x200000000ull, 0x200000800ull, nullptr, 0};
  func_program *p = nullptr;
  ASSERT_EQ(func_program_load(e, m, &pl, &p, &d), SIMTVP_OK) << d.message;
  uint32_t k = func_program_kernel(p, "k");
  uint64_t params = data;
  func_launch_params lp = {k, {1, 1, 1}, {64, 1, 1}, 0, &params, 8, 1, {0, 0, 0}, 1};
  func_launch *l = nullptr;
  ASSERT_EQ(func_launch_create(e, p, &lp, &l, &d), SIMTVP_OK) << d.message;
  func_cta *cta = nullptr;
  uint32_t ctaid[3] = {0, 0, 0};
  ASSERT_EQ(func_cta_start(l, ctaid, 3, 4, &cta, &d), SIMTVP_OK) << d.message;  // warp slots 4, 5

  Harness h;
  h.auto_latency = 5;
  h.create();
  simt_ldst_set_param_base(h.u, 4, 0x300000000ull);
  simt_ldst_set_param_base(h.u, 5, 0x300000000ull);

  struct WarpState {
    func_warp *w;
    bool waiting = false;   // a memory instruction is in the unit
    bool queued = false;    // executed, waiting for the unit to accept it
    func_step step{};
    uint64_t tag = 0;
  } ws[2];
  for (uint32_t i = 0; i < 2; i++) ws[i].w = func_cta_warp(cta, i);
  std::map<uint64_t, func_step> issued;
  std::map<uint64_t, uint32_t> tag_warp;
  uint64_t next_tag = 1;
  size_t seen_done = 0;
  for (int cycle = 0; cycle < 2000; cycle++) {
    h.tick();
    for (; seen_done < h.done.size(); seen_done++)
      for (auto &s : ws)
        if (s.waiting && s.tag == h.done[seen_done].tag) s.waiting = false;
    for (uint32_t i = 0; i < 2; i++) {
      WarpState &s = ws[i];
      if (s.queued) {
        if (!simt_ldst_can_issue(h.u, h.now)) continue;
        simt_ldst_issue(h.u, 4 + i, &s.step, s.tag, h.now);
        s.queued = false;
        s.waiting = true;
        continue;
      }
      if (s.waiting || func_warp_get_state(s.w) != FUNC_WARP_READY) continue;
      ASSERT_EQ(func_warp_step(s.w, &s.step, &d), SIMTVP_OK) << d.message;
      if (s.step.kind == FUNC_STEP_MEM) {
        s.tag = next_tag++;
        issued[s.tag] = s.step;
        tag_warp[s.tag] = 4 + i;
        s.queued = true;
      }
    }
    if (func_cta_done(cta) && !ws[0].queued && !ws[1].queued && simt_ldst_idle(h.u) &&
        h.due.empty())
      break;
  }
  ASSERT_TRUE(func_cta_done(cta));
  ASSERT_TRUE(simt_ldst_idle(h.u));
  EXPECT_EQ(simt_ldst_status(h.u, nullptr), SIMTVP_OK) << h.status();
  // 7 memory instructions per warp (param, global ld, local st, local ld, shared st, atom, st)
  EXPECT_EQ(issued.size(), 14u);
  for (auto &it : issued) EXPECT_EQ(h.completions(it.first), 1u) << "tag " << it.first;

  std::map<uint8_t, int> kinds;
  for (auto &s : h.sent) kinds[s.kind]++;
  EXPECT_EQ(kinds[MEM_ACC_CONST_R], 2);   // ld.param, uniform: one line per warp
  EXPECT_EQ(kinds[MEM_ACC_GLOBAL_R], 2);  // unit stride: one line per warp
  EXPECT_EQ(kinds[MEM_ACC_LOCAL_W], 2);   // same local word in every thread: one line per warp
  EXPECT_EQ(kinds[MEM_ACC_LOCAL_R], 2);
  EXPECT_EQ(kinds[MEM_ACC_ATOMIC], 2);    // one word: one line per warp
  EXPECT_EQ(kinds[MEM_ACC_GLOBAL_W], 2);
  EXPECT_EQ(h.sent.size(), 12u);
  EXPECT_EQ(h.stat("gpgpu_n_shmem_bkconflict"), 2u);  // stride 2 words: degree 2 in each warp

  // the param read is at the warp's parameter base + the parameter's offset (0)
  for (auto &s : h.sent) {
    if (s.kind == MEM_ACC_CONST_R) {
      EXPECT_EQ(s.addr, 0x300000000ull);
    }
  }
  // local: word (offset / 4) of thread slot (warp * 32 + lane) at base + (w * 1536 + t) * 4
  for (auto &it : issued) {
    const func_step &st = it.second;
    if (st.space != PTX_SPACE_LOCAL) continue;
    uint64_t line = h.cfg.local_base + ((st.addr[0] / 4) * 1536 + tag_warp[it.first] * 32) * 4;
    bool found = false;
    for (auto &s : h.sent) found |= (s.addr == line && (s.kind == MEM_ACC_LOCAL_R || s.kind == MEM_ACC_LOCAL_W));
    EXPECT_TRUE(found) << "local offset " << st.addr[0];
  }

  func_cta_finish(cta);
  func_launch_destroy(l);
  func_program_destroy(p);
  ptx_module_destroy(m);
  func_destroy(e);
  devmem_destroy(mem);
}
