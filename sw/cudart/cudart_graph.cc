// cudart_graph.cc — CUDA graphs and stream capture in the runtime API, on the core's graphs
// (cu_core.h "CUDA graphs and stream capture", docs/cudart.md "CUDA graphs"). A cudaGraph_t,
// cudaGraphNode_t and cudaGraphExec_t are the core's handles, shared with the driver API.
#include <cstring>

#include "cudart_internal.h"

using namespace rt;

namespace {

cu_graph *graph_of(cudaGraph_t g) { return reinterpret_cast<cu_graph *>(g); }
cu_graph_node *node_of(cudaGraphNode_t n) { return reinterpret_cast<cu_graph_node *>(n); }
cu_graph_exec *exec_of(cudaGraphExec_t x) { return reinterpret_cast<cu_graph_exec *>(x); }
cu_graph_node *const *nodes_of(const cudaGraphNode_t *n) { return reinterpret_cast<cu_graph_node *const *>(n); }
cu_event *event_of(cudaEvent_t e) { return reinterpret_cast<cu_event *>(e); }

// Edge data other than the default (full completion, no ports) is not modelled.
cudaError_t check_edges(const char *api, const cudaGraphEdgeData *edges, size_t n) {
  if (!edges) return cudaSuccess;
  for (size_t i = 0; i < n; i++) {
    const unsigned char *b = reinterpret_cast<const unsigned char *>(&edges[i]);
    for (size_t k = 0; k < sizeof edges[i]; k++)
      if (b[k])
        return fail(api, cudaErrorNotSupported,
                    "edge %zu has ports or a type (programmatic dependencies are not supported by simtvp)", i);
  }
  return cudaSuccess;
}

void clear_edges(cudaGraphEdgeData *edges, size_t n) {
  if (edges) std::memset(edges, 0, n * sizeof *edges);
}

// The kernel a node launches (a host stub, a cudaKernel_t or cudaFunction_t) with its arguments.
cudaError_t kernel_params(const char *api, const cudaKernelNodeParams *in, cu_graph_node_params *out) {
  if (!in) return fail(api, cudaErrorInvalidValue, "the kernel parameters are NULL");
  std::memset(out, 0, sizeof *out);
  out->type = CU_GRAPH_NODE_KERNEL;
  cudaError_t e = resolve_function(api, in->func, &out->kernel.func);
  if (e != cudaSuccess) return e;
  out->kernel.grid[0] = in->gridDim.x;
  out->kernel.grid[1] = in->gridDim.y;
  out->kernel.grid[2] = in->gridDim.z;
  out->kernel.block[0] = in->blockDim.x;
  out->kernel.block[1] = in->blockDim.y;
  out->kernel.block[2] = in->blockDim.z;
  out->kernel.smem = in->sharedMemBytes;
  out->kernel.args = in->kernelParams;
  if (in->extra) {
    if (in->kernelParams) return fail(api, cudaErrorInvalidValue, "both kernelParams and extra are given");
    bool have_size = false;
    for (size_t i = 0; in->extra[i] != nullptr; i += 2) {
      if (i > 64) return fail(api, cudaErrorInvalidValue, "extra is not terminated");
      if (in->extra[i] == reinterpret_cast<void *>(1)) out->kernel.param_buffer = in->extra[i + 1];
      else if (in->extra[i] == reinterpret_cast<void *>(2) && in->extra[i + 1]) {
        out->kernel.param_bytes = *static_cast<size_t *>(in->extra[i + 1]);
        have_size = true;
      } else {
        return fail(api, cudaErrorInvalidValue, "unknown entry in extra");
      }
    }
    if (!out->kernel.param_buffer || !have_size)
      return fail(api, cudaErrorInvalidValue, "extra needs the buffer pointer and its size");
  }
  return cudaSuccess;
}

// One side of a cudaMemcpy3DParms: an array, or memory whose kind the copy's kind names
// (cudaMemcpyDefault: what it is).
cudaError_t copy_side(const char *api, cudaArray_t array, const cudaPos &pos, const cudaPitchedPtr &ptr,
                      enum cudaMemcpyKind kind, bool is_src, uint64_t texel, cu_copy_node_side *out) {
  std::memset(out, 0, sizeof *out);
  const char *which = is_src ? "source" : "destination";
  if (array && ptr.ptr) return fail(api, cudaErrorInvalidValue, "the %s names both an array and a pointer", which);
  if (array) {
    out->array = reinterpret_cast<cu_array *>(array);
    out->x_bytes = pos.x * texel;
    out->y = pos.y;
    out->z = pos.z;
    return cudaSuccess;
  }
  if (!ptr.ptr) return fail(api, cudaErrorInvalidValue, "the %s has neither an array nor a pointer", which);
  if ((int)kind < 0 || (int)kind > 4) return fail(api, cudaErrorInvalidMemcpyDirection, "copy kind %d", (int)kind);
  cu_mem_info info;
  cucore_mem_classify(reinterpret_cast<uint64_t>(ptr.ptr), &info);
  bool is_device = info.type == CU_MEM_DEVICE || info.type == CU_MEM_MANAGED;
  bool want_device = is_src ? (kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDeviceToHost)
                            : (kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyHostToDevice);
  if (kind != cudaMemcpyDefault && kind != cudaMemcpyHostToHost && want_device != is_device)
    return fail(api, cudaErrorInvalidValue, "the %s %p is %s memory, but the copy kind says %s memory", which, ptr.ptr,
                is_device ? "device" : "host", want_device ? "device" : "host");
  if (kind == cudaMemcpyHostToHost && is_device)
    return fail(api, cudaErrorInvalidValue, "the %s %p is device memory in a host-to-host copy", which, ptr.ptr);
  out->addr = reinterpret_cast<uint64_t>(ptr.ptr);
  out->type = info.type;
  out->pitch = ptr.pitch;
  out->height = ptr.ysize;
  out->x_bytes = pos.x;
  out->y = pos.y;
  out->z = pos.z;
  return cudaSuccess;
}

cudaError_t copy_params(const char *api, const cudaMemcpy3DParms *p, cu_graph_node_params *out) {
  if (!p) return fail(api, cudaErrorInvalidValue, "the copy parameters are NULL");
  std::memset(out, 0, sizeof *out);
  out->type = CU_GRAPH_NODE_MEMCPY;
  uint64_t texel = 1;
  cudaArray_const_t any = p->srcArray ? p->srcArray : p->dstArray;
  if (any) {  // widths and x positions count elements when an array takes part
    cu_array_info info;
    int c = cucore_array_info(reinterpret_cast<const cu_array *>(any), &info);
    if (c != CUDA_SUCCESS) return ret_cu(api, c);
    texel = info.texel_bytes;
  }
  cudaError_t e = copy_side(api, p->srcArray, p->srcPos, p->srcPtr, p->kind, true, texel, &out->copy.src);
  if (e == cudaSuccess) e = copy_side(api, p->dstArray, p->dstPos, p->dstPtr, p->kind, false, texel, &out->copy.dst);
  if (e != cudaSuccess) return e;
  out->copy.width_bytes = p->extent.width * texel;
  out->copy.height = p->extent.height ? p->extent.height : 1;
  out->copy.depth = p->extent.depth ? p->extent.depth : 1;
  out->copy.api_kind = p->kind;
  return cudaSuccess;
}

// A node's copy back as the runtime describes it.
void copy_back(const cu_copy_node_params &c, cudaMemcpy3DParms *p) {
  std::memset(p, 0, sizeof *p);
  uint64_t texel = 1;
  const cu_copy_node_side &any = c.src.array ? c.src : c.dst;
  if (any.array) {
    cu_array_info info;
    if (cucore_array_info(any.array, &info) == CUDA_SUCCESS) texel = info.texel_bytes;
  }
  auto side = [&](const cu_copy_node_side &sd, cudaArray_t *array, cudaPos *pos, cudaPitchedPtr *ptr) {
    if (sd.array) {
      *array = reinterpret_cast<cudaArray_t>(sd.array);
      *pos = cudaPos{sd.x_bytes / texel, sd.y, sd.z};
      return;
    }
    *ptr = cudaPitchedPtr{reinterpret_cast<void *>(sd.addr), sd.pitch ? sd.pitch : c.width_bytes, c.width_bytes,
                          sd.height ? sd.height : c.height};
    *pos = cudaPos{sd.x_bytes, sd.y, sd.z};
  };
  side(c.src, &p->srcArray, &p->srcPos, &p->srcPtr);
  side(c.dst, &p->dstArray, &p->dstPos, &p->dstPtr);
  p->extent = cudaExtent{c.width_bytes / texel, c.height, c.depth};
  p->kind = (enum cudaMemcpyKind)c.api_kind;
}

// A 1-D copy as a one-row 3-D copy.
cudaError_t copy_1d(const char *api, void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                    cu_graph_node_params *out) {
  cudaMemcpy3DParms p;
  std::memset(&p, 0, sizeof p);
  p.srcPtr = cudaPitchedPtr{const_cast<void *>(src), count, count, 1};
  p.dstPtr = cudaPitchedPtr{dst, count, count, 1};
  p.extent = cudaExtent{count, 1, 1};
  p.kind = kind;
  return copy_params(api, &p, out);
}

// A copy to or from a __device__ / __constant__ symbol.
cudaError_t copy_symbol(const char *api, const void *symbol, void *host, size_t count, size_t offset,
                        enum cudaMemcpyKind kind, bool to_symbol, cu_graph_node_params *out) {
  uint64_t dptr = 0, bytes = 0;
  cudaError_t e = resolve_symbol(api, symbol, &dptr, &bytes);
  if (e != cudaSuccess) return e;
  if (offset > bytes || count > bytes - offset)
    return fail(api, cudaErrorInvalidValue, "%zu bytes at offset %zu exceed the symbol's %llu bytes", count, offset,
                (unsigned long long)bytes);
  void *dev = reinterpret_cast<void *>(dptr + offset);
  if (to_symbol) {
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
      return fail(api, cudaErrorInvalidMemcpyDirection, "copy kind %d to a symbol", (int)kind);
    return copy_1d(api, dev, host, count, kind, out);
  }
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return fail(api, cudaErrorInvalidMemcpyDirection, "copy kind %d from a symbol", (int)kind);
  return copy_1d(api, host, dev, count, kind, out);
}

cudaError_t memset_params(const char *api, const cudaMemsetParams *in, cu_graph_node_params *out) {
  if (!in) return fail(api, cudaErrorInvalidValue, "the memset parameters are NULL");
  std::memset(out, 0, sizeof *out);
  out->type = CU_GRAPH_NODE_MEMSET;
  out->memset = cu_memset_node_params{reinterpret_cast<uint64_t>(in->dst), in->pitch, in->value, in->elementSize,
                                      in->width, in->height};
  return cudaSuccess;
}

cudaError_t host_params(const char *api, const cudaHostNodeParams *in, cu_graph_node_params *out) {
  if (!in) return fail(api, cudaErrorInvalidValue, "the host node parameters are NULL");
  std::memset(out, 0, sizeof *out);
  out->type = CU_GRAPH_NODE_HOST;
  out->host_fn = in->fn;
  out->host_data = in->userData;
  return cudaSuccess;
}

cu_graph_node_params simple_params(int type, cu_event *event, cu_graph *child) {
  cu_graph_node_params p;
  std::memset(&p, 0, sizeof p);
  p.type = type;
  p.event = event;
  p.child = child;
  return p;
}

cudaError_t add(const char *api, cudaGraphNode_t *out, cudaGraph_t graph, const cudaGraphNode_t *deps, size_t n,
                const cu_graph_node_params &p) {
  if (!out) return fail(api, cudaErrorInvalidValue, "the result pointer is NULL");
  cu_graph_node *node = nullptr;
  int c = cucore_graph_add_node(graph_of(graph), nodes_of(deps), n, &p, &node);
  if (c == CUDA_SUCCESS) *out = reinterpret_cast<cudaGraphNode_t>(node);
  return ret_cu(api, c);
}

// Reads a node that must be of type `type`.
cudaError_t read_node(const char *api, cudaGraphNode_t node, int type, cu_graph_node_params *p) {
  int c = cucore_graph_node_params(node_of(node), p);
  if (c != CUDA_SUCCESS) return ret_cu(api, c);
  if (p->type != type) return fail(api, cudaErrorInvalidValue, "node %p is not of the type this call reads", (void *)node);
  return cudaSuccess;
}

cudaError_t set_node(const char *api, cudaGraphNode_t node, const cu_graph_node_params &p) {
  return ret_cu(api, cucore_graph_node_set_params(node_of(node), &p));
}

cudaError_t set_exec(const char *api, cudaGraphExec_t exec, cudaGraphNode_t node, const cu_graph_node_params &p) {
  return ret_cu(api, cucore_graph_exec_node_set_params(exec_of(exec), node_of(node), &p));
}

// cudaGraphNodeParams (cudaGraphAddNode and friends) -> the core's parameters.
cudaError_t generic_params(const char *api, const cudaGraphNodeParams *in, cu_graph_node_params *out) {
  if (!in) return fail(api, cudaErrorInvalidValue, "the node parameters are NULL");
  switch (in->type) {
    case cudaGraphNodeTypeKernel: return kernel_params(api, &in->kernel, out);
    case cudaGraphNodeTypeMemcpy: return copy_params(api, &in->memcpy.copyParams, out);
    case cudaGraphNodeTypeMemset: return memset_params(api, &in->memset, out);
    case cudaGraphNodeTypeHost: return host_params(api, &in->host, out);
    case cudaGraphNodeTypeGraph:
      if (in->graph.ownership != 0)
        return fail(api, cudaErrorNotSupported, "child graph ownership %d (only cloning) is not supported by simtvp",
                    in->graph.ownership);
      *out = simple_params(CU_GRAPH_NODE_GRAPH, nullptr, graph_of(in->graph.graph));
      return cudaSuccess;
    case cudaGraphNodeTypeEmpty: *out = simple_params(CU_GRAPH_NODE_EMPTY, nullptr, nullptr); return cudaSuccess;
    case cudaGraphNodeTypeWaitEvent:
      *out = simple_params(CU_GRAPH_NODE_WAIT_EVENT, event_of(in->event), nullptr);
      return cudaSuccess;
    case cudaGraphNodeTypeEventRecord:
      *out = simple_params(CU_GRAPH_NODE_EVENT_RECORD, event_of(in->event), nullptr);
      return cudaSuccess;
    default:
      return fail(api, cudaErrorNotSupported,
                  "graph node type %d is not supported by simtvp (kernel, memcpy, memset, host, child graph, empty "
                  "and event nodes are)", (int)in->type);
  }
}

int mode_of(enum cudaStreamCaptureMode m) { return (int)m; }

}  // namespace

// ---- graphs ----------------------------------------------------------------------------------------

CUDART_EXPORT cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags) {
  if (!pGraph) return fail("cudaGraphCreate", cudaErrorInvalidValue, "the result pointer is NULL");
  if (flags) return fail("cudaGraphCreate", cudaErrorInvalidValue, "flags 0x%x (must be 0)", flags);
  cu_graph *g = nullptr;
  int c = cucore_graph_create(&g);
  if (c == CUDA_SUCCESS) *pGraph = reinterpret_cast<cudaGraph_t>(g);
  return ret_cu("cudaGraphCreate", c);
}
CUDART_EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  return ret_cu("cudaGraphDestroy", cucore_graph_destroy(graph_of(graph)));
}
CUDART_EXPORT cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph) {
  cu_graph *g = nullptr;
  int c = cucore_graph_clone(graph_of(originalGraph), &g);
  if (c == CUDA_SUCCESS) {
    if (!pGraphClone) return fail("cudaGraphClone", cudaErrorInvalidValue, "the result pointer is NULL");
    *pGraphClone = reinterpret_cast<cudaGraph_t>(g);
  }
  return ret_cu("cudaGraphClone", c);
}
CUDART_EXPORT cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *pNode, cudaGraphNode_t originalNode,
                                                   cudaGraph_t clonedGraph) {
  return ret_cu("cudaGraphNodeFindInClone",
                cucore_graph_find_in_clone(graph_of(clonedGraph), node_of(originalNode),
                                           reinterpret_cast<cu_graph_node **>(pNode)));
}
CUDART_EXPORT cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path, unsigned int flags) {
  return ret_cu("cudaGraphDebugDotPrint", cucore_graph_debug_dot(graph_of(graph), path, flags));
}

// ---- nodes -----------------------------------------------------------------------------------------

CUDART_EXPORT cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                 const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                                 const struct cudaKernelNodeParams *pNodeParams) {
  cu_graph_node_params p;
  cudaError_t e = kernel_params("cudaGraphAddKernelNode", pNodeParams, &p);
  return e != cudaSuccess ? e : add("cudaGraphAddKernelNode", pGraphNode, graph, pDependencies, numDependencies, p);
}
CUDART_EXPORT cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, struct cudaKernelNodeParams *pNodeParams) {
  const char *api = "cudaGraphKernelNodeGetParams";
  if (!pNodeParams) return fail(api, cudaErrorInvalidValue, "the result pointer is NULL");
  cu_graph_node_params p;
  cudaError_t e = read_node(api, node, CU_GRAPH_NODE_KERNEL, &p);
  if (e != cudaSuccess) return e;
  std::memset(pNodeParams, 0, sizeof *pNodeParams);
  pNodeParams->func = p.kernel.func;  // a cudaFunction_t: launches and further nodes accept it
  pNodeParams->gridDim = dim3{p.kernel.grid[0], p.kernel.grid[1], p.kernel.grid[2]};
  pNodeParams->blockDim = dim3{p.kernel.block[0], p.kernel.block[1], p.kernel.block[2]};
  pNodeParams->sharedMemBytes = p.kernel.smem;
  pNodeParams->kernelParams = p.kernel.args;
  return cudaSuccess;
}
CUDART_EXPORT cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const struct cudaKernelNodeParams *pNodeParams) {
  cu_graph_node_params p;
  cudaError_t e = kernel_params("cudaGraphKernelNodeSetParams", pNodeParams, &p);
  return e != cudaSuccess ? e : set_node("cudaGraphKernelNodeSetParams", node, p);
}
CUDART_EXPORT cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                           const struct cudaKernelNodeParams *pNodeParams) {
  cu_graph_node_params p;
  cudaError_t e = kernel_params("cudaGraphExecKernelNodeSetParams", pNodeParams, &p);
  return e != cudaSuccess ? e : set_exec("cudaGraphExecKernelNodeSetParams", hGraphExec, node, p);
}

CUDART_EXPORT cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                 const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                                 const struct cudaMemcpy3DParms *pCopyParams) {
  cu_graph_node_params p;
  cudaError_t e = copy_params("cudaGraphAddMemcpyNode", pCopyParams, &p);
  return e != cudaSuccess ? e : add("cudaGraphAddMemcpyNode", pGraphNode, graph, pDependencies, numDependencies, p);
}
CUDART_EXPORT cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                                   void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
  cu_graph_node_params p;
  cudaError_t e = copy_1d("cudaGraphAddMemcpyNode1D", dst, src, count, kind, &p);
  return e != cudaSuccess ? e : add("cudaGraphAddMemcpyNode1D", pGraphNode, graph, pDependencies, numDependencies, p);
}
CUDART_EXPORT cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                         const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                                         const void *symbol, const void *src, size_t count,
                                                         size_t offset, enum cudaMemcpyKind kind) {
  const char *api = "cudaGraphAddMemcpyNodeToSymbol";
  cu_graph_node_params p;
  cudaError_t e = copy_symbol(api, symbol, const_cast<void *>(src), count, offset, kind, true, &p);
  return e != cudaSuccess ? e : add(api, pGraphNode, graph, pDependencies, numDependencies, p);
}
CUDART_EXPORT cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                           const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                                           void *dst, const void *symbol, size_t count, size_t offset,
                                                           enum cudaMemcpyKind kind) {
  const char *api = "cudaGraphAddMemcpyNodeFromSymbol";
  cu_graph_node_params p;
  cudaError_t e = copy_symbol(api, symbol, dst, count, offset, kind, false, &p);
  return e != cudaSuccess ? e : add(api, pGraphNode, graph, pDependencies, numDependencies, p);
}
CUDART_EXPORT cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, struct cudaMemcpy3DParms *pNodeParams) {
  const char *api = "cudaGraphMemcpyNodeGetParams";
  if (!pNodeParams) return fail(api, cudaErrorInvalidValue, "the result pointer is NULL");
  cu_graph_node_params p;
  cudaError_t e = read_node(api, node, CU_GRAPH_NODE_MEMCPY, &p);
  if (e == cudaSuccess) copy_back(p.copy, pNodeParams);
  return e;
}
CUDART_EXPORT cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const struct cudaMemcpy3DParms *pNodeParams) {
  cu_graph_node_params p;
  cudaError_t e = copy_params("cudaGraphMemcpyNodeSetParams", pNodeParams, &p);
  return e != cudaSuccess ? e : set_node("cudaGraphMemcpyNodeSetParams", node, p);
}
CUDART_EXPORT cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst, const void *src, size_t count,
                                                         enum cudaMemcpyKind kind) {
  cu_graph_node_params p;
  cudaError_t e = copy_1d("cudaGraphMemcpyNodeSetParams1D", dst, src, count, kind, &p);
  return e != cudaSuccess ? e : set_node("cudaGraphMemcpyNodeSetParams1D", node, p);
}
CUDART_EXPORT cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t node, const void *symbol,
                                                               const void *src, size_t count, size_t offset,
                                                               enum cudaMemcpyKind kind) {
  const char *api = "cudaGraphMemcpyNodeSetParamsToSymbol";
  cu_graph_node_params p;
  cudaError_t e = copy_symbol(api, symbol, const_cast<void *>(src), count, offset, kind, true, &p);
  return e != cudaSuccess ? e : set_node(api, node, p);
}
CUDART_EXPORT cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t node, void *dst, const void *symbol,
                                                                 size_t count, size_t offset, enum cudaMemcpyKind kind) {
  const char *api = "cudaGraphMemcpyNodeSetParamsFromSymbol";
  cu_graph_node_params p;
  cudaError_t e = copy_symbol(api, symbol, dst, count, offset, kind, false, &p);
  return e != cudaSuccess ? e : set_node(api, node, p);
}
CUDART_EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                           const struct cudaMemcpy3DParms *pNodeParams) {
  cu_graph_node_params p;
  cudaError_t e = copy_params("cudaGraphExecMemcpyNodeSetParams", pNodeParams, &p);
  return e != cudaSuccess ? e : set_exec("cudaGraphExecMemcpyNodeSetParams", hGraphExec, node, p);
}
CUDART_EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                             void *dst, const void *src, size_t count,
                                                             enum cudaMemcpyKind kind) {
  cu_graph_node_params p;
  cudaError_t e = copy_1d("cudaGraphExecMemcpyNodeSetParams1D", dst, src, count, kind, &p);
  return e != cudaSuccess ? e : set_exec("cudaGraphExecMemcpyNodeSetParams1D", hGraphExec, node, p);
}
CUDART_EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                                   const void *symbol, const void *src, size_t count,
                                                                   size_t offset, enum cudaMemcpyKind kind) {
  const char *api = "cudaGraphExecMemcpyNodeSetParamsToSymbol";
  cu_graph_node_params p;
  cudaError_t e = copy_symbol(api, symbol, const_cast<void *>(src), count, offset, kind, true, &p);
  return e != cudaSuccess ? e : set_exec(api, hGraphExec, node, p);
}
CUDART_EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                                     void *dst, const void *symbol, size_t count,
                                                                     size_t offset, enum cudaMemcpyKind kind) {
  const char *api = "cudaGraphExecMemcpyNodeSetParamsFromSymbol";
  cu_graph_node_params p;
  cudaError_t e = copy_symbol(api, symbol, dst, count, offset, kind, false, &p);
  return e != cudaSuccess ? e : set_exec(api, hGraphExec, node, p);
}

CUDART_EXPORT cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                 const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                                 const struct cudaMemsetParams *pMemsetParams) {
  cu_graph_node_params p;
  cudaError_t e = memset_params("cudaGraphAddMemsetNode", pMemsetParams, &p);
  return e != cudaSuccess ? e : add("cudaGraphAddMemsetNode", pGraphNode, graph, pDependencies, numDependencies, p);
}
CUDART_EXPORT cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, struct cudaMemsetParams *pNodeParams) {
  const char *api = "cudaGraphMemsetNodeGetParams";
  if (!pNodeParams) return fail(api, cudaErrorInvalidValue, "the result pointer is NULL");
  cu_graph_node_params p;
  cudaError_t e = read_node(api, node, CU_GRAPH_NODE_MEMSET, &p);
  if (e != cudaSuccess) return e;
  *pNodeParams = cudaMemsetParams{reinterpret_cast<void *>(p.memset.dst), p.memset.pitch, p.memset.value,
                                  p.memset.elem_bytes, p.memset.width, p.memset.height};
  return cudaSuccess;
}
CUDART_EXPORT cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const struct cudaMemsetParams *pNodeParams) {
  cu_graph_node_params p;
  cudaError_t e = memset_params("cudaGraphMemsetNodeSetParams", pNodeParams, &p);
  return e != cudaSuccess ? e : set_node("cudaGraphMemsetNodeSetParams", node, p);
}
CUDART_EXPORT cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                           const struct cudaMemsetParams *pNodeParams) {
  cu_graph_node_params p;
  cudaError_t e = memset_params("cudaGraphExecMemsetNodeSetParams", pNodeParams, &p);
  return e != cudaSuccess ? e : set_exec("cudaGraphExecMemsetNodeSetParams", hGraphExec, node, p);
}

CUDART_EXPORT cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                               const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                               const struct cudaHostNodeParams *pNodeParams) {
  cu_graph_node_params p;
  cudaError_t e = host_params("cudaGraphAddHostNode", pNodeParams, &p);
  return e != cudaSuccess ? e : add("cudaGraphAddHostNode", pGraphNode, graph, pDependencies, numDependencies, p);
}
CUDART_EXPORT cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, struct cudaHostNodeParams *pNodeParams) {
  const char *api = "cudaGraphHostNodeGetParams";
  if (!pNodeParams) return fail(api, cudaErrorInvalidValue, "the result pointer is NULL");
  cu_graph_node_params p;
  cudaError_t e = read_node(api, node, CU_GRAPH_NODE_HOST, &p);
  if (e == cudaSuccess) *pNodeParams = cudaHostNodeParams{p.host_fn, p.host_data};
  return e;
}
CUDART_EXPORT cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const struct cudaHostNodeParams *pNodeParams) {
  cu_graph_node_params p;
  cudaError_t e = host_params("cudaGraphHostNodeSetParams", pNodeParams, &p);
  return e != cudaSuccess ? e : set_node("cudaGraphHostNodeSetParams", node, p);
}
CUDART_EXPORT cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                         const struct cudaHostNodeParams *pNodeParams) {
  cu_graph_node_params p;
  cudaError_t e = host_params("cudaGraphExecHostNodeSetParams", pNodeParams, &p);
  return e != cudaSuccess ? e : set_exec("cudaGraphExecHostNodeSetParams", hGraphExec, node, p);
}

CUDART_EXPORT cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                const cudaGraphNode_t *pDependencies, size_t numDependencies) {
  return add("cudaGraphAddEmptyNode", pGraphNode, graph, pDependencies, numDependencies,
             simple_params(CU_GRAPH_NODE_EMPTY, nullptr, nullptr));
}

CUDART_EXPORT cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                      const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                                      cudaEvent_t event) {
  return add("cudaGraphAddEventRecordNode", pGraphNode, graph, pDependencies, numDependencies,
             simple_params(CU_GRAPH_NODE_EVENT_RECORD, event_of(event), nullptr));
}
CUDART_EXPORT cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                    const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                                    cudaEvent_t event) {
  return add("cudaGraphAddEventWaitNode", pGraphNode, graph, pDependencies, numDependencies,
             simple_params(CU_GRAPH_NODE_WAIT_EVENT, event_of(event), nullptr));
}
static cudaError_t node_event(const char *api, cudaGraphNode_t node, int type, cudaEvent_t *out) {
  if (!out) return fail(api, cudaErrorInvalidValue, "the result pointer is NULL");
  cu_graph_node_params p;
  cudaError_t e = read_node(api, node, type, &p);
  if (e == cudaSuccess) *out = reinterpret_cast<cudaEvent_t>(p.event);
  return e;
}
CUDART_EXPORT cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out) {
  return node_event("cudaGraphEventRecordNodeGetEvent", node, CU_GRAPH_NODE_EVENT_RECORD, event_out);
}
CUDART_EXPORT cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out) {
  return node_event("cudaGraphEventWaitNodeGetEvent", node, CU_GRAPH_NODE_WAIT_EVENT, event_out);
}
CUDART_EXPORT cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
  return set_node("cudaGraphEventRecordNodeSetEvent", node,
                  simple_params(CU_GRAPH_NODE_EVENT_RECORD, event_of(event), nullptr));
}
CUDART_EXPORT cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
  return set_node("cudaGraphEventWaitNodeSetEvent", node, simple_params(CU_GRAPH_NODE_WAIT_EVENT, event_of(event), nullptr));
}
CUDART_EXPORT cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                                               cudaEvent_t event) {
  return set_exec("cudaGraphExecEventRecordNodeSetEvent", hGraphExec, hNode,
                  simple_params(CU_GRAPH_NODE_EVENT_RECORD, event_of(event), nullptr));
}
CUDART_EXPORT cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                                             cudaEvent_t event) {
  return set_exec("cudaGraphExecEventWaitNodeSetEvent", hGraphExec, hNode,
                  simple_params(CU_GRAPH_NODE_WAIT_EVENT, event_of(event), nullptr));
}

CUDART_EXPORT cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                     const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                                     cudaGraph_t childGraph) {
  return add("cudaGraphAddChildGraphNode", pGraphNode, graph, pDependencies, numDependencies,
             simple_params(CU_GRAPH_NODE_GRAPH, nullptr, graph_of(childGraph)));
}
CUDART_EXPORT cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t *pGraph) {
  const char *api = "cudaGraphChildGraphNodeGetGraph";
  if (!pGraph) return fail(api, cudaErrorInvalidValue, "the result pointer is NULL");
  cu_graph_node_params p;
  cudaError_t e = read_node(api, node, CU_GRAPH_NODE_GRAPH, &p);
  if (e == cudaSuccess) *pGraph = reinterpret_cast<cudaGraph_t>(p.child);
  return e;
}
CUDART_EXPORT cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                               cudaGraph_t childGraph) {
  return set_exec("cudaGraphExecChildGraphNodeSetParams", hGraphExec, node,
                  simple_params(CU_GRAPH_NODE_GRAPH, nullptr, graph_of(childGraph)));
}

CUDART_EXPORT cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                           const cudaGraphNode_t *pDependencies, const cudaGraphEdgeData *dependencyData,
                                           size_t numDependencies, struct cudaGraphNodeParams *nodeParams) {
  const char *api = "cudaGraphAddNode";
  cudaError_t e = check_edges(api, dependencyData, numDependencies);
  cu_graph_node_params p;
  if (e == cudaSuccess) e = generic_params(api, nodeParams, &p);
  return e != cudaSuccess ? e : add(api, pGraphNode, graph, pDependencies, numDependencies, p);
}
CUDART_EXPORT cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node, struct cudaGraphNodeParams *nodeParams) {
  cu_graph_node_params p;
  cudaError_t e = generic_params("cudaGraphNodeSetParams", nodeParams, &p);
  return e != cudaSuccess ? e : set_node("cudaGraphNodeSetParams", node, p);
}
CUDART_EXPORT cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t graphExec, cudaGraphNode_t node,
                                                     struct cudaGraphNodeParams *nodeParams) {
  cu_graph_node_params p;
  cudaError_t e = generic_params("cudaGraphExecNodeSetParams", nodeParams, &p);
  return e != cudaSuccess ? e : set_exec("cudaGraphExecNodeSetParams", graphExec, node, p);
}

CUDART_EXPORT cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType) {
  int t = 0;
  int c = cucore_graph_node_type(node_of(node), &t);
  if (c == CUDA_SUCCESS) {
    if (!pType) return fail("cudaGraphNodeGetType", cudaErrorInvalidValue, "the result pointer is NULL");
    *pType = (enum cudaGraphNodeType)t;
  }
  return ret_cu("cudaGraphNodeGetType", c);
}
CUDART_EXPORT cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) {
  return ret_cu("cudaGraphDestroyNode", cucore_graph_destroy_node(node_of(node)));
}

// ---- structure ---------------------------------------------------------------------------------------

CUDART_EXPORT cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes) {
  return ret_cu("cudaGraphGetNodes", cucore_graph_nodes(graph_of(graph), false,
                                                        reinterpret_cast<cu_graph_node **>(nodes), numNodes));
}
CUDART_EXPORT cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes, size_t *pNumRootNodes) {
  return ret_cu("cudaGraphGetRootNodes", cucore_graph_nodes(graph_of(graph), true,
                                                            reinterpret_cast<cu_graph_node **>(pRootNodes), pNumRootNodes));
}
CUDART_EXPORT cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
                                            cudaGraphEdgeData *edgeData, size_t *numEdges) {
  int c = cucore_graph_edges(graph_of(graph), reinterpret_cast<cu_graph_node **>(from),
                             reinterpret_cast<cu_graph_node **>(to), numEdges);
  if (c == CUDA_SUCCESS && from && numEdges) clear_edges(edgeData, *numEdges);
  return ret_cu("cudaGraphGetEdges", c);
}
CUDART_EXPORT cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *pDependencies,
                                                       cudaGraphEdgeData *edgeData, size_t *pNumDependencies) {
  int c = cucore_graph_node_edges(node_of(node), false, reinterpret_cast<cu_graph_node **>(pDependencies),
                                  pNumDependencies);
  if (c == CUDA_SUCCESS && pDependencies && pNumDependencies) clear_edges(edgeData, *pNumDependencies);
  return ret_cu("cudaGraphNodeGetDependencies", c);
}
CUDART_EXPORT cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t *pDependentNodes,
                                                         cudaGraphEdgeData *edgeData, size_t *pNumDependentNodes) {
  int c = cucore_graph_node_edges(node_of(node), true, reinterpret_cast<cu_graph_node **>(pDependentNodes),
                                  pNumDependentNodes);
  if (c == CUDA_SUCCESS && pDependentNodes && pNumDependentNodes) clear_edges(edgeData, *pNumDependentNodes);
  return ret_cu("cudaGraphNodeGetDependentNodes", c);
}
CUDART_EXPORT cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                                   const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData,
                                                   size_t numDependencies) {
  cudaError_t e = check_edges("cudaGraphAddDependencies", edgeData, numDependencies);
  if (e != cudaSuccess) return e;
  return ret_cu("cudaGraphAddDependencies",
                cucore_graph_add_dependencies(graph_of(graph), nodes_of(from), nodes_of(to), numDependencies, false));
}
CUDART_EXPORT cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                                      const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData,
                                                      size_t numDependencies) {
  cudaError_t e = check_edges("cudaGraphRemoveDependencies", edgeData, numDependencies);
  if (e != cudaSuccess) return e;
  return ret_cu("cudaGraphRemoveDependencies",
                cucore_graph_add_dependencies(graph_of(graph), nodes_of(from), nodes_of(to), numDependencies, true));
}

// ---- executable graphs ------------------------------------------------------------------------------

static cudaError_t instantiate(const char *api, cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags,
                               cudaGraphNode_t *error_node) {
  if (!pGraphExec) return fail(api, cudaErrorInvalidValue, "the result pointer is NULL");
  cu_graph_exec *x = nullptr;
  cu_graph_node *bad = nullptr;
  int c = cucore_graph_instantiate(graph_of(graph), flags, &x, &bad);
  if (c == CUDA_SUCCESS) *pGraphExec = reinterpret_cast<cudaGraphExec_t>(x);
  if (error_node) *error_node = reinterpret_cast<cudaGraphNode_t>(bad);
  return ret_cu(api, c);
}
CUDART_EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags) {
  return instantiate("cudaGraphInstantiate", pGraphExec, graph, flags, nullptr);
}
CUDART_EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                        unsigned long long flags) {
  return instantiate("cudaGraphInstantiateWithFlags", pGraphExec, graph, flags, nullptr);
}
static cudaError_t instantiate_with_params(const char *api, cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                           cudaGraphInstantiateParams *p, bool per_thread) {
  if (!p) return fail(api, cudaErrorInvalidValue, "the instantiation parameters are NULL");
  cudaGraphNode_t bad = nullptr;
  cudaError_t e = instantiate(api, pGraphExec, graph, p->flags, &bad);
  p->errNode_out = bad;
  p->result_out = e == cudaSuccess ? cudaGraphInstantiateSuccess
                  : e == cudaErrorInvalidValue ? cudaGraphInstantiateInvalidStructure
                                               : cudaGraphInstantiateError;
  if (e == cudaSuccess && (p->flags & 2ull)) {  // cudaGraphInstantiateFlagUpload
    cu_stream *s = per_thread ? stream_ptsz(p->uploadStream) : stream_of(p->uploadStream);
    e = ret_cu(api, cucore_graph_upload(exec_of(*pGraphExec), s));
  }
  return e;
}
CUDART_EXPORT cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                         cudaGraphInstantiateParams *instantiateParams) {
  return instantiate_with_params("cudaGraphInstantiateWithParams", pGraphExec, graph, instantiateParams, false);
}
CUDART_EXPORT cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                              cudaGraphInstantiateParams *instantiateParams) {
  return instantiate_with_params("cudaGraphInstantiateWithParams_ptsz", pGraphExec, graph, instantiateParams, true);
}
CUDART_EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  return ret_cu("cudaGraphExecDestroy", cucore_graph_exec_destroy(exec_of(graphExec)));
}
CUDART_EXPORT cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t graphExec, unsigned long long *flags) {
  return ret_cu("cudaGraphExecGetFlags", cucore_graph_exec_flags(exec_of(graphExec), flags));
}
CUDART_EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
  return ret_cu("cudaGraphLaunch", cucore_graph_launch(exec_of(graphExec), stream_of(stream)));
}
CUDART_EXPORT cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream) {
  return ret_cu("cudaGraphLaunch_ptsz", cucore_graph_launch(exec_of(graphExec), stream_ptsz(stream)));
}
CUDART_EXPORT cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream) {
  return ret_cu("cudaGraphUpload", cucore_graph_upload(exec_of(graphExec), stream_of(stream)));
}
CUDART_EXPORT cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream) {
  return ret_cu("cudaGraphUpload_ptsz", cucore_graph_upload(exec_of(graphExec), stream_ptsz(stream)));
}
CUDART_EXPORT cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                              cudaGraphExecUpdateResultInfo *resultInfo) {
  int result = 0;
  cu_graph_node *bad = nullptr, *bad_from = nullptr;
  int c = cucore_graph_exec_update(exec_of(hGraphExec), graph_of(hGraph), &result, &bad, &bad_from);
  if (resultInfo) {
    resultInfo->result = (enum cudaGraphExecUpdateResult)(c == CUDA_SUCCESS ? 0 : result ? result : 1);
    resultInfo->errorNode = reinterpret_cast<cudaGraphNode_t>(bad);
    resultInfo->errorFromNode = reinterpret_cast<cudaGraphNode_t>(bad_from);
  }
  return ret_cu("cudaGraphExecUpdate", c);
}
CUDART_EXPORT cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                                  unsigned int isEnabled) {
  return ret_cu("cudaGraphNodeSetEnabled",
                cucore_graph_exec_node_enabled(exec_of(hGraphExec), node_of(hNode), isEnabled ? 1 : 0, nullptr));
}
CUDART_EXPORT cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
                                                  unsigned int *isEnabled) {
  if (!isEnabled) return fail("cudaGraphNodeGetEnabled", cudaErrorInvalidValue, "the result pointer is NULL");
  return ret_cu("cudaGraphNodeGetEnabled",
                cucore_graph_exec_node_enabled(exec_of(hGraphExec), node_of(hNode), -1, isEnabled));
}

// ---- stream capture ----------------------------------------------------------------------------------

static cudaError_t begin_capture(const char *api, cu_stream *s, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                 const cudaGraphEdgeData *edges, size_t n, enum cudaStreamCaptureMode mode) {
  cudaError_t e = check_edges(api, edges, n);
  if (e != cudaSuccess) return e;
  return ret_cu(api, cucore_stream_begin_capture(s, mode_of(mode), graph_of(graph), nodes_of(deps), n));
}
CUDART_EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode) {
  return begin_capture("cudaStreamBeginCapture", stream_of(stream), nullptr, nullptr, nullptr, 0, mode);
}
CUDART_EXPORT cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, enum cudaStreamCaptureMode mode) {
  return begin_capture("cudaStreamBeginCapture_ptsz", stream_ptsz(stream), nullptr, nullptr, nullptr, 0, mode);
}
CUDART_EXPORT cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                                        const cudaGraphNode_t *dependencies,
                                                        const cudaGraphEdgeData *dependencyData, size_t numDependencies,
                                                        enum cudaStreamCaptureMode mode) {
  if (!graph) return fail("cudaStreamBeginCaptureToGraph", cudaErrorInvalidValue, "the graph is NULL");
  return begin_capture("cudaStreamBeginCaptureToGraph", stream_of(stream), graph, dependencies, dependencyData,
                       numDependencies, mode);
}
CUDART_EXPORT cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph,
                                                             const cudaGraphNode_t *dependencies,
                                                             const cudaGraphEdgeData *dependencyData,
                                                             size_t numDependencies, enum cudaStreamCaptureMode mode) {
  if (!graph) return fail("cudaStreamBeginCaptureToGraph_ptsz", cudaErrorInvalidValue, "the graph is NULL");
  return begin_capture("cudaStreamBeginCaptureToGraph_ptsz", stream_ptsz(stream), graph, dependencies, dependencyData,
                       numDependencies, mode);
}
static cudaError_t end_capture(const char *api, cu_stream *s, cudaGraph_t *pGraph) {
  cu_graph *g = nullptr;
  int c = cucore_stream_end_capture(s, &g);
  if (pGraph) *pGraph = reinterpret_cast<cudaGraph_t>(g);
  return ret_cu(api, c);
}
CUDART_EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph) {
  return end_capture("cudaStreamEndCapture", stream_of(stream), pGraph);
}
CUDART_EXPORT cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph) {
  return end_capture("cudaStreamEndCapture_ptsz", stream_ptsz(stream), pGraph);
}
static cudaError_t is_capturing(const char *api, cu_stream *s, enum cudaStreamCaptureStatus *status) {
  if (!status) return fail(api, cudaErrorInvalidValue, "the result pointer is NULL");
  int st = 0;
  int c = cucore_stream_capture_info(s, &st, nullptr, nullptr, nullptr, nullptr);
  if (c == CUDA_SUCCESS) *status = (enum cudaStreamCaptureStatus)st;
  return ret_cu(api, c);
}
CUDART_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus) {
  return is_capturing("cudaStreamIsCapturing", stream_of(stream), pCaptureStatus);
}
CUDART_EXPORT cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus) {
  return is_capturing("cudaStreamIsCapturing_ptsz", stream_ptsz(stream), pCaptureStatus);
}
static cudaError_t capture_info(const char *api, cu_stream *s, enum cudaStreamCaptureStatus *status,
                                unsigned long long *id, cudaGraph_t *graph, const cudaGraphNode_t **deps,
                                const cudaGraphEdgeData **edges, size_t *n) {
  if (!status) return fail(api, cudaErrorInvalidValue, "the status pointer is NULL");
  int st = 0;
  cu_graph *g = nullptr;
  cu_graph_node *const *d = nullptr;
  size_t count = 0;
  int c = cucore_stream_capture_info(s, &st, id, &g, &d, &count);
  if (c != CUDA_SUCCESS) return ret_cu(api, c);
  *status = (enum cudaStreamCaptureStatus)st;
  if (st == cudaStreamCaptureStatusActive) {
    if (graph) *graph = reinterpret_cast<cudaGraph_t>(g);
    if (deps) *deps = reinterpret_cast<const cudaGraphNode_t *>(d);
    if (edges) *edges = nullptr;  // all edges are default edges
    if (n) *n = count;
  }
  return cudaSuccess;
}
CUDART_EXPORT cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
                                                   unsigned long long *id_out, cudaGraph_t *graph_out,
                                                   const cudaGraphNode_t **dependencies_out,
                                                   const cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out) {
  return capture_info("cudaStreamGetCaptureInfo", stream_of(stream), captureStatus_out, id_out, graph_out,
                      dependencies_out, edgeData_out, numDependencies_out);
}
CUDART_EXPORT cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream,
                                                        enum cudaStreamCaptureStatus *captureStatus_out,
                                                        unsigned long long *id_out, cudaGraph_t *graph_out,
                                                        const cudaGraphNode_t **dependencies_out,
                                                        const cudaGraphEdgeData **edgeData_out,
                                                        size_t *numDependencies_out) {
  return capture_info("cudaStreamGetCaptureInfo_ptsz", stream_ptsz(stream), captureStatus_out, id_out, graph_out,
                      dependencies_out, edgeData_out, numDependencies_out);
}
static cudaError_t update_deps(const char *api, cu_stream *s, cudaGraphNode_t *deps, const cudaGraphEdgeData *edges,
                               size_t n, unsigned flags) {
  cudaError_t e = check_edges(api, edges, n);
  if (e != cudaSuccess) return e;
  return ret_cu(api, cucore_stream_update_capture_dependencies(s, nodes_of(deps), n, flags));
}
CUDART_EXPORT cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t *dependencies,
                                                              const cudaGraphEdgeData *dependencyData,
                                                              size_t numDependencies, unsigned int flags) {
  return update_deps("cudaStreamUpdateCaptureDependencies", stream_of(stream), dependencies, dependencyData,
                     numDependencies, flags);
}
CUDART_EXPORT cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t stream, cudaGraphNode_t *dependencies,
                                                                   const cudaGraphEdgeData *dependencyData,
                                                                   size_t numDependencies, unsigned int flags) {
  return update_deps("cudaStreamUpdateCaptureDependencies_ptsz", stream_ptsz(stream), dependencies, dependencyData,
                     numDependencies, flags);
}
CUDART_EXPORT cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode) {
  if (!mode) return fail("cudaThreadExchangeStreamCaptureMode", cudaErrorInvalidValue, "the mode pointer is NULL");
  int m = (int)*mode;
  int c = cucore_thread_exchange_capture_mode(&m);
  if (c == CUDA_SUCCESS) *mode = (enum cudaStreamCaptureMode)m;
  return ret_cu("cudaThreadExchangeStreamCaptureMode", c);
}
