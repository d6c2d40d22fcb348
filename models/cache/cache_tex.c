/* cache_tex — the texture cache's prefetching design (GPGPU-Sim 3.x manual, texture cache; after
 * Igehy et al., "Prefetching in a texture cache architecture", 1998): the tag array runs ahead of
 * the data array. An access looks up and updates the tags at once (a miss takes its line at
 * once, no reservation) and enters the fragment FIFO; misses go out through the request FIFO and
 * take a reorder-buffer slot. Fills may return in any order; the reorder buffer hands them to the
 * data array in miss order, and fragments leave the fragment FIFO in access order, each when its
 * data is in the data array, into the result FIFO. Because every data-array operation happens in
 * access order, a later hit on a line whose fill is still in flight reads the right data, and a
 * line evicted by a later miss is overwritten only after the earlier fragments have read it.
 *
 * Configuration fields (F/T MSHR type): mshr_entries = fragment FIFO, mshr_max_merge = request
 * FIFO (the miss queue), miss_queue_entries = reorder buffer, result_fifo_entries = result FIFO. */
#include "simtvp_bits.h"
#include <assert.h>
#include <stdlib.h>

#include "cache_internal.h"

simtvp_status cache_tex_init(cache *c) {
  c->frag_cap = c->spec.mshr_entries;
  c->rob_cap = c->spec.miss_queue_entries;
  c->released_cap = c->spec.result_fifo_entries;
  c->frag = calloc(c->frag_cap, sizeof *c->frag);
  c->rob = calloc(c->rob_cap, sizeof *c->rob);
  return (c->frag && c->rob) ? SIMTVP_OK : SIMTVP_ERR_NOMEM;
}

void cache_tex_destroy(cache *c) {
  if (c->frag) {
    for (uint32_t i = 0; i < c->frag_n; i++) {
      mem_req *r = c->frag[(c->frag_head + i) % c->frag_cap].req;
      if (r) mem_req_free(r);
    }
  }
  free(c->frag);
  free(c->rob);
  c->frag = NULL;
  c->rob = NULL;
}

static void frag_push(cache *c, mem_req *req, int32_t rob, uint64_t ready) {
  cache_fragment *f = &c->frag[(c->frag_head + c->frag_n) % c->frag_cap];
  f->req = req;
  f->rob = rob;
  f->ready = ready;
  c->frag_n++;
}

void cache_tex_access(cache *c, mem_req *req, uint64_t now, cache_outcome *o) {
  if (req->is_write) { /* a texture cache is read-only: writes go by, invalidating */
    cache_write_bypass(c, req, now, o);
    return;
  }
  if (c->frag_n == c->frag_cap) {
    o->status = CACHE_RESERVATION_FAIL;
    o->reason = CACHE_FAIL_FRAGMENT_FIFO_FULL;
    return;
  }
  uint64_t line = req->addr & ~(uint64_t)(c->spec.line_bytes - 1);
  uint32_t set = cache_index_of(c, req->addr);
  uint8_t need = cache_req_chunks(c, req);
  int32_t li = cache_find_line(c, set, line);
  uint8_t missing = need & (uint8_t)~(li >= 0 ? c->lines[li].valid : 0);

  if (!missing) { /* the tags say it is (or will be, in fragment order) in the data array */
    cache_touch(c, li);
    frag_push(c, req, -1, now + c->hit_latency);
    o->status = CACHE_HIT;
    return;
  }
  if (c->miss_queue.len >= c->miss_queue_cap) {
    o->status = CACHE_RESERVATION_FAIL;
    o->reason = CACHE_FAIL_MISS_QUEUE_FULL;
    return;
  }
  if (c->rob_n == c->rob_cap) {
    o->status = CACHE_RESERVATION_FAIL;
    o->reason = CACHE_FAIL_ROB_FULL;
    return;
  }
  o->sector_miss = li >= 0;
  if (li < 0) { /* tag ahead of data: the victim goes now; its readers are earlier fragments */
    li = cache_pick_victim(c, set, true);
    c->lines[li].mshr1 = 0;
    cache_evict(c, li, req);
    cache_install(c, li, line);
  } else {
    cache_touch(c, li);
  }
  c->lines[li].valid |= missing;
  uint32_t slot = (c->rob_head + c->rob_n) % c->rob_cap;
  c->rob[slot].ready = 0;
  c->rob[slot].fill_time = 0;
  c->rob_n++;
  cache_new_fetch(c, line, missing, req->kind, req, CACHE_TAG(CACHE_TAG_TEX_FETCH, slot, missing));
  frag_push(c, req, (int32_t)slot, CACHE_NEVER);
  o->fetches = 1;
  o->status = CACHE_MISS;
}

void cache_tex_fill(cache *c, mem_req *reply, uint64_t now) {
  uint32_t slot = CACHE_TAG_SLOT(reply->owner_tag);
  uint8_t chunks = CACHE_TAG_CHUNKS(reply->owner_tag);
  assert(slot < c->rob_cap && !c->rob[slot].ready);
  if (slot < c->rob_cap) {
    c->rob[slot].ready = 1;
    c->rob[slot].fill_time = now;
  }
  cache_use_fill_port(c, (uint32_t)simtvp_popcount32(chunks) * c->chunk_bytes, now);
  ++*c->inst.fill;
  ++*c->group.fill;
  mem_req_free(reply);
  cache_tex_progress(c, now);
}

/* Moves fragments, in access order, into the result FIFO while their data is there. */
void cache_tex_progress(cache *c, uint64_t now) {
  while (c->frag_n) {
    if (c->released_cap && c->released.len >= c->released_cap) return;
    cache_fragment *f = &c->frag[c->frag_head];
    if (f->rob < 0) {
      if (f->ready > now) return;
    } else {
      assert((uint32_t)f->rob == c->rob_head && "misses leave the ROB in fragment order");
      cache_rob_entry *r = &c->rob[c->rob_head];
      if (!r->ready || r->fill_time > now) return;
      r->ready = 0;
      c->rob_head = (c->rob_head + 1) % c->rob_cap;
      c->rob_n--;
    }
    mem_req *req = f->req;
    f->req = NULL;
    c->frag_head = (c->frag_head + 1) % c->frag_cap;
    c->frag_n--;
    cache_complete(c, req);
  }
}

uint64_t cache_tex_next_event(const cache *c) {
  if (!c->frag_n) return CACHE_NEVER;
  if (c->released_cap && c->released.len >= c->released_cap) return CACHE_NEVER; /* owner pops */
  const cache_fragment *f = &c->frag[c->frag_head];
  if (f->rob < 0) return f->ready;
  const cache_rob_entry *r = &c->rob[c->rob_head];
  return r->ready ? r->fill_time : CACHE_NEVER; /* else: the fill will call in */
}
