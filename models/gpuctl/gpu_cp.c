/* gpu_cp — command processor core running firmware/cp (see gpu_cp.h). */
#include "gpu_cp.h"

#include <stdlib.h>
#include <string.h>

#include "cp_fw.h"

typedef enum cp_ev_kind { EV_REG, EV_COPY, EV_LAUNCH } cp_ev_kind;

typedef struct cp_event {
  uint64_t at;
  uint8_t kind;
  uint32_t a, b; /* REG: offset, value; COPY/LAUNCH: tag */
  union {
    gpu_copy_result copy;
    gpu_kernel_result kernel;
    cpfw_ring ring; /* REG on a CH_CTRL: the channel's ring registers at the write */
  } r;
} cp_event;

struct gpu_cp {
  gpu_cp_config cfg;
  gpu_cp_ports ports;
  cpfw *fw;
  cp_event *q;            /* ring of pending events, ordered by time */
  uint32_t q_head, q_len, q_cap;
  uint64_t busy_until;
  uint64_t cur;           /* firmware's clock while it runs: event time + cost so far */
  uint64_t timer_at;      /* UINT64_MAX when not armed */
  gpu_trace_port trace;   /* timeline (optional) */
  gpu_cp_counters local;
  struct { uint64_t *events, *dma_accesses, *busy_cycles; } ctr;
};

/* ---- HAL over the ports ---------------------------------------------------------------------- */

static uint32_t hal_reg_read(void *ctx, uint32_t off) {
  gpu_cp *cp = ctx;
  return cp->ports.regs.read(cp->ports.regs.ctx, off);
}
static void hal_reg_write(void *ctx, uint32_t off, uint32_t v) {
  gpu_cp *cp = ctx;
  cp->ports.regs.write(cp->ports.regs.ctx, off, v);
}
static bool hal_sysmem_read(void *ctx, uint64_t addr, void *dst, uint32_t len) {
  gpu_cp *cp = ctx;
  cp->cur += cp->cfg.dma_cycles;
  ++*cp->ctr.dma_accesses;
  return cp->ports.sysmem.read(cp->ports.sysmem.ctx, addr, dst, len);
}
static bool hal_sysmem_write(void *ctx, uint64_t addr, const void *src, uint32_t len) {
  gpu_cp *cp = ctx;
  cp->cur += cp->cfg.dma_cycles;
  ++*cp->ctr.dma_accesses;
  return cp->ports.sysmem.write(cp->ports.sysmem.ctx, addr, src, len);
}
static bool hal_devmem_read(void *ctx, uint64_t pdb, uint64_t addr, void *dst, uint32_t len, uint32_t *fault) {
  gpu_cp *cp = ctx;
  cp->cur += cp->cfg.dma_cycles;
  if (cp->ports.vmem.read) return cp->ports.vmem.read(cp->ports.vmem.ctx, pdb, addr, dst, len, fault);
  if (fault) *fault = 0;
  return cp->ports.devmem.read(cp->ports.devmem.ctx, addr, dst, len);
}
static bool hal_copy_start(void *ctx, const gpu_copy_op *op, uint32_t tag) {
  gpu_cp *cp = ctx;
  return cp->ports.engines.copy_start(cp->ports.engines.ctx, op, tag, cp->cur);
}
static bool hal_launch_start(void *ctx, const gpu_launch_desc *d, uint32_t tag) {
  gpu_cp *cp = ctx;
  return cp->ports.engines.launch_start(cp->ports.engines.ctx, d, tag, cp->cur);
}
static void hal_raise(void *ctx, uint32_t bits) {
  gpu_cp *cp = ctx;
  cp->ports.regs.raise(cp->ports.regs.ctx, bits);
}
static void hal_error(void *ctx, gpu_err code, uint32_t ch, uint32_t op, uint64_t addr, uint32_t info) {
  gpu_cp *cp = ctx;
  cp->ports.regs.error(cp->ports.regs.ctx, code, ch, op, addr, info);
}
static void hal_wake_after(void *ctx, uint32_t cycles) {
  gpu_cp *cp = ctx;
  cp->timer_at = cp->cur + (cycles ? cycles : 1);
}
static bool hal_map_sysmem(void *ctx, uint64_t va, uint64_t bus, uint64_t bytes, bool unmap) {
  gpu_cp *cp = ctx;
  const gpu_sysmap_port *p = &cp->ports.sysmap;
  if (unmap) {
    if (p->unmap) p->unmap(p->ctx, va, bytes);
    return true;
  }
  return p->map && p->map(p->ctx, va, bus, bytes);
}
static void hal_packet(void *ctx, uint32_t channel, uint32_t opcode) {
  gpu_cp *cp = ctx;
  if (!cp->trace.event) return;
  gpu_trace_event e;
  memset(&e, 0, sizeof e);
  e.kind = GPU_TRACE_PACKET;
  e.channel = channel;
  e.opcode = opcode;
  e.begin = e.end = cp->cur;
  cp->trace.event(cp->trace.ctx, &e);
}

/* ---- event queue --------------------------------------------------------------------------- */

static void push(gpu_cp *cp, const cp_event *e) {
  if (cp->q_len == cp->q_cap) {
    uint32_t cap = cp->q_cap ? cp->q_cap * 2 : 64;
    cp_event *q = malloc(cap * sizeof *q);
    if (!q) return; /* out of host memory: the event is lost (cannot happen in practice) */
    for (uint32_t i = 0; i < cp->q_len; i++) q[i] = cp->q[(cp->q_head + i) % cp->q_cap];
    free(cp->q);
    cp->q = q;
    cp->q_cap = cap;
    cp->q_head = 0;
  }
  /* Insert keeping time order (events nearly always arrive in order: walk from the back). */
  uint32_t i = cp->q_len;
  while (i > 0 && cp->q[(cp->q_head + i - 1) % cp->q_cap].at > e->at) {
    cp->q[(cp->q_head + i) % cp->q_cap] = cp->q[(cp->q_head + i - 1) % cp->q_cap];
    i--;
  }
  cp->q[(cp->q_head + i) % cp->q_cap] = *e;
  cp->q_len++;
}

static bool is_ch_ctrl(uint32_t offset) {
  return offset >= GPU_CH_BASE && offset < GPU_CH_BASE + GPU_MAX_CHANNELS * GPU_CH_STRIDE &&
         (offset - GPU_CH_BASE) % GPU_CH_STRIDE == GPU_REG_CH_CTRL;
}

static uint32_t reg(gpu_cp *cp, uint32_t offset) { return cp->ports.regs.read(cp->ports.regs.ctx, offset); }

void gpu_cp_reg_written(gpu_cp *cp, uint32_t offset, uint32_t value, uint64_t now) {
  cp_event e;
  memset(&e, 0, sizeof e);
  e.at = now;
  e.kind = EV_REG;
  e.a = offset;
  e.b = value;
  if (is_ch_ctrl(offset)) {
    /* The host interface latches the ring registers with the CH_CTRL write: the firmware handles
     * the event later (after the events queued before it), and the host may have moved PUT by
     * then (cp_fw.h, cpfw_on_channel_ctrl). */
    uint32_t c = (offset - GPU_CH_BASE) / GPU_CH_STRIDE;
    e.r.ring.base = reg(cp, GPU_CH_REG(c, GPU_REG_CH_BASE_LO)) |
                    ((uint64_t)reg(cp, GPU_CH_REG(c, GPU_REG_CH_BASE_HI)) << 32);
    e.r.ring.size = reg(cp, GPU_CH_REG(c, GPU_REG_CH_SIZE));
    e.r.ring.put = reg(cp, GPU_CH_REG(c, GPU_REG_CH_PUT));
  }
  push(cp, &e);
}

void gpu_cp_copy_done(gpu_cp *cp, uint32_t tag, const gpu_copy_result *r, uint64_t now) {
  cp_event e;
  memset(&e, 0, sizeof e);
  e.at = now;
  e.kind = EV_COPY;
  e.a = tag;
  e.r.copy = *r;
  push(cp, &e);
}

void gpu_cp_launch_done(gpu_cp *cp, uint32_t tag, const gpu_kernel_result *r, uint64_t now) {
  cp_event e;
  memset(&e, 0, sizeof e);
  e.at = now;
  e.kind = EV_LAUNCH;
  e.a = tag;
  e.r.kernel = *r;
  push(cp, &e);
}

/* ---- time ------------------------------------------------------------------------------------ */

static uint64_t next_time(const gpu_cp *cp) {
  uint64_t t = cp->timer_at;
  if (cp->q_len && cp->q[cp->q_head].at < t) t = cp->q[cp->q_head].at;
  if (t != UINT64_MAX && t < cp->busy_until) t = cp->busy_until;
  return t;
}

void gpu_cp_advance(gpu_cp *cp, uint64_t now) {
  for (;;) {
    uint64_t t = next_time(cp);
    if (t == UINT64_MAX || t > now) return;
    cp->cur = t;
    uint64_t start = t;
    cp->cur += cp->cfg.event_cycles;
    ++*cp->ctr.events;
    uint8_t what;
    uint32_t reg = 0;
    if (cp->q_len && cp->q[cp->q_head].at <= t &&
        (cp->timer_at == UINT64_MAX || cp->q[cp->q_head].at <= cp->timer_at)) {
      cp_event e = cp->q[cp->q_head];
      cp->q_head = (cp->q_head + 1) % cp->q_cap;
      cp->q_len--;
      switch (e.kind) {
      case EV_REG:
        what = GPU_TRACE_CP_REG_WRITE;
        reg = e.a;
        if (is_ch_ctrl(e.a))
          cpfw_on_channel_ctrl(cp->fw, (e.a - GPU_CH_BASE) / GPU_CH_STRIDE, e.b, &e.r.ring);
        else
          cpfw_on_reg_write(cp->fw, e.a, e.b);
        break;
      case EV_COPY:
        what = GPU_TRACE_CP_COPY_DONE;
        cpfw_on_copy_done(cp->fw, e.a, &e.r.copy);
        break;
      default:
        what = GPU_TRACE_CP_LAUNCH_DONE;
        cpfw_on_launch_done(cp->fw, e.a, &e.r.kernel);
        break;
      }
    } else {
      what = GPU_TRACE_CP_TIMER;
      cp->timer_at = UINT64_MAX;
      cpfw_on_timer(cp->fw);
    }
    cp->busy_until = cp->cur;
    *cp->ctr.busy_cycles += cp->cur - start;
    if (cp->trace.event) {
      gpu_trace_event te;
      memset(&te, 0, sizeof te);
      te.kind = GPU_TRACE_CP_WORK;
      te.what = what;
      te.opcode = reg;
      te.begin = start;
      te.end = cp->cur;
      cp->trace.event(cp->trace.ctx, &te);
    }
  }
}

uint64_t gpu_cp_next_event(const gpu_cp *cp) { return next_time(cp); }

void gpu_cp_set_trace(gpu_cp *cp, gpu_trace_port port) { cp->trace = port; }

bool gpu_cp_idle(const gpu_cp *cp) { return cp->q_len == 0 && cpfw_idle(cp->fw); }

gpu_cp_counters gpu_cp_get_counters(const gpu_cp *cp) {
  gpu_cp_counters c = {*cp->ctr.events, *cp->ctr.dma_accesses, *cp->ctr.busy_cycles};
  return c;
}

void gpu_cp_register_stats(gpu_cp *cp, stats *st) {
  if (!st) return;
  cp->ctr.events = stats_counter(st, "cp.events", "events", "events handled by the command-processor firmware");
  cp->ctr.dma_accesses = stats_counter(st, "cp.dma_accesses", "accesses", "firmware DMA accesses (ring, parameters, semaphores)");
  cp->ctr.busy_cycles = stats_counter(st, "cp.busy_cycles", "cycles", "cycles the command processor spent in firmware");
}

gpu_cp *gpu_cp_create(const gpu_cp_config *config, gpu_cp_ports ports) {
  gpu_cp *cp = calloc(1, sizeof *cp);
  cp_hal hal;
  cpfw_config fc;
  if (!cp) return NULL;
  cp->cfg = *config;
  cp->ports = ports;
  cp->timer_at = UINT64_MAX;
  cp->ctr.events = &cp->local.events;
  cp->ctr.dma_accesses = &cp->local.dma_accesses;
  cp->ctr.busy_cycles = &cp->local.busy_cycles;
  hal.ctx = cp;
  hal.reg_read = hal_reg_read;
  hal.reg_write = hal_reg_write;
  hal.sysmem_read = hal_sysmem_read;
  hal.sysmem_write = hal_sysmem_write;
  hal.devmem_read = hal_devmem_read;
  hal.copy_start = hal_copy_start;
  hal.launch_start = hal_launch_start;
  hal.raise_intr = hal_raise;
  hal.report_error = hal_error;
  hal.wake_after = hal_wake_after;
  hal.map_sysmem = hal_map_sysmem;
  hal.packet = hal_packet;
  fc.sem_poll_cycles = config->sem_poll_cycles;
  cp->fw = cpfw_create(&hal, &fc);
  if (!cp->fw) {
    free(cp);
    return NULL;
  }
  return cp;
}

void gpu_cp_destroy(gpu_cp *cp) {
  if (!cp) return;
  cpfw_destroy(cp->fw);
  free(cp->q);
  free(cp);
}

void gpu_cp_reset(gpu_cp *cp) {
  cp->q_len = 0;
  cp->q_head = 0;
  cp->busy_until = 0;
  cp->timer_at = UINT64_MAX;
  cpfw_reset(cp->fw);
}
