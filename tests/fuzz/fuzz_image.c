/* fuzz_image — the program-image loader (models/gpuctl/gpu_image) and everything that trusts the
 * module it returns: the functional engine's loader (func_program_load), the timing side's decode
 * (simt_program_create) and a short run of the first kernel (one CTA of 64 threads, at most 20000
 * warp instructions). An image a buggy driver writes must be refused with a message
 * (SIMTVP_ERR_PARSE, a LAUNCH_IMAGE error on the GPU), never crash the GPU model. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "devmem.h"
#include "func.h"
#include "fuzz_util.h"
#include "gpu_image.h"
#include "simt.h"

#define SEG_BASE 0x100000000000ull /* .global and .const of the run, 1 MiB each */
#define SEG_BYTES (1u << 20)

static void run_first_kernel(func_engine *e, func_program *p, const ptx_module *m) {
  uint32_t k = PTX_NONE;
  for (uint32_t i = 0; i < m->n_functions && k == PTX_NONE; i++)
    if ((m->functions[i].flags & PTX_FN_ENTRY) && !(m->functions[i].flags & PTX_FN_DECL_ONLY)) k = i;
  if (k == PTX_NONE) return;
  uint32_t bytes = func_program_param_bytes(p, k);
  uint8_t *params = calloc(1, bytes ? bytes : 1);
  func_launch_params lp;
  memset(&lp, 0, sizeof lp);
  lp.kernel = k;
  lp.grid[0] = lp.grid[1] = lp.grid[2] = 1;
  lp.block[0] = 64;
  lp.block[1] = lp.block[2] = 1;
  lp.params = params;
  lp.param_bytes = bytes;
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  func_launch *l = NULL;
  if (func_launch_create(e, p, &lp, &l, &diag) == SIMTVP_OK) {
    simtvp_diag_clear(&diag);
    if (func_launch_run(l, &diag) != SIMTVP_OK) fuzz_require(diag.message[0] != 0, "a kernel stopped without a message");
    func_launch_destroy(l);
  } else {
    fuzz_require(diag.message[0] != 0, "func_launch_create failed without a message");
  }
  free(params);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  gpu_image *img = NULL;
  if (gpu_image_load_bytes(data, size, SEG_BASE - 0x100000, &img, &diag) != SIMTVP_OK) {
    fuzz_require(diag.message[0] != 0, "gpu_image_load_bytes failed without a message");
    return 0;
  }
  const ptx_module *m = img->module;
  char text[256];
  for (uint32_t i = 0; i < m->n_insns; i++) ptx_insn_format(m, &m->insns[i], text, sizeof text);

  simt_program *sp = NULL;
  simtvp_diag_clear(&diag);
  if (simt_program_create(m, &sp, &diag) == SIMTVP_OK) simt_program_destroy(sp);
  else fuzz_require(diag.message[0] != 0, "simt_program_create failed without a message");

  devmem *mem = devmem_create();
  fuzz_require(devmem_map(mem, SEG_BASE, 2 * SEG_BYTES, NULL) == SIMTVP_OK, "devmem_map");
  func_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.max_warp_insns = 20000;
  func_engine *e = func_create(&cfg, NULL, mem, NULL, &diag);
  fuzz_require(e != NULL, "func_create");
  func_placement pl;
  memset(&pl, 0, sizeof pl);
  pl.global_base = SEG_BASE;
  pl.const_base = SEG_BASE + SEG_BYTES;
  pl.code_base = gpu_image_code_base(SEG_BASE - 0x100000, &img->header);
  func_program *p = NULL;
  simtvp_diag_clear(&diag);
  if (func_program_load(e, m, &pl, &p, &diag) == SIMTVP_OK) {
    if (m->global_segment_bytes <= SEG_BYTES && m->const_segment_bytes <= SEG_BYTES) {
      simtvp_diag_clear(&diag);
      if (func_program_write_segments(p, &diag) == SIMTVP_OK) run_first_kernel(e, p, m);
      else fuzz_require(diag.message[0] != 0, "func_program_write_segments failed without a message");
    }
    func_program_destroy(p);
  } else {
    fuzz_require(diag.message[0] != 0, "func_program_load failed without a message");
  }
  func_destroy(e);
  devmem_destroy(mem);
  gpu_image_free(img);
  return 0;
}
