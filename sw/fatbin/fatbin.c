/* fatbin.c — fatbin wrapper, containers and entries; picking and decompressing entries.
 * Field layout: docs/fixtures.md, "The fatbin format". */
#include "fatbin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "fatbin_internal.h"

/* Container header: u32 magic, u16 version, u16 header size (16), u64 size of the entries after it. */
#define CONTAINER_HEADER_SIZE 16u
#define CONTAINER_VERSION 1u

/* Entry header fields, as byte offsets from the entry start (nvcc 13.0; see docs/fixtures.md). */
enum {
  ENTRY_KIND = 0x00,              /* u16: 1 PTX, 2 ELF */
  ENTRY_HEADER_SIZE = 0x04,       /* u32: bytes from the entry start to its payload */
  ENTRY_PAYLOAD_SIZE = 0x08,      /* u64: bytes reserved for the payload (8-byte padded) */
  ENTRY_COMPRESSED_SIZE = 0x10,   /* u32: stored bytes of a compressed payload, else 0 */
  ENTRY_EXTENSION = 0x14,         /* u32: offset of the header extension in the header, or 0 */
  ENTRY_VERSION_MINOR = 0x18,     /* u16 */
  ENTRY_VERSION_MAJOR = 0x1a,     /* u16 */
  ENTRY_ARCH = 0x1c,              /* u32: 75 for sm_75 / compute_75 */
  ENTRY_FLAGS = 0x28,             /* u64 */
  ENTRY_UNCOMPRESSED_SIZE = 0x38, /* u64: payload size once decompressed, else 0 */
  ENTRY_BASE_SIZE = 0x40
};

#define FLAG_COMPRESSED_LZ4 0x2000u
#define FLAG_COMPRESSED_ZSTD 0x8000u

/* The wrapper as fatbinary_section.h lays it out (__fatBinC_Wrapper_t). */
typedef struct fatbin_wrapper {
  int32_t magic;
  int32_t version;
  const void *data;
  const void *filename_or_fatbins;
} fatbin_wrapper;

struct fatbin {
  const uint8_t *base;
  size_t size;
  fatbin_entry *entries;
  size_t count, capacity;
  size_t containers;
};

const char *fatbin_kind_name(uint32_t kind) {
  return kind == FATBIN_KIND_PTX ? "PTX" : kind == FATBIN_KIND_ELF ? "ELF" : "unknown";
}

const char *fatbin_compression_name(fatbin_compression compression) {
  switch (compression) {
  case FATBIN_COMPRESSION_NONE: return "none";
  case FATBIN_COMPRESSION_LZ4: return "LZ4";
  case FATBIN_COMPRESSION_ZSTD: return "zstd";
  default: return "unknown";
  }
}

/* "entry 3 (PTX compute_80)": how messages name an entry. */
static const char *describe(const fatbin_entry *e, char *buf, size_t size) {
  const char *target = e->kind == FATBIN_KIND_PTX ? "compute_" : "sm_";
  if (e->kind != FATBIN_KIND_PTX && e->kind != FATBIN_KIND_ELF)
    snprintf(buf, size, "entry %u (kind %u, arch %u)", e->index, e->kind, e->arch);
  else
    snprintf(buf, size, "entry %u (%s %s%u)", e->index, fatbin_kind_name(e->kind), target, e->arch);
  return buf;
}

static simtvp_status fail_at(simtvp_diag *diag, simtvp_status status, size_t offset, const char *fmt,
                             ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static simtvp_status fail_at(simtvp_diag *diag, simtvp_status status, size_t offset, const char *fmt,
                             ...) {
  va_list ap;
  va_start(ap, fmt);
  simtvp_diag_vset(diag, status, fmt, ap);
  va_end(ap);
  simtvp_diag_at_address(diag, offset);
  return status;
}

static simtvp_status append_entry(fatbin *fb, const fatbin_entry *entry, simtvp_diag *diag) {
  if (fb->count == fb->capacity) {
    size_t capacity = fb->capacity ? 2 * fb->capacity : 8;
    fatbin_entry *grown = realloc(fb->entries, capacity * sizeof *grown);
    if (!grown) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "fatbin: out of memory");
    fb->entries = grown;
    fb->capacity = capacity;
  }
  fb->entries[fb->count++] = *entry;
  return SIMTVP_OK;
}

/* JIT options of a PTX entry: the header extension holds {u32 offset, u32 size} of a string inside
 * the header. Anything that does not fit the header is ignored (the options are advisory). */
static void read_options(const uint8_t *header, uint32_t header_size, fatbin_entry *e) {
  uint32_t ext = fatbin_rd32(header + ENTRY_EXTENSION);
  if (e->kind != FATBIN_KIND_PTX || ext < ENTRY_BASE_SIZE || ext > header_size - 8) return;
  uint32_t at = fatbin_rd32(header + ext), size = fatbin_rd32(header + ext + 4);
  if (at > header_size || size > header_size - at) return;
  while (size && (header[at + size - 1] == '\0' || header[at + size - 1] == ' ')) --size;
  if (size) {
    e->options = (const char *)header + at;
    e->options_size = size;
  }
}

/* Parses the container at `pos` and appends its entries; *end receives the offset after it. */
static simtvp_status parse_container(fatbin *fb, size_t pos, size_t *end, simtvp_diag *diag) {
  const uint8_t *c = fb->base + pos;
  const size_t left = fb->size - pos;
  if (left < CONTAINER_HEADER_SIZE)
    return fail_at(diag, SIMTVP_ERR_PARSE, pos,
                   "fatbin: truncated container header at offset %#zx (%zu bytes, need %u)", pos,
                   left, CONTAINER_HEADER_SIZE);
  uint32_t magic = fatbin_rd32(c), version = fatbin_rd16(c + 4), header_size = fatbin_rd16(c + 6);
  uint64_t body = fatbin_rd64(c + 8);
  if (magic != FATBIN_CONTAINER_MAGIC)
    return fail_at(diag, SIMTVP_ERR_PARSE, pos,
                   "fatbin: bad container magic %#x at offset %#zx (want %#x)", magic, pos,
                   FATBIN_CONTAINER_MAGIC);
  if (version != CONTAINER_VERSION)
    return fail_at(diag, SIMTVP_ERR_UNSUPPORTED, pos,
                   "fatbin: container version %u at offset %#zx is not supported (only %u)",
                   version, pos, CONTAINER_VERSION);
  if (header_size < CONTAINER_HEADER_SIZE || header_size > left)
    return fail_at(diag, SIMTVP_ERR_PARSE, pos,
                   "fatbin: container at offset %#zx declares a %u-byte header (%zu bytes left)",
                   pos, header_size, left);
  if (body > left - header_size)
    return fail_at(diag, SIMTVP_ERR_PARSE, pos,
                   "fatbin: container at offset %#zx declares %llu bytes of entries, only %zu "
                   "present (truncated?)",
                   pos, (unsigned long long)body, left - header_size);
  const size_t container_end = pos + header_size + (size_t)body;
  const uint32_t container = (uint32_t)fb->containers;

  for (size_t at = pos + header_size; at < container_end;) {
    const uint8_t *h = fb->base + at;
    const size_t room = container_end - at;
    const uint32_t index = (uint32_t)fb->count;
    if (room < ENTRY_BASE_SIZE)
      return fail_at(diag, SIMTVP_ERR_PARSE, at,
                     "fatbin: entry %u at offset %#zx: truncated header (%zu bytes left in the "
                     "container, need %u)",
                     index, at, room, ENTRY_BASE_SIZE);
    fatbin_entry e;
    memset(&e, 0, sizeof e);
    e.index = index;
    e.container = container;
    e.kind = fatbin_rd16(h + ENTRY_KIND);
    e.arch = fatbin_rd32(h + ENTRY_ARCH);
    e.version_major = fatbin_rd16(h + ENTRY_VERSION_MAJOR);
    e.version_minor = fatbin_rd16(h + ENTRY_VERSION_MINOR);
    e.flags = fatbin_rd64(h + ENTRY_FLAGS);
    e.offset = at;
    e.header_size = fatbin_rd32(h + ENTRY_HEADER_SIZE);
    e.payload_size = fatbin_rd64(h + ENTRY_PAYLOAD_SIZE);
    char name[64];
    if (e.header_size < ENTRY_BASE_SIZE || e.header_size > room)
      return fail_at(diag, SIMTVP_ERR_PARSE, at,
                     "fatbin: %s at offset %#zx: header size %u is outside [%u, %zu]",
                     describe(&e, name, sizeof name), at, e.header_size, ENTRY_BASE_SIZE, room);
    if (e.payload_size > room - e.header_size)
      return fail_at(diag, SIMTVP_ERR_PARSE, at,
                     "fatbin: %s at offset %#zx: payload of %llu bytes runs past the container end "
                     "at %#zx (truncated?)",
                     describe(&e, name, sizeof name), at, (unsigned long long)e.payload_size,
                     container_end);
    e.payload_offset = at + e.header_size;

    const uint64_t compression_bits = e.flags & (FLAG_COMPRESSED_LZ4 | FLAG_COMPRESSED_ZSTD);
    e.compression = compression_bits == 0                      ? FATBIN_COMPRESSION_NONE
                    : compression_bits == FLAG_COMPRESSED_LZ4  ? FATBIN_COMPRESSION_LZ4
                    : compression_bits == FLAG_COMPRESSED_ZSTD ? FATBIN_COMPRESSION_ZSTD
                                                               : FATBIN_COMPRESSION_UNKNOWN;
    if (e.compression == FATBIN_COMPRESSION_NONE) {
      e.stored_size = e.payload_size;
      e.uncompressed_size = e.payload_size;
    } else {
      e.stored_size = fatbin_rd32(h + ENTRY_COMPRESSED_SIZE);
      e.uncompressed_size = fatbin_rd64(h + ENTRY_UNCOMPRESSED_SIZE);
      if (e.stored_size == 0 || e.stored_size > e.payload_size)
        return fail_at(diag, SIMTVP_ERR_PARSE, at,
                       "fatbin: %s at offset %#zx: compressed size %llu does not fit its %llu-byte "
                       "payload",
                       describe(&e, name, sizeof name), at, (unsigned long long)e.stored_size,
                       (unsigned long long)e.payload_size);
    }
    read_options(h, e.header_size, &e);
    simtvp_status st = append_entry(fb, &e, diag);
    if (st != SIMTVP_OK) return st;
    at = e.payload_offset + (size_t)e.payload_size;
  }
  fb->containers++;
  *end = container_end;
  return SIMTVP_OK;
}

static simtvp_status parse(const void *data, size_t size, size_t max_containers, fatbin **out,
                           simtvp_diag *diag) {
  fatbin *fb = calloc(1, sizeof *fb);
  if (!fb) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "fatbin: out of memory");
  fb->base = data;
  fb->size = size;
  size_t pos = 0;
  simtvp_status st = SIMTVP_OK;
  while (st == SIMTVP_OK && pos < size && fb->containers < max_containers) {
    st = parse_container(fb, pos, &pos, diag);
    while (st == SIMTVP_OK && pos < size && fb->base[pos] == 0) ++pos; /* padding between containers */
  }
  if (st == SIMTVP_OK && pos < size)
    st = fail_at(diag, SIMTVP_ERR_PARSE, pos, "fatbin: %zu unexpected bytes after the container",
                 size - pos);
  if (st != SIMTVP_OK) {
    fatbin_destroy(fb);
    return st;
  }
  *out = fb;
  return SIMTVP_OK;
}

simtvp_status fatbin_open(const void *data, size_t size, fatbin **out, simtvp_diag *diag) {
  if (!out || (!data && size)) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "fatbin_open: NULL argument");
  *out = NULL;
  if (size == 0) return fail_at(diag, SIMTVP_ERR_PARSE, 0, "fatbin: empty input");
  return parse(data, size, SIZE_MAX, out, diag);
}

simtvp_status fatbin_open_wrapper(const void *wrapper, size_t max_size, fatbin **out,
                                  simtvp_diag *diag) {
  if (!out || !wrapper) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "fatbin_open_wrapper: NULL argument");
  *out = NULL;
  if (max_size == 0) max_size = FATBIN_DEFAULT_MAX_SIZE;
  fatbin_wrapper w;
  memcpy(&w, wrapper, sizeof w);
  if ((uint32_t)w.magic != FATBIN_WRAPPER_MAGIC)
    return simtvp_diag_set(diag, SIMTVP_ERR_PARSE, "fatbin wrapper: magic %#x (want %#x)",
                           (uint32_t)w.magic, FATBIN_WRAPPER_MAGIC);
  if (w.version != 1 && w.version != 2)
    return simtvp_diag_set(diag, SIMTVP_ERR_UNSUPPORTED,
                           "fatbin wrapper: version %d is not supported (1 or 2)", w.version);
  if (!w.data) return simtvp_diag_set(diag, SIMTVP_ERR_PARSE, "fatbin wrapper: NULL data pointer");
  const uint8_t *c = w.data;
  if (fatbin_rd32(c) != FATBIN_CONTAINER_MAGIC)
    return fail_at(diag, SIMTVP_ERR_PARSE, 0, "fatbin wrapper: data starts with %#x, not a fatbin (%#x)",
                   fatbin_rd32(c), FATBIN_CONTAINER_MAGIC);
  uint64_t body = fatbin_rd64(c + 8), header = fatbin_rd16(c + 6);
  if (body > max_size || header + body > max_size)
    return fail_at(diag, SIMTVP_ERR_LIMIT, 0,
                   "fatbin wrapper: container claims %llu bytes, more than the %zu allowed",
                   (unsigned long long)(header + body), max_size);
  return parse(c, (size_t)(header + body), 1, out, diag);
}

void fatbin_destroy(fatbin *fb) {
  if (!fb) return;
  free(fb->entries);
  free(fb);
}

size_t fatbin_entry_count(const fatbin *fb) { return fb ? fb->count : 0; }
size_t fatbin_container_count(const fatbin *fb) { return fb ? fb->containers : 0; }

const fatbin_entry *fatbin_entry_at(const fatbin *fb, size_t index) {
  return fb && index < fb->count ? &fb->entries[index] : NULL;
}

/* "compute_75, compute_80": the targets of the entries of one kind, for messages. */
static void list_targets(const fatbin *fb, uint32_t kind, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < fb->count && used < size; ++i) {
    if (fb->entries[i].kind != kind) continue;
    int n = snprintf(buf + used, size - used, "%s%s%u", used ? ", " : "",
                     kind == FATBIN_KIND_PTX ? "compute_" : "sm_", fb->entries[i].arch);
    if (n < 0) break;
    used += (size_t)n;
  }
  if (!buf[0]) snprintf(buf, size, "none");
}

simtvp_status fatbin_pick_ptx(const fatbin *fb, uint32_t sm, size_t *index, simtvp_diag *diag) {
  if (!fb || !index) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "fatbin_pick_ptx: NULL argument");
  const fatbin_entry *best = NULL;
  for (size_t i = 0; i < fb->count; ++i) {
    const fatbin_entry *e = &fb->entries[i];
    if (e->kind == FATBIN_KIND_PTX && e->arch <= sm && (!best || e->arch > best->arch)) best = e;
  }
  if (!best) {
    char ptx[256], sass[256];
    list_targets(fb, FATBIN_KIND_PTX, ptx, sizeof ptx);
    list_targets(fb, FATBIN_KIND_ELF, sass, sizeof sass);
    return simtvp_diag_set(diag, SIMTVP_ERR_UNSUPPORTED,
                           "fatbin: no PTX for sm_%u (PTX in the fatbin: %s; SASS: %s)", sm, ptx,
                           sass);
  }
  *index = best->index;
  return SIMTVP_OK;
}

simtvp_status fatbin_pick_elf(const fatbin *fb, uint32_t sm, size_t *index, simtvp_diag *diag) {
  if (!fb || !index) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "fatbin_pick_elf: NULL argument");
  const fatbin_entry *best = NULL;
  for (size_t i = 0; i < fb->count; ++i) {
    const fatbin_entry *e = &fb->entries[i];
    if (e->kind == FATBIN_KIND_ELF && e->arch / 10 == sm / 10 && e->arch <= sm &&
        (!best || e->arch > best->arch))
      best = e;
  }
  if (!best) {
    char sass[256];
    list_targets(fb, FATBIN_KIND_ELF, sass, sizeof sass);
    return simtvp_diag_set(diag, SIMTVP_ERR_UNSUPPORTED,
                           "fatbin: no SASS runs on sm_%u (SASS in the fatbin: %s)", sm, sass);
  }
  *index = best->index;
  return SIMTVP_OK;
}

/* Decodes one LZ4 block (the LZ4 block format: sequences of a token, literals, a 2-byte offset and
 * a match; the last sequence has literals only). Returns NULL on success, or what is wrong, with
 * *where set to the input offset of the fault. */
static const char *lz4_decode(const uint8_t *in, size_t in_size, uint8_t *out, size_t out_size,
                              size_t *written, size_t *where) {
  size_t ip = 0, op = 0;
  for (;;) {
    *where = ip;
    if (ip >= in_size) return "stream ends before its last sequence";
    const unsigned token = in[ip++];
    size_t literals = token >> 4;
    if (literals == 15) {
      unsigned more;
      do {
        if (ip >= in_size) return "literal length runs past the end";
        more = in[ip++];
        literals += more;
      } while (more == 255);
    }
    if (literals > in_size - ip) return "literals run past the end of the input";
    if (literals > out_size - op) return "literals overflow the declared size";
    memcpy(out + op, in + ip, literals);
    ip += literals;
    op += literals;
    if (ip == in_size) break; /* the last sequence: literals only */
    *where = ip;
    if (in_size - ip < 2) return "truncated match offset";
    const size_t distance = (size_t)in[ip] | ((size_t)in[ip + 1] << 8);
    ip += 2;
    if (distance == 0 || distance > op) return "match offset points before the output";
    size_t length = (token & 15u) + 4;
    if ((token & 15u) == 15) {
      unsigned more;
      do {
        if (ip >= in_size) return "match length runs past the end";
        more = in[ip++];
        length += more;
      } while (more == 255);
    }
    if (length > out_size - op) return "match overflows the declared size";
    for (size_t k = 0; k < length; ++k, ++op) out[op] = out[op - distance]; /* may overlap */
  }
  *written = op;
  return NULL;
}

/* An LZ4 sequence turns each stored byte into at most 255 output bytes (a length byte of 255). */
#define LZ4_MAX_EXPANSION 255u

/* Decompresses the zstd frames of src into a buffer that grows with the output (from what the
 * input could plausibly hold, doubling up to want + 1 bytes), so a header claiming far more than
 * the frames hold costs no memory. *out gets want + 1 bytes of room at most; *got the bytes made. */
static simtvp_status zstd_read(const uint8_t *src, size_t stored, size_t want, uint8_t **out,
                               size_t *got, const char *name, uint64_t payload_offset,
                               simtvp_diag *diag) {
  const size_t limit = want + 1; /* one byte more than claimed: detects a longer payload */
  size_t cap = stored < ((size_t)1 << 20) ? stored * 8 + 4096 : stored;
  if (cap > limit) cap = limit;
  uint8_t *buf = malloc(cap);
  ZSTD_DCtx *dc = ZSTD_createDCtx();
  if (!buf || !dc) {
    free(buf);
    ZSTD_freeDCtx(dc);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "fatbin: out of memory for zstd");
  }
  ZSTD_inBuffer in = {src, stored, 0};
  ZSTD_outBuffer o = {buf, cap, 0};
  const char *why = NULL;
  for (;;) {
    if (o.pos == o.size) {
      if (cap == limit) break; /* more than claimed: reported below as a size mismatch */
      cap = cap > limit / 2 ? limit : cap * 2;
      uint8_t *grown = realloc(buf, cap);
      if (!grown) {
        free(buf);
        ZSTD_freeDCtx(dc);
        return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "fatbin: out of memory (%zu bytes)", cap);
      }
      buf = grown;
      o.dst = buf;
      o.size = cap;
    }
    size_t r = ZSTD_decompressStream(dc, &o, &in);
    if (ZSTD_isError(r)) {
      why = ZSTD_getErrorName(r);
      break;
    }
    if (r == 0 && in.pos == in.size) break; /* every frame decoded and flushed */
    if (in.pos == in.size && o.pos < o.size) {
      why = "the frame is truncated";
      break;
    }
  }
  ZSTD_freeDCtx(dc);
  if (why) {
    free(buf);
    return fail_at(diag, SIMTVP_ERR_PARSE, payload_offset,
                   "fatbin: %s: zstd payload at offset %#llx cannot be decompressed: %s", name,
                   (unsigned long long)payload_offset, why);
  }
  if (o.pos < cap) { /* shrink to the real size (+1 for the terminating NUL) */
    uint8_t *fit = realloc(buf, o.pos + 1);
    if (fit) buf = fit;
  }
  *out = buf;
  *got = o.pos;
  return SIMTVP_OK;
}

simtvp_status fatbin_read_entry(const fatbin *fb, size_t index, uint8_t **payload, size_t *size,
                                simtvp_diag *diag) {
  if (!fb || !payload || !size)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "fatbin_read_entry: NULL argument");
  *payload = NULL;
  *size = 0;
  if (index >= fb->count)
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "fatbin: no entry %zu (the fatbin has %zu)", index,
                           fb->count);
  const fatbin_entry *e = &fb->entries[index];
  const uint8_t *src = fb->base + e->payload_offset;
  char name[64];
  describe(e, name, sizeof name);
  if (e->compression == FATBIN_COMPRESSION_UNKNOWN)
    return fail_at(diag, SIMTVP_ERR_UNSUPPORTED, e->offset,
                   "fatbin: %s uses compression flags %#llx this build cannot read (known: LZ4 "
                   "%#x, zstd %#x)",
                   name, (unsigned long long)(e->flags & (FLAG_COMPRESSED_LZ4 | FLAG_COMPRESSED_ZSTD)),
                   FLAG_COMPRESSED_LZ4, FLAG_COMPRESSED_ZSTD);
  if (e->uncompressed_size > FATBIN_DEFAULT_MAX_SIZE)
    return fail_at(diag, SIMTVP_ERR_LIMIT, e->offset,
                   "fatbin: %s claims %llu bytes once decompressed, more than the %zu allowed", name,
                   (unsigned long long)e->uncompressed_size, FATBIN_DEFAULT_MAX_SIZE);
  if (e->compression != FATBIN_COMPRESSION_NONE && e->uncompressed_size == 0)
    return fail_at(diag, SIMTVP_ERR_PARSE, e->offset,
                   "fatbin: %s is compressed but declares no decompressed size", name);
  const size_t want = (size_t)e->uncompressed_size;
  /* A corrupt or hostile header may claim up to FATBIN_DEFAULT_MAX_SIZE for a few stored bytes:
   * memory is allocated as the payload really decompresses, never from the claim alone. */
  if (e->compression == FATBIN_COMPRESSION_LZ4 && want / LZ4_MAX_EXPANSION > e->stored_size)
    return fail_at(diag, SIMTVP_ERR_PARSE, e->offset,
                   "fatbin: %s claims %zu bytes once decompressed, more than %llu bytes of LZ4 can "
                   "hold (at most %u per stored byte)",
                   name, want, (unsigned long long)e->stored_size, LZ4_MAX_EXPANSION);
  uint8_t *buf = NULL;
  size_t got = want;
  if (e->compression == FATBIN_COMPRESSION_NONE) {
    buf = malloc(want + 1);
    if (!buf) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "fatbin: out of memory (%zu bytes)", want);
    memcpy(buf, src, want);
  } else if (e->compression == FATBIN_COMPRESSION_ZSTD) {
    simtvp_status st = zstd_read(src, (size_t)e->stored_size, want, &buf, &got, name,
                                 e->payload_offset, diag);
    if (st != SIMTVP_OK) return st;
  } else {
    size_t where = 0;
    buf = malloc(want + 1);
    if (!buf) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "fatbin: out of memory (%zu bytes)", want);
    const char *why = lz4_decode(src, (size_t)e->stored_size, buf, want, &got, &where);
    if (why) {
      free(buf);
      return fail_at(diag, SIMTVP_ERR_PARSE, e->payload_offset + where,
                     "fatbin: %s: LZ4 payload is corrupt at offset %#llx: %s", name,
                     (unsigned long long)(e->payload_offset + where), why);
    }
  }
  if (got != want) {
    free(buf);
    if (got > want)
      return fail_at(diag, SIMTVP_ERR_PARSE, e->offset,
                     "fatbin: %s decompresses to more than the %zu bytes its header says", name, want);
    return fail_at(diag, SIMTVP_ERR_PARSE, e->offset,
                   "fatbin: %s decompressed to %zu bytes, its header says %zu", name, got, want);
  }
  buf[want] = '\0';
  *payload = buf;
  *size = want;
  return SIMTVP_OK;
}

simtvp_status fatbin_read_ptx(const fatbin *fb, size_t index, char **text, size_t *length,
                              simtvp_diag *diag) {
  if (!fb || !text) return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "fatbin_read_ptx: NULL argument");
  *text = NULL;
  if (index < fb->count && fb->entries[index].kind != FATBIN_KIND_PTX) {
    char name[64];
    return simtvp_diag_set(diag, SIMTVP_ERR_ARG, "fatbin: %s is not PTX",
                           describe(&fb->entries[index], name, sizeof name));
  }
  uint8_t *payload;
  size_t size;
  simtvp_status st = fatbin_read_entry(fb, index, &payload, &size, diag);
  if (st != SIMTVP_OK) return st;
  while (size && payload[size - 1] == '\0') --size; /* padding */
  payload[size] = '\0';
  *text = (char *)payload;
  if (length) *length = size;
  return SIMTVP_OK;
}
