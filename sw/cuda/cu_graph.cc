// cu_graph.cc — CUDA graphs and stream capture for both APIs (cu_core.h "CUDA graphs and stream
// capture", docs/cudart.md "CUDA graphs").
//
// A graph is nodes (creation order) with dependency edges; nodes own copies of their parameters
// and a child-graph node owns a copy of its child graph. Instantiation flattens child graphs,
// orders the nodes topologically, and spreads independent branches over lanes: lane 0 is the
// launch stream, every other lane one of the executable graph's own driver streams. A launch
// queues each node's operation on its lane through the same driver calls stream work uses
// (drv_launch, drv_memcpy_2d, drv_memset_2d, drv_event_record, drv_stream_add_callback …); a node
// waiting for a node of another lane waits for an event recorded after it, the other lanes start
// after the launch stream's earlier work and the launch stream's later work waits for them.
//
// Capture: a capturing stream turns the operations it is given into nodes after its current
// dependencies (Stream::capture_deps). An event recorded in a capture stands for the recording
// stream's dependencies; a stream waiting for it joins the capture. CUDA's rules and error codes
// apply: the legacy stream cannot capture and must not be used while a blocking stream captures
// (CUDA_ERROR_STREAM_CAPTURE_IMPLICIT), synchronising a capturing stream or a "potentially unsafe"
// call during a capture this thread must respect (by capture mode) is
// CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidates the capture, whose end then reports
// CUDA_ERROR_STREAM_CAPTURE_INVALIDATED.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <set>

#include "cu_internal.h"

using namespace cucore;

namespace {

enum { MODE_GLOBAL = 0, MODE_THREAD_LOCAL = 1, MODE_RELAXED = 2 };
const char *const kModeNames[] = {"global", "thread-local", "relaxed"};
const char *const kTypeNames[] = {"kernel", "memcpy", "memset", "host", "graph", "empty", "wait event",
                                  "event record"};

// Trivially destructible: read from exit handlers too.
thread_local int tl_capture_mode = MODE_GLOBAL;

const char *type_name(int t) { return t >= 0 && t <= 7 ? kTypeNames[t] : "unknown"; }

Graph *graph_of(State &s, const cu_graph *g) { return s.graphs.get(g); }
GraphNode *node_of(State &s, const cu_graph_node *n) { return s.graph_nodes.get(n); }

int bad_graph(const cu_graph *g) { return fail(CUDA_ERROR_INVALID_VALUE, "graph %p is not a live graph", (void *)g); }
int bad_node(const cu_graph_node *n) {
  return fail(CUDA_ERROR_INVALID_VALUE, "node %p is not a node of a live graph", (void *)n);
}

// ---- node parameters ---------------------------------------------------------------------------

// The memory behind one side of a copy: checks that device and managed ranges lie in their
// allocation (the driver checks device ranges again when it queues the copy).
int check_copy_side(State &s, cu_copy_node_side &side, const cu_copy_node_params &c, const char *which) {
  if (side.array) {
    Array *a = s.arrays.get(side.array);
    if (!a) return fail(CUDA_ERROR_INVALID_VALUE, "the %s array %p is not a live array", which, (void *)side.array);
    const cu_array_info &in = a->info;
    uint64_t row = (uint64_t)in.desc.width * in.texel_bytes, rows = in.desc.height ? in.desc.height : 1;
    uint64_t slices = (uint64_t)(in.desc.depth ? in.desc.depth : 1) * (in.desc.layers ? in.desc.layers : 1);
    if (side.x_bytes > row || c.width_bytes > row - side.x_bytes || side.y > rows || c.height > rows - side.y ||
        side.z > slices || c.depth > slices - side.z)
      return fail(CUDA_ERROR_INVALID_VALUE, "the %s region of the copy node exceeds its array", which);
    return CUDA_SUCCESS;
  }
  if (!side.addr) return fail(CUDA_ERROR_INVALID_VALUE, "the %s pointer of the copy node is NULL", which);
  uint64_t pitch = side.pitch ? side.pitch : c.width_bytes, rows = side.height ? side.height : c.height;
  if (c.height > 1 && c.width_bytes > pitch)
    return fail(CUDA_ERROR_INVALID_VALUE, "the copy node's rows of %llu bytes exceed the %s pitch %llu",
                (unsigned long long)c.width_bytes, which, (unsigned long long)pitch);
  uint64_t first = side.addr + (side.z * rows + side.y) * pitch + side.x_bytes;
  uint64_t last = first + ((c.depth - 1) * rows + (c.height - 1)) * pitch + c.width_bytes;
  if (side.type == CU_MEM_PINNED) {
    // Pinned memory the GPU reaches by DMA; without a host view of system memory (or outside the
    // allocation) it is staged like pageable memory.
    auto it = s.pinned.upper_bound(first);
    bool dma = false;
    if (it != s.pinned.begin()) {
      --it;
      dma = it->second.bus && first - it->first < it->second.bytes && last <= it->first + it->second.bytes;
    }
    if (!dma) side.type = CU_MEM_PAGEABLE;
  }
  if (side.type != CU_MEM_DEVICE && side.type != CU_MEM_MANAGED) return CUDA_SUCCESS;
  uint64_t base = 0, size = 0;
  if (!drv_mem_lookup(s.d, first, &base, &size) || last > base + size)
    return fail(CUDA_ERROR_INVALID_VALUE, "the %s range 0x%llx..0x%llx of the copy node is not inside one device "
                "allocation", which, (unsigned long long)first, (unsigned long long)last);
  return CUDA_SUCCESS;
}

int check_memset(State &s, cu_memset_node_params *m) {
  if (m->elem_bytes != 1 && m->elem_bytes != 2 && m->elem_bytes != 4)
    return fail(CUDA_ERROR_INVALID_VALUE, "memset node: element size %u is not 1, 2 or 4", m->elem_bytes);
  if (m->width == 0 || m->height == 0) return fail(CUDA_ERROR_INVALID_VALUE, "memset node of no elements");
  uint64_t row = m->width * m->elem_bytes;
  if (m->height > 1 && row > m->pitch)
    return fail(CUDA_ERROR_INVALID_VALUE, "memset node: rows of %llu bytes exceed the pitch %llu",
                (unsigned long long)row, (unsigned long long)m->pitch);
  if (m->height == 1) m->pitch = row;
  uint64_t base = 0, size = 0, last = m->dst + m->pitch * (m->height - 1) + row;
  if (!drv_mem_lookup(s.d, m->dst, &base, &size) || last > base + size)
    return fail(CUDA_ERROR_INVALID_VALUE, "memset node: 0x%llx..0x%llx is not inside one device allocation",
                (unsigned long long)m->dst, (unsigned long long)last);
  return CUDA_SUCCESS;
}

// Checks what a program gives for a node and copies it (kernel arguments packed).
int make_params(State &s, const cu_graph_node_params &in, NodeParams *out) {
  NodeParams p;
  p.type = in.type;
  switch (in.type) {
    case CU_GRAPH_NODE_KERNEL: {
      Function *fn = s.functions.get(in.kernel.func);
      if (!fn) return fail(CUDA_ERROR_INVALID_VALUE, "kernel node: %p is not a loaded kernel", (void *)in.kernel.func);
      if (int r = check_kernel_launch(s, fn, in.kernel.grid, in.kernel.block, in.kernel.smem)) return r;
      if (int r = pack_kernel_args(s, fn, in.kernel.args, in.kernel.param_buffer, in.kernel.param_bytes, &p.args,
                                   &p.arg_offsets))
        return r;
      p.func = fn->handle;
      for (int i = 0; i < 3; i++) {
        p.grid[i] = in.kernel.grid[i];
        p.block[i] = in.kernel.block[i];
      }
      p.smem = in.kernel.smem;
      break;
    }
    case CU_GRAPH_NODE_MEMCPY: {
      p.copy = in.copy;
      if (p.copy.depth == 0) p.copy.depth = 1;
      if (p.copy.width_bytes == 0 || p.copy.height == 0)
        return fail(CUDA_ERROR_INVALID_VALUE, "copy node of %llu x %llu bytes: an empty copy",
                    (unsigned long long)p.copy.width_bytes, (unsigned long long)p.copy.height);
      if (int r = check_copy_side(s, p.copy.src, p.copy, "source")) return r;
      if (int r = check_copy_side(s, p.copy.dst, p.copy, "destination")) return r;
      break;
    }
    case CU_GRAPH_NODE_MEMSET:
      p.memset = in.memset;
      if (int r = check_memset(s, &p.memset)) return r;
      break;
    case CU_GRAPH_NODE_HOST:
      if (!in.host_fn) return fail(CUDA_ERROR_INVALID_VALUE, "host node without a function");
      p.host_fn = in.host_fn;
      p.host_data = in.host_data;
      break;
    case CU_GRAPH_NODE_WAIT_EVENT:
    case CU_GRAPH_NODE_EVENT_RECORD: {
      Event *ev = s.events.get(in.event);
      if (!ev) return fail(CUDA_ERROR_INVALID_VALUE, "event node: %p is not a live event", (void *)in.event);
      p.event = ev->handle;
      break;
    }
    case CU_GRAPH_NODE_GRAPH:
      if (!graph_of(s, in.child)) return bad_graph(in.child);
      break;  // the caller copies the child graph
    case CU_GRAPH_NODE_EMPTY:
      break;
    default:
      return fail(CUDA_ERROR_NOT_SUPPORTED, "graph node type %d is not supported by simtvp (kernel, memcpy, memset, "
                  "host, child graph, empty and event nodes are)", in.type);
  }
  *out = std::move(p);
  return CUDA_SUCCESS;
}

// ---- graphs --------------------------------------------------------------------------------------

GraphNode *new_node(State &s, Graph *g, NodeParams &&p, const std::vector<GraphNode *> &deps) {
  auto n = std::make_unique<GraphNode>();
  n->graph = g;
  n->p = std::move(p);
  GraphNode *raw = n.get();
  s.graph_nodes.add(std::move(n));
  for (GraphNode *d : deps) {
    raw->deps.push_back(d);
    d->dependents.push_back(raw);
  }
  g->nodes.push_back(raw);
  return raw;
}

void destroy_graph(State &s, Graph *g);

void destroy_node_object(State &s, GraphNode *n) {
  if (n->p.type == CU_GRAPH_NODE_GRAPH)
    if (Graph *c = s.graphs.get(reinterpret_cast<cu_graph *>(n->p.child))) destroy_graph(s, c);
  s.graph_nodes.remove(n->handle);
}

void destroy_graph(State &s, Graph *g) {
  for (GraphNode *n : g->nodes) destroy_node_object(s, n);
  s.graphs.remove(g->handle);
}

Graph *new_graph(State &s) {
  auto g = std::make_unique<Graph>();
  Graph *raw = g.get();
  s.graphs.add(std::move(g));
  return raw;
}

// A deep copy (child graphs too); clone_of maps g's nodes to the copy's.
Graph *clone_graph(State &s, Graph *g, GraphNode *parent) {
  Graph *c = new_graph(s);
  c->parent = parent;
  std::map<GraphNode *, GraphNode *> map;
  for (GraphNode *n : g->nodes) {
    std::vector<GraphNode *> deps;
    for (GraphNode *d : n->deps) deps.push_back(map[d]);
    NodeParams p = n->p;
    GraphNode *m = new_node(s, c, std::move(p), deps);
    if (n->p.type == CU_GRAPH_NODE_GRAPH) {
      Graph *child = s.graphs.get(reinterpret_cast<cu_graph *>(n->p.child));
      m->p.child = clone_graph(s, child, m)->handle;
    }
    map[n] = m;
    c->clone_of[n->handle] = m->handle;
  }
  return c;
}

// Whether `to` is reachable from `from` along dependency edges.
bool reaches(GraphNode *from, GraphNode *to) {
  std::vector<GraphNode *> stack{from};
  std::set<GraphNode *> seen;
  while (!stack.empty()) {
    GraphNode *n = stack.back();
    stack.pop_back();
    if (n == to) return true;
    if (!seen.insert(n).second) continue;
    for (GraphNode *d : n->dependents) stack.push_back(d);
  }
  return false;
}

int collect_deps(State &s, Graph *g, cu_graph_node *const *deps, size_t n, std::vector<GraphNode *> *out) {
  if (n && !deps) return fail(CUDA_ERROR_INVALID_VALUE, "%zu dependencies given without their array", n);
  for (size_t i = 0; i < n; i++) {
    GraphNode *d = node_of(s, deps[i]);
    if (!d || d->graph != g)
      return fail(CUDA_ERROR_INVALID_VALUE, "dependency %p is not a node of graph %p", (void *)deps[i],
                  (void *)g->handle);
    if (std::find(out->begin(), out->end(), d) != out->end())
      return fail(CUDA_ERROR_INVALID_VALUE, "dependency %p is given twice", (void *)deps[i]);
    out->push_back(d);
  }
  return CUDA_SUCCESS;
}

template <class T>
int list_out(const std::vector<T> &items, T *out, size_t *count) {
  if (!count) return fail(CUDA_ERROR_INVALID_VALUE, "the count pointer is NULL");
  if (!out) {
    *count = items.size();
    return CUDA_SUCCESS;
  }
  size_t n = std::min(*count, items.size());
  for (size_t i = 0; i < *count; i++) out[i] = i < n ? items[i] : T();
  *count = n;
  return CUDA_SUCCESS;
}

// ---- executable graphs ---------------------------------------------------------------------------

struct Flat {
  NodeParams p;
  uintptr_t origin;
  std::vector<size_t> deps;
};

// Flattens g (child graphs inlined) into flat; `entry` are the nodes a child's roots depend on.
// Returns g's sink nodes (what depends on g waits for).
std::vector<size_t> flatten(State &s, Graph *g, const std::vector<size_t> &entry, std::vector<Flat> *flat) {
  std::map<GraphNode *, std::vector<size_t>> exits;
  std::vector<size_t> sinks;
  for (GraphNode *n : g->nodes) {
    std::vector<size_t> deps = n->deps.empty() ? entry : std::vector<size_t>();
    for (GraphNode *d : n->deps) deps.insert(deps.end(), exits[d].begin(), exits[d].end());
    if (n->p.type == CU_GRAPH_NODE_GRAPH) {
      Graph *child = s.graphs.get(reinterpret_cast<cu_graph *>(n->p.child));
      std::vector<size_t> child_exits = flatten(s, child, deps, flat);
      // The child node itself stays as an empty node after the child's sinks: the node's
      // instance exists for updates and an empty child graph still orders its dependents.
      Flat f{NodeParams(), n->handle, child_exits.empty() ? deps : child_exits};
      f.p.type = CU_GRAPH_NODE_EMPTY;
      flat->push_back(std::move(f));
      exits[n] = {flat->size() - 1};
    } else {
      flat->push_back(Flat{n->p, n->handle, deps});
      exits[n] = {flat->size() - 1};
    }
    if (n->dependents.empty()) sinks.push_back(exits[n][0]);
  }
  return sinks;
}

// Moves pageable host memory of a copy node through a staging buffer in system memory.
void host_copy_run(void *arg) {
  HostCopy *h = static_cast<HostCopy *>(arg);
  const cu_copy_node_params &c = h->copy;
  uint64_t slice_bytes = c.width_bytes * c.height;
  auto host_row = [&](const cu_copy_node_side &sd, uint64_t z, uint64_t y) {
    uint64_t pitch = sd.pitch ? sd.pitch : c.width_bytes, rows = sd.height ? sd.height : c.height;
    return reinterpret_cast<uint8_t *>(sd.addr + ((sd.z + z) * rows + sd.y + y) * pitch + sd.x_bytes);
  };
  for (uint64_t z = 0; z < c.depth; z++)
    for (uint64_t y = 0; y < c.height; y++) {
      uint64_t staged = h->staging + z * slice_bytes + y * c.width_bytes;
      if (h->direction == 1) h->bus->sysmem_write(h->bus->ctx, staged, host_row(c.src, z, y), c.width_bytes);
      else if (h->direction == 2) h->bus->sysmem_read(h->bus->ctx, staged, host_row(c.dst, z, y), c.width_bytes);
      else std::memmove(host_row(c.dst, z, y), host_row(c.src, z, y), c.width_bytes);
    }
}

bool host_memory(cu_mem_type t) { return t == CU_MEM_PAGEABLE; }

// Staging for the pageable host sides of a copy node (stub thread).
int prepare_node(State &s, ExecNode &x) {
  uint64_t need = 0;
  if (x.p.type == CU_GRAPH_NODE_MEMCPY) {
    cu_copy_node_params c = x.p.copy;
    bool hs = !c.src.array && host_memory(c.src.type), hd = !c.dst.array && host_memory(c.dst.type);
    if (hs != hd) need = c.width_bytes * c.height * c.depth;
    // a registered range's device pointer lies in its window (cu_memory.cc): the copy moves the
    // program's memory behind it, as cudaMemcpy does, not the reserved window's
    if (hs) c.src.addr = host_of_registered(s, c.src.addr);
    if (hd) c.dst.addr = host_of_registered(s, c.dst.addr);
    x.in = HostCopy{s.plat.bus, 0, c, hs && hd ? 3 : 1};
    x.out = HostCopy{s.plat.bus, 0, c, 2};
  }
  if (need == x.staging_bytes) {
    x.in.staging = x.out.staging = x.staging;
    return CUDA_SUCCESS;
  }
  if (x.staging) s.plat.bus->sysmem_free(s.plat.bus->ctx, x.staging);
  x.staging = 0;
  x.staging_bytes = 0;
  if (need && !s.plat.bus->sysmem_alloc(s.plat.bus->ctx, need, 256, &x.staging))
    return fail(CUDA_ERROR_OUT_OF_MEMORY, "no system memory to stage %llu bytes of a copy node",
                (unsigned long long)need);
  x.staging_bytes = need;
  x.in.staging = x.out.staging = x.staging;
  return CUDA_SUCCESS;
}

void destroy_exec(State &s, GraphExec *x) {
  if (s.d) {
    simtvp_diag diag = cleared_diag();
    for (size_t i = 1; i < x->lanes.size(); i++) (void)drv_stream_sync(s.d, x->lanes[i], &diag);
    (void)drv_sync(s.d, &diag);  // the launch streams may still run its nodes
    for (auto &n : x->nodes) {
      if (n->done) drv_event_destroy(s.d, n->done);
      if (n->staging) s.plat.bus->sysmem_free(s.plat.bus->ctx, n->staging);
    }
    if (x->start) drv_event_destroy(s.d, x->start);
    for (drv_event *e : x->lane_end)
      if (e) drv_event_destroy(s.d, e);
    for (size_t i = 1; i < x->lanes.size(); i++) (void)drv_stream_destroy(s.d, x->lanes[i], &diag);
  }
  if (Graph *snap = s.graphs.get(reinterpret_cast<cu_graph *>(x->snapshot))) destroy_graph(s, snap);
  s.graph_execs.remove(x->handle);
}

// The region of one side of a copy node in slice z: a driver pointer and its pitch.
int side_at(State &s, const cu_copy_node_side &sd, const cu_copy_node_params &c, uint64_t z, drv_ptr *out,
            uint64_t *pitch) {
  if (sd.array) {
    Array *a = s.arrays.get(sd.array);
    if (!a) return fail(CUDA_ERROR_INVALID_VALUE, "a copy node's array %p was destroyed", (void *)sd.array);
    const cu_array_info &in = a->info;
    uint64_t rows = in.desc.height ? in.desc.height : 1;
    *out = drv_device_ptr(in.data + ((sd.z + z) * rows + sd.y) * in.pitch + sd.x_bytes);
    *pitch = in.pitch;
    return CUDA_SUCCESS;
  }
  uint64_t p = sd.pitch ? sd.pitch : c.width_bytes, rows = sd.height ? sd.height : c.height;
  uint64_t addr = sd.addr + ((sd.z + z) * rows + sd.y) * p + sd.x_bytes;
  *pitch = p;
  cu_mem_info info;
  switch (sd.type) {
    case CU_MEM_DEVICE:
    case CU_MEM_MANAGED:  // device-owned during a graph launch (managed_to_device)
      *out = drv_device_ptr(addr);
      return CUDA_SUCCESS;
    case CU_MEM_PINNED: {
      auto it = s.pinned.upper_bound(addr);
      if (it != s.pinned.begin()) {
        --it;
        if (it->second.bus && addr - it->first < it->second.bytes) {
          *out = drv_system_ptr(it->second.bus + (addr - it->first));
          return CUDA_SUCCESS;
        }
      }
      return fail(CUDA_ERROR_INVALID_VALUE, "a copy node's pinned memory 0x%llx was freed", (unsigned long long)addr);
    }
    default:
      (void)info;
      return fail(CUDA_ERROR_INVALID_VALUE, "internal: host side without staging");
  }
}

// Queues one node's operation on lane stream L (stub thread).
int issue(State &s, ExecNode &x, drv_stream *L) {
  simtvp_diag diag = cleared_diag();
  simtvp_status st = SIMTVP_OK;
  const NodeParams &p = x.p;
  switch (p.type) {
    case CU_GRAPH_NODE_KERNEL: {
      Function *fn = s.functions.get(reinterpret_cast<cu_function *>(p.func));
      st = drv_launch(s.d, L, fn->df, p.grid, p.block, p.smem, p.args.data(), (uint32_t)p.args.size(), &diag);
      break;
    }
    case CU_GRAPH_NODE_MEMCPY: {
      const cu_copy_node_params &c = p.copy;
      bool hs = !c.src.array && host_memory(c.src.type), hd = !c.dst.array && host_memory(c.dst.type);
      if (hs && hd) {
        st = drv_stream_add_callback(s.d, L, host_copy_run, &x.in, &diag);
        break;
      }
      if (hs) st = drv_stream_add_callback(s.d, L, host_copy_run, &x.in, &diag);
      for (uint64_t z = 0; st == SIMTVP_OK && z < c.depth; z++) {
        drv_ptr d, sp;
        uint64_t dpitch = 0, spitch = 0;
        if (hs) {
          sp = drv_system_ptr(x.staging + z * c.width_bytes * c.height);
          spitch = c.width_bytes;
        } else if (int r = side_at(s, c.src, c, z, &sp, &spitch)) {
          return r;
        }
        if (hd) {
          d = drv_system_ptr(x.staging + z * c.width_bytes * c.height);
          dpitch = c.width_bytes;
        } else if (int r = side_at(s, c.dst, c, z, &d, &dpitch)) {
          return r;
        }
        st = c.height == 1 ? drv_memcpy(s.d, L, d, sp, c.width_bytes, &diag)
                           : drv_memcpy_2d(s.d, L, d, dpitch, sp, spitch, c.width_bytes, c.height, &diag);
      }
      if (st == SIMTVP_OK && hd) st = drv_stream_add_callback(s.d, L, host_copy_run, &x.out, &diag);
      break;
    }
    case CU_GRAPH_NODE_MEMSET: {
      const cu_memset_node_params &m = p.memset;
      st = m.height == 1 ? drv_memset(s.d, L, drv_device_ptr(m.dst), m.value, m.elem_bytes, m.width, &diag)
                         : drv_memset_2d(s.d, L, drv_device_ptr(m.dst), m.pitch, m.value, m.elem_bytes, m.width,
                                         m.height, &diag);
      break;
    }
    case CU_GRAPH_NODE_HOST:
      st = drv_stream_add_callback(s.d, L, p.host_fn, p.host_data, &diag);
      break;
    case CU_GRAPH_NODE_EVENT_RECORD: {
      Event *ev = s.events.get(reinterpret_cast<cu_event *>(p.event));
      st = drv_event_record(s.d, ev->de, L, &diag);
      if (st == SIMTVP_OK) {
        ev->recorded = true;
        ev->capture = 0;
        ev->capture_nodes.clear();
      }
      break;
    }
    case CU_GRAPH_NODE_WAIT_EVENT: {
      Event *ev = s.events.get(reinterpret_cast<cu_event *>(p.event));
      st = drv_stream_wait_event(s.d, L, ev->de, &diag);
      break;
    }
    default:
      break;  // empty
  }
  return st == SIMTVP_OK ? CUDA_SUCCESS : drv_fail(s, st, diag);
}

// Launches queued earlier may still hold the host-copy closures and staging buffers of x's copy
// nodes: before those change, the device finishes that work. Other parameters are copied when
// a launch queues them, so an update affects later launches only, as in CUDA.
int quiesce(State &s, GraphExec *x) {
  bool held = false;
  for (auto &n : x->nodes) held |= n->staging != 0 || (n->p.type == CU_GRAPH_NODE_MEMCPY && n->in.direction == 3);
  if (!held) return CUDA_SUCCESS;
  simtvp_diag diag = cleared_diag();
  simtvp_status st = drv_sync(s.d, &diag);
  return st == SIMTVP_OK ? CUDA_SUCCESS : drv_fail(s, st, diag);
}

// What a launch needs to still exist: kernels, events, arrays.
int check_launchable(State &s, GraphExec *x) {
  for (auto &n : x->nodes) {
    const NodeParams &p = n->p;
    if (p.type == CU_GRAPH_NODE_KERNEL && !s.functions.get(reinterpret_cast<cu_function *>(p.func)))
      return fail(CUDA_ERROR_INVALID_HANDLE, "graph launch: a kernel node's function was unloaded with its module");
    if ((p.type == CU_GRAPH_NODE_EVENT_RECORD || p.type == CU_GRAPH_NODE_WAIT_EVENT) &&
        !s.events.get(reinterpret_cast<cu_event *>(p.event)))
      return fail(CUDA_ERROR_INVALID_HANDLE, "graph launch: an event node's event was destroyed");
    if (p.type == CU_GRAPH_NODE_MEMCPY)
      for (const cu_copy_node_side *sd : {&p.copy.src, &p.copy.dst})
        if (sd->array && !s.arrays.get(sd->array))
          return fail(CUDA_ERROR_INVALID_HANDLE, "graph launch: a copy node's array was destroyed");
  }
  return CUDA_SUCCESS;
}

// Pairs g's nodes with the snapshot's in creation order; CUDA's update rules decide what may
// change. *result: cudaGraphExecUpdateResult.
int compare_for_update(State &s, Graph *g, Graph *snap, int *result, GraphNode **bad, GraphNode **bad_from) {
  enum { TOPOLOGY = 2, TYPE = 3, FUNCTION = 4, PARAMETERS = 5 };
  if (g->nodes.size() != snap->nodes.size()) {
    *result = TOPOLOGY;
    return fail(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, "graph update: %zu nodes, the executable graph has %zu",
                g->nodes.size(), snap->nodes.size());
  }
  std::map<GraphNode *, size_t> gi, si;
  for (size_t i = 0; i < g->nodes.size(); i++) {
    gi[g->nodes[i]] = i;
    si[snap->nodes[i]] = i;
  }
  for (size_t i = 0; i < g->nodes.size(); i++) {
    GraphNode *a = g->nodes[i], *b = snap->nodes[i];
    *bad = a;
    std::vector<size_t> da, db;
    for (GraphNode *d : a->deps) da.push_back(gi[d]);
    for (GraphNode *d : b->deps) db.push_back(si[d]);
    std::sort(da.begin(), da.end());
    std::sort(db.begin(), db.end());
    if (da != db) {
      *result = TOPOLOGY;
      if (!a->deps.empty()) *bad_from = a->deps[0];
      return fail(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, "graph update: node %zu has other dependencies", i);
    }
    if (a->p.type != b->p.type) {
      *result = TYPE;
      return fail(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, "graph update: node %zu is a %s node, was a %s node", i,
                  type_name(a->p.type), type_name(b->p.type));
    }
    if (a->p.type == CU_GRAPH_NODE_MEMCPY) {
      const cu_copy_node_params &x = a->p.copy, &y = b->p.copy;
      if ((x.src.array != nullptr) != (y.src.array != nullptr) || (x.dst.array != nullptr) != (y.dst.array != nullptr) ||
          (!x.src.array && host_memory(x.src.type) != host_memory(y.src.type)) ||
          (!x.dst.array && host_memory(x.dst.type) != host_memory(y.dst.type))) {
        *result = PARAMETERS;
        return fail(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
                    "graph update: copy node %zu changes the kind of memory it copies between", i);
      }
    }
    if (a->p.type == CU_GRAPH_NODE_GRAPH) {
      Graph *ca = s.graphs.get(reinterpret_cast<cu_graph *>(a->p.child));
      Graph *cb = s.graphs.get(reinterpret_cast<cu_graph *>(b->p.child));
      if (int r = compare_for_update(s, ca, cb, result, bad, bad_from)) return r;
    }
  }
  *bad = nullptr;
  return CUDA_SUCCESS;
}

// Copies g's parameters into the snapshot and the instances (the comparison succeeded).
void apply_update(State &s, GraphExec *x, Graph *g, Graph *snap) {
  for (size_t i = 0; i < g->nodes.size(); i++) {
    GraphNode *a = g->nodes[i], *b = snap->nodes[i];
    if (a->p.type == CU_GRAPH_NODE_GRAPH) {
      apply_update(s, x, s.graphs.get(reinterpret_cast<cu_graph *>(a->p.child)),
                   s.graphs.get(reinterpret_cast<cu_graph *>(b->p.child)));
      continue;
    }
    b->p = a->p;
    auto it = x->index_of.find(b->handle);
    if (it != x->index_of.end()) {
      x->nodes[it->second]->p = a->p;
    }
  }
}

// ---- capture ------------------------------------------------------------------------------------

bool blocking(const Stream *st) { return !(st->flags & 1u); }

void invalidate(Capture &c, const std::string &why) {
  if (c.invalidated) return;
  c.invalidated = true;
  c.why = why;
}

void end_capture_streams(State &s, uint64_t id) {
  for (Stream *st : s.streams.all())
    if (st->capture == id) {
      st->capture = 0;
      st->capture_deps.clear();
      st->capture_deps_view.clear();
    }
}

Capture *capture_by_id(State &s, uint64_t id) {
  auto it = s.captures.find(id);
  return it == s.captures.end() ? nullptr : &it->second;
}

// The capture's nodes that are ancestors of (or in) deps.
std::set<GraphNode *> ancestors(const std::vector<GraphNode *> &deps) {
  std::set<GraphNode *> seen;
  std::vector<GraphNode *> stack(deps.begin(), deps.end());
  while (!stack.empty()) {
    GraphNode *n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    for (GraphNode *d : n->deps) stack.push_back(d);
  }
  return seen;
}

}  // namespace

// ---- capture hooks for the other core files (cu_internal.h) -----------------------------------------

namespace cucore {

Stream *stream_object(State &s, cu_stream *handle) {
  if (handle == nullptr || handle == CU_STREAM_LEGACY) return nullptr;
  if (handle == CU_STREAM_PER_THREAD) return s.per_thread;
  return s.streams.get(handle);
}

int capture_route(State &s, cu_stream *handle, Stream **capturing) {
  *capturing = nullptr;
  if (s.captures.empty()) return CUDA_SUCCESS;
  if (handle == nullptr || handle == CU_STREAM_LEGACY) {
    // The legacy stream synchronises with every blocking stream: it cannot wait for (or make wait)
    // a stream whose work is being captured.
    bool any = false;
    for (Stream *st : s.streams.all()) {
      Capture *c = st->capture ? capture_by_id(s, st->capture) : nullptr;
      if (c && blocking(st)) {
        invalidate(*c, "an operation on the legacy stream while a blocking stream captured");
        any = true;
      }
    }
    if (any)
      return fail(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
                  "an operation on the legacy default stream while a blocking stream is capturing would depend "
                  "on the capture; use a non-blocking stream or cudaStreamPerThread (the capture is invalidated)");
    return CUDA_SUCCESS;
  }
  Stream *st = stream_object(s, handle);
  if (!st || !st->capture) return CUDA_SUCCESS;
  Capture *c = capture_by_id(s, st->capture);
  if (c->invalidated)
    return fail(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "the capture of stream %p was invalidated earlier: %s",
                (void *)handle, c->why.c_str());
  *capturing = st;
  return CUDA_SUCCESS;
}

int capture_add(State &s, Stream *st, NodeParams &&p) {
  if (p.type == CU_GRAPH_NODE_MEMCPY) {
    if (int r = check_copy_side(s, p.copy.src, p.copy, "source")) return r;
    if (int r = check_copy_side(s, p.copy.dst, p.copy, "destination")) return r;
  }
  if (p.type == CU_GRAPH_NODE_MEMSET)
    if (int r = check_memset(s, &p.memset)) return r;
  Capture *c = capture_by_id(s, st->capture);
  Graph *g = s.graphs.get(reinterpret_cast<cu_graph *>(c->graph));
  if (!g) {
    invalidate(*c, "its graph was destroyed");
    return fail(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "the graph being captured into was destroyed");
  }
  GraphNode *n = new_node(s, g, std::move(p), st->capture_deps);
  st->capture_deps.assign(1, n);
  return CUDA_SUCCESS;
}

int capture_unsupported(State &s, Stream *st, const char *what) {
  Capture *c = capture_by_id(s, st->capture);
  invalidate(*c, std::string(what) + " during the capture");
  return fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
              "%s is not permitted while stream %p is capturing (the capture is invalidated; its end reports "
              "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)",
              what, (void *)st->handle);
}

int capture_guard(State &s, const char *what) {
  if (s.captures.empty() || tl_capture_mode == MODE_RELAXED) return CUDA_SUCCESS;
  std::thread::id me = std::this_thread::get_id();
  Capture *culprit = nullptr;
  for (auto &kv : s.captures) {
    Capture &c = kv.second;
    if (c.mode == MODE_RELAXED) continue;
    if (c.thread == me || (c.mode == MODE_GLOBAL && tl_capture_mode == MODE_GLOBAL)) {
      invalidate(c, std::string(what) + " during the capture");
      culprit = &c;
    }
  }
  if (!culprit) return CUDA_SUCCESS;
  return fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
              "%s is not permitted during a %s stream capture (capture %llu is invalidated); capture in relaxed "
              "mode or call cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureModeRelaxed) around it",
              what, kModeNames[culprit->mode], (unsigned long long)culprit->id);
}

int capture_event_record(State &s, Stream *st, Event *ev, unsigned flags) {
  if (flags & 1u) {  // cudaEventRecordExternal: an event record node
    NodeParams p;
    p.type = CU_GRAPH_NODE_EVENT_RECORD;
    p.event = ev->handle;
    return capture_add(s, st, std::move(p));
  }
  ev->capture = st->capture;
  ev->capture_nodes = st->capture_deps;
  return CUDA_SUCCESS;
}

int capture_wait_event(State &s, cu_stream *handle, Stream *st, Event *ev, unsigned flags, bool *handled) {
  *handled = false;
  Capture *ec = ev->capture ? capture_by_id(s, ev->capture) : nullptr;
  if (!st && !ec) return CUDA_SUCCESS;  // ordinary
  *handled = true;
  if (ec && ec->invalidated)
    return fail(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "the event was recorded in an invalidated capture: %s",
                ec->why.c_str());
  if (!st) {
    // A stream that waits for a captured event joins that capture (a fork).
    if (handle == CU_STREAM_PER_THREAD && !s.per_thread) {
      int r = run(s, [&]() -> int {
        drv_stream *ds = nullptr;
        return resolve_stream(s, handle, &ds);
      });
      if (r != CUDA_SUCCESS) return r;
    }
    Stream *joiner = stream_object(s, handle);
    if (!joiner) {
      invalidate(*ec, "the legacy stream waited for one of its events");
      return fail(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT,
                  "the legacy default stream cannot wait for an event recorded in a capture");
    }
    joiner->capture = ec->id;
    joiner->capture_deps = ev->capture_nodes;
    return CUDA_SUCCESS;
  }
  if (!ec) {
    if (flags & 1u) {  // cudaEventWaitExternal: an event wait node
      NodeParams p;
      p.type = CU_GRAPH_NODE_WAIT_EVENT;
      p.event = ev->handle;
      return capture_add(s, st, std::move(p));
    }
    Capture *c = capture_by_id(s, st->capture);
    invalidate(*c, "waiting for an event recorded outside the capture");
    return fail(CUDA_ERROR_STREAM_CAPTURE_ISOLATION,
                "stream %p is capturing and the event was recorded outside the capture (use "
                "cudaEventWaitExternal for an event wait node); the capture is invalidated",
                (void *)st->handle);
  }
  if (ec->id != st->capture) {
    Capture *c = capture_by_id(s, st->capture);
    invalidate(*c, "waiting for an event of another capture");
    invalidate(*ec, "another capture waited for one of its events");
    return fail(CUDA_ERROR_STREAM_CAPTURE_MERGE, "the event belongs to another capture: two captures cannot merge");
  }
  for (GraphNode *n : ev->capture_nodes)
    if (std::find(st->capture_deps.begin(), st->capture_deps.end(), n) == st->capture_deps.end())
      st->capture_deps.push_back(n);
  return CUDA_SUCCESS;
}

int check_not_captured(State &s, Event *ev, const char *what) {
  if (ev->capture && !capture_by_id(s, ev->capture)) {  // its capture ended: never recorded on the GPU
    ev->capture = 0;
    ev->capture_nodes.clear();
  }
  if (!ev->capture) return CUDA_SUCCESS;
  return fail(CUDA_ERROR_CAPTURED_EVENT,
              "event %p was last recorded in a capturing stream: it stands for graph nodes and cannot be %s",
              (void *)ev->handle, what);
}

void destroy_ctx_graph_execs(State &s, Ctx *ctx) {
  for (GraphExec *x : s.graph_execs.all())
    if (x->ctx == ctx) destroy_exec(s, x);
}

void capture_forget_stream(State &s, Stream *st) {
  if (!st->capture) return;
  Capture *c = capture_by_id(s, st->capture);
  st->capture = 0;
  st->capture_deps.clear();
  if (!c || c->origin != st->handle) return;
  // Nobody can end a capture whose stream is gone: it ends here, its own graph with it.
  uint64_t id = c->id;
  Graph *g = s.graphs.get(reinterpret_cast<cu_graph *>(c->graph));
  if (g && c->own_graph) destroy_graph(s, g);
  end_capture_streams(s, id);
  s.captures.erase(id);
}

}  // namespace cucore

// ---- the C API -------------------------------------------------------------------------------------

extern "C" {

int cucore_graph_create(cu_graph **out) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  if (!out) return fail(CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  *out = reinterpret_cast<cu_graph *>(new_graph(s)->handle);
  return CUDA_SUCCESS;
}

int cucore_graph_destroy(cu_graph *graph) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  Graph *g = graph_of(s, graph);
  if (!g || g->parent || g->internal) return bad_graph(graph);
  destroy_graph(s, g);
  return CUDA_SUCCESS;
}

bool cucore_graph_valid(const cu_graph *graph) {
  State &s = state();
  Peek peek;
  Graph *g = s.graphs.get(graph);
  return g && !g->internal;
}

int cucore_graph_clone(cu_graph *graph, cu_graph **out) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  Graph *g = graph_of(s, graph);
  if (!g || g->internal) return bad_graph(graph);
  if (!out) return fail(CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  *out = reinterpret_cast<cu_graph *>(clone_graph(s, g, nullptr)->handle);
  return CUDA_SUCCESS;
}

int cucore_graph_add_node(cu_graph *graph, cu_graph_node *const *deps, size_t n_deps, const cu_graph_node_params *in,
                          cu_graph_node **out) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  Graph *g = graph_of(s, graph);
  if (!g || g->internal) return bad_graph(graph);
  if (!in || !out) return fail(CUDA_ERROR_INVALID_VALUE, "%s pointer is NULL", !in ? "the parameter" : "the result");
  std::vector<GraphNode *> d;
  if (int r = collect_deps(s, g, deps, n_deps, &d)) return r;
  NodeParams p;
  if (int r = make_params(s, *in, &p)) return r;
  // The node's own copy of a child graph, made before the node exists (a graph may be added to
  // itself: the copy is of what it was).
  Graph *copy = in->type == CU_GRAPH_NODE_GRAPH ? clone_graph(s, graph_of(s, in->child), nullptr) : nullptr;
  GraphNode *n = new_node(s, g, std::move(p), d);
  if (copy) {
    copy->parent = n;
    n->p.child = copy->handle;
  }
  *out = reinterpret_cast<cu_graph_node *>(n->handle);
  return CUDA_SUCCESS;
}

int cucore_graph_node_params(cu_graph_node *node, cu_graph_node_params *out) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  GraphNode *n = node_of(s, node);
  if (!n) return bad_node(node);
  if (!out) return fail(CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  std::memset(out, 0, sizeof *out);
  const NodeParams &p = n->p;
  out->type = p.type;
  switch (p.type) {
    case CU_GRAPH_NODE_KERNEL:
      n->arg_ptrs.clear();
      for (uint32_t off : p.arg_offsets) n->arg_ptrs.push_back(const_cast<uint8_t *>(p.args.data()) + off);
      out->kernel.func = reinterpret_cast<cu_function *>(p.func);
      for (int i = 0; i < 3; i++) {
        out->kernel.grid[i] = p.grid[i];
        out->kernel.block[i] = p.block[i];
      }
      out->kernel.smem = p.smem;
      out->kernel.args = n->arg_ptrs.empty() ? nullptr : n->arg_ptrs.data();
      break;
    case CU_GRAPH_NODE_MEMCPY: out->copy = p.copy; break;
    case CU_GRAPH_NODE_MEMSET: out->memset = p.memset; break;
    case CU_GRAPH_NODE_HOST:
      out->host_fn = p.host_fn;
      out->host_data = p.host_data;
      break;
    case CU_GRAPH_NODE_GRAPH: out->child = reinterpret_cast<cu_graph *>(p.child); break;
    case CU_GRAPH_NODE_EVENT_RECORD:
    case CU_GRAPH_NODE_WAIT_EVENT: out->event = reinterpret_cast<cu_event *>(p.event); break;
    default: break;
  }
  return CUDA_SUCCESS;
}

int cucore_graph_node_set_params(cu_graph_node *node, const cu_graph_node_params *in) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  GraphNode *n = node_of(s, node);
  if (!n) return bad_node(node);
  if (!in) return fail(CUDA_ERROR_INVALID_VALUE, "the parameter pointer is NULL");
  if (in->type != n->p.type)
    return fail(CUDA_ERROR_INVALID_VALUE, "node %p is a %s node, the parameters are for a %s node", (void *)node,
                type_name(n->p.type), type_name(in->type));
  NodeParams p;
  if (int r = make_params(s, *in, &p)) return r;
  if (in->type == CU_GRAPH_NODE_GRAPH) {
    Graph *old = s.graphs.get(reinterpret_cast<cu_graph *>(n->p.child));
    p.child = clone_graph(s, graph_of(s, in->child), n)->handle;
    if (old) destroy_graph(s, old);
  }
  n->p = std::move(p);
  return CUDA_SUCCESS;
}

int cucore_graph_node_type(cu_graph_node *node, int *type) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  GraphNode *n = node_of(s, node);
  if (!n) return bad_node(node);
  if (!type) return fail(CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  *type = n->p.type;
  return CUDA_SUCCESS;
}

int cucore_graph_node_owner(cu_graph_node *node, cu_graph **g) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  GraphNode *n = node_of(s, node);
  if (!n) return bad_node(node);
  if (g) *g = reinterpret_cast<cu_graph *>(n->graph->handle);
  return CUDA_SUCCESS;
}

int cucore_graph_destroy_node(cu_graph_node *node) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  GraphNode *n = node_of(s, node);
  if (!n || n->graph->internal) return bad_node(node);
  for (GraphNode *d : n->deps) d->dependents.erase(std::find(d->dependents.begin(), d->dependents.end(), n));
  for (GraphNode *d : n->dependents) d->deps.erase(std::find(d->deps.begin(), d->deps.end(), n));
  std::vector<GraphNode *> &nodes = n->graph->nodes;
  nodes.erase(std::find(nodes.begin(), nodes.end(), n));
  for (Stream *st : s.streams.all())
    st->capture_deps.erase(std::remove(st->capture_deps.begin(), st->capture_deps.end(), n), st->capture_deps.end());
  destroy_node_object(s, n);
  return CUDA_SUCCESS;
}

int cucore_graph_nodes(cu_graph *graph, bool roots_only, cu_graph_node **nodes, size_t *count) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  Graph *g = graph_of(s, graph);
  if (!g) return bad_graph(graph);
  std::vector<cu_graph_node *> v;
  for (GraphNode *n : g->nodes)
    if (!roots_only || n->deps.empty()) v.push_back(reinterpret_cast<cu_graph_node *>(n->handle));
  return list_out(v, nodes, count);
}

int cucore_graph_edges(cu_graph *graph, cu_graph_node **from, cu_graph_node **to, size_t *count) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  Graph *g = graph_of(s, graph);
  if (!g) return bad_graph(graph);
  if ((from == nullptr) != (to == nullptr)) return fail(CUDA_ERROR_INVALID_VALUE, "give both edge arrays or neither");
  std::vector<cu_graph_node *> a, b;
  for (GraphNode *n : g->nodes)
    for (GraphNode *d : n->deps) {
      a.push_back(reinterpret_cast<cu_graph_node *>(d->handle));
      b.push_back(reinterpret_cast<cu_graph_node *>(n->handle));
    }
  size_t n = count ? *count : 0;
  if (int r = list_out(a, from, count)) return r;
  if (to) return list_out(b, to, &n);
  return CUDA_SUCCESS;
}

int cucore_graph_node_edges(cu_graph_node *node, bool dependents, cu_graph_node **nodes, size_t *count) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  GraphNode *n = node_of(s, node);
  if (!n) return bad_node(node);
  std::vector<cu_graph_node *> v;
  for (GraphNode *d : dependents ? n->dependents : n->deps) v.push_back(reinterpret_cast<cu_graph_node *>(d->handle));
  return list_out(v, nodes, count);
}

int cucore_graph_add_dependencies(cu_graph *graph, cu_graph_node *const *from, cu_graph_node *const *to, size_t n,
                                  bool remove) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  Graph *g = graph_of(s, graph);
  if (!g || g->internal) return bad_graph(graph);
  if (n && (!from || !to)) return fail(CUDA_ERROR_INVALID_VALUE, "%zu edges given without their arrays", n);
  for (size_t i = 0; i < n; i++) {
    GraphNode *a = node_of(s, from[i]), *b = node_of(s, to[i]);
    if (!a || !b || a->graph != g || b->graph != g)
      return fail(CUDA_ERROR_INVALID_VALUE, "edge %zu: %p -> %p are not both nodes of graph %p", i, (void *)from[i],
                  (void *)to[i], (void *)graph);
    bool exists = std::find(b->deps.begin(), b->deps.end(), a) != b->deps.end();
    if (remove) {
      if (!exists) return fail(CUDA_ERROR_INVALID_VALUE, "edge %zu: %p -> %p does not exist", i, (void *)from[i], (void *)to[i]);
      b->deps.erase(std::find(b->deps.begin(), b->deps.end(), a));
      a->dependents.erase(std::find(a->dependents.begin(), a->dependents.end(), b));
      continue;
    }
    if (exists) return fail(CUDA_ERROR_INVALID_VALUE, "edge %zu: %p -> %p exists already", i, (void *)from[i], (void *)to[i]);
    if (a == b || reaches(b, a))
      return fail(CUDA_ERROR_INVALID_VALUE, "edge %zu: %p -> %p would make a cycle", i, (void *)from[i], (void *)to[i]);
    b->deps.push_back(a);
    a->dependents.push_back(b);
  }
  return CUDA_SUCCESS;
}

int cucore_graph_find_in_clone(cu_graph *clone, cu_graph_node *original, cu_graph_node **out) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  Graph *g = graph_of(s, clone);
  if (!g) return bad_graph(clone);
  if (!out) return fail(CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  auto it = g->clone_of.find(reinterpret_cast<uintptr_t>(original));
  if (it == g->clone_of.end() || !s.graph_nodes.get(reinterpret_cast<cu_graph_node *>(it->second)))
    return fail(CUDA_ERROR_INVALID_VALUE, "node %p was not cloned into graph %p", (void *)original, (void *)clone);
  *out = reinterpret_cast<cu_graph_node *>(it->second);
  return CUDA_SUCCESS;
}

int cucore_graph_debug_dot(cu_graph *graph, const char *path, unsigned flags) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  Graph *g = graph_of(s, graph);
  if (!g) return bad_graph(graph);
  if (!path) return fail(CUDA_ERROR_INVALID_VALUE, "the path is NULL");
  FILE *f = std::fopen(path, "w");
  if (!f) return fail(CUDA_ERROR_OPERATING_SYSTEM, "cannot write '%s'", path);
  (void)flags;  // one level of detail: type, kernel name and launch shape, copy and memset sizes
  std::fprintf(f, "digraph simtvp_graph {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n");
  int cluster = 0;
  std::function<void(Graph *, const std::string &)> emit = [&](Graph *gr, const std::string &indent) {
    for (GraphNode *n : gr->nodes) {
      const NodeParams &p = n->p;
      char label[256];
      if (p.type == CU_GRAPH_NODE_KERNEL) {
        Function *fn = s.functions.get(reinterpret_cast<cu_function *>(p.func));
        std::snprintf(label, sizeof label, "kernel %s\\n<<<(%u,%u,%u), (%u,%u,%u), %u>>>",
                      fn ? fn->name.c_str() : "(unloaded)", p.grid[0], p.grid[1], p.grid[2], p.block[0], p.block[1],
                      p.block[2], p.smem);
      } else if (p.type == CU_GRAPH_NODE_MEMCPY) {
        std::snprintf(label, sizeof label, "memcpy %llu x %llu x %llu bytes", (unsigned long long)p.copy.width_bytes,
                      (unsigned long long)p.copy.height, (unsigned long long)p.copy.depth);
      } else if (p.type == CU_GRAPH_NODE_MEMSET) {
        std::snprintf(label, sizeof label, "memset 0x%llx = 0x%x, %llu x %llu x %u bytes",
                      (unsigned long long)p.memset.dst, p.memset.value, (unsigned long long)p.memset.width,
                      (unsigned long long)p.memset.height, p.memset.elem_bytes);
      } else {
        std::snprintf(label, sizeof label, "%s", type_name(p.type));
      }
      if (p.type == CU_GRAPH_NODE_GRAPH) {
        std::fprintf(f, "%s\"n%llx\" [label=\"child graph\", shape=folder];\n", indent.c_str(),
                     (unsigned long long)n->handle);
        std::fprintf(f, "%ssubgraph cluster_%d {\n", indent.c_str(), cluster++);
        emit(s.graphs.get(reinterpret_cast<cu_graph *>(p.child)), indent + "  ");
        std::fprintf(f, "%s}\n", indent.c_str());
      } else {
        std::fprintf(f, "%s\"n%llx\" [label=\"%s\"];\n", indent.c_str(), (unsigned long long)n->handle, label);
      }
      for (GraphNode *d : n->deps)
        std::fprintf(f, "%s\"n%llx\" -> \"n%llx\";\n", indent.c_str(), (unsigned long long)d->handle,
                     (unsigned long long)n->handle);
    }
  };
  emit(g, "  ");
  std::fprintf(f, "}\n");
  bool bad = std::ferror(f);
  std::fclose(f);
  return bad ? fail(CUDA_ERROR_OPERATING_SYSTEM, "cannot write '%s'", path) : CUDA_SUCCESS;
}

int cucore_graph_instantiate(cu_graph *graph, unsigned long long flags, cu_graph_exec **out, cu_graph_node **error_node) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if (error_node) *error_node = nullptr;
  Graph *g = graph_of(s, graph);
  if (!g || g->parent || g->internal) return bad_graph(graph);
  if (!out) return fail(CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  // cudaGraphInstantiateFlagAutoFreeOnLaunch 1, FlagUpload 2, FlagDeviceLaunch 4, FlagUseNodePriority 8.
  if (flags & ~0xfull) return fail(CUDA_ERROR_INVALID_VALUE, "graph instantiate flags 0x%llx", flags);
  if (flags & 4ull) return fail(CUDA_ERROR_NOT_SUPPORTED, "device-launched graphs are not supported by simtvp");
  for (auto &kv : s.captures)
    if (kv.second.graph == g->handle)
      return fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "graph %p is still being captured into", (void *)graph);

  auto x = std::make_unique<GraphExec>();
  x->flags = flags;
  x->ctx = primary_ctx(s);
  Graph *snap = clone_graph(s, g, nullptr);
  snap->internal = true;
  x->snapshot = snap->handle;
  std::vector<Flat> flat;
  flatten(s, snap, {}, &flat);

  // Kahn's order, ties broken by flattening order: deterministic.
  size_t n = flat.size();
  std::vector<size_t> indeg(n, 0), order;
  std::vector<std::vector<size_t>> out_edges(n);
  for (size_t i = 0; i < n; i++)
    for (size_t d : flat[i].deps) {
      indeg[i]++;
      out_edges[d].push_back(i);
    }
  std::set<size_t> ready_set;
  for (size_t i = 0; i < n; i++)
    if (!indeg[i]) ready_set.insert(i);
  while (!ready_set.empty()) {
    size_t i = *ready_set.begin();
    ready_set.erase(ready_set.begin());
    order.push_back(i);
    for (size_t j : out_edges[i])
      if (--indeg[j] == 0) ready_set.insert(j);
  }
  if (order.size() != n) {
    destroy_graph(s, snap);
    return fail(CUDA_ERROR_INVALID_VALUE, "graph %p has a dependency cycle", (void *)graph);
  }
  std::vector<size_t> pos(n);
  for (size_t k = 0; k < n; k++) pos[order[k]] = k;

  // Lanes: a node continues the lane of its first parent that no other child continued yet;
  // otherwise it opens a lane (the first root takes the launch stream's lane 0).
  std::vector<int> lane_of(n, -1);
  std::vector<bool> continued(n, false);
  int lanes = 0;
  for (size_t k = 0; k < n; k++) {
    size_t i = order[k];
    for (size_t d : flat[i].deps)
      if (!continued[d]) {
        continued[d] = true;
        lane_of[i] = lane_of[d];
        break;
      }
    if (lane_of[i] < 0) lane_of[i] = lanes++;
  }
  for (size_t k = 0; k < n; k++) {
    size_t i = order[k];
    auto xn = std::make_unique<ExecNode>();
    xn->p = flat[i].p;
    xn->origin = flat[i].origin;
    xn->lane = lane_of[i];
    for (size_t d : flat[i].deps) {
      xn->deps.push_back(pos[d]);
      if (lane_of[d] != lane_of[i]) xn->waits.push_back(pos[d]);
    }
    int t = xn->p.type;
    if (t == CU_GRAPH_NODE_KERNEL || t == CU_GRAPH_NODE_MEMCPY || t == CU_GRAPH_NODE_MEMSET) x->touches_memory = true;
    x->index_of[xn->origin] = x->nodes.size();
    x->nodes.push_back(std::move(xn));
  }
  GraphExec *raw = x.get();
  int r = run(s, [&]() -> int {
    simtvp_diag diag = cleared_diag();
    raw->lanes.assign(lanes > 0 ? lanes : 1, nullptr);
    raw->lane_end.assign(raw->lanes.size(), nullptr);
    for (size_t i = 1; i < raw->lanes.size(); i++) {
      simtvp_status st = drv_stream_create(s.d, DRV_STREAM_NON_BLOCKING, 0, &raw->lanes[i], &diag);
      if (st == SIMTVP_OK) st = drv_event_create(s.d, &raw->lane_end[i], &diag);
      if (st != SIMTVP_OK) return drv_fail(s, st, diag);
    }
    if (raw->lanes.size() > 1) {
      simtvp_status st = drv_event_create(s.d, &raw->start, &diag);
      if (st != SIMTVP_OK) return drv_fail(s, st, diag);
    }
    for (auto &xn : raw->nodes)
      for (size_t w : xn->waits)
        if (!raw->nodes[w]->done) {
          simtvp_status st = drv_event_create(s.d, &raw->nodes[w]->done, &diag);
          if (st != SIMTVP_OK) return drv_fail(s, st, diag);
        }
    for (auto &xn : raw->nodes)
      if (int rr = prepare_node(s, *xn)) return rr;
    return CUDA_SUCCESS;
  });
  s.graph_execs.add(std::move(x));
  if (r != CUDA_SUCCESS) {
    (void)run(s, [&]() -> int {
      destroy_exec(s, raw);
      return CUDA_SUCCESS;
    });
    return r;
  }
  *out = reinterpret_cast<cu_graph_exec *>(raw->handle);
  return CUDA_SUCCESS;
}

int cucore_graph_exec_destroy(cu_graph_exec *exec) {
  Entry e;
  State &s = state();
  if (int r = e.device(s)) return r;
  GraphExec *x = s.graph_execs.get(exec);
  if (!x) return fail(CUDA_ERROR_INVALID_VALUE, "%p is not a live executable graph", (void *)exec);
  return run(s, [&]() -> int {
    destroy_exec(s, x);
    return CUDA_SUCCESS;
  });
}

int cucore_graph_exec_flags(cu_graph_exec *exec, unsigned long long *flags) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  GraphExec *x = s.graph_execs.get(exec);
  if (!x) return fail(CUDA_ERROR_INVALID_VALUE, "%p is not a live executable graph", (void *)exec);
  if (!flags) return fail(CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  *flags = x->flags;
  return CUDA_SUCCESS;
}

int cucore_graph_upload(cu_graph_exec *exec, cu_stream *stream) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  GraphExec *x = s.graph_execs.get(exec);
  if (!x) return fail(CUDA_ERROR_INVALID_VALUE, "%p is not a live executable graph", (void *)exec);
  if (int r = check_launchable(s, x)) return r;
  return run(s, [&]() -> int {
    drv_stream *ds = nullptr;
    return resolve_stream(s, stream, &ds);
  });
}

int cucore_graph_launch(cu_graph_exec *exec, cu_stream *stream) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  GraphExec *x = s.graph_execs.get(exec);
  if (!x) return fail(CUDA_ERROR_INVALID_VALUE, "%p is not a live executable graph", (void *)exec);
  if (int r = check_launchable(s, x)) return r;
  Stream *capturing = nullptr;
  if (int r = capture_route(s, stream, &capturing)) return r;
  if (capturing) {  // launching a graph into a capture adds it as a child graph node
    NodeParams p;
    p.type = CU_GRAPH_NODE_GRAPH;
    if (int r = capture_add(s, capturing, std::move(p))) return r;
    GraphNode *n = capturing->capture_deps[0];
    Graph *child = clone_graph(s, s.graphs.get(reinterpret_cast<cu_graph *>(x->snapshot)), n);
    child->internal = false;
    n->p.child = child->handle;
    return CUDA_SUCCESS;
  }
  return run(s, [&]() -> int {
    drv_stream *ds = nullptr;
    int r = resolve_stream(s, stream, &ds);
    if (r != CUDA_SUCCESS) return r;
    if (x->touches_memory && (r = managed_to_device(s, ds, true)) != CUDA_SUCCESS) return r;
    simtvp_diag diag = cleared_diag();
    simtvp_status st = SIMTVP_OK;
    x->lanes[0] = ds;
    if (x->lanes.size() > 1) {
      st = drv_event_record(s.d, x->start, ds, &diag);
      for (size_t i = 1; st == SIMTVP_OK && i < x->lanes.size(); i++)
        st = drv_stream_wait_event(s.d, x->lanes[i], x->start, &diag);
      if (st != SIMTVP_OK) return drv_fail(s, st, diag);
    }
    for (auto &xn : x->nodes) {
      drv_stream *L = x->lanes[xn->lane];
      for (size_t w : xn->waits) {
        st = drv_stream_wait_event(s.d, L, x->nodes[w]->done, &diag);
        if (st != SIMTVP_OK) return drv_fail(s, st, diag);
      }
      if (xn->enabled && (r = issue(s, *xn, L)) != CUDA_SUCCESS) return r;
      if (xn->done && (st = drv_event_record(s.d, xn->done, L, &diag)) != SIMTVP_OK) return drv_fail(s, st, diag);
    }
    for (size_t i = 1; i < x->lanes.size(); i++) {
      st = drv_event_record(s.d, x->lane_end[i], x->lanes[i], &diag);
      if (st == SIMTVP_OK) st = drv_stream_wait_event(s.d, ds, x->lane_end[i], &diag);
      if (st != SIMTVP_OK) return drv_fail(s, st, diag);
    }
    return CUDA_SUCCESS;
  });
}

int cucore_graph_exec_update(cu_graph_exec *exec, cu_graph *graph, int *result, cu_graph_node **error_node,
                             cu_graph_node **error_from) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if (result) *result = 0;
  if (error_node) *error_node = nullptr;
  if (error_from) *error_from = nullptr;
  GraphExec *x = s.graph_execs.get(exec);
  if (!x) return fail(CUDA_ERROR_INVALID_VALUE, "%p is not a live executable graph", (void *)exec);
  Graph *g = graph_of(s, graph);
  if (!g || g->internal) return bad_graph(graph);
  Graph *snap = s.graphs.get(reinterpret_cast<cu_graph *>(x->snapshot));
  int res = 0;
  GraphNode *bad = nullptr, *bad_from = nullptr;
  if (int r = compare_for_update(s, g, snap, &res, &bad, &bad_from)) {
    if (result) *result = res;
    if (error_node && bad) *error_node = reinterpret_cast<cu_graph_node *>(bad->handle);
    if (error_from && bad_from) *error_from = reinterpret_cast<cu_graph_node *>(bad_from->handle);
    return r;
  }
  // The instances are still queued from earlier launches until the device reaches them: wait for
  // the graph's lanes (CUDA lets the update affect only later launches).
  return run(s, [&]() -> int {
    if (int rr = quiesce(s, x)) return rr;
    apply_update(s, x, g, snap);
    for (auto &xn : x->nodes)
      if (int rr = prepare_node(s, *xn)) return rr;
    return CUDA_SUCCESS;
  });
}

int cucore_graph_exec_node_set_params(cu_graph_exec *exec, cu_graph_node *node, const cu_graph_node_params *in) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  GraphExec *x = s.graph_execs.get(exec);
  if (!x) return fail(CUDA_ERROR_INVALID_VALUE, "%p is not a live executable graph", (void *)exec);
  if (!in) return fail(CUDA_ERROR_INVALID_VALUE, "the parameter pointer is NULL");
  Graph *snap = s.graphs.get(reinterpret_cast<cu_graph *>(x->snapshot));
  auto m = snap->clone_of.find(reinterpret_cast<uintptr_t>(node));
  GraphNode *target = m == snap->clone_of.end() ? nullptr : s.graph_nodes.get(reinterpret_cast<cu_graph_node *>(m->second));
  if (!target)
    return fail(CUDA_ERROR_INVALID_VALUE, "node %p is not a node of the graph executable graph %p was instantiated from",
                (void *)node, (void *)exec);
  if (target->p.type != in->type)
    return fail(CUDA_ERROR_INVALID_VALUE, "node %p is a %s node, the parameters are for a %s node", (void *)node,
                type_name(target->p.type), type_name(in->type));
  if (in->type == CU_GRAPH_NODE_GRAPH) {
    // A new child graph with the same topology: its parameters go into the instances.
    Graph *child = graph_of(s, in->child);
    if (!child) return bad_graph(in->child);
    Graph *old = s.graphs.get(reinterpret_cast<cu_graph *>(target->p.child));
    int res = 0;
    GraphNode *bad = nullptr, *bad_from = nullptr;
    if (compare_for_update(s, child, old, &res, &bad, &bad_from) != CUDA_SUCCESS) {
      std::string why = cucore_last_message();
      return fail(CUDA_ERROR_INVALID_VALUE, "the child graph does not match the instantiated one: %s", why.c_str());
    }
    return run(s, [&]() -> int {
      if (int rr = quiesce(s, x)) return rr;
      apply_update(s, x, child, old);
      for (auto &xn : x->nodes)
        if (int rr = prepare_node(s, *xn)) return rr;
      return CUDA_SUCCESS;
    });
  }
  NodeParams p;
  if (int r = make_params(s, *in, &p)) return r;
  if (p.type == CU_GRAPH_NODE_MEMCPY) {
    const cu_copy_node_params &a = p.copy, &b = target->p.copy;
    if ((a.src.array != nullptr) != (b.src.array != nullptr) || (a.dst.array != nullptr) != (b.dst.array != nullptr) ||
        (!a.src.array && host_memory(a.src.type) != host_memory(b.src.type)) ||
        (!a.dst.array && host_memory(a.dst.type) != host_memory(b.dst.type)))
      return fail(CUDA_ERROR_INVALID_VALUE, "an instantiated copy node cannot change the kind of memory it copies "
                  "between");
  }
  return run(s, [&]() -> int {
    if (int rr = quiesce(s, x)) return rr;
    target->p = p;
    ExecNode &xn = *x->nodes[x->index_of[target->handle]];
    xn.p = std::move(p);
    return prepare_node(s, xn);
  });
}

int cucore_graph_exec_node_enabled(cu_graph_exec *exec, cu_graph_node *node, int set, unsigned *enabled) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  GraphExec *x = s.graph_execs.get(exec);
  if (!x) return fail(CUDA_ERROR_INVALID_VALUE, "%p is not a live executable graph", (void *)exec);
  Graph *snap = s.graphs.get(reinterpret_cast<cu_graph *>(x->snapshot));
  auto m = snap->clone_of.find(reinterpret_cast<uintptr_t>(node));
  if (m == snap->clone_of.end())
    return fail(CUDA_ERROR_INVALID_VALUE, "node %p is not a node of the graph executable graph %p was instantiated from",
                (void *)node, (void *)exec);
  ExecNode &xn = *x->nodes[x->index_of[m->second]];
  if (xn.p.type != CU_GRAPH_NODE_KERNEL && xn.p.type != CU_GRAPH_NODE_MEMCPY && xn.p.type != CU_GRAPH_NODE_MEMSET)
    return fail(CUDA_ERROR_INVALID_VALUE, "only kernel, memcpy and memset nodes can be enabled or disabled (node %p is "
                "a %s node)", (void *)node, type_name(xn.p.type));
  if (set >= 0) xn.enabled = set != 0;
  if (enabled) *enabled = xn.enabled;
  return CUDA_SUCCESS;
}

// ---- capture ------------------------------------------------------------------------------------------

int cucore_stream_begin_capture(cu_stream *stream, int mode, cu_graph *into, cu_graph_node *const *deps, size_t n_deps) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if (mode < MODE_GLOBAL || mode > MODE_RELAXED) return fail(CUDA_ERROR_INVALID_VALUE, "capture mode %d", mode);
  if (stream == nullptr || stream == CU_STREAM_LEGACY)
    return fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
                "the legacy default stream cannot be captured; capture a created stream or cudaStreamPerThread");
  if (stream == CU_STREAM_PER_THREAD && !s.per_thread) {
    int r = run(s, [&]() -> int {
      drv_stream *ds = nullptr;
      return resolve_stream(s, stream, &ds);
    });
    if (r != CUDA_SUCCESS) return r;
  }
  Stream *st = stream_object(s, stream);
  if (!st) return fail(CUDA_ERROR_INVALID_HANDLE, "stream %p is not a live stream", (void *)stream);
  if (st->capture) return fail(CUDA_ERROR_ILLEGAL_STATE, "stream %p is already capturing", (void *)stream);
  Graph *g = nullptr;
  std::vector<GraphNode *> d;
  if (into) {
    g = graph_of(s, into);
    if (!g || g->internal || g->parent) return bad_graph(into);
    if (int r = collect_deps(s, g, deps, n_deps, &d)) return r;
  } else {
    g = new_graph(s);
  }
  Capture c;
  c.id = s.next_capture++;
  c.graph = g->handle;
  c.own_graph = into == nullptr;
  c.origin = st->handle;
  c.mode = mode;
  c.thread = std::this_thread::get_id();
  s.captures[c.id] = c;
  st->capture = c.id;
  st->capture_deps = d;
  return CUDA_SUCCESS;
}

int cucore_stream_end_capture(cu_stream *stream, cu_graph **out) {
  Entry e;
  State &s = state();
  if (int r = e.device(s)) return r;
  if (!out) return fail(CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  *out = nullptr;
  Stream *st = stream_object(s, stream);
  if (!st && !is_default_stream(stream)) return fail(CUDA_ERROR_INVALID_HANDLE, "stream %p is not a live stream", (void *)stream);
  if (!st || !st->capture) return fail(CUDA_ERROR_ILLEGAL_STATE, "stream %p is not capturing", (void *)stream);
  Capture c = s.captures[st->capture];
  if (c.origin != st->handle)
    return fail(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED,
                "stream %p joined the capture begun in stream %p; end it there", (void *)stream, (void *)c.origin);
  if (c.mode != MODE_RELAXED && c.thread != std::this_thread::get_id())
    return fail(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD,
                "the %s capture of stream %p was begun by another thread (only relaxed captures may end elsewhere)",
                kModeNames[c.mode], (void *)stream);
  int result = CUDA_SUCCESS;
  std::string why = c.why;
  if (!c.invalidated) {
    // Every stream that joined must have rejoined the origin: its work must be among the origin's
    // dependencies' ancestors.
    std::set<GraphNode *> joined = ancestors(st->capture_deps);
    for (Stream *other : s.streams.all()) {
      if (other == st || other->capture != c.id) continue;
      for (GraphNode *n : other->capture_deps)
        if (!joined.count(n)) {
          result = fail(CUDA_ERROR_STREAM_CAPTURE_UNJOINED,
                        "stream %p forked from the capture of stream %p and was not joined back (record an event "
                        "in it and wait for that event in stream %p before ending the capture)",
                        (void *)other->handle, (void *)stream, (void *)stream);
          break;
        }
      if (result != CUDA_SUCCESS) break;
    }
  } else {
    result = fail(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "the capture of stream %p was invalidated: %s",
                  (void *)stream, why.c_str());
  }
  end_capture_streams(s, c.id);
  s.captures.erase(c.id);
  Graph *g = s.graphs.get(reinterpret_cast<cu_graph *>(c.graph));
  if (result != CUDA_SUCCESS) {
    if (g && c.own_graph) destroy_graph(s, g);
    return result;
  }
  if (!g) return fail(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "the graph captured into was destroyed");
  *out = reinterpret_cast<cu_graph *>(g->handle);
  return CUDA_SUCCESS;
}

int cucore_stream_capture_info(cu_stream *stream, int *status, unsigned long long *id, cu_graph **graph,
                               cu_graph_node *const **deps, size_t *n_deps) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  if (stream == nullptr || stream == CU_STREAM_LEGACY) {
    Stream *ignored = nullptr;
    if (int r = capture_route(s, stream, &ignored)) return r;  // the legacy stream during a blocking capture
  } else if (!stream_object(s, stream) && stream != CU_STREAM_PER_THREAD) {
    return fail(CUDA_ERROR_INVALID_HANDLE, "stream %p is not a live stream", (void *)stream);
  }
  Stream *st = stream_object(s, stream);
  Capture *c = st && st->capture ? capture_by_id(s, st->capture) : nullptr;
  if (status) *status = !c ? 0 : c->invalidated ? 2 : 1;
  if (!c || c->invalidated) return CUDA_SUCCESS;
  if (id) *id = c->id;
  if (graph) *graph = reinterpret_cast<cu_graph *>(c->graph);
  st->capture_deps_view.clear();
  for (GraphNode *n : st->capture_deps) st->capture_deps_view.push_back(reinterpret_cast<cu_graph_node *>(n->handle));
  if (deps) *deps = st->capture_deps_view.empty() ? nullptr : st->capture_deps_view.data();
  if (n_deps) *n_deps = st->capture_deps_view.size();
  return CUDA_SUCCESS;
}

int cucore_stream_update_capture_dependencies(cu_stream *stream, cu_graph_node *const *deps, size_t n, unsigned flags) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  if (flags > 1) return fail(CUDA_ERROR_INVALID_VALUE, "capture dependency flags 0x%x", flags);
  Stream *st = stream_object(s, stream);
  if (!st || !st->capture) return fail(CUDA_ERROR_ILLEGAL_STATE, "stream %p is not capturing", (void *)stream);
  Capture *c = capture_by_id(s, st->capture);
  if (c->invalidated)
    return fail(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "the capture was invalidated: %s", c->why.c_str());
  Graph *g = s.graphs.get(reinterpret_cast<cu_graph *>(c->graph));
  std::vector<GraphNode *> d;
  if (int r = collect_deps(s, g, deps, n, &d)) return r;
  if (flags == 1) st->capture_deps = d;
  else
    for (GraphNode *x : d)
      if (std::find(st->capture_deps.begin(), st->capture_deps.end(), x) == st->capture_deps.end())
        st->capture_deps.push_back(x);
  return CUDA_SUCCESS;
}

int cucore_thread_exchange_capture_mode(int *mode) {
  if (!mode) return fail(CUDA_ERROR_INVALID_VALUE, "the mode pointer is NULL");
  if (*mode < MODE_GLOBAL || *mode > MODE_RELAXED) return fail(CUDA_ERROR_INVALID_VALUE, "capture mode %d", *mode);
  int old = tl_capture_mode;
  tl_capture_mode = *mode;
  *mode = old;
  return CUDA_SUCCESS;
}

}  // extern "C"
