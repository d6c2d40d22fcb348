// host_platform — the whole platform (libsimtvp.so, platform/host/simtvp_host.h) as the tests and
// benchmarks drive it: opened from an option list, driver calls run on the host CPU stub's thread,
// and runs in a forked child (SystemC simulates once per process, so comparing two platforms
// needs two processes).
#ifndef SIMTVP_TESTS_SUPPORT_HOST_PLATFORM_H
#define SIMTVP_TESTS_SUPPORT_HOST_PLATFORM_H

#include <functional>
#include <string>
#include <vector>

#include "simtvp_host.h"

namespace test_support {

// Runs f() on the host CPU stub's thread (simtvp_host_call), where driver calls may be made.
template <class F>
simtvp_status host_call(simtvp_host *h, F &&f, simtvp_diag *diag = nullptr) {
  return simtvp_host_call(h, [](void *ctx) { (*static_cast<F *>(ctx))(); }, &f, diag);
}

// Unsets the variables through which a developer's shell would change what a platform opens
// ($SIMTVP_CONFIG, _OUTDIR, _OPTIONS, _STRICT, _QUIET).
void clear_platform_environment();

struct platform_options {
  std::vector<std::string> overrides;  // "-option", "value", ... after the file's
  std::string config;                  // option file; empty: $SIMTVP_CONFIG or the built-in default
  std::string out_dir;                 // statistics output; empty: $SIMTVP_OUTDIR or none
  bool quiet = true;                   // no per-kernel statistics text on stderr
};
// simtvp_host_open with those options.
simtvp_host *open_platform(const platform_options &o, simtvp_diag *diag);

// What a forked child gave back.
struct child_result {
  bool ok = false;        // the child ran to its end and exited normally
  std::string error;      // why not
  std::string payload;    // what the child's function returned
  std::string out, err;   // its stdout and stderr, when captured
};
// Runs fn in a forked child and returns its result through a pipe. With capture_output the
// child's stdout and stderr come back too instead of going where the parent's go.
child_result run_in_child(const std::function<std::string()> &fn, bool capture_output = false);

}  // namespace test_support

#endif  // SIMTVP_TESTS_SUPPORT_HOST_PLATFORM_H
