// Cheap CTA starts and straight runs of register-only instructions (func.h func_warp_run_plain,
// func_program_insn_plain; docs/func.md "Speed"):
// - a new CTA (or a called function) zeroes only the registers a thread may read before writing
//   them, so reads of unwritten registers — a divergent write's other lanes, a register written
//   nowhere, a shuffle from a lane that never wrote, a callee's register on its second call —
//   still give zero in every CTA, however its objects were reused;
// - func_warp_run_plain runs exactly what as many func_warp_step(w, NULL) calls would: on every
//   tests/kernels program (suite FuncPlainRuns) two engines run the same warp schedule, one step
//   by step and one in plain runs, and their values, counts, per-instruction counts and pc
//   sequences must agree; unit tests check max, each kind of instruction a run stops before,
//   reconvergence and refusals.
#include <cstring>
#include <memory>

#include "func_test_util.h"
#include "kernel_checks.h"
#include "twin_device.h"
#include "ptx.h"

using namespace functest;

namespace {

// ---- a per-warp driver: round-robin over the warps of resident CTAs -----------------------------

// How a warp's slice runs: a maximal straight run of register-only instructions, then one more
// instruction. `plain_runs` false: every instruction through func_warp_step(w, NULL); true: the
// run through func_warp_run_plain (at most `max_run` per call, cycling 1..max_run so every
// boundary is crossed), the last through func_warp_step. Both give the same schedule when
// run_plain keeps its contract; `trace` folds (CTA, warp, pc) of every executed instruction.
struct Driver {
  bool plain_runs = false;
  uint32_t max_run = 5;
  uint64_t trace = 1469598103934665603ull;
  uint64_t runs = 0;      // instructions executed by func_warp_run_plain
  uint64_t executed = 0;  // instructions of the last launch
  std::vector<func_pc_count> pc_counts;  // of the last launch
  func_launch_counts counts{};
  uint32_t next_max = 1;

  void note(uint64_t cta, uint32_t warp, uint32_t pc) {
    uint64_t v = cta << 40 ^ (uint64_t)warp << 32 ^ pc;
    for (int i = 0; i < 8; i++) trace = (trace ^ ((v >> (8 * i)) & 0xff)) * 1099511628211ull;
    executed++;
  }

  // One slice of warp w; false when the launch faulted (or the driver found a broken contract).
  bool slice(func_launch *l, uint64_t cta_id, func_warp *w, uint32_t warp, simtvp_diag *diag) {
    const func_program *p = func_launch_program(l);
    while (func_warp_get_state(w) == FUNC_WARP_READY && func_program_insn_plain(p, func_warp_pc(w))) {
      uint32_t pc = func_warp_pc(w);
      if (!plain_runs) {
        note(cta_id, warp, pc);
        if (func_warp_step(w, nullptr, diag) != SIMTVP_OK) return false;
        continue;
      }
      uint32_t max = next_max, len = func_program_plain_run(p, pc);
      next_max = next_max % max_run + 1;
      EXPECT_GT(len, 0u) << "pc " << pc;
      if (len && len < max) max = len;
      uint32_t n = func_warp_run_plain(w, max, diag);
      runs += n;  // over the device's life
      if (func_launch_fault(l, nullptr) == SIMTVP_OK) {
        EXPECT_EQ(n, max) << "pc " << pc << ": a run within its block stopped early";
      }
      if (n == 0) {
        EXPECT_NE(func_launch_fault(l, nullptr), SIMTVP_OK) << "a plain instruction at pc " << pc << " did not run";
        return false;
      }
      for (uint32_t i = 0; i < n; i++) note(cta_id, warp, pc + i);
      if (func_launch_fault(l, nullptr) != SIMTVP_OK) return false;
    }
    if (func_warp_get_state(w) != FUNC_WARP_READY) return true;
    note(cta_id, warp, func_warp_pc(w));
    return func_warp_step(w, nullptr, diag) == SIMTVP_OK;
  }

  simtvp_status run(func_launch *l, simtvp_diag *diag) {
    executed = 0;  // per launch, as the counts; the trace runs on over the device's launches
    simtvp_status st = run_launch_in_slices(
        l, [&](uint64_t cta, func_cta *, func_warp *w, uint32_t wi, simtvp_diag *d) { return slice(l, cta, w, wi, d); }, diag);
    uint32_t n = 0;
    func_pc_count *pc = func_launch_pc_counts(l, &n);
    pc_counts.assign(pc, pc + n);
    func_launch_get_counts(l, &counts);
    return st;
  }
};

// Two functional GPUs with per-warp drivers, fed the same calls: the reference steps, the other
// runs register-only stretches with func_warp_run_plain (twin_device.h compares them).
class plain_device : public twin_device<Driver> {
 public:
  explicit plain_device(uint32_t stack_bytes) : twin_device<Driver>(stack_bytes) { test_.plain_runs = true; }

 protected:
  void check_drivers(const char *kernel) override {
    EXPECT_EQ(ref_.counts.warp_insns, ref_.executed) << kernel;
    EXPECT_EQ(ref_.runs, 0u);
  }
};

const bool registered = (kernel_checks::register_all(
                             "FuncPlainRuns",
                             [](uint32_t stack_bytes) -> std::unique_ptr<kernel_checks::device> {
                               return std::make_unique<plain_device>(stack_bytes);
                             },
                             __FILE__, __LINE__),
                         true);

// ---- per-warp tests on a small engine (functest::Engine, func_test_util.h) ------------------------

// Steps every warp of a CTA to its end, warp after warp, releasing barriers.
void run_cta(func_cta *c) {
  for (bool live = true; live;) {
    live = false;
    for (uint32_t i = 0; i < func_cta_warp_count(c); i++) {
      func_warp *w = func_cta_warp(c, i);
      if (func_warp_get_state(w) == FUNC_WARP_BARRIER) func_cta_release_barrier(c, func_warp_barrier(w));
      while (func_warp_get_state(w) == FUNC_WARP_READY) {
        live = true;
        simtvp_diag d{};
        ASSERT_EQ(func_warp_step(w, nullptr, &d), SIMTVP_OK) << d.message;
        if (func_warp_get_state(w) == FUNC_WARP_BARRIER) break;
      }
    }
  }
}

// ---- registers read before written ---------------------------------------------------------------

// Every thread stores: %r2 (written nowhere before), %r1 (lanes < 16 only wrote it), a shuffle from
// lane + 1 of %r4 (odd lanes never wrote it), then writes %r2 and %r5 with nonzero values, so a CTA
// that reuses the last one's frames finds them there if the start does not clear them.
const char *kUnwritten = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r8, %tid.x;
  mov.u32 %r9, %ctaid.x;
  mov.u32 %r10, %ntid.x;
  mad.lo.u32 %r11, %r9, %r10, %r8;
  mul.wide.u32 %rd2, %r11, 16;
  add.s64 %rd3, %rd1, %rd2;
  and.b32 %r6, %r8, 31;
  setp.lt.u32 %p1, %r6, 16;
  @%p1 mov.u32 %r1, 7;
  and.b32 %r7, %r8, 1;
  setp.eq.u32 %p2, %r7, 0;
  @%p2 add.u32 %r4, %r8, 100;
  add.u32 %r3, %r6, 1;
  shfl.sync.idx.b32 %r5, %r4, %r3, 31, -1;
  st.global.u32 [%rd3], %r2;
  st.global.u32 [%rd3+4], %r1;
  st.global.u32 [%rd3+8], %r5;
  mov.u32 %r2, 55;
  mov.u32 %r1, 66;
  mov.u32 %r4, 77;
  st.global.u32 [%rd3+12], %r2;
  ret;
})";

// (threads: of the launch; every CTA has 64)
void expect_unwritten_read_zero(const std::vector<uint32_t> &v, uint32_t threads) {
  for (uint32_t t = 0; t < threads; t++) {
    uint32_t lane = t % 32, tid = t % 64;
    EXPECT_EQ(v[4 * t], 0u) << "thread " << t << ": a register written nowhere before";
    EXPECT_EQ(v[4 * t + 1], lane < 16 ? 7u : 0u) << "thread " << t << ": a divergent write's other lanes";
    uint32_t src = (lane + 1) % 32;  // the lane the shuffle reads; odd lanes never wrote %r4
    uint32_t src_thread = tid - lane + src;  // its %tid.x
    EXPECT_EQ(v[4 * t + 2], src % 2 == 0 ? src_thread + 100 : 0u) << "thread " << t << ": a shuffle from a lane that never wrote";
    EXPECT_EQ(v[4 * t + 3], 55u) << t;
  }
}

TEST(FuncCtaStart, UnwrittenRegistersReadZeroInEveryCtaOfAFunctionalRun) {
  Gpu g;
  ASSERT_EQ(g.load(kUnwritten), SIMTVP_OK) << g.diag.message;
  const uint32_t ctas = 5, threads = 64;
  uint64_t out = g.alloc(ctas * threads * 16);
  ASSERT_EQ(g.launch("k", ctas, threads, {out}), SIMTVP_OK) << g.diag.message;  // one CTA object, reused
  expect_unwritten_read_zero(g.download<uint32_t>(out, ctas * threads * 4), ctas * threads);
}

TEST(FuncCtaStart, UnwrittenRegistersReadZeroInACtaThatReusesAFinishedOne) {
  Engine en(kUnwritten);
  const uint32_t threads = 64;
  uint64_t out = en.alloc(3 * threads * 16);
  func_launch *l = en.launch("k", 3, threads, {out});
  for (uint32_t i = 0; i < 3; i++) {  // each CTA starts where the last one finished
    func_cta *c;
    uint32_t id[3] = {i, 0, 0};
    ASSERT_EQ(func_cta_start(l, id, 0, 0, &c, &en.d), SIMTVP_OK) << en.d.message;
    run_cta(c);
    EXPECT_TRUE(func_cta_done(c));
    func_cta_finish(c);
  }
  func_launch_destroy(l);
  expect_unwritten_read_zero(en.read32(out, 3 * threads * 4), 3 * threads);
}

// A callee that reads %r1 before writing it, called twice per thread: the second activation
// starts in the frame memory of the first, which left 1000 + tid there.
const char *kCallee = R"(.version 8.0
.target sm_80
.address_size 64
.func (.param .b32 ret) f(.param .b32 x)
{
  .reg .b32 %r<4>;
  ld.param.b32 %r2, [x];
  add.u32 %r3, %r1, %r2;
  add.u32 %r1, %r2, 1000;
  st.param.b32 [ret], %r3;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ntid.x;
  mad.lo.u32 %r4, %r4, %r5, %r1;
  mul.wide.u32 %rd2, %r4, 8;
  add.s64 %rd3, %rd1, %rd2;
  {
  .param .b32 a;
  .param .b32 r;
  st.param.b32 [a], %r1;
  call (r), f, (a);
  ld.param.b32 %r2, [r];
  }
  {
  .param .b32 a;
  .param .b32 r;
  st.param.b32 [a], %r1;
  call (r), f, (a);
  ld.param.b32 %r3, [r];
  }
  st.global.v2.u32 [%rd3], {%r2, %r3};
  ret;
})";

TEST(FuncCtaStart, ACalleesUnwrittenRegisterReadsZeroOnEveryCall) {
  Gpu g;
  ASSERT_EQ(g.load(kCallee), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(2 * 40 * 8);
  ASSERT_EQ(g.launch("k", 2, 40, {out}), SIMTVP_OK) << g.diag.message;
  auto v = g.download<uint32_t>(out, 2 * 40 * 2);
  for (uint32_t t = 0; t < 80; t++) {
    EXPECT_EQ(v[2 * t], t % 40) << t;      // 0 + x
    EXPECT_EQ(v[2 * t + 1], t % 40) << t;  // 0 + x again, not 1000 + x + x
  }
}

TEST(FuncCtaStart, WithADebuggerEveryRegisterOfANewCtaReadsZero) {
  func_ports ports{};
  ports.debug.cta = [](void *, func_cta *, bool) {};  // attached; it only watches CTAs
  Engine en(kUnwritten, &ports);
  uint64_t out = en.alloc(2 * 64 * 16);
  func_launch *l = en.launch("k", 2, 64, {out});
  func_cta *c;
  uint32_t id[3] = {0, 0, 0};
  ASSERT_EQ(func_cta_start(l, id, 0, 0, &c, &en.d), SIMTVP_OK);
  run_cta(c);
  func_cta_finish(c);
  id[0] = 1;
  ASSERT_EQ(func_cta_start(l, id, 0, 0, &c, &en.d), SIMTVP_OK);  // reuses the finished CTA
  func_warp *w = func_cta_warp(c, 0);
  for (uint32_t r = 0; r < 12; r++) {  // %r1, %r2, %r4 held 66, 55, 77; the rest other values
    uint64_t v[2] = {1, 1};
    ASSERT_TRUE(func_warp_read_reg(w, PTX_RC_B32, r, 5, v));
    EXPECT_EQ(v[0], 0u) << "%r" << r;
  }
  func_cta_finish(c);
  func_launch_destroy(l);
}

// A timing model whose warps run ahead of the GPU's time (the interval core) tells a warp how far
// (func_warp_set_time_ahead): its %clock64 and %globaltimer reads add that to the ports' answers.
TEST(FuncClock, ReadsAddTheWarpsTimeAhead) {
  const char *ptx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u64 %rd2, %clock64;
  mov.u64 %rd3, %globaltimer;
  st.global.u64 [%rd1], %rd2;
  st.global.u64 [%rd1+8], %rd3;
  exit;
}
)";
  func_ports ports{};
  ports.clock = [](void *, uint32_t) -> uint64_t { return 1000; };
  ports.globaltimer = [](void *) -> uint64_t { return 5000; };
  Engine en(ptx, &ports);
  uint64_t out = en.alloc(16);
  func_launch *l = en.launch("k", 1, 32, {out});
  func_cta *c;
  uint32_t id[3] = {0, 0, 0};
  ASSERT_EQ(func_cta_start(l, id, 0, 0, &c, &en.d), SIMTVP_OK);
  func_warp_set_time_ahead(func_cta_warp(c, 0), 84, 74);
  run_cta(c);
  func_cta_finish(c);
  func_launch_destroy(l);
  uint64_t v[2] = {0, 0};
  ASSERT_EQ(devmem_read(en.mem, out, v, sizeof v, &en.d), SIMTVP_OK);
  EXPECT_EQ(v[0], 1084u);
  EXPECT_EQ(v[1], 5074u);
}

// ---- straight runs -------------------------------------------------------------------------------

// pcs (kernel k): 0 ld.param, 1-5 five ALU, 6 ld.global, 7 add, 8 st, 9 add, 10 atom, 11 add,
// 12 mov %clock, 13 add, 14 membar, 15 add, 16 bar.sync, 17 add, 18 setp, 19 @p bra, 20 add,
// 21 call, 22 add, 23 exit; callee g: add, ret.
const char *kKinds = R"(.version 8.0
.target sm_80
.address_size 64
.func g()
{
  .reg .b32 %r<2>;
  mov.u32 %r1, 1;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  add.u32 %r2, %r1, 1;
  mul.lo.u32 %r3, %r2, 3;
  shl.b32 %r4, %r3, 2;
  cvt.u64.u32 %rd2, %r4;
  ld.global.u32 %r5, [%rd1];
  add.u32 %r6, %r5, 1;
  st.global.u32 [%rd1+4], %r6;
  add.u32 %r7, %r6, 1;
  atom.global.add.u32 %r8, [%rd1+8], 1;
  add.u32 %r9, %r7, 1;
  mov.u32 %r10, %clock;
  add.u32 %r9, %r9, 1;
  membar.gl;
  add.u32 %r9, %r9, 1;
  bar.sync 0;
  add.u32 %r9, %r9, 1;
  setp.lt.u32 %p1, %r1, 64;
  @%p1 bra $next;
$next:
  add.u32 %r9, %r9, 1;
  call g, ();
  add.u32 %r9, %r9, 1;
  exit;
})";

TEST(FuncPlainRun, MaxIsHonouredAndTheRunStopsBeforeAMemoryAccess) {
  Engine en(kKinds);
  uint64_t out = en.alloc(64);
  func_launch *l = en.launch("k", 1, 32, {out});
  func_cta *c;
  uint32_t id[3] = {0, 0, 0};
  ASSERT_EQ(func_cta_start(l, id, 0, 0, &c, &en.d), SIMTVP_OK);
  func_warp *w = func_cta_warp(c, 0);
  uint32_t pc0 = func_warp_pc(w);
  EXPECT_EQ(func_warp_run_plain(w, 4, &en.d), 0u);  // ld.param comes first
  ASSERT_EQ(func_warp_step(w, nullptr, &en.d), SIMTVP_OK);
  EXPECT_EQ(func_warp_run_plain(w, 3, &en.d), 3u);
  EXPECT_EQ(func_warp_pc(w), pc0 + 4);
  EXPECT_EQ(func_warp_run_plain(w, 0, &en.d), 0u);
  EXPECT_EQ(func_warp_run_plain(w, 100, &en.d), 2u);  // stops before ld.global
  EXPECT_EQ(func_warp_pc(w), pc0 + 6);
  func_launch_counts k;
  func_cta_finish(c);
  func_launch_get_counts(l, &k);
  EXPECT_EQ(k.warp_insns, 6u);
  EXPECT_EQ(k.thread_insns, 6u * 32);
  func_launch_destroy(l);
}

TEST(FuncPlainRun, StopsBeforeEachKindOfInstructionThatIsNotRegisterOnly) {
  Engine en(kKinds);
  uint64_t out = en.alloc(64);
  func_launch *l = en.launch("k", 1, 32, {out});
  func_cta *c;
  uint32_t id[3] = {0, 0, 0};
  ASSERT_EQ(func_cta_start(l, id, 0, 0, &c, &en.d), SIMTVP_OK);
  func_warp *w = func_cta_warp(c, 0);
  const uint32_t k0 = func_warp_pc(w);
  // what the run stops before, after how many plain instructions
  struct stop { uint32_t plain; uint8_t kind; uint32_t opcode; };
  const stop stops[] = {{0, FUNC_STEP_MEM, PTX_OP_LD},        {5, FUNC_STEP_MEM, PTX_OP_LD},
                        {1, FUNC_STEP_MEM, PTX_OP_ST},        {1, FUNC_STEP_MEM, PTX_OP_ATOM},
                        {1, FUNC_STEP_ALU, PTX_OP_MOV},       {1, FUNC_STEP_FENCE, PTX_OP_MEMBAR},
                        {1, FUNC_STEP_BARRIER, PTX_OP_BAR},   {2, FUNC_STEP_BRANCH, PTX_OP_BRA},
                        {1, FUNC_STEP_CALL, PTX_OP_CALL},     {1, FUNC_STEP_RET, PTX_OP_RET},
                        {1, FUNC_STEP_EXIT, PTX_OP_EXIT}};
  for (const stop &s : stops) {
    uint32_t pc = func_warp_pc(w);
    EXPECT_EQ(func_warp_run_plain(w, 1000, &en.d), s.plain) << "at pc " << pc - k0;
    EXPECT_FALSE(func_program_insn_plain(en.p, func_warp_pc(w)));
    func_step r;
    ASSERT_EQ(func_warp_step(w, &r, &en.d), SIMTVP_OK) << en.d.message;
    EXPECT_EQ(r.kind, s.kind) << "at pc " << pc - k0;
    EXPECT_EQ(r.insn->opcode, s.opcode) << "at pc " << pc - k0;
    if (r.barrier_complete) func_cta_release_barrier(c, r.barrier_id);
  }
  EXPECT_EQ(func_warp_get_state(w), FUNC_WARP_DONE);
  EXPECT_EQ(func_warp_run_plain(w, 10, &en.d), 0u);
  EXPECT_EQ(en.d.status, SIMTVP_ERR_STATE);  // refused: the warp is done
  func_cta_finish(c);
  func_launch_destroy(l);
}

// Lanes 0-15 take the branch around two adds; the others run them and reach the reconvergence
// point $join, where the stack pops and the warp continues at the branch target with every lane.
const char *kReconverge = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra $join;
  add.u32 %r2, %r1, 1;
  add.u32 %r2, %r2, 1;
$join:
  add.u32 %r3, %r1, 3;
  add.u32 %r4, %r3, 3;
  st.global.u32 [%rd1], %r4;
  ret;
})";

TEST(FuncPlainRun, EndsWhereTheWarpReconverges) {
  Engine en(kReconverge);
  uint64_t out = en.alloc(64);
  func_launch *l = en.launch("k", 1, 32, {out});
  func_cta *c;
  uint32_t id[3] = {0, 0, 0};
  ASSERT_EQ(func_cta_start(l, id, 0, 0, &c, &en.d), SIMTVP_OK);
  func_warp *w = func_cta_warp(c, 0);
  ASSERT_EQ(func_warp_step(w, nullptr, &en.d), SIMTVP_OK);  // ld.param
  EXPECT_EQ(func_warp_run_plain(w, 100, &en.d), 2u);       // mov, setp
  ASSERT_EQ(func_warp_step(w, nullptr, &en.d), SIMTVP_OK);  // the branch diverges
  const uint32_t join = func_warp_pc(w) + 2;
  EXPECT_EQ(func_warp_active(w), 0xffff0000u);  // the fall-through lanes first
  EXPECT_EQ(func_warp_run_plain(w, 100, &en.d), 2u);  // the two adds, then the stack pops
  EXPECT_EQ(func_warp_pc(w), join);
  EXPECT_EQ(func_warp_active(w), 0xffffffffu);
  EXPECT_EQ(func_warp_run_plain(w, 100, &en.d), 2u);  // both lanes sets together, up to st
  func_cta_finish(c);
  func_launch_destroy(l);
}

TEST(FuncPlainRun, RunLengthsEndAtTheEndOfTheBasicBlock) {
  Engine en(kReconverge);
  const uint32_t k0 = en.m->functions[func_program_kernel(en.p, "k")].first_insn;
  // 0 ld.param | 1 mov, 2 setp, 3 @p bra | 4 add, 5 add | $join: 6 add, 7 add, 8 st, 9 ret
  const uint32_t run[] = {0, 2, 1, 0, 2, 1, 2, 1, 0, 0};
  for (uint32_t i = 0; i < 10; i++) EXPECT_EQ(func_program_plain_run(en.p, k0 + i), run[i]) << "pc " << i;
  EXPECT_EQ(func_program_plain_run(en.p, en.m->n_insns), 0u);
  EXPECT_EQ(func_program_plain_run(nullptr, 0), 0u);
}

TEST(FuncPlainRun, RegisterOnlyInstructionsAreKnownByPc) {
  Engine en(kKinds);
  uint32_t k = func_program_kernel(en.p, "k");
  const uint32_t k0 = en.m->functions[k].first_insn;
  // 0 ld.param, 1-5 ALU, 6 ld, 7 add, 8 st, 9 add, 10 atom, 11 add, 12 mov %clock, 13 add,
  // 14 membar, 15 add, 16 bar, 17 add, 18 setp, 19 bra, 20 add, 21 call, 22 add, 23 exit
  const bool plain[] = {false, true, true, true, true, true, false, true, false, true, false, true,
                        false, true, false, true, false, true, true,  false, true, false, true, false};
  for (uint32_t i = 0; i < sizeof plain; i++) EXPECT_EQ(func_program_insn_plain(en.p, k0 + i), plain[i]) << "pc " << i;
  EXPECT_FALSE(func_program_insn_plain(en.p, en.m->n_insns));
  EXPECT_FALSE(func_program_insn_plain(nullptr, 0));
}

}  // namespace
