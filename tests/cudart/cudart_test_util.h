// cudart_test_util.h — what the tests of libcudart.so.13 share: the environment (the sm_75
// configuration the fixtures target, statistics text off), fatbin registration done by hand the
// way nvcc's generated code does it (docs/fixtures.md), and small helpers.
#ifndef SIMTVP_CUDART_TEST_UTIL_H
#define SIMTVP_CUDART_TEST_UTIL_H

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "cu_core.h"
#include "cudart_api.h"

namespace cudart_test {

// A fatbin from tests/cudart/fixtures registered with __cudaRegisterFatBinary, its kernels with
// __cudaRegisterFunction (each under a host "stub" address of its own) and its variables with
// __cudaRegisterVar / __cudaRegisterManagedVar (each with a host shadow of its own).
class Registration {
 public:
  // kernels: device names; vars: {device name, size, constant}; managed: {device name, size}.
  struct Var {
    const char *name;
    size_t size;
    int constant;
  };
  Registration(const std::string &fixture, const std::vector<const char *> &kernels,
               const std::vector<Var> &vars = {}, const std::vector<Var> &managed = {});
  const void *kernel(const char *name) const;  // the stub address naming the kernel
  const void *var(const char *name) const;     // the host shadow naming the variable
  void **managed_ptr(const char *name);        // where the runtime stores a managed variable's address
  void **handle() const { return handle_; }

 private:
  struct Wrapper {
    int magic, version;
    const unsigned long long *data;
    void *filename_or_fatbins;
  };
  std::vector<unsigned long long> words_;
  Wrapper wrapper_{};
  void **handle_ = nullptr;
  std::vector<char> stubs_;
  std::map<std::string, size_t> kernel_index_;
  std::map<std::string, std::vector<char>> shadows_;
  std::map<std::string, void *> managed_ptrs_;
};

// The standard registration of cudart_test_kernels.fatbin (every kernel and variable), made once
// per process (as nvcc-generated code does it once, before main).
Registration &kernels();

std::string fixture_path(const std::string &name);
// Text written to stderr while f runs.
template <class F>
std::string stderr_of(F f) {
  testing::internal::CaptureStderr();
  f();
  return testing::internal::GetCapturedStderr();
}

// Launch helper: cudaLaunchKernel with the arguments' addresses.
template <class... T>
cudaError_t launch(const void *kernel, dim3 grid, dim3 block, size_t smem, cudaStream_t stream, T... args) {
  void *a[] = {&args..., nullptr};
  return cudaLaunchKernel(kernel, grid, block, a, smem, stream);
}

inline dim3 d3(unsigned x, unsigned y = 1, unsigned z = 1) { return dim3{x, y, z}; }

}  // namespace cudart_test

#endif  // SIMTVP_CUDART_TEST_UTIL_H
