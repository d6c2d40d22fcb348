// const_globals — module-scope variables set and read from the host by symbol:
//   __constant__ float taps[]  (cudaMemcpyToSymbol), read by a 1D convolution (uniform constant
//                              reads across the warp, and a per-thread indexed one);
//   __constant__ int bias      (cudaMemcpyToSymbol with an offset-free scalar);
//   __device__ int calls       (a global counter: set with cudaMemcpyToSymbol, bumped by
//                              atomicAdd, read back with cudaMemcpyFromSymbol);
//   __device__ float scale_table[4] = {...} (initialised in the module image, read by the kernel
//                              and read back with cudaMemcpyFromSymbol; also written through the
//                              pointer from cudaGetSymbolAddress).
// Usage: const_globals [n=1000] [taps=7]  (taps odd, at most 31)
#include "kernel_check.cuh"

#define MAX_TAPS 31

__constant__ float taps[MAX_TAPS];
__constant__ int bias;
__device__ int calls;
__device__ float scale_table[4] = {1.0f, 0.5f, 0.25f, 2.0f};

__global__ void convolve(const float *in, float *out, int n, int ntaps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const int half = ntaps / 2;
  float acc = 0.0f;
  for (int t = 0; t < ntaps; ++t) {
    int j = i + t - half;
    if (j >= 0 && j < n) acc += taps[t] * in[j];
  }
  out[i] = acc * scale_table[i & 3] + (float)bias + taps[i % ntaps];  // indexed constant read
  atomicAdd(&calls, 1);
}

int main(int argc, char **argv) {
  const int n = arg_int(argc, argv, 1, 1000);
  const int ntaps = arg_int(argc, argv, 2, 7);
  if (ntaps % 2 == 0 || ntaps > MAX_TAPS) {
    std::fprintf(stderr, "const_globals: taps must be odd and at most %d\n", MAX_TAPS);
    return 2;
  }
  float h_taps[MAX_TAPS];
  for (int t = 0; t < ntaps; ++t) h_taps[t] = (float)(t + 1) / 8.0f;  // exact binary fractions
  const int h_bias = -3, h_calls = 100;
  float *in = new float[n], *out = new float[n];
  test_rng rng(12);
  for (int i = 0; i < n; ++i) in[i] = (float)((int)(rng.next() % 64) - 32);

  CHECK_CUDA(cudaMemcpyToSymbol(taps, h_taps, ntaps * sizeof(float)));
  CHECK_CUDA(cudaMemcpyToSymbol(bias, &h_bias, sizeof h_bias));
  CHECK_CUDA(cudaMemcpyToSymbol(calls, &h_calls, sizeof h_calls));
  float initial_table[4];
  CHECK_CUDA(cudaMemcpyFromSymbol(initial_table, scale_table, sizeof initial_table));

  float *din, *dout;
  CHECK_CUDA(cudaMalloc(&din, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dout, n * sizeof(float)));
  CHECK_CUDA(cudaMemcpy(din, in, n * sizeof(float), cudaMemcpyHostToDevice));
  convolve<<<(n + 127) / 128, 128>>>(din, dout, n, ntaps);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(out, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  int got_calls = 0;
  CHECK_CUDA(cudaMemcpyFromSymbol(&got_calls, calls, sizeof got_calls));

  // Second launch after changing the table through its device address.
  float *table_address = nullptr;
  CHECK_CUDA(cudaGetSymbolAddress((void **)&table_address, scale_table));
  const float new_table[4] = {4.0f, 4.0f, 4.0f, 4.0f};
  CHECK_CUDA(cudaMemcpy(table_address, new_table, sizeof new_table, cudaMemcpyHostToDevice));
  float *out2 = new float[n];
  convolve<<<(n + 127) / 128, 128>>>(din, dout, n, ntaps);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(out2, dout, n * sizeof(float), cudaMemcpyDeviceToHost));

  const float want_table[4] = {1.0f, 0.5f, 0.25f, 2.0f};
  int status = -1;
  for (int k = 0; k < 4 && status < 0; ++k)
    if (initial_table[k] != want_table[k])
      status = verdict("const_globals", false, "scale_table[%d] initialiser read back as %g, want %g",
                       k, initial_table[k], want_table[k]);
  if (status < 0 && got_calls != h_calls + n)
    status = verdict("const_globals", false, "calls=%d, want %d", got_calls, h_calls + n);
  for (int i = 0; i < n && status < 0; ++i) {
    float acc = 0.0f;
    for (int t = 0; t < ntaps; ++t) {
      int j = i + t - ntaps / 2;
      if (j >= 0 && j < n) acc += h_taps[t] * in[j];
    }
    float want = acc * want_table[i & 3] + (float)h_bias + h_taps[i % ntaps];
    float want2 = acc * 4.0f + (float)h_bias + h_taps[i % ntaps];
    if (out[i] != want)
      status = verdict("const_globals", false, "out[%d]=%g, want %g", i, out[i], want);
    else if (out2[i] != want2)
      status = verdict("const_globals", false, "after table update out[%d]=%g, want %g", i, out2[i],
                       want2);
  }
  if (status < 0)
    status = verdict("const_globals", true, "n=%d taps=%d bias=%d calls=%d", n, ntaps, h_bias, got_calls);
  CHECK_CUDA(cudaFree(din));
  CHECK_CUDA(cudaFree(dout));
  delete[] in;
  delete[] out;
  delete[] out2;
  return status;
}
