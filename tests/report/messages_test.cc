// What simtvp says when things go wrong (tests/report/bin/messages goes wrong on purpose, one way
// per mode; built from messages.cu): suggestions for misspelt options and configuration names,
// -c DIR, --check reporting what a run would warn about, the note for a program that made no CUDA
// call, statistics left by a program that crashed or exited early, a device assert in CUDA's
// words, a kernel fault reported once, and a barrier-deadlock dump folded over alike CTAs.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <string>

#include "cli_util.h"
#include "json_reader.h"

using namespace cli;

namespace {

const std::string kProgram = source("tests/report/bin/messages");

TEST(SimtvpMessages, ConfigurationNamesAreSuggested) {
  std::string dir = build_dir("config-names");
  result r = run("-c QV100 --check", dir);
  EXPECT_EQ(r.code(), 1);
  EXPECT_TRUE(has(r.err, "no configuration file or folder 'QV100'")) << r.err;
  EXPECT_TRUE(has(r.err, "did you mean SM7_QV100?")) << r.err;
  r = run("-c sm75_rtx2061 --check", dir);
  EXPECT_TRUE(has(r.err, "did you mean SM75_RTX2060?")) << r.err;
  r = run("-c SM7_QV100 --check", dir);
  EXPECT_EQ(r.code(), 0) << r.err;
}

TEST(SimtvpMessages, AConfigurationFolderIsReadAsGpgpuSimKeepsIt) {
  std::string dir = build_dir("config-folder");
  std::string cfg = dir + "/SM75_RTX2060";
  std::system(("mkdir -p '" + cfg + "' && cp '" + source("configs/SM75_RTX2060.config") + "' '" + cfg +
               "/gpgpusim.config' && cp '" + source("configs/config_volta_islip.icnt") + "' '" + cfg + "/'")
                  .c_str());
  result r = run("-c '" + cfg + "' --check", dir);
  EXPECT_EQ(r.code(), 0) << r.err;
  EXPECT_TRUE(has(r.err, "configuration OK")) << r.err;
  r = run("-c '" + cfg + "/' -- /bin/sh -c 'echo \"C=$SIMTVP_CONFIG\"'", dir);
  EXPECT_TRUE(has(r.out, "C=" + cfg + "/gpgpusim.config")) << r.out;
  std::string two = dir + "/two";
  std::system(("mkdir -p '" + two + "' && touch '" + two + "/a.config' '" + two + "/b.config'").c_str());
  r = run("-c '" + two + "' --check", dir);
  EXPECT_EQ(r.code(), 1);
  EXPECT_TRUE(has(r.err, "a configuration folder holds gpgpusim.config")) << r.err;
  EXPECT_TRUE(has(r.err, "a.config b.config")) << r.err;
}

TEST(SimtvpMessages, CheckReportsWhatARunWouldWarnAbout) {
  std::string dir = build_dir("check");
  result r = run("-c SM7_QV100 --check --set '-gpgpu_n_clusterz 4'", dir);
  EXPECT_EQ(r.code(), 0) << r.err;
  EXPECT_TRUE(has(r.err, "unknown option -gpgpu_n_clusterz (ignored); did you mean -gpgpu_n_clusters?")) << r.err;
  EXPECT_TRUE(has(r.err, "-network_mode 1 (intersim")) << r.err;
  EXPECT_TRUE(has(r.err, "-gpgpu_memory_partition_indexing 4 (random) is not modelled")) << r.err;
  EXPECT_TRUE(has(r.err, "simtvp: configuration OK, with 3 warnings")) << r.err;
  r = run("--check", dir);
  EXPECT_EQ(r.err, "simtvp: configuration OK\n");
}


TEST(SimtvpMessages, AMisspeltOptionIsReportedOnceWithTheNameMeant) {
  std::string dir = build_dir("misspelt");
  result r = run("-q --set '-gpgpu_n_clusterz 4' -- '" + kProgram + "' ok", dir);
  EXPECT_EQ(r.code(), 0) << r.err;
  EXPECT_EQ(count(r.err, "unknown option -gpgpu_n_clusterz"), 1u) << r.err;
  EXPECT_TRUE(has(r.err, "did you mean -gpgpu_n_clusters?")) << r.err;
  // The run's own warnings (what --check reports) come once each too.
  r = run("-q -c SM7_QV100 -- '" + kProgram + "' ok", dir);
  EXPECT_EQ(count(r.err, "-network_mode 1 (intersim"), 1u) << r.err;
  EXPECT_EQ(count(r.err, "-gpgpu_memory_partition_indexing 4"), 1u) << r.err;
}

TEST(SimtvpMessages, AProgramThatMadeNoCudaCallGetsANote) {
  std::string dir = build_dir("nocuda");
  result r = run("-- '" + kProgram + "' nocuda", dir);
  EXPECT_EQ(r.code(), 0);
  EXPECT_EQ(r.out, "no CUDA here\n");
  EXPECT_TRUE(has(r.err, "made no CUDA call: nothing ran on the simulated GPU")) << r.err;
  EXPECT_TRUE(has(r.err, "from a fixed path")) << r.err;
  r = run("-- '" + kProgram + "' ok", dir);
  EXPECT_FALSE(has(r.err, "made no CUDA call")) << r.err;
  r = run("-q -- '" + kProgram + "' nocuda", dir);
  EXPECT_EQ(r.err, "");
}

// A program that crashes, aborts or exits early after a kernel still leaves its statistics (and
// report); simtvp dies of the same signal and says what happened.
TEST(SimtvpMessages, AProgramThatCrashesAfterKernelsStillLeavesItsStatistics) {
  struct Case {
    const char *mode;
    int signal, code;
  } cases[] = {{"crash", SIGSEGV, -1}, {"abort", SIGABRT, -1}, {"exit", 0, 3}};
  for (const Case &c : cases) {
    std::string dir = build_dir(std::string("crash-") + c.mode);
    result r = run("-q -o '" + dir + "/out' -- '" + kProgram + "' " + c.mode, dir);
    EXPECT_EQ(r.signal(), c.signal) << c.mode << ": " << r.err;
    EXPECT_EQ(r.code(), c.code) << c.mode;
    EXPECT_EQ(r.out, "kernel ok\n") << c.mode;
    if (c.signal) {
      EXPECT_TRUE(has(r.err, "was killed by signal " + std::to_string(c.signal))) << r.err;
      EXPECT_TRUE(has(r.err, "after 1 kernel; the statistics up to then are in " + dir + "/out")) << r.err;
    }
    json_reader::Value stats = json_reader::parse(slurp(dir + "/out/stats.json"));
    EXPECT_EQ(stats["kernels"].size(), 1u) << c.mode;
    EXPECT_TRUE(has(slurp(dir + "/out/stats.txt"), "kernel_name = _Z4fillPii")) << c.mode;
    EXPECT_EQ(access((dir + "/out/report.html").c_str(), R_OK), 0) << c.mode;
  }
}

TEST(SimtvpMessages, ADeviceAssertIsReportedAsTheProgramsOwnAssertion) {
  std::string dir = build_dir("assert");
  result r = run("-q -- '" + kProgram + "' assert", dir);
  EXPECT_EQ(r.code(), 1);
  // As CUDA prints it, on stderr; simtvp adds no error of its own about it.
  EXPECT_TRUE(has(r.err, "messages.cu:25: void checked(int *): block: [1,0,0], thread: [3,0,0] Assertion "
                         "`!(blockIdx.x == 1 && threadIdx.x == 3)` failed.\n"))
      << r.err;
  EXPECT_FALSE(has(r.out, "Assertion")) << r.out;
  EXPECT_FALSE(has(r.err, "simtvp: error:")) << r.err;
  EXPECT_EQ(count(r.err, "cudaErrorAssert"), 1u) << r.err;
  EXPECT_TRUE(has(r.out, "synchronize: cudaErrorAssert\nmemcpy: cudaErrorAssert\nfree: cudaErrorAssert\n")) << r.out;
}

TEST(SimtvpMessages, AKernelFaultIsReportedOnceNotForEveryLaterCall) {
  std::string dir = build_dir("fault");
  result r = run("-q -- '" + kProgram + "' fault", dir);
  EXPECT_EQ(r.code(), 1);
  EXPECT_EQ(count(r.err, "address is not mapped in device memory"), 1u) << r.err;
  EXPECT_TRUE(has(r.err, "in kernel _Z4wildPi, CTA (0,0,0), thread (0,0,0)")) << r.err;
  EXPECT_EQ(count(r.err, "cudaErrorIllegalAddress"), 1u) << r.err;  // the first call that returns it
  EXPECT_FALSE(has(r.err, "simtvp: cudaMemcpy")) << r.err;
  EXPECT_FALSE(has(r.err, "simtvp: cudaFree")) << r.err;
  EXPECT_EQ(count(r.out, "cudaErrorIllegalAddress"), 4u) << r.out;  // every call still returns it
}

TEST(SimtvpMessages, ABarrierDeadlockDumpShowsOneCtaAndCountsTheAlikeOnes) {
  std::string dir = build_dir("deadlock");
  result r = run("-q -- '" + kProgram + "' deadlock", dir);
  EXPECT_EQ(r.code(), 1);
  EXPECT_EQ(count(r.err, "barrier deadlock at cycle"), 1u) << r.err;
  EXPECT_EQ(count(r.err, "  warp "), 2u) << r.err;  // the two warps of the first CTA
  EXPECT_TRUE(has(r.err, "... and 7 more CTAs of _Z5stuckPi deadlocked the same way")) << r.err;
  EXPECT_LE(count(r.err, "simtvp: error:"), 5u) << r.err;
}


}  // namespace
