/* simt — the SIMT core facade: picks the variant's ops table by configuration and forwards every
 * call (simt.h, simt_variant.h); configuration from gpu_config; shared counters. */
#include "simt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simt_variant.h"

struct simt_core {
  const simt_core_ops *ops;
  void *state;
};

/* ---- LDST interface -------------------------------------------------------------------------- */

static const simt_ldst_iface real_ldst = {
    simt_ldst_create,       simt_ldst_destroy,    simt_ldst_can_issue, simt_ldst_issue,
    simt_ldst_reply,        simt_ldst_advance,    simt_ldst_next_event, simt_ldst_pending_stores,
    simt_ldst_idle,         simt_ldst_flush_l1,   simt_ldst_invalidate_l1, simt_ldst_dump,
    simt_ldst_set_param_base, simt_ldst_set_pdb};
const simt_ldst_iface *simt_ldst_default_iface(void) { return &real_ldst; }

/* ---- shared counters ------------------------------------------------------------------------- */

void simt_insn_counters_register(simt_insn_counters *c, stats *st, uint32_t sm, uint64_t *scratch) {
  if (!st) {
    c->gpu_sim_insn = c->thrd_icount = c->w_icount = c->core_warp_insn = c->core_thread_insn = scratch;
    return;
  }
  char name[96];
  c->gpu_sim_insn = stats_counter(st, "gpu_sim_insn", "insn", "thread instructions executed (active lanes)");
  c->thrd_icount = stats_counter(st, "gpgpu_n_tot_thrd_icount", "insn", "thread instructions executed");
  c->w_icount = stats_counter(st, "gpgpu_n_tot_w_icount", "insn", "warp instructions executed");
  snprintf(name, sizeof name, "simt_core[%u].warp_insn", sm);
  c->core_warp_insn = stats_counter(st, name, "insn", "warp instructions issued by this SIMT core");
  snprintf(name, sizeof name, "simt_core[%u].thread_insn", sm);
  c->core_thread_insn = stats_counter(st, name, "insn", "thread instructions issued by this SIMT core");
}

/* ---- configuration from gpu_config ----------------------------------------------------------- */

static uint32_t nonneg(int32_t v) { return v > 0 ? (uint32_t)v : 0u; }

simtvp_status simt_core_config_from_gpu(const gpu_config *g, uint32_t sm, simt_core_config *cfg,
                                        simtvp_diag *diag) {
  const gpu_core_config *c = &g->core;
  const gpu_config_derived *d = &g->derived;
  memset(cfg, 0, sizeof *cfg);
  if (sm >= d->n_cores)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "SIMT core %u: the configuration has %u cores", sm,
                           d->n_cores);
  cfg->model = d->simt_model_of_core[sm];
  cfg->sm = sm;
  cfg->cluster = sm / c->n_cores_per_cluster;
  cfg->warp_size = d->warp_size;
  cfg->max_warps = d->max_warps_per_core;
  cfg->max_threads = d->max_threads_per_core;
  cfg->max_ctas = c->max_ctas_per_core;
  cfg->l1i = c->l1i;
  cfg->perfect_l1i = c->perfect_inst_const_cache;
  cfg->fetch_throughput = nonneg(c->inst_fetch_throughput);
  cfg->n_schedulers = nonneg(c->schedulers_per_core);
  cfg->scheduler = (uint8_t)d->scheduler;
  memcpy(cfg->scheduler_params, d->scheduler_params, sizeof cfg->scheduler_params);
  cfg->max_issue_per_warp = nonneg(c->max_insn_issue_per_warp);
  cfg->dual_issue_diff_units = c->dual_issue_diff_exec_units;
  cfg->sub_core = c->sub_core_model;
  cfg->reg_banks = nonneg(c->reg_banks);
  cfg->reg_bank_use_warp_id = c->reg_bank_use_warp_id;
  cfg->alu_forwarding = c->alu_forwarding;
  memcpy(cfg->fence_latency, d->fence_latency, sizeof cfg->fence_latency);
  cfg->sample_detail = d->at_sample_detail;
  cfg->sample_period = d->at_sample_period;
  cfg->interval_runs = d->interval_runs;
  cfg->interval_fold = d->interval_fold;
  cfg->interval_horizon = d->interval_horizon;
  cfg->interval_horizon_ramp = d->interval_horizon_ramp;
  cfg->core_khz = (uint32_t)(d->core_mhz * 1000.0 + 0.5);
  cfg->reg_ports = nonneg(c->reg_file_port_throughput);
  cfg->specialized_oc = c->specialized_operand_collector;
  const int32_t units[SIMT_OC_N] = {c->oc_units_sp,     c->oc_units_dp,  c->oc_units_int, c->oc_units_sfu,
                                    c->oc_units_tensor, c->oc_units_mem, c->oc_units_gen};
  const int32_t in[SIMT_OC_N] = {c->oc_in_ports_sp,     c->oc_in_ports_dp,  c->oc_in_ports_int,
                                 c->oc_in_ports_sfu,    c->oc_in_ports_tensor, c->oc_in_ports_mem,
                                 c->oc_in_ports_gen};
  const int32_t out[SIMT_OC_N] = {c->oc_out_ports_sp,     c->oc_out_ports_dp,  c->oc_out_ports_int,
                                  c->oc_out_ports_sfu,    c->oc_out_ports_tensor, c->oc_out_ports_mem,
                                  c->oc_out_ports_gen};
  for (int i = 0; i < SIMT_OC_N; i++) {
    cfg->oc_units[i] = nonneg(units[i]);
    cfg->oc_in_ports[i] = nonneg(in[i]);
    cfg->oc_out_ports[i] = nonneg(out[i]);
  }
  const uint32_t *w = d->pipeline_width;
  cfg->id_oc_width[SIMT_UNIT_SP] = w[GPU_PIPE_ID_OC_SP];
  cfg->id_oc_width[SIMT_UNIT_DP] = w[GPU_PIPE_ID_OC_DP];
  cfg->id_oc_width[SIMT_UNIT_INT] = w[GPU_PIPE_ID_OC_INT];
  cfg->id_oc_width[SIMT_UNIT_SFU] = w[GPU_PIPE_ID_OC_SFU];
  cfg->id_oc_width[SIMT_UNIT_TENSOR] = w[GPU_PIPE_ID_OC_TENSOR];
  cfg->id_oc_width[SIMT_UNIT_MEM] = w[GPU_PIPE_ID_OC_MEM];
  cfg->oc_ex_width[SIMT_UNIT_SP] = w[GPU_PIPE_OC_EX_SP];
  cfg->oc_ex_width[SIMT_UNIT_DP] = w[GPU_PIPE_OC_EX_DP];
  cfg->oc_ex_width[SIMT_UNIT_INT] = w[GPU_PIPE_OC_EX_INT];
  cfg->oc_ex_width[SIMT_UNIT_SFU] = w[GPU_PIPE_OC_EX_SFU];
  cfg->oc_ex_width[SIMT_UNIT_TENSOR] = w[GPU_PIPE_OC_EX_TENSOR];
  cfg->oc_ex_width[SIMT_UNIT_MEM] = w[GPU_PIPE_OC_EX_MEM];
  cfg->result_buses = w[GPU_PIPE_EX_WB];
  cfg->n_units[SIMT_UNIT_SP] = nonneg(c->n_sp_units);
  cfg->n_units[SIMT_UNIT_DP] = nonneg(c->n_dp_units);
  cfg->n_units[SIMT_UNIT_INT] = nonneg(c->n_int_units);
  cfg->n_units[SIMT_UNIT_SFU] = nonneg(c->n_sfu_units);
  cfg->n_units[SIMT_UNIT_TENSOR] = c->tensor_core_avail > 0 ? nonneg(c->n_tensor_units) : 0;
  cfg->n_units[SIMT_UNIT_MEM] = 1;
  for (int op = 0; op < GPU_OP_N; op++) {
    cfg->latency[SIMT_LAT_INT][op] = d->latency_int[op];
    cfg->initiation[SIMT_LAT_INT][op] = d->initiation_int[op];
    /* fp/dp lists have no SHFL column: a shuffle is an integer-pipe operation */
    cfg->latency[SIMT_LAT_FP][op] = op == GPU_OP_SHFL ? d->latency_int[op] : d->latency_fp[op];
    cfg->initiation[SIMT_LAT_FP][op] = op == GPU_OP_SHFL ? d->initiation_int[op] : d->initiation_fp[op];
    cfg->latency[SIMT_LAT_DP][op] = op == GPU_OP_SHFL ? d->latency_int[op] : d->latency_dp[op];
    cfg->initiation[SIMT_LAT_DP][op] = op == GPU_OP_SHFL ? d->initiation_int[op] : d->initiation_dp[op];
    cfg->latency[SIMT_LAT_SFU][op] = d->latency_sfu;
    cfg->initiation[SIMT_LAT_SFU][op] = d->initiation_sfu;
    cfg->latency[SIMT_LAT_TENSOR][op] = d->latency_tensor;
    cfg->initiation[SIMT_LAT_TENSOR][op] = d->initiation_tensor;
  }
  simt_ldst_config *l = &cfg->ldst;
  l->smem_banks = c->shmem_banks;
  l->smem_bank_bytes = 4;
  l->smem_latency = c->smem_latency;
  l->smem_limited_broadcast = c->shmem_limited_broadcast;
  l->smem_warp_parts = c->shmem_warp_parts;
  l->coalesce_arch = c->coalesce_arch;
  l->l1d = c->l1d;
  l->l1c = c->l1c;
  l->l1t = c->l1t;
  l->l1d_latency = c->l1d_latency;
  l->l1d_banks = c->l1d_banks;
  l->l1d_bank_interleave = c->l1d_bank_interleave;
  l->l1d_bank_hash = c->l1d_bank_hash;
  l->gmem_skip_l1d = c->gmem_skip_l1d;
  l->response_buffer = c->ldst_response_buffer;
  l->mem_unit_ports = c->mem_unit_ports;
  l->local_base = 0;
  /* the translation stage: the GPU assembly gives mmu and l2_tlb when a TLB is configured */
  l->l1_tlb_entries = c->tlb_l1_entries;
  l->l1_tlb_assoc = c->tlb_l1_assoc;
  l->l2_tlb_latency = c->tlb_l2_latency;
  cfg->interval_miss_latency = g->mem.rop_latency + g->mem.dram_latency;
  return SIMTVP_OK;
}

/* The variants, for messages. */
#define SIMT_MODELS_BUILT "func, at, ca, interval"

/* ---- fault reports (simt_core_ports.fault) --------------------------------------------------- */

void simt_report_fault(const simt_core_ports *ports, uint32_t sm, uint32_t kernel_slot, simtvp_status status,
                       const simtvp_diag *d, const char *text, uint64_t now) {
  simtvp_msg(&ports->messages, SIMTVP_ERROR, "%s", text);
  if (!ports->fault) return;
  simtvp_diag report = *d;
  report.status = status;
  snprintf(report.message, sizeof report.message, "%s", text);
  ports->fault(ports->ctx, sm, kernel_slot, &report, now);
}

void simt_report_deadlock(const simt_core_ports *ports, uint32_t sm, const simt_kernel *k, const uint32_t cta[3],
                          uint32_t pc, const char *text, bool warps_follow, uint64_t now) {
  simtvp_msg(&ports->messages, SIMTVP_ERROR, "%s%s", text, warps_follow ? "; warps:" : "");
  if (!ports->fault) return;
  simtvp_diag report;
  simtvp_diag_clear(&report);
  simtvp_diag_set(&report, SIMTVP_ERR_DEADLOCK, "%s", text);
  simtvp_diag_at_thread(&report, k->name ? k->name : "?", cta, NULL);
  simtvp_diag_at_pc(&report, pc);
  const ptx_module *m = k->program ? simt_program_module(k->program) : NULL;
  if (m && pc < m->n_insns)
    simtvp_diag_at_file(&report, m->source_name ? m->source_name : "?", m->insns[pc].ptx_line, 0);
  ports->fault(ports->ctx, sm, k->slot, &report, now);
}

/* ---- facade ---------------------------------------------------------------------------------- */

static const simt_core_ops *ops_for(uint8_t model) {
  switch (model) {
  case GPU_FIDELITY_FUNC: return &simt_func_ops;
  case GPU_FIDELITY_CA: return &simt_ca_ops;
  case GPU_FIDELITY_AT: return &simt_at_ops;
  case GPU_FIDELITY_INTERVAL: return &simt_interval_ops;
  default: return NULL;
  }
}

simtvp_status simt_core_create(const simt_core_config *config, simt_core_ports ports,
                               simt_core **out, simtvp_diag *diag) {
  *out = NULL;
  const simt_core_ops *ops = ops_for(config->model);
  if (!ops) {
    simtvp_diag_set(diag, SIMTVP_ERR_UNSUPPORTED,
                    "-simt_model: SIMT core %u asks for model '%s', which this build does not have "
                    "(available: %s)",
                    config->sm, config->model <= GPU_FIDELITY_INTERVAL ? gpu_fidelity_name((gpu_fidelity)config->model) : "?",
                    SIMT_MODELS_BUILT);
    simtvp_diag_at_option(diag, "-simt_model");
    return SIMTVP_ERR_UNSUPPORTED;
  }
  if (!ports.cta_done) {
    simtvp_diag_set(diag, SIMTVP_ERR_ARG, "SIMT core %u: the cta_done port must be connected", config->sm);
    return SIMTVP_ERR_ARG;
  }
  simt_core *c = calloc(1, sizeof *c);
  if (!c) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", config->sm);
  c->ops = ops;
  simtvp_status st = ops->create(config, ports, &c->state, diag);
  if (st != SIMTVP_OK) {
    free(c);
    return st;
  }
  *out = c;
  return SIMTVP_OK;
}

void simt_core_destroy(simt_core *c) {
  if (!c) return;
  c->ops->destroy(c->state);
  free(c);
}

const char *simt_core_model_name(const simt_core *c) { return c->ops->name; }

simtvp_status simt_core_launch_cta(simt_core *c, const simt_kernel *k, const uint32_t cta[3],
                                   uint64_t now, simtvp_diag *diag) {
  return c->ops->launch_cta(c->state, k, cta, now, diag);
}

bool simt_core_mem_reply(simt_core *c, mem_req *reply, uint64_t now) {
  return c->ops->mem_reply(c->state, reply, now);
}

bool simt_core_mem_reply_at(simt_core *c, mem_req *reply, uint64_t at) {
  return c->ops->mem_reply_at && c->ops->mem_reply_at(c->state, reply, at);
}

void simt_core_advance(simt_core *c, uint64_t now) { c->ops->advance(c->state, now); }
uint64_t simt_core_next_event(const simt_core *c) { return c->ops->next_event(c->state); }
bool simt_core_idle(const simt_core *c) { return c->ops->idle(c->state); }
uint32_t simt_core_resident_ctas(const simt_core *c) { return c->ops->resident_ctas(c->state); }
uint32_t simt_core_flush_l1(simt_core *c, uint64_t now) { return c->ops->flush_l1(c->state, now); }
void simt_core_replay(simt_core *c, bool cancel, uint64_t now) {
  if (c->ops->replay) c->ops->replay(c->state, cancel, now);
}

void simt_core_dump(const simt_core *c, void (*line)(void *ctx, const char *text), void *ctx) {
  c->ops->dump(c->state, line, ctx);
}
