/* ptx — PTX front end: parses a PTX module once into a pre-decoded program image.
 *
 * Follows the PTX ISA (versions 6.0–9.0, targets sm_50–sm_90, .address_size 64). The output is a
 * read-only ptx_module: functions with dense per-class register numbering, pre-decoded
 * instructions (opcode, types, rounding, modifiers and state space resolved once), a CFG with the
 * immediate post-dominator of every block (the SIMT reconvergence point), variables with their
 * layout and initialisers, and per-function resource use for occupancy. Everything downstream
 * (models/func, the timing models, the driver's module loader) reads this structure and never
 * looks at PTX text again.
 *
 * Errors name file:line:column and the offending text; unknown directives are skipped with a
 * warning through the msg port. No input makes the parser crash.
 *
 * Operand conventions (ops[0] is the destination when the instruction has one; ptx_insn_has_dest
 * says whether it does):
 *   arithmetic/logic     d, a[, b[, c]]           (mad/fma/madc/bfi/prmt/lop3/slct/selp/shf: 3–5 ops;
 *                                                  lop3's immLut and bfi/bfe positions are ordinary ops)
 *   setp                 p[|q], a, b[, c]         dest has PTX_OPND_PAIR when `p|q`; c = combining
 *                                                  predicate (may carry PTX_OPND_NEG) when bool_op != NONE
 *   set                  d, a, b[, c]             same as setp with a value destination
 *   mov                  d, a                     a may be REG, IMM, SREG, SYMBOL (address of a variable
 *                                                  or function), VEC (pack) — or d a VEC (unpack)
 *   cvt                  d, a[, b]                type = destination type, type2 = source type
 *                                                  (b: cvt.*.f16x2.f32 d, a, b packs two sources)
 *   cvta                 d, a                     space = the non-generic space; PTX_MOD_TO when `.to`
 *   ld/ldu               d, [addr][, policy]      d is REG or VEC (vec > 1); ops[1] is ADDR
 *   st                   [addr], a[, policy]      a is REG, IMM or VEC
 *   atom                 d, [addr], b[, c]        sub_op = atomic op; cas has c
 *   red                  [addr], b
 *   bra                  LABEL                    ops[0].index = target instruction (module-wide)
 *   brx.idx              a, LIST of LABELs        (from a `.branchtargets` declaration)
 *   call                 (rets), FUNC|REG, (args)[, PROTO]
 *                        ops[0] LIST of return params (count 0 when none), ops[1] FUNC (direct) or
 *                        REG (indirect), ops[2] LIST of argument params, ops[3] PROTO for indirect
 *                        (or a LIST of FUNC when the call names a `.calltargets` list). LIST elements
 *                        are SYMBOLs of the call block's .param variables (or REG/IMM in old ABIs).
 *   ret / exit / trap / brkpt   no operands
 *   bar/barrier          [a[, b]]                 sub_op = PTX_BAR_*; a = barrier id, b = thread count
 *   bar.red              d, a[, b], c             sub_op = PTX_BAR_RED_*; c = predicate (may be NEG)
 *   bar.warp.sync        membermask
 *   vote                 d, a, membermask         sub_op = PTX_VOTE_*; non-.sync form has no mask
 *   shfl                 d[|p], a, b, c, membermask  sub_op = PTX_SHFL_*; non-.sync form: 4 operands
 *   match                d[|p], a, membermask     sub_op = PTX_MATCH_*
 *   redux                d, a, membermask         sub_op = PTX_REDUX_*
 *   activemask           d
 *   elect                d[|p], membermask
 *   tex/tld4             d(VEC)[|p], TEXADDR      ops[1] ADDR with index (REG: texture object) or
 *                                                  base_sym (.texref) = texture handle, ops[2] VEC
 *                                                  (or REG for 1d) = coordinates, ops[3..] optional
 *                                                  (lod/grad/offset/depth), geom = PTX_GEOM_*
 *   suld                 d(VEC|REG), [surf, coords]  ops[1] handle, ops[2] coordinates
 *   sust/sured           [surf, coords], a        ops[0] handle, ops[1] coordinates, ops[2] value
 *   txq/suq              d, [handle]              sub_op = ptx_txq_query
 *   wmma.load            d(VEC), [addr], stride   sub_op = 'a'/'b'/'c'; geom = shape; PTX_MOD_ROW
 *   wmma.store           [addr], a(VEC), stride   sub_op = 'd'
 *   wmma.mma / mma       d(VEC), a(VEC), b(VEC), c(VEC)
 *                        type = D, type2 = C, type3 = A, type4 = B (f16 forms that name only D and C
 *                        get A = B = f16); PTX_MOD_ROW_A/ROW_B = layouts; geom = shape
 *   wgmma.mma_async      d(VEC), a(REG desc | VEC), b(REG desc), scale-d(PRED | IMM)[, VEC of the
 *                        immediates imm-scale-a, imm-scale-b[, imm-trans-a], imm-trans-b as written]
 *                        type = D, type2 = A, type3 = B; shape m64nNkK: geom = K, vec = N / 8;
 *                        PTX_MOD_SATFINITE.  wgmma.fence / commit_group: no operands;
 *                        wgmma.wait_group N (IMM)
 *   ldmatrix             d(VEC), [addr]           vec = .x1/.x2/.x4; geom = shape; PTX_MOD_TRANS
 *   stmatrix             [addr], a(VEC)           as ldmatrix;  movmatrix d, a (PTX_MOD_TRANS)
 *   mapa                 d, a, cta-rank           space = SHARED_CLUSTER or GENERIC
 *   getctarank           d, a;   istypep p, a;   setmaxnreg N (IMM);   createpolicy d, …
 *   discard/applypriority  [addr], size;         cp.reduce.async.bulk [dst], [src], size[, …]
 *   cp.async             per sub_op (ptx_cp_async_op); space = destination space
 *   mbarrier             per sub_op (ptx_mbarrier_op)
 *   fence / membar       no operands; sem/scope; fence sub_op = ptx_fence_kind
 *   griddepcontrol       no operands; sub_op = ptx_griddep_op
 *   video (vadd, vabsdiff4 …)  d, a, b[, c]  type/type2/type3 = d/a/b types; sub_op = secondary op
 *   dp4a / dp2a          d, a, b, c               type = a's type, type2 = b's type
 * Types fill type, type2, type3, type4 in the order they are written unless said otherwise above.
 * Operand encodings:
 *   REG     index (dense in rclass); `.reg` parameters of a .func are registers too
 *   ADDR    index = base register (class rclass) or PTX_NONE; base_sym = base variable or PTX_NONE;
 *           value = byte offset ([r+imm], [sym+imm]; [imm] has both PTX_NONE)
 *   IMM     integers as int64; float literals as bits with IMM_F32/IMM_F64. In floating-point
 *           instructions (add.f32, mov.f64, setp.lt.f32, st.global.f32 …) every immediate source is
 *           brought to the instruction's float type (so 1.5 or 2 in an .f32 op is IMM_F32 bits)
 *   SYMBOL  index = symbol, value = added offset; PTX_OPND_GENERIC_SYM for generic(sym)
 *   SINK    `_`, only as (part of) a destination
 * Layout (ptx_symbol.offset): .global/.const at module scope (and static ones in functions) in the
 * module's segments; module .shared plus the .shared variables of non-entry functions in the
 * module shared segment; a kernel's own .shared after that segment when the kernel may reach it
 * (through its own references or any callee), from 0 otherwise — so for the running kernel an
 * offset is the CTA-relative shared address, and res.shared_bytes is the static total. `.extern
 * .shared` (dynamic shared memory) has size 0 and offset 0: it starts at
 * align_up(res.shared_bytes, align) of the launched kernel. .local: the function's frame. Kernel
 * parameters: the parameter buffer (CUDA ABI: each aligned to .align or its natural size). .func
 * parameters and returns: two frames of the function, each from 0. Call-block .param variables:
 * the function's call-parameter frame (nested blocks continue after their parent's offsets).
 * A function whose body can fall off its end gets an implicit `ret` (line of the closing brace).
 */
#ifndef SIMTVP_PTX_H
#define SIMTVP_PTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "simtvp_diag.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PTX_NONE UINT32_MAX /* "no register / symbol / target" */

typedef enum ptx_opcode {
#define X(name, spelling) PTX_OP_##name,
#include "ptx_opcodes.def"
#undef X
  PTX_OP_COUNT
} ptx_opcode;

const char *ptx_opcode_name(ptx_opcode op);

typedef enum ptx_type {
  PTX_TYPE_NONE = 0,
  PTX_TYPE_PRED,
  PTX_TYPE_B8, PTX_TYPE_B16, PTX_TYPE_B32, PTX_TYPE_B64, PTX_TYPE_B128,
  PTX_TYPE_U8, PTX_TYPE_U16, PTX_TYPE_U32, PTX_TYPE_U64,
  PTX_TYPE_S8, PTX_TYPE_S16, PTX_TYPE_S32, PTX_TYPE_S64,
  PTX_TYPE_F16, PTX_TYPE_F16X2, PTX_TYPE_BF16, PTX_TYPE_BF16X2, PTX_TYPE_TF32,
  PTX_TYPE_F32, PTX_TYPE_F64,
  PTX_TYPE_E4M3, PTX_TYPE_E5M2, PTX_TYPE_E4M3X2, PTX_TYPE_E5M2X2,
  PTX_TYPE_S4, PTX_TYPE_U4, PTX_TYPE_B1, /* sub-byte wmma/mma element types */
  PTX_TYPE_COUNT
} ptx_type;

uint32_t ptx_type_bytes(ptx_type t); /* storage size; 0 for NONE/PRED; sub-byte types report 1 */
bool ptx_type_is_float(ptx_type t);  /* f16..f64 incl. packed and fp8 */
bool ptx_type_is_signed(ptx_type t); /* s8..s64 */
const char *ptx_type_name(ptx_type t);

/* State spaces. GENERIC = no qualifier (address resolved through the generic windows). */
typedef enum ptx_space {
  PTX_SPACE_NONE = 0,
  PTX_SPACE_GENERIC,
  PTX_SPACE_GLOBAL,
  PTX_SPACE_SHARED,        /* .shared and .shared::cta */
  PTX_SPACE_SHARED_CLUSTER,/* .shared::cluster */
  PTX_SPACE_LOCAL,
  PTX_SPACE_CONST,
  PTX_SPACE_PARAM,         /* kernel parameters, function parameters, call-site parameters */
  PTX_SPACE_TEX,
  PTX_SPACE_REG,
  PTX_SPACE_COUNT
} ptx_space;
const char *ptx_space_name(ptx_space s);

/* Register classes: every virtual register lives in one; indices are dense within a class.
 * 8/16/32-bit registers share B32 storage (zero-extended), 64-bit ones B64, predicates PRED. */
typedef enum ptx_reg_class { PTX_RC_PRED = 0, PTX_RC_B32, PTX_RC_B64, PTX_RC_B128, PTX_RC_COUNT } ptx_reg_class;

typedef enum ptx_rounding {
  PTX_RND_NONE = 0,
  PTX_RND_RN, PTX_RND_RZ, PTX_RND_RM, PTX_RND_RP, PTX_RND_RNA, PTX_RND_RS, /* float rounding */
  PTX_RND_RNI, PTX_RND_RZI, PTX_RND_RMI, PTX_RND_RPI                      /* round to integer */
} ptx_rounding;

typedef enum ptx_cmp {
  PTX_CMP_NONE = 0,
  PTX_CMP_EQ, PTX_CMP_NE, PTX_CMP_LT, PTX_CMP_LE, PTX_CMP_GT, PTX_CMP_GE,
  PTX_CMP_LO, PTX_CMP_LS, PTX_CMP_HI, PTX_CMP_HS,
  PTX_CMP_EQU, PTX_CMP_NEU, PTX_CMP_LTU, PTX_CMP_LEU, PTX_CMP_GTU, PTX_CMP_GEU,
  PTX_CMP_NUM, PTX_CMP_NAN
} ptx_cmp;

typedef enum ptx_bool_op { PTX_BOOL_NONE = 0, PTX_BOOL_AND, PTX_BOOL_OR, PTX_BOOL_XOR } ptx_bool_op;

/* Memory-consistency qualifiers of ld/st/atom/red/fence. */
typedef enum ptx_sem {
  PTX_SEM_NONE = 0, /* weak (plain) */
  PTX_SEM_VOLATILE, PTX_SEM_RELAXED, PTX_SEM_ACQUIRE, PTX_SEM_RELEASE, PTX_SEM_ACQ_REL, PTX_SEM_SC,
  PTX_SEM_MMIO
} ptx_sem;
typedef enum ptx_scope {
  PTX_SCOPE_NONE = 0, PTX_SCOPE_CTA, PTX_SCOPE_CLUSTER, PTX_SCOPE_GPU, PTX_SCOPE_SYS
} ptx_scope;
typedef enum ptx_cache_op {
  PTX_CACHE_NONE = 0, PTX_CACHE_CA, PTX_CACHE_CG, PTX_CACHE_CS, PTX_CACHE_LU, PTX_CACHE_CV,
  PTX_CACHE_WB, PTX_CACHE_WT
} ptx_cache_op;

/* sub_op values, by opcode. */
typedef enum ptx_atom_op {
  PTX_ATOM_NONE = 0, PTX_ATOM_AND, PTX_ATOM_OR, PTX_ATOM_XOR, PTX_ATOM_CAS, PTX_ATOM_EXCH,
  PTX_ATOM_ADD, PTX_ATOM_INC, PTX_ATOM_DEC, PTX_ATOM_MIN, PTX_ATOM_MAX
} ptx_atom_op;
typedef enum ptx_shfl_mode { PTX_SHFL_UP = 1, PTX_SHFL_DOWN, PTX_SHFL_BFLY, PTX_SHFL_IDX } ptx_shfl_mode;
typedef enum ptx_vote_mode { PTX_VOTE_ALL = 1, PTX_VOTE_ANY, PTX_VOTE_UNI, PTX_VOTE_BALLOT } ptx_vote_mode;
typedef enum ptx_bar_mode {
  PTX_BAR_SYNC = 1, PTX_BAR_ARRIVE, PTX_BAR_RED_POPC, PTX_BAR_RED_AND, PTX_BAR_RED_OR,
  PTX_BAR_WAIT /* barrier.cluster.wait */
} ptx_bar_mode;
typedef enum ptx_match_mode { PTX_MATCH_ANY = 1, PTX_MATCH_ALL } ptx_match_mode;
typedef enum ptx_redux_op {
  PTX_REDUX_ADD = 1, PTX_REDUX_MIN, PTX_REDUX_MAX, PTX_REDUX_AND, PTX_REDUX_OR, PTX_REDUX_XOR
} ptx_redux_op;
typedef enum ptx_prmt_mode {
  PTX_PRMT_DEFAULT = 0, PTX_PRMT_F4E, PTX_PRMT_B4E, PTX_PRMT_RC8, PTX_PRMT_ECL, PTX_PRMT_ECR,
  PTX_PRMT_RC16
} ptx_prmt_mode;
typedef enum ptx_testp_kind {
  PTX_TESTP_FINITE = 1, PTX_TESTP_INFINITE, PTX_TESTP_NUMBER, PTX_TESTP_NOTANUMBER,
  PTX_TESTP_NORMAL, PTX_TESTP_SUBNORMAL
} ptx_testp_kind;
typedef enum ptx_surf_clamp { PTX_SURF_TRAP = 0, PTX_SURF_CLAMP, PTX_SURF_ZERO } ptx_surf_clamp;
typedef enum ptx_video_op { PTX_VIDEO_NONE = 0, PTX_VIDEO_ADD, PTX_VIDEO_MIN, PTX_VIDEO_MAX } ptx_video_op;
typedef enum ptx_cp_async_op {
  PTX_CP_ASYNC_COPY = 1,          /* cp.async.{ca,cg}.shared.global [dst], [src], size[, src-size] */
  PTX_CP_ASYNC_COMMIT_GROUP,      /* cp.async.commit_group */
  PTX_CP_ASYNC_WAIT_GROUP,        /* cp.async.wait_group N (ops[0] IMM) */
  PTX_CP_ASYNC_WAIT_ALL,          /* cp.async.wait_all */
  PTX_CP_ASYNC_MBARRIER_ARRIVE,   /* cp.async.mbarrier.arrive[.noinc] [mbar] */
  PTX_CP_ASYNC_BULK,              /* cp.async.bulk.<dst>.<src>…: [dst], [src], size[, [mbar]][, ctaMask]
                                     (the ::-qualifiers that change nothing are dropped) */
  /* added after the first release */
  PTX_CP_ASYNC_BULK_COMMIT_GROUP, /* cp.async.bulk.commit_group */
  PTX_CP_ASYNC_BULK_WAIT_GROUP,   /* cp.async.bulk.wait_group[.read] N (PTX_MOD_READ) */
  PTX_CP_ASYNC_BULK_PREFETCH,     /* cp.async.bulk.prefetch[.tensor].L2.global … */
  PTX_CP_ASYNC_BULK_TENSOR        /* cp.async.bulk.tensor.Nd…: global -> shared: [dst], [tmap, {coords}],
                                     [mbar][, ctaMask]; shared -> global: [tmap, {coords}], [src] */
} ptx_cp_async_op;
typedef enum ptx_mbarrier_op {
  PTX_MBAR_INIT = 1,   /* [addr], count */
  PTX_MBAR_INVAL,      /* [addr] */
  PTX_MBAR_ARRIVE,     /* state, [addr][, count]  (state may be SINK) */
  PTX_MBAR_ARRIVE_DROP,/* state, [addr][, count] */
  PTX_MBAR_TEST_WAIT,  /* p, [addr], state|phase */
  PTX_MBAR_TRY_WAIT,   /* p, [addr], state|phase[, suspend-hint] */
  PTX_MBAR_PENDING_COUNT, /* d, state */
  PTX_MBAR_EXPECT_TX,  /* [addr], tx-count */
  PTX_MBAR_COMPLETE_TX /* [addr], tx-count */
} ptx_mbarrier_op;
typedef enum ptx_griddep_op { PTX_GRIDDEP_LAUNCH_DEPENDENTS = 1, PTX_GRIDDEP_WAIT } ptx_griddep_op;
typedef enum ptx_fence_kind { /* fence sub_op; 0 = plain fence.{sc,acq_rel}.scope */
  PTX_FENCE_PLAIN = 0, PTX_FENCE_PROXY_ALIAS, PTX_FENCE_PROXY_ASYNC, PTX_FENCE_PROXY_OTHER,
  PTX_FENCE_MBARRIER_INIT
} ptx_fence_kind;
typedef enum ptx_txq_query { /* txq/suq sub_op */
  PTX_TXQ_WIDTH = 1, PTX_TXQ_HEIGHT, PTX_TXQ_DEPTH, PTX_TXQ_CHANNEL_DATA_TYPE, PTX_TXQ_CHANNEL_ORDER,
  PTX_TXQ_NORMALIZED_COORDS, PTX_TXQ_FILTER_MODE, PTX_TXQ_ADDR_MODE_0, PTX_TXQ_ADDR_MODE_1,
  PTX_TXQ_ADDR_MODE_2, PTX_TXQ_NUM_MIPMAP_LEVELS, PTX_TXQ_NUM_SAMPLES, PTX_TXQ_ARRAY_SIZE,
  PTX_TXQ_FORCE_UNNORMALIZED_COORDS, PTX_TXQ_MEMORY_LAYOUT
} ptx_txq_query;
/* cp.async and cp.reduce.async.bulk: space = destination state space, geom = source state space
 * (PTX_SPACE_NONE when not written), vec = tensor dimensions of the .tensor forms (1-5). */
/* Further sub_op meanings: tld4 = component 'r','g','b','a'; wmma.load/store = fragment 'a'..'d';
 * prefetch/prefetchu = cache level 1 or 2; pmevent = 1 for pmevent.mask; elect/activemask: 0;
 * setmaxnreg = 1 .inc, 2 .dec; createpolicy = 1 .fractional, 2 .range, 3 .cvt; istypep = 1
 * .texref, 2 .samplerref, 3 .surfref; cp.reduce.async.bulk = ptx_atom_op of the reduction. */
/* cvta / isspacep / membar use `space` and `scope`; testp uses ptx_testp_kind; prmt ptx_prmt_mode;
 * sust/suld ptx_surf_clamp; video instructions (vabsdiff4 …) ptx_video_op for the secondary op. */

/* Texture / surface geometry (tex, tld4, suld, sust, txq). */
typedef enum ptx_geom {
  PTX_GEOM_NONE = 0, PTX_GEOM_1D, PTX_GEOM_2D, PTX_GEOM_3D, PTX_GEOM_A1D, PTX_GEOM_A2D,
  PTX_GEOM_CUBE, PTX_GEOM_ACUBE, PTX_GEOM_2DMS, PTX_GEOM_A2DMS
} ptx_geom;

/* Boolean modifiers (ptx_insn.mods, 64-bit). */
#define PTX_MOD_FTZ            (1ull << 0)
#define PTX_MOD_SAT            (1ull << 1)
#define PTX_MOD_APPROX         (1ull << 2)
#define PTX_MOD_FULL           (1ull << 3)
#define PTX_MOD_HI             (1ull << 4)
#define PTX_MOD_LO             (1ull << 5)
#define PTX_MOD_WIDE           (1ull << 6)
#define PTX_MOD_CC             (1ull << 7) /* writes the carry flag (add.cc, mad.lo.cc …) */
#define PTX_MOD_UNI            (1ull << 8) /* bra.uni / call.uni / ret.uni */
#define PTX_MOD_NC             (1ull << 9) /* ld.global.nc */
#define PTX_MOD_SYNC           (1ull << 10) /* vote.sync, shfl.sync, bar.sync-style warp sync */
#define PTX_MOD_ALIGNED        (1ull << 11) /* barrier.sync.aligned, wmma .aligned */
#define PTX_MOD_CLAMP          (1ull << 12) /* shf.clamp, bmsk.clamp */
#define PTX_MOD_WRAP           (1ull << 13) /* shf.wrap, bmsk.wrap */
#define PTX_MOD_SHIFTAMT       (1ull << 14) /* bfind.shiftamt */
#define PTX_MOD_TO             (1ull << 15) /* cvta.to.<space> */
#define PTX_MOD_NAN            (1ull << 16) /* min.NaN / max.NaN */
#define PTX_MOD_XORSIGN        (1ull << 17)
#define PTX_MOD_ABS            (1ull << 18) /* .abs on min/max */
#define PTX_MOD_RELU           (1ull << 19) /* fma.relu, cvt.relu */
#define PTX_MOD_NOFTZ          (1ull << 20)
#define PTX_MOD_LEFT           (1ull << 21) /* shf.l (clear = shf.r) */
#define PTX_MOD_NORETURN       (1ull << 22)
#define PTX_MOD_NORMALIZED     (1ull << 24) /* tex with normalised coordinates requested in the instruction */
#define PTX_MOD_LEVEL          (1ull << 25) /* tex.level */
#define PTX_MOD_GRAD           (1ull << 26) /* tex.grad */
#define PTX_MOD_BASE           (1ull << 27) /* tex.base */
#define PTX_MOD_ROW_A          (1ull << 28) /* wmma/mma layout of A is row-major (clear = col) */
#define PTX_MOD_ROW_B          (1ull << 29) /* wmma/mma layout of B is row-major */
#define PTX_MOD_SATFINITE      (1ull << 30)
/* added after the first release */
#define PTX_MOD_ROW            (1ull << 31) /* wmma.load/store, ldmatrix: the fragment's layout is
                                               row-major (clear = col) */
#define PTX_MOD_TRANS          (1ull << 32) /* ldmatrix.trans, movmatrix.trans */
#define PTX_MOD_FORMATTED      (1ull << 33) /* suld.p / sust.p (clear = .b, raw bits) */
#define PTX_MOD_PARITY         (1ull << 34) /* mbarrier.test_wait/try_wait.parity */
#define PTX_MOD_NOINC          (1ull << 35) /* cp.async.mbarrier.arrive.noinc */
#define PTX_MOD_EXPECT_TX      (1ull << 36) /* mbarrier.arrive.expect_tx */
#define PTX_MOD_NOCOMPLETE     (1ull << 37) /* mbarrier.arrive.noComplete */
#define PTX_MOD_CACHE_HINT     (1ull << 38) /* .L2::cache_hint: the last operand is the cache policy */
#define PTX_MOD_UNIFIED        (1ull << 39) /* ld.unified / .unified address */
#define PTX_MOD_POPC           (1ull << 40) /* mma/wmma .b1 … .popc */
#define PTX_MOD_LEVEL_QUERY    (1ull << 41) /* txq.level */
#define PTX_MOD_MULTICAST      (1ull << 42) /* cp.async.bulk….multicast::cluster: a ctaMask operand */
#define PTX_MOD_IM2COL         (1ull << 43) /* cp.async.bulk.tensor….im2col (clear = .tile) */
#define PTX_MOD_READ           (1ull << 44) /* cp.async.bulk.wait_group.read */
#define PTX_MOD_TENSOR         (1ull << 45) /* cp.async.bulk.tensor / cp.reduce.async.bulk.tensor */

typedef enum ptx_sreg {
  PTX_SREG_NONE = 0,
  PTX_SREG_TID_X, PTX_SREG_TID_Y, PTX_SREG_TID_Z,
  PTX_SREG_NTID_X, PTX_SREG_NTID_Y, PTX_SREG_NTID_Z,
  PTX_SREG_CTAID_X, PTX_SREG_CTAID_Y, PTX_SREG_CTAID_Z,
  PTX_SREG_NCTAID_X, PTX_SREG_NCTAID_Y, PTX_SREG_NCTAID_Z,
  PTX_SREG_LANEID, PTX_SREG_WARPID, PTX_SREG_NWARPID, PTX_SREG_SMID, PTX_SREG_NSMID,
  PTX_SREG_GRIDID,
  PTX_SREG_LANEMASK_EQ, PTX_SREG_LANEMASK_LE, PTX_SREG_LANEMASK_LT, PTX_SREG_LANEMASK_GE,
  PTX_SREG_LANEMASK_GT,
  PTX_SREG_CLOCK, PTX_SREG_CLOCK_HI, PTX_SREG_CLOCK64,
  PTX_SREG_GLOBALTIMER, PTX_SREG_GLOBALTIMER_LO, PTX_SREG_GLOBALTIMER_HI,
  PTX_SREG_DYNAMIC_SMEM_SIZE, PTX_SREG_TOTAL_SMEM_SIZE, PTX_SREG_AGGR_SMEM_SIZE,
  PTX_SREG_PM0, /* PM0..PM7 follow */
  PTX_SREG_ENVREG0 = PTX_SREG_PM0 + 8, /* ENVREG0..ENVREG31 follow */
  /* added after the first release (values after ENVREG31, so the ones above keep theirs) */
  PTX_SREG_CLUSTERID_X = PTX_SREG_ENVREG0 + 32, PTX_SREG_CLUSTERID_Y, PTX_SREG_CLUSTERID_Z,
  PTX_SREG_NCLUSTERID_X, PTX_SREG_NCLUSTERID_Y, PTX_SREG_NCLUSTERID_Z,
  PTX_SREG_CLUSTER_CTAID_X, PTX_SREG_CLUSTER_CTAID_Y, PTX_SREG_CLUSTER_CTAID_Z,
  PTX_SREG_CLUSTER_NCTAID_X, PTX_SREG_CLUSTER_NCTAID_Y, PTX_SREG_CLUSTER_NCTAID_Z,
  PTX_SREG_CLUSTER_CTARANK, PTX_SREG_CLUSTER_NCTARANK, PTX_SREG_IS_EXPLICIT_CLUSTER,
  PTX_SREG_RESERVED_SMEM_OFFSET_BEGIN, PTX_SREG_RESERVED_SMEM_OFFSET_END,
  PTX_SREG_RESERVED_SMEM_OFFSET_CAP, PTX_SREG_CURRENT_GRAPH_EXEC,
  PTX_SREG_COUNT
} ptx_sreg;
const char *ptx_sreg_name(ptx_sreg s);

typedef enum ptx_operand_kind {
  PTX_OPND_NONE = 0,
  PTX_OPND_REG,    /* index = register index in class rclass */
  PTX_OPND_IMM,    /* value = integer, or float bits when flags has IMM_F32/IMM_F64 */
  PTX_OPND_SREG,   /* index = ptx_sreg */
  PTX_OPND_ADDR,   /* [base_reg + value] or [base_sym + value] or [value] */
  PTX_OPND_VEC,    /* {a, b, …}: count operands starting at module opnd_pool[index] */
  PTX_OPND_LIST,   /* (a, b, …) of a call or brx: count operands at opnd_pool[index] */
  PTX_OPND_LABEL,  /* index = target instruction (module-wide index) */
  PTX_OPND_FUNC,   /* index = function index (address-of-function as a value, or call target) */
  PTX_OPND_SYMBOL, /* index = symbol index; value = byte offset (sym+off); address as a value */
  PTX_OPND_PROTO,  /* index = prototype (a ptx_function with PTX_FN_PROTOTYPE) */
  PTX_OPND_SINK    /* `_` in a vector or destination */
} ptx_operand_kind;

enum {
  PTX_OPND_NEG = 1u << 0,     /* !p as a source predicate */
  PTX_OPND_PAIR = 1u << 1,    /* destination `d|p`: pair = predicate register index */
  PTX_OPND_IMM_F32 = 1u << 2, /* value holds IEEE single bits (0fXXXXXXXX) */
  PTX_OPND_IMM_F64 = 1u << 3, /* value holds IEEE double bits (0dXXXX… or a decimal literal) */
  PTX_OPND_GENERIC_SYM = 1u << 4 /* generic(sym) in an initialiser or operand */
};

typedef struct ptx_operand {
  uint8_t kind;     /* ptx_operand_kind */
  uint8_t rclass;   /* REG, and ADDR's base register: ptx_reg_class */
  uint8_t flags;    /* PTX_OPND_* */
  uint8_t count;    /* VEC / LIST element count */
  uint32_t index;   /* meaning by kind, see ptx_operand_kind */
  uint32_t pair;    /* PAIR: predicate register index */
  uint32_t base_sym;/* ADDR: symbol index or PTX_NONE */
  int64_t value;    /* IMM value / ADDR or SYMBOL byte offset */
} ptx_operand;

#define PTX_MAX_OPERANDS 6

typedef struct ptx_insn {
  uint16_t opcode;   /* ptx_opcode */
  uint8_t type;      /* primary type: the operation type; cvt/set/slct: destination type */
  uint8_t type2;     /* secondary: cvt/set/slct source type, tex coordinate type, mma C type … */
  uint8_t type3;     /* third: mma/wmma/dp4a further types, else NONE */
  uint8_t space;     /* ptx_space for memory ops, cvta, isspacep */
  uint8_t rounding;  /* ptx_rounding */
  uint8_t cmp;       /* ptx_cmp (setp, set, slct … ) */
  uint8_t bool_op;   /* ptx_bool_op (setp/set combine) */
  uint8_t vec;       /* .v2/.v4 element count, 1 otherwise */
  uint8_t sub_op;    /* opcode-specific: ptx_atom_op, ptx_shfl_mode, ptx_vote_mode, ptx_bar_mode … */
  uint8_t sem;       /* ptx_sem */
  uint8_t scope;     /* ptx_scope */
  uint8_t cache_op;  /* ptx_cache_op */
  uint8_t geom;      /* ptx_geom for tex/surf; wmma: ptx_wmma_shape */
  uint8_t nops;      /* number of operands used in ops[] */
  uint8_t guard_neg; /* 1 when the guard is @!p */
  uint8_t type4;     /* fourth: mma/wmma B type, else NONE (was pad_) */
  uint32_t guard;    /* predicate register guarding the instruction, or PTX_NONE */
  uint64_t mods;     /* PTX_MOD_* bits */
  ptx_operand ops[PTX_MAX_OPERANDS];
  uint32_t function; /* owning function index */
  uint32_t block;    /* basic block index (module-wide) */
  uint32_t reconverge; /* branches: first instruction of the immediate post-dominator block,
                          or PTX_NONE when the branch only reconverges at function exit */
  uint32_t ptx_line;   /* line in the PTX text */
  uint16_t ptx_column;
  uint16_t loc_file;   /* .loc file index (0 = none) */
  uint32_t loc_line;   /* .loc source line (0 = none) */
} ptx_insn;

/* wmma/mma shapes (ptx_insn.geom for those opcodes). */
typedef enum ptx_wmma_shape {
  PTX_WMMA_NONE = 0, PTX_WMMA_M16N16K16, PTX_WMMA_M32N8K16, PTX_WMMA_M8N32K16,
  PTX_WMMA_M16N16K8, PTX_WMMA_M8N8K4, PTX_WMMA_M8N8K16, PTX_WMMA_M8N8K32, PTX_WMMA_M8N8K128,
  PTX_WMMA_M16N8K8, PTX_WMMA_M16N8K16, PTX_WMMA_M16N8K32, PTX_WMMA_M16N8K4,
  /* added after the first release */
  PTX_WMMA_M8N8, PTX_WMMA_M16N8K64, PTX_WMMA_M16N8K128, PTX_WMMA_M16N8K256, PTX_WMMA_M8N16,
  PTX_WMMA_M16N16
} ptx_wmma_shape;
/* wmma.load/store fragment: sub_op = 'a', 'b', 'c' or 'd'. */

enum {
  PTX_SYM_EXTERN = 1u << 0,   /* .extern (e.g. dynamic shared memory: size 0) */
  PTX_SYM_VISIBLE = 1u << 1,
  PTX_SYM_WEAK = 1u << 2,
  PTX_SYM_ENTRY_PARAM = 1u << 3, /* a kernel parameter (lives in the kernel parameter buffer) */
  PTX_SYM_FUNC_PARAM = 1u << 4,  /* a .func parameter or return value */
  PTX_SYM_CALL_PARAM = 1u << 5,  /* a .param declared in a call sequence block */
  PTX_SYM_HAS_INIT = 1u << 6,
  PTX_SYM_PTR = 1u << 7,       /* .param .ptr attribute */
  PTX_SYM_TEXREF = 1u << 8,    /* legacy .texref/.samplerref/.surfref */
  PTX_SYM_RETURN = 1u << 9,    /* a .func return parameter */
  PTX_SYM_MANAGED = 1u << 10   /* .global .attribute(.managed) (a __managed__ variable): laid out
                                  on 4 KiB pages of its own after the other .global variables */
};

/* The page a .managed variable starts on and is padded to (the unified-memory page, docs/vm.md). */
#define PTX_MANAGED_PAGE_BYTES 4096u

typedef struct ptx_symbol {
  const char *name;
  uint8_t space;      /* ptx_space */
  uint8_t type;       /* element type */
  uint16_t flags;     /* PTX_SYM_* */
  uint32_t align;     /* bytes */
  uint64_t size;      /* bytes; 0 for an unsized .extern array */
  uint32_t function;  /* owning function, or PTX_NONE for module scope */
  uint64_t offset;    /* byte offset within its segment: module-scope .global/.const segment,
                         the function's .shared/.local frame, the entry's parameter buffer, or the
                         function's call-parameter frame */
  uint64_t init_offset; /* HAS_INIT: initialiser bytes at module init_data[init_offset .. +size) */
  uint32_t decl_line;
} ptx_symbol;

/* An initialiser word that holds the address of another symbol or function, patched by the loader
 * once addresses are known. */
typedef struct ptx_reloc {
  uint32_t symbol;       /* the variable whose initialiser is patched */
  uint64_t offset;       /* byte offset in that initialiser */
  uint32_t target;       /* symbol index, or function index when is_function */
  bool is_function;
  bool generic;          /* generic(target): the generic address rather than the space address */
  uint8_t bytes;         /* 4 or 8 */
  int64_t addend;
} ptx_reloc;

typedef struct ptx_block {
  uint32_t first_insn;   /* module-wide index */
  uint32_t n_insns;
  uint32_t succ[2];      /* successor blocks, PTX_NONE when absent (exit) */
  uint32_t ipdom;        /* immediate post-dominator block, PTX_NONE = function exit */
  /* added after the first release: every successor (brx.idx can have more than two) at module
   * succ_list[first_succ .. +n_succ); `exits` when control can leave the function from this block
   * (ret/exit/trap, also guarded ones, which then have a fall-through successor too). */
  uint32_t first_succ, n_succ;
  bool exits;
} ptx_block;

enum {
  PTX_FN_ENTRY = 1u << 0,
  PTX_FN_DECL_ONLY = 1u << 1, /* declared, no body (extern: vprintf, malloc, …) */
  PTX_FN_VISIBLE = 1u << 2,
  PTX_FN_WEAK = 1u << 3,
  PTX_FN_PROTOTYPE = 1u << 4, /* a .callprototype */
  PTX_FN_NORETURN = 1u << 5,
  PTX_FN_EXTERN = 1u << 6,
  PTX_FN_EXPLICIT_CLUSTER = 1u << 7 /* .explicitcluster: must be launched with cluster dimensions */
};

/* Resource use of a function (per thread unless said otherwise), for occupancy. */
typedef struct ptx_resources {
  uint32_t regs_per_thread;   /* max simultaneously live 32-bit-equivalent registers over the CFG
                                 (64-bit count 2, 128-bit 4, predicates 0; a write counts even when
                                 dead) + 2 of ptxas overhead; capped by .maxnreg and 255 */
  uint32_t shared_bytes;      /* static .shared declared in the function (and module-scope used) */
  uint32_t local_bytes;       /* .local frame of the function (its own, not its callees') */
  uint32_t param_bytes;       /* entry: kernel parameter buffer size */
  uint32_t call_param_bytes;  /* bytes of call-site .param declarations (max over call blocks) */
} ptx_resources;

typedef struct ptx_function {
  const char *name;
  uint32_t flags;            /* PTX_FN_* */
  uint32_t first_insn;       /* module-wide index of its first instruction */
  uint32_t n_insns;
  uint32_t first_block;      /* module-wide index of its entry block */
  uint32_t n_blocks;
  uint32_t first_param;      /* params: symbol indices at module param_list[first_param ..] */
  uint32_t n_params;
  uint32_t first_ret;        /* return params: symbol indices at param_list[first_ret ..] */
  uint32_t n_rets;
  uint32_t n_regs[PTX_RC_COUNT];   /* registers per class */
  uint32_t first_reg_name[PTX_RC_COUNT]; /* names at module reg_names[first_reg_name[c] + index] */
  ptx_resources res;
  uint32_t maxntid[3], reqntid[3]; /* 0 = not given */
  uint32_t minnctapersm, maxnreg;  /* 0 = not given */
  uint32_t decl_line;
  /* added after the first release, in what was padding (program images keep their size):
   * thread block clusters (sm_90); .explicitcluster is PTX_FN_EXPLICIT_CLUSTER */
  uint8_t reqnctapercluster[3];    /* .reqnctapercluster (__cluster_dims__); 0 = not given */
  uint8_t maxclusterrank;          /* .maxclusterrank; 0 = not given */
} ptx_function;

typedef struct ptx_module {
  const char *source_name;     /* file name used in messages */
  uint32_t version_major, version_minor;
  uint32_t target_sm;          /* e.g. 75 for sm_75 */
  uint32_t address_size;       /* 32 or 64 */

  const ptx_function *functions; uint32_t n_functions;
  const ptx_symbol *symbols;     uint32_t n_symbols;
  const ptx_insn *insns;         uint32_t n_insns;
  const ptx_block *blocks;       uint32_t n_blocks;
  const ptx_operand *opnd_pool;  uint32_t n_opnd_pool;  /* VEC / LIST elements */
  const uint32_t *param_list;    uint32_t n_param_list; /* symbol indices of function params */
  const char *const *reg_names;  uint32_t n_reg_names;
  const uint8_t *init_data;      uint64_t init_data_size;
  const ptx_reloc *relocs;       uint32_t n_relocs;
  const char *const *files;      uint32_t n_files;      /* .file table; files[0] = "" */
  const uint32_t *succ_list;     uint32_t n_succ_list;  /* block successors (ptx_block.first_succ) */

  uint64_t global_segment_bytes; /* module-scope .global variables laid out back to back */
  uint64_t const_segment_bytes;  /* module-scope .const variables */
  uint64_t shared_segment_bytes; /* module-scope .shared variables (static, every CTA) */
} ptx_module;

/* Parses PTX text (not necessarily NUL-terminated; len bytes). `source_name` is used in messages.
 * Warnings go to `warnings` (may be NULL). Returns NULL and fills diag on error. */
ptx_module *ptx_parse(const char *text, size_t len, const char *source_name,
                      const simtvp_msg_port *warnings, simtvp_diag *diag);
ptx_module *ptx_parse_file(const char *path, const simtvp_msg_port *warnings, simtvp_diag *diag);
void ptx_module_destroy(ptx_module *m);

/* Lookups by name (module scope); PTX_NONE when absent. */
uint32_t ptx_find_function(const ptx_module *m, const char *name);
uint32_t ptx_find_symbol(const ptx_module *m, const char *name);

/* Debug text of one instruction in PTX syntax (for traces and deadlock dumps). Returns len. */
size_t ptx_insn_format(const ptx_module *m, const ptx_insn *in, char *buf, size_t size);

/* Load hoisting (ptx_sched.c; docs/ptx.md): writes the module's instructions to out[n_insns] with
 * every plain load of a basic block moved up past the independent instructions before it, as
 * ptxas schedules them; control flow, barriers, other memory accesses and clock reads keep their
 * index. Returns how many instructions changed place (0 when out of host memory: a plain copy).
 * Added after the first release. */
uint32_t ptx_hoist_loads(const ptx_module *m, ptx_insn *out);

/* True when ops[0] is written by the instruction (the destination rule of the operand table above,
 * resolved for sub_op-dependent cases such as bar.red or mbarrier.arrive). Added after the first
 * release. */
bool ptx_insn_has_dest(const ptx_insn *in);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_PTX_H */
