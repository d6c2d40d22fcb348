/* gpu_config — option tables of the GPU-wide configuration and its derived values (see
 * gpu_config.h). Option names and defaults are GPGPU-Sim's (4.x option registrations, the 3.x
 * manual's tables; older spellings still found in public configs are accepted as aliases); the
 * descriptions are ours. Options marked CONFIG_NOT_MODELLED are read and checked but ignored. */
#include "gpu_config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- checks of composite values used in the tables ----------------------------------------- */

static bool check_core_pipeline(const char *v, char *why, size_t n) {
  uint32_t x[2];
  if (config_parse_uint_list(v, ':', x, 2) != 2 || x[0] == 0 || x[1] == 0) {
    snprintf(why, n, "expected <max threads per core>:<warp size>, both positive");
    return false;
  }
  if (x[0] % x[1] != 0) {
    snprintf(why, n, "max threads %" PRIu32 " is not a multiple of the warp size %" PRIu32, x[0],
             x[1]);
    return false;
  }
  return true;
}

static bool check_pipeline_widths(const char *v, char *why, size_t n) {
  int k = config_parse_uint_list(v, ',', NULL, GPU_PIPE_N);
  if (k != 9 && k != 11 && k != 13) {
    snprintf(why, n, "expected 9, 11 or 13 comma-separated widths (GPGPU-Sim 3.x, 4.0, 4.x order)");
    return false;
  }
  return true;
}

static bool check_op_list(const char *v, char *why, size_t n) {
  int k = config_parse_uint_list(v, ',', NULL, GPU_OP_N);
  if (k < 1) {
    snprintf(why, n, "expected 1 to %d comma-separated cycle counts (ADD,MAX,MUL,MAD,DIV[,SHFL])",
             GPU_OP_N);
    return false;
  }
  return true;
}

static bool check_one_number(const char *v, char *why, size_t n) {
  if (config_parse_uint_list(v, ',', NULL, 1) != 1) {
    snprintf(why, n, "expected one cycle count");
    return false;
  }
  return true;
}

static bool check_at_sample(const char *v, char *why, size_t n) {
  if (config_parse_uint_list(v, ',', NULL, 2) != 2) {
    snprintf(why, n, "expected two core-cycle counts DETAIL,PERIOD (0,0: every cycle detailed)");
    return false;
  }
  return true;
}

static bool check_fence_latency(const char *v, char *why, size_t n) {
  if (config_parse_uint_list(v, ',', NULL, GPU_FENCE_N) != GPU_FENCE_N) {
    snprintf(why, n, "expected four cycle counts WARP,CTA,GPU,SYS (bar.warp.sync, .cta, .gpu, .sys)");
    return false;
  }
  return true;
}

/* The GPU reports its name through 32 bytes of identification registers (docs/gpu-abi.md). */
static bool check_gpu_name(const char *v, char *why, size_t n) {
  if (strlen(v) > 32) {
    snprintf(why, n, "the name is %zu characters; the GPU's name registers hold at most 32", strlen(v));
    return false;
  }
  return true;
}

static bool check_four_queues(const char *v, char *why, size_t n) {
  if (config_parse_uint_list(v, ':', NULL, 4) != 4) {
    snprintf(why, n, "expected four queue sizes <icnt-to-L2>:<L2-to-DRAM>:<DRAM-to-L2>:<L2-to-icnt>");
    return false;
  }
  return true;
}

static bool check_write_queue(const char *v, char *why, size_t n) {
  uint32_t x[3];
  if (config_parse_uint_list(v, ':', x, 3) != 3) {
    snprintf(why, n, "expected <size>:<high watermark>:<low watermark>");
    return false;
  }
  if (x[1] > x[0] || x[2] > x[1]) {
    snprintf(why, n, "expected size >= high watermark >= low watermark");
    return false;
  }
  return true;
}

static bool check_shmem_option(const char *v, char *why, size_t n) {
  return config_check_uint_list(v, why, n);
}

/* -gpgpu_scheduler: lrr | gto | old | rrr | two_level_active[:<active>:<inner>:<outer>] |
 * warp_limiting:<warps>:<warps per scheduler>. */
static bool parse_scheduler(const char *v, gpu_scheduler_policy *policy, uint32_t params[3],
                            char *why, size_t n) {
  static const struct {
    const char *name;
    gpu_scheduler_policy policy;
    int min_params, max_params;
  } kinds[] = {{"lrr", GPU_SCHED_LRR, 0, 0},
               {"gto", GPU_SCHED_GTO, 0, 0},
               {"old", GPU_SCHED_OLDEST, 0, 0},
               {"rrr", GPU_SCHED_RRR, 0, 0},
               {"two_level_active", GPU_SCHED_TWO_LEVEL_ACTIVE, 0, 3},
               {"warp_limiting", GPU_SCHED_WARP_LIMITING, 2, 2}};
  const char *colon = strchr(v, ':');
  size_t len = colon ? (size_t)(colon - v) : strlen(v);
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    if (strlen(kinds[i].name) != len || strncmp(kinds[i].name, v, len) != 0) continue;
    uint32_t p[3] = {0, 0, 0};
    int k = colon ? config_parse_uint_list(colon + 1, ':', p, 3) : 0;
    if (k < kinds[i].min_params || k > kinds[i].max_params || (colon && k == 0)) {
      snprintf(why, n, "%s takes %d to %d ':'-separated numbers", kinds[i].name,
               kinds[i].min_params, kinds[i].max_params);
      return false;
    }
    if (policy) *policy = kinds[i].policy;
    if (params) memcpy(params, p, sizeof p);
    return true;
  }
  snprintf(why, n,
           "not a scheduler: lrr, gto, old, rrr, two_level_active[:<n>:<inner>:<outer>], "
           "warp_limiting:<n>:<per scheduler>");
  return false;
}

static bool check_scheduler(const char *v, char *why, size_t n) {
  return parse_scheduler(v, NULL, NULL, why, n);
}

/* ---- enum value tables --------------------------------------------------------------------- */

static const config_enum_value simt_models[] = {
    {"func", GPU_FIDELITY_FUNC}, {"at", GPU_FIDELITY_AT}, {"ca", GPU_FIDELITY_CA},
    {"interval", GPU_FIDELITY_INTERVAL}, {NULL, 0}};
static const config_enum_value dram_models[] = {
    {"at", GPU_FIDELITY_AT}, {"ca", GPU_FIDELITY_CA}, {NULL, 0}};
static const config_enum_value dram_schedulers[] = {{"fifo", 0}, {"frfcfs", 1}, {NULL, 0}};
static const config_enum_value sim_modes[] = {{"performance", 0}, {"functional", 1}, {NULL, 0}};
static const config_enum_value network_modes[] = {
    {"intersim", 1}, {"xbar", 2}, {"perfect", 3}, {"fixed", 4}, {NULL, 0}};
static const config_enum_value partition_indexings[] = {
    {"consecutive", 0}, {"bitwise_permutation", 1}, {"ipoly", 2}, {"pae", 3},
    {"random", 4},      {"custom", 5},      {NULL, 0}};

static bool check_override_list(const char *v, const config_enum_value *allowed, char *why,
                                size_t n) {
  uint8_t scratch[1];
  /* Syntax only: indices are checked against the instance count by gpu_config_finalize. */
  return gpu_config_resolve_overrides(v, allowed, 0, scratch, 0, why, n);
}
static bool check_simt_override(const char *v, char *why, size_t n) {
  return check_override_list(v, simt_models, why, n);
}
static bool check_dram_override(const char *v, char *why, size_t n) {
  return check_override_list(v, dram_models, why, n);
}

/* ---- tables -------------------------------------------------------------------------------- */

#define CORE(F, kind, name, def, unit, desc) CONFIG_OPT(gpu_core_config, F, kind, name, def, unit, desc)
#define CORE_X(F, kind, name, def, unit, desc, check, aliases)                                   \
  CONFIG_OPT_X(gpu_core_config, F, kind, name, def, unit, desc, NULL, check, aliases, 0)
#define CACHE_DESC " A GPGPU-Sim cache string or `none`; parsed by the cache model."

static const config_option core_options[] = {
    CORE(n_clusters, CONFIG_UINT, "-gpgpu_n_clusters", "10", "clusters",
         "SIMT core clusters."),
    CORE(n_cores_per_cluster, CONFIG_UINT, "-gpgpu_n_cores_per_cluster", "3", "cores",
         "SIMT cores per cluster; a cluster's cores share its interconnect port."),
    CORE(cluster_ejection_buffer, CONFIG_UINT, "-gpgpu_n_cluster_ejection_buffer_size", "8",
         "packets", "Response packets a cluster can hold from the interconnect."),
    CORE(ldst_response_buffer, CONFIG_UINT, "-gpgpu_n_ldst_response_buffer_size", "2", "packets",
         "Response packets buffered in a core's LD/ST unit."),
    CORE_X(shader_core_pipeline, CONFIG_STRING, "-gpgpu_shader_core_pipeline", "1024:32",
           "threads:threads",
           "Resident threads per core and the warp size, `<threads>:<warp size>`; "
           "threads / warp size is the warp slots per core.",
           check_core_pipeline, NULL),
    CORE(simd_model, CONFIG_INT, "-gpgpu_simd_model", "1", "",
         "Branch-divergence handling; 1 = SIMT stack with immediate post-dominator "
         "reconvergence (the only model)."),
    CORE(registers_per_core, CONFIG_UINT, "-gpgpu_shader_registers", "8192", "registers",
         "32-bit registers per core; limits resident CTAs."),
    CORE(registers_per_cta, CONFIG_UINT, "-gpgpu_registers_per_block", "8192", "registers",
         "Most registers one CTA may use."),
    CORE(ignore_resource_limits, CONFIG_BOOL, "-gpgpu_ignore_resources_limitation", "0", "",
         "Place CTAs without checking register and shared-memory limits."),
    CORE(max_ctas_per_core, CONFIG_UINT, "-gpgpu_shader_cta", "8", "CTAs",
         "Resident CTAs per core."),
    CORE(barriers_per_cta, CONFIG_UINT, "-gpgpu_num_cta_barriers", "16", "barriers",
         "Named barriers per CTA."),
    CORE(shmem_size, CONFIG_UINT, "-gpgpu_shmem_size", "16384", "bytes",
         "Shared memory per core."),
    CORE(shmem_size_default, CONFIG_UINT, "-gpgpu_shmem_sizeDefault", "16384", "bytes",
         "Shared memory per core when the kernel states no cache preference."),
    CORE(shmem_size_pref_l1, CONFIG_UINT, "-gpgpu_shmem_size_PrefL1", "16384", "bytes",
         "Shared memory per core for kernels that prefer L1 (cudaFuncCachePreferL1)."),
    CORE(shmem_size_pref_shared, CONFIG_UINT, "-gpgpu_shmem_size_PrefShared", "16384", "bytes",
         "Shared memory per core for kernels that prefer shared memory."),
    CORE(shmem_per_cta, CONFIG_UINT, "-gpgpu_shmem_per_block", "49152", "bytes",
         "Most shared memory one CTA may use."),
    CORE_X(shmem_option, CONFIG_STRING, "-gpgpu_shmem_option", "0", "KB",
           "Shared-memory sizes the adaptive L1/shared split may choose, comma-separated.",
           check_shmem_option, NULL),
    CORE(unified_l1d_size_kb, CONFIG_UINT, "-gpgpu_unified_l1d_size", "0", "KB",
         "Size of the unified L1D + shared-memory array (adaptive configuration)."),
    CORE_X(adaptive_cache_config, CONFIG_BOOL, "-gpgpu_adaptive_cache_config", "0", "",
           "Give the L1D the part of the unified array the kernel's shared memory leaves.", NULL,
           "-adaptive_volta_cache_config"),
    CORE(shmem_banks, CONFIG_UINT, "-gpgpu_shmem_num_banks", "16", "banks",
         "Shared-memory banks per core."),
    CORE(shmem_limited_broadcast, CONFIG_BOOL, "-gpgpu_shmem_limited_broadcast", "1", "",
         "Shared memory can broadcast only one word per cycle."),
    CORE(shmem_warp_parts, CONFIG_INT, "-gpgpu_shmem_warp_parts", "2", "parts",
         "Parts a warp is split into when checking shared-memory bank conflicts."),
    CORE_X(smem_latency, CONFIG_UINT, "-gpgpu_smem_latency", "3", "core cycles",
           "Shared-memory access latency.", NULL, "-smem_latency"),
    CORE_X(mem_unit_ports, CONFIG_INT, "-gpgpu_mem_unit_ports", "1", "ports",
           "Memory transactions the LD/ST unit may start per core cycle.", NULL,
           "-mem_unit_ports"),
    CORE(tlb_l1_entries, CONFIG_UINT, "-gpgpu_tlb_l1_entries", "0", "entries",
         "Per-core L1 TLB of the timing cores (docs/vm.md); 0 with -gpgpu_tlb_l2_entries 0 = "
         "translation costs no time. Hits cost no cycle."),
    CORE(tlb_l1_assoc, CONFIG_UINT, "-gpgpu_tlb_l1_assoc", "0", "ways",
         "Ways of the L1 TLB; 0 = fully associative."),
    CORE(tlb_l2_entries, CONFIG_UINT, "-gpgpu_tlb_l2_entries", "0", "entries",
         "GPU-wide L2 TLB shared by every core; its misses walk the page tables with one read per "
         "level through the memory system."),
    CORE(tlb_l2_assoc, CONFIG_UINT, "-gpgpu_tlb_l2_assoc", "0", "ways",
         "Ways of the L2 TLB; 0 = fully associative."),
    CORE(tlb_l2_latency, CONFIG_UINT, "-gpgpu_tlb_l2_latency", "10", "core cycles",
         "Cycles an L1 TLB miss that hits the L2 TLB waits."),
    CORE(perfect_mem, CONFIG_BOOL, "-gpgpu_perfect_mem", "0", "",
         "Perfect memory: every access hits, no cache misses."),
    CORE(local_mem_map, CONFIG_BOOL, "-gpgpu_local_mem_map", "1", "",
         "Map local memory into the device's physical address space."),
    CORE(reg_banks, CONFIG_INT, "-gpgpu_num_reg_banks", "8", "banks",
         "Register-file banks per core."),
    CORE(reg_bank_use_warp_id, CONFIG_BOOL, "-gpgpu_reg_bank_use_warp_id", "0", "",
         "Include the warp id in the register-to-bank mapping."),
    CORE(reg_file_port_throughput, CONFIG_INT, "-gpgpu_reg_file_port_throughput", "1", "ports",
         "Ports per register-file bank."),
    CORE(hoist_loads, CONFIG_BOOL, "-ptx_hoist_loads", "0", "",
         "Load hoisting (simtvp): the timing GPU issues each basic block's plain loads ahead of the "
         "independent instructions before them, as ptxas schedules SASS, so that their latencies "
         "overlap; values are unchanged (docs/ptx.md)."),
    CORE(alu_forwarding, CONFIG_BOOL, "-gpgpu_alu_forwarding", "0", "",
         "Result forwarding (simtvp; Volta and later): a fixed-latency SP/INT/DP result releases "
         "the scoreboard early by the issue-to-execute depth, so a dependent chain costs its "
         "latency per instruction instead of latency + 4."),
    CORE_X(fence_latency, CONFIG_STRING, "-gpgpu_fence_latency", "0,0,0,0", "core cycles",
           "Fences by scope (simtvp) WARP,CTA,GPU,SYS: the fewest cycles from a fence's issue to "
           "its warp's next issue, for bar.warp.sync, membar.cta / fence.*.cta (and proxy "
           "fences), membar.gl / fence.*.{gpu,cluster}, membar.sys / fence.*.sys. GPU and SYS "
           "fences also wait for the warp's memory accesses to complete; WARP and CTA ones do "
           "not (docs/simt.md).",
           check_fence_latency, NULL),
    CORE_X(sub_core_model, CONFIG_BOOL, "-gpgpu_sub_core_model", "0", "",
           "Sub-core model (Volta and later): each scheduler has its own register file and "
           "execution units.",
           NULL, "-sub_core_model"),
    CORE_X(specialized_operand_collector, CONFIG_BOOL,
           "-gpgpu_enable_specialized_operand_collector", "1", "",
           "Collector units dedicated to SP/DP/SFU/INT/tensor/MEM; 0 uses the generic units "
           "only.",
           NULL, "-enable_specialized_operand_collector"),
    CORE(oc_units_sp, CONFIG_INT, "-gpgpu_operand_collector_num_units_sp", "4", "units",
         "SP collector units."),
    CORE(oc_units_dp, CONFIG_INT, "-gpgpu_operand_collector_num_units_dp", "0", "units",
         "DP collector units."),
    CORE(oc_units_sfu, CONFIG_INT, "-gpgpu_operand_collector_num_units_sfu", "4", "units",
         "SFU collector units."),
    CORE(oc_units_int, CONFIG_INT, "-gpgpu_operand_collector_num_units_int", "0", "units",
         "INT collector units."),
    CORE(oc_units_tensor, CONFIG_INT, "-gpgpu_operand_collector_num_units_tensor_core", "4",
         "units", "Tensor-core collector units."),
    CORE(oc_units_mem, CONFIG_INT, "-gpgpu_operand_collector_num_units_mem", "2", "units",
         "Memory collector units."),
    CORE(oc_units_gen, CONFIG_INT, "-gpgpu_operand_collector_num_units_gen", "0", "units",
         "Generic collector units (any pipeline)."),
    CORE(oc_in_ports_sp, CONFIG_INT, "-gpgpu_operand_collector_num_in_ports_sp", "1", "ports",
         "SP collector input ports."),
    CORE(oc_in_ports_dp, CONFIG_INT, "-gpgpu_operand_collector_num_in_ports_dp", "0", "ports",
         "DP collector input ports."),
    CORE(oc_in_ports_sfu, CONFIG_INT, "-gpgpu_operand_collector_num_in_ports_sfu", "1", "ports",
         "SFU collector input ports."),
    CORE(oc_in_ports_int, CONFIG_INT, "-gpgpu_operand_collector_num_in_ports_int", "0", "ports",
         "INT collector input ports."),
    CORE(oc_in_ports_tensor, CONFIG_INT, "-gpgpu_operand_collector_num_in_ports_tensor_core", "1",
         "ports", "Tensor-core collector input ports."),
    CORE(oc_in_ports_mem, CONFIG_INT, "-gpgpu_operand_collector_num_in_ports_mem", "1", "ports",
         "Memory collector input ports."),
    CORE(oc_in_ports_gen, CONFIG_INT, "-gpgpu_operand_collector_num_in_ports_gen", "0", "ports",
         "Generic collector input ports."),
    CORE(oc_out_ports_sp, CONFIG_INT, "-gpgpu_operand_collector_num_out_ports_sp", "1", "ports",
         "SP collector output ports."),
    CORE(oc_out_ports_dp, CONFIG_INT, "-gpgpu_operand_collector_num_out_ports_dp", "0", "ports",
         "DP collector output ports."),
    CORE(oc_out_ports_sfu, CONFIG_INT, "-gpgpu_operand_collector_num_out_ports_sfu", "1", "ports",
         "SFU collector output ports."),
    CORE(oc_out_ports_int, CONFIG_INT, "-gpgpu_operand_collector_num_out_ports_int", "0", "ports",
         "INT collector output ports."),
    CORE(oc_out_ports_tensor, CONFIG_INT, "-gpgpu_operand_collector_num_out_ports_tensor_core",
         "1", "ports", "Tensor-core collector output ports."),
    CORE(oc_out_ports_mem, CONFIG_INT, "-gpgpu_operand_collector_num_out_ports_mem", "1", "ports",
         "Memory collector output ports."),
    CORE(oc_out_ports_gen, CONFIG_INT, "-gpgpu_operand_collector_num_out_ports_gen", "0", "ports",
         "Generic collector output ports."),
    CORE(coalesce_arch, CONFIG_INT, "-gpgpu_coalesce_arch", "13", "",
         "Coalescing rule: 13 = compute capability 1.3 segments, 20 and above = 32-byte "
         "sectors of 128-byte lines."),
    CORE(schedulers_per_core, CONFIG_INT, "-gpgpu_num_sched_per_core", "1", "schedulers",
         "Warp schedulers per core."),
    CORE_X(scheduler, CONFIG_STRING, "-gpgpu_scheduler", "gto", "",
           "Warp scheduling policy: `lrr`, `gto`, `old`, `rrr`, "
           "`two_level_active:<active warps>:<inner>:<outer>` or "
           "`warp_limiting:<warps>:<warps per scheduler>`.",
           check_scheduler, NULL),
    CORE(max_insn_issue_per_warp, CONFIG_INT, "-gpgpu_max_insn_issue_per_warp", "2",
         "instructions", "Instructions one warp may issue per cycle (1 or 2)."),
    CORE(dual_issue_diff_exec_units, CONFIG_BOOL, "-gpgpu_dual_issue_diff_exec_units", "1", "",
         "A dual issue must use two different execution units."),
    CORE(core_sim_order, CONFIG_INT, "-gpgpu_simt_core_sim_order", "1", "",
         "Order in which a cluster's cores are stepped: 0 fixed, 1 round robin."),
    CORE_X(pipeline_widths, CONFIG_STRING, "-gpgpu_pipeline_widths", "1,1,1,1,1,1,1,1,1,1,1,1,1",
           "instructions",
           "Pipeline-register widths ID_OC_SP,ID_OC_DP,ID_OC_INT,ID_OC_SFU,ID_OC_MEM,OC_EX_SP,"
           "OC_EX_DP,OC_EX_INT,OC_EX_SFU,OC_EX_MEM,EX_WB,ID_OC_TENSOR_CORE,OC_EX_TENSOR_CORE; "
           "the 9-field (no INT, no tensor) and 11-field (no tensor) forms of older configs are "
           "accepted.",
           check_pipeline_widths, NULL),
    CORE(tensor_core_avail, CONFIG_INT, "-gpgpu_tensor_core_avail", "0", "",
         "Tensor cores present (1) or not (0)."),
    CORE(n_sp_units, CONFIG_INT, "-gpgpu_num_sp_units", "1", "units", "SP units per core."),
    CORE(n_dp_units, CONFIG_INT, "-gpgpu_num_dp_units", "0", "units",
         "DP units per core (0: DP runs on the SFU)."),
    CORE(n_int_units, CONFIG_INT, "-gpgpu_num_int_units", "0", "units",
         "INT units per core (0: integer ops run on the SP units)."),
    CORE(n_sfu_units, CONFIG_INT, "-gpgpu_num_sfu_units", "1", "units", "SFU units per core."),
    CORE(n_tensor_units, CONFIG_INT, "-gpgpu_num_tensor_core_units", "0", "units",
         "Tensor-core units per core."),
    CORE(n_mem_units, CONFIG_INT, "-gpgpu_num_mem_units", "1", "units", "LD/ST units per core."),
    CORE(concurrent_kernel_sm, CONFIG_BOOL, "-gpgpu_concurrent_kernel_sm", "0", "",
         "CTAs of different kernels may share a core."),
    CORE(perfect_inst_const_cache, CONFIG_BOOL, "-gpgpu_perfect_inst_const_cache", "0", "",
         "Instruction and constant caches always hit."),
    CORE(inst_fetch_throughput, CONFIG_INT, "-gpgpu_inst_fetch_throughput", "1", "instructions",
         "Instructions fetched per warp per fetch."),
    CORE_X(latency_int, CONFIG_STRING, "-ptx_opcode_latency_int", "1,1,19,25,145,32",
           "core cycles", "Integer latencies ADD,MAX,MUL,MAD,DIV,SHFL.", check_op_list, NULL),
    CORE_X(latency_fp, CONFIG_STRING, "-ptx_opcode_latency_fp", "1,1,1,1,30", "core cycles",
           "Single-precision latencies ADD,MAX,MUL,MAD,DIV.", check_op_list, NULL),
    CORE_X(latency_dp, CONFIG_STRING, "-ptx_opcode_latency_dp", "8,8,8,8,335", "core cycles",
           "Double-precision latencies ADD,MAX,MUL,MAD,DIV.", check_op_list, NULL),
    CORE_X(latency_sfu, CONFIG_STRING, "-ptx_opcode_latency_sfu", "8", "core cycles",
           "SFU instruction latency.", check_one_number, NULL),
    CORE_X(latency_tensor, CONFIG_STRING, "-ptx_opcode_latency_tesnor", "64", "core cycles",
           "Tensor-core instruction latency (GPGPU-Sim spells the option `tesnor`).",
           check_one_number, "-ptx_opcode_latency_tensor"),
    CORE_X(initiation_int, CONFIG_STRING, "-ptx_opcode_initiation_int", "1,1,4,4,32,4",
           "core cycles", "Integer initiation intervals ADD,MAX,MUL,MAD,DIV,SHFL.", check_op_list,
           NULL),
    CORE_X(initiation_fp, CONFIG_STRING, "-ptx_opcode_initiation_fp", "1,1,1,1,5", "core cycles",
           "Single-precision initiation intervals ADD,MAX,MUL,MAD,DIV.", check_op_list, NULL),
    CORE_X(initiation_dp, CONFIG_STRING, "-ptx_opcode_initiation_dp", "8,8,8,8,130", "core cycles",
           "Double-precision initiation intervals ADD,MAX,MUL,MAD,DIV.", check_op_list, NULL),
    CORE_X(initiation_sfu, CONFIG_STRING, "-ptx_opcode_initiation_sfu", "8", "core cycles",
           "SFU initiation interval.", check_one_number, NULL),
    CORE_X(initiation_tensor, CONFIG_STRING, "-ptx_opcode_initiation_tensor", "64", "core cycles",
           "Tensor-core initiation interval.", check_one_number, NULL),
    CORE_X(l1d, CONFIG_STRING, "-gpgpu_cache:dl1", "none", "",
           "L1 data cache of each core." CACHE_DESC, config_check_cache, NULL),
    CORE_X(l1d_pref_l1, CONFIG_STRING, "-gpgpu_cache:dl1PrefL1", "none", "",
           "L1 data cache for kernels that prefer L1." CACHE_DESC, config_check_cache, NULL),
    CORE_X(l1d_pref_shared, CONFIG_STRING, "-gpgpu_cache:dl1PrefShared", "none", "",
           "L1 data cache for kernels that prefer shared memory." CACHE_DESC, config_check_cache,
           NULL),
    CORE_X(l1i, CONFIG_STRING, "-gpgpu_cache:il1", "4:256:4,L:R:f:N,A:2:32,4", "",
           "L1 instruction cache of each core." CACHE_DESC, config_check_cache, NULL),
    CORE_X(l1t, CONFIG_STRING, "-gpgpu_tex_cache:l1", "8:128:5,L:R:m:N,F:128:4,128:2", "",
           "Texture cache of each core (read-only; the 4th group gives the fragment FIFO)."
           CACHE_DESC,
           config_check_cache, NULL),
    CORE_X(l1c, CONFIG_STRING, "-gpgpu_const_cache:l1", "64:64:2,L:R:f:N,A:2:32,4", "",
           "Constant cache of each core (read-only)." CACHE_DESC, config_check_cache, NULL),
    CORE(l1d_write_ratio, CONFIG_UINT, "-gpgpu_l1_cache_write_ratio", "0", "percent",
         "Share of the L1D ways that may hold written data."),
    CORE(l1d_banks, CONFIG_UINT, "-gpgpu_l1_banks", "1", "banks", "L1D banks."),
    CORE(l1d_bank_interleave, CONFIG_UINT, "-gpgpu_l1_banks_byte_interleaving", "32", "bytes",
         "Interleaving granularity of the L1D banks."),
    CORE(l1d_bank_hash, CONFIG_UINT, "-gpgpu_l1_banks_hashing_function", "0", "",
         "L1D bank selection: 0 linear, 1 xor hash."),
    CORE_X(l1d_latency, CONFIG_UINT, "-gpgpu_l1_latency", "1", "core cycles", "L1D hit latency.",
           NULL, "-l1_latency"),
    CORE_X(gmem_skip_l1d, CONFIG_BOOL, "-gpgpu_gmem_skip_L1D", "0", "",
           "Global accesses bypass the L1D (as with `-Xptxas -dlcm=cg`).", NULL,
           "-gmem_skip_L1D"),
    CORE(flush_l1_per_kernel, CONFIG_BOOL, "-gpgpu_flush_l1_cache", "0", "",
         "Flush the L1 caches at the end of each kernel."),
    /* Power-model and statistics knobs of the core, accepted and ignored. */
    CONFIG_OPT_IGNORED(CONFIG_UINT, "-n_regfile_gating_group", "4",
                       "Register-file lanes gated together (power model)."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-gpgpu_clock_gated_reg_file", "0",
                       "Clock-gated register file (power model)."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-gpgpu_clock_gated_lanes", "0",
                       "Clock-gated lanes (power model)."),
    CONFIG_OPT_IGNORED(CONFIG_INT, "-gpgpu_warpdistro_shader", "-1",
                       "Core whose warp-size distribution is collected (statistics)."),
    CONFIG_OPT_IGNORED(CONFIG_INT, "-gpgpu_warp_issue_shader", "0",
                       "Core whose warp-issue distribution is collected (statistics)."),
    CONFIG_OPT_IGNORED(CONFIG_STRING, "-specialized_unit_1", "0,4,4,4,4,BRA",
                       "Extra execution unit for SASS traces (Accel-Sim trace mode)."),
    CONFIG_OPT_IGNORED(CONFIG_STRING, "-specialized_unit_2", "0,4,4,4,4,BRA",
                       "Extra execution unit for SASS traces."),
    CONFIG_OPT_IGNORED(CONFIG_STRING, "-specialized_unit_3", "0,4,4,4,4,BRA",
                       "Extra execution unit for SASS traces."),
    CONFIG_OPT_IGNORED(CONFIG_STRING, "-specialized_unit_4", "0,4,4,4,4,BRA",
                       "Extra execution unit for SASS traces."),
    CONFIG_OPT_IGNORED(CONFIG_STRING, "-specialized_unit_5", "0,4,4,4,4,BRA",
                       "Extra execution unit for SASS traces."),
    CONFIG_OPT_IGNORED(CONFIG_STRING, "-specialized_unit_6", "0,4,4,4,4,BRA",
                       "Extra execution unit for SASS traces."),
    CONFIG_OPT_IGNORED(CONFIG_STRING, "-specialized_unit_7", "0,4,4,4,4,BRA",
                       "Extra execution unit for SASS traces."),
    CONFIG_OPT_IGNORED(CONFIG_STRING, "-specialized_unit_8", "0,4,4,4,4,BRA",
                       "Extra execution unit for SASS traces."),
};

#define MEM(F, kind, name, def, unit, desc) CONFIG_OPT(gpu_mem_config, F, kind, name, def, unit, desc)
#define MEM_X(F, kind, name, def, unit, desc, enums, check, aliases)                             \
  CONFIG_OPT_X(gpu_mem_config, F, kind, name, def, unit, desc, enums, check, aliases, 0)

static const config_option mem_options[] = {
    MEM(n_channels, CONFIG_UINT, "-gpgpu_n_mem", "8", "channels",
        "Memory channels (each a DRAM controller with its memory partition)."),
    MEM(sub_partitions_per_channel, CONFIG_UINT, "-gpgpu_n_sub_partition_per_mchannel", "1",
        "sub-partitions", "Sub-partitions (L2 slices) per channel."),
    MEM(chips_per_channel, CONFIG_UINT, "-gpgpu_n_mem_per_ctrlr", "1", "chips",
        "DRAM chips per channel; the channel's bus is chips x `-gpgpu_dram_buswidth` wide."),
    MEM_X(l2, CONFIG_STRING, "-gpgpu_cache:dl2", "64:128:8,L:B:m:N,A:16:4,4", "",
          "L2 cache of each sub-partition." CACHE_DESC, NULL, config_check_cache, NULL),
    MEM(l2_texture_only, CONFIG_BOOL, "-gpgpu_cache:dl2_texture_only", "1", "",
        "The L2 caches texture accesses only."),
    MEM(l2_ideal, CONFIG_BOOL, "-l2_ideal", "0", "", "Every L2 access hits."),
    MEM_X(partition_queues, CONFIG_STRING, "-gpgpu_dram_partition_queues", "8:8:8:8", "entries",
          "Partition queues `<icnt-to-L2>:<L2-to-DRAM>:<DRAM-to-L2>:<L2-to-icnt>`.", NULL,
          check_four_queues, NULL),
    MEM_X(rop_latency, CONFIG_UINT, "-gpgpu_l2_rop_latency", "85", "core cycles",
          "Minimum latency of the ROP queue in front of the L2.", NULL, NULL, "-rop_latency"),
    MEM(dram_latency, CONFIG_UINT, "-dram_latency", "30", "core cycles",
        "Fixed latency added between the L2 and the DRAM controller."),
    MEM(l2_atomic_ops, CONFIG_UINT, "-gpgpu_l2_atomic_ops_per_cycle", "0", "operations",
        "Atomic operations an L2 slice executes per L2 cycle (simtvp): an atomic request "
        "carrying k lane operations holds the slice's atomic unit for ceil(k / n) cycles, so "
        "atomics to one address serialise; 0 = unlimited (GPGPU-Sim's behaviour)."),
    MEM_X(perf_sim_memcpy, CONFIG_BOOL, "-gpgpu_perf_sim_memcpy", "1", "",
          "Host-to-device copies also fill the L2.", NULL, NULL, "-perf_sim_memcpy"),
    MEM_X(partition_indexing, CONFIG_ENUM, "-gpgpu_memory_partition_indexing", "0", "",
          "How addresses are spread over channels.", partition_indexings, NULL,
          "-memory_partition_indexing"),
    MEM_X(addr_mapping, CONFIG_STRING, "-gpgpu_mem_addr_mapping", "", "",
          "Address decoding `[dramid@<bit>;]<mask>`: the mask gives each address bit, most "
          "significant first, as D (channel), B (bank), R (row), C (column), S (burst) or 0; "
          "`.` separators are ignored. Empty: the memory partition's default mapping.",
          NULL, config_check_addr_mapping, NULL),
    MEM(address_mask, CONFIG_INT, "-gpgpu_mem_address_mask", "0", "",
        "Address-mask preset of the address decoder."),
    MEM(flush_l2_per_kernel, CONFIG_BOOL, "-gpgpu_flush_l2_cache", "0", "",
        "Flush the L2 at the end of each kernel."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-gpgpu_mem_addr_test", "0",
                       "Self-test of the address decoder."),
    CONFIG_OPT_IGNORED(CONFIG_INT, "-gpgpu_memlatency_stat", "0",
                       "Memory-latency statistics flags (simtvp always collects its statistics)."),
};

#define DRAM(F, kind, name, def, unit, desc) CONFIG_OPT(gpu_dram_config, F, kind, name, def, unit, desc)
#define DRAM_X(F, kind, name, def, unit, desc, enums, check, aliases)                            \
  CONFIG_OPT_X(gpu_dram_config, F, kind, name, def, unit, desc, enums, check, aliases, 0)

static const config_option dram_options[] = {
    DRAM_X(scheduler, CONFIG_ENUM, "-gpgpu_dram_scheduler", "1", "",
           "DRAM request scheduler.", dram_schedulers, NULL, NULL),
    DRAM(sched_queue_size, CONFIG_INT, "-gpgpu_frfcfs_dram_sched_queue_size", "0", "entries",
         "Scheduler queue per channel; 0 = unlimited."),
    DRAM(return_queue_size, CONFIG_INT, "-gpgpu_dram_return_queue_size", "0", "entries",
         "Return queue per channel; 0 = unlimited."),
    DRAM(bus_width, CONFIG_UINT, "-gpgpu_dram_buswidth", "4", "bytes",
         "Data-bus width of one DRAM chip."),
    DRAM(burst_length, CONFIG_UINT, "-gpgpu_dram_burst_length", "4", "beats",
         "Burst length of one DRAM access, in data-bus transfers."),
    DRAM(data_command_freq_ratio, CONFIG_UINT, "-dram_data_command_freq_ratio", "2", "",
         "Data transfers per command-clock cycle (2 DDR, 4 GDDR5/GDDR6)."),
    DRAM_X(timing, CONFIG_STRING, "-gpgpu_dram_timing_opt", "4:2:8:12:21:13:34:9:4:5:13:1:0:0",
           "command cycles",
           "DRAM timing, ordered `nbk:tCCD:tRRD:tRCD:tRAS:tRP:tRC:CL:WL:tCDLR:tWR:nbkgrp:tCCDL:"
           "tRTPL` or named `nbk=16:CCD=2:RRD=6:RCD=12:RAS=28:RP=12:RC=40:CL=12:WL=4:CDLR=5:WR=12:"
           "nbkgrp=4:CCDL=3:RTPL=2`; parsed by the DRAM model.",
           NULL, gpu_config_check_dram_timing, NULL),
    DRAM_X(dual_bus_interface, CONFIG_UINT, "-dram_dual_bus_interface", "0", "",
           "Separate row and column command buses (HBM).", NULL, NULL, "-dual_bus_interface"),
    DRAM(bank_indexing, CONFIG_UINT, "-dram_bnk_indexing_policy", "0", "",
         "Bank index: 0 from the address bits, 1 xor-ed with row bits."),
    DRAM(bankgroup_indexing, CONFIG_UINT, "-dram_bnkgrp_indexing_policy", "0", "",
         "Bank-group index: 0 upper bank bits, 1 lower bank bits."),
    DRAM_X(separate_write_queue, CONFIG_BOOL, "-dram_seperate_write_queue_enable", "0", "",
           "Writes wait in their own queue, drained between watermarks.", NULL, NULL,
           "-Seperate_Write_Queue_Enable"),
    DRAM_X(write_queue_size, CONFIG_STRING, "-dram_write_queue_size", "32:28:16", "entries",
           "Write queue `<size>:<high watermark>:<low watermark>`.", NULL, check_write_queue,
           "-Write_Queue_Size"),
    DRAM(eliminate_rw_turnaround, CONFIG_BOOL, "-dram_elimnate_rw_turnaround", "0", "",
         "No read/write turnaround (tRTW = tWTR = 0)."),
    DRAM(simple_model, CONFIG_BOOL, "-gpgpu_simple_dram_model", "0", "",
         "Fixed-latency, fixed-bandwidth DRAM instead of banks and timing."),
    DRAM(refresh, CONFIG_BOOL, "-dram_refresh", "0", "",
         "simtvp: model refresh (all banks closed for tRFC every tREFI). GPGPU-Sim has none."),
    DRAM(trefi_ns, CONFIG_DOUBLE, "-dram_trefi_ns", "7812.5", "ns",
         "simtvp: average refresh interval (64 ms / 8192 refresh commands, the JEDEC norm)."),
    DRAM(trfc_ns, CONFIG_DOUBLE, "-dram_trfc_ns", "350", "ns",
         "simtvp: refresh cycle time (DDR4 8 Gb value of JESD79-4; set the device's own)."),
};

#define ICNT(F, kind, name, def, unit, desc) CONFIG_OPT(gpu_icnt_config, F, kind, name, def, unit, desc)
#define ICNT_X(F, kind, name, def, unit, desc, enums, aliases, flags)                            \
  CONFIG_OPT_X(gpu_icnt_config, F, kind, name, def, unit, desc, enums, NULL, aliases, flags)

static const config_option icnt_options[] = {
    ICNT_X(network_mode, CONFIG_ENUM, "-network_mode", "1", "",
           "Interconnect: 1 the network described by `-inter_config_file`, 2 the built-in "
           "crossbar (`-icnt_*`); simtvp adds 3 perfect (no latency, no contention) and 4 fixed "
           "latency per hop.",
           network_modes, NULL, 0),
    ICNT_X(config_file, CONFIG_STRING, "-inter_config_file", "", "",
           "BookSim-style network description (GPGPU-Sim `.icnt` file) for network mode 1.", NULL,
           NULL, CONFIG_PATH),
    ICNT_X(in_buffer_limit, CONFIG_UINT, "-icnt_in_buffer_limit", "64", "packets",
           "Crossbar input buffer per port.", NULL, "-inct_in_buffer_limit", 0),
    ICNT_X(out_buffer_limit, CONFIG_UINT, "-icnt_out_buffer_limit", "64", "packets",
           "Crossbar output buffer per port.", NULL, "-inct_out_buffer_limit", 0),
    ICNT_X(subnets, CONFIG_UINT, "-icnt_subnets", "2", "subnets",
           "Separate request and response networks (2) or one shared (1).", NULL,
           "-inct_subnets", 0),
    ICNT(arbiter_algo, CONFIG_UINT, "-icnt_arbiter_algo", "1", "",
         "Crossbar arbiter: 0 round robin, 1 iSLIP."),
    ICNT(grant_cycles, CONFIG_UINT, "-icnt_grant_cycles", "1", "interconnect cycles",
         "Cycles an iSLIP grant is held."),
    ICNT(flit_size, CONFIG_UINT, "-icnt_flit_size", "32", "bytes", "Flit size."),
    ICNT(hop_latency, CONFIG_UINT, "-icnt_hop_latency", "1", "interconnect cycles",
         "simtvp: latency per hop in network mode 4 (fixed)."),
    CONFIG_OPT_IGNORED(CONFIG_UINT, "-icnt_verbose", "0", "Crossbar debug output."),
};

static const config_option clock_options[] = {
    CONFIG_OPT_X(gpu_clock_config, domains, CONFIG_STRING, "-gpgpu_clock_domains",
                 "500.0:2000.0:2000.0:2000.0", "MHz",
                 "Clock domains `<core>:<interconnect>:<L2>:<DRAM>`; the DRAM figure is the "
                 "command clock.",
                 NULL, config_check_clock_domains, NULL, 0),
};

#define SIM(F, kind, name, def, unit, desc) CONFIG_OPT(gpu_sim_config, F, kind, name, def, unit, desc)

static const config_option sim_options[] = {
    CONFIG_OPT_X(gpu_sim_config, ptx_sim_mode, CONFIG_ENUM, "-gpgpu_ptx_sim_mode", "0", "",
                 "Performance (timing) simulation, or functional only (every SIMT core runs "
                 "`func`, whatever `-simt_model` says).",
                 sim_modes, NULL, NULL, 0),
    SIM(max_cycle, CONFIG_UINT64, "-gpgpu_max_cycle", "0", "core cycles",
        "Stop the simulation after this many cycles; 0 = no limit."),
    SIM(max_insn, CONFIG_UINT64, "-gpgpu_max_insn", "0", "thread instructions",
        "Stop after this many instructions, counted like `gpu_sim_insn` (one per active "
        "thread); 0 = no limit."),
    SIM(max_cta, CONFIG_UINT, "-gpgpu_max_cta", "0", "CTAs",
        "Stop after this many CTAs were issued; 0 = no limit."),
    SIM(max_completed_cta, CONFIG_UINT, "-gpgpu_max_completed_cta", "0", "CTAs",
        "Stop after this many CTAs completed; 0 = no limit."),
    SIM(deadlock_detect, CONFIG_BOOL, "-gpgpu_deadlock_detect", "1", "",
        "Stop with a dump of every warp and the requests in flight when nothing progresses."),
    SIM(deadlock_cycles, CONFIG_UINT64, "-deadlock_cycles", "100000", "core cycles",
        "simtvp: cycles without an instruction committing or a request completing that count as "
        "a deadlock."),
    SIM(max_concurrent_kernel, CONFIG_INT, "-gpgpu_max_concurrent_kernel", "8", "kernels",
        "Kernels that may run at once (from different streams)."),
    SIM(kernel_launch_latency, CONFIG_INT, "-gpgpu_kernel_launch_latency", "0", "core cycles",
        "Delay from a kernel's start on the GPU to the issue of its first CTA; counts in "
        "`gpu_sim_cycle`. Timing SIMT side only (the functional side takes no GPU time)."),
    SIM(cta_launch_latency, CONFIG_INT, "-gpgpu_TB_launch_latency", "0", "core cycles",
        "Delay from a CTA's issue (its core's slot is taken then) to its start on the core. "
        "Timing SIMT side only. GPGPU-Sim instead adds the number of CTAs times this value to "
        "the kernel's start delay."),
    SIM(cc_major, CONFIG_UINT, "-gpgpu_compute_capability_major", "7", "",
        "Compute capability reported to programs (major)."),
    SIM(cc_minor, CONFIG_UINT, "-gpgpu_compute_capability_minor", "0", "",
        "Compute capability reported to programs (minor)."),
    SIM(ptx_force_max_capability, CONFIG_UINT, "-gpgpu_ptx_force_max_capability", "0", "",
        "Highest PTX target (e.g. 70) chosen from a fatbin; 0 = the compute capability."),
    SIM(stack_size_limit, CONFIG_INT, "-gpgpu_stack_size_limit", "1024", "bytes",
        "Per-thread stack (cudaLimitStackSize)."),
    SIM(heap_size_limit, CONFIG_INT, "-gpgpu_heap_size_limit", "8388608", "bytes",
        "Device malloc heap (cudaLimitMallocHeapSize)."),
    SIM(runtime_sync_depth_limit, CONFIG_INT, "-gpgpu_runtime_sync_depth_limit", "2", "",
        "Device-runtime synchronisation depth (cudaLimitDevRuntimeSyncDepth)."),
    SIM(runtime_pending_launch_count_limit, CONFIG_INT,
        "-gpgpu_runtime_pending_launch_count_limit", "2048", "launches",
        "Device-runtime pending launches (cudaLimitDevRuntimePendingLaunchCount)."),
    SIM(memcheck, CONFIG_BOOL, "-memcheck", "0", "",
        "simtvp: the memory checker (`simtvp --memcheck`): an access outside the program's live "
        "allocations, into a freed one or misaligned stops the kernel with a report naming the "
        "nearest allocation; allocations still live at exit are reported as leaks. "
        "docs/memcheck.md."),
    /* Functional-simulator, debugging, tracing, visualiser and power options of GPGPU-Sim. */
    CONFIG_OPT_IGNORED(CONFIG_INT, "-gpgpu_ptx_instruction_classification", "0",
                       "Per-kernel instruction classification output."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-gpgpu_ptx_convert_to_ptxplus", "0",
                       "Run SASS converted to PTXPlus (simtvp runs PTX)."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-gpgpu_ptx_save_converted_ptxplus", "0",
                       "Save the converted PTXPlus."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-gpgpu_ptx_use_cuobjdump", "1",
                       "Extract PTX with cuobjdump (simtvp reads fatbins itself)."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-gpgpu_experimental_lib_support", "0",
                       "Extract code from CUDA libraries."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-gpgpu_ptx_inst_debug_to_file", "0",
                       "Write executed instructions to a debug file."),
    CONFIG_OPT_IGNORED(CONFIG_STRING, "-gpgpu_ptx_inst_debug_file", "inst_debug.txt",
                       "Debug file of executed instructions."),
    CONFIG_OPT_IGNORED(CONFIG_INT, "-gpgpu_ptx_inst_debug_thread_uid", "1",
                       "Thread whose instructions go to the debug file."),
    CONFIG_OPT_IGNORED(CONFIG_INT, "-gpgpu_occupancy_sm_number", "0",
                       "SM version passed to ptxas for occupancy information."),
    CONFIG_OPT_IGNORED(CONFIG_INT, "-checkpoint_option", "0", "Checkpoint a kernel."),
    CONFIG_OPT_IGNORED(CONFIG_INT, "-checkpoint_kernel", "1", "Kernel to checkpoint."),
    CONFIG_OPT_IGNORED(CONFIG_INT, "-checkpoint_CTA", "0", "CTA to checkpoint."),
    CONFIG_OPT_IGNORED(CONFIG_INT, "-resume_option", "0", "Resume from a checkpoint."),
    CONFIG_OPT_IGNORED(CONFIG_INT, "-resume_kernel", "0", "Kernel to resume."),
    CONFIG_OPT_IGNORED(CONFIG_INT, "-resume_CTA", "0", "CTA to resume."),
    CONFIG_OPT_IGNORED(CONFIG_INT, "-checkpoint_CTA_t", "0", "CTA of the checkpoint."),
    CONFIG_OPT_IGNORED(CONFIG_INT, "-checkpoint_insn_Y", "0", "Instruction of the checkpoint."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-gpgpu_cdp_enabled", "0", "CUDA dynamic parallelism."),
    CONFIG_OPT_IGNORED(CONFIG_STRING, "-cdp_latency", "7200,8000,100,12000,1600",
                       "Latencies of the device-runtime API calls."),
    CONFIG_OPT_IGNORED(CONFIG_STRING, "-gpgpu_runtime_stat", "10000:0",
                       "Periodic statistics on stdout (simtvp: `-stats_series_period_ns`)."),
    CONFIG_OPT_IGNORED(CONFIG_INT, "-gpgpu_cflog_interval", "0", "Control-flow logger interval."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-visualizer_enabled", "1", "AerialVision log output."),
    CONFIG_OPT_IGNORED(CONFIG_STRING, "-visualizer_outputfile", "", "AerialVision log file."),
    CONFIG_OPT_IGNORED(CONFIG_INT, "-visualizer_zlevel", "6", "AerialVision log compression."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-trace_enabled", "0", "Debug trace output."),
    CONFIG_OPT_IGNORED(CONFIG_STRING, "-trace_components", "none", "Debug trace components."),
    CONFIG_OPT_IGNORED(CONFIG_INT, "-trace_sampling_core", "0", "Core traced."),
    CONFIG_OPT_IGNORED(CONFIG_INT, "-trace_sampling_memory_partition", "-1",
                       "Memory partition traced."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-power_simulation_enabled", "0", "GPUWattch/AccelWattch."),
    CONFIG_OPT_IGNORED(CONFIG_STRING, "-gpuwattch_xml_file", "gpuwattch.xml",
                       "GPUWattch configuration."),
    CONFIG_OPT_IGNORED(CONFIG_STRING, "-accelwattch_xml_file", "accelwattch_sass_sim.xml",
                       "AccelWattch configuration."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-power_per_cycle_dump", "0", "Power output every cycle."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-power_trace_enabled", "0", "Power trace file."),
    CONFIG_OPT_IGNORED(CONFIG_INT, "-power_trace_zlevel", "6", "Power trace compression."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-steady_power_levels_enabled", "0", "Steady power levels."),
    CONFIG_OPT_IGNORED(CONFIG_STRING, "-steady_state_definition", "8:4",
                       "Steady-state detection of the power model."),
    CONFIG_OPT_IGNORED(CONFIG_INT, "-power_simulation_mode", "0",
                       "Power model inputs (simulation, hardware, hybrid)."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-dvfs_enabled", "0", "DVFS in the power model."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-aggregate_power_stats", "0", "Power summed over kernels."),
    CONFIG_OPT_IGNORED(CONFIG_STRING, "-hw_perf_file_name", "hw_perf.csv",
                       "Hardware counters for AccelWattch."),
    CONFIG_OPT_IGNORED(CONFIG_STRING, "-hw_perf_bench_name", "",
                       "Kernel name in the hardware counter file."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-accelwattch_hybrid_perfsim_L1_RH", "0", "AccelWattch hybrid input."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-accelwattch_hybrid_perfsim_L1_RM", "0", "AccelWattch hybrid input."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-accelwattch_hybrid_perfsim_L1_WH", "0", "AccelWattch hybrid input."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-accelwattch_hybrid_perfsim_L1_WM", "0", "AccelWattch hybrid input."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-accelwattch_hybrid_perfsim_L2_RH", "0", "AccelWattch hybrid input."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-accelwattch_hybrid_perfsim_L2_RM", "0", "AccelWattch hybrid input."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-accelwattch_hybrid_perfsim_L2_WH", "0", "AccelWattch hybrid input."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-accelwattch_hybrid_perfsim_L2_WM", "0", "AccelWattch hybrid input."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-accelwattch_hybrid_perfsim_CC_ACC", "0", "AccelWattch hybrid input."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-accelwattch_hybrid_perfsim_SHARED_ACC", "0", "AccelWattch hybrid input."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-accelwattch_hybrid_perfsim_DRAM_RD", "0", "AccelWattch hybrid input."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-accelwattch_hybrid_perfsim_DRAM_WR", "0", "AccelWattch hybrid input."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-accelwattch_hybrid_perfsim_NOC", "0", "AccelWattch hybrid input."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-accelwattch_hybrid_perfsim_PIPE_DUTY", "0", "AccelWattch hybrid input."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-accelwattch_hybrid_perfsim_NUM_SM_IDLE", "0", "AccelWattch hybrid input."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-accelwattch_hybrid_perfsim_CYCLES", "0", "AccelWattch hybrid input."),
    CONFIG_OPT_IGNORED(CONFIG_BOOL, "-accelwattch_hybrid_perfsim_VOLTAGE", "0", "AccelWattch hybrid input."),
};

#define FID_X(F, kind, name, def, desc, enums, check)                                             \
  CONFIG_OPT_X(gpu_fidelity_config, F, kind, name, def, "", desc, enums, check, NULL, 0)

static const config_option fidelity_options[] = {
    FID_X(simt_model, CONFIG_ENUM, "-simt_model", "ca",
          "Fidelity of every SIMT core: functional only (`func`), approximately timed (`at`), "
          "cycle accurate (`ca`), or timed by intervals (`interval`, docs/simt-interval.md).",
          simt_models, NULL),
    FID_X(simt_model_override, CONFIG_STRING, "-simt_model_override", "",
          "Per-core exceptions to `-simt_model`, `<core>[-<core>]:<model>` separated by ','; "
          "e.g. `0-3:ca` runs cores 0 to 3 cycle accurate and the rest as `-simt_model` says.",
          NULL, check_simt_override),
    FID_X(dram_model, CONFIG_ENUM, "-dram_model", "ca",
          "Fidelity of every DRAM channel: approximately timed or cycle accurate.", dram_models,
          NULL),
    FID_X(dram_model_override, CONFIG_STRING, "-dram_model_override", "",
          "Per-channel exceptions to `-dram_model`, `<channel>[-<channel>]:<model>` separated by "
          "','.",
          NULL, check_dram_override),
    FID_X(icnt_model, CONFIG_ENUM, "-icnt_model", "ca",
          "Fidelity of the interconnect: `ca` steps flits through the configured topology; `at` "
          "computes each packet's arrival when it is injected, from the topology's latencies and "
          "each port's bandwidth (docs/icnt.md). One instance: the whole network.",
          dram_models, NULL),
    FID_X(mempart_model, CONFIG_ENUM, "-mempart_model", "ca",
          "Fidelity of every memory partition (L2 slices, their queues, the DRAM-side arbiter): "
          "`ca` moves requests queue by queue each cycle; `at` computes their service times when "
          "they arrive (docs/mempart.md).",
          dram_models, NULL),
    FID_X(mempart_model_override, CONFIG_STRING, "-mempart_model_override", "",
          "Per-partition exceptions to `-mempart_model`, `<channel>[-<channel>]:<model>` "
          "separated by ','.",
          NULL, check_dram_override),
    CONFIG_OPT(gpu_fidelity_config, func_threads, CONFIG_UINT, "-func_threads", "1", "threads",
               "Host threads that run a kernel's CTAs on the functional SIMT side (`-simt_model "
               "func`); 1 runs them one by one, deterministically. With more, results that depend "
               "on the order of CTAs (atomics' return values, float atomic sums, races, printf "
               "order) may differ from run to run. A kernel launched while host memory is mapped "
               "into the GPU, or once unified memory's fault buffer is set up, runs CTA by CTA on "
               "one thread (it may wait for the host or on replayable faults). Timing SIMT sides "
               "ignore it."),
    CONFIG_OPT(gpu_fidelity_config, func_step_insns, CONFIG_UINT, "-func_step_insns", "4096", "warp insns",
               "The functional SIMT side's step (docs/system-modes.md §2.4): while host memory is "
               "mapped into the GPU, a CTA that has run this many warp instructions without ending "
               "yields and resumes as many core cycles later, so a kernel that waits for the host "
               "lets simulated time (and the host) advance. 0: every CTA runs to its end at once. "
               "CTAs of kernels without host memory always run to their end at once. With "
               "-func_threads > 1 a kernel launched while host memory is mapped runs CTA by CTA "
               "like this on one thread."),
    CONFIG_OPT(gpu_fidelity_config, sim_threads, CONFIG_UINT, "-sim_threads", "1", "threads",
               "Host threads that advance the timing GPU: the SIMT clusters, memory partitions and "
               "DRAM channels of a clock domain due at the same edge are ticked in parallel. The "
               "statistics are the same, bit for bit, for every thread count (docs/timing.md "
               "\"Parallel simulation\" lists the one exception: CTAs on different SMs racing on "
               "the same global address in the same core cycle). The functional SIMT side ignores "
               "it (`-func_threads`)."),
    FID_X(at_sample, CONFIG_STRING, "-at_sample", "0,0",
          "Sampled timing on AT and interval SIMT cores (simtvp; docs/simt-at.md §6a, "
          "docs/simt-interval.md §10), DETAIL,PERIOD in core cycles: in every PERIOD the first "
          "DETAIL cycles are timed in detail, the rest fast-forward. AT cores (the whole GPU in "
          "the same phase): warps issue as in detail, but their global, local, constant and "
          "parameter accesses take the memory-stage occupancy and latency their core measured in "
          "the detail phases and send nothing to the memory system. Interval cores (phases by "
          "each warp's own timeline from its kernel's arrival on the core, the first period in "
          "detail): warps run in models/func without issue timing, each instruction costing what "
          "its pc cost in the detail phases, and their memory instructions outside shared memory "
          "still go through the L1 and the memory system. Results and instruction "
          "counts stay exact; cycles are extrapolated; cache and memory statistics count the "
          "detail phases on AT cores, every access but shared memory's and instruction fetch's "
          "on interval cores. 0,0: off. DETAIL >= 512 and PERIOD > DETAIL; discrete system mode "
          "only.",
          NULL, check_at_sample),
    FID_X(interval_runs, CONFIG_BOOL, "-interval_runs", "0",
          "Interval SIMT cores time each straight run of register-only and shared-memory "
          "instructions of a basic block as one step (simtvp; docs/simt-interval.md §11): the "
          "instructions execute in models/func, and the run's issue offsets, results' ready "
          "times and work on the issue slots, units and shared-memory pipeline come from a "
          "schedule built once per launch and core from the instructions' first detailed "
          "issues. A run starts once the registers it lacks are ready, and its work is filled "
          "into the bins at its own pace (full bins stretch it). Its shared accesses are checked "
          "against the warp's own bank-conflict cost on its first 4 takes on a core and every "
          "16th after (every take once a check differed). Global memory, barriers, branches and "
          "clock reads stay in detail. Ignored under -at_sample.",
          NULL, NULL),
    FID_X(interval_fold, CONFIG_BOOL, "-interval_fold", "0",
          "Interval SIMT cores time the warps of a CTA that run the same instructions as one group "
          "(simtvp; docs/simt-interval.md §13): every warp executes in models/func and sends its own "
          "memory accesses through the L1 and the memory system, but the group issues, waits for "
          "its registers and fills the issue slots and units once for all of its warps (each "
          "scheduler's share of them), at the pace of the scheduler with the most. A warp leaves "
          "the group where its path differs, and every warp does at barriers, fences, exit and "
          "other instructions with a step record; the warps released by a barrier together form a "
          "group again. Faster, less exact: warps of a group never overtake each other. Ignored "
          "under -at_sample.",
          NULL, NULL),
    FID_X(interval_horizon, CONFIG_UINT, "-interval_horizon", "2048",
          "Core cycles an interval SIMT core runs its warps ahead of the GPU's time per call "
          "(simtvp; docs/simt-interval.md §1), 16 to 2048. The cores meet in the memory system "
          "in host order, one horizon at a time: a shorter horizon orders contending requests "
          "of different SMs closer to their time order, so a port more SMs want than it can "
          "serve (atomics on a few lines, a hot L2 slice) is shared as fairly as the CA GPU "
          "shares it (QV100 histogram_global: +21.9 % against CA at 2048, +2.8 % at 512); a "
          "longer one costs fewer host calls and host cache refills (512: 20-40 % more host "
          "time on SGEMM and vector add).",
          NULL, NULL),
    FID_X(interval_horizon_ramp, CONFIG_UINT, "-interval_horizon_ramp", "2048",
          "Core cycles per doubling of an interval SIMT core's horizon from a launch's start "
          "(simtvp; docs/simt-interval.md §1): each launch's first CTA on a core starts it at 256 "
          "cycles (or -interval_horizon if shorter), and it doubles every that many cycles up to "
          "-interval_horizon. A launch's first cycles are timed closer to time order, where "
          "short kernels spend most of their time (tests/kernels programs, folded: largest "
          "kernel error against CA 21.3 % without the ramp, 6.5 % with it; mean 1.5 % → "
          "0.9 %) for a few per cent of host time on long kernels. 0: no ramp, the whole launch "
          "at -interval_horizon. Not under -at_sample.",
          NULL, NULL),
};

#define HOST(F, kind, name, def, unit, desc) CONFIG_OPT(gpu_host_config, F, kind, name, def, unit, desc)

/* Host and bus defaults describe a PCIe 3.0 x16 attached GPU; they are simtvp's assumptions, not
 * measurements, and are to be correlated like the rest. */
static const config_option host_options[] = {
    HOST(host_clock_mhz, CONFIG_DOUBLE, "-host_clock_mhz", "2000", "MHz",
         "Clock of the host CPU stub (converts driver work into time)."),
    HOST(mmio_read_ns, CONFIG_DOUBLE, "-host_mmio_read_latency_ns", "1000", "ns",
         "Round trip of a register read over the bus (a non-posted PCIe read)."),
    HOST(mmio_write_ns, CONFIG_DOUBLE, "-host_mmio_write_latency_ns", "200", "ns",
         "Cost of a register write to the host (posted)."),
    HOST(sysmem_latency_ns, CONFIG_DOUBLE, "-host_sysmem_latency_ns", "600", "ns",
         "Latency of a GPU DMA access to system memory."),
    HOST(bus_bandwidth_gbs, CONFIG_DOUBLE, "-host_bus_bandwidth_gbs", "12", "GB/s",
         "Bus bandwidth for DMA (PCIe 3.0 x16 after protocol overhead)."),
    HOST(irq_latency_ns, CONFIG_DOUBLE, "-host_irq_latency_ns", "2000", "ns",
         "From the GPU raising an interrupt to the driver handling it."),
    HOST(api_overhead_ns, CONFIG_DOUBLE, "-host_api_overhead_ns", "0", "ns",
         "Host software time charged per CUDA API call, on top of its bus traffic."),
    HOST(trap_shared, CONFIG_BOOL, "-host_trap_shared", "1", "",
         "While the GPU is busy, the program's own loads and stores of host memory mapped into "
         "the GPU are trapped and timed as the host's accesses (through the coherence directory "
         "in the shared modes), so a host loop spinning on such memory lets the GPU advance "
         "(docs/system-modes.md §2.4; x86-64 Linux). 0: they run natively, untimed."),
    HOST(device_memory_mb, CONFIG_UINT64, "-device_memory_mb", "4096", "MiB",
         "Device memory reported to programs (totalGlobalMem); storage is allocated on use."),
    HOST(device_memory_base, CONFIG_UINT64, "-device_memory_base", "0x500000000000", "address",
         "simtvp: first device address (64 KiB aligned). Managed memory mirrors device addresses "
         "on the host, so the range must be free there: the default lies above a PIE program's "
         "usual place and outside AddressSanitizer's shadow and allocator regions. Device "
         "addresses reach the DRAM address mapping: another base moves timing statistics."),
    CONFIG_OPT_X(gpu_host_config, gpu_name, CONFIG_STRING, "-gpu_name", "simtvp GPU", "",
                 "Device name reported to programs (cudaDeviceProp::name), at most 32 characters.",
                 NULL, check_gpu_name, NULL, 0),
};

#define SYS(F, kind, name, def, unit, desc) CONFIG_OPT(gpu_system_config, F, kind, name, def, unit, desc)

/* Only the modes simtvp builds are accepted (docs/system-modes.md): naming another is an unknown
 * value, not a silent discrete run. */
static const config_enum_value system_modes[] = {{"discrete", GPU_SYSTEM_DISCRETE},
                                                  {"unified", GPU_SYSTEM_UNIFIED},
                                                  {"shared_llc", GPU_SYSTEM_SHARED_LLC},
                                                  {"shared_va", GPU_SYSTEM_SHARED_VA},
                                                  {NULL, 0}};

static const config_option system_options[] = {
    CONFIG_OPT_X(gpu_system_config, mode, CONFIG_ENUM, "-system_mode", "discrete", "",
                 "How the GPU sits in the system (docs/system-modes.md): `discrete` has its own DRAM "
                 "and reaches host memory over the bus (mapped, zero-copy memory); `unified` is an "
                 "integrated GPU without DRAM: device memory is a carve-out of system memory and the "
                 "memory partitions' DRAM traffic leaves through the DMA initiator onto the SoC's "
                 "memory, which the copy engines and the host share; `shared_llc` is `unified` with a "
                 "system-level cache in front of the SoC's memory that every agent shares and a MESI "
                 "directory that keeps the host's and the GPU L2's copies of host memory coherent; "
                 "`shared_va` is `shared_llc` with an IOMMU that translates with the host's page tables, "
                 "so kernels dereference plain `malloc`ed host pointers.",
                 system_modes, NULL, NULL, 0),
    SYS(hub_max_outstanding, CONFIG_UINT, "-hub_max_outstanding", "256", "requests",
        "Requests the GPU's hub holds on their way to and from system memory (the link's tags or "
        "credits); more wait in the memory partitions."),
    SYS(fabric_latency_ns, CONFIG_DOUBLE, "-soc_fabric_latency_ns", "40", "ns",
        "Round trip of the hub's link onto the SoC fabric when the GPU is integrated (`-system_mode` "
        "other than discrete; a discrete GPU's link is `-host_sysmem_latency_ns`)."),
    SYS(fabric_bandwidth_gbs, CONFIG_DOUBLE, "-soc_fabric_bandwidth_gbs", "128", "GB/s",
        "Bandwidth of the integrated GPU's port onto the SoC fabric (a discrete GPU's link is "
        "`-host_bus_bandwidth_gbs`)."),
    SYS(sysmem_latency_ns, CONFIG_DOUBLE, "-sysmem_latency_ns", "80", "ns",
        "Access latency of the SoC's memory (system memory) when the GPU is integrated; with "
        "`-system_mode discrete` system memory is untimed (the host's and the DMA engines' own "
        "figures stand for it)."),
    SYS(sysmem_bandwidth_gbs, CONFIG_DOUBLE, "-sysmem_bandwidth_gbs", "68", "GB/s",
        "Bandwidth of the SoC's memory, all channels together (integrated modes); the GPU, the copy "
        "engines and the host share it."),
    SYS(sysmem_channels, CONFIG_UINT, "-sysmem_channels", "2", "channels",
        "Channels of the SoC's memory (integrated modes); addresses interleave over them."),
    SYS(sysmem_interleave, CONFIG_UINT, "-sysmem_interleave_bytes", "256", "bytes",
        "Consecutive bytes on one channel of the SoC's memory (a power of two, at least 64)."),
    SYS(carveout_base, CONFIG_UINT64, "-gpu_carveout_base", "0x300000000", "bus address",
        "Where an integrated GPU's memory (device memory, then the device heap) lies in system "
        "memory: its bus address (simtvp's platform reserves it above its 8 GiB of system memory)."),
    SYS(syscache_sets, CONFIG_UINT, "-syscache_sets", "4096", "sets",
        "Sets of the system-level cache of the shared modes (`-system_mode shared_llc`); with the "
        "defaults 4096 x 16 ways x 64 bytes = 4 MiB."),
    SYS(syscache_ways, CONFIG_UINT, "-syscache_ways", "16", "ways", "Ways of the system-level cache (1 to 64), LRU."),
    SYS(syscache_line, CONFIG_UINT, "-syscache_line_bytes", "64", "bytes",
        "Line of the system-level cache and of the coherence directory (a power of two, 32 to 4096)."),
    SYS(syscache_latency_ns, CONFIG_DOUBLE, "-syscache_latency_ns", "10", "ns",
        "Hit time of the system-level cache; a miss adds the SoC memory's time for the line."),
    SYS(dir_sets, CONFIG_UINT, "-coherence_dir_sets", "8192", "sets",
        "Sets of the coherence directory of the shared modes (a sparse directory; with the defaults "
        "8192 x 8 entries track 4 MiB of 64-byte lines held by the host or the GPU)."),
    SYS(dir_ways, CONFIG_UINT, "-coherence_dir_ways", "8", "entries",
        "Entries per set of the coherence directory (1 to 64); a full set recalls its least "
        "recently used entry."),
    SYS(dir_lookup_ns, CONFIG_DOUBLE, "-coherence_lookup_ns", "4", "ns",
        "Directory lookup, paid by every access of the shared modes to host memory."),
    SYS(dir_message_ns, CONFIG_DOUBLE, "-coherence_message_ns", "30", "ns",
        "Round trip of one round of snoop or invalidation messages (sent in parallel) when an access "
        "needs other agents' copies invalidated or downgraded."),
    SYS(iommu_tlb_sets, CONFIG_UINT, "-iommu_tlb_sets", "64", "sets",
        "Sets of the IOMMU's translation cache (IOTLB) in `-system_mode shared_va`."),
    SYS(iommu_tlb_ways, CONFIG_UINT, "-iommu_tlb_ways", "8", "ways", "Ways of the IOTLB (1 to 64), LRU."),
    SYS(iommu_tlb_ns, CONFIG_DOUBLE, "-iommu_tlb_latency_ns", "2", "ns",
        "IOTLB lookup, paid by every GPU access to a page the IOMMU translates."),
    SYS(iommu_walk_ns, CONFIG_DOUBLE, "-iommu_walk_level_ns", "20", "ns",
        "One read of the host's page tables in an IOMMU walk after an IOTLB miss (a walk reads "
        "four levels)."),
};

#define OUT(F, kind, name, def, unit, desc, flags)                                              \
  CONFIG_OPT_X(gpu_output_config, F, kind, name, def, unit, desc, NULL, NULL, NULL, flags)

static const config_option output_options[] = {
    OUT(stats_json, CONFIG_STRING, "-stats_json", "", "",
        "Write every statistic (per kernel, totals, histograms, time series) to this JSON file "
        "at exit; empty = none. Schema: docs/statistics.md.",
        CONFIG_PATH),
    OUT(series_period_ns, CONFIG_UINT64, "-stats_series_period_ns", "0", "ns",
        "Sample the counters every this many simulated nanoseconds into the JSON time series; "
        "0 = no time series.",
        0),
    OUT(series_prefixes, CONFIG_STRING, "-stats_series_prefixes", "", "",
        "Only sample counters whose names start with one of these comma-separated prefixes; "
        "empty = all.",
        0),
    OUT(print_kernel_stats, CONFIG_BOOL, "-stats_print_kernel", "1", "",
        "Print the GPGPU-Sim-style statistics text at the end of each kernel.", 0),
    OUT(ptx_line_stats, CONFIG_BOOL, "-enable_ptx_file_line_stats", "0", "",
        "Per-PTX-line profile: warp and thread instructions (and, on timing cores that attribute "
        "them, stall cycles) per PTX source line and per CUDA source line (.loc), per kernel, in "
        "`-ptx_line_stats_filename` and the statistics JSON (docs/statistics.md). GPGPU-Sim's "
        "default is 1; simtvp's is 0 (off costs nothing).",
        0),
    OUT(ptx_line_stats_file, CONFIG_STRING, "-ptx_line_stats_filename", "gpgpu_inst_stats.txt", "",
        "File of the per-PTX-line profile; a relative name is placed in the output directory "
        "(`simtvp -o`), else the working directory.",
        0),
    OUT(liveness_message_freq, CONFIG_DOUBLE, "-liveness_message_freq", "1", "s",
        "Progress while kernels run, on stderr: when stderr is not a terminal, a GPGPU-Sim-style "
        "line (cycles, instructions, IPC, simulation rate, elapsed time, kernel and CTAs done) "
        "every this many wall-clock seconds (fractions allowed; 0 = none); on a terminal one line "
        "redrawn in place instead. Never with `-q`; never changes a statistic.",
        0),
};

#define BLOCK(id, title, desc, table) {id, title, desc, table, sizeof table / sizeof table[0]}

static const config_block gpu_blocks[] = {
    BLOCK("core", "SIMT cores, L1 caches and shared memory",
          "GPGPU-Sim's shader-core options. Cores are numbered cluster by cluster: core "
          "`c * n_cores_per_cluster + i` is core `i` of cluster `c`.",
          core_options),
    BLOCK("mem", "Memory partitions and L2",
          "Each channel (`-gpgpu_n_mem`) has `-gpgpu_n_sub_partition_per_mchannel` L2 slices.",
          mem_options),
    BLOCK("dram", "DRAM", "Per-channel DRAM controller; the timing is in command-clock cycles.",
          dram_options),
    BLOCK("icnt", "Interconnect", "Between SIMT clusters and memory sub-partitions.", icnt_options),
    BLOCK("clock", "Clock domains", "GPGPU-Sim's four clock domains.", clock_options),
    BLOCK("sim", "Simulation control and device limits", "", sim_options),
    BLOCK("fidelity", "simtvp: fidelity per block",
          "simtvp's own options: which model variant each block instance runs. Variants share "
          "one interface, so any mix works (e.g. cores 0-3 cycle accurate, the rest "
          "approximately timed).",
          fidelity_options),
    BLOCK("host", "simtvp: host and bus timing",
          "simtvp's own options for the host CPU stub, the system bus and what the driver "
          "reports. Defaults are assumptions for a PCIe 3.0 x16 GPU, not yet correlated.",
          host_options),
    BLOCK("system", "simtvp: the system around the GPU",
          "simtvp's own options for the system around the GPU: the mode, the hub that carries "
          "the GPU's accesses to system memory, the SoC's memory (docs/system-modes.md).",
          system_options),
    BLOCK("output", "simtvp: outputs", "simtvp's own options for statistics files.",
          output_options),
};

simtvp_status gpu_config_register(config_registry *r, gpu_config *cfg, simtvp_diag *diag) {
  if (!r || !cfg) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "gpu_config_register");
  memset(cfg, 0, sizeof *cfg);
  void *storage[] = {&cfg->core, &cfg->mem,      &cfg->dram, &cfg->icnt,   &cfg->clock,
                     &cfg->sim,  &cfg->fidelity, &cfg->host, &cfg->system, &cfg->output};
  _Static_assert(sizeof storage / sizeof storage[0] == sizeof gpu_blocks / sizeof gpu_blocks[0],
                 "one storage per block");
  for (size_t i = 0; i < sizeof gpu_blocks / sizeof gpu_blocks[0]; i++) {
    simtvp_status st = config_registry_add(r, &gpu_blocks[i], storage[i], diag);
    if (st != SIMTVP_OK) return st;
  }
  return SIMTVP_OK;
}

/* ---- DRAM timing --------------------------------------------------------------------------- */

bool gpu_config_parse_dram_timing(const char *text, gpu_dram_timing *t, char *why, size_t n) {
  gpu_dram_timing tmp;
  memset(&tmp, 0, sizeof tmp);
  tmp.nbkgrp = 1;
  uint32_t *fields[] = {&tmp.nbk, &tmp.tCCD, &tmp.tRRD,  &tmp.tRCD,   &tmp.tRAS,
                        &tmp.tRP, &tmp.tRC,  &tmp.CL,    &tmp.WL,     &tmp.tCDLR,
                        &tmp.tWR, &tmp.nbkgrp, &tmp.tCCDL, &tmp.tRTPL};
  static const char *const keys[] = {"nbk", "CCD", "RRD", "RCD",  "RAS",    "RP",   "RC",
                                     "CL",  "WL",  "CDLR", "WR",  "nbkgrp", "CCDL", "RTPL"};
  enum { N_FIELDS = 14, N_REQUIRED = 11 };
  if (!strchr(text, '=')) {
    uint32_t v[N_FIELDS];
    int k = config_parse_uint_list(text, ':', v, N_FIELDS);
    if (k < N_REQUIRED) {
      snprintf(why, n,
               "expected 11 to 14 ':'-separated numbers "
               "(nbk:tCCD:tRRD:tRCD:tRAS:tRP:tRC:CL:WL:tCDLR:tWR[:nbkgrp:tCCDL:tRTPL]) or the "
               "named form nbk=<n>:CCD=<n>:...");
      return false;
    }
    for (int i = 0; i < k; i++) *fields[i] = v[i];
  } else {
    bool seen[N_FIELDS] = {false};
    const char *p = text;
    while (*p) {
      const char *eq = strchr(p, '=');
      const char *colon = strchr(p, ':');
      if (!eq || (colon && colon < eq)) {
        snprintf(why, n, "named form: '%.*s' is not <key>=<cycles>",
                 (int)(colon ? (size_t)(colon - p) : strlen(p)), p);
        return false;
      }
      int key = -1;
      for (int i = 0; i < N_FIELDS; i++)
        if (strlen(keys[i]) == (size_t)(eq - p) && strncmp(keys[i], p, (size_t)(eq - p)) == 0)
          key = i;
      if (key < 0) {
        snprintf(why, n,
                 "named form: unknown key '%.*s' (keys: nbk CCD RRD RCD RAS RP RC CL WL CDLR WR "
                 "nbkgrp CCDL RTPL)",
                 (int)(eq - p), p);
        return false;
      }
      if (seen[key]) {
        snprintf(why, n, "named form: key '%s' given twice", keys[key]);
        return false;
      }
      seen[key] = true;
      const char *num = eq + 1;
      if (!isdigit((unsigned char)*num)) {
        snprintf(why, n, "named form: %s needs a number of cycles", keys[key]);
        return false;
      }
      errno = 0;
      char *end;
      unsigned long long v = strtoull(num, &end, 10);
      if (errno == ERANGE || v > UINT32_MAX || (*end && *end != ':')) {
        snprintf(why, n, "named form: %s needs a number of cycles", keys[key]);
        return false;
      }
      *fields[key] = (uint32_t)v;
      p = *end ? end + 1 : end;
      if (*end == ':' && !*p) {
        snprintf(why, n, "named form: trailing ':'");
        return false;
      }
    }
    for (int i = 0; i < N_REQUIRED; i++) {
      if (!seen[i]) {
        snprintf(why, n, "named form: %s is missing", keys[i]);
        return false;
      }
    }
  }
  if (tmp.nbk == 0 || tmp.nbkgrp == 0 || tmp.nbk % tmp.nbkgrp != 0) {
    snprintf(why, n, "nbk (%" PRIu32 ") must be a positive multiple of nbkgrp (%" PRIu32 ")",
             tmp.nbk, tmp.nbkgrp);
    return false;
  }
  if (t) *t = tmp;
  return true;
}

bool gpu_config_check_dram_timing(const char *text, char *why, size_t n) {
  return gpu_config_parse_dram_timing(text, NULL, why, n);
}

/* ---- fidelity overrides -------------------------------------------------------------------- */

const char *gpu_fidelity_name(gpu_fidelity f) {
  switch (f) {
  case GPU_FIDELITY_FUNC: return "func";
  case GPU_FIDELITY_AT: return "at";
  case GPU_FIDELITY_CA: return "ca";
  case GPU_FIDELITY_INTERVAL: return "interval";
  }
  return "?";
}

/* Appends to out[*len..size) like snprintf, counting what did not fit. */
static void map_append(char *out, size_t size, size_t *len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(*len < size ? out + *len : NULL, *len < size ? size - *len : 0, fmt, ap);
  va_end(ap);
  if (k > 0) *len += (size_t)k;
}

/* " block=model" or " block=0-3:ca,4-7:at" for n instances of models m. */
static void map_block(char *out, size_t size, size_t *len, const char *block, const uint8_t *m, uint32_t n) {
  uint32_t same = 1;
  for (uint32_t i = 1; i < n; i++) same &= m[i] == m[0];
  map_append(out, size, len, "%s%s=", *len ? " " : "", block);
  if (same) {
    map_append(out, size, len, "%s", n ? gpu_fidelity_name((gpu_fidelity)m[0]) : "none");
    return;
  }
  for (uint32_t i = 0; i < n;) {
    uint32_t j = i;
    while (j + 1 < n && m[j + 1] == m[i]) j++;
    if (j == i)
      map_append(out, size, len, "%s%u:%s", i ? "," : "", i, gpu_fidelity_name((gpu_fidelity)m[i]));
    else
      map_append(out, size, len, "%s%u-%u:%s", i ? "," : "", i, j, gpu_fidelity_name((gpu_fidelity)m[i]));
    i = j + 1;
  }
}

size_t gpu_config_fidelity_map(const gpu_config *cfg, char *out, size_t size) {
  size_t len = 0;
  if (size) out[0] = '\0';
  const gpu_config_derived *d = &cfg->derived;
  uint32_t cores = d->n_cores < GPU_CONFIG_MAX_CORES ? d->n_cores : GPU_CONFIG_MAX_CORES;
  uint32_t channels = cfg->mem.n_channels < GPU_CONFIG_MAX_CHANNELS ? cfg->mem.n_channels : GPU_CONFIG_MAX_CHANNELS;
  map_block(out, size, &len, "simt", d->simt_model_of_core, cores);
  if (cfg->fidelity.simt_model == GPU_FIDELITY_FUNC && cores && d->simt_model_of_core[0] == GPU_FIDELITY_FUNC) {
    /* a functional SIMT side has no timed memory system behind it */
    return len;
  }
  uint8_t icnt = (uint8_t)cfg->fidelity.icnt_model;
  map_block(out, size, &len, "icnt", &icnt, 1);
  map_block(out, size, &len, "mempart", d->mempart_model_of_channel, channels);
  map_block(out, size, &len, "dram", d->dram_model_of_channel, channels);
  bool at_cores = false, iv = false;
  for (uint32_t i = 0; i < cores; i++) {
    at_cores |= d->simt_model_of_core[i] == GPU_FIDELITY_AT || d->simt_model_of_core[i] == GPU_FIDELITY_INTERVAL;
    iv |= d->simt_model_of_core[i] == GPU_FIDELITY_INTERVAL;
  }
  if (at_cores && d->at_sample_period) { /* sampled AT or interval cores (-at_sample): a fidelity of their own */
    map_append(out, size, &len, " at_sample=%u,%u", d->at_sample_detail, d->at_sample_period);
  } else if (iv) { /* interval cores with straight runs or folded warps (docs/simt-interval.md §11, §13) */
    if (d->interval_runs) map_append(out, size, &len, " interval_runs=1");
    if (d->interval_fold) map_append(out, size, &len, " interval_fold=1");
  }
  /* interval cores with a horizon of their own (docs/simt-interval.md §1) */
  if (iv && d->interval_horizon && d->interval_horizon != GPU_INTERVAL_HORIZON_DEFAULT)
    map_append(out, size, &len, " interval_horizon=%u", d->interval_horizon);
  if (iv && !d->at_sample_period && d->interval_horizon_ramp != GPU_INTERVAL_HORIZON_RAMP_DEFAULT)
    map_append(out, size, &len, " interval_horizon_ramp=%u", d->interval_horizon_ramp);
  return len;
}

bool gpu_fidelity_spec_options(const char *spec, const char *words[GPU_FIDELITY_SPEC_WORDS], uint32_t *n_words,
                               char *why, size_t why_size) {
  static const char *const blocks[4] = {"-simt_model", "-icnt_model", "-mempart_model", "-dram_model"};
  const char *model[4] = {"ca", "ca", "ca", "ca"};
  *n_words = 0;
  if (!spec || !*spec) {
    snprintf(why, why_size, "an empty fidelity assignment: expected ca, at, at-sampled, interval, interval-sampled, interval-runs, interval-fold, func, at-cores, at-mem or block=model items");
    return false;
  }
  if (!strcmp(spec, "func")) {
    words[0] = "-simt_model";
    words[1] = "func";
    *n_words = 2;
    return true;
  }
  bool sampled = !strcmp(spec, "at-sampled"), iv_sampled = !strcmp(spec, "interval-sampled");
  bool iv_fold = !strcmp(spec, "interval-fold");
  bool iv_runs = !strcmp(spec, "interval-runs") || iv_fold;
  if (!strcmp(spec, "at") || sampled) model[0] = model[1] = model[2] = model[3] = "at";
  else if (!strcmp(spec, "interval") || iv_sampled || iv_runs) { /* interval cores; nothing of theirs reaches the AT blocks */
    model[0] = "interval";
    model[1] = model[2] = model[3] = "at";
  } else if (!strcmp(spec, "at-cores")) model[0] = "at";
  else if (!strcmp(spec, "at-mem")) model[1] = model[2] = model[3] = "at";
  else if (strcmp(spec, "ca") != 0) {
    for (const char *p = spec; *p;) {
      const char *end = strchr(p, ',');
      size_t n = end ? (size_t)(end - p) : strlen(p);
      const char *eq = memchr(p, '=', n);
      size_t key_n = eq ? (size_t)(eq - p) : n;
      const char *value = eq ? eq + 1 : "";
      size_t value_n = eq ? n - key_n - 1 : 0;
      const char *m = value_n == 2 && !strncmp(value, "ca", 2)     ? "ca"
                      : value_n == 2 && !strncmp(value, "at", 2)   ? "at"
                      : value_n == 4 && !strncmp(value, "func", 4) ? "func"
                      : value_n == 8 && !strncmp(value, "interval", 8) ? "interval"
                                                                   : NULL;
      int first = -1, last = -1;
      if (key_n == 4 && !strncmp(p, "simt", 4)) first = last = 0;
      else if (key_n == 4 && !strncmp(p, "icnt", 4)) first = last = 1;
      else if (key_n == 7 && !strncmp(p, "mempart", 7)) first = last = 2;
      else if (key_n == 4 && !strncmp(p, "dram", 4)) first = last = 3;
      else if (key_n == 3 && !strncmp(p, "mem", 3)) first = 1, last = 3;
      if (!eq || first < 0 || !m || (first > 0 && (!strcmp(m, "func") || !strcmp(m, "interval")))) {
        snprintf(why, why_size,
                 "'%.*s' in fidelity assignment '%s': expected ca, at, at-sampled, interval, interval-sampled, interval-runs, interval-fold, func, at-cores, at-mem or "
                 "items block=model joined by commas (blocks simt, icnt, mempart, dram, mem; models ca, at, and "
                 "func or interval for simt)",
                 (int)n, p, spec);
        return false;
      }
      for (int b = first; b <= last; b++) model[b] = m;
      p = end ? end + 1 : p + n;
    }
    if (!strcmp(model[0], "func")) {
      words[0] = "-simt_model";
      words[1] = "func";
      *n_words = 2;
      return true;
    }
  }
  for (int b = 0; b < 4; b++) {
    words[2 * b] = blocks[b];
    words[2 * b + 1] = model[b];
  }
  *n_words = 8;
  if (sampled || iv_sampled) { /* the cores sampled (docs/simt-at.md §6a, docs/simt-interval.md §10) */
    words[8] = "-at_sample";
    words[9] = sampled ? GPU_FIDELITY_SAMPLED : GPU_FIDELITY_IV_SAMPLED;
    *n_words = 10;
  }
  if (iv_runs) { /* straight runs timed as one step (docs/simt-interval.md §11) */
    words[8] = "-interval_runs";
    words[9] = "1";
    *n_words = 10;
  }
  if (iv_fold) { /* a CTA's warps timed as one group (docs/simt-interval.md §13) */
    words[10] = "-interval_fold";
    words[11] = "1";
    *n_words = 12;
  }
  return true;
}

bool gpu_config_resolve_overrides(const char *text, const config_enum_value *allowed, uint8_t dflt,
                                  uint8_t *out, uint32_t n, char *why, size_t why_size) {
  for (uint32_t i = 0; i < n; i++) out[i] = dflt;
  const char *p = text;
  while (*p) {
    char *end;
    if (!isdigit((unsigned char)*p)) {
      snprintf(why, why_size, "expected <index>[-<index>]:<model> at '%s'", p);
      return false;
    }
    errno = 0;
    unsigned long first = strtoul(p, &end, 10), last = first;
    if (*end == '-') {
      p = end + 1;
      if (!isdigit((unsigned char)*p)) {
        snprintf(why, why_size, "expected an index after '-' at '%s'", p);
        return false;
      }
      last = strtoul(p, &end, 10);
    }
    if (errno == ERANGE || last < first) {
      snprintf(why, why_size, "bad index range %lu-%lu", first, last);
      return false;
    }
    if (*end != ':') {
      snprintf(why, why_size, "expected ':' and a model after index %lu", first);
      return false;
    }
    p = end + 1;
    size_t len = strcspn(p, ",");
    const config_enum_value *hit = NULL;
    for (const config_enum_value *e = allowed; e->name; e++)
      if (strlen(e->name) == len && strncmp(e->name, p, len) == 0) hit = e;
    if (!hit) {
      char list[128] = "";
      for (const config_enum_value *e = allowed; e->name; e++) {
        strncat(list, " ", sizeof list - strlen(list) - 1);
        strncat(list, e->name, sizeof list - strlen(list) - 1);
      }
      snprintf(why, why_size, "model '%.*s' is not one of:%s", (int)len, p, list);
      return false;
    }
    if (n && last >= n) {
      snprintf(why, why_size, "index %lu is out of range (there are %" PRIu32 ")", last, n);
      return false;
    }
    for (unsigned long i = first; n && i <= last; i++) out[i] = (uint8_t)hit->value;
    p += len;
    if (*p == ',') {
      p++;
      if (!*p) {
        snprintf(why, why_size, "trailing ','");
        return false;
      }
    }
  }
  return true;
}

/* ---- finalize ------------------------------------------------------------------------------ */

static simtvp_status fail(const config_registry *r, const char *option, simtvp_diag *diag,
                          const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static simtvp_status fail(const config_registry *r, const char *option, simtvp_diag *diag,
                          const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const char *file = NULL;
  uint32_t line = 0;
  bool set = false;
  if (r) config_registry_origin(r, option, &file, &line, &set);
  if (set && file && line)
    simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "%s:%" PRIu32 ": %s: %s", file, line, option, msg);
  else if (set && file)
    simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "%s: %s: %s", file, option, msg);
  else
    simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "%s: %s", option, msg);
  if (r)
    config_registry_diag_at(r, option, diag);
  else
    simtvp_diag_at_option(diag, option);
  return SIMTVP_ERR_CONFIG;
}

/* Fills out[0..n) from a ','-list, keeping dflt[i] for positions the list leaves out. */
static void op_list(const char *text, const uint32_t *dflt, uint32_t *out, int n) {
  uint32_t v[GPU_OP_N];
  int k = config_parse_uint_list(text, ',', v, GPU_OP_N);
  for (int i = 0; i < n; i++) out[i] = i < k ? v[i] : dflt[i];
}

simtvp_status gpu_config_finalize(gpu_config *cfg, const config_registry *r, simtvp_diag *diag) {
  if (!cfg) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "gpu_config_finalize");
  gpu_config_derived *d = &cfg->derived;
  memset(d, 0, sizeof *d);
  const gpu_core_config *c = &cfg->core;
  char why[256];

  uint32_t pipe[2];
  config_parse_uint_list(c->shader_core_pipeline, ':', pipe, 2); /* checked when set */
  d->max_threads_per_core = pipe[0];
  d->warp_size = pipe[1];
  d->max_warps_per_core = pipe[0] / pipe[1];

  if (c->n_clusters == 0)
    return fail(r, "-gpgpu_n_clusters", diag, "there must be at least one cluster");
  if (c->n_cores_per_cluster == 0)
    return fail(r, "-gpgpu_n_cores_per_cluster", diag, "there must be at least one core");
  uint64_t cores = (uint64_t)c->n_clusters * c->n_cores_per_cluster;
  if (cores > GPU_CONFIG_MAX_CORES)
    return fail(r, "-gpgpu_n_clusters", diag, "%" PRIu64 " cores exceed the limit of %d", cores,
                GPU_CONFIG_MAX_CORES);
  d->n_cores = (uint32_t)cores;
  if (c->max_ctas_per_core == 0)
    return fail(r, "-gpgpu_shader_cta", diag, "a core must hold at least one CTA");
  if (c->schedulers_per_core < 1)
    return fail(r, "-gpgpu_num_sched_per_core", diag, "a core needs at least one scheduler");
  if (c->max_insn_issue_per_warp < 1 || c->max_insn_issue_per_warp > 2)
    return fail(r, "-gpgpu_max_insn_issue_per_warp", diag, "must be 1 or 2, not %" PRId32,
                c->max_insn_issue_per_warp);

  /* Pipeline widths: the 13-field 4.x order; 11 fields lack the tensor pair, 9 fields (3.x)
   * lack the INT pair as well. */
  uint32_t w[GPU_PIPE_N];
  int k = config_parse_uint_list(c->pipeline_widths, ',', w, GPU_PIPE_N);
  if (k == 9) {
    static const int map9[9] = {GPU_PIPE_ID_OC_SP,  GPU_PIPE_ID_OC_DP,  GPU_PIPE_ID_OC_SFU,
                                GPU_PIPE_ID_OC_MEM, GPU_PIPE_OC_EX_SP,  GPU_PIPE_OC_EX_DP,
                                GPU_PIPE_OC_EX_SFU, GPU_PIPE_OC_EX_MEM, GPU_PIPE_EX_WB};
    for (int i = 0; i < 9; i++) d->pipeline_width[map9[i]] = w[i];
  } else {
    for (int i = 0; i < k; i++) d->pipeline_width[i] = w[i];
  }

  static const uint32_t lat_int[GPU_OP_N] = {1, 1, 19, 25, 145, 32};
  static const uint32_t ii_int[GPU_OP_N] = {1, 1, 4, 4, 32, 4};
  static const uint32_t lat_fp[GPU_OP_N] = {1, 1, 1, 1, 30, 0};
  static const uint32_t ii_fp[GPU_OP_N] = {1, 1, 1, 1, 5, 0};
  static const uint32_t lat_dp[GPU_OP_N] = {8, 8, 8, 8, 335, 0};
  static const uint32_t ii_dp[GPU_OP_N] = {8, 8, 8, 8, 130, 0};
  op_list(c->latency_int, lat_int, d->latency_int, GPU_OP_N);
  op_list(c->initiation_int, ii_int, d->initiation_int, GPU_OP_N);
  op_list(c->latency_fp, lat_fp, d->latency_fp, GPU_OP_SHFL);
  op_list(c->initiation_fp, ii_fp, d->initiation_fp, GPU_OP_SHFL);
  op_list(c->latency_dp, lat_dp, d->latency_dp, GPU_OP_SHFL);
  op_list(c->initiation_dp, ii_dp, d->initiation_dp, GPU_OP_SHFL);
  config_parse_uint_list(c->fence_latency, ',', d->fence_latency, GPU_FENCE_N); /* checked when set */
  config_parse_uint_list(c->latency_sfu, ',', &d->latency_sfu, 1);
  config_parse_uint_list(c->initiation_sfu, ',', &d->initiation_sfu, 1);
  config_parse_uint_list(c->latency_tensor, ',', &d->latency_tensor, 1);
  config_parse_uint_list(c->initiation_tensor, ',', &d->initiation_tensor, 1);

  if (!parse_scheduler(c->scheduler, &d->scheduler, d->scheduler_params, why, sizeof why))
    return fail(r, "-gpgpu_scheduler", diag, "%s", why);

  const gpu_mem_config *m = &cfg->mem;
  if (m->n_channels == 0 || m->n_channels > GPU_CONFIG_MAX_CHANNELS)
    return fail(r, "-gpgpu_n_mem", diag, "%" PRIu32 " channels: expected 1 to %d", m->n_channels,
                GPU_CONFIG_MAX_CHANNELS);
  if (m->sub_partitions_per_channel == 0)
    return fail(r, "-gpgpu_n_sub_partition_per_mchannel", diag,
                "a channel needs at least one sub-partition");
  d->n_sub_partitions = m->n_channels * m->sub_partitions_per_channel;
  uint32_t q[4];
  config_parse_uint_list(m->partition_queues, ':', q, 4);
  d->queue_icnt_to_l2 = q[0];
  d->queue_l2_to_dram = q[1];
  d->queue_dram_to_l2 = q[2];
  d->queue_l2_to_icnt = q[3];
  uint32_t wq[3];
  config_parse_uint_list(cfg->dram.write_queue_size, ':', wq, 3);
  d->write_queue_size = wq[0];
  d->write_queue_high = wq[1];
  d->write_queue_low = wq[2];

  double *mhz[4] = {&d->core_mhz, &d->icnt_mhz, &d->l2_mhz, &d->dram_mhz};
  const char *p = cfg->clock.domains; /* checked when set: four numbers separated by ':' */
  for (int i = 0; i < 4; i++) {
    char *end;
    *mhz[i] = config_strtod(p, &end);
    p = *end ? end + 1 : end;
  }

  const gpu_fidelity_config *f = &cfg->fidelity;
  uint8_t simt_default = cfg->sim.ptx_sim_mode == 1 ? GPU_FIDELITY_FUNC : (uint8_t)f->simt_model;
  if (!gpu_config_resolve_overrides(f->simt_model_override, simt_models, simt_default,
                                    d->simt_model_of_core, d->n_cores, why, sizeof why))
    return fail(r, "-simt_model_override", diag, "%s", why);
  if (cfg->sim.ptx_sim_mode == 1) /* functional mode: no timing model anywhere */
    memset(d->simt_model_of_core, GPU_FIDELITY_FUNC, sizeof d->simt_model_of_core);
  if (!gpu_config_resolve_overrides(f->dram_model_override, dram_models, (uint8_t)f->dram_model,
                                    d->dram_model_of_channel, m->n_channels, why, sizeof why))
    return fail(r, "-dram_model_override", diag, "%s", why);
  if (!gpu_config_resolve_overrides(f->mempart_model_override, dram_models, (uint8_t)f->mempart_model,
                                    d->mempart_model_of_channel, m->n_channels, why, sizeof why))
    return fail(r, "-mempart_model_override", diag, "%s", why);
  if (f->func_threads == 0)
    return fail(r, "-func_threads", diag, "at least one host thread is needed");
  if (f->sim_threads == 0)
    return fail(r, "-sim_threads", diag, "at least one host thread is needed");
  if (f->sim_threads > 1024)
    return fail(r, "-sim_threads", diag, "at most 1024 host threads");
  {
    uint32_t ds[2] = {0, 0};
    config_parse_uint_list(f->at_sample, ',', ds, 2); /* checked when set */
    d->at_sample_detail = ds[0];
    d->at_sample_period = ds[1];
    d->interval_runs = f->interval_runs;
    d->interval_fold = f->interval_fold;
    d->interval_horizon = f->interval_horizon;
    d->interval_horizon_ramp = f->interval_horizon_ramp;
    if (f->interval_horizon_ramp > GPU_INTERVAL_HORIZON_RAMP_MAX)
      return fail(r, "-interval_horizon_ramp", diag, "%u core cycles per doubling is more than %u",
                  f->interval_horizon_ramp, GPU_INTERVAL_HORIZON_RAMP_MAX);
    if (f->interval_horizon < GPU_INTERVAL_HORIZON_MIN || f->interval_horizon > GPU_INTERVAL_HORIZON_MAX)
      return fail(r, "-interval_horizon", diag, "%u core cycles is outside %u to %u (the throughput bins' ring "
                  "holds a horizon and the longest latency)", f->interval_horizon, GPU_INTERVAL_HORIZON_MIN,
                  GPU_INTERVAL_HORIZON_MAX);
    if (ds[0] || ds[1]) {
      if (ds[0] < GPU_AT_SAMPLE_MIN_DETAIL)
        return fail(r, "-at_sample", diag, "a detail phase of %u core cycles is too short to measure an issue rate "
                    "(at least %u)", ds[0], GPU_AT_SAMPLE_MIN_DETAIL);
      if (ds[1] <= ds[0])
        return fail(r, "-at_sample", diag, "the period (%u core cycles) must be longer than the detail phase (%u)",
                    ds[1], ds[0]);
      bool any_at = false;
      for (uint32_t i = 0; i < d->n_cores && i < GPU_CONFIG_MAX_CORES; i++)
        any_at |= d->simt_model_of_core[i] == GPU_FIDELITY_AT || d->simt_model_of_core[i] == GPU_FIDELITY_INTERVAL;
      if (!any_at)
        return fail(r, "-at_sample", diag, "sampling applies to approximately-timed and interval SIMT cores, and no "
                    "core is one (-simt_model at|interval, or -simt_model_override with :at or :interval)");
      if (gpu_system_integrated(cfg->system.mode))
        return fail(r, "-at_sample", diag, "sampling needs -system_mode discrete: fast-forwarded accesses would "
                    "bypass the system-level cache, coherence directory and IOMMU of the integrated modes");
    }
  }
  if (cfg->sim.kernel_launch_latency < 0)
    return fail(r, "-gpgpu_kernel_launch_latency", diag, "a latency must not be negative (%" PRId32 ")",
                cfg->sim.kernel_launch_latency);
  if (cfg->sim.cta_launch_latency < 0)
    return fail(r, "-gpgpu_TB_launch_latency", diag, "a latency must not be negative (%" PRId32 ")",
                cfg->sim.cta_launch_latency);
  if (cfg->output.ptx_line_stats && !cfg->output.ptx_line_stats_file[0])
    return fail(r, "-ptx_line_stats_filename", diag, "a file name is needed with -enable_ptx_file_line_stats 1");
  const gpu_system_config *sy = &cfg->system;
  if (sy->hub_max_outstanding == 0)
    return fail(r, "-hub_max_outstanding", diag, "the hub must hold at least one request");
  if (!(sy->fabric_bandwidth_gbs > 0) || sy->fabric_bandwidth_gbs > 1e6)
    return fail(r, "-soc_fabric_bandwidth_gbs", diag, "the bandwidth must be positive (%g)", sy->fabric_bandwidth_gbs);
  if (!(sy->fabric_latency_ns >= 0) || sy->fabric_latency_ns > 1e9)
    return fail(r, "-soc_fabric_latency_ns", diag, "the latency must not be negative (%g)", sy->fabric_latency_ns);
  if (!(sy->sysmem_bandwidth_gbs > 0) || sy->sysmem_bandwidth_gbs > 1e6)
    return fail(r, "-sysmem_bandwidth_gbs", diag, "the bandwidth must be positive (%g)", sy->sysmem_bandwidth_gbs);
  if (!(sy->sysmem_latency_ns >= 0) || sy->sysmem_latency_ns > 1e9)
    return fail(r, "-sysmem_latency_ns", diag, "the latency must not be negative (%g)", sy->sysmem_latency_ns);
  if (sy->sysmem_channels == 0 || sy->sysmem_channels > 64)
    return fail(r, "-sysmem_channels", diag, "from 1 to 64 channels (%" PRIu32 ")", sy->sysmem_channels);
  if (sy->sysmem_interleave < 64 || (sy->sysmem_interleave & (sy->sysmem_interleave - 1)))
    return fail(r, "-sysmem_interleave_bytes", diag, "a power of two of at least 64 bytes (%" PRIu32 ")",
                sy->sysmem_interleave);
  if (sy->carveout_base & 0xFFFu)
    return fail(r, "-gpu_carveout_base", diag, "the carve-out must start on a 4 KiB page (0x%" PRIx64 ")",
                sy->carveout_base);
  if (!(sy->syscache_latency_ns >= 0) || sy->syscache_latency_ns > 1e9)
    return fail(r, "-syscache_latency_ns", diag, "the latency must not be negative (%g)", sy->syscache_latency_ns);
  if (!(sy->dir_lookup_ns >= 0) || sy->dir_lookup_ns > 1e9)
    return fail(r, "-coherence_lookup_ns", diag, "the latency must not be negative (%g)", sy->dir_lookup_ns);
  if (!(sy->iommu_tlb_ns >= 0) || sy->iommu_tlb_ns > 1e9)
    return fail(r, "-iommu_tlb_latency_ns", diag, "the latency must not be negative (%g)", sy->iommu_tlb_ns);
  if (!(sy->iommu_walk_ns >= 0) || sy->iommu_walk_ns > 1e9)
    return fail(r, "-iommu_walk_level_ns", diag, "the latency must not be negative (%g)", sy->iommu_walk_ns);
  if (!(sy->dir_message_ns >= 0) || sy->dir_message_ns > 1e9)
    return fail(r, "-coherence_message_ns", diag, "the latency must not be negative (%g)", sy->dir_message_ns);
  return SIMTVP_OK;
}

simtvp_status gpu_config_load(gpu_config *cfg, config_registry *r, const char *const *files,
                              int n_files, simtvp_diag *diag) {
  simtvp_status st = gpu_config_register(r, cfg, diag);
  for (int i = 0; st == SIMTVP_OK && i < n_files; i++)
    st = config_registry_load_file(r, files[i], diag);
  if (st == SIMTVP_OK) st = gpu_config_finalize(cfg, r, diag);
  return st;
}
