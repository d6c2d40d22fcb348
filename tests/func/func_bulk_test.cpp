// Hopper's bulk asynchronous copies (models/func/exec_async.c): cp.async.bulk between global and
// shared memory completing on an mbarrier or a bulk group, cp.async.bulk.tensor through tensor maps
// (func_tensormap.h) with out-of-bounds fill and swizzling, the encoder's argument checks, and the
// hints that compute nothing (setmaxnreg, createpolicy, fence.proxy.async, prefetch).
#include <cstring>

#include "func_test_util.h"

extern "C" {
#include "func_tensormap.h"
}

using namespace functest;

namespace {

const char *kHeader = ".version 8.0\n.target sm_90\n.address_size 64\n";

// A 2-D tensor map of u32 elements: dims (w, h), row pitch `pitch` bytes, box (bw, bh).
func_tensor_map tmap_2d(uint64_t base, uint32_t w, uint32_t h, uint64_t pitch, uint32_t bw, uint32_t bh,
                        uint32_t swizzle = FUNC_TMAP_SWIZZLE_NONE, uint32_t type = FUNC_TMAP_U32) {
  alignas(64) func_tensor_map t;
  uint64_t dims[2] = {w, h}, strides[1] = {pitch};
  uint32_t box[2] = {bw, bh}, es[2] = {1, 1};
  simtvp_diag d;
  EXPECT_EQ(func_tensor_map_encode_tiled(&t, type, 2, base, dims, strides, box, es, 0, swizzle, 0, 0, &d), SIMTVP_OK)
      << d.message;
  return t;
}

}  // namespace

// One thread copies 256 bytes of global memory into shared memory with cp.async.bulk, which
// completes 256 bytes of transactions on an mbarrier whose phase expects them
// (arrive.expect_tx), doubles the words in shared memory and copies them back to global memory
// with the bulk-group form; the prefetch and the hints change nothing.
TEST(FuncBulk, BulkCopiesCompleteOnAnMbarrierAndABulkGroup) {
  Gpu g;
  std::string ptx = std::string(kHeader) + R"(
.visible .entry k(.param .u64 out, .param .u64 in)
{
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<12>;
  .shared .align 128 .b32 buf[64];
  .shared .align 8 .b64 mb;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [in];
  setmaxnreg.inc.sync.aligned.u32 232;
  createpolicy.fractional.L2::evict_last.b64 %rd9, 1.0;
  cp.async.bulk.prefetch.L2.global [%rd2], 256;
  mov.u32 %r1, buf;
  mov.u32 %r2, mb;
  mbarrier.init.shared.b64 [%r2], 1;
  fence.mbarrier_init.release.cluster;
  mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd3, [%r2], 256;
  mbarrier.test_wait.shared.b64 %p1, [%r2], %rd3;
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%r1], [%rd2], 256, [%r2], %rd9;
  mbarrier.try_wait.parity.shared.b64 %p2, [%r2], 0;
  selp.u32 %r3, 1, 0, %p1;
  selp.u32 %r4, 1, 0, %p2;
  mov.u32 %r5, 0;
LOOP:
  shl.b32 %r6, %r5, 2;
  add.u32 %r7, %r1, %r6;
  ld.shared.u32 %r8, [%r7];
  shl.b32 %r8, %r8, 1;
  st.shared.u32 [%r7], %r8;
  add.u32 %r5, %r5, 1;
  setp.lt.u32 %p3, %r5, 64;
  @%p3 bra LOOP;
  fence.proxy.async.shared::cta;
  cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], 256;
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 0;
  cp.async.bulk.wait_group 0;
  st.global.u32 [%rd1+256], %r3;
  st.global.u32 [%rd1+260], %r4;
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  std::vector<uint32_t> in(64);
  for (uint32_t i = 0; i < 64; i++) in[i] = 7 * i + 1;
  uint64_t din = g.upload(in), dout = g.alloc(264);
  ASSERT_EQ(g.launch("k", 1, 1, {dout, din}), SIMTVP_OK) << g.diag.message;
  auto v = g.download<uint32_t>(dout, 66);
  for (uint32_t i = 0; i < 64; i++) EXPECT_EQ(v[i], 2 * (7 * i + 1)) << i;
  EXPECT_EQ(v[64], 0u) << "the phase waits for 256 bytes";
  EXPECT_EQ(v[65], 1u) << "the bulk copy completed them";
}

// A 10 x 6 tensor of u32, element (x, y) = 100 y + x, rows 64 bytes apart (48 bytes of padding).
// A box of 8 x 4 at (4, 3) covers x 4..11 and y 3..6: elements with x >= 10 or y >= 6 are out of
// bounds and read as zero; the box lands row by row in shared memory and the phase completes on
// all 128 bytes. The tensor map is a kernel parameter (a __grid_constant__ CUtensorMap), reached
// through cvta.param as nvcc writes it. The box is then stored back at (0, 0) of a second tensor
// (shared -> global), whose out-of-bounds part (none here: 8 x 4 fits 10 x 6) is not written.
TEST(FuncBulk, TensorCopiesFillOutOfBoundsElementsWithZero) {
  Gpu g;
  std::string ptx = std::string(kHeader) + R"(
.visible .entry k(.param .align 64 .b8 tm[128], .param .u64 out, .param .u64 tm2)
{
  .reg .pred %p<2>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<12>;
  .shared .align 128 .b32 box[32];
  .shared .align 8 .b64 mb;
  mov.b64 %rd1, tm;
  cvta.param.u64 %rd2, %rd1;
  ld.param.u64 %rd3, [out];
  ld.param.u64 %rd4, [tm2];
  mov.u32 %r1, box;
  mov.u32 %r2, mb;
  mbarrier.init.shared.b64 [%r2], 1;
  mov.u32 %r3, 4;
  mov.u32 %r4, 3;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd2, {%r3, %r4}], [%r2];
  mbarrier.arrive.expect_tx.shared.b64 %rd5, [%r2], 128;
  mbarrier.test_wait.shared.b64 %p1, [%r2], %rd5;
  selp.u32 %r5, 1, 0, %p1;
  st.global.u32 [%rd3+128], %r5;
  mov.u32 %r6, 0;
  cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd4, {%r6, %r6}], [%r1];
  cp.async.bulk.commit_group;
  cp.async.bulk.wait_group.read 0;
  mov.u32 %r7, 0;
COPY:
  shl.b32 %r8, %r7, 2;
  add.u32 %r9, %r1, %r8;
  ld.shared.u32 %r10, [%r9];
  cvt.u64.u32 %rd6, %r8;
  add.s64 %rd7, %rd3, %rd6;
  st.global.u32 [%rd7], %r10;
  add.u32 %r7, %r7, 1;
  setp.lt.u32 %p1, %r7, 32;
  @%p1 bra COPY;
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  std::vector<uint32_t> tensor(16 * 6, 0xdead), dst(16 * 6, 0xbeef);
  for (uint32_t y = 0; y < 6; y++)
    for (uint32_t x = 0; x < 10; x++) tensor[y * 16 + x] = 100 * y + x;
  uint64_t dt = g.upload(tensor), dd = g.upload(dst), out = g.alloc(132);
  func_tensor_map tm = tmap_2d(dt, 10, 6, 64, 8, 4);
  std::vector<func_tensor_map> tm2v{tmap_2d(dd, 10, 6, 64, 8, 4)};
  uint64_t dtm2 = g.upload(tm2v);
  const void *args[3] = {&tm, &out, &dtm2};
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  ASSERT_EQ(func_runner_launch(g.r, "k", grid, block, 0, args, &g.diag), SIMTVP_OK) << g.diag.message;
  auto v = g.download<uint32_t>(out, 33);
  for (uint32_t by = 0; by < 4; by++)
    for (uint32_t bx = 0; bx < 8; bx++) {
      uint32_t x = 4 + bx, y = 3 + by;
      EXPECT_EQ(v[by * 8 + bx], x < 10 && y < 6 ? 100 * y + x : 0u) << "box (" << bx << "," << by << ")";
    }
  EXPECT_EQ(v[32], 1u) << "the phase completed on the box's 128 bytes";
  auto back = g.download<uint32_t>(dd, 16 * 6);
  for (uint32_t y = 0; y < 6; y++)
    for (uint32_t x = 0; x < 16; x++) {
      uint32_t want = x < 8 && y < 4 ? (4 + x < 10 && 3 + y < 6 ? 100 * (3 + y) + 4 + x : 0u) : 0xbeef;
      EXPECT_EQ(back[y * 16 + x], want) << "stored (" << x << "," << y << ")";
    }
}

// CU_TENSOR_MAP_SWIZZLE_128B: within every 1024 bytes of shared memory, the 16-byte unit u of the
// 128-byte row r lands at unit u ^ (r % 8). A 32 x 8 box of u32 (128-byte rows) of element value
// 1000 y + x: word w of row r sits at row r, unit (w / 4) ^ (r % 8), word w % 4.
TEST(FuncBulk, TensorCopySwizzlesSharedMemoryIn16ByteUnits) {
  Gpu g;
  std::string ptx = std::string(kHeader) + R"(
.visible .entry k(.param .u64 out, .param .u64 tmap)
{
  .reg .pred %p<2>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<12>;
  .shared .align 1024 .b32 box[256];
  .shared .align 8 .b64 mb;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [tmap];
  mov.u32 %r1, box;
  mov.u32 %r2, mb;
  mbarrier.init.shared.b64 [%r2], 1;
  mbarrier.expect_tx.shared.b64 [%r2], 1024;
  mov.u32 %r3, 0;
  cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd2, {%r3, %r3}], [%r2];
  mov.u32 %r7, 0;
COPY:
  shl.b32 %r8, %r7, 2;
  add.u32 %r9, %r1, %r8;
  ld.shared.u32 %r10, [%r9];
  cvt.u64.u32 %rd6, %r8;
  add.s64 %rd7, %rd1, %rd6;
  st.global.u32 [%rd7], %r10;
  add.u32 %r7, %r7, 1;
  setp.lt.u32 %p1, %r7, 256;
  @%p1 bra COPY;
  ret;
})";
  ASSERT_EQ(g.load(ptx), SIMTVP_OK) << g.diag.message;
  std::vector<uint32_t> tensor(32 * 8);
  for (uint32_t y = 0; y < 8; y++)
    for (uint32_t x = 0; x < 32; x++) tensor[y * 32 + x] = 1000 * y + x;
  uint64_t dt = g.upload(tensor), out = g.alloc(1024);
  std::vector<func_tensor_map> tm{tmap_2d(dt, 32, 8, 128, 32, 8, FUNC_TMAP_SWIZZLE_128B)};
  uint64_t dtm = g.upload(tm);
  ASSERT_EQ(g.launch("k", 1, 1, {out, dtm}), SIMTVP_OK) << g.diag.message;
  auto v = g.download<uint32_t>(out, 256);
  for (uint32_t r = 0; r < 8; r++)
    for (uint32_t w = 0; w < 32; w++) {
      uint32_t pos = r * 32 + (((w / 4) ^ (r % 8)) * 4) + w % 4;
      EXPECT_EQ(v[pos], 1000 * r + w) << "row " << r << " word " << w;
    }
}

// cuTensorMapEncodeTiled's documented argument rules, each a named error.
TEST(FuncBulk, TensorMapEncoderChecksCudasRules) {
  alignas(64) func_tensor_map t;
  simtvp_diag d;
  uint64_t dims[2] = {64, 64}, strides[1] = {256};
  uint32_t box[2] = {16, 16}, es[2] = {1, 1};
  auto enc = [&](uint32_t type, uint64_t addr, uint32_t swz, uint32_t il) {
    simtvp_diag_clear(&d);
    return func_tensor_map_encode_tiled(&t, type, 2, addr, dims, strides, box, es, il, swz, 0, 0, &d);
  };
  EXPECT_EQ(enc(FUNC_TMAP_F32, 0x1000, 0, 0), SIMTVP_OK) << d.message;
  EXPECT_EQ(enc(FUNC_TMAP_F32, 0x1008, 0, 0), SIMTVP_ERR_ARG);
  EXPECT_NE(std::string(d.message).find("globalAddress"), std::string::npos) << d.message;
  EXPECT_EQ(enc(99, 0x1000, 0, 0), SIMTVP_ERR_ARG);
  EXPECT_EQ(enc(FUNC_TMAP_F32, 0x1000, FUNC_TMAP_SWIZZLE_32B, 0), SIMTVP_ERR_ARG) << "64-byte rows, 32-byte swizzle";
  EXPECT_NE(std::string(d.message).find("swizzle"), std::string::npos) << d.message;
  EXPECT_EQ(enc(FUNC_TMAP_F32, 0x1000, 0, 1), SIMTVP_ERR_UNSUPPORTED);
  strides[0] = 250;
  EXPECT_EQ(enc(FUNC_TMAP_F32, 0x1000, 0, 0), SIMTVP_ERR_ARG);
  EXPECT_NE(std::string(d.message).find("globalStrides[0]"), std::string::npos) << d.message;
  strides[0] = 256;
  box[0] = 3;
  EXPECT_EQ(enc(FUNC_TMAP_F32, 0x1000, 0, 0), SIMTVP_ERR_ARG) << "12-byte box rows";
  box[0] = 300;
  EXPECT_EQ(enc(FUNC_TMAP_U8, 0x1000, 0, 0), SIMTVP_ERR_ARG);
  EXPECT_NE(std::string(d.message).find("boxDim[0]"), std::string::npos) << d.message;
  box[0] = 16;
  es[1] = 9;
  EXPECT_EQ(enc(FUNC_TMAP_F32, 0x1000, 0, 0), SIMTVP_ERR_ARG);
}

// A tensor copy through an address that holds no tensor map, and a bulk copy of a size that is
// not a multiple of 16, are faults naming the address.
TEST(FuncBulk, BulkAndTensorMisuseIsAFault) {
  std::string err;
  run_lanes("mov.u32 %r2, 0;\n  mov.u32 %r3, mbx;\n  mbarrier.init.shared.b64 [%r3], 1;\n"
            "  cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [sbx], [%rd4, {%r2}], [%r3];",
            std::vector<Slot>(1), &err, ".shared .align 128 .b8 sbx[256];\n.shared .align 8 .b64 mbx;\n");
  EXPECT_NE(err.find("does not hold a tensor map"), std::string::npos) << err;
  err.clear();
  run_lanes("mov.u32 %r3, mbx;\n  mbarrier.init.shared.b64 [%r3], 1;\n"
            "  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [sbx], [%rd4], 24, [%r3];",
            std::vector<Slot>(1), &err, ".shared .align 128 .b8 sbx[256];\n.shared .align 8 .b64 mbx;\n");
  EXPECT_NE(err.find("multiples of 16"), std::string::npos) << err;
}
