// The load/store unit's flow control and contract: the response buffer, refused sends, pending
// stores, completion exactly once per issue, determinism, dispatch slots, bad configuration and
// bad input (each with a diagnostic naming the place).
#include <map>
#include <random>

#include "ldst_harness.h"

using namespace ldst_test;

namespace {
const uint64_t kLine = 0x10000000ull;
auto unit = [](uint32_t i) { return kLine + 4ull * i; };
}  // namespace

// ---- back-pressure ----------------------------------------------------------------------------

// A one-entry response buffer: of two replies handed in at cycle 10, the second is refused; the
// first is taken at 11, the retried second (handed in at 11) at 12.
TEST(SimtLdstFlow, FullResponseBufferRefusesReplies) {
  Harness h;
  h.cfg.response_buffer = 1;
  h.create();
  h.issue(0, load(PTX_SPACE_GLOBAL, 4, [](uint32_t i) { return kLine + 128ull * (i % 2); }), 1);
  h.run_to(10);
  ASSERT_EQ(h.sent.size(), 2u);
  EXPECT_TRUE(h.reply(h.sent[0].req));
  EXPECT_FALSE(h.reply(h.sent[1].req));
  EXPECT_EQ(h.stat("simt_ldst.reply_refused"), 1u);
  h.tick();
  EXPECT_TRUE(h.done.empty());
  EXPECT_TRUE(h.reply(h.sent[1].req));
  h.tick();
  EXPECT_EQ(h.done_at(1), 12u);
}

// Replies handed in during one cycle are taken one per cycle, from the next cycle.
TEST(SimtLdstFlow, OneReplyIsTakenPerCycle) {
  Harness h;
  h.cfg.response_buffer = 4;
  h.create();
  h.issue(0, load(PTX_SPACE_GLOBAL, 4, [](uint32_t i) { return kLine + 128ull * (i % 4); }), 1);
  h.run_to(10);
  ASSERT_EQ(h.sent.size(), 4u);
  for (auto &s : h.sent) EXPECT_TRUE(h.reply(s.req));
  EXPECT_EQ(simt_ldst_next_event(h.u), 11u);
  h.run_to(13);
  EXPECT_TRUE(h.done.empty());
  h.tick();
  EXPECT_EQ(h.done_at(1), 14u);
}

// The port refuses the first two offers: the request (the same one) is offered again at 2 and
// leaves at 3; the stalls count as gl_mem resource stalls.
TEST(SimtLdstFlow, RefusedSendIsRetried) {
  Harness h;
  h.refuse = 2;
  h.create();
  h.issue(0, load(PTX_SPACE_GLOBAL, 4, unit), 1);
  h.tick();
  EXPECT_EQ(simt_ldst_next_event(h.u), 2u);
  h.run_to(5);
  ASSERT_EQ(h.sent.size(), 1u);
  EXPECT_EQ(h.sent[0].at, 3u);
  EXPECT_EQ(h.sent[0].req->id, 0u);  // the first request of the pool, kept across refusals
  EXPECT_EQ(h.stat("gpgpu_stall_shd_mem[gl_mem][resource_stall]"), 2u);
  EXPECT_EQ(mem_req_pool_outstanding(h.pool), 1u);
}

// A miss-queue send refused by the port is offered again the next cycle.
TEST(SimtLdstFlow, RefusedMissIsOfferedAgain) {
  Harness h;
  h.cfg.l1d = "N:16:128:4,L:T:m:N:L,A:8:4,4";
  h.create();
  h.issue(0, load(PTX_SPACE_GLOBAL, 4, unit), 1);
  h.tick();      // 1: miss
  h.refuse = 1;  // 2: refused
  h.tick();
  EXPECT_TRUE(h.sent.empty());
  EXPECT_EQ(simt_ldst_next_event(h.u), 3u);
  h.tick();  // 3: sent
  ASSERT_EQ(h.sent.size(), 1u);
  EXPECT_EQ(h.sent[0].at, 3u);
}

// Stores are pending per warp until every request is acknowledged.
TEST(SimtLdstFlow, PendingStoresCountRequestsUntilAcknowledged) {
  Harness h;
  h.create();
  h.issue(1, store(PTX_SPACE_GLOBAL, 4, [](uint32_t i) { return kLine + 128ull * (i % 3); }), 1);
  h.run_to(5);
  EXPECT_EQ(h.done_at(1), 3u);  // three requests at 1, 2, 3
  EXPECT_EQ(simt_ldst_pending_stores(h.u, 1), 3u);
  EXPECT_EQ(simt_ldst_pending_stores(h.u, 0), 0u);
  for (size_t k = 0; k < 3; k++) {
    h.reply(h.sent[k].req);
    h.tick();
    h.tick();
    EXPECT_EQ(simt_ldst_pending_stores(h.u, 1), 2u - k);
  }
  EXPECT_TRUE(simt_ldst_idle(h.u));
}

// An instruction with no active lane still passes the stage once and completes.
TEST(SimtLdstFlow, NoActiveLaneCompletesNextCycle) {
  Harness h;
  h.create();
  h.issue(0, load(PTX_SPACE_GLOBAL, 4, unit, 0), 1);
  h.run_to(5);
  EXPECT_EQ(h.done_at(1), 1u);
  EXPECT_TRUE(h.sent.empty());
}

// With two dispatch slots two instructions are accepted per cycle; their requests share the
// one path around the L1D (oldest first).
TEST(SimtLdstFlow, MemUnitPortsAcceptSeveralInstructions) {
  Harness h;
  h.cfg.mem_unit_ports = 2;
  h.create();
  h.issue(0, load(PTX_SPACE_GLOBAL, 4, unit), 1);
  EXPECT_TRUE(h.can_issue());
  h.issue(1, load(PTX_SPACE_GLOBAL, 4, [](uint32_t i) { return kLine + 4096 + 4ull * i; }), 2);
  EXPECT_FALSE(h.can_issue());
  h.run_to(3);
  ASSERT_EQ(h.sent.size(), 2u);
  EXPECT_EQ(h.sent[0].req->warp, 0u);
  EXPECT_EQ(h.sent[0].at, 1u);
  EXPECT_EQ(h.sent[1].req->warp, 1u);
  EXPECT_EQ(h.sent[1].at, 2u);
}

// ---- completion exactly once, determinism ------------------------------------------------------

namespace {

struct RunResult {
  std::vector<Done> done;
  std::vector<uint64_t> sent_addr;
  std::map<std::string, uint64_t> counters;
  uint64_t cycles = 0;
  uint64_t advances = 0;
};

// A random mix of shared, global, local, const, param and texture loads, stores and atomics
// from 8 warps, against a memory that answers after 7 cycles and sometimes refuses.
RunResult random_run(uint64_t seed, const char *l1d, int32_t coalesce_arch,
                     bool event_driven = false) {
  Harness h;
  h.event_driven = event_driven;
  h.cfg.l1d = l1d;
  h.cfg.l1c = "64:64:2,L:R:f:N,A:2:32,4";
  h.cfg.l1t = "8:128:5,L:R:m:N,F:128:4,128:2";
  h.cfg.coalesce_arch = coalesce_arch;
  h.cfg.l1d_banks = 2;
  h.cfg.mem_unit_ports = 2;
  h.auto_latency = 7;
  h.create();
  std::mt19937_64 rng(seed);
  uint64_t tag = 0;
  std::vector<uint64_t> issued;
  for (int i = 0; i < 3000; i++) {
    if (rng() % 3 == 0) h.refuse = 1;
    if (h.can_issue() && rng() % 2) {
      static const uint8_t spaces[] = {PTX_SPACE_SHARED, PTX_SPACE_GLOBAL, PTX_SPACE_LOCAL,
                                       PTX_SPACE_CONST, PTX_SPACE_PARAM, PTX_SPACE_TEX,
                                       PTX_SPACE_GLOBAL, PTX_SPACE_GENERIC};
      uint8_t sp = spaces[rng() % 8];
      static const uint16_t widths[] = {1, 2, 4, 8, 16};
      uint16_t bytes = widths[rng() % 5];
      uint32_t kind = (uint32_t)(rng() % 4);  // load, store, atom, red
      if (sp == PTX_SPACE_CONST || sp == PTX_SPACE_PARAM || sp == PTX_SPACE_TEX) kind = 0;
      uint64_t stride = bytes * (1 + rng() % 4), base = kLine + (rng() % 64) * 128;
      uint32_t mask = (uint32_t)rng() | 1u;
      func_step s = mem_step(sp, kind != 1,
                             kind != 0, kind >= 2, bytes, mask,
                             [&](uint32_t l) { return sp == PTX_SPACE_SHARED || sp == PTX_SPACE_LOCAL
                                                          ? (l * stride) % 4096
                                                          : base + l * stride; });
      if (sp == PTX_SPACE_GENERIC)  // mixed lanes: shared, local, global
        for (uint32_t l = 0; l < 32; l++) {
          uint8_t ls = l % 3 == 0 ? PTX_SPACE_SHARED : l % 3 == 1 ? PTX_SPACE_LOCAL : PTX_SPACE_GLOBAL;
          s.lane_space[l] = ls;
          s.addr[l] = ls == PTX_SPACE_GLOBAL ? base + l * stride : (l * stride) % 4096;
        }
      uint32_t warp = (uint32_t)(rng() % 8);
      h.issue(warp, s, ++tag);
      issued.push_back(tag);
    }
    h.tick();
  }
  EXPECT_GT(issued.size(), 200u);
  if (!h.drain()) {
    std::string text;
    simt_ldst_dump(h.u, [](void *ctx, const char *line) { *static_cast<std::string *>(ctx) += std::string(line) + "\n"; }, &text);
    ADD_FAILURE() << "did not drain (" << l1d << ", seed " << seed << "):\n" << text;
  }
  EXPECT_EQ(simt_ldst_status(h.u, nullptr), SIMTVP_OK) << h.status();
  for (uint64_t t : issued) EXPECT_EQ(h.completions(t), 1u) << "tag " << t;
  EXPECT_EQ(h.done.size(), issued.size());
  for (uint32_t w = 0; w < 8; w++) EXPECT_EQ(simt_ldst_pending_stores(h.u, w), 0u);
  EXPECT_EQ(simt_ldst_next_event(h.u), SIMT_LDST_NEVER);
  EXPECT_EQ(mem_req_pool_outstanding(h.pool), 0u);  // every request back in its pool
  RunResult r;
  r.done = h.done;
  for (auto &s : h.sent) r.sent_addr.push_back(s.addr ^ (s.at << 40) ^ ((uint64_t)s.kind << 56));
  for (const char *n : {"gpgpu_n_mem_read_global", "gpgpu_n_mem_write_global",
                        "gpgpu_n_mem_read_local", "gpgpu_n_mem_write_local", "gpgpu_n_mem_const",
                        "gpgpu_n_mem_texture", "gpgpu_n_shmem_bkconflict", "gpgpu_n_stall_shd_mem",
                        "gpgpu_n_cache_bkconflict", "simt_ldst.atomic_requests",
                        "gpgpu_stall_shd_mem[gl_mem][resource_stall]", "gpgpu_stall_shd_mem[gl_mem][coal_stall]",
                        "gpgpu_stall_shd_mem[gl_mem][data_port_stall]", "gpgpu_stall_shd_mem[c_mem][resource_stall]",
                        "gpgpu_stall_shd_mem[t_mem][resource_stall]", "gpgpu_stall_shd_mem[s_mem][bk_conf]"})
    r.counters[n] = h.stat(n);
  if (std::string(l1d) != "none") {
    r.counters["L1D_total_cache_reservation_fails"] = h.stat("L1D_total_cache_reservation_fails");
    r.counters["L1D_total_cache_accesses"] = h.stat("L1D_total_cache_accesses");
  }
  r.cycles = h.now;
  r.advances = h.advances;
  EXPECT_GT(r.counters["gpgpu_n_mem_read_global"], 0u);
  EXPECT_GT(r.counters["gpgpu_n_mem_write_local"], 0u);
  EXPECT_GT(r.counters["gpgpu_n_mem_const"], 0u);
  EXPECT_GT(r.counters["gpgpu_n_mem_texture"], 0u);
  EXPECT_GT(r.counters["simt_ldst.atomic_requests"], 0u);
  EXPECT_GT(r.counters["gpgpu_n_shmem_bkconflict"], 0u);
  return r;
}

}  // namespace

// Every issue completes exactly once, every store is acknowledged, every request returns to its
// pool, the unit drains to idle — under both coalescing rules, with and without an L1D.
TEST(SimtLdstFlow, RandomMixCompletesEachIssueExactlyOnce) {
  random_run(1, "N:16:128:4,L:T:m:N:L,A:8:4,4", 70);
  random_run(2, "S:4:128:8,L:L:m:L:L,A:16:4,8:0,32", 70);
  random_run(3, "none", 13);
  random_run(4, "N:8:128:2,L:B:m:W:L,A:4:2,4", 20);
}

// The same input gives the same completions, requests and statistics, bit for bit.
TEST(SimtLdstFlow, RunsAreDeterministic) {
  RunResult a = random_run(42, "S:4:128:8,L:L:m:L:L,A:16:4,8:0,32", 70);
  RunResult b = random_run(42, "S:4:128:8,L:L:m:L:L,A:16:4,8:0,32", 70);
  ASSERT_EQ(a.done.size(), b.done.size());
  for (size_t i = 0; i < a.done.size(); i++) {
    EXPECT_EQ(a.done[i].tag, b.done[i].tag);
    EXPECT_EQ(a.done[i].at, b.done[i].at);
  }
  EXPECT_EQ(a.sent_addr, b.sent_addr);
  EXPECT_EQ(a.counters, b.counters);
  EXPECT_EQ(a.cycles, b.cycles);
}

// next_event is exact: advancing the unit only at the cycles it names gives the same
// completions, requests and statistics as advancing it every cycle, with fewer calls.
TEST(SimtLdstFlow, AdvancingOnlyAtNextEventChangesNothing) {
  for (const char *l1d : {"N:16:128:4,L:T:m:N:L,A:8:4,4", "S:4:128:8,L:L:m:L:L,A:16:4,8:0,32", "none"}) {
    RunResult a = random_run(9, l1d, 70, false);
    RunResult b = random_run(9, l1d, 70, true);
    ASSERT_EQ(a.done.size(), b.done.size()) << l1d;
    for (size_t i = 0; i < a.done.size(); i++) {
      EXPECT_EQ(a.done[i].tag, b.done[i].tag) << l1d;
      EXPECT_EQ(a.done[i].at, b.done[i].at) << l1d;
    }
    EXPECT_EQ(a.sent_addr, b.sent_addr) << l1d;
    EXPECT_EQ(a.counters, b.counters) << l1d;
    EXPECT_LT(b.advances, a.advances) << l1d;
  }
}

// An L1D with two MSHR entries and a two-entry miss queue refuses most accesses: a slot whose
// access failed and whose cache has not changed since is not simulated cycle by cycle (it is
// parked, simt_ldst_next_event skips it) and its retries are counted in bulk — the same
// reservation failures, stall cycles and everything else as retrying every cycle.
TEST(SimtLdstFlow, SlotsParkedOnAFullL1dCountTheSameRetriesAsEveryCycle) {
  const char *l1d = "N:16:128:4,L:T:m:N:L,A:2:2,2";
  RunResult a = random_run(17, l1d, 70, false);
  RunResult b = random_run(17, l1d, 70, true);
  ASSERT_EQ(a.done.size(), b.done.size());
  for (size_t i = 0; i < a.done.size(); i++) {
    EXPECT_EQ(a.done[i].tag, b.done[i].tag);
    EXPECT_EQ(a.done[i].at, b.done[i].at);
  }
  EXPECT_EQ(a.sent_addr, b.sent_addr);
  EXPECT_EQ(a.counters, b.counters);
  EXPECT_GT(a.counters["L1D_total_cache_reservation_fails"], a.counters["L1D_total_cache_accesses"] / 4);
  EXPECT_GT(a.counters["gpgpu_stall_shd_mem[gl_mem][resource_stall]"], 0u);
  EXPECT_LT(b.advances, a.advances);
}

// ---- bad configuration --------------------------------------------------------------------------

namespace {
simtvp_status create_fails(simt_ldst_config c, simtvp_diag *d) {
  simt_ldst_ports p = {nullptr, Harness::send_cb, Harness::complete_cb};
  simtvp_diag_clear(d);
  simt_ldst *u = simt_ldst_create(&c, p, d);
  EXPECT_EQ(u, nullptr);
  if (u) simt_ldst_destroy(u);
  return d->status;
}
}  // namespace

TEST(SimtLdstConfig, MalformedCacheStringNamesTheOption) {
  simtvp_diag d;
  simt_ldst_config c = base_config();
  c.l1d = "S:4:128:64,L:Z:m:L:L,A:512:8,16";
  EXPECT_EQ(create_fails(c, &d), SIMTVP_ERR_PARSE);
  EXPECT_STREQ(d.option, "-gpgpu_cache:dl1");
  EXPECT_NE(std::string(d.message).find("write policy"), std::string::npos) << d.message;
  c = base_config();
  c.l1c = "64:64";
  EXPECT_EQ(create_fails(c, &d), SIMTVP_ERR_PARSE);
  EXPECT_STREQ(d.option, "-gpgpu_const_cache:l1");
  c = base_config();
  c.l1t = "8:128:5,L:R:m:N,F:0:4,128:2";
  EXPECT_NE(create_fails(c, &d), SIMTVP_OK);
  EXPECT_STREQ(d.option, "-gpgpu_tex_cache:l1");
}

TEST(SimtLdstConfig, InconsistentValuesNameTheOption) {
  struct Case {
    void (*edit)(simt_ldst_config &);
    simtvp_status status;
    const char *option;
  } cases[] = {
      {[](simt_ldst_config &c) { c.warp_size = 0; }, SIMTVP_ERR_CONFIG, "-gpgpu_shader_core_pipeline"},
      {[](simt_ldst_config &c) { c.warp_size = 64; }, SIMTVP_ERR_CONFIG, "-gpgpu_shader_core_pipeline"},
      {[](simt_ldst_config &c) { c.max_threads = 100; }, SIMTVP_ERR_CONFIG, "-gpgpu_shader_core_pipeline"},
      {[](simt_ldst_config &c) { c.smem_banks = 0; }, SIMTVP_ERR_CONFIG, "-gpgpu_shmem_num_banks"},
      {[](simt_ldst_config &c) { c.smem_bank_bytes = 3; }, SIMTVP_ERR_CONFIG, "-gpgpu_shmem_num_banks"},
      {[](simt_ldst_config &c) { c.smem_warp_parts = 3; }, SIMTVP_ERR_CONFIG, "-gpgpu_shmem_warp_parts"},
      {[](simt_ldst_config &c) { c.smem_warp_parts = 0; }, SIMTVP_ERR_CONFIG, "-gpgpu_shmem_warp_parts"},
      {[](simt_ldst_config &c) { c.l1d_bank_hash = 2; }, SIMTVP_ERR_UNSUPPORTED, "-gpgpu_l1_banks_hashing_function"},
      {[](simt_ldst_config &c) { c.l1d_bank_hash = 1; c.l1d_banks = 3; }, SIMTVP_ERR_CONFIG, "-gpgpu_l1_banks_hashing_function"},
      {[](simt_ldst_config &c) { c.l1d_bank_interleave = 24; }, SIMTVP_ERR_CONFIG, "-gpgpu_l1_banks_byte_interleaving"},
      {[](simt_ldst_config &c) { c.response_buffer = 0; }, SIMTVP_ERR_CONFIG, "-gpgpu_n_ldst_response_buffer_size"},
      {[](simt_ldst_config &c) { c.mem_unit_ports = 0; }, SIMTVP_ERR_CONFIG, "-gpgpu_mem_unit_ports"},
  };
  for (auto &k : cases) {
    simt_ldst_config c = base_config();
    k.edit(c);
    simtvp_diag d;
    EXPECT_EQ(create_fails(c, &d), k.status) << k.option;
    EXPECT_STREQ(d.option, k.option);
    EXPECT_NE(std::string(d.message).find(k.option), std::string::npos) << d.message;
  }
}

TEST(SimtLdstConfig, MissingPortsAreRefused) {
  simt_ldst_config c = base_config();
  simt_ldst_ports p = {nullptr, nullptr, Harness::complete_cb};
  simtvp_diag d;
  EXPECT_EQ(simt_ldst_create(&c, p, &d), nullptr);
  EXPECT_EQ(d.status, SIMTVP_ERR_ARG);
  EXPECT_EQ(simt_ldst_create(nullptr, p, &d), nullptr);
}

// ---- bad input ----------------------------------------------------------------------------------

// A step that is not a memory instruction: diagnosed (warp, pc, PTX line) and completed without
// traffic so the core does not hang.
TEST(SimtLdstInput, NonMemoryStepIsDiagnosedAndCompleted) {
  Harness h;
  h.create();
  ptx_insn insn;
  std::memset(&insn, 0, sizeof insn);
  insn.ptx_line = 42;
  func_step s = load(PTX_SPACE_GLOBAL, 4, unit);
  s.kind = FUNC_STEP_ALU;
  s.insn = &insn;
  h.issue(6, s, 9);
  h.run_to(3);
  EXPECT_EQ(h.done_at(9), 1u);
  EXPECT_TRUE(h.sent.empty());
  simtvp_diag d;
  EXPECT_EQ(simt_ldst_status(h.u, &d), SIMTVP_ERR_ARG);
  EXPECT_NE(std::string(d.message).find("warp 6, pc 7 (PTX line 42)"), std::string::npos) << d.message;
  EXPECT_NE(std::string(d.message).find("not a memory instruction"), std::string::npos);
  EXPECT_EQ(d.pc, 7u);
}

TEST(SimtLdstInput, WarpOutOfRangeIsDiagnosed) {
  Harness h;
  h.create();
  h.issue(48, load(PTX_SPACE_GLOBAL, 4, unit), 1);
  h.run_to(3);
  EXPECT_EQ(h.done_at(1), 1u);
  EXPECT_EQ(simt_ldst_status(h.u, nullptr), SIMTVP_ERR_ARG);
  EXPECT_NE(h.status().find("warp slot out of range"), std::string::npos) << h.status();
}

TEST(SimtLdstInput, StoreToConstIsDiagnosed) {
  Harness h;
  h.create();
  h.issue(0, store(PTX_SPACE_CONST, 4, unit), 1);
  h.run_to(3);
  EXPECT_EQ(h.done_at(1), 1u);
  EXPECT_NE(h.status().find("store to the read-only const space"), std::string::npos) << h.status();
}

TEST(SimtLdstInput, TooWideAccessIsDiagnosed) {
  Harness h;
  h.create();
  h.issue(0, load(PTX_SPACE_GLOBAL, 64, unit), 1);
  h.run_to(3);
  EXPECT_EQ(simt_ldst_status(h.u, nullptr), SIMTVP_ERR_UNSUPPORTED);
  EXPECT_NE(h.status().find("64 bytes per lane"), std::string::npos) << h.status();
}

TEST(SimtLdstInput, UnknownSpaceIsDiagnosed) {
  Harness h;
  h.create();
  h.issue(0, load(PTX_SPACE_REG, 4, unit), 1);
  h.run_to(3);
  EXPECT_NE(h.status().find("lane 0 accesses the"), std::string::npos) << h.status();
}

TEST(SimtLdstInput, StepWithoutDirectionIsDiagnosed) {
  Harness h;
  h.create();
  h.issue(0, mem_step(PTX_SPACE_GLOBAL, false, false, false, 4, 1u, unit), 1);
  h.run_to(3);
  EXPECT_NE(h.status().find("neither load, store nor atomic"), std::string::npos) << h.status();
}

// Issuing into a full stage is refused with SIMTVP_ERR_STATE and dropped (no completion).
TEST(SimtLdstInput, IssueWhileFullIsRefused) {
  Harness h;
  h.create();
  func_step s = load(PTX_SPACE_GLOBAL, 4, unit);
  h.issue(0, s, 1);
  EXPECT_FALSE(h.can_issue());
  simt_ldst_issue(h.u, 1, &s, 2, h.now);
  h.run_to(5);
  EXPECT_EQ(h.completions(2), 0u);
  EXPECT_EQ(simt_ldst_status(h.u, nullptr), SIMTVP_ERR_STATE);
  EXPECT_NE(h.status().find("could not accept"), std::string::npos) << h.status();
}

// A reply that is not one of the unit's requests (nor its caches') is diagnosed and freed.
TEST(SimtLdstInput, ForeignReplyIsDiagnosed) {
  Harness h;
  h.create();
  mem_req *r = mem_req_alloc(h.pool);
  r->addr = 0x1234;
  r->is_reply = true;
  r->owner_ctx = &h;
  EXPECT_TRUE(simt_ldst_reply(h.u, r, 0));
  h.tick();
  EXPECT_EQ(simt_ldst_status(h.u, nullptr), SIMTVP_ERR_ARG);
  EXPECT_NE(h.status().find("not addressed to this unit"), std::string::npos) << h.status();
  EXPECT_EQ(mem_req_pool_outstanding(h.pool), 0u);
}

// An acknowledgement nobody waits for (a duplicate reply) is diagnosed, not counted below zero.
TEST(SimtLdstInput, DuplicateAcknowledgementIsDiagnosed) {
  Harness h;
  h.create();
  h.issue(0, store(PTX_SPACE_GLOBAL, 4, unit), 1);
  h.run_to(3);
  ASSERT_EQ(h.sent.size(), 1u);
  mem_req copy = *h.sent[0].req;
  h.reply(h.sent[0].req);
  h.tick();
  EXPECT_EQ(simt_ldst_pending_stores(h.u, 0), 0u);
  mem_req *dup = mem_req_alloc(h.pool);
  uint64_t id = dup->id;
  *dup = copy;
  dup->id = id;
  dup->pool = h.pool;
  h.reply(dup);
  h.tick();
  EXPECT_EQ(simt_ldst_status(h.u, nullptr), SIMTVP_ERR_STATE);
  EXPECT_NE(h.status().find("no pending store"), std::string::npos) << h.status();
}

// A cache whose miss queue can never hold what an access needs (write-allocate: the forwarded
// write and the fetch, with a one-entry queue) would stall the stage forever: the unit reports
// the option and lets the access go instead of hanging the core.
TEST(SimtLdstInput, AccessTheCacheCanNeverTakeIsDiagnosed) {
  Harness h;
  h.cfg.l1d = "N:8:128:2,L:T:m:W:L,A:4:2,1";
  h.create();
  h.issue(0, store(PTX_SPACE_GLOBAL, 4, unit), 1);
  h.run_to(5);
  EXPECT_EQ(h.done_at(1), 1u);
  simtvp_diag d;
  EXPECT_EQ(simt_ldst_status(h.u, &d), SIMTVP_ERR_CONFIG);
  EXPECT_STREQ(d.option, "-gpgpu_cache:dl1");
  EXPECT_NE(std::string(d.message).find("MISS_QUEUE_FULL"), std::string::npos) << d.message;
  EXPECT_TRUE(simt_ldst_idle(h.u));
}

// The deadlock dump names what each slot waits for.
TEST(SimtLdstInput, DumpNamesWhatTheStageWaitsFor) {
  Harness h;
  h.refuse = 100;
  h.create();
  h.issue(3, load(PTX_SPACE_GLOBAL, 4, unit), 77);
  h.run_to(4);
  std::string text;
  simt_ldst_dump(h.u, [](void *ctx, const char *line) { *static_cast<std::string *>(ctx) += std::string(line) + "\n"; }, &text);
  EXPECT_NE(text.find("warp 3 tag 77"), std::string::npos) << text;
  EXPECT_NE(text.find("send refused"), std::string::npos) << text;
}
