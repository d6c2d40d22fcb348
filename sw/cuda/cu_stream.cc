// cu_stream.cc — streams, events and host callbacks on the driver's streams (cu_core.h,
// docs/driver.md "Streams → channels", docs/cudart.md "Streams and events").
#include "cu_internal.h"

using namespace cucore;

namespace {

int stream_wait(State &s, drv_stream *ds) {
  simtvp_diag diag = cleared_diag();
  simtvp_status st = drv_stream_sync(s.d, ds, &diag);
  if (st != SIMTVP_OK) return drv_fail(s, st, diag);
  if (!s.deferred_frees.empty() && device_idle(s)) flush_deferred_frees(s);
  return managed_to_host(s);
}

// cucore_stream_flags / _priority: a field of a live stream; 0 for the default streams.
template <class T>
int stream_property(cu_stream *handle, T *out, T Stream::*field, const char *what) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  if (!out) return fail(CUDA_ERROR_INVALID_VALUE, "the %s pointer is NULL", what);
  if (is_default_stream(handle)) {
    *out = 0;
    return CUDA_SUCCESS;
  }
  Stream *st = s.streams.get(handle);
  if (!st) return fail(CUDA_ERROR_INVALID_HANDLE, "stream %p is not a live stream", (void *)handle);
  *out = st->*field;
  return CUDA_SUCCESS;
}

// The live event behind a handle; nullptr after fail(CUDA_ERROR_INVALID_HANDLE) otherwise.
Event *live_event(State &s, cu_event *event, const char *note = "") {
  Event *ev = s.events.get(event);
  if (!ev) fail(CUDA_ERROR_INVALID_HANDLE, "event %p is not a live event%s", (void *)event, note);
  return ev;
}

}  // namespace

extern "C" {

int cucore_stream_create(cu_ctx *ctx, unsigned flags, int priority, cu_stream **out) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if (!out) return fail(CUDA_ERROR_INVALID_VALUE, "the stream pointer is NULL");
  if (flags & ~1u) return fail(CUDA_ERROR_INVALID_VALUE, "stream flags 0x%x: only 0x1 (non-blocking) is defined", flags);
  Ctx *c = ctx_or_primary(s, ctx);
  return run(s, [&]() -> int {
    simtvp_diag diag = cleared_diag();
    drv_stream *ds = nullptr;
    simtvp_status st = drv_stream_create(s.d, flags & 1u ? DRV_STREAM_NON_BLOCKING : 0, priority, &ds, &diag);
    if (st != SIMTVP_OK) return drv_fail(s, st, diag);
    auto p = std::make_unique<Stream>();
    p->ds = ds;
    p->flags = flags;
    p->priority = priority;
    p->ctx = c;
    *out = reinterpret_cast<cu_stream *>(s.streams.add(std::move(p)));
    return CUDA_SUCCESS;
  });
}

int cucore_stream_destroy(cu_stream *handle) {
  Entry e;
  State &s = state();
  if (int r = e.device(s)) return r;
  if (is_default_stream(handle))
    return fail(CUDA_ERROR_INVALID_HANDLE, "the default stream cannot be destroyed");
  Stream *st = s.streams.get(handle);
  if (!st) return fail(CUDA_ERROR_INVALID_HANDLE, "stream %p is not a live stream (destroyed twice?)", (void *)handle);
  capture_forget_stream(s, st);
  return run(s, [&]() -> int {
    simtvp_diag diag = cleared_diag();
    simtvp_status rs = drv_stream_destroy(s.d, st->ds, &diag);
    s.streams.remove(st->handle);
    return rs == SIMTVP_OK ? CUDA_SUCCESS : drv_fail(s, rs, diag);
  });
}

int cucore_stream_check(cu_stream *handle) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  if (is_default_stream(handle)) return CUDA_SUCCESS;
  if (!s.streams.get(handle)) return fail(CUDA_ERROR_INVALID_HANDLE, "stream %p is not a live stream", (void *)handle);
  return CUDA_SUCCESS;
}

int cucore_stream_sync(cu_stream *handle) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  Stream *capturing = nullptr;
  if (int r = capture_route(s, handle, &capturing)) return r;
  if (capturing) return capture_unsupported(s, capturing, "synchronising the capturing stream");
  return run(s, [&]() -> int {
    drv_stream *ds = nullptr;
    int rr = resolve_stream(s, handle, &ds);
    return rr != CUDA_SUCCESS ? rr : stream_wait(s, ds);
  });
}

int cucore_stream_query(cu_stream *handle) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  Stream *capturing = nullptr;
  if (int r = capture_route(s, handle, &capturing)) return r;
  if (capturing) return capture_unsupported(s, capturing, "querying the capturing stream");
  return run(s, [&]() -> int {
    drv_stream *ds = nullptr;
    int rr = resolve_stream(s, handle, &ds);
    if (rr != CUDA_SUCCESS) return rr;
    simtvp_diag diag = cleared_diag();
    bool idle = false;
    simtvp_status st = drv_stream_query(s.d, ds, &idle, &diag);
    if (st != SIMTVP_OK) return drv_fail(s, st, diag);
    return idle ? (int)CUDA_SUCCESS : (int)CUDA_ERROR_NOT_READY;
  });
}

int cucore_stream_flags(cu_stream *handle, unsigned *flags) {
  return stream_property(handle, flags, &Stream::flags, "flags");
}

int cucore_stream_priority(cu_stream *handle, int *priority) {
  return stream_property(handle, priority, &Stream::priority, "priority");
}

int cucore_stream_wait_event(cu_stream *handle, cu_event *event) {
  return cucore_stream_wait_event_flags(handle, event, 0);
}

int cucore_stream_wait_event_flags(cu_stream *handle, cu_event *event, unsigned flags) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  Event *ev = live_event(s, event);
  if (!ev) return CUDA_ERROR_INVALID_HANDLE;
  if (flags & ~1u) return fail(CUDA_ERROR_INVALID_VALUE, "stream wait flags 0x%x: only 0x1 (external) is defined", flags);
  Stream *capturing = nullptr;
  if (int r = capture_route(s, handle, &capturing)) return r;
  bool handled = false;
  if (int r = capture_wait_event(s, handle, capturing, ev, flags, &handled)) return r;
  if (handled) return CUDA_SUCCESS;
  return run(s, [&]() -> int {
    drv_stream *ds = nullptr;
    int rr = resolve_stream(s, handle, &ds);
    if (rr != CUDA_SUCCESS) return rr;
    simtvp_diag diag = cleared_diag();
    simtvp_status st = drv_stream_wait_event(s.d, ds, ev->de, &diag);
    return st == SIMTVP_OK ? CUDA_SUCCESS : drv_fail(s, st, diag);
  });
}

static int stream_callback(cu_stream *handle, void (*fn)(void *), void *data, bool capturable) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if (!fn) return fail(CUDA_ERROR_INVALID_VALUE, "the host function is NULL");
  Stream *capturing = nullptr;
  if (int r = capture_route(s, handle, &capturing)) return r;
  if (capturing) {
    if (!capturable)
      return capture_unsupported(s, capturing, "a stream callback (cudaStreamAddCallback; cudaLaunchHostFunc is "
                                               "captured as a host node)");
    NodeParams p;
    p.type = CU_GRAPH_NODE_HOST;
    p.host_fn = fn;
    p.host_data = data;
    return capture_add(s, capturing, std::move(p));
  }
  return run(s, [&]() -> int {
    drv_stream *ds = nullptr;
    int rr = resolve_stream(s, handle, &ds);
    if (rr != CUDA_SUCCESS) return rr;
    simtvp_diag diag = cleared_diag();
    simtvp_status st = drv_stream_add_callback(s.d, ds, fn, data, &diag);
    return st == SIMTVP_OK ? CUDA_SUCCESS : drv_fail(s, st, diag);
  });
}

int cucore_stream_callback(cu_stream *handle, void (*fn)(void *), void *data) {
  return stream_callback(handle, fn, data, true);
}

int cucore_stream_add_callback(cu_stream *handle, void (*fn)(void *), void *data) {
  return stream_callback(handle, fn, data, false);
}

int cucore_event_create(cu_ctx *ctx, unsigned flags, cu_event **out) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if (!out) return fail(CUDA_ERROR_INVALID_VALUE, "the event pointer is NULL");
  if (flags & ~7u) return fail(CUDA_ERROR_INVALID_VALUE, "event flags 0x%x: only 0x1 (blocking sync), 0x2 (disable timing) and 0x4 (interprocess) are defined", flags);
  if ((flags & 4u) && !(flags & 2u))
    return fail(CUDA_ERROR_INVALID_VALUE, "an interprocess event must also disable timing (flags 0x%x)", flags);
  Ctx *c = ctx_or_primary(s, ctx);
  return run(s, [&]() -> int {
    simtvp_diag diag = cleared_diag();
    drv_event *de = nullptr;
    simtvp_status st = drv_event_create(s.d, &de, &diag);
    if (st != SIMTVP_OK) return drv_fail(s, st, diag);
    auto p = std::make_unique<Event>();
    p->de = de;
    p->flags = flags;
    p->ctx = c;
    *out = reinterpret_cast<cu_event *>(s.events.add(std::move(p)));
    return CUDA_SUCCESS;
  });
}

int cucore_event_destroy(cu_event *event) {
  Entry e;
  State &s = state();
  if (int r = e.device(s)) return r;
  Event *ev = live_event(s, event, " (destroyed twice?)");
  if (!ev) return CUDA_ERROR_INVALID_HANDLE;
  return run(s, [&]() -> int {
    drv_event_destroy(s.d, ev->de);
    s.events.remove(ev->handle);
    return CUDA_SUCCESS;
  });
}

int cucore_event_record(cu_event *event, cu_stream *handle) { return cucore_event_record_flags(event, handle, 0); }

int cucore_event_record_flags(cu_event *event, cu_stream *handle, unsigned flags) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  Event *ev = live_event(s, event);
  if (!ev) return CUDA_ERROR_INVALID_HANDLE;
  if (flags & ~1u) return fail(CUDA_ERROR_INVALID_VALUE, "event record flags 0x%x: only 0x1 (external) is defined", flags);
  Stream *capturing = nullptr;
  if (int r = capture_route(s, handle, &capturing)) return r;
  if (capturing) return capture_event_record(s, capturing, ev, flags);
  return run(s, [&]() -> int {
    drv_stream *ds = nullptr;
    int rr = resolve_stream(s, handle, &ds);
    if (rr != CUDA_SUCCESS) return rr;
    simtvp_diag diag = cleared_diag();
    simtvp_status st = drv_event_record(s.d, ev->de, ds, &diag);
    if (st != SIMTVP_OK) return drv_fail(s, st, diag);
    ev->recorded = true;
    ev->capture = 0;
    ev->capture_nodes.clear();
    return CUDA_SUCCESS;
  });
}

int cucore_event_query(cu_event *event) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  Event *ev = live_event(s, event);
  if (!ev) return CUDA_ERROR_INVALID_HANDLE;
  if (int r = check_not_captured(s, ev, "queried")) return r;
  return run(s, [&]() -> int {
    simtvp_diag diag = cleared_diag();
    bool done = false;
    simtvp_status st = drv_event_query(s.d, ev->de, &done, &diag);
    if (st != SIMTVP_OK) return drv_fail(s, st, diag);
    return done ? (int)CUDA_SUCCESS : (int)CUDA_ERROR_NOT_READY;
  });
}

int cucore_event_sync(cu_event *event) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  Event *ev = live_event(s, event);
  if (!ev) return CUDA_ERROR_INVALID_HANDLE;
  if (int r = check_not_captured(s, ev, "synchronised with")) return r;
  return run(s, [&]() -> int {
    simtvp_diag diag = cleared_diag();
    simtvp_status st = drv_event_sync(s.d, ev->de, &diag);
    if (st != SIMTVP_OK) return drv_fail(s, st, diag);
    return managed_to_host(s);
  });
}

int cucore_event_elapsed(float *ms, cu_event *start, cu_event *end) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if (!ms) return fail(CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  Event *a = s.events.get(start), *b = s.events.get(end);
  if (!a || !b)
    return fail(CUDA_ERROR_INVALID_HANDLE, "%s event %p is not a live event", !a ? "start" : "end",
                (void *)(!a ? start : end));
  if ((a->flags | b->flags) & 2u)
    return fail(CUDA_ERROR_INVALID_HANDLE, "the %s event was created with timing disabled",
                (a->flags & 2u) ? "start" : "end");
  if (!a->recorded || !b->recorded)
    return fail(CUDA_ERROR_INVALID_HANDLE, "the %s event was never recorded", !a->recorded ? "start" : "end");
  return run(s, [&]() -> int {
    simtvp_diag diag = cleared_diag();
    bool done_a = false, done_b = false;
    simtvp_status st = drv_event_query(s.d, a->de, &done_a, &diag);
    if (st == SIMTVP_OK) st = drv_event_query(s.d, b->de, &done_b, &diag);
    if (st != SIMTVP_OK) return drv_fail(s, st, diag);
    if (!done_a || !done_b)
      return fail(CUDA_ERROR_NOT_READY, "the %s event has not completed yet", !done_a ? "start" : "end");
    uint64_t ns = 0;
    st = drv_event_elapsed_ns(s.d, a->de, b->de, &ns, &diag);
    if (st == SIMTVP_OK) {
      *ms = (float)((double)ns / 1e6);
      return CUDA_SUCCESS;
    }
    if (st == SIMTVP_ERR_ARG) {  // recorded out of order: the time difference is negative
      simtvp_diag_clear(&diag);
      st = drv_event_elapsed_ns(s.d, b->de, a->de, &ns, &diag);
      if (st == SIMTVP_OK) {
        *ms = -(float)((double)ns / 1e6);
        return CUDA_SUCCESS;
      }
    }
    return drv_fail(s, st, diag);
  });
}

}  // extern "C"
