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

/* A value that is a ratio of two counters, evaluated when printed (e.g. gpu_ipc =
 * gpu_sim_insn / gpu_sim_cycle). Both counters must be registered (before or after). */
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

/* Value of a counter by name (for tests and derived outputs); 0 and *found = 0 when absent. */
uint64_t stats_get(const stats *s, const char *name, int *found);

/* Text in GPGPU-Sim's "name = value" form: the last kernel's statistics, then totals. */
void stats_print_kernel(const stats *s, FILE *out);
void stats_print_totals(const stats *s, FILE *out);
/* Everything (per kernel, totals, histograms, time series) as one JSON document. */
simtvp_status stats_write_json(const stats *s, const char *path, simtvp_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_STATS_H */
