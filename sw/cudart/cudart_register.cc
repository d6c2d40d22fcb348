// cudart_register.cc — what nvcc-generated host code calls: fatbin, kernel and variable
// registration (from static constructors), the launch configuration stack, kernel handles and
// launches (docs/fixtures.md "The host-side registration ABI", docs/cudart.md).
//
// Registration only records: no platform, no parsing in static constructors. A registered fatbin
// becomes a module of the primary context the first time one of its kernels or variables is used
// (CUDA's lazy loading; SIMTVP_CUDA_MODULE_LOADING=EAGER or CUDA_MODULE_LOADING=EAGER loads every
// registered fatbin when the first one is needed). After cudaDeviceReset modules load again.
#include <errno.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cudart_internal.h"

namespace rt {

namespace {

struct FatbinRec;

struct KernelRec {
  FatbinRec *fb = nullptr;
  const void *host_fun = nullptr;
  std::string device_name;
  cu_function *fn = nullptr;
  uint64_t generation = UINT64_MAX;
};

struct VarRec {
  FatbinRec *fb = nullptr;
  const void *host_var = nullptr;
  std::string device_name;
  size_t size = 0;
  bool constant = false;
  void **managed_ptr = nullptr;  // __managed__: where the host code reads the variable's address
};

struct FatbinRec {
  const void *wrapper = nullptr;
  unsigned index = 0;
  bool unregistered = false;
  cu_module *module = nullptr;
  uint64_t generation = UINT64_MAX;
  int load_result = CUDA_SUCCESS;  // of the load in `generation`
  std::string load_message;
  std::vector<VarRec *> managed;
};

struct Registry {
  std::recursive_mutex mu;
  std::vector<std::unique_ptr<FatbinRec>> fatbins;
  std::vector<std::unique_ptr<KernelRec>> kernels;
  std::vector<std::unique_ptr<VarRec>> vars;
  std::map<const void *, KernelRec *> by_host_fun;
  std::map<const void *, KernelRec *> by_handle;  // KernelRec* as handed out
  std::map<const void *, VarRec *> by_host_var;
};

// Never destroyed: atexit handlers (__cudaUnregisterFatBinary) run after static destructors of
// this library may have.
Registry &registry() {
  static Registry *r = new Registry();
  return *r;
}

FatbinRec *fatbin_of(void **handle) {
  Registry &r = registry();
  for (auto &f : r.fatbins)
    if (reinterpret_cast<void **>(f.get()) == handle) return f.get();
  return nullptr;
}

std::string program_name() {
  return ::program_invocation_short_name ? ::program_invocation_short_name : "program";  // glibc, <errno.h>
}

bool eager_loading() {
  const char *v = std::getenv("SIMTVP_CUDA_MODULE_LOADING");
  if (!v) v = std::getenv("CUDA_MODULE_LOADING");
  return v && std::strcmp(v, "EAGER") == 0;
}

int load_one(FatbinRec *fb, uint64_t gen);

// Loads fb's module in the current primary-context generation (cached, failures included).
int ensure_module(FatbinRec *fb) {
  uint64_t gen = cucore_primary_generation();
  if (fb->generation == gen) {
    if (fb->load_result != CUDA_SUCCESS) cucore_fail(fb->load_result, "%s", fb->load_message.c_str());
    return fb->load_result;
  }
  if (eager_loading()) {
    Registry &r = registry();
    for (auto &other : r.fatbins)
      if (other.get() != fb && !other->unregistered && other->generation != gen) (void)load_one(other.get(), gen);
  }
  return load_one(fb, gen);
}

int load_one(FatbinRec *fb, uint64_t gen) {
  cu_ctx *ctx = nullptr;
  int r = primary(&ctx);
  if (r != CUDA_SUCCESS) return r;  // device errors are not cached: nothing was loaded
  std::string name = program_name() + " fatbin " + std::to_string(fb->index);
  r = cucore_module_load_image(ctx, fb->wrapper, 0, name.c_str(), &fb->module);
  fb->generation = gen;
  fb->load_result = r;
  fb->load_message = r == CUDA_SUCCESS ? "" : cucore_last_message();
  if (r != CUDA_SUCCESS) {
    fb->module = nullptr;
    return r;
  }
  for (VarRec *v : fb->managed) {
    uint64_t dptr = 0, bytes = 0;
    int m = cucore_module_global(fb->module, v->device_name.c_str(), &dptr, &bytes);
    if (m == CUDA_SUCCESS) m = cucore_managed_adopt(fb->module, dptr, bytes ? bytes : v->size);
    if (m != CUDA_SUCCESS) {
      cucore_report(("__managed__ variable " + v->device_name).c_str(), "cudaErrorMemoryAllocation");
      continue;
    }
    if (v->managed_ptr) *v->managed_ptr = reinterpret_cast<void *>(dptr);
  }
  return CUDA_SUCCESS;
}

KernelRec *kernel_of(const void *func) {
  Registry &r = registry();
  auto it = r.by_host_fun.find(func);
  if (it != r.by_host_fun.end()) return it->second;
  auto h = r.by_handle.find(func);
  return h != r.by_handle.end() ? h->second : nullptr;
}

// Launch configurations pushed by <<<…>>> and popped by the host stub (per thread, nested calls
// inside argument evaluation stack up).
struct CallConfig {
  dim3 grid, block;
  size_t shared_mem;
  cudaStream_t stream;
};
thread_local std::vector<CallConfig> tl_configs;

}  // namespace

cudaError_t resolve_function(const char *api, const void *func, cu_function **out) {
  Registry &r = registry();
  std::lock_guard<std::recursive_mutex> lock(r.mu);
  if (!func) return fail(api, cudaErrorInvalidDeviceFunction, "the function pointer is NULL");
  KernelRec *k = kernel_of(func);
  if (!k)
    return fail(api, cudaErrorInvalidDeviceFunction,
                "%p is not a registered kernel (no __cudaRegisterFunction for this host function)", func);
  if (k->fb->unregistered)
    return fail(api, cudaErrorInvalidDeviceFunction, "kernel %s belongs to an unregistered fatbin",
                k->device_name.c_str());
  uint64_t gen = cucore_primary_generation();
  if (k->fn && k->generation == gen && cucore_function_valid(k->fn)) {
    *out = k->fn;
    return cudaSuccess;
  }
  int c = ensure_module(k->fb);
  if (c != CUDA_SUCCESS) return ret_cu(api, c);
  c = cucore_module_function(k->fb->module, k->device_name.c_str(), &k->fn);
  if (c == CUDA_ERROR_NOT_FOUND)
    return fail(api, cudaErrorInvalidDeviceFunction, "kernel %s is registered but its PTX has no such .entry",
                k->device_name.c_str());
  if (c != CUDA_SUCCESS) return ret_cu(api, c);
  k->generation = gen;
  *out = k->fn;
  return cudaSuccess;
}

cudaError_t resolve_symbol(const char *api, const void *symbol, uint64_t *dptr, uint64_t *bytes) {
  Registry &r = registry();
  std::lock_guard<std::recursive_mutex> lock(r.mu);
  if (!symbol) return fail(api, cudaErrorInvalidSymbol, "the symbol is NULL");
  auto it = r.by_host_var.find(symbol);
  if (it == r.by_host_var.end())
    return fail(api, cudaErrorInvalidSymbol,
                "%p is not a registered __device__/__constant__ variable (pass the variable itself, not a "
                "pointer to device memory)",
                symbol);
  VarRec *v = it->second;
  if (v->fb->unregistered)
    return fail(api, cudaErrorInvalidSymbol, "variable %s belongs to an unregistered fatbin", v->device_name.c_str());
  int c = ensure_module(v->fb);
  if (c != CUDA_SUCCESS) return ret_cu(api, c);
  c = cucore_module_global(v->fb->module, v->device_name.c_str(), dptr, bytes);
  if (c != CUDA_SUCCESS)
    return fail(api, cudaErrorInvalidSymbol, "variable %s is registered but its PTX has no such variable",
                v->device_name.c_str());
  return cudaSuccess;
}

// Launch with the runtime's result codes (configuration errors are cudaErrorInvalidConfiguration).
static cudaError_t launch(const char *api, const void *func, dim3 grid, dim3 block, void **args, size_t smem,
                          cu_stream *stream, bool cooperative, const uint32_t *cluster = nullptr) {
  cu_function *f = nullptr;
  cudaError_t e = resolve_function(api, func, &f);
  if (e != cudaSuccess) return e;
  uint32_t n_params = 0;
  int c = cucore_function_param_count(f, &n_params);
  if (c != CUDA_SUCCESS) return ret_cu(api, c);
  if (n_params && !args)
    return fail(api, cudaErrorInvalidValue, "kernel %s takes %u parameters but args is NULL", cucore_function_name(f),
                n_params);
  if (smem > UINT32_MAX)
    return fail(api, cudaErrorInvalidConfiguration, "%zu bytes of dynamic shared memory", smem);
  uint32_t g[3] = {grid.x, grid.y, grid.z}, b[3] = {block.x, block.y, block.z};
  if (cooperative) {
    uint32_t per_sm = 0;
    uint64_t threads = (uint64_t)block.x * block.y * block.z;
    c = cucore_occupancy(f, threads > UINT32_MAX ? UINT32_MAX : (uint32_t)threads, (uint32_t)smem, &per_sm);
    const drv_device_props *p = cucore_props();
    uint64_t blocks = (uint64_t)grid.x * grid.y * grid.z;
    if (c == CUDA_SUCCESS && p && per_sm && blocks > (uint64_t)per_sm * p->sm_count)
      return fail(api, cudaErrorCooperativeLaunchTooLarge,
                  "cooperative launch of %s: %llu blocks cannot all be resident (%u per SM x %u SMs)",
                  cucore_function_name(f), (unsigned long long)blocks, per_sm, p->sm_count);
  }
  static const uint32_t no_cluster[3] = {0, 0, 0};
  c = cucore_launch_cluster(f, g, b, cluster ? cluster : no_cluster, (uint32_t)smem, stream, args, nullptr, 0);
  if (c == CUDA_ERROR_INVALID_VALUE) return ret(api, cudaErrorInvalidConfiguration);
  if (c == CUDA_ERROR_INVALID_CLUSTER_SIZE) return ret(api, cudaErrorInvalidClusterSize);
  return ret_cu(api, c);
}

}  // namespace rt

using namespace rt;

// ---- registration -------------------------------------------------------------------------------

CUDART_EXPORT void **__cudaRegisterFatBinary(void *fatCubin) {
  Registry &r = registry();
  std::lock_guard<std::recursive_mutex> lock(r.mu);
  auto fb = std::make_unique<FatbinRec>();
  fb->wrapper = fatCubin;
  fb->index = (unsigned)r.fatbins.size();
  void **handle = reinterpret_cast<void **>(fb.get());
  r.fatbins.push_back(std::move(fb));
  return handle;
}

CUDART_EXPORT void __cudaRegisterFatBinaryEnd(void **fatCubinHandle) {
  Registry &r = registry();
  std::lock_guard<std::recursive_mutex> lock(r.mu);
  if (!fatbin_of(fatCubinHandle))
    fail("__cudaRegisterFatBinaryEnd", cudaErrorInvalidValue, "%p is not a registered fatbin handle",
         (void *)fatCubinHandle);
}

CUDART_EXPORT void __cudaUnregisterFatBinary(void **fatCubinHandle) {
  Registry &r = registry();
  std::lock_guard<std::recursive_mutex> lock(r.mu);
  FatbinRec *fb = fatbin_of(fatCubinHandle);
  if (!fb || fb->unregistered) return;
  fb->unregistered = true;
  // At process exit the core has already closed the device; otherwise unload the module now.
  if (fb->module && fb->generation == cucore_primary_generation() && cucore_module_valid(fb->module))
    (void)cucore_module_unload(fb->module);
  fb->module = nullptr;
}

CUDART_EXPORT void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                                          const char *deviceName, int thread_limit, void *tid, void *bid,
                                          void *bDim, void *gDim, int *wSize) {
  (void)deviceName;
  (void)thread_limit;
  (void)tid;
  (void)bid;
  (void)bDim;
  (void)gDim;
  (void)wSize;
  Registry &r = registry();
  std::lock_guard<std::recursive_mutex> lock(r.mu);
  FatbinRec *fb = fatbin_of(fatCubinHandle);
  if (!fb || !hostFun || !deviceFun) {
    fail("__cudaRegisterFunction", cudaErrorInvalidValue, "bad registration (handle %p, host function %p, name %s)",
         (void *)fatCubinHandle, (const void *)hostFun, deviceFun ? deviceFun : "NULL");
    return;
  }
  auto k = std::make_unique<KernelRec>();
  k->fb = fb;
  k->host_fun = hostFun;
  k->device_name = deviceFun;
  r.by_host_fun[hostFun] = k.get();
  r.by_handle[k.get()] = k.get();
  r.kernels.push_back(std::move(k));
}

static void register_var(const char *api, void **fatCubinHandle, const void *host_var, const char *name, size_t size,
                         int constant, void **managed_ptr) {
  Registry &r = registry();
  std::lock_guard<std::recursive_mutex> lock(r.mu);
  FatbinRec *fb = fatbin_of(fatCubinHandle);
  if (!fb || !host_var || !name) {
    fail(api, cudaErrorInvalidValue, "bad registration (handle %p, host variable %p, name %s)", (void *)fatCubinHandle,
         host_var, name ? name : "NULL");
    return;
  }
  auto v = std::make_unique<VarRec>();
  v->fb = fb;
  v->host_var = host_var;
  v->device_name = name;
  v->size = size;
  v->constant = constant != 0;
  v->managed_ptr = managed_ptr;
  if (managed_ptr) fb->managed.push_back(v.get());
  r.by_host_var[host_var] = v.get();
  r.vars.push_back(std::move(v));
}

CUDART_EXPORT void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress, const char *deviceName,
                                     int ext, size_t size, int constant, int global) {
  (void)deviceName;
  (void)ext;
  (void)global;
  register_var("__cudaRegisterVar", fatCubinHandle, hostVar, deviceAddress, size, constant, nullptr);
}

CUDART_EXPORT void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress,
                                            const char *deviceName, int ext, size_t size, int constant, int global) {
  (void)deviceName;
  (void)ext;
  (void)global;
  // The host code reads the variable through *hostVarPtrAddress once __cudaInitModule filled it;
  // the pointer's address also names the variable in cudaMemcpyToSymbol & co.
  register_var("__cudaRegisterManagedVar", fatCubinHandle, hostVarPtrAddress, deviceAddress, size, constant,
               hostVarPtrAddress);
}

// Called by host code on its first access to a __managed__ variable: load the module so the
// variable has its address. Returns 1 when the module is loaded.
CUDART_EXPORT char __cudaInitModule(void **fatCubinHandle) {
  Registry &r = registry();
  std::lock_guard<std::recursive_mutex> lock(r.mu);
  FatbinRec *fb = fatbin_of(fatCubinHandle);
  if (!fb) {
    fail("__cudaInitModule", cudaErrorInvalidValue, "%p is not a registered fatbin handle", (void *)fatCubinHandle);
    return 0;
  }
  int c = ensure_module(fb);
  if (c != CUDA_SUCCESS) {
    ret_cu("__cudaInitModule", c);
    return 0;
  }
  return 1;
}

// ---- launch configuration and kernel handles -----------------------------------------------------

CUDART_EXPORT unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                                   struct CUstream_st *stream) {
  tl_configs.push_back(CallConfig{gridDim, blockDim, sharedMem, stream});
  return 0;
}

CUDART_EXPORT cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, void *stream) {
  if (tl_configs.empty())
    return fail("__cudaPopCallConfiguration", cudaErrorMissingConfiguration,
                "a kernel's host stub was called without a <<<...>>> configuration");
  CallConfig c = tl_configs.back();
  tl_configs.pop_back();
  if (gridDim) *gridDim = c.grid;
  if (blockDim) *blockDim = c.block;
  if (sharedMem) *sharedMem = c.shared_mem;
  if (stream) *static_cast<cudaStream_t *>(stream) = c.stream;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun) {
  Registry &r = registry();
  std::lock_guard<std::recursive_mutex> lock(r.mu);
  if (!kernel) return fail("__cudaGetKernel", cudaErrorInvalidValue, "the kernel pointer is NULL");
  KernelRec *k = kernel_of(hostFun);
  if (!k) {
    *kernel = nullptr;
    return fail("__cudaGetKernel", cudaErrorInvalidDeviceFunction, "%p is not a registered kernel", hostFun);
  }
  *kernel = reinterpret_cast<cudaKernel_t>(k);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGetKernel(cudaKernel_t *kernel, const void *entryFuncAddr) {
  return __cudaGetKernel(kernel, entryFuncAddr);
}

CUDART_EXPORT cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr) {
  Registry &r = registry();
  std::lock_guard<std::recursive_mutex> lock(r.mu);
  if (!functionPtr) return fail("cudaGetFuncBySymbol", cudaErrorInvalidValue, "the result pointer is NULL");
  cu_function *f = nullptr;
  cudaError_t e = resolve_function("cudaGetFuncBySymbol", symbolPtr, &f);
  if (e != cudaSuccess) return e;
  *functionPtr = reinterpret_cast<cudaFunction_t>(f);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaFuncGetName(const char **name, const void *func) {
  if (!name) return fail("cudaFuncGetName", cudaErrorInvalidValue, "the result pointer is NULL");
  Registry &r = registry();
  std::lock_guard<std::recursive_mutex> lock(r.mu);
  KernelRec *k = kernel_of(func);
  if (!k) return fail("cudaFuncGetName", cudaErrorInvalidDeviceFunction, "%p is not a registered kernel", func);
  *name = k->device_name.c_str();
  return cudaSuccess;
}

// ---- launches ----------------------------------------------------------------------------------

CUDART_EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                             size_t sharedMem, cudaStream_t stream) {
  return launch("__cudaLaunchKernel", kernel, gridDim, blockDim, args, sharedMem, stream_of(stream), false);
}

CUDART_EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                                  size_t sharedMem, cudaStream_t stream) {
  return launch("__cudaLaunchKernel_ptsz", kernel, gridDim, blockDim, args, sharedMem, stream_ptsz(stream), false);
}

CUDART_EXPORT cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                           size_t sharedMem, cudaStream_t stream) {
  return launch("cudaLaunchKernel", func, gridDim, blockDim, args, sharedMem, stream_of(stream), false);
}

CUDART_EXPORT cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                                size_t sharedMem, cudaStream_t stream) {
  return launch("cudaLaunchKernel_ptsz", func, gridDim, blockDim, args, sharedMem, stream_ptsz(stream), false);
}

CUDART_EXPORT cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                                      size_t sharedMem, cudaStream_t stream) {
  return launch("cudaLaunchCooperativeKernel", func, gridDim, blockDim, args, sharedMem, stream_of(stream), true);
}

CUDART_EXPORT cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                                           size_t sharedMem, cudaStream_t stream) {
  return launch("cudaLaunchCooperativeKernel_ptsz", func, gridDim, blockDim, args, sharedMem, stream_ptsz(stream),
                true);
}

static cudaError_t launch_ex(const char *api, const cudaLaunchConfig_t *config, const void *func, void **args,
                             bool ptsz) {
  if (!config) return fail(api, cudaErrorInvalidValue, "the launch configuration is NULL");
  if (config->numAttrs && !config->attrs)
    return fail(api, cudaErrorInvalidValue, "%u launch attributes but attrs is NULL", config->numAttrs);
  bool cooperative = false;
  uint32_t cluster[3] = {0, 0, 0};
  for (unsigned i = 0; i < config->numAttrs; i++) {
    const cudaLaunchAttribute &a = config->attrs[i];
    switch (a.id) {
      case cudaLaunchAttributeIgnore:
      case cudaLaunchAttributeAccessPolicyWindow:
      case cudaLaunchAttributeSynchronizationPolicy:
      case cudaLaunchAttributePriority:
      case cudaLaunchAttributeClusterSchedulingPolicyPreference:
        break;  // accepted, no effect on the model
      case cudaLaunchAttributeCooperative:
        cooperative = a.val.cooperative != 0;
        break;
      case cudaLaunchAttributeClusterDimension:  // thread block clusters (sm_90)
        if (!a.val.clusterDim.x || !a.val.clusterDim.y || !a.val.clusterDim.z)
          return fail(api, cudaErrorInvalidClusterSize, "cluster dimension %ux%ux%u has a zero",
                      a.val.clusterDim.x, a.val.clusterDim.y, a.val.clusterDim.z);
        cluster[0] = a.val.clusterDim.x, cluster[1] = a.val.clusterDim.y, cluster[2] = a.val.clusterDim.z;
        break;
      default:
        return fail(api, cudaErrorNotSupported, "launch attribute %d is not supported by simtvp", (int)a.id);
    }
  }
  return launch(api, func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                ptsz ? stream_ptsz(config->stream) : stream_of(config->stream), cooperative, cluster);
}

CUDART_EXPORT cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args) {
  return launch_ex("cudaLaunchKernelExC", config, func, args, false);
}

CUDART_EXPORT cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func, void **args) {
  return launch_ex("cudaLaunchKernelExC_ptsz", config, func, args, true);
}

// ---- kernel attributes -------------------------------------------------------------------------

CUDART_EXPORT cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func) {
  const char *api = "cudaFuncGetAttributes";
  if (!attr) return fail(api, cudaErrorInvalidValue, "the attributes pointer is NULL");
  cu_function *f = nullptr;
  cudaError_t e = resolve_function(api, func, &f);
  if (e != cudaSuccess) return e;
  drv_function_attrs at;
  uint32_t max_dyn = 0;
  int c = cucore_function_attrs(f, &at, &max_dyn);
  if (c != CUDA_SUCCESS) return ret_cu(api, c);
  const drv_device_props *p = cucore_props();
  std::memset(attr, 0, sizeof *attr);
  attr->sharedSizeBytes = at.static_smem_bytes;
  attr->constSizeBytes = at.const_bytes;
  attr->localSizeBytes = at.local_bytes;
  attr->maxThreadsPerBlock = (int)at.max_threads_per_block;
  attr->numRegs = (int)at.regs_per_thread;
  attr->ptxVersion = (int)at.target_sm;  // the virtual architecture the PTX targets (75 = compute_75)
  attr->binaryVersion = p ? (int)(p->cc_major * 10 + p->cc_minor) : (int)at.target_sm;
  attr->maxDynamicSharedSizeBytes = (int)max_dyn;
  attr->preferredShmemCarveout = -1;
  uint32_t dims[3] = {0, 0, 0};
  if (cucore_function_cluster_dims(f, dims)) {
    attr->clusterDimMustBeSet = dims[0] == 0;
    attr->requiredClusterWidth = (int)dims[0];
    attr->requiredClusterHeight = (int)dims[1];
    attr->requiredClusterDepth = (int)dims[2];
  }
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value) {
  const char *api = "cudaFuncSetAttribute";
  cu_function *f = nullptr;
  cudaError_t e = resolve_function(api, func, &f);
  if (e != cudaSuccess) return e;
  switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
      if (value < 0) return fail(api, cudaErrorInvalidValue, "negative shared memory size %d", value);
      return ret_cu(api, cucore_function_set_max_dynamic_smem(f, (uint32_t)value));
    case cudaFuncAttributePreferredSharedMemoryCarveout:
      if (value < -1 || value > 100)
        return fail(api, cudaErrorInvalidValue, "shared memory carveout %d is not -1 or 0..100", value);
      return cudaSuccess;  // a hint; the configured L1/shared split stays
    case cudaFuncAttributeNonPortableClusterSizeAllowed:
      return ret_cu(api, cucore_function_allow_nonportable_cluster(f, value != 0));
    case cudaFuncAttributeClusterSchedulingPolicyPreference:
      return cudaSuccess;  // a hint: a cluster's CTAs are placed together anyway
    case cudaFuncAttributeRequiredClusterWidth:
    case cudaFuncAttributeRequiredClusterHeight:
    case cudaFuncAttributeRequiredClusterDepth:
      return fail(api, cudaErrorNotSupported, "simtvp takes cluster dimensions from __cluster_dims__ or the launch "
                  "attribute cudaLaunchAttributeClusterDimension, not from cudaFuncSetAttribute");
    default:
      return fail(api, cudaErrorInvalidValue, "function attribute %d cannot be set", (int)attr);
  }
}

CUDART_EXPORT cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig) {
  const char *api = "cudaFuncSetCacheConfig";
  cu_function *f = nullptr;
  cudaError_t e = resolve_function(api, func, &f);
  if (e != cudaSuccess) return e;
  if ((int)cacheConfig < 0 || (int)cacheConfig > 3)
    return fail(api, cudaErrorInvalidValue, "cache configuration %d", (int)cacheConfig);
  return cudaSuccess;  // a preference; the configured L1/shared split stays
}

CUDART_EXPORT cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config) {
  const char *api = "cudaFuncSetSharedMemConfig";
  cu_function *f = nullptr;
  cudaError_t e = resolve_function(api, func, &f);
  if (e != cudaSuccess) return e;
  if ((int)config < 0 || (int)config > 2) return fail(api, cudaErrorInvalidValue, "shared memory config %d", (int)config);
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func,
                                                                                 int blockSize, size_t dynamicSMemSize,
                                                                                 unsigned int flags) {
  const char *api = "cudaOccupancyMaxActiveBlocksPerMultiprocessor";
  if (!numBlocks) return fail(api, cudaErrorInvalidValue, "the result pointer is NULL");
  if (flags & ~1u) return fail(api, cudaErrorInvalidValue, "flags 0x%x", flags);
  if (blockSize <= 0) return fail(api, cudaErrorInvalidValue, "block size %d", blockSize);
  cu_function *f = nullptr;
  cudaError_t e = resolve_function(api, func, &f);
  if (e != cudaSuccess) return e;
  uint32_t n = 0;
  int c = cucore_occupancy(f, (uint32_t)blockSize, dynamicSMemSize > UINT32_MAX ? UINT32_MAX : (uint32_t)dynamicSMemSize,
                           &n);
  if (c != CUDA_SUCCESS) return ret_cu(api, c);
  *numBlocks = (int)n;
  return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                                        int blockSize, size_t dynamicSMemSize) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, 0);
}

CUDART_EXPORT cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *func,
                                                                    int numBlocks, int blockSize) {
  const char *api = "cudaOccupancyAvailableDynamicSMemPerBlock";
  if (!dynamicSmemSize) return fail(api, cudaErrorInvalidValue, "the result pointer is NULL");
  if (numBlocks <= 0 || blockSize <= 0)
    return fail(api, cudaErrorInvalidValue, "%d blocks of %d threads", numBlocks, blockSize);
  cu_function *f = nullptr;
  cudaError_t e = resolve_function(api, func, &f);
  if (e != cudaSuccess) return e;
  drv_function_attrs at;
  uint32_t max_dyn = 0;
  int c = cucore_function_attrs(f, &at, &max_dyn);
  if (c != CUDA_SUCCESS) return ret_cu(api, c);
  // The largest dynamic size that still lets numBlocks blocks be resident (search in 256-byte steps).
  uint32_t best = 0;
  for (uint32_t s = 0; s <= max_dyn; s += 256) {
    uint32_t n = 0;
    if (cucore_occupancy(f, (uint32_t)blockSize, s, &n) != CUDA_SUCCESS || n < (uint32_t)numBlocks) break;
    best = s;
  }
  *dynamicSmemSize = best;
  return cudaSuccess;
}
