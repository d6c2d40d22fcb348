// simtvp compare — runs one CUDA program once per fidelity assignment (which blocks are functional,
// approximately timed or cycle accurate) and shows, kernel by kernel, what each assignment costs
// in accuracy and buys in speed against the first one: cycles and their error, host speed, and
// the block statistics that moved (cache hit rates, DRAM bandwidth, interconnect latency, stall
// breakdown). It is how a user decides which block of the GPU needs cycle accuracy for their
// program. Each run is a plain `simtvp -q -o DIR/<n>` of the program; this file only reads what
// those runs wrote (stats.json, host_time.json) and compares it. `simtvp compare --help`.
#include "simtvp_compare.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>

#include "demangle.h"
#include "gpu_config.h"
#include "json_text.h"

namespace {

// An assignment whose kernels took at least this many page faults per warp instruction is noted:
// first touches of the model's tables take much of such a kernel's host time (tests/kernels'
// vector_add: ~0.7; a 1 M-element vector add: ~0.01).
constexpr double kFaultsPerInsnNote = 0.1;

const char kCompareUsage[] =
    "usage: simtvp compare [--fidelity SPEC]... [options] [--] [PROGRAM [ARGS...]]\n"
    "\n"
    "Runs PROGRAM (default: the bundled sample) once per fidelity assignment, in the order given (the first is the reference;\n"
    "default: --fidelity ca --fidelity at), and prints per kernel: core cycles, their error\n"
    "against the reference, host speed (warp instructions per wall second) and its ratio to the\n"
    "reference's, and the block statistics that moved. Writes the same as JSON.\n"
    "\n"
    "SPEC is one of\n"
    "  ca        every block cycle accurate\n"
    "  at        every block approximately timed (SIMT cores, interconnect, partitions, DRAM)\n"
    "  at-sampled  every block AT, the cores sampled (-at_sample " GPU_FIDELITY_SAMPLED ")\n"
    "  interval  interval SIMT cores (docs/simt-interval.md), the memory blocks AT\n"
    "  interval-sampled  interval cores sampled (-at_sample " GPU_FIDELITY_IV_SAMPLED "), the memory blocks AT\n"
    "  interval-runs  interval cores timing straight runs as one step (-interval_runs 1), the memory blocks AT\n"
    "  interval-fold  interval-runs with a CTA's warps timed as one group (-interval_fold 1)\n"
    "  func      functional SIMT side, no timing\n"
    "  at-cores  AT SIMT cores on the CA memory system\n"
    "  at-mem    CA SIMT cores on the AT interconnect, memory partitions and DRAM\n"
    "  block=model items joined by commas, over all-CA: blocks simt (func|at|ca|interval), icnt,\n"
    "            mempart, dram (at|ca), and mem = icnt+mempart+dram; e.g. 'simt=at,mem=ca'\n"
    "Per-instance choices (-simt_model_override …) go in --set, which applies to every run.\n"
    "\n"
    "Options:\n"
    "  -f, --fidelity SPEC   add an assignment (repeatable)\n"
    "  -c, --config FILE     GPU configuration, as for simtvp\n"
    "  -s, --set 'OPT VAL'   a GPU option for every run, as for simtvp (repeatable)\n"
    "  -o, --outdir DIR      where each run's output goes (DIR/0, DIR/1, … with stats.json,\n"
    "                        stats.txt, report.html, the program's stdout in program.out and\n"
    "                        simtvp's stderr in simtvp.err); default: simtvp-compare\n"
    "      --json FILE       the comparison as JSON (default DIR/compare.json)\n"
    "      --moved PCT       a statistic 'moved' when a rate differs by PCT percentage points\n"
    "                        or a count by PCT percent from the reference (default 2)\n"
    "      --strict          unknown options in the configuration are errors\n"
    "  -h, --help            this text\n"
    "\n"
    "Exit status: 0 when every run exits as the reference did; 3 when a run's exit status\n"
    "differs; 2 on bad usage. A run whose program output differs from the reference's is\n"
    "reported (\"output differs\") and recorded in the JSON.\n"
    "\n"
    "Example:\n"
    "  simtvp compare -c SM7_QV100 -f ca -f at -f at-cores -f at-mem -- ./app 1024\n";

int compare_usage_error(const std::string &what) {
  std::fprintf(stderr, "simtvp compare: %s (simtvp compare --help)\n", what.c_str());
  return 2;
}

// ---- what a run wrote ----------------------------------------------------------------------

// One kernel of one run: its counters and ratios from stats.json (the kernel's own values).
struct kernel_stats {
  std::string name;
  uint64_t uid = 0;
  std::map<std::string, double> values;
  double wall_s = -1;
  double cpu_s = -1;        // the process's CPU time while the kernel ran
  double page_faults = -1;  // the process's minor page faults while it ran
  double get(const std::string &key, double absent = NAN) const {
    auto it = values.find(key);
    return it == values.end() ? absent : it->second;
  }
};

struct run_result {
  std::string spec, fidelity_map, dir;
  std::vector<std::string> option_words;
  int exit_status = -1;
  double wall_s = 0;
  std::string output;  // the program's stdout
  std::vector<kernel_stats> kernels;
};

std::string read_file(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// stats.json: info.fidelity and, per kernel, kernel_name, kernel_launch_uid, counters, ratios.
// A missing or unreadable file leaves the run without kernels (its exit status says why).
void read_stats_json(const std::string &path, run_result &run) {
  namespace pt = boost::property_tree;
  pt::ptree root;
  try {
    pt::read_json(path, root);
  } catch (const pt::ptree_error &) {
    return;
  }
  run.fidelity_map = root.get<std::string>(pt::ptree::path_type("info/fidelity", '/'), "");
  auto kernels = root.get_child_optional("kernels");
  if (!kernels) return;
  for (const auto &entry : *kernels) {
    const pt::ptree &k = entry.second;
    kernel_stats ks;
    ks.name = k.get<std::string>("kernel_name", "");
    ks.uid = k.get<uint64_t>("kernel_launch_uid", 0);
    for (const char *group : {"counters", "ratios"})
      if (auto g = k.get_child_optional(group))
        for (const auto &kv : *g) {
          const std::string &text = kv.second.data();
          char *end = nullptr;
          double v = std::strtod(text.c_str(), &end);
          if (end != text.c_str() && !*end) ks.values.emplace(kv.first, v);
        }
    run.kernels.push_back(std::move(ks));
  }
}

// host_time.json (vp_platform writes it): {"kernels": [{"kernel_launch_uid": N, "wall_s": S,
// "cpu_s": C, "page_faults": F}, …]}.
void read_host_time(const std::string &path, std::vector<kernel_stats> &ks) {
  namespace pt = boost::property_tree;
  pt::ptree root;
  try {
    pt::read_json(path, root);
  } catch (const pt::ptree_error &) {
    return;
  }
  if (auto kernels = root.get_child_optional("kernels"))
    for (const auto &entry : *kernels) {
      uint64_t uid = entry.second.get<uint64_t>("kernel_launch_uid", 0);
      for (kernel_stats &k : ks)
        if (k.uid == uid) {
          k.wall_s = entry.second.get<double>("wall_s", -1);
          k.cpu_s = entry.second.get<double>("cpu_s", -1);
          k.page_faults = entry.second.get<double>("page_faults", -1);
        }
    }
}

// ---- the figures compared ------------------------------------------------------------------

// A figure of a kernel: a rate (0..1, shown in percent; moves by percentage points) or a count.
struct figure {
  std::string key, label;
  bool rate;
  double value;
};

double sum_indexed(const kernel_stats &k, const std::string &prefix, const std::string &suffix, uint32_t *n) {
  double s = 0;
  *n = 0;
  for (const auto &kv : k.values) {
    const std::string &name = kv.first;
    if (name.size() > prefix.size() + suffix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      s += kv.second;
      (*n)++;
    }
  }
  return s;
}

// The block statistics a user looks at first, each present only when the run measured it, with
// the definitions of simtvp's run summary (report/summary.cc).
std::vector<figure> figures_of(const kernel_stats &k) {
  std::vector<figure> f;
  double l1a = k.get("L1D_total_cache_accesses", 0), l2a = k.get("L2_total_cache_accesses", 0);
  if (l1a > 0) f.push_back({"l1d_hit", "L1D hit", true, 1 - k.get("L1D_total_cache_misses", 0) / l1a});
  if (l2a > 0) f.push_back({"l2_hit", "L2 hit", true, 1 - k.get("L2_total_cache_misses", 0) / l2a});
  uint32_t n = 0;
  double busy = sum_indexed(k, "DRAM[", "].bwutil", &n), cmd = sum_indexed(k, "DRAM[", "].n_cmd", &n);
  if (cmd > 0) f.push_back({"dram_bw_util", "DRAM bw", true, busy / cmd});
  double hits = sum_indexed(k, "DRAM[", "].row_buffer_hits", &n), req = sum_indexed(k, "DRAM[", "].n_req", &n);
  if (n) f.push_back({"dram_requests", "DRAM requests", false, req});
  if (req > 0) f.push_back({"dram_row_hit", "DRAM row hit", true, hits / req});
  double ej = k.get("icnt.packets_ejected", 0);
  if (ej > 0) f.push_back({"icnt_latency", "icnt latency", false, k.get("icnt.latency_sum", 0) / ej});
  // Scheduler cycles: issuing (W1..W32) or stalled for a reason; each reason's share of them.
  double issue = 0, stalls = sum_indexed(k, "simt_sched_stall[", "]", &n);
  for (int w = 1; w <= 32; w++) issue += k.get("W" + std::to_string(w), 0);
  if (stalls + issue > 0) {
    f.push_back({"issue", "issue", true, issue / (stalls + issue)});
    for (const auto &kv : k.values)
      if (kv.first.rfind("simt_sched_stall[", 0) == 0 && kv.first.back() == ']') {
        std::string reason = kv.first.substr(17, kv.first.size() - 18);
        f.push_back({"stall_" + reason, "stall " + reason, true, kv.second / (stalls + issue)});
      }
  }
  return f;
}

double warp_insn_of(const kernel_stats &k) {
  double w = k.get("gpgpu_n_tot_w_icount");
  return std::isnan(w) ? k.get("func.warp_insn", 0) : w;
}

std::string fmt(const char *f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string rate_text(double per_s) {
  if (!(per_s > 0)) return "-";
  if (per_s >= 1e6) return fmt("%.2fM", per_s / 1e6);
  if (per_s >= 1e3) return fmt("%.1fk", per_s / 1e3);
  return fmt("%.0f", per_s);
}

std::string figure_text(const figure &f) { return f.rate ? fmt("%.1f%%", 100 * f.value) : fmt("%.4g", f.value); }

// ---- running --------------------------------------------------------------------------------

bool make_dir(const std::string &path) {
  if (mkdir(path.c_str(), 0777) == 0 || errno == EEXIST) return true;
  size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return false;
  return make_dir(path.substr(0, slash)) && (mkdir(path.c_str(), 0777) == 0 || errno == EEXIST);
}

std::string self_exe() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "simtvp";
  buf[n] = '\0';
  return buf;
}

// Runs `simtvp ARGS` with stdout to out_path and stderr to err_path; returns its exit status
// (128 + signal when it was killed), -1 when it could not start.
int run_simtvp(const std::vector<std::string> &args, const std::string &out_path, const std::string &err_path) {
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (out >= 0) dup2(out, 1);
    if (err >= 0) dup2(err, 2);
    std::vector<char *> argv;
    for (const std::string &a : args) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

std::string tail_lines(const std::string &text, int n) {
  size_t at = text.size();
  if (at && text[at - 1] == '\n') at--;
  for (int i = 0; i < n && at != std::string::npos && at > 0; i++) at = text.rfind('\n', at - 1);
  return at == std::string::npos || at == 0 ? text : text.substr(at + 1);
}

}  // namespace

int simtvp_compare_main(int argc, char **argv, const std::string &default_program) {
  std::vector<std::string> specs, sets;
  std::string config, outdir = "simtvp-compare", json_path;
  bool strict = false;
  double moved_pct = 2;
  int i = 1;
  for (; i < argc; i++) {
    std::string a = argv[i];
    auto value = [&](std::string *out) {
      if (a.find('=') != std::string::npos && a.rfind("--", 0) == 0) {
        *out = a.substr(a.find('=') + 1);
        return true;
      }
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    auto is = [&](const char *s, const char *l) {
      return a == s || a == l || (a.rfind(std::string(l) + "=", 0) == 0);
    };
    std::string v;
    if (a == "--") {
      i++;
      break;
    } else if (a == "-h" || a == "--help") {
      std::fputs(kCompareUsage, stdout);
      return 0;
    } else if (is("-f", "--fidelity")) {
      if (!value(&v)) return compare_usage_error(a + " needs an assignment, e.g. --fidelity at");
      specs.push_back(v);
    } else if (is("-c", "--config")) {
      if (!value(&v)) return compare_usage_error(a + " needs a configuration");
      config = v;
    } else if (is("-s", "--set")) {
      if (!value(&v)) return compare_usage_error(a + " needs an option and its value");
      sets.push_back(v);
    } else if (is("-o", "--outdir")) {
      if (!value(&v) || v.empty()) return compare_usage_error(a + " needs a directory");
      outdir = v;
    } else if (is("--json", "--json")) {
      if (!value(&v) || v.empty()) return compare_usage_error(a + " needs a file name");
      json_path = v;
    } else if (is("--moved", "--moved")) {
      char *end = nullptr;
      if (!value(&v) || (moved_pct = std::strtod(v.c_str(), &end), end == v.c_str() || *end || moved_pct < 0))
        return compare_usage_error(a + " needs a non-negative number of percent");
    } else if (a == "--strict") {
      strict = true;
    } else if (a.size() > 1 && a[0] == '-') {
      return compare_usage_error("unknown option '" + a + "'");
    } else {
      break;
    }
  }
  std::vector<std::string> program_args(argv + i, argv + argc);
  if (program_args.empty()) {
    if (access(default_program.c_str(), X_OK) != 0)
      return compare_usage_error("no program given, and the bundled sample " + default_program + " cannot be run");
    program_args.push_back(default_program);
  }
  if (specs.empty()) specs = {"ca", "at"};
  std::vector<run_result> runs(specs.size());
  for (size_t r = 0; r < specs.size(); r++) {
    const char *words[GPU_FIDELITY_SPEC_WORDS];
    uint32_t n = 0;
    char why[512];
    if (!gpu_fidelity_spec_options(specs[r].c_str(), words, &n, why, sizeof why))
      return compare_usage_error(std::string("--fidelity: ") + why);
    runs[r].spec = specs[r];
    for (uint32_t w = 0; w < n; w++) runs[r].option_words.push_back(words[w]);
  }
  if (!make_dir(outdir)) return compare_usage_error("cannot create the output directory " + outdir);
  if (json_path.empty()) json_path = outdir + "/compare.json";

  std::string program;
  for (const std::string &a : program_args) program += (program.empty() ? "" : " ") + a;
  std::fprintf(stderr, "simtvp compare: %s, %zu fidelity assignments%s%s\n", program.c_str(), runs.size(),
               config.empty() ? "" : ", configuration ", config.c_str());
  std::string exe = self_exe();
  for (size_t r = 0; r < runs.size(); r++) {
    run_result &run = runs[r];
    run.dir = outdir + "/" + std::to_string(r);
    make_dir(run.dir);
    std::remove((run.dir + "/stats.json").c_str());  // a previous comparison's
    std::remove((run.dir + "/host_time.json").c_str());
    std::vector<std::string> args = {exe, "-q", "-o", run.dir};
    if (!config.empty()) args.insert(args.end(), {"-c", config});
    if (strict) args.push_back("--strict");
    for (const std::string &s : sets) args.insert(args.end(), {"--set", s});
    for (size_t w = 0; w + 1 < run.option_words.size(); w += 2)
      args.insert(args.end(), {"--set", run.option_words[w] + " " + run.option_words[w + 1]});
    args.push_back("--");
    args.insert(args.end(), program_args.begin(), program_args.end());
    std::fprintf(stderr, "simtvp compare: run %zu/%zu: %s ...", r + 1, runs.size(), run.spec.c_str());
    auto t0 = std::chrono::steady_clock::now();
    run.exit_status = run_simtvp(args, run.dir + "/program.out", run.dir + "/simtvp.err");
    run.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::fprintf(stderr, " exit %d, %.2f s\n", run.exit_status, run.wall_s);
    run.output = read_file(run.dir + "/program.out");
    read_stats_json(run.dir + "/stats.json", run);
    read_host_time(run.dir + "/host_time.json", run.kernels);
    if (run.exit_status != 0) {
      std::string err = tail_lines(read_file(run.dir + "/simtvp.err"), 6);
      if (!err.empty()) std::fprintf(stderr, "%s%s", err.c_str(), err.back() == '\n' ? "" : "\n");
    }
  }

  // The runs.
  const run_result &ref = runs[0];
  int status = 0;
  std::printf("simtvp compare: %s\n\n", program.c_str());
  std::printf("  #  assignment        blocks                                        exit   wall s  output\n");
  for (size_t r = 0; r < runs.size(); r++) {
    const run_result &run = runs[r];
    bool same = run.output == ref.output;
    if (run.exit_status != ref.exit_status) status = 3;
    std::printf("  %zu  %-16s  %-44s %4d %8.2f  %s\n", r, run.spec.c_str(),
                run.fidelity_map.empty() ? "?" : run.fidelity_map.c_str(), run.exit_status, run.wall_s,
                r == 0 ? "(reference)" : same ? "same" : "differs");
  }

  simtvp::report::json_text j;
  j.begin_object().key("format").str("simtvp-compare").key("version").num(uint64_t{1});
  j.key("program").begin_array();
  for (const std::string &a : program_args) j.str(a);
  j.end_array();
  j.key("config").str(config).key("sets").begin_array();
  for (const std::string &s : sets) j.str(s);
  j.end_array().key("assignments").begin_array();
  for (size_t r = 0; r < runs.size(); r++) {
    const run_result &run = runs[r];
    j.begin_object().key("spec").str(run.spec).key("fidelity").str(run.fidelity_map).key("options").begin_array();
    for (const std::string &w : run.option_words) j.str(w);
    j.end_array().key("outdir").str(run.dir).key("exit_status").num(static_cast<int64_t>(run.exit_status));
    j.key("wall_s").num(run.wall_s).key("same_output").boolean(run.output == ref.output);
    j.key("kernels").num(static_cast<uint64_t>(run.kernels.size())).end_object();
  }
  j.end_array();

  // Kernel by kernel (matched by launch order).
  size_t n_kernels = ref.kernels.size();
  for (const run_result &run : runs)
    if (run.kernels.size() != n_kernels)
      std::printf("\nnote: run '%s' has %zu kernels, the reference %zu: kernels are matched by launch order\n",
                  run.spec.c_str(), run.kernels.size(), n_kernels);
  std::vector<double> err_sum(runs.size(), 0), err_max(runs.size(), 0), insn_sum(runs.size(), 0),
      wall_sum(runs.size(), 0), fault_sum(runs.size(), 0);
  std::vector<uint32_t> err_n(runs.size(), 0);
  j.key("kernels").begin_array();
  for (size_t k = 0; k < n_kernels; k++) {
    const kernel_stats &rk = ref.kernels[k];
    std::string name = simtvp::report::short_name(simtvp::report::demangle(rk.name), 40, true);
    std::printf("\nkernel %zu: %s\n", k + 1, name.c_str());
    std::printf("  %-16s %12s %8s %12s %9s  %s\n", "assignment", "cycles", "error", "warp-insn/s", "speed-up",
                "block statistics");
    double ref_cycles = rk.get("gpu_sim_cycle", 0);
    double ref_rate = rk.wall_s > 0 ? warp_insn_of(rk) / rk.wall_s : 0;
    std::vector<figure> ref_figs = figures_of(rk);
    std::vector<std::string> moved_lines;
    j.begin_object().key("index").num(static_cast<uint64_t>(k + 1)).key("name").str(rk.name).key("runs").begin_array();
    for (size_t r = 0; r < runs.size(); r++) {
      j.begin_object().key("spec").str(runs[r].spec);
      if (k >= runs[r].kernels.size()) {
        std::printf("  %-16s %12s\n", runs[r].spec.c_str(), "(absent)");
        j.key("absent").boolean(true).end_object();
        continue;
      }
      const kernel_stats &ks = runs[r].kernels[k];
      double cycles = ks.get("gpu_sim_cycle", 0), insn = warp_insn_of(ks);
      double rate = ks.wall_s > 0 ? insn / ks.wall_s : 0;
      bool timed = cycles > 0 && ref_cycles > 0;
      double error = timed ? (cycles - ref_cycles) / ref_cycles : NAN;
      // A program whose instruction stream depends on timing (a spin loop on an atomic) runs
      // other instructions under another assignment: its cycle difference is not a timing error.
      bool same_insn = insn == warp_insn_of(rk);
      if (r > 0 && timed) {
        err_sum[r] += std::fabs(error);
        err_n[r]++;
        if (std::fabs(error) > err_max[r]) err_max[r] = std::fabs(error);
      }
      insn_sum[r] += insn;
      wall_sum[r] += ks.wall_s > 0 ? ks.wall_s : 0;
      fault_sum[r] += ks.page_faults > 0 ? ks.page_faults : 0;
      std::vector<figure> figs = figures_of(ks);
      // The headline figures in the row: L1D hit, L2 hit, DRAM bandwidth, top stall reason.
      std::string row;
      const figure *top = nullptr;
      for (const figure &f : figs) {
        if (f.key == "l1d_hit" || f.key == "l2_hit" || f.key == "dram_bw_util")
          row += f.label + " " + figure_text(f) + "  ";
        if (f.key.rfind("stall_", 0) == 0 && (!top || f.value > top->value)) top = &f;
      }
      if (top) row += top->label + " " + figure_text(*top);
      if (!same_insn) row += "  (other instructions: the program's path depends on timing)";
      std::printf("  %-16s %12.0f %8s %12s %9s  %s\n", runs[r].spec.c_str(), cycles,
                  r == 0 ? "-" : timed ? fmt("%+.1f%%", 100 * error).c_str() : "n/a", rate_text(rate).c_str(),
                  ref_rate > 0 && rate > 0 ? fmt("%.2fx", rate / ref_rate).c_str() : "-", row.c_str());
      j.key("cycles").num(cycles).key("warp_insn").num(insn).key("same_warp_insn").boolean(same_insn);
      if (timed && r > 0) j.key("cycle_error").num(error);
      if (ks.wall_s >= 0) j.key("wall_s").num(ks.wall_s).key("warp_insn_per_s").num(rate);
      if (ks.cpu_s >= 0) j.key("cpu_s").num(ks.cpu_s);
      if (ks.page_faults >= 0) j.key("page_faults").num(ks.page_faults);
      if (ref_rate > 0 && rate > 0) j.key("speedup").num(rate / ref_rate);
      j.key("stats").begin_object();
      for (const figure &f : figs) j.key(f.key).num(f.value);
      j.end_object();
      // What moved against the reference.
      if (r > 0) {
        j.key("moved").begin_array();
        for (const figure &f : figs)
          for (const figure &g : ref_figs) {
            if (f.key != g.key) continue;
            bool moved = f.rate ? std::fabs(f.value - g.value) * 100 >= moved_pct
                                : std::fabs(f.value - g.value) > std::fabs(g.value) * moved_pct / 100;
            if (!moved) continue;
            j.str(f.key);
            moved_lines.push_back(runs[r].spec + ": " + f.label + " " + figure_text(g) + " -> " + figure_text(f));
          }
        j.end_array();
      }
      j.end_object();
    }
    j.end_array().end_object();
    for (const std::string &m : moved_lines) std::printf("  moved  %s\n", m.c_str());
  }
  j.end_array();

  // Over all kernels.
  j.key("summary").begin_array();
  std::printf("\nover %zu kernel%s:\n", n_kernels, n_kernels == 1 ? "" : "s");
  std::printf("  %-16s %14s %14s %12s %9s %12s\n", "assignment", "mean |error|", "max |error|", "warp-insn/s", "speed-up",
              "page faults");
  double ref_total_rate = wall_sum[0] > 0 ? insn_sum[0] / wall_sum[0] : 0;
  bool first_touches = false;
  for (size_t r = 0; r < runs.size(); r++) {
    double rate = wall_sum[r] > 0 ? insn_sum[r] / wall_sum[r] : 0;
    double mean = err_n[r] ? err_sum[r] / err_n[r] : 0;
    std::printf("  %-16s %14s %14s %12s %9s %12.0f\n", runs[r].spec.c_str(), r && err_n[r] ? fmt("%.1f%%", 100 * mean).c_str() : "-",
                r && err_n[r] ? fmt("%.1f%%", 100 * err_max[r]).c_str() : "-", rate_text(rate).c_str(),
                ref_total_rate > 0 && rate > 0 ? fmt("%.2fx", rate / ref_total_rate).c_str() : "-", fault_sum[r]);
    if (insn_sum[r] > 0 && fault_sum[r] >= kFaultsPerInsnNote * insn_sum[r]) first_touches = true;
    j.begin_object().key("spec").str(runs[r].spec).key("warp_insn").num(insn_sum[r]).key("kernel_wall_s").num(wall_sum[r]);
    j.key("page_faults").num(fault_sum[r]);
    if (r && err_n[r]) j.key("mean_abs_cycle_error").num(mean).key("max_abs_cycle_error").num(err_max[r]);
    if (ref_total_rate > 0 && rate > 0) j.key("speedup").num(rate / ref_total_rate);
    j.end_object();
  }
  j.end_array().end_object();
  std::printf("\n(speed: warp instructions per host second while the kernels ran; outputs in %s/N)\n", outdir.c_str());
  if (first_touches)
    std::printf("note: these kernels are short for their page faults: a run's first kernels touch the model's tables\n"
                "      for the first time (a cost each process pays once, every fidelity alike), which takes much of\n"
                "      their host time and hides the speed of the faster assignments. Longer kernels show it.\n");
  std::FILE *f = std::fopen(json_path.c_str(), "w");
  if (!f || std::fputs(j.text().c_str(), f) < 0 || std::fputc('\n', f) < 0) {
    std::fprintf(stderr, "simtvp compare: cannot write %s: %s\n", json_path.c_str(), std::strerror(errno));
    if (f) std::fclose(f);
    return 2;
  }
  std::fclose(f);
  std::fprintf(stderr, "simtvp compare: wrote %s\n", json_path.c_str());
  if (status) std::fprintf(stderr, "simtvp compare: a run's exit status differs from the reference's\n");
  return status;
}
