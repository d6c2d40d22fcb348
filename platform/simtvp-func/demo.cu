// demo.cu — the kernels built into `simtvp-func --demo` and bench/func: vector add and a
// shared-memory tiled SGEMM, the two workloads of the functional engine's speed targets.
//
// Regenerate demo.ptx (committed, so no CUDA toolkit is needed to build):
//   nvcc -ptx -arch=compute_75 -O3 -o demo.ptx demo.cu

#define TILE 16

// c[i] = a[i] + b[i]
extern "C" __global__ void vector_add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

// C = A * B for row-major n x n matrices, n a multiple of TILE; 16x16 thread blocks stage 16x16
// tiles of A and B in shared memory.
extern "C" __global__ void sgemm_tiled(const float *A, const float *B, float *C, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < n; t += TILE) {
    As[ty][tx] = A[row * n + t + tx];
    Bs[ty][tx] = B[(t + ty) * n + col];
    __syncthreads();
#pragma unroll
    for (int p = 0; p < TILE; ++p) acc += As[ty][p] * Bs[p][tx];
    __syncthreads();
  }
  C[row * n + col] = acc;
}
