/* ptx_internal — private state shared by the PTX front end's source files (not a public header).
 *
 * The parser builds the module in growable vectors (ptx_vec_*), interns names in an arena, and
 * resolves names through one scoped hash table (registers, variables, parameters, functions,
 * prototypes) plus a per-function label table. At the end of a successful parse the vectors are
 * copied into the module's arena, so a ptx_module is one arena and nothing else. */
#ifndef SIMTVP_PTX_INTERNAL_H
#define SIMTVP_PTX_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ptx.h"

/* ---- limits (documented in docs/ptx.md) ------------------------------------------------------ */
#define PTX_LIMIT_ELEMS (1u << 27)      /* elements in any one table (instructions, symbols …) */
#define PTX_LIMIT_EXPR_DEPTH 64         /* nesting of constant expressions */
#define PTX_LIMIT_INIT_DEPTH 16         /* nesting of { } in an initialiser */
#define PTX_LIMIT_SCOPE_DEPTH 64        /* nesting of { } blocks in a function body */
#define PTX_LIMIT_VAR_BYTES (1ull << 40) /* size of one variable */
#define PTX_LIMIT_INIT_BYTES (1ull << 27) /* initialiser bytes of a whole module (= PTX_LIMIT_ELEMS) */
#define PTX_LIMIT_REG_RANGE (1u << 22)  /* %r<N>: N */
#define PTX_LIMIT_FUNC_REGS (1u << 22)  /* registers of one function, all classes together */
#define PTX_LIMIT_FILES 65535           /* .file numbers */
#define PTX_LIMIT_VEC 128               /* elements of a { } vector operand (wgmma m64n256 f32: 128) */

/* ---- arena ----------------------------------------------------------------------------------- */
typedef struct ptx_arena_chunk ptx_arena_chunk;
typedef struct ptx_arena {
  ptx_arena_chunk *head;
} ptx_arena;

void *ptx_arena_alloc(ptx_arena *a, size_t bytes); /* 16-byte aligned, zeroed; NULL on failure */
char *ptx_arena_strndup(ptx_arena *a, const char *s, size_t n);
void ptx_arena_free(ptx_arena *a);

/* ---- growable vectors ------------------------------------------------------------------------ */
#define PTX_VEC(T) struct { T *v; uint32_t n, cap; }
/* Makes room for `need` elements; false when out of memory or over PTX_LIMIT_ELEMS. */
bool ptx_vec_reserve(void **v, uint32_t *cap, size_t elem, uint32_t need);
#define PTX_VEC_RESERVE(vec, need) \
  ((need) <= (vec).cap || ptx_vec_reserve((void **)&(vec).v, &(vec).cap, sizeof *(vec).v, (need)))
typedef PTX_VEC(uint32_t) ptx_u32_vec;
#define PTX_VEC_FREE(vec) (free((vec).v), (vec).v = NULL, (vec).n = (vec).cap = 0)

/* ---- name table ------------------------------------------------------------------------------ */
typedef enum ptx_bind_kind {
  PTX_BIND_NONE = 0,
  PTX_BIND_REG,      /* index = register index in rclass */
  PTX_BIND_REGRANGE, /* %name<count>: registers name0..name(count-1) at index.. in rclass */
  PTX_BIND_SYM,      /* index = symbol */
  PTX_BIND_FUNC,     /* index = function (PTX_FN_PROTOTYPE for a .callprototype) */
  PTX_BIND_TARGETS   /* .branchtargets / .calltargets list: index = first at opnd pool, count */
} ptx_bind_kind;

typedef struct ptx_binding {
  uint8_t kind;   /* ptx_bind_kind */
  uint8_t rclass; /* REG/REGRANGE */
  uint8_t type;   /* REG/REGRANGE: declared ptx_type */
  uint32_t index;
  uint32_t count;
} ptx_binding;

typedef struct ptx_name_slot {
  const char *key; /* NULL = empty */
  uint32_t len, hash;
  ptx_binding b;
} ptx_name_slot;

typedef struct ptx_names {
  ptx_name_slot *slots;
  uint32_t cap, used; /* cap is a power of two */
} ptx_names;

uint32_t ptx_hash(const char *s, uint32_t n);
/* Slot for key (existing or a fresh empty one claimed for it); NULL when out of memory. */
ptx_name_slot *ptx_names_slot(ptx_names *t, const char *key, uint32_t len, uint32_t hash);
const ptx_name_slot *ptx_names_find(const ptx_names *t, const char *key, uint32_t len, uint32_t hash);
void ptx_names_free(ptx_names *t);

/* ---- lexer ----------------------------------------------------------------------------------- */
typedef enum ptx_tok_kind {
  PTX_TOK_EOF = 0,
  PTX_TOK_WORD,   /* identifier, directive (.reg), opcode with modifiers (ld.global.u32), %reg */
  PTX_TOK_NUMBER, /* integer or float literal, raw text */
  PTX_TOK_STRING, /* "…" (text without quotes) */
  PTX_TOK_PUNCT   /* one character: , ; ( ) { } [ ] < > + - * / | ! @ = : ~ & ^ % */
} ptx_tok_kind;

typedef struct ptx_token {
  uint8_t kind;
  char c;        /* PUNCT: the character */
  uint32_t len;
  const char *s;
  uint32_t line, col;
} ptx_token;

/* ---- parser state ---------------------------------------------------------------------------- */
typedef struct ptx_undo { /* restores a name's previous binding when its scope ends */
  const char *key;
  uint32_t len, hash;
  ptx_binding old;
} ptx_undo;

typedef struct ptx_fixup { /* a branch to a label not yet seen */
  uint32_t insn, opnd;     /* opnd: operand index, or pool index when in_pool */
  bool in_pool;
  const char *name;
  uint32_t len, line, col;
} ptx_fixup;

typedef struct ptx_regname { /* how to spell register i of a class at function end */
  const char *prefix;
  uint32_t len;
  uint32_t number; /* UINT32_MAX: prefix is the whole name */
} ptx_regname;

typedef struct ptx_scope_rec {
  uint32_t undo_mark;   /* undo log length at scope entry */
  uint64_t param_start; /* call-parameter frame offset at entry */
} ptx_scope_rec;

typedef struct ptx_parser {
  const char *src, *end, *cur; /* input and lexer position */
  uint32_t line;
  const char *line_start;
  const char *source_name;
  const simtvp_msg_port *warn;
  simtvp_diag *diag;
  bool failed; /* sticky: once set, the lexer returns EOF and every loop winds down */

  ptx_token tok;  /* current token */
  ptx_token peek; /* next token when has_peek */
  bool has_peek;

  ptx_arena *arena; /* the module's arena */

  PTX_VEC(ptx_function) funcs;
  PTX_VEC(ptx_symbol) syms;
  PTX_VEC(ptx_insn) insns;
  PTX_VEC(ptx_block) blocks;
  PTX_VEC(ptx_operand) opnds;
  PTX_VEC(uint32_t) params;
  PTX_VEC(const char *) reg_names;
  PTX_VEC(uint8_t) init;
  PTX_VEC(ptx_reloc) relocs;
  PTX_VEC(const char *) files;
  PTX_VEC(uint32_t) succs;

  ptx_names names;  /* scoped: registers, variables, parameters, functions, prototypes */
  PTX_VEC(ptx_undo) undo;
  ptx_names labels; /* per function: label -> instruction index (module-wide); freed at its end */
  PTX_VEC(ptx_fixup) fixups;
  PTX_VEC(ptx_scope_rec) scopes;

  /* opcode and modifier dictionaries, built per parse (no global state) */
  ptx_names opcodes;   /* first dotted component -> opcode (index = opcode, count = n components) */
  ptx_names modifiers; /* modifier text without the dot -> ptx_mod_word id */
  ptx_names types;     /* type text without the dot -> ptx_type */
  ptx_names sregs;     /* special register name -> ptx_sreg */

  /* current function */
  uint32_t fn;                         /* PTX_NONE at module scope */
  PTX_VEC(ptx_regname) regs[PTX_RC_COUNT];
  uint64_t local_off, shared_off, param_off, param_max;
  uint16_t loc_file; /* current .loc */
  uint32_t loc_line;

  uint64_t global_seg, const_seg, shared_seg; /* module segment sizes (layout) */
  uint32_t version_major, version_minor, target_sm, address_size;
  bool saw_version;
} ptx_parser;

/* error helpers (ptx_lex.c) */
bool ptx_error_at(ptx_parser *p, uint32_t line, uint32_t col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
bool ptx_error_tok(ptx_parser *p, const ptx_token *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void ptx_warn_at(ptx_parser *p, uint32_t line, uint32_t col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
bool ptx_nomem(ptx_parser *p);
bool ptx_limit(ptx_parser *p, const ptx_token *at, const char *what); /* at NULL: current token */

/* lexer (ptx_lex.c) */
void ptx_lex_init(ptx_parser *p, const char *text, size_t len);
void ptx_next(ptx_parser *p);                 /* advance tok */
const ptx_token *ptx_peek(ptx_parser *p);     /* the token after tok */
bool ptx_is_punct(const ptx_token *t, char c);
bool ptx_is_word(const ptx_token *t, const char *w);
bool ptx_accept(ptx_parser *p, char c);       /* consume PUNCT c if present */
bool ptx_expect(ptx_parser *p, char c, const char *where);
void ptx_skip_line(ptx_parser *p, uint32_t line); /* skip tokens until one on a later line */
void ptx_skip_statement(ptx_parser *p);        /* to ';' (consumed) or a balanced { } block */

/* numbers and constant expressions (ptx_lex.c) */
typedef struct ptx_number {
  bool is_float;  /* value is float bits (f32 when is_f32, else f64) */
  bool is_f32;
  uint64_t bits;  /* integer value or float bits */
} ptx_number;
bool ptx_parse_number_text(const char *s, uint32_t len, ptx_number *out);
/* A constant integer expression; false after reporting an error. */
bool ptx_const_expr(ptx_parser *p, int64_t *out);

/* names (ptx_parse.c) */
bool ptx_bind(ptx_parser *p, const ptx_token *name, ptx_binding b);
const ptx_binding *ptx_lookup(ptx_parser *p, const char *s, uint32_t len, ptx_binding *tmp);
uint32_t ptx_add_operands(ptx_parser *p, const ptx_operand *ops, uint32_t n); /* pool index */

/* instructions (ptx_insn.c) */
bool ptx_insn_tables_init(ptx_parser *p);
bool ptx_parse_instruction(ptx_parser *p); /* at a guard '@' or an opcode word */
/* ptx_type named by a directive word without its dot ("b32"), or -1. Also texref-like words: -1. */
int ptx_word_type(ptx_parser *p, const char *s, uint32_t len);
/* Adds an instruction to the current function; false on out-of-memory. */
bool ptx_push_insn(ptx_parser *p, const ptx_insn *in);
bool ptx_parse_callprototype(ptx_parser *p, const ptx_token *label); /* at .callprototype */

/* analysis (ptx_analysis.c): CFG, post-dominators, liveness of function fn */
bool ptx_analyse_function(ptx_parser *p, uint32_t fn);
/* Registers read and written by an instruction (destination rule documented in ptx.h). */
typedef void (*ptx_reg_visit)(void *ctx, uint8_t rclass, uint32_t index, bool is_def);
void ptx_insn_visit_regs(const ptx_operand *pool, const ptx_insn *in, ptx_reg_visit fn, void *ctx);

#endif /* SIMTVP_PTX_INTERNAL_H */
