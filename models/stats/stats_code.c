/* stats_code — the per-instruction profile of the statistics sink (see stats_code.h, stats.h). */
#include "stats_code.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct stats_code {
  code_profile *owner;
  uint32_t index;
  char *ptx_file;
  uint32_t n_insns;
  stats_code_loc *locs;
  char **src_files;
  uint32_t n_src_files;
  uint64_t *totals; /* n_insns rows of STATS_CODE_COLUMNS */
};

struct code_profile {
  stats_code **codes;
  uint32_t n_codes, cap_codes;
  code_row *log;
  uint32_t n_log, cap_log;
  bool logging; /* a kernel is open */
  bool nomem;
};

code_profile *code_profile_create(void) { return calloc(1, sizeof(code_profile)); }

void code_profile_destroy(code_profile *p) {
  if (!p) return;
  for (uint32_t i = 0; i < p->n_codes; i++) {
    stats_code *c = p->codes[i];
    free(c->ptx_file);
    free(c->locs);
    for (uint32_t f = 0; f < c->n_src_files; f++) free(c->src_files[f]);
    free(c->src_files);
    free(c->totals);
    free(c);
  }
  free(p->codes);
  free(p->log);
  free(p);
}

uint32_t code_profile_count(const code_profile *p) { return p ? p->n_codes : 0; }
bool code_profile_nomem(const code_profile *p) { return p && p->nomem; }

static char *dup_text(const char *s) {
  if (!s) s = "";
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

static bool grow(void **array, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap) return true;
  uint32_t n = *cap ? *cap : 64;
  while (n < need) n *= 2;
  void *q = realloc(*array, (size_t)n * elem);
  if (!q) return false;
  *array = q;
  *cap = n;
  return true;
}

stats_code *code_profile_register(code_profile *p, const char *ptx_file, const stats_code_loc *locs,
                                  uint32_t n_insns, const char *const *src_files, uint32_t n_src_files) {
  if (!grow((void **)&p->codes, &p->cap_codes, p->n_codes + 1, sizeof *p->codes)) {
    p->nomem = true;
    return NULL;
  }
  stats_code *c = calloc(1, sizeof *c);
  if (!c) {
    p->nomem = true;
    return NULL;
  }
  c->owner = p;
  c->index = p->n_codes;
  c->n_insns = n_insns;
  c->ptx_file = dup_text(ptx_file);
  c->locs = calloc(n_insns ? n_insns : 1, sizeof *c->locs);
  c->totals = calloc((size_t)(n_insns ? n_insns : 1) * STATS_CODE_COLUMNS, sizeof *c->totals);
  c->src_files = calloc(n_src_files ? n_src_files : 1, sizeof *c->src_files);
  bool ok = c->ptx_file && c->locs && c->totals && c->src_files;
  if (ok && locs && n_insns) memcpy(c->locs, locs, (size_t)n_insns * sizeof *locs);
  for (uint32_t f = 0; ok && f < n_src_files; f++) {
    c->src_files[f] = dup_text(src_files ? src_files[f] : "");
    c->n_src_files = f + 1;
    ok = c->src_files[f] != NULL;
  }
  if (!ok) {
    free(c->ptx_file);
    free(c->locs);
    free(c->totals);
    for (uint32_t f = 0; f < c->n_src_files; f++) free(c->src_files[f]);
    free(c->src_files);
    free(c);
    p->nomem = true;
    return NULL;
  }
  p->codes[p->n_codes++] = c;
  return c;
}

void stats_code_add(stats_code *c, uint32_t insn, const uint64_t *values) {
  if (!c || insn >= c->n_insns) return;
  uint64_t *t = &c->totals[(size_t)insn * STATS_CODE_COLUMNS];
  for (int k = 0; k < STATS_CODE_COLUMNS; k++) t[k] += values[k];
  code_profile *p = c->owner;
  if (!p->logging) return;
  if (!grow((void **)&p->log, &p->cap_log, p->n_log + 1, sizeof *p->log)) {
    p->nomem = true;
    return;
  }
  code_row *r = &p->log[p->n_log++];
  r->code = c->index;
  r->insn = insn;
  memcpy(r->v, values, sizeof r->v);
}

uint32_t code_profile_mark(code_profile *p) {
  p->logging = true;
  return p->n_log;
}

bool code_profile_take(const code_profile *p, uint32_t from, code_rows *out) {
  out->rows = NULL;
  out->n = from < p->n_log ? p->n_log - from : 0;
  if (!out->n) return true;
  out->rows = malloc((size_t)out->n * sizeof *out->rows);
  if (!out->rows) {
    out->n = 0;
    return false;
  }
  memcpy(out->rows, &p->log[from], (size_t)out->n * sizeof *out->rows);
  return true;
}

void code_profile_idle(code_profile *p) {
  p->logging = false;
  p->n_log = 0;
}

/* ---- folding -------------------------------------------------------------------------------- */

/* One instruction's values with its places, then folded to one line per key. */
typedef struct line_val {
  const char *file;      /* PTX file, or source file */
  uint32_t line;
  const char *src_file;  /* PTX key: the source place of the line's first instruction, or NULL */
  uint32_t src_line;
  uint64_t v[STATS_CODE_COLUMNS];
} line_val;

static const char *src_name(const stats_code *c, const stats_code_loc *l) {
  if (!l->src_line || !l->src_file || l->src_file >= c->n_src_files) return NULL;
  return c->src_files[l->src_file];
}

static int cmp_text(const char *a, const char *b) {
  if (a == b) return 0;
  if (!a) return 1; /* no source place sorts last */
  if (!b) return -1;
  return strcmp(a, b);
}

static int cmp_line_val(const void *pa, const void *pb) {
  const line_val *a = pa, *b = pb;
  int c = cmp_text(a->file, b->file);
  if (c) return c;
  if (a->line != b->line) return a->line < b->line ? -1 : 1;
  c = cmp_text(a->src_file, b->src_file);
  if (c) return c;
  if (a->src_line != b->src_line) return a->src_line < b->src_line ? -1 : 1;
  return 0;
}

static bool row_nonzero(const uint64_t *v) {
  for (int k = 0; k < STATS_CODE_COLUMNS; k++)
    if (v[k]) return true;
  return false;
}

/* Appends one instruction's values under `key` (skipped when it has no place of that kind). */
static void push(line_val *out, uint32_t *n, const stats_code *c, uint32_t insn, const uint64_t *v,
                 code_key key) {
  const stats_code_loc *l = &c->locs[insn];
  line_val x;
  memset(&x, 0, sizeof x);
  if (key == CODE_BY_PTX_LINE) {
    x.file = c->ptx_file;
    x.line = l->ptx_line;
    x.src_file = src_name(c, l);
    x.src_line = x.src_file ? l->src_line : 0;
  } else {
    x.file = src_name(c, l);
    if (!x.file) return;
    x.line = l->src_line;
  }
  memcpy(x.v, v, sizeof x.v);
  out[(*n)++] = x;
}

/* Folds the rows of k (or the run totals) by key; *n lines, sorted by file and line (caller
 * frees). NULL with *n = 0 when there is nothing (or no memory). */
static line_val *fold(const code_profile *p, const code_rows *k, code_key key, uint32_t *n) {
  uint64_t rows = 0;
  *n = 0;
  if (k) {
    rows = k->n;
  } else {
    for (uint32_t i = 0; i < p->n_codes; i++) rows += p->codes[i]->n_insns;
  }
  if (!rows || rows > UINT32_MAX) return NULL;
  line_val *v = malloc((size_t)rows * sizeof *v);
  if (!v) return NULL;
  uint32_t m = 0;
  if (k) {
    for (uint32_t i = 0; i < k->n; i++) {
      const code_row *r = &k->rows[i];
      if (r->code < p->n_codes && r->insn < p->codes[r->code]->n_insns && row_nonzero(r->v))
        push(v, &m, p->codes[r->code], r->insn, r->v, key);
    }
  } else {
    for (uint32_t i = 0; i < p->n_codes; i++) {
      const stats_code *c = p->codes[i];
      for (uint32_t j = 0; j < c->n_insns; j++) {
        const uint64_t *t = &c->totals[(size_t)j * STATS_CODE_COLUMNS];
        if (row_nonzero(t)) push(v, &m, c, j, t, key);
      }
    }
  }
  qsort(v, m, sizeof *v, cmp_line_val);
  /* merge equal (file, line): the first (smallest) source place names the line */
  uint32_t w = 0;
  for (uint32_t i = 0; i < m; i++) {
    if (w && cmp_text(v[w - 1].file, v[i].file) == 0 && v[w - 1].line == v[i].line) {
      for (int c = 0; c < STATS_CODE_COLUMNS; c++) v[w - 1].v[c] += v[i].v[c];
    } else {
      v[w++] = v[i];
    }
  }
  *n = w;
  return v;
}

uint64_t code_profile_line_get(const code_profile *p, const code_rows *k, code_key key, const char *file,
                               uint32_t line, int column) {
  if (!p || !file || column < 0 || column >= STATS_CODE_COLUMNS) return 0;
  uint32_t n;
  line_val *v = fold(p, k, key, &n);
  uint64_t r = 0;
  for (uint32_t i = 0; i < n; i++)
    if (v[i].line == line && cmp_text(v[i].file, file) == 0) r += v[i].v[column];
  free(v);
  return r;
}

static const char *const column_names[STATS_CODE_COLUMNS] = {"warp_insn", "thread_insn", "stall_cycles"};

static void json_lines(stats_json *w, const line_val *v, uint32_t n, code_key key) {
  stats_json_begin_array(w, false);
  for (uint32_t i = 0; i < n; i++) {
    stats_json_begin_object(w);
    stats_json_key(w, "file");
    stats_json_string(w, v[i].file);
    stats_json_key(w, "line");
    stats_json_uint(w, v[i].line);
    if (key == CODE_BY_PTX_LINE) {
      stats_json_key(w, "source_file");
      if (v[i].src_file)
        stats_json_string(w, v[i].src_file);
      else
        stats_json_null(w);
      stats_json_key(w, "source_line");
      if (v[i].src_file)
        stats_json_uint(w, v[i].src_line);
      else
        stats_json_null(w);
    }
    for (int c = 0; c < STATS_CODE_COLUMNS; c++) {
      stats_json_key(w, column_names[c]);
      stats_json_uint(w, v[i].v[c]);
    }
    stats_json_end_object(w);
  }
  stats_json_end_array(w);
}

void code_profile_json(const code_profile *p, const code_rows *k, stats_json *w) {
  uint32_t n;
  line_val *v = fold(p, k, CODE_BY_PTX_LINE, &n);
  stats_json_key(w, "ptx_lines");
  json_lines(w, v, n, CODE_BY_PTX_LINE);
  free(v);
  v = fold(p, k, CODE_BY_SOURCE_LINE, &n);
  stats_json_key(w, "source_lines");
  json_lines(w, v, n, CODE_BY_SOURCE_LINE);
  free(v);
}

void code_profile_text(const code_profile *p, const code_rows *k, const char *title, FILE *out) {
  /* Tab-separated: file names may hold spaces ("prog fatbin 0 (PTX compute_75)"). */
  uint32_t n;
  line_val *v = fold(p, k, CODE_BY_PTX_LINE, &n);
  fprintf(out, "# %s\n# ptx_file:line\tsource_file:line\twarp_insn\tthread_insn\tstall_cycles\n", title);
  for (uint32_t i = 0; i < n; i++) {
    fprintf(out, "%s:%" PRIu32 "\t", v[i].file, v[i].line);
    if (v[i].src_file)
      fprintf(out, "%s:%" PRIu32, v[i].src_file, v[i].src_line);
    else
      fputc('-', out);
    fprintf(out, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", v[i].v[0], v[i].v[1], v[i].v[2]);
  }
  free(v);
  v = fold(p, k, CODE_BY_SOURCE_LINE, &n);
  fprintf(out, "# %s, by source line\n# source_file:line\twarp_insn\tthread_insn\tstall_cycles\n", title);
  for (uint32_t i = 0; i < n; i++)
    fprintf(out, "%s:%" PRIu32 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", v[i].file, v[i].line, v[i].v[0],
            v[i].v[1], v[i].v[2]);
  free(v);
}

void code_profile_each(const code_profile *p, const code_rows *k, code_key key,
                       void (*fn)(void *ctx, const stats_code_line *line), void *ctx) {
  if (!p || !fn) return;
  uint32_t n;
  line_val *v = fold(p, k, key, &n);
  for (uint32_t i = 0; i < n; i++) {
    stats_code_line l;
    l.file = v[i].file;
    l.line = v[i].line;
    l.src_file = v[i].src_file;
    l.src_line = v[i].src_line;
    memcpy(l.v, v[i].v, sizeof l.v);
    fn(ctx, &l);
  }
  free(v);
}
