// scan — exclusive prefix sum of N 32-bit unsigned integers (modulo 2^32) in three kernels, the
// classic scan-then-propagate structure:
//   scan_blocks:  each 256-thread CTA scans 1024 elements (4 per thread, then a work-efficient
//                 up-sweep/down-sweep over the 256 thread totals in shared memory) and writes its
//                 total to sums[];
//   scan_sums:    one CTA scans sums[] the same way (the same device code; at most 1024 totals);
//   scan_add:     every element gets its CTA's offset.
// The check compares every element with the host's scan. N must be a multiple of 1024, at most
// 2^20 (1024 x 1024, one CTA scans all the CTA totals).
#include "hwcorr.cuh"

namespace {

constexpr int kThreads = 256, kPerThread = 4, kPerCta = kThreads * kPerThread;

// Exclusive scan of v over the CTA's 256 threads (Blelloch), returns the exclusive prefix of this
// thread; *total gets the CTA's sum.
__device__ unsigned cta_exclusive_scan(unsigned v, unsigned *total) {
  __shared__ unsigned t[kThreads];
  const int i = threadIdx.x;
  t[i] = v;
  __syncthreads();
  for (int d = 1; d < kThreads; d *= 2) {
    int k = (i + 1) * 2 * d - 1;
    if (k < kThreads) t[k] += t[k - d];
    __syncthreads();
  }
  if (i == 0) {
    *total = t[kThreads - 1];
    t[kThreads - 1] = 0;
  }
  __syncthreads();
  for (int d = kThreads / 2; d >= 1; d /= 2) {
    int k = (i + 1) * 2 * d - 1;
    if (k < kThreads) {
      unsigned left = t[k - d];
      t[k - d] = t[k];
      t[k] += left;
    }
    __syncthreads();
  }
  unsigned r = t[i];
  __syncthreads();
  return r;
}

// in/out hold count elements; CTA c handles [c * 1024, (c + 1) * 1024).
__device__ void scan_tile(const unsigned *in, unsigned *out, unsigned *sums, unsigned count) {
  __shared__ unsigned total;
  const unsigned base = blockIdx.x * kPerCta + threadIdx.x * kPerThread;
  unsigned v[kPerThread], run = 0;
  for (int k = 0; k < kPerThread; k++) {
    v[k] = base + k < count ? in[base + k] : 0;
    unsigned x = v[k];
    v[k] = run;
    run += x;
  }
  unsigned prefix = cta_exclusive_scan(run, &total);
  for (int k = 0; k < kPerThread; k++)
    if (base + k < count) out[base + k] = prefix + v[k];
  if (threadIdx.x == 0) sums[blockIdx.x] = total;
}

__global__ void scan_blocks(const unsigned *in, unsigned *out, unsigned *sums, unsigned count, hwc::stamp *st) {
  hwc::cta_begin(st);
  scan_tile(in, out, sums, count);
  hwc::cta_end(st);
}

// The same code on the CTA totals (one CTA): a kernel of its own, so its launches are told apart.
__global__ void scan_sums(const unsigned *in, unsigned *out, unsigned *sums, unsigned count, hwc::stamp *st) {
  hwc::cta_begin(st);
  scan_tile(in, out, sums, count);
  hwc::cta_end(st);
}

__global__ void scan_add(unsigned *out, const unsigned *offsets, hwc::stamp *st) {
  hwc::cta_begin(st);
  const unsigned off = offsets[blockIdx.x], base = blockIdx.x * kPerCta;
  for (int k = 0; k < kPerThread; k++) out[base + k * kThreads + threadIdx.x] += off;
  hwc::cta_end(st);
}

}  // namespace

int main(int argc, char **argv) {
  hwc::bench b(argc, argv, "scan", 1 << 18);
  const uint64_t n = b.size();
  if (n % kPerCta != 0 || n > static_cast<uint64_t>(kPerCta) * kPerCta) {
    std::fprintf(stderr, "scan: N must be a multiple of %d, at most %d (got %llu)\n", kPerCta, kPerCta * kPerCta,
                 (unsigned long long)n);
    return 2;
  }
  const unsigned ctas = static_cast<unsigned>(n / kPerCta);
  std::vector<unsigned> h(n), expect(n);
  hwc::rng r(4);
  unsigned run = 0;
  for (uint64_t i = 0; i < n; i++) {
    h[i] = static_cast<unsigned>(r.next() >> 40);
    expect[i] = run;
    run += h[i];
  }
  hwc::dbuf<unsigned> in(n), out(n), sums(ctas), offsets(ctas), grand(1);
  in.put(h);
  for (int rep = 0; rep < b.reps(); rep++) {
    b.set_rep(rep);
    b.timed("scan_blocks", dim3(ctas), dim3(kThreads), [&](hwc::stamp *s) {
      scan_blocks<<<ctas, kThreads>>>(in.p, out.p, sums.p, static_cast<unsigned>(n), s);
    });
    b.timed("scan_sums", dim3(1), dim3(kThreads), [&](hwc::stamp *s) {
      scan_sums<<<1, kThreads>>>(sums.p, offsets.p, grand.p, ctas, s);
    });
    b.timed("scan_add", dim3(ctas), dim3(kThreads), [&](hwc::stamp *s) { scan_add<<<ctas, kThreads>>>(out.p, offsets.p, s); });
    std::vector<unsigned> got = out.get();
    for (uint64_t i = 0; i < n; i++)
      if (got[i] != expect[i]) {
        char why[160];
        std::snprintf(why, sizeof why, "repetition %d: out[%llu] = %u, expected %u", rep, (unsigned long long)i, got[i],
                      expect[i]);
        b.check(false, why);
        break;
      }
  }
  b.calibrate();
  return b.finish();
}
