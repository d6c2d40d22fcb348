/* drv_internal — state shared by the driver's source files (not for users of driver.h). */
#ifndef SIMTVP_DRV_INTERNAL_H
#define SIMTVP_DRV_INTERNAL_H

#include "driver.h"
#include "drv_heap.h"
#include "gpu_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Something the driver does on the host once a channel's fence reached a value. */
typedef enum drv_defer_kind {
  DRV_DEFER_FREE_SYSMEM = 0, /* bus_addr */
  DRV_DEFER_COPY_OUT,        /* rows × width bytes from bus_addr (pitch width) to host (pitch host_pitch) */
  DRV_DEFER_CALLBACK,        /* fn(data), then release the semaphore at bus_addr (writes 1) */
  DRV_DEFER_FREE_DEVMEM      /* dptr (module unload while work is in flight never happens: sync) */
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
} drv_channel;

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
};

/* driver.c services used by drv_module.c */
simtvp_status drv_sticky(const drv *d, simtvp_diag *diag);
uint32_t drv_rd(drv *d, uint32_t off);
void drv_wr(drv *d, uint32_t off, uint32_t v);
/* Declares (map) or ends (!map) a block of the GPU's device-memory map (gpu_abi.h MMU_OP). */
enum { DRV_MMU_INTERNAL = 1u << 0, DRV_MMU_CODE = 1u << 1 /* with INTERNAL */ };
void drv_mmu_op(drv *d, bool map, uint64_t addr, uint64_t size, uint64_t tag, uint32_t flags);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_DRV_INTERNAL_H */
