/* gpu_launcher — program images and launches of running kernels (see gpu_launcher.h). */
#include "gpu_launcher.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_image.h"

#define IMAGE_CACHE 16

typedef struct cached_image {
  uint64_t addr, load_id;
  gpu_image *img;
  ptx_module *hoisted;      /* the module with loads hoisted (gpu_launcher_set_hoist_loads), or NULL */
  ptx_insn *hoisted_insns;
  func_program *prog;
  void *attachment;
  uint64_t last_use;
  uint32_t users; /* running kernels that use it: never evicted while > 0 */
} cached_image;

/* What a launch translates its global addresses through (devmem_xlate.ctx). */
typedef struct launch_xlate {
  const gpu_mmu_port *mmu;
  uint64_t pdb;
} launch_xlate;

/* The physical address a translation gave has no memory behind it (not an mmu_fault). */
#define XLATE_NO_MEMORY 100u

typedef struct running_kernel {
  uint64_t launch_uid;
  func_launch *launch; /* NULL when the kernel was refused or has ended */
  cached_image *image;
  launch_xlate *xlate; /* with an MMU: the launch's translation context */
} running_kernel;

struct gpu_launcher {
  func_engine *e;
  gpu_mem_port devmem;
  gpu_mmu_port mmu;    /* mmu.translate NULL: none */
  gpu_launcher_attach attach;
  bool hoist_loads;
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
  free(c->hoisted);
  free(c->hoisted_insns);
  memset(c, 0, sizeof *c);
}

/* ---- translation (GPU virtual memory) -------------------------------------------------------- */

static uint8_t *xl_page(void *ctx, uint64_t vpage, bool write, bool *writable, uint32_t *fault) {
  launch_xlate *x = ctx;
  mmu_translation t;
  mmu_fault f = x->mmu->translate(x->mmu->ctx, x->pdb, vpage << MMU_PAGE_BITS,
                                  write ? MMU_ACCESS_WRITE : MMU_ACCESS_READ, &t);
  if (f != MMU_FAULT_NONE) {
    *fault = (uint32_t)f;
    return NULL;
  }
  uint8_t *h = x->mmu->host_page ? x->mmu->host_page(x->mmu->ctx, t.aperture, t.pa) : NULL;
  if (!h) {
    *fault = XLATE_NO_MEMORY;
    return NULL;
  }
  if (x->mmu->translated) x->mmu->translated(x->mmu->ctx, vpage << MMU_PAGE_BITS, t.aperture, t.pa);
  *writable = !(t.entry & MMU_PTE_RO);
  return h;
}

static void xl_describe(void *ctx, uint64_t addr, bool write, char *buf, size_t n) {
  launch_xlate *x = ctx;
  mmu_translation t;
  mmu_access acc = write ? MMU_ACCESS_WRITE : MMU_ACCESS_READ;
  mmu_fault f = x->mmu->translate(x->mmu->ctx, x->pdb, addr, acc, &t);
  char what[300];
  if (f != MMU_FAULT_NONE) {
    snprintf(buf, n, "GPU page fault (%s): %s", mmu_fault_name(f), mmu_describe_fault(&t, addr, acc, what, sizeof what));
  } else {
    snprintf(buf, n, "GPU page fault: 0x%" PRIx64 " translates to %s 0x%" PRIx64 ", where no memory is%s", addr,
             mmu_aperture_name(t.aperture), t.pa,
             t.aperture == MMU_APERTURE_SYSMEM ? " the functional engine can reach" : "");
  }
}

/* Device memory at a virtual address of pdb (the program image), through the MMU. */
typedef struct va_reader {
  const gpu_mmu_port *mmu;
  uint64_t pdb;
} va_reader;

static bool va_read(void *ctx, uint64_t va, void *dst, uint64_t len) {
  va_reader *r = ctx;
  uint8_t *out = dst;
  while (len) {
    uint64_t k = MMU_PAGE_BYTES - (va & (MMU_PAGE_BYTES - 1));
    if (k > len) k = len;
    mmu_translation t;
    if (r->mmu->translate(r->mmu->ctx, r->pdb, va, MMU_ACCESS_READ, &t) != MMU_FAULT_NONE) return false;
    uint8_t *h = r->mmu->host_page ? r->mmu->host_page(r->mmu->ctx, t.aperture, t.pa) : NULL;
    if (!h) return false;
    memcpy(out, h + (t.pa & (MMU_PAGE_BYTES - 1)), k);
    va += k;
    out += k;
    len -= k;
  }
  return true;
}

void gpu_launcher_set_mmu(gpu_launcher *l, const gpu_mmu_port *mmu) {
  if (mmu && mmu->translate) l->mmu = *mmu;
  else memset(&l->mmu, 0, sizeof l->mmu);
}

const gpu_mmu_port *gpu_launcher_mmu(const gpu_launcher *l) { return l->mmu.translate ? &l->mmu : NULL; }

/* ---- images ---------------------------------------------------------------------------------- */

/* The decoded image at addr (loaded once per address and load_id), read through mem. */
static cached_image *image_of(gpu_launcher *l, const gpu_mem_port *mem, uint64_t addr, simtvp_diag *d) {
  gpu_image_header h;
  cached_image *victim = NULL;
  if (!mem->read(mem->ctx, addr, &h, sizeof h)) {
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
  if (gpu_image_load(mem, addr, &img, d) != SIMTVP_OK) return NULL;
  func_placement pl;
  memset(&pl, 0, sizeof pl);
  pl.global_base = img->header.global_base;
  pl.const_base = img->header.const_base;
  pl.code_base = gpu_image_code_base(addr, &img->header);
  const ptx_module *mod = img->module;
  ptx_module *hoisted = NULL;
  ptx_insn *hoisted_insns = NULL;
  if (l->hoist_loads && mod->n_insns) { /* the image's instructions as ptxas would order them */
    hoisted = malloc(sizeof *hoisted);
    hoisted_insns = malloc((size_t)mod->n_insns * sizeof *hoisted_insns);
    if (!hoisted || !hoisted_insns) {
      free(hoisted);
      free(hoisted_insns);
      gpu_image_free(img);
      simtvp_diag_set(d, SIMTVP_ERR_NOMEM, "program image at 0x%llx: out of host memory", (unsigned long long)addr);
      return NULL;
    }
    *hoisted = *mod;
    ptx_hoist_loads(mod, hoisted_insns);
    hoisted->insns = hoisted_insns;
    mod = hoisted;
  }
  func_program *prog;
  if (func_program_load(l->e, mod, &pl, &prog, d) != SIMTVP_OK) {
    free(hoisted);
    free(hoisted_insns);
    gpu_image_free(img);
    return NULL;
  }
  void *att = NULL;
  if (l->attach.build) {
    att = l->attach.build(l->attach.ctx, mod, d);
    if (!att) {
      func_program_destroy(prog);
      free(hoisted);
      free(hoisted_insns);
      gpu_image_free(img);
      return NULL;
    }
  }
  victim->addr = addr;
  victim->load_id = h.load_id;
  victim->img = img;
  victim->hoisted = hoisted;
  victim->hoisted_insns = hoisted_insns;
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
  va_reader reader = {&l->mmu, k->desc.pdb};
  gpu_mem_port vport = {&reader, va_read, NULL};
  devmem_xlate xl;
  memset(&xl, 0, sizeof xl);
  if (l->mmu.translate) {
    if (!rk->xlate && !(rk->xlate = calloc(1, sizeof *rk->xlate))) {
      simtvp_diag_set(d, SIMTVP_ERR_NOMEM, "kernel slot %u: out of host memory", k->slot);
      why->status = SIMTVP_ERR_NOMEM;
      why->fault_addr = k->desc.image_addr;
      why->pc = 0;
      return false;
    }
    rk->xlate->mmu = &l->mmu;
    rk->xlate->pdb = k->desc.pdb;
    xl.ctx = rk->xlate;
    xl.page = xl_page;
    xl.generation = l->mmu.generation;
    xl.describe = xl_describe;
  }
  rk->image = image_of(l, l->mmu.translate ? &vport : &l->devmem, k->desc.image_addr, d);
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
    lp.xlate = l->mmu.translate ? &xl : NULL;
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
  return rk ? (rk->image->hoisted ? rk->image->hoisted : rk->image->img->module) : NULL;
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

void gpu_launcher_set_hoist_loads(gpu_launcher *l, bool on) {
  if (l->hoist_loads == on) return;
  for (int i = 0; i < IMAGE_CACHE; i++) /* images decoded the other way are decoded again */
    if (!l->cache[i].users) drop_image(l, &l->cache[i]);
  l->hoist_loads = on;
}

void gpu_launcher_destroy(gpu_launcher *l) {
  if (!l) return;
  for (uint32_t i = 0; i < l->n_running; i++) {
    if (l->running[i].launch) func_launch_destroy(l->running[i].launch);
    free(l->running[i].xlate);
  }
  for (int i = 0; i < IMAGE_CACHE; i++) drop_image(l, &l->cache[i]);
  free(l->running);
  free(l);
}
