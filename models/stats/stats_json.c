/* stats_json — streaming JSON writer (see stats_json.h). */
#include "stats_json.h"

#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Where text goes: a buffer in front of a stream (the writer's, or a small one on the stack for
 * stats_json_write_escaped), so each piece costs a copy, not a stdio call. */
typedef struct json_sink {
  FILE *out;
  char *buf;
  size_t n, cap;
} json_sink;

static void sink_flush(json_sink *k) {
  if (k->n) fwrite(k->buf, 1, k->n, k->out);
  k->n = 0;
}

static void sink_put(json_sink *k, const char *s, size_t n) {
  if (n > k->cap - k->n) {
    sink_flush(k);
    if (n > k->cap) {
      fwrite(s, 1, n, k->out);
      return;
    }
  }
  memcpy(k->buf + k->n, s, n);
  k->n += n;
}

static void sink_putc(json_sink *k, char c) {
  if (k->n == k->cap) sink_flush(k);
  k->buf[k->n++] = c;
}

static void sink_puts(json_sink *k, const char *s) { sink_put(k, s, strlen(s)); }

/* The writer's buffer as a sink (the writer keeps only the fill level between calls). */
static json_sink sink_of(stats_json *w) { return (json_sink){w->out, w->buf, w->n_buf, sizeof w->buf}; }
static void sink_done(stats_json *w, const json_sink *k) { w->n_buf = k->n; }

static void put(stats_json *w, const char *s, size_t n) {
  json_sink k = sink_of(w);
  sink_put(&k, s, n);
  sink_done(w, &k);
}

static void putch(stats_json *w, char c) {
  if (w->n_buf == sizeof w->buf) stats_json_flush(w);
  w->buf[w->n_buf++] = c;
}

void stats_json_init(stats_json *w, FILE *out) {
  w->out = out;
  w->n_buf = 0;
  w->depth = 0;
  memset(w->first, 0, sizeof w->first);
  memset(w->compact, 0, sizeof w->compact);
  w->after_key = w->error = false;
  w->first[0] = true;
}

void stats_json_flush(stats_json *w) {
  if (w->n_buf) fwrite(w->buf, 1, w->n_buf, w->out);
  w->n_buf = 0;
}

static void indent(stats_json *w) {
  static const char newline_and_spaces[] = "\n                                                                ";
  _Static_assert(sizeof newline_and_spaces - 1 >= 1 + 2 * STATS_JSON_MAX_DEPTH, "room for the deepest level");
  put(w, newline_and_spaces, 1 + 2 * (size_t)w->depth);
}

/* Separator and layout before a new element at the current level. */
static void before_value(stats_json *w) {
  if (w->after_key) {
    w->after_key = false;
    return;
  }
  if (w->depth == 0) return;
  if (!w->first[w->depth]) putch(w, ',');
  if (w->compact[w->depth]) {
    if (!w->first[w->depth]) putch(w, ' ');
  } else {
    indent(w);
  }
  w->first[w->depth] = false;
}

static void open(stats_json *w, char c, bool compact) {
  before_value(w);
  putch(w, c);
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
  putch(w, c);
  if (w->depth == 0) {
    putch(w, '\n');
    stats_json_flush(w);
  }
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

/* Whether all eight bytes of x are plain_ascii, tested together: none below 0x20, none with the
 * high bit, none equal to 0x7F, '"' or '\\' (the zero-byte test of each is exact for "any"). */
static bool plain_word(uint64_t x) {
  const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
#define JSON_HAS_ZERO(v) (((v) - ones) & ~(v) & highs)
  uint64_t below_space = (x - 0x20 * ones) & ~x & highs;
  uint64_t odd = JSON_HAS_ZERO(x ^ (0x7F * ones)) | JSON_HAS_ZERO(x ^ ('"' * ones)) |
                 JSON_HAS_ZERO(x ^ ('\\' * ones));
#undef JSON_HAS_ZERO
  return !(below_space | odd | (x & highs));
}

static void escape(json_sink *k, const char *str) {
  const unsigned char *s = (const unsigned char *)(str ? str : "");
  const unsigned char *end = s + strlen((const char *)s);
  sink_putc(k, '"');
  while (s < end) {
    /* the usual case: a run of plain ASCII, tested eight bytes at a time, goes out in one copy */
    const unsigned char *run = s;
    for (uint64_t x; end - s >= 8 && (memcpy(&x, s, 8), plain_word(x));) s += 8;
    while (plain_ascii(*s)) s++;
    if (s != run) sink_put(k, (const char *)run, (size_t)(s - run));
    if (s == end) break;
    unsigned char c = *s;
    switch (c) {
    case '"': sink_puts(k, "\\\""); s++; continue;
    case '\\': sink_puts(k, "\\\\"); s++; continue;
    case '\b': sink_puts(k, "\\b"); s++; continue;
    case '\f': sink_puts(k, "\\f"); s++; continue;
    case '\n': sink_puts(k, "\\n"); s++; continue;
    case '\r': sink_puts(k, "\\r"); s++; continue;
    case '\t': sink_puts(k, "\\t"); s++; continue;
    default: break;
    }
    if (c < 0x20 || c == 0x7F) {
      char u[8];
      snprintf(u, sizeof u, "\\u%04x", c);
      sink_puts(k, u);
      s++;
      continue;
    }
    int n = utf8_length(s);
    if (n == 0) {
      sink_puts(k, "\\ufffd"); /* replacement character for a stray byte */
      s++;
      continue;
    }
    sink_put(k, (const char *)s, (size_t)n);
    s += n;
  }
  sink_putc(k, '"');
}

void stats_json_write_escaped(FILE *out, const char *str) {
  char buf[256];
  json_sink k = {out, buf, 0, sizeof buf};
  escape(&k, str);
  sink_flush(&k);
}

void stats_json_key(stats_json *w, const char *key) {
  before_value(w);
  json_sink k = sink_of(w);
  escape(&k, key);
  sink_put(&k, ": ", 2);
  sink_done(w, &k);
  w->after_key = true;
}

void stats_json_string(stats_json *w, const char *s) {
  before_value(w);
  json_sink k = sink_of(w);
  escape(&k, s);
  sink_done(w, &k);
}

/* The decimal digits of v, written without printf (stats files hold many thousands of counters). */
static void write_decimal(stats_json *w, bool negative, uint64_t v) {
  char buf[24];
  char *p = buf + sizeof buf;
  do {
    *--p = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  if (negative) *--p = '-';
  put(w, p, (size_t)(buf + sizeof buf - p));
}

void stats_json_uint(stats_json *w, uint64_t v) {
  before_value(w);
  write_decimal(w, false, v);
}

void stats_json_int(stats_json *w, int64_t v) {
  before_value(w);
  write_decimal(w, v < 0, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

void stats_json_double(stats_json *w, double v) {
  before_value(w);
  if (!isfinite(v)) {
    put(w, "null", 4);
    return;
  }
  /* Shortest of %.15g/%.17g that reads back as the same double: 0.1 stays "0.1". */
  char buf[40];
  snprintf(buf, sizeof buf, "%.15g", v);
  if (strtod(buf, NULL) != v) snprintf(buf, sizeof buf, "%.17g", v); /* same locale both ways */
  stats_json_c_decimal_point(buf);
  put(w, buf, strlen(buf));
}

void stats_json_bool(stats_json *w, bool v) {
  before_value(w);
  if (v)
    put(w, "true", 4);
  else
    put(w, "false", 5);
}

void stats_json_null(stats_json *w) {
  before_value(w);
  put(w, "null", 4);
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
