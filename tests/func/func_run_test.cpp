// Whole-warp runs and the engine's whole-warp fast paths (func.h func_warp_run,
// func_cta_release_barriers, func_step.addr_halves; docs/func.md "Per-warp mode", "Speed"):
// - func_warp_run executes exactly what as many func_warp_step calls would, stopping after what a
//   scheduler must see: on every tests/kernels program (suite FuncWarpRuns) two engines run the
//   same warp schedule, one stepping with records and stopping as func_warp_run's contract says,
//   one in func_warp_run calls (of 1-7 instructions each, so every boundary is crossed), and their
//   slices (length, last pc, kind, barrier facts), values, counts and per-instruction counts must
//   agree; unit tests check barriers, refusals, %clock and func_cta_release_barriers;
// - full-warp shared and global accesses whose half-warps are one word or consecutive words record
//   every lane's address (and say so in addr_halves); other patterns record addr_halves 0;
//   func_warp_step_lean's records of such shared accesses hold lanes 0 and 16, and
//   func_step_fill_addr completes them to func_warp_step's (unit test, and suite FuncLeanSteps: every
//   tests/kernels program stepped both ways, every memory record compared);
// - func_warp_step_plain steps every instruction as func_warp_step(w, NULL) does (unit test; suite
//   FuncLeanSteps runs every register-only instruction of every tests/kernels program through it);
// - shifts by a warp-uniform count (32 and more included) give what per-lane shifts give.
#include <cstring>
#include <memory>

#include "func_test_util.h"
#include "kernel_checks.h"
#include "twin_device.h"
#include "ptx.h"

using namespace functest;

namespace {

// ---- a per-warp driver, in func_warp_run slices or in stepped slices that stop alike -------------

struct RunDriver {
  bool runs = false;         // true: func_warp_run; false: func_warp_step with records
  bool lean = false;         // stepping: func_warp_step_lean, then func_step_fill_addr, and
                             // func_warp_step_plain for register-only instructions
  uint64_t trace = 1469598103934665603ull;
  uint64_t mem_trace = 1469598103934665603ull; // stepping: every memory record's facts
  uint64_t executed = 0;     // instructions of the last launch
  uint64_t run_calls = 0;
  uint64_t plain_steps = 0;  // lean: register-only instructions run by func_warp_step_plain
  std::vector<func_pc_count> pc_counts;
  func_launch_counts counts{};
  uint32_t next_max = 1;

  static void fold_into(uint64_t &h, uint64_t v) {
    for (int i = 0; i < 8; i++) h = (h ^ ((v >> (8 * i)) & 0xff)) * 1099511628211ull;
  }
  void fold(uint64_t v) { fold_into(trace, v); }
  void fold_mem(const func_step &r) {
    if (r.kind != FUNC_STEP_MEM) return;
    fold_into(mem_trace, (uint64_t)r.pc << 32 ^ (uint64_t)r.space << 24 ^ (uint64_t)r.addr_halves << 16 ^
                             (uint64_t)r.access_bytes);
    fold_into(mem_trace, (uint64_t)r.mem_mask << 32 ^ (uint64_t)r.is_load << 2 ^ (uint64_t)r.is_store << 1 ^
                             (uint64_t)r.is_atomic);
    for (uint32_t i = 0; i < 32; i++)
      if (r.mem_mask >> i & 1u) {
        fold_into(mem_trace, r.addr[i]);
        if (r.space == PTX_SPACE_GENERIC) fold_into(mem_trace, r.lane_space[i]);
      }
  }

  // One slice of warp w: up to `max` instructions; false when the launch faulted.
  bool slice(uint64_t cta_id, func_cta *c, func_warp *w, uint32_t warp, simtvp_diag *diag) {
    uint32_t max = next_max;
    next_max = next_max % 7 + 1;
    uint32_t n = 0;
    func_run_end end{};
    simtvp_status st = SIMTVP_OK;
    if (runs) {
      st = func_warp_run(w, max, &n, &end, diag);
      run_calls++;
      EXPECT_LE(n, max);
    } else {
      func_step rec{};
      const func_program *prog = func_launch_program(func_cta_launch(c));
      while (n < max) {
        n++;
        func_peek pk{};
        if (lean && func_warp_peek(w, &pk) && func_program_insn_plain(prog, pk.pc)) {
          // a register-only instruction through func_warp_step_plain: what the record would say
          uint32_t before = func_warp_active(w), active = 0;
          uint32_t next = func_warp_step_plain(w, &active, &st, diag);
          EXPECT_EQ(active, before) << "pc " << pk.pc;
          if (st == SIMTVP_OK) {
            EXPECT_EQ(next, func_warp_pc(w)) << "pc " << pk.pc;
          }
          plain_steps++;
          end = {pk.pc, pk.insn, pk.kind, 0, false, false, false, false};
          if (st != SIMTVP_OK) break;
          continue;
        }
        if (lean) {
          st = func_warp_step_lean(w, &rec, diag);
          func_step_fill_addr(&rec);
        } else {
          st = func_warp_step(w, &rec, diag);
        }
        fold_mem(rec);
        end = {rec.pc, rec.insn, rec.kind, rec.barrier_id, rec.barrier_wait, rec.barrier_complete,
               rec.warp_done, rec.yield};
        if (st != SIMTVP_OK || rec.kind == FUNC_STEP_BARRIER || rec.warp_done || rec.yield ||
            func_warp_get_state(w) == FUNC_WARP_FAULT_WAIT)
          break;
      }
    }
    executed += n;
    fold(cta_id << 40 ^ (uint64_t)warp << 32 ^ n);
    fold((uint64_t)end.pc << 32 ^ (uint64_t)end.kind << 24 ^ (uint64_t)end.barrier_id << 16 ^
         (uint64_t)end.barrier_wait << 3 ^ (uint64_t)end.barrier_complete << 2 ^ (uint64_t)end.warp_done << 1 ^
         (uint64_t)end.yield);
    fold((uint64_t)st << 32 ^ func_warp_get_state(w));
    if (st != SIMTVP_OK) return false;
    if (end.kind == FUNC_STEP_BARRIER && end.barrier_complete) func_cta_release_barrier(c, end.barrier_id);
    if (end.warp_done) func_cta_release_barriers(c);
    return true;
  }

  simtvp_status run(func_launch *l, simtvp_diag *diag) {
    executed = 0;
    simtvp_status st = run_launch_in_slices(
        l, [&](uint64_t cta, func_cta *c, func_warp *w, uint32_t wi, simtvp_diag *d) { return slice(cta, c, w, wi, d); }, diag);
    uint32_t n = 0;
    func_pc_count *pc = func_launch_pc_counts(l, &n);
    pc_counts.assign(pc, pc + n);
    func_launch_get_counts(l, &counts);
    return st;
  }
};

// Two functional GPUs fed the same calls (twin_device.h): the reference steps with records and
// stops as func_warp_run's contract says; the other runs in func_warp_run slices, or (lean) steps
// register-only instructions with func_warp_step_plain and the rest with func_warp_step_lean
// records (completed by func_step_fill_addr), which must equal the reference's records.
class run_device : public twin_device<RunDriver> {
 public:
  explicit run_device(uint32_t stack_bytes, bool lean = false) : twin_device<RunDriver>(stack_bytes) {
    test_.runs = !lean;
    test_.lean = lean;
  }

 protected:
  void check_drivers(const char *kernel) override {
    EXPECT_EQ(ref_.run_calls, 0u);
    if (test_.lean) {
      EXPECT_EQ(ref_.mem_trace, test_.mem_trace) << kernel << ": the memory records differ";
      EXPECT_EQ(test_.run_calls, 0u);
      EXPECT_GT(test_.plain_steps, 0u) << kernel;
    }
  }
};

const bool registered = (kernel_checks::register_all(
                             "FuncWarpRuns",
                             [](uint32_t stack_bytes) -> std::unique_ptr<kernel_checks::device> {
                               return std::make_unique<run_device>(stack_bytes);
                             },
                             __FILE__, __LINE__),
                         true);
const bool registered_lean = (kernel_checks::register_all(
                                  "FuncLeanSteps",
                                  [](uint32_t stack_bytes) -> std::unique_ptr<kernel_checks::device> {
                                    return std::make_unique<run_device>(stack_bytes, true);
                                  },
                                  __FILE__, __LINE__),
                              true);

// ---- per-warp tests on a small engine (functest::Engine, func_test_util.h) ------------------------

// Two warps: ALU work, a barrier, a %clock read (the launch's warp instruction count by default),
// then a store of it per thread.
const char *kBarrierClock = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  add.u32 %r2, %r1, 3;
  mul.lo.u32 %r3, %r2, %r2;
  xor.b32 %r4, %r3, %r1;
  bar.sync 0;
  add.u32 %r5, %r4, 1;
  add.u32 %r6, %r5, 1;
  mov.u32 %r7, %clock;
  add.u32 %r8, %r7, %r6;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r8;
  ret;
})";

// func_warp_step_plain on every instruction of two warps (register-only ones in its own path, the
// others as func_warp_step steps them, a warp at a barrier refused) against func_warp_step: the
// same active lanes, next pcs, states, statuses, counts, %clock readings and stores.
TEST(FuncWarpStepPlain, StepsEveryInstructionAsFuncWarpStepDoes) {
  Engine a(kBarrierClock), b(kBarrierClock);
  uint64_t out_a = a.alloc(256), out_b = b.alloc(256);
  ASSERT_EQ(out_a, out_b);
  func_launch *la = a.launch("k", 1, 64, {out_a}), *lb = b.launch("k", 1, 64, {out_b});
  func_cta *ca, *cb;
  uint32_t ctaid[3] = {0, 0, 0};
  ASSERT_EQ(func_cta_start(la, ctaid, 0, 0, &ca, &a.d), SIMTVP_OK);
  ASSERT_EQ(func_cta_start(lb, ctaid, 0, 0, &cb, &b.d), SIMTVP_OK);
  uint32_t plain = 0, other = 0;
  // warp 0 to its barrier, warp 1 to it (and one refused step of warp 0 there), then both to the end
  for (uint32_t wi : {0u, 0u, 1u, 0u, 1u}) {
    func_warp *wa = func_cta_warp(ca, wi), *wb = func_cta_warp(cb, wi);
    for (int k = 0; k < 40; k++) {
      bool ready = func_warp_get_state(wa) == FUNC_WARP_READY;
      bool is_plain = ready && func_program_insn_plain(func_launch_program(lb), func_warp_pc(wb));
      uint32_t before = func_warp_active(wa), active = 0;
      simtvp_status sa = func_warp_step(wa, nullptr, &a.d), sb = SIMTVP_ERR_ARG;
      uint32_t next = func_warp_step_plain(wb, &active, &sb, &b.d);
      ASSERT_EQ(sb, sa) << "warp " << wi << ", step " << k << ": " << b.d.message;
      EXPECT_EQ(active, before) << "warp " << wi << ", step " << k;
      EXPECT_EQ(func_warp_get_state(wb), func_warp_get_state(wa)) << "warp " << wi << ", step " << k;
      if (sa != SIMTVP_OK) break; // refused: not ready
      EXPECT_EQ(next, func_warp_pc(wa)) << "warp " << wi << ", step " << k;
      (is_plain ? plain : other)++;
      if (func_warp_get_state(wa) != FUNC_WARP_READY) break;
    }
    if (func_warp_get_state(wa) == FUNC_WARP_BARRIER && wi == 1) {
      EXPECT_EQ(func_cta_release_barrier(ca, 0), 2u);
      EXPECT_EQ(func_cta_release_barrier(cb, 0), 2u);
    }
  }
  EXPECT_EQ(plain, 2u * 9u) << "mov, add, mul, xor; add, add; add, mul.wide, add.s64 per warp";
  EXPECT_EQ(other, 2u * 5u) << "ld.param, bar, mov %clock, st, ret per warp";
  EXPECT_TRUE(func_cta_done(ca));
  EXPECT_TRUE(func_cta_done(cb));
  func_launch_counts ka, kb;
  func_launch_get_counts(la, &ka);
  func_launch_get_counts(lb, &kb);
  func_cta_finish(ca);
  func_cta_finish(cb);
  EXPECT_EQ(kb.warp_insns, ka.warp_insns);
  EXPECT_EQ(kb.thread_insns, ka.thread_insns);
  func_launch_destroy(la);
  func_launch_destroy(lb);
  EXPECT_EQ(b.read32(out_b, 64), a.read32(out_a, 64)) << "the %clock readings and values";
}

TEST(FuncWarpRun, StopsAfterABarrierWithItsRecordsFacts) {
  Engine en(kBarrierClock);
  uint64_t out = en.alloc(256);
  func_launch *l = en.launch("k", 1, 64, {out});
  func_cta *cta;
  uint32_t ctaid[3] = {0, 0, 0};
  ASSERT_EQ(func_cta_start(l, ctaid, 0, 0, &cta, &en.d), SIMTVP_OK);
  func_warp *w0 = func_cta_warp(cta, 0), *w1 = func_cta_warp(cta, 1);
  uint32_t n = 0;
  func_run_end end;
  // ld.param, mov, add, mul, xor, bar: six instructions, the last a barrier the first warp waits at
  ASSERT_EQ(func_warp_run(w0, 100, &n, &end, &en.d), SIMTVP_OK) << en.d.message;
  EXPECT_EQ(n, 6u);
  EXPECT_EQ(end.kind, FUNC_STEP_BARRIER);
  EXPECT_EQ(end.pc, 5u);
  EXPECT_TRUE(end.barrier_wait);
  EXPECT_FALSE(end.barrier_complete);
  EXPECT_FALSE(end.warp_done);
  EXPECT_EQ(func_warp_get_state(w0), FUNC_WARP_BARRIER);
  // a warp that is not ready is refused, nothing run
  EXPECT_EQ(func_warp_run(w0, 100, &n, &end, &en.d), SIMTVP_ERR_STATE);
  EXPECT_EQ(n, 0u);
  // max is honoured
  ASSERT_EQ(func_warp_run(w1, 2, &n, &end, &en.d), SIMTVP_OK);
  EXPECT_EQ(n, 2u);
  EXPECT_EQ(end.pc, 1u);
  EXPECT_EQ(end.kind, FUNC_STEP_ALU);
  // the second arrival completes the barrier; both wait until it is released
  ASSERT_EQ(func_warp_run(w1, 100, &n, &end, &en.d), SIMTVP_OK);
  EXPECT_EQ(n, 4u);
  EXPECT_TRUE(end.barrier_complete);
  EXPECT_EQ(end.barrier_id, 0u);
  EXPECT_EQ(func_cta_release_barriers(cta), 2u);
  EXPECT_EQ(func_cta_release_barriers(cta), 0u) << "nothing left to release";
  // to the end: the exit is reported
  ASSERT_EQ(func_warp_run(w0, 100, &n, &end, &en.d), SIMTVP_OK);
  EXPECT_EQ(n, 8u);
  EXPECT_TRUE(end.warp_done);
  EXPECT_EQ(end.pc, 13u);
  ASSERT_EQ(func_warp_run(w1, 100, &n, &end, &en.d), SIMTVP_OK);
  EXPECT_TRUE(func_cta_done(cta));
  func_cta_finish(cta);
  func_launch_destroy(l);
  // %clock (the launch's warp instruction count, this instruction included) reads what stepping
  // reads: w0's mov is the 15th instruction (6 + 6 of w1's + 3), w1's the 23rd (20 + 3)
  auto v = en.read32(out, 64);
  for (uint32_t t = 0; t < 64; t++) {
    uint32_t x = ((t + 3) * (t + 3) ^ t) + 2;
    EXPECT_EQ(v[t], x + (t < 32 ? 15u : 23u)) << "thread " << t;
  }
}

// func_cta_barrier_waits (what lets the interval core skip its barrier pass at a warp's exit):
// true from a warp's barrier wait until func_cta_release_barriers, false on a new CTA; a
// finished CTA's object started again (it is reused) has the same warps' thread ids and lanes,
// which are set once per object.
TEST(FuncCta, BarrierWaitsFromAWaitToTheReleaseAndAReusedCtaStartsClean) {
  Engine en(kBarrierClock);
  uint64_t out = en.alloc(256);
  func_launch *l = en.launch("k", 1, 64, {out});
  func_cta *first = nullptr;
  for (int round = 0; round < 2; round++) {
    func_cta *cta;
    uint32_t ctaid[3] = {0, 0, 0};
    ASSERT_EQ(func_cta_start(l, ctaid, 0, 0, &cta, &en.d), SIMTVP_OK);
    if (round == 0) first = cta;
    else EXPECT_EQ(cta, first) << "the finished CTA's object is reused";
    EXPECT_FALSE(func_cta_barrier_waits(cta)) << "round " << round << ": a new CTA";
    func_warp *w0 = func_cta_warp(cta, 0), *w1 = func_cta_warp(cta, 1);
    uint32_t tid[3];
    func_warp_thread(w1, 5, tid);
    EXPECT_EQ(tid[0], 37u) << "round " << round;
    EXPECT_EQ(func_warp_active(w1), ~0u);
    uint32_t n = 0;
    func_run_end end;
    ASSERT_EQ(func_warp_run(w0, 100, &n, &end, &en.d), SIMTVP_OK) << en.d.message;
    ASSERT_TRUE(end.barrier_wait);
    EXPECT_TRUE(func_cta_barrier_waits(cta)) << "round " << round << ": warp 0 waits";
    ASSERT_EQ(func_warp_run(w1, 100, &n, &end, &en.d), SIMTVP_OK);
    ASSERT_TRUE(end.barrier_complete);
    EXPECT_TRUE(func_cta_barrier_waits(cta)) << "round " << round << ": complete, not released";
    EXPECT_EQ(func_cta_release_barriers(cta), 2u);
    EXPECT_FALSE(func_cta_barrier_waits(cta)) << "round " << round << ": released";
    ASSERT_EQ(func_warp_run(w0, 100, &n, &end, &en.d), SIMTVP_OK);
    ASSERT_EQ(func_warp_run(w1, 100, &n, &end, &en.d), SIMTVP_OK);
    EXPECT_TRUE(func_cta_done(cta));
    EXPECT_FALSE(func_cta_barrier_waits(cta));
    func_cta_finish(cta);
  }
  func_launch_destroy(l);
}

// Full warps: half-warps on one word or on consecutive words take the whole-warp paths, whose
// records carry every lane's address and say which pattern each half had; a stride of two words
// takes the lane path (addr_halves 0).
const char *kPatterns = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<12>;
  .shared .align 4 .b8 sm[512];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 15;
  shr.u32 %r3, %r1, 4;
  shl.b32 %r4, %r2, 2;
  shl.b32 %r5, %r3, 6;
  add.u32 %r6, %r4, %r5;
  st.shared.u32 [%r6], %r1;
  ld.shared.u32 %r8, [%r5];
  setp.eq.u32 %p1, %r3, 0;
  selp.b32 %r10, %r4, %r5, %p1;
  ld.shared.u32 %r11, [%r10+4];
  shl.b32 %r12, %r1, 3;
  ld.shared.u32 %r13, [%r12];
  cvt.u64.u32 %rd2, %r6;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r8;
  cvt.u64.u32 %rd4, %r5;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.u32 %r14, [%rd5+4];
  st.global.u32 [%rd3+128], %r14;
  st.global.u32 [%rd3+256], %r11;
  st.global.u32 [%rd3+384], %r13;
  ret;
})";

TEST(FuncFastPath, HalfWarpPatternsRecordEveryLanesAddressAndThePattern) {
  Engine en(kPatterns);
  uint64_t out = en.alloc(4096);
  func_launch *l = en.launch("k", 1, 32, {out});
  func_cta *cta;
  uint32_t ctaid[3] = {0, 0, 0};
  ASSERT_EQ(func_cta_start(l, ctaid, 0, 0, &cta, &en.d), SIMTVP_OK);
  func_warp *w = func_cta_warp(cta, 0);
  std::vector<func_step> mem;
  while (func_warp_get_state(w) == FUNC_WARP_READY) {
    func_step r;
    ASSERT_EQ(func_warp_step(w, &r, &en.d), SIMTVP_OK) << en.d.message;
    if (r.kind == FUNC_STEP_MEM && r.space != PTX_SPACE_PARAM) mem.push_back(r);
  }
  ASSERT_EQ(mem.size(), 9u);
  const uint8_t U = FUNC_HALF_UNIFORM, C = FUNC_HALF_CONTIG;
  struct Want {
    uint8_t space, halves;
    bool load;
  } want[9] = {{PTX_SPACE_SHARED, (uint8_t)(C | C << 2), false}, {PTX_SPACE_SHARED, (uint8_t)(U | U << 2), true},
               {PTX_SPACE_SHARED, (uint8_t)(C | U << 2), true},  {PTX_SPACE_SHARED, 0, true},
               {PTX_SPACE_GLOBAL, (uint8_t)(C | C << 2), false}, {PTX_SPACE_GLOBAL, (uint8_t)(U | U << 2), true},
               {PTX_SPACE_GLOBAL, (uint8_t)(C | C << 2), false}, {PTX_SPACE_GLOBAL, (uint8_t)(C | C << 2), false},
               {PTX_SPACE_GLOBAL, (uint8_t)(C | C << 2), false}};
  for (uint32_t k = 0; k < 9; k++) {
    const func_step &r = mem[k];
    EXPECT_EQ(r.space, want[k].space) << "access " << k;
    EXPECT_EQ(r.addr_halves, want[k].halves) << "access " << k;
    EXPECT_EQ(r.is_load, want[k].load) << "access " << k;
    EXPECT_EQ(r.mem_mask, 0xffffffffu) << "access " << k;
    EXPECT_EQ(r.access_bytes, 4u) << "access " << k;
    for (uint32_t i = 0; i < 32; i++) {
      uint64_t lo = 4 * (i & 15), hi = 64 * (i >> 4), a;
      switch (k) {
      case 0: a = lo + hi; break;
      case 1: a = hi; break;
      case 2: a = (i < 16 ? lo : hi) + 4; break;
      case 3: a = 8 * i; break;
      case 4: a = out + lo + hi; break;
      case 5: a = out + hi + 4; break;
      default: a = out + lo + hi + 128 * (k - 5); break;
      }
      EXPECT_EQ(r.addr[i], a) << "access " << k << ", lane " << i;
    }
  }
  func_cta_finish(cta);
  func_launch_destroy(l);
  auto v = en.read32(out, 128);
  for (uint32_t t = 0; t < 32; t++) {
    uint32_t half = t >> 4;
    EXPECT_EQ(v[t], 16 * half) << "a uniform half's broadcast, thread " << t;
    EXPECT_EQ(v[32 + t], 16 * half) << "a global uniform load, thread " << t;
    EXPECT_EQ(v[64 + t], t < 16 ? t + 1 : 17u) << "a contiguous and a uniform half, thread " << t;
    EXPECT_EQ(v[96 + t], 2 * t < 32 ? 2 * t : 0u) << "stride two words, thread " << t;
  }
}

// func_warp_step_lean: a shared access with half-warp patterns records lanes 0 and 16 only, and
// func_step_fill_addr completes it to func_warp_step's record; every other record (global
// accesses with patterns, shared ones without) is func_warp_step's already. The same program is
// stepped on two engines, one each way.
TEST(FuncFastPath, LeanRecordsOfPatternedSharedAccessesFillToTheFullRecord) {
  Engine full(kPatterns), lean(kPatterns);
  uint64_t out_f = full.alloc(4096), out_l = lean.alloc(4096);
  ASSERT_EQ(out_f, out_l);
  func_launch *lf = full.launch("k", 1, 32, {out_f}), *ll = lean.launch("k", 1, 32, {out_l});
  func_cta *cf, *cl;
  uint32_t ctaid[3] = {0, 0, 0};
  ASSERT_EQ(func_cta_start(lf, ctaid, 0, 0, &cf, &full.d), SIMTVP_OK);
  ASSERT_EQ(func_cta_start(ll, ctaid, 0, 0, &cl, &lean.d), SIMTVP_OK);
  func_warp *wf = func_cta_warp(cf, 0), *wl = func_cta_warp(cl, 0);
  uint32_t k = 0, shared_lean = 0;
  while (func_warp_get_state(wf) == FUNC_WARP_READY) {
    func_step rf, rl;
    std::memset(&rl, 0xa5, sizeof rl); // lanes a lean record leaves alone keep this
    ASSERT_EQ(func_warp_step(wf, &rf, &full.d), SIMTVP_OK) << full.d.message;
    ASSERT_EQ(func_warp_step_lean(wl, &rl, &lean.d), SIMTVP_OK) << lean.d.message;
    ASSERT_EQ(rl.kind, rf.kind) << "step " << k;
    if (rf.kind == FUNC_STEP_MEM) {
      EXPECT_EQ(rl.space, rf.space) << "step " << k;
      EXPECT_EQ(rl.addr_halves, rf.addr_halves) << "step " << k;
      EXPECT_EQ(rl.mem_mask, rf.mem_mask) << "step " << k;
      bool is_lean = rf.space == PTX_SPACE_SHARED && rf.addr_halves;
      shared_lean += is_lean;
      for (uint32_t i = 0; i < 32; i++) {
        if (!(rf.mem_mask >> i & 1u)) continue;
        if (is_lean && i % 16) {
          EXPECT_EQ(rl.addr[i], 0xa5a5a5a5a5a5a5a5ull) << "step " << k << ", lane " << i << " is not filled";
        } else {
          EXPECT_EQ(rl.addr[i], rf.addr[i]) << "step " << k << ", lane " << i;
        }
      }
      func_step_fill_addr(&rl);
      for (uint32_t i = 0; i < 32; i++)
        if (rf.mem_mask >> i & 1u) {
          EXPECT_EQ(rl.addr[i], rf.addr[i]) << "step " << k << ", lane " << i << " after the fill";
        }
    }
    EXPECT_EQ(rl.next_pc, rf.next_pc) << "step " << k;
    k++;
  }
  EXPECT_EQ(shared_lean, 3u) << "the three patterned shared accesses of kPatterns";
  // without a record it steps as func_warp_step(w, NULL) does: here a finished warp is refused
  EXPECT_EQ(func_warp_step_lean(wl, nullptr, &lean.d), SIMTVP_ERR_STATE);
  EXPECT_EQ(func_warp_get_state(wl), func_warp_get_state(wf));
  func_cta_finish(cf);
  func_cta_finish(cl);
  func_launch_destroy(lf);
  func_launch_destroy(ll);
  EXPECT_EQ(full.read32(out_f, 128), lean.read32(out_l, 128));
}

// cvta between generic and global addresses (window 0) is a copy: into another register with
// every lane or some lanes (the others keep what they had), and onto itself.
TEST(FuncFastPath, GlobalCvtaCopiesTheAddressUnderTheGuard) {
  std::vector<Slot> in;
  for (uint32_t t = 0; t < 64; t++) {
    Slot s;
    s.q[0] = 0x0000123400000000ull + 0x1000ull * t + 8 * t;
    in.push_back(s);
  }
  auto out = run_lanes("ld.global.u64 %rd6, [%rd4];\n mov.u64 %rd7, 77;\n mov.u64 %rd8, 99;\n"
                       "and.b32 %r2, %r1, 1;\n setp.eq.u32 %p1, %r2, 1;\n"
                       "cvta.to.global.u64 %rd9, %rd6;\n @%p1 cvta.global.u64 %rd7, %rd6;\n"
                       "cvta.to.global.u64 %rd6, %rd6;\n @!%p1 cvta.to.global.u64 %rd8, %rd8;\n"
                       "st.global.u64 [%rd5], %rd9;\n st.global.u64 [%rd5+8], %rd7;\n"
                       "st.global.u64 [%rd5+16], %rd6;\n st.global.u64 [%rd5+24], %rd8;",
                       in);
  for (uint32_t t = 0; t < 64; t++) {
    uint64_t a = in[t].q[0];
    EXPECT_EQ(out[t].q[0], a) << "a full warp, thread " << t;
    EXPECT_EQ(out[t].q[1], t & 1 ? a : 77u) << "odd lanes only, thread " << t;
    EXPECT_EQ(out[t].q[2], a) << "onto itself, thread " << t;
    EXPECT_EQ(out[t].q[3], 99u) << "even lanes onto itself, thread " << t;
  }
}

// A warp-uniform shift count (an immediate's constant row, or a uniform register) takes one vector
// shift; 32 and more give 0 (shl, shr.u) or the sign (shr.s), as per lane.
TEST(FuncFastPath, UniformShiftCountsGiveWhatPerLaneShiftsGive) {
  std::vector<Slot> in;
  for (uint32_t t = 0; t < 64; t++) {
    Slot s;
    s.set_u32(0, 0x9234567u * (t + 1) ^ (t & 1 ? 0x80000000u : 0));
    in.push_back(s);
  }
  for (uint32_t n : {0u, 1u, 17u, 31u, 32u, 33u, 0xffffffffu}) {
    std::string cnt = "mov.u32 %r3, " + std::to_string(n) + ";\n";
    auto out = run_lanes("ld.global.u32 %r2, [%rd4];\n" + cnt +
                             "shl.b32 %r5, %r2, %r3;\n shr.u32 %r6, %r2, %r3;\n shr.s32 %r7, %r2, %r3;\n"
                             "st.global.u32 [%rd5], %r5;\n st.global.u32 [%rd5+4], %r6;\n st.global.u32 [%rd5+8], %r7;",
                         in);
    for (uint32_t t = 0; t < 64; t++) {
      uint32_t a = in[t].u32(0);
      EXPECT_EQ(out[t].u32(0), n >= 32 ? 0u : a << n) << "shl by " << n << ", thread " << t;
      EXPECT_EQ(out[t].u32(1), n >= 32 ? 0u : a >> n) << "shr.u32 by " << n << ", thread " << t;
      EXPECT_EQ(out[t].u32(2), (uint32_t)((int32_t)a >> (n >= 32 ? 31 : n))) << "shr.s32 by " << n << ", thread " << t;
    }
  }
}

// mul.wide.s32 and mad.wide.s32 come from unsigned products with a sign correction: every sign
// combination and the extremes, in full warps.
TEST(FuncFastPath, SignedWideMultipliesMatchTheHostsProducts) {
  const int32_t vals[] = {0, 1, -1, 2, -2, 0x7fffffff, (int32_t)0x80000000, 0x12345678, -0x12345678, 46341, -46341};
  std::vector<Slot> in;
  for (int32_t a : vals)
    for (int32_t b : vals) {
      Slot s;
      s.set_u32(0, (uint32_t)a);
      s.set_u32(1, (uint32_t)b);
      s.q[1] = 0x0123456789abcdefull;
      in.push_back(s);
    }
  while (in.size() % 32) in.push_back(in[in.size() % 7]);
  auto out = run_lanes("ld.global.u32 %r2, [%rd4];\n ld.global.u32 %r3, [%rd4+4];\n ld.global.u64 %rd6, [%rd4+8];\n"
                       "mul.wide.s32 %rd7, %r2, %r3;\n mad.wide.s32 %rd8, %r2, %r3, %rd6;\n"
                       "st.global.u64 [%rd5], %rd7;\n st.global.u64 [%rd5+8], %rd8;",
                       in);
  for (size_t i = 0; i < in.size(); i++) {
    int64_t p = (int64_t)(int32_t)in[i].u32(0) * (int32_t)in[i].u32(1);
    EXPECT_EQ(out[i].q[0], (uint64_t)p) << in[i].u32(0) << " * " << in[i].u32(1);
    EXPECT_EQ(out[i].q[1], (uint64_t)p + 0x0123456789abcdefull) << in[i].u32(0) << " * " << in[i].u32(1);
  }
}

}  // namespace
