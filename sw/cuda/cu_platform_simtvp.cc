// cu_platform_simtvp.cc — the core's default platform: simtvp's SystemC platform through
// platform/host/simtvp_host.h (libsimtvp).
#include <cstdlib>
#include <cstring>

#include "cu_core.h"
#include "simtvp_host.h"

namespace {

simtvp_status call(void *ctx, void (*fn)(void *), void *arg, simtvp_diag *diag) {
  return simtvp_host_call(static_cast<simtvp_host *>(ctx), fn, arg, diag);
}
// The host's own view of system memory: pinned memory is the very memory the copy engine reads
// and writes by DMA.
void *sysmem_ptr(void *ctx, uint64_t bus, uint64_t bytes) {
  return simtvp_host_sysmem_ptr(static_cast<simtvp_host *>(ctx), bus, bytes);
}
bool expose(void *ctx, const void *p, uint64_t bytes, uint64_t *bus) {
  return simtvp_host_expose(static_cast<simtvp_host *>(ctx), p, bytes, bus);
}
void unexpose(void *ctx, const void *p, uint64_t bytes) {
  simtvp_host_unexpose(static_cast<simtvp_host *>(ctx), p, bytes);
}
bool watch(void *ctx, const void *p, uint64_t bytes, uint64_t bus) {
  return simtvp_host_watch(static_cast<simtvp_host *>(ctx), p, bytes, bus);
}
void unwatch(void *ctx, const void *p, uint64_t bytes) {
  simtvp_host_unwatch(static_cast<simtvp_host *>(ctx), p, bytes);
}
bool fault_add(void *, const void *p, uint64_t bytes, bool (*fn)(void *, uint64_t, bool), void *fctx) {
  return simtvp_host_fault_add(p, bytes, fn, fctx);
}
void fault_remove(void *, const void *p, uint64_t bytes) { simtvp_host_fault_remove(p, bytes); }
uint64_t time_ps(void *ctx) { return simtvp_host_time_ps(static_cast<simtvp_host *>(ctx)); }
bool last_fault(void *ctx, simtvp_diag *out) { return simtvp_host_last_fault(static_cast<simtvp_host *>(ctx), out); }
void release(void *ctx) { simtvp_host_release(static_cast<simtvp_host *>(ctx)); }

}  // namespace

// The platform's configuration comes from the environment, which simtvp_host_acquire reads itself
// (SIMTVP_CONFIG, SIMTVP_OUTDIR, SIMTVP_OPTIONS, SIMTVP_STRICT, SIMTVP_QUIET; the `simtvp`
// launcher sets them). The platform's driver is shared by every user of the platform.
extern "C" __attribute__((visibility("default"))) simtvp_status cucore_open_simtvp_platform(
    cu_platform *out, simtvp_diag *diag) {
  simtvp_host *h = simtvp_host_acquire(nullptr, diag);
  if (!h) return diag && diag->status != SIMTVP_OK ? diag->status : SIMTVP_ERR_STATE;
  drv *d = nullptr;
  simtvp_status st = simtvp_host_driver(h, &d, diag);
  if (st != SIMTVP_OK) {
    simtvp_host_release(h);
    return st;
  }
  std::memset(out, 0, sizeof *out);
  out->ctx = h;
  out->bus = simtvp_host_bus(h);
  out->driver = d;
  out->call = call;
  out->sysmem_ptr = sysmem_ptr;
  out->expose = expose;
  out->unexpose = unexpose;
  out->time_ps = time_ps;
  out->last_fault = last_fault;
  out->close = release;
  out->name = "simtvp";
  out->watch = watch;
  out->unwatch = unwatch;
  out->fault_add = fault_add;
  out->fault_remove = fault_remove;
  return SIMTVP_OK;
}
