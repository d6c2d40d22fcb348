// messages — a CUDA program that goes wrong on purpose, one way per mode, for the tests of what
// simtvp says then (tests/report/messages_test.cc):
//   assert    a device assert() fails in block 1, thread 3; then two more API calls
//   fault     an out-of-bounds store in every thread; then three more API calls
//   deadlock  the two warps of each block wait at different barriers (a barrier deadlock)
//   crash     one kernel, then the host dereferences a null pointer (SIGSEGV)
//   abort     one kernel, then abort()
//   exit      one kernel, then exit(3) without freeing anything
//   nocuda    prints and exits 0 without a single CUDA call
//   ok        one kernel, checked; exit 0
// Built with (committed: the suite runs without nvcc):
//   nvcc -cudart shared -gencode 'arch=compute_75,code=[sm_75,compute_75]' -lineinfo \
//        -Xlinker --strip-all -o bin/messages messages.cu
#include <cassert>
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void fill(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i * 2;
}

__global__ void checked(int *out) {
  assert(!(blockIdx.x == 1 && threadIdx.x == 3));
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

__global__ void wild(int *out) { out[(blockIdx.x * blockDim.x + threadIdx.x) * 1024 * 1024 + (1 << 30)] = 1; }

// Warp 0 waits at barrier 0 and warp 1 at barrier 1, each for all 64 threads: neither completes.
__global__ void stuck(int *out) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  if (threadIdx.x < 32)
    __syncthreads();
  else
    asm volatile("bar.sync 1, 64;");
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[63 - threadIdx.x];
}

static int one_kernel(int **dev) {
  const int n = 1024;
  cudaMalloc(dev, n * sizeof(int));
  fill<<<n / 128, 128>>>(*dev, n);
  int host[n];
  cudaMemcpy(host, *dev, sizeof host, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; i++)
    if (host[i] != i * 2) {
      std::printf("FAIL at %d\n", i);
      return 1;
    }
  std::printf("kernel ok\n");
  std::fflush(stdout);
  return 0;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "ok";
  int *dev = nullptr;
  if (!std::strcmp(mode, "nocuda")) {
    std::printf("no CUDA here\n");
    return 0;
  }
  if (!std::strcmp(mode, "ok")) return one_kernel(&dev);
  if (!std::strcmp(mode, "assert") || !std::strcmp(mode, "fault") || !std::strcmp(mode, "deadlock")) {
    cudaMalloc(&dev, 64 * 64 * sizeof(int));
    if (!std::strcmp(mode, "assert")) checked<<<2, 32>>>(dev);
    else if (!std::strcmp(mode, "fault")) wild<<<2, 32>>>(dev);
    else stuck<<<8, 64>>>(dev);
    cudaError_t e = cudaDeviceSynchronize();
    std::printf("synchronize: %s\n", cudaGetErrorName(e));
    int host[16];
    e = cudaMemcpy(host, dev, sizeof host, cudaMemcpyDeviceToHost);
    std::printf("memcpy: %s\n", cudaGetErrorName(e));
    e = cudaFree(dev);
    std::printf("free: %s\n", cudaGetErrorName(e));
    if (!std::strcmp(mode, "fault")) {
      e = cudaDeviceSynchronize();
      std::printf("synchronize again: %s\n", cudaGetErrorName(e));
    }
    return 1;
  }
  if (one_kernel(&dev)) return 1;
  if (!std::strcmp(mode, "crash")) {
    volatile int *p = nullptr;
    *p = 1;
  }
  if (!std::strcmp(mode, "abort")) std::abort();
  if (!std::strcmp(mode, "exit")) std::exit(3);
  std::printf("unknown mode %s\n", mode);
  return 2;
}
