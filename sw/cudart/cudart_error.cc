// cudart_error.cc — cudaError_t codes, names and strings; the per-thread last error
// (cudaGetLastError / cudaPeekAtLastError) and how core results map to runtime results.
#include <cstdarg>
#include <cstdio>

#include "cudart_internal.h"

namespace rt {

namespace {
thread_local cudaError_t tl_last_error = cudaSuccess;
}

const char *error_name(cudaError_t err) {
  switch ((int)err) {
#define CUDART_ERROR_NAME_(name, value, text) \
  case value: return #name;
    CUDART_ERROR_TABLE(CUDART_ERROR_NAME_)
#undef CUDART_ERROR_NAME_
  }
  return nullptr;
}

static const char *error_text(cudaError_t err) {
  switch ((int)err) {
#define CUDART_ERROR_TEXT_(name, value, text) \
  case value: return text;
    CUDART_ERROR_TABLE(CUDART_ERROR_TEXT_)
#undef CUDART_ERROR_TEXT_
  }
  return nullptr;
}

cudaError_t from_cu(int code) {
  switch (code) {
    case CUDA_SUCCESS: return cudaSuccess;
    case CUDA_ERROR_INVALID_VALUE: return cudaErrorInvalidValue;
    case CUDA_ERROR_OUT_OF_MEMORY: return cudaErrorMemoryAllocation;
    case CUDA_ERROR_NOT_INITIALIZED: return cudaErrorInitializationError;
    case CUDA_ERROR_DEINITIALIZED: return cudaErrorCudartUnloading;
    case CUDA_ERROR_NO_DEVICE: return cudaErrorNoDevice;
    case CUDA_ERROR_INVALID_DEVICE: return cudaErrorInvalidDevice;
    case CUDA_ERROR_INVALID_IMAGE: return cudaErrorInvalidKernelImage;
    case CUDA_ERROR_INVALID_CONTEXT: return cudaErrorDeviceUninitialized;
    case CUDA_ERROR_NO_BINARY_FOR_GPU: return cudaErrorNoKernelImageForDevice;
    case CUDA_ERROR_UNSUPPORTED_LIMIT: return cudaErrorUnsupportedLimit;
    case CUDA_ERROR_INVALID_PTX: return cudaErrorInvalidPtx;
    case CUDA_ERROR_FILE_NOT_FOUND: return cudaErrorFileNotFound;
    case CUDA_ERROR_INVALID_HANDLE: return cudaErrorInvalidResourceHandle;
    case CUDA_ERROR_ILLEGAL_STATE: return cudaErrorIllegalState;
    case CUDA_ERROR_NOT_FOUND: return cudaErrorSymbolNotFound;
    case CUDA_ERROR_NOT_READY: return cudaErrorNotReady;
    case CUDA_ERROR_ILLEGAL_ADDRESS: return cudaErrorIllegalAddress;
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: return cudaErrorLaunchOutOfResources;
    case CUDA_ERROR_LAUNCH_TIMEOUT: return cudaErrorLaunchTimeout;
    case CUDA_ERROR_ASSERT: return cudaErrorAssert;
    case CUDA_ERROR_LAUNCH_FAILED: return cudaErrorLaunchFailure;
    case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE: return cudaErrorCooperativeLaunchTooLarge;
    case CUDA_ERROR_NOT_PERMITTED: return cudaErrorNotPermitted;
    case CUDA_ERROR_NOT_SUPPORTED: return cudaErrorNotSupported;
    default: break;
  }
  // The remaining codes share their numbers between the two APIs.
  return error_name((cudaError_t)code) ? (cudaError_t)code : cudaErrorUnknown;
}

cudaError_t ret(const char *api, cudaError_t err) {
  if (err == cudaSuccess || err == cudaErrorNotReady) return err;
  tl_last_error = err;
  // Calls made while the process exits (static destructors freeing memory) get
  // cudaErrorCudartUnloading quietly, as with NVIDIA's runtime.
  if (err != cudaErrorCudartUnloading) cucore_report(api, error_name(err) ? error_name(err) : "cudaErrorUnknown");
  return err;
}

cudaError_t fail(const char *api, cudaError_t err, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  cucore_fail(CUDA_ERROR_UNKNOWN, "%s", buf);
  return ret(api, err);
}

cudaError_t unsupported(const char *api) {
  cucore_report_unsupported(api);
  tl_last_error = cudaErrorNotSupported;
  return cudaErrorNotSupported;
}

void clear_last_error() { tl_last_error = cudaSuccess; }

int primary(cu_ctx **ctx) { return cucore_primary_ctx(ctx); }

}  // namespace rt

using namespace rt;

CUDART_EXPORT cudaError_t cudaGetLastError(void) {
  cudaError_t e = tl_last_error;
  tl_last_error = cudaSuccess;
  if (e == cudaSuccess) {
    int sticky = cucore_sticky_error();  // a device fault is reported until the device is reset
    if (sticky != CUDA_SUCCESS) e = from_cu(sticky);
  }
  return e;
}

CUDART_EXPORT cudaError_t cudaPeekAtLastError(void) {
  cudaError_t e = tl_last_error;
  if (e == cudaSuccess) {
    int sticky = cucore_sticky_error();
    if (sticky != CUDA_SUCCESS) e = from_cu(sticky);
  }
  return e;
}

CUDART_EXPORT const char *cudaGetErrorName(cudaError_t error) {
  const char *n = error_name(error);
  return n ? n : "cudaErrorUnknown";
}

CUDART_EXPORT const char *cudaGetErrorString(cudaError_t error) {
  const char *t = error_text(error);
  return t ? t : "unrecognized error code";
}
