/* heap_shift — an LD_PRELOAD library that moves the program's heap by HEAP_SHIFT_PAGES pages (4 KiB)
 * before main, so a buffer the program mallocs lies at a chosen place: how the statistics of a
 * program that hands the GPU its own memory (cudaHostRegister) depend on where its heap lies
 * (docs/system-modes.md §1). Not built by CMake; sweep.sh builds and uses it. */
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor)) static void heap_shift(void) {
  const char *pages = getenv("HEAP_SHIFT_PAGES");
  if (pages) (void)sbrk((long)atol(pages) * 4096);
}
