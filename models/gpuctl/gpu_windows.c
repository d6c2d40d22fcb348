/* gpu_windows — the GPU's table of remote windows (virtual page -> physical page through a
 * MAP_SYSMEM window, and back): two open-addressing maps under one mutex, gpu_windows.h. */
#include "gpu_windows.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* One slot of either map: forward vp -> pp (val), or reverse pp -> the vps using it (users). */
typedef struct {
  uint64_t key;
  uint64_t val;
  uint64_t *users;
  uint32_t n_users, cap_users;
  bool used;
} window_slot;

typedef struct {
  window_slot *slots;
  uint32_t cap; /* a power of two, or 0 */
  uint32_t n;
} window_map;

struct gpu_windows {
  pthread_mutex_t mu;
  uint32_t page_bits;
  uint32_t count; /* forward.n, read without the lock (__atomic) */
  window_map forward, reverse;
};

static uint32_t slot_of(const window_map *m, uint64_t key) {
  return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (m->cap - 1);
}

static window_slot *map_find(const window_map *m, uint64_t key) {
  if (!m->n) return NULL;
  for (uint32_t i = slot_of(m, key);; i = (i + 1) & (m->cap - 1)) {
    window_slot *s = &m->slots[i];
    if (!s->used) return NULL;
    if (s->key == key) return s;
  }
}

/* Room for one more key: false when out of memory (the map unchanged). */
static bool map_reserve(window_map *m) {
  if ((m->n + 1) * 4 <= m->cap * 3) return true;
  uint32_t cap = m->cap ? m->cap * 2 : 16;
  window_slot *slots = calloc(cap, sizeof *slots);
  if (!slots) return false;
  window_map grown = {slots, cap, m->n};
  for (uint32_t i = 0; i < m->cap; i++)
    if (m->slots[i].used) {
      uint32_t j = slot_of(&grown, m->slots[i].key);
      while (slots[j].used) j = (j + 1) & (cap - 1);
      slots[j] = m->slots[i];
    }
  free(m->slots);
  *m = grown;
  return true;
}

/* The slot of key, made (zeroed apart from the key) when absent; map_reserve first. */
static window_slot *map_take(window_map *m, uint64_t key) {
  uint32_t i = slot_of(m, key);
  for (; m->slots[i].used; i = (i + 1) & (m->cap - 1))
    if (m->slots[i].key == key) return &m->slots[i];
  window_slot *s = &m->slots[i];
  memset(s, 0, sizeof *s);
  s->key = key;
  s->used = true;
  m->n++;
  return s;
}

/* Removes slot s (its users already freed), shifting the probe run behind it back. */
static void map_remove(window_map *m, window_slot *s) {
  uint32_t hole = (uint32_t)(s - m->slots), mask = m->cap - 1;
  m->slots[hole].used = false;
  m->n--;
  for (uint32_t i = (hole + 1) & mask; m->slots[i].used; i = (i + 1) & mask) {
    uint32_t home = slot_of(m, m->slots[i].key);
    /* the entry at i may fill the hole when its home is not in (hole, i] (cyclically) */
    if (((i - home) & mask) >= ((i - hole) & mask)) {
      m->slots[hole] = m->slots[i];
      m->slots[i].used = false;
      hole = i;
    }
  }
}

static void map_free(window_map *m) {
  for (uint32_t i = 0; i < m->cap; i++)
    if (m->slots[i].used) free(m->slots[i].users);
  free(m->slots);
  memset(m, 0, sizeof *m);
}

gpu_windows *gpu_windows_create(uint32_t page_bits) {
  if (page_bits < 1 || page_bits > 30) return NULL;
  gpu_windows *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  if (pthread_mutex_init(&t->mu, NULL) != 0) {
    free(t);
    return NULL;
  }
  t->page_bits = page_bits;
  return t;
}

void gpu_windows_destroy(gpu_windows *t) {
  if (!t) return;
  map_free(&t->forward);
  map_free(&t->reverse);
  pthread_mutex_destroy(&t->mu);
  free(t);
}

void gpu_windows_clear(gpu_windows *t) {
  pthread_mutex_lock(&t->mu);
  map_free(&t->forward);
  map_free(&t->reverse);
  __atomic_store_n(&t->count, 0, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&t->mu);
}

/* Drops vp from the users of pp. */
static void drop_user(gpu_windows *t, uint64_t pp, uint64_t vp) {
  window_slot *r = map_find(&t->reverse, pp);
  if (!r) return;
  for (uint32_t i = 0; i < r->n_users; i++)
    if (r->users[i] == vp) {
      memmove(&r->users[i], &r->users[i + 1], (r->n_users - i - 1) * sizeof *r->users);
      r->n_users--;
      break;
    }
  if (!r->n_users) {
    free(r->users);
    map_remove(&t->reverse, r);
  }
}

simtvp_status gpu_windows_set(gpu_windows *t, uint64_t vp, bool window, uint64_t pp) {
  /* the usual case, a translation onto no window while no page uses one: nothing to do */
  if (!window && __atomic_load_n(&t->count, __ATOMIC_ACQUIRE) == 0) return SIMTVP_OK;
  simtvp_status st = SIMTVP_OK;
  pthread_mutex_lock(&t->mu);
  window_slot *f = map_find(&t->forward, vp);
  if (window && f && f->val == pp) goto out; /* already so */
  if (window) {
    /* room first, so a failure leaves the table as it was */
    if (!map_reserve(&t->forward) || !map_reserve(&t->reverse)) {
      st = SIMTVP_ERR_NOMEM;
      goto out;
    }
    window_slot *r = map_find(&t->reverse, pp);
    if (!r || r->n_users == r->cap_users) {
      uint32_t cap = r && r->cap_users ? r->cap_users * 2 : 4;
      uint64_t *users = realloc(r ? r->users : NULL, cap * sizeof *users);
      if (!users) {
        st = SIMTVP_ERR_NOMEM;
        goto out;
      }
      if (!r) r = map_take(&t->reverse, pp);
      r->users = users;
      r->cap_users = cap;
    }
    f = map_find(&t->forward, vp); /* (map_reserve may have moved it) */
    if (f) drop_user(t, f->val, vp);
    r = map_find(&t->reverse, pp); /* (drop_user may have moved it) */
    r->users[r->n_users++] = vp;
    f = map_take(&t->forward, vp);
    f->val = pp;
  } else if (f) {
    drop_user(t, f->val, vp);
    map_remove(&t->forward, f);
  }
  __atomic_store_n(&t->count, t->forward.n, __ATOMIC_RELEASE);
out:
  pthread_mutex_unlock(&t->mu);
  return st;
}

uint32_t gpu_windows_count(const gpu_windows *t) { return __atomic_load_n(&t->count, __ATOMIC_ACQUIRE); }

uint64_t gpu_windows_physical(gpu_windows *t, uint64_t addr) {
  if (__atomic_load_n(&t->count, __ATOMIC_ACQUIRE) == 0) return addr;
  pthread_mutex_lock(&t->mu);
  const window_slot *f = map_find(&t->forward, addr >> t->page_bits);
  const uint64_t mask = (1ull << t->page_bits) - 1;
  uint64_t phys = f ? (f->val << t->page_bits) | (addr & mask) : addr;
  pthread_mutex_unlock(&t->mu);
  return phys;
}

uint32_t gpu_windows_users(gpu_windows *t, uint64_t pp, void (*each)(void *ctx, uint64_t vp), void *ctx) {
  if (__atomic_load_n(&t->count, __ATOMIC_ACQUIRE) == 0) return 0;
  pthread_mutex_lock(&t->mu);
  const window_slot *r = map_find(&t->reverse, pp);
  uint32_t n = r ? r->n_users : 0;
  for (uint32_t i = 0; i < n; i++) each(ctx, r->users[i]);
  pthread_mutex_unlock(&t->mu);
  return n;
}
