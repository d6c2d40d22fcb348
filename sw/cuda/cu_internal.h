// cu_internal.h — private state of the shared CUDA core (cu_core.h). Only sw/cuda/*.cc include it.
//
// One process-wide State, created on first use and never destroyed by static destructors (the
// platform is closed from an atexit handler registered after the platform opened, so it runs
// before SystemC's own statics go away). Every cucore_ entry point holds State::mu; the driver is
// called only inside run(), which executes on the host CPU stub's thread.
//
// Handles given to programs (streams, events, contexts, modules, functions, arrays) are not
// pointers but tagged serial numbers: a destroyed handle is never reused, so a stale one is
// always recognised (CUDA_ERROR_INVALID_HANDLE) instead of touching freed memory.
#ifndef SIMTVP_CU_INTERNAL_H
#define SIMTVP_CU_INTERNAL_H

#include <signal.h>

#include <cstdarg>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cu_core.h"

namespace cucore {

// ---- handles -----------------------------------------------------------------------------------

enum HandleTag : uintptr_t {
  TAG_CTX = 0xc7,
  TAG_STREAM = 0x57,
  TAG_EVENT = 0xe7,
  TAG_MODULE = 0x30,
  TAG_FUNCTION = 0xf7,
  TAG_ARRAY = 0xa7,
  TAG_GRAPH = 0x6a,
  TAG_GRAPH_NODE = 0x4e,
  TAG_GRAPH_EXEC = 0xe8,
};

template <class T, HandleTag Tag>
class HandleTable {
 public:
  uintptr_t add(std::unique_ptr<T> object) {
    uintptr_t h = (uintptr_t(Tag) << 40) | (next_++ << 4);
    object->handle = h;
    map_.emplace(h, std::move(object));
    return h;
  }
  T *get(const void *handle) const {
    auto it = map_.find(reinterpret_cast<uintptr_t>(handle));
    return it == map_.end() ? nullptr : it->second.get();
  }
  void remove(uintptr_t h) { map_.erase(h); }
  std::vector<T *> all() const {
    std::vector<T *> v;
    for (auto &kv : map_) v.push_back(kv.second.get());
    return v;
  }
  size_t size() const { return map_.size(); }

 private:
  std::map<uintptr_t, std::unique_ptr<T>> map_;  // ordered: deterministic iteration
  uintptr_t next_ = 1;
};

// ---- objects -----------------------------------------------------------------------------------

struct Ctx {
  uintptr_t handle = 0;
  bool primary = false;
  unsigned flags = 0;
};

struct GraphNode;

struct Stream {
  uintptr_t handle = 0;
  drv_stream *ds = nullptr;
  unsigned flags = 0;
  int priority = 0;
  Ctx *ctx = nullptr;
  // Stream capture (cu_graph.cc): the capture this stream takes part in (0: none) and the nodes
  // its next operation will depend on.
  uint64_t capture = 0;
  std::vector<GraphNode *> capture_deps;
  std::vector<cu_graph_node *> capture_deps_view;  // what cucore_stream_capture_info hands out
};

struct Event {
  uintptr_t handle = 0;
  drv_event *de = nullptr;
  unsigned flags = 0;
  bool recorded = false;
  Ctx *ctx = nullptr;
  // Last recorded in a capturing stream: the capture and the nodes the record stood for.
  uint64_t capture = 0;
  std::vector<GraphNode *> capture_nodes;
};

struct Function;

struct Module {
  uintptr_t handle = 0;
  drv_module *dm = nullptr;
  Ctx *ctx = nullptr;
  std::string name;
  std::map<std::string, uintptr_t> functions;  // name -> function handle
  std::vector<uint64_t> managed_vars;            // __managed__ variables adopted from this module
  // A library (cucore_library_load, no context) is placed at its first use, as CUDA's lazy
  // loading does: until then dm is NULL and its image waits here. A failed placement is kept
  // and reported on every later use.
  std::vector<uint8_t> pending_image;
  int load_error = CUDA_SUCCESS;
  std::string load_message;
};

struct Function {
  uintptr_t handle = 0;
  drv_function *df = nullptr;
  Module *mod = nullptr;
  std::string name;
  uint32_t max_dynamic_smem = 0;  // cudaFuncSetAttribute(MaxDynamicSharedMemorySize)
  bool max_dynamic_smem_set = false;
};

struct Array {
  uintptr_t handle = 0;
  cu_array_info info{};
  uint64_t alloc = 0;  // device allocation holding the texels
  Ctx *ctx = nullptr;
};

struct Allocation {  // a device allocation made through the core
  uint64_t bytes = 0;
  Ctx *ctx = nullptr;
  bool managed = false;
};

struct Pinned {
  uint64_t bytes = 0;
  uint64_t bus = 0;  // 0: staged host memory (the platform gives no host view of system memory)
  unsigned flags = 0;
  Ctx *ctx = nullptr;
  bool registered = false;  // cudaHostRegister: the program's own memory, never freed here
  bool mapped = false;      // its pages are mapped into the GPU (kernels reach it: zero-copy)
  uint64_t gpu = 0;         // registered and mapped: the GPU address of its first page (0: none)
};

// Pages of pinned memory mapped into the GPU (MAP_SYSMEM): runs the driver mapped, and how many
// pinned ranges use each page (two registrations may share a page).
struct SysmapRun {
  uint64_t bytes = 0, bus = 0;
  bool exposed = false;  // registered memory: the platform exposed it for this run
  uint64_t watch_lo = 0, watch_hi = 0;  // the pages the platform watches (cu_platform.watch)
  uint64_t host = 0;     // registered memory: the host address of its first page
};

struct Managed {
  uint64_t bytes = 0;
  bool device_owns = false;  // the device copy is current (after a launch, until a sync)
  bool module_var = false;
  unsigned flags = 0;
  bool on_demand = false;    // pages migrate on demand (sw/driver drv_um): device_owns is unused
};

struct Texture {
  func_tex_desc desc{};
  Ctx *ctx = nullptr;
};

// ---- graphs (cu_graph.cc) -------------------------------------------------------------------------

// A node's parameters, copied from what the program gave.
struct NodeParams {
  int type = CU_GRAPH_NODE_EMPTY;
  uintptr_t func = 0;  // kernel: function handle
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1}, smem = 0;
  std::vector<uint8_t> args;          // kernel: packed in the kernel's parameter layout
  std::vector<uint32_t> arg_offsets;  // kernel: where each parameter starts in args
  cu_copy_node_params copy{};
  cu_memset_node_params memset{};
  void (*host_fn)(void *) = nullptr;
  void *host_data = nullptr;
  uintptr_t event = 0;
  uintptr_t child = 0;  // graph node: the node's own copy of the child graph
};

struct Graph {
  uintptr_t handle = 0;
  std::vector<GraphNode *> nodes;          // creation order
  std::map<uintptr_t, uintptr_t> clone_of;  // a clone: node of the graph cloned -> node of this one
  GraphNode *parent = nullptr;              // a child graph: the node that owns it
  bool internal = false;                    // an executable graph's snapshot
};

struct GraphNode {
  uintptr_t handle = 0;
  Graph *graph = nullptr;
  NodeParams p;
  std::vector<GraphNode *> deps, dependents;
  std::vector<void *> arg_ptrs;  // kernel: pointers into p.args, for reading the node back
};

// A copy node with pageable host memory moves it through system memory in stream order: a host
// callback (on the host CPU stub) copies between the program's memory and the staging buffer.
struct HostCopy {
  const drv_bus *bus = nullptr;
  uint64_t staging = 0;  // bus address, slices of width x height packed
  cu_copy_node_params copy{};
  int direction = 0;     // 1: host source -> staging, 2: staging -> host destination, 3: host -> host
};

struct ExecNode {
  NodeParams p;
  uintptr_t origin = 0;       // the snapshot node it instantiates
  int lane = 0;
  std::vector<size_t> deps;   // all its dependencies (indices into GraphExec::nodes)
  std::vector<size_t> waits;  // those on other lanes: it waits for their done events
  drv_event *done = nullptr;  // recorded after it when a node of another lane waits for it
  uint64_t staging = 0, staging_bytes = 0;
  HostCopy in, out;           // the callbacks' closures (stable: ExecNodes are not moved)
  bool enabled = true;        // cudaGraphNodeSetEnabled
};

struct GraphExec {
  uintptr_t handle = 0;
  std::vector<std::unique_ptr<ExecNode>> nodes;  // topological order
  std::map<uintptr_t, size_t> index_of;         // snapshot node -> its instance (top level and children)
  std::vector<drv_stream *> lanes;               // lanes[0]: the launch stream (set per launch)
  drv_event *start = nullptr;                    // the launch stream's position, for the other lanes
  std::vector<drv_event *> lane_end;             // each other lane's end, for the launch stream
  unsigned long long flags = 0;
  uintptr_t snapshot = 0;                        // the graph as instantiated (a clone), for updates
  bool touches_memory = false;                   // any kernel, copy or memset node
  Ctx *ctx = nullptr;
};

struct Capture {
  uint64_t id = 0;
  uintptr_t graph = 0;
  bool own_graph = true;  // made by the capture: destroyed when the capture fails
  uintptr_t origin = 0;   // the stream that began it
  int mode = 0;           // CU_CAPTURE_MODE_*
  std::thread::id thread;
  bool invalidated = false;
  std::string why;
};

// ---- state -------------------------------------------------------------------------------------

enum { N_LIMITS = 8 };

struct State {
  std::mutex mu;
  cu_platform_open_fn opener = nullptr;
  bool platform_open = false;
  bool exiting = false;
  cu_platform plat{};
  int init_result = -1;  // -1: not tried
  std::string init_message;
  drv *d = nullptr;
  drv_device_props props{};
  int sticky = CUDA_SUCCESS;
  std::string sticky_message;
  bool sticky_reported = false;  // cucore_report said it once; later calls that return it are quiet
  Ctx *primary = nullptr;
  uint64_t primary_generation = 0;

  HandleTable<Ctx, TAG_CTX> ctxs;
  HandleTable<Stream, TAG_STREAM> streams;
  HandleTable<Event, TAG_EVENT> events;
  HandleTable<Module, TAG_MODULE> modules;
  HandleTable<Function, TAG_FUNCTION> functions;
  HandleTable<Array, TAG_ARRAY> arrays;
  std::map<uint64_t, Allocation> allocations;  // device address -> allocation
  std::map<uint64_t, Pinned> pinned;           // host address -> pinned allocation
  std::map<uint64_t, SysmapRun> sysmap_runs;   // GPU address (= host address) -> mapped run
  std::map<uint64_t, uint32_t> sysmap_pages;   // mapped page -> pinned ranges using it
  std::map<uint64_t, SysmapRun> registered_runs;  // GPU address in the registered window -> run
  int registered_window = -1;                  // the window is reserved: 1, refused: 0, not yet: -1
  std::map<uint64_t, Managed> managed;         // device (= host) address -> managed range
  std::map<uint64_t, uint32_t> managed_pages;  // host page -> users
  int um_on_demand = -1;                       // drv_um_on_demand, once asked (-1: not yet)
  bool um_handler = false;                     // the SIGSEGV handler of on-demand ranges is in
  struct sigaction um_old_segv {};             // the handler it replaced (chained to)
  std::map<uint64_t, Texture> textures;        // descriptor address -> texture/surface object
  std::vector<uint64_t> deferred_frees;        // descriptors freed once the device is idle
  HandleTable<Graph, TAG_GRAPH> graphs;
  HandleTable<GraphNode, TAG_GRAPH_NODE> graph_nodes;
  HandleTable<GraphExec, TAG_GRAPH_EXEC> graph_execs;
  std::map<uint64_t, Capture> captures;        // active (or invalidated, not yet ended) captures
  uint64_t next_capture = 1;
  Stream *per_thread = nullptr;                // cudaStreamPerThread (one host thread assumed)
  uint64_t limits[N_LIMITS] = {};
};

State &state();
// The program's address behind address a of the registered window (cu_memory.cc), or a itself.
uint64_t host_of_registered(const State &s, uint64_t a);
// This thread is inside a cucore_ call (or a stream callback it runs).
bool tl_inside_call();

// Thread-local message of the last failure; fail() sets it and returns the code.
int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int vfail(int code, const char *fmt, va_list ap);
void clear_message();

// Opens platform and driver on first use; returns the initialisation result.
int ensure_device(State &s);
// ensure_device, then the sticky error: what every call that touches the device checks first.
int ready(State &s);

// The guard every entry point takes: refuses calls from stream callbacks (they run on the host
// stub's thread while the caller holds the lock), then locks. An entry point that uses the device
// starts `Entry e; State &s = state(); if (int r = e.ready(s)) return r;` (e.device(s) where a
// sticky error must not stop it, as in destroy and query calls).
class Entry {
 public:
  Entry();
  ~Entry();
  bool ok() const { return ok_; }
  int refused() const { return CUDA_ERROR_NOT_PERMITTED; }
  // The refusal, else cucore::ready(s) / ensure_device(s): CUDA_SUCCESS when the call may go on.
  int ready(State &s) const { return ok_ ? cucore::ready(s) : refused(); }
  int device(State &s) const { return ok_ ? ensure_device(s) : refused(); }

 private:
  bool ok_ = false;
  bool was_inside_ = false;
  std::unique_lock<std::mutex> lock_;
};

// The guard of read-only queries (properties, handle validity, address classification): locks,
// except inside a call already holding the lock on this logical thread (a stream callback), where
// the holder is waiting for the callback and nothing changes underneath.
class Peek {
 public:
  Peek();

 private:
  std::unique_lock<std::mutex> lock_;
};

// Runs f() -> int on the host stub's thread; a platform failure becomes a sticky error.
int run_raw(State &s, void (*fn)(void *), void *arg);
template <class F>
int run(State &s, F &&f) {
  struct Box {
    F *f;
    int result;
  } box{&f, CUDA_ERROR_UNKNOWN};
  int st = run_raw(
      s, [](void *p) {
        Box *b = static_cast<Box *>(p);
        b->result = (*b->f)();
      },
      &box);
  return st != CUDA_SUCCESS ? st : box.result;
}

// A diag for one driver call, cleared.
inline simtvp_diag cleared_diag() {
  simtvp_diag d;
  simtvp_diag_clear(&d);
  return d;
}

// Maps a driver status to a CUresult; a failure that the device reported becomes sticky.
// Call on the stub thread right after the failing driver call, with its diag.
int drv_fail(State &s, simtvp_status st, const simtvp_diag &diag);

// The context a call names, or the primary context (created on first use) for NULL or a handle
// that is not a live context.
Ctx *ctx_or_primary(State &s, cu_ctx *ctx);
Ctx *primary_ctx(State &s);

// NULL, the legacy and the per-thread default stream.
inline bool is_default_stream(const cu_stream *handle) {
  return handle == nullptr || handle == CU_STREAM_LEGACY || handle == CU_STREAM_PER_THREAD;
}
// Stream resolution (NULL / legacy / per-thread / live handle) on the stub thread.
int resolve_stream(State &s, cu_stream *handle, drv_stream **out);
Stream *find_stream(State &s, cu_stream *handle);

// Managed memory reconciliation (cu_memory.cc).
// before launches: host mirror -> device; on-demand ranges move only with copies (graph copy
// nodes read device memory: their pages are prefetched to the GPU)
int managed_to_device(State &s, drv_stream *ds, bool copies = false);
int managed_to_host(State &s);                     // after a synchronisation with the device idle
void um_setup_locked(State &s);                    // (inside run) asks once whether pages migrate on demand
int managed_module_vars(State &s, Module *m);      // after a module load: its on-demand __managed__ variables
bool device_idle(State &s);                        // every stream drained (stub thread)
void flush_deferred_frees(State &s);               // stub thread, device idle
void unmap_managed_pages(State &s, uint64_t first, uint64_t last);  // page range [first, last)

// Kernel launches (cu_module.cc): the configuration checks of a launch, and the kernel's parameter
// buffer from CUDA-style args or a packed buffer (offsets: where each parameter starts).
int check_kernel_launch(State &s, Function *f, const uint32_t grid[3], const uint32_t block[3], uint32_t smem);
int pack_kernel_args(State &s, Function *f, void **args, const void *buffer, size_t bytes,
                     std::vector<uint8_t> *out, std::vector<uint32_t> *offsets);

// Stream capture (cu_graph.cc). For an operation on stream `handle`: CUDA_SUCCESS with *capturing
// = the stream when it captures (the operation becomes a node: capture_add), nullptr when the
// operation runs as usual; or the capture error (an operation on the legacy stream while a
// blocking stream captures, an invalidated capture).
int capture_route(State &s, cu_stream *handle, Stream **capturing);
// Adds a node for an operation of a capturing stream after its dependencies.
int capture_add(State &s, Stream *st, NodeParams &&p);
// An operation a capture does not allow on that stream (synchronisation, a stream callback):
// invalidates the capture and fails with CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED naming `what`.
int capture_unsupported(State &s, Stream *st, const char *what);
// "Potentially unsafe" calls (allocation, device synchronisation …) are refused while a capture
// this thread must respect is active (CUDA's capture modes), invalidating it.
int capture_guard(State &s, const char *what);
// Record / wait of events in capturing streams.
int capture_event_record(State &s, Stream *st, Event *ev, unsigned flags);
int capture_wait_event(State &s, cu_stream *handle, Stream *st, Event *ev, unsigned flags, bool *handled);
// CUDA_ERROR_CAPTURED_EVENT for an event last recorded in a capture.
int check_not_captured(State &s, Event *ev, const char *what);
// The stream object behind a handle (the per-thread stream once made), nullptr for the legacy stream.
Stream *stream_object(State &s, cu_stream *handle);
// Forgets the graphs' and captures' references to a stream or event that goes away.
void capture_forget_stream(State &s, Stream *st);
// Destroys the executable graphs of a context (stub thread; resource teardown).
void destroy_ctx_graph_execs(State &s, Ctx *ctx);

// Resource teardown of one context (cu_core.cc): streams, events, modules, arrays, memory.
void destroy_ctx_resources(State &s, Ctx *ctx);
int module_unload_locked(State &s, Module *m);

}  // namespace cucore

#endif  // SIMTVP_CU_INTERNAL_H
