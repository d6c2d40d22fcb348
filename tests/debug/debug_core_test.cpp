// The debugger's model core (models/debug) driven through its C API: scripted command lines in,
// the transcript out, on a functional engine running a small kernel (func_runner: functional
// mode) and on the SIMT harness with CA cores (per-warp mode at issue). Every stop, inspection and
// error message a session can produce, and that a debugged run computes and times exactly what
// an undebugged one does.
#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <string>
#include <vector>

extern "C" {
#include "debug.h"
#include "func_runner.h"
#include "simt_harness.h"
}

namespace {

// A kernel with everything a session looks at: parameters, special registers, a store to shared
// memory and a barrier, a branch that diverges in CTA 1's second warp (n = 100), a store to
// global memory, and .loc source lines of a file /src/demo.cu.
const char kPtx[] = R"(.version 7.5
.target sm_75
.address_size 64
.file 1 "/src/demo.cu"
.visible .entry demo(.param .u64 demo_out, .param .u32 demo_n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<5>;
  .shared .align 4 .b8 sbuf[256];
  .loc 1 5 0
  ld.param.u64 %rd1, [demo_out];
  ld.param.u32 %r1, [demo_n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  .loc 1 6 0
  mad.lo.s32 %r5, %r3, %r4, %r2;
  cvt.rn.f32.s32 %f1, %r5;
  shl.b32 %r6, %r2, 2;
  mov.u32 %r7, sbuf;
  add.s32 %r7, %r7, %r6;
  st.shared.f32 [%r7], %f1;
  bar.sync 0;
  .loc 1 7 0
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  .loc 1 8 0
  ld.shared.f32 %f2, [%r7];
  add.f32 %f3, %f2, %f2;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.s32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.f32 [%rd4], %f3;
DONE:
  .loc 1 10 0
  ret;
}
)";

// The PTX line of the first line of kPtx containing `text`.
uint32_t line_of(const char *text) {
  std::string s(kPtx);
  size_t at = s.find(text);
  EXPECT_NE(at, std::string::npos) << text;
  uint32_t line = 1;
  for (size_t i = 0; i < at; i++) line += s[i] == '\n';
  return line;
}

// Scripted input and the transcript.
struct Session {
  std::deque<std::string> input;
  std::string out;
  bool killed = false;
  std::string source_dir;  // non-empty: source files exist only there (demo.cu), not at /src
  bool interrupt_on_continue = false;  // a Ctrl-C as soon as the debugger says "Continuing."
  dbg *d = nullptr;

  explicit Session(std::vector<std::string> lines) : input(lines.begin(), lines.end()) {
    dbg_ports p{};
    p.ctx = this;
    p.read_line = [](void *ctx, const char *, char *buf, size_t size) {
      auto *s = static_cast<Session *>(ctx);
      if (s->input.empty()) return false;
      snprintf(buf, size, "%s", s->input.front().c_str());
      s->input.pop_front();
      return true;
    };
    p.write = [](void *ctx, const char *text, size_t len) {
      auto *s = static_cast<Session *>(ctx);
      s->out.append(text, len);
      if (s->interrupt_on_continue && std::string(text, len).find("Continuing.") != std::string::npos) {
        s->interrupt_on_continue = false;
        dbg_interrupt(s->d);
      }
    };
    p.demangle = [](void *, const char *name, char *buf, size_t size) {
      if (std::strcmp(name, "demo") != 0) return false;
      snprintf(buf, size, "demo(float*, int)");  // as if it were a C++ kernel
      return true;
    };
    p.source_line = [](void *ctx, const char *path, uint32_t line, char *buf, size_t size) {
      const std::string &dir = static_cast<Session *>(ctx)->source_dir;
      if ((dir.empty() ? std::string("/src/demo.cu") : dir + "/demo.cu") != path || line < 5 || line > 10) return false;
      snprintf(buf, size, "source line %u", line);
      return true;
    };
    p.kill = [](void *ctx) { static_cast<Session *>(ctx)->killed = true; };
    dbg_config c{};
    c.echo = true;
    c.program = "demo";
    simtvp_diag diag;
    d = dbg_create(&c, &p, &diag);
  }
  ~Session() { dbg_destroy(d); }
  bool has(const std::string &s) const { return out.find(s) != std::string::npos; }
  size_t count(const std::string &s) const {
    size_t n = 0;
    for (size_t at = out.find(s); at != std::string::npos; at = out.find(s, at + 1)) n++;
    return n;
  }
};

constexpr int kN = 100;

// Runs demo (grid 2, block 64, n = 100) on the functional runner with the session attached
// (nullptr: without a debugger); returns the output buffer.
std::vector<float> run_functional(Session *s, func_launch_counts *counts = nullptr) {
  func_runner_config rc{};
  if (s) rc.debug = dbg_func_port(s->d);
  simtvp_diag diag;
  func_runner *r = func_runner_create(&rc, &diag);
  EXPECT_NE(r, nullptr);
  EXPECT_EQ(func_runner_load_ptx(r, kPtx, sizeof kPtx - 1, "demo.ptx", &diag), SIMTVP_OK) << diag.message;
  uint64_t out;
  EXPECT_EQ(func_runner_alloc(r, 128 * 4, &out, &diag), SIMTVP_OK);
  EXPECT_EQ(func_runner_memset(r, out, 0, 128 * 4, &diag), SIMTVP_OK);
  int n = kN;
  const void *args[] = {&out, &n};
  uint32_t grid[3] = {2, 1, 1}, block[3] = {64, 1, 1};
  if (s) dbg_start(s->d);
  EXPECT_EQ(func_runner_launch(r, "demo", grid, block, 0, args, &diag), SIMTVP_OK) << diag.message;
  std::vector<float> v(128);
  func_runner_read(r, out, v.data(), 128 * 4, &diag);
  if (counts) func_runner_last_counts(r, counts);
  if (s) dbg_finish(s->d);
  func_runner_destroy(r);
  return v;
}

void expect_results(const std::vector<float> &v) {
  for (int i = 0; i < 128; i++) EXPECT_EQ(v[i], i < kN ? 2.0f * i : 0.0f) << i;
}

TEST(DebugCore, KernelBreakpointStopsBeforeTheFirstInstruction) {
  Session s({"break kernel demo", "continue", "where", "continue"});
  expect_results(run_functional(&s));
  EXPECT_TRUE(s.has("Breakpoint 1: kernel demo\n")) << s.out;
  EXPECT_TRUE(s.has("\nBreakpoint 1, kernel 1 demo(float*, int), grid (2,1,1), block (64,1,1)\n")) << s.out;
  EXPECT_TRUE(s.has("[kernel 1 demo(float*, int), CTA (0,0,0), warp 0, thread (0,0,0), lane 0, SM 0]\n")) << s.out;
  std::string first = "=> pc 0  ptx:" + std::to_string(line_of("ld.param.u64")) + "  demo.cu:5   ld.param.u64";
  EXPECT_TRUE(s.has(first)) << s.out;
  EXPECT_TRUE(s.has("       5\tsource line 5\n")) << s.out;  // the source text under it
  EXPECT_TRUE(s.has("#0  pc 0 in demo(float*, int)  ptx:" + std::to_string(line_of("ld.param.u64")) +
                    "  demo.cu:5  (module demo.ptx)\n"))
      << s.out;
  EXPECT_EQ(s.count("\nBreakpoint 1,"), 1u) << s.out;  // once per launch
  EXPECT_TRUE(s.has("[the program is done with the GPU: 1 kernel launch]")) << s.out;
}

TEST(DebugCore, KernelBreakpointMatchesMangledDemangledAndLaunchNumber) {
  for (const char *spec : {"demo", "demo(float*, int)", "1"}) {
    Session s({std::string("break kernel ") + spec, "continue", "continue"});
    run_functional(&s);
    EXPECT_TRUE(s.has("\nBreakpoint 1, kernel 1 demo(float*, int)")) << spec << "\n" << s.out;
  }
  Session s({"break kernel 2", "break kernel other", "continue"});
  run_functional(&s);
  EXPECT_FALSE(s.has("\nBreakpoint 1,")) << s.out;
  EXPECT_FALSE(s.has("\nBreakpoint 2,")) << s.out;
}

TEST(DebugCore, PtxLineBreakpointWithCtaAndThreadFiltersStopsOnceInThatThread) {
  uint32_t st = line_of("st.global.f32");
  Session s({"break " + std::to_string(st) + " cta 1,0,0 thread 5,0,0", "continue", "print %f3", "print %r5",
             "print %tid", "print %ctaid.x", "print/x %r5", "info breakpoints", "continue"});
  expect_results(run_functional(&s));
  EXPECT_TRUE(s.has("Breakpoint 1: PTX line " + std::to_string(st) + " cta (1,0,0) thread (5,0,0)")) << s.out;
  EXPECT_EQ(s.count("\nBreakpoint 1, "), 1u) << s.out;
  EXPECT_TRUE(s.has("\nBreakpoint 1, demo.cu:8, ptx:" + std::to_string(st) + "\n")) << s.out;
  EXPECT_TRUE(s.has("CTA (1,0,0), warp 0, thread (5,0,0), lane 5, SM 0]")) << s.out;  // the runner has one SM
  // thread 69's value: 2 * 69 = 138, still in %f3 before the store
  EXPECT_TRUE(s.has("%f3 = 0x430a0000         138\n")) << s.out;
  EXPECT_TRUE(s.has("%r5 = 0x00000045         69\n")) << s.out;
  EXPECT_TRUE(s.has("%tid = (5,0,0)\n")) << s.out;
  EXPECT_TRUE(s.has("%ctaid.x = 1 (0x1)\n")) << s.out;
  EXPECT_TRUE(s.has("%r5 = 0x00000045\n")) << s.out;
  EXPECT_TRUE(s.has("1    ptx line     y   1     line")) << s.out;
}

TEST(DebugCore, PtxLineBreakpointInANamedModuleOnly) {
  uint32_t st = line_of("st.global.f32");
  Session s({"break other.ptx:" + std::to_string(st), "break demo.ptx:" + std::to_string(st) + " thread 1,0,0",
             "continue", "continue"});
  expect_results(run_functional(&s));
  EXPECT_EQ(s.count("\nBreakpoint 1, "), 0u) << s.out;
  EXPECT_EQ(s.count("\nBreakpoint 2, "), 2u) << s.out;  // thread 1 of each CTA
}

// `break *PC`: every execution of one instruction (pc 14, the ld.shared of line 8), here filtered
// to CTA 0, whose two warps both reach it; a pc that no instruction has stays pending.
TEST(DebugCore, PcBreakpointStopsAtEveryExecutionOfTheInstruction) {
  Session s({"break *14 cta 0,0,0", "break *999", "break *", "continue", "info breakpoints", "continue", "continue"});
  expect_results(run_functional(&s));
  uint32_t ld = line_of("ld.shared.f32");
  EXPECT_TRUE(s.has("(simtvp-dbg) break *14 cta 0,0,0\nBreakpoint 1: pc 14 cta (0,0,0)\n")) << s.out;
  EXPECT_TRUE(s.has("(simtvp-dbg) break *999\nBreakpoint 2: pc 999\n")) << s.out;
  EXPECT_TRUE(s.has("(simtvp-dbg) break *\nbreak: '*' needs a pc: break *PC")) << s.out;
  EXPECT_EQ(s.count("\nBreakpoint 1, demo.cu:8, ptx:" + std::to_string(ld) + "\n"), 2u) << s.out;
  EXPECT_TRUE(s.has("CTA (0,0,0), warp 0, thread (0,0,0), lane 0, SM 0]\n=> pc 14  ptx:")) << s.out;
  EXPECT_TRUE(s.has("CTA (0,0,0), warp 1, thread (32,0,0), lane 0, SM 0]\n=> pc 14  ptx:")) << s.out;
  EXPECT_TRUE(s.has("1    pc           y   1     pc 14 cta (0,0,0)\n2    pc           y   0     pc 999\n")) << s.out;
}

TEST(DebugCore, SourceLineBreakpointStopsOncePerWarpThatReachesIt) {
  // line 8 is reached by CTA 0's two warps and CTA 1's two (its second warp with lanes 0-3 only)
  Session s({"break demo.cu:8", "continue", "continue", "continue", "continue", "info stack", "info predicates",
             "print %p1[*]", "continue"});
  expect_results(run_functional(&s));
  EXPECT_TRUE(s.has("Breakpoint 1: source line demo.cu:8\n")) << s.out;
  EXPECT_EQ(s.count("\nBreakpoint 1, demo.cu:8, ptx:" + std::to_string(line_of("ld.shared.f32")) + "\n"), 4u)
      << s.out;
  EXPECT_TRUE(s.has("CTA (1,0,0), warp 1, thread (32,0,0), lane 0, SM 0]")) << s.out;
  // the divergent branch: lanes 4-31 jumped to the reconvergence point itself, so only the
  // not-taken path is pushed (GPGPU-Sim's rule); the bottom entry waits there with every lane
  EXPECT_TRUE(s.has("SIMT stack of warp 1 of CTA (1,0,0), 2 entries, top first:\n")) << s.out;
  EXPECT_TRUE(s.has("  #1  pc 14 (line " + std::to_string(line_of("ld.shared.f32")) + ")  reconverge at pc 20 (line " +
                    std::to_string(line_of("ret;")) + ")  lanes 0x0000000f\n"))
      << s.out;
  EXPECT_TRUE(s.has("  #0  pc 20 (line " + std::to_string(line_of("ret;")) +
                    ")  reconverge at function exit  lanes 0xffffffff\n"))
      << s.out;
  EXPECT_TRUE(s.has("  [ 3]* 0  ")) << s.out;
  EXPECT_TRUE(s.has("  [ 4]  1  ")) << s.out;
  EXPECT_TRUE(s.has("%p1      0   (lanes 0xfffffff0)\n")) << s.out;
}

TEST(DebugCore, StepRunsTheFocusWarpInstructionByInstruction) {
  Session s({"break kernel demo", "continue", "step", "step 3", "print $pc", "continue"});
  expect_results(run_functional(&s));
  EXPECT_TRUE(s.has("(simtvp-dbg) step\n=> pc 1  ptx:" + std::to_string(line_of("ld.param.u32")))) << s.out;
  EXPECT_TRUE(s.has("(simtvp-dbg) step 3\n=> pc 4  ptx:" + std::to_string(line_of("mov.u32 %r4")))) << s.out;
  EXPECT_TRUE(s.has("$pc = 4 (0x4)\n")) << s.out;
}

TEST(DebugCore, StepToTheWarpsExitSaysSoAndRunsOn) {
  Session s({"break " + std::to_string(line_of("ret;")) + " cta 1,0,0", "continue", "step", "continue"});
  expect_results(run_functional(&s));
  EXPECT_TRUE(s.has("[warp 0 of CTA (1,0,0) exited; continuing]\n")) << s.out;
}

TEST(DebugCore, WatchpointNamesTheWriterAndOldAndNewValues) {
  // thread 70 (CTA 1, thread 6) writes out[70] = 140
  Session s({"break kernel demo", "continue", "watch/f $param0+4*70", "continue", "print %r5", "info breakpoints",
             "continue"});
  expect_results(run_functional(&s));
  EXPECT_TRUE(s.has(", now 0\n")) << s.out;
  EXPECT_TRUE(s.has(" (4 bytes) written by kernel 1 demo(float*, int), CTA (1,0,0), warp 0, thread (6,0,0), SM 0\n"))
      << s.out;
  EXPECT_TRUE(s.has("  at pc " )) << s.out;
  EXPECT_TRUE(s.has("Old value = 0\nNew value = 140\n")) << s.out;
  EXPECT_TRUE(s.has("%r5 = 0x00000046         70\n")) << s.out;  // the focus is the writing thread
  EXPECT_EQ(s.count(" written by "), 1u) << s.out;
  EXPECT_TRUE(s.has("2    watchpoint   y   1     0x")) << s.out;
}

TEST(DebugCore, WatchpointStopsOnAWriteOfTheSameValue) {
  // thread 0 writes out[0] = 2 * 0 = 0 over the 0 already there
  Session s({"break kernel demo", "continue", "watch $param0", "continue", "continue"});
  expect_results(run_functional(&s));
  EXPECT_TRUE(s.has("CTA (0,0,0), warp 0, thread (0,0,0), SM 0\n")) << s.out;
  EXPECT_TRUE(s.has("Old value = 0x00000000\nNew value = 0x00000000\n")) << s.out;
}

TEST(DebugCore, MemoryIsShownTypedInEverySpace) {
  uint32_t ld = line_of("ld.shared.f32");
  Session s({"break " + std::to_string(ld) + " cta 0,0,0", "continue", "x/4fw shared 0", "x/2dw shared 4",
             "x/4xb shared 4", "x/1xg param 0", "x/1dw param 8", "x/2ug param 0", "x/1dw $param0", "x/fw 0x7ff000000008", "info params",
             "x/2xw local 0", "continue"});
  expect_results(run_functional(&s));
  EXPECT_TRUE(s.has("shared 0x0:  0  1  2  3\n")) << s.out;
  EXPECT_TRUE(s.has("shared 0x4:  1065353216  1073741824\n")) << s.out;
  EXPECT_TRUE(s.has("shared 0x4:  0x00  0x00  0x80  0x3f\n")) << s.out;
  EXPECT_TRUE(s.has("param 0x0:  0x0000000")) << s.out;
  EXPECT_TRUE(s.has("param 0x8:  100\n")) << s.out;
  EXPECT_TRUE(s.has("Cannot read 16 bytes of param memory at 0x0 (outside it or not mapped).\n")) << s.out;
  EXPECT_TRUE(s.has("shared 0x8:  2\n")) << s.out;  // a generic shared-window address
  EXPECT_TRUE(s.has("  $param0   demo_out = 0x")) << s.out;
  EXPECT_TRUE(s.has("  $param1   demo_n = 0x00000064  100  (4 bytes)\n")) << s.out;
  EXPECT_TRUE(s.has("local 0x0:  0x00000000  0x00000000\n")) << s.out;
}

TEST(DebugCore, RegistersPredicatesWarpsCtasKernelsAndListing) {
  uint32_t ld = line_of("ld.shared.f32");
  Session s({"break " + std::to_string(ld) + " cta 0,0,0 thread 33,0,0", "continue", "info registers",
             "info predicates", "info warps", "info ctas", "info kernels", "list", "list", "list 18",
             "print %f1[*]", "print %f1[40]", "warp 0", "lane 7", "print %r2", "thread 2,0,0", "print %r2",
             "info focus", "continue"});
  expect_results(run_functional(&s));
  EXPECT_TRUE(s.has("registers of demo, thread (33,0,0) (lane 1):\n")) << s.out;
  EXPECT_TRUE(s.has("  %r2      0x00000021         33\n")) << s.out;
  EXPECT_TRUE(s.has("  %f1      0x42040000         33\n")) << s.out;
  EXPECT_TRUE(s.has("  %rd1     0x")) << s.out;
  EXPECT_TRUE(s.has("  %p1      0   (lanes 0x00000000)\n")) << s.out;
  // functional mode runs a warp until it blocks: warp 0 is through by the time warp 1 gets here
  EXPECT_TRUE(s.has("  0    exited    \n")) << s.out;
  EXPECT_TRUE(s.has("* 1    ready      pc 14    line " + std::to_string(ld) + "    lanes 0xffffffff\n")) << s.out;
  EXPECT_TRUE(s.has("* CTA (0,0,0)  kernel 1 demo(float*, int)  SM 0  warps 2 (1 not exited)\n")) << s.out;
  EXPECT_TRUE(s.has("* kernel 1 demo(float*, int)  grid (2,1,1)  block (64,1,1)  1 CTA running  (module demo.ptx)\n"))
      << s.out;
  EXPECT_TRUE(s.has("=> pc 14  ptx:" + std::to_string(ld))) << s.out;
  EXPECT_TRUE(s.has("(simtvp-dbg) list\n   pc 20  ptx:" + std::to_string(line_of("ret;")))) << s.out;  // continued
  EXPECT_TRUE(s.has("%f1, lanes 0-31 (* = active at pc 14):\n  [ 0]* 32")) << s.out;
  EXPECT_TRUE(s.has("Bad lane '40': expected [0..31] or [*].\n")) << s.out;
  EXPECT_TRUE(s.has("%r2 = 0x00000007         7\n")) << s.out;
  EXPECT_TRUE(s.has("%r2 = 0x00000002         2\n")) << s.out;
}

// `list` around a PTX line, a source line and a pc; source text appears once `directory` names
// where the file is (the PTX names /src/demo.cu, which does not exist here).
TEST(DebugCore, ListPlacesAndSourceDirectories) {
  Session s({"break kernel demo", "continue", "directory", "list demo.cu:8", "directory /elsewhere", "directory",
             "list demo.cu:8", "list *3", "list " + std::to_string(line_of("ret;")), "list demo.cu:99",
             "list *999", "list foo bar", "continue"});
  s.source_dir = "/elsewhere";
  expect_results(run_functional(&s));
  uint32_t ld = line_of("ld.shared.f32");
  EXPECT_TRUE(s.has("(simtvp-dbg) directory\nSource files are looked up as named in the PTX, then in the working "
                    "directory.\n")) << s.out;
  // before `directory`: the source line's place, not its text
  EXPECT_TRUE(s.has("(simtvp-dbg) list demo.cu:8\n")) << s.out;
  size_t first = s.out.find("(simtvp-dbg) list demo.cu:8\n"), dir = s.out.find("(simtvp-dbg) directory /elsewhere");
  ASSERT_LT(first, dir);
  EXPECT_EQ(s.out.substr(first, dir - first).find("source line 8"), std::string::npos) << s.out;
  EXPECT_TRUE(s.has("(simtvp-dbg) directory /elsewhere\nSource files are looked up in /elsewhere too.\n")) << s.out;
  EXPECT_TRUE(s.has("(simtvp-dbg) directory\n/elsewhere\n")) << s.out;
  // after it: pc 14 (the line's first instruction) in the middle of ten, with the text
  std::string after = s.out.substr(dir);
  EXPECT_NE(after.find("   pc 14  ptx:" + std::to_string(ld) + "  demo.cu:8   ld.shared.f32 %f2, [%r7];\n"
                       "       8\tsource line 8\n"), std::string::npos) << s.out;
  EXPECT_NE(after.find("(simtvp-dbg) list *3\n=> pc 0  ptx:"), std::string::npos) << s.out;  // focus pc marked
  EXPECT_NE(after.find("   pc 20  ptx:" + std::to_string(line_of("ret;")) + "  demo.cu:10   ret;\n"), std::string::npos)
      << s.out;
  EXPECT_NE(after.find("(simtvp-dbg) list demo.cu:99\nNo instruction at demo.cu:99 in kernel 1's module.\n"),
            std::string::npos) << s.out;
  EXPECT_NE(after.find("(simtvp-dbg) list *999\npc 999 is outside the module (21 instructions).\n"),
            std::string::npos) << s.out;
  EXPECT_NE(after.find("(simtvp-dbg) list foo bar\nlist: expected LINE, FILE:LINE or *PC.\n"), std::string::npos)
      << s.out;
}

TEST(DebugCore, CtaAndThreadBreakpointsStopWhenTheyStart) {
  Session s({"break cta 1,0,0", "break thread 40,0,0 cta 0,0,0", "continue", "continue", "continue"});
  expect_results(run_functional(&s));
  EXPECT_TRUE(s.has("\nBreakpoint 2, thread (40,0,0) of CTA (0,0,0) starts\n")) << s.out;
  EXPECT_TRUE(s.has("thread (40,0,0), lane 8, SM 0]")) << s.out;
  EXPECT_TRUE(s.has("\nBreakpoint 1, CTA (1,0,0) starts\n")) << s.out;
  EXPECT_LT(s.out.find("Breakpoint 2, thread"), s.out.find("Breakpoint 1, CTA")) << s.out;
}

TEST(DebugCore, DeleteDisableAndEnableChangeWhatStops) {
  uint32_t ld = line_of("ld.shared.f32");
  Session s({"break " + std::to_string(ld), "break kernel demo", "disable 1", "continue", "enable 1", "delete 2",
             "continue", "delete", "continue"});
  expect_results(run_functional(&s));
  EXPECT_EQ(s.count("\nBreakpoint 2, kernel"), 1u) << s.out;
  EXPECT_EQ(s.count("\nBreakpoint 1, "), 1u) << s.out;
  EXPECT_TRUE(s.has("Deleted every breakpoint and watchpoint.\n")) << s.out;
}

TEST(DebugCore, MistakesGetMessagesAndChangeNothing) {
  Session s({"frobnicate", "break", "break -3", "break demo.cu:0", "break 12 cta 1,x", "break 12 warp 3",
             "break kernel demo cta 1", "watch", "watch $param0 3", "step", "print %r1", "x/4fw 0x1000",
             "x/0xw 0", "x/4q 0", "delete 99", "disable x", "info", "info bogus", "list",
             "break kernel demo", "continue", "print %nosuch", "print $param9", "print 1 +", "print (2",
             "x/4fw 0x10", "watch 0x7ff000000000", "x/4xw shared 0x100000", "x/2xw local 0xfffffff",
             "cta 9,9,9", "warp 7", "lane 40", "thread 100", "list 99999", "step 0", "print %r1[x]",
             "continue"});
  expect_results(run_functional(&s));
  for (const char *m : {"Unknown command 'frobnicate'. Try `help`.",
                        "break: where?",
                        "break: '-3' is not a place",
                        "break: line numbers start at 1.",
                        "Bad coordinates '1,x': expected X[,Y[,Z]].",
                        "break: unexpected 'warp'",
                        "break kernel: stops at the kernel's first instruction",
                        "watch: which address?",
                        "watch: 3 bytes: a watchpoint covers 1, 2, 4 or 8 bytes.",
                        "No warp to step: no kernel is running",
                        "'%r1' needs a warp in focus",
                        "No device memory yet: the program has launched no kernel.",
                        "Bad count in '/0xw' (1..4096).",
                        "Bad format '/4q': formats x d u c f, sizes b h w g.",
                        "delete: no breakpoint number 99.",
                        "disable: 'x' is not a breakpoint number",
                        "info what?",
                        "info: unknown subject 'bogus'",
                        "No kernel is running.",
                        "No register '%nosuch' in the focus warp's function.",
                        "No kernel parameter '$param9'",
                        "Expected a number, register or parameter at ''.",
                        "Missing ')' in '(2'.",
                        "Cannot read 16 bytes of global memory at 0x10 (outside it or not mapped).",
                        "watch: 0x7ff000000000 is a shared, local or parameter address",
                        "Cannot read 16 bytes of shared memory at 0x100000",
                        "Cannot read 8 bytes of local memory at 0xfffffff",
                        "CTA (9,9,9) is not running",
                        "warp: the CTA has warps 0..1.",
                        "lane: lane 40 does not exist",
                        "thread (100,0,0) is outside the block (64,1,1).",
                        "No instruction at 99999",
                        "step: expected a positive count.",
                        "Bad lane 'x': expected [0..31] or [*]."})
    EXPECT_TRUE(s.has(m)) << m << "\n" << s.out;
}

TEST(DebugCore, EndOfInputDetachesAndTheKernelFinishes) {
  Session s({"break kernel demo", "continue"});
  expect_results(run_functional(&s));
  EXPECT_TRUE(s.has("[end of debugger input: the program runs on without the debugger]\n")) << s.out;
  EXPECT_FALSE(dbg_attached(s.d));
}

TEST(DebugCore, DetachAndKill) {
  Session a({"break demo.cu:8", "continue", "detach"});
  expect_results(run_functional(&a));
  EXPECT_EQ(a.count("\nBreakpoint 1, "), 1u) << a.out;
  EXPECT_TRUE(a.has("Detached: the program runs on without the debugger.\n")) << a.out;
  Session k({"break kernel demo", "continue", "kill"});
  run_functional(&k);
  EXPECT_TRUE(k.killed);
  EXPECT_TRUE(k.has("Ending the program.\n")) << k.out;
}

TEST(DebugCore, InterruptStopsAtTheNextInstruction) {
  Session s({"continue", "where", "continue"});
  s.interrupt_on_continue = true;
  expect_results(run_functional(&s));
  EXPECT_TRUE(s.has("\nInterrupted.\n[kernel 1 demo(float*, int), CTA (0,0,0), warp 0")) << s.out;
  // one typed at the prompt cancels only the line being typed: the next continue runs on
  Session p({"continue"});
  dbg_interrupt(p.d);
  expect_results(run_functional(&p));
  EXPECT_FALSE(p.has("Interrupted.")) << p.out;
}

TEST(DebugCore, HelpListsTheCommands) {
  Session s({"help", "continue"});
  run_functional(&s);
  for (const char *c : {"break kernel NAME|N", "watch[/FMT]", "step [N]", "x/NFU", "info registers", "list"})
    EXPECT_TRUE(s.has(c)) << c;
}

TEST(DebugCore, ADebuggedRunComputesAndCountsWhatAPlainRunDoes) {
  func_launch_counts plain, debugged;
  expect_results(run_functional(nullptr, &plain));
  Session s({"break demo.cu:8", "watch $param0+8", "continue", "step 2", "continue", "continue"});
  expect_results(run_functional(&s, &debugged));
  EXPECT_EQ(plain.warp_insns, debugged.warp_insns);
  EXPECT_EQ(plain.thread_insns, debugged.thread_insns);
  EXPECT_EQ(std::memcmp(plain.loads, debugged.loads, sizeof plain.loads), 0);
  EXPECT_EQ(std::memcmp(plain.stores, debugged.stores, sizeof plain.stores), 0);
}

TEST(DebugCore, FaultStopsWithTheReport) {
  // out points nowhere: the store faults; the debugger stops at the faulting warp
  Session s({"continue", "print %r5", "print $pc", "where", "list", "info warps", "continue"});
  func_runner_config rc{};
  rc.debug = dbg_func_port(s.d);
  simtvp_diag diag;
  func_runner *r = func_runner_create(&rc, &diag);
  ASSERT_EQ(func_runner_load_ptx(r, kPtx, sizeof kPtx - 1, "demo.ptx", &diag), SIMTVP_OK);
  uint64_t out = 0x10;
  int n = kN;
  const void *args[] = {&out, &n};
  uint32_t grid[3] = {2, 1, 1}, block[3] = {64, 1, 1};
  dbg_start(s.d);
  EXPECT_EQ(func_runner_launch(r, "demo", grid, block, 0, args, &diag), SIMTVP_ERR_FAULT);
  func_runner_destroy(r);
  EXPECT_TRUE(s.has("\nKernel fault: ")) << s.out;
  // the faulting instruction (the st.global at pc 19), not the one after it, everywhere
  std::string st = "pc 19  ptx:" + std::to_string(line_of("st.global.f32"));
  EXPECT_TRUE(s.has("]\n!! " + st + "  demo.cu:8   st.global.f32 [%rd4], %f3;\n")) << s.out;
  EXPECT_TRUE(s.has("%r5 = 0x00000000         0\n")) << s.out;
  EXPECT_TRUE(s.has("(simtvp-dbg) print $pc\n$pc = 19")) << s.out;
  EXPECT_TRUE(s.has("(simtvp-dbg) where\n#0  pc 19 in demo(float*, int)  ptx:" + std::to_string(line_of("st.global.f32"))))
      << s.out;
  EXPECT_TRUE(s.has("\n!! " + st + "  demo.cu:8   st.global.f32 [%rd4], %f3;\n   pc 20")) << s.out;  // list
  EXPECT_TRUE(s.has("* 0    faulted    pc 19 ")) << s.out;
}

TEST(DebugCore, RequiredPortsAreChecked) {
  dbg_ports p{};
  simtvp_diag diag;
  EXPECT_EQ(dbg_create(nullptr, &p, &diag), nullptr);
  EXPECT_EQ(diag.status, SIMTVP_ERR_ARG);
  EXPECT_NE(std::string(diag.message).find("read_line and write"), std::string::npos);
}

// ---- timing mode: CA cores execute instructions at issue --------------------------------------------------

struct CaRun {
  uint64_t cycles = 0;
  std::vector<float> out;
};

CaRun run_ca(Session *s) {
  const char *args[] = {"-gpgpu_n_clusters", "2", "-simt_model", "ca"};
  sh_options o{};
  o.args = args;
  o.n_args = 4;
  o.quiet = true;
  if (s) o.debug = dbg_func_port(s->d);
  simt_harness *h = nullptr;
  simtvp_diag diag;
  EXPECT_EQ(sh_create(&o, &h, &diag), SIMTVP_OK) << diag.message;
  EXPECT_EQ(sh_load_ptx(h, kPtx, sizeof kPtx - 1, "demo.ptx", &diag), SIMTVP_OK) << diag.message;
  uint64_t out = sh_alloc(h, 128 * 4);
  std::vector<float> zero(128, 0.0f);
  sh_write(h, out, zero.data(), 128 * 4, &diag);
  int n = kN;
  const void *a[] = {&out, &n};
  uint32_t grid[3] = {2, 1, 1}, block[3] = {64, 1, 1};
  if (s) dbg_start(s->d);
  EXPECT_EQ(sh_launch(h, "demo", grid, block, 0, a, &diag), SIMTVP_OK) << diag.message;
  CaRun r;
  r.cycles = sh_last_cycles(h);
  r.out.resize(128);
  sh_read(h, out, r.out.data(), 128 * 4, &diag);
  sh_destroy(h);
  return r;
}

TEST(DebugCoreCa, StopsStepsAndWatchesWithoutChangingTheTiming) {
  CaRun plain = run_ca(nullptr);
  expect_results(plain.out);
  Session s({"break kernel demo", "continue", "watch/f $param0+4*3", "break demo.cu:8 cta 1,0,0", "continue",
             "info ctas", "cta 0,0,0", "print %ctaid.x", "cta 1,0,0", "print %ctaid.x", "step 2", "continue",
             "info warps all", "continue", "continue", "continue"});
  CaRun debugged = run_ca(&s);
  expect_results(debugged.out);
  // Both CTAs are resident at once on the two SMs, and nothing moved while the debugger held them.
  EXPECT_TRUE(s.has("CTA (0,0,0)  kernel 1 demo(float*, int)  SM 0  warps 2")) << s.out;
  EXPECT_TRUE(s.has("* CTA (1,0,0)  kernel 1 demo(float*, int)  SM ")) << s.out;
  EXPECT_TRUE(s.has("\nBreakpoint 3, demo.cu:8")) << s.out;
  // the focus moves to the other resident CTA and back
  EXPECT_TRUE(s.has("(simtvp-dbg) cta 0,0,0\n[kernel 1 demo(float*, int), CTA (0,0,0), warp ")) << s.out;
  EXPECT_TRUE(s.has("(simtvp-dbg) print %ctaid.x\n%ctaid.x = 0 (0x0)\n(simtvp-dbg) cta 1,0,0\n[kernel 1 demo(float*, int), "
                    "CTA (1,0,0), warp ")) << s.out;
  EXPECT_TRUE(s.has("(simtvp-dbg) print %ctaid.x\n%ctaid.x = 1 (0x1)\n")) << s.out;
  EXPECT_TRUE(s.has("thread (3,0,0), SM 0\n")) << s.out;
  EXPECT_TRUE(s.has("Old value = 0\nNew value = 6\n")) << s.out;
  EXPECT_EQ(plain.cycles, debugged.cycles);
}

}  // namespace
