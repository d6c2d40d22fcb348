/* ldst_coalesce — the memory-access rules both timing SIMT cores use: the pure helpers of
 * ldst_coalesce.c (shared-memory bank conflicts, the local-memory layout, the two coalescing
 * rules) and the record of one memory request they produce. The CA core's LDST unit
 * (simt_ldst.c) and the AT core's memory path (models/simt/at) share them, so both cores send the
 * same requests for the same instruction. */
#ifndef SIMTVP_LDST_COALESCE_H
#define SIMTVP_LDST_COALESCE_H

#include <stdbool.h>
#include <stdint.h>

#include "mem_req.h"
#include "ptx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Widest per-lane access handled: ld/st .v8.b32 and .v4.b64 move 32 bytes per lane. */
#define LDST_MAX_LANE_BYTES 32u
/* Requests one instruction can need: 32 lanes x 8 interleaved local words (32-byte accesses to
 * 32 different local offsets), the worst case; global accesses are aligned and need fewer. */
#define LDST_MAX_ACCESSES 256u
/* Byte ranges one instruction touches (after local-memory mapping): the same bound. */
#define LDST_MAX_RANGES 256u

/* Where a request goes from the dispatch stage. */
typedef enum ldst_path {
  LDST_PATH_L1D = 0, /* through the L1 data cache */
  LDST_PATH_BYPASS,  /* straight to the memory system (no L1D, -gpgpu_gmem_skip_L1D, .cg/.cv,
                        global atomics, or a "none" constant / texture cache) */
  LDST_PATH_L1C,     /* through the constant cache (const and param space) */
  LDST_PATH_L1T      /* through the texture cache */
} ldst_path;

/* One request the coalescer produced: a block of at most 128 bytes inside one 128-byte line. */
typedef struct ldst_access {
  uint64_t addr;         /* first byte: the lowest touched sector (sector rule) or the segment */
  uint64_t byte_mask[2]; /* bytes of the 128-byte line touched (mem_req.byte_mask layout) */
  uint32_t size;         /* bytes: touched sectors x 32 (sector rule) or the segment size */
  uint8_t sector_mask;   /* 32-byte sectors of the 128-byte line touched */
  uint8_t kind;          /* mem_access_kind */
  uint8_t path;          /* ldst_path */
  uint8_t is_write;      /* data flows toward memory (stores, reductions) */
  uint8_t lanes;         /* lanes whose access starts in it (an atomic's operations at the L2) */
} ldst_access;

/* A byte range one lane touches, in lane order. */
typedef struct ldst_range {
  uint64_t addr;
  uint32_t bytes;
  uint32_t lane;
} ldst_range;

/* ---- shared memory -------------------------------------------------------------------------- */

typedef struct ldst_smem_geometry {
  uint32_t banks;      /* -gpgpu_shmem_num_banks */
  uint32_t bank_bytes; /* bytes per bank and cycle (4; a power of two) */
  uint32_t warp_size;
  uint32_t warp_parts; /* -gpgpu_shmem_warp_parts */
  bool limited_broadcast;
  /* derived by ldst_smem_geometry_init: word = byte >> word_shift; bank = word & bank_mask when
   * banks is a power of two (banks_pow2), else word % banks */
  uint32_t word_shift, bank_mask;
  bool banks_pow2;
} ldst_smem_geometry;

/* Fills the derived fields from banks and bank_bytes. */
void ldst_smem_geometry_init(ldst_smem_geometry *g);

typedef struct ldst_smem_cost {
  uint32_t cycles;     /* cycles the access occupies the shared-memory pipeline (>= 1) */
  uint32_t phases;     /* phases with at least one active lane (the conflict-free cost) */
  uint32_t degree;     /* worst phase's conflict degree (1 = conflict-free) */
} ldst_smem_cost;

/* Cost of one warp access to shared memory: lanes `mask`, byte offsets addr[lane], `bytes` per
 * lane. Atomics get no broadcast (lanes on one word serialise). bank_count is scratch of
 * geometry->banks zeroed entries, returned zeroed. */
void ldst_smem_cost_of(const ldst_smem_geometry *g, uint32_t mask, const uint64_t *addr,
                       uint32_t bytes, bool atomic, uint16_t *bank_count, ldst_smem_cost *out);

/* ---- local memory --------------------------------------------------------------------------- */

/* Appends the device ranges of lane `lane` (core thread slot `thread`) reading `bytes` at local
 * byte offset `offset`: word w of thread t lives at base + (w * max_threads + t) * 4, so the
 * threads of a warp touching the same local word touch consecutive words (CUDA Programming Guide,
 * "Local Memory": consecutive 32-bit words are accessed by consecutive thread IDs). Returns the
 * new count; stops at cap. */
uint32_t ldst_local_ranges(uint64_t base, uint32_t max_threads, uint32_t thread, uint32_t lane,
                           uint64_t offset, uint32_t bytes, ldst_range *out, uint32_t n,
                           uint32_t cap);
/* ldst_local_ranges for each lane of `mask` (lane l: thread first_thread + l, offset addr[l]), from
 * out[0]: the count. The AT and interval cores' local accesses of a warp. */
static inline uint32_t ldst_local_warp_ranges(uint64_t base, uint32_t max_threads, uint32_t first_thread,
                                              uint32_t mask, const uint64_t *addr, uint32_t bytes, ldst_range *out,
                                              uint32_t cap) {
  uint32_t k = 0;
  for (uint32_t l = mask; l; l &= l - 1) {
    uint32_t lane = (uint32_t)__builtin_ctz(l);
    k = ldst_local_ranges(base, max_threads, first_thread + lane, lane, addr[lane], bytes, out, k, cap);
  }
  return k;
}

/* ---- coalescing ----------------------------------------------------------------------------- */

/* Sector rule (Fermi and later, GPGPU-Sim 4.x): one request per touched block of `block_bytes`
 * (a power of two, 4..128: the 128-byte line, or the cache line when smaller), in order of first
 * touch, carrying the touched sectors and bytes. Appends to out[*n]; false when cap is reached. */
bool ldst_coalesce_blocks(const ldst_range *r, uint32_t n_ranges, uint32_t block_bytes,
                          ldst_access *out, uint32_t *n, uint32_t cap);

/* The sector rule for the common shape, found by the caller while it gathers the lanes: n_lanes
 * lanes in order, lane i touching `bytes` bytes at lo + i × bytes (a fully coalesced access). The
 * same requests as ldst_coalesce_blocks on those ranges, without scanning them again (lane0: the
 * first lane, used when n_lanes is 1). Appends to out[*n]; false when cap is reached. */
bool ldst_coalesce_span(uint64_t lo, uint32_t n_lanes, uint32_t lane0, uint32_t bytes, uint32_t block_bytes,
                        ldst_access *out, uint32_t *n, uint32_t cap);

/* Compute capability 1.2/1.3 rule (-gpgpu_coalesce_arch 13), per half-warp (`half_lanes` lanes):
 * the segment (32 B for 1-byte words, 64 B for 2-byte, 128 B for larger) holding the lowest
 * remaining lane's word serves every remaining lane of the half-warp inside it, then shrinks to
 * its used half while that is possible (128 -> 64 -> 32). Appends to out[*n]; false when cap is
 * reached. */
bool ldst_coalesce_gt200(const ldst_range *r, uint32_t n_ranges, uint32_t half_lanes,
                         uint32_t word_bytes, ldst_access *out, uint32_t *n, uint32_t cap);

/* The shape of a warp's lane addresses (ldst_range in lane order), found by the caller while it
 * gathers them: every lane at the same address (UNIFORM), a run of `bytes` per lane (SPAN), or
 * anything else (ANY). */
typedef enum ldst_shape { LDST_SHAPE_ANY, LDST_SHAPE_UNIFORM, LDST_SHAPE_SPAN } ldst_shape;

/* The accesses of r[0, n_ranges) by a shortcut when one applies, appended at out[*n]: gt200:
 * ldst_coalesce_gt200 (half warps of half_lanes lanes, words of min(bytes, 4)); UNIFORM: one
 * lane's blocks of `block_bytes`, every lane's operations; SPAN: ldst_coalesce_span. False (nothing
 * appended) for ANY: the caller applies the sector rule (ldst_coalesce_blocks or its own). Shared
 * by the AT and interval cores' memory stages. */
static inline bool ldst_coalesce_shaped(const ldst_range *r, uint32_t n_ranges, ldst_shape shape, uint32_t block_bytes,
                                        uint32_t bytes, bool gt200, uint32_t half_lanes, ldst_access *out,
                                        uint32_t *n, uint32_t cap) {
  uint32_t first = *n;
  if (gt200) {
    ldst_coalesce_gt200(r, n_ranges, half_lanes, bytes < 4 ? bytes : 4, out, n, cap);
  } else if (shape == LDST_SHAPE_UNIFORM) {
    if (ldst_coalesce_blocks(r, 1, block_bytes, out, n, cap) && *n > first)
      out[first].lanes = (uint8_t)(n_ranges > 255 ? 255 : n_ranges);
  } else if (shape == LDST_SHAPE_SPAN) {
    ldst_coalesce_span(r[0].addr, n_ranges, r[0].lane, r[0].bytes, block_bytes, out, n, cap);
  } else {
    return false;
  }
  return true;
}

/* out[from, to) tagged with their kind, path and direction. */
static inline void ldst_tag_accesses(ldst_access *out, uint32_t from, uint32_t to, uint8_t kind, uint8_t path,
                                     bool write) {
  for (uint32_t i = from; i < to; i++) {
    out[i].kind = kind;
    out[i].path = path;
    out[i].is_write = write;
  }
}

/* Whether a global load goes around the (non-coherent) L1D to the L2, in every core variant:
 * .cg / .cv loads (PTX ISA "Cache Operators"), ld.volatile, and ld.relaxed / ld.acquire at .gpu
 * or .sys scope (PTX ISA "Memory Consistency Model": they must see other SMs' and the host's
 * writes, which the L1 never learns of). */
static inline bool ldst_load_bypasses_l1(const ptx_insn *pi) {
  return pi && (pi->cache_op == PTX_CACHE_CG || pi->cache_op == PTX_CACHE_CV || pi->sem == PTX_SEM_VOLATILE ||
                ((pi->sem == PTX_SEM_RELAXED || pi->sem == PTX_SEM_ACQUIRE) &&
                 (pi->scope == PTX_SCOPE_GPU || pi->scope == PTX_SCOPE_SYS)));
}

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_LDST_COALESCE_H */
