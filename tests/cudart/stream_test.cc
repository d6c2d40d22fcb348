// stream_test.cc — streams (flags, priorities, default-stream semantics, per-thread stream),
// events (timing in simulated GPU time, disabled timing, never recorded), host functions and
// stream callbacks, and each misuse.
#include <cstring>
#include <vector>

#include "cudart_test_util.h"

using namespace cudart_test;

namespace {
int *device_zeros(int n) {
  int *d = nullptr;
  EXPECT_EQ(cudaMalloc(reinterpret_cast<void **>(&d), n * 4), cudaSuccess);
  EXPECT_EQ(cudaMemset(d, 0, n * 4), cudaSuccess);
  return d;
}
}  // namespace

TEST(CudartStream, CreateQueryAndDestroyWithFlagsAndPriority) {
  cudaStream_t a, b, c;
  ASSERT_EQ(cudaStreamCreate(&a), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithPriority(&c, cudaStreamDefault, -1), cudaSuccess);
  unsigned flags = 9;
  int priority = 9;
  ASSERT_EQ(cudaStreamGetFlags(b, &flags), cudaSuccess);
  EXPECT_EQ(flags, (unsigned)cudaStreamNonBlocking);
  ASSERT_EQ(cudaStreamGetPriority(c, &priority), cudaSuccess);
  EXPECT_EQ(priority, -1);
  EXPECT_EQ(cudaStreamQuery(a), cudaSuccess);  // nothing queued
  EXPECT_EQ(cudaStreamQuery(nullptr), cudaSuccess);
  int least = 5, greatest = 5;
  ASSERT_EQ(cudaDeviceGetStreamPriorityRange(&least, &greatest), cudaSuccess);
  EXPECT_EQ(least, 0);
  EXPECT_EQ(greatest, 0);
  EXPECT_EQ(cudaStreamDestroy(a), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(b), cudaSuccess);
  EXPECT_EQ(cudaStreamDestroy(c), cudaSuccess);
}

TEST(CudartStream, MisusedStreamsAreRefused) {
  cudaStream_t s;
  EXPECT_EQ(cudaStreamCreate(nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaStreamCreateWithFlags(&s, 0x8), cudaErrorInvalidValue);
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
  std::string err = stderr_of([&] { EXPECT_EQ(cudaStreamDestroy(s), cudaErrorInvalidResourceHandle); });
  EXPECT_NE(err.find("not a live stream"), std::string::npos) << err;
  EXPECT_EQ(cudaStreamSynchronize(s), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaStreamQuery(s), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaStreamDestroy(nullptr), cudaErrorInvalidResourceHandle);  // the default stream
  EXPECT_EQ(cudaStreamDestroy(reinterpret_cast<cudaStream_t>(0x12345)), cudaErrorInvalidResourceHandle);
  cudaGetLastError();
}

TEST(CudartStream, WaitEventOrdersWorkAcrossNonBlockingStreams) {
  // Stream a: add_one twice on x, record e. Stream b (non-blocking): wait for e, copy x to y.
  // Without the wait, b's copy could see x before a's kernels; with it, y = x + 2 exactly.
  const int n = 1024;
  int *x = device_zeros(n), *y = device_zeros(n);
  cudaStream_t a, b;
  cudaEvent_t e;
  ASSERT_EQ(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("busy"), d3(1), d3(64), 0, a, y, 200), cudaSuccess);  // a is busy first
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(n / 256), d3(256), 0, a, x, n), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(n / 256), d3(256), 0, a, x, n), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(e, a), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(b, e, 0), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(y, x, n * 4, cudaMemcpyDeviceToDevice, b), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(b), cudaSuccess);
  std::vector<int> h(n);
  ASSERT_EQ(cudaMemcpy(h.data(), y, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < n; i++) ASSERT_EQ(h[i], 2) << i;
  EXPECT_EQ(cudaStreamWaitEvent(b, e, 0x4), cudaErrorInvalidValue);
  cudaGetLastError();
  cudaEventDestroy(e);
  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
  cudaFree(x);
  cudaFree(y);
}

namespace {
struct HostProbe {
  const int *pinned;
  int seen = -1;
  int calls = 0;
};
void probe(void *p) {
  HostProbe *hp = static_cast<HostProbe *>(p);
  hp->seen = hp->pinned[0];  // the copy queued before the host function has completed
  hp->calls++;
}
}  // namespace

TEST(CudartStream, HostFunctionRunsAfterEarlierWorkAndBeforeLaterWork) {
  int *pinned, *d = device_zeros(4);
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void **>(&pinned), 16), cudaSuccess);
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  int four = 4;
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(1), d3(4), 0, s, d, four), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(pinned, d, 16, cudaMemcpyDeviceToHost, s), cudaSuccess);
  HostProbe hp{pinned};
  ASSERT_EQ(cudaLaunchHostFunc(s, probe, &hp), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(1), d3(4), 0, s, d, four), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(pinned, d, 16, cudaMemcpyDeviceToHost, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(hp.calls, 1);
  EXPECT_EQ(hp.seen, 1);     // after the first kernel and copy
  EXPECT_EQ(pinned[0], 2);   // the later work ran too
  EXPECT_EQ(cudaLaunchHostFunc(s, nullptr, nullptr), cudaErrorInvalidValue);
  cudaGetLastError();
  cudaStreamDestroy(s);
  cudaFreeHost(pinned);
  cudaFree(d);
}

namespace {
struct CallbackProbe {
  cudaStream_t stream = nullptr;
  cudaError_t status = cudaErrorUnknown;
  cudaError_t nested = cudaSuccess;
  cudaError_t query = cudaErrorUnknown;
};
void callback(cudaStream_t s, cudaError_t status, void *p) {
  CallbackProbe *cp = static_cast<CallbackProbe *>(p);
  cp->stream = s;
  cp->status = status;
  void *mem = nullptr;
  cp->nested = cudaMalloc(&mem, 16);  // CUDA calls are not allowed in a callback: refused, no deadlock
  cudaPointerAttributes a;
  int local;
  cp->query = cudaPointerGetAttributes(&a, &local);  // queries that need no device still answer
}
}  // namespace

TEST(CudartStream, StreamCallbackGetsItsStreamAndCudaCallsInsideAreNotPermitted) {
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  CallbackProbe cp;
  ASSERT_EQ(cudaStreamAddCallback(s, callback, &cp, 0), cudaSuccess);
  std::string err = stderr_of([&] { ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess); });
  EXPECT_EQ(cp.stream, s);
  EXPECT_EQ(cp.status, cudaSuccess);
  EXPECT_EQ(cp.nested, cudaErrorNotPermitted);
  EXPECT_EQ(cp.query, cudaSuccess);
  EXPECT_NE(err.find("not permitted inside a stream callback"), std::string::npos) << err;
  EXPECT_EQ(cudaStreamAddCallback(s, callback, &cp, 1), cudaErrorInvalidValue);  // flags must be 0
  cudaGetLastError();
  cudaStreamDestroy(s);
}

TEST(CudartStream, PerThreadAndLegacyDefaultStreamsRunWork) {
  int *d = device_zeros(8), n = 8;
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(1), d3(8), 0, cudaStreamPerThread, d, n), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(1), d3(8), 0, cudaStreamLegacy, d, n), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(cudaStreamLegacy), cudaSuccess);
  int h[8];
  ASSERT_EQ(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(h[7], 2);
  // The _ptsz entry points: a NULL stream means the per-thread stream.
  ASSERT_EQ(cudaMemsetAsync_ptsz(d, 0, 32, nullptr), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize_ptsz(nullptr), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(h[7], 0);
  cudaFree(d);
}

TEST(CudartStream, LegacyDefaultStreamWaitsForBlockingStreams) {
  // A blocking stream's kernel, then a copy on the legacy default stream: the copy sees the result.
  const int n = 256;
  int *d = device_zeros(n), *pinned;
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void **>(&pinned), n * 4), cudaSuccess);
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  int nn = n;
  ASSERT_EQ(launch(kernels().kernel("busy"), d3(1), d3(64), 0, s, d, 300), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(1), d3(n), 0, s, d, nn), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(pinned, d, n * 4, cudaMemcpyDeviceToHost, nullptr), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  EXPECT_EQ(pinned[n - 1], 1);
  cudaStreamDestroy(s);
  cudaFreeHost(pinned);
  cudaFree(d);
}

TEST(CudartEvent, ElapsedTimeIsSimulatedGpuTime) {
  cudaEvent_t start, stop;
  ASSERT_EQ(cudaEventCreate(&start), cudaSuccess);
  ASSERT_EQ(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync), cudaSuccess);
  int *d = device_zeros(1 << 16);
  ASSERT_EQ(cudaEventRecord(start, nullptr), cudaSuccess);
  ASSERT_EQ(cudaMemset(d, 1, 1 << 18), cudaSuccess);  // a 256 KiB memset takes copy-engine time
  ASSERT_EQ(cudaEventRecord(stop, nullptr), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(stop), cudaSuccess);
  EXPECT_EQ(cudaEventQuery(stop), cudaSuccess);
  float ms = -1, back = 1;
  ASSERT_EQ(cudaEventElapsedTime(&ms, start, stop), cudaSuccess);
  EXPECT_GT(ms, 0.0f);
  EXPECT_LT(ms, 100.0f);
  ASSERT_EQ(cudaEventElapsedTime(&back, stop, start), cudaSuccess);  // out of order: negative
  EXPECT_EQ(back, -ms);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(d);
}

TEST(CudartEvent, TimingDisabledOrNeverRecordedEventsHaveNoElapsedTime) {
  cudaEvent_t a, b, c;
  ASSERT_EQ(cudaEventCreateWithFlags(&a, cudaEventDisableTiming), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&b), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&c), cudaSuccess);
  EXPECT_EQ(cudaEventQuery(c), cudaSuccess);        // never recorded: complete
  EXPECT_EQ(cudaEventSynchronize(c), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(a, nullptr), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(b, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  float ms;
  std::string err = stderr_of([&] { EXPECT_EQ(cudaEventElapsedTime(&ms, a, b), cudaErrorInvalidResourceHandle); });
  EXPECT_NE(err.find("timing disabled"), std::string::npos) << err;
  err = stderr_of([&] { EXPECT_EQ(cudaEventElapsedTime(&ms, b, c), cudaErrorInvalidResourceHandle); });
  EXPECT_NE(err.find("never recorded"), std::string::npos) << err;
  EXPECT_EQ(cudaEventElapsedTime(nullptr, b, b), cudaErrorInvalidValue);
  cudaGetLastError();
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaEventDestroy(c);
}

TEST(CudartEvent, MisusedEventsAreRefused) {
  cudaEvent_t e;
  EXPECT_EQ(cudaEventCreate(nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaEventCreateWithFlags(&e, 0x10), cudaErrorInvalidValue);
  EXPECT_EQ(cudaEventCreateWithFlags(&e, cudaEventInterprocess), cudaErrorInvalidValue);  // needs DisableTiming
  ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
  ASSERT_EQ(cudaEventDestroy(e), cudaSuccess);
  EXPECT_EQ(cudaEventDestroy(e), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventRecord(e, nullptr), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventQuery(e), cudaErrorInvalidResourceHandle);
  EXPECT_EQ(cudaEventSynchronize(e), cudaErrorInvalidResourceHandle);
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  EXPECT_EQ(cudaStreamWaitEvent(s, e, 0), cudaErrorInvalidResourceHandle);
  cudaGetLastError();
  cudaStreamDestroy(s);
}
