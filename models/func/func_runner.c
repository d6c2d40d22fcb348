/* func_runner — standalone functional GPU (see func_runner.h). */
#include "func_runner.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Device addresses handed out start here (clear of 0 so null pointers fault, far below the
 * generic windows). */
#define RUNNER_VA_BASE 0x0000000200000000ull
#define RUNNER_ALIGN 256u

typedef struct runner_alloc {
  uint64_t dptr, bytes;   /* what the user sees */
  uint64_t map, map_bytes;
} runner_alloc;

typedef struct runner_module {
  ptx_module *m;
  func_program *p;
  uint64_t global_base, const_base;
} runner_module;

struct func_runner {
  func_runner_config cfg;
  devmem *mem;
  stats *st;
  func_engine *e;
  uint64_t next_va;
  runner_alloc *allocs;
  uint32_t n_allocs, cap_allocs;
  runner_module *mods;
  uint32_t n_mods;
  func_launch_counts last;
  uint64_t launches;
  bool have_kernel_stats;
  uint64_t *gpu_sim_insn; /* GPGPU-Sim's per-kernel thread-instruction count */
};

static void default_print(void *ctx, const char *text, size_t len) {
  func_runner *r = ctx;
  FILE *out = r->cfg.out ? r->cfg.out : stdout;
  fwrite(text, 1, len, out);
  fflush(out);
}

/* Maps a fresh region for `bytes` and returns the address of its end-aligned buffer, declared a
 * live block of the devmem (flags: DEVMEM_BLOCK_*) for the memory checker. */
static simtvp_status place(func_runner *r, uint64_t bytes, runner_alloc *a, uint32_t flags, simtvp_diag *diag) {
  uint64_t rounded = bytes ? (bytes + RUNNER_ALIGN - 1) / RUNNER_ALIGN * RUNNER_ALIGN : RUNNER_ALIGN;
  uint64_t map_bytes = (rounded + DEVMEM_PAGE_BYTES - 1) & ~DEVMEM_PAGE_MASK;
  if (r->next_va + map_bytes + DEVMEM_PAGE_BYTES >= FUNC_WINDOW_LO)
    return simtvp_diag_set(diag, SIMTVP_ERR_LIMIT, "out of device address space");
  simtvp_status st = devmem_map(r->mem, r->next_va, map_bytes, diag);
  if (st != SIMTVP_OK) return st;
  a->map = r->next_va;
  a->map_bytes = map_bytes;
  a->dptr = r->next_va + map_bytes - rounded;
  a->bytes = bytes;
  r->next_va += map_bytes + DEVMEM_PAGE_BYTES; /* guard page */
  return devmem_block_add(r->mem, a->dptr, bytes, 0, flags, diag);
}

func_runner *func_runner_create(const func_runner_config *config, simtvp_diag *diag) {
  func_runner *r = calloc(1, sizeof *r);
  if (!r) {
    simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
    return NULL;
  }
  if (config) r->cfg = *config;
  r->next_va = RUNNER_VA_BASE;
  r->mem = devmem_create();
  r->st = stats_create();
  if (!r->mem || !r->st) {
    func_runner_destroy(r);
    simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
    return NULL;
  }
  func_config ec = r->cfg.engine;
  uint64_t heap = r->cfg.heap_bytes ? r->cfg.heap_bytes : 8ull << 20;
  runner_alloc h = {0};
  if (place(r, heap, &h, DEVMEM_BLOCK_INTERNAL, diag) != SIMTVP_OK) {
    func_runner_destroy(r);
    return NULL;
  }
  ec.heap_base = h.dptr;
  ec.heap_bytes = heap;
  func_ports ports = {0};
  ports.ctx = r->cfg.print ? r->cfg.print_ctx : r;
  ports.print = r->cfg.print ? r->cfg.print : default_print;
  ports.messages = r->cfg.messages;
  ports.debug = r->cfg.debug;
  r->gpu_sim_insn = stats_counter(r->st, "gpu_sim_insn", "insn",
                                  "thread instructions executed (functional runner: every one)");
  r->e = func_create(&ec, &ports, r->mem, r->st, diag);
  if (!r->e) {
    func_runner_destroy(r);
    return NULL;
  }
  return r;
}

void func_runner_destroy(func_runner *r) {
  if (!r) return;
  for (uint32_t i = 0; i < r->n_mods; i++) {
    func_program_destroy(r->mods[i].p);
    ptx_module_destroy(r->mods[i].m);
  }
  free(r->mods);
  func_destroy(r->e);
  stats_destroy(r->st);
  devmem_destroy(r->mem);
  free(r->allocs);
  free(r);
}

static simtvp_status add_module(func_runner *r, ptx_module *m, simtvp_diag *diag) {
  runner_module rm = {m, NULL, 0, 0};
  runner_alloc g = {0}, c = {0};
  simtvp_status st = place(r, m->global_segment_bytes, &g, DEVMEM_BLOCK_INTERNAL, diag);
  if (st == SIMTVP_OK) st = place(r, m->const_segment_bytes, &c, DEVMEM_BLOCK_INTERNAL, diag);
  if (st != SIMTVP_OK) {
    ptx_module_destroy(m);
    return st;
  }
  rm.global_base = g.dptr;
  rm.const_base = c.dptr;
  func_placement pl = {g.dptr, c.dptr, NULL, 0};
  st = func_program_load(r->e, m, &pl, &rm.p, diag);
  if (st == SIMTVP_OK) st = func_program_write_segments(rm.p, diag);
  if (st != SIMTVP_OK) {
    func_program_destroy(rm.p);
    ptx_module_destroy(m);
    return st;
  }
  runner_module *n = realloc(r->mods, (r->n_mods + 1) * sizeof *n);
  if (!n) {
    func_program_destroy(rm.p);
    ptx_module_destroy(m);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  }
  r->mods = n;
  r->mods[r->n_mods++] = rm;
  return SIMTVP_OK;
}

simtvp_status func_runner_load_ptx(func_runner *r, const char *text, size_t len, const char *name,
                                   simtvp_diag *diag) {
  ptx_module *m = ptx_parse(text, len, name ? name : "<ptx>", &r->cfg.messages, diag);
  if (!m) return diag && diag->status != SIMTVP_OK ? diag->status : SIMTVP_ERR_PARSE;
  return add_module(r, m, diag);
}

simtvp_status func_runner_load_ptx_file(func_runner *r, const char *path, simtvp_diag *diag) {
  ptx_module *m = ptx_parse_file(path, &r->cfg.messages, diag);
  if (!m) return diag && diag->status != SIMTVP_OK ? diag->status : SIMTVP_ERR_PARSE;
  return add_module(r, m, diag);
}

simtvp_status func_runner_alloc(func_runner *r, uint64_t bytes, uint64_t *dptr, simtvp_diag *diag) {
  runner_alloc a;
  simtvp_status st = place(r, bytes, &a, 0, diag);
  if (st != SIMTVP_OK) return st;
  if (r->n_allocs == r->cap_allocs) {
    uint32_t cap = r->cap_allocs ? r->cap_allocs * 2 : 16;
    runner_alloc *n = realloc(r->allocs, cap * sizeof *n);
    if (!n) {
      devmem_unmap(r->mem, a.map, a.map_bytes);
      return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
    }
    r->allocs = n;
    r->cap_allocs = cap;
  }
  r->allocs[r->n_allocs++] = a;
  *dptr = a.dptr;
  return SIMTVP_OK;
}

simtvp_status func_runner_free(func_runner *r, uint64_t dptr, simtvp_diag *diag) {
  if (!dptr) return SIMTVP_OK;
  for (uint32_t i = 0; i < r->n_allocs; i++)
    if (r->allocs[i].dptr == dptr) {
      devmem_block_remove(r->mem, dptr, false);
      devmem_unmap(r->mem, r->allocs[i].map, r->allocs[i].map_bytes);
      r->allocs[i] = r->allocs[--r->n_allocs];
      return SIMTVP_OK;
    }
  return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "free of 0x%" PRIx64 ", which is not an allocation", dptr);
}

simtvp_status func_runner_write(func_runner *r, uint64_t dptr, const void *src, uint64_t bytes,
                                simtvp_diag *diag) {
  return devmem_write(r->mem, dptr, src, bytes, diag);
}

simtvp_status func_runner_read(func_runner *r, uint64_t dptr, void *dst, uint64_t bytes, simtvp_diag *diag) {
  return devmem_read(r->mem, dptr, dst, bytes, diag);
}

simtvp_status func_runner_memset(func_runner *r, uint64_t dptr, uint8_t value, uint64_t bytes,
                                 simtvp_diag *diag) {
  return devmem_fill(r->mem, dptr, value, bytes, diag);
}

bool func_runner_symbol(func_runner *r, const char *name, uint64_t *dptr, uint64_t *bytes) {
  for (uint32_t i = 0; i < r->n_mods; i++) {
    const ptx_module *m = r->mods[i].m;
    uint32_t s = ptx_find_symbol(m, name);
    if (s == PTX_NONE || m->symbols[s].function != PTX_NONE) continue;
    if (m->symbols[s].space != PTX_SPACE_GLOBAL && m->symbols[s].space != PTX_SPACE_CONST) continue;
    if (dptr) *dptr = func_program_symbol_addr(r->mods[i].p, s);
    if (bytes) *bytes = m->symbols[s].size;
    return true;
  }
  return false;
}

static bool find_kernel(func_runner *r, const char *name, runner_module **mod, uint32_t *k) {
  for (uint32_t i = 0; i < r->n_mods; i++) {
    uint32_t f = func_program_kernel(r->mods[i].p, name);
    if (f != PTX_NONE) {
      *mod = &r->mods[i];
      *k = f;
      return true;
    }
  }
  return false;
}

uint32_t func_runner_param_count(func_runner *r, const char *name) {
  runner_module *mod;
  uint32_t k;
  if (!find_kernel(r, name, &mod, &k)) return 0;
  return mod->m->functions[k].n_params;
}

uint32_t func_runner_param_size(func_runner *r, const char *name, uint32_t i) {
  runner_module *mod;
  uint32_t k, bytes = 0;
  if (!find_kernel(r, name, &mod, &k)) return 0;
  return func_program_param(mod->p, k, i, NULL, &bytes) ? bytes : 0;
}

simtvp_status func_runner_launch(func_runner *r, const char *name, const uint32_t grid[3],
                                 const uint32_t block[3], uint32_t dynamic_smem,
                                 const void *const *args, simtvp_diag *diag) {
  static const uint32_t none[3] = {0, 0, 0};
  return func_runner_launch_cluster(r, name, grid, block, none, dynamic_smem, args, diag);
}

simtvp_status func_runner_launch_cluster(func_runner *r, const char *name, const uint32_t grid[3],
                                         const uint32_t block[3], const uint32_t cluster[3],
                                         uint32_t dynamic_smem, const void *const *args, simtvp_diag *diag) {
  runner_module *mod;
  uint32_t k;
  if (!find_kernel(r, name, &mod, &k))
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "no kernel named %s in the loaded modules", name);
  const ptx_function *pf = &mod->m->functions[k];
  uint32_t pbytes = func_program_param_bytes(mod->p, k);
  uint8_t *buf = calloc(1, pbytes ? pbytes : 1);
  if (!buf) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  for (uint32_t i = 0; i < pf->n_params; i++) {
    uint32_t off, n;
    func_program_param(mod->p, k, i, &off, &n);
    if (!args || !args[i]) {
      free(buf);
      return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "launch of %s: parameter %u has no value", name, i);
    }
    memcpy(buf + off, args[i], n);
  }
  /* grid id and launch number: one increment, before the initialiser (whose expressions are
   * evaluated in no fixed order) */
  const uint64_t uid = ++r->launches;
  func_launch_params lp = {k, {grid[0], grid[1], grid[2]}, {block[0], block[1], block[2]},
                           dynamic_smem, buf, pbytes, uid, {cluster[0], cluster[1], cluster[2]}, uid, NULL};
  func_launch *l;
  simtvp_status st = func_launch_create(r->e, mod->p, &lp, &l, diag);
  free(buf);
  if (st != SIMTVP_OK) return st;
  stats_kernel_begin(r->st, name, r->launches);
  st = r->cfg.run_launch ? r->cfg.run_launch(r->cfg.run_ctx, l, diag) : func_launch_run(l, diag);
  func_launch_get_counts(l, &r->last);
  func_launch_destroy(l);
  *r->gpu_sim_insn += r->last.thread_insns;
  stats_kernel_end(r->st);
  r->have_kernel_stats = true;
  return st;
}

void func_runner_last_counts(const func_runner *r, func_launch_counts *out) { *out = r->last; }

void func_runner_print_stats(const func_runner *r, FILE *out) {
  if (r->have_kernel_stats) stats_print_kernel(r->st, out);
  stats_print_totals(r->st, out);
}

stats *func_runner_stats(func_runner *r) { return r->st; }
devmem *func_runner_devmem(func_runner *r) { return r->mem; }
func_engine *func_runner_engine(func_runner *r) { return r->e; }
