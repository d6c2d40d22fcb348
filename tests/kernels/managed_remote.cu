// managed_remote — managed pages the GPU maps remotely (docs/vm.md "Unified memory", advice):
// host-initialised cudaMallocManaged pages with the preferred location on the host, so the
// kernel's faults map them over the link instead of migrating them; a second kernel on the same
// remote pages (no faults); a prefetch that migrates them to the GPU (the remote mappings go) and
// a third kernel in device memory; then accessed-by the device on a second range the host holds,
// mapped at the advice, and a kernel over both ranges. On a real GPU the same program gives the
// same answers.
// Usage: managed_remote [pages=4] [threads_per_block=128]
#include "kernel_check.cuh"

__global__ void add_scaled(int *v, const int *w, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += k * (w ? w[i] : 1);
}

int main(int argc, char **argv) {
  const int pages = arg_int(argc, argv, 1, 4);
  const int threads = arg_int(argc, argv, 2, 128);
  const int n = pages * 1024;  // 4 KiB of ints per page
  const int blocks = (n + threads - 1) / threads;

  int *v = nullptr, *w = nullptr;
  CHECK_CUDA(cudaMallocManaged(&v, n * sizeof(int)));
  CHECK_CUDA(cudaMallocManaged(&w, n * sizeof(int)));
  for (int i = 0; i < n; ++i) v[i] = i;  // first touch on the host
  for (int i = 0; i < n; ++i) w[i] = 3 * i;
  cudaMemLocation dev{cudaMemLocationTypeDevice, 0};
  cudaMemLocation host{cudaMemLocationTypeHost, 0};

  // Preferred location host: the faults map v's pages remotely; the second kernel finds them.
  CHECK_CUDA(cudaMemAdvise(v, n * sizeof(int), cudaMemAdviseSetPreferredLocation, host));
  add_scaled<<<blocks, threads>>>(v, nullptr, n, 1);
  CHECK_LAUNCH();
  add_scaled<<<blocks, threads>>>(v, nullptr, n, 2);
  CHECK_LAUNCH();
  // Moved to the GPU: the remote mappings go, the third kernel runs in device memory.
  CHECK_CUDA(cudaMemPrefetchAsync(v, n * sizeof(int), dev, 0, nullptr));
  add_scaled<<<blocks, threads>>>(v, nullptr, n, 4);
  CHECK_LAUNCH();
  // Accessed-by the device: w's pages (on the host) are mapped at the advice; v reads them.
  CHECK_CUDA(cudaMemAdvise(w, n * sizeof(int), cudaMemAdviseSetAccessedBy, dev));
  add_scaled<<<blocks, threads>>>(v, w, n, 1);
  CHECK_LAUNCH();

  int bad = -1;
  for (int i = 0; i < n && bad < 0; ++i)  // host reads: v comes back, w never moved
    if (v[i] != i + 7 + 3 * i || w[i] != 3 * i) bad = i;
  int status;
  if (bad >= 0)
    status = verdict("managed_remote", false, "v[%d]=%d w[%d]=%d", bad, v[bad], bad, w[bad]);
  else
    status = verdict("managed_remote", true, "pages=%d blocks=%d threads=%d", pages, blocks, threads);
  CHECK_CUDA(cudaFree(v));
  CHECK_CUDA(cudaFree(w));
  return status;
}
