// cuda_api.cc — libcuda.so.1's driver API (cu*) on the shared core (cu_core.h). Names with a _v2
// (or later) suffix are what cuda.h maps the plain names to; both are exported where a program
// built against an older header could still call the plain one with the same signature.
// docs/cudart.md "The driver API".
#include <cstdio>
#include <cstring>
#include <vector>

#include "cuda_api_internal.h"
#include "cuda_entry.h"

namespace {
bool g_initialized = false;  // cuInit succeeded (or the runtime opened the device)
// The thread's context stack. Trivially destructible: NVIDIA's statically linked runtime calls the
// driver from its exit handlers, after the thread's thread_local objects were destroyed.
struct CtxStack {
  enum { kDepth = 64 };
  cu_ctx *entries[kDepth];
  unsigned size;
  bool empty() const { return size == 0; }
  cu_ctx *&back() { return entries[size - 1]; }
  bool push_back(cu_ctx *c) {
    if (size == kDepth) return false;
    entries[size++] = c;
    return true;
  }
  void pop_back() { size--; }
  cu_ctx **begin() { return entries; }
  cu_ctx **end() { return entries + size; }
};
thread_local CtxStack tl_ctx_stack;

CUresult push_context(const char *api, cu_ctx *c) {
  if (tl_ctx_stack.push_back(c)) return CUDA_SUCCESS;
  cucore_fail(CUDA_ERROR_INVALID_VALUE, "more than %d contexts pushed on this thread", (int)CtxStack::kDepth);
  return cuapi::report(api, CUDA_ERROR_INVALID_VALUE);
}
}  // namespace

bool cuapi::initialized() { return g_initialized || cucore_props() != nullptr; }

cu_ctx *cuapi::current() {
  if (!tl_ctx_stack.empty() && tl_ctx_stack.back()) return tl_ctx_stack.back();
  return cucore_primary_peek();
}

using namespace cuapi;

namespace {

CUresult check_device(const char *api, CUdevice dev) {
  if (dev != 0) {
    cucore_fail(CUDA_ERROR_INVALID_DEVICE, "device %d does not exist: simtvp models one GPU (device 0)", dev);
    return report(api, CUDA_ERROR_INVALID_DEVICE);
  }
  return CUDA_SUCCESS;
}

cu_copy_side device_side(CUdeviceptr p) { return cu_copy_side{p, CU_MEM_DEVICE}; }
cu_copy_side host_side(const void *p) {
  cu_mem_info info;
  cucore_mem_classify(reinterpret_cast<uint64_t>(p), &info);
  return cu_copy_side{reinterpret_cast<uint64_t>(p), info.type};
}

CUresult copy(const char *api, cu_copy_side d, cu_copy_side s, size_t bytes, CUstream stream, bool sync) {
  NEED_CONTEXT(api);
  if (bytes == 0) return CUDA_SUCCESS;
  if (!d.addr || !s.addr) return fail(api, CUDA_ERROR_INVALID_VALUE, "a NULL address");
  if (d.type == CU_MEM_DEVICE || s.type == CU_MEM_DEVICE) {
    // A device address given as such must lie in device memory; say which one does not.
    cu_mem_info info;
    if (d.type == CU_MEM_DEVICE) {
      cucore_mem_classify(d.addr, &info);
      if (info.type == CU_MEM_MANAGED) d.type = CU_MEM_MANAGED;
      else if (info.type != CU_MEM_DEVICE) {
        cucore_fail(CUDA_ERROR_INVALID_VALUE, "destination 0x%llx is not device memory", (unsigned long long)d.addr);
        return report(api, CUDA_ERROR_INVALID_VALUE);
      }
    }
    if (s.type == CU_MEM_DEVICE) {
      cucore_mem_classify(s.addr, &info);
      if (info.type == CU_MEM_MANAGED) s.type = CU_MEM_MANAGED;
      else if (info.type != CU_MEM_DEVICE) {
        cucore_fail(CUDA_ERROR_INVALID_VALUE, "source 0x%llx is not device memory", (unsigned long long)s.addr);
        return report(api, CUDA_ERROR_INVALID_VALUE);
      }
    }
  }
  return report(api, cucore_memcpy(d, s, bytes, stream_of(stream), sync));
}

CUresult memset(const char *api, CUdeviceptr dst, uint32_t value, uint32_t elem, size_t n, CUstream stream, bool sync) {
  NEED_CONTEXT(api);
  if (n == 0) return CUDA_SUCCESS;
  if (!dst) return fail(api, CUDA_ERROR_INVALID_VALUE, "the destination is NULL");
  if (dst % elem) {
    cucore_fail(CUDA_ERROR_INVALID_VALUE, "destination 0x%llx is not aligned to %u bytes", dst, elem);
    return report(api, CUDA_ERROR_INVALID_VALUE);
  }
  return report(api, cucore_memset(dst, value, elem, n, stream_of(stream), sync));
}

CUresult memset_2d(const char *api, CUdeviceptr dst, size_t pitch, uint32_t value, uint32_t elem, size_t w, size_t h,
                   CUstream stream, bool sync) {
  NEED_CONTEXT(api);
  if (w == 0 || h == 0) return CUDA_SUCCESS;
  if (!dst) return fail(api, CUDA_ERROR_INVALID_VALUE, "the destination is NULL");
  return report(api, cucore_memset_2d(dst, pitch, value, elem, w, h, stream_of(stream), sync));
}

}  // namespace

// ---- initialisation, versions, errors ---------------------------------------------------------------

CU_EXPORT CUresult cuInit(unsigned int Flags) {
  if (Flags != 0) return fail("cuInit", CUDA_ERROR_INVALID_VALUE, "flags must be 0");
  int r = cucore_init();
  if (r == CUDA_SUCCESS) g_initialized = true;
  return report("cuInit", r);
}

CU_EXPORT CUresult cuDriverGetVersion(int *driverVersion) {
  if (!driverVersion) return fail("cuDriverGetVersion", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  *driverVersion = cuentry::kDriverVersion;
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuGetErrorString(CUresult error, const char **pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  *pStr = cu_result_string(error);
  return *pStr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CU_EXPORT CUresult cuGetErrorName(CUresult error, const char **pStr) {
  if (!pStr) return CUDA_ERROR_INVALID_VALUE;
  *pStr = cu_result_name(error);
  return *pStr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// ---- devices ---------------------------------------------------------------------------------------

CU_EXPORT CUresult cuDeviceGetCount(int *count) {
  NEED_INIT("cuDeviceGetCount");
  if (!count) return fail("cuDeviceGetCount", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  *count = 1;
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  NEED_INIT("cuDeviceGet");
  if (!device) return fail("cuDeviceGet", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  CUresult r = check_device("cuDeviceGet", ordinal);
  if (r == CUDA_SUCCESS) *device = 0;
  return r;
}

CU_EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
  NEED_INIT("cuDeviceGetName");
  if (!name || len <= 0) return fail("cuDeviceGetName", CUDA_ERROR_INVALID_VALUE, "bad name buffer");
  CUresult r = check_device("cuDeviceGetName", dev);
  if (r != CUDA_SUCCESS) return r;
  std::snprintf(name, (size_t)len, "%s", cucore_props()->name);
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuDeviceGetUuid(void *uuid, CUdevice dev) {
  NEED_INIT("cuDeviceGetUuid");
  if (!uuid) return fail("cuDeviceGetUuid", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  CUresult r = check_device("cuDeviceGetUuid", dev);
  if (r == CUDA_SUCCESS) std::memcpy(uuid, "simtvp-gpu-00000", 16);
  return r;
}
CU_EXPORT CUresult cuDeviceGetUuid_v2(void *uuid, CUdevice dev) { return cuDeviceGetUuid(uuid, dev); }

CU_EXPORT CUresult cuDeviceGetAttribute(int *pi, int attrib, CUdevice dev) {
  NEED_INIT("cuDeviceGetAttribute");
  if (!pi) return fail("cuDeviceGetAttribute", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  CUresult r = check_device("cuDeviceGetAttribute", dev);
  if (r != CUDA_SUCCESS) return r;
  return report("cuDeviceGetAttribute", cucore_device_attribute(attrib, pi));
}

CU_EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) {
  NEED_INIT("cuDeviceTotalMem");
  if (!bytes) return fail("cuDeviceTotalMem", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  CUresult r = check_device("cuDeviceTotalMem", dev);
  if (r == CUDA_SUCCESS) *bytes = (size_t)cucore_props()->devmem_bytes;
  return r;
}

CU_EXPORT CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev) {
  NEED_INIT("cuDeviceComputeCapability");
  if (!major || !minor) return fail("cuDeviceComputeCapability", CUDA_ERROR_INVALID_VALUE, "a result pointer is NULL");
  CUresult r = check_device("cuDeviceComputeCapability", dev);
  if (r != CUDA_SUCCESS) return r;
  *major = (int)cucore_props()->cc_major;
  *minor = (int)cucore_props()->cc_minor;
  return CUDA_SUCCESS;
}

// The PCI location matches the device attributes (domain 0, bus 1, device 0).
CU_EXPORT CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev) {
  NEED_INIT("cuDeviceGetPCIBusId");
  if (!pciBusId || len <= 0) return fail("cuDeviceGetPCIBusId", CUDA_ERROR_INVALID_VALUE, "bad buffer");
  CUresult r = check_device("cuDeviceGetPCIBusId", dev);
  if (r != CUDA_SUCCESS) return r;
  std::snprintf(pciBusId, (size_t)len, "0000:01:00.0");
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId) {
  NEED_INIT("cuDeviceGetByPCIBusId");
  if (!dev || !pciBusId) return fail("cuDeviceGetByPCIBusId", CUDA_ERROR_INVALID_VALUE, "a NULL pointer");
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  int n = std::sscanf(pciBusId, "%x:%x:%x.%x", &domain, &bus, &device, &function);
  if (n < 3) n = std::sscanf(pciBusId, "%x:%x.%x", &bus, &device, &function) == 3 ? 4 : 0;
  if (n < 3 || domain != 0 || bus != 1 || device != 0) {
    cucore_fail(CUDA_ERROR_INVALID_DEVICE, "no device at PCI bus id '%s' (simtvp's GPU is 0000:01:00.0)", pciBusId);
    return report("cuDeviceGetByPCIBusId", CUDA_ERROR_INVALID_DEVICE);
  }
  *dev = 0;
  return CUDA_SUCCESS;
}

// ---- contexts --------------------------------------------------------------------------------------

static CUresult ctx_create(const char *api, CUcontext *pctx, unsigned flags, CUdevice dev) {
  NEED_INIT(api);
  if (!pctx) return fail(api, CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  CUresult r = check_device(api, dev);
  if (r != CUDA_SUCCESS) return r;
  cu_ctx *c = nullptr;
  r = report(api, cucore_ctx_create(flags, &c));
  if (r != CUDA_SUCCESS) return r;
  if ((r = push_context(api, c)) != CUDA_SUCCESS) {
    cucore_ctx_destroy(c);
    return r;
  }
  *pctx = reinterpret_cast<CUcontext>(c);
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev) {
  return ctx_create("cuCtxCreate", pctx, flags, dev);
}
CU_EXPORT CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev) {
  return ctx_create("cuCtxCreate", pctx, flags, dev);
}
// v3: execution affinity parameters; v4 (CUDA 13's cuCtxCreate): creation parameters. Only the
// defaults (none given) are supported.
CU_EXPORT CUresult cuCtxCreate_v3(CUcontext *pctx, void *paramsArray, int numParams, unsigned int flags, CUdevice dev) {
  if (paramsArray && numParams > 0)
    return fail("cuCtxCreate_v3", CUDA_ERROR_NOT_SUPPORTED, "execution affinity parameters are not supported by simtvp");
  return ctx_create("cuCtxCreate_v3", pctx, flags, dev);
}
CU_EXPORT CUresult cuCtxCreate_v4(CUcontext *pctx, void *ctxCreateParams, unsigned int flags, CUdevice dev) {
  if (ctxCreateParams) {
    // CUctxCreateParams: {execAffinityParams*, numExecAffinityParams, cigParams*}; all empty = default.
    struct {
      void *affinity;
      int n;
      void *cig;
    } p;
    std::memcpy(&p, ctxCreateParams, sizeof p);
    if ((p.affinity && p.n > 0) || p.cig)
      return fail("cuCtxCreate", CUDA_ERROR_NOT_SUPPORTED, "context creation parameters are not supported by simtvp");
  }
  return ctx_create("cuCtxCreate", pctx, flags, dev);
}

CU_EXPORT CUresult cuCtxDestroy_v2(CUcontext ctx) {
  NEED_INIT("cuCtxDestroy");
  cu_ctx *c = reinterpret_cast<cu_ctx *>(ctx);
  if (cucore_ctx_valid(c)) cuentry::context_storage_release(ctx);
  CUresult r = report("cuCtxDestroy", cucore_ctx_destroy(c));
  if (r != CUDA_SUCCESS) return r;
  for (auto &e : tl_ctx_stack)
    if (e == c) e = nullptr;
  while (!tl_ctx_stack.empty() && !tl_ctx_stack.back()) tl_ctx_stack.pop_back();
  return CUDA_SUCCESS;
}
CU_EXPORT CUresult cuCtxDestroy(CUcontext ctx) { return cuCtxDestroy_v2(ctx); }

CU_EXPORT CUresult cuCtxGetCurrent(CUcontext *pctx) {
  NEED_INIT("cuCtxGetCurrent");
  if (!pctx) return fail("cuCtxGetCurrent", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  *pctx = reinterpret_cast<CUcontext>(current());
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx) {
  NEED_INIT("cuCtxSetCurrent");
  cu_ctx *c = reinterpret_cast<cu_ctx *>(ctx);
  if (c && !cucore_ctx_valid(c)) return fail("cuCtxSetCurrent", CUDA_ERROR_INVALID_CONTEXT, "not a live context");
  if (tl_ctx_stack.empty()) tl_ctx_stack.push_back(c);  // cannot be full
  else tl_ctx_stack.back() = c;
  if (!c) tl_ctx_stack.pop_back();
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
  NEED_INIT("cuCtxPushCurrent");
  cu_ctx *c = reinterpret_cast<cu_ctx *>(ctx);
  if (!c || !cucore_ctx_valid(c)) return fail("cuCtxPushCurrent", CUDA_ERROR_INVALID_CONTEXT, "not a live context");
  return push_context("cuCtxPushCurrent", c);
}
CU_EXPORT CUresult cuCtxPushCurrent(CUcontext ctx) { return cuCtxPushCurrent_v2(ctx); }

CU_EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *pctx) {
  NEED_INIT("cuCtxPopCurrent");
  if (tl_ctx_stack.empty()) return fail("cuCtxPopCurrent", CUDA_ERROR_INVALID_CONTEXT, "no context is current");
  if (pctx) *pctx = reinterpret_cast<CUcontext>(tl_ctx_stack.back());
  tl_ctx_stack.pop_back();
  return CUDA_SUCCESS;
}
CU_EXPORT CUresult cuCtxPopCurrent(CUcontext *pctx) { return cuCtxPopCurrent_v2(pctx); }

CU_EXPORT CUresult cuCtxGetDevice(CUdevice *device) {
  NEED_CONTEXT("cuCtxGetDevice");
  if (!device) return fail("cuCtxGetDevice", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  *device = 0;
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version) {
  NEED_INIT("cuCtxGetApiVersion");
  if (!version) return fail("cuCtxGetApiVersion", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_ctx *c = ctx ? reinterpret_cast<cu_ctx *>(ctx) : current();
  if (!c || !cucore_ctx_valid(c)) return fail("cuCtxGetApiVersion", CUDA_ERROR_INVALID_CONTEXT, "not a live context");
  *version = 13000;
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuCtxSynchronize(void) {
  NEED_CONTEXT("cuCtxSynchronize");
  return report("cuCtxSynchronize", cucore_synchronize());
}

CU_EXPORT CUresult cuCtxSetLimit(int limit, size_t value) {
  NEED_CONTEXT("cuCtxSetLimit");
  return report("cuCtxSetLimit", cucore_limit_set(limit, value));
}

CU_EXPORT CUresult cuCtxGetLimit(size_t *pvalue, int limit) {
  NEED_CONTEXT("cuCtxGetLimit");
  if (!pvalue) return fail("cuCtxGetLimit", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  uint64_t v = 0;
  CUresult r = report("cuCtxGetLimit", cucore_limit_get(limit, &v));
  if (r == CUDA_SUCCESS) *pvalue = (size_t)v;
  return r;
}

// CUDA 13's cuCtxGetDevice / cuCtxSynchronize name the context (NULL: the current one).
static cu_ctx *ctx_or_current(CUcontext ctx) { return ctx ? reinterpret_cast<cu_ctx *>(ctx) : current(); }

CU_EXPORT CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx) {
  NEED_INIT("cuCtxGetDevice");
  if (!device) return fail("cuCtxGetDevice", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_ctx *c = ctx_or_current(ctx);
  if (!c || !cucore_ctx_valid(c)) return fail("cuCtxGetDevice", CUDA_ERROR_INVALID_CONTEXT, "not a live context");
  *device = 0;
  return CUDA_SUCCESS;
}

// Contexts share the one device, so synchronising one waits for the device.
CU_EXPORT CUresult cuCtxSynchronize_v2(CUcontext ctx) {
  NEED_INIT("cuCtxSynchronize");
  cu_ctx *c = ctx_or_current(ctx);
  if (!c || !cucore_ctx_valid(c)) return fail("cuCtxSynchronize", CUDA_ERROR_INVALID_CONTEXT, "not a live context");
  return report("cuCtxSynchronize", cucore_synchronize());
}

CU_EXPORT CUresult cuCtxGetId(CUcontext ctx, unsigned long long *ctxId) {
  NEED_INIT("cuCtxGetId");
  if (!ctxId) return fail("cuCtxGetId", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_ctx *c = ctx_or_current(ctx);
  if (!c || !cucore_ctx_valid(c)) return fail("cuCtxGetId", CUDA_ERROR_INVALID_CONTEXT, "not a live context");
  *ctxId = (unsigned long long)reinterpret_cast<uintptr_t>(c);  // handles are serial numbers, never reused
  return CUDA_SUCCESS;
}

// Context flags (scheduling policy, CU_CTX_MAP_HOST …) are recorded by nothing: reported as 0.
CU_EXPORT CUresult cuCtxGetFlags(unsigned int *flags) {
  NEED_CONTEXT("cuCtxGetFlags");
  if (!flags) return fail("cuCtxGetFlags", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  *flags = 0;
  return CUDA_SUCCESS;
}
CU_EXPORT CUresult cuCtxSetFlags(unsigned int flags) {
  NEED_CONTEXT("cuCtxSetFlags");
  if (flags & ~0x1fu) return fail("cuCtxSetFlags", CUDA_ERROR_INVALID_VALUE, "unknown context flags");
  return CUDA_SUCCESS;
}

// Priorities are recorded, not scheduled: the range is [0, 0] (docs/driver.md).
CU_EXPORT CUresult cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority) {
  NEED_CONTEXT("cuCtxGetStreamPriorityRange");
  if (leastPriority) *leastPriority = 0;
  if (greatestPriority) *greatestPriority = 0;
  return CUDA_SUCCESS;
}

// Cache and shared-memory preferences are accepted and reported back (the GPU model's L1/shared
// split comes from its configuration).
static int g_cache_config = 0, g_smem_config = 0;
CU_EXPORT CUresult cuCtxGetCacheConfig(int *pconfig) {
  NEED_CONTEXT("cuCtxGetCacheConfig");
  if (!pconfig) return fail("cuCtxGetCacheConfig", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  *pconfig = g_cache_config;
  return CUDA_SUCCESS;
}
CU_EXPORT CUresult cuCtxSetCacheConfig(int config) {
  NEED_CONTEXT("cuCtxSetCacheConfig");
  if (config < 0 || config > 3) return fail("cuCtxSetCacheConfig", CUDA_ERROR_INVALID_VALUE, "unknown cache config");
  g_cache_config = config;
  return CUDA_SUCCESS;
}
CU_EXPORT CUresult cuCtxGetSharedMemConfig(int *pConfig) {
  NEED_CONTEXT("cuCtxGetSharedMemConfig");
  if (!pConfig) return fail("cuCtxGetSharedMemConfig", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  *pConfig = g_smem_config;
  return CUDA_SUCCESS;
}
CU_EXPORT CUresult cuCtxSetSharedMemConfig(int config) {
  NEED_CONTEXT("cuCtxSetSharedMemConfig");
  if (config < 0 || config > 2) return fail("cuCtxSetSharedMemConfig", CUDA_ERROR_INVALID_VALUE, "unknown bank size");
  g_smem_config = config;
  return CUDA_SUCCESS;
}
CU_EXPORT CUresult cuCtxResetPersistingL2Cache(void) {
  NEED_CONTEXT("cuCtxResetPersistingL2Cache");
  return CUDA_SUCCESS;  // nothing persists in the modelled L2 beyond ordinary caching
}

CU_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
  NEED_INIT("cuDevicePrimaryCtxRetain");
  if (!pctx) return fail("cuDevicePrimaryCtxRetain", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  CUresult r = check_device("cuDevicePrimaryCtxRetain", dev);
  if (r != CUDA_SUCCESS) return r;
  cu_ctx *c = nullptr;
  r = report("cuDevicePrimaryCtxRetain", cucore_primary_ctx(&c));
  if (r == CUDA_SUCCESS) *pctx = reinterpret_cast<CUcontext>(c);
  return r;
}

CU_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
  NEED_INIT("cuDevicePrimaryCtxRelease");
  return check_device("cuDevicePrimaryCtxRelease", dev);  // the primary context lives until reset
}
CU_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev) { return cuDevicePrimaryCtxRelease_v2(dev); }

CU_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) {
  NEED_INIT("cuDevicePrimaryCtxReset");
  CUresult r = check_device("cuDevicePrimaryCtxReset", dev);
  if (r != CUDA_SUCCESS) return r;
  if (cu_ctx *primary = cucore_primary_peek()) cuentry::context_storage_release(reinterpret_cast<CUcontext>(primary));
  return report("cuDevicePrimaryCtxReset", cucore_primary_reset());
}
CU_EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice dev) { return cuDevicePrimaryCtxReset_v2(dev); }

CU_EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active) {
  NEED_INIT("cuDevicePrimaryCtxGetState");
  if (!flags || !active) return fail("cuDevicePrimaryCtxGetState", CUDA_ERROR_INVALID_VALUE, "a result pointer is NULL");
  CUresult r = check_device("cuDevicePrimaryCtxGetState", dev);
  if (r != CUDA_SUCCESS) return r;
  *flags = 0;
  *active = cucore_primary_peek() != nullptr;
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags) {
  NEED_INIT("cuDevicePrimaryCtxSetFlags");
  (void)flags;
  return check_device("cuDevicePrimaryCtxSetFlags", dev);
}
CU_EXPORT CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags) {
  return cuDevicePrimaryCtxSetFlags_v2(dev, flags);
}

// ---- modules ---------------------------------------------------------------------------------------

CU_EXPORT CUresult cuModuleLoad(CUmodule *module, const char *fname) {
  NEED_CONTEXT("cuModuleLoad");
  if (!module) return fail("cuModuleLoad", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_module *m = nullptr;
  CUresult r = report("cuModuleLoad", cucore_module_load_file(current(), fname, &m));
  if (r == CUDA_SUCCESS) *module = reinterpret_cast<CUmodule>(m);
  return r;
}

CU_EXPORT CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  NEED_CONTEXT("cuModuleLoadData");
  if (!module) return fail("cuModuleLoadData", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_module *m = nullptr;
  CUresult r = report("cuModuleLoadData", cucore_module_load_image(current(), image, 0, "cuModuleLoadData image", &m));
  if (r == CUDA_SUCCESS) *module = reinterpret_cast<CUmodule>(m);
  return r;
}

// JIT options are accepted and ignored (there is no JIT: PTX is executed as it is); the log
// buffers are cleared so a program printing them prints nothing stale.
CU_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions, int *options,
                                      void **optionValues) {
  NEED_CONTEXT("cuModuleLoadDataEx");
  if (numOptions && (!options || !optionValues))
    return fail("cuModuleLoadDataEx", CUDA_ERROR_INVALID_VALUE, "options given without their arrays");
  for (unsigned i = 0; i < numOptions; i++) {
    // CU_JIT_INFO_LOG_BUFFER (3) / CU_JIT_ERROR_LOG_BUFFER (5) with their sizes (4 / 6).
    if ((options[i] == 3 || options[i] == 5) && optionValues[i]) {
      for (unsigned j = 0; j < numOptions; j++)
        if (options[j] == options[i] + 1 && (uintptr_t)optionValues[j] > 0) static_cast<char *>(optionValues[i])[0] = 0;
    }
  }
  if (!module) return fail("cuModuleLoadDataEx", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_module *m = nullptr;
  CUresult r = report("cuModuleLoadDataEx", cucore_module_load_image(current(), image, 0, "cuModuleLoadDataEx image", &m));
  if (r == CUDA_SUCCESS) *module = reinterpret_cast<CUmodule>(m);
  return r;
}

CU_EXPORT CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin) {
  NEED_CONTEXT("cuModuleLoadFatBinary");
  if (!module) return fail("cuModuleLoadFatBinary", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_module *m = nullptr;
  CUresult r = report("cuModuleLoadFatBinary", cucore_module_load_image(current(), fatCubin, 0, "fatbin", &m));
  if (r == CUDA_SUCCESS) *module = reinterpret_cast<CUmodule>(m);
  return r;
}

// The driver parses and places a module when it is loaded (no lazy loading inside the driver).
CU_EXPORT CUresult cuModuleGetLoadingMode(int *mode) {
  NEED_INIT("cuModuleGetLoadingMode");
  if (!mode) return fail("cuModuleGetLoadingMode", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  *mode = 1;  // CU_MODULE_EAGER_LOADING
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuModuleUnload(CUmodule hmod) {
  NEED_INIT("cuModuleUnload");
  return report("cuModuleUnload", cucore_module_unload(module_of(hmod)));
}

CU_EXPORT CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name) {
  NEED_CONTEXT("cuModuleGetFunction");
  if (!hfunc) return fail("cuModuleGetFunction", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_function *f = nullptr;
  CUresult r = report("cuModuleGetFunction", cucore_module_function(module_of(hmod), name, &f));
  if (r == CUDA_SUCCESS) *hfunc = reinterpret_cast<CUfunction>(f);
  return r;
}

CU_EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name) {
  NEED_CONTEXT("cuModuleGetGlobal");
  uint64_t a = 0, n = 0;
  CUresult r = report("cuModuleGetGlobal", cucore_module_global(module_of(hmod), name, &a, &n));
  if (r == CUDA_SUCCESS) {
    if (dptr) *dptr = a;
    if (bytes) *bytes = (size_t)n;
  }
  return r;
}

// ---- functions and launches --------------------------------------------------------------------------

CU_EXPORT CUresult cuFuncGetAttribute(int *pi, int attrib, CUfunction hfunc) {
  NEED_CONTEXT("cuFuncGetAttribute");
  if (!pi) return fail("cuFuncGetAttribute", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  drv_function_attrs at;
  uint32_t max_dyn = 0;
  CUresult r = report("cuFuncGetAttribute", cucore_function_attrs(function_of(hfunc), &at, &max_dyn));
  if (r != CUDA_SUCCESS) return r;
  const drv_device_props *p = cucore_props();
  switch (attrib) {
    case 0: *pi = (int)at.max_threads_per_block; break;
    case 1: *pi = (int)at.static_smem_bytes; break;
    case 2: *pi = (int)at.const_bytes; break;
    case 3: *pi = (int)at.local_bytes; break;
    case 4: *pi = (int)at.regs_per_thread; break;
    case 5: *pi = (int)at.target_sm; break;
    case 6: *pi = (int)(p->cc_major * 10 + p->cc_minor); break;
    case 7: *pi = 0; break;
    case 8: *pi = (int)max_dyn; break;
    case 9: *pi = -1; break;
    case 10: case 11: case 12: case 13: {  // cluster size must be set, required cluster width/height/depth
      uint32_t dims[3] = {0, 0, 0};
      int must = cucore_function_cluster_dims(function_of(hfunc), dims);
      *pi = attrib == 10 ? (must && !dims[0]) : (int)dims[attrib - 11];
      break;
    }
    case 14: case 15: *pi = 0; break;
    default: return fail("cuFuncGetAttribute", CUDA_ERROR_INVALID_VALUE, "unknown function attribute");
  }
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuFuncSetAttribute(CUfunction hfunc, int attrib, int value) {
  NEED_CONTEXT("cuFuncSetAttribute");
  if (!cucore_function_valid(function_of(hfunc)))
    return fail("cuFuncSetAttribute", CUDA_ERROR_INVALID_HANDLE, "not a loaded kernel");
  if (attrib == 8) {
    if (value < 0) return fail("cuFuncSetAttribute", CUDA_ERROR_INVALID_VALUE, "negative shared memory size");
    return report("cuFuncSetAttribute", cucore_function_set_max_dynamic_smem(function_of(hfunc), (uint32_t)value));
  }
  if (attrib == 9) {
    if (value < -1 || value > 100) return fail("cuFuncSetAttribute", CUDA_ERROR_INVALID_VALUE, "carveout outside -1..100");
    return CUDA_SUCCESS;
  }
  if (attrib == 14)  // CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
    return report("cuFuncSetAttribute", cucore_function_allow_nonportable_cluster(function_of(hfunc), value != 0));
  if (attrib == 15) return CUDA_SUCCESS;  // cluster scheduling policy: a hint
  return fail("cuFuncSetAttribute", CUDA_ERROR_NOT_SUPPORTED, "this function attribute cannot be set on simtvp");
}

CU_EXPORT CUresult cuFuncSetCacheConfig(CUfunction hfunc, int config) {
  NEED_CONTEXT("cuFuncSetCacheConfig");
  if (!cucore_function_valid(function_of(hfunc)))
    return fail("cuFuncSetCacheConfig", CUDA_ERROR_INVALID_HANDLE, "not a loaded kernel");
  if (config < 0 || config > 3) return fail("cuFuncSetCacheConfig", CUDA_ERROR_INVALID_VALUE, "unknown cache config");
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuFuncGetName(const char **name, CUfunction hfunc) {
  NEED_INIT("cuFuncGetName");
  if (!name) return fail("cuFuncGetName", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  const char *n = cucore_function_name(function_of(hfunc));
  if (!n) return fail("cuFuncGetName", CUDA_ERROR_INVALID_HANDLE, "not a loaded kernel");
  *name = n;
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuFuncGetModule(CUmodule *hmod, CUfunction hfunc) {
  NEED_INIT("cuFuncGetModule");
  if (!hmod) return fail("cuFuncGetModule", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_module *m = cucore_function_module(function_of(hfunc));
  if (!m) return fail("cuFuncGetModule", CUDA_ERROR_INVALID_HANDLE, "not a loaded kernel");
  *hmod = reinterpret_cast<CUmodule>(m);
  return CUDA_SUCCESS;
}

static CUresult launch(const char *api, CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                       unsigned bz, unsigned smem, CUstream stream, void **kernelParams, void **extra,
                       const uint32_t *cluster = nullptr) {
  NEED_CONTEXT(api);
  const void *buffer = nullptr;
  size_t buffer_bytes = 0;
  if (extra) {
    if (kernelParams) return fail(api, CUDA_ERROR_INVALID_VALUE, "both kernelParams and extra are given");
    bool have_size = false;
    for (size_t i = 0; extra[i] != nullptr; i += 2) {  // CU_LAUNCH_PARAM_END
      if (i > 64) return fail(api, CUDA_ERROR_INVALID_VALUE, "extra is not terminated by CU_LAUNCH_PARAM_END");
      if (extra[i] == reinterpret_cast<void *>(1)) buffer = extra[i + 1];  // CU_LAUNCH_PARAM_BUFFER_POINTER
      else if (extra[i] == reinterpret_cast<void *>(2)) {                  // CU_LAUNCH_PARAM_BUFFER_SIZE
        if (!extra[i + 1]) return fail(api, CUDA_ERROR_INVALID_VALUE, "CU_LAUNCH_PARAM_BUFFER_SIZE without a size");
        buffer_bytes = *static_cast<size_t *>(extra[i + 1]);
        have_size = true;
      } else {
        return fail(api, CUDA_ERROR_INVALID_VALUE, "unknown entry in extra");
      }
    }
    if (!buffer || !have_size)
      return fail(api, CUDA_ERROR_INVALID_VALUE, "extra needs CU_LAUNCH_PARAM_BUFFER_POINTER and _SIZE");
  }
  uint32_t g[3] = {gx, gy, gz}, b[3] = {bx, by, bz};
  static const uint32_t no_cluster[3] = {0, 0, 0};
  return report(api, cucore_launch_cluster(function_of(f), g, b, cluster ? cluster : no_cluster, smem,
                                           stream_of(stream), kernelParams, buffer, buffer_bytes));
}

// CUlaunchConfig / CUlaunchAttribute of cuda.h (CUDA 12+): the attribute value is a 64-byte union
// at offset 8; CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION's value is {x, y, z}.
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int cooperative;
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
};
struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes;
  CUstream hStream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};

static CUresult launch_ex(const char *api, const LaunchConfig *c, CUfunction f, void **kernelParams, void **extra,
                          bool ptsz) {
  NEED_CONTEXT(api);
  if (!c) return fail(api, CUDA_ERROR_INVALID_VALUE, "the launch configuration is NULL");
  if (c->numAttrs && !c->attrs) return fail(api, CUDA_ERROR_INVALID_VALUE, "numAttrs without attrs");
  uint32_t cluster[3] = {0, 0, 0};
  bool cooperative = false;
  for (unsigned i = 0; i < c->numAttrs; i++) {
    const LaunchAttribute &a = c->attrs[i];
    switch (a.id) {
      case 0: case 1: case 3: case 5: case 8: break;  // ignore, access policy, sync policy, scheduling, priority
      case 2: cooperative = a.value.cooperative != 0; break;
      case 4:  // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
        if (!a.value.clusterDim.x || !a.value.clusterDim.y || !a.value.clusterDim.z)
          return fail(api, CUDA_ERROR_INVALID_CLUSTER_SIZE, "a cluster dimension is zero");
        cluster[0] = a.value.clusterDim.x, cluster[1] = a.value.clusterDim.y, cluster[2] = a.value.clusterDim.z;
        break;
      default: {
        char why[80];
        std::snprintf(why, sizeof why, "launch attribute %d is not supported by simtvp", a.id);
        return fail(api, CUDA_ERROR_NOT_SUPPORTED, why);
      }
    }
  }
  if (cooperative) {
    uint32_t per_sm = 0;
    uint64_t threads = (uint64_t)c->blockDimX * c->blockDimY * c->blockDimZ;
    int r = cucore_occupancy(function_of(f), threads > UINT32_MAX ? UINT32_MAX : (uint32_t)threads, c->sharedMemBytes,
                             &per_sm);
    if (r == CUDA_SUCCESS && per_sm &&
        (uint64_t)c->gridDimX * c->gridDimY * c->gridDimZ > (uint64_t)per_sm * cucore_props()->sm_count)
      return fail(api, CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "the grid's blocks cannot all be resident at once");
  }
  CUstream st = c->hStream;
  if (ptsz && !st) st = reinterpret_cast<CUstream>(CU_STREAM_PER_THREAD);
  return launch(api, f, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ,
                c->sharedMemBytes, st, kernelParams, extra, cluster);
}

CU_EXPORT CUresult cuLaunchKernelEx(const LaunchConfig *config, CUfunction f, void **kernelParams, void **extra) {
  return launch_ex("cuLaunchKernelEx", config, f, kernelParams, extra, false);
}
CU_EXPORT CUresult cuLaunchKernelEx_ptsz(const LaunchConfig *config, CUfunction f, void **kernelParams, void **extra) {
  return launch_ex("cuLaunchKernelEx_ptsz", config, f, kernelParams, extra, true);
}

// cuTensorMapEncodeTiled (CUDA 12+): simtvp's tensor-map layout (models/func/func_tensormap.h).
CU_EXPORT CUresult cuTensorMapEncodeTiled(void *tensorMap, int tensorDataType, unsigned tensorRank, void *globalAddress,
                                          const uint64_t *globalDim, const uint64_t *globalStrides,
                                          const unsigned *boxDim, const unsigned *elementStrides, int interleave,
                                          int swizzle, int l2Promotion, int oobFill) {
  NEED_INIT("cuTensorMapEncodeTiled");
  return report("cuTensorMapEncodeTiled",
                cucore_tensor_map_encode_tiled(tensorMap, (uint32_t)tensorDataType, tensorRank,
                                               (uint64_t)(uintptr_t)globalAddress, globalDim, globalStrides, boxDim,
                                               elementStrides, (uint32_t)interleave, (uint32_t)swizzle,
                                               (uint32_t)l2Promotion, (uint32_t)oobFill));
}

CU_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                                  unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                                  unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra) {
  return launch("cuLaunchKernel", f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes,
                hStream, kernelParams, extra);
}
CU_EXPORT CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                       unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                       unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                       void **kernelParams, void **extra) {
  return launch("cuLaunchKernel_ptsz", f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes,
                hStream ? hStream : reinterpret_cast<CUstream>(CU_STREAM_PER_THREAD), kernelParams, extra);
}

CU_EXPORT CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                             unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                             unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                             void **kernelParams) {
  NEED_CONTEXT("cuLaunchCooperativeKernel");
  uint32_t per_sm = 0;
  uint64_t threads = (uint64_t)blockDimX * blockDimY * blockDimZ;
  int r = cucore_occupancy(function_of(f), threads > UINT32_MAX ? UINT32_MAX : (uint32_t)threads, sharedMemBytes, &per_sm);
  uint64_t blocks = (uint64_t)gridDimX * gridDimY * gridDimZ;
  if (r == CUDA_SUCCESS && per_sm && blocks > (uint64_t)per_sm * cucore_props()->sm_count)
    return fail("cuLaunchCooperativeKernel", CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
                "the grid's blocks cannot all be resident at once");
  return launch("cuLaunchCooperativeKernel", f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                sharedMemBytes, hStream, kernelParams, nullptr);
}

CU_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, CUfunction func, int blockSize,
                                                                        size_t dynamicSMemSize, unsigned int flags) {
  NEED_CONTEXT("cuOccupancyMaxActiveBlocksPerMultiprocessor");
  if (!numBlocks || blockSize <= 0 || (flags & ~1u))
    return fail("cuOccupancyMaxActiveBlocksPerMultiprocessor", CUDA_ERROR_INVALID_VALUE, "bad argument");
  uint32_t n = 0;
  CUresult r = report("cuOccupancyMaxActiveBlocksPerMultiprocessor",
                      cucore_occupancy(function_of(func), (uint32_t)blockSize,
                                       dynamicSMemSize > UINT32_MAX ? UINT32_MAX : (uint32_t)dynamicSMemSize, &n));
  if (r == CUDA_SUCCESS) *numBlocks = (int)n;
  return r;
}
CU_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize,
                                                               size_t dynamicSMemSize) {
  return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, 0);
}

// ---- memory ---------------------------------------------------------------------------------------

CU_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize) {
  NEED_CONTEXT("cuMemAlloc");
  if (!dptr) return fail("cuMemAlloc", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  if (bytesize == 0) return fail("cuMemAlloc", CUDA_ERROR_INVALID_VALUE, "size 0");
  uint64_t a = 0;
  CUresult r = report("cuMemAlloc", cucore_mem_alloc(current(), bytesize, &a));
  if (r == CUDA_SUCCESS) *dptr = a;
  return r;
}

CU_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr) {
  NEED_CONTEXT("cuMemFree");
  return report("cuMemFree", cucore_mem_free(dptr));
}

CU_EXPORT CUresult cuMemGetInfo_v2(size_t *free, size_t *total) {
  NEED_CONTEXT("cuMemGetInfo");
  uint64_t f = 0, t = 0;
  CUresult r = report("cuMemGetInfo", cucore_mem_info(&f, &t));
  if (r == CUDA_SUCCESS) {
    if (free) *free = (size_t)f;
    if (total) *total = (size_t)t;
  }
  return r;
}

CU_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes, size_t Height,
                                      unsigned int ElementSizeBytes) {
  NEED_CONTEXT("cuMemAllocPitch");
  if (!dptr || !pPitch || WidthInBytes == 0 || Height == 0 ||
      (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
    return fail("cuMemAllocPitch", CUDA_ERROR_INVALID_VALUE, "bad argument");
  size_t pitch = (WidthInBytes + 511) / 512 * 512;
  uint64_t a = 0;
  CUresult r = report("cuMemAllocPitch", cucore_mem_alloc(current(), (uint64_t)pitch * Height, &a));
  if (r == CUDA_SUCCESS) {
    *dptr = a;
    *pPitch = pitch;
  }
  return r;
}

CU_EXPORT CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr) {
  NEED_CONTEXT("cuMemGetAddressRange");
  cu_mem_info info;
  cucore_mem_classify(dptr, &info);
  if (info.type != CU_MEM_DEVICE && info.type != CU_MEM_MANAGED)
    return fail("cuMemGetAddressRange", CUDA_ERROR_NOT_FOUND, "the address is not in a device allocation");
  if (pbase) *pbase = info.base;
  if (psize) *psize = (size_t)info.size;
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t bytesize) {
  NEED_CONTEXT("cuMemAllocHost");
  if (!pp) return fail("cuMemAllocHost", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  return report("cuMemAllocHost", cucore_host_alloc(current(), bytesize, 0, pp));
}

CU_EXPORT CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags) {
  NEED_CONTEXT("cuMemHostAlloc");
  if (!pp || (Flags & ~7u)) return fail("cuMemHostAlloc", CUDA_ERROR_INVALID_VALUE, "bad argument");
  return report("cuMemHostAlloc", cucore_host_alloc(current(), bytesize, Flags, pp));
}

CU_EXPORT CUresult cuMemFreeHost(void *p) {
  NEED_CONTEXT("cuMemFreeHost");
  return report("cuMemFreeHost", cucore_host_free(p));
}

CU_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags) {
  NEED_CONTEXT("cuMemAllocManaged");
  if (!dptr || bytesize == 0 || (flags != 1 && flags != 2))
    return fail("cuMemAllocManaged", CUDA_ERROR_INVALID_VALUE, "bad argument");
  uint64_t a = 0;
  CUresult r = report("cuMemAllocManaged", cucore_managed_alloc(current(), bytesize, flags, &a));
  if (r == CUDA_SUCCESS) *dptr = a;
  return r;
}

// ---- unified memory hints (docs/vm.md "Unified memory") ----------------------------------------
// CUmemLocation {type, id}: CU_MEM_LOCATION_TYPE_DEVICE 1 (id: the device), HOST 2, HOST_NUMA 3,
// HOST_NUMA_CURRENT 4; the legacy forms name a CUdevice, CU_DEVICE_CPU (-1) for the host.
struct MemLocation {
  int type, id;
};

// fail() with a formatted message.
__attribute__((format(printf, 3, 4))) static CUresult failf(const char *api, int code, const char *fmt, ...) {
  char m[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m, sizeof m, fmt, ap);
  va_end(ap);
  return fail(api, code, m);
}

static CUresult location_side(const char *api, int type, int id, bool *to_device) {
  if ((type == 1 && id == -1) || (type >= 2 && type <= 4)) {
    *to_device = false;
    return CUDA_SUCCESS;
  }
  if (type == 1) {
    if (id != 0) return failf(api, CUDA_ERROR_INVALID_DEVICE, "device %d does not exist (one device, 0)", id);
    *to_device = true;
    return CUDA_SUCCESS;
  }
  return failf(api, CUDA_ERROR_INVALID_VALUE, "memory location type %d is not a device or the host", type);
}

static CUresult prefetch(const char *api, CUdeviceptr p, size_t count, int type, int id, unsigned flags, CUstream s) {
  NEED_CONTEXT(api);
  if (!p) return fail(api, CUDA_ERROR_INVALID_VALUE, "the pointer is NULL");
  if (flags) return failf(api, CUDA_ERROR_INVALID_VALUE, "flags must be 0 (got 0x%x)", flags);
  bool dev = false;
  CUresult r = location_side(api, type, id, &dev);
  if (r != CUDA_SUCCESS) return r;
  return report(api, cucore_mem_prefetch(p, count, dev, stream_of(s)));
}

// CU_MEM_ADVISE_SET_READ_MOSTLY 1, UNSET 2, SET_PREFERRED_LOCATION 3, UNSET 4, SET_ACCESSED_BY 5,
// UNSET 6 (cudaMemoryAdvise's numbering).
static CUresult advise(const char *api, CUdeviceptr p, size_t count, int advice, int type, int id) {
  NEED_CONTEXT(api);
  if (!p) return fail(api, CUDA_ERROR_INVALID_VALUE, "the pointer is NULL");
  if (advice < 1 || advice > 6) return failf(api, CUDA_ERROR_INVALID_VALUE, "advice %d is not a CUmem_advise value", advice);
  int a = advice == 1 ? DRV_UM_ADVISE_READ_MOSTLY : advice == 2 ? DRV_UM_ADVISE_UNSET_READ_MOSTLY : DRV_UM_ADVISE_UNSET_PREFERRED;
  if (advice == 3 || advice == 5 || advice == 6) {
    bool dev = false;
    CUresult r = location_side(api, type, id, &dev);
    if (r != CUDA_SUCCESS) return r;
    a = advice == 3 ? (dev ? DRV_UM_ADVISE_PREFER_GPU : DRV_UM_ADVISE_PREFER_HOST)
        : advice == 5 ? (dev ? DRV_UM_ADVISE_ACCESSED_BY_GPU : DRV_UM_ADVISE_ACCESSED_BY_HOST)
                      : (dev ? DRV_UM_ADVISE_UNSET_ACCESSED_BY_GPU : DRV_UM_ADVISE_UNSET_ACCESSED_BY_HOST);
  }
  return report(api, cucore_mem_advise(p, count, a));
}

CU_EXPORT CUresult cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count, int dstDevice, CUstream hStream) {
  return prefetch("cuMemPrefetchAsync", devPtr, count, 1, dstDevice, 0, hStream);
}
CU_EXPORT CUresult cuMemPrefetchAsync_ptsz(CUdeviceptr devPtr, size_t count, int dstDevice, CUstream hStream) {
  return prefetch("cuMemPrefetchAsync", devPtr, count, 1, dstDevice, 0, reinterpret_cast<CUstream>(stream_ptsz(hStream)));
}
CU_EXPORT CUresult cuMemPrefetchAsync_v2(CUdeviceptr devPtr, size_t count, MemLocation location, unsigned int flags,
                                         CUstream hStream) {
  return prefetch("cuMemPrefetchAsync", devPtr, count, location.type, location.id, flags, hStream);
}
CU_EXPORT CUresult cuMemPrefetchAsync_v2_ptsz(CUdeviceptr devPtr, size_t count, MemLocation location,
                                              unsigned int flags, CUstream hStream) {
  return prefetch("cuMemPrefetchAsync", devPtr, count, location.type, location.id, flags,
                  reinterpret_cast<CUstream>(stream_ptsz(hStream)));
}
CU_EXPORT CUresult cuMemAdvise(CUdeviceptr devPtr, size_t count, int advice, int device) {
  return advise("cuMemAdvise", devPtr, count, advice, 1, device);
}
CU_EXPORT CUresult cuMemAdvise_v2(CUdeviceptr devPtr, size_t count, int advice, MemLocation location) {
  return advise("cuMemAdvise", devPtr, count, advice, location.type, location.id);
}
// CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY 1, PREFERRED_LOCATION 2 (device, -1 host, -2 none),
// ACCESSED_BY 3 (array), LAST_PREFETCH_LOCATION 4, then the location type/id forms 5..8.
CU_EXPORT CUresult cuMemRangeGetAttribute(void *data, size_t dataSize, int attribute, CUdeviceptr devPtr,
                                          size_t count) {
  const char *api = "cuMemRangeGetAttribute";
  NEED_CONTEXT(api);
  if (!data || !devPtr) return fail(api, CUDA_ERROR_INVALID_VALUE, "a pointer is NULL");
  if (attribute < 1 || attribute > 8) return failf(api, CUDA_ERROR_INVALID_VALUE, "attribute %d is not supported", attribute);
  if (dataSize < 4 || dataSize % 4 || (attribute != 3 && dataSize != 4))
    return failf(api, CUDA_ERROR_INVALID_VALUE, "dataSize %zu does not fit attribute %d", dataSize, attribute);
  drv_um_range_info_t info;
  CUresult r = report(api, cucore_mem_range_info(devPtr, count, &info));
  if (r != CUDA_SUCCESS) return r;
  int *out = static_cast<int *>(data);
  int pref = info.preferred == DRV_UM_GPU ? 0 : info.preferred == DRV_UM_HOST ? -1 : -2;
  int last = info.last_loc == DRV_UM_GPU ? 0 : info.last_loc == DRV_UM_NOWHERE ? -2 : -1;
  switch (attribute) {
    case 1: *out = info.read_mostly; break;
    case 2: *out = pref; break;
    case 3: {
      size_t n = dataSize / 4, k = 0;
      for (size_t i = 0; i < n; i++) out[i] = -2;
      if ((info.accessed_by & 2u) && k < n) out[k++] = 0;
      if ((info.accessed_by & 1u) && k < n) out[k++] = -1;
      break;
    }
    case 4: *out = last; break;
    case 5: *out = pref == 0 ? 1 : pref == -1 ? 2 : 0; break;  // CU_MEM_LOCATION_TYPE_*
    case 6: *out = pref == 0 ? 0 : -1; break;
    case 7: *out = last == 0 ? 1 : last == -1 ? 2 : 0; break;
    case 8: *out = last == 0 ? 0 : -1; break;
  }
  return CUDA_SUCCESS;
}
CU_EXPORT CUresult cuMemRangeGetAttributes(void **data, size_t *dataSizes, int *attributes, size_t numAttributes,
                                           CUdeviceptr devPtr, size_t count) {
  if (!data || !dataSizes || !attributes || !numAttributes)
    return fail("cuMemRangeGetAttributes", CUDA_ERROR_INVALID_VALUE, "an array is NULL or empty");
  for (size_t i = 0; i < numAttributes; i++) {
    CUresult r = cuMemRangeGetAttribute(data[i], dataSizes[i], attributes[i], devPtr, count);
    if (r != CUDA_SUCCESS) return r;
  }
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags) {
  NEED_CONTEXT("cuMemHostGetDevicePointer");
  if (!pdptr) return fail("cuMemHostGetDevicePointer", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  if (Flags) return fail("cuMemHostGetDevicePointer", CUDA_ERROR_INVALID_VALUE, "Flags must be 0");
  uint64_t d = 0;
  CUresult r = report("cuMemHostGetDevicePointer", cucore_host_device_pointer(p, &d));
  if (r == CUDA_SUCCESS) *pdptr = d;
  return r;
}
CU_EXPORT CUresult cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p, unsigned int Flags) {
  return cuMemHostGetDevicePointer_v2(pdptr, p, Flags);
}

CU_EXPORT CUresult cuMemHostGetFlags(unsigned int *pFlags, void *p) {
  NEED_CONTEXT("cuMemHostGetFlags");
  if (!pFlags) return fail("cuMemHostGetFlags", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_mem_info info;
  cucore_mem_classify(reinterpret_cast<uint64_t>(p), &info);
  if (info.type != CU_MEM_PINNED) {
    cucore_fail(CUDA_ERROR_INVALID_VALUE, "%p is not page-locked host memory", p);
    return report("cuMemHostGetFlags", CUDA_ERROR_INVALID_VALUE);
  }
  *pFlags = info.flags;
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags) {
  NEED_CONTEXT("cuMemHostRegister");
  if (Flags & ~0xfu) return fail("cuMemHostRegister", CUDA_ERROR_INVALID_VALUE, "unknown flags");
  if (Flags & 0x4u)  // CU_MEMHOSTREGISTER_IOMEMORY
    return fail("cuMemHostRegister", CUDA_ERROR_NOT_SUPPORTED, "registering I/O memory is not supported by simtvp");
  return report("cuMemHostRegister", cucore_host_register(p, bytesize, Flags));
}
CU_EXPORT CUresult cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags) {
  return cuMemHostRegister_v2(p, bytesize, Flags);
}
CU_EXPORT CUresult cuMemHostUnregister(void *p) {
  NEED_CONTEXT("cuMemHostUnregister");
  return report("cuMemHostUnregister", cucore_host_unregister(p));
}

// Stream-ordered allocation: the memory is allocated at once (valid in stream order too); the
// free waits for the stream's earlier work, which may still use it.
static CUresult mem_alloc_async(const char *api, CUdeviceptr *dptr, size_t bytesize, cu_stream *stream) {
  NEED_CONTEXT(api);
  if (!dptr) return fail(api, CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  CUresult r = report(api, cucore_stream_check(stream));
  if (r != CUDA_SUCCESS) return r;
  uint64_t a = 0;
  r = report(api, cucore_mem_alloc(current(), bytesize, &a));
  if (r == CUDA_SUCCESS) *dptr = a;
  return r;
}
static CUresult mem_free_async(const char *api, CUdeviceptr dptr, cu_stream *stream) {
  NEED_CONTEXT(api);
  CUresult r = report(api, cucore_stream_sync(stream));
  return r != CUDA_SUCCESS ? r : report(api, cucore_mem_free(dptr));
}
CU_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream) {
  return mem_alloc_async("cuMemAllocAsync", dptr, bytesize, stream_of(hStream));
}
CU_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream) {
  return mem_alloc_async("cuMemAllocAsync", dptr, bytesize, stream_ptsz(hStream));
}
CU_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream) {
  return mem_free_async("cuMemFreeAsync", dptr, stream_of(hStream));
}
CU_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream) {
  return mem_free_async("cuMemFreeAsync", dptr, stream_ptsz(hStream));
}

CU_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount) {
  return copy("cuMemcpyHtoD", device_side(dstDevice), host_side(srcHost), ByteCount, nullptr, true);
}
CU_EXPORT CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  return copy("cuMemcpyDtoH", host_side(dstHost), device_side(srcDevice), ByteCount, nullptr, true);
}
CU_EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) {
  return copy("cuMemcpyDtoD", device_side(dstDevice), device_side(srcDevice), ByteCount, nullptr, true);
}
CU_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream) {
  return copy("cuMemcpyHtoDAsync", device_side(dstDevice), host_side(srcHost), ByteCount, hStream, false);
}
CU_EXPORT CUresult cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) {
  return copy("cuMemcpyDtoHAsync", host_side(dstHost), device_side(srcDevice), ByteCount, hStream, false);
}
CU_EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) {
  return copy("cuMemcpyDtoDAsync", device_side(dstDevice), device_side(srcDevice), ByteCount, hStream, false);
}
// Unified addressing: either side may be host, pinned, device or managed memory.
CU_EXPORT CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
  return copy("cuMemcpy", host_side(reinterpret_cast<void *>(dst)), host_side(reinterpret_cast<void *>(src)), ByteCount,
              nullptr, true);
}
CU_EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream) {
  return copy("cuMemcpyAsync", host_side(reinterpret_cast<void *>(dst)), host_side(reinterpret_cast<void *>(src)),
              ByteCount, hStream, false);
}

// Memsets of device memory are asynchronous with respect to the host (CUDA's memset
// synchronisation rules), the forms without a stream included: they are ordered on the NULL stream.
CU_EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  return memset("cuMemsetD8", dstDevice, uc, 1, N, nullptr, false);
}
CU_EXPORT CUresult cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N) {
  return memset("cuMemsetD16", dstDevice, us, 2, N, nullptr, false);
}
CU_EXPORT CUresult cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N) {
  return memset("cuMemsetD32", dstDevice, ui, 4, N, nullptr, false);
}
CU_EXPORT CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream) {
  return memset("cuMemsetD8Async", dstDevice, uc, 1, N, hStream, false);
}
CU_EXPORT CUresult cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream) {
  return memset("cuMemsetD16Async", dstDevice, us, 2, N, hStream, false);
}
CU_EXPORT CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream) {
  return memset("cuMemsetD32Async", dstDevice, ui, 4, N, hStream, false);
}
CU_EXPORT CUresult cuMemsetD2D8_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height) {
  return memset_2d("cuMemsetD2D8", dstDevice, dstPitch, uc, 1, Width, Height, nullptr, false);
}
CU_EXPORT CUresult cuMemsetD2D16_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width,
                                    size_t Height) {
  return memset_2d("cuMemsetD2D16", dstDevice, dstPitch, us, 2, Width, Height, nullptr, false);
}
CU_EXPORT CUresult cuMemsetD2D32_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width,
                                    size_t Height) {
  return memset_2d("cuMemsetD2D32", dstDevice, dstPitch, ui, 4, Width, Height, nullptr, false);
}

CU_EXPORT CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr ptr) {
  NEED_INIT("cuPointerGetAttribute");
  if (!data) return fail("cuPointerGetAttribute", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_mem_info info;
  cucore_mem_classify(ptr, &info);
  if (info.type == CU_MEM_PAGEABLE)
    return fail("cuPointerGetAttribute", CUDA_ERROR_INVALID_VALUE, "the pointer is not memory the driver allocated");
  switch (attribute) {
    case 1: *static_cast<CUcontext *>(data) = reinterpret_cast<CUcontext>(current()); return CUDA_SUCCESS;
    case 2: *static_cast<unsigned *>(data) = info.type == CU_MEM_PINNED ? 1 : 2; return CUDA_SUCCESS;
    case 3:
      if (info.type == CU_MEM_PINNED) {  // zero-copy: the device address, mapped now if need be
        uint64_t d = 0;
        CUresult r = report("cuPointerGetAttribute", cucore_host_device_pointer(reinterpret_cast<void *>(ptr), &d));
        if (r == CUDA_SUCCESS) *static_cast<CUdeviceptr *>(data) = d;
        return r;
      }
      *static_cast<CUdeviceptr *>(data) = ptr;
      return CUDA_SUCCESS;
    case 4:
      if (info.type == CU_MEM_DEVICE) return fail("cuPointerGetAttribute", CUDA_ERROR_INVALID_VALUE, "device memory has no host address");
      *static_cast<void **>(data) = reinterpret_cast<void *>(ptr);
      return CUDA_SUCCESS;
    case 8: *static_cast<int *>(data) = info.type == CU_MEM_MANAGED; return CUDA_SUCCESS;
    case 9: *static_cast<int *>(data) = 0; return CUDA_SUCCESS;
    case 11: *static_cast<CUdeviceptr *>(data) = info.base; return CUDA_SUCCESS;
    case 12: *static_cast<size_t *>(data) = (size_t)info.size; return CUDA_SUCCESS;
    default: return fail("cuPointerGetAttribute", CUDA_ERROR_NOT_SUPPORTED, "this pointer attribute is not supported by simtvp");
  }
}

CU_EXPORT CUresult cuPointerGetAttributes(unsigned int numAttributes, int *attributes, void **data, CUdeviceptr ptr) {
  NEED_INIT("cuPointerGetAttributes");
  if (numAttributes && (!attributes || !data))
    return fail("cuPointerGetAttributes", CUDA_ERROR_INVALID_VALUE, "attributes given without their arrays");
  cu_mem_info info;
  cucore_mem_classify(ptr, &info);
  for (unsigned i = 0; i < numAttributes; i++) {
    void *out = data[i];
    if (!out) continue;
    switch (attributes[i]) {
      // Unlike the single query, an address the driver does not know is not an error here: its
      // attributes read as "unregistered host memory".
      case 1: *static_cast<CUcontext *>(out) = info.type == CU_MEM_PAGEABLE ? nullptr : reinterpret_cast<CUcontext>(current()); break;
      case 2: *static_cast<unsigned *>(out) = info.type == CU_MEM_PAGEABLE ? 0 : info.type == CU_MEM_PINNED ? 1 : 2; break;
      case 3:
        *static_cast<CUdeviceptr *>(out) =
            info.type == CU_MEM_PINNED && info.device ? info.device + (ptr - info.base)  // registered: its window
            : info.type == CU_MEM_DEVICE || info.type == CU_MEM_MANAGED || (info.type == CU_MEM_PINNED && (info.flags & 2u))
                ? ptr : 0;
        break;
      case 4: *static_cast<void **>(out) = info.type == CU_MEM_PINNED || info.type == CU_MEM_MANAGED ? reinterpret_cast<void *>(ptr) : nullptr; break;
      case 6: *static_cast<int *>(out) = 1; break;  // CU_POINTER_ATTRIBUTE_SYNC_MEMOPS
      case 7: *static_cast<unsigned long long *>(out) = info.type == CU_MEM_PAGEABLE ? 0 : info.base; break;  // BUFFER_ID
      case 8: *static_cast<int *>(out) = info.type == CU_MEM_MANAGED; break;
      case 9: *static_cast<int *>(out) = info.type == CU_MEM_PAGEABLE ? -2 : 0; break;  // DEVICE_ORDINAL
      case 10: *static_cast<int *>(out) = 0; break;  // IS_LEGACY_CUDA_IPC_CAPABLE
      case 11: *static_cast<CUdeviceptr *>(out) = info.type == CU_MEM_PAGEABLE ? 0 : info.base; break;
      case 12: *static_cast<size_t *>(out) = info.type == CU_MEM_PAGEABLE ? 0 : (size_t)info.size; break;
      case 13: *static_cast<int *>(out) = info.type != CU_MEM_PAGEABLE; break;  // MAPPED
      case 15: *static_cast<unsigned long long *>(out) = 0; break;  // ALLOWED_HANDLE_TYPES
      case 16: *static_cast<int *>(out) = 0; break;  // IS_GPU_DIRECT_RDMA_CAPABLE
      case 17: *static_cast<unsigned *>(out) = 3; break;  // ACCESS_FLAGS: read-write
      case 18: *static_cast<void **>(out) = nullptr; break;  // MEMPOOL_HANDLE
      default:
        cucore_fail(CUDA_ERROR_INVALID_VALUE, "pointer attribute %d is not supported by simtvp", attributes[i]);
        return report("cuPointerGetAttributes", CUDA_ERROR_INVALID_VALUE);
    }
  }
  return CUDA_SUCCESS;
}

// ---- streams and events ----------------------------------------------------------------------------

CU_EXPORT CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags) {
  NEED_CONTEXT("cuStreamCreate");
  if (!phStream) return fail("cuStreamCreate", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_stream *s = nullptr;
  CUresult r = report("cuStreamCreate", cucore_stream_create(current(), Flags, 0, &s));
  if (r == CUDA_SUCCESS) *phStream = reinterpret_cast<CUstream>(s);
  return r;
}
CU_EXPORT CUresult cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority) {
  NEED_CONTEXT("cuStreamCreateWithPriority");
  if (!phStream) return fail("cuStreamCreateWithPriority", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_stream *s = nullptr;
  CUresult r = report("cuStreamCreateWithPriority", cucore_stream_create(current(), flags, priority, &s));
  if (r == CUDA_SUCCESS) *phStream = reinterpret_cast<CUstream>(s);
  return r;
}
CU_EXPORT CUresult cuStreamDestroy_v2(CUstream hStream) {
  NEED_CONTEXT("cuStreamDestroy");
  return report("cuStreamDestroy", cucore_stream_destroy(stream_of(hStream)));
}
CU_EXPORT CUresult cuStreamDestroy(CUstream hStream) { return cuStreamDestroy_v2(hStream); }
CU_EXPORT CUresult cuStreamSynchronize(CUstream hStream) {
  NEED_CONTEXT("cuStreamSynchronize");
  return report("cuStreamSynchronize", cucore_stream_sync(stream_of(hStream)));
}
CU_EXPORT CUresult cuStreamQuery(CUstream hStream) {
  NEED_CONTEXT("cuStreamQuery");
  return report("cuStreamQuery", cucore_stream_query(stream_of(hStream)));
}
CU_EXPORT CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags) {
  NEED_CONTEXT("cuStreamWaitEvent");
  if (Flags & ~1u) return fail("cuStreamWaitEvent", CUDA_ERROR_INVALID_VALUE, "unknown flags");
  return report("cuStreamWaitEvent", cucore_stream_wait_event_flags(stream_of(hStream), event_of(hEvent), Flags));
}
CU_EXPORT CUresult cuStreamGetFlags(CUstream hStream, unsigned int *flags) {
  NEED_CONTEXT("cuStreamGetFlags");
  return report("cuStreamGetFlags", cucore_stream_flags(stream_of(hStream), flags));
}
CU_EXPORT CUresult cuStreamGetPriority(CUstream hStream, int *priority) {
  NEED_CONTEXT("cuStreamGetPriority");
  return report("cuStreamGetPriority", cucore_stream_priority(stream_of(hStream), priority));
}
CU_EXPORT CUresult cuStreamGetCtx(CUstream hStream, CUcontext *pctx) {
  NEED_CONTEXT("cuStreamGetCtx");
  if (!pctx) return fail("cuStreamGetCtx", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  CUresult r = report("cuStreamGetCtx", cucore_stream_check(stream_of(hStream)));
  if (r == CUDA_SUCCESS) *pctx = reinterpret_cast<CUcontext>(current());
  return r;
}

CU_EXPORT CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData) {
  NEED_CONTEXT("cuLaunchHostFunc");
  if (!fn) return fail("cuLaunchHostFunc", CUDA_ERROR_INVALID_VALUE, "the host function is NULL");
  return report("cuLaunchHostFunc", cucore_stream_callback(stream_of(hStream), fn, userData));
}

namespace {
struct StreamCallback {
  CUstreamCallback fn;
  CUstream stream;
  void *data;
};
void run_stream_callback(void *p) {
  StreamCallback *cb = static_cast<StreamCallback *>(p);
  cb->fn(cb->stream, CUDA_SUCCESS, cb->data);
  delete cb;
}
}  // namespace

CU_EXPORT CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void *userData, unsigned int flags) {
  NEED_CONTEXT("cuStreamAddCallback");
  if (!callback || flags != 0) return fail("cuStreamAddCallback", CUDA_ERROR_INVALID_VALUE, "bad argument");
  StreamCallback *cb = new StreamCallback{callback, hStream, userData};
  CUresult r = report("cuStreamAddCallback", cucore_stream_add_callback(stream_of(hStream), run_stream_callback, cb));
  if (r != CUDA_SUCCESS) delete cb;
  return r;
}

CU_EXPORT CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags) {
  NEED_CONTEXT("cuEventCreate");
  if (!phEvent) return fail("cuEventCreate", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  cu_event *e = nullptr;
  CUresult r = report("cuEventCreate", cucore_event_create(current(), Flags, &e));
  if (r == CUDA_SUCCESS) *phEvent = reinterpret_cast<CUevent>(e);
  return r;
}
CU_EXPORT CUresult cuEventDestroy_v2(CUevent hEvent) {
  NEED_CONTEXT("cuEventDestroy");
  return report("cuEventDestroy", cucore_event_destroy(event_of(hEvent)));
}
CU_EXPORT CUresult cuEventDestroy(CUevent hEvent) { return cuEventDestroy_v2(hEvent); }
CU_EXPORT CUresult cuEventRecord(CUevent hEvent, CUstream hStream) {
  NEED_CONTEXT("cuEventRecord");
  return report("cuEventRecord", cucore_event_record(event_of(hEvent), stream_of(hStream)));
}
CU_EXPORT CUresult cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags) {
  NEED_CONTEXT("cuEventRecordWithFlags");
  if (flags & ~1u) return fail("cuEventRecordWithFlags", CUDA_ERROR_INVALID_VALUE, "unknown flags");
  return report("cuEventRecordWithFlags", cucore_event_record_flags(event_of(hEvent), stream_of(hStream), flags));
}
CU_EXPORT CUresult cuEventQuery(CUevent hEvent) {
  NEED_CONTEXT("cuEventQuery");
  return report("cuEventQuery", cucore_event_query(event_of(hEvent)));
}
CU_EXPORT CUresult cuEventSynchronize(CUevent hEvent) {
  NEED_CONTEXT("cuEventSynchronize");
  return report("cuEventSynchronize", cucore_event_sync(event_of(hEvent)));
}
CU_EXPORT CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd) {
  NEED_CONTEXT("cuEventElapsedTime");
  return report("cuEventElapsedTime", cucore_event_elapsed(pMilliseconds, event_of(hStart), event_of(hEnd)));
}
CU_EXPORT CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd) {
  return cuEventElapsedTime_v2(pMilliseconds, hStart, hEnd);
}

// ---- stream identities --------------------------------------------------------------------------

static CUresult stream_get_id(const char *api, cu_stream *s, unsigned long long *streamId) {
  NEED_CONTEXT(api);
  if (!streamId) return fail(api, CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  CUresult r = report(api, cucore_stream_check(s));
  if (r == CUDA_SUCCESS) *streamId = (unsigned long long)reinterpret_cast<uintptr_t>(s);  // 0: legacy NULL stream
  return r;
}
CU_EXPORT CUresult cuStreamGetId(CUstream hStream, unsigned long long *streamId) {
  return stream_get_id("cuStreamGetId", stream_of(hStream), streamId);
}
CU_EXPORT CUresult cuStreamGetId_ptsz(CUstream hStream, unsigned long long *streamId) {
  return stream_get_id("cuStreamGetId", stream_ptsz(hStream), streamId);
}

static CUresult stream_get_device(const char *api, cu_stream *s, CUdevice *device) {
  NEED_CONTEXT(api);
  if (!device) return fail(api, CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  CUresult r = report(api, cucore_stream_check(s));
  if (r == CUDA_SUCCESS) *device = 0;
  return r;
}
CU_EXPORT CUresult cuStreamGetDevice(CUstream hStream, CUdevice *device) {
  return stream_get_device("cuStreamGetDevice", stream_of(hStream), device);
}
CU_EXPORT CUresult cuStreamGetDevice_ptsz(CUstream hStream, CUdevice *device) {
  return stream_get_device("cuStreamGetDevice", stream_ptsz(hStream), device);
}

// No green contexts: *pGreenCtx is NULL.
CU_EXPORT CUresult cuStreamGetCtx_v2(CUstream hStream, CUcontext *pCtx, void **pGreenCtx) {
  if (pGreenCtx) *pGreenCtx = nullptr;
  return cuStreamGetCtx(hStream, pCtx);
}
CU_EXPORT CUresult cuStreamGetCtx_ptsz(CUstream hStream, CUcontext *pctx) {
  return cuStreamGetCtx(reinterpret_cast<CUstream>(stream_ptsz(hStream)), pctx);
}
CU_EXPORT CUresult cuStreamGetCtx_v2_ptsz(CUstream hStream, CUcontext *pCtx, void **pGreenCtx) {
  return cuStreamGetCtx_v2(reinterpret_cast<CUstream>(stream_ptsz(hStream)), pCtx, pGreenCtx);
}

// ---- per-thread default stream variants (_ptds: synchronous calls, _ptsz: calls with a stream) ----
// What nvcc's --default-stream per-thread (or CUDA_API_PER_THREAD_DEFAULT_STREAM) compiles to, and
// what the static runtime calls for cudaStreamPerThread work: the same operation with the NULL
// stream meaning this thread's default stream.

#define PTSZ(h) reinterpret_cast<CUstream>(stream_ptsz(h))
#define PTDS reinterpret_cast<CUstream>(CU_STREAM_PER_THREAD)

CU_EXPORT CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount) {
  return copy("cuMemcpyHtoD", device_side(dstDevice), host_side(srcHost), ByteCount, PTDS, true);
}
CU_EXPORT CUresult cuMemcpyDtoH_v2_ptds(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
  return copy("cuMemcpyDtoH", host_side(dstHost), device_side(srcDevice), ByteCount, PTDS, true);
}
CU_EXPORT CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) {
  return copy("cuMemcpyDtoD", device_side(dstDevice), device_side(srcDevice), ByteCount, PTDS, true);
}
CU_EXPORT CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
                                            CUstream hStream) {
  return copy("cuMemcpyHtoDAsync", device_side(dstDevice), host_side(srcHost), ByteCount, PTSZ(hStream), false);
}
CU_EXPORT CUresult cuMemcpyDtoHAsync_v2_ptsz(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream) {
  return copy("cuMemcpyDtoHAsync", host_side(dstHost), device_side(srcDevice), ByteCount, PTSZ(hStream), false);
}
CU_EXPORT CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
                                            CUstream hStream) {
  return copy("cuMemcpyDtoDAsync", device_side(dstDevice), device_side(srcDevice), ByteCount, PTSZ(hStream), false);
}
CU_EXPORT CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
  return copy("cuMemcpy", host_side(reinterpret_cast<void *>(dst)), host_side(reinterpret_cast<void *>(src)), ByteCount,
              PTDS, true);
}
CU_EXPORT CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream) {
  return copy("cuMemcpyAsync", host_side(reinterpret_cast<void *>(dst)), host_side(reinterpret_cast<void *>(src)),
              ByteCount, PTSZ(hStream), false);
}
CU_EXPORT CUresult cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  return memset("cuMemsetD8", dstDevice, uc, 1, N, PTDS, false);
}
CU_EXPORT CUresult cuMemsetD16_v2_ptds(CUdeviceptr dstDevice, unsigned short us, size_t N) {
  return memset("cuMemsetD16", dstDevice, us, 2, N, PTDS, false);
}
CU_EXPORT CUresult cuMemsetD32_v2_ptds(CUdeviceptr dstDevice, unsigned int ui, size_t N) {
  return memset("cuMemsetD32", dstDevice, ui, 4, N, PTDS, false);
}
CU_EXPORT CUresult cuMemsetD8Async_ptsz(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream) {
  return memset("cuMemsetD8Async", dstDevice, uc, 1, N, PTSZ(hStream), false);
}
CU_EXPORT CUresult cuMemsetD16Async_ptsz(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream) {
  return memset("cuMemsetD16Async", dstDevice, us, 2, N, PTSZ(hStream), false);
}
CU_EXPORT CUresult cuMemsetD32Async_ptsz(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream) {
  return memset("cuMemsetD32Async", dstDevice, ui, 4, N, PTSZ(hStream), false);
}
CU_EXPORT CUresult cuMemsetD2D8_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width,
                                       size_t Height) {
  return memset_2d("cuMemsetD2D8", dstDevice, dstPitch, uc, 1, Width, Height, PTDS, false);
}
CU_EXPORT CUresult cuMemsetD2D16_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width,
                                        size_t Height) {
  return memset_2d("cuMemsetD2D16", dstDevice, dstPitch, us, 2, Width, Height, PTDS, false);
}
CU_EXPORT CUresult cuMemsetD2D32_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width,
                                        size_t Height) {
  return memset_2d("cuMemsetD2D32", dstDevice, dstPitch, ui, 4, Width, Height, PTDS, false);
}
CU_EXPORT CUresult cuMemsetD2D8Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width,
                                     size_t Height, CUstream hStream) {
  return memset_2d("cuMemsetD2D8Async", dstDevice, dstPitch, uc, 1, Width, Height, hStream, false);
}
CU_EXPORT CUresult cuMemsetD2D16Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width,
                                      size_t Height, CUstream hStream) {
  return memset_2d("cuMemsetD2D16Async", dstDevice, dstPitch, us, 2, Width, Height, hStream, false);
}
CU_EXPORT CUresult cuMemsetD2D32Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width,
                                      size_t Height, CUstream hStream) {
  return memset_2d("cuMemsetD2D32Async", dstDevice, dstPitch, ui, 4, Width, Height, hStream, false);
}
CU_EXPORT CUresult cuMemsetD2D8Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width,
                                          size_t Height, CUstream hStream) {
  return memset_2d("cuMemsetD2D8Async", dstDevice, dstPitch, uc, 1, Width, Height, PTSZ(hStream), false);
}
CU_EXPORT CUresult cuMemsetD2D16Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width,
                                           size_t Height, CUstream hStream) {
  return memset_2d("cuMemsetD2D16Async", dstDevice, dstPitch, us, 2, Width, Height, PTSZ(hStream), false);
}
CU_EXPORT CUresult cuMemsetD2D32Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width,
                                           size_t Height, CUstream hStream) {
  return memset_2d("cuMemsetD2D32Async", dstDevice, dstPitch, ui, 4, Width, Height, PTSZ(hStream), false);
}
CU_EXPORT CUresult cuStreamSynchronize_ptsz(CUstream hStream) { return cuStreamSynchronize(PTSZ(hStream)); }
CU_EXPORT CUresult cuStreamQuery_ptsz(CUstream hStream) { return cuStreamQuery(PTSZ(hStream)); }
CU_EXPORT CUresult cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent, unsigned int Flags) {
  return cuStreamWaitEvent(PTSZ(hStream), hEvent, Flags);
}
CU_EXPORT CUresult cuStreamGetFlags_ptsz(CUstream hStream, unsigned int *flags) {
  return cuStreamGetFlags(PTSZ(hStream), flags);
}
CU_EXPORT CUresult cuStreamGetPriority_ptsz(CUstream hStream, int *priority) {
  return cuStreamGetPriority(PTSZ(hStream), priority);
}
CU_EXPORT CUresult cuStreamAddCallback_ptsz(CUstream hStream, CUstreamCallback callback, void *userData,
                                           unsigned int flags) {
  return cuStreamAddCallback(PTSZ(hStream), callback, userData, flags);
}
CU_EXPORT CUresult cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn, void *userData) {
  return cuLaunchHostFunc(PTSZ(hStream), fn, userData);
}
CU_EXPORT CUresult cuEventRecord_ptsz(CUevent hEvent, CUstream hStream) { return cuEventRecord(hEvent, PTSZ(hStream)); }
CU_EXPORT CUresult cuEventRecordWithFlags_ptsz(CUevent hEvent, CUstream hStream, unsigned int flags) {
  return cuEventRecordWithFlags(hEvent, PTSZ(hStream), flags);
}
CU_EXPORT CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                                 unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                                 unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                                 void **kernelParams) {
  return cuLaunchCooperativeKernel(f, gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes,
                                   PTSZ(hStream), kernelParams);
}
