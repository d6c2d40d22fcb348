// early_exit — what real programs do that once stopped them (issue 10):
//   exit_then_sync:  `if (i >= n) return;` and then __syncthreads() in a tree reduction: whole warps
//                    of the last block exit before the barrier (and one warp is partial), so a
//                    barrier must count only the warps that have not exited;
//   late_exit_sync:  the warps past `live` work first (a loop over the input) and exit only after
//                    the others already wait at the barrier: the last exit completes it;
//   halo_warp_size:  warpSize (nvcc writes PTX's WARP_SZ) and a shared-memory pointer that points
//                    before the array (`s + t - halo`, read at [p + 4 * (halo + 1)]): nvcc folds the
//                    constant into the address (`[%r + 68]`) while the register holds a negative
//                    32-bit value, which hardware wraps to the element after t.
// Usage: early_exit [n=1000] [threads_per_block=256]  (threads_per_block: a power of two, 64..1024;
//        n not a multiple of it, so the last block has exited warps)
#include "kernel_check.cuh"

#define MAX_THREADS 1024
#define HALO 16

// Sum of in[block's range] per block; threads past n return at once.
__global__ void exit_then_sync(const int *in, int *out, int n) {
  __shared__ int s[MAX_THREADS];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  if (i >= n) return;
  s[t] = in[i];
  __syncthreads();
  const int live = min((int)blockDim.x, n - (int)(blockIdx.x * blockDim.x));
  for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
    if (t < stride && t + stride < live) s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = s[0];
}

// Threads t >= live first sum `work` inputs, store it, and exit; the others exchange values through
// shared memory across a barrier (out[i] = their neighbour's input).
__global__ void late_exit_sync(const int *in, int *out, int live, int work) {
  __shared__ int s[MAX_THREADS];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  if (t >= live) {
    int acc = 0;
    for (int k = 0; k < work; ++k) acc += in[(i + k) % (gridDim.x * blockDim.x)];
    out[i] = acc;
    return;
  }
  s[t] = in[i];
  __syncthreads();
  out[i] = s[t ^ 1];
}

// out[i] = s[t] + 2 * s[t + 1] (s[blockDim.x] = 0) + warpSize * (t / warpSize), read through a
// pointer `halo` elements before the thread's own slot.
__global__ void halo_warp_size(const int *in, int *out, int halo, int taps) {
  __shared__ int s[MAX_THREADS + 1];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  s[t] = in[i];
  if (t == 0) s[blockDim.x] = 0;
  __syncthreads();
  const int *p = s + t - halo;
  int acc = 0;
  for (int k = 1; k <= taps; ++k, ++p) acc += p[HALO] * k;  // the pointer moves, HALO stays an offset
  out[i] = acc + warpSize * (t / warpSize);
}

int main(int argc, char **argv) {
  const int n = arg_int(argc, argv, 1, 1000);
  const int threads = arg_int(argc, argv, 2, 256);
  if (threads < 64 || threads > MAX_THREADS || (threads & (threads - 1))) {
    std::fprintf(stderr, "early_exit: threads_per_block must be a power of two in 64..1024\n");
    return 2;
  }
  const int blocks = (n + threads - 1) / threads, total = blocks * threads;
  int *in = new int[total], *out = new int[total];
  test_rng rng(11);
  for (int i = 0; i < total; ++i) in[i] = (int)(rng.next() % 1000);
  int *din, *dout;
  CHECK_CUDA(cudaMalloc(&din, total * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dout, total * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(din, in, total * sizeof(int), cudaMemcpyHostToDevice));

  // 1. Early exit, then barriers in a loop.
  CHECK_CUDA(cudaMemset(dout, 0, total * sizeof(int)));
  exit_then_sync<<<blocks, threads>>>(din, dout, n);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(out, dout, blocks * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < blocks; ++b) {
    int want = 0;
    for (int i = b * threads; i < n && i < (b + 1) * threads; ++i) want += in[i];
    if (out[b] != want)
      return verdict("early_exit", false, "exit_then_sync block %d: got %d, want %d", b, out[b], want);
  }

  // 2. Late exit: 40 threads stay (one full warp, one of 8 lanes), the rest exit after 64 loads.
  const int live = 40, work = 64;
  CHECK_CUDA(cudaMemset(dout, 0, total * sizeof(int)));
  late_exit_sync<<<blocks, threads>>>(din, dout, live, work);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(out, dout, total * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < total; ++i) {
    const int t = i % threads;
    int want = 0;
    if (t >= live) {
      for (int k = 0; k < work; ++k) want += in[(i + k) % total];
    } else {
      want = (t ^ 1) < live ? in[i - t + (t ^ 1)] : 0;
    }
    if (t < live && (t ^ 1) >= live) continue;  // its neighbour exited: shared value undefined
    if (out[i] != want)
      return verdict("early_exit", false, "late_exit_sync thread %d: got %d, want %d", i, out[i], want);
  }

  // 3. warpSize and a shared pointer before the array.
  CHECK_CUDA(cudaMemset(dout, 0, total * sizeof(int)));
  halo_warp_size<<<blocks, threads>>>(din, dout, HALO, 2);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(out, dout, total * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < total; ++i) {
    const int t = i % threads;
    const int want = in[i] + 2 * (t + 1 < threads ? in[i + 1] : 0) + 32 * (t / 32);
    if (out[i] != want)
      return verdict("early_exit", false, "halo_warp_size thread %d: got %d, want %d", i, out[i], want);
  }

  CHECK_CUDA(cudaFree(din));
  CHECK_CUDA(cudaFree(dout));
  delete[] in;
  delete[] out;
  return verdict("early_exit", true, "%d blocks of %d threads: early and late exits before barriers, "
                 "warpSize, shared pointer before the array", blocks, threads);
}
