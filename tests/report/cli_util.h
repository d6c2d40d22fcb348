// cli_util — running the `simtvp` command in tests: stdout and stderr apart, the raw wait status,
// files read back.
#ifndef SIMTVP_TESTS_REPORT_CLI_UTIL_H
#define SIMTVP_TESTS_REPORT_CLI_UTIL_H

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace cli {

struct result {
  int status = -1;    // raw wait status
  std::string out, err;
  int code() const { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }
  int signal() const { return WIFSIGNALED(status) ? WTERMSIG(status) : 0; }
};

inline std::string slurp(const std::string &path) {
  std::string text;
  if (FILE *f = std::fopen(path.c_str(), "rb")) {
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    std::fclose(f);
  }
  return text;
}

inline std::string build_dir(const std::string &name) {
  std::string d = std::string(SIMTVP_BINARY_DIR) + "/tests/report/" + name;
  std::system(("rm -rf '" + d + "' && mkdir -p '" + d + "'").c_str());
  return d;
}

// Runs `simtvp ARGS` (ARGS as shell words) in the shell, stdout and stderr into files of dir.
inline result run(const std::string &args, const std::string &dir, const std::string &env = "") {
  std::string out = dir + "/stdout.txt", err = dir + "/stderr.txt";
  std::string cmd = env + " '" + std::string(SIMTVP_CLI) + "' " + args + " >'" + out + "' 2>'" + err + "'";
  result r;
  r.status = std::system(("exec " + cmd).c_str());
  // system() gives the shell's status; a child killed by a signal makes the shell exit 128 + sig
  // unless it was exec'd (it is: "exec"), so the status is simtvp's own.
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

inline bool has(const std::string &text, const std::string &what) { return text.find(what) != std::string::npos; }

inline size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) n++;
  return n;
}

inline std::string source(const char *rel) { return std::string(SIMTVP_SOURCE_DIR) + "/" + rel; }

}  // namespace cli

#endif  // SIMTVP_TESTS_REPORT_CLI_UTIL_H
