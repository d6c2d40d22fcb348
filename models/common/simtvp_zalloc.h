/* simtvp_zalloc — zeroed tables that cost only the pages a run touches.
 *
 * Model cores size some tables for the worst case (an interval core's throughput bins, a timed
 * cache's ready times) and need them zero at the start. calloc zeroes every byte of a block it
 * recycles from the heap; a large table instead comes straight from the kernel as fresh anonymous
 * pages, which read as zero and take host memory (and a page fault) only when first written. A
 * short kernel on an 80-SM GPU touches a small part of its tables, so building the GPU no longer
 * writes megabytes nobody reads. Small blocks still come from calloc. */
#ifndef SIMTVP_ZALLOC_H
#define SIMTVP_ZALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks of at least this many bytes are mapped pages; smaller ones come from calloc. */
#define SIMTVP_ZALLOC_PAGES_FROM (32u * 1024u)

/* bytes of zeroed memory aligned for any type (64 bytes for mapped blocks); NULL when out of
 * memory. Free it with simtvp_zfree, never with free. */
void *simtvp_zalloc(size_t bytes);
/* Frees a block from simtvp_zalloc; NULL is ignored. */
void simtvp_zfree(void *p);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_ZALLOC_H */
