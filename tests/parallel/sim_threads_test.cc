// -sim_threads determinism (docs/timing.md "Parallel simulation"): every committed nvcc program of
// tests/kernels/bin, on the default configuration with every core and channel cycle-accurate, and
// a few configurations and fidelity mixes besides, runs as `simtvp -q -o DIR --set '-sim_threads
// N'` with N = 1, 2 and 4; the statistics JSON files must be equal byte for byte, and so must the
// program's output (device printf included), simtvp's messages and the exit status — also when
// simulation control stops the run (cycle, instruction and CTA limits). (The golden statistics of
// tests/golden check that one thread gives the results it always gave.)
#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct thread_case {
  const char *name;
  const char *program;  // tests/kernels/bin/<program>
  const char *options;  // simtvp options before the program
  int status = 0;       // the program's exit status (a simulation limit stops it with 2)
};
void PrintTo(const thread_case &c, std::ostream *os) { *os << c.name; }

const thread_case kCases[] = {
    // Every program, default configuration (8 SMs, CA cores, CA DRAM).
    {"atomics", "atomics", ""},
    {"bitonic_sort", "bitonic_sort", ""},
    {"const_globals", "const_globals", ""},
    {"daxpy", "daxpy", ""},
    {"dynamic_smem", "dynamic_smem", ""},
    {"graphs", "graphs", ""},
    {"histogram", "histogram", ""},
    {"printf", "printf", ""},
    {"recursion", "recursion", ""},
    {"reduction", "reduction", ""},
    {"scan", "scan", ""},
    {"sgemm", "sgemm", ""},
    {"streams_events", "streams_events", ""},
    {"texture", "texture", ""},
    {"transpose", "transpose", ""},
    {"vector_add", "vector_add", ""},
    {"warp_vote", "warp_vote", ""},
    {"wmma", "wmma", ""},
    {"early_exit", "early_exit", ""},
    // Registered malloc memory: simtvp allocates more from the program's heap with more threads (the
    // worker pools), so the buffer lies elsewhere under each -sim_threads; its device address is
    // the registered window's, the same in every run (docs/system-modes.md §1).
    {"zerocopy", "zerocopy", ""},
    {"interval_zerocopy", "zerocopy", "--set '-simt_model interval'"},
    // Unified memory (docs/vm.md): replayable faults recorded in the serial phase, so the fault
    // buffer's order, the batches and every count are one thread's; CA and AT cores.
    {"managed", "managed", ""},
    {"at_cores_managed", "managed", "--set '-simt_model at'"},
    // Managed pages the GPU maps remotely (preferred location host, accessed-by): timing cores
    // without TLBs route them by the functional engine's translations (gpu_top's window table,
    // filled from the engine's threads), then a prefetch moves them into device memory.
    {"managed_remote", "managed_remote", ""},
    {"at_cores_managed_remote", "managed_remote", "--set '-simt_model at'"},
    {"rtx2060_managed_remote", "managed_remote", "-c SM75_RTX2060"},
    // Programs for newer GPUs on their configurations (8 clusters): cp.async, mbarrier, mma.sync;
    // thread block clusters (barrier.cluster, distributed shared memory across SMs), TMA, wgmma.
    {"a100_8_async_copy", "async_copy", "-c SM80_A100 --set '-gpgpu_n_clusters 8'"},
    {"a100_8_mma_tensor", "mma_tensor", "-c SM80_A100 --set '-gpgpu_n_clusters 8'"},
    {"h100_8_hopper", "hopper", "-c SM90_H100 --set '-gpgpu_n_clusters 8'"},
    {"h100_8_warpgroup_mma", "warpgroup_mma", "-c SM90_H100 --set '-gpgpu_n_clusters 8'"},
    // An integrated GPU (docs/system-modes.md): every partition's DRAM traffic through the hub.
    {"unified_sgemm", "sgemm", "--set '-system_mode unified'"},
    // The coherent modes: the system-level cache, the directory and (shared_va) the IOMMU.
    {"shared_llc_sgemm", "sgemm", "--set '-system_mode shared_llc'"},
    {"shared_va_reduction", "reduction", "--set '-system_mode shared_va'"},
    // More SMs and partitions, other fidelities.
    {"qv100_16_sgemm", "sgemm", "-c SM7_QV100 --set '-gpgpu_n_clusters 16'"},
    {"qv100_16_printf", "printf", "-c SM7_QV100 --set '-gpgpu_n_clusters 16'"},
    {"at_everywhere_histogram", "histogram",
     "--set '-simt_model at' --set '-dram_model at' --set '-icnt_model at' --set '-mempart_model at'"},
    {"at_everywhere_streams_events", "streams_events",
     "--set '-simt_model at' --set '-dram_model at' --set '-icnt_model at' --set '-mempart_model at'"},
    // AT cores behind a cycle-accurate interconnect tick in parallel (behind an AT one they tick on
    // the simulation thread): the golden runs' mixes and QV100 with AT cores and memory partitions.
    {"at_cores_sgemm", "sgemm", "--set '-simt_model at'"},
    {"at_cores_histogram", "histogram", "--set '-simt_model at'"},
    // Sampled AT cores (docs/simt-at.md §6a): each core's measurements and fast-forward are its
    // own, so any thread count gives the same statistics.
    {"at_cores_sampled_sgemm", "sgemm", "--set '-simt_model at' --set '-at_sample 512,1024'"},
    {"at_everywhere_sampled_transpose", "transpose",
     "--set '-simt_model at' --set '-dram_model at' --set '-icnt_model at' --set '-mempart_model at' "
     "--set '-at_sample 512,1024'"},
    {"qv100_16_at_cores_and_memory_vector_add", "vector_add",
     "-c SM7_QV100 --set '-gpgpu_n_clusters 16' --set '-simt_model at' --set '-dram_model at' "
     "--set '-mempart_model at'"},
    {"mixed_transpose", "transpose",
     "--set '-simt_model_override 0-3:ca,4-5:at,6-7:func' --set '-dram_model_override 0:at'"},
    {"rtx2060_12_scan", "scan", "-c SM75_RTX2060 --set '-gpgpu_n_clusters 12'"},
    // Interval cores (docs/simt-interval.md): their clusters tick on the simulation thread, so the
    // closed-form memory behind them (models/memiv) sees one order at any thread count; a mix with
    // CA cores, whose clusters stay parallel, and the host link (remote managed pages; zerocopy
    // above).
    {"interval_sgemm", "sgemm", "--set '-simt_model interval'"},
    {"interval_managed_remote", "managed_remote", "--set '-simt_model interval'"},
    {"interval_and_ca_transpose", "transpose", "--set '-simt_model_override 0-3:ca,4-7:interval'"},
    {"qv100_16_interval_vector_add", "vector_add",
     "-c SM7_QV100 --set '-gpgpu_n_clusters 16' --set '-simt_model interval'"},
    // Sampled interval cores (docs/simt-interval.md §10): measurements and fast-forwards are each
    // core's own, on the simulation thread; beside CA cores that tick in parallel.
    {"interval_sampled_sgemm", "sgemm", "--set '-simt_model interval' --set '-at_sample 512,1024'"},
    {"interval_sampled_and_ca_transpose", "transpose",
     "--set '-simt_model_override 0-3:ca,4-7:interval' --set '-at_sample 512,1024'"},
    // Simulation control reads what the clusters count: each stop at the same cycle. The first
    // stops inside reduction's one-CTA kernel (a lone cluster ticks at most edges).
    {"max_insn_in_a_one_cta_kernel", "reduction", "--set '-gpgpu_max_insn 366336'", 2},
    {"max_cycle", "sgemm", "--set '-gpgpu_max_cycle 20000'", 2},
    {"max_cta", "sgemm", "--set '-gpgpu_max_cta 10'", 2},
};

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct run_output {
  int status = -1;
  std::string stats, stdout_text, stderr_text, log;
};

run_output run(const thread_case &c, unsigned threads) {
  const std::string out = std::string(SIMTVP_BINARY_DIR) + "/tests/parallel/out/" + c.name + "_" + std::to_string(threads);
  run_output r;
  if (std::system(("rm -rf '" + out + "' && mkdir -p '" + out + "'").c_str()) != 0) return r;
  std::string cmd = "env -u SIMTVP_CONFIG -u SIMTVP_OPTIONS -u SIMTVP_OUTDIR -u SIMTVP_STRICT '" +
                    std::string(SIMTVP_CLI) + "' -q -o '" + out + "' " + c.options + " --set '-sim_threads " +
                    std::to_string(threads) + "' '" + SIMTVP_SOURCE_DIR + "/tests/kernels/bin/" + c.program +
                    "' > '" + out + "/stdout.txt' 2> '" + out + "/stderr.txt'";
  int st = std::system(cmd.c_str());
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.stats = read_file(out + "/stats.json");
  r.stdout_text = read_file(out + "/stdout.txt");
  r.stderr_text = read_file(out + "/stderr.txt");
  r.log = cmd + "\n" + r.stderr_text;
  return r;
}

class SimThreads : public ::testing::TestWithParam<thread_case> {};

TEST_P(SimThreads, StatisticsAndOutputAreTheSameForOneTwoAndFourThreads) {
  const thread_case &c = GetParam();
  run_output one = run(c, 1);
  ASSERT_EQ(one.status, c.status) << one.log;
  ASSERT_FALSE(one.stats.empty()) << one.log;
  for (unsigned n : {2u, 4u}) {
    run_output many = run(c, n);
    ASSERT_EQ(many.status, c.status) << many.log;
    EXPECT_TRUE(many.stats == one.stats)
        << c.program << " " << c.options << ": stats.json with -sim_threads " << n
        << " differs from one thread (tests/parallel/out/" << c.name << "_1 and _" << n << ")";
    EXPECT_EQ(many.stdout_text, one.stdout_text) << "program output with -sim_threads " << n;
    EXPECT_EQ(many.stderr_text, one.stderr_text) << "messages with -sim_threads " << n;
  }
}

// A bad thread count is a configuration error naming the option; the program does not run.
TEST(SimThreadsOption, BadThreadCountsAreConfigurationErrorsNamingTheOption) {
  const struct {
    const char *value, *message;
  } bad[] = {
      {"0", "-sim_threads: at least one host thread is needed"},
      {"2000", "-sim_threads: at most 1024 host threads"},
      {"two", "-sim_threads: bad value 'two': not an unsigned integer"},
  };
  for (const auto &b : bad) {
    const std::string out = std::string(SIMTVP_BINARY_DIR) + "/tests/parallel/out/bad_threads";
    ASSERT_EQ(std::system(("rm -rf '" + out + "' && mkdir -p '" + out + "'").c_str()), 0);
    std::string cmd = "env -u SIMTVP_OPTIONS '" + std::string(SIMTVP_CLI) + "' -q -o '" + out +
                      "' --set '-sim_threads " + b.value + "' '" + SIMTVP_SOURCE_DIR +
                      "/tests/kernels/bin/vector_add' 1024 > '" + out + "/stdout.txt' 2> '" + out + "/stderr.txt'";
    int st = std::system(cmd.c_str());
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 1) << b.value;
    std::string err = read_file(out + "/stderr.txt");
    EXPECT_NE(err.find("configuration error"), std::string::npos) << err;
    EXPECT_NE(err.find(b.message), std::string::npos) << err;
    EXPECT_EQ(read_file(out + "/stdout.txt").find("PASS"), std::string::npos) << "the program ran";
  }
}

// "Every tests/kernels program": a program added there without a case here fails this test.
TEST(SimThreadsCases, CoverEveryProgramOfTestsKernels) {
  const std::string dir = std::string(SIMTVP_SOURCE_DIR) + "/tests/kernels/bin";
  DIR *d = opendir(dir.c_str());
  ASSERT_NE(d, nullptr) << dir;
  std::set<std::string> listed;
  for (const thread_case &c : kCases) listed.insert(c.program);
  unsigned programs = 0;
  while (struct dirent *e = readdir(d)) {
    const std::string name = e->d_name;
    if (name[0] == '.' || name.find('.') != std::string::npos) continue;  // fixtures, not programs
    programs++;
    EXPECT_TRUE(listed.count(name)) << "tests/kernels/bin/" << name << " has no -sim_threads case in kCases";
  }
  closedir(d);
  EXPECT_GT(programs, 0u) << dir;
}

INSTANTIATE_TEST_SUITE_P(Kernels, SimThreads, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<thread_case> &i) { return std::string(i.param.name); });

}  // namespace
