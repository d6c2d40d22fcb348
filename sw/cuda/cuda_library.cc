// cuda_library.cc — libraries and kernels (cuLibrary*, cuKernel*): context-independent modules,
// the way CUDA 12+ runtimes load a program's fatbins (the statically linked runtime does so for
// every program). A library is a module of no context (cucore_library_load); a CUkernel is the
// function handle of one of its kernels and is accepted wherever a CUfunction is (launches,
// attributes), and cuKernelGetFunction / cuLibraryGetModule return the same handles.
// docs/cudart.md "The driver API".
#include <errno.h>

#include <cstring>
#include <string>
#include <vector>

#include "cuda_api_internal.h"

using namespace cuapi;

namespace {

cu_module *library_of(CUlibrary l) { return reinterpret_cast<cu_module *>(l); }
cu_function *kernel_of(CUkernel k) { return reinterpret_cast<cu_function *>(k); }

CUresult check_library(const char *api, CUlibrary lib) {
  if (!cucore_module_is_library(library_of(lib))) {
    cucore_fail(CUDA_ERROR_INVALID_HANDLE, "library %p is not a loaded library", (void *)lib);
    return report(api, CUDA_ERROR_INVALID_HANDLE);
  }
  return CUDA_SUCCESS;
}

CUresult check_kernel(const char *api, CUkernel k) {
  cu_module *m = cucore_function_module(kernel_of(k));
  if (!m || !cucore_module_is_library(m)) {
    cucore_fail(CUDA_ERROR_INVALID_HANDLE, "kernel %p is not a kernel of a loaded library", (void *)k);
    return report(api, CUDA_ERROR_INVALID_HANDLE);
  }
  return CUDA_SUCCESS;
}

// JIT and library options are accepted: there is no JIT (PTX runs as it is) and the image is
// placed at load time, so "binary is preserved" and the host tables change nothing.
CUresult check_options(const char *api, unsigned nJit, void *jitOptions, void *jitValues, unsigned nLib,
                       void *libOptions, void *libValues) {
  if ((nJit && (!jitOptions || !jitValues)) || (nLib && (!libOptions || !libValues)))
    return fail(api, CUDA_ERROR_INVALID_VALUE, "options given without their arrays");
  return CUDA_SUCCESS;
}

}  // namespace

CU_EXPORT CUresult cuLibraryLoadData(CUlibrary *library, const void *code, void *jitOptions, void **jitOptionsValues,
                                     unsigned int numJitOptions, void *libraryOptions, void **libraryOptionValues,
                                     unsigned int numLibraryOptions) {
  NEED_INIT("cuLibraryLoadData");
  if (!library || !code) return fail("cuLibraryLoadData", CUDA_ERROR_INVALID_VALUE, "a NULL pointer");
  if (CUresult r = check_options("cuLibraryLoadData", numJitOptions, jitOptions, jitOptionsValues, numLibraryOptions,
                                 libraryOptions, libraryOptionValues))
    return r;
  // The name in messages: "<program> fatbin <n>" for the n-th fatbin (what a program's runtime
  // loads, in registration order: the same name libcudart.so.13 gives it), else "library <n>".
  static unsigned fatbins = 0, others = 0;
  uint32_t magic = 0;
  std::memcpy(&magic, code, 4);
  bool fatbin = magic == 0x466243b1u || magic == 0xba55ed50u;  // wrapper, container
  std::string name = std::string(program_invocation_short_name) + (fatbin ? " fatbin " : " library ") +
                     std::to_string(fatbin ? fatbins++ : others++);
  cu_module *m = nullptr;
  CUresult r = report("cuLibraryLoadData", cucore_library_load(code, 0, nullptr, name.c_str(), &m));
  if (r == CUDA_SUCCESS) *library = reinterpret_cast<CUlibrary>(m);
  return r;
}

CU_EXPORT CUresult cuLibraryLoadFromFile(CUlibrary *library, const char *fileName, void *jitOptions,
                                         void **jitOptionsValues, unsigned int numJitOptions, void *libraryOptions,
                                         void **libraryOptionValues, unsigned int numLibraryOptions) {
  NEED_INIT("cuLibraryLoadFromFile");
  if (!library || !fileName) return fail("cuLibraryLoadFromFile", CUDA_ERROR_INVALID_VALUE, "a NULL pointer");
  if (CUresult r = check_options("cuLibraryLoadFromFile", numJitOptions, jitOptions, jitOptionsValues,
                                 numLibraryOptions, libraryOptions, libraryOptionValues))
    return r;
  cu_module *m = nullptr;
  CUresult r = report("cuLibraryLoadFromFile", cucore_library_load(nullptr, 0, fileName, fileName, &m));
  if (r == CUDA_SUCCESS) *library = reinterpret_cast<CUlibrary>(m);
  return r;
}

CU_EXPORT CUresult cuLibraryUnload(CUlibrary library) {
  NEED_INIT("cuLibraryUnload");
  if (CUresult r = check_library("cuLibraryUnload", library)) return r;
  return report("cuLibraryUnload", cucore_module_unload(library_of(library)));
}

CU_EXPORT CUresult cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name) {
  NEED_INIT("cuLibraryGetKernel");
  if (!pKernel || !name) return fail("cuLibraryGetKernel", CUDA_ERROR_INVALID_VALUE, "a NULL pointer");
  if (CUresult r = check_library("cuLibraryGetKernel", library)) return r;
  cu_function *f = nullptr;
  CUresult r = report("cuLibraryGetKernel", cucore_module_function(library_of(library), name, &f));
  if (r == CUDA_SUCCESS) *pKernel = reinterpret_cast<CUkernel>(f);
  return r;
}

CU_EXPORT CUresult cuLibraryGetKernelCount(unsigned int *count, CUlibrary lib) {
  NEED_INIT("cuLibraryGetKernelCount");
  if (!count) return fail("cuLibraryGetKernelCount", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  if (CUresult r = check_library("cuLibraryGetKernelCount", lib)) return r;
  uint32_t n = 0;
  CUresult r = report("cuLibraryGetKernelCount", cucore_module_kernels(library_of(lib), nullptr, 0, &n));
  if (r == CUDA_SUCCESS) *count = n;
  return r;
}

CU_EXPORT CUresult cuLibraryEnumerateKernels(CUkernel *kernels, unsigned int numKernels, CUlibrary lib) {
  NEED_INIT("cuLibraryEnumerateKernels");
  if (!kernels) return fail("cuLibraryEnumerateKernels", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  if (CUresult r = check_library("cuLibraryEnumerateKernels", lib)) return r;
  uint32_t n = 0;
  CUresult r = report("cuLibraryEnumerateKernels", cucore_module_kernels(library_of(lib), nullptr, 0, &n));
  if (r != CUDA_SUCCESS) return r;
  std::vector<const char *> names(n);
  cucore_module_kernels(library_of(lib), names.data(), n, &n);
  for (unsigned i = 0; i < numKernels && i < n; i++) {
    cu_function *f = nullptr;
    if ((r = report("cuLibraryEnumerateKernels", cucore_module_function(library_of(lib), names[i], &f))))
      return r;
    kernels[i] = reinterpret_cast<CUkernel>(f);
  }
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuLibraryGetModule(CUmodule *pMod, CUlibrary library) {
  NEED_INIT("cuLibraryGetModule");
  if (!pMod) return fail("cuLibraryGetModule", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  if (CUresult r = check_library("cuLibraryGetModule", library)) return r;
  *pMod = reinterpret_cast<CUmodule>(library);
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel) {
  NEED_INIT("cuKernelGetFunction");
  if (!pFunc) return fail("cuKernelGetFunction", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  if (CUresult r = check_kernel("cuKernelGetFunction", kernel)) return r;
  *pFunc = reinterpret_cast<CUfunction>(kernel);
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuKernelGetLibrary(CUlibrary *pLib, CUkernel kernel) {
  NEED_INIT("cuKernelGetLibrary");
  if (!pLib) return fail("cuKernelGetLibrary", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  if (CUresult r = check_kernel("cuKernelGetLibrary", kernel)) return r;
  *pLib = reinterpret_cast<CUlibrary>(cucore_function_module(kernel_of(kernel)));
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name) {
  NEED_INIT("cuLibraryGetGlobal");
  if (CUresult r = check_library("cuLibraryGetGlobal", library)) return r;
  uint64_t a = 0, n = 0;
  CUresult r = report("cuLibraryGetGlobal", cucore_module_global(library_of(library), name, &a, &n));
  if (r == CUDA_SUCCESS) {
    if (dptr) *dptr = a;
    if (bytes) *bytes = (size_t)n;
  }
  return r;
}

// A __managed__ variable: the module variable gets its host mirror at the same address
// (docs/cudart.md "Memory"), once.
CU_EXPORT CUresult cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name) {
  NEED_INIT("cuLibraryGetManaged");
  if (CUresult r = check_library("cuLibraryGetManaged", library)) return r;
  uint64_t a = 0, n = 0;
  CUresult r = report("cuLibraryGetManaged", cucore_module_global(library_of(library), name, &a, &n));
  if (r != CUDA_SUCCESS) return r;
  cu_mem_info info;
  cucore_mem_classify(a, &info);
  if (info.type != CU_MEM_MANAGED) {
    r = report("cuLibraryGetManaged", cucore_managed_adopt(library_of(library), a, n));
    if (r != CUDA_SUCCESS) return r;
  }
  if (dptr) *dptr = a;
  if (bytes) *bytes = (size_t)n;
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuKernelGetName(const char **name, CUkernel hfunc) {
  NEED_INIT("cuKernelGetName");
  if (!name) return fail("cuKernelGetName", CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  if (CUresult r = check_kernel("cuKernelGetName", hfunc)) return r;
  *name = cucore_function_name(kernel_of(hfunc));
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t *paramOffset, size_t *paramSize) {
  NEED_INIT("cuKernelGetParamInfo");
  if (!paramOffset && !paramSize) return fail("cuKernelGetParamInfo", CUDA_ERROR_INVALID_VALUE, "no result pointer");
  if (CUresult r = check_kernel("cuKernelGetParamInfo", kernel)) return r;
  uint32_t off = 0, n = 0;
  CUresult r = report("cuKernelGetParamInfo", cucore_function_param(kernel_of(kernel), paramIndex > UINT32_MAX
                                                                     ? UINT32_MAX : (uint32_t)paramIndex, &off, &n));
  if (r != CUDA_SUCCESS) return r;
  if (paramOffset) *paramOffset = off;
  if (paramSize) *paramSize = n;
  return CUDA_SUCCESS;
}

CU_EXPORT CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset, size_t *paramSize) {
  NEED_INIT("cuFuncGetParamInfo");
  if (!paramOffset && !paramSize) return fail("cuFuncGetParamInfo", CUDA_ERROR_INVALID_VALUE, "no result pointer");
  uint32_t off = 0, n = 0;
  CUresult r = report("cuFuncGetParamInfo", cucore_function_param(function_of(func), paramIndex > UINT32_MAX
                                                                   ? UINT32_MAX : (uint32_t)paramIndex, &off, &n));
  if (r != CUDA_SUCCESS) return r;
  if (paramOffset) *paramOffset = off;
  if (paramSize) *paramSize = n;
  return CUDA_SUCCESS;
}

// Attributes of a kernel are those of its function on the one device.
CU_EXPORT CUresult cuKernelGetAttribute(int *pi, int attrib, CUkernel kernel, CUdevice dev) {
  NEED_INIT("cuKernelGetAttribute");
  if (dev != 0) return fail("cuKernelGetAttribute", CUDA_ERROR_INVALID_DEVICE, "simtvp models one GPU (device 0)");
  if (CUresult r = check_kernel("cuKernelGetAttribute", kernel)) return r;
  return cuFuncGetAttribute(pi, attrib, reinterpret_cast<CUfunction>(kernel));
}

CU_EXPORT CUresult cuKernelSetAttribute(int attrib, int val, CUkernel kernel, CUdevice dev) {
  NEED_INIT("cuKernelSetAttribute");
  if (dev != 0) return fail("cuKernelSetAttribute", CUDA_ERROR_INVALID_DEVICE, "simtvp models one GPU (device 0)");
  if (CUresult r = check_kernel("cuKernelSetAttribute", kernel)) return r;
  return cuFuncSetAttribute(reinterpret_cast<CUfunction>(kernel), attrib, val);
}

CU_EXPORT CUresult cuKernelSetCacheConfig(CUkernel kernel, int config, CUdevice dev) {
  NEED_INIT("cuKernelSetCacheConfig");
  if (dev != 0) return fail("cuKernelSetCacheConfig", CUDA_ERROR_INVALID_DEVICE, "simtvp models one GPU (device 0)");
  if (CUresult r = check_kernel("cuKernelSetCacheConfig", kernel)) return r;
  return cuFuncSetCacheConfig(reinterpret_cast<CUfunction>(kernel), config);
}
