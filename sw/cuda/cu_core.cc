// cu_core.cc — the shared core's state, platform and driver bring-up, contexts, errors, device
// attributes and limits (cu_core.h, docs/cudart.md "How the runtime maps to the driver").
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

#include "cu_internal.h"
#include "gpu_abi.h"

namespace cucore {

namespace {

// A plain buffer, not a std::string: NVIDIA's statically linked runtime calls the driver from its
// exit handlers, after the main thread's thread_local objects were destroyed.
thread_local char tl_message[1536];
thread_local bool tl_inside = false;  // inside a cucore_ call (or on the stub thread for one)

cu_platform_open_fn default_opener();

void shutdown_at_exit();

}  // namespace

bool tl_inside_call() { return tl_inside; }

State &state() {
  // Never destroyed: static destructors of the program and of SystemC may run after it.
  static State *s = new State();
  return *s;
}

int vfail(int code, const char *fmt, va_list ap) {
  std::vsnprintf(tl_message, sizeof tl_message, fmt, ap);
  return code;
}

int fail(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(code, fmt, ap);
  va_end(ap);
  return code;
}

void clear_message() { tl_message[0] = 0; }

Entry::Entry() {
  if (tl_inside) {
    fail(CUDA_ERROR_NOT_PERMITTED,
         "CUDA calls are not permitted inside a stream callback (cudaLaunchHostFunc, "
         "cudaStreamAddCallback): it runs while the calling API holds the device");
    return;
  }
  lock_ = std::unique_lock<std::mutex>(state().mu);
  tl_inside = true;
  was_inside_ = true;
  ok_ = true;
}

Peek::Peek() {
  if (!tl_inside) lock_ = std::unique_lock<std::mutex>(state().mu);
}

Entry::~Entry() {
  if (was_inside_) tl_inside = false;
}

// ---- driver results -------------------------------------------------------------------------

static int map_status(simtvp_status st) {
  switch (st) {
    case SIMTVP_OK: return CUDA_SUCCESS;
    case SIMTVP_ERR_ARG: return CUDA_ERROR_INVALID_VALUE;
    case SIMTVP_ERR_PARSE: return CUDA_ERROR_INVALID_PTX;
    case SIMTVP_ERR_CONFIG: return CUDA_ERROR_INVALID_VALUE;
    case SIMTVP_ERR_UNSUPPORTED: return CUDA_ERROR_NOT_SUPPORTED;
    case SIMTVP_ERR_FAULT: return CUDA_ERROR_ILLEGAL_ADDRESS;
    case SIMTVP_ERR_TRAP: return CUDA_ERROR_ASSERT;
    case SIMTVP_ERR_DEADLOCK: return CUDA_ERROR_LAUNCH_TIMEOUT;
    case SIMTVP_ERR_LIMIT: return CUDA_ERROR_OUT_OF_MEMORY;
    case SIMTVP_ERR_IO: return CUDA_ERROR_FILE_NOT_FOUND;
    case SIMTVP_ERR_NOMEM: return CUDA_ERROR_OUT_OF_MEMORY;
    case SIMTVP_ERR_STATE: return CUDA_ERROR_LAUNCH_FAILED;
    case SIMTVP_ERR_MISALIGNED: return CUDA_ERROR_MISALIGNED_ADDRESS;
  }
  return CUDA_ERROR_UNKNOWN;
}

static void make_sticky(State &s, int code, const std::string &message) {
  if (s.sticky != CUDA_SUCCESS) return;  // the first error stays
  s.sticky = code;
  s.sticky_message = message;
}

int drv_fail(State &s, simtvp_status st, const simtvp_diag &diag) {
  simtvp_diag dev;
  simtvp_diag_clear(&dev);
  if (s.d && drv_device_error(s.d, &dev) != SIMTVP_OK) {
    simtvp_diag fault;
    simtvp_diag_clear(&fault);
    std::string m = dev.message;
    if ((dev.status == SIMTVP_ERR_FAULT || dev.status == SIMTVP_ERR_TRAP ||
         dev.status == SIMTVP_ERR_MISALIGNED || dev.status == SIMTVP_ERR_LIMIT) &&
        s.plat.last_fault && s.plat.last_fault(s.plat.ctx, &fault) && fault.message[0])
      m = fault.message + std::string(" (") + dev.message + ")";
    int code = map_status(dev.status);
    // A kernel stopped by an instruction or cycle limit or by the watchdog is CUDA's launch
    // timeout (702), as a kernel killed by the display watchdog is on hardware.
    if (dev.status == SIMTVP_ERR_LIMIT || dev.status == SIMTVP_ERR_DEADLOCK) code = CUDA_ERROR_LAUNCH_TIMEOUT;
    // A trap is CUDA's "unspecified launch failure"; a failed device assert() is its own code.
    if (dev.status == SIMTVP_ERR_TRAP)
      code = m.find("assertion") != std::string::npos ? CUDA_ERROR_ASSERT : CUDA_ERROR_LAUNCH_FAILED;
    make_sticky(s, code, m);
    return fail(s.sticky, "%s", s.sticky_message.c_str());
  }
  int code = map_status(st);
  if (st == SIMTVP_ERR_DEADLOCK) make_sticky(s, code, diag.message);
  if (st == SIMTVP_ERR_STATE) code = CUDA_ERROR_ILLEGAL_STATE;
  return fail(code, "%s", diag.message[0] ? diag.message : simtvp_status_name(st));
}

int run_raw(State &s, void (*fn)(void *), void *arg) {
  struct Trampoline {
    void (*fn)(void *);
    void *arg;
  } t{fn, arg};
  simtvp_diag diag = cleared_diag();
  simtvp_status st = s.plat.call(
      s.plat.ctx,
      [](void *p) {
        // On the host stub's thread (which may be another OS thread): mark it as inside a call
        // so that a stream callback calling CUDA is refused instead of deadlocking.
        bool was = tl_inside;
        tl_inside = true;
        Trampoline *tr = static_cast<Trampoline *>(p);
        tr->fn(tr->arg);
        tl_inside = was;
      },
      &t, &diag);
  if (st == SIMTVP_OK) return CUDA_SUCCESS;
  // Stopped by the watchdog or a cycle/instruction limit: CUDA's launch timeout (702).
  int code = st == SIMTVP_ERR_DEADLOCK || st == SIMTVP_ERR_LIMIT ? CUDA_ERROR_LAUNCH_TIMEOUT
                                                                  : CUDA_ERROR_LAUNCH_FAILED;
  std::string m = std::string("the simulation stopped: ") + diag.message;
  make_sticky(s, code, m);
  return fail(code, "%s", m.c_str());
}

// ---- bring-up --------------------------------------------------------------------------------

int ensure_device(State &s) {
  if (s.exiting) return fail(CUDA_ERROR_DEINITIALIZED, "the CUDA driver is shutting down (process exit)");
  if (s.init_result >= 0) {
    if (s.init_result != CUDA_SUCCESS) return fail(s.init_result, "%s", s.init_message.c_str());
    return CUDA_SUCCESS;
  }
  simtvp_diag diag = cleared_diag();
  cu_platform_open_fn open = s.opener ? s.opener : default_opener();
  if (!open) {
    s.init_result = CUDA_ERROR_NO_DEVICE;
    s.init_message = "this build of simtvp's CUDA libraries has no platform (libsimtvp was not built)";
    return fail(s.init_result, "%s", s.init_message.c_str());
  }
  simtvp_status st = open(&s.plat, &diag);
  if (st != SIMTVP_OK || !s.plat.bus || !s.plat.call) {
    s.init_result = CUDA_ERROR_NO_DEVICE;
    s.init_message = std::string("the simtvp platform could not be built: ") +
                     (diag.message[0] ? diag.message : simtvp_status_name(st));
    return fail(s.init_result, "%s", s.init_message.c_str());
  }
  s.platform_open = true;
  // Registered after the platform exists (and after SystemC's lazily built statics), so it runs
  // before their destructors: the platform is released and the summary printed while all is alive.
  std::atexit(shutdown_at_exit);
  if (!s.plat.driver) {
    s.init_result = CUDA_ERROR_NO_DEVICE;
    s.init_message = "the simtvp platform gave no GPU driver";
    return fail(s.init_result, "%s", s.init_message.c_str());
  }
  s.d = s.plat.driver;
  s.init_result = CUDA_SUCCESS;
  s.props = *drv_props(s.d);
  s.limits[0] = 1024;          // cudaLimitStackSize: models/func's default call stack
  s.limits[1] = 1u << 20;      // cudaLimitPrintfFifoSize
  s.limits[2] = 8u << 20;      // cudaLimitMallocHeapSize
  s.limits[3] = 2;             // cudaLimitDevRuntimeSyncDepth
  s.limits[4] = 2048;          // cudaLimitDevRuntimePendingLaunchCount
  s.limits[5] = 64;            // cudaLimitMaxL2FetchGranularity
  s.limits[6] = 0;             // cudaLimitPersistingL2CacheSize
  return CUDA_SUCCESS;
}

int ready(State &s) {
  int r = ensure_device(s);
  if (r != CUDA_SUCCESS) return r;
  if (s.sticky != CUDA_SUCCESS)
    return fail(s.sticky, "an earlier error left the device unusable until it is reset: %s",
                s.sticky_message.c_str());
  return CUDA_SUCCESS;
}

namespace {

void shutdown_at_exit() {
  State &s = state();
  if (tl_inside) return;  // exit() from a stream callback: the platform cannot be re-entered
  std::unique_lock<std::mutex> lock(s.mu, std::try_to_lock);
  if (!lock.owns_lock() || s.exiting) return;
  s.exiting = true;
  // The platform closes the driver with everything on the device; this releases the host side.
  s.d = nullptr;
  if (s.platform_open && s.plat.close) s.plat.close(s.plat.ctx);
  s.platform_open = false;
}

}  // namespace

// ---- contexts and resources -------------------------------------------------------------------

int module_unload_locked(State &s, Module *m) {
  int result = CUDA_SUCCESS;
  for (uint64_t addr : m->managed_vars) {
    auto it = s.managed.find(addr);
    if (it == s.managed.end()) continue;
    uint64_t first = addr & ~uint64_t(4095), last = (addr + it->second.bytes + 4095) & ~uint64_t(4095);
    unmap_managed_pages(s, first, last);
    s.managed.erase(it);
  }
  for (auto &kv : m->functions) s.functions.remove(kv.second);
  if (m->dm) {
    simtvp_diag diag = cleared_diag();
    simtvp_status st = drv_module_unload(s.d, m->dm, &diag);
    if (st != SIMTVP_OK) result = drv_fail(s, st, diag);
  }
  s.modules.remove(m->handle);
  return result;
}

void destroy_ctx_resources(State &s, Ctx *ctx) {
  simtvp_diag diag = cleared_diag();
  if (!s.d) return;
  (void)drv_sync(s.d, &diag);
  flush_deferred_frees(s);
  for (auto it = s.textures.begin(); it != s.textures.end();) {
    if (it->second.ctx == ctx) {
      (void)drv_mem_free(s.d, it->first, &diag);
      it = s.textures.erase(it);
    } else {
      ++it;
    }
  }
  for (Array *a : s.arrays.all())
    if (a->ctx == ctx) {
      (void)drv_mem_free(s.d, a->alloc, &diag);
      s.allocations.erase(a->alloc);
      s.arrays.remove(a->handle);
    }
  destroy_ctx_graph_execs(s, ctx);
  for (Module *m : s.modules.all())
    if (m->ctx == ctx) (void)module_unload_locked(s, m);
  for (Event *e : s.events.all())
    if (e->ctx == ctx) {
      drv_event_destroy(s.d, e->de);
      s.events.remove(e->handle);
    }
  for (Stream *st : s.streams.all())
    if (st->ctx == ctx) {
      capture_forget_stream(s, st);
      (void)drv_stream_destroy(s.d, st->ds, &diag);
      if (s.per_thread == st) s.per_thread = nullptr;
      s.streams.remove(st->handle);
    }
  for (auto it = s.allocations.begin(); it != s.allocations.end();) {
    if (it->second.ctx == ctx) {
      if (it->second.managed) {
        auto m = s.managed.find(it->first);
        if (m != s.managed.end()) {
          unmap_managed_pages(s, it->first & ~uint64_t(4095),
                              (it->first + m->second.bytes + 4095) & ~uint64_t(4095));
          s.managed.erase(m);
        }
      }
      (void)drv_mem_free(s.d, it->first, &diag);
      it = s.allocations.erase(it);
    } else {
      ++it;
    }
  }
  for (auto it = s.pinned.begin(); it != s.pinned.end();) {
    if (it->second.ctx == ctx) {
      if (it->second.bus) s.plat.bus->sysmem_free(s.plat.bus->ctx, it->second.bus);
      else if (!it->second.registered) std::free(reinterpret_cast<void *>(it->first));
      it = s.pinned.erase(it);
    } else {
      ++it;
    }
  }
}

// ---- contexts --------------------------------------------------------------------------------

Ctx *primary_ctx(State &s) {
  if (!s.primary) {
    auto c = std::make_unique<Ctx>();
    c->primary = true;
    Ctx *p = c.get();
    s.ctxs.add(std::move(c));
    s.primary = p;
  }
  return s.primary;
}

Ctx *ctx_or_primary(State &s, cu_ctx *ctx) {
  Ctx *c = s.ctxs.get(ctx);
  return c ? c : primary_ctx(s);
}

}  // namespace cucore

using namespace cucore;

// ---- exported: platform, messages --------------------------------------------------------------

extern "C" {

bool cucore_set_platform_opener(cu_platform_open_fn open) {
  State &s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  if (s.init_result >= 0) return false;
  s.opener = open;
  return true;
}

const char *cucore_last_message(void) { return tl_message; }

int cucore_fail(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(code, fmt, ap);
  va_end(ap);
  return code;
}

void cucore_report(const char *api, const char *code_name) {
  if (getenv("SIMTVP_CUDA_QUIET")) return;
  // A kernel's fault (or a stopped simulation) becomes the device's sticky error and every later
  // call returns it: the platform already printed the fault in full (kernel, CTA, thread, PC,
  // place) when it happened, so the first call that returns it says so in one line and the later
  // ones say nothing.
  {
    Peek guard;  // locks unless this thread is inside a call already
    State &s = state();
    if (s.sticky != CUDA_SUCCESS && !s.sticky_message.empty() &&
        std::strstr(tl_message, s.sticky_message.c_str())) {
      if (s.sticky_reported) return;
      s.sticky_reported = true;
      std::fprintf(stderr, "simtvp: %s: %s: the device's error above; later calls return it too (until "
                           "cudaDeviceReset)\n", api, code_name);
      return;
    }
  }
  std::fprintf(stderr, "simtvp: %s: %s (%s)\n", api, tl_message[0] ? tl_message : "failed",
               code_name);
}

void cucore_report_unsupported(const char *api) {
  static std::mutex mu;
  static std::set<std::string> *seen = new std::set<std::string>();
  std::lock_guard<std::mutex> lock(mu);
  fail(CUDA_ERROR_NOT_SUPPORTED, "%s is not supported by simtvp", api);
  if (!seen->insert(api).second || getenv("SIMTVP_CUDA_QUIET")) return;
  std::fprintf(stderr, "simtvp: %s is not supported by simtvp (returns cudaErrorNotSupported / CUDA_ERROR_NOT_SUPPORTED)\n", api);
}

// ---- exported: device -------------------------------------------------------------------------

int cucore_init(void) {
  Entry e;
  if (!e.ok()) return e.refused();
  return ensure_device(state());
}

const drv_device_props *cucore_props(void) {
  State &s = state();
  Peek peek;
  return s.init_result == CUDA_SUCCESS ? &s.props : nullptr;
}

int cucore_sticky_error(void) {
  State &s = state();
  Peek peek;
  if (s.sticky != CUDA_SUCCESS) fail(s.sticky, "%s", s.sticky_message.c_str());
  return s.sticky;
}

uint64_t cucore_time_ps(void) {
  State &s = state();
  Peek peek;
  return s.platform_open && s.plat.time_ps ? s.plat.time_ps(s.plat.ctx) : 0;
}

// Device attributes: cudaDeviceAttr and CUdevice_attribute share their numbering (CUDA 13).
static bool attribute_value(const drv_device_props &p, int attr, int *v) {
  auto I = [](uint64_t x) { return x > 0x7fffffffu ? 0x7fffffff : (int)x; };
  switch (attr) {
    case 1: *v = I(p.max_threads_per_block); return true;
    case 2: case 3: case 4: *v = I(p.max_block_dim[attr - 2]); return true;
    case 5: case 6: case 7: *v = I(p.max_grid_dim[attr - 5]); return true;
    case 8: *v = I(p.smem_per_block); return true;
    case 9: *v = I(p.const_mem_bytes); return true;
    case 10: *v = I(p.warp_size); return true;
    case 11: *v = 0x7fffffff; return true;                       // max pitch
    case 12: *v = I(p.regs_per_block); return true;
    case 13: *v = I(p.core_clock_khz); return true;
    case 14: *v = 512; return true;                              // texture alignment
    case 15: *v = p.n_copy_engines > 0; return true;             // copy/compute overlap
    case 16: *v = I(p.sm_count); return true;
    case 17: *v = 0; return true;                                // kernel exec timeout
    case 18: *v = 0; return true;                                // integrated
    case 19: *v = 1; return true;                                // can map host memory (zero-copy)
    case 20: *v = 0; return true;                                // compute mode default
    case 21: *v = 131072; return true;                           // texture limits: a Turing GPU's
    case 22: *v = 131072; return true;
    case 23: *v = 65536; return true;
    case 24: case 25: case 26: *v = 16384; return true;
    case 27: *v = 32768; return true;
    case 28: *v = 32768; return true;
    case 29: *v = 2048; return true;
    case 30: *v = 512; return true;                              // surface alignment
    case 31: *v = p.max_concurrent_kernels > 1; return true;
    case 32: *v = 0; return true;                                // ECC
    case 33: *v = 1; return true;                                // PCI bus
    case 34: *v = 0; return true;
    case 35: *v = 0; return true;                                // TCC
    case 36: *v = I(p.mem_clock_khz); return true;
    case 37: *v = I(p.mem_bus_width_bits); return true;
    case 38: *v = I(p.l2_bytes); return true;
    case 39: *v = I(p.max_threads_per_sm); return true;
    case 40: *v = I(p.n_copy_engines); return true;
    case 41: *v = 1; return true;                                // unified addressing
    case 42: *v = 32768; return true;
    case 43: *v = 2048; return true;
    case 45: case 46: *v = 32768; return true;
    case 47: case 48: *v = 8192; return true;
    case 49: *v = 32768; return true;
    case 50: *v = 0; return true;                                // PCI domain
    case 51: *v = 32; return true;                               // texture pitch alignment
    case 52: case 53: *v = 32768; return true;
    case 54: *v = 2046; return true;
    case 55: *v = 32768; return true;
    case 56: *v = 131072; return true;
    case 57: *v = 65536; return true;
    case 58: *v = 16384; return true;
    case 59: case 60: *v = 16384; return true;
    case 61: *v = 32768; return true;
    case 62: *v = 2048; return true;
    case 63: case 64: *v = 32768; return true;
    case 65: *v = 2048; return true;
    case 66: case 67: *v = 32768; return true;
    case 68: *v = 2046; return true;
    case 69: *v = 268435456; return true;
    case 70: *v = 131072; return true;
    case 71: *v = 65000; return true;
    case 72: *v = 2097120; return true;
    case 73: *v = 32768; return true;
    case 74: *v = 32768; return true;
    case 75: *v = I(p.cc_major); return true;
    case 76: *v = I(p.cc_minor); return true;
    case 77: *v = 32768; return true;
    case 78: *v = 0; return true;                                // stream priorities: recorded only
    case 79: case 80: *v = 1; return true;                       // L1 caches globals / locals
    case 81: *v = I(p.smem_per_sm); return true;
    case 82: *v = I(p.regs_per_sm); return true;
    case 83: *v = 1; return true;                                // managed memory
    case 84: case 85: *v = 0; return true;
    case 86: *v = 0; return true;                                // host native atomics
    case 87: *v = 32; return true;                               // single/double ratio (Turing)
    case 88: *v = 0; return true;                                // pageable memory access
    case 89: *v = 0; return true;                                // concurrent managed access
    case 90: *v = 0; return true;                                // compute preemption
    case 91: *v = 0; return true;
    case 92: case 93: case 94: case 96: *v = 0; return true;
    case 95: *v = 1; return true;                                // cooperative launch
    case 97: *v = I(p.smem_per_block_optin); return true;
    case 98: *v = 0; return true;
    case 99: *v = 1; return true;                                // host register (cudaHostRegister)
    case 100: case 101: *v = 0; return true;
    case 106: *v = I(p.max_ctas_per_sm); return true;
    case 108: *v = 0; return true;
    case 109: *v = 0; return true;
    case 111: *v = 0; return true;                               // reserved shared per block
    case 112: case 113: case 114: case 115: *v = 0; return true;
    case 116: case 117: case 118: case 119: case 120: case 121: *v = 0; return true;
    case 122: case 123: case 124: case 125: *v = 0; return true;
    case 126: *v = 1; return true;                               // memory sync domains
    case 127: case 128: case 129: case 130: *v = 0; return true;
    case 131: *v = -1; return true;                              // NUMA id
    case 132: case 133: *v = 0; return true;
    case 134: *v = -1; return true;                              // host NUMA id
    case 135: case 138: case 139: case 140: case 141: case 142: case 143: case 144: case 145:
    case 147: *v = 0; return true;
    default: return false;
  }
}

int cucore_device_attribute(int attribute, int *value) {
  Entry e;
  State &s = state();
  if (int r = e.device(s)) return r;
  if (!value) return fail(CUDA_ERROR_INVALID_VALUE, "the value pointer is NULL");
  // How the GPU sits in the system (the GPU's SYSTEM register, read once, when first asked).
  if (attribute == 18 || attribute == 86 || attribute == 88 || attribute == 100) {
    uint32_t sys = 0;
    int r = run(s, [&]() -> int {
      sys = drv_system_flags(s.d);
      return CUDA_SUCCESS;
    });
    if (r != CUDA_SUCCESS) return r;
    bool coherent = GPU_FIELD_GET(GPU_SYSTEM_COHERENT, sys) != 0, pageable = GPU_FIELD_GET(GPU_SYSTEM_PAGEABLE, sys) != 0;
    *value = attribute == 18 ? (int)GPU_FIELD_GET(GPU_SYSTEM_INTEGRATED, sys) : attribute == 86 ? coherent : pageable;
    return CUDA_SUCCESS;
  }
  if (!attribute_value(s.props, attribute, value))
    return fail(CUDA_ERROR_INVALID_VALUE, "device attribute %d is not a CUDA 13 attribute", attribute);
  return CUDA_SUCCESS;
}

// ---- exported: contexts -----------------------------------------------------------------------


int cucore_primary_ctx(cu_ctx **out) {
  Entry e;
  State &s = state();
  if (int r = e.device(s)) return r;
  *out = reinterpret_cast<cu_ctx *>(primary_ctx(s)->handle);
  return CUDA_SUCCESS;
}

cu_ctx *cucore_primary_peek(void) {
  State &s = state();
  Peek peek;
  return s.primary ? reinterpret_cast<cu_ctx *>(s.primary->handle) : nullptr;
}

uint64_t cucore_primary_generation(void) {
  State &s = state();
  Peek peek;
  return s.primary_generation;
}

int cucore_primary_reset(void) {
  Entry e;
  State &s = state();
  if (int r = e.device(s)) return r;
  Ctx *p = primary_ctx(s);
  int result = CUDA_SUCCESS;
  // The driver belongs to the platform and stays open: free what the context owns and clear
  // the device's error state.
  int r = run(s, [&]() -> int {
    destroy_ctx_resources(s, p);
    drv_clear_error(s.d);
    return CUDA_SUCCESS;
  });
  if (r != CUDA_SUCCESS) result = r;
  s.per_thread = nullptr;
  s.sticky = CUDA_SUCCESS;
  s.sticky_message.clear();
  s.sticky_reported = false;
  s.primary_generation++;
  return result;
}

int cucore_ctx_create(unsigned flags, cu_ctx **out) {
  Entry e;
  State &s = state();
  if (int r = e.device(s)) return r;
  if (!out) return fail(CUDA_ERROR_INVALID_VALUE, "the context pointer is NULL");
  auto c = std::make_unique<Ctx>();
  c->flags = flags;
  *out = reinterpret_cast<cu_ctx *>(s.ctxs.add(std::move(c)));
  return CUDA_SUCCESS;
}

bool cucore_ctx_valid(const cu_ctx *ctx) {
  State &s = state();
  Peek peek;
  return s.ctxs.get(ctx) != nullptr;
}

int cucore_ctx_destroy(cu_ctx *ctx) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  Ctx *c = s.ctxs.get(ctx);
  if (!c) return fail(CUDA_ERROR_INVALID_CONTEXT, "context %p is not a live context", (void *)ctx);
  if (c->primary) return fail(CUDA_ERROR_INVALID_CONTEXT, "the primary context cannot be destroyed (release it instead)");
  int r = ensure_device(s);
  if (r != CUDA_SUCCESS) return r;
  bool last = s.ctxs.size() - (s.primary ? 1 : 0) <= 1;
  r = run(s, [&]() -> int {
    destroy_ctx_resources(s, c);
    if (last && !s.primary) drv_clear_error(s.d);  // the last context: its errors go with it
    return CUDA_SUCCESS;
  });
  s.ctxs.remove(c->handle);
  if (last && !s.primary) {
    s.sticky = CUDA_SUCCESS;
    s.sticky_message.clear();
    s.sticky_reported = false;
  }
  return r;
}

int cucore_synchronize(void) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if (int r = capture_guard(s, "synchronising the device")) return r;
  return run(s, [&]() -> int {
    simtvp_diag diag = cleared_diag();
    simtvp_status st = drv_sync(s.d, &diag);
    if (st != SIMTVP_OK) return drv_fail(s, st, diag);
    flush_deferred_frees(s);
    return managed_to_host(s);
  });
}

int cucore_mem_info(uint64_t *free_bytes, uint64_t *total_bytes) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  uint64_t f = 0, t = 0;
  drv_mem_info(s.d, &f, &t);
  if (free_bytes) *free_bytes = f;
  if (total_bytes) *total_bytes = t;
  return CUDA_SUCCESS;
}

// ---- exported: limits -------------------------------------------------------------------------

int cucore_limit_set(int limit, uint64_t value) {
  Entry e;
  State &s = state();
  if (int r = e.device(s)) return r;
  if (limit < 0 || limit >= 7) return fail(CUDA_ERROR_INVALID_VALUE, "limit %d is not a CUDA limit", limit);
  if (limit == 3 || limit == 4)
    return fail(CUDA_ERROR_UNSUPPORTED_LIMIT,
                "limit %d (device runtime) is not supported: simtvp has no dynamic parallelism", limit);
  if (limit == 5 && value != 0 && value != 32 && value != 64 && value != 128)
    return fail(CUDA_ERROR_INVALID_VALUE, "max L2 fetch granularity %llu is not 0, 32, 64 or 128",
                (unsigned long long)value);
  s.limits[limit] = value;
  return CUDA_SUCCESS;
}

int cucore_limit_get(int limit, uint64_t *value) {
  Entry e;
  State &s = state();
  if (int r = e.device(s)) return r;
  if (!value) return fail(CUDA_ERROR_INVALID_VALUE, "the value pointer is NULL");
  if (limit < 0 || limit >= 7) return fail(CUDA_ERROR_INVALID_VALUE, "limit %d is not a CUDA limit", limit);
  *value = s.limits[limit];
  return CUDA_SUCCESS;
}

}  // extern "C"

// ---- result names (CUresult) --------------------------------------------------------------------

extern "C" const char *cu_result_name(int code) {
  switch (code) {
#define CU_RESULT_NAME_(name, value, text) \
  case value: return #name;
    CU_RESULT_TABLE(CU_RESULT_NAME_)
#undef CU_RESULT_NAME_
  }
  return nullptr;
}

extern "C" const char *cu_result_string(int code) {
  switch (code) {
#define CU_RESULT_TEXT_(name, value, text) \
  case value: return text;
    CU_RESULT_TABLE(CU_RESULT_TEXT_)
#undef CU_RESULT_TEXT_
  }
  return nullptr;
}

// ---- default platform -----------------------------------------------------------------------------

extern "C" simtvp_status cucore_open_simtvp_platform(cu_platform *out, simtvp_diag *diag);
namespace cucore {
namespace {
cu_platform_open_fn default_opener() { return cucore_open_simtvp_platform; }
}  // namespace
}  // namespace cucore
