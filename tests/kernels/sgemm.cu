// sgemm — C = alpha * A * B + beta * C for row-major float matrices (A: m x k, B: k x n), two ways:
//   sgemm_naive: one thread per element of C, dot product straight from global memory;
//   sgemm_tiled: 16x16 thread blocks stage 16x16 tiles of A and B in shared memory.
// Inputs are small integers and alpha/beta powers of two, so every partial sum is exact in float:
// both kernels must match the host's result bit for bit.
// Usage: sgemm [m=64] [n=48] [k=80]
#include "kernel_check.cuh"

#define TILE 16

__global__ void sgemm_naive(int m, int n, int k, float alpha, const float *A, const float *B,
                            float beta, float *C) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= n) return;
  float acc = 0.0f;
  for (int p = 0; p < k; ++p) acc += A[row * k + p] * B[p * n + col];
  C[row * n + col] = alpha * acc + beta * C[row * n + col];
}

__global__ void sgemm_tiled(int m, int n, int k, float alpha, const float *A, const float *B,
                            float beta, float *C) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < k; t += TILE) {
    As[ty][tx] = (row < m && t + tx < k) ? A[row * k + t + tx] : 0.0f;
    Bs[ty][tx] = (t + ty < k && col < n) ? B[(t + ty) * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int p = 0; p < TILE; ++p) acc += As[ty][p] * Bs[p][tx];
    __syncthreads();
  }
  if (row < m && col < n) C[row * n + col] = alpha * acc + beta * C[row * n + col];
}

int main(int argc, char **argv) {
  const int m = arg_int(argc, argv, 1, 64), n = arg_int(argc, argv, 2, 48),
            k = arg_int(argc, argv, 3, 80);
  const float alpha = 2.0f, beta = 0.5f;
  float *A = new float[m * k], *B = new float[k * n], *C0 = new float[m * n];
  float *want = new float[m * n], *got = new float[m * n];
  test_rng rng(5);
  for (int i = 0; i < m * k; ++i) A[i] = (float)((int)(rng.next() % 9) - 4);
  for (int i = 0; i < k * n; ++i) B[i] = (float)((int)(rng.next() % 9) - 4);
  for (int i = 0; i < m * n; ++i) C0[i] = (float)((int)(rng.next() % 9) - 4);
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c) {
      float acc = 0.0f;
      for (int p = 0; p < k; ++p) acc += A[r * k + p] * B[p * n + c];
      want[r * n + c] = alpha * acc + beta * C0[r * n + c];
    }

  float *dA, *dB, *dC[2];
  CHECK_CUDA(cudaMalloc(&dA, m * k * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dB, k * n * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(dA, A, m * k * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dB, B, k * n * sizeof(float), cudaMemcpyHostToDevice));
  for (int v = 0; v < 2; ++v) {
    CHECK_CUDA(cudaMalloc(&dC[v], m * n * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(dC[v], C0, m * n * sizeof(float), cudaMemcpyHostToDevice));
  }
  dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
  sgemm_naive<<<grid, block>>>(m, n, k, alpha, dA, dB, beta, dC[0]);
  CHECK_LAUNCH();
  sgemm_tiled<<<grid, block>>>(m, n, k, alpha, dA, dB, beta, dC[1]);
  CHECK_LAUNCH();

  static const char *names[2] = {"naive", "tiled"};
  int status = -1;
  for (int v = 0; v < 2 && status < 0; ++v) {
    CHECK_CUDA(cudaMemcpy(got, dC[v], m * n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < m * n && status < 0; ++i)
      if (got[i] != want[i])
        status = verdict("sgemm", false, "%s: C[%d][%d]=%g, want %g", names[v], i / n, i % n,
                         got[i], want[i]);
  }
  if (status < 0)
    status = verdict("sgemm", true, "m=%d n=%d k=%d naive and tiled exact, C[0][0]=%g", m, n, k,
                     want[0]);
  CHECK_CUDA(cudaFree(dA));
  CHECK_CUDA(cudaFree(dB));
  CHECK_CUDA(cudaFree(dC[0]));
  CHECK_CUDA(cudaFree(dC[1]));
  delete[] A;
  delete[] B;
  delete[] C0;
  delete[] want;
  delete[] got;
  return status;
}
