// reduction — the sum of N 32-bit unsigned integers into a 64-bit total, two kernels:
//   reduce_shared: each thread adds 8 elements (strided by the grid, coalesced), the CTA reduces its
//                  256 partial sums as a tree in shared memory, thread 0 adds the CTA's sum to the
//                  total with one 64-bit atomic;
//   reduce_shuffle: the same with the tree replaced by warp shuffles (one shared-memory word per
//                   warp).
// Integer sums are exact, so the check compares with the host's sum. N must be a multiple of 2048.
#include "hwcorr.cuh"

namespace {

constexpr int kThreads = 256, kPerThread = 8, kPerCta = kThreads * kPerThread;

__global__ void reduce_shared(const unsigned *in, unsigned long long *total, hwc::stamp *st) {
  hwc::cta_begin(st);
  __shared__ unsigned long long part[kThreads];
  const unsigned stride = gridDim.x * kThreads;
  unsigned i = blockIdx.x * kThreads + threadIdx.x;
  unsigned long long s = 0;
  for (int k = 0; k < kPerThread; k++, i += stride) s += in[i];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(total, part[0]);
  hwc::cta_end(st);
}

__global__ void reduce_shuffle(const unsigned *in, unsigned long long *total, hwc::stamp *st) {
  hwc::cta_begin(st);
  __shared__ unsigned long long warp_sum[kThreads / 32];
  const unsigned stride = gridDim.x * kThreads;
  unsigned i = blockIdx.x * kThreads + threadIdx.x;
  unsigned long long s = 0;
  for (int k = 0; k < kPerThread; k++, i += stride) s += in[i];
  for (int d = 16; d > 0; d /= 2) s += __shfl_down_sync(0xffffffffu, s, d);
  if ((threadIdx.x & 31) == 0) warp_sum[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x < 32) {
    s = threadIdx.x < kThreads / 32 ? warp_sum[threadIdx.x] : 0;
    for (int d = 4; d > 0; d /= 2) s += __shfl_down_sync(0xffffffffu, s, d);
    if (threadIdx.x == 0) atomicAdd(total, s);
  }
  hwc::cta_end(st);
}

}  // namespace

int main(int argc, char **argv) {
  hwc::bench b(argc, argv, "reduction", 1 << 20);
  const uint64_t n = b.size();
  if (n % kPerCta != 0 || n > (1ull << 30)) {
    std::fprintf(stderr, "reduction: N must be a multiple of %d, at most 2^30 (got %llu)\n", kPerCta, (unsigned long long)n);
    return 2;
  }
  std::vector<unsigned> h(n);
  hwc::rng r(3);
  unsigned long long expect = 0;
  for (auto &x : h) {
    x = static_cast<unsigned>(r.next());
    expect += x;
  }
  hwc::dbuf<unsigned> in(n);
  hwc::dbuf<unsigned long long> total(1);
  in.put(h);
  const unsigned grid = static_cast<unsigned>(n / kPerCta);
  struct variant {
    const char *name;
    void (*kernel)(const unsigned *, unsigned long long *, hwc::stamp *);
  } variants[] = {{"reduce_shared", reduce_shared}, {"reduce_shuffle", reduce_shuffle}};
  for (int rep = 0; rep < b.reps(); rep++) {
    b.set_rep(rep);
    for (const variant &v : variants) {
      total.zero();
      b.timed(v.name, dim3(grid), dim3(kThreads), [&](hwc::stamp *s) { v.kernel<<<grid, kThreads>>>(in.p, total.p, s); });
      unsigned long long got = total.get()[0];
      if (got != expect) {
        char why[160];
        std::snprintf(why, sizeof why, "%s: sum %llu, expected %llu", v.name, got, expect);
        b.check(false, why);
      }
    }
  }
  b.calibrate();
  return b.finish();
}
