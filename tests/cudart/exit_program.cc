// exit_program.cc — what a program may do around process exit, run as CTest
// Cudart.ProgramExit*: a global object whose destructor frees device memory (it runs after the
// runtime released the platform, so it gets cudaErrorCudartUnloading, quietly), an atexit handler
// registered after the device opened (it runs first and may still use the device), and work left
// queued at exit. The run summary is printed once and the exit status is the program's.
#include <cstdio>
#include <cstdlib>

#include "cudart_api.h"

namespace {

struct Holder {
  void *p = nullptr;
  ~Holder() {
    cudaError_t e = cudaFree(p);
    std::printf("destructor cudaFree: %s\n", cudaGetErrorName(e));
    std::fflush(stdout);
  }
} holder;

int *late = nullptr;

void late_handler() {
  int h = 0;
  cudaError_t e = cudaMemcpy(&h, late, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("atexit cudaMemcpy: %s, value %d\n", cudaGetErrorName(e), h);
  std::fflush(stdout);
}

}  // namespace

int main() {
  if (cudaMalloc(&holder.p, 64) != cudaSuccess) return 2;
  if (cudaMalloc(reinterpret_cast<void **>(&late), 4) != cudaSuccess) return 2;
  if (cudaMemset(late, 0x01, 4) != cudaSuccess) return 2;  // 0x01010101
  std::atexit(late_handler);
  cudaMemsetAsync(holder.p, 0, 64, nullptr);  // still queued when main returns
  std::printf("main returns\n");
  return 0;
}
