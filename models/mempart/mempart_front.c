/* mempart_front — the public functions of mempart.h: a partition is the variant chosen by
 * mempart_config.model ("ca": mempart.c, "at": mempart_at.c) behind the mempart_ops table. */
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "mempart_variant.h"

struct mempart {
  const mempart_ops *ops;
  void *impl;
};

simtvp_status mempart_create(const mempart_config *cfg, mempart **out, simtvp_diag *diag) {
  *out = NULL;
  if (!cfg) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "mempart_create: no configuration");
  const char *model = cfg->model && *cfg->model ? cfg->model : "ca";
  const mempart_ops *ops = !strcmp(model, "ca") ? &mempart_ca_ops : !strcmp(model, "at") ? &mempart_at_ops : NULL;
  if (!ops) {
    simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "-mempart_model: unknown memory partition model '%s' (models: %s)",
                    model, MEMPART_MODELS);
    simtvp_diag_at_option(diag, "-mempart_model");
    return SIMTVP_ERR_CONFIG;
  }
  if (!cfg->ports.reply || !cfg->ports.dram)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "mempart_create: partition %u needs both a reply and a DRAM port",
                           cfg->partition);
  if (cfg->n_sub == 0 || (cfg->n_sub & (cfg->n_sub - 1)) || cfg->n_sub > 64) {
    simtvp_diag_set(diag, SIMTVP_ERR_CONFIG,
                    "-gpgpu_n_sub_partition_per_mchannel: sub-partitions per channel must be a power of two from 1 to 64");
    simtvp_diag_at_option(diag, "-gpgpu_n_sub_partition_per_mchannel");
    return SIMTVP_ERR_CONFIG;
  }
  mempart *mp = calloc(1, sizeof *mp);
  if (!mp) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of host memory");
  mp->ops = ops;
  simtvp_status st = ops->create(cfg, &mp->impl, diag);
  if (st != SIMTVP_OK) {
    free(mp);
    return st;
  }
  *out = mp;
  return SIMTVP_OK;
}

void mempart_destroy(mempart *mp) {
  if (!mp) return;
  mp->ops->destroy(mp->impl);
  free(mp);
}

const char *mempart_model_name(const mempart *mp) { return mp->ops->name; }
bool mempart_is_timed(const mempart *mp) { return mp->ops->access_timed != NULL; }
bool mempart_can_accept(const mempart *mp, uint32_t sub, uint64_t now) { return mp->ops->can_accept(mp->impl, sub, now); }
bool mempart_push(mempart *mp, uint32_t sub, mem_req *req, uint64_t now) { return mp->ops->push(mp->impl, sub, req, now); }
bool mempart_dram_return(mempart *mp, mem_req *req, uint64_t now) { return mp->ops->dram_return(mp->impl, req, now); }
bool mempart_can_return(const mempart *mp, const mem_req *req) { return mp->ops->can_return(mp->impl, req); }
void mempart_reply_ready(mempart *mp, uint32_t sub, uint64_t now) { mp->ops->reply_ready(mp->impl, sub, now); }
void mempart_dram_ready(mempart *mp, uint64_t now) { mp->ops->dram_ready(mp->impl, now); }
void mempart_advance(mempart *mp, uint64_t now) { mp->ops->advance(mp->impl, now); }
uint64_t mempart_next_event(const mempart *mp) { return mp->ops->next_event(mp->impl); }
uint32_t mempart_flush_l2(mempart *mp, uint64_t now) { return mp->ops->flush_l2(mp->impl, now); }
uint32_t mempart_invalidate_l2(mempart *mp) { return mp->ops->invalidate_l2(mp->impl); }
uint64_t mempart_index_addr(const mempart *mp, uint64_t addr) { return mp->ops->index_addr(mp->impl, addr); }
const struct cache *mempart_l2(const mempart *mp, uint32_t sub) { return mp->ops->l2(mp->impl, sub); }
bool mempart_invalidate_l2_line(mempart *mp, uint32_t sub, uint64_t addr) {
  /* Every variant owns its slices as mutable caches; the ops table hands them out read-only for
   * inspection, and a coherence invalidation is the one change made from outside. */
  cache *c = (cache *)mp->ops->l2(mp->impl, sub);
  return c && cache_invalidate_line(c, addr);
}
void mempart_get_occupancy(const mempart *mp, uint32_t sub, mempart_occupancy *occ) {
  mp->ops->get_occupancy(mp->impl, sub, occ);
}
bool mempart_is_idle(const mempart *mp) { return mp->ops->is_idle(mp->impl); }
void mempart_get_stats(const mempart *mp, mempart_stats *out) { mp->ops->get_stats(mp->impl, out); }

mempart_timed_status mempart_access_timed(mempart *mp, uint32_t sub, mem_req *req, uint64_t now, uint64_t *reply_at) {
  return mp->ops->access_timed(mp->impl, sub, req, now, reply_at);
}
