/* fuzz_fatbin — the fatbin reader (sw/fatbin): containers, entries, LZ4 and zstd payloads, cubin
 * .nv.info records. Any input is either read or refused with a message naming entry and offset. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fatbin.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  simtvp_diag diag;
  simtvp_diag_clear(&diag);
  /* 8-byte aligned copy, as the runtime hands the reader nvcc's embedded fatbins */
  uint64_t *words = malloc(size / 8 * 8 + 8);
  memcpy(words, data, size);
  fatbin *fb = NULL;
  if (fatbin_open(words, size, &fb, &diag) != SIMTVP_OK) {
    fuzz_require(diag.message[0] != 0, "fatbin_open failed without a message");
    free(words);
    return 0;
  }
  for (size_t i = 0; i < fatbin_entry_count(fb); i++) {
    const fatbin_entry *e = fatbin_entry_at(fb, i);
    simtvp_diag_clear(&diag);
    if (e->kind == FATBIN_KIND_PTX) {
      char *text = NULL;
      size_t len = 0;
      if (fatbin_read_ptx(fb, i, &text, &len, &diag) == SIMTVP_OK) free(text);
      else fuzz_require(diag.message[0] != 0, "fatbin_read_ptx failed without a message");
    } else if (e->kind == FATBIN_KIND_ELF) {
      fatbin_cubin *c = NULL;
      if (fatbin_read_cubin(fb, i, &c, &diag) == SIMTVP_OK) {
        for (size_t k = 0; k < fatbin_cubin_kernel_count(c); k++) (void)fatbin_cubin_kernel_at(c, k);
        fatbin_cubin_destroy(c);
      } else {
        fuzz_require(diag.message[0] != 0, "fatbin_read_cubin failed without a message");
      }
    } else {
      uint8_t *payload = NULL;
      size_t n = 0;
      if (fatbin_read_entry(fb, i, &payload, &n, &diag) == SIMTVP_OK) free(payload);
      else fuzz_require(diag.message[0] != 0, "fatbin_read_entry failed without a message");
    }
  }
  size_t index;
  (void)fatbin_pick_ptx(fb, 75, &index, NULL);
  (void)fatbin_pick_elf(fb, 75, &index, NULL);
  fatbin_destroy(fb);
  free(words);
  return 0;
}
