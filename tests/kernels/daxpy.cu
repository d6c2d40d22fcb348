// daxpy — double precision: y = a * x + y (one fma per element), then z = sin(x) * exp(-x^2) + sqrt(|y|)
// with the device's double-precision math library (CUDA documents sin and exp as within 2 ulp and
// 1 ulp, sqrt as correctly rounded). The DAXPY part is compared bit for bit against a host fma; the
// transcendental part within 1e-14 relative (or 1e-15 absolute where the sum cancels).
// Usage: daxpy [n=2048]
#include <cmath>

#include "kernel_check.cuh"

__global__ void daxpy(int n, double a, const double *x, double *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fma(a, x[i], y[i]);
}

__global__ void transcendental(int n, const double *x, const double *y, double *z) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = sin(x[i]) * exp(-x[i] * x[i]) + sqrt(fabs(y[i]));
}

int main(int argc, char **argv) {
  const int n = arg_int(argc, argv, 1, 2048);
  const double a = 1.0 / 3.0;
  double *x = new double[n], *y = new double[n], *y0 = new double[n], *z = new double[n];
  test_rng rng(10);
  for (int i = 0; i < n; ++i) {
    x[i] = -3.0 + 6.0 * (rng.next() / 4294967296.0) + 1e-9 * i;
    y0[i] = 100.0 * (rng.next() / 4294967296.0) - 50.0;
  }
  double *dx, *dy, *dz;
  const size_t bytes = n * sizeof(double);
  CHECK_CUDA(cudaMalloc(&dx, bytes));
  CHECK_CUDA(cudaMalloc(&dy, bytes));
  CHECK_CUDA(cudaMalloc(&dz, bytes));
  CHECK_CUDA(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dy, y0, bytes, cudaMemcpyHostToDevice));
  daxpy<<<(n + 127) / 128, 128>>>(n, a, dx, dy);
  CHECK_LAUNCH();
  transcendental<<<(n + 127) / 128, 128>>>(n, dx, dy, dz);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(z, dz, bytes, cudaMemcpyDeviceToHost));

  int status = -1;
  double worst = 0.0;
  for (int i = 0; i < n && status < 0; ++i) {
    double want_y = std::fma(a, x[i], y0[i]);
    double want_z = std::sin(x[i]) * std::exp(-x[i] * x[i]) + std::sqrt(std::fabs(want_y));
    double rel = std::fabs(z[i] - want_z) / std::fmax(std::fabs(want_z), 1e-300);
    worst = std::fmax(worst, rel);
    if (y[i] != want_y)
      status = verdict("daxpy", false, "y[%d]=%.17g, want %.17g", i, y[i], want_y);
    else if (!close_to(z[i], want_z, 1e-14, 1e-15))
      status = verdict("daxpy", false, "z[%d]=%.17g, want %.17g", i, z[i], want_z);
  }
  if (status < 0)
    status = verdict("daxpy", true, "n=%d daxpy exact, sin*exp+sqrt max rel err %.2g", n, worst);
  CHECK_CUDA(cudaFree(dx));
  CHECK_CUDA(cudaFree(dy));
  CHECK_CUDA(cudaFree(dz));
  delete[] x;
  delete[] y;
  delete[] y0;
  delete[] z;
  return status;
}
