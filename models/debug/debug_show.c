/* debug_show — how the debugger shows things: places (PTX file:line, source file:line), the
 * instruction at a pc with its source line, the focus, registers by their natural type,
 * predicates, the SIMT stack, warps, CTAs, kernels, kernel parameters, the breakpoint table and
 * raw values in a chosen format (docs/debugger.md "What it shows"). */
#include "debug_internal.h"

#include <stdio.h>
#include <string.h>

static const char *basename_of(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

const char *dbg_kernel_name(const dbg_launch *L) {
  if (L->pretty) return L->pretty;
  const char *n = L->m->functions[L->lp.kernel].name;
  return n ? n : "?";
}

static const char *module_name(const ptx_module *m) { return m->source_name ? m->source_name : "<ptx>"; }

void dbg_ptx_place(const dbg_launch *L, uint32_t pc, char *buf, size_t size) {
  if (pc >= L->m->n_insns) snprintf(buf, size, "ptx:end");
  else snprintf(buf, size, "ptx:%u", L->m->insns[pc].ptx_line);
}

void dbg_source_place(const dbg_launch *L, uint32_t pc, bool full_path, char *buf, size_t size) {
  buf[0] = '\0';
  if (pc >= L->m->n_insns) return;
  const ptx_insn *in = &L->m->insns[pc];
  if (!in->loc_line || !in->loc_file || in->loc_file >= L->m->n_files) return;
  const char *f = L->m->files[in->loc_file];
  snprintf(buf, size, "%s:%u", full_path ? f : basename_of(f), in->loc_line);
}

/* The text of source line `line` of `path`: as written, then in each `directory`, then in the
 * working directory, by the file's own name. */
static bool source_text(dbg *d, const char *path, uint32_t line, char *buf, size_t size) {
  if (!d->p.source_line) return false;
  if (d->p.source_line(d->p.ctx, path, line, buf, size)) return true;
  char cand[DBG_NAME * 2];
  for (uint32_t i = 0; i < d->n_dirs; i++) {
    snprintf(cand, sizeof cand, "%s/%s", d->dirs[i], basename_of(path));
    if (d->p.source_line(d->p.ctx, cand, line, buf, size)) return true;
  }
  return d->p.source_line(d->p.ctx, basename_of(path), line, buf, size);
}

void dbg_show_pc(dbg *d, const dbg_launch *L, uint32_t pc, const char *marker, bool with_source) {
  char place[DBG_NAME], src[DBG_NAME], text[256] = "";
  dbg_ptx_place(L, pc, place, sizeof place);
  dbg_source_place(L, pc, false, src, sizeof src);
  if (pc < L->m->n_insns) ptx_insn_format(L->m, &L->m->insns[pc], text, sizeof text);
  dbg_out(d, "%s pc %u  %s%s%s   %s\n", marker, pc, place, src[0] ? "  " : "", src, text);
  if (!with_source || !src[0]) return;
  const ptx_insn *in = &L->m->insns[pc];
  char line[512];
  if (source_text(d, L->m->files[in->loc_file], in->loc_line, line, sizeof line))
    dbg_out(d, "%8u\t%s\n", in->loc_line, line);
}

void dbg_show_focus(dbg *d) {
  if (!d->focus || !d->focus_L) return;
  uint32_t ctaid[3], tid[3], sm;
  func_warp_info wi;
  func_warp_get_info(d->focus, &wi);
  func_cta_place(func_warp_cta(d->focus), ctaid, &sm, NULL);
  func_warp_thread(d->focus, d->focus_lane, tid);
  char now[64] = "";
  if (d->p.now && d->p.now(d->p.ctx, now + 2, sizeof now - 2)) memcpy(now, ", ", 2);
  dbg_out(d, "[kernel %llu %s, CTA (%u,%u,%u), warp %u, thread (%u,%u,%u), lane %u, SM %u%s]\n",
          (unsigned long long)d->focus_L->uid, dbg_kernel_name(d->focus_L), ctaid[0], ctaid[1], ctaid[2], wi.index,
          tid[0], tid[1], tid[2], d->focus_lane, sm, now);
}

const char *dbg_state_name(uint8_t state) {
  switch (state) {
  case FUNC_WARP_READY: return "ready";
  case FUNC_WARP_BARRIER: return "barrier";
  case FUNC_WARP_DONE: return "exited";
  default: return "faulted";
  }
}

void dbg_show_stop(dbg *d) {
  dbg_show_focus(d);
  if (!d->focus) return;
  func_warp_info wi;
  func_warp_get_info(d->focus, &wi);
  if (wi.state == FUNC_WARP_DONE) {
    dbg_out(d, "(the warp has exited)\n");
    return;
  }
  dbg_show_pc(d, d->focus_L, dbg_warp_pc(d, d->focus), wi.state == FUNC_WARP_FAULTED ? "!!" : "=>", true);
  if (wi.state == FUNC_WARP_BARRIER) dbg_out(d, "(waiting at barrier %u)\n", wi.barrier);
}

/* ---- values ------------------------------------------------------------------------------------------ */

static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
  if (exp == 0) {
    if (!man) {
      bits = sign;
    } else { /* subnormal: normalise */
      exp = 127 - 15 + 1;
      while (!(man & 0x400)) {
        man <<= 1;
        exp--;
      }
      bits = sign | (exp << 23) | ((man & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (man << 13);
  } else {
    bits = sign | ((exp - 15 + 127) << 23) | (man << 13);
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

void dbg_format_value(const uint8_t *raw, uint32_t bytes, char fmt, char *buf, size_t size) {
  uint64_t u = 0;
  memcpy(&u, raw, bytes > 8 ? 8 : bytes);
  int64_t s = (int64_t)u;
  if (bytes < 8) {
    uint32_t sh = 64u - 8u * bytes;
    s = (int64_t)(u << sh) >> sh;
  }
  switch (fmt) {
  case 'x': snprintf(buf, size, "0x%0*llx", (int)(bytes * 2), (unsigned long long)u); break;
  case 'd': snprintf(buf, size, "%lld", (long long)s); break;
  case 'c':
    if (u >= 32 && u < 127) snprintf(buf, size, "%lld '%c'", (long long)s, (char)u);
    else snprintf(buf, size, "%lld", (long long)s);
    break;
  case 'f':
    if (bytes == 4) {
      float f;
      memcpy(&f, raw, 4);
      snprintf(buf, size, "%.9g", (double)f);
    } else if (bytes == 8) {
      double f;
      memcpy(&f, raw, 8);
      snprintf(buf, size, "%.17g", f);
    } else if (bytes == 2) {
      snprintf(buf, size, "%.5g", (double)half_to_float((uint16_t)u));
    } else {
      snprintf(buf, size, "0x%0*llx", (int)(bytes * 2), (unsigned long long)u);
    }
    break;
  default: snprintf(buf, size, "%llu", (unsigned long long)u); break;
  }
}

char dbg_register_format(const char *name, uint32_t rclass) {
  if (rclass == PTX_RC_PRED) return 'u';
  char prefix[16];
  size_t n = 0;
  for (const char *p = name[0] == '%' ? name + 1 : name; *p && n + 1 < sizeof prefix; p++) {
    if (*p >= '0' && *p <= '9') break;
    prefix[n++] = *p;
  }
  prefix[n] = '\0';
  /* nvcc's naming: %f f32, %fd f64, %r 32-bit integers, %rs 16-bit, %rd 64-bit, %h f16 */
  if (!strcmp(prefix, "f") || !strcmp(prefix, "fd")) return 'f';
  if (!strcmp(prefix, "r") || !strcmp(prefix, "rs")) return 'd';
  return 'x';
}

/* Bytes a register's value is shown with: 16-bit for nvcc's %rs and %h names. */
static uint32_t register_bytes(const char *name, uint32_t rclass) {
  if (rclass == PTX_RC_B64) return 8;
  if (rclass == PTX_RC_PRED) return 1;
  if (rclass == PTX_RC_B128) return 8;
  const char *p = name[0] == '%' ? name + 1 : name;
  if ((p[0] == 'r' && p[1] == 's') || (p[0] == 'h' && (p[1] < 'a' || p[1] > 'z'))) return 2;
  return 4;
}

bool dbg_find_register(const dbg *d, const char *name, uint32_t *rclass, uint32_t *index) {
  if (!d->focus) return false;
  func_warp_info wi;
  func_warp_get_info(d->focus, &wi);
  const ptx_module *m = d->focus_L->m;
  const ptx_function *f = &m->functions[wi.function];
  for (uint32_t c = 0; c < PTX_RC_COUNT; c++)
    for (uint32_t i = 0; i < f->n_regs[c]; i++) {
      uint64_t k = (uint64_t)f->first_reg_name[c] + i;
      if (k < m->n_reg_names && m->reg_names[k] && !strcmp(m->reg_names[k], name)) {
        *rclass = c;
        *index = i;
        return true;
      }
    }
  return false;
}

void dbg_register_text(dbg *d, const char *name, uint32_t c, uint32_t i, uint32_t lane, char fmt, char *buf,
                       size_t size) {
  uint64_t v[2];
  if (!func_warp_read_reg(d->focus, c, i, lane, v)) {
    snprintf(buf, size, "?");
    return;
  }
  if (c == PTX_RC_B128) {
    snprintf(buf, size, "0x%016llx%016llx", (unsigned long long)v[1], (unsigned long long)v[0]);
    return;
  }
  uint32_t bytes = register_bytes(name, c);
  uint8_t raw[8];
  memcpy(raw, &v[0], 8);
  char nat = fmt ? fmt : dbg_register_format(name, c);
  if (c == PTX_RC_PRED) {
    snprintf(buf, size, "%llu", (unsigned long long)v[0]);
    return;
  }
  char hex[40], natural[64];
  dbg_format_value(raw, bytes, 'x', hex, sizeof hex);
  if (fmt) {
    dbg_format_value(raw, bytes, fmt, buf, size);
    return;
  }
  dbg_format_value(raw, bytes, nat, natural, sizeof natural);
  if (nat == 'x') snprintf(buf, size, "%s", hex);
  else snprintf(buf, size, "%-18s %s", hex, natural);
}

static const char *register_name(const ptx_module *m, const ptx_function *f, uint32_t c, uint32_t i) {
  uint64_t k = (uint64_t)f->first_reg_name[c] + i;
  return k < m->n_reg_names && m->reg_names[k] ? m->reg_names[k] : "?";
}

void dbg_show_registers(dbg *d, const char *which) {
  (void)which;
  func_warp_info wi;
  func_warp_get_info(d->focus, &wi);
  const ptx_module *m = d->focus_L->m;
  const ptx_function *f = &m->functions[wi.function];
  uint32_t tid[3];
  func_warp_thread(d->focus, d->focus_lane, tid);
  dbg_out(d, "registers of %s, thread (%u,%u,%u) (lane %u):\n", f->name ? f->name : "?", tid[0], tid[1], tid[2],
          d->focus_lane);
  static const uint32_t order[] = {PTX_RC_B32, PTX_RC_B64, PTX_RC_B128};
  for (uint32_t k = 0; k < 3; k++) {
    uint32_t c = order[k];
    for (uint32_t i = 0; i < f->n_regs[c]; i++) {
      const char *n = register_name(m, f, c, i);
      char val[128];
      dbg_register_text(d, n, c, i, d->focus_lane, 0, val, sizeof val);
      dbg_out(d, "  %-8s %s\n", n, val);
    }
  }
  if (f->n_regs[PTX_RC_PRED]) dbg_show_predicates(d);
}

void dbg_show_predicates(dbg *d) {
  func_warp_info wi;
  func_warp_get_info(d->focus, &wi);
  const ptx_module *m = d->focus_L->m;
  const ptx_function *f = &m->functions[wi.function];
  for (uint32_t i = 0; i < f->n_regs[PTX_RC_PRED]; i++) {
    uint32_t mask = 0;
    for (uint32_t lane = 0; lane < 32; lane++) {
      uint64_t v[2];
      if (func_warp_read_reg(d->focus, PTX_RC_PRED, i, lane, v) && v[0]) mask |= 1u << lane;
    }
    dbg_out(d, "  %-8s %u   (lanes 0x%08x)\n", register_name(m, f, PTX_RC_PRED, i), (mask >> d->focus_lane) & 1u,
            mask);
  }
  if (!f->n_regs[PTX_RC_PRED]) dbg_out(d, "no predicate registers in %s\n", f->name ? f->name : "?");
}

/* ---- structures -------------------------------------------------------------------------------------- */

static uint32_t line_of(const ptx_module *m, uint32_t pc) { return pc < m->n_insns ? m->insns[pc].ptx_line : 0; }

void dbg_show_stack(dbg *d) {
  func_warp_info wi;
  func_warp_get_info(d->focus, &wi);
  uint32_t ctaid[3];
  func_cta_place(func_warp_cta(d->focus), ctaid, NULL, NULL);
  const ptx_module *m = d->focus_L->m;
  dbg_out(d, "SIMT stack of warp %u of CTA (%u,%u,%u), %u entr%s, top first:\n", wi.index, ctaid[0], ctaid[1],
          ctaid[2], wi.stack_depth, wi.stack_depth == 1 ? "y" : "ies");
  for (uint32_t i = wi.stack_depth; i-- > 0;) {
    func_stack_entry e;
    if (!func_warp_stack_entry(d->focus, i, &e)) continue;
    char rpc[64];
    if (e.rpc == UINT32_MAX) snprintf(rpc, sizeof rpc, "function exit");
    else snprintf(rpc, sizeof rpc, "pc %u (line %u)", e.rpc, line_of(m, e.rpc));
    if (e.call)
      dbg_out(d, "  #%-2u call from pc %u (line %u) into %s  lanes 0x%08x\n", i, e.call_pc, line_of(m, e.call_pc),
              e.pc < m->n_insns ? m->functions[m->insns[e.pc].function].name : "?", e.mask);
    else
      dbg_out(d, "  #%-2u pc %u (line %u)  reconverge at %s  lanes 0x%08x\n", i, e.pc, line_of(m, e.pc), rpc, e.mask);
  }
}

static void warp_row(dbg *d, func_warp *w, const dbg_launch *L, bool show_cta) {
  func_warp_info wi;
  func_warp_get_info(w, &wi);
  uint32_t ctaid[3];
  func_cta_place(func_warp_cta(w), ctaid, NULL, NULL);
  char cta[48] = "";
  if (show_cta) snprintf(cta, sizeof cta, "CTA (%u,%u,%u) ", ctaid[0], ctaid[1], ctaid[2]);
  char state[32];
  if (wi.state == FUNC_WARP_BARRIER) snprintf(state, sizeof state, "barrier %u", wi.barrier);
  else snprintf(state, sizeof state, "%s", dbg_state_name(wi.state));
  if (wi.state == FUNC_WARP_DONE)
    dbg_out(d, "%c %s%-4u %-10s\n", w == d->focus ? '*' : ' ', cta, wi.index, state);
  else
    dbg_out(d, "%c %s%-4u %-10s pc %-5u line %-5u lanes 0x%08x\n", w == d->focus ? '*' : ' ', cta, wi.index, state,
            dbg_warp_pc(d, w), line_of(L->m, dbg_warp_pc(d, w)), wi.active);
}

void dbg_show_warps(dbg *d, bool all) {
  func_cta *only = d->focus && !all ? func_warp_cta(d->focus) : NULL;
  bool any = false;
  for (uint32_t i = 0; i < d->n_ctas; i++) {
    dbg_cta *r = &d->ctas[i];
    if (only && r->c != only) continue;
    uint32_t n = func_cta_warp_count(r->c);
    for (uint32_t k = 0; k < n; k++) warp_row(d, func_cta_warp(r->c, k), r->L, !only);
    any = true;
  }
  if (!any) dbg_out(d, "No CTA is running.\n");
}

void dbg_show_ctas(dbg *d) {
  if (!d->n_ctas) {
    dbg_out(d, "No CTA is running.\n");
    return;
  }
  func_cta *fc = d->focus ? func_warp_cta(d->focus) : NULL;
  for (uint32_t i = 0; i < d->n_ctas; i++) {
    dbg_cta *r = &d->ctas[i];
    uint32_t ctaid[3], sm, n = func_cta_warp_count(r->c), live = 0;
    func_cta_place(r->c, ctaid, &sm, NULL);
    for (uint32_t k = 0; k < n; k++)
      if (func_warp_get_state(func_cta_warp(r->c, k)) != FUNC_WARP_DONE) live++;
    dbg_out(d, "%c CTA (%u,%u,%u)  kernel %llu %s  SM %u  warps %u (%u not exited)\n", r->c == fc ? '*' : ' ',
            ctaid[0], ctaid[1], ctaid[2], (unsigned long long)r->L->uid, dbg_kernel_name(r->L), sm, n, live);
  }
}

void dbg_show_kernels(dbg *d) {
  if (!d->n_launches) {
    dbg_out(d, "No kernel is running.\n");
    return;
  }
  for (uint32_t i = 0; i < d->n_launches; i++) {
    const dbg_launch *L = d->launches[i];
    uint32_t ctas = 0;
    for (uint32_t k = 0; k < d->n_ctas; k++)
      if (d->ctas[k].L == L) ctas++;
    dbg_out(d, "%c kernel %llu %s  grid (%u,%u,%u)  block (%u,%u,%u)  %u CTA%s running  (module %s)\n",
            L == d->focus_L ? '*' : ' ', (unsigned long long)L->uid, dbg_kernel_name(L), L->lp.grid[0],
            L->lp.grid[1], L->lp.grid[2], L->lp.block[0], L->lp.block[1], L->lp.block[2], ctas, ctas == 1 ? "" : "s",
            module_name(L->m));
  }
}

void dbg_show_params(dbg *d) {
  const dbg_launch *L = d->focus_L;
  const ptx_module *m = L->m;
  const ptx_function *f = &m->functions[L->lp.kernel];
  dbg_out(d, "parameters of kernel %llu %s:\n", (unsigned long long)L->uid, dbg_kernel_name(L));
  for (uint32_t i = 0; i < f->n_params; i++) {
    uint32_t s = m->param_list[f->first_param + i];
    const ptx_symbol *sym = &m->symbols[s];
    char val[128] = "?";
    if (sym->offset + sym->size <= L->lp.param_bytes && sym->size) {
      const uint8_t *p = (const uint8_t *)L->lp.params + sym->offset;
      if (sym->size <= 8) {
        char dec[40];
        dbg_format_value(p, (uint32_t)sym->size, 'x', val, sizeof val);
        dbg_format_value(p, (uint32_t)sym->size, 'd', dec, sizeof dec);
        if (sym->size < 8) snprintf(val + strlen(val), sizeof val - strlen(val), "  %s", dec);
      } else {
        size_t o = 0;
        for (uint64_t k = 0; k < sym->size && k < 32 && o + 4 < sizeof val; k++)
          o += (size_t)snprintf(val + o, sizeof val - o, "%02x", p[k]);
        if (sym->size > 32) snprintf(val + o, sizeof val - o, "...");
      }
    }
    dbg_out(d, "  $param%-3u %s = %s  (%llu bytes)\n", i, sym->name, val, (unsigned long long)sym->size);
  }
  if (!f->n_params) dbg_out(d, "  (none)\n");
}

static const char *kind_name(uint8_t k) {
  switch (k) {
  case DBG_BP_KERNEL: return "kernel";
  case DBG_BP_PTX: return "ptx line";
  case DBG_BP_SOURCE: return "source line";
  case DBG_BP_CTA: return "cta";
  case DBG_BP_THREAD: return "thread";
  case DBG_BP_PC: return "pc";
  default: return "watchpoint";
  }
}

void dbg_describe_point(const dbg_point *p, char *buf, size_t size) {
  size_t o = 0;
#define PUT(...) (o += (size_t)snprintf(buf + (o < size ? o : size), o < size ? size - o : 0, __VA_ARGS__))
  buf[0] = '\0';
  switch (p->kind) {
  case DBG_BP_KERNEL:
    if (p->launch_no) PUT("launch %llu", (unsigned long long)p->launch_no);
    else PUT("%s", p->kernel);
    break;
  case DBG_BP_PTX: PUT("%s%sline %u", p->file, p->file[0] ? " " : "", p->line); break;
  case DBG_BP_SOURCE: PUT("%s:%u", p->file, p->line); break;
  case DBG_BP_PC: PUT("pc %u", p->pc); break;
  case DBG_WATCH: PUT("0x%llx, %u bytes, /%c", (unsigned long long)p->addr, p->bytes, p->fmt); break;
  default: break;
  }
  if (p->kind != DBG_BP_KERNEL && p->kind != DBG_WATCH && (p->kernel[0] || p->launch_no)) {
    if (p->launch_no) PUT("%skernel %llu", o ? " " : "", (unsigned long long)p->launch_no);
    else PUT("%skernel %s", o ? " " : "", p->kernel);
  }
  if (p->has_cta) PUT("%scta (%u,%u,%u)", o ? " " : "", p->cta[0], p->cta[1], p->cta[2]);
  if (p->has_thread) PUT("%sthread (%u,%u,%u)", o ? " " : "", p->thread[0], p->thread[1], p->thread[2]);
#undef PUT
}

void dbg_show_points(dbg *d) {
  if (!d->n_pts) {
    dbg_out(d, "No breakpoints or watchpoints.\n");
    return;
  }
  dbg_out(d, "Num  Type         On  Hits  What\n");
  for (uint32_t i = 0; i < d->n_pts; i++) {
    const dbg_point *p = &d->pts[i];
    char what[DBG_NAME * 2];
    dbg_describe_point(p, what, sizeof what);
    dbg_out(d, "%-4u %-12s %-3s %-5llu %s\n", p->id, kind_name(p->kind), p->enabled ? "y" : "n",
            (unsigned long long)p->hits, what);
  }
}

static void show_frame(dbg *d, const dbg_launch *L, uint32_t frame, uint32_t pc) {
  const ptx_module *m = L->m;
  char place[DBG_NAME], src[DBG_NAME], fname[DBG_NAME];
  dbg_ptx_place(L, pc, place, sizeof place);
  dbg_source_place(L, pc, false, src, sizeof src);
  const char *fn = pc < m->n_insns ? m->functions[m->insns[pc].function].name : NULL;
  if (!fn) fn = "?";
  if (!(d->p.demangle && d->p.demangle(d->p.ctx, fn, fname, sizeof fname))) snprintf(fname, sizeof fname, "%s", fn);
  dbg_out(d, "#%u  pc %u in %s  %s%s%s  (module %s)\n", frame, pc, fname, place, src[0] ? "  " : "", src,
          module_name(m));
}

void dbg_show_where(dbg *d) {
  func_warp_info wi;
  func_warp_get_info(d->focus, &wi);
  if (wi.state == FUNC_WARP_DONE) {
    dbg_show_focus(d);
    dbg_out(d, "(the warp has exited)\n");
    return;
  }
  /* frame 0 at the warp's pc, then the call entries of the SIMT stack, innermost first */
  uint32_t frame = 0;
  show_frame(d, d->focus_L, frame++, dbg_warp_pc(d, d->focus));
  for (uint32_t i = wi.stack_depth; i-- > 0;) {
    func_stack_entry e;
    if (func_warp_stack_entry(d->focus, i, &e) && e.call) show_frame(d, d->focus_L, frame++, e.call_pc);
  }
  dbg_show_focus(d);
}
