// memcheck_cases.cu — one memory bug per mode, for simtvp's memory checker (tests/memcheck):
//   memcheck_cases MODE   with MODE one of
//     clean        in-bounds work, everything freed: no report
//     past-end     a 4-byte store just past a 1000-byte block (same page: silent without memcheck)
//     far          a store 1 GiB past a 4096-byte block (unmapped: a fault with or without memcheck)
//     before       a load 8 bytes before the start of a block (in the padding of the one before)
//     use-after-free        a store 16 KiB into a freed 64 KiB block (its own pages: unmapped)
//     use-after-free-small  a store into a freed 4096-byte block sharing its pages with others
//     leak         a block never freed (reported at exit)
//     shared       a load past the end of a 256-byte __shared__ array
//     local        a load past the end of a per-thread array in local memory
//     misaligned   a 4-byte store at an address that is not a multiple of 4
// Prints "result: <cudaError name>" for the kernel's synchronisation and exits 0 (the test reads
// the checker's report on stderr). Built with -lineinfo so reports name these source lines.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

__global__ void store_at(int *p, long long index) {
  if (threadIdx.x == 0 && blockIdx.x == 0) p[index] = 42;  // memcheck: the store of past-end etc.
}

__global__ void load_at(const int *p, long long index, int *out) {
  if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = p[index];
}

__global__ void shared_past_end(int *out, int index) {
  __shared__ int s[64];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) out[0] = s[index];  // memcheck: the shared load
}

__global__ void local_past_end(int *out, int index) {
  int a[16];
  for (int i = 0; i < 16; i++) a[i] = i * out[1];
  out[0] = a[index];  // memcheck: the local load
}

__global__ void store_misaligned(char *p) {
  if (threadIdx.x == 0) *reinterpret_cast<int *>(p + 2) = 7;
}

static int finish() {
  cudaError_t e = cudaDeviceSynchronize();
  std::printf("result: %s\n", cudaGetErrorName(e));
  return 0;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "clean";
  int *a = nullptr, *b = nullptr, *out = nullptr;
  cudaMalloc(&out, 64);
  cudaMemset(out, 0, 64);
  if (!std::strcmp(mode, "clean")) {
    cudaMalloc(&a, 4096);
    store_at<<<1, 32>>>(a, 1023);
    finish();
    cudaFree(a);
    cudaFree(out);
    return 0;
  }
  if (!std::strcmp(mode, "past-end")) {
    cudaMalloc(&a, 1000);
    store_at<<<1, 32>>>(a, 250);
    return finish();
  }
  if (!std::strcmp(mode, "far")) {
    cudaMalloc(&a, 4096);
    store_at<<<1, 32>>>(a, 1ll << 28);
    return finish();
  }
  if (!std::strcmp(mode, "before")) {
    cudaMalloc(&a, 1000);
    cudaMalloc(&b, 4096);
    load_at<<<1, 32>>>(b, -2, out);
    return finish();
  }
  if (!std::strcmp(mode, "use-after-free")) {
    cudaMalloc(&a, 65536);
    cudaMalloc(&b, 4096);
    cudaFree(a);
    store_at<<<1, 32>>>(a, 4096);
    return finish();
  }
  if (!std::strcmp(mode, "use-after-free-small")) {
    cudaMalloc(&a, 4096);
    cudaMalloc(&b, 4096);
    cudaFree(a);
    store_at<<<1, 32>>>(a, 3);
    return finish();
  }
  if (!std::strcmp(mode, "leak")) {
    cudaMalloc(&a, 4096);
    store_at<<<1, 32>>>(a, 0);
    finish();
    cudaFree(out);
    return 0;  // a is never freed
  }
  if (!std::strcmp(mode, "shared")) {
    shared_past_end<<<1, 64>>>(out, 80);
    return finish();
  }
  if (!std::strcmp(mode, "local")) {
    local_past_end<<<1, 32>>>(out, 1 << 20);
    return finish();
  }
  if (!std::strcmp(mode, "misaligned")) {
    store_misaligned<<<1, 32>>>(reinterpret_cast<char *>(out));
    return finish();
  }
  std::fprintf(stderr, "memcheck_cases: unknown mode %s\n", mode);
  return 2;
}
