/* simt_at_smem — shared-memory accesses of the approximately-timed SIMT core, timed here instead
 * of in the LDST unit (docs/simt-at.md §3): they cause no memory traffic, and the LDST unit's
 * timing of them is a closed formula the AT core can evaluate at once.
 *
 * Bank conflicts follow the CUDA Programming Guide ("Shared Memory", compute capability 2.x and
 * later; 1.x with -gpgpu_shmem_limited_broadcast) and GPGPU-Sim 3.x manual §2.2: a warp's access
 * is split into phases (-gpgpu_shmem_warp_parts, and at most one word per bank per phase: 64-bit
 * accesses take half a warp, 128-bit a quarter); in each phase every bank delivers its distinct
 * words one per cycle, lanes reading the same word share it (atomics never share). The access
 * holds the shared-memory pipeline for the sum of the phases' degrees, starting the cycle after it
 * enters the memory stage or when the pipeline is free; a load's data is there
 * -gpgpu_smem_latency cycles after its last phase. This is the LDST unit's rule (docs/simt-ldst.md
 * "Shared memory"), so both variants time shared memory alike. */
#include <stdlib.h>
#include <string.h>

#include "simt_at_internal.h"

simtvp_status at_smem_init(at_core *c, simtvp_diag *diag) {
  const simt_ldst_config *l = &c->base.cfg.ldst;
  c->smem_banks = l->smem_banks ? l->smem_banks : 32;
  c->smem_bank_bytes = l->smem_bank_bytes ? l->smem_bank_bytes : 4;
  c->smem_parts = l->smem_warp_parts > 0 ? (uint32_t)l->smem_warp_parts : 1;
  c->smem_shift = (c->smem_bank_bytes & (c->smem_bank_bytes - 1)) == 0 ? (uint32_t)__builtin_ctz(c->smem_bank_bytes)
                                                                       : UINT32_MAX;
  c->smem_bank_mask = (c->smem_banks & (c->smem_banks - 1)) == 0 ? c->smem_banks - 1 : UINT32_MAX;
  c->smem_epoch_of = calloc(c->smem_banks, sizeof *c->smem_epoch_of);
  c->smem_head = calloc(c->smem_banks, sizeof *c->smem_head);
  c->smem_count = calloc(c->smem_banks, sizeof *c->smem_count);
  if (!c->smem_epoch_of || !c->smem_head || !c->smem_count)
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "SIMT core %u: out of host memory", c->base.cfg.sm);
  return SIMTVP_OK;
}

void at_smem_free(at_core *c) {
  free(c->smem_epoch_of);
  free(c->smem_head);
  free(c->smem_count);
}

/* Every lane of the step that accessed memory accessed shared memory. */
bool at_smem_only(const func_step *st) {
  if (st->space == PTX_SPACE_SHARED || st->space == PTX_SPACE_SHARED_CLUSTER) return true;
  if (st->space != PTX_SPACE_GENERIC || !st->mem_mask) return false;
  for (uint32_t m = st->mem_mask; m; m &= m - 1) {
    uint8_t sp = st->lane_space[__builtin_ctz(m)];
    if (sp != PTX_SPACE_SHARED && sp != PTX_SPACE_SHARED_CLUSTER) return false;
  }
  return true;
}

static inline uint32_t word_of(const at_core *c, uint64_t byte) {
  return (uint32_t)(c->smem_shift != UINT32_MAX ? byte >> c->smem_shift : byte / c->smem_bank_bytes);
}

static inline uint32_t bank_of(const at_core *c, uint32_t word) {
  return c->smem_bank_mask != UINT32_MAX ? word & c->smem_bank_mask : word % c->smem_banks;
}

/* Degree of one phase: the most distinct words one bank must deliver (words[0..n)). */
static uint32_t phase_degree(at_core *c, const uint32_t *words, uint32_t n, bool atomic) {
  uint32_t epoch = ++c->smem_epoch, degree = 0;
  uint16_t next[AT_SMEM_MAX_WORDS];
  for (uint32_t i = 0; i < n; i++) {
    uint32_t b = bank_of(c, words[i]);
    if (c->smem_epoch_of[b] != epoch) {
      c->smem_epoch_of[b] = epoch;
      c->smem_head[b] = 0;
      c->smem_count[b] = 0;
    }
    bool known = false;
    if (!atomic)
      for (uint16_t j = c->smem_head[b]; j && !known; j = next[j - 1]) known = words[j - 1] == words[i];
    if (known) continue;
    next[i] = c->smem_head[b];
    c->smem_head[b] = (uint16_t)(i + 1);
    if (++c->smem_count[b] > degree) degree = c->smem_count[b];
  }
  return degree;
}

/* Compute capability 1.x (limited broadcast): each step serves every request for one word (the
 * first one left) and one request in each other bank. */
static uint32_t phase_degree_limited(at_core *c, const uint32_t *words, uint32_t n) {
  bool served[AT_SMEM_MAX_WORDS] = {false};
  uint32_t left = n, degree = 0;
  while (left) {
    uint32_t epoch = ++c->smem_epoch, first = 0;
    degree++;
    while (served[first]) first++;
    uint32_t bw = words[first], bb = bank_of(c, bw);
    c->smem_epoch_of[bb] = epoch;
    for (uint32_t k = first; k < n; k++) {
      if (served[k]) continue;
      uint32_t b = bank_of(c, words[k]);
      if (words[k] == bw || c->smem_epoch_of[b] != epoch) {
        if (words[k] != bw) c->smem_epoch_of[b] = epoch;
        served[k] = true;
        left--;
      }
    }
  }
  return degree;
}

/* The lanes of `mask` touch one word each (word = addr >> shift, bank = word & bank_mask, at
 * most 64 banks): true when no bank must deliver two different words (atomics: two words at
 * all, they never share). */
static bool one_word_conflict_free(const uint64_t *addr, uint32_t mask, uint32_t shift, uint32_t bank_mask,
                                   bool atomic) {
  uint64_t used = 0;
  uint32_t first_word[64];
  if (!atomic) {
    /* Every word inside one aligned row of `banks` words (broadcasts, unit strides, a tile's
     * row): distinct words are in distinct banks. One xor per lane, no branch (vectorises). */
    uint64_t diff = 0, a0 = addr[__builtin_ctz(mask)];
    if (mask == 0xffffffffu) {
      for (uint32_t lane = 0; lane < 32; lane++) diff |= addr[lane] ^ a0;
    } else {
      for (uint32_t lane = 0; lane < 32; lane++) diff |= (addr[lane] ^ a0) & (0ull - (uint64_t)((mask >> lane) & 1u));
    }
    if (!((diff >> shift) & ~(uint64_t)bank_mask)) return true;
  }
  if (mask == 0xffffffffu && !atomic) { /* the whole warp: no lane mask to walk */
    for (uint32_t lane = 0; lane < 32; lane++) {
      uint32_t w = (uint32_t)(addr[lane] >> shift), b = w & bank_mask;
      uint64_t bit = 1ull << b;
      if (used & bit) {
        if (first_word[b] != w) return false;
      } else {
        used |= bit;
        first_word[b] = w;
      }
    }
    return true;
  }
  for (uint32_t m = mask; m; m &= m - 1) {
    uint32_t w = (uint32_t)(addr[__builtin_ctz(m)] >> shift), b = w & bank_mask;
    uint64_t bit = 1ull << b;
    if (used & bit) {
      if (atomic || first_word[b] != w) return false;
    } else {
      used |= bit;
      first_word[b] = w;
    }
  }
  return true;
}

uint32_t at_smem_cycles(at_core *c, const func_step *st, uint32_t *conflicts) {
  uint32_t warp = c->base.cfg.warp_size, wb = c->smem_bank_bytes;
  uint32_t lane_bytes = st->access_bytes ? st->access_bytes : 4;
  uint32_t part = warp / c->smem_parts ? warp / c->smem_parts : 1;
  uint32_t width = (c->smem_banks * wb) / (lane_bytes > wb ? lane_bytes : wb);
  uint32_t per_phase = part < width ? part : width ? width : 1;
  bool atomic = st->is_atomic, limited = c->base.cfg.ldst.smem_limited_broadcast && !atomic;
  uint32_t words[AT_SMEM_MAX_WORDS], cycles = 0, phases = 0;
  if (lane_bytes <= wb && per_phase >= warp && c->smem_bank_mask != UINT32_MAX && c->smem_banks <= 64 &&
      c->smem_shift != UINT32_MAX && st->mem_mask) {
    /* one phase of one word per lane (the common case): conflict-free unless two lanes need
     * different words of one bank (atomics: any two lanes one bank); then the general count */
    if (one_word_conflict_free(st->addr, st->mem_mask, c->smem_shift, c->smem_bank_mask, atomic)) {
      *conflicts = 0;
      return 1;
    }
  }
  for (uint32_t first = 0; first < warp; first += per_phase) {
    uint32_t last = first + per_phase < warp ? first + per_phase : warp, n = 0;
    uint32_t lanes = (last - first >= 32 ? ~0u : ((1u << (last - first)) - 1u)) << first;
    for (uint32_t m = st->mem_mask & lanes; m; m &= m - 1) {
      uint32_t lane = (uint32_t)__builtin_ctz(m);
      uint32_t w0 = word_of(c, st->addr[lane]), w1 = word_of(c, st->addr[lane] + lane_bytes - 1);
      for (uint32_t w = w0; w <= w1 && n < AT_SMEM_MAX_WORDS; w++) words[n++] = w;
    }
    if (!n) continue;
    phases++;
    cycles += limited ? phase_degree_limited(c, words, n) : phase_degree(c, words, n, atomic);
  }
  if (!phases) { /* no lane accessed memory: the instruction still passes the stage once */
    *conflicts = 0;
    return 1;
  }
  *conflicts = cycles - phases;
  return cycles;
}
