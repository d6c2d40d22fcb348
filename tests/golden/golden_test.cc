// Golden statistics: committed nvcc programs run under `simtvp -o` on several configurations and
// fidelity assignments; each run's stats.json must equal tests/golden/expected/<case>.json byte for
// byte (stored gzip-compressed as expected/<case>.json.gz). SIMTVP_GOLDEN_UPDATE=1 rewrites the
// expected files instead (tests/golden/README.md).
#include <gtest/gtest.h>
#include <zlib.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct golden_case {
  const char *name;     // expected/<name>.json.gz
  const char *program;  // tests/kernels/bin/<program>
  const char *options;  // simtvp options before the program (-c, --set …)
};

// gtest prints a case by its name (ctest shows it too).
void PrintTo(const golden_case &c, std::ostream *os) { *os << c.name; }

// Kept small enough to run in a few seconds: reduced SM counts where a configuration is large.
const golden_case kCases[] = {
    {"default_ca_sgemm", "sgemm", ""},
    {"default_ca_vector_add", "vector_add", ""},
    {"default_ca_reduction", "reduction", ""},
    {"default_ca_atomics", "atomics", ""},
    {"default_ca_streams_events", "streams_events", ""},
    {"default_ca_texture", "texture", ""},
    {"default_at_sgemm", "sgemm", "--set '-simt_model at'"},
    {"default_at_histogram", "histogram", "--set '-simt_model at'"},
    {"default_func_sgemm", "sgemm", "--set '-simt_model func'"},
    {"default_mixed_transpose", "transpose",
     "--set '-simt_model_override 0-3:ca,4-7:at' --set '-dram_model_override 0:at'"},
    {"qv100_ca_dram_at_reduction", "reduction",
     "-c SM7_QV100 --set '-gpgpu_n_clusters 8' --set '-dram_model at'"},
    {"rtx2060_ca_scan", "scan", "-c SM75_RTX2060 --set '-gpgpu_n_clusters 6'"},
    {"gtx480_ca_vector_add", "vector_add", "-c SM2_GTX480 --set '-gpgpu_n_clusters 4'"},
    // the interval GPU (interval cores, memiv behind them), per instruction and with straight runs
    {"default_interval_sgemm", "sgemm",
     "--set '-simt_model interval' --set '-icnt_model at' --set '-mempart_model at' --set '-dram_model at'"},
    {"default_interval_runs_transpose", "transpose",
     "--set '-simt_model interval' --set '-icnt_model at' --set '-mempart_model at' --set '-dram_model at' "
     "--set '-interval_runs 1'"},
};

std::string read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A gzip file's contents ("" when it cannot be read).
std::string read_gzip(const std::string &path) {
  std::string out;
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return out;
  char buf[65536];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, (size_t)n);
  gzclose(f);
  return out;
}

bool write_gzip(const std::string &path, const std::string &text) {
  gzFile f = gzopen(path.c_str(), "wb9");
  if (!f) return false;
  bool ok = gzwrite(f, text.data(), (unsigned)text.size()) == (int)text.size();
  return gzclose(f) == Z_OK && ok;
}

// Replaces every occurrence of `from` with `to`.
std::string replace_all(std::string s, const std::string &from, const std::string &to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// Flattens JSON into "path = scalar" entries (path keys joined by '.', array indices in brackets)
// so a mismatch can name the statistics that moved. Only what stats.json contains is handled.
class flattener {
 public:
  explicit flattener(const std::string &text) : s_(text) {}
  std::map<std::string, std::string> run() {
    value("");
    return out_;
  }

 private:
  void skip() {
    while (i_ < s_.size() && isspace((unsigned char)s_[i_])) i_++;
  }
  std::string string_token() {
    size_t start = i_++;
    while (i_ < s_.size() && s_[i_] != '"') i_ += s_[i_] == '\\' ? 2 : 1;
    i_++;
    return s_.substr(start, i_ - start);
  }
  void value(const std::string &path) {
    skip();
    if (i_ >= s_.size()) return;
    char c = s_[i_];
    if (c == '{') {
      i_++;
      for (;;) {
        skip();
        if (i_ >= s_.size() || s_[i_] == '}') break;
        std::string key = string_token();
        key = key.substr(1, key.size() - 2);
        skip();
        i_++;  // ':'
        value(path.empty() ? key : path + "." + key);
        skip();
        if (i_ < s_.size() && s_[i_] == ',') i_++;
      }
      i_++;
    } else if (c == '[') {
      i_++;
      for (size_t n = 0;; n++) {
        skip();
        if (i_ >= s_.size() || s_[i_] == ']') break;
        value(path + "[" + std::to_string(n) + "]");
        skip();
        if (i_ < s_.size() && s_[i_] == ',') i_++;
      }
      i_++;
    } else if (c == '"') {
      out_[path] = string_token();
    } else {
      size_t start = i_;
      while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '}' && s_[i_] != ']' && !isspace((unsigned char)s_[i_])) i_++;
      out_[path] = s_.substr(start, i_ - start);
    }
  }
  const std::string &s_;
  size_t i_ = 0;
  std::map<std::string, std::string> out_;
};

// The first few statistics that differ, for the failure message.
std::string describe_difference(const std::string &expected, const std::string &actual) {
  std::map<std::string, std::string> e = flattener(expected).run(), a = flattener(actual).run();
  std::ostringstream msg;
  int shown = 0, total = 0;
  auto note = [&](const std::string &path, const std::string &was, const std::string &now) {
    if (shown++ < 20) msg << "  " << path << ": " << was << " -> " << now << "\n";
    total++;
  };
  for (const auto &[path, value] : e) {
    auto it = a.find(path);
    if (it == a.end()) note(path, value, "(absent)");
    else if (it->second != value) note(path, value, it->second);
  }
  for (const auto &[path, value] : a)
    if (!e.count(path)) note(path, "(absent)", value);
  if (total == 0) msg << "  (same values, different formatting)\n";
  else if (total > shown) msg << "  ... " << (total - shown) << " more\n";
  return msg.str();
}

class GoldenStats : public ::testing::TestWithParam<golden_case> {};

TEST_P(GoldenStats, StatisticsEqualTheCommittedOnes) {
  const golden_case &c = GetParam();
  const std::string src = SIMTVP_SOURCE_DIR;
  const std::string out = std::string(SIMTVP_BINARY_DIR) + "/tests/golden/out/" + c.name;
  ASSERT_EQ(std::system(("rm -rf '" + out + "' && mkdir -p '" + out + "'").c_str()), 0);
  // The user's environment must not change the run.
  std::string cmd = "env -u SIMTVP_CONFIG -u SIMTVP_OPTIONS -u SIMTVP_OUTDIR -u SIMTVP_STRICT '" +
                    std::string(SIMTVP_CLI) + "' -q -o '" + out + "' " + c.options + " '" + src +
                    "/tests/kernels/bin/" + c.program + "' > '" + out + "/run.log' 2>&1";
  int st = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0)
      << cmd << "\n" << read_file(out + "/run.log");
  std::string actual = read_file(out + "/stats.json");
  ASSERT_FALSE(actual.empty()) << "no stats.json from " << cmd;
  // The configuration's absolute path differs between checkouts.
  actual = replace_all(actual, "\"" + src + "/", "\"<source>/");

  const std::string expected_path = src + "/tests/golden/expected/" + c.name + ".json.gz";
  const char *update = std::getenv("SIMTVP_GOLDEN_UPDATE");
  if (update && *update && std::string(update) != "0") {
    ASSERT_TRUE(write_gzip(expected_path, actual)) << "cannot write " << expected_path;
    GTEST_SKIP() << "rewrote " << expected_path;
  }
  std::string expected = read_gzip(expected_path);
  ASSERT_FALSE(expected.empty()) << expected_path << " is missing: run with SIMTVP_GOLDEN_UPDATE=1";
  std::ofstream(out + "/stats.normalised.json", std::ios::binary) << actual;
  EXPECT_TRUE(actual == expected)
      << "statistics of '" << c.program << " " << c.options << "' differ from " << expected_path
      << ":\n" << describe_difference(expected, actual) << "this run's file: " << out
      << "/stats.normalised.json\nIf the change is meant to move them: SIMTVP_GOLDEN_UPDATE=1 ctest "
      << "--test-dir <build> -L golden, then review git diff tests/golden/expected";
}

INSTANTIATE_TEST_SUITE_P(Cases, GoldenStats, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<golden_case> &info) { return std::string(info.param.name); });

// The flattener the failure messages rely on names a changed value by its path.
TEST(GoldenStatsDiff, NamesTheStatisticThatMoved) {
  std::string a = "{\"kernels\": [{\"counters\": {\"gpu_sim_cycle\": 10, \"x\": 1}}]}";
  std::string b = "{\"kernels\": [{\"counters\": {\"gpu_sim_cycle\": 12, \"x\": 1}}]}";
  std::string d = describe_difference(a, b);
  EXPECT_NE(d.find("kernels[0].counters.gpu_sim_cycle: 10 -> 12"), std::string::npos) << d;
  EXPECT_EQ(d.find("counters.x"), std::string::npos) << d;
}

}  // namespace
