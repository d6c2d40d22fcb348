// wmma — tensor-core matrix multiply-accumulate through the warp matrix functions:
// D = A * B + C with A (M x K, f16, row-major), B (K x N, f16, column-major), C and D (M x N, f32,
// row-major), shape m16n16k16, one warp per 16x16 tile of D: load_matrix_sync of the f32
// accumulator, a loop of load_matrix_sync(a), load_matrix_sync(b), mma_sync, then store_matrix_sync.
// Inputs are small integers (exact in f16, every partial sum exact in f32): the result must match
// the host bit for bit.
// Usage: wmma [m=32] [n=32] [k=48]  (multiples of 16)
#include <cuda_fp16.h>
#include <mma.h>

#include "kernel_check.cuh"

using namespace nvcuda;

__global__ void wmma_gemm(const half *A, const half *B, const float *C, float *D, int M, int N, int K) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int tiles_n = N / 16;
  const int tm = warp / tiles_n, tn = warp % tiles_n;
  if (tm >= M / 16) return;  // the whole warp leaves together
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::load_matrix_sync(acc, C + tm * 16 * N + tn * 16, N, wmma::mem_row_major);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(a, A + tm * 16 * K + k, K);
    wmma::load_matrix_sync(b, B + tn * 16 * K + k, K);  // column n of B starts at n * K
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::store_matrix_sync(D + tm * 16 * N + tn * 16, acc, N, wmma::mem_row_major);
}

int main(int argc, char **argv) {
  const int M = arg_int(argc, argv, 1, 32), N = arg_int(argc, argv, 2, 32), K = arg_int(argc, argv, 3, 48);
  if (M % 16 || N % 16 || K % 16) {
    std::fprintf(stderr, "wmma: m, n and k must be multiples of 16\n");
    return 2;
  }
  half *A = new half[M * K], *B = new half[K * N];
  float *Af = new float[M * K], *Bf = new float[K * N];  // the same values as float (B column-major)
  float *C = new float[M * N], *D = new float[M * N];
  test_rng rng(9);
  for (int i = 0; i < M * K; ++i) A[i] = __float2half(Af[i] = (float)((int)(rng.next() % 7) - 3));
  for (int i = 0; i < K * N; ++i) B[i] = __float2half(Bf[i] = (float)((int)(rng.next() % 7) - 3));
  for (int i = 0; i < M * N; ++i) C[i] = (float)((int)(rng.next() % 100) - 50) * 0.25f;

  half *dA, *dB;
  float *dC, *dD;
  CHECK_CUDA(cudaMalloc(&dA, M * K * sizeof(half)));
  CHECK_CUDA(cudaMalloc(&dB, K * N * sizeof(half)));
  CHECK_CUDA(cudaMalloc(&dC, M * N * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dD, M * N * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dA, A, M * K * sizeof(half), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dB, B, K * N * sizeof(half), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dC, C, M * N * sizeof(float), cudaMemcpyHostToDevice));
  const int warps = (M / 16) * (N / 16), threads = 64;
  wmma_gemm<<<(warps * 32 + threads - 1) / threads, threads>>>(dA, dB, dC, dD, M, N, K);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(D, dD, M * N * sizeof(float), cudaMemcpyDeviceToHost));

  int status = -1;
  for (int r = 0; r < M && status < 0; ++r)
    for (int c = 0; c < N && status < 0; ++c) {
      float want = C[r * N + c];
      for (int p = 0; p < K; ++p) want += Af[r * K + p] * Bf[c * K + p];
      if (D[r * N + c] != want)
        status = verdict("wmma", false, "D[%d][%d]=%g, want %g", r, c, D[r * N + c], want);
    }
  if (status < 0)
    status = verdict("wmma", true, "m16n16k16 f16->f32, D %dx%d, k=%d, %d warps", M, N, K, warps);
  CHECK_CUDA(cudaFree(dA));
  CHECK_CUDA(cudaFree(dB));
  CHECK_CUDA(cudaFree(dC));
  CHECK_CUDA(cudaFree(dD));
  delete[] A;
  delete[] B;
  delete[] Af;
  delete[] Bf;
  delete[] C;
  delete[] D;
  return status;
}
