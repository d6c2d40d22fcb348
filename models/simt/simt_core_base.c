/* simt_core_base — the code the CA and AT SIMT cores share (simt_core_base.h): checks and setup,
 * CTA records, reports, faults, barriers and deadlocks, statistics, the dump. */
#include "simtvp_bits.h"
#include "simt_core_base.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- lifetime --------------------------------------------------------------------------------- */

uint64_t *simt_base_counter(simt_core_base *b, const char *name, const char *unit, const char *description) {
  return b->cfg.stats ? stats_counter(b->cfg.stats, name, unit, description) : &b->scratch;
}

bool simt_base_report_replayable_fault(simt_core_base *b, const simt_kernel *k, func_warp *fw, uint64_t now,
                                       uint64_t **stall, uint64_t *scratch, uint64_t *fault_va) {
  uint64_t pages[32];
  uint8_t access, kind;
  func_warp_replay_fault(fw, fault_va, &access);
  func_warp_replay_kind(fw, &kind);
  uint32_t n = func_warp_replay_pages(fw, pages);
  /* Whether the warp can wait is known at once; the stall counter registers before the faults
   * are recorded, so the statistics' order is the same whether the recorder runs them now (one
   * host thread) or in the serial phase (-sim_threads > 1, where this shard's registration comes
   * first). */
  if (!k->replayable_fault || !k->replayable_fault(k->fault_ctx, k, b->cfg.sm, pages, 0, access, kind, now)) return false;
  if (*stall == scratch) {
    *stall = simt_base_counter(b, "um.fault_stall_cycles", "cycles",
                               "warp cycles spent waiting for the driver to service replayable faults");
    **stall += *scratch;
  }
  return k->replayable_fault(k->fault_ctx, k, b->cfg.sm, pages, n, access, kind, now);
}

void simt_base_cancel_replay(simt_core_base *b, simt_cta *cta, uint64_t now) {
  simtvp_diag d;
  simtvp_diag_set(&d, SIMTVP_ERR_FAULT,
                  "kernel %s: accesses waiting on replayable GPU page faults were cancelled (MMU_REPLAY.CANCEL)",
                  cta->k->name);
  simt_report_fault(&b->ports, b->cfg.sm, cta->k->slot, SIMTVP_ERR_FAULT, &d, d.message, now);
  gpu_cta_result r = {SIMTVP_ERR_FAULT, 0, 0};
  b->hooks->abort_cta(b, cta, &r, now);
}

/* The counters every SIMT core of a sink shares (same names: W0_Idle ... gpgpu_n_param_mem_insn),
 * resolved by the sink's first core and kept there (stats_shared) for the others: 80 cores looked
 * the same 47 names up, and formatted 37 of them, each. */
typedef struct simt_base_shared {
  bool ready;
  uint64_t *distro[3 + 32];
  uint64_t *reason[SIMT_R_N];
  uint64_t *mem_insn[SIMT_MI_N];
} simt_base_shared;

/* The names and descriptions of docs/simt.md §5; the order is the statistics' output order. */
static void register_stats(simt_core_base *b) {
  simt_insn_counters_register(&b->n, b->cfg.stats, b->cfg.sm, &b->scratch);
  char name[96];
  simt_base_shared *sh = b->cfg.stats ? stats_shared(b->cfg.stats, "simt_core.shared", sizeof *sh) : NULL;
  if (sh && sh->ready) {
    memcpy(b->distro, sh->distro, sizeof b->distro);
    memcpy(b->reason, sh->reason, sizeof b->reason);
    memcpy(b->mem_insn, sh->mem_insn, sizeof b->mem_insn);
  } else {
    b->distro[SIMT_B_IDLE] = simt_base_counter(b, "W0_Idle", "cycles",
                                               "scheduler cycles without issue: no warp had a decoded instruction");
    b->distro[SIMT_B_SCOREBOARD] = simt_base_counter(b, "W0_Scoreboard", "cycles",
                                                     "scheduler cycles without issue: every decoded instruction "
                                                     "waited for a register (scoreboard)");
    b->distro[SIMT_B_STALL] = simt_base_counter(b, "Stall", "cycles",
                                                "scheduler cycles without issue: a ready instruction found its pipeline busy");
    for (int i = 1; i <= 32; i++) {
      snprintf(name, sizeof name, "W%d", i);
      b->distro[2 + i] = simt_base_counter(b, name, "insn", "warp instructions issued with this many active threads");
    }
    static const char *const rn[SIMT_R_N] = {"no_warp", "barrier", "ibuffer_empty", "scoreboard", "pipe_busy"};
    static const char *const rd[SIMT_R_N] = {
        "scheduler cycles without issue: the scheduler had no live warp",
        "scheduler cycles without issue: every live warp waited at a barrier or fence or had exited",
        "scheduler cycles without issue: the best warp had no decoded instruction (fetch, L1I miss, branch)",
        "scheduler cycles without issue: the best warp waited for a register (scoreboard)",
        "scheduler cycles without issue: the best warp was ready but its pipeline was busy"};
    for (int i = 0; i < SIMT_R_N; i++) {
      snprintf(name, sizeof name, "simt_sched_stall[%s]", rn[i]);
      b->reason[i] = simt_base_counter(b, name, "cycles", rd[i]);
    }
    static const char *const mn[SIMT_MI_N] = {"gpgpu_n_load_insn",  "gpgpu_n_store_insn",     "gpgpu_n_shmem_insn",
                                              "gpgpu_n_sstarr_insn", "gpgpu_n_tex_insn",      "gpgpu_n_const_mem_insn",
                                              "gpgpu_n_param_mem_insn"};
    static const char *const md[SIMT_MI_N] = {
        "thread loads (and atomics) of global and local memory", "thread stores to global and local memory",
        "thread accesses to shared memory", "thread accesses to shared static arrays (OpenCL; always 0 here)",
        "thread texture and surface accesses", "thread constant-memory loads", "thread parameter-memory loads"};
    for (int i = 0; i < SIMT_MI_N; i++) b->mem_insn[i] = simt_base_counter(b, mn[i], "insn", md[i]);
    if (sh) {
      memcpy(sh->distro, b->distro, sizeof b->distro);
      memcpy(sh->reason, b->reason, sizeof b->reason);
      memcpy(sh->mem_insn, b->mem_insn, sizeof b->mem_insn);
      sh->ready = true;
    }
  }
  snprintf(name, sizeof name, "simt_core[%u].cycles", b->cfg.sm);
  b->cycles = simt_base_counter(b, name, "cycles", "cycles this SIMT core had a resident CTA");
  snprintf(name, sizeof name, "simt_core[%u].ctas", b->cfg.sm);
  b->ctas_done = simt_base_counter(b, name, "CTAs", "CTAs this SIMT core completed");
  b->ldst_stall = &b->scratch;
}

void simt_base_register_ldst_stall(simt_core_base *b) {
  b->ldst_stall = simt_base_counter(b, "simt_stall_ldst_busy", "cycles",
                                    "cycles a memory instruction waited in OC_EX for the LDST unit");
}

static simtvp_status config_error(simtvp_diag *diag, simtvp_status st, const char *option) {
  if (option) simtvp_diag_at_option(diag, option);
  return st;
}

simtvp_status simt_base_init(simt_core_base *b, const simt_core_config *cfg, simt_core_ports ports,
                             const simt_variant_hooks *hooks, simtvp_diag *diag) {
  if (cfg->warp_size != FUNC_WARP_SIZE) {
    simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "SIMT core %u: warp size %u: the functional engine runs %u-thread warps",
                    cfg->sm, cfg->warp_size, FUNC_WARP_SIZE);
    return config_error(diag, SIMTVP_ERR_CONFIG, "-gpgpu_shader_core_pipeline");
  }
  if (cfg->n_schedulers < 1 || cfg->n_schedulers > SIMT_MAX_SCHEDULERS || cfg->max_warps < 1) {
    simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "SIMT core %u: %u schedulers: expected 1 to %u (and at least one warp slot)",
                    cfg->sm, cfg->n_schedulers, SIMT_MAX_SCHEDULERS);
    return config_error(diag, SIMTVP_ERR_CONFIG, "-gpgpu_num_sched_per_core");
  }
  if (cfg->max_ctas < 1 || cfg->fetch_throughput < 1 || cfg->max_issue_per_warp < 1 || cfg->max_issue_per_warp > 2) {
    const char *opt = cfg->max_ctas < 1 ? "-gpgpu_shader_cta" : cfg->fetch_throughput < 1
                      ? "-gpgpu_inst_fetch_throughput" : "-gpgpu_max_insn_issue_per_warp";
    simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "SIMT core %u: %s must be at least 1 (issue per warp: 1 or 2)",
                    cfg->sm, opt);
    return config_error(diag, SIMTVP_ERR_CONFIG, opt);
  }
  const simt_ldst_iface *lif = cfg->ldst_iface ? cfg->ldst_iface : simt_ldst_default_iface();
  if (!lif)
    return simtvp_diag_set(diag, SIMTVP_ERR_UNSUPPORTED,
                           "SIMT core %u: this build has no LDST unit (models/simt/ldst); give simt_core_config.ldst_iface",
                           cfg->sm);
  b->cfg = *cfg;
  b->ports = ports;
  b->hooks = hooks;
  b->lif = lif;
  if (b->cfg.reg_ports == 0) b->cfg.reg_ports = 1;
  b->n_parts = cfg->sub_core ? cfg->n_schedulers : 1;
  register_stats(b);
  return SIMTVP_OK;
}

static simtvp_status pipe_error(simtvp_diag *diag, const char *option, const char *fmt, uint32_t sm, const char *what) {
  simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, fmt, sm, what);
  return config_error(diag, SIMTVP_ERR_CONFIG, option);
}

static const char *const unit_names[SIMT_OC_N] = {"sp", "dp", "int", "sfu", "tensor_core", "mem", "gen"};

simtvp_status simt_base_init_pipeline(simt_core_base *b, simtvp_diag *diag) {
  const simt_core_config *k = &b->cfg;
  /* execution units: a class without units runs on SP (e.g. Fermi: no DP or INT units) */
  for (int u = 0; u < SIMT_UNIT_N; u++) {
    b->eff_unit[u] = (uint8_t)u;
    if (u != SIMT_UNIT_MEM && u != SIMT_UNIT_SP && k->n_units[u] == 0) b->eff_unit[u] = SIMT_UNIT_SP;
  }
  if (k->n_units[SIMT_UNIT_SP] == 0)
    return pipe_error(diag, "-gpgpu_num_sp_units", "SIMT core %u: needs at least one SP unit%s", k->sm, "");
  for (int u = 0; u < SIMT_UNIT_N; u++) {
    if (b->eff_unit[u] != u) continue;
    if (k->id_oc_width[u] == 0 || k->oc_ex_width[u] == 0)
      return pipe_error(diag, "-gpgpu_pipeline_widths",
                        "SIMT core %u: the %s pipeline has units but a zero-width ID_OC or OC_EX register", k->sm,
                        unit_names[u]);
    /* operand collector set: specialized sets when enabled and configured, else generic */
    uint32_t set = (uint32_t)u;
    if (k->specialized_oc ? k->oc_units[u] == 0 : k->oc_units[SIMT_OC_GEN] > 0) set = SIMT_OC_GEN;
    if (k->oc_units[set] == 0)
      return pipe_error(diag, "-gpgpu_operand_collector_num_units_gen",
                        "SIMT core %u: no operand collector unit serves the %s pipeline", k->sm, unit_names[u]);
    if (k->oc_in_ports[set] == 0 || k->oc_out_ports[set] == 0)
      return pipe_error(diag, "-gpgpu_operand_collector_num_in_ports_gen",
                        "SIMT core %u: the %s operand collectors have no input or output port", k->sm,
                        unit_names[set]);
    b->set_of_unit[u] = (uint8_t)set;
  }
  if (k->result_buses == 0)
    return pipe_error(diag, "-gpgpu_pipeline_widths", "SIMT core %u: EX_WB width (result buses) is 0%s", k->sm, "");
  if (k->reg_banks == 0 || k->reg_banks < b->n_parts)
    return pipe_error(diag, "-gpgpu_num_reg_banks", "SIMT core %u: needs at least one register bank per sub-core%s",
                      k->sm, "");
  for (int r = 0; r < SIMT_LAT_N; r++)
    for (int op = 0; op < GPU_OP_N; op++) {
      b->lat[r][op] = k->latency[r][op] ? k->latency[r][op] : 1;
      b->ii[r][op] = k->initiation[r][op] ? k->initiation[r][op] : 1;
    }
  return SIMTVP_OK;
}

void simt_base_share(uint32_t n, uint32_t parts, uint32_t *lo, uint32_t *hi) {
  for (uint32_t p = 0; p < parts; p++) {
    if (n == 0) {
      lo[p] = hi[p] = 0;
    } else if (n >= parts) {
      lo[p] = (uint32_t)((uint64_t)p * n / parts);
      hi[p] = (uint32_t)((uint64_t)(p + 1) * n / parts);
    } else {
      lo[p] = p % n;
      hi[p] = lo[p] + 1;
    }
  }
}

simtvp_status simt_base_attach(simt_core_base *b,
                               void (*complete)(void *ctx, uint32_t warp, uint64_t tag, uint64_t now),
                               simtvp_diag *diag) {
  const simt_core_config *cfg = &b->cfg;
  b->pool = cfg->pool;
  if (!b->pool) {
    b->pool = mem_req_pool_create();
    b->own_pool = true;
  }
  b->ctas = calloc(cfg->max_ctas, sizeof *b->ctas);
  b->warp_pcc = calloc(cfg->max_warps, sizeof *b->warp_pcc);
  b->warp_ready = calloc(cfg->max_warps, sizeof *b->warp_ready);
  b->slot_used = calloc((cfg->max_warps + 63) / 64, sizeof *b->slot_used);
  if (!b->pool || !b->ctas || !b->warp_pcc || !b->warp_ready || !b->slot_used)
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", cfg->sm);
  b->l1i_line = 128;
  if (!cfg->perfect_l1i) {
    char name[64];
    cache_config cc;
    memset(&cc, 0, sizeof cc);
    simtvp_status st = cache_spec_parse(cfg->l1i ? cfg->l1i : "none", "-gpgpu_cache:il1", &cc.spec, diag);
    if (st != SIMTVP_OK) return st;
    snprintf(name, sizeof name, "L1I_cache_core[%u]", cfg->sm);
    cc.level = CACHE_LEVEL_L1;
    cc.hit_latency = 0; /* a hit fills the fetch buffer at once (decode next cycle) */
    cc.timed = complete == NULL; /* a variant that times its memory path itself */
    cc.stats = cfg->stats;
    cc.name = name;
    cc.stats_group = "L1I";
    cc.pool = b->pool;
    st = cache_create(&cc, &b->l1i, diag);
    if (st != SIMTVP_OK) return st;
    if (!cc.spec.disabled) {
      b->l1i_line = cc.spec.line_bytes;
      b->l1i_enabled = true;
    }
  }
  if (!complete) return SIMTVP_OK; /* the variant has its own memory path (at) */
  simt_ldst_config lc = cfg->ldst;
  lc.sm = cfg->sm;
  lc.cluster = cfg->cluster;
  lc.warp_size = cfg->warp_size;
  lc.max_warps = cfg->max_warps;
  lc.max_threads = cfg->max_threads;
  lc.stats = cfg->stats;
  lc.pool = b->pool;
  simt_ldst_ports lp = {b, simt_base_ldst_send, complete};
  b->ldst = b->lif->create(&lc, lp, diag);
  if (!b->ldst) return diag && diag->status != SIMTVP_OK ? diag->status : SIMTVP_ERR_CONFIG;
  return SIMTVP_OK;
}

void simt_base_destroy(simt_core_base *b) {
  for (uint32_t i = 0; b->ctas && i < b->cfg.max_ctas; i++)
    if (b->ctas[i].live && b->ctas[i].fc) func_cta_finish(b->ctas[i].fc);
  if (b->ldst) b->lif->destroy(b->ldst);
  if (b->l1i) cache_destroy(b->l1i);
  free(b->ctas);
  free(b->reports);
  free(b->warp_pcc);
  free(b->warp_ready);
  free(b->slot_used);
  if (b->own_pool) mem_req_pool_destroy(b->pool);
}

/* ---- CTAs ------------------------------------------------------------------------------------- */

/* A warp slot holds a warp from simt_base_start_cta to simt_base_finish_warp (the variants' `live`). */
static bool warp_live(const simt_core_base *b, uint32_t slot) { return b->slot_used[slot >> 6] >> (slot & 63u) & 1u; }

simtvp_status simt_base_start_cta(simt_core_base *b, const simt_kernel *k, const uint32_t id[3], uint32_t *cta_slot,
                                  uint32_t slots[SIMT_MAX_CTA_WARPS], uint32_t *n_warps, simtvp_diag *diag) {
  const simt_core_config *cfg = &b->cfg;
  simtvp_status st = SIMTVP_OK;
  uint32_t ci = 0;
  while (ci < cfg->max_ctas && b->ctas[ci].live) ci++;
  uint32_t first = cfg->max_warps; /* the first free warp slot (bits past max_warps are never set) */
  for (uint32_t w = 0; w * 64u < cfg->max_warps; w++)
    if (~b->slot_used[w]) {
      first = w * 64u + (uint32_t)__builtin_ctzll(~b->slot_used[w]);
      break;
    }
  if (first > cfg->max_warps) first = cfg->max_warps;
  if (ci == cfg->max_ctas || first == cfg->max_warps) {
    st = simtvp_diag_set(diag, SIMTVP_ERR_STATE, "SIMT core %u: no free %s slot for CTA (%u,%u,%u) of %s", cfg->sm,
                         ci == cfg->max_ctas ? "CTA" : "warp", id[0], id[1], id[2], k->name ? k->name : "?");
  } else if (!b->hooks->fit_kernel(b, ci, k)) {
    st = simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", cfg->sm);
  }
  func_cta *fc = NULL;
  if (st == SIMTVP_OK) st = func_cta_start(k->launch, id, cfg->sm, first, &fc, diag);
  uint32_t nw = fc ? func_cta_warp_count(fc) : 0, got = 0;
  for (uint32_t s = first; st == SIMTVP_OK && s < cfg->max_warps && got < nw;) { /* free slots, a word at a time */
    uint64_t free = ~b->slot_used[s >> 6] & (~0ull << (s & 63u));
    if (!free) {
      s = (s | 63u) + 1;
      continue;
    }
    s = (s & ~63u) + (uint32_t)__builtin_ctzll(free);
    if (s >= cfg->max_warps) break;
    slots[got++] = s++;
  }
  if (st == SIMTVP_OK && got < nw) {
    func_cta_finish(fc);
    st = simtvp_diag_set(diag, SIMTVP_ERR_STATE, "SIMT core %u: CTA (%u,%u,%u) of %s needs %u warp slots, %u are free",
                         cfg->sm, id[0], id[1], id[2], k->name ? k->name : "?", nw, got);
  }
  if (st != SIMTVP_OK) return st;
  simt_cta *cta = &b->ctas[ci];
  memset(cta, 0, sizeof *cta);
  cta->live = true;
  cta->k = k;
  cta->fc = fc;
  memcpy(cta->id, id, sizeof cta->id);
  cta->n_warps = nw;
  cta->result.status = SIMTVP_OK;
  uint32_t n_pc = 0;
  func_pc_count *pcc = func_cta_pc_counts(fc, &n_pc);  /* its SM's own with several host threads */
  for (uint32_t i = 0; i < nw; i++) {
    cta->warp_slot[i] = slots[i];
    b->slot_used[slots[i] >> 6] |= 1ull << (slots[i] & 63u);
    b->warp_pcc[slots[i]] = n_pc ? pcc : NULL;  /* the profile: stalls from the CTA's arrival */
    b->warp_ready[slots[i]] = b->done_until;
  }
  b->n_ctas++;
  *cta_slot = ci;
  *n_warps = nw;
  return SIMTVP_OK;
}

static void queue_report(simt_core_base *b, uint32_t slot, const gpu_cta_result *r) {
  if (b->n_reports == b->reports_cap) {
    uint32_t n = b->reports_cap ? b->reports_cap * 2 : 8;
    void *p = realloc(b->reports, (size_t)n * sizeof *b->reports);
    if (!p) { /* cannot queue: report at once */
      b->ports.cta_done(b->ports.ctx, b->cfg.sm, slot, r, b->done_until ? b->done_until - 1 : 0);
      return;
    }
    b->reports = p;
    b->reports_cap = n;
  }
  b->reports[b->n_reports].slot = slot;
  b->reports[b->n_reports].r = *r;
  b->n_reports++;
}

void simt_base_finish_warp(simt_core_base *b, simt_cta *cta, uint32_t i) {
  b->warp_pcc[cta->warp_slot[i]] = NULL; /* before a later CTA's warp may take the slot */
  b->slot_used[cta->warp_slot[i] >> 6] &= ~(1ull << (cta->warp_slot[i] & 63u));
  cta->finished |= 1u << i;
  if (++cta->n_finished == cta->n_warps) simt_base_finish_cta(b, cta);
}

void simt_base_finish_cta(simt_core_base *b, simt_cta *cta) {
  func_cta_finish(cta->fc);
  cta->fc = NULL;
  cta->live = false;
  b->n_ctas--;
  ++*b->ctas_done;
  queue_report(b, cta->k->slot, &cta->result);
}

void simt_base_flush_reports(simt_core_base *b, uint64_t now) {
  for (uint32_t i = 0; i < b->n_reports; i++) {
    uint32_t slot = b->reports[i].slot;
    gpu_cta_result r = b->reports[i].r;
    b->ports.cta_done(b->ports.ctx, b->cfg.sm, slot, &r, now);
  }
  b->n_reports = 0;
}

/* Every live warp of the CTA (v: their views, in CTA order) waits at a barrier that nothing can
 * complete any more: the report, then hooks.abort_cta. */
static void check_deadlock(simt_core_base *b, simt_cta *cta, const simt_warp_view *v, uint64_t now) {
  uint32_t waiting = 0, running = 0, first_pc = 0;
  for (uint32_t i = 0; i < cta->n_warps; i++) {
    if (!v[i].live || v[i].exited) continue;
    if (v[i].wait == SIMT_WAIT_BARRIER) {
      if (!waiting++) first_pc = v[i].bar_pc;
    } else {
      running++;
    }
  }
  if (running || !waiting) return;
  char line[512];
  snprintf(line, sizeof line,
           "SIMT core %u: kernel %s CTA (%u,%u,%u): barrier deadlock at cycle %" PRIu64
           ": every live warp waits at a barrier that cannot complete",
           b->cfg.sm, cta->k->name ? cta->k->name : "?", cta->id[0], cta->id[1], cta->id[2], now);
  /* the report names the barrier the first waiting warp waits at */
  gpu_cta_result r = {SIMTVP_ERR_DEADLOCK, 0, first_pc};
  simt_report_deadlock(&b->ports, b->cfg.sm, cta->k, cta->id, first_pc, line, true, now);
  for (uint32_t i = 0; i < cta->n_warps; i++) {
    if (!simt_cta_holds(cta, i)) continue; /* finished: its slot may be another CTA's */
    b->hooks->warp_line(b, cta->warp_slot[i], line, sizeof line);
    simtvp_msg(&b->ports.messages, SIMTVP_ERROR, "%s", line);
  }
  b->hooks->abort_cta(b, cta, &r, now);
}

void simt_base_settle_barriers(simt_core_base *b, simt_cta *cta, uint64_t now) {
  cta->check_bars = false;
  if (!cta->live || cta->aborting) return;
  simt_warp_view v[SIMT_MAX_CTA_WARPS];
  uint32_t ids = 0;
  for (uint32_t i = 0; i < cta->n_warps; i++) {
    /* a finished warp's slot may hold a warp of a CTA started since: not this CTA's */
    if (!simt_cta_holds(cta, i)) {
      v[i] = (simt_warp_view){.live = false};
      continue;
    }
    b->hooks->warp_view(b, cta->warp_slot[i], &v[i]);
    if (v[i].live && v[i].wait == SIMT_WAIT_BARRIER) ids |= 1u << v[i].bar_id;
  }
  if (!ids) return; /* no warp waits: nothing to release, no deadlock */
  while (ids) {
    uint32_t id = (uint32_t)__builtin_ctz(ids);
    ids &= ids - 1;
    func_cta_release_barrier(cta->fc, id);
  }
  for (uint32_t i = 0; i < cta->n_warps; i++)
    if (v[i].live && v[i].wait == SIMT_WAIT_BARRIER && func_warp_get_state(v[i].fw) != FUNC_WARP_BARRIER) {
      b->hooks->barrier_released(b, cta->warp_slot[i], now);
      v[i].wait = SIMT_WAIT_NONE; /* the hook's doing: the views stay the warps' */
    }
  check_deadlock(b, cta, v, now);
}

void simt_base_fault_cta(simt_core_base *b, simt_cta *cta, func_warp *fw, simtvp_status st, const simtvp_diag *d,
                         uint64_t now) {
  /* the warp that faulted reports; others of the launch only see the launch's fault again */
  if (func_warp_get_state(fw) == FUNC_WARP_FAULTED) {
    char text[SIMTVP_DIAG_MESSAGE_MAX + 64];
    snprintf(text, sizeof text, "SIMT core %u, cycle %" PRIu64 ": %s", b->cfg.sm, now, d->message);
    simt_report_fault(&b->ports, b->cfg.sm, cta->k->slot, st, d, text, now);
  }
  gpu_cta_result r = {st, (d->where & SIMTVP_WHERE_ADDRESS) ? d->address : 0, d->pc};
  b->hooks->abort_cta(b, cta, &r, now);
}

/* ---- memory ----------------------------------------------------------------------------------- */

bool simt_base_ldst_send(void *ctx, mem_req *req, uint64_t now) {
  simt_core_base *b = ctx;
  return b->ports.send(b->ports.ctx, req, now);
}

bool simt_base_memory_idle(const simt_core_base *b) {
  return (!b->ldst || b->lif->idle(b->ldst)) && (!b->l1i || cache_is_idle(b->l1i));
}

static int space_class(uint8_t space, bool store) {
  switch (space) {
  case PTX_SPACE_SHARED: case PTX_SPACE_SHARED_CLUSTER: return SIMT_MI_SHMEM;
  case PTX_SPACE_CONST: return SIMT_MI_CONST;
  case PTX_SPACE_PARAM: return SIMT_MI_PARAM;
  case PTX_SPACE_TEX: return SIMT_MI_TEX;
  default: return store ? SIMT_MI_STORE : SIMT_MI_LOAD;
  }
}

static bool is_store_only(const func_step *st) { return st->is_store && !st->is_load && !st->is_atomic; }

static bool is_texture_op(const func_step *st) {
  uint16_t op = st->insn ? st->insn->opcode : 0;
  return op == PTX_OP_TEX || op == PTX_OP_TLD4 || op == PTX_OP_SULD || op == PTX_OP_SUST || op == PTX_OP_SURED;
}

int simt_base_mem_insn_class(const func_step *st) {
  if (is_texture_op(st)) return SIMT_MI_TEX;
  if (st->space == PTX_SPACE_GENERIC) return -1;
  return space_class(st->space, is_store_only(st));
}

void simt_base_count_mem_insn(simt_core_base *b, const func_step *st) {
  int mi = simt_base_mem_insn_class(st);
  if (mi >= 0) {
    *b->mem_insn[mi] += (uint64_t)simtvp_popcount32(st->mem_mask);
    return;
  }
  bool store = is_store_only(st);
  for (uint32_t m = st->mem_mask; m; m &= m - 1) ++*b->mem_insn[space_class(st->lane_space[__builtin_ctz(m)], store)];
}

/* ---- dump ------------------------------------------------------------------------------------- */

void simt_base_dump(const simt_core_base *b, const char *headline, void (*line)(void *ctx, const char *text),
                    void *ctx) {
  char buf[512];
  line(ctx, headline);
  for (uint32_t i = 0; i < b->cfg.max_ctas; i++) {
    const simt_cta *cta = &b->ctas[i];
    if (!cta->live) continue;
    snprintf(buf, sizeof buf, " CTA (%u,%u,%u) of %s (slot %u)%s: %u/%u warps finished", cta->id[0], cta->id[1],
             cta->id[2], cta->k->name ? cta->k->name : "?", i, cta->aborting ? " aborting" : "", cta->n_finished,
             cta->n_warps);
    line(ctx, buf);
    for (uint32_t j = 0; j < cta->n_warps; j++) {
      uint32_t slot = cta->warp_slot[j];
      if (!simt_cta_holds(cta, j) || !warp_live(b, slot)) continue;
      b->hooks->warp_line(b, slot, buf, sizeof buf);
      line(ctx, buf);
    }
  }
  if (b->l1i) {
    cache_occupancy o;
    cache_get_occupancy(b->l1i, &o);
    snprintf(buf, sizeof buf, " L1I: %u MSHR entries, %u in the miss queue", o.mshr_entries, o.miss_queue);
    line(ctx, buf);
  }
  if (b->ldst) b->lif->dump(b->ldst, line, ctx);
}

int simt_warp_line_head(char *buf, size_t n, const ptx_module *m, uint32_t index, uint32_t slot, uint32_t sched,
                        const char *state, const simt_warp_view *v, uint32_t pc) {
  char text[160] = "";
  int k = snprintf(buf, n, "  warp %u (slot %u, sched %u): %s", index, slot, sched, state);
  if (k > 0 && (size_t)k < n && v->wait == SIMT_WAIT_BARRIER && v->bar_pc < m->n_insns) {
    ptx_insn_format(m, &m->insns[v->bar_pc], text, sizeof text);
    k += snprintf(buf + k, n - (size_t)k, " %u (pc %u `%s`)", v->bar_id, v->bar_pc, text);
  }
  text[0] = 0;
  if (pc < m->n_insns) ptx_insn_format(m, &m->insns[pc], text, sizeof text);
  if (k > 0 && (size_t)k < n)
    k += snprintf(buf + k, n - (size_t)k, ", next pc %u (%s:%u) `%s`", pc, m->source_name ? m->source_name : "?",
                  pc < m->n_insns ? m->insns[pc].ptx_line : 0u, text);
  return k;
}

/* ---- completion heap -------------------------------------------------------------------------- */

bool simt_heap_grow(simt_heap *h) {
  uint32_t n = h->cap ? h->cap * 2 : 64;
  simt_heap_entry *v = realloc(h->v, (size_t)n * sizeof *v);
  if (!v) return false;
  h->v = v;
  h->cap = n;
  return true;
}

void simt_base_count_stalls(simt_core_base *b, uint64_t *from, uint64_t *issued, uint64_t gap[SIMT_R_N],
                            uint64_t now) {
  if (now <= *from) return;
  uint64_t span = now - *from, idle = span > *issued ? span - *issued : 0, sum = 0;
  for (int r = 0; r < SIMT_R_N; r++) sum += gap[r];
  uint64_t given = 0;
  int last = SIMT_R_NO_WARP;
  for (int r = 0; r < SIMT_R_N && sum; r++) {
    if (!gap[r]) continue;
    uint64_t n = (uint64_t)((double)idle * (double)gap[r] / (double)sum);
    uint8_t bucket = r == SIMT_R_PIPE ? SIMT_B_STALL : r == SIMT_R_SCOREBOARD ? SIMT_B_SCOREBOARD : SIMT_B_IDLE;
    *b->distro[bucket] += n;
    *b->reason[r] += n;
    given += n;
    last = r;
  }
  if (idle > given) { /* rounding, or nobody waited: the rest to the last reason (or no warp) */
    uint8_t bucket = last == SIMT_R_PIPE ? SIMT_B_STALL : last == SIMT_R_SCOREBOARD ? SIMT_B_SCOREBOARD : SIMT_B_IDLE;
    *b->distro[bucket] += idle - given;
    *b->reason[last] += idle - given;
  }
  memset(gap, 0, SIMT_R_N * sizeof *gap);
  *issued = 0;
  *from = now;
}

simtvp_status simt_base_make_timed_l1(simt_core_base *b, cache **out, const char *text, const char *option,
                                      const char *group, const char *alias, uint32_t *block, cache_spec *spec,
                                      simtvp_diag *diag) {
  *out = NULL;
  *block = MEM_LINE_BYTES;
  cache_config cc;
  memset(&cc, 0, sizeof cc);
  simtvp_status st = cache_spec_parse(text ? text : "none", option, &cc.spec, diag);
  *spec = cc.spec;
  if (st != SIMTVP_OK || cc.spec.disabled) return st;
  char name[64];
  snprintf(name, sizeof name, "%s_cache_core[%u]", group, b->cfg.sm);
  cc.level = CACHE_LEVEL_L1;
  cc.stats = b->cfg.stats;
  cc.name = name;
  cc.stats_group = group;
  cc.stats_total_alias = alias;
  cc.pool = b->pool;
  cc.timed = true;
  st = cache_create(&cc, out, diag);
  if (st == SIMTVP_OK && cc.spec.line_bytes < MEM_LINE_BYTES) *block = cc.spec.line_bytes;
  return st;
}

void simt_base_mem_counters(simt_core_base *b, simt_mem_counters *s) {
  s->read_global = simt_base_counter(b, "gpgpu_n_mem_read_global", "requests",
                                     "global-memory read requests leaving the LD/ST units");
  s->write_global = simt_base_counter(b, "gpgpu_n_mem_write_global", "requests",
                                      "global-memory write requests leaving the LD/ST units");
  s->read_local = simt_base_counter(b, "gpgpu_n_mem_read_local", "requests",
                                    "local-memory read requests leaving the LD/ST units");
  s->write_local = simt_base_counter(b, "gpgpu_n_mem_write_local", "requests",
                                     "local-memory write requests leaving the LD/ST units");
  s->mem_const = simt_base_counter(b, "gpgpu_n_mem_const", "requests",
                                   "constant-cache accesses (const and param space, one per line)");
  s->mem_texture = simt_base_counter(b, "gpgpu_n_mem_texture", "requests", "texture-cache accesses (one per line)");
  s->atomic = simt_base_counter(b, "simt_ldst.atomic_requests", "requests",
                                "global atomic / reduction requests sent to the L2");
}

bool simt_pc_table_fit(void **pcs, uint32_t **touched, uint32_t *n_touched, uint32_t *cap, uint32_t n_insns,
                       size_t elem) {
  if (!n_insns) n_insns = 1;
  if (*cap < n_insns) {
    void *p = realloc(*pcs, (size_t)n_insns * elem);
    if (p) *pcs = p;
    uint32_t *t = p ? realloc(*touched, (size_t)n_insns * sizeof *t) : NULL;
    if (t) *touched = t;
    if (!p || !t) return false;
    memset(*pcs, 0, (size_t)n_insns * elem);
    *cap = n_insns;
    *n_touched = 0;
  }
  for (uint32_t i = 0; i < *n_touched; i++) memset((char *)*pcs + (size_t)(*touched)[i] * elem, 0, elem);
  *n_touched = 0;
  return true;
}

uint64_t *simt_base_regrow_ready(const simt_core_base *b, uint64_t *old, uint32_t old_stride, uint32_t stride,
                                 bool keep) {
  size_t n = (size_t)b->cfg.max_warps * stride;
  uint64_t *rr = keep ? calloc(n, sizeof *rr) : malloc(n * sizeof *rr); /* no zeroing pass unless kept */
  if (!rr) return NULL;
  for (uint32_t w = 0; w < b->cfg.max_warps && keep && old; w++)
    memcpy(rr + (size_t)w * stride, old + (size_t)w * old_stride, old_stride * sizeof *rr);
  free(old);
  return rr;
}
