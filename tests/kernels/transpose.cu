// transpose — out = in^T for a rows x cols float matrix through a 32x32 shared-memory tile, with
// 32x8 threads per block (each thread moves 4 elements):
//   transpose_tile<0>: tile[32][32] — column reads of the tile hit one shared-memory bank;
//   transpose_tile<1>: tile[32][33] — one padding column spreads them over all 32 banks.
// Plus a naive version (uncoalesced writes) as a reference point. All three must agree exactly.
// Usage: transpose [rows=96] [cols=64]  (any sizes; partial tiles are handled)
#include "kernel_check.cuh"

#define TILE 32
#define ROWS_PER_PASS 8

__global__ void transpose_naive(const float *in, float *out, int rows, int cols) {
  int x = blockIdx.x * TILE + threadIdx.x;
  for (int j = 0; j < TILE; j += ROWS_PER_PASS) {
    int y = blockIdx.y * TILE + threadIdx.y + j;
    if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
  }
}

template <int PAD>
__global__ void transpose_tile(const float *in, float *out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + PAD];
  int x = blockIdx.x * TILE + threadIdx.x;
  int y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS_PER_PASS)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
  __syncthreads();
  // Swap the block indices: the block writes the transposed tile, rows of `out` coalesced.
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS_PER_PASS)
    if (x < rows && y + j < cols) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main(int argc, char **argv) {
  const int rows = arg_int(argc, argv, 1, 96);
  const int cols = arg_int(argc, argv, 2, 64);
  const size_t count = (size_t)rows * cols, bytes = count * sizeof(float);
  float *in = new float[count], *out = new float[count];
  for (size_t i = 0; i < count; ++i) in[i] = (float)i * 0.5f;

  float *din, *dout[3];
  CHECK_CUDA(cudaMalloc(&din, bytes));
  for (int v = 0; v < 3; ++v) {
    CHECK_CUDA(cudaMalloc(&dout[v], bytes));
    CHECK_CUDA(cudaMemset(dout[v], 0xff, bytes));  // NaN everywhere: a missed element shows
  }
  CHECK_CUDA(cudaMemcpy(din, in, bytes, cudaMemcpyHostToDevice));
  dim3 block(TILE, ROWS_PER_PASS), grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  transpose_naive<<<grid, block>>>(din, dout[0], rows, cols);
  CHECK_LAUNCH();
  transpose_tile<0><<<grid, block>>>(din, dout[1], rows, cols);
  CHECK_LAUNCH();
  transpose_tile<1><<<grid, block>>>(din, dout[2], rows, cols);
  CHECK_LAUNCH();

  static const char *names[3] = {"naive", "tiled", "padded"};
  int status = -1;
  for (int v = 0; v < 3 && status < 0; ++v) {
    CHECK_CUDA(cudaMemcpy(out, dout[v], bytes, cudaMemcpyDeviceToHost));
    for (int r = 0; r < rows && status < 0; ++r)
      for (int c = 0; c < cols && status < 0; ++c)
        if (!(out[(size_t)c * rows + r] == in[(size_t)r * cols + c]))
          status = verdict("transpose", false, "%s: out[%d][%d]=%g, want %g", names[v], c, r,
                           out[(size_t)c * rows + r], in[(size_t)r * cols + c]);
  }
  if (status < 0)
    status = verdict("transpose", true, "%dx%d naive, tiled and padded agree", rows, cols);
  CHECK_CUDA(cudaFree(din));
  for (int v = 0; v < 3; ++v) CHECK_CUDA(cudaFree(dout[v]));
  delete[] in;
  delete[] out;
  return status;
}
