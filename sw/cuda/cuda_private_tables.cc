// cuda_private_tables.cc — cuGetExportTable: the private function tables NVIDIA's runtime asks
// its driver for by UUID. The statically linked runtime (nvcc's default -cudart static) cannot
// start without them: it loads its fatbins, keeps its per-context state and checks the driver
// through them (docs/cudart.md "The static runtime").
//
// The layouts are not documented by NVIDIA. What is here was learned from what CUDA 13.0's
// runtime asks for (SIMTVP_CUDA_TRACE_ENTRY=1 shows every request and call) and from public
// re-implementations of the driver API that describe the same tables. A table is an array of
// pointers; slot 0 usually holds the table's size in bytes. A slot whose meaning is unknown holds
// a function that stops the program with a message saying how to rebuild it, so an unknown
// request never continues on a guess.
#include <pthread.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "cuda_api_internal.h"
#include "cuda_entry.h"
#include "hmac_md2.h"

namespace {

using Slot = const void *;

enum TableId { T_CUDART, T_TOOLS_TLS, T_TOOLS_HOOKS, T_CONTEXT_STORAGE, T_CONTEXT_CHECKS, T_INTEGRITY, N_TABLES };

const char *const kTableNames[N_TABLES] = {"cudart interface", "tools TLS", "tools runtime callback hooks",
                                           "context-local storage", "context checks", "integrity check"};

void trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void trace(const char *fmt, ...) {
  if (!cuentry::trace_enabled()) return;
  va_list ap;
  va_start(ap, fmt);
  std::fputs("simtvp: ", stderr);
  std::vfprintf(stderr, fmt, ap);
  std::fputc('\n', stderr);
  va_end(ap);
}

// A slot whose contract is unknown: continuing would be a guess, so the program stops here with
// a message that names the slot and the way out.
[[noreturn]] void unknown_slot(int table, int slot) {
  std::fflush(stdout);
  std::fprintf(stderr,
               "simtvp: this program carries NVIDIA's CUDA runtime inside it (nvcc's default, -cudart static), and\n"
               "simtvp: that runtime called private driver function %d of the %s table, which simtvp does not\n"
               "simtvp: provide. Rebuild the program with `nvcc -cudart shared` so it uses simtvp's libcudart.so.13\n"
               "simtvp: (docs/cudart.md, \"The static runtime\").\n",
               slot, kTableNames[table]);
  std::fflush(stderr);
  std::_Exit(1);
}

template <int Table, int Index>
int unknown() {
  unknown_slot(Table, Index);
}

#define SIZE_SLOT(n) reinterpret_cast<Slot>(sizeof(Slot) * (n))
#define UNKNOWN(t, i) reinterpret_cast<Slot>(&unknown<t, i>)

// ---- cudart interface: modules from the program's fatbins, the primary context ------------------

CUcontext current_or_primary() {
  CUcontext c = nullptr;
  if (cuCtxGetCurrent(&c) != CUDA_SUCCESS) return nullptr;
  return c;
}

CUresult load_module(const char *what, CUmodule *out, const void *image) {
  if (!out || !image) return CUDA_ERROR_INVALID_VALUE;
  cu_module *m = nullptr;
  int r = cucore_module_load_image(reinterpret_cast<cu_ctx *>(current_or_primary()), image, 0, what, &m);
  if (r != CUDA_SUCCESS) {
    const char *n = cu_result_name(r);
    cucore_report("CUDA runtime module load", n ? n : "CUDA_ERROR_UNKNOWN");
    return r;
  }
  *out = reinterpret_cast<CUmodule>(m);
  return CUDA_SUCCESS;
}

// Slot 1: a module from a fatbin wrapper (__fatBinC_Wrapper_t, as nvcc's host code registers it).
CUresult module_from_wrapper(CUmodule *out, const void *wrapper) {
  trace("cudart interface: module from fatbin wrapper %p", wrapper);
  return load_module("fatbin", out, wrapper);
}

// Slot 2: the primary context of a device, created if needed but not made current.
CUresult primary_context(CUcontext *out, CUdevice dev) {
  trace("cudart interface: primary context of device %d", dev);
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
  cu_ctx *c = nullptr;
  int r = cucore_primary_ctx(&c);
  if (r == CUDA_SUCCESS) *out = reinterpret_cast<CUcontext>(c);
  return r;
}

// Slots 6 and 8: the same with three further arguments whose meaning is unknown; the runtime
// passes none (NULL, NULL, 0) for ordinary programs. Anything else is refused by name.
CUresult check_extra(const char *what, const void *a3, const void *a4, unsigned a5) {
  if (!a3 && !a4 && !a5) return CUDA_SUCCESS;
  cucore_fail(CUDA_ERROR_NOT_SUPPORTED,
              "the static CUDA runtime asked for a %s with options simtvp does not know (%p, %p, %u); rebuild "
              "the program with `nvcc -cudart shared`", what, a3, a4, a5);
  cucore_report("CUDA runtime module load", "CUDA_ERROR_NOT_SUPPORTED");
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult module_from_wrapper_ext(CUmodule *out, const void *wrapper, void *a3, void *a4, unsigned a5) {
  trace("cudart interface: module from fatbin wrapper %p (%p, %p, %u)", wrapper, a3, a4, a5);
  if (CUresult r = check_extra("module", a3, a4, a5)) return r;
  return load_module("fatbin", out, wrapper);
}

CUresult module_from_fatbin_ext(const void *fatbin, CUmodule *out, void *a3, void *a4, unsigned a5) {
  trace("cudart interface: module from fatbin %p (%p, %p, %u)", fatbin, a3, a4, a5);
  if (CUresult r = check_extra("module", a3, a4, a5)) return r;
  return load_module("fatbin", out, fatbin);
}

// Slot 7: called once during start-up with one argument; nothing for simtvp to do.
void startup_notice(size_t arg) { trace("cudart interface: start-up notice %zu", arg); }

// Slot 12: loads NVIDIA's JIT compilers (PTX, NVVM); simtvp executes PTX and needs none.
CUresult load_compilers() {
  trace("cudart interface: load compilers");
  return CUDA_SUCCESS;
}

const Slot kCudartInterface[13] = {
    SIZE_SLOT(13),
    reinterpret_cast<Slot>(&module_from_wrapper),
    reinterpret_cast<Slot>(&primary_context),
    UNKNOWN(T_CUDART, 3),
    UNKNOWN(T_CUDART, 4),
    UNKNOWN(T_CUDART, 5),
    reinterpret_cast<Slot>(&module_from_wrapper_ext),
    reinterpret_cast<Slot>(&startup_notice),
    reinterpret_cast<Slot>(&module_from_fatbin_ext),
    UNKNOWN(T_CUDART, 9),
    UNKNOWN(T_CUDART, 10),
    UNKNOWN(T_CUDART, 11),
    reinterpret_cast<Slot>(&load_compilers),
};

// ---- tools: TLS size and the callback-hook buffers a profiler would fill --------------------------

const Slot kToolsTls[4] = {SIZE_SLOT(4), UNKNOWN(T_TOOLS_TLS, 1), UNKNOWN(T_TOOLS_TLS, 2), UNKNOWN(T_TOOLS_TLS, 3)};

// Slots 2 and 6 hand the runtime two zeroed buffers (no tool attached); sizes as the runtime
// expects them, in 32-bit words, the buffers sized in words so any reading of the size fits.
uint32_t g_hook_buffer1[1024];
uint32_t g_hook_buffer2[14];

void hook_buffer1(void **ptr, size_t *size) {
  trace("tools hooks: buffer 1");
  if (ptr) *ptr = g_hook_buffer1;
  if (size) *size = sizeof g_hook_buffer1 / sizeof g_hook_buffer1[0];
}
void hook_buffer2(void **ptr, size_t *size) {
  trace("tools hooks: buffer 2");
  if (ptr) *ptr = g_hook_buffer2;
  if (size) *size = sizeof g_hook_buffer2 / sizeof g_hook_buffer2[0];
}

const Slot kToolsHooks[7] = {SIZE_SLOT(7),
                             UNKNOWN(T_TOOLS_HOOKS, 1),
                             reinterpret_cast<Slot>(&hook_buffer1),
                             UNKNOWN(T_TOOLS_HOOKS, 3),
                             UNKNOWN(T_TOOLS_HOOKS, 4),
                             UNKNOWN(T_TOOLS_HOOKS, 5),
                             reinterpret_cast<Slot>(&hook_buffer2)};

// ---- context-local storage: the runtime's per-context state, keyed by (context, key) ------------

using StorageDtor = void (*)(CUcontext, void *key, void *value);

struct StorageEntry {
  void *value;
  StorageDtor dtor;
};

struct Storage {
  std::mutex mu;
  std::map<std::pair<CUcontext, void *>, StorageEntry> entries;
};

Storage &storage() {
  static Storage *s = new Storage;  // outlives static destructors: the runtime deletes at exit
  return *s;
}

CUresult storage_context(CUcontext *ctx) {
  if (!*ctx) *ctx = current_or_primary();
  if (!*ctx) *ctx = reinterpret_cast<CUcontext>(cucore_primary_peek());
  if (!*ctx || !cucore_ctx_valid(reinterpret_cast<cu_ctx *>(*ctx))) return CUDA_ERROR_INVALID_CONTEXT;
  return CUDA_SUCCESS;
}

CUresult storage_put(CUcontext ctx, void *key, void *value, StorageDtor dtor) {
  CUresult r = storage_context(&ctx);
  trace("context storage: put %p in context %p key %p -> %s", value, (void *)ctx, key, cu_result_name(r));
  if (r != CUDA_SUCCESS) return r;
  Storage &s = storage();
  std::lock_guard<std::mutex> lock(s.mu);
  s.entries[{ctx, key}] = StorageEntry{value, dtor};
  return CUDA_SUCCESS;
}

CUresult storage_delete(CUcontext ctx, void *key) {
  CUresult r = storage_context(&ctx);
  trace("context storage: delete in context %p key %p -> %s", (void *)ctx, key, cu_result_name(r));
  if (r != CUDA_SUCCESS) return r;
  Storage &s = storage();
  std::lock_guard<std::mutex> lock(s.mu);
  s.entries.erase({ctx, key});
  return CUDA_SUCCESS;
}

CUresult storage_get(void **value, CUcontext ctx, void *key) {
  CUresult r = storage_context(&ctx);
  if (r == CUDA_SUCCESS && !value) r = CUDA_ERROR_INVALID_VALUE;
  if (r == CUDA_SUCCESS) {
    Storage &s = storage();
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.entries.find({ctx, key});
    if (it == s.entries.end()) r = CUDA_ERROR_INVALID_HANDLE;  // nothing stored yet
    else *value = it->second.value;
  }
  trace("context storage: get in context %p key %p -> %s", (void *)ctx, key, cu_result_name(r));
  return r;
}

const Slot kContextStorage[4] = {reinterpret_cast<Slot>(&storage_put), reinterpret_cast<Slot>(&storage_delete),
                                 reinterpret_cast<Slot>(&storage_get), UNKNOWN(T_CONTEXT_STORAGE, 3)};

// ---- context checks ---------------------------------------------------------------------------------

// Slot 2: asked about a context at start-up; answers "no condition" (0) in the first result.
CUresult context_check(CUcontext ctx, uint32_t *result, const void **detail) {
  trace("context checks: context %p", (void *)ctx);
  (void)detail;
  if (result) *result = 0;
  return CUDA_SUCCESS;
}
// Slot 3: answers 0.
uint32_t context_check_flags() {
  trace("context checks: flags");
  return 0;
}

const Slot kContextChecks[4] = {SIZE_SLOT(4), UNKNOWN(T_CONTEXT_CHECKS, 1), reinterpret_cast<Slot>(&context_check),
                                reinterpret_cast<Slot>(&context_check_flags)};

// ---- integrity check --------------------------------------------------------------------------------

CUresult integrity_check(uint32_t version, uint64_t unix_seconds, uint64_t result[2]);

const Slot kIntegrity[3] = {SIZE_SLOT(3), reinterpret_cast<Slot>(&integrity_check), UNKNOWN(T_INTEGRITY, 2)};

// The runtime proves the driver it talks to is the one that handed out these tables: it asks for an
// HMAC-MD2 (fixed key) over the driver version, the runtime's check version, the calling process
// and thread, the addresses of the cudart-interface table, this table and this function, the time
// it passes in, and each device's UUID and PCI domain/bus/device, and compares it with its own.
// Check versions ending in 0 or 1 expect fixed answers.
CUresult integrity_check(uint32_t version, uint64_t unix_seconds, uint64_t result[2]) {
  trace("integrity check: version %u, time %llu", version, (unsigned long long)unix_seconds);
  if (!result) return CUDA_ERROR_INVALID_VALUE;
  if (version % 10 == 0 || version % 10 == 1) {
    result[0] = version % 10 == 0 ? 0x3341181C03CB675Cull : 0x1841181C03CB675Cull;
    result[1] = 0x8ED383AA1F4CD1E8ull;
    return CUDA_SUCCESS;
  }
  static const uint8_t kKey[16] = {0x14, 0x6A, 0xDD, 0xAE, 0x53, 0xA9, 0xA7, 0x52,
                                   0xAA, 0x08, 0x41, 0x36, 0x0B, 0xF5, 0x5A, 0x9F};
  struct {
    uint32_t driver_version, version, process, thread;
    uint64_t cudart_table, integrity_table, function, unix_seconds;
  } record = {(uint32_t)cuentry::kDriverVersion,
              version,
              (uint32_t)getpid(),
              (uint32_t)(uintptr_t)pthread_self(),
              (uint64_t)(uintptr_t)kCudartInterface,
              (uint64_t)(uintptr_t)kIntegrity,
              (uint64_t)(uintptr_t)kIntegrity[1],
              unix_seconds};
  static_assert(sizeof record == 48, "the record is hashed as 48 packed bytes");
  cuentry::HmacMd2 mac(kKey);
  mac.update(&record, sizeof record);
  int count = 0;
  if (CUresult r = cuDeviceGetCount(&count)) return r;
  for (int dev = 0; dev < count; dev++) {
    struct {
      uint8_t uuid[16];
      int32_t pci_domain, pci_bus, pci_device;
    } d;
    static_assert(sizeof d == 28, "a device is hashed as 28 packed bytes");
    CUresult r = cuDeviceGetUuid_v2(d.uuid, dev);
    if (!r) r = cuDeviceGetAttribute(&d.pci_domain, 50, dev);  // CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID
    if (!r) r = cuDeviceGetAttribute(&d.pci_bus, 33, dev);     // CU_DEVICE_ATTRIBUTE_PCI_BUS_ID
    if (!r) r = cuDeviceGetAttribute(&d.pci_device, 34, dev);  // CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID
    if (r) return r;
    mac.update(&d, sizeof d);
  }
  uint8_t digest[16];
  mac.final(digest);
  std::memcpy(result, digest, 16);
  return CUDA_SUCCESS;
}

// ---- the directory ------------------------------------------------------------------------------

struct Table {
  uint8_t uuid[16];
  TableId id;
  const Slot *slots;
};

const Table kTables[] = {
    {{0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9}, T_CUDART,
     kCudartInterface},
    {{0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc}, T_TOOLS_TLS,
     kToolsTls},
    {{0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66}, T_TOOLS_HOOKS,
     kToolsHooks},
    {{0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93},
     T_CONTEXT_STORAGE, kContextStorage},
    {{0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e},
     T_CONTEXT_CHECKS, kContextChecks},
    {{0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2}, T_INTEGRITY,
     kIntegrity},
};

}  // namespace

namespace cuentry {

void context_storage_release(CUcontext ctx) {
  std::vector<std::pair<std::pair<CUcontext, void *>, StorageEntry>> released;
  {
    Storage &s = storage();
    std::lock_guard<std::mutex> lock(s.mu);
    for (auto it = s.entries.begin(); it != s.entries.end();) {
      if (!ctx || it->first.first == ctx) {
        released.push_back(*it);
        it = s.entries.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto &e : released) {
    trace("context storage: destructor of context %p key %p", (void *)e.first.first, e.first.second);
    if (e.second.dtor) e.second.dtor(e.first.first, e.first.second, e.second.value);
  }
}

}  // namespace cuentry

CU_EXPORT CUresult cuGetExportTable(const void **ppExportTable, const void *pExportTableId) {
  if (!ppExportTable || !pExportTableId) return CUDA_ERROR_INVALID_VALUE;
  const uint8_t *id = static_cast<const uint8_t *>(pExportTableId);
  char text[40];
  for (int i = 0, o = 0; i < 16; i++) o += std::snprintf(text + o, sizeof text - (size_t)o, "%s%02x",
                                                         i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", id[i]);
  for (const Table &t : kTables) {
    if (std::memcmp(t.uuid, id, 16) == 0) {
      trace("cuGetExportTable(%s) -> the %s table", text, kTableNames[t.id]);
      *ppExportTable = t.slots;
      return CUDA_SUCCESS;
    }
  }
  trace("cuGetExportTable(%s) -> not provided", text);
  *ppExportTable = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}
