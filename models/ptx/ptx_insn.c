/* ptx_insn — decodes one PTX instruction (PTX ISA §9.7): guard, opcode, modifiers and operands,
 * into a ptx_insn with every field resolved once (types, rounding, comparison, state space,
 * memory semantics, sub-operation), following the operand conventions documented in ptx.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_internal.h"

/* ---- modifier words -------------------------------------------------------------------------- */

#define MOD_WORDS(X)                                                                               \
  X(RN, "rn") X(RZ, "rz") X(RM, "rm") X(RP, "rp") X(RNA, "rna") X(RS, "rs") X(RNI, "rni")          \
  X(RZI, "rzi") X(RMI, "rmi") X(RPI, "rpi")                                                        \
  X(EQ, "eq") X(NE, "ne") X(LT, "lt") X(LE, "le") X(GT, "gt") X(GE, "ge") X(LO, "lo") X(LS, "ls")  \
  X(HI, "hi") X(HS, "hs") X(EQU, "equ") X(NEU, "neu") X(LTU, "ltu") X(LEU, "leu") X(GTU, "gtu")    \
  X(GEU, "geu") X(NUM, "num") X(NAN_CMP, "nan")                                                    \
  X(AND, "and") X(OR, "or") X(XOR, "xor") X(CAS, "cas") X(EXCH, "exch") X(ADD, "add")              \
  X(INC, "inc") X(DEC, "dec") X(MIN, "min") X(MAX, "max")                                          \
  X(GLOBAL, "global") X(SHARED, "shared") X(SHARED_CTA, "shared::cta")                             \
  X(SHARED_CLUSTER, "shared::cluster") X(LOCAL, "local") X(CONST, "const") X(PARAM, "param")       \
  X(PARAM_ENTRY, "param::entry") X(PARAM_FUNC, "param::func")                                      \
  X(VOLATILE, "volatile") X(RELAXED, "relaxed") X(ACQUIRE, "acquire") X(RELEASE, "release")        \
  X(ACQ_REL, "acq_rel") X(SC, "sc") X(MMIO, "mmio") X(WEAK, "weak")                                \
  X(CTA, "cta") X(CLUSTER, "cluster") X(GPU, "gpu") X(SYS, "sys") X(GL, "gl")                      \
  X(CA, "ca") X(CG, "cg") X(CS, "cs") X(LU, "lu") X(CV, "cv") X(WB, "wb") X(WT, "wt") X(NC, "nc")  \
  X(V2, "v2") X(V4, "v4") X(V8, "v8")                                                              \
  X(FTZ, "ftz") X(SAT, "sat") X(APPROX, "approx") X(FULL, "full") X(WIDE, "wide") X(CC, "cc")     \
  X(UNI, "uni") X(SYNC, "sync") X(ALIGNED, "aligned") X(CLAMP, "clamp") X(WRAP, "wrap")            \
  X(SHIFTAMT, "shiftamt") X(TO, "to") X(NAN_MOD, "NaN") X(XORSIGN, "xorsign") X(ABS, "abs")       \
  X(RELU, "relu") X(SATFINITE, "satfinite") X(NOFTZ, "noftz") X(L, "l") X(R, "r")                  \
  X(UP, "up") X(DOWN, "down") X(BFLY, "bfly") X(IDX, "idx")                                        \
  X(ALL, "all") X(ANY, "any") X(BALLOT, "ballot")                                                  \
  X(ARRIVE, "arrive") X(RED, "red") X(POPC, "popc")                                                \
  X(F4E, "f4e") X(B4E, "b4e") X(RC8, "rc8") X(ECL, "ecl") X(ECR, "ecr") X(RC16, "rc16")            \
  X(FINITE, "finite") X(INFINITE, "infinite") X(NUMBER, "number") X(NOTANUMBER, "notanumber")      \
  X(NORMAL, "normal") X(SUBNORMAL, "subnormal")                                                    \
  X(G1D, "1d") X(G2D, "2d") X(G3D, "3d") X(A1D, "a1d") X(A2D, "a2d") X(CUBE, "cube")               \
  X(ACUBE, "acube") X(G2DMS, "2dms") X(A2DMS, "a2dms")                                             \
  X(LEVEL, "level") X(GRAD, "grad") X(BASE, "base")                                                \
  X(ROW, "row") X(COL, "col")                                                                      \
  X(M16N16K16, "m16n16k16") X(M32N8K16, "m32n8k16") X(M8N32K16, "m8n32k16")                        \
  X(M16N16K8, "m16n16k8") X(M8N8K4, "m8n8k4") X(M8N8K16, "m8n8k16") X(M8N8K32, "m8n8k32")          \
  X(M8N8K128, "m8n8k128") X(M16N8K8, "m16n8k8") X(M16N8K16, "m16n8k16") X(M16N8K32, "m16n8k32")    \
  X(M16N8K4, "m16n8k4") X(M8N8, "m8n8") X(M16N8K64, "m16n8k64") X(M16N8K128, "m16n8k128")          \
  X(M16N8K256, "m16n8k256") X(M8N16, "m8n16") X(M16N16, "m16n16")                                  \
  X(X1, "x1") X(X2, "x2") X(X4, "x4") X(TRANS, "trans")                                            \
  X(COMMIT_GROUP, "commit_group") X(WAIT_GROUP, "wait_group") X(WAIT_ALL, "wait_all")              \
  X(BULK, "bulk") X(MBARRIER, "mbarrier") X(NOINC, "noinc") X(INIT, "init")                        \
  X(ARRIVE_DROP, "arrive_drop") X(TEST_WAIT, "test_wait") X(TRY_WAIT, "try_wait")                  \
  X(PENDING_COUNT, "pending_count") X(EXPECT_TX, "expect_tx") X(COMPLETE_TX, "complete_tx")        \
  X(INVAL, "inval") X(PARITY, "parity") X(NOCOMPLETE, "noComplete")                                \
  X(LAUNCH_DEPENDENTS, "launch_dependents") X(WAIT, "wait")                                        \
  X(TRAP, "trap") X(ZERO, "zero")                                                                  \
  X(WIDTH, "width") X(HEIGHT, "height") X(DEPTH, "depth")                                          \
  X(CHANNEL_DATA_TYPE, "channel_data_type") X(CHANNEL_ORDER, "channel_order")                      \
  X(NORMALIZED_COORDS, "normalized_coords") X(FILTER_MODE, "filter_mode")                          \
  X(ADDR_MODE_0, "addr_mode_0") X(ADDR_MODE_1, "addr_mode_1") X(ADDR_MODE_2, "addr_mode_2")        \
  X(NUM_MIPMAP_LEVELS, "num_mipmap_levels") X(NUM_SAMPLES, "num_samples")                          \
  X(ARRAY_SIZE, "array_size") X(FORCE_UNNORMALIZED_COORDS, "force_unnormalized_coords")            \
  X(MEMORY_LAYOUT, "memory_layout")                                                                \
  X(PROXY, "proxy") X(ALIAS, "alias") X(ASYNC, "async") X(MBARRIER_INIT, "mbarrier_init")          \
  X(MASK, "mask") X(L1, "L1") X(L2, "L2") X(UNIFIED, "unified") X(NORETURN, "noreturn")          \
  X(FRACTIONAL, "fractional") X(RANGE, "range") X(CVT, "cvt") X(TEXREF, "texref")                  \
  X(SAMPLERREF, "samplerref") X(SURFREF, "surfref") X(BULK_GROUP, "bulk_group")                 \
  X(TENSOR, "tensor") X(TILE, "tile") X(IM2COL, "im2col") X(READ, "read") X(PREFETCH, "prefetch")  \
  X(G4D, "4d") X(G5D, "5d")

enum {
  MW_NONE = 0,
#define X(id, s) MW_##id,
  MOD_WORDS(X)
#undef X
  MW_COUNT
};

static const char *const mod_word_text[MW_COUNT] = {
    "",
#define X(id, s) s,
    MOD_WORDS(X)
#undef X
};

static const char *const type_words[PTX_TYPE_COUNT] = {
    [PTX_TYPE_PRED] = "pred", [PTX_TYPE_B8] = "b8",     [PTX_TYPE_B16] = "b16",   [PTX_TYPE_B32] = "b32",
    [PTX_TYPE_B64] = "b64",   [PTX_TYPE_B128] = "b128", [PTX_TYPE_U8] = "u8",     [PTX_TYPE_U16] = "u16",
    [PTX_TYPE_U32] = "u32",   [PTX_TYPE_U64] = "u64",   [PTX_TYPE_S8] = "s8",     [PTX_TYPE_S16] = "s16",
    [PTX_TYPE_S32] = "s32",   [PTX_TYPE_S64] = "s64",   [PTX_TYPE_F16] = "f16",   [PTX_TYPE_F16X2] = "f16x2",
    [PTX_TYPE_BF16] = "bf16", [PTX_TYPE_BF16X2] = "bf16x2", [PTX_TYPE_TF32] = "tf32", [PTX_TYPE_F32] = "f32",
    [PTX_TYPE_F64] = "f64",   [PTX_TYPE_E4M3] = "e4m3", [PTX_TYPE_E5M2] = "e5m2", [PTX_TYPE_E4M3X2] = "e4m3x2",
    [PTX_TYPE_E5M2X2] = "e5m2x2", [PTX_TYPE_S4] = "s4", [PTX_TYPE_U4] = "u4",     [PTX_TYPE_B1] = "b1",
};

static bool table_add(ptx_names *t, const char *s, uint8_t kind, uint32_t index) {
  uint32_t len = (uint32_t)strlen(s);
  ptx_name_slot *sl = ptx_names_slot(t, s, len, ptx_hash(s, len));
  if (!sl) return false;
  sl->b.kind = kind;
  sl->b.index = index;
  return true;
}

static const ptx_name_slot *table_find(const ptx_names *t, const char *s, uint32_t len) {
  const ptx_name_slot *sl = ptx_names_find(t, s, len, ptx_hash(s, len));
  return sl && sl->b.kind ? sl : NULL;
}

bool ptx_insn_tables_init(ptx_parser *p) {
  for (uint32_t op = 0; op < PTX_OP_COUNT; op++)
    if (!table_add(&p->opcodes, ptx_opcode_name((ptx_opcode)op), 1, op)) return ptx_nomem(p);
  for (uint32_t w = 1; w < MW_COUNT; w++)
    if (!table_add(&p->modifiers, mod_word_text[w], 1, w)) return ptx_nomem(p);
  for (uint32_t t = 1; t < PTX_TYPE_COUNT; t++)
    if (!table_add(&p->types, type_words[t], 1, t)) return ptx_nomem(p);
  for (uint32_t s = 1; s < PTX_SREG_COUNT; s++)
    if (!table_add(&p->sregs, ptx_sreg_name((ptx_sreg)s), 1, s)) return ptx_nomem(p);
  /* Bare vector forms of the 3-D special registers read their .x component; older PTX used them
   * with a component, which the names above already cover. */
  return true;
}

int ptx_word_type(ptx_parser *p, const char *s, uint32_t len) {
  const ptx_name_slot *sl = table_find(&p->types, s, len);
  return sl ? (int)sl->b.index : -1;
}

/* ---- per-opcode operand counts and destination rule ------------------------------------------ */

typedef struct opcode_shape {
  uint8_t min_ops, max_ops;
} opcode_shape;

static opcode_shape shape_of(ptx_opcode op) {
  switch (op) {
  case PTX_OP_ABS: case PTX_OP_BFIND: case PTX_OP_BREV: case PTX_OP_CLZ: case PTX_OP_COS:
  case PTX_OP_EX2: case PTX_OP_LG2: case PTX_OP_NEG: case PTX_OP_POPC: case PTX_OP_RCP:
  case PTX_OP_RSQRT: case PTX_OP_SIN: case PTX_OP_SQRT: case PTX_OP_TANH: case PTX_OP_TESTP:
  case PTX_OP_CNOT: case PTX_OP_CVTA: case PTX_OP_MOV: case PTX_OP_NOT: case PTX_OP_ISSPACEP:
  case PTX_OP_LDU: case PTX_OP_TXQ: case PTX_OP_SUQ: case PTX_OP_LDMATRIX: case PTX_OP_STMATRIX:
  case PTX_OP_MOVMATRIX: case PTX_OP_GETCTARANK: case PTX_OP_ISTYPEP: case PTX_OP_DISCARD:
  case PTX_OP_APPLYPRIORITY:
    return (opcode_shape){2, 2};
  case PTX_OP_MAPA: return (opcode_shape){3, 3};
  case PTX_OP_SETMAXNREG: return (opcode_shape){1, 1};
  case PTX_OP_CREATEPOLICY: return (opcode_shape){2, 4};
  case PTX_OP_CP_REDUCE_ASYNC_BULK: return (opcode_shape){3, 5};
  case PTX_OP_ADD: case PTX_OP_ADDC: case PTX_OP_BMSK: case PTX_OP_COPYSIGN: case PTX_OP_DIV:
  case PTX_OP_MUL: case PTX_OP_MUL24: case PTX_OP_REM: case PTX_OP_SUB: case PTX_OP_SUBC:
  case PTX_OP_SZEXT: case PTX_OP_AND: case PTX_OP_OR: case PTX_OP_SHL: case PTX_OP_SHR:
  case PTX_OP_XOR: case PTX_OP_MATCH: case PTX_OP_REDUX:
    return (opcode_shape){3, 3};
  case PTX_OP_MIN: case PTX_OP_MAX: return (opcode_shape){3, 4};
  case PTX_OP_BFE: case PTX_OP_DP2A: case PTX_OP_DP4A: case PTX_OP_FMA: case PTX_OP_FNS:
  case PTX_OP_MAD: case PTX_OP_MAD24: case PTX_OP_MADC: case PTX_OP_PRMT: case PTX_OP_SAD:
  case PTX_OP_SELP: case PTX_OP_SHF: case PTX_OP_SLCT:
    return (opcode_shape){4, 4};
  case PTX_OP_BFI: return (opcode_shape){5, 5};
  case PTX_OP_LOP3: return (opcode_shape){5, 6};
  case PTX_OP_VABSDIFF: case PTX_OP_VADD: case PTX_OP_VMAX: case PTX_OP_VMIN: case PTX_OP_VSUB:
  case PTX_OP_VABSDIFF2: case PTX_OP_VABSDIFF4:
    return (opcode_shape){3, 4};
  case PTX_OP_CVT: return (opcode_shape){2, 4};
  case PTX_OP_SET: case PTX_OP_SETP: return (opcode_shape){3, 4};
  case PTX_OP_ATOM: return (opcode_shape){3, 5};
  case PTX_OP_LD: case PTX_OP_ST: case PTX_OP_RED: return (opcode_shape){2, 3};
  case PTX_OP_CP_ASYNC: return (opcode_shape){0, 6};
  case PTX_OP_MBARRIER: return (opcode_shape){1, 4};
  case PTX_OP_PREFETCH: case PTX_OP_PREFETCHU: return (opcode_shape){1, 2};
  case PTX_OP_STACKRESTORE: case PTX_OP_STACKSAVE: case PTX_OP_ACTIVEMASK: case PTX_OP_BAR_WARP_SYNC:
  case PTX_OP_NANOSLEEP: case PTX_OP_PMEVENT: case PTX_OP_BRA:
    return (opcode_shape){1, 1};
  case PTX_OP_ALLOCA: return (opcode_shape){2, 3};
  case PTX_OP_BRKPT: case PTX_OP_EXIT: case PTX_OP_RET: case PTX_OP_TRAP: case PTX_OP_GRIDDEPCONTROL:
  case PTX_OP_MEMBAR:
    return (opcode_shape){0, 0};
  case PTX_OP_BRX: return (opcode_shape){2, 2};
  case PTX_OP_CALL: return (opcode_shape){3, 4};
  case PTX_OP_BAR: case PTX_OP_BARRIER: return (opcode_shape){0, 4};
  case PTX_OP_ELECT: return (opcode_shape){1, 2};
  case PTX_OP_FENCE: return (opcode_shape){0, 2};
  case PTX_OP_SHFL: return (opcode_shape){4, 5};
  case PTX_OP_VOTE: return (opcode_shape){2, 3};
  case PTX_OP_SULD: case PTX_OP_SUST: case PTX_OP_SURED: return (opcode_shape){3, 3};
  case PTX_OP_TEX: case PTX_OP_TLD4: return (opcode_shape){3, 6};
  case PTX_OP_MMA: return (opcode_shape){4, 6};
  case PTX_OP_WMMA_LOAD: case PTX_OP_WMMA_STORE: return (opcode_shape){2, 3};
  case PTX_OP_WMMA_MMA: return (opcode_shape){4, 4};
  case PTX_OP_WGMMA_MMA_ASYNC: return (opcode_shape){4, 5};
  case PTX_OP_WGMMA_FENCE: case PTX_OP_WGMMA_COMMIT_GROUP: return (opcode_shape){0, 0};
  case PTX_OP_WGMMA_WAIT_GROUP: return (opcode_shape){1, 1};
  default: return (opcode_shape){0, PTX_MAX_OPERANDS};
  }
}

bool ptx_insn_has_dest(const ptx_insn *in) {
  switch ((ptx_opcode)in->opcode) {
  case PTX_OP_ST: case PTX_OP_RED: case PTX_OP_BRA: case PTX_OP_BRX: case PTX_OP_CALL:
  case PTX_OP_RET: case PTX_OP_EXIT: case PTX_OP_TRAP: case PTX_OP_BRKPT: case PTX_OP_BAR_WARP_SYNC:
  case PTX_OP_MEMBAR: case PTX_OP_FENCE: case PTX_OP_SUST: case PTX_OP_SURED: case PTX_OP_WMMA_STORE:
  case PTX_OP_PREFETCH: case PTX_OP_PREFETCHU: case PTX_OP_CP_ASYNC: case PTX_OP_NANOSLEEP:
  case PTX_OP_PMEVENT: case PTX_OP_GRIDDEPCONTROL: case PTX_OP_STACKRESTORE: case PTX_OP_STMATRIX:
  case PTX_OP_SETMAXNREG: case PTX_OP_DISCARD: case PTX_OP_APPLYPRIORITY: case PTX_OP_CP_REDUCE_ASYNC_BULK:
  case PTX_OP_WGMMA_FENCE: case PTX_OP_WGMMA_COMMIT_GROUP: case PTX_OP_WGMMA_WAIT_GROUP:
    return false;
  case PTX_OP_BAR: case PTX_OP_BARRIER:
    return in->sub_op == PTX_BAR_RED_POPC || in->sub_op == PTX_BAR_RED_AND || in->sub_op == PTX_BAR_RED_OR;
  case PTX_OP_MBARRIER:
    return in->sub_op == PTX_MBAR_ARRIVE || in->sub_op == PTX_MBAR_ARRIVE_DROP ||
           in->sub_op == PTX_MBAR_TEST_WAIT || in->sub_op == PTX_MBAR_TRY_WAIT ||
           in->sub_op == PTX_MBAR_PENDING_COUNT;
  default:
    return in->nops > 0;
  }
}

static bool is_branch_like(ptx_opcode op) { return op == PTX_OP_BRA || op == PTX_OP_BRX; }
static bool is_tex_like(ptx_opcode op) {
  return op == PTX_OP_TEX || op == PTX_OP_TLD4 || op == PTX_OP_SULD || op == PTX_OP_SUST || op == PTX_OP_SURED;
}

/* ---- modifiers ------------------------------------------------------------------------------- */

typedef struct insn_ctx {
  ptx_insn in;
  ptx_token optok;     /* the opcode word, for messages */
  uint8_t types[4];
  uint8_t n_types;
  uint8_t n_layouts;   /* wmma.mma/mma .row/.col seen */
  bool bar_red;        /* bar.red seen, waiting for popc/and/or */
  bool cp_mbarrier;    /* cp.async.mbarrier seen, waiting for arrive */
  bool fence_proxy;    /* fence.proxy seen */
  uint32_t insn_index; /* index the instruction will have */
} insn_ctx;

static bool bad_modifier(ptx_parser *p, insn_ctx *c, const char *s, uint32_t len) {
  return ptx_error_tok(p, &c->optok, "modifier '.%.*s' is not valid on %s", (int)(len > 40 ? 40 : len), s,
                       ptx_opcode_name((ptx_opcode)c->in.opcode));
}

static bool set_once(ptx_parser *p, insn_ctx *c, uint8_t *field, uint8_t value, const char *s, uint32_t len) {
  if (*field && *field != value)
    return ptx_error_tok(p, &c->optok, "conflicting modifier '.%.*s' on %s", (int)(len > 40 ? 40 : len), s,
                         ptx_opcode_name((ptx_opcode)c->in.opcode));
  *field = value;
  return true;
}

static bool apply_modifier(ptx_parser *p, insn_ctx *c, const char *s, uint32_t len) {
  ptx_insn *in = &c->in;
  const ptx_opcode op = (ptx_opcode)in->opcode;

  /* single letters whose meaning depends on the opcode */
  if (len == 1) {
    char ch = s[0];
    if ((op == PTX_OP_WMMA_LOAD || op == PTX_OP_WMMA_STORE) && ch >= 'a' && ch <= 'd')
      return set_once(p, c, &in->sub_op, (uint8_t)ch, s, len);
    if (op == PTX_OP_TLD4 && (ch == 'r' || ch == 'g' || ch == 'b' || ch == 'a'))
      return set_once(p, c, &in->sub_op, (uint8_t)ch, s, len);
    if ((op == PTX_OP_SULD || op == PTX_OP_SUST || op == PTX_OP_SURED) && (ch == 'b' || ch == 'p')) {
      if (ch == 'p') in->mods |= PTX_MOD_FORMATTED;
      return true;
    }
  }
  /* wgmma shapes m64nNkK (N = 8 .. 256 in steps of 8, K = 8, 16, 32 or 256): geom = K, vec = N / 8 */
  if (op == PTX_OP_WGMMA_MMA_ASYNC && len > 4 && memcmp(s, "m64n", 4) == 0) {
    uint32_t n = 0, k = 0, i = 4;
    while (i < len && s[i] >= '0' && s[i] <= '9' && n < 1000) n = n * 10 + (uint32_t)(s[i++] - '0');
    if (i < len && s[i] == 'k') {
      i++;
      while (i < len && s[i] >= '0' && s[i] <= '9' && k < 1000) k = k * 10 + (uint32_t)(s[i++] - '0');
    }
    if (i != len || n == 0 || n > 256 || n % 8 || (k != 8 && k != 16 && k != 32 && k != 256))
      return ptx_error_tok(p, &c->optok, "'.%.*s' is not a wgmma shape (m64nNkK, N a multiple of 8 up to 256)",
                           (int)(len > 40 ? 40 : len), s);
    if (in->geom) return ptx_error_tok(p, &c->optok, "wgmma.mma_async has two shapes");
    in->geom = (uint8_t)k;
    in->vec = (uint8_t)(n / 8);
    return true;
  }
  const ptx_name_slot *ts = table_find(&p->types, s, len);
  if (ts) {
    if (c->n_types >= 4) return bad_modifier(p, c, s, len);
    c->types[c->n_types++] = (uint8_t)ts->b.index;
    return true;
  }
  const ptx_name_slot *ms = table_find(&p->modifiers, s, len);
  if (!ms) {
    /* Qualifiers spelled with `::` that do not change what the instruction computes
     * (.L1::no_allocate, .L2::128B, .L2::cache_hint, .level::eviction_priority,
     * .mbarrier::complete_tx::bytes …) are accepted; cache_hint adds an operand. */
    for (uint32_t i = 0; i + 1 < len; i++)
      if (s[i] == ':' && s[i + 1] == ':') {
        if (len == 14 && memcmp(s, "L2::cache_hint", 14) == 0) in->mods |= PTX_MOD_CACHE_HINT;
        if (len == 18 && memcmp(s, "multicast::cluster", 18) == 0) in->mods |= PTX_MOD_MULTICAST;
        return true;
      }
    return ptx_error_tok(p, &c->optok, "unknown modifier '.%.*s' on %s", (int)(len > 40 ? 40 : len), s,
                         ptx_opcode_name(op));
  }
  const bool bar = op == PTX_OP_BAR || op == PTX_OP_BARRIER;
  const bool atomic = op == PTX_OP_ATOM || op == PTX_OP_RED || op == PTX_OP_CP_REDUCE_ASYNC_BULK;
  const bool video = op >= PTX_OP_VABSDIFF && op <= PTX_OP_VSUB;
  const bool compare = op == PTX_OP_SETP || op == PTX_OP_SET;
  const bool tex = is_tex_like(op) || op == PTX_OP_TXQ || op == PTX_OP_SUQ;
  const uint32_t w = ms->b.index;
  switch (w) {
  case MW_RN: return set_once(p, c, &in->rounding, PTX_RND_RN, s, len);
  case MW_RZ: return set_once(p, c, &in->rounding, PTX_RND_RZ, s, len);
  case MW_RM: return set_once(p, c, &in->rounding, PTX_RND_RM, s, len);
  case MW_RP: return set_once(p, c, &in->rounding, PTX_RND_RP, s, len);
  case MW_RNA: return set_once(p, c, &in->rounding, PTX_RND_RNA, s, len);
  case MW_RS: return set_once(p, c, &in->rounding, PTX_RND_RS, s, len);
  case MW_RNI: return set_once(p, c, &in->rounding, PTX_RND_RNI, s, len);
  case MW_RZI: return set_once(p, c, &in->rounding, PTX_RND_RZI, s, len);
  case MW_RMI: return set_once(p, c, &in->rounding, PTX_RND_RMI, s, len);
  case MW_RPI: return set_once(p, c, &in->rounding, PTX_RND_RPI, s, len);
  case MW_LO:
  case MW_HI:
    if (!compare) {
      in->mods |= w == MW_LO ? PTX_MOD_LO : PTX_MOD_HI;
      return true;
    }
    return set_once(p, c, &in->cmp, w == MW_LO ? PTX_CMP_LO : PTX_CMP_HI, s, len);
  case MW_EQ: case MW_NE: case MW_LT: case MW_LE: case MW_GT: case MW_GE: case MW_LS: case MW_HS:
  case MW_EQU: case MW_NEU: case MW_LTU: case MW_LEU: case MW_GTU: case MW_GEU: case MW_NUM:
  case MW_NAN_CMP: {
    static const uint8_t cmp_of[] = {
        [MW_EQ] = PTX_CMP_EQ, [MW_NE] = PTX_CMP_NE, [MW_LT] = PTX_CMP_LT, [MW_LE] = PTX_CMP_LE,
        [MW_GT] = PTX_CMP_GT, [MW_GE] = PTX_CMP_GE, [MW_LS] = PTX_CMP_LS, [MW_HS] = PTX_CMP_HS,
        [MW_EQU] = PTX_CMP_EQU, [MW_NEU] = PTX_CMP_NEU, [MW_LTU] = PTX_CMP_LTU, [MW_LEU] = PTX_CMP_LEU,
        [MW_GTU] = PTX_CMP_GTU, [MW_GEU] = PTX_CMP_GEU, [MW_NUM] = PTX_CMP_NUM, [MW_NAN_CMP] = PTX_CMP_NAN,
    };
    if (!compare && op != PTX_OP_SLCT) return bad_modifier(p, c, s, len);
    return set_once(p, c, &in->cmp, cmp_of[w], s, len);
  }
  case MW_AND: case MW_OR: case MW_XOR:
    if (compare) return set_once(p, c, &in->bool_op, w == MW_AND ? PTX_BOOL_AND : w == MW_OR ? PTX_BOOL_OR : PTX_BOOL_XOR, s, len);
    if (atomic) return set_once(p, c, &in->sub_op, w == MW_AND ? PTX_ATOM_AND : w == MW_OR ? PTX_ATOM_OR : PTX_ATOM_XOR, s, len);
    if (op == PTX_OP_REDUX) return set_once(p, c, &in->sub_op, w == MW_AND ? PTX_REDUX_AND : w == MW_OR ? PTX_REDUX_OR : PTX_REDUX_XOR, s, len);
    if (bar && c->bar_red && w != MW_XOR) {
      c->bar_red = false;
      in->sub_op = w == MW_AND ? PTX_BAR_RED_AND : PTX_BAR_RED_OR;
      return true;
    }
    if ((op == PTX_OP_MMA || op == PTX_OP_WMMA_MMA) && w != MW_OR)
      return set_once(p, c, &in->bool_op, w == MW_AND ? PTX_BOOL_AND : PTX_BOOL_XOR, s, len);
    if (op == PTX_OP_LOP3 && w != MW_XOR) /* lop3.{and,or} with predicate output (PTX 8.2) */
      return set_once(p, c, &in->bool_op, w == MW_AND ? PTX_BOOL_AND : PTX_BOOL_OR, s, len);
    return bad_modifier(p, c, s, len);
  case MW_CAS: case MW_EXCH: case MW_INC: case MW_DEC:
    if (op == PTX_OP_SETMAXNREG && (w == MW_INC || w == MW_DEC)) return set_once(p, c, &in->sub_op, w == MW_INC ? 1 : 2, s, len);
    if (op == PTX_OP_CP_REDUCE_ASYNC_BULK) return set_once(p, c, &in->sub_op, w == MW_CAS ? PTX_ATOM_CAS : w == MW_EXCH ? PTX_ATOM_EXCH : w == MW_INC ? PTX_ATOM_INC : PTX_ATOM_DEC, s, len);
    if (!atomic) return bad_modifier(p, c, s, len);
    return set_once(p, c, &in->sub_op, w == MW_CAS ? PTX_ATOM_CAS : w == MW_EXCH ? PTX_ATOM_EXCH : w == MW_INC ? PTX_ATOM_INC : PTX_ATOM_DEC, s, len);
  case MW_ADD: case MW_MIN: case MW_MAX:
    if (atomic) return set_once(p, c, &in->sub_op, w == MW_ADD ? PTX_ATOM_ADD : w == MW_MIN ? PTX_ATOM_MIN : PTX_ATOM_MAX, s, len);
    if (op == PTX_OP_REDUX) return set_once(p, c, &in->sub_op, w == MW_ADD ? PTX_REDUX_ADD : w == MW_MIN ? PTX_REDUX_MIN : PTX_REDUX_MAX, s, len);
    if (video) return set_once(p, c, &in->sub_op, w == MW_ADD ? PTX_VIDEO_ADD : w == MW_MIN ? PTX_VIDEO_MIN : PTX_VIDEO_MAX, s, len);
    if (op == PTX_OP_SURED && w == MW_ADD) return true;
    return bad_modifier(p, c, s, len);
  case MW_GLOBAL: case MW_SHARED: case MW_SHARED_CTA: case MW_SHARED_CLUSTER: case MW_LOCAL:
  case MW_CONST: case MW_PARAM: case MW_PARAM_ENTRY: case MW_PARAM_FUNC: {
    uint8_t sp = w == MW_GLOBAL ? PTX_SPACE_GLOBAL
                 : (w == MW_SHARED || w == MW_SHARED_CTA) ? PTX_SPACE_SHARED
                 : w == MW_SHARED_CLUSTER ? PTX_SPACE_SHARED_CLUSTER
                 : w == MW_LOCAL ? PTX_SPACE_LOCAL
                 : w == MW_CONST ? PTX_SPACE_CONST : PTX_SPACE_PARAM;
    if (in->space && (op == PTX_OP_CP_ASYNC || op == PTX_OP_CP_REDUCE_ASYNC_BULK)) {
      in->geom = sp; /* source space (ptx.h: geom of the asynchronous copies) */
      return true;
    }
    if (in->space && op == PTX_OP_CVTA) return true; /* source space */
    if (op == PTX_OP_FENCE) return true;                                        /* fence.proxy.async.shared::cta */
    return set_once(p, c, &in->space, sp, s, len);
  }
  case MW_VOLATILE: return set_once(p, c, &in->sem, PTX_SEM_VOLATILE, s, len);
  case MW_RELAXED: return set_once(p, c, &in->sem, PTX_SEM_RELAXED, s, len);
  case MW_ACQUIRE: return set_once(p, c, &in->sem, PTX_SEM_ACQUIRE, s, len);
  case MW_RELEASE: return set_once(p, c, &in->sem, PTX_SEM_RELEASE, s, len);
  case MW_ACQ_REL: return set_once(p, c, &in->sem, PTX_SEM_ACQ_REL, s, len);
  case MW_SC: return set_once(p, c, &in->sem, PTX_SEM_SC, s, len);
  case MW_MMIO: return set_once(p, c, &in->sem, PTX_SEM_MMIO, s, len);
  case MW_WEAK: return true;
  case MW_CTA: return set_once(p, c, &in->scope, PTX_SCOPE_CTA, s, len);
  case MW_CLUSTER: return set_once(p, c, &in->scope, PTX_SCOPE_CLUSTER, s, len);
  case MW_GPU: case MW_GL: return set_once(p, c, &in->scope, PTX_SCOPE_GPU, s, len);
  case MW_SYS: return set_once(p, c, &in->scope, PTX_SCOPE_SYS, s, len);
  case MW_CA: return set_once(p, c, &in->cache_op, PTX_CACHE_CA, s, len);
  case MW_CG: return set_once(p, c, &in->cache_op, PTX_CACHE_CG, s, len);
  case MW_CS: return set_once(p, c, &in->cache_op, PTX_CACHE_CS, s, len);
  case MW_LU: return set_once(p, c, &in->cache_op, PTX_CACHE_LU, s, len);
  case MW_CV: return set_once(p, c, &in->cache_op, PTX_CACHE_CV, s, len);
  case MW_WB: return set_once(p, c, &in->cache_op, PTX_CACHE_WB, s, len);
  case MW_WT: return set_once(p, c, &in->cache_op, PTX_CACHE_WT, s, len);
  case MW_NC: in->mods |= PTX_MOD_NC; return true;
  case MW_V2: in->vec = 2; return true;
  case MW_V4: in->vec = 4; return true;
  case MW_V8: in->vec = 8; return true;
  case MW_FTZ: in->mods |= PTX_MOD_FTZ; return true;
  case MW_SAT: in->mods |= PTX_MOD_SAT; return true;
  case MW_APPROX: in->mods |= PTX_MOD_APPROX; return true;
  case MW_FULL: in->mods |= PTX_MOD_FULL; return true;
  case MW_WIDE: in->mods |= PTX_MOD_WIDE; return true;
  case MW_CC: in->mods |= PTX_MOD_CC; return true;
  case MW_UNI:
    if (op == PTX_OP_VOTE) return set_once(p, c, &in->sub_op, PTX_VOTE_UNI, s, len);
    in->mods |= PTX_MOD_UNI;
    return true;
  case MW_SYNC:
    if (bar && !in->sub_op) {
      in->sub_op = PTX_BAR_SYNC;
      return true;
    }
    in->mods |= PTX_MOD_SYNC;
    return true;
  case MW_ALIGNED: in->mods |= PTX_MOD_ALIGNED; return true;
  case MW_CLAMP: case MW_TRAP: case MW_ZERO:
    if (op == PTX_OP_SULD || op == PTX_OP_SUST || op == PTX_OP_SURED)
      return set_once(p, c, &in->sub_op, w == MW_TRAP ? PTX_SURF_TRAP : w == MW_CLAMP ? PTX_SURF_CLAMP : PTX_SURF_ZERO, s, len);
    if (w == MW_CLAMP) {
      in->mods |= PTX_MOD_CLAMP;
      return true;
    }
    return bad_modifier(p, c, s, len);
  case MW_WRAP: in->mods |= PTX_MOD_WRAP; return true;
  case MW_SHIFTAMT: in->mods |= PTX_MOD_SHIFTAMT; return true;
  case MW_TO: in->mods |= PTX_MOD_TO; return true;
  case MW_NAN_MOD: in->mods |= PTX_MOD_NAN; return true;
  case MW_XORSIGN: in->mods |= PTX_MOD_XORSIGN; return true;
  case MW_ABS: in->mods |= PTX_MOD_ABS; return true;
  case MW_RELU: in->mods |= PTX_MOD_RELU; return true;
  case MW_SATFINITE: in->mods |= PTX_MOD_SATFINITE; return true;
  case MW_NOFTZ: in->mods |= PTX_MOD_NOFTZ; return true;
  case MW_L: case MW_R:
    if (op != PTX_OP_SHF) return bad_modifier(p, c, s, len);
    if (w == MW_L) in->mods |= PTX_MOD_LEFT;
    return true;
  case MW_UP: case MW_DOWN: case MW_BFLY: case MW_IDX:
    if (op != PTX_OP_SHFL) return bad_modifier(p, c, s, len);
    return set_once(p, c, &in->sub_op, w == MW_UP ? PTX_SHFL_UP : w == MW_DOWN ? PTX_SHFL_DOWN : w == MW_BFLY ? PTX_SHFL_BFLY : PTX_SHFL_IDX, s, len);
  case MW_ALL: case MW_ANY: case MW_BALLOT:
    if (op == PTX_OP_VOTE) return set_once(p, c, &in->sub_op, w == MW_ALL ? PTX_VOTE_ALL : w == MW_ANY ? PTX_VOTE_ANY : PTX_VOTE_BALLOT, s, len);
    if (op == PTX_OP_MATCH && w != MW_BALLOT) return set_once(p, c, &in->sub_op, w == MW_ALL ? PTX_MATCH_ALL : PTX_MATCH_ANY, s, len);
    return bad_modifier(p, c, s, len);
  case MW_ARRIVE:
    if (bar) return set_once(p, c, &in->sub_op, PTX_BAR_ARRIVE, s, len);
    if (op == PTX_OP_MBARRIER) return set_once(p, c, &in->sub_op, PTX_MBAR_ARRIVE, s, len);
    if (op == PTX_OP_CP_ASYNC && c->cp_mbarrier) return set_once(p, c, &in->sub_op, PTX_CP_ASYNC_MBARRIER_ARRIVE, s, len);
    return bad_modifier(p, c, s, len);
  case MW_RED:
    if (!bar) return bad_modifier(p, c, s, len);
    c->bar_red = true;
    return true;
  case MW_POPC:
    if (bar && c->bar_red) {
      c->bar_red = false;
      in->sub_op = PTX_BAR_RED_POPC;
      return true;
    }
    if (op == PTX_OP_MMA || op == PTX_OP_WMMA_MMA) {
      in->mods |= PTX_MOD_POPC;
      return true;
    }
    return bad_modifier(p, c, s, len);
  case MW_F4E: case MW_B4E: case MW_RC8: case MW_ECL: case MW_ECR: case MW_RC16:
    if (op != PTX_OP_PRMT) return bad_modifier(p, c, s, len);
    return set_once(p, c, &in->sub_op, w == MW_F4E ? PTX_PRMT_F4E : w == MW_B4E ? PTX_PRMT_B4E : w == MW_RC8 ? PTX_PRMT_RC8 : w == MW_ECL ? PTX_PRMT_ECL : w == MW_ECR ? PTX_PRMT_ECR : PTX_PRMT_RC16, s, len);
  case MW_FINITE: case MW_INFINITE: case MW_NUMBER: case MW_NOTANUMBER: case MW_NORMAL: case MW_SUBNORMAL:
    if (op != PTX_OP_TESTP) return bad_modifier(p, c, s, len);
    return set_once(p, c, &in->sub_op, (uint8_t)(PTX_TESTP_FINITE + (w - MW_FINITE)), s, len);
  case MW_G4D: case MW_G5D:
    if (op != PTX_OP_CP_ASYNC && op != PTX_OP_CP_REDUCE_ASYNC_BULK) return bad_modifier(p, c, s, len);
    in->vec = (uint8_t)(w == MW_G4D ? 4 : 5);
    return true;
  case MW_G1D: case MW_G2D: case MW_G3D: case MW_A1D: case MW_A2D: case MW_CUBE: case MW_ACUBE:
  case MW_G2DMS: case MW_A2DMS:
    if ((op == PTX_OP_CP_ASYNC || op == PTX_OP_CP_REDUCE_ASYNC_BULK) && w <= MW_G3D) {
      in->vec = (uint8_t)(1 + (w - MW_G1D)); /* tensor dimensions */
      return true;
    }
    if (!tex) return bad_modifier(p, c, s, len);
    return set_once(p, c, &in->geom, (uint8_t)(PTX_GEOM_1D + (w - MW_G1D)), s, len);
  case MW_LEVEL:
    if (op == PTX_OP_TXQ) in->mods |= PTX_MOD_LEVEL_QUERY;
    else in->mods |= PTX_MOD_LEVEL;
    return true;
  case MW_GRAD: in->mods |= PTX_MOD_GRAD; return true;
  case MW_BASE: in->mods |= PTX_MOD_BASE; return true;
  case MW_ROW: case MW_COL:
    if (op == PTX_OP_WMMA_MMA || op == PTX_OP_MMA) {
      if (c->n_layouts >= 2) return bad_modifier(p, c, s, len);
      if (w == MW_ROW) in->mods |= c->n_layouts == 0 ? PTX_MOD_ROW_A : PTX_MOD_ROW_B;
      c->n_layouts++;
      return true;
    }
    if (w == MW_ROW) in->mods |= PTX_MOD_ROW;
    return true;
  case MW_M16N16K16: case MW_M32N8K16: case MW_M8N32K16: case MW_M16N16K8: case MW_M8N8K4:
  case MW_M8N8K16: case MW_M8N8K32: case MW_M8N8K128: case MW_M16N8K8: case MW_M16N8K16:
  case MW_M16N8K32: case MW_M16N8K4:
    return set_once(p, c, &in->geom, (uint8_t)(PTX_WMMA_M16N16K16 + (w - MW_M16N16K16)), s, len);
  case MW_M8N8: case MW_M16N8K64: case MW_M16N8K128: case MW_M16N8K256: case MW_M8N16: case MW_M16N16:
    return set_once(p, c, &in->geom, (uint8_t)(PTX_WMMA_M8N8 + (w - MW_M8N8)), s, len);
  case MW_X1: in->vec = 1; return true;
  case MW_X2: in->vec = 2; return true;
  case MW_X4: in->vec = 4; return true;
  case MW_TRANS: in->mods |= PTX_MOD_TRANS; return true;
  case MW_COMMIT_GROUP: case MW_WAIT_GROUP: case MW_WAIT_ALL: case MW_BULK:
    if (op != PTX_OP_CP_ASYNC) return bad_modifier(p, c, s, len);
    if (in->sub_op == PTX_CP_ASYNC_BULK && (w == MW_COMMIT_GROUP || w == MW_WAIT_GROUP)) {
      in->sub_op = w == MW_COMMIT_GROUP ? PTX_CP_ASYNC_BULK_COMMIT_GROUP : PTX_CP_ASYNC_BULK_WAIT_GROUP;
      return true;
    }
    return set_once(p, c, &in->sub_op, w == MW_COMMIT_GROUP ? PTX_CP_ASYNC_COMMIT_GROUP : w == MW_WAIT_GROUP ? PTX_CP_ASYNC_WAIT_GROUP : w == MW_WAIT_ALL ? PTX_CP_ASYNC_WAIT_ALL : PTX_CP_ASYNC_BULK, s, len);
  case MW_MBARRIER:
    if (op != PTX_OP_CP_ASYNC) return bad_modifier(p, c, s, len);
    c->cp_mbarrier = true;
    return true;
  case MW_NOINC: in->mods |= PTX_MOD_NOINC; return true;
  case MW_INIT: case MW_ARRIVE_DROP: case MW_TEST_WAIT: case MW_TRY_WAIT: case MW_PENDING_COUNT:
  case MW_INVAL: case MW_COMPLETE_TX:
    if (op != PTX_OP_MBARRIER) return bad_modifier(p, c, s, len);
    return set_once(p, c, &in->sub_op, w == MW_INIT ? PTX_MBAR_INIT : w == MW_ARRIVE_DROP ? PTX_MBAR_ARRIVE_DROP : w == MW_TEST_WAIT ? PTX_MBAR_TEST_WAIT : w == MW_TRY_WAIT ? PTX_MBAR_TRY_WAIT : w == MW_PENDING_COUNT ? PTX_MBAR_PENDING_COUNT : w == MW_INVAL ? PTX_MBAR_INVAL : PTX_MBAR_COMPLETE_TX, s, len);
  case MW_EXPECT_TX:
    if (op != PTX_OP_MBARRIER) return bad_modifier(p, c, s, len);
    if (in->sub_op == PTX_MBAR_ARRIVE || in->sub_op == PTX_MBAR_ARRIVE_DROP) in->mods |= PTX_MOD_EXPECT_TX;
    else return set_once(p, c, &in->sub_op, PTX_MBAR_EXPECT_TX, s, len);
    return true;
  case MW_PARITY: in->mods |= PTX_MOD_PARITY; return true;
  case MW_NOCOMPLETE: in->mods |= PTX_MOD_NOCOMPLETE; return true;
  case MW_LAUNCH_DEPENDENTS: case MW_WAIT:
    if (op == PTX_OP_GRIDDEPCONTROL)
      return set_once(p, c, &in->sub_op, w == MW_WAIT ? PTX_GRIDDEP_WAIT : PTX_GRIDDEP_LAUNCH_DEPENDENTS, s, len);
    if (bar && w == MW_WAIT) return set_once(p, c, &in->sub_op, PTX_BAR_WAIT, s, len);
    return bad_modifier(p, c, s, len);
  case MW_WIDTH: case MW_HEIGHT: case MW_DEPTH: case MW_CHANNEL_DATA_TYPE: case MW_CHANNEL_ORDER:
  case MW_NORMALIZED_COORDS: case MW_FILTER_MODE: case MW_ADDR_MODE_0: case MW_ADDR_MODE_1:
  case MW_ADDR_MODE_2: case MW_NUM_MIPMAP_LEVELS: case MW_NUM_SAMPLES: case MW_ARRAY_SIZE:
  case MW_FORCE_UNNORMALIZED_COORDS: case MW_MEMORY_LAYOUT:
    if (op != PTX_OP_TXQ && op != PTX_OP_SUQ) return bad_modifier(p, c, s, len);
    return set_once(p, c, &in->sub_op, (uint8_t)(PTX_TXQ_WIDTH + (w - MW_WIDTH)), s, len);
  case MW_PROXY:
    if (op != PTX_OP_FENCE) return bad_modifier(p, c, s, len);
    c->fence_proxy = true;
    in->sub_op = PTX_FENCE_PROXY_OTHER;
    return true;
  case MW_ALIAS: case MW_ASYNC:
    if (op != PTX_OP_FENCE || !c->fence_proxy) return bad_modifier(p, c, s, len);
    in->sub_op = w == MW_ALIAS ? PTX_FENCE_PROXY_ALIAS : PTX_FENCE_PROXY_ASYNC;
    return true;
  case MW_MBARRIER_INIT:
    if (op != PTX_OP_FENCE) return bad_modifier(p, c, s, len);
    return set_once(p, c, &in->sub_op, PTX_FENCE_MBARRIER_INIT, s, len);
  case MW_MASK:
    if (op != PTX_OP_PMEVENT) return bad_modifier(p, c, s, len);
    in->sub_op = 1;
    return true;
  case MW_L1: case MW_L2:
    if (op == PTX_OP_DISCARD) return true;
    if (op == PTX_OP_CP_ASYNC && in->sub_op == PTX_CP_ASYNC_BULK_PREFETCH) return true; /* prefetch.L2 */
    if (op != PTX_OP_PREFETCH && op != PTX_OP_PREFETCHU) return bad_modifier(p, c, s, len);
    return set_once(p, c, &in->sub_op, w == MW_L1 ? 1 : 2, s, len);
  case MW_UNIFIED: in->mods |= PTX_MOD_UNIFIED; return true;
  case MW_FRACTIONAL: case MW_RANGE: case MW_CVT:
    if (op != PTX_OP_CREATEPOLICY) return bad_modifier(p, c, s, len);
    return set_once(p, c, &in->sub_op, w == MW_FRACTIONAL ? 1 : w == MW_RANGE ? 2 : 3, s, len);
  case MW_TEXREF: case MW_SAMPLERREF: case MW_SURFREF:
    if (op != PTX_OP_ISTYPEP) return bad_modifier(p, c, s, len);
    return set_once(p, c, &in->sub_op, w == MW_TEXREF ? 1 : w == MW_SAMPLERREF ? 2 : 3, s, len);
  case MW_BULK_GROUP:
    if (op != PTX_OP_CP_REDUCE_ASYNC_BULK && op != PTX_OP_CP_ASYNC) return bad_modifier(p, c, s, len);
    return true;
  case MW_TENSOR:
    if (op == PTX_OP_CP_REDUCE_ASYNC_BULK) {
      in->mods |= PTX_MOD_TENSOR;
      return true;
    }
    if (op != PTX_OP_CP_ASYNC || (in->sub_op != PTX_CP_ASYNC_BULK && in->sub_op != PTX_CP_ASYNC_BULK_PREFETCH))
      return bad_modifier(p, c, s, len);
    in->mods |= PTX_MOD_TENSOR;
    if (in->sub_op == PTX_CP_ASYNC_BULK) in->sub_op = PTX_CP_ASYNC_BULK_TENSOR;
    return true;
  case MW_PREFETCH:
    if (op != PTX_OP_CP_ASYNC || in->sub_op != PTX_CP_ASYNC_BULK) return bad_modifier(p, c, s, len);
    in->sub_op = PTX_CP_ASYNC_BULK_PREFETCH;
    return true;
  case MW_TILE:
    if (op != PTX_OP_CP_ASYNC && op != PTX_OP_CP_REDUCE_ASYNC_BULK) return bad_modifier(p, c, s, len);
    return true;
  case MW_IM2COL:
    if (op != PTX_OP_CP_ASYNC && op != PTX_OP_CP_REDUCE_ASYNC_BULK) return bad_modifier(p, c, s, len);
    in->mods |= PTX_MOD_IM2COL;
    return true;
  case MW_READ:
    if (op != PTX_OP_CP_ASYNC || in->sub_op != PTX_CP_ASYNC_BULK_WAIT_GROUP) return bad_modifier(p, c, s, len);
    in->mods |= PTX_MOD_READ;
    return true;
  case MW_NORETURN: in->mods |= PTX_MOD_NORETURN; return true;
  default: return bad_modifier(p, c, s, len);
  }
}

/* Assigns the collected types to type/type2/type3/type4 (ptx.h: mma/wmma.mma D, C, A, B). */
static void assign_types(insn_ctx *c) {
  ptx_insn *in = &c->in;
  const ptx_opcode op = (ptx_opcode)in->opcode;
  if (op == PTX_OP_MMA || op == PTX_OP_WMMA_MMA) {
    if (c->n_types == 4) {
      in->type = c->types[0];
      in->type3 = c->types[1];
      in->type4 = c->types[2];
      in->type2 = c->types[3];
      return;
    }
    if (c->n_types == 2) {
      in->type = c->types[0];
      in->type2 = c->types[1];
      in->type3 = in->type4 = PTX_TYPE_F16;
      return;
    }
  }
  uint8_t *slot[4] = {&in->type, &in->type2, &in->type3, &in->type4};
  for (uint32_t i = 0; i < c->n_types; i++) *slot[i] = c->types[i];
}

/* ---- operands -------------------------------------------------------------------------------- */

static void opnd_init(ptx_operand *o) {
  memset(o, 0, sizeof *o);
  o->index = PTX_NONE;
  o->pair = PTX_NONE;
  o->base_sym = PTX_NONE;
}

static const char *tok_desc(const ptx_token *t, char *buf, size_t size) {
  if (t->kind == PTX_TOK_EOF) return "end of input";
  size_t n = t->len > 60 ? 60 : t->len;
  if (n + 3 > size) n = size - 3;
  buf[0] = '\'';
  memcpy(buf + 1, t->s, n);
  buf[n + 1] = '\'';
  buf[n + 2] = '\0';
  return buf;
}

static bool add_fixup(ptx_parser *p, const ptx_token *t, uint32_t insn, uint32_t opnd, bool in_pool) {
  if (!PTX_VEC_RESERVE(p->fixups, p->fixups.n + 1)) return ptx_nomem(p);
  p->fixups.v[p->fixups.n++] = (ptx_fixup){insn, opnd, in_pool, t->s, t->len, t->line, t->col};
  return true;
}

static bool immediate_operand(ptx_parser *p, ptx_operand *o);

/* A name used as an operand: register, special register, variable, function, branch-target list,
 * or (in a branch) a label. */
static bool name_operand(ptx_parser *p, insn_ctx *c, ptx_operand *o, uint32_t slot, bool in_pool) {
  const ptx_token t = p->tok;
  if (t.len == 1 && t.s[0] == '_') {
    o->kind = PTX_OPND_SINK;
    ptx_next(p);
    return true;
  }
  ptx_binding tmp;
  const ptx_binding *b = ptx_lookup(p, t.s, t.len, &tmp);
  if (b) {
    switch (b->kind) {
    case PTX_BIND_REG:
      o->kind = PTX_OPND_REG;
      o->rclass = b->rclass;
      o->index = b->index;
      ptx_next(p);
      return true;
    case PTX_BIND_SYM:
      o->kind = PTX_OPND_SYMBOL;
      o->index = b->index;
      ptx_next(p);
      if (ptx_is_punct(&p->tok, '+') || ptx_is_punct(&p->tok, '-')) {
        bool neg = p->tok.c == '-';
        ptx_next(p);
        int64_t v;
        if (!ptx_const_expr(p, &v)) return false;
        o->value = neg ? (int64_t)(0 - (uint64_t)v) : v;
      }
      return true;
    case PTX_BIND_FUNC:
      o->kind = (p->funcs.v[b->index].flags & PTX_FN_PROTOTYPE) ? PTX_OPND_PROTO : PTX_OPND_FUNC;
      o->index = b->index;
      ptx_next(p);
      return true;
    case PTX_BIND_TARGETS:
      o->kind = PTX_OPND_LIST;
      o->index = b->index;
      o->count = (uint8_t)(b->count > 255 ? 255 : b->count);
      if (b->count > 255) return ptx_error_tok(p, &t, "target list '%.*s' has more than 255 entries", (int)t.len, t.s);
      ptx_next(p);
      return true;
    default: break;
    }
  }
  const ptx_name_slot *sr = table_find(&p->sregs, t.s, t.len);
  if (sr) {
    o->kind = PTX_OPND_SREG;
    o->index = sr->b.index;
    ptx_next(p);
    return true;
  }
  /* WARP_SZ, PTX's predefined warp-size identifier (nvcc emits it for warpSize): an immediate, also
   * inside a constant expression (ptx_const_expr knows it) */
  if (ptx_is_word(&t, "WARP_SZ")) return immediate_operand(p, o);
  /* %tid, %ntid … without a component name the whole vector; only .x/.y/.z forms are supported */
  if (is_branch_like((ptx_opcode)c->in.opcode) && t.s[0] != '%') {
    o->kind = PTX_OPND_LABEL;
    if (!add_fixup(p, &t, c->insn_index, slot, in_pool)) return false;
    ptx_next(p);
    return true;
  }
  return ptx_error_tok(p, &t, "undeclared name '%.*s'", (int)(t.len > 60 ? 60 : t.len), t.s);
}

static bool immediate_operand(ptx_parser *p, ptx_operand *o) {
  o->kind = PTX_OPND_IMM;
  bool neg = false;
  const ptx_token *t = &p->tok;
  if (ptx_is_punct(t, '-')) {
    const ptx_token *n = ptx_peek(p);
    ptx_number num;
    if (n->kind == PTX_TOK_NUMBER && ptx_parse_number_text(n->s, n->len, &num) && num.is_float) {
      neg = true;
      ptx_next(p);
    }
  }
  if (t->kind == PTX_TOK_NUMBER) {
    ptx_number num;
    if (!ptx_parse_number_text(t->s, t->len, &num))
      return ptx_error_tok(p, t, "malformed number '%.*s'", (int)(t->len > 40 ? 40 : t->len), t->s);
    if (num.is_float) {
      if (num.is_f32) {
        o->flags |= PTX_OPND_IMM_F32;
        o->value = (int64_t)(num.bits ^ (neg ? 0x80000000ull : 0));
      } else {
        o->flags |= PTX_OPND_IMM_F64;
        o->value = (int64_t)(num.bits ^ (neg ? 0x8000000000000000ull : 0));
      }
      ptx_next(p);
      return true;
    }
  }
  int64_t v;
  if (!ptx_const_expr(p, &v)) return false;
  o->value = v;
  return true;
}

static bool parse_operand(ptx_parser *p, insn_ctx *c, ptx_operand *o, uint32_t slot, bool in_pool, int depth);

/* { a, b, … } -> VEC in the operand pool */
static bool vector_operand(ptx_parser *p, insn_ctx *c, ptx_operand *o, int depth) {
  const ptx_token open = p->tok;
  ptx_next(p);
  ptx_operand elems[PTX_LIMIT_VEC];
  uint32_t n = 0;
  if (!ptx_is_punct(&p->tok, '}')) {
    for (;;) {
      if (n >= PTX_LIMIT_VEC) return ptx_error_tok(p, &open, "vector operand has more than %u elements", PTX_LIMIT_VEC);
      opnd_init(&elems[n]);
      /* a branch-target label inside a vector is not meaningful: pool slot fixups are not needed */
      if (!parse_operand(p, c, &elems[n], 0, false, depth + 1)) return false;
      if (elems[n].kind == PTX_OPND_VEC || elems[n].kind == PTX_OPND_LIST || elems[n].kind == PTX_OPND_LABEL)
        return ptx_error_tok(p, &open, "a vector operand holds registers, immediates or '_' only");
      n++;
      if (!ptx_accept(p, ',')) break;
    }
  }
  if (!ptx_expect(p, '}', "to close the vector operand")) return false;
  o->kind = PTX_OPND_VEC;
  o->count = (uint8_t)n;
  o->index = ptx_add_operands(p, elems, n);
  return !p->failed;
}

/* [base], [base+imm], [imm]; for textures and surfaces [handle, coords] (coords go to `extra`). */
static bool address_operand(ptx_parser *p, insn_ctx *c, ptx_operand *o, ptx_operand *extra, bool *has_extra,
                            int depth) {
  const ptx_token open = p->tok;
  ptx_next(p);
  o->kind = PTX_OPND_ADDR;
  bool has_base = false;
  if (p->tok.kind == PTX_TOK_WORD && !ptx_is_word(&p->tok, "WARP_SZ")) {
    const ptx_token t = p->tok;
    ptx_binding tmp;
    const ptx_binding *b = ptx_lookup(p, t.s, t.len, &tmp);
    if (b && b->kind == PTX_BIND_REG) {
      if (b->rclass == PTX_RC_PRED) return ptx_error_tok(p, &t, "a predicate cannot be an address");
      o->rclass = b->rclass;
      o->index = b->index;
    } else if (b && b->kind == PTX_BIND_SYM) {
      o->base_sym = b->index;
    } else {
      return ptx_error_tok(p, &t, "undeclared name '%.*s' in an address", (int)(t.len > 60 ? 60 : t.len), t.s);
    }
    has_base = true;
    ptx_next(p);
  }
  if (has_base) {
    if (ptx_is_punct(&p->tok, '+') || ptx_is_punct(&p->tok, '-')) {
      bool neg = p->tok.c == '-';
      ptx_next(p);
      int64_t v;
      if (!ptx_const_expr(p, &v)) return false;
      o->value = neg ? (int64_t)(0 - (uint64_t)v) : v;
    }
  } else if (!ptx_is_punct(&p->tok, ']')) {
    int64_t v;
    if (!ptx_const_expr(p, &v)) return false;
    o->value = v;
  } else {
    return ptx_error_tok(p, &open, "empty address");
  }
  const ptx_opcode aop = (ptx_opcode)c->in.opcode;
  const bool tensor_copy = (aop == PTX_OP_CP_ASYNC || aop == PTX_OP_CP_REDUCE_ASYNC_BULK) &&
                           (c->in.mods & PTX_MOD_TENSOR); /* [tensorMap, {coordinates}] */
  if (ptx_is_punct(&p->tok, ',') && extra && (is_tex_like(aop) || tensor_copy)) {
    ptx_next(p);
    opnd_init(extra);
    if (!parse_operand(p, c, extra, 0, false, depth + 1)) return false;
    if (ptx_is_punct(&p->tok, ','))
      return ptx_error_tok(p, &p->tok, "separate sampler operands (texmode_independent) are not supported");
    *has_extra = true;
  }
  return ptx_expect(p, ']', "to close the address");
}

static bool parse_operand(ptx_parser *p, insn_ctx *c, ptx_operand *o, uint32_t slot, bool in_pool, int depth) {
  if (depth > 4) return ptx_error_tok(p, &p->tok, "operand nested too deeply");
  const ptx_token *t = &p->tok;
  if (ptx_is_punct(t, '!')) {
    ptx_next(p);
    if (p->tok.kind != PTX_TOK_WORD) return ptx_error_tok(p, &p->tok, "expected a predicate after '!'");
    if (!name_operand(p, c, o, slot, in_pool)) return false;
    if (o->kind != PTX_OPND_REG || o->rclass != PTX_RC_PRED)
      return ptx_error_tok(p, t, "'!' applies to predicate registers only");
    o->flags |= PTX_OPND_NEG;
    return true;
  }
  if (ptx_is_punct(t, '{')) {
    if (!vector_operand(p, c, o, depth)) return false;
    if (ptx_is_punct(&p->tok, '|')) { /* tex/tld4 {…}|p: the residency predicate */
      ptx_next(p);
      ptx_operand q;
      opnd_init(&q);
      const ptx_token qt = p->tok;
      if (p->tok.kind != PTX_TOK_WORD || !name_operand(p, c, &q, slot, in_pool)) {
        if (!p->failed) ptx_error_tok(p, &qt, "expected a predicate after '|'");
        return false;
      }
      if (q.kind != PTX_OPND_REG || q.rclass != PTX_RC_PRED)
        return ptx_error_tok(p, &qt, "the second half of 'd|p' must be a predicate register");
      o->flags |= PTX_OPND_PAIR;
      o->pair = q.index;
    }
    return true;
  }
  if (ptx_is_punct(t, '[')) return address_operand(p, c, o, NULL, NULL, depth);
  if (t->kind == PTX_TOK_WORD && t->s[0] != '.') {
    if (t->len == 7 && memcmp(t->s, "generic", 7) == 0 && ptx_is_punct(ptx_peek(p), '(')) {
      ptx_next(p);
      ptx_next(p);
      if (p->tok.kind != PTX_TOK_WORD) return ptx_error_tok(p, &p->tok, "expected a variable in generic()");
      if (!name_operand(p, c, o, slot, in_pool)) return false;
      if (o->kind != PTX_OPND_SYMBOL) return ptx_error_tok(p, t, "generic() takes a variable");
      if (!ptx_expect(p, ')', "to close generic(")) return false;
      o->flags |= PTX_OPND_GENERIC_SYM;
      if (ptx_is_punct(&p->tok, '+') || ptx_is_punct(&p->tok, '-')) {
        bool neg = p->tok.c == '-';
        ptx_next(p);
        int64_t v;
        if (!ptx_const_expr(p, &v)) return false;
        o->value += neg ? (int64_t)(0 - (uint64_t)v) : v;
      }
      return true;
    }
    if (!name_operand(p, c, o, slot, in_pool)) return false;
    if (o->kind == PTX_OPND_REG && ptx_is_punct(&p->tok, '|')) {
      ptx_next(p);
      ptx_operand q;
      opnd_init(&q);
      if (p->tok.kind != PTX_TOK_WORD) return ptx_error_tok(p, &p->tok, "expected a predicate after '|'");
      const ptx_token qt = p->tok;
      if (!name_operand(p, c, &q, slot, in_pool)) return false;
      if (q.kind != PTX_OPND_REG || q.rclass != PTX_RC_PRED)
        return ptx_error_tok(p, &qt, "the second half of 'd|p' must be a predicate register");
      o->flags |= PTX_OPND_PAIR;
      o->pair = q.index;
    } else if (o->kind == PTX_OPND_SINK && ptx_is_punct(&p->tok, '|')) {
      ptx_next(p);
      ptx_operand q;
      opnd_init(&q);
      const ptx_token qt = p->tok;
      if (p->tok.kind != PTX_TOK_WORD || !name_operand(p, c, &q, slot, in_pool)) {
        if (!p->failed) ptx_error_tok(p, &qt, "expected a predicate after '|'");
        return false;
      }
      if (q.kind != PTX_OPND_REG || q.rclass != PTX_RC_PRED)
        return ptx_error_tok(p, &qt, "the second half of 'd|p' must be a predicate register");
      o->flags |= PTX_OPND_PAIR;
      o->pair = q.index;
    }
    return true;
  }
  if (t->kind == PTX_TOK_NUMBER || ptx_is_punct(t, '-') || ptx_is_punct(t, '(') || ptx_is_punct(t, '~') ||
      ptx_is_punct(t, '+'))
    return immediate_operand(p, o);
  if (p->failed) return false;
  char buf[80];
  return ptx_error_tok(p, t, "expected an operand, found %s", tok_desc(t, buf, sizeof buf));
}

static bool push_op(ptx_parser *p, insn_ctx *c, const ptx_operand *o) {
  if (c->in.nops >= PTX_MAX_OPERANDS)
    return ptx_error_tok(p, &c->optok, "too many operands for %s", ptx_opcode_name((ptx_opcode)c->in.opcode));
  c->in.ops[c->in.nops++] = *o;
  return true;
}

/* ( a, b, … ) of a call -> LIST in the operand pool */
static bool list_operand(ptx_parser *p, insn_ctx *c, ptx_operand *o) {
  const ptx_token open = p->tok;
  ptx_next(p);
  ptx_operand elems[64];
  uint32_t n = 0;
  if (!ptx_is_punct(&p->tok, ')')) {
    for (;;) {
      if (n >= 64) return ptx_error_tok(p, &open, "call has more than 64 parameters");
      opnd_init(&elems[n]);
      if (!parse_operand(p, c, &elems[n], 0, false, 1)) return false;
      if (elems[n].kind == PTX_OPND_VEC || elems[n].kind == PTX_OPND_LIST || elems[n].kind == PTX_OPND_ADDR)
        return ptx_error_tok(p, &open, "a call parameter is a .param variable, register or constant");
      n++;
      if (!ptx_accept(p, ',')) break;
    }
  }
  if (!ptx_expect(p, ')', "to close the parameter list")) return false;
  opnd_init(o);
  o->kind = PTX_OPND_LIST;
  o->count = (uint8_t)n;
  o->index = ptx_add_operands(p, elems, n);
  return !p->failed;
}

/* call (rets), target, (args)[, proto] — every form normalised to LIST, FUNC|REG, LIST[, PROTO] */
static bool call_operands(ptx_parser *p, insn_ctx *c) {
  ptx_operand rets, target, args, proto;
  opnd_init(&rets);
  rets.kind = PTX_OPND_LIST;
  rets.index = p->opnds.n;
  opnd_init(&args);
  args.kind = PTX_OPND_LIST;
  args.index = p->opnds.n;
  if (ptx_is_punct(&p->tok, '(')) {
    if (!list_operand(p, c, &rets)) return false;
    if (!ptx_expect(p, ',', "after the return parameters of call")) return false;
  }
  opnd_init(&target);
  const ptx_token tt = p->tok;
  if (tt.kind != PTX_TOK_WORD) return ptx_error_tok(p, &tt, "expected the called function");
  if (!name_operand(p, c, &target, 1, false)) return false;
  if (target.kind != PTX_OPND_FUNC && !(target.kind == PTX_OPND_REG && target.rclass != PTX_RC_PRED))
    return ptx_error_tok(p, &tt, "'%.*s' is not a function or a register holding one", (int)(tt.len > 60 ? 60 : tt.len), tt.s);
  bool have_proto = false;
  if (ptx_accept(p, ',')) {
    if (ptx_is_punct(&p->tok, '(')) {
      if (!list_operand(p, c, &args)) return false;
      if (ptx_accept(p, ',')) have_proto = true;
    } else {
      have_proto = true;
    }
  }
  if (have_proto) {
    const ptx_token pt = p->tok;
    opnd_init(&proto);
    if (pt.kind != PTX_TOK_WORD || !name_operand(p, c, &proto, 3, false)) {
      if (!p->failed) ptx_error_tok(p, &pt, "expected a .callprototype or .calltargets label");
      return false;
    }
    if (proto.kind != PTX_OPND_PROTO && proto.kind != PTX_OPND_LIST)
      return ptx_error_tok(p, &pt, "'%.*s' is not a .callprototype or .calltargets", (int)(pt.len > 60 ? 60 : pt.len), pt.s);
  }
  if (target.kind == PTX_OPND_REG && !have_proto)
    return ptx_error_tok(p, &tt, "an indirect call needs a .callprototype or .calltargets operand");
  c->in.ops[0] = rets;
  c->in.ops[1] = target;
  c->in.ops[2] = args;
  c->in.nops = 3;
  if (have_proto) c->in.ops[c->in.nops++] = proto;
  return true;
}

/* ---- immediates in floating-point instructions ----------------------------------------------- */

static bool float_source_op(ptx_opcode op) {
  switch (op) {
  case PTX_OP_ADD: case PTX_OP_SUB: case PTX_OP_MUL: case PTX_OP_FMA: case PTX_OP_MAD: case PTX_OP_DIV:
  case PTX_OP_MIN: case PTX_OP_MAX: case PTX_OP_ABS: case PTX_OP_NEG: case PTX_OP_MOV: case PTX_OP_SETP:
  case PTX_OP_SET: case PTX_OP_SELP: case PTX_OP_RCP: case PTX_OP_SQRT: case PTX_OP_RSQRT: case PTX_OP_SIN:
  case PTX_OP_COS: case PTX_OP_EX2: case PTX_OP_LG2: case PTX_OP_TANH: case PTX_OP_COPYSIGN: case PTX_OP_CVT:
  case PTX_OP_TESTP: case PTX_OP_ATOM: case PTX_OP_RED: case PTX_OP_ST:
    return true;
  default: return false;
  }
}

/* Brings an immediate to the bits of float type t (f32/f64): PTX ISA §4.5.2 — decimal and 0d
 * literals are double and are converted to the instruction type; integers are values. */
static void coerce_float_imm(ptx_operand *o, ptx_type t) {
  if (o->kind != PTX_OPND_IMM) return;
  if (t == PTX_TYPE_F32) {
    float f;
    if (o->flags & PTX_OPND_IMM_F32) return;
    if (o->flags & PTX_OPND_IMM_F64) {
      double d;
      uint64_t b = (uint64_t)o->value;
      memcpy(&d, &b, sizeof d);
      f = (float)d;
    } else {
      f = (float)o->value;
    }
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    o->value = bits;
    o->flags = (uint8_t)((o->flags & ~PTX_OPND_IMM_F64) | PTX_OPND_IMM_F32);
  } else if (t == PTX_TYPE_F64) {
    double d;
    if (o->flags & PTX_OPND_IMM_F64) return;
    if (o->flags & PTX_OPND_IMM_F32) {
      float f;
      uint32_t b = (uint32_t)o->value;
      memcpy(&f, &b, sizeof f);
      d = f;
    } else {
      d = (double)o->value;
    }
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    o->value = (int64_t)bits;
    o->flags = (uint8_t)((o->flags & ~PTX_OPND_IMM_F32) | PTX_OPND_IMM_F64);
  }
}

static void coerce_immediates(ptx_parser *p, ptx_insn *in) {
  const ptx_opcode op = (ptx_opcode)in->opcode;
  if (!float_source_op(op)) return;
  ptx_type st = (ptx_type)((op == PTX_OP_CVT || op == PTX_OP_SET) ? in->type2 : in->type);
  if (st != PTX_TYPE_F32 && st != PTX_TYPE_F64) return;
  uint32_t first = ptx_insn_has_dest(in) ? 1 : 0;
  uint32_t last = in->nops;
  if (op == PTX_OP_SELP) last = 3; /* c is a predicate */
  for (uint32_t i = first; i < last; i++) {
    ptx_operand *o = &in->ops[i];
    if (o->kind == PTX_OPND_IMM) coerce_float_imm(o, st);
    else if (o->kind == PTX_OPND_VEC)
      for (uint32_t k = 0; k < o->count && (uint64_t)o->index + k < p->opnds.n; k++)
        coerce_float_imm(&p->opnds.v[o->index + k], st);
  }
}

/* ---- the instruction ------------------------------------------------------------------------- */

bool ptx_parse_instruction(ptx_parser *p) {
  insn_ctx c;
  memset(&c, 0, sizeof c);
  ptx_insn *in = &c.in;
  in->guard = PTX_NONE;
  in->reconverge = PTX_NONE;
  in->vec = 1;
  in->function = p->fn;
  in->ptx_line = p->tok.line;
  in->ptx_column = (uint16_t)(p->tok.col > UINT16_MAX ? UINT16_MAX : p->tok.col);
  in->loc_file = p->loc_file;
  in->loc_line = p->loc_line;
  c.insn_index = p->insns.n;

  if (ptx_accept(p, '@')) {
    bool neg = ptx_accept(p, '!');
    const ptx_token g = p->tok;
    ptx_binding tmp;
    const ptx_binding *b = g.kind == PTX_TOK_WORD ? ptx_lookup(p, g.s, g.len, &tmp) : NULL;
    if (!b || b->kind != PTX_BIND_REG || b->rclass != PTX_RC_PRED) {
      if (p->failed) return false;
      char buf[80];
      return ptx_error_tok(p, &g, "guard %s is not a predicate register", tok_desc(&g, buf, sizeof buf));
    }
    in->guard = b->index;
    in->guard_neg = neg;
    ptx_next(p);
  }
  c.optok = p->tok;
  if (p->tok.kind != PTX_TOK_WORD || p->tok.s[0] == '.' || p->tok.s[0] == '%') {
    if (p->failed) return false;
    char buf[80];
    return ptx_error_tok(p, &p->tok, "expected an instruction, found %s", tok_desc(&p->tok, buf, sizeof buf));
  }
  if (c.optok.line != in->ptx_line) { /* the guard was on an earlier line: name the opcode's place */
    in->ptx_line = c.optok.line;
    in->ptx_column = (uint16_t)(c.optok.col > UINT16_MAX ? UINT16_MAX : c.optok.col);
  }

  /* opcode: the longest dotted prefix (up to three components) that names an opcode */
  const char *w = c.optok.s;
  const uint32_t wl = c.optok.len;
  uint32_t ends[4], ne = 0; /* lengths of the 1- to 4-component prefixes */
  for (uint32_t i = 0; i < wl && ne < 4; i++)
    if (w[i] == '.') ends[ne++] = i;
  if (ne < 4) ends[ne++] = wl;
  const ptx_name_slot *os = NULL;
  uint32_t oplen = 0;
  for (int k = (int)ne - 1; k >= 0 && !os; k--) {
    os = table_find(&p->opcodes, w, ends[k]);
    if (os) oplen = ends[k];
  }
  if (!os) {
    uint32_t l = ends[0];
    return ptx_error_tok(p, &c.optok, "unknown instruction '%.*s'", (int)(l > 60 ? 60 : l), w);
  }
  in->opcode = (uint16_t)os->b.index;
  const ptx_opcode op = (ptx_opcode)in->opcode;

  /* modifiers */
  uint32_t i = oplen;
  while (i < wl) {
    if (w[i] != '.') return ptx_error_tok(p, &c.optok, "malformed instruction name '%.*s'", (int)(wl > 60 ? 60 : wl), w);
    uint32_t s = ++i;
    while (i < wl && w[i] != '.') i++;
    if (i == s) return ptx_error_tok(p, &c.optok, "empty modifier in '%.*s'", (int)(wl > 60 ? 60 : wl), w);
    if (!apply_modifier(p, &c, w + s, i - s)) return false;
  }
  if (c.bar_red) return ptx_error_tok(p, &c.optok, "bar.red needs .popc, .and or .or");
  if ((op == PTX_OP_BAR || op == PTX_OP_BARRIER) && !in->sub_op) in->sub_op = PTX_BAR_SYNC;
  if (op == PTX_OP_CP_ASYNC && !in->sub_op) in->sub_op = PTX_CP_ASYNC_COPY;
  if (op == PTX_OP_MBARRIER && !in->sub_op) return ptx_error_tok(p, &c.optok, "mbarrier needs an operation (.init, .arrive …)");
  if (op == PTX_OP_GRIDDEPCONTROL && !in->sub_op) return ptx_error_tok(p, &c.optok, "griddepcontrol needs .launch_dependents or .wait");
  if ((op == PTX_OP_ATOM || op == PTX_OP_RED) && !in->sub_op) return ptx_error_tok(p, &c.optok, "%s needs an operation (.add, .cas …)", ptx_opcode_name(op));
  if (op == PTX_OP_SHFL && !in->sub_op) return ptx_error_tok(p, &c.optok, "shfl needs a mode (.up, .down, .bfly, .idx)");
  if (op == PTX_OP_VOTE && !in->sub_op) return ptx_error_tok(p, &c.optok, "vote needs a mode (.all, .any, .uni, .ballot)");
  if ((op == PTX_OP_SETP || op == PTX_OP_SET) && !in->cmp) return ptx_error_tok(p, &c.optok, "%s needs a comparison", ptx_opcode_name(op));
  assign_types(&c);
  switch (op) { /* memory operations without a state space use generic addressing */
  case PTX_OP_LD: case PTX_OP_ST: case PTX_OP_ATOM: case PTX_OP_RED: case PTX_OP_LDU: case PTX_OP_PREFETCH:
  case PTX_OP_PREFETCHU: case PTX_OP_WMMA_LOAD: case PTX_OP_WMMA_STORE: case PTX_OP_MBARRIER:
  case PTX_OP_LDMATRIX: case PTX_OP_CP_ASYNC: case PTX_OP_STMATRIX: case PTX_OP_MAPA: case PTX_OP_GETCTARANK:
  case PTX_OP_DISCARD: case PTX_OP_APPLYPRIORITY: case PTX_OP_CP_REDUCE_ASYNC_BULK:
    if (!in->space) in->space = PTX_SPACE_GENERIC;
    break;
  default: break;
  }
  ptx_next(p);

  /* operands */
  if (op == PTX_OP_CALL) {
    if (!call_operands(p, &c)) return false;
  } else if (!ptx_is_punct(&p->tok, ';')) {
    for (;;) {
      ptx_operand o, extra;
      bool has_extra = false;
      opnd_init(&o);
      uint32_t slot = in->nops;
      if (op == PTX_OP_WGMMA_MMA_ASYNC && slot == 4) {
        /* wgmma's trailing immediates (imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b) become
         * one VEC operand: ptx_insn keeps PTX_MAX_OPERANDS slots */
        ptx_operand imms[4];
        uint32_t n = 0;
        const ptx_token first = p->tok;
        for (;;) {
          if (n == 4) return ptx_error_tok(p, &first, "wgmma.mma_async takes at most 4 immediates after scale-d");
          opnd_init(&imms[n]);
          if (!parse_operand(p, &c, &imms[n], 0, false, 1)) return false;
          if (imms[n].kind != PTX_OPND_IMM)
            return ptx_error_tok(p, &first, "imm-scale-a, imm-scale-b, imm-trans-a and imm-trans-b are immediates");
          n++;
          if (!ptx_accept(p, ',')) break;
        }
        o.kind = PTX_OPND_VEC;
        o.count = (uint8_t)n;
        o.index = ptx_add_operands(p, imms, n);
        if (!push_op(p, &c, &o)) return false;
        break;
      }
      if (ptx_is_punct(&p->tok, '[')) {
        if (!address_operand(p, &c, &o, &extra, &has_extra, 0)) return false;
      } else if (!parse_operand(p, &c, &o, slot, false, 0)) {
        return false;
      }
      if (!push_op(p, &c, &o)) return false;
      if (has_extra && !push_op(p, &c, &extra)) return false;
      if (!ptx_accept(p, ',')) break;
    }
  }
  if (!p->failed && !ptx_is_punct(&p->tok, ';')) {
    char buf[80];
    return ptx_error_tok(p, &p->tok, "expected ',' or ';' after an operand of %s, found %s", ptx_opcode_name(op),
                         tok_desc(&p->tok, buf, sizeof buf));
  }
  if (!ptx_expect(p, ';', "at the end of the instruction")) return false;

  /* shape checks */
  opcode_shape sh = shape_of(op);
  uint32_t max_ops = sh.max_ops + ((in->mods & PTX_MOD_CACHE_HINT) ? 1 : 0);
  if (in->nops < sh.min_ops || in->nops > max_ops) {
    if (sh.min_ops == max_ops)
      return ptx_error_tok(p, &c.optok, "%s takes %u operand%s, found %u", ptx_opcode_name(op), sh.min_ops,
                           sh.min_ops == 1 ? "" : "s", in->nops);
    return ptx_error_tok(p, &c.optok, "%s takes %u to %u operands, found %u", ptx_opcode_name(op), sh.min_ops,
                         max_ops, in->nops);
  }
  for (uint32_t k = 0; k < in->nops; k++) {
    const ptx_operand *o = &in->ops[k];
    bool is_dest = k == 0 && ptx_insn_has_dest(in);
    if (is_dest && (o->kind == PTX_OPND_IMM || o->kind == PTX_OPND_SREG || o->kind == PTX_OPND_SYMBOL ||
                    o->kind == PTX_OPND_FUNC || (o->flags & PTX_OPND_NEG)))
      return ptx_error_tok(p, &c.optok, "the destination of %s must be a register", ptx_opcode_name(op));
    if (o->kind == PTX_OPND_SINK && !is_dest && op != PTX_OP_MBARRIER)
      return ptx_error_tok(p, &c.optok, "'_' may only stand for a destination");
  }
  switch (op) {
  case PTX_OP_BRA:
    if (in->ops[0].kind != PTX_OPND_LABEL) return ptx_error_tok(p, &c.optok, "bra needs a label");
    break;
  case PTX_OP_BRX:
    if (in->ops[1].kind != PTX_OPND_LIST) return ptx_error_tok(p, &c.optok, "brx.idx needs a .branchtargets list");
    break;
  case PTX_OP_LD: case PTX_OP_LDU: case PTX_OP_ATOM: case PTX_OP_WMMA_LOAD: case PTX_OP_LDMATRIX:
    if (in->ops[1].kind != PTX_OPND_ADDR) return ptx_error_tok(p, &c.optok, "%s needs an address operand [..]", ptx_opcode_name(op));
    break;
  case PTX_OP_ST: case PTX_OP_RED: case PTX_OP_WMMA_STORE:
    if (in->ops[0].kind != PTX_OPND_ADDR) return ptx_error_tok(p, &c.optok, "%s needs an address operand [..] first", ptx_opcode_name(op));
    break;
  case PTX_OP_TEX: case PTX_OP_TLD4: case PTX_OP_SULD:
    if (in->ops[1].kind != PTX_OPND_ADDR || in->nops < 3)
      return ptx_error_tok(p, &c.optok, "%s needs [handle, coordinates]", ptx_opcode_name(op));
    break;
  case PTX_OP_SUST: case PTX_OP_SURED:
    if (in->ops[0].kind != PTX_OPND_ADDR) return ptx_error_tok(p, &c.optok, "%s needs [handle, coordinates] first", ptx_opcode_name(op));
    break;
  default: break;
  }
  if ((op == PTX_OP_LD || op == PTX_OP_ST || op == PTX_OP_LDU) && in->vec > 1) {
    const ptx_operand *v = &in->ops[op == PTX_OP_ST ? 1 : 0];
    if (v->kind != PTX_OPND_VEC || v->count != in->vec)
      return ptx_error_tok(p, &c.optok, "%s.v%u needs a vector of %u elements", ptx_opcode_name(op), in->vec, in->vec);
  }
  coerce_immediates(p, in);
  return ptx_push_insn(p, in);
}
