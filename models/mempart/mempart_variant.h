/* mempart_variant — private to models/mempart: the ops table behind mempart.h that each fidelity
 * variant of the memory partition implements (ca: mempart.c, the queues of the manual stepped
 * cycle by cycle; at: mempart_at.c, service times computed at arrival). The public functions of
 * mempart.h dispatch through it; a caller never knows which variant it holds. */
#ifndef SIMTVP_MEMPART_VARIANT_H
#define SIMTVP_MEMPART_VARIANT_H

#include "mempart.h"

typedef struct mempart_ops {
  const char *name;
  simtvp_status (*create)(const mempart_config *cfg, void **impl, simtvp_diag *diag);
  void (*destroy)(void *impl);
  bool (*can_accept)(const void *impl, uint32_t sub, uint64_t now);
  bool (*push)(void *impl, uint32_t sub, mem_req *req, uint64_t now);
  bool (*dram_return)(void *impl, mem_req *req, uint64_t now);
  bool (*can_return)(const void *impl, const mem_req *req);
  void (*reply_ready)(void *impl, uint32_t sub, uint64_t now);
  void (*dram_ready)(void *impl, uint64_t now);
  void (*advance)(void *impl, uint64_t now);
  uint64_t (*next_event)(const void *impl);
  uint32_t (*flush_l2)(void *impl, uint64_t now);
  uint32_t (*invalidate_l2)(void *impl);
  uint64_t (*index_addr)(const void *impl, uint64_t addr);
  const struct cache *(*l2)(const void *impl, uint32_t sub);
  void (*get_occupancy)(const void *impl, uint32_t sub, mempart_occupancy *occ);
  bool (*is_idle)(const void *impl);
  void (*get_stats)(const void *impl, mempart_stats *out);
  /* NULL for variants that only work by events (ca) */
  mempart_timed_status (*access_timed)(void *impl, uint32_t sub, mem_req *req, uint64_t now, uint64_t *reply_at);
} mempart_ops;

/* Does r go around the L2 slice (no slice, a texture-only slice, or system memory the slices do
 * not cache)? The same rule in every variant. Slices that cache system memory (sysmem_in_l2: the
 * coherent system modes, docs/system-modes.md) cache it for reads only: writes and atomics to it
 * go through to the system, where the coherence directory sees them when they are performed (so a
 * fence's wait for their acknowledgement publishes them, and atomics are the system's). */
static inline bool mempart_bypasses_l2(const mempart_config *cfg, bool has_l2, const mem_req *r) {
  return !has_l2 || (cfg->l2_texture_only && r->kind != MEM_ACC_TEXTURE_R) ||
         (r->aperture == MEM_APERTURE_SYSMEM && (!cfg->sysmem_in_l2 || r->is_write || r->kind == MEM_ACC_ATOMIC));
}

/* A write or atomic that goes through to system memory leaves no stale copy in a slice that
 * caches system memory for reads: the slice drops its line (write-through, no allocate). */
static inline bool mempart_bypass_invalidates(const mempart_config *cfg, const mem_req *r) {
  return cfg->sysmem_in_l2 && r->aperture == MEM_APERTURE_SYSMEM && (r->is_write || r->kind == MEM_ACC_ATOMIC);
}

/* Hands r to the DRAM side: the hub for system memory when the partition has a sysmem port, else
 * the DRAM controller. false = refused (the caller keeps it until mempart_dram_ready). *to_dram
 * tells which (statistics count the DRAM controller's share). */
static inline bool mempart_send_down(const mempart_config *cfg, mem_req *r, uint64_t now, bool *to_dram) {
  *to_dram = !(r->aperture == MEM_APERTURE_SYSMEM && cfg->ports.sysmem);
  return *to_dram ? cfg->ports.dram(cfg->ports.ctx, r, now) : cfg->ports.sysmem(cfg->ports.ctx, r, now);
}

extern const mempart_ops mempart_ca_ops;
extern const mempart_ops mempart_at_ops;

#endif /* SIMTVP_MEMPART_VARIANT_H */
