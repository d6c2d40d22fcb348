/* mem_req — request pool (see mem_req.h). Requests are allocated in chunks and recycled through a
 * free list, so the timing models never call malloc per memory access. Requests never handed out
 * are not linked into the free list: they are taken in order after it (the rest of the chunk in
 * use, then reserved chunks), exactly where a fully linked list would have had them, so a pool
 * reserved for the worst case touches only the memory a run uses. */
#include "mem_req.h"

#include <stdlib.h>
#include <string.h>

#define MEM_REQ_CHUNK 256

typedef struct mem_req_chunk {
  struct mem_req_chunk *next;  /* every chunk, newest first (freed with the pool) */
  struct mem_req_chunk *spare; /* reserved chunks not started yet, oldest first */
  mem_req reqs[MEM_REQ_CHUNK];
} mem_req_chunk;

struct mem_req_pool {
  /* The owner's (allocation). */
  mem_req_chunk *chunks;
  mem_req *free_list;
  mem_req *fresh, *fresh_end;        /* never handed out: the rest of the chunk in use … */
  mem_req_chunk *spare, *spare_tail; /* … then these chunks, in order */
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

static mem_req_chunk *chunk_new(mem_req_pool *pool) {
  mem_req_chunk *c = malloc(sizeof *c);
  if (!c) return NULL;
  c->next = pool->chunks;
  c->spare = NULL;
  pool->chunks = c;
  return c;
}

/* The next request never handed out (the rest of the chunk in use, then the reserved chunks), or
 * NULL when there is none. */
static mem_req *take_fresh(mem_req_pool *pool) {
  if (pool->fresh == pool->fresh_end) {
    mem_req_chunk *c = pool->spare;
    if (!c) return NULL;
    pool->spare = c->spare;
    if (!pool->spare) pool->spare_tail = NULL;
    pool->fresh = c->reqs;
    pool->fresh_end = c->reqs + MEM_REQ_CHUNK;
  }
  return pool->fresh++;
}

/* The free list ran dry: never-used requests first (a linked list held them after the freed
 * ones), then those other threads returned to a shared pool, then a new chunk. */
static mem_req *alloc_slow(mem_req_pool *pool) {
  mem_req *r = take_fresh(pool);
  if (r) return r;
  if (pool->shared) {
    r = __atomic_exchange_n(&pool->returned, NULL, __ATOMIC_ACQUIRE);
    if (r) {
      pool->free_list = r->next;
      return r;
    }
  }
  mem_req_chunk *c = chunk_new(pool);
  if (!c) return NULL;
  pool->fresh = c->reqs + 1;
  pool->fresh_end = c->reqs + MEM_REQ_CHUNK;
  return &c->reqs[0];
}

mem_req *mem_req_alloc(mem_req_pool *pool) {
  mem_req *r = pool->free_list;
  if (r)
    pool->free_list = r->next;
  else if (!(r = alloc_slow(pool)))
    return NULL;
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
 * for hundreds of caches): room for n in the free list, the never-used rest and reserved chunks
 * (new ones queued after those, untouched until taken), and n ids used up. */
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
  size_t have = (size_t)(pool->fresh_end - pool->fresh);
  for (mem_req *r = pool->free_list; r && have < n; r = r->next) have++;
  for (mem_req_chunk *c = pool->spare; c && have < n; c = c->spare) have += MEM_REQ_CHUNK;
  while (have < n) {
    mem_req_chunk *c = chunk_new(pool);
    if (!c) break;
    if (pool->spare_tail)
      pool->spare_tail->spare = c;
    else
      pool->spare = c;
    pool->spare_tail = c;
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
