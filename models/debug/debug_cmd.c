/* debug_cmd — the debugger's commands: parsing, the small expression language of addresses and
 * values (numbers, registers of the focus thread, $pc, $paramN, special registers, + - * and
 * parentheses), and what each command does (docs/debugger.md "Commands"). Every mistake in a
 * command is answered with a message naming what was wrong; nothing a user types can crash it. */
#include "debug_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOKENS 48

typedef struct cmdline {
  char buf[DBG_LINE];
  char *tok[MAX_TOKENS];
  uint32_t n;
  const char *rest[MAX_TOKENS]; /* the original text from token i on */
} cmdline;

static void split(cmdline *c, const char *line) {
  snprintf(c->buf, sizeof c->buf, "%s", line);
  c->n = 0;
  char *p = c->buf;
  while (*p && c->n < MAX_TOKENS) {
    while (*p && isspace((unsigned char)*p)) p++;
    if (!*p) break;
    c->rest[c->n] = line + (p - c->buf);
    c->tok[c->n++] = p;
    while (*p && !isspace((unsigned char)*p)) p++;
    if (*p) *p++ = '\0';
  }
}

static bool is_number(const char *s) {
  if (!*s) return false;
  char *end;
  strtoull(s, &end, 0);
  return *end == '\0' && (isdigit((unsigned char)s[0]));
}

static bool need_focus(dbg *d) {
  if (d->focus && d->focus_L) return true;
  dbg_out(d, d->n_launches ? "No warp in focus: select one with `cta`, `warp` or `thread`.\n"
                           : "No kernel is running.\n");
  return false;
}

/* ---- coordinates ----------------------------------------------------------------------------------- */

/* Parses "X[,Y[,Z]]" (parentheses and spaces after commas allowed) from tokens i.. */
static bool parse_coords(dbg *d, cmdline *c, uint32_t *i, uint32_t out[3]) {
  if (*i >= c->n) {
    dbg_out(d, "Expected coordinates X[,Y[,Z]].\n");
    return false;
  }
  char text[128] = "";
  size_t len = 0;
  do {
    const char *t = c->tok[(*i)++];
    size_t tl = strlen(t);
    if (len + tl + 1 >= sizeof text) break;
    memcpy(text + len, t, tl + 1);
    len += tl;
  } while (len && text[len - 1] == ',' && *i < c->n);
  out[0] = out[1] = out[2] = 0;
  char *p = text;
  if (*p == '(') p++;
  for (int k = 0; k < 3; k++) {
    char *end;
    if (!isdigit((unsigned char)*p)) goto bad;
    unsigned long long v = strtoull(p, &end, 0);
    if (v > UINT32_MAX) goto bad;
    out[k] = (uint32_t)v;
    p = end;
    if (*p == ',') {
      p++;
      continue;
    }
    break;
  }
  if (*p == ')') p++;
  if (*p) goto bad;
  return true;
bad:
  dbg_out(d, "Bad coordinates '%s': expected X[,Y[,Z]].\n", text);
  return false;
}

/* ---- expressions ------------------------------------------------------------------------------------ */

typedef struct expr {
  dbg *d;
  const char *s;
  bool failed;
} expr;

static void skip_ws(expr *e) {
  while (isspace((unsigned char)*e->s)) e->s++;
}

static uint64_t expr_fail(expr *e, const char *fmt, const char *what) {
  if (!e->failed) dbg_out(e->d, fmt, what);
  e->failed = true;
  return 0;
}

static uint64_t parse_sum(expr *e);

/* A special register of the focus thread ("%tid.x", "%laneid" …); false when `name` is none. */
static bool special_value(dbg *d, const char *name, uint64_t *v) {
  static const char *const vecs[] = {"%tid", "%ntid", "%ctaid", "%nctaid"};
  uint32_t ctaid[3], tid[3], sm, slot;
  func_cta_place(func_warp_cta(d->focus), ctaid, &sm, &slot);
  func_warp_thread(d->focus, d->focus_lane, tid);
  func_warp_info wi;
  func_warp_get_info(d->focus, &wi);
  for (int k = 0; k < 4; k++) {
    size_t n = strlen(vecs[k]);
    if (strncmp(name, vecs[k], n) || name[n] != '.' || !name[n + 1] || name[n + 2]) continue;
    int dim = name[n + 1] - 'x';
    if (dim < 0 || dim > 2) return false;
    const uint32_t *src = k == 0 ? tid : k == 1 ? d->focus_L->lp.block : k == 2 ? ctaid : d->focus_L->lp.grid;
    *v = src[dim];
    return true;
  }
  if (!strcmp(name, "%laneid")) *v = d->focus_lane;
  else if (!strcmp(name, "%warpid")) *v = slot + wi.index;
  else if (!strcmp(name, "%smid")) *v = sm;
  else return false;
  return true;
}

/* Kernel parameter i of the focus launch as an unsigned integer. */
static bool param_value(dbg *d, uint32_t i, uint64_t *v) {
  const dbg_launch *L = d->focus_L;
  const ptx_function *f = &L->m->functions[L->lp.kernel];
  if (i >= f->n_params) return false;
  const ptx_symbol *sym = &L->m->symbols[L->m->param_list[f->first_param + i]];
  if (sym->size > 8 || sym->offset + sym->size > L->lp.param_bytes) return false;
  *v = 0;
  memcpy(v, (const uint8_t *)L->lp.params + sym->offset, sym->size);
  return true;
}

static uint64_t parse_primary(expr *e) {
  dbg *d = e->d;
  skip_ws(e);
  const char *s = e->s;
  if (*s == '(') {
    e->s++;
    uint64_t v = parse_sum(e);
    skip_ws(e);
    if (*e->s != ')') return expr_fail(e, "Missing ')' in '%s'.\n", s);
    e->s++;
    return v;
  }
  if (*s == '-') {
    e->s++;
    return (uint64_t)0 - parse_primary(e);
  }
  if (isdigit((unsigned char)*s)) {
    char *end;
    uint64_t v = strtoull(s, &end, 0);
    if (isalnum((unsigned char)*end) || *end == '_') return expr_fail(e, "Bad number '%s'.\n", s);
    e->s = end;
    return v;
  }
  if (*s == '%' || *s == '$') {
    char name[128];
    size_t n = 0;
    name[n++] = *s++;
    while ((isalnum((unsigned char)*s) || *s == '_' || *s == '.') && n + 1 < sizeof name) name[n++] = *s++;
    name[n] = '\0';
    e->s = s;
    if (!d->focus || !d->focus_L) return expr_fail(e, "'%s' needs a warp in focus (no kernel is stopped).\n", name);
    uint64_t v;
    if (!strcmp(name, "$pc")) return dbg_warp_pc(d, d->focus);
    if (!strncmp(name, "$param", 6)) {
      char *end;
      unsigned long k = strtoul(name + 6, &end, 10);
      if (name[6] && !*end && param_value(d, (uint32_t)k, &v)) return v;
      return expr_fail(e, "No kernel parameter '%s' (`info params` lists them).\n", name);
    }
    if (name[0] == '%' && special_value(d, name, &v)) return v;
    uint32_t c, i;
    if (name[0] == '%' && dbg_find_register(d, name, &c, &i)) {
      uint64_t r[2];
      uint32_t lane = d->focus_lane;
      skip_ws(e);
      if (*e->s == '[') { /* %r5[lane] */
        e->s++;
        uint64_t l = parse_sum(e);
        skip_ws(e);
        if (*e->s != ']' || l > 31) return expr_fail(e, "Bad lane in '%s': expected [0..31].\n", name);
        e->s++;
        lane = (uint32_t)l;
      }
      func_warp_read_reg(d->focus, c, i, lane, r);
      return r[0];
    }
    return expr_fail(e, "No register '%s' in the focus warp's function.\n", name);
  }
  /* a kernel parameter by its PTX name */
  char name[DBG_NAME];
  size_t n = 0;
  while ((isalnum((unsigned char)*s) || *s == '_' || *s == '$' || *s == '.') && n + 1 < sizeof name) name[n++] = *s++;
  name[n] = '\0';
  if (!n) return expr_fail(e, "Expected a number, register or parameter at '%s'.\n", e->s);
  e->s = s;
  if (d->focus_L) {
    const dbg_launch *L = d->focus_L;
    const ptx_function *f = &L->m->functions[L->lp.kernel];
    for (uint32_t i = 0; i < f->n_params; i++) {
      uint64_t v;
      if (!strcmp(L->m->symbols[L->m->param_list[f->first_param + i]].name, name) && param_value(d, i, &v)) return v;
    }
  }
  return expr_fail(e, "Unknown name '%s'.\n", name);
}

static uint64_t parse_product(expr *e) {
  uint64_t v = parse_primary(e);
  for (;;) {
    skip_ws(e);
    if (*e->s != '*') return v;
    e->s++;
    v *= parse_primary(e);
  }
}

static uint64_t parse_sum(expr *e) {
  uint64_t v = parse_product(e);
  for (;;) {
    skip_ws(e);
    if (*e->s == '+') {
      e->s++;
      v += parse_product(e);
    } else if (*e->s == '-') {
      e->s++;
      v -= parse_product(e);
    } else {
      return v;
    }
  }
}

/* Evaluates text as a whole; false (after a message) when it is not an expression. */
static bool eval(dbg *d, const char *text, uint64_t *out) {
  expr e = {d, text, false};
  uint64_t v = parse_sum(&e);
  if (e.failed) return false;
  skip_ws(&e);
  if (*e.s) {
    dbg_out(d, "Unexpected '%s' in the expression.\n", e.s);
    return false;
  }
  *out = v;
  return true;
}

/* ---- break, watch, delete ------------------------------------------------------------------------------ */

static dbg_point *new_point(dbg *d, uint8_t kind) {
  if (d->n_pts == d->cap_pts) {
    uint32_t cap = d->cap_pts ? d->cap_pts * 2 : 16;
    dbg_point *n = realloc(d->pts, cap * sizeof *n);
    if (!n) {
      dbg_out(d, "Out of host memory.\n");
      return NULL;
    }
    d->pts = n;
    d->cap_pts = cap;
  }
  dbg_point *p = &d->pts[d->n_pts];
  memset(p, 0, sizeof *p);
  p->kind = kind;
  p->enabled = true;
  return p;
}

static void copy_name(char *dst, const char *src) { snprintf(dst, DBG_NAME, "%s", src); }

/* Optional filters after a breakpoint's place: kernel NAME|N, cta C, thread T. */
static bool parse_filters(dbg *d, cmdline *c, uint32_t i, dbg_point *p) {
  while (i < c->n) {
    const char *w = c->tok[i++];
    if (!strcmp(w, "kernel")) {
      if (i >= c->n) {
        dbg_out(d, "break: `kernel` needs a name or launch number.\n");
        return false;
      }
      const char *k = c->tok[i++];
      if (is_number(k)) p->launch_no = strtoull(k, NULL, 0);
      else copy_name(p->kernel, k);
    } else if (!strcmp(w, "cta")) {
      if (!parse_coords(d, c, &i, p->cta)) return false;
      p->has_cta = true;
    } else if (!strcmp(w, "thread")) {
      if (!parse_coords(d, c, &i, p->thread)) return false;
      p->has_thread = true;
    } else {
      dbg_out(d, "break: unexpected '%s' (filters are: kernel NAME|N, cta X,Y,Z, thread X,Y,Z).\n", w);
      return false;
    }
  }
  return true;
}

static void cmd_break(dbg *d, cmdline *c) {
  if (c->n < 2) {
    dbg_out(d, "break: where? kernel NAME|N, LINE (PTX), FILE:LINE (source), FILE.ptx:LINE, *PC, cta X,Y,Z or "
               "thread X,Y,Z, then optional filters kernel/cta/thread.\n");
    return;
  }
  dbg_point tmp;
  memset(&tmp, 0, sizeof tmp);
  tmp.enabled = true;
  uint32_t i = 1;
  const char *w = c->tok[i++];
  const char *colon = strrchr(w, ':');
  if (!strcmp(w, "kernel")) {
    if (i >= c->n) {
      dbg_out(d, "break kernel: which kernel? A name (as in the PTX or demangled) or a launch number.\n");
      return;
    }
    tmp.kind = DBG_BP_KERNEL;
    const char *k = c->tok[i];
    if (is_number(k)) {
      tmp.launch_no = strtoull(k, NULL, 0);
      if (!tmp.launch_no) {
        dbg_out(d, "break kernel: launch numbers start at 1.\n");
        return;
      }
      i++;
    } else {
      /* a demangled name may hold spaces: up to the first filter word */
      char name[DBG_NAME] = "";
      size_t len = 0;
      while (i < c->n && strcmp(c->tok[i], "cta") && strcmp(c->tok[i], "thread")) {
        len += (size_t)snprintf(name + len, len < sizeof name ? sizeof name - len : 0, "%s%s", len ? " " : "", c->tok[i++]);
        if (len >= sizeof name) break;
      }
      copy_name(tmp.kernel, name);
    }
  } else if (!strcmp(w, "cta")) {
    tmp.kind = DBG_BP_CTA;
    if (!parse_coords(d, c, &i, tmp.cta)) return;
    tmp.has_cta = true;
  } else if (!strcmp(w, "thread")) {
    tmp.kind = DBG_BP_THREAD;
    if (!parse_coords(d, c, &i, tmp.thread)) return;
    tmp.has_thread = true;
  } else if (w[0] == '*') {
    uint64_t pc;
    if (!w[1]) {
      dbg_out(d, "break: '*' needs a pc: break *PC (the module-wide instruction index that `list` shows).\n");
      return;
    }
    if (!eval(d, w + 1, &pc)) return;
    if (pc > UINT32_MAX) {
      dbg_out(d, "break: pc %llu is not an instruction.\n", (unsigned long long)pc);
      return;
    }
    tmp.kind = DBG_BP_PC;
    tmp.pc = (uint32_t)pc;
  } else if (is_number(w)) {
    tmp.kind = DBG_BP_PTX;
    tmp.line = (uint32_t)strtoul(w, NULL, 10);
  } else if (colon && colon != w && is_number(colon + 1)) {
    size_t fl = (size_t)(colon - w);
    if (fl >= DBG_NAME) fl = DBG_NAME - 1;
    memcpy(tmp.file, w, fl);
    tmp.file[fl] = '\0';
    tmp.line = (uint32_t)strtoul(colon + 1, NULL, 10);
    tmp.kind = fl > 4 && !strcmp(tmp.file + fl - 4, ".ptx") ? DBG_BP_PTX : DBG_BP_SOURCE;
  } else if (w[0] == '-' || w[0] == '%' || w[0] == '$') {
    dbg_out(d, "break: '%s' is not a place (kernel NAME|N, LINE, FILE:LINE, cta X,Y,Z, thread X,Y,Z).\n", w);
    return;
  } else {
    tmp.kind = DBG_BP_KERNEL;
    copy_name(tmp.kernel, w);
  }
  if ((tmp.kind == DBG_BP_PTX || tmp.kind == DBG_BP_SOURCE) && tmp.line == 0) {
    dbg_out(d, "break: line numbers start at 1.\n");
    return;
  }
  if (tmp.kind == DBG_BP_CTA) { /* `break cta C thread T` is a thread breakpoint in that CTA */
    if (!parse_filters(d, c, i, &tmp)) return;
    if (tmp.has_thread) tmp.kind = DBG_BP_THREAD;
  } else if (!parse_filters(d, c, i, &tmp)) {
    return;
  }
  if (tmp.kind == DBG_BP_KERNEL && (tmp.has_cta || tmp.has_thread)) {
    dbg_out(d, "break kernel: stops at the kernel's first instruction; for a CTA or thread use `break cta X,Y,Z "
               "kernel NAME` or `break thread X,Y,Z kernel NAME`.\n");
    return;
  }
  dbg_point *p = new_point(d, tmp.kind);
  if (!p) return;
  *p = tmp;
  p->id = d->next_id++;
  d->n_pts++;
  char what[DBG_NAME * 2];
  dbg_describe_point(p, what, sizeof what);
  static const char *const kinds[] = {"kernel ", "PTX ", "source line ", "start of ", "start of ", "", ""};
  dbg_out(d, "Breakpoint %u: %s%s", p->id, kinds[p->kind], what);
  if (p->kind == DBG_BP_PTX || p->kind == DBG_BP_SOURCE || p->kind == DBG_BP_PC) {
    /* say where it is in the running kernels, if any */
    dbg_resolve_all(d);
    uint32_t launches, n = dbg_point_resolved(d, p, &launches);
    if (d->n_launches && n) dbg_out(d, " (%u instruction%s in %u running kernel%s)", n, n == 1 ? "" : "s", launches,
                                    launches == 1 ? "" : "s");
    else if (d->n_launches) dbg_out(d, " (not in the running kernels: pending)");
  }
  dbg_out(d, "\n");
}

static bool parse_format(dbg *d, const char *spec, char *fmt, char *unit, uint32_t *count) {
  for (const char *p = spec; *p;) {
    if (isdigit((unsigned char)*p)) {
      char *end;
      unsigned long n = strtoul(p, &end, 10);
      if (!count || n == 0 || n > 4096) {
        dbg_out(d, "Bad count in '/%s' (1..4096).\n", spec);
        return false;
      }
      *count = (uint32_t)n;
      p = end;
    } else if (strchr("xducf", *p)) {
      *fmt = *p++;
    } else if (unit && strchr("bhwg", *p)) {
      *unit = *p++;
    } else {
      dbg_out(d, "Bad format '/%s': formats x d u c f, sizes b h w g.\n", spec);
      return false;
    }
  }
  return true;
}

static uint32_t unit_bytes(char u) { return u == 'b' ? 1 : u == 'h' ? 2 : u == 'g' ? 8 : 4; }

static void cmd_watch(dbg *d, cmdline *c, const char *spec) {
  char fmt = 'x', unit = 0;
  if (spec && !parse_format(d, spec, &fmt, &unit, NULL)) return;
  if (c->n < 2) {
    dbg_out(d, "watch: which address? watch[/FMT] ADDRESS [BYTES], e.g. watch/fw $param2+16\n");
    return;
  }
  /* the last token is a size when there are two or more and it is a plain number 1|2|4|8 */
  uint32_t bytes = unit ? unit_bytes(unit) : (fmt == 'c' ? 1 : 4);
  char text[DBG_LINE];
  snprintf(text, sizeof text, "%s", c->rest[1]);
  if (c->n >= 3 && is_number(c->tok[c->n - 1])) {
    unsigned long b = strtoul(c->tok[c->n - 1], NULL, 0);
    if (b != 1 && b != 2 && b != 4 && b != 8) {
      dbg_out(d, "watch: %lu bytes: a watchpoint covers 1, 2, 4 or 8 bytes.\n", b);
      return;
    }
    bytes = (uint32_t)b;
    text[c->rest[c->n - 1] - c->rest[1]] = '\0';
  }
  uint64_t addr;
  if (!eval(d, text, &addr)) return;
  if (addr >= FUNC_WINDOW_LO && addr < FUNC_WINDOW_HI) {
    dbg_out(d, "watch: 0x%llx is a shared, local or parameter address; watchpoints are on global memory.\n",
            (unsigned long long)addr);
    return;
  }
  dbg_point *p = new_point(d, DBG_WATCH);
  if (!p) return;
  p->id = d->next_id++;
  p->addr = addr;
  p->bytes = bytes;
  p->fmt = fmt;
  d->n_pts++;
  dbg_resolve_all(d);
  p->old_valid = dbg_watch_read(d, p, p->old);
  dbg_out(d, "Watchpoint %u: 0x%llx (%u bytes)", p->id, (unsigned long long)addr, bytes);
  if (p->old_valid) {
    char v[64];
    dbg_format_value(p->old, bytes, fmt, v, sizeof v);
    dbg_out(d, ", now %s\n", v);
  } else {
    dbg_out(d, "%s\n", dbg_devmem(d) ? ", not mapped now" : "");
  }
}

static void cmd_delete(dbg *d, cmdline *c, int mode /* 0 delete, 1 disable, 2 enable */) {
  static const char *const names[] = {"delete", "disable", "enable"};
  if (c->n < 2) {
    if (mode == 0) {
      d->n_pts = 0;
      dbg_out(d, "Deleted every breakpoint and watchpoint.\n");
    } else {
      for (uint32_t i = 0; i < d->n_pts; i++) d->pts[i].enabled = mode == 2;
      dbg_out(d, "%s every breakpoint and watchpoint.\n", mode == 2 ? "Enabled" : "Disabled");
    }
  }
  for (uint32_t k = 1; k < c->n; k++) {
    if (!is_number(c->tok[k])) {
      dbg_out(d, "%s: '%s' is not a breakpoint number (`info breakpoints`).\n", names[mode], c->tok[k]);
      continue;
    }
    uint32_t id = (uint32_t)strtoul(c->tok[k], NULL, 0);
    dbg_point *p = dbg_point_by_id(d, id);
    if (!p) {
      dbg_out(d, "%s: no breakpoint number %u.\n", names[mode], id);
      continue;
    }
    if (mode == 0) {
      size_t i = (size_t)(p - d->pts);
      memmove(p, p + 1, (d->n_pts - i - 1) * sizeof *p);
      d->n_pts--;
      dbg_out(d, "Deleted %u.\n", id);
    } else {
      p->enabled = mode == 2;
      if (p->kind == DBG_WATCH && p->enabled) p->old_valid = dbg_watch_read(d, p, p->old);
    }
  }
  /* pending kernel stops and CTA/thread stops of deleted or disabled points lapse */
  for (uint32_t i = 0; i < d->n_launches; i++) {
    dbg_point *p = dbg_point_by_id(d, d->launches[i]->kernel_stop);
    if (!p || !p->enabled) d->launches[i]->kernel_stop = 0;
  }
  for (uint32_t i = 0; i < d->n_ctas; i++) {
    dbg_cta *r = &d->ctas[i];
    dbg_point *p = dbg_point_by_id(d, r->pending);
    if (r->pending && (!p || !p->enabled)) {
      r->pending = 0;
      d->n_pending--;
    }
  }
  dbg_resolve_all(d);
}

/* ---- print, x -------------------------------------------------------------------------------------------- */

static void print_register(dbg *d, const char *name, uint32_t rc, uint32_t ri, const char *lanes, char fmt) {
  func_warp_info wi;
  func_warp_get_info(d->focus, &wi);
  if (!lanes) {
    char v[128];
    dbg_register_text(d, name, rc, ri, d->focus_lane, fmt, v, sizeof v);
    dbg_out(d, "%s = %s\n", name, v);
    return;
  }
  if (strcmp(lanes, "*")) {
    char *end;
    unsigned long lane = strtoul(lanes, &end, 10);
    if (*end || !*lanes || lane > 31) {
      dbg_out(d, "Bad lane '%s': expected [0..31] or [*].\n", lanes);
      return;
    }
    char v[128];
    dbg_register_text(d, name, rc, ri, (uint32_t)lane, fmt, v, sizeof v);
    dbg_out(d, "%s[%lu] = %s\n", name, lane, v);
    return;
  }
  char f = fmt ? fmt : dbg_register_format(name, rc);
  dbg_out(d, "%s, lanes 0-31 (* = active at pc %u):\n", name, wi.pc);
  for (uint32_t row = 0; row < 32; row += 4) {
    char line[512];
    size_t o = 0;
    for (uint32_t lane = row; lane < row + 4; lane++) {
      char v[128];
      dbg_register_text(d, name, rc, ri, lane, f, v, sizeof v);
      bool valid = (wi.valid >> lane) & 1u;
      o += (size_t)snprintf(line + o, sizeof line - o, "  [%2u]%c %-14s", lane,
                            !valid ? ' ' : ((wi.active >> lane) & 1u) ? '*' : ' ', valid ? v : "-");
      if (o >= sizeof line) break;
    }
    dbg_out(d, "%s\n", line);
  }
}

static void cmd_print(dbg *d, cmdline *c, const char *spec) {
  char fmt = 0;
  if (spec && !parse_format(d, spec, &fmt, NULL, NULL)) return;
  if (c->n < 2) {
    dbg_out(d, "print: what? A register (%%r5, %%f3[7], %%p1[*]), $pc, $paramN, %%tid, or an expression.\n");
    return;
  }
  const char *text = c->rest[1];
  if (text[0] == '%' && d->focus) {
    /* a register, whole or one lane or every lane */
    char name[128];
    size_t n = 0;
    const char *p = text;
    while (*p && *p != '[' && !isspace((unsigned char)*p) && n + 1 < sizeof name) name[n++] = *p++;
    name[n] = '\0';
    uint32_t rc, ri;
    if (dbg_find_register(d, name, &rc, &ri)) {
      const char *lanes = NULL;
      char lb[32] = "";
      if (*p == '[') {
        const char *close = strchr(p, ']');
        if (!close || close[1] || (size_t)(close - p) >= sizeof lb) {
          dbg_out(d, "Bad lane in '%s': expected [0..31] or [*].\n", text);
          return;
        }
        memcpy(lb, p + 1, (size_t)(close - p - 1));
        lb[close - p - 1] = '\0';
        lanes = lb;
      } else if (*p) {
        goto expression;
      }
      if (rc == PTX_RC_PRED && !lanes) {
        dbg_show_predicates(d); /* whole masks are clearer than one lane's bit */
        return;
      }
      print_register(d, name, rc, ri, lanes, fmt);
      return;
    }
    if (!strcmp(name, "%tid") || !strcmp(name, "%ctaid") || !strcmp(name, "%ntid") || !strcmp(name, "%nctaid")) {
      uint64_t v[3];
      char q[160];
      for (int k = 0; k < 3; k++) {
        snprintf(q, sizeof q, "%s.%c", name, 'x' + k);
        eval(d, q, &v[k]);
      }
      dbg_out(d, "%s = (%llu,%llu,%llu)\n", name, (unsigned long long)v[0], (unsigned long long)v[1],
              (unsigned long long)v[2]);
      return;
    }
  }
expression:;
  uint64_t v;
  if (!eval(d, text, &v)) return;
  char s[64];
  uint8_t raw[8];
  memcpy(raw, &v, 8);
  if (fmt) {
    dbg_format_value(raw, 8, fmt, s, sizeof s);
    dbg_out(d, "%s = %s\n", text, s);
  } else {
    dbg_out(d, "%s = %llu (0x%llx)\n", text, (unsigned long long)v, (unsigned long long)v);
  }
}

enum { SP_AUTO = 0, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_PARAM };

static void cmd_x(dbg *d, cmdline *c, const char *spec) {
  uint32_t count = 1;
  char fmt = d->x_fmt, unit = d->x_unit;
  if (spec && !parse_format(d, spec, &fmt, &unit, &count)) return;
  if (fmt == 'f' && unit != 'w' && unit != 'g' && unit != 'h') unit = 'w';
  d->x_fmt = fmt;
  d->x_unit = unit;
  uint32_t i = 1, space = SP_AUTO;
  static const char *const spaces[] = {"", "global", "shared", "local", "param"};
  if (i < c->n)
    for (uint32_t k = 1; k <= 4; k++)
      if (!strcmp(c->tok[i], spaces[k])) {
        space = k;
        i++;
        break;
      }
  if (i >= c->n) {
    dbg_out(d, "x: which address? x/NFU [global|shared|local|param] ADDRESS, e.g. x/8fw $param2\n");
    return;
  }
  uint64_t addr;
  if (!eval(d, c->rest[i], &addr)) return;
  if (space == SP_AUTO) {
    if (addr >= FUNC_WINDOW_SHARED && addr < FUNC_WINDOW_LOCAL) space = SP_SHARED, addr -= FUNC_WINDOW_SHARED;
    else if (addr >= FUNC_WINDOW_LOCAL && addr < FUNC_WINDOW_PARAM) space = SP_LOCAL, addr -= FUNC_WINDOW_LOCAL;
    else if (addr >= FUNC_WINDOW_PARAM && addr < FUNC_WINDOW_HI) space = SP_PARAM, addr -= FUNC_WINDOW_PARAM;
    else space = SP_GLOBAL;
  }
  uint32_t size = unit_bytes(unit);
  uint64_t bytes = (uint64_t)count * size;
  uint8_t *buf = malloc(bytes);
  if (!buf) {
    dbg_out(d, "Out of host memory.\n");
    return;
  }
  bool ok = false;
  switch (space) {
  case SP_GLOBAL: {
    devmem *mem = dbg_devmem(d);
    ok = mem && devmem_read(mem, addr, buf, bytes, NULL) == SIMTVP_OK;
    if (!mem) dbg_out(d, "No device memory yet: the program has launched no kernel.\n"), ok = true, bytes = 0;
    break;
  }
  case SP_SHARED:
    if (!need_focus(d)) {
      free(buf);
      return;
    }
    ok = func_cta_read_shared(func_warp_cta(d->focus), addr, buf, bytes);
    break;
  case SP_LOCAL:
    if (!need_focus(d)) {
      free(buf);
      return;
    }
    ok = func_warp_read_local(d->focus, d->focus_lane, addr, buf, bytes);
    break;
  default:
    if (!need_focus(d)) {
      free(buf);
      return;
    }
    ok = addr <= d->focus_L->lp.param_bytes && bytes <= d->focus_L->lp.param_bytes - addr;
    if (ok) memcpy(buf, (const uint8_t *)d->focus_L->lp.params + addr, bytes);
    break;
  }
  if (!ok) {
    dbg_out(d, "Cannot read %llu bytes of %s memory at 0x%llx (outside it or not mapped).\n",
            (unsigned long long)bytes, spaces[space], (unsigned long long)addr);
    free(buf);
    return;
  }
  uint32_t per_line = size >= 8 ? 2 : size == 4 ? 4 : 8;
  for (uint32_t k = 0; k < count && bytes; k += per_line) {
    char line[1024];
    size_t o = (size_t)snprintf(line, sizeof line, "%s%s0x%llx:", space == SP_GLOBAL ? "" : spaces[space],
                                space == SP_GLOBAL ? "" : " ", (unsigned long long)(addr + (uint64_t)k * size));
    for (uint32_t j = k; j < count && j < k + per_line && o < sizeof line; j++) {
      char v[64];
      dbg_format_value(buf + (size_t)j * size, size, fmt, v, sizeof v);
      o += (size_t)snprintf(line + o, sizeof line - o, "  %s", v);
    }
    dbg_out(d, "%s\n", line);
  }
  free(buf);
}

/* ---- list ------------------------------------------------------------------------------------------------ */

static const dbg_launch *list_launch(dbg *d) {
  if (d->focus_L) return d->focus_L;
  if (d->n_launches == 1) return d->launches[0];
  return NULL;
}

static void list_range(dbg *d, const dbg_launch *L, uint32_t first, uint32_t n) {
  const ptx_module *m = L->m;
  uint32_t focus_pc = UINT32_MAX;
  bool faulted = false;
  if (d->focus && d->focus_L == L) {
    func_warp_info wi;
    func_warp_get_info(d->focus, &wi);
    if (wi.state != FUNC_WARP_DONE) focus_pc = dbg_warp_pc(d, d->focus);
    faulted = wi.state == FUNC_WARP_FAULTED;
  }
  char prev[DBG_NAME] = "";
  for (uint32_t pc = first; pc < first + n && pc < m->n_insns; pc++) {
    char src[DBG_NAME];
    dbg_source_place(L, pc, true, src, sizeof src);
    bool new_line = src[0] && strcmp(src, prev) != 0;
    snprintf(prev, sizeof prev, "%s", src);
    dbg_show_pc(d, L, pc, pc != focus_pc ? "  " : faulted ? "!!" : "=>", new_line);
  }
  d->list_next = first + n;
  d->list_m = m;
}

static void cmd_list(dbg *d, cmdline *c) {
  const dbg_launch *L = list_launch(d);
  if (!L) {
    dbg_out(d, d->n_launches ? "Several kernels run: select a warp first (`cta`, `warp`).\n" : "No kernel is running.\n");
    return;
  }
  const ptx_module *m = L->m;
  uint32_t center = UINT32_MAX;
  if (c->n < 2) {
    if (d->list_m == m && d->list_next < m->n_insns) {
      list_range(d, L, d->list_next, 10);
      return;
    }
    if (d->focus && d->focus_L == L) {
      func_warp_info wi;
      func_warp_get_info(d->focus, &wi);
      center = dbg_warp_pc(d, d->focus);
    } else {
      center = m->functions[L->lp.kernel].first_insn;
    }
  } else {
    const char *a = c->tok[1];
    const char *colon = strrchr(a, ':');
    if (a[0] == '*') {
      uint64_t pc;
      if (!eval(d, a + 1, &pc)) return;
      center = (uint32_t)pc;
    } else if (is_number(a) || (colon && is_number(colon + 1))) {
      char file[DBG_NAME] = "";
      uint32_t line = (uint32_t)strtoul(colon ? colon + 1 : a, NULL, 10);
      if (colon) {
        size_t fl = (size_t)(colon - a) < sizeof file ? (size_t)(colon - a) : sizeof file - 1;
        memcpy(file, a, fl);
        file[fl] = '\0';
      }
      bool ptx = !colon || (strlen(file) > 4 && !strcmp(file + strlen(file) - 4, ".ptx"));
      for (uint32_t pc = 0; pc < m->n_insns && center == UINT32_MAX; pc++) {
        const ptx_insn *in = &m->insns[pc];
        if (ptx ? in->ptx_line >= line
                : (in->loc_line == line && in->loc_file && in->loc_file < m->n_files &&
                   dbg_file_matches(m->files[in->loc_file], file)))
          center = pc;
      }
      if (center == UINT32_MAX) {
        dbg_out(d, "No instruction at %s in kernel %llu's module.\n", a, (unsigned long long)L->uid);
        return;
      }
    } else {
      dbg_out(d, "list: expected LINE, FILE:LINE or *PC.\n");
      return;
    }
  }
  if (center >= m->n_insns) {
    dbg_out(d, "pc %u is outside the module (%u instructions).\n", center, m->n_insns);
    return;
  }
  list_range(d, L, center > 4 ? center - 4 : 0, 10);
}

/* ---- focus ------------------------------------------------------------------------------------------------ */

static void set_focus(dbg *d, func_warp *w, dbg_launch *L, uint32_t lane) {
  d->focus = w;
  d->focus_L = L;
  d->focus_lane = lane;
  d->list_m = NULL;
  dbg_show_stop(d);
}

static uint32_t default_lane(func_warp *w) {
  func_warp_info wi;
  func_warp_get_info(w, &wi);
  uint32_t m = wi.active ? wi.active : wi.valid;
  return m ? (uint32_t)__builtin_ctz(m) : 0;
}

static void cmd_focus(dbg *d, cmdline *c, const char *what) {
  if (c->n < 2) {
    if (need_focus(d)) dbg_show_focus(d);
    return;
  }
  uint32_t i = 1;
  if (!strcmp(what, "cta")) {
    uint32_t want[3];
    if (!parse_coords(d, c, &i, want)) return;
    dbg_cta *found = NULL;
    for (uint32_t k = 0; k < d->n_ctas; k++) {
      uint32_t ctaid[3];
      func_cta_place(d->ctas[k].c, ctaid, NULL, NULL);
      if (ctaid[0] == want[0] && ctaid[1] == want[1] && ctaid[2] == want[2] &&
          (!found || d->ctas[k].L == d->focus_L))
        found = &d->ctas[k];
    }
    if (!found) {
      dbg_out(d, "CTA (%u,%u,%u) is not running (`info ctas` lists those that are).\n", want[0], want[1], want[2]);
      return;
    }
    uint32_t wi_keep = 0, lane = 0;
    if (d->focus) {
      func_warp_info wi;
      func_warp_get_info(d->focus, &wi);
      wi_keep = wi.index;
      lane = d->focus_lane;
    }
    func_warp *w = func_cta_warp(found->c, wi_keep);
    if (!w) w = func_cta_warp(found->c, 0), lane = default_lane(w);
    set_focus(d, w, found->L, lane);
    return;
  }
  if (!need_focus(d)) return;
  func_cta *cta = func_warp_cta(d->focus);
  if (!strcmp(what, "warp") || !strcmp(what, "lane")) {
    if (!is_number(c->tok[1])) {
      dbg_out(d, "%s: expected a number.\n", what);
      return;
    }
    uint32_t n = (uint32_t)strtoul(c->tok[1], NULL, 0);
    if (what[0] == 'w') {
      func_warp *w = func_cta_warp(cta, n);
      if (!w) {
        dbg_out(d, "warp: the CTA has warps 0..%u.\n", func_cta_warp_count(cta) - 1);
        return;
      }
      set_focus(d, w, d->focus_L, default_lane(w));
    } else {
      func_warp_info wi;
      func_warp_get_info(d->focus, &wi);
      if (n > 31 || !((wi.valid >> n) & 1u)) {
        dbg_out(d, "lane: lane %u does not exist in this warp (lanes 0x%08x).\n", n, wi.valid);
        return;
      }
      set_focus(d, d->focus, d->focus_L, n);
    }
    return;
  }
  /* thread X,Y,Z in the focus CTA */
  uint32_t t[3];
  if (!parse_coords(d, c, &i, t)) return;
  const uint32_t *b = d->focus_L->lp.block;
  if (t[0] >= b[0] || t[1] >= b[1] || t[2] >= b[2]) {
    dbg_out(d, "thread (%u,%u,%u) is outside the block (%u,%u,%u).\n", t[0], t[1], t[2], b[0], b[1], b[2]);
    return;
  }
  uint32_t lin = t[0] + t[1] * b[0] + t[2] * b[0] * b[1];
  set_focus(d, func_cta_warp(cta, lin / 32), d->focus_L, lin % 32);
}

/* ---- info, help ---------------------------------------------------------------------------------------------- */

static bool word_is(const char *w, const char *full, size_t min) {
  size_t n = strlen(w);
  return n >= min && n <= strlen(full) && !strncmp(w, full, n);
}

static void cmd_info(dbg *d, cmdline *c) {
  if (c->n < 2) {
    dbg_out(d, "info what? breakpoints, registers, predicates, stack, warps [all], ctas, kernels, params, focus\n");
    return;
  }
  const char *w = c->tok[1];
  if (word_is(w, "breakpoints", 1) || word_is(w, "watchpoints", 3)) {
    dbg_show_points(d);
    return;
  }
  if (word_is(w, "kernels", 1)) {
    dbg_show_kernels(d);
    return;
  }
  if (word_is(w, "ctas", 1)) {
    dbg_show_ctas(d);
    return;
  }
  if (word_is(w, "warps", 1)) {
    dbg_show_warps(d, c->n > 2 && !strcmp(c->tok[2], "all"));
    return;
  }
  bool known = word_is(w, "registers", 1) || word_is(w, "predicates", 3) || word_is(w, "stack", 1) ||
               word_is(w, "simt", 2) || word_is(w, "params", 3) || word_is(w, "args", 1) || word_is(w, "focus", 1);
  if (!known) {
    dbg_out(d, "info: unknown subject '%s' (breakpoints, registers, predicates, stack, warps, ctas, kernels, params, "
               "focus).\n", w);
    return;
  }
  if (!need_focus(d)) return;
  if (word_is(w, "registers", 1)) {
    if (c->n > 2) {
      for (uint32_t k = 2; k < c->n; k++) {
        uint32_t rc, ri;
        if (dbg_find_register(d, c->tok[k], &rc, &ri)) print_register(d, c->tok[k], rc, ri, NULL, 0);
        else dbg_out(d, "No register '%s' in the focus warp's function.\n", c->tok[k]);
      }
    } else {
      dbg_show_registers(d, NULL);
    }
  } else if (word_is(w, "predicates", 3)) {
    dbg_show_predicates(d);
  } else if (word_is(w, "stack", 1) || word_is(w, "simt", 2)) {
    dbg_show_stack(d);
  } else if (word_is(w, "params", 3) || word_is(w, "args", 1)) {
    dbg_show_params(d);
  } else {
    dbg_show_stop(d);
  }
}

static const char kHelp[] =
    "Breakpoints and watchpoints (one numbering; `info breakpoints` lists them):\n"
    "  break kernel NAME|N          at a kernel launch (PTX or demangled name, or launch number)\n"
    "  break LINE | FILE.ptx:LINE   at every instruction of a PTX line\n"
    "  break FILE:LINE              at a CUDA source line (needs PTX with .loc: nvcc -lineinfo)\n"
    "  break *PC                    at every execution of the instruction at pc PC (as `list` shows)\n"
    "  break cta X,Y,Z | thread X,Y,Z   when a CTA / a thread starts\n"
    "      filters after any of them: kernel NAME|N, cta X,Y,Z, thread X,Y,Z\n"
    "  watch[/FMT] ADDRESS [BYTES]  stop after a warp writes global memory there (1,2,4,8 bytes)\n"
    "  delete [N...], disable [N...], enable [N...]\n"
    "Running:\n"
    "  continue (c)                 run until something stops it\n"
    "  step [N] (s, stepi)          run the focus warp N instructions (others run meanwhile)\n"
    "  detach (quit, q)             let the program run on without the debugger\n"
    "  kill                         end the program now\n"
    "Looking (the focus is a warp and one of its threads):\n"
    "  where (bt)                   pc, PTX and source line, call frames, the focus\n"
    "  list [LINE|FILE:LINE|*PC]    instructions around a place (again: the next ones)\n"
    "  print[/FMT] EXPR (p)         %r5, %f3[7], %rd2[*], %p1, %tid, $pc, $param2, 4*%r1+$param0\n"
    "  x/NFU [global|shared|local|param] ADDRESS   memory: N units, F x d u c f, U b h w g\n"
    "  info registers [%r1...] | predicates | stack | params | warps [all] | ctas | kernels | focus\n"
    "  cta X,Y,Z   warp N   thread X,Y,Z   lane N   change the focus\n"
    "  directory DIR                where to look for source files\n"
    "Formats: x hex, d signed, u unsigned, c char, f float (w: f32, g: f64, h: f16).\n";

/* ---- the loop ------------------------------------------------------------------------------------------------ */

static bool cmd_step(dbg *d, cmdline *c) {
  uint64_t n = 1;
  if (c->n > 1) {
    if (!is_number(c->tok[1]) || !(n = strtoull(c->tok[1], NULL, 0))) {
      dbg_out(d, "step: expected a positive count.\n");
      return false;
    }
  }
  if (!d->focus) {
    dbg_out(d, d->n_launches ? "No warp in focus: select one with `cta`, `warp` or `thread`.\n"
                             : "No warp to step: no kernel is running (set a breakpoint and `continue`).\n");
    return false;
  }
  func_warp_info wi;
  func_warp_get_info(d->focus, &wi);
  if (wi.state == FUNC_WARP_DONE || wi.state == FUNC_WARP_FAULTED) {
    dbg_out(d, "The focus warp %s: nothing to step.\n", wi.state == FUNC_WARP_DONE ? "has exited" : "faulted");
    return false;
  }
  d->step_warp = d->focus;
  d->step_left = n;
  return true;
}

bool dbg_execute(dbg *d, const char *line) {
  cmdline c;
  while (isspace((unsigned char)*line)) line++;
  if (!*line) {
    /* an empty line repeats a step, as in gdb */
    size_t w = strcspn(d->last_cmd, " \t");
    bool was_step = (w == 1 && d->last_cmd[0] == 's') || (w == 2 && !strncmp(d->last_cmd, "si", 2)) ||
                    (w == 4 && !strncmp(d->last_cmd, "step", 4)) || (w == 5 && !strncmp(d->last_cmd, "stepi", 5));
    if (was_step && d->in_repl && !d->cfg.echo) {
      char again[DBG_LINE]; /* a copy: dbg_execute writes last_cmd from its line */
      snprintf(again, sizeof again, "%s", d->last_cmd);
      return dbg_execute(d, again);
    }
    return false;
  }
  if (*line == '#') return false;
  snprintf(d->last_cmd, sizeof d->last_cmd, "%s", line);
  split(&c, line);
  char word[64];
  snprintf(word, sizeof word, "%s", c.tok[0]);
  char *spec = strchr(word, '/');
  if (spec) *spec++ = '\0';
  if (!strcmp(word, "help") || !strcmp(word, "h")) {
    dbg_out(d, "%s", kHelp);
  } else if (!strcmp(word, "break") || !strcmp(word, "b") || !strcmp(word, "br")) {
    cmd_break(d, &c);
  } else if (!strcmp(word, "watch")) {
    cmd_watch(d, &c, spec);
  } else if (!strcmp(word, "delete") || !strcmp(word, "d")) {
    cmd_delete(d, &c, 0);
  } else if (!strcmp(word, "disable")) {
    cmd_delete(d, &c, 1);
  } else if (!strcmp(word, "enable")) {
    cmd_delete(d, &c, 2);
  } else if (!strcmp(word, "continue") || !strcmp(word, "c") || !strcmp(word, "run") || !strcmp(word, "r")) {
    d->step_warp = NULL;
    dbg_out(d, "Continuing.\n");
    return true;
  } else if (!strcmp(word, "step") || !strcmp(word, "s") || !strcmp(word, "stepi") || !strcmp(word, "si")) {
    return cmd_step(d, &c);
  } else if (!strcmp(word, "detach") || !strcmp(word, "quit") || !strcmp(word, "q")) {
    dbg_out(d, "Detached: the program runs on without the debugger.\n");
    d->attached = false;
    d->step_warp = NULL;
    return true;
  } else if (!strcmp(word, "kill")) {
    if (!d->p.kill) {
      dbg_out(d, "kill: this front end cannot end the program; `detach` lets it run on.\n");
      return false;
    }
    dbg_out(d, "Ending the program.\n");
    d->p.kill(d->p.ctx);
    d->attached = false;
    return true;
  } else if (!strcmp(word, "print") || !strcmp(word, "p") || !strcmp(word, "output")) {
    cmd_print(d, &c, spec);
  } else if (!strcmp(word, "x")) {
    cmd_x(d, &c, spec);
  } else if (!strcmp(word, "list") || !strcmp(word, "l")) {
    cmd_list(d, &c);
  } else if (!strcmp(word, "where") || !strcmp(word, "bt") || !strcmp(word, "backtrace")) {
    if (need_focus(d)) dbg_show_where(d);
  } else if (!strcmp(word, "info") || !strcmp(word, "i")) {
    cmd_info(d, &c);
  } else if (!strcmp(word, "cta") || !strcmp(word, "warp") || !strcmp(word, "thread") || !strcmp(word, "lane")) {
    cmd_focus(d, &c, word);
  } else if (!strcmp(word, "directory") || !strcmp(word, "dir")) {
    if (c.n < 2) {
      for (uint32_t i = 0; i < d->n_dirs; i++) dbg_out(d, "%s\n", d->dirs[i]);
      if (!d->n_dirs) dbg_out(d, "Source files are looked up as named in the PTX, then in the working directory.\n");
    } else if (d->n_dirs == DBG_MAX_DIRS) {
      dbg_out(d, "directory: at most %d directories.\n", DBG_MAX_DIRS);
    } else {
      snprintf(d->dirs[d->n_dirs++], DBG_NAME, "%s", c.rest[1]);
      dbg_out(d, "Source files are looked up in %s too.\n", d->dirs[d->n_dirs - 1]);
    }
  } else {
    dbg_out(d, "Unknown command '%s'. Try `help`.\n", c.tok[0]);
  }
  return false;
}

void dbg_repl(dbg *d) {
  char line[DBG_LINE];
  d->in_repl = true;
  while (d->attached) {
    if (!d->p.read_line(d->p.ctx, "(simtvp-dbg) ", line, sizeof line)) {
      dbg_out(d, "[end of debugger input: the program runs on without the debugger]\n");
      d->attached = false;
      d->step_warp = NULL;
      break;
    }
    d->interrupt = 0; /* a Ctrl-C typed at the prompt cancelled that line only */
    if (d->cfg.echo) dbg_out(d, "(simtvp-dbg) %s\n", line);
    if (dbg_execute(d, line)) break;
  }
  d->in_repl = false;
}
