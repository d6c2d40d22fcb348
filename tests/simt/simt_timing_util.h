// simt_timing_util — the setup of the hand-computed timing tests of the SIMT cores
// (tests/simt/simt_timing_test.cpp for CA, tests/simt_at/simt_at_timing_test.cpp for AT, and the
// result-forwarding tests): tiny PTX kernels on one core of the QV100-class configuration with one
// scheduler, no sub-cores, a perfect instruction cache, one fetch per cycle, fixed latencies and the
// tests' fixed-latency LDST unit (fake_ldst.h), so the numbers are the cores' own equations.
#ifndef SIMTVP_SIMT_TIMING_UTIL_H
#define SIMTVP_SIMT_TIMING_UTIL_H

#include "simt_test_util.h"

namespace simttest {

// The options of the timing tests for cores of `model` ("ca" or "at"), then `more`.
inline std::vector<const char *> timing_options(const char *model, std::initializer_list<const char *> more = {}) {
  std::vector<const char *> v = {
      "-simt_model", model, "-gpgpu_n_clusters", "1", "-gpgpu_num_sched_per_core", "1", "-gpgpu_sub_core_model", "0",
      "-gpgpu_perfect_inst_const_cache", "1", "-gpgpu_inst_fetch_throughput", "1",
      "-gpgpu_max_insn_issue_per_warp", "1", "-gpgpu_scheduler", "gto",
      "-ptx_opcode_latency_int", "6,13,4,5,145,32", "-ptx_opcode_initiation_int", "1,2,2,2,8,4",
      "-ptx_opcode_latency_fp", "4,13,4,5,39", "-ptx_opcode_initiation_fp", "1,2,2,2,4",
      "-ptx_opcode_latency_sfu", "20", "-ptx_opcode_initiation_sfu", "8", "-gpgpu_num_reg_banks", "8",
      "-gpgpu_reg_file_port_throughput", "4"};
  v.insert(v.end(), more);
  return v;
}

// The option words of fidelity assignment `spec` (gpu_fidelity_spec_options) joined by spaces;
// empty, with a test failure naming why, when it is refused.
inline std::string spec_words(const char *spec) {
  const char *w[GPU_FIDELITY_SPEC_WORDS];
  uint32_t n = 0;
  char why[512] = "";
  EXPECT_TRUE(gpu_fidelity_spec_options(spec, w, &n, why, sizeof why)) << why;
  std::string words;
  for (uint32_t i = 0; i < n; i++) words += (i ? " " : "") + std::string(w[i]);
  return words;
}

// The fidelity map (gpu_config_fidelity_map) of a one-core, one-channel GPU of interval cores with
// -interval_runs `runs`, -interval_fold `fold` and -interval_horizon `horizon` (0: not set).
inline std::string interval_fidelity_map(bool runs, bool fold, uint32_t horizon = 0,
                                         uint32_t ramp = GPU_INTERVAL_HORIZON_RAMP_DEFAULT) {
  gpu_config cfg;
  std::memset(&cfg, 0, sizeof cfg);
  cfg.derived.n_cores = 1;
  cfg.mem.n_channels = 1;
  cfg.fidelity.simt_model = GPU_FIDELITY_INTERVAL;
  cfg.derived.simt_model_of_core[0] = GPU_FIDELITY_INTERVAL;
  cfg.derived.interval_runs = runs;
  cfg.derived.interval_fold = fold;
  cfg.derived.interval_horizon = horizon;
  cfg.derived.interval_horizon_ramp = ramp;
  char text[256];
  gpu_config_fidelity_map(&cfg, text, sizeof text);
  return text;
}

// The -simt_model of an option list (the last one given; "ca" without one).
inline std::string model_of(const std::vector<const char *> &opts) {
  std::string m = "ca";
  for (size_t i = 0; i + 1 < opts.size(); i++)
    if (std::string(opts[i]) == "-simt_model") m = opts[i + 1];
  return m;
}

// Cycles of one launch of kernel(body, preds) with `ctas` CTAs of `threads` threads on the fake
// LDST; with keep, the GPU stays alive there (with an issue trace) for its statistics.
inline uint64_t run(const std::vector<const char *> &opts, const std::string &body, uint32_t threads = 32,
                    uint32_t ctas = 1, Gpu **keep = nullptr, bool preds = false) {
  Gpu *g = new Gpu("configs/SM7_QV100.config", opts, SH_LDST_FAKE, 100, 20, 0, keep != nullptr);
  EXPECT_EQ(g->load(kernel(body, preds)), SIMTVP_OK) << g->diag.message;
  uint64_t out = g->alloc(8 * threads * ctas);
  EXPECT_EQ(g->launch("k", ctas, threads, {out}), SIMTVP_OK) << g->diag.message;
  EXPECT_EQ(std::string(simt_core_model_name(sh_core(g->h, 0))), model_of(opts));
  uint64_t c = g->cycles();
  if (keep) *keep = g;
  else delete g;
  return c;
}

// The issue trace of one launch of kernel(body, preds) with one CTA of `threads` threads.
inline std::vector<Gpu::Issue> trace(const std::vector<const char *> &opts, const std::string &body, uint32_t threads,
                                     bool preds = false) {
  Gpu g("configs/SM7_QV100.config", opts, SH_LDST_FAKE, 100, 20, 0, true);
  EXPECT_EQ(g.load(kernel(body, preds)), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.launch("k", 1, threads, {g.alloc(8 * threads)}), SIMTVP_OK) << g.diag.message;
  return g.issues;
}

// The cycle at which `warp` issued the instruction at `pc` in trace t, -1 if never.
inline int64_t issue_cycle(const std::vector<Gpu::Issue> &t, uint32_t warp, uint32_t pc) {
  for (auto &i : t)
    if (i.warp == warp && i.pc == pc) return (int64_t)i.cycle;
  return -1;
}

// n independent adds: each reads %r1 (never written) and writes one of %r2..%r17 in turn.
inline std::string indep(int n) {
  std::string s;
  for (int i = 0; i < n; i++) s += "  add.s32 %r" + std::to_string(2 + i % 16) + ", %r1, 1;\n";
  return s;
}

// A dependent chain: mov %r1, then n adds of %r1 to itself.
inline std::string chain(int n) { return "  mov.u32 %r1, 1;\n" + repeat("  add.s32 %r1, %r1, 1;\n", n); }

// Two warps: warp 0 branches straight to a barrier, warp 1 runs chain(4) first; then one add.
// pc: 0 mov %tid, 1 setp, 2 @p bra, 3 mov, 4-7 adds (warp 1 only), 8 bar.sync, 9 add, 10 exit.
inline std::string barrier_kernel() {
  return "  mov.u32 %r28, %tid.x;\n  setp.lt.u32 %p1, %r28, 32;\n  @%p1 bra SKIP;\n" + chain(4) +
         "SKIP:\n  bar.sync 0;\n  add.s32 %r2, %r3, 1;\n";
}

// ---- cases with the same hand computation on both timing cores ---------------------------------
//
// The AT core computes the CA core's stage times directly (docs/simt-at.md §2), so these cases
// expect the same numbers of both. An instruction issued at t with no conflicts: collector unit at
// a = t + 1, one register read per bank and cycle from a + 1, OC_EX at o = r + 1 (r: the last read,
// a without reads), the execution unit at e = o + 1, writeback at e + L, when a dependent
// instruction may issue. With one register source e = t + 4: a dependent chain costs L + 4 cycles
// per instruction. A fetch at f that hits is issued from f + 2 (decode at f + 1).

inline void expect_dependent_chain_costs_latency_plus_4(const char *model) {
  // One warp: fetch at 0, decode 1, mov issues at 2 (no register read: a 3, o 4, e 5, writeback
  // 5 + 6 = 11); each add.s32 reads %r1 once and waits for the previous writeback: L_ADD (6) + 4 =
  // 10 cycles; the fetches of later pairs hide behind the chain. n adds: the last at 11 + 10 (n - 1),
  // exit (same fetch pair) the next cycle, written back 9 later, the CTA ends that cycle: 10 n + 12.
  for (int n : {8, 16, 32}) EXPECT_EQ(run(timing_options(model), chain(n)), 10u * n + 12u) << n;
}

inline void expect_forwarded_chain_costs_latency(const char *model) {
  // -gpgpu_alu_forwarding 1: an SP/INT/DP result releases its scoreboard entry 4 cycles (the
  // issue-to-unit depth of a one-read instruction) before writeback. The mov issues at 2 and
  // enters its unit at 5 (no read), writeback 11, released at 11 - 4 = 7; each add issues at the
  // previous release and enters its unit 4 cycles later, exactly at the previous writeback: 6
  // cycles (L_ADD) per add instead of 10. First add at 7, the last at 7 + 6 (n - 1), its writeback
  // 10 later ends the CTA as before (exit issues the next cycle): 6 n + 12.
  auto o = timing_options(model, {"-gpgpu_alu_forwarding", "1"});
  for (int n : {8, 16, 32}) EXPECT_EQ(run(o, chain(n)), 6u * n + 12u) << n;
}

inline void expect_independent_warps_hide_the_latency(const char *model) {
  // Four warps with the same chain on one scheduler (register banks by warp: no conflicts):
  // fetched at 0..3, their movs issue at 2..5, and each still advances at 10 cycles per add,
  // offset by one cycle per warp, so 4x the instructions cost no more time per add (3 cycles of
  // stagger). At the end GTO gives the single issue slot to each warp's exit before the next
  // warp's last add (3 more): warp 3's last add and exit come 6 cycles after a lone warp's.
  auto o = timing_options(model, {"-gpgpu_reg_bank_use_warp_id", "1"});
  uint64_t c8 = run(o, chain(8), 128), c16 = run(o, chain(16), 128);
  EXPECT_EQ(c16 - c8, 8u * 10u);
  EXPECT_EQ(c8, run(timing_options(model), chain(8)) + 6u);
}

inline void expect_register_bank_conflict_delays_the_second_read(const char *model, bool counted) {
  // 8 banks, one port, bank = register id mod 8: %r1 and %r9 share bank 1, %r1 and %r2 do not.
  // add %r1, %r1, %r9 reads at a + 1 and a + 2: r one cycle later, 11 cycles per dependent add
  // instead of 10. With `counted`, each conflict is one gpu_reg_bank_conflict_stalls.
  auto o = timing_options(model, {"-gpgpu_reg_file_port_throughput", "1"});
  std::string init = "  mov.u32 %r1, 1;\n  mov.u32 %r9, 1;\n  mov.u32 %r2, 1;\n";
  Gpu *a, *b;
  uint64_t conf8 = run(o, init + repeat("  add.s32 %r1, %r1, %r9;\n", 8), 32, 1, &a);
  uint64_t conf16 = run(o, init + repeat("  add.s32 %r1, %r1, %r9;\n", 16), 32, 1, &b);
  uint64_t free8 = run(o, init + repeat("  add.s32 %r1, %r1, %r2;\n", 8));
  uint64_t free16 = run(o, init + repeat("  add.s32 %r1, %r1, %r2;\n", 16));
  EXPECT_EQ(conf16 - conf8, 8u * 11u);
  EXPECT_EQ(free16 - free8, 8u * 10u);
  if (counted) {
    EXPECT_EQ(b->stat("gpu_reg_bank_conflict_stalls") - a->stat("gpu_reg_bank_conflict_stalls"), 8u);
  }
  delete a;
  delete b;
}

inline void expect_initiation_interval_limits_throughput(const char *model) {
  // Four warps of independent adds on one INT unit. II = 1: the unit takes one per cycle and the
  // single scheduler issues one per cycle (the four warps' fetches supply two per cycle). II = 4:
  // the unit takes one every 4 cycles (free at e + 4); the ID_OC slots fill and the scheduler
  // waits (Stall). 16 more adds per warp: 64 instructions → 64 cycles, or 256.
  auto ii1 = timing_options(model, {"-gpgpu_num_int_units", "1"});
  auto ii4 = timing_options(model, {"-gpgpu_num_int_units", "1", "-ptx_opcode_initiation_int", "4,2,2,2,8,4"});
  EXPECT_EQ(run(ii1, indep(32), 128) - run(ii1, indep(16), 128), 64u);
  Gpu *g;
  uint64_t c32 = run(ii4, indep(32), 128, 1, &g);
  EXPECT_EQ(c32 - run(ii4, indep(16), 128), 256u);
  EXPECT_GT(g->stat("Stall"), 0u);
  EXPECT_EQ(g->stat("Stall"), g->stat("simt_sched_stall[pipe_busy]"));
  delete g;
}

inline void expect_sfu_latency_against_sp_latency(const char *model) {
  // Dependent chains: sqrt.approx.f32 on the SFU (latency 20) costs 20 + 4 = 24 cycles per
  // instruction, add.f32 on SP (fp ADD latency 4) 4 + 4 = 8.
  auto o = timing_options(model);
  std::string init = "  mov.f32 %f1, 0f40800000;\n";
  EXPECT_EQ(run(o, init + repeat("  sqrt.approx.f32 %f1, %f1;\n", 16)) -
                run(o, init + repeat("  sqrt.approx.f32 %f1, %f1;\n", 8)),
            8u * 24u);
  EXPECT_EQ(run(o, init + repeat("  add.f32 %f1, %f1, 0f3F800000;\n", 16)) -
                run(o, init + repeat("  add.f32 %f1, %f1, 0f3F800000;\n", 8)),
            8u * 8u);
}

inline void expect_fetch_throughput_limits_a_single_warp(const char *model) {
  // One warp of independent adds issues its two I-buffer entries at t and t + 1, and its next
  // fetch is made at t + 1 (the buffer empties), decoded at t + 2, issued from t + 3: 2
  // instructions per 3 cycles. Two fetch+decode steps per cycle refill it the same cycle: one per
  // cycle. 16 more adds: 24 or 16 cycles.
  auto f1 = timing_options(model), f2 = timing_options(model, {"-gpgpu_inst_fetch_throughput", "2"});
  EXPECT_EQ(run(f1, indep(32)) - run(f1, indep(16)), 24u);
  EXPECT_EQ(run(f2, indep(32)) - run(f2, indep(16)), 16u);
}

inline void expect_barrier_releases_every_warp_when_the_last_arrives(const char *model) {
  // barrier_kernel, two warps. Fetched at 0 and 1; movs at 2 and 3 (writeback 11, 12); setps at 11,
  // 12 (writeback 21, 22); warp 0's branch at 21 is taken: the I-buffer is flushed and pc 8-9
  // fetched at 21 (ready 23); warp 1's branch at 22 falls through, and GTO gives cycle 23 to warp 1
  // (the last issuer): mov at 23, warp 0's bar.sync at 24. Warp 1's adds at 32, 42, 52, 62 (fetch
  // of pc 8-9 at 62), its bar.sync at 64 completes the barrier; both warps leave it at the end of
  // that cycle: their next instructions issue at 65 (warp 1, the greedy warp) and 66 — not
  // earlier, however long warp 0 waited.
  auto t = trace(timing_options(model), barrier_kernel(), 64, true);
  EXPECT_EQ(issue_cycle(t, 0, 2), 21);
  EXPECT_EQ(issue_cycle(t, 1, 3), 23);
  EXPECT_EQ(issue_cycle(t, 0, 8), 24);
  EXPECT_EQ(issue_cycle(t, 1, 7), 62);
  EXPECT_EQ(issue_cycle(t, 1, 8), 64);
  EXPECT_EQ(issue_cycle(t, 1, 9), 65);
  EXPECT_EQ(issue_cycle(t, 0, 9), 66);
}

// Fence scopes (-gpgpu_fence_latency WARP,CTA,GPU,SYS), both cores: st.global issues at t, the
// fence at t+2 (after a refetch), and the add behind the fence at the later of the fence's issue
// + its scope's latency and, for .gpu/.sys, the cycle the store is complete: `ack` cycles after t
// (CA: the fake LDST's acknowledgement, t+24, SimtCa.FenceWaitsForTheWarpsStores; AT: its own
// memory stage in front of the harness's 100-cycle memory, t+108). Defaults (0,0,0,0): .gpu/.sys
// at t+ack; bar.warp.sync and .cta do not wait for the store (t+3: the next cycle).
inline void expect_fence_scopes(const char *model, int64_t ack) {
  auto add_after = [&](const std::string &fence, const std::vector<std::string> &extra) -> int64_t {
    std::string body = std::string(kOutSlot) + "  st.global.u32 [%rd1], %r1;\n  " + fence + ";\n  add.s32 %r2, %r3, 1;\n";
    std::vector<const char *> opts = timing_options(model);
    for (const std::string &e : extra) opts.push_back(e.c_str());
    auto t = trace(opts, body, 32);
    EXPECT_GE(t.size(), 4u) << fence;
    if (t.size() < 4) return -1;
    size_t st = t.size() - 4; /* st, fence, add, exit */
    EXPECT_EQ(t[st + 1].cycle, t[st].cycle + 2) << fence;
    return static_cast<int64_t>(t[st + 2].cycle - t[st].cycle);
  };
  EXPECT_EQ(add_after("membar.gl", {}), ack) << model;
  EXPECT_EQ(add_after("membar.sys", {}), ack) << model;
  EXPECT_EQ(add_after("fence.sc.gpu", {}), ack) << model;
  EXPECT_EQ(add_after("membar.cta", {}), 3) << model;
  EXPECT_EQ(add_after("fence.acq_rel.cta", {}), 3) << model;
  EXPECT_EQ(add_after("bar.warp.sync -1", {}), 3) << model;
  // latencies 5,10,150,300 (beyond either ack): warp t+2+5, cta t+2+10, gpu and cluster t+2+150,
  // sys t+2+300
  const std::vector<std::string> lat = {"-gpgpu_fence_latency", "5,10,150,300"};
  EXPECT_EQ(add_after("bar.warp.sync -1", lat), 7) << model;
  EXPECT_EQ(add_after("membar.cta", lat), 12) << model;
  EXPECT_EQ(add_after("membar.gl", lat), 152) << model;
  EXPECT_EQ(add_after("fence.sc.cluster", lat), 152) << model;
  EXPECT_EQ(add_after("membar.sys", lat), 302) << model;
  // a .gpu fence shorter than the store's round trip still waits for it
  EXPECT_EQ(add_after("membar.gl", {"-gpgpu_fence_latency", "0,0,10,10"}), ack) << model;
}

}  // namespace simttest

#endif
