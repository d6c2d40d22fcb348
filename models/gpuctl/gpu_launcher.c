/* gpu_launcher — program images and launches of running kernels (see gpu_launcher.h). */
#include "gpu_launcher.h"

#include <stdlib.h>
#include <string.h>

#include "gpu_image.h"

#define IMAGE_CACHE 16

typedef struct cached_image {
  uint64_t addr, load_id;
  gpu_image *img;
  func_program *prog;
  void *attachment;
  uint64_t last_use;
  uint32_t users; /* running kernels that use it: never evicted while > 0 */
} cached_image;

typedef struct running_kernel {
  uint64_t launch_uid;
  func_launch *launch; /* NULL when the kernel was refused or has ended */
  cached_image *image;
} running_kernel;

struct gpu_launcher {
  func_engine *e;
  gpu_mem_port devmem;
  gpu_launcher_attach attach;
  cached_image cache[IMAGE_CACHE];
  uint64_t uses;
  running_kernel *running; /* by dispatcher slot */
  uint32_t n_running;
};

static void drop_image(gpu_launcher *l, cached_image *c) {
  if (!c->img) return;
  if (c->attachment && l->attach.free) l->attach.free(l->attach.ctx, c->attachment);
  func_program_destroy(c->prog);
  gpu_image_free(c->img);
  memset(c, 0, sizeof *c);
}

/* The decoded image at addr (loaded once per address and load_id). */
static cached_image *image_of(gpu_launcher *l, uint64_t addr, simtvp_diag *d) {
  gpu_image_header h;
  cached_image *victim = NULL;
  if (!l->devmem.read(l->devmem.ctx, addr, &h, sizeof h)) {
    simtvp_diag_set(d, SIMTVP_ERR_FAULT, "program image at 0x%llx: device memory not readable",
                    (unsigned long long)addr);
    simtvp_diag_at_address(d, addr);
    return NULL;
  }
  for (int i = 0; i < IMAGE_CACHE; i++) {
    cached_image *c = &l->cache[i];
    if (c->img && c->addr == addr && c->load_id == h.load_id) {
      c->last_use = ++l->uses;
      return c;
    }
    if (c->users) continue;
    if (!victim || !c->img || (victim->img && c->last_use < victim->last_use)) victim = c;
  }
  if (!victim) {
    simtvp_diag_set(d, SIMTVP_ERR_STATE,
                    "program image at 0x%llx: %d other images are in use by running kernels",
                    (unsigned long long)addr, IMAGE_CACHE);
    simtvp_diag_at_address(d, addr);
    return NULL;
  }
  drop_image(l, victim);
  gpu_image *img;
  if (gpu_image_load(&l->devmem, addr, &img, d) != SIMTVP_OK) return NULL;
  func_placement pl;
  memset(&pl, 0, sizeof pl);
  pl.global_base = img->header.global_base;
  pl.const_base = img->header.const_base;
  pl.code_base = gpu_image_code_base(addr, &img->header);
  func_program *prog;
  if (func_program_load(l->e, img->module, &pl, &prog, d) != SIMTVP_OK) {
    gpu_image_free(img);
    return NULL;
  }
  void *att = NULL;
  if (l->attach.build) {
    att = l->attach.build(l->attach.ctx, img->module, d);
    if (!att) {
      func_program_destroy(prog);
      gpu_image_free(img);
      return NULL;
    }
  }
  victim->addr = addr;
  victim->load_id = h.load_id;
  victim->img = img;
  victim->prog = prog;
  victim->attachment = att;
  victim->users = 0;
  victim->last_use = ++l->uses;
  return victim;
}

static running_kernel *slot_of(gpu_launcher *l, uint32_t slot) {
  if (slot >= l->n_running) {
    uint32_t n = slot + 8;
    running_kernel *r = realloc(l->running, n * sizeof *r);
    if (!r) return NULL;
    memset(r + l->n_running, 0, (n - l->n_running) * sizeof *r);
    l->running = r;
    l->n_running = n;
  }
  return &l->running[slot];
}

static const running_kernel *find(const gpu_launcher *l, uint32_t slot) {
  if (slot >= l->n_running || !l->running[slot].launch) return NULL;
  return &l->running[slot];
}

bool gpu_launcher_begin(gpu_launcher *l, const gpu_kernel *k, gpu_kernel_result *why,
                        simtvp_diag *d) {
  running_kernel *rk = slot_of(l, k->slot);
  simtvp_diag_clear(d);
  if (!rk) {
    simtvp_diag_set(d, SIMTVP_ERR_NOMEM, "kernel slot %u: out of host memory", k->slot);
    why->status = SIMTVP_ERR_NOMEM;
    why->fault_addr = k->desc.image_addr;
    why->pc = 0;
    return false;
  }
  if (rk->launch) gpu_launcher_end(l, k); /* a slot is reused only after kernel_end */
  rk->launch_uid = k->launch_uid;
  rk->launch = NULL;
  rk->image = image_of(l, k->desc.image_addr, d);
  if (rk->image) {
    func_launch_params lp;
    memset(&lp, 0, sizeof lp);
    lp.kernel = k->desc.entry;
    memcpy(lp.grid, k->desc.grid, sizeof lp.grid);
    memcpy(lp.block, k->desc.block, sizeof lp.block);
    lp.dynamic_smem = k->desc.smem_dynamic;
    lp.params = k->desc.params;
    lp.param_bytes = k->desc.param_bytes;
    lp.grid_id = k->desc.grid_id;
    memcpy(lp.cluster, k->desc.cluster, sizeof lp.cluster);
    lp.launch_uid = k->launch_uid;
    if (func_launch_create(l->e, rk->image->prog, &lp, &rk->launch, d) == SIMTVP_OK) {
      rk->image->users++;
      return true;
    }
    rk->launch = NULL;
  }
  rk->image = NULL;
  why->status = d->status != SIMTVP_OK ? d->status : SIMTVP_ERR_FAULT;
  why->fault_addr = (d->where & SIMTVP_WHERE_ADDRESS) ? d->address : k->desc.image_addr;
  why->pc = d->pc;
  return false;
}

void gpu_launcher_end(gpu_launcher *l, const gpu_kernel *k) {
  if (k->slot >= l->n_running) return;
  running_kernel *rk = &l->running[k->slot];
  if (rk->launch) func_launch_destroy(rk->launch);
  if (rk->launch && rk->image && rk->image->users) rk->image->users--;
  rk->launch = NULL;
  rk->image = NULL;
}

func_launch *gpu_launcher_launch(const gpu_launcher *l, uint32_t slot) {
  const running_kernel *rk = find(l, slot);
  return rk ? rk->launch : NULL;
}

const func_program *gpu_launcher_program(const gpu_launcher *l, uint32_t slot) {
  const running_kernel *rk = find(l, slot);
  return rk ? rk->image->prog : NULL;
}

const ptx_module *gpu_launcher_module(const gpu_launcher *l, uint32_t slot) {
  const running_kernel *rk = find(l, slot);
  return rk ? rk->image->img->module : NULL;
}

void *gpu_launcher_attachment(const gpu_launcher *l, uint32_t slot) {
  const running_kernel *rk = find(l, slot);
  return rk ? rk->image->attachment : NULL;
}

gpu_launcher *gpu_launcher_create(func_engine *engine, gpu_mem_port devmem,
                                  const gpu_launcher_attach *attach, simtvp_diag *diag) {
  if (!engine || !devmem.read) {
    simtvp_diag_set(diag, SIMTVP_ERR_ARG, "gpu_launcher: an engine and a readable device memory are needed");
    return NULL;
  }
  gpu_launcher *l = calloc(1, sizeof *l);
  if (!l) {
    simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "gpu_launcher: out of host memory");
    return NULL;
  }
  l->e = engine;
  l->devmem = devmem;
  if (attach) l->attach = *attach;
  return l;
}

void gpu_launcher_destroy(gpu_launcher *l) {
  if (!l) return;
  for (uint32_t i = 0; i < l->n_running; i++)
    if (l->running[i].launch) func_launch_destroy(l->running[i].launch);
  for (int i = 0; i < IMAGE_CACHE; i++) drop_image(l, &l->cache[i]);
  free(l->running);
  free(l);
}
