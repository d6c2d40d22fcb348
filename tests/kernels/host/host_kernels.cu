// host_kernels.cu — device code only, for the hand-written host programs beside it (host_saxpy.cpp,
// host_symbols.cpp). regen.sh compiles it with `nvcc --fatbin` (the default compressed fatbin nvcc 13
// embeds in programs) and turns the fatbin into host_kernels_fatbin.h with bin2c; the host programs
// then do by hand what nvcc's generated host code would do with it.
//
// saxpy is extern "C" (registered under its plain name); scale_and_offset is a C++ function (its
// registered device name is the mangled one) and reads the __device__ variable `offset`, which the
// host program registers with __cudaRegisterVar and sets with cudaMemcpyToSymbol.

extern "C" __global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__device__ int offset;
__device__ unsigned launches;

__global__ void scale_and_offset(int *data, int n, int factor) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] = data[i] * factor + offset;
  if (i == 0) atomicAdd(&launches, 1u);
}
