// mma_tensor — Ampere tensor-core instructions through inline PTX (compute capability 8.0), the way
// hand-tuned GEMMs (CUTLASS, FlashAttention) use them:
//   hgemm_mma:  C = A x B + C, f16 inputs, f32 accumulators: each warp owns a 16 x 8 tile, loads
//               A with ldmatrix.x4 and B with ldmatrix.x2 from shared memory and issues
//               mma.sync.m16n8k16 along k;
//   mma_types:  one mma per type with fragments built by the ISA's tables: bf16 m16n8k16,
//               tf32 m16n8k8, s8 x s8 m16n8k32 with .satfinite, f64 m8n8k4; and movmatrix.trans.
// Inputs are small integers, so every result is exact and checked bit for bit (the .satfinite
// case saturates some sums).
// Built for compute capability 8.0 (runs on configs/SM80_A100.config):
// simtvp-arch: 80
// Usage: mma_tensor [m=32] [n=32] [k=64]  (multiples of 16, 8, 16)
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernel_check.cuh"

__device__ unsigned smem_addr(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

// A: m x k row-major, B: k x n stored column-major (n x k row-major, "col"), C/D: m x n row-major.
// One warp per 16 x 8 tile of D; a block of 4 warps.
__global__ void hgemm_mma(const __half *A, const __half *B, float *D, int m, int n, int k) {
  __shared__ __align__(16) __half As[4][16 * 16];
  __shared__ __align__(16) __half Bs[4][8 * 16];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int tile = blockIdx.x * 4 + warp, tiles_n = n / 8;
  if (tile >= (m / 16) * tiles_n) return; // whole warps leave
  const int row0 = tile / tiles_n * 16, col0 = tile % tiles_n * 8;
  const int g = lane / 4, t = lane % 4;
  float acc[4];
  for (int i = 0; i < 4; ++i) acc[i] = D[(row0 + g + 8 * (i / 2)) * n + col0 + 2 * t + i % 2];
  for (int k0 = 0; k0 < k; k0 += 16) {
    for (int e = lane; e < 16 * 16; e += 32) As[warp][e] = A[(row0 + e / 16) * k + k0 + e % 16];
    for (int e = lane; e < 8 * 16; e += 32) Bs[warp][e] = B[(col0 + e / 16) * k + k0 + e % 16];
    __syncwarp();
    unsigned a[4], b[2];
    // ldmatrix.x4: lanes 0-15 give rows 0-15 at column 0, lanes 16-31 rows 0-15 at column 8
    const __half *arow = &As[warp][(lane % 16) * 16 + (lane / 16) * 8];
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                 : "r"(smem_addr(arow)));
    // ldmatrix.x2 on B^T (n x k): lanes 0-7 rows 0-7 at column 0, lanes 8-15 at column 8
    const __half *brow = &Bs[warp][(lane % 8) * 16 + ((lane / 8) % 2) * 8];
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];"
                 : "=r"(b[0]), "=r"(b[1])
                 : "r"(smem_addr(brow)));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                 "{%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    __syncwarp();
  }
  for (int i = 0; i < 4; ++i) D[(row0 + g + 8 * (i / 2)) * n + col0 + 2 * t + i % 2] = acc[i];
}

// Matrices for mma_types, all small integers: A[16][32], B[32][8] (k x n), C[16][8] as int.
struct Mats {
  int a[16 * 32], b[32 * 8], c[16 * 8];
};

__device__ unsigned pack_bf16(int lo, int hi) {
  __nv_bfloat162 v = __floats2bfloat162_rn((float)lo, (float)hi);
  return *reinterpret_cast<unsigned *>(&v);
}
__device__ unsigned pack_s8(int e0, int e1, int e2, int e3) {
  return (unsigned)(e0 & 0xff) | (unsigned)(e1 & 0xff) << 8 | (unsigned)(e2 & 0xff) << 16 | (unsigned)(e3 & 0xff) << 24;
}

// out per lane: [0..3] bf16 D, [4..7] tf32 D, [8..11] s8 D, [12..13] f64 D (as 2 doubles = 4
// words), [16] movmatrix result; 20 words per lane.
__global__ void mma_types(const Mats *mm, unsigned *out, int c_base) {
  const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  const int *A = mm->a, *B = mm->b, *C = mm->c;
  unsigned *o = out + lane * 20;
  { // bf16 m16n8k16: a_i (g + 8 ((i >> 1) & 1), 2t + (i & 1) + 8 (i >> 2)), b_i (2t + (i & 1) + 8 (i >> 1), g)
    unsigned a[4], b[2];
    float d[4];
    for (int r = 0; r < 4; ++r) {
      const int i = 2 * r, row = g + 8 * ((i >> 1) & 1), col = 2 * t + 8 * (i >> 2);
      a[r] = pack_bf16(A[row * 32 + col], A[row * 32 + col + 1]);
    }
    for (int r = 0; r < 2; ++r) {
      const int row = 2 * t + 8 * r;
      b[r] = pack_bf16(B[row * 8 + g], B[(row + 1) * 8 + g]);
    }
    for (int i = 0; i < 4; ++i) d[i] = (float)C[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2];
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                 "{%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    for (int i = 0; i < 4; ++i) o[i] = __float_as_uint(d[i]);
  }
  { // tf32 m16n8k8: a0 (g, t) a1 (g + 8, t) a2 (g, t + 4) a3 (g + 8, t + 4); b0 (t, g) b1 (t + 4, g)
    unsigned a[4], b[2];
    float d[4];
    for (int i = 0; i < 4; ++i) a[i] = __float_as_uint((float)A[(g + 8 * (i % 2)) * 32 + t + 4 * (i / 2)]);
    for (int i = 0; i < 2; ++i) b[i] = __float_as_uint((float)B[(t + 4 * i) * 8 + g]);
    for (int i = 0; i < 4; ++i) d[i] = (float)C[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2];
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                 "{%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    for (int i = 0; i < 4; ++i) o[4 + i] = __float_as_uint(d[i]);
  }
  { // s8 m16n8k32 .satfinite: a_i (g + 8 ((i >> 2) & 1), 4t + (i & 3) + 16 (i >> 3)), b_i (4t + (i & 3) + 16 (i >> 2), g)
    unsigned a[4], b[2];
    int d[4];
    for (int r = 0; r < 4; ++r) {
      const int row = g + 8 * (r & 1), col = 4 * t + 16 * (r >> 1);
      const int *p = &A[row * 32 + col];
      a[r] = pack_s8(p[0], p[1], p[2], p[3]);
    }
    for (int r = 0; r < 2; ++r) {
      const int row = 4 * t + 16 * r;
      b[r] = pack_s8(B[row * 8 + g], B[(row + 1) * 8 + g], B[(row + 2) * 8 + g], B[(row + 3) * 8 + g]);
    }
    for (int i = 0; i < 4; ++i) d[i] = c_base + C[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2];
    asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
                 "{%8, %9}, {%0, %1, %2, %3};"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    for (int i = 0; i < 4; ++i) o[8 + i] = (unsigned)d[i];
  }
  { // f64 m8n8k4: a (g, t), b (t, g), c_i (g, 2t + i)
    double a = A[g * 32 + t], b = B[t * 8 + g], d[2];
    for (int i = 0; i < 2; ++i) d[i] = C[g * 8 + 2 * t + i];
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
                 : "+d"(d[0]), "+d"(d[1])
                 : "d"(a), "d"(b));
    for (int i = 0; i < 2; ++i) {
      const unsigned long long bits = __double_as_longlong(d[i]);
      o[12 + 2 * i] = (unsigned)bits;
      o[13 + 2 * i] = (unsigned)(bits >> 32);
    }
  }
  { // movmatrix.trans of the 8x8 matrix M[r][c] = 10 r + c held as lane l: (l / 4, 2 (l % 4) + {0,1})
    const unsigned in = (unsigned)(10 * g + 2 * t) | (unsigned)(10 * g + 2 * t + 1) << 16;
    unsigned res;
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(res) : "r"(in));
    o[16] = res;
  }
}

int main(int argc, char **argv) {
  const int m = arg_int(argc, argv, 1, 32), n = arg_int(argc, argv, 2, 32), k = arg_int(argc, argv, 3, 64);
  if (m % 16 || n % 8 || k % 16) {
    std::fprintf(stderr, "mma_tensor: m, n, k must be multiples of 16, 8, 16\n");
    return 2;
  }
  char what[200] = "";
  bool pass = true;
  test_rng rng(86);

  // hgemm_mma
  __half *hA = new __half[m * k], *hB = new __half[n * k];
  float *fA = new float[m * k], *fB = new float[n * k], *hD = new float[m * n], *want = new float[m * n];
  for (int i = 0; i < m * k; ++i) fA[i] = (float)((int)(rng.next() % 9) - 4), hA[i] = __float2half(fA[i]);
  for (int i = 0; i < n * k; ++i) fB[i] = (float)((int)(rng.next() % 9) - 4), hB[i] = __float2half(fB[i]);
  for (int i = 0; i < m * n; ++i) hD[i] = (float)((int)(rng.next() % 21) - 10);
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c) {
      float s = hD[r * n + c];
      for (int p = 0; p < k; ++p) s += fA[r * k + p] * fB[c * k + p];
      want[r * n + c] = s;
    }
  __half *dA, *dB;
  float *dD;
  CHECK_CUDA(cudaMalloc(&dA, m * k * sizeof(__half)));
  CHECK_CUDA(cudaMalloc(&dB, n * k * sizeof(__half)));
  CHECK_CUDA(cudaMalloc(&dD, m * n * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dA, hA, m * k * sizeof(__half), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dB, hB, n * k * sizeof(__half), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dD, hD, m * n * sizeof(float), cudaMemcpyHostToDevice));
  const int tiles = (m / 16) * (n / 8);
  hgemm_mma<<<(tiles + 3) / 4, 128>>>(dA, dB, dD, m, n, k);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(hD, dD, m * n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < m * n && pass; ++i)
    if (hD[i] != want[i]) {
      pass = false;
      std::snprintf(what, sizeof what, "hgemm_mma D[%d][%d] = %g, want %g", i / n, i % n, hD[i], want[i]);
    }

  // mma_types
  Mats hm;
  for (int i = 0; i < 16 * 32; ++i) hm.a[i] = (int)(rng.next() % 201) - 100;
  for (int i = 0; i < 32 * 8; ++i) hm.b[i] = (int)(rng.next() % 201) - 100;
  for (int i = 0; i < 16 * 8; ++i) hm.c[i] = (int)(rng.next() % 101) - 50;
  const int c_base = 2147483647 - 150000; // s8 sums reach about +-320000: some saturate
  Mats *dm;
  unsigned *dout, hout[32 * 20];
  CHECK_CUDA(cudaMalloc(&dm, sizeof hm));
  CHECK_CUDA(cudaMalloc(&dout, sizeof hout));
  CHECK_CUDA(cudaMemcpy(dm, &hm, sizeof hm, cudaMemcpyHostToDevice));
  mma_types<<<1, 32>>>(dm, dout, c_base);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost));
  auto dot = [&](int r, int c, int K) {
    long long s = 0;
    for (int p = 0; p < K; ++p) s += (long long)hm.a[r * 32 + p] * hm.b[p * 8 + c];
    return s;
  };
  for (int l = 0; l < 32 && pass; ++l) {
    const unsigned *o = &hout[l * 20];
    const int g = l / 4, t = l % 4;
    for (int i = 0; i < 4 && pass; ++i) {
      const int r = g + 8 * (i / 2), c = 2 * t + i % 2;
      float bf, tf;
      std::memcpy(&bf, &o[i], 4);
      std::memcpy(&tf, &o[4 + i], 4);
      const long long s8 = (long long)c_base + hm.c[r * 8 + c] + dot(r, c, 32);
      const int s8_sat = s8 > 2147483647LL ? 2147483647 : s8 < -2147483648LL ? (int)-2147483648LL : (int)s8;
      if (bf != (float)(hm.c[r * 8 + c] + dot(r, c, 16)) || tf != (float)(hm.c[r * 8 + c] + dot(r, c, 8)) ||
          (int)o[8 + i] != s8_sat) {
        pass = false;
        std::snprintf(what, sizeof what, "mma_types lane %d d%d: bf16 %g tf32 %g s8 %d, want %lld %lld %d", l, i, bf, tf,
                      (int)o[8 + i], (long long)hm.c[r * 8 + c] + dot(r, c, 16), (long long)hm.c[r * 8 + c] + dot(r, c, 8),
                      s8_sat);
      }
    }
    for (int i = 0; i < 2 && pass; ++i) {
      unsigned long long bits = (unsigned long long)o[12 + 2 * i] | (unsigned long long)o[13 + 2 * i] << 32;
      double d;
      std::memcpy(&d, &bits, 8);
      if (d != (double)(hm.c[g * 8 + 2 * t + i] + dot(g, 2 * t + i, 4))) {
        pass = false;
        std::snprintf(what, sizeof what, "mma_types f64 lane %d d%d = %g", l, i, d);
      }
    }
    // transposed: lane l holds (l / 4, 2 (l % 4) + h) of M^T = M[2 (l % 4) + h][l / 4]
    const unsigned mv = (unsigned)(10 * (2 * t) + g) | (unsigned)(10 * (2 * t + 1) + g) << 16;
    if (pass && o[16] != mv) {
      pass = false;
      std::snprintf(what, sizeof what, "movmatrix lane %d = 0x%08x, want 0x%08x", l, o[16], mv);
    }
  }
  if (pass)
    std::snprintf(what, sizeof what, "m=%d n=%d k=%d ldmatrix+mma f16 GEMM, bf16/tf32/s8 satfinite/f64 mma, movmatrix exact",
                  m, n, k);
  return verdict("mma_tensor", pass, "%s", what);
}
