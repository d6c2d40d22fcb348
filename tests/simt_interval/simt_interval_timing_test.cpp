// Hand-computed timelines of the interval SIMT core (docs/simt-interval.md §2–§5). Every case runs
// tiny PTX kernels on one interval core of the QV100-class configuration with the timing tests'
// overrides (tests/simt/simt_timing_util.h: one scheduler, no sub-cores, fixed latencies) and the
// harness's fixed-latency memory behind the interval port (100 cycles), so the numbers are the
// interval core's own equations:
//
//   a warp's first instruction may issue at launch + 2 (perfect fetch: fetch, decode);
//   issue t_i = max(t_{i-1} + 1, ready of every register it reads or writes), then the first
//   cycle its scheduler's issue bin (32 per 32 cycles) and its unit's bin (32 × units / II
//   instructions per 32 cycles) have room; to_unit = 4 (3 without register reads); results
//   ready at t_i + to_unit + L (L − 4 with -gpgpu_alu_forwarding); a warp is finished at its
//   last result.
// Differences between two kernel sizes cancel the fixed start and end of a launch.
#include <cmath>
#include <cstdio>

#include "at_workload_run.h"
#include "simt_timing_util.h"

using namespace simttest;

namespace {

std::vector<const char *> base(std::initializer_list<const char *> more = {}) {
  return timing_options("interval", more);
}

TEST(SimtInterval, DependentAluChainCostsLatencyPlusFourPerInstruction) {
  // mov at 2 (no read: unit at 5, ready 11); each add.s32 reads %r1: issues at the previous
  // result, unit 4 later, result L_ADD (6) after that: 10 cycles per add.
  EXPECT_EQ(run(base(), chain(16)) - run(base(), chain(8)), 8u * 10u);
  EXPECT_EQ(run(base(), chain(32)) - run(base(), chain(16)), 16u * 10u);
}

TEST(SimtInterval, ClockReadsSeeTheWarpsOwnTime) {
  // Warps run ahead of the GPU's time (§1); a %clock64 read gives the warp's own issue cycle, so
  // two reads around 8 dependent adds (10 cycles each, DependentAluChain…) differ by the chain's
  // cycles — as many as the issue trace shows between them — where reading the GPU's time gave
  // both the same value. (%globaltimer is offset the same way at the core clock; the harness has no
  // globaltimer port: FuncClock.ReadsAddTheWarpsTimeAhead checks the engine's side.)
  const std::string body = std::string(kOutSlot) + "  mov.u64 %rd2, %clock64;\n  mov.u64 %rd4, %globaltimer;\n" +
                           chain(8) + "  mov.u64 %rd3, %clock64;\n  mov.u64 %rd5, %globaltimer;\n"
                           "  sub.s64 %rd6, %rd3, %rd2;\n  st.global.u64 [%rd1], %rd6;\n"
                           "  sub.s64 %rd7, %rd5, %rd4;\n  st.global.u64 [%rd1+256], %rd7;\n";
  Gpu g("configs/SM7_QV100.config", base(), SH_LDST_FAKE, 100, 20, 0, true);
  ASSERT_EQ(g.load(kernel(body)), SIMTVP_OK) << g.diag.message;
  uint64_t out = g.alloc(8 * 64);
  ASSERT_EQ(g.launch("k", 1, 32, {out}), SIMTVP_OK) << g.diag.message;
  std::vector<uint64_t> v = g.download<uint64_t>(out, 64);
  const uint32_t first = 7, second = 7 + 2 + 9; /* kOutSlot, 2 reads, mov + 8 adds */
  int64_t a = issue_cycle(g.issues, 0, first), b = issue_cycle(g.issues, 0, second);
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  EXPECT_GE(v[0], 80u);
  EXPECT_EQ(v[0], uint64_t(b - a));
}

TEST(SimtInterval, ABankedL1dIsLimitedByItsBanksNotItsDataPort) {
  // The CA LDST unit's rule (try_access): a single-bank L1D waits for its data port (32 bytes a
  // cycle on QV100: a warp's 128-byte hit holds it 4 cycles), a banked one only for its banks.
  // 8 warps × 24 independent loads of their two lines (lanes 8 bytes apart: 4 sectors of each),
  // after a load whose data they wait for (hits): with one bank the data port's 4 cycles per
  // line bound the run (≥ 8 × 24 × 2 × 4 = 1 536 cycles); with four banks the hits go through at
  // up to 4 a cycle and the run is several times shorter.
  std::string body = std::string(kOutSlot) +
                     "  ld.global.u32 %r24, [%rd1];\n  add.s32 %r25, %r24, 1;\n"; /* the lines are there */
  for (int i = 0; i < 24; i++) body += "  ld.global.u32 %r" + std::to_string(i) + ", [%rd1];\n";
  uint64_t one = run(base({"-gpgpu_l1_banks", "1"}), body, 256);
  uint64_t four = run(base({"-gpgpu_l1_banks", "4"}), body, 256);
  EXPECT_GE(one, 1536u);
  EXPECT_LT(four * 3, one) << "one bank " << one << " cycles, four banks " << four;
}

TEST(SimtInterval, ForwardedChainCostsItsLatency) {
  // -gpgpu_alu_forwarding 1: a dependent may issue L − 4 after the unit: 4 + (6 − 4) = 6 per add.
  auto o = base({"-gpgpu_alu_forwarding", "1"});
  EXPECT_EQ(run(o, chain(16)) - run(o, chain(8)), 8u * 6u);
}

TEST(SimtInterval, IndependentRunIsLimitedByFetchAndTheIssueBin) {
  // One warp of independent adds: two instructions per fetch; the I-buffer empties after the
  // second, which fetches in that cycle and decodes the next: issues at t, t + 1, t + 3, t + 4 …
  // 2 per 3 cycles, so 32 more adds take 48 cycles.
  EXPECT_EQ(run(base(), indep(48)) - run(base(), indep(16)), 48u);
  // Four warps on one scheduler: the fetch port brings 2 per cycle, the issue bin takes 32 per
  // 32 cycles: 4 × 32 more adds take 128 cycles, plus what the bins' granularity leaves: warps run
  // in turn, each placing its instructions in the bins the earlier ones left room in, so a bin's
  // last slots may stay empty when the warps that could fill them are 32 cycles behind (at most
  // a bin, measured 11).
  uint64_t d = run(base(), indep(48), 128) - run(base(), indep(16), 128);
  EXPECT_GE(d, 128u);
  EXPECT_LE(d, 128u + 32u);
}

TEST(SimtInterval, UnitInitiationIntervalLimitsThroughput) {
  // One INT unit, II = 4: its bin takes 32 / 4 = 8 adds per 32 cycles. Four warps × 16 more adds
  // = 64 adds: 8 bins, 256 cycles.
  auto ii4 = base({"-gpgpu_num_int_units", "1", "-ptx_opcode_initiation_int", "4,2,2,2,8,4"});
  EXPECT_EQ(run(ii4, indep(32), 128) - run(ii4, indep(16), 128), 256u);
}

TEST(SimtInterval, SfuChainCostsItsLatencyPlusFour) {
  // sqrt.approx.f32 on the SFU (latency 20): 24 cycles per dependent instruction; add.f32 on SP
  // (fp ADD 4): 8.
  auto o = base();
  std::string init = "  mov.f32 %f1, 0f40800000;\n";
  EXPECT_EQ(run(o, init + repeat("  sqrt.approx.f32 %f1, %f1;\n", 16)) -
                run(o, init + repeat("  sqrt.approx.f32 %f1, %f1;\n", 8)),
            8u * 24u);
  EXPECT_EQ(run(o, init + repeat("  add.f32 %f1, %f1, 0f3F800000;\n", 16)) -
                run(o, init + repeat("  add.f32 %f1, %f1, 0f3F800000;\n", 8)),
            8u * 8u);
}

TEST(SimtInterval, BarrierReleasesEveryWarpAtTheLastArrivalInTime) {
  // barrier_kernel, two warps, both fetched in the first bin (first issue at 2; the bins have room
  // for both, so each keeps its own timeline). Warp 0: mov 2 (ready 11), setp 11 (ready 21), bra
  // 21 taken: a refetch at 21, bar.sync at 23: it waits. Warp 1: mov 2, setp 11, bra 21 (not
  // taken), mov 22 (its I-buffer empties: fetch at 22), adds 31, 41, 51, 61 (the I-buffer refills
  // after every second), bar.sync 63: the barrier completes at the last arrival in time, 63, and
  // both warps' next instructions issue at 64 — however early warp 0 arrived.
  auto t = trace(base(), barrier_kernel(), 64, true);
  EXPECT_EQ(issue_cycle(t, 0, 8), 23);
  EXPECT_EQ(issue_cycle(t, 1, 7), 61);
  EXPECT_EQ(issue_cycle(t, 1, 8), 63);
  EXPECT_EQ(issue_cycle(t, 0, 9), 64);
  EXPECT_EQ(issue_cycle(t, 1, 9), 64);
}

}  // namespace

namespace {

TEST(SimtInterval, L1MissWaitsForThePortAndAHitForTheL1Latency) {
  // Four threads: one 32-byte sector. ld at t reads %rd1: memory stage at t + 4, the L1 port at
  // t + 5; a miss leaves at t + 6 and the port answers 100 cycles later (the harness's memory),
  // the fill is readable the cycle after: the dependent add issues at t + 107. The second load
  // (same sector, the next instruction) hits: t' + 5 + the L1 latency (20 with the fake LDST's
  // configuration): its dependent add at t' + 25. One read beyond the L1, none for the hit.
  std::string body = std::string(kOutSlot) +
                     "  ld.global.u32 %r1, [%rd1];\n  add.s32 %r2, %r1, 1;\n"
                     "  ld.global.u32 %r3, [%rd1+4];\n  add.s32 %r4, %r3, %r2;\n";
  Gpu g("configs/SM7_QV100.config", base(), SH_LDST_FAKE, 100, 20, 0, true);
  ASSERT_EQ(g.load(kernel(body)), SIMTVP_OK) << g.diag.message;
  ASSERT_EQ(g.launch("k", 1, 4, {g.alloc(8 * 4)}), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(issue_cycle(g.issues, 0, 8) - issue_cycle(g.issues, 0, 7), 107);
  EXPECT_EQ(issue_cycle(g.issues, 0, 10) - issue_cycle(g.issues, 0, 9), 25);
  EXPECT_EQ(sh_mem_requests(g.h, MEM_ACC_GLOBAL_R), 1u);
}

TEST(SimtInterval, PendingHitEarlierInTimeWaitsItsOwnLatencyNotTheLaterFill) {
  // Two warps load the same word. Warps run in slot order (§1), so warp 0 runs first: eight
  // dependent adds (10 cycles each, the first from the kOutSlot mov) put its miss 70 cycles later
  // in time than warp 1's load (warp 1 branches past the adds). Warp 1 finds the line pending
  // (a hit on the fill warp 0's miss started). Without the reordered-fills rule it would wait for that
  // later fill (ld + 70 + 107); with it, it waits the miss's own latency from its own time:
  // memory stage at ld + 4, L1 port ld + 5, the miss would leave at ld + 6 and be back 100 later,
  // readable the cycle after: its dependent add at ld + 107, as for a miss of its own (the test
  // above). Warp 0 (the miss itself) waits 107 from its load too. One read beyond the L1, one
  // reordered fill.
  std::string body = std::string(kOutSlot) +
                     "  setp.ge.u32 %p1, %r28, 32;\n  @%p1 bra SKIP;\n  add.s32 %r2, %r28, 1;\n";
  for (int i = 0; i < 7; ++i) body += "  add.s32 %r2, %r2, 1;\n";
  body += "SKIP:\n  ld.global.u32 %r1, [%rd28];\n  add.s32 %r3, %r1, 1;\n";
  Gpu g("configs/SM7_QV100.config", base(), SH_LDST_FAKE, 100, 20, 0, true);
  ASSERT_EQ(g.load(kernel(body, true)), SIMTVP_OK) << g.diag.message;
  ASSERT_EQ(g.launch("k", 1, 64, {g.alloc(64 * 8)}), SIMTVP_OK) << g.diag.message;
  const uint32_t ld = 17, add = 18; /* kOutSlot (7 instructions), setp, bra, eight adds */
  int64_t w0 = issue_cycle(g.issues, 0, ld), w1 = issue_cycle(g.issues, 1, ld);
  EXPECT_GE(w0 - w1, 70);
  EXPECT_EQ(issue_cycle(g.issues, 1, add) - w1, 107);
  EXPECT_EQ(issue_cycle(g.issues, 0, add) - w0, 107);
  EXPECT_EQ(sh_mem_requests(g.h, MEM_ACC_GLOBAL_R), 1u);
  EXPECT_EQ(g.stat("interval_l1_reordered_fills"), 1u);
}

TEST(SimtInterval, ReadsPastAnMshrEntrysMergeLimitHoldTheMemoryStageUntilTheFillThenHit) {
  // Sixteen warps load the same word (out[0]) one after another while its fill is on its way:
  // the miss and seven more reads fill the MSHR entry (QV100's L1D merges 8 a chunk, A:256:8).
  // The next read fails reservation, as in the CA LDST unit: it holds the memory stage until the
  // fill is in (the line readable at miss + 106, the L1 miss test's timeline), then hits, its
  // data the L1 latency (20) later, and the reads behind it wait for the stage (those let in
  // before the fill, in the stage's 32-cycle bins, fail too). So the last warp's dependent add
  // comes at least a fill and a hit after the first load. With a merge limit of 32 every read
  // merges and the last add is the fill's (107, every warp's). One fill either way.
  std::string body = std::string(kOutSlot) + "  ld.global.u32 %r1, [%rd28];\n  add.s32 %r3, %r1, 1;\n";
  const uint32_t ld = 7, add = 8; /* kOutSlot: 7 instructions */
  auto last_wait = [&](const char *dl1, uint64_t *fails) {
    Gpu g("configs/SM7_QV100.config", base({"-gpgpu_cache:dl1", dl1}), SH_LDST_FAKE, 100, 20, 0, true);
    EXPECT_EQ(g.load(kernel(body)), SIMTVP_OK) << g.diag.message;
    EXPECT_EQ(g.launch("k", 1, 512, {g.alloc(512 * 8)}), SIMTVP_OK) << g.diag.message;
    int64_t first = INT64_MAX, last = 0;
    for (uint32_t w = 0; w < 16; w++) {
      first = std::min(first, issue_cycle(g.issues, w, ld));
      last = std::max(last, issue_cycle(g.issues, w, add));
    }
    *fails = g.stat("interval_l1_mshr_merge_fails");
    EXPECT_EQ(sh_mem_requests(g.h, MEM_ACC_GLOBAL_R), 1u) << "one fill: the failed reads hit once it is in";
    return last - first;
  };
  uint64_t fails8 = 0, fails32 = 0;
  int64_t wait8 = last_wait("S:4:128:64,L:L:s:N:L,A:256:8,16:0,32", &fails8);
  int64_t wait32 = last_wait("S:4:128:64,L:L:s:N:L,A:256:32,16:0,32", &fails32);
  EXPECT_GE(fails8, 1u);
  EXPECT_EQ(fails32, 0u);
  EXPECT_GE(wait8, 107 + 20) << "the fill, then a hit's latency";
  EXPECT_EQ(wait32, 107);
}

TEST(SimtInterval, FencesAreTimedByScope) {
  // The shared hand computation of tests/simt/simt_timing_util.h (the fence after the store's
  // refetch, at t + 2). st.global at t: memory stage t + 4, L1 port t + 5, the L1D forwards the
  // write at t + 6 and the harness's memory acknowledges 100 cycles later; .gpu/.sys fences hold
  // the add behind them until the warp's results and acknowledgements are in: t + 108, the AT
  // core's figure behind the same memory.
  expect_fence_scopes("interval", 108);
}

}  // namespace

namespace {

class SimtIntervalWorkloads : public ::testing::TestWithParam<std::string> {};

// Every tests/kernels workload on four SMs behind the harness's fixed 100-cycle memory: interval
// cores run it, twice with the same cycles and instructions (deterministic), executing the
// instructions CA cores execute. Printed: the cycle error against CA cores behind the same memory
// (the core model's own error, the memory system left out).
TEST_P(SimtIntervalWorkloads, RunsDeterministicallyWithCaInstructions) {
  const std::string p = GetParam();
  at_run ca = run_at_workload(p.c_str(), 1, {"-simt_model", "ca"});
  at_run a = run_at_workload(p.c_str(), 1, {"-simt_model", "interval"});
  at_run b = run_at_workload(p.c_str(), 1, {"-simt_model", "interval"});
  ASSERT_EQ(ca.status, SIMTVP_OK) << ca.message;
  ASSERT_EQ(a.status, SIMTVP_OK) << a.message;
  ASSERT_EQ(b.status, SIMTVP_OK) << b.message;
  EXPECT_EQ(a.cycles, b.cycles);
  EXPECT_EQ(a.warp_insns, b.warp_insns);
  std::printf("  %-14s CA %8llu cycles, interval %8llu (%+5.1f%%), warp insns %llu / %llu\n", p.c_str(),
              (unsigned long long)ca.cycles, (unsigned long long)a.cycles,
              100.0 * ((double)a.cycles - (double)ca.cycles) / (double)ca.cycles, (unsigned long long)ca.warp_insns,
              (unsigned long long)a.warp_insns);
}

std::vector<std::string> workload_names() {
  std::vector<std::string> v;
  for (uint32_t i = 0; i < at_n_workloads; i++) v.push_back(at_workloads[i].name);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Kernels, SimtIntervalWorkloads, ::testing::ValuesIn(workload_names()),
                         [](const ::testing::TestParamInfo<std::string> &i) { return i.param; });

}  // namespace

namespace {

// A memory port of the tests' own: records every access and answers `latency` cycles later.
struct RecordingPort {
  struct Access {
    uint32_t sm;
    uint64_t line;
    uint8_t sectors, kind;
    bool write;
    uint64_t at;
  };
  uint64_t latency = 50;
  std::vector<Access> log;
  static uint64_t access(void *ctx, uint32_t sm, uint64_t line, uint8_t sectors, const uint64_t *, uint8_t kind,
                         bool write, uint8_t n_ops, uint64_t at) {
    (void)n_ops;
    auto *p = static_cast<RecordingPort *>(ctx);
    p->log.push_back({sm, line, sectors, kind, write, at});
    return at + p->latency;
  }
};

TEST(SimtInterval, AccessesBeyondTheL1GoToTheConnectedPortOnce) {
  // Four threads load one word each from one sector, then store it: the L1D misses once (one
  // fill of sector 0 of the line, a read, leaving at ld + 6), the load's dependent add waits for
  // the port's 50 cycles (ld + 6 + 50, taken the cycle after: the add at ld + 57), and the store
  // goes through the port as a write (the L1D writes through). Nothing reaches the harness's own
  // memory (its request counters stay 0).
  RecordingPort port;
  std::string config = source("configs/SM7_QV100.config");
  std::vector<const char *> args = timing_options("interval");
  sh_options o{};
  o.config_file = config.c_str();
  o.args = args.data();
  o.n_args = static_cast<int>(args.size());
  o.ldst = SH_LDST_FAKE;
  o.fake_ldst_latency = 20;
  o.quiet = true;
  o.interval_mem = {&port, RecordingPort::access};
  std::vector<std::pair<uint32_t, uint64_t>> issues;
  o.trace.ctx = &issues;
  o.trace.issue = [](void *ctx, uint32_t, uint32_t, uint32_t pc, uint32_t, uint64_t cycle) {
    static_cast<std::vector<std::pair<uint32_t, uint64_t>> *>(ctx)->push_back({pc, cycle});
  };
  simt_harness *h = nullptr;
  simtvp_diag d{};
  ASSERT_EQ(sh_create(&o, &h, &d), SIMTVP_OK) << d.message;
  std::string ptx = kernel(std::string(kOutSlot) + "  ld.global.u32 %r1, [%rd1];\n  add.s32 %r2, %r1, 1;\n"
                                                    "  st.global.u32 [%rd1], %r2;\n");
  ASSERT_EQ(sh_load_ptx(h, ptx.data(), ptx.size(), "test.ptx", &d), SIMTVP_OK) << d.message;
  uint64_t out = sh_alloc(h, 64);
  const void *params[] = {&out};
  uint32_t grid[3] = {1, 1, 1}, block[3] = {4, 1, 1};
  ASSERT_EQ(sh_launch(h, "k", grid, block, 0, params, &d), SIMTVP_OK) << d.message;
  uint64_t ld = 0, add = 0;
  for (auto &i : issues) {
    if (i.first == 7) ld = i.second;
    if (i.first == 8) add = i.second;
  }
  EXPECT_EQ(add - ld, 57u);
  size_t reads = 0, writes = 0;
  for (auto &a : port.log) {
    EXPECT_EQ(a.sm, 0u);
    if (a.kind == MEM_ACC_GLOBAL_R) {
      reads++;
      EXPECT_EQ(a.line, out & ~uint64_t(127));
      EXPECT_EQ(a.sectors, 1u << ((out & 127) / 32));
      EXPECT_FALSE(a.write);
      EXPECT_EQ(a.at, ld + 6);
    }
    if (a.kind == MEM_ACC_GLOBAL_W) {
      writes++;
      EXPECT_TRUE(a.write);
    }
  }
  EXPECT_EQ(reads, 1u);
  EXPECT_EQ(writes, 1u);
  EXPECT_EQ(sh_mem_requests(h, MEM_ACC_GLOBAL_R) + sh_mem_requests(h, MEM_ACC_GLOBAL_W), 0u);
  sh_destroy(h);
}

}  // namespace
