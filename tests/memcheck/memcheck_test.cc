// The memory checker on an unmodified nvcc program (tests/memcheck/memcheck_cases.cu, committed
// binary built with -lineinfo): each kind of bad access is reported with kernel, CTA, thread, PC,
// PTX and source line and the nearest allocation; leaks at exit; without the checker, what the
// device-memory map still catches (page granularity) and what it cannot (inside a page).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace {

struct result {
  int status;
  std::string out;  // stdout and stderr together
};

// Runs memcheck_cases MODE under simtvp with the given simtvp options.
result run(const std::string &options, const std::string &mode) {
  std::string cmd = std::string("'") + SIMTVP_CLI + "' -q " + options + " -- '" SIMTVP_SOURCE_DIR
                    "/tests/memcheck/bin/memcheck_cases' " + mode + " 2>&1";
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

const char kCheck[] = "--memcheck";
const char kCheckFunc[] = "--memcheck --set '-simt_model func'";

TEST(Memcheck, CleanProgramGetsNoReport) {
  result r = run(kCheck, "clean");
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(has(r.out, "result: cudaSuccess")) << r.out;
  EXPECT_FALSE(has(r.out, "memcheck: invalid")) << r.out;
  EXPECT_FALSE(has(r.out, "leak:")) << r.out;
}

// 1000-byte block: the byte after it shares its page, so only the checker sees the store.
TEST(Memcheck, StorePastTheEndInsideAPageIsReportedWithTheBlock) {
  result r = run(kCheck, "past-end");
  EXPECT_TRUE(has(r.out, "result: cudaErrorIllegalAddress")) << r.out;
  EXPECT_TRUE(has(r.out, "memcheck: invalid global write of 4 bytes at 0x")) << r.out;
  EXPECT_TRUE(has(r.out, "out of bounds: right after the end of a 1000-byte block at 0x")) << r.out;
  EXPECT_TRUE(has(r.out, "allocation #2, allocated at ")) << r.out;
  EXPECT_TRUE(has(r.out, "memcheck_cases")) << "the allocation site names the program: " << r.out;
  EXPECT_TRUE(has(r.out, "in kernel _Z8store_atPix, CTA (0,0,0), thread (0,0,0)")) << r.out;
  EXPECT_TRUE(has(r.out, "memcheck_cases.cu:21")) << "the CUDA source line: " << r.out;
  result off = run("", "past-end");
  EXPECT_TRUE(has(off.out, "result: cudaSuccess")) << "the hardware is as silent: " << off.out;
}

TEST(Memcheck, StoreFarPastABlockFaultsAndNamesTheNearestBlock) {
  result r = run(kCheck, "far");
  EXPECT_TRUE(has(r.out, "result: cudaErrorIllegalAddress")) << r.out;
  EXPECT_TRUE(has(r.out, "out of bounds: 1073737728 bytes past the end of a 4096-byte block")) << r.out;
  EXPECT_TRUE(has(r.out, "(allocation #2, allocated at")) << "the program's block, not the driver's: " << r.out;
  result off = run("--set '-simt_model func'", "far");
  EXPECT_TRUE(has(off.out, "result: cudaErrorIllegalAddress")) << "a store 1 GiB past a 4 KiB block: " << off.out;
}

TEST(Memcheck, LoadBeforeTheStartOfABlockIsReported) {
  result r = run(kCheckFunc, "before");
  EXPECT_TRUE(has(r.out, "result: cudaErrorIllegalAddress")) << r.out;
  EXPECT_TRUE(has(r.out, "memcheck: invalid global read of 4 bytes")) << r.out;
  EXPECT_TRUE(has(r.out, "8 bytes before the start of a 4096-byte block")) << r.out;
  result off = run("", "before");
  EXPECT_TRUE(has(off.out, "result: cudaSuccess")) << "the padding of the block before is mapped: " << off.out;
}

// A 64 KiB block owns its interior pages: once freed they are unmapped, so the store faults
// even without the checker; the checker says which block it was.
TEST(Memcheck, StoreIntoAFreedBlockIsAUseAfterFree) {
  result r = run(kCheck, "use-after-free");
  EXPECT_TRUE(has(r.out, "result: cudaErrorIllegalAddress")) << r.out;
  EXPECT_TRUE(has(r.out, "use after free: 16384 bytes into a 65536-byte block at 0x")) << r.out;
  result off = run("--set '-simt_model func'", "use-after-free");
  EXPECT_TRUE(has(off.out, "result: cudaErrorIllegalAddress")) << "the freed pages are unmapped: " << off.out;
  EXPECT_TRUE(has(off.out, "not mapped in device memory")) << off.out;
}

// A 4 KiB block that shares its pages with live neighbours: its pages stay mapped after the free
// (hardware maps 64 KiB or 2 MiB pages and is as silent); only the checker sees the store.
TEST(Memcheck, StoreIntoAFreedBlockSharingPagesIsSeenByTheCheckerOnly) {
  result r = run(kCheckFunc, "use-after-free-small");
  EXPECT_TRUE(has(r.out, "result: cudaErrorIllegalAddress")) << r.out;
  EXPECT_TRUE(has(r.out, "use after free: 12 bytes into a 4096-byte block at 0x")) << r.out;
  result off = run("--set '-simt_model func'", "use-after-free-small");
  EXPECT_TRUE(has(off.out, "result: cudaSuccess")) << off.out;
}

TEST(Memcheck, BlocksNeverFreedAreLeaksAtExit) {
  result r = run(kCheckFunc, "leak");
  EXPECT_EQ(r.status, 0);
  EXPECT_TRUE(has(r.out, "result: cudaSuccess")) << r.out;
  EXPECT_TRUE(has(r.out, "memcheck: leak: 4096 bytes at 0x")) << r.out;
  EXPECT_TRUE(has(r.out, "(allocation #2, allocated at ")) << r.out;
  EXPECT_TRUE(has(r.out, "memcheck: 1 allocation (4096 bytes) leaked")) << r.out;
  result off = run("--set '-simt_model func'", "leak");
  EXPECT_FALSE(has(off.out, "leak")) << off.out;
}

TEST(Memcheck, SharedMemoryPastItsEndIsReported) {
  result r = run(kCheck, "shared");
  EXPECT_TRUE(has(r.out, "result: cudaErrorIllegalAddress")) << r.out;
  EXPECT_TRUE(has(r.out, "load of 4 bytes at shared address 0x140")) << r.out;
  EXPECT_TRUE(has(r.out, "outside the CTA's 256 bytes of shared memory")) << r.out;
  EXPECT_TRUE(has(r.out, "memcheck_cases.cu:32")) << r.out;
}

TEST(Memcheck, LocalMemoryPastTheThreadsFrameIsReported) {
  result r = run(kCheckFunc, "local");
  EXPECT_TRUE(has(r.out, "result: cudaErrorIllegalAddress")) << r.out;
  EXPECT_TRUE(has(r.out, "local address")) << r.out;
  EXPECT_TRUE(has(r.out, "of local memory")) << r.out;
  EXPECT_TRUE(has(r.out, "memcheck_cases.cu:38")) << r.out;
}

TEST(Memcheck, MisalignedAccessIsCudasMisalignedAddress) {
  result r = run(kCheck, "misaligned");
  EXPECT_TRUE(has(r.out, "result: cudaErrorMisalignedAddress")) << r.out;
  EXPECT_TRUE(has(r.out, "is not a multiple of 4")) << r.out;
}

}  // namespace
