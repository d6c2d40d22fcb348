// cudart_internal.h — shared helpers of libcudart.so.13's source files (sw/cudart/*.cc).
//
// Every exported runtime function ends in rt::ret(api, code): it maps the core's CUresult to a
// cudaError_t, records it as this thread's last error (cudaGetLastError) and prints the core's
// message naming what was wrong. Functions are exported with default visibility and the version
// node libcudart.so.13 (libcudart.map); everything else stays hidden.
#ifndef SIMTVP_CUDART_INTERNAL_H
#define SIMTVP_CUDART_INTERNAL_H

#include <cstdint>

#include "cu_core.h"
#include "cudart_api.h"

#define CUDART_EXPORT extern "C" __attribute__((visibility("default")))

namespace rt {

// CUresult (core) -> cudaError_t.
cudaError_t from_cu(int code);
// Records and reports a result; returns it. NotReady is a state, not an error: neither recorded
// nor printed.
cudaError_t ret(const char *api, cudaError_t err);
inline cudaError_t ret_cu(const char *api, int code) { return ret(api, from_cu(code)); }
// Sets the message and returns ret(api, err).
cudaError_t fail(const char *api, cudaError_t err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
cudaError_t unsupported(const char *api);
void clear_last_error();

const char *error_name(cudaError_t err);

// The primary context (opening the device on first use).
int primary(cu_ctx **ctx);

// Kernel handles given to programs (cudaKernel_t, cudaFunction_t, __cudaGetKernel) are kernel
// registration records; resolves a host stub address or such a handle to a loaded function.
// Errors: cudaErrorInvalidDeviceFunction (unknown), module load errors.
cudaError_t resolve_function(const char *api, const void *func, cu_function **out);
// A registered __device__/__constant__ variable by its host shadow address: device address and
// size. cudaErrorInvalidSymbol when unknown.
cudaError_t resolve_symbol(const char *api, const void *symbol, uint64_t *dptr, uint64_t *bytes);

// Stream handles: cudaStreamPerThread is the per-thread default stream; with per-thread default
// stream compilation (_ptsz / _ptds entry points) the NULL stream means it too.
inline cu_stream *stream_of(cudaStream_t s) { return reinterpret_cast<cu_stream *>(s); }
inline cu_stream *stream_ptsz(cudaStream_t s) {
  return s ? reinterpret_cast<cu_stream *>(s) : CU_STREAM_PER_THREAD;
}

}  // namespace rt

#endif  // SIMTVP_CUDART_INTERNAL_H
