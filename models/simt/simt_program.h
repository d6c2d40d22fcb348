/* simt_program — the timing decode of a PTX module (private to models/simt): per instruction the
 * pipeline it runs on, its latency row and column, and the registers it reads and writes, as the
 * scoreboard and the operand collector need them. Built once per module (simt_program_create,
 * simt.h), read by every core. */
#ifndef SIMTVP_SIMT_PROGRAM_H
#define SIMTVP_SIMT_PROGRAM_H

#include <stdint.h>

#include "simt.h"

/* Register ids: dense over the whole module, class by class (predicates first), so one bitmap
 * per warp covers every register of every function; the last id is the carry flag (.cc). */
typedef struct simt_insn_info {
  uint8_t unit;      /* simt_unit of the instruction when it is not a memory access */
  uint8_t lat_row;   /* SIMT_LAT_* */
  uint8_t op;        /* GPU_OP_* column */
  uint8_t n_src;     /* registers read (RAW) */
  uint8_t n_src_rf;  /* the first n_src_rf of them are register-file reads (not predicates) */
  uint8_t n_dst;     /* registers written (WAW, released at writeback) */
  uint8_t fence;     /* gpu_fence_scope of a fence (bar.warp.sync, membar, fence), or
                        SIMT_FENCE_DRAIN for the other instructions that wait like one */
  uint32_t regs;     /* index in simt_program.regs: n_src sources, then n_dst destinations */
} simt_insn_info;

struct simt_program {
  const ptx_module *m;
  simt_insn_info *info;   /* one per module instruction */
  uint32_t *regs;
  /* per entry of regs: the pc before this one, in its function and cyclically (wrapping from the
   * function's first instruction to its last), that touches the same register — the entry's own
   * pc when none other does; SIMT_TOUCH_ANY in a module with calls (a callee's registers share
   * ids with its caller's). A register every touch of which lies in pcs [a, b) of one function
   * is one whose first touch there has its touch_prev in [a, b) (interval runs, §11). */
  uint32_t *touch_prev;
  uint32_t n_reg_ids;     /* bits of a per-warp scoreboard bitmap */
  uint32_t base[4];       /* first id of each ptx_reg_class */
};

#define SIMT_MAX_SRC 32u
/* simt_insn_info.fence of waits without a scope: the warp's accesses complete, no latency */
#define SIMT_FENCE_DRAIN GPU_FENCE_N
#define SIMT_MAX_DST 16u
#define SIMT_TOUCH_ANY UINT32_MAX

#endif /* SIMTVP_SIMT_PROGRAM_H */
