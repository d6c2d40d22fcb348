/* cp_fw — command-processor firmware (see cp_fw.h; packet formats in docs/gpu-abi.md). */
#include "cp_fw.h"

#include <stdlib.h>
#include <string.h>

/* What a channel is doing. A channel holds at most one fetched packet. */
typedef enum cp_state {
  CP_IDLE = 0,      /* ready to fetch the next packet */
  CP_COPY_PENDING,  /* copy/memset decoded, waiting for a free copy engine */
  CP_COPY_RUNNING,
  CP_LAUNCH_PENDING,/* launch decoded, waiting for a free kernel slot */
  CP_LAUNCH_RUNNING,
  CP_SEM_WAIT       /* SEM_WAIT whose condition does not hold yet */
} cp_state;

typedef struct cp_channel {
  bool enabled;
  bool error;        /* a packet was rejected since the channel was enabled */
  uint8_t state;     /* cp_state */
  uint64_t base;
  uint32_t size, get, put;
  uint32_t pkt_count;
  /* the packet in hand */
  uint32_t header;
  uint64_t pkt_addr; /* system-memory address of its header (error reports) */
  gpu_copy_op copy;
  gpu_launch_desc launch;
  uint64_t param_addr;
  uint64_t sem_addr, sem_value;
  uint32_t sem_flags;
} cp_channel;

/* Limits read once from the capability registers at boot. */
typedef struct cp_limits {
  uint32_t max_threads_per_block, max_block[3], max_grid[3];
  uint32_t regs_per_block, smem_per_block_optin, max_param_bytes;
  uint32_t n_sms;
  gpu_sm_limits sm;
} cp_limits;

struct cpfw {
  cp_hal hal;
  cpfw_config cfg;
  uint32_t n_channels;
  cp_channel ch[GPU_MAX_CHANNELS];
  uint32_t rr;          /* next channel to look at first (round robin) */
  bool timer_armed;
  cp_limits lim;
  uint8_t *params;      /* parameter fetch buffer, max_param_bytes */
  uint32_t params_cap;
  uint32_t pkt[256];    /* packet being decoded (header + payload, at most 255 dwords) */
};

#define CP_NO_CHANNEL 0xFFu

/* ---- helpers ------------------------------------------------------------------------------- */

static uint32_t rd(cpfw *fw, uint32_t off) { return fw->hal.reg_read(fw->hal.ctx, off); }
static void wr(cpfw *fw, uint32_t off, uint32_t v) { fw->hal.reg_write(fw->hal.ctx, off, v); }

static void error(cpfw *fw, gpu_err code, uint32_t c, uint32_t opcode, uint64_t addr, uint32_t info) {
  if (c < GPU_MAX_CHANNELS && c < fw->n_channels) fw->ch[c].error = true;
  fw->hal.report_error(fw->hal.ctx, code, c, opcode, addr, info);
}

static bool is_pow2(uint32_t x) { return x && !(x & (x - 1)); }

static void publish_channel(cpfw *fw, uint32_t c) {
  cp_channel *ch = &fw->ch[c];
  uint32_t st = 0;
  if (ch->state != CP_IDLE || ch->get != ch->put) st |= GPU_FIELD_MASK(GPU_CH_STATUS_BUSY);
  if (ch->state == CP_SEM_WAIT) st |= GPU_FIELD_MASK(GPU_CH_STATUS_WAITING);
  if (ch->error) st |= GPU_FIELD_MASK(GPU_CH_STATUS_ERROR);
  wr(fw, GPU_CH_REG(c, GPU_REG_CH_STATUS), st);
  wr(fw, GPU_CH_REG(c, GPU_REG_CH_GET), ch->get);
  wr(fw, GPU_CH_REG(c, GPU_REG_CH_PKT_COUNT), ch->pkt_count);
}

static void publish_global(cpfw *fw) {
  uint32_t st = rd(fw, GPU_REG_STATUS) & ~GPU_FIELD_MASK(GPU_STATUS_IDLE);
  if (cpfw_idle(fw)) st |= GPU_FIELD_MASK(GPU_STATUS_IDLE);
  wr(fw, GPU_REG_STATUS, st);
}

/* Reads n dwords of the ring starting at byte offset `at` (wrapping). */
static bool ring_read(cpfw *fw, cp_channel *ch, uint32_t at, uint32_t n, uint32_t *dst,
                      uint64_t *fault) {
  uint32_t bytes = n * 4, first = ch->size - at;
  if (first > bytes) first = bytes;
  if (!fw->hal.sysmem_read(fw->hal.ctx, ch->base + at, dst, first)) {
    *fault = ch->base + at;
    return false;
  }
  if (bytes > first &&
      !fw->hal.sysmem_read(fw->hal.ctx, ch->base, (uint8_t *)dst + first, bytes - first)) {
    *fault = ch->base;
    return false;
  }
  return true;
}

static void complete(cpfw *fw, uint32_t c) {
  cp_channel *ch = &fw->ch[c];
  if (gpu_pkt_flags(ch->header) & GPU_PKT_FLAG_INTR)
    fw->hal.raise_intr(fw->hal.ctx, GPU_FIELD_MASK(GPU_INTR_STATUS_COMPLETION));
  ch->pkt_count++;
  ch->state = CP_IDLE;
}

/* Drops everything queued on the channel (after a packet whose length cannot be trusted). */
static void skip_to_put(cp_channel *ch) { ch->get = ch->put; }

/* Flags an opcode accepts (INTR plus the table's flags for it). */
static uint32_t allowed_flags(uint32_t opcode) {
  uint32_t m = GPU_PKT_FLAG_INTR;
#define X(pkt, flag, lsb, width, desc)                                                             \
  if (opcode == GPU_OP_##pkt) m |= (uint32_t)GPU_##pkt##_F_##flag;
  GPU_ABI_PKT_FLAGS(X)
#undef X
  return m;
}

static uint32_t fixed_dwords(uint32_t opcode, bool *known) {
  *known = true;
  switch (opcode) {
#define X(name, op, dw, desc)                                                                      \
  case GPU_OP_##name: return dw;
    GPU_ABI_PACKETS(X)
#undef X
  default: *known = false; return 0;
  }
}

static uint64_t u64(const uint32_t *p, uint32_t lo) { return p[lo] | ((uint64_t)p[lo + 1] << 32); }

/* ---- packet decoding ------------------------------------------------------------------------- */

#define PKT_ERR(code, dw) do { error(fw, code, c, op, ch->pkt_addr, (dw)); complete_rejected(fw, c); return; } while (0)

static void complete_rejected(cpfw *fw, uint32_t c) {
  /* A rejected packet still counts as consumed; its INTR flag is not honoured. */
  fw->ch[c].state = CP_IDLE;
}

/* The address space channel c's packets translate through (CH_PDB as it is now). */
static uint64_t channel_pdb(cpfw *fw, uint32_t c) {
  return gpu_pdb_from_regs(rd(fw, GPU_CH_REG(c, GPU_REG_CH_PDB_LO)), rd(fw, GPU_CH_REG(c, GPU_REG_CH_PDB_HI)));
}

static void decode_copy(cpfw *fw, uint32_t c, const uint32_t *p, uint32_t op, uint32_t flags) {
  cp_channel *ch = &fw->ch[c];
  gpu_copy_op *o = &ch->copy;
  memset(o, 0, sizeof *o);
  o->kind = GPU_COPY_COPY;
  o->pdb = channel_pdb(fw, c);
  if (op == GPU_OP_COPY) {
    o->src_aperture = (flags & GPU_COPY_F_SRC_SYSMEM) ? GPU_APERTURE_SYSMEM : GPU_APERTURE_DEVMEM;
    o->dst_aperture = (flags & GPU_COPY_F_DST_SYSMEM) ? GPU_APERTURE_SYSMEM : GPU_APERTURE_DEVMEM;
    o->src_phys = (flags & GPU_COPY_F_SRC_PHYS) != 0;
    o->dst_phys = (flags & GPU_COPY_F_DST_PHYS) != 0;
    o->src = u64(p, GPU_COPY_SRC_LO);
    o->dst = u64(p, GPU_COPY_DST_LO);
    o->width = u64(p, GPU_COPY_BYTES_LO);
    o->height = 1;
  } else {
    o->src_aperture = (flags & GPU_COPY_2D_F_SRC_SYSMEM) ? GPU_APERTURE_SYSMEM : GPU_APERTURE_DEVMEM;
    o->dst_aperture = (flags & GPU_COPY_2D_F_DST_SYSMEM) ? GPU_APERTURE_SYSMEM : GPU_APERTURE_DEVMEM;
    o->src_phys = (flags & GPU_COPY_2D_F_SRC_PHYS) != 0;
    o->dst_phys = (flags & GPU_COPY_2D_F_DST_PHYS) != 0;
    o->src = u64(p, GPU_COPY_2D_SRC_LO);
    o->dst = u64(p, GPU_COPY_2D_DST_LO);
    o->src_pitch = p[GPU_COPY_2D_SRC_PITCH];
    o->dst_pitch = p[GPU_COPY_2D_DST_PITCH];
    o->width = p[GPU_COPY_2D_WIDTH];
    o->height = p[GPU_COPY_2D_HEIGHT];
    if (o->height > 1 && o->width > o->src_pitch) PKT_ERR(GPU_ERR_PKT_FIELD, GPU_COPY_2D_SRC_PITCH);
    if (o->height > 1 && o->width > o->dst_pitch) PKT_ERR(GPU_ERR_PKT_FIELD, GPU_COPY_2D_DST_PITCH);
  }
  if (o->width == 0 || o->height == 0) {
    complete(fw, c); /* nothing to move */
    return;
  }
  ch->state = CP_COPY_PENDING;
}

static void decode_memset(cpfw *fw, uint32_t c, const uint32_t *p, uint32_t op, uint32_t flags) {
  cp_channel *ch = &fw->ch[c];
  gpu_copy_op *o = &ch->copy;
  uint32_t elem_code = (flags & GPU_MEMSET_F_ELEM) >> GPU_MEMSET_F_ELEM_LSB;
  uint64_t width;
  memset(o, 0, sizeof *o);
  if (elem_code > 2) PKT_ERR(GPU_ERR_PKT_FIELD, 0);
  o->kind = GPU_COPY_MEMSET;
  o->elem_bytes = (uint8_t)(1u << elem_code);
  o->dst_aperture = (flags & GPU_MEMSET_F_DST_SYSMEM) ? GPU_APERTURE_SYSMEM : GPU_APERTURE_DEVMEM;
  o->dst_phys = (flags & GPU_MEMSET_F_DST_PHYS) != 0;
  o->pdb = channel_pdb(fw, c);
  o->dst = u64(p, GPU_MEMSET_DST_LO);
  o->value = p[GPU_MEMSET_VALUE];
  o->dst_pitch = p[GPU_MEMSET_PITCH];
  width = u64(p, GPU_MEMSET_WIDTH_LO);
  o->height = p[GPU_MEMSET_HEIGHT];
  if (o->height == 0) PKT_ERR(GPU_ERR_PKT_FIELD, GPU_MEMSET_HEIGHT);
  if (width > (UINT64_MAX >> 2)) PKT_ERR(GPU_ERR_PKT_FIELD, GPU_MEMSET_WIDTH_LO);
  if (o->dst % o->elem_bytes) PKT_ERR(GPU_ERR_PKT_ALIGN, GPU_MEMSET_DST_LO);
  o->width = width * o->elem_bytes;
  if (o->height > 1) {
    if (o->dst_pitch % o->elem_bytes) PKT_ERR(GPU_ERR_PKT_ALIGN, GPU_MEMSET_PITCH);
    if (o->width > o->dst_pitch) PKT_ERR(GPU_ERR_PKT_FIELD, GPU_MEMSET_PITCH);
  }
  if (o->width == 0) {
    complete(fw, c);
    return;
  }
  ch->state = CP_COPY_PENDING;
}

static void decode_launch(cpfw *fw, uint32_t c, const uint32_t *p, uint32_t op) {
  cp_channel *ch = &fw->ch[c];
  gpu_launch_desc *d = &ch->launch;
  const cp_limits *l = &fw->lim;
  uint64_t threads;
  gpu_image_header h;
  gpu_cta_usage use;
  memset(d, 0, sizeof *d);
  d->image_addr = u64(p, GPU_LAUNCH_IMAGE_LO);
  d->entry = p[GPU_LAUNCH_ENTRY];
  for (int i = 0; i < 3; i++) {
    d->grid[i] = p[GPU_LAUNCH_GRID_X + i];
    d->block[i] = p[GPU_LAUNCH_BLOCK_X + i];
    if (d->grid[i] == 0 || d->grid[i] > l->max_grid[i]) PKT_ERR(GPU_ERR_PKT_FIELD, GPU_LAUNCH_GRID_X + i);
    if (d->block[i] == 0 || d->block[i] > l->max_block[i]) PKT_ERR(GPU_ERR_PKT_FIELD, GPU_LAUNCH_BLOCK_X + i);
  }
  threads = (uint64_t)d->block[0] * d->block[1] * d->block[2];
  if (threads > l->max_threads_per_block) PKT_ERR(GPU_ERR_PKT_FIELD, GPU_LAUNCH_BLOCK_X);
  d->smem_dynamic = p[GPU_LAUNCH_SMEM_DYNAMIC];
  d->smem_static = p[GPU_LAUNCH_SMEM_STATIC];
  d->regs_per_thread = p[GPU_LAUNCH_REGS_PER_THREAD];
  d->local_bytes = p[GPU_LAUNCH_LOCAL_BYTES];
  ch->param_addr = u64(p, GPU_LAUNCH_PARAM_LO);
  d->param_bytes = p[GPU_LAUNCH_PARAM_BYTES];
  d->stream_id = p[GPU_LAUNCH_STREAM_ID];
  d->grid_id = p[GPU_LAUNCH_GRID_ID];
  uint32_t cl = (gpu_pkt_flags(p[0]) & GPU_LAUNCH_F_CLUSTER) ? p[GPU_LAUNCH_CLUSTER] : 0, csize = 1;
  if (cl >> 24) PKT_ERR(GPU_ERR_PKT_FIELD, GPU_LAUNCH_CLUSTER);
  for (int i = 0; i < 3; i++) {
    uint32_t n = (cl >> (8 * i)) & 0xFFu;
    d->cluster[i] = cl ? n : 1;
    if (d->cluster[i] == 0 || d->grid[i] % d->cluster[i]) PKT_ERR(GPU_ERR_PKT_FIELD, GPU_LAUNCH_CLUSTER);
    csize *= d->cluster[i];
  }
  if (csize > 16) PKT_ERR(GPU_ERR_PKT_FIELD, GPU_LAUNCH_CLUSTER);
  d->channel = c;
  d->pdb = channel_pdb(fw, c);
  if ((uint64_t)d->smem_static + d->smem_dynamic > l->smem_per_block_optin)
    PKT_ERR(GPU_ERR_LAUNCH_LIMIT, GPU_LAUNCH_SMEM_DYNAMIC);
  if (d->regs_per_thread > 255) PKT_ERR(GPU_ERR_PKT_FIELD, GPU_LAUNCH_REGS_PER_THREAD);
  if (threads * d->regs_per_thread > l->regs_per_block)
    PKT_ERR(GPU_ERR_LAUNCH_LIMIT, GPU_LAUNCH_REGS_PER_THREAD);
  if (d->param_bytes > l->max_param_bytes) PKT_ERR(GPU_ERR_PKT_FIELD, GPU_LAUNCH_PARAM_BYTES);
  if (ch->param_addr & 3) PKT_ERR(GPU_ERR_PKT_ALIGN, GPU_LAUNCH_PARAM_LO);
  use = gpu_cta_usage_of(&l->sm, (uint32_t)threads, d->regs_per_thread,
                         d->smem_static + d->smem_dynamic);
  if (gpu_occupancy(&l->sm, &use, NULL) == 0) PKT_ERR(GPU_ERR_LAUNCH_LIMIT, GPU_LAUNCH_BLOCK_X);
  /* a cluster's CTAs must all be resident at once */
  if ((uint64_t)gpu_occupancy(&l->sm, &use, NULL) * l->n_sms < csize) PKT_ERR(GPU_ERR_LAUNCH_LIMIT, GPU_LAUNCH_CLUSTER);
  /* The image header must be readable and name the entry. */
  uint32_t xlate_fault = 0;
  if (!fw->hal.devmem_read(fw->hal.ctx, d->pdb, d->image_addr, &h, sizeof h, &xlate_fault)) {
    error(fw, GPU_ERR_DEVMEM_FAULT, c, op, d->image_addr, xlate_fault);
    complete_rejected(fw, c);
    return;
  }
  if (h.magic != GPU_IMAGE_MAGIC || h.version != GPU_IMAGE_VERSION || d->entry >= h.n_functions) {
    error(fw, GPU_ERR_LAUNCH_IMAGE, c, op, d->image_addr, d->entry);
    complete_rejected(fw, c);
    return;
  }
  ch->state = CP_LAUNCH_PENDING;
}

static void decode_fence_or_wait(cpfw *fw, uint32_t c, const uint32_t *p, uint32_t op, uint32_t flags) {
  cp_channel *ch = &fw->ch[c];
  bool v32 = op == GPU_OP_FENCE ? (flags & GPU_FENCE_F_VALUE32) != 0 : (flags & GPU_SEM_WAIT_F_VALUE32) != 0;
  bool writes = op == GPU_OP_SEM_WAIT || (flags & (GPU_FENCE_F_SYSMEM | GPU_FENCE_F_TIMESTAMP));
  ch->sem_addr = u64(p, 1);
  ch->sem_value = u64(p, 3);
  ch->sem_flags = flags;
  if (op == GPU_OP_FENCE && (flags & GPU_FENCE_F_TIMESTAMP) &&
      (!(flags & GPU_FENCE_F_SYSMEM) || v32))
    PKT_ERR(GPU_ERR_PKT_FIELD, 0);
  if (writes && (ch->sem_addr & (v32 ? 3u : 7u))) PKT_ERR(GPU_ERR_PKT_ALIGN, GPU_FENCE_ADDR_LO);
  if (op == GPU_OP_FENCE) {
    if (flags & GPU_FENCE_F_SYSMEM) {
      gpu_semaphore_ts ts = {ch->sem_value, 0};
      uint32_t len = v32 ? 4 : 8;
      if (flags & GPU_FENCE_F_TIMESTAMP) {
        ts.timestamp_ns = ((uint64_t)rd(fw, GPU_REG_TIMER_LO)) | ((uint64_t)rd(fw, GPU_REG_TIMER_HI) << 32);
        len = sizeof ts;
      }
      if (!fw->hal.sysmem_write(fw->hal.ctx, ch->sem_addr, &ts, len)) {
        error(fw, GPU_ERR_DMA_FAULT, c, op, ch->sem_addr, GPU_FENCE_ADDR_LO);
        complete_rejected(fw, c);
        return;
      }
    }
    wr(fw, GPU_CH_REG(c, GPU_REG_CH_FENCE_LO), (uint32_t)ch->sem_value);
    wr(fw, GPU_CH_REG(c, GPU_REG_CH_FENCE_HI), (uint32_t)(ch->sem_value >> 32));
    complete(fw, c);
    return;
  }
  ch->state = CP_SEM_WAIT; /* checked by step() */
}

/* MAP_SYSMEM: takes effect at once (ordered behind the channel's earlier packets, like every
 * packet) and completes. */
static void decode_map_sysmem(cpfw *fw, uint32_t c, const uint32_t *p, uint32_t op, uint32_t flags) {
  cp_channel *ch = &fw->ch[c];
  uint64_t va = u64(p, GPU_MAP_SYSMEM_VA_LO), bus = u64(p, GPU_MAP_SYSMEM_BUS_LO);
  uint64_t bytes = u64(p, GPU_MAP_SYSMEM_BYTES_LO);
  bool unmap = (flags & GPU_MAP_SYSMEM_F_UNMAP) != 0;
  if (va & 0xFFFu) PKT_ERR(GPU_ERR_PKT_ALIGN, GPU_MAP_SYSMEM_VA_LO);
  if (!unmap && (bus & 0xFFFu)) PKT_ERR(GPU_ERR_PKT_ALIGN, GPU_MAP_SYSMEM_BUS_LO);
  if (bytes & 0xFFFu) PKT_ERR(GPU_ERR_PKT_ALIGN, GPU_MAP_SYSMEM_BYTES_LO);
  if (!bytes || va + bytes < va) PKT_ERR(GPU_ERR_PKT_FIELD, GPU_MAP_SYSMEM_BYTES_LO);
  if (!fw->hal.map_sysmem || !fw->hal.map_sysmem(fw->hal.ctx, va, bus, bytes, unmap)) {
    error(fw, GPU_ERR_SYSMEM_MAP, c, op, va, 0);
    complete_rejected(fw, c);
    return;
  }
  complete(fw, c);
}

/* Fetches and decodes the packet at GET. Returns true when it consumed ring space. */
static bool fetch(cpfw *fw, uint32_t c) {
  cp_channel *ch = &fw->ch[c];
  uint32_t avail = ((ch->put - ch->get) & (ch->size - 1)) / 4;
  uint32_t *p = fw->pkt, op, dwords, flags, fixed;
  uint64_t fault;
  bool known;
  ch->pkt_addr = ch->base + ch->get;
  if (!ring_read(fw, ch, ch->get, 1, p, &fault)) {
    error(fw, GPU_ERR_DMA_FAULT, c, 0, fault, 0);
    skip_to_put(ch);
    return true;
  }
  ch->header = p[0];
  op = gpu_pkt_opcode(p[0]);
  dwords = gpu_pkt_dwords(p[0]);
  flags = gpu_pkt_flags(p[0]);
  if (dwords == 0 || dwords > avail) {
    error(fw, GPU_ERR_PKT_SIZE, c, op, ch->pkt_addr, p[0]);
    skip_to_put(ch);
    return true;
  }
  fixed = fixed_dwords(op, &known);
  if (!known) {
    error(fw, GPU_ERR_PKT_OPCODE, c, op, ch->pkt_addr, p[0]);
    skip_to_put(ch);
    return true;
  }
  /* LAUNCH with the CLUSTER flag carries one more dword */
  if (op == GPU_OP_LAUNCH && (flags & GPU_LAUNCH_F_CLUSTER)) fixed++;
  if (fixed && dwords != fixed) {
    error(fw, GPU_ERR_PKT_SIZE, c, op, ch->pkt_addr, p[0]);
    skip_to_put(ch);
    return true;
  }
  if (dwords > 1 && op != GPU_OP_NOP &&
      !ring_read(fw, ch, (ch->get + 4) & (ch->size - 1), dwords - 1, p + 1, &fault)) {
    error(fw, GPU_ERR_DMA_FAULT, c, op, fault, 0);
    skip_to_put(ch);
    return true;
  }
  ch->get = (ch->get + dwords * 4) & (ch->size - 1);
  if ((p[0] & GPU_PKT_RESERVED_MASK) || (flags & ~allowed_flags(op))) {
    error(fw, GPU_ERR_PKT_RESERVED, c, op, ch->pkt_addr, p[0]);
    return true;
  }
  if (fw->hal.packet) fw->hal.packet(fw->hal.ctx, c, op);
  switch (op) {
  case GPU_OP_NOP:
  case GPU_OP_INTERRUPT:
    complete(fw, c);
    if (op == GPU_OP_INTERRUPT && !(flags & GPU_PKT_FLAG_INTR))
      fw->hal.raise_intr(fw->hal.ctx, GPU_FIELD_MASK(GPU_INTR_STATUS_COMPLETION));
    break;
  case GPU_OP_COPY:
  case GPU_OP_COPY_2D: decode_copy(fw, c, p, op, flags); break;
  case GPU_OP_MEMSET: decode_memset(fw, c, p, op, flags); break;
  case GPU_OP_LAUNCH: decode_launch(fw, c, p, op); break;
  case GPU_OP_FENCE:
  case GPU_OP_SEM_WAIT: decode_fence_or_wait(fw, c, p, op, flags); break;
  case GPU_OP_MAP_SYSMEM: decode_map_sysmem(fw, c, p, op, flags); break;
  default: break;
  }
  return true;
}

/* Is the SEM_WAIT condition of channel c true? Reports a DMA fault (and gives up the wait). */
static bool sem_satisfied(cpfw *fw, uint32_t c, bool *failed) {
  cp_channel *ch = &fw->ch[c];
  bool v32 = (ch->sem_flags & GPU_SEM_WAIT_F_VALUE32) != 0;
  uint64_t cur = 0, want = v32 ? (uint32_t)ch->sem_value : ch->sem_value;
  *failed = false;
  if (!fw->hal.sysmem_read(fw->hal.ctx, ch->sem_addr, &cur, v32 ? 4 : 8)) {
    error(fw, GPU_ERR_DMA_FAULT, c, GPU_OP_SEM_WAIT, ch->sem_addr, GPU_SEM_WAIT_ADDR_LO);
    *failed = true;
    return false;
  }
  return (ch->sem_flags & GPU_SEM_WAIT_F_EQUAL) ? cur == want : cur >= want;
}

/* One step of channel c; true when something changed. */
static bool step(cpfw *fw, uint32_t c, bool fetch_allowed) {
  cp_channel *ch = &fw->ch[c];
  switch (ch->state) {
  case CP_IDLE:
    if (!fetch_allowed || !ch->enabled || ch->get == ch->put) return false;
    return fetch(fw, c);
  case CP_SEM_WAIT: {
    bool failed;
    if (sem_satisfied(fw, c, &failed)) {
      complete(fw, c);
      return true;
    }
    if (failed) {
      complete_rejected(fw, c);
      return true;
    }
    return false;
  }
  case CP_COPY_PENDING:
    if (!fw->hal.copy_start(fw->hal.ctx, &ch->copy, c)) return false;
    ch->state = CP_COPY_RUNNING;
    return true;
  case CP_LAUNCH_PENDING:
    if (ch->launch.param_bytes &&
        !fw->hal.sysmem_read(fw->hal.ctx, ch->param_addr, fw->params, ch->launch.param_bytes)) {
      error(fw, GPU_ERR_DMA_FAULT, c, GPU_OP_LAUNCH, ch->param_addr, GPU_LAUNCH_PARAM_LO);
      complete_rejected(fw, c);
      return true;
    }
    ch->launch.params = fw->params;
    if (!fw->hal.launch_start(fw->hal.ctx, &ch->launch, c)) return false;
    ch->launch.params = NULL; /* the dispatcher copied them */
    ch->state = CP_LAUNCH_RUNNING;
    return true;
  default: return false;
  }
}

/* Runs every channel until none can make progress, then publishes status registers. */
static void schedule(cpfw *fw) {
  bool fetch_allowed = (rd(fw, GPU_REG_CTRL) & GPU_FIELD_MASK(GPU_CTRL_ENABLE)) != 0;
  bool progress, waiting = false;
  do {
    progress = false;
    for (uint32_t i = 0; i < fw->n_channels; i++) {
      uint32_t c = (fw->rr + i) % fw->n_channels;
      if (step(fw, c, fetch_allowed)) progress = true;
    }
    fw->rr = fw->n_channels ? (fw->rr + 1) % fw->n_channels : 0;
  } while (progress);
  for (uint32_t c = 0; c < fw->n_channels; c++) {
    if (fw->ch[c].state == CP_SEM_WAIT) waiting = true;
    publish_channel(fw, c);
  }
  publish_global(fw);
  if (waiting && !fw->timer_armed) {
    fw->timer_armed = true;
    fw->hal.wake_after(fw->hal.ctx, fw->cfg.sem_poll_cycles);
  }
}

/* ---- events ---------------------------------------------------------------------------------- */

static void channel_enable(cpfw *fw, uint32_t c, bool on, const cpfw_ring *ring) {
  cp_channel *ch = &fw->ch[c];
  if (!on) {
    ch->enabled = false;
    return;
  }
  if (ch->enabled) return;
  ch->base = ring->base;
  ch->size = ring->size;
  ch->put = ring->put;
  if (!is_pow2(ch->size) || ch->size < 4096u || ch->size > (16u << 20) || (ch->base & 0xFF) ||
      ch->put >= ch->size) {
    error(fw, GPU_ERR_RING_CONFIG, c, 0, ch->base, ch->size);
    wr(fw, GPU_CH_REG(c, GPU_REG_CH_CTRL), 0);
    return;
  }
  ch->enabled = true;
  ch->error = false;
  ch->get = ch->put;
  ch->pkt_count = 0;
}

static void doorbell(cpfw *fw, uint32_t c) {
  uint32_t put;
  if (c >= fw->n_channels || !fw->ch[c].enabled) {
    error(fw, GPU_ERR_DOORBELL, CP_NO_CHANNEL, 0, c, 0);
    return;
  }
  put = rd(fw, GPU_CH_REG(c, GPU_REG_CH_PUT));
  if (put >= fw->ch[c].size) {
    error(fw, GPU_ERR_DOORBELL, c, 0, c, put);
    return;
  }
  fw->ch[c].put = put;
}

void cpfw_on_reg_write(cpfw *fw, uint32_t offset, uint32_t value) {
  if (offset == GPU_REG_DOORBELL) {
    doorbell(fw, GPU_FIELD_GET(GPU_DOORBELL_CHANNEL, value));
  } else if (offset >= GPU_CH_BASE && offset < GPU_CH_BASE + fw->n_channels * GPU_CH_STRIDE &&
             (offset - GPU_CH_BASE) % GPU_CH_STRIDE == GPU_REG_CH_CTRL) {
    uint32_t c = (offset - GPU_CH_BASE) / GPU_CH_STRIDE;
    cpfw_ring ring;
    ring.base = rd(fw, GPU_CH_REG(c, GPU_REG_CH_BASE_LO)) |
                ((uint64_t)rd(fw, GPU_CH_REG(c, GPU_REG_CH_BASE_HI)) << 32);
    ring.size = rd(fw, GPU_CH_REG(c, GPU_REG_CH_SIZE));
    ring.put = rd(fw, GPU_CH_REG(c, GPU_REG_CH_PUT));
    cpfw_on_channel_ctrl(fw, c, value, &ring);
    return;
  } else if (offset != GPU_REG_CTRL) {
    return;
  }
  schedule(fw);
}

void cpfw_on_channel_ctrl(cpfw *fw, uint32_t channel, uint32_t value, const cpfw_ring *ring) {
  if (channel >= fw->n_channels) return;
  channel_enable(fw, channel, GPU_FIELD_GET(GPU_CH_CTRL_ENABLE, value) != 0, ring);
  schedule(fw);
}

void cpfw_on_copy_done(cpfw *fw, uint32_t tag, const gpu_copy_result *r) {
  cp_channel *ch;
  if (tag >= fw->n_channels || fw->ch[tag].state != CP_COPY_RUNNING) return;
  ch = &fw->ch[tag];
  if (!r->ok) {
    error(fw, r->fault_aperture == GPU_APERTURE_SYSMEM ? GPU_ERR_DMA_FAULT : GPU_ERR_DEVMEM_FAULT,
          tag, gpu_pkt_opcode(ch->header), r->fault_addr, r->fault_kind);
  }
  complete(fw, tag);
  schedule(fw);
}

void cpfw_on_launch_done(cpfw *fw, uint32_t tag, const gpu_kernel_result *r) {
  cp_channel *ch;
  if (tag >= fw->n_channels || fw->ch[tag].state != CP_LAUNCH_RUNNING) return;
  ch = &fw->ch[tag];
  if (r->status == SIMTVP_ERR_TRAP)
    error(fw, GPU_ERR_KERNEL_TRAP, tag, GPU_OP_LAUNCH, r->pc, ch->launch.grid_id);
  else if (r->status == SIMTVP_ERR_MISALIGNED)
    error(fw, GPU_ERR_KERNEL_MISALIGNED, tag, GPU_OP_LAUNCH, r->fault_addr, ch->launch.grid_id);
  else if (r->status == SIMTVP_ERR_PARSE || r->status == SIMTVP_ERR_UNSUPPORTED)
    /* the SIMT side could not decode the program image (malformed, or beyond this GPU) */
    error(fw, GPU_ERR_LAUNCH_IMAGE, tag, GPU_OP_LAUNCH, ch->launch.image_addr, ch->launch.entry);
  else if (r->status == SIMTVP_ERR_LIMIT || r->status == SIMTVP_ERR_DEADLOCK)
    error(fw, GPU_ERR_KERNEL_STOPPED, tag, GPU_OP_LAUNCH, 0, ch->launch.grid_id);
  else if (r->status != SIMTVP_OK)
    error(fw, GPU_ERR_KERNEL_FAULT, tag, GPU_OP_LAUNCH, r->fault_addr, ch->launch.grid_id);
  complete(fw, tag);
  schedule(fw);
}

void cpfw_on_timer(cpfw *fw) {
  fw->timer_armed = false;
  schedule(fw);
}

bool cpfw_idle(const cpfw *fw) {
  for (uint32_t c = 0; c < fw->n_channels; c++) {
    const cp_channel *ch = &fw->ch[c];
    if (ch->state != CP_IDLE || (ch->enabled && ch->get != ch->put)) return false;
  }
  return true;
}

void cpfw_reset(cpfw *fw) {
  uint32_t v;
  cp_limits *l = &fw->lim;
  memset(fw->ch, 0, sizeof fw->ch);
  fw->rr = 0;
  fw->timer_armed = false;
  fw->n_channels = rd(fw, GPU_REG_N_CHANNELS);
  if (fw->n_channels > GPU_MAX_CHANNELS) fw->n_channels = GPU_MAX_CHANNELS;
  l->max_threads_per_block = rd(fw, GPU_REG_MAX_THREADS_PER_BLOCK);
  v = rd(fw, GPU_REG_MAX_BLOCK_DIM_XY);
  l->max_block[0] = GPU_FIELD_GET(GPU_MAX_BLOCK_DIM_XY_X, v);
  l->max_block[1] = GPU_FIELD_GET(GPU_MAX_BLOCK_DIM_XY_Y, v);
  l->max_block[2] = rd(fw, GPU_REG_MAX_BLOCK_DIM_Z);
  l->max_grid[0] = rd(fw, GPU_REG_MAX_GRID_DIM_X);
  v = rd(fw, GPU_REG_MAX_GRID_DIM_YZ);
  l->max_grid[1] = GPU_FIELD_GET(GPU_MAX_GRID_DIM_YZ_Y, v);
  l->max_grid[2] = GPU_FIELD_GET(GPU_MAX_GRID_DIM_YZ_Z, v);
  l->regs_per_block = rd(fw, GPU_REG_REGS_PER_BLOCK);
  l->smem_per_block_optin = rd(fw, GPU_REG_SMEM_PER_BLOCK_OPTIN);
  l->max_param_bytes = rd(fw, GPU_REG_MAX_PARAM_BYTES);
  l->n_sms = rd(fw, GPU_REG_SM_COUNT);
  l->sm.warp_size = rd(fw, GPU_REG_WARP_SIZE);
  l->sm.max_threads = rd(fw, GPU_REG_MAX_THREADS_PER_SM);
  l->sm.max_warps = rd(fw, GPU_REG_MAX_WARPS_PER_SM);
  l->sm.max_ctas = rd(fw, GPU_REG_MAX_CTAS_PER_SM);
  l->sm.regs = rd(fw, GPU_REG_REGS_PER_SM);
  l->sm.reg_alloc_unit = rd(fw, GPU_REG_REG_ALLOC_UNIT);
  l->sm.smem_bytes = rd(fw, GPU_REG_SMEM_PER_SM);
  l->sm.smem_alloc_unit = rd(fw, GPU_REG_SMEM_ALLOC_UNIT);
  if (l->max_param_bytes > fw->params_cap) {
    uint8_t *p = realloc(fw->params, l->max_param_bytes);
    if (p) {
      fw->params = p;
      fw->params_cap = l->max_param_bytes;
    } else {
      l->max_param_bytes = fw->params_cap;
    }
  }
  for (uint32_t c = 0; c < fw->n_channels; c++) publish_channel(fw, c);
  publish_global(fw);
}

cpfw *cpfw_create(const cp_hal *hal, const cpfw_config *config) {
  cpfw *fw = calloc(1, sizeof *fw);
  if (!fw) return NULL;
  fw->hal = *hal;
  if (config) fw->cfg = *config;
  if (!fw->cfg.sem_poll_cycles) fw->cfg.sem_poll_cycles = 1000;
  cpfw_reset(fw);
  return fw;
}

void cpfw_destroy(cpfw *fw) {
  if (!fw) return;
  free(fw->params);
  free(fw);
}
