// dynamic_smem — shared memory sized at launch time (extern __shared__):
//   reverse_chunks: one dynamic buffer carved into a float array and an int array (blockDim.x of
//                   each), beside a static __shared__ counter, reverses each block's chunk and
//                   counts its negative elements;
//   launched twice with different block sizes, i.e. different dynamic sizes for the same kernel.
// Usage: dynamic_smem [n=3000] [threads_a=128] [threads_b=96]
#include "kernel_check.cuh"

__global__ void reverse_chunks(const float *in, float *out, int *negatives, int n) {
  extern __shared__ float dynamic[];
  __shared__ int block_negatives;  // static shared memory beside the dynamic buffer
  float *values = dynamic;
  int *flags = reinterpret_cast<int *>(values + blockDim.x);
  const int t = threadIdx.x, base = blockIdx.x * blockDim.x;
  if (t == 0) block_negatives = 0;
  float v = base + t < n ? in[base + t] : 0.0f;
  values[t] = v;
  flags[t] = v < 0.0f;
  __syncthreads();
  if (flags[t]) atomicAdd(&block_negatives, 1);
  // The chunk may be partial at the end of the array: reverse only its valid part.
  const int valid = n - base < (int)blockDim.x ? n - base : (int)blockDim.x;
  if (t < valid) out[base + t] = values[valid - 1 - t];
  __syncthreads();
  if (t == 0) negatives[blockIdx.x] = block_negatives;
}

static int run(const float *in, int n, int threads, float *out, int *negatives) {
  const int blocks = (n + threads - 1) / threads;
  float *din, *dout;
  int *dneg;
  CHECK_CUDA(cudaMalloc(&din, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dout, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dneg, blocks * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(din, in, n * sizeof(float), cudaMemcpyHostToDevice));
  const size_t dynamic_bytes = threads * (sizeof(float) + sizeof(int));
  reverse_chunks<<<blocks, threads, dynamic_bytes>>>(din, dout, dneg, n);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(out, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(negatives, dneg, blocks * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaFree(din));
  CHECK_CUDA(cudaFree(dout));
  CHECK_CUDA(cudaFree(dneg));
  return blocks;
}

int main(int argc, char **argv) {
  const int n = arg_int(argc, argv, 1, 3000);
  const int sizes[2] = {arg_int(argc, argv, 2, 128), arg_int(argc, argv, 3, 96)};
  float *in = new float[n], *out = new float[n];
  int *negatives = new int[n];
  test_rng rng(11);
  for (int i = 0; i < n; ++i) in[i] = rng.uniform(-1.0f, 3.0f);

  int status = -1;
  for (int s = 0; s < 2 && status < 0; ++s) {
    const int threads = sizes[s];
    const int blocks = run(in, n, threads, out, negatives);
    for (int b = 0; b < blocks && status < 0; ++b) {
      const int base = b * threads, valid = n - base < threads ? n - base : threads;
      int want_neg = 0;
      for (int t = 0; t < valid; ++t) {
        want_neg += in[base + t] < 0.0f;
        if (out[base + t] != in[base + valid - 1 - t] && status < 0)
          status = verdict("dynamic_smem", false, "threads=%d out[%d]=%g, want %g", threads,
                           base + t, out[base + t], in[base + valid - 1 - t]);
      }
      if (status < 0 && negatives[b] != want_neg)
        status = verdict("dynamic_smem", false, "threads=%d block %d negatives=%d, want %d", threads,
                         b, negatives[b], want_neg);
    }
  }
  if (status < 0)
    status = verdict("dynamic_smem", true, "n=%d, block sizes %d and %d (%zu and %zu dynamic bytes)",
                     n, sizes[0], sizes[1], sizes[0] * (sizeof(float) + sizeof(int)),
                     sizes[1] * (sizeof(float) + sizeof(int)));
  delete[] in;
  delete[] out;
  delete[] negatives;
  return status;
}
