/* ptx_names — spellings of opcodes, types, state spaces and special registers (PTX ISA §5.2,
 * §9.7, §10), type properties, and ptx_insn_format, which prints a decoded instruction back in
 * PTX syntax for traces and deadlock dumps. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ptx_internal.h"

static const char *const opcode_names[PTX_OP_COUNT] = {
#define X(name, spelling) spelling,
#include "ptx_opcodes.def"
#undef X
};

const char *ptx_opcode_name(ptx_opcode op) {
  return (unsigned)op < PTX_OP_COUNT ? opcode_names[op] : "?";
}

static const struct {
  const char *name;
  uint8_t bytes;
} type_info[PTX_TYPE_COUNT] = {
    [PTX_TYPE_NONE] = {"", 0},       [PTX_TYPE_PRED] = {"pred", 0},   [PTX_TYPE_B8] = {"b8", 1},
    [PTX_TYPE_B16] = {"b16", 2},     [PTX_TYPE_B32] = {"b32", 4},     [PTX_TYPE_B64] = {"b64", 8},
    [PTX_TYPE_B128] = {"b128", 16},  [PTX_TYPE_U8] = {"u8", 1},       [PTX_TYPE_U16] = {"u16", 2},
    [PTX_TYPE_U32] = {"u32", 4},     [PTX_TYPE_U64] = {"u64", 8},     [PTX_TYPE_S8] = {"s8", 1},
    [PTX_TYPE_S16] = {"s16", 2},     [PTX_TYPE_S32] = {"s32", 4},     [PTX_TYPE_S64] = {"s64", 8},
    [PTX_TYPE_F16] = {"f16", 2},     [PTX_TYPE_F16X2] = {"f16x2", 4}, [PTX_TYPE_BF16] = {"bf16", 2},
    [PTX_TYPE_BF16X2] = {"bf16x2", 4}, [PTX_TYPE_TF32] = {"tf32", 4}, [PTX_TYPE_F32] = {"f32", 4},
    [PTX_TYPE_F64] = {"f64", 8},     [PTX_TYPE_E4M3] = {"e4m3", 1},   [PTX_TYPE_E5M2] = {"e5m2", 1},
    [PTX_TYPE_E4M3X2] = {"e4m3x2", 2}, [PTX_TYPE_E5M2X2] = {"e5m2x2", 2}, [PTX_TYPE_S4] = {"s4", 1},
    [PTX_TYPE_U4] = {"u4", 1},       [PTX_TYPE_B1] = {"b1", 1},
};

uint32_t ptx_type_bytes(ptx_type t) { return (unsigned)t < PTX_TYPE_COUNT ? type_info[t].bytes : 0; }

bool ptx_type_is_float(ptx_type t) {
  return (t >= PTX_TYPE_F16 && t <= PTX_TYPE_F64) || (t >= PTX_TYPE_E4M3 && t <= PTX_TYPE_E5M2X2);
}

bool ptx_type_is_signed(ptx_type t) { return t >= PTX_TYPE_S8 && t <= PTX_TYPE_S64; }

const char *ptx_type_name(ptx_type t) { return (unsigned)t < PTX_TYPE_COUNT ? type_info[t].name : "?"; }

static const char *const space_names[PTX_SPACE_COUNT] = {
    [PTX_SPACE_NONE] = "",          [PTX_SPACE_GENERIC] = "",   [PTX_SPACE_GLOBAL] = "global",
    [PTX_SPACE_SHARED] = "shared",  [PTX_SPACE_SHARED_CLUSTER] = "shared::cluster",
    [PTX_SPACE_LOCAL] = "local",    [PTX_SPACE_CONST] = "const", [PTX_SPACE_PARAM] = "param",
    [PTX_SPACE_TEX] = "tex",        [PTX_SPACE_REG] = "reg",
};

const char *ptx_space_name(ptx_space s) { return (unsigned)s < PTX_SPACE_COUNT ? space_names[s] : "?"; }

static const char *const sreg_names[] = {
    [PTX_SREG_NONE] = "",
    [PTX_SREG_TID_X] = "%tid.x", [PTX_SREG_TID_Y] = "%tid.y", [PTX_SREG_TID_Z] = "%tid.z",
    [PTX_SREG_NTID_X] = "%ntid.x", [PTX_SREG_NTID_Y] = "%ntid.y", [PTX_SREG_NTID_Z] = "%ntid.z",
    [PTX_SREG_CTAID_X] = "%ctaid.x", [PTX_SREG_CTAID_Y] = "%ctaid.y", [PTX_SREG_CTAID_Z] = "%ctaid.z",
    [PTX_SREG_NCTAID_X] = "%nctaid.x", [PTX_SREG_NCTAID_Y] = "%nctaid.y", [PTX_SREG_NCTAID_Z] = "%nctaid.z",
    [PTX_SREG_LANEID] = "%laneid", [PTX_SREG_WARPID] = "%warpid", [PTX_SREG_NWARPID] = "%nwarpid",
    [PTX_SREG_SMID] = "%smid", [PTX_SREG_NSMID] = "%nsmid", [PTX_SREG_GRIDID] = "%gridid",
    [PTX_SREG_LANEMASK_EQ] = "%lanemask_eq", [PTX_SREG_LANEMASK_LE] = "%lanemask_le",
    [PTX_SREG_LANEMASK_LT] = "%lanemask_lt", [PTX_SREG_LANEMASK_GE] = "%lanemask_ge",
    [PTX_SREG_LANEMASK_GT] = "%lanemask_gt",
    [PTX_SREG_CLOCK] = "%clock", [PTX_SREG_CLOCK_HI] = "%clock_hi", [PTX_SREG_CLOCK64] = "%clock64",
    [PTX_SREG_GLOBALTIMER] = "%globaltimer", [PTX_SREG_GLOBALTIMER_LO] = "%globaltimer_lo",
    [PTX_SREG_GLOBALTIMER_HI] = "%globaltimer_hi",
    [PTX_SREG_DYNAMIC_SMEM_SIZE] = "%dynamic_smem_size", [PTX_SREG_TOTAL_SMEM_SIZE] = "%total_smem_size",
    [PTX_SREG_AGGR_SMEM_SIZE] = "%aggr_smem_size",
    [PTX_SREG_PM0] = "%pm0", [PTX_SREG_PM0 + 1] = "%pm1", [PTX_SREG_PM0 + 2] = "%pm2",
    [PTX_SREG_PM0 + 3] = "%pm3", [PTX_SREG_PM0 + 4] = "%pm4", [PTX_SREG_PM0 + 5] = "%pm5",
    [PTX_SREG_PM0 + 6] = "%pm6", [PTX_SREG_PM0 + 7] = "%pm7",
    [PTX_SREG_ENVREG0] = "%envreg0", [PTX_SREG_ENVREG0 + 1] = "%envreg1", [PTX_SREG_ENVREG0 + 2] = "%envreg2",
    [PTX_SREG_ENVREG0 + 3] = "%envreg3", [PTX_SREG_ENVREG0 + 4] = "%envreg4", [PTX_SREG_ENVREG0 + 5] = "%envreg5",
    [PTX_SREG_ENVREG0 + 6] = "%envreg6", [PTX_SREG_ENVREG0 + 7] = "%envreg7", [PTX_SREG_ENVREG0 + 8] = "%envreg8",
    [PTX_SREG_ENVREG0 + 9] = "%envreg9", [PTX_SREG_ENVREG0 + 10] = "%envreg10",
    [PTX_SREG_ENVREG0 + 11] = "%envreg11", [PTX_SREG_ENVREG0 + 12] = "%envreg12",
    [PTX_SREG_ENVREG0 + 13] = "%envreg13", [PTX_SREG_ENVREG0 + 14] = "%envreg14",
    [PTX_SREG_ENVREG0 + 15] = "%envreg15", [PTX_SREG_ENVREG0 + 16] = "%envreg16",
    [PTX_SREG_ENVREG0 + 17] = "%envreg17", [PTX_SREG_ENVREG0 + 18] = "%envreg18",
    [PTX_SREG_ENVREG0 + 19] = "%envreg19", [PTX_SREG_ENVREG0 + 20] = "%envreg20",
    [PTX_SREG_ENVREG0 + 21] = "%envreg21", [PTX_SREG_ENVREG0 + 22] = "%envreg22",
    [PTX_SREG_ENVREG0 + 23] = "%envreg23", [PTX_SREG_ENVREG0 + 24] = "%envreg24",
    [PTX_SREG_ENVREG0 + 25] = "%envreg25", [PTX_SREG_ENVREG0 + 26] = "%envreg26",
    [PTX_SREG_ENVREG0 + 27] = "%envreg27", [PTX_SREG_ENVREG0 + 28] = "%envreg28",
    [PTX_SREG_ENVREG0 + 29] = "%envreg29", [PTX_SREG_ENVREG0 + 30] = "%envreg30",
    [PTX_SREG_ENVREG0 + 31] = "%envreg31",
    [PTX_SREG_CLUSTERID_X] = "%clusterid.x", [PTX_SREG_CLUSTERID_Y] = "%clusterid.y",
    [PTX_SREG_CLUSTERID_Z] = "%clusterid.z",
    [PTX_SREG_NCLUSTERID_X] = "%nclusterid.x", [PTX_SREG_NCLUSTERID_Y] = "%nclusterid.y",
    [PTX_SREG_NCLUSTERID_Z] = "%nclusterid.z",
    [PTX_SREG_CLUSTER_CTAID_X] = "%cluster_ctaid.x", [PTX_SREG_CLUSTER_CTAID_Y] = "%cluster_ctaid.y",
    [PTX_SREG_CLUSTER_CTAID_Z] = "%cluster_ctaid.z",
    [PTX_SREG_CLUSTER_NCTAID_X] = "%cluster_nctaid.x", [PTX_SREG_CLUSTER_NCTAID_Y] = "%cluster_nctaid.y",
    [PTX_SREG_CLUSTER_NCTAID_Z] = "%cluster_nctaid.z",
    [PTX_SREG_CLUSTER_CTARANK] = "%cluster_ctarank", [PTX_SREG_CLUSTER_NCTARANK] = "%cluster_nctarank",
    [PTX_SREG_IS_EXPLICIT_CLUSTER] = "%is_explicit_cluster",
    [PTX_SREG_RESERVED_SMEM_OFFSET_BEGIN] = "%reserved_smem_offset_begin",
    [PTX_SREG_RESERVED_SMEM_OFFSET_END] = "%reserved_smem_offset_end",
    [PTX_SREG_RESERVED_SMEM_OFFSET_CAP] = "%reserved_smem_offset_cap",
    [PTX_SREG_CURRENT_GRAPH_EXEC] = "%current_graph_exec",
};
_Static_assert(sizeof sreg_names / sizeof sreg_names[0] == PTX_SREG_COUNT, "sreg name table");

const char *ptx_sreg_name(ptx_sreg s) {
  return (unsigned)s < PTX_SREG_COUNT && sreg_names[s] ? sreg_names[s] : "?";
}

/* ---- ptx_insn_format ------------------------------------------------------------------------- */

typedef struct outbuf {
  char *buf;
  size_t size, len;
} outbuf;

static void put(outbuf *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void put(outbuf *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *dst = o->len < o->size ? o->buf + o->len : NULL;
  size_t room = o->len < o->size ? o->size - o->len : 0;
  int n = vsnprintf(dst, room, fmt, ap);
  va_end(ap);
  if (n > 0) o->len += (size_t)n;
}

static const char *reg_name(const ptx_module *m, const ptx_insn *in, uint8_t rclass, uint32_t index) {
  if (!m || in->function >= m->n_functions || rclass >= PTX_RC_COUNT) return NULL;
  const ptx_function *f = &m->functions[in->function];
  if (index >= f->n_regs[rclass]) return NULL;
  uint64_t k = (uint64_t)f->first_reg_name[rclass] + index;
  return k < m->n_reg_names ? m->reg_names[k] : NULL;
}

static void put_reg(outbuf *o, const ptx_module *m, const ptx_insn *in, uint8_t rclass, uint32_t index) {
  const char *n = reg_name(m, in, rclass, index);
  if (n) put(o, "%s", n);
  else put(o, "%%rc%u_%u", rclass, index);
}

static void put_operand(outbuf *o, const ptx_module *m, const ptx_insn *in, const ptx_operand *op, int depth);

static void put_list(outbuf *o, const ptx_module *m, const ptx_insn *in, const ptx_operand *op, char open,
                     char close, int depth) {
  put(o, "%c", open);
  for (uint32_t i = 0; i < op->count; i++) {
    uint64_t k = (uint64_t)op->index + i;
    if (i) put(o, ", ");
    if (m && k < m->n_opnd_pool && depth < 4) put_operand(o, m, in, &m->opnd_pool[k], depth + 1);
    else put(o, "?");
  }
  put(o, "%c", close);
}

static void put_operand(outbuf *o, const ptx_module *m, const ptx_insn *in, const ptx_operand *op, int depth) {
  if (op->flags & PTX_OPND_NEG) put(o, "!");
  switch (op->kind) {
  case PTX_OPND_REG: put_reg(o, m, in, op->rclass, op->index); break;
  case PTX_OPND_IMM:
    if (op->flags & PTX_OPND_IMM_F32) put(o, "0f%08X", (uint32_t)op->value);
    else if (op->flags & PTX_OPND_IMM_F64) put(o, "0d%016llX", (unsigned long long)op->value);
    else put(o, "%lld", (long long)op->value);
    break;
  case PTX_OPND_SREG: put(o, "%s", ptx_sreg_name((ptx_sreg)op->index)); break;
  case PTX_OPND_ADDR:
    put(o, "[");
    if (op->base_sym != PTX_NONE && m && op->base_sym < m->n_symbols) put(o, "%s", m->symbols[op->base_sym].name);
    else if (op->index != PTX_NONE) put_reg(o, m, in, op->rclass, op->index);
    if (op->base_sym == PTX_NONE && op->index == PTX_NONE) put(o, "%lld", (long long)op->value);
    else if (op->value) put(o, "%+lld", (long long)op->value);
    put(o, "]");
    break;
  case PTX_OPND_VEC: put_list(o, m, in, op, '{', '}', depth); break;
  case PTX_OPND_LIST: put_list(o, m, in, op, '(', ')', depth); break;
  case PTX_OPND_LABEL: put(o, "@%u", op->index); break;
  case PTX_OPND_FUNC:
  case PTX_OPND_PROTO:
    if (m && op->index < m->n_functions) put(o, "%s", m->functions[op->index].name);
    else put(o, "func%u", op->index);
    break;
  case PTX_OPND_SYMBOL:
    if (op->flags & PTX_OPND_GENERIC_SYM) put(o, "generic(");
    if (m && op->index < m->n_symbols) put(o, "%s", m->symbols[op->index].name);
    else put(o, "sym%u", op->index);
    if (op->flags & PTX_OPND_GENERIC_SYM) put(o, ")");
    if (op->value) put(o, "%+lld", (long long)op->value);
    break;
  case PTX_OPND_SINK: put(o, "_"); break;
  default: put(o, "?"); break;
  }
  if (op->flags & PTX_OPND_PAIR) {
    put(o, "|");
    put_reg(o, m, in, PTX_RC_PRED, op->pair);
  }
}

static const char *sub_op_name(const ptx_insn *in) {
  static const char *const atom[] = {"", "and", "or", "xor", "cas", "exch", "add", "inc", "dec", "min", "max"};
  static const char *const shfl[] = {"", "up", "down", "bfly", "idx"};
  static const char *const vote[] = {"", "all", "any", "uni", "ballot"};
  static const char *const bar[] = {"", "sync", "arrive", "red.popc", "red.and", "red.or", "wait"};
  static const char *const redux[] = {"", "add", "min", "max", "and", "or", "xor"};
  static const char *const prmt[] = {"", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16"};
  static const char *const testp[] = {"", "finite", "infinite", "number", "notanumber", "normal", "subnormal"};
  static const char *const cp[] = {"", "", "commit_group", "wait_group", "wait_all", "mbarrier.arrive", "bulk",
                                   "bulk.commit_group", "bulk.wait_group", "bulk.prefetch", "bulk.tensor"};
  static const char *const mbar[] = {"", "init", "inval", "arrive", "arrive_drop", "test_wait", "try_wait",
                                     "pending_count", "expect_tx", "complete_tx"};
  static const char *const gdc[] = {"", "launch_dependents", "wait"};
  static const char *const video[] = {"", "add", "min", "max"};
  static const char *const match[] = {"", "any", "all"};
  static const char *const txq[] = {"", "width", "height", "depth", "channel_data_type", "channel_order",
                                    "normalized_coords", "filter_mode", "addr_mode_0", "addr_mode_1",
                                    "addr_mode_2", "num_mipmap_levels", "num_samples", "array_size",
                                    "force_unnormalized_coords", "memory_layout"};
#define PICK(tbl) (in->sub_op < sizeof tbl / sizeof tbl[0] ? tbl[in->sub_op] : "")
  switch ((ptx_opcode)in->opcode) {
  case PTX_OP_ATOM: case PTX_OP_RED: return PICK(atom);
  case PTX_OP_SHFL: return PICK(shfl);
  case PTX_OP_VOTE: return PICK(vote);
  case PTX_OP_BAR: case PTX_OP_BARRIER: return PICK(bar);
  case PTX_OP_REDUX: return PICK(redux);
  case PTX_OP_PRMT: return PICK(prmt);
  case PTX_OP_TESTP: return PICK(testp);
  case PTX_OP_CP_ASYNC: return PICK(cp);
  case PTX_OP_MBARRIER: return PICK(mbar);
  case PTX_OP_GRIDDEPCONTROL: return PICK(gdc);
  case PTX_OP_MATCH: return PICK(match);
  case PTX_OP_TXQ: case PTX_OP_SUQ: return PICK(txq);
  case PTX_OP_VABSDIFF: case PTX_OP_VABSDIFF2: case PTX_OP_VABSDIFF4: case PTX_OP_VADD: case PTX_OP_VMAX:
  case PTX_OP_VMIN: case PTX_OP_VSUB:
    return PICK(video);
  default: return "";
  }
#undef PICK
}

size_t ptx_insn_format(const ptx_module *m, const ptx_insn *in, char *buf, size_t size) {
  static const char *const rnd[] = {"", "rn", "rz", "rm", "rp", "rna", "rs", "rni", "rzi", "rmi", "rpi"};
  static const char *const cmp[] = {"", "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
                                    "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
  static const char *const boolop[] = {"", "and", "or", "xor"};
  static const char *const sem[] = {"", "volatile", "relaxed", "acquire", "release", "acq_rel", "sc", "mmio"};
  static const char *const scope[] = {"", "cta", "cluster", "gpu", "sys"};
  static const char *const cache[] = {"", "ca", "cg", "cs", "lu", "cv", "wb", "wt"};
  static const char *const geom[] = {"", "1d", "2d", "3d", "a1d", "a2d", "cube", "acube", "2dms", "a2dms"};
  static const struct {
    uint64_t bit;
    const char *name;
  } mods[] = {{PTX_MOD_TO, "to"},         {PTX_MOD_HI, "hi"},         {PTX_MOD_LO, "lo"},
              {PTX_MOD_WIDE, "wide"},     {PTX_MOD_CC, "cc"},         {PTX_MOD_UNI, "uni"},
              {PTX_MOD_SYNC, "sync"},     {PTX_MOD_ALIGNED, "aligned"}, {PTX_MOD_APPROX, "approx"},
              {PTX_MOD_FULL, "full"},     {PTX_MOD_FTZ, "ftz"},       {PTX_MOD_SAT, "sat"},
              {PTX_MOD_NC, "nc"},         {PTX_MOD_LEFT, "l"},        {PTX_MOD_CLAMP, "clamp"},
              {PTX_MOD_WRAP, "wrap"},     {PTX_MOD_SHIFTAMT, "shiftamt"}, {PTX_MOD_NAN, "NaN"},
              {PTX_MOD_XORSIGN, "xorsign"}, {PTX_MOD_ABS, "abs"},     {PTX_MOD_RELU, "relu"},
              {PTX_MOD_SATFINITE, "satfinite"}, {PTX_MOD_LEVEL, "level"}, {PTX_MOD_GRAD, "grad"},
              {PTX_MOD_ROW, "row"},       {PTX_MOD_TRANS, "trans"},   {PTX_MOD_PARITY, "parity"}};
  outbuf o = {buf, size, 0};
  if (size) buf[0] = '\0';
  if (!in) return 0;
  if (in->guard != PTX_NONE) {
    put(&o, "@%s", in->guard_neg ? "!" : "");
    put_reg(&o, m, in, PTX_RC_PRED, in->guard);
    put(&o, " ");
  }
  put(&o, "%s", ptx_opcode_name((ptx_opcode)in->opcode));
  const char *sub = sub_op_name(in);
  if (*sub) put(&o, ".%s", sub);
  if ((in->opcode == PTX_OP_WMMA_LOAD || in->opcode == PTX_OP_WMMA_STORE || in->opcode == PTX_OP_TLD4) &&
      in->sub_op >= 'a' && in->sub_op <= 'z')
    put(&o, ".%c", in->sub_op);
  if (in->cmp < sizeof cmp / sizeof cmp[0] && in->cmp) put(&o, ".%s", cmp[in->cmp]);
  if (in->bool_op < sizeof boolop / sizeof boolop[0] && in->bool_op) put(&o, ".%s", boolop[in->bool_op]);
  if (in->rounding < sizeof rnd / sizeof rnd[0] && in->rounding) put(&o, ".%s", rnd[in->rounding]);
  for (size_t i = 0; i < sizeof mods / sizeof mods[0]; i++)
    if (in->mods & mods[i].bit) put(&o, ".%s", mods[i].name);
  if (in->sem < sizeof sem / sizeof sem[0] && in->sem) put(&o, ".%s", sem[in->sem]);
  if (in->scope < sizeof scope / sizeof scope[0] && in->scope) put(&o, ".%s", scope[in->scope]);
  if (in->space > PTX_SPACE_GENERIC && in->space < PTX_SPACE_COUNT) put(&o, ".%s", ptx_space_name((ptx_space)in->space));
  if (in->cache_op < sizeof cache / sizeof cache[0] && in->cache_op) put(&o, ".%s", cache[in->cache_op]);
  bool tex = in->opcode == PTX_OP_TEX || in->opcode == PTX_OP_TLD4 || in->opcode == PTX_OP_SULD ||
             in->opcode == PTX_OP_SUST || in->opcode == PTX_OP_SURED;
  if (tex && in->geom < sizeof geom / sizeof geom[0] && in->geom) put(&o, ".%s", geom[in->geom]);
  bool async_copy = in->opcode == PTX_OP_CP_ASYNC || in->opcode == PTX_OP_CP_REDUCE_ASYNC_BULK;
  if (async_copy && in->geom > PTX_SPACE_GENERIC && in->geom < PTX_SPACE_COUNT)
    put(&o, ".%s", ptx_space_name((ptx_space)in->geom)); /* source space */
  if (async_copy && (in->mods & PTX_MOD_TENSOR)) put(&o, ".%ud", in->vec);
  else if (in->vec > 1) put(&o, ".v%u", in->vec);
  if (in->type) put(&o, ".%s", ptx_type_name((ptx_type)in->type));
  if (in->type2) put(&o, ".%s", ptx_type_name((ptx_type)in->type2));
  if (in->type3) put(&o, ".%s", ptx_type_name((ptx_type)in->type3));
  if (in->type4) put(&o, ".%s", ptx_type_name((ptx_type)in->type4));
  for (uint32_t i = 0; i < in->nops && i < PTX_MAX_OPERANDS; i++) {
    put(&o, i ? ", " : " ");
    put_operand(&o, m, in, &in->ops[i], 0);
  }
  put(&o, ";");
  return o.len < size ? o.len : (size ? size - 1 : 0);
}
