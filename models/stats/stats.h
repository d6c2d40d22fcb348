/* stats — the statistics sink every model core reports to.
 *
 * A block registers its counters once (name, unit, description) and then bumps them on events by
 * writing through the returned pointer: counting costs one add, nothing is computed per idle cycle.
 * The sink knows kernel boundaries, so it prints per-kernel values and totals under GPGPU-Sim's
 * names where the meaning matches (gpu_sim_cycle, gpu_sim_insn, gpu_ipc, gpu_tot_*), writes the
 * same as JSON, and samples time series for plots. Deterministic: output order is registration
 * order, numbers depend only on what was counted. */
#ifndef SIMTVP_STATS_H
#define SIMTVP_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct stats stats;
typedef struct stats_histogram stats_histogram;

stats *stats_create(void);
void stats_destroy(stats *s);

/* Registers a counter and returns a pointer that stays valid for the sink's lifetime; the block
 * bumps it with `++*c` or `*c += n`. Registering a name that exists returns the same counter, so
 * several instances can feed one aggregate. Names: GPGPU-Sim's where the meaning matches, else
 * dotted lower_case ("icnt.req.flits"); per-instance counters carry the instance in brackets
 * ("L1D[3].access"). `unit` is a short word ("cycles", "insn", "bytes", "requests"). */
uint64_t *stats_counter(stats *s, const char *name, const char *unit, const char *description);

/* A zeroed block of `bytes` the sink keeps for its lifetime under `key`: every call with the key
 * gets the same block (the first call sizes it). For a family of blocks that resolve shared
 * counters once for all their instances instead of by name in each (a cache group's totals,
 * docs/cache.md "Statistics"). A shard keeps its own blocks, so each holds what was registered
 * through it. NULL when out of memory (reported by stats_write_json). */
void *stats_shared(stats *s, const char *key, size_t bytes);

/* A value that is a ratio of two counters, evaluated when printed (e.g. gpu_ipc =
 * gpu_sim_insn / gpu_sim_cycle). Both counters must be registered (before or after); either may
 * also be a sum (stats_sum). */
void stats_ratio(stats *s, const char *name, const char *description, const char *numerator,
                 const char *denominator);

/* A histogram with n_buckets linear buckets of bucket_width starting at 0, plus an overflow
 * bucket; also tracks count, sum, min and max. */
stats_histogram *stats_histogram_register(stats *s, const char *name, const char *unit,
                                          const char *description, uint64_t bucket_width,
                                          uint32_t n_buckets);
void stats_histogram_add(stats_histogram *h, uint64_t value);

/* Kernel boundaries: begin snapshots every counter, end records the deltas as that kernel's
 * statistics. Totals are the counters themselves. */
void stats_kernel_begin(stats *s, const char *kernel_name, uint64_t launch_uid);
void stats_kernel_end(stats *s);

/* Time series: records the current value of every counter with the given timestamp (simulated
 * picoseconds); the sampling period is the caller's choice. */
void stats_sample(stats *s, uint64_t time_ps);

/* Value of a counter (or of a sum, see stats_sum) by name, for tests and derived outputs;
 * 0 and *found = 0 when absent. */
uint64_t stats_get(const stats *s, const char *name, int *found);

/* Text in GPGPU-Sim's "name = value" form: the last kernel's statistics, then totals. */
void stats_print_kernel(const stats *s, FILE *out);
void stats_print_totals(const stats *s, FILE *out);
/* Everything (per kernel, totals, histograms, time series) as one JSON document. */
simtvp_status stats_write_json(const stats *s, const char *path, simtvp_diag *diag);

/* ---- text layout, references, profiles ------------------------------------------------ */

/* Text layout. stats_print_kernel prints `kernel_name`, `kernel_launch_uid` and the kernel-scoped
 * items as that kernel's values; stats_print_totals prints kernel-scoped items under their gpu_tot_
 * names (gpu_sim_cycle -> gpu_tot_sim_cycle, gpu_ipc -> gpu_tot_ipc) and every other item as its
 * cumulative value under its own name — exactly GPGPU-Sim's convention, so scripts that diff
 * aggregate values between kernels keep working. An item is kernel-scoped when its name starts with
 * "gpu_" but not "gpu_tot_", unless stats_mark_cumulative was called for it (GPGPU-Sim prints a few
 * gpu_ names cumulatively, e.g. gpu_stall_dramfull). The JSON file has per-kernel values of every
 * item regardless. */
void stats_mark_cumulative(stats *s, const char *name);

/* A total over every counter whose name matches pattern, where one '*' stands for any non-empty
 * text ("L1D[*].access" sums L1D[0].access, L1D[1].access ...). Evaluated when read — printed,
 * written, used by a ratio, or read with stats_get / stats_kernel_get — so each instance still
 * counts with one add. GPGPU-Sim totals such as L1D_total_cache_accesses are sums. Counters
 * registered later are included. Output lists a sum with the counters. */
void stats_sum(stats *s, const char *name, const char *unit, const char *description,
               const char *pattern);

/* Free-form run information written at the top of the JSON file ("config", "gpu", "version"...);
 * setting a key again replaces its value. */
void stats_set_info(stats *s, const char *key, const char *value);

/* Ends the open kernel with this launch uid (concurrent kernels may end in any order);
 * stats_kernel_end ends the most recently begun open kernel. Unknown uid: no effect. */
void stats_kernel_end_uid(stats *s, uint64_t launch_uid);

/* Completed kernels, in completion order. */
uint32_t stats_kernel_count(const stats *s);
const char *stats_kernel_name(const stats *s, uint32_t kernel_index);
uint64_t stats_kernel_uid(const stats *s, uint32_t kernel_index);
/* A counter's (or sum's) value during one completed kernel; 0 and *found = 0 when absent. */
uint64_t stats_kernel_get(const stats *s, uint32_t kernel_index, const char *name, int *found);

/* A ratio's value over the totals, or over one completed kernel; NaN when the denominator is 0;
 * 0 and *found = 0 when the ratio or one of its counters is absent. */
double stats_get_ratio(const stats *s, const char *name, int *found);
double stats_kernel_get_ratio(const stats *s, uint32_t kernel_index, const char *name, int *found);

/* A read-only view of a histogram (totals); min is 0 while count is 0. buckets has n_buckets + 1
 * entries, the last being the overflow bucket (values >= n_buckets * bucket_width). */
typedef struct stats_histogram_view {
  uint64_t count, sum, min, max;
  uint64_t bucket_width;
  uint32_t n_buckets;
  const uint64_t *buckets;
} stats_histogram_view;
void stats_histogram_read(const stats_histogram *h, stats_histogram_view *view);
/* The histogram registered under name, or NULL. */
stats_histogram *stats_histogram_find(const stats *s, const char *name);

/* Time series: by default stats_sample records every counter. Once a prefix is included, only
 * counters whose name starts with one of the included prefixes are sampled (keeps series small
 * when there are thousands of per-instance counters). */
void stats_series_include(stats *s, const char *prefix);
uint32_t stats_sample_count(const stats *s);

/* Counters in registration order, for report writers that follow a chosen few without looking
 * names up each time: a counter's name and its live value pointer (valid for the sink's lifetime).
 * stats_counter_find gives the live value of a registered counter (not a sum) and NULL otherwise;
 * unlike stats_counter it never registers anything. stats_item_description: the description of a
 * counter, sum, ratio or histogram, NULL when absent. */
uint32_t stats_counter_count(const stats *s);
const char *stats_counter_name(const stats *s, uint32_t index);
const uint64_t *stats_counter_value(const stats *s, uint32_t index);
const uint64_t *stats_counter_find(const stats *s, const char *name);
const char *stats_item_description(const stats *s, const char *name);

/* JSON to an open stream (stats_write_json opens, writes and closes a file with it). */
simtvp_status stats_write_json_stream(const stats *s, FILE *out, simtvp_diag *diag);

/* ---- per-instruction statistics: the PTX source-line profile ------------------------------
 * GPGPU-Sim's -enable_ptx_file_line_stats. A program registers its instructions once, with the
 * PTX line of each and, where the PTX has .loc/.file, the CUDA source file and line; whoever
 * executes them counts per instruction index (one array add per issued warp instruction, in its
 * own array) and adds the rows here when a launch ends. Rows are folded to PTX lines and to
 * source lines only at output: the JSON file gets "ptx_lines" and "source_lines" per kernel and in
 * the totals (docs/statistics.md); stats_write_code_lines writes one kernel's profile as text.
 * Per-kernel values follow the sink's kernel windows: rows added while a kernel is open count
 * for it (concurrent kernels' windows overlap, as for every counter). Nothing is written, and the
 * JSON has no such keys, while no program is registered. */
enum {
  STATS_CODE_WARP_INSN = 0,  /* warp instructions executed */
  STATS_CODE_THREAD_INSN,    /* their active threads (as gpu_sim_insn counts) */
  STATS_CODE_STALL_CYCLES,   /* cycles warps waited at the instruction (timing cores that tell) */
  STATS_CODE_COLUMNS
};
typedef struct stats_code stats_code;
typedef struct stats_code_loc {
  uint32_t ptx_line;    /* line in the PTX text, 0 = unknown */
  uint32_t src_file;    /* index into src_files (0 or >= n_src_files = none) */
  uint32_t src_line;    /* CUDA source line (.loc), 0 = none */
} stats_code_loc;
/* Registers a program of n_insns instructions: ptx_file names its PTX text, locs[i] places
 * instruction i, src_files[0..n_src_files) are the .file names (index 0 unused, as in ptx.h).
 * Everything is copied. NULL when out of memory (reported by stats_write_json). */
stats_code *stats_code_register(stats *s, const char *ptx_file, const stats_code_loc *locs,
                                uint32_t n_insns, const char *const *src_files, uint32_t n_src_files);
/* Adds the values[STATS_CODE_COLUMNS] of instruction `insn` (ignored when out of range). */
void stats_code_add(stats_code *c, uint32_t insn, const uint64_t *values);
/* Registered programs (0 = the profile is off). */
uint32_t stats_code_count(const stats *s);
/* A column's total over the run, or during one completed kernel, of every instruction on PTX line
 * `ptx_line` of `ptx_file` (tests and tools); 0 when none. */
uint64_t stats_code_line_get(const stats *s, const char *ptx_file, uint32_t ptx_line, int column);
uint64_t stats_code_kernel_line_get(const stats *s, uint32_t kernel_index, const char *ptx_file,
                                    uint32_t ptx_line, int column);
/* The same by CUDA source line (.loc). */
uint64_t stats_code_source_line_get(const stats *s, const char *src_file, uint32_t src_line, int column);
/* Text profile of one completed kernel (kernel_index as stats_kernel_name), or of the totals when
 * kernel_index is UINT32_MAX: '#' header lines, then one line per PTX line with its instructions,
 * tab-separated (`ptx_file:line source_file:line warp_insn thread_insn stall_cycles`, '-' for no
 * source line; file names may contain spaces), then the same folded by source line. Lines in file
 * order; lines nothing executed are left out. */
void stats_write_code_lines(const stats *s, uint32_t kernel_index, FILE *out);

/* The profile folded to lines, for reports: fn is called once per executed PTX line
 * (by_source 0; src_file/src_line are the line's source place or NULL/0) or source line (by_source
 * 1; src_file NULL), in file and line order, for one completed kernel or for the totals
 * (kernel_index UINT32_MAX). Nothing when the profile is off. */
typedef struct stats_code_line {
  const char *file;
  uint32_t line;
  const char *src_file;
  uint32_t src_line;
  uint64_t v[STATS_CODE_COLUMNS];
} stats_code_line;
void stats_code_lines(const stats *s, uint32_t kernel_index, int by_source,
                      void (*fn)(void *ctx, const stats_code_line *line), void *ctx);

/* ---- shards: blocks that count on several host threads at once (addition) -----------------
 * A shard is a `stats *` that a block registers with and counts through exactly as with its sink,
 * for blocks ticked on several host threads (the timing GPU's -sim_threads, docs/timing.md
 * "Parallel simulation"). Names, units, order and output stay the parent's — the JSON file is the
 * one a single-thread run writes — while counting goes where no other thread writes:
 *   - a counter, histogram, ratio … that no one has registered yet is registered in the parent and
 *     the shard's block counts in the parent's own slot;
 *   - one that exists already (an aggregate several blocks feed: gpu_sim_insn, L1D_total_…) gets
 *     a private slot (histogram) in the shard, added into the parent's when folded;
 *   - while *deferred is true (the block's tick runs in a parallel phase) the parent is not
 *     touched at all: new registrations get private slots and are made in the parent by the next
 *     stats_shards_sync, in shard creation order (create the shards in the blocks' order).
 * Folding: every read of the parent (kernel boundaries, samples, get, printing, JSON) first folds
 * every shard. A counter the parent's own users registered (they hold its pointer and read it
 * directly, e.g. simulation control reading gpu_sim_insn; stats_counter_find and
 * stats_counter_value hand out live pointers too) is "watched": stats_shards_sync adds
 * the shards' private slots of watched counters into it — call it after every parallel phase
 * (cheap: only those slots). Reading a shard (stats_get on it) answers from the parent as last
 * folded. A shard lives as long as its parent (stats_destroy on a shard does nothing). */
stats *stats_shard_create(stats *parent, const bool *deferred);
/* Replays deferred registrations and folds the watched counters (serial code, between phases). */
void stats_shards_sync(stats *parent);
/* Folds everything now (reads do it themselves). */
void stats_fold(stats *parent);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_STATS_H */
