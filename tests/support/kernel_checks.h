// kernel_checks — the whole-kernel result checks of the tests/kernels programs (PTX that nvcc made
// from tests/kernels/*.cu, in tests/kernels/ptx), written once for every way of running a kernel:
// the functional runner (tests/func), cycle-accurate, approximately-timed and mixed SIMT cores on
// the SIMT harness (tests/simt, tests/simt_at). Values never depend on timing (DESIGN.md §3), so
// every runner must give the results the host computes as the programs themselves compute them.
//
// A runner implements kernel_checks::device and calls register_all() from a static initialiser:
// every check becomes a gtest case `<suite>.<check name>` (VectorAddMatchesHost, ...) that builds
// a fresh device, loads the check's PTX and runs it.
#ifndef SIMTVP_TESTS_SUPPORT_KERNEL_CHECKS_H
#define SIMTVP_TESTS_SUPPORT_KERNEL_CHECKS_H

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "simtvp_diag.h"

namespace kernel_checks {

// A GPU that loads PTX, holds device buffers and runs kernels to completion.
class device {
 public:
  virtual ~device() = default;
  virtual simtvp_status load(const std::string &ptx, const char *name) = 0;
  virtual simtvp_status alloc(uint64_t bytes, uint64_t *addr) = 0;
  virtual simtvp_status write(uint64_t addr, const void *src, uint64_t bytes) = 0;
  virtual simtvp_status read(uint64_t addr, void *dst, uint64_t bytes) = 0;
  // args[i] points to the value of parameter i (as cuLaunchKernel's kernelParams).
  virtual simtvp_status launch(const char *kernel, const uint32_t grid[3], const uint32_t block[3], uint32_t smem,
                               const void **args) = 0;
  // Address (and size) of a module-scope variable; false when there is none.
  virtual bool symbol(const char *name, uint64_t *addr, uint64_t *bytes) = 0;
  virtual std::string printed() const = 0;  // device printf output so far
  virtual const simtvp_diag &diag() const = 0;  // of the last failing call
};

// Makes a device for one check; stack_bytes is the per-thread stack the check needs (0: default).
using factory = std::function<std::unique_ptr<device>(uint32_t stack_bytes)>;

// Registers every check as test `suite`.<check name>; file and line are the runner's, for gtest.
void register_all(const char *suite, factory make, const char *file, int line);

}  // namespace kernel_checks

#endif  // SIMTVP_TESTS_SUPPORT_KERNEL_CHECKS_H
