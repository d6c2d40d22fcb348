/* stats_code — inside the statistics sink: the per-instruction profile behind stats_code_* in
 * stats.h (GPGPU-Sim's PTX source-line statistics). Private to models/stats.
 *
 * Registered programs keep a run total per instruction. While a kernel is open, every added row
 * is also appended to a log; a kernel's rows are the log entries between its begin and its end
 * (so concurrent kernels' windows overlap exactly as counters' do), and the log is emptied when no
 * kernel is open. Folding to PTX lines and source lines happens only when output is written. */
#ifndef SIMTVP_STATS_CODE_H
#define SIMTVP_STATS_CODE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "stats.h"
#include "stats_json.h"

typedef struct code_row {
  uint32_t code, insn;                 /* program index, instruction index */
  uint64_t v[STATS_CODE_COLUMNS];
} code_row;

/* One kernel's rows (owned). */
typedef struct code_rows {
  code_row *rows;
  uint32_t n;
} code_rows;

typedef struct code_profile code_profile;

code_profile *code_profile_create(void);
void code_profile_destroy(code_profile *p);
uint32_t code_profile_count(const code_profile *p);
/* A kernel begins: the log position its rows start at; logging is on from now. */
uint32_t code_profile_mark(code_profile *p);
/* A kernel ends: copies the rows logged since `from` (false when out of memory). */
bool code_profile_take(const code_profile *p, uint32_t from, code_rows *out);
/* No kernel is open any more: forget the log. */
void code_profile_idle(code_profile *p);
/* An allocation failed while counting. */
bool code_profile_nomem(const code_profile *p);

stats_code *code_profile_register(code_profile *p, const char *ptx_file, const stats_code_loc *locs,
                                  uint32_t n_insns, const char *const *src_files, uint32_t n_src_files);

/* Folded values (k == NULL: run totals). */
typedef enum code_key { CODE_BY_PTX_LINE, CODE_BY_SOURCE_LINE } code_key;
uint64_t code_profile_line_get(const code_profile *p, const code_rows *k, code_key key, const char *file,
                               uint32_t line, int column);
/* "ptx_lines" and "source_lines" keys of a kernel object or of the totals. */
void code_profile_json(const code_profile *p, const code_rows *k, stats_json *w);
void code_profile_text(const code_profile *p, const code_rows *k, const char *title, FILE *out);

/* Calls fn for each folded line (stats_code_lines in stats.h). */
void code_profile_each(const code_profile *p, const code_rows *k, code_key key,
                       void (*fn)(void *ctx, const stats_code_line *line), void *ctx);

#endif /* SIMTVP_STATS_CODE_H */
