/* config — the option registry: tables, option-file lexer, values, provenance, dump and the
 * generated reference (see config.h). Not on any hot path: clarity over speed. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define CONFIG_MAX_INCLUDE_DEPTH 16

typedef struct entry {
  const config_option *opt;
  uint32_t block;    /* index into blocks */
  void *base;        /* the block's storage */
  char *text;        /* current value text */
  const char *file;  /* interned origin; NULL: default */
  uint32_t line;     /* 0: default or set by a program */
  bool was_set;
  bool reported;     /* not-modelled notice already sent */
} entry;

typedef struct block_ref {
  const config_block *block;
  void *storage;
} block_ref;

typedef struct name_slot {
  const char *name; /* points into a table or into aliases_storage */
  uint32_t entry;
} name_slot;

struct config_registry {
  simtvp_msg_port msg;
  bool strict;
  block_ref *blocks;
  uint32_t n_blocks, cap_blocks;
  entry *entries;
  uint32_t n_entries, cap_entries;
  name_slot *names; /* open addressing, power-of-two size */
  uint32_t names_size, names_used;
  char **strings; /* interned origins and alias copies, freed at destroy */
  uint32_t n_strings, cap_strings;
  uint32_t unknown_count, not_modelled_count;
  int include_depth;
};

/* ---- small helpers ------------------------------------------------------------------------- */

static bool grow(void **array, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap) return true;
  uint32_t n = *cap ? *cap : 16;
  while (n < need) n *= 2;
  void *p = realloc(*array, (size_t)n * elem);
  if (!p) return false;
  *array = p;
  *cap = n;
  return true;
}
#define GROW(arr, cap, need) grow((void **)&(arr), &(cap), (need), sizeof *(arr))

static char *dup_n(const char *s, size_t n) {
  char *p = malloc(n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

static char *dup_s(const char *s) { return dup_n(s, strlen(s)); }

/* Keeps a string for the registry's lifetime; equal strings share one copy. */
static const char *intern(config_registry *r, const char *s) {
  for (uint32_t i = 0; i < r->n_strings; i++)
    if (strcmp(r->strings[i], s) == 0) return r->strings[i];
  if (!GROW(r->strings, r->cap_strings, r->n_strings + 1)) return NULL;
  char *p = dup_s(s);
  if (!p) return NULL;
  r->strings[r->n_strings++] = p;
  return p;
}

static uint32_t hash_name(const char *name) {
  uint32_t h = 2166136261u;
  for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
    h ^= *p;
    h *= 16777619u;
  }
  return h;
}

static int find_entry(const config_registry *r, const char *name) {
  if (!r->names_size || !name) return -1;
  uint32_t mask = r->names_size - 1;
  for (uint32_t i = hash_name(name) & mask;; i = (i + 1) & mask) {
    if (!r->names[i].name) return -1;
    if (strcmp(r->names[i].name, name) == 0) return (int)r->names[i].entry;
  }
}

static bool insert_name(config_registry *r, const char *name, uint32_t index) {
  if ((r->names_used + 1) * 2 > r->names_size) {
    uint32_t n = r->names_size ? r->names_size * 2 : 512;
    name_slot *t = calloc(n, sizeof *t);
    if (!t) return false;
    for (uint32_t i = 0; i < r->names_size; i++) {
      if (!r->names[i].name) continue;
      uint32_t j = hash_name(r->names[i].name) & (n - 1);
      while (t[j].name) j = (j + 1) & (n - 1);
      t[j] = r->names[i];
    }
    free(r->names);
    r->names = t;
    r->names_size = n;
  }
  uint32_t mask = r->names_size - 1;
  uint32_t i = hash_name(name) & mask;
  while (r->names[i].name) i = (i + 1) & mask;
  r->names[i] = (name_slot){name, index};
  r->names_used++;
  return true;
}

/* ---- suggestions for misspelt names ------------------------------------------------------------ */

/* Optimal-string-alignment distance (insertions, deletions, substitutions and swaps of neighbours
 * cost 1; letters compare case-insensitively), or limit + 1 once it exceeds limit. */
size_t config_edit_distance(const char *a, const char *b, size_t limit) {
  size_t la = strlen(a), lb = strlen(b);
  if ((la > lb ? la - lb : lb - la) > limit) return limit + 1;
  if (la > 200 || lb > 200) return limit + 1;
  size_t rows[3][201];
  size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
  for (size_t j = 0; j <= lb; j++) prev[j] = j;
  for (size_t i = 1; i <= la; i++) {
    cur[0] = i;
    size_t best = cur[0];
    for (size_t j = 1; j <= lb; j++) {
      int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
      size_t v = prev[j - 1] + (ca != cb);
      if (prev[j] + 1 < v) v = prev[j] + 1;
      if (cur[j - 1] + 1 < v) v = cur[j - 1] + 1;
      if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) && tolower((unsigned char)a[i - 2]) == cb &&
          prev2[j - 2] + 1 < v)
        v = prev2[j - 2] + 1;
      cur[j] = v;
      if (v < best) best = v;
    }
    if (best > limit) return limit + 1;
    size_t *t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return prev[lb] <= limit ? prev[lb] : limit + 1;
}

size_t config_suggest_limit(const char *name) {
  size_t n = strlen(name);
  return n < 6 ? 1 : n < 16 ? 2 : 3;
}

const char *config_registry_suggest(const config_registry *r, const char *name) {
  if (!r || !name || !*name) return NULL;
  size_t limit = config_suggest_limit(name), best = limit + 1;
  const char *found = NULL;
  /* Registration order (not the hash table's) so that ties resolve the same way everywhere. */
  for (uint32_t i = 0; i < r->n_entries; i++) {
    const char *cand = r->entries[i].opt->name;
    size_t d = config_edit_distance(name, cand, best < limit ? best : limit);
    if (d < best) {
      best = d;
      found = cand;
    }
  }
  return found;
}

const char *config_type_name(config_type type) {
  switch (type) {
  case CONFIG_INT: return "int";
  case CONFIG_UINT: return "uint";
  case CONFIG_UINT64: return "uint64";
  case CONFIG_BOOL: return "bool";
  case CONFIG_DOUBLE: return "double";
  case CONFIG_STRING: return "string";
  case CONFIG_ENUM: return "enum";
  }
  return "?";
}

/* ---- lifetime ------------------------------------------------------------------------------ */

config_registry *config_registry_create(const simtvp_msg_port *msg) {
  config_registry *r = calloc(1, sizeof *r);
  if (r && msg) r->msg = *msg;
  return r;
}

void config_registry_destroy(config_registry *r) {
  if (!r) return;
  for (uint32_t i = 0; i < r->n_entries; i++) free(r->entries[i].text);
  free(r->entries);
  free(r->blocks);
  free(r->names);
  for (uint32_t i = 0; i < r->n_strings; i++) free(r->strings[i]);
  free(r->strings);
  free(r);
}

void config_registry_set_strict(config_registry *r, bool strict) {
  if (r) r->strict = strict;
}

/* ---- value parsing ------------------------------------------------------------------------- */

static bool parse_i64(const char *s, int64_t *out) {
  if (!*s || isspace((unsigned char)*s)) return false;
  const char *p = s;
  bool neg = false;
  if (*p == '+' || *p == '-') neg = *p++ == '-';
  int base = 10;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    base = 16;
    p += 2;
  }
  if (!isxdigit((unsigned char)*p)) return false;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(p, &end, base);
  if (*end || errno == ERANGE) return false;
  if (neg) {
    if (v > (unsigned long long)INT64_MAX + 1) return false;
    *out = v == (unsigned long long)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
  } else {
    if (v > (unsigned long long)INT64_MAX) return false;
    *out = (int64_t)v;
  }
  return true;
}

static bool parse_u64(const char *s, uint64_t *out) {
  const char *p = s;
  if (*p == '+') p++;
  int base = 10;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    base = 16;
    p += 2;
  }
  if (!isxdigit((unsigned char)*p) || (base == 10 && !isdigit((unsigned char)*p))) return false;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(p, &end, base);
  if (*end || errno == ERANGE) return false;
  *out = v;
  return true;
}

static bool equal_nocase(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
  return *a == *b;
}

static bool parse_bool(const char *s, bool *out) {
  static const char *const yes[] = {"1", "true", "yes", "on"};
  static const char *const no[] = {"0", "false", "no", "off"};
  for (size_t i = 0; i < 4; i++) {
    if (equal_nocase(s, yes[i])) {
      *out = true;
      return true;
    }
    if (equal_nocase(s, no[i])) {
      *out = false;
      return true;
    }
  }
  return false;
}

double config_strtod(const char *s, char **end) {
  const struct lconv *lc = localeconv();
  const char *point = lc && lc->decimal_point ? lc->decimal_point : ".";
  if (strcmp(point, ".") == 0 || strlen(point) != 1) return strtod(s, end);
  /* Rewrite '.' to the locale's point in a copy of the number's characters, then map the end. */
  char buf[128];
  size_t n = 0;
  while (s[n] && n + 1 < sizeof buf && strchr("0123456789+-.eExXabcdefABCDEFinfINFtyTYnN", s[n])) {
    buf[n] = s[n] == '.' ? point[0] : s[n];
    n++;
  }
  buf[n] = '\0';
  char *e;
  double v = strtod(buf, &e);
  if (end) *end = (char *)s + (e - buf);
  return v;
}

static bool parse_double(const char *s, double *out) {
  if (!*s || isspace((unsigned char)*s)) return false;
  char *end;
  errno = 0;
  double v = config_strtod(s, &end);
  if (*end || errno == ERANGE || !isfinite(v)) return false;
  *out = v;
  return true;
}

static void enum_list(const config_enum_value *values, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (const config_enum_value *e = values; e && e->name; e++) {
    int n = snprintf(buf + used, size - used, "%s%s (%" PRId32 ")", e == values ? "" : ", ",
                     e->name, e->value);
    if (n < 0 || (size_t)n >= size - used) break;
    used += (size_t)n;
  }
}

/* Converts text to the option's type and stores it (when the option has storage). On failure
 * writes the reason to why. */
static bool convert(const config_option *o, void *base, const char *text, char *why, size_t n) {
  void *dst = o->offset == CONFIG_NO_STORAGE || !base ? NULL : (char *)base + o->offset;
  switch (o->type) {
  case CONFIG_INT: {
    int64_t v;
    if (!parse_i64(text, &v) || v < INT32_MIN || v > INT32_MAX) {
      snprintf(why, n, "not an integer in [%d, %d]", INT32_MIN, INT32_MAX);
      return false;
    }
    if (dst) *(int32_t *)dst = (int32_t)v;
    break;
  }
  case CONFIG_UINT: {
    uint64_t v;
    if (!parse_u64(text, &v) || v > UINT32_MAX) {
      snprintf(why, n, "not an unsigned integer in [0, %u]", UINT32_MAX);
      return false;
    }
    if (dst) *(uint32_t *)dst = (uint32_t)v;
    break;
  }
  case CONFIG_UINT64: {
    uint64_t v;
    if (!parse_u64(text, &v)) {
      snprintf(why, n, "not an unsigned 64-bit integer");
      return false;
    }
    if (dst) *(uint64_t *)dst = v;
    break;
  }
  case CONFIG_BOOL: {
    bool v;
    if (!parse_bool(text, &v)) {
      snprintf(why, n, "not a boolean (0/1, true/false, yes/no, on/off)");
      return false;
    }
    if (dst) *(bool *)dst = v;
    break;
  }
  case CONFIG_DOUBLE: {
    double v;
    if (!parse_double(text, &v)) {
      snprintf(why, n, "not a finite number");
      return false;
    }
    if (dst) *(double *)dst = v;
    break;
  }
  case CONFIG_STRING: {
    size_t len = strlen(text);
    if (dst && len + 1 > o->size) {
      snprintf(why, n, "longer than %zu characters", o->size - 1);
      return false;
    }
    if (dst) memcpy(dst, text, len + 1);
    break;
  }
  case CONFIG_ENUM: {
    const config_enum_value *hit = NULL;
    int64_t num;
    bool numeric = parse_i64(text, &num);
    for (const config_enum_value *e = o->enum_values; e && e->name; e++) {
      if (strcmp(e->name, text) == 0 || (numeric && e->value == num)) {
        hit = e;
        break;
      }
    }
    if (!hit) {
      char list[200];
      enum_list(o->enum_values, list, sizeof list);
      snprintf(why, n, "not one of: %s", list);
      return false;
    }
    if (dst) *(int32_t *)dst = hit->value;
    break;
  }
  }
  if (o->check && !o->check(text, why, n)) return false;
  return true;
}

/* ---- registration -------------------------------------------------------------------------- */

static bool add_alias_names(config_registry *r, const config_option *o, uint32_t index,
                            simtvp_diag *diag) {
  const char *p = o->aliases;
  while (p && *p) {
    while (*p == ' ') p++;
    const char *start = p;
    while (*p && *p != ' ') p++;
    if (p == start) break;
    char *alias = dup_n(start, (size_t)(p - start));
    if (!alias) {
      simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of memory registering %s", o->name);
      return false;
    }
    if (find_entry(r, alias) >= 0) {
      simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "option alias %s (of %s) is registered twice",
                      alias, o->name);
      simtvp_diag_at_option(diag, alias);
      free(alias);
      return false;
    }
    const char *kept = intern(r, alias);
    free(alias);
    if (!kept || !insert_name(r, kept, index)) {
      simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of memory registering %s", o->name);
      return false;
    }
  }
  return true;
}

simtvp_status config_registry_add(config_registry *r, const config_block *block, void *storage,
                                  simtvp_diag *diag) {
  if (!r || !block) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "config_registry_add: no block");
  for (size_t i = 0; i < block->n_options; i++) {
    const config_option *o = &block->options[i];
    if (!o->name || o->name[0] != '-' || find_entry(r, o->name) >= 0) {
      simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "option %s of block %s is %s",
                      o->name ? o->name : "(null)", block->name,
                      o->name && o->name[0] == '-' ? "registered twice" : "not named -<name>");
      simtvp_diag_at_option(diag, o->name);
      return SIMTVP_ERR_CONFIG;
    }
  }
  if (!GROW(r->blocks, r->cap_blocks, r->n_blocks + 1) ||
      !GROW(r->entries, r->cap_entries, r->n_entries + (uint32_t)block->n_options))
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of memory registering %s", block->name);
  uint32_t b = r->n_blocks++;
  r->blocks[b] = (block_ref){block, storage};
  for (size_t i = 0; i < block->n_options; i++) {
    const config_option *o = &block->options[i];
    char why[256] = "";
    const char *def = o->default_value ? o->default_value : "";
    if (!convert(o, storage, def, why, sizeof why)) {
      simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "default '%s' of %s does not parse: %s", def,
                      o->name, why);
      simtvp_diag_at_option(diag, o->name);
      return SIMTVP_ERR_CONFIG;
    }
    uint32_t index = r->n_entries;
    entry *e = &r->entries[index];
    memset(e, 0, sizeof *e);
    e->opt = o;
    e->block = b;
    e->base = storage;
    e->text = dup_s(def);
    if (!e->text || !insert_name(r, o->name, index))
      return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of memory registering %s", o->name);
    r->n_entries++;
    if (!add_alias_names(r, o, index, diag)) return diag ? diag->status : SIMTVP_ERR_CONFIG;
  }
  return SIMTVP_OK;
}

/* ---- setting values ------------------------------------------------------------------------ */

/* Where a message points: "file:line" or just "file" when line is 0. */
static void place(char *buf, size_t n, const char *file, uint32_t line) {
  if (line)
    snprintf(buf, n, "%s:%" PRIu32, file, line);
  else
    snprintf(buf, n, "%s", file);
}

static bool is_absolute(const char *path) { return path[0] == '/'; }

/* dir + "/" + path, or path itself when absolute or dir is empty. Caller frees. */
static char *join_path(const char *dir, const char *path) {
  if (!dir || !*dir || is_absolute(path)) return dup_s(path);
  size_t a = strlen(dir), b = strlen(path);
  char *p = malloc(a + b + 2);
  if (!p) return NULL;
  memcpy(p, dir, a);
  p[a] = '/';
  memcpy(p + a + 1, path, b + 1);
  return p;
}

/* Directory part of a path ("" for a bare file name). Caller frees. */
static char *dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return dup_s("");
  if (slash == path) return dup_s("/");
  return dup_n(path, (size_t)(slash - path));
}

static simtvp_status load_file(config_registry *r, const char *path, const char *from_file,
                               uint32_t from_line, simtvp_diag *diag);

/* Sets option `name` to `value`, coming from file:line (line 0: a program or the command line,
 * named by file). base_dir resolves relative paths of CONFIG_PATH options and includes. */
static simtvp_status set_value(config_registry *r, const char *name, const char *value,
                               const char *file, uint32_t line, const char *base_dir,
                               simtvp_diag *diag) {
  char where[512];
  place(where, sizeof where, file, line);
  if (strcmp(name, "-config") == 0) {
    char *path = join_path(base_dir, value);
    if (!path) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of memory");
    simtvp_status st = load_file(r, path, file, line, diag);
    free(path);
    return st;
  }
  int index = find_entry(r, name);
  if (index < 0) {
    r->unknown_count++;
    const char *near = config_registry_suggest(r, name);
    char hint[160] = "";
    if (near) snprintf(hint, sizeof hint, "; did you mean %s?", near);
    if (r->strict) {
      simtvp_diag_set(diag, SIMTVP_ERR_CONFIG, "%s: unknown option %s%s", where, name, hint);
      simtvp_diag_at_file(diag, file, line, 0);
      simtvp_diag_at_option(diag, name);
      return SIMTVP_ERR_CONFIG;
    }
    simtvp_msg(&r->msg, SIMTVP_WARNING, "%s: unknown option %s (ignored)%s", where, name, hint);
    return SIMTVP_OK;
  }
  entry *e = &r->entries[index];
  const config_option *o = e->opt;
  char *resolved = NULL;
  if ((o->flags & CONFIG_PATH) && line && *value) {
    resolved = join_path(base_dir, value);
    if (!resolved) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of memory");
    value = resolved;
  }
  char why[512] = "";
  if (!convert(o, e->base, value, why, sizeof why)) {
    simtvp_diag_set(diag, SIMTVP_ERR_PARSE, "%s: %s: bad value '%s': %s", where, o->name, value,
                    why);
    simtvp_diag_at_file(diag, file, line, 0);
    simtvp_diag_at_option(diag, o->name);
    free(resolved);
    return SIMTVP_ERR_PARSE;
  }
  char *text = dup_s(value);
  free(resolved);
  const char *kept = intern(r, file);
  if (!text || !kept) {
    free(text);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of memory");
  }
  free(e->text);
  e->text = text;
  e->file = kept;
  e->line = line;
  e->was_set = true;
  if ((o->flags & CONFIG_NOT_MODELLED) && !e->reported) {
    e->reported = true;
    r->not_modelled_count++;
    simtvp_msg(&r->msg, SIMTVP_INFO,
               "%s: %s is accepted for GPGPU-Sim compatibility but not modelled by simtvp "
               "(value ignored)",
               where, o->name);
  }
  return SIMTVP_OK;
}

simtvp_status config_registry_set(config_registry *r, const char *name, const char *value,
                                  const char *origin, simtvp_diag *diag) {
  if (!r || !name || !value) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "config_registry_set");
  return set_value(r, name, value, origin ? origin : "<program>", 0, NULL, diag);
}

/* ---- option-file lexer --------------------------------------------------------------------- */

typedef struct lexer {
  const char *p;
  uint32_t line;
  char *tok; /* current token text (owned) */
  size_t tok_cap;
  uint32_t tok_line; /* line where the token starts */
  bool quoted;
} lexer;

static bool tok_put(lexer *lx, size_t *len, char c) {
  if (*len + 1 >= lx->tok_cap) {
    size_t n = lx->tok_cap ? lx->tok_cap * 2 : 128;
    char *t = realloc(lx->tok, n);
    if (!t) return false;
    lx->tok = t;
    lx->tok_cap = n;
  }
  lx->tok[(*len)++] = c;
  lx->tok[*len] = '\0';
  return true;
}

typedef enum lex_result { LEX_TOKEN, LEX_END, LEX_UNTERMINATED, LEX_NOMEM } lex_result;

/* Next token: skips blanks and '#' comments; a token starting with '"' runs to the closing quote,
 * with each line break inside it (and the blanks around it) removed. */
static lex_result next_token(lexer *lx) {
  for (;;) {
    char c = *lx->p;
    if (c == '\0') return LEX_END;
    if (c == '\n') {
      lx->line++;
      lx->p++;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      lx->p++;
    } else if (c == '#') {
      while (*lx->p && *lx->p != '\n') lx->p++;
    } else {
      break;
    }
  }
  size_t len = 0;
  if (!lx->tok) {
    lx->tok = malloc(128);
    if (!lx->tok) return LEX_NOMEM;
    lx->tok_cap = 128;
  }
  lx->tok[0] = '\0';
  lx->tok_line = lx->line;
  lx->quoted = *lx->p == '"';
  if (lx->quoted) {
    lx->p++;
    for (;;) {
      char c = *lx->p;
      if (c == '\0') return LEX_UNTERMINATED;
      lx->p++;
      if (c == '"') return LEX_TOKEN;
      if (c == '\r') continue;
      if (c == '\n') {
        lx->line++;
        while (len && (lx->tok[len - 1] == ' ' || lx->tok[len - 1] == '\t')) lx->tok[--len] = '\0';
        while (*lx->p == ' ' || *lx->p == '\t') lx->p++;
        continue;
      }
      if (!tok_put(lx, &len, c)) return LEX_NOMEM;
    }
  }
  while (*lx->p && !isspace((unsigned char)*lx->p) && *lx->p != '#') {
    if (!tok_put(lx, &len, *lx->p)) return LEX_NOMEM;
    lx->p++;
  }
  return LEX_TOKEN;
}

static simtvp_status parse_text(config_registry *r, const char *text, const char *origin,
                                const char *base_dir, simtvp_diag *diag) {
  lexer lx = {text, 1, NULL, 0, 0, false};
  simtvp_status st = SIMTVP_OK;
  char *name = NULL;
  for (;;) {
    lex_result lr = next_token(&lx);
    if (lr == LEX_END) break;
    if (lr == LEX_NOMEM) {
      st = simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of memory reading %s", origin);
      break;
    }
    if (lr == LEX_UNTERMINATED) {
      st = simtvp_diag_set(diag, SIMTVP_ERR_PARSE, "%s:%" PRIu32 ": unterminated quoted value",
                           origin, lx.tok_line);
      simtvp_diag_at_file(diag, origin, lx.tok_line, 0);
      break;
    }
    uint32_t name_line = lx.tok_line;
    if (lx.quoted || lx.tok[0] != '-' || lx.tok[1] == '\0') {
      st = simtvp_diag_set(diag, SIMTVP_ERR_PARSE,
                           "%s:%" PRIu32 ": expected an option name (-name), found '%s'", origin,
                           name_line, lx.tok);
      simtvp_diag_at_file(diag, origin, name_line, 0);
      break;
    }
    free(name);
    name = dup_s(lx.tok);
    if (!name) {
      st = simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of memory reading %s", origin);
      break;
    }
    /* The value must start on the option's line: a name alone on its line is an error rather
     * than a silent pairing with the next line's option. */
    const char *save_p = lx.p;
    uint32_t save_line = lx.line;
    lr = next_token(&lx);
    if (lr == LEX_NOMEM) {
      st = simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of memory reading %s", origin);
      break;
    }
    if (lr == LEX_UNTERMINATED) {
      st = simtvp_diag_set(diag, SIMTVP_ERR_PARSE,
                           "%s:%" PRIu32 ": %s: unterminated quoted value", origin, lx.tok_line,
                           name);
      simtvp_diag_at_file(diag, origin, lx.tok_line, 0);
      simtvp_diag_at_option(diag, name);
      break;
    }
    if (lr == LEX_END || lx.tok_line != name_line) {
      lx.p = save_p;
      lx.line = save_line;
      st = simtvp_diag_set(diag, SIMTVP_ERR_PARSE, "%s:%" PRIu32 ": %s: missing value", origin,
                           name_line, name);
      simtvp_diag_at_file(diag, origin, name_line, 0);
      simtvp_diag_at_option(diag, name);
      break;
    }
    st = set_value(r, name, lx.tok, origin, name_line, base_dir, diag);
    if (st != SIMTVP_OK) break;
  }
  free(name);
  free(lx.tok);
  return st;
}

simtvp_status config_registry_load_text(config_registry *r, const char *text, const char *origin,
                                        const char *base_dir, simtvp_diag *diag) {
  if (!r || !text) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "config_registry_load_text");
  return parse_text(r, text, origin ? origin : "<string>", base_dir, diag);
}

static simtvp_status load_file(config_registry *r, const char *path, const char *from_file,
                               uint32_t from_line, simtvp_diag *diag) {
  if (r->include_depth >= CONFIG_MAX_INCLUDE_DEPTH) {
    simtvp_diag_set(diag, SIMTVP_ERR_CONFIG,
                    "%s:%" PRIu32 ": -config %s: includes nested more than %d deep (a cycle?)",
                    from_file, from_line, path, CONFIG_MAX_INCLUDE_DEPTH);
    simtvp_diag_at_file(diag, from_file, from_line, 0);
    return SIMTVP_ERR_CONFIG;
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    if (from_file)
      simtvp_diag_set(diag, SIMTVP_ERR_IO, "%s:%" PRIu32 ": cannot open option file %s: %s",
                      from_file, from_line, path, strerror(errno));
    else
      simtvp_diag_set(diag, SIMTVP_ERR_IO, "cannot open option file %s: %s", path,
                      strerror(errno));
    simtvp_diag_at_file(diag, path, 0, 0);
    return SIMTVP_ERR_IO;
  }
  size_t cap = 8192, len = 0;
  char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += got;
    if (len + 1 == cap) {
      char *b = realloc(buf, cap * 2);
      if (!b) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = b;
      cap *= 2;
    }
  }
  bool read_error = ferror(f);
  fclose(f);
  if (!buf) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of memory reading %s", path);
  if (read_error) {
    free(buf);
    simtvp_diag_set(diag, SIMTVP_ERR_IO, "error reading option file %s", path);
    simtvp_diag_at_file(diag, path, 0, 0);
    return SIMTVP_ERR_IO;
  }
  buf[len] = '\0';
  if (memchr(buf, '\0', len)) {
    free(buf);
    simtvp_diag_set(diag, SIMTVP_ERR_PARSE, "%s: not a text file (contains NUL bytes)", path);
    simtvp_diag_at_file(diag, path, 0, 0);
    return SIMTVP_ERR_PARSE;
  }
  char *dir = dir_of(path);
  if (!dir) {
    free(buf);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "out of memory");
  }
  r->include_depth++;
  simtvp_status st = parse_text(r, buf, path, dir, diag);
  r->include_depth--;
  free(dir);
  free(buf);
  return st;
}

simtvp_status config_registry_load_file(config_registry *r, const char *path, simtvp_diag *diag) {
  if (!r || !path) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "config_registry_load_file");
  return load_file(r, path, NULL, 0, diag);
}

simtvp_status config_registry_parse_args(config_registry *r, int argc, const char *const argv[],
                                         simtvp_diag *diag) {
  if (!r || argc < 0 || (argc && !argv))
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "config_registry_parse_args");
  for (int i = 0; i < argc; i += 2) {
    const char *name = argv[i];
    if (!name || name[0] != '-' || name[1] == '\0') {
      simtvp_diag_set(diag, SIMTVP_ERR_PARSE,
                      "command line argument %d: expected an option name (-name), found '%s'", i,
                      name ? name : "");
      return SIMTVP_ERR_PARSE;
    }
    if (i + 1 >= argc) {
      simtvp_diag_set(diag, SIMTVP_ERR_PARSE, "command line argument %d: %s: missing value", i,
                      name);
      simtvp_diag_at_option(diag, name);
      return SIMTVP_ERR_PARSE;
    }
    char origin[64];
    snprintf(origin, sizeof origin, "command line argument %d", i);
    simtvp_status st = set_value(r, name, argv[i + 1], origin, 0, NULL, diag);
    if (st != SIMTVP_OK) return st;
  }
  return SIMTVP_OK;
}

/* ---- queries ------------------------------------------------------------------------------- */

const char *config_registry_value(const config_registry *r, const char *name) {
  int i = r ? find_entry(r, name) : -1;
  return i < 0 ? NULL : r->entries[i].text;
}

bool config_registry_origin(const config_registry *r, const char *name, const char **file,
                            uint32_t *line, bool *was_set) {
  int i = r ? find_entry(r, name) : -1;
  if (i < 0) return false;
  const entry *e = &r->entries[i];
  if (file) *file = e->file;
  if (line) *line = e->line;
  if (was_set) *was_set = e->was_set;
  return true;
}

void config_registry_diag_at(const config_registry *r, const char *name, simtvp_diag *diag) {
  const char *file = NULL;
  uint32_t line = 0;
  bool set = false;
  if (config_registry_origin(r, name, &file, &line, &set) && set && file)
    simtvp_diag_at_file(diag, file, line, 0);
  int i = r ? find_entry(r, name) : -1;
  simtvp_diag_at_option(diag, i < 0 ? name : r->entries[i].opt->name);
}

uint32_t config_registry_unknown_count(const config_registry *r) { return r ? r->unknown_count : 0; }

uint32_t config_registry_not_modelled_count(const config_registry *r) {
  return r ? r->not_modelled_count : 0;
}

size_t config_registry_count(const config_registry *r) { return r ? r->n_entries : 0; }

const config_option *config_registry_option(const config_registry *r, size_t index,
                                            const config_block **block) {
  if (!r || index >= r->n_entries) return NULL;
  if (block) *block = r->blocks[r->entries[index].block].block;
  return r->entries[index].opt;
}

/* ---- dump and reference -------------------------------------------------------------------- */

static bool needs_quotes(const char *s) {
  if (!*s) return true;
  for (const char *p = s; *p; p++)
    if (isspace((unsigned char)*p) || *p == '#' || *p == '"') return true;
  return false;
}

void config_registry_dump(const config_registry *r, FILE *out) {
  if (!r || !out) return;
  fprintf(out, "# simtvp effective configuration (option-file syntax; loadable with --config)\n");
  uint32_t last_block = UINT32_MAX;
  for (uint32_t i = 0; i < r->n_entries; i++) {
    const entry *e = &r->entries[i];
    if ((e->opt->flags & CONFIG_NOT_MODELLED) && !e->was_set) continue;
    if (e->block != last_block) {
      last_block = e->block;
      fprintf(out, "\n# ---- %s ----\n", r->blocks[e->block].block->title);
    }
    if (needs_quotes(e->text))
      fprintf(out, "%s \"%s\"", e->opt->name, e->text);
    else
      fprintf(out, "%s %s", e->opt->name, e->text);
    if (!e->was_set)
      fprintf(out, "    # default\n");
    else if (e->line)
      fprintf(out, "    # %s:%" PRIu32 "%s\n", e->file, e->line,
              e->opt->flags & CONFIG_NOT_MODELLED ? " (not modelled)" : "");
    else
      fprintf(out, "    # %s%s\n", e->file,
              e->opt->flags & CONFIG_NOT_MODELLED ? " (not modelled)" : "");
  }
}

/* Writes text for a markdown table cell: '|' escaped, line breaks as spaces. */
static void md_cell(FILE *out, const char *s) {
  for (const char *p = s ? s : ""; *p; p++) {
    if (*p == '|')
      fputs("\\|", out);
    else if (*p == '\n' || *p == '\r')
      fputc(' ', out);
    else
      fputc(*p, out);
  }
}

static void md_code(FILE *out, const char *s) {
  if (!s || !*s) {
    fputs("(empty)", out);
    return;
  }
  fputc('`', out);
  md_cell(out, s);
  fputc('`', out);
}

static void md_aliases(FILE *out, const char *aliases) {
  if (!aliases || !*aliases) return;
  fputs(" Also accepted as:", out);
  const char *p = aliases;
  while (*p) {
    while (*p == ' ') p++;
    const char *s = p;
    while (*p && *p != ' ') p++;
    if (p > s) fprintf(out, " `%.*s`", (int)(p - s), s);
  }
  fputc('.', out);
}

static const char md_preamble[] =
    "# Configuration reference\n"
    "\n"
    "<!-- Generated by `simtvp-options --markdown` from the option tables in models/config;\n"
    "     do not edit by hand. tests/config checks that this file matches the tables. -->\n"
    "\n"
    "simtvp reads GPGPU-Sim option files: an existing `gpgpusim.config` loads as it is.\n"
    "\n"
    "## Syntax\n"
    "\n"
    "- One `-name value` pair per line (several pairs may share a line); `#` starts a comment.\n"
    "- A value is one token, or a double-quoted string; inside quotes a line break and the blanks\n"
    "  around it are removed, so long values (DRAM timing) may continue on the next line.\n"
    "- `-config FILE` includes another option file (a relative name is relative to the including\n"
    "  file). Command-line overrides (`-name value` pairs given to the program after its option\n"
    "  files) are applied after the files. When an option is set more than once, the last\n"
    "  setting wins.\n"
    "- Numbers are decimal or `0x` hexadecimal; booleans are `0`/`1` (also `true`/`false`,\n"
    "  `yes`/`no`, `on`/`off`); enum options take a name or its number.\n"
    "- File-name options (type `string (path)`) given in a file are relative to that file.\n"
    "- An unknown option is a warning naming it and its `file:line` (an error with `--strict`).\n"
    "  A malformed value is an error naming the option, the value and its `file:line`.\n"
    "- Options that simtvp accepts for GPGPU-Sim compatibility but does not model are listed in\n"
    "  their own section below; setting one prints a note once per option.\n"
    "\n"
    "Units: *core cycles* are cycles of the core clock domain (`-gpgpu_clock_domains`), and\n"
    "likewise for the interconnect, L2 and DRAM domains; DRAM timing is in DRAM command-clock\n"
    "cycles.\n";

void config_registry_write_markdown(const config_registry *r, FILE *out) {
  if (!r || !out) return;
  fputs(md_preamble, out);
  for (uint32_t b = 0; b < r->n_blocks; b++) {
    const config_block *blk = r->blocks[b].block;
    bool any = false;
    for (size_t i = 0; i < blk->n_options; i++)
      if (!(blk->options[i].flags & CONFIG_NOT_MODELLED)) any = true;
    if (!any) continue;
    fprintf(out, "\n## %s\n\n", blk->title);
    if (blk->description && *blk->description) fprintf(out, "%s\n\n", blk->description);
    fputs("| Option | Type | Default | Unit | Description |\n", out);
    fputs("|---|---|---|---|---|\n", out);
    for (size_t i = 0; i < blk->n_options; i++) {
      const config_option *o = &blk->options[i];
      if (o->flags & CONFIG_NOT_MODELLED) continue;
      fprintf(out, "| `%s` | %s%s | ", o->name, config_type_name(o->type),
              o->flags & CONFIG_PATH ? " (path)" : "");
      md_code(out, o->default_value);
      fputs(" | ", out);
      md_cell(out, o->unit);
      fputs(" | ", out);
      md_cell(out, o->description);
      if (o->type == CONFIG_ENUM) {
        char list[512];
        enum_list(o->enum_values, list, sizeof list);
        fputs(" One of: ", out);
        md_cell(out, list);
        fputc('.', out);
      }
      md_aliases(out, o->aliases);
      fputs(" |\n", out);
    }
  }
  fputs("\n## Accepted for compatibility, not modelled\n\n"
        "GPGPU-Sim options that simtvp reads (and checks) but whose value has no effect: power\n"
        "models, visualiser and trace outputs, PTXPlus/SASS conversion, checkpointing and similar.\n"
        "A file that sets one gets a note naming it once.\n\n"
        "| Option | Type | Default | GPGPU-Sim meaning |\n|---|---|---|---|\n",
        out);
  for (uint32_t b = 0; b < r->n_blocks; b++) {
    const config_block *blk = r->blocks[b].block;
    for (size_t i = 0; i < blk->n_options; i++) {
      const config_option *o = &blk->options[i];
      if (!(o->flags & CONFIG_NOT_MODELLED)) continue;
      fprintf(out, "| `%s` | %s | ", o->name, config_type_name(o->type));
      md_code(out, o->default_value);
      fputs(" | ", out);
      md_cell(out, o->description);
      md_aliases(out, o->aliases);
      fputs(" |\n", out);
    }
  }
}

/* ---- checks for composite values ----------------------------------------------------------- */

int config_parse_uint_list(const char *value, char sep, uint32_t *out, int max) {
  int n = 0;
  const char *p = value;
  if (!*p) return -1;
  for (;;) {
    if (!isdigit((unsigned char)*p)) return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(p, &end, 10);
    if (errno == ERANGE || v > UINT32_MAX || n >= max) return -1;
    if (out) out[n] = (uint32_t)v;
    n++;
    p = end;
    if (*p == '\0') return n;
    if (*p != sep) return -1;
    p++;
  }
}

bool config_check_uint_list(const char *value, char *why, size_t n) {
  if (config_parse_uint_list(value, ',', NULL, 64) < 0) {
    snprintf(why, n, "expected unsigned integers separated by ','");
    return false;
  }
  return true;
}

bool config_check_uint_colon_list(const char *value, char *why, size_t n) {
  if (config_parse_uint_list(value, ':', NULL, 64) < 0) {
    snprintf(why, n, "expected unsigned integers separated by ':'");
    return false;
  }
  return true;
}

bool config_check_clock_domains(const char *value, char *why, size_t n) {
  const char *p = value;
  for (int i = 0; i < 4; i++) {
    char *end;
    errno = 0;
    double v = config_strtod(p, &end);
    if (end == p || errno == ERANGE || !isfinite(v) || v <= 0) {
      snprintf(why, n, "expected four positive frequencies in MHz, <core>:<icnt>:<l2>:<dram>");
      return false;
    }
    p = end;
    if (i < 3) {
      if (*p != ':') {
        snprintf(why, n, "expected four frequencies separated by ':'");
        return false;
      }
      p++;
    }
  }
  if (*p) {
    snprintf(why, n, "unexpected text after the fourth frequency");
    return false;
  }
  return true;
}

bool config_addr_mapping_parse(const char *text, config_addr_mapping *out, char *why, size_t n) {
  memset(out, 0, sizeof *out);
  const char *p = text;
  while (*p == ' ' || *p == '\t' || *p == '"') p++;
  if (strncmp(p, "dramid@", 7) == 0) {
    p += 7;
    if (!isdigit((unsigned char)*p)) {
      snprintf(why, n, "expected a bit number after 'dramid@'");
      return false;
    }
    uint32_t bit = 0;
    while (isdigit((unsigned char)*p) && bit < 1000) bit = bit * 10 + (uint32_t)(*p++ - '0');
    if (bit >= 64) {
      snprintf(why, n, "the dramid bit must be below 64");
      return false;
    }
    if (*p != ';') {
      snprintf(why, n, "expected ';' after 'dramid@<bit>'");
      return false;
    }
    p++;
    out->by_division = true;
    out->dramid_bit = bit;
  }
  int count = 0;
  bool channel_bits = false;
  for (; *p && *p != '"'; p++) {
    char c = (char)toupper((unsigned char)*p);
    if (c == '.' || isspace((unsigned char)c)) continue;
    if (!strchr("0DBRCS", c)) {
      snprintf(why, n, "character '%c' is not one of 0 D B R C S (or '.')", *p);
      return false;
    }
    if (count == 64) {
      snprintf(why, n, "the map has more than 64 bit characters");
      return false;
    }
    out->field[63 - count++] = c;
    channel_bits |= c == 'D';
  }
  if (count != 64) {
    snprintf(why, n, "the map has %d bit characters; expected 64", count);
    return false;
  }
  if (out->by_division && channel_bits) {
    snprintf(why, n, "D bits cannot be combined with dramid@N");
    return false;
  }
  return true;
}

bool config_check_addr_mapping(const char *value, char *why, size_t n) {
  if (!*value) return true; /* no mapping given */
  config_addr_mapping m;
  return config_addr_mapping_parse(value, &m, why, n);
}

/* Counts fields of s separated by sep (no empty fields allowed); -1 when a field is empty. */
static int split_fields(const char *s, char sep, const char **starts, size_t *lens, int max) {
  int k = 0;
  const char *p = s;
  for (;;) {
    const char *q = strchr(p, sep);
    size_t len = q ? (size_t)(q - p) : strlen(p);
    if (len == 0 || k >= max) return -1;
    starts[k] = p;
    lens[k] = len;
    k++;
    if (!q) return k;
    p = q + 1;
  }
}

static bool field_is_uint(const char *s, size_t len) {
  if (len == 0) return false;
  for (size_t i = 0; i < len; i++)
    if (!isdigit((unsigned char)s[i])) return false;
  return true;
}

static bool field_is_letter(const char *s, size_t len) {
  return len == 1 && isalpha((unsigned char)s[0]);
}

bool config_check_cache(const char *value, char *why, size_t n) {
  if (strcmp(value, "none") == 0) return true;
  const char *grp[8];
  size_t glen[8];
  int groups = split_fields(value, ',', grp, glen, 8);
  if (groups < 4 || groups > 5) {
    snprintf(why, n, "expected 'none' or 4-5 comma-separated groups "
                     "(<sets>:<bsize>:<assoc>,<policies>,<mshr>,<miss queue>[,<port width>])");
    return false;
  }
  char buf[256];
  const char *f[8];
  size_t fl[8];
  /* Group 1: [<type letter>:]<nsets>:<bsize>:<assoc>. */
  snprintf(buf, sizeof buf, "%.*s", (int)glen[0], grp[0]);
  int k = split_fields(buf, ':', f, fl, 8);
  int first = k == 4 && field_is_letter(f[0], fl[0]) ? 1 : 0;
  if (k - first != 3 || !field_is_uint(f[first], fl[first]) ||
      !field_is_uint(f[first + 1], fl[first + 1]) || !field_is_uint(f[first + 2], fl[first + 2])) {
    snprintf(why, n, "group 1 '%s': expected [<type>:]<nsets>:<bsize>:<assoc>", buf);
    return false;
  }
  /* Group 2: <rep>:<wr>:<alloc>:<wr_alloc>[:<set_index>] (single letters). */
  snprintf(buf, sizeof buf, "%.*s", (int)glen[1], grp[1]);
  k = split_fields(buf, ':', f, fl, 8);
  bool letters = k == 4 || k == 5;
  for (int i = 0; letters && i < k; i++) letters = field_is_letter(f[i], fl[i]);
  if (!letters) {
    snprintf(why, n,
             "group 2 '%s': expected <rep>:<wr>:<alloc>:<wr_alloc>[:<set_index>] (letters)", buf);
    return false;
  }
  /* Group 3: <mshr type>:<entries>:<max merge>. */
  snprintf(buf, sizeof buf, "%.*s", (int)glen[2], grp[2]);
  k = split_fields(buf, ':', f, fl, 8);
  if (k != 3 || !field_is_letter(f[0], fl[0]) || !field_is_uint(f[1], fl[1]) ||
      !field_is_uint(f[2], fl[2])) {
    snprintf(why, n, "group 3 '%s': expected <mshr type>:<entries>:<max merge>", buf);
    return false;
  }
  /* Group 4: <miss queue>[:<fifo entries>]. */
  snprintf(buf, sizeof buf, "%.*s", (int)glen[3], grp[3]);
  k = split_fields(buf, ':', f, fl, 8);
  if (k < 1 || k > 2 || !field_is_uint(f[0], fl[0]) || (k == 2 && !field_is_uint(f[1], fl[1]))) {
    snprintf(why, n, "group 4 '%s': expected <miss queue>[:<fifo entries>]", buf);
    return false;
  }
  /* Group 5: <data port width>. */
  if (groups == 5 && !field_is_uint(grp[4], glen[4])) {
    snprintf(why, n, "group 5 '%.*s': expected <data port width> in bytes", (int)glen[4], grp[4]);
    return false;
  }
  return true;
}
