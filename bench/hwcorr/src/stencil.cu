// stencil — one Jacobi sweep of the 2D five-point Laplace stencil on an N x N fp32 grid per
// launch, two kernels:
//   stencil_global: each thread reads its five points from global memory (L1 reuse between
//                   neighbouring threads);
//   stencil_shared: a 32 x 8 CTA stages its tile plus a one-point halo in shared memory first.
// Border points keep their value. Each repetition does two sweeps per kernel (in -> tmp -> in), so
// the grid evolves; the check runs the same sweeps on the host with the same fp32 operations in the
// same order and compares every point bit for bit. N must be a multiple of 32.
#include "hwcorr.cuh"

namespace {

constexpr int kBx = 32, kBy = 8;

__host__ __device__ inline float jacobi(float c, float n, float s, float w, float e) {
  return 0.2f * ((((c + n) + s) + w) + e);
}

__global__ void stencil_global(int n, const float *in, float *out, hwc::stamp *st) {
  hwc::cta_begin(st);
  int x = blockIdx.x * kBx + threadIdx.x, y = blockIdx.y * kBy + threadIdx.y;
  if (x < n && y < n) {
    int i = y * n + x;
    if (x == 0 || y == 0 || x == n - 1 || y == n - 1)
      out[i] = in[i];
    else
      out[i] = jacobi(in[i], in[i - n], in[i + n], in[i - 1], in[i + 1]);
  }
  hwc::cta_end(st);
}

__global__ void stencil_shared(int n, const float *in, float *out, hwc::stamp *st) {
  hwc::cta_begin(st);
  __shared__ float t[kBy + 2][kBx + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x0 = blockIdx.x * kBx - 1, y0 = blockIdx.y * kBy - 1;
  // (kBx + 2) x (kBy + 2) = 340 points by 256 threads: two rounds.
  for (int e = ty * kBx + tx; e < (kBx + 2) * (kBy + 2); e += kBx * kBy) {
    int ly = e / (kBx + 2), lx = e % (kBx + 2);
    int gx = x0 + lx, gy = y0 + ly;
    t[ly][lx] = (gx >= 0 && gy >= 0 && gx < n && gy < n) ? in[gy * n + gx] : 0.0f;
  }
  __syncthreads();
  int x = x0 + 1 + tx, y = y0 + 1 + ty;
  if (x < n && y < n) {
    float c = t[ty + 1][tx + 1];
    if (x == 0 || y == 0 || x == n - 1 || y == n - 1)
      out[y * n + x] = c;
    else
      out[y * n + x] = jacobi(c, t[ty][tx + 1], t[ty + 2][tx + 1], t[ty + 1][tx], t[ty + 1][tx + 2]);
  }
  hwc::cta_end(st);
}

void host_sweep(int n, const std::vector<float> &in, std::vector<float> &out) {
  for (int y = 0; y < n; y++)
    for (int x = 0; x < n; x++) {
      int i = y * n + x;
      out[i] = (x == 0 || y == 0 || x == n - 1 || y == n - 1)
                   ? in[i]
                   : jacobi(in[i], in[i - n], in[i + n], in[i - 1], in[i + 1]);
    }
}

}  // namespace

int main(int argc, char **argv) {
  hwc::bench b(argc, argv, "stencil", 512);
  const uint64_t n = b.size();
  if (n % kBx != 0 || n > 16384) {
    std::fprintf(stderr, "stencil: N must be a multiple of %d, at most 16384 (got %llu)\n", kBx, (unsigned long long)n);
    return 2;
  }
  const int ni = static_cast<int>(n);
  std::vector<float> h0(n * n);
  hwc::rng r(2);
  for (auto &x : h0) x = static_cast<float>(r.below(1000)) * 0.125f;
  hwc::dbuf<float> a(n * n), t(n * n);
  const dim3 grid(ni / kBx, ni / kBy), block(kBx, kBy);
  struct variant {
    const char *name;
    void (*kernel)(int, const float *, float *, hwc::stamp *);
  } variants[] = {{"stencil_global", stencil_global}, {"stencil_shared", stencil_shared}};
  for (const variant &v : variants) {
    a.put(h0);
    for (int rep = 0; rep < b.reps(); rep++) {
      b.set_rep(rep);
      b.timed(v.name, grid, block, [&](hwc::stamp *s) { v.kernel<<<grid, block>>>(ni, a.p, t.p, s); });
      b.timed(v.name, grid, block, [&](hwc::stamp *s) { v.kernel<<<grid, block>>>(ni, t.p, a.p, s); });
    }
    std::vector<float> h = h0, tmp(n * n);
    for (int i = 0; i < 2 * b.reps(); i++) {
      host_sweep(ni, h, tmp);
      h.swap(tmp);
    }
    std::vector<float> got = a.get();
    for (uint64_t i = 0; i < n * n; i++)
      if (got[i] != h[i]) {
        char why[160];
        std::snprintf(why, sizeof why, "%s: point (%llu, %llu) = %g, expected %g", v.name,
                      (unsigned long long)(i % n), (unsigned long long)(i / n), got[i], h[i]);
        b.check(false, why);
        break;
      }
  }
  b.calibrate();
  return b.finish();
}
