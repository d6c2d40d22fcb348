// graph_test.cc — CUDA graphs and stream capture in libcudart.so.13: explicit graphs of every
// node type, their structure queries, clones, child graphs, instances (launch, per-node
// parameters, update, disabled nodes), and stream capture with its modes and CUDA's errors for
// each misuse (bad handles, unsafe calls, the legacy stream, unjoined forks, isolation, wrong
// thread …). The nvcc-built programs: tests/kernels/graphs.cu.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "cudart_test_util.h"

using namespace cudart_test;

namespace {

int *device_ints(int n, int value) {
  int *d = nullptr;
  EXPECT_EQ(cudaMalloc(reinterpret_cast<void **>(&d), n * 4), cudaSuccess);
  std::vector<int> h(n, value);
  EXPECT_EQ(cudaMemcpy(d, h.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
  return d;
}

std::vector<int> host_ints(const int *d, int n) {
  std::vector<int> h(n, -1);
  EXPECT_EQ(cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  return h;
}

// A kernel node of add_one(p, n) (one block of n threads).
cudaKernelNodeParams add_one_params(int **p, int *n) {
  static thread_local void *args[2];
  args[0] = p;
  args[1] = n;
  cudaKernelNodeParams k;
  std::memset(&k, 0, sizeof k);
  k.func = const_cast<void *>(kernels().kernel("add_one"));
  k.gridDim = d3(1);
  k.blockDim = d3(*n);
  k.kernelParams = args;
  return k;
}

void CUDART_CB count(void *p) { ++*static_cast<int *>(p); }

size_t node_count(cudaGraph_t g) {
  size_t n = 0;
  EXPECT_EQ(cudaGraphGetNodes(g, nullptr, &n), cudaSuccess);
  return n;
}

}  // namespace

// ---- explicit graphs -----------------------------------------------------------------------------

TEST(CudartGraph, NodesRunInDependencyOrderOnEveryLaunch) {
  const int n = 64;
  int *d = device_ints(n, 7);
  int *h = nullptr;
  ASSERT_EQ(cudaMallocHost(reinterpret_cast<void **>(&h), n * 4), cudaSuccess);
  int runs = 0, nn = n;
  cudaGraph_t g;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaMemsetParams ms = {d, 0, 0, 4, (size_t)n, 1};
  cudaGraphNode_t set, k1, k2, copy, host;
  ASSERT_EQ(cudaGraphAddMemsetNode(&set, g, nullptr, 0, &ms), cudaSuccess);
  cudaKernelNodeParams kp = add_one_params(&d, &nn);
  ASSERT_EQ(cudaGraphAddKernelNode(&k1, g, &set, 1, &kp), cudaSuccess);
  ASSERT_EQ(cudaGraphAddKernelNode(&k2, g, &k1, 1, &kp), cudaSuccess);
  ASSERT_EQ(cudaGraphAddMemcpyNode1D(&copy, g, &k2, 1, h, d, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaHostNodeParams hp = {count, &runs};
  ASSERT_EQ(cudaGraphAddHostNode(&host, g, &copy, 1, &hp), cudaSuccess);
  cudaGraphExec_t x;
  ASSERT_EQ(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
  for (int r = 0; r < 3; r++) {
    std::memset(h, 0, n * 4);
    ASSERT_EQ(cudaGraphLaunch(x, nullptr), cudaSuccess);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(h[0], 2);  // memset to 0, then two increments
    EXPECT_EQ(h[n - 1], 2);
  }
  EXPECT_EQ(runs, 3);
  EXPECT_EQ(cudaGraphExecDestroy(x), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(g), cudaSuccess);
  cudaFreeHost(h);
  cudaFree(d);
}

// Two independent branches (each on its own lane) both finish before later work on the launch
// stream, and the graph starts after the stream's earlier work.
TEST(CudartGraph, BranchesJoinBeforeLaterStreamWork) {
  const int n = 32;
  int *a = device_ints(n, 0), *b = device_ints(n, 100), *gate = device_ints(64, 1);
  int nn = n, iterations = 300;
  cudaGraph_t g;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaGraphNode_t root, ka, kb, join;
  ASSERT_EQ(cudaGraphAddEmptyNode(&root, g, nullptr, 0), cudaSuccess);
  cudaKernelNodeParams pa = add_one_params(&a, &nn);
  ASSERT_EQ(cudaGraphAddKernelNode(&ka, g, &root, 1, &pa), cudaSuccess);
  cudaKernelNodeParams pb = add_one_params(&b, &nn);
  ASSERT_EQ(cudaGraphAddKernelNode(&kb, g, &root, 1, &pb), cudaSuccess);
  cudaGraphNode_t both[] = {ka, kb};
  ASSERT_EQ(cudaGraphAddEmptyNode(&join, g, both, 2), cudaSuccess);
  cudaGraphExec_t x;
  ASSERT_EQ(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  // Earlier work on s: the graph's kernels must not start before it (a sets a[i] = 5 first).
  ASSERT_EQ(launch(kernels().kernel("busy"), d3(1), d3(64), 0, s, gate, iterations), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(a, 0, n * 4, s), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(x, s), cudaSuccess);
  std::vector<int> ha(n, -1), hb(n, -1);
  ASSERT_EQ(cudaMemcpyAsync(ha.data(), a, n * 4, cudaMemcpyDeviceToHost, s), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(hb.data(), b, n * 4, cudaMemcpyDeviceToHost, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(ha[0], 1);
  EXPECT_EQ(hb[n - 1], 101);
  cudaGraphExecDestroy(x);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
  cudaFree(a);
  cudaFree(b);
  cudaFree(gate);
}

TEST(CudartGraph, StructureQueriesAndEdges) {
  cudaGraph_t g;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaGraphNode_t a, b, c;
  ASSERT_EQ(cudaGraphAddEmptyNode(&a, g, nullptr, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphAddEmptyNode(&b, g, &a, 1), cudaSuccess);
  ASSERT_EQ(cudaGraphAddEmptyNode(&c, g, nullptr, 0), cudaSuccess);
  cudaGraphNode_t nodes[4];
  size_t n = 4;
  ASSERT_EQ(cudaGraphGetNodes(g, nodes, &n), cudaSuccess);
  ASSERT_EQ(n, 3u);
  EXPECT_EQ(nodes[0], a);  // creation order
  EXPECT_EQ(nodes[3], nullptr);
  n = 0;
  ASSERT_EQ(cudaGraphGetRootNodes(g, nullptr, &n), cudaSuccess);
  EXPECT_EQ(n, 2u);
  ASSERT_EQ(cudaGraphAddDependencies(g, &b, &c, nullptr, 1), cudaSuccess);
  cudaGraphNode_t from[2], to[2];
  cudaGraphEdgeData edges[2];
  std::memset(edges, 0xff, sizeof edges);
  n = 2;
  ASSERT_EQ(cudaGraphGetEdges(g, from, to, edges, &n), cudaSuccess);
  ASSERT_EQ(n, 2u);
  EXPECT_EQ(from[0], a);
  EXPECT_EQ(to[0], b);
  EXPECT_EQ(from[1], b);
  EXPECT_EQ(to[1], c);
  EXPECT_EQ(edges[1].type, 0);  // default edges
  cudaGraphNode_t deps[2];
  n = 2;
  ASSERT_EQ(cudaGraphNodeGetDependencies(c, deps, nullptr, &n), cudaSuccess);
  ASSERT_EQ(n, 1u);
  EXPECT_EQ(deps[0], b);
  n = 2;
  ASSERT_EQ(cudaGraphNodeGetDependentNodes(a, deps, nullptr, &n), cudaSuccess);
  ASSERT_EQ(n, 1u);
  EXPECT_EQ(deps[0], b);
  cudaGraphNodeType type;
  ASSERT_EQ(cudaGraphNodeGetType(b, &type), cudaSuccess);
  EXPECT_EQ(type, cudaGraphNodeTypeEmpty);

  // A cycle, a repeated edge, a missing edge and a foreign node are refused.
  std::string err = stderr_of([&] { EXPECT_EQ(cudaGraphAddDependencies(g, &c, &a, nullptr, 1), cudaErrorInvalidValue); });
  EXPECT_NE(err.find("cycle"), std::string::npos) << err;
  EXPECT_EQ(cudaGraphAddDependencies(g, &a, &b, nullptr, 1), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphRemoveDependencies(g, &a, &c, nullptr, 1), cudaErrorInvalidValue);
  ASSERT_EQ(cudaGraphRemoveDependencies(g, &b, &c, nullptr, 1), cudaSuccess);
  cudaGraph_t other;
  ASSERT_EQ(cudaGraphCreate(&other, 0), cudaSuccess);
  cudaGraphNode_t foreign;
  err = stderr_of([&] { EXPECT_EQ(cudaGraphAddEmptyNode(&foreign, other, &a, 1), cudaErrorInvalidValue); });
  EXPECT_NE(err.find("is not a node of graph"), std::string::npos) << err;
  cudaGraphEdgeData typed = {};
  typed.type = 1;  // programmatic
  EXPECT_EQ(cudaGraphAddDependencies(g, &b, &c, &typed, 1), cudaErrorNotSupported);
  ASSERT_EQ(cudaGraphDestroyNode(b), cudaSuccess);
  n = 0;
  ASSERT_EQ(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &n), cudaSuccess);
  EXPECT_EQ(n, 0u);
  cudaGetLastError();
  cudaGraphDestroy(other);
  cudaGraphDestroy(g);
}

TEST(CudartGraph, KernelNodeKeepsACopyOfItsArguments) {
  int *d = device_ints(4, 0);
  int nn = 4;
  cudaGraph_t g;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaKernelNodeParams kp = add_one_params(&d, &nn);
  cudaGraphNode_t k;
  ASSERT_EQ(cudaGraphAddKernelNode(&k, g, nullptr, 0, &kp), cudaSuccess);
  nn = 1;  // changing the program's variable changes nothing in the node
  cudaKernelNodeParams back;
  ASSERT_EQ(cudaGraphKernelNodeGetParams(k, &back), cudaSuccess);
  EXPECT_EQ(*static_cast<int *>(back.kernelParams[1]), 4);
  EXPECT_EQ(back.blockDim.x, 4u);
  cudaGraphExec_t x;
  ASSERT_EQ(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(x, nullptr), cudaSuccess);
  EXPECT_EQ(host_ints(d, 4)[3], 1);
  // A bad configuration is refused when the node is made (cudaErrorInvalidValue, as CUDA's graph
  // calls report it), an unregistered function too.
  cudaKernelNodeParams bad = kp;
  bad.blockDim = d3(4096);
  EXPECT_EQ(cudaGraphAddKernelNode(&k, g, nullptr, 0, &bad), cudaErrorInvalidValue);
  bad = kp;
  bad.func = reinterpret_cast<void *>(&count);
  EXPECT_EQ(cudaGraphAddKernelNode(&k, g, nullptr, 0, &bad), cudaErrorInvalidDeviceFunction);
  cudaGetLastError();
  cudaGraphExecDestroy(x);
  cudaGraphDestroy(g);
  cudaFree(d);
}

TEST(CudartGraph, ChildGraphIsCopiedAndClonesMapTheirNodes) {
  int *d = device_ints(8, 0);
  int nn = 8;
  cudaGraph_t child, g;
  ASSERT_EQ(cudaGraphCreate(&child, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaKernelNodeParams kp = add_one_params(&d, &nn);
  cudaGraphNode_t k, childnode, after;
  ASSERT_EQ(cudaGraphAddKernelNode(&k, child, nullptr, 0, &kp), cudaSuccess);
  ASSERT_EQ(cudaGraphAddChildGraphNode(&childnode, g, nullptr, 0, child), cudaSuccess);
  ASSERT_EQ(cudaGraphAddKernelNode(&after, g, &childnode, 1, &kp), cudaSuccess);
  // The node holds its own copy: adding to the original child changes nothing.
  cudaGraphNode_t extra;
  ASSERT_EQ(cudaGraphAddKernelNode(&extra, child, &k, 1, &kp), cudaSuccess);
  cudaGraph_t inside;
  ASSERT_EQ(cudaGraphChildGraphNodeGetGraph(childnode, &inside), cudaSuccess);
  EXPECT_EQ(node_count(inside), 1u);
  EXPECT_EQ(cudaGraphDestroy(inside), cudaErrorInvalidValue);  // owned by the node
  cudaGetLastError();

  cudaGraph_t clone;
  ASSERT_EQ(cudaGraphClone(&clone, g), cudaSuccess);
  cudaGraphNode_t found;
  ASSERT_EQ(cudaGraphNodeFindInClone(&found, after, clone), cudaSuccess);
  EXPECT_NE(found, after);
  cudaGraphNodeType type;
  ASSERT_EQ(cudaGraphNodeGetType(found, &type), cudaSuccess);
  EXPECT_EQ(type, cudaGraphNodeTypeKernel);
  EXPECT_EQ(cudaGraphNodeFindInClone(&found, k, clone), cudaErrorInvalidValue);  // not cloned into it
  cudaGetLastError();

  cudaGraphExec_t x;
  ASSERT_EQ(cudaGraphInstantiate(&x, clone, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(x, nullptr), cudaSuccess);
  EXPECT_EQ(host_ints(d, 8)[7], 2);  // the child's kernel and the one after it
  cudaGraphExecDestroy(x);
  cudaGraphDestroy(clone);
  cudaGraphDestroy(g);
  cudaGraphDestroy(child);
  cudaFree(d);
}

// A copy node from pageable memory reads the program's buffer when the graph runs, not when it
// was built or launched earlier.
TEST(CudartGraph, PageableCopyNodesMoveDataWhenTheyRun) {
  const int n = 16;
  std::vector<int> in(n, 3), out(n, 0);
  int *d = device_ints(n, 0);
  int nn = n;
  cudaGraph_t g;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaGraphNode_t up, k, down;
  ASSERT_EQ(cudaGraphAddMemcpyNode1D(&up, g, nullptr, 0, d, in.data(), n * 4, cudaMemcpyHostToDevice), cudaSuccess);
  cudaKernelNodeParams kp = add_one_params(&d, &nn);
  ASSERT_EQ(cudaGraphAddKernelNode(&k, g, &up, 1, &kp), cudaSuccess);
  ASSERT_EQ(cudaGraphAddMemcpyNode1D(&down, g, &k, 1, out.data(), d, n * 4, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaGraphExec_t x;
  ASSERT_EQ(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
  for (int v : {3, 40, -9}) {
    std::fill(in.begin(), in.end(), v);
    ASSERT_EQ(cudaGraphLaunch(x, nullptr), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
    EXPECT_EQ(out[n - 1], v + 1);
  }
  cudaMemcpy3DParms back;
  ASSERT_EQ(cudaGraphMemcpyNodeGetParams(up, &back), cudaSuccess);
  EXPECT_EQ(back.srcPtr.ptr, in.data());
  EXPECT_EQ(back.extent.width, (size_t)n * 4);
  EXPECT_EQ(back.kind, cudaMemcpyHostToDevice);
  // The copy's kind must match what the pointers are.
  EXPECT_EQ(cudaGraphAddMemcpyNode1D(&up, g, nullptr, 0, d, in.data(), n * 4, cudaMemcpyDeviceToDevice),
            cudaErrorInvalidValue);
  cudaGetLastError();
  cudaGraphExecDestroy(x);
  cudaGraphDestroy(g);
  cudaFree(d);
}

// Registered memory has device addresses of its own (a window, tests/cudart/memory_test.cc): copy
// nodes given the device pointer move the program's memory, as cudaMemcpy does.
TEST(CudartGraph, CopyNodesReachRegisteredMemoryThroughItsDevicePointer) {
  const int n = 1024;
  std::vector<int> buf(n + 64, 0);
  int *h = buf.data() + 16;
  for (int i = 0; i < n / 2; i++) h[i] = 3 * i;
  ASSERT_EQ(cudaHostRegister(h, n * 4, cudaHostRegisterMapped), cudaSuccess);
  int *w = nullptr;
  ASSERT_EQ(cudaHostGetDevicePointer(reinterpret_cast<void **>(&w), h, 0), cudaSuccess);
  ASSERT_NE(w, h);
  int *d = device_ints(n / 2, 0);
  cudaGraph_t g;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaGraphNode_t in, out;  // the lower half to the device and back to the upper half
  ASSERT_EQ(cudaGraphAddMemcpyNode1D(&in, g, nullptr, 0, d, w, n / 2 * 4, cudaMemcpyDefault), cudaSuccess);
  ASSERT_EQ(cudaGraphAddMemcpyNode1D(&out, g, &in, 1, w + n / 2, d, n / 2 * 4, cudaMemcpyDefault),
            cudaSuccess);
  cudaGraphExec_t x;
  ASSERT_EQ(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(x, nullptr), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
  for (int i = 0; i < n / 2; i++) ASSERT_EQ(h[n / 2 + i], 3 * i) << i;
  EXPECT_EQ(buf[15], 0);  // the bytes around the range are untouched
  EXPECT_EQ(buf[16 + n], 0);
  cudaGraphExecDestroy(x);
  cudaGraphDestroy(g);
  cudaFree(d);
  ASSERT_EQ(cudaHostUnregister(h), cudaSuccess);
}

TEST(CudartGraph, EventNodesRecordAndWait) {
  int *d = device_ints(4, 0);
  int nn = 4;
  cudaEvent_t recorded, waited;
  ASSERT_EQ(cudaEventCreate(&recorded), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&waited), cudaSuccess);
  cudaGraph_t g;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaGraphNode_t wait, k, rec;
  ASSERT_EQ(cudaGraphAddEventWaitNode(&wait, g, nullptr, 0, waited), cudaSuccess);
  cudaKernelNodeParams kp = add_one_params(&d, &nn);
  ASSERT_EQ(cudaGraphAddKernelNode(&k, g, &wait, 1, &kp), cudaSuccess);
  ASSERT_EQ(cudaGraphAddEventRecordNode(&rec, g, &k, 1, recorded), cudaSuccess);
  cudaEvent_t got;
  ASSERT_EQ(cudaGraphEventRecordNodeGetEvent(rec, &got), cudaSuccess);
  EXPECT_EQ(got, recorded);
  cudaGraphExec_t x;
  ASSERT_EQ(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
  cudaStream_t other;
  ASSERT_EQ(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(d, 0, 16, other), cudaSuccess);  // the graph waits for this
  ASSERT_EQ(cudaEventRecord(waited, other), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(x, nullptr), cudaSuccess);
  ASSERT_EQ(cudaEventSynchronize(recorded), cudaSuccess);
  EXPECT_EQ(host_ints(d, 4)[0], 1);
  cudaEvent_t destroyed;
  ASSERT_EQ(cudaEventCreate(&destroyed), cudaSuccess);
  ASSERT_EQ(cudaGraphExecEventRecordNodeSetEvent(x, rec, destroyed), cudaSuccess);
  ASSERT_EQ(cudaEventDestroy(destroyed), cudaSuccess);
  std::string err = stderr_of([&] { EXPECT_EQ(cudaGraphLaunch(x, nullptr), cudaErrorInvalidResourceHandle); });
  EXPECT_NE(err.find("event"), std::string::npos) << err;
  cudaGetLastError();
  cudaGraphExecDestroy(x);
  cudaGraphDestroy(g);
  cudaStreamDestroy(other);
  cudaEventDestroy(recorded);
  cudaEventDestroy(waited);
  cudaFree(d);
}

// ---- instances ------------------------------------------------------------------------------------

TEST(CudartGraph, InstanceParametersChangeWithoutTheGraph) {
  int *a = device_ints(4, 0), *b = device_ints(4, 10);
  int nn = 4;
  cudaGraph_t g;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaKernelNodeParams kp = add_one_params(&a, &nn);
  cudaGraphNode_t k, set;
  cudaMemsetParams ms = {a, 0, 0, 1, 4, 1};
  ASSERT_EQ(cudaGraphAddMemsetNode(&set, g, nullptr, 0, &ms), cudaSuccess);
  ASSERT_EQ(cudaGraphAddKernelNode(&k, g, &set, 1, &kp), cudaSuccess);
  cudaGraphExec_t x;
  ASSERT_EQ(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
  cudaKernelNodeParams on_b = add_one_params(&b, &nn);
  ASSERT_EQ(cudaGraphExecKernelNodeSetParams(x, k, &on_b), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(x, nullptr), cudaSuccess);
  EXPECT_EQ(host_ints(b, 4)[0], 11);
  EXPECT_EQ(host_ints(a, 4)[0], 0x00000000);  // memset ran, the kernel went to b
  // The wrong node type, a node of another graph.
  EXPECT_EQ(cudaGraphExecKernelNodeSetParams(x, set, &on_b), cudaErrorInvalidValue);
  cudaGraph_t other;
  ASSERT_EQ(cudaGraphCreate(&other, 0), cudaSuccess);
  cudaGraphNode_t foreign;
  ASSERT_EQ(cudaGraphAddKernelNode(&foreign, other, nullptr, 0, &kp), cudaSuccess);
  EXPECT_EQ(cudaGraphExecKernelNodeSetParams(x, foreign, &on_b), cudaErrorInvalidValue);
  cudaGetLastError();
  // Disabled: the memset does nothing; enabled again.
  unsigned enabled = 9;
  ASSERT_EQ(cudaGraphNodeSetEnabled(x, set, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphNodeGetEnabled(x, set, &enabled), cudaSuccess);
  EXPECT_EQ(enabled, 0u);
  ASSERT_EQ(cudaMemset(b, 0, 16), cudaSuccess);
  ASSERT_EQ(cudaGraphExecMemsetNodeSetParams(x, set, &(ms = {b, 0, 7, 1, 4, 1})), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(x, nullptr), cudaSuccess);
  EXPECT_EQ(host_ints(b, 4)[0], 1);  // kernel only
  ASSERT_EQ(cudaGraphNodeSetEnabled(x, set, 1), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(x, nullptr), cudaSuccess);
  EXPECT_EQ(host_ints(b, 4)[0], 0x07070707 + 1);
  cudaGraphExecDestroy(x);
  cudaGraphDestroy(other);
  cudaGraphDestroy(g);
  cudaFree(a);
  cudaFree(b);
}

TEST(CudartGraph, ExecUpdateTakesParametersButNotTopologyOrTypes) {
  int *a = device_ints(4, 0), *b = device_ints(4, 50);
  int nn = 4;
  cudaGraph_t g;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaKernelNodeParams kp = add_one_params(&a, &nn);
  cudaGraphNode_t k1, k2;
  ASSERT_EQ(cudaGraphAddKernelNode(&k1, g, nullptr, 0, &kp), cudaSuccess);
  ASSERT_EQ(cudaGraphAddKernelNode(&k2, g, &k1, 1, &kp), cudaSuccess);
  cudaGraphExec_t x;
  ASSERT_EQ(cudaGraphInstantiate(&x, g, 0), cudaSuccess);

  cudaGraph_t same_shape;
  ASSERT_EQ(cudaGraphClone(&same_shape, g), cudaSuccess);
  cudaGraphNode_t c2;
  ASSERT_EQ(cudaGraphNodeFindInClone(&c2, k2, same_shape), cudaSuccess);
  cudaKernelNodeParams on_b = add_one_params(&b, &nn);
  ASSERT_EQ(cudaGraphKernelNodeSetParams(c2, &on_b), cudaSuccess);
  cudaGraphExecUpdateResultInfo info;
  ASSERT_EQ(cudaGraphExecUpdate(x, same_shape, &info), cudaSuccess);
  EXPECT_EQ(info.result, cudaGraphExecUpdateSuccess);
  ASSERT_EQ(cudaGraphLaunch(x, nullptr), cudaSuccess);
  EXPECT_EQ(host_ints(a, 4)[0], 1);
  EXPECT_EQ(host_ints(b, 4)[0], 51);

  // Another edge: topology changed, naming the node.
  cudaGraph_t rewired;
  ASSERT_EQ(cudaGraphCreate(&rewired, 0), cudaSuccess);
  cudaGraphNode_t r1, r2;
  ASSERT_EQ(cudaGraphAddKernelNode(&r1, rewired, nullptr, 0, &kp), cudaSuccess);
  ASSERT_EQ(cudaGraphAddKernelNode(&r2, rewired, nullptr, 0, &kp), cudaSuccess);
  EXPECT_EQ(cudaGraphExecUpdate(x, rewired, &info), cudaErrorGraphExecUpdateFailure);
  EXPECT_EQ(info.result, cudaGraphExecUpdateErrorTopologyChanged);
  EXPECT_EQ(info.errorNode, r2);
  // Another node type.
  cudaGraph_t retyped;
  ASSERT_EQ(cudaGraphCreate(&retyped, 0), cudaSuccess);
  cudaGraphNode_t t1, t2;
  ASSERT_EQ(cudaGraphAddKernelNode(&t1, retyped, nullptr, 0, &kp), cudaSuccess);
  ASSERT_EQ(cudaGraphAddEmptyNode(&t2, retyped, &t1, 1), cudaSuccess);
  EXPECT_EQ(cudaGraphExecUpdate(x, retyped, &info), cudaErrorGraphExecUpdateFailure);
  EXPECT_EQ(info.result, cudaGraphExecUpdateErrorNodeTypeChanged);
  EXPECT_EQ(info.errorNode, t2);
  cudaGetLastError();
  // The instance still runs what it had.
  ASSERT_EQ(cudaGraphLaunch(x, nullptr), cudaSuccess);
  EXPECT_EQ(host_ints(b, 4)[0], 52);
  cudaGraphExecDestroy(x);
  for (cudaGraph_t gg : {g, same_shape, rewired, retyped}) cudaGraphDestroy(gg);
  cudaFree(a);
  cudaFree(b);
}

TEST(CudartGraph, GenericNodeParametersAndDotOutput) {
  int *d = device_ints(4, 0);
  int nn = 4;
  cudaGraph_t g;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaGraphNodeParams p;
  std::memset(&p, 0, sizeof p);
  p.type = cudaGraphNodeTypeKernel;
  p.kernel = add_one_params(&d, &nn);
  cudaGraphNode_t k, e;
  ASSERT_EQ(cudaGraphAddNode(&k, g, nullptr, nullptr, 0, &p), cudaSuccess);
  std::memset(&p, 0, sizeof p);
  p.type = cudaGraphNodeTypeEmpty;
  ASSERT_EQ(cudaGraphAddNode(&e, g, &k, nullptr, 1, &p), cudaSuccess);
  p.type = cudaGraphNodeTypeMemAlloc;
  std::string err = stderr_of([&] { EXPECT_EQ(cudaGraphAddNode(&e, g, nullptr, nullptr, 0, &p), cudaErrorNotSupported); });
  EXPECT_NE(err.find("node type 10"), std::string::npos) << err;
  cudaGetLastError();
  std::string path = std::string(SIMTVP_BINARY_DIR) + "/graph_test_" + std::to_string(getpid()) + ".dot";
  ASSERT_EQ(cudaGraphDebugDotPrint(g, path.c_str(), 0), cudaSuccess);
  std::ifstream in(path);
  std::string dot((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  EXPECT_NE(dot.find("digraph"), std::string::npos) << dot;
  EXPECT_NE(dot.find("kernel add_one"), std::string::npos) << dot;
  EXPECT_NE(dot.find("->"), std::string::npos) << dot;
  EXPECT_EQ(cudaGraphDebugDotPrint(g, "/no/such/dir/x.dot", 0), cudaErrorOperatingSystem);
  cudaGetLastError();
  cudaGraphDestroy(g);
  cudaFree(d);
}

TEST(CudartGraph, DestroyedHandlesAreRefused) {
  cudaGraph_t g;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaGraphNode_t n;
  ASSERT_EQ(cudaGraphAddEmptyNode(&n, g, nullptr, 0), cudaSuccess);
  cudaGraphExec_t x;
  ASSERT_EQ(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphDestroy(g), cudaSuccess);
  EXPECT_EQ(cudaGraphDestroy(g), cudaErrorInvalidValue);
  cudaGraphNodeType type;
  EXPECT_EQ(cudaGraphNodeGetType(n, &type), cudaErrorInvalidValue);  // went with its graph
  ASSERT_EQ(cudaGraphLaunch(x, nullptr), cudaSuccess);                // the instance is independent
  ASSERT_EQ(cudaGraphExecDestroy(x), cudaSuccess);
  EXPECT_EQ(cudaGraphExecDestroy(x), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphLaunch(x, nullptr), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGraphCreate(&g, 1), cudaErrorInvalidValue);  // flags must be 0
  EXPECT_EQ(cudaGraphInstantiate(&x, nullptr, 0), cudaErrorInvalidValue);
  cudaGetLastError();
}

// ---- stream capture -------------------------------------------------------------------------------

TEST(CudartCapture, StreamWorkBecomesNodes) {
  const int n = 32;
  int *d = device_ints(n, 0);
  std::vector<int> out(n, -1);
  int runs = 0;
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(d, 0, n * 4, s), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(1), d3(n), 0, s, d, n), cudaSuccess);
  ASSERT_EQ(cudaMemcpyAsync(out.data(), d, n * 4, cudaMemcpyDeviceToHost, s), cudaSuccess);
  ASSERT_EQ(cudaLaunchHostFunc(s, count, &runs), cudaSuccess);
  EXPECT_EQ(out[0], -1);  // nothing ran
  EXPECT_EQ(runs, 0);
  cudaGraph_t g = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
  ASSERT_NE(g, nullptr);
  cudaGraphNode_t nodes[4];
  size_t count_nodes = 4;
  ASSERT_EQ(cudaGraphGetNodes(g, nodes, &count_nodes), cudaSuccess);
  ASSERT_EQ(count_nodes, 4u);
  cudaGraphNodeType want[] = {cudaGraphNodeTypeMemset, cudaGraphNodeTypeKernel, cudaGraphNodeTypeMemcpy,
                              cudaGraphNodeTypeHost};
  for (int i = 0; i < 4; i++) {
    cudaGraphNodeType t;
    ASSERT_EQ(cudaGraphNodeGetType(nodes[i], &t), cudaSuccess);
    EXPECT_EQ(t, want[i]);
  }
  cudaGraphExec_t x;
  ASSERT_EQ(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(x, s), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(x, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(out[n - 1], 1);
  EXPECT_EQ(runs, 2);
  cudaGraphExecDestroy(x);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
  cudaFree(d);
}

TEST(CudartCapture, ForksJoinThroughEventsAndInfoShowsDependencies) {
  int *a = device_ints(8, 0), *b = device_ints(8, 0);
  cudaStream_t s, t;
  ASSERT_EQ(cudaStreamCreate(&s), cudaSuccess);
  ASSERT_EQ(cudaStreamCreate(&t), cudaSuccess);
  cudaEvent_t fork, join;
  ASSERT_EQ(cudaEventCreate(&fork), cudaSuccess);
  ASSERT_EQ(cudaEventCreate(&join), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(1), d3(8), 0, s, a, 8), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(fork, s), cudaSuccess);
  std::string err = stderr_of([&] { EXPECT_EQ(cudaEventQuery(fork), cudaErrorCapturedEvent); });
  EXPECT_NE(err.find("capturing stream"), std::string::npos) << err;
  ASSERT_EQ(cudaStreamWaitEvent(t, fork, 0), cudaSuccess);
  cudaStreamCaptureStatus status;
  unsigned long long id_s = 0, id_t = 0;
  ASSERT_EQ(cudaStreamGetCaptureInfo(s, &status, &id_s, nullptr, nullptr, nullptr, nullptr), cudaSuccess);
  ASSERT_EQ(cudaStreamGetCaptureInfo(t, &status, &id_t, nullptr, nullptr, nullptr, nullptr), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusActive);
  EXPECT_EQ(id_s, id_t);  // one capture
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(1), d3(8), 0, t, b, 8), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(1), d3(8), 0, s, a, 8), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(join, t), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(s, join, 0), cudaSuccess);
  const cudaGraphNode_t *deps = nullptr;
  size_t ndeps = 0;
  cudaGraph_t capturing;
  ASSERT_EQ(cudaStreamGetCaptureInfo(s, &status, nullptr, &capturing, &deps, nullptr, &ndeps), cudaSuccess);
  EXPECT_EQ(ndeps, 2u);  // s's last kernel and t's
  cudaGraph_t g;
  ASSERT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
  EXPECT_EQ(g, capturing);
  ASSERT_EQ(cudaStreamIsCapturing(t, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusNone);  // the end releases every stream
  size_t edges = 0;
  ASSERT_EQ(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges), cudaSuccess);
  EXPECT_EQ(edges, 2u);  // a1 -> a2, a1 -> b1
  cudaGraphExec_t x;
  ASSERT_EQ(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(x, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(host_ints(a, 8)[0], 2);
  EXPECT_EQ(host_ints(b, 8)[7], 1);
  cudaGraphExecDestroy(x);
  cudaGraphDestroy(g);
  cudaEventDestroy(fork);
  cudaEventDestroy(join);
  cudaStreamDestroy(s);
  cudaStreamDestroy(t);
  cudaFree(a);
  cudaFree(b);
}

TEST(CudartCapture, UnsafeCallsInvalidateAGlobalCapture) {
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  int *d = device_ints(4, 0);
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  void *p = nullptr;
  std::string err = stderr_of([&] { EXPECT_EQ(cudaMalloc(&p, 64), cudaErrorStreamCaptureUnsupported); });
  EXPECT_NE(err.find("global stream capture"), std::string::npos) << err;
  EXPECT_EQ(cudaDeviceSynchronize(), cudaErrorStreamCaptureUnsupported);
  cudaStreamCaptureStatus status;
  ASSERT_EQ(cudaStreamIsCapturing(s, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusInvalidated);
  EXPECT_EQ(cudaMemsetAsync(d, 0, 4, s), cudaErrorStreamCaptureInvalidated);
  cudaGraph_t g = reinterpret_cast<cudaGraph_t>(1);
  err = stderr_of([&] { EXPECT_EQ(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated); });
  EXPECT_NE(err.find("allocating device memory"), std::string::npos) << err;  // why
  EXPECT_EQ(g, nullptr);
  ASSERT_EQ(cudaMalloc(&p, 64), cudaSuccess);  // no capture any more
  cudaFree(p);
  cudaFree(d);
  cudaGetLastError();
  cudaStreamDestroy(s);
}

// Thread-local captures bind only their own thread; global ones every thread in global mode;
// relaxed mode (capture or thread) binds nothing.
TEST(CudartCapture, CaptureModesDecideWhoMayCallUnsafeApis) {
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  cudaGraph_t g;
  cudaError_t other_thread = cudaErrorUnknown;
  auto allocate_elsewhere = [&] {
    std::thread t([&] {
      void *p = nullptr;
      other_thread = cudaMalloc(&p, 64);
      if (p) cudaFree(p);
    });
    t.join();
  };
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  allocate_elsewhere();
  EXPECT_EQ(other_thread, cudaSuccess);
  ASSERT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
  cudaGraphDestroy(g);

  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  allocate_elsewhere();
  EXPECT_EQ(other_thread, cudaErrorStreamCaptureUnsupported);
  EXPECT_EQ(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
  cudaGetLastError();

  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  ASSERT_EQ(cudaThreadExchangeStreamCaptureMode(&mode), cudaSuccess);
  EXPECT_EQ(mode, cudaStreamCaptureModeGlobal);  // the previous mode
  void *p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, 64), cudaSuccess);
  ASSERT_EQ(cudaThreadExchangeStreamCaptureMode(&mode), cudaSuccess);  // back to global
  ASSERT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
  cudaGraphDestroy(g);
  cudaFree(p);

  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), cudaSuccess);
  EXPECT_EQ(cudaMalloc(&p, 64), cudaSuccess);
  ASSERT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
  cudaGraphDestroy(g);
  cudaFree(p);
  mode = (cudaStreamCaptureMode)7;
  EXPECT_EQ(cudaThreadExchangeStreamCaptureMode(&mode), cudaErrorInvalidValue);
  cudaGetLastError();
  cudaStreamDestroy(s);
}

TEST(CudartCapture, OnlyTheBeginningThreadEndsAStrictCapture) {
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  cudaGraph_t g = nullptr;
  cudaError_t ended = cudaErrorUnknown;
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  std::thread([&] { ended = cudaStreamEndCapture(s, &g); }).join();
  EXPECT_EQ(ended, cudaErrorStreamCaptureWrongThread);
  ASSERT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
  cudaGraphDestroy(g);
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), cudaSuccess);
  std::thread([&] { ended = cudaStreamEndCapture(s, &g); }).join();
  EXPECT_EQ(ended, cudaSuccess);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
}

TEST(CudartCapture, LegacyStreamCannotCaptureNorRunBesideABlockingCapture) {
  std::string err = stderr_of([&] {
    EXPECT_EQ(cudaStreamBeginCapture(nullptr, cudaStreamCaptureModeGlobal), cudaErrorStreamCaptureUnsupported);
  });
  EXPECT_NE(err.find("legacy default stream"), std::string::npos) << err;
  cudaStream_t blocking;
  ASSERT_EQ(cudaStreamCreate(&blocking), cudaSuccess);
  int *d = device_ints(4, 0);
  ASSERT_EQ(cudaStreamBeginCapture(blocking, cudaStreamCaptureModeGlobal), cudaSuccess);
  cudaStreamCaptureStatus status;
  EXPECT_EQ(cudaStreamIsCapturing(nullptr, &status), cudaErrorStreamCaptureImplicit);
  EXPECT_EQ(launch(kernels().kernel("add_one"), d3(1), d3(4), 0, nullptr, d, 4), cudaErrorStreamCaptureImplicit);
  cudaGraph_t g;
  EXPECT_EQ(cudaStreamEndCapture(blocking, &g), cudaErrorStreamCaptureInvalidated);
  // The per-thread stream may capture.
  ASSERT_EQ(cudaStreamBeginCapture(cudaStreamPerThread, cudaStreamCaptureModeGlobal), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(1), d3(4), 0, cudaStreamPerThread, d, 4), cudaSuccess);
  ASSERT_EQ(cudaStreamEndCapture(cudaStreamPerThread, &g), cudaSuccess);
  EXPECT_EQ(node_count(g), 1u);
  cudaGraphDestroy(g);
  cudaGetLastError();
  cudaStreamDestroy(blocking);
  cudaFree(d);
}

TEST(CudartCapture, SynchronisingTheCapturingStreamIsUnsupported) {
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  cudaGraph_t g;
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), cudaSuccess);
  EXPECT_EQ(cudaStreamQuery(s), cudaErrorStreamCaptureUnsupported);
  EXPECT_EQ(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), cudaSuccess);
  EXPECT_EQ(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported);
  EXPECT_EQ(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
  // cudaStreamAddCallback cannot be captured (cudaLaunchHostFunc can).
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed), cudaSuccess);
  EXPECT_EQ(cudaStreamAddCallback(s, [](cudaStream_t, cudaError_t, void *) {}, nullptr, 0),
            cudaErrorStreamCaptureUnsupported);
  EXPECT_EQ(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
  cudaGetLastError();
  cudaStreamDestroy(s);
}

TEST(CudartCapture, EndingWrongOrUnjoinedCapturesFails) {
  cudaStream_t s, t;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking), cudaSuccess);
  cudaEvent_t e;
  ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
  cudaGraph_t g;
  int *d = device_ints(4, 0);
  EXPECT_EQ(cudaStreamEndCapture(s, &g), cudaErrorIllegalState);  // not capturing
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  EXPECT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaErrorIllegalState);
  ASSERT_EQ(cudaEventRecord(e, s), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(t, e, 0), cudaSuccess);
  EXPECT_EQ(cudaStreamEndCapture(t, &g), cudaErrorStreamCaptureUnmatched);  // joined, did not begin it
  cudaStreamCaptureMode relaxed = cudaStreamCaptureModeRelaxed;
  ASSERT_EQ(cudaThreadExchangeStreamCaptureMode(&relaxed), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(d, 0, 16, t), cudaSuccess);
  std::string err = stderr_of([&] { EXPECT_EQ(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureUnjoined); });
  EXPECT_NE(err.find("not joined back"), std::string::npos) << err;
  ASSERT_EQ(cudaThreadExchangeStreamCaptureMode(&relaxed), cudaSuccess);
  cudaStreamCaptureStatus status;
  ASSERT_EQ(cudaStreamIsCapturing(t, &status), cudaSuccess);
  EXPECT_EQ(status, cudaStreamCaptureStatusNone);
  cudaGetLastError();
  cudaEventDestroy(e);
  cudaStreamDestroy(s);
  cudaStreamDestroy(t);
  cudaFree(d);
}

// Waiting in a capture for work outside it is isolation, unless asked for as an event node.
TEST(CudartCapture, WaitingForAnOutsideEventNeedsTheExternalFlag) {
  cudaStream_t s, t;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking), cudaSuccess);
  cudaEvent_t outside;
  ASSERT_EQ(cudaEventCreate(&outside), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(outside, t), cudaSuccess);
  cudaGraph_t g;
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  EXPECT_EQ(cudaStreamWaitEvent(s, outside, 0), cudaErrorStreamCaptureIsolation);
  EXPECT_EQ(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  ASSERT_EQ(cudaStreamWaitEvent(s, outside, cudaEventWaitExternal), cudaSuccess);
  ASSERT_EQ(cudaEventRecordWithFlags(outside, s, cudaEventRecordExternal), cudaSuccess);
  ASSERT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
  cudaGraphNode_t nodes[2];
  size_t n = 2;
  ASSERT_EQ(cudaGraphGetNodes(g, nodes, &n), cudaSuccess);
  ASSERT_EQ(n, 2u);
  cudaGraphNodeType t0, t1;
  ASSERT_EQ(cudaGraphNodeGetType(nodes[0], &t0), cudaSuccess);
  ASSERT_EQ(cudaGraphNodeGetType(nodes[1], &t1), cudaSuccess);
  EXPECT_EQ(t0, cudaGraphNodeTypeWaitEvent);
  EXPECT_EQ(t1, cudaGraphNodeTypeEventRecord);
  cudaGraphDestroy(g);
  cudaGetLastError();
  cudaEventDestroy(outside);
  cudaStreamDestroy(s);
  cudaStreamDestroy(t);
}

TEST(CudartCapture, IntoAnExistingGraphWithChosenDependencies) {
  int *d = device_ints(4, 0);
  cudaGraph_t g;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaGraphNode_t first;
  ASSERT_EQ(cudaGraphAddEmptyNode(&first, g, nullptr, 0), cudaSuccess);
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCaptureToGraph(s, g, &first, nullptr, 1, cudaStreamCaptureModeGlobal), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(1), d3(4), 0, s, d, 4), cudaSuccess);
  // A node that depends on nothing captured so far: a second root.
  ASSERT_EQ(cudaStreamUpdateCaptureDependencies(s, nullptr, nullptr, 0, cudaStreamSetCaptureDependencies), cudaSuccess);
  ASSERT_EQ(launch(kernels().kernel("add_one"), d3(1), d3(4), 0, s, d, 4), cudaSuccess);
  cudaGraph_t out;
  ASSERT_EQ(cudaStreamEndCapture(s, &out), cudaSuccess);
  EXPECT_EQ(out, g);
  EXPECT_EQ(node_count(g), 3u);
  size_t roots = 0;
  ASSERT_EQ(cudaGraphGetRootNodes(g, nullptr, &roots), cudaSuccess);
  EXPECT_EQ(roots, 2u);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
  cudaFree(d);
}

// A graph launched into a capturing stream becomes a child graph node of the capture.
TEST(CudartCapture, GraphLaunchIsCapturedAsAChildGraph) {
  int *d = device_ints(4, 0);
  int nn = 4;
  cudaGraph_t inner;
  ASSERT_EQ(cudaGraphCreate(&inner, 0), cudaSuccess);
  cudaKernelNodeParams kp = add_one_params(&d, &nn);
  cudaGraphNode_t k;
  ASSERT_EQ(cudaGraphAddKernelNode(&k, inner, nullptr, 0, &kp), cudaSuccess);
  cudaGraphExec_t inner_x;
  ASSERT_EQ(cudaGraphInstantiate(&inner_x, inner, 0), cudaSuccess);
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(inner_x, s), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(inner_x, s), cudaSuccess);
  cudaGraph_t outer;
  ASSERT_EQ(cudaStreamEndCapture(s, &outer), cudaSuccess);
  cudaGraphNode_t nodes[2];
  size_t n = 2;
  ASSERT_EQ(cudaGraphGetNodes(outer, nodes, &n), cudaSuccess);
  cudaGraphNodeType t;
  ASSERT_EQ(cudaGraphNodeGetType(nodes[1], &t), cudaSuccess);
  EXPECT_EQ(t, cudaGraphNodeTypeGraph);
  cudaGraphExec_t x;
  ASSERT_EQ(cudaGraphInstantiate(&x, outer, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(x, s), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
  EXPECT_EQ(host_ints(d, 4)[0], 2);
  cudaGraphExecDestroy(x);
  cudaGraphExecDestroy(inner_x);
  cudaGraphDestroy(outer);
  cudaGraphDestroy(inner);
  cudaStreamDestroy(s);
  cudaFree(d);
}

// Destroying the stream that began a capture ends it: nothing stays bound by a capture that
// nobody can end, and an event recorded in it reads as never recorded afterwards.
TEST(CudartCapture, DestroyingTheCapturingStreamEndsTheCapture) {
  cudaStream_t s;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  cudaEvent_t e;
  ASSERT_EQ(cudaEventCreate(&e), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  ASSERT_EQ(cudaEventRecord(e, s), cudaSuccess);
  EXPECT_EQ(cudaEventSynchronize(e), cudaErrorCapturedEvent);
  ASSERT_EQ(cudaStreamDestroy(s), cudaSuccess);
  void *p = nullptr;
  EXPECT_EQ(cudaMalloc(&p, 64), cudaSuccess);
  EXPECT_EQ(cudaEventQuery(e), cudaSuccess);
  cudaGetLastError();
  cudaFree(p);
  cudaEventDestroy(e);
}

// A graph added to itself as a child holds a copy of what it was.
TEST(CudartGraph, AGraphMayBeItsOwnChild) {
  cudaGraph_t g;
  ASSERT_EQ(cudaGraphCreate(&g, 0), cudaSuccess);
  cudaGraphNode_t e, child;
  ASSERT_EQ(cudaGraphAddEmptyNode(&e, g, nullptr, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphAddChildGraphNode(&child, g, &e, 1, g), cudaSuccess);
  cudaGraph_t inside;
  ASSERT_EQ(cudaGraphChildGraphNodeGetGraph(child, &inside), cudaSuccess);
  EXPECT_EQ(node_count(inside), 1u);
  EXPECT_EQ(node_count(g), 2u);
  cudaGraphExec_t x;
  ASSERT_EQ(cudaGraphInstantiate(&x, g, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(x, nullptr), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaGraphExecDestroy(x);
  cudaGraphDestroy(g);
}
