// graphs — CUDA graphs, built both ways and run several times:
//   capture: a stream capture (global mode) that forks into a second stream through an event and
//            joins back: copy in from pageable memory, y = a*x + y, z = 2z on the fork, y += z,
//            copy out to pageable memory, a host function counting runs; cudaStreamIsCapturing and
//            cudaStreamGetCaptureInfo while capturing; launched 3 times with new input each time;
//   explicit: memset, kernel, child graph (kernel + empty), event record and memcpy nodes with a
//            diamond of dependencies; re-parameterised in the instance (cudaGraphExecKernelNodeSetParams)
//            and through cudaGraphExecUpdate from a changed clone; a disabled node;
//   errors:  cudaMalloc and cudaStreamSynchronize during a capture are
//            cudaErrorStreamCaptureUnsupported and invalidate it (cudaErrorStreamCaptureInvalidated
//            at the end); an unjoined fork is cudaErrorStreamCaptureUnjoined.
// Usage: graphs [n=2048]
#include "kernel_check.cuh"

__global__ void axpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void scale(float *v, float f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] *= f;
}

__global__ void add(float *y, const float *z, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += z[i];
}

__global__ void fill(int *v, int k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += i * k;
}

static void CUDART_CB count_run(void *counter) { ++*static_cast<int *>(counter); }

#define EXPECT_ERROR(call, want)                                                                   \
  do {                                                                                             \
    cudaError_t got_ = (call);                                                                     \
    if (got_ != (want)) {                                                                          \
      std::fprintf(stderr, "%s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__, #call,     \
                   cudaGetErrorName(got_), cudaGetErrorName(want));                                \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

// Part 1: stream capture with a fork and a join, launched `runs` times.
static int captured_graph(int n, int *mismatch) {
  const size_t bytes = n * sizeof(float);
  const int threads = 128, blocks = (n + threads - 1) / threads;
  float *hx = new float[n], *hy = new float[n], *hz = new float[n], *out = new float[n];
  float *dx, *dy, *dz;
  CHECK_CUDA(cudaMalloc(&dx, bytes));
  CHECK_CUDA(cudaMalloc(&dy, bytes));
  CHECK_CUDA(cudaMalloc(&dz, bytes));
  cudaStream_t s, fork;
  CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&fork, cudaStreamNonBlocking));
  cudaEvent_t forked, joined;
  CHECK_CUDA(cudaEventCreateWithFlags(&forked, cudaEventDisableTiming));
  CHECK_CUDA(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));
  int runs_seen = 0;

  CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus status;
  CHECK_CUDA(cudaStreamIsCapturing(s, &status));
  if (status != cudaStreamCaptureStatusActive) return ++*mismatch, 0;
  CHECK_CUDA(cudaMemcpyAsync(dx, hx, bytes, cudaMemcpyHostToDevice, s));
  CHECK_CUDA(cudaMemcpyAsync(dy, hy, bytes, cudaMemcpyHostToDevice, s));
  CHECK_CUDA(cudaMemcpyAsync(dz, hz, bytes, cudaMemcpyHostToDevice, s));
  CHECK_CUDA(cudaEventRecord(forked, s));
  CHECK_CUDA(cudaStreamWaitEvent(fork, forked, 0));  // fork joins the capture
  CHECK_CUDA(cudaStreamIsCapturing(fork, &status));
  if (status != cudaStreamCaptureStatusActive) return ++*mismatch, 0;
  axpy<<<blocks, threads, 0, s>>>(dy, dx, 3.0f, n);
  scale<<<blocks, threads, 0, fork>>>(dz, 2.0f, n);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaEventRecord(joined, fork));
  CHECK_CUDA(cudaStreamWaitEvent(s, joined, 0));  // join back
  unsigned long long id = 0;
  const cudaGraphNode_t *deps = nullptr;
  size_t ndeps = 0;
  cudaGraph_t capturing = nullptr;
  CHECK_CUDA(cudaStreamGetCaptureInfo(s, &status, &id, &capturing, &deps, nullptr, &ndeps));
  if (status != cudaStreamCaptureStatusActive || ndeps != 2 || !capturing) return ++*mismatch, 0;
  add<<<blocks, threads, 0, s>>>(dy, dz, n);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaMemcpyAsync(out, dy, bytes, cudaMemcpyDeviceToHost, s));
  CHECK_CUDA(cudaLaunchHostFunc(s, count_run, &runs_seen));
  cudaGraph_t graph;
  CHECK_CUDA(cudaStreamEndCapture(s, &graph));
  CHECK_CUDA(cudaStreamIsCapturing(s, &status));
  if (status != cudaStreamCaptureStatusNone) return ++*mismatch, 0;
  size_t nodes = 0;
  CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
  if (nodes != 8) {  // 3 copies in, 3 kernels, copy out, host function
    std::fprintf(stderr, "captured graph has %zu nodes, expected 8\n", nodes);
    return ++*mismatch, 0;
  }
  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));

  const int runs = 3;
  for (int r = 0; r < runs; r++) {
    // New input before every launch: the graph reads the pageable buffers when it runs.
    for (int i = 0; i < n; i++) {
      hx[i] = (float)((i + r) % 17);
      hy[i] = (float)((i * 3 + r) % 11);
      hz[i] = (float)((i * 7 + r) % 5);
    }
    CHECK_CUDA(cudaGraphLaunch(exec, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    for (int i = 0; i < n; i++) {
      float want = 3.0f * hx[i] + hy[i] + 2.0f * hz[i];
      if (out[i] != want) {
        if (!*mismatch)
          std::fprintf(stderr, "capture run %d: out[%d] = %g, expected %g\n", r, i, out[i], want);
        ++*mismatch;
      }
    }
  }
  if (runs_seen != runs) {
    std::fprintf(stderr, "the captured host function ran %d times, expected %d\n", runs_seen, runs);
    ++*mismatch;
  }
  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(graph));
  CHECK_CUDA(cudaEventDestroy(forked));
  CHECK_CUDA(cudaEventDestroy(joined));
  CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_CUDA(cudaStreamDestroy(fork));
  CHECK_CUDA(cudaFree(dx));
  CHECK_CUDA(cudaFree(dy));
  CHECK_CUDA(cudaFree(dz));
  delete[] hx;
  delete[] hy;
  delete[] hz;
  delete[] out;
  return runs;
}

// Part 2: an explicit graph: memset -> fill(k) -> {child: fill(1) -> empty, event record} -> memcpy.
static int explicit_graph(int n, int *mismatch) {
  const size_t bytes = n * sizeof(int);
  const int threads = 128, blocks = (n + threads - 1) / threads;
  int *dv, *host;
  CHECK_CUDA(cudaMalloc(&dv, bytes));
  CHECK_CUDA(cudaMallocHost(&host, bytes));
  cudaEvent_t done;
  CHECK_CUDA(cudaEventCreate(&done));

  cudaGraph_t g, child;
  CHECK_CUDA(cudaGraphCreate(&g, 0));
  CHECK_CUDA(cudaGraphCreate(&child, 0));
  cudaMemsetParams ms = {};
  ms.dst = dv;
  ms.value = 0;
  ms.elementSize = 4;
  ms.width = n;
  ms.height = 1;
  cudaGraphNode_t memset_node, fill_node, child_node, record_node, copy_node, c_fill, c_empty;
  CHECK_CUDA(cudaGraphAddMemsetNode(&memset_node, g, nullptr, 0, &ms));
  int k = 5, nn = n, one = 1;
  void *fill_args[] = {&dv, &k, &nn};
  cudaKernelNodeParams kp = {};
  kp.func = (void *)fill;
  kp.gridDim = dim3(blocks);
  kp.blockDim = dim3(threads);
  kp.kernelParams = fill_args;
  CHECK_CUDA(cudaGraphAddKernelNode(&fill_node, g, &memset_node, 1, &kp));
  void *child_args[] = {&dv, &one, &nn};
  cudaKernelNodeParams ckp = kp;
  ckp.kernelParams = child_args;
  CHECK_CUDA(cudaGraphAddKernelNode(&c_fill, child, nullptr, 0, &ckp));
  CHECK_CUDA(cudaGraphAddEmptyNode(&c_empty, child, &c_fill, 1));
  CHECK_CUDA(cudaGraphAddChildGraphNode(&child_node, g, &fill_node, 1, child));
  CHECK_CUDA(cudaGraphAddEventRecordNode(&record_node, g, &fill_node, 1, done));
  cudaGraphNode_t before_copy[] = {child_node, record_node};
  CHECK_CUDA(cudaGraphAddMemcpyNode1D(&copy_node, g, before_copy, 2, host, dv, bytes, cudaMemcpyDeviceToHost));

  size_t roots = 0, edges = 0;
  CHECK_CUDA(cudaGraphGetRootNodes(g, nullptr, &roots));
  CHECK_CUDA(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges));
  if (roots != 1 || edges != 5) {
    std::fprintf(stderr, "explicit graph: %zu roots, %zu edges (expected 1 and 5)\n", roots, edges);
    return ++*mismatch, 0;
  }

  cudaGraphExec_t exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec, g, 0));
  int launches = 0;
  auto check = [&](int kk, const char *what) {
    for (int i = 0; i < n; i++)
      if (host[i] != i * kk + i) {
        if (!*mismatch) std::fprintf(stderr, "%s: v[%d] = %d, expected %d\n", what, i, host[i], i * kk + i);
        ++*mismatch;
      }
  };
  CHECK_CUDA(cudaGraphLaunch(exec, 0));
  CHECK_CUDA(cudaEventSynchronize(done));
  CHECK_CUDA(cudaDeviceSynchronize());
  check(5, "first launch");
  launches++;

  // The instance's kernel gets k = 9; the graph itself keeps k = 5.
  int k9 = 9;
  void *args9[] = {&dv, &k9, &nn};
  cudaKernelNodeParams kp9 = kp;
  kp9.kernelParams = args9;
  CHECK_CUDA(cudaGraphExecKernelNodeSetParams(exec, fill_node, &kp9));
  CHECK_CUDA(cudaGraphLaunch(exec, 0));
  CHECK_CUDA(cudaDeviceSynchronize());
  check(9, "after cudaGraphExecKernelNodeSetParams");
  launches++;
  cudaKernelNodeParams read = {};
  CHECK_CUDA(cudaGraphKernelNodeGetParams(fill_node, &read));
  if (*static_cast<int *>(read.kernelParams[1]) != 5) {
    std::fprintf(stderr, "the graph's own kernel node changed with its instance\n");
    ++*mismatch;
  }

  // A clone with k = 3, pushed into the instance by cudaGraphExecUpdate.
  cudaGraph_t clone;
  CHECK_CUDA(cudaGraphClone(&clone, g));
  cudaGraphNode_t clone_fill;
  CHECK_CUDA(cudaGraphNodeFindInClone(&clone_fill, fill_node, clone));
  int k3 = 3;
  void *args3[] = {&dv, &k3, &nn};
  cudaKernelNodeParams kp3 = kp;
  kp3.kernelParams = args3;
  CHECK_CUDA(cudaGraphKernelNodeSetParams(clone_fill, &kp3));
  cudaGraphExecUpdateResultInfo info;
  CHECK_CUDA(cudaGraphExecUpdate(exec, clone, &info));
  CHECK_CUDA(cudaGraphLaunch(exec, 0));
  CHECK_CUDA(cudaDeviceSynchronize());
  check(3, "after cudaGraphExecUpdate");
  launches++;

  // A clone with another shape cannot update the instance.
  cudaGraphNode_t extra;
  CHECK_CUDA(cudaGraphAddEmptyNode(&extra, clone, nullptr, 0));
  cudaError_t e = cudaGraphExecUpdate(exec, clone, &info);
  if (e != cudaErrorGraphExecUpdateFailure || info.result != cudaGraphExecUpdateErrorTopologyChanged) {
    std::fprintf(stderr, "a topology change updated the instance (%s, result %d)\n", cudaGetErrorName(e),
                 (int)info.result);
    ++*mismatch;
  }
  cudaGetLastError();

  // The memset disabled: fill adds to what the last launch left (i*3 + i), plus i*3 again.
  CHECK_CUDA(cudaGraphNodeSetEnabled(exec, memset_node, 0));
  CHECK_CUDA(cudaGraphLaunch(exec, 0));
  CHECK_CUDA(cudaDeviceSynchronize());
  for (int i = 0; i < n; i++)
    if (host[i] != 2 * (i * 3 + i)) {
      if (!*mismatch) std::fprintf(stderr, "disabled memset: v[%d] = %d, expected %d\n", i, host[i], 2 * (i * 3 + i));
      ++*mismatch;
    }
  launches++;

  CHECK_CUDA(cudaGraphExecDestroy(exec));
  CHECK_CUDA(cudaGraphDestroy(clone));
  CHECK_CUDA(cudaGraphDestroy(child));
  CHECK_CUDA(cudaGraphDestroy(g));
  CHECK_CUDA(cudaEventDestroy(done));
  CHECK_CUDA(cudaFree(dv));
  CHECK_CUDA(cudaFreeHost(host));
  return launches;
}

// Part 3: what a capture refuses.
static int capture_errors() {
  cudaStream_t s, other;
  CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK_CUDA(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
  float *d;
  cudaGraph_t g;
  CHECK_CUDA(cudaMalloc(&d, 256));

  CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK_CUDA(cudaMemsetAsync(d, 0, 256, s));
  void *p = nullptr;
  EXPECT_ERROR(cudaMalloc(&p, 256), cudaErrorStreamCaptureUnsupported);
  EXPECT_ERROR(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
  if (g != nullptr) return 1;
  cudaGetLastError();

  CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  EXPECT_ERROR(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported);
  EXPECT_ERROR(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
  cudaGetLastError();

  // A relaxed capture lets this thread allocate.
  CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
  CHECK_CUDA(cudaMalloc(&p, 256));
  CHECK_CUDA(cudaStreamEndCapture(s, &g));
  CHECK_CUDA(cudaGraphDestroy(g));
  CHECK_CUDA(cudaFree(p));

  cudaEvent_t e;
  CHECK_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK_CUDA(cudaEventRecord(e, s));
  CHECK_CUDA(cudaStreamWaitEvent(other, e, 0));
  CHECK_CUDA(cudaMemsetAsync(d, 1, 256, other));  // forked, never joined
  EXPECT_ERROR(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureUnjoined);
  cudaGetLastError();

  CHECK_CUDA(cudaEventDestroy(e));
  CHECK_CUDA(cudaFree(d));
  CHECK_CUDA(cudaStreamDestroy(s));
  CHECK_CUDA(cudaStreamDestroy(other));
  return 0;
}

int main(int argc, char **argv) {
  const int n = arg_int(argc, argv, 1, 2048);
  int mismatch = 0;
  int captured = captured_graph(n, &mismatch);
  int explicit_launches = explicit_graph(n, &mismatch);
  if (capture_errors() != 0) return verdict("graphs", false, "a capture error path behaved differently");
  return verdict("graphs", mismatch == 0, "n=%d, captured graph x%d, explicit graph x%d (set params, update, "
                 "disabled node), capture errors", n, captured, explicit_launches);
}
