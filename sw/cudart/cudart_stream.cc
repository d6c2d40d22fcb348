// cudart_stream.cc — streams, events, host functions and stream callbacks; the per-thread
// default stream entry points (_ptsz) (docs/cudart.md "Streams and events"). Stream capture:
// cudart_graph.cc.
#include "cudart_internal.h"

using namespace rt;

namespace {

cu_event *event_of(cudaEvent_t e) { return reinterpret_cast<cu_event *>(e); }

cudaError_t stream_create(const char *api, cudaStream_t *pStream, unsigned flags, int priority) {
  if (!pStream) return fail(api, cudaErrorInvalidValue, "the stream pointer is NULL");
  cu_stream *s = nullptr;
  int c = cucore_stream_create(nullptr, flags, priority, &s);
  if (c == CUDA_SUCCESS) *pStream = reinterpret_cast<cudaStream_t>(s);
  return ret_cu(api, c);
}

// cudaStreamAddCallback's callback gets the stream and a status: a small closure per call.
struct Callback {
  cudaStreamCallback_t fn;
  cudaStream_t stream;
  void *data;
};

void run_callback(void *p) {
  Callback *cb = static_cast<Callback *>(p);
  cb->fn(cb->stream, cudaSuccess, cb->data);
  delete cb;
}

cudaError_t add_callback(const char *api, cu_stream *s, cudaStream_t handle, cudaStreamCallback_t fn, void *data,
                         unsigned flags) {
  if (!fn) return fail(api, cudaErrorInvalidValue, "the callback is NULL");
  if (flags != 0) return fail(api, cudaErrorInvalidValue, "flags 0x%x (must be 0)", flags);
  Callback *cb = new Callback{fn, handle, data};
  int c = cucore_stream_add_callback(s, run_callback, cb);
  if (c != CUDA_SUCCESS) delete cb;
  return ret_cu(api, c);
}

cudaError_t host_func(const char *api, cu_stream *s, cudaHostFn_t fn, void *data) {
  if (!fn) return fail(api, cudaErrorInvalidValue, "the host function is NULL");
  return ret_cu(api, cucore_stream_callback(s, fn, data));
}

// flags: cudaEventWaitExternal / cudaEventRecordExternal (1) make event nodes inside a capture.
cudaError_t wait_event(const char *api, cu_stream *s, cudaEvent_t event, unsigned flags) {
  if (flags & ~1u) return fail(api, cudaErrorInvalidValue, "flags 0x%x", flags);
  return ret_cu(api, cucore_stream_wait_event_flags(s, event_of(event), flags));
}

cudaError_t record(const char *api, cudaEvent_t event, cu_stream *s, unsigned flags) {
  if (flags & ~1u) return fail(api, cudaErrorInvalidValue, "flags 0x%x", flags);
  return ret_cu(api, cucore_event_record_flags(event_of(event), s, flags));
}

}  // namespace

// ---- streams ------------------------------------------------------------------------------------

CUDART_EXPORT cudaError_t cudaStreamCreate(cudaStream_t *pStream) {
  return stream_create("cudaStreamCreate", pStream, 0, 0);
}
CUDART_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags) {
  return stream_create("cudaStreamCreateWithFlags", pStream, flags, 0);
}
CUDART_EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority) {
  return stream_create("cudaStreamCreateWithPriority", pStream, flags, priority);
}
CUDART_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  return ret_cu("cudaStreamDestroy", cucore_stream_destroy(stream_of(stream)));
}
CUDART_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  return ret_cu("cudaStreamSynchronize", cucore_stream_sync(stream_of(stream)));
}
CUDART_EXPORT cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) {
  return ret_cu("cudaStreamSynchronize_ptsz", cucore_stream_sync(stream_ptsz(stream)));
}
CUDART_EXPORT cudaError_t cudaStreamQuery(cudaStream_t stream) {
  return ret_cu("cudaStreamQuery", cucore_stream_query(stream_of(stream)));
}
CUDART_EXPORT cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream) {
  return ret_cu("cudaStreamQuery_ptsz", cucore_stream_query(stream_ptsz(stream)));
}
CUDART_EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  return wait_event("cudaStreamWaitEvent", stream_of(stream), event, flags);
}
CUDART_EXPORT cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
  return wait_event("cudaStreamWaitEvent_ptsz", stream_ptsz(stream), event, flags);
}
CUDART_EXPORT cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *userData,
                                                unsigned int flags) {
  return add_callback("cudaStreamAddCallback", stream_of(stream), stream, callback, userData, flags);
}
CUDART_EXPORT cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback,
                                                     void *userData, unsigned int flags) {
  return add_callback("cudaStreamAddCallback_ptsz", stream_ptsz(stream), stream, callback, userData, flags);
}
CUDART_EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData) {
  return host_func("cudaLaunchHostFunc", stream_of(stream), fn, userData);
}
CUDART_EXPORT cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void *userData) {
  return host_func("cudaLaunchHostFunc_ptsz", stream_ptsz(stream), fn, userData);
}
CUDART_EXPORT cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags) {
  return ret_cu("cudaStreamGetFlags", cucore_stream_flags(stream_of(hStream), flags));
}
CUDART_EXPORT cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int *flags) {
  return ret_cu("cudaStreamGetFlags_ptsz", cucore_stream_flags(stream_ptsz(hStream), flags));
}
CUDART_EXPORT cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority) {
  return ret_cu("cudaStreamGetPriority", cucore_stream_priority(stream_of(hStream), priority));
}
CUDART_EXPORT cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int *priority) {
  return ret_cu("cudaStreamGetPriority_ptsz", cucore_stream_priority(stream_ptsz(hStream), priority));
}
CUDART_EXPORT cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device) {
  if (!device) return fail("cudaStreamGetDevice", cudaErrorInvalidValue, "the result pointer is NULL");
  int c = cucore_stream_check(stream_of(hStream));
  if (c == CUDA_SUCCESS) *device = 0;
  return ret_cu("cudaStreamGetDevice", c);
}
CUDART_EXPORT cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t hStream, int *device) {
  if (!device) return fail("cudaStreamGetDevice_ptsz", cudaErrorInvalidValue, "the result pointer is NULL");
  int c = cucore_stream_check(stream_ptsz(hStream));
  if (c == CUDA_SUCCESS) *device = 0;
  return ret_cu("cudaStreamGetDevice_ptsz", c);
}
CUDART_EXPORT cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId) {
  if (!streamId) return fail("cudaStreamGetId", cudaErrorInvalidValue, "the result pointer is NULL");
  int c = cucore_stream_check(stream_of(hStream));
  if (c == CUDA_SUCCESS) *streamId = hStream == nullptr ? 0 : (unsigned long long)(uintptr_t)hStream;
  return ret_cu("cudaStreamGetId", c);
}

// ---- events ---------------------------------------------------------------------------------------

CUDART_EXPORT cudaError_t cudaEventCreate(cudaEvent_t *event) {
  if (!event) return fail("cudaEventCreate", cudaErrorInvalidValue, "the event pointer is NULL");
  cu_event *e = nullptr;
  int c = cucore_event_create(nullptr, 0, &e);
  if (c == CUDA_SUCCESS) *event = reinterpret_cast<cudaEvent_t>(e);
  return ret_cu("cudaEventCreate", c);
}
CUDART_EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
  if (!event) return fail("cudaEventCreateWithFlags", cudaErrorInvalidValue, "the event pointer is NULL");
  cu_event *e = nullptr;
  int c = cucore_event_create(nullptr, flags, &e);
  if (c == CUDA_SUCCESS) *event = reinterpret_cast<cudaEvent_t>(e);
  return ret_cu("cudaEventCreateWithFlags", c);
}
CUDART_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t event) {
  return ret_cu("cudaEventDestroy", cucore_event_destroy(event_of(event)));
}
CUDART_EXPORT cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  return record("cudaEventRecord", event, stream_of(stream), 0);
}
CUDART_EXPORT cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream) {
  return record("cudaEventRecord_ptsz", event, stream_ptsz(stream), 0);
}
CUDART_EXPORT cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  return record("cudaEventRecordWithFlags", event, stream_of(stream), flags);
}
CUDART_EXPORT cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
  return record("cudaEventRecordWithFlags_ptsz", event, stream_ptsz(stream), flags);
}
CUDART_EXPORT cudaError_t cudaEventQuery(cudaEvent_t event) {
  return ret_cu("cudaEventQuery", cucore_event_query(event_of(event)));
}
CUDART_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  return ret_cu("cudaEventSynchronize", cucore_event_sync(event_of(event)));
}
CUDART_EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
  return ret_cu("cudaEventElapsedTime", cucore_event_elapsed(ms, event_of(start), event_of(end)));
}
CUDART_EXPORT cudaError_t cudaStreamGetId_ptsz(cudaStream_t hStream, unsigned long long *streamId) {
  if (!streamId) return fail("cudaStreamGetId_ptsz", cudaErrorInvalidValue, "the result pointer is NULL");
  cu_stream *s = stream_ptsz(hStream);
  int c = cucore_stream_check(s);
  if (c == CUDA_SUCCESS) *streamId = (unsigned long long)(uintptr_t)s;
  return ret_cu("cudaStreamGetId_ptsz", c);
}
