/* drv_module — module loader: PTX → models/ptx (once) → program image, .global and .const
 * segments in device memory; symbol lookup; kernel attributes and parameter layout.
 * (see driver.h, docs/driver.md "Modules"; image format docs/gpu-abi.md "Program image") */
#include <stdlib.h>
#include <string.h>

#include "drv_internal.h"
#include "gpu_hw.h"
#include "gpu_image.h"
#include "ptx.h"

static void destroy_ptx(const ptx_module *m) { ptx_module_destroy((ptx_module *)m); }

simtvp_status drv_module_load_ptx(drv *d, const char *ptx, size_t len, const char *name,
                                  drv_module **out, simtvp_diag *diag) {
  const simtvp_msg_port *warn = d->cfg.messages.emit ? &d->cfg.messages : NULL;
  ptx_module *m = ptx_parse(ptx, len, name ? name : "<ptx>", warn, diag);
  simtvp_status st;
  *out = NULL;
  if (!m) return diag && diag->status != SIMTVP_OK ? diag->status : SIMTVP_ERR_PARSE;
  st = drv_module_load_parsed(d, m, true, out, diag);
  if (st != SIMTVP_OK) ptx_module_destroy(m);
  return st;
}

static uint32_t threads_limit(const drv *d, const ptx_function *f, uint32_t regs) {
  const drv_device_props *p = &d->props;
  uint32_t limit = p->max_threads_per_block, ws = p->warp_size ? p->warp_size : 32;
  uint64_t n;
  if (f->maxntid[0]) {
    n = (uint64_t)f->maxntid[0] * (f->maxntid[1] ? f->maxntid[1] : 1) * (f->maxntid[2] ? f->maxntid[2] : 1);
    if (n < limit) limit = (uint32_t)n;
  }
  if (f->reqntid[0]) {
    n = (uint64_t)f->reqntid[0] * (f->reqntid[1] ? f->reqntid[1] : 1) * (f->reqntid[2] ? f->reqntid[2] : 1);
    if (n < limit) limit = (uint32_t)n;
  }
  if (regs) {
    uint64_t per_warp = gpu_round_up((uint64_t)regs * ws, p->reg_alloc_unit);
    uint64_t warps = per_warp ? p->regs_per_block / per_warp : 0;
    if (warps * ws < limit) limit = (uint32_t)(warps * ws);
  }
  return limit;
}

static void free_functions(drv_module *mod) {
  while (mod->functions) {
    drv_function *f = mod->functions;
    mod->functions = f->next;
    free(f->params);
    free(f);
  }
}

static simtvp_status make_functions(drv *d, drv_module *mod, simtvp_diag *diag) {
  const ptx_module *m = mod->ptx;
  for (uint32_t i = m->n_functions; i-- > 0;) {
    const ptx_function *pf = &m->functions[i];
    drv_function *f;
    uint32_t regs;
    if (!(pf->flags & PTX_FN_ENTRY)) continue;
    f = calloc(1, sizeof *f);
    if (f) f->params = calloc(pf->n_params + 1, sizeof *f->params);
    if (!f || !f->params) {
      free(f);
      return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "module loader: out of host memory");
    }
    f->mod = mod;
    f->index = i;
    regs = pf->res.regs_per_thread;
    if (pf->maxnreg && regs > pf->maxnreg) regs = pf->maxnreg;
    f->attrs.name = pf->name;
    f->attrs.regs_per_thread = regs;
    f->attrs.static_smem_bytes = pf->res.shared_bytes;
    f->attrs.local_bytes = pf->res.local_bytes;
    f->attrs.const_bytes = (uint32_t)m->const_segment_bytes;
    f->attrs.n_params = pf->n_params;
    f->attrs.ptx_version = m->version_major * 10 + m->version_minor;
    f->attrs.target_sm = m->target_sm;
    f->attrs.max_threads_per_block = threads_limit(d, pf, regs);
    f->attrs.param_bytes = pf->res.param_bytes;
    for (uint32_t j = 0; j < pf->n_params; j++) {
      uint32_t idx = pf->first_param + j < m->n_param_list ? m->param_list[pf->first_param + j] : PTX_NONE;
      if (idx >= m->n_symbols) continue;
      f->params[j].offset = (uint32_t)m->symbols[idx].offset;
      f->params[j].bytes = (uint32_t)m->symbols[idx].size;
      if (f->params[j].offset + f->params[j].bytes > f->attrs.param_bytes)
        f->attrs.param_bytes = f->params[j].offset + f->params[j].bytes;
    }
    f->max_dynamic_smem = d->props.smem_per_block > f->attrs.static_smem_bytes
                              ? d->props.smem_per_block - f->attrs.static_smem_bytes : 0;
    f->next = mod->functions;
    mod->functions = f;
  }
  return SIMTVP_OK;
}

/* Segment contents: initialisers, then relocations (addresses of symbols and functions). */
static simtvp_status fill_segments(const drv_module *mod, const gpu_image_header *h, uint8_t *gseg,
                                   uint8_t *cseg, simtvp_diag *diag) {
  const ptx_module *m = mod->ptx;
  for (uint32_t s = 0; s < m->n_symbols; s++) {
    const ptx_symbol *sy = &m->symbols[s];
    uint8_t *seg;
    uint64_t seg_bytes;
    if (sy->function != PTX_NONE || !(sy->flags & PTX_SYM_HAS_INIT)) continue;
    if (sy->space == PTX_SPACE_GLOBAL) seg = gseg, seg_bytes = m->global_segment_bytes;
    else if (sy->space == PTX_SPACE_CONST) seg = cseg, seg_bytes = m->const_segment_bytes;
    else continue;
    if (sy->offset + sy->size > seg_bytes || sy->init_offset + sy->size > m->init_data_size)
      return simtvp_diag_set(diag, SIMTVP_ERR_PARSE, "module %s: initialiser of %s lies outside its segment",
                             m->source_name, sy->name);
    memcpy(seg + sy->offset, m->init_data + sy->init_offset, sy->size);
  }
  for (uint32_t r = 0; r < m->n_relocs; r++) {
    const ptx_reloc *rl = &m->relocs[r];
    const ptx_symbol *sy;
    uint8_t *seg;
    uint64_t seg_bytes, v;
    if (rl->symbol >= m->n_symbols) continue;
    sy = &m->symbols[rl->symbol];
    if (sy->space == PTX_SPACE_GLOBAL) seg = gseg, seg_bytes = m->global_segment_bytes;
    else if (sy->space == PTX_SPACE_CONST) seg = cseg, seg_bytes = m->const_segment_bytes;
    else continue;
    if (rl->is_function) {
      if (rl->target >= m->n_functions) continue;
      v = gpu_image_function_addr(mod->image_addr, h, m, rl->target);
    } else {
      const ptx_symbol *t;
      if (rl->target >= m->n_symbols) continue;
      t = &m->symbols[rl->target];
      /* .global/.const addresses are the same generic or not (models/func's rule). */
      v = t->space == PTX_SPACE_GLOBAL ? mod->global_base + t->offset
          : t->space == PTX_SPACE_CONST ? mod->const_base + t->offset : t->offset;
    }
    v += (uint64_t)rl->addend;
    if (sy->offset + rl->offset + (rl->bytes == 4 ? 4 : 8) > seg_bytes)
      return simtvp_diag_set(diag, SIMTVP_ERR_PARSE, "module %s: relocation in %s lies outside its segment",
                             m->source_name, sy->name);
    memcpy(seg + sy->offset + rl->offset, &v, rl->bytes == 4 ? 4 : 8); /* little-endian host */
  }
  return SIMTVP_OK;
}

static void release_device(drv *d, drv_module *mod) {
  drv_um_forget_module(d, mod);
  if (mod->image_addr) drv_mem_release(d, mod->image_addr, false);
  if (mod->global_block) drv_mem_release(d, mod->global_block, false);
  if (mod->const_base) drv_mem_release(d, mod->const_base, false);
}

/* The driver's own blocks: from memory the program never held, declared internal (code: the
 * program image). */
static simtvp_status alloc_internal(drv *d, uint64_t size, bool code, uint64_t *addr, simtvp_diag *diag) {
  if (!drv_heap_alloc_clean(d->heap, size, addr)) {
    *addr = 0;
    return simtvp_diag_set(diag, SIMTVP_ERR_LIMIT, "module loader: out of device memory for %llu bytes",
                           (unsigned long long)size);
  }
  simtvp_status st = drv_vm_map_alloc(d, *addr, size ? size : DRV_MEM_ALIGN, diag);
  if (st != SIMTVP_OK) {
    drv_heap_free(d->heap, *addr);
    *addr = 0;
    return st;
  }
  drv_memmap_op(d, true, *addr, size, 0, code ? DRV_MEMMAP_CODE : DRV_MEMMAP_INTERNAL);
  return SIMTVP_OK;
}

simtvp_status drv_module_load_parsed(drv *d, const ptx_module *m, bool take_ownership, drv_module **out,
                                     simtvp_diag *diag) {
  drv_module *mod;
  uint8_t *img = NULL, *gseg = NULL, *cseg = NULL;
  gpu_image_header h;
  simtvp_status st;
  *out = NULL;
  if (m->const_segment_bytes > d->props.const_mem_bytes)
    return simtvp_diag_set(diag, SIMTVP_ERR_LIMIT, "module %s: %llu bytes of .const exceed the GPU's %u",
                           m->source_name, (unsigned long long)m->const_segment_bytes, d->props.const_mem_bytes);
  mod = calloc(1, sizeof *mod);
  if (!mod) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "module loader: out of host memory");
  mod->ptx = m;
  mod->image_bytes = gpu_image_size(m);
  /* __managed__ variables lie on whole pages of the segment (models/ptx): the segment starts on a
   * page so they can be migrated page by page */
  bool managed = false;
  for (uint32_t s = 0; s < m->n_symbols && !managed; s++) managed = (m->symbols[s].flags & PTX_SYM_MANAGED) != 0;
  uint64_t gpad = managed ? PTX_MANAGED_PAGE_BYTES - DRV_MEM_ALIGN : 0;
  if (m->global_segment_bytes &&
      (st = alloc_internal(d, m->global_segment_bytes + gpad, false, &mod->global_block, diag)) != SIMTVP_OK)
    goto fail;
  mod->global_base = managed ? (mod->global_block + PTX_MANAGED_PAGE_BYTES - 1) & ~(uint64_t)(PTX_MANAGED_PAGE_BYTES - 1)
                             : mod->global_block;
  if ((m->const_segment_bytes && (st = alloc_internal(d, m->const_segment_bytes, false, &mod->const_base, diag)) != SIMTVP_OK) ||
      (st = alloc_internal(d, mod->image_bytes, true, &mod->image_addr, diag)) != SIMTVP_OK)
    goto fail;
  img = malloc(mod->image_bytes);
  gseg = calloc(1, m->global_segment_bytes ? m->global_segment_bytes : 1);
  cseg = calloc(1, m->const_segment_bytes ? m->const_segment_bytes : 1);
  if (!img || !gseg || !cseg) {
    st = simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "module loader: out of host memory");
    goto fail;
  }
  if ((st = gpu_image_build(m, mod->global_base, mod->const_base, img, mod->image_bytes, diag)) != SIMTVP_OK)
    goto fail;
  /* Unique across driver instances of one simulation too: the GPU timer never runs backwards. */
  {
    uint64_t id = (drv_gpu_time_ns(d) << 12) | (++d->image_loads & 0xFFF);
    gpu_image_set_load_id(img, id ? id : 1);
  }
  memcpy(&h, img, sizeof h);
  if ((st = fill_segments(mod, &h, gseg, cseg, diag)) != SIMTVP_OK) goto fail;
  /* Through the copy engine like any host data; synchronous, so launches see it. */
  if ((st = drv_memcpy(d, NULL, drv_device_ptr(mod->image_addr), drv_host_ptr(img), mod->image_bytes, diag)) ||
      (m->global_segment_bytes &&
       (st = drv_memcpy(d, NULL, drv_device_ptr(mod->global_base), drv_host_ptr(gseg), m->global_segment_bytes, diag))) ||
      (m->const_segment_bytes &&
       (st = drv_memcpy(d, NULL, drv_device_ptr(mod->const_base), drv_host_ptr(cseg), m->const_segment_bytes, diag))) ||
      (st = drv_stream_sync(d, NULL, diag)))
    goto fail;
  if (managed && (st = drv_um_adopt_module(d, mod, diag)) != SIMTVP_OK) goto fail;
  if ((st = make_functions(d, mod, diag)) != SIMTVP_OK) goto fail;
  free(img);
  free(gseg);
  free(cseg);
  mod->owned = take_ownership;
  mod->next = d->modules;
  d->modules = mod;
  *out = mod;
  return SIMTVP_OK;
fail:
  free(img);
  free(gseg);
  free(cseg);
  free_functions(mod);
  release_device(d, mod);
  free(mod);
  return st;
}

simtvp_status drv_module_unload(drv *d, drv_module *mod, simtvp_diag *diag) {
  simtvp_status st;
  drv_module **p;
  for (p = &d->modules; *p && *p != mod; p = &(*p)->next) {
  }
  if (!*p) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "drv_module_unload: unknown module");
  st = drv_sync(d, diag); /* its kernels may be running */
  *p = mod->next;
  release_device(d, mod);
  free_functions(mod);
  if (mod->owned) destroy_ptx(mod->ptx);
  free(mod);
  return st == SIMTVP_ERR_DEADLOCK ? st : SIMTVP_OK;
}

const ptx_module *drv_module_ptx(const drv_module *mod) { return mod->ptx; }

uint64_t drv_module_image_addr(const drv_module *mod) { return mod->image_addr; }

drv_function *drv_module_function(const drv_module *mod, const char *name) {
  for (drv_function *f = mod->functions; f; f = f->next)
    if (!strcmp(f->attrs.name, name)) return f;
  return NULL;
}

simtvp_status drv_module_global(const drv_module *mod, const char *name, uint64_t *dptr, uint64_t *bytes,
                                simtvp_diag *diag) {
  const ptx_module *m = mod->ptx;
  for (uint32_t s = 0; s < m->n_symbols; s++) {
    const ptx_symbol *sy = &m->symbols[s];
    if (sy->function != PTX_NONE || strcmp(sy->name, name)) continue;
    if (sy->space == PTX_SPACE_GLOBAL || sy->space == PTX_SPACE_CONST) {
      if (dptr) *dptr = (sy->space == PTX_SPACE_GLOBAL ? mod->global_base : mod->const_base) + sy->offset;
      if (bytes) *bytes = sy->size;
      return SIMTVP_OK;
    }
  }
  return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "module %s has no .global or .const variable named %s",
                         m->source_name, name);
}

void drv_function_get_attrs(const drv *d, const drv_function *f, drv_function_attrs *attrs) {
  (void)d;
  *attrs = f->attrs;
}

bool drv_function_param(const drv_function *f, uint32_t i, uint32_t *offset, uint32_t *bytes) {
  if (i >= f->attrs.n_params) return false;
  if (offset) *offset = f->params[i].offset;
  if (bytes) *bytes = f->params[i].bytes;
  return true;
}

simtvp_status drv_function_pack_params(const drv_function *f, void *const *args, void *buf, uint32_t buf_bytes,
                                       uint32_t *used, simtvp_diag *diag) {
  if (buf_bytes < f->attrs.param_bytes)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "%s: parameter buffer of %u bytes, %u needed", f->attrs.name,
                           buf_bytes, f->attrs.param_bytes);
  memset(buf, 0, f->attrs.param_bytes);
  for (uint32_t i = 0; i < f->attrs.n_params; i++) {
    if (!args || !args[i])
      return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "%s: argument %u is missing", f->attrs.name, i);
    memcpy((uint8_t *)buf + f->params[i].offset, args[i], f->params[i].bytes);
  }
  if (used) *used = f->attrs.param_bytes;
  return SIMTVP_OK;
}

simtvp_status drv_function_set_max_dynamic_smem(drv *d, drv_function *f, uint32_t bytes, simtvp_diag *diag) {
  if ((uint64_t)bytes + f->attrs.static_smem_bytes > d->props.smem_per_block_optin)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG,
                           "%s: %u bytes of dynamic shared memory plus %u static exceed the GPU's %u per block",
                           f->attrs.name, bytes, f->attrs.static_smem_bytes, d->props.smem_per_block_optin);
  f->max_dynamic_smem = bytes;
  return SIMTVP_OK;
}

bool drv_function_cluster_dims(const drv_function *f, uint32_t dims[3]) {
  const ptx_function *pf = &f->mod->ptx->functions[f->index];
  for (int i = 0; i < 3; i++) dims[i] = pf->reqnctapercluster[i];
  return (pf->flags & PTX_FN_EXPLICIT_CLUSTER) || dims[0] || dims[1] || dims[2];
}
