/* drv_heap — device-memory allocator (see drv_heap.h). */
#include "drv_heap.h"

#include <stdlib.h>
#include <string.h>

typedef struct heap_seg {
  uint64_t addr, size; /* size: the segment's extent, a multiple of align */
  uint64_t asked;      /* live blocks: the size the caller asked for */
  bool used;
} heap_seg;

/* A range once held by a program block: [lo, hi), sorted, disjoint, not adjacent. */
typedef struct heap_taint {
  uint64_t lo, hi;
} heap_taint;

struct drv_heap {
  uint64_t base, size, align;
  heap_seg *seg;
  uint32_t n, cap;
  uint64_t free_bytes;
  heap_taint *taint;
  uint32_t n_taint, cap_taint;
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
  free(h->taint);
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

/* ---- program memory is never the driver's (drv_heap_free_user / drv_heap_alloc_clean) ------ */

/* Adds [lo, hi) to the tainted ranges, merging with those it touches. */
static bool add_taint(drv_heap *h, uint64_t lo, uint64_t hi) {
  uint32_t i = 0;
  while (i < h->n_taint && h->taint[i].hi < lo) i++;
  uint32_t j = i; /* [i, j): ranges touching [lo, hi) */
  while (j < h->n_taint && h->taint[j].lo <= hi) {
    if (h->taint[j].lo < lo) lo = h->taint[j].lo;
    if (h->taint[j].hi > hi) hi = h->taint[j].hi;
    j++;
  }
  if (i == j) {
    if (h->n_taint == h->cap_taint) {
      uint32_t cap = h->cap_taint ? 2 * h->cap_taint : 16;
      heap_taint *t = realloc(h->taint, cap * sizeof *t);
      if (!t) return false;
      h->taint = t;
      h->cap_taint = cap;
    }
    memmove(&h->taint[i + 1], &h->taint[i], (h->n_taint - i) * sizeof *h->taint);
    h->n_taint++;
  } else if (j > i + 1) {
    memmove(&h->taint[i + 1], &h->taint[j], (h->n_taint - j) * sizeof *h->taint);
    h->n_taint -= j - i - 1;
  }
  h->taint[i] = (heap_taint){lo, hi};
  return true;
}

bool drv_heap_free_user(drv_heap *h, uint64_t addr) {
  uint32_t i = find(h, addr);
  if (i == UINT32_MAX || !h->seg[i].used || h->seg[i].addr != addr) return false;
  uint64_t lo = h->seg[i].addr, hi = lo + h->seg[i].size;
  /* Without room to remember the range, the block is better leaked than handed to the driver. */
  if (!add_taint(h, lo, hi)) return true;
  return drv_heap_free(h, addr);
}

bool drv_heap_alloc_clean(drv_heap *h, uint64_t size, uint64_t *addr) {
  if (size > UINT64_MAX - h->align) return false;
  uint64_t need = size ? (size + h->align - 1) & ~(h->align - 1) : h->align;
  uint32_t best_seg = UINT32_MAX;
  uint64_t best_at = 0, best_len = 0;
  /* Best fit over the untainted parts of the free segments (lowest address on ties); with nothing
   * tainted these are the free segments themselves, so the choice is drv_heap_alloc's. */
  uint32_t t = 0;
  for (uint32_t i = 0; i < h->n; i++) {
    const heap_seg *s = &h->seg[i];
    if (s->used) continue;
    uint64_t at = s->addr, end = s->addr + s->size;
    while (t < h->n_taint && h->taint[t].hi <= at) t++;
    for (uint32_t k = t; at < end; k++) {
      uint64_t stop = k < h->n_taint && h->taint[k].lo < end ? h->taint[k].lo : end;
      if (stop > at && stop - at >= need && (best_seg == UINT32_MAX || stop - at < best_len)) {
        best_seg = i;
        best_at = at;
        best_len = stop - at;
      }
      if (k >= h->n_taint || h->taint[k].lo >= end) break;
      at = h->taint[k].hi;
    }
  }
  if (best_seg == UINT32_MAX) return false;
  /* carve [best_at, best_at + need) out of the segment: up to three segments */
  heap_seg s = h->seg[best_seg];
  uint32_t parts = (best_at > s.addr) + 1 + (best_at + need < s.addr + s.size);
  while (h->n + parts - 1 > h->cap) {
    heap_seg *g = realloc(h->seg, 2 * h->cap * sizeof *g);
    if (!g) return false;
    h->seg = g;
    h->cap *= 2;
  }
  memmove(&h->seg[best_seg + parts], &h->seg[best_seg + 1], (h->n - best_seg - 1) * sizeof *h->seg);
  h->n += parts - 1;
  uint32_t at = best_seg;
  if (best_at > s.addr) h->seg[at++] = (heap_seg){s.addr, best_at - s.addr, 0, false};
  h->seg[at++] = (heap_seg){best_at, need, size, true};
  if (best_at + need < s.addr + s.size)
    h->seg[at] = (heap_seg){best_at + need, s.addr + s.size - best_at - need, 0, false};
  h->free_bytes -= need;
  *addr = best_at;
  return true;
}
