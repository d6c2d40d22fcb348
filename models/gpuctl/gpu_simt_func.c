/* gpu_simt_func — functional SIMT side on models/func (see gpu_simt_func.h). */
#include "gpu_simt_func.h"

#include <stdlib.h>
#include <string.h>

#include "gpu_image.h"

#define IMAGE_CACHE 16

typedef struct cached_image {
  uint64_t addr, load_id;
  gpu_image *img;
  func_program *prog;
  uint64_t last_use;
} cached_image;

typedef struct running_kernel {
  uint64_t launch_uid;
  func_launch *launch; /* NULL when the kernel was refused */
} running_kernel;

struct gpu_simt_func {
  func_engine *e;
  devmem *mem;
  gpu_simt_func_ports ports;
  cached_image cache[IMAGE_CACHE];
  uint64_t uses;
  running_kernel *running; /* by dispatcher slot */
  uint32_t n_running;
  simtvp_diag fault;
};

static bool mem_read(void *ctx, uint64_t a, void *dst, uint64_t n) {
  return devmem_read(((gpu_simt_func *)ctx)->mem, a, dst, n, NULL) == SIMTVP_OK;
}
static bool mem_write(void *ctx, uint64_t a, const void *src, uint64_t n) {
  return devmem_write(((gpu_simt_func *)ctx)->mem, a, src, n, NULL) == SIMTVP_OK;
}

gpu_mem_port gpu_simt_func_devmem_port(gpu_simt_func *s) {
  gpu_mem_port p = {s, mem_read, mem_write};
  return p;
}

static void report(gpu_simt_func *s, const simtvp_diag *d) {
  s->fault = *d;
  simtvp_msg(&s->ports.messages, SIMTVP_ERROR, "%s", d->message);
}

/* The decoded program of the image at addr (loaded once per address and load_id). */
static func_program *program_of(gpu_simt_func *s, uint64_t addr, simtvp_diag *d) {
  gpu_image_header h;
  cached_image *victim = &s->cache[0];
  gpu_mem_port port = gpu_simt_func_devmem_port(s);
  if (!mem_read(s, addr, &h, sizeof h)) {
    simtvp_diag_set(d, SIMTVP_ERR_FAULT, "program image at 0x%llx: device memory not readable",
                    (unsigned long long)addr);
    simtvp_diag_at_address(d, addr);
    return NULL;
  }
  for (int i = 0; i < IMAGE_CACHE; i++) {
    cached_image *c = &s->cache[i];
    if (c->img && c->addr == addr && c->load_id == h.load_id) {
      c->last_use = ++s->uses;
      return c->prog;
    }
    if (!c->img || c->last_use < victim->last_use) victim = c;
  }
  if (victim->img) {
    func_program_destroy(victim->prog);
    gpu_image_free(victim->img);
    victim->img = NULL;
  }
  gpu_image *img;
  if (gpu_image_load(&port, addr, &img, d) != SIMTVP_OK) return NULL;
  func_placement pl;
  memset(&pl, 0, sizeof pl);
  pl.global_base = img->header.global_base;
  pl.const_base = img->header.const_base;
  pl.code_base = gpu_image_code_base(addr, &img->header);
  func_program *prog;
  if (func_program_load(s->e, img->module, &pl, &prog, d) != SIMTVP_OK) {
    gpu_image_free(img);
    return NULL;
  }
  victim->addr = addr;
  victim->load_id = h.load_id;
  victim->img = img;
  victim->prog = prog;
  victim->last_use = ++s->uses;
  return prog;
}

static running_kernel *slot_of(gpu_simt_func *s, uint32_t slot) {
  if (slot >= s->n_running) {
    uint32_t n = slot + 8;
    running_kernel *r = realloc(s->running, n * sizeof *r);
    if (!r) return NULL;
    memset(r + s->n_running, 0, (n - s->n_running) * sizeof *r);
    s->running = r;
    s->n_running = n;
  }
  return &s->running[slot];
}

static bool kernel_begin(void *ctx, const gpu_kernel *k, gpu_kernel_result *why) {
  gpu_simt_func *s = ctx;
  running_kernel *rk = slot_of(s, k->slot);
  simtvp_diag d;
  func_launch_params lp;
  func_program *prog;
  simtvp_diag_clear(&d);
  if (!rk) {
    why->status = SIMTVP_ERR_NOMEM;
    return false;
  }
  rk->launch_uid = k->launch_uid;
  rk->launch = NULL;
  prog = program_of(s, k->desc.image_addr, &d);
  if (prog) {
    memset(&lp, 0, sizeof lp);
    lp.kernel = k->desc.entry;
    memcpy(lp.grid, k->desc.grid, sizeof lp.grid);
    memcpy(lp.block, k->desc.block, sizeof lp.block);
    lp.dynamic_smem = k->desc.smem_dynamic;
    lp.params = k->desc.params;
    lp.param_bytes = k->desc.param_bytes;
    lp.grid_id = k->desc.grid_id;
    if (func_launch_create(s->e, prog, &lp, &rk->launch, &d) == SIMTVP_OK) return true;
  }
  report(s, &d);
  why->status = d.status != SIMTVP_OK ? d.status : SIMTVP_ERR_FAULT;
  why->fault_addr = (d.where & SIMTVP_WHERE_ADDRESS) ? d.address : k->desc.image_addr;
  why->pc = d.pc;
  return false;
}

static void kernel_end(void *ctx, const gpu_kernel *k) {
  gpu_simt_func *s = ctx;
  if (k->slot < s->n_running && s->running[k->slot].launch) {
    func_launch_destroy(s->running[k->slot].launch);
    s->running[k->slot].launch = NULL;
  }
}

/* Runs one CTA to completion; returns its result. */
static gpu_cta_result run_cta(gpu_simt_func *s, func_launch *l, uint32_t sm, const uint32_t cta[3]) {
  gpu_cta_result r = {SIMTVP_OK, 0, 0};
  simtvp_diag d;
  func_cta *c;
  simtvp_diag_clear(&d);
  if (func_cta_start(l, cta, sm, 0, &c, &d) != SIMTVP_OK) {
    report(s, &d);
    r.status = d.status;
    r.fault_addr = d.address;
    return r;
  }
  uint32_t n = func_cta_warp_count(c);
  while (!func_cta_done(c)) {
    bool progress = false;
    for (uint32_t i = 0; i < n && r.status == SIMTVP_OK; i++) {
      func_warp *w = func_cta_warp(c, i);
      while (func_warp_get_state(w) == FUNC_WARP_READY) {
        func_step st;
        simtvp_status ss = func_warp_step(w, &st, &d);
        progress = true;
        if (ss != SIMTVP_OK) {
          report(s, &d);
          r.status = ss;
          r.fault_addr = (d.where & SIMTVP_WHERE_ADDRESS) ? d.address : 0;
          r.pc = d.pc;
          break;
        }
        if (st.kind == FUNC_STEP_BARRIER && st.barrier_complete) func_cta_release_barrier(c, st.barrier_id);
        if (st.kind == FUNC_STEP_BARRIER && st.barrier_wait) break; /* let the other warps arrive */
      }
    }
    if (r.status != SIMTVP_OK) break;
    if (!progress) {
      simtvp_diag_set(&d, SIMTVP_ERR_DEADLOCK,
                      "CTA (%u,%u,%u) on SM %u: every live warp waits at a barrier that cannot complete",
                      cta[0], cta[1], cta[2], sm);
      report(s, &d);
      r.status = SIMTVP_ERR_DEADLOCK;
      break;
    }
  }
  func_cta_finish(c);
  return r;
}

static void launch_cta(void *ctx, const gpu_kernel *k, uint32_t sm, const uint32_t cta[3]) {
  gpu_simt_func *s = ctx;
  gpu_cta_result r = {SIMTVP_ERR_STATE, 0, 0};
  if (k->slot < s->n_running && s->running[k->slot].launch)
    r = run_cta(s, s->running[k->slot].launch, sm, cta);
  s->ports.cta_done.done(s->ports.cta_done.ctx, sm, k->slot, &r);
}

gpu_simt_port gpu_simt_func_port(gpu_simt_func *s) {
  gpu_simt_port p;
  p.ctx = s;
  p.kernel_begin = kernel_begin;
  p.launch_cta = launch_cta;
  p.kernel_end = kernel_end;
  return p;
}

gpu_simt_func *gpu_simt_func_create(const func_config *engine, const func_ports *func_ports, devmem *mem,
                                    stats *st, gpu_simt_func_ports ports, simtvp_diag *diag) {
  gpu_simt_func *s;
  if (!ports.cta_done.done) {
    simtvp_diag_set(diag, SIMTVP_ERR_ARG, "gpu_simt_func: the cta_done port must be connected");
    return NULL;
  }
  s = calloc(1, sizeof *s);
  if (!s) {
    simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "gpu_simt_func: out of host memory");
    return NULL;
  }
  s->mem = mem;
  s->ports = ports;
  s->e = func_create(engine, func_ports, mem, st, diag);
  if (!s->e) {
    free(s);
    return NULL;
  }
  simtvp_diag_clear(&s->fault);
  return s;
}

void gpu_simt_func_destroy(gpu_simt_func *s) {
  if (!s) return;
  for (uint32_t i = 0; i < s->n_running; i++)
    if (s->running[i].launch) func_launch_destroy(s->running[i].launch);
  for (int i = 0; i < IMAGE_CACHE; i++)
    if (s->cache[i].img) {
      func_program_destroy(s->cache[i].prog);
      gpu_image_free(s->cache[i].img);
    }
  free(s->running);
  func_destroy(s->e);
  free(s);
}

const simtvp_diag *gpu_simt_func_last_fault(const gpu_simt_func *s) { return &s->fault; }
