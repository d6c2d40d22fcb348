/* cu_core — the part of the CUDA driver that libcuda.so.1 (driver API) and libcudart.so.13
 * (runtime API) share: one device, its contexts, memory, modules, streams, events, arrays and
 * texture objects, all on one sw/driver instance running on the simtvp platform
 * (platform/host/simtvp_host.h). docs/cudart.md explains the design.
 *
 * The core lives in libcuda.so.1 and is exported from it under the private prefix `cucore_`;
 * libcudart.so.13 links libcuda.so.1 and calls it, so a process that uses both APIs has one
 * driver, one platform and one set of handles (a CUstream is a cudaStream_t, a CUfunction is a
 * cudaFunction_t, a CUdeviceptr is a device pointer).
 *
 * Threading: every cucore_ function takes the core's lock; the driver work inside it runs on the
 * host CPU stub's SystemC thread through simtvp_host_call (cu_platform.call). A call made from a
 * stream callback (cudaLaunchHostFunc), which runs on that thread, is refused with
 * CUDA_ERROR_NOT_PERMITTED instead of deadlocking.
 *
 * Errors: functions return CUresult values (cu_result.h). The message that explains a failure
 * (naming the address, size, handle or limit) is kept per thread: cucore_last_message(). The API
 * layers print it with the API function's name. */
#ifndef SIMTVP_CU_CORE_H
#define SIMTVP_CU_CORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cu_result.h"
#include "driver.h"
#include "func_tex.h"
#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUCORE_API __attribute__((visibility("default")))

/* ---- the platform below the driver ----------------------------------------------------------- */

/* What the core needs from the simulated platform. The default opener builds simtvp's SystemC
 * platform (simtvp_host_open); tests install another (a C harness) before the first call. */
typedef struct cu_platform {
  void *ctx;
  const drv_bus *bus;
  drv *driver; /* the platform's one driver (never open a second one on the same GPU) */
  /* Runs fn(arg) where driver calls are allowed (the host CPU stub's thread) and advances
   * simulated time until it returns. */
  simtvp_status (*call)(void *ctx, void (*fn)(void *arg), void *arg, simtvp_diag *diag);
  /* Host view of pinned system memory at a bus address (NULL member or NULL result: none; pinned
   * allocations then live in host memory and copies stage them). */
  void *(*sysmem_ptr)(void *ctx, uint64_t bus_addr, uint64_t bytes);
  /* The program's own memory [p, p + bytes) made reachable by the GPU's DMA (registered host
   * memory the GPU maps): its bus address; unexpose undoes one expose. NULL members: registered
   * memory cannot be mapped into kernels. */
  bool (*expose)(void *ctx, const void *p, uint64_t bytes, uint64_t *bus_addr);
  void (*unexpose)(void *ctx, const void *p, uint64_t bytes);
  uint64_t (*time_ps)(void *ctx); /* simulated time; may be NULL */
  /* The last kernel fault's full report (kernel, CTA, thread, PC, PTX line); may be NULL. */
  bool (*last_fault)(void *ctx, simtvp_diag *out);
  void (*close)(void *ctx);       /* releases the platform (prints the run summary); may be NULL */
  const char *name;               /* for messages */
  /* (addition) Host memory [p, p + bytes) at bus address bus_addr is mapped into the GPU: the
   * platform may time the program's own accesses to it (simtvp_host_watch); unwatch undoes one.
   * NULL members: none. */
  bool (*watch)(void *ctx, const void *p, uint64_t bytes, uint64_t bus_addr);
  void (*unwatch)(void *ctx, const void *p, uint64_t bytes);
  /* (addition) The platform's one SIGSEGV owner hands faults on the whole pages of [p, p + bytes)
   * to fn (simtvp_host_fault_add: true = dealt with, the access runs again; false = pass it on to
   * the handler that was there before); counted per page, fault_remove undoes one. false: not
   * added (then install a handler of your own). NULL members: no such owner. */
  bool (*fault_add)(void *ctx, const void *p, uint64_t bytes, bool (*fn)(void *fctx, uint64_t addr, bool write),
                    void *fctx);
  void (*fault_remove)(void *ctx, const void *p, uint64_t bytes);
} cu_platform;

typedef simtvp_status (*cu_platform_open_fn)(cu_platform *out, simtvp_diag *diag);

/* Replaces the platform opener (before the core opened one; later calls return false). */
CUCORE_API bool cucore_set_platform_opener(cu_platform_open_fn open);

/* ---- results and messages ---------------------------------------------------------------------- */

/* The message of the last failing cucore_ call on this thread ("" when none). */
CUCORE_API const char *cucore_last_message(void);
/* Sets this thread's message (used by the API layers for their own argument checks); returns
 * code. */
CUCORE_API int cucore_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "simtvp: <api>: <message> (<code name>)" on stderr unless SIMTVP_CUDA_QUIET is set. */
CUCORE_API void cucore_report(const char *api, const char *code_name);
/* Prints "simtvp: <api> is not supported by simtvp" once per name. */
CUCORE_API void cucore_report_unsupported(const char *api);

/* ---- device and contexts ----------------------------------------------------------------------- */

typedef struct cu_ctx cu_ctx;

/* Opens the platform and the driver (first call), returns the sticky initialisation result. */
CUCORE_API int cucore_init(void);
/* The device's properties (NULL before a successful cucore_init). */
CUCORE_API const drv_device_props *cucore_props(void);
/* Value of a device attribute (CUdevice_attribute / cudaDeviceAttr numbering, which agree). */
CUCORE_API int cucore_device_attribute(int attribute, int *value);
/* The sticky error of the device (a kernel fault …), CUDA_SUCCESS when none. */
CUCORE_API int cucore_sticky_error(void);
/* Simulated time of the platform, picoseconds (0 when not opened). */
CUCORE_API uint64_t cucore_time_ps(void);

/* The primary context (created on first use; cudart's implicit context). */
CUCORE_API int cucore_primary_ctx(cu_ctx **out);
/* The primary context if it was created (by the runtime or cuDevicePrimaryCtxRetain), else NULL. */
CUCORE_API cu_ctx *cucore_primary_peek(void);
/* Destroys every resource of the primary context, clears the sticky error and the driver's error
 * state (cudaDeviceReset). Handles of the old resources become invalid. */
CUCORE_API int cucore_primary_reset(void);
/* Increments on every cucore_primary_reset: cudart reloads its modules when it changed. */
CUCORE_API uint64_t cucore_primary_generation(void);
CUCORE_API int cucore_ctx_create(unsigned flags, cu_ctx **out);
CUCORE_API int cucore_ctx_destroy(cu_ctx *ctx);
CUCORE_API bool cucore_ctx_valid(const cu_ctx *ctx);
/* Waits for all work of the device (cudaDeviceSynchronize / cuCtxSynchronize). */
CUCORE_API int cucore_synchronize(void);
CUCORE_API int cucore_mem_info(uint64_t *free_bytes, uint64_t *total_bytes);

/* ---- memory ----------------------------------------------------------------------------------- */

typedef enum cu_mem_type {
  CU_MEM_PAGEABLE = 0, /* ordinary host memory (or unknown) */
  CU_MEM_PINNED = 1,   /* cucore_host_alloc: system memory the GPU reaches by DMA */
  CU_MEM_DEVICE = 2,   /* a device allocation or module variable */
  CU_MEM_MANAGED = 3   /* cucore_managed_alloc: device memory mirrored at the same host address */
} cu_mem_type;

/* What an address is. For device/managed: base and size of the allocation; for pinned: the host
 * base, size and bus address of the allocation. */
typedef struct cu_mem_info {
  cu_mem_type type;
  uint64_t base, size;
  uint64_t bus;      /* pinned: bus address of base (0 when staged in host memory) */
  unsigned flags;    /* pinned: cudaHostAlloc flags; managed: attach flags */
  uint64_t device;   /* pinned and mapped: the device address of base (0 when not mapped) */
} cu_mem_info;

CUCORE_API void cucore_mem_classify(uint64_t addr, cu_mem_info *info);

CUCORE_API int cucore_mem_alloc(cu_ctx *ctx, uint64_t bytes, uint64_t *dptr);
/* Frees a device or managed allocation; 0 is a no-op; anything else is CUDA_ERROR_INVALID_VALUE. */
CUCORE_API int cucore_mem_free(uint64_t dptr);
/* Pinned (page-locked, DMA-able) host memory in the platform's system memory. */
CUCORE_API int cucore_host_alloc(cu_ctx *ctx, uint64_t bytes, unsigned flags, void **out);
CUCORE_API int cucore_host_free(void *p);
/* cudaHostRegister: records [p, +bytes) as page-locked host memory (copies from it are staged like
 * pageable memory; the range is reported as pinned). Overlapping an existing range is
 * CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED; unregistering an unknown address
 * CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED. */
CUCORE_API int cucore_host_register(void *p, uint64_t bytes, unsigned flags);
CUCORE_API int cucore_host_unregister(void *p);
/* The device address kernels use for pinned memory at host address p (the same address: unified
 * addressing; registered memory's lies in a window of its own, cu_memory.cc), mapping the allocation into the GPU (MAP_SYSMEM) if it is not yet. Pinned memory
 * allocated with the Mapped flag (cudaHostAllocMapped, CU_MEMHOSTALLOC_DEVICEMAP) or registered
 * with it (cudaHostRegisterMapped) is mapped at once. CUDA_ERROR_INVALID_VALUE when p is not
 * pinned memory; CUDA_ERROR_NOT_SUPPORTED when the platform cannot let the GPU reach it. */
CUCORE_API int cucore_host_device_pointer(void *p, uint64_t *dptr);
/* Managed memory: a device allocation whose host mirror sits at the same address; the mirror and
 * the device copy are reconciled at launches and synchronisations (docs/cudart.md). */
CUCORE_API int cucore_managed_alloc(cu_ctx *ctx, uint64_t bytes, unsigned flags, uint64_t *dptr);
/* Gives a variable of module m a managed host mirror at its own address (__managed__ variables);
 * the mirror goes away when the module is unloaded. */
struct cu_module;
CUCORE_API int cucore_managed_adopt(struct cu_module *m, uint64_t dptr, uint64_t bytes);
/* On-demand managed memory (GPUs with replayable faults, docs/vm.md "Unified memory"): moves
 * [dptr, dptr + bytes) to the device (copies queued on the stream) or to the host; advice is a
 * drv_um_advice (= cudaMemoryAdvise numbering); range info for cudaMemRangeGetAttribute(s).
 * CUDA_ERROR_INVALID_VALUE naming the address when the range is not inside one managed
 * allocation; on launch-and-sync managed memory they are accepted and change nothing. */
CUCORE_API int cucore_mem_prefetch(uint64_t dptr, uint64_t bytes, bool to_device, struct cu_stream *stream);
CUCORE_API int cucore_mem_advise(uint64_t dptr, uint64_t bytes, int advice);
CUCORE_API int cucore_mem_range_info(uint64_t dptr, uint64_t bytes, drv_um_range_info_t *out);
/* The driver's unified-memory counters (tests, tools). */
CUCORE_API int cucore_um_stats(drv_um_stats *out);

typedef struct cu_stream cu_stream;

/* Stream handle values with special meaning (cudaStreamLegacy, cudaStreamPerThread). */
#define CU_STREAM_LEGACY ((cu_stream *)0x1)
#define CU_STREAM_PER_THREAD ((cu_stream *)0x2)

/* One side of a copy: an address as classified by cucore_mem_classify, or forced. */
typedef struct cu_copy_side {
  uint64_t addr;
  cu_mem_type type;
} cu_copy_side;

/* Copies bytes between any two sides (pageable host, pinned, device, managed) in stream order;
 * sync waits for completion (and always for pageable destinations, as CUDA does). stream NULL =
 * the legacy default stream; CU_STREAM_PER_THREAD is accepted. */
CUCORE_API int cucore_memcpy(cu_copy_side dst, cu_copy_side src, uint64_t bytes, cu_stream *stream,
                             bool sync);
/* 2-D: height rows of width bytes, rows pitch bytes apart on each side. */
CUCORE_API int cucore_memcpy_2d(cu_copy_side dst, uint64_t dpitch, cu_copy_side src,
                                uint64_t spitch, uint64_t width, uint64_t height,
                                cu_stream *stream, bool sync);
/* Fills count elements of elem_bytes (1, 2, 4) of device or managed memory. */
CUCORE_API int cucore_memset(uint64_t dptr, uint32_t value, uint32_t elem_bytes, uint64_t count,
                             cu_stream *stream, bool sync);
CUCORE_API int cucore_memset_2d(uint64_t dptr, uint64_t pitch, uint32_t value, uint32_t elem_bytes,
                                uint64_t width_elems, uint64_t height, cu_stream *stream, bool sync);

/* ---- streams, events, callbacks ----------------------------------------------------------------- */

typedef struct cu_event cu_event;

/* flags: 1 = non-blocking (does not synchronise with the legacy default stream). */
CUCORE_API int cucore_stream_create(cu_ctx *ctx, unsigned flags, int priority, cu_stream **out);
CUCORE_API int cucore_stream_destroy(cu_stream *s);
/* CUDA_ERROR_INVALID_HANDLE unless s is NULL, a special value or a live stream. */
CUCORE_API int cucore_stream_check(cu_stream *s);
CUCORE_API int cucore_stream_sync(cu_stream *s);
/* CUDA_SUCCESS when idle, CUDA_ERROR_NOT_READY when work is pending. */
CUCORE_API int cucore_stream_query(cu_stream *s);
CUCORE_API int cucore_stream_flags(cu_stream *s, unsigned *flags);
CUCORE_API int cucore_stream_priority(cu_stream *s, int *priority);
CUCORE_API int cucore_stream_wait_event(cu_stream *s, cu_event *ev);
/* fn(data) runs on the host once the stream's earlier work completed; later work waits for it.
 * It runs inside a later synchronising or querying call (docs/cudart.md). */
CUCORE_API int cucore_stream_callback(cu_stream *s, void (*fn)(void *data), void *data);
/* The same for cudaStreamAddCallback / cuStreamAddCallback, which a stream capture refuses
 * (CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED; cudaLaunchHostFunc is captured as a host node). */
CUCORE_API int cucore_stream_add_callback(cu_stream *s, void (*fn)(void *data), void *data);

/* flags: 2 = disable timing (cudaEventDisableTiming / CU_EVENT_DISABLE_TIMING). */
CUCORE_API int cucore_event_create(cu_ctx *ctx, unsigned flags, cu_event **out);
CUCORE_API int cucore_event_destroy(cu_event *ev);
CUCORE_API int cucore_event_record(cu_event *ev, cu_stream *s);
CUCORE_API int cucore_event_query(cu_event *ev);
CUCORE_API int cucore_event_sync(cu_event *ev);
/* Milliseconds of simulated GPU time between two completed events. */
CUCORE_API int cucore_event_elapsed(float *ms, cu_event *start, cu_event *end);

/* ---- modules, functions, launches -------------------------------------------------------------- */

typedef struct cu_module cu_module;
typedef struct cu_function cu_function;

/* Loads PTX text (len bytes, need not be NUL-terminated). name appears in messages. */
CUCORE_API int cucore_module_load_ptx(cu_ctx *ctx, const char *ptx, size_t len, const char *name,
                                      cu_module **out);
/* Loads what cuModuleLoadData accepts: PTX text, a fatbin container or a fatbin wrapper (the PTX
 * that suits the device is picked); a cubin (SASS only) is refused with a message. size 0: the
 * size is found from the image (NUL-terminated text, container headers). */
CUCORE_API int cucore_module_load_image(cu_ctx *ctx, const void *image, size_t size,
                                        const char *name, cu_module **out);
CUCORE_API int cucore_module_load_file(cu_ctx *ctx, const char *path, cu_module **out);
/* A library (cuLibraryLoadData / cuLibraryLoadFromFile): the image (as cucore_module_load_image
 * takes it; path non-NULL loads a file instead) loaded into no context. It lives until
 * cucore_module_unload, across context destruction and primary-context resets, like CUDA's
 * context-independent libraries; its functions are the library's kernels (CUkernel). */
CUCORE_API int cucore_library_load(const void *image, size_t size, const char *path, const char *name,
                                   cu_module **out);
CUCORE_API bool cucore_module_is_library(const cu_module *m);
/* The module's kernels (.entry names, valid while it is loaded): up to capacity into names
 * (may be NULL), *count = all of them. */
CUCORE_API int cucore_module_kernels(cu_module *m, const char **names, uint32_t capacity, uint32_t *count);
CUCORE_API int cucore_module_unload(cu_module *m);
CUCORE_API bool cucore_module_valid(const cu_module *m);
/* CUDA_ERROR_NOT_FOUND when the module has no .entry of that name. */
CUCORE_API int cucore_module_function(cu_module *m, const char *name, cu_function **out);
CUCORE_API int cucore_module_global(cu_module *m, const char *name, uint64_t *dptr,
                                    uint64_t *bytes);

CUCORE_API bool cucore_function_valid(const cu_function *f);
CUCORE_API const char *cucore_function_name(const cu_function *f);
CUCORE_API cu_module *cucore_function_module(const cu_function *f);
/* Attributes as the driver computes them (registers, shared/local/const sizes, limits). */
CUCORE_API int cucore_function_attrs(cu_function *f, drv_function_attrs *attrs,
                                     uint32_t *max_dynamic_smem);
CUCORE_API int cucore_function_set_max_dynamic_smem(cu_function *f, uint32_t bytes);
CUCORE_API int cucore_function_param_count(cu_function *f, uint32_t *count);
/* Offset and size of parameter i in the kernel's parameter buffer; CUDA_ERROR_INVALID_VALUE when
 * i is not a parameter. */
CUCORE_API int cucore_function_param(cu_function *f, uint32_t i, uint32_t *offset, uint32_t *bytes);
CUCORE_API int cucore_occupancy(cu_function *f, uint32_t block_threads, uint32_t dynamic_smem,
                                uint32_t *blocks_per_sm);

/* Launches f. Parameters either as CUDA's void **args (args[i] points at parameter i) or as a
 * packed buffer (param_buffer of param_bytes, cuLaunchKernel's CU_LAUNCH_PARAM_BUFFER_POINTER).
 * Checks the configuration against the device's limits first (CUDA_ERROR_INVALID_VALUE naming the
 * limit; the runtime maps it to cudaErrorInvalidConfiguration). */
CUCORE_API int cucore_launch(cu_function *f, const uint32_t grid[3], const uint32_t block[3],
                             uint32_t dynamic_smem, cu_stream *stream, void **args,
                             const void *param_buffer, size_t param_bytes);
/* (addition) The same with thread block cluster dimensions (0,0,0: the kernel's own or none;
 * drv_launch_cluster's rules, CUDA_ERROR_INVALID_CLUSTER_SIZE when they are broken). */
CUCORE_API int cucore_launch_cluster(cu_function *f, const uint32_t grid[3], const uint32_t block[3],
                                     const uint32_t cluster[3], uint32_t dynamic_smem, cu_stream *stream,
                                     void **args, const void *param_buffer, size_t param_bytes);
/* (addition) The kernel's compiled cluster dimensions (.reqnctapercluster; 0,0,0 when none): 1 when
 * it must run in clusters (those dimensions or .explicitcluster), 0 otherwise (or a bad handle). */
CUCORE_API int cucore_function_cluster_dims(cu_function *f, uint32_t dims[3]);
/* (addition) cudaFuncAttributeNonPortableClusterSizeAllowed. */
CUCORE_API int cucore_function_allow_nonportable_cluster(cu_function *f, bool allow);
/* (addition) cuTensorMapEncodeTiled into a 128-byte, 64-byte aligned CUtensorMap (func_tensormap.h). */
CUCORE_API int cucore_tensor_map_encode_tiled(void *tensor_map, uint32_t data_type, uint32_t rank, uint64_t global_address,
                                              const uint64_t *global_dim, const uint64_t *global_strides,
                                              const uint32_t *box_dim, const uint32_t *element_strides,
                                              uint32_t interleave, uint32_t swizzle, uint32_t l2_promotion,
                                              uint32_t oob_fill);

/* ---- arrays, texture and surface objects ------------------------------------------------------- */

typedef struct cu_array cu_array;

/* An array's shape and texel format; memory is pitch-linear (func_tex.h). */
typedef struct cu_array_desc {
  uint32_t width, height, depth; /* texels; height/depth 0 = 1-D/2-D */
  uint32_t layers;               /* layered / cubemap: number of layers (6 per cube); 0 = none */
  uint8_t channels;              /* 1, 2 or 4 */
  uint8_t channel_type;          /* ptx_type of a channel (func_tex_desc.channel_type) */
  uint8_t channel_bytes;
  uint8_t cube;                  /* cubemap (layers = 6 × n) */
  unsigned flags;                /* cudaArray* flags as given */
} cu_array_desc;

typedef struct cu_array_info {
  cu_array_desc desc;
  uint64_t data;        /* device address of texel (0,0,0) of layer 0 */
  uint64_t pitch, slice_pitch, layer_pitch;
  uint32_t texel_bytes;
} cu_array_info;

CUCORE_API int cucore_array_create(cu_ctx *ctx, const cu_array_desc *desc, cu_array **out);
CUCORE_API int cucore_array_destroy(cu_array *a);
CUCORE_API int cucore_array_info(const cu_array *a, cu_array_info *info);
/* The array resource fields of a texture/surface descriptor (resource, dims, layered/cube, format,
 * extents, data and pitches) from an array's info: what both APIs' resource descriptions of an
 * array mean. */
CUCORE_API void cucore_tex_array_resource(const cu_array_info *info, func_tex_desc *t);

/* Writes desc to device memory (kept until destroyed) and returns its address, the handle kernels
 * use (func_tex.h). Destruction is deferred until the device is idle. */
CUCORE_API int cucore_tex_create(cu_ctx *ctx, const func_tex_desc *desc, uint64_t *handle);
CUCORE_API int cucore_tex_destroy(uint64_t handle);
CUCORE_API int cucore_tex_get(uint64_t handle, func_tex_desc *desc);

/* ---- CUDA graphs and stream capture (cu_graph.cc) -------------------------------------------------
 * One graph model for both APIs (a cudaGraph_t is a CUgraph). A graph is nodes with dependencies; an
 * executable graph (cucore_graph_instantiate) is a snapshot in topological order whose launch queues
 * every node's operation on driver streams — the launch stream and, for independent branches, the
 * executable graph's own streams joined by events — exactly as stream work is queued (command-ring
 * packets). A capturing stream records the operations it is given as nodes instead of running them.
 * docs/cudart.md "CUDA graphs". */

typedef struct cu_graph cu_graph;
typedef struct cu_graph_node cu_graph_node;
typedef struct cu_graph_exec cu_graph_exec;

/* Node types in CUDA's numbering (cudaGraphNodeType / CUgraphNodeType). */
enum {
  CU_GRAPH_NODE_KERNEL = 0,
  CU_GRAPH_NODE_MEMCPY = 1,
  CU_GRAPH_NODE_MEMSET = 2,
  CU_GRAPH_NODE_HOST = 3,
  CU_GRAPH_NODE_GRAPH = 4,
  CU_GRAPH_NODE_EMPTY = 5,
  CU_GRAPH_NODE_WAIT_EVENT = 6,
  CU_GRAPH_NODE_EVENT_RECORD = 7
};

/* One side of a copy node: memory (addr of row 0 of slice 0, what it is as classified or forced,
 * row pitch, rows per slice) or an array; plus the offset of the copied region. */
typedef struct cu_copy_node_side {
  cu_array *array;          /* non-NULL: an array side (addr, type, pitch, height unused) */
  uint64_t addr;
  cu_mem_type type;
  uint64_t pitch, height;   /* bytes per row, rows per slice (0: the copy's width / height) */
  uint64_t x_bytes, y, z;   /* offset of the region */
} cu_copy_node_side;

typedef struct cu_copy_node_params {
  cu_copy_node_side src, dst;
  uint64_t width_bytes, height, depth;
  int api_kind; /* kept for the API layer (the runtime's cudaMemcpyKind), unused by the core */
} cu_copy_node_params;

typedef struct cu_memset_node_params {
  uint64_t dst, pitch;
  uint32_t value, elem_bytes;  /* 1, 2 or 4 */
  uint64_t width, height;      /* elements per row, rows */
} cu_memset_node_params;

/* Kernel arguments as a launch takes them (args[i] -> parameter i, or a packed buffer); the node
 * keeps a copy. Reading a node back gives args pointing into that copy. */
typedef struct cu_kernel_node_params {
  cu_function *func;
  uint32_t grid[3], block[3], smem;
  void **args;
  const void *param_buffer;
  size_t param_bytes;
} cu_kernel_node_params;

typedef struct cu_graph_node_params {
  int type; /* CU_GRAPH_NODE_* */
  cu_kernel_node_params kernel;
  cu_copy_node_params copy;
  cu_memset_node_params memset;
  void (*host_fn)(void *data);
  void *host_data;
  cu_graph *child;   /* CU_GRAPH_NODE_GRAPH: copied into the node (cucore_graph_child gives the copy) */
  cu_event *event;   /* WAIT_EVENT, EVENT_RECORD */
} cu_graph_node_params;

CUCORE_API int cucore_graph_create(cu_graph **out);
CUCORE_API int cucore_graph_destroy(cu_graph *g);
CUCORE_API int cucore_graph_clone(cu_graph *g, cu_graph **out);
CUCORE_API bool cucore_graph_valid(const cu_graph *g);
/* Adds a node after the given dependencies (nodes of g). Parameters are checked and copied. */
CUCORE_API int cucore_graph_add_node(cu_graph *g, cu_graph_node *const *deps, size_t n_deps,
                                     const cu_graph_node_params *params, cu_graph_node **out);
CUCORE_API int cucore_graph_node_params(cu_graph_node *n, cu_graph_node_params *out);
/* Replaces a node's parameters (same type). */
CUCORE_API int cucore_graph_node_set_params(cu_graph_node *n, const cu_graph_node_params *params);
CUCORE_API int cucore_graph_node_type(cu_graph_node *n, int *type);
CUCORE_API int cucore_graph_node_owner(cu_graph_node *n, cu_graph **g);
CUCORE_API int cucore_graph_destroy_node(cu_graph_node *n);
/* Lists (nodes NULL: count only; else up to *count entries, the rest NULL, *count = entries
 * written): nodes in creation order, root nodes, edges, a node's dependencies and dependents. */
CUCORE_API int cucore_graph_nodes(cu_graph *g, bool roots_only, cu_graph_node **nodes, size_t *count);
CUCORE_API int cucore_graph_edges(cu_graph *g, cu_graph_node **from, cu_graph_node **to, size_t *count);
CUCORE_API int cucore_graph_node_edges(cu_graph_node *n, bool dependents, cu_graph_node **nodes, size_t *count);
CUCORE_API int cucore_graph_add_dependencies(cu_graph *g, cu_graph_node *const *from, cu_graph_node *const *to,
                                             size_t n, bool remove);
/* The node of a clone that was made from node `original` of the graph cloned. */
CUCORE_API int cucore_graph_find_in_clone(cu_graph *clone, cu_graph_node *original, cu_graph_node **out);
/* Writes the graph in Graphviz DOT to path. */
CUCORE_API int cucore_graph_debug_dot(cu_graph *g, const char *path, unsigned flags);

CUCORE_API int cucore_graph_instantiate(cu_graph *g, unsigned long long flags, cu_graph_exec **out,
                                        cu_graph_node **error_node);
CUCORE_API int cucore_graph_exec_destroy(cu_graph_exec *x);
CUCORE_API int cucore_graph_exec_flags(cu_graph_exec *x, unsigned long long *flags);
CUCORE_API int cucore_graph_launch(cu_graph_exec *x, cu_stream *stream);
/* Checks that x could run in stream now (simtvp uploads nothing ahead). */
CUCORE_API int cucore_graph_upload(cu_graph_exec *x, cu_stream *stream);
/* cudaGraphExecUpdate: the parameters of g's nodes into x, paired in creation order; *result is a
 * cudaGraphExecUpdateResult and error_node / error_from name the offending node. */
CUCORE_API int cucore_graph_exec_update(cu_graph_exec *x, cu_graph *g, int *result, cu_graph_node **error_node,
                                        cu_graph_node **error_from);
/* New parameters for the instance of node n (of the graph x came from) in x. */
CUCORE_API int cucore_graph_exec_node_set_params(cu_graph_exec *x, cu_graph_node *n,
                                                 const cu_graph_node_params *params);

/* cudaGraphNodeSetEnabled / GetEnabled: enable (1) or disable (0) the instance of kernel, memcpy or
 * memset node n in x (a disabled node does nothing but still orders its dependents); set < 0 only
 * queries. */
CUCORE_API int cucore_graph_exec_node_enabled(cu_graph_exec *x, cu_graph_node *n, int set, unsigned *enabled);

/* Stream capture. Modes: CUDA's numbering (global 0, thread-local 1, relaxed 2). into != NULL:
 * capture into that graph after deps (cudaStreamBeginCaptureToGraph). */
CUCORE_API int cucore_stream_begin_capture(cu_stream *s, int mode, cu_graph *into, cu_graph_node *const *deps,
                                           size_t n_deps);
CUCORE_API int cucore_stream_end_capture(cu_stream *s, cu_graph **out);
/* status: 0 none, 1 active, 2 invalidated; the other results only while active (deps stays
 * valid until the next operation on s). */
CUCORE_API int cucore_stream_capture_info(cu_stream *s, int *status, unsigned long long *id, cu_graph **graph,
                                          cu_graph_node *const **deps, size_t *n_deps);
/* flags: 0 add, 1 set (cudaStreamAddCaptureDependencies / cudaStreamSetCaptureDependencies). */
CUCORE_API int cucore_stream_update_capture_dependencies(cu_stream *s, cu_graph_node *const *deps, size_t n,
                                                         unsigned flags);
CUCORE_API int cucore_thread_exchange_capture_mode(int *mode);
/* Event record / stream wait with CUDA's flags (cudaEventRecordExternal / cudaEventWaitExternal = 1:
 * inside a capture, an event node of the graph). */
CUCORE_API int cucore_event_record_flags(cu_event *ev, cu_stream *s, unsigned flags);
CUCORE_API int cucore_stream_wait_event_flags(cu_stream *s, cu_event *ev, unsigned flags);

/* ---- limits ----------------------------------------------------------------------------------- */

/* cudaLimit / CUlimit values (same numbering): stack size, printf FIFO, malloc heap … Recorded
 * and reported; which ones reach the GPU model is documented in docs/cudart.md. */
CUCORE_API int cucore_limit_set(int limit, uint64_t value);
CUCORE_API int cucore_limit_get(int limit, uint64_t *value);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_CU_CORE_H */
