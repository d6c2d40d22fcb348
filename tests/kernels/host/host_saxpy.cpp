// host_saxpy.cpp — a CUDA program written without nvcc: the host side of `saxpy<<<g, b>>>(...)` done
// by hand, exactly as nvcc 13 generates it by default, against the fatbin in host_kernels_fatbin.h
// (made from host_kernels.cu by regen.sh).
//   - a static constructor registers the fatbin (__cudaRegisterFatBinary with the wrapper struct),
//     the kernel (__cudaRegisterFunction: host stub address -> device name), then calls
//     __cudaRegisterFatBinaryEnd, and arranges __cudaUnregisterFatBinary at exit;
//   - the launch pushes the configuration (__cudaPushCallConfiguration) and calls the host stub, which
//     looks its kernel handle up once (__cudaGetKernel), pops the configuration
//     (__cudaPopCallConfiguration) and launches with an array of argument addresses
//     (__cudaLaunchKernel).
// It checks y = a*x + y on the host and prints PASS/FAIL like the .cu programs.
// Usage: host_saxpy [n=1000]
#include <cstdio>
#include <cstdlib>

#include "cudart_abi.h"
#include "host_kernels_fatbin.h"

namespace {

// nvcc emits this in section .nvFatBinSegment; the runtime only ever sees its address.
const simtvp_fatbin_wrapper fatbin_wrapper = {SIMTVP_FATBINC_MAGIC, SIMTVP_FATBINC_VERSION,
                                              host_kernels_fatbin, nullptr};
void **fatbin_handle;

// Host stub of `extern "C" __global__ void saxpy(int, float, const float *, float *)`. Its address is
// the key the runtime maps to the device function.
void saxpy(int n, float a, const float *x, float *y) {
  void *args[4] = {&n, &a, &x, &y};
  static simtvp_cuda_kernel kernel = nullptr;
  static const bool found = __cudaGetKernel(&kernel, reinterpret_cast<const void *>(&saxpy)) == 0;
  (void)found;
  simtvp_dim3 grid, block;
  size_t shared_bytes;
  simtvp_cuda_stream stream;
  if (__cudaPopCallConfiguration(&grid, &block, &shared_bytes, &stream) != 0) return;
  (void)__cudaLaunchKernel(kernel, grid, block, args, shared_bytes, stream);  // errors: cudaGetLastError
}

void unregister_module() { __cudaUnregisterFatBinary(fatbin_handle); }

__attribute__((constructor)) void register_module() {
  fatbin_handle = __cudaRegisterFatBinary(const_cast<simtvp_fatbin_wrapper *>(&fatbin_wrapper));
  static char device_name[] = "saxpy";
  __cudaRegisterFunction(fatbin_handle, reinterpret_cast<const char *>(&saxpy), device_name,
                         device_name, -1, nullptr, nullptr, nullptr, nullptr, nullptr);
  __cudaRegisterFatBinaryEnd(fatbin_handle);
  std::atexit(unregister_module);
}

void check(simtvp_cuda_error err, const char *what) {
  if (err != 0) {
    std::fprintf(stderr, "host_saxpy: %s failed: %s\n", what, cudaGetErrorString(err));
    std::exit(2);
  }
}

}  // namespace

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  if (n <= 0) {
    std::fprintf(stderr, "host_saxpy: n must be positive\n");
    return 2;
  }
  const float a = 2.5f;
  float *x = new float[n], *y = new float[n], *result = new float[n];
  for (int i = 0; i < n; ++i) {
    x[i] = (float)(i % 17) - 8.0f;
    y[i] = (float)(i % 5) * 0.5f;
  }
  float *dx = nullptr, *dy = nullptr;
  const size_t bytes = n * sizeof(float);
  check(cudaMalloc(reinterpret_cast<void **>(&dx), bytes), "cudaMalloc");
  check(cudaMalloc(reinterpret_cast<void **>(&dy), bytes), "cudaMalloc");
  check(cudaMemcpy(dx, x, bytes, SIMTVP_MEMCPY_HOST_TO_DEVICE), "cudaMemcpy");
  check(cudaMemcpy(dy, y, bytes, SIMTVP_MEMCPY_HOST_TO_DEVICE), "cudaMemcpy");

  // saxpy<<<grid, block>>>(n, a, dx, dy);
  const simtvp_dim3 block = {128, 1, 1}, grid = {(unsigned)(n + 127) / 128, 1, 1};
  __cudaPushCallConfiguration(grid, block, 0, nullptr) ? (void)0 : saxpy(n, a, dx, dy);
  check(cudaGetLastError(), "saxpy launch");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  check(cudaMemcpy(result, dy, bytes, SIMTVP_MEMCPY_DEVICE_TO_HOST), "cudaMemcpy");

  int bad = -1;
  for (int i = 0; i < n && bad < 0; ++i)
    if (result[i] != a * x[i] + y[i]) bad = i;  // small exact values: fma or not, same result
  if (bad < 0)
    std::printf("PASS host_saxpy: n=%d a=%g, registered and launched without nvcc\n", n, a);
  else
    std::printf("FAIL host_saxpy: y[%d]=%g, want %g\n", bad, result[bad], a * x[bad] + y[bad]);
  check(cudaFree(dx), "cudaFree");
  check(cudaFree(dy), "cudaFree");
  delete[] x;
  delete[] y;
  delete[] result;
  return bad < 0 ? 0 : 1;
}
