/* gpu_image — program image writer and loader (see gpu_image.h). */
#include "gpu_image.h"

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
      files, strings;
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

static uint64_t strings_size(const ptx_module *m) {
  uint64_t n = str_bytes(m->source_name);
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
  l.source_name = put_str(strings, &used, m->source_name);
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

static bool section_ok(const img_section *s, uint64_t elem, uint64_t total) {
  return s->offset <= total && s->count <= (total - s->offset) / (elem ? elem : 1);
}

static simtvp_status bad(simtvp_diag *diag, uint64_t addr, const char *what) {
  simtvp_diag_set(diag, SIMTVP_ERR_PARSE, "program image at 0x%llx: %s", (unsigned long long)addr, what);
  simtvp_diag_at_address(diag, addr);
  return SIMTVP_ERR_PARSE;
}

/* Takes ownership of bytes (malloc'd, size total). */
static simtvp_status rebuild(uint8_t *bytes, uint64_t total, uint64_t addr, gpu_image **out,
                             simtvp_diag *diag) {
  gpu_image_header h;
  img_layout l;
  img_loaded *L;
  const char *strings;
  memcpy(&h, bytes, sizeof h);
  if (h.layout_offset > total || total - h.layout_offset < sizeof l) {
    free(bytes);
    return bad(diag, addr, "layout table outside the image");
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
      h.insn_offset > total || h.n_insns > (total - h.insn_offset) / GPU_IMAGE_INSN_BYTES ||
      l.insns.count != h.n_insns ||
      l.functions.count != h.n_functions || l.strings.count == 0 ||
      bytes[l.strings.offset + l.strings.count - 1] != 0) {
    free(bytes);
    return bad(diag, addr, "a section lies outside the image");
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
  L->module.global_segment_bytes = l.global_segment_bytes;
  L->module.const_segment_bytes = l.const_segment_bytes;
  L->module.shared_segment_bytes = l.shared_segment_bytes;
  L->bytes = bytes;
  L->pub.addr = addr;
  L->pub.header = h;
  L->pub.module = &L->module;
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
