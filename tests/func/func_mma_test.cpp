// mma.sync fragments, ldmatrix / stmatrix / movmatrix (models/func/exec_mma.c) against the PTX
// ISA's fragment tables ("Matrix fragments for mma.m16n8k*", "Warp-level matrix load instruction:
// ldmatrix"), transcribed here a second time, independently of the engine, as the ISA words them.
// Inputs are small integers (exact in every type), so D is hand-computable exactly on the host.
#include <cstring>
#include <functional>

#include "func_test_util.h"
#include "half_float.h"

using namespace functest;

namespace {

const char *kHeader = ".version 8.0\n.target sm_80\n.address_size 64\n";

// (row, col) of element i of lane `lane`'s fragment, as the ISA states it.
struct Pos {
  int row, col;
};
using Layout = std::function<Pos(int lane, int i)>;

int grp(int lane) { return lane >> 2; }  // groupID
int tig(int lane) { return lane % 4; }   // threadID_in_group

// C/D of m16n8: "row = groupID for c0, c1; groupID + 8 for c2, c3; col = threadID_in_group * 2 + (i & 0x1)"
Pos cd16(int l, int i) { return {i < 2 ? grp(l) : grp(l) + 8, tig(l) * 2 + (i & 1)}; }
// C/D of m8n8: "row = groupID; col = threadID_in_group * 2 + i"
Pos cd8(int l, int i) { return {grp(l), tig(l) * 2 + i}; }
// A of m16n8k16 .f16/.bf16: "row = groupID for a0, a1, a4, a5, else groupID + 8;
// col = threadID_in_group * 2 + (i & 0x1) for i < 4, + 8 for i >= 4"
Pos a_f16_k16(int l, int i) {
  return {(i < 2 || (i >= 4 && i < 6)) ? grp(l) : grp(l) + 8, tig(l) * 2 + (i & 1) + (i >= 4 ? 8 : 0)};
}
// B of m16n8k16 .f16: "row = threadID_in_group * 2 + (i & 0x1) for i < 2, + 8 for i >= 2; col = groupID"
Pos b_f16_k16(int l, int i) { return {tig(l) * 2 + (i & 1) + (i >= 2 ? 8 : 0), grp(l)}; }
// m16n8k8 .f16/.bf16: A "row = groupID for a0, a1, groupID + 8 for a2, a3; col = tig * 2 + (i & 1)",
// B "row = tig * 2 + i; col = groupID"
Pos a_f16_k8(int l, int i) { return {i < 2 ? grp(l) : grp(l) + 8, tig(l) * 2 + (i & 1)}; }
Pos b_f16_k8(int l, int i) { return {tig(l) * 2 + i, grp(l)}; }
// m16n8k8 .tf32: A "row = groupID for a0, a2, groupID + 8 for a1, a3; col = tig for a0, a1, tig + 4
// for a2, a3", B "row = tig for b0, tig + 4 for b1; col = groupID"
Pos a_tf32_k8(int l, int i) { return {(i == 0 || i == 2) ? grp(l) : grp(l) + 8, i < 2 ? tig(l) : tig(l) + 4}; }
Pos b_tf32_k8(int l, int i) { return {i == 0 ? tig(l) : tig(l) + 4, grp(l)}; }
// m16n8k4 .tf32: A "row = groupID for a0, groupID + 8 for a1; col = tig", B "row = tig; col = groupID"
Pos a_tf32_k4(int l, int i) { return {i == 0 ? grp(l) : grp(l) + 8, tig(l)}; }
Pos b_tf32_k4(int l, int) { return {tig(l), grp(l)}; }
// m16n8k32 .s8/.u8/.e4m3: A "row = groupID for a0..a3, a8..a11, else groupID + 8;
// col = tig * 4 + (i & 0x3) for i < 8, + 16 for i >= 8", B "row = tig * 4 + (i & 0x3) for i < 4,
// + 16 for i >= 4; col = groupID"
Pos a_i8_k32(int l, int i) {
  return {(i < 4 || (i >= 8 && i < 12)) ? grp(l) : grp(l) + 8, tig(l) * 4 + (i & 3) + (i >= 8 ? 16 : 0)};
}
Pos b_i8_k32(int l, int i) { return {tig(l) * 4 + (i & 3) + (i >= 4 ? 16 : 0), grp(l)}; }
// m16n8k16 .s8/.u8: A "row = groupID for a0..a3, groupID + 8 for a4..a7; col = tig * 4 + (i & 0x3)",
// B "row = tig * 4 + i; col = groupID"
Pos a_i8_k16(int l, int i) { return {i < 4 ? grp(l) : grp(l) + 8, tig(l) * 4 + (i & 3)}; }
Pos b_i8_k16(int l, int i) { return {tig(l) * 4 + i, grp(l)}; }
// m8n8k16 .s8/.u8: A "row = groupID; col = tig * 4 + i", B "row = tig * 4 + i; col = groupID"
Pos a_i8_m8(int l, int i) { return {grp(l), tig(l) * 4 + i}; }
Pos b_i8_m8(int l, int i) { return {tig(l) * 4 + i, grp(l)}; }
// m8n8k4 .f64: A "row = groupID; col = tig", B "row = tig; col = groupID"
Pos a_f64(int l, int) { return {grp(l), tig(l)}; }
Pos b_f64(int l, int) { return {tig(l), grp(l)}; }

uint16_t f16_bits(int v) { return half_bits(v); }  // small integers only
uint16_t bf16_bits(int v) { return (uint16_t)(f2u((float)v) >> 16); }
uint8_t e4m3_bits(int v) {  // -4..4: 0, 1 = 0x38, 2 = 0x40, 3 = 0x44, 4 = 0x48, sign 0x80
  static const uint8_t mag[5] = {0x00, 0x38, 0x40, 0x44, 0x48};
  return (uint8_t)(mag[v < 0 ? -v : v] | (v < 0 ? 0x80 : 0));
}

struct Case {
  const char *insn;        // the mma instruction text with %a.. operands filled in by regs()
  int M, N, K;
  int abits, bbits, cbits, dbits;  // element bits of A, B, C, D (64 = f64)
  Layout la, lb, lcd;
  std::function<uint64_t(int)> enc_a, enc_b, enc_c;  // small integer -> element bits
  std::function<int64_t(uint64_t)> dec_d;            // D element bits -> value
  int64_t clamp_lo, clamp_hi;                        // integer D with .satfinite, else 0, 0
  int ka, kb;                                        // input value ranges [-ka, ka] / [0, ka)
  bool unsigned_a = false, unsigned_b = false;
  int64_t c_base = 0;                                // added to C (saturation tests)
};

int regs_of(int elems, int bits) { return bits == 64 ? elems : (elems * bits + 31) / 32; }

// Builds the kernel: each lane loads 16 words from in + 64 * lane, runs the mma on registers
// %r0.. (or %fd0.. for f64) and stores D to out + 64 * lane.
std::string mma_kernel(const Case &c, int na, int nb, int nc, int nd) {
  bool wide = c.dbits == 64;
  std::string prefix = wide ? "%fd" : "%r";
  auto vec = [&](int first, int n) {
    std::string s = "{";
    for (int i = 0; i < n; i++) s += (i ? ", " : "") + prefix + std::to_string(first + i);
    return s + "}";
  };
  int ra = 0, rb = na, rc = na + nb, rd = na + nb + nc;
  std::string body;
  for (int i = 0; i < na + nb + nc; i++)
    body += "  ld.global." + std::string(wide ? "f64 " : "u32 ") + prefix + std::to_string(i) + ", [%rd4+" +
            std::to_string(i * (wide ? 8 : 4)) + "];\n";
  body += "  " + std::string(c.insn) + " " + vec(rd, nd) + ", " + vec(ra, na) + ", " + vec(rb, nb) + ", " +
          vec(rc, nc) + ";\n";
  for (int i = 0; i < nd; i++)
    body += "  st.global." + std::string(wide ? "f64 [%rd5+" : "u32 [%rd5+") + std::to_string(i * (wide ? 8 : 4)) +
            "], " + prefix + std::to_string(rd + i) + ";\n";
  return std::string(kHeader) +
         ".visible .entry k(.param .u64 out, .param .u64 in)\n{\n"
         "  .reg .b32 %r<40>;\n  .reg .f64 %fd<40>;\n  .reg .b64 %rd<8>;\n"
         "  ld.param.u64 %rd1, [out];\n  ld.param.u64 %rd2, [in];\n  mov.u32 %r39, %tid.x;\n"
         "  mul.wide.u32 %rd3, %r39, 64;\n  add.s64 %rd4, %rd2, %rd3;\n  add.s64 %rd5, %rd1, %rd3;\n" +
         body + "  ret;\n}\n";
}

void run_case(const Case &c) {
  SCOPED_TRACE(c.insn);
  const int na = c.M * c.K / 32, nb = c.K * c.N / 32, nc = c.M * c.N / 32;
  const int ra = regs_of(na, c.abits), rb = regs_of(nb, c.bbits), rc = regs_of(nc, c.cbits), rd = regs_of(nc, c.dbits);
  // matrices of small integers
  std::vector<int64_t> A(c.M * c.K), B(c.K * c.N), C(c.M * c.N), D(c.M * c.N);
  for (int i = 0; i < c.M * c.K; i++) A[i] = c.unsigned_a ? (i * 7 + 3) % c.ka : (i * 7 + 3) % (2 * c.ka + 1) - c.ka;
  for (int i = 0; i < c.K * c.N; i++) B[i] = c.unsigned_b ? (i * 5 + 1) % c.kb : (i * 5 + 1) % (2 * c.kb + 1) - c.kb;
  for (int i = 0; i < c.M * c.N; i++) C[i] = c.c_base + (i * 3) % 11 - 5;
  for (int r = 0; r < c.M; r++)
    for (int n = 0; n < c.N; n++) {
      int64_t acc = C[r * c.N + n];
      for (int k = 0; k < c.K; k++) acc += A[r * c.K + k] * B[k * c.N + n];
      if (c.clamp_hi) acc = acc > c.clamp_hi ? c.clamp_hi : acc < c.clamp_lo ? c.clamp_lo : acc;
      D[r * c.N + n] = acc;
    }
  // per-lane fragments: elements packed from bit 0 up, 64-byte slots
  std::vector<uint8_t> in(32 * 64, 0);
  auto put = [&](int lane, int word_base, int bits, int i, uint64_t v) {
    uint8_t *slot = &in[lane * 64];
    if (bits == 64) {
      std::memcpy(slot + 8 * (word_base + i), &v, 8);
      return;
    }
    int per = 32 / bits;
    uint32_t w;
    std::memcpy(&w, slot + 4 * (word_base + i / per), 4);
    uint32_t mask = bits == 32 ? ~0u : ((1u << bits) - 1u) << ((i % per) * bits);
    w = (w & ~mask) | (((uint32_t)v << ((i % per) * bits)) & mask);
    std::memcpy(slot + 4 * (word_base + i / per), &w, 4);
  };
  for (int l = 0; l < 32; l++) {
    for (int i = 0; i < na; i++) {
      Pos p = c.la(l, i);
      put(l, 0, c.abits, i, c.enc_a(A[p.row * c.K + p.col]));
    }
    for (int i = 0; i < nb; i++) {
      Pos p = c.lb(l, i);
      put(l, ra, c.bbits, i, c.enc_b(B[p.row * c.N + p.col]));
    }
    for (int i = 0; i < nc; i++) {
      Pos p = c.lcd(l, i);
      put(l, ra + rb, c.cbits, i, c.enc_c(C[p.row * c.N + p.col]));
    }
  }
  Gpu g;
  ASSERT_EQ(g.load(mma_kernel(c, ra, rb, rc, rd)), SIMTVP_OK) << g.diag.message;
  uint64_t din = g.upload(in), dout = g.alloc(32 * 64);
  ASSERT_EQ(g.launch("k", 1, 32, {dout, din}), SIMTVP_OK) << g.diag.message;
  auto out = g.download<uint8_t>(dout, 32 * 64);
  for (int l = 0; l < 32; l++)
    for (int i = 0; i < nc; i++) {
      Pos p = c.lcd(l, i);
      uint64_t v = 0;
      if (c.dbits == 64) {
        std::memcpy(&v, &out[l * 64 + 8 * i], 8);
      } else {
        int per = 32 / c.dbits;
        uint32_t w;
        std::memcpy(&w, &out[l * 64 + 4 * (i / per)], 4);
        v = c.dbits == 32 ? w : (w >> ((i % per) * c.dbits)) & ((1u << c.dbits) - 1u);
      }
      ASSERT_EQ(c.dec_d(v), D[p.row * c.N + p.col]) << "lane " << l << " d" << i << " = D[" << p.row << "][" << p.col << "]";
    }
}

auto enc_f16 = [](int64_t v) { return (uint64_t)f16_bits((int)v); };
auto enc_bf16 = [](int64_t v) { return (uint64_t)bf16_bits((int)v); };
auto enc_f32 = [](int64_t v) { return (uint64_t)f2u((float)v); };
// tf32 in a .b32 register: the low 13 bits are not part of the value (junk there must not matter)
auto enc_tf32 = [](int64_t v) { return (uint64_t)(f2u((float)v) | 0x1234u); };
auto enc_i = [](int64_t v) { return (uint64_t)(uint32_t)(int32_t)v; };
auto enc_f64 = [](int64_t v) { return d2u((double)v); };
auto dec_f32 = [](uint64_t b) { return (int64_t)u2f((uint32_t)b); };
auto dec_f16 = [](uint64_t b) { return (int64_t)half_value((uint16_t)b); };
auto dec_s32 = [](uint64_t b) { return (int64_t)(int32_t)(uint32_t)b; };
auto dec_f64 = [](uint64_t b) { return (int64_t)u2d(b); };

}  // namespace

TEST(FuncMma, HalfAndBfloatShapesFollowTheIsaFragmentTables) {
  run_case({"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", 16, 8, 16, 16, 16, 32, 32, a_f16_k16, b_f16_k16, cd16,
            enc_f16, enc_f16, enc_f32, dec_f32, 0, 0, 4, 4});
  run_case({"mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16", 16, 8, 16, 16, 16, 16, 16, a_f16_k16, b_f16_k16, cd16,
            enc_f16, enc_f16, enc_f16, dec_f16, 0, 0, 3, 3});
  run_case({"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f16", 16, 8, 8, 16, 16, 16, 32, a_f16_k8, b_f16_k8, cd16,
            enc_f16, enc_f16, enc_f16, dec_f32, 0, 0, 4, 4});
  run_case({"mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32", 16, 8, 8, 16, 16, 32, 32, a_f16_k8, b_f16_k8, cd16,
            enc_bf16, enc_bf16, enc_f32, dec_f32, 0, 0, 4, 4});
  run_case({"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", 16, 8, 16, 16, 16, 32, 32, a_f16_k16, b_f16_k16,
            cd16, enc_bf16, enc_bf16, enc_f32, dec_f32, 0, 0, 4, 4});
}

TEST(FuncMma, Tf32IgnoresTheLow13BitsOfItsRegisters) {
  run_case({"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", 16, 8, 8, 32, 32, 32, 32, a_tf32_k8, b_tf32_k8, cd16,
            enc_tf32, enc_tf32, enc_f32, dec_f32, 0, 0, 5, 5});
  run_case({"mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32", 16, 8, 4, 32, 32, 32, 32, a_tf32_k4, b_tf32_k4, cd16,
            enc_tf32, enc_tf32, enc_f32, dec_f32, 0, 0, 5, 5});
}

TEST(FuncMma, IntegerShapesWrapOrSaturate) {
  auto s8 = [](int64_t v) { return (uint64_t)(uint8_t)(int8_t)v; };
  auto u8 = [](int64_t v) { return (uint64_t)(uint8_t)v; };
  run_case({"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", 16, 8, 32, 8, 8, 32, 32, a_i8_k32, b_i8_k32, cd16, s8, s8,
            enc_i, dec_s32, 0, 0, 100, 100});
  // u8 x s8 near INT32_MAX: 16 x 8 sums of 32 products, most positive, saturate with .satfinite
  Case sat{"mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.s8.s32", 16, 8, 32, 8, 8, 32, 32, a_i8_k32, b_i8_k32,
           cd16, u8, s8, enc_i, dec_s32, INT32_MIN, INT32_MAX, 250, 100};
  sat.unsigned_a = true;
  sat.c_base = INT32_MAX - 100000;
  run_case(sat);
  Case u{"mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32", 16, 8, 16, 8, 8, 32, 32, a_i8_k16, b_i8_k16, cd16, u8, u8,
         enc_i, dec_s32, 0, 0, 255, 255};
  u.unsigned_a = u.unsigned_b = true;
  run_case(u);
  Case m8{"mma.sync.aligned.m8n8k16.row.col.s32.s8.u8.s32", 8, 8, 16, 8, 8, 32, 32, a_i8_m8, b_i8_m8, cd8, s8, u8,
          enc_i, dec_s32, 0, 0, 120, 200};
  m8.unsigned_b = true;
  run_case(m8);
}

TEST(FuncMma, DoubleAndFp8Shapes) {
  run_case({"mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", 8, 8, 4, 64, 64, 64, 64, a_f64, b_f64, cd8, enc_f64,
            enc_f64, enc_f64, dec_f64, 0, 0, 1000, 1000});
  auto e4 = [](int64_t v) { return (uint64_t)e4m3_bits((int)v); };
  run_case({"mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", 16, 8, 32, 8, 8, 32, 32, a_i8_k32, b_i8_k32, cd16,
            e4, e4, enc_f32, dec_f32, 0, 0, 4, 4});
}

// ldmatrix gives lane l elements (l / 4, 2 (l % 4)) and (l / 4, 2 (l % 4) + 1) of each 8x8 b16
// matrix (transposed: (2 (l % 4), l / 4) and (2 (l % 4) + 1, l / 4)); lane 8j + r gives the
// address of row r of matrix j. stmatrix is its inverse; movmatrix transposes a matrix held in
// that layout. A 32 x 8 matrix of u16 m[i][c] = 100 i + c (matrix j = rows 8j .. 8j + 7) in
// shared memory, with each row at a rotated position so the row addresses matter.
TEST(FuncMma, LdmatrixStmatrixAndMovmatrixUseTheFragmentLayout) {
  Gpu g;
  std::string ptx = std::string(kHeader) + R"(
.visible .entry k(.param .u64 out, .param .u64 in)
{
  .reg .b32 %r<32>;
  .reg .b64 %rd<8>;
  .shared .align 16 .b8 s[1024];
  .shared .align 16 .b8 t[1024];
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  mov.u32 %r1, %tid.x;
  // copy the 32 rows (16 bytes each) into s: row i at slot (i * 5) % 32
  mul.wide.u32 %rd3, %r1, 16;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd4];
  mul.lo.u32 %r6, %r1, 5;
  and.b32 %r6, %r6, 31;
  shl.b32 %r7, %r6, 4;
  mov.u32 %r8, s;
  add.u32 %r9, %r8, %r7;
  st.shared.v4.u32 [%r9], {%r2, %r3, %r4, %r5};
  bar.sync 0;
  // lane l gives the address of row l (matrix l / 8, row l % 8)
  ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r10, %r11, %r12, %r13}, [%r9];
  ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r14, %r15}, [%r9];
  ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r16}, [%r9];
  movmatrix.sync.aligned.m8n8.trans.b16 %r17, %r10;
  // stmatrix the four matrices back, transposed, into t at the same rotated rows
  mov.u32 %r18, t;
  add.u32 %r19, %r18, %r7;
  stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%r19], {%r10, %r11, %r12, %r13};
  bar.sync 0;
  ld.shared.v4.u32 {%r20, %r21, %r22, %r23}, [%r19];
  mul.wide.u32 %rd5, %r1, 64;
  add.s64 %rd6, %rd1, %rd5;
  st.global.v4.u32 [%rd6], {%r10, %r11, %r12, %r13};
  st.global.v4.u32 [%rd6+16], {%r14, %r15, %r16, %r17};
  st.global.v4.u32 [%rd6+32], {%r20, %r21, %r22, %r23};
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  std::vector<uint16_t> m(32 * 8);
  for (int i = 0; i < 32; i++)
    for (int c = 0; c < 8; c++) m[i * 8 + c] = (uint16_t)(100 * i + c);
  uint64_t din = g.upload(m), dout = g.alloc(32 * 64);
  ASSERT_EQ(g.launch("k", 1, 32, {dout, din}), SIMTVP_OK) << g.diag.message;
  auto v = g.download<uint32_t>(dout, 32 * 16);
  auto pair = [&](int j, int r0, int c0, int r1, int c1) {
    return (uint32_t)m[(8 * j + r0) * 8 + c0] | (uint32_t)m[(8 * j + r1) * 8 + c1] << 16;
  };
  for (int l = 0; l < 32; l++) {
    const uint32_t *o = &v[l * 16];
    int r = l / 4, c = 2 * (l % 4);
    for (int j = 0; j < 4; j++) EXPECT_EQ(o[j], pair(j, r, c, r, c + 1)) << "ldmatrix.x4 lane " << l << " matrix " << j;
    for (int j = 0; j < 2; j++) EXPECT_EQ(o[4 + j], pair(j, c, r, c + 1, r)) << "ldmatrix.x2.trans lane " << l;
    EXPECT_EQ(o[6], pair(0, r, c, r, c + 1)) << "ldmatrix.x1 lane " << l;
    EXPECT_EQ(o[7], pair(0, c, r, c + 1, r)) << "movmatrix lane " << l;
    // stmatrix.trans wrote matrix j transposed: row r' of t-matrix j holds column r' of matrix j
    int i = l, j = i / 8, rr = i % 8;  // thread l read back row l of t (its own rotated slot)
    for (int k = 0; k < 4; k++) {
      uint32_t want = (uint32_t)m[(8 * j + 2 * k) * 8 + rr] | (uint32_t)m[(8 * j + 2 * k + 1) * 8 + rr] << 16;
      EXPECT_EQ(o[8 + k], want) << "stmatrix.trans lane " << l << " word " << k;
    }
  }
}

// ldmatrix needs every lane that gives an address; mma needs the ISA's register counts.
TEST(FuncMma, MalformedMatrixInstructionsAreReported) {
  std::string err;
  run_lanes("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r2, %r3, %r4, %r5}, [%r6];", std::vector<Slot>(16), &err);
  EXPECT_NE(err.find("needs lanes 0-31"), std::string::npos) << err;
  err.clear();
  run_lanes("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r2, %r3, %r4, %r5}, {%r6, %r7}, {%r8, %r9}, "
            "{%r10, %r11, %r12, %r13};",
            std::vector<Slot>(32), &err);
  EXPECT_NE(err.find("has 4 registers, not 2"), std::string::npos) << err;
  err.clear();
  run_lanes("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%r2, %r3, %r4, %r5, %r6, %r7, %r8, %r9}, {%r10, %r11}, "
            "{%r12, %r13}, {%r14, %r15, %r16, %r17, %r18, %r19, %r20, %r21};",
            std::vector<Slot>(32), &err);
  EXPECT_NE(err.find("quad-pair"), std::string::npos) << err;
}
