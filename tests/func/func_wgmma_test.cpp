// wgmma (sm_90a warpgroup MMA, models/func/exec_mma.c) against hand-built shared-memory images.
// The images follow the canonical layouts as CUTLASS's make_gmma_desc documents them (in elements,
// T = elements per 16 bytes), transcribed here independently of the engine:
//   K-major   INTERLEAVE ((8,m),(T,2)):((1T,SBO),(1,LBO))   B32/B64/B128 ((8,m),(T,2)):((WT,SBO),(1,T))
//   MN-major  INTERLEAVE ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))  Bxx ((T,W,m),(8,k)):((1,T,LBO),(WT,SBO))
// with Swizzle<log2 W,4,3> on the byte address; D comes back in the ISA's accumulator fragment
// (the m16n8 C fragment of mma, repeated every 8 columns, warp r of the warpgroup owning rows
// 16 r .. 16 r + 15). Inputs are small integers, so D is exact.
#include <cstring>
#include <functional>

#include "func_test_util.h"
#include "half_float.h"

using namespace functest;

namespace {

enum Layout { INTER = 0, SW128 = 1, SW64 = 2, SW32 = 3 };
int units(Layout l) { return l == INTER ? 1 : l == SW32 ? 2 : l == SW64 ? 4 : 8; }

struct Operand {
  bool mn_major;
  Layout layout;
  uint32_t start, lbo, sbo;  // bytes
  uint64_t desc() const {
    return (uint64_t)(start >> 4) | (uint64_t)(lbo >> 4) << 16 | (uint64_t)(sbo >> 4) << 32 | (uint64_t)layout << 62;
  }
  // byte address of element (i along M or N, k along K) of e-byte elements
  uint32_t addr(int i, int k, int e) const {
    const int T = 16 / e, W = units(layout), L = (int)lbo / e, S = (int)sbo / e;
    int off;
    if (!mn_major) {
      if (layout == INTER) off = (i % 8) * T + (i / 8) * S + (k % T) + (k / T) * L;
      else off = (i % 8) * W * T + (i / 8) * S + (k % T) + (k / T) * T;
    } else {
      if (layout == INTER) off = (i % T) + (i / T) * S + (k % 8) * T + (k / 8) * L;
      else off = (i % T) + ((i / T) % W) * T + (i / (W * T)) * L + (k % 8) * W * T + (k / 8) * S;
    }
    uint32_t a = start + (uint32_t)(off * e);
    if (layout != INTER) a ^= ((a >> 7) & (uint32_t)(W - 1)) << 4;
    return a;
  }
};

uint16_t f16_bits(int v) { return half_bits(v); }
uint16_t bf16_bits(int v) { return (uint16_t)(f2u((float)v) >> 16); }
uint8_t e4m3_bits(int v) {  // -4..4
  static const uint8_t mag[5] = {0x00, 0x38, 0x40, 0x44, 0x48};
  return (uint8_t)(mag[v < 0 ? -v : v] | (v < 0 ? 0x80 : 0));
}

struct Case {
  std::string types;  // ".f32.f16.f16"
  int N, K, e;        // e: A/B element bytes
  int dbits;          // 32 (f32/s32) or 16 (f16)
  Operand a, b;
  bool a_regs = false;
  std::string imms;   // ", 1, 1, 0, 0" (empty for integer forms)
  bool keep_c = true;
  bool satfinite = false;
  int sign_a = 1, sign_b = 1;
  bool int_d = false;
  int64_t c_base = 0;
  std::function<uint32_t(int)> enc;  // small integer -> element bits
  int ka = 4, kb = 4;
  bool unsigned_b = false;
  int warpgroups = 2;
  int extra_wgmma_k_bytes = 0;  // > 0: a second wgmma with both start addresses advanced by this
};

uint32_t f32_bits(float f) { return f2u(f); }

// D fragment of lane l of warp r, element i
void d_pos(int warp, int l, int i, int *row, int *col) {
  *row = 16 * (warp % 4) + l / 4 + 8 * ((i >> 1) & 1);
  *col = 8 * (i >> 2) + 2 * (l % 4) + (i & 1);
}

void run_case(const Case &c) {
  const int M = 64, N = c.N, K = c.K, passes = c.extra_wgmma_k_bytes ? 2 : 1, KT = K * passes;
  const int dregs = c.dbits == 16 ? N / 4 : N / 2, threads = 128 * c.warpgroups;
  std::vector<int64_t> A(M * KT), B(KT * N), C(M * N), D(M * N);
  for (int i = 0; i < M * KT; i++) A[i] = (i * 7 + 3) % (2 * c.ka + 1) - c.ka;
  for (int i = 0; i < KT * N; i++) B[i] = c.unsigned_b ? (i * 5 + 1) % c.kb : (i * 5 + 1) % (2 * c.kb + 1) - c.kb;
  for (int i = 0; i < M * N; i++) C[i] = c.c_base + (i * 3) % 11 - 5;
  for (int r = 0; r < M; r++)
    for (int n = 0; n < N; n++) {
      int64_t acc = c.keep_c ? C[r * N + n] : 0;
      for (int k = 0; k < KT; k++) acc += c.sign_a * A[r * KT + k] * c.sign_b * B[k * N + n];
      if (c.satfinite) acc = acc > INT32_MAX ? INT32_MAX : acc < INT32_MIN ? INT32_MIN : acc;
      D[r * N + n] = acc;
    }
  // shared-memory image
  std::vector<uint8_t> img(32768, 0);
  auto put = [&](uint32_t at, uint32_t bits) {
    ASSERT_LT(at + c.e, img.size());
    std::memcpy(&img[at], &bits, c.e);
  };
  for (int p = 0; p < passes; p++) {
    Operand a = c.a, b = c.b;
    a.start += p * c.extra_wgmma_k_bytes;
    b.start += p * c.extra_wgmma_k_bytes;
    for (int r = 0; r < M && !c.a_regs; r++)
      for (int k = 0; k < K; k++) put(a.addr(r, k, c.e), c.enc((int)A[r * KT + p * K + k]));
    for (int n = 0; n < N; n++)
      for (int k = 0; k < K; k++) put(b.addr(n, k, c.e), c.enc((int)B[(p * K + k) * N + n]));
  }
  // accumulators in, per thread dregs words
  std::vector<uint32_t> cin(threads * dregs, 0), ain(threads * 4, 0);
  for (int t = 0; t < threads; t++)
    for (int i = 0; i < N / 2; i++) {
      int r, col;
      d_pos(t / 32, t % 32, i, &r, &col);
      int64_t v = C[r * N + col];
      uint32_t bits = c.int_d ? (uint32_t)(int32_t)v : c.dbits == 16 ? f16_bits((int)v) : f32_bits((float)v);
      if (c.dbits == 16) cin[t * dregs + i / 2] |= bits << (16 * (i & 1));
      else cin[t * dregs + i] = bits;
    }
  // A in registers: the A fragment of mma.m16n8k16 (f16): row g + 8 ((i>>1)&1), col 2t + (i&1) + 8 (i>>2)
  if (c.a_regs)
    for (int t = 0; t < threads; t++)
      for (int i = 0; i < 8; i++) {
        int l = t % 32, row = 16 * ((t / 32) % 4) + l / 4 + 8 * ((i >> 1) & 1), col = 2 * (l % 4) + (i & 1) + 8 * (i >> 2);
        ain[t * 4 + i / 2] |= c.enc((int)A[row * KT + col]) << (16 * (i & 1));
      }
  // the kernel
  std::string dvec = "{";
  for (int i = 0; i < dregs; i++) dvec += (i ? ", %d" : "%d") + std::to_string(i);
  dvec += "}";
  std::string body;
  for (int i = 0; i < dregs; i++) body += "  ld.global.u32 %d" + std::to_string(i) + ", [%rd6+" + std::to_string(4 * i) + "];\n";
  std::string aop = "%rd8";
  if (c.a_regs) {
    for (int i = 0; i < 4; i++) body += "  ld.global.u32 %a" + std::to_string(i) + ", [%rd11+" + std::to_string(4 * i) + "];\n";
    aop = "{%a0, %a1, %a2, %a3}";
  }
  body += "  setp.ne.u32 %p1, %r9, 0;\n  wgmma.fence.sync.aligned;\n";
  for (int p = 0; p < passes; p++) {
    body += "  wgmma.mma_async.sync.aligned.m64n" + std::to_string(N) + "k" + std::to_string(K) + c.types +
            (c.satfinite ? ".satfinite" : "") + " " + dvec + ", " + aop + ", %rd9, " + (p ? "1" : "%p1") + c.imms + ";\n";
    if (!p && passes > 1)
      body += "  add.s64 %rd8, %rd8, " + std::to_string(c.extra_wgmma_k_bytes >> 4) + ";\n  add.s64 %rd9, %rd9, " +
              std::to_string(c.extra_wgmma_k_bytes >> 4) + ";\n";
  }
  body += "  wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 0;\n";
  for (int i = 0; i < dregs; i++) body += "  st.global.u32 [%rd7+" + std::to_string(4 * i) + "], %d" + std::to_string(i) + ";\n";
  std::string ptx =
      ".version 8.0\n.target sm_90a\n.address_size 64\n.extern .shared .align 1024 .b8 smem[];\n"
      ".visible .entry k(.param .u64 out, .param .u64 img, .param .u64 cin, .param .u64 ad, .param .u64 bd, "
      ".param .u32 scale, .param .u64 ain)\n{\n"
      "  .reg .b32 %r<16>;\n  .reg .b32 %d<130>;\n  .reg .b32 %a<4>;\n  .reg .b64 %rd<16>;\n  .reg .pred %p<4>;\n"
      "  ld.param.u64 %rd1, [out];\n  ld.param.u64 %rd2, [img];\n  ld.param.u64 %rd3, [cin];\n"
      "  ld.param.u64 %rd8, [ad];\n  ld.param.u64 %rd9, [bd];\n  ld.param.u32 %r9, [scale];\n"
      "  ld.param.u64 %rd10, [ain];\n"
      "  mov.u32 %r1, %tid.x;\n"
      // copy the image: thread t copies words t, t + ntid, ...
      "  mov.u32 %r2, %r1;\n"
      "$copy:\n  setp.ge.u32 %p0, %r2, 8192;\n  @%p0 bra $copied;\n"
      "  mul.wide.u32 %rd4, %r2, 4;\n  add.s64 %rd5, %rd2, %rd4;\n  ld.global.u32 %r3, [%rd5];\n"
      "  shl.b32 %r4, %r2, 2;\n  mov.u32 %r5, smem;\n  add.u32 %r5, %r5, %r4;\n  st.shared.u32 [%r5], %r3;\n"
      "  mov.u32 %r6, %ntid.x;\n  add.u32 %r2, %r2, %r6;\n  bra $copy;\n"
      "$copied:\n  bar.sync 0;\n"
      "  mul.wide.u32 %rd4, %r1, " + std::to_string(4 * dregs) + ";\n  add.s64 %rd6, %rd3, %rd4;\n  add.s64 %rd7, %rd1, %rd4;\n"
      "  mul.wide.u32 %rd4, %r1, 16;\n  add.s64 %rd11, %rd10, %rd4;\n" +
      body + "  ret;\n}\n";
  Gpu g;
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message << "\n" << ptx;
  uint64_t dimg = g.upload(img), dcin = g.upload(cin), dain = g.upload(ain), dout = g.alloc(threads * dregs * 4);
  ASSERT_EQ(g.launch("k", 1, threads, {dout, dimg, dcin, c.a.desc(), c.b.desc(), c.keep_c ? 1u : 0u, dain}, 32768),
            SIMTVP_OK)
      << g.diag.message;
  auto out = g.download<uint32_t>(dout, threads * dregs);
  for (int t = 0; t < threads; t++)
    for (int i = 0; i < N / 2; i++) {
      int r, col;
      d_pos(t / 32, t % 32, i, &r, &col);
      uint32_t w = c.dbits == 16 ? (out[t * dregs + i / 2] >> (16 * (i & 1))) & 0xffff : out[t * dregs + i];
      int64_t got;
      if (c.int_d) {
        got = (int32_t)w;
      } else if (c.dbits == 16) {
        got = (int64_t)half_value((uint16_t)w);
      } else {
        got = (int64_t)u2f(w);
      }
      ASSERT_EQ(got, D[r * N + col]) << "thread " << t << " d" << i << " = D[" << r << "][" << col << "]";
    }
}

auto enc_f16 = [](int v) { return (uint32_t)f16_bits(v); };

TEST(FuncWgmma, KMajorInterleavedF16WithLboAndSboSwapped) {
  Case c;
  c.types = ".f32.f16.f16";
  c.N = 8, c.K = 16, c.e = 2, c.dbits = 32;
  // A: the two 16-byte K chunks 1024 bytes apart (LBO), 8-row groups 128 bytes apart (SBO)
  c.a = {false, INTER, 0, 1024, 128};
  c.b = {false, INTER, 4096, 128, 256};
  c.imms = ", 1, 1, 0, 0";
  c.enc = enc_f16;
  run_case(c);
}

TEST(FuncWgmma, KMajor128ByteSwizzleBf16AdvancesAlongK) {
  Case c;
  c.types = ".f32.bf16.bf16";
  c.N = 16, c.K = 16, c.e = 2, c.dbits = 32;
  // CUTLASS's K-major SW128 tiles: 128-byte rows, 8-row groups 1024 bytes apart; LBO unused
  c.a = {false, SW128, 0, 16, 1024};
  c.b = {false, SW128, 8192, 16, 1024};
  c.imms = ", 1, 1, 0, 0";
  c.keep_c = false;                // scale-d = 0 on the first wgmma
  c.extra_wgmma_k_bytes = 32;      // the second k16 step: start addresses + 32 bytes
  c.enc = [](int v) { return (uint32_t)bf16_bits(v); };
  run_case(c);
}

TEST(FuncWgmma, RegisterAWithMnMajor32ByteSwizzledBNegatedIntoF16) {
  Case c;
  c.types = ".f16.f16.f16";
  c.N = 16, c.K = 16, c.e = 2, c.dbits = 16;
  c.a_regs = true;
  c.a = {false, INTER, 0, 0, 0};
  // B N-major (imm-trans-b = 1): 16 N-elements per 32-byte row, K rows 32 bytes apart, K groups at SBO
  c.b = {true, SW32, 1024, 4096, 256};
  c.imms = ", 1, -1, 1";
  c.sign_b = -1;
  c.enc = enc_f16;
  c.ka = 2, c.kb = 3;  // (a modulus of 7 would make every A element 0)
  run_case(c);
}

TEST(FuncWgmma, MnMajor128ByteSwizzledAAndInterleavedB) {
  Case c;
  c.types = ".f32.f16.f16";
  c.N = 64, c.K = 16, c.e = 2, c.dbits = 32;
  // A M-major SW128: 64 M-elements per 128-byte row, 8 K rows per 1024-byte atom, K groups at SBO
  c.a = {true, SW128, 0, 8192, 1024};
  // B N-major interleaved: 8 N-elements per 16-byte unit, N units at SBO, K groups at LBO
  c.b = {true, INTER, 4096, 2048, 128};
  c.imms = ", -1, 1, 1, 1";
  c.sign_a = -1;
  c.enc = enc_f16;
  run_case(c);
}

TEST(FuncWgmma, IntegerShapesAccumulateAndSaturate) {
  Case c;
  c.types = ".s32.s8.u8";
  c.N = 24, c.K = 32, c.e = 1, c.dbits = 32, c.int_d = true;
  c.a = {false, SW64, 0, 16, 512};
  c.b = {false, SW64, 4096, 16, 512};
  c.enc = [](int v) { return (uint32_t)(uint8_t)(int8_t)v; };
  c.ka = 100, c.kb = 200, c.unsigned_b = true;
  c.satfinite = true;
  c.c_base = INT32_MAX - 300000;  // some sums pass INT32_MAX: clamped
  c.warpgroups = 1;
  run_case(c);
}

TEST(FuncWgmma, Tf32AndE4m3Shapes) {
  Case c;
  c.types = ".f32.tf32.tf32";
  c.N = 8, c.K = 8, c.e = 4, c.dbits = 32;
  c.a = {false, INTER, 0, 128, 256};
  c.b = {false, INTER, 4096, 128, 256};
  c.imms = ", 1, 1";
  c.enc = [](int v) { return f32_bits((float)v) | 0x1fffu; };  // tf32 ignores the low 13 bits
  c.warpgroups = 1;
  run_case(c);
  Case f = c;
  f.types = ".f32.e4m3.e4m3";
  f.K = 32, f.e = 1;
  f.a = {false, SW32, 0, 16, 256};
  f.b = {false, SW32, 4096, 16, 256};
  f.enc = [](int v) { return (uint32_t)e4m3_bits(v); };
  run_case(f);
}

TEST(FuncWgmma, MalformedWgmmaIsReported) {
  const std::string head = ".version 8.0\n.target sm_90a\n.address_size 64\n.visible .entry k(.param .u64 d)\n{\n"
                           "  .reg .b32 %d<8>;\n  .reg .b64 %rd<4>;\n  .reg .pred %p<2>;\n  ld.param.u64 %rd1, [d];\n";
  const char *bad[] = {
      // 3 accumulators for n8 f32 (4 needed)
      "  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%d0, %d1, %d2}, %rd1, %rd1, 1, 1, 1, 0, 0;\n",
      // .satfinite on a float form
      "  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16.satfinite {%d0, %d1, %d2, %d3}, %rd1, %rd1, 1, 1, 1, 0, 0;\n",
      // immediates missing
      "  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%d0, %d1, %d2, %d3}, %rd1, %rd1, 1;\n",
      // transposed tf32
      "  wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%d0, %d1, %d2, %d3}, %rd1, %rd1, 1, 1, 1, 1, 0;\n",
  };
  for (const char *b : bad) {
    Gpu g;
    EXPECT_NE(g.load(head + b + "  ret;\n}\n"), SIMTVP_OK) << b;
  }
  // shapes the parser refuses
  Gpu g;
  EXPECT_EQ(g.load(head + "  wgmma.mma_async.sync.aligned.m64n12k16.f32.f16.f16 {%d0}, %rd1, %rd1, 1, 1, 1, 0, 0;\n  ret;\n}\n"),
            SIMTVP_ERR_PARSE);
  EXPECT_NE(g.diag.message, std::string());
  // a descriptor reaching past the CTA's shared memory faults naming it
  Gpu f;
  ASSERT_EQ(f.load(head + "  wgmma.fence.sync.aligned;\n"
                          "  wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%d0, %d1, %d2, %d3}, %rd1, %rd1, 1, 1, 1, 0, 0;\n"
                          "  ret;\n}\n"),
            SIMTVP_OK)
      << f.diag.message;
  uint64_t desc = (uint64_t)(4096 >> 4) | (uint64_t)(128 >> 4) << 16 | (uint64_t)(256 >> 4) << 32;
  EXPECT_EQ(f.launch("k", 1, 128, {desc}, 1024), SIMTVP_ERR_FAULT);
  EXPECT_NE(std::string(f.diag.message).find("wgmma: matrix descriptor"), std::string::npos) << f.diag.message;
}

}  // namespace
