// simtvp-sweep's local back end end to end (docs/sweep.md): sweep files run through build/bin/
// simtvp-sweep on the committed nvcc programs of tests/kernels/bin; the table against the jobs'
// own stats.json and a direct simtvp run; resuming after a finished, a half-written and an
// interrupted sweep; failed jobs; every sweep-file mistake named by its place. The Slurm back end
// is tested against a real cluster by slurm_test.sh (SweepSlurm.*).
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

const std::string kSrc = SIMTVP_SOURCE_DIR;
const std::string kSweep = SIMTVP_SWEEP;
const std::string kSimtvp = SIMTVP_CLI;

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool exists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

void write_file(const std::string &path, const std::string &text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string replace_all(std::string s, const std::string &from, const std::string &to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

struct result {
  int status;  // exit status, -1 when it did not exit normally
  std::string output;
};

// Runs a shell command with stdout and stderr together; the user's SIMTVP_* settings are removed
// (the sweep removes them from its jobs too, but the check here must not depend on that).
result run(const std::string &cmd) {
  std::string full = "env -u SIMTVP_CONFIG -u SIMTVP_OPTIONS -u SIMTVP_OUTDIR " + cmd + " 2>&1";
  FILE *p = popen(full.c_str(), "r");
  result r{-1, ""};
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// One CSV line into fields (quoted fields as Python's csv module writes them).
std::vector<std::string> csv_fields(const std::string &line) {
  std::vector<std::string> out;
  std::string f;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); i++) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') f += '"', i++;
      else if (c == '"') quoted = false;
      else f += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(f);
      f.clear();
    } else {
      f += c;
    }
  }
  out.push_back(f);
  return out;
}

// table.csv as rows of column -> value.
std::vector<std::map<std::string, std::string>> read_table(const std::string &path) {
  std::istringstream in(read_file(path));
  std::string line;
  std::vector<std::map<std::string, std::string>> rows;
  if (!std::getline(in, line)) return rows;
  std::vector<std::string> head = csv_fields(line);
  while (std::getline(in, line)) {
    std::vector<std::string> f = csv_fields(line);
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < head.size() && i < f.size(); i++) row[head[i]] = f[i];
    rows.push_back(row);
  }
  return rows;
}

// The value of a counter of kernel `index` in a stats.json text (the document lists each kernel's
// counters in order, "kernels": [{... "counters": {"gpu_sim_cycle": N, ...}}, ...]).
std::string kernel_counter(const std::string &stats, size_t index, const std::string &name) {
  size_t at = stats.find("\"kernels\"");
  for (size_t k = 0; at != std::string::npos && k <= index; k++) at = stats.find("\"kernel_name\"", at + 1);
  if (at == std::string::npos) return "(no kernel)";
  std::smatch m;
  std::string rest = stats.substr(at);
  if (!std::regex_search(rest, m, std::regex("\"" + name + "\": ([-0-9.e+]+)"))) return "(absent)";
  return m[1];
}

class SweepLocal : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
    work_ = std::string(SIMTVP_BINARY_DIR) + "/tests/sweep/out/" + info->test_suite_name() + "." + info->name();
    ASSERT_EQ(std::system(("rm -rf '" + work_ + "' && mkdir -p '" + work_ + "'").c_str()), 0);
  }
  // Writes a sweep file; @SRC@ is the source tree, @WORK@ this test's folder.
  std::string spec(const std::string &name, const std::string &text) {
    std::string path = work_ + "/" + name;
    write_file(path, replace_all(replace_all(text, "@SRC@", kSrc), "@WORK@", work_));
    return path;
  }
  result sweep(const std::string &args) { return run("'" + kSweep + "' " + args); }
  std::string work_;
};

// 2 programs (vector_add: one kernel; streams_events: two) x 2 cluster counts x 2 fidelities.
const char kSmallSweep[] = R"(
name = "small"

[[program]]
path = "@SRC@/tests/kernels/bin/vector_add"
args = ["4096"]

[[program]]
path = "@SRC@/tests/kernels/bin/streams_events"

[options]
"-gpgpu_n_clusters" = [2, 4]

[[fidelity]]
name = "ca"
set = ["-simt_model ca"]

[[fidelity]]
name = "at"
set = ["-simt_model at", "-dram_model at"]

[table]
statistics = ["gpu_sim_cycle", "gpu_sim_insn", "gpu_ipc", "icnt.packet_latency.mean", "DRAM[*].dram_eff"]

[[plot]]
statistic = "gpu_sim_cycle"

[[plot]]
statistic = "gpu_ipc"
x = "fidelity"
title = "IPC per fidelity"
)";

TEST_F(SweepLocal, EveryJobRunsInItsOwnFolderAndTheTableHasOneRowPerJobAndKernel) {
  std::string s = spec("small.toml", kSmallSweep);
  result r = sweep("run '" + s + "' -o '" + work_ + "/out' -j 2");
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("8 jobs, 0 finished earlier (skipped), 8 to run"), std::string::npos) << r.output;

  // Columns: the job, the sweep's dimensions, the program's arguments, the kernel, then the
  // statistics in the file's order with DRAM[*] expanded to the default GPU's three channels.
  std::istringstream csv(read_file(work_ + "/out/table.csv"));
  std::string head;
  std::getline(csv, head);
  EXPECT_EQ(head,
            "job,program,gpgpu_n_clusters,fidelity,args,kernel_index,kernel_name,kernel_launch_uid,"
            "gpu_sim_cycle,gpu_sim_insn,gpu_ipc,icnt.packet_latency.mean,DRAM[0].dram_eff,"
            "DRAM[1].dram_eff,DRAM[2].dram_eff");
  auto rows = read_table(work_ + "/out/table.csv");
  ASSERT_EQ(rows.size(), 12u) << "4 vector_add jobs x 1 kernel + 4 streams_events jobs x 2 kernels";

  // Each row's figures are its job's own stats.json.
  for (const auto &row : rows) {
    std::string stats = read_file(work_ + "/out/jobs/" + row.at("job") + "/stats.json");
    ASSERT_FALSE(stats.empty()) << row.at("job");
    size_t k = std::stoul(row.at("kernel_index"));
    EXPECT_EQ(row.at("gpu_sim_cycle"), kernel_counter(stats, k, "gpu_sim_cycle")) << row.at("job");
    EXPECT_EQ(row.at("gpu_sim_insn"), kernel_counter(stats, k, "gpu_sim_insn")) << row.at("job");
    EXPECT_NE(row.at("gpu_sim_cycle"), "0");
  }
  EXPECT_EQ(rows[0].at("job"), "vector_add.gpgpu_n_clusters=2.ca");
  EXPECT_EQ(rows[0].at("args"), "4096");
  EXPECT_EQ(rows[4].at("program"), "streams_events");
  EXPECT_EQ(rows[4].at("kernel_index"), "0");
  EXPECT_EQ(rows[5].at("kernel_index"), "1");
  EXPECT_NE(rows[4].at("kernel_name"), rows[5].at("kernel_name"));

  // A job is exactly `simtvp -q -o DIR --strict --set ... -- PROGRAM ARGS`: the same run by hand
  // writes the same statistics.
  const std::string direct = work_ + "/direct";
  result d = run("'" + kSimtvp + "' -q -o '" + direct + "' --strict --set '-gpgpu_n_clusters 4' --set "
                 "'-simt_model at' --set '-dram_model at' -- '" + kSrc + "/tests/kernels/bin/vector_add' 4096");
  ASSERT_EQ(d.status, 0) << d.output;
  EXPECT_EQ(read_file(direct + "/stats.json"),
            read_file(work_ + "/out/jobs/vector_add.gpgpu_n_clusters=4.at/stats.json"));

  // Every job finished; the summary page is one self-contained file with both plots.
  std::string jobs = read_file(work_ + "/out/jobs.csv");
  size_t ok = 0;
  for (size_t at = jobs.find(",ok,"); at != std::string::npos; at = jobs.find(",ok,", at + 1)) ok++;
  EXPECT_EQ(ok, 8u) << jobs;
  std::string html = read_file(work_ + "/out/summary.html");
  EXPECT_NE(html.find("gpu_sim_cycle by gpgpu_n_clusters"), std::string::npos);
  EXPECT_NE(html.find("IPC per fidelity"), std::string::npos);
  size_t svgs = 0;
  for (size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) svgs++;
  EXPECT_EQ(svgs, 2u);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_NE(read_file(work_ + "/out/table.json").find("\"format\": \"simtvp-sweep-table\""), std::string::npos);
}

TEST_F(SweepLocal, JsonAndTomlSweepFilesGiveTheSameTable) {
  std::string toml = spec("s.toml", R"(
name = "same"
[[program]]
path = "@SRC@/tests/kernels/bin/vector_add"
args = ["2048"]
[[config]]
file = "SM2_GTX480"
set = ["-gpgpu_n_clusters 2"]
[[fidelity]]
name = "ca"
[[fidelity]]
name = "func"
set = ["-simt_model func"]
)");
  std::string json = spec("s.json", R"({
  "name": "same",
  "program": [{"path": "@SRC@/tests/kernels/bin/vector_add", "args": [2048]}],
  "config": [{"file": "SM2_GTX480", "set": ["-gpgpu_n_clusters 2"]}],
  "fidelity": [{"name": "ca"}, {"name": "func", "set": ["-simt_model func"]}]
})");
  result a = sweep("run '" + toml + "' -o '" + work_ + "/toml' -j 2");
  result b = sweep("run '" + json + "' -o '" + work_ + "/json' -j 2");
  ASSERT_EQ(a.status, 0) << a.output;
  ASSERT_EQ(b.status, 0) << b.output;
  EXPECT_EQ(read_file(work_ + "/toml/table.csv"), read_file(work_ + "/json/table.csv"));
  auto rows = read_table(work_ + "/toml/table.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("job"), "vector_add.SM2_GTX480.ca");
  EXPECT_EQ(rows[0].at("config"), "SM2_GTX480");
  EXPECT_EQ(rows[1].at("gpu_sim_cycle"), "0") << "functional mode takes no GPU time";
  EXPECT_NE(rows[0].at("gpu_sim_cycle"), "0");
  EXPECT_EQ(rows[0].at("gpu_sim_insn"), rows[1].at("gpu_sim_insn"));
}

TEST_F(SweepLocal, ASecondRunSkipsFinishedJobsAndRedoesAHalfWrittenOne) {
  std::string s = spec("small.toml", kSmallSweep);
  const std::string out = work_ + "/out";
  ASSERT_EQ(sweep("run '" + s + "' -o '" + out + "' -j 2").status, 0);
  const std::string table = read_file(out + "/table.csv");
  const std::string kept = out + "/jobs/vector_add.gpgpu_n_clusters=2.ca/status.json";
  const std::string kept_status = read_file(kept);
  struct stat before;
  ASSERT_EQ(stat(kept.c_str(), &before), 0);

  // Nothing to do: every job is skipped, the files stay as they are.
  result again = sweep("run '" + s + "' -o '" + out + "' -j 2");
  ASSERT_EQ(again.status, 0) << again.output;
  EXPECT_NE(again.output.find("8 finished earlier (skipped), 0 to run"), std::string::npos) << again.output;

  // A job cut off while simtvp wrote its statistics: no status.json, half a stats.json.
  const std::string half = out + "/jobs/streams_events.gpgpu_n_clusters=4.at";
  ASSERT_EQ(std::remove((half + "/status.json").c_str()), 0);
  write_file(half + "/stats.json", read_file(half + "/stats.json").substr(0, 200));
  result resumed = sweep("run '" + s + "' -o '" + out + "' -j 2");
  ASSERT_EQ(resumed.status, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("7 finished earlier (skipped), 1 to run"), std::string::npos) << resumed.output;
  EXPECT_NE(resumed.output.find("[1/1] streams_events.gpgpu_n_clusters=4.at: ok"), std::string::npos)
      << resumed.output;
  EXPECT_EQ(read_file(out + "/table.csv"), table);
  struct stat after;
  ASSERT_EQ(stat(kept.c_str(), &after), 0);
  EXPECT_EQ(read_file(kept), kept_status);
  EXPECT_EQ(before.st_ino, after.st_ino) << "a finished job's folder was rewritten";
  EXPECT_EQ(before.st_mtime, after.st_mtime);

  // A changed sweep file: a job whose command changed runs again, a new job runs, the rest stay.
  std::string more = replace_all(kSmallSweep, "[2, 4]", "[2, 4, 8]");
  s = spec("small.toml", more);
  result grown = sweep("run '" + s + "' -o '" + out + "' -j 2");
  ASSERT_EQ(grown.status, 0) << grown.output;
  EXPECT_NE(grown.output.find("12 jobs, 8 finished earlier (skipped), 4 to run"), std::string::npos)
      << grown.output;
  EXPECT_EQ(read_table(out + "/table.csv").size(), 18u);
}

TEST_F(SweepLocal, AnInterruptedSweepResumesWhereItStopped) {
  // The third of four jobs waits for a file, so the interruption comes at a known point: two jobs
  // finished, one running (its folder half-written), one not started.
  write_file(work_ + "/gate.sh",
             "#!/bin/sh\ntouch \"$GATE_DIR/started\"\n"
             "while [ ! -e \"$GATE_DIR/release\" ]; do sleep 0.05; done\nexec \"$@\"\n");
  ASSERT_EQ(chmod((work_ + "/gate.sh").c_str(), 0755), 0);
  std::string s = spec("gate.toml", R"(
name = "gate"
[[program]]
path = "@SRC@/tests/kernels/bin/vector_add"
variants = { a = ["1024"], b = ["2048"] }
[[program]]
name = "gated"
path = "@WORK@/gate.sh"
args = ["@SRC@/tests/kernels/bin/vector_add", "4096"]
env = { GATE_DIR = "@WORK@" }
[[program]]
path = "@SRC@/tests/kernels/bin/reduction"
)");
  const std::string out = work_ + "/out";
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    freopen((work_ + "/first.log").c_str(), "w", stderr);
    execl(kSweep.c_str(), kSweep.c_str(), "run", s.c_str(), "-o", out.c_str(), "-j", "1", (char *)nullptr);
    _exit(127);
  }
  bool started = false;
  for (int i = 0; i < 1200 && !started; i++) {  // up to 60 s on a loaded machine
    started = exists(work_ + "/started");
    if (!started) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(started) << read_file(work_ + "/first.log");
  kill(pid, SIGTERM);
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  std::string first = read_file(work_ + "/first.log");
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 130) << first;
  EXPECT_NE(first.find("interrupted"), std::string::npos) << first;
  EXPECT_TRUE(exists(out + "/jobs/vector_add-a/status.json"));
  EXPECT_TRUE(exists(out + "/jobs/vector_add-b/status.json"));
  EXPECT_TRUE(exists(out + "/jobs/gated/job.json")) << "the running job's folder was started";
  EXPECT_FALSE(exists(out + "/jobs/gated/status.json")) << "an interrupted job is not finished";
  EXPECT_FALSE(exists(out + "/jobs/reduction"));
  const std::string a_status = read_file(out + "/jobs/vector_add-a/status.json");

  write_file(work_ + "/release", "");
  result resumed = sweep("run '" + s + "' -o '" + out + "' -j 1");
  ASSERT_EQ(resumed.status, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("4 jobs, 2 finished earlier (skipped), 2 to run"), std::string::npos)
      << resumed.output;
  EXPECT_EQ(read_file(out + "/jobs/vector_add-a/status.json"), a_status);
  auto rows = read_table(out + "/table.csv");
  ASSERT_EQ(rows.size(), 6u) << "reduction runs three kernels";
  EXPECT_EQ(rows[2].at("job"), "gated");
  EXPECT_EQ(rows[2].at("args"), kSrc + "/tests/kernels/bin/vector_add 4096");
}

TEST_F(SweepLocal, FailedJobsAreReportedKeptAndRunAgainOnlyOnRequest) {
  std::string s = spec("fail.toml", R"(
name = "fail"
[[program]]
path = "@SRC@/tests/kernels/bin/vector_add"
args = ["1024"]
[[program]]
name = "exits3"
path = "/bin/sh"
args = ["-c", "echo broken input >&2; exit 3"]
[[program]]
name = "nokernel"
path = "/bin/true"
[[program]]
name = "slow"
path = "/bin/sleep"
args = ["30"]
timeout = 0.5
)");
  const std::string out = work_ + "/out";
  result r = sweep("run '" + s + "' -o '" + out + "' -j 2");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("exits3: FAILED (exit status 3: broken input)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("nokernel: FAILED (no readable stats.json"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("slow: FAILED (timed out after 0.5 s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("4 jobs: 3 failed, 1 ok"), std::string::npos) << r.output;
  EXPECT_EQ(read_table(out + "/table.csv").size(), 1u) << "only finished jobs have rows";
  std::string html = read_file(out + "/summary.html");
  EXPECT_NE(html.find("Jobs not finished"), std::string::npos);
  EXPECT_NE(html.find("exit status 3: broken input"), std::string::npos);

  result again = sweep("run '" + s + "' -o '" + out + "'");
  EXPECT_EQ(again.status, 1);
  EXPECT_NE(again.output.find("3 failed earlier (kept; --retry-failed runs them again), 0 to run"),
            std::string::npos) << again.output;
  result retry = sweep("run '" + s + "' -o '" + out + "' --retry-failed");
  EXPECT_EQ(retry.status, 1);
  EXPECT_NE(retry.output.find("3 to run"), std::string::npos) << retry.output;

  result status = sweep("status '" + s + "' -o '" + out + "'");
  EXPECT_EQ(status.status, 1);
  EXPECT_NE(status.output.find("failed   exits3  exit status 3: broken input"), std::string::npos) << status.output;
  EXPECT_NE(status.output.find("ok       vector_add"), std::string::npos) << status.output;
}

double status_number(const std::string &status_json, const std::string &key) {
  std::smatch m;
  if (!std::regex_search(status_json, m, std::regex("\"" + key + "\": ?([-0-9.e+]+)"))) return -1;
  return std::stod(m[1]);
}

// -sim_threads as a sweep dimension: the statistics do not depend on it (docs/timing.md §12); a
// job takes a core per simulation thread from the local pool (-j 2: two 2-thread jobs never run
// at once) and asks Slurm for as many CPUs unless the sweep file says otherwise.
TEST_F(SweepLocal, SimThreadsJobsTakeACorePerThreadAndGiveTheSameStatistics) {
  std::string s = spec("threads.toml", R"(
name = "threads"
[[program]]
path = "@SRC@/tests/kernels/bin/sgemm"
args = ["64", "64", "64"]
slurm = { mem = "1G" }
[[program]]
path = "@SRC@/tests/kernels/bin/vector_add"
args = ["8192"]
slurm = { cpus_per_task = 4 }
[options]
"-sim_threads" = [1, 2]
[table]
statistics = ["gpu_sim_cycle", "gpu_sim_insn", "gpu_ipc", "L2_total_cache_accesses", "DRAM[*].dram_eff"]
)");
  const std::string out = work_ + "/out";
  result list = sweep("list '" + s + "' -o '" + out + "'");
  ASSERT_EQ(list.status, 0) << list.output;
  EXPECT_NE(list.output.find("sgemm.sim_threads=1\n"), std::string::npos) << list.output;
  EXPECT_NE(list.output.find("host threads: 1; slurm: --mem=1G\n"), std::string::npos) << list.output;
  EXPECT_NE(list.output.find("host threads: 2; slurm: --mem=1G --cpus-per-task=2\n"), std::string::npos)
      << list.output;
  EXPECT_NE(list.output.find("host threads: 2; slurm: --cpus-per-task=4\n"), std::string::npos)
      << "an explicit cpus_per_task wins\n" << list.output;

  result r = sweep("run '" + s + "' -o '" + out + "' -j 2");
  ASSERT_EQ(r.status, 0) << r.output;
  auto rows = read_table(out + "/table.csv");
  ASSERT_EQ(rows.size(), 6u) << "sgemm: 2 kernels x 2 thread counts, vector_add: 1 x 2";
  std::map<std::string, std::map<std::string, std::string>> one_thread;  // program/kernel -> row
  for (const auto &row : rows)
    if (row.at("sim_threads") == "1") one_thread[row.at("program") + "/" + row.at("kernel_index")] = row;
  ASSERT_EQ(one_thread.size(), 3u);
  for (const auto &row : rows) {
    if (row.at("sim_threads") != "2") continue;
    const auto &base = one_thread.at(row.at("program") + "/" + row.at("kernel_index"));
    for (const auto &[column, value] : base) {
      if (column == "job" || column == "sim_threads") continue;
      EXPECT_EQ(row.at(column), value) << column << " of " << row.at("job");
    }
  }

  // Both 2-thread jobs need the whole -j 2 pool: one ran after the other.
  std::string a = read_file(out + "/jobs/sgemm.sim_threads=2/status.json");
  std::string b = read_file(out + "/jobs/vector_add.sim_threads=2/status.json");
  EXPECT_EQ(status_number(a, "threads"), 2);
  EXPECT_EQ(status_number(b, "threads"), 2);
  double a0 = status_number(a, "start_unix"), a1 = status_number(a, "end_unix");
  double b0 = status_number(b, "start_unix"), b1 = status_number(b, "end_unix");
  ASSERT_GT(a0, 0);
  ASSERT_GT(b0, 0);
  EXPECT_TRUE(a1 <= b0 || b1 <= a0) << "sgemm [" << a0 << ", " << a1 << "], vector_add [" << b0 << ", " << b1 << "]";
}

// Every mistake in a sweep file names the file and the place; nothing runs.
struct spec_error {
  const char *name;
  const char *text;      // the sweep file (after a valid [[program]] unless it starts with '!')
  const char *message;   // expected in the error line
};
void PrintTo(const spec_error &e, std::ostream *os) { *os << e.name; }

const spec_error kSpecErrors[] = {
    {"UnknownKey", "!progam = 1\n[[program]]\npath = \"/bin/true\"\n", "bad.toml: unknown key 'progam' (known here: name, output"},
    {"NoPrograms", "!name = \"x\"\n", "bad.toml: program: the sweep has no programs"},
    {"ProgramWithoutPath", "!name = \"x\"\n[[program]]\nargs = []\n", "bad.toml: program[0]: needs a 'path'"},
    {"ProgramNotExecutable", "!name = \"x\"\n[[program]]\npath = \"no/such/program\"\n",
     "bad.toml: program[0].path: 'no/such/program' is not an executable file"},
    {"ArgsNotAList", "!name = \"x\"\n[[program]]\npath = \"/bin/true\"\nargs = \"1 2\"\n",
     "bad.toml: program[0].args: expected a list, found \"1 2\""},
    {"DuplicateProgram", "[[program]]\npath = \"@SRC@/tests/kernels/bin/vector_add\"\n",
     "bad.toml: program[1]: the program name 'vector_add' is used twice"},
    {"OptionNameWithoutDash", "[options]\ngpgpu_n_clusters = [2]\n",
     "bad.toml: options.gpgpu_n_clusters: 'gpgpu_n_clusters' is not an option name"},
    {"OptionValueNotScalar", "[options]\n\"-gpgpu_n_clusters\" = [[2]]\n",
     "bad.toml: options.-gpgpu_n_clusters[0]: expected a string or a number, found [2]"},
    {"SetWithoutValue", "[[fidelity]]\nname = \"ca\"\nset = [\"-simt_model\"]\n",
     "bad.toml: fidelity[0].set[0]: '-simt_model': expected '-option value'"},
    {"FidelityWithoutName", "[[fidelity]]\nset = [\"-simt_model at\"]\n", "bad.toml: fidelity[0]: needs a 'name'"},
    {"BadFolderName", "[[fidelity]]\nname = \"c a\"\n", "bad.toml: fidelity[0].name: 'c a' cannot name a job folder"},
    {"PlotAlongNoDimension", "[[plot]]\nstatistic = \"gpu_ipc\"\nx = \"-l1d_size\"\n",
     "bad.toml: plot[0].x: '-l1d_size' is not a dimension of this sweep (one of: program)"},
    {"PlotOfAStatisticNotInTheTable", "[[plot]]\nstatistic = \"gpu_occupancy\"\n",
     "bad.toml: plot[0].statistic: 'gpu_occupancy' is not in table.statistics"},
    {"BadToml", "[options\n", "bad.toml: not valid TOML"},
    {"OptionValueSimtvpRefuses", "[options]\n\"-gpgpu_n_clusters\" = [\"many\"]\n",
     "bad.toml: job vector_add.gpgpu_n_clusters=many: simtvp refuses its configuration: "
     "configuration error: command line argument 0: -gpgpu_n_clusters: bad value 'many'"},
    {"MisspeltOptionIsAnErrorUnderStrict", "[[fidelity]]\nname = \"at\"\nset = [\"-simt_modle at\"]\n",
     "simtvp refuses its configuration: configuration error: command line argument 0: unknown option -simt_modle"},
    {"UnknownConfiguration", "[[config]]\nfile = \"SM99_NONE\"\n",
     "bad.toml: job vector_add.SM99_NONE: simtvp refuses its configuration"},
};

class SweepSpec : public SweepLocal, public ::testing::WithParamInterface<spec_error> {};

TEST_P(SweepSpec, MistakeIsNamedByItsPlaceAndNothingRuns) {
  const spec_error &e = GetParam();
  std::string text = e.text;
  if (text[0] == '!') text = text.substr(1);
  else text = "[[program]]\npath = \"@SRC@/tests/kernels/bin/vector_add\"\n" + text;
  std::string s = spec("bad.toml", text);
  result r = sweep("run '" + s + "' -o '" + work_ + "/out'");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find(std::string("simtvp-sweep: error: ") + work_ + "/"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(replace_all(e.message, "@SRC@", kSrc)), std::string::npos) << r.output;
  EXPECT_FALSE(exists(work_ + "/out/jobs")) << "nothing may run after a mistake";
}

INSTANTIATE_TEST_SUITE_P(All, SweepSpec, ::testing::ValuesIn(kSpecErrors),
                         [](const ::testing::TestParamInfo<spec_error> &i) { return std::string(i.param.name); });

}  // namespace
