/* stats_json — a small streaming JSON writer (RFC 8259) used for the statistics file.
 *
 * The writer tracks nesting and commas itself, so callers only say what comes next. Strings are
 * escaped (quote, backslash, control characters as \u00XX) and invalid UTF-8 bytes are replaced by
 * U+FFFD, so any kernel or counter name yields a valid document. Non-finite doubles (a ratio with a
 * zero denominator) are written as null, since JSON has no NaN. Output is indented two spaces per
 * level, with short arrays of numbers kept on one line so files stay diffable. */
#ifndef SIMTVP_STATS_JSON_H
#define SIMTVP_STATS_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STATS_JSON_MAX_DEPTH 32

/* Bytes the writer gathers before it hands them to the stream: a statistics file is a few
 * hundred thousand small pieces, and one stdio call each (with its lock) cost more than the
 * formatting itself. */
#define STATS_JSON_BUFFER 4096

typedef struct stats_json {
  FILE *out;
  size_t n_buf;                     /* bytes waiting in buf */
  char buf[STATS_JSON_BUFFER];
  int depth;
  bool first[STATS_JSON_MAX_DEPTH]; /* no element written yet at this level */
  bool compact[STATS_JSON_MAX_DEPTH]; /* this level's elements go on one line */
  bool after_key;                   /* a key was written; the value follows on the same line */
  bool error;                       /* nesting misuse (too deep, unbalanced) */
} stats_json;

/* Output reaches the stream when the outermost container closes and at stats_json_flush; in
 * between it may wait in the writer's buffer. */
void stats_json_init(stats_json *w, FILE *out);
void stats_json_flush(stats_json *w);

/* Containers. A compact container writes its elements on one line. */
void stats_json_begin_object(stats_json *w);
void stats_json_end_object(stats_json *w);
void stats_json_begin_array(stats_json *w, bool compact);
void stats_json_end_array(stats_json *w);

/* Inside an object: the key of the next value. */
void stats_json_key(stats_json *w, const char *key);

/* Values. */
void stats_json_string(stats_json *w, const char *s);
void stats_json_uint(stats_json *w, uint64_t v);
void stats_json_int(stats_json *w, int64_t v);
void stats_json_double(stats_json *w, double v);
void stats_json_bool(stats_json *w, bool v);
void stats_json_null(stats_json *w);

/* Writes s as a JSON string literal (quotes included) to out. */
void stats_json_write_escaped(FILE *out, const char *s);

/* Rewrites a number printed with printf in the current locale to use '.' as the decimal point,
 * so output stays valid (and parseable by scripts) even if the program set a locale like de_DE. */
void stats_json_c_decimal_point(char *number);

/* True when every container was closed and nothing was misused. */
bool stats_json_ok(const stats_json *w);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_STATS_JSON_H */
