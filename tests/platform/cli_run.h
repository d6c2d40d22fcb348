// cli_run — runs the `simtvp` command (SIMTVP_CLI) with arguments for the command-line tests:
// its exit status and its stdout and stderr together.
#ifndef SIMTVP_TESTS_PLATFORM_CLI_RUN_H
#define SIMTVP_TESTS_PLATFORM_CLI_RUN_H

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace cli_run {

struct result {
  int status;
  std::string out;  // stdout and stderr together
};

inline result run(const std::string &args) {
  std::string cmd = std::string("'") + SIMTVP_CLI + "' " + args + " 2>&1";
  result r{-1, ""};
  FILE *p = popen(cmd.c_str(), "r");
  if (!p) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

inline bool has(const std::string &text, const std::string &what) { return text.find(what) != std::string::npos; }

}  // namespace cli_run

#endif  // SIMTVP_TESTS_PLATFORM_CLI_RUN_H
