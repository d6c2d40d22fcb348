// Per-instruction counts for PTX source-line statistics (func_config.pc_counts): per PTX line and
// per CUDA source line (.loc), warp and thread instructions, counted the same by functional mode
// on one or several host threads and by the per-warp interface timing models drive; nothing is
// counted or registered when it is off; stall cycles a timing model adds reach the statistics.
#include <cstring>
#include <sstream>

#include "func_test_util.h"
#include "ptx.h"
#include "stats.h"

using namespace functest;

namespace {

// Two warps per CTA (tid 0..63). Warp 0's lanes 0-15 take the branch to $low and run a 4-trip
// loop; warp 0's lanes 16-31 and all of warp 1 take the fall-through. Line 30 holds two
// instructions. .loc maps lines 21-24 to k.cu:5, 26-27 to k.cu:7, 30-34 to k.cu:9, 37-41 to k.cu:11.
const char *kLinesPtx = R"(.version 8.0
.target sm_80
.address_size 64
.file 1 "k.cu"

.visible .entry k(.param .u64 out)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  // lines 11-19: comments
  //
  //
  //
  //
  //
  //
  //
  //
  .loc 1 5 0
  mov.u32 %r1, %tid.x;
  ld.param.u64 %rd1, [out];
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra $low;
  .loc 1 7 0
  add.u32 %r2, %r1, 100;
  bra $done;
$low:
  .loc 1 9 0
  mov.u32 %r2, 0; mov.u32 %r6, 0;
$loop:
  add.u32 %r2, %r2, %r1;
  add.u32 %r6, %r6, 1;
  setp.lt.u32 %p2, %r6, 4;
  @%p2 bra $loop;
$done:
  .loc 1 11 0
  mov.u32 %r3, %ctaid.x;
  mad.lo.u32 %r4, %r3, 64, %r1;
  mul.wide.u32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
)";

// Hand computation for 3 CTAs of 64 threads: 6 warps in all, warp 0 of each CTA splits 16/16.
//   lines 21-24 (k.cu:5):  every warp, 32 lanes: 6 warp insns, 192 thread insns each
//   lines 26-27 (k.cu:7):  warp 0 with 16 lanes, warp 1 with 32: 6 warp insns, 3 x 48 = 144
//   line 30 (2 insns):     warp 0's 16 lanes: 2 x 3 = 6 warp insns, 6 x 16 = 96
//   lines 32-35 (loop):    4 trips of warp 0's 16 lanes: 12 warp insns, 192 thread insns each
//   lines 38-43 (k.cu:11): every warp, reconverged: 6 warp insns, 192 each
// k.cu:5 = 4 lines x 6 = 24 warp, 768 thread; k.cu:7 = 12, 288; k.cu:9 = 6 + 4 x 12 = 54,
// 96 + 4 x 192 = 864; k.cu:11 = 6 x 6 = 36, 1152. Total 126 warp, 3072 thread instructions.
struct Want {
  uint32_t line;
  uint64_t warp, thread;
};
const Want kWantPtx[] = {{21, 6, 192}, {22, 6, 192}, {23, 6, 192}, {24, 6, 192}, {26, 6, 144},
                         {27, 6, 144}, {30, 6, 96},  {32, 12, 192}, {33, 12, 192}, {34, 12, 192},
                         {35, 12, 192}, {38, 6, 192}, {39, 6, 192}, {40, 6, 192}, {41, 6, 192},
                         {42, 6, 192}, {43, 6, 192}};
const Want kWantSource[] = {{5, 24, 768}, {7, 12, 288}, {9, 54, 864}, {11, 36, 1152}};

// The PTX line of the first line containing `text` (1-based), to keep the table above honest.
uint32_t line_of(const std::string &text) {
  std::istringstream in(kLinesPtx);
  std::string l;
  for (uint32_t n = 1; std::getline(in, l); n++)
    if (l.find(text) != std::string::npos) return n;
  return 0;
}

func_config counting(uint32_t threads = 1) {
  func_config c{};
  c.pc_counts = true;
  c.threads = threads;
  return c;
}

void expect_hand_counts(const stats *st, const char *file) {
  for (const Want &w : kWantPtx) {
    EXPECT_EQ(stats_code_line_get(st, file, w.line, STATS_CODE_WARP_INSN), w.warp) << "line " << w.line;
    EXPECT_EQ(stats_code_line_get(st, file, w.line, STATS_CODE_THREAD_INSN), w.thread) << "line " << w.line;
  }
  for (const Want &w : kWantSource) {
    EXPECT_EQ(stats_code_source_line_get(st, "k.cu", w.line, STATS_CODE_WARP_INSN), w.warp) << "k.cu:" << w.line;
    EXPECT_EQ(stats_code_source_line_get(st, "k.cu", w.line, STATS_CODE_THREAD_INSN), w.thread) << "k.cu:" << w.line;
  }
}

TEST(FuncLineStats, TheTableMatchesTheKernelText) {
  EXPECT_EQ(line_of("mov.u32 %r1, %tid.x"), 21u);
  EXPECT_EQ(line_of("add.u32 %r2, %r1, 100"), 26u);
  EXPECT_EQ(line_of("mov.u32 %r2, 0; mov.u32 %r6, 0"), 30u);
  EXPECT_EQ(line_of("add.u32 %r2, %r2, %r1"), 32u);
  EXPECT_EQ(line_of("@%p2 bra $loop"), 35u);
  EXPECT_EQ(line_of("mov.u32 %r3, %ctaid.x"), 38u);
  EXPECT_EQ(line_of("  ret;"), 43u);
}

TEST(FuncLineStats, FunctionalModeCountsEachPtxAndSourceLineByHand) {
  Gpu g(counting());
  ASSERT_EQ(g.load(kLinesPtx, "lines.ptx"), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(3 * 64 * 4);
  ASSERT_EQ(g.launch("k", 3, 64, {out}), SIMTVP_OK) << g.diag.message;
  const stats *st = func_runner_stats(g.r);
  expect_hand_counts(st, "lines.ptx");
  // The kernel's own profile (the runner brackets each launch as a kernel), and the invariant that
  // the lines add up to the engine's thread instructions.
  EXPECT_EQ(stats_code_kernel_line_get(st, 0, "lines.ptx", 32, STATS_CODE_WARP_INSN), 12u);
  int found = 0;
  EXPECT_EQ(stats_get(st, "func.thread_insn", &found), 3072u);
  EXPECT_EQ(stats_get(st, "func.warp_insn", &found), 126u);
  // Results are those of the kernel: thread 5 of CTA 1 summed its tid 4 times.
  std::vector<uint32_t> r = g.download<uint32_t>(out, 3 * 64);
  EXPECT_EQ(r[64 + 5], 20u);
  EXPECT_EQ(r[64 + 40], 140u);
}

TEST(FuncLineStats, SeveralHostThreadsCountTheSame) {
  Gpu g(counting(4));
  ASSERT_EQ(g.load(kLinesPtx, "lines.ptx"), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(3 * 64 * 4);
  ASSERT_EQ(g.launch("k", 3, 64, {out}), SIMTVP_OK) << g.diag.message;
  expect_hand_counts(func_runner_stats(g.r), "lines.ptx");
}

TEST(FuncLineStats, OffCountsNothingAndRegistersNothing) {
  Gpu g;
  ASSERT_EQ(g.load(kLinesPtx, "lines.ptx"), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(3 * 64 * 4);
  ASSERT_EQ(g.launch("k", 3, 64, {out}), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(stats_code_count(func_runner_stats(g.r)), 0u);
}

// The per-warp interface (what the timing cores drive) counts at each func_warp_step, and a timing
// model's stall cycles at an instruction reach the statistics with the launch.
TEST(FuncLineStats, PerWarpSteppingCountsTheSameAndCarriesStallCycles) {
  devmem *mem = devmem_create();
  stats *st = stats_create();
  simtvp_diag d{};
  func_config cfg = counting();
  func_engine *e = func_create(&cfg, nullptr, mem, st, &d);
  ASSERT_NE(e, nullptr) << d.message;
  ptx_module *m = ptx_parse(kLinesPtx, std::strlen(kLinesPtx), "step.ptx", nullptr, &d);
  ASSERT_NE(m, nullptr) << d.message;
  func_placement pl = {0, 0, nullptr, 0};
  func_program *p = nullptr;
  ASSERT_EQ(func_program_load(e, m, &pl, &p, &d), SIMTVP_OK) << d.message;
  EXPECT_EQ(stats_code_count(st), 1u);
  const uint64_t out = 0x100000000ull;
  ASSERT_EQ(devmem_map(mem, out, 4096, &d), SIMTVP_OK);
  uint32_t k = func_program_kernel(p, "k");
  func_launch_params lp = {k, {3, 1, 1}, {64, 1, 1}, 0, &out, 8, 1, {0, 0, 0}, 1};
  func_launch *l = nullptr;
  ASSERT_EQ(func_launch_create(e, p, &lp, &l, &d), SIMTVP_OK) << d.message;
  uint32_t n = 0;
  func_pc_count *pc = func_launch_pc_counts(l, &n);
  ASSERT_NE(pc, nullptr);
  EXPECT_EQ(n, m->n_insns);
  // CTAs one after another, warps interleaved one instruction at a time (warp 1 first).
  for (uint32_t c = 0; c < 3; c++) {
    uint32_t id[3] = {c, 0, 0};
    func_cta *cta = nullptr;
    ASSERT_EQ(func_cta_start(l, id, c, 0, &cta, &d), SIMTVP_OK) << d.message;
    while (!func_cta_done(cta))
      for (uint32_t wi = func_cta_warp_count(cta); wi-- > 0;) {
        func_warp *w = func_cta_warp(cta, wi);
        if (func_warp_get_state(w) == FUNC_WARP_READY) {
          ASSERT_EQ(func_warp_step(w, nullptr, &d), SIMTVP_OK) << d.message;
        }
      }
    func_cta_finish(cta);
  }
  // The loop's add (line 32) is one instruction index: 12 warp instructions of 16 lanes.
  uint32_t add_pc = UINT32_MAX;
  for (uint32_t i = 0; i < m->n_insns; i++)
    if (m->insns[i].ptx_line == 32) add_pc = i;
  ASSERT_NE(add_pc, UINT32_MAX);
  EXPECT_EQ(pc[add_pc].warp_insns, 12u);
  EXPECT_EQ(pc[add_pc].thread_insns, 192u);
  pc[add_pc].stall_cycles += 77;  // what a timing core would attribute
  func_launch_destroy(l);           // the counts go to the program's statistics
  expect_hand_counts(st, "step.ptx");
  EXPECT_EQ(stats_code_line_get(st, "step.ptx", 32, STATS_CODE_STALL_CYCLES), 77u);
  EXPECT_EQ(stats_code_source_line_get(st, "k.cu", 9, STATS_CODE_STALL_CYCLES), 77u);
  func_program_destroy(p);
  ptx_module_destroy(m);
  func_destroy(e);
  stats_destroy(st);
  devmem_destroy(mem);
}

}  // namespace
