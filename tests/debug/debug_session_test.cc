// Scripted `simtvp --debug` sessions on committed CUDA programs (tests/kernels/bin, and
// tests/debug/bin/vector_add_lineinfo: tests/kernels/vector_add.cu built with -lineinfo), in
// functional mode and on CA and AT cores: the transcript says what the session saw, in order;
// a debugged timing run gives the statistics an undebugged one does; mistakes in using it are
// reported.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

const std::string kSource = SIMTVP_SOURCE_DIR;
const std::string kKernels = kSource + "/tests/kernels";
const std::string kSessions = kSource + "/tests/debug/sessions";
const std::string kLineinfo = kSource + "/tests/debug/bin/vector_add_lineinfo";

struct result {
  int status;
  std::string out;  // stdout and stderr together
};

// Runs `simtvp ARGS` in tests/kernels (where the debugger finds vector_add.cu) with the sm_75
// configuration the committed programs are built for, and `env` before it.
result run(const std::string &args, const std::string &env = "") {
  std::string cmd = "cd '" + kKernels + "' && " + env + " SIMTVP_CONFIG='" + kSource +
                    "/configs/SM75_RTX2060.config' '" + SIMTVP_CLI + "' " + args + " 2>&1 </dev/null";
  result r{-1, ""};
  FILE *p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

bool has(const std::string &text, const std::string &what) { return text.find(what) != std::string::npos; }

// Each of `lines` appears in `out`, in this order.
void expect_in_order(const std::string &out, const std::vector<std::string> &lines) {
  size_t at = 0;
  for (const std::string &l : lines) {
    size_t f = out.find(l, at);
    ASSERT_NE(f, std::string::npos) << "missing (in this order): " << l << "\n--- transcript ---\n" << out;
    at = f + l.size();
  }
}

// Functional mode (CTAs through the per-warp interface, and whole kernels on four host threads,
// which a debugger turns into one), CA cores, AT cores.
const char *const kModes[][2] = {{"func", "-simt_model=func"},
                                 {"func, 4 threads", "-simt_model=func --set -func_threads=4"},
                                 {"ca", "-simt_model=ca"},
                                 {"ca, -sim_threads 2 (one with a debugger)", "-simt_model=ca --set -sim_threads=2"},
                                 {"at", "-simt_model=at"}};

// The source-level session of sessions/vector_add_source.gdb; the same stops and values on every
// SIMT model (only the simulated time differs).
TEST(DebugSession, SourceLineBreakpointsStepsAndAWatchpointOnEveryModel) {
  for (const auto &m : kModes) {
    SCOPED_TRACE(m[0]);
    result r = run(std::string("-q --set ") + m[1] + " --debug-script " + kSessions + "/vector_add_source.gdb '" +
                   kLineinfo + "' 1024");
    EXPECT_EQ(r.status, 0) << r.out;
    expect_in_order(r.out, {
        "simtvp debugger on vector_add_lineinfo: set breakpoints and watchpoints, then `continue`",
        "(simtvp-dbg) break vector_add.cu:7 cta 2,0,0 thread 5,0,0\n",
        "Breakpoint 1: source line vector_add.cu:7 cta (2,0,0) thread (5,0,0)\n",
        "(simtvp-dbg) continue\nContinuing.\n",
        "\nBreakpoint 1, vector_add.cu:7, ptx:51\n",
        "[kernel 1 vector_add(float const*, float const*, float*, int), CTA (2,0,0), warp 0, thread (5,0,0), lane 5, SM ",
        "=> pc 15  ptx:51  vector_add.cu:7   mul.wide.s32 %rd7, %r10, 4;\n",
        "       7\t    c[i] = a[i] + b[i];\n",
        "(simtvp-dbg) where\n#0  pc 15 in vector_add(float const*, float const*, float*, int)  ptx:51  vector_add.cu:7  (module ",
        "(simtvp-dbg) list\n   pc 11  ptx:43  vector_add.cu:6   mul.lo.s32 %r3, %r9, %r1;\n",
        "       6\t  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n",
        "=> pc 15  ptx:51  vector_add.cu:7",
        "(simtvp-dbg) print %r10\n%r10 = 0x00000105         261\n",  // i = 2 * 128 + 5
        "(simtvp-dbg) print %tid\n%tid = (5,0,0)\n",
        "  $param3   _Z10vector_addPKfS0_Pfi_param_3 = 0x00000400  1024  (4 bytes)\n",
        "(simtvp-dbg) step 4\n=> pc 19  ptx:55  vector_add.cu:7   ld.global.f32 %f2, [%rd8];\n",
        "(simtvp-dbg) print %f1\n%f1 = 0x423d4a70         47.3226929\n",  // b[261]
        "(simtvp-dbg) watch/f $param2+4*300\nWatchpoint 2: 0x",
        " (4 bytes), now 0\n",
        "(simtvp-dbg) delete 1\nDeleted 1.\n",
        "\nWatchpoint 2: 0x",
        " (4 bytes) written by kernel 1 vector_add(float const*, float const*, float*, int), CTA (2,0,0), warp 1, "
        "thread (44,0,0), SM ",
        "  at pc 22  ptx:58  vector_add.cu:7   st.global.f32 [%rd10], %f3;\n",
        "Old value = 0\nNew value = -55.7373123\n",
        "=> pc 23  ptx:60  vector_add.cu:6   add.s32 %r10, %r10, %r3;\n",
        "(simtvp-dbg) x/4fw $param2+4*299\n0x",
        ":  -114.436005  -55.7373123  150.188339  23.3880577\n",
        "* CTA (2,0,0)  kernel 1 vector_add(float const*, float const*, float*, int)  SM ",
        "(simtvp-dbg) continue\nContinuing.\n",
        "PASS vector_add: n=1024 blocks=4 threads=128\n",
        "[the program is done with the GPU: 1 kernel launch]\n"});
  }
}

TEST(DebugSession, KernelBreakpointStepsRegistersAndWatchpointOnVectorAdd) {
  for (const auto &m : kModes) {
    SCOPED_TRACE(m[0]);
    result r = run(std::string("-q --set ") + m[1] + " --debug-script " + kSessions + "/vector_add_watch.gdb " +
                   kKernels + "/bin/vector_add 1024");
    EXPECT_EQ(r.status, 0) << r.out;
    expect_in_order(r.out, {
        "\nBreakpoint 1, kernel 1 vector_add(float const*, float const*, float*, int), grid (4,1,1), block (128,1,1)\n",
        "CTA (0,0,0), warp 0, thread (0,0,0), lane 0, SM 0",
        "=> pc 0  ptx:",
        "* kernel 1 vector_add(float const*, float const*, float*, int)  grid (4,1,1)  block (128,1,1)  ",
        "(simtvp-dbg) step 8\n=> pc 8  ptx:",
        "(simtvp-dbg) info registers %r1 %r6 %rd6\n%r1 = 0x00000080         128\n%r6 = 0x00000400         1024\n"
        "%rd6 = 0x0000",
        "(simtvp-dbg) print %r10[*]\n%r10, lanes 0-31 (* = active at pc 8):\n  [ 0]* 0               [ 1]* 1   ",
        "  [28]* 28              [29]* 29              [30]* 30              [31]* 31",
        "SIMT stack of warp 0 of CTA (0,0,0), 1 entry, top first:\n"
        "  #0  pc 8 (line ",
        ")  reconverge at function exit  lanes 0xffffffff\n",
        "(simtvp-dbg) watch/f $param2+4*1000\nWatchpoint 2: 0x",
        // 4 CTAs x 128 = 512 threads: i = 1000 is grid thread 488 (its second grid-stride pass),
        // CTA 3, thread (104,0,0): warp 3, lane 8
        " written by kernel 1 vector_add(float const*, float const*, float*, int), CTA (3,0,0), warp 3, "
        "thread (104,0,0), SM ",
        "Old value = 0\nNew value = ",
        "(simtvp-dbg) print %tid\n%tid = (104,0,0)\n",
        "(simtvp-dbg) x/2fw $param0+4*1000\n0x",
        "(simtvp-dbg) info breakpoints\nNum  Type         On  Hits  What\n"
        "1    kernel       y   1     vector_add\n"
        "2    watchpoint   y   1     0x",
        "PASS vector_add: n=1024 blocks=4 threads=128\n"});
  }
}

TEST(DebugSession, SharedMemoryAndBarriersOfTheTiledSgemmOnCaCores) {
  result r = run("-q --set -simt_model=ca --debug-script " + kSessions + "/sgemm_tiled.gdb " + kKernels +
                 "/bin/sgemm 64 64 64");
  EXPECT_EQ(r.status, 0) << r.out;
  expect_in_order(r.out, {
      "\nBreakpoint 1, kernel 2 sgemm_tiled(int, int, int, float, float const*, float const*, float, float*), "
      "grid (4,4,1), block (16,16,1)\n",
      "(simtvp-dbg) break 225 cta 1,1,0 thread 0,0,0\nBreakpoint 2: PTX line 225 cta (1,1,0) thread (0,0,0) (1 instruction in 1 running kernel)\n",
      "\nBreakpoint 2, ptx:225\n[kernel 2 sgemm_tiled(int, int, int, float, float const*, float const*, float, float*), "
      "CTA (1,1,0), warp 0, thread (0,0,0), lane 0",
      "=> pc ",
      "ld.shared.f32 %f14, [%r9];\n",
      "(simtvp-dbg) info warps\n",
      "(simtvp-dbg) x/4fw shared 0\nshared 0x0:  ",
      "(simtvp-dbg) x/4fw shared 1024\nshared 0x400:  ",
      "(simtvp-dbg) step\n=> pc ",
      "ld.shared.f32 %f15, [%r8];\n",
      "(simtvp-dbg) where\n#0  pc ",
      "(simtvp-dbg) delete\nDeleted every breakpoint and watchpoint.\n",
      "PASS sgemm: m=64 n=64 k=64"});
}

std::string read_file(const std::string &path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Stopping, stepping and watching change nothing the timing models compute: the statistics of a
// debugged run are those of a plain one, byte for byte (CA and AT cores).
TEST(DebugSession, ADebuggedTimingRunHasTheStatisticsOfAPlainOne) {
  for (const char *model : {"ca", "at"}) {
    SCOPED_TRACE(model);
    std::string dir = std::string(SIMTVP_BINARY_DIR) + "/tests/debug/stats-" + model;
    std::string set = std::string(" --set -simt_model=") + model + " ";
    result plain = run("-q -o " + dir + "/plain" + set + kLineinfo + " 1024");
    ASSERT_EQ(plain.status, 0) << plain.out;
    result debugged = run("-q -o " + dir + "/debugged" + set + "--debug-script " + kSessions +
                          "/vector_add_source.gdb " + kLineinfo + " 1024");
    ASSERT_EQ(debugged.status, 0) << debugged.out;
    ASSERT_TRUE(has(debugged.out, "New value = -55.7373123")) << debugged.out;
    std::string a = read_file(dir + "/plain/stats.txt"), b = read_file(dir + "/debugged/stats.txt");
    EXPECT_FALSE(a.empty());
    EXPECT_TRUE(has(a, "gpu_sim_cycle = ")) << a;
    EXPECT_EQ(a, b);
  }
}

// A kernel fault (tests/report/bin/messages fault: an out-of-bounds store in every thread) stops
// the debugger at the faulting warp, before the platform reports it, on every model; the program
// then goes on and sees the error as without a debugger.
TEST(DebugSession, AKernelFaultStopsAtTheFaultingInstructionOnEveryModel) {
  std::string script = std::string(SIMTVP_BINARY_DIR) + "/tests/debug/fault.gdb";
  std::ofstream(script) << "continue\nprint %tid\nwhere\ncontinue\n";
  for (const char *model : {"func", "ca", "at"}) {
    SCOPED_TRACE(model);
    result r = run(std::string("-q -c default --set -simt_model=") + model + " --debug-script " + script + " " + kSource +
                   "/tests/report/bin/messages fault");
    expect_in_order(r.out, {
        "\nKernel fault: messages fatbin 0 (PTX compute_75): store of 4 bytes at global address 0x",
        "GPU page fault (invalid): ",
        "is not mapped in kernel _Z4wildPi, CTA (0,0,0), thread (0,0,0), pc 52",
        "[kernel 1 wild(int*), CTA (0,0,0), warp 0, thread (0,0,0), lane 0, SM 0, at ",
        "!! pc 52  ptx:150  messages.cu:29   st.global.u32 [%rd4], %r7;\n",
        "(simtvp-dbg) print %tid\n%tid = (0,0,0)\n",
        "(simtvp-dbg) where\n#0  pc 52 in wild(int*)  ptx:150  messages.cu:29",
        "(simtvp-dbg) continue\nContinuing.\n",
        "synchronize: cudaErrorIllegalAddress\n"});
  }
}

TEST(DebugSession, CommandsComeFromStdinWhenThereIsNoScript) {
  std::string cmd = "printf 'break kernel 1\\ncontinue\\nprint %%ctaid\\ncontinue\\n' | ";
  result r = run("-q --set -simt_model=func --debug " + kKernels + "/bin/vector_add 1024", "");
  // run() gives /dev/null as stdin: the session ends at once and the program runs on
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "[end of debugger input: the program runs on without the debugger]\n")) << r.out;
  EXPECT_TRUE(has(r.out, "PASS vector_add")) << r.out;
  std::string piped = "cd '" + kKernels + "' && " + cmd + "'" + SIMTVP_CLI + "' -q --set -simt_model=func --debug " +
                      kKernels + "/bin/vector_add 1024 2>&1";
  FILE *p = popen(piped.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  EXPECT_EQ(pclose(p), 0) << out;
  expect_in_order(out, {"(simtvp-dbg) break kernel 1\nBreakpoint 1: kernel launch 1\n",
                        "\nBreakpoint 1, kernel 1 vector_add", "(simtvp-dbg) print %ctaid\n%ctaid = (0,0,0)\n",
                        "PASS vector_add"});
}

// `simtvp ARGS` in tests/kernels on a pseudo-terminal (stdin, stdout and stderr), as a user at a
// terminal runs it.
struct Terminal {
  int master = -1;
  pid_t pid = -1;
  std::string out;

  explicit Terminal(const std::string &args) {
    master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0) return;
    std::string slave = ptsname(master);
    std::string cmd = "cd '" + kKernels + "' && SIMTVP_CONFIG='" + kSource + "/configs/SM75_RTX2060.config' exec '" +
                      SIMTVP_CLI + "' " + args;
    pid = fork();
    if (pid == 0) {
      setsid();
      int fd = open(slave.c_str(), O_RDWR);
      if (fd < 0) _exit(127);
      ioctl(fd, TIOCSCTTY, 0);
      dup2(fd, 0);
      dup2(fd, 1);
      dup2(fd, 2);
      close(master);
      execl("/bin/sh", "sh", "-c", cmd.c_str(), (char *)nullptr);
      _exit(127);
    }
  }
  ~Terminal() {
    if (master >= 0) close(master);
  }
  // Reads until `what` appears after `from` (or the program ends); the bound guards against a
  // hang only.
  bool read_until(const std::string &what, size_t from) {
    for (int tries = 0; tries < 1200 && out.find(what, from) == std::string::npos; tries++) {
      pollfd p{master, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      char buf[4096];
      ssize_t n = read(master, buf, sizeof buf);
      if (n <= 0) break;
      out.append(buf, static_cast<size_t>(n));
    }
    return out.find(what, from) != std::string::npos;
  }
  // Types `keys`, then waits for `until` after them.
  bool type(const std::string &keys, const std::string &until = "(simtvp-dbg) ") {
    size_t from = out.size();
    if (write(master, keys.data(), keys.size()) != static_cast<ssize_t>(keys.size())) return false;
    return read_until(until, from + (keys.size() > 1 ? keys.size() : 0));
  }
  int wait() {
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  // The output without the terminal's carriage returns.
  std::string text() const {
    std::string t;
    for (char c : out)
      if (c != '\r') t += c;
    return t;
  }
};

// On a terminal: the prompt is shown, commands are not written again (the terminal echoes them),
// and an empty line repeats a step.
TEST(DebugSession, OnATerminalThePromptShowsAndAnEmptyLineRepeatsAStep) {
  Terminal t("-q --set -simt_model=func --debug bin/vector_add 1024");
  ASSERT_GT(t.pid, 0);
  ASSERT_TRUE(t.read_until("(simtvp-dbg) ", 0)) << t.out;
  ASSERT_TRUE(t.type("break kernel 1\n")) << t.out;
  ASSERT_TRUE(t.type("continue\n")) << t.out;
  ASSERT_TRUE(t.type("step\n")) << t.out;
  ASSERT_TRUE(t.type("\n")) << t.out;
  t.type("continue\n", "[the program is done with the GPU");
  EXPECT_EQ(t.wait(), 0) << t.out;
  std::string text = t.text();
  expect_in_order(text, {"(simtvp-dbg) break kernel 1\nBreakpoint 1: kernel launch 1\n", "(simtvp-dbg) continue\n",
                         "=> pc 0  ptx:", "(simtvp-dbg) step\n=> pc 1  ptx:", "(simtvp-dbg) \n=> pc 2  ptx:",
                         "(simtvp-dbg) continue\n", "PASS vector_add"});
  EXPECT_EQ(text.find("(simtvp-dbg) (simtvp-dbg)"), std::string::npos) << text;  // no second prompt per line
}

// Ctrl-C while kernels run stops at the next warp instruction (simtvp itself ignores it while its
// program runs). The SGEMM of 512x512x512 runs for seconds under the debugger: the interrupt comes
// long before it ends.
TEST(DebugSession, CtrlCOnATerminalStopsTheRunningKernel) {
  Terminal t("-q --set -simt_model=func --debug bin/sgemm 512 512 512");
  ASSERT_GT(t.pid, 0);
  ASSERT_TRUE(t.read_until("(simtvp-dbg) ", 0)) << t.out;
  ASSERT_TRUE(t.type("continue\n", "Continuing.")) << t.out;
  ASSERT_TRUE(t.type("\x03")) << t.out;
  ASSERT_TRUE(t.type("info focus\n")) << t.out;
  t.type("kill\n", "Ending the program.");
  EXPECT_EQ(t.wait(), 1) << t.out;
  expect_in_order(t.text(), {"(simtvp-dbg) continue\nContinuing.\n", "\nInterrupted.\n[kernel 1 sgemm_naive(",
                             "=> pc ", "(simtvp-dbg) info focus\n[kernel 1 sgemm_naive(", "(simtvp-dbg) kill\n"});
}

TEST(DebugSession, KillEndsTheProgramWithStatusOne) {
  std::string script = std::string(SIMTVP_BINARY_DIR) + "/tests/debug/kill.gdb";
  std::ofstream(script) << "break kernel vector_add\ncontinue\nkill\n";
  result r = run("-q --set -simt_model=func --debug-script " + script + " " + kKernels + "/bin/vector_add 1024");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r.out, "(simtvp-dbg) kill\nEnding the program.\n")) << r.out;
  EXPECT_FALSE(has(r.out, "PASS vector_add")) << r.out;
}

// A line longer than the debugger reads is reported and not run (not cut and run as something
// else); the session goes on with the next line.
TEST(DebugSession, ACommandLineTooLongIsNotRun) {
  std::string script = std::string(SIMTVP_BINARY_DIR) + "/tests/debug/long.gdb";
  std::ofstream(script) << "break kernel vector_add\ncontinue\nprint " << std::string(2000, '1')
                        << "\nprint %ctaid.x\ncontinue\n";
  result r = run("-q --set -simt_model=func --debug-script " + script + " " + kKernels + "/bin/vector_add 1024");
  EXPECT_EQ(r.status, 0) << r.out;
  expect_in_order(r.out, {"A command line is at most 1022 characters: this one is not run.\n",
                          "(simtvp-dbg) print %ctaid.x\n%ctaid.x = 0 (0x0)\n", "PASS vector_add"});
  EXPECT_FALSE(has(r.out, "(simtvp-dbg) print 111")) << r.out;
}

TEST(DebugSession, AScriptThatCannotBeReadIsAnError) {
  result r = run("--debug-script /nonexistent/script.gdb " + kKernels + "/bin/vector_add");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "simtvp: --debug-script /nonexistent/script.gdb: cannot read it")) << r.out;
  r = run("--debug-script", "");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_TRUE(has(r.out, "--debug-script needs a file of debugger commands")) << r.out;
  // the platform's own check, for a program run with the variable set by hand
  // (a sanitizer build's runtime preloaded into the uninstrumented program, as simtvp does)
  std::string preload = *SIMTVP_PRELOAD_RUNTIME ? std::string("LD_PRELOAD='") + SIMTVP_PRELOAD_RUNTIME +
                                                      "' ASAN_OPTIONS=detect_leaks=0:handle_segv=0 "
                                                : std::string();
  std::string cmd = "cd '" + kKernels + "' && " + preload + "SIMTVP_DEBUG_SCRIPT=/nonexistent/script.gdb LD_LIBRARY_PATH='" +
                    SIMTVP_BINARY_DIR + "/lib' SIMTVP_QUIET=1 ./bin/vector_add 2>&1";
  FILE *p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int st = pclose(p);
  EXPECT_NE(st, 0) << out;
  EXPECT_TRUE(has(out, "SIMTVP_DEBUG_SCRIPT /nonexistent/script.gdb: cannot read the debugger script: No such file or "
                       "directory"))
      << out;
}

}  // namespace
