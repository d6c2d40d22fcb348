/* ptx_lex — PTX tokens (PTX ISA §4: syntax), numeric literals (§4.5) and constant expressions
 * (§4.6), plus the parser's error and warning reporting.
 *
 * A word is an identifier, a directive or a whole dotted opcode (`ld.global.v4.f32`,
 * `mbarrier.try_wait.parity.shared::cta.b64`): dots and `::` stay inside the word and the
 * instruction parser splits them. Errors are sticky: after the first one the lexer only returns
 * EOF, so every loop of the parser ends without extra checks. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_internal.h"

/* ---- errors ---------------------------------------------------------------------------------- */

/* Copies the text of source line `line` (trimmed, at most 100 chars) into buf. */
static void line_text(const ptx_parser *p, uint32_t line, char *buf, size_t size) {
  const char *s = p->src;
  uint32_t l = 1;
  while (s < p->end && l < line) {
    if (*s == '\n') l++;
    s++;
  }
  while (s < p->end && (*s == ' ' || *s == '\t')) s++;
  size_t n = 0;
  while (s + n < p->end && s[n] != '\n' && s[n] != '\r' && n + 1 < size && n < 100) n++;
  for (size_t i = 0; i < n; i++) buf[i] = (s[i] >= 32 && s[i] < 127) ? s[i] : '?';
  while (n > 0 && (buf[n - 1] == ' ' || buf[n - 1] == '\t')) n--;
  buf[n] = '\0';
}

static bool verror(ptx_parser *p, simtvp_status st, uint32_t line, uint32_t col, const char *fmt,
                   va_list ap) {
  if (p->failed) return false;
  p->failed = true;
  char what[512];
  vsnprintf(what, sizeof what, fmt, ap);
  char text[128];
  line_text(p, line, text, sizeof text);
  simtvp_diag_set(p->diag, st, "%s:%u:%u: %s (in \"%s\")", p->source_name, line, col, what, text);
  simtvp_diag_at_file(p->diag, p->source_name, line, col);
  return false;
}

bool ptx_error_at(ptx_parser *p, uint32_t line, uint32_t col, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  verror(p, SIMTVP_ERR_PARSE, line, col, fmt, ap);
  va_end(ap);
  return false;
}

bool ptx_error_tok(ptx_parser *p, const ptx_token *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  verror(p, SIMTVP_ERR_PARSE, t->line, t->col, fmt, ap);
  va_end(ap);
  return false;
}

void ptx_warn_at(ptx_parser *p, uint32_t line, uint32_t col, const char *fmt, ...) {
  if (!p->warn || !p->warn->emit) return;
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  simtvp_msg(p->warn, SIMTVP_WARNING, "%s:%u:%u: warning: %s", p->source_name, line, col, what);
}

bool ptx_nomem(ptx_parser *p) {
  if (p->failed) return false;
  p->failed = true;
  simtvp_diag_set(p->diag, SIMTVP_ERR_NOMEM, "%s:%u: out of memory (or over %u table entries) while parsing",
                  p->source_name, p->tok.line, PTX_LIMIT_ELEMS);
  simtvp_diag_at_file(p->diag, p->source_name, p->tok.line, p->tok.col);
  return false;
}

bool ptx_limit(ptx_parser *p, const ptx_token *at, const char *what) {
  if (p->failed) return false;
  if (!at) at = &p->tok;
  p->failed = true;
  char text[128];
  line_text(p, at->line, text, sizeof text);
  simtvp_diag_set(p->diag, SIMTVP_ERR_LIMIT, "%s:%u:%u: %s exceeds the parser's limit (in \"%s\")", p->source_name,
                  at->line, at->col, what, text);
  simtvp_diag_at_file(p->diag, p->source_name, at->line, at->col);
  return false;
}

/* ---- tokens ---------------------------------------------------------------------------------- */

static bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_ident(char c) { return is_alpha(c) || is_digit(c) || c == '_' || c == '$'; }

void ptx_lex_init(ptx_parser *p, const char *text, size_t len) {
  p->src = p->cur = p->line_start = text;
  p->end = text + len;
  if (len >= 3 && (unsigned char)text[0] == 0xef && (unsigned char)text[1] == 0xbb && (unsigned char)text[2] == 0xbf)
    p->cur = p->line_start = text + 3; /* UTF-8 byte-order mark of files saved by editors */
  p->line = 1;
  p->has_peek = false;
  ptx_next(p);
}

static void lex_one(ptx_parser *p, ptx_token *t) {
  const char *c = p->cur, *e = p->end;
  for (;;) {
    while (c < e && (*c == ' ' || *c == '\t' || *c == '\r' || *c == '\n' || *c == '\f' || *c == '\v')) {
      if (*c == '\n') {
        p->line++;
        p->line_start = c + 1;
      }
      c++;
    }
    if (c + 1 < e && c[0] == '/' && c[1] == '/') {
      while (c < e && *c != '\n') c++;
      continue;
    }
    if (c + 1 < e && c[0] == '/' && c[1] == '*') {
      uint32_t l0 = p->line, c0 = (uint32_t)(c - p->line_start) + 1;
      c += 2;
      while (c + 1 < e && !(c[0] == '*' && c[1] == '/')) {
        if (*c == '\n') {
          p->line++;
          p->line_start = c + 1;
        }
        c++;
      }
      if (c + 1 >= e) {
        p->cur = e;
        ptx_error_at(p, l0, c0, "unterminated /* comment");
        t->kind = PTX_TOK_EOF;
        return;
      }
      c += 2;
      continue;
    }
    break;
  }
  t->line = p->line;
  uint64_t col = (uint64_t)(c - p->line_start) + 1;
  t->col = col > UINT32_MAX ? UINT32_MAX : (uint32_t)col;
  t->s = c;
  t->c = 0;
  if (c >= e) {
    t->kind = PTX_TOK_EOF;
    t->len = 0;
    p->cur = c;
    return;
  }
  const char *s = c;
  if (is_digit(*c) || (*c == '.' && c + 1 < e && is_digit(c[1]))) {
    bool hexish = c + 1 < e && c[0] == '0' &&
                  (c[1] == 'x' || c[1] == 'X' || c[1] == 'f' || c[1] == 'F' || c[1] == 'd' || c[1] == 'D');
    c++;
    while (c < e && (is_ident(*c) || *c == '.' ||
                     (!hexish && (*c == '+' || *c == '-') && (c[-1] == 'e' || c[-1] == 'E'))))
      c++;
    t->kind = PTX_TOK_NUMBER;
  } else if (is_alpha(*c) || *c == '_' || *c == '$' || *c == '.' ||
             (*c == '%' && c + 1 < e && (is_ident(c[1])))) {
    c++;
    while (c < e) {
      if (is_ident(*c) || *c == '.') c++;
      else if (*c == ':' && c + 2 < e && c[1] == ':' && is_ident(c[2])) c += 2;
      else break;
    }
    t->kind = PTX_TOK_WORD;
  } else if (*c == '"') {
    c++;
    s = c;
    while (c < e && *c != '"' && *c != '\n') {
      if (*c == '\\' && c + 1 < e && c[1] != '\n') c++;
      c++;
    }
    if (c >= e || *c != '"') {
      p->cur = c;
      ptx_error_at(p, t->line, t->col, "unterminated string");
      t->kind = PTX_TOK_EOF;
      t->len = 0;
      return;
    }
    t->kind = PTX_TOK_STRING;
    t->s = s;
    t->len = (uint32_t)(c - s);
    p->cur = c + 1;
    return;
  } else if (strchr(",;(){}[]<>+-*/|!@=:~&^%?", *c) && *c) {
    t->kind = PTX_TOK_PUNCT;
    t->c = *c;
    c++;
  } else {
    p->cur = c + 1;
    unsigned char ch = (unsigned char)*c;
    if (ch >= 32 && ch < 127) ptx_error_at(p, t->line, t->col, "unexpected character '%c'", ch);
    else ptx_error_at(p, t->line, t->col, "unexpected byte 0x%02x", ch);
    t->kind = PTX_TOK_EOF;
    t->len = 0;
    return;
  }
  uint64_t len = (uint64_t)(c - s);
  t->len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
  p->cur = c;
}

void ptx_next(ptx_parser *p) {
  if (p->failed) {
    p->tok.kind = PTX_TOK_EOF;
    p->tok.len = 0;
    p->has_peek = false;
    return;
  }
  if (p->has_peek) {
    p->tok = p->peek;
    p->has_peek = false;
  } else {
    lex_one(p, &p->tok);
  }
  if (p->failed) p->tok.kind = PTX_TOK_EOF;
}

const ptx_token *ptx_peek(ptx_parser *p) {
  if (!p->has_peek) {
    if (p->failed) {
      p->peek.kind = PTX_TOK_EOF;
      p->peek.len = 0;
    } else {
      lex_one(p, &p->peek);
    }
    p->has_peek = true;
  }
  return &p->peek;
}

bool ptx_is_punct(const ptx_token *t, char c) { return t->kind == PTX_TOK_PUNCT && t->c == c; }

bool ptx_is_word(const ptx_token *t, const char *w) {
  size_t n = strlen(w);
  return t->kind == PTX_TOK_WORD && t->len == n && memcmp(t->s, w, n) == 0;
}

bool ptx_accept(ptx_parser *p, char c) {
  if (!ptx_is_punct(&p->tok, c)) return false;
  ptx_next(p);
  return true;
}

static void describe(const ptx_token *t, char *buf, size_t size) {
  switch (t->kind) {
  case PTX_TOK_EOF: snprintf(buf, size, "end of input"); break;
  case PTX_TOK_STRING: snprintf(buf, size, "string \"%.*s\"", (int)(t->len > 40 ? 40 : t->len), t->s); break;
  default: snprintf(buf, size, "'%.*s'", (int)(t->len > 60 ? 60 : t->len), t->s); break;
  }
}

bool ptx_expect(ptx_parser *p, char c, const char *where) {
  if (ptx_accept(p, c)) return true;
  if (p->failed) return false;
  char got[96];
  describe(&p->tok, got, sizeof got);
  return ptx_error_tok(p, &p->tok, "expected '%c' %s, found %s", c, where, got);
}

void ptx_skip_line(ptx_parser *p, uint32_t line) {
  while (p->tok.kind != PTX_TOK_EOF && p->tok.line == line) ptx_next(p);
}

void ptx_skip_statement(ptx_parser *p) {
  int depth = 0;
  while (p->tok.kind != PTX_TOK_EOF) {
    if (ptx_is_punct(&p->tok, '{')) depth++;
    else if (ptx_is_punct(&p->tok, '}')) {
      if (depth == 0) return; /* the enclosing block's brace: not ours */
      if (--depth == 0) {
        ptx_next(p);
        if (ptx_is_punct(&p->tok, ';')) ptx_next(p);
        return;
      }
    } else if (ptx_is_punct(&p->tok, ';') && depth == 0) {
      ptx_next(p);
      return;
    }
    ptx_next(p);
  }
}

/* ---- numbers --------------------------------------------------------------------------------- */

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool ptx_parse_number_text(const char *s, uint32_t len, ptx_number *out) {
  out->is_float = out->is_f32 = false;
  out->bits = 0;
  if (len == 0) return false;
  if (len >= 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
    uint32_t digits = (s[1] == 'f' || s[1] == 'F') ? 8 : 16;
    if (len != 2 + digits) return false;
    uint64_t v = 0;
    for (uint32_t i = 2; i < len; i++) {
      int h = hexval(s[i]);
      if (h < 0) return false;
      v = v << 4 | (uint64_t)h;
    }
    out->is_float = true;
    out->is_f32 = digits == 8;
    out->bits = v;
    return true;
  }
  bool has_dot_or_exp = false;
  bool hex = len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  if (!hex)
    for (uint32_t i = 0; i < len; i++)
      if (s[i] == '.' || s[i] == 'e' || s[i] == 'E') has_dot_or_exp = true;
  if (has_dot_or_exp) {
    char buf[80];
    if (len >= sizeof buf) return false;
    for (uint32_t i = 0; i < len; i++) {
      char ch = s[i];
      if (!(is_digit(ch) || ch == '.' || ch == 'e' || ch == 'E' || ch == '+' || ch == '-')) return false;
      buf[i] = ch;
    }
    buf[len] = '\0';
    char *endp = NULL;
    double d = strtod(buf, &endp);
    if (endp != buf + len) return false;
    memcpy(&out->bits, &d, sizeof d);
    out->is_float = true;
    return true;
  }
  uint32_t i = 0, base = 10;
  if (hex) {
    base = 16;
    i = 2;
  } else if (len >= 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
    base = 2;
    i = 2;
  } else if (len >= 2 && s[0] == '0') {
    base = 8;
    i = 1;
  }
  uint32_t end = len;
  if (end > i && (s[end - 1] == 'U' || s[end - 1] == 'u')) end--;
  if (end <= i) return false;
  uint64_t v = 0;
  for (; i < end; i++) {
    int h = hexval(s[i]);
    if (h < 0 || (uint32_t)h >= base) return false;
    if (v > (UINT64_MAX - (uint64_t)h) / base) return false; /* overflow */
    v = v * base + (uint64_t)h;
  }
  out->bits = v;
  return true;
}

/* ---- constant expressions -------------------------------------------------------------------- */

static bool expr_binary(ptx_parser *p, int min_prec, int depth, uint64_t *out);

static bool expr_unary(ptx_parser *p, int depth, uint64_t *out) {
  if (depth > PTX_LIMIT_EXPR_DEPTH) return ptx_error_tok(p, &p->tok, "expression nested too deeply");
  const ptx_token t = p->tok;
  if (t.kind == PTX_TOK_PUNCT && (t.c == '-' || t.c == '~' || t.c == '!' || t.c == '+')) {
    ptx_next(p);
    uint64_t v;
    if (!expr_unary(p, depth + 1, &v)) return false;
    *out = t.c == '-' ? (uint64_t)0 - v : t.c == '~' ? ~v : t.c == '!' ? (uint64_t)(v == 0) : v;
    return true;
  }
  if (ptx_is_punct(&t, '(')) {
    ptx_next(p);
    if (!expr_binary(p, 0, depth + 1, out)) return false;
    return ptx_expect(p, ')', "to close the expression");
  }
  if (ptx_is_word(&t, "WARP_SZ")) { /* PTX's predefined identifier for the warp size (nvcc: warpSize) */
    ptx_next(p);
    *out = 32;
    return true;
  }
  if (t.kind == PTX_TOK_NUMBER) {
    ptx_number n;
    if (!ptx_parse_number_text(t.s, t.len, &n))
      return ptx_error_tok(p, &t, "malformed number '%.*s'", (int)(t.len > 40 ? 40 : t.len), t.s);
    if (n.is_float)
      return ptx_error_tok(p, &t, "floating-point literal '%.*s' where an integer is needed",
                           (int)(t.len > 40 ? 40 : t.len), t.s);
    ptx_next(p);
    *out = n.bits;
    return true;
  }
  if (p->failed) return false;
  char got[96];
  describe(&t, got, sizeof got);
  return ptx_error_tok(p, &t, "expected an integer constant, found %s", got);
}

static int binop_prec(const ptx_parser *p, char *op) {
  const ptx_token *t = &p->tok;
  if (t->kind != PTX_TOK_PUNCT) return -1;
  *op = t->c;
  switch (t->c) {
  case '*': case '/': case '%': return 10;
  case '+': case '-': return 9;
  case '<': case '>': return 8; /* << >> (checked for doubling by the caller) */
  case '&': return 5;
  case '^': return 4;
  case '|': return 3;
  default: return -1;
  }
}

static bool expr_binary(ptx_parser *p, int min_prec, int depth, uint64_t *out) {
  if (depth > PTX_LIMIT_EXPR_DEPTH) return ptx_error_tok(p, &p->tok, "expression nested too deeply");
  uint64_t lhs;
  if (!expr_unary(p, depth + 1, &lhs)) return false;
  for (;;) {
    char op = 0;
    int prec = binop_prec(p, &op);
    if (prec < 0 || prec < min_prec) break;
    ptx_token optok = p->tok;
    if (op == '<' || op == '>') {
      const ptx_token *n = ptx_peek(p);
      if (!ptx_is_punct(n, op) || n->s != optok.s + 1) break; /* a lone < or > ends the expression */
      ptx_next(p);
    }
    ptx_next(p);
    uint64_t rhs;
    if (!expr_binary(p, prec + 1, depth + 1, &rhs)) return false;
    switch (op) {
    case '*': lhs *= rhs; break;
    case '/':
    case '%':
      if (rhs == 0) return ptx_error_tok(p, &optok, "division by zero in a constant expression");
      if ((int64_t)rhs == -1) lhs = op == '/' ? (uint64_t)0 - lhs : 0; /* avoids INT64_MIN / -1 */
      else lhs = op == '/' ? (uint64_t)((int64_t)lhs / (int64_t)rhs) : (uint64_t)((int64_t)lhs % (int64_t)rhs);
      break;
    case '+': lhs += rhs; break;
    case '-': lhs -= rhs; break;
    case '<': lhs = rhs >= 64 ? 0 : lhs << rhs; break;
    case '>': lhs = rhs >= 64 ? ((int64_t)lhs < 0 ? UINT64_MAX : 0) : (uint64_t)((int64_t)lhs >> rhs); break;
    case '&': lhs &= rhs; break;
    case '^': lhs ^= rhs; break;
    case '|': lhs |= rhs; break;
    }
  }
  *out = lhs;
  return true;
}

bool ptx_const_expr(ptx_parser *p, int64_t *out) {
  uint64_t v;
  if (!expr_binary(p, 0, 0, &v)) return false;
  *out = (int64_t)v;
  return true;
}
