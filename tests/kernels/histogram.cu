// histogram — 64-bin histogram of bytes two ways:
//   histogram_shared: per-block sub-histogram with shared-memory atomicAdd, merged into the global
//                     histogram with one global atomicAdd per bin and block;
//   histogram_global: every element does a global atomicAdd directly.
// Integer counts: the result is exact whatever the order of the atomics.
// Usage: histogram [n=16384] [threads_per_block=128] [blocks=8]
#include "kernel_check.cuh"

#define BINS 64

__global__ void histogram_shared(const unsigned char *data, unsigned *bins, int n) {
  __shared__ unsigned local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i] % BINS], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    if (local[b]) atomicAdd(&bins[b], local[b]);
}

__global__ void histogram_global(const unsigned char *data, unsigned *bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[data[i] % BINS], 1u);
}

int main(int argc, char **argv) {
  const int n = arg_int(argc, argv, 1, 16384);
  const int threads = arg_int(argc, argv, 2, 128);
  const int blocks = arg_int(argc, argv, 3, 8);
  unsigned char *data = new unsigned char[n];
  unsigned want[BINS] = {0}, got_shared[BINS], got_global[BINS];
  test_rng rng(4);
  for (int i = 0; i < n; ++i) {
    // Skewed data: bin 7 is hot, so many atomics collide on one address.
    data[i] = (rng.next() % 4 == 0) ? 7 : (unsigned char)(rng.next() & 0xff);
    ++want[data[i] % BINS];
  }
  unsigned char *ddata;
  unsigned *dbins_shared, *dbins_global;
  CHECK_CUDA(cudaMalloc(&ddata, n));
  CHECK_CUDA(cudaMalloc(&dbins_shared, sizeof(want)));
  CHECK_CUDA(cudaMalloc(&dbins_global, sizeof(want)));
  CHECK_CUDA(cudaMemcpy(ddata, data, n, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(dbins_shared, 0, sizeof(want)));
  CHECK_CUDA(cudaMemset(dbins_global, 0, sizeof(want)));

  histogram_shared<<<blocks, threads>>>(ddata, dbins_shared, n);
  CHECK_LAUNCH();
  histogram_global<<<blocks, threads>>>(ddata, dbins_global, n);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(got_shared, dbins_shared, sizeof(want), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(got_global, dbins_global, sizeof(want), cudaMemcpyDeviceToHost));

  int bad = -1;
  for (int b = 0; b < BINS && bad < 0; ++b)
    if (got_shared[b] != want[b] || got_global[b] != want[b]) bad = b;
  int status = bad < 0 ? verdict("histogram", true, "n=%d bins=%d hot bin 7=%u", n, BINS, want[7])
                       : verdict("histogram", false, "bin %d: shared %u global %u, want %u", bad,
                                 got_shared[bad], got_global[bad], want[bad]);
  CHECK_CUDA(cudaFree(ddata));
  CHECK_CUDA(cudaFree(dbins_shared));
  CHECK_CUDA(cudaFree(dbins_global));
  delete[] data;
  return status;
}
