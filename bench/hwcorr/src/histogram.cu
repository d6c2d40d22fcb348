// histogram — 256-bin histogram of N bytes, two kernels:
//   histogram_shared: each CTA counts into a private shared-memory histogram (shared atomics) and
//                     adds its 256 bins to the global one (global atomics);
//   histogram_global: every byte is one global atomic (contention at the L2).
// Each thread reads 16 bytes (one uint4) per step. The data are skewed (a quarter of the bytes fall
// into 8 bins) so atomics collide as in real images. The check compares every bin. N must be a
// multiple of 65536.
#include "hwcorr.cuh"

namespace {

constexpr int kThreads = 256, kBytesPerThread = 64, kPerCta = kThreads * kBytesPerThread;

__device__ __forceinline__ void count_word(unsigned w, unsigned *h) {
  atomicAdd(&h[w & 0xff], 1u);
  atomicAdd(&h[(w >> 8) & 0xff], 1u);
  atomicAdd(&h[(w >> 16) & 0xff], 1u);
  atomicAdd(&h[w >> 24], 1u);
}

__global__ void histogram_shared(const uint4 *in, unsigned *bins, hwc::stamp *st) {
  hwc::cta_begin(st);
  __shared__ unsigned h[256];
  h[threadIdx.x] = 0;
  __syncthreads();
  const uint4 *p = in + static_cast<size_t>(blockIdx.x) * (kPerCta / 16) + threadIdx.x;
  for (int k = 0; k < kBytesPerThread / 16; k++, p += kThreads) {
    uint4 v = *p;
    count_word(v.x, h);
    count_word(v.y, h);
    count_word(v.z, h);
    count_word(v.w, h);
  }
  __syncthreads();
  if (h[threadIdx.x]) atomicAdd(&bins[threadIdx.x], h[threadIdx.x]);
  hwc::cta_end(st);
}

__global__ void histogram_global(const uint4 *in, unsigned *bins, hwc::stamp *st) {
  hwc::cta_begin(st);
  const uint4 *p = in + static_cast<size_t>(blockIdx.x) * (kPerCta / 16) + threadIdx.x;
  for (int k = 0; k < kBytesPerThread / 16; k++, p += kThreads) {
    uint4 v = *p;
    count_word(v.x, bins);
    count_word(v.y, bins);
    count_word(v.z, bins);
    count_word(v.w, bins);
  }
  hwc::cta_end(st);
}

}  // namespace

int main(int argc, char **argv) {
  hwc::bench b(argc, argv, "histogram", 1 << 20);
  const uint64_t n = b.size();
  if (n % kPerCta != 0 || n > (1ull << 31)) {
    std::fprintf(stderr, "histogram: N must be a multiple of %d, at most 2^31 (got %llu)\n", kPerCta, (unsigned long long)n);
    return 2;
  }
  std::vector<unsigned char> h(n);
  std::vector<unsigned> expect(256, 0);
  hwc::rng r(5);
  for (auto &x : h) {
    uint64_t v = r.next();
    x = (v & 3) == 0 ? static_cast<unsigned char>(0x40 + ((v >> 8) & 7)) : static_cast<unsigned char>(v >> 16);
    expect[x]++;
  }
  hwc::dbuf<unsigned char> in(n);
  hwc::dbuf<unsigned> bins(256);
  in.put(h);
  const unsigned grid = static_cast<unsigned>(n / kPerCta);
  struct variant {
    const char *name;
    void (*kernel)(const uint4 *, unsigned *, hwc::stamp *);
  } variants[] = {{"histogram_shared", histogram_shared}, {"histogram_global", histogram_global}};
  for (int rep = 0; rep < b.reps(); rep++) {
    b.set_rep(rep);
    for (const variant &v : variants) {
      bins.zero();
      b.timed(v.name, dim3(grid), dim3(kThreads), [&](hwc::stamp *s) {
        v.kernel<<<grid, kThreads>>>(reinterpret_cast<const uint4 *>(in.p), bins.p, s);
      });
      std::vector<unsigned> got = bins.get();
      for (int i = 0; i < 256; i++)
        if (got[i] != expect[i]) {
          char why[160];
          std::snprintf(why, sizeof why, "%s: bin %d = %u, expected %u", v.name, i, got[i], expect[i]);
          b.check(false, why);
          break;
        }
    }
  }
  b.calibrate();
  return b.finish();
}
