// ptx_fixtures — small hand-written PTX kernels that tests of several blocks run.
#ifndef SIMTVP_TESTS_SUPPORT_PTX_FIXTURES_H
#define SIMTVP_TESTS_SUPPORT_PTX_FIXTURES_H

namespace test_support {

// `stuck`: warp 0 waits at barrier 1 and warp 1 at barrier 2, each for 64 threads: neither can
// complete (launch 64 threads). Tests check the place of the report against this text: warp 0's
// `bar.sync 1, 64` is pc 5 on line 15 (the raw string starts with a newline).
inline constexpr char kBarrierDeadlockPtx[] = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry stuck()
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.lt.u32 %p1, %r1, 32;
  @%p1 bra W0;
  bar.sync 2, 64;
  ret;
W0:
  bar.sync 1, 64;
  ret;
}
)";

}  // namespace test_support

#endif  // SIMTVP_TESTS_SUPPORT_PTX_FIXTURES_H
