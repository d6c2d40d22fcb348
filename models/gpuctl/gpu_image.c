/* gpu_image — program image writer and loader (see gpu_image.h). */
#include "gpu_image.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct img_section {
  uint64_t offset; /* from the image start */
  uint64_t count;
} img_section;

/* Follows the header + instructions. */
typedef struct img_layout {
  uint32_t sizeof_function, sizeof_symbol, sizeof_insn, sizeof_block, sizeof_operand, sizeof_reloc;
  uint32_t version_major, version_minor, target_sm, address_size;
  uint64_t global_segment_bytes, const_segment_bytes, shared_segment_bytes;
  uint64_t source_name; /* string offset */
  img_section insns, functions, symbols, blocks, opnd_pool, param_list, reg_names, init_data, relocs,
      files, strings, succ_list;
} img_layout;

/* The loaded block: the module view followed by the image bytes. */
typedef struct img_loaded {
  gpu_image pub;
  ptx_module module;
  uint8_t *bytes;
  const char **reg_names;
  const char **files;
  ptx_function *functions;
  ptx_symbol *symbols;
} img_loaded;

#define ALIGN16(x) (((x) + 15u) & ~(uint64_t)15u)

static uint64_t str_bytes(const char *s) { return s ? strlen(s) + 1 : 1; }

/* The module's source name (the runtime's "<program> fatbin <n>") takes a fixed slot, so the
 * image's size, and with it the upload's timing, does not depend on the program's file name: the
 * same program under two names gives the same statistics. A longer name keeps its last part. */
#define SOURCE_NAME_BYTES 128u

static const char *source_name_tail(const char *s) {
  size_t n = s ? strlen(s) : 0;
  return n < SOURCE_NAME_BYTES ? s : s + (n - (SOURCE_NAME_BYTES - 1));
}

static uint64_t strings_size(const ptx_module *m) {
  uint64_t n = SOURCE_NAME_BYTES;
  for (uint32_t i = 0; i < m->n_functions; i++) n += str_bytes(m->functions[i].name);
  for (uint32_t i = 0; i < m->n_symbols; i++) n += str_bytes(m->symbols[i].name);
  for (uint32_t i = 0; i < m->n_reg_names; i++) n += str_bytes(m->reg_names[i]);
  for (uint32_t i = 0; i < m->n_files; i++) n += str_bytes(m->files[i]);
  return n;
}

/* Lays out every section; returns the total size. */
static uint64_t plan(const ptx_module *m, gpu_image_header *h, img_layout *l) {
  uint64_t at;
  memset(h, 0, sizeof *h);
  memset(l, 0, sizeof *l);
  h->magic = GPU_IMAGE_MAGIC;
  h->version = GPU_IMAGE_VERSION;
  h->header_bytes = sizeof *h;
  h->n_functions = m->n_functions;
  h->n_insns = m->n_insns;
  h->insn_stride = GPU_IMAGE_INSN_BYTES;
  h->insn_offset = ALIGN16(sizeof *h);
  at = ALIGN16(h->insn_offset + (uint64_t)m->n_insns * GPU_IMAGE_INSN_BYTES);
  h->layout_offset = at;
  at = ALIGN16(at + sizeof *l);
#define SECTION(field, n, elem)                                                                    \
  l->field.offset = at;                                                                            \
  l->field.count = (n);                                                                            \
  at = ALIGN16(at + (uint64_t)(n) * (elem));
  SECTION(insns, m->n_insns, sizeof(ptx_insn));
  SECTION(functions, m->n_functions, sizeof(ptx_function));
  SECTION(symbols, m->n_symbols, sizeof(ptx_symbol));
  SECTION(blocks, m->n_blocks, sizeof(ptx_block));
  SECTION(opnd_pool, m->n_opnd_pool, sizeof(ptx_operand));
  SECTION(param_list, m->n_param_list, sizeof(uint32_t));
  SECTION(reg_names, m->n_reg_names, sizeof(uint64_t));
  SECTION(init_data, m->init_data_size, 1);
  SECTION(relocs, m->n_relocs, sizeof(ptx_reloc));
  SECTION(files, m->n_files, sizeof(uint64_t));
  SECTION(strings, strings_size(m), 1);
  SECTION(succ_list, m->n_succ_list, sizeof(uint32_t));
#undef SECTION
  h->layout_bytes = at - h->layout_offset;
  h->image_bytes = at;
  l->sizeof_function = sizeof(ptx_function);
  l->sizeof_symbol = sizeof(ptx_symbol);
  l->sizeof_insn = sizeof(ptx_insn);
  l->sizeof_block = sizeof(ptx_block);
  l->sizeof_operand = sizeof(ptx_operand);
  l->sizeof_reloc = sizeof(ptx_reloc);
  l->version_major = m->version_major;
  l->version_minor = m->version_minor;
  l->target_sm = m->target_sm;
  l->address_size = m->address_size;
  l->global_segment_bytes = m->global_segment_bytes;
  l->const_segment_bytes = m->const_segment_bytes;
  l->shared_segment_bytes = m->shared_segment_bytes;
  return at;
}

uint64_t gpu_image_size(const ptx_module *m) {
  gpu_image_header h;
  img_layout l;
  return plan(m, &h, &l);
}

/* Appends s to the string table; returns its offset within the table. */
static uint64_t put_str(uint8_t *table, uint64_t *used, const char *s) {
  uint64_t off = *used, n = str_bytes(s);
  if (s) memcpy(table + off, s, n);
  else table[off] = 0;
  *used += n;
  return off;
}

simtvp_status gpu_image_build(const ptx_module *m, uint64_t global_base, uint64_t const_base,
                              void *buf, uint64_t size, simtvp_diag *diag) {
  gpu_image_header h;
  img_layout l;
  uint8_t *b = buf, *strings;
  uint64_t total = plan(m, &h, &l), used = 0;
  if (size < total)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "gpu_image_build: buffer of %llu bytes, image needs %llu",
                           (unsigned long long)size, (unsigned long long)total);
  memset(b, 0, total);
  h.global_base = global_base;
  h.global_bytes = m->global_segment_bytes;
  h.const_base = const_base;
  h.const_bytes = m->const_segment_bytes;
  strings = b + l.strings.offset;
  l.source_name = put_str(strings, &used, source_name_tail(m->source_name));
  used = l.source_name + SOURCE_NAME_BYTES; /* the rest of its slot stays zero */
  for (uint32_t i = 0; i < m->n_insns; i++) {
    gpu_image_code_slot slot;
    memset(&slot, 0, sizeof slot);
    slot.opcode = m->insns[i].opcode;
    slot.nops = m->insns[i].nops;
    slot.pc = i;
    slot.function = m->insns[i].function;
    slot.ptx_line = m->insns[i].ptx_line;
    memcpy(b + h.insn_offset + (uint64_t)i * GPU_IMAGE_INSN_BYTES, &slot, sizeof slot);
  }
  if (m->n_insns) memcpy(b + l.insns.offset, m->insns, (size_t)m->n_insns * sizeof(ptx_insn));
  for (uint32_t i = 0; i < m->n_functions; i++) {
    ptx_function f = m->functions[i];
    f.name = (const char *)(uintptr_t)put_str(strings, &used, m->functions[i].name);
    memcpy(b + l.functions.offset + (uint64_t)i * sizeof f, &f, sizeof f);
  }
  for (uint32_t i = 0; i < m->n_symbols; i++) {
    ptx_symbol s = m->symbols[i];
    s.name = (const char *)(uintptr_t)put_str(strings, &used, m->symbols[i].name);
    memcpy(b + l.symbols.offset + (uint64_t)i * sizeof s, &s, sizeof s);
  }
  for (uint32_t i = 0; i < m->n_reg_names; i++) {
    uint64_t off = put_str(strings, &used, m->reg_names[i]);
    memcpy(b + l.reg_names.offset + (uint64_t)i * 8, &off, 8);
  }
  for (uint32_t i = 0; i < m->n_files; i++) {
    uint64_t off = put_str(strings, &used, m->files[i]);
    memcpy(b + l.files.offset + (uint64_t)i * 8, &off, 8);
  }
  if (m->n_blocks) memcpy(b + l.blocks.offset, m->blocks, (size_t)m->n_blocks * sizeof(ptx_block));
  if (m->n_opnd_pool)
    memcpy(b + l.opnd_pool.offset, m->opnd_pool, (size_t)m->n_opnd_pool * sizeof(ptx_operand));
  if (m->n_param_list)
    memcpy(b + l.param_list.offset, m->param_list, (size_t)m->n_param_list * sizeof(uint32_t));
  if (m->init_data_size) memcpy(b + l.init_data.offset, m->init_data, (size_t)m->init_data_size);
  if (m->n_relocs) memcpy(b + l.relocs.offset, m->relocs, (size_t)m->n_relocs * sizeof(ptx_reloc));
  if (m->n_succ_list)
    memcpy(b + l.succ_list.offset, m->succ_list, (size_t)m->n_succ_list * sizeof(uint32_t));
  memcpy(b, &h, sizeof h);
  memcpy(b + h.layout_offset, &l, sizeof l);
  return SIMTVP_OK;
}

void gpu_image_set_load_id(void *buf, uint64_t load_id) {
  gpu_image_header h;
  memcpy(&h, buf, sizeof h);
  h.load_id = load_id;
  memcpy(buf, &h, sizeof h);
}

/* Inside the image, 16-byte aligned as gpu_image_build places every section (the records hold
 * 8-byte fields, read in place), and a count the module's 32-bit fields can hold. */
static bool section_ok(const img_section *s, uint64_t elem, uint64_t total) {
  return s->offset <= total && s->offset % 16 == 0 && s->count <= (total - s->offset) / (elem ? elem : 1) &&
         s->count < UINT32_MAX;
}

static simtvp_status bad(simtvp_diag *diag, uint64_t addr, const char *what) {
  simtvp_diag_set(diag, SIMTVP_ERR_PARSE, "program image at 0x%llx: %s", (unsigned long long)addr, what);
  simtvp_diag_at_address(diag, addr);
  return SIMTVP_ERR_PARSE;
}

/* ---- validation ------------------------------------------------------------------------------
 * The image comes from a driver, which may be buggy: before anything downstream trusts the module,
 * every index, count, range and enumeration it holds is checked against what it refers to, so the
 * functional engine and the timing decode may index with them freely. Checked: record enums (kinds,
 * classes, types, spaces …), register numbers against the owning function's counts, operand lists
 * inside the operand pool, branch targets and reconvergence points inside the owning function,
 * function/symbol/prototype indices, each function's instruction, block and parameter ranges, each
 * instruction lying in its function's range, symbol extents inside their segments and initialisers,
 * relocations inside their variables, block successor lists. Sizes beyond these (how much local or
 * shared memory a kernel may use) are the launch's and the engine's to judge. */

#define IMG_MAX_REGS (1u << 24)      /* per class and function: far above any real kernel */
#define IMG_MAX_EXTENT (1ull << 40)  /* bytes: symbol sizes and offsets, segment sizes */

typedef struct img_check {
  const ptx_module *m;
  uint64_t addr;
  simtvp_diag *diag;
} img_check;

static simtvp_status badf(const img_check *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static simtvp_status badf(const img_check *c, const char *fmt, ...) {
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return bad(c->diag, c->addr, what);
}

static bool in_range(uint64_t first, uint64_t n, uint64_t total) { return first <= total && n <= total - first; }

/* A bool field of a record read from the image holds 0 or 1 (any other byte is not a bool: reading
 * it as one is undefined), checked as a byte before the field is ever read. */
static bool bool_ok(const void *record, size_t offset) {
  uint8_t v;
  memcpy(&v, (const uint8_t *)record + offset, 1);
  return v <= 1;
}

static bool reg_ok(const ptx_function *f, uint32_t rclass, uint32_t index) {
  return rclass < PTX_RC_COUNT && index < f->n_regs[rclass];
}

static simtvp_status check_operand(const img_check *c, uint32_t pc, const ptx_function *f, uint32_t k,
                                   const ptx_operand *op, bool element) {
  const ptx_module *m = c->m;
  const char *where = element ? "an element of operand" : "operand";
  switch (op->kind) {
  case PTX_OPND_NONE:
  case PTX_OPND_IMM:
  case PTX_OPND_SINK:
    break;
  case PTX_OPND_REG:
    if (!reg_ok(f, op->rclass, op->index))
      return badf(c, "instruction %u: %s %u names register %u of class %u, its function has %u", pc, where, k,
                  op->index, op->rclass, op->rclass < PTX_RC_COUNT ? f->n_regs[op->rclass] : 0);
    break;
  case PTX_OPND_SREG:
    if (op->index >= PTX_SREG_COUNT)
      return badf(c, "instruction %u: %s %u names special register %u of %u", pc, where, k, op->index,
                  (unsigned)PTX_SREG_COUNT);
    break;
  case PTX_OPND_ADDR:
    if (op->base_sym != PTX_NONE && op->base_sym >= m->n_symbols)
      return badf(c, "instruction %u: %s %u is based on symbol %u of %u", pc, where, k, op->base_sym, m->n_symbols);
    if (op->index != PTX_NONE && !reg_ok(f, op->rclass, op->index))
      return badf(c, "instruction %u: %s %u is based on register %u of class %u, its function has %u", pc,
                  where, k, op->index, op->rclass, op->rclass < PTX_RC_COUNT ? f->n_regs[op->rclass] : 0);
    break;
  case PTX_OPND_VEC:
  case PTX_OPND_LIST:
    if (element) return badf(c, "instruction %u: operand %u nests a list in a list", pc, k);
    if (!in_range(op->index, op->count, m->n_opnd_pool))
      return badf(c, "instruction %u: operand %u lists %u operands at %u, the pool holds %u", pc, k, op->count,
                  op->index, m->n_opnd_pool);
    for (uint32_t e = 0; e < op->count; e++) {
      simtvp_status st = check_operand(c, pc, f, k, &m->opnd_pool[op->index + e], true);
      if (st != SIMTVP_OK) return st;
    }
    break;
  case PTX_OPND_LABEL:
    if (op->index < f->first_insn || op->index - f->first_insn >= f->n_insns)
      return badf(c, "instruction %u: %s %u branches to instruction %u, outside its function [%u, %u)", pc,
                  where, k, op->index, f->first_insn, f->first_insn + f->n_insns);
    break;
  case PTX_OPND_FUNC:
  case PTX_OPND_PROTO:
    if (op->index >= m->n_functions)
      return badf(c, "instruction %u: %s %u names function %u of %u", pc, where, k, op->index, m->n_functions);
    break;
  case PTX_OPND_SYMBOL:
    if (op->index >= m->n_symbols)
      return badf(c, "instruction %u: %s %u names symbol %u of %u", pc, where, k, op->index, m->n_symbols);
    break;
  default:
    return badf(c, "instruction %u: %s %u has unknown kind %u", pc, where, k, op->kind);
  }
  if ((op->flags & PTX_OPND_PAIR) && !reg_ok(f, PTX_RC_PRED, op->pair))
    return badf(c, "instruction %u: %s %u pairs predicate %u, its function has %u", pc, where, k, op->pair,
                f->n_regs[PTX_RC_PRED]);
  return SIMTVP_OK;
}

static simtvp_status check_insn(const img_check *c, uint32_t pc) {
  const ptx_module *m = c->m;
  const ptx_insn *in = &m->insns[pc];
  if (in->function >= m->n_functions)
    return badf(c, "instruction %u belongs to function %u of %u", pc, in->function, m->n_functions);
  const ptx_function *f = &m->functions[in->function];
  if (pc < f->first_insn || pc - f->first_insn >= f->n_insns)
    return badf(c, "instruction %u lies outside its function %u [%u, %u)", pc, in->function, f->first_insn,
                f->first_insn + f->n_insns);
  if (in->opcode >= PTX_OP_COUNT || in->type >= PTX_TYPE_COUNT || in->type2 >= PTX_TYPE_COUNT ||
      in->type3 >= PTX_TYPE_COUNT || in->type4 >= PTX_TYPE_COUNT || in->space >= PTX_SPACE_COUNT ||
      in->rounding > PTX_RND_RPI || in->cmp > PTX_CMP_NAN || in->bool_op > PTX_BOOL_XOR ||
      in->sem > PTX_SEM_MMIO || in->scope > PTX_SCOPE_SYS || in->cache_op > PTX_CACHE_WT ||
      in->geom > PTX_WMMA_M16N16 || in->guard_neg > 1 || in->vec > 8 || in->nops > PTX_MAX_OPERANDS)
    return badf(c, "instruction %u: a field is out of range (opcode %u, types %u/%u/%u/%u, space %u, vec %u, "
                "%u operands)", pc, in->opcode, in->type, in->type2, in->type3, in->type4, in->space, in->vec,
                in->nops);
  if (in->guard != PTX_NONE && !reg_ok(f, PTX_RC_PRED, in->guard))
    return badf(c, "instruction %u: guard predicate %u, its function has %u", pc, in->guard,
                f->n_regs[PTX_RC_PRED]);
  if (in->block >= m->n_blocks)
    return badf(c, "instruction %u: block %u of %u", pc, in->block, m->n_blocks);
  if (in->reconverge != PTX_NONE && (in->reconverge < f->first_insn || in->reconverge - f->first_insn >= f->n_insns))
    return badf(c, "instruction %u: reconverges at instruction %u, outside its function", pc, in->reconverge);
  if (in->loc_file != 0 && in->loc_file >= m->n_files)
    return badf(c, "instruction %u: source file %u of %u", pc, in->loc_file, m->n_files);
  /* every slot, used or not: a handler may look at an optional operand past nops */
  for (uint32_t k = 0; k < PTX_MAX_OPERANDS; k++) {
    simtvp_status st = check_operand(c, pc, f, k, &in->ops[k], false);
    if (st != SIMTVP_OK) return st;
  }
  return SIMTVP_OK;
}

static simtvp_status check_module(const ptx_module *m, uint64_t addr, simtvp_diag *diag) {
  img_check c = {m, addr, diag};
  if (m->address_size != 32 && m->address_size != 64)
    return badf(&c, ".address_size %u", m->address_size);
  if (m->global_segment_bytes > IMG_MAX_EXTENT || m->const_segment_bytes > IMG_MAX_EXTENT ||
      m->shared_segment_bytes > UINT32_MAX / 2)
    return badf(&c, "segment sizes out of range (.global %llu, .const %llu, .shared %llu bytes)",
                (unsigned long long)m->global_segment_bytes, (unsigned long long)m->const_segment_bytes,
                (unsigned long long)m->shared_segment_bytes);
  for (uint32_t i = 0; i < m->n_functions; i++) {
    const ptx_function *f = &m->functions[i];
    bool body = !(f->flags & (PTX_FN_DECL_ONLY | PTX_FN_PROTOTYPE));
    if (!in_range(f->first_insn, f->n_insns, m->n_insns) || (body && f->n_insns == 0) || (!body && f->n_insns))
      return badf(&c, "function %u: instructions [%u, +%u) (of %u) for a %s", i, f->first_insn, f->n_insns,
                  m->n_insns, body ? "function with a body" : "declaration");
    if (!in_range(f->first_block, f->n_blocks, m->n_blocks))
      return badf(&c, "function %u: blocks [%u, +%u) of %u", i, f->first_block, f->n_blocks, m->n_blocks);
    if (!in_range(f->first_param, f->n_params, m->n_param_list) ||
        !in_range(f->first_ret, f->n_rets, m->n_param_list))
      return badf(&c, "function %u: parameters [%u, +%u) and returns [%u, +%u) of %u", i, f->first_param,
                  f->n_params, f->first_ret, f->n_rets, m->n_param_list);
    for (uint32_t r = 0; r < PTX_RC_COUNT; r++)
      if (f->n_regs[r] > IMG_MAX_REGS)
        return badf(&c, "function %u: %u registers of class %u", i, f->n_regs[r], r);
  }
  for (uint32_t i = 0; i < m->n_param_list; i++)
    if (m->param_list[i] >= m->n_symbols)
      return badf(&c, "parameter list entry %u names symbol %u of %u", i, m->param_list[i], m->n_symbols);
  for (uint32_t i = 0; i < m->n_symbols; i++) {
    const ptx_symbol *s = &m->symbols[i];
    if (s->space >= PTX_SPACE_COUNT || s->type >= PTX_TYPE_COUNT ||
        (s->function != PTX_NONE && s->function >= m->n_functions) || (s->align & (s->align - 1)) ||
        s->size > IMG_MAX_EXTENT || s->offset > IMG_MAX_EXTENT)
      return badf(&c, "symbol %u: a field is out of range (space %u, type %u, function %u, align %u, size %llu, "
                  "offset %llu)", i, s->space, s->type, s->function, s->align, (unsigned long long)s->size,
                  (unsigned long long)s->offset);
    if ((s->flags & PTX_SYM_HAS_INIT) && !in_range(s->init_offset, s->size, m->init_data_size))
      return badf(&c, "symbol %u: initialiser [%llu, +%llu) outside the %llu bytes of initialisers", i,
                  (unsigned long long)s->init_offset, (unsigned long long)s->size,
                  (unsigned long long)m->init_data_size);
    uint64_t seg = s->space == PTX_SPACE_GLOBAL ? m->global_segment_bytes
                   : s->space == PTX_SPACE_CONST ? m->const_segment_bytes : UINT64_MAX;
    if (!in_range(s->offset, s->size, seg))
      return badf(&c, "symbol %u: [%llu, +%llu) outside its %llu-byte segment", i, (unsigned long long)s->offset,
                  (unsigned long long)s->size, (unsigned long long)seg);
  }
  for (uint32_t i = 0; i < m->n_relocs; i++) {
    const ptx_reloc *r = &m->relocs[i];
    if (!bool_ok(r, offsetof(ptx_reloc, is_function)) || !bool_ok(r, offsetof(ptx_reloc, generic)))
      return badf(&c, "relocation %u: a flag is neither 0 nor 1", i);
    if (r->symbol >= m->n_symbols || r->target >= (r->is_function ? m->n_functions : m->n_symbols) ||
        (r->bytes != 4 && r->bytes != 8) || !in_range(r->offset, r->bytes, m->symbols[r->symbol < m->n_symbols ? r->symbol : 0].size))
      return badf(&c, "relocation %u: symbol %u, target %u%s, %u bytes at offset %llu do not fit the module", i,
                  r->symbol, r->target, r->is_function ? " (function)" : "", r->bytes,
                  (unsigned long long)r->offset);
  }
  for (uint32_t i = 0; i < m->n_blocks; i++) {
    const ptx_block *b = &m->blocks[i];
    if (!bool_ok(b, offsetof(ptx_block, exits))) return badf(&c, "block %u: `exits` is neither 0 nor 1", i);
    if (!in_range(b->first_insn, b->n_insns, m->n_insns) || !in_range(b->first_succ, b->n_succ, m->n_succ_list) ||
        (b->succ[0] != PTX_NONE && b->succ[0] >= m->n_blocks) || (b->succ[1] != PTX_NONE && b->succ[1] >= m->n_blocks) ||
        (b->ipdom != PTX_NONE && b->ipdom >= m->n_blocks))
      return badf(&c, "block %u: instructions [%u, +%u), successors, or post-dominator out of range", i,
                  b->first_insn, b->n_insns);
  }
  for (uint32_t i = 0; i < m->n_succ_list; i++)
    if (m->succ_list[i] >= m->n_blocks)
      return badf(&c, "successor list entry %u names block %u of %u", i, m->succ_list[i], m->n_blocks);
  for (uint32_t pc = 0; pc < m->n_insns; pc++) {
    simtvp_status st = check_insn(&c, pc);
    if (st != SIMTVP_OK) return st;
  }
  return SIMTVP_OK;
}

/* Takes ownership of bytes (malloc'd, size total). */
static simtvp_status rebuild(uint8_t *bytes, uint64_t total, uint64_t addr, gpu_image **out,
                             simtvp_diag *diag) {
  gpu_image_header h;
  img_layout l;
  img_loaded *L;
  const char *strings;
  memcpy(&h, bytes, sizeof h);
  if (h.layout_offset > total || total - h.layout_offset < sizeof l || h.layout_offset % 16 != 0) {
    free(bytes);
    return bad(diag, addr, "layout table outside the image or misaligned");
  }
  memcpy(&l, bytes + h.layout_offset, sizeof l);
  if (l.sizeof_function != sizeof(ptx_function) || l.sizeof_symbol != sizeof(ptx_symbol) ||
      l.sizeof_insn != sizeof(ptx_insn) || l.sizeof_block != sizeof(ptx_block) ||
      l.sizeof_operand != sizeof(ptx_operand) || l.sizeof_reloc != sizeof(ptx_reloc) ||
      h.insn_stride != GPU_IMAGE_INSN_BYTES) {
    free(bytes);
    return bad(diag, addr, "record sizes differ from this build's models/ptx");
  }
  if (!section_ok(&l.insns, sizeof(ptx_insn), total) ||
      !section_ok(&l.functions, sizeof(ptx_function), total) ||
      !section_ok(&l.symbols, sizeof(ptx_symbol), total) ||
      !section_ok(&l.blocks, sizeof(ptx_block), total) ||
      !section_ok(&l.opnd_pool, sizeof(ptx_operand), total) ||
      !section_ok(&l.param_list, 4, total) || !section_ok(&l.reg_names, 8, total) ||
      !section_ok(&l.init_data, 1, total) || !section_ok(&l.relocs, sizeof(ptx_reloc), total) ||
      !section_ok(&l.files, 8, total) || !section_ok(&l.strings, 1, total) ||
      !section_ok(&l.succ_list, 4, total) ||
      h.insn_offset % 16 != 0 ||
      h.insn_offset > total || h.n_insns > (total - h.insn_offset) / GPU_IMAGE_INSN_BYTES ||
      l.insns.count != h.n_insns ||
      l.functions.count != h.n_functions || l.strings.count == 0 ||
      bytes[l.strings.offset + l.strings.count - 1] != 0) {
    free(bytes);
    return bad(diag, addr, "a section lies outside the image or is misaligned");
  }
  L = calloc(1, sizeof *L);
  if (L) {
    L->reg_names = calloc(l.reg_names.count + 1, sizeof *L->reg_names);
    L->files = calloc(l.files.count + 1, sizeof *L->files);
    L->functions = calloc(l.functions.count + 1, sizeof *L->functions);
    L->symbols = calloc(l.symbols.count + 1, sizeof *L->symbols);
  }
  if (!L || !L->reg_names || !L->files || !L->functions || !L->symbols) {
    if (L) {
      free(L->reg_names);
      free(L->files);
      free(L->functions);
      free(L->symbols);
    }
    free(L);
    free(bytes);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "program image: out of host memory");
  }
  strings = (const char *)bytes + l.strings.offset;
#define STR(off) ((uint64_t)(off) < l.strings.count ? strings + (uint64_t)(off) : "")
  for (uint64_t i = 0; i < l.functions.count; i++) {
    memcpy(&L->functions[i], bytes + l.functions.offset + i * sizeof(ptx_function), sizeof(ptx_function));
    L->functions[i].name = STR((uintptr_t)L->functions[i].name);
  }
  for (uint64_t i = 0; i < l.symbols.count; i++) {
    memcpy(&L->symbols[i], bytes + l.symbols.offset + i * sizeof(ptx_symbol), sizeof(ptx_symbol));
    L->symbols[i].name = STR((uintptr_t)L->symbols[i].name);
  }
  for (uint64_t i = 0; i < l.reg_names.count; i++) {
    uint64_t off;
    memcpy(&off, bytes + l.reg_names.offset + i * 8, 8);
    L->reg_names[i] = STR(off);
  }
  for (uint64_t i = 0; i < l.files.count; i++) {
    uint64_t off;
    memcpy(&off, bytes + l.files.offset + i * 8, 8);
    L->files[i] = STR(off);
  }
  L->module.source_name = STR(l.source_name);
#undef STR
  L->module.version_major = l.version_major;
  L->module.version_minor = l.version_minor;
  L->module.target_sm = l.target_sm;
  L->module.address_size = l.address_size;
  L->module.functions = L->functions;
  L->module.n_functions = (uint32_t)l.functions.count;
  L->module.symbols = L->symbols;
  L->module.n_symbols = (uint32_t)l.symbols.count;
  L->module.insns = (const ptx_insn *)(bytes + l.insns.offset);
  L->module.n_insns = h.n_insns;
  L->module.blocks = (const ptx_block *)(bytes + l.blocks.offset);
  L->module.n_blocks = (uint32_t)l.blocks.count;
  L->module.opnd_pool = (const ptx_operand *)(bytes + l.opnd_pool.offset);
  L->module.n_opnd_pool = (uint32_t)l.opnd_pool.count;
  L->module.param_list = (const uint32_t *)(bytes + l.param_list.offset);
  L->module.n_param_list = (uint32_t)l.param_list.count;
  L->module.reg_names = L->reg_names;
  L->module.n_reg_names = (uint32_t)l.reg_names.count;
  L->module.init_data = bytes + l.init_data.offset;
  L->module.init_data_size = l.init_data.count;
  L->module.relocs = (const ptx_reloc *)(bytes + l.relocs.offset);
  L->module.n_relocs = (uint32_t)l.relocs.count;
  L->module.files = L->files;
  L->module.n_files = (uint32_t)l.files.count;
  L->module.succ_list = (const uint32_t *)(bytes + l.succ_list.offset);
  L->module.n_succ_list = (uint32_t)l.succ_list.count;
  L->module.global_segment_bytes = l.global_segment_bytes;
  L->module.const_segment_bytes = l.const_segment_bytes;
  L->module.shared_segment_bytes = l.shared_segment_bytes;
  L->bytes = bytes;
  L->pub.addr = addr;
  L->pub.header = h;
  L->pub.module = &L->module;
  simtvp_status st = check_module(&L->module, addr, diag);
  if (st != SIMTVP_OK) {
    gpu_image_free(&L->pub);
    return st;
  }
  *out = &L->pub;
  return SIMTVP_OK;
}

static simtvp_status check_header(const gpu_image_header *h, uint64_t addr, simtvp_diag *diag) {
  if (h->magic != GPU_IMAGE_MAGIC) return bad(diag, addr, "bad magic");
  if (h->version != GPU_IMAGE_VERSION) return bad(diag, addr, "unsupported version");
  if (h->header_bytes != sizeof *h || h->image_bytes < sizeof *h || h->image_bytes > (1ull << 34))
    return bad(diag, addr, "bad header or size");
  return SIMTVP_OK;
}

simtvp_status gpu_image_load(const gpu_mem_port *devmem, uint64_t addr, gpu_image **out,
                             simtvp_diag *diag) {
  gpu_image_header h;
  uint8_t *bytes;
  simtvp_status st;
  *out = NULL;
  if (!devmem->read(devmem->ctx, addr, &h, sizeof h)) {
    simtvp_diag_set(diag, SIMTVP_ERR_FAULT, "program image at 0x%llx: device memory not readable",
                    (unsigned long long)addr);
    simtvp_diag_at_address(diag, addr);
    return SIMTVP_ERR_FAULT;
  }
  if ((st = check_header(&h, addr, diag)) != SIMTVP_OK) return st;
  /* The claimed size must be readable before host memory is spent on it. */
  uint8_t last;
  if (addr + h.image_bytes < addr || !devmem->read(devmem->ctx, addr + h.image_bytes - 1, &last, 1))
    return bad(diag, addr, "its size reaches past readable device memory");
  bytes = malloc(h.image_bytes);
  if (!bytes) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "program image: out of host memory");
  if (!devmem->read(devmem->ctx, addr, bytes, h.image_bytes)) {
    free(bytes);
    simtvp_diag_set(diag, SIMTVP_ERR_FAULT, "program image at 0x%llx: device memory not readable",
                    (unsigned long long)addr);
    simtvp_diag_at_address(diag, addr);
    return SIMTVP_ERR_FAULT;
  }
  return rebuild(bytes, h.image_bytes, addr, out, diag);
}

simtvp_status gpu_image_load_bytes(const void *src, uint64_t size, uint64_t addr, gpu_image **out,
                                   simtvp_diag *diag) {
  gpu_image_header h;
  uint8_t *bytes;
  simtvp_status st;
  *out = NULL;
  if (size < sizeof h) return bad(diag, addr, "shorter than its header");
  memcpy(&h, src, sizeof h);
  if ((st = check_header(&h, addr, diag)) != SIMTVP_OK) return st;
  if (h.image_bytes > size) return bad(diag, addr, "truncated");
  bytes = malloc(h.image_bytes);
  if (!bytes) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "program image: out of host memory");
  memcpy(bytes, src, h.image_bytes);
  return rebuild(bytes, h.image_bytes, addr, out, diag);
}

void gpu_image_free(gpu_image *img) {
  img_loaded *L = (img_loaded *)img;
  if (!L) return;
  free(L->bytes);
  free(L->reg_names);
  free(L->files);
  free(L->functions);
  free(L->symbols);
  free(L);
}
