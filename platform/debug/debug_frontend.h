// debug_frontend — the thin front end of the interactive debugger (models/debug) inside the
// platform: `simtvp --debug` sets SIMTVP_DEBUG=1 (and SIMTVP_DEBUG_SCRIPT=FILE with
// --debug-script) for the program it runs; the platform in that program makes one of these,
// gives its port to the GPU's functional engine, and runs the first commands before the
// program's first kernel. Commands come from the script file, then (when it ends and stdin is a
// terminal) from the terminal, else from stdin; output goes to stdout, in order with the
// program's own. The prompt is shown only on a terminal; input that is not a terminal is echoed
// after the prompt, so a scripted session's output reads as the session. Ctrl-C on a terminal
// stops at the next warp instruction. docs/debugger.md is the manual.
#ifndef SIMTVP_PLATFORM_DEBUG_FRONTEND_H
#define SIMTVP_PLATFORM_DEBUG_FRONTEND_H

#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "debug.h"

namespace simtvp {

class debug_frontend {
 public:
  // The debugger the environment asks for (SIMTVP_DEBUG=1 or SIMTVP_DEBUG_SCRIPT=FILE), or null.
  // A script that cannot be read is an error (*error says which file and why).
  static std::unique_ptr<debug_frontend> from_environment(const std::string &program, std::string *error);
  ~debug_frontend();
  debug_frontend(const debug_frontend &) = delete;
  debug_frontend &operator=(const debug_frontend &) = delete;

  // For the functional engine (func_ports.debug); valid as long as this object.
  const func_debug_port *port() const { return &port_; }
  // Before the first kernel: the banner and the first commands.
  void start();
  // The program is done with the GPU.
  void finish();

 private:
  debug_frontend() = default;
  bool read_line(const char *prompt, char *buf, size_t size);
  bool source_line(const char *path, uint32_t line, char *buf, size_t size);

  dbg *d_ = nullptr;
  func_debug_port port_{};
  std::FILE *script_ = nullptr;
  bool tty_ = false;      // stdin is a terminal
  bool on_stdin_ = false; // the script is done: commands come from stdin
  std::map<std::string, std::vector<std::string>> sources_;  // files read, by path (empty: unreadable)
};

}  // namespace simtvp

#endif  // SIMTVP_PLATFORM_DEBUG_FRONTEND_H
