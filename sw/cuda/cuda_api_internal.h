// cuda_api_internal.h — helpers shared by libcuda.so.1's driver API sources (cuda_api.cc,
// cuda_library.cc, cuda_graph.cc …): result reporting, the current context, handle casts.
#ifndef SIMTVP_CUDA_API_INTERNAL_H
#define SIMTVP_CUDA_API_INTERNAL_H

#include "cu_core.h"
#include "cuda_api.h"

#define CU_EXPORT extern "C" __attribute__((visibility("default")))

namespace cuapi {

// Prints the core's message for a failure (not for NOT_READY / DEINITIALIZED); returns code.
inline CUresult report(const char *api, int code) {
  if (code != CUDA_SUCCESS && code != CUDA_ERROR_NOT_READY && code != CUDA_ERROR_DEINITIALIZED) {
    const char *n = cu_result_name(code);
    cucore_report(api, n ? n : "CUDA_ERROR_UNKNOWN");
  }
  return code;
}

inline CUresult fail(const char *api, int code, const char *what) {
  cucore_fail(code, "%s", what);
  return report(api, code);
}

// cuInit succeeded (or the runtime opened the device).
bool initialized();
// The context current on this thread; a program that initialised through the runtime uses the
// primary context without making it current, as with NVIDIA's libraries.
cu_ctx *current();

inline cu_stream *stream_of(CUstream s) { return reinterpret_cast<cu_stream *>(s); }
// The per-thread default stream entry points (_ptsz / _ptds): the NULL stream is this thread's
// default stream.
inline cu_stream *stream_ptsz(CUstream s) { return s ? reinterpret_cast<cu_stream *>(s) : CU_STREAM_PER_THREAD; }
inline cu_event *event_of(CUevent e) { return reinterpret_cast<cu_event *>(e); }
inline cu_module *module_of(CUmodule m) { return reinterpret_cast<cu_module *>(m); }
inline cu_function *function_of(CUfunction f) { return reinterpret_cast<cu_function *>(f); }

// CUDA_MEMCPY3D as cuda.h lays it out (cuMemcpy3D, copy graph nodes). Memory types: 1 host,
// 2 device, 3 array, 4 unified.
struct CudaMemcpy3D {
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

}  // namespace cuapi

// The checks at the top of almost every call: initialised, a live current context.
#define NEED_CONTEXT(api)                                                                          \
  do {                                                                                             \
    if (!cuapi::initialized())                                                                     \
      return cuapi::fail(api, CUDA_ERROR_NOT_INITIALIZED, "cuInit has not been called");          \
    cu_ctx *c_ = cuapi::current();                                                                 \
    if (!c_ || !cucore_ctx_valid(c_))                                                              \
      return cuapi::fail(api, CUDA_ERROR_INVALID_CONTEXT, "no current context (cuCtxCreate, cuCtxSetCurrent)"); \
  } while (0)

#define NEED_INIT(api)                                                                             \
  do {                                                                                             \
    if (!cuapi::initialized())                                                                     \
      return cuapi::fail(api, CUDA_ERROR_NOT_INITIALIZED, "cuInit has not been called");          \
  } while (0)

#endif  // SIMTVP_CUDA_API_INTERNAL_H
