// Coalescing in the load/store unit: request counts, sizes and masks under the sector rule and the
// compute-capability 1.3 rule, and the interleaved local-memory layout. No L1D: every request
// goes straight to the memory system, where the harness logs it.
#include <algorithm>
#include <random>
#include <set>

#include "ldst_coalesce.h"
#include "ldst_harness.h"

using namespace ldst_test;

namespace {

// Issues one global load at cycle 0 and lets every request leave (one per cycle).
std::vector<Sent> requests_of(Harness &h, const func_step &s) {
  h.issue(0, s, 1);
  h.run_to(300);
  return h.sent;
}

const uint64_t kBase = 0x10000000ull;  // 128-byte aligned

}  // namespace

// ---- sector rule -------------------------------------------------------------------------------

// 32 lanes x 4 bytes, consecutive and aligned: one line, all four sectors, 128 bytes.
TEST(SimtLdstCoalesce, SectorRuleUnitStrideIsOneRequest) {
  Harness h;
  h.create();
  auto r = requests_of(h, load(PTX_SPACE_GLOBAL, 4, [](uint32_t i) { return kBase + 4 * i; }));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].addr, kBase);
  EXPECT_EQ(r[0].size, 128u);
  EXPECT_EQ(r[0].sector_mask, 0xfu);
  EXPECT_EQ(r[0].kind, MEM_ACC_GLOBAL_R);
  EXPECT_EQ(r[0].req->byte_mask[0], ~0ull);
  EXPECT_EQ(r[0].req->byte_mask[1], ~0ull);
  EXPECT_TRUE(r[0].req->needs_reply);
  EXPECT_EQ(r[0].req->sm, 3u);
  EXPECT_EQ(r[0].req->cluster, 1u);
  EXPECT_EQ(r[0].req->warp, 0u);
  EXPECT_EQ(h.stat("gpgpu_n_mem_read_global"), 1u);
}

// Unit stride starting half-way into a line: the upper two sectors of one line and the lower two
// of the next: two requests of 64 bytes.
TEST(SimtLdstCoalesce, SectorRuleMisalignedUnitStrideTouchesTwoLines) {
  Harness h;
  h.create();
  auto r = requests_of(h, load(PTX_SPACE_GLOBAL, 4, [](uint32_t i) { return kBase + 64 + 4 * i; }));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].addr, kBase + 64);
  EXPECT_EQ(r[0].sector_mask, 0xcu);
  EXPECT_EQ(r[0].size, 64u);
  EXPECT_EQ(r[1].addr, kBase + 128);
  EXPECT_EQ(r[1].sector_mask, 0x3u);
}

// Stride two words: 256 bytes spanned, every sector touched, every other word: two full-sector
// requests whose byte masks have every other 4-byte group set.
TEST(SimtLdstCoalesce, SectorRuleStrideTwoIsTwoRequests) {
  Harness h;
  h.create();
  auto r = requests_of(h, load(PTX_SPACE_GLOBAL, 4, [](uint32_t i) { return kBase + 8 * i; }));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].sector_mask, 0xfu);
  EXPECT_EQ(r[0].req->byte_mask[0], 0x0f0f0f0f0f0f0f0full);
  EXPECT_EQ(r[1].addr, kBase + 128);
}

// Stride of a line: 32 requests of one sector each, leaving one per cycle (1..32) and stalling
// the stage for the 31 cycles after the first ("coal_stall").
TEST(SimtLdstCoalesce, SectorRuleLineStrideIsOneRequestPerLane) {
  Harness h;
  h.create();
  auto r = requests_of(h, load(PTX_SPACE_GLOBAL, 4, [](uint32_t i) { return kBase + 128 * i + 32; }));
  ASSERT_EQ(r.size(), 32u);
  for (uint32_t i = 0; i < 32; i++) {
    EXPECT_EQ(r[i].addr, kBase + 128 * i + 32);
    EXPECT_EQ(r[i].size, 32u);
    EXPECT_EQ(r[i].sector_mask, 0x2u);
    EXPECT_EQ(r[i].at, i + 1);
  }
  EXPECT_EQ(h.stat("gpgpu_stall_shd_mem[gl_mem][coal_stall]"), 31u);
  EXPECT_EQ(h.stat("gpgpu_n_stall_shd_mem"), 31u);
}

// 8-byte and 16-byte lanes: 256 and 512 bytes: two and four full lines.
TEST(SimtLdstCoalesce, SectorRuleWideAccessesCoverMoreLines) {
  Harness h8;
  h8.create();
  EXPECT_EQ(requests_of(h8, load(PTX_SPACE_GLOBAL, 8, [](uint32_t i) { return kBase + 8 * i; })).size(), 2u);
  Harness h16;
  h16.create();
  auto r = requests_of(h16, load(PTX_SPACE_GLOBAL, 16, [](uint32_t i) { return kBase + 16 * i; }));
  ASSERT_EQ(r.size(), 4u);
  for (auto &s : r) EXPECT_EQ(s.sector_mask, 0xfu);
}

// Random addresses: exactly one request per distinct line touched, in order of first touch.
TEST(SimtLdstCoalesce, SectorRuleRandomAddressesGiveOneRequestPerLine) {
  std::mt19937_64 rng(12345);
  for (int trial = 0; trial < 20; trial++) {
    uint64_t addr[32];
    std::vector<uint64_t> lines;
    for (uint32_t i = 0; i < 32; i++) {
      addr[i] = kBase + 4 * (rng() % 512);  // 2 KB window: lines repeat
      uint64_t l = addr[i] / 128;
      if (std::find(lines.begin(), lines.end(), l) == lines.end()) lines.push_back(l);
    }
    Harness h;
    h.create();
    auto r = requests_of(h, load(PTX_SPACE_GLOBAL, 4, [&](uint32_t i) { return addr[i]; }));
    ASSERT_EQ(r.size(), lines.size());
    for (size_t k = 0; k < lines.size(); k++) EXPECT_EQ(r[k].addr / 128, lines[k]);
  }
}

// Inactive lanes do not count: lanes 0 and 31 only.
TEST(SimtLdstCoalesce, OnlyLanesThatAccessMemoryCount) {
  Harness h;
  h.create();
  auto r = requests_of(h, load(PTX_SPACE_GLOBAL, 4, [](uint32_t i) { return kBase + 128 * i; },
                               0x80000001u));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].addr, kBase + 128 * 31);
}

// Stores carry their byte masks and are writes that want an acknowledgement.
TEST(SimtLdstCoalesce, StoresCarryByteMasks) {
  Harness h;
  h.create();
  auto r = requests_of(h, store(PTX_SPACE_GLOBAL, 2, [](uint32_t i) { return kBase + 4 * i; }));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].kind, MEM_ACC_GLOBAL_W);
  EXPECT_TRUE(r[0].is_write);
  EXPECT_TRUE(r[0].req->needs_reply);
  EXPECT_EQ(r[0].req->byte_mask[0], 0x3333333333333333ull);
  EXPECT_EQ(h.stat("gpgpu_n_mem_write_global"), 1u);
}

// ---- compute capability 1.3 rule ----------------------------------------------------------------

// Unit stride, 4-byte words: each half-warp's 64 bytes sit in one half of the 128-byte segment:
// two 64-byte transactions.
TEST(SimtLdstCoalesce, Gt200UnitStrideIsTwoHalfWarpSegments) {
  Harness h;
  h.cfg.coalesce_arch = 13;
  h.create();
  auto r = requests_of(h, load(PTX_SPACE_GLOBAL, 4, [](uint32_t i) { return kBase + 4 * i; }));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].addr, kBase);
  EXPECT_EQ(r[0].size, 64u);
  EXPECT_EQ(r[0].sector_mask, 0x3u);
  EXPECT_EQ(r[1].addr, kBase + 64);
  EXPECT_EQ(r[1].size, 64u);
  EXPECT_EQ(r[1].sector_mask, 0xcu);
}

// 1-byte words use 32-byte segments: each half-warp reads 16 bytes of the same 32-byte segment,
// one 32-byte transaction per half-warp.
TEST(SimtLdstCoalesce, Gt200ByteWordsUseThirtyTwoByteSegments) {
  Harness h;
  h.cfg.coalesce_arch = 13;
  h.create();
  auto r = requests_of(h, load(PTX_SPACE_GLOBAL, 1, [](uint32_t i) { return kBase + i; }));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].addr, kBase);
  EXPECT_EQ(r[0].size, 32u);
  EXPECT_EQ(r[1].addr, kBase);
  EXPECT_EQ(r[1].size, 32u);
}

// Stride two words: each half-warp spans a whole 128-byte segment: two 128-byte transactions.
TEST(SimtLdstCoalesce, Gt200StrideTwoNeedsWholeSegments) {
  Harness h;
  h.cfg.coalesce_arch = 13;
  h.create();
  auto r = requests_of(h, load(PTX_SPACE_GLOBAL, 4, [](uint32_t i) { return kBase + 8 * i; }));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].size, 128u);
  EXPECT_EQ(r[1].addr, kBase + 128);
  EXPECT_EQ(r[1].size, 128u);
}

// Unit stride shifted by one word. Half 0 reads bytes 4..67: both halves of segment 0: 128 B at 0.
// Half 1 reads 68..131: lanes 16-30 in segment 0 use only its upper half (64 B at 64; 68..127
// straddles 96, so no further reduction); lane 31 opens segment 128 and reduces to 32 B.
TEST(SimtLdstCoalesce, Gt200MisalignedHalfWarpSplitsAndReduces) {
  Harness h;
  h.cfg.coalesce_arch = 13;
  h.create();
  auto r = requests_of(h, load(PTX_SPACE_GLOBAL, 4, [](uint32_t i) { return kBase + 4 + 4 * i; }));
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].addr, kBase);
  EXPECT_EQ(r[0].size, 128u);
  EXPECT_EQ(r[1].addr, kBase + 64);
  EXPECT_EQ(r[1].size, 64u);
  EXPECT_EQ(r[2].addr, kBase + 128);
  EXPECT_EQ(r[2].size, 32u);
}

// Random addresses: per half-warp one transaction per distinct 128-byte segment (4-byte words),
// the same count as distinct (half-warp, segment) pairs.
TEST(SimtLdstCoalesce, Gt200RandomAddressesGiveOneTransactionPerHalfWarpSegment) {
  std::mt19937_64 rng(777);
  for (int trial = 0; trial < 20; trial++) {
    uint64_t addr[32];
    std::set<std::pair<uint32_t, uint64_t>> segs;
    for (uint32_t i = 0; i < 32; i++) {
      addr[i] = kBase + 4 * (rng() % 256);
      segs.insert({i / 16, addr[i] / 128});
    }
    Harness h;
    h.cfg.coalesce_arch = 13;
    h.create();
    auto r = requests_of(h, load(PTX_SPACE_GLOBAL, 4, [&](uint32_t i) { return addr[i]; }));
    EXPECT_EQ(r.size(), segs.size());
    for (auto &s : r) EXPECT_TRUE(s.size == 32 || s.size == 64 || s.size == 128);
  }
}

// ---- local memory ----------------------------------------------------------------------------

// Every lane of warp 2 reads local offset 8 (word 2). Thread t = 64 + lane lives at
// base + (2 * 1536 + t) * 4: the warp's 32 words are one 128-byte line at base + 12544.
TEST(SimtLdstCoalesce, LocalSameOffsetCoalescesAcrossThreads) {
  Harness h;
  h.create();
  h.issue(2, load(PTX_SPACE_LOCAL, 4, [](uint32_t) { return 8ull; }), 1);
  h.run_to(20);
  ASSERT_EQ(h.sent.size(), 1u);
  EXPECT_EQ(h.sent[0].addr, h.cfg.local_base + (2ull * 1536 + 64) * 4);
  EXPECT_EQ(h.sent[0].size, 128u);
  EXPECT_EQ(h.sent[0].kind, MEM_ACC_LOCAL_R);
  EXPECT_EQ(h.stat("gpgpu_n_mem_read_local"), 1u);
}

// A 16-byte local access (v4) at offset 16 is words 4..7 of each thread: four lines, one per
// word, at base + (w * 1536 + 64) * 4.
TEST(SimtLdstCoalesce, LocalVectorAccessIsOneLinePerWord) {
  Harness h;
  h.create();
  h.issue(2, store(PTX_SPACE_LOCAL, 16, [](uint32_t) { return 16ull; }), 1);
  h.run_to(20);
  ASSERT_EQ(h.sent.size(), 4u);
  for (uint64_t w = 4; w < 8; w++) {
    EXPECT_EQ(h.sent[w - 4].addr, h.cfg.local_base + (w * 1536 + 64) * 4);
    EXPECT_EQ(h.sent[w - 4].kind, MEM_ACC_LOCAL_W);
  }
  EXPECT_EQ(h.stat("gpgpu_n_mem_write_local"), 4u);
  EXPECT_EQ(simt_ldst_pending_stores(h.u, 2), 4u);
}

// Lanes at different local offsets touch different words: one line per distinct word.
TEST(SimtLdstCoalesce, LocalDifferentOffsetsTouchDifferentLines) {
  Harness h;
  h.create();
  h.issue(0, load(PTX_SPACE_LOCAL, 4, [](uint32_t i) { return 4ull * (i % 3); }), 1);
  h.run_to(20);
  EXPECT_EQ(h.sent.size(), 3u);
}

// Sub-word local accesses keep their byte within the word.
TEST(SimtLdstCoalesce, LocalByteAccessKeepsItsByteOffset) {
  Harness h;
  h.create();
  h.issue(0, load(PTX_SPACE_LOCAL, 1, [](uint32_t) { return 6ull; }, 0x1u), 1);
  h.run_to(20);
  ASSERT_EQ(h.sent.size(), 1u);
  // word 1 of thread 0 at base + (1 * 1536 + 0) * 4, byte 2 of it
  EXPECT_EQ(h.sent[0].req->byte_mask[0], 1ull << (((1536 * 4) + 2) % 64));
}

// Atomics carry their lane count to the L2's atomic unit (mem_req.n_ops): 32 lanes on 8 words of
// one sector (4 lanes each: a histogram's hot bins) are one request of 32 operations; 24 lanes in
// one line and 8 in the next are two requests of 24 and 8. Loads carry none.
TEST(SimtLdstCoalesce, AtomicRequestsCountTheirLaneOperations) {
  Harness h;
  h.create();
  auto r = requests_of(h, mem_step(PTX_SPACE_GLOBAL, true, false, true, 4, 0xffffffffu,
                                   [](uint32_t i) { return kBase + 4 * (i % 8); }));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].kind, MEM_ACC_ATOMIC);
  EXPECT_EQ(r[0].req->n_ops, 32u);
  Harness h2;
  h2.create();
  auto r2 = requests_of(h2, mem_step(PTX_SPACE_GLOBAL, true, false, true, 4, 0xffffffffu,
                                     [](uint32_t i) { return i < 24 ? kBase + 4 * i : kBase + 128 + 4 * i; }));
  ASSERT_EQ(r2.size(), 2u);
  EXPECT_EQ(r2[0].req->n_ops + r2[1].req->n_ops, 32u);
  EXPECT_EQ(std::max(r2[0].req->n_ops, r2[1].req->n_ops), 24u);
  // Every lane on one word (a shared counter): one request, 32 operations.
  Harness h4;
  h4.create();
  auto r4 = requests_of(h4, mem_step(PTX_SPACE_GLOBAL, true, false, true, 4, 0xffffffffu,
                                     [](uint32_t) { return kBase + 8; }));
  ASSERT_EQ(r4.size(), 1u);
  EXPECT_EQ(r4[0].req->n_ops, 32u);
  Harness h3;
  h3.create();
  auto r3 = requests_of(h3, load(PTX_SPACE_GLOBAL, 4, [](uint32_t i) { return kBase + 4 * i; }));
  ASSERT_EQ(r3.size(), 1u);
  EXPECT_EQ(r3[0].req->n_ops, 0u);
}

// ldst_coalesce_span (the AT core's path for lanes found back to back while it gathers them)
// gives exactly what the lane-by-lane sector rule gives for the same ranges: every lane count,
// access size, alignment and block size, spans that cross lines included.
TEST(SimtLdstCoalesce, SpanOfLanesGivesTheSameRequestsAsTheRangeRule) {
  auto same = [](const ldst_access &a, const ldst_access &b) {
    return a.addr == b.addr && a.size == b.size && a.sector_mask == b.sector_mask &&
           a.byte_mask[0] == b.byte_mask[0] && a.byte_mask[1] == b.byte_mask[1] && a.lanes == b.lanes;
  };
  int cases = 0;
  for (uint32_t block : {32u, 64u, 128u})
    for (uint32_t bytes : {1u, 2u, 4u, 8u, 16u})
      for (uint32_t lanes : {1u, 2u, 3u, 16u, 31u, 32u})
        for (uint64_t offset : {0ull, 4ull, 60ull, 100ull, 127ull}) {
          ldst_range r[32];
          uint64_t lo = kBase + offset;
          for (uint32_t i = 0; i < lanes; i++) r[i] = {lo + (uint64_t)i * bytes, bytes, i};
          ldst_access want[LDST_MAX_ACCESSES], got[LDST_MAX_ACCESSES];
          uint32_t nw = 1, ng = 1; // appended after one access already there
          want[0] = got[0] = ldst_access{};
          ASSERT_TRUE(ldst_coalesce_blocks(r, lanes, block, want, &nw, LDST_MAX_ACCESSES));
          ASSERT_TRUE(ldst_coalesce_span(lo, lanes, 0, bytes, block, got, &ng, LDST_MAX_ACCESSES));
          ASSERT_EQ(nw, ng) << "block " << block << " bytes " << bytes << " lanes " << lanes << " offset " << offset;
          for (uint32_t j = 0; j < nw; j++)
            EXPECT_TRUE(same(want[j], got[j])) << "access " << j << ", block " << block << " bytes " << bytes
                                               << " lanes " << lanes << " offset " << offset;
          cases++;
        }
  EXPECT_EQ(cases, 3 * 5 * 6 * 5);
  // Too many blocks for the room left: both stop at the cap and say so.
  ldst_range r[32];
  for (uint32_t i = 0; i < 32; i++) r[i] = {kBase + 16ull * i, 16, i};
  ldst_access a[4];
  uint32_t n1 = 0, n2 = 0;
  EXPECT_FALSE(ldst_coalesce_blocks(r, 32, 32, a, &n1, 4));
  EXPECT_FALSE(ldst_coalesce_span(kBase, 32, 0, 16, 32, a, &n2, 4));
  EXPECT_EQ(n1, n2);
}
