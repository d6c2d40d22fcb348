/* fuzz_ptx — the PTX front end and the functional engine's loader: any text either parses into a
 * module the engine can build (or refuses naming the line), or is rejected with a message naming
 * the place. Never a crash, never an error without a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devmem.h"
#include "func.h"
#include "fuzz_util.h"
#include "ptx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  ptx_module *m = ptx_parse((const char *)data, size, "fuzz.ptx", NULL, &diag);
  if (!m) {
    fuzz_require(diag.status != SIMTVP_OK && diag.message[0], "ptx_parse failed without a message");
    return 0;
  }
  /* every instruction formats (fault reports and traces do this) */
  char text[256];
  for (uint32_t i = 0; i < m->n_insns; i++) ptx_insn_format(m, &m->insns[i], text, sizeof text);
  devmem *mem = devmem_create();
  func_config cfg;
  memset(&cfg, 0, sizeof cfg);
  func_engine *e = func_create(&cfg, NULL, mem, NULL, &diag);
  fuzz_require(e != NULL, "func_create");
  func_placement pl;
  memset(&pl, 0, sizeof pl);
  pl.global_base = 0x10000000ull;
  pl.const_base = 0x20000000ull;
  func_program *p = NULL;
  simtvp_diag_clear(&diag);
  if (func_program_load(e, m, &pl, &p, &diag) == SIMTVP_OK) func_program_destroy(p);
  else fuzz_require(diag.message[0], "func_program_load failed without a message");
  func_destroy(e);
  devmem_destroy(mem);
  ptx_module_destroy(m);
  return 0;
}
