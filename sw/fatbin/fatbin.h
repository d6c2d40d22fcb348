/* fatbin — reader for the CUDA fat binaries that nvcc embeds in programs and writes with --fatbin.
 *
 * A program built by nvcc registers its device code by passing __cudaRegisterFatBinary a wrapper
 * (magic 0x466243B1, version, pointer to the fatbin). The fatbin is a container (magic 0xBA55ED50,
 * version 1, 16-byte header, payload size) of entries, each a header followed by its payload:
 * PTX text (kind 1) for a virtual architecture, or a SASS cubin (kind 2, an ELF file) for a real one.
 * Payloads may be compressed: zstd (entry flag 0x8000, nvcc 13's default for PTX) or LZ4 blocks (flag
 * 0x2000, `-compress-mode=speed` and older toolkits). docs/fixtures.md ("The fatbin format") gives
 * every field as the committed fixtures show it; the layout is NVIDIA's and undocumented, learned
 * from nvcc 13.0 output and public reverse-engineering notes.
 *
 * This library: parse and validate a fatbin (from a byte range or from the wrapper), pick the PTX
 * that suits a compute capability, read (decompress) any entry, and read per-kernel resource facts
 * from a cubin's .nv.info sections (registers, parameters, launch bounds, shared/local sizes) so the
 * runtime can compute occupancy from real register counts when SASS is present.
 *
 * Every function that reads input bounds-checks it and reports what it cannot read through a
 * simtvp_diag naming the entry and byte offset; corrupt input never crashes. No globals. */
#ifndef SIMTVP_FATBIN_H
#define SIMTVP_FATBIN_H

#include <stddef.h>
#include <stdint.h>

#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FATBIN_WRAPPER_MAGIC 0x466243B1u   /* __fatBinC_Wrapper_t.magic */
#define FATBIN_CONTAINER_MAGIC 0xBA55ED50u /* first word of every container */

/* Bound on a fatbin reached through a wrapper (whose size only the container header states) and
 * on any decompressed payload: larger claims are rejected as corrupt (SIMTVP_ERR_LIMIT). */
#define FATBIN_DEFAULT_MAX_SIZE ((size_t)1 << 30)

typedef enum fatbin_kind {
  FATBIN_KIND_PTX = 1, /* PTX text for a virtual architecture (compute_XY) */
  FATBIN_KIND_ELF = 2  /* cubin: SASS for a real architecture (sm_XY) */
} fatbin_kind;

typedef enum fatbin_compression {
  FATBIN_COMPRESSION_NONE,
  FATBIN_COMPRESSION_LZ4,  /* flag 0x2000: one LZ4 block (no frame) */
  FATBIN_COMPRESSION_ZSTD, /* flag 0x8000: one zstd frame */
  FATBIN_COMPRESSION_UNKNOWN
} fatbin_compression;

/* One entry as its header describes it. Offsets count from the start of the input given to
 * fatbin_open (for a wrapper: from the container start). */
typedef struct fatbin_entry {
  uint32_t index;              /* position among all entries of the fatbin */
  uint32_t container;          /* which container (inputs may hold several back to back) */
  uint32_t kind;               /* FATBIN_KIND_*; other values are kept and never picked */
  uint32_t arch;               /* target as 10*major+minor: 75 = sm_75 / compute_75, 120 = sm_120 */
  uint32_t version_major;      /* PTX: PTX ISA version (9.0 for nvcc 13); ELF: cubin ABI (1.8) */
  uint32_t version_minor;
  uint64_t flags;              /* raw entry flags (0x1 64-bit, 0x10 Linux, compression bits) */
  fatbin_compression compression;
  uint64_t offset;             /* entry header */
  uint32_t header_size;        /* 64, or more with an extension (80 PTX, 112 ELF for sm_100+) */
  uint64_t payload_offset;     /* first payload byte */
  uint64_t payload_size;       /* bytes reserved for the payload (the next entry follows) */
  uint64_t stored_size;        /* meaningful payload bytes: the compressed size, or payload_size */
  uint64_t uncompressed_size;  /* size once decompressed (== stored_size when not compressed) */
  const char *options;         /* PTX: JIT options from the header extension (e.g. "-v"), not */
  size_t options_size;         /*   NUL-terminated; NULL/0 when there are none */
} fatbin_entry;

typedef struct fatbin fatbin;

/* Parses `size` bytes holding one container or several back to back (a program's .nv_fatbin
 * section holds one per translation unit, zero padding allowed between them). The bytes are
 * borrowed: they must outlive the fatbin. SIMTVP_ERR_PARSE names the first malformed field. */
simtvp_status fatbin_open(const void *data, size_t size, fatbin **out, simtvp_diag *diag);

/* Parses the fatbin behind __cudaRegisterFatBinary's argument: checks the wrapper's magic and
 * version (1 or 2), then reads the one container its data pointer names, taking its size from the
 * container header, refused above `max_size` bytes (0: FATBIN_DEFAULT_MAX_SIZE). */
simtvp_status fatbin_open_wrapper(const void *wrapper, size_t max_size, fatbin **out,
                                  simtvp_diag *diag);

void fatbin_destroy(fatbin *fb);

size_t fatbin_entry_count(const fatbin *fb);
size_t fatbin_container_count(const fatbin *fb);
/* NULL when index is out of range. */
const fatbin_entry *fatbin_entry_at(const fatbin *fb, size_t index);

/* The PTX entry to JIT on a device of compute capability `sm` (10*major+minor): the newest PTX whose
 * target is not above the device's (the first such entry on a tie). SIMTVP_ERR_UNSUPPORTED, naming
 * what the fatbin holds, when none fits. */
simtvp_status fatbin_pick_ptx(const fatbin *fb, uint32_t sm, size_t *index, simtvp_diag *diag);

/* The SASS entry that runs on a device of compute capability `sm` under CUDA's binary
 * compatibility rule: same major version, newest minor not above the device's. */
simtvp_status fatbin_pick_elf(const fatbin *fb, uint32_t sm, size_t *index, simtvp_diag *diag);

/* An entry's payload, decompressed when needed, in a malloc'd buffer of *size bytes plus a NUL the
 * size does not count (free() it). Unsupported compression is SIMTVP_ERR_UNSUPPORTED; a corrupt or
 * truncated stream, or a size other than the header's, is SIMTVP_ERR_PARSE. */
simtvp_status fatbin_read_entry(const fatbin *fb, size_t index, uint8_t **payload, size_t *size,
                                simtvp_diag *diag);

/* The text of a PTX entry (NUL-terminated, its padding NULs removed; free() it). nvcc stores PTX
 * with comments blanked and indentation removed, line numbers unchanged. */
simtvp_status fatbin_read_ptx(const fatbin *fb, size_t index, char **text, size_t *length,
                              simtvp_diag *diag);

const char *fatbin_kind_name(uint32_t kind);                   /* "PTX", "ELF", "unknown" */
const char *fatbin_compression_name(fatbin_compression compression); /* "none", "LZ4", "zstd" ... */

/* ---- cubins (SASS ELF entries): per-kernel facts from .nv.info ---------------------------------- */

/* One kernel parameter as EIATTR_KPARAM_INFO describes it. */
typedef struct fatbin_param {
  uint32_t ordinal; /* position in the parameter list */
  uint32_t offset;  /* byte offset in the parameter buffer */
  uint32_t size;    /* bytes */
} fatbin_param;

/* What a cubin says about one kernel (an ELF function symbol marked as a CUDA entry). Fields whose
 * attribute is absent are 0, except `registers` (-1). */
typedef struct fatbin_kernel {
  const char *name;             /* mangled name as registered by __cudaRegisterFunction */
  int32_t registers;            /* per thread: EIATTR_REGCOUNT, else the .text section's count */
  uint32_t max_threads[3];      /* EIATTR_MAX_THREADS: __launch_bounds__ / .maxntid */
  uint32_t required_threads[3]; /* EIATTR_REQNTID: .reqntid */
  uint32_t max_registers;       /* EIATTR_MAXREG_COUNT: the register cap ptxas worked under */
  uint32_t barriers;            /* named barriers used ("used N barriers" of ptxas -v) */
  uint32_t shared_bytes;        /* static shared memory per CTA, as ptxas -v reports it */
  uint32_t reserved_shared_bytes; /* system-reserved shared memory the cubin lays out in front of
                                   * it (sm_90 cubins: 1 KiB), part of .nv.shared.<kernel> */
  uint32_t frame_bytes;         /* EIATTR_FRAME_SIZE: the kernel's own local-memory frame */
  uint32_t min_stack_bytes;     /* EIATTR_MIN_STACK_SIZE: frame plus callees (ptxas: cumulative) */
  uint32_t max_stack_bytes;     /* EIATTR_MAX_STACK_SIZE (absent with recursion) */
  uint32_t const0_bytes;        /* constant bank 0 (driver constants + parameters) */
  uint32_t param_base;          /* where the parameters start in constant bank 0 */
  uint32_t param_bytes;         /* EIATTR_CBANK_PARAM_SIZE: the parameter buffer */
  uint32_t code_bytes;          /* size of the kernel's .text section */
  uint32_t param_count;
  const fatbin_param *params;   /* param_count parameters, by ordinal */
} fatbin_kernel;

typedef struct fatbin_cubin fatbin_cubin;

/* Reads a cubin (a copy is kept: the input may go away). SIMTVP_ERR_PARSE names the malformed
 * header, section or .nv.info record and its offset. */
simtvp_status fatbin_cubin_open(const void *elf, size_t size, fatbin_cubin **out,
                                simtvp_diag *diag);
/* fatbin_read_entry + fatbin_cubin_open for an ELF entry. */
simtvp_status fatbin_read_cubin(const fatbin *fb, size_t index, fatbin_cubin **out,
                                simtvp_diag *diag);
void fatbin_cubin_destroy(fatbin_cubin *cubin);

size_t fatbin_cubin_kernel_count(const fatbin_cubin *cubin);
const fatbin_kernel *fatbin_cubin_kernel_at(const fatbin_cubin *cubin, size_t index);
/* NULL when the cubin has no kernel of that (mangled) name. */
const fatbin_kernel *fatbin_cubin_find_kernel(const fatbin_cubin *cubin, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_FATBIN_H */
