/* drv_internal — state shared by the driver's source files (not for users of driver.h). */
#ifndef SIMTVP_DRV_INTERNAL_H
#define SIMTVP_DRV_INTERNAL_H

#include "driver.h"
#include "drv_heap.h"
#include "gpu_abi.h"
#include "mmu_pte.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Something the driver does on the host once a channel's fence reached a value. */
typedef enum drv_defer_kind {
  DRV_DEFER_FREE_SYSMEM = 0, /* bus_addr */
  DRV_DEFER_COPY_OUT,        /* rows × width bytes from bus_addr (pitch width) to host (pitch host_pitch) */
  DRV_DEFER_CALLBACK,        /* fn(data), then release the semaphore at bus_addr (writes 1) */
  DRV_DEFER_FREE_DEVMEM,     /* dptr (module unload while work is in flight never happens: sync) */
  DRV_DEFER_UM_DUE           /* a prefetch to the host (id in width) may run: drv_um_prefetch_due */
} drv_defer_kind;

typedef struct drv_deferred {
  uint64_t fence;
  uint8_t kind;
  uint64_t bus_addr;
  void *host;
  uint64_t width, rows, host_pitch;
  void (*fn)(void *data);
  void *data;
} drv_deferred;

typedef struct drv_channel {
  uint32_t id;
  uint64_t ring_bus;
  uint32_t ring_size;
  uint32_t put;          /* next byte to write */
  uint32_t get;          /* last CH_GET read */
  uint32_t kicked_put;   /* PUT as last written to the register */
  uint64_t sem_bus;      /* 8-byte semaphore the channel's fences write */
  uint64_t submitted;    /* last fence value queued */
  uint64_t completed;    /* last fence value observed */
  uint64_t *waited;      /* [n_channels]: highest fence of that channel this one already waits for */
  drv_deferred *defer;   /* FIFO ordered by fence */
  uint32_t defer_head, defer_len, defer_cap;
  const struct drv_vas *vas; /* the address space its CH_PDB names */
} drv_channel;

/* ---- virtual memory (drv_vm.c) ---- */

/* One page table: its frame in device memory and the driver's shadow of its 512 entries. */
typedef struct drv_pt {
  uint64_t pa;
  uint32_t level;
  bool dirty;                      /* entries [dirty_lo, dirty_hi] must be written */
  uint32_t dirty_lo, dirty_hi;
  struct drv_pt *next_dirty;
  uint64_t e[MMU_TABLE_ENTRIES];
  struct drv_pt *child[MMU_TABLE_ENTRIES]; /* the table a PDE points at (NULL for leaves) */
} drv_pt;

struct drv_vas {
  drv_pt *root;
  uint64_t pdb;
  struct drv_vas *next;
};

typedef struct drv_inval {
  uint64_t pdb, va, bytes; /* bytes 0: the whole address space */
} drv_inval;

typedef struct drv_vm {
  uint64_t pt_base, pt_bytes;      /* page-table pool (top of device memory) */
  uint32_t *free_frames, n_free, n_frames;
  uint64_t user_base, user_end;    /* the allocator's range: [devmem_base, pt_base) */
  uint64_t chunk_base;             /* 2 MiB chunks of it, mapped while referenced */
  uint32_t *chunk_refs, n_chunks;
  uint64_t heap_base, heap_bytes;  /* the GPU's device malloc heap */
  struct drv_vas *vas_default, *vases;
  struct drv_channel *paging;      /* where page-table writes (and migrations) go */
  bool paging_shared;              /* a GPU of one channel: streams use it too */
  drv_pt *dirty;
  drv_inval *inval;
  uint32_t n_inval, cap_inval;
  bool inval_all;
  drv_vm_stats stats;
} drv_vm;

struct drv_stream {
  drv_channel *ch;
  uint32_t id;           /* 0 = the default stream (LAUNCH.STREAM_ID) */
  uint32_t flags;
  int priority;
  uint64_t last;         /* fence (on ch) of the stream's last work; 0 = none */
  bool is_default;
  drv_stream *next;
};

struct drv_event {
  uint64_t slot_bus;     /* gpu_semaphore_ts: {sequence, timestamp ns} */
  uint64_t seq;          /* sequence number of the latest record */
  bool recorded;
  drv_channel *ch;
  uint64_t ch_fence;     /* channel fence right after the record (completion tracking) */
};

typedef struct drv_param_layout {
  uint32_t offset, bytes;
} drv_param_layout;

struct drv_function {
  drv_module *mod;
  uint32_t index;        /* function index in the module */
  drv_function_attrs attrs;
  drv_param_layout *params;
  uint32_t max_dynamic_smem;
  bool nonportable_cluster; /* clusters of up to 16 CTAs allowed */
  drv_function *next;
};

struct drv_module {
  const struct ptx_module *ptx;
  bool owned;
  uint64_t image_addr, image_bytes;
  uint64_t global_base, const_base;
  uint64_t global_block; /* the heap block holding the .global segment (global_base rounded up to
                            4 KiB inside it when the module has __managed__ variables) */
  drv_function *functions;
  drv_module *next;
};

struct drv {
  drv_bus bus;
  drv_config cfg;
  drv_device_props props;
  drv_heap *heap;
  drv_channel *ch;
  uint32_t n_ch;
  uint64_t sems_bus;     /* all channels' semaphores, 8 bytes each */
  drv_stream default_stream;
  drv_stream *streams;   /* created streams */
  uint32_t next_channel; /* round robin for new streams */
  uint32_t next_grid_id;
  uint32_t next_stream_id;
  uint64_t event_seq;
  uint64_t image_loads;  /* program images loaded (gpu_image_header.load_id) */
  drv_module *modules;
  struct drv_sysmap { uint64_t va, bus, bytes; } *sysmaps; /* MAP_SYSMEM ranges, sorted by va */
  uint32_t n_sysmaps, cap_sysmaps;
  uint32_t system_flags;  /* SYSTEM register, once read */
  bool system_read;
  bool has_error;        /* sticky asynchronous error */
  simtvp_diag error;
  drv_vm vm;
  struct drv_um *um;     /* unified memory (drv_um.c), NULL until first used */
};

/* driver.c services used by drv_module.c and drv_vm.c */
simtvp_status drv_sticky(const drv *d, simtvp_diag *diag);
uint32_t drv_rd(drv *d, uint32_t off);
void drv_wr(drv *d, uint32_t off, uint32_t v);
bool drv_sys_alloc(drv *d, uint64_t size, uint64_t align, uint64_t *bus);
simtvp_status drv_ring_emit(drv *d, drv_channel *ch, const uint32_t *p, uint32_t n, simtvp_diag *diag);
simtvp_status drv_emit_fence(drv *d, drv_channel *ch, simtvp_diag *diag);
void drv_kick(drv *d, drv_channel *ch);
simtvp_status drv_wait_fence(drv *d, drv_channel *ch, uint64_t v, simtvp_diag *diag);
/* Stream s waits (on the GPU) until channel `other` reached fence v: a semaphore wait and a fence
 * on s's channel, so s's later work, queries and syncs come after it. */
simtvp_status drv_stream_wait_channel(drv *d, drv_stream *s, drv_channel *other, uint64_t v, simtvp_diag *diag);
/* Stream s stops (on the GPU) at a semaphore in system memory (*sem, 8 bytes, 0) until the host
 * writes 1 there; once s's earlier work is done the host runs the DRV_DEFER_UM_DUE action for id.
 * The semaphore is freed after the wait passed. */
simtvp_status drv_stream_hold_for_host(drv *d, drv_stream *s, uint64_t id, uint64_t *sem, simtvp_diag *diag);
/* System memory at bus is freed once channel ch passed fence (false: out of host memory). */
bool drv_defer_sysmem_free(drv_channel *ch, uint64_t fence, uint64_t bus);
/* Releases a device allocation: the heap block (user: the program's, drv_heap_free_user), its
 * chunks' mappings and its block of the device-memory map. */
bool drv_mem_release(drv *d, uint64_t dptr, bool user);

/* drv_vm.c */
void drv_vm_layout(drv *d);                            /* before the heap is made: the table pool */
simtvp_status drv_vm_open(drv *d, simtvp_diag *diag);  /* channels up: default address space, PDBs */
void drv_vm_close(drv *d);
simtvp_status drv_vm_commit(drv *d, simtvp_diag *diag);
/* The same without waiting when nothing needs MMU_INVALIDATE (entries that become valid): the table
 * writes are queued on the paging channel, in order after what is there (its later work and a
 * wait for its fence see them). With invalidations pending it is drv_vm_commit. */
simtvp_status drv_vm_commit_queued(drv *d, simtvp_diag *diag);
simtvp_status drv_vm_map_alloc(drv *d, uint64_t addr, uint64_t size, simtvp_diag *diag);
void drv_vm_unmap_alloc(drv *d, uint64_t addr, uint64_t size);
/* The level-0 entry of the 4 KiB page va in the default address space (commit separately). */
simtvp_status drv_vm_set_page(drv *d, uint64_t va, uint64_t entry, simtvp_diag *diag);

/* drv_um.c */
void drv_um_service(drv *d);                                 /* INTR_STATUS.MMU_FAULT */
bool drv_um_free(drv *d, uint64_t dptr, simtvp_diag *diag);  /* drv_mem_free of a managed range */
/* The module's __managed__ variables become managed ranges (drv_module_load_parsed, on-demand GPUs
 * only: their pages hold the initialisers, so those start on the GPU) / stop being ones (unload). */
simtvp_status drv_um_adopt_module(drv *d, const drv_module *mod, simtvp_diag *diag);
void drv_um_forget_module(drv *d, const drv_module *mod);
void drv_um_close(drv *d);
/* A prefetch to the host reached its place in its stream (run_deferred, inside poll_channels: only
 * marks it) / runs the prefetches so marked, when no unified-memory work is half done (the end of
 * poll_channels): their migrations never nest in a stream callback or in another migration. */
void drv_um_prefetch_due(drv *d, uint64_t id);
void drv_um_run_due(drv *d);
/* Declares (map) or ends (!map) a block of the GPU's device-memory map (gpu_abi.h MEMMAP_OP). */
enum { DRV_MEMMAP_INTERNAL = 1u << 0, DRV_MEMMAP_CODE = 1u << 1 /* with INTERNAL */ };
void drv_memmap_op(drv *d, bool map, uint64_t addr, uint64_t size, uint64_t tag, uint32_t flags);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_DRV_INTERNAL_H */
