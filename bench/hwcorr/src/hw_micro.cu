// hw_micro — bench/micro's microbenchmarks (its PTX module, micro/micro.ptx) on any CUDA device:
// a real GPU, or simtvp through its libcudart.so.13 / libcuda.so.1, so both sides run the same
// kernels with the same arguments. docs/correlation.md §1 describes each kernel; this program
// follows bench_micro's parameters, except where a real GPU needs something else (said below).
//
//   hw_micro [-r REPS] [--ptx FILE] [--dram-mb MB] [--stream-mb MB] [--l2-mb MB]
//
// --ptx defaults to micro.ptx beside the executable (run_hw.sh puts it there). Output, one line per
// quantity and repetition:  HWM,quantity,unit,value,rep
// Latencies are %clock64 deltas inside one thread (SM cycles per operation); per-SM bandwidths are
// bytes per SM cycle inside one CTA; whole-GPU bandwidths are bytes per %globaltimer nanosecond
// from the first CTA's start to the last CTA's end (GB/s), because SMs' %clock64 counters are not
// synchronised on hardware (the *_gt stream kernels).
//
// Differences from bench_micro, for a real GPU:
//   - DRAM latency: the 512 chased lines are written one by one and the L2 is then flushed by
//     writing a scratch buffer of twice the L2's size (copies through the L2 leave lines there on
//     a real GPU; simtvp's copy engine writes memory directly, so there the flush changes nothing);
//   - whole-GPU bandwidth: one wave of 256-thread CTAs on every SM, timed with %globaltimer; the
//     DRAM stream is preceded by the same L2 flush;
//   - sizes are options so that simtvp can run the same binary (run_hw.sh and compare pass the
//     same values). The stream buffers are rounded up to whole sweeps of the grid (every thread
//     four float4 loads per sweep): 17.3 MB at least on 132 SMs of 2048 threads.
#include <cuda.h>

#include <algorithm>
#include <string>
#include <vector>

#include "hwcorr.cuh"

namespace {

#define CU_CHECK(call)                                                                          \
  do {                                                                                          \
    CUresult cu_r_ = (call);                                                                    \
    if (cu_r_ != CUDA_SUCCESS) {                                                                \
      const char *cu_name_ = nullptr;                                                           \
      cuGetErrorName(cu_r_, &cu_name_);                                                         \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cu_name_ ? cu_name_ : "?"); \
      std::exit(2);                                                                             \
    }                                                                                           \
  } while (0)

constexpr uint32_t kChaseUnroll = 16, kAluUnroll = 64, kMaxPasses = 8;

struct options {
  int reps = 1;
  std::string ptx;
  uint64_t dram_mb = 64, stream_mb = 32, l2_mb = 4;
};

class micro_module {
 public:
  explicit micro_module(const std::string &path) {
    FILE *f = std::fopen(path.c_str(), "rb");
    if (!f) {
      std::fprintf(stderr, "hw_micro: cannot read the PTX module %s (give it with --ptx)\n", path.c_str());
      std::exit(2);
    }
    std::string text;
    char buf[65536];
    size_t k;
    while ((k = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, k);
    std::fclose(f);
    // The runtime's primary context, made current for the driver API explicitly (CUDA makes it
    // current at the runtime's first call; simtvp's runtime does not do that for libcuda yet).
    HWC_CHECK(cudaFree(nullptr));
    CUdevice dev;
    CUcontext ctx;
    CU_CHECK(cuInit(0));
    CU_CHECK(cuDeviceGet(&dev, 0));
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));
    CU_CHECK(cuModuleLoadData(&m_, text.c_str()));
  }
  CUfunction fn(const char *name) {
    CUfunction f;
    CU_CHECK(cuModuleGetFunction(&f, m_, name));
    return f;
  }
  CUdeviceptr global(const char *name, size_t *bytes) {
    CUdeviceptr p;
    CU_CHECK(cuModuleGetGlobal(&p, bytes, m_, name));
    return p;
  }
  // Launches and waits.
  void launch(const char *name, unsigned grid, unsigned block, std::vector<void *> args) {
    CU_CHECK(cuLaunchKernel(fn(name), grid, 1, 1, block, 1, 1, 0, nullptr, args.empty() ? nullptr : args.data(), nullptr));
    HWC_CHECK(cudaDeviceSynchronize());
  }

 private:
  CUmodule m_ = nullptr;
};

void row(const char *quantity, const char *unit, double value, int rep) {
  std::printf("HWM,%s,%s,%.4f,%d\n", quantity, unit, value, rep);
  std::fflush(stdout);
}

uint64_t dptr(const void *p) { return reinterpret_cast<uint64_t>(p); }

// chase kernel from `start`: %clock64 delta of every pass.
std::vector<uint64_t> chase_run(micro_module &m, const char *kernel, uint64_t start, uint32_t loads, uint32_t passes) {
  hwc::dbuf<uint64_t> out(kMaxPasses + 1);
  out.zero();
  uint32_t iters = loads / kChaseUnroll;
  uint64_t o = dptr(out.p);
  m.launch(kernel, 1, 1, {&start, &iters, &passes, &o});
  return out.get();
}

// Circular chain of n elements `stride` bytes apart; cycles per load of the last pass.
double chase_global(micro_module &m, const char *kernel, uint32_t n, uint32_t stride, uint32_t loads, uint32_t passes) {
  hwc::dbuf<uint8_t> buf(static_cast<size_t>(n) * stride + 256);
  uint64_t base = (dptr(buf.p) + 127) & ~uint64_t(127);
  std::vector<uint8_t> host(static_cast<size_t>(n) * stride, 0);
  for (uint32_t i = 0; i < n; i++) {
    uint64_t next = base + static_cast<uint64_t>((i + 1) % n) * stride;
    std::memcpy(&host[static_cast<size_t>(i) * stride], &next, 8);
  }
  HWC_CHECK(cudaMemcpy(reinterpret_cast<void *>(base), host.data(), host.size(), cudaMemcpyHostToDevice));
  return static_cast<double>(chase_run(m, kernel, base, loads, passes)[passes - 1]) / loads;
}

// Evicts the L2 by writing a scratch buffer of twice its size.
void flush_l2() {
  int l2 = 0;
  HWC_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  size_t bytes = std::max<size_t>(2ull * static_cast<size_t>(l2), 1ull << 20);
  void *p = nullptr;
  HWC_CHECK(cudaMalloc(&p, bytes));
  HWC_CHECK(cudaMemset(p, 0x5a, bytes));
  HWC_CHECK(cudaDeviceSynchronize());
  HWC_CHECK(cudaFree(p));
}

// 512 distinct 128-byte lines of a dram_mb buffer in a shuffled order, 4 passes of 128 loads with
// ld.global.cg after an L2 flush; the mean of passes 1-3.
double dram_latency(micro_module &m, uint64_t dram_mb) {
  const uint64_t bytes = dram_mb << 20;
  hwc::dbuf<uint8_t> buf(bytes + 128);
  uint64_t base = (dptr(buf.p) + 127) & ~uint64_t(127);
  uint64_t lines = bytes / 128, x = 0x9E3779B97F4A7C15ull;
  std::vector<bool> used(lines, false);
  std::vector<uint64_t> a;
  while (a.size() < 512) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    uint64_t l = x % lines;
    if (!used[l]) used[l] = true, a.push_back(base + l * 128);
  }
  for (size_t i = 0; i < a.size(); i++) {
    uint64_t next = a[(i + 1) % a.size()];
    HWC_CHECK(cudaMemcpy(reinterpret_cast<void *>(a[i]), &next, 8, cudaMemcpyHostToDevice));
  }
  flush_l2();
  std::vector<uint64_t> d = chase_run(m, "chase_cg", a[0], 128, 4);
  return (d[1] + d[2] + d[3]) / 3.0 / 128;
}

double chase_shared(micro_module &m, uint32_t n, uint32_t stride, uint32_t loads, uint32_t passes) {
  hwc::dbuf<uint64_t> out(kMaxPasses + 1);
  out.zero();
  uint32_t iters = loads / kChaseUnroll;
  uint64_t o = dptr(out.p);
  m.launch("chase_shared", 1, 1, {&n, &stride, &iters, &passes, &o});
  return static_cast<double>(out.get()[passes - 1]) / loads;
}

// Constant-cache chase over the module's cchain. The kernel sees cchain at the constant-space
// address const_addr reports; the host writes it at its device pointer (cuModuleGetGlobal), and
// warm_l2 reads that device range with ld.global.cg first, so the lines are in the L2 and not in
// the constant cache.
double chase_const(micro_module &m, uint32_t n, uint32_t stride, uint32_t loads, uint32_t passes, bool warm_l2) {
  hwc::dbuf<uint64_t> out(8);
  uint64_t o = dptr(out.p);
  m.launch("const_addr", 1, 1, {&o});
  uint64_t kaddr = out.get()[0];
  size_t bytes = 0;
  CUdeviceptr cchain = m.global("cchain", &bytes);
  std::vector<uint64_t> chain(bytes / 8, 0);
  for (uint32_t i = 0; i < n; i++) chain[i * stride / 8] = kaddr + static_cast<uint64_t>((i + 1) % n) * stride;
  CU_CHECK(cuMemcpyHtoD(cchain, chain.data(), bytes));
  if (warm_l2) {
    hwc::dbuf<float> scratch(32);
    hwc::dbuf<uint64_t> clk(2);
    uint64_t in = cchain, s = dptr(scratch.p), c = dptr(clk.p);
    uint32_t n4 = static_cast<uint32_t>(bytes / 16), reps = 1;
    m.launch("stream_cg", 1, 32, {&in, &s, &c, &n4, &reps});
  }
  std::vector<uint64_t> d = chase_run(m, "chase_const", kaddr, loads, passes);
  return static_cast<double>(d[passes - 1]) / loads;
}

double alu_chain(micro_module &m, const char *cls, uint32_t iters, uint32_t passes) {
  hwc::dbuf<uint64_t> out(kMaxPasses + 1);
  out.zero();
  uint64_t o = dptr(out.p);
  std::string k = std::string("alu_") + cls;
  m.launch(k.c_str(), 1, 1, {&o, &iters, &passes});
  return static_cast<double>(out.get()[passes - 1]) / (static_cast<double>(iters) * kAluUnroll);
}

struct gpu_shape {
  unsigned sms = 0, threads_per_sm = 0;
};

// One wave of 256-thread CTAs over a buffer of n4 float4 (a multiple of 4 x the grid's threads),
// `reps` passes; GB/s from the %globaltimer span of the grid (max end - min start).
double stream_gbs(micro_module &m, const char *kernel, const gpu_shape &g, uint64_t n4, uint32_t reps, const void *in,
                  bool warm_first) {
  const uint32_t block = 256, grid = g.sms * (g.threads_per_sm / block);
  hwc::dbuf<float> out(static_cast<size_t>(grid) * block);
  hwc::dbuf<uint64_t> clk(2ull * grid);
  uint64_t i = dptr(in), o = dptr(out.p), c = dptr(clk.p);
  uint32_t n = static_cast<uint32_t>(n4);
  if (warm_first) {
    uint32_t one = 1;
    m.launch(kernel, grid, block, {&i, &o, &c, &n, &one});
  }
  m.launch(kernel, grid, block, {&i, &o, &c, &n, &reps});
  std::vector<uint64_t> t = clk.get();
  uint64_t lo = ~0ull, hi = 0;
  for (uint32_t k = 0; k < grid; k++) lo = std::min(lo, t[2 * k]), hi = std::max(hi, t[2 * k + 1]);
  return hi > lo ? static_cast<double>(n4) * 16.0 * reps / static_cast<double>(hi - lo) : 0.0;
}

// The smallest non-zero step of %globaltimer one thread observes in 4096 reads.
__global__ void globaltimer_step(unsigned long long *out) {
  unsigned long long prev = hwc::globaltimer(), step = ~0ull;
  for (int i = 0; i < 4096; i++) {
    unsigned long long t = hwc::globaltimer();
    if (t != prev && t - prev < step) step = t - prev;
    prev = t;
  }
  *out = step;
}

void run(micro_module &m, const options &o, int rep) {
  row("l1d_hit_latency", "cycles", chase_global(m, "chase_ca", 64, 128, 256, 2), rep);
  row("l2_hit_latency", "cycles", chase_global(m, "chase_cg", 64, 128, 256, 2), rep);
  row("dram_latency", "cycles", dram_latency(m, o.dram_mb), rep);
  row("shared_latency", "cycles", chase_shared(m, 64, 4, 256, 2), rep);
  row("const_hit_latency", "cycles", chase_const(m, 16, 64, 256, 2, false), rep);
  row("const_miss_latency", "cycles", chase_const(m, 256, 64, 256, 1, true), rep);
  row("atomic_latency", "cycles", chase_global(m, "chase_atom", 64, 128, 256, 2), rep);
  for (const char *cls : {"iadd", "iaddxor", "imad", "fadd", "ffma", "dfma", "sfu"}) {
    std::string q = std::string("alu_") + cls + "_latency";
    row(q.c_str(), "cycles", alu_chain(m, cls, 8, 2), rep);
  }
  // fences: cycles per (store, fence, add) of one thread; alu_st is the same without the fence
  for (const char *cls : {"st", "st_membar_cta", "st_membar_gl", "st_membar_sys", "st_fence_gpu", "st_syncwarp",
                          "membar_cta", "membar_gl", "membar_sys", "ld_membar_gl"}) {
    std::string q = std::string("fence_") + cls + "_cycles";
    row(q.c_str(), "cycles", alu_chain(m, cls, 8, 2), rep);
  }

  int sms = 0, threads = 0;
  HWC_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  HWC_CHECK(cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
  const gpu_shape g{static_cast<unsigned>(sms), static_cast<unsigned>(threads)};
  const uint32_t tb = std::min(threads, 1024);
  {  // shared memory: one CTA, 16 conflict-free loads per thread and iteration, 32 iterations
    hwc::dbuf<uint8_t> out(512 + tb * 4);
    uint64_t op = dptr(out.p);
    uint32_t iters = 32;
    m.launch("smem_bw", 1, tb, {&op, &iters});
    uint64_t cycles = 0;
    HWC_CHECK(cudaMemcpy(&cycles, out.p, 8, cudaMemcpyDeviceToHost));
    row("smem_bw", "B/clk/SM", cycles ? static_cast<double>(tb) * 4 * 16 * iters / cycles : 0.0, rep);
  }
  {  // L1D: one CTA re-reading a 16 KB window, 16 iterations after a warming one
    uint32_t n4 = 1024, iters = 16;
    hwc::dbuf<uint8_t> in(n4 * 16), out(512 + tb * 4);
    in.zero();
    uint64_t ip = dptr(in.p), op = dptr(out.p);
    m.launch("l1_bw", 1, tb, {&ip, &op, &n4, &iters});
    uint64_t cycles = 0;
    HWC_CHECK(cudaMemcpy(&cycles, out.p, 8, cudaMemcpyDeviceToHost));
    row("l1_bw", "B/clk/SM", cycles ? 16.0 * n4 * iters / cycles : 0.0, rep);
  }
  const uint64_t g4 = static_cast<uint64_t>(g.sms) * (g.threads_per_sm / 256) * 256 * 4;
  {  // DRAM: stream_mb of float4 reads after an L2 flush
    uint64_t n4 = std::max<uint64_t>(1, ((o.stream_mb << 20) / 16) / g4) * g4;
    hwc::dbuf<uint8_t> in(n4 * 16);
    in.zero();
    flush_l2();
    row("dram_bw", "GB/s", stream_gbs(m, "stream_ca_gt", g, n4, 1, in.p, false), rep);
  }
  {  // L2: l2_mb read with ld.global.cg once to warm, then 4 passes
    uint64_t n4 = std::max<uint64_t>(1, ((o.l2_mb << 20) / 16) / g4) * g4;
    hwc::dbuf<uint8_t> in(n4 * 16);
    in.zero();
    row("l2_bw", "GB/s", stream_gbs(m, "stream_cg_gt", g, n4, 4, in.p, true), rep);
  }
  {  // launch overhead: one empty kernel, and 16 back to back, between two events
    cudaEvent_t e0, e1;
    HWC_CHECK(cudaEventCreate(&e0));
    HWC_CHECK(cudaEventCreate(&e1));
    CUfunction empty = m.fn("empty");
    CU_CHECK(cuLaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr));  // warm
    HWC_CHECK(cudaDeviceSynchronize());
    float ms = 0;
    HWC_CHECK(cudaEventRecord(e0, 0));
    CU_CHECK(cuLaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr));
    HWC_CHECK(cudaEventRecord(e1, 0));
    HWC_CHECK(cudaEventSynchronize(e1));
    HWC_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    row("launch_single", "ns", ms * 1e6, rep);
    const int n = 16;
    HWC_CHECK(cudaEventRecord(e0, 0));
    for (int i = 0; i < n; i++) CU_CHECK(cuLaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr));
    HWC_CHECK(cudaEventRecord(e1, 0));
    HWC_CHECK(cudaEventSynchronize(e1));
    HWC_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    row("launch_back_to_back", "ns/launch", ms * 1e6 / n, rep);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
  }
  {  // the SM clock while one thread spins (MHz), and the step of %globaltimer
    hwc::dbuf<hwc::stamp> s(1);
    hwc::clock_calib<<<1, 32>>>(s.p, 200000);
    HWC_CHECK(cudaGetLastError());
    hwc::stamp st = s.get()[0];
    row("sm_clock", "MHz", st.t1 > st.t0 ? 1000.0 * static_cast<double>(st.c1 - st.c0) / (st.t1 - st.t0) : 0.0, rep);
    hwc::dbuf<unsigned long long> step(1);
    globaltimer_step<<<1, 1>>>(step.p);
    HWC_CHECK(cudaGetLastError());
    row("globaltimer_step", "ns", static_cast<double>(step.get()[0]), rep);
  }
}

std::string beside_executable(const char *argv0, const char *file) {
  std::string p = argv0;
  size_t slash = p.rfind('/');
  return (slash == std::string::npos ? std::string(".") : p.substr(0, slash)) + "/" + file;
}

}  // namespace

int main(int argc, char **argv) {
  options o;
  o.ptx = beside_executable(argv[0], "micro.ptx");
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto value = [&]() -> const char * {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "hw_micro: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "-r" || a == "--reps") o.reps = std::atoi(value());
    else if (a == "--ptx") o.ptx = value();
    else if (a == "--dram-mb") o.dram_mb = std::strtoull(value(), nullptr, 0);
    else if (a == "--stream-mb") o.stream_mb = std::strtoull(value(), nullptr, 0);
    else if (a == "--l2-mb") o.l2_mb = std::strtoull(value(), nullptr, 0);
    else {
      std::fprintf(stderr,
                   "usage: hw_micro [-r REPS] [--ptx FILE] [--dram-mb MB] [--stream-mb MB] [--l2-mb MB]   (unknown "
                   "argument '%s')\n",
                   argv[i]);
      return 2;
    }
  }
  if (o.reps < 1 || o.dram_mb == 0 || o.stream_mb == 0 || o.l2_mb == 0) {
    std::fprintf(stderr, "hw_micro: REPS and the sizes must be positive\n");
    return 2;
  }
  micro_module m(o.ptx);
  for (int rep = 0; rep < o.reps; rep++) run(m, o, rep);
  std::printf("HWC_CHECK,hw_micro,0,PASS,-\n");
  return 0;
}
