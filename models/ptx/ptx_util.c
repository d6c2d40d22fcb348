/* ptx_util — the PTX front end's memory: an arena for the module, growable vectors for the
 * parser's tables and an open-addressing hash table for names. */
#include <stdlib.h>
#include <string.h>

#include "ptx_internal.h"

struct ptx_arena_chunk {
  ptx_arena_chunk *next;
  size_t used, cap;
  _Alignas(16) unsigned char data[];
};

#define PTX_ARENA_CHUNK (256u * 1024u)

void *ptx_arena_alloc(ptx_arena *a, size_t bytes) {
  bytes = (bytes + 15u) & ~(size_t)15u;
  if (bytes == 0) bytes = 16;
  ptx_arena_chunk *c = a->head;
  if (!c || c->cap - c->used < bytes) {
    size_t cap = bytes > PTX_ARENA_CHUNK / 4 ? bytes : PTX_ARENA_CHUNK;
    ptx_arena_chunk *n = malloc(sizeof *n + cap);
    if (!n) return NULL;
    n->used = 0;
    n->cap = cap;
    if (c && cap != PTX_ARENA_CHUNK) {
      /* A big block goes behind the current chunk so the chunk's free tail stays usable. */
      n->next = c->next;
      c->next = n;
      n->used = bytes;
      memset(n->data, 0, bytes);
      return n->data;
    }
    n->next = c;
    a->head = c = n;
  }
  void *r = c->data + c->used;
  c->used += bytes;
  memset(r, 0, bytes);
  return r;
}

char *ptx_arena_strndup(ptx_arena *a, const char *s, size_t n) {
  char *d = ptx_arena_alloc(a, n + 1);
  if (!d) return NULL;
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

void ptx_arena_free(ptx_arena *a) {
  ptx_arena_chunk *c = a->head;
  while (c) {
    ptx_arena_chunk *n = c->next;
    free(c);
    c = n;
  }
  a->head = NULL;
}

bool ptx_vec_reserve(void **v, uint32_t *cap, size_t elem, uint32_t need) {
  if (need <= *cap) return true;
  if (need > PTX_LIMIT_ELEMS) return false;
  uint64_t ncap = *cap ? (uint64_t)*cap * 2 : 16;
  while (ncap < need) ncap *= 2;
  if (ncap > PTX_LIMIT_ELEMS) ncap = PTX_LIMIT_ELEMS;
  void *nv = realloc(*v, (size_t)ncap * elem);
  if (!nv) return false;
  *v = nv;
  *cap = (uint32_t)ncap;
  return true;
}

uint32_t ptx_hash(const char *s, uint32_t n) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (uint32_t i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= 16777619u;
  }
  return h;
}

static bool names_grow(ptx_names *t) {
  uint32_t ncap = t->cap ? t->cap * 2 : 64;
  if (ncap > PTX_LIMIT_ELEMS * 2u) return false;
  ptx_name_slot *ns = calloc(ncap, sizeof *ns);
  if (!ns) return false;
  for (uint32_t i = 0; i < t->cap; i++) {
    const ptx_name_slot *s = &t->slots[i];
    if (!s->key) continue;
    uint32_t j = s->hash & (ncap - 1);
    while (ns[j].key) j = (j + 1) & (ncap - 1);
    ns[j] = *s;
  }
  free(t->slots);
  t->slots = ns;
  t->cap = ncap;
  return true;
}

const ptx_name_slot *ptx_names_find(const ptx_names *t, const char *key, uint32_t len, uint32_t hash) {
  if (!t->cap) return NULL;
  uint32_t j = hash & (t->cap - 1);
  for (;;) {
    const ptx_name_slot *s = &t->slots[j];
    if (!s->key) return NULL;
    if (s->hash == hash && s->len == len && memcmp(s->key, key, len) == 0) return s;
    j = (j + 1) & (t->cap - 1);
  }
}

ptx_name_slot *ptx_names_slot(ptx_names *t, const char *key, uint32_t len, uint32_t hash) {
  const ptx_name_slot *found = ptx_names_find(t, key, len, hash);
  if (found) return (ptx_name_slot *)found;
  if ((t->used + 1) * 2 > t->cap && !names_grow(t)) return NULL;
  uint32_t j = hash & (t->cap - 1);
  for (;;) {
    ptx_name_slot *s = &t->slots[j];
    if (!s->key) {
      s->key = key;
      s->len = len;
      s->hash = hash;
      memset(&s->b, 0, sizeof s->b);
      t->used++;
      return s;
    }
    if (s->hash == hash && s->len == len && memcmp(s->key, key, len) == 0) return s;
    j = (j + 1) & (t->cap - 1);
  }
}

void ptx_names_free(ptx_names *t) {
  free(t->slots);
  t->slots = NULL;
  t->cap = t->used = 0;
}
