/* driver — simtvp's register-level GPU driver (C11).
 *
 * Programs the GPU model the way a kernel-mode driver programs real hardware (docs/gpu-abi.md):
 * BAR0 registers, one command ring per hardware channel in system memory, a doorbell, fences
 * (semaphore releases into system memory) and interrupts. On top of that it manages device memory
 * (a VA space with 256-byte alignment), builds the GPU's page tables (every channel translates
 * through an address space the driver owns: docs/vm.md), loads PTX modules into device memory (the
 * pre-decoded program image and the module's .global/.const segments), and offers streams and
 * events.
 *
 * The driver reaches the hardware only through drv_bus, so the same code runs on the SystemC host
 * stub, on the tests' direct harness, or on a customer's CPU model. docs/driver.md explains the
 * design (streams → channels, fences, deferred completions, error reporting).
 *
 * Threading: a drv is used by one thread at a time. Every call that waits (…_sync, and the
 * synchronous paths of copies with a host destination) calls drv_bus.wait_for_interrupt.
 *
 * Errors: every call that can fail returns a simtvp_status and fills the optional simtvp_diag.
 * SIMTVP_ERR_ARG: bad argument (invalid configuration, unknown pointer …);
 * SIMTVP_ERR_NOMEM / SIMTVP_ERR_LIMIT: out of host / device memory;
 * SIMTVP_ERR_FAULT, SIMTVP_ERR_TRAP, SIMTVP_ERR_MISALIGNED: a kernel or copy faulted on the GPU
 * (sticky, see drv_device_error); SIMTVP_ERR_LIMIT from drv_device_error: a kernel was stopped by
 * a limit or the watchdog;
 * SIMTVP_ERR_STATE: the GPU reported a command error (malformed packet, illegal register access);
 * SIMTVP_ERR_DEADLOCK: the driver waits for work that can never complete (the bus says no
 * interrupt can come). */
#ifndef SIMTVP_DRIVER_H
#define SIMTVP_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the bus the driver runs on ------------------------------------------------------------- */

/* How the driver reaches the GPU and system memory. Addresses of system memory are bus addresses
 * the GPU can DMA to (not host pointers). All members are required. */
typedef struct drv_bus {
  void *ctx;
  /* 32-bit access to the GPU's BAR0 registers; offset in bytes from the start of BAR0. */
  uint32_t (*mmio_read32)(void *ctx, uint32_t offset);
  void (*mmio_write32)(void *ctx, uint32_t offset, uint32_t value);
  /* DMA-able system memory: allocate `size` bytes aligned to `align` (a power of two); returns
   * false when exhausted. */
  bool (*sysmem_alloc)(void *ctx, uint64_t size, uint64_t align, uint64_t *bus_addr);
  void (*sysmem_free)(void *ctx, uint64_t bus_addr);
  void (*sysmem_read)(void *ctx, uint64_t bus_addr, void *dst, uint64_t len);
  void (*sysmem_write)(void *ctx, uint64_t bus_addr, const void *src, uint64_t len);
  /* Blocks until the GPU's interrupt line is asserted; returns at once when it already is (the
   * line is level-triggered and stays high until the driver acknowledges). Returns false when the
   * line can never rise (the platform has nothing left to do): the driver reports
   * SIMTVP_ERR_DEADLOCK instead of waiting forever. */
  bool (*wait_for_interrupt)(void *ctx);
  /* Optional (NULL: mmio_read32 is used): a read of a read-only identification register that
   * takes no simulated time (a debug transport), for facts the driver learns on demand after it
   * opened the device (drv_system_flags), so that asking for them does not shift the timing of
   * what follows. */
  uint32_t (*mmio_peek32)(void *ctx, uint32_t offset);
} drv_bus;

/* ---- opening the device ------------------------------------------------------------------- */

typedef struct drv drv;
typedef struct drv_stream drv_stream;
typedef struct drv_event drv_event;
typedef struct drv_module drv_module;
typedef struct drv_function drv_function;

typedef struct drv_config {
  uint32_t ring_bytes;        /* command ring per channel, power of two ≥ 4096; 0 = 64 KiB */
  uint32_t param_arena_bytes; /* kernel-parameter arena per channel in system memory; 0 = 256 KiB */
  simtvp_msg_port messages;   /* warnings (PTX parser remarks …); ctx/emit may be NULL */
  /* Device memory kept for page tables (docs/vm.md), taken from the top of device memory; 0 =
   * 1/64 of device memory, at least 1 MiB and at most 64 MiB (never more than a quarter). */
  uint64_t page_table_bytes;
} drv_config;

/* What the GPU reports about itself (read from its identification/capability registers). */
typedef struct drv_device_props {
  char name[33];                  /* NUL-terminated */
  uint32_t abi_version;           /* GPU ABI major << 16 | minor */
  uint32_t cc_major, cc_minor;    /* compute capability */
  uint32_t sm_count;              /* SIMT cores (SMs) */
  uint32_t clusters;              /* SIMT core clusters (SMs = clusters × cores per cluster) */
  uint32_t warp_size;
  uint32_t max_threads_per_block;
  uint32_t max_block_dim[3];
  uint32_t max_grid_dim[3];
  uint32_t max_threads_per_sm, max_warps_per_sm, max_ctas_per_sm;
  uint32_t regs_per_sm, regs_per_block, reg_alloc_unit;   /* 32-bit registers; unit per warp */
  uint32_t smem_per_sm, smem_per_block, smem_per_block_optin, smem_alloc_unit; /* bytes */
  uint32_t const_mem_bytes;       /* total constant memory a module may use */
  uint32_t l2_bytes;
  uint32_t mem_bus_width_bits;
  uint32_t core_clock_khz, mem_clock_khz;
  uint32_t n_channels;            /* hardware command channels */
  uint32_t n_copy_engines;
  uint32_t max_concurrent_kernels;
  uint64_t devmem_base;           /* first device address */
  uint64_t devmem_bytes;          /* device memory size */
} drv_device_props;

/* The GPU's SYSTEM register (GPU_SYSTEM_INTEGRATED / COHERENT / PAGEABLE field bits, docs/
 * system-modes.md), read on first use and remembered (through mmio_peek32 when the bus has it);
 * 0 on an ABI 1.0 GPU (discrete). */
uint32_t drv_system_flags(drv *d);

/* Identifies the GPU (ID/version registers), reads its capabilities, resets the error state, sets
 * up one ring per channel and enables interrupts. */
simtvp_status drv_open(const drv_bus *bus, const drv_config *config, drv **out, simtvp_diag *diag);
/* Waits for outstanding work (errors are ignored), disables the channels, frees everything. */
void drv_close(drv *d);
const drv_device_props *drv_props(const drv *d);

/* The first asynchronous error the GPU reported (a kernel fault, a copy fault, a malformed packet
 * …), SIMTVP_OK when none. It is sticky: every later wait returns it too, until drv_clear_error. */
simtvp_status drv_device_error(const drv *d, simtvp_diag *diag);
void drv_clear_error(drv *d);

/* GPU global timer, simulated nanoseconds. */
uint64_t drv_gpu_time_ns(drv *d);

/* ---- device memory ----------------------------------------------------------------------- */

#define DRV_MEM_ALIGN 256u /* every allocation starts on a 256-byte boundary */

/* size 0 is allowed and returns a unique address that occupies 256 bytes. */
simtvp_status drv_mem_alloc(drv *d, uint64_t size, uint64_t *dptr, simtvp_diag *diag);
/* The same with the program's allocation site (any nonzero value the caller can name later, e.g.
 * a host return address): the GPU's memory checker names it in its reports. Every allocation is
 * declared to the GPU's device-memory map (MEMMAP_OP), so a kernel reaching past the pages of live
 * blocks, or into a freed block's pages, faults; freed program memory never holds the driver's
 * own data afterwards (drv_heap_alloc_clean). */
simtvp_status drv_mem_alloc_at(drv *d, uint64_t size, uint64_t site, uint64_t *dptr, simtvp_diag *diag);
/* dptr must be a value drv_mem_alloc returned; freeing 0 is a no-op. */
simtvp_status drv_mem_free(drv *d, uint64_t dptr, simtvp_diag *diag);
void drv_mem_info(const drv *d, uint64_t *free_bytes, uint64_t *total_bytes);
/* The live allocation (or module segment) containing dptr: false when none. */
bool drv_mem_lookup(const drv *d, uint64_t dptr, uint64_t *base, uint64_t *size);

/* ---- GPU virtual memory (docs/vm.md) ------------------------------------------------------ */
/* Every channel translates its device addresses through the page tables of an address space
 * (gpu_abi.h CH_PDB). The default address space maps every device allocation at its own address
 * (virtual = physical) and the GPU's device malloc heap; drv_mem_alloc/free keep it up to date.
 * More address spaces can be made, filled with drv_vas_map and bound to a stream's channel. Every
 * change is written to the tables (copy engine, paging channel) and the GPU's TLBs invalidated
 * before the call returns. */
typedef struct drv_vas drv_vas;

enum {
  DRV_MAP_RO = 1u << 0,     /* read-only: writes and atomics fault */
  DRV_MAP_VOL = 1u << 1,    /* volatile: the GPU's caches do not keep the pages */
  DRV_MAP_SYSMEM = 1u << 2, /* pa is a system-memory bus address (SYSMEM aperture) */
  DRV_MAP_SMALL = 1u << 3   /* 4 KiB pages only (else 2 MiB pages where both addresses allow) */
};

drv_vas *drv_default_vas(drv *d);
/* An empty address space (the device malloc heap mapped). */
simtvp_status drv_vas_create(drv *d, drv_vas **out, simtvp_diag *diag);
/* Frees its tables; SIMTVP_ERR_STATE while a channel translates through it. */
simtvp_status drv_vas_destroy(drv *d, drv_vas *v, simtvp_diag *diag);
/* Maps [va, va + bytes) to [pa, pa + bytes) (4 KiB aligned, bytes > 0), replacing what was there.
 * SIMTVP_ERR_ARG naming the address for a bad range, SIMTVP_ERR_LIMIT when the page-table memory
 * (drv_config.page_table_bytes) is exhausted. */
simtvp_status drv_vas_map(drv *d, drv_vas *v, uint64_t va, uint64_t pa, uint64_t bytes, uint32_t flags,
                          simtvp_diag *diag);
/* Removes the translations of [va, va + bytes): accesses there fault. */
simtvp_status drv_vas_unmap(drv *d, drv_vas *v, uint64_t va, uint64_t bytes, simtvp_diag *diag);
/* What the driver's tables say: true and the leaf entry (mmu_pte.h) and page size (12 or 21)
 * when va is mapped; false when not (*entry = the not-present entry found, 0 when none). */
bool drv_vas_lookup(const drv_vas *v, uint64_t va, uint64_t *entry, uint32_t *page_bits);
/* The page-directory base channels bound to it hold (CH_PDB). */
uint64_t drv_vas_pdb(const drv_vas *v);
/* Binds the channel of stream s (NULL: the default stream) to v (NULL: the default address
 * space) after its queued work completed; streams sharing the channel translate through v too. */
simtvp_status drv_stream_set_vas(drv *d, drv_stream *s, drv_vas *v, simtvp_diag *diag);

typedef struct drv_vm_stats {
  uint64_t tables;        /* page tables in use (4 KiB each) */
  uint64_t pte_writes;    /* entries changed */
  uint64_t table_writes;  /* copy-engine writes of dirty table ranges */
  uint64_t table_bytes;   /* bytes they wrote */
  uint64_t invalidates;   /* MMU_INVALIDATE writes */
} drv_vm_stats;
void drv_vm_get_stats(const drv *d, drv_vm_stats *out);

/* ---- unified memory (docs/vm.md "Unified memory") ------------------------------------------ */
/* Managed ranges: whole 4 KiB pages of device memory with a host mirror at the same address that
 * the caller maps; each page is nowhere (never touched), on the host, on the GPU, or both (a
 * read-mostly duplicate). A GPU access to a page that is not on the GPU waits on a replayable
 * fault which the driver services in batches whenever it handles interrupts (any wait, query or
 * sync): copy-engine migration on the paging channel, page-table commit, MMU_REPLAY. Needs
 * MMU_CAPS.REPLAYABLE and two or more channels (drv_um_on_demand: the last is the paging channel). */
typedef enum drv_um_loc {
  DRV_UM_NOWHERE = 0, /* never touched: the first side to touch it gets it without a copy */
  DRV_UM_HOST = 1,
  DRV_UM_GPU = 2,
  DRV_UM_BOTH = 3     /* read-mostly: a read-only copy on each side */
} drv_um_loc;

enum { DRV_UM_HOST_NONE = 0, DRV_UM_HOST_READ = 1, DRV_UM_HOST_RW = 2 };
/* How the driver changes the host mirror's protection (the caller's mprotect): access is
 * DRV_UM_HOST_*. A host access the protection refuses must reach drv_um_host_access. expose
 * (optional, with unexpose): makes the mirror's pages [va, va + bytes) reachable by the GPU's DMA
 * (the platform's expose, as for cudaHostRegister) and gives their bus address; unexpose undoes
 * one expose. Without it pages are never mapped remotely (the advice below then migrates). */
typedef struct drv_um_host_port {
  void *ctx;
  void (*protect)(void *ctx, uint64_t va, uint64_t bytes, int access);
  bool (*expose)(void *ctx, uint64_t va, uint64_t bytes, uint64_t *bus);
  void (*unexpose)(void *ctx, uint64_t va, uint64_t bytes);
} drv_um_host_port;

bool drv_um_on_demand(drv *d);
void drv_um_set_host_port(drv *d, const drv_um_host_port *p);
/* A managed range of size bytes (> 0) at a 4 KiB-aligned address; every page starts nowhere (the
 * caller maps the host mirror inaccessible). drv_mem_free frees it. SIMTVP_ERR_UNSUPPORTED when
 * !drv_um_on_demand. */
simtvp_status drv_managed_alloc(drv *d, uint64_t size, uint64_t *va, simtvp_diag *diag);
/* The managed range holding va: its start and requested size. */
bool drv_managed_lookup(const drv *d, uint64_t va, uint64_t *base, uint64_t *bytes);
drv_um_loc drv_um_where(const drv *d, uint64_t va);
/* The host touched va (write: for writing): its page comes to the host (or is duplicated). */
simtvp_status drv_um_host_access(drv *d, uint64_t va, bool write, simtvp_diag *diag);
/* Moves the pages of [va, va + bytes) (inside one managed range) to `to` (HOST or GPU) with timed
 * copy-engine copies on the paging channel; returns without waiting. To the GPU: queued at once
 * (pages on the host are not in use by the GPU) and s waits for them on the GPU. To the host: s
 * stops at a semaphore; once s's earlier work is done the driver migrates the pages (at its next
 * poll of the channels: any wait, query or sync) and releases s.
 * Pages never touched stay so on a prefetch to the host. write: the pages are about to be
 * written on that side (a read-mostly page then moves instead of being duplicated). */
simtvp_status drv_um_prefetch(drv *d, drv_stream *s, uint64_t va, uint64_t bytes, drv_um_loc to, bool write,
                              simtvp_diag *diag);
typedef enum drv_um_advice {
  DRV_UM_ADVISE_READ_MOSTLY = 1, DRV_UM_ADVISE_UNSET_READ_MOSTLY,
  DRV_UM_ADVISE_PREFER_HOST, DRV_UM_ADVISE_PREFER_GPU, DRV_UM_ADVISE_UNSET_PREFERRED,
  DRV_UM_ADVISE_ACCESSED_BY_HOST, DRV_UM_ADVISE_ACCESSED_BY_GPU,
  DRV_UM_ADVISE_UNSET_ACCESSED_BY_HOST, DRV_UM_ADVISE_UNSET_ACCESSED_BY_GPU
} drv_um_advice;
/* SIMTVP_ERR_ARG naming the address for a range outside one managed allocation or an unknown
 * advice. Read-mostly pages are duplicated on reads. A GPU fault on a page whose preferred
 * location is the host maps the host page remotely instead of migrating it; accessed-by the GPU
 * maps every page the host holds remotely, now and whenever one comes to the host (docs/vm.md
 * "Unified memory": a VIDMEM entry naming the page's MAP_SYSMEM window; needs the host port's
 * expose). The preferred location GPU changes nothing (faults migrate to the GPU anyway). */
simtvp_status drv_um_advise(drv *d, uint64_t va, uint64_t bytes, drv_um_advice advice, simtvp_diag *diag);
typedef struct drv_um_range_info_t {
  bool read_mostly;     /* every page of the range is read-mostly */
  int32_t preferred;    /* DRV_UM_HOST, DRV_UM_GPU, -1 none */
  uint32_t accessed_by; /* bit 0 the host, bit 1 the GPU */
  uint8_t last_loc;     /* drv_um_loc of the range's last page */
} drv_um_range_info_t;
bool drv_um_range_info(const drv *d, uint64_t va, uint64_t bytes, drv_um_range_info_t *out);
typedef struct drv_um_stats {
  uint64_t faults;          /* fault-buffer entries serviced (distinct pages per replay) */
  uint64_t batches;         /* fault batches (MMU_REPLAY writes) */
  uint64_t pages_to_gpu, bytes_to_gpu;   /* migrated host -> GPU (faults and prefetches) */
  uint64_t pages_to_host, bytes_to_host; /* migrated GPU -> host */
  uint64_t first_touch_gpu, first_touch_host; /* pages placed by a first touch, no copy */
  uint64_t host_faults;     /* host accesses that reached drv_um_host_access */
  uint64_t prefetched_pages;
  uint64_t duplicates, duplicates_dropped; /* read-mostly copies made and dropped */
  uint64_t remote_maps, remote_unmaps;     /* host pages the GPU mapped remotely / stopped mapping */
} drv_um_stats;
/* The GPU address of the MAP_SYSMEM window through which the GPU reaches managed page va while it
 * maps it remotely (DRV_UM_WINDOW_BASE + its offset in device memory; above every device and
 * program address). */
#define DRV_UM_WINDOW_BASE (1ull << 51)
bool drv_um_remote(const drv *d, uint64_t va); /* the GPU maps page va's host copy remotely */
void drv_um_get_stats(const drv *d, drv_um_stats *out);

/* ---- system memory kernels reach (zero-copy) -------------------------------------------------- */

#define DRV_SYSMEM_PAGE 4096u /* mappings cover whole 4 KiB pages */

/* Maps [va, va + bytes) of the GPU's address space onto system memory at bus address `bus`
 * (MAP_SYSMEM, docs/gpu-abi.md): kernels that access va read and write that system memory through
 * the GPU's DMA initiator (zero-copy). va, bus and bytes must be multiples of DRV_SYSMEM_PAGE and
 * bytes > 0; the range must not overlap device memory or another mapping (SIMTVP_ERR_ARG naming
 * it). Queued on the default stream and waited for: kernels launched afterwards see the mapping. */
simtvp_status drv_sysmem_map(drv *d, uint64_t va, uint64_t bus, uint64_t bytes, simtvp_diag *diag);
/* Removes the mapping that starts at va (SIMTVP_ERR_ARG when none does), after the GPU finished
 * every piece of work submitted so far. */
simtvp_status drv_sysmem_unmap(drv *d, uint64_t va, simtvp_diag *diag);
/* The mapping holding va: false when none. */
bool drv_sysmem_lookup(const drv *d, uint64_t va, uint64_t *base, uint64_t *bus, uint64_t *bytes);

/* ---- addresses for copies ---------------------------------------------------------------- */

typedef enum drv_mem_kind {
  DRV_MEM_DEVICE = 0, /* device address (drv_mem_alloc, module globals) */
  DRV_MEM_SYSTEM = 1, /* system-memory bus address (pinned memory the GPU reaches by DMA) */
  DRV_MEM_HOST = 2    /* a pointer in the calling program: the driver stages it through system memory */
} drv_mem_kind;

typedef struct drv_ptr {
  drv_mem_kind kind;
  uint64_t addr; /* DRV_MEM_HOST: (uintptr_t) of the host pointer */
} drv_ptr;

static inline drv_ptr drv_device_ptr(uint64_t dptr) { drv_ptr p = {DRV_MEM_DEVICE, dptr}; return p; }
static inline drv_ptr drv_system_ptr(uint64_t bus) { drv_ptr p = {DRV_MEM_SYSTEM, bus}; return p; }
static inline drv_ptr drv_host_ptr(const void *h) { drv_ptr p = {DRV_MEM_HOST, (uint64_t)(uintptr_t)h}; return p; }

/* ---- streams and events ------------------------------------------------------------------ */

enum {
  DRV_STREAM_NON_BLOCKING = 1u << 0 /* does not synchronise with the default stream */
};

/* The default (legacy NULL) stream: work on it waits for all blocking streams' earlier work, and
 * blocking streams' later work waits for it (CUDA's legacy default-stream semantics). */
drv_stream *drv_default_stream(drv *d);
/* Streams map onto hardware channels (docs/driver.md); priority is recorded, not scheduled. */
simtvp_status drv_stream_create(drv *d, uint32_t flags, int priority, drv_stream **out,
                                simtvp_diag *diag);
/* Waits for the stream's work, then frees it. The default stream cannot be destroyed. */
simtvp_status drv_stream_destroy(drv *d, drv_stream *s, simtvp_diag *diag);
simtvp_status drv_stream_sync(drv *d, drv_stream *s, simtvp_diag *diag);
/* *idle = all work submitted to the stream has completed (does not wait). */
simtvp_status drv_stream_query(drv *d, drv_stream *s, bool *idle, simtvp_diag *diag);
/* Later work on s waits until ev's recorded work completed (no-op for a never-recorded event). */
simtvp_status drv_stream_wait_event(drv *d, drv_stream *s, const drv_event *ev, simtvp_diag *diag);
/* fn(data) runs on the host once the stream's earlier work has completed and before its later
 * work starts; it runs inside a later driver call that waits or queries (single host thread). */
simtvp_status drv_stream_add_callback(drv *d, drv_stream *s, void (*fn)(void *data), void *data,
                                      simtvp_diag *diag);
/* All streams (cudaDeviceSynchronize). */
simtvp_status drv_sync(drv *d, simtvp_diag *diag);

simtvp_status drv_event_create(drv *d, drv_event **out, simtvp_diag *diag);
void drv_event_destroy(drv *d, drv_event *ev);
/* Captures the stream's work so far; the GPU writes a timestamp when it gets there. */
simtvp_status drv_event_record(drv *d, drv_event *ev, drv_stream *s, simtvp_diag *diag);
/* *done = the recorded work completed (true for a never-recorded event). */
simtvp_status drv_event_query(drv *d, drv_event *ev, bool *done, simtvp_diag *diag);
simtvp_status drv_event_sync(drv *d, drv_event *ev, simtvp_diag *diag);
/* GPU time between two completed events, simulated nanoseconds (end - start; may be negative
 * only when recorded out of order, then 0 and SIMTVP_ERR_ARG). SIMTVP_ERR_STATE when either has
 * not completed or was never recorded. */
simtvp_status drv_event_elapsed_ns(drv *d, const drv_event *start, const drv_event *end,
                                   uint64_t *ns, simtvp_diag *diag);

/* ---- copies and memset (asynchronous, stream-ordered) ------------------------------------ */
/* Copies and memsets are queued on the stream (NULL = default stream) and return at once. A
 * DRV_MEM_HOST source is captured during the call (the caller may reuse it at once); a
 * DRV_MEM_HOST destination is filled when the driver observes the copy's completion, at the
 * latest in the next drv_stream_sync / drv_sync / drv_event_sync — call one before reading it.
 * Ranges are checked against device allocations; an out-of-range device range is SIMTVP_ERR_ARG. */
simtvp_status drv_memcpy(drv *d, drv_stream *s, drv_ptr dst, drv_ptr src, uint64_t bytes,
                         simtvp_diag *diag);
/* 2-D: height rows of width bytes; rows start pitch bytes apart (width ≤ pitch). */
simtvp_status drv_memcpy_2d(drv *d, drv_stream *s, drv_ptr dst, uint64_t dst_pitch, drv_ptr src,
                            uint64_t src_pitch, uint64_t width, uint64_t height, simtvp_diag *diag);
/* Fills count elements of elem_bytes (1, 2 or 4) with the low bits of value; dst is DEVICE or
 * SYSTEM. */
simtvp_status drv_memset(drv *d, drv_stream *s, drv_ptr dst, uint32_t value, uint32_t elem_bytes,
                         uint64_t count, simtvp_diag *diag);
simtvp_status drv_memset_2d(drv *d, drv_stream *s, drv_ptr dst, uint64_t pitch, uint32_t value,
                            uint32_t elem_bytes, uint64_t width_elems, uint64_t height,
                            simtvp_diag *diag);

/* ---- modules and kernels ----------------------------------------------------------------- */

struct ptx_module; /* models/ptx/ptx.h */

/* Parses PTX text once (models/ptx), places the pre-decoded program image and the module's
 * .global and .const segments (with initialisers and address relocations applied) in device
 * memory. name is used in messages. Errors name file:line:column (SIMTVP_ERR_PARSE). */
simtvp_status drv_module_load_ptx(drv *d, const char *ptx, size_t len, const char *name,
                                  drv_module **out, simtvp_diag *diag);
/* Same for a module parsed by the caller; the driver borrows it (the caller keeps it alive until
 * drv_module_unload) unless take_ownership, then unload destroys it. */
simtvp_status drv_module_load_parsed(drv *d, const struct ptx_module *m, bool take_ownership,
                                     drv_module **out, simtvp_diag *diag);
/* Waits for all work (kernels of the module may be running), frees its device memory. */
simtvp_status drv_module_unload(drv *d, drv_module *mod, simtvp_diag *diag);
const struct ptx_module *drv_module_ptx(const drv_module *mod);
/* NULL when the module has no .entry of that name. */
drv_function *drv_module_function(const drv_module *mod, const char *name);
/* Device address and size of a module-scope .global or .const variable (cudaGetSymbolAddress,
 * cudaMemcpyToSymbol, cuModuleGetGlobal); SIMTVP_ERR_ARG when absent. */
simtvp_status drv_module_global(const drv_module *mod, const char *name, uint64_t *dptr,
                                uint64_t *bytes, simtvp_diag *diag);
/* Device address of the program image (docs/gpu-abi.md §image). */
uint64_t drv_module_image_addr(const drv_module *mod);

typedef struct drv_function_attrs {
  const char *name;
  uint32_t regs_per_thread;
  uint32_t static_smem_bytes;
  uint32_t local_bytes;          /* per thread */
  uint32_t const_bytes;          /* the module's .const segment */
  uint32_t param_bytes;          /* parameter buffer size */
  uint32_t n_params;
  uint32_t max_threads_per_block;/* from .maxntid/.reqntid and the GPU's limits and registers */
  uint32_t ptx_version;          /* major * 10 + minor */
  uint32_t target_sm;            /* e.g. 75 */
} drv_function_attrs;

void drv_function_get_attrs(const drv *d, const drv_function *f, drv_function_attrs *attrs);
/* Layout of parameter i in the parameter buffer; false when i ≥ n_params. */
bool drv_function_param(const drv_function *f, uint32_t i, uint32_t *offset, uint32_t *bytes);
/* Packs CUDA-style kernel arguments (args[i] points at parameter i's value) into buf following
 * the entry's parameter layout; *used = param_bytes. */
simtvp_status drv_function_pack_params(const drv_function *f, void *const *args, void *buf,
                                       uint32_t buf_bytes, uint32_t *used, simtvp_diag *diag);
/* Sets the largest dynamic shared memory a launch of f may request (cudaFuncSetAttribute
 * MaxDynamicSharedMemorySize); default smem_per_block - static. */
simtvp_status drv_function_set_max_dynamic_smem(drv *d, drv_function *f, uint32_t bytes,
                                                simtvp_diag *diag);
/* CTAs of f that fit on one SM at once (the CTA dispatcher's own rules): 0 when one CTA does not
 * fit. */
uint32_t drv_occupancy(const drv *d, const drv_function *f, uint32_t block_threads,
                       uint32_t dynamic_smem_bytes);

/* Queues a kernel launch on s (NULL = default stream). params: param_bytes bytes in f's layout
 * (drv_function_pack_params), copied during the call. Invalid grid/block/shared-memory sizes are
 * SIMTVP_ERR_ARG with a message naming the limit. */
simtvp_status drv_launch(drv *d, drv_stream *s, const drv_function *f, const uint32_t grid[3],
                         const uint32_t block[3], uint32_t dynamic_smem_bytes, const void *params,
                         uint32_t param_bytes, simtvp_diag *diag);
/* (addition) The same with thread block cluster dimensions (cudaLaunchAttributeClusterDimension):
 * cluster 0,0,0 = the kernel's own (__cluster_dims__, .reqnctapercluster) or none. Clusters need
 * compute capability 9.0; each dimension divides the grid's; at most 8 CTAs (16 when
 * drv_function_allow_nonportable_cluster was set); they must fit the GPU together. Violations are
 * SIMTVP_ERR_ARG naming the rule. */
simtvp_status drv_launch_cluster(drv *d, drv_stream *s, const drv_function *f, const uint32_t grid[3],
                                 const uint32_t block[3], const uint32_t cluster[3], uint32_t dynamic_smem_bytes,
                                 const void *params, uint32_t param_bytes, simtvp_diag *diag);
/* (addition) cudaFuncAttributeNonPortableClusterSizeAllowed: clusters of up to 16 CTAs. */
void drv_function_allow_nonportable_cluster(drv_function *f, bool allow);
/* (addition) The kernel's compiled cluster dimensions (.reqnctapercluster), 0,0,0 when none;
 * returns whether it must be launched with clusters (.explicitcluster or dimensions). */
bool drv_function_cluster_dims(const drv_function *f, uint32_t dims[3]);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_DRIVER_H */
