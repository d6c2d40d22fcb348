/* driver — device, channels and rings, fences and interrupts, streams, events, copies, memsets and
 * launches (see driver.h and docs/driver.md; the hardware side is docs/gpu-abi.md). */
#include "drv_internal.h"

#include <stdlib.h>
#include <string.h>

#include "gpu_hw.h"

#define DEFAULT_RING_BYTES (64u << 10)

/* ---- bus helpers ------------------------------------------------------------------------------ */

uint32_t drv_rd(drv *d, uint32_t off) { return d->bus.mmio_read32(d->bus.ctx, off); }
void drv_wr(drv *d, uint32_t off, uint32_t v) { d->bus.mmio_write32(d->bus.ctx, off, v); }

void drv_memmap_op(drv *d, bool map, uint64_t addr, uint64_t size, uint64_t tag, uint32_t flags) {
  drv_wr(d, GPU_REG_MEMMAP_ADDR_LO, (uint32_t)addr);
  drv_wr(d, GPU_REG_MEMMAP_ADDR_HI, (uint32_t)(addr >> 32));
  if (map) {
    drv_wr(d, GPU_REG_MEMMAP_SIZE_LO, (uint32_t)size);
    drv_wr(d, GPU_REG_MEMMAP_SIZE_HI, (uint32_t)(size >> 32));
    drv_wr(d, GPU_REG_MEMMAP_TAG_LO, (uint32_t)tag);
    drv_wr(d, GPU_REG_MEMMAP_TAG_HI, (uint32_t)(tag >> 32));
  }
  bool internal = (flags & (DRV_MEMMAP_INTERNAL | DRV_MEMMAP_CODE)) != 0;
  drv_wr(d, GPU_REG_MEMMAP_OP, GPU_FIELD_PUT(GPU_MEMMAP_OP_CMD, map ? 1u : 2u) |
                                   GPU_FIELD_PUT(GPU_MEMMAP_OP_INTERNAL, internal ? 1u : 0u) |
                                   GPU_FIELD_PUT(GPU_MEMMAP_OP_CODE, (flags & DRV_MEMMAP_CODE) ? 1u : 0u));
}

static uint64_t rd64(drv *d, uint32_t lo, uint32_t hi) {
  return drv_rd(d, lo) | ((uint64_t)drv_rd(d, hi) << 32);
}

static bool sys_alloc(drv *d, uint64_t size, uint64_t align, uint64_t *bus) {
  return d->bus.sysmem_alloc(d->bus.ctx, size ? size : 1, align, bus);
}

static const char *gpu_err_name(uint32_t code) {
  switch (code) {
#define X(name, c, cls, addr, info, desc)                                                          \
  case c: return #name;
    GPU_ABI_ERRORS(X)
#undef X
  default: return "UNKNOWN";
  }
}

static const char *gpu_op_name(uint32_t op) {
  switch (op) {
#define X(name, o, dw, desc)                                                                       \
  case o: return #name;
    GPU_ABI_PACKETS(X)
#undef X
  default: return "?";
  }
}

simtvp_status drv_sticky(const drv *d, simtvp_diag *diag) {
  if (!d->has_error) return SIMTVP_OK;
  if (diag) *diag = d->error;
  return d->error.status;
}

simtvp_status drv_device_error(const drv *d, simtvp_diag *diag) { return drv_sticky(d, diag); }

void drv_clear_error(drv *d) {
  d->has_error = false;
  simtvp_diag_clear(&d->error);
}

/* ---- interrupts and completion ------------------------------------------------------------- */

static void run_deferred(drv *d, drv_deferred *x) {
  switch (x->kind) {
  case DRV_DEFER_FREE_SYSMEM: d->bus.sysmem_free(d->bus.ctx, x->bus_addr); break;
  case DRV_DEFER_COPY_OUT:
    for (uint64_t r = 0; r < x->rows; r++)
      d->bus.sysmem_read(d->bus.ctx, x->bus_addr + r * x->width, (uint8_t *)x->host + r * x->host_pitch,
                         x->width);
    d->bus.sysmem_free(d->bus.ctx, x->bus_addr);
    break;
  case DRV_DEFER_CALLBACK: {
    uint64_t one = 1;
    x->fn(x->data);
    d->bus.sysmem_write(d->bus.ctx, x->bus_addr, &one, sizeof one);
    break;
  }
  case DRV_DEFER_FREE_DEVMEM: drv_mem_release(d, x->bus_addr, true); break;
  case DRV_DEFER_UM_DUE: drv_um_prefetch_due(d, x->width); break;
  default: break;
  }
}

/* Reads every busy channel's semaphore and runs what became due. */
static void poll_channels(drv *d) {
  for (uint32_t c = 0; c < d->n_ch; c++) {
    drv_channel *ch = &d->ch[c];
    if (ch->completed < ch->submitted) {
      uint64_t v = 0;
      d->bus.sysmem_read(d->bus.ctx, ch->sem_bus, &v, sizeof v);
      if (v > ch->completed && v <= ch->submitted) ch->completed = v;
    }
    while (ch->defer_len && ch->defer[ch->defer_head].fence <= ch->completed) {
      drv_deferred x = ch->defer[ch->defer_head];
      ch->defer_head = (ch->defer_head + 1) % ch->defer_cap;
      ch->defer_len--;
      run_deferred(d, &x); /* may run a user callback: state is consistent here */
    }
  }
  if (d->um) drv_um_run_due(d); /* prefetches to the host whose turn came, outside any callback */
}

/* Reads and acknowledges the interrupt causes; an error becomes the sticky error. */
static void service_interrupt(drv *d) {
  uint32_t st = drv_rd(d, GPU_REG_INTR_STATUS);
  if (st & GPU_FIELD_MASK(GPU_INTR_STATUS_ERROR)) {
    uint32_t es = drv_rd(d, GPU_REG_ERR_STATUS), code = drv_rd(d, GPU_REG_ERR_CODE);
    uint64_t addr = rd64(d, GPU_REG_ERR_ADDR_LO, GPU_REG_ERR_ADDR_HI);
    uint32_t info = drv_rd(d, GPU_REG_ERR_INFO);
    if (!d->has_error && es) {
      uint32_t c = GPU_FIELD_GET(GPU_ERR_CODE_CODE, code), chn = GPU_FIELD_GET(GPU_ERR_CODE_CHANNEL, code);
      uint32_t op = GPU_FIELD_GET(GPU_ERR_CODE_OPCODE, code);
      simtvp_status s = SIMTVP_ERR_STATE;
      if (c == GPU_ERR_KERNEL_FAULT || c == GPU_ERR_DMA_FAULT || c == GPU_ERR_DEVMEM_FAULT) s = SIMTVP_ERR_FAULT;
      if (c == GPU_ERR_KERNEL_TRAP) s = SIMTVP_ERR_TRAP;
      if (c == GPU_ERR_KERNEL_MISALIGNED) s = SIMTVP_ERR_MISALIGNED;
      if (c == GPU_ERR_KERNEL_STOPPED) s = SIMTVP_ERR_LIMIT;
      simtvp_diag_set(&d->error, s, "GPU error %s (code %u) on channel %u, %s packet, address 0x%llx, info 0x%x",
                      gpu_err_name(c), c, chn, op || c <= GPU_ERR_LAUNCH_IMAGE ? gpu_op_name(op) : "no",
                      (unsigned long long)addr, info);
      simtvp_diag_at_address(&d->error, addr);
      d->has_error = true;
    }
    drv_wr(d, GPU_REG_ERR_STATUS, es);
  }
  if (st) drv_wr(d, GPU_REG_INTR_STATUS, st);
  poll_channels(d);
  if (st & GPU_FIELD_MASK(GPU_INTR_STATUS_MMU_FAULT)) drv_um_service(d); /* unified memory */
}

/* Waits until channel ch completed fence value v; then reports the sticky error, if any. */
static simtvp_status wait_fence(drv *d, drv_channel *ch, uint64_t v, simtvp_diag *diag) {
  poll_channels(d);
  while (ch->completed < v) {
    if (!d->bus.wait_for_interrupt(d->bus.ctx)) {
      service_interrupt(d);
      if (ch->completed >= v) break;
      simtvp_diag_set(diag, SIMTVP_ERR_DEADLOCK,
                      "driver: channel %u waits for fence %llu (completed %llu) but the GPU can make no "
                      "more progress", ch->id, (unsigned long long)v, (unsigned long long)ch->completed);
      return SIMTVP_ERR_DEADLOCK;
    }
    service_interrupt(d);
  }
  return drv_sticky(d, diag);
}

/* ---- rings ------------------------------------------------------------------------------------ */

static void kick(drv *d, drv_channel *ch) {
  if (ch->put == ch->kicked_put) return;
  drv_wr(d, GPU_CH_REG(ch->id, GPU_REG_CH_PUT), ch->put);
  drv_wr(d, GPU_REG_DOORBELL, ch->id);
  ch->kicked_put = ch->put;
}

static uint32_t ring_free(const drv_channel *ch) {
  return (ch->get - ch->put - 4) & (ch->ring_size - 1);
}

/* Makes room for n dwords, waiting for the GPU to consume packets when the ring is full. */
static simtvp_status ring_reserve(drv *d, drv_channel *ch, uint32_t n, simtvp_diag *diag) {
  uint32_t bytes = n * 4;
  if (bytes > ch->ring_size - 4)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "driver: packet of %u bytes exceeds the ring", bytes);
  while (ring_free(ch) < bytes) {
    ch->get = drv_rd(d, GPU_CH_REG(ch->id, GPU_REG_CH_GET));
    if (ring_free(ch) >= bytes) break;
    kick(d, ch);
    if (!d->bus.wait_for_interrupt(d->bus.ctx)) {
      ch->get = drv_rd(d, GPU_CH_REG(ch->id, GPU_REG_CH_GET));
      if (ring_free(ch) >= bytes) break;
      return simtvp_diag_set(diag, SIMTVP_ERR_DEADLOCK, "driver: ring of channel %u stays full", ch->id);
    }
    service_interrupt(d);
  }
  return SIMTVP_OK;
}

static simtvp_status ring_emit(drv *d, drv_channel *ch, const uint32_t *p, uint32_t n, simtvp_diag *diag) {
  simtvp_status st = ring_reserve(d, ch, n, diag);
  uint32_t bytes = n * 4, first;
  if (st != SIMTVP_OK) return st;
  first = ch->ring_size - ch->put;
  if (first > bytes) first = bytes;
  d->bus.sysmem_write(d->bus.ctx, ch->ring_bus + ch->put, p, first);
  if (bytes > first) d->bus.sysmem_write(d->bus.ctx, ch->ring_bus, (const uint8_t *)p + first, bytes - first);
  ch->put = (ch->put + bytes) & (ch->ring_size - 1);
  return SIMTVP_OK;
}

static simtvp_status emit_fence(drv *d, drv_channel *ch, simtvp_diag *diag) {
  uint64_t v = ch->submitted + 1;
  uint32_t p[GPU_PKT_FENCE_DWORDS];
  simtvp_status st;
  p[0] = gpu_pkt_header(GPU_OP_FENCE, GPU_PKT_FENCE_DWORDS, GPU_PKT_FLAG_INTR | GPU_FENCE_F_SYSMEM);
  p[GPU_FENCE_ADDR_LO] = (uint32_t)ch->sem_bus;
  p[GPU_FENCE_ADDR_HI] = (uint32_t)(ch->sem_bus >> 32);
  p[GPU_FENCE_VALUE_LO] = (uint32_t)v;
  p[GPU_FENCE_VALUE_HI] = (uint32_t)(v >> 32);
  if ((st = ring_emit(d, ch, p, GPU_PKT_FENCE_DWORDS, diag)) != SIMTVP_OK) return st;
  ch->submitted = v;
  return SIMTVP_OK;
}

/* ch waits (on the GPU) until channel `other` reached fence v. */
static simtvp_status emit_channel_wait(drv *d, drv_channel *ch, drv_channel *other, uint64_t v,
                                       simtvp_diag *diag) {
  uint32_t p[GPU_PKT_SEM_WAIT_DWORDS];
  simtvp_status st;
  if (other == ch || v <= other->completed || v <= ch->waited[other->id]) return SIMTVP_OK;
  p[0] = gpu_pkt_header(GPU_OP_SEM_WAIT, GPU_PKT_SEM_WAIT_DWORDS, 0);
  p[GPU_SEM_WAIT_ADDR_LO] = (uint32_t)other->sem_bus;
  p[GPU_SEM_WAIT_ADDR_HI] = (uint32_t)(other->sem_bus >> 32);
  p[GPU_SEM_WAIT_VALUE_LO] = (uint32_t)v;
  p[GPU_SEM_WAIT_VALUE_HI] = (uint32_t)(v >> 32);
  if ((st = ring_emit(d, ch, p, GPU_PKT_SEM_WAIT_DWORDS, diag)) != SIMTVP_OK) return st;
  ch->waited[other->id] = v;
  return SIMTVP_OK;
}

/* Legacy default-stream ordering before new work on s. */
static simtvp_status stream_prologue(drv *d, drv_stream *s, simtvp_diag *diag) {
  simtvp_status st = SIMTVP_OK;
  if (s->is_default) {
    for (drv_stream *t = d->streams; t && st == SIMTVP_OK; t = t->next)
      if (!(t->flags & DRV_STREAM_NON_BLOCKING) && t->last)
        st = emit_channel_wait(d, s->ch, t->ch, t->last, diag);
  } else if (!(s->flags & DRV_STREAM_NON_BLOCKING) && d->default_stream.last) {
    st = emit_channel_wait(d, s->ch, d->default_stream.ch, d->default_stream.last, diag);
  }
  return st;
}

static bool defer_push(drv_channel *ch, const drv_deferred *x) {
  if (ch->defer_len == ch->defer_cap) {
    uint32_t cap = ch->defer_cap ? ch->defer_cap * 2 : 16;
    drv_deferred *q = malloc(cap * sizeof *q);
    if (!q) return false;
    for (uint32_t i = 0; i < ch->defer_len; i++) q[i] = ch->defer[(ch->defer_head + i) % ch->defer_cap];
    free(ch->defer);
    ch->defer = q;
    ch->defer_cap = cap;
    ch->defer_head = 0;
  }
  ch->defer[(ch->defer_head + ch->defer_len) % ch->defer_cap] = *x;
  ch->defer_len++;
  return true;
}

static drv_stream *stream_of(drv *d, drv_stream *s) { return s ? s : &d->default_stream; }

simtvp_status drv_stream_wait_channel(drv *d, drv_stream *s, drv_channel *other, uint64_t v, simtvp_diag *diag) {
  s = stream_of(d, s);
  simtvp_status st = stream_prologue(d, s, diag);
  if (st == SIMTVP_OK) st = emit_channel_wait(d, s->ch, other, v, diag);
  if (st == SIMTVP_OK) st = emit_fence(d, s->ch, diag);
  if (st != SIMTVP_OK) return st;
  s->last = s->ch->submitted;
  kick(d, s->ch);
  return SIMTVP_OK;
}

bool drv_defer_sysmem_free(drv_channel *ch, uint64_t fence, uint64_t bus) {
  drv_deferred x;
  memset(&x, 0, sizeof x);
  x.fence = fence;
  x.kind = DRV_DEFER_FREE_SYSMEM;
  x.bus_addr = bus;
  return defer_push(ch, &x);
}

/* Queues one packet on s followed by a fence; the n_defer actions run once that fence passed. */
static simtvp_status submit(drv *d, drv_stream *s, const uint32_t *pkt, uint32_t n,
                            drv_deferred *defer, uint32_t n_defer, simtvp_diag *diag) {
  drv_channel *ch = s->ch;
  simtvp_status st = stream_prologue(d, s, diag);
  if (st == SIMTVP_OK && n) st = ring_emit(d, ch, pkt, n, diag);
  if (st == SIMTVP_OK) st = emit_fence(d, ch, diag);
  if (st != SIMTVP_OK) {
    for (uint32_t i = 0; i < n_defer; i++) {
      if (defer[i].kind == DRV_DEFER_FREE_SYSMEM || defer[i].kind == DRV_DEFER_COPY_OUT)
        d->bus.sysmem_free(d->bus.ctx, defer[i].bus_addr);
    }
    return st;
  }
  s->last = ch->submitted;
  for (uint32_t i = 0; i < n_defer; i++) {
    defer[i].fence = ch->submitted;
    if (!defer_push(ch, &defer[i])) {
      kick(d, ch);
      return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "driver: out of host memory");
    }
  }
  kick(d, ch);
  return SIMTVP_OK;
}

/* ---- open / close ----------------------------------------------------------------------------- */

static void read_props(drv *d) {
  drv_device_props *p = &d->props;
  uint32_t v;
  memset(p, 0, sizeof *p);
  for (uint32_t i = 0; i < 8; i++) {
    v = drv_rd(d, GPU_REG_NAME0 + 4 * i);
    for (uint32_t b = 0; b < 4; b++) p->name[4 * i + b] = (char)(v >> (8 * b));
  }
  p->name[32] = 0;
  p->abi_version = drv_rd(d, GPU_REG_ABI_VERSION);
  v = drv_rd(d, GPU_REG_CC);
  p->cc_major = GPU_FIELD_GET(GPU_CC_MAJOR, v);
  p->cc_minor = GPU_FIELD_GET(GPU_CC_MINOR, v);
  p->sm_count = drv_rd(d, GPU_REG_SM_COUNT);
  p->clusters = drv_rd(d, GPU_REG_CLUSTERS);
  p->warp_size = drv_rd(d, GPU_REG_WARP_SIZE);
  p->max_threads_per_block = drv_rd(d, GPU_REG_MAX_THREADS_PER_BLOCK);
  v = drv_rd(d, GPU_REG_MAX_BLOCK_DIM_XY);
  p->max_block_dim[0] = GPU_FIELD_GET(GPU_MAX_BLOCK_DIM_XY_X, v);
  p->max_block_dim[1] = GPU_FIELD_GET(GPU_MAX_BLOCK_DIM_XY_Y, v);
  p->max_block_dim[2] = drv_rd(d, GPU_REG_MAX_BLOCK_DIM_Z);
  p->max_grid_dim[0] = drv_rd(d, GPU_REG_MAX_GRID_DIM_X);
  v = drv_rd(d, GPU_REG_MAX_GRID_DIM_YZ);
  p->max_grid_dim[1] = GPU_FIELD_GET(GPU_MAX_GRID_DIM_YZ_Y, v);
  p->max_grid_dim[2] = GPU_FIELD_GET(GPU_MAX_GRID_DIM_YZ_Z, v);
  p->max_threads_per_sm = drv_rd(d, GPU_REG_MAX_THREADS_PER_SM);
  p->max_warps_per_sm = drv_rd(d, GPU_REG_MAX_WARPS_PER_SM);
  p->max_ctas_per_sm = drv_rd(d, GPU_REG_MAX_CTAS_PER_SM);
  p->regs_per_sm = drv_rd(d, GPU_REG_REGS_PER_SM);
  p->regs_per_block = drv_rd(d, GPU_REG_REGS_PER_BLOCK);
  p->reg_alloc_unit = drv_rd(d, GPU_REG_REG_ALLOC_UNIT);
  p->smem_per_sm = drv_rd(d, GPU_REG_SMEM_PER_SM);
  p->smem_per_block = drv_rd(d, GPU_REG_SMEM_PER_BLOCK);
  p->smem_per_block_optin = drv_rd(d, GPU_REG_SMEM_PER_BLOCK_OPTIN);
  p->smem_alloc_unit = drv_rd(d, GPU_REG_SMEM_ALLOC_UNIT);
  p->const_mem_bytes = drv_rd(d, GPU_REG_CONST_MEM_BYTES);
  p->l2_bytes = drv_rd(d, GPU_REG_L2_BYTES);
  p->mem_bus_width_bits = drv_rd(d, GPU_REG_MEM_BUS_WIDTH);
  p->core_clock_khz = drv_rd(d, GPU_REG_CORE_CLOCK_KHZ);
  p->mem_clock_khz = drv_rd(d, GPU_REG_MEM_CLOCK_KHZ);
  p->n_channels = drv_rd(d, GPU_REG_N_CHANNELS);
  p->n_copy_engines = drv_rd(d, GPU_REG_N_COPY_ENGINES);
  p->max_concurrent_kernels = drv_rd(d, GPU_REG_MAX_CONCURRENT_KERNELS);
  p->devmem_base = rd64(d, GPU_REG_DEVMEM_BASE_LO, GPU_REG_DEVMEM_BASE_HI);
  p->devmem_bytes = rd64(d, GPU_REG_DEVMEM_SIZE_LO, GPU_REG_DEVMEM_SIZE_HI);
}

static void free_all(drv *d) {
  if (d->ch) {
    for (uint32_t c = 0; c < d->n_ch; c++) {
      drv_channel *ch = &d->ch[c];
      if (ch->ring_bus) d->bus.sysmem_free(d->bus.ctx, ch->ring_bus);
      for (uint32_t i = 0; i < ch->defer_len; i++) {
        drv_deferred *x = &ch->defer[(ch->defer_head + i) % ch->defer_cap];
        if (x->kind != DRV_DEFER_FREE_DEVMEM && x->kind != DRV_DEFER_UM_DUE) d->bus.sysmem_free(d->bus.ctx, x->bus_addr);
      }
      free(ch->defer);
      free(ch->waited);
    }
  }
  if (d->sems_bus) d->bus.sysmem_free(d->bus.ctx, d->sems_bus);
  drv_um_close(d);
  drv_vm_close(d);
  free(d->ch);
  while (d->streams) {
    drv_stream *s = d->streams;
    d->streams = s->next;
    free(s);
  }
  drv_heap_destroy(d->heap);
  free(d->sysmaps);
  free(d);
}

simtvp_status drv_open(const drv_bus *bus, const drv_config *config, drv **out, simtvp_diag *diag) {
  drv *d;
  uint32_t id, ver, ring;
  *out = NULL;
  if (!bus || !bus->mmio_read32 || !bus->mmio_write32 || !bus->sysmem_alloc || !bus->sysmem_free ||
      !bus->sysmem_read || !bus->sysmem_write || !bus->wait_for_interrupt)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_open: every drv_bus member is required");
  d = calloc(1, sizeof *d);
  if (!d) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "drv_open: out of host memory");
  d->bus = *bus;
  if (config) d->cfg = *config;
  ring = d->cfg.ring_bytes ? d->cfg.ring_bytes : DEFAULT_RING_BYTES;
  if (ring < 4096 || ring > (16u << 20) || (ring & (ring - 1))) {
    free(d);
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_open: ring_bytes %u is not a power of two in 4 KiB..16 MiB", ring);
  }
  d->cfg.ring_bytes = ring;
  id = drv_rd(d, GPU_REG_ID);
  ver = drv_rd(d, GPU_REG_ABI_VERSION);
  if (id != GPU_ID_VALUE) {
    free(d);
    simtvp_diag_set(diag, SIMTVP_ERR_STATE, "drv_open: no simtvp GPU at BAR0 (ID reads 0x%08x, expected 0x%08x)", id, GPU_ID_VALUE);
    simtvp_diag_at_address(diag, GPU_REG_ID);
    return SIMTVP_ERR_STATE;
  }
  if (GPU_FIELD_GET(GPU_ABI_VERSION_MAJOR, ver) != GPU_ABI_VERSION_MAJOR) {
    free(d);
    return simtvp_diag_set(diag, SIMTVP_ERR_UNSUPPORTED, "drv_open: GPU ABI %u.%u, this driver speaks %u.x",
                           GPU_FIELD_GET(GPU_ABI_VERSION_MAJOR, ver), GPU_FIELD_GET(GPU_ABI_VERSION_MINOR, ver),
                           GPU_ABI_VERSION_MAJOR);
  }
  read_props(d);
  d->n_ch = d->props.n_channels;
  if (d->n_ch == 0 || d->n_ch > GPU_MAX_CHANNELS) {
    uint32_t n = d->n_ch;
    free(d);
    return simtvp_diag_set(diag, SIMTVP_ERR_STATE, "drv_open: GPU reports %u channels", n);
  }
  /* Device memory: the allocator's range, and page tables at the top (drv_vm.c). */
  drv_vm_layout(d);
  d->heap = drv_heap_create(d->vm.user_base, d->vm.user_end - d->vm.user_base, DRV_MEM_ALIGN);
  d->ch = calloc(d->n_ch, sizeof *d->ch);
  if (!d->heap || !d->ch) {
    free_all(d);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "drv_open: out of host memory");
  }
  /* Quiet the GPU, clear stale state, take interrupts. */
  drv_wr(d, GPU_REG_CTRL, 0);
  drv_wr(d, GPU_REG_INTR_ENABLE, 0);
  drv_wr(d, GPU_REG_ERR_STATUS, drv_rd(d, GPU_REG_ERR_STATUS));
  drv_wr(d, GPU_REG_INTR_STATUS, drv_rd(d, GPU_REG_INTR_STATUS));
  /* Only the blocks this driver declares are accessible (device memory starts empty). */
  drv_wr(d, GPU_REG_MEMMAP_CTRL, GPU_FIELD_MASK(GPU_MEMMAP_CTRL_ENABLE));
  /* The page-table pool is the driver's own block: the copy engine writes tables there and the
   * MMU walks them. */
  drv_memmap_op(d, true, d->vm.pt_base, d->vm.pt_bytes, 0, DRV_MEMMAP_INTERNAL);
  if (!sys_alloc(d, 8ull * d->n_ch, 64, &d->sems_bus)) {
    d->sems_bus = 0;
    free_all(d);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "drv_open: out of system memory for semaphores");
  }
  for (uint32_t c = 0; c < d->n_ch; c++) {
    drv_channel *ch = &d->ch[c];
    uint64_t zero = 0;
    ch->id = c;
    ch->ring_size = ring;
    ch->sem_bus = d->sems_bus + 8ull * c;
    d->bus.sysmem_write(d->bus.ctx, ch->sem_bus, &zero, sizeof zero);
    ch->waited = calloc(d->n_ch, sizeof *ch->waited);
    if (!ch->waited || !sys_alloc(d, ring, 4096, &ch->ring_bus)) {
      ch->ring_bus = 0;
      free_all(d);
      return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "drv_open: out of memory for channel %u's ring", c);
    }
    drv_wr(d, GPU_CH_REG(c, GPU_REG_CH_CTRL), 0);
    drv_wr(d, GPU_CH_REG(c, GPU_REG_CH_BASE_LO), (uint32_t)ch->ring_bus);
    drv_wr(d, GPU_CH_REG(c, GPU_REG_CH_BASE_HI), (uint32_t)(ch->ring_bus >> 32));
    drv_wr(d, GPU_CH_REG(c, GPU_REG_CH_SIZE), ring);
    drv_wr(d, GPU_CH_REG(c, GPU_REG_CH_PUT), 0);
    drv_wr(d, GPU_CH_REG(c, GPU_REG_CH_CTRL), GPU_FIELD_MASK(GPU_CH_CTRL_ENABLE));
  }
  drv_wr(d, GPU_REG_INTR_ENABLE,
         GPU_FIELD_MASK(GPU_INTR_STATUS_COMPLETION) | GPU_FIELD_MASK(GPU_INTR_STATUS_ERROR));
  drv_wr(d, GPU_REG_CTRL, GPU_FIELD_MASK(GPU_CTRL_ENABLE));
  d->default_stream.ch = &d->ch[0];
  d->default_stream.is_default = true;
  d->next_channel = 1;
  d->next_grid_id = 1;
  /* Page tables: the default address space, bound to every channel before any work. */
  simtvp_status vst = drv_vm_open(d, diag);
  if (vst != SIMTVP_OK) {
    for (uint32_t c = 0; c < d->n_ch; c++) drv_wr(d, GPU_CH_REG(c, GPU_REG_CH_CTRL), 0);
    drv_wr(d, GPU_REG_CTRL, 0);
    free_all(d);
    return vst;
  }
  *out = d;
  return SIMTVP_OK;
}

void drv_close(drv *d) {
  if (!d) return;
  (void)drv_sync(d, NULL);
  while (d->modules) (void)drv_module_unload(d, d->modules, NULL);
  while (d->n_sysmaps) /* the GPU forgets them too: a later driver may map the same addresses */
    if (drv_sysmem_unmap(d, d->sysmaps[0].va, NULL) == SIMTVP_ERR_DEADLOCK) break;
  for (uint32_t c = 0; c < d->n_ch; c++) drv_wr(d, GPU_CH_REG(c, GPU_REG_CH_CTRL), 0);
  drv_wr(d, GPU_REG_CTRL, 0);
  drv_wr(d, GPU_REG_INTR_ENABLE, 0);
  free_all(d);
}

const drv_device_props *drv_props(const drv *d) { return &d->props; }

uint32_t drv_system_flags(drv *d) {
  if (!d->system_read) {
    /* An older GPU (ABI 1.0) has no SYSTEM register: a discrete GPU. */
    uint32_t minor = GPU_FIELD_GET(GPU_ABI_VERSION_MINOR, d->props.abi_version);
    d->system_flags = minor < 1                ? 0
                      : d->bus.mmio_peek32 ? d->bus.mmio_peek32(d->bus.ctx, GPU_REG_SYSTEM)
                                           : drv_rd(d, GPU_REG_SYSTEM);
    d->system_read = true;
  }
  return d->system_flags;
}

uint64_t drv_gpu_time_ns(drv *d) {
  uint32_t lo = drv_rd(d, GPU_REG_TIMER_LO); /* latches HI */
  return lo | ((uint64_t)drv_rd(d, GPU_REG_TIMER_HI) << 32);
}

/* ---- device memory ---------------------------------------------------------------------------- */

simtvp_status drv_mem_alloc(drv *d, uint64_t size, uint64_t *dptr, simtvp_diag *diag) {
  return drv_mem_alloc_at(d, size, 0, dptr, diag);
}

simtvp_status drv_mem_alloc_at(drv *d, uint64_t size, uint64_t site, uint64_t *dptr, simtvp_diag *diag) {
  if (!drv_heap_alloc(d->heap, size, dptr)) {
    simtvp_diag_set(diag, SIMTVP_ERR_LIMIT,
                    "out of device memory: %llu bytes requested, largest free block %llu, %llu of %llu bytes free",
                    (unsigned long long)size, (unsigned long long)drv_heap_largest_free(d->heap),
                    (unsigned long long)drv_heap_free_bytes(d->heap), (unsigned long long)drv_heap_total(d->heap));
    return SIMTVP_ERR_LIMIT;
  }
  /* Mapped in the default address space before anyone can use it. */
  simtvp_status st = drv_vm_map_alloc(d, *dptr, size ? size : DRV_MEM_ALIGN, diag);
  if (st != SIMTVP_OK) {
    drv_heap_free(d->heap, *dptr);
    *dptr = 0;
    return st;
  }
  drv_memmap_op(d, true, *dptr, size, site, 0);
  return SIMTVP_OK;
}

simtvp_status drv_mem_free(drv *d, uint64_t dptr, simtvp_diag *diag) {
  if (!dptr) return SIMTVP_OK;
  if (drv_um_free(d, dptr, diag)) return SIMTVP_OK;
  for (drv_module *m = d->modules; m; m = m->next)
    if (dptr == m->image_addr || dptr == m->global_base || dptr == m->global_block || dptr == m->const_base)
      goto bad;
  if (drv_mem_release(d, dptr, true)) return SIMTVP_OK;
bad:
  simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_mem_free: 0x%llx is not the start of a device allocation",
                  (unsigned long long)dptr);
  simtvp_diag_at_address(diag, dptr);
  return SIMTVP_ERR_ARG;
}

bool drv_mem_release(drv *d, uint64_t dptr, bool user) {
  uint64_t base, size;
  if (!drv_heap_lookup(d->heap, dptr, &base, &size) || base != dptr ||
      !(user ? drv_heap_free_user(d->heap, dptr) : drv_heap_free(d->heap, dptr)))
    return false;
  drv_memmap_op(d, false, dptr, 0, 0, 0);
  drv_vm_unmap_alloc(d, dptr, size ? size : DRV_MEM_ALIGN);
  return true;
}

void drv_mem_info(const drv *d, uint64_t *free_bytes, uint64_t *total_bytes) {
  if (free_bytes) *free_bytes = drv_heap_free_bytes(d->heap);
  if (total_bytes) *total_bytes = drv_heap_total(d->heap);
}

bool drv_mem_lookup(const drv *d, uint64_t dptr, uint64_t *base, uint64_t *size) {
  return drv_heap_lookup(d->heap, dptr, base, size);
}

/* [addr, addr + bytes) must lie inside one live allocation. */
static simtvp_status check_device_range(const drv *d, uint64_t addr, uint64_t bytes, const char *what,
                                        simtvp_diag *diag) {
  uint64_t base, size;
  if (bytes == 0) return SIMTVP_OK;
  if (!drv_heap_lookup(d->heap, addr, &base, &size) || addr - base > size || bytes > size - (addr - base)) {
    simtvp_diag_set(diag, SIMTVP_ERR_ARG, "%s: device range 0x%llx + %llu bytes is not inside one allocation",
                    what, (unsigned long long)addr, (unsigned long long)bytes);
    simtvp_diag_at_address(diag, addr);
    return SIMTVP_ERR_ARG;
  }
  return SIMTVP_OK;
}

/* ---- system memory kernels reach ---------------------------------------------------------------- */

static uint32_t sysmap_index(const drv *d, uint64_t va) { /* first mapping ending after va */
  uint32_t lo = 0, hi = d->n_sysmaps;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (d->sysmaps[mid].va + d->sysmaps[mid].bytes <= va) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

bool drv_sysmem_lookup(const drv *d, uint64_t va, uint64_t *base, uint64_t *bus, uint64_t *bytes) {
  uint32_t i = sysmap_index(d, va);
  if (i == d->n_sysmaps || d->sysmaps[i].va > va) return false;
  if (base) *base = d->sysmaps[i].va;
  if (bus) *bus = d->sysmaps[i].bus;
  if (bytes) *bytes = d->sysmaps[i].bytes;
  return true;
}

static simtvp_status emit_sysmap(drv *d, uint64_t va, uint64_t bus, uint64_t bytes, bool unmap, simtvp_diag *diag) {
  uint32_t p[GPU_PKT_MAP_SYSMEM_DWORDS];
  p[0] = gpu_pkt_header(GPU_OP_MAP_SYSMEM, GPU_PKT_MAP_SYSMEM_DWORDS, unmap ? GPU_MAP_SYSMEM_F_UNMAP : 0);
  p[GPU_MAP_SYSMEM_VA_LO] = (uint32_t)va;
  p[GPU_MAP_SYSMEM_VA_HI] = (uint32_t)(va >> 32);
  p[GPU_MAP_SYSMEM_BUS_LO] = (uint32_t)bus;
  p[GPU_MAP_SYSMEM_BUS_HI] = (uint32_t)(bus >> 32);
  p[GPU_MAP_SYSMEM_BYTES_LO] = (uint32_t)bytes;
  p[GPU_MAP_SYSMEM_BYTES_HI] = (uint32_t)(bytes >> 32);
  simtvp_status st = submit(d, &d->default_stream, p, GPU_PKT_MAP_SYSMEM_DWORDS, NULL, 0, diag);
  if (st == SIMTVP_OK) st = drv_stream_sync(d, &d->default_stream, diag);
  return st;
}

simtvp_status drv_sysmem_map(drv *d, uint64_t va, uint64_t bus, uint64_t bytes, simtvp_diag *diag) {
  const uint64_t page = DRV_SYSMEM_PAGE;
  if (!bytes || (va | bus | bytes) % page || va + bytes < va)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG,
                           "drv_sysmem_map: 0x%llx + %llu bytes at bus 0x%llx is not whole 4 KiB pages",
                           (unsigned long long)va, (unsigned long long)bytes, (unsigned long long)bus);
  const drv_device_props *p = &d->props;
  if (va < p->devmem_base + p->devmem_bytes && p->devmem_base < va + bytes) {
    simtvp_diag_set(diag, SIMTVP_ERR_ARG,
                    "drv_sysmem_map: 0x%llx + %llu bytes overlaps device memory (0x%llx + %llu bytes)",
                    (unsigned long long)va, (unsigned long long)bytes, (unsigned long long)p->devmem_base,
                    (unsigned long long)p->devmem_bytes);
    simtvp_diag_at_address(diag, va);
    return SIMTVP_ERR_ARG;
  }
  uint32_t i = sysmap_index(d, va);
  if (i < d->n_sysmaps && d->sysmaps[i].va < va + bytes) {
    simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_sysmem_map: 0x%llx + %llu bytes overlaps the mapping at 0x%llx",
                    (unsigned long long)va, (unsigned long long)bytes, (unsigned long long)d->sysmaps[i].va);
    simtvp_diag_at_address(diag, va);
    return SIMTVP_ERR_ARG;
  }
  if (d->n_sysmaps == d->cap_sysmaps) {
    uint32_t cap = d->cap_sysmaps ? d->cap_sysmaps * 2 : 16;
    struct drv_sysmap *v = realloc(d->sysmaps, cap * sizeof *v);
    if (!v) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "drv_sysmem_map: out of host memory");
    d->sysmaps = v;
    d->cap_sysmaps = cap;
  }
  simtvp_status st = emit_sysmap(d, va, bus, bytes, false, diag);
  if (st != SIMTVP_OK) return st;
  /* Kernels translate through the default address space (docs/vm.md): the window MAP_SYSMEM opened
   * at va is mapped there at its own address, 4 KiB pages, volatile (the host writes it too). */
  if (d->vm.vas_default) {
    st = drv_vas_map(d, d->vm.vas_default, va, va, bytes, DRV_MAP_SMALL | DRV_MAP_VOL, diag);
    if (st != SIMTVP_OK) {
      simtvp_diag ignore;
      emit_sysmap(d, va, 0, bytes, true, &ignore);
      return st;
    }
  }
  memmove(&d->sysmaps[i + 1], &d->sysmaps[i], (d->n_sysmaps - i) * sizeof *d->sysmaps);
  d->sysmaps[i].va = va;
  d->sysmaps[i].bus = bus;
  d->sysmaps[i].bytes = bytes;
  d->n_sysmaps++;
  return SIMTVP_OK;
}

simtvp_status drv_sysmem_unmap(drv *d, uint64_t va, simtvp_diag *diag) {
  uint32_t i = sysmap_index(d, va);
  if (i == d->n_sysmaps || d->sysmaps[i].va != va) {
    simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_sysmem_unmap: no system-memory mapping starts at 0x%llx",
                    (unsigned long long)va);
    simtvp_diag_at_address(diag, va);
    return SIMTVP_ERR_ARG;
  }
  uint64_t bytes = d->sysmaps[i].bytes;
  memmove(&d->sysmaps[i], &d->sysmaps[i + 1], (d->n_sysmaps - i - 1) * sizeof *d->sysmaps);
  d->n_sysmaps--;
  simtvp_status st = drv_sync(d, diag);  /* kernels may still use it */
  if (st == SIMTVP_OK && d->vm.vas_default) st = drv_vas_unmap(d, d->vm.vas_default, va, bytes, diag);
  simtvp_status st2 = emit_sysmap(d, va, 0, bytes, true, diag);
  return st != SIMTVP_OK ? st : st2;
}

/* ---- streams and events ----------------------------------------------------------------------- */

drv_stream *drv_default_stream(drv *d) { return &d->default_stream; }

simtvp_status drv_stream_create(drv *d, uint32_t flags, int priority, drv_stream **out, simtvp_diag *diag) {
  drv_stream *s = calloc(1, sizeof *s);
  if (!s) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "drv_stream_create: out of host memory");
  /* Channel 0 belongs to the default stream; others share channels 1.. round robin without the
   * last one, the paging channel (with two channels every stream shares channel 0). */
  uint32_t n = d->vm.paging_shared ? d->n_ch : d->n_ch - 1; /* channels streams use */
  if (n > 1) {
    s->ch = &d->ch[d->next_channel];
    d->next_channel = d->next_channel + 1 < n ? d->next_channel + 1 : 1;
  } else {
    s->ch = &d->ch[0];
  }
  s->flags = flags;
  s->priority = priority;
  s->id = ++d->next_stream_id;
  s->next = d->streams;
  d->streams = s;
  *out = s;
  return SIMTVP_OK;
}

simtvp_status drv_stream_sync(drv *d, drv_stream *s, simtvp_diag *diag) {
  s = stream_of(d, s);
  return wait_fence(d, s->ch, s->last, diag);
}

simtvp_status drv_stream_destroy(drv *d, drv_stream *s, simtvp_diag *diag) {
  simtvp_status st;
  if (!s || s == &d->default_stream)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_stream_destroy: the default stream cannot be destroyed");
  st = drv_stream_sync(d, s, diag);
  for (drv_stream **p = &d->streams; *p; p = &(*p)->next)
    if (*p == s) {
      *p = s->next;
      free(s);
      return st;
    }
  return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_stream_destroy: unknown stream");
}

simtvp_status drv_stream_query(drv *d, drv_stream *s, bool *idle, simtvp_diag *diag) {
  s = stream_of(d, s);
  if (drv_rd(d, GPU_REG_INTR_STATUS)) service_interrupt(d);
  else poll_channels(d);
  *idle = s->ch->completed >= s->last;
  return drv_sticky(d, diag);
}

simtvp_status drv_sync(drv *d, simtvp_diag *diag) {
  simtvp_status st = SIMTVP_OK;
  for (uint32_t c = 0; c < d->n_ch && st != SIMTVP_ERR_DEADLOCK; c++) {
    simtvp_status s2 = wait_fence(d, &d->ch[c], d->ch[c].submitted, diag);
    if (st == SIMTVP_OK) st = s2;
  }
  return st;
}

simtvp_status drv_event_create(drv *d, drv_event **out, simtvp_diag *diag) {
  drv_event *ev = calloc(1, sizeof *ev);
  gpu_semaphore_ts zero = {0, 0};
  if (!ev) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "drv_event_create: out of host memory");
  if (!sys_alloc(d, sizeof(gpu_semaphore_ts), 16, &ev->slot_bus)) {
    free(ev);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "drv_event_create: out of system memory");
  }
  d->bus.sysmem_write(d->bus.ctx, ev->slot_bus, &zero, sizeof zero);
  *out = ev;
  return SIMTVP_OK;
}

void drv_event_destroy(drv *d, drv_event *ev) {
  if (!ev) return;
  /* The GPU may still write the slot: free it once the record completed. */
  if (ev->recorded && ev->ch->completed < ev->ch_fence) {
    drv_deferred x;
    memset(&x, 0, sizeof x);
    x.kind = DRV_DEFER_FREE_SYSMEM;
    x.bus_addr = ev->slot_bus;
    x.fence = ev->ch_fence;
    if (!defer_push(ev->ch, &x)) d->bus.sysmem_free(d->bus.ctx, ev->slot_bus);
  } else {
    d->bus.sysmem_free(d->bus.ctx, ev->slot_bus);
  }
  free(ev);
}

simtvp_status drv_event_record(drv *d, drv_event *ev, drv_stream *s, simtvp_diag *diag) {
  uint32_t p[GPU_PKT_FENCE_DWORDS];
  uint64_t seq = ++d->event_seq;
  simtvp_status st;
  s = stream_of(d, s);
  /* Sequence numbers are global, so a re-record on another channel never looks complete early. */
  p[0] = gpu_pkt_header(GPU_OP_FENCE, GPU_PKT_FENCE_DWORDS, GPU_FENCE_F_SYSMEM | GPU_FENCE_F_TIMESTAMP);
  p[GPU_FENCE_ADDR_LO] = (uint32_t)ev->slot_bus;
  p[GPU_FENCE_ADDR_HI] = (uint32_t)(ev->slot_bus >> 32);
  p[GPU_FENCE_VALUE_LO] = (uint32_t)seq;
  p[GPU_FENCE_VALUE_HI] = (uint32_t)(seq >> 32);
  st = submit(d, s, p, GPU_PKT_FENCE_DWORDS, NULL, 0, diag);
  if (st != SIMTVP_OK) return st;
  ev->seq = seq;
  ev->recorded = true;
  ev->ch = s->ch;
  ev->ch_fence = s->ch->submitted;
  return SIMTVP_OK;
}

simtvp_status drv_event_query(drv *d, drv_event *ev, bool *done, simtvp_diag *diag) {
  if (drv_rd(d, GPU_REG_INTR_STATUS)) service_interrupt(d);
  else poll_channels(d);
  *done = !ev->recorded || ev->ch->completed >= ev->ch_fence;
  return drv_sticky(d, diag);
}

simtvp_status drv_event_sync(drv *d, drv_event *ev, simtvp_diag *diag) {
  if (!ev->recorded) return drv_sticky(d, diag);
  return wait_fence(d, ev->ch, ev->ch_fence, diag);
}

simtvp_status drv_event_elapsed_ns(drv *d, const drv_event *start, const drv_event *end, uint64_t *ns,
                                   simtvp_diag *diag) {
  gpu_semaphore_ts a, b;
  *ns = 0;
  if (!start->recorded || !end->recorded || start->ch->completed < start->ch_fence ||
      end->ch->completed < end->ch_fence)
    return simtvp_diag_set(diag, SIMTVP_ERR_STATE, "drv_event_elapsed_ns: an event has not completed");
  d->bus.sysmem_read(d->bus.ctx, start->slot_bus, &a, sizeof a);
  d->bus.sysmem_read(d->bus.ctx, end->slot_bus, &b, sizeof b);
  if (b.timestamp_ns < a.timestamp_ns)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_event_elapsed_ns: end was reached before start");
  *ns = b.timestamp_ns - a.timestamp_ns;
  return SIMTVP_OK;
}

simtvp_status drv_stream_wait_event(drv *d, drv_stream *s, const drv_event *ev, simtvp_diag *diag) {
  simtvp_status st;
  s = stream_of(d, s);
  if (!ev->recorded) return SIMTVP_OK;
  st = emit_channel_wait(d, s->ch, ev->ch, ev->ch_fence, diag);
  if (st == SIMTVP_OK) kick(d, s->ch);
  return st;
}

simtvp_status drv_stream_add_callback(drv *d, drv_stream *s, void (*fn)(void *data), void *data,
                                      simtvp_diag *diag) {
  drv_deferred x[2];
  uint32_t p[GPU_PKT_SEM_WAIT_DWORDS];
  uint64_t sem, zero = 0;
  simtvp_status st;
  s = stream_of(d, s);
  if (!fn) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_stream_add_callback: no function");
  if (!sys_alloc(d, 8, 8, &sem)) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "drv_stream_add_callback: out of system memory");
  d->bus.sysmem_write(d->bus.ctx, sem, &zero, sizeof zero);
  /* fence → the host runs fn and releases `sem` → the channel's SEM_WAIT passes → fence → free. */
  memset(x, 0, sizeof x);
  x[0].kind = DRV_DEFER_CALLBACK;
  x[0].fn = fn;
  x[0].data = data;
  x[0].bus_addr = sem;
  st = submit(d, s, NULL, 0, &x[0], 1, diag);
  if (st != SIMTVP_OK) {
    d->bus.sysmem_free(d->bus.ctx, sem);
    return st;
  }
  p[0] = gpu_pkt_header(GPU_OP_SEM_WAIT, GPU_PKT_SEM_WAIT_DWORDS, 0);
  p[GPU_SEM_WAIT_ADDR_LO] = (uint32_t)sem;
  p[GPU_SEM_WAIT_ADDR_HI] = (uint32_t)(sem >> 32);
  p[GPU_SEM_WAIT_VALUE_LO] = 1;
  p[GPU_SEM_WAIT_VALUE_HI] = 0;
  x[1].kind = DRV_DEFER_FREE_SYSMEM;
  x[1].bus_addr = sem;
  return submit(d, s, p, GPU_PKT_SEM_WAIT_DWORDS, &x[1], 1, diag);
}

simtvp_status drv_stream_hold_for_host(drv *d, drv_stream *s, uint64_t id, uint64_t *sem, simtvp_diag *diag) {
  drv_deferred x[2];
  uint32_t p[GPU_PKT_SEM_WAIT_DWORDS];
  uint64_t zero = 0;
  simtvp_status st;
  s = stream_of(d, s);
  if (!sys_alloc(d, 8, 8, sem)) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "driver: out of system memory");
  d->bus.sysmem_write(d->bus.ctx, *sem, &zero, sizeof zero);
  /* as a stream callback: fence → the host's action (which writes 1 later) → SEM_WAIT → fence → free */
  memset(x, 0, sizeof x);
  x[0].kind = DRV_DEFER_UM_DUE;
  x[0].width = id;
  st = submit(d, s, NULL, 0, &x[0], 1, diag);
  if (st != SIMTVP_OK) {
    d->bus.sysmem_free(d->bus.ctx, *sem);
    return st;
  }
  p[0] = gpu_pkt_header(GPU_OP_SEM_WAIT, GPU_PKT_SEM_WAIT_DWORDS, 0);
  p[GPU_SEM_WAIT_ADDR_LO] = (uint32_t)*sem;
  p[GPU_SEM_WAIT_ADDR_HI] = (uint32_t)(*sem >> 32);
  p[GPU_SEM_WAIT_VALUE_LO] = 1;
  p[GPU_SEM_WAIT_VALUE_HI] = 0;
  x[1].kind = DRV_DEFER_FREE_SYSMEM;
  x[1].bus_addr = *sem;
  return submit(d, s, p, GPU_PKT_SEM_WAIT_DWORDS, &x[1], 1, diag);
}

/* ---- copies and memsets ----------------------------------------------------------------------- */

typedef struct drv_side {
  uint32_t sysmem;  /* 1 when the GPU sees system memory */
  uint64_t addr, pitch;
} drv_side;

/* Stages a host source into system memory (rows of width, compact) and records its release. */
static simtvp_status stage_in(drv *d, const void *host, uint64_t host_pitch, uint64_t width, uint64_t rows,
                              drv_side *side, drv_deferred *x, simtvp_diag *diag) {
  uint64_t bus;
  if (!sys_alloc(d, width * rows, 256, &bus))
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "driver: out of system memory staging %llu bytes",
                           (unsigned long long)(width * rows));
  for (uint64_t r = 0; r < rows; r++)
    d->bus.sysmem_write(d->bus.ctx, bus + r * width, (const uint8_t *)host + r * host_pitch, width);
  side->sysmem = 1;
  side->addr = bus;
  side->pitch = width;
  memset(x, 0, sizeof *x);
  x->kind = DRV_DEFER_FREE_SYSMEM;
  x->bus_addr = bus;
  return SIMTVP_OK;
}

static simtvp_status stage_out(drv *d, void *host, uint64_t host_pitch, uint64_t width, uint64_t rows,
                               drv_side *side, drv_deferred *x, simtvp_diag *diag) {
  uint64_t bus;
  if (!sys_alloc(d, width * rows, 256, &bus))
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "driver: out of system memory staging %llu bytes",
                           (unsigned long long)(width * rows));
  side->sysmem = 1;
  side->addr = bus;
  side->pitch = width;
  memset(x, 0, sizeof *x);
  x->kind = DRV_DEFER_COPY_OUT;
  x->bus_addr = bus;
  x->host = host;
  x->width = width;
  x->rows = rows;
  x->host_pitch = host_pitch;
  return SIMTVP_OK;
}

static simtvp_status resolve(drv *d, drv_ptr p, uint64_t pitch, uint64_t width, uint64_t rows, bool is_dst,
                             drv_side *side, drv_deferred *x, uint32_t *n_defer, simtvp_diag *diag) {
  uint64_t extent = rows ? (rows - 1) * pitch + width : 0;
  switch (p.kind) {
  case DRV_MEM_DEVICE:
    side->sysmem = 0;
    side->addr = p.addr;
    side->pitch = pitch;
    return check_device_range(d, p.addr, extent, is_dst ? "copy destination" : "copy source", diag);
  case DRV_MEM_SYSTEM:
    side->sysmem = 1;
    side->addr = p.addr;
    side->pitch = pitch;
    return SIMTVP_OK;
  case DRV_MEM_HOST: {
    simtvp_status st;
    if (!p.addr) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "driver: NULL host pointer");
    st = is_dst ? stage_out(d, (void *)(uintptr_t)p.addr, pitch, width, rows, side, &x[*n_defer], diag)
                : stage_in(d, (const void *)(uintptr_t)p.addr, pitch, width, rows, side, &x[*n_defer], diag);
    if (st == SIMTVP_OK) (*n_defer)++;
    return st;
  }
  default:
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "driver: unknown memory kind %d", (int)p.kind);
  }
}

static void release_staging(drv *d, drv_deferred *x, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) d->bus.sysmem_free(d->bus.ctx, x[i].bus_addr);
}

static simtvp_status copy_common(drv *d, drv_stream *s, drv_ptr dst, uint64_t dpitch, drv_ptr src,
                                 uint64_t spitch, uint64_t width, uint64_t height, bool two_d,
                                 simtvp_diag *diag) {
  drv_side a, b;
  drv_deferred x[2];
  uint32_t n_defer = 0, p[GPU_PKT_COPY_2D_DWORDS];
  simtvp_status st;
  s = stream_of(d, s);
  if (width == 0 || height == 0) return SIMTVP_OK;
  if (two_d && height > 1 && (width > dpitch || width > spitch))
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_memcpy_2d: width %llu exceeds a pitch (%llu, %llu)",
                           (unsigned long long)width, (unsigned long long)spitch, (unsigned long long)dpitch);
  if ((st = resolve(d, src, spitch, width, height, false, &b, x, &n_defer, diag)) != SIMTVP_OK) {
    release_staging(d, x, n_defer);
    return st;
  }
  if ((st = resolve(d, dst, dpitch, width, height, true, &a, x, &n_defer, diag)) != SIMTVP_OK) {
    release_staging(d, x, n_defer);
    return st;
  }
  if (two_d && height > 1 &&
      (a.pitch > UINT32_MAX || b.pitch > UINT32_MAX || width > UINT32_MAX || height > UINT32_MAX)) {
    release_staging(d, x, n_defer);
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_memcpy_2d: pitch, width and height must fit 32 bits");
  }
  if (!two_d || height == 1) {
    uint64_t bytes = width;
    p[0] = gpu_pkt_header(GPU_OP_COPY, GPU_PKT_COPY_DWORDS,
                          (b.sysmem ? GPU_COPY_F_SRC_SYSMEM : 0) | (a.sysmem ? GPU_COPY_F_DST_SYSMEM : 0));
    p[GPU_COPY_SRC_LO] = (uint32_t)b.addr;
    p[GPU_COPY_SRC_HI] = (uint32_t)(b.addr >> 32);
    p[GPU_COPY_DST_LO] = (uint32_t)a.addr;
    p[GPU_COPY_DST_HI] = (uint32_t)(a.addr >> 32);
    p[GPU_COPY_BYTES_LO] = (uint32_t)bytes;
    p[GPU_COPY_BYTES_HI] = (uint32_t)(bytes >> 32);
    return submit(d, s, p, GPU_PKT_COPY_DWORDS, x, n_defer, diag);
  }
  p[0] = gpu_pkt_header(GPU_OP_COPY_2D, GPU_PKT_COPY_2D_DWORDS,
                        (b.sysmem ? GPU_COPY_2D_F_SRC_SYSMEM : 0) | (a.sysmem ? GPU_COPY_2D_F_DST_SYSMEM : 0));
  p[GPU_COPY_2D_SRC_LO] = (uint32_t)b.addr;
  p[GPU_COPY_2D_SRC_HI] = (uint32_t)(b.addr >> 32);
  p[GPU_COPY_2D_SRC_PITCH] = (uint32_t)b.pitch;
  p[GPU_COPY_2D_DST_LO] = (uint32_t)a.addr;
  p[GPU_COPY_2D_DST_HI] = (uint32_t)(a.addr >> 32);
  p[GPU_COPY_2D_DST_PITCH] = (uint32_t)a.pitch;
  p[GPU_COPY_2D_WIDTH] = (uint32_t)width;
  p[GPU_COPY_2D_HEIGHT] = (uint32_t)height;
  return submit(d, s, p, GPU_PKT_COPY_2D_DWORDS, x, n_defer, diag);
}

simtvp_status drv_memcpy(drv *d, drv_stream *s, drv_ptr dst, drv_ptr src, uint64_t bytes, simtvp_diag *diag) {
  return copy_common(d, s, dst, bytes, src, bytes, bytes, 1, false, diag);
}

simtvp_status drv_memcpy_2d(drv *d, drv_stream *s, drv_ptr dst, uint64_t dst_pitch, drv_ptr src,
                            uint64_t src_pitch, uint64_t width, uint64_t height, simtvp_diag *diag) {
  return copy_common(d, s, dst, dst_pitch, src, src_pitch, width, height, true, diag);
}

simtvp_status drv_memset_2d(drv *d, drv_stream *s, drv_ptr dst, uint64_t pitch, uint32_t value,
                            uint32_t elem_bytes, uint64_t width_elems, uint64_t height, simtvp_diag *diag) {
  uint32_t p[GPU_PKT_MEMSET_DWORDS], elem_code;
  uint64_t width;
  simtvp_status st;
  s = stream_of(d, s);
  if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_memset: element size %u (1, 2 or 4)", elem_bytes);
  if (width_elems == 0 || height == 0) return SIMTVP_OK;
  if (width_elems > UINT64_MAX / 4) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_memset: count too large");
  width = width_elems * elem_bytes;
  if (dst.kind == DRV_MEM_HOST)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_memset: destination must be device or system memory");
  if (dst.addr % elem_bytes || (height > 1 && pitch % elem_bytes)) {
    simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_memset: address 0x%llx / pitch %llu not aligned to %u bytes",
                    (unsigned long long)dst.addr, (unsigned long long)pitch, elem_bytes);
    simtvp_diag_at_address(diag, dst.addr);
    return SIMTVP_ERR_ARG;
  }
  if (height > 1 && (width > pitch || pitch > UINT32_MAX || height > UINT32_MAX))
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_memset_2d: width exceeds pitch, or pitch/height exceed 32 bits");
  if (dst.kind == DRV_MEM_DEVICE &&
      (st = check_device_range(d, dst.addr, (height - 1) * pitch + width, "drv_memset", diag)) != SIMTVP_OK)
    return st;
  elem_code = elem_bytes == 1 ? 0 : elem_bytes == 2 ? 1 : 2;
  p[0] = gpu_pkt_header(GPU_OP_MEMSET, GPU_PKT_MEMSET_DWORDS,
                        (elem_code << GPU_MEMSET_F_ELEM_LSB) | (dst.kind == DRV_MEM_SYSTEM ? GPU_MEMSET_F_DST_SYSMEM : 0));
  p[GPU_MEMSET_DST_LO] = (uint32_t)dst.addr;
  p[GPU_MEMSET_DST_HI] = (uint32_t)(dst.addr >> 32);
  p[GPU_MEMSET_VALUE] = value;
  p[GPU_MEMSET_PITCH] = height > 1 ? (uint32_t)pitch : 0;
  p[GPU_MEMSET_WIDTH_LO] = (uint32_t)width_elems;
  p[GPU_MEMSET_WIDTH_HI] = (uint32_t)(width_elems >> 32);
  p[GPU_MEMSET_HEIGHT] = (uint32_t)height;
  return submit(d, s, p, GPU_PKT_MEMSET_DWORDS, NULL, 0, diag);
}

simtvp_status drv_memset(drv *d, drv_stream *s, drv_ptr dst, uint32_t value, uint32_t elem_bytes,
                         uint64_t count, simtvp_diag *diag) {
  return drv_memset_2d(d, s, dst, 0, value, elem_bytes, count, 1, diag);
}

/* ---- launches --------------------------------------------------------------------------------- */

uint32_t drv_occupancy(const drv *d, const drv_function *f, uint32_t block_threads, uint32_t dynamic_smem_bytes) {
  gpu_sm_limits sm;
  gpu_cta_usage u;
  const drv_device_props *p = &d->props;
  if (block_threads == 0 || block_threads > f->attrs.max_threads_per_block) return 0;
  if ((uint64_t)f->attrs.static_smem_bytes + dynamic_smem_bytes > p->smem_per_block_optin) return 0;
  sm.warp_size = p->warp_size;
  sm.max_threads = p->max_threads_per_sm;
  sm.max_warps = p->max_warps_per_sm;
  sm.max_ctas = p->max_ctas_per_sm;
  sm.regs = p->regs_per_sm;
  sm.reg_alloc_unit = p->reg_alloc_unit;
  sm.smem_bytes = p->smem_per_sm;
  sm.smem_alloc_unit = p->smem_alloc_unit;
  u = gpu_cta_usage_of(&sm, block_threads, f->attrs.regs_per_thread,
                       f->attrs.static_smem_bytes + dynamic_smem_bytes);
  return gpu_occupancy(&sm, &u, NULL);
}

void drv_function_allow_nonportable_cluster(drv_function *f, bool allow) {
  if (f) f->nonportable_cluster = allow;
}

simtvp_status drv_launch(drv *d, drv_stream *s, const drv_function *f, const uint32_t grid[3],
                         const uint32_t block[3], uint32_t dynamic_smem_bytes, const void *params,
                         uint32_t param_bytes, simtvp_diag *diag) {
  static const uint32_t none[3] = {0, 0, 0};
  return drv_launch_cluster(d, s, f, grid, block, none, dynamic_smem_bytes, params, param_bytes, diag);
}

simtvp_status drv_launch_cluster(drv *d, drv_stream *s, const drv_function *f, const uint32_t grid[3],
                                 const uint32_t block[3], const uint32_t cluster_in[3], uint32_t dynamic_smem_bytes,
                                 const void *params, uint32_t param_bytes, simtvp_diag *diag) {
  const drv_device_props *pr = &d->props;
  const drv_module *m = f->mod;
  uint32_t p[GPU_PKT_LAUNCH_DWORDS + 1];
  uint64_t threads = 1, param_bus = 0;
  drv_deferred x;
  s = stream_of(d, s);
  for (int i = 0; i < 3; i++) {
    if (grid[i] == 0 || grid[i] > pr->max_grid_dim[i])
      return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "launch of %s: grid dimension %c = %u outside 1..%u",
                             f->attrs.name, "xyz"[i], grid[i], pr->max_grid_dim[i]);
    if (block[i] == 0 || block[i] > pr->max_block_dim[i])
      return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "launch of %s: block dimension %c = %u outside 1..%u",
                             f->attrs.name, "xyz"[i], block[i], pr->max_block_dim[i]);
    threads *= block[i];
  }
  if (threads > f->attrs.max_threads_per_block)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "launch of %s: %llu threads per block exceed its limit of %u",
                           f->attrs.name, (unsigned long long)threads, f->attrs.max_threads_per_block);
  if (dynamic_smem_bytes > f->max_dynamic_smem)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG,
                           "launch of %s: %u bytes of dynamic shared memory exceed its limit of %u",
                           f->attrs.name, dynamic_smem_bytes, f->max_dynamic_smem);
  uint32_t per_sm = drv_occupancy(d, f, (uint32_t)threads, dynamic_smem_bytes);
  if (per_sm == 0)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "launch of %s: one block of %llu threads does not fit an SM",
                           f->attrs.name, (unsigned long long)threads);
  /* thread block clusters: the launch's dimensions, else the kernel's */
  uint32_t cluster[3], compiled[3], csize = 1;
  bool needs = drv_function_cluster_dims(f, compiled);
  bool given = cluster_in[0] || cluster_in[1] || cluster_in[2];
  for (int i = 0; i < 3; i++) {
    cluster[i] = given ? cluster_in[i] : compiled[i];
    if (!cluster[i] && (given || compiled[0] || compiled[1] || compiled[2])) cluster[i] = 1;
    csize *= cluster[i] ? cluster[i] : 1;
  }
  if (given && (compiled[0] || compiled[1] || compiled[2]))
    for (int i = 0; i < 3; i++)
      if (cluster[i] != (compiled[i] ? compiled[i] : 1))
        return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "launch of %s: cluster dimensions (%u,%u,%u) differ from the "
                               "kernel's __cluster_dims__ (%u,%u,%u), which a launch cannot change", f->attrs.name,
                               cluster[0], cluster[1], cluster[2], compiled[0], compiled[1], compiled[2]);
  if (needs || given) {
    if (pr->cc_major < 9)
      return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "launch of %s: thread block clusters need compute capability 9.0; "
                             "the configured GPU is %u.%u", f->attrs.name, pr->cc_major, pr->cc_minor);
    if (!cluster[0])
      return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "launch of %s: the kernel (.explicitcluster) needs cluster "
                             "dimensions (cudaLaunchKernelEx with cudaLaunchAttributeClusterDimension)", f->attrs.name);
    for (int i = 0; i < 3; i++)
      if (grid[i] % cluster[i])
        return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "launch of %s: cluster dimension %c = %u does not divide the "
                               "grid's %u", f->attrs.name, "xyz"[i], cluster[i], grid[i]);
    uint32_t limit = f->nonportable_cluster ? 16 : 8;
    if (csize > limit)
      return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "launch of %s: a cluster of %u CTAs is larger than %u%s",
                             f->attrs.name, csize, limit,
                             limit == 8 ? " (cudaFuncAttributeNonPortableClusterSizeAllowed allows 16)" : "");
    if ((uint64_t)per_sm * pr->sm_count < csize)
      return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "launch of %s: a cluster of %u CTAs does not fit the GPU at once "
                             "(%u SMs, %u CTAs of this size each)", f->attrs.name, csize, pr->sm_count, per_sm);
  }
  if (param_bytes < f->attrs.param_bytes || (param_bytes && !params))
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "launch of %s: %u parameter bytes given, %u needed",
                           f->attrs.name, param_bytes, f->attrs.param_bytes);
  param_bytes = f->attrs.param_bytes;
  memset(&x, 0, sizeof x);
  if (param_bytes) {
    if (!sys_alloc(d, param_bytes, 16, &param_bus))
      return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "launch of %s: out of system memory for parameters", f->attrs.name);
    d->bus.sysmem_write(d->bus.ctx, param_bus, params, param_bytes);
    x.kind = DRV_DEFER_FREE_SYSMEM;
    x.bus_addr = param_bus;
  }
  /* the CLUSTER dword only for cluster launches: other launches keep the 19-dword packet */
  bool with_cluster = csize > 1 || given || needs;
  uint32_t n_dwords = GPU_PKT_LAUNCH_DWORDS + (with_cluster ? 1 : 0);
  p[0] = gpu_pkt_header(GPU_OP_LAUNCH, n_dwords, with_cluster ? GPU_LAUNCH_F_CLUSTER : 0);
  p[GPU_LAUNCH_IMAGE_LO] = (uint32_t)m->image_addr;
  p[GPU_LAUNCH_IMAGE_HI] = (uint32_t)(m->image_addr >> 32);
  p[GPU_LAUNCH_ENTRY] = f->index;
  for (int i = 0; i < 3; i++) {
    p[GPU_LAUNCH_GRID_X + i] = grid[i];
    p[GPU_LAUNCH_BLOCK_X + i] = block[i];
  }
  p[GPU_LAUNCH_SMEM_DYNAMIC] = dynamic_smem_bytes;
  p[GPU_LAUNCH_SMEM_STATIC] = f->attrs.static_smem_bytes;
  p[GPU_LAUNCH_REGS_PER_THREAD] = f->attrs.regs_per_thread;
  p[GPU_LAUNCH_LOCAL_BYTES] = f->attrs.local_bytes;
  p[GPU_LAUNCH_PARAM_LO] = (uint32_t)param_bus;
  p[GPU_LAUNCH_PARAM_HI] = (uint32_t)(param_bus >> 32);
  p[GPU_LAUNCH_PARAM_BYTES] = param_bytes;
  p[GPU_LAUNCH_STREAM_ID] = s->id;
  p[GPU_LAUNCH_GRID_ID] = d->next_grid_id++;
  if (with_cluster) p[GPU_LAUNCH_CLUSTER] = cluster[0] | cluster[1] << 8 | cluster[2] << 16;
  return submit(d, s, p, n_dwords, &x, param_bytes ? 1 : 0, diag);
}

/* ---- services for drv_vm.c and drv_module.c ------------------------------------------------- */

bool drv_sys_alloc(drv *d, uint64_t size, uint64_t align, uint64_t *bus) { return sys_alloc(d, size, align, bus); }
simtvp_status drv_ring_emit(drv *d, drv_channel *ch, const uint32_t *p, uint32_t n, simtvp_diag *diag) {
  return ring_emit(d, ch, p, n, diag);
}
simtvp_status drv_emit_fence(drv *d, drv_channel *ch, simtvp_diag *diag) { return emit_fence(d, ch, diag); }
void drv_kick(drv *d, drv_channel *ch) { kick(d, ch); }
simtvp_status drv_wait_fence(drv *d, drv_channel *ch, uint64_t v, simtvp_diag *diag) {
  /* The driver's own work (page tables): an earlier asynchronous error is not this work's failure;
   * it stays sticky for the caller's next wait. */
  simtvp_status st = wait_fence(d, ch, v, diag);
  if (st != SIMTVP_OK && st != SIMTVP_ERR_DEADLOCK && ch->completed >= v) {
    if (diag) simtvp_diag_clear(diag);
    return SIMTVP_OK;
  }
  return st;
}
