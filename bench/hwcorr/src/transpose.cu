// transpose — out = in^T for an N x N fp32 matrix, two kernels:
//   transpose_naive: coalesced reads, writes N floats apart (one sector per lane);
//   transpose_tiled: a 32 x 32 tile through shared memory padded to 33 columns (no bank
//                    conflicts), coalesced both ways; 32 x 8 threads, 4 elements each.
// The check compares every element. N must be a multiple of 32.
#include "hwcorr.cuh"

namespace {

constexpr int kTile = 32, kRows = 8;

__global__ void transpose_naive(int n, const float *in, float *out, hwc::stamp *st) {
  hwc::cta_begin(st);
  int x = blockIdx.x * kTile + threadIdx.x;
  for (int k = 0; k < kTile; k += kRows) {
    int y = blockIdx.y * kTile + threadIdx.y + k;
    out[x * n + y] = in[y * n + x];
  }
  hwc::cta_end(st);
}

__global__ void transpose_tiled(int n, const float *in, float *out, hwc::stamp *st) {
  hwc::cta_begin(st);
  __shared__ float t[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  for (int k = 0; k < kTile; k += kRows) t[threadIdx.y + k][threadIdx.x] = in[(y + k) * n + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x;
  y = blockIdx.x * kTile + threadIdx.y;
  for (int k = 0; k < kTile; k += kRows) out[(y + k) * n + x] = t[threadIdx.x][threadIdx.y + k];
  hwc::cta_end(st);
}

}  // namespace

int main(int argc, char **argv) {
  hwc::bench b(argc, argv, "transpose", 1024);
  const uint64_t n = b.size();
  if (n % kTile != 0 || n > 32768) {
    std::fprintf(stderr, "transpose: N must be a multiple of %d, at most 32768 (got %llu)\n", kTile, (unsigned long long)n);
    return 2;
  }
  const int ni = static_cast<int>(n);
  std::vector<float> h(n * n);
  for (uint64_t i = 0; i < n * n; i++) h[i] = static_cast<float>(i % 1000003);
  hwc::dbuf<float> in(n * n), out(n * n);
  in.put(h);
  const dim3 grid(ni / kTile, ni / kTile), block(kTile, kRows);
  struct variant {
    const char *name;
    void (*kernel)(int, const float *, float *, hwc::stamp *);
  } variants[] = {{"transpose_naive", transpose_naive}, {"transpose_tiled", transpose_tiled}};
  for (int rep = 0; rep < b.reps(); rep++) {
    b.set_rep(rep);
    for (const variant &v : variants) {
      out.zero();
      b.timed(v.name, grid, block, [&](hwc::stamp *s) { v.kernel<<<grid, block>>>(ni, in.p, out.p, s); });
      if (rep > 0) continue;
      std::vector<float> got = out.get();
      for (uint64_t y = 0; y < n && !b.failed(); y++)
        for (uint64_t x = 0; x < n; x++)
          if (got[y * n + x] != h[x * n + y]) {
            char why[160];
            std::snprintf(why, sizeof why, "%s: out[%llu][%llu] = %g, expected %g", v.name, (unsigned long long)y,
                          (unsigned long long)x, got[y * n + x], h[x * n + y]);
            b.check(false, why);
            break;
          }
    }
  }
  b.calibrate();
  return b.finish();
}
