// reduction — sum of an array two ways:
//   reduce_tree:    shared-memory tree (sequential addressing, __syncthreads between levels),
//                   one partial sum per block, then the same kernel again over the partials;
//   reduce_shuffle: grid-stride accumulation, warp reduction with __shfl_down_sync, one shared slot
//                   per warp, a second warp-level pass, one atomicAdd per block.
// The data are small integers (stored as int and as float) so every summation order gives the exact
// same result and the host can check it bit for bit.
// Usage: reduction [n=8192] [threads_per_block=256]  (threads_per_block: a power of two, 32..1024)
#include "kernel_check.cuh"

__global__ void reduce_tree(const int *in, int *out, int n) {
  extern __shared__ int partial[];
  const unsigned tid = threadIdx.x;
  // Each thread first adds two elements: blockDim.x * 2 inputs per block.
  unsigned i = blockIdx.x * blockDim.x * 2 + tid;
  int sum = 0;
  if (i < (unsigned)n) sum = in[i];
  if (i + blockDim.x < (unsigned)n) sum += in[i + blockDim.x];
  partial[tid] = sum;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (tid < stride) partial[tid] += partial[tid + stride];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}

__device__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

__global__ void reduce_shuffle(const float *in, float *result, int n) {
  __shared__ float warp_partial[32];
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    sum += in[i];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  sum = warp_sum(sum);
  if (lane == 0) warp_partial[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    sum = lane < (int)(blockDim.x / 32) ? warp_partial[lane] : 0.0f;
    sum = warp_sum(sum);
    if (lane == 0) atomicAdd(result, sum);
  }
}

int main(int argc, char **argv) {
  const int n = arg_int(argc, argv, 1, 8192);
  const int threads = arg_int(argc, argv, 2, 256);
  if (threads < 32 || threads > 1024 || (threads & (threads - 1))) {
    std::fprintf(stderr, "reduction: threads_per_block must be a power of two in 32..1024\n");
    return 2;
  }
  int *hi = new int[n];
  float *hf = new float[n];
  long long want = 0;
  test_rng rng(2);
  for (int i = 0; i < n; ++i) {
    hi[i] = (int)(rng.next() % 17) - 8;
    hf[i] = (float)hi[i];
    want += hi[i];
  }

  int *di, *dpartial[2];
  float *df, *dresult;
  const int blocks = (n + threads * 2 - 1) / (threads * 2);
  CHECK_CUDA(cudaMalloc(&di, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dpartial[0], blocks * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dpartial[1], blocks * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&df, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dresult, sizeof(float)));
  CHECK_CUDA(cudaMemcpy(di, hi, n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(df, hf, n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(dresult, 0, sizeof(float)));

  // Tree: pass 1 over the input, then passes over the partials (ping-pong between two buffers)
  // until one value is left.
  reduce_tree<<<blocks, threads, threads * sizeof(int)>>>(di, dpartial[0], n);
  CHECK_LAUNCH();
  int remaining = blocks, current = 0;
  while (remaining > 1) {
    int next = (remaining + threads * 2 - 1) / (threads * 2);
    reduce_tree<<<next, threads, threads * sizeof(int)>>>(dpartial[current], dpartial[current ^ 1],
                                                          remaining);
    CHECK_LAUNCH();
    remaining = next;
    current ^= 1;
  }
  int tree_sum = 0;
  CHECK_CUDA(cudaMemcpy(&tree_sum, dpartial[current], sizeof(int), cudaMemcpyDeviceToHost));

  const int shuffle_blocks = blocks < 4 ? blocks : 4;
  reduce_shuffle<<<shuffle_blocks, threads>>>(df, dresult, n);
  CHECK_LAUNCH();
  float shuffle_sum = 0.0f;
  CHECK_CUDA(cudaMemcpy(&shuffle_sum, dresult, sizeof(float), cudaMemcpyDeviceToHost));

  const bool pass = tree_sum == want && shuffle_sum == (float)want;
  int status = verdict("reduction", pass, "n=%d threads=%d sum=%lld tree=%d shuffle=%.1f", n, threads,
                       want, tree_sum, shuffle_sum);
  CHECK_CUDA(cudaFree(di));
  CHECK_CUDA(cudaFree(dpartial[0]));
  CHECK_CUDA(cudaFree(dpartial[1]));
  CHECK_CUDA(cudaFree(df));
  CHECK_CUDA(cudaFree(dresult));
  delete[] hi;
  delete[] hf;
  return status;
}
