// cu_memory.cc — device, pinned and managed memory; copies and memsets in stream order
// (cu_core.h, docs/cudart.md "Memory").
//
// Pinned memory is system memory of the platform allocated through the driver's bus, so a copy
// from or to it is a real DMA by the copy engine. Its host view comes from the platform
// (cu_platform.sysmem_ptr); without one, pinned memory is ordinary host memory that copies stage.
//
// Managed memory is a device allocation with a host mirror mapped at the very same address, so
// the one pointer works on both sides. As on GPUs without concurrent managed access, the device
// copy is current from a launch until the next synchronisation that leaves the device idle:
// launches copy every host-owned range to the device first, and such synchronisations copy
// device-owned ranges back.
#include <dlfcn.h>
#include <execinfo.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "cu_internal.h"
#include "ptx.h"

namespace cucore {

static const uint64_t kPage = 4096;

// ---- helpers (stub thread) --------------------------------------------------------------------

Stream *find_stream(State &s, cu_stream *handle) { return s.streams.get(handle); }

int resolve_stream(State &s, cu_stream *handle, drv_stream **out) {
  if (handle == nullptr || handle == CU_STREAM_LEGACY) {
    *out = drv_default_stream(s.d);
    return CUDA_SUCCESS;
  }
  if (handle == CU_STREAM_PER_THREAD) {
    // The per-thread default stream: a blocking stream of the primary context, made on first use.
    if (!s.per_thread) {
      simtvp_diag diag = cleared_diag();
      drv_stream *ds = nullptr;
      simtvp_status st = drv_stream_create(s.d, 0, 0, &ds, &diag);
      if (st != SIMTVP_OK) return drv_fail(s, st, diag);
      auto p = std::make_unique<Stream>();
      p->ds = ds;
      p->ctx = s.primary;
      s.per_thread = p.get();
      s.streams.add(std::move(p));
    }
    *out = s.per_thread->ds;
    return CUDA_SUCCESS;
  }
  Stream *st = s.streams.get(handle);
  if (!st) return fail(CUDA_ERROR_INVALID_HANDLE, "stream %p is not a live stream", (void *)handle);
  *out = st->ds;
  return CUDA_SUCCESS;
}

bool device_idle(State &s) {
  simtvp_diag diag;
  bool idle = true;
  if (drv_stream_query(s.d, drv_default_stream(s.d), &idle, &diag) != SIMTVP_OK || !idle) return false;
  for (Stream *st : s.streams.all())
    if (drv_stream_query(s.d, st->ds, &idle, &diag) != SIMTVP_OK || !idle) return false;
  return true;
}

void flush_deferred_frees(State &s) {
  simtvp_diag diag;
  for (uint64_t a : s.deferred_frees) (void)drv_mem_free(s.d, a, &diag);
  s.deferred_frees.clear();
}

int managed_to_device(State &s, drv_stream *ds, bool copies) {
  for (auto &kv : s.managed) {
    if (kv.second.on_demand) {
      if (!copies) continue;
      simtvp_diag diag = cleared_diag();
      simtvp_status st = drv_um_prefetch(s.d, ds, kv.first, kv.second.bytes, DRV_UM_GPU, true, &diag);
      if (st != SIMTVP_OK) return drv_fail(s, st, diag);
      continue;
    }
    if (kv.second.device_owns) continue;
    simtvp_diag diag = cleared_diag();
    simtvp_status st = drv_memcpy(s.d, ds, drv_device_ptr(kv.first),
                                  drv_host_ptr(reinterpret_cast<void *>(kv.first)), kv.second.bytes, &diag);
    if (st != SIMTVP_OK) return drv_fail(s, st, diag);
    kv.second.device_owns = true;
  }
  return CUDA_SUCCESS;
}

int managed_to_host(State &s) {
  bool any = false;
  for (auto &kv : s.managed) any |= kv.second.device_owns && !kv.second.on_demand;
  if (!any || !device_idle(s)) return CUDA_SUCCESS;
  drv_stream *ds = drv_default_stream(s.d);
  for (auto &kv : s.managed) {
    if (!kv.second.device_owns || kv.second.on_demand) continue;
    simtvp_diag diag = cleared_diag();
    simtvp_status st = drv_memcpy(s.d, ds, drv_host_ptr(reinterpret_cast<void *>(kv.first)),
                                  drv_device_ptr(kv.first), kv.second.bytes, &diag);
    if (st != SIMTVP_OK) return drv_fail(s, st, diag);
    kv.second.device_owns = false;
  }
  simtvp_diag diag = cleared_diag();
  simtvp_status st = drv_stream_sync(s.d, ds, &diag);
  return st == SIMTVP_OK ? CUDA_SUCCESS : drv_fail(s, st, diag);
}

static bool um_fault(void *, uint64_t a, bool write);
static int um_install_own(State &s);

// Maps host pages [first, last) at their own addresses (page users counted).
static int map_managed_pages(State &s, uint64_t first, uint64_t last, int prot = PROT_READ | PROT_WRITE) {
  for (uint64_t p = first; p < last; p += kPage) {
    auto it = s.managed_pages.find(p);
    if (it != s.managed_pages.end()) {
      it->second++;
      continue;
    }
    void *want = reinterpret_cast<void *>(p);
    void *got = mmap(want, kPage, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (got != want) {
      int err = errno;
      if (got != MAP_FAILED) munmap(got, kPage);
      unmap_managed_pages(s, first, p);
      return fail(CUDA_ERROR_OUT_OF_MEMORY,
                  "managed memory: the host page at 0x%llx (the same address as the device memory) "
                  "cannot be mapped: %s",
                  (unsigned long long)p, err == EEXIST ? "the host already uses it" : strerror(err));
    }
    s.managed_pages[p] = 1;
    // The host's first touch of an on-demand page faults: the platform's SIGSEGV owner hands it
    // to um_fault (one handler for the process, docs/system-modes.md §2.4); a platform without
    // one, or one that refuses, gets a handler of our own.
    if (s.plat.fault_add && !s.plat.fault_add(s.plat.ctx, want, kPage, um_fault, nullptr))
      if (int r = um_install_own(s)) {
        unmap_managed_pages(s, first, p + kPage);
        return r;
      }
  }
  return CUDA_SUCCESS;
}

void unmap_managed_pages(State &s, uint64_t first, uint64_t last) {
  for (uint64_t p = first; p < last; p += kPage) {
    auto it = s.managed_pages.find(p);
    if (it == s.managed_pages.end()) continue;
    if (--it->second == 0) {
      if (s.plat.fault_remove) s.plat.fault_remove(s.plat.ctx, reinterpret_cast<void *>(p), kPage);
      munmap(reinterpret_cast<void *>(p), kPage);
      s.managed_pages.erase(it);
    }
  }
}

static void classify_locked(State &s, uint64_t addr, cu_mem_info *info) {
  std::memset(info, 0, sizeof *info);
  info->type = CU_MEM_PAGEABLE;
  auto m = s.managed.upper_bound(addr);
  if (m != s.managed.begin()) {
    --m;
    if (addr - m->first < (m->second.bytes ? m->second.bytes : 1)) {
      info->type = CU_MEM_MANAGED;
      info->base = m->first;
      info->size = m->second.bytes;
      info->flags = m->second.flags;
      return;
    }
  }
  auto p = s.pinned.upper_bound(addr);
  if (p != s.pinned.begin()) {
    --p;
    if (addr - p->first < (p->second.bytes ? p->second.bytes : 1)) {
      info->type = CU_MEM_PINNED;
      info->base = p->first;
      info->size = p->second.bytes;
      info->bus = p->second.bus;
      info->flags = p->second.flags;
      if (p->second.gpu) info->device = p->second.gpu + (p->first & (kPage - 1));
      else if (p->second.mapped) info->device = p->first;
      return;
    }
  }
  uint64_t base = 0, size = 0;
  if (s.d && drv_mem_lookup(s.d, addr, &base, &size)) {
    info->type = CU_MEM_DEVICE;
    info->base = base;
    info->size = size;
  }
}

// The program's address behind address a of the registered window (map_registered), or a itself:
// a copy given the device pointer of registered memory copies the program's memory (copy nodes
// too: cu_graph.cc prepare_node).
uint64_t host_of_registered(const State &s, uint64_t a) {
  auto it = s.registered_runs.upper_bound(a);
  if (it == s.registered_runs.begin()) return a;
  --it;
  return a - it->first < it->second.bytes ? it->second.host + (a - it->first) : a;
}

// The driver-side address of one side of a copy, or an error naming what is wrong.
static int side_ptr(State &s, drv_stream *ds, const cu_copy_side &side, uint64_t bytes, const char *which,
                    drv_ptr *out) {
  bool write = which[0] == 'd';  // the destination
  cu_mem_info info;
  switch (side.type) {
    case CU_MEM_DEVICE:
      *out = drv_device_ptr(side.addr);
      return CUDA_SUCCESS;
    case CU_MEM_MANAGED:
      classify_locked(s, side.addr, &info);
      if (info.type != CU_MEM_MANAGED)
        return fail(CUDA_ERROR_INVALID_VALUE, "%s 0x%llx is not managed memory", which,
                    (unsigned long long)side.addr);
      if (side.addr + bytes > info.base + info.size || side.addr + bytes < side.addr)
        return fail(CUDA_ERROR_INVALID_VALUE,
                    "%s range 0x%llx + %llu bytes runs past its managed allocation (0x%llx, %llu bytes)",
                    which, (unsigned long long)side.addr, (unsigned long long)bytes,
                    (unsigned long long)info.base, (unsigned long long)info.size);
      if (s.managed[info.base].on_demand) {
        // copies use the device copy: the range's pages come to the GPU first (stream order)
        simtvp_diag diag = cleared_diag();
        simtvp_status st = drv_um_prefetch(s.d, ds, side.addr, bytes, DRV_UM_GPU, write, &diag);
        if (st != SIMTVP_OK) return drv_fail(s, st, diag);
        *out = drv_device_ptr(side.addr);
        return CUDA_SUCCESS;
      }
      *out = s.managed[info.base].device_owns ? drv_device_ptr(side.addr)
                                               : drv_host_ptr(reinterpret_cast<void *>(side.addr));
      return CUDA_SUCCESS;
    case CU_MEM_PINNED:
      classify_locked(s, side.addr, &info);
      if (info.type == CU_MEM_PINNED && info.bus && side.addr + bytes <= info.base + info.size) {
        *out = drv_system_ptr(info.bus + (side.addr - info.base));
        return CUDA_SUCCESS;
      }
      *out = drv_host_ptr(reinterpret_cast<void *>(side.addr));
      return CUDA_SUCCESS;
    case CU_MEM_PAGEABLE:
      if (!side.addr) return fail(CUDA_ERROR_INVALID_VALUE, "%s host pointer is NULL", which);
      *out = drv_host_ptr(reinterpret_cast<void *>(host_of_registered(s, side.addr)));
      return CUDA_SUCCESS;
  }
  return fail(CUDA_ERROR_INVALID_VALUE, "%s has an unknown memory type", which);
}

static bool host_side(const drv_ptr &p) { return p.kind == DRV_MEM_HOST; }

// A host-to-host copy done by the host after the stream's earlier work (CUDA orders it too).
static int host_copy_2d(State &s, drv_stream *ds, uint64_t dst, uint64_t dpitch, uint64_t src, uint64_t spitch,
                        uint64_t width, uint64_t height) {
  simtvp_diag diag = cleared_diag();
  simtvp_status st = drv_stream_sync(s.d, ds, &diag);
  if (st != SIMTVP_OK) return drv_fail(s, st, diag);
  for (uint64_t r = 0; r < height; r++)
    std::memmove(reinterpret_cast<void *>(dst + r * dpitch), reinterpret_cast<const void *>(src + r * spitch), width);
  return CUDA_SUCCESS;
}

static int copy_locked(State &s, cu_copy_side dst, uint64_t dpitch, cu_copy_side src, uint64_t spitch,
                       uint64_t width, uint64_t height, cu_stream *stream, bool sync) {
  drv_stream *ds = nullptr;
  int r = resolve_stream(s, stream, &ds);
  if (r != CUDA_SUCCESS) return r;
  if (width == 0 || height == 0) return CUDA_SUCCESS;
  drv_ptr d, sp;
  uint64_t dbytes = dpitch * (height - 1) + width, sbytes = spitch * (height - 1) + width;
  if ((r = side_ptr(s, ds, dst, dbytes, "destination", &d)) != CUDA_SUCCESS) return r;
  if ((r = side_ptr(s, ds, src, sbytes, "source", &sp)) != CUDA_SUCCESS) return r;
  if (host_side(d) && host_side(sp)) return host_copy_2d(s, ds, d.addr, dpitch, sp.addr, spitch, width, height);
  simtvp_diag diag = cleared_diag();
  simtvp_status st = height == 1 ? drv_memcpy(s.d, ds, d, sp, width, &diag)
                                 : drv_memcpy_2d(s.d, ds, d, dpitch, sp, spitch, width, height, &diag);
  if (st != SIMTVP_OK) return drv_fail(s, st, diag);
  // Copies into pageable host memory complete before the call returns, as in CUDA.
  if (sync || host_side(d)) {
    st = drv_stream_sync(s.d, ds, &diag);
    if (st != SIMTVP_OK) return drv_fail(s, st, diag);
    if (sync && (ds == drv_default_stream(s.d))) return managed_to_host(s);
  }
  return CUDA_SUCCESS;
}

static int memset_locked(State &s, uint64_t dptr, uint64_t pitch, uint32_t value, uint32_t elem,
                         uint64_t width, uint64_t height, cu_stream *stream, bool sync) {
  if (elem != 1 && elem != 2 && elem != 4) return fail(CUDA_ERROR_INVALID_VALUE, "element size %u is not 1, 2 or 4", elem);
  drv_stream *ds = nullptr;
  int r = resolve_stream(s, stream, &ds);
  if (r != CUDA_SUCCESS) return r;
  if (width == 0 || height == 0) return CUDA_SUCCESS;
  cu_mem_info info;
  classify_locked(s, dptr, &info);
  simtvp_diag diag = cleared_diag();
  simtvp_status st;
  if (info.type == CU_MEM_MANAGED && s.managed[info.base].on_demand) {
    uint64_t end = dptr + pitch * (height - 1) + width * elem;
    if (end > info.base + info.size)
      return fail(CUDA_ERROR_INVALID_VALUE, "memset of 0x%llx..0x%llx runs past its managed allocation",
                  (unsigned long long)dptr, (unsigned long long)end);
    st = drv_um_prefetch(s.d, ds, dptr, end - dptr, DRV_UM_GPU, true, &diag);  // memsets write device memory
    if (st != SIMTVP_OK) return drv_fail(s, st, diag);
  } else if (info.type == CU_MEM_MANAGED && !s.managed[info.base].device_owns) {
    uint64_t end = dptr + pitch * (height - 1) + width * elem;
    if (end > info.base + info.size)
      return fail(CUDA_ERROR_INVALID_VALUE, "memset of 0x%llx..0x%llx runs past its managed allocation",
                  (unsigned long long)dptr, (unsigned long long)end);
    st = drv_stream_sync(s.d, ds, &diag);
    if (st != SIMTVP_OK) return drv_fail(s, st, diag);
    for (uint64_t row = 0; row < height; row++) {
      uint8_t *p = reinterpret_cast<uint8_t *>(dptr + row * pitch);
      for (uint64_t i = 0; i < width; i++) std::memcpy(p + i * elem, &value, elem);  // little-endian
    }
    return CUDA_SUCCESS;
  }
  if (info.type == CU_MEM_PINNED || (info.type == CU_MEM_PAGEABLE && dptr))
    if (info.type == CU_MEM_PINNED || !s.d || !drv_mem_lookup(s.d, dptr, nullptr, nullptr))
      return fail(CUDA_ERROR_INVALID_VALUE, "memset destination 0x%llx is not device memory",
                  (unsigned long long)dptr);
  st = height == 1 ? drv_memset(s.d, ds, drv_device_ptr(dptr), value, elem, width, &diag)
                   : drv_memset_2d(s.d, ds, drv_device_ptr(dptr), pitch, value, elem, width, height, &diag);
  if (st != SIMTVP_OK) return drv_fail(s, st, diag);
  if (sync) {
    st = drv_stream_sync(s.d, ds, &diag);
    if (st != SIMTVP_OK) return drv_fail(s, st, diag);
  }
  return CUDA_SUCCESS;
}

// Stream capture of copies and memsets: kCaptured when the operation became a node of a capturing
// stream's graph, CUDA_SUCCESS when it runs as usual, or the capture error. Synchronous forms are
// "potentially unsafe" during a capture and refused on a capturing stream.
static const int kCaptured = -1;

static int capture_copy(State &s, cu_copy_side dst, uint64_t dpitch, cu_copy_side src, uint64_t spitch,
                        uint64_t width, uint64_t height, cu_stream *stream, bool sync) {
  Stream *capturing = nullptr;
  if (int r = capture_route(s, stream, &capturing)) return r;
  if (!capturing) return sync ? capture_guard(s, "a synchronous copy") : CUDA_SUCCESS;
  if (sync) return capture_unsupported(s, capturing, "a synchronous copy");
  if (width == 0 || height == 0) return kCaptured;
  NodeParams p;
  p.type = CU_GRAPH_NODE_MEMCPY;
  p.copy.src = cu_copy_node_side{nullptr, src.addr, src.type, spitch, height, 0, 0, 0};
  p.copy.dst = cu_copy_node_side{nullptr, dst.addr, dst.type, dpitch, height, 0, 0, 0};
  p.copy.width_bytes = width;
  p.copy.height = height;
  p.copy.depth = 1;
  int r = capture_add(s, capturing, std::move(p));
  return r == CUDA_SUCCESS ? kCaptured : r;
}

static int capture_memset(State &s, uint64_t dptr, uint64_t pitch, uint32_t value, uint32_t elem, uint64_t width,
                          uint64_t height, cu_stream *stream, bool sync) {
  Stream *capturing = nullptr;
  if (int r = capture_route(s, stream, &capturing)) return r;
  if (!capturing) return sync ? capture_guard(s, "a synchronous memset") : CUDA_SUCCESS;
  if (sync) return capture_unsupported(s, capturing, "a synchronous memset");
  if (width == 0 || height == 0) return kCaptured;
  NodeParams p;
  p.type = CU_GRAPH_NODE_MEMSET;
  p.memset = cu_memset_node_params{dptr, pitch, value, elem, width, height};
  int r = capture_add(s, capturing, std::move(p));
  return r == CUDA_SUCCESS ? kCaptured : r;
}

}  // namespace cucore

using namespace cucore;

// The program's call site of an allocation: the first return address on the stack outside
// simtvp's own libraries (libcuda, libcudart, libsimtvp). The GPU's memory checker names it in
// its reports (drv_mem_alloc_at); 0 when the stack cannot be read.
static uint64_t program_site() {
  void *frames[24];
  int n = backtrace(frames, 24);
  Dl_info self;
  if (!dladdr(reinterpret_cast<void *>(&program_site), &self)) return 0;
  for (int i = 1; i < n; i++) {
    Dl_info info;
    if (!dladdr(frames[i], &info) || !info.dli_fname) continue;
    if (info.dli_fbase == self.dli_fbase) continue;  // libcuda.so.1 itself
    const char *base = std::strrchr(info.dli_fname, '/');
    base = base ? base + 1 : info.dli_fname;
    if (!std::strncmp(base, "libcudart.so", 12) || !std::strncmp(base, "libsimtvp.so", 12)) continue;
    return reinterpret_cast<uint64_t>(frames[i]) - 1;  // inside the call instruction
  }
  return 0;
}

extern "C" {

void cucore_mem_classify(uint64_t addr, cu_mem_info *info) {
  State &s = state();
  Peek peek;
  classify_locked(s, addr, info);
}

int cucore_mem_alloc(cu_ctx *ctx, uint64_t bytes, uint64_t *dptr) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if (int r = capture_guard(s, "allocating device memory")) return r;
  if (!dptr) return fail(CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  Ctx *c = ctx_or_primary(s, ctx);
  uint64_t site = program_site();
  return run(s, [&]() -> int {
    simtvp_diag diag = cleared_diag();
    simtvp_status st = drv_mem_alloc_at(s.d, bytes, site, dptr, &diag);
    if (st != SIMTVP_OK) return drv_fail(s, st, diag);
    s.allocations[*dptr] = Allocation{bytes, c, false};
    return CUDA_SUCCESS;
  });
}

int cucore_mem_free(uint64_t dptr) {
  Entry e;
  State &s = state();
  if (int r = e.device(s)) return r;
  if (dptr == 0) return CUDA_SUCCESS;
  if (int r = capture_guard(s, "freeing device memory (it synchronises)")) return r;
  auto it = s.allocations.find(dptr);
  if (it == s.allocations.end()) {
    uint64_t base = 0, size = 0;
    if (drv_mem_lookup(s.d, dptr, &base, &size))
      return fail(CUDA_ERROR_INVALID_VALUE,
                  "0x%llx is inside an allocation (0x%llx, %llu bytes) but is not its start",
                  (unsigned long long)dptr, (unsigned long long)base, (unsigned long long)size);
    return fail(CUDA_ERROR_INVALID_VALUE, "0x%llx is not a live device allocation (already freed?)",
                (unsigned long long)dptr);
  }
  // cudaFree synchronises: kernels may still use the memory.
  return run(s, [&]() -> int {
    simtvp_diag diag = cleared_diag();
    simtvp_status st = drv_sync(s.d, &diag);
    int result = st == SIMTVP_OK ? CUDA_SUCCESS : drv_fail(s, st, diag);
    if (it->second.managed) {
      auto m = s.managed.find(dptr);
      if (m != s.managed.end()) {
        unmap_managed_pages(s, dptr & ~(kPage - 1), (dptr + m->second.bytes + kPage - 1) & ~(kPage - 1));
        s.managed.erase(m);
      }
    }
    simtvp_diag_clear(&diag);
    st = drv_mem_free(s.d, dptr, &diag);
    s.allocations.erase(it);
    if (st != SIMTVP_OK && result == CUDA_SUCCESS) result = drv_fail(s, st, diag);
    return result;
  });
}

// ---- pinned memory the GPU's kernels reach (zero-copy) ------------------------------------------

static const unsigned kMappedFlag = 2;  // cudaHostAllocMapped, cudaHostRegisterMapped, CU_MEMHOSTALLOC_DEVICEMAP

// Maps span (its bus address and bytes) into the GPU at address gpu (MAP_SYSMEM); on failure the
// host pages from `host` it exposed for this are let go again.
static int sysmem_map_span(State &s, uint64_t gpu, uint64_t host, const SysmapRun &span) {
  int r = run(s, [&]() -> int {
    simtvp_diag diag = cleared_diag();
    simtvp_status st = drv_sysmem_map(s.d, gpu, span.bus, span.bytes, &diag);
    return st == SIMTVP_OK ? CUDA_SUCCESS : drv_fail(s, st, diag);
  });
  if (r != CUDA_SUCCESS && span.exposed) s.plat.unexpose(s.plat.ctx, reinterpret_cast<void *>(host), span.bytes);
  return r;
}

// Registered memory's GPU addresses. The program's own buffer lies wherever its heap puts it, and
// that moves with the host's address-space randomisation and with how much simtvp itself
// allocated before (more with more -sim_threads). Mapped at its host address, where it falls
// within a 2 MiB region decided how many page tables the driver wrote for it (a 16 KiB buffer
// across a 2 MiB boundary: a second level-0 table, two copy-engine copies and 4 KiB more), and
// the TLBs, translation caches and L1 sets saw its address: the same program gave other
// statistics from run to run. The device attribute CanUseHostPointerForRegisteredMem is 0 here,
// as on GPUs that cannot use the host's pointer: kernels reach registered memory through the
// device pointer cudaHostGetDevicePointer gives, which lies in this window, reserved in the
// process so no host object lands there (unified addressing stays unambiguous). Ranges take the
// lowest free pages of the window in the order they are mapped, keeping the offset within the
// page, so the GPU sees the same addresses in every run (as the platform's bus addresses, in the
// order of the calls). Memory from cudaHostAlloc lies at fixed host addresses already
// (platform/vp/sys_mem.h) and keeps them as device pointers.
static const uint64_t kRegisteredWindowBase = 0x300000000000ull;  // 48 TiB, 2 MiB aligned
static const uint64_t kRegisteredWindowBytes = 64ull << 30;

static bool registered_window(State &s) {
  if (s.registered_window < 0) {
    void *want = reinterpret_cast<void *>(kRegisteredWindowBase);
    void *got = mmap(want, kRegisteredWindowBytes, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (got != MAP_FAILED && got != want) munmap(got, kRegisteredWindowBytes);  // a kernel without NOREPLACE
    s.registered_window = got == want;
  }
  return s.registered_window == 1;
}

// The lowest free window address for `bytes` (whole pages); 0 when the window is full.
static uint64_t registered_window_alloc(const State &s, uint64_t bytes) {
  uint64_t at = kRegisteredWindowBase;
  for (const auto &r : s.registered_runs) {
    if (r.first - at >= bytes) break;
    at = r.first + r.second.bytes;
  }
  return at + bytes <= kRegisteredWindowBase + kRegisteredWindowBytes ? at : 0;
}

// The registered run other than `except` over the same host pages [host, host + bytes).
static SysmapRun *registered_twin(State &s, uint64_t host, uint64_t bytes, uint64_t except) {
  for (auto &r : s.registered_runs)
    if (r.first != except && r.second.host == host && r.second.bytes == bytes) return &r.second;
  return nullptr;
}

// Maps registered range `a` (its pages [lo, hi)) at the next free addresses of the window: the
// platform exposes the pages for this range (a page two registrations share is mapped for each,
// as two pinnings would be; ranges over the same pages share one exposure, since the platform
// unexposes by host range).
static int map_registered(State &s, uint64_t a, Pinned &pin, uint64_t lo, uint64_t hi) {
  SysmapRun span;
  span.bytes = hi - lo;
  span.host = lo;
  uint64_t gpu = registered_window_alloc(s, span.bytes);
  if (!gpu)
    return fail(CUDA_ERROR_OUT_OF_MEMORY, "registered memory at %p: the %llu GiB of device addresses for registered "
                "memory are used up", reinterpret_cast<void *>(a), (unsigned long long)(kRegisteredWindowBytes >> 30));
  if (const SysmapRun *twin = registered_twin(s, lo, span.bytes, 0)) {
    span.bus = twin->bus;
  } else {
    if (!s.plat.expose(s.plat.ctx, reinterpret_cast<void *>(lo), span.bytes, &span.bus))
      return fail(CUDA_ERROR_NOT_SUPPORTED, "the platform cannot let the GPU reach %p + %llu bytes",
                  reinterpret_cast<void *>(lo), (unsigned long long)span.bytes);
    span.exposed = true;
  }
  int r = sysmem_map_span(s, gpu, lo, span);
  if (r != CUDA_SUCCESS) return r;
  // Only the pages wholly inside the range are watched (map_pinned says why).
  uint64_t wlo = (a + kPage - 1) & ~(kPage - 1), whi = (a + pin.bytes) & ~(kPage - 1);
  if (s.plat.watch && whi > wlo &&
      s.plat.watch(s.plat.ctx, reinterpret_cast<void *>(wlo), whi - wlo, span.bus + (wlo - lo))) {
    span.watch_lo = wlo;
    span.watch_hi = whi;
  }
  s.registered_runs[gpu] = span;
  pin.gpu = gpu;
  pin.mapped = true;
  return CUDA_SUCCESS;
}

// Undoes map_registered (after the GPU's work so far: drv_sysmem_unmap synchronises).
static int unmap_registered(State &s, Pinned &pin) {
  auto it = s.registered_runs.find(pin.gpu);
  pin.mapped = false;
  pin.gpu = 0;
  if (it == s.registered_runs.end()) return CUDA_SUCCESS;
  const uint64_t gpu = it->first;
  const SysmapRun span = it->second;
  int r = run(s, [&]() -> int {
    simtvp_diag diag = cleared_diag();
    simtvp_status st = drv_sysmem_unmap(s.d, gpu, &diag);
    return st == SIMTVP_OK ? CUDA_SUCCESS : drv_fail(s, st, diag);
  });
  if (s.plat.unwatch && span.watch_hi > span.watch_lo)
    s.plat.unwatch(s.plat.ctx, reinterpret_cast<void *>(span.watch_lo), span.watch_hi - span.watch_lo);
  if (span.exposed) {
    if (SysmapRun *twin = registered_twin(s, span.host, span.bytes, gpu)) twin->exposed = true;  // it keeps it
    else s.plat.unexpose(s.plat.ctx, reinterpret_cast<void *>(span.host), span.bytes);
  }
  s.registered_runs.erase(it);
  return r;
}

// Maps the pages [lo, hi) of pinned range `a` into the GPU at their own addresses (unified
// addressing): runs of pages no other range mapped yet become MAP_SYSMEM mappings. bus_of gives
// the bus address of a page of `a` (registered memory: exposed by the platform first; in the
// registered window when the process could reserve it, map_registered).
static int map_pinned(State &s, uint64_t a, Pinned &pin) {
  if (pin.mapped) return CUDA_SUCCESS;
  uint64_t lo = a & ~(kPage - 1), hi = (a + pin.bytes + kPage - 1) & ~(kPage - 1);
  if (!pin.bus && !pin.registered)
    return fail(CUDA_ERROR_NOT_SUPPORTED, "pinned memory at %p lives outside the platform's system memory: "
                "the GPU cannot map it", reinterpret_cast<void *>(a));
  if (pin.registered && (!s.plat.expose || !s.plat.unexpose))
    return fail(CUDA_ERROR_NOT_SUPPORTED, "the platform (%s) cannot let the GPU reach the program's own memory at %p",
                s.plat.name ? s.plat.name : "?", reinterpret_cast<void *>(a));
  if (pin.registered && registered_window(s)) return map_registered(s, a, pin, lo, hi);
  for (uint64_t p = lo; p < hi;) {
    if (s.sysmap_pages.count(p)) {
      p += kPage;
      continue;
    }
    uint64_t end = p;
    while (end < hi && !s.sysmap_pages.count(end)) end += kPage;
    SysmapRun span;
    span.bytes = end - p;
    if (pin.registered) {
      if (!s.plat.expose(s.plat.ctx, reinterpret_cast<void *>(p), span.bytes, &span.bus))
        return fail(CUDA_ERROR_NOT_SUPPORTED, "the platform cannot let the GPU reach %p + %llu bytes",
                    reinterpret_cast<void *>(p), (unsigned long long)span.bytes);
      span.exposed = true;
    } else {
      span.bus = pin.bus + (p - a);
    }
    int r = sysmem_map_span(s, p, p, span);
    if (r != CUDA_SUCCESS) return r;
    // The program's own loads and stores of the run are timed while kernels run (the platform's
    // trap: docs/system-modes.md §2.4). Of registered memory only the pages wholly inside the
    // range: the others hold the program's (or this library's) unrelated data too, which must
    // never fault.
    uint64_t wlo = p, whi = end;
    if (pin.registered) {
      wlo = std::max(p, (a + kPage - 1) & ~(kPage - 1));
      whi = std::min(end, (a + pin.bytes) & ~(kPage - 1));
    }
    if (s.plat.watch && whi > wlo &&
        s.plat.watch(s.plat.ctx, reinterpret_cast<void *>(wlo), whi - wlo, span.bus + (wlo - p))) {
      span.watch_lo = wlo;
      span.watch_hi = whi;
    }
    s.sysmap_runs[p] = span;
    for (uint64_t q = p; q < end; q += kPage) s.sysmap_pages[q] = 0;
    p = end;
  }
  for (uint64_t p = lo; p < hi; p += kPage) s.sysmap_pages[p]++;
  pin.mapped = true;
  return CUDA_SUCCESS;
}

// Undoes map_pinned: runs none of whose pages is used any more are unmapped (after the GPU's work
// so far) and their exposure released.
static int unmap_pinned(State &s, uint64_t a, Pinned &pin) {
  if (!pin.mapped) return CUDA_SUCCESS;
  if (pin.gpu) return unmap_registered(s, pin);
  pin.mapped = false;
  uint64_t lo = a & ~(kPage - 1), hi = (a + pin.bytes + kPage - 1) & ~(kPage - 1);
  for (uint64_t p = lo; p < hi; p += kPage) {
    auto it = s.sysmap_pages.find(p);
    if (it != s.sysmap_pages.end() && --it->second == 0) s.sysmap_pages.erase(it);
  }
  int result = CUDA_SUCCESS;
  auto it = s.sysmap_runs.upper_bound(lo);
  if (it != s.sysmap_runs.begin()) --it;
  while (it != s.sysmap_runs.end() && it->first < hi) {
    uint64_t va = it->first;
    SysmapRun span = it->second;
    bool used = false;
    for (uint64_t p = va; p < va + span.bytes && !used; p += kPage) used = s.sysmap_pages.count(p) != 0;
    if (used || va + span.bytes <= lo) {
      ++it;
      continue;
    }
    int r = run(s, [&]() -> int {
      simtvp_diag diag = cleared_diag();
      simtvp_status st = drv_sysmem_unmap(s.d, va, &diag);
      return st == SIMTVP_OK ? CUDA_SUCCESS : drv_fail(s, st, diag);
    });
    if (result == CUDA_SUCCESS) result = r;
    if (s.plat.unwatch && span.watch_hi > span.watch_lo)
      s.plat.unwatch(s.plat.ctx, reinterpret_cast<void *>(span.watch_lo), span.watch_hi - span.watch_lo);
    if (span.exposed) s.plat.unexpose(s.plat.ctx, reinterpret_cast<void *>(va), span.bytes);
    it = s.sysmap_runs.erase(it);
  }
  return result;
}

int cucore_host_device_pointer(void *p, uint64_t *dptr) {
  Entry e;
  State &s = state();
  if (int r = e.device(s)) return r;
  if (!dptr) return fail(CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  uint64_t a = reinterpret_cast<uint64_t>(p);
  auto it = s.pinned.upper_bound(a);
  if (it == s.pinned.begin() || a - std::prev(it)->first >= std::prev(it)->second.bytes)
    return fail(CUDA_ERROR_INVALID_VALUE,
                "%p is not pinned host memory (cudaHostAlloc, cudaMallocHost or cudaHostRegister)", p);
  --it;
  if (int r = map_pinned(s, it->first, it->second)) return r;
  // Unified addressing: the GPU uses the host's address, but for registered memory in the window.
  *dptr = it->second.gpu ? it->second.gpu + (a - (it->first & ~(kPage - 1))) : a;
  return CUDA_SUCCESS;
}

int cucore_host_alloc(cu_ctx *ctx, uint64_t bytes, unsigned flags, void **out) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if (int r = capture_guard(s, "allocating pinned host memory")) return r;
  if (!out) return fail(CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  Ctx *c = ctx_or_primary(s, ctx);
  uint64_t size = bytes ? (bytes + kPage - 1) & ~(kPage - 1) : kPage;
  uint64_t bus = 0;
  int r = run(s, [&]() -> int {
    if (!s.plat.bus->sysmem_alloc(s.plat.bus->ctx, size, kPage, &bus))
      return fail(CUDA_ERROR_OUT_OF_MEMORY, "pinned memory: the platform's system memory has no %llu free bytes",
                  (unsigned long long)size);
    return CUDA_SUCCESS;
  });
  if (r != CUDA_SUCCESS) return r;
  void *host = s.plat.sysmem_ptr ? s.plat.sysmem_ptr(s.plat.ctx, bus, size) : nullptr;
  if (!host) {
    // No host view of system memory: keep the pages in host memory; copies stage them.
    run(s, [&]() -> int {
      s.plat.bus->sysmem_free(s.plat.bus->ctx, bus);
      return CUDA_SUCCESS;
    });
    bus = 0;
    host = std::aligned_alloc(kPage, size);
    if (!host) return fail(CUDA_ERROR_OUT_OF_MEMORY, "pinned memory: out of host memory for %llu bytes",
                           (unsigned long long)size);
  }
  std::memset(host, 0, size);
  Pinned &pin = s.pinned[reinterpret_cast<uint64_t>(host)] = Pinned{bytes ? bytes : 1, bus, flags, c};
  if ((flags & kMappedFlag) && bus) {
    if (int r2 = map_pinned(s, reinterpret_cast<uint64_t>(host), pin)) {
      s.pinned.erase(reinterpret_cast<uint64_t>(host));
      run(s, [&]() -> int {
        s.plat.bus->sysmem_free(s.plat.bus->ctx, bus);
        return CUDA_SUCCESS;
      });
      return r2;
    }
  }
  *out = host;
  return CUDA_SUCCESS;
}

int cucore_host_free(void *p) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  if (!p) return CUDA_SUCCESS;
  auto it = s.pinned.find(reinterpret_cast<uint64_t>(p));
  if (it == s.pinned.end() || it->second.registered)
    return fail(CUDA_ERROR_INVALID_VALUE, "%p is not pinned memory from cudaMallocHost/cudaHostAlloc (already freed?%s)", p,
                it != s.pinned.end() ? " it was registered with cudaHostRegister: unregister it instead" : "");
  int r = ensure_device(s);
  if (r != CUDA_SUCCESS) return r;
  uint64_t bus = it->second.bus;
  int unmapped = unmap_pinned(s, it->first, it->second);
  s.pinned.erase(it);
  if (unmapped != CUDA_SUCCESS) return unmapped;
  if (!bus) {
    std::free(p);
    return CUDA_SUCCESS;
  }
  return run(s, [&]() -> int {
    simtvp_diag diag = cleared_diag();
    simtvp_status st = drv_sync(s.d, &diag);  // a DMA may still read or write it
    s.plat.bus->sysmem_free(s.plat.bus->ctx, bus);
    return st == SIMTVP_OK ? CUDA_SUCCESS : drv_fail(s, st, diag);
  });
}

int cucore_host_register(void *p, uint64_t bytes, unsigned flags) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  uint64_t a = reinterpret_cast<uint64_t>(p);
  if (!p || bytes == 0) return fail(CUDA_ERROR_INVALID_VALUE, "cannot register %llu bytes at %p", (unsigned long long)bytes, p);
  auto next = s.pinned.lower_bound(a);
  if (next != s.pinned.end() && next->first < a + bytes)
    return fail(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "%p + %llu bytes overlaps pinned memory at 0x%llx", p,
                (unsigned long long)bytes, (unsigned long long)next->first);
  if (next != s.pinned.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second.bytes > a)
      return fail(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "%p lies in pinned memory at 0x%llx", p,
                  (unsigned long long)prev->first);
  }
  cu_mem_info info;
  classify_locked(s, a, &info);
  if (info.type != CU_MEM_PAGEABLE)
    return fail(CUDA_ERROR_INVALID_VALUE, "%p is device or managed memory, not host memory", p);
  Pinned pin;
  pin.bytes = bytes;
  pin.flags = flags;
  pin.ctx = ctx_or_primary(s, nullptr);
  pin.registered = true;
  Pinned &stored = s.pinned[a] = pin;
  if (flags & kMappedFlag) {
    if (int r = ensure_device(s)) {
      s.pinned.erase(a);
      return r;
    }
    if (int r = map_pinned(s, a, stored)) {
      s.pinned.erase(a);
      return r;
    }
  }
  return CUDA_SUCCESS;
}

int cucore_host_unregister(void *p) {
  Entry e;
  if (!e.ok()) return e.refused();
  State &s = state();
  auto it = s.pinned.find(reinterpret_cast<uint64_t>(p));
  if (it == s.pinned.end() || !it->second.registered)
    return fail(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "%p was not registered with cudaHostRegister", p);
  int r = CUDA_SUCCESS;
  if (it->second.mapped) {
    r = ensure_device(s);
    if (r == CUDA_SUCCESS) r = unmap_pinned(s, it->first, it->second);
  }
  s.pinned.erase(it);
  return r;
}

// ---- unified memory with on-demand migration (sw/driver drv_um) ----------------------------------

// The driver's protection changes of host mirrors.
static void um_protect(void *, uint64_t va, uint64_t bytes, int access) {
  int prot = access == DRV_UM_HOST_RW ? PROT_READ | PROT_WRITE : access == DRV_UM_HOST_READ ? PROT_READ : PROT_NONE;
  mprotect(reinterpret_cast<void *>(va), bytes, prot);
}

// Remote mappings of managed pages (the preferred location host, accessed-by): the platform
// exposes the host mirror's page for the GPU's DMA, as for cudaHostRegister.
// The page is also watched (docs/system-modes.md §2.4): the program's own loads and stores of it
// while kernels run reach the directory, like those of mapped pinned memory. A managed page is a
// whole page of its range (the driver pads managed allocations), so nothing unrelated shares it.
static bool um_expose(void *ctx, uint64_t va, uint64_t bytes, uint64_t *bus) {
  auto *s = static_cast<State *>(ctx);
  if (!s->plat.expose || !s->plat.unexpose || !s->plat.expose(s->plat.ctx, reinterpret_cast<void *>(va), bytes, bus))
    return false;
  if (s->plat.watch && s->plat.unwatch) (void)s->plat.watch(s->plat.ctx, reinterpret_cast<void *>(va), bytes, *bus);
  return true;
}

// Unwatching before the driver protects the mirror again (an unwatch opens the page).
static void um_unexpose(void *ctx, uint64_t va, uint64_t bytes) {
  auto *s = static_cast<State *>(ctx);
  if (s->plat.watch && s->plat.unwatch) s->plat.unwatch(s->plat.ctx, reinterpret_cast<void *>(va), bytes);
  if (s->plat.unexpose) s->plat.unexpose(s->plat.ctx, reinterpret_cast<void *>(va), bytes);
}

static void um_die(const char *what, uint64_t a) {
  char buf[SIMTVP_DIAG_MESSAGE_MAX + 160];
  int n = snprintf(buf, sizeof buf, "simtvp: host access to managed memory at 0x%llx: %s\n", (unsigned long long)a, what);
  if (n > 0) (void)!write(2, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
  abort();
}

}  // extern "C"

namespace cucore {

// A host access the mirror's protection refused: the page of an on-demand managed range comes to
// the host (the driver migrates it back, timed), and the access runs again (true). Any other fault
// is not ours (false: the platform's SIGSEGV owner passes it on).
static bool um_fault(void *, uint64_t a, bool wr) {
  State &s = state();
  if (!tl_inside_call()) {
    Entry e;
    if (e.ok() && s.d) {
      auto m = s.managed.upper_bound(a);
      if (m != s.managed.begin() && (--m)->second.on_demand && a < m->first + ((m->second.bytes + kPage - 1) & ~(kPage - 1))) {
        simtvp_diag diag = cleared_diag();
        int r = run(s, [&]() -> int {
          simtvp_status st = drv_um_host_access(s.d, a, wr, &diag);
          return st == SIMTVP_OK ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN;
        });
        if (r != CUDA_SUCCESS) um_die(diag.message[0] ? diag.message : cucore_last_message(), a);
        return true;
      }
    }
  } else {
    auto m = s.managed.upper_bound(a);  // inside a CUDA call (a stream callback): cannot migrate
    if (m != s.managed.begin() && (--m)->second.on_demand && a < m->first + m->second.bytes)
      um_die("the page is on the GPU and the access comes from inside a CUDA call (a stream callback); "
             "synchronise or prefetch it to the host before", a);
  }
  return false;
}

// Our own SIGSEGV handler, for a platform without one owner (cu_platform.fault_add): um_fault,
// then the handler that was there before.
static void um_segv(int sig, siginfo_t *si, void *uc) {
  State &s = state();
  bool wr = true;  // without the CPU's word, migrate for writing (always correct)
#if defined(__x86_64__)
  wr = (static_cast<ucontext_t *>(uc)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#endif
  if (um_fault(nullptr, reinterpret_cast<uint64_t>(si->si_addr), wr)) return;
  const struct sigaction &old = s.um_old_segv;
  if (old.sa_flags & SA_SIGINFO) {
    if (old.sa_sigaction) old.sa_sigaction(sig, si, uc);
    return;
  }
  if (old.sa_handler == SIG_IGN) return;
  if (old.sa_handler != SIG_DFL && old.sa_handler) {
    old.sa_handler(sig);
    return;
  }
  signal(SIGSEGV, SIG_DFL);  // the access faults again and ends the program as it would have
}

static int um_install_own(State &s) {
  if (s.um_handler) return CUDA_SUCCESS;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = um_segv;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  if (sigaction(SIGSEGV, &sa, &s.um_old_segv) != 0)
    return fail(CUDA_ERROR_OPERATING_SYSTEM, "managed memory: cannot install the SIGSEGV handler: %s", strerror(errno));
  s.um_handler = true;
  return CUDA_SUCCESS;
}

// The host side of on-demand managed memory: with the platform's one SIGSEGV owner, the pages
// are registered as they are mapped (map_managed_pages); else a handler of our own.
static int um_install(State &s) {
  if (s.plat.fault_add) return CUDA_SUCCESS;
  return um_install_own(s);
}

}  // namespace cucore


void cucore::um_setup_locked(State &s) {
  if (s.um_on_demand >= 0) return;
  s.um_on_demand = drv_um_on_demand(s.d) ? 1 : 0;
  drv_um_host_port hp{&s, um_protect, um_expose, um_unexpose};
  if (s.um_on_demand) drv_um_set_host_port(s.d, &hp);
}

// The module's __managed__ variables that the driver made managed ranges of their own (on-demand
// GPUs): their host mirrors open as the driver says where each page is (a variable with an
// initialiser starts on the GPU, one without nowhere), and they fault and migrate like
// cudaMallocManaged memory. Elsewhere cucore_managed_adopt keeps the launch-and-sync scheme.
int cucore::managed_module_vars(State &s, Module *m) {
  const ptx_module *pm = drv_module_ptx(m->dm);
  bool asked = false;  // modules without __managed__ variables cost no register read
  for (uint32_t i = 0; i < pm->n_symbols; i++) {
    const ptx_symbol *sy = &pm->symbols[i];
    if (!(sy->flags & PTX_SYM_MANAGED) || (sy->flags & PTX_SYM_EXTERN)) continue;
    if (!asked) {
      asked = true;
      run(s, [&]() -> int {
        um_setup_locked(s);
        return CUDA_SUCCESS;
      });
    }
    uint64_t va = 0, bytes = 0, base = 0;
    if (drv_module_global(m->dm, sy->name, &va, &bytes, nullptr) != SIMTVP_OK) continue;
    if (!drv_managed_lookup(s.d, va, &base, nullptr) || base != va) continue;  // launch-and-sync
    if (s.managed.count(va)) continue;
    if (int r = um_install(s)) return r;
    uint64_t first = va & ~(kPage - 1), last = (va + (bytes ? bytes : 1) + kPage - 1) & ~(kPage - 1);
    if (int r = map_managed_pages(s, first, last, PROT_NONE)) return r;
    for (uint64_t p = first; p < last; p += kPage) {
      drv_um_loc where = drv_um_where(s.d, p);
      if (where == DRV_UM_HOST || where == DRV_UM_BOTH)
        um_protect(nullptr, p, kPage, where == DRV_UM_HOST ? DRV_UM_HOST_RW : DRV_UM_HOST_READ);
    }
    Managed mg{bytes ? bytes : 1, false, true, 1};
    mg.on_demand = true;
    s.managed[va] = mg;
    m->managed_vars.push_back(va);
  }
  return CUDA_SUCCESS;
}

extern "C" {

int cucore_managed_alloc(cu_ctx *ctx, uint64_t bytes, unsigned flags, uint64_t *dptr) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if (int r = capture_guard(s, "allocating managed memory")) return r;
  if (!dptr) return fail(CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  if (bytes == 0) return fail(CUDA_ERROR_INVALID_VALUE, "managed allocation of 0 bytes");
  Ctx *c = ctx_or_primary(s, ctx);
  uint64_t a = 0;
  bool on_demand = false;
  int r = run(s, [&]() -> int {
    simtvp_diag diag = cleared_diag();
    um_setup_locked(s);
    on_demand = s.um_on_demand == 1;
    simtvp_status st;
    if (on_demand) return (st = drv_managed_alloc(s.d, bytes, &a, &diag)) == SIMTVP_OK ? CUDA_SUCCESS : drv_fail(s, st, diag);
    st = drv_mem_alloc(s.d, bytes, &a, &diag);
    if (st != SIMTVP_OK) return drv_fail(s, st, diag);
    // Device memory starts zeroed like the host mirror.
    st = drv_memset(s.d, nullptr, drv_device_ptr(a), 0, 1, bytes, &diag);
    if (st != SIMTVP_OK) return drv_fail(s, st, diag);
    return CUDA_SUCCESS;
  });
  if (r != CUDA_SUCCESS) return r;
  // On demand: the mirror starts inaccessible, so the host's first touch is seen (drv_um).
  if (on_demand) r = um_install(s);
  if (r == CUDA_SUCCESS)
    r = map_managed_pages(s, a & ~(kPage - 1), (a + bytes + kPage - 1) & ~(kPage - 1),
                          on_demand ? PROT_NONE : PROT_READ | PROT_WRITE);
  if (r != CUDA_SUCCESS) {
    std::string m = cucore_last_message();
    run(s, [&]() -> int {
      simtvp_diag diag;
      (void)drv_mem_free(s.d, a, &diag);
      return CUDA_SUCCESS;
    });
    return fail(r, "%s", m.c_str());
  }
  if (!on_demand) std::memset(reinterpret_cast<void *>(a), 0, bytes);
  s.allocations[a] = Allocation{bytes, c, true};
  Managed mg{bytes, false, false, flags};
  mg.on_demand = on_demand;
  s.managed[a] = mg;
  *dptr = a;
  return CUDA_SUCCESS;
}

int cucore_managed_adopt(cu_module *module, uint64_t dptr, uint64_t bytes) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  Module *m = s.modules.get(module);
  if (!m) return fail(CUDA_ERROR_INVALID_HANDLE, "module %p is not a loaded module", (void *)module);
  if (s.managed.count(dptr)) return CUDA_SUCCESS;
  if (!bytes) return fail(CUDA_ERROR_INVALID_VALUE, "managed variable at 0x%llx has size 0", (unsigned long long)dptr);
  int r = map_managed_pages(s, dptr & ~(kPage - 1), (dptr + bytes + kPage - 1) & ~(kPage - 1));
  if (r != CUDA_SUCCESS) return r;
  s.managed[dptr] = Managed{bytes, false, true, 1};
  m->managed_vars.push_back(dptr);
  // The device copy holds the initialiser: bring it to the host mirror.
  return run(s, [&]() -> int {
    simtvp_diag diag = cleared_diag();
    drv_stream *ds = drv_default_stream(s.d);
    simtvp_status st = drv_memcpy(s.d, ds, drv_host_ptr(reinterpret_cast<void *>(dptr)), drv_device_ptr(dptr),
                                  bytes, &diag);
    if (st == SIMTVP_OK) st = drv_stream_sync(s.d, ds, &diag);
    return st == SIMTVP_OK ? CUDA_SUCCESS : drv_fail(s, st, diag);
  });
}

int cucore_memcpy(cu_copy_side dst, cu_copy_side src, uint64_t bytes, cu_stream *stream, bool sync) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if (int r = capture_copy(s, dst, bytes, src, bytes, bytes, 1, stream, sync)) return r == kCaptured ? 0 : r;
  return run(s, [&]() -> int { return copy_locked(s, dst, bytes, src, bytes, bytes, 1, stream, sync); });
}

int cucore_memcpy_2d(cu_copy_side dst, uint64_t dpitch, cu_copy_side src, uint64_t spitch, uint64_t width,
                     uint64_t height, cu_stream *stream, bool sync) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if (height > 1 && (width > dpitch || width > spitch))
    return fail(CUDA_ERROR_INVALID_VALUE, "2-D copy: width %llu exceeds a pitch (destination %llu, source %llu)",
                (unsigned long long)width, (unsigned long long)dpitch, (unsigned long long)spitch);
  if (int r = capture_copy(s, dst, dpitch, src, spitch, width, height, stream, sync)) return r == kCaptured ? 0 : r;
  return run(s, [&]() -> int { return copy_locked(s, dst, dpitch, src, spitch, width, height, stream, sync); });
}

int cucore_memset(uint64_t dptr, uint32_t value, uint32_t elem_bytes, uint64_t count, cu_stream *stream, bool sync) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if (int r = capture_memset(s, dptr, count * elem_bytes, value, elem_bytes, count, 1, stream, sync))
    return r == kCaptured ? 0 : r;
  return run(s, [&]() -> int {
    return memset_locked(s, dptr, count * elem_bytes, value, elem_bytes, count, 1, stream, sync);
  });
}

int cucore_memset_2d(uint64_t dptr, uint64_t pitch, uint32_t value, uint32_t elem_bytes, uint64_t width_elems,
                     uint64_t height, cu_stream *stream, bool sync) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if (height > 1 && width_elems * elem_bytes > pitch)
    return fail(CUDA_ERROR_INVALID_VALUE, "2-D memset: width %llu bytes exceeds the pitch %llu",
                (unsigned long long)(width_elems * elem_bytes), (unsigned long long)pitch);
  if (int r = capture_memset(s, dptr, pitch, value, elem_bytes, width_elems, height, stream, sync))
    return r == kCaptured ? 0 : r;
  return run(s, [&]() -> int {
    return memset_locked(s, dptr, pitch, value, elem_bytes, width_elems, height, stream, sync);
  });
}

}  // extern "C"

// ---- prefetch, advice, range attributes (on-demand managed memory) ------------------------------

// The on-demand managed range holding [dptr, dptr + bytes): CUDA_SUCCESS with *on_demand false for
// managed memory of the launch-and-sync scheme (__managed__ variables, GPUs without replayable
// faults), where hints change nothing.
static int managed_range(State &s, const char *api, uint64_t dptr, uint64_t bytes, bool *on_demand) {
  cu_mem_info info;
  classify_locked(s, dptr, &info);
  if (info.type != CU_MEM_MANAGED)
    return fail(CUDA_ERROR_INVALID_VALUE, "%s: 0x%llx is not managed memory", api, (unsigned long long)dptr);
  if (!bytes || dptr + bytes > info.base + info.size || dptr + bytes < dptr)
    return fail(CUDA_ERROR_INVALID_VALUE, "%s: 0x%llx + %llu bytes is not inside its managed allocation (0x%llx, %llu bytes)",
                api, (unsigned long long)dptr, (unsigned long long)bytes, (unsigned long long)info.base,
                (unsigned long long)info.size);
  *on_demand = s.managed[info.base].on_demand;
  return CUDA_SUCCESS;
}

int cucore_mem_prefetch(uint64_t dptr, uint64_t bytes, bool to_device, cu_stream *stream) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  return run(s, [&]() -> int {
    drv_stream *ds = nullptr;
    bool od = false;
    int r = resolve_stream(s, stream, &ds);
    if (r == CUDA_SUCCESS) r = managed_range(s, "prefetch", dptr, bytes, &od);
    if (r != CUDA_SUCCESS || !od) return r;
    simtvp_diag diag = cleared_diag();
    simtvp_status st = drv_um_prefetch(s.d, ds, dptr, bytes, to_device ? DRV_UM_GPU : DRV_UM_HOST, false, &diag);
    return st == SIMTVP_OK ? CUDA_SUCCESS : drv_fail(s, st, diag);
  });
}

int cucore_mem_advise(uint64_t dptr, uint64_t bytes, int advice) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if (advice < DRV_UM_ADVISE_READ_MOSTLY || advice > DRV_UM_ADVISE_UNSET_ACCESSED_BY_GPU)
    return fail(CUDA_ERROR_INVALID_VALUE, "advice %d is not a cudaMemoryAdvise value", advice);
  return run(s, [&]() -> int {
    bool od = false;
    int r = managed_range(s, "advice", dptr, bytes, &od);
    if (r != CUDA_SUCCESS || !od) return r;
    simtvp_diag diag = cleared_diag();
    simtvp_status st = drv_um_advise(s.d, dptr, bytes, static_cast<drv_um_advice>(advice), &diag);
    return st == SIMTVP_OK ? CUDA_SUCCESS : drv_fail(s, st, diag);
  });
}

int cucore_mem_range_info(uint64_t dptr, uint64_t bytes, drv_um_range_info_t *out) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  if (!out) return fail(CUDA_ERROR_INVALID_VALUE, "the result pointer is NULL");
  return run(s, [&]() -> int {
    bool od = false;
    int r = managed_range(s, "range attribute", dptr, bytes, &od);
    if (r != CUDA_SUCCESS) return r;
    if (!od) {  // launch-and-sync managed memory: no placement of its own
      *out = drv_um_range_info_t{false, -1, 0, DRV_UM_NOWHERE};
      return CUDA_SUCCESS;
    }
    if (!drv_um_range_info(s.d, dptr, bytes, out))
      return fail(CUDA_ERROR_INVALID_VALUE, "0x%llx + %llu bytes is not inside one managed allocation",
                  (unsigned long long)dptr, (unsigned long long)bytes);
    return CUDA_SUCCESS;
  });
}

int cucore_um_stats(drv_um_stats *out) {
  Entry e;
  State &s = state();
  if (int r = e.ready(s)) return r;
  return run(s, [&]() -> int {
    drv_um_get_stats(s.d, out);
    return CUDA_SUCCESS;
  });
}

