/* cache_spec — parses and checks GPGPU-Sim cache configuration strings (docs/cache.md lists every
 * field). Both the 4.x form with a leading type letter and a set-index letter
 * ("S:4:128:64,L:T:m:L:L,A:512:8,16:0,32") and the 3.x form without them
 * ("32:128:4,L:L:m:N,A:32:8,8") are accepted; the parser is strict where GPGPU-Sim's sscanf is
 * lenient: trailing text, spaces inside and missing fields are errors naming the field. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cache.h"

typedef struct spec_parser {
  const char *text;   /* the whole string, for messages */
  const char *option; /* option name or NULL */
  const char *p;      /* cursor */
  const char *begin;  /* first non-blank character */
  simtvp_diag *diag;
} spec_parser;

static simtvp_status spec_error(spec_parser *ps, simtvp_status status, const char *field,
                                const char *fmt_detail, const char *detail) {
  char what[256];
  snprintf(what, sizeof what, fmt_detail, detail);
  unsigned column = (unsigned)(ps->p - ps->text) + 1;
  if (ps->option) {
    simtvp_diag_set(ps->diag, status, "%s: cache configuration \"%s\": field '%s' (column %u): %s",
                    ps->option, ps->text, field, column, what);
    simtvp_diag_at_option(ps->diag, ps->option);
  } else {
    simtvp_diag_set(ps->diag, status, "cache configuration \"%s\": field '%s' (column %u): %s",
                    ps->text, field, column, what);
  }
  return status;
}

/* Describes what the cursor points at, for messages. */
static const char *spec_found(const spec_parser *ps, char *buf, size_t size) {
  if (*ps->p == '\0') return "the string ends";
  size_t n = strcspn(ps->p, ",:");
  if (n == 0) n = 1;
  if (n > 24) n = 24;
  snprintf(buf, size, "found '%.*s'", (int)n, ps->p);
  return buf;
}

static simtvp_status spec_uint(spec_parser *ps, const char *field, uint32_t *out) {
  char buf[48];
  if (!isdigit((unsigned char)*ps->p))
    return spec_error(ps, SIMTVP_ERR_PARSE, field, "expected a decimal number, %s",
                      spec_found(ps, buf, sizeof buf));
  uint64_t v = 0;
  const char *start = ps->p;
  while (isdigit((unsigned char)*ps->p)) {
    v = v * 10u + (uint64_t)(*ps->p - '0');
    if (v > UINT32_MAX) {
      ps->p = start;
      return spec_error(ps, SIMTVP_ERR_PARSE, field, "%s", "number too large");
    }
    ps->p++;
  }
  *out = (uint32_t)v;
  return SIMTVP_OK;
}

/* One letter out of `allowed`; returns its index in *index. */
static simtvp_status spec_letter(spec_parser *ps, const char *field, const char *allowed,
                                 const char *expected, int *index) {
  char buf[48], detail[160];
  const char *hit = (*ps->p && *ps->p != ',' && *ps->p != ':') ? strchr(allowed, *ps->p) : NULL;
  bool single = ps->p[0] && (ps->p[1] == ':' || ps->p[1] == ',' || ps->p[1] == '\0');
  if (!hit || !single) {
    snprintf(detail, sizeof detail, "expected %s, %s", expected, spec_found(ps, buf, sizeof buf));
    return spec_error(ps, SIMTVP_ERR_PARSE, field, "%s", detail);
  }
  *index = (int)(hit - allowed);
  ps->p++;
  return SIMTVP_OK;
}

static simtvp_status spec_sep(spec_parser *ps, char sep, const char *next_field) {
  char buf[48], detail[128];
  if (*ps->p != sep) {
    snprintf(detail, sizeof detail, "expected '%c' before it, %s", sep,
             spec_found(ps, buf, sizeof buf));
    return spec_error(ps, SIMTVP_ERR_PARSE, next_field, "%s", detail);
  }
  ps->p++;
  return SIMTVP_OK;
}

#define TRY(expr)                           \
  do {                                      \
    simtvp_status st_ = (expr);             \
    if (st_ != SIMTVP_OK) return st_;       \
  } while (0)

simtvp_status cache_spec_parse(const char *text, const char *option, cache_spec *spec,
                               simtvp_diag *diag) {
  if (!spec) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "cache_spec_parse: spec is NULL");
  memset(spec, 0, sizeof *spec);
  if (!text) {
    simtvp_diag_set(diag, SIMTVP_ERR_ARG, "%s%scache configuration string is missing",
                    option ? option : "", option ? ": " : "");
    if (option) simtvp_diag_at_option(diag, option);
    return SIMTVP_ERR_ARG;
  }
  spec_parser ps = {text, option, text, text, diag};
  while (isspace((unsigned char)*ps.p)) ps.p++;
  ps.begin = ps.p;
  size_t len = strlen(ps.p);
  while (len && isspace((unsigned char)ps.p[len - 1])) len--;

  if (len == 4 && strncmp(ps.p, "none", 4) == 0) {
    spec->disabled = true;
    return SIMTVP_OK;
  }
  if (len == 0) return spec_error(&ps, SIMTVP_ERR_PARSE, "type", "%s", "the string is empty");

  int k;
  /* Optional type letter (4.x); a digit here means the 3.x form without it. */
  if (isdigit((unsigned char)*ps.p)) {
    spec->type = CACHE_TYPE_NORMAL;
  } else {
    TRY(spec_letter(&ps, "type", "NS", "N (normal) or S (sectored)", &k));
    spec->type = (cache_type)k;
    TRY(spec_sep(&ps, ':', "sets"));
  }
  TRY(spec_uint(&ps, "sets", &spec->n_sets));
  TRY(spec_sep(&ps, ':', "line size"));
  TRY(spec_uint(&ps, "line size", &spec->line_bytes));
  TRY(spec_sep(&ps, ':', "associativity"));
  TRY(spec_uint(&ps, "associativity", &spec->assoc));
  TRY(spec_sep(&ps, ',', "replacement policy"));

  TRY(spec_letter(&ps, "replacement policy", "LF", "L (LRU) or F (FIFO)", &k));
  spec->replacement = (cache_replacement)k;
  TRY(spec_sep(&ps, ':', "write policy"));
  TRY(spec_letter(&ps, "write policy", "RBTEL",
                  "R (read-only), B (write-back), T (write-through), E (write-evict) or "
                  "L (local write-back, global write-through)",
                  &k));
  spec->write_policy = (cache_write_policy)k;
  TRY(spec_sep(&ps, ':', "allocation policy"));
  TRY(spec_letter(&ps, "allocation policy", "mfs", "m (on miss), f (on fill) or s (streaming)", &k));
  spec->alloc_policy = (cache_alloc_policy)k;
  TRY(spec_sep(&ps, ':', "write-allocate policy"));
  TRY(spec_letter(&ps, "write-allocate policy", "NWFL",
                  "N (no write-allocate), W (write-allocate), F (fetch-on-write) or "
                  "L (lazy fetch-on-read)",
                  &k));
  spec->write_alloc = (cache_write_alloc)k;
  spec->set_index = CACHE_INDEX_LINEAR;
  if (*ps.p == ':') { /* 4.x: set-index function */
    ps.p++;
    TRY(spec_letter(&ps, "set-index function", "LHPXC",
                    "L (linear), H (Fermi hash), P (IPOLY hash), X (XOR) or C (custom)", &k));
    spec->set_index = (cache_set_index)k;
  }
  TRY(spec_sep(&ps, ',', "MSHR type"));

  TRY(spec_letter(&ps, "MSHR type", "ASFT",
                  "A (associative), S (sector associative), F (texture FIFO) or "
                  "T (sector texture FIFO)",
                  &k));
  spec->mshr_type = (cache_mshr_type)k;
  bool tex = spec->mshr_type == CACHE_MSHR_TEX_FIFO || spec->mshr_type == CACHE_MSHR_SECTOR_TEX_FIFO;
  const char *f_entries = tex ? "fragment FIFO entries" : "MSHR entries";
  const char *f_merge = tex ? "request FIFO entries" : "MSHR max merge";
  const char *f_mq = tex ? "reorder buffer entries" : "miss queue size";
  TRY(spec_sep(&ps, ':', f_entries));
  TRY(spec_uint(&ps, f_entries, &spec->mshr_entries));
  TRY(spec_sep(&ps, ':', f_merge));
  TRY(spec_uint(&ps, f_merge, &spec->mshr_max_merge));
  TRY(spec_sep(&ps, ',', f_mq));
  TRY(spec_uint(&ps, f_mq, &spec->miss_queue_entries));
  bool have_rfifo = false;
  if (*ps.p == ':') {
    ps.p++;
    TRY(spec_uint(&ps, "result FIFO entries", &spec->result_fifo_entries));
    have_rfifo = true;
    if (*ps.p == ',') {
      ps.p++;
      TRY(spec_uint(&ps, "data port width", &spec->data_port_bytes));
    }
  }
  if (tex && !have_rfifo)
    return spec_error(&ps, SIMTVP_ERR_PARSE, "result FIFO entries", "%s",
                      "a texture (F/T) MSHR needs ':<result FIFO entries>' after the reorder "
                      "buffer size");
  if ((size_t)(ps.p - ps.begin) != len) {
    char buf[48];
    return spec_error(&ps, SIMTVP_ERR_PARSE, "end", "unexpected text after the last field, %s",
                      spec_found(&ps, buf, sizeof buf));
  }
  ps.p = ps.begin; /* validation messages point at the start */
  return cache_spec_validate(spec, option, diag);
}

static bool is_pow2(uint32_t v) { return v && !(v & (v - 1)); }

static simtvp_status spec_invalid(const cache_spec *spec, const char *option, simtvp_diag *diag,
                                  simtvp_status status, const char *field, const char *why) {
  char s[160];
  cache_spec_format(spec, s, sizeof s);
  if (option) {
    simtvp_diag_set(diag, status, "%s: cache configuration \"%s\": field '%s': %s", option, s,
                    field, why);
    simtvp_diag_at_option(diag, option);
  } else {
    simtvp_diag_set(diag, status, "cache configuration \"%s\": field '%s': %s", s, field, why);
  }
  return status;
}

simtvp_status cache_spec_validate(const cache_spec *spec, const char *option, simtvp_diag *diag) {
  if (!spec) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "cache_spec_validate: spec is NULL");
  if (spec->disabled) return SIMTVP_OK;
  bool tex = spec->mshr_type == CACHE_MSHR_TEX_FIFO || spec->mshr_type == CACHE_MSHR_SECTOR_TEX_FIFO;
  if (spec->n_sets == 0)
    return spec_invalid(spec, option, diag, SIMTVP_ERR_CONFIG, "sets", "must be at least 1");
  if (!is_pow2(spec->line_bytes) || spec->line_bytes < 4)
    return spec_invalid(spec, option, diag, SIMTVP_ERR_CONFIG, "line size",
                        "must be a power of two of at least 4 bytes");
  if (spec->assoc == 0)
    return spec_invalid(spec, option, diag, SIMTVP_ERR_CONFIG, "associativity",
                        "must be at least 1");
  if (spec->type == CACHE_TYPE_SECTOR && spec->line_bytes != MEM_LINE_BYTES)
    return spec_invalid(spec, option, diag, SIMTVP_ERR_CONFIG, "line size",
                        "a sectored cache needs 128-byte lines (four 32-byte sectors)");
  if (spec->mshr_entries == 0)
    return spec_invalid(spec, option, diag, SIMTVP_ERR_CONFIG,
                        tex ? "fragment FIFO entries" : "MSHR entries", "must be at least 1");
  if (spec->mshr_max_merge == 0)
    return spec_invalid(spec, option, diag, SIMTVP_ERR_CONFIG,
                        tex ? "request FIFO entries" : "MSHR max merge", "must be at least 1");
  if (spec->miss_queue_entries == 0)
    return spec_invalid(spec, option, diag, SIMTVP_ERR_CONFIG,
                        tex ? "reorder buffer entries" : "miss queue size", "must be at least 1");
  if (spec->data_port_bytes != 0 &&
      (spec->data_port_bytes > spec->line_bytes || spec->line_bytes % spec->data_port_bytes))
    return spec_invalid(spec, option, diag, SIMTVP_ERR_CONFIG, "data port width",
                        "must divide the line size");
  bool on_fill = spec->alloc_policy != CACHE_ALLOC_ON_MISS;
  /* GPGPU-Sim's reasons: a fill that evicts a dirty line needs room for the write-back, and a
   * congested memory system can then stall the fill behind its own write-back (deadlock). */
  if (on_fill && spec->write_policy == CACHE_WP_WRITE_BACK)
    return spec_invalid(spec, option, diag, SIMTVP_ERR_CONFIG, "allocation policy",
                        "a write-back cache cannot allocate on fill (a fill could wait on its own "
                        "write-back); use 'm'");
  if (on_fill && (spec->write_alloc == CACHE_WA_FETCH_ON_WRITE ||
                  spec->write_alloc == CACHE_WA_LAZY_FETCH_ON_READ))
    return spec_invalid(spec, option, diag, SIMTVP_ERR_CONFIG, "write-allocate policy",
                        "fetch-on-write and lazy fetch-on-read need allocation on miss ('m')");
  switch (spec->set_index) {
    case CACHE_INDEX_LINEAR:
      break;
    case CACHE_INDEX_FERMI_HASH:
      if (spec->n_sets != 32 && spec->n_sets != 64)
        return spec_invalid(spec, option, diag, SIMTVP_ERR_CONFIG, "set-index function",
                            "the Fermi hash (H) is defined for 32 or 64 sets");
      break;
    case CACHE_INDEX_IPOLY:
      if (!is_pow2(spec->n_sets) || spec->n_sets > 65536)
        return spec_invalid(spec, option, diag, SIMTVP_ERR_CONFIG, "set-index function",
                            "the IPOLY hash (P) needs a power-of-two number of sets up to 65536");
      break;
    case CACHE_INDEX_XOR:
      if (!is_pow2(spec->n_sets))
        return spec_invalid(spec, option, diag, SIMTVP_ERR_CONFIG, "set-index function",
                            "the XOR hash (X) needs a power-of-two number of sets");
      break;
    case CACHE_INDEX_CUSTOM:
      return spec_invalid(spec, option, diag, SIMTVP_ERR_UNSUPPORTED, "set-index function",
                          "the custom set-index function (C) is not implemented; use L, H, P or X");
  }
  return SIMTVP_OK;
}

size_t cache_spec_format(const cache_spec *spec, char *buf, size_t size) {
  static const char types[] = "NS", repl[] = "LF", wp[] = "RBTEL", alloc[] = "mfs", wa[] = "NWFL",
                    sif[] = "LHPXC", mshr[] = "ASFT";
  int n;
  if (spec->disabled) {
    n = snprintf(buf, size, "none");
  } else {
    /* GPGPU-Sim wants exactly 14 fields for a texture MSHR: no port width unless one is set */
    bool tex = spec->mshr_type == CACHE_MSHR_TEX_FIFO || spec->mshr_type == CACHE_MSHR_SECTOR_TEX_FIFO;
    char port[16] = "";
    if (!tex || spec->data_port_bytes) snprintf(port, sizeof port, ",%u", spec->data_port_bytes);
    n = snprintf(buf, size, "%c:%u:%u:%u,%c:%c:%c:%c:%c,%c:%u:%u,%u:%u%s", types[spec->type & 1],
                 spec->n_sets, spec->line_bytes, spec->assoc, repl[spec->replacement & 1],
                 wp[spec->write_policy % 5], alloc[spec->alloc_policy % 3],
                 wa[spec->write_alloc & 3], sif[spec->set_index % 5], mshr[spec->mshr_type & 3],
                 spec->mshr_entries, spec->mshr_max_merge, spec->miss_queue_entries,
                 spec->result_fifo_entries, port);
  }
  return n < 0 ? 0 : (size_t)n;
}

uint64_t cache_spec_capacity(const cache_spec *spec) {
  if (spec->disabled) return 0;
  return (uint64_t)spec->n_sets * spec->assoc * spec->line_bytes;
}
