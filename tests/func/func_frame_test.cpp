// Register frames (docs/func.md "Register frames"): registers whose live ranges never meet share
// rows of a warp's frame, so nvcc's PTX, which names every value anew, takes the host memory of
// the registers it keeps live rather than of every one it declares. Values and results stay
// those of a row per register: a register written first under a guard, one carried around a
// loop, temporaries of divergent paths, and a register that lanes parked on one path still read
// while the other path writes its row keep their values; a debugger sees every register in its
// own row.
#include <cstring>

#include "func_test_util.h"

using namespace functest;

namespace {

// Frame bytes of `kernel` of `ptx` on an engine, with a debugger's port attached or not.
uint32_t frame_of(const std::string &ptx, const char *kernel, bool debugger) {
  func_ports ports{};
  ports.debug.before = [](void *, func_warp *) {};
  Engine g(ptx, debugger ? &ports : nullptr);
  if (!g.p) return 0;
  return func_program_frame_bytes(g.p, func_program_kernel(g.p, kernel));
}

TEST(FuncFrames, SgemmsTileLoopTemporariesShareRows) {
  // sgemm_tiled's unrolled loop loads 32 values into %f14-%f60, each read once by the next fma:
  // 47 short live ranges that need 3 rows; its frame shrinks by at least 40 rows of 128 bytes
  std::string ptx = read_file(kernels_dir() + "sgemm.ptx");
  uint32_t shared = frame_of(ptx, "_Z11sgemm_tilediiifPKfS0_fPf", false);
  uint32_t own = frame_of(ptx, "_Z11sgemm_tilediiifPKfS0_fPf", true);
  ASSERT_GT(own, 0u);
  EXPECT_LE(shared + 40u * 128u, own) << "frame " << shared << " bytes, " << own << " with a row per register";
}

// Block temporaries in a chain; a register first written under a guard (lanes >= 16 never write
// it and read zero); temporaries on both sides of a divergent branch; a temporary inside a loop
// beside a register carried around it.
const char *kMixed = R"(
  add.u32 %r10, %r1, 1;
  mul.lo.u32 %r11, %r10, 3;
  add.u32 %r12, %r11, 5;
  mul.lo.u32 %r13, %r12, 7;
  st.global.u32 [%rd5], %r13;
  setp.lt.u32 %p1, %r1, 16;
  @%p1 add.u32 %r20, %r1, 1000;
  st.global.u32 [%rd5+4], %r20;
  @%p1 bra LOW;
  add.u32 %r21, %r1, 2000;
  mul.lo.u32 %r22, %r21, 2;
  st.global.u32 [%rd5+8], %r22;
  bra.uni DONE;
LOW:
  add.u32 %r23, %r1, 3000;
  mul.lo.u32 %r24, %r23, 3;
  st.global.u32 [%rd5+8], %r24;
DONE:
  mov.u32 %r25, 0;
  mov.u32 %r26, 0;
LOOP:
  add.u32 %r27, %r25, %r1;
  add.u32 %r26, %r26, %r27;
  add.u32 %r25, %r25, 1;
  setp.lt.u32 %p2, %r25, 4;
  @%p2 bra LOOP;
  st.global.u32 [%rd5+12], %r26;
)";

TEST(FuncFrames, SharedRowsKeepEveryRegistersValues) {
  std::vector<Slot> in(64);
  std::vector<Slot> out = run_lanes(kMixed, in);
  for (uint32_t t = 0; t < 64; t++) {
    EXPECT_EQ(out[t].u32(0), ((t + 1) * 3 + 5) * 7) << "thread " << t;
    EXPECT_EQ(out[t].u32(1), t < 16 ? t + 1000 : 0u) << "thread " << t << ": a guarded first write";
    EXPECT_EQ(out[t].u32(2), t < 16 ? (t + 3000) * 3 : (t + 2000) * 2) << "thread " << t << ": divergent paths";
    EXPECT_EQ(out[t].u32(3), 6 + 4 * t) << "thread " << t << ": a loop's carried register";
  }
  // the chain, the two paths' and the loop's temporaries (and the declared registers no
  // instruction touches) share rows; the guarded register (live from the kernel's start: its
  // lanes that never write it read zero) and the carried ones keep theirs while they live
  std::string ptx = lane_kernel(kMixed);
  uint32_t shared = frame_of(ptx, "k", false), own = frame_of(ptx, "k", true);
  EXPECT_LT(shared, own);
}

// Liveness is per thread: %r10 is read only on the path the low lanes take (READ, placed before
// the branch), so it is dead on the high lanes' path, where %r12 takes its row. The high lanes'
// path runs first (the not-taken path of a divergent branch) and writes %r12 in lanes 16-31 of
// that row; the low lanes then read %r10 from lanes 0-15, untouched because every write is
// masked by the lanes that run it.
const char *kParked = R"(
  add.u32 %r10, %r1, 100;
  bra.uni START;
READ:
  st.global.u32 [%rd5], %r10;
  bra.uni DONE;
START:
  setp.lt.u32 %p1, %r1, 16;
  @%p1 bra READ;
  add.u32 %r12, %r1, 500;
  st.global.u32 [%rd5], %r12;
DONE:
)";

// The same with %r10 read again after the paths meet: live on the high lanes' path too, so
// %r12 needs a row of its own.
const std::string kParkedLive = std::string(kParked) + R"(
  add.u32 %r15, %r10, 500;
  st.global.u32 [%rd5+4], %r15;
)";

TEST(FuncFrames, ARowWrittenOnOnePathKeepsTheValueLanesParkedOnTheOtherRead) {
  std::vector<Slot> in(32);
  std::vector<Slot> out = run_lanes(kParked, in);
  for (uint32_t t = 0; t < 32; t++)
    EXPECT_EQ(out[t].u32(0), t < 16 ? t + 100 : t + 500) << "thread " << t;
  out = run_lanes(kParkedLive, in);
  for (uint32_t t = 0; t < 32; t++) {
    EXPECT_EQ(out[t].u32(0), t < 16 ? t + 100 : t + 500) << "thread " << t;
    EXPECT_EQ(out[t].u32(1), t + 600) << "thread " << t;
  }
  // %r12 shares %r10's row only where %r10 is dead on the high lanes' path
  uint32_t parked = frame_of(lane_kernel(kParked), "k", false);
  uint32_t live = frame_of(lane_kernel(kParkedLive), "k", false);
  EXPECT_EQ(live, parked + 128u) << "one 32-bit row more when %r10 stays live";
}

// A live range follows the control flow, not the order of the code: %r10 is read in USE, placed
// before the two blocks control passes through on its way there (MID1 writes %r12, then MID2),
// so it is live through both and %r12 may not take its row.
const char *kThrough = R"(
  add.u32 %r10, %r1, 100;
  bra.uni MID1;
USE:
  st.global.u32 [%rd5], %r10;
  bra.uni DONE;
MID2:
  bra.uni USE;
MID1:
  add.u32 %r12, %r1, 500;
  st.global.u32 [%rd5+4], %r12;
  bra.uni MID2;
DONE:
)";

TEST(FuncFrames, ALiveRangeFollowsTheControlFlowNotTheCodesOrder) {
  std::vector<Slot> in(32);
  std::vector<Slot> out = run_lanes(kThrough, in);
  for (uint32_t t = 0; t < 32; t++) {
    EXPECT_EQ(out[t].u32(0), t + 100) << "thread " << t;
    EXPECT_EQ(out[t].u32(1), t + 500) << "thread " << t;
  }
}

TEST(FuncFrames, ADebuggerSeesEveryRegisterInItsOwnRow) {
  // with a debugger's port the frame is the declared one: 8 predicates (a 128-byte block), 16
  // .b16 + 32 .b32 + 32 .f32 rows of 128 bytes, 32 + 32 .b64/.f64 rows of 256, the PT block, and
  // the constant rows (at least one)
  uint32_t own = frame_of(lane_kernel(kMixed), "k", true);
  EXPECT_GE(own, 128u + 80u * 128u + 64u * 256u + 128u);
}

}  // namespace
