// cudart_memory.cc — device, pinned and managed allocations; copies of every kind (with and
// without streams, 1-D, 2-D, 3-D, to and from symbols); memsets; pointer attributes
// (docs/cudart.md "Memory").
#include <cstring>

#include "cudart_internal.h"

using namespace rt;

namespace rt {

// One side of a copy as cudaMemcpyKind describes it, checked against what the address really is.
enum Want { WANT_HOST, WANT_DEVICE, WANT_ANY };

static const char *type_name(cu_mem_type t) {
  switch (t) {
    case CU_MEM_PAGEABLE: return "host memory";
    case CU_MEM_PINNED: return "pinned host memory";
    case CU_MEM_DEVICE: return "device memory";
    case CU_MEM_MANAGED: return "managed memory";
  }
  return "?";
}

static cudaError_t side(const char *api, const char *which, const void *p, Want want, cu_copy_side *out) {
  uint64_t a = reinterpret_cast<uint64_t>(p);
  if (!p) return fail(api, cudaErrorInvalidValue, "the %s pointer is NULL", which);
  cu_mem_info info;
  cucore_mem_classify(a, &info);
  bool device_like = info.type == CU_MEM_DEVICE || info.type == CU_MEM_MANAGED;
  if (want == WANT_DEVICE && !device_like)
    return fail(api, cudaErrorInvalidValue,
                "the %s %p is %s, but the copy kind says device memory (not a live cudaMalloc allocation?)", which, p,
                type_name(info.type));
  if (want == WANT_HOST && info.type == CU_MEM_DEVICE)
    return fail(api, cudaErrorInvalidValue, "the %s %p is device memory, but the copy kind says host memory", which, p);
  out->addr = a;
  out->type = info.type;
  return cudaSuccess;
}

cudaError_t copy_sides(const char *api, void *dst, const void *src, int kind, cu_copy_side *d, cu_copy_side *s) {
  Want wd, ws;
  switch (kind) {
    case cudaMemcpyHostToHost: wd = WANT_HOST, ws = WANT_HOST; break;
    case cudaMemcpyHostToDevice: wd = WANT_DEVICE, ws = WANT_HOST; break;
    case cudaMemcpyDeviceToHost: wd = WANT_HOST, ws = WANT_DEVICE; break;
    case cudaMemcpyDeviceToDevice: wd = WANT_DEVICE, ws = WANT_DEVICE; break;
    case cudaMemcpyDefault: wd = WANT_ANY, ws = WANT_ANY; break;
    default:
      return fail(api, cudaErrorInvalidMemcpyDirection, "copy kind %d is not a cudaMemcpyKind", kind);
  }
  cudaError_t e = side(api, "destination", dst, wd, d);
  if (e == cudaSuccess) e = side(api, "source", src, ws, s);
  return e;
}

static cudaError_t memcpy_1d(const char *api, void *dst, const void *src, size_t count, int kind, cu_stream *stream,
                             bool sync) {
  if (count == 0) {
    if (kind < 0 || kind > 4) return fail(api, cudaErrorInvalidMemcpyDirection, "copy kind %d", kind);
    return cudaSuccess;
  }
  cu_copy_side d, s;
  cudaError_t e = copy_sides(api, dst, src, kind, &d, &s);
  if (e != cudaSuccess) return e;
  return ret_cu(api, cucore_memcpy(d, s, count, stream, sync));
}

static cudaError_t memcpy_2d(const char *api, void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                             size_t height, int kind, cu_stream *stream, bool sync) {
  if (width == 0 || height == 0) return cudaSuccess;
  if (width > dpitch || width > spitch)
    return fail(api, cudaErrorInvalidPitchValue, "width %zu exceeds a pitch (destination %zu, source %zu)", width, dpitch,
                spitch);
  cu_copy_side d, s;
  cudaError_t e = copy_sides(api, dst, src, kind, &d, &s);
  if (e != cudaSuccess) return e;
  return ret_cu(api, cucore_memcpy_2d(d, dpitch, s, spitch, width, height, stream, sync));
}

static cudaError_t to_symbol(const char *api, const void *symbol, const void *src, size_t count, size_t offset,
                             int kind, cu_stream *stream, bool sync) {
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return fail(api, cudaErrorInvalidMemcpyDirection, "copy kind %d into a symbol", kind);
  uint64_t dptr = 0, bytes = 0;
  cudaError_t e = resolve_symbol(api, symbol, &dptr, &bytes);
  if (e != cudaSuccess) return e;
  if (offset > bytes || count > bytes - offset)
    return fail(api, cudaErrorInvalidValue, "%zu bytes at offset %zu do not fit the symbol's %llu bytes", count, offset,
                (unsigned long long)bytes);
  if (count == 0) return cudaSuccess;
  cu_copy_side d{dptr + offset, CU_MEM_DEVICE}, s;
  e = side(api, "source", src, kind == cudaMemcpyHostToDevice ? WANT_HOST : kind == cudaMemcpyDeviceToDevice ? WANT_DEVICE : WANT_ANY, &s);
  if (e != cudaSuccess) return e;
  return ret_cu(api, cucore_memcpy(d, s, count, stream, sync));
}

static cudaError_t from_symbol(const char *api, void *dst, const void *symbol, size_t count, size_t offset, int kind,
                               cu_stream *stream, bool sync) {
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
    return fail(api, cudaErrorInvalidMemcpyDirection, "copy kind %d out of a symbol", kind);
  uint64_t sptr = 0, bytes = 0;
  cudaError_t e = resolve_symbol(api, symbol, &sptr, &bytes);
  if (e != cudaSuccess) return e;
  if (offset > bytes || count > bytes - offset)
    return fail(api, cudaErrorInvalidValue, "%zu bytes at offset %zu do not fit the symbol's %llu bytes", count, offset,
                (unsigned long long)bytes);
  if (count == 0) return cudaSuccess;
  cu_copy_side s{sptr + offset, CU_MEM_DEVICE}, d;
  e = side(api, "destination", dst, kind == cudaMemcpyDeviceToHost ? WANT_HOST : kind == cudaMemcpyDeviceToDevice ? WANT_DEVICE : WANT_ANY, &d);
  if (e != cudaSuccess) return e;
  return ret_cu(api, cucore_memcpy(d, s, count, stream, sync));
}

static cudaError_t memset_2d(const char *api, void *p, size_t pitch, int value, size_t width, size_t height,
                             cu_stream *stream, bool sync) {
  if (width == 0 || height == 0) return cudaSuccess;
  if (!p) return fail(api, cudaErrorInvalidValue, "the destination pointer is NULL");
  if (height > 1 && width > pitch) return fail(api, cudaErrorInvalidPitchValue, "width %zu exceeds the pitch %zu", width, pitch);
  uint64_t a = reinterpret_cast<uint64_t>(p);
  int c = height == 1 ? cucore_memset(a, (uint32_t)value & 0xffu, 1, width, stream, sync)
                      : cucore_memset_2d(a, pitch, (uint32_t)value & 0xffu, 1, width, height, stream, sync);
  return ret_cu(api, c);
}

}  // namespace rt

// ---- allocation ---------------------------------------------------------------------------------

CUDART_EXPORT cudaError_t cudaMalloc(void **devPtr, size_t size) {
  if (!devPtr) return fail("cudaMalloc", cudaErrorInvalidValue, "the result pointer is NULL");
  uint64_t d = 0;
  int c = cucore_mem_alloc(nullptr, size, &d);
  *devPtr = c == CUDA_SUCCESS ? reinterpret_cast<void *>(d) : nullptr;
  return ret_cu("cudaMalloc", c);
}

CUDART_EXPORT cudaError_t cudaFree(void *devPtr) {
  return ret_cu("cudaFree", cucore_mem_free(reinterpret_cast<uint64_t>(devPtr)));
}

CUDART_EXPORT cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags) {
  const char *api = "cudaHostAlloc";
  if (!pHost) return fail(api, cudaErrorInvalidValue, "the result pointer is NULL");
  if (flags & ~7u) return fail(api, cudaErrorInvalidValue, "flags 0x%x (only Portable, Mapped, WriteCombined)", flags);
  void *p = nullptr;
  int c = cucore_host_alloc(nullptr, size, flags, &p);
  *pHost = c == CUDA_SUCCESS ? p : nullptr;
  return ret_cu(api, c);
}

CUDART_EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size) {
  if (!ptr) return fail("cudaMallocHost", cudaErrorInvalidValue, "the result pointer is NULL");
  void *p = nullptr;
  int c = cucore_host_alloc(nullptr, size, 0, &p);
  *ptr = c == CUDA_SUCCESS ? p : nullptr;
  return ret_cu("cudaMallocHost", c);
}

CUDART_EXPORT cudaError_t cudaFreeHost(void *ptr) { return ret_cu("cudaFreeHost", cucore_host_free(ptr)); }

CUDART_EXPORT cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost) {
  const char *api = "cudaHostGetFlags";
  if (!pFlags) return fail(api, cudaErrorInvalidValue, "the result pointer is NULL");
  cu_mem_info info;
  cucore_mem_classify(reinterpret_cast<uint64_t>(pHost), &info);
  if (info.type != CU_MEM_PINNED) return fail(api, cudaErrorInvalidValue, "%p is not pinned memory", pHost);
  *pFlags = info.flags;
  return cudaSuccess;
}

// Zero-copy: the device address of pinned memory is its host address (unified addressing), that
// of registered memory an address of its own (cudaDevAttrCanUseHostPointerForRegisteredMem is 0;
// sw/cuda/cu_memory.cc says why); the allocation is mapped into the GPU now if it was not
// allocated or registered Mapped.
CUDART_EXPORT cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags) {
  const char *api = "cudaHostGetDevicePointer";
  if (!pDevice) return fail(api, cudaErrorInvalidValue, "the result pointer is NULL");
  if (flags) return fail(api, cudaErrorInvalidValue, "flags must be 0 (got 0x%x)", flags);
  uint64_t d = 0;
  int c = cucore_host_device_pointer(pHost, &d);
  *pDevice = c == CUDA_SUCCESS ? reinterpret_cast<void *>(d) : nullptr;
  return ret_cu(api, c);
}

CUDART_EXPORT cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags) {
  const char *api = "cudaMallocManaged";
  if (!devPtr) return fail(api, cudaErrorInvalidValue, "the result pointer is NULL");
  if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)
    return fail(api, cudaErrorInvalidValue, "flags 0x%x (cudaMemAttachGlobal or cudaMemAttachHost)", flags);
  if (size == 0) return fail(api, cudaErrorInvalidValue, "size 0");
  uint64_t d = 0;
  int c = cucore_managed_alloc(nullptr, size, flags, &d);
  *devPtr = c == CUDA_SUCCESS ? reinterpret_cast<void *>(d) : nullptr;
  return ret_cu(api, c);
}

// The pitch of cudaMallocPitch / cudaMalloc3D rows (what current GPUs return).
static const size_t kPitchAlign = 512;

CUDART_EXPORT cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height) {
  const char *api = "cudaMallocPitch";
  if (!devPtr || !pitch) return fail(api, cudaErrorInvalidValue, "a result pointer is NULL");
  size_t p = (width + kPitchAlign - 1) / kPitchAlign * kPitchAlign;
  if (p == 0) p = kPitchAlign;
  if (height && p > SIZE_MAX / height) return fail(api, cudaErrorMemoryAllocation, "%zu x %zu bytes overflow", p, height);
  uint64_t d = 0;
  int c = cucore_mem_alloc(nullptr, (uint64_t)p * height, &d);
  if (c == CUDA_SUCCESS) {
    *devPtr = reinterpret_cast<void *>(d);
    *pitch = p;
  }
  return ret_cu(api, c);
}

CUDART_EXPORT cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent) {
  const char *api = "cudaMalloc3D";
  if (!pitchedDevPtr) return fail(api, cudaErrorInvalidValue, "the result pointer is NULL");
  size_t p = (extent.width + kPitchAlign - 1) / kPitchAlign * kPitchAlign;
  if (p == 0) p = kPitchAlign;
  uint64_t rows = (uint64_t)extent.height * extent.depth;
  uint64_t d = 0;
  int c = cucore_mem_alloc(nullptr, (uint64_t)p * rows, &d);
  if (c == CUDA_SUCCESS) {
    pitchedDevPtr->ptr = reinterpret_cast<void *>(d);
    pitchedDevPtr->pitch = p;
    pitchedDevPtr->xsize = extent.width;
    pitchedDevPtr->ysize = extent.height;
  }
  return ret_cu(api, c);
}

// ---- copies ----------------------------------------------------------------------------------------

CUDART_EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
  return memcpy_1d("cudaMemcpy", dst, src, count, kind, nullptr, true);
}
CUDART_EXPORT cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
  return memcpy_1d("cudaMemcpy_ptds", dst, src, count, kind, CU_STREAM_PER_THREAD, true);
}
CUDART_EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                          cudaStream_t stream) {
  return memcpy_1d("cudaMemcpyAsync", dst, src, count, kind, stream_of(stream), false);
}
CUDART_EXPORT cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                               cudaStream_t stream) {
  return memcpy_1d("cudaMemcpyAsync_ptsz", dst, src, count, kind, stream_ptsz(stream), false);
}

CUDART_EXPORT cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                       size_t height, enum cudaMemcpyKind kind) {
  return memcpy_2d("cudaMemcpy2D", dst, dpitch, src, spitch, width, height, kind, nullptr, true);
}
CUDART_EXPORT cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                            size_t height, enum cudaMemcpyKind kind) {
  return memcpy_2d("cudaMemcpy2D_ptds", dst, dpitch, src, spitch, width, height, kind, CU_STREAM_PER_THREAD, true);
}
CUDART_EXPORT cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                            size_t height, enum cudaMemcpyKind kind, cudaStream_t stream) {
  return memcpy_2d("cudaMemcpy2DAsync", dst, dpitch, src, spitch, width, height, kind, stream_of(stream), false);
}
CUDART_EXPORT cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src, size_t spitch,
                                                 size_t width, size_t height, enum cudaMemcpyKind kind,
                                                 cudaStream_t stream) {
  return memcpy_2d("cudaMemcpy2DAsync_ptsz", dst, dpitch, src, spitch, width, height, kind, stream_ptsz(stream), false);
}

CUDART_EXPORT cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                                             enum cudaMemcpyKind kind) {
  return to_symbol("cudaMemcpyToSymbol", symbol, src, count, offset, kind, nullptr, true);
}
CUDART_EXPORT cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count, size_t offset,
                                                  enum cudaMemcpyKind kind) {
  return to_symbol("cudaMemcpyToSymbol_ptds", symbol, src, count, offset, kind, CU_STREAM_PER_THREAD, true);
}
CUDART_EXPORT cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                                  enum cudaMemcpyKind kind, cudaStream_t stream) {
  return to_symbol("cudaMemcpyToSymbolAsync", symbol, src, count, offset, kind, stream_of(stream), false);
}
CUDART_EXPORT cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t count,
                                                       size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream) {
  return to_symbol("cudaMemcpyToSymbolAsync_ptsz", symbol, src, count, offset, kind, stream_ptsz(stream), false);
}
CUDART_EXPORT cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                               enum cudaMemcpyKind kind) {
  return from_symbol("cudaMemcpyFromSymbol", dst, symbol, count, offset, kind, nullptr, true);
}
CUDART_EXPORT cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count, size_t offset,
                                                    enum cudaMemcpyKind kind) {
  return from_symbol("cudaMemcpyFromSymbol_ptds", dst, symbol, count, offset, kind, CU_STREAM_PER_THREAD, true);
}
CUDART_EXPORT cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                                    enum cudaMemcpyKind kind, cudaStream_t stream) {
  return from_symbol("cudaMemcpyFromSymbolAsync", dst, symbol, count, offset, kind, stream_of(stream), false);
}
CUDART_EXPORT cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count, size_t offset,
                                                         enum cudaMemcpyKind kind, cudaStream_t stream) {
  return from_symbol("cudaMemcpyFromSymbolAsync_ptsz", dst, symbol, count, offset, kind, stream_ptsz(stream), false);
}

CUDART_EXPORT cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol) {
  if (!devPtr) return fail("cudaGetSymbolAddress", cudaErrorInvalidValue, "the result pointer is NULL");
  uint64_t d = 0, n = 0;
  cudaError_t e = resolve_symbol("cudaGetSymbolAddress", symbol, &d, &n);
  if (e == cudaSuccess) *devPtr = reinterpret_cast<void *>(d);
  return e;
}

CUDART_EXPORT cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol) {
  if (!size) return fail("cudaGetSymbolSize", cudaErrorInvalidValue, "the result pointer is NULL");
  uint64_t d = 0, n = 0;
  cudaError_t e = resolve_symbol("cudaGetSymbolSize", symbol, &d, &n);
  if (e == cudaSuccess) *size = (size_t)n;
  return e;
}

// ---- memset ----------------------------------------------------------------------------------------

CUDART_EXPORT cudaError_t cudaMemset(void *devPtr, int value, size_t count) {
  return memset_2d("cudaMemset", devPtr, count, value, count, 1, nullptr, false);
}
CUDART_EXPORT cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count) {
  return memset_2d("cudaMemset_ptds", devPtr, count, value, count, 1, CU_STREAM_PER_THREAD, false);
}
CUDART_EXPORT cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream) {
  return memset_2d("cudaMemsetAsync", devPtr, count, value, count, 1, stream_of(stream), false);
}
CUDART_EXPORT cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream) {
  return memset_2d("cudaMemsetAsync_ptsz", devPtr, count, value, count, 1, stream_ptsz(stream), false);
}
CUDART_EXPORT cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height) {
  return memset_2d("cudaMemset2D", devPtr, pitch, value, width, height, nullptr, false);
}
CUDART_EXPORT cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width, size_t height) {
  return memset_2d("cudaMemset2D_ptds", devPtr, pitch, value, width, height, CU_STREAM_PER_THREAD, false);
}
CUDART_EXPORT cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                                            cudaStream_t stream) {
  return memset_2d("cudaMemset2DAsync", devPtr, pitch, value, width, height, stream_of(stream), false);
}
CUDART_EXPORT cudaError_t cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                                                 cudaStream_t stream) {
  return memset_2d("cudaMemset2DAsync_ptsz", devPtr, pitch, value, width, height, stream_ptsz(stream), false);
}

static cudaError_t memset_3d(const char *api, struct cudaPitchedPtr p, int value, struct cudaExtent extent,
                             cu_stream *stream) {
  if (extent.width == 0 || extent.height == 0 || extent.depth == 0) return cudaSuccess;
  if (p.ysize < extent.height && extent.depth > 1)
    return fail(api, cudaErrorInvalidValue, "extent height %zu exceeds the allocation's %zu rows per slice", extent.height,
                p.ysize);
  size_t slice = p.pitch * (p.ysize ? p.ysize : extent.height);
  for (size_t z = 0; z < extent.depth; z++) {
    cudaError_t e = memset_2d(api, static_cast<char *>(p.ptr) + z * slice, p.pitch, value, extent.width, extent.height,
                              stream, false);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent) {
  return memset_3d("cudaMemset3D", pitchedDevPtr, value, extent, nullptr);
}
CUDART_EXPORT cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent,
                                            cudaStream_t stream) {
  return memset_3d("cudaMemset3DAsync", pitchedDevPtr, value, extent, stream_of(stream));
}

// ---- pointer queries and managed-memory hints --------------------------------------------------------

CUDART_EXPORT cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr) {
  if (!attributes) return fail("cudaPointerGetAttributes", cudaErrorInvalidValue, "the result pointer is NULL");
  cu_mem_info info;
  cucore_mem_classify(reinterpret_cast<uint64_t>(ptr), &info);
  std::memset(attributes, 0, sizeof *attributes);
  attributes->device = 0;
  switch (info.type) {
    case CU_MEM_PAGEABLE:
      attributes->type = cudaMemoryTypeUnregistered;
      attributes->device = cudaInvalidDeviceId;
      break;
    case CU_MEM_PINNED:
      attributes->type = cudaMemoryTypeHost;
      attributes->hostPointer = const_cast<void *>(ptr);
      if (info.device)  // mapped: zero-copy (registered memory: at its own device address)
        attributes->devicePointer = reinterpret_cast<void *>(info.device + (reinterpret_cast<uint64_t>(ptr) - info.base));
      else if (info.flags & 2u)
        attributes->devicePointer = const_cast<void *>(ptr);
      break;
    case CU_MEM_DEVICE:
      attributes->type = cudaMemoryTypeDevice;
      attributes->devicePointer = const_cast<void *>(ptr);
      break;
    case CU_MEM_MANAGED:
      attributes->type = cudaMemoryTypeManaged;
      attributes->devicePointer = const_cast<void *>(ptr);
      attributes->hostPointer = const_cast<void *>(ptr);
      break;
  }
  return cudaSuccess;
}

// Where managed memory lives (docs/vm.md "Unified memory"): on GPUs with replayable faults pages
// migrate on demand and these move or duplicate them; on launch-and-sync managed memory they are
// checked and change nothing.
static cudaError_t location_side(const char *api, cudaMemLocation l, bool *to_device) {
  // cudaMemLocationTypeDevice 1 (id: the device, cudaCpuDeviceId = the host), Host 2, HostNuma 3,
  // HostNumaCurrent 4
  if (l.type == 1 && l.id == cudaCpuDeviceId) {
    *to_device = false;
    return cudaSuccess;
  }
  if (l.type == 1) {
    if (l.id != 0) return fail(api, cudaErrorInvalidDevice, "device %d does not exist (one device, 0)", l.id);
    *to_device = true;
    return cudaSuccess;
  }
  if (l.type >= 2 && l.type <= 4) {
    *to_device = false;
    return cudaSuccess;
  }
  return fail(api, cudaErrorInvalidValue, "memory location type %d is not a device or the host", l.type);
}

CUDART_EXPORT cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location,
                                               unsigned int flags, cudaStream_t stream) {
  if (!devPtr) return fail("cudaMemPrefetchAsync", cudaErrorInvalidValue, "the pointer is NULL");
  if (flags) return fail("cudaMemPrefetchAsync", cudaErrorInvalidValue, "flags must be 0 (got 0x%x)", flags);
  bool to_device = false;
  cudaError_t e = location_side("cudaMemPrefetchAsync", location, &to_device);
  if (e != cudaSuccess) return e;
  return ret_cu("cudaMemPrefetchAsync",
                cucore_mem_prefetch(reinterpret_cast<uint64_t>(devPtr), count, to_device, stream_of(stream)));
}
CUDART_EXPORT cudaError_t cudaMemAdvise(const void *devPtr, size_t count, int advice, struct cudaMemLocation location) {
  if (!devPtr) return fail("cudaMemAdvise", cudaErrorInvalidValue, "the pointer is NULL");
  // cudaMemAdviseSetReadMostly 1, Unset 2, SetPreferredLocation 3, Unset 4, SetAccessedBy 5, Unset 6
  if (advice < 1 || advice > 6)
    return fail("cudaMemAdvise", cudaErrorInvalidValue, "advice %d is not a cudaMemoryAdvise value", advice);
  int a = advice;
  if (advice == 3 || advice == 5 || advice == 6) {
    bool dev = false;
    cudaError_t e = location_side("cudaMemAdvise", location, &dev);
    if (e != cudaSuccess) return e;
    a = advice == 3 ? (dev ? DRV_UM_ADVISE_PREFER_GPU : DRV_UM_ADVISE_PREFER_HOST)
        : advice == 5 ? (dev ? DRV_UM_ADVISE_ACCESSED_BY_GPU : DRV_UM_ADVISE_ACCESSED_BY_HOST)
                      : (dev ? DRV_UM_ADVISE_UNSET_ACCESSED_BY_GPU : DRV_UM_ADVISE_UNSET_ACCESSED_BY_HOST);
  } else {
    a = advice == 1 ? DRV_UM_ADVISE_READ_MOSTLY : advice == 2 ? DRV_UM_ADVISE_UNSET_READ_MOSTLY : DRV_UM_ADVISE_UNSET_PREFERRED;
  }
  return ret_cu("cudaMemAdvise", cucore_mem_advise(reinterpret_cast<uint64_t>(devPtr), count, a));
}

// cudaMemRangeAttribute: ReadMostly 1 (int), PreferredLocation 2 (int device, -1 host, -2 none),
// AccessedBy 3 (int array of devices), LastPrefetchLocation 4 (int: where the range's last page is).
CUDART_EXPORT cudaError_t cudaMemRangeGetAttribute(void *data, size_t dataSize, int attribute, const void *devPtr,
                                                   size_t count) {
  const char *api = "cudaMemRangeGetAttribute";
  if (!data || !devPtr) return fail(api, cudaErrorInvalidValue, "a pointer is NULL");
  if (attribute < 1 || attribute > 4) return fail(api, cudaErrorInvalidValue, "attribute %d is not supported", attribute);
  if (dataSize < 4 || (attribute != 3 && dataSize != 4) || dataSize % 4)
    return fail(api, cudaErrorInvalidValue, "dataSize %zu does not fit attribute %d", dataSize, attribute);
  drv_um_range_info_t info;
  cudaError_t e = ret_cu(api, cucore_mem_range_info(reinterpret_cast<uint64_t>(devPtr), count, &info));
  if (e != cudaSuccess) return e;
  int *out = static_cast<int *>(data);
  switch (attribute) {
    case 1: *out = info.read_mostly; break;
    case 2: *out = info.preferred == DRV_UM_GPU ? 0 : info.preferred == DRV_UM_HOST ? cudaCpuDeviceId : -2; break;
    case 3: {
      size_t n = dataSize / 4, k = 0;
      for (size_t i = 0; i < n; i++) out[i] = -2;  // cudaInvalidDeviceId
      if ((info.accessed_by & 2u) && k < n) out[k++] = 0;
      if ((info.accessed_by & 1u) && k < n) out[k++] = cudaCpuDeviceId;
      break;
    }
    case 4:
      *out = info.last_loc == DRV_UM_GPU ? 0 : info.last_loc == DRV_UM_NOWHERE ? -2 : cudaCpuDeviceId;
      break;
  }
  return cudaSuccess;
}
CUDART_EXPORT cudaError_t cudaMemRangeGetAttributes(void **data, size_t *dataSizes, int *attributes, size_t numAttributes,
                                                    const void *devPtr, size_t count) {
  if (!data || !dataSizes || !attributes || !numAttributes)
    return fail("cudaMemRangeGetAttributes", cudaErrorInvalidValue, "an array is NULL or empty");
  for (size_t i = 0; i < numAttributes; i++) {
    cudaError_t e = cudaMemRangeGetAttribute(data[i], dataSizes[i], attributes[i], devPtr, count);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}
CUDART_EXPORT cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
                                                   unsigned int flags) {
  (void)devPtr;
  (void)length;
  (void)flags;
  return ret_cu("cudaStreamAttachMemAsync", cucore_stream_check(stream_of(stream)));
}

// ---- registered host memory, stream-ordered allocation, peer copies -------------------------------

CUDART_EXPORT cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags) {
  if (flags & ~0xfu) return fail("cudaHostRegister", cudaErrorInvalidValue, "flags 0x%x", flags);
  if (flags & 0x4u)  // cudaHostRegisterIoMemory
    return fail("cudaHostRegister", cudaErrorNotSupported, "registering I/O memory is not supported by simtvp");
  return ret_cu("cudaHostRegister", cucore_host_register(ptr, size, flags));
}

CUDART_EXPORT cudaError_t cudaHostUnregister(void *ptr) {
  return ret_cu("cudaHostUnregister", cucore_host_unregister(ptr));
}

// Stream-ordered allocation: the allocation itself happens at once (it is valid in stream order
// too); the free waits for the stream's earlier work, which may still use the memory.
static cudaError_t malloc_async(const char *api, void **devPtr, size_t size, cu_stream *stream) {
  if (!devPtr) return fail(api, cudaErrorInvalidValue, "the result pointer is NULL");
  int c = cucore_stream_check(stream);
  if (c != CUDA_SUCCESS) return ret_cu(api, c);
  uint64_t d = 0;
  c = cucore_mem_alloc(nullptr, size, &d);
  *devPtr = c == CUDA_SUCCESS ? reinterpret_cast<void *>(d) : nullptr;
  return ret_cu(api, c);
}

static cudaError_t free_async(const char *api, void *devPtr, cu_stream *stream) {
  int c = cucore_stream_sync(stream);
  if (c != CUDA_SUCCESS) return ret_cu(api, c);
  return ret_cu(api, cucore_mem_free(reinterpret_cast<uint64_t>(devPtr)));
}

CUDART_EXPORT cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream) {
  return malloc_async("cudaMallocAsync", devPtr, size, stream_of(hStream));
}
CUDART_EXPORT cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream) {
  return malloc_async("cudaMallocAsync_ptsz", devPtr, size, stream_ptsz(hStream));
}
CUDART_EXPORT cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream) {
  return free_async("cudaFreeAsync", devPtr, stream_of(hStream));
}
CUDART_EXPORT cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream) {
  return free_async("cudaFreeAsync_ptsz", devPtr, stream_ptsz(hStream));
}

// One device: a peer copy is a device-to-device copy on device 0.
static cudaError_t memcpy_peer(const char *api, void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                               cu_stream *stream, bool sync) {
  if (dstDevice != 0 || srcDevice != 0)
    return fail(api, cudaErrorInvalidDevice, "devices %d and %d: simtvp models one GPU (device 0)", dstDevice, srcDevice);
  return memcpy_1d(api, dst, src, count, cudaMemcpyDeviceToDevice, stream, sync);
}
CUDART_EXPORT cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count) {
  return memcpy_peer("cudaMemcpyPeer", dst, dstDevice, src, srcDevice, count, nullptr, true);
}
CUDART_EXPORT cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                                              cudaStream_t stream) {
  return memcpy_peer("cudaMemcpyPeerAsync", dst, dstDevice, src, srcDevice, count, stream_of(stream), false);
}

CUDART_EXPORT cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count, struct cudaMemLocation location,
                                                    unsigned int flags, cudaStream_t stream) {
  return cudaMemPrefetchAsync(devPtr, count, location, flags, stream);
}
CUDART_EXPORT cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *devPtr, size_t length,
                                                        unsigned int flags) {
  (void)devPtr;
  (void)length;
  (void)flags;
  return ret_cu("cudaStreamAttachMemAsync_ptsz", cucore_stream_check(stream_ptsz(stream)));
}
