/* exec_call — call and ret (PTX ISA 9.7.12.x) with the PTX calling convention of nvcc (call-site
 * .param blocks), direct, indirect (through a function address) and recursive; and the extern
 * functions nvcc emits that have no PTX body: vprintf (device printf), malloc, free,
 * __assertfail (CUDA Programming Guide, "Formatted Output", "Dynamic Global Memory Allocation",
 * "Assertion").
 *
 * A call pushes a call entry on the SIMT stack, a register frame on the warp's register stack and
 * a frame in each thread's local memory ([params][.local][call-site params]); arguments are copied
 * from the caller's call-site params into the callee's params. ret removes its lanes from the
 * stack entries of the function; when every lane of the call has returned (or exited) the call
 * entry pops, return values are copied back and the caller's frames restored. An indirect call
 * whose lanes target different functions calls them one group after the other. */
#include <inttypes.h>
#include <stdlib.h>

#include "func_internal.h"

#define H(name) static void name(fx_warp *w, const fx_insn *in, uint32_t m)

struct fx_heap_block {
  uint64_t addr, size;
  bool used;
};

/* ---- call / ret ----------------------------------------------------------------------------------- */

static void extern_missing(fx_warp *w, const fx_insn *in, uint32_t m, const fx_func *f) {
  fx_fault(w, in, (uint32_t)__builtin_ctz(m), SIMTVP_ERR_UNSUPPORTED, false, 0,
           "call of external function %s, which has no definition and no built-in implementation",
           f->pf->name ? f->pf->name : "?");
}

H(call_h) {
  if (!m) return;
  const fx_call *c = in->ext;
  if (c->target) {
    if (c->target->builtin) fx_builtin_call(w, in, c, m);
    else if (!c->target->built) extern_missing(w, in, m, c->target);
    else fx_enter_function(w, in, c->target, m);
    return;
  }
  const uint64_t *t = FX_R64(w, in->o[1]);
  uint32_t call_pc = (uint32_t)(in - w->code);
  for (;;) {
    uint32_t first = (uint32_t)__builtin_ctz(m), g = 0;
    uint64_t a0 = t[first];
    FX_FOR_LANES(i, m) if (t[i] == a0) g |= 1u << i;
    fx_func *f = fx_function_at(w->l->p, a0);
    if (!f || f->is_entry) {
      fx_fault(w, in, first, SIMTVP_ERR_FAULT, true, a0,
               "indirect call to address 0x%" PRIx64 ", which is not a device function", a0);
      return;
    }
    if (f->builtin) {
      fx_builtin_call(w, in, c, g);
      m &= ~g;
      if (!m || w->stop) return;
      continue;
    }
    if (!f->built) {
      extern_missing(w, in, g, f);
      return;
    }
    if (g != m) {
      /* the other lanes execute this call again once this group has returned */
      w->stack[w->depth - 1].pc = w->pc;
      if (!fx_stack_push(w, (fx_sentry){call_pc, w->pc, m & ~g, FX_SE_NORMAL, NULL, NULL, 0, 0, 0})) return;
      w->pc = call_pc;
      if (w->rec) w->rec->diverged = true;
    }
    fx_enter_function(w, in, f, g);
    return;
  }
}

H(ret_h) {
  (void)in;
  if (!m) return;
  if (w->call_depth == 0) { /* ret from the kernel: these threads are done */
    if (w->rec) w->rec->kind = FUNC_STEP_EXIT;
    fx_warp_exit_lanes(w, m);
    return;
  }
  uint32_t c = w->depth;
  while (c > 0 && w->stack[c - 1].kind != FX_SE_CALL) c--;
  fx_stack_remove_lanes(w, m, c ? c - 1 : 0);
}

static simtvp_status call_operand(fx_build *b, const ptx_operand *op, fx_call_arg *a, bool ret) {
  switch (op->kind) {
  case PTX_OPND_SYMBOL: {
    const ptx_symbol *s = &b->p->m->symbols[op->index];
    if (s->space != PTX_SPACE_PARAM || (s->flags & PTX_SYM_ENTRY_PARAM))
      return fx_unsupported(b, "call argument must be a call-site .param or a register");
    bool fp_rel;
    uint64_t v = fx_symbol_value(b->p, b->f, op->index, false, &fp_rel);
    a->kind = 0;
    a->off = (uint32_t)((v & ~FX_PARAM_LOCAL_TAG) + (uint64_t)op->value);
    a->bytes = (uint8_t)(s->size > 255 ? 255 : s->size);
    if (s->size > 255) return fx_unsupported(b, "call parameter larger than 255 bytes");
    return SIMTVP_OK;
  }
  case PTX_OPND_REG:
    a->kind = 1;
    a->wide = op->rclass == PTX_RC_B64;
    a->bytes = a->wide ? 8 : 4;
    return fx_src_op(b, op, PTX_TYPE_NONE, &a->off);
  case PTX_OPND_IMM:
    if (ret) return fx_unsupported(b, "return value into an immediate");
    a->kind = 2;
    a->wide = 1;
    a->bytes = 8;
    return fx_src_op(b, op, PTX_TYPE_B64, &a->off);
  default:
    return fx_unsupported(b, "unsupported call operand");
  }
}

static simtvp_status build_call(fx_build *b) {
  const ptx_insn *pi = b->pi;
  fx_insn *in = b->out;
  in->cls = FX_C_CALL;
  if (pi->nops < 3 || pi->ops[0].kind != PTX_OPND_LIST || pi->ops[2].kind != PTX_OPND_LIST)
    return fx_unsupported(b, "malformed call");
  fx_call *c = fx_alloc(b->p, sizeof *c);
  if (!c) return simtvp_diag_set(b->diag, SIMTVP_ERR_NOMEM, "out of host memory");
  c->n_rets = pi->ops[0].count;
  c->n_args = pi->ops[2].count;
  c->rets = fx_alloc(b->p, (c->n_rets + 1) * sizeof *c->rets);
  c->args = fx_alloc(b->p, (c->n_args + 1) * sizeof *c->args);
  if (!c->rets || !c->args) return simtvp_diag_set(b->diag, SIMTVP_ERR_NOMEM, "out of host memory");
  const ptx_operand *r = fx_vec_elems(b, &pi->ops[0]), *a = fx_vec_elems(b, &pi->ops[2]);
  for (uint32_t k = 0; k < c->n_rets; k++) {
    simtvp_status st = call_operand(b, &r[k], &c->rets[k], true);
    if (st != SIMTVP_OK) return st;
  }
  for (uint32_t k = 0; k < c->n_args; k++) {
    simtvp_status st = call_operand(b, &a[k], &c->args[k], false);
    if (st != SIMTVP_OK) return st;
  }
  const ptx_operand *t = &pi->ops[1];
  if (t->kind == PTX_OPND_FUNC) {
    if (t->index >= b->p->m->n_functions) return fx_unsupported(b, "call target outside the module");
    c->target = &b->p->funcs[t->index];
    if (c->target->is_entry) return fx_unsupported(b, "a kernel cannot be called");
  } else if (t->kind == PTX_OPND_REG && t->rclass == PTX_RC_B64) {
    simtvp_status st = fx_src_op(b, t, PTX_TYPE_U64, &in->o[1]);
    if (st != SIMTVP_OK) return st;
  } else {
    return fx_unsupported(b, "call target must be a function or a 64-bit register");
  }
  in->ext = c;
  in->fn = call_h;
  return SIMTVP_OK;
}

static simtvp_status build_ret(fx_build *b) {
  b->out->cls = FX_C_RET;
  b->out->fn = ret_h;
  return SIMTVP_OK;
}

void fx_register_call(fx_builder *t) {
  t[PTX_OP_CALL] = build_call;
  t[PTX_OP_RET] = build_ret;
}

/* ---- builtins ---------------------------------------------------------------------------------------- */

/* Argument i of a builtin call for one lane (up to 8 bytes, zero-extended). */
static uint64_t arg_value(fx_warp *w, const fx_call *c, uint32_t i, uint32_t lane) {
  if (i >= c->n_args) return 0;
  const fx_call_arg *a = &c->args[i];
  uint64_t v = 0;
  if (a->kind == 0) {
    uint32_t n = a->bytes > 8 ? 8 : a->bytes;
    if (w->fp + a->off + n <= w->local_stride) memcpy(&v, fx_lane_local(w, lane) + w->fp + a->off, n);
  } else {
    v = a->wide ? FX_R64(w, a->off)[lane] : FX_R32(w, a->off)[lane];
  }
  return v;
}

static void set_ret(fx_warp *w, const fx_call *c, uint32_t lane, uint64_t v) {
  if (c->n_rets == 0) return;
  const fx_call_arg *r = &c->rets[0];
  if (r->kind == 0) {
    uint32_t n = r->bytes > 8 ? 8 : r->bytes;
    if (w->fp + r->off + n <= w->local_stride) memcpy(fx_lane_local(w, lane) + w->fp + r->off, &v, n);
  } else if (r->wide) {
    FX_R64(w, r->off)[lane] = v;
  } else {
    FX_R32(w, r->off)[lane] = (uint32_t)v;
  }
}

/* Reads n bytes at a generic address of `lane`; false when any byte is not addressable. */
static bool read_generic(fx_warp *w, uint32_t lane, uint64_t g, void *dst, uint32_t n) {
  uint64_t off;
  uint32_t s = fx_generic_space(g, &off);
  switch (s) {
  case PTX_SPACE_SHARED:
    if (off + n > w->cta->smem_bytes || off + n < off) return false;
    memcpy(dst, w->cta->smem + off, n);
    return true;
  case PTX_SPACE_LOCAL:
    if (off + n > w->local_stride || off + n < off) return false;
    memcpy(dst, fx_lane_local(w, lane) + off, n);
    return true;
  case PTX_SPACE_PARAM:
    if (off + n > w->l->param_bytes || off + n < off) return false;
    memcpy(dst, w->l->params + off, n);
    return true;
  default:
    return devmem_read(w->l->e->mem, g, dst, n, NULL) == SIMTVP_OK;
  }
}

/* Reads a NUL-terminated string (at most cap-1 bytes) at a generic address. */
static bool read_string(fx_warp *w, uint32_t lane, uint64_t g, char *buf, uint32_t cap) {
  uint32_t n = 0;
  while (n + 1 < cap) {
    char ch;
    if (!read_generic(w, lane, g + n, &ch, 1)) return false;
    buf[n++] = ch;
    if (!ch) return true;
  }
  buf[n] = '\0';
  return true;
}

static bool out_append(func_engine *e, size_t *len, const char *s, size_t n) {
  if (*len + n + 1 > e->print_cap) {
    size_t cap = e->print_cap ? e->print_cap : 256;
    while (*len + n + 1 > cap) cap *= 2;
    char *nb = realloc(e->print_buf, cap);
    if (!nb) return false;
    e->print_buf = nb;
    e->print_cap = cap;
  }
  memcpy(e->print_buf + *len, s, n);
  *len += n;
  e->print_buf[*len] = '\0';
  return true;
}

/* vprintf(format, args): the argument buffer packs each argument at its natural alignment (4-byte
 * int/char, 8-byte long/pointer/double; float is promoted to double). Returns the number of
 * arguments consumed, -1 when the format cannot be read. */
static int32_t do_printf(fx_warp *w, const fx_insn *in, uint32_t lane, uint64_t fmt_addr, uint64_t args) {
  func_engine *e = w->l->e;
  char fmt[4096];
  if (!read_string(w, lane, fmt_addr, fmt, sizeof fmt)) {
    fx_fault(w, in, lane, SIMTVP_ERR_FAULT, true, fmt_addr, "printf format string at 0x%" PRIx64 " is not readable", fmt_addr);
    return -1;
  }
  size_t len = 0;
  uint64_t ap = 0;
  int32_t nargs = 0;
  out_append(e, &len, "", 0);
  for (const char *p = fmt; *p;) {
    if (*p != '%') {
      const char *q = strchr(p, '%');
      size_t n = q ? (size_t)(q - p) : strlen(p);
      out_append(e, &len, p, n);
      p += n;
      continue;
    }
    if (p[1] == '%') {
      out_append(e, &len, "%", 1);
      p += 2;
      continue;
    }
    /* %[flags][width][.precision][length]conversion */
    char spec[64];
    size_t k = 0;
    const char *s = p++;
    while (*p && strchr("-+ #0", *p)) p++;
    while (*p >= '0' && *p <= '9') p++;
    if (*p == '.') {
      p++;
      while (*p >= '0' && *p <= '9') p++;
    }
    int lng = 0;
    while (*p && strchr("hlLzjt", *p)) {
      if (*p == 'l' || *p == 'L' || *p == 'z' || *p == 'j' || *p == 't') lng++;
      p++;
    }
    char conv = *p ? *p++ : '\0';
    if (!conv) break;
    /* copy flags/width/precision, drop length modifiers; add our own */
    for (const char *q = s; q < p - 1 && k < sizeof spec - 8; q++)
      if (!strchr("hlLzjt", *q)) spec[k++] = *q;
    char out[512];
    int n = 0;
    uint64_t v = 0;
    bool wide = lng > 0 || conv == 'f' || conv == 'F' || conv == 'e' || conv == 'E' || conv == 'g' ||
                conv == 'G' || conv == 'a' || conv == 'A' || conv == 's' || conv == 'p';
    uint32_t size = wide ? 8 : 4;
    ap = (ap + size - 1) & ~(uint64_t)(size - 1);
    if (!read_generic(w, lane, args + ap, &v, size)) {
      fx_fault(w, in, lane, SIMTVP_ERR_FAULT, true, args + ap,
               "printf argument %d at 0x%" PRIx64 " is not readable", nargs + 1, args + ap);
      return -1;
    }
    ap += size;
    nargs++;
    switch (conv) {
    case 'd':
    case 'i':
      memcpy(spec + k, "lld", 4);
      n = snprintf(out, sizeof out, spec, wide ? (long long)(int64_t)v : (long long)(int32_t)v);
      break;
    case 'u':
    case 'x':
    case 'X':
    case 'o':
      spec[k++] = 'l', spec[k++] = 'l', spec[k++] = conv, spec[k] = '\0';
      n = snprintf(out, sizeof out, spec, wide ? (unsigned long long)v : (unsigned long long)(uint32_t)v);
      break;
    case 'c':
      spec[k++] = 'c', spec[k] = '\0';
      n = snprintf(out, sizeof out, spec, (int)(unsigned char)v);
      break;
    case 'p':
      spec[k++] = 'l', spec[k++] = 'l', spec[k++] = 'x', spec[k] = '\0';
      out[0] = '0', out[1] = 'x';
      n = 2 + snprintf(out + 2, sizeof out - 2, spec, (unsigned long long)v);
      break;
    case 's': {
      char str[1024];
      if (!read_string(w, lane, v, str, sizeof str)) snprintf(str, sizeof str, "(null)");
      spec[k++] = 's', spec[k] = '\0';
      n = snprintf(out, sizeof out, spec, str);
      break;
    }
    case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A': {
      double d;
      memcpy(&d, &v, 8);
      spec[k++] = conv, spec[k] = '\0';
      n = snprintf(out, sizeof out, spec, d);
      break;
    }
    default:
      n = snprintf(out, sizeof out, "%%%c", conv);
      nargs--;
      ap -= size;
      break;
    }
    if (n > 0) out_append(e, &len, out, (size_t)n < sizeof out ? (size_t)n : sizeof out - 1);
  }
  if (e->ports.print) e->ports.print(e->ports.ctx, e->print_buf ? e->print_buf : "", len);
  return nargs;
}

/* ---- device heap ----------------------------------------------------------------------------------------- */

static bool heap_init(func_engine *e) {
  if (e->heap_n || !e->cfg.heap_bytes) return e->heap_n != 0;
  e->heap = malloc(16 * sizeof *e->heap);
  if (!e->heap) return false;
  e->heap_cap = 16;
  e->heap[0] = (struct fx_heap_block){e->cfg.heap_base, e->cfg.heap_bytes, false};
  e->heap_n = 1;
  return true;
}

static uint64_t heap_malloc(func_engine *e, uint64_t size) {
  if (!heap_init(e) || size == 0) return 0;
  size = (size + 15) & ~15ull;
  for (uint32_t i = 0; i < e->heap_n; i++) {
    struct fx_heap_block *b = &e->heap[i];
    if (b->used || b->size < size) continue;
    if (b->size > size) { /* split */
      if (e->heap_n == e->heap_cap) {
        struct fx_heap_block *n = realloc(e->heap, 2 * e->heap_cap * sizeof *n);
        if (!n) return 0;
        e->heap = n;
        e->heap_cap *= 2;
        b = &e->heap[i];
      }
      memmove(&e->heap[i + 2], &e->heap[i + 1], (e->heap_n - i - 1) * sizeof *e->heap);
      e->heap[i + 1] = (struct fx_heap_block){b->addr + size, b->size - size, false};
      e->heap_n++;
      b->size = size;
    }
    b->used = true;
    return b->addr;
  }
  return 0;
}

static bool heap_free(func_engine *e, uint64_t ptr) {
  for (uint32_t i = 0; i < e->heap_n; i++) {
    struct fx_heap_block *b = &e->heap[i];
    if (b->addr != ptr) continue;
    if (!b->used) return false;
    b->used = false;
    if (i + 1 < e->heap_n && !e->heap[i + 1].used) { /* merge with the next */
      b->size += e->heap[i + 1].size;
      memmove(&e->heap[i + 1], &e->heap[i + 2], (e->heap_n - i - 2) * sizeof *e->heap);
      e->heap_n--;
    }
    if (i > 0 && !e->heap[i - 1].used) { /* and the previous */
      e->heap[i - 1].size += b->size;
      memmove(&e->heap[i], &e->heap[i + 1], (e->heap_n - i - 1) * sizeof *e->heap);
      e->heap_n--;
    }
    return true;
  }
  return false;
}

static void builtin_lanes(fx_warp *w, const fx_insn *in, const fx_call *c, uint32_t m);

/* The engine's printf buffer, heap and print port are shared by every host thread of a launch. */
void fx_builtin_call(fx_warp *w, const fx_insn *in, const fx_call *c, uint32_t m) {
  fx_lock(w->l);
  builtin_lanes(w, in, c, m);
  fx_unlock(w->l);
}

static void builtin_lanes(fx_warp *w, const fx_insn *in, const fx_call *c, uint32_t m) {
  const fx_func *f = c->target;
  func_engine *e = w->l->e;
  uint8_t which = f ? f->builtin : FX_BI_NONE;
  if (!f) { /* indirect: find it from the lane's target */
    fx_func *t = fx_function_at(w->l->p, FX_R64(w, in->o[1])[__builtin_ctz(m)]);
    which = t ? t->builtin : FX_BI_NONE;
  }
  FX_FOR_LANES(lane, m) {
    switch (which) {
    case FX_BI_VPRINTF: {
      int32_t r = do_printf(w, in, lane, arg_value(w, c, 0, lane), arg_value(w, c, 1, lane));
      if (w->stop) return;
      set_ret(w, c, lane, (uint32_t)r);
      break;
    }
    case FX_BI_MALLOC:
      set_ret(w, c, lane, heap_malloc(e, arg_value(w, c, 0, lane)));
      break;
    case FX_BI_FREE: {
      uint64_t p = arg_value(w, c, 0, lane);
      if (p && !heap_free(e, p)) {
        fx_fault(w, in, lane, SIMTVP_ERR_FAULT, true, p,
                 "free of 0x%" PRIx64 ", which is not a live malloc allocation", p);
        return;
      }
      break;
    }
    case FX_BI_ASSERTFAIL: {
      char msg[512] = "?", file[256] = "?", func[256] = "?";
      read_string(w, lane, arg_value(w, c, 0, lane), msg, sizeof msg);
      read_string(w, lane, arg_value(w, c, 1, lane), file, sizeof file);
      uint32_t line = (uint32_t)arg_value(w, c, 2, lane);
      read_string(w, lane, arg_value(w, c, 3, lane), func, sizeof func);
      char text[1400];
      int n = snprintf(text, sizeof text,
                       "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", file,
                       line, func, w->cta->ctaid[0], w->cta->ctaid[1], w->cta->ctaid[2], w->tid[0][lane],
                       w->tid[1][lane], w->tid[2][lane], msg);
      size_t len = n > 0 ? ((size_t)n < sizeof text ? (size_t)n : sizeof text - 1) : 0;
      if (e->ports.assertion && len)
        e->ports.assertion(e->ports.ctx, text, len);
      else if (e->ports.print && len)
        e->ports.print(e->ports.ctx, text, len);
      fx_fault(w, in, lane, SIMTVP_ERR_TRAP, false, 0, "device assertion `%s` failed at %s:%u in %s", msg, file,
               line, func);
      return;
    }
    default:
      fx_fault(w, in, lane, SIMTVP_ERR_UNSUPPORTED, false, 0, "call of an external function without a built-in");
      return;
    }
  }
}
