// `simtvp compare` end to end on a bundled program (tests/kernels/bin/reduction): one run per
// fidelity assignment, every kernel compared against the first, the JSON it writes, the
// per-instance fidelity map each run records in stats.json, and bad assignments.
#include <gtest/gtest.h>

#include "cli_run.h"

#include <dirent.h>
#include <sys/wait.h>

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <cmath>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace pt = boost::property_tree;

using cli_run::has;
using cli_run::result;
using cli_run::run;

std::string temp_dir(const char *name) {
  std::string d = std::string(SIMTVP_TEST_TMP) + "/" + name;
  std::system(("rm -rf '" + d + "'").c_str());
  return d;
}

pt::ptree slash(const pt::ptree &t, const char *path) { return t.get_child(pt::ptree::path_type(path, '/')); }

TEST(SimtvpCompare, RunsEveryAssignmentAndComparesEveryKernelWithTheFirst) {
  std::string dir = temp_dir("compare_reduction");
  result r = run("compare -o '" + dir + "' -f ca -f at -f 'simt=at,mem=ca' -f at-mem -f func -- '" + SIMTVP_KERNELS_BIN +
                 "/reduction'");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.out, "kernel 1: ")) << r.out;
  EXPECT_TRUE(has(r.out, "mean |error|")) << r.out;
  pt::ptree j;
  pt::read_json(dir + "/compare.json", j);
  EXPECT_EQ(j.get<std::string>("format"), "simtvp-compare");
  std::vector<pt::ptree> as;
  for (const auto &a : j.get_child("assignments")) as.push_back(a.second);
  ASSERT_EQ(as.size(), 5u);
  const char *maps[5] = {"simt=ca icnt=ca mempart=ca dram=ca", "simt=at icnt=at mempart=at dram=at",
                         "simt=at icnt=ca mempart=ca dram=ca", "simt=ca icnt=at mempart=at dram=at", "simt=func"};
  for (size_t i = 0; i < as.size(); i++) {
    EXPECT_EQ(as[i].get<std::string>("fidelity"), maps[i]) << i;
    EXPECT_EQ(as[i].get<int>("exit_status"), 0) << i;
    // Every per-block mix computes the same program results as the reference.
    EXPECT_EQ(as[i].get<std::string>("same_output"), "true") << i;
    EXPECT_GE(as[i].get<int>("kernels"), 1) << i;
  }
  size_t n_kernels = 0;
  for (const auto &k : j.get_child("kernels")) {
    n_kernels++;
    std::vector<pt::ptree> runs;
    for (const auto &x : k.second.get_child("runs")) runs.push_back(x.second);
    ASSERT_EQ(runs.size(), 5u);
    double ref = runs[0].get<double>("cycles");
    EXPECT_GT(ref, 0);
    EXPECT_FALSE(runs[0].get_child_optional("cycle_error")) << "the reference has no error";
    for (size_t i = 1; i < 4; i++) {
      double e = runs[i].get<double>("cycle_error");
      EXPECT_NEAR(e, (runs[i].get<double>("cycles") - ref) / ref, 1e-5);  // JSON keeps 6 digits
      EXPECT_LT(std::fabs(e), 0.25) << "timed assignment " << i << " of kernel " << n_kernels;
      EXPECT_TRUE(runs[i].get_child_optional("moved")) << i;
      EXPECT_TRUE(runs[i].get_child_optional("stats.l2_hit")) << i;
    }
    // The host's side of each run: its CPU time and page faults while the kernel ran (the first
    // kernel of a process always touches some of the model's tables for the first time).
    for (size_t i = 0; i < runs.size(); i++) {
      EXPECT_GE(runs[i].get<double>("cpu_s", -1), 0) << i;
      EXPECT_GE(runs[i].get<double>("page_faults", -1), 0) << i;
    }
    if (n_kernels == 1) {
      EXPECT_GT(runs[0].get<double>("page_faults"), 0);
    }
    EXPECT_EQ(runs[4].get<double>("cycles"), 0) << "the functional side counts no cycles";
    EXPECT_FALSE(runs[4].get_child_optional("cycle_error"));
  }
  EXPECT_GE(n_kernels, 1u);
  size_t n_summary = 0;
  for (const auto &s : j.get_child("summary")) {
    if (n_summary > 0 && n_summary < 4) {
      EXPECT_TRUE(s.second.get_child_optional("mean_abs_cycle_error"));
    }
    EXPECT_GE(s.second.get<double>("page_faults", -1), 0) << n_summary;
    n_summary++;
  }
  EXPECT_EQ(n_summary, 5u);
  // Each run's own output is kept, with its statistics.
  pt::ptree stats;
  pt::read_json(dir + "/1/stats.json", stats);
  EXPECT_EQ(slash(stats, "info/fidelity").data(), maps[1]);
}

TEST(SimtvpCompare, TheDefaultAssignmentsAreCaThenAt) {
  std::string dir = temp_dir("compare_default");
  result r = run("compare -o '" + dir + "' --json '" + dir + "/c.json' -- '" + SIMTVP_KERNELS_BIN + "/vector_add'");
  ASSERT_EQ(r.status, 0) << r.out;
  pt::ptree j;
  pt::read_json(dir + "/c.json", j);
  std::vector<std::string> specs;
  for (const auto &a : j.get_child("assignments")) specs.push_back(a.second.get<std::string>("spec"));
  EXPECT_EQ(specs, (std::vector<std::string>{"ca", "at"}));
}

TEST(SimtvpCompare, BadAssignmentsAndOptionsAreUsageErrorsNamingThem) {
  result r = run("compare -f 'simt=fast' -- /bin/true");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.out, "'simt=fast'")) << r.out;
  r = run("compare -f 'dram=func' -- /bin/true");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.out, "'dram=func'")) << r.out;
  r = run("compare -f 'gpu=at' -- /bin/true");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.out, "'gpu=at'")) << r.out;
  r = run("compare --bogus -- /bin/true");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.out, "unknown option '--bogus'")) << r.out;
  r = run("compare --moved x -- /bin/true");
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.out, "--moved")) << r.out;
}

TEST(SimtvpCompare, ARunWhoseExitStatusDiffersFailsTheComparison) {
  std::string dir = temp_dir("compare_exit");
  // A program whose exit status depends on the assignment: /bin/sh exits 4 when the options it
  // is given select the functional SIMT side.
  result r = run("compare -o '" + dir + "' -f ca -f func -- /bin/sh -c 'case \"$SIMTVP_OPTIONS\" in *func*) exit 4;; esac'");
  EXPECT_EQ(r.status, 3) << r.out;
  EXPECT_TRUE(has(r.out, "exit status differs")) << r.out;
}

TEST(SimtvpStats, StatsJsonRecordsEveryBlockInstancesFidelity) {
  std::string dir = temp_dir("fidelity_map");
  result r = run("-q -o '" + dir + "' --set -simt_model_override=0-3:at --set -mempart_model=at --set -dram_model=at "
                 "--set -dram_model_override=1:ca -- '" + SIMTVP_KERNELS_BIN + "/vector_add'");
  ASSERT_EQ(r.status, 0) << r.out;
  pt::ptree stats;
  pt::read_json(dir + "/stats.json", stats);
  EXPECT_EQ(slash(stats, "info/fidelity").data(),
            "simt=0-3:at,4-7:ca icnt=ca mempart=at dram=0:at,1:ca,2:at");
}

// ---- every per-block mix on every tests/kernels program -----------------------------------------

std::vector<std::string> kernel_programs() {
  std::vector<std::string> names;
  if (DIR *d = opendir(SIMTVP_KERNELS_BIN)) {
    while (dirent *e = readdir(d))
      if (e->d_name[0] != '.') names.push_back(e->d_name);
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string slurp(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// The configuration a program was built for (`// simtvp-arch: 80|90|90a` in its source, as
// tests/kernels/CMakeLists.txt reads it), with 8 clusters; empty for the default sm_75 GPU.
std::string config_of(const std::string &program) {
  std::string src = slurp(std::string(SIMTVP_KERNELS_BIN) + "/../" + program + ".cu");
  const std::string mark = "\n// simtvp-arch: ";
  size_t at = src.find(mark);
  if (at == std::string::npos) return "";
  std::string arch = src.substr(at + mark.size(), 2);
  const char *cfg = arch == "80" ? "SM80_A100" : arch == "90" ? "SM90_H100" : nullptr;
  return cfg ? std::string("-c ") + cfg + " --set '-gpgpu_n_clusters 8' " : "";
}

class FidelityMixes : public ::testing::TestWithParam<std::string> {};

// Each program (they check their own results and exit non-zero when wrong) under all-CA, all-AT,
// AT cores on CA memory, CA cores on AT memory, a mix inside the memory system, the functional
// side, all-AT with sampled cores (at-sampled), interval cores (interval), interval cores
// timing straight runs (interval-runs) and timing a CTA's warps as one group (interval-fold):
// every run exits 0 with the reference's output; all-AT, interval, interval-runs and
// interval-fold again give byte-identical statistics (deterministic); and each timed kernel of a program whose instruction stream does
// not depend on timing is within 25 % of all-CA's cycles (issue 9's bound per kernel).
TEST_P(FidelityMixes, EveryMixRunsTheProgramCorrectlyAndDeterministically) {
  const std::string program = GetParam();
  std::string dir = temp_dir(("mixes_" + program).c_str());
  result r = run("compare -o '" + dir + "' " + config_of(program) +
                 "-f ca -f at -f at-cores -f at-mem -f 'simt=at,icnt=ca,mempart=at,dram=ca' -f func -f at -f at-sampled -f interval -f interval -f interval-runs -f interval-runs -f interval-fold -f interval-fold -- '" +
                 SIMTVP_KERNELS_BIN + "/" + program + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  pt::ptree j;
  pt::read_json(dir + "/compare.json", j);
  size_t i = 0;
  for (const auto &a : j.get_child("assignments")) {
    EXPECT_EQ(a.second.get<int>("exit_status"), 0) << program << " under " << a.second.get<std::string>("spec");
    EXPECT_EQ(a.second.get<std::string>("same_output"), "true")
        << program << " under " << a.second.get<std::string>("spec") << ": output differs from all-CA ("
        << dir << "/" << i << "/program.out)";
    i++;
  }
  ASSERT_EQ(i, 14u);
  std::string at1 = slurp(dir + "/1/stats.json"), at2 = slurp(dir + "/6/stats.json");
  EXPECT_FALSE(at1.empty());
  std::string iv1 = slurp(dir + "/8/stats.json"), iv2 = slurp(dir + "/9/stats.json");
  EXPECT_FALSE(iv1.empty());
  // Two runs with the same options give the same statistics — zerocopy too, whose registered
  // buffer lies wherever the heap puts it: its device address is the registered window's, not
  // the host's (sw/cuda/cu_memory.cc, docs/system-modes.md §1).
  EXPECT_TRUE(at1 == at2) << program << ": two all-AT runs differ (" << dir << "/1 and /6)";
  EXPECT_TRUE(iv1 == iv2) << program << ": two interval runs differ (" << dir << "/8 and /9)";
  std::string rn1 = slurp(dir + "/10/stats.json"), rn2 = slurp(dir + "/11/stats.json");
  EXPECT_FALSE(rn1.empty());
  EXPECT_TRUE(rn1 == rn2) << program << ": two interval-runs runs differ (" << dir << "/10 and /11)";
  std::string fd1 = slurp(dir + "/12/stats.json"), fd2 = slurp(dir + "/13/stats.json");
  EXPECT_FALSE(fd1.empty());
  EXPECT_TRUE(fd1 == fd2) << program << ": two interval-fold runs differ (" << dir << "/12 and /13)";
  for (const auto &k : j.get_child("kernels")) {
    const auto &runs = k.second.get_child("runs");
    bool same_path = true;
    for (const auto &x : runs) same_path &= x.second.get<std::string>("same_warp_insn", "true") == "true";
    if (!same_path) continue;  // e.g. a compare-and-swap loop: another program path, not a timing error
    for (const auto &x : runs) {
      // The functional GPU times nothing but the waits on replayable faults (its other kernels
      // report 0 cycles), so a faulting kernel that then reads and writes managed pages remotely
      // over the link (managed_remote's first: 31 % under CA's cycles, the hub's share) is not
      // held to the bound there.
      if (program == "managed_remote" && x.second.get<std::string>("spec") == "func") continue;
      // Sampled AT cores are held to correctness and determinism here, not to the bound: on
      // recursion (deep call stacks, a kernel longer than the 12 000-cycle period) they came out
      // 35 % off CA's cycles (2026-11-27; docs/simt-at.md §6a).
      if (x.second.get<std::string>("spec") == "at-sampled") continue;
      // Interval cores (docs/simt-interval.md §8) behind models/memiv are held to the bound on
      // every program (2026-11-27, default configuration: the largest is const_globals 9.2 % since
      // the L1's reordered fills, zerocopy 1.2 %, managed_remote 0.6 % since memiv books the hub's
      // link).
      if (auto e = x.second.get_optional<double>("cycle_error")) {
        EXPECT_LE(std::fabs(*e), 0.25) << program << " kernel " << k.second.get<std::string>("name") << " under "
                                       << x.second.get<std::string>("spec");
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(KernelPrograms, FidelityMixes, ::testing::ValuesIn(kernel_programs()),
                         [](const ::testing::TestParamInfo<std::string> &p) { return p.param; });

// Every assignment of a compare.json ran `program` to exit 0 with the reference's output.
void expect_every_assignment_ran_alike(const pt::ptree &j, const std::string &program) {
  for (const auto &a : j.get_child("assignments")) {
    EXPECT_EQ(a.second.get<int>("exit_status"), 0) << program << " under " << a.second.get<std::string>("spec");
    EXPECT_EQ(a.second.get<std::string>("same_output"), "true") << program << " under "
                                                               << a.second.get<std::string>("spec");
  }
}

class Qv100Interval : public ::testing::TestWithParam<std::string> {};

// Interval cores on the QV100 configuration (80 SMs, models/memiv behind them), where the
// interval path's requests once differed most from the CA core's (docs/simt-interval.md §8), alone
// and with a CTA's warps timed as one group (interval-fold, §13): each
// program built for the default GPU runs correctly, and each kernel whose instruction stream does
// not depend on timing is within 25 % of all-CA's cycles (issue 9's bound). scan's
// add_block_offsets, which reads what the kernel before it stored with a stride, is held to 10 %:
// it was −17.8 % while the timed L2 made partly written sectors readable (now −5.1 %).
TEST_P(Qv100Interval, EveryKernelWithinTheBoundOfAllCa) {
  const std::string program = GetParam();
  if (!config_of(program).empty()) GTEST_SKIP() << program << " is built for another GPU";
  std::string dir = temp_dir(("qv100_interval_" + program).c_str());
  result r = run("compare -o '" + dir + "' -c SM7_QV100 -f ca -f interval -f interval-fold -- '" + SIMTVP_KERNELS_BIN +
                 "/" + program + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  pt::ptree j;
  pt::read_json(dir + "/compare.json", j);
  expect_every_assignment_ran_alike(j, program);
  for (const auto &k : j.get_child("kernels")) {
    const auto &runs = k.second.get_child("runs");
    bool same_path = true;
    for (const auto &x : runs) same_path &= x.second.get<std::string>("same_warp_insn", "true") == "true";
    if (!same_path) continue;  // another program path (atomics, async_copy): not a timing error
    const std::string name = k.second.get<std::string>("name");
    const double bound = name.find("add_block_offsets") != std::string::npos ? 0.10 : 0.25;
    for (const auto &x : runs)
      if (auto e = x.second.get_optional<double>("cycle_error")) {
        EXPECT_LE(std::fabs(*e), bound) << program << " kernel " << name << " under "
                                        << x.second.get<std::string>("spec");
      }
  }
}

INSTANTIATE_TEST_SUITE_P(KernelPrograms, Qv100Interval, ::testing::ValuesIn(kernel_programs()),
                         [](const ::testing::TestParamInfo<std::string> &p) { return p.param; });

// Every timed run of `kernel` (a name part) in compare.json j within `bound` of the reference's
// cycles; how many were checked.
int expect_kernel_within(const pt::ptree &j, const std::string &kernel, double bound) {
  int checked = 0;
  for (const auto &k : j.get_child("kernels")) {
    if (k.second.get<std::string>("name").find(kernel) == std::string::npos) continue;
    for (const auto &x : k.second.get_child("runs"))
      if (auto e = x.second.get_optional<double>("cycle_error")) {
        EXPECT_LE(std::fabs(*e), bound) << kernel << " under " << x.second.get<std::string>("spec");
        checked++;
      }
  }
  return checked;
}

// histogram_global on QV100: 8 SMs whose every iteration is an atomic on one of the same two L2
// lines of one slice. The interval cores reach memiv in host order, each a horizon ahead per call;
// at a fixed 2 048 cycles the SMs booked first in each horizon take the slice's cycles and the
// last wait (+21.9 % against all-CA: SM 15 finishes at 6 556 cycles, SM 10 at 4 611, where CA's
// finish within 5 263-5 379). With -interval_horizon 512 they meet it nearer their time order:
// within 10 % of all-CA (+2.8 % interval, +2.1 % interval-fold), output unchanged
// (docs/simt-interval.md §1). So they do by default, the horizon ramping up from 256 over the
// launch's first 6 144 cycles (-interval_horizon_ramp 2048; the kernel is ~5 300 cycles long).
void expect_histogram_global_within_10_percent(const std::string &dir, const std::string &horizon_words) {
  result r = run("compare -o '" + dir + "' -c SM7_QV100 " + horizon_words + " -f ca -f interval -f interval-fold "
                 "-- '" + SIMTVP_KERNELS_BIN + "/histogram'");
  ASSERT_EQ(r.status, 0) << r.out;
  pt::ptree j;
  pt::read_json(dir + "/compare.json", j);
  expect_every_assignment_ran_alike(j, "histogram");
  for (const auto &a : j.get_child("assignments"))
    if (a.second.get<std::string>("spec") != "ca" && !horizon_words.empty()) {
      EXPECT_NE(a.second.get<std::string>("fidelity", "").find("interval_horizon=512"), std::string::npos)
          << "the fidelity map names the horizon: " << a.second.get<std::string>("fidelity", "");
    }
  EXPECT_EQ(expect_kernel_within(j, "histogram_global", 0.10), 2);
}

TEST(IntervalHorizon, AShortHorizonSharesAHotL2SliceAsTheCaGpuDoes) {
  expect_histogram_global_within_10_percent(temp_dir("interval_horizon_histogram"), "-s '-interval_horizon 512'");
}

TEST(IntervalHorizon, TheDefaultRampSharesItTooOverAShortKernel) {
  expect_histogram_global_within_10_percent(temp_dir("interval_ramp_histogram"), "");
}

// sgemm_naive on 8 QV100 SMs (m = n = 128, k = 64: eight CTAs an SM): up to 64 warps of an SM
// read the same lines of B (and of A) while their fills are on the way, past the 8 reads an L1D
// MSHR entry merges (-gpgpu_cache:dl1 …,A:256:8). The CA LDST unit then fails reservation and
// holds the memory stage until the fill is in; interval cores that merged without a limit were
// 35 % fast (-35.8 % interval, -35.3 % interval-fold). With the merge limit (docs/simt-interval.md
// §4): -8.5 % and -9.2 %, output unchanged.
TEST(IntervalMshrMerges, CrowdedLinesHoldTheMemoryStageAsTheCaCoresDo) {
  std::string dir = temp_dir("interval_mshr_merges");
  result r = run("compare -o '" + dir + "' -c SM7_QV100 -s '-gpgpu_n_clusters 8' -f ca -f interval -f interval-fold "
                 "-- '" + SIMTVP_KERNELS_BIN + "/sgemm' 128 128 64");
  ASSERT_EQ(r.status, 0) << r.out;
  pt::ptree j;
  pt::read_json(dir + "/compare.json", j);
  expect_every_assignment_ran_alike(j, "sgemm");
  EXPECT_EQ(expect_kernel_within(j, "sgemm_naive", 0.15), 2);
  pt::ptree stats;
  pt::read_json(dir + "/1/stats.json", stats);
  uint64_t fails = 0;
  for (const auto &k : stats.get_child("kernels"))
    fails += k.second.get<uint64_t>(pt::ptree::path_type("counters/interval_l1_mshr_merge_fails", '/'), 0);
  EXPECT_GT(fails, 0u);
}

}  // namespace
