// warp_vote — warp-level intrinsics, each result written per thread and checked on the host:
//   vote:      __all_sync, __any_sync, __ballot_sync (full warp, and 16 lanes under a partial mask);
//   shuffle:   __shfl_sync (rotate, and width 16), __shfl_up_sync, __shfl_down_sync, __shfl_xor_sync;
//   match:     __match_any_sync, __match_all_sync (with its predicate);
//   activemask: __activemask() inside a divergent branch (must contain the calling lane and only
//              lanes that took the branch — the exact set is the hardware's choice).
// Warp 2 of each block holds one odd value > 5000 in every lane, the other warps random values in
// 1..1000, so the all/any/match_all variants each see both outcomes.
// Usage: warp_vote [blocks=2] [warps_per_block=4]  (warps_per_block >= 3)
#include "kernel_check.cuh"

#define FULL 0xffffffffu
#define RESULTS 13  // ints written per thread

__global__ void warp_vote(const int *in, int *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lane = threadIdx.x % 32;
  const int v = in[i];
  int *r = out + (size_t)i * RESULTS;
  r[0] = __all_sync(FULL, v & 1);
  r[1] = __any_sync(FULL, v > 5000);
  r[2] = (int)__ballot_sync(FULL, v & 1);
  r[3] = __shfl_sync(FULL, v, (lane + 3) % 32);
  r[4] = __shfl_sync(FULL, v, 0, 16);  // lane 0 of each 16-lane half
  r[5] = __shfl_up_sync(FULL, v, 2);   // lanes 0,1 keep their own value
  r[6] = __shfl_down_sync(FULL, v, 5);  // lanes 27..31 keep their own value
  r[7] = __shfl_xor_sync(FULL, v, 7);
  r[8] = (int)__match_any_sync(FULL, v % 4);
  int all_equal = -1;
  r[9] = (int)__match_all_sync(FULL, v / 1000, &all_equal);
  r[10] = all_equal;
  r[11] = -1;
  if (lane < 16) r[11] = (int)__ballot_sync(0x0000ffffu, v & 2);
  r[12] = 0;
  if (lane % 3 == 0) r[12] = (int)__activemask();
}

int main(int argc, char **argv) {
  const int blocks = arg_int(argc, argv, 1, 2);
  const int warps = arg_int(argc, argv, 2, 4);
  if (warps < 3 || warps > 32) {
    std::fprintf(stderr, "warp_vote: warps_per_block must be in 3..32\n");
    return 2;
  }
  const int threads = warps * 32, n = blocks * threads;
  int *in = new int[n], *out = new int[(size_t)n * RESULTS];
  test_rng rng(7);
  for (int i = 0; i < n; ++i) {
    int warp = (i % threads) / 32;
    in[i] = warp == 2 ? 5000 + 7 : (int)(rng.next() % 1000) + 1;  // 1..1000, or all 5007
  }
  int *din, *dout;
  CHECK_CUDA(cudaMalloc(&din, n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&dout, (size_t)n * RESULTS * sizeof(int)));
  CHECK_CUDA(cudaMemcpy(din, in, n * sizeof(int), cudaMemcpyHostToDevice));
  warp_vote<<<blocks, threads>>>(din, dout);
  CHECK_LAUNCH();
  CHECK_CUDA(cudaMemcpy(out, dout, (size_t)n * RESULTS * sizeof(int), cudaMemcpyDeviceToHost));

  static const char *what[RESULTS] = {"all",     "any",       "ballot",     "shfl",  "shfl_w16",
                                      "shfl_up", "shfl_down", "shfl_xor",   "match_any",
                                      "match_all", "match_all_pred", "ballot_partial", "activemask"};
  int bad = -1, bad_field = 0, want_bad = 0;
  for (int i = 0; i < n && bad < 0; ++i) {
    const int w0 = i - i % 32, lane = i % 32;
    const int *wv = in + w0;
    int all = 1, any = 0;
    unsigned ballot = 0, match_any = 0, ballot_partial = 0;
    bool same = true;
    for (int l = 0; l < 32; ++l) {
      all &= wv[l] & 1;
      any |= wv[l] > 5000;
      if (wv[l] & 1) ballot |= 1u << l;
      if (wv[l] % 4 == wv[lane] % 4) match_any |= 1u << l;
      if (wv[l] / 1000 != wv[0] / 1000) same = false;
      if (l < 16 && (wv[l] & 2)) ballot_partial |= 1u << l;
    }
    int want[RESULTS] = {all,
                         any,
                         (int)ballot,
                         wv[(lane + 3) % 32],
                         wv[lane < 16 ? 0 : 16],
                         lane >= 2 ? wv[lane - 2] : wv[lane],
                         lane + 5 < 32 ? wv[lane + 5] : wv[lane],
                         wv[lane ^ 7],
                         (int)match_any,
                         same ? (int)FULL : 0,
                         same ? 1 : 0,
                         lane < 16 ? (int)ballot_partial : -1,
                         0};
    const int *got = out + (size_t)i * RESULTS;
    for (int f = 0; f < RESULTS && bad < 0; ++f) {
      bool ok = got[f] == want[f];
      if (f == 12) {
        // Own lane present, and only lanes of the branch (lane % 3 == 0).
        unsigned branch = 0;
        for (int l = 0; l < 32; l += 3) branch |= 1u << l;
        unsigned m = (unsigned)got[f];
        ok = lane % 3 ? m == 0 : ((m >> lane) & 1) && (m & ~branch) == 0;
        want[f] = (int)branch;
      }
      if (!ok) bad = i, bad_field = f, want_bad = want[f];
    }
  }
  int status = bad < 0 ? verdict("warp_vote", true, "%d threads, %d intrinsics checked per thread",
                                 n, RESULTS)
                       : verdict("warp_vote", false, "thread %d %s=%#x, want %#x", bad,
                                 what[bad_field], out[(size_t)bad * RESULTS + bad_field], want_bad);
  CHECK_CUDA(cudaFree(din));
  CHECK_CUDA(cudaFree(dout));
  delete[] in;
  delete[] out;
  return status;
}
