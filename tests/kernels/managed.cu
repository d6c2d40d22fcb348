// managed — unified memory (docs/vm.md "Unified memory"): cudaMallocManaged pages the host
// initialises, a kernel that faults them over to the GPU, host reads that bring them back, a
// prefetch before a second kernel, read-mostly advice on a table every thread reads, and a
// __managed__ variable the kernels and the host both update. On simtvp the pages migrate on
// demand (replayable GPU faults, timed copies); on a real GPU the same program gives the same
// answers.
// Usage: managed [pages=8] [threads_per_block=128]
#include "kernel_check.cuh"

__managed__ int launches = 0;  // bumped once per kernel by thread 0 of block 0

__global__ void scale_add(int *v, const int *table, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = 2 * v[i] + table[i & 15];
  if (i == 0) launches += 1;
}

int main(int argc, char **argv) {
  const int pages = arg_int(argc, argv, 1, 8);
  const int threads = arg_int(argc, argv, 2, 128);
  const int n = pages * 1024;  // 4 KiB of ints per page
  const int blocks = (n + threads - 1) / threads;

  int *v = nullptr, *table = nullptr;
  CHECK_CUDA(cudaMallocManaged(&v, n * sizeof(int)));
  CHECK_CUDA(cudaMallocManaged(&table, 16 * sizeof(int)));
  for (int i = 0; i < n; ++i) v[i] = i;  // first touch on the host
  for (int i = 0; i < 16; ++i) table[i] = i * i;
  cudaMemLocation dev{cudaMemLocationTypeDevice, 0};
  cudaMemLocation host{cudaMemLocationTypeHost, 0};
  CHECK_CUDA(cudaMemAdvise(table, 16 * sizeof(int), cudaMemAdviseSetReadMostly, dev));

  // First kernel: every page faults over to the GPU.
  scale_add<<<blocks, threads>>>(v, table, n);
  CHECK_LAUNCH();
  int bad = -1;
  for (int i = 0; i < n && bad < 0; ++i)  // host reads: the pages come back
    if (v[i] != 2 * i + (i & 15) * (i & 15)) bad = i;

  // Second kernel after a prefetch: no faults on v.
  if (bad < 0) {
    CHECK_CUDA(cudaMemPrefetchAsync(v, n * sizeof(int), dev, 0, nullptr));
    scale_add<<<blocks, threads>>>(v, table, n);
    CHECK_LAUNCH();
    CHECK_CUDA(cudaMemPrefetchAsync(v, n * sizeof(int), host, 0, nullptr));
    CHECK_CUDA(cudaDeviceSynchronize());
    for (int i = 0; i < n && bad < 0; ++i) {
      int t = (i & 15) * (i & 15);
      if (v[i] != 2 * (2 * i + t) + t) bad = i;
    }
  }
  int runs = launches;  // a host read of the __managed__ variable
  int status;
  if (bad >= 0)
    status = verdict("managed", false, "v[%d]=%d", bad, v[bad]);
  else if (runs != 2)
    status = verdict("managed", false, "launches=%d, want 2", runs);
  else
    status = verdict("managed", true, "pages=%d blocks=%d threads=%d", pages, blocks, threads);
  CHECK_CUDA(cudaFree(v));
  CHECK_CUDA(cudaFree(table));
  return status;
}
