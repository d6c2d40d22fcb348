/* gpu_config — the GPU-wide configuration every block reads, filled from GPGPU-Sim option files.
 *
 * The options are GPGPU-Sim's (3.x manual "Configuration options", the option registrations of
 * GPGPU-Sim 4.x / Accel-Sim) under their names and defaults, so an existing gpgpusim.config
 * loads unchanged, plus simtvp's own options for per-block fidelity, host/bus timing and outputs.
 * Use:
 *
 *     gpu_config cfg;
 *     config_registry *r = config_registry_create(&msg_port);
 *     gpu_config_register(r, &cfg, &diag);          // defaults written into cfg
 *     config_registry_load_file(r, "configs/default.config", &diag);
 *     config_registry_parse_args(r, argc, argv, &diag);
 *     gpu_config_finalize(&cfg, r, &diag);          // derived fields, consistency checks
 *
 * Composite GPGPU-Sim strings (cache geometries, DRAM timing, address mapping, the .icnt file) are
 * kept as text for the owning block to parse (their structure is checked on load so errors carry a
 * file:line); gpu_config_finalize parses the simple composites (clock domains, pipeline widths,
 * opcode latencies, queue sizes, scheduler, fidelity overrides) into the `derived` fields.
 * Units are stated per field; "core cycles" are cycles of the core clock domain, and so on. */
#ifndef SIMTVP_GPU_CONFIG_H
#define SIMTVP_GPU_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPU_CONFIG_STRING_MAX 256    /* capacity of string options, NUL included */
#define GPU_CONFIG_OVERRIDE_MAX 1024 /* capacity of the fidelity override lists */
#define GPU_CONFIG_MAX_CORES 1024    /* SIMT cores (clusters x cores per cluster) */
#define GPU_CONFIG_MAX_CHANNELS 256  /* DRAM channels (-gpgpu_n_mem) */

/* Fidelity of a block instance (DESIGN.md section 2). INTERVAL: SIMT cores only, the
 * functional-first interval model (models/simt/interval, docs/simt-interval.md). */
typedef enum gpu_fidelity {
  GPU_FIDELITY_FUNC = 0,
  GPU_FIDELITY_AT = 1,
  GPU_FIDELITY_CA = 2,
  GPU_FIDELITY_INTERVAL = 3
} gpu_fidelity;

/* -gpgpu_scheduler policies. */
typedef enum gpu_scheduler_policy {
  GPU_SCHED_LRR,              /* loose round robin */
  GPU_SCHED_GTO,              /* greedy then oldest */
  GPU_SCHED_TWO_LEVEL_ACTIVE, /* two-level: params = active warps, inner, outer prioritisation */
  GPU_SCHED_OLDEST,           /* "old": oldest first */
  GPU_SCHED_RRR,              /* "rrr": strict round robin */
  GPU_SCHED_WARP_LIMITING     /* "warp_limiting:<n>:<n_per_sched>" (static warp limiting) */
} gpu_scheduler_policy;

/* Indices into derived.pipeline_width (GPGPU-Sim's -gpgpu_pipeline_widths order). */
enum {
  GPU_PIPE_ID_OC_SP, GPU_PIPE_ID_OC_DP, GPU_PIPE_ID_OC_INT, GPU_PIPE_ID_OC_SFU, GPU_PIPE_ID_OC_MEM,
  GPU_PIPE_OC_EX_SP, GPU_PIPE_OC_EX_DP, GPU_PIPE_OC_EX_INT, GPU_PIPE_OC_EX_SFU, GPU_PIPE_OC_EX_MEM,
  GPU_PIPE_EX_WB, GPU_PIPE_ID_OC_TENSOR, GPU_PIPE_OC_EX_TENSOR,
  GPU_PIPE_N
};

/* Indices of the -ptx_opcode_latency_* / -ptx_opcode_initiation_* lists. */
enum { GPU_OP_ADD, GPU_OP_MAX, GPU_OP_MUL, GPU_OP_MAD, GPU_OP_DIV, GPU_OP_SHFL, GPU_OP_N };
/* Fence scopes timed apart (-gpgpu_fence_latency): bar.warp.sync; .cta (and proxy fences);
 * .gpu and .cluster (membar.gl); .sys. */
typedef enum gpu_fence_scope { GPU_FENCE_WARP, GPU_FENCE_CTA, GPU_FENCE_GPU, GPU_FENCE_SYS, GPU_FENCE_N } gpu_fence_scope;

/* SIMT core and cluster organisation, L1 caches, shared memory, pipeline (GPGPU-Sim
 * shader_core_config). */
typedef struct gpu_core_config {
  uint32_t n_clusters;             /* -gpgpu_n_clusters */
  uint32_t n_cores_per_cluster;    /* -gpgpu_n_cores_per_cluster */
  uint32_t cluster_ejection_buffer; /* -gpgpu_n_cluster_ejection_buffer_size, packets */
  uint32_t ldst_response_buffer;   /* -gpgpu_n_ldst_response_buffer_size, packets */
  char shader_core_pipeline[GPU_CONFIG_STRING_MAX]; /* "<max threads>:<warp size>" */
  int32_t simd_model;              /* -gpgpu_simd_model (1 = post-dominator reconvergence) */
  uint32_t registers_per_core;     /* -gpgpu_shader_registers, 32-bit registers */
  uint32_t registers_per_cta;      /* -gpgpu_registers_per_block */
  bool ignore_resource_limits;     /* -gpgpu_ignore_resources_limitation */
  uint32_t max_ctas_per_core;      /* -gpgpu_shader_cta */
  uint32_t barriers_per_cta;       /* -gpgpu_num_cta_barriers */
  uint32_t shmem_size;             /* -gpgpu_shmem_size, bytes per core */
  uint32_t shmem_size_default;     /* -gpgpu_shmem_sizeDefault, bytes */
  uint32_t shmem_size_pref_l1;     /* -gpgpu_shmem_size_PrefL1, bytes */
  uint32_t shmem_size_pref_shared; /* -gpgpu_shmem_size_PrefShared, bytes */
  uint32_t shmem_per_cta;          /* -gpgpu_shmem_per_block, bytes */
  char shmem_option[GPU_CONFIG_STRING_MAX]; /* -gpgpu_shmem_option, KB list "0,8,16,32,64,100" */
  uint32_t unified_l1d_size_kb;    /* -gpgpu_unified_l1d_size, KB (L1D + shared) */
  bool adaptive_cache_config;      /* -gpgpu_adaptive_cache_config */
  uint32_t shmem_banks;            /* -gpgpu_shmem_num_banks */
  bool shmem_limited_broadcast;    /* -gpgpu_shmem_limited_broadcast */
  int32_t shmem_warp_parts;        /* -gpgpu_shmem_warp_parts */
  uint32_t smem_latency;           /* -gpgpu_smem_latency, core cycles */
  int32_t mem_unit_ports;          /* -gpgpu_mem_unit_ports */
  uint32_t tlb_l1_entries, tlb_l1_assoc; /* -gpgpu_tlb_l1_entries/_assoc (docs/vm.md) */
  uint32_t tlb_l2_entries, tlb_l2_assoc; /* -gpgpu_tlb_l2_entries/_assoc */
  uint32_t tlb_l2_latency;         /* -gpgpu_tlb_l2_latency, core cycles */
  bool perfect_mem;                /* -gpgpu_perfect_mem */
  bool local_mem_map;              /* -gpgpu_local_mem_map */
  /* Register file and operand collector. */
  int32_t reg_banks;               /* -gpgpu_num_reg_banks */
  bool reg_bank_use_warp_id;       /* -gpgpu_reg_bank_use_warp_id */
  bool alu_forwarding;             /* -gpgpu_alu_forwarding (simtvp) */
  char fence_latency[GPU_CONFIG_STRING_MAX]; /* -gpgpu_fence_latency (simtvp) WARP,CTA,GPU,SYS */
  bool hoist_loads;                /* -ptx_hoist_loads (simtvp) */
  int32_t reg_file_port_throughput; /* -gpgpu_reg_file_port_throughput */
  bool sub_core_model;             /* -gpgpu_sub_core_model */
  bool specialized_operand_collector; /* -gpgpu_enable_specialized_operand_collector */
  int32_t oc_units_sp, oc_units_dp, oc_units_sfu, oc_units_int, oc_units_tensor, oc_units_mem,
      oc_units_gen;
  int32_t oc_in_ports_sp, oc_in_ports_dp, oc_in_ports_sfu, oc_in_ports_int, oc_in_ports_tensor,
      oc_in_ports_mem, oc_in_ports_gen;
  int32_t oc_out_ports_sp, oc_out_ports_dp, oc_out_ports_sfu, oc_out_ports_int,
      oc_out_ports_tensor, oc_out_ports_mem, oc_out_ports_gen;
  /* Issue and execution. */
  int32_t coalesce_arch;           /* -gpgpu_coalesce_arch (13 = GT200 rule, >=20 sector rule) */
  int32_t schedulers_per_core;     /* -gpgpu_num_sched_per_core */
  char scheduler[GPU_CONFIG_STRING_MAX]; /* -gpgpu_scheduler */
  int32_t max_insn_issue_per_warp; /* -gpgpu_max_insn_issue_per_warp */
  bool dual_issue_diff_exec_units; /* -gpgpu_dual_issue_diff_exec_units */
  int32_t core_sim_order;          /* -gpgpu_simt_core_sim_order (0 fixed, 1 round robin) */
  char pipeline_widths[GPU_CONFIG_STRING_MAX]; /* -gpgpu_pipeline_widths */
  int32_t tensor_core_avail;       /* -gpgpu_tensor_core_avail */
  int32_t n_sp_units, n_dp_units, n_int_units, n_sfu_units, n_tensor_units, n_mem_units;
  bool concurrent_kernel_sm;       /* -gpgpu_concurrent_kernel_sm */
  bool perfect_inst_const_cache;   /* -gpgpu_perfect_inst_const_cache */
  int32_t inst_fetch_throughput;   /* -gpgpu_inst_fetch_throughput, instructions per warp */
  /* Opcode latencies and initiation intervals, core cycles: "ADD,MAX,MUL,MAD,DIV[,SHFL]". */
  char latency_int[GPU_CONFIG_STRING_MAX], latency_fp[GPU_CONFIG_STRING_MAX],
      latency_dp[GPU_CONFIG_STRING_MAX], latency_sfu[GPU_CONFIG_STRING_MAX],
      latency_tensor[GPU_CONFIG_STRING_MAX];
  char initiation_int[GPU_CONFIG_STRING_MAX], initiation_fp[GPU_CONFIG_STRING_MAX],
      initiation_dp[GPU_CONFIG_STRING_MAX], initiation_sfu[GPU_CONFIG_STRING_MAX],
      initiation_tensor[GPU_CONFIG_STRING_MAX];
  /* L1 caches: GPGPU-Sim cache configuration strings (parsed by models/cache). */
  char l1d[GPU_CONFIG_STRING_MAX];            /* -gpgpu_cache:dl1 */
  char l1d_pref_l1[GPU_CONFIG_STRING_MAX];    /* -gpgpu_cache:dl1PrefL1 */
  char l1d_pref_shared[GPU_CONFIG_STRING_MAX]; /* -gpgpu_cache:dl1PrefShared */
  char l1i[GPU_CONFIG_STRING_MAX];            /* -gpgpu_cache:il1 */
  char l1t[GPU_CONFIG_STRING_MAX];            /* -gpgpu_tex_cache:l1 */
  char l1c[GPU_CONFIG_STRING_MAX];            /* -gpgpu_const_cache:l1 */
  uint32_t l1d_write_ratio;        /* -gpgpu_l1_cache_write_ratio, percent */
  uint32_t l1d_banks;              /* -gpgpu_l1_banks */
  uint32_t l1d_bank_interleave;    /* -gpgpu_l1_banks_byte_interleaving, bytes */
  uint32_t l1d_bank_hash;          /* -gpgpu_l1_banks_hashing_function */
  uint32_t l1d_latency;            /* -gpgpu_l1_latency, core cycles */
  bool gmem_skip_l1d;              /* -gpgpu_gmem_skip_L1D */
  bool flush_l1_per_kernel;        /* -gpgpu_flush_l1_cache */
} gpu_core_config;

/* Memory partitions: L2 slices, queues, address decoding (GPGPU-Sim memory_config). */
typedef struct gpu_mem_config {
  uint32_t n_channels;             /* -gpgpu_n_mem: memory channels (controllers) */
  uint32_t sub_partitions_per_channel; /* -gpgpu_n_sub_partition_per_mchannel (L2 slices) */
  uint32_t chips_per_channel;      /* -gpgpu_n_mem_per_ctrlr */
  char l2[GPU_CONFIG_STRING_MAX];  /* -gpgpu_cache:dl2, per sub-partition */
  bool l2_texture_only;            /* -gpgpu_cache:dl2_texture_only */
  bool l2_ideal;                   /* -l2_ideal */
  char partition_queues[GPU_CONFIG_STRING_MAX]; /* -gpgpu_dram_partition_queues i2$:$2d:d2$:$2i */
  uint32_t rop_latency;            /* -gpgpu_l2_rop_latency, core cycles */
  uint32_t dram_latency;           /* -dram_latency, core cycles */
  uint32_t l2_atomic_ops;          /* -gpgpu_l2_atomic_ops_per_cycle (simtvp; 0 = unlimited) */
  bool perf_sim_memcpy;            /* -gpgpu_perf_sim_memcpy: memcpy fills the L2 */
  int32_t partition_indexing;      /* -gpgpu_memory_partition_indexing (enum) */
  char addr_mapping[GPU_CONFIG_STRING_MAX]; /* -gpgpu_mem_addr_mapping */
  int32_t address_mask;            /* -gpgpu_mem_address_mask */
  bool flush_l2_per_kernel;        /* -gpgpu_flush_l2_cache */
} gpu_mem_config;

/* DRAM channels (GPGPU-Sim memory_config, dram_t). */
typedef struct gpu_dram_config {
  int32_t scheduler;               /* -gpgpu_dram_scheduler: 0 FIFO, 1 FR-FCFS */
  int32_t sched_queue_size;        /* -gpgpu_frfcfs_dram_sched_queue_size, 0 = unlimited */
  int32_t return_queue_size;       /* -gpgpu_dram_return_queue_size, 0 = unlimited */
  uint32_t bus_width;              /* -gpgpu_dram_buswidth, bytes per chip */
  uint32_t burst_length;           /* -gpgpu_dram_burst_length, data-bus cycles */
  uint32_t data_command_freq_ratio; /* -dram_data_command_freq_ratio */
  char timing[GPU_CONFIG_STRING_MAX]; /* -gpgpu_dram_timing_opt (ordered or named form) */
  uint32_t dual_bus_interface;     /* -dram_dual_bus_interface */
  uint32_t bank_indexing;          /* -dram_bnk_indexing_policy */
  uint32_t bankgroup_indexing;     /* -dram_bnkgrp_indexing_policy */
  bool separate_write_queue;       /* -dram_seperate_write_queue_enable */
  char write_queue_size[GPU_CONFIG_STRING_MAX]; /* -dram_write_queue_size size:high:low */
  bool eliminate_rw_turnaround;    /* -dram_elimnate_rw_turnaround */
  bool simple_model;               /* -gpgpu_simple_dram_model */
  bool refresh;                    /* -dram_refresh (simtvp) */
  double trefi_ns;                 /* -dram_trefi_ns: average refresh interval, ns */
  double trfc_ns;                  /* -dram_trfc_ns: refresh cycle time, ns */
} gpu_dram_config;

/* Interconnect (GPGPU-Sim icnt_wrapper, local crossbar, intersim). */
typedef struct gpu_icnt_config {
  int32_t network_mode;            /* -network_mode (enum) */
  char config_file[GPU_CONFIG_STRING_MAX]; /* -inter_config_file (BookSim-style) */
  uint32_t in_buffer_limit;        /* -icnt_in_buffer_limit, packets */
  uint32_t out_buffer_limit;       /* -icnt_out_buffer_limit, packets */
  uint32_t subnets;                /* -icnt_subnets */
  uint32_t arbiter_algo;           /* -icnt_arbiter_algo: 0 round robin, 1 iSLIP */
  uint32_t grant_cycles;           /* -icnt_grant_cycles */
  uint32_t flit_size;              /* -icnt_flit_size, bytes */
  uint32_t hop_latency;            /* -icnt_hop_latency, interconnect cycles (fixed mode) */
} gpu_icnt_config;

/* Clock domains, MHz. */
typedef struct gpu_clock_config {
  char domains[GPU_CONFIG_STRING_MAX]; /* -gpgpu_clock_domains core:icnt:l2:dram */
} gpu_clock_config;

/* Simulation control and device limits. */
typedef struct gpu_sim_config {
  int32_t ptx_sim_mode;            /* -gpgpu_ptx_sim_mode: 0 performance, 1 functional */
  uint64_t max_cycle;              /* -gpgpu_max_cycle, core cycles, 0 = no limit */
  uint64_t max_insn;               /* -gpgpu_max_insn, thread instructions, 0 = no limit */
  uint32_t max_cta;                /* -gpgpu_max_cta, 0 = no limit */
  uint32_t max_completed_cta;      /* -gpgpu_max_completed_cta, 0 = no limit */
  bool deadlock_detect;            /* -gpgpu_deadlock_detect */
  uint64_t deadlock_cycles;        /* -deadlock_cycles, core cycles without progress */
  int32_t max_concurrent_kernel;   /* -gpgpu_max_concurrent_kernel */
  int32_t kernel_launch_latency;   /* -gpgpu_kernel_launch_latency, core cycles */
  int32_t cta_launch_latency;      /* -gpgpu_TB_launch_latency, core cycles */
  uint32_t cc_major, cc_minor;     /* -gpgpu_compute_capability_major/_minor */
  uint32_t ptx_force_max_capability; /* -gpgpu_ptx_force_max_capability (e.g. 70), 0 = none */
  int32_t stack_size_limit;        /* -gpgpu_stack_size_limit, bytes per thread */
  int32_t heap_size_limit;         /* -gpgpu_heap_size_limit, bytes */
  int32_t runtime_sync_depth_limit; /* -gpgpu_runtime_sync_depth_limit */
  int32_t runtime_pending_launch_count_limit; /* -gpgpu_runtime_pending_launch_count_limit */
  bool memcheck;                   /* -memcheck: the memory checker (docs/memcheck.md) */
} gpu_sim_config;

/* -at_sample: the shortest detail phase (core cycles) from which an issue rate is measured (a
 * quarter warms the memory system up, the AT core's run-ahead window is left out at the end). */
#define GPU_AT_SAMPLE_MIN_DETAIL 512u
/* -interval_horizon: the cycles an interval core runs its warps ahead of the GPU per call
 * (docs/simt-interval.md §1), its default and its range. */
#define GPU_INTERVAL_HORIZON_DEFAULT 2048u
#define GPU_INTERVAL_HORIZON_MIN 16u
#define GPU_INTERVAL_HORIZON_MAX 2048u
/* -interval_horizon_ramp: each launch starts a core's horizon at 256 cycles (IV_HORIZON_RAMP_START,
 * models/simt/interval) and doubles it every that many core cycles up to -interval_horizon (0: no
 * ramp). */
#define GPU_INTERVAL_HORIZON_RAMP_DEFAULT 2048u
#define GPU_INTERVAL_HORIZON_RAMP_MAX (1u << 24)

/* simtvp: fidelity of each block instance. */
typedef struct gpu_fidelity_config {
  int32_t simt_model;              /* -simt_model func|at|ca (all cores) */
  char simt_model_override[GPU_CONFIG_OVERRIDE_MAX]; /* -simt_model_override "0-3:ca,7:func" */
  int32_t dram_model;              /* -dram_model at|ca (all channels) */
  char dram_model_override[GPU_CONFIG_OVERRIDE_MAX]; /* -dram_model_override "0:ca,1-3:at" */
  int32_t icnt_model;              /* -icnt_model at|ca (the interconnect) */
  int32_t mempart_model;           /* -mempart_model at|ca (all memory partitions) */
  char mempart_model_override[GPU_CONFIG_OVERRIDE_MAX]; /* -mempart_model_override "0-3:ca" */
  uint32_t func_threads;           /* -func_threads: host threads for functional mode */
  uint32_t func_step_insns;        /* -func_step_insns: warp instructions per functional step */
  uint32_t sim_threads;            /* -sim_threads: host threads for the timing GPU (addition) */
  char at_sample[GPU_CONFIG_STRING_MAX]; /* -at_sample DETAIL,PERIOD: sampled AT cores (docs/simt-at.md §6a) */
  bool interval_runs;              /* -interval_runs: interval cores time straight runs as one step */
  bool interval_fold;              /* -interval_fold: interval cores time a CTA's warps as one group */
  uint32_t interval_horizon;       /* -interval_horizon: core cycles an interval core runs ahead per call */
  uint32_t interval_horizon_ramp;  /* -interval_horizon_ramp: core cycles per doubling from a launch's start */
} gpu_fidelity_config;

/* simtvp: host CPU stub, system bus and device memory as seen by the driver. */
typedef struct gpu_host_config {
  double host_clock_mhz;           /* -host_clock_mhz */
  double mmio_read_ns;             /* -host_mmio_read_latency_ns */
  double mmio_write_ns;            /* -host_mmio_write_latency_ns */
  double sysmem_latency_ns;        /* -host_sysmem_latency_ns */
  double bus_bandwidth_gbs;        /* -host_bus_bandwidth_gbs, GB/s (1e9 bytes/s) */
  double irq_latency_ns;           /* -host_irq_latency_ns */
  double api_overhead_ns;          /* -host_api_overhead_ns */
  bool trap_shared;                /* -host_trap_shared */
  uint64_t device_memory_mb;       /* -device_memory_mb, MiB */
  uint64_t device_memory_base;     /* -device_memory_base: first device address */
  char gpu_name[GPU_CONFIG_STRING_MAX]; /* -gpu_name */
} gpu_host_config;

/* simtvp: the system around the GPU (docs/system-modes.md). */
typedef enum gpu_system_mode {
  GPU_SYSTEM_DISCRETE = 0,   /* own DRAM; host memory over the bus (zero-copy) */
  GPU_SYSTEM_UNIFIED = 1,    /* no DRAM of its own: device memory is a carve-out of system memory */
  GPU_SYSTEM_SHARED_LLC = 2, /* unified, plus a system-level cache and a coherence directory */
  GPU_SYSTEM_SHARED_VA = 3   /* shared LLC, plus the host's page tables through an IOMMU */
} gpu_system_mode;

typedef struct gpu_system_config {
  int32_t mode;                    /* -system_mode (gpu_system_mode) */
  uint32_t hub_max_outstanding;    /* -hub_max_outstanding: requests the hub holds */
  double fabric_latency_ns;        /* -soc_fabric_latency_ns: the hub's link, integrated modes */
  double fabric_bandwidth_gbs;     /* -soc_fabric_bandwidth_gbs */
  double sysmem_latency_ns;        /* -sysmem_latency_ns: the SoC memory, integrated modes */
  double sysmem_bandwidth_gbs;     /* -sysmem_bandwidth_gbs */
  uint32_t sysmem_channels;        /* -sysmem_channels */
  uint32_t sysmem_interleave;      /* -sysmem_interleave_bytes */
  uint64_t carveout_base;          /* -gpu_carveout_base: bus address of the GPU's memory */
  uint32_t syscache_sets;          /* -syscache_sets: the system-level cache (shared modes) */
  uint32_t syscache_ways;          /* -syscache_ways */
  uint32_t syscache_line;          /* -syscache_line_bytes (also the directory's line) */
  double syscache_latency_ns;      /* -syscache_latency_ns */
  uint32_t dir_sets;               /* -coherence_dir_sets: the coherence directory */
  uint32_t dir_ways;               /* -coherence_dir_ways */
  double dir_lookup_ns;            /* -coherence_lookup_ns */
  double dir_message_ns;           /* -coherence_message_ns */
  uint32_t iommu_tlb_sets;         /* -iommu_tlb_sets: the IOMMU's IOTLB (shared_va) */
  uint32_t iommu_tlb_ways;         /* -iommu_tlb_ways */
  double iommu_tlb_ns;             /* -iommu_tlb_latency_ns */
  double iommu_walk_ns;            /* -iommu_walk_level_ns */
} gpu_system_config;

/* true in the modes with a system-level cache and a coherence directory (shared_llc, shared_va). */
static inline bool gpu_system_shared(int32_t mode) {
  return mode == GPU_SYSTEM_SHARED_LLC || mode == GPU_SYSTEM_SHARED_VA;
}

/* true when the GPU has no DRAM of its own (every mode but discrete). */
static inline bool gpu_system_integrated(int32_t mode) { return mode != GPU_SYSTEM_DISCRETE; }

/* simtvp: statistics outputs. */
typedef struct gpu_output_config {
  char stats_json[GPU_CONFIG_STRING_MAX];     /* -stats_json, "" = none */
  uint64_t series_period_ns;                  /* -stats_series_period_ns, 0 = off */
  char series_prefixes[GPU_CONFIG_STRING_MAX]; /* -stats_series_prefixes, "" = all */
  bool print_kernel_stats;                    /* -stats_print_kernel */
  bool ptx_line_stats;                        /* -enable_ptx_file_line_stats */
  char ptx_line_stats_file[GPU_CONFIG_STRING_MAX]; /* -ptx_line_stats_filename */
  double liveness_message_freq;               /* -liveness_message_freq, wall seconds, 0 = none */
} gpu_output_config;

/* Values gpu_config_finalize computes from the options above. */
typedef struct gpu_config_derived {
  uint32_t n_cores;                /* n_clusters * n_cores_per_cluster */
  uint32_t max_threads_per_core;   /* from -gpgpu_shader_core_pipeline */
  uint32_t warp_size;
  uint32_t max_warps_per_core;
  uint32_t n_sub_partitions;       /* n_channels * sub_partitions_per_channel */
  double core_mhz, icnt_mhz, l2_mhz, dram_mhz; /* -gpgpu_clock_domains */
  uint32_t pipeline_width[GPU_PIPE_N]; /* absent fields (9- and 11-field forms) are 0 */
  uint32_t latency_int[GPU_OP_N], initiation_int[GPU_OP_N];
  uint32_t fence_latency[GPU_FENCE_N]; /* by gpu_fence_scope */
  uint32_t latency_fp[GPU_OP_N], initiation_fp[GPU_OP_N];  /* [GPU_OP_SHFL] unused */
  uint32_t latency_dp[GPU_OP_N], initiation_dp[GPU_OP_N];  /* [GPU_OP_SHFL] unused */
  uint32_t latency_sfu, initiation_sfu, latency_tensor, initiation_tensor;
  gpu_scheduler_policy scheduler;
  uint32_t scheduler_params[3];
  uint32_t queue_icnt_to_l2, queue_l2_to_dram, queue_dram_to_l2, queue_l2_to_icnt; /* entries */
  uint32_t write_queue_size, write_queue_high, write_queue_low; /* entries */
  uint8_t simt_model_of_core[GPU_CONFIG_MAX_CORES];       /* gpu_fidelity */
  uint8_t dram_model_of_channel[GPU_CONFIG_MAX_CHANNELS]; /* gpu_fidelity */
  uint8_t mempart_model_of_channel[GPU_CONFIG_MAX_CHANNELS]; /* gpu_fidelity */
  uint32_t at_sample_detail, at_sample_period; /* -at_sample, core cycles (0,0: off) */
  bool interval_runs;                          /* -interval_runs */
  bool interval_fold;                          /* -interval_fold */
  uint32_t interval_horizon;                   /* -interval_horizon, core cycles */
  uint32_t interval_horizon_ramp;              /* -interval_horizon_ramp, core cycles (0: none) */
} gpu_config_derived;

typedef struct gpu_config {
  gpu_core_config core;
  gpu_mem_config mem;
  gpu_dram_config dram;
  gpu_icnt_config icnt;
  gpu_clock_config clock;
  gpu_sim_config sim;
  gpu_fidelity_config fidelity;
  gpu_host_config host;
  gpu_system_config system;
  gpu_output_config output;
  gpu_config_derived derived;
} gpu_config;

/* Registers every GPU option with r (one block per section) and writes the defaults into cfg.
 * cfg must outlive r. */
simtvp_status gpu_config_register(config_registry *r, gpu_config *cfg, simtvp_diag *diag);

/* Parses the composite options into cfg->derived and checks consistency (limits, override
 * indices within the core/channel counts...). Errors name the option and, through r (may be
 * NULL), the file:line that set it. */
simtvp_status gpu_config_finalize(gpu_config *cfg, const config_registry *r, simtvp_diag *diag);

/* Convenience for programs and tests: a registry with the GPU options, defaults applied, the
 * given files loaded in order and finalized. */
simtvp_status gpu_config_load(gpu_config *cfg, config_registry *r, const char *const *files,
                              int n_files, simtvp_diag *diag);

/* ---- helpers for the blocks that own composite strings ------------------------------------- */

/* DRAM timing in command-clock cycles (GPGPU-Sim's -gpgpu_dram_timing_opt fields). */
typedef struct gpu_dram_timing {
  uint32_t nbk, tCCD, tRRD, tRCD, tRAS, tRP, tRC, CL, WL, tCDLR, tWR, nbkgrp, tCCDL, tRTPL;
} gpu_dram_timing;

/* Parses either form: ordered "nbk:tCCD:tRRD:tRCD:tRAS:tRP:tRC:CL:WL:tCDLR:tWR[:nbkgrp:tCCDL:
 * tRTPL]" (11 to 14 numbers; missing ones are nbkgrp = 1, tCCDL = tRTPL = 0) or named
 * "nbk=16:CCD=2:RRD=6:…" (keys nbk CCD RRD RCD RAS RP RC CL WL CDLR WR nbkgrp CCDL RTPL, any
 * order, each at most once; nbk, CCD, RRD, RCD, RAS, RP, RC, CL, WL, CDLR and WR required). */
bool gpu_config_parse_dram_timing(const char *text, gpu_dram_timing *t, char *why, size_t why_size);
/* config_check_fn for -gpgpu_dram_timing_opt. */
bool gpu_config_check_dram_timing(const char *text, char *why, size_t why_size);

/* Resolves a fidelity override list ("0-3:ca,7:func") over n instances whose default is dflt;
 * accepted names are those of `allowed`. */
bool gpu_config_resolve_overrides(const char *text, const config_enum_value *allowed, uint8_t dflt,
                                  uint8_t *out, uint32_t n, char *why, size_t why_size);

/* Name of a fidelity ("func", "at", "ca", "interval"). */
const char *gpu_fidelity_name(gpu_fidelity f);

/* The fidelity of every block instance of a finalized configuration, in words:
 * "simt=ca icnt=at mempart=at dram=0-1:ca,2-5:at" (one model per block when all its instances
 * agree, else ranges). Writes at most size bytes (always terminated); returns the length it needed. */
size_t gpu_config_fidelity_map(const gpu_config *cfg, char *out, size_t size);

/* A fidelity assignment as users write it — "ca", "at", "at-sampled" (every block AT, the cores
 * sampled with -at_sample GPU_FIDELITY_SAMPLED), "interval" (interval SIMT cores,
 * docs/simt-interval.md; the memory blocks AT), "interval-sampled" (the same, the cores sampled
 * with -at_sample GPU_FIDELITY_IV_SAMPLED), "interval-runs" (interval cores with -interval_runs 1,
 * docs/simt-interval.md §11), "interval-fold" (the same with -interval_fold 1: a CTA's warps timed as
 * one group, docs/simt-interval.md §13), "func", "at-cores" (AT SIMT cores, CA memory system), "at-mem" (CA cores, AT interconnect, partitions and DRAM), or block=model items
 * joined by commas over the all-CA assignment: simt=func|at|ca|interval, icnt=at|ca, mempart=at|ca,
 * dram=at|ca, mem=at|ca (icnt, mempart and dram together), e.g. "simt=at,dram=ca" — as the option
 * words that select it ({"-simt_model", "at", "-icnt_model", "ca", …}; at most
 * GPU_FIDELITY_SPEC_WORDS words, string literals). Unknown words: false and why names them. */
#define GPU_FIDELITY_SPEC_WORDS 12
/* The -at_sample DETAIL,PERIOD of the `at-sampled` assignment (docs/simt-at.md §6a). */
#define GPU_FIDELITY_SAMPLED "4000,12000"
/* The -at_sample DETAIL,PERIOD of the `interval-sampled` assignment (interval cores sampled, the
 * memory blocks AT; docs/simt-interval.md §10). */
#define GPU_FIDELITY_IV_SAMPLED "1000,4000"
bool gpu_fidelity_spec_options(const char *spec, const char *words[GPU_FIDELITY_SPEC_WORDS], uint32_t *n_words,
                               char *why, size_t why_size);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_GPU_CONFIG_H */
