// The `simtvp` command (platform/simtvp): help, bad usage, option listing, configuration checks,
// the environment it gives the program, exit status, and (when the CUDA runtime is built) the
// bundled sample running on the platform.
#include <gtest/gtest.h>

#include "cli_run.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

using cli_run::has;
using cli_run::result;
using cli_run::run;

TEST(SimtvpCli, HelpDocumentsEveryOption) {
  result r = run("--help");
  EXPECT_EQ(r.status, 0);
  for (const char *opt : {"--config", "--outdir", "--trace", "--stats", "--strict", "--set", "--quiet", "--check", "--list-options",
                          "--help", "--version", "SIMTVP_CONFIG", "SIMTVP_OUTDIR", "SIMTVP_OPTIONS",
                          "LD_LIBRARY_PATH", "Exit status", "tests/kernels/bin/sgemm"})
    EXPECT_TRUE(has(r.out, opt)) << opt;
}

TEST(SimtvpCli, BadUsageExitsWithTwoAndSaysWhy) {
  result r = run("--bogus");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.out, "unknown option '--bogus'")) << r.out;
  r = run("--config");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.out, "--config needs a file name")) << r.out;
  r = run("--set gpgpu_n_clusters -- /bin/true");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.out, "expected '-option value'")) << r.out;
  r = run("-- /nonexistent/program");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.out, "cannot run '/nonexistent/program'")) << r.out;
}

TEST(SimtvpCli, ListOptionsPrintsTheGpuOptionTable) {
  result r = run("--list-options");
  EXPECT_EQ(r.status, 0);
  for (const char *opt : {"-gpgpu_n_clusters", "-gpgpu_cache:dl1", "-simt_model", "-host_mmio_read_latency_ns",
                          "-stats_json"})
    EXPECT_TRUE(has(r.out, opt)) << opt;
}

TEST(SimtvpCli, ConfigurationErrorsAreReportedBeforeTheProgramRuns) {
  result r = run("--config /nonexistent.config -- /bin/echo ran");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.out, "/nonexistent.config")) << r.out;
  EXPECT_FALSE(has(r.out, "ran\n")) << r.out;
  r = run("--strict --set '-no_such_option 1' --check");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.out, "-no_such_option")) << r.out;
  r = run("--set '-gpgpu_n_clusters 4' --check");
  EXPECT_EQ(r.status, 0) << r.out;
}

TEST(SimtvpCli, ShippedConfigurationsAreFoundByName) {
  result r = run("--config SM75_RTX2060 -- /bin/sh -c 'echo \"C=$SIMTVP_CONFIG\"'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "C=" + std::string(SIMTVP_SOURCE_DIR) + "/configs/SM75_RTX2060.config\n")) << r.out;
  EXPECT_TRUE(has(run("--help").out, "SM86_RTX3070"));
  r = run("--config SM99_NOPE --check");
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.out, "SM99_NOPE")) << r.out;
}

TEST(SimtvpCli, ProgramGetsTheRuntimeEnvironmentAndItsExitStatusIsSimtvps) {
  std::string cfg = std::string(SIMTVP_SOURCE_DIR) + "/configs/SM2_GTX480.config";
  result r = run("--config '" + cfg + "' -o out-dir --strict -q --set '-gpu_name my GPU' --set -simt_model=func -- "
                 "/bin/sh -c 'echo \"C=$SIMTVP_CONFIG\"; echo \"O=$SIMTVP_OUTDIR\"; echo \"S=$SIMTVP_OPTIONS\"; "
                 "echo \"T=$SIMTVP_STRICT Q=$SIMTVP_QUIET\"; echo \"L=$LD_LIBRARY_PATH\"; exit 7'");
  EXPECT_EQ(r.status, 7) << r.out;
  EXPECT_TRUE(has(r.out, "C=" + cfg + "\n")) << r.out;
  EXPECT_TRUE(has(r.out, "/out-dir\n")) << r.out;  // made absolute
  EXPECT_TRUE(has(r.out, "S='-gpu_name' 'my GPU' '-simt_model' 'func'\n")) << r.out;
  EXPECT_TRUE(has(r.out, "T=1 Q=1\n")) << r.out;
  EXPECT_TRUE(has(r.out, "L=" + std::string(SIMTVP_BINARY_DIR) + "/lib")) << r.out;
}

// The bundled sample (tests/kernels/bin/sgemm by default) on the platform with the CUDA runtime.
TEST(SimtvpCli, RunsTheBundledSampleWhenGivenNoProgram) {
  result r = run("--set '-simt_model func'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "PASS")) << r.out;
  EXPECT_TRUE(has(r.out, "simtvp: run summary")) << r.out;
}

// `simtvp -o DIR` with -enable_ptx_file_line_stats: the per-line profile lands in DIR beside
// stats.json, one section per kernel of the sample (naive and tiled SGEMM), and the JSON has it.
TEST(SimtvpCli, PtxLineStatisticsGoToTheOutputDirectory) {
  std::string dir = std::string(SIMTVP_BINARY_DIR) + "/tests/platform/cli-line-stats";
  std::system(("rm -rf '" + dir + "'").c_str());
  result r = run("-q -o '" + dir + "' --set '-simt_model func' --set '-enable_ptx_file_line_stats 1'");
  EXPECT_EQ(r.status, 0) << r.out;
  auto slurp = [](const std::string &path) {
    std::string text;
    if (FILE *f = std::fopen(path.c_str(), "r")) {
      char buf[4096];
      size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
      std::fclose(f);
    }
    return text;
  };
  std::string text = slurp(dir + "/gpgpu_inst_stats.txt");
  EXPECT_TRUE(has(text, "# kernel _Z11sgemm_naiveiiifPKfS0_fPf launch 1\n")) << text.substr(0, 400);
  EXPECT_TRUE(has(text, "# kernel _Z11sgemm_tilediiifPKfS0_fPf launch 2\n")) << text.substr(0, 400);
  EXPECT_TRUE(has(text, "sgemm fatbin 0 (PTX compute_75):")) << text.substr(0, 400);
  EXPECT_TRUE(has(slurp(dir + "/stats.json"), "\"ptx_lines\": [")) << "stats.json";
}

}  // namespace
