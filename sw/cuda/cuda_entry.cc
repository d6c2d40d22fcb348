// cuda_entry.cc — cuGetProcAddress / cuGetProcAddress_v2: driver entry points by name and CUDA
// version, the way NVIDIA's statically linked runtime (nvcc's default -cudart static) finds every
// driver function it calls (docs/cudart.md "The static runtime").
//
// A name resolves to the newest ABI variant introduced at or before the requested version
// (cuda_proc_table.inc, generated from cudaTypedefs.h: cuMemAlloc at 3020 is cuMemAlloc_v2, at
// 2000 the 32-bit cuMemAlloc); with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM its _ptds/_ptsz
// form is preferred where one exists. The address is the symbol libcuda.so.1 exports under that
// name, so a function simtvp does not implement resolves to its not-supported entry point, which
// names itself when called. SIMTVP_CUDA_TRACE_ENTRY=1 prints every request and its answer.
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cuda_api_internal.h"
#include "cuda_entry.h"

namespace {

struct ProcVariant {
  const char *name;
  int version;  // CUDA version that introduced this ABI variant
  const char *symbol;
};

const ProcVariant kVariants[] = {
#include "cuda_proc_table.inc"
};

// CUdriverProcAddressQueryResult and CUdriverProcAddress_flags.
enum { PROC_FOUND = 0, PROC_SYMBOL_NOT_FOUND = 1, PROC_VERSION_NOT_SUFFICIENT = 2 };
enum { PROC_PER_THREAD_DEFAULT_STREAM = 2 };

// This library, for dlsym: symbols are looked up in libcuda.so.1 itself, never in the program.
void *self() {
  static void *handle = [] {
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void *>(&cuGetProcAddress_v2), &info) || !info.dli_fname) return (void *)nullptr;
    return dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  }();
  return handle;
}

// The exported symbol for (name, version): nullptr with *status set when there is none.
const char *resolve(const char *name, int version, int *status) {
  auto lo = std::lower_bound(std::begin(kVariants), std::end(kVariants), name,
                             [](const ProcVariant &v, const char *n) { return std::strcmp(v.name, n) < 0; });
  const ProcVariant *best = nullptr;
  bool known = false;
  for (auto it = lo; it != std::end(kVariants) && std::strcmp(it->name, name) == 0; ++it) {
    known = true;
    if (it->version <= version) best = &*it;
  }
  *status = best ? PROC_FOUND : known ? PROC_VERSION_NOT_SUFFICIENT : PROC_SYMBOL_NOT_FOUND;
  return best ? best->symbol : nullptr;
}

CUresult get_proc_address(const char *api, const char *symbol, void **pfn, int version, unsigned long long flags,
                          int *status_out) {
  int status = PROC_SYMBOL_NOT_FOUND;
  std::string chosen;
  void *address = nullptr;
  if (!symbol || !pfn) {
    cucore_fail(CUDA_ERROR_INVALID_VALUE, "%s is NULL", !symbol ? "the symbol name" : "the result pointer");
    cucore_report(api, "CUDA_ERROR_INVALID_VALUE");
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (version > cuentry::kDriverVersion) {
    cucore_fail(CUDA_ERROR_INVALID_VALUE, "%s requested for CUDA %d, newer than the driver (CUDA %d)", symbol, version,
                cuentry::kDriverVersion);
    cucore_report(api, "CUDA_ERROR_INVALID_VALUE");
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (const char *base = resolve(symbol, version, &status)) {
    if (flags & PROC_PER_THREAD_DEFAULT_STREAM) {
      for (const char *suffix : {"_ptds", "_ptsz"}) {
        std::string s = std::string(base) + suffix;
        if (void *p = dlsym(self(), s.c_str())) {
          chosen = s;
          address = p;
          break;
        }
      }
    }
    if (!address) {
      chosen = base;
      address = dlsym(self(), base);
    }
    if (!address) status = PROC_SYMBOL_NOT_FOUND;
  }
  *pfn = address;
  if (status_out) *status_out = status;
  if (cuentry::trace_enabled())
    std::fprintf(stderr, "simtvp: %s(\"%s\", CUDA %d, flags %llu) -> %s\n", api, symbol, version, flags,
                 address ? chosen.c_str()
                         : status == PROC_VERSION_NOT_SUFFICIENT ? "(newer than the requested version)" : "(unknown)");
  return CUDA_SUCCESS;  // not found: success with *pfn NULL (CUDA's documented behaviour)
}

}  // namespace

namespace cuentry {

bool trace_enabled() {
  static const bool on = [] {
    const char *e = std::getenv("SIMTVP_CUDA_TRACE_ENTRY");
    return e && *e && std::strcmp(e, "0") != 0;
  }();
  return on;
}

}  // namespace cuentry

CU_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, unsigned long long flags,
                                       int *symbolStatus) {
  return get_proc_address("cuGetProcAddress", symbol, pfn, cudaVersion, flags, symbolStatus);
}

CU_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, unsigned long long flags) {
  return get_proc_address("cuGetProcAddress", symbol, pfn, cudaVersion, flags, nullptr);
}
