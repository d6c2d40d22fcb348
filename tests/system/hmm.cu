// hmm — kernels that dereference plain host pointers (malloc'ed memory, a stack array), as on a
// system whose GPU translates with the host's page tables (HMM / ATS; -system_mode shared_va,
// docs/system-modes.md), then one that dereferences an address the host does not map: a GPU page
// fault that the program sees as cudaErrorIllegalAddress.
// Usage: hmm [n=4096]
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>

#include "../kernels/kernel_check.cuh"

__global__ void saxpy(const float *x, const float *y, float *out, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = a * x[i] + y[i];
}

__global__ void bump(int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd_system(&v[i], i + 1);
}

__global__ void wild_read(const int *p, int *sink) { *sink = *p; }

int main(int argc, char **argv) {
  const int n = arg_int(argc, argv, 1, 4096);
  int pageable = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0));
  if (!pageable) return verdict("hmm", false, "cudaDevAttrPageableMemoryAccess is 0");

  float *x = static_cast<float *>(std::malloc(n * sizeof(float)));
  float *y = static_cast<float *>(std::malloc(n * sizeof(float)));
  float *out = static_cast<float *>(std::malloc(n * sizeof(float)));
  test_rng rng(11);
  for (int i = 0; i < n; i++) {
    x[i] = rng.uniform(-4.0f, 4.0f);
    y[i] = rng.uniform(-4.0f, 4.0f);
    out[i] = 0.0f;
  }
  saxpy<<<(n + 127) / 128, 128>>>(x, y, out, 2.5f, n);
  CHECK_LAUNCH();
  for (int i = 0; i < n; i++)
    if (!close_to(out[i], 2.5f * x[i] + y[i], 1e-6, 1e-6))
      return verdict("hmm", false, "saxpy on malloc'ed memory: out[%d] = %g, expected %g", i, out[i], 2.5f * x[i] + y[i]);

  int stack_counts[100];
  for (int i = 0; i < 100; i++) stack_counts[i] = 1000 * i;
  bump<<<1, 128>>>(stack_counts, 100);
  CHECK_LAUNCH();
  for (int i = 0; i < 100; i++)
    if (stack_counts[i] != 1000 * i + i + 1)
      return verdict("hmm", false, "atomics on a stack array: [%d] = %d, expected %d", i, stack_counts[i], 1000 * i + i + 1);

  // An address the host does not map: a page mapped and then unmapped again.
  void *gone = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (gone == MAP_FAILED) return verdict("hmm", false, "mmap failed");
  munmap(gone, 4096);
  int *sink = static_cast<int *>(std::malloc(sizeof(int)));
  *sink = 7;
  wild_read<<<1, 1>>>(static_cast<const int *>(gone) + 3, sink);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaErrorIllegalAddress)
    return verdict("hmm", false, "a kernel reading unmapped host address %p: %s, expected cudaErrorIllegalAddress",
                   static_cast<const int *>(gone) + 3, cudaGetErrorName(e));
  return verdict("hmm", true, "saxpy over %d malloc'ed floats, atomics on a stack array, unmapped %p faults", n,
                 static_cast<const int *>(gone) + 3);
}
