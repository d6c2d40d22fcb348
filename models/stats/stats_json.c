/* stats_json — streaming JSON writer (see stats_json.h). */
#include "stats_json.h"

#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void stats_json_init(stats_json *w, FILE *out) {
  memset(w, 0, sizeof *w);
  w->out = out;
  w->first[0] = true;
}

static void indent(stats_json *w) {
  static const char newline_and_spaces[] = "\n                                                                ";
  _Static_assert(sizeof newline_and_spaces - 1 >= 1 + 2 * STATS_JSON_MAX_DEPTH, "room for the deepest level");
  fwrite(newline_and_spaces, 1, 1 + 2 * (size_t)w->depth, w->out);
}

/* Separator and layout before a new element at the current level. */
static void before_value(stats_json *w) {
  if (w->after_key) {
    w->after_key = false;
    return;
  }
  if (w->depth == 0) return;
  if (!w->first[w->depth]) fputc(',', w->out);
  if (w->compact[w->depth]) {
    if (!w->first[w->depth]) fputc(' ', w->out);
  } else {
    indent(w);
  }
  w->first[w->depth] = false;
}

static void open(stats_json *w, char c, bool compact) {
  before_value(w);
  fputc(c, w->out);
  if (w->depth + 1 >= STATS_JSON_MAX_DEPTH) {
    w->error = true;
    return;
  }
  w->depth++;
  w->first[w->depth] = true;
  /* Inside a compact container everything stays on one line. */
  w->compact[w->depth] = compact || w->compact[w->depth - 1];
}

static void close(stats_json *w, char c) {
  if (w->depth == 0) {
    w->error = true;
    return;
  }
  bool empty = w->first[w->depth];
  bool compact = w->compact[w->depth];
  w->depth--;
  if (!empty && !compact) indent(w);
  fputc(c, w->out);
  if (w->depth == 0) fputc('\n', w->out);
}

void stats_json_begin_object(stats_json *w) { open(w, '{', false); }
void stats_json_end_object(stats_json *w) { close(w, '}'); }
void stats_json_begin_array(stats_json *w, bool compact) { open(w, '[', compact); }
void stats_json_end_array(stats_json *w) { close(w, ']'); }

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when the bytes are not valid UTF-8
 * (overlong forms, surrogates and code points above U+10FFFF are rejected). */
static int utf8_length(const unsigned char *s) {
  unsigned char c = s[0];
  if (c < 0x80) return 1;
  int n;
  uint32_t cp;
  if ((c & 0xE0) == 0xC0) {
    n = 2;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    n = 3;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    n = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  for (int i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3F);
  }
  static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min_cp[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

/* Whether byte c is written as it is: printable ASCII other than the quote and the backslash. */
static bool plain_ascii(unsigned char c) { return c >= 0x20 && c < 0x7F && c != '"' && c != '\\'; }

void stats_json_write_escaped(FILE *out, const char *str) {
  const unsigned char *s = (const unsigned char *)(str ? str : "");
  fputc('"', out);
  while (*s) {
    /* the usual case: a run of plain ASCII goes out in one write */
    const unsigned char *run = s;
    while (plain_ascii(*s)) s++;
    if (s != run) fwrite(run, 1, (size_t)(s - run), out);
    if (!*s) break;
    unsigned char c = *s;
    switch (c) {
    case '"': fputs("\\\"", out); s++; continue;
    case '\\': fputs("\\\\", out); s++; continue;
    case '\b': fputs("\\b", out); s++; continue;
    case '\f': fputs("\\f", out); s++; continue;
    case '\n': fputs("\\n", out); s++; continue;
    case '\r': fputs("\\r", out); s++; continue;
    case '\t': fputs("\\t", out); s++; continue;
    default: break;
    }
    if (c < 0x20 || c == 0x7F) {
      fprintf(out, "\\u%04x", c);
      s++;
      continue;
    }
    int n = utf8_length(s);
    if (n == 0) {
      fputs("\\ufffd", out); /* replacement character for a stray byte */
      s++;
      continue;
    }
    fwrite(s, 1, (size_t)n, out);
    s += n;
  }
  fputc('"', out);
}

void stats_json_key(stats_json *w, const char *key) {
  before_value(w);
  stats_json_write_escaped(w->out, key);
  fputs(": ", w->out);
  w->after_key = true;
}

void stats_json_string(stats_json *w, const char *s) {
  before_value(w);
  stats_json_write_escaped(w->out, s);
}

/* The decimal digits of v, written without printf (stats files hold many thousands of counters). */
static void write_decimal(FILE *out, bool negative, uint64_t v) {
  char buf[24];
  char *p = buf + sizeof buf;
  do {
    *--p = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  if (negative) *--p = '-';
  fwrite(p, 1, (size_t)(buf + sizeof buf - p), out);
}

void stats_json_uint(stats_json *w, uint64_t v) {
  before_value(w);
  write_decimal(w->out, false, v);
}

void stats_json_int(stats_json *w, int64_t v) {
  before_value(w);
  write_decimal(w->out, v < 0, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

void stats_json_double(stats_json *w, double v) {
  before_value(w);
  if (!isfinite(v)) {
    fputs("null", w->out);
    return;
  }
  /* Shortest of %.15g/%.17g that reads back as the same double: 0.1 stays "0.1". */
  char buf[40];
  snprintf(buf, sizeof buf, "%.15g", v);
  if (strtod(buf, NULL) != v) snprintf(buf, sizeof buf, "%.17g", v); /* same locale both ways */
  stats_json_c_decimal_point(buf);
  fputs(buf, w->out);
}

void stats_json_bool(stats_json *w, bool v) {
  before_value(w);
  fputs(v ? "true" : "false", w->out);
}

void stats_json_null(stats_json *w) {
  before_value(w);
  fputs("null", w->out);
}

void stats_json_c_decimal_point(char *number) {
  const struct lconv *lc = localeconv();
  const char *point = lc && lc->decimal_point ? lc->decimal_point : ".";
  if (strcmp(point, ".") == 0 || !*point) return;
  size_t plen = strlen(point);
  char *hit = strstr(number, point);
  if (!hit) return;
  *hit = '.';
  memmove(hit + 1, hit + plen, strlen(hit + plen) + 1);
}

bool stats_json_ok(const stats_json *w) { return !w->error && w->depth == 0 && !w->after_key; }
