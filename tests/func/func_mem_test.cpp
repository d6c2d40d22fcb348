// Memory instructions of the functional engine (PTX ISA chapter 5 state spaces, 9.7.9 ld/st/cvta/
// isspacep, 9.7.13 atom/red): every width with sign/zero extension, vectors, shared (static and
// dynamic), local, const and global module variables with initialisers and relocations, kernel
// parameters, generic addressing through the windows, atomics and reductions.
#include <algorithm>
#include <set>

#include "func_test_util.h"

using namespace functest;

namespace {

const char *kHeader = ".version 8.0\n.target sm_80\n.address_size 64\n";

TEST(FuncMem, LoadsOfEveryWidthSignOrZeroExtend) {
  std::vector<Slot> in(4);
  uint8_t pat[4][8] = {{0x80, 0xff, 0x34, 0x12, 0x78, 0x56, 0x34, 0x92},
                       {0x7f, 0x00, 0x00, 0x80, 0x01, 0x00, 0x00, 0x00},
                       {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
                       {0x01, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80}};
  for (int i = 0; i < 4; i++) std::memcpy(&in[i].q[0], pat[i], 8);
  auto out = run_lanes(
      "ld.global.u8 %r2, [%rd4]; ld.global.s8 %r3, [%rd4]; ld.global.u16 %r4, [%rd4]; ld.global.s16 %r5, [%rd4];\n"
      "ld.global.s32 %rd6, [%rd4+4]; ld.global.u32 %rd7, [%rd4+4]; ld.global.s8 %rd8, [%rd4+1];\n"
      "ld.global.u8 %h1, [%rd4+1]; ld.global.s8 %h2, [%rd4]; cvt.u32.u16 %r6, %h1; cvt.s32.s16 %r7, %h2;\n"
      "st.global.v4.u32 [%rd5], {%r2, %r3, %r4, %r5};\n st.global.u64 [%rd5+16], %rd6;\n"
      "xor.b64 %rd9, %rd7, %rd8; st.global.u32 [%rd5+24], %r6; st.global.u32 [%rd5+28], %r7;",
      in);
  for (int i = 0; i < 4; i++) {
    const uint8_t *p = pat[i];
    EXPECT_EQ(out[i].u32(0), (uint32_t)p[0]);
    EXPECT_EQ(out[i].u32(1), (uint32_t)(int32_t)(int8_t)p[0]);
    EXPECT_EQ(out[i].u32(2), (uint32_t)(p[0] | p[1] << 8));
    EXPECT_EQ(out[i].u32(3), (uint32_t)(int32_t)(int16_t)(p[0] | p[1] << 8));
    int32_t w;
    std::memcpy(&w, p + 4, 4);
    EXPECT_EQ(out[i].q[2], (uint64_t)(int64_t)w) << "ld.s32 into a 64-bit register sign-extends";
    EXPECT_EQ(out[i].u32(6), (uint32_t)p[1]);
    EXPECT_EQ(out[i].u32(7), (uint32_t)(int32_t)(int8_t)p[0]);
  }
}

TEST(FuncMem, VectorLoadsAndStoresMoveEveryElement) {
  std::vector<Slot> in(40);
  for (size_t i = 0; i < in.size(); i++)
    for (int k = 0; k < 8; k++) in[i].set_u32(k, (uint32_t)(i * 100 + k));
  auto out = run_lanes("ld.global.v4.u32 {%r2, %r3, %r4, %r5}, [%rd4];\n ld.global.v2.u64 {%rd6, %rd7}, [%rd4+16];\n"
                       "st.global.v2.u64 [%rd5], {%rd7, %rd6};\n st.global.v4.u32 [%rd5+16], {%r5, %r4, %r3, %r2};\n"
                       "ld.global.v4.u8 {%h1, %h2, %h3, %h4}, [%rd4+4];\n st.global.v2.u8 [%rd5+30], {%h4, %h1};",
                       in);
  for (size_t i = 0; i < in.size(); i++) {
    EXPECT_EQ(out[i].q[0], in[i].q[3]);
    EXPECT_EQ(out[i].q[1], in[i].q[2]);
    EXPECT_EQ(out[i].u32(4), in[i].u32(3));
    EXPECT_EQ(out[i].u32(7) >> 16, ((in[i].u32(1) >> 24) & 0xff) | ((in[i].u32(1) & 0xff) << 8));
  }
}

TEST(FuncMem, SharedMemoryHoldsStaticAndDynamicVariablesPerCta) {
  Gpu g;
  std::string ptx = std::string(kHeader) + R"(
.extern .shared .align 16 .b8 dyn[];
.visible .entry k(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b32 stat[64];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, stat;
  mov.u32 %r4, dyn;
  shl.b32 %r5, %r1, 2;
  add.u32 %r6, %r3, %r5;
  add.u32 %r7, %r4, %r5;
  mad.lo.u32 %r8, %r2, 1000, %r1;
  st.shared.u32 [%r6], %r8;
  add.u32 %r9, %r8, 500;
  st.shared.u32 [%r7], %r9;
  bar.sync 0;
  // read the neighbour's values (tid ^ 1)
  xor.b32 %r10, %r5, 4;
  add.u32 %r11, %r3, %r10;
  add.u32 %r12, %r4, %r10;
  ld.shared.u32 %r13, [%r11];
  ld.shared.u32 %r14, [%r12];
  mov.u32 %r15, %dynamic_smem_size;
  mad.lo.u32 %r8, %r2, 64, %r1;
  mul.wide.u32 %rd2, %r8, 16;
  add.s64 %rd3, %rd1, %rd2;
  sub.u32 %r4, %r4, %r3;
  st.global.v4.u32 [%rd3], {%r13, %r14, %r15, %r4};
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(3 * 64 * 16);
  ASSERT_EQ(g.launch("k", 3, 64, {out}, 256), SIMTVP_OK) << g.diag.message;
  auto v = g.download<uint32_t>(out, 3 * 64 * 4);
  for (uint32_t c = 0; c < 3; c++)
    for (uint32_t t = 0; t < 64; t++) {
      const uint32_t *e = &v[(c * 64 + t) * 4];
      EXPECT_EQ(e[0], c * 1000 + (t ^ 1));
      EXPECT_EQ(e[1], c * 1000 + (t ^ 1) + 500);
      EXPECT_EQ(e[2], 256u);
      EXPECT_GE(e[3], 256u) << "dynamic shared memory starts after the static variables";
    }
}

// Shared and local addresses are 32 bits wide, as on the hardware: a 32-bit register holding -64
// plus an offset of 68 is address 4 (nvcc emits such sums, e.g. `ld.shared.u32 %r62, [%r4+68]`),
// not 0x100000004. Read through the fast path (no step record) and the general path (a 2-byte
// load), and written to local memory the same way; WARP_SZ is 32.
TEST(FuncMem, SharedAndLocalAddressSumsWrapAt32Bits) {
  Gpu g;
  std::string ptx = std::string(kHeader) + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b16 %h<2>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b32 s[8];
  .local .align 4 .b32 lv[4];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, s;
  shl.b32 %r3, %r1, 2;
  add.u32 %r5, %r2, %r3;
  add.u32 %r6, %r1, 100;
  st.shared.u32 [%r5], %r6;
  bar.sync 0;
  mov.u32 %r4, -64;
  add.u32 %r4, %r4, %r2;
  ld.shared.u32 %r7, [%r4+68];
  ld.shared.u16 %h1, [%r4+72];
  cvt.u32.u16 %r8, %h1;
  mov.u32 %r9, lv;
  add.u32 %r9, %r9, -8;
  st.local.u32 [%r9+12], %r6;
  ld.local.u32 %r10, [%r9+12];
  ld.local.u32 %r11, [lv+4];
  mov.u32 %r12, WARP_SZ;
  mul.wide.u32 %rd2, %r1, 16;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r7, %r8, %r11, %r12};
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(8 * 16);
  ASSERT_EQ(g.launch("k", 1, 8, {out}), SIMTVP_OK) << g.diag.message;
  auto v = g.download<uint32_t>(out, 8 * 4);
  for (uint32_t t = 0; t < 8; t++) {
    EXPECT_EQ(v[t * 4 + 0], 101u) << "s[1] through -64 + 68";
    EXPECT_EQ(v[t * 4 + 1], 102u) << "low half of s[2] through -64 + 72";
    EXPECT_EQ(v[t * 4 + 2], t + 100) << "lv[1] written through (lv - 8) + 12";
    EXPECT_EQ(v[t * 4 + 3], 32u) << "WARP_SZ";
  }
}

// A 16×4 CTA: each half-warp is one row of a 16-wide tile, as in tiled kernels. Shared accesses
// whose halves are contiguous (s[tid], s[16 + tx]) or uniform (s[16 ty + 2], u[ty]) take the
// engine's half-warp path; s[3 tx] gathers lane by lane. Racing stores of one instruction to one
// word leave the highest lane's value on every path (lanes store in lane order).
TEST(FuncMem, HalfWarpSharedAccessesReadAndWriteWhatEachLaneAddresses) {
  Gpu g;
  std::string ptx = std::string(kHeader) + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<32>;
  .reg .b64 %rd<8>;
  .shared .align 4 .b32 s[64];
  .shared .align 4 .b32 u[4];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  shl.b32 %r3, %r2, 4;
  add.u32 %r4, %r3, %r1;
  mov.u32 %r5, s;
  shl.b32 %r6, %r4, 2;
  add.u32 %r7, %r5, %r6;
  mad.lo.u32 %r8, %r4, 3, 1;
  st.shared.u32 [%r7], %r8;
  mov.u32 %r9, u;
  shl.b32 %r10, %r2, 2;
  add.u32 %r11, %r9, %r10;
  st.shared.u32 [%r11], %r4;
  bar.sync 0;
  shl.b32 %r12, %r3, 2;
  add.u32 %r13, %r5, %r12;
  ld.shared.u32 %r14, [%r13+8];
  shl.b32 %r15, %r1, 2;
  add.u32 %r16, %r5, %r15;
  ld.shared.u32 %r17, [%r16+64];
  mul.lo.u32 %r18, %r1, 12;
  add.u32 %r19, %r5, %r18;
  ld.shared.u32 %r20, [%r19];
  ld.shared.u32 %r21, [%r11];
  mul.wide.u32 %rd2, %r4, 16;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r14, %r17, %r20, %r21};
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(64 * 16);
  ASSERT_EQ(g.launch("k", 1, 16, {out}, 0, 1, 4), SIMTVP_OK) << g.diag.message;
  auto v = g.download<uint32_t>(out, 64 * 4);
  for (uint32_t t = 0; t < 64; t++) {
    uint32_t tx = t % 16, ty = t / 16;
    EXPECT_EQ(v[t * 4 + 0], 3 * (16 * ty + 2) + 1) << "row broadcast s[16 ty + 2], thread " << t;
    EXPECT_EQ(v[t * 4 + 1], 3 * (16 + tx) + 1) << "row segment s[16 + tx], thread " << t;
    EXPECT_EQ(v[t * 4 + 2], 3 * (3 * tx) + 1) << "gather s[3 tx], thread " << t;
    EXPECT_EQ(v[t * 4 + 3], 16 * ty + 15) << "u[ty] keeps the row's last lane, thread " << t;
  }
}

// A half-warp whose contiguous words run past the end of shared memory is refused by the
// half-warp path and reported by the general one: the first lane outside, its address.
TEST(FuncMem, HalfWarpSharedLoadPastTheEndFaultsAtTheFirstLaneOutside) {
  Gpu g;
  std::string ptx = std::string(kHeader) + R"(
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .shared .align 4 .b32 s[64];
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, s;
  add.u32 %r4, %r3, %r2;
  ld.shared.u32 %r5, [%r4+224];
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(32 * 4);
  EXPECT_NE(g.launch("k", 1, 32, {out}), SIMTVP_OK);
  std::string msg = g.diag.message;
  EXPECT_NE(msg.find("thread (8,0,0)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("0x100"), std::string::npos) << "the first word past 256 bytes: " << msg;
  EXPECT_NE(msg.find("shared memory"), std::string::npos) << msg;
}

// A warp whose lanes are on several pages (lane i at element 256 i: 1 KiB apart, eight pages, as a
// tile's rows of a large matrix) loads and stores each lane's own word — 4-byte and 8-byte loads,
// 4-byte stores — and a lane on a page that is not mapped is reported precisely.
TEST(FuncMem, GlobalAccessesSpreadOverPagesMoveEachLanesWord) {
  Gpu g;
  std::string ptx = std::string(kHeader) + R"(
.visible .entry k(.param .u64 out, .param .u64 in, .param .u32 stride)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  ld.param.u32 %r7, [stride];
  mov.u32 %r1, %tid.x;
  mul.lo.u32 %r6, %r1, %r7;
  mul.wide.u32 %rd3, %r6, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r2, [%rd4];
  mul.wide.u32 %rd5, %r6, 8;
  add.s64 %rd6, %rd2, %rd5;
  ld.global.u64 %rd7, [%rd6];
  cvt.u32.u64 %r3, %rd7;
  add.u32 %r4, %r2, %r3;
  add.s64 %rd8, %rd1, %rd3;
  st.global.u32 [%rd8], %r4;
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  std::vector<uint32_t> in(32 * 512);
  for (uint32_t i = 0; i < in.size(); i++) in[i] = i * 7 + 3;
  uint64_t din = g.upload(in), dout = g.alloc(32 * 256 * 4);
  ASSERT_EQ(g.launch("k", 1, 32, {dout, din, 256}), SIMTVP_OK) << g.diag.message;
  auto v = g.download<uint32_t>(dout, 32 * 256);
  for (uint32_t t = 0; t < 32; t++)
    EXPECT_EQ(v[t * 256], in[t * 256] + in[t * 512]) << "u32 at 256 t plus the low word of u64 at 256 t, thread " << t;
  // stride 2048 words: lane 2 is 16 KiB past a 16 KiB buffer (not mapped; the next allocation
  // starts further on), so the warp faults there and not at a lane before it
  uint64_t small = g.alloc(16384);
  EXPECT_NE(g.launch("k", 1, 32, {dout, small, 2048}), SIMTVP_OK);
  std::string msg = g.diag.message;
  EXPECT_NE(msg.find("thread (2,0,0)"), std::string::npos) << "lanes 0 and 1 are inside the buffer: " << msg;
  EXPECT_NE(msg.find("not mapped"), std::string::npos) << msg;
}

// A 16×2 CTA reads and writes a row of 16 words per half-warp, rows `stride` words apart: one run
// of 32 words (16), two rows on one page (32), two rows on different pages (1040: 4160 bytes), one
// row twice (0). Each takes the engine's whole-warp global path; every lane moves its own word.
TEST(FuncMem, HalfWarpRowsOfGlobalMemoryOnOneOrTwoPagesMoveEachLanesWord) {
  Gpu g;
  std::string ptx = std::string(kHeader) + R"(
.visible .entry k(.param .u64 out, .param .u64 in, .param .u32 stride)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  ld.param.u32 %r7, [stride];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mad.lo.u32 %r3, %r2, %r7, %r1;
  mul.wide.u32 %rd3, %r3, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r4, [%rd4];
  add.u32 %r5, %r4, 1000;
  add.s64 %rd5, %rd1, %rd3;
  st.global.u32 [%rd5], %r5;
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  std::vector<uint32_t> in(2048);
  for (uint32_t i = 0; i < in.size(); i++) in[i] = i * 5 + 1;
  uint64_t din = g.upload(in);
  for (uint32_t stride : {16u, 32u, 1040u, 0u}) {
    uint64_t dout = g.alloc(2048 * 4);
    ASSERT_EQ(g.launch("k", 1, 16, {dout, din, stride}, 0, 1, 2), SIMTVP_OK) << g.diag.message;
    auto v = g.download<uint32_t>(dout, 2048);
    for (uint32_t ty = 0; ty < 2; ty++)
      for (uint32_t tx = 0; tx < 16; tx++) {
        uint32_t i = ty * stride + tx;
        EXPECT_EQ(v[i], in[i] + 1000) << "stride " << stride << ", thread (" << tx << "," << ty << ")";
      }
  }
}

TEST(FuncMem, GenericAddressesReachSharedLocalAndGlobal) {
  Gpu g;
  std::string ptx = std::string(kHeader) + R"(
.visible .entry k(.param .u64 out)
{
  .local .align 8 .b8 depot[16];
  .shared .align 4 .b32 sh[64];
  .reg .pred %p<8>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<16>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd2, %r1, 32;
  add.s64 %rd3, %rd1, %rd2;          // global pointer of this thread's output
  mov.u64 %rd4, sh;
  cvta.shared.u64 %rd5, %rd4;        // generic pointer to shared
  mul.wide.u32 %rd6, %r1, 4;
  add.s64 %rd7, %rd5, %rd6;
  add.u32 %r2, %r1, 7;
  st.u32 [%rd7], %r2;                // generic store to shared
  mov.u64 %rd8, depot;
  cvta.local.u64 %rd9, %rd8;         // generic pointer to local
  add.u32 %r3, %r1, 9;
  st.u32 [%rd9+4], %r3;              // generic store to local
  ld.local.u32 %r4, [depot+4];       // read it through .local
  add.s64 %rd10, %rd4, %rd6;
  ld.shared.u32 %r5, [%rd10];        // and the shared one through .shared
  isspacep.shared %p1, %rd7;
  isspacep.local %p2, %rd9;
  isspacep.global %p3, %rd3;
  isspacep.global %p4, %rd7;
  selp.u32 %r6, 1, 0, %p1;
  selp.u32 %r7, 2, 0, %p2;
  selp.u32 %r8, 4, 0, %p3;
  selp.u32 %r9, 8, 0, %p4;
  or.b32 %r6, %r6, %r7; or.b32 %r6, %r6, %r8; or.b32 %r6, %r6, %r9;
  cvta.to.shared.u64 %rd11, %rd7;
  cvt.u32.u64 %r10, %rd11;
  st.u32 [%rd3], %r4;                // generic store to global
  st.global.u32 [%rd3+4], %r5;
  st.global.u32 [%rd3+8], %r6;
  st.global.u32 [%rd3+12], %r10;
  cvta.global.u64 %rd12, %rd3;
  ld.u32 %r11, [%rd12];
  st.global.u32 [%rd3+16], %r11;
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(40 * 32);
  ASSERT_EQ(g.launch("k", 1, 40, {out}), SIMTVP_OK) << g.diag.message;
  auto v = g.download<uint32_t>(out, 40 * 8);
  for (uint32_t t = 0; t < 40; t++) {
    EXPECT_EQ(v[t * 8 + 0], t + 9);
    EXPECT_EQ(v[t * 8 + 1], t + 7);
    EXPECT_EQ(v[t * 8 + 2], 1u | 2u | 4u) << "isspacep: shared, local, global yes; shared pointer not global";
    EXPECT_EQ(v[t * 8 + 3], 4 * t) << "cvta.to.shared gives the shared offset";
    EXPECT_EQ(v[t * 8 + 4], t + 9);
  }
}

TEST(FuncMem, LocalArraysArePrivateToEachThread) {
  Gpu g;
  std::string ptx = std::string(kHeader) + R"(
.visible .entry k(.param .u64 out)
{
  .local .align 4 .b8 arr[64];
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.u64 %rd6, arr;
  st.local.u32 [arr], %r1;
  add.u32 %r2, %r1, 1000;
  st.local.u32 [%rd6+60], %r2;
  bar.sync 0;
  ld.local.u32 %r3, [%rd6];
  ld.local.u32 %r4, [arr+60];
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v2.u32 [%rd3], {%r3, %r4};
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  uint64_t o = g.alloc(64 * 8);
  ASSERT_EQ(g.launch("k", 1, 64, {o}), SIMTVP_OK) << g.diag.message;
  auto v = g.download<uint32_t>(o, 128);
  for (uint32_t t = 0; t < 64; t++) {
    EXPECT_EQ(v[2 * t], t);
    EXPECT_EQ(v[2 * t + 1], t + 1000);
  }
}

TEST(FuncMem, ModuleVariablesAreInitialisedAndRelocated) {
  Gpu g;
  std::string ptx = std::string(kHeader) + R"(
.global .align 4 .u32 table[4] = {11, 22, 33, 44};
.global .align 8 .u64 tptr = generic(table);
.const .align 4 .f32 coef[2] = {0f3FC00000, 0f40200000};
.global .align 4 .u32 counter;
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.global.u32 %r1, [table+8];
  ld.global.u64 %rd2, [tptr];
  ld.u32 %r2, [%rd2+12];
  ld.const.f32 %f1, [coef+4];
  mov.u64 %rd3, coef;
  ld.const.f32 %f2, [%rd3];
  atom.global.add.u32 %r3, [counter], 1;
  st.global.v2.u32 [%rd1], {%r1, %r2};
  st.global.v2.f32 [%rd1+8], {%f1, %f2};
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(16);
  ASSERT_EQ(g.launch("k", 1, 1, {out}), SIMTVP_OK) << g.diag.message;
  auto v = g.download<uint32_t>(out, 4);
  EXPECT_EQ(v[0], 33u);
  EXPECT_EQ(v[1], 44u);
  EXPECT_EQ(u2f(v[2]), 2.5f);
  EXPECT_EQ(u2f(v[3]), 1.5f);
  uint64_t counter = 0, bytes = 0;
  ASSERT_TRUE(func_runner_symbol(g.r, "counter", &counter, &bytes));
  EXPECT_EQ(bytes, 4u);
  EXPECT_EQ(g.download<uint32_t>(counter, 1)[0], 1u);
}

TEST(FuncMem, KernelParametersOfEverySizeAndAggregates) {
  Gpu g;
  std::string ptx = std::string(kHeader) + R"(
.visible .entry k(.param .u64 out, .param .u8 a, .param .u16 b, .param .u32 c, .param .u64 d,
                  .param .f64 e, .param .align 4 .b8 s[12])
{
  .reg .b16 %h<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  .reg .f64 %fd<2>;
  ld.param.u64 %rd1, [out];
  ld.param.u8 %h1, [a];
  ld.param.u16 %h2, [b];
  ld.param.u32 %r1, [c];
  ld.param.u64 %rd2, [d];
  ld.param.f64 %fd1, [e];
  ld.param.u32 %r2, [s+4];
  ld.param.u32 %r3, [s+8];
  cvt.u32.u16 %r4, %h1;
  cvt.u32.u16 %r5, %h2;
  st.global.v4.u32 [%rd1], {%r4, %r5, %r1, %r2};
  st.global.u32 [%rd1+16], %r3;
  st.global.u64 [%rd1+24], %rd2;
  st.global.f64 [%rd1+32], %fd1;
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(40);
  EXPECT_EQ(func_runner_param_count(g.r, "k"), 7u);
  EXPECT_EQ(func_runner_param_size(g.r, "k", 6), 12u);
  uint64_t o = out, d = 0x1122334455667788ull;
  uint8_t a = 200;
  uint16_t b = 60000;
  uint32_t c = 0xdeadbeef, s[3] = {1, 2, 3};
  double e = -2.5;
  const void *args[] = {&o, &a, &b, &c, &d, &e, s};
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  ASSERT_EQ(func_runner_launch(g.r, "k", grid, block, 0, args, &g.diag), SIMTVP_OK) << g.diag.message;
  auto v = g.download<uint32_t>(out, 10);
  EXPECT_EQ(v[0], 200u);
  EXPECT_EQ(v[1], 60000u);
  EXPECT_EQ(v[2], 0xdeadbeefu);
  EXPECT_EQ(v[3], 2u);
  EXPECT_EQ(v[4], 3u);
  EXPECT_EQ((uint64_t)v[6] | (uint64_t)v[7] << 32, d);
  double got;
  std::memcpy(&got, &v[8], 8);
  EXPECT_EQ(got, -2.5);
}

// All 96 threads hit one word: the returned old values are a permutation of the partial sums.
TEST(FuncMem, AtomicsOnOneAddressSerialiseEveryLane) {
  Gpu g;
  std::string ptx = std::string(kHeader) + R"(
.visible .entry k(.param .u64 out, .param .u64 cell)
{
  .shared .align 8 .b64 scell;
  .reg .pred %p<2>;
  .reg .b32 %r<12>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<12>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [cell];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 st.shared.u64 [scell], 0;
  bar.sync 0;
  atom.global.add.u32 %r2, [%rd2], 3;
  atom.global.max.s32 %r3, [%rd2+4], %r1;
  atom.global.min.u32 %r4, [%rd2+8], %r1;
  atom.global.inc.u32 %r5, [%rd2+12], 9;
  atom.global.exch.b32 %r6, [%rd2+16], %r1;
  atom.global.or.b32 %r7, [%rd2+20], %r1;
  atom.global.add.f32 %f1, [%rd2+24], 0f3F000000;
  atom.global.dec.u32 %r8, [%rd2+28], 5;
  atom.global.add.u64 %rd3, [%rd2+32], 1099511627776;
  atom.shared.add.u64 %rd4, [scell], 2;
  red.global.add.u32 [%rd2+40], %r1;
  atom.global.xor.b32 %r9, [%rd2+44], %r1;
  atom.global.and.b32 %r10, [%rd2+48], %r1;
  mul.wide.u32 %rd5, %r1, 32;
  add.s64 %rd6, %rd1, %rd5;
  st.global.v4.u32 [%rd6], {%r2, %r3, %r4, %r5};
  st.global.v2.u32 [%rd6+16], {%r6, %r8};
  st.global.f32 [%rd6+24], %f1;
  bar.sync 0;
  ld.shared.u64 %rd7, [scell];
  @%p1 st.global.u64 [%rd2+56], %rd7;
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  const uint32_t n = 96;
  uint64_t out = g.alloc(n * 32);
  std::vector<uint32_t> init(16, 0);
  init[2] = 1000;   // min
  init[12] = 0xffu; // and
  uint64_t cell = g.upload(init);
  ASSERT_EQ(g.launch("k", 1, n, {out, cell}), SIMTVP_OK) << g.diag.message;
  auto v = g.download<uint32_t>(out, n * 8);
  auto c = g.download<uint32_t>(cell, 16);
  EXPECT_EQ(c[0], 3 * n);
  EXPECT_EQ(c[1], n - 1);
  EXPECT_EQ(c[2], 0u);
  EXPECT_EQ(c[3], n % 10) << "inc wraps to 0 after 9";
  EXPECT_EQ(u2f(c[6]), 0.5f * n);
  uint32_t dec = 0;  // dec: (old == 0 || old > 5) ? 5 : old - 1, applied n times from 0
  for (uint32_t i = 0; i < n; i++) dec = (dec == 0 || dec > 5) ? 5 : dec - 1;
  EXPECT_EQ(c[7], dec);
  EXPECT_EQ((uint64_t)c[8] | (uint64_t)c[9] << 32, (uint64_t)n << 40);
  EXPECT_EQ(c[10], n * (n - 1) / 2) << "red.add";
  uint32_t x = 0, o = 0;
  for (uint32_t i = 0; i < n; i++) x ^= i, o |= i;
  EXPECT_EQ(c[11], x);
  EXPECT_EQ(c[5], o);
  EXPECT_EQ(c[12], 0u);
  EXPECT_EQ((uint64_t)c[14] | (uint64_t)c[15] << 32, 2ull * n) << "shared 64-bit atomics";
  std::set<uint32_t> olds, exch;
  for (uint32_t t = 0; t < n; t++) {
    olds.insert(v[t * 8]);
    exch.insert(v[t * 8 + 4]);
    EXPECT_EQ(v[t * 8] % 3, 0u);
  }
  EXPECT_EQ(olds.size(), n) << "every lane saw a distinct old value";
  EXPECT_EQ(*olds.rbegin(), 3 * (n - 1));
  // exch chain: the initial 0, then every tid but the last writer's (tid 0 also writes 0)
  EXPECT_EQ(exch.size(), n - 1);
  EXPECT_EQ(*exch.rbegin(), n - 2);
}

TEST(FuncMem, CompareAndSwapImplementsALock) {
  // every thread of 2 warps increments a counter under a CAS spin lock, one lane per warp at a time
  Gpu g;
  std::string ptx = std::string(kHeader) + R"(
.visible .entry k(.param .u64 cell)
{
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [cell];
  mov.u32 %r1, %laneid;
  mov.u32 %r5, 0;
$turn:
  setp.ne.u32 %p1, %r1, %r5;
  @%p1 bra $next;
$spin:
  atom.global.cas.b32 %r2, [%rd1], 0, 1;
  setp.ne.u32 %p2, %r2, 0;
  @%p2 bra $spin;
  ld.volatile.global.u32 %r3, [%rd1+4];
  add.u32 %r3, %r3, 1;
  st.volatile.global.u32 [%rd1+4], %r3;
  atom.global.exch.b32 %r4, [%rd1], 0;
$next:
  add.u32 %r5, %r5, 1;
  setp.lt.u32 %p3, %r5, 32;
  @%p3 bra $turn;
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  uint64_t cell = g.upload(std::vector<uint32_t>{0, 0});
  ASSERT_EQ(g.launch("k", 2, 64, {cell}), SIMTVP_OK) << g.diag.message;
  auto c = g.download<uint32_t>(cell, 2);
  EXPECT_EQ(c[0], 0u);
  EXPECT_EQ(c[1], 128u);
}

TEST(FuncMem, GenericAtomicsResolveSharedAndGlobalPerLane) {
  Gpu g;
  std::string ptx = std::string(kHeader) + R"(
.visible .entry k(.param .u64 cell)
{
  .shared .align 4 .u32 s;
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [cell];
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p1, %r1, 0;
  @%p1 st.shared.u32 [s], 0;
  bar.sync 0;
  mov.u64 %rd2, s;
  cvta.shared.u64 %rd3, %rd2;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  selp.b64 %rd4, %rd3, %rd1, %p1;   // even lanes: shared, odd lanes: global
  atom.add.u32 %r3, [%rd4], 1;
  bar.sync 0;
  setp.eq.u32 %p1, %r1, 0;
  ld.shared.u32 %r4, [s];
  @%p1 st.global.u32 [%rd1+4], %r4;
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  uint64_t cell = g.upload(std::vector<uint32_t>{0, 0});
  ASSERT_EQ(g.launch("k", 1, 64, {cell}), SIMTVP_OK) << g.diag.message;
  auto c = g.download<uint32_t>(cell, 2);
  EXPECT_EQ(c[0], 32u);
  EXPECT_EQ(c[1], 32u);
}

}  // namespace
