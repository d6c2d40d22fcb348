/* ptx_parse — PTX modules (PTX ISA §11 directives, §5 state spaces and variables, §7 ABI):
 * module directives, variables and their initialisers, .entry/.func with parameters, register
 * declarations, function bodies with scoped { } blocks and call sequences, labels, .loc/.file,
 * then the layout of every state space and the final, read-only ptx_module in one arena. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_internal.h"

/* A function flag used only inside layout_module (never visible in a module). */
#define PTX_FN_USES_MODULE_SHARED_ (1u << 31)

typedef struct ptx_module_impl {
  ptx_module pub; /* first: a ptx_module * is a ptx_module_impl * */
  ptx_arena arena;
} ptx_module_impl;

/* ---- names and scopes ------------------------------------------------------------------------ */

static uint32_t scope_depth(const ptx_parser *p) { return p->scopes.n; }

static bool bind_name(ptx_parser *p, const ptx_token *name, ptx_binding b, bool module_scope) {
  uint32_t h = ptx_hash(name->s, name->len);
  ptx_name_slot *sl = ptx_names_slot(&p->names, name->s, name->len, h);
  if (!sl) return ptx_nomem(p);
  uint32_t depth = module_scope ? 0 : scope_depth(p);
  if (sl->b.kind != PTX_BIND_NONE && sl->b.count == UINT32_MAX - depth && b.kind != PTX_BIND_REGRANGE &&
      sl->b.kind != PTX_BIND_REGRANGE)
    return ptx_error_tok(p, name, "'%.*s' is already declared in this scope", (int)(name->len > 60 ? 60 : name->len),
                         name->s);
  if (depth > 0) {
    if (!PTX_VEC_RESERVE(p->undo, p->undo.n + 1)) return ptx_nomem(p);
    p->undo.v[p->undo.n++] = (ptx_undo){sl->key, sl->len, sl->hash, sl->b};
  }
  /* count is reused as the scope tag for everything but register ranges */
  if (b.kind != PTX_BIND_REGRANGE && b.kind != PTX_BIND_TARGETS) b.count = UINT32_MAX - depth;
  sl->b = b;
  return true;
}

bool ptx_bind(ptx_parser *p, const ptx_token *name, ptx_binding b) { return bind_name(p, name, b, false); }

const ptx_binding *ptx_lookup(ptx_parser *p, const char *s, uint32_t len, ptx_binding *tmp) {
  /* %r57 from %r<100>: the prefix names a range */
  uint32_t k = len;
  while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9') k--;
  if (k > 0 && k < len && len - k <= 9 && !(s[k] == '0' && len - k > 1)) {
    const ptx_name_slot *sl = ptx_names_find(&p->names, s, k, ptx_hash(s, k));
    if (sl && sl->b.kind == PTX_BIND_REGRANGE) {
      uint32_t num = 0;
      for (uint32_t i = k; i < len; i++) num = num * 10 + (uint32_t)(s[i] - '0');
      if (num < sl->b.count) {
        *tmp = sl->b;
        tmp->kind = PTX_BIND_REG;
        tmp->index = sl->b.index + num;
        return tmp;
      }
    }
  }
  const ptx_name_slot *sl = ptx_names_find(&p->names, s, len, ptx_hash(s, len));
  if (sl && sl->b.kind != PTX_BIND_NONE && sl->b.kind != PTX_BIND_REGRANGE) return &sl->b;
  return NULL;
}

static bool push_scope(ptx_parser *p) {
  if (p->scopes.n >= PTX_LIMIT_SCOPE_DEPTH) return ptx_error_tok(p, &p->tok, "{ } blocks nested too deeply");
  if (!PTX_VEC_RESERVE(p->scopes, p->scopes.n + 1)) return ptx_nomem(p);
  p->scopes.v[p->scopes.n++] = (ptx_scope_rec){p->undo.n, p->param_off};
  return true;
}

static void pop_scope(ptx_parser *p) {
  if (!p->scopes.n) return;
  ptx_scope_rec sc = p->scopes.v[--p->scopes.n];
  while (p->undo.n > sc.undo_mark) {
    ptx_undo u = p->undo.v[--p->undo.n];
    ptx_name_slot *sl = ptx_names_slot(&p->names, u.key, u.len, u.hash); /* exists: no growth */
    if (sl) sl->b = u.old;
  }
  p->param_off = sc.param_start;
}

uint32_t ptx_add_operands(ptx_parser *p, const ptx_operand *ops, uint32_t n) {
  uint32_t at = p->opnds.n;
  if (!PTX_VEC_RESERVE(p->opnds, p->opnds.n + n)) {
    ptx_nomem(p);
    return 0;
  }
  if (n) memcpy(p->opnds.v + p->opnds.n, ops, n * sizeof *ops);
  p->opnds.n += n;
  return at;
}

bool ptx_push_insn(ptx_parser *p, const ptx_insn *in) {
  if (!PTX_VEC_RESERVE(p->insns, p->insns.n + 1)) return ptx_nomem(p);
  p->insns.v[p->insns.n++] = *in;
  return true;
}

static bool push_symbol(ptx_parser *p, const ptx_symbol *s, uint32_t *index) {
  if (!PTX_VEC_RESERVE(p->syms, p->syms.n + 1)) return ptx_nomem(p);
  *index = p->syms.n;
  p->syms.v[p->syms.n++] = *s;
  return true;
}

static const char *intern(ptx_parser *p, const ptx_token *t) {
  const char *s = ptx_arena_strndup(p->arena, t->s, t->len);
  if (!s) ptx_nomem(p);
  return s;
}

static uint64_t align_up(uint64_t v, uint64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

static bool is_directive(const ptx_token *t) { return t->kind == PTX_TOK_WORD && t->len > 1 && t->s[0] == '.'; }

static bool expect_uint(ptx_parser *p, const char *what, uint64_t max, uint64_t *out) {
  int64_t v = 0;
  const ptx_token t = p->tok;
  if (!ptx_const_expr(p, &v)) return false;
  if (v < 0 || (uint64_t)v > max)
    return ptx_error_tok(p, &t, "%s %lld is out of range (0..%llu)", what, (long long)v, (unsigned long long)max);
  *out = (uint64_t)v;
  return true;
}

/* ---- module directives ----------------------------------------------------------------------- */

static bool parse_version(ptx_parser *p) {
  const ptx_token t = p->tok;
  if (t.kind != PTX_TOK_NUMBER) return ptx_error_tok(p, &t, "expected a version number after .version");
  uint32_t major = 0, minor = 0, i = 0;
  while (i < t.len && t.s[i] >= '0' && t.s[i] <= '9' && major < 1000) major = major * 10 + (uint32_t)(t.s[i++] - '0');
  if (i >= t.len || t.s[i] != '.' || i + 1 >= t.len) return ptx_error_tok(p, &t, "malformed .version '%.*s'", (int)(t.len > 20 ? 20 : t.len), t.s);
  i++;
  while (i < t.len && t.s[i] >= '0' && t.s[i] <= '9' && minor < 1000) minor = minor * 10 + (uint32_t)(t.s[i++] - '0');
  if (i != t.len) return ptx_error_tok(p, &t, "malformed .version '%.*s'", (int)(t.len > 20 ? 20 : t.len), t.s);
  if (major < 6 || major > 9)
    ptx_warn_at(p, t.line, t.col, "PTX version %u.%u is outside the supported 6.0-9.x range; parsing anyway", major, minor);
  p->version_major = major;
  p->version_minor = minor;
  p->saw_version = true;
  ptx_next(p);
  return true;
}

static bool parse_target(ptx_parser *p) {
  for (;;) {
    const ptx_token t = p->tok;
    if (t.kind != PTX_TOK_WORD) return ptx_error_tok(p, &t, "expected a target name after .target");
    if (t.len > 3 && memcmp(t.s, "sm_", 3) == 0) {
      uint32_t sm = 0, i = 3;
      while (i < t.len && t.s[i] >= '0' && t.s[i] <= '9' && sm < 10000) sm = sm * 10 + (uint32_t)(t.s[i++] - '0');
      if (i == 3) return ptx_error_tok(p, &t, "malformed target '%.*s'", (int)(t.len > 20 ? 20 : t.len), t.s);
      p->target_sm = sm;
    } else if (!ptx_is_word(&t, "texmode_unified") && !ptx_is_word(&t, "texmode_independent") &&
               !ptx_is_word(&t, "debug") && !ptx_is_word(&t, "map_f64_to_f32")) {
      ptx_warn_at(p, t.line, t.col, "unknown .target option '%.*s' ignored", (int)(t.len > 40 ? 40 : t.len), t.s);
    }
    if (ptx_is_word(&t, "texmode_independent"))
      ptx_warn_at(p, t.line, t.col, "texmode_independent: separate sampler operands are not supported");
    ptx_next(p);
    if (!ptx_accept(p, ',')) return true;
  }
}

static bool parse_address_size(ptx_parser *p) {
  uint64_t v = 0;
  const ptx_token t = p->tok;
  if (!expect_uint(p, ".address_size", 64, &v)) return false;
  if (v != 32 && v != 64) return ptx_error_tok(p, &t, ".address_size must be 32 or 64");
  p->address_size = (uint32_t)v;
  return true;
}

static bool parse_file(ptx_parser *p) {
  uint32_t line = p->tok.line;
  const ptx_token nt = p->tok;
  uint64_t n = 0;
  if (!expect_uint(p, ".file number", UINT32_MAX, &n)) return false;
  if (p->tok.kind != PTX_TOK_STRING) return ptx_error_tok(p, &p->tok, "expected a file name string after .file %llu", (unsigned long long)n);
  const ptx_token name = p->tok;
  ptx_next(p);
  ptx_skip_line(p, line); /* optional timestamp and size */
  if (n == 0 || n > PTX_LIMIT_FILES) {
    ptx_warn_at(p, nt.line, nt.col, ".file %llu ignored (numbers 1..%u are kept)", (unsigned long long)n, PTX_LIMIT_FILES);
    return true;
  }
  while (p->files.n <= n) {
    if (!PTX_VEC_RESERVE(p->files, p->files.n + 1)) return ptx_nomem(p);
    p->files.v[p->files.n++] = "";
  }
  const char *s = intern(p, &name);
  if (!s) return false;
  p->files.v[n] = s;
  return true;
}

static bool parse_loc(ptx_parser *p) {
  uint32_t line = p->tok.line;
  uint64_t file = 0, src_line = 0, col = 0;
  if (!expect_uint(p, ".loc file", UINT32_MAX, &file)) return false;
  if (!expect_uint(p, ".loc line", UINT32_MAX, &src_line)) return false;
  if (p->tok.kind == PTX_TOK_NUMBER && p->tok.line == line && !expect_uint(p, ".loc column", UINT32_MAX, &col))
    return false;
  ptx_skip_line(p, line); /* , function_name …, inlined_at … */
  p->loc_file = file <= PTX_LIMIT_FILES ? (uint16_t)file : 0;
  p->loc_line = (uint32_t)src_line;
  return true;
}

static bool parse_pragma(ptx_parser *p) {
  for (;;) {
    if (p->tok.kind != PTX_TOK_STRING) return ptx_error_tok(p, &p->tok, "expected a string after .pragma");
    ptx_next(p);
    if (!ptx_accept(p, ',')) break;
  }
  return ptx_expect(p, ';', "after .pragma");
}

static void skip_unknown_directive(ptx_parser *p) {
  const ptx_token t = p->tok;
  ptx_warn_at(p, t.line, t.col, "unknown directive '%.*s' skipped", (int)(t.len > 40 ? 40 : t.len), t.s);
  ptx_next(p);
  ptx_skip_statement(p);
}

/* ---- types and variables --------------------------------------------------------------------- */

typedef struct decl_attrs {
  int type;         /* ptx_type, -1 = none yet */
  uint32_t align;   /* 0 = natural */
  uint32_t vec;
  bool texref;      /* .texref/.samplerref/.surfref */
  bool ptr;
  bool managed;     /* .attribute(.managed) */
  ptx_token type_tok;
} decl_attrs;

/* .align N, .vN, type, .ptr [.space] [.align N], .attribute(…) in any order before a name. */
static bool parse_decl_attrs(ptx_parser *p, decl_attrs *a, bool is_param, bool allow_pred) {
  a->type = -1;
  a->align = 0;
  a->vec = 1;
  a->texref = a->ptr = a->managed = false;
  a->type_tok = p->tok;
  while (is_directive(&p->tok)) {
    const ptx_token t = p->tok;
    const char *s = t.s + 1;
    uint32_t n = t.len - 1;
    int ty = ptx_word_type(p, s, n);
    if (ty >= 0) {
      if (a->type >= 0 || a->texref) return ptx_error_tok(p, &t, "more than one type in a declaration");
      a->type = ty;
      a->type_tok = t;
      ptx_next(p);
    } else if (ptx_is_word(&t, ".align")) {
      ptx_next(p);
      uint64_t v = 0;
      const ptx_token at = p->tok;
      if (!expect_uint(p, ".align", 1u << 20, &v)) return false;
      if (v == 0 || (v & (v - 1))) return ptx_error_tok(p, &at, ".align must be a power of two");
      if (!a->ptr) a->align = (uint32_t)v; /* after .ptr, .align is the pointee's alignment */
    } else if (ptx_is_word(&t, ".v2") || ptx_is_word(&t, ".v4") || ptx_is_word(&t, ".v8")) {
      a->vec = (uint32_t)(t.s[2] - '0');
      ptx_next(p);
    } else if (ptx_is_word(&t, ".ptr")) {
      if (!is_param) return ptx_error_tok(p, &t, ".ptr is only valid on kernel parameters");
      a->ptr = true;
      ptx_next(p);
    } else if (a->ptr && (ptx_is_word(&t, ".global") || ptx_is_word(&t, ".const") || ptx_is_word(&t, ".local") ||
                          ptx_is_word(&t, ".shared"))) {
      ptx_next(p);
    } else if (ptx_is_word(&t, ".attribute")) {
      ptx_next(p);
      if (!ptx_is_punct(&p->tok, '(')) return ptx_error_tok(p, &p->tok, "expected '(' after .attribute");
      int depth = 0;
      do {
        if (ptx_is_punct(&p->tok, '(')) depth++;
        else if (ptx_is_punct(&p->tok, ')')) depth--;
        else if (ptx_is_word(&p->tok, ".managed")) a->managed = true;
        ptx_next(p);
      } while (depth > 0 && p->tok.kind != PTX_TOK_EOF);
      if (depth) return ptx_error_tok(p, &t, "unterminated .attribute(");
    } else if (ptx_is_word(&t, ".texref") || ptx_is_word(&t, ".samplerref") || ptx_is_word(&t, ".surfref")) {
      if (a->type >= 0) return ptx_error_tok(p, &t, "more than one type in a declaration");
      a->texref = true;
      a->type_tok = t;
      ptx_next(p);
    } else {
      return ptx_error_tok(p, &t, "unexpected '%.*s' in a declaration", (int)(t.len > 40 ? 40 : t.len), t.s);
    }
  }
  if (a->type < 0 && !a->texref) return ptx_error_tok(p, &p->tok, "declaration without a type");
  if (a->type == PTX_TYPE_PRED && !allow_pred) return ptx_error_tok(p, &a->type_tok, ".pred variables live in .reg only");
  return true;
}

static uint32_t elem_bytes(const decl_attrs *a) {
  if (a->texref) return 8;
  uint32_t b = ptx_type_bytes((ptx_type)a->type);
  if (a->type == PTX_TYPE_PRED) b = 1;
  return b * a->vec;
}

/* [N][M]…; unsized (`[]`) only first. Returns the element count, or UINT64_MAX for unsized. */
static bool parse_dims(ptx_parser *p, uint64_t *count, bool *unsized) {
  *count = 1;
  *unsized = false;
  uint32_t ndims = 0;
  while (ptx_is_punct(&p->tok, '[')) {
    const ptx_token open = p->tok;
    ptx_next(p);
    if (ptx_is_punct(&p->tok, ']')) {
      if (ndims) return ptx_error_tok(p, &open, "only the first array dimension may be left out");
      *unsized = true;
    } else {
      uint64_t d = 0;
      if (!expect_uint(p, "array size", PTX_LIMIT_VAR_BYTES, &d)) return false;
      if (*count > PTX_LIMIT_VAR_BYTES / (d ? d : 1)) return ptx_limit(p, NULL, "array size");
      *count *= d;
    }
    if (!ptx_expect(p, ']', "to close the array size")) return false;
    if (++ndims > 8) return ptx_error_tok(p, &open, "more than 8 array dimensions");
  }
  return true;
}

/* ---- initialisers ---------------------------------------------------------------------------- */

typedef struct init_state {
  uint32_t sym;
  uint64_t base;    /* init_data offset of the variable */
  uint64_t limit;   /* bytes the initialiser may fill; UINT64_MAX when unsized */
  uint32_t elem;    /* bytes per leaf */
  ptx_type type;
  /* a run of byte-mask leaves 0xFF(sym), 0xFF00(sym) … building one address */
  bool run;
  uint32_t run_target, run_next;
  bool run_func, run_generic;
  int64_t run_addend;
  uint64_t run_start;
  ptx_token run_tok;
} init_state;

static bool init_room(ptx_parser *p, init_state *st, const ptx_token *at, uint64_t bytes) {
  uint64_t used = p->init.n - st->base;
  if (st->limit != UINT64_MAX && used + bytes > st->limit)
    return ptx_error_tok(p, at, "more initialisers than the variable holds (%llu bytes)", (unsigned long long)st->limit);
  if (bytes > PTX_LIMIT_INIT_BYTES || (uint64_t)p->init.n + bytes > PTX_LIMIT_INIT_BYTES)
    return ptx_limit(p, at, "initialiser data");
  if (!PTX_VEC_RESERVE(p->init, (uint32_t)(p->init.n + bytes))) return ptx_nomem(p);
  return true;
}

static void put_le(ptx_parser *p, uint64_t v, uint32_t bytes) {
  for (uint32_t i = 0; i < bytes; i++) p->init.v[p->init.n++] = (uint8_t)(v >> (8 * i));
}

static uint16_t f32_to_f16(uint32_t f) {
  uint32_t sign = (f >> 16) & 0x8000u, exp = (f >> 23) & 0xffu, man = f & 0x7fffffu;
  if (exp == 0xff) return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0));
  int32_t e = (int32_t)exp - 127 + 15;
  if (e >= 31) return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return (uint16_t)sign;
    man |= 0x800000u;
    uint32_t shift = (uint32_t)(14 - e);
    uint32_t h = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)e << 10) | (man >> 13), rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) h++;
  return (uint16_t)(sign | h);
}

static uint16_t f32_to_bf16(uint32_t f) {
  if ((f & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((f >> 16) | 0x40);
  return (uint16_t)((f + 0x7fffu + ((f >> 16) & 1)) >> 16);
}

static bool finish_run(ptx_parser *p, init_state *st, bool at_end_of_init) {
  if (!st->run) return true;
  (void)at_end_of_init;
  uint32_t bytes = st->run_next;
  if (bytes != 4 && bytes != 8)
    return ptx_error_tok(p, &st->run_tok, "byte-mask initialiser covers %u bytes of an address; 4 or 8 are needed", bytes);
  if (!PTX_VEC_RESERVE(p->relocs, p->relocs.n + 1)) return ptx_nomem(p);
  p->relocs.v[p->relocs.n++] = (ptx_reloc){st->sym, st->run_start, st->run_target, st->run_func, st->run_generic,
                                           (uint8_t)bytes, st->run_addend};
  st->run = false;
  return true;
}

/* sym, sym+N, generic(sym)+N, func: the address part of an initialiser */
static bool parse_init_address(ptx_parser *p, uint32_t *target, bool *is_func, bool *generic, int64_t *addend) {
  *generic = false;
  *addend = 0;
  bool paren = false;
  if (ptx_is_word(&p->tok, "generic") && ptx_is_punct(ptx_peek(p), '(')) {
    ptx_next(p);
    ptx_next(p);
    *generic = paren = true;
  }
  const ptx_token t = p->tok;
  if (t.kind != PTX_TOK_WORD) return ptx_error_tok(p, &t, "expected a variable or function name in the initialiser");
  ptx_binding tmp;
  const ptx_binding *b = ptx_lookup(p, t.s, t.len, &tmp);
  if (!b || (b->kind != PTX_BIND_SYM && b->kind != PTX_BIND_FUNC))
    return ptx_error_tok(p, &t, "undeclared name '%.*s' in an initialiser", (int)(t.len > 60 ? 60 : t.len), t.s);
  *target = b->index;
  *is_func = b->kind == PTX_BIND_FUNC;
  ptx_next(p);
  if (paren && !ptx_expect(p, ')', "to close generic(")) return false;
  if (ptx_is_punct(&p->tok, '+') || ptx_is_punct(&p->tok, '-')) {
    bool neg = p->tok.c == '-';
    ptx_next(p);
    int64_t v = 0;
    if (!ptx_const_expr(p, &v)) return false;
    *addend = neg ? (int64_t)(0 - (uint64_t)v) : v;
  }
  return true;
}

static bool parse_init_leaf(ptx_parser *p, init_state *st) {
  const ptx_token t = p->tok;
  /* byte-mask form: 0xFF00(generic(sym)+8) is byte 1 of that address (PTX ISA 7.1+) */
  if (t.kind == PTX_TOK_NUMBER && ptx_is_punct(ptx_peek(p), '(')) {
    ptx_number mask;
    if (!ptx_parse_number_text(t.s, t.len, &mask) || mask.is_float)
      return ptx_error_tok(p, &t, "malformed byte mask '%.*s'", (int)(t.len > 30 ? 30 : t.len), t.s);
    uint32_t k = 0;
    while (k < 8 && mask.bits != (0xffull << (8 * k))) k++;
    if (k == 8) return ptx_error_tok(p, &t, "byte mask must be 0xFF shifted by whole bytes");
    if (st->elem != 1) return ptx_error_tok(p, &t, "byte-mask initialisers need a .b8/.u8 variable");
    ptx_next(p);
    ptx_next(p);
    uint32_t target;
    bool is_func, generic;
    int64_t addend;
    if (!parse_init_address(p, &target, &is_func, &generic, &addend)) return false;
    if (!ptx_expect(p, ')', "to close the byte mask")) return false;
    if (k == 0) {
      if (!finish_run(p, st, false)) return false;
      st->run = true;
      st->run_target = target;
      st->run_func = is_func;
      st->run_generic = generic;
      st->run_addend = addend;
      st->run_start = p->init.n - st->base;
      st->run_next = 0;
      st->run_tok = t;
    } else if (!st->run || st->run_next != k || st->run_target != target || st->run_func != is_func ||
               st->run_generic != generic || st->run_addend != addend) {
      return ptx_error_tok(p, &t, "byte-mask initialisers must spell an address byte by byte, lowest first");
    }
    st->run_next = k + 1;
    if (!init_room(p, st, &t, 1)) return false;
    put_le(p, 0, 1);
    if (k == 7) return finish_run(p, st, false);
    return true;
  }
  if (!finish_run(p, st, false)) return false;
  if (t.kind == PTX_TOK_WORD && !ptx_is_word(&t, "WARP_SZ")) {
    uint32_t target;
    bool is_func, generic;
    int64_t addend;
    if (!parse_init_address(p, &target, &is_func, &generic, &addend)) return false;
    if (st->elem != 4 && st->elem != 8)
      return ptx_error_tok(p, &t, "an address initialiser needs a 32- or 64-bit element");
    if (!init_room(p, st, &t, st->elem)) return false;
    if (!PTX_VEC_RESERVE(p->relocs, p->relocs.n + 1)) return ptx_nomem(p);
    p->relocs.v[p->relocs.n++] = (ptx_reloc){st->sym, p->init.n - st->base, target, is_func, generic,
                                             (uint8_t)st->elem, addend};
    put_le(p, 0, st->elem);
    return true;
  }
  /* a number: float literal (optionally negated) or integer constant expression */
  bool neg = false;
  const ptx_token *nt = &p->tok;
  ptx_number num = {0};
  bool is_float = false;
  if (ptx_is_punct(nt, '-')) {
    const ptx_token *pk = ptx_peek(p);
    if (pk->kind == PTX_TOK_NUMBER && ptx_parse_number_text(pk->s, pk->len, &num) && num.is_float) {
      neg = true;
      ptx_next(p);
    }
  }
  if (nt->kind == PTX_TOK_NUMBER && ptx_parse_number_text(nt->s, nt->len, &num) && num.is_float) {
    is_float = true;
    ptx_next(p);
  }
  uint64_t bits;
  if (is_float) {
    double d = 0;
    float f;
    if (num.is_f32) {
      uint32_t b32 = (uint32_t)num.bits ^ (neg ? 0x80000000u : 0);
      memcpy(&f, &b32, sizeof f);
      d = f;
    } else {
      uint64_t b64 = num.bits ^ (neg ? 0x8000000000000000ull : 0);
      memcpy(&d, &b64, sizeof d);
      f = (float)d;
    }
    uint32_t fb;
    memcpy(&fb, &f, sizeof fb);
    switch (st->type) {
    case PTX_TYPE_F64: memcpy(&bits, &d, sizeof bits); break;
    case PTX_TYPE_F32: bits = fb; break;
    case PTX_TYPE_F16: bits = f32_to_f16(fb); break;
    case PTX_TYPE_BF16: bits = f32_to_bf16(fb); break;
    default:
      /* 0f/0d literals are bit patterns: allowed in a bit-size variable of the same width */
      if (num.is_f32 && st->elem == 4 && !neg) bits = num.bits;
      else if (!num.is_f32 && st->elem == 8 && !neg) bits = num.bits;
      else return ptx_error_tok(p, &t, "floating-point initialiser for a .%s variable", ptx_type_name(st->type));
    }
  } else {
    int64_t v = 0;
    if (!ptx_const_expr(p, &v)) return false;
    switch (st->type) {
    case PTX_TYPE_F64: {
      double d = (double)v;
      memcpy(&bits, &d, sizeof bits);
      break;
    }
    case PTX_TYPE_F32: {
      float f = (float)v;
      uint32_t fb;
      memcpy(&fb, &f, sizeof fb);
      bits = fb;
      break;
    }
    case PTX_TYPE_F16: case PTX_TYPE_BF16: {
      float f = (float)v;
      uint32_t fb;
      memcpy(&fb, &f, sizeof fb);
      bits = st->type == PTX_TYPE_F16 ? f32_to_f16(fb) : f32_to_bf16(fb);
      break;
    }
    default: bits = (uint64_t)v; break;
    }
  }
  if (!init_room(p, st, &t, st->elem)) return false;
  put_le(p, bits, st->elem);
  return true;
}

static bool parse_init_value(ptx_parser *p, init_state *st, int depth) {
  if (ptx_is_punct(&p->tok, '{')) {
    if (depth >= PTX_LIMIT_INIT_DEPTH) return ptx_error_tok(p, &p->tok, "initialiser nested too deeply");
    ptx_next(p);
    if (!ptx_is_punct(&p->tok, '}')) {
      for (;;) {
        if (!parse_init_value(p, st, depth + 1)) return false;
        if (!ptx_accept(p, ',')) break;
      }
    }
    return ptx_expect(p, '}', "to close the initialiser list");
  }
  return parse_init_leaf(p, st);
}

/* ---- variable declarations ------------------------------------------------------------------- */

/* After the state-space word of a variable declaration (module or function scope). */
static bool parse_var_decl(ptx_parser *p, ptx_space space, uint16_t flags, const ptx_token *dir) {
  decl_attrs a;
  if (!parse_decl_attrs(p, &a, false, false)) return false;
  const uint32_t elem = elem_bytes(&a);
  for (;;) {
    const ptx_token name = p->tok;
    if (name.kind != PTX_TOK_WORD || name.s[0] == '.') return ptx_error_tok(p, &name, "expected a variable name");
    ptx_next(p);
    uint64_t count;
    bool unsized;
    if (ptx_is_punct(&p->tok, '<'))
      return ptx_error_tok(p, &p->tok, "parameterised variable names (name<N>) are only supported for .reg");
    if (!parse_dims(p, &count, &unsized)) return false;
    ptx_symbol s;
    memset(&s, 0, sizeof s);
    s.name = intern(p, &name);
    if (!s.name) return false;
    s.space = (uint8_t)space;
    s.type = a.texref ? PTX_TYPE_NONE : (uint8_t)a.type;
    s.flags = flags | (a.texref ? PTX_SYM_TEXREF : 0) | (a.ptr ? PTX_SYM_PTR : 0) |
              (a.managed && space == PTX_SPACE_GLOBAL && p->fn == PTX_NONE ? PTX_SYM_MANAGED : 0);
    s.align = a.align ? a.align : (elem ? elem : 1);
    s.size = unsized ? 0 : count * elem;
    s.function = p->fn;
    s.decl_line = name.line;
    if (s.size > PTX_LIMIT_VAR_BYTES) return ptx_limit(p, &name, "variable size");
    /* module-scope .extern: a later definition of the same name replaces it */
    uint32_t idx = 0;
    ptx_binding tmp;
    const ptx_binding *prev = p->fn == PTX_NONE ? ptx_lookup(p, name.s, name.len, &tmp) : NULL;
    bool redefine = prev && prev->kind == PTX_BIND_SYM && (p->syms.v[prev->index].flags & PTX_SYM_EXTERN);
    if (redefine) {
      idx = prev->index;
      p->syms.v[idx] = s;
    } else if (!push_symbol(p, &s, &idx)) {
      return false;
    }
    if (ptx_accept(p, '=')) {
      if (space != PTX_SPACE_GLOBAL && space != PTX_SPACE_CONST)
        return ptx_error_tok(p, &name, "only .global and .const variables may have initialisers");
      if (a.texref) return ptx_error_tok(p, &name, "texture references cannot be initialised here");
      init_state st;
      memset(&st, 0, sizeof st);
      st.sym = idx;
      st.base = p->init.n;
      st.limit = unsized ? UINT64_MAX : s.size;
      st.elem = elem / a.vec;
      st.type = (ptx_type)a.type;
      if (!parse_init_value(p, &st, 0)) return false;
      if (!finish_run(p, &st, true)) return false;
      uint64_t used = p->init.n - st.base;
      if (unsized) p->syms.v[idx].size = align_up(used, elem);
      uint64_t size = p->syms.v[idx].size;
      if (!init_room(p, &st, &name, size - used)) return false; /* limits size - used to 1 GiB */
      memset(p->init.v + p->init.n, 0, (size_t)(size - used));
      p->init.n += (uint32_t)(size - used);
      p->syms.v[idx].init_offset = st.base;
      p->syms.v[idx].flags |= PTX_SYM_HAS_INIT;
    } else if (unsized && !(flags & PTX_SYM_EXTERN)) {
      return ptx_error_tok(p, &name, "an array without a size needs an initialiser or .extern");
    }
    /* function-scope placement that does not wait for the module's end */
    ptx_symbol *sp = &p->syms.v[idx];
    if (p->fn != PTX_NONE && space == PTX_SPACE_LOCAL) {
      sp->offset = align_up(p->local_off, sp->align);
      p->local_off = sp->offset + sp->size;
    } else if (p->fn != PTX_NONE && space == PTX_SPACE_PARAM) {
      sp->flags |= PTX_SYM_CALL_PARAM;
      sp->offset = align_up(p->param_off, sp->align);
      p->param_off = sp->offset + sp->size;
      if (p->param_off > p->param_max) p->param_max = p->param_off;
    }
    if (!redefine && !ptx_bind(p, &name, (ptx_binding){PTX_BIND_SYM, 0, 0, idx, 0})) return false;
    if (!ptx_accept(p, ',')) break;
  }
  (void)dir;
  return ptx_expect(p, ';', "at the end of the declaration");
}

/* .reg .type %r<100>, %x, …; */
static bool parse_reg_decl(ptx_parser *p) {
  ptx_next(p);
  decl_attrs a;
  if (!parse_decl_attrs(p, &a, false, true)) return false;
  if (a.texref) return ptx_error_tok(p, &a.type_tok, "registers cannot hold texture references");
  if (a.vec != 1) return ptx_error_tok(p, &a.type_tok, "vector registers (.reg .vN) are not supported");
  uint32_t bytes = ptx_type_bytes((ptx_type)a.type);
  uint8_t rc = a.type == PTX_TYPE_PRED ? PTX_RC_PRED : bytes <= 4 ? PTX_RC_B32 : bytes == 8 ? PTX_RC_B64 : PTX_RC_B128;
  for (;;) {
    const ptx_token name = p->tok;
    if (name.kind != PTX_TOK_WORD || name.s[0] == '.') return ptx_error_tok(p, &name, "expected a register name");
    ptx_next(p);
    uint32_t count = 1;
    bool range = false;
    if (ptx_accept(p, '<')) {
      uint64_t n = 0;
      if (!expect_uint(p, "register count", PTX_LIMIT_REG_RANGE, &n)) return false;
      if (!ptx_expect(p, '>', "after the register count")) return false;
      count = (uint32_t)n;
      range = true;
    }
    uint64_t total = (uint64_t)count;
    for (int c = 0; c < PTX_RC_COUNT; c++) total += p->regs[c].n;
    if (total > PTX_LIMIT_FUNC_REGS) return ptx_limit(p, &name, "registers of the function");
    uint32_t first = p->regs[rc].n;
    if (!PTX_VEC_RESERVE(p->regs[rc], p->regs[rc].n + count)) return ptx_nomem(p);
    for (uint32_t i = 0; i < count; i++)
      p->regs[rc].v[p->regs[rc].n++] = (ptx_regname){name.s, name.len, range ? i : UINT32_MAX};
    ptx_binding b = {range ? PTX_BIND_REGRANGE : PTX_BIND_REG, rc, (uint8_t)a.type, first, count};
    if (!ptx_bind(p, &name, b)) return false;
    if (!ptx_accept(p, ',')) break;
  }
  return ptx_expect(p, ';', "at the end of the .reg declaration");
}

/* ---- functions ------------------------------------------------------------------------------- */

enum { PARAM_ENTRY, PARAM_FUNC, PARAM_RET, PARAM_PROTO };

/* ( .param … name, … ): symbols appended to `out`, laid out from offset 0 in declaration order. */
static bool parse_params(ptx_parser *p, uint32_t fn, int kind, ptx_u32_vec *out, uint64_t *bytes) {
  if (!ptx_expect(p, '(', "to open the parameter list")) return false;
  uint64_t off = 0;
  if (!ptx_is_punct(&p->tok, ')')) {
    for (;;) {
      const ptx_token dir = p->tok;
      bool is_reg = ptx_is_word(&dir, ".reg");
      if (!ptx_is_word(&dir, ".param") && !is_reg)
        return ptx_error_tok(p, &dir, "expected .param or .reg in a parameter list");
      ptx_next(p);
      decl_attrs a;
      if (!parse_decl_attrs(p, &a, true, is_reg)) return false;
      const ptx_token name = p->tok;
      if (name.kind != PTX_TOK_WORD || name.s[0] == '.') return ptx_error_tok(p, &name, "expected a parameter name");
      ptx_next(p);
      uint64_t count;
      bool unsized;
      if (!parse_dims(p, &count, &unsized)) return false;
      if (unsized) return ptx_error_tok(p, &name, "a parameter array needs a size");
      uint32_t elem = elem_bytes(&a);
      ptx_symbol s;
      memset(&s, 0, sizeof s);
      s.name = intern(p, &name);
      if (!s.name) return false;
      s.space = is_reg ? PTX_SPACE_REG : PTX_SPACE_PARAM;
      s.type = a.texref ? PTX_TYPE_NONE : (uint8_t)a.type;
      s.flags = (uint16_t)((a.ptr ? PTX_SYM_PTR : 0) | (a.texref ? PTX_SYM_TEXREF : 0));
      s.flags |= kind == PARAM_ENTRY ? PTX_SYM_ENTRY_PARAM : PTX_SYM_FUNC_PARAM;
      if (kind == PARAM_RET) s.flags |= PTX_SYM_RETURN;
      s.align = a.align ? a.align : (elem ? elem : 1);
      s.size = count * elem;
      s.function = fn;
      s.decl_line = name.line;
      if (s.size > PTX_LIMIT_VAR_BYTES) return ptx_limit(p, &name, "parameter size");
      if (is_reg) {
        /* .reg parameter: a register of the function; offset = its index in the register class */
        uint32_t bytes_t = ptx_type_bytes((ptx_type)a.type);
        uint8_t rc = a.type == PTX_TYPE_PRED ? PTX_RC_PRED : bytes_t <= 4 ? PTX_RC_B32 : bytes_t == 8 ? PTX_RC_B64 : PTX_RC_B128;
        if (count != 1 || a.vec != 1) return ptx_error_tok(p, &name, ".reg parameters must be scalars");
        s.offset = p->regs[rc].n;
        if (!PTX_VEC_RESERVE(p->regs[rc], p->regs[rc].n + 1)) return ptx_nomem(p);
        p->regs[rc].v[p->regs[rc].n++] = (ptx_regname){name.s, name.len, UINT32_MAX};
        if (kind != PARAM_PROTO && !(name.len == 1 && name.s[0] == '_') &&
            !ptx_bind(p, &name, (ptx_binding){PTX_BIND_REG, rc, (uint8_t)a.type, (uint32_t)s.offset, 1}))
          return false;
      } else {
        s.offset = align_up(off, s.align);
        off = s.offset + s.size;
      }
      uint32_t idx = 0;
      if (!push_symbol(p, &s, &idx)) return false;
      if (!is_reg && kind != PARAM_PROTO && !(name.len == 1 && name.s[0] == '_') &&
          !ptx_bind(p, &name, (ptx_binding){PTX_BIND_SYM, 0, 0, idx, 0}))
        return false;
      if (!PTX_VEC_RESERVE(*out, out->n + 1)) return ptx_nomem(p);
      out->v[out->n++] = idx;
      if (!ptx_accept(p, ',')) break;
    }
  }
  *bytes = off;
  return ptx_expect(p, ')', "to close the parameter list");
}

static void reset_function_state(ptx_parser *p) {
  for (int c = 0; c < PTX_RC_COUNT; c++) p->regs[c].n = 0;
  p->local_off = p->shared_off = p->param_off = p->param_max = 0;
  p->loc_file = 0;
  p->loc_line = 0;
  p->fixups.n = 0;
  ptx_names_free(&p->labels);
}

static bool new_function(ptx_parser *p, const char *name, uint32_t flags, uint32_t line, uint32_t *index) {
  if (!PTX_VEC_RESERVE(p->funcs, p->funcs.n + 1)) return ptx_nomem(p);
  ptx_function *f = &p->funcs.v[p->funcs.n];
  memset(f, 0, sizeof *f);
  f->name = name;
  f->flags = flags;
  f->first_insn = p->insns.n;
  f->first_block = p->blocks.n;
  f->first_param = f->first_ret = p->params.n;
  f->decl_line = line;
  *index = p->funcs.n++;
  return true;
}

static bool append_param_list(ptx_parser *p, const uint32_t *v, uint32_t n, uint32_t *first) {
  if (!PTX_VEC_RESERVE(p->params, p->params.n + n)) return ptx_nomem(p);
  *first = p->params.n;
  if (n) memcpy(p->params.v + p->params.n, v, n * sizeof *v);
  p->params.n += n;
  return true;
}

/* Performance-tuning and other directives between a function's parameters and its body. */
static bool parse_function_attrs(ptx_parser *p, ptx_function *f) {
  while (is_directive(&p->tok)) {
    const ptx_token t = p->tok;
    if (ptx_is_word(&t, ".maxntid") || ptx_is_word(&t, ".reqntid") || ptx_is_word(&t, ".reqnctapercluster")) {
      ptx_next(p);
      uint32_t v[3] = {1, 1, 1};
      for (int i = 0; i < 3; i++) {
        uint64_t x = 0;
        bool cl = ptx_is_word(&t, ".reqnctapercluster");
        if (!expect_uint(p, cl ? "cluster dimension" : "thread count", cl ? UINT8_MAX : UINT32_MAX, &x)) return false;
        v[i] = (uint32_t)x;
        if (!ptx_accept(p, ',')) break;
      }
      if (ptx_is_word(&t, ".maxntid")) memcpy(f->maxntid, v, sizeof v);
      else if (ptx_is_word(&t, ".reqntid")) memcpy(f->reqntid, v, sizeof v);
      else
        for (int i = 0; i < 3; i++) f->reqnctapercluster[i] = (uint8_t)v[i];
    } else if (ptx_is_word(&t, ".minnctapersm") || ptx_is_word(&t, ".maxnreg") || ptx_is_word(&t, ".maxnctapersm") ||
               ptx_is_word(&t, ".maxclusterrank")) {
      ptx_next(p);
      uint64_t x = 0;
      if (!expect_uint(p, t.s, ptx_is_word(&t, ".maxclusterrank") ? UINT8_MAX : UINT32_MAX, &x)) return false;
      if (ptx_is_word(&t, ".minnctapersm")) f->minnctapersm = (uint32_t)x;
      else if (ptx_is_word(&t, ".maxnreg")) f->maxnreg = (uint32_t)x;
      else if (ptx_is_word(&t, ".maxclusterrank")) f->maxclusterrank = (uint8_t)x;
    } else if (ptx_is_word(&t, ".noreturn")) {
      f->flags |= PTX_FN_NORETURN;
      ptx_next(p);
    } else if (ptx_is_word(&t, ".explicitcluster") || ptx_is_word(&t, ".blocksareclusters")) {
      if (ptx_is_word(&t, ".explicitcluster")) f->flags |= PTX_FN_EXPLICIT_CLUSTER;
      ptx_next(p);
    } else if (ptx_is_word(&t, ".pragma")) {
      ptx_next(p);
      if (!parse_pragma(p)) return false;
    } else if (ptx_is_word(&t, ".attribute")) {
      ptx_next(p);
      int depth = 0;
      do {
        if (ptx_is_punct(&p->tok, '(')) depth++;
        else if (ptx_is_punct(&p->tok, ')')) depth--;
        ptx_next(p);
      } while (depth > 0 && p->tok.kind != PTX_TOK_EOF);
    } else {
      ptx_warn_at(p, t.line, t.col, "unknown function directive '%.*s' skipped", (int)(t.len > 40 ? 40 : t.len), t.s);
      ptx_next(p);
      while (p->tok.kind == PTX_TOK_NUMBER || ptx_is_punct(&p->tok, ',')) ptx_next(p);
    }
  }
  return true;
}

/* label: .callprototype [(.param …)] _ (.param …); — inside a function or at module scope */
bool ptx_parse_callprototype(ptx_parser *p, const ptx_token *label) {
  ptx_next(p); /* .callprototype */
  uint32_t fi = 0;
  const char *name = intern(p, label);
  if (!name || !new_function(p, name, PTX_FN_PROTOTYPE | PTX_FN_DECL_ONLY, label->line, &fi)) return false;
  ptx_u32_vec rets = {0};
  ptx_u32_vec args = {0};
  uint64_t rb = 0, ab = 0;
  bool ok = true;
  if (ptx_is_punct(&p->tok, '(')) ok = parse_params(p, fi, PARAM_PROTO, &rets, &rb);
  if (ok && !ptx_is_word(&p->tok, "_")) ok = ptx_error_tok(p, &p->tok, "expected '_' in .callprototype");
  if (ok) ptx_next(p);
  if (ok && ptx_is_punct(&p->tok, '(')) ok = parse_params(p, fi, PARAM_PROTO, &args, &ab);
  if (ok) ok = parse_function_attrs(p, &p->funcs.v[fi]);
  if (ok) ok = ptx_expect(p, ';', "at the end of .callprototype");
  if (ok) {
    ptx_function *f = &p->funcs.v[fi];
    ok = append_param_list(p, rets.v, rets.n, &f->first_ret) && append_param_list(p, args.v, args.n, &f->first_param);
    f = &p->funcs.v[fi];
    f->n_rets = rets.n;
    f->n_params = args.n;
    f->res.param_bytes = (uint32_t)(ab > UINT32_MAX ? UINT32_MAX : ab);
  }
  free(rets.v);
  free(args.v);
  if (!ok) return false;
  return ptx_bind(p, label, (ptx_binding){PTX_BIND_FUNC, 0, 0, fi, 0});
}

/* label: .branchtargets L1, L2 …;  or  label: .calltargets f1, f2 …; */
static bool parse_targets(ptx_parser *p, const ptx_token *label, bool calls) {
  ptx_next(p);
  uint32_t first = p->opnds.n, n = 0;
  for (;;) {
    const ptx_token t = p->tok;
    if (t.kind != PTX_TOK_WORD || t.s[0] == '.') return ptx_error_tok(p, &t, "expected a %s name", calls ? "function" : "label");
    ptx_operand o;
    memset(&o, 0, sizeof o);
    o.pair = o.base_sym = PTX_NONE;
    if (calls) {
      ptx_binding tmp;
      const ptx_binding *b = ptx_lookup(p, t.s, t.len, &tmp);
      if (!b || b->kind != PTX_BIND_FUNC) return ptx_error_tok(p, &t, "'%.*s' is not a declared function", (int)(t.len > 60 ? 60 : t.len), t.s);
      o.kind = PTX_OPND_FUNC;
      o.index = b->index;
    } else {
      o.kind = PTX_OPND_LABEL;
      o.index = PTX_NONE;
      if (!PTX_VEC_RESERVE(p->fixups, p->fixups.n + 1)) return ptx_nomem(p);
      p->fixups.v[p->fixups.n++] = (ptx_fixup){0, p->opnds.n, true, t.s, t.len, t.line, t.col};
    }
    ptx_add_operands(p, &o, 1);
    if (p->failed) return false;
    n++;
    ptx_next(p);
    if (!ptx_accept(p, ',')) break;
  }
  if (!ptx_expect(p, ';', "at the end of the target list")) return false;
  if (n > 255) return ptx_error_tok(p, label, "target list '%.*s' has more than 255 entries", (int)label->len, label->s);
  return ptx_bind(p, label, (ptx_binding){PTX_BIND_TARGETS, 0, 0, first, n});
}

static bool body_directive(ptx_parser *p) {
  const ptx_token t = p->tok;
  if (ptx_is_word(&t, ".reg")) return parse_reg_decl(p);
  static const struct {
    const char *word;
    ptx_space space;
  } spaces[] = {{".local", PTX_SPACE_LOCAL},   {".shared", PTX_SPACE_SHARED}, {".param", PTX_SPACE_PARAM},
                {".const", PTX_SPACE_CONST},   {".global", PTX_SPACE_GLOBAL}};
  for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++)
    if (ptx_is_word(&t, spaces[i].word)) {
      ptx_next(p);
      return parse_var_decl(p, spaces[i].space, 0, &t);
    }
  if (ptx_is_word(&t, ".pragma")) {
    ptx_next(p);
    return parse_pragma(p);
  }
  if (ptx_is_word(&t, ".loc")) {
    ptx_next(p);
    return parse_loc(p);
  }
  if (ptx_is_word(&t, ".file")) {
    ptx_next(p);
    return parse_file(p);
  }
  skip_unknown_directive(p);
  return !p->failed;
}

static bool define_label(ptx_parser *p, const ptx_token *t) {
  uint32_t h = ptx_hash(t->s, t->len);
  ptx_name_slot *sl = ptx_names_slot(&p->labels, t->s, t->len, h);
  if (!sl) return ptx_nomem(p);
  if (sl->b.kind != PTX_BIND_NONE)
    return ptx_error_tok(p, t, "label '%.*s' is defined twice", (int)(t->len > 60 ? 60 : t->len), t->s);
  sl->b.kind = PTX_BIND_SYM;
  sl->b.index = p->insns.n;
  return true;
}

static bool ends_flow(const ptx_insn *in) {
  if (in->guard != PTX_NONE) return false;
  switch ((ptx_opcode)in->opcode) {
  case PTX_OP_BRA: case PTX_OP_BRX: case PTX_OP_RET: case PTX_OP_EXIT: case PTX_OP_TRAP: return true;
  default: return false;
  }
}

/* Resolves labels, adds the implicit ret, names registers, then analyses the function. */
static bool finish_function(ptx_parser *p, uint32_t fi, const ptx_token *close) {
  ptx_function *f = &p->funcs.v[fi];
  const uint32_t end = p->insns.n;
  bool label_at_end = false;
  for (uint32_t i = 0; i < p->fixups.n; i++) {
    const ptx_fixup *fx = &p->fixups.v[i];
    const ptx_name_slot *sl = ptx_names_find(&p->labels, fx->name, fx->len, ptx_hash(fx->name, fx->len));
    if (!sl || sl->b.kind == PTX_BIND_NONE)
      return ptx_error_at(p, fx->line, fx->col, "undefined label '%.*s'", (int)(fx->len > 60 ? 60 : fx->len), fx->name);
    uint32_t target = sl->b.index;
    if (target == end) label_at_end = true;
    if (fx->in_pool) p->opnds.v[fx->opnd].index = target;
    else p->insns.v[fx->insn].ops[fx->opnd].index = target;
  }
  if (end == f->first_insn || label_at_end || !ends_flow(&p->insns.v[end - 1])) {
    /* falling off the end of a body returns (PTX ISA §9.7.12.8 leaves it implicit) */
    ptx_insn in;
    memset(&in, 0, sizeof in);
    in.opcode = PTX_OP_RET;
    in.vec = 1;
    in.guard = PTX_NONE;
    in.reconverge = PTX_NONE;
    in.function = fi;
    in.ptx_line = close->line;
    in.ptx_column = (uint16_t)(close->col > UINT16_MAX ? UINT16_MAX : close->col);
    if (!ptx_push_insn(p, &in)) return false;
    f = &p->funcs.v[fi];
  }
  f->n_insns = p->insns.n - f->first_insn;

  /* register names: "%r" + number for ranges, packed in one arena block */
  for (int c = 0; c < PTX_RC_COUNT; c++) {
    uint32_t n = p->regs[c].n;
    f->n_regs[c] = n;
    f->first_reg_name[c] = p->reg_names.n;
    if (!n) continue;
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) total += p->regs[c].v[i].len + 11;
    char *buf = ptx_arena_alloc(p->arena, total);
    if (!buf || !PTX_VEC_RESERVE(p->reg_names, p->reg_names.n + n)) return ptx_nomem(p);
    for (uint32_t i = 0; i < n; i++) {
      const ptx_regname *r = &p->regs[c].v[i];
      p->reg_names.v[p->reg_names.n++] = buf;
      memcpy(buf, r->prefix, r->len);
      buf += r->len;
      if (r->number != UINT32_MAX) {
        char digits[12];
        int k = 0;
        uint32_t v = r->number;
        do digits[k++] = (char)('0' + v % 10), v /= 10;
        while (v);
        while (k) *buf++ = digits[--k];
      }
      *buf++ = '\0';
    }
  }
  f->res.local_bytes = (uint32_t)(p->local_off > UINT32_MAX ? UINT32_MAX : p->local_off);
  f->res.call_param_bytes = (uint32_t)(p->param_max > UINT32_MAX ? UINT32_MAX : p->param_max);
  return ptx_analyse_function(p, fi);
}

static bool parse_body(ptx_parser *p, uint32_t fi) {
  const uint32_t base = p->scopes.n;
  for (;;) {
    const ptx_token t = p->tok;
    if (t.kind == PTX_TOK_EOF) {
      if (p->failed) return false;
      return ptx_error_at(p, p->funcs.v[fi].decl_line, 1, "function '%s' has no closing '}'", p->funcs.v[fi].name);
    }
    if (ptx_is_punct(&t, '}')) {
      if (p->scopes.n == base) {
        ptx_next(p);
        return finish_function(p, fi, &t);
      }
      pop_scope(p);
      ptx_next(p);
      continue;
    }
    if (ptx_is_punct(&t, '{')) {
      if (!push_scope(p)) return false;
      ptx_next(p);
      continue;
    }
    if (ptx_is_punct(&t, ';')) {
      ptx_next(p);
      continue;
    }
    bool ok;
    if (is_directive(&t)) {
      ok = body_directive(p);
    } else if (t.kind == PTX_TOK_WORD && ptx_is_punct(ptx_peek(p), ':')) {
      ptx_next(p);
      ptx_next(p);
      if (ptx_is_word(&p->tok, ".callprototype")) ok = ptx_parse_callprototype(p, &t);
      else if (ptx_is_word(&p->tok, ".branchtargets")) ok = parse_targets(p, &t, false);
      else if (ptx_is_word(&p->tok, ".calltargets")) ok = parse_targets(p, &t, true);
      else ok = define_label(p, &t);
    } else if (t.kind == PTX_TOK_WORD || ptx_is_punct(&t, '@')) {
      ok = ptx_parse_instruction(p);
    } else {
      char buf[80];
      snprintf(buf, sizeof buf, "%.*s", (int)(t.len > 40 ? 40 : t.len), t.s);
      ok = ptx_error_tok(p, &t, "expected an instruction, label or directive, found '%s'", buf);
    }
    if (!ok) return false;
  }
}

/* [.visible|.extern|.weak] (.entry|.func) … ; or { body } */
static bool parse_function(ptx_parser *p, uint32_t linkage, bool entry) {
  const ptx_token dir = p->tok;
  ptx_next(p);
  uint32_t flags = (entry ? PTX_FN_ENTRY : 0) | (linkage & PTX_SYM_VISIBLE ? PTX_FN_VISIBLE : 0) |
                   (linkage & PTX_SYM_WEAK ? PTX_FN_WEAK : 0) | (linkage & PTX_SYM_EXTERN ? PTX_FN_EXTERN : 0);
  if (ptx_is_word(&p->tok, ".noreturn")) {
    flags |= PTX_FN_NORETURN;
    ptx_next(p);
  }
  reset_function_state(p);
  uint32_t fi = 0;
  if (!new_function(p, "", flags | PTX_FN_DECL_ONLY, dir.line, &fi)) return false;
  const uint32_t tentative = fi;
  if (!push_scope(p)) return false;
  p->fn = fi;
  ptx_u32_vec rets = {0};
  ptx_u32_vec args = {0};
  uint64_t rb = 0, ab = 0;
  bool ok = true;
  if (ptx_is_punct(&p->tok, '(')) {
    if (entry) ok = ptx_error_tok(p, &p->tok, ".entry functions have no return values");
    else ok = parse_params(p, fi, PARAM_RET, &rets, &rb);
  }
  const ptx_token name = p->tok;
  if (ok && (name.kind != PTX_TOK_WORD || name.s[0] == '.' || name.s[0] == '%'))
    ok = ptx_error_tok(p, &name, "expected a function name after %.*s", (int)dir.len, dir.s);
  if (ok) {
    ptx_next(p);
    /* a definition after a declaration reuses the declaration's index */
    const ptx_name_slot *sl = ptx_names_find(&p->names, name.s, name.len, ptx_hash(name.s, name.len));
    if (sl && sl->b.kind == PTX_BIND_FUNC && !(p->funcs.v[sl->b.index].flags & PTX_FN_PROTOTYPE) &&
        sl->b.count == UINT32_MAX) {
      fi = sl->b.index;
      p->fn = fi;
      for (uint32_t i = 0; i < rets.n; i++) p->syms.v[rets.v[i]].function = fi;
    } else if (sl && sl->b.kind != PTX_BIND_NONE && sl->b.count == UINT32_MAX) {
      ok = ptx_error_tok(p, &name, "'%.*s' is already declared as something else", (int)(name.len > 60 ? 60 : name.len), name.s);
    } else {
      p->funcs.v[fi].name = intern(p, &name);
      ok = p->funcs.v[fi].name && bind_name(p, &name, (ptx_binding){PTX_BIND_FUNC, 0, 0, fi, 0}, true);
    }
  }
  if (ok && ptx_is_punct(&p->tok, '(')) ok = parse_params(p, fi, entry ? PARAM_ENTRY : PARAM_FUNC, &args, &ab);
  ptx_function tmpf;
  memset(&tmpf, 0, sizeof tmpf);
  if (ok) ok = parse_function_attrs(p, &tmpf);
  bool has_body = ok && ptx_is_punct(&p->tok, '{');
  if (ok && !has_body) ok = ptx_expect(p, ';', "or '{' after the function header");
  if (ok) {
    ptx_function *f = &p->funcs.v[fi];
    if (has_body && !(f->flags & PTX_FN_DECL_ONLY) && fi != tentative)
      ok = ptx_error_tok(p, &name, "function '%s' is defined twice", f->name);
    if (ok && (fi == tentative || has_body)) {
      ok = append_param_list(p, rets.v, rets.n, &p->funcs.v[fi].first_ret) &&
           append_param_list(p, args.v, args.n, &p->funcs.v[fi].first_param);
      f = &p->funcs.v[fi];
      f->n_rets = rets.n;
      f->n_params = args.n;
      f->res.param_bytes = (uint32_t)(ab > UINT32_MAX ? UINT32_MAX : ab);
    }
    for (int i = 0; i < 3; i++) {
      if (tmpf.maxntid[i]) f->maxntid[i] = tmpf.maxntid[i];
      if (tmpf.reqntid[i]) f->reqntid[i] = tmpf.reqntid[i];
      if (tmpf.reqnctapercluster[i]) f->reqnctapercluster[i] = tmpf.reqnctapercluster[i];
    }
    if (tmpf.maxclusterrank) f->maxclusterrank = tmpf.maxclusterrank;
    f->flags |= tmpf.flags & PTX_FN_EXPLICIT_CLUSTER;
    if (tmpf.minnctapersm) f->minnctapersm = tmpf.minnctapersm;
    if (tmpf.maxnreg) f->maxnreg = tmpf.maxnreg;
    f->flags |= tmpf.flags & PTX_FN_NORETURN;
    if (fi != tentative) f->flags |= flags & (PTX_FN_VISIBLE | PTX_FN_WEAK | PTX_FN_NORETURN);
  }
  free(rets.v);
  free(args.v);
  if (ok && fi != tentative) {
    /* the tentative record is the last function: drop it (nothing refers to it) */
    if (tentative == p->funcs.n - 1) p->funcs.n--;
  }
  if (ok && has_body) {
    ptx_function *f = &p->funcs.v[fi];
    if (f->flags & PTX_FN_EXTERN) ok = ptx_error_tok(p, &name, ".extern function '%s' has a body", f->name);
    if (ok) {
      f->flags &= ~(uint32_t)(PTX_FN_DECL_ONLY | PTX_FN_EXTERN);
      f->first_insn = p->insns.n;
      f->first_block = p->blocks.n;
      ptx_next(p); /* { */
      ok = parse_body(p, fi);
    }
  } else if (ok && fi == tentative) {
    ptx_function *f = &p->funcs.v[fi];
    f->first_insn = p->insns.n;
    f->first_block = p->blocks.n;
  }
  pop_scope(p);
  p->fn = PTX_NONE;
  reset_function_state(p);
  return ok;
}

/* ---- module ---------------------------------------------------------------------------------- */

static bool parse_module_statement(ptx_parser *p) {
  const ptx_token t = p->tok;
  if (ptx_is_punct(&t, '@') && ptx_is_punct(ptx_peek(p), '@')) { /* @@DWARF lines of old debug PTX */
    ptx_skip_line(p, t.line);
    return true;
  }
  if (ptx_is_punct(&t, ';')) {
    ptx_next(p);
    return true;
  }
  if (t.kind == PTX_TOK_WORD && t.s[0] != '.' && ptx_is_punct(ptx_peek(p), ':')) {
    ptx_next(p);
    ptx_next(p);
    if (ptx_is_word(&p->tok, ".callprototype")) return ptx_parse_callprototype(p, &t);
    return ptx_error_tok(p, &t, "labels are only allowed inside functions");
  }
  if (!is_directive(&t)) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.*s", (int)(t.len > 40 ? 40 : t.len), t.s);
    return ptx_error_tok(p, &t, "expected a directive at module scope, found '%s'", buf);
  }
  if (ptx_is_word(&t, ".version")) {
    ptx_next(p);
    return parse_version(p);
  }
  if (ptx_is_word(&t, ".target")) {
    ptx_next(p);
    return parse_target(p);
  }
  if (ptx_is_word(&t, ".address_size")) {
    ptx_next(p);
    return parse_address_size(p);
  }
  if (ptx_is_word(&t, ".file")) {
    ptx_next(p);
    return parse_file(p);
  }
  if (ptx_is_word(&t, ".loc")) {
    ptx_next(p);
    return parse_loc(p);
  }
  if (ptx_is_word(&t, ".pragma")) {
    ptx_next(p);
    return parse_pragma(p);
  }
  if (ptx_is_word(&t, ".section")) { /* DWARF sections of -G output: not needed */
    ptx_next(p);
    ptx_skip_statement(p);
    return true;
  }
  uint16_t linkage = 0;
  for (;;) {
    if (ptx_is_word(&p->tok, ".visible")) linkage |= PTX_SYM_VISIBLE;
    else if (ptx_is_word(&p->tok, ".extern")) linkage |= PTX_SYM_EXTERN;
    else if (ptx_is_word(&p->tok, ".weak") || ptx_is_word(&p->tok, ".common")) linkage |= PTX_SYM_WEAK;
    else break;
    ptx_next(p);
  }
  const ptx_token d = p->tok;
  if (ptx_is_word(&d, ".entry")) return parse_function(p, linkage, true);
  if (ptx_is_word(&d, ".func")) return parse_function(p, linkage, false);
  static const struct {
    const char *word;
    ptx_space space;
  } spaces[] = {{".global", PTX_SPACE_GLOBAL}, {".const", PTX_SPACE_CONST}, {".shared", PTX_SPACE_SHARED},
                {".local", PTX_SPACE_LOCAL},   {".param", PTX_SPACE_PARAM}, {".tex", PTX_SPACE_TEX}};
  for (size_t i = 0; i < sizeof spaces / sizeof spaces[0]; i++)
    if (ptx_is_word(&d, spaces[i].word)) {
      ptx_next(p);
      return parse_var_decl(p, spaces[i].space, linkage, &d);
    }
  if (linkage) return ptx_error_tok(p, &d, "expected .entry, .func or a variable after a linkage directive");
  skip_unknown_directive(p);
  return !p->failed;
}

/* ---- layout ---------------------------------------------------------------------------------- */

static bool references_symbol(const ptx_operand *o, uint32_t *sym) {
  if (o->kind == PTX_OPND_SYMBOL) {
    *sym = o->index;
    return true;
  }
  if (o->kind == PTX_OPND_ADDR && o->base_sym != PTX_NONE) {
    *sym = o->base_sym;
    return true;
  }
  return false;
}

/* Lays out module segments (.global, .const, module .shared plus the .shared of non-entry
 * functions) and each kernel's own .shared frame after the module segment when the kernel (or
 * anything it may call) uses that segment, from 0 otherwise. */
static bool layout_module(ptx_parser *p) {
  uint64_t gseg = 0, cseg = 0, sseg = 0;
  const uint32_t nf = p->funcs.n;
  for (uint32_t i = 0; i < p->syms.n; i++) {
    ptx_symbol *s = &p->syms.v[i];
    bool module_level = s->function == PTX_NONE;
    bool in_entry = !module_level && (p->funcs.v[s->function].flags & PTX_FN_ENTRY);
    if (s->flags & (PTX_SYM_EXTERN | PTX_SYM_TEXREF)) continue; /* elsewhere; dynamic smem; handles */
    if (s->flags & (PTX_SYM_ENTRY_PARAM | PTX_SYM_FUNC_PARAM | PTX_SYM_CALL_PARAM)) continue;
    switch (s->space) {
    case PTX_SPACE_GLOBAL:
      if (s->flags & PTX_SYM_MANAGED) break; /* below, on pages of their own */
      s->offset = align_up(gseg, s->align);
      gseg = s->offset + s->size;
      break;
    case PTX_SPACE_CONST:
      s->offset = align_up(cseg, s->align);
      cseg = s->offset + s->size;
      break;
    case PTX_SPACE_SHARED:
      if (!in_entry) {
        s->offset = align_up(sseg, s->align);
        sseg = s->offset + s->size;
      }
      break;
    default: break;
    }
  }
  /* __managed__ variables: each on whole pages of its own after the other .global variables, so
   * the driver can migrate them page by page without moving anything else (docs/vm.md) */
  for (uint32_t i = 0; i < p->syms.n; i++) {
    ptx_symbol *s = &p->syms.v[i];
    if (!(s->flags & PTX_SYM_MANAGED) || (s->flags & PTX_SYM_EXTERN)) continue;
    s->offset = align_up(gseg, PTX_MANAGED_PAGE_BYTES);
    gseg = align_up(s->offset + (s->size ? s->size : 1), PTX_MANAGED_PAGE_BYTES);
  }
  /* Which functions may touch the module shared segment, themselves or through anything they may
   * call: propagated from the users to their callers over the reversed call graph (direct calls;
   * an indirect call may reach any address-taken function). Linear in the module's size. */
  uint8_t *addr_taken = calloc(nf ? nf : 1, 1);
  uint8_t *uses = calloc(nf ? nf : 1, 1);
  uint8_t *has_indirect = calloc(nf ? nf : 1, 1);
  uint32_t *first_caller = calloc((size_t)nf + 2, sizeof *first_caller);
  uint32_t *queue = calloc(nf ? nf : 1, sizeof *queue);
  uint32_t n_edges = 0;
  for (uint32_t k = 0; k < p->insns.n; k++)
    if (p->insns.v[k].opcode == PTX_OP_CALL && p->insns.v[k].ops[1].kind == PTX_OPND_FUNC) n_edges++;
  uint32_t *callers = calloc(n_edges ? n_edges : 1, sizeof *callers);
  if (!addr_taken || !uses || !has_indirect || !first_caller || !queue || !callers) {
    free(addr_taken), free(uses), free(has_indirect), free(first_caller), free(queue), free(callers);
    return ptx_nomem(p);
  }
  for (uint32_t r = 0; r < p->relocs.n; r++)
    if (p->relocs.v[r].is_function && p->relocs.v[r].target < nf) addr_taken[p->relocs.v[r].target] = 1;
  for (uint32_t k = 0; k < p->opnds.n; k++) /* .calltargets lists */
    if (p->opnds.v[k].kind == PTX_OPND_FUNC && p->opnds.v[k].index < nf) addr_taken[p->opnds.v[k].index] = 1;
  for (uint32_t k = 0; k < p->insns.n; k++) {
    const ptx_insn *in = &p->insns.v[k];
    for (uint32_t o = 0; o < in->nops; o++) {
      const ptx_operand *op = &in->ops[o];
      uint32_t sym;
      if (in->opcode == PTX_OP_CALL && o == 1) {
        if (op->kind == PTX_OPND_REG) has_indirect[in->function] = 1;
        else if (op->kind == PTX_OPND_FUNC) first_caller[op->index + 2]++;
        continue;
      }
      if (op->kind == PTX_OPND_FUNC) addr_taken[op->index] = 1;
      if (references_symbol(op, &sym) && sym < p->syms.n) {
        const ptx_symbol *s = &p->syms.v[sym];
        if (s->space == PTX_SPACE_SHARED && !(s->flags & PTX_SYM_EXTERN) &&
            (s->function == PTX_NONE || !(p->funcs.v[s->function].flags & PTX_FN_ENTRY)))
          uses[in->function] = 1;
      }
    }
  }
  for (uint32_t g = 0; g < nf; g++) first_caller[g + 2] += first_caller[g + 1];
  for (uint32_t k = 0; k < p->insns.n; k++) { /* callers of g at callers[first_caller[g] .. first_caller[g+1]) */
    const ptx_insn *in = &p->insns.v[k];
    if (in->opcode == PTX_OP_CALL && in->ops[1].kind == PTX_OPND_FUNC)
      callers[first_caller[in->ops[1].index + 1]++] = in->function;
  }
  uint32_t head = 0, tail = 0;
  for (uint32_t g = 0; g < nf; g++)
    if (uses[g]) queue[tail++] = g;
  bool indirect_done = false;
  while (head < tail) {
    uint32_t g = queue[head++];
    for (uint32_t e = first_caller[g]; e < first_caller[g + 1]; e++)
      if (!uses[callers[e]]) {
        uses[callers[e]] = 1;
        queue[tail++] = callers[e];
      }
    if (addr_taken[g] && !indirect_done) {
      indirect_done = true;
      for (uint32_t h = 0; h < nf; h++)
        if (has_indirect[h] && !uses[h]) {
          uses[h] = 1;
          queue[tail++] = h;
        }
    }
  }
  for (uint32_t e = 0; e < nf; e++)
    if ((p->funcs.v[e].flags & PTX_FN_ENTRY) && uses[e]) p->funcs.v[e].flags |= PTX_FN_USES_MODULE_SHARED_;
  free(addr_taken), free(uses), free(has_indirect), free(first_caller), free(queue), free(callers);
  /* one pass over the symbols: entries' own .shared after the segment when used, else from 0;
   * non-entry functions report the bytes of their own .shared variables */
  uint64_t *frame = calloc(nf ? nf : 1, sizeof *frame);
  if (!frame) return ptx_nomem(p);
  for (uint32_t e = 0; e < nf; e++) {
    ptx_function *f = &p->funcs.v[e];
    if (f->flags & PTX_FN_USES_MODULE_SHARED_) frame[e] = sseg;
    f->flags &= ~(uint32_t)PTX_FN_USES_MODULE_SHARED_;
  }
  for (uint32_t i = 0; i < p->syms.n; i++) {
    ptx_symbol *s = &p->syms.v[i];
    if (s->function == PTX_NONE || s->space != PTX_SPACE_SHARED || (s->flags & PTX_SYM_EXTERN)) continue;
    if (p->funcs.v[s->function].flags & PTX_FN_ENTRY) {
      s->offset = align_up(frame[s->function], s->align);
      frame[s->function] = s->offset + s->size;
    } else {
      frame[s->function] += s->size;
    }
  }
  for (uint32_t g = 0; g < nf; g++)
    p->funcs.v[g].res.shared_bytes = (uint32_t)(frame[g] > UINT32_MAX ? UINT32_MAX : frame[g]);
  free(frame);
  p->global_seg = gseg;
  p->const_seg = cseg;
  p->shared_seg = sseg;
  return true;
}

/* ---- the module ------------------------------------------------------------------------------ */

#define COPY_OUT(field, count, vec)                                                          \
  do {                                                                                       \
    m->count = (vec).n;                                                                      \
    if ((vec).n) {                                                                           \
      void *dst = ptx_arena_alloc(&impl->arena, (size_t)(vec).n * sizeof *(vec).v);          \
      if (!dst) return false;                                                                \
      memcpy(dst, (vec).v, (size_t)(vec).n * sizeof *(vec).v);                               \
      m->field = dst;                                                                        \
    }                                                                                        \
  } while (0)

static bool build_module(ptx_parser *p, ptx_module_impl *impl) {
  ptx_module *m = &impl->pub;
  m->version_major = p->version_major;
  m->version_minor = p->version_minor;
  m->target_sm = p->target_sm;
  m->address_size = p->address_size;
  m->global_segment_bytes = p->global_seg;
  m->const_segment_bytes = p->const_seg;
  m->shared_segment_bytes = p->shared_seg;
  if (!p->files.n) {
    if (!PTX_VEC_RESERVE(p->files, 1)) return false;
    p->files.v[p->files.n++] = "";
  }
  COPY_OUT(functions, n_functions, p->funcs);
  COPY_OUT(symbols, n_symbols, p->syms);
  COPY_OUT(insns, n_insns, p->insns);
  COPY_OUT(blocks, n_blocks, p->blocks);
  COPY_OUT(opnd_pool, n_opnd_pool, p->opnds);
  COPY_OUT(param_list, n_param_list, p->params);
  COPY_OUT(reg_names, n_reg_names, p->reg_names);
  COPY_OUT(relocs, n_relocs, p->relocs);
  COPY_OUT(files, n_files, p->files);
  COPY_OUT(succ_list, n_succ_list, p->succs);
  m->init_data_size = p->init.n;
  if (p->init.n) {
    uint8_t *d = ptx_arena_alloc(&impl->arena, p->init.n);
    if (!d) return false;
    memcpy(d, p->init.v, p->init.n);
    m->init_data = d;
  }
  return true;
}

static void parser_free(ptx_parser *p) {
  PTX_VEC_FREE(p->funcs);
  PTX_VEC_FREE(p->syms);
  PTX_VEC_FREE(p->insns);
  PTX_VEC_FREE(p->blocks);
  PTX_VEC_FREE(p->opnds);
  PTX_VEC_FREE(p->params);
  PTX_VEC_FREE(p->reg_names);
  PTX_VEC_FREE(p->init);
  PTX_VEC_FREE(p->relocs);
  PTX_VEC_FREE(p->files);
  PTX_VEC_FREE(p->succs);
  PTX_VEC_FREE(p->undo);
  PTX_VEC_FREE(p->fixups);
  PTX_VEC_FREE(p->scopes);
  for (int c = 0; c < PTX_RC_COUNT; c++) PTX_VEC_FREE(p->regs[c]);
  ptx_names_free(&p->names);
  ptx_names_free(&p->labels);
  ptx_names_free(&p->opcodes);
  ptx_names_free(&p->modifiers);
  ptx_names_free(&p->types);
  ptx_names_free(&p->sregs);
}

ptx_module *ptx_parse(const char *text, size_t len, const char *source_name, const simtvp_msg_port *warnings,
                      simtvp_diag *diag) {
  if (diag) simtvp_diag_clear(diag);
  if (!text && len) {
    simtvp_diag_set(diag, SIMTVP_ERR_ARG, "ptx_parse: NULL text with length %zu", len);
    return NULL;
  }
  if (len > UINT32_MAX) {
    simtvp_diag_set(diag, SIMTVP_ERR_LIMIT, "ptx_parse: input of %zu bytes is larger than 4 GiB", len);
    return NULL;
  }
  ptx_module_impl *impl = calloc(1, sizeof *impl);
  if (!impl) {
    simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "ptx_parse: out of memory");
    return NULL;
  }
  const char *name = source_name ? source_name : "<ptx>";
  impl->pub.source_name = ptx_arena_strndup(&impl->arena, name, strlen(name));
  ptx_parser *p = calloc(1, sizeof *p);
  if (!p || !impl->pub.source_name) {
    free(p);
    ptx_arena_free(&impl->arena);
    free(impl);
    simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "ptx_parse: out of memory");
    return NULL;
  }
  p->source_name = impl->pub.source_name;
  p->warn = warnings;
  p->diag = diag;
  p->arena = &impl->arena;
  p->fn = PTX_NONE;
  p->address_size = 64;
  bool ok = ptx_insn_tables_init(p);
  if (ok) {
    ptx_lex_init(p, text ? text : "", len);
    while (!p->failed && p->tok.kind != PTX_TOK_EOF)
      if (!parse_module_statement(p)) break;
    ok = !p->failed;
  }
  if (ok && !p->saw_version) ptx_warn_at(p, 1, 1, "no .version directive");
  if (ok) ok = layout_module(p);
  if (ok && !build_module(p, impl)) ok = ptx_nomem(p);
  parser_free(p);
  free(p);
  if (!ok) {
    ptx_arena_free(&impl->arena);
    free(impl);
    return NULL;
  }
  return &impl->pub;
}

ptx_module *ptx_parse_file(const char *path, const simtvp_msg_port *warnings, simtvp_diag *diag) {
  if (diag) simtvp_diag_clear(diag);
  if (!path) {
    simtvp_diag_set(diag, SIMTVP_ERR_ARG, "ptx_parse_file: NULL path");
    return NULL;
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    simtvp_diag_set(diag, SIMTVP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    simtvp_diag_at_file(diag, path, 0, 0);
    return NULL;
  }
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  while (buf) {
    if (len == cap) {
      char *nb = cap > ((size_t)1 << 32) ? NULL : realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
    size_t n = fread(buf + len, 1, cap - len, f);
    len += n;
    if (n == 0) break;
  }
  bool err = ferror(f);
  fclose(f);
  if (!buf || err) {
    free(buf);
    simtvp_diag_set(diag, buf ? SIMTVP_ERR_IO : SIMTVP_ERR_NOMEM, "%s: cannot read", path);
    simtvp_diag_at_file(diag, path, 0, 0);
    return NULL;
  }
  ptx_module *m = ptx_parse(buf, len, path, warnings, diag);
  free(buf);
  return m;
}

void ptx_module_destroy(ptx_module *m) {
  if (!m) return;
  ptx_module_impl *impl = (ptx_module_impl *)m;
  ptx_arena_free(&impl->arena);
  free(impl);
}

uint32_t ptx_find_function(const ptx_module *m, const char *name) {
  if (!m || !name) return PTX_NONE;
  for (uint32_t i = 0; i < m->n_functions; i++)
    if (!(m->functions[i].flags & PTX_FN_PROTOTYPE) && strcmp(m->functions[i].name, name) == 0) return i;
  return PTX_NONE;
}

uint32_t ptx_find_symbol(const ptx_module *m, const char *name) {
  if (!m || !name) return PTX_NONE;
  uint32_t fallback = PTX_NONE;
  for (uint32_t i = 0; i < m->n_symbols; i++) {
    const ptx_symbol *s = &m->symbols[i];
    if (strcmp(s->name, name) != 0) continue;
    if (s->function == PTX_NONE) return i;
    if (fallback == PTX_NONE && !(s->flags & (PTX_SYM_ENTRY_PARAM | PTX_SYM_FUNC_PARAM | PTX_SYM_CALL_PARAM)))
      fallback = i;
  }
  return fallback;
}
