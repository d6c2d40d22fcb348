/* simt_program — timing decode of a module (simt_program.h).
 *
 * Pipelines and latency classes follow GPGPU-Sim's per-opcode latency tables (manual §3.3.1
 * "-ptx_opcode_latency_*", 4.x): ADD is the default column; min/max use MAX; mul/mul24 MUL;
 * mad/fma/madc/mad24/dp4a/dp2a/sad MAD; div/rem DIV; shfl SHFL. The row is the data type: any
 * .f64 type → DP pipeline and the dp row; other float types → SP and the fp row; integer and
 * untyped → INT (the core falls back to SP when it has no INT units). Transcendentals (sqrt rcp
 * rsqrt sin cos ex2 lg2 tanh) run on the SFU with its latency; integer and single-precision
 * div/rem on the SFU with the int/fp DIV latency (f64 ones on DP); wmma.mma/mma on the tensor
 * cores; control flow on SP. Memory instructions are recognised at issue from the functional
 * engine's step kind, not here. */
#include "simt_program.h"

#include <stdlib.h>
#include <string.h>

typedef struct reg_list {
  uint32_t src[SIMT_MAX_SRC], dst[SIMT_MAX_DST];
  bool src_pred[SIMT_MAX_SRC];
  uint32_t n_src, n_dst;
} reg_list;

static void add_src(reg_list *l, uint32_t id, bool pred) {
  for (uint32_t i = 0; i < l->n_src; i++)
    if (l->src[i] == id) return;
  if (l->n_src < SIMT_MAX_SRC) {
    l->src_pred[l->n_src] = pred;
    l->src[l->n_src++] = id;
  }
}

static void add_dst(reg_list *l, uint32_t id) {
  for (uint32_t i = 0; i < l->n_dst; i++)
    if (l->dst[i] == id) return;
  if (l->n_dst < SIMT_MAX_DST) l->dst[l->n_dst++] = id;
}

static void add_operand(const simt_program *p, const ptx_operand *o, bool dest, reg_list *l) {
  const ptx_module *m = p->m;
  switch (o->kind) {
  case PTX_OPND_REG: {
    if (o->rclass >= PTX_RC_COUNT) return;
    uint32_t id = p->base[o->rclass] + o->index;
    if (dest) add_dst(l, id);
    else add_src(l, id, o->rclass == PTX_RC_PRED);
    if (dest && (o->flags & PTX_OPND_PAIR)) add_dst(l, p->base[PTX_RC_PRED] + o->pair);
    break;
  }
  case PTX_OPND_ADDR:
    if (o->index != PTX_NONE && o->rclass < PTX_RC_COUNT)
      add_src(l, p->base[o->rclass] + o->index, false);
    break;
  case PTX_OPND_VEC:
  case PTX_OPND_LIST:
    for (uint32_t i = 0; i < o->count && o->index + i < m->n_opnd_pool; i++) {
      const ptx_operand *e = &m->opnd_pool[o->index + i];
      if (e->kind == PTX_OPND_REG || e->kind == PTX_OPND_ADDR) add_operand(p, e, dest, l);
    }
    break;
  default: break;
  }
}

static bool has_type(const ptx_insn *in, ptx_type t) {
  return in->type == t || in->type2 == t || in->type3 == t || in->type4 == t;
}

static bool has_float(const ptx_insn *in) {
  return ptx_type_is_float((ptx_type)in->type) || ptx_type_is_float((ptx_type)in->type2) ||
         ptx_type_is_float((ptx_type)in->type3) || ptx_type_is_float((ptx_type)in->type4);
}

static void classify(const ptx_insn *in, simt_insn_info *info) {
  bool f64 = has_type(in, PTX_TYPE_F64), fp = has_float(in);
  info->op = GPU_OP_ADD;
  info->lat_row = f64 ? SIMT_LAT_DP : fp ? SIMT_LAT_FP : SIMT_LAT_INT;
  info->unit = f64 ? SIMT_UNIT_DP : fp ? SIMT_UNIT_SP : SIMT_UNIT_INT;
  switch ((ptx_opcode)in->opcode) {
  case PTX_OP_MIN: case PTX_OP_MAX: info->op = GPU_OP_MAX; break;
  case PTX_OP_MUL: case PTX_OP_MUL24: info->op = GPU_OP_MUL; break;
  case PTX_OP_MAD: case PTX_OP_MAD24: case PTX_OP_MADC: case PTX_OP_FMA: case PTX_OP_DP4A:
  case PTX_OP_DP2A: case PTX_OP_SAD:
    info->op = GPU_OP_MAD;
    break;
  case PTX_OP_DIV: case PTX_OP_REM:
    info->op = GPU_OP_DIV;
    if (!f64) info->unit = SIMT_UNIT_SFU;
    break;
  case PTX_OP_SQRT: case PTX_OP_RCP: case PTX_OP_RSQRT: case PTX_OP_SIN: case PTX_OP_COS:
  case PTX_OP_EX2: case PTX_OP_LG2: case PTX_OP_TANH:
    if (f64) {
      info->op = GPU_OP_DIV;
    } else {
      info->unit = SIMT_UNIT_SFU;
      info->lat_row = SIMT_LAT_SFU;
    }
    break;
  case PTX_OP_SHFL:
    info->op = GPU_OP_SHFL;
    info->unit = SIMT_UNIT_INT;
    info->lat_row = SIMT_LAT_INT;
    break;
  case PTX_OP_WMMA_MMA: case PTX_OP_MMA: case PTX_OP_WGMMA_MMA_ASYNC:
    info->unit = SIMT_UNIT_TENSOR;
    info->lat_row = SIMT_LAT_TENSOR;
    break;
  default: break;
  }
  /* the scope a fence is timed by (-gpgpu_fence_latency); other waits (cp.async.wait_group,
   * wgmma.wait_group, ...) wait for the warp's accesses only: SIMT_FENCE_DRAIN */
  info->fence = SIMT_FENCE_DRAIN;
  switch ((ptx_opcode)in->opcode) {
  case PTX_OP_BAR_WARP_SYNC: info->fence = GPU_FENCE_WARP; break;
  case PTX_OP_MEMBAR: case PTX_OP_FENCE:
    info->fence = in->opcode == PTX_OP_FENCE && in->sub_op != PTX_FENCE_PLAIN ? GPU_FENCE_CTA /* proxy, mbarrier_init */
                  : in->scope == PTX_SCOPE_SYS                             ? GPU_FENCE_SYS
                  : in->scope == PTX_SCOPE_CTA                             ? GPU_FENCE_CTA
                                                                           : GPU_FENCE_GPU;
    break;
  default: break;
  }
  switch ((ptx_opcode)in->opcode) {
  case PTX_OP_BRA: case PTX_OP_BRX: case PTX_OP_CALL: case PTX_OP_RET: case PTX_OP_EXIT:
  case PTX_OP_TRAP: case PTX_OP_BRKPT: case PTX_OP_NANOSLEEP: case PTX_OP_PMEVENT:
  case PTX_OP_BAR: case PTX_OP_BARRIER: case PTX_OP_BAR_WARP_SYNC: case PTX_OP_MEMBAR:
  case PTX_OP_FENCE:
    info->unit = SIMT_UNIT_SP;
    info->lat_row = SIMT_LAT_INT;
    break;
  default: break;
  }
}

static bool reads_carry(ptx_opcode op) {
  return op == PTX_OP_ADDC || op == PTX_OP_SUBC || op == PTX_OP_MADC;
}

/* simt_program.touch_prev for the `used` entries of p->regs: per function, the last pc touching
 * each register (where the cyclic search starts), then each pc's touches in order. false: out of
 * host memory. */
static bool find_touch_prev(simt_program *p, size_t used) {
  const ptx_module *m = p->m;
  p->touch_prev = malloc((used ? used : 1) * sizeof *p->touch_prev);
  if (!p->touch_prev) return false;
  bool calls = false;
  for (uint32_t i = 0; i < m->n_insns && !calls; i++) calls = m->insns[i].opcode == PTX_OP_CALL;
  if (calls) {
    for (size_t k = 0; k < used; k++) p->touch_prev[k] = SIMT_TOUCH_ANY;
    return true;
  }
  uint32_t *last = malloc((size_t)p->n_reg_ids * sizeof *last);
  if (!last) return false;
  for (uint32_t f = 0; f < m->n_functions; f++) {
    const ptx_function *fn = &m->functions[f];
    uint32_t lo = fn->first_insn, hi = fn->first_insn + fn->n_insns;
    if (hi > m->n_insns) hi = m->n_insns;
    for (uint32_t i = lo; i < hi; i++) {
      const simt_insn_info *in = &p->info[i];
      for (uint32_t j = 0; j < (uint32_t)in->n_src + in->n_dst; j++) last[p->regs[in->regs + j]] = i;
    }
    for (uint32_t i = lo; i < hi; i++) {
      const simt_insn_info *in = &p->info[i];
      uint32_t n = (uint32_t)in->n_src + in->n_dst;
      for (uint32_t j = 0; j < n; j++) p->touch_prev[in->regs + j] = last[p->regs[in->regs + j]];
      for (uint32_t j = 0; j < n; j++) last[p->regs[in->regs + j]] = i;
    }
  }
  free(last);
  return true;
}

simtvp_status simt_program_create(const ptx_module *m, simt_program **out, simtvp_diag *diag) {
  *out = NULL;
  simt_program *p = calloc(1, sizeof *p);
  if (!p) return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "simt_program: out of host memory");
  p->m = m;
  uint32_t max_regs[PTX_RC_COUNT] = {0};
  for (uint32_t f = 0; f < m->n_functions; f++)
    for (int c = 0; c < PTX_RC_COUNT; c++)
      if (m->functions[f].n_regs[c] > max_regs[c]) max_regs[c] = m->functions[f].n_regs[c];
  uint64_t ids = 0;
  for (int c = 0; c < PTX_RC_COUNT; c++) {
    p->base[c] = (uint32_t)ids;
    ids += max_regs[c];
  }
  uint32_t carry = (uint32_t)ids;
  ids += 1;
  if (ids > (1u << 24)) {
    free(p);
    return simtvp_diag_set(diag, SIMTVP_ERR_LIMIT, "%s: %llu registers per function are more than the "
                           "SIMT core's scoreboard tracks (2^24)", m->source_name ? m->source_name : "module",
                           (unsigned long long)ids);
  }
  p->n_reg_ids = (uint32_t)ids;
  p->info = calloc(m->n_insns ? m->n_insns : 1, sizeof *p->info);
  size_t cap = (size_t)m->n_insns * 4 + 16, used = 0;
  p->regs = malloc(cap * sizeof *p->regs);
  if (!p->info || !p->regs) {
    simt_program_destroy(p);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "simt_program: out of host memory");
  }
  reg_list l;
  for (uint32_t i = 0; i < m->n_insns; i++) {
    const ptx_insn *in = &m->insns[i];
    simt_insn_info *info = &p->info[i];
    classify(in, info);
    memset(&l, 0, sizeof l);
    bool dest = ptx_insn_has_dest(in);
    for (uint32_t o = 0; o < in->nops && o < PTX_MAX_OPERANDS; o++)
      add_operand(p, &in->ops[o], dest && o == 0, &l);
    if (in->guard != PTX_NONE) add_src(&l, p->base[PTX_RC_PRED] + in->guard, true);
    if (reads_carry((ptx_opcode)in->opcode)) add_src(&l, carry, true);
    if (in->mods & PTX_MOD_CC) add_dst(&l, carry);
    /* register-file reads first, predicates (and the carry flag) after */
    uint32_t need = l.n_src + l.n_dst;
    if (used + need > cap) {
      while (used + need > cap) cap *= 2;
      uint32_t *r = realloc(p->regs, cap * sizeof *r);
      if (!r) {
        simt_program_destroy(p);
        return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "simt_program: out of host memory");
      }
      p->regs = r;
    }
    info->regs = (uint32_t)used;
    uint32_t k = 0;
    for (uint32_t s = 0; s < l.n_src; s++)
      if (!l.src_pred[s]) p->regs[used + k++] = l.src[s];
    info->n_src_rf = (uint8_t)k;
    for (uint32_t s = 0; s < l.n_src; s++)
      if (l.src_pred[s]) p->regs[used + k++] = l.src[s];
    info->n_src = (uint8_t)k;
    for (uint32_t d = 0; d < l.n_dst; d++) p->regs[used + k++] = l.dst[d];
    info->n_dst = (uint8_t)l.n_dst;
    used += k;
  }
  if (!find_touch_prev(p, used)) {
    simt_program_destroy(p);
    return simtvp_diag_set(diag, SIMTVP_ERR_NOMEM, "simt_program: out of host memory");
  }
  *out = p;
  return SIMTVP_OK;
}

void simt_program_destroy(simt_program *p) {
  if (!p) return;
  free(p->info);
  free(p->regs);
  free(p->touch_prev);
  free(p);
}

const ptx_module *simt_program_module(const simt_program *p) { return p->m; }

void *simt_program_build(void *ctx, const ptx_module *m, simtvp_diag *diag) {
  (void)ctx;
  simt_program *p;
  return simt_program_create(m, &p, diag) == SIMTVP_OK ? p : NULL;
}

void simt_program_free(void *ctx, void *program) {
  (void)ctx;
  simt_program_destroy(program);
}
