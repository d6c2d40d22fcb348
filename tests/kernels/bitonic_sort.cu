// bitonic_sort — sorts n unsigned keys (n a power of two) with a bitonic network:
//   bitonic_sort_shared:  each block sorts a chunk of 2*blockDim.x keys in shared memory, in the
//                         direction the global network wants for that chunk;
//   bitonic_merge_global: one compare-exchange step with a stride of a chunk or more, in global
//                         memory (one thread per pair);
//   bitonic_merge_shared: the remaining strides below a chunk, in shared memory.
// The element at global index i sorts ascending when (i & size) == 0, so chunks sorted separately
// combine into the full network. The host checks the result against std::sort.
// Usage: bitonic_sort [n=2048] [threads_per_block=128]  (both powers of two, n >= 2*threads)
#include <algorithm>

#include "kernel_check.cuh"

__device__ void compare_exchange(unsigned *keys, unsigned lo, unsigned hi, bool ascending) {
  unsigned a = keys[lo], b = keys[hi];
  if ((a > b) == ascending) {
    keys[lo] = b;
    keys[hi] = a;
  }
}

// Pair `t` of a step with stride `stride`: the lower index of the pair (within the chunk).
__device__ unsigned pair_low(unsigned t, unsigned stride) {
  return 2 * stride * (t / stride) + (t % stride);
}

__global__ void bitonic_sort_shared(unsigned *keys) {
  extern __shared__ unsigned chunk[];
  const unsigned width = 2 * blockDim.x, base = blockIdx.x * width, t = threadIdx.x;
  chunk[t] = keys[base + t];
  chunk[t + blockDim.x] = keys[base + t + blockDim.x];
  for (unsigned size = 2; size <= width; size *= 2)
    for (unsigned stride = size / 2; stride > 0; stride /= 2) {
      __syncthreads();
      unsigned lo = pair_low(t, stride);
      compare_exchange(chunk, lo, lo + stride, ((base + lo) & size) == 0);
    }
  __syncthreads();
  keys[base + t] = chunk[t];
  keys[base + t + blockDim.x] = chunk[t + blockDim.x];
}

__global__ void bitonic_merge_global(unsigned *keys, unsigned size, unsigned stride) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lo = pair_low(t, stride);
  compare_exchange(keys, lo, lo + stride, (lo & size) == 0);
}

__global__ void bitonic_merge_shared(unsigned *keys, unsigned size) {
  extern __shared__ unsigned chunk[];
  const unsigned width = 2 * blockDim.x, base = blockIdx.x * width, t = threadIdx.x;
  chunk[t] = keys[base + t];
  chunk[t + blockDim.x] = keys[base + t + blockDim.x];
  for (unsigned stride = width / 2; stride > 0; stride /= 2) {
    __syncthreads();
    unsigned lo = pair_low(t, stride);
    compare_exchange(chunk, lo, lo + stride, ((base + lo) & size) == 0);
  }
  __syncthreads();
  keys[base + t] = chunk[t];
  keys[base + t + blockDim.x] = chunk[t + blockDim.x];
}

int main(int argc, char **argv) {
  const int n = arg_int(argc, argv, 1, 2048);
  const int threads = arg_int(argc, argv, 2, 128);
  const unsigned width = 2u * threads;
  if ((n & (n - 1)) || (threads & (threads - 1)) || threads > 1024 || (unsigned)n < width) {
    std::fprintf(stderr, "bitonic_sort: n and threads must be powers of two, n >= 2*threads\n");
    return 2;
  }
  unsigned *keys = new unsigned[n], *want = new unsigned[n];
  test_rng rng(6);
  for (int i = 0; i < n; ++i) want[i] = keys[i] = rng.next() % 1000;  // with duplicates
  std::sort(want, want + n);

  unsigned *dkeys;
  CHECK_CUDA(cudaMalloc(&dkeys, n * sizeof(unsigned)));
  CHECK_CUDA(cudaMemcpy(dkeys, keys, n * sizeof(unsigned), cudaMemcpyHostToDevice));
  const unsigned chunks = n / width, smem = width * sizeof(unsigned);
  int launches = 0;
  bitonic_sort_shared<<<chunks, threads, smem>>>(dkeys);
  CHECK_LAUNCH();
  ++launches;
  for (unsigned size = 2 * width; size <= (unsigned)n; size *= 2) {
    for (unsigned stride = size / 2; stride >= width; stride /= 2) {
      bitonic_merge_global<<<n / 2 / threads, threads>>>(dkeys, size, stride);
      CHECK_LAUNCH();
      ++launches;
    }
    bitonic_merge_shared<<<chunks, threads, smem>>>(dkeys, size);
    CHECK_LAUNCH();
    ++launches;
  }
  CHECK_CUDA(cudaMemcpy(keys, dkeys, n * sizeof(unsigned), cudaMemcpyDeviceToHost));

  int bad = -1;
  for (int i = 0; i < n && bad < 0; ++i)
    if (keys[i] != want[i]) bad = i;
  int status = bad < 0 ? verdict("bitonic_sort", true, "n=%d threads=%d launches=%d", n, threads,
                                 launches)
                       : verdict("bitonic_sort", false, "keys[%d]=%u, want %u", bad, keys[bad],
                                 want[bad]);
  CHECK_CUDA(cudaFree(dkeys));
  delete[] keys;
  delete[] want;
  return status;
}
