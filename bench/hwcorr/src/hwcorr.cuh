// hwcorr.cuh — the timing harness of the hardware-correlation kernels (bench/hwcorr).
//
// Every kernel of the suite is timed three ways, identically on a real GPU and on simtvp (the same
// binary runs on both; docs/correlation.md "Hardware correlation suite"):
//   - cudaEvent pairs around each launch (event_ns: what a CUDA program sees, launch overhead in);
//   - %globaltimer read by the first thread of every CTA when the CTA starts and, after a barrier,
//     when it ends: span_ns = last CTA end - first CTA start (the grid's time on the GPU, without
//     the launch path);
//   - %clock64 at the same two points: per-CTA SM cycles (cta_cycles_max / _sum) and, with the
//     per-CTA globaltimer deltas (cta_ns_sum), the SM clock the kernel actually ran at.
// %clock64 is per SM on hardware (SMs' counters are not synchronised), so cycles are only ever
// taken as differences inside one CTA. On simtvp %clock64 is the core cycle and %globaltimer the
// simulated nanosecond (docs/correlation.md §1 "How %clock is answered").
//
// Output: one line per launch on stdout, comma separated, starting with "HWC," so it can be picked
// out of whatever else the program or the platform prints:
//   HWC,program,kernel,size,launch,rep,ctas,block,event_ns,span_ns,cta_cycles_max,cta_cycles_sum,
//       cta_ns_sum
// and one verdict line per program run: HWC_CHECK,program,size,PASS|FAIL,detail.
// `launch` numbers the launches of one kernel inside one repetition (BFS levels, scan phases);
// rep 0 is the cold repetition (instruction caches, TLBs, the GPU's clock ramp), the comparison uses
// the warm ones.
//
// Command line of every program: prog [-n SIZE] [-r REPS] (REPS counts the cold repetition too).
// Launch geometry depends on SIZE only, never on the device, so a GPU and a simulated GPU run the
// same grids.
#ifndef SIMTVP_BENCH_HWCORR_H
#define SIMTVP_BENCH_HWCORR_H

#include <cuda_runtime.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace hwc {

// What the first thread of a CTA records (one per CTA, indexed by the linear CTA id).
struct stamp {
  unsigned long long t0, t1;  // %globaltimer at the CTA's start and end (ns)
  unsigned long long c0, c1;  // %clock64 at the same points (SM cycles)
};

__device__ __forceinline__ unsigned long long globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ bool first_thread() { return (threadIdx.x | threadIdx.y | threadIdx.z) == 0; }

__device__ __forceinline__ unsigned cta_id() {
  return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

// First statement of a timed kernel.
__device__ __forceinline__ void cta_begin(stamp *s) {
  if (first_thread()) {
    stamp *p = s + cta_id();
    p->c0 = clock64();
    p->t0 = globaltimer();
  }
}

// Last statement of a timed kernel: every thread of the CTA must reach it (no early return).
__device__ __forceinline__ void cta_end(stamp *s) {
  __syncthreads();
  if (first_thread()) {
    stamp *p = s + cta_id();
    unsigned long long t = globaltimer();
    p->t1 = t;
    p->c1 = clock64();
  }
}

// The clock calibration kernel: one thread spins for `cycles` SM cycles between two readings of
// both clocks, so cycles / ns is the SM clock (MHz / 1000) while it spins.
__global__ void clock_calib(stamp *s, unsigned long long cycles) {
  if (!first_thread()) return;
  unsigned long long c0 = clock64(), t0 = globaltimer(), c = c0;
  while (c - c0 < cycles) c = clock64();
  unsigned long long t1 = globaltimer(), c1 = clock64();
  s->t0 = t0, s->t1 = t1, s->c0 = c0, s->c1 = c1;
}

inline void fail_cuda(cudaError_t e, const char *what, const char *file, int line) {
  std::fprintf(stderr, "%s:%d: %s: %s (%s)\n", file, line, what, cudaGetErrorName(e), cudaGetErrorString(e));
  std::exit(2);
}
#define HWC_CHECK(call)                                                            \
  do {                                                                             \
    cudaError_t hwc_e_ = (call);                                                   \
    if (hwc_e_ != cudaSuccess) ::hwc::fail_cuda(hwc_e_, #call, __FILE__, __LINE__); \
  } while (0)

// Deterministic inputs: xorshift64 (the same sequence on every machine).
struct rng {
  uint64_t x;
  explicit rng(uint64_t seed) : x(seed ? seed : 0x9E3779B97F4A7C15ull) {}
  uint64_t next() {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  }
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(next() % n); }
};

// Device buffer of T, freed on scope exit.
template <class T>
struct dbuf {
  T *p = nullptr;
  size_t n = 0;
  explicit dbuf(size_t count) : n(count) { HWC_CHECK(cudaMalloc(&p, count * sizeof(T) + 16)); }
  ~dbuf() { cudaFree(p); }
  dbuf(const dbuf &) = delete;
  dbuf &operator=(const dbuf &) = delete;
  void put(const std::vector<T> &h) { HWC_CHECK(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice)); }
  std::vector<T> get() const {
    std::vector<T> h(n);
    HWC_CHECK(cudaMemcpy(h.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
  void zero() { HWC_CHECK(cudaMemset(p, 0, n * sizeof(T))); }
};

// One program run: arguments, the stamp buffer, events, the output lines.
class bench {
 public:
  bench(int argc, char **argv, const char *program, uint64_t default_size, int default_reps = 4)
      : program_(program), size_(default_size), reps_(default_reps) {
    for (int i = 1; i < argc; i++) {
      std::string a = argv[i];
      if ((a == "-n" || a == "--size") && i + 1 < argc) {
        size_ = std::strtoull(argv[++i], nullptr, 0);
      } else if ((a == "-r" || a == "--reps") && i + 1 < argc) {
        reps_ = std::atoi(argv[++i]);
      } else {
        std::fprintf(stderr, "usage: %s [-n SIZE] [-r REPS]   (unknown argument '%s')\n", argv[0], argv[i]);
        std::exit(2);
      }
    }
    if (size_ == 0 || reps_ < 1) {
      std::fprintf(stderr, "%s: SIZE and REPS must be positive (got -n %" PRIu64 " -r %d)\n", program, size_, reps_);
      std::exit(2);
    }
    HWC_CHECK(cudaEventCreate(&e0_));
    HWC_CHECK(cudaEventCreate(&e1_));
  }
  ~bench() {
    cudaEventDestroy(e0_);
    cudaEventDestroy(e1_);
    cudaFree(stamps_);
  }
  bench(const bench &) = delete;
  bench &operator=(const bench &) = delete;

  uint64_t size() const { return size_; }
  int reps() const { return reps_; }
  void set_rep(int rep) {
    rep_ = rep;
    launches_.clear();
  }

  // Times one launch: `launch(stamps)` enqueues the kernel on the default stream with the stamp
  // buffer as its last argument; `ctas` is the grid's CTA count. Prints the HWC line.
  template <class F>
  void timed(const char *kernel, dim3 grid, dim3 block, F &&launch) {
    const size_t ctas = static_cast<size_t>(grid.x) * grid.y * grid.z;
    reserve(ctas);
    HWC_CHECK(cudaMemset(stamps_, 0, ctas * sizeof(stamp)));
    HWC_CHECK(cudaEventRecord(e0_, 0));
    launch(stamps_);
    HWC_CHECK(cudaGetLastError());
    HWC_CHECK(cudaEventRecord(e1_, 0));
    HWC_CHECK(cudaEventSynchronize(e1_));
    float ms = 0;
    HWC_CHECK(cudaEventElapsedTime(&ms, e0_, e1_));
    host_.resize(ctas);
    HWC_CHECK(cudaMemcpy(host_.data(), stamps_, ctas * sizeof(stamp), cudaMemcpyDeviceToHost));
    unsigned long long lo = ~0ull, hi = 0, cmax = 0, csum = 0, nsum = 0;
    size_t bad = 0;
    for (const stamp &s : host_) {
      if (s.t1 < s.t0 || s.c1 < s.c0 || s.t1 == 0) {
        bad++;
        continue;
      }
      lo = s.t0 < lo ? s.t0 : lo;
      hi = s.t1 > hi ? s.t1 : hi;
      unsigned long long c = s.c1 - s.c0;
      cmax = c > cmax ? c : cmax;
      csum += c;
      nsum += s.t1 - s.t0;
    }
    if (bad) {
      std::fprintf(stderr, "%s: %s: %zu of %zu CTAs left no timestamps\n", program_, kernel, bad, ctas);
      failed_ = true;
    }
    int &seq = launches_[kernel];
    std::printf("HWC,%s,%s,%" PRIu64 ",%d,%d,%zu,%u,%.0f,%llu,%llu,%llu,%llu\n", program_, kernel, size_, seq, rep_, ctas,
                block.x * block.y * block.z, static_cast<double>(ms) * 1e6, hi > lo ? hi - lo : 0ull, cmax, csum, nsum);
    seq++;
  }

  // The SM clock: one thread spinning `cycles` SM cycles (a row named clock_calib; MHz = 1000 *
  // cta_cycles_sum / cta_ns_sum).
  void calibrate(unsigned long long cycles = 200000) {
    timed("clock_calib", dim3(1), dim3(32), [&](stamp *s) { clock_calib<<<1, 32>>>(s, cycles); });
  }

  // Records a verification failure (printed by finish()).
  void check(bool ok, const std::string &what) {
    if (!ok && detail_.empty()) detail_ = what;
    if (!ok) failed_ = true;
  }
  bool failed() const { return failed_; }

  // Prints the verdict and returns the exit status.
  int finish() {
    std::printf("HWC_CHECK,%s,%" PRIu64 ",%s,%s\n", program_, size_, failed_ ? "FAIL" : "PASS",
                detail_.empty() ? "-" : detail_.c_str());
    std::fflush(stdout);
    return failed_ ? 1 : 0;
  }

 private:
  void reserve(size_t ctas) {
    if (ctas <= cap_) return;
    cudaFree(stamps_);
    HWC_CHECK(cudaMalloc(&stamps_, ctas * sizeof(stamp)));
    cap_ = ctas;
  }

  struct counter_map {  // kernel name -> launches so far in this repetition (few kernels: a list)
    std::vector<std::pair<std::string, int>> v;
    int &operator[](const char *k) {
      for (auto &e : v)
        if (e.first == k) return e.second;
      v.emplace_back(k, 0);
      return v.back().second;
    }
    void clear() { v.clear(); }
  };

  const char *program_;
  uint64_t size_;
  int reps_;
  int rep_ = 0;
  bool failed_ = false;
  std::string detail_;
  cudaEvent_t e0_ = nullptr, e1_ = nullptr;
  stamp *stamps_ = nullptr;
  size_t cap_ = 0;
  std::vector<stamp> host_;
  counter_map launches_;
};

inline unsigned ceil_div(uint64_t a, uint64_t b) { return static_cast<unsigned>((a + b - 1) / b); }

}  // namespace hwc

#endif  // SIMTVP_BENCH_HWCORR_H
