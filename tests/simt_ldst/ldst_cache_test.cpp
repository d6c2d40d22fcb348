// The load/store unit with its caches: L1D hit / miss / MSHR-merge timing, write policies,
// banks, bypass, the constant cache (serialisation, param space), the texture cache, atomics.
#include "ldst_harness.h"

using namespace ldst_test;

namespace {

const uint64_t kLine = 0x10000000ull;
// 16 sets x 4 ways of 128-byte lines, write-through, allocate on miss, no write-allocate, 8 MSHRs
// merging 4, miss queue 4.
const char *kWriteThrough = "N:16:128:4,L:T:m:N:L,A:8:4,4";
auto unit = [](uint32_t i) { return kLine + 4ull * i; };

}  // namespace

// Miss then hit. Load issued at 0 accesses the L1D at 1 (miss, fetch queued), the fetch leaves at
// 2; its reply, handed in at 10, is taken at 11: fill, release, complete at 11. A second load of
// the line issued at 11 hits at 12 and completes l1d_latency (20) later, at 32.
TEST(SimtLdstL1d, MissThenHitTiming) {
  Harness h;
  h.cfg.l1d = kWriteThrough;
  h.create();
  h.issue(0, load(PTX_SPACE_GLOBAL, 4, unit), 1);
  h.run_to(10);
  ASSERT_EQ(h.sent.size(), 1u);
  EXPECT_EQ(h.sent[0].at, 2u);
  EXPECT_EQ(h.sent[0].kind, MEM_ACC_GLOBAL_R);
  EXPECT_NE(h.sent[0].req->owner_ctx, (void *)h.u);  // the cache's own fetch
  EXPECT_TRUE(h.reply(h.sent[0].req));
  h.run_to(11);
  EXPECT_EQ(h.done_at(1), 11u);
  h.issue(1, load(PTX_SPACE_GLOBAL, 4, unit), 2);
  h.run_to(40);
  EXPECT_EQ(h.done_at(2), 32u);
  EXPECT_EQ(h.sent.size(), 1u);
  EXPECT_EQ(h.stat("L1D_total_cache_accesses"), 2u);
  EXPECT_EQ(h.stat("L1D_total_cache_misses"), 1u);
  EXPECT_EQ(h.stat("total_dl1_accesses"), 2u);
  EXPECT_EQ(h.stat("L1D_cache_core[3].access"), 2u);
  EXPECT_TRUE(simt_ldst_idle(h.u));
}

// Two warps load the same line before its fill: the second merges into the MSHR (pending hit),
// one fetch leaves, and the one fill at 10 (taken at 11) completes both.
TEST(SimtLdstL1d, MshrMergeCompletesBothOnOneFill) {
  Harness h;
  h.cfg.l1d = kWriteThrough;
  h.create();
  h.issue(0, load(PTX_SPACE_GLOBAL, 4, unit), 1);
  h.tick();  // 1: warp 0 misses
  h.issue(1, load(PTX_SPACE_GLOBAL, 4, unit), 2);
  h.run_to(10);  // 2: warp 1 merges
  ASSERT_EQ(h.sent.size(), 1u);
  EXPECT_TRUE(h.done.empty());
  h.reply(h.sent[0].req);
  h.run_to(20);
  EXPECT_EQ(h.done_at(1), 11u);
  EXPECT_EQ(h.done_at(2), 11u);
  EXPECT_EQ(h.stat("L1D_total_cache_pending_hits"), 1u);
}

// A full MSHR: one entry; a second line's miss fails reservation each cycle (counted as a
// gl_mem resource stall) until the first fill frees the entry.
TEST(SimtLdstL1d, ReservationFailureStallsTheStageUntilAFill) {
  Harness h;
  h.cfg.l1d = "N:16:128:4,L:T:m:N:L,A:1:4,4";
  h.create();
  h.issue(0, load(PTX_SPACE_GLOBAL, 4, [](uint32_t i) { return kLine + 128ull * (i & 1) + 4 * (i / 2); }), 1);
  h.run_to(10);  // cycle 1: line 0 misses; cycles 2..10: line 1 fails
  EXPECT_EQ(h.sent.size(), 1u);
  EXPECT_EQ(h.stat("gpgpu_stall_shd_mem[gl_mem][resource_stall]"), 9u);
  EXPECT_EQ(h.stat("L1D_total_cache_reservation_fails"), 9u);
  EXPECT_FALSE(h.can_issue());
  h.reply(h.sent[0].req);
  h.run_to(12);  // 11: fill frees the MSHR, line 1 misses; 12: its fetch leaves
  ASSERT_EQ(h.sent.size(), 2u);
  EXPECT_EQ(h.sent[1].at, 12u);
  EXPECT_TRUE(h.can_issue());
  h.reply(h.sent[1].req);
  h.run_to(20);
  EXPECT_EQ(h.done_at(1), 13u);
}

// Write-through, no write-allocate: a store misses, goes on unchanged (the unit's own request),
// completes when accepted (cycle 1) and is pending until its acknowledgement (handed in at 5,
// taken at 6).
TEST(SimtLdstL1d, WriteThroughStoreIsPendingUntilAcknowledged) {
  Harness h;
  h.cfg.l1d = kWriteThrough;
  h.create();
  h.issue(4, store(PTX_SPACE_GLOBAL, 4, unit), 1);
  h.run_to(5);
  EXPECT_EQ(h.done_at(1), 1u);
  ASSERT_EQ(h.sent.size(), 1u);
  EXPECT_EQ(h.sent[0].kind, MEM_ACC_GLOBAL_W);
  EXPECT_EQ(h.sent[0].req->owner_ctx, (void *)h.u);
  EXPECT_EQ(simt_ldst_pending_stores(h.u, 4), 1u);
  EXPECT_FALSE(simt_ldst_idle(h.u));
  h.reply(h.sent[0].req);
  h.run_to(5);
  EXPECT_EQ(simt_ldst_pending_stores(h.u, 4), 1u);
  h.tick();
  EXPECT_EQ(simt_ldst_pending_stores(h.u, 4), 0u);
  EXPECT_TRUE(simt_ldst_idle(h.u));
  EXPECT_EQ(h.stat("gpgpu_n_mem_write_global"), 1u);
}

// Fermi's 'L' policy: local writes are written back, global writes evict. A fully written local
// line with fetch-on-write is absorbed (no request leaves; the cache acknowledges after the hit
// latency: 1 + 20 = 21) and leaves as one L1_WRBK on flush. A global store to a cached line
// evicts it: the next load misses again.
TEST(SimtLdstL1d, LocalWriteBackGlobalWriteEvict) {
  Harness h;
  h.cfg.l1d = "S:16:128:4,L:L:m:F:L,A:8:4,4";
  h.create();
  h.issue(0, store(PTX_SPACE_LOCAL, 4, [](uint32_t) { return 0ull; }), 1);
  h.run_to(20);
  EXPECT_TRUE(h.sent.empty());
  EXPECT_EQ(h.done_at(1), 1u);
  EXPECT_EQ(simt_ldst_pending_stores(h.u, 0), 1u);
  h.tick();  // 21
  EXPECT_EQ(simt_ldst_pending_stores(h.u, 0), 0u);
  EXPECT_EQ(simt_ldst_flush_l1(h.u, h.now), 1u);
  h.run_to(25);
  ASSERT_EQ(h.sent.size(), 1u);
  EXPECT_EQ(h.sent[0].kind, MEM_ACC_L1_WRBK);
  EXPECT_EQ(h.sent[0].addr, h.cfg.local_base);
  EXPECT_FALSE(h.sent[0].req->needs_reply);
  mem_req_free(h.sent[0].req);  // the memory system's to free: no reply

  // global: load (miss, fill), store (evicts), load (misses again)
  h.issue(0, load(PTX_SPACE_GLOBAL, 4, unit), 2);
  h.run_to(30);
  ASSERT_EQ(h.sent.size(), 2u);
  h.reply(h.sent[1].req);
  h.run_to(35);
  h.issue(0, store(PTX_SPACE_GLOBAL, 4, unit), 3);
  h.run_to(40);
  ASSERT_EQ(h.sent.size(), 3u);
  EXPECT_EQ(h.sent[2].kind, MEM_ACC_GLOBAL_W);
  h.reply(h.sent[2].req);
  h.issue(0, load(PTX_SPACE_GLOBAL, 4, unit), 4);
  h.run_to(45);
  ASSERT_EQ(h.sent.size(), 4u);
  EXPECT_EQ(h.sent[3].kind, MEM_ACC_GLOBAL_R);
  h.reply(h.sent[3].req);
  ASSERT_TRUE(h.drain());
}

// Write-back with fetch-on-write for every write: a global store of a full line is absorbed and
// acknowledged by the cache; a later load hits.
TEST(SimtLdstL1d, WriteBackAbsorbsStores) {
  Harness h;
  h.cfg.l1d = "S:16:128:4,L:B:m:F:L,A:8:4,4";
  h.cfg.l1d_latency = 5;
  h.create();
  h.issue(0, store(PTX_SPACE_GLOBAL, 4, unit), 1);
  h.run_to(6);
  EXPECT_EQ(simt_ldst_pending_stores(h.u, 0), 0u);  // acknowledged at 1 + 5 = 6
  h.issue(0, load(PTX_SPACE_GLOBAL, 4, unit), 2);
  h.run_to(20);
  EXPECT_EQ(h.done_at(2), 12u);  // hit at 7, + 5
  EXPECT_TRUE(h.sent.empty());
}

// -gpgpu_gmem_skip_L1D: global loads go around the L1D (no L1D access counted), local ones
// still use it; .cg loads go around it too.
TEST(SimtLdstL1d, SkipL1dSendsGlobalAroundTheCache) {
  Harness h;
  h.cfg.l1d = kWriteThrough;
  h.cfg.gmem_skip_l1d = true;
  h.create();
  h.issue(0, load(PTX_SPACE_GLOBAL, 4, unit), 1);
  h.run_to(3);
  ASSERT_EQ(h.sent.size(), 1u);
  EXPECT_EQ(h.sent[0].at, 1u);  // sent from the stage itself
  EXPECT_EQ(h.sent[0].req->owner_ctx, (void *)h.u);
  EXPECT_EQ(h.stat("L1D_total_cache_accesses"), 0u);
  h.issue(0, load(PTX_SPACE_LOCAL, 4, [](uint32_t) { return 0ull; }), 2);
  h.run_to(6);
  EXPECT_EQ(h.stat("L1D_total_cache_accesses"), 1u);
  // the local load missed at 4, its fetch left at 5; the global reply handed in at 6 is taken
  // at 7
  h.reply(h.sent[0].req);
  h.run_to(8);
  EXPECT_EQ(h.done_at(1), 7u);
}

// .cg loads are cached in L2 only.
TEST(SimtLdstL1d, CacheGlobalLoadsBypassTheL1d) {
  Harness h;
  h.cfg.l1d = kWriteThrough;
  h.create();
  ptx_insn insn;
  std::memset(&insn, 0, sizeof insn);
  insn.cache_op = PTX_CACHE_CG;
  func_step s = load(PTX_SPACE_GLOBAL, 4, unit);
  s.insn = &insn;
  h.issue(0, s, 1);
  h.run_to(3);
  ASSERT_EQ(h.sent.size(), 1u);
  EXPECT_EQ(h.sent[0].req->owner_ctx, (void *)h.u);
  EXPECT_EQ(h.stat("L1D_total_cache_accesses"), 0u);
}

// ld.volatile and ld.relaxed / ld.acquire at .gpu or .sys scope must see other SMs' and the
// host's writes, which the non-coherent L1D never learns of: L2 only, like .cv. A .cta-scoped
// relaxed load and a plain one use the L1D (one access each).
TEST(SimtLdstL1d, VolatileAndGpuOrSystemScopedLoadsBypassTheL1d) {
  struct kind {
    uint8_t sem, scope;
    bool through_l1;
  } kinds[] = {{PTX_SEM_VOLATILE, PTX_SCOPE_NONE, false}, {PTX_SEM_RELAXED, PTX_SCOPE_SYS, false},
               {PTX_SEM_ACQUIRE, PTX_SCOPE_GPU, false},   {PTX_SEM_RELAXED, PTX_SCOPE_CTA, true},
               {PTX_SEM_NONE, PTX_SCOPE_NONE, true}};
  for (const kind &k : kinds) {
    Harness h;
    h.cfg.l1d = kWriteThrough;
    h.create();
    ptx_insn insn;
    std::memset(&insn, 0, sizeof insn);
    insn.sem = k.sem;
    insn.scope = k.scope;
    func_step s = load(PTX_SPACE_GLOBAL, 4, unit);
    s.insn = &insn;
    h.issue(0, s, 1);
    h.run_to(3);
    EXPECT_EQ(h.stat("L1D_total_cache_accesses"), k.through_l1 ? 1u : 0u) << int(k.sem) << " " << int(k.scope);
  }
}

// Banks: 4 banks interleaved by 32 bytes. A warp touching the same sector offset of four lines
// (all in bank 1) takes one cycle per line and counts three bank conflicts; four lines in four
// different banks go in one cycle.
TEST(SimtLdstL1d, BanksTakeOneAccessPerCycle) {
  Harness h;
  h.cfg.l1d = kWriteThrough;
  h.cfg.l1d_banks = 4;
  h.create();
  h.issue(0, load(PTX_SPACE_GLOBAL, 4, [](uint32_t i) { return kLine + 32 + 128ull * (i % 4); }), 1);
  h.run_to(4);
  EXPECT_EQ(h.stat("gpgpu_n_cache_bkconflict"), 3u);
  EXPECT_EQ(h.stat("gpgpu_stall_shd_mem[gl_mem][data_port_stall]"), 3u);
  EXPECT_TRUE(h.can_issue());  // last access at 4
  h.issue(1, load(PTX_SPACE_GLOBAL, 4, [](uint32_t i) { return kLine + 0x1000 + 32 * (i % 4) + 128ull * (i % 4); }), 2);
  h.tick();
  EXPECT_TRUE(h.can_issue());  // all four at 5
  EXPECT_EQ(h.stat("gpgpu_n_cache_bkconflict"), 3u);
}

// One bank and a data port narrower than the line: a hit occupies the port for 128 / 32 = 4
// cycles, so the next hit waits (data_port_stall).
TEST(SimtLdstL1d, NarrowDataPortSerialisesHits) {
  Harness h;
  h.cfg.l1d = "S:16:128:4,L:B:m:F:L,A:8:4,4:0,32";
  h.cfg.l1d_latency = 1;
  h.create();
  h.issue(0, store(PTX_SPACE_GLOBAL, 4, [](uint32_t i) { return kLine + 4ull * (i % 32); }), 1);
  h.run_to(10);
  h.issue(0, load(PTX_SPACE_GLOBAL, 4, unit), 2);
  h.tick();  // 11: hit, port busy until 15
  h.issue(0, load(PTX_SPACE_GLOBAL, 4, unit), 3);
  h.run_to(30);
  EXPECT_EQ(h.done_at(2), 12u);
  EXPECT_EQ(h.done_at(3), 16u);  // access at 15, +1
  EXPECT_EQ(h.stat("gpgpu_stall_shd_mem[gl_mem][data_port_stall]"), 3u);  // 12, 13, 14
}

// ---- constant cache ---------------------------------------------------------------------------

// Four distinct 64-byte lines: one L1C access per cycle (1..4), three deferred (port conflicts);
// the misses leave at 2..5 and complete the load when the last fill is taken.
TEST(SimtLdstConst, DivergentAddressesSerialise) {
  Harness h;
  h.cfg.l1c = "64:64:2,L:R:f:N,A:8:32,8";
  h.auto_latency = 10;
  h.create();
  h.issue(0, load(PTX_SPACE_CONST, 4, [](uint32_t i) { return kLine + 64ull * (i % 4); }), 1);
  h.run_to(40);
  ASSERT_EQ(h.sent.size(), 4u);
  for (size_t k = 0; k < 4; k++) {
    EXPECT_EQ(h.sent[k].at, k + 2);
    EXPECT_EQ(h.sent[k].kind, MEM_ACC_CONST_R);
  }
  // fills handed in at 12..15, taken at 13..16: complete at 16
  EXPECT_EQ(h.done_at(1), 16u);
  EXPECT_EQ(h.stat("gpgpu_n_mem_const"), 4u);
  EXPECT_EQ(h.stat("gpgpu_n_cmem_portconflict"), 3u);
  EXPECT_EQ(h.stat("gpgpu_stall_shd_mem[c_mem][resource_stall]"), 3u);
  EXPECT_EQ(h.stat("L1C_total_cache_misses"), 4u);
}

// A uniform constant load is one access; once cached it completes in the access cycle plus the
// L1C latency.
TEST(SimtLdstConst, UniformAddressIsOneAccess) {
  Harness h;
  h.cfg.l1c = "64:64:2,L:R:f:N,A:8:32,8";
  h.cfg.l1c_latency = 2;
  h.auto_latency = 10;
  h.create();
  h.issue(0, load(PTX_SPACE_CONST, 4, [](uint32_t) { return kLine + 8; }), 1);
  h.run_to(20);
  ASSERT_EQ(h.sent.size(), 1u);
  h.issue(0, load(PTX_SPACE_CONST, 4, [](uint32_t) { return kLine + 12; }), 2);
  uint64_t t = h.now;
  h.run_to(40);
  EXPECT_EQ(h.done_at(2), t + 1 + 2);
  EXPECT_EQ(h.sent.size(), 1u);
}

// Param-space reads go through the constant cache at the warp's parameter base.
TEST(SimtLdstConst, ParamReadsUseTheConstantPathAtTheParamBase) {
  Harness h;
  h.create();
  simt_ldst_set_param_base(h.u, 5, 0x7000);
  h.issue(5, load(PTX_SPACE_PARAM, 8, [](uint32_t) { return 16ull; }), 1);
  h.run_to(3);
  ASSERT_EQ(h.sent.size(), 1u);
  EXPECT_EQ(h.sent[0].kind, MEM_ACC_CONST_R);
  EXPECT_EQ(h.sent[0].addr, 0x7000u);
  EXPECT_EQ(h.sent[0].req->byte_mask[0], 0xffull << 16);
}

// ---- texture cache ----------------------------------------------------------------------------

// Texel addresses in two lines: two L1T accesses (cycles 1, 2), two TEXTURE_R fetches leaving at
// 2 and 3, answered at 12 and 13, taken at 13 and 14: the load completes at 14.
TEST(SimtLdstTex, TextureLoadGoesThroughTheTextureCache) {
  Harness h;
  h.cfg.l1t = "8:128:5,L:R:m:N,F:128:4,128:2";
  h.auto_latency = 10;
  h.create();
  func_step s = load(PTX_SPACE_TEX, 0, [](uint32_t i) { return kLine + 4ull * i * 2; });
  h.issue(0, s, 1);
  h.run_to(30);
  ASSERT_EQ(h.sent.size(), 2u);
  EXPECT_EQ(h.sent[0].kind, MEM_ACC_TEXTURE_R);
  EXPECT_EQ(h.sent[1].addr / 128, (kLine + 128) / 128);
  EXPECT_EQ(h.done_at(1), 14u);
  EXPECT_EQ(h.stat("gpgpu_n_mem_texture"), 2u);
  EXPECT_EQ(h.stat("L1T_total_cache_accesses"), 2u);
  EXPECT_EQ(h.stat("gpgpu_stall_shd_mem[t_mem][resource_stall]"), 1u);
  EXPECT_TRUE(simt_ldst_idle(h.u));
}

// ---- atomics ----------------------------------------------------------------------------------

// A global atomic is an ATOMIC request to the L2 (around the L1D), one per touched line, wanting
// a reply; the instruction completes with the reply. A reduction completes when sent and is
// pending until acknowledged.
TEST(SimtLdstAtomic, GlobalAtomicsAreAtomicRequestsWithReplies) {
  Harness h;
  h.cfg.l1d = kWriteThrough;
  h.create();
  h.issue(0, mem_step(PTX_SPACE_GLOBAL, true, true, true, 4, 0xffffffffu,
                      [](uint32_t i) { return kLine + 128ull * (i % 2); }), 1);
  h.run_to(5);
  ASSERT_EQ(h.sent.size(), 2u);
  for (auto &s : h.sent) {
    EXPECT_EQ(s.kind, MEM_ACC_ATOMIC);
    EXPECT_TRUE(s.req->needs_reply);
    EXPECT_FALSE(s.is_write);
  }
  EXPECT_EQ(h.stat("L1D_total_cache_accesses"), 0u);
  EXPECT_EQ(h.stat("simt_ldst.atomic_requests"), 2u);
  EXPECT_TRUE(h.done.empty());
  h.reply(h.sent[0].req);
  h.tick();
  h.reply(h.sent[1].req);
  h.run_to(10);
  EXPECT_EQ(h.done_at(1), 7u);

  h.issue(1, mem_step(PTX_SPACE_GLOBAL, false, true, true, 4, 0xffffffffu, unit), 2);
  h.run_to(12);
  EXPECT_EQ(h.done_at(2), 11u);
  ASSERT_EQ(h.sent.size(), 3u);
  EXPECT_TRUE(h.sent[2].is_write);
  EXPECT_EQ(simt_ldst_pending_stores(h.u, 1), 1u);
  h.reply(h.sent[2].req);
  h.run_to(14);
  EXPECT_EQ(simt_ldst_pending_stores(h.u, 1), 0u);
  EXPECT_TRUE(simt_ldst_idle(h.u));
}
