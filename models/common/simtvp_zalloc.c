/* simtvp_zalloc — zeroed tables that cost only the pages a run touches (see simtvp_zalloc.h). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "simtvp_zalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

/* Every block starts with a header that says how it was made: the mapped length (the header
 * included), or 0 for calloc. 64 bytes keep the caller's part aligned to a cache line. */
#define ZALLOC_HEADER 64u

void *simtvp_zalloc(size_t bytes) {
  if (bytes > SIZE_MAX - ZALLOC_HEADER) return NULL;
  size_t total = bytes + ZALLOC_HEADER;
  unsigned char *base;
  if (bytes < SIMTVP_ZALLOC_PAGES_FROM) {
    base = calloc(1, total);
    if (!base) return NULL;
    *(size_t *)(void *)base = 0;
  } else {
    void *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    base = m;
    *(size_t *)(void *)base = total;
  }
  return base + ZALLOC_HEADER;
}

void simtvp_zfree(void *p) {
  if (!p) return;
  unsigned char *base = (unsigned char *)p - ZALLOC_HEADER;
  size_t mapped = *(size_t *)(void *)base;
  if (mapped)
    munmap(base, mapped);
  else
    free(base);
}
