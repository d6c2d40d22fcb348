// warpgroup_mma — Hopper's warpgroup MMA (wgmma, compute capability 9.0a) the way CUTLASS's sm90
// GEMMs drive it, through inline PTX:
//   gemm_sw128:      C (64 x 64, f32) = A (64 x K, f16) x B (K x 64, f16): one warpgroup per CTA
//                    stages 64 x 64 tiles of A and B (both K-major) in shared memory in CUTLASS's
//                    128-byte-swizzled layout (Layout_K_SW128_Atom: 128-byte rows, the 16-byte
//                    chunks of row r XOR-ed with r % 8), describes them with matrix descriptors
//                    (SBO = 1024 bytes, layout 128B) and issues wgmma.mma_async.m64n64k16 four
//                    times per tile, advancing both descriptors by 32 bytes along K; fence,
//                    commit_group and wait_group order it; scale-d = 0 starts the accumulation;
//   gemm_interleave: the same product for a 64 x 32 C with bf16 inputs in the non-swizzled
//                    (interleaved) layout: 8 x 16-byte core matrices, LBO between the two core
//                    matrices along K, SBO between 8-row groups; A comes from registers (the mma
//                    A fragment of each warp's 16 rows);
//   reg_rebalance:   warp specialisation as CUTLASS's sm90 kernels do it: 3 warpgroups
//                    (__launch_bounds__(384, 1): 168 registers each at entry); the producer
//                    releases registers (setmaxnreg.dec 40) and stages the input in shared memory,
//                    the two consumers take them (setmaxnreg.inc 232: 128 x 128 released = 2 x
//                    128 x 64 taken) and compute out[t] = 3 s[t] + s[255 - t].
// Inputs are small integers, so every result is exact and checked bit for bit on the host.
// Built for compute capability 9.0a (runs on configs/SM90_H100.config):
// simtvp-arch: 90a
// Usage: warpgroup_mma [k_tiles=2]
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "kernel_check.cuh"

// 64-bit shared-memory matrix descriptor (PTX ISA "Matrix Descriptor Format")
__device__ uint64_t make_desc(const void *smem, uint32_t lbo, uint32_t sbo, uint32_t layout) {
  const uint32_t addr = (uint32_t)__cvta_generic_to_shared(smem);
  return (uint64_t)((addr >> 4) & 0x3fff) | (uint64_t)((lbo >> 4) & 0x3fff) << 16 |
         (uint64_t)((sbo >> 4) & 0x3fff) << 32 | (uint64_t)layout << 62;
}

// Byte offset of element (row, k) of a 64 x 64 half tile in the 128-byte-swizzled K-major layout:
// row r at 128 r, 16-byte chunk c of the row at chunk c ^ (r % 8) (Swizzle<3,4,3>).
__device__ uint32_t sw128(uint32_t row, uint32_t k) {
  const uint32_t byte = row * 128 + k * 2;
  return byte ^ (((byte >> 7) & 7) << 4);
}

#define D32(i) "+f"(d[i])

__global__ void gemm_sw128(const __half *A, const __half *B, float *C, int K) {
  __shared__ alignas(1024) uint8_t sa[64 * 128], sb[64 * 128];
  const int t = threadIdx.x;
  float d[32];
  for (int i = 0; i < 32; i++) d[i] = 0.0f;
  for (int kt = 0; kt < K / 64; kt++) {
    // stage the tiles: A row-major (64 x K), B given as B^T row-major (64 x K): both K-major
    for (int e = t; e < 64 * 64; e += blockDim.x) {
      const int r = e / 64, k = e % 64;
      *(__half *)(sa + sw128(r, k)) = A[r * K + kt * 64 + k];
      *(__half *)(sb + sw128(r, k)) = B[r * K + kt * 64 + k];
    }
    __syncthreads();
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    for (int ks = 0; ks < 4; ks++) {
      const uint64_t da = make_desc(sa + 32 * ks, 16, 1024, 1), db = make_desc(sb + 32 * ks, 16, 1024, 1);
      const int scale_d = kt > 0 || ks > 0;
      asm volatile(
          "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
          "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "
          "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
          "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
          "%32, %33, p, 1, 1, 0, 0;\n}\n"
          : D32(0), D32(1), D32(2), D32(3), D32(4), D32(5), D32(6), D32(7), D32(8), D32(9), D32(10), D32(11),
            D32(12), D32(13), D32(14), D32(15), D32(16), D32(17), D32(18), D32(19), D32(20), D32(21), D32(22),
            D32(23), D32(24), D32(25), D32(26), D32(27), D32(28), D32(29), D32(30), D32(31)
          : "l"(da), "l"(db), "r"(scale_d));
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    __syncthreads();  // the tiles are read before the next ones overwrite them
  }
  // the accumulator fragment: warp w rows 16 w + lane/4 (+8), columns 8 j + 2 (lane%4) (+1)
  const int w = t / 32, l = t % 32;
  for (int i = 0; i < 32; i++) {
    const int row = 16 * w + l / 4 + 8 * ((i >> 1) & 1), col = 8 * (i >> 2) + 2 * (l % 4) + (i & 1);
    C[row * 64 + col] = d[i];
  }
}

// Byte offset of element (row, k) of a rows x 16 tile in the interleaved K-major layout: core
// matrices of 8 rows x 16 bytes (row r at 16 r), the two along K `lbo` apart, 8-row groups `sbo` apart.
__device__ uint32_t inter(uint32_t row, uint32_t k, uint32_t lbo, uint32_t sbo) {
  return (row % 8) * 16 + (row / 8) * sbo + (k / 8) * lbo + (k % 8) * 2;
}

__global__ void gemm_interleave(const __nv_bfloat16 *A, const __nv_bfloat16 *B, float *C, int K) {
  __shared__ alignas(128) uint8_t sb[32 * 32];
  const int t = threadIdx.x, w = t / 32, l = t % 32;
  float d[16];
  for (int i = 0; i < 16; i++) d[i] = 1.0f;  // C starts at 1: scale-d = 1 adds to it
  for (int kt = 0; kt < K / 16; kt++) {
    // B^T (32 x K) row-major: 4 groups of 8 rows, SBO 256 bytes; the K halves LBO = 128 bytes
    for (int e = t; e < 32 * 16; e += blockDim.x) {
      const int r = e / 16, k = e % 16;
      *(__nv_bfloat16 *)(sb + inter(r, k, 128, 256)) = B[r * K + kt * 16 + k];
    }
    __syncthreads();
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    // A fragment (as mma.m16n8k16's): row g (+8), columns 2 (lane%4) (+1) (+8)
    uint32_t a[4];
    for (int i = 0; i < 4; i++) {
      const int row = 16 * w + l / 4 + 8 * (i & 1), col = kt * 16 + 2 * (l % 4) + 8 * (i >> 1);
      const __nv_bfloat16 lo = A[row * K + col], hi = A[row * K + col + 1];
      a[i] = (uint32_t)__bfloat16_as_ushort(lo) | (uint32_t)__bfloat16_as_ushort(hi) << 16;
    }
    const uint64_t db = make_desc(sb, 128, 256, 0);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile(
        "wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, "
        "{%16, %17, %18, %19}, %20, 1, 1, 1, 0;\n"
        : D32(0), D32(1), D32(2), D32(3), D32(4), D32(5), D32(6), D32(7), D32(8), D32(9), D32(10), D32(11),
          D32(12), D32(13), D32(14), D32(15)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    __syncthreads();
  }
  for (int i = 0; i < 16; i++) {
    const int row = 16 * w + l / 4 + 8 * ((i >> 1) & 1), col = 8 * (i >> 2) + 2 * (l % 4) + (i & 1);
    C[row * 32 + col] = d[i];
  }
}

__global__ void __launch_bounds__(384, 1) reg_rebalance(const int *in, int *out) {
  __shared__ int s[256];
  const int wg = threadIdx.x / 128;
  if (wg == 0) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n" ::: "memory");
    for (int e = threadIdx.x; e < 256; e += 128) s[e] = in[blockIdx.x * 256 + e];
  } else {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n" ::: "memory");
  }
  __syncthreads();
  if (wg > 0) {
    const int t = threadIdx.x - 128;
    out[blockIdx.x * 256 + t] = s[t] * 3 + s[255 - t];
  }
}

int main(int argc, char **argv) {
  const int k_tiles = arg_int(argc, argv, 1, 2), K = 64 * k_tiles;
  char what[200] = "";
  bool pass = true;
  // A (64 x K) and B^T (N x K), small integers
  int *ai = new int[64 * K], *bi = new int[64 * K];
  for (int i = 0; i < 64 * K; i++) ai[i] = (i * 7 + 3) % 9 - 4, bi[i] = (i * 5 + 1) % 7 - 3;
  __half *ha = new __half[64 * K], *hb = new __half[64 * K];
  __nv_bfloat16 *ba = new __nv_bfloat16[64 * K], *bb = new __nv_bfloat16[64 * K];
  for (int i = 0; i < 64 * K; i++) {
    ha[i] = __int2half_rn(ai[i]), hb[i] = __int2half_rn(bi[i]);
    ba[i] = __float2bfloat16((float)ai[i]), bb[i] = __float2bfloat16((float)bi[i]);
  }
  __half *da, *db;
  __nv_bfloat16 *dba, *dbb;
  float *dc, *hc = new float[64 * 64];
  CHECK_CUDA(cudaMalloc(&da, 64 * K * sizeof(__half)));
  CHECK_CUDA(cudaMalloc(&db, 64 * K * sizeof(__half)));
  CHECK_CUDA(cudaMalloc(&dba, 64 * K * sizeof(__nv_bfloat16)));
  CHECK_CUDA(cudaMalloc(&dbb, 64 * K * sizeof(__nv_bfloat16)));
  CHECK_CUDA(cudaMalloc(&dc, 64 * 64 * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(da, ha, 64 * K * sizeof(__half), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(db, hb, 64 * K * sizeof(__half), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dba, ba, 64 * K * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dbb, bb, 64 * K * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));

  gemm_sw128<<<1, 128>>>(da, db, dc, K);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(hc, dc, 64 * 64 * sizeof(float), cudaMemcpyDeviceToHost));
  for (int r = 0; r < 64 && pass; r++)
    for (int n = 0; n < 64 && pass; n++) {
      int want = 0;
      for (int k = 0; k < K; k++) want += ai[r * K + k] * bi[n * K + k];
      if (hc[r * 64 + n] != (float)want) {
        pass = false;
        std::snprintf(what, sizeof what, "gemm_sw128 C[%d][%d] = %g, want %d", r, n, hc[r * 64 + n], want);
      }
    }

  gemm_interleave<<<1, 128>>>(dba, dbb, dc, K);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(hc, dc, 64 * 32 * sizeof(float), cudaMemcpyDeviceToHost));
  for (int r = 0; r < 64 && pass; r++)
    for (int n = 0; n < 32 && pass; n++) {
      int want = 1;
      for (int k = 0; k < K; k++) want += ai[r * K + k] * bi[n * K + k];
      if (hc[r * 32 + n] != (float)want) {
        pass = false;
        std::snprintf(what, sizeof what, "gemm_interleave C[%d][%d] = %g, want %d", r, n, hc[r * 32 + n], want);
      }
    }

  // 2 CTAs of 3 warpgroups; the input is ai's first 512 values
  int *dri, *dro, ro[512];
  CHECK_CUDA(cudaMalloc(&dri, 512 * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dro, 512 * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(dri, ai, 512 * sizeof(int), cudaMemcpyHostToDevice));
  reg_rebalance<<<2, 384>>>(dri, dro);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(ro, dro, 512 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 512 && pass; i++) {
    const int b = i / 256, t = i % 256, want = 3 * ai[i] + ai[b * 256 + 255 - t];
    if (ro[i] != want) {
      pass = false;
      std::snprintf(what, sizeof what, "reg_rebalance out[%d] = %d, want %d", i, ro[i], want);
    }
  }
  if (pass)
    std::snprintf(what, sizeof what, "wgmma m64n64k16 f16 (128B swizzle) and m64n32k16 bf16 (interleaved, A in "
                  "registers) exact (K=%d); setmaxnreg warp specialisation", K);
  return verdict("warpgroup_mma", pass, "%s", what);
}
