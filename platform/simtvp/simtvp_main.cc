// simtvp — runs an unmodified CUDA program (built with nvcc -cudart shared) on the simtvp virtual
// platform: checks the configuration, sets up the environment the CUDA runtime reads
// (SIMTVP_CONFIG, SIMTVP_OUTDIR, SIMTVP_OPTIONS, SIMTVP_STRICT, SIMTVP_QUIET, and LD_LIBRARY_PATH
// so the program loads simtvp's libcudart.so.13 from build/lib), and executes the program, whose
// exit status becomes simtvp's. `simtvp --help` is the manual; docs/platform.md has more.
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "config.h"
#include "gpu_config.h"
#include "simtvp_host.h"

namespace {

const char kUsage[] =
    "usage: simtvp [options] [--] [PROGRAM [ARGS...]]\n"
    "\n"
    "Runs an unmodified CUDA program (built with nvcc -cudart shared) on the simtvp virtual\n"
    "platform: a SystemC model of a host CPU, a system bus and memory, and a GPU that executes\n"
    "the program's kernels. Without PROGRAM it runs the bundled sample:\n"
    "  %s\n"
    "\n"
    "Options (before PROGRAM; \"--\" ends them):\n"
    "  -c, --config FILE     GPU configuration: a GPGPU-Sim-style option file, or the name of one\n"
    "                        in simtvp's configs/: %s;\n"
    "                        default: $SIMTVP_CONFIG, else the built-in configs/default.config\n"
    "  -o, --outdir DIR      write the statistics (DIR/stats.json, every counter per kernel and\n"
    "                        in total) and the effective configuration (DIR/simtvp.config) here\n"
    "      --strict          unknown options in the configuration are errors, not warnings\n"
    "  -s, --set 'OPT VAL'   set one GPU option after the file, e.g. --set '-gpgpu_n_clusters 4'\n"
    "                        or --set -simt_model=func (repeatable; later settings win)\n"
    "  -q, --quiet           no per-kernel statistics text and no run summary on stderr\n"
    "      --memcheck        the memory checker (-memcheck 1): an access outside the program's\n"
    "                        allocations, into a freed one or misaligned stops the kernel with a\n"
    "                        report naming the nearest allocation; leaks are listed at exit\n"
    "      --check           load and check the configuration, then exit (status 0 when fine)\n"
    "      --list-options    print every GPU option: name, type, default, unit, description\n"
    "  -h, --help            this text\n"
    "      --version         the simtvp version\n"
    "\n"
    "The program's stdout is its own (device printf output goes there too); simtvp writes\n"
    "per-kernel statistics (GPGPU-Sim's \"name = value\" lines), warnings and the run summary to\n"
    "stderr. The program sees these environment variables (the CUDA runtime reads them):\n"
    "  SIMTVP_CONFIG  SIMTVP_OUTDIR  SIMTVP_OPTIONS  SIMTVP_STRICT  SIMTVP_QUIET\n"
    "  LD_LIBRARY_PATH  with %s first (simtvp's libcudart.so.13, libcuda.so.1)\n"
    "\n"
    "Exit status: the program's; 1 when the configuration is bad; 2 on bad usage or when the\n"
    "program cannot be started.\n"
    "\n"
    "Examples:\n"
    "  simtvp ./vector_add 100000\n"
    "  simtvp --config SM75_RTX2060 -o out --set '-simt_model func' -- ./app -n 4\n";

std::string lib_dir() {
  // build/bin/simtvp -> build/lib, when simtvp's libraries are there (a build tree or an install
  // with bin/ and lib/ side by side); else the directory this was built for.
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = '\0';
    std::string dir(self);
    dir = dir.substr(0, dir.rfind('/'));
    std::string lib = dir.substr(0, dir.rfind('/')) + "/lib";
    if (access((lib + "/libsimtvp.so").c_str(), R_OK) == 0) return lib;
  }
  return SIMTVP_LIBRARY_DIR;
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
  if (DIR *d = opendir(SIMTVP_CONFIG_DIR)) {
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

// FILE as given when it is readable, else configs/FILE or configs/FILE.config.
std::string resolve_config(const std::string &name) {
  if (access(name.c_str(), R_OK) == 0 || name.find('/') != std::string::npos) return name;
  for (const char *suffix : {"", ".config"}) {
    std::string p = std::string(SIMTVP_CONFIG_DIR) + "/" + name + suffix;
    if (access(p.c_str(), R_OK) == 0) return p;
  }
  return name;
}

void print_usage() { std::printf(kUsage, SIMTVP_DEFAULT_APP, shipped_configs().c_str(), lib_dir().c_str()); }

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

}  // namespace

int main(int argc, char **argv) {
  std::string config, outdir;
  std::vector<std::string> sets;
  bool strict = false, quiet = false, check = false;
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
      std::printf("simtvp 0.1.0\n");
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
    } else if (a == "--strict") {
      strict = true;
    } else if (a == "-q" || a == "--quiet") {
      quiet = true;
    } else if (a == "--check") {
      check = true;
    } else if (a == "--memcheck") {
      sets.push_back("-memcheck 1");
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
  if (!config.empty()) config = absolute(resolve_config(config));
  if (!outdir.empty()) outdir = absolute(outdir);
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
  if (simtvp_host_check_options(&o, &diag) != SIMTVP_OK) {
    std::fprintf(stderr, "simtvp: configuration error: %s\n", diag.message);
    return 1;
  }
  if (check) {
    if (!quiet) std::fprintf(stderr, "simtvp: configuration OK\n");
    return 0;
  }

  // The program and its environment.
  std::vector<char *> args;
  std::string default_app = SIMTVP_DEFAULT_APP;
  if (i < argc) {
    for (int k = i; k < argc; k++) args.push_back(argv[k]);
  } else {
    if (access(default_app.c_str(), X_OK) != 0)
      return usage_error("no program given, and the bundled sample %s cannot be run", default_app.c_str());
    args.push_back(&default_app[0]);
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
  }

  execvp(args[0], args.data());
  int err = errno;
  std::fprintf(stderr, "simtvp: cannot run '%s': %s\n", args[0], std::strerror(err));
  return 2;
}
