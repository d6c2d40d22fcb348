// launch_timer — an LD_PRELOAD library that times every kernel launch of an unmodified CUDA
// program (the tests/kernels programs, which print no timings of their own) with a cudaEvent pair
// on the launch's stream, on a real GPU or on simtvp alike.
//
// It interposes the entry points nvcc 13's host stubs call (__cudaRegisterFunction to learn kernel
// names, __cudaGetKernel, __cudaLaunchKernel[_ptsz]) and the public cudaLaunchKernel[_ptsz]; each
// forwards to the next definition (the program's libcudart.so.13). After each launch it records
// the end event, waits for it (launches are serialised, so every kernel is timed alone) and
// appends a line in hwcorr.cuh's format, with only event_ns measured:
//   HWC,program,kernel,size,launch,rep,ctas,block,event_ns,0,0,0,0
// to the file named by HWCORR_OUT (stdout if unset). program = HWCORR_PROGRAM (default: the
// executable's name), size = HWCORR_SIZE (default "-"), rep = HWCORR_REP (default 0); `launch`
// counts the launches of one kernel in the process. Launches during stream capture are forwarded
// untimed. Launches through other entry points (cudaLaunchKernelExC, cooperative launches, the
// driver API) are not timed.
//
// Built by run_hw.sh (and bench/hwcorr/CMakeLists.txt) with the version script launch_timer.map,
// which gives the definitions the libcudart.so.13 version programs ask for.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

namespace {

struct state {
  std::mutex lock;
  std::map<const void *, std::string> names;       // host stub -> device name
  std::map<const void *, const void *> kernel_stub;  // cudaKernel_t -> host stub
  std::map<std::string, int> launches;              // kernel -> launches so far
  FILE *out = nullptr;
  std::string program, size, rep;
  bool busy = false;  // inside our own runtime calls: forward without timing
};

state &st() {
  static state *s = [] {
    state *n = new state;  // never destroyed: launches may come from other static destructors
    const char *p = std::getenv("HWCORR_PROGRAM");
    if (p && *p) {
      n->program = p;
    } else {
      char exe[4096] = {0};
      ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
      std::string e = k > 0 ? std::string(exe, static_cast<size_t>(k)) : "program";
      n->program = e.substr(e.rfind('/') + 1);
    }
    const char *sz = std::getenv("HWCORR_SIZE");
    n->size = sz && *sz ? sz : "-";
    const char *r = std::getenv("HWCORR_REP");
    n->rep = r && *r ? r : "0";
    const char *o = std::getenv("HWCORR_OUT");
    n->out = o && *o ? std::fopen(o, "a") : stdout;
    if (!n->out) {
      std::fprintf(stderr, "launch_timer: cannot open HWCORR_OUT=%s\n", o);
      n->out = stderr;
    }
    return n;
  }();
  return *s;
}

template <class F>
F next(const char *name) {
  void *f = dlsym(RTLD_NEXT, name);
  if (!f) {
    std::fprintf(stderr, "launch_timer: %s not found after the preload (is the program linked with -cudart shared?)\n",
                 name);
    std::abort();
  }
  return reinterpret_cast<F>(f);
}

std::string name_of_stub(const void *stub) {
  state &s = st();
  std::lock_guard<std::mutex> g(s.lock);
  auto it = s.names.find(stub);
  if (it != s.names.end()) return it->second;
  char buf[32];
  std::snprintf(buf, sizeof buf, "kernel@%p", stub);
  return buf;
}

std::string name_of_kernel(const void *kernel) {
  const void *stub = nullptr;
  {
    state &s = st();
    std::lock_guard<std::mutex> g(s.lock);
    auto it = s.kernel_stub.find(kernel);
    if (it != s.kernel_stub.end()) stub = it->second;
  }
  return stub ? name_of_stub(stub) : name_of_stub(kernel);
}

// Runs launch() between two events on `stream` and writes the line; forwards untimed when the
// stream is capturing or the events cannot be made.
template <class L>
cudaError_t timed(const std::string &kernel, dim3 grid, dim3 block, cudaStream_t stream, L &&launch) {
  state &s = st();
  cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
  if (s.busy || cudaStreamIsCapturing(stream, &capturing) != cudaSuccess || capturing != cudaStreamCaptureStatusNone)
    return launch();
  s.busy = true;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) {
    s.busy = false;
    return launch();
  }
  cudaEventRecord(e0, stream);
  cudaError_t r = launch();
  float ms = -1;
  if (r == cudaSuccess && cudaEventRecord(e1, stream) == cudaSuccess && cudaEventSynchronize(e1) == cudaSuccess)
    cudaEventElapsedTime(&ms, e0, e1);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  s.busy = false;
  if (r != cudaSuccess || ms < 0) return r;
  std::lock_guard<std::mutex> g(s.lock);
  int seq = s.launches[kernel]++;
  unsigned long long ctas = 1ull * grid.x * grid.y * grid.z;
  std::fprintf(s.out, "HWC,%s,%s,%s,%d,%s,%llu,%u,%.0f,0,0,0,0\n", s.program.c_str(), kernel.c_str(), s.size.c_str(), seq,
               s.rep.c_str(), ctas, block.x * block.y * block.z, static_cast<double>(ms) * 1e6);
  std::fflush(s.out);
  return r;
}

}  // namespace

extern "C" {

void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize) {
  using fn = void (*)(void **, const char *, char *, const char *, int, uint3 *, uint3 *, dim3 *, dim3 *, int *);
  static fn real = next<fn>("__cudaRegisterFunction");
  {
    state &s = st();
    std::lock_guard<std::mutex> g(s.lock);
    s.names[hostFun] = deviceName ? deviceName : (deviceFun ? deviceFun : "?");
  }
  real(fatCubinHandle, hostFun, deviceFun, deviceName, thread_limit, tid, bid, bDim, gDim, wSize);
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun) {
  using fn = cudaError_t (*)(cudaKernel_t *, const void *);
  static fn real = next<fn>("__cudaGetKernel");
  cudaError_t r = real(kernel, hostFun);
  if (r == cudaSuccess && kernel) {
    state &s = st();
    std::lock_guard<std::mutex> g(s.lock);
    s.kernel_stub[reinterpret_cast<const void *>(*kernel)] = hostFun;
  }
  return r;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t shmem, cudaStream_t stream) {
  using fn = cudaError_t (*)(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);
  static fn real = next<fn>("__cudaLaunchKernel");
  return timed(name_of_kernel(reinterpret_cast<const void *>(kernel)), grid, block, stream,
               [&] { return real(kernel, grid, block, args, shmem, stream); });
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t shmem,
                                    cudaStream_t stream) {
  using fn = cudaError_t (*)(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);
  static fn real = next<fn>("__cudaLaunchKernel_ptsz");
  return timed(name_of_kernel(reinterpret_cast<const void *>(kernel)), grid, block, stream,
               [&] { return real(kernel, grid, block, args, shmem, stream); });
}

cudaError_t cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t shmem, cudaStream_t stream) {
  using fn = cudaError_t (*)(const void *, dim3, dim3, void **, size_t, cudaStream_t);
  static fn real = next<fn>("cudaLaunchKernel");
  return timed(name_of_stub(func), grid, block, stream, [&] { return real(func, grid, block, args, shmem, stream); });
}

cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 grid, dim3 block, void **args, size_t shmem,
                                  cudaStream_t stream) {
  using fn = cudaError_t (*)(const void *, dim3, dim3, void **, size_t, cudaStream_t);
  static fn real = next<fn>("cudaLaunchKernel_ptsz");
  return timed(name_of_stub(func), grid, block, stream, [&] { return real(func, grid, block, args, shmem, stream); });
}

}  // extern "C"
