/* mem_req — request pool (see mem_req.h). Requests are allocated in chunks and recycled through a
 * free list, so the timing models never call malloc per memory access. */
#include "mem_req.h"

#include <stdlib.h>
#include <string.h>

#define MEM_REQ_CHUNK 256

typedef struct mem_req_chunk {
  struct mem_req_chunk *next;
  mem_req reqs[MEM_REQ_CHUNK];
} mem_req_chunk;

struct mem_req_pool {
  /* The owner's (allocation). */
  mem_req_chunk *chunks;
  mem_req *free_list;
  uint64_t next_id;
  size_t outstanding;  /* one thread: allocated and not freed */
  size_t allocated;    /* shared: allocated since the pool became shared (outstanding at that point included) */
  bool shared;
  /* Shared pools (mem_req_pool_set_shared): every free is pushed on `returned` (lock-free; only the
   * owner takes them, all at once, when free_list runs dry). On a cache line of their own, so the
   * owner's allocations do not bounce with other threads' frees. */
  _Alignas(64) mem_req *returned;
  size_t freed;
};

mem_req_pool *mem_req_pool_create(void) {
  mem_req_pool *pool = aligned_alloc(64, sizeof(mem_req_pool)); /* the returned list's own line */
  if (pool) memset(pool, 0, sizeof *pool);
  return pool;
}

void mem_req_pool_destroy(mem_req_pool *pool) {
  if (!pool) return;
  mem_req_chunk *c = pool->chunks;
  while (c) {
    mem_req_chunk *next = c->next;
    free(c);
    c = next;
  }
  free(pool);
}

static bool pool_grow(mem_req_pool *pool) {
  mem_req_chunk *c = malloc(sizeof *c);
  if (!c) return false;
  c->next = pool->chunks;
  pool->chunks = c;
  for (int i = MEM_REQ_CHUNK - 1; i >= 0; i--) {
    c->reqs[i].next = pool->free_list;
    pool->free_list = &c->reqs[i];
  }
  return true;
}

mem_req *mem_req_alloc(mem_req_pool *pool) {
  if (!pool->free_list && pool->shared)
    pool->free_list = __atomic_exchange_n(&pool->returned, NULL, __ATOMIC_ACQUIRE);
  if (!pool->free_list && !pool_grow(pool)) return NULL;
  mem_req *r = pool->free_list;
  pool->free_list = r->next;
  memset(r, 0, sizeof *r);
  r->id = pool->next_id++;
  r->pool = pool;
  r->sm = r->cluster = r->warp = UINT16_MAX;
  if (pool->shared)
    pool->allocated++;
  else
    pool->outstanding++;
  return r;
}

void mem_req_free(mem_req *req) {
  if (!req) return;
  mem_req_pool *pool = req->pool;
  if (pool->shared) {
    mem_req *head = __atomic_load_n(&pool->returned, __ATOMIC_RELAXED);
    do {
      req->next = head;
    } while (!__atomic_compare_exchange_n(&pool->returned, &head, req, true, __ATOMIC_RELEASE,
                                          __ATOMIC_RELAXED));
    __atomic_fetch_add(&pool->freed, 1, __ATOMIC_RELAXED);
    return;
  }
  req->next = pool->free_list;
  pool->free_list = req;
  pool->outstanding--;
}

size_t mem_req_pool_outstanding(const mem_req_pool *pool) {
  if (pool->shared) return pool->allocated - __atomic_load_n(&pool->freed, __ATOMIC_RELAXED);
  return pool->outstanding;
}

void mem_req_pool_set_shared(mem_req_pool *pool, bool shared) {
  if (!pool || pool->shared == shared) return;
  if (shared) {
    pool->allocated = pool->outstanding;
    pool->freed = 0;
  } else { /* back to one thread: the returned requests join the free list */
    mem_req *r = __atomic_exchange_n(&pool->returned, NULL, __ATOMIC_ACQUIRE);
    while (r) {
      mem_req *next = r->next;
      r->next = pool->free_list;
      pool->free_list = r;
      r = next;
    }
    pool->outstanding = pool->allocated - pool->freed;
  }
  pool->shared = shared;
}

/* What allocating n requests and freeing them leaves, without doing it (building a GPU reserves
 * for hundreds of caches): the free list holds at least n, new chunks linked after what it had in
 * allocation order (so requests come out at the same addresses as before), and n ids used up. */
bool mem_req_pool_reserve(mem_req_pool *pool, size_t n) {
  if (pool->shared) { /* frees go to `returned`: take the long way, as an allocation would */
    mem_req *chain = NULL;
    size_t got = 0;
    for (; got < n; got++) {
      mem_req *r = mem_req_alloc(pool);
      if (!r) break;
      r->next = chain;
      chain = r;
    }
    while (chain) {
      mem_req *next = chain->next;
      mem_req_free(chain);
      chain = next;
    }
    return got == n;
  }
  mem_req **tail = &pool->free_list;
  size_t have = 0;
  while (*tail && have < n) {
    tail = &(*tail)->next;
    have++;
  }
  while (have < n) { /* the list ended: an allocation would grow the pool here */
    mem_req_chunk *c = malloc(sizeof *c);
    if (!c) break;
    c->next = pool->chunks;
    pool->chunks = c;
    for (int i = 0; i < MEM_REQ_CHUNK - 1; i++) c->reqs[i].next = &c->reqs[i + 1];
    c->reqs[MEM_REQ_CHUNK - 1].next = NULL;
    *tail = &c->reqs[0];
    tail = &c->reqs[MEM_REQ_CHUNK - 1].next;
    have += MEM_REQ_CHUNK;
  }
  size_t got = have < n ? have : n;
  pool->next_id += got;
  return got == n;
}

const char *mem_access_kind_name(mem_access_kind kind) {
  static const char *const names[MEM_ACC_KIND_COUNT] = {
      "GLOBAL_ACC_R", "LOCAL_ACC_R", "CONST_ACC_R",      "TEXTURE_ACC_R",
      "GLOBAL_ACC_W", "LOCAL_ACC_W", "L1_WRBK_ACC",      "L2_WRBK_ACC",
      "INST_ACC_R",   "L1_WR_ALLOC_R", "L2_WR_ALLOC_R", "ATOMIC_ACC"};
  return (unsigned)kind < MEM_ACC_KIND_COUNT ? names[kind] : "UNKNOWN_ACC";
}
