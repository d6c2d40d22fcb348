/* stats — counters, ratios, histograms, per-kernel records and time series (see stats.h).
 *
 * Layout: counter values live in fixed-size chunks that never move, so the pointer handed to a
 * block stays valid however many counters are registered later. Every registered item (counter,
 * ratio, histogram) is also appended to one ordered list; printing and JSON walk that list, so the
 * output order is registration order and nothing depends on hashing or addresses. A name table
 * (open addressing, FNV-1a) makes registration and lookup O(1). All work happens at registration,
 * kernel boundaries, samples and output — never per counted event beyond the caller's own add. */
#include "stats.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "stats_code.h"
#include "stats_json.h"

#define STATS_CHUNK 1024 /* counter values per chunk */

typedef enum item_kind { ITEM_COUNTER, ITEM_RATIO, ITEM_HISTOGRAM, ITEM_SUM } item_kind;

typedef struct counter {
  char *name, *unit, *description;
  uint64_t *value;
} counter;

typedef struct ratio {
  char *name, *description, *numerator, *denominator;
} ratio;

/* A total over the counters whose names match pattern ("L1D[*].access": '*' stands for any
 * non-empty text), evaluated when read, so instances count with one add each. */
typedef struct sum {
  char *name, *unit, *description, *pattern;
  uint32_t *members; /* indices of matching counters, kept up to date at registration */
  uint32_t n_members, cap_members;
} sum;

struct stats_histogram {
  char *name, *unit, *description;
  uint64_t bucket_width;
  uint32_t n_buckets;
  uint64_t count, sum, min, max;
  uint64_t kernel_min, kernel_max; /* since the most recent kernel_begin */
  uint64_t *buckets;               /* n_buckets + 1 (overflow) */
};

typedef struct item {
  item_kind kind;
  uint32_t index; /* into counters / ratios / histograms */
  bool cumulative;
} item;

/* A histogram's state at a kernel boundary, or its per-kernel delta. */
typedef struct hist_state {
  uint64_t count, sum, min, max;
  uint64_t *buckets;
} hist_state;

typedef struct open_kernel {
  char *name;
  uint64_t uid;
  uint32_t n_counters, n_histograms; /* registered at begin */
  uint64_t *counters;                /* values at begin */
  hist_state *histograms;            /* states at begin */
  uint32_t code_from;                /* per-instruction profile: log position at begin */
} open_kernel;

typedef struct kernel_record {
  char *name;
  uint64_t uid;
  uint32_t n_counters, n_histograms; /* registered at end */
  uint64_t *counters;                /* deltas */
  hist_state *histograms;            /* deltas (min/max: within the kernel) */
  code_rows code;                    /* per-instruction profile rows of the kernel */
} kernel_record;

typedef struct info {
  char *key, *value;
} info;

/* A block kept for the sink's users under a key (stats_shared). */
typedef struct shared_block {
  char *key;
  void *mem;
} shared_block;

/* Name table entry: which list and where (kind + index), or empty when name == NULL. */
typedef struct slot {
  const char *name;
  uint32_t hash;
  item_kind kind;
  uint32_t index;
  uint32_t item; /* its place in items[] (add_item follows every table_insert) */
} slot;

struct stats {
  uint64_t **chunks;
  uint32_t n_chunks;

  counter *counters;
  uint32_t n_counters, cap_counters;
  ratio *ratios;
  uint32_t n_ratios, cap_ratios;
  sum *sums;
  uint32_t n_sums, cap_sums;
  stats_histogram **histograms;
  uint32_t n_histograms, cap_histograms;
  item *items;
  uint32_t n_items, cap_items;

  slot *table;
  uint32_t table_size, table_used; /* size is a power of two */

  char **cumulative_names; /* marked before registration: applied when registered */
  uint32_t n_cumulative_names, cap_cumulative_names;

  info *infos;
  uint32_t n_infos, cap_infos;

  open_kernel *open;
  uint32_t n_open, cap_open;
  kernel_record *kernels;
  uint32_t n_kernels, cap_kernels;

  /* Time series: column c is the c-th sampled counter (counters[series_columns[c]]). Sample k holds
   * series_widths[k] values starting at series_offsets[k]; a column added later is absent from
   * earlier samples (written as 0, since the counter did not exist then). */
  char **series_prefixes;
  uint32_t n_series_prefixes, cap_series_prefixes;
  uint32_t series_scanned; /* counters [0, series_scanned) were checked against the prefixes */
  uint32_t *series_columns;
  uint32_t n_series_columns, cap_series_columns;
  uint64_t *sample_times;
  uint64_t *sample_offsets;
  uint32_t *sample_widths;
  uint32_t n_samples, cap_samples;
  uint64_t *sample_values;
  uint64_t n_sample_values, cap_sample_values;

  code_profile *code;  /* per-instruction profile (stats_code_*); never NULL */

  shared_block *blocks; /* stats_shared, in creation order (few: one per cache group) */
  uint32_t n_blocks, cap_blocks;

  bool nomem;          /* an allocation failed: reported by stats_write_json */
  char error[256];     /* first registration problem, reported by stats_write_json */
  uint64_t unregistered; /* target of counters that could not be registered */

  /* Shards (stats_shard_create): a shard has `shard` set and forwards to its parent; a parent
   * lists its shards and the private slots to add into the counters its own users read. */
  struct shard_state *shard;
  stats **shards;
  uint32_t n_shards, cap_shards;
  bool *counter_watched;             /* per counter: the parent's own users hold its pointer */
  uint32_t cap_counter_watched;
  struct shard_pair *watched;        /* private slots of watched counters */
  uint32_t n_watched, cap_watched;
  bool folding;                      /* a fold is running (registration from it is not a read) */
  uint32_t pending_shards;           /* shards with deferred registrations (atomic: set in phases) */
};

typedef struct shard_pair {
  uint64_t *priv;   /* the shard's own slot, bumped by its block */
  uint32_t counter; /* the parent counter it adds into */
} shard_pair;

typedef struct shard_hpair {
  stats_histogram *priv;
  uint32_t histogram; /* parent index */
} shard_hpair;

/* A registration made while the shard was deferred, replayed on the parent at the next sync. */
typedef struct shard_pending {
  int kind; /* 0 counter, 1 ratio, 2 sum, 3 cumulative, 4 info, 5 histogram */
  char *a, *b, *c, *d;
  uint64_t *priv;
  stats_histogram *hist;
} shard_pending;

typedef struct shard_state {
  stats *parent;
  const bool *deferred;
  uint64_t **by_counter;        /* parent counter index -> what this shard handed out */
  uint32_t cap_by_counter;
  stats_histogram **by_hist;    /* parent histogram index -> what this shard handed out */
  uint32_t cap_by_hist;
  shard_pair *pairs;
  uint32_t n_pairs, cap_pairs;
  shard_hpair *hpairs;
  uint32_t n_hpairs, cap_hpairs;
  shard_pending *pending;
  uint32_t n_pending, cap_pending;
  uint64_t **chunks;            /* private counter slots (never move) */
  uint32_t n_chunks, n_slots;
  stats_histogram **own_hists;  /* private histograms (freed with the shard) */
  uint32_t n_own_hists, cap_own_hists;
} shard_state;

static void fold_shards(stats *s);
static uint64_t *shard_counter(stats *s, const char *name, const char *unit, const char *description);
static stats_histogram *shard_histogram(stats *s, const char *name, const char *unit,
                                        const char *description, uint64_t bucket_width,
                                        uint32_t n_buckets);
static bool shard_forward(stats *s, int kind, const char *a, const char *b, const char *c,
                          const char *d);
static void watch_counter(stats *s, uint32_t index);
static void shards_destroy(stats *s);
static void blocks_free(stats *s);

/* ---- small helpers ------------------------------------------------------------------------- */

static char *dup_str(stats *s, const char *str) {
  if (!str) str = "";
  size_t n = strlen(str) + 1;
  char *p = malloc(n);
  if (!p) {
    s->nomem = true;
    return NULL;
  }
  memcpy(p, str, n);
  return p;
}

/* Grows *array (elements of size elem) so that index `need - 1` fits. */
static bool grow(stats *s, void **array, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap) return true;
  uint32_t n = *cap ? *cap : 16;
  while (n < need) n *= 2;
  void *p = realloc(*array, (size_t)n * elem);
  if (!p) {
    s->nomem = true;
    return false;
  }
  *array = p;
  *cap = n;
  return true;
}

#define GROW(s, arr, cap, need) grow((s), (void **)&(arr), &(cap), (need), sizeof *(arr))

static uint32_t hash_name(const char *name) {
  uint32_t h = 2166136261u;
  for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
    h ^= *p;
    h *= 16777619u;
  }
  return h;
}

static const slot *table_find(const stats *s, const char *name) {
  if (!s->table_size || !name) return NULL;
  uint32_t h = hash_name(name);
  uint32_t mask = s->table_size - 1;
  for (uint32_t i = h & mask;; i = (i + 1) & mask) {
    const slot *e = &s->table[i];
    if (!e->name) return NULL;
    if (e->hash == h && strcmp(e->name, name) == 0) return e;
  }
}

static bool table_insert(stats *s, const char *name, item_kind kind, uint32_t index) {
  if ((s->table_used + 1) * 2 > s->table_size) {
    uint32_t n = s->table_size ? s->table_size * 2 : 256;
    slot *t = calloc(n, sizeof *t);
    if (!t) {
      s->nomem = true;
      return false;
    }
    for (uint32_t i = 0; i < s->table_size; i++) {
      const slot *e = &s->table[i];
      if (!e->name) continue;
      uint32_t j = e->hash & (n - 1);
      while (t[j].name) j = (j + 1) & (n - 1);
      t[j] = *e;
    }
    free(s->table);
    s->table = t;
    s->table_size = n;
  }
  uint32_t h = hash_name(name);
  uint32_t mask = s->table_size - 1;
  uint32_t i = h & mask;
  while (s->table[i].name) i = (i + 1) & mask;
  s->table[i] = (slot){name, h, kind, index, s->n_items};
  s->table_used++;
  return true;
}

static bool name_marked_cumulative(const stats *s, const char *name) {
  for (uint32_t i = 0; i < s->n_cumulative_names; i++)
    if (strcmp(s->cumulative_names[i], name) == 0) return true;
  return false;
}

static bool add_item(stats *s, item_kind kind, uint32_t index, const char *name) {
  if (!GROW(s, s->items, s->cap_items, s->n_items + 1)) return false;
  s->items[s->n_items++] = (item){kind, index, name_marked_cumulative(s, name)};
  return true;
}

static const char *item_name(const stats *s, const item *it) {
  switch (it->kind) {
  case ITEM_COUNTER: return s->counters[it->index].name;
  case ITEM_RATIO: return s->ratios[it->index].name;
  case ITEM_HISTOGRAM: return s->histograms[it->index]->name;
  case ITEM_SUM: return s->sums[it->index].name;
  }
  return "";
}

/* GPGPU-Sim prints gpu_sim_cycle, gpu_sim_insn, gpu_ipc per kernel and gpu_tot_* cumulatively. */
static bool item_kernel_scoped(const stats *s, const item *it) {
  const char *name = item_name(s, it);
  return !it->cumulative && strncmp(name, "gpu_", 4) == 0 && strncmp(name, "gpu_tot_", 8) != 0;
}

/* ---- lifetime ------------------------------------------------------------------------------ */

stats *stats_create(void) {
  stats *s = calloc(1, sizeof(stats));
  if (s && !(s->code = code_profile_create())) {
    free(s);
    s = NULL;
  }
  return s;
}

static void free_hist_states(hist_state *h, uint32_t n) {
  if (!h) return;
  for (uint32_t i = 0; i < n; i++) free(h[i].buckets);
  free(h);
}

void stats_destroy(stats *s) {
  if (!s || s->shard) return; /* a shard goes with its parent */
  shards_destroy(s);
  blocks_free(s);
  for (uint32_t i = 0; i < s->n_chunks; i++) free(s->chunks[i]);
  free(s->chunks);
  for (uint32_t i = 0; i < s->n_counters; i++) {
    free(s->counters[i].name);
    free(s->counters[i].unit);
    free(s->counters[i].description);
  }
  free(s->counters);
  for (uint32_t i = 0; i < s->n_ratios; i++) {
    free(s->ratios[i].name);
    free(s->ratios[i].description);
    free(s->ratios[i].numerator);
    free(s->ratios[i].denominator);
  }
  free(s->ratios);
  for (uint32_t i = 0; i < s->n_sums; i++) {
    free(s->sums[i].name);
    free(s->sums[i].unit);
    free(s->sums[i].description);
    free(s->sums[i].pattern);
    free(s->sums[i].members);
  }
  free(s->sums);
  for (uint32_t i = 0; i < s->n_histograms; i++) {
    stats_histogram *h = s->histograms[i];
    free(h->name);
    free(h->unit);
    free(h->description);
    free(h->buckets);
    free(h);
  }
  free(s->histograms);
  free(s->items);
  free(s->table);
  for (uint32_t i = 0; i < s->n_cumulative_names; i++) free(s->cumulative_names[i]);
  free(s->cumulative_names);
  for (uint32_t i = 0; i < s->n_infos; i++) {
    free(s->infos[i].key);
    free(s->infos[i].value);
  }
  free(s->infos);
  for (uint32_t i = 0; i < s->n_open; i++) {
    free(s->open[i].name);
    free(s->open[i].counters);
    free_hist_states(s->open[i].histograms, s->open[i].n_histograms);
  }
  free(s->open);
  for (uint32_t i = 0; i < s->n_kernels; i++) {
    free(s->kernels[i].name);
    free(s->kernels[i].counters);
    free_hist_states(s->kernels[i].histograms, s->kernels[i].n_histograms);
    free(s->kernels[i].code.rows);
  }
  free(s->kernels);
  code_profile_destroy(s->code);
  for (uint32_t i = 0; i < s->n_series_prefixes; i++) free(s->series_prefixes[i]);
  free(s->series_prefixes);
  free(s->series_columns);
  free(s->sample_times);
  free(s->sample_offsets);
  free(s->sample_widths);
  free(s->sample_values);
  free(s);
}

/* ---- registration -------------------------------------------------------------------------- */

static bool pattern_matches(const char *pattern, const char *name) {
  const char *star = strchr(pattern, '*');
  if (!star) return strcmp(pattern, name) == 0;
  size_t pre = (size_t)(star - pattern), post = strlen(star + 1), len = strlen(name);
  return len > pre + post && strncmp(name, pattern, pre) == 0 &&
         strcmp(name + len - post, star + 1) == 0;
}

static void add_member_if_matching(stats *s, sum *m, uint32_t counter) {
  if (!pattern_matches(m->pattern, s->counters[counter].name)) return;
  if (GROW(s, m->members, m->cap_members, m->n_members + 1)) m->members[m->n_members++] = counter;
}

/* Where a counter points when it cannot be registered (no memory, or the name belongs to a ratio
 * or histogram): the caller can still bump it, and stats_write_json reports the first problem. */
static uint64_t *registration_failed(stats *s, const char *what, const char *name) {
  if (!s->error[0]) snprintf(s->error, sizeof s->error, "%s: %s", what, name);
  return &s->unregistered;
}

uint64_t *stats_counter(stats *s, const char *name, const char *unit, const char *description) {
  if (!s || !name) return NULL;
  if (s->shard) return shard_counter(s, name, unit, description);
  const slot *e = table_find(s, name);
  if (e && e->kind == ITEM_COUNTER && s->n_shards && !s->folding) watch_counter(s, e->index);
  if (e)
    return e->kind == ITEM_COUNTER ? s->counters[e->index].value
                                   : registration_failed(s, "counter name used by another item", name);

  uint32_t index = s->n_counters;
  if (index / STATS_CHUNK >= s->n_chunks) {
    uint64_t **chunks = realloc(s->chunks, (s->n_chunks + 1) * sizeof *chunks);
    if (!chunks) {
      s->nomem = true;
      return registration_failed(s, "out of memory registering counter", name);
    }
    s->chunks = chunks;
    s->chunks[s->n_chunks] = calloc(STATS_CHUNK, sizeof(uint64_t));
    if (!s->chunks[s->n_chunks]) {
      s->nomem = true;
      return registration_failed(s, "out of memory registering counter", name);
    }
    s->n_chunks++;
  }
  if (!GROW(s, s->counters, s->cap_counters, index + 1)) return registration_failed(s, "out of memory registering counter", name);
  counter *c = &s->counters[index];
  c->name = dup_str(s, name);
  c->unit = dup_str(s, unit);
  c->description = dup_str(s, description);
  c->value = &s->chunks[index / STATS_CHUNK][index % STATS_CHUNK];
  if (!c->name || !c->unit || !c->description) {
    free(c->name);
    free(c->unit);
    free(c->description);
    return registration_failed(s, "out of memory registering counter", name);
  }
  if (!table_insert(s, c->name, ITEM_COUNTER, index) || !add_item(s, ITEM_COUNTER, index, name)) {
    free(c->name);
    free(c->unit);
    free(c->description);
    return registration_failed(s, "out of memory registering counter", name);
  }
  s->n_counters++;
  if (s->n_shards && !s->folding) watch_counter(s, index); /* the parent's own user holds it */
  for (uint32_t i = 0; i < s->n_sums; i++) add_member_if_matching(s, &s->sums[i], index);
  return c->value;
}

void *stats_shared(stats *s, const char *key, size_t bytes) {
  if (!s || !key) return NULL;
  for (uint32_t i = 0; i < s->n_blocks; i++)
    if (strcmp(s->blocks[i].key, key) == 0) return s->blocks[i].mem;
  if (!GROW(s, s->blocks, s->cap_blocks, s->n_blocks + 1)) return NULL;
  shared_block *b = &s->blocks[s->n_blocks];
  b->key = dup_str(s, key);
  b->mem = calloc(1, bytes ? bytes : 1);
  if (!b->key || !b->mem) {
    free(b->key);
    free(b->mem);
    s->nomem = true;
    return NULL;
  }
  s->n_blocks++;
  return b->mem;
}

void stats_ratio(stats *s, const char *name, const char *description, const char *numerator,
                 const char *denominator) {
  if (!s || !name || !numerator || !denominator) return;
  if (s->shard && shard_forward(s, 1, name, description, numerator, denominator)) return;
  if (table_find(s, name)) return; /* registered already (by another instance) */
  uint32_t index = s->n_ratios;
  if (!GROW(s, s->ratios, s->cap_ratios, index + 1)) return;
  ratio *r = &s->ratios[index];
  r->name = dup_str(s, name);
  r->description = dup_str(s, description);
  r->numerator = dup_str(s, numerator);
  r->denominator = dup_str(s, denominator);
  if (!r->name || !r->description || !r->numerator || !r->denominator ||
      !table_insert(s, r->name, ITEM_RATIO, index) || !add_item(s, ITEM_RATIO, index, name)) {
    free(r->name);
    free(r->description);
    free(r->numerator);
    free(r->denominator);
    return;
  }
  s->n_ratios++;
}

void stats_sum(stats *s, const char *name, const char *unit, const char *description,
               const char *pattern) {
  if (!s || !name || !pattern) return;
  if (s->shard && shard_forward(s, 2, name, unit, description, pattern)) return;
  if (table_find(s, name)) return; /* registered already (by another instance) */
  uint32_t index = s->n_sums;
  if (!GROW(s, s->sums, s->cap_sums, index + 1)) return;
  sum *m = &s->sums[index];
  m->name = dup_str(s, name);
  m->unit = dup_str(s, unit);
  m->description = dup_str(s, description);
  m->pattern = dup_str(s, pattern);
  m->members = NULL;
  m->n_members = m->cap_members = 0;
  if (!m->name || !m->unit || !m->description || !m->pattern ||
      !table_insert(s, m->name, ITEM_SUM, index) || !add_item(s, ITEM_SUM, index, name)) {
    free(m->name);
    free(m->unit);
    free(m->description);
    free(m->pattern);
    return;
  }
  s->n_sums++;
  for (uint32_t i = 0; i < s->n_counters; i++) add_member_if_matching(s, m, i);
}

stats_histogram *stats_histogram_register(stats *s, const char *name, const char *unit,
                                          const char *description, uint64_t bucket_width,
                                          uint32_t n_buckets) {
  if (!s || !name) return NULL;
  if (s->shard) return shard_histogram(s, name, unit, description, bucket_width, n_buckets);
  const slot *e = table_find(s, name);
  if (e) return e->kind == ITEM_HISTOGRAM ? s->histograms[e->index] : NULL;
  if (bucket_width == 0) bucket_width = 1;
  uint32_t index = s->n_histograms;
  if (!GROW(s, s->histograms, s->cap_histograms, index + 1)) return NULL;
  stats_histogram *h = calloc(1, sizeof *h);
  if (!h) {
    s->nomem = true;
    return NULL;
  }
  h->name = dup_str(s, name);
  h->unit = dup_str(s, unit);
  h->description = dup_str(s, description);
  h->bucket_width = bucket_width;
  h->n_buckets = n_buckets;
  h->min = h->kernel_min = UINT64_MAX;
  h->buckets = calloc((size_t)n_buckets + 1, sizeof *h->buckets);
  if (!h->name || !h->unit || !h->description || !h->buckets ||
      !table_insert(s, h->name, ITEM_HISTOGRAM, index) ||
      !add_item(s, ITEM_HISTOGRAM, index, name)) {
    s->nomem = true;
    free(h->name);
    free(h->unit);
    free(h->description);
    free(h->buckets);
    free(h);
    return NULL;
  }
  s->histograms[s->n_histograms++] = h;
  return h;
}

void stats_histogram_add(stats_histogram *h, uint64_t value) {
  if (!h) return;
  h->count++;
  h->sum += value;
  if (value < h->min) h->min = value;
  if (value > h->max) h->max = value;
  if (value < h->kernel_min) h->kernel_min = value;
  if (value > h->kernel_max) h->kernel_max = value;
  uint64_t b = value / h->bucket_width;
  h->buckets[b < h->n_buckets ? b : h->n_buckets]++;
}

void stats_mark_cumulative(stats *s, const char *name) {
  if (!s || !name) return;
  if (s->shard && shard_forward(s, 3, name, NULL, NULL, NULL)) return;
  if (!name_marked_cumulative(s, name)) {
    if (!GROW(s, s->cumulative_names, s->cap_cumulative_names, s->n_cumulative_names + 1)) return;
    char *copy = dup_str(s, name);
    if (!copy) return;
    s->cumulative_names[s->n_cumulative_names++] = copy;
  }
  const slot *e = table_find(s, name); /* names are unique: at most one item has it */
  if (e && e->item < s->n_items) s->items[e->item].cumulative = true;
}

void stats_set_info(stats *s, const char *key, const char *value) {
  if (!s || !key) return;
  if (s->shard && shard_forward(s, 4, key, value, NULL, NULL)) return;
  for (uint32_t i = 0; i < s->n_infos; i++) {
    if (strcmp(s->infos[i].key, key) == 0) {
      char *v = dup_str(s, value);
      if (!v) return;
      free(s->infos[i].value);
      s->infos[i].value = v;
      return;
    }
  }
  if (!GROW(s, s->infos, s->cap_infos, s->n_infos + 1)) return;
  char *k = dup_str(s, key), *v = dup_str(s, value);
  if (!k || !v) {
    free(k);
    free(v);
    return;
  }
  s->infos[s->n_infos++] = (info){k, v};
}

/* ---- lookup -------------------------------------------------------------------------------- */

/* Value of counter `index` within a kernel record (registered after it ended: absent → 0). */
static uint64_t kernel_value(const kernel_record *k, uint32_t index) {
  return index < k->n_counters ? k->counters[index] : 0;
}

static uint64_t sum_value(const stats *s, const sum *m, const kernel_record *k) {
  uint64_t total = 0;
  for (uint32_t i = 0; i < m->n_members; i++) {
    uint32_t c = m->members[i];
    total += k ? kernel_value(k, c) : *s->counters[c].value;
  }
  return total;
}

/* Value of a counter or sum over the totals (k == NULL) or one kernel; false when absent. */
static bool value_of(const stats *s, const char *name, const kernel_record *k, uint64_t *v) {
  const slot *e = table_find(s, name);
  if (!e) return false;
  if (e->kind == ITEM_COUNTER) {
    *v = k ? kernel_value(k, e->index) : *s->counters[e->index].value;
    return true;
  }
  if (e->kind == ITEM_SUM) {
    *v = sum_value(s, &s->sums[e->index], k);
    return true;
  }
  return false;
}

uint32_t stats_counter_count(const stats *s) { return s ? s->n_counters : 0; }

const char *stats_counter_name(const stats *s, uint32_t index) {
  return s && index < s->n_counters ? s->counters[index].name : NULL;
}

const uint64_t *stats_counter_value(const stats *s, uint32_t index) {
  if (!s || index >= s->n_counters) return NULL;
  /* Its reader follows the live value: with shards it is kept up to date at every sync. */
  if (s->n_shards) watch_counter((stats *)s, index);
  return s->counters[index].value;
}

const uint64_t *stats_counter_find(const stats *s, const char *name) {
  const slot *e = s && name ? table_find(s, name) : NULL;
  if (!e || e->kind != ITEM_COUNTER) return NULL;
  if (s->n_shards) watch_counter((stats *)s, e->index);
  return s->counters[e->index].value;
}

const char *stats_item_description(const stats *s, const char *name) {
  const slot *e = s && name ? table_find(s, name) : NULL;
  if (!e) return NULL;
  switch (e->kind) {
  case ITEM_COUNTER: return s->counters[e->index].description;
  case ITEM_RATIO: return s->ratios[e->index].description;
  case ITEM_SUM: return s->sums[e->index].description;
  case ITEM_HISTOGRAM: return s->histograms[e->index]->description;
  }
  return NULL;
}

uint64_t stats_get(const stats *s, const char *name, int *found) {
  uint64_t v = 0;
  if (s && s->shard) { /* from the parent as last folded, or a registration not replayed yet */
    const shard_state *sh = s->shard;
    for (uint32_t i = 0; name && i < sh->n_pending; i++) {
      if (sh->pending[i].kind != 3 && sh->pending[i].kind != 4 && strcmp(sh->pending[i].a, name) == 0) {
        if (found) *found = 1;
        return sh->pending[i].kind == 0 ? *sh->pending[i].priv : 0;
      }
    }
    s = sh->parent;
    bool ok = value_of(s, name, NULL, &v);
    if (found) *found = ok;
    return ok ? v : 0;
  }
  fold_shards((stats *)s);
  bool ok = s && value_of(s, name, NULL, &v);
  if (found) *found = ok;
  return ok ? v : 0;
}

/* Evaluates a ratio over totals (k == NULL) or a kernel's deltas. */
static double eval_ratio(const stats *s, const ratio *r, const kernel_record *k, bool *ok) {
  uint64_t n, d;
  if (!value_of(s, r->numerator, k, &n) || !value_of(s, r->denominator, k, &d)) {
    *ok = false;
    return 0.0;
  }
  *ok = true;
  if (d == 0) return NAN;
  return (double)n / (double)d;
}

double stats_get_ratio(const stats *s, const char *name, int *found) {
  fold_shards((stats *)s);
  const slot *e = s ? table_find(s, name) : NULL;
  bool ok = false;
  double v = 0.0;
  if (e && e->kind == ITEM_RATIO) v = eval_ratio(s, &s->ratios[e->index], NULL, &ok);
  if (found) *found = ok;
  return ok ? v : 0.0;
}

uint32_t stats_kernel_count(const stats *s) { return s ? s->n_kernels : 0; }

const char *stats_kernel_name(const stats *s, uint32_t k) {
  return s && k < s->n_kernels ? s->kernels[k].name : NULL;
}

uint64_t stats_kernel_uid(const stats *s, uint32_t k) {
  return s && k < s->n_kernels ? s->kernels[k].uid : 0;
}

uint64_t stats_kernel_get(const stats *s, uint32_t k, const char *name, int *found) {
  uint64_t v = 0;
  bool ok = s && k < s->n_kernels && value_of(s, name, &s->kernels[k], &v);
  if (found) *found = ok;
  return ok ? v : 0;
}

double stats_kernel_get_ratio(const stats *s, uint32_t k, const char *name, int *found) {
  const slot *e = s && k < s->n_kernels ? table_find(s, name) : NULL;
  bool ok = false;
  double v = 0.0;
  if (e && e->kind == ITEM_RATIO) v = eval_ratio(s, &s->ratios[e->index], &s->kernels[k], &ok);
  if (found) *found = ok;
  return ok ? v : 0.0;
}

void stats_histogram_read(const stats_histogram *h, stats_histogram_view *view) {
  if (!view) return;
  memset(view, 0, sizeof *view);
  if (!h) return;
  view->count = h->count;
  view->sum = h->sum;
  view->min = h->count ? h->min : 0;
  view->max = h->max;
  view->bucket_width = h->bucket_width;
  view->n_buckets = h->n_buckets;
  view->buckets = h->buckets;
}

stats_histogram *stats_histogram_find(const stats *s, const char *name) {
  fold_shards((stats *)s);
  const slot *e = s ? table_find(s, name) : NULL;
  return e && e->kind == ITEM_HISTOGRAM ? s->histograms[e->index] : NULL;
}

/* ---- kernels ------------------------------------------------------------------------------- */

static hist_state *snapshot_histograms(stats *s, bool reset_kernel_minmax) {
  if (!s->n_histograms) return NULL;
  hist_state *st = calloc(s->n_histograms, sizeof *st);
  if (!st) {
    s->nomem = true;
    return NULL;
  }
  for (uint32_t i = 0; i < s->n_histograms; i++) {
    stats_histogram *h = s->histograms[i];
    st[i].count = h->count;
    st[i].sum = h->sum;
    st[i].buckets = malloc(((size_t)h->n_buckets + 1) * sizeof *st[i].buckets);
    if (!st[i].buckets) {
      s->nomem = true;
      free_hist_states(st, s->n_histograms);
      return NULL;
    }
    memcpy(st[i].buckets, h->buckets, ((size_t)h->n_buckets + 1) * sizeof *h->buckets);
    if (reset_kernel_minmax) {
      h->kernel_min = UINT64_MAX;
      h->kernel_max = 0;
    }
  }
  return st;
}

void stats_kernel_begin(stats *s, const char *kernel_name, uint64_t launch_uid) {
  if (!s) return;
  fold_shards(s);
  if (!GROW(s, s->open, s->cap_open, s->n_open + 1)) return;
  open_kernel k = {0};
  k.name = dup_str(s, kernel_name);
  k.uid = launch_uid;
  k.n_counters = s->n_counters;
  k.n_histograms = s->n_histograms;
  k.counters = s->n_counters ? malloc(s->n_counters * sizeof *k.counters) : NULL;
  if (!k.name || (s->n_counters && !k.counters)) {
    s->nomem = true;
    free(k.name);
    free(k.counters);
    return;
  }
  for (uint32_t i = 0; i < s->n_counters; i++) k.counters[i] = *s->counters[i].value;
  k.histograms = snapshot_histograms(s, true);
  if (s->n_histograms && !k.histograms) {
    free(k.name);
    free(k.counters);
    return;
  }
  k.code_from = code_profile_mark(s->code);
  s->open[s->n_open++] = k;
}

static void end_open_kernel(stats *s, uint32_t which) {
  fold_shards(s);
  open_kernel *o = &s->open[which];
  kernel_record r = {0};
  if (GROW(s, s->kernels, s->cap_kernels, s->n_kernels + 1)) {
    r.name = o->name;
    o->name = NULL;
    r.uid = o->uid;
    r.n_counters = s->n_counters;
    r.n_histograms = s->n_histograms;
    r.counters = s->n_counters ? malloc(s->n_counters * sizeof *r.counters) : NULL;
    r.histograms = snapshot_histograms(s, false);
    bool ok = r.name && (!s->n_counters || r.counters) && (!s->n_histograms || r.histograms) &&
              code_profile_take(s->code, o->code_from, &r.code);
    if (ok) {
      for (uint32_t i = 0; i < s->n_counters; i++) {
        uint64_t before = i < o->n_counters ? o->counters[i] : 0;
        r.counters[i] = *s->counters[i].value - before;
      }
      for (uint32_t i = 0; i < s->n_histograms; i++) {
        const stats_histogram *h = s->histograms[i];
        hist_state *d = &r.histograms[i];
        const hist_state *b = i < o->n_histograms ? &o->histograms[i] : NULL;
        if (b) {
          d->count -= b->count;
          d->sum -= b->sum;
          for (uint32_t j = 0; j <= h->n_buckets; j++) d->buckets[j] -= b->buckets[j];
        }
        d->min = d->count ? h->kernel_min : 0;
        d->max = d->count ? h->kernel_max : 0;
      }
      s->kernels[s->n_kernels++] = r;
    } else {
      s->nomem = true;
      free(r.name);
      free(r.counters);
      free_hist_states(r.histograms, r.n_histograms);
      free(r.code.rows);
    }
  }
  free(o->name);
  free(o->counters);
  free_hist_states(o->histograms, o->n_histograms);
  memmove(&s->open[which], &s->open[which + 1], (s->n_open - which - 1) * sizeof *s->open);
  s->n_open--;
  if (!s->n_open) code_profile_idle(s->code);
}

void stats_kernel_end(stats *s) {
  if (!s || !s->n_open) return;
  end_open_kernel(s, s->n_open - 1);
}

void stats_kernel_end_uid(stats *s, uint64_t launch_uid) {
  if (!s) return;
  for (uint32_t i = s->n_open; i-- > 0;) {
    if (s->open[i].uid == launch_uid) {
      end_open_kernel(s, i);
      return;
    }
  }
}

/* ---- time series --------------------------------------------------------------------------- */

void stats_series_include(stats *s, const char *prefix) {
  if (!s || !prefix) return;
  if (!GROW(s, s->series_prefixes, s->cap_series_prefixes, s->n_series_prefixes + 1)) return;
  char *p = dup_str(s, prefix);
  if (p) s->series_prefixes[s->n_series_prefixes++] = p;
}

static bool series_selected(const stats *s, const char *name) {
  if (!s->n_series_prefixes) return true;
  for (uint32_t i = 0; i < s->n_series_prefixes; i++)
    if (strncmp(name, s->series_prefixes[i], strlen(s->series_prefixes[i])) == 0) return true;
  return false;
}

void stats_sample(stats *s, uint64_t time_ps) {
  if (!s) return;
  fold_shards(s);
  for (; s->series_scanned < s->n_counters; s->series_scanned++) {
    if (!series_selected(s, s->counters[s->series_scanned].name)) continue;
    if (!GROW(s, s->series_columns, s->cap_series_columns, s->n_series_columns + 1)) return;
    s->series_columns[s->n_series_columns++] = s->series_scanned;
  }
  uint32_t k = s->n_samples;
  /* Three parallel arrays share one capacity: each grows from the same size to the same size. */
  uint32_t cap_times = s->cap_samples, cap_offsets = s->cap_samples, cap_widths = s->cap_samples;
  if (!GROW(s, s->sample_times, cap_times, k + 1) ||
      !GROW(s, s->sample_offsets, cap_offsets, k + 1) ||
      !GROW(s, s->sample_widths, cap_widths, k + 1))
    return;
  s->cap_samples = cap_times;
  uint64_t need = s->n_sample_values + s->n_series_columns;
  if (need > s->cap_sample_values) {
    uint64_t n = s->cap_sample_values ? s->cap_sample_values : 1024;
    while (n < need) n *= 2;
    uint64_t *p = realloc(s->sample_values, n * sizeof *p);
    if (!p) {
      s->nomem = true;
      return;
    }
    s->sample_values = p;
    s->cap_sample_values = n;
  }
  s->sample_times[k] = time_ps;
  s->sample_offsets[k] = s->n_sample_values;
  s->sample_widths[k] = s->n_series_columns;
  for (uint32_t c = 0; c < s->n_series_columns; c++)
    s->sample_values[s->n_sample_values++] = *s->counters[s->series_columns[c]].value;
  s->n_samples++;
}

uint32_t stats_sample_count(const stats *s) { return s ? s->n_samples : 0; }

/* ---- text output --------------------------------------------------------------------------- */

/* GPGPU-Sim's "%12.4f", with '.' as the decimal point whatever the program's locale. */
typedef struct number_text {
  char text[48];
} number_text;
static number_text fixed4(double v) {
  number_text t;
  snprintf(t.text, sizeof t.text, "%12.4f", v);
  stats_json_c_decimal_point(t.text);
  return t;
}

/* A ratio over a zero denominator (a cache nothing accessed, IPC of a kernel without cycles) prints
 * as 0 so that the text holds no nan/inf for scripts to trip over; the JSON file writes null. */
static void print_ratio_value(FILE *out, const char *name, double v, bool ok) {
  if (!ok) return;
  fprintf(out, "%s = %s\n", name, fixed4(isfinite(v) ? v : 0.0).text);
}

/* Histogram as name_count / _sum / _min / _max / _avg lines and one line of buckets. */
static void print_histogram(FILE *out, const char *name, const stats_histogram *h,
                            const hist_state *st) {
  fprintf(out, "%s_count = %" PRIu64 "\n", name, st->count);
  fprintf(out, "%s_sum = %" PRIu64 "\n", name, st->sum);
  fprintf(out, "%s_min = %" PRIu64 "\n", name, st->min);
  fprintf(out, "%s_max = %" PRIu64 "\n", name, st->max);
  if (st->count)
    fprintf(out, "%s_avg = %s\n", name, fixed4((double)st->sum / (double)st->count).text);
  else
    fprintf(out, "%s_avg = %s\n", name, fixed4(0.0).text);
  fprintf(out, "%s =", name);
  for (uint32_t j = 0; j < h->n_buckets; j++)
    fprintf(out, " %" PRIu64 ":%" PRIu64, (uint64_t)j * h->bucket_width, st->buckets[j]);
  fprintf(out, " %" PRIu64 "+:%" PRIu64 "\n", (uint64_t)h->n_buckets * h->bucket_width,
          st->buckets[h->n_buckets]);
}

static hist_state total_state(const stats_histogram *h) {
  return (hist_state){h->count, h->sum, h->count ? h->min : 0, h->max, h->buckets};
}

void stats_print_kernel(const stats *s, FILE *out) {
  if (!s || !out || !s->n_kernels) return;
  const kernel_record *k = &s->kernels[s->n_kernels - 1];
  fprintf(out, "kernel_name = %s\n", k->name);
  fprintf(out, "kernel_launch_uid = %" PRIu64 "\n", k->uid);
  for (uint32_t i = 0; i < s->n_items; i++) {
    const item *it = &s->items[i];
    if (!item_kernel_scoped(s, it)) continue;
    switch (it->kind) {
    case ITEM_COUNTER:
      fprintf(out, "%s = %" PRIu64 "\n", s->counters[it->index].name, kernel_value(k, it->index));
      break;
    case ITEM_RATIO: {
      bool ok;
      double v = eval_ratio(s, &s->ratios[it->index], k, &ok);
      print_ratio_value(out, s->ratios[it->index].name, v, ok);
      break;
    }
    case ITEM_SUM:
      fprintf(out, "%s = %" PRIu64 "\n", s->sums[it->index].name,
              sum_value(s, &s->sums[it->index], k));
      break;
    case ITEM_HISTOGRAM:
      if (it->index < k->n_histograms)
        print_histogram(out, s->histograms[it->index]->name, s->histograms[it->index],
                        &k->histograms[it->index]);
      break;
    }
  }
}

/* "name = value\n" without printf (a statistics file holds many thousands of these lines). */
static void print_count_line(FILE *out, const char *name, uint64_t v) {
  char digits[24];
  char *p = digits + sizeof digits;
  *--p = '\n';
  do {
    *--p = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  fputs(name, out);
  fputs(" = ", out);
  fwrite(p, 1, (size_t)(digits + sizeof digits - p), out);
}

/* dst gets prefix and then src, cut to fit n bytes with its terminator (as snprintf would). */
static void join_name(char *dst, size_t n, const char *prefix, const char *src) {
  size_t lp = strlen(prefix), ls = strlen(src);
  if (lp > n - 1) lp = n - 1;
  if (ls > n - 1 - lp) ls = n - 1 - lp;
  memcpy(dst, prefix, lp);
  memcpy(dst + lp, src, ls);
  dst[lp + ls] = 0;
}

void stats_print_totals(const stats *s, FILE *out) {
  if (!s || !out) return;
  fold_shards((stats *)s);
  char name[512];
  for (uint32_t i = 0; i < s->n_items; i++) {
    const item *it = &s->items[i];
    const char *n = item_name(s, it);
    if (item_kernel_scoped(s, it))
      join_name(name, sizeof name, "gpu_tot_", n + 4);
    else
      join_name(name, sizeof name, "", n);
    switch (it->kind) {
    case ITEM_COUNTER:
      print_count_line(out, name, *s->counters[it->index].value);
      break;
    case ITEM_SUM:
      print_count_line(out, name, sum_value(s, &s->sums[it->index], NULL));
      break;
    case ITEM_RATIO: {
      bool ok;
      double v = eval_ratio(s, &s->ratios[it->index], NULL, &ok);
      print_ratio_value(out, name, v, ok);
      break;
    }
    case ITEM_HISTOGRAM: {
      const stats_histogram *h = s->histograms[it->index];
      hist_state st = total_state(h);
      print_histogram(out, name, h, &st);
      break;
    }
    }
  }
}

/* ---- JSON output --------------------------------------------------------------------------- */

/* One histogram's state; st == NULL writes an empty one of h's shape. */
static void json_histogram(stats_json *w, const stats_histogram *h, const hist_state *st) {
  const hist_state empty = {0, 0, 0, 0, NULL};
  if (!st) st = &empty;
  stats_json_begin_object(w);
  stats_json_key(w, "count");
  stats_json_uint(w, st->count);
  stats_json_key(w, "sum");
  stats_json_uint(w, st->sum);
  stats_json_key(w, "min");
  stats_json_uint(w, st->min);
  stats_json_key(w, "max");
  stats_json_uint(w, st->max);
  stats_json_key(w, "mean");
  if (st->count)
    stats_json_double(w, (double)st->sum / (double)st->count);
  else
    stats_json_null(w);
  stats_json_key(w, "buckets");
  stats_json_begin_array(w, true);
  for (uint32_t j = 0; j <= h->n_buckets; j++) stats_json_uint(w, st->buckets ? st->buckets[j] : 0);
  stats_json_end_array(w);
  stats_json_end_object(w);
}

/* The "counters", "ratios" and "histograms" objects of one kernel (k) or of the totals (NULL). */
static void json_values(stats_json *w, const stats *s, const kernel_record *k) {
  stats_json_key(w, "counters");
  stats_json_begin_object(w);
  for (uint32_t i = 0; i < s->n_items; i++) {
    const item *it = &s->items[i];
    if (it->kind == ITEM_COUNTER) {
      stats_json_key(w, s->counters[it->index].name);
      stats_json_uint(w, k ? kernel_value(k, it->index) : *s->counters[it->index].value);
    } else if (it->kind == ITEM_SUM) {
      stats_json_key(w, s->sums[it->index].name);
      stats_json_uint(w, sum_value(s, &s->sums[it->index], k));
    }
  }
  stats_json_end_object(w);
  stats_json_key(w, "ratios");
  stats_json_begin_object(w);
  for (uint32_t i = 0; i < s->n_ratios; i++) {
    bool ok;
    double v = eval_ratio(s, &s->ratios[i], k, &ok);
    stats_json_key(w, s->ratios[i].name);
    if (ok)
      stats_json_double(w, v);
    else
      stats_json_null(w);
  }
  stats_json_end_object(w);
  stats_json_key(w, "histograms");
  stats_json_begin_object(w);
  for (uint32_t i = 0; i < s->n_histograms; i++) {
    const stats_histogram *h = s->histograms[i];
    stats_json_key(w, h->name);
    if (k) {
      if (i < k->n_histograms) {
        json_histogram(w, h, &k->histograms[i]);
      } else {
        /* Registered after this kernel ended: it counted nothing during it. */
        json_histogram(w, h, NULL);
      }
    } else {
      hist_state st = total_state(h);
      json_histogram(w, h, &st);
    }
  }
  stats_json_end_object(w);
}

static void json_metadata(stats_json *w, const stats *s) {
  stats_json_key(w, "metadata");
  stats_json_begin_object(w);
  stats_json_key(w, "counters");
  stats_json_begin_array(w, false);
  for (uint32_t i = 0; i < s->n_counters; i++) {
    const counter *c = &s->counters[i];
    stats_json_begin_object(w);
    stats_json_key(w, "name");
    stats_json_string(w, c->name);
    stats_json_key(w, "unit");
    stats_json_string(w, c->unit);
    stats_json_key(w, "description");
    stats_json_string(w, c->description);
    stats_json_end_object(w);
  }
  stats_json_end_array(w);
  stats_json_key(w, "ratios");
  stats_json_begin_array(w, false);
  for (uint32_t i = 0; i < s->n_ratios; i++) {
    const ratio *r = &s->ratios[i];
    stats_json_begin_object(w);
    stats_json_key(w, "name");
    stats_json_string(w, r->name);
    stats_json_key(w, "numerator");
    stats_json_string(w, r->numerator);
    stats_json_key(w, "denominator");
    stats_json_string(w, r->denominator);
    stats_json_key(w, "description");
    stats_json_string(w, r->description);
    stats_json_end_object(w);
  }
  stats_json_end_array(w);
  stats_json_key(w, "sums");
  stats_json_begin_array(w, false);
  for (uint32_t i = 0; i < s->n_sums; i++) {
    const sum *m = &s->sums[i];
    stats_json_begin_object(w);
    stats_json_key(w, "name");
    stats_json_string(w, m->name);
    stats_json_key(w, "unit");
    stats_json_string(w, m->unit);
    stats_json_key(w, "pattern");
    stats_json_string(w, m->pattern);
    stats_json_key(w, "description");
    stats_json_string(w, m->description);
    stats_json_end_object(w);
  }
  stats_json_end_array(w);
  stats_json_key(w, "histograms");
  stats_json_begin_array(w, false);
  for (uint32_t i = 0; i < s->n_histograms; i++) {
    const stats_histogram *h = s->histograms[i];
    stats_json_begin_object(w);
    stats_json_key(w, "name");
    stats_json_string(w, h->name);
    stats_json_key(w, "unit");
    stats_json_string(w, h->unit);
    stats_json_key(w, "description");
    stats_json_string(w, h->description);
    stats_json_key(w, "bucket_width");
    stats_json_uint(w, h->bucket_width);
    stats_json_key(w, "n_buckets");
    stats_json_uint(w, h->n_buckets);
    stats_json_end_object(w);
  }
  stats_json_end_array(w);
  stats_json_end_object(w);
}

static void json_time_series(stats_json *w, const stats *s) {
  stats_json_key(w, "time_series");
  stats_json_begin_object(w);
  stats_json_key(w, "time_ps");
  stats_json_begin_array(w, true);
  for (uint32_t k = 0; k < s->n_samples; k++) stats_json_uint(w, s->sample_times[k]);
  stats_json_end_array(w);
  stats_json_key(w, "counters");
  stats_json_begin_object(w);
  for (uint32_t c = 0; c < s->n_series_columns; c++) {
    stats_json_key(w, s->counters[s->series_columns[c]].name);
    stats_json_begin_array(w, true);
    for (uint32_t k = 0; k < s->n_samples; k++)
      stats_json_uint(w, c < s->sample_widths[k] ? s->sample_values[s->sample_offsets[k] + c] : 0);
    stats_json_end_array(w);
  }
  stats_json_end_object(w);
  stats_json_end_object(w);
}

simtvp_status stats_write_json_stream(const stats *s, FILE *out, simtvp_diag *diag) {
  if (!s || !out) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "stats_write_json: no sink or stream");
  fold_shards((stats *)s);
  if (s->nomem || code_profile_nomem(s->code))
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM,
                           "statistics incomplete: an allocation failed while counting");
  if (s->error[0])
    return simtvp_diag_set(diag, SIMTVP_ERR_STATE, "statistics incomplete: %s", s->error);
  stats_json w;
  stats_json_init(&w, out);
  stats_json_begin_object(&w);
  stats_json_key(&w, "format");
  stats_json_string(&w, "simtvp-stats");
  stats_json_key(&w, "version");
  stats_json_uint(&w, 1);
  stats_json_key(&w, "info");
  stats_json_begin_object(&w);
  for (uint32_t i = 0; i < s->n_infos; i++) {
    stats_json_key(&w, s->infos[i].key);
    stats_json_string(&w, s->infos[i].value);
  }
  stats_json_end_object(&w);
  json_metadata(&w, s);
  stats_json_key(&w, "kernels");
  stats_json_begin_array(&w, false);
  for (uint32_t k = 0; k < s->n_kernels; k++) {
    const kernel_record *r = &s->kernels[k];
    stats_json_begin_object(&w);
    stats_json_key(&w, "kernel_name");
    stats_json_string(&w, r->name);
    stats_json_key(&w, "kernel_launch_uid");
    stats_json_uint(&w, r->uid);
    json_values(&w, s, r);
    if (code_profile_count(s->code)) code_profile_json(s->code, &r->code, &w);
    stats_json_end_object(&w);
  }
  stats_json_end_array(&w);
  stats_json_key(&w, "totals");
  stats_json_begin_object(&w);
  json_values(&w, s, NULL);
  if (code_profile_count(s->code)) code_profile_json(s->code, NULL, &w);
  stats_json_end_object(&w);
  json_time_series(&w, s);
  stats_json_end_object(&w);
  stats_json_flush(&w); /* written already when the document closed; not so after a misuse */
  if (!stats_json_ok(&w)) return simtvp_diag_set(diag, SIMTVP_ERR_STATE, "JSON writer misuse");
  if (ferror(out)) return simtvp_diag_set(diag, SIMTVP_ERR_IO, "writing statistics JSON failed");
  return SIMTVP_OK;
}

simtvp_status stats_write_json(const stats *s, const char *path, simtvp_diag *diag) {
  if (!path) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "stats_write_json: no path");
  FILE *f = fopen(path, "w");
  if (!f) {
    simtvp_status st = simtvp_diag_set(diag, SIMTVP_ERR_IO, "cannot open statistics file %s: %s",
                                       path, strerror(errno));
    simtvp_diag_at_file(diag, path, 0, 0);
    return st;
  }
  simtvp_status st = stats_write_json_stream(s, f, diag);
  if (fclose(f) != 0 && st == SIMTVP_OK) {
    st = simtvp_diag_set(diag, SIMTVP_ERR_IO, "writing statistics file %s failed: %s", path,
                         strerror(errno));
    simtvp_diag_at_file(diag, path, 0, 0);
  } else if (st != SIMTVP_OK) {
    simtvp_diag_at_file(diag, path, 0, 0);
  }
  return st;
}

/* ---- per-instruction profile (stats_code.c does the work) ----------------------------------- */

stats_code *stats_code_register(stats *s, const char *ptx_file, const stats_code_loc *locs,
                                uint32_t n_insns, const char *const *src_files, uint32_t n_src_files) {
  if (!s) return NULL;
  return code_profile_register(s->code, ptx_file, locs, n_insns, src_files, n_src_files);
}

uint32_t stats_code_count(const stats *s) { return s ? code_profile_count(s->code) : 0; }

uint64_t stats_code_line_get(const stats *s, const char *ptx_file, uint32_t ptx_line, int column) {
  return s ? code_profile_line_get(s->code, NULL, CODE_BY_PTX_LINE, ptx_file, ptx_line, column) : 0;
}

uint64_t stats_code_kernel_line_get(const stats *s, uint32_t k, const char *ptx_file, uint32_t ptx_line,
                                    int column) {
  if (!s || k >= s->n_kernels) return 0;
  return code_profile_line_get(s->code, &s->kernels[k].code, CODE_BY_PTX_LINE, ptx_file, ptx_line, column);
}

uint64_t stats_code_source_line_get(const stats *s, const char *src_file, uint32_t src_line, int column) {
  return s ? code_profile_line_get(s->code, NULL, CODE_BY_SOURCE_LINE, src_file, src_line, column) : 0;
}

void stats_write_code_lines(const stats *s, uint32_t k, FILE *out) {
  if (!s || !out) return;
  char title[600];
  if (k == UINT32_MAX) {
    code_profile_text(s->code, NULL, "totals", out);
  } else if (k < s->n_kernels) {
    snprintf(title, sizeof title, "kernel %s launch %" PRIu64, s->kernels[k].name, s->kernels[k].uid);
    code_profile_text(s->code, &s->kernels[k].code, title, out);
  }
}

void stats_code_lines(const stats *s, uint32_t k, int by_source, void (*fn)(void *ctx, const stats_code_line *line),
                      void *ctx) {
  if (!s || !fn) return;
  code_key key = by_source ? CODE_BY_SOURCE_LINE : CODE_BY_PTX_LINE;
  if (k == UINT32_MAX)
    code_profile_each(s->code, NULL, key, fn, ctx);
  else if (k < s->n_kernels)
    code_profile_each(s->code, &s->kernels[k].code, key, fn, ctx);
}

/* ---- shards (stats.h "Shards") ------------------------------------------------------------- */

stats *stats_shard_create(stats *parent, const bool *deferred) {
  if (!parent || parent->shard) return NULL;
  if (!GROW(parent, parent->shards, parent->cap_shards, parent->n_shards + 1)) return NULL;
  stats *s = calloc(1, sizeof *s);
  shard_state *sh = calloc(1, sizeof *sh);
  if (!s || !sh) {
    free(s);
    free(sh);
    parent->nomem = true;
    return NULL;
  }
  sh->parent = parent;
  sh->deferred = deferred;
  s->shard = sh;
  parent->shards[parent->n_shards++] = s;
  /* Counters the parent's users registered before the first shard existed are watched too (they
   * were not marked when registered). */
  if (parent->n_shards == 1)
    for (uint32_t i = 0; i < parent->n_counters; i++) watch_counter(parent, i);
  return s;
}

static bool shard_deferred(const shard_state *sh) { return sh->deferred && *sh->deferred; }

static void histogram_free(stats_histogram *h) {
  if (!h) return;
  free(h->name);
  free(h->unit);
  free(h->description);
  free(h->buckets);
  free(h);
}

static void blocks_free(stats *s) {
  for (uint32_t i = 0; i < s->n_blocks; i++) {
    free(s->blocks[i].key);
    free(s->blocks[i].mem);
  }
  free(s->blocks);
}

static void shard_free(stats *s) {
  shard_state *sh = s->shard;
  blocks_free(s);
  for (uint32_t i = 0; i < sh->n_chunks; i++) free(sh->chunks[i]);
  free(sh->chunks);
  for (uint32_t i = 0; i < sh->n_own_hists; i++) histogram_free(sh->own_hists[i]);
  free(sh->own_hists);
  for (uint32_t i = 0; i < sh->n_pending; i++) {
    free(sh->pending[i].a);
    free(sh->pending[i].b);
    free(sh->pending[i].c);
    free(sh->pending[i].d);
  }
  free(sh->pending);
  free(sh->pairs);
  free(sh->hpairs);
  free(sh->by_counter);
  free(sh->by_hist);
  free(sh);
  free(s);
}

static void shards_destroy(stats *s) {
  for (uint32_t i = 0; i < s->n_shards; i++) shard_free(s->shards[i]);
  free(s->shards);
  free(s->counter_watched);
  free(s->watched);
}

/* A private counter slot of the shard (zeroed). */
static uint64_t *shard_slot(stats *s) {
  shard_state *sh = s->shard;
  if (sh->n_slots / STATS_CHUNK >= sh->n_chunks) {
    uint64_t **chunks = realloc(sh->chunks, (sh->n_chunks + 1) * sizeof *chunks);
    if (!chunks) return NULL;
    sh->chunks = chunks;
    if (!(sh->chunks[sh->n_chunks] = calloc(STATS_CHUNK, sizeof(uint64_t)))) return NULL;
    sh->n_chunks++;
  }
  uint32_t i = sh->n_slots++;
  return &sh->chunks[i / STATS_CHUNK][i % STATS_CHUNK];
}

/* Adds a (private slot -> parent counter) pair; a watched counter's pair joins the watch list. */
static void shard_pair_add(stats *s, uint64_t *priv, uint32_t counter) {
  shard_state *sh = s->shard;
  stats *parent = sh->parent;
  if (!GROW(parent, sh->pairs, sh->cap_pairs, sh->n_pairs + 1)) return;
  sh->pairs[sh->n_pairs++] = (shard_pair){priv, counter};
  if (counter < parent->cap_counter_watched && parent->counter_watched[counter] &&
      GROW(parent, parent->watched, parent->cap_watched, parent->n_watched + 1))
    parent->watched[parent->n_watched++] = (shard_pair){priv, counter};
}

static void watch_counter(stats *s, uint32_t index) {
  uint32_t old = s->cap_counter_watched;
  if (!GROW(s, s->counter_watched, s->cap_counter_watched, index + 1)) return;
  if (s->cap_counter_watched > old)
    memset(s->counter_watched + old, 0, (s->cap_counter_watched - old) * sizeof *s->counter_watched);
  if (s->counter_watched[index]) return;
  s->counter_watched[index] = true;
  for (uint32_t i = 0; i < s->n_shards; i++) {
    shard_state *sh = s->shards[i]->shard;
    for (uint32_t j = 0; j < sh->n_pairs; j++)
      if (sh->pairs[j].counter == index && GROW(s, s->watched, s->cap_watched, s->n_watched + 1))
        s->watched[s->n_watched++] = sh->pairs[j];
  }
}

/* What this shard handed out for parent counter `index` (NULL: nothing yet). */
static uint64_t *shard_known(const shard_state *sh, uint32_t index) {
  return index < sh->cap_by_counter ? sh->by_counter[index] : NULL;
}

static bool shard_set_known(stats *s, uint32_t index, uint64_t *p) {
  shard_state *sh = s->shard;
  uint32_t old = sh->cap_by_counter;
  if (!GROW(sh->parent, sh->by_counter, sh->cap_by_counter, index + 1)) return false;
  if (sh->cap_by_counter > old)
    memset(sh->by_counter + old, 0, (sh->cap_by_counter - old) * sizeof *sh->by_counter);
  sh->by_counter[index] = p;
  return true;
}

static char *dup_or_null(stats *s, const char *str) { return str ? dup_str(s, str) : NULL; }

static shard_pending *shard_pend(stats *s, int kind, const char *a, const char *b, const char *c,
                                 const char *d) {
  shard_state *sh = s->shard;
  stats *parent = sh->parent;
  if (!GROW(parent, sh->pending, sh->cap_pending, sh->n_pending + 1)) return NULL;
  if (sh->n_pending == 0) __atomic_fetch_add(&parent->pending_shards, 1, __ATOMIC_RELAXED);
  shard_pending *p = &sh->pending[sh->n_pending++];
  *p = (shard_pending){kind, dup_or_null(parent, a), dup_or_null(parent, b), dup_or_null(parent, c),
                       dup_or_null(parent, d), NULL, NULL};
  return p;
}

static uint64_t *shard_counter(stats *s, const char *name, const char *unit, const char *description) {
  shard_state *sh = s->shard;
  stats *parent = sh->parent;
  const slot *e = table_find(parent, name);
  if (e && e->kind != ITEM_COUNTER) return registration_failed(parent, "counter name used by another item", name);
  if (e) {
    uint64_t *known = shard_known(sh, e->index);
    if (known) return known;
  }
  if (shard_deferred(sh)) {
    /* Inside a parallel phase the parent is read-only: a private slot now, the registration at
     * the next sync (in block order, as a one-thread run registers it). */
    for (uint32_t i = 0; i < sh->n_pending; i++)
      if (sh->pending[i].kind == 0 && strcmp(sh->pending[i].a, name) == 0) return sh->pending[i].priv;
    uint64_t *priv = shard_slot(s);
    shard_pending *p = priv ? shard_pend(s, 0, name, unit, description, NULL) : NULL;
    if (!p) return registration_failed(parent, "out of memory registering counter", name);
    p->priv = priv;
    return priv;
  }
  if (!e) {
    /* New: the parent's own slot, counted in place by this shard alone. */
    uint32_t index = parent->n_counters;
    parent->folding = true; /* not the parent's own user: not watched */
    uint64_t *p = stats_counter(parent, name, unit, description);
    parent->folding = false;
    if (parent->n_counters == index + 1) shard_set_known(s, index, p);
    return p;
  }
  /* An aggregate someone else counts into already: a private slot, folded into it. */
  uint64_t *priv = shard_slot(s);
  if (!priv || !shard_set_known(s, e->index, priv))
    return registration_failed(parent, "out of memory registering counter", name);
  shard_pair_add(s, priv, e->index);
  return priv;
}

static stats_histogram *histogram_like(const char *name, uint64_t bucket_width, uint32_t n_buckets) {
  stats_histogram *h = calloc(1, sizeof *h);
  if (!h) return NULL;
  h->name = malloc(strlen(name) + 1);
  h->bucket_width = bucket_width ? bucket_width : 1;
  h->n_buckets = n_buckets;
  h->min = h->kernel_min = UINT64_MAX;
  h->buckets = calloc((size_t)n_buckets + 1, sizeof *h->buckets);
  if (!h->name || !h->buckets) {
    histogram_free(h);
    return NULL;
  }
  memcpy(h->name, name, strlen(name) + 1);
  return h;
}

static stats_histogram *shard_private_histogram(stats *s, const char *name, uint64_t bucket_width,
                                                uint32_t n_buckets) {
  shard_state *sh = s->shard;
  stats_histogram *h = histogram_like(name, bucket_width, n_buckets);
  if (!h || !GROW(sh->parent, sh->own_hists, sh->cap_own_hists, sh->n_own_hists + 1)) {
    histogram_free(h);
    sh->parent->nomem = true;
    return NULL;
  }
  sh->own_hists[sh->n_own_hists++] = h;
  return h;
}

static stats_histogram *shard_histogram(stats *s, const char *name, const char *unit,
                                        const char *description, uint64_t bucket_width,
                                        uint32_t n_buckets) {
  shard_state *sh = s->shard;
  stats *parent = sh->parent;
  const slot *e = table_find(parent, name);
  if (e && e->kind != ITEM_HISTOGRAM) return NULL;
  if (e && e->index < sh->cap_by_hist && sh->by_hist[e->index]) return sh->by_hist[e->index];
  if (shard_deferred(sh)) {
    for (uint32_t i = 0; i < sh->n_pending; i++)
      if (sh->pending[i].kind == 5 && strcmp(sh->pending[i].a, name) == 0) return sh->pending[i].hist;
    stats_histogram *h = shard_private_histogram(s, name, bucket_width, n_buckets);
    shard_pending *p = h ? shard_pend(s, 5, name, unit, description, NULL) : NULL;
    if (!p) return NULL;
    p->hist = h;
    return h;
  }
  stats_histogram *h;
  uint32_t index;
  if (!e) {
    index = parent->n_histograms;
    h = stats_histogram_register(parent, name, unit, description, bucket_width, n_buckets);
    if (!h) return NULL;
  } else {
    index = e->index;
    h = shard_private_histogram(s, name, parent->histograms[index]->bucket_width,
                                parent->histograms[index]->n_buckets);
    if (!h) return NULL;
    if (GROW(parent, sh->hpairs, sh->cap_hpairs, sh->n_hpairs + 1))
      sh->hpairs[sh->n_hpairs++] = (shard_hpair){h, index};
  }
  uint32_t old = sh->cap_by_hist;
  if (GROW(parent, sh->by_hist, sh->cap_by_hist, index + 1)) {
    if (sh->cap_by_hist > old) memset(sh->by_hist + old, 0, (sh->cap_by_hist - old) * sizeof *sh->by_hist);
    sh->by_hist[index] = h;
  }
  return h;
}

/* Ratios, sums, cumulative marks and info go to the parent (now, or at the next sync when the
 * shard is deferred). Returns true when handled. */
static bool shard_forward(stats *s, int kind, const char *a, const char *b, const char *c,
                          const char *d) {
  shard_state *sh = s->shard;
  if (shard_deferred(sh)) {
    shard_pend(s, kind, a, b, c, d);
    return true;
  }
  stats *parent = sh->parent;
  switch (kind) {
  case 1: stats_ratio(parent, a, b, c, d); break;
  case 2: stats_sum(parent, a, b, c, d); break;
  case 3: stats_mark_cumulative(parent, a); break;
  case 4: stats_set_info(parent, a, b); break;
  default: break;
  }
  return true;
}

static void fold_histogram(stats_histogram *to, stats_histogram *from) {
  if (!from->count) return;
  to->count += from->count;
  to->sum += from->sum;
  if (from->min < to->min) to->min = from->min;
  if (from->max > to->max) to->max = from->max;
  if (from->kernel_min < to->kernel_min) to->kernel_min = from->kernel_min;
  if (from->kernel_max > to->kernel_max) to->kernel_max = from->kernel_max;
  uint32_t n = (from->n_buckets < to->n_buckets ? from->n_buckets : to->n_buckets) + 1;
  for (uint32_t i = 0; i < n; i++) to->buckets[i] += from->buckets[i];
  from->count = from->sum = 0;
  from->min = from->kernel_min = UINT64_MAX;
  from->max = from->kernel_max = 0;
  memset(from->buckets, 0, ((size_t)from->n_buckets + 1) * sizeof *from->buckets);
}

/* Replays a shard's deferred registrations on the parent, in the order they were made. */
static void shard_replay(stats *s) {
  shard_state *sh = s->shard;
  stats *parent = sh->parent;
  parent->folding = true;
  for (uint32_t i = 0; i < sh->n_pending; i++) {
    shard_pending *p = &sh->pending[i];
    switch (p->kind) {
    case 0: {
      uint64_t *target = stats_counter(parent, p->a, p->b, p->c);
      const slot *e = table_find(parent, p->a);
      if (e && e->kind == ITEM_COUNTER && target) {
        *target += *p->priv;
        *p->priv = 0;
        shard_set_known(s, e->index, p->priv);
        shard_pair_add(s, p->priv, e->index);
      }
      break;
    }
    case 5: {
      stats_histogram *ph = stats_histogram_register(parent, p->a, p->b, p->c, p->hist->bucket_width,
                                                     p->hist->n_buckets);
      const slot *e = table_find(parent, p->a);
      if (ph && e) {
        fold_histogram(ph, p->hist);
        if (GROW(parent, sh->hpairs, sh->cap_hpairs, sh->n_hpairs + 1))
          sh->hpairs[sh->n_hpairs++] = (shard_hpair){p->hist, e->index};
        uint32_t old = sh->cap_by_hist;
        if (GROW(parent, sh->by_hist, sh->cap_by_hist, e->index + 1)) {
          if (sh->cap_by_hist > old)
            memset(sh->by_hist + old, 0, (sh->cap_by_hist - old) * sizeof *sh->by_hist);
          sh->by_hist[e->index] = p->hist;
        }
      }
      break;
    }
    case 1: stats_ratio(parent, p->a, p->b, p->c, p->d); break;
    case 2: stats_sum(parent, p->a, p->b, p->c, p->d); break;
    case 3: stats_mark_cumulative(parent, p->a); break;
    case 4: stats_set_info(parent, p->a, p->b); break;
    default: break;
    }
    free(p->a);
    free(p->b);
    free(p->c);
    free(p->d);
  }
  sh->n_pending = 0;
  parent->folding = false;
}

void stats_shards_sync(stats *parent) {
  if (!parent || parent->shard) return;
  if (parent->pending_shards) { /* (rare: lazily registered names) */
    for (uint32_t i = 0; i < parent->n_shards; i++)
      if (parent->shards[i]->shard->n_pending) shard_replay(parent->shards[i]);
    parent->pending_shards = 0;
  }
  for (uint32_t i = 0; i < parent->n_watched; i++) {
    shard_pair *w = &parent->watched[i];
    if (*w->priv) {
      *parent->counters[w->counter].value += *w->priv;
      *w->priv = 0;
    }
  }
}

static void fold_shards(stats *s) {
  if (!s || s->shard || !s->n_shards) return;
  stats_shards_sync(s);
  for (uint32_t i = 0; i < s->n_shards; i++) {
    shard_state *sh = s->shards[i]->shard;
    for (uint32_t j = 0; j < sh->n_pairs; j++) {
      shard_pair *p = &sh->pairs[j];
      if (*p->priv) {
        *s->counters[p->counter].value += *p->priv;
        *p->priv = 0;
      }
    }
    for (uint32_t j = 0; j < sh->n_hpairs; j++)
      fold_histogram(s->histograms[sh->hpairs[j].histogram], sh->hpairs[j].priv);
  }
}

void stats_fold(stats *parent) { fold_shards(parent); }
