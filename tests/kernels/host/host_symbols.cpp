// host_symbols.cpp — a CUDA program written without nvcc, covering what host_saxpy.cpp does not:
//   - a C++ kernel, registered under its mangled device name (_Z16scale_and_offsetPiii);
//   - two __device__ variables registered with __cudaRegisterVar against host "shadow" variables
//     whose addresses then name them in cudaMemcpyToSymbol / cudaMemcpyFromSymbol;
//   - the legacy launch stub (nvcc -D__NV_LEGACY_LAUNCH, and every toolkit before CUDA 13): pop the
//     configuration, then cudaLaunchKernel(host stub address, grid, block, args, shmem, stream).
// Same fatbin as host_saxpy.cpp (host_kernels_fatbin.h). Prints PASS/FAIL.
// Usage: host_symbols [n=777]
#include <cstdio>
#include <cstdlib>

#include "cudart_abi.h"
#include "host_kernels_fatbin.h"

namespace {

const simtvp_fatbin_wrapper fatbin_wrapper = {SIMTVP_FATBINC_MAGIC, SIMTVP_FATBINC_VERSION,
                                              host_kernels_fatbin, nullptr};
void **fatbin_handle;

// Host shadows of `__device__ int offset;` and `__device__ unsigned launches;`. nvcc defines these
// as ordinary host variables of the same type; only their addresses matter to the runtime.
int offset_shadow;
unsigned launches_shadow;

// Host stub of `__global__ void scale_and_offset(int *, int, int)` (legacy launch path).
void scale_and_offset(int *data, int n, int factor) {
  void *args[3] = {&data, &n, &factor};
  simtvp_dim3 grid, block;
  size_t shared_bytes;
  simtvp_cuda_stream stream;
  if (__cudaPopCallConfiguration(&grid, &block, &shared_bytes, &stream) != 0) return;
  (void)cudaLaunchKernel(reinterpret_cast<const void *>(&scale_and_offset), grid, block, args,
                         shared_bytes, stream);
}

void unregister_module() { __cudaUnregisterFatBinary(fatbin_handle); }

__attribute__((constructor)) void register_module() {
  fatbin_handle = __cudaRegisterFatBinary(const_cast<simtvp_fatbin_wrapper *>(&fatbin_wrapper));
  static char kernel_name[] = "_Z16scale_and_offsetPiii";
  static char offset_name[] = "offset", launches_name[] = "launches";
  __cudaRegisterFunction(fatbin_handle, reinterpret_cast<const char *>(&scale_and_offset),
                         kernel_name, kernel_name, -1, nullptr, nullptr, nullptr, nullptr, nullptr);
  // ext = 0 (defined in this module), constant = 0 (__device__, not __constant__), global = 0.
  __cudaRegisterVar(fatbin_handle, reinterpret_cast<char *>(&offset_shadow), offset_name,
                    offset_name, 0, sizeof offset_shadow, 0, 0);
  __cudaRegisterVar(fatbin_handle, reinterpret_cast<char *>(&launches_shadow), launches_name,
                    launches_name, 0, sizeof launches_shadow, 0, 0);
  __cudaRegisterFatBinaryEnd(fatbin_handle);
  std::atexit(unregister_module);
}

void check(simtvp_cuda_error err, const char *what) {
  if (err != 0) {
    std::fprintf(stderr, "host_symbols: %s failed: %s\n", what, cudaGetErrorString(err));
    std::exit(2);
  }
}

}  // namespace

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 777;
  if (n <= 0) {
    std::fprintf(stderr, "host_symbols: n must be positive\n");
    return 2;
  }
  int *data = new int[n];
  for (int i = 0; i < n; ++i) data[i] = i - n / 2;
  int *ddata = nullptr;
  const size_t bytes = n * sizeof(int);
  check(cudaMalloc(reinterpret_cast<void **>(&ddata), bytes), "cudaMalloc");
  check(cudaMemcpy(ddata, data, bytes, SIMTVP_MEMCPY_HOST_TO_DEVICE), "cudaMemcpy");
  const unsigned zero = 0;
  check(cudaMemcpyToSymbol(&launches_shadow, &zero, sizeof zero, 0, SIMTVP_MEMCPY_HOST_TO_DEVICE),
        "cudaMemcpyToSymbol(launches)");

  // Two launches: data = (data * 3 + 10) * -2 + 7.
  const simtvp_dim3 block = {64, 1, 1}, grid = {(unsigned)(n + 63) / 64, 1, 1};
  const int factors[2] = {3, -2}, offsets[2] = {10, 7};
  for (int round = 0; round < 2; ++round) {
    check(cudaMemcpyToSymbol(&offset_shadow, &offsets[round], sizeof(int), 0,
                             SIMTVP_MEMCPY_HOST_TO_DEVICE),
          "cudaMemcpyToSymbol(offset)");
    // scale_and_offset<<<grid, block>>>(ddata, n, factors[round]);
    __cudaPushCallConfiguration(grid, block, 0, nullptr) ? (void)0
                                                         : scale_and_offset(ddata, n, factors[round]);
    check(cudaGetLastError(), "scale_and_offset launch");
  }
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  int *result = new int[n];
  unsigned launches = 0;
  check(cudaMemcpy(result, ddata, bytes, SIMTVP_MEMCPY_DEVICE_TO_HOST), "cudaMemcpy");
  check(cudaMemcpyFromSymbol(&launches, &launches_shadow, sizeof launches, 0,
                             SIMTVP_MEMCPY_DEVICE_TO_HOST),
        "cudaMemcpyFromSymbol(launches)");

  int bad = -1;
  for (int i = 0; i < n && bad < 0; ++i)
    if (result[i] != (data[i] * 3 + 10) * -2 + 7) bad = i;
  int status = 0;
  if (bad >= 0) {
    std::printf("FAIL host_symbols: data[%d]=%d, want %d\n", bad, result[bad],
                (data[bad] * 3 + 10) * -2 + 7);
    status = 1;
  } else if (launches != 2) {
    std::printf("FAIL host_symbols: launches=%u, want 2\n", launches);
    status = 1;
  } else {
    std::printf("PASS host_symbols: n=%d, 2 legacy launches, symbols offset and launches\n", n);
  }
  check(cudaFree(ddata), "cudaFree");
  delete[] data;
  delete[] result;
  return status;
}
