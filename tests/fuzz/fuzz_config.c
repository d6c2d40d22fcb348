/* fuzz_config — the configuration parser (models/config): option files in GPGPU-Sim's syntax and
 * the composite options gpu_config_finalize parses (cache specifications, DRAM timing, address
 * mapping, fidelity overrides). Any text is accepted or refused naming option and line. The
 * harness reads no files: `-config` includes and `…_file` options are renamed into unknown
 * options first. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fuzz_util.h"
#include "gpu_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = 0;
  for (char *at = text; (at = strstr(at, "-config"));) at[2] = 'X';
  for (char *at = text; (at = strstr(at, "_file"));) at[2] = 'X';
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  config_registry *r = config_registry_create(NULL);
  gpu_config *cfg = calloc(1, sizeof *cfg);
  fuzz_require(r && cfg, "out of memory");
  fuzz_require(gpu_config_register(r, cfg, &diag) == SIMTVP_OK, "gpu_config_register");
  config_registry_set_strict(r, size & 1);
  if (config_registry_load_text(r, text, "fuzz.config", "/nonexistent", &diag) == SIMTVP_OK) {
    simtvp_diag_clear(&diag);
    if (gpu_config_finalize(cfg, r, &diag) != SIMTVP_OK)
      fuzz_require(diag.message[0] != 0, "gpu_config_finalize failed without a message");
  } else {
    fuzz_require(diag.message[0] != 0, "config_registry_load_text failed without a message");
  }
  config_registry_destroy(r);
  free(cfg);
  free(text);
  return 0;
}
