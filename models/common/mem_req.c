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
  mem_req_chunk *chunks;
  mem_req *free_list;
  uint64_t next_id;
  size_t outstanding;
};

mem_req_pool *mem_req_pool_create(void) { return calloc(1, sizeof(mem_req_pool)); }

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
  if (!pool->free_list && !pool_grow(pool)) return NULL;
  mem_req *r = pool->free_list;
  pool->free_list = r->next;
  memset(r, 0, sizeof *r);
  r->id = pool->next_id++;
  r->pool = pool;
  r->sm = r->cluster = r->warp = UINT16_MAX;
  pool->outstanding++;
  return r;
}

void mem_req_free(mem_req *req) {
  if (!req) return;
  mem_req_pool *pool = req->pool;
  req->next = pool->free_list;
  pool->free_list = req;
  pool->outstanding--;
}

size_t mem_req_pool_outstanding(const mem_req_pool *pool) { return pool->outstanding; }

bool mem_req_pool_reserve(mem_req_pool *pool, size_t n) {
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

const char *mem_access_kind_name(mem_access_kind kind) {
  static const char *const names[MEM_ACC_KIND_COUNT] = {
      "GLOBAL_ACC_R", "LOCAL_ACC_R", "CONST_ACC_R",      "TEXTURE_ACC_R",
      "GLOBAL_ACC_W", "LOCAL_ACC_W", "L1_WRBK_ACC",      "L2_WRBK_ACC",
      "INST_ACC_R",   "L1_WR_ALLOC_R", "L2_WR_ALLOC_R", "ATOMIC_ACC"};
  return (unsigned)kind < MEM_ACC_KIND_COUNT ? names[kind] : "UNKNOWN_ACC";
}
