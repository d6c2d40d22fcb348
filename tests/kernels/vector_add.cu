// vector_add — c[i] = a[i] + b[i] over a grid-stride loop.
// Usage: vector_add [n=4096] [threads_per_block=128]
#include "kernel_check.cuh"

__global__ void vector_add(const float *a, const float *b, float *c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    c[i] = a[i] + b[i];
}

int main(int argc, char **argv) {
  const int n = arg_int(argc, argv, 1, 4096);
  const int threads = arg_int(argc, argv, 2, 128);
  // Fewer blocks than elements/threads so the grid-stride loop runs more than once.
  const int blocks = ((n + threads - 1) / threads + 1) / 2;

  float *a = new float[n], *b = new float[n], *c = new float[n];
  test_rng rng(1);
  for (int i = 0; i < n; ++i) {
    a[i] = rng.uniform(-100.0f, 100.0f);
    b[i] = rng.uniform(-100.0f, 100.0f);
  }
  float *da, *db, *dc;
  const size_t bytes = n * sizeof(float);
  CHECK_CUDA(cudaMalloc(&da, bytes));
  CHECK_CUDA(cudaMalloc(&db, bytes));
  CHECK_CUDA(cudaMalloc(&dc, bytes));
  CHECK_CUDA(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemset(dc, 0, bytes));

  vector_add<<<blocks, threads>>>(da, db, dc, n);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));

  int bad = -1;
  for (int i = 0; i < n && bad < 0; ++i)
    if (c[i] != a[i] + b[i]) bad = i;  // one IEEE add: bit-exact on any device
  int status = bad < 0 ? verdict("vector_add", true, "n=%d blocks=%d threads=%d", n, blocks, threads)
                       : verdict("vector_add", false, "c[%d]=%.9g, want %.9g", bad, c[bad],
                                 a[bad] + b[bad]);
  CHECK_CUDA(cudaFree(da));
  CHECK_CUDA(cudaFree(db));
  CHECK_CUDA(cudaFree(dc));
  delete[] a;
  delete[] b;
  delete[] c;
  return status;
}
