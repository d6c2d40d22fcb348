// zerocopy — kernels that read and write host memory in place (mapped, "zero-copy" memory):
// cudaHostAlloc(cudaHostAllocMapped) + cudaHostGetDevicePointer, and malloc'ed memory registered
// with cudaHostRegister(cudaHostRegisterMapped). The same sum runs once over device memory and
// once over mapped host memory, so the two kernels' times show what reaching system memory over
// the bus costs (docs/system-modes.md).
// Usage: zerocopy [n=4096] [threads_per_block=128]
#include <cstdlib>

#include "kernel_check.cuh"

__global__ void saxpy_device(const float *x, const float *y, float *out, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = a * x[i] + y[i];
}

// The same arithmetic; the pointers are host memory the GPU reaches over the bus.
__global__ void saxpy_zerocopy(const float *x, const float *y, float *out, float a, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = a * x[i] + y[i];
}

__global__ void count_up(int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += i;
}

int main(int argc, char **argv) {
  const int n = arg_int(argc, argv, 1, 4096);
  const int threads = arg_int(argc, argv, 2, 128);
  const int blocks = (n + threads - 1) / threads;
  const float a = 1.5f;
  const size_t bytes = n * sizeof(float);

  int can_map = 0;
  CHECK_CUDA(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, 0));
  if (!can_map) return verdict("zerocopy", false, "the device cannot map host memory");

  // Mapped pinned memory: the kernel's pointers are the host's (unified addressing).
  float *hx, *hy, *hout;
  CHECK_CUDA(cudaHostAlloc(&hx, bytes, cudaHostAllocMapped));
  CHECK_CUDA(cudaHostAlloc(&hy, bytes, cudaHostAllocMapped));
  CHECK_CUDA(cudaHostAlloc(&hout, bytes, cudaHostAllocMapped));
  test_rng rng(7);
  for (int i = 0; i < n; ++i) {
    hx[i] = rng.uniform(-10.0f, 10.0f);
    hy[i] = rng.uniform(-10.0f, 10.0f);
    hout[i] = 0.0f;
  }
  float *mx, *my, *mout;
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void **>(&mx), hx, 0));
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void **>(&my), hy, 0));
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void **>(&mout), hout, 0));

  // The same computation over device memory.
  float *dx, *dy, *dout;
  CHECK_CUDA(cudaMalloc(&dx, bytes));
  CHECK_CUDA(cudaMalloc(&dy, bytes));
  CHECK_CUDA(cudaMalloc(&dout, bytes));
  CHECK_CUDA(cudaMemcpy(dx, hx, bytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dy, hy, bytes, cudaMemcpyHostToDevice));
  saxpy_device<<<blocks, threads>>>(dx, dy, dout, a, n);
  CHECK_LAUNCH();
  float *from_device = new float[n];
  CHECK_CUDA(cudaMemcpy(from_device, dout, bytes, cudaMemcpyDeviceToHost));

  saxpy_zerocopy<<<blocks, threads>>>(mx, my, mout, a, n);
  CHECK_LAUNCH();  // the host reads the result in place: no copy

  // Host memory of the program's own, registered and mapped: page-aligned, as CUDA advises for
  // cudaHostRegister, so the kernel touches the same lines whatever else the heap holds (a plain
  // malloc'ed buffer's offset in its page follows every earlier allocation of the process, the
  // runtime's and the simulator's included; tests/cudart covers unaligned registration).
  const size_t reg_bytes = (n * sizeof(int) + 4095) / 4096 * 4096;
  int *reg = static_cast<int *>(std::aligned_alloc(4096, reg_bytes));
  for (int i = 0; i < n; ++i) reg[i] = 3;
  CHECK_CUDA(cudaHostRegister(reg, n * sizeof(int), cudaHostRegisterMapped));
  int *mreg;
  CHECK_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void **>(&mreg), reg, 0));
  count_up<<<blocks, threads>>>(mreg, n);
  CHECK_LAUNCH();

  int bad = -1;
  const char *what = "";
  for (int i = 0; i < n && bad < 0; ++i) {
    // The two kernels compile to the same arithmetic: the same bits, wherever the data lives.
    if (hout[i] != from_device[i] || hout[i] == 0.0f) bad = i, what = "zero-copy result differs from device memory's";
    else if (reg[i] != 3 + i) bad = i, what = "registered memory";
  }
  int status = bad < 0 ? verdict("zerocopy", true, "n=%d blocks=%d threads=%d", n, blocks, threads)
                       : verdict("zerocopy", false, "%s at %d (out %.9g, device %.9g, reg %d)", what, bad,
                                 hout[bad], from_device[bad], reg[bad]);
  CHECK_CUDA(cudaHostUnregister(reg));
  std::free(reg);
  CHECK_CUDA(cudaFreeHost(hx));
  CHECK_CUDA(cudaFreeHost(hy));
  CHECK_CUDA(cudaFreeHost(hout));
  CHECK_CUDA(cudaFree(dx));
  CHECK_CUDA(cudaFree(dy));
  CHECK_CUDA(cudaFree(dout));
  delete[] from_device;
  return status;
}
