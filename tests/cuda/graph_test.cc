// graph_test.cc — CUDA graphs and stream capture in libcuda.so.1: the driver API's structures
// (CUDA_KERNEL_NODE_PARAMS v1/v2, CUDA_MEMCPY3D, CUDA_MEMSET_NODE_PARAMS, CUgraphNodeParams) and
// the older signatures kept beside the _v2/_v3 ones (cuGraphInstantiate with a log buffer,
// cuGraphExecUpdate with separate results, cuStreamGetCaptureInfo v1/v2/v3, cuStreamBeginCapture
// without a mode). The semantics are the core's, tested through the runtime in tests/cudart.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cu_core.h"
#include "cuda_api.h"

namespace {

struct Environment {
  Environment() {
    setenv("SIMTVP_CONFIG", SIMTVP_SOURCE_DIR "/configs/SM75_RTX2060.config", 0);
    setenv("SIMTVP_QUIET", "1", 0);
  }
} environment;

std::vector<char> read_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> v((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  v.push_back(0);
  return v;
}

// cuda.h's layouts.
struct KernelNodeParams {
  CUfunction func;
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
  void **kernelParams;
  void **extra;
  CUkernel kern;
  CUcontext ctx;
};
struct MemsetNodeParams {
  CUdeviceptr dst;
  size_t pitch;
  unsigned value, elementSize;
  size_t width, height;
};
struct Memcpy3D {
  size_t srcXInBytes, srcY, srcZ, srcLOD;
  int srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  void *reserved0;
  size_t srcPitch, srcHeight;
  size_t dstXInBytes, dstY, dstZ, dstLOD;
  int dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  void *reserved1;
  size_t dstPitch, dstHeight;
  size_t WidthInBytes, Height, Depth;
};
struct GraphNodeParams {
  int type;
  int reserved0[3];
  union {
    long long reserved1[29];
    KernelNodeParams kernel;
    MemsetNodeParams memset;
  };
  long long reserved2;
};
struct UpdateResultInfo {
  int result;
  CUgraphNode errorNode, errorFromNode;
};

class CudaGraph : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate_v2(&ctx, 0, 0), CUDA_SUCCESS);
    ptx = read_file(SIMTVP_SOURCE_DIR "/tests/cudart/fixtures/cudart_test_kernels.ptx");
    ASSERT_EQ(cuModuleLoadData(&mod, ptx.data()), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleGetFunction(&add_one, mod, "add_one"), CUDA_SUCCESS);
    ASSERT_EQ(cuMemAlloc_v2(&d, n * 4), CUDA_SUCCESS);
    ASSERT_EQ(cuMemsetD32_v2(d, 0, n), CUDA_SUCCESS);
  }
  void TearDown() override {
    cuMemFree_v2(d);
    cuModuleUnload(mod);
    cuCtxDestroy_v2(ctx);
  }
  KernelNodeParams kernel_params() {
    args[0] = &d;
    args[1] = &nn;
    KernelNodeParams k;
    std::memset(&k, 0, sizeof k);
    k.func = add_one;
    k.gridDimX = k.gridDimY = k.gridDimZ = 1;
    k.blockDimX = n;
    k.blockDimY = k.blockDimZ = 1;
    k.kernelParams = args;
    return k;
  }
  std::vector<int> values() {
    std::vector<int> h(n, -1);
    EXPECT_EQ(cuMemcpyDtoH_v2(h.data(), d, n * 4), CUDA_SUCCESS);
    return h;
  }
  static constexpr int n = 16;
  int nn = n;
  void *args[2];
  CUcontext ctx = nullptr;
  CUmodule mod = nullptr;
  CUfunction add_one = nullptr;
  CUdeviceptr d = 0;
  std::vector<char> ptx;
};

}  // namespace

TEST_F(CudaGraph, NodesOfEveryDriverStructureRun) {
  CUgraph g;
  ASSERT_EQ(cuGraphCreate(&g, 0), CUDA_SUCCESS);
  MemsetNodeParams ms = {d, 0, 3, 4, (size_t)n, 1};
  CUgraphNode set, k1, k2, copy;
  ASSERT_EQ(cuGraphAddMemsetNode(&set, g, nullptr, 0, &ms, ctx), CUDA_SUCCESS);
  KernelNodeParams kp = kernel_params();
  ASSERT_EQ(cuGraphAddKernelNode(&k1, g, &set, 1, &kp), CUDA_SUCCESS);     // v1 structure
  ASSERT_EQ(cuGraphAddKernelNode_v2(&k2, g, &k1, 1, &kp), CUDA_SUCCESS);  // v2 structure
  std::vector<int> host(n, 0);
  Memcpy3D c;
  std::memset(&c, 0, sizeof c);
  c.srcMemoryType = 2;  // device
  c.srcDevice = d;
  c.dstMemoryType = 1;  // host
  c.dstHost = host.data();
  c.WidthInBytes = n * 4;
  c.Height = c.Depth = 1;
  ASSERT_EQ(cuGraphAddMemcpyNode(&copy, g, &k2, 1, &c, ctx), CUDA_SUCCESS);
  CUgraphExec x = nullptr;
  CUgraphNode bad = nullptr;
  char log[64] = "stale";
  ASSERT_EQ(cuGraphInstantiate(&x, g, &bad, log, sizeof log), CUDA_SUCCESS);  // CUDA 11's form
  EXPECT_STREQ(log, "");
  ASSERT_EQ(cuGraphLaunch(x, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(nullptr), CUDA_SUCCESS);
  EXPECT_EQ(host[0], 5);
  EXPECT_EQ(host[n - 1], 5);

  KernelNodeParams back;
  std::memset(&back, 0, sizeof back);
  ASSERT_EQ(cuGraphKernelNodeGetParams_v2(k2, &back), CUDA_SUCCESS);
  EXPECT_EQ(back.func, add_one);
  EXPECT_EQ(back.blockDimX, (unsigned)n);
  EXPECT_EQ(*static_cast<int *>(back.kernelParams[1]), n);
  EXPECT_EQ(back.ctx, ctx);
  Memcpy3D cback;
  ASSERT_EQ(cuGraphMemcpyNodeGetParams(copy, &cback), CUDA_SUCCESS);
  EXPECT_EQ(cback.dstHost, host.data());
  EXPECT_EQ(cback.srcDevice, d);
  EXPECT_EQ(cback.dstMemoryType, 1);
  MemsetNodeParams mback;
  ASSERT_EQ(cuGraphMemsetNodeGetParams(set, &mback), CUDA_SUCCESS);
  EXPECT_EQ(mback.value, 3u);
  int type = -1;
  ASSERT_EQ(cuGraphNodeGetType(copy, &type), CUDA_SUCCESS);
  EXPECT_EQ(type, 1);  // CU_GRAPH_NODE_TYPE_MEMCPY

  // The copy's memory types are checked: a host address given as device memory is refused.
  c.srcMemoryType = 1;
  c.srcHost = host.data();
  c.dstMemoryType = 2;
  c.dstDevice = reinterpret_cast<CUdeviceptr>(host.data());
  EXPECT_EQ(cuGraphAddMemcpyNode(&copy, g, nullptr, 0, &c, ctx), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuGraphExecDestroy(x), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphDestroy(g), CUDA_SUCCESS);
}

TEST_F(CudaGraph, GenericNodeParametersAndEdgeForms) {
  CUgraph g;
  ASSERT_EQ(cuGraphCreate(&g, 0), CUDA_SUCCESS);
  GraphNodeParams p;
  std::memset(&p, 0, sizeof p);
  p.type = 2;  // memset
  p.memset = MemsetNodeParams{d, 0, 9, 4, (size_t)n, 1};
  CUgraphNode set, k;
  ASSERT_EQ(cuGraphAddNode(&set, g, nullptr, 0, &p), CUDA_SUCCESS);
  std::memset(&p, 0, sizeof p);
  p.type = 0;  // kernel
  p.kernel = kernel_params();
  unsigned char edge[8] = {};
  ASSERT_EQ(cuGraphAddNode_v2(&k, g, &set, edge, 1, &p), CUDA_SUCCESS);
  edge[2] = 1;  // a programmatic edge
  CUgraphNode other;
  EXPECT_EQ(cuGraphAddNode_v2(&other, g, &set, edge, 1, &p), CUDA_ERROR_NOT_SUPPORTED);
  CUgraphNode from[1], to[1];
  size_t count = 1;
  ASSERT_EQ(cuGraphGetEdges(g, from, to, &count), CUDA_SUCCESS);  // v1: no edge data
  EXPECT_EQ(count, 1u);
  EXPECT_EQ(from[0], set);
  EXPECT_EQ(to[0], k);
  unsigned char data[8];
  std::memset(data, 0xff, sizeof data);
  count = 1;
  ASSERT_EQ(cuGraphGetEdges_v2(g, from, to, data, &count), CUDA_SUCCESS);
  EXPECT_EQ(data[0], 0);
  ASSERT_EQ(cuGraphRemoveDependencies(g, &set, &k, 1), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphAddDependencies_v2(g, &set, &k, nullptr, 1), CUDA_SUCCESS);
  CUgraphNode deps[2];
  count = 2;
  ASSERT_EQ(cuGraphNodeGetDependencies(k, deps, &count), CUDA_SUCCESS);
  EXPECT_EQ(count, 1u);
  CUgraphExec x;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&x, g, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(x, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(values()[0], 10);
  p.type = 10;  // memory allocation node
  EXPECT_EQ(cuGraphAddNode(&other, g, nullptr, 0, &p), CUDA_ERROR_NOT_SUPPORTED);
  cuGraphExecDestroy(x);
  cuGraphDestroy(g);
}

TEST_F(CudaGraph, ExecUpdateInBothForms) {
  CUgraph g, same, changed;
  ASSERT_EQ(cuGraphCreate(&g, 0), CUDA_SUCCESS);
  KernelNodeParams kp = kernel_params();
  CUgraphNode k;
  ASSERT_EQ(cuGraphAddKernelNode_v2(&k, g, nullptr, 0, &kp), CUDA_SUCCESS);
  CUgraphExec x;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&x, g, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphClone(&same, g), CUDA_SUCCESS);
  UpdateResultInfo info = {-1, nullptr, nullptr};
  ASSERT_EQ(cuGraphExecUpdate_v2(x, same, &info), CUDA_SUCCESS);
  EXPECT_EQ(info.result, 0);
  ASSERT_EQ(cuGraphCreate(&changed, 0), CUDA_SUCCESS);
  CUgraphNode e;
  ASSERT_EQ(cuGraphAddEmptyNode(&e, changed, nullptr, 0), CUDA_SUCCESS);
  CUgraphNode error_node = nullptr;
  int result = 0;
  EXPECT_EQ(cuGraphExecUpdate(x, changed, &error_node, &result), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);  // 10.2 form
  EXPECT_EQ(result, 3);  // CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED
  EXPECT_EQ(error_node, e);
  // The instance's own parameters, in the v1 structure.
  CUdeviceptr other = 0;
  ASSERT_EQ(cuMemAlloc_v2(&other, n * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32_v2(other, 7, n), CUDA_SUCCESS);
  args[0] = &other;
  ASSERT_EQ(cuGraphExecKernelNodeSetParams(x, k, &kp), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(x, nullptr), CUDA_SUCCESS);
  int h = 0;
  ASSERT_EQ(cuMemcpyDtoH_v2(&h, other, 4), CUDA_SUCCESS);
  EXPECT_EQ(h, 8);
  EXPECT_EQ(values()[0], 0);
  unsigned enabled = 9;
  ASSERT_EQ(cuGraphNodeGetEnabled(x, k, &enabled), CUDA_SUCCESS);
  EXPECT_EQ(enabled, 1u);
  cuMemFree_v2(other);
  cuGraphExecDestroy(x);
  for (CUgraph gg : {g, same, changed}) cuGraphDestroy(gg);
}

TEST_F(CudaGraph, CaptureThroughEveryDriverForm) {
  CUstream s;
  ASSERT_EQ(cuStreamCreate(&s, 0), CUDA_SUCCESS);  // blocking: the legacy stream waits for it
  ASSERT_EQ(cuStreamBeginCapture(s), CUDA_SUCCESS);  // CUDA 10.0's form: global mode
  void *a[] = {&d, &nn};
  ASSERT_EQ(cuLaunchKernel(add_one, 1, 1, 1, n, 1, 1, 0, s, a, nullptr), CUDA_SUCCESS);
  int status = -1;
  unsigned long long id = 0, id2 = 0;
  ASSERT_EQ(cuStreamGetCaptureInfo(s, &status, &id), CUDA_SUCCESS);
  EXPECT_EQ(status, 1);
  CUgraph capturing = nullptr;
  const CUgraphNode *deps = nullptr;
  size_t ndeps = 0;
  ASSERT_EQ(cuStreamGetCaptureInfo_v2(s, &status, &id2, &capturing, &deps, &ndeps), CUDA_SUCCESS);
  EXPECT_EQ(id, id2);
  ASSERT_EQ(ndeps, 1u);
  const void *edges = reinterpret_cast<void *>(1);
  ASSERT_EQ(cuStreamGetCaptureInfo_v3(s, &status, nullptr, nullptr, nullptr, &edges, &ndeps), CUDA_SUCCESS);
  EXPECT_EQ(edges, nullptr);
  ASSERT_EQ(cuMemsetD32Async(d, 1, n, s), CUDA_SUCCESS);
  ASSERT_EQ(cuLaunchKernel(add_one, 1, 1, 1, n, 1, 1, 0, s, a, nullptr), CUDA_SUCCESS);
  // Work on the legacy stream would depend on the capturing blocking stream.
  EXPECT_EQ(cuMemsetD32_v2(d, 0, n), CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
  CUgraph g = nullptr;
  EXPECT_EQ(cuStreamEndCapture(s, &g), CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

  ASSERT_EQ(cuStreamBeginCapture_v2(s, 2), CUDA_SUCCESS);  // relaxed
  ASSERT_EQ(cuLaunchKernel(add_one, 1, 1, 1, n, 1, 1, 0, s, a, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamIsCapturing(s, &status), CUDA_SUCCESS);
  EXPECT_EQ(status, 1);
  ASSERT_EQ(cuStreamEndCapture(s, &g), CUDA_SUCCESS);
  CUgraphExec x;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&x, g, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(x, s), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(x, s), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
  EXPECT_EQ(values()[0], 2);
  int mode = 2;
  ASSERT_EQ(cuThreadExchangeStreamCaptureMode(&mode), CUDA_SUCCESS);
  EXPECT_EQ(mode, 0);
  ASSERT_EQ(cuThreadExchangeStreamCaptureMode(&mode), CUDA_SUCCESS);
  cuGraphExecDestroy(x);
  cuGraphDestroy(g);
  cuStreamDestroy_v2(s);
}
