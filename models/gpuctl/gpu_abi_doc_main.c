/* gpu_abi_doc — writes docs/gpu-abi.md from gpu_abi.h: `gpu_abi_doc [OUT]` (stdout without OUT). */
#include <stdio.h>

#include "gpu_abi_doc.h"

int main(int argc, char **argv) {
  FILE *out = stdout;
  if (argc > 1 && !(out = fopen(argv[1], "w"))) {
    fprintf(stderr, "gpu_abi_doc: cannot write %s\n", argv[1]);
    return 1;
  }
  gpu_abi_write_markdown(out);
  if (out != stdout && fclose(out) != 0) {
    fprintf(stderr, "gpu_abi_doc: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
