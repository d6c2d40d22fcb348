/* drv_heap — device-memory allocator (see drv_heap.h). */
#include "drv_heap.h"

#include <stdlib.h>
#include <string.h>

typedef struct heap_seg {
  uint64_t addr, size; /* size: the segment's extent, a multiple of align */
  uint64_t asked;      /* live blocks: the size the caller asked for */
  bool used;
} heap_seg;

struct drv_heap {
  uint64_t base, size, align;
  heap_seg *seg;
  uint32_t n, cap;
  uint64_t free_bytes;
};

drv_heap *drv_heap_create(uint64_t base, uint64_t size, uint64_t align) {
  drv_heap *h = calloc(1, sizeof *h);
  uint64_t start, end;
  if (!h) return NULL;
  if (!align || (align & (align - 1))) align = 256;
  start = (base + align - 1) & ~(align - 1);
  end = (base + size) & ~(align - 1);
  h->align = align;
  h->base = start;
  h->size = end > start ? end - start : 0;
  h->cap = 64;
  h->seg = malloc(h->cap * sizeof *h->seg);
  if (!h->seg) {
    free(h);
    return NULL;
  }
  if (h->size) {
    h->seg[0] = (heap_seg){start, h->size, 0, false};
    h->n = 1;
  }
  h->free_bytes = h->size;
  return h;
}

void drv_heap_destroy(drv_heap *h) {
  if (!h) return;
  free(h->seg);
  free(h);
}

static bool grow(drv_heap *h) {
  if (h->n < h->cap) return true;
  heap_seg *s = realloc(h->seg, 2 * h->cap * sizeof *s);
  if (!s) return false;
  h->seg = s;
  h->cap *= 2;
  return true;
}

bool drv_heap_alloc(drv_heap *h, uint64_t size, uint64_t *addr) {
  uint64_t need;
  uint32_t best = UINT32_MAX;
  if (size > UINT64_MAX - h->align) return false;
  need = size ? (size + h->align - 1) & ~(h->align - 1) : h->align;
  for (uint32_t i = 0; i < h->n; i++) {
    const heap_seg *s = &h->seg[i];
    if (!s->used && s->size >= need && (best == UINT32_MAX || s->size < h->seg[best].size)) best = i;
  }
  if (best == UINT32_MAX) return false;
  if (h->seg[best].size > need) {
    if (!grow(h)) return false;
    memmove(&h->seg[best + 2], &h->seg[best + 1], (h->n - best - 1) * sizeof *h->seg);
    h->seg[best + 1] = (heap_seg){h->seg[best].addr + need, h->seg[best].size - need, 0, false};
    h->seg[best].size = need;
    h->n++;
  }
  h->seg[best].used = true;
  h->seg[best].asked = size;
  h->free_bytes -= need;
  *addr = h->seg[best].addr;
  return true;
}

/* Index of the segment containing addr, or UINT32_MAX. */
static uint32_t find(const drv_heap *h, uint64_t addr) {
  uint32_t lo = 0, hi = h->n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    const heap_seg *s = &h->seg[mid];
    if (addr < s->addr) hi = mid;
    else if (addr >= s->addr + s->size) lo = mid + 1;
    else return mid;
  }
  return UINT32_MAX;
}

bool drv_heap_free(drv_heap *h, uint64_t addr) {
  uint32_t i = find(h, addr);
  if (i == UINT32_MAX || !h->seg[i].used || h->seg[i].addr != addr) return false;
  h->seg[i].used = false;
  h->free_bytes += h->seg[i].size;
  if (i + 1 < h->n && !h->seg[i + 1].used) { /* merge with the next */
    h->seg[i].size += h->seg[i + 1].size;
    memmove(&h->seg[i + 1], &h->seg[i + 2], (h->n - i - 2) * sizeof *h->seg);
    h->n--;
  }
  if (i > 0 && !h->seg[i - 1].used) { /* merge into the previous */
    h->seg[i - 1].size += h->seg[i].size;
    memmove(&h->seg[i], &h->seg[i + 1], (h->n - i - 1) * sizeof *h->seg);
    h->n--;
  }
  return true;
}

bool drv_heap_lookup(const drv_heap *h, uint64_t addr, uint64_t *base, uint64_t *size) {
  uint32_t i = find(h, addr);
  if (i == UINT32_MAX || !h->seg[i].used) return false;
  /* An address past the requested size (in the alignment padding) is not part of the block. */
  if (addr - h->seg[i].addr >= (h->seg[i].asked ? h->seg[i].asked : 1)) return false;
  if (base) *base = h->seg[i].addr;
  if (size) *size = h->seg[i].asked;
  return true;
}

uint64_t drv_heap_total(const drv_heap *h) { return h->size; }
uint64_t drv_heap_free_bytes(const drv_heap *h) { return h->free_bytes; }

uint64_t drv_heap_largest_free(const drv_heap *h) {
  uint64_t m = 0;
  for (uint32_t i = 0; i < h->n; i++)
    if (!h->seg[i].used && h->seg[i].size > m) m = h->seg[i].size;
  return m;
}

uint32_t drv_heap_free_blocks(const drv_heap *h) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < h->n; i++) n += !h->seg[i].used;
  return n;
}

uint32_t drv_heap_live_blocks(const drv_heap *h) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < h->n; i++) n += h->seg[i].used;
  return n;
}
