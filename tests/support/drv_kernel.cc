// drv_kernel — see drv_kernel.h.
#include "drv_kernel.h"

#include "test_files.h"

namespace test_support {

simtvp_status launch(drv *d, drv_function *f, dims grid, dims block, const std::vector<void *> &args,
                     simtvp_diag *diag, uint32_t smem, drv_stream *stream) {
  drv_function_attrs attrs;
  drv_function_get_attrs(d, f, &attrs);
  std::vector<uint8_t> params(attrs.param_bytes ? attrs.param_bytes : 1);
  uint32_t used = 0;
  simtvp_status st = drv_function_pack_params(f, args.data(), params.data(), static_cast<uint32_t>(params.size()),
                                              &used, diag);
  if (st != SIMTVP_OK) return st;
  return drv_launch(d, stream, f, grid.v, block.v, smem, params.data(), used, diag);
}

simtvp_status load_and_launch(drv *d, const std::string &ptx, const char *name, const char *kernel, dims grid,
                              dims block, const std::vector<void *> &args, simtvp_diag *diag, uint32_t smem,
                              drv_module **mod) {
  drv_module *m = nullptr;
  simtvp_status st = drv_module_load_ptx(d, ptx.data(), ptx.size(), name, &m, diag);
  if (st != SIMTVP_OK) return st;
  if (mod) *mod = m;
  drv_function *f = drv_module_function(m, kernel);
  if (!f) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "%s: no kernel %s", name, kernel);
  return launch(d, f, grid, block, args, diag, smem);
}

kernel_run run_kernel(drv *d, const std::string &ptx, const char *name, const char *kernel, dims grid, dims block,
                      const std::vector<void *> &args, uint32_t smem) {
  kernel_run r;
  simtvp_diag_clear(&r.diag);
  r.load = drv_module_load_ptx(d, ptx.data(), ptx.size(), name, &r.mod, &r.diag);
  if (r.load != SIMTVP_OK) return r;
  drv_function *f = drv_module_function(r.mod, kernel);
  r.launch = f ? launch(d, f, grid, block, args, &r.diag, smem)
               : simtvp_diag_set(&r.diag, SIMTVP_ERR_ARG, "%s: no kernel %s", name, kernel);
  if (r.launch != SIMTVP_OK) return r;
  r.sync = drv_sync(d, &r.diag);
  return r;
}

simtvp_status alloc_copy(drv *d, uint64_t bytes, const void *src, uint64_t *addr, simtvp_diag *diag) {
  simtvp_status st = drv_mem_alloc(d, bytes, addr, diag);
  if (st != SIMTVP_OK || !src) return st;
  return drv_memcpy(d, nullptr, drv_device_ptr(*addr), drv_host_ptr(src), bytes, diag);
}

simtvp_status run_vector_add(drv *d, uint32_t n, simtvp_diag *diag) {
  uint64_t a, b, c;
  simtvp_status st;
  if ((st = drv_mem_alloc(d, n * 4, &a, diag)) || (st = drv_mem_alloc(d, n * 4, &b, diag)) ||
      (st = drv_mem_alloc(d, n * 4, &c, diag)))
    return st;
  int count = static_cast<int>(n);
  if ((st = load_and_launch(d, kernel_ptx("vector_add.ptx"), "vector_add.ptx", "_Z10vector_addPKfS0_Pfi",
                            (n + 255) / 256, 256, {&a, &b, &c, &count}, diag)))
    return st;
  return drv_sync(d, diag);
}

}  // namespace test_support
