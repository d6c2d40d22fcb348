/* gpu_regs — BAR0 register block (see gpu_regs.h, docs/gpu-abi.md). */
#include "gpu_regs.h"

#include <stdlib.h>
#include <string.h>

#define GLOBAL_WORDS 0x400u /* 0x000..0xFFF: global registers, 4 KiB */

static const gpu_reg_info reg_table[] = {
#define X(name, off, acc, rst, src, mask, desc)                                                    \
  {#name, (off), GPU_ACC_##acc, (uint32_t)(rst), GPU_RST_##src, (mask), desc, false},
    GPU_ABI_REGS(X)
#undef X
#define X(name, off, acc, rst, mask, desc)                                                         \
  {#name, GPU_CH_BASE + (off), GPU_ACC_##acc, (uint32_t)(rst), GPU_RST_FIX, (mask), desc, true},
        GPU_ABI_CH_REGS(X)
#undef X
};
#define N_REG_ROWS (sizeof reg_table / sizeof reg_table[0])

const gpu_reg_info *gpu_reg_table(uint32_t *count) {
  *count = (uint32_t)N_REG_ROWS;
  return reg_table;
}

struct gpu_regs {
  gpu_caps caps;
  gpu_regs_ports ports;
  uint32_t global[GLOBAL_WORDS];
  uint32_t channel[GPU_MAX_CHANNELS][GPU_CH_STRIDE / 4];
  /* offset → table row, built once: global by word index, channel by word within the block */
  const gpu_reg_info *global_row[GLOBAL_WORDS];
  const gpu_reg_info *channel_row[GPU_CH_STRIDE / 4];
  bool irq;
  uint32_t timer_hi_latch;
};

void gpu_caps_default(gpu_caps *c) {
  memset(c, 0, sizeof *c);
  strcpy(c->name, "simtvp GPU");
  c->cc_major = 7;
  c->cc_minor = 5;
  c->clusters = 30;
  c->cores_per_cluster = 1;
  c->warp_size = 32;
  c->max_threads_per_block = 1024;
  c->max_block_dim[0] = 1024;
  c->max_block_dim[1] = 1024;
  c->max_block_dim[2] = 64;
  c->max_grid_dim[0] = 0x7FFFFFFFu;
  c->max_grid_dim[1] = 65535;
  c->max_grid_dim[2] = 65535;
  c->max_threads_per_sm = 1024;
  c->max_warps_per_sm = 32;
  c->max_ctas_per_sm = 16;
  c->regs_per_sm = 65536;
  c->regs_per_block = 65536;
  c->reg_alloc_unit = 256;
  c->smem_per_sm = 65536;
  c->smem_per_block = 49152;
  c->smem_per_block_optin = 65536;
  c->smem_alloc_unit = 256;
  c->const_mem_bytes = 65536;
  c->l2_bytes = 4u << 20;
  c->mem_bus_width_bits = 384;
  c->core_clock_khz = 1365000;
  c->mem_clock_khz = 3500000;
  c->devmem_base = 0x100000000000ull;
  c->devmem_bytes = 8ull << 30;
  c->n_channels = 16;
  c->n_copy_engines = 2;
  c->max_concurrent_kernels = 32;
  c->max_param_bytes = 32764;
}

simtvp_status gpu_caps_check(const gpu_caps *c, simtvp_diag *diag) {
#define NEED(cond, field, what)                                                                    \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "GPU configuration: %s %s", field, what);           \
      simtvp_diag_at_option(diag, field);                                                          \
      return SIMTVP_ERR_CONFIG;                                                                    \
    }                                                                                              \
  } while (0)
  NEED(c->n_channels >= 1 && c->n_channels <= GPU_MAX_CHANNELS, "n_channels", "must be 1..64");
  NEED(c->clusters >= 1 && c->cores_per_cluster >= 1, "clusters", "and cores per cluster must be >= 1");
  NEED(c->warp_size >= 1 && c->warp_size <= 64, "warp_size", "must be 1..64");
  NEED(c->max_block_dim[0] <= 0xFFFF && c->max_block_dim[1] <= 0xFFFF, "max_block_dim",
       "X and Y must fit 16 bits");
  NEED(c->max_grid_dim[1] <= 0xFFFF && c->max_grid_dim[2] <= 0xFFFF, "max_grid_dim",
       "Y and Z must fit 16 bits");
  NEED(c->max_threads_per_sm >= c->warp_size && c->max_warps_per_sm >= 1 && c->max_ctas_per_sm >= 1,
       "max_threads_per_sm", "max_warps_per_sm and max_ctas_per_sm must allow one warp");
  NEED(c->n_copy_engines >= 1, "n_copy_engines", "must be >= 1");
  NEED(c->max_concurrent_kernels >= 1, "max_concurrent_kernels", "must be >= 1");
  NEED(c->devmem_bytes > 0 && c->devmem_base % 256 == 0, "devmem", "base must be 256-byte aligned, size > 0");
  NEED(c->cc_major <= 0xFF && c->cc_minor <= 0xFF, "compute_capability", "parts must fit 8 bits");
#undef NEED
  return SIMTVP_OK;
}

/* ---- state --------------------------------------------------------------------------------- */

static uint32_t *slot(gpu_regs *r, uint32_t offset) {
  if (offset < GLOBAL_WORDS * 4) return &r->global[offset / 4];
  if (offset >= GPU_CH_BASE && offset < GPU_CH_BASE + r->caps.n_channels * GPU_CH_STRIDE) {
    uint32_t rel = offset - GPU_CH_BASE;
    return &r->channel[rel / GPU_CH_STRIDE][(rel % GPU_CH_STRIDE) / 4];
  }
  return NULL;
}

const gpu_reg_info *gpu_regs_lookup(const gpu_regs *r, uint32_t offset) {
  if (offset & 3) return NULL;
  if (offset < GLOBAL_WORDS * 4) return r->global_row[offset / 4];
  if (offset >= GPU_CH_BASE && offset < GPU_CH_BASE + r->caps.n_channels * GPU_CH_STRIDE)
    return r->channel_row[((offset - GPU_CH_BASE) % GPU_CH_STRIDE) / 4];
  return NULL;
}

static void update_irq(gpu_regs *r) {
  bool level = (r->global[GPU_REG_INTR_STATUS / 4] & r->global[GPU_REG_INTR_ENABLE / 4]) != 0;
  if (level != r->irq) {
    r->irq = level;
    if (r->ports.irq.set) r->ports.irq.set(r->ports.irq.ctx, level);
  }
}

static uint32_t cfg_value(const gpu_caps *c, uint32_t offset) {
  switch (offset) {
  case GPU_REG_CC: return (c->cc_major << 8) | c->cc_minor;
  case GPU_REG_SM_COUNT: return c->clusters * c->cores_per_cluster;
  case GPU_REG_CLUSTERS: return c->clusters;
  case GPU_REG_WARP_SIZE: return c->warp_size;
  case GPU_REG_MAX_THREADS_PER_BLOCK: return c->max_threads_per_block;
  case GPU_REG_MAX_BLOCK_DIM_XY: return c->max_block_dim[0] | (c->max_block_dim[1] << 16);
  case GPU_REG_MAX_BLOCK_DIM_Z: return c->max_block_dim[2];
  case GPU_REG_MAX_GRID_DIM_X: return c->max_grid_dim[0];
  case GPU_REG_MAX_GRID_DIM_YZ: return c->max_grid_dim[1] | (c->max_grid_dim[2] << 16);
  case GPU_REG_MAX_THREADS_PER_SM: return c->max_threads_per_sm;
  case GPU_REG_MAX_WARPS_PER_SM: return c->max_warps_per_sm;
  case GPU_REG_MAX_CTAS_PER_SM: return c->max_ctas_per_sm;
  case GPU_REG_REGS_PER_SM: return c->regs_per_sm;
  case GPU_REG_REGS_PER_BLOCK: return c->regs_per_block;
  case GPU_REG_REG_ALLOC_UNIT: return c->reg_alloc_unit;
  case GPU_REG_SMEM_PER_SM: return c->smem_per_sm;
  case GPU_REG_SMEM_PER_BLOCK: return c->smem_per_block;
  case GPU_REG_SMEM_PER_BLOCK_OPTIN: return c->smem_per_block_optin;
  case GPU_REG_SMEM_ALLOC_UNIT: return c->smem_alloc_unit;
  case GPU_REG_CONST_MEM_BYTES: return c->const_mem_bytes;
  case GPU_REG_L2_BYTES: return c->l2_bytes;
  case GPU_REG_MEM_BUS_WIDTH: return c->mem_bus_width_bits;
  case GPU_REG_CORE_CLOCK_KHZ: return c->core_clock_khz;
  case GPU_REG_MEM_CLOCK_KHZ: return c->mem_clock_khz;
  case GPU_REG_DEVMEM_BASE_LO: return (uint32_t)c->devmem_base;
  case GPU_REG_DEVMEM_BASE_HI: return (uint32_t)(c->devmem_base >> 32);
  case GPU_REG_DEVMEM_SIZE_LO: return (uint32_t)c->devmem_bytes;
  case GPU_REG_DEVMEM_SIZE_HI: return (uint32_t)(c->devmem_bytes >> 32);
  case GPU_REG_N_CHANNELS: return c->n_channels;
  case GPU_REG_N_COPY_ENGINES: return c->n_copy_engines;
  case GPU_REG_MAX_CONCURRENT_KERNELS: return c->max_concurrent_kernels;
  case GPU_REG_MAX_PARAM_BYTES: return c->max_param_bytes;
  case GPU_REG_HEAP_BASE_LO: return (uint32_t)c->heap_base;
  case GPU_REG_HEAP_BASE_HI: return (uint32_t)(c->heap_base >> 32);
  case GPU_REG_HEAP_SIZE_LO: return (uint32_t)c->heap_bytes;
  case GPU_REG_HEAP_SIZE_HI: return (uint32_t)(c->heap_bytes >> 32);
  case GPU_REG_SYSTEM: return c->system;
  case GPU_REG_MMU_CAPS: return 0x00343034u | (c->replayable ? GPU_FIELD_MASK(GPU_MMU_CAPS_REPLAYABLE) : 0);
  default:
    if (offset >= GPU_REG_NAME0 && offset <= GPU_REG_NAME7) {
      uint32_t i = (offset - GPU_REG_NAME0), v = 0;
      for (uint32_t b = 0; b < 4; b++) v |= (uint32_t)(uint8_t)c->name[i + b] << (8 * b);
      return v;
    }
    return 0;
  }
}

void gpu_regs_reset(gpu_regs *r) {
  memset(r->global, 0, sizeof r->global);
  memset(r->channel, 0, sizeof r->channel);
  for (uint32_t i = 0; i < N_REG_ROWS; i++) {
    const gpu_reg_info *ri = &reg_table[i];
    uint32_t v = ri->reset_source == GPU_RST_CFG ? cfg_value(&r->caps, ri->offset) : ri->reset;
    if (ri->per_channel) {
      for (uint32_t c = 0; c < r->caps.n_channels; c++)
        r->channel[c][(ri->offset - GPU_CH_BASE) / 4] = v;
    } else {
      r->global[ri->offset / 4] = v;
    }
  }
  r->timer_hi_latch = 0;
  update_irq(r);
}

gpu_regs *gpu_regs_create(const gpu_caps *caps, gpu_regs_ports ports) {
  gpu_regs *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->caps = *caps;
  r->caps.name[sizeof r->caps.name - 1] = 0;
  if (r->caps.n_channels > GPU_MAX_CHANNELS) r->caps.n_channels = GPU_MAX_CHANNELS;
  r->ports = ports;
  for (uint32_t i = 0; i < N_REG_ROWS; i++) {
    const gpu_reg_info *ri = &reg_table[i];
    if (ri->per_channel) r->channel_row[(ri->offset - GPU_CH_BASE) / 4] = ri;
    else r->global_row[ri->offset / 4] = ri;
  }
  gpu_regs_reset(r);
  return r;
}

void gpu_regs_destroy(gpu_regs *r) { free(r); }

/* ---- errors and interrupts ---------------------------------------------------------------- */

void gpu_regs_raise(gpu_regs *r, uint32_t bits) {
  r->global[GPU_REG_INTR_STATUS / 4] |=
      bits & (GPU_FIELD_MASK(GPU_INTR_STATUS_COMPLETION) | GPU_FIELD_MASK(GPU_INTR_STATUS_ERROR) |
              GPU_FIELD_MASK(GPU_INTR_STATUS_MMU_FAULT));
  update_irq(r);
}

void gpu_regs_error(gpu_regs *r, gpu_err code, uint32_t channel, uint32_t opcode, uint64_t addr,
                    uint32_t info) {
  uint32_t *st = &r->global[GPU_REG_ERR_STATUS / 4];
  if (*st == 0) {
    r->global[GPU_REG_ERR_CODE / 4] = GPU_FIELD_PUT(GPU_ERR_CODE_CODE, code) |
                                      GPU_FIELD_PUT(GPU_ERR_CODE_CHANNEL, channel) |
                                      GPU_FIELD_PUT(GPU_ERR_CODE_OPCODE, opcode);
    r->global[GPU_REG_ERR_ADDR_LO / 4] = (uint32_t)addr;
    r->global[GPU_REG_ERR_ADDR_HI / 4] = (uint32_t)(addr >> 32);
    r->global[GPU_REG_ERR_INFO / 4] = info;
  }
  *st |= gpu_err_class_mask(code);
  if (r->global[GPU_REG_ERR_COUNT / 4] != UINT32_MAX) r->global[GPU_REG_ERR_COUNT / 4]++;
  gpu_regs_raise(r, GPU_FIELD_MASK(GPU_INTR_STATUS_ERROR));
}

bool gpu_regs_irq_level(const gpu_regs *r) { return r->irq; }

/* ---- accesses -------------------------------------------------------------------------------- */

static uint32_t live_value(gpu_regs *r, const gpu_reg_info *ri, uint32_t offset, uint32_t stored) {
  switch (ri->per_channel ? UINT32_MAX : ri->offset) {
  case GPU_REG_STATUS:
    stored &= ~GPU_FIELD_MASK(GPU_STATUS_ERROR);
    if (r->global[GPU_REG_ERR_STATUS / 4]) stored |= GPU_FIELD_MASK(GPU_STATUS_ERROR);
    return stored;
  case GPU_REG_INTR_PENDING:
    return r->global[GPU_REG_INTR_STATUS / 4] & r->global[GPU_REG_INTR_ENABLE / 4];
  case GPU_REG_TIMER_LO: {
    uint64_t t = r->ports.timer.now_ns ? r->ports.timer.now_ns(r->ports.timer.ctx) : 0;
    r->timer_hi_latch = (uint32_t)(t >> 32);
    return (uint32_t)t;
  }
  case GPU_REG_TIMER_HI: return r->timer_hi_latch;
  default: (void)offset; return stored;
  }
}

uint32_t gpu_regs_host_read(gpu_regs *r, uint32_t offset, uint32_t bytes) {
  const gpu_reg_info *ri;
  uint32_t *s;
  if (bytes != 4 || (offset & 3)) {
    gpu_regs_error(r, GPU_ERR_REG_ACCESS_SIZE, 0xFF, 0, offset, bytes);
    return 0;
  }
  ri = gpu_regs_lookup(r, offset);
  if (!ri) {
    gpu_regs_error(r, GPU_ERR_REG_UNMAPPED, 0xFF, 0, offset, 0);
    return 0;
  }
  if (ri->access == GPU_ACC_WO) {
    gpu_regs_error(r, GPU_ERR_REG_WO_READ, 0xFF, 0, offset, 0);
    return 0;
  }
  s = slot(r, offset);
  return live_value(r, ri, offset, *s);
}

void gpu_regs_host_write(gpu_regs *r, uint32_t offset, uint32_t bytes, uint32_t value) {
  const gpu_reg_info *ri;
  uint32_t *s, notify_value;
  if (bytes != 4 || (offset & 3)) {
    gpu_regs_error(r, GPU_ERR_REG_ACCESS_SIZE, 0xFF, 0, offset, bytes);
    return;
  }
  ri = gpu_regs_lookup(r, offset);
  if (!ri) {
    gpu_regs_error(r, GPU_ERR_REG_UNMAPPED, 0xFF, 0, offset, value);
    return;
  }
  if (ri->access == GPU_ACC_RO) {
    gpu_regs_error(r, GPU_ERR_REG_RO_WRITE, 0xFF, 0, offset, value);
    return;
  }
  if (value & ~ri->mask) {
    gpu_regs_error(r, GPU_ERR_REG_RESERVED_BITS, 0xFF, 0, offset, value);
    value &= ri->mask;
  }
  s = slot(r, offset);
  switch (ri->access) {
  case GPU_ACC_W1C: *s &= ~value; break;
  case GPU_ACC_WO: break; /* an action: nothing is stored */
  default: *s = value; break;
  }
  notify_value = ri->access == GPU_ACC_WO ? value : *s;
  if (!ri->per_channel && (ri->offset == GPU_REG_INTR_STATUS || ri->offset == GPU_REG_INTR_ENABLE))
    update_irq(r);
  if (r->ports.notify.written &&
      ((!ri->per_channel && (ri->offset == GPU_REG_CTRL || ri->offset == GPU_REG_DOORBELL ||
                             ri->offset == GPU_REG_MMU_INVALIDATE || ri->offset == GPU_REG_MMU_REPLAY ||
                             ri->offset == GPU_REG_MEMMAP_CTRL || ri->offset == GPU_REG_MEMMAP_OP)) ||
       (ri->per_channel && ri->offset == GPU_CH_BASE + GPU_REG_CH_CTRL)))
    r->ports.notify.written(r->ports.notify.ctx, offset, notify_value);
}

uint32_t gpu_regs_fw_read(const gpu_regs *r, uint32_t offset) {
  const gpu_reg_info *ri = gpu_regs_lookup(r, offset);
  uint32_t *s;
  if (!ri) return 0;
  s = slot((gpu_regs *)r, offset);
  return live_value((gpu_regs *)r, ri, offset, *s);
}

void gpu_regs_fw_write(gpu_regs *r, uint32_t offset, uint32_t value) {
  uint32_t *s;
  if (!gpu_regs_lookup(r, offset)) return;
  s = slot(r, offset);
  *s = value;
  if (offset == GPU_REG_INTR_STATUS || offset == GPU_REG_INTR_ENABLE) update_irq(r);
}
