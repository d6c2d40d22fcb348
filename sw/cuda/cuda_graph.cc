// cuda_graph.cc — CUDA graphs and stream capture in the driver API (cuGraph*, cuStream*Capture*),
// on the core's graphs (cu_core.h "CUDA graphs and stream capture"). NVIDIA's statically linked
// runtime implements cudaGraph* and cudaStream*Capture* with these. Where cuda.h maps a name to a
// _v2 (or _v3) form, both forms are exported: the plain one with its older signature.
// docs/cudart.md "CUDA graphs".
#include <cstddef>
#include <cstring>

#include "cuda_api_internal.h"

using namespace cuapi;

namespace {

cu_graph *graph_of(CUgraph g) { return reinterpret_cast<cu_graph *>(g); }
cu_graph_node *node_of(CUgraphNode n) { return reinterpret_cast<cu_graph_node *>(n); }
cu_graph_exec *exec_of(CUgraphExec x) { return reinterpret_cast<cu_graph_exec *>(x); }
cu_graph_node *const *nodes_of(const CUgraphNode *n) { return reinterpret_cast<cu_graph_node *const *>(n); }

// CUDA_KERNEL_NODE_PARAMS (v1) and _v2 / _v3 (kern, ctx appended), CUDA_MEMSET_NODE_PARAMS,
// CUDA_HOST_NODE_PARAMS, CUgraphNodeParams, CUDA_GRAPH_INSTANTIATE_PARAMS,
// CUgraphExecUpdateResultInfo and CUgraphEdgeData as cuda.h lays them out.
struct KernelNodeParams {
  CUfunction func;
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
  void **kernelParams;
  void **extra;
  CUkernel kern;  // _v2 / _v3 only
  CUcontext ctx;  // _v2 / _v3 only
};
struct MemsetNodeParams {
  CUdeviceptr dst;
  size_t pitch;
  unsigned value, elementSize;
  size_t width, height;
  CUcontext ctx;  // _v2 only (CUgraphNodeParams)
};
struct HostNodeParams {
  CUhostFn fn;
  void *userData;
};
struct GraphNodeParams {
  int type;
  int reserved0[3];
  union {
    long long reserved1[29];
    KernelNodeParams kernel;
    struct {
      int flags, reserved;
      CUcontext copyCtx;
      CudaMemcpy3D copyParams;
    } memcpy;
    MemsetNodeParams memset;
    HostNodeParams host;
    struct {
      CUgraph graph;
      int ownership;
    } graph;
    CUevent event;  // CUDA_EVENT_WAIT_NODE_PARAMS, CUDA_EVENT_RECORD_NODE_PARAMS
  };
  long long reserved2;
};
static_assert(sizeof(GraphNodeParams) == 256, "CUgraphNodeParams is 256 bytes");
struct InstantiateParams {
  unsigned long long flags;
  CUstream hUploadStream;
  CUgraphNode hErrNode_out;
  int result_out;
};
struct UpdateResultInfo {
  int result;
  CUgraphNode errorNode, errorFromNode;
};
struct EdgeData {
  unsigned char from_port, to_port, type, reserved[5];
};

CUresult check_edges(const char *api, const void *edges, size_t n) {
  if (!edges) return CUDA_SUCCESS;
  const unsigned char *b = static_cast<const unsigned char *>(edges);
  for (size_t i = 0; i < n * sizeof(EdgeData); i++)
    if (b[i])
      return fail(api, CUDA_ERROR_NOT_SUPPORTED,
                  "edges with ports or a type (programmatic dependencies) are not supported by simtvp");
  return CUDA_SUCCESS;
}

void clear_edges(void *edges, size_t n) {
  if (edges) std::memset(edges, 0, n * sizeof(EdgeData));
}

CUresult kernel_params(const char *api, const KernelNodeParams *in, bool v2, cu_graph_node_params *out) {
  if (!in) return fail(api, CUDA_ERROR_INVALID_VALUE, "the kernel parameters are NULL");
  std::memset(out, 0, sizeof *out);
  out->type = CU_GRAPH_NODE_KERNEL;
  CUfunction f = in->func;
  if (v2 && !f) f = reinterpret_cast<CUfunction>(in->kern);  // a library kernel names itself
  out->kernel.func = function_of(f);
  out->kernel.grid[0] = in->gridDimX;
  out->kernel.grid[1] = in->gridDimY;
  out->kernel.grid[2] = in->gridDimZ;
  out->kernel.block[0] = in->blockDimX;
  out->kernel.block[1] = in->blockDimY;
  out->kernel.block[2] = in->blockDimZ;
  out->kernel.smem = in->sharedMemBytes;
  out->kernel.args = in->kernelParams;
  if (in->extra) {
    if (in->kernelParams) return fail(api, CUDA_ERROR_INVALID_VALUE, "both kernelParams and extra are given");
    bool have_size = false;
    for (size_t i = 0; in->extra[i] != nullptr; i += 2) {
      if (i > 64) return fail(api, CUDA_ERROR_INVALID_VALUE, "extra is not terminated by CU_LAUNCH_PARAM_END");
      if (in->extra[i] == reinterpret_cast<void *>(1)) out->kernel.param_buffer = in->extra[i + 1];
      else if (in->extra[i] == reinterpret_cast<void *>(2) && in->extra[i + 1]) {
        out->kernel.param_bytes = *static_cast<size_t *>(in->extra[i + 1]);
        have_size = true;
      } else {
        return fail(api, CUDA_ERROR_INVALID_VALUE, "unknown entry in extra");
      }
    }
    if (!out->kernel.param_buffer || !have_size)
      return fail(api, CUDA_ERROR_INVALID_VALUE, "extra needs CU_LAUNCH_PARAM_BUFFER_POINTER and _SIZE");
  }
  return CUDA_SUCCESS;
}

void kernel_back(const cu_graph_node_params &p, KernelNodeParams *out, bool v2) {
  KernelNodeParams k;
  std::memset(&k, 0, sizeof k);
  k.func = reinterpret_cast<CUfunction>(p.kernel.func);
  k.gridDimX = p.kernel.grid[0];
  k.gridDimY = p.kernel.grid[1];
  k.gridDimZ = p.kernel.grid[2];
  k.blockDimX = p.kernel.block[0];
  k.blockDimY = p.kernel.block[1];
  k.blockDimZ = p.kernel.block[2];
  k.sharedMemBytes = p.kernel.smem;
  k.kernelParams = p.kernel.args;
  // A library's kernel is its own CUkernel handle too (cuda_library.cc).
  cu_module *m = cucore_function_module(p.kernel.func);
  if (m && cucore_module_is_library(m)) k.kern = reinterpret_cast<CUkernel>(p.kernel.func);
  k.ctx = reinterpret_cast<CUcontext>(current());
  std::memcpy(out, &k, v2 ? sizeof k : offsetof(KernelNodeParams, kern));
}

// One side of a CUDA_MEMCPY3D: the memory type says what the address is.
CUresult copy_side(const char *api, int type, const void *host, CUdeviceptr device, CUarray array, size_t x, size_t y,
                   size_t z, size_t pitch, size_t height, bool is_src, cu_copy_node_side *out) {
  std::memset(out, 0, sizeof *out);
  const char *which = is_src ? "source" : "destination";
  out->x_bytes = x;
  out->y = y;
  out->z = z;
  out->pitch = pitch;
  out->height = height;
  cu_mem_info info;
  switch (type) {
    case 3:  // CU_MEMORYTYPE_ARRAY
      if (!array) return fail(api, CUDA_ERROR_INVALID_VALUE, is_src ? "the source array is NULL" : "the destination array is NULL");
      out->array = reinterpret_cast<cu_array *>(array);
      return CUDA_SUCCESS;
    case 1:  // CU_MEMORYTYPE_HOST
      out->addr = reinterpret_cast<uint64_t>(host);
      cucore_mem_classify(out->addr, &info);
      if (info.type == CU_MEM_DEVICE) {
        cucore_fail(CUDA_ERROR_INVALID_VALUE, "the %s %p is device memory, given as host memory", which, host);
        return report(api, CUDA_ERROR_INVALID_VALUE);
      }
      out->type = info.type;
      return CUDA_SUCCESS;
    case 2:  // CU_MEMORYTYPE_DEVICE
    case 4:  // CU_MEMORYTYPE_UNIFIED
      out->addr = type == 2 ? device : reinterpret_cast<uint64_t>(host) ? reinterpret_cast<uint64_t>(host) : device;
      cucore_mem_classify(out->addr, &info);
      if (type == 2 && info.type != CU_MEM_DEVICE && info.type != CU_MEM_MANAGED) {
        cucore_fail(CUDA_ERROR_INVALID_VALUE, "the %s 0x%llx is not device memory", which, (unsigned long long)out->addr);
        return report(api, CUDA_ERROR_INVALID_VALUE);
      }
      out->type = info.type;
      return CUDA_SUCCESS;
    default:
      cucore_fail(CUDA_ERROR_INVALID_VALUE, "%s memory type %d", which, type);
      return report(api, CUDA_ERROR_INVALID_VALUE);
  }
}

CUresult copy_params(const char *api, const CudaMemcpy3D *p, cu_graph_node_params *out) {
  if (!p) return fail(api, CUDA_ERROR_INVALID_VALUE, "the copy parameters are NULL");
  if (p->srcLOD || p->dstLOD) return fail(api, CUDA_ERROR_NOT_SUPPORTED, "mipmap levels are not supported by simtvp");
  std::memset(out, 0, sizeof *out);
  out->type = CU_GRAPH_NODE_MEMCPY;
  if (CUresult r = copy_side(api, p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, p->srcXInBytes, p->srcY,
                             p->srcZ, p->srcPitch, p->srcHeight, true, &out->copy.src))
    return r;
  if (CUresult r = copy_side(api, p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, p->dstXInBytes, p->dstY,
                             p->dstZ, p->dstPitch, p->dstHeight, false, &out->copy.dst))
    return r;
  out->copy.width_bytes = p->WidthInBytes;
  out->copy.height = p->Height ? p->Height : 1;
  out->copy.depth = p->Depth ? p->Depth : 1;
  out->copy.api_kind = (p->srcMemoryType << 4) | p->dstMemoryType;  // read back as given
  return CUDA_SUCCESS;
}

void copy_back(const cu_copy_node_params &c, CudaMemcpy3D *p) {
  std::memset(p, 0, sizeof *p);
  auto side = [&](const cu_copy_node_side &sd, int given, int *type, const void **host, CUdeviceptr *dev,
                  CUarray *array, size_t *x, size_t *y, size_t *z, size_t *pitch, size_t *height) {
    *x = sd.x_bytes;
    *y = sd.y;
    *z = sd.z;
    if (sd.array) {
      *type = 3;
      *array = reinterpret_cast<CUarray>(sd.array);
      return;
    }
    *type = given ? given : (sd.type == CU_MEM_DEVICE || sd.type == CU_MEM_MANAGED) ? 2 : 1;
    if (*type == 1 || (*type == 4 && sd.type != CU_MEM_DEVICE)) *host = reinterpret_cast<const void *>(sd.addr);
    else *dev = sd.addr;
    *pitch = sd.pitch;
    *height = sd.height;
  };
  const void *dst_host = nullptr;
  side(c.src, c.api_kind >> 4, &p->srcMemoryType, &p->srcHost, &p->srcDevice, &p->srcArray, &p->srcXInBytes, &p->srcY,
       &p->srcZ, &p->srcPitch, &p->srcHeight);
  side(c.dst, c.api_kind & 0xf, &p->dstMemoryType, &dst_host, &p->dstDevice, &p->dstArray, &p->dstXInBytes, &p->dstY,
       &p->dstZ, &p->dstPitch, &p->dstHeight);
  p->dstHost = const_cast<void *>(dst_host);
  p->WidthInBytes = c.width_bytes;
  p->Height = c.height;
  p->Depth = c.depth;
}

CUresult memset_params(const char *api, const MemsetNodeParams *in, cu_graph_node_params *out) {
  if (!in) return fail(api, CUDA_ERROR_INVALID_VALUE, "the memset parameters are NULL");
  std::memset(out, 0, sizeof *out);
  out->type = CU_GRAPH_NODE_MEMSET;
  out->memset = cu_memset_node_params{in->dst, in->pitch, in->value, in->elementSize, in->width, in->height};
  return CUDA_SUCCESS;
}

CUresult host_params(const char *api, const HostNodeParams *in, cu_graph_node_params *out) {
  if (!in) return fail(api, CUDA_ERROR_INVALID_VALUE, "the host node parameters are NULL");
  std::memset(out, 0, sizeof *out);
  out->type = CU_GRAPH_NODE_HOST;
  out->host_fn = in->fn;
  out->host_data = in->userData;
  return CUDA_SUCCESS;
}

cu_graph_node_params simple_params(int type, CUevent event, CUgraph child) {
  cu_graph_node_params p;
  std::memset(&p, 0, sizeof p);
  p.type = type;
  p.event = event_of(event);
  p.child = graph_of(child);
  return p;
}

CUresult generic_params(const char *api, const GraphNodeParams *in, cu_graph_node_params *out) {
  if (!in) return fail(api, CUDA_ERROR_INVALID_VALUE, "the node parameters are NULL");
  switch (in->type) {
    case CU_GRAPH_NODE_KERNEL: return kernel_params(api, &in->kernel, true, out);
    case CU_GRAPH_NODE_MEMCPY: return copy_params(api, &in->memcpy.copyParams, out);
    case CU_GRAPH_NODE_MEMSET: return memset_params(api, &in->memset, out);
    case CU_GRAPH_NODE_HOST: return host_params(api, &in->host, out);
    case CU_GRAPH_NODE_GRAPH:
      if (in->graph.ownership != 0)
        return fail(api, CUDA_ERROR_NOT_SUPPORTED, "child graph ownership other than cloning is not supported by simtvp");
      *out = simple_params(CU_GRAPH_NODE_GRAPH, nullptr, in->graph.graph);
      return CUDA_SUCCESS;
    case CU_GRAPH_NODE_EMPTY:
    case CU_GRAPH_NODE_WAIT_EVENT:
    case CU_GRAPH_NODE_EVENT_RECORD:
      *out = simple_params(in->type, in->type == CU_GRAPH_NODE_EMPTY ? nullptr : in->event, nullptr);
      return CUDA_SUCCESS;
    default:
      cucore_fail(CUDA_ERROR_NOT_SUPPORTED,
                  "graph node type %d is not supported by simtvp (kernel, memcpy, memset, host, child graph, empty and "
                  "event nodes are)", in->type);
      return report(api, CUDA_ERROR_NOT_SUPPORTED);
  }
}

CUresult add(const char *api, CUgraphNode *out, CUgraph graph, const CUgraphNode *deps, size_t n,
             const cu_graph_node_params &p) {
  NEED_CONTEXT(api);
  if (!out) return fail(api, CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_graph_node *node = nullptr;
  CUresult r = report(api, cucore_graph_add_node(graph_of(graph), nodes_of(deps), n, &p, &node));
  if (r == CUDA_SUCCESS) *out = reinterpret_cast<CUgraphNode>(node);
  return r;
}

CUresult read_node(const char *api, CUgraphNode node, int type, cu_graph_node_params *p) {
  CUresult r = report(api, cucore_graph_node_params(node_of(node), p));
  if (r != CUDA_SUCCESS) return r;
  if (p->type != type) return fail(api, CUDA_ERROR_INVALID_VALUE, "the node is not of the type this call reads");
  return CUDA_SUCCESS;
}

CUresult set_node(const char *api, CUgraphNode node, const cu_graph_node_params &p) {
  return report(api, cucore_graph_node_set_params(node_of(node), &p));
}

CUresult set_exec(const char *api, CUgraphExec exec, CUgraphNode node, const cu_graph_node_params &p) {
  return report(api, cucore_graph_exec_node_set_params(exec_of(exec), node_of(node), &p));
}

#define PTSZ(h) reinterpret_cast<CUstream>(stream_ptsz(h))

}  // namespace

// ---- graphs -------------------------------------------------------------------------------------

CU_EXPORT CUresult cuGraphCreate(CUgraph *phGraph, unsigned int flags) {
  NEED_INIT("cuGraphCreate");
  if (!phGraph) return fail("cuGraphCreate", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  if (flags) return fail("cuGraphCreate", CUDA_ERROR_INVALID_VALUE, "flags must be 0");
  cu_graph *g = nullptr;
  CUresult r = report("cuGraphCreate", cucore_graph_create(&g));
  if (r == CUDA_SUCCESS) *phGraph = reinterpret_cast<CUgraph>(g);
  return r;
}
CU_EXPORT CUresult cuGraphDestroy(CUgraph hGraph) {
  NEED_INIT("cuGraphDestroy");
  return report("cuGraphDestroy", cucore_graph_destroy(graph_of(hGraph)));
}
CU_EXPORT CUresult cuGraphClone(CUgraph *phGraphClone, CUgraph originalGraph) {
  NEED_INIT("cuGraphClone");
  if (!phGraphClone) return fail("cuGraphClone", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_graph *g = nullptr;
  CUresult r = report("cuGraphClone", cucore_graph_clone(graph_of(originalGraph), &g));
  if (r == CUDA_SUCCESS) *phGraphClone = reinterpret_cast<CUgraph>(g);
  return r;
}
CU_EXPORT CUresult cuGraphNodeFindInClone(CUgraphNode *phNode, CUgraphNode hOriginalNode, CUgraph hClonedGraph) {
  NEED_INIT("cuGraphNodeFindInClone");
  return report("cuGraphNodeFindInClone", cucore_graph_find_in_clone(graph_of(hClonedGraph), node_of(hOriginalNode),
                                                                      reinterpret_cast<cu_graph_node **>(phNode)));
}
CU_EXPORT CUresult cuGraphDebugDotPrint(CUgraph hGraph, const char *path, unsigned int flags) {
  NEED_INIT("cuGraphDebugDotPrint");
  return report("cuGraphDebugDotPrint", cucore_graph_debug_dot(graph_of(hGraph), path, flags));
}

// ---- nodes ---------------------------------------------------------------------------------------

CU_EXPORT CUresult cuGraphAddKernelNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                        size_t numDependencies, const void *nodeParams) {
  cu_graph_node_params p;
  if (CUresult r = kernel_params("cuGraphAddKernelNode", static_cast<const KernelNodeParams *>(nodeParams), false, &p))
    return r;
  return add("cuGraphAddKernelNode", phGraphNode, hGraph, dependencies, numDependencies, p);
}
CU_EXPORT CUresult cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                           size_t numDependencies, const void *nodeParams) {
  cu_graph_node_params p;
  if (CUresult r = kernel_params("cuGraphAddKernelNode", static_cast<const KernelNodeParams *>(nodeParams), true, &p))
    return r;
  return add("cuGraphAddKernelNode", phGraphNode, hGraph, dependencies, numDependencies, p);
}
static CUresult kernel_get(const char *api, CUgraphNode hNode, void *nodeParams, bool v2) {
  NEED_INIT(api);
  if (!nodeParams) return fail(api, CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_graph_node_params p;
  if (CUresult r = read_node(api, hNode, CU_GRAPH_NODE_KERNEL, &p)) return r;
  kernel_back(p, static_cast<KernelNodeParams *>(nodeParams), v2);
  return CUDA_SUCCESS;
}
CU_EXPORT CUresult cuGraphKernelNodeGetParams(CUgraphNode hNode, void *nodeParams) {
  return kernel_get("cuGraphKernelNodeGetParams", hNode, nodeParams, false);
}
CU_EXPORT CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode hNode, void *nodeParams) {
  return kernel_get("cuGraphKernelNodeGetParams", hNode, nodeParams, true);
}
static CUresult kernel_set(const char *api, CUgraphExec exec, CUgraphNode hNode, const void *nodeParams, bool v2) {
  NEED_CONTEXT(api);
  cu_graph_node_params p;
  if (CUresult r = kernel_params(api, static_cast<const KernelNodeParams *>(nodeParams), v2, &p)) return r;
  return exec ? set_exec(api, exec, hNode, p) : set_node(api, hNode, p);
}
CU_EXPORT CUresult cuGraphKernelNodeSetParams(CUgraphNode hNode, const void *nodeParams) {
  return kernel_set("cuGraphKernelNodeSetParams", nullptr, hNode, nodeParams, false);
}
CU_EXPORT CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode hNode, const void *nodeParams) {
  return kernel_set("cuGraphKernelNodeSetParams", nullptr, hNode, nodeParams, true);
}
CU_EXPORT CUresult cuGraphExecKernelNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, const void *nodeParams) {
  return kernel_set("cuGraphExecKernelNodeSetParams", hGraphExec, hNode, nodeParams, false);
}
CU_EXPORT CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec hGraphExec, CUgraphNode hNode, const void *nodeParams) {
  return kernel_set("cuGraphExecKernelNodeSetParams", hGraphExec, hNode, nodeParams, true);
}

// The context of a copy or memset node: any live one (they share the one device), NULL the current.
static CUresult node_ctx(const char *api, CUcontext ctx) {
  if (ctx && !cucore_ctx_valid(reinterpret_cast<cu_ctx *>(ctx)))
    return fail(api, CUDA_ERROR_INVALID_CONTEXT, "not a live context");
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuGraphAddMemcpyNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                        size_t numDependencies, const void *copyParams, CUcontext ctx) {
  NEED_CONTEXT("cuGraphAddMemcpyNode");
  if (CUresult r = node_ctx("cuGraphAddMemcpyNode", ctx)) return r;
  cu_graph_node_params p;
  if (CUresult r = copy_params("cuGraphAddMemcpyNode", static_cast<const CudaMemcpy3D *>(copyParams), &p)) return r;
  return add("cuGraphAddMemcpyNode", phGraphNode, hGraph, dependencies, numDependencies, p);
}
CU_EXPORT CUresult cuGraphMemcpyNodeGetParams(CUgraphNode hNode, void *nodeParams) {
  NEED_INIT("cuGraphMemcpyNodeGetParams");
  if (!nodeParams) return fail("cuGraphMemcpyNodeGetParams", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_graph_node_params p;
  if (CUresult r = read_node("cuGraphMemcpyNodeGetParams", hNode, CU_GRAPH_NODE_MEMCPY, &p)) return r;
  copy_back(p.copy, static_cast<CudaMemcpy3D *>(nodeParams));
  return CUDA_SUCCESS;
}
CU_EXPORT CUresult cuGraphMemcpyNodeSetParams(CUgraphNode hNode, const void *nodeParams) {
  NEED_CONTEXT("cuGraphMemcpyNodeSetParams");
  cu_graph_node_params p;
  if (CUresult r = copy_params("cuGraphMemcpyNodeSetParams", static_cast<const CudaMemcpy3D *>(nodeParams), &p)) return r;
  return set_node("cuGraphMemcpyNodeSetParams", hNode, p);
}
CU_EXPORT CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, const void *copyParams,
                                                  CUcontext ctx) {
  NEED_CONTEXT("cuGraphExecMemcpyNodeSetParams");
  if (CUresult r = node_ctx("cuGraphExecMemcpyNodeSetParams", ctx)) return r;
  cu_graph_node_params p;
  if (CUresult r = copy_params("cuGraphExecMemcpyNodeSetParams", static_cast<const CudaMemcpy3D *>(copyParams), &p))
    return r;
  return set_exec("cuGraphExecMemcpyNodeSetParams", hGraphExec, hNode, p);
}

CU_EXPORT CUresult cuGraphAddMemsetNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                        size_t numDependencies, const void *memsetParams, CUcontext ctx) {
  NEED_CONTEXT("cuGraphAddMemsetNode");
  if (CUresult r = node_ctx("cuGraphAddMemsetNode", ctx)) return r;
  cu_graph_node_params p;
  if (CUresult r = memset_params("cuGraphAddMemsetNode", static_cast<const MemsetNodeParams *>(memsetParams), &p))
    return r;
  return add("cuGraphAddMemsetNode", phGraphNode, hGraph, dependencies, numDependencies, p);
}
CU_EXPORT CUresult cuGraphMemsetNodeGetParams(CUgraphNode hNode, void *nodeParams) {
  NEED_INIT("cuGraphMemsetNodeGetParams");
  if (!nodeParams) return fail("cuGraphMemsetNodeGetParams", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_graph_node_params p;
  if (CUresult r = read_node("cuGraphMemsetNodeGetParams", hNode, CU_GRAPH_NODE_MEMSET, &p)) return r;
  MemsetNodeParams m{p.memset.dst, p.memset.pitch, p.memset.value, p.memset.elem_bytes, p.memset.width, p.memset.height,
                     nullptr};
  std::memcpy(nodeParams, &m, offsetof(MemsetNodeParams, ctx));  // CUDA_MEMSET_NODE_PARAMS (v1) has no ctx
  return CUDA_SUCCESS;
}
CU_EXPORT CUresult cuGraphMemsetNodeSetParams(CUgraphNode hNode, const void *nodeParams) {
  NEED_CONTEXT("cuGraphMemsetNodeSetParams");
  cu_graph_node_params p;
  if (CUresult r = memset_params("cuGraphMemsetNodeSetParams", static_cast<const MemsetNodeParams *>(nodeParams), &p))
    return r;
  return set_node("cuGraphMemsetNodeSetParams", hNode, p);
}
CU_EXPORT CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, const void *memsetParams,
                                                  CUcontext ctx) {
  NEED_CONTEXT("cuGraphExecMemsetNodeSetParams");
  if (CUresult r = node_ctx("cuGraphExecMemsetNodeSetParams", ctx)) return r;
  cu_graph_node_params p;
  if (CUresult r = memset_params("cuGraphExecMemsetNodeSetParams", static_cast<const MemsetNodeParams *>(memsetParams),
                                 &p))
    return r;
  return set_exec("cuGraphExecMemsetNodeSetParams", hGraphExec, hNode, p);
}

CU_EXPORT CUresult cuGraphAddHostNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                      size_t numDependencies, const void *nodeParams) {
  cu_graph_node_params p;
  if (CUresult r = host_params("cuGraphAddHostNode", static_cast<const HostNodeParams *>(nodeParams), &p)) return r;
  return add("cuGraphAddHostNode", phGraphNode, hGraph, dependencies, numDependencies, p);
}
CU_EXPORT CUresult cuGraphHostNodeGetParams(CUgraphNode hNode, void *nodeParams) {
  NEED_INIT("cuGraphHostNodeGetParams");
  if (!nodeParams) return fail("cuGraphHostNodeGetParams", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_graph_node_params p;
  if (CUresult r = read_node("cuGraphHostNodeGetParams", hNode, CU_GRAPH_NODE_HOST, &p)) return r;
  *static_cast<HostNodeParams *>(nodeParams) = HostNodeParams{p.host_fn, p.host_data};
  return CUDA_SUCCESS;
}
CU_EXPORT CUresult cuGraphHostNodeSetParams(CUgraphNode hNode, const void *nodeParams) {
  NEED_INIT("cuGraphHostNodeSetParams");
  cu_graph_node_params p;
  if (CUresult r = host_params("cuGraphHostNodeSetParams", static_cast<const HostNodeParams *>(nodeParams), &p)) return r;
  return set_node("cuGraphHostNodeSetParams", hNode, p);
}
CU_EXPORT CUresult cuGraphExecHostNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, const void *nodeParams) {
  NEED_CONTEXT("cuGraphExecHostNodeSetParams");
  cu_graph_node_params p;
  if (CUresult r = host_params("cuGraphExecHostNodeSetParams", static_cast<const HostNodeParams *>(nodeParams), &p))
    return r;
  return set_exec("cuGraphExecHostNodeSetParams", hGraphExec, hNode, p);
}

CU_EXPORT CUresult cuGraphAddEmptyNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                       size_t numDependencies) {
  return add("cuGraphAddEmptyNode", phGraphNode, hGraph, dependencies, numDependencies,
             simple_params(CU_GRAPH_NODE_EMPTY, nullptr, nullptr));
}
CU_EXPORT CUresult cuGraphAddEventRecordNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                             size_t numDependencies, CUevent event) {
  return add("cuGraphAddEventRecordNode", phGraphNode, hGraph, dependencies, numDependencies,
             simple_params(CU_GRAPH_NODE_EVENT_RECORD, event, nullptr));
}
CU_EXPORT CUresult cuGraphAddEventWaitNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                           size_t numDependencies, CUevent event) {
  return add("cuGraphAddEventWaitNode", phGraphNode, hGraph, dependencies, numDependencies,
             simple_params(CU_GRAPH_NODE_WAIT_EVENT, event, nullptr));
}
static CUresult node_event(const char *api, CUgraphNode hNode, int type, CUevent *out) {
  NEED_INIT(api);
  if (!out) return fail(api, CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_graph_node_params p;
  if (CUresult r = read_node(api, hNode, type, &p)) return r;
  *out = reinterpret_cast<CUevent>(p.event);
  return CUDA_SUCCESS;
}
CU_EXPORT CUresult cuGraphEventRecordNodeGetEvent(CUgraphNode hNode, CUevent *event_out) {
  return node_event("cuGraphEventRecordNodeGetEvent", hNode, CU_GRAPH_NODE_EVENT_RECORD, event_out);
}
CU_EXPORT CUresult cuGraphEventWaitNodeGetEvent(CUgraphNode hNode, CUevent *event_out) {
  return node_event("cuGraphEventWaitNodeGetEvent", hNode, CU_GRAPH_NODE_WAIT_EVENT, event_out);
}
CU_EXPORT CUresult cuGraphEventRecordNodeSetEvent(CUgraphNode hNode, CUevent event) {
  NEED_INIT("cuGraphEventRecordNodeSetEvent");
  return set_node("cuGraphEventRecordNodeSetEvent", hNode, simple_params(CU_GRAPH_NODE_EVENT_RECORD, event, nullptr));
}
CU_EXPORT CUresult cuGraphEventWaitNodeSetEvent(CUgraphNode hNode, CUevent event) {
  NEED_INIT("cuGraphEventWaitNodeSetEvent");
  return set_node("cuGraphEventWaitNodeSetEvent", hNode, simple_params(CU_GRAPH_NODE_WAIT_EVENT, event, nullptr));
}
CU_EXPORT CUresult cuGraphExecEventRecordNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event) {
  NEED_CONTEXT("cuGraphExecEventRecordNodeSetEvent");
  return set_exec("cuGraphExecEventRecordNodeSetEvent", hGraphExec, hNode,
                  simple_params(CU_GRAPH_NODE_EVENT_RECORD, event, nullptr));
}
CU_EXPORT CUresult cuGraphExecEventWaitNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event) {
  NEED_CONTEXT("cuGraphExecEventWaitNodeSetEvent");
  return set_exec("cuGraphExecEventWaitNodeSetEvent", hGraphExec, hNode,
                  simple_params(CU_GRAPH_NODE_WAIT_EVENT, event, nullptr));
}

CU_EXPORT CUresult cuGraphAddChildGraphNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                            size_t numDependencies, CUgraph childGraph) {
  return add("cuGraphAddChildGraphNode", phGraphNode, hGraph, dependencies, numDependencies,
             simple_params(CU_GRAPH_NODE_GRAPH, nullptr, childGraph));
}
CU_EXPORT CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode hNode, CUgraph *phGraph) {
  NEED_INIT("cuGraphChildGraphNodeGetGraph");
  if (!phGraph) return fail("cuGraphChildGraphNodeGetGraph", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_graph_node_params p;
  if (CUresult r = read_node("cuGraphChildGraphNodeGetGraph", hNode, CU_GRAPH_NODE_GRAPH, &p)) return r;
  *phGraph = reinterpret_cast<CUgraph>(p.child);
  return CUDA_SUCCESS;
}
CU_EXPORT CUresult cuGraphExecChildGraphNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, CUgraph childGraph) {
  NEED_CONTEXT("cuGraphExecChildGraphNodeSetParams");
  return set_exec("cuGraphExecChildGraphNodeSetParams", hGraphExec, hNode,
                  simple_params(CU_GRAPH_NODE_GRAPH, nullptr, childGraph));
}

CU_EXPORT CUresult cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                  size_t numDependencies, void *nodeParams) {
  cu_graph_node_params p;
  if (CUresult r = generic_params("cuGraphAddNode", static_cast<const GraphNodeParams *>(nodeParams), &p)) return r;
  return add("cuGraphAddNode", phGraphNode, hGraph, dependencies, numDependencies, p);
}
CU_EXPORT CUresult cuGraphAddNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                     const void *dependencyData, size_t numDependencies, void *nodeParams) {
  if (CUresult r = check_edges("cuGraphAddNode", dependencyData, numDependencies)) return r;
  return cuGraphAddNode(phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
}
CU_EXPORT CUresult cuGraphNodeSetParams(CUgraphNode hNode, void *nodeParams) {
  NEED_CONTEXT("cuGraphNodeSetParams");
  cu_graph_node_params p;
  if (CUresult r = generic_params("cuGraphNodeSetParams", static_cast<const GraphNodeParams *>(nodeParams), &p)) return r;
  return set_node("cuGraphNodeSetParams", hNode, p);
}
CU_EXPORT CUresult cuGraphExecNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, void *nodeParams) {
  NEED_CONTEXT("cuGraphExecNodeSetParams");
  cu_graph_node_params p;
  if (CUresult r = generic_params("cuGraphExecNodeSetParams", static_cast<const GraphNodeParams *>(nodeParams), &p))
    return r;
  return set_exec("cuGraphExecNodeSetParams", hGraphExec, hNode, p);
}

CU_EXPORT CUresult cuGraphNodeGetType(CUgraphNode hNode, int *type) {
  NEED_INIT("cuGraphNodeGetType");
  if (!type) return fail("cuGraphNodeGetType", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  return report("cuGraphNodeGetType", cucore_graph_node_type(node_of(hNode), type));
}
CU_EXPORT CUresult cuGraphDestroyNode(CUgraphNode hNode) {
  NEED_INIT("cuGraphDestroyNode");
  return report("cuGraphDestroyNode", cucore_graph_destroy_node(node_of(hNode)));
}

// ---- structure -------------------------------------------------------------------------------------

CU_EXPORT CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes) {
  NEED_INIT("cuGraphGetNodes");
  return report("cuGraphGetNodes", cucore_graph_nodes(graph_of(hGraph), false, reinterpret_cast<cu_graph_node **>(nodes),
                                                      numNodes));
}
CU_EXPORT CUresult cuGraphGetRootNodes(CUgraph hGraph, CUgraphNode *rootNodes, size_t *numRootNodes) {
  NEED_INIT("cuGraphGetRootNodes");
  return report("cuGraphGetRootNodes", cucore_graph_nodes(graph_of(hGraph), true,
                                                          reinterpret_cast<cu_graph_node **>(rootNodes), numRootNodes));
}
CU_EXPORT CUresult cuGraphGetEdges_v2(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, void *edgeData,
                                      size_t *numEdges) {
  NEED_INIT("cuGraphGetEdges");
  CUresult r = report("cuGraphGetEdges", cucore_graph_edges(graph_of(hGraph), reinterpret_cast<cu_graph_node **>(from),
                                                            reinterpret_cast<cu_graph_node **>(to), numEdges));
  if (r == CUDA_SUCCESS && from && numEdges) clear_edges(edgeData, *numEdges);
  return r;
}
CU_EXPORT CUresult cuGraphGetEdges(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, size_t *numEdges) {
  return cuGraphGetEdges_v2(hGraph, from, to, nullptr, numEdges);
}
static CUresult node_edges(const char *api, CUgraphNode hNode, bool dependents, CUgraphNode *nodes, void *edgeData,
                           size_t *n) {
  NEED_INIT(api);
  CUresult r = report(api, cucore_graph_node_edges(node_of(hNode), dependents, reinterpret_cast<cu_graph_node **>(nodes), n));
  if (r == CUDA_SUCCESS && nodes && n) clear_edges(edgeData, *n);
  return r;
}
CU_EXPORT CUresult cuGraphNodeGetDependencies(CUgraphNode hNode, CUgraphNode *dependencies, size_t *numDependencies) {
  return node_edges("cuGraphNodeGetDependencies", hNode, false, dependencies, nullptr, numDependencies);
}
CU_EXPORT CUresult cuGraphNodeGetDependencies_v2(CUgraphNode hNode, CUgraphNode *dependencies, void *edgeData,
                                                 size_t *numDependencies) {
  return node_edges("cuGraphNodeGetDependencies", hNode, false, dependencies, edgeData, numDependencies);
}
CU_EXPORT CUresult cuGraphNodeGetDependentNodes(CUgraphNode hNode, CUgraphNode *dependentNodes, size_t *numDependentNodes) {
  return node_edges("cuGraphNodeGetDependentNodes", hNode, true, dependentNodes, nullptr, numDependentNodes);
}
CU_EXPORT CUresult cuGraphNodeGetDependentNodes_v2(CUgraphNode hNode, CUgraphNode *dependentNodes, void *edgeData,
                                                   size_t *numDependentNodes) {
  return node_edges("cuGraphNodeGetDependentNodes", hNode, true, dependentNodes, edgeData, numDependentNodes);
}
static CUresult dependencies(const char *api, CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                             const void *edgeData, size_t n, bool remove) {
  NEED_INIT(api);
  if (CUresult r = check_edges(api, edgeData, n)) return r;
  return report(api, cucore_graph_add_dependencies(graph_of(hGraph), nodes_of(from), nodes_of(to), n, remove));
}
CU_EXPORT CUresult cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                          size_t numDependencies) {
  return dependencies("cuGraphAddDependencies", hGraph, from, to, nullptr, numDependencies, false);
}
CU_EXPORT CUresult cuGraphAddDependencies_v2(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                             const void *edgeData, size_t numDependencies) {
  return dependencies("cuGraphAddDependencies", hGraph, from, to, edgeData, numDependencies, false);
}
CU_EXPORT CUresult cuGraphRemoveDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                             size_t numDependencies) {
  return dependencies("cuGraphRemoveDependencies", hGraph, from, to, nullptr, numDependencies, true);
}
CU_EXPORT CUresult cuGraphRemoveDependencies_v2(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                                const void *edgeData, size_t numDependencies) {
  return dependencies("cuGraphRemoveDependencies", hGraph, from, to, edgeData, numDependencies, true);
}

// ---- executable graphs ------------------------------------------------------------------------------

static CUresult instantiate(const char *api, CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags,
                            CUgraphNode *error_node) {
  NEED_CONTEXT(api);
  if (!phGraphExec) return fail(api, CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_graph_exec *x = nullptr;
  cu_graph_node *bad = nullptr;
  CUresult r = report(api, cucore_graph_instantiate(graph_of(hGraph), flags, &x, &bad));
  if (r == CUDA_SUCCESS) *phGraphExec = reinterpret_cast<CUgraphExec>(x);
  if (error_node) *error_node = reinterpret_cast<CUgraphNode>(bad);
  return r;
}
// CUDA 10-11's form: an error node and a log buffer.
CU_EXPORT CUresult cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
                                      char *logBuffer, size_t bufferSize) {
  CUresult r = instantiate("cuGraphInstantiate", phGraphExec, hGraph, 0, phErrorNode);
  if (logBuffer && bufferSize) {
    const char *msg = r == CUDA_SUCCESS ? "" : cucore_last_message();
    std::strncpy(logBuffer, msg, bufferSize - 1);
    logBuffer[bufferSize - 1] = 0;
  }
  return r;
}
CU_EXPORT CUresult cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
                                         char *logBuffer, size_t bufferSize) {
  return cuGraphInstantiate(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
}
CU_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph, unsigned long long flags) {
  return instantiate("cuGraphInstantiateWithFlags", phGraphExec, hGraph, flags, nullptr);
}
static CUresult instantiate_with_params(const char *api, CUgraphExec *phGraphExec, CUgraph hGraph, void *params,
                                        bool per_thread) {
  if (!params) return fail(api, CUDA_ERROR_INVALID_VALUE, "the instantiation parameters are NULL");
  InstantiateParams &p = *static_cast<InstantiateParams *>(params);
  CUgraphNode bad = nullptr;
  CUresult r = instantiate(api, phGraphExec, hGraph, p.flags, &bad);
  p.hErrNode_out = bad;
  p.result_out = r == CUDA_SUCCESS ? 0 : r == CUDA_ERROR_INVALID_VALUE ? 2 : 1;  // CUgraphInstantiateResult
  if (r == CUDA_SUCCESS && (p.flags & 2ull)) {  // CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD
    CUstream s = per_thread ? PTSZ(p.hUploadStream) : p.hUploadStream;
    r = report(api, cucore_graph_upload(exec_of(*phGraphExec), stream_of(s)));
  }
  return r;
}
CU_EXPORT CUresult cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph, void *instantiateParams) {
  return instantiate_with_params("cuGraphInstantiateWithParams", phGraphExec, hGraph, instantiateParams, false);
}
CU_EXPORT CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec, CUgraph hGraph, void *instantiateParams) {
  return instantiate_with_params("cuGraphInstantiateWithParams", phGraphExec, hGraph, instantiateParams, true);
}
CU_EXPORT CUresult cuGraphExecDestroy(CUgraphExec hGraphExec) {
  NEED_INIT("cuGraphExecDestroy");
  return report("cuGraphExecDestroy", cucore_graph_exec_destroy(exec_of(hGraphExec)));
}
CU_EXPORT CUresult cuGraphExecGetFlags(CUgraphExec hGraphExec, unsigned long long *flags) {
  NEED_INIT("cuGraphExecGetFlags");
  return report("cuGraphExecGetFlags", cucore_graph_exec_flags(exec_of(hGraphExec), flags));
}
CU_EXPORT CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream) {
  NEED_CONTEXT("cuGraphLaunch");
  return report("cuGraphLaunch", cucore_graph_launch(exec_of(hGraphExec), stream_of(hStream)));
}
CU_EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream) {
  return cuGraphLaunch(hGraphExec, PTSZ(hStream));
}
CU_EXPORT CUresult cuGraphUpload(CUgraphExec hGraphExec, CUstream hStream) {
  NEED_CONTEXT("cuGraphUpload");
  return report("cuGraphUpload", cucore_graph_upload(exec_of(hGraphExec), stream_of(hStream)));
}
CU_EXPORT CUresult cuGraphUpload_ptsz(CUgraphExec hGraphExec, CUstream hStream) {
  return cuGraphUpload(hGraphExec, PTSZ(hStream));
}
CU_EXPORT CUresult cuGraphExecUpdate_v2(CUgraphExec hGraphExec, CUgraph hGraph, void *resultInfo) {
  NEED_CONTEXT("cuGraphExecUpdate");
  int result = 0;
  cu_graph_node *bad = nullptr, *bad_from = nullptr;
  CUresult r = report("cuGraphExecUpdate",
                      cucore_graph_exec_update(exec_of(hGraphExec), graph_of(hGraph), &result, &bad, &bad_from));
  if (resultInfo) {
    UpdateResultInfo &info = *static_cast<UpdateResultInfo *>(resultInfo);
    info.result = r == CUDA_SUCCESS ? 0 : result ? result : 1;
    info.errorNode = reinterpret_cast<CUgraphNode>(bad);
    info.errorFromNode = reinterpret_cast<CUgraphNode>(bad_from);
  }
  return r;
}
// CUDA 10.2's form: the error node and the result separately.
CU_EXPORT CUresult cuGraphExecUpdate(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphNode *hErrorNode_out,
                                     int *updateResult_out) {
  UpdateResultInfo info{0, nullptr, nullptr};
  CUresult r = cuGraphExecUpdate_v2(hGraphExec, hGraph, &info);
  if (hErrorNode_out) *hErrorNode_out = info.errorNode;
  if (updateResult_out) *updateResult_out = info.result;
  return r;
}
CU_EXPORT CUresult cuGraphNodeSetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int isEnabled) {
  NEED_INIT("cuGraphNodeSetEnabled");
  return report("cuGraphNodeSetEnabled",
                cucore_graph_exec_node_enabled(exec_of(hGraphExec), node_of(hNode), isEnabled ? 1 : 0, nullptr));
}
CU_EXPORT CUresult cuGraphNodeGetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int *isEnabled) {
  NEED_INIT("cuGraphNodeGetEnabled");
  if (!isEnabled) return fail("cuGraphNodeGetEnabled", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  return report("cuGraphNodeGetEnabled", cucore_graph_exec_node_enabled(exec_of(hGraphExec), node_of(hNode), -1, isEnabled));
}

// ---- stream capture ---------------------------------------------------------------------------------

static CUresult begin_capture(const char *api, CUstream hStream, CUgraph hGraph, const CUgraphNode *deps,
                              const void *edges, size_t n, int mode) {
  NEED_CONTEXT(api);
  if (CUresult r = check_edges(api, edges, n)) return r;
  return report(api, cucore_stream_begin_capture(stream_of(hStream), mode, graph_of(hGraph), nodes_of(deps), n));
}
// CUDA 10.0's form: global mode.
CU_EXPORT CUresult cuStreamBeginCapture(CUstream hStream) {
  return begin_capture("cuStreamBeginCapture", hStream, nullptr, nullptr, nullptr, 0, 0);
}
CU_EXPORT CUresult cuStreamBeginCapture_ptsz(CUstream hStream) {
  return begin_capture("cuStreamBeginCapture", PTSZ(hStream), nullptr, nullptr, nullptr, 0, 0);
}
CU_EXPORT CUresult cuStreamBeginCapture_v2(CUstream hStream, int mode) {
  return begin_capture("cuStreamBeginCapture", hStream, nullptr, nullptr, nullptr, 0, mode);
}
CU_EXPORT CUresult cuStreamBeginCapture_v2_ptsz(CUstream hStream, int mode) {
  return begin_capture("cuStreamBeginCapture", PTSZ(hStream), nullptr, nullptr, nullptr, 0, mode);
}
CU_EXPORT CUresult cuStreamBeginCaptureToGraph(CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies,
                                               const void *dependencyData, size_t numDependencies, int mode) {
  if (!hGraph) return fail("cuStreamBeginCaptureToGraph", CUDA_ERROR_INVALID_VALUE, "the graph is NULL");
  return begin_capture("cuStreamBeginCaptureToGraph", hStream, hGraph, dependencies, dependencyData, numDependencies,
                       mode);
}
CU_EXPORT CUresult cuStreamBeginCaptureToGraph_ptsz(CUstream hStream, CUgraph hGraph, const CUgraphNode *dependencies,
                                                    const void *dependencyData, size_t numDependencies, int mode) {
  return cuStreamBeginCaptureToGraph(PTSZ(hStream), hGraph, dependencies, dependencyData, numDependencies, mode);
}
CU_EXPORT CUresult cuStreamEndCapture(CUstream hStream, CUgraph *phGraph) {
  NEED_CONTEXT("cuStreamEndCapture");
  cu_graph *g = nullptr;
  CUresult r = report("cuStreamEndCapture", cucore_stream_end_capture(stream_of(hStream), &g));
  if (phGraph) *phGraph = reinterpret_cast<CUgraph>(g);
  return r;
}
CU_EXPORT CUresult cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph) {
  return cuStreamEndCapture(PTSZ(hStream), phGraph);
}
CU_EXPORT CUresult cuStreamIsCapturing(CUstream hStream, int *captureStatus) {
  NEED_CONTEXT("cuStreamIsCapturing");
  if (!captureStatus) return fail("cuStreamIsCapturing", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  return report("cuStreamIsCapturing",
                cucore_stream_capture_info(stream_of(hStream), captureStatus, nullptr, nullptr, nullptr, nullptr));
}
CU_EXPORT CUresult cuStreamIsCapturing_ptsz(CUstream hStream, int *captureStatus) {
  return cuStreamIsCapturing(PTSZ(hStream), captureStatus);
}
CU_EXPORT CUresult cuStreamGetCaptureInfo_v3(CUstream hStream, int *captureStatus_out, unsigned long long *id_out,
                                             CUgraph *graph_out, const CUgraphNode **dependencies_out,
                                             const void **edgeData_out, size_t *numDependencies_out) {
  NEED_CONTEXT("cuStreamGetCaptureInfo");
  if (!captureStatus_out) return fail("cuStreamGetCaptureInfo", CUDA_ERROR_INVALID_VALUE, "the status pointer is NULL");
  cu_graph *g = nullptr;
  cu_graph_node *const *d = nullptr;
  size_t n = 0;
  CUresult r = report("cuStreamGetCaptureInfo", cucore_stream_capture_info(stream_of(hStream), captureStatus_out,
                                                                          id_out, &g, &d, &n));
  if (r == CUDA_SUCCESS && *captureStatus_out == 1) {
    if (graph_out) *graph_out = reinterpret_cast<CUgraph>(g);
    if (dependencies_out) *dependencies_out = reinterpret_cast<const CUgraphNode *>(d);
    if (edgeData_out) *edgeData_out = nullptr;  // default edges only
    if (numDependencies_out) *numDependencies_out = n;
  }
  return r;
}
CU_EXPORT CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream, int *captureStatus_out, unsigned long long *id_out,
                                                  CUgraph *graph_out, const CUgraphNode **dependencies_out,
                                                  const void **edgeData_out, size_t *numDependencies_out) {
  return cuStreamGetCaptureInfo_v3(PTSZ(hStream), captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out,
                                   numDependencies_out);
}
CU_EXPORT CUresult cuStreamGetCaptureInfo_v2(CUstream hStream, int *captureStatus_out, unsigned long long *id_out,
                                             CUgraph *graph_out, const CUgraphNode **dependencies_out,
                                             size_t *numDependencies_out) {
  return cuStreamGetCaptureInfo_v3(hStream, captureStatus_out, id_out, graph_out, dependencies_out, nullptr,
                                   numDependencies_out);
}
CU_EXPORT CUresult cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream, int *captureStatus_out, unsigned long long *id_out,
                                                  CUgraph *graph_out, const CUgraphNode **dependencies_out,
                                                  size_t *numDependencies_out) {
  return cuStreamGetCaptureInfo_v3(PTSZ(hStream), captureStatus_out, id_out, graph_out, dependencies_out, nullptr,
                                   numDependencies_out);
}
// CUDA 10.1's form: status and id.
CU_EXPORT CUresult cuStreamGetCaptureInfo(CUstream hStream, int *captureStatus_out, unsigned long long *id_out) {
  return cuStreamGetCaptureInfo_v3(hStream, captureStatus_out, id_out, nullptr, nullptr, nullptr, nullptr);
}
CU_EXPORT CUresult cuStreamGetCaptureInfo_ptsz(CUstream hStream, int *captureStatus_out, unsigned long long *id_out) {
  return cuStreamGetCaptureInfo_v3(PTSZ(hStream), captureStatus_out, id_out, nullptr, nullptr, nullptr, nullptr);
}
CU_EXPORT CUresult cuStreamUpdateCaptureDependencies_v2(CUstream hStream, CUgraphNode *dependencies,
                                                        const void *dependencyData, size_t numDependencies,
                                                        unsigned int flags) {
  NEED_CONTEXT("cuStreamUpdateCaptureDependencies");
  if (CUresult r = check_edges("cuStreamUpdateCaptureDependencies", dependencyData, numDependencies)) return r;
  return report("cuStreamUpdateCaptureDependencies",
                cucore_stream_update_capture_dependencies(stream_of(hStream), nodes_of(dependencies), numDependencies,
                                                          flags));
}
CU_EXPORT CUresult cuStreamUpdateCaptureDependencies_v2_ptsz(CUstream hStream, CUgraphNode *dependencies,
                                                             const void *dependencyData, size_t numDependencies,
                                                             unsigned int flags) {
  return cuStreamUpdateCaptureDependencies_v2(PTSZ(hStream), dependencies, dependencyData, numDependencies, flags);
}
CU_EXPORT CUresult cuStreamUpdateCaptureDependencies(CUstream hStream, CUgraphNode *dependencies,
                                                     size_t numDependencies, unsigned int flags) {
  return cuStreamUpdateCaptureDependencies_v2(hStream, dependencies, nullptr, numDependencies, flags);
}
CU_EXPORT CUresult cuStreamUpdateCaptureDependencies_ptsz(CUstream hStream, CUgraphNode *dependencies,
                                                          size_t numDependencies, unsigned int flags) {
  return cuStreamUpdateCaptureDependencies_v2(PTSZ(hStream), dependencies, nullptr, numDependencies, flags);
}
CU_EXPORT CUresult cuThreadExchangeStreamCaptureMode(int *mode) {
  NEED_INIT("cuThreadExchangeStreamCaptureMode");
  return report("cuThreadExchangeStreamCaptureMode", cucore_thread_exchange_capture_mode(mode));
}
