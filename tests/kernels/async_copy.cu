// async_copy — Ampere's asynchronous copies and split barriers (compute capability 8.0):
//   pipelined_scale:  a two-stage pipeline per block: tile i+1 is fetched with cp.async (16-byte
//                     __pipeline_memcpy_async) while tile i is used; __pipeline_commit /
//                     __pipeline_wait_prior(1) order the stages; the last, partial tile copies
//                     with a shortened source (src-size, the rest zero-filled);
//   barrier_copy:     a block-wide cuda::memcpy_async into shared memory completing on a
//                     cuda::barrier (mbarrier.init / cp.async.mbarrier.arrive / mbarrier.arrive /
//                     test_wait or try_wait), then arrive_and_wait phases reused in a loop;
//   warp_reduce:      __reduce_{add,min,max,and,or,xor}_sync (redux.sync) over full and partial
//                     member masks.
// Values are small integers (as float or int), so every result is exact and checked bit for bit.
// Built for compute capability 8.0 (runs on configs/SM80_A100.config):
// simtvp-arch: 80
// Usage: async_copy [n=5000] [blocks=4]
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda_pipeline.h>

#include "kernel_check.cuh"

constexpr int kTile = 256; // floats per tile: 64 threads x one float4 each

// out[i] = 2 * in[i] + in[tile start] for every i < n, tile by tile, block-strided.
__global__ void pipelined_scale(const float *in, float *out, int n) {
  __shared__ __align__(16) float stage[2][kTile];
  const int tiles = (n + kTile - 1) / kTile;
  const int t = threadIdx.x; // 64 threads
  auto fetch = [&](int tile, int buf) {
    const int first = tile * kTile + 4 * t;
    const int left = n - first; // floats of this thread's float4 that exist
    if (left > 0) {
      // a partial float4 at the end copies only what exists: src-size < 16 zero-fills the rest
      __pipeline_memcpy_async(&stage[buf][4 * t], &in[first], 16, left >= 4 ? 0 : 16 - 4 * left);
    }
    __pipeline_commit();
  };
  int buf = 0;
  if ((int)blockIdx.x < tiles) fetch(blockIdx.x, 0);
  for (int tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const int next = tile + gridDim.x;
    if (next < tiles) fetch(next, buf ^ 1);
    else __pipeline_commit(); // an empty group keeps the wait count uniform
    __pipeline_wait_prior(1); // the group of `tile` has landed
    __syncthreads();
    const float base = stage[buf][0];
    for (int k = 0; k < 4; ++k) {
      const int i = tile * kTile + 4 * t + k;
      if (i < n) out[i] = 2.0f * stage[buf][4 * t + k] + base;
    }
    __syncthreads(); // everyone is done with `buf` before it is refilled
    buf ^= 1;
  }
}

// Each block copies its 256-int slice into shared memory with one block-wide memcpy_async that
// completes on a barrier, then runs `rounds` arrive_and_wait phases in which every thread adds its
// right neighbour's value: out[b*256+t] = sum over rounds of the neighbour chain (host computes it).
__global__ void barrier_copy(const int *in, int *out, int rounds) {
  __shared__ __align__(16) int slice[256];
  __shared__ int acc[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  const int t = threadIdx.x; // 256 threads
  if (t == 0) init(&bar, blockDim.x);
  __syncthreads();
  cuda::memcpy_async(cooperative_groups::this_thread_block(), slice, in + blockIdx.x * 256, sizeof(int) * 256,
                     bar);
  bar.arrive_and_wait(); // the copy and every thread's arrival
  acc[t] = slice[t];
  bar.arrive_and_wait();
  for (int r = 0; r < rounds; ++r) {
    const int v = acc[t] + acc[(t + 1) % 256];
    bar.arrive_and_wait(); // everyone read the old values
    acc[t] = v;
    bar.arrive_and_wait(); // everyone wrote the new ones
  }
  out[blockIdx.x * 256 + t] = acc[t];
}

// Per warp: the six reductions over all lanes and over the even lanes (mask 0x55555555).
__global__ void warp_reduce(const unsigned *in, unsigned *out) {
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const unsigned v = in[threadIdx.x];
  unsigned *o = out + warp * 12;
  unsigned r[12];
  r[0] = __reduce_add_sync(0xffffffffu, v);
  r[1] = (unsigned)__reduce_min_sync(0xffffffffu, (int)v);
  r[2] = (unsigned)__reduce_max_sync(0xffffffffu, (int)v);
  r[3] = __reduce_and_sync(0xffffffffu, v);
  r[4] = __reduce_or_sync(0xffffffffu, v);
  r[5] = __reduce_xor_sync(0xffffffffu, v);
  if (lane % 2 == 0) {
    r[6] = __reduce_add_sync(0x55555555u, v);
    r[7] = __reduce_min_sync(0x55555555u, v);
    r[8] = __reduce_max_sync(0x55555555u, v);
    r[9] = __reduce_and_sync(0x55555555u, v);
    r[10] = __reduce_or_sync(0x55555555u, v);
    r[11] = __reduce_xor_sync(0x55555555u, v);
  }
  if (lane == 0)
    for (int k = 0; k < 12; ++k) o[k] = r[k];
}

int main(int argc, char **argv) {
  const int n = arg_int(argc, argv, 1, 5000);
  const int blocks = arg_int(argc, argv, 2, 4);
  char what[160] = "";
  bool pass = true;

  // pipelined_scale
  float *hin = new float[n], *hout = new float[n];
  test_rng rng(80);
  for (int i = 0; i < n; ++i) hin[i] = (float)(int)(rng.next() % 200) - 100.0f;
  float *din, *dout;
  CHECK_CUDA(cudaMalloc(&din, ((n + 3) / 4) * 16));
  CHECK_CUDA(cudaMalloc(&dout, n * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(din, hin, n * sizeof(float), cudaMemcpyHostToDevice));
  pipelined_scale<<<blocks, 64>>>(din, dout, n);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(hout, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n && pass; ++i) {
    const float want = 2.0f * hin[i] + hin[i / kTile * kTile];
    if (hout[i] != want) {
      pass = false;
      std::snprintf(what, sizeof what, "pipelined_scale out[%d] = %g, want %g", i, hout[i], want);
    }
  }

  // barrier_copy
  const int rounds = 3, m = blocks * 256;
  int *hi = new int[m], *ho = new int[m], *want = new int[m];
  for (int i = 0; i < m; ++i) hi[i] = (int)(rng.next() % 1000);
  for (int b = 0; b < blocks; ++b) {
    int cur[256], nxt[256];
    for (int t = 0; t < 256; ++t) cur[t] = hi[b * 256 + t];
    for (int r = 0; r < rounds; ++r) {
      for (int t = 0; t < 256; ++t) nxt[t] = cur[t] + cur[(t + 1) % 256];
      for (int t = 0; t < 256; ++t) cur[t] = nxt[t];
    }
    for (int t = 0; t < 256; ++t) want[b * 256 + t] = cur[t];
  }
  int *dii, *dio;
  CHECK_CUDA(cudaMalloc(&dii, m * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dio, m * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(dii, hi, m * sizeof(int), cudaMemcpyHostToDevice));
  barrier_copy<<<blocks, 256>>>(dii, dio, rounds);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(ho, dio, m * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < m && pass; ++i)
    if (ho[i] != want[i]) {
      pass = false;
      std::snprintf(what, sizeof what, "barrier_copy out[%d] = %d, want %d", i, ho[i], want[i]);
    }

  // warp_reduce: 2 warps
  unsigned hv[64], hr[24];
  for (int i = 0; i < 64; ++i) hv[i] = (rng.next() % 4096) | (i == 5 ? 0x80000000u : 0u);
  unsigned *dv, *dr;
  CHECK_CUDA(cudaMalloc(&dv, sizeof hv));
  CHECK_CUDA(cudaMalloc(&dr, sizeof hr));
  CHECK_CUDA(cudaMemcpy(dv, hv, sizeof hv, cudaMemcpyHostToDevice));
  warp_reduce<<<1, 64>>>(dv, dr);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(hr, dr, sizeof hr, cudaMemcpyDeviceToHost));
  for (int w = 0; w < 2 && pass; ++w) {
    // full mask, lanes 0-31: int arguments, so min/max are signed; even lanes 0, 2, …, 30:
    // unsigned arguments, unsigned min/max
    unsigned e[12], add = 0, a = ~0u, o = 0, x = 0;
    int smin = 0x7fffffff, smax = (int)0x80000000;
    for (int l = 0; l < 32; ++l) {
      const unsigned v = hv[w * 32 + l];
      add += v, a &= v, o |= v, x ^= v;
      smin = (int)v < smin ? (int)v : smin, smax = (int)v > smax ? (int)v : smax;
    }
    e[0] = add, e[1] = (unsigned)smin, e[2] = (unsigned)smax, e[3] = a, e[4] = o, e[5] = x;
    unsigned umin = ~0u, umax = 0;
    add = 0, a = ~0u, o = 0, x = 0;
    for (int l = 0; l < 32; l += 2) {
      const unsigned v = hv[w * 32 + l];
      add += v, a &= v, o |= v, x ^= v;
      umin = v < umin ? v : umin, umax = v > umax ? v : umax;
    }
    e[6] = add, e[7] = umin, e[8] = umax, e[9] = a, e[10] = o, e[11] = x;
    for (int k = 0; k < 12 && pass; ++k)
      if (hr[w * 12 + k] != e[k]) {
        pass = false;
        std::snprintf(what, sizeof what, "warp_reduce warp %d result %d = 0x%x, want 0x%x", w, k, hr[w * 12 + k],
                      e[k]);
      }
  }
  if (pass)
    std::snprintf(what, sizeof what, "n=%d blocks=%d pipelined, barrier (%d rounds) and redux exact", n, blocks,
                  rounds);
  return verdict("async_copy", pass, "%s", what);
}
