// hopper — Hopper's thread block clusters and Tensor Memory Accelerator (compute capability 9.0):
//   cluster_exchange:  __cluster_dims__(2,1,1): each CTA writes its shared array, cluster.sync(),
//                      reads its partner's through cluster.map_shared_rank (distributed shared
//                      memory), with the cluster's rank, size and index;
//   cluster_histogram: launched with cudaLaunchKernelEx and a cluster-dimension attribute (the
//                      CUDA Programming Guide's distributed-shared-memory histogram): the bins are
//                      spread over the cluster's CTAs, every thread adds to the owning CTA's bins
//                      with atomicAdd through map_shared_rank, then each CTA merges its part;
//   bulk_scale:        cp.async.bulk global -> shared completing on an mbarrier (expect_tx),
//                      then shared -> global in a bulk group; elect.sync picks the issuing thread;
//   tma_tile:          a 2-D tile of a tensor through a CUtensorMap (cuTensorMapEncodeTiled, found
//                      with dlopen as libraries do) and cp.async.bulk.tensor, out-of-bounds
//                      elements zero-filled; then stored back with the shared -> global form;
//   stmatrix_transpose: stmatrix.trans writes a fragment transposed.
// Every result is an exact integer and checked on the host.
// Built for compute capability 9.0 (runs on configs/SM90_H100.config):
// simtvp-arch: 90
// Usage: hopper [blocks=8] [n=4096]
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda/barrier>
#include <dlfcn.h>

#include "kernel_check.cuh"

namespace cg = cooperative_groups;
namespace cde = cuda::device::experimental;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

// out[b * 64 + t] = partner's s[t] + 1000 * cluster size + 10000 * rank + 100000 * cluster index
__global__ void __cluster_dims__(2, 1, 1) cluster_exchange(int *out) {
  __shared__ int s[64];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned rank = cluster.block_rank(), t = threadIdx.x;
  s[t] = (int)(rank * 100 + t);
  cluster.sync();
  const int *other = cluster.map_shared_rank(s, rank ^ 1);
  out[blockIdx.x * 64 + t] = other[t] + 1000 * (int)cluster.num_blocks() + 10000 * (int)rank +
                             100000 * (int)(blockIdx.x / cluster.dim_blocks().x);
  cluster.sync(); // the partner is done reading before this CTA's shared memory goes away
}

// nbins bins spread over the cluster's CTAs (bins_per_cta each, dynamic shared memory)
__global__ void cluster_histogram(int *bins, int nbins, const int *in, int n) {
  extern __shared__ int smem[];
  cg::cluster_group cluster = cg::this_cluster();
  const int per = nbins / (int)cluster.num_blocks();
  for (int i = threadIdx.x; i < per; i += blockDim.x) smem[i] = 0;
  cluster.sync();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const int v = in[i] % nbins, owner = v / per;
    int *dst = cluster.map_shared_rank(smem, owner);
    atomicAdd(dst + v % per, 1);
  }
  cluster.sync();
  int *lbins = bins + cluster.block_rank() * per;
  for (int i = threadIdx.x; i < per; i += blockDim.x) atomicAdd(&lbins[i], smem[i]);
}

// out = 2 * in (256 ints per block); an elected lane of warp 0 issues both bulk copies
__global__ void bulk_scale(const int *in, int *out, int *elected) {
  __shared__ alignas(128) int buf[256];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
  unsigned is_elected = 0;
  if (threadIdx.x < 32)
    asm volatile("{ .reg .pred p; elect.sync _|p, 0xffffffff; selp.u32 %0, 1, 0, p; }" : "=r"(is_elected));
  block_barrier::arrival_token token;
  if (is_elected) {
    elected[blockIdx.x] = threadIdx.x;
    cde::cp_async_bulk_global_to_shared(buf, in + blockIdx.x * 256, sizeof buf, bar);
    token = cuda::device::barrier_arrive_tx(bar, 1, sizeof buf);
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  buf[threadIdx.x] *= 2;
  cde::fence_proxy_async_shared_cta();
  __syncthreads();
  if (is_elected) {
    cde::cp_async_bulk_shared_to_global(out + blockIdx.x * 256, buf, sizeof buf);
    cde::cp_async_bulk_commit_group();
    cde::cp_async_bulk_wait_group_read<0>();
  }
}

// a 16 x 16 tile of a w x h int tensor at (16 bx + ox, 16 by + oy) -> tiles[block] (out-of-bounds
// elements zero), and the tile + 1 stored back into `back` at (16 bx, 16 by)
__global__ void tma_tile(const __grid_constant__ CUtensorMap src, const __grid_constant__ CUtensorMap dst, int *tiles,
                         int ox, int oy) {
  __shared__ alignas(128) int tile[16][16];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
  block_barrier::arrival_token token;
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_global_to_shared(&tile, &src, 16 * blockIdx.x + ox, 16 * blockIdx.y + oy, bar);
    token = cuda::device::barrier_arrive_tx(bar, 1, sizeof tile);
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  const int b = blockIdx.y * gridDim.x + blockIdx.x, t = threadIdx.x;
  tiles[b * 256 + t] = tile[t / 16][t % 16];
  tile[t / 16][t % 16] += 1;
  cde::fence_proxy_async_shared_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_shared_to_global(&dst, 16 * blockIdx.x, 16 * blockIdx.y, &tile);
    cde::cp_async_bulk_commit_group();
    cde::cp_async_bulk_wait_group_read<0>();
  }
}

// one warp: stmatrix.x1.trans of the fragment (lane l holds M[l / 4][2 (l % 4) + {0,1}], M[r][c] =
// 10 r + c) writes M transposed into shared memory, read back row by row
__global__ void stmatrix_transpose(unsigned short *out) {
  __shared__ alignas(16) unsigned short m[8][8];
  const unsigned l = threadIdx.x, r = l / 4, c = 2 * (l % 4);
  const unsigned v = (10 * r + c) | (10 * r + c + 1) << 16;
  const unsigned row = (unsigned)__cvta_generic_to_shared(&m[l % 8][0]);
  asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" ::"r"(row), "r"(v));
  __syncwarp();
  for (int i = l; i < 64; i += 32) out[i] = m[i / 8][i % 8];
}

using encode_fn = CUresult (*)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                               const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                               CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

int main(int argc, char **argv) {
  const int blocks = arg_int(argc, argv, 1, 8) & ~1, n = arg_int(argc, argv, 2, 4096);
  char what[200] = "";
  bool pass = true;
  test_rng rng(90);

  // cluster_exchange
  int *dout, *hout = new int[blocks * 64];
  CHECK_CUDA(cudaMalloc(&dout, blocks * 64 * sizeof(int)));
  cluster_exchange<<<blocks, 64>>>(dout);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(hout, dout, blocks * 64 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < blocks && pass; ++b)
    for (int t = 0; t < 64 && pass; ++t) {
      const int rank = b % 2, want = (rank ^ 1) * 100 + t + 2000 + 10000 * rank + 100000 * (b / 2);
      if (hout[b * 64 + t] != want) {
        pass = false;
        std::snprintf(what, sizeof what, "cluster_exchange out[%d][%d] = %d, want %d", b, t, hout[b * 64 + t], want);
      }
    }

  // cluster_histogram: clusters of 4 from the launch attribute, 128 bins (32 per CTA)
  const int nbins = 128, cluster = 4;
  int *hin = new int[n], hbins[nbins] = {0}, want_bins[nbins] = {0};
  for (int i = 0; i < n; ++i) hin[i] = (int)(rng.next() % 100000), want_bins[hin[i] % nbins]++;
  int *din, *dbins;
  CHECK_CUDA(cudaMalloc(&din, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dbins, sizeof hbins));
  CHECK_CUDA(cudaMemcpy(din, hin, n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(dbins, 0, sizeof hbins));
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(8);
  config.blockDim = dim3(128);
  config.dynamicSmemBytes = (nbins / cluster) * sizeof(int);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = cluster;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = 1;
  CHECK_CUDA(cudaLaunchKernelEx(&config, cluster_histogram, dbins, nbins, (const int *)din, n));
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(hbins, dbins, sizeof hbins, cudaMemcpyDeviceToHost));
  // two clusters each count every element their threads visit: the grid-stride loop covers each
  // element once in all, and the merge adds each cluster's counts
  for (int i = 0; i < nbins && pass; ++i)
    if (hbins[i] != want_bins[i]) {
      pass = false;
      std::snprintf(what, sizeof what, "cluster_histogram bin %d = %d, want %d", i, hbins[i], want_bins[i]);
    }

  // bulk_scale
  const int bb = 4;
  int *hb = new int[bb * 256], *hbo = new int[bb * 256], hel[bb];
  for (int i = 0; i < bb * 256; ++i) hb[i] = (int)(rng.next() % 1000) - 500;
  int *dbi, *dbo, *del;
  CHECK_CUDA(cudaMalloc(&dbi, bb * 256 * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dbo, bb * 256 * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&del, sizeof hel));
  CHECK_CUDA(cudaMemcpy(dbi, hb, bb * 256 * sizeof(int), cudaMemcpyHostToDevice));
  bulk_scale<<<bb, 256>>>(dbi, dbo, del);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(hbo, dbo, bb * 256 * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(hel, del, sizeof hel, cudaMemcpyDeviceToHost));
  for (int i = 0; i < bb * 256 && pass; ++i)
    if (hbo[i] != 2 * hb[i]) {
      pass = false;
      std::snprintf(what, sizeof what, "bulk_scale out[%d] = %d, want %d", i, hbo[i], 2 * hb[i]);
    }
  for (int b = 0; b < bb && pass; ++b)
    if (hel[b] != 0) {
      pass = false;
      std::snprintf(what, sizeof what, "elect.sync elected lane %d, want 0 (the lowest lane)", hel[b]);
    }

  // tma_tile: a 40 x 24 tensor of ints (rows padded to 48), 3 x 2 tiles of 16 x 16 read at (+4, +3)
  const int w = 40, h = 24, pitch = 48, gx = 3, gy = 2, ox = 4, oy = 3;
  int *ht = new int[pitch * h], *hback = new int[pitch * h], *htiles = new int[gx * gy * 256];
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < pitch; ++x) ht[y * pitch + x] = x < w ? 1000 * y + x : -1;
  int *dt, *dback, *dtiles;
  CHECK_CUDA(cudaMalloc(&dt, pitch * h * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dback, pitch * h * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dtiles, gx * gy * 256 * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(dt, ht, pitch * h * sizeof(int), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(dback, 0, pitch * h * sizeof(int)));
  void *libcuda = dlopen("libcuda.so.1", RTLD_NOW);
  encode_fn encode = libcuda ? (encode_fn)dlsym(libcuda, "cuTensorMapEncodeTiled") : nullptr;
  if (!encode) {
    std::fprintf(stderr, "hopper: cuTensorMapEncodeTiled not found in libcuda.so.1\n");
    return 2;
  }
  alignas(64) CUtensorMap src_map, dst_map;
  cuuint64_t dims[2] = {(cuuint64_t)w, (cuuint64_t)h}, strides[1] = {pitch * sizeof(int)};
  cuuint32_t box[2] = {16, 16}, estr[2] = {1, 1};
  if (encode(&src_map, CU_TENSOR_MAP_DATA_TYPE_INT32, 2, dt, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS ||
      encode(&dst_map, CU_TENSOR_MAP_DATA_TYPE_INT32, 2, dback, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
    std::fprintf(stderr, "hopper: cuTensorMapEncodeTiled failed\n");
    return 2;
  }
  tma_tile<<<dim3(gx, gy), 256>>>(src_map, dst_map, dtiles, ox, oy);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(htiles, dtiles, gx * gy * 256 * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(hback, dback, pitch * h * sizeof(int), cudaMemcpyDeviceToHost));
  for (int by = 0; by < gy && pass; ++by)
    for (int bx = 0; bx < gx && pass; ++bx)
      for (int t = 0; t < 256 && pass; ++t) {
        const int x = 16 * bx + ox + t % 16, y = 16 * by + oy + t / 16;
        const int want = x < w && y < h ? 1000 * y + x : 0, got = htiles[(by * gx + bx) * 256 + t];
        const int sx = 16 * bx + t % 16, sy = 16 * by + t / 16; // where the tile went back
        const int back = sx < w && sy < h ? hback[sy * pitch + sx] : want + 1;
        if (got != want || back != want + 1) {
          pass = false;
          std::snprintf(what, sizeof what, "tma_tile (%d,%d) element %d = %d (stored back %d), want %d", bx, by, t, got,
                        back, want);
        }
      }

  // stmatrix_transpose
  unsigned short *dm, hm[64];
  CHECK_CUDA(cudaMalloc(&dm, sizeof hm));
  stmatrix_transpose<<<1, 32>>>(dm);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(hm, dm, sizeof hm, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64 && pass; ++i)
    if (hm[i] != 10 * (i % 8) + i / 8) {
      pass = false;
      std::snprintf(what, sizeof what, "stmatrix.trans m[%d][%d] = %d, want %d", i / 8, i % 8, hm[i], 10 * (i % 8) + i / 8);
    }

  if (pass)
    std::snprintf(what, sizeof what, "clusters (DSMEM, cluster.sync, launch attribute), bulk + TMA copies, elect, stmatrix "
                  "exact (blocks=%d n=%d)", blocks, n);
  return verdict("hopper", pass, "%s", what);
}
