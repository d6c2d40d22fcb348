/* fuzz_image_seeds — writes the seed corpus of fuzz_image: the program image (gpu_image_build) of
 * each PTX file given, as the driver would place it. Generated at build time, not committed: an
 * image holds the host's record layout, which changes with models/ptx.
 *   fuzz_image_seeds OUT_DIR FILE.ptx... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_image.h"
#include "ptx.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: fuzz_image_seeds OUT_DIR FILE.ptx...\n");
    return 2;
  }
  for (int i = 2; i < argc; i++) {
    simtvp_diag diag;
    simtvp_diag_clear(&diag);
    ptx_module *m = ptx_parse_file(argv[i], NULL, &diag);
    if (!m) {
      fprintf(stderr, "fuzz_image_seeds: %s\n", diag.message);
      return 1;
    }
    uint64_t n = gpu_image_size(m);
    void *buf = malloc(n);
    if (!buf || gpu_image_build(m, 0x100000000000ull, 0x100000100000ull, buf, n, &diag) != SIMTVP_OK) {
      fprintf(stderr, "fuzz_image_seeds: %s: %s\n", argv[i], diag.message);
      return 1;
    }
    gpu_image_set_load_id(buf, 1);
    const char *base = strrchr(argv[i], '/');
    base = base ? base + 1 : argv[i];
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.img", argv[1], base);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, n, f) != n) {
      fprintf(stderr, "fuzz_image_seeds: cannot write %s\n", path);
      return 1;
    }
    fclose(f);
    free(buf);
    ptx_module_destroy(m);
  }
  return 0;
}
