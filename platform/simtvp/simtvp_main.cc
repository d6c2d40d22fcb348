// simtvp — runs an unmodified CUDA program (built with nvcc, either runtime) on the simtvp virtual
// platform: checks the configuration, sets up the environment the CUDA runtime reads
// (SIMTVP_CONFIG, SIMTVP_OUTDIR, SIMTVP_OPTIONS, SIMTVP_STRICT, SIMTVP_QUIET, and LD_LIBRARY_PATH
// so the program loads simtvp's libcudart.so.13 / libcuda.so.1 from build/lib), and executes the
// program, whose exit status becomes simtvp's. `simtvp --help` is the manual; docs/platform.md has more.
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "config.h"
#include "gpu_config.h"
#include "simtvp_compare.h"
#include "simtvp_host.h"

namespace {

const char kUsage[] =
    "usage: simtvp [options] [--] [PROGRAM [ARGS...]]\n"
    "       simtvp compare [--fidelity SPEC]... [options] [--] [PROGRAM [ARGS...]]\n"
    "\n"
    "Runs an unmodified CUDA program (built with nvcc, either runtime) on the simtvp virtual\n"
    "platform: a SystemC model of a host CPU, a system bus and memory, and a GPU that executes\n"
    "the program's kernels. Without PROGRAM it runs the bundled sample:\n"
    "  %s\n"
    "\n"
    "Options (before PROGRAM; \"--\" ends them):\n"
    "  -c, --config FILE     GPU configuration: a GPGPU-Sim-style option file, a folder holding\n"
    "                        gpgpusim.config (as GPGPU-Sim/Accel-Sim keep them), or the name of\n"
    "                        one in simtvp's configs/: %s;\n"
    "                        default: $SIMTVP_CONFIG, else the built-in configs/default.config\n"
    "  -o, --outdir DIR      write the statistics (DIR/stats.json, every counter per kernel and\n"
    "                        in total; DIR/stats.txt, GPGPU-Sim's full text), the HTML report\n"
    "                        (DIR/report.html) and the effective configuration (DIR/simtvp.config)\n"
    "      --trace FILE      write the timeline as a Chrome trace-event / Perfetto JSON file:\n"
    "                        kernels, CTAs per SM, copies, command-processor packets,\n"
    "                        interrupts, DRAM channels, in simulated time (ui.perfetto.dev)\n"
    "      --vcd FILE        write the same timeline as waveforms (Value Change Dump, 1 ps):\n"
    "                        irq, kernels, CTAs per SM, copy engine, command processor, DRAM\n"
    "      --stats MODE      statistics text on stderr: summary (default: a short block per\n"
    "                        kernel and a table at the end), full (GPGPU-Sim's name = value\n"
    "                        lines, byte-compatible with its scripts), none\n"
    "      --strict          unknown options in the configuration are errors, not warnings\n"
    "  -s, --set 'OPT VAL'   set one GPU option after the file, e.g. --set '-gpgpu_n_clusters 4'\n"
    "                        or --set -simt_model=func (repeatable; later settings win)\n"
    "  -q, --quiet           no statistics text, no progress and no run summary on stderr\n"
    "      --memcheck        the memory checker (-memcheck 1): an access outside the program's\n"
    "                        allocations, into a freed one or misaligned stops the kernel with a\n"
    "                        report naming the nearest allocation; leaks are listed at exit\n"
    "      --check           load the configuration and build the GPU from it, report every\n"
    "                        warning a run would give, then exit (status 0 when it can run)\n"
    "      --list-options    print every GPU option: name, type, default, unit, description\n"
    "      --debug           run the program under the interactive GPU debugger: breakpoints on\n"
    "                        kernels, PTX and source lines, CTAs and threads; watchpoints on\n"
    "                        global memory; stepping warps; registers, SIMT stack, memory\n"
    "                        (commands on the terminal; `help` lists them; docs/debugger.md)\n"
    "      --debug-script FILE  the debugger's commands from FILE (then from the terminal, if\n"
    "                        there is one); implies --debug\n"
    "  -h, --help            this text\n"
    "      --version         the simtvp version\n"
    "\n"
    "The program's stdout is its own (device printf output goes there too); simtvp writes\n"
    "progress (while kernels run: one line redrawn on a terminal, else a line every\n"
    "-liveness_message_freq seconds), per-kernel statistics, warnings and the run summary to\n"
    "stderr. The program sees these environment variables (the CUDA runtime reads them):\n"
    "  SIMTVP_CONFIG  SIMTVP_OUTDIR  SIMTVP_OPTIONS  SIMTVP_STRICT  SIMTVP_QUIET\n"
    "  SIMTVP_STATS  SIMTVP_TRACE  SIMTVP_VCD  SIMTVP_CONFIG_CHECKED  SIMTVP_DEBUG  SIMTVP_DEBUG_SCRIPT\n"
    "  LD_LIBRARY_PATH  with %s first (simtvp's libcudart.so.13, libcuda.so.1)\n"
    "\n"
    "Exit status: the program's (a program killed by a signal kills simtvp with it, after a\n"
    "note; the statistics up to then are written); 1 when the configuration is bad; 2 on bad\n"
    "usage or when the program cannot be started.\n"
    "\n"
    "simtvp compare runs the program once per fidelity assignment and compares the kernels'\n"
    "cycles, host speed and block statistics (simtvp compare --help).\n"
    "\n"
    "Examples:\n"
    "  simtvp ./vector_add 100000\n"
    "  simtvp --config SM75_RTX2060 -o out --set '-simt_model func' -- ./app -n 4\n"
    "  simtvp -c ~/accel-sim/gpu-simulator/gpgpu-sim/configs/tested-cfgs/SM7_QV100 ./app\n"
    "  simtvp -o out --trace out/trace.json ./app      (then open out/report.html)\n"
    "  simtvp --debug ./vector_add                     (then: break vector_add.cu:7, continue)\n";

// The folder of libcudart.so.13 and libcuda.so.1 the program must load (the installed
// <libdir>/simtvp, or build/lib), found by libsimtvp from its own location.
std::string lib_dir() {
  const char *d = simtvp_host_runtime_dir();
  return *d ? d : SIMTVP_LIBRARY_DIR;
}

// The sample run when no program is given: installed beside the command (<libexecdir>/simtvp),
// else the one this was built with.
std::string default_app() {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = '\0';
    std::string dir(self);
    std::string installed = dir.substr(0, dir.rfind('/')) + "/" SIMTVP_BIN_TO_SAMPLE;
    if (access(installed.c_str(), X_OK) == 0) return installed;
  }
  return SIMTVP_DEFAULT_APP;
}

std::string absolute(const std::string &path) {
  if (path.empty() || path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) return path;
  return std::string(cwd) + "/" + path;
}

int usage_error(const char *fmt, const char *what) {
  std::fprintf(stderr, "simtvp: ");
  std::fprintf(stderr, fmt, what);
  std::fprintf(stderr, "\nTry 'simtvp --help'.\n");
  return 2;
}

// The configurations shipped in configs/, by name.
std::string shipped_configs() {
  std::string names;
  if (DIR *d = opendir(simtvp_host_config_dir())) {
    std::vector<std::string> all;
    while (dirent *e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 7 && n.compare(n.size() - 7, 7, ".config") == 0) all.push_back(n.substr(0, n.size() - 7));
    }
    closedir(d);
    std::sort(all.begin(), all.end());
    for (const std::string &n : all) names += (names.empty() ? "" : ", ") + n;
  }
  return names.empty() ? std::string("configs/*.config") : names;
}

bool is_dir(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string lower(std::string s) {
  for (char &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The shipped configuration a misspelt or partial name most likely meant ("QV100" -> SM7_QV100),
// or "".
std::string suggest_config(const std::string &name) {
  std::string want = lower(name), best;
  size_t best_score = SIZE_MAX;
  std::string all = shipped_configs();
  size_t start = 0;
  while (start < all.size()) {
    size_t end = all.find(", ", start);
    std::string cand = all.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? all.size() : end + 2;
    std::string lc = lower(cand);
    size_t score = SIZE_MAX;
    // A part between underscores equal to the name (SM7_QV100 for "qv100"), then the name inside
    // the candidate, then a small edit distance.
    size_t u = lc.find('_');
    if (u != std::string::npos && (lc.substr(u + 1) == want || lc.substr(0, u) == want))
      score = 0;
    else if (want.size() >= 3 && lc.find(want) != std::string::npos)
      score = 1;
    else {
      size_t limit = config_suggest_limit(name.c_str());
      size_t d = config_edit_distance(want.c_str(), lc.c_str(), limit);
      if (d <= limit) score = 1 + d;
    }
    if (score < best_score) {
      best_score = score;
      best = cand;
    }
  }
  return best;
}

// What -c names: a readable file as given; a folder holding gpgpusim.config (GPGPU-Sim/Accel-Sim
// keep a configuration as such a folder, beside its .icnt file); else configs/NAME or
// configs/NAME.config. "" with *why when it names nothing.
std::string resolve_config(const std::string &name, std::string *why) {
  if (is_dir(name)) {
    std::string f = name + (name.back() == '/' ? "" : "/") + "gpgpusim.config";
    if (access(f.c_str(), R_OK) == 0) return f;
    std::vector<std::string> configs;
    if (DIR *d = opendir(name.c_str())) {
      while (dirent *e = readdir(d)) {
        std::string n = e->d_name;
        if (n.size() > 7 && n.compare(n.size() - 7, 7, ".config") == 0) configs.push_back(n);
      }
      closedir(d);
    }
    std::sort(configs.begin(), configs.end());
    if (configs.size() == 1) return name + "/" + configs[0];
    *why = name + ": a configuration folder holds gpgpusim.config (with its .icnt file), as GPGPU-Sim and "
                  "Accel-Sim keep them; this one has ";
    if (configs.empty()) {
      *why += "no .config file";
    } else {
      *why += "no gpgpusim.config but";
      for (const std::string &c : configs) *why += " " + c;
      *why += ": name one with -c " + name + "/FILE";
    }
    return "";
  }
  if (access(name.c_str(), R_OK) == 0 || name.find('/') != std::string::npos) return name;
  for (const char *suffix : {"", ".config"}) {
    std::string p = std::string(simtvp_host_config_dir()) + "/" + name + suffix;
    if (access(p.c_str(), R_OK) == 0) return p;
  }
  *why = "no configuration file or folder '" + name + "', and no " + name + " among simtvp's configurations";
  std::string near = suggest_config(name);
  if (!near.empty())
    *why += "; did you mean " + near + "?";
  else
    *why += " (" + shipped_configs() + ")";
  return "";
}

const char *signal_name(int sig) {
  const char *d = strsignal(sig);
  return d ? d : "signal";
}

void print_usage() { std::printf(kUsage, default_app().c_str(), shipped_configs().c_str(), lib_dir().c_str()); }

int list_options() {
  config_registry *r = config_registry_create(nullptr);
  auto *cfg = new gpu_config();
  simtvp_diag diag;
  if (!r || gpu_config_register(r, cfg, &diag) != SIMTVP_OK) {
    std::fprintf(stderr, "simtvp: %s\n", r ? diag.message : "out of memory");
    return 1;
  }
  const config_block *last = nullptr;
  for (size_t i = 0; i < config_registry_count(r); i++) {
    const config_block *b = nullptr;
    const config_option *o = config_registry_option(r, i, &b);
    if (b != last) {
      std::printf("%s# %s (%s)\n", last ? "\n" : "", b->title, b->name);
      last = b;
    }
    std::printf("%-44s %-7s %s%s%s%s\n", o->name, config_type_name(o->type),
                o->default_value && *o->default_value ? o->default_value : "\"\"",
                o->unit && *o->unit ? " [" : "", o->unit && *o->unit ? o->unit : "",
                o->unit && *o->unit ? "]" : "");
    std::printf("    %s%s\n", o->description ? o->description : "",
                (o->flags & CONFIG_NOT_MODELLED) ? " (accepted, not modelled)" : "");
  }
  config_registry_destroy(r);
  delete cfg;
  return 0;
}

// Runs the program as a child and waits for it. The platform inside it tells through a pipe
// ($SIMTVP_REPORT_FD, simtvp_host.h) whether it opened and how it ended, so that a program that
// never used CUDA gets a note and one that crashed gets a word on its statistics. The exit status
// is the program's; a program killed by a signal kills simtvp with the same signal.
int run_program(std::vector<char *> &args, bool quiet) {
  int report[2], exec_err[2];
  if (pipe(report) != 0 || pipe2(exec_err, O_CLOEXEC) != 0) {
    std::fprintf(stderr, "simtvp: cannot run '%s': %s\n", args[0], std::strerror(errno));
    return 2;
  }
  fcntl(report[0], F_SETFD, FD_CLOEXEC);
  setenv("SIMTVP_REPORT_FD", std::to_string(report[1]).c_str(), 1);
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    std::fprintf(stderr, "simtvp: cannot run '%s': %s\n", args[0], std::strerror(errno));
    return 2;
  }
  if (pid == 0) {
    close(exec_err[0]);
    execvp(args[0], args.data());
    int err = errno;
    ssize_t w = write(exec_err[1], &err, sizeof err);
    (void)w;
    _exit(127);
  }
  close(report[1]);
  close(exec_err[1]);
  // Like system(): the terminal's interrupt and quit reach the program; simtvp waits for it.
  struct sigaction ign {}, old_int {}, old_quit {};
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  sigaction(SIGINT, &ign, &old_int);
  sigaction(SIGQUIT, &ign, &old_quit);
  int err = 0;
  ssize_t got, exec_failed;
  do exec_failed = read(exec_err[0], &err, sizeof err);
  while (exec_failed < 0 && errno == EINTR);
  close(exec_err[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  // What the platform said (the program and its own children may still hold the pipe: no wait).
  fcntl(report[0], F_SETFL, O_NONBLOCK);
  std::string said;
  char buf[512];
  while ((got = read(report[0], buf, sizeof buf)) > 0) said.append(buf, static_cast<size_t>(got));
  close(report[0]);
  if (exec_failed == sizeof err && err) {
    std::fprintf(stderr, "simtvp: cannot run '%s': %s\n", args[0], std::strerror(err));
    return 2;
  }
  bool opened = said.find("open\n") != std::string::npos;
  long crash_sig = 0, crash_kernels = 0, crash_written = 0;
  size_t c = said.find("crash ");
  if (c != std::string::npos) std::sscanf(said.c_str() + c, "crash %ld %ld %ld", &crash_sig, &crash_kernels, &crash_written);
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    std::string what = std::string("simtvp: '") + args[0] + "' was killed by signal " + std::to_string(sig) + " (" +
                       signal_name(sig) + ")";
    if (crash_sig) {
      what += " after " + std::to_string(crash_kernels) + " kernel" + (crash_kernels == 1 ? "" : "s");
      const char *out = std::getenv("SIMTVP_OUTDIR");
      if (crash_written)
        what += out ? std::string("; the statistics up to then are in ") + out : "; the statistics up to then were written";
      else
        what += "; it crashed inside the simulation, no statistics were written";
    } else if (!opened) {
      what += " before it made a CUDA call";
    }
    std::fprintf(stderr, "%s\n", what.c_str());
    std::fflush(stderr);
    signal(sig, SIG_DFL);
    kill(getpid(), sig);
    return 128 + sig;
  }
  if (!opened && !quiet)
    std::fprintf(stderr,
                 "simtvp: note: '%s' made no CUDA call: nothing ran on the simulated GPU (a program that "
                 "loads libcuda.so.1 or libcudart.so.13 from a fixed path, not through the library "
                 "search path, gets NVIDIA's libraries instead of simtvp's)\n",
                 args[0]);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "compare") == 0) return simtvp_compare_main(argc - 1, argv + 1, default_app());
  std::string config, outdir, trace, vcd, stats_mode, debug_script;
  std::vector<std::string> sets;
  bool strict = false, quiet = false, check = false, debug = false;
  int i = 1;
  for (; i < argc; i++) {
    std::string a = argv[i];
    auto value = [&](const char *flag) -> const char * {
      if (i + 1 >= argc) return nullptr;
      (void)flag;
      return argv[++i];
    };
    if (a == "--") {
      i++;
      break;
    } else if (a == "-h" || a == "--help") {
      print_usage();
      return 0;
    } else if (a == "--version") {
      std::printf("simtvp %s\n", simtvp_host_version());
      return 0;
    } else if (a == "--list-options") {
      return list_options();
    } else if (a == "-c" || a == "--config") {
      const char *v = value("--config");
      if (!v) return usage_error("%s needs a file name", a.c_str());
      config = v;
    } else if (a.rfind("--config=", 0) == 0) {
      config = a.substr(9);
    } else if (a == "-o" || a == "--outdir") {
      const char *v = value("--outdir");
      if (!v) return usage_error("%s needs a directory", a.c_str());
      outdir = v;
    } else if (a.rfind("--outdir=", 0) == 0) {
      outdir = a.substr(9);
    } else if (a == "-s" || a == "--set") {
      const char *v = value("--set");
      if (!v) return usage_error("%s needs an option and its value, e.g. --set '-gpgpu_n_clusters 4'", a.c_str());
      sets.push_back(v);
    } else if (a.rfind("--set=", 0) == 0) {
      sets.push_back(a.substr(6));
    } else if (a == "--trace") {
      const char *v = value("--trace");
      if (!v) return usage_error("%s needs a file name, e.g. --trace trace.json", a.c_str());
      trace = v;
    } else if (a.rfind("--trace=", 0) == 0) {
      trace = a.substr(8);
    } else if (a == "--vcd") {
      const char *v = value("--vcd");
      if (!v) return usage_error("%s needs a file name, e.g. --vcd run.vcd", a.c_str());
      vcd = v;
    } else if (a.rfind("--vcd=", 0) == 0) {
      vcd = a.substr(6);
      if (vcd.empty()) return usage_error("%s needs a file name, e.g. --vcd run.vcd", "--vcd");
    } else if (a == "--stats" || a.rfind("--stats=", 0) == 0) {
      const char *v = a == "--stats" ? value("--stats") : nullptr;
      std::string m = a == "--stats" ? (v ? v : "") : a.substr(8);
      if (m != "summary" && m != "full" && m != "none")
        return usage_error("--stats '%s': expected summary, full or none", m.c_str());
      stats_mode = m;
    } else if (a == "--strict") {
      strict = true;
    } else if (a == "-q" || a == "--quiet") {
      quiet = true;
    } else if (a == "--check") {
      check = true;
    } else if (a == "--memcheck") {
      sets.push_back("-memcheck 1");
    } else if (a == "--debug") {
      debug = true;
    } else if (a == "--debug-script" || a.rfind("--debug-script=", 0) == 0) {
      const char *v = a == "--debug-script" ? value("--debug-script") : nullptr;
      std::string f = a == "--debug-script" ? (v ? v : "") : a.substr(15);
      if (f.empty()) return usage_error("%s needs a file of debugger commands", "--debug-script");
      if (access(f.c_str(), R_OK) != 0)
        return usage_error("--debug-script %s: cannot read it", f.c_str());
      debug_script = absolute(f);
      debug = true;
    } else if (a.size() > 1 && a[0] == '-') {
      return usage_error("unknown option '%s'", a.c_str());
    } else {
      break;  // the program
    }
  }

  // --set '-name value' / -name=value -> words for the runtime.
  std::vector<std::string> words;
  for (const std::string &s : sets) {
    size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos || s[b] != '-')
      return usage_error("--set '%s': expected '-option value'", s.c_str());
    size_t sep = s.find_first_of(" \t=", b);
    if (sep == std::string::npos) return usage_error("--set '%s': the option has no value", s.c_str());
    size_t v = s.find_first_not_of(" \t=", sep);
    words.push_back(s.substr(b, sep - b));
    words.push_back(v == std::string::npos ? "" : s.substr(v));
  }

  // Check the configuration now, so that a mistake is reported before the program runs.
  if (!config.empty()) {
    std::string why;
    std::string path = resolve_config(config, &why);
    if (path.empty()) {
      std::fprintf(stderr, "simtvp: configuration error: %s\n", why.c_str());
      return 1;
    }
    config = absolute(path);
  }
  if (!outdir.empty()) outdir = absolute(outdir);
  if (!trace.empty()) trace = absolute(trace);
  if (!vcd.empty()) vcd = absolute(vcd);
  std::vector<const char *> wv;
  for (const std::string &w : words) wv.push_back(w.c_str());
  simtvp_host_options o{};
  o.config_path = config.empty() ? nullptr : config.c_str();
  o.out_dir = outdir.empty() ? nullptr : outdir.c_str();
  o.overrides = wv.data();
  o.n_overrides = static_cast<int>(wv.size());
  o.strict = strict;
  o.quiet = quiet;
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  if (check) {
    // Build the GPU from the configuration as a run would, so that everything a run would warn
    // about is said now.
    uint32_t problems = 0;
    if (simtvp_host_check_build(&o, &problems, &diag) != SIMTVP_OK) {
      std::fprintf(stderr, "simtvp: configuration error: %s\n", diag.message);
      return 1;
    }
    if (!quiet) {
      if (problems)
        std::fprintf(stderr, "simtvp: configuration OK, with %u warning%s (above; a run gives the same)\n", problems,
                     problems == 1 ? "" : "s");
      else
        std::fprintf(stderr, "simtvp: configuration OK\n");
    }
    return 0;
  }
  if (simtvp_host_check_options(&o, &diag) != SIMTVP_OK) {
    std::fprintf(stderr, "simtvp: configuration error: %s\n", diag.message);
    return 1;
  }

  // The program and its environment.
  std::vector<char *> args;
  std::string sample = default_app();
  if (i < argc) {
    for (int k = i; k < argc; k++) args.push_back(argv[k]);
  } else {
    if (access(sample.c_str(), X_OK) != 0)
      return usage_error("no program given, and the bundled sample %s cannot be run", sample.c_str());
    args.push_back(&sample[0]);
  }
  args.push_back(nullptr);
  if (!config.empty()) setenv("SIMTVP_CONFIG", config.c_str(), 1);
  if (!outdir.empty()) setenv("SIMTVP_OUTDIR", outdir.c_str(), 1);
  if (!words.empty()) {
    // After whatever the caller's environment already asks for (later settings win).
    std::string env;
    if (const char *old = std::getenv("SIMTVP_OPTIONS")) env = old;
    for (const std::string &w : words) {
      if (!env.empty()) env += ' ';
      std::string q = "'";
      for (char c : w) q += c == '\'' ? std::string("'\"'\"'") : std::string(1, c);
      env += q + "'";
    }
    setenv("SIMTVP_OPTIONS", env.c_str(), 1);
  }
  if (strict) setenv("SIMTVP_STRICT", "1", 1);
  if (quiet) setenv("SIMTVP_QUIET", "1", 1);
  if (!stats_mode.empty()) setenv("SIMTVP_STATS", stats_mode.c_str(), 1);
  if (!trace.empty()) setenv("SIMTVP_TRACE", trace.c_str(), 1);
  if (!vcd.empty()) setenv("SIMTVP_VCD", vcd.c_str(), 1);
  setenv("SIMTVP_CONFIG_CHECKED", "1", 1);  // its warnings were printed above: once is enough
  if (debug) setenv("SIMTVP_DEBUG", "1", 1);
  if (!debug_script.empty()) setenv("SIMTVP_DEBUG_SCRIPT", debug_script.c_str(), 1);
  std::string ld = lib_dir();
  if (const char *old = std::getenv("LD_LIBRARY_PATH"))
    if (*old) ld += std::string(":") + old;
  setenv("LD_LIBRARY_PATH", ld.c_str(), 1);
  // A sanitizer build's libraries need the sanitizer runtime loaded first; the program itself is
  // not instrumented, so it is preloaded (empty in ordinary builds).
  if (*SIMTVP_PRELOAD_RUNTIME) {
    std::string pre = SIMTVP_PRELOAD_RUNTIME;
    if (const char *old = std::getenv("LD_PRELOAD"))
      if (*old) pre += std::string(":") + old;
    setenv("LD_PRELOAD", pre.c_str(), 1);
    // The program's own allocations (host arrays it never frees, a program that exits on an
    // error) and its own crashes are not simtvp's to report: no leak check and no SEGV handler in
    // the uninstrumented program unless the caller asks (the libraries' leaks are checked by the
    // instrumented test programs that drive them directly).
    setenv("ASAN_OPTIONS", "detect_leaks=0:handle_segv=0", 0);
  }

  return run_program(args, quiet);
}
