// debug_frontend — see debug_frontend.h.
#include "debug_frontend.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include <systemc>

#include "demangle.h"

namespace simtvp {

namespace {

// Ctrl-C while debugging on a terminal: the debugger stops at the next warp instruction. A signal
// handler reaches its debugger only through a file-scope pointer (one platform, so one debugger,
// per process).
dbg *g_interrupt_target = nullptr;

void on_sigint(int) {
  if (g_interrupt_target) dbg_interrupt(g_interrupt_target);
}

}  // namespace

std::unique_ptr<debug_frontend> debug_frontend::from_environment(const std::string &program, std::string *error) {
  const char *flag = std::getenv("SIMTVP_DEBUG");
  const char *script = std::getenv("SIMTVP_DEBUG_SCRIPT");
  bool on = (flag && *flag && std::strcmp(flag, "0") != 0) || (script && *script);
  if (!on) return nullptr;
  std::unique_ptr<debug_frontend> f(new debug_frontend());
  if (script && *script) {
    f->script_ = std::fopen(script, "r");
    if (!f->script_) {
      *error = std::string("SIMTVP_DEBUG_SCRIPT ") + script + ": cannot read the debugger script: " + std::strerror(errno);
      return nullptr;
    }
  }
  f->tty_ = isatty(STDIN_FILENO) != 0;
  dbg_ports p{};
  p.ctx = f.get();
  p.read_line = [](void *ctx, const char *prompt, char *buf, size_t size) {
    return static_cast<debug_frontend *>(ctx)->read_line(prompt, buf, size);
  };
  p.write = [](void *, const char *text, size_t len) {
    std::fwrite(text, 1, len, stdout);
    std::fflush(stdout);
  };
  p.demangle = [](void *, const char *name, char *buf, size_t size) {
    std::string d = report::demangle(name);
    if (d == name) return false;
    std::snprintf(buf, size, "%s", d.c_str());
    return true;
  };
  p.source_line = [](void *ctx, const char *path, uint32_t line, char *buf, size_t size) {
    return static_cast<debug_frontend *>(ctx)->source_line(path, line, buf, size);
  };
  p.now = [](void *, char *buf, size_t size) {
    double us = sc_core::sc_time_stamp().to_seconds() * 1e6;
    std::snprintf(buf, size, "at %.3f us", us);
    return true;
  };
  p.kill = [](void *) {
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(1);
  };
  dbg_config c{};
  c.program = program.c_str();
  simtvp_diag diag;
  f->d_ = dbg_create(&c, &p, &diag);
  if (!f->d_) {
    *error = diag.message;
    return nullptr;
  }
  f->port_ = dbg_func_port(f->d_);
  if (f->tty_) {
    g_interrupt_target = f->d_;
    struct sigaction sa {};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, nullptr);
  }
  return f;
}

debug_frontend::~debug_frontend() {
  if (g_interrupt_target == d_) {
    signal(SIGINT, SIG_DFL);
    g_interrupt_target = nullptr;
  }
  if (script_) std::fclose(script_);
  dbg_destroy(d_);
}

void debug_frontend::start() { dbg_start(d_); }

void debug_frontend::finish() { dbg_finish(d_); }

bool debug_frontend::read_line(const char *prompt, char *buf, size_t size) {
  for (;;) {
    std::FILE *in = script_ && !on_stdin_ ? script_ : stdin;
    bool interactive = in == stdin && tty_;
    if (interactive) {
      std::fputs(prompt, stdout);
      std::fflush(stdout);
    }
    if (!std::fgets(buf, static_cast<int>(size), in)) {
      // The script ends: go on at the terminal if there is one, else the session ends.
      if (in == script_ && tty_) {
        on_stdin_ = true;
        continue;
      }
      if (interactive) std::fputs("\n", stdout);
      return false;
    }
    size_t n = std::strlen(buf);
    if (n + 1 == size && buf[n - 1] != '\n' && !std::feof(in)) {  // longer than a line may be: not run
      int ch;
      while ((ch = std::fgetc(in)) != EOF && ch != '\n') {
      }
      std::fprintf(stdout, "A command line is at most %zu characters: this one is not run.\n", size - 2);
      std::fflush(stdout);
      continue;
    }
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) buf[--n] = '\0';
    if (!interactive && (buf[0] == '#' || buf[0] == '\0')) continue;  // a script's comments and blank lines
    if (!interactive) {  // the transcript shows what was read
      std::fprintf(stdout, "%s%s\n", prompt, buf);
      std::fflush(stdout);
    }
    return true;
  }
}

bool debug_frontend::source_line(const char *path, uint32_t line, char *buf, size_t size) {
  auto it = sources_.find(path);
  if (it == sources_.end()) {
    std::vector<std::string> lines;
    std::ifstream f(path);
    std::string l;
    while (f && std::getline(f, l)) lines.push_back(l);
    it = sources_.emplace(path, std::move(lines)).first;
  }
  if (line == 0 || line > it->second.size()) return false;
  std::snprintf(buf, size, "%s", it->second[line - 1].c_str());
  return true;
}

}  // namespace simtvp
