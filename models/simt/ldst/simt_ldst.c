/* simt_ldst — the load/store unit of the cycle-accurate SIMT core (GPGPU-Sim 3.x manual §2.2,
 * "Memory pipeline (LDST unit)", and §3.3 caches, with the 4.x sector additions); see
 * simt_ldst.h for the contract and docs/simt-ldst.md for the manual.
 *
 * Structure. An issued instruction is turned at once into its work: shared-memory phases (a
 * conflict-degree cost) and a list of requests (coalesced blocks, one constant or texture line
 * each) with the path each takes (L1D, around it, L1C, L1T). It then sits in one of the
 * -gpgpu_mem_unit_ports dispatch slots until every request has been accepted, at most one per L1D
 * bank, one per constant / texture cache and one around the L1D per cycle; a reservation failure
 * or a refused send keeps it there and counts a stall. Loads and returning atomics keep an
 * in-flight record until every reply is back; stores complete when they leave the slot and are
 * counted in the warp's pending stores until acknowledged.
 *
 * Per cycle (simt_ldst_advance): one reply from the response buffer (a fill for a cache, or a
 * reply to one of the unit's own requests), replies the caches have ready, shared-memory data due,
 * one miss per cache miss queue out to the memory system, the dispatch slots oldest first, and
 * replies again (hits of this cycle when a cache's hit latency is 0). Nothing is done per idle
 * cycle: simt_ldst_next_event says when the next thing happens. */
#include "simt_ldst.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "ldst_coalesce.h"

/* owner_tag of the unit's own requests: acknowledgements of writes name the warp (the instruction
 * may be gone); data replies name the in-flight record. */
#define LDST_TAG_STORE (1ull << 63)
#define LDST_TAG(store, warp, insn) \
  (((store) ? LDST_TAG_STORE : 0ull) | ((uint64_t)((warp) & 0xffffu) << 32) | (uint64_t)(insn))
#define LDST_TAG_WARP(t) ((uint32_t)(((t) >> 32) & 0xffffu))
#define LDST_TAG_INSN(t) ((uint32_t)((t)&0xffffffffu))
/* a page-walk read of dispatch slot LDST_TAG_INSN(t) */
#define LDST_TAG_WALK (1ull << 62)

/* In-flight records per warp slot (loads and atomics waiting for data): a structural limit; the
 * unit refuses issue while the table is full. */
#define LDST_INSNS_PER_WARP 8u
#define LDST_MAX_PORTS 8

typedef enum ldst_stall {
  STALL_NONE = 0,
  STALL_GL_COAL,      /* more requests than this cycle's L1D / bypass slots */
  STALL_GL_BANK,      /* L1D bank already used this cycle (multi-bank L1D) */
  STALL_GL_DATA_PORT, /* L1D data port still busy with an earlier access */
  STALL_GL_RESOURCE,  /* L1D reservation failure or a refused send around the L1D */
  STALL_C_MEM,        /* constant: another line this cycle, L1C reservation failure, refusal */
  STALL_T_MEM,        /* texture: likewise */
  STALL_S_MEM         /* shared-memory pipeline busy with another slot's phases */
} ldst_stall;

typedef struct ldst_insn {
  uint64_t tag;
  uint32_t warp;
  uint32_t outstanding; /* replies (and shared-memory data) still awaited */
  int32_t next_free;
  bool live;
  bool accepted;        /* every request has left the dispatch slot */
} ldst_insn;

typedef struct ldst_slot {
  bool busy;
  uint64_t free_at;      /* when not busy: first cycle an instruction may be issued into it */
  uint64_t seq;          /* issue order: older slots go first */
  uint64_t ready_at;     /* next cycle this slot has work */
  int32_t insn;
  uint32_t warp;
  uint32_t smem_cycles;  /* shared-memory phases not started yet (0: none or started) */
  uint32_t smem_conflicts;
  bool smem_data;        /* the shared part returns data (loads, atomics) */
  uint16_t n_acc, next_acc;
  mem_req *held;         /* a request around the L1D the port refused: offered again */
  /* the L1D refused access fail_acc at fail_epoch (cache_state_epoch) for fail_reason: while the
   * epoch stays, a retry fails alike and is only counted (no request is built) */
  bool fail_memo;
  uint8_t fail_reason;
  uint16_t fail_acc;
  uint64_t fail_epoch;
  /* translation (GPU virtual memory): accesses below xl_done carry physical addresses */
  uint16_t xl_done;
  uint8_t xl_state;      /* XL_IDLE, XL_L2 (waiting for the L2 TLB until ready_at), XL_WALK */
  bool walk_waiting;     /* a walk read is out */
  uint8_t walk_next;     /* walk read to send next */
  uint64_t walk_start;
  uint64_t xl_entry;     /* the leaf the L2 TLB gave */
  uint8_t xl_bits;
  mmu_translation walk;
  ldst_access acc[LDST_MAX_ACCESSES];
} ldst_slot;

enum { XL_IDLE = 0, XL_L2, XL_WALK };

typedef struct ldst_event {
  uint64_t time;
  uint32_t insn;
} ldst_event;

typedef struct ldst_resp {
  mem_req *req;
  uint64_t at; /* cycle it arrived: handled from the next one */
} ldst_resp;

typedef struct ldst_stats {
  uint64_t *read_global, *write_global, *read_local, *write_local, *mem_const, *mem_texture,
      *atomic;
  uint64_t *shmem_bkconflict, *cache_bkconflict, *cmem_portconflict;
  uint64_t *stall, *stall_c_mem, *stall_s_mem, *stall_gl_resource, *stall_gl_coal,
      *stall_gl_data_port, *stall_t_mem;
  uint64_t *reply_refused;
  stats_histogram *smem_degree;
} ldst_stats;

enum { CACHE_L1D = 0, CACHE_L1C, CACHE_L1T, N_CACHES };

struct simt_ldst {
  simt_ldst_config cfg; /* cache strings are not kept */
  simt_ldst_ports ports;
  mem_req_pool *pool;
  bool own_pool;

  cache *caches[N_CACHES]; /* NULL when "none" */
  uint32_t l1d_block;      /* coalescing block for the L1D path (128, or a smaller L1D line) */
  uint32_t l1c_block, l1t_block;
  uint32_t l1d_banks, bank_bits;
  uint64_t *bank_used;     /* cycle + 1 each L1D bank was last used */
  uint64_t bypass_used, l1c_used, l1t_used; /* cycle + 1 of the last request on that path */
  uint64_t sent_at[N_CACHES]; /* cycle + 1 of the last miss-queue send attempt */
  /* A miss taken from a cache's miss queue that the port refused, offered again first. The
   * request is popped before it is offered: the receiver owns mem_req.next once it accepts (it
   * may queue or free the request inside send), so it must not be in the cache's list then. */
  mem_req *miss_held[N_CACHES];
  uint64_t stall_counted;  /* cycle + 1 gpgpu_n_stall_shd_mem was last bumped */
  uint64_t smem_free_at;   /* first cycle the shared-memory pipeline is free */
  uint64_t now;            /* last cycle advanced */

  ldst_slot *slots;
  uint32_t n_slots, busy_slots;
  uint64_t seq;

  ldst_insn *insns;
  uint32_t insn_cap, insn_live;
  int32_t insn_free;

  ldst_event *heap;
  uint32_t heap_n;

  ldst_resp *resp;
  uint32_t resp_cap, resp_head, resp_n;
  uint64_t resp_done; /* cycle + 1 of the last reply taken from the buffer */

  uint32_t *pending_stores;
  uint64_t pending_total;
  uint64_t *param_base;

  ldst_smem_geometry smem;
  uint16_t *bank_count;
  ldst_range ranges[LDST_MAX_RANGES];

  ldst_stats st;
  uint64_t sink; /* counters point here when there is no stats sink */

  /* translation (cfg.mmu.walk set) */
  mmu_tlb *l1_tlb;
  uint64_t *pdb;             /* per warp slot */
  uint64_t *tlb_walks, *tlb_walk_cycles, *tlb_l2_waits;
  uint64_t tlb_generation;   /* cfg.mmu.generation() when the L1 TLB was last in step */

  simtvp_status error;
  simtvp_diag error_diag;
};

static inline uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }
static inline uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* ---- errors --------------------------------------------------------------------------------- */

static simtvp_status config_error(simtvp_diag *diag, simtvp_status status, const char *option,
                                  const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char text[512];
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  simtvp_diag_set(diag, status, "simt_ldst: %s%s%s", option ? option : "", option ? ": " : "",
                  text);
  if (option) simtvp_diag_at_option(diag, option);
  return status;
}

/* Records the first bad input (later ones are dropped: the first is the cause). */
static void input_error(simt_ldst *u, simtvp_status status, uint32_t warp, const func_step *step,
                        const char *fmt, ...) {
  if (u->error != SIMTVP_OK) return;
  char text[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  simtvp_diag *d = &u->error_diag;
  if (step && step->insn && step->insn->ptx_line)
    simtvp_diag_set(d, status, "simt_ldst (SM %u): warp %u, pc %u (PTX line %u): %s", u->cfg.sm,
                    warp, step->pc, step->insn->ptx_line, text);
  else if (step)
    simtvp_diag_set(d, status, "simt_ldst (SM %u): warp %u, pc %u: %s", u->cfg.sm, warp,
                    step->pc, text);
  else
    simtvp_diag_set(d, status, "simt_ldst (SM %u): warp %u: %s", u->cfg.sm, warp, text);
  if (step) simtvp_diag_at_pc(d, step->pc);
  u->error = status;
}

simtvp_status simt_ldst_status(const simt_ldst *u, simtvp_diag *diag) {
  if (diag) {
    if (u->error != SIMTVP_OK) *diag = u->error_diag;
    else simtvp_diag_clear(diag);
  }
  return u->error;
}

/* ---- statistics ----------------------------------------------------------------------------- */

static uint64_t *counter(simt_ldst *u, const char *name, const char *unit, const char *desc) {
  if (!u->cfg.stats) return &u->sink;
  uint64_t *c = stats_counter(u->cfg.stats, name, unit, desc);
  return c ? c : &u->sink;
}

static void register_stats(simt_ldst *u) {
  ldst_stats *s = &u->st;
  s->read_global = counter(u, "gpgpu_n_mem_read_global", "requests",
                           "global-memory read requests leaving the LD/ST units");
  s->write_global = counter(u, "gpgpu_n_mem_write_global", "requests",
                            "global-memory write requests leaving the LD/ST units");
  s->read_local = counter(u, "gpgpu_n_mem_read_local", "requests",
                          "local-memory read requests leaving the LD/ST units");
  s->write_local = counter(u, "gpgpu_n_mem_write_local", "requests",
                           "local-memory write requests leaving the LD/ST units");
  s->mem_const = counter(u, "gpgpu_n_mem_const", "requests",
                         "constant-cache accesses (const and param space, one per line)");
  s->mem_texture = counter(u, "gpgpu_n_mem_texture", "requests",
                           "texture-cache accesses (one per line)");
  s->atomic = counter(u, "simt_ldst.atomic_requests", "requests",
                      "global atomic / reduction requests sent to the L2");
  s->shmem_bkconflict = counter(u, "gpgpu_n_shmem_bkconflict", "cycles",
                                "extra shared-memory cycles caused by bank conflicts");
  s->cache_bkconflict = counter(u, "gpgpu_n_cache_bkconflict", "events",
                                "L1D accesses deferred because their bank was busy");
  s->cmem_portconflict = counter(u, "gpgpu_n_cmem_portconflict", "events",
                                 "constant accesses deferred behind another line of the warp");
  s->stall = counter(u, "gpgpu_n_stall_shd_mem", "cycles",
                     "cycles the memory stage held an instruction it could not finish");
  s->stall_c_mem = counter(u, "gpgpu_stall_shd_mem[c_mem][resource_stall]", "cycles",
                           "memory-stage stalls: constant serialisation or L1C resources");
  s->stall_s_mem = counter(u, "gpgpu_stall_shd_mem[s_mem][bk_conf]", "cycles",
                           "memory-stage stalls: shared-memory bank conflicts");
  s->stall_gl_resource = counter(u, "gpgpu_stall_shd_mem[gl_mem][resource_stall]", "cycles",
                                 "memory-stage stalls: L1D reservation failures, refused sends");
  s->stall_gl_coal = counter(u, "gpgpu_stall_shd_mem[gl_mem][coal_stall]", "cycles",
                             "memory-stage stalls: more requests than one cycle takes");
  s->stall_gl_data_port = counter(u, "gpgpu_stall_shd_mem[gl_mem][data_port_stall]", "cycles",
                                  "memory-stage stalls: L1D bank conflicts, data port busy");
  s->stall_t_mem = counter(u, "gpgpu_stall_shd_mem[t_mem][resource_stall]", "cycles",
                           "memory-stage stalls: texture serialisation or L1T resources");
  s->reply_refused = counter(u, "simt_ldst.reply_refused", "replies",
                             "replies refused because the response buffer was full");
  s->smem_degree = NULL;
  if (u->cfg.stats)
    s->smem_degree = stats_histogram_register(
        u->cfg.stats, "simt_ldst.smem_conflict_degree", "degree",
        "worst shared-memory bank-conflict degree per instruction (1 = conflict-free)", 1, 33);
}

/* ---- creation ------------------------------------------------------------------------------- */

static bool pow2(uint64_t v) { return v && !(v & (v - 1)); }

static simtvp_status make_cache(simt_ldst *u, int which, const char *text, const char *option,
                                const char *group, const char *alias, uint32_t latency,
                                simtvp_diag *diag) {
  cache_config cc;
  memset(&cc, 0, sizeof cc);
  simtvp_status st = cache_spec_parse(text ? text : "none", option, &cc.spec, diag);
  if (st != SIMTVP_OK) return st;
  if (cc.spec.disabled) return SIMTVP_OK;
  char name[64];
  snprintf(name, sizeof name, "%s_cache_core[%u]", group, u->cfg.sm);
  cc.level = CACHE_LEVEL_L1;
  cc.hit_latency = latency;
  cc.n_banks = 0; /* the unit models the L1D banks itself (bank hashing, conflict counting) */
  cc.stats = u->cfg.stats;
  cc.name = name;
  cc.stats_group = group;
  cc.stats_total_alias = alias;
  cc.pool = u->pool;
  st = cache_create(&cc, &u->caches[which], diag);
  if (st != SIMTVP_OK) return st;
  /* coalescing block: the line, at most 128 bytes (masks are 128-byte-line relative) */
  uint32_t block = cc.spec.line_bytes < MEM_LINE_BYTES ? cc.spec.line_bytes : MEM_LINE_BYTES;
  if (which == CACHE_L1D) u->l1d_block = block;
  if (which == CACHE_L1C) u->l1c_block = block;
  if (which == CACHE_L1T) u->l1t_block = block;
  return SIMTVP_OK;
}

static simtvp_status check_config(const simt_ldst_config *c, simtvp_diag *diag) {
  if (c->warp_size < 1 || c->warp_size > FUNC_WARP_SIZE)
    return config_error(diag, SIMTVP_ERR_CONFIG, "-gpgpu_shader_core_pipeline",
                        "warp size %u: the unit handles 1 to %u threads per warp", c->warp_size,
                        FUNC_WARP_SIZE);
  if (c->max_warps < 1 || c->max_warps > 0xffffu)
    return config_error(diag, SIMTVP_ERR_CONFIG, "-gpgpu_shader_core_pipeline",
                        "%u warp slots: expected 1 to 65535", c->max_warps);
  if ((uint64_t)c->max_threads < (uint64_t)c->max_warps * c->warp_size)
    return config_error(diag, SIMTVP_ERR_CONFIG, "-gpgpu_shader_core_pipeline",
                        "%u thread slots cannot hold %u warps of %u threads (local-memory "
                        "interleaving needs a slot per thread)",
                        c->max_threads, c->max_warps, c->warp_size);
  if (c->smem_banks < 1 || c->smem_banks > 1024)
    return config_error(diag, SIMTVP_ERR_CONFIG, "-gpgpu_shmem_num_banks",
                        "%u banks: expected 1 to 1024", c->smem_banks);
  if (!pow2(c->smem_bank_bytes) || c->smem_bank_bytes < 4 || c->smem_bank_bytes > 64)
    return config_error(diag, SIMTVP_ERR_CONFIG, "-gpgpu_shmem_num_banks",
                        "bank width %u bytes: expected a power of two from 4 to 64",
                        c->smem_bank_bytes);
  if (c->smem_warp_parts < 1 || (uint32_t)c->smem_warp_parts > c->warp_size ||
      c->warp_size % (uint32_t)c->smem_warp_parts)
    return config_error(diag, SIMTVP_ERR_CONFIG, "-gpgpu_shmem_warp_parts",
                        "%d parts: expected a divisor of the warp size %u", c->smem_warp_parts,
                        c->warp_size);
  if (c->l1d_banks > 1024)
    return config_error(diag, SIMTVP_ERR_CONFIG, "-gpgpu_l1_banks", "%u banks: at most 1024",
                        c->l1d_banks);
  if (c->l1d_bank_interleave && !pow2(c->l1d_bank_interleave))
    return config_error(diag, SIMTVP_ERR_CONFIG, "-gpgpu_l1_banks_byte_interleaving",
                        "%u bytes: expected a power of two", c->l1d_bank_interleave);
  if (c->l1d_bank_hash > 1)
    return config_error(diag, SIMTVP_ERR_UNSUPPORTED, "-gpgpu_l1_banks_hashing_function",
                        "%u: supported are 0 (linear) and 1 (XOR fold)", c->l1d_bank_hash);
  if (c->l1d_bank_hash == 1 && c->l1d_banks > 1 && !pow2(c->l1d_banks))
    return config_error(diag, SIMTVP_ERR_CONFIG, "-gpgpu_l1_banks_hashing_function",
                        "the XOR bank hash needs a power-of-two number of banks, not %u",
                        c->l1d_banks);
  if (c->response_buffer < 1)
    return config_error(diag, SIMTVP_ERR_CONFIG, "-gpgpu_n_ldst_response_buffer_size",
                        "0 entries: the unit needs room for at least one reply");
  if (c->mem_unit_ports < 1 || c->mem_unit_ports > LDST_MAX_PORTS)
    return config_error(diag, SIMTVP_ERR_CONFIG, "-gpgpu_mem_unit_ports",
                        "%d: expected 1 to %d", c->mem_unit_ports, LDST_MAX_PORTS);
  return SIMTVP_OK;
}

simt_ldst *simt_ldst_create(const simt_ldst_config *config, simt_ldst_ports ports,
                            simtvp_diag *diag) {
  if (!config) {
    config_error(diag, SIMTVP_ERR_ARG, NULL, "simt_ldst_create: no configuration");
    return NULL;
  }
  if (check_config(config, diag) != SIMTVP_OK) return NULL;
  if (!ports.send || !ports.complete) {
    config_error(diag, SIMTVP_ERR_ARG, NULL, "simt_ldst_create: ports.send and ports.complete "
                                             "are required");
    return NULL;
  }
  simt_ldst *u = calloc(1, sizeof *u);
  if (!u) {
    config_error(diag, SIMTVP_ERR_NOMEM, NULL, "simt_ldst_create: out of memory");
    return NULL;
  }
  u->cfg = *config;
  u->cfg.l1d = u->cfg.l1c = u->cfg.l1t = NULL;
  u->ports = ports;
  u->pool = config->pool;
  if (!u->pool) {
    u->pool = mem_req_pool_create();
    u->own_pool = true;
  }
  u->n_slots = (uint32_t)config->mem_unit_ports;
  u->slots = calloc(u->n_slots, sizeof *u->slots);
  u->insn_cap = config->max_warps * LDST_INSNS_PER_WARP + u->n_slots;
  u->insns = calloc(u->insn_cap, sizeof *u->insns);
  u->heap = calloc(u->insn_cap, sizeof *u->heap);
  u->resp_cap = config->response_buffer;
  u->resp = calloc(u->resp_cap, sizeof *u->resp);
  u->pending_stores = calloc(config->max_warps, sizeof *u->pending_stores);
  u->param_base = calloc(config->max_warps, sizeof *u->param_base);
  u->bank_count = calloc(config->smem_banks, sizeof *u->bank_count);
  u->l1d_banks = config->l1d_banks ? config->l1d_banks : 1;
  u->bank_used = calloc(u->l1d_banks, sizeof *u->bank_used);
  if (!u->pool || !u->slots || !u->insns || !u->heap || !u->resp || !u->pending_stores ||
      !u->param_base || !u->bank_count || !u->bank_used) {
    simt_ldst_destroy(u);
    config_error(diag, SIMTVP_ERR_NOMEM, NULL, "simt_ldst_create: out of memory");
    return NULL;
  }
  while ((1u << u->bank_bits) < u->l1d_banks) u->bank_bits++;
  u->insn_free = -1;
  for (int32_t i = (int32_t)u->insn_cap - 1; i >= 0; i--) {
    u->insns[i].next_free = u->insn_free;
    u->insn_free = i;
  }
  for (uint32_t w = 0; w < config->max_warps; w++) u->param_base[w] = FUNC_WINDOW_PARAM;
  u->smem.banks = config->smem_banks;
  u->smem.bank_bytes = config->smem_bank_bytes;
  u->smem.warp_size = config->warp_size;
  u->smem.warp_parts = (uint32_t)config->smem_warp_parts;
  u->smem.limited_broadcast = config->smem_limited_broadcast;
  ldst_smem_geometry_init(&u->smem);
  u->l1d_block = u->l1c_block = u->l1t_block = MEM_LINE_BYTES;
  register_stats(u);
  if (config->mmu.walk) {
    mmu_tlb_config tc = {config->l1_tlb_entries, config->l1_tlb_assoc, "l1_tlb", config->stats, "-gpgpu_tlb_l1"};
    u->l1_tlb = mmu_tlb_create(&tc, diag);
    u->pdb = calloc(config->max_warps, sizeof *u->pdb);
    if (!u->l1_tlb || !u->pdb) {
      if (u->l1_tlb && diag) config_error(diag, SIMTVP_ERR_NOMEM, NULL, "simt_ldst_create: out of memory");
      simt_ldst_destroy(u);
      return NULL;
    }
    u->tlb_walks = counter(u, "tlb.walks", "walks", "page walks of L2 TLB misses (per-SM L1 TLB, shared L2 TLB)");
    u->tlb_walk_cycles = counter(u, "tlb.walk_cycles", "cycles",
                                 "core cycles from a walk's start to its leaf (all walks; / tlb.walks = latency)");
    u->tlb_l2_waits = counter(u, "tlb.l2_hit_waits", "accesses", "L1 TLB misses that hit the L2 TLB");
    if (config->stats) stats_ratio(config->stats, "tlb.walk_latency", "core cycles per page walk", "tlb.walk_cycles", "tlb.walks");
  }

  simtvp_status st = make_cache(u, CACHE_L1D, config->l1d, "-gpgpu_cache:dl1", "L1D", "dl1",
                                config->l1d_latency, diag);
  if (st == SIMTVP_OK)
    st = make_cache(u, CACHE_L1C, config->l1c, "-gpgpu_const_cache:l1", "L1C", NULL,
                    config->l1c_latency, diag);
  if (st == SIMTVP_OK)
    st = make_cache(u, CACHE_L1T, config->l1t, "-gpgpu_tex_cache:l1", "L1T", NULL,
                    config->l1t_latency, diag);
  if (st != SIMTVP_OK) {
    simt_ldst_destroy(u);
    return NULL;
  }
  /* pre-grow an owned pool to what the dispatch slots can have out at once */
  if (u->own_pool) mem_req_pool_reserve(u->pool, (size_t)u->n_slots * LDST_MAX_ACCESSES);
  return u;
}

void simt_ldst_destroy(simt_ldst *u) {
  if (!u) return;
  for (int i = 0; i < N_CACHES; i++) {
    if (u->miss_held[i]) mem_req_free(u->miss_held[i]);
    if (u->caches[i]) cache_destroy(u->caches[i]);
  }
  if (u->slots)
    for (uint32_t i = 0; i < u->n_slots; i++)
      if (u->slots[i].held) mem_req_free(u->slots[i].held);
  if (u->resp)
    for (uint32_t i = 0; i < u->resp_n; i++) mem_req_free(u->resp[(u->resp_head + i) % u->resp_cap].req);
  if (u->own_pool) mem_req_pool_destroy(u->pool);
  free(u->slots);
  free(u->insns);
  free(u->heap);
  free(u->resp);
  free(u->pending_stores);
  free(u->param_base);
  free(u->bank_count);
  free(u->bank_used);
  mmu_tlb_destroy(u->l1_tlb);
  free(u->pdb);
  free(u);
}

void simt_ldst_set_pdb(simt_ldst *u, uint32_t warp, uint64_t pdb) {
  if (warp >= u->cfg.max_warps) {
    input_error(u, SIMTVP_ERR_ARG, warp, NULL, "simt_ldst_set_pdb: warp slot out of range (the core has %u)",
                u->cfg.max_warps);
    return;
  }
  if (u->pdb) u->pdb[warp] = pdb;
}

uint32_t simt_ldst_tlb_invalidate(simt_ldst *u, uint64_t pdb, uint64_t va, uint64_t bytes) {
  return u->l1_tlb ? mmu_tlb_invalidate(u->l1_tlb, pdb, va, bytes) : 0;
}

void simt_ldst_set_param_base(simt_ldst *u, uint32_t warp, uint64_t base) {
  if (warp >= u->cfg.max_warps) {
    input_error(u, SIMTVP_ERR_ARG, warp, NULL,
                "simt_ldst_set_param_base: warp slot out of range (the core has %u)",
                u->cfg.max_warps);
    return;
  }
  u->param_base[warp] = base;
}

/* ---- in-flight records and timed events ------------------------------------------------------ */

static int32_t insn_alloc(simt_ldst *u) {
  int32_t i = u->insn_free;
  if (i < 0) return -1;
  u->insn_free = u->insns[i].next_free;
  u->insn_live++;
  return i;
}

static void insn_release(simt_ldst *u, int32_t i) {
  u->insns[i].live = false;
  u->insns[i].next_free = u->insn_free;
  u->insn_free = i;
  u->insn_live--;
}

/* Completes the instruction when nothing more is awaited. */
static void settle(simt_ldst *u, int32_t i, uint64_t now) {
  ldst_insn *in = &u->insns[i];
  if (!in->accepted || in->outstanding) return;
  uint32_t warp = in->warp;
  uint64_t tag = in->tag;
  insn_release(u, i);
  u->ports.complete(u->ports.ctx, warp, tag, now);
}

static void heap_push(simt_ldst *u, uint64_t time, uint32_t insn) {
  uint32_t i = u->heap_n++;
  while (i) {
    uint32_t p = (i - 1) / 2;
    /* ties by record index keep the order deterministic */
    if (u->heap[p].time < time || (u->heap[p].time == time && u->heap[p].insn <= insn)) break;
    u->heap[i] = u->heap[p];
    i = p;
  }
  u->heap[i].time = time;
  u->heap[i].insn = insn;
}

static ldst_event heap_pop(simt_ldst *u) {
  ldst_event top = u->heap[0];
  ldst_event last = u->heap[--u->heap_n];
  uint32_t i = 0;
  for (;;) {
    uint32_t c = 2 * i + 1;
    if (c >= u->heap_n) break;
    if (c + 1 < u->heap_n && (u->heap[c + 1].time < u->heap[c].time ||
                              (u->heap[c + 1].time == u->heap[c].time &&
                               u->heap[c + 1].insn < u->heap[c].insn)))
      c++;
    if (last.time < u->heap[c].time || (last.time == u->heap[c].time && last.insn <= u->heap[c].insn))
      break;
    u->heap[i] = u->heap[c];
    i = c;
  }
  if (u->heap_n) u->heap[i] = last;
  return top;
}

/* ---- issue ---------------------------------------------------------------------------------- */

static ldst_slot *free_slot(simt_ldst *u, uint64_t now) {
  for (uint32_t i = 0; i < u->n_slots; i++)
    if (!u->slots[i].busy && u->slots[i].free_at <= now) return &u->slots[i];
  return NULL;
}

bool simt_ldst_can_issue(const simt_ldst *u, uint64_t now) {
  if (u->insn_live >= u->insn_cap) return false;
  for (uint32_t i = 0; i < u->n_slots; i++)
    if (!u->slots[i].busy && u->slots[i].free_at <= now) return true;
  return false;
}

static uint32_t bank_of(const simt_ldst *u, uint64_t addr) {
  if (u->l1d_banks <= 1) return 0;
  uint32_t interleave = u->cfg.l1d_bank_interleave ? u->cfg.l1d_bank_interleave : MEM_SECTOR_BYTES;
  uint64_t idx = addr / interleave;
  if (u->cfg.l1d_bank_hash == 1) { /* fold the whole index onto the bank bits with XOR */
    uint64_t b = 0;
    for (; idx; idx >>= u->bank_bits) b ^= idx & (u->l1d_banks - 1);
    return (uint32_t)b;
  }
  return (uint32_t)(idx % u->l1d_banks);
}

/* Appends the requests of `mask` lanes in one space (ranges already in u->ranges[0..n)). */
static bool add_requests(simt_ldst *u, ldst_slot *s, uint32_t n_ranges, uint8_t kind, uint8_t path,
                         bool is_write, uint32_t word_bytes, bool gt200_rule) {
  uint32_t n = s->n_acc, first = n;
  bool ok;
  if (gt200_rule) {
    ok = ldst_coalesce_gt200(u->ranges, n_ranges, u->cfg.warp_size > 1 ? u->cfg.warp_size / 2 : 1,
                             word_bytes, s->acc, &n, LDST_MAX_ACCESSES);
  } else {
    uint32_t block = path == LDST_PATH_L1D   ? u->l1d_block
                     : path == LDST_PATH_L1C ? u->l1c_block
                     : path == LDST_PATH_L1T ? u->l1t_block
                                             : MEM_LINE_BYTES;
    ok = ldst_coalesce_blocks(u->ranges, n_ranges, block, s->acc, &n, LDST_MAX_ACCESSES);
  }
  for (uint32_t i = first; i < n; i++) {
    s->acc[i].kind = kind;
    s->acc[i].path = path;
    s->acc[i].is_write = is_write;
  }
  s->n_acc = (uint16_t)n;
  return ok;
}

static const char *space_name(uint32_t space) {
  return space < PTX_SPACE_COUNT ? ptx_space_name((ptx_space)space) : "?";
}

/* Builds the slot's work from the step; false (and a recorded error) for bad input. */
static bool build(simt_ldst *u, ldst_slot *s, uint32_t warp, const func_step *step) {
  uint32_t lanes = u->cfg.warp_size >= 32 ? 0xffffffffu : ((1u << u->cfg.warp_size) - 1);
  uint32_t mask = step->mem_mask & lanes;
  uint32_t bytes = step->access_bytes ? step->access_bytes : 4; /* tex records leave it 0 */
  bool atomic = step->is_atomic, load = step->is_load, store = step->is_store;
  if (!atomic && !load && !store) {
    input_error(u, SIMTVP_ERR_ARG, warp, step, "memory step is neither load, store nor atomic");
    return false;
  }
  if (bytes > LDST_MAX_LANE_BYTES) {
    input_error(u, SIMTVP_ERR_UNSUPPORTED, warp, step,
                "%u bytes per lane: the unit handles at most %u", bytes, LDST_MAX_LANE_BYTES);
    return false;
  }
  bool writes = atomic ? !load : store; /* reductions need only an acknowledgement */
  uint32_t smask = 0, lmask = 0, gmask = 0, cmask = 0, pmask = 0, tmask = 0;
  /* lanes by space: every lane in one space unless the access is generic */
  bool uniform = step->space != PTX_SPACE_GENERIC;
  for (uint32_t m = mask; m; m &= m - 1) {
    uint32_t lane = (uint32_t)__builtin_ctz(m);
    uint32_t sp = uniform ? step->space : step->lane_space[lane];
    uint32_t bits = uniform ? m : 1u << lane;
    switch (sp) {
      case PTX_SPACE_SHARED:
      case PTX_SPACE_SHARED_CLUSTER: smask |= bits; break;
      case PTX_SPACE_LOCAL: lmask |= bits; break;
      case PTX_SPACE_GLOBAL: gmask |= bits; break;
      case PTX_SPACE_CONST: cmask |= bits; break;
      case PTX_SPACE_PARAM: pmask |= bits; break;
      case PTX_SPACE_TEX: tmask |= bits; break;
      default:
        input_error(u, SIMTVP_ERR_ARG, warp, step, "lane %u accesses the %s space, which is not "
                    "memory the unit can time", lane, space_name(sp));
        return false;
    }
    if (uniform) break; /* m (every remaining lane) is classified */
  }
  if ((cmask | pmask | tmask) && (store || atomic)) {
    input_error(u, SIMTVP_ERR_ARG, warp, step, "%s to the read-only %s space",
                atomic ? "atomic" : "store", cmask ? "const" : pmask ? "param" : "texture");
    return false;
  }
  bool gt200 = u->cfg.coalesce_arch == 13;
  uint32_t n;

  if (smask) {
    ldst_smem_cost cost;
    ldst_smem_cost_of(&u->smem, smask, step->addr, bytes, atomic, u->bank_count, &cost);
    s->smem_cycles = cost.cycles;
    s->smem_conflicts = cost.cycles - cost.phases;
    s->smem_data = load;
    *u->st.shmem_bkconflict += s->smem_conflicts;
    if (u->st.smem_degree) stats_histogram_add(u->st.smem_degree, cost.degree);
  }
  if (lmask) {
    n = 0;
    for (uint32_t m = lmask; m; m &= m - 1) {
      uint32_t lane = (uint32_t)__builtin_ctz(m);
      n = ldst_local_ranges(u->cfg.local_base, u->cfg.max_threads, warp * u->cfg.warp_size + lane,
                            lane, step->addr[lane], bytes, u->ranges, n, LDST_MAX_RANGES);
    }
    uint8_t kind = atomic ? MEM_ACC_ATOMIC : store ? MEM_ACC_LOCAL_W : MEM_ACC_LOCAL_R;
    uint8_t path = (atomic || !u->caches[CACHE_L1D]) ? LDST_PATH_BYPASS : LDST_PATH_L1D;
    if (!add_requests(u, s, n, kind, path, writes, bytes < 4 ? bytes : 4, gt200)) goto overflow;
  }
  if (gmask) {
    n = 0;
    for (uint32_t m = gmask; m; m &= m - 1) {
      uint32_t lane = (uint32_t)__builtin_ctz(m);
      u->ranges[n].addr = step->addr[lane];
      u->ranges[n].bytes = bytes;
      u->ranges[n].lane = lane;
      n++;
    }
    /* loads the L1D must not serve (ldst_load_bypasses_l1) go to the L2 only */
    bool l2_only = load && !atomic && ldst_load_bypasses_l1(step->insn);
    uint8_t kind = atomic ? MEM_ACC_ATOMIC : store ? MEM_ACC_GLOBAL_W : MEM_ACC_GLOBAL_R;
    uint8_t path = (atomic || !u->caches[CACHE_L1D] || u->cfg.gmem_skip_l1d || l2_only)
                       ? LDST_PATH_BYPASS
                       : LDST_PATH_L1D;
    if (!add_requests(u, s, n, kind, path, writes, bytes, gt200)) goto overflow;
  }
  if (cmask | pmask) {
    n = 0;
    for (uint32_t m = cmask | pmask; m; m &= m - 1) {
      uint32_t lane = (uint32_t)__builtin_ctz(m);
      bool param = (pmask >> lane) & 1u;
      u->ranges[n].addr = param ? u->param_base[warp] + step->addr[lane] : step->addr[lane];
      u->ranges[n].bytes = bytes;
      u->ranges[n].lane = lane;
      n++;
    }
    uint8_t path = u->caches[CACHE_L1C] ? LDST_PATH_L1C : LDST_PATH_BYPASS;
    if (!add_requests(u, s, n, MEM_ACC_CONST_R, path, false, bytes, false)) goto overflow;
  }
  if (tmask) {
    n = 0;
    for (uint32_t m = tmask; m; m &= m - 1) {
      uint32_t lane = (uint32_t)__builtin_ctz(m);
      u->ranges[n].addr = step->addr[lane];
      u->ranges[n].bytes = bytes;
      u->ranges[n].lane = lane;
      n++;
    }
    uint8_t path = u->caches[CACHE_L1T] ? LDST_PATH_L1T : LDST_PATH_BYPASS;
    if (!add_requests(u, s, n, MEM_ACC_TEXTURE_R, path, false, bytes, false)) goto overflow;
  }
  return true;
overflow:
  input_error(u, SIMTVP_ERR_LIMIT, warp, step, "more than %u requests for one instruction",
              LDST_MAX_ACCESSES);
  s->n_acc = 0;
  s->smem_cycles = 0;
  return false;
}

void simt_ldst_issue(simt_ldst *u, uint32_t warp, const func_step *step, uint64_t tag,
                     uint64_t now) {
  ldst_slot *s = free_slot(u, now);
  int32_t ii = s ? insn_alloc(u) : -1;
  if (ii < 0) {
    input_error(u, SIMTVP_ERR_STATE, warp, step,
                "issued while the unit could not accept it (simt_ldst_can_issue was false at "
                "cycle %" PRIu64 "): dropped",
                now);
    return;
  }
  ldst_insn *in = &u->insns[ii];
  in->tag = tag;
  in->warp = warp;
  in->outstanding = 0;
  in->live = true;
  in->accepted = false;
  s->busy = true;
  s->seq = u->seq++;
  s->ready_at = now + 1;
  s->insn = ii;
  s->warp = warp;
  s->smem_cycles = s->smem_conflicts = 0;
  s->smem_data = false;
  s->n_acc = s->next_acc = 0;
  s->held = NULL;
  s->fail_memo = false;
  s->xl_done = 0;
  s->xl_state = XL_IDLE;
  s->walk_waiting = false;
  u->busy_slots++;
  if (!step) {
    input_error(u, SIMTVP_ERR_ARG, warp, NULL, "issued without a step record");
  } else if (step->kind != FUNC_STEP_MEM) {
    input_error(u, SIMTVP_ERR_ARG, warp, step, "not a memory instruction (step kind %u)",
                (unsigned)step->kind);
  } else if (warp >= u->cfg.max_warps) {
    input_error(u, SIMTVP_ERR_ARG, warp, step, "warp slot out of range (the core has %u)",
                u->cfg.max_warps);
  } else {
    build(u, s, warp, step);
  }
  /* bad input leaves the slot empty: the instruction passes the stage and completes */
}

/* ---- the dispatch stage --------------------------------------------------------------------- */

static void count_sent(simt_ldst *u, const ldst_access *a) {
  switch (a->kind) {
    case MEM_ACC_GLOBAL_R: ++*u->st.read_global; break;
    case MEM_ACC_GLOBAL_W: ++*u->st.write_global; break;
    case MEM_ACC_LOCAL_R: ++*u->st.read_local; break;
    case MEM_ACC_LOCAL_W: ++*u->st.write_local; break;
    case MEM_ACC_CONST_R: ++*u->st.mem_const; break;
    case MEM_ACC_TEXTURE_R: ++*u->st.mem_texture; break;
    case MEM_ACC_ATOMIC: ++*u->st.atomic; break;
    default: break;
  }
}

static mem_req *make_req(simt_ldst *u, const ldst_slot *s, const ldst_access *a) {
  mem_req *r = mem_req_alloc(u->pool);
  if (!r) return NULL;
  r->addr = a->addr;
  r->size = a->size;
  r->kind = a->kind;
  r->is_write = a->is_write;
  r->needs_reply = true; /* reads want data; writes an acknowledgement so warps can finish */
  r->sector_mask = a->sector_mask;
  r->byte_mask[0] = a->byte_mask[0];
  r->byte_mask[1] = a->byte_mask[1];
  r->n_ops = a->kind == MEM_ACC_ATOMIC ? a->lanes : 0;
  r->sm = (uint16_t)u->cfg.sm;
  r->cluster = (uint16_t)u->cfg.cluster;
  r->warp = (uint16_t)s->warp;
  r->owner_ctx = u;
  r->owner_tag = LDST_TAG(a->is_write, s->warp, (uint32_t)s->insn);
  return r;
}

/* The request left the slot: count it and note what will come back. */
static void accepted(simt_ldst *u, ldst_slot *s, const ldst_access *a) {
  count_sent(u, a);
  if (a->is_write) {
    u->pending_stores[s->warp]++;
    u->pending_total++;
  } else {
    u->insns[s->insn].outstanding++;
  }
}

static const char *const cache_option[N_CACHES] = {"-gpgpu_cache:dl1", "-gpgpu_const_cache:l1",
                                                   "-gpgpu_tex_cache:l1"};

/* A reservation failure on a cache that holds nothing can only repeat forever (e.g. a miss queue
 * too short for a write-allocate miss with its forwarded write and a victim's write-back): report
 * the configuration and let the access go without traffic instead of hanging the core. */
static bool never_fits(simt_ldst *u, int k, const ldst_slot *s, const ldst_access *a,
                       const cache_outcome *o) {
  if (u->miss_held[k] || !cache_is_idle(u->caches[k])) return false;
  if (u->error == SIMTVP_OK) {
    input_error(u, SIMTVP_ERR_CONFIG, s->warp, NULL,
                "%s: the %s access to 0x%" PRIx64 " fails reservation (%s) on an empty cache: "
                "this configuration can never accept it (a larger miss queue or MSHR is needed)",
                cache_option[k], mem_access_kind_name((mem_access_kind)a->kind), a->addr,
                cache_fail_reason_name(o->reason));
    simtvp_diag_at_option(&u->error_diag, cache_option[k]);
  }
  return true;
}

/* Debug builds (SIMTVP_CHECK_MEMOS, on for CMAKE_BUILD_TYPE=Debug): where fail_memo answers for
 * the L1D (a retry at an unchanged cache epoch, or cycles a parked slot is not simulated), one
 * real access is made instead of counting a failure, and it must fail for the same reason — a
 * cache_state_epoch bump missing somewhere shows up in the Debug test suite. The statistics are
 * the same either way (cache_count_reservation_fail counts what a failing access counts). */
#ifdef SIMTVP_CHECK_MEMOS
static bool memo_recheck(simt_ldst *u, ldst_slot *s, const ldst_access *a, uint64_t now) {
  mem_req *r = make_req(u, s, a);
  if (!r) return false;
  cache_outcome o;
  cache_status st = cache_access(u->caches[CACHE_L1D], r, now, &o);
  if (st != CACHE_RESERVATION_FAIL || o.reason != s->fail_reason) {
    fprintf(stderr, "simt_ldst: the fail_memo is out of date: the L1D %s at cycle %" PRIu64 " (%s:%d)\n",
            st == CACHE_RESERVATION_FAIL ? "fails for another reason" : "takes the access", now, __FILE__,
            __LINE__);
    abort();
  }
  mem_req_free(r);
  return true;
}
#endif

static ldst_stall try_access(simt_ldst *u, ldst_slot *s, const ldst_access *a, uint64_t now) {
  uint64_t mark = now + 1;
  switch (a->path) {
    case LDST_PATH_L1D: {
      cache *c = u->caches[CACHE_L1D];
      uint32_t b = bank_of(u, a->addr);
      if (u->bank_used[b] == mark) {
        if (u->l1d_banks <= 1) return STALL_GL_COAL;
        ++*u->st.cache_bkconflict;
        return STALL_GL_BANK;
      }
      if (u->l1d_banks <= 1 && !cache_data_port_free(c, now)) return STALL_GL_DATA_PORT;
      cache_outcome o;
      if (s->fail_memo && s->fail_acc == s->next_acc && s->fail_epoch == cache_state_epoch(c)) {
        /* nothing changed in the cache since this access failed: it fails alike */
#ifdef SIMTVP_CHECK_MEMOS
        if (!memo_recheck(u, s, a, now))
#endif
          cache_count_reservation_fail(c, a->kind, (cache_fail_reason)s->fail_reason, now, 1);
        memset(&o, 0, sizeof o);
        o.status = CACHE_RESERVATION_FAIL;
        o.reason = (cache_fail_reason)s->fail_reason;
        return never_fits(u, CACHE_L1D, s, a, &o) ? STALL_NONE : STALL_GL_RESOURCE;
      }
      mem_req *r = make_req(u, s, a);
      if (!r) return STALL_GL_RESOURCE;
      if (cache_access(c, r, now, &o) == CACHE_RESERVATION_FAIL) {
        mem_req_free(r);
        s->fail_memo = true;
        s->fail_acc = s->next_acc;
        s->fail_epoch = cache_state_epoch(c);
        s->fail_reason = (uint8_t)o.reason;
        return never_fits(u, CACHE_L1D, s, a, &o) ? STALL_NONE : STALL_GL_RESOURCE;
      }
      u->bank_used[b] = mark;
      break;
    }
    case LDST_PATH_L1C:
    case LDST_PATH_L1T: {
      bool tex = a->path == LDST_PATH_L1T;
      uint64_t *used = tex ? &u->l1t_used : &u->l1c_used;
      if (*used == mark) {
        if (!tex) ++*u->st.cmem_portconflict;
        return tex ? STALL_T_MEM : STALL_C_MEM;
      }
      mem_req *r = make_req(u, s, a);
      if (!r) return tex ? STALL_T_MEM : STALL_C_MEM;
      int k = tex ? CACHE_L1T : CACHE_L1C;
      cache_outcome o;
      if (cache_access(u->caches[k], r, now, &o) == CACHE_RESERVATION_FAIL) {
        mem_req_free(r);
        if (never_fits(u, k, s, a, &o)) return STALL_NONE;
        return tex ? STALL_T_MEM : STALL_C_MEM;
      }
      *used = mark;
      break;
    }
    case LDST_PATH_BYPASS:
    default: {
      ldst_stall busy = a->kind == MEM_ACC_CONST_R     ? STALL_C_MEM
                        : a->kind == MEM_ACC_TEXTURE_R ? STALL_T_MEM
                                                       : STALL_GL_COAL;
      if (u->bypass_used == mark) return busy;
      mem_req *r = s->held ? s->held : make_req(u, s, a);
      if (!r) return busy == STALL_GL_COAL ? STALL_GL_RESOURCE : busy;
      u->bypass_used = mark; /* one offer per cycle, taken or not */
      if (!u->ports.send(u->ports.ctx, r, now)) {
        s->held = r;
        return busy == STALL_GL_COAL ? STALL_GL_RESOURCE : busy;
      }
      s->held = NULL;
      break;
    }
  }
  accepted(u, s, a);
  return STALL_NONE;
}

static void count_stall(simt_ldst *u, ldst_stall why, uint64_t now) {
  if (u->stall_counted != now + 1) {
    u->stall_counted = now + 1;
    ++*u->st.stall;
  }
  switch (why) {
    case STALL_GL_COAL: ++*u->st.stall_gl_coal; break;
    case STALL_GL_BANK:
    case STALL_GL_DATA_PORT: ++*u->st.stall_gl_data_port; break;
    case STALL_GL_RESOURCE: ++*u->st.stall_gl_resource; break;
    case STALL_C_MEM: ++*u->st.stall_c_mem; break;
    case STALL_T_MEM: ++*u->st.stall_t_mem; break;
    case STALL_S_MEM: ++*u->st.stall_s_mem; break;
    case STALL_NONE: break;
  }
}

static void release_slot(simt_ldst *u, ldst_slot *s, uint64_t now) {
  s->busy = false;
  s->free_at = now;
  u->busy_slots--;
  u->insns[s->insn].accepted = true;
  settle(u, s->insn, now);
}

/* ---- translation (GPU virtual memory) ------------------------------------------------------- */

static bool needs_translation(const simt_ldst *u, const ldst_slot *s, const ldst_access *a) {
  if (!u->l1_tlb || !mmu_pte_valid(u->pdb[s->warp])) return false;
  return a->kind == MEM_ACC_GLOBAL_R || a->kind == MEM_ACC_GLOBAL_W || a->kind == MEM_ACC_ATOMIC;
}

/* The access now carries its physical address (VIDMEM pages; SYSMEM ones keep the virtual one). */
static void apply_translation(ldst_slot *s, uint64_t leaf, uint8_t page_bits) {
  ldst_access *a = &s->acc[s->next_acc];
  if (mmu_pte_aperture(leaf) == MMU_APERTURE_VIDMEM) {
    uint64_t off = (1ull << page_bits) - 1;
    a->addr = (mmu_pte_addr(leaf) & ~off) | (a->addr & off);
  }
  s->xl_done = (uint16_t)(s->next_acc + 1);
  s->xl_state = XL_IDLE;
}

/* Sends the slot's next walk read (one offer per cycle on the path around the L1D). */
static void walk_send(simt_ldst *u, ldst_slot *s, uint64_t now) {
  if (u->bypass_used == now + 1) {
    s->ready_at = now + 1;
    return;
  }
  u->bypass_used = now + 1;
  mem_req *r = mem_req_alloc(u->pool);
  if (r) {
    uint64_t ea = s->walk.read_addr[s->walk_next];
    uint32_t off = (uint32_t)(ea & (MEM_LINE_BYTES - 1));
    r->addr = ea & ~31ull;
    r->size = 32;
    r->kind = MEM_ACC_GLOBAL_R;
    r->is_write = false;
    r->needs_reply = true;
    r->sector_mask = (uint8_t)(1u << (off / 32));
    r->byte_mask[0] = r->byte_mask[1] = 0;
    r->byte_mask[off / 64] = 0xffull << (off % 64);
    r->sm = (uint16_t)u->cfg.sm;
    r->cluster = (uint16_t)u->cfg.cluster;
    r->warp = (uint16_t)s->warp;
    r->owner_ctx = u;
    r->owner_tag = LDST_TAG_WALK | (uint64_t)(s - u->slots);
    if (u->ports.send(u->ports.ctx, r, now)) {
      s->walk_waiting = true;
      s->ready_at = SIMT_LDST_NEVER; /* the reply wakes the slot */
      return;
    }
    mem_req_free(r);
  }
  s->ready_at = now + 1;
}

/* Translates the slot's next access; false = it waits (ready_at says until when). */
static bool translate(simt_ldst *u, ldst_slot *s, uint64_t now) {
  ldst_access *a = &s->acc[s->next_acc];
  if (!needs_translation(u, s, a)) {
    s->xl_done = (uint16_t)(s->next_acc + 1);
    return true;
  }
  uint64_t pdb = u->pdb[s->warp];
  if (u->cfg.mmu.generation) {
    uint64_t g = u->cfg.mmu.generation(u->cfg.mmu.ctx);
    if (g != u->tlb_generation) {
      mmu_tlb_invalidate(u->l1_tlb, 0, 0, 0);
      u->tlb_generation = g;
    }
  }
  switch (s->xl_state) {
    case XL_L2: /* the L2 TLB's answer arrived */
      apply_translation(s, s->xl_entry, s->xl_bits);
      return true;
    case XL_WALK:
      if (!s->walk_waiting) walk_send(u, s, now);
      return false;
    default: break;
  }
  mmu_tlb_hit hit;
  if (mmu_tlb_lookup(u->l1_tlb, pdb, a->addr, &hit)) {
    apply_translation(s, hit.entry, hit.page_bits);
    return true;
  }
  if (u->cfg.l2_tlb && mmu_tlb_lookup(u->cfg.l2_tlb, pdb, a->addr, &hit)) {
    ++*u->tlb_l2_waits;
    mmu_tlb_fill(u->l1_tlb, pdb, a->addr, hit.page_bits, hit.entry);
    if (!u->cfg.l2_tlb_latency) {
      apply_translation(s, hit.entry, hit.page_bits);
      return true;
    }
    s->xl_entry = hit.entry;
    s->xl_bits = hit.page_bits;
    s->xl_state = XL_L2;
    s->ready_at = now + u->cfg.l2_tlb_latency;
    return false;
  }
  /* a page walk: the entries' addresses from the tables, their reads timed through memory */
  if (u->cfg.mmu.walk(u->cfg.mmu.ctx, pdb, a->addr, &s->walk) != MMU_FAULT_NONE || !s->walk.n_reads) {
    /* the functional engine reports faults; timing lets the access pass untranslated */
    s->xl_done = (uint16_t)(s->next_acc + 1);
    return true;
  }
  ++*u->tlb_walks;
  s->xl_state = XL_WALK;
  s->walk_next = 0;
  s->walk_waiting = false;
  s->walk_start = now;
  walk_send(u, s, now);
  return false;
}

/* A walk read came back: the next one, or the leaf fills the TLBs and the access goes on. */
static void walk_reply(simt_ldst *u, mem_req *r, uint64_t now) {
  uint32_t i = LDST_TAG_INSN(r->owner_tag);
  mem_req_free(r);
  ldst_slot *s = i < u->n_slots ? &u->slots[i] : NULL;
  if (!s || !s->busy || s->xl_state != XL_WALK || !s->walk_waiting) {
    input_error(u, SIMTVP_ERR_STATE, s ? s->warp : 0, NULL, "page-walk reply for dispatch slot %u, which is not walking", i);
    return;
  }
  s->walk_waiting = false;
  s->ready_at = now;
  if (++s->walk_next < s->walk.n_reads) return; /* the slot sends the next read this cycle */
  uint64_t pdb = u->pdb[s->warp], va = s->acc[s->next_acc].addr;
  if (u->cfg.l2_tlb) mmu_tlb_fill(u->cfg.l2_tlb, pdb, va, s->walk.page_bits, s->walk.entry);
  mmu_tlb_fill(u->l1_tlb, pdb, va, s->walk.page_bits, s->walk.entry);
  *u->tlb_walk_cycles += now - s->walk_start;
  apply_translation(s, s->walk.entry, s->walk.page_bits);
}

/* One cycle of one dispatch slot. */
static void slot_cycle(simt_ldst *u, ldst_slot *s, uint64_t now) {
  if (s->smem_cycles) {
    if (u->smem_free_at > now) { /* another slot's phases hold the shared-memory pipeline */
      count_stall(u, STALL_S_MEM, now);
      s->ready_at = u->smem_free_at;
      return;
    }
    uint64_t end = now + s->smem_cycles - 1;
    u->smem_free_at = end + 1;
    if (s->smem_conflicts) { /* the conflict cycles stall the stage: counted now, once */
      *u->st.stall += s->smem_conflicts;
      *u->st.stall_s_mem += s->smem_conflicts;
    }
    if (s->smem_data) { /* data smem_latency cycles after the last phase */
      u->insns[s->insn].outstanding++;
      heap_push(u, end + u->cfg.smem_latency, (uint32_t)s->insn);
    }
    s->smem_cycles = 0;
    if (end > now) {
      s->ready_at = end;
      return;
    }
  }
  while (s->next_acc < s->n_acc) {
    if (s->next_acc >= s->xl_done && !translate(u, s, now)) return;
    ldst_stall why = try_access(u, s, &s->acc[s->next_acc], now);
    if (why != STALL_NONE) {
      count_stall(u, why, now);
      s->ready_at = now + 1;
      return;
    }
    s->next_acc++;
  }
  release_slot(u, s, now);
}

/* ---- replies -------------------------------------------------------------------------------- */

/* A reply to one of the unit's own requests (data, or the acknowledgement of a write). */
static void own_reply(simt_ldst *u, mem_req *r, uint64_t now) {
  uint64_t t = r->owner_tag;
  if (t & LDST_TAG_WALK) {
    walk_reply(u, r, now);
    return;
  }
  if (t & LDST_TAG_STORE) {
    uint32_t w = LDST_TAG_WARP(t);
    if (w < u->cfg.max_warps && u->pending_stores[w]) {
      u->pending_stores[w]--;
      u->pending_total--;
    } else {
      input_error(u, SIMTVP_ERR_STATE, w, NULL,
                  "acknowledgement of request %" PRIu64 " (address 0x%" PRIx64
                  ") for a warp with no pending store",
                  r->id, r->addr);
    }
    mem_req_free(r);
    return;
  }
  uint32_t i = LDST_TAG_INSN(t);
  if (i >= u->insn_cap || !u->insns[i].live || !u->insns[i].outstanding) {
    input_error(u, SIMTVP_ERR_STATE, LDST_TAG_WARP(t), NULL,
                "reply to request %" PRIu64 " (address 0x%" PRIx64
                ") matches no instruction waiting for data",
                r->id, r->addr);
    mem_req_free(r);
    return;
  }
  mem_req_free(r);
  u->insns[i].outstanding--;
  settle(u, (int32_t)i, now);
}

static void drain_cache_replies(simt_ldst *u, uint64_t now) {
  for (int k = 0; k < N_CACHES; k++) {
    cache *c = u->caches[k];
    if (!c) continue;
    mem_req *r;
    while ((r = cache_reply_pop(c, now))) own_reply(u, r, now);
  }
}

bool simt_ldst_reply(simt_ldst *u, mem_req *reply, uint64_t now) {
  if (u->resp_n == u->resp_cap) {
    ++*u->st.reply_refused;
    return false;
  }
  ldst_resp *e = &u->resp[(u->resp_head + u->resp_n) % u->resp_cap];
  e->req = reply;
  e->at = now;
  u->resp_n++;
  return true;
}

/* One reply from the response buffer per cycle, once its cycle has passed. */
static void process_response(simt_ldst *u, uint64_t now) {
  if (!u->resp_n || u->resp_done == now + 1) return;
  ldst_resp *e = &u->resp[u->resp_head];
  if (e->at >= now) return;
  mem_req *r = e->req;
  cache *c = NULL;
  for (int k = 0; k < N_CACHES; k++)
    if (u->caches[k] && r->owner_ctx == (void *)u->caches[k]) c = u->caches[k];
  if (c && !cache_fill_port_free(c, now)) return; /* the fill waits for the port */
  u->resp_head = (u->resp_head + 1) % u->resp_cap;
  u->resp_n--;
  u->resp_done = now + 1;
  if (!r->is_reply) {
    input_error(u, SIMTVP_ERR_ARG, r->warp, NULL,
                "request %" PRIu64 " (address 0x%" PRIx64 ") handed back without is_reply", r->id,
                r->addr);
  }
  if (r->owner_ctx == (void *)u) {
    own_reply(u, r, now);
  } else if (c) {
    if (!cache_fill(c, r, now)) {
      input_error(u, SIMTVP_ERR_STATE, r->warp, NULL,
                  "the cache did not take reply %" PRIu64 " (address 0x%" PRIx64 ")", r->id,
                  r->addr);
      mem_req_free(r);
    }
  } else {
    input_error(u, SIMTVP_ERR_ARG, r->warp, NULL,
                "reply %" PRIu64 " (address 0x%" PRIx64 ", %s) is not addressed to this unit",
                r->id, r->addr, mem_access_kind_name((mem_access_kind)r->kind));
    mem_req_free(r);
  }
}

/* ---- time ----------------------------------------------------------------------------------- */

/* A slot parked on the L1D: its next access failed reservation at a cache epoch that has not
 * changed (and the cache is not idle, so the failure is not a configuration error), so in every
 * cycle until something happens in the unit it would fail alike. Such cycles are not simulated:
 * simt_ldst_next_event ignores the slot, and the next advance counts them (park_account). The
 * cache's epoch only changes through the unit's own work (fills, misses sent, other accesses),
 * which simt_ldst_next_event sees. */
static bool parked(const simt_ldst *u, const ldst_slot *s) {
  if (!s->busy || s->smem_cycles || !s->fail_memo || s->next_acc >= s->n_acc || s->fail_acc != s->next_acc ||
      s->acc[s->next_acc].path != LDST_PATH_L1D)
    return false;
  const cache *c = u->caches[CACHE_L1D];
  return s->fail_epoch == cache_state_epoch(c) && (u->miss_held[CACHE_L1D] || !cache_is_idle(c));
}

/* Cycles [from, to) not simulated: each parked slot retried its access in each of them (the
 * statistics of try_access and count_stall for those retries). */
static void park_account(simt_ldst *u, uint64_t from, uint64_t to) {
  if (to <= from || !u->busy_slots) return;
  uint64_t n = to - from;
  bool any = false;
  for (uint32_t i = 0; i < u->n_slots; i++) {
    ldst_slot *s = &u->slots[i];
    if (!parked(u, s)) continue;
    any = true;
    cache *c = u->caches[CACHE_L1D];
    uint64_t port = 0; /* cycles the data port was still busy (a one-bank L1D checks it first) */
    if (u->l1d_banks <= 1) {
      uint64_t free = cache_data_port_free_from(c);
      port = free <= from ? 0 : free >= to ? n : free - from;
    }
    *u->st.stall_gl_data_port += port;
    *u->st.stall_gl_resource += n - port;
    uint64_t fails = n - port;
#ifdef SIMTVP_CHECK_MEMOS
    bool recheck = fails > 0; /* the last cycle's retry, made for real */
    fails -= recheck;
#endif
    if (fails)
      cache_count_reservation_fail(c, s->acc[s->next_acc].kind, (cache_fail_reason)s->fail_reason, to - 1,
                                   fails);
#ifdef SIMTVP_CHECK_MEMOS
    if (recheck && !memo_recheck(u, s, &s->acc[s->next_acc], to - 1))
      cache_count_reservation_fail(c, s->acc[s->next_acc].kind, (cache_fail_reason)s->fail_reason, to - 1, 1);
#endif
  }
  if (any) {
    *u->st.stall += n; /* gpgpu_n_stall_shd_mem: once per cycle */
    u->stall_counted = to;
  }
}

/* Shared-memory data whose time has come. */
static void due_events(simt_ldst *u, uint64_t now) {
  while (u->heap_n && u->heap[0].time <= now) {
    ldst_event e = heap_pop(u);
    u->insns[e.insn].outstanding--;
    settle(u, (int32_t)e.insn, now);
  }
}

void simt_ldst_advance(simt_ldst *u, uint64_t now) {
  if (now < u->now) return; /* time never goes back */
  park_account(u, u->now + 1, now);
  u->now = now;
  process_response(u, now);
  for (int k = 0; k < N_CACHES; k++)
    if (u->caches[k]) cache_advance(u->caches[k], now);
  drain_cache_replies(u, now);
  due_events(u, now);
  /* one miss per cache and cycle toward the memory system */
  for (int k = 0; k < N_CACHES; k++) {
    cache *c = u->caches[k];
    if (!c || u->sent_at[k] == now + 1) continue;
    mem_req *r = u->miss_held[k] ? u->miss_held[k] : cache_miss_pop(c);
    if (!r) continue;
    u->sent_at[k] = now + 1;
    u->miss_held[k] = u->ports.send(u->ports.ctx, r, now) ? NULL : r;
  }
  if (u->busy_slots) {
    ldst_slot *order[LDST_MAX_PORTS];
    uint32_t n = 0;
    for (uint32_t i = 0; i < u->n_slots; i++) {
      ldst_slot *s = &u->slots[i];
      if (!s->busy || s->ready_at > now) continue;
      uint32_t j = n++;
      while (j && order[j - 1]->seq > s->seq) {
        order[j] = order[j - 1];
        j--;
      }
      order[j] = s;
    }
    for (uint32_t i = 0; i < n; i++) slot_cycle(u, order[i], now);
  }
  /* what this cycle's accesses made ready at once (hit latency 0, shared latency 0) */
  drain_cache_replies(u, now);
  due_events(u, now);
}

uint64_t simt_ldst_next_event(const simt_ldst *u) {
  uint64_t base = u->now + 1, t = SIMT_LDST_NEVER;
  for (uint32_t i = 0; i < u->n_slots; i++)
    if (u->slots[i].busy && !parked(u, &u->slots[i])) t = min_u64(t, max_u64(u->slots[i].ready_at, base));
  if (u->heap_n) t = min_u64(t, max_u64(u->heap[0].time, base));
  if (u->resp_n) t = min_u64(t, max_u64(u->resp[u->resp_head].at + 1, base));
  for (int k = 0; k < N_CACHES; k++) {
    const cache *c = u->caches[k];
    if (!c) continue;
    if (u->miss_held[k]) t = min_u64(t, base);
    /* a non-empty miss queue makes the cache's next event its last cycle seen (≤ now): base */
    uint64_t e = cache_next_event(c);
    if (e != CACHE_NEVER) t = min_u64(t, max_u64(e, base));
  }
  return t;
}

/* ---- state ---------------------------------------------------------------------------------- */

uint32_t simt_ldst_pending_stores(const simt_ldst *u, uint32_t warp) {
  return warp < u->cfg.max_warps ? u->pending_stores[warp] : 0;
}

bool simt_ldst_idle(const simt_ldst *u) {
  if (u->busy_slots || u->insn_live || u->heap_n || u->resp_n || u->pending_total) return false;
  for (int k = 0; k < N_CACHES; k++)
    if (u->miss_held[k] || (u->caches[k] && !cache_is_idle(u->caches[k]))) return false;
  return true;
}

uint32_t simt_ldst_flush_l1(simt_ldst *u, uint64_t now) {
  if (now > u->now + 1) { /* parked slots retried until now */
    park_account(u, u->now + 1, now);
    u->now = now - 1;
  }
  return u->caches[CACHE_L1D] ? cache_flush(u->caches[CACHE_L1D], now) : 0;
}

void simt_ldst_invalidate_l1(simt_ldst *u) {
  /* the constant and texture caches hold no dirty data; kernel parameters and constants change
   * between kernels, so they are dropped too */
  for (int k = 0; k < N_CACHES; k++)
    if (u->caches[k]) cache_invalidate(u->caches[k]);
}

static const char *path_name(uint8_t p) {
  switch (p) {
    case LDST_PATH_L1D: return "L1D";
    case LDST_PATH_BYPASS: return "memory (around the L1D)";
    case LDST_PATH_L1C: return "L1C";
    case LDST_PATH_L1T: return "L1T";
    default: return "?";
  }
}

void simt_ldst_dump(const simt_ldst *u, void (*line)(void *ctx, const char *text), void *ctx) {
  char b[256];
  snprintf(b, sizeof b,
           "simt_ldst SM %u at cycle %" PRIu64 ": %u/%u dispatch slots busy, %u in-flight "
           "instructions, %u replies buffered (of %u), %" PRIu64 " stores unacknowledged",
           u->cfg.sm, u->now, u->busy_slots, u->n_slots, u->insn_live, u->resp_n, u->resp_cap,
           u->pending_total);
  line(ctx, b);
  for (uint32_t i = 0; i < u->n_slots; i++) {
    const ldst_slot *s = &u->slots[i];
    if (!s->busy) continue;
    const ldst_insn *in = &u->insns[s->insn];
    if (s->smem_cycles) {
      snprintf(b, sizeof b, "  slot %u: warp %u tag %" PRIu64 ": waits for the shared-memory "
               "pipeline (%u cycles of phases)", i, s->warp, in->tag, s->smem_cycles);
    } else if (s->next_acc < s->n_acc) {
      const ldst_access *a = &s->acc[s->next_acc];
      snprintf(b, sizeof b,
               "  slot %u: warp %u tag %" PRIu64 ": request %u of %u (%s 0x%" PRIx64
               ", %u bytes) waits for the %s%s",
               i, s->warp, in->tag, s->next_acc + 1, s->n_acc,
               mem_access_kind_name((mem_access_kind)a->kind), a->addr, a->size,
               path_name(a->path), s->held ? " (send refused)" : "");
    } else {
      snprintf(b, sizeof b, "  slot %u: warp %u tag %" PRIu64 ": shared-memory phases until cycle %" PRIu64,
               i, s->warp, in->tag, s->ready_at);
    }
    line(ctx, b);
  }
  for (uint32_t i = 0; i < u->insn_cap; i++) {
    const ldst_insn *in = &u->insns[i];
    if (!in->live || !in->accepted) continue;
    snprintf(b, sizeof b, "  warp %u tag %" PRIu64 ": waits for %u replies", in->warp, in->tag,
             in->outstanding);
    line(ctx, b);
  }
  for (uint32_t w = 0; w < u->cfg.max_warps; w++) {
    if (!u->pending_stores[w]) continue;
    snprintf(b, sizeof b, "  warp %u: %u stores unacknowledged", w, u->pending_stores[w]);
    line(ctx, b);
  }
  static const char *const names[N_CACHES] = {"L1D", "L1C", "L1T"};
  for (int k = 0; k < N_CACHES; k++) {
    if (!u->caches[k]) continue;
    cache_occupancy o;
    cache_get_occupancy(u->caches[k], &o);
    snprintf(b, sizeof b,
             "  %s: %u MSHR entries (%u sectors), %u in the miss queue%s, %u replies, %u merged",
             names[k], o.mshr_entries, o.mshr_sectors, o.miss_queue,
             u->miss_held[k] ? " (+1 refused by the port)" : "", o.replies, o.merged);
    line(ctx, b);
  }
}
