// cuda_api.cc — libcuda.so.1's driver API (cu*) on the shared core (cu_core.h). Names with a _v2
// (or later) suffix are what cuda.h maps the plain names to; both are exported where a program
// built against an older header could still call the plain one with the same signature.
// docs/cudart.md "The driver API".
#include <cstdio>
#include <cstring>
#include <vector>

#include "cu_core.h"
#include "cuda_api.h"

#define CU_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

bool g_initialized = false;  // cuInit succeeded (or the runtime opened the device)
thread_local std::vector<cu_ctx *> tl_ctx_stack;

CUresult report(const char *api, int code) {
  if (code != CUDA_SUCCESS && code != CUDA_ERROR_NOT_READY && code != CUDA_ERROR_DEINITIALIZED) {
    const char *n = cu_result_name(code);
    cucore_report(api, n ? n : "CUDA_ERROR_UNKNOWN");
  }
  return code;
}

CUresult fail(const char *api, int code, const char *what) {
  cucore_fail(code, "%s", what);
  return report(api, code);
}

bool initialized() { return g_initialized || cucore_props() != nullptr; }

// The context current on this thread; a program that initialised through the runtime uses the
// primary context without making it current, as with NVIDIA's libraries.
cu_ctx *current() {
  if (!tl_ctx_stack.empty() && tl_ctx_stack.back()) return tl_ctx_stack.back();
  return cucore_primary_peek();
}

// The checks at the top of almost every call: initialised, a live current context.
#define NEED_CONTEXT(api)                                                                          \
  do {                                                                                             \
    if (!initialized()) return fail(api, CUDA_ERROR_NOT_INITIALIZED, "cuInit has not been called"); \
    cu_ctx *c_ = current();                                                                        \
    if (!c_ || !cucore_ctx_valid(c_))                                                              \
      return fail(api, CUDA_ERROR_INVALID_CONTEXT, "no current context (cuCtxCreate, cuCtxSetCurrent)"); \
  } while (0)

#define NEED_INIT(api)                                                                             \
  do {                                                                                             \
    if (!initialized()) return fail(api, CUDA_ERROR_NOT_INITIALIZED, "cuInit has not been called"); \
  } while (0)

CUresult check_device(const char *api, CUdevice dev) {
  if (dev != 0) {
    cucore_fail(CUDA_ERROR_INVALID_DEVICE, "device %d does not exist: simtvp models one GPU (device 0)", dev);
    return report(api, CUDA_ERROR_INVALID_DEVICE);
  }
  return CUDA_SUCCESS;
}

cu_stream *stream_of(CUstream s) { return reinterpret_cast<cu_stream *>(s); }
cu_event *event_of(CUevent e) { return reinterpret_cast<cu_event *>(e); }
cu_module *module_of(CUmodule m) { return reinterpret_cast<cu_module *>(m); }
cu_function *function_of(CUfunction f) { return reinterpret_cast<cu_function *>(f); }

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
  *driverVersion = 13000;
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

// ---- contexts --------------------------------------------------------------------------------------

static CUresult ctx_create(const char *api, CUcontext *pctx, unsigned flags, CUdevice dev) {
  NEED_INIT(api);
  if (!pctx) return fail(api, CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  CUresult r = check_device(api, dev);
  if (r != CUDA_SUCCESS) return r;
  cu_ctx *c = nullptr;
  r = report(api, cucore_ctx_create(flags, &c));
  if (r != CUDA_SUCCESS) return r;
  tl_ctx_stack.push_back(c);
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
  if (tl_ctx_stack.empty()) tl_ctx_stack.push_back(c);
  else tl_ctx_stack.back() = c;
  if (!c) tl_ctx_stack.pop_back();
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
  NEED_INIT("cuCtxPushCurrent");
  cu_ctx *c = reinterpret_cast<cu_ctx *>(ctx);
  if (!c || !cucore_ctx_valid(c)) return fail("cuCtxPushCurrent", CUDA_ERROR_INVALID_CONTEXT, "not a live context");
  tl_ctx_stack.push_back(c);
  return CUDA_SUCCESS;
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
  return r != CUDA_SUCCESS ? r : report("cuDevicePrimaryCtxReset", cucore_primary_reset());
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

CU_EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
  return memset("cuMemsetD8", dstDevice, uc, 1, N, nullptr, true);
}
CU_EXPORT CUresult cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N) {
  return memset("cuMemsetD16", dstDevice, us, 2, N, nullptr, true);
}
CU_EXPORT CUresult cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N) {
  return memset("cuMemsetD32", dstDevice, ui, 4, N, nullptr, true);
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
  return memset_2d("cuMemsetD2D8", dstDevice, dstPitch, uc, 1, Width, Height, nullptr, true);
}
CU_EXPORT CUresult cuMemsetD2D16_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width,
                                    size_t Height) {
  return memset_2d("cuMemsetD2D16", dstDevice, dstPitch, us, 2, Width, Height, nullptr, true);
}
CU_EXPORT CUresult cuMemsetD2D32_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width,
                                    size_t Height) {
  return memset_2d("cuMemsetD2D32", dstDevice, dstPitch, ui, 4, Width, Height, nullptr, true);
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
      if (info.type == CU_MEM_PINNED) return fail("cuPointerGetAttribute", CUDA_ERROR_INVALID_VALUE, "pinned memory is not mapped");
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
  return report("cuStreamWaitEvent", cucore_stream_wait_event(stream_of(hStream), event_of(hEvent)));
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
  CUresult r = report("cuStreamAddCallback", cucore_stream_callback(stream_of(hStream), run_stream_callback, cb));
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
  return report("cuEventRecordWithFlags", cucore_event_record(event_of(hEvent), stream_of(hStream)));
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
