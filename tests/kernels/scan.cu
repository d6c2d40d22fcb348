// scan — prefix sums of an int array.
//   scan_blelloch:  block-level work-efficient exclusive scan in shared memory (up-sweep, down-sweep;
//                   2 elements per thread), writing each block's total;
//   the block totals are scanned by the same kernel (one block) and added back by add_block_offsets,
//   giving an exclusive scan of the whole array;
//   scan_warp_inclusive: block-level inclusive scan built from __shfl_up_sync within each warp and
//                   a scan of the warp totals (each block scanned independently).
// Usage: scan [n=4096] [threads_per_block=128]  (threads_per_block: a power of two, 32..512;
//        n at most (2 * threads_per_block)^2)
#include "kernel_check.cuh"

__global__ void scan_blelloch(const int *in, int *out, int *block_totals, int n) {
  extern __shared__ int tile[];  // 2 * blockDim.x ints
  const int tid = threadIdx.x, width = 2 * blockDim.x;
  const int base = blockIdx.x * width;
  tile[2 * tid] = base + 2 * tid < n ? in[base + 2 * tid] : 0;
  tile[2 * tid + 1] = base + 2 * tid + 1 < n ? in[base + 2 * tid + 1] : 0;

  int offset = 1;
  for (int active = width / 2; active > 0; active /= 2) {  // up-sweep (reduce)
    __syncthreads();
    if (tid < active) {
      int left = offset * (2 * tid + 1) - 1, right = offset * (2 * tid + 2) - 1;
      tile[right] += tile[left];
    }
    offset *= 2;
  }
  if (tid == 0) {
    if (block_totals) block_totals[blockIdx.x] = tile[width - 1];
    tile[width - 1] = 0;
  }
  for (int active = 1; active < width; active *= 2) {  // down-sweep
    offset /= 2;
    __syncthreads();
    if (tid < active) {
      int left = offset * (2 * tid + 1) - 1, right = offset * (2 * tid + 2) - 1;
      int t = tile[left];
      tile[left] = tile[right];
      tile[right] += t;
    }
  }
  __syncthreads();
  if (base + 2 * tid < n) out[base + 2 * tid] = tile[2 * tid];
  if (base + 2 * tid + 1 < n) out[base + 2 * tid + 1] = tile[2 * tid + 1];
}

__global__ void add_block_offsets(int *data, const int *block_offsets, int n) {
  int i = blockIdx.x * 2 * blockDim.x + threadIdx.x;
  int add = block_offsets[blockIdx.x];
  if (i < n) data[i] += add;
  if (i + blockDim.x < n) data[i + blockDim.x] += add;
}

__global__ void scan_warp_inclusive(const int *in, int *out, int n) {
  __shared__ int warp_totals[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int v = i < n ? in[i] : 0;
  for (int d = 1; d < 32; d *= 2) {
    int up = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += up;
  }
  if (lane == 31) warp_totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int t = lane < (int)(blockDim.x / 32) ? warp_totals[lane] : 0;
    for (int d = 1; d < 32; d *= 2) {
      int up = __shfl_up_sync(0xffffffffu, t, d);
      if (lane >= d) t += up;
    }
    warp_totals[lane] = t;  // inclusive scan of the warp totals
  }
  __syncthreads();
  if (warp > 0) v += warp_totals[warp - 1];
  if (i < n) out[i] = v;
}

int main(int argc, char **argv) {
  const int n = arg_int(argc, argv, 1, 4096);
  const int threads = arg_int(argc, argv, 2, 128);
  const int width = 2 * threads;
  if (threads < 32 || threads > 512 || (threads & (threads - 1)) || n > width * width) {
    std::fprintf(stderr, "scan: need threads a power of two in 32..512 and n <= (2*threads)^2\n");
    return 2;
  }
  int *in = new int[n], *exclusive = new int[n], *inclusive = new int[n];
  test_rng rng(3);
  for (int i = 0; i < n; ++i) in[i] = (int)(rng.next() % 201) - 100;

  const int blocks = (n + width - 1) / width;
  int *din, *dout, *dtotals, *dincl;
  CHECK_CUDA(cudaMalloc(&din, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dout, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dincl, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dtotals, blocks * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(din, in, n * sizeof(int), cudaMemcpyHostToDevice));

  scan_blelloch<<<blocks, threads, width * sizeof(int)>>>(din, dout, dtotals, n);
  CHECK_LAUNCH();
  if (blocks > 1) {
    // The totals (at most `width` of them) are scanned in place by one block.
    scan_blelloch<<<1, threads, width * sizeof(int)>>>(dtotals, dtotals, nullptr, blocks);
    CHECK_LAUNCH();
    add_block_offsets<<<blocks, threads>>>(dout, dtotals, n);
    CHECK_LAUNCH();
  }
  scan_warp_inclusive<<<(n + threads - 1) / threads, threads>>>(din, dincl, n);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(exclusive, dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(inclusive, dincl, n * sizeof(int), cudaMemcpyDeviceToHost));

  int bad = -1, bad_kind = 0, want = 0, want_bad = 0;
  int block_running = 0;
  for (int i = 0; i < n && bad < 0; ++i) {
    if (exclusive[i] != want) bad = i, bad_kind = 0, want_bad = want;
    if (i % threads == 0) block_running = 0;  // the warp scan restarts at every block
    block_running += in[i];
    if (bad < 0 && inclusive[i] != block_running) bad = i, bad_kind = 1, want_bad = block_running;
    want += in[i];
  }
  int status;
  if (bad < 0)
    status = verdict("scan", true, "n=%d threads=%d blocks=%d total=%d", n, threads, blocks, want);
  else
    status = verdict("scan", false, "%s[%d]=%d, want %d", bad_kind ? "inclusive" : "exclusive", bad,
                     bad_kind ? inclusive[bad] : exclusive[bad], want_bad);
  CHECK_CUDA(cudaFree(din));
  CHECK_CUDA(cudaFree(dout));
  CHECK_CUDA(cudaFree(dincl));
  CHECK_CUDA(cudaFree(dtotals));
  delete[] in;
  delete[] exclusive;
  delete[] inclusive;
  return status;
}
