// gemm — single-precision C = A x B for square N x N matrices, two kernels:
//   gemm_naive: one thread per element of C, A and B read from global memory (L1/L2 bound);
//   gemm_tiled: a 64 x 64 tile of C per 256-thread CTA, 4 x 4 elements per thread, 16-deep slices
//               of A and B staged in shared memory (FMA and shared-memory bound).
// Inputs are multiples of 1/4 in [-2, 2], so every product and partial sum is exact in fp32 and
// the result is independent of summation order: the check compares sampled elements bit for bit
// with a host computation. N must be a multiple of 64.
#include "hwcorr.cuh"

namespace {

constexpr int kTile = 64, kDepth = 16;

__global__ void gemm_naive(int n, const float *a, const float *b, float *c, hwc::stamp *st) {
  hwc::cta_begin(st);
  int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n && col < n) {
    float acc = 0.0f;
    for (int k = 0; k < n; k++) acc += a[row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
  }
  hwc::cta_end(st);
}

// Thread (tx, ty) of the 16 x 16 CTA computes rows ty + 16 i and columns tx + 16 j (i, j < 4) of
// the tile, so a warp's shared-memory reads of B are consecutive words (no bank conflict) and its
// reads of A are broadcasts.
__global__ void gemm_tiled(int n, const float *a, const float *b, float *c, hwc::stamp *st) {
  hwc::cta_begin(st);
  __shared__ float as[kDepth][kTile + 1];
  __shared__ float bs[kDepth][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < n; k0 += kDepth) {
    // 64 x 16 of A and 16 x 64 of B: 1024 elements each, 4 per thread, coalesced reads.
    for (int l = 0; l < 4; l++) {
      int e = tid + 256 * l;
      int ar = e / kDepth, ak = e % kDepth;
      as[ak][ar] = a[(row0 + ar) * n + k0 + ak];
      int bk = e / kTile, bc = e % kTile;
      bs[bk][bc] = b[(k0 + bk) * n + col0 + bc];
    }
    __syncthreads();
    for (int k = 0; k < kDepth; k++) {
      float av[4], bv[4];
      for (int i = 0; i < 4; i++) av[i] = as[k][ty + 16 * i];
      for (int j = 0; j < 4; j++) bv[j] = bs[k][tx + 16 * j];
      for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) acc[i][j] += av[i] * bv[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) c[(row0 + ty + 16 * i) * n + col0 + tx + 16 * j] = acc[i][j];
  hwc::cta_end(st);
}

float value(hwc::rng &r) { return static_cast<float>(static_cast<int>(r.below(17)) - 8) * 0.25f; }

}  // namespace

int main(int argc, char **argv) {
  hwc::bench b(argc, argv, "gemm", 256);
  const uint64_t n = b.size();
  if (n % kTile != 0 || n > 8192) {
    std::fprintf(stderr, "gemm: N must be a multiple of %d, at most 8192 (got %llu)\n", kTile, (unsigned long long)n);
    return 2;
  }
  const int ni = static_cast<int>(n);
  std::vector<float> ha(n * n), hb(n * n);
  hwc::rng r(1);
  for (auto &x : ha) x = value(r);
  for (auto &x : hb) x = value(r);
  hwc::dbuf<float> da(n * n), db(n * n), dc(n * n);
  da.put(ha);
  db.put(hb);

  // Sampled reference: 256 elements spread over C, both corners included.
  std::vector<std::pair<uint64_t, uint64_t>> samples = {{0, 0}, {n - 1, n - 1}, {0, n - 1}, {n - 1, 0}};
  hwc::rng pick(7);
  while (samples.size() < 256) samples.push_back({pick.below(ni), pick.below(ni)});
  std::vector<float> expect;
  for (auto [i, j] : samples) {
    float acc = 0.0f;
    for (uint64_t k = 0; k < n; k++) acc += ha[i * n + k] * hb[k * n + j];
    expect.push_back(acc);
  }
  auto verify = [&](const char *kernel) {
    std::vector<float> hc = dc.get();
    for (size_t s = 0; s < samples.size(); s++) {
      float got = hc[samples[s].first * n + samples[s].second];
      if (got != expect[s]) {
        char why[160];
        std::snprintf(why, sizeof why, "%s: C[%llu][%llu] = %g, expected %g", kernel,
                      (unsigned long long)samples[s].first, (unsigned long long)samples[s].second, got, expect[s]);
        b.check(false, why);
        return;
      }
    }
  };

  for (int rep = 0; rep < b.reps(); rep++) {
    b.set_rep(rep);
    dc.zero();
    b.timed("gemm_naive", dim3(ni / 16, ni / 16), dim3(16, 16), [&](hwc::stamp *s) {
      gemm_naive<<<dim3(ni / 16, ni / 16), dim3(16, 16)>>>(ni, da.p, db.p, dc.p, s);
    });
    if (rep == 0) verify("gemm_naive");
    dc.zero();
    b.timed("gemm_tiled", dim3(ni / kTile, ni / kTile), dim3(16, 16), [&](hwc::stamp *s) {
      gemm_tiled<<<dim3(ni / kTile, ni / kTile), dim3(16, 16)>>>(ni, da.p, db.p, dc.p, s);
    });
    if (rep == 0) verify("gemm_tiled");
  }
  b.calibrate();
  return b.finish();
}
