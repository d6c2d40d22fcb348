// spmv — y = A x for a sparse N x N matrix in CSR form, two kernels:
//   spmv_scalar: one thread per row (uncoalesced reads of the row's values and column indices);
//   spmv_vector: one warp per row, lanes stride through the row, a shuffle reduction.
// The matrix has 4 to 28 non-zeros per row (16 on average): a band of 4 around the diagonal plus
// columns drawn uniformly, so x is gathered irregularly. Values are multiples of 1/4 in [-2, 2] and
// x holds small integers, so sums are exact in any order and the check compares y bit for bit.
#include "hwcorr.cuh"

namespace {

constexpr int kThreads = 256;

__global__ void spmv_scalar(int n, const int *rowptr, const int *col, const float *val, const float *x, float *y,
                            hwc::stamp *st) {
  hwc::cta_begin(st);
  int row = blockIdx.x * kThreads + threadIdx.x;
  if (row < n) {
    float acc = 0.0f;
    for (int k = rowptr[row]; k < rowptr[row + 1]; k++) acc += val[k] * x[col[k]];
    y[row] = acc;
  }
  hwc::cta_end(st);
}

__global__ void spmv_vector(int n, const int *rowptr, const int *col, const float *val, const float *x, float *y,
                            hwc::stamp *st) {
  hwc::cta_begin(st);
  const int lane = threadIdx.x & 31;
  const int row = blockIdx.x * (kThreads / 32) + threadIdx.x / 32;
  if (row < n) {
    float acc = 0.0f;
    for (int k = rowptr[row] + lane; k < rowptr[row + 1]; k += 32) acc += val[k] * x[col[k]];
    for (int d = 16; d > 0; d /= 2) acc += __shfl_down_sync(0xffffffffu, acc, d);
    if (lane == 0) y[row] = acc;
  }
  hwc::cta_end(st);
}

}  // namespace

int main(int argc, char **argv) {
  hwc::bench b(argc, argv, "spmv", 1 << 14);
  const uint64_t n = b.size();
  if (n % kThreads != 0 || n > (1ull << 24)) {
    std::fprintf(stderr, "spmv: N must be a multiple of %d, at most 2^24 (got %llu)\n", kThreads, (unsigned long long)n);
    return 2;
  }
  const int ni = static_cast<int>(n);
  std::vector<int> rowptr(n + 1), col;
  std::vector<float> val, x(n), expect(n);
  hwc::rng r(6);
  for (int i = 0; i < ni; i++) {
    rowptr[i] = static_cast<int>(col.size());
    for (int d = -2; d <= 1; d++) col.push_back((i + d + ni) % ni);
    int extra = static_cast<int>(r.below(25));
    for (int k = 0; k < extra; k++) col.push_back(static_cast<int>(r.below(ni)));
    for (size_t k = rowptr[i]; k < col.size(); k++)
      val.push_back(static_cast<float>(static_cast<int>(r.below(17)) - 8) * 0.25f);
  }
  rowptr[n] = static_cast<int>(col.size());
  for (auto &v : x) v = static_cast<float>(static_cast<int>(r.below(9)) - 4);
  for (int i = 0; i < ni; i++) {
    float acc = 0.0f;
    for (int k = rowptr[i]; k < rowptr[i + 1]; k++) acc += val[k] * x[col[k]];
    expect[i] = acc;
  }
  hwc::dbuf<int> drow(n + 1), dcol(col.size());
  hwc::dbuf<float> dval(val.size()), dx(n), dy(n);
  drow.put(rowptr);
  dcol.put(col);
  dval.put(val);
  dx.put(x);
  struct variant {
    const char *name;
    unsigned grid;
    void (*kernel)(int, const int *, const int *, const float *, const float *, float *, hwc::stamp *);
  } variants[] = {{"spmv_scalar", hwc::ceil_div(n, kThreads), spmv_scalar},
                  {"spmv_vector", hwc::ceil_div(n, kThreads / 32), spmv_vector}};
  for (int rep = 0; rep < b.reps(); rep++) {
    b.set_rep(rep);
    for (const variant &v : variants) {
      dy.zero();
      b.timed(v.name, dim3(v.grid), dim3(kThreads), [&](hwc::stamp *s) {
        v.kernel<<<v.grid, kThreads>>>(ni, drow.p, dcol.p, dval.p, dx.p, dy.p, s);
      });
      if (rep > 0) continue;
      std::vector<float> got = dy.get();
      for (int i = 0; i < ni; i++)
        if (got[i] != expect[i]) {
          char why[160];
          std::snprintf(why, sizeof why, "%s: y[%d] = %g, expected %g", v.name, i, got[i], expect[i]);
          b.check(false, why);
          break;
        }
    }
  }
  b.calibrate();
  return b.finish();
}
