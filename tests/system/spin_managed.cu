// spin_managed — coherence of a managed page the GPU maps remotely (docs/vm.md, Advice): the host
// touches a managed line first (the host holds its page), advises the range accessed-by the GPU
// (the driver maps the page remotely at once: a MAP_SYSMEM window onto the exposed host mirror,
// which the platform also watches), and a kernel reads the line, says so through mapped pinned
// memory and waits; the host overwrites the line with a plain store (trapped: the directory
// invalidates the GPU L2's copy in the coherent modes) and releases the kernel, which must read the
// host's value. Every host wait is bounded: a kernel that never answers ends with FAIL, not a hang.
// Usage: spin_managed
#include <cstdio>

#include "../kernels/kernel_check.cuh"

constexpr long kSpinLimit = 20000000;

// line[0] read before and after the host's write; flag[0]: 1 = read once, 2 = go on.
__global__ void reread(volatile int *line, volatile int *flag, int *out) {
  out[0] = line[0];
  __threadfence_system();
  flag[0] = 1;
  while (flag[0] != 2) {
  }
  out[1] = line[0];
}

int main() {
  int *line = nullptr, *flag = nullptr, *out = nullptr;
  CHECK_CUDA(cudaMallocManaged(&line, 4096));
  CHECK_CUDA(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped));
  CHECK_CUDA(cudaMalloc(&out, 2 * sizeof(int)));
  volatile int *vl = line, *vf = flag;
  *vl = 7;  // the host's first touch: the page is on the host
  *vf = 0;
  cudaMemLocation dev{cudaMemLocationTypeDevice, 0};
  CHECK_CUDA(cudaMemAdvise(line, 4096, cudaMemAdviseSetAccessedBy, dev));
  reread<<<1, 1>>>(line, flag, out);
  CHECK_CUDA(cudaGetLastError());
  long n = 0;
  while (*vf != 1 && n < kSpinLimit) n++;
  if (*vf != 1) return verdict("spin_managed", false, "the kernel did not read");
  *vl = 42;  // the GPU L2 holds this line: the directory invalidates its copy
  *vf = 2;
  CHECK_CUDA(cudaDeviceSynchronize());
  int got[2];
  CHECK_CUDA(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
  if (got[0] != 7 || got[1] != 42)
    return verdict("spin_managed", false, "the kernel read %d then %d, expected 7 then 42", got[0], got[1]);
  CHECK_CUDA(cudaFreeHost(flag));
  CHECK_CUDA(cudaFree(line));
  CHECK_CUDA(cudaFree(out));
  return verdict("spin_managed", true, "a remote managed line re-read after the host's store");
}
