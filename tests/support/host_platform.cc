// host_platform — see host_platform.h.
#include "host_platform.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace test_support {

void clear_platform_environment() {
  for (const char *v : {"SIMTVP_CONFIG", "SIMTVP_OUTDIR", "SIMTVP_OPTIONS", "SIMTVP_STRICT", "SIMTVP_QUIET"})
    unsetenv(v);
}

simtvp_host *open_platform(const platform_options &o, simtvp_diag *diag) {
  std::vector<const char *> argv;
  for (const std::string &w : o.overrides) argv.push_back(w.c_str());
  simtvp_host_options ho{};
  ho.config_path = o.config.empty() ? nullptr : o.config.c_str();
  ho.out_dir = o.out_dir.empty() ? nullptr : o.out_dir.c_str();
  ho.overrides = argv.data();
  ho.n_overrides = static_cast<int>(argv.size());
  ho.quiet = o.quiet;
  return simtvp_host_open(&ho, diag);  // the options are copied
}

namespace {

// Length-prefixed strings through the pipe.
void put(std::string &s, const std::string &t) {
  uint64_t n = t.size();
  s.append(reinterpret_cast<const char *>(&n), sizeof n);
  s += t;
}

bool get(const std::string &s, size_t *at, std::string *t) {
  uint64_t n = 0;
  if (*at + sizeof n > s.size()) return false;
  std::memcpy(&n, s.data() + *at, sizeof n);
  *at += sizeof n;
  if (n > s.size() - *at) return false;
  *t = s.substr(*at, n);
  *at += n;
  return true;
}

std::string read_all(FILE *f) {
  std::string s;
  std::fflush(f);
  std::rewind(f);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  return s;
}

}  // namespace

child_result run_in_child(const std::function<std::string()> &fn, bool capture_output) {
  child_result r;
  int fds[2];
  if (pipe(fds) != 0) {
    r.error = "pipe failed";
    return r;
  }
  std::fflush(stdout);
  std::fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    r.error = "fork failed";
    return r;
  }
  if (pid == 0) {
    close(fds[0]);
    FILE *out = nullptr, *err = nullptr;
    if (capture_output) {
      out = std::tmpfile();
      err = std::tmpfile();
      if (!out || !err) _exit(3);
      dup2(fileno(out), 1);
      dup2(fileno(err), 2);
    }
    std::string payload = fn();
    std::fflush(stdout);
    std::fflush(stderr);
    std::string all;
    put(all, capture_output ? read_all(out) : std::string());
    put(all, capture_output ? read_all(err) : std::string());
    put(all, payload);
    const char *p = all.data();
    size_t left = all.size();
    while (left) {
      ssize_t n = write(fds[1], p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) _exit(4);
      p += n;
      left -= static_cast<size_t>(n);
    }
    close(fds[1]);
    _exit(0);  // whatever the child opened is not torn down
  }
  close(fds[1]);
  std::string data;
  char buf[65536];
  for (;;) {
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    r.error = "the child process died (status " + std::to_string(status) + ")";
    return r;
  }
  size_t at = 0;
  if (!get(data, &at, &r.out) || !get(data, &at, &r.err) || !get(data, &at, &r.payload)) {
    r.error = "short message from the child";
    return r;
  }
  r.ok = true;
  return r;
}

}  // namespace test_support
