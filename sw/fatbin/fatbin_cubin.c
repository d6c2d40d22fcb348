/* fatbin_cubin.c — per-kernel facts from a SASS cubin (a 64-bit little-endian ELF, e_machine
 * EM_CUDA = 190).
 *
 * Kernels are the function symbols marked STO_CUDA_ENTRY (st_other bit 0x10). Their facts come from:
 *   .nv.info            records keyed by symbol index: EIATTR_REGCOUNT, EIATTR_FRAME_SIZE,
 *                       EIATTR_MIN_STACK_SIZE, EIATTR_MAX_STACK_SIZE ({u32 symbol, u32 value});
 *   .nv.info.<kernel>   the kernel's own records: parameters (EIATTR_KPARAM_INFO), parameter buffer
 *                       (EIATTR_PARAM_CBANK, EIATTR_CBANK_PARAM_SIZE), launch bounds
 *                       (EIATTR_MAX_THREADS, EIATTR_REQNTID, EIATTR_MAXREG_COUNT), barriers;
 *   .nv.shared.<kernel> static shared memory (its size; in cubins with a .nv.shared.reserved.<n>
 *                       section, as sm_90 ones, it starts with the system-reserved 1 KiB);
 *   .nv.constant0.<kernel> constant bank 0 (its size);
 *   .text.<kernel>      the code (its size; sh_info bits 24..31 repeat the register count).
 * An .nv.info record is a 4-byte head {u8 format, u8 attribute, u16 value} and, for format
 * EIFMT_SVAL, `value` bytes of data after it. docs/fixtures.md lists what the fixtures show. */
#include <stdlib.h>
#include <string.h>

#include "fatbin.h"
#include "fatbin_internal.h"

#define EM_CUDA 190
#define SHT_SYMTAB 2
#define SHT_STRTAB 3
#define SHT_NOBITS 8
#define STT_FUNC 2
#define STO_CUDA_ENTRY 0x10
#define ELF_HEADER_SIZE 64u
#define SECTION_HEADER_SIZE 64u
#define SYMBOL_SIZE 24u
/* Shared memory CUDA reserves for the system in every CTA on sm_80 and later
 * (cudaDevAttrReservedSharedMemoryPerBlock). sm_90 cubins that declare a `.nv.shared.reserved.<n>`
 * section place it at the start of each kernel's .nv.shared section (observed with ptxas 13.0:
 * section size = ptxas's "bytes smem" + 1024; checked by tests/fatbin on sm_90 fixtures). */
#define RESERVED_SHARED_BYTES 1024u

/* .nv.info record formats and the attributes read here (public reverse-engineering notes on
 * cuobjdump's EIATTR names; every one checked against ptxas -v by tests/fatbin). */
enum { EIFMT_NVAL = 1, EIFMT_BVAL = 2, EIFMT_HVAL = 3, EIFMT_SVAL = 4 };
enum {
  EIATTR_MAX_THREADS = 0x05,
  EIATTR_PARAM_CBANK = 0x0a,
  EIATTR_REQNTID = 0x10,
  EIATTR_FRAME_SIZE = 0x11,
  EIATTR_MIN_STACK_SIZE = 0x12,
  EIATTR_KPARAM_INFO = 0x17,
  EIATTR_CBANK_PARAM_SIZE = 0x19,
  EIATTR_MAXREG_COUNT = 0x1b,
  EIATTR_MAX_STACK_SIZE = 0x23,
  EIATTR_REGCOUNT = 0x2f,
  EIATTR_BARRIER_COUNT = 0x4c /* a byte; present when ptxas -v says "used N barriers", N > 0 */
};

typedef struct section {
  const char *name; /* "" when unnamed or the name is out of range */
  uint32_t type, link, info;
  uint64_t offset, size;
} section;

typedef struct kernel_slot {
  fatbin_kernel k;
  uint32_t symbol;        /* symbol table index: the key of .nv.info records */
  size_t first_param;     /* k.param_count parameters from here in the cubin's params array */
} kernel_slot;

struct fatbin_cubin {
  uint8_t *image;
  size_t size;
  kernel_slot *kernels;
  size_t count;
  fatbin_param *params;
  size_t param_count, param_capacity;
};

/* A record of an .nv.info section. */
typedef struct info_record {
  uint8_t format, attribute;
  uint16_t value;
  const uint8_t *data; /* EIFMT_SVAL: `value` bytes */
} info_record;

static simtvp_status fail_at(simtvp_diag *diag, size_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static simtvp_status fail_at(simtvp_diag *diag, size_t offset, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  simtvp_diag_vset(diag, SIMTVP_ERR_PARSE, fmt, ap);
  va_end(ap);
  simtvp_diag_at_address(diag, offset);
  return SIMTVP_ERR_PARSE;
}

/* A NUL-terminated string at `offset` of a string table section, or NULL. */
static const char *string_at(const fatbin_cubin *c, const section *table, uint64_t offset) {
  if (table->type != SHT_STRTAB || offset >= table->size) return NULL;
  const char *s = (const char *)c->image + table->offset + offset;
  return memchr(s, '\0', (size_t)(table->size - offset)) ? s : NULL;
}

static simtvp_status read_sections(const fatbin_cubin *c, section **out, uint32_t *count,
                                   simtvp_diag *diag) {
  const uint8_t *h = c->image;
  if (c->size < ELF_HEADER_SIZE || memcmp(h, "\177ELF", 4) != 0)
    return fail_at(diag, 0, "cubin: not an ELF file (%zu bytes)", c->size);
  if (h[4] != 2 || h[5] != 1)
    return fail_at(diag, 4, "cubin: ELF class %u / data encoding %u, want 64-bit little-endian",
                   h[4], h[5]);
  if (fatbin_rd16(h + 0x12) != EM_CUDA)
    return fail_at(diag, 0x12, "cubin: e_machine %u is not EM_CUDA (%u)", fatbin_rd16(h + 0x12),
                   EM_CUDA);
  const uint64_t shoff = fatbin_rd64(h + 0x28);
  const uint32_t shentsize = fatbin_rd16(h + 0x3a), shnum = fatbin_rd16(h + 0x3c),
                 shstrndx = fatbin_rd16(h + 0x3e);
  if (shentsize != SECTION_HEADER_SIZE)
    return fail_at(diag, 0x3a, "cubin: section header size %u, want %u", shentsize,
                   SECTION_HEADER_SIZE);
  if (shoff > c->size || (uint64_t)shnum * SECTION_HEADER_SIZE > c->size - shoff)
    return fail_at(diag, 0x28,
                   "cubin: %u section headers at offset %#llx run past the end of the %zu-byte file",
                   shnum, (unsigned long long)shoff, c->size);
  if (shstrndx >= shnum)
    return fail_at(diag, 0x3e, "cubin: section name table index %u out of %u sections", shstrndx,
                   shnum);
  section *s = calloc(shnum ? shnum : 1, sizeof *s);
  if (!s) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "cubin: out of memory");
  for (uint32_t i = 0; i < shnum; ++i) {
    const uint8_t *sh = h + shoff + (uint64_t)i * SECTION_HEADER_SIZE;
    s[i].type = fatbin_rd32(sh + 4);
    s[i].offset = fatbin_rd64(sh + 0x18);
    s[i].size = fatbin_rd64(sh + 0x20);
    s[i].link = fatbin_rd32(sh + 0x28);
    s[i].info = fatbin_rd32(sh + 0x2c);
    if (s[i].type != SHT_NOBITS && (s[i].offset > c->size || s[i].size > c->size - s[i].offset)) {
      simtvp_status st = fail_at(diag, shoff + (uint64_t)i * SECTION_HEADER_SIZE,
                                 "cubin: section %u [%#llx, +%llu) lies outside the %zu-byte file", i,
                                 (unsigned long long)s[i].offset, (unsigned long long)s[i].size,
                                 c->size);
      free(s);
      return st;
    }
  }
  for (uint32_t i = 0; i < shnum; ++i) {
    const char *name = string_at(c, &s[shstrndx], fatbin_rd32(h + shoff + (uint64_t)i * SECTION_HEADER_SIZE));
    s[i].name = name ? name : "";
  }
  *out = s;
  *count = shnum;
  return SIMTVP_OK;
}

/* Next record of an .nv.info section: 1 and the record, 0 at the end, or a PARSE error. */
static int next_record(const uint8_t *data, uint64_t size, uint64_t *pos, info_record *r,
                       const char *section_name, uint64_t section_offset, simtvp_diag *diag,
                       simtvp_status *status) {
  if (*pos >= size) return 0;
  if (size - *pos < 4) {
    *status = fail_at(diag, section_offset + *pos, "cubin: %s: truncated record at offset %#llx",
                      section_name, (unsigned long long)*pos);
    return -1;
  }
  const uint8_t *p = data + *pos;
  r->format = p[0];
  r->attribute = p[1];
  r->value = fatbin_rd16(p + 2);
  r->data = p + 4;
  if (r->format < EIFMT_NVAL || r->format > EIFMT_SVAL) {
    *status = fail_at(diag, section_offset + *pos,
                      "cubin: %s: record at offset %#llx has unknown format %u", section_name,
                      (unsigned long long)*pos, r->format);
    return -1;
  }
  uint64_t length = 4 + (r->format == EIFMT_SVAL ? r->value : 0);
  if (length > size - *pos) {
    *status = fail_at(diag, section_offset + *pos,
                      "cubin: %s: attribute %#x at offset %#llx declares %u data bytes, %llu left",
                      section_name, r->attribute, (unsigned long long)*pos, r->value,
                      (unsigned long long)(size - *pos - 4));
    return -1;
  }
  *pos += length;
  return 1;
}

static kernel_slot *kernel_by_name(fatbin_cubin *c, const char *name) {
  for (size_t i = 0; i < c->count; ++i)
    if (strcmp(c->kernels[i].k.name, name) == 0) return &c->kernels[i];
  return NULL;
}

static kernel_slot *kernel_by_symbol(fatbin_cubin *c, uint32_t symbol) {
  for (size_t i = 0; i < c->count; ++i)
    if (c->kernels[i].symbol == symbol) return &c->kernels[i];
  return NULL;
}

/* The kernel named by the part after `prefix` in a section name, or NULL. */
static kernel_slot *kernel_of_section(fatbin_cubin *c, const section *s, const char *prefix) {
  size_t n = strlen(prefix);
  return strncmp(s->name, prefix, n) == 0 ? kernel_by_name(c, s->name + n) : NULL;
}

static simtvp_status add_param(fatbin_cubin *c, const fatbin_param *p, simtvp_diag *diag) {
  if (c->param_count == c->param_capacity) {
    size_t capacity = c->param_capacity ? 2 * c->param_capacity : 16;
    fatbin_param *grown = realloc(c->params, capacity * sizeof *grown);
    if (!grown) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "cubin: out of memory");
    c->params = grown;
    c->param_capacity = capacity;
  }
  c->params[c->param_count++] = *p;
  return SIMTVP_OK;
}

/* A record's SVAL data must hold at least `need` bytes. */
static simtvp_status need_data(const info_record *r, unsigned need, const char *section_name,
                               uint64_t offset, simtvp_diag *diag) {
  if (r->format == EIFMT_SVAL && r->value >= need) return SIMTVP_OK;
  return fail_at(diag, offset,
                 "cubin: %s: attribute %#x needs %u data bytes (format %u, %u bytes)", section_name,
                 r->attribute, need, r->format, r->format == EIFMT_SVAL ? r->value : 0);
}

/* Records of .nv.info.<kernel>. Parameters are appended to the cubin's array. */
static simtvp_status read_kernel_info(fatbin_cubin *c, const section *s, kernel_slot *slot,
                                      simtvp_diag *diag) {
  const uint8_t *data = c->image + s->offset;
  uint64_t pos = 0;
  info_record r;
  simtvp_status st = SIMTVP_OK;
  int more;
  slot->first_param = c->param_count;
  while ((more = next_record(data, s->size, &pos, &r, s->name, s->offset, diag, &st)) == 1) {
    fatbin_kernel *k = &slot->k;
    const uint64_t at = s->offset + pos;
    switch (r.attribute) {
    case EIATTR_KPARAM_INFO: {
      /* {u32 index, u16 ordinal, u16 offset, u32 flags: size in bits 18..31} */
      if ((st = need_data(&r, 12, s->name, at, diag)) != SIMTVP_OK) return st;
      fatbin_param p = {fatbin_rd16(r.data + 4), fatbin_rd16(r.data + 6), fatbin_rd32(r.data + 8) >> 18};
      if ((st = add_param(c, &p, diag)) != SIMTVP_OK) return st;
      break;
    }
    case EIATTR_PARAM_CBANK: /* {u32 section symbol, u16 offset, u16 size} */
      if ((st = need_data(&r, 8, s->name, at, diag)) != SIMTVP_OK) return st;
      k->param_base = fatbin_rd16(r.data + 4);
      break;
    case EIATTR_CBANK_PARAM_SIZE: k->param_bytes = r.value; break;
    case EIATTR_MAXREG_COUNT: k->max_registers = r.value; break;
    case EIATTR_BARRIER_COUNT: k->barriers = r.format == EIFMT_SVAL ? 0 : (r.value & 0xffu); break;
    case EIATTR_MAX_THREADS:
    case EIATTR_REQNTID: {
      if ((st = need_data(&r, 12, s->name, at, diag)) != SIMTVP_OK) return st;
      uint32_t *dims = r.attribute == EIATTR_MAX_THREADS ? k->max_threads : k->required_threads;
      for (int d = 0; d < 3; ++d) dims[d] = fatbin_rd32(r.data + 4 * d);
      break;
    }
    default: break; /* instruction offsets, workarounds, API version ...: not needed */
    }
  }
  slot->k.param_count = (uint32_t)(c->param_count - slot->first_param);
  return more < 0 ? st : SIMTVP_OK;
}

/* Records of the module-wide .nv.info: per-function values keyed by symbol index. */
static simtvp_status read_module_info(fatbin_cubin *c, const section *s, simtvp_diag *diag) {
  const uint8_t *data = c->image + s->offset;
  uint64_t pos = 0;
  info_record r;
  simtvp_status st = SIMTVP_OK;
  int more;
  while ((more = next_record(data, s->size, &pos, &r, s->name, s->offset, diag, &st)) == 1) {
    if (r.attribute != EIATTR_REGCOUNT && r.attribute != EIATTR_FRAME_SIZE &&
        r.attribute != EIATTR_MIN_STACK_SIZE && r.attribute != EIATTR_MAX_STACK_SIZE)
      continue;
    if ((st = need_data(&r, 8, s->name, s->offset + pos, diag)) != SIMTVP_OK) return st;
    kernel_slot *slot = kernel_by_symbol(c, fatbin_rd32(r.data));
    if (!slot) continue; /* a device function */
    const uint32_t value = fatbin_rd32(r.data + 4);
    switch (r.attribute) {
    case EIATTR_REGCOUNT: slot->k.registers = (int32_t)value; break;
    case EIATTR_FRAME_SIZE: slot->k.frame_bytes = value; break;
    case EIATTR_MIN_STACK_SIZE: slot->k.min_stack_bytes = value; break;
    default: slot->k.max_stack_bytes = value; break;
    }
  }
  return more < 0 ? st : SIMTVP_OK;
}

/* Kernels from the symbol table: function symbols marked as CUDA entries. */
static simtvp_status find_kernels(fatbin_cubin *c, const section *s, uint32_t count,
                                  simtvp_diag *diag) {
  const section *symtab = NULL;
  for (uint32_t i = 0; i < count && !symtab; ++i)
    if (s[i].type == SHT_SYMTAB) symtab = &s[i];
  if (!symtab) return SIMTVP_OK; /* no symbols, no kernels */
  if (symtab->link >= count)
    return fail_at(diag, symtab->offset, "cubin: symbol table links to section %u of %u",
                   symtab->link, count);
  const section *strings = &s[symtab->link];
  const size_t symbols = (size_t)(symtab->size / SYMBOL_SIZE);
  c->kernels = calloc(symbols ? symbols : 1, sizeof *c->kernels);
  if (!c->kernels) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "cubin: out of memory");
  for (size_t i = 0; i < symbols; ++i) {
    const uint8_t *sym = c->image + symtab->offset + i * SYMBOL_SIZE;
    const uint8_t info = sym[4], other = sym[5];
    const uint32_t shndx = fatbin_rd16(sym + 6);
    if ((info & 0xf) != STT_FUNC || !(other & STO_CUDA_ENTRY)) continue;
    const char *name = string_at(c, strings, fatbin_rd32(sym));
    if (!name || !name[0])
      return fail_at(diag, symtab->offset + i * SYMBOL_SIZE,
                     "cubin: kernel symbol %zu has no valid name", i);
    kernel_slot *slot = &c->kernels[c->count++];
    slot->symbol = (uint32_t)i;
    slot->k.name = name;
    slot->k.registers = -1;
    if (shndx < count) {
      slot->k.code_bytes = (uint32_t)s[shndx].size;
      if (s[shndx].info >> 24) slot->k.registers = (int32_t)(s[shndx].info >> 24);
    }
  }
  return SIMTVP_OK;
}

static simtvp_status read_cubin(fatbin_cubin *c, simtvp_diag *diag) {
  section *s = NULL;
  uint32_t count = 0;
  simtvp_status st = read_sections(c, &s, &count, diag);
  if (st != SIMTVP_OK) return st;
  st = find_kernels(c, s, count, diag);
  int reserves_shared = 0;
  for (uint32_t i = 0; i < count && st == SIMTVP_OK; ++i) {
    kernel_slot *slot;
    if (strncmp(s[i].name, ".nv.shared.reserved.", 20) == 0)
      reserves_shared = 1;
    else if (strcmp(s[i].name, ".nv.info") == 0)
      st = read_module_info(c, &s[i], diag);
    else if ((slot = kernel_of_section(c, &s[i], ".nv.info.")) != NULL)
      st = read_kernel_info(c, &s[i], slot, diag);
    else if ((slot = kernel_of_section(c, &s[i], ".nv.shared.")) != NULL)
      slot->k.shared_bytes = (uint32_t)s[i].size;
    else if ((slot = kernel_of_section(c, &s[i], ".nv.constant0.")) != NULL)
      slot->k.const0_bytes = (uint32_t)s[i].size;
  }
  free(s);
  if (st != SIMTVP_OK) return st;

  /* Reserved shared memory split off; parameters resolved now that their array no longer moves,
   * sorted by ordinal. */
  for (size_t i = 0; i < c->count; ++i) {
    kernel_slot *slot = &c->kernels[i];
    if (reserves_shared && slot->k.shared_bytes >= RESERVED_SHARED_BYTES) {
      slot->k.shared_bytes -= RESERVED_SHARED_BYTES;
      slot->k.reserved_shared_bytes = RESERVED_SHARED_BYTES;
    }
    const size_t n = slot->k.param_count;
    fatbin_param *p = n ? c->params + slot->first_param : NULL;
    for (size_t a = 1; a < n; ++a)
      for (size_t b = a; b > 0 && p[b - 1].ordinal > p[b].ordinal; --b) {
        fatbin_param t = p[b];
        p[b] = p[b - 1];
        p[b - 1] = t;
      }
    slot->k.params = p;
  }
  return SIMTVP_OK;
}

simtvp_status fatbin_cubin_open(const void *elf, size_t size, fatbin_cubin **out,
                                simtvp_diag *diag) {
  if (!out || (!elf && size))
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "fatbin_cubin_open: NULL argument");
  *out = NULL;
  fatbin_cubin *c = calloc(1, sizeof *c);
  if (!c || !(c->image = malloc(size ? size : 1))) {
    free(c);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "cubin: out of memory");
  }
  if (size) memcpy(c->image, elf, size);
  c->size = size;
  simtvp_status st = read_cubin(c, diag);
  if (st != SIMTVP_OK) {
    fatbin_cubin_destroy(c);
    return st;
  }
  *out = c;
  return SIMTVP_OK;
}

simtvp_status fatbin_read_cubin(const fatbin *fb, size_t index, fatbin_cubin **out,
                                simtvp_diag *diag) {
  if (!out) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "fatbin_read_cubin: NULL argument");
  *out = NULL;
  const fatbin_entry *e = fatbin_entry_at(fb, index);
  if (e && e->kind != FATBIN_KIND_ELF)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "fatbin: entry %zu is %s, not a cubin", index,
                           fatbin_kind_name(e->kind));
  uint8_t *payload;
  size_t size;
  simtvp_status st = fatbin_read_entry(fb, index, &payload, &size, diag);
  if (st != SIMTVP_OK) return st;
  st = fatbin_cubin_open(payload, size, out, diag);
  free(payload);
  return st;
}

void fatbin_cubin_destroy(fatbin_cubin *c) {
  if (!c) return;
  free(c->image);
  free(c->kernels);
  free(c->params);
  free(c);
}

size_t fatbin_cubin_kernel_count(const fatbin_cubin *c) { return c ? c->count : 0; }

const fatbin_kernel *fatbin_cubin_kernel_at(const fatbin_cubin *c, size_t index) {
  return c && index < c->count ? &c->kernels[index].k : NULL;
}

const fatbin_kernel *fatbin_cubin_find_kernel(const fatbin_cubin *c, const char *name) {
  if (!c || !name) return NULL;
  for (size_t i = 0; i < c->count; ++i)
    if (strcmp(c->kernels[i].k.name, name) == 0) return &c->kernels[i].k;
  return NULL;
}
