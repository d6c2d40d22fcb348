// kernel_check.cuh — what every program in tests/kernels/ shares: CUDA error checks, argv parsing,
// a deterministic data generator and the PASS/FAIL verdict line.
//
// The programs are ordinary CUDA programs (nvcc -cudart shared): the same binary runs on a real GPU
// and on simtvp. Each one checks its own result on the host, prints one verdict line
// ("PASS <name>: <summary>" or "FAIL <name>: <first mismatch>") and exits 0 on success, 1 on a wrong
// result and 2 when a CUDA call fails. Problem sizes are small by default (a functional simulation
// of each takes well under a second) and can be raised from the command line.
#ifndef SIMTVP_KERNEL_CHECK_CUH
#define SIMTVP_KERNEL_CHECK_CUH

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

// Aborts the program (exit 2) naming the call and the CUDA error when a runtime call fails.
#define CHECK_CUDA(call)                                                                           \
  do {                                                                                             \
    cudaError_t check_err_ = (call);                                                               \
    if (check_err_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,             \
                   cudaGetErrorName(check_err_), cudaGetErrorString(check_err_));                  \
      std::exit(2);                                                                                \
    }                                                                                              \
  } while (0)

// Checks a kernel launch: the launch itself, then its completion.
#define CHECK_LAUNCH()                                                                             \
  do {                                                                                             \
    CHECK_CUDA(cudaGetLastError());                                                                \
    CHECK_CUDA(cudaDeviceSynchronize());                                                           \
  } while (0)

// argv[index] as a positive integer, or fallback when absent. A malformed or non-positive value
// ends the program with a usage message (exit 2).
static inline int arg_int(int argc, char **argv, int index, int fallback) {
  if (index >= argc) return fallback;
  char *end = nullptr;
  long value = std::strtol(argv[index], &end, 0);
  if (end == argv[index] || *end != '\0' || value <= 0 || value > (1L << 30)) {
    std::fprintf(stderr, "%s: argument %d ('%s') must be a positive integer\n", argv[0], index,
                 argv[index]);
    std::exit(2);
  }
  return static_cast<int>(value);
}

// Deterministic pseudo-random numbers (xorshift32), identical on every host.
struct test_rng {
  unsigned state;
  explicit test_rng(unsigned seed) : state(seed ? seed : 0x9e3779b9u) {}
  unsigned next() {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
  }
  // Uniform in [lo, hi).
  float uniform(float lo, float hi) { return lo + (hi - lo) * (next() >> 8) * (1.0f / 16777216.0f); }
};

// Prints the verdict line and returns the exit status (0 pass, 1 fail).
static inline int verdict(const char *name, bool pass, const char *fmt, ...) {
  std::printf("%s %s: ", pass ? "PASS" : "FAIL", name);
  va_list ap;
  va_start(ap, fmt);
  std::vprintf(fmt, ap);
  va_end(ap);
  std::printf("\n");
  std::fflush(stdout);
  return pass ? 0 : 1;
}

// Relative-or-absolute closeness for floating-point results.
static inline bool close_to(double got, double want, double rel, double abs_tol) {
  double diff = got > want ? got - want : want - got;
  double mag = want < 0 ? -want : want;
  return diff <= abs_tol || diff <= rel * mag;
}

#endif  // SIMTVP_KERNEL_CHECK_CUH
