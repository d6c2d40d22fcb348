// The interval core's memory stage (docs/simt-interval.md §4) builds the accesses of a full warp
// in the usual shapes directly — one address, one run of consecutive lanes, rows of runs (2-D
// blocks) — and remembers shared-memory bank conflicts per pc. Both are shortcuts: the accesses
// must be the CA LDST unit's (ldst_coalesce_blocks, the sector rule) and the conflict cycles
// ldst_smem_cost_of's, for every shape, whether it takes the shortcut or the general path.
#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "ldst_coalesce.h"
#include "simt_core_util.h"

using namespace simttest;

namespace {

// Every access beyond the L1, as the interval memory port sees it.
struct Port {
  struct Access {
    uint64_t line;
    uint8_t sectors, kind, n_ops;
    bool write;
    bool operator<(const Access &o) const {
      return std::tie(kind, line, sectors, n_ops, write) < std::tie(o.kind, o.line, o.sectors, o.n_ops, o.write);
    }
    bool operator==(const Access &o) const {
      return std::tie(kind, line, sectors, n_ops, write) == std::tie(o.kind, o.line, o.sectors, o.n_ops, o.write);
    }
  };
  std::vector<Access> log;
  static uint64_t access(void *ctx, uint32_t, uint64_t line, uint8_t sectors, const uint64_t *, uint8_t kind, bool write,
                         uint8_t n_ops,
                         uint64_t at) {
    static_cast<Port *>(ctx)->log.push_back({line, sectors, kind, n_ops, write});
    return at + 50;
  }
};

// A lane shape: thread t of the CTA touches `bytes` at out + off + (t % w) * stride + (t / w) * row.
struct Shape {
  uint32_t w, stride, row, off, bytes;
};

std::string shape_kernel(const Shape &s) {
  const char *ld = s.bytes == 4 ? "ld.global.u32 %r9" : s.bytes == 8 ? "ld.global.v2.u32 {%r9, %r10}"
                                                                     : "ld.global.v4.u32 {%r9, %r10, %r11, %r12}";
  return std::string(".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n"
                     "  .reg .b32 %r<16>;\n  .reg .b64 %rd<8>;\n"
                     "  ld.param.u64 %rd1, [out];\n  mov.u32 %r1, %tid.x;\n") +
         "  rem.u32 %r2, %r1, " + std::to_string(s.w) + ";\n  div.u32 %r3, %r1, " + std::to_string(s.w) + ";\n" +
         "  mul.lo.u32 %r4, %r2, " + std::to_string(s.stride) + ";\n  mad.lo.u32 %r5, %r3, " +
         std::to_string(s.row) + ", %r4;\n  add.u32 %r5, %r5, " + std::to_string(s.off) + ";\n" +
         "  cvt.u64.u32 %rd2, %r5;\n  add.s64 %rd3, %rd1, %rd2;\n  " + ld + ", [%rd3];\n" +
         "  atom.global.add.u32 %r13, [%rd3], 1;\n  red.global.add.u32 [%rd3], 1;\n  exit;\n}\n";
}

// The CA LDST unit's requests for the shape's warps (the sector rule, blocks of `block` bytes: the
// 128-byte line, or the L1D's line when shorter): the load's as reads, the atomic's and the
// reduction's with their lane operations — the atomic's, which returns a value, as a request for
// data (not a write), the reduction's as a write (its data goes out, an acknowledgement comes back).
std::vector<Port::Access> expected(const Shape &s, uint64_t out, uint32_t threads, uint32_t block) {
  std::vector<Port::Access> v;
  for (uint32_t warp = 0; warp < threads / 32; warp++) {
    for (int atomic = 0; atomic < 3; atomic++) { /* load, atomic, reduction */
      ldst_range r[32];
      for (uint32_t i = 0; i < 32; i++) {
        uint32_t t = warp * 32 + i;
        r[i] = {out + s.off + (t % s.w) * s.stride + (t / s.w) * s.row, atomic ? 4u : s.bytes, i};
      }
      ldst_access a[LDST_MAX_ACCESSES];
      uint32_t n = 0;
      EXPECT_TRUE(ldst_coalesce_blocks(r, 32, block, a, &n, LDST_MAX_ACCESSES));
      for (uint32_t j = 0; j < n; j++)
        v.push_back({a[j].addr & ~uint64_t(MEM_LINE_BYTES - 1), a[j].sector_mask,
                     uint8_t(atomic ? MEM_ACC_ATOMIC : MEM_ACC_GLOBAL_R), uint8_t(atomic ? a[j].lanes : 0),
                     atomic == 2});
    }
  }
  std::sort(v.begin(), v.end());
  return v;
}

// Runs the shape on one interval core whose global loads go around the L1D
// (-gpgpu_gmem_skip_L1D 1), so the port sees every coalesced access as it was built; block 64:
// an L1D of 64-byte lines, whose blocks the coalescer then uses.
std::vector<Port::Access> run_shape(const Shape &s, uint32_t threads, uint32_t block, uint64_t *out) {
  Port port;
  std::vector<const char *> args =
      with_model("interval", {"-gpgpu_n_clusters", "1", "-gpgpu_gmem_skip_L1D", "1"});
  if (block == 64) {
    args.push_back("-gpgpu_cache:dl1");
    args.push_back("N:64:64:4,L:L:m:N:H,A:32:8,8");
  }
  simt_harness *h = harness_behind(port, kQV100, args, SH_LDST_REAL, shape_kernel(s), "shape.ptx");
  if (!h) return {};
  simtvp_diag d{};
  *out = sh_alloc(h, 1u << 16);
  const void *params[] = {out};
  uint32_t grid[3] = {1, 1, 1}, cta[3] = {threads, 1, 1};
  EXPECT_EQ(sh_launch(h, "k", grid, cta, 0, params, &d), SIMTVP_OK) << d.message;
  sh_destroy(h);
  std::vector<Port::Access> v;
  for (auto &a : port.log)
    if (a.kind == MEM_ACC_GLOBAL_R || a.kind == MEM_ACC_ATOMIC) v.push_back(a);
  std::sort(v.begin(), v.end());
  return v;
}

void expect_ca_accesses(const Shape &s, const char *what, uint32_t block = MEM_LINE_BYTES) {
  uint64_t out = 0;
  std::vector<Port::Access> got = run_shape(s, 64, block, &out);
  std::vector<Port::Access> want = expected(s, out, 64, block);
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); i++)
    EXPECT_TRUE(got[i] == want[i]) << what << ": access " << i << " line 0x" << std::hex << got[i].line << " sectors "
                                   << int(got[i].sectors) << " kind " << std::dec << int(got[i].kind) << " ops "
                                   << int(got[i].n_ops) << ", CA rule: line 0x" << std::hex << want[i].line
                                   << " sectors " << int(want[i].sectors) << std::dec << " ops " << int(want[i].n_ops);
}

TEST(SimtIntervalMemShapes, OneRunPerWarpGivesTheCaRequests) {
  // A 1-D block: 32 lanes × 4 bytes fill one line (4 sectors); × 8 and × 16 bytes two and four
  // lines; a run starting mid-line crosses into the next line.
  expect_ca_accesses({32, 4, 0, 0, 4}, "4-byte run");
  expect_ca_accesses({32, 8, 0, 0, 8}, "8-byte run");
  expect_ca_accesses({32, 16, 0, 0, 16}, "16-byte run");
  expect_ca_accesses({32, 4, 0, 64, 4}, "run crossing a line");
  expect_ca_accesses({32, 4, 0, 36, 4}, "run starting in a sector's middle");
}

TEST(SimtIntervalMemShapes, OneAddressForEveryLaneGivesOneRequestWithEveryLanesOperation) {
  // Every lane at one word: one sector, and the atomic carries 32 operations.
  expect_ca_accesses({32, 0, 0, 40, 4}, "one address");
  expect_ca_accesses({32, 0, 0, 120, 8}, "one 8-byte address");
}

TEST(SimtIntervalMemShapes, RowsOfRunsGiveTheCaRequests) {
  // A 16 × 16 block over a 128-float row (SGEMM's tiles): two lines of two sectors per warp; rows
  // of 8 and 4 lanes; rows that share a line (row stride below 128 bytes: their bytes merge into
  // one request, in order of first touch); rows that cross lines.
  expect_ca_accesses({16, 4, 512, 0, 4}, "16-lane rows");
  expect_ca_accesses({8, 4, 256, 0, 4}, "8-lane rows");
  expect_ca_accesses({4, 4, 512, 32, 4}, "4-lane rows");
  expect_ca_accesses({8, 4, 40, 0, 4}, "8-lane rows sharing lines");
  expect_ca_accesses({16, 4, 96, 64, 4}, "16-lane rows crossing lines");
  expect_ca_accesses({16, 8, 1024, 0, 8}, "16-lane rows of 8 bytes");
  expect_ca_accesses({16, 4, 32, 0, 4}, "16-lane rows overlapping in one line");
}

TEST(SimtIntervalMemShapes, ShapesGiveTheCaRequestsWithBlocksOfAShorterL1Line) {
  // 64-byte L1D lines: a 128-byte run is two requests, a 16-byte lane row three blocks.
  expect_ca_accesses({32, 4, 0, 0, 4}, "4-byte run, 64-byte blocks", 64);
  expect_ca_accesses({32, 16, 0, 32, 16}, "16-byte run, 64-byte blocks", 64);
  expect_ca_accesses({16, 4, 512, 32, 4}, "16-lane rows, 64-byte blocks", 64);
  expect_ca_accesses({32, 0, 0, 8, 4}, "one address, 64-byte blocks", 64);
  expect_ca_accesses({32, 8, 0, 0, 4}, "stride 8, 64-byte blocks", 64);
}

TEST(SimtIntervalMemShapes, OtherShapesGiveTheCaRequestsThroughTheGeneralPath) {
  // Strided lanes, pairs, rows of 2, rows of 16 whose second row is not a run: no shortcut.
  expect_ca_accesses({32, 8, 0, 0, 4}, "stride 8");
  expect_ca_accesses({32, 132, 0, 0, 4}, "one line per lane");
  expect_ca_accesses({2, 4, 256, 0, 4}, "2-lane rows");
  expect_ca_accesses({16, 4, 0, 0, 4}, "rows on the same bytes");
  expect_ca_accesses({24, 4, 512, 0, 4}, "24-lane rows");
}

// Shared-memory loads in several lane patterns (the lane's byte offset %r5, over %r3 = lane and
// %r2 = warp), each as a full-warp word load, an odd-lanes-only word load (a partial mask) and an
// 8-byte load (two phases of 16 lanes), in four warps of one CTA.
std::string smem_kernel() {
  const char *patterns[] = {
      "shl.b32 %r5, %r3, 2",                        // consecutive words: conflict-free
      "shl.b32 %r5, %r3, 3",                        // every second word: 2-way
      "shl.b32 %r5, %r3, 7",                        // one bank: 32-way
      "mov.u32 %r5, 64",                            // one word: broadcast
      "and.b32 %r6, %r3, 15;\n  shl.b32 %r5, %r6, 2", // two halves on the same words
      "add.u32 %r6, %r2, 1;\n  mul.lo.u32 %r7, %r3, %r6;\n  shl.b32 %r5, %r7, 2", // stride by warp
      "mul.lo.u32 %r5, %r3, 12",                    // 3-word stride: conflict-free
      "shl.b32 %r6, %r2, 2;\n  shl.b32 %r7, %r3, 3;\n  add.u32 %r5, %r6, %r7", // 2-way, shifted per warp
  };
  std::string body =
      "  mov.u32 %r1, %tid.x;\n  shr.u32 %r2, %r1, 5;\n  and.b32 %r3, %r1, 31;\n  mov.u32 %r20, sm;\n"
      "  and.b32 %r4, %r3, 1;\n  setp.eq.u32 %p1, %r4, 1;\n";
  for (const char *p : patterns) {
    body += std::string("  ") + p + ";\n  add.u32 %r8, %r20, %r5;\n  ld.shared.u32 %r10, [%r8];\n"
            "  @%p1 ld.shared.u32 %r11, [%r8];\n  and.b32 %r9, %r8, -8;\n  ld.shared.v2.u32 {%r12, %r13}, [%r9];\n";
  }
  return std::string(".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n"
                     "  .reg .b32 %r<32>;\n  .reg .pred %p<4>;\n  .shared .align 8 .b8 sm[16384];\n") +
         body + "  exit;\n}\n";
}

TEST(SimtIntervalMemShapes, SharedMemoryConflictsAreTheCaCores) {
  // The same kernel through a CA core and an interval core: the CA LDST unit computes every
  // access's conflict cycles (ldst_smem_cost_of); the interval core remembers them per pc and
  // reuses them for a warp whose lanes sit at the same offsets. The totals must agree.
  uint64_t conflicts[3] = {0, 0, 0};
  const char *models[3] = {"ca", "interval", "interval"};
  for (int m = 0; m < 3; m++) { /* (the third: straight runs check their shared accesses' costs, §11) */
    Gpu g(kQV100, with_model(models[m], {"-gpgpu_n_clusters", "1", "-interval_runs", m == 2 ? "1" : "0"}));
    ASSERT_EQ(g.load(smem_kernel()), SIMTVP_OK) << g.diag.message;
    ASSERT_EQ(g.launch("k", 1, 128, {g.alloc(64)}), SIMTVP_OK) << g.diag.message;
    conflicts[m] = g.stat("gpgpu_n_shmem_bkconflict");
  }
  // the one-bank pattern alone: 31 extra cycles per warp's word load
  EXPECT_GT(conflicts[0], 4u * 31u);
  EXPECT_EQ(conflicts[1], conflicts[0]);
  EXPECT_EQ(conflicts[2], conflicts[0]);
}

// Full-warp word loads whose half-warps each read one word or 16 consecutive words (the records
// of models/func then carry func_step.addr_halves, and the interval core compares one offset
// instead of every lane's): lane j of half h (j = lane % 16, h = lane / 16) of warp w reads
//   uniform halves     h·64·(w + 1)                 (half 1 on half 0's bank when w is odd)
//   contiguous halves  4j + h·64·(w + 1)            (the same, a block of words each)
//   mixed              h ? 4j + 128·w : 4w          (contiguous over a uniform, moving per warp)
//   kinds swap         (w odd ? 0 : 4j) + 256h      (the same distance, the pattern differs)
//   shifted rows       4j + h·(64 + 4w)             (one word further per warp)
// so that consecutive warps at one pc differ in the half patterns or in half 1's offset.
std::string smem_halves_kernel() {
  const char *patterns[] = {
      "add.u32 %r6, %r2, 1;\n  mul.lo.u32 %r7, %r6, 64;\n  mul.lo.u32 %r5, %r14, %r7",
      "add.u32 %r6, %r2, 1;\n  mul.lo.u32 %r7, %r6, 64;\n  mul.lo.u32 %r7, %r14, %r7;\n  add.u32 %r5, %r7, %r16",
      "mul.lo.u32 %r6, %r2, 128;\n  add.u32 %r6, %r6, %r16;\n  shl.b32 %r7, %r2, 2;\n"
      "  setp.ne.u32 %p2, %r14, 0;\n  selp.b32 %r5, %r6, %r7, %p2",
      "and.b32 %r6, %r2, 1;\n  setp.ne.u32 %p2, %r6, 0;\n  selp.b32 %r7, 0, %r16, %p2;\n"
      "  shl.b32 %r6, %r14, 8;\n  add.u32 %r5, %r7, %r6",
      "shl.b32 %r6, %r2, 2;\n  add.u32 %r6, %r6, 64;\n  mul.lo.u32 %r7, %r14, %r6;\n  add.u32 %r5, %r7, %r16",
  };
  std::string body =
      "  mov.u32 %r1, %tid.x;\n  shr.u32 %r2, %r1, 5;\n  and.b32 %r3, %r1, 31;\n  mov.u32 %r20, sm;\n"
      "  shr.u32 %r14, %r3, 4;\n  and.b32 %r15, %r3, 15;\n  shl.b32 %r16, %r15, 2;\n";
  for (const char *p : patterns)
    body += std::string("  ") + p + ";\n  add.u32 %r8, %r20, %r5;\n  ld.shared.u32 %r10, [%r8];\n";
  return std::string(".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n"
                     "  .reg .b32 %r<32>;\n  .reg .pred %p<4>;\n  .shared .align 8 .b8 sm[16384];\n") +
         body + "  exit;\n}\n";
}

TEST(SimtIntervalMemShapes, SharedMemoryConflictsOfHalfWarpPatternsAreTheCaCores) {
  // The remembered cost is reused for a warp whose record has the last warp's half patterns and
  // half 1 at the same offset from lane 0 (one comparison instead of 32): what the lane scan (and
  // the CA LDST unit's ldst_smem_cost_of) decides, per warp. Eight warps alternate the patterns'
  // conflicts, so a cost reused wrongly changes the total.
  uint64_t conflicts[3] = {0, 0, 0};
  const char *models[3] = {"ca", "interval", "interval"};
  for (int m = 0; m < 3; m++) { /* (the third: straight runs check their shared accesses' costs, §11) */
    Gpu g(kQV100, with_model(models[m], {"-gpgpu_n_clusters", "1", "-interval_runs", m == 2 ? "1" : "0"}));
    ASSERT_EQ(g.load(smem_halves_kernel()), SIMTVP_OK) << g.diag.message;
    ASSERT_EQ(g.launch("k", 1, 256, {g.alloc(64)}), SIMTVP_OK) << g.diag.message;
    conflicts[m] = g.stat("gpgpu_n_shmem_bkconflict");
  }
  // uniform and contiguous halves on one bank (odd warps: 4 of 8) conflict one cycle each at least
  EXPECT_GE(conflicts[0], 2u * 4u);
  EXPECT_EQ(conflicts[1], conflicts[0]);
  EXPECT_EQ(conflicts[2], conflicts[0]);
}

}  // namespace

TEST(SimtIntervalMemShapes, UniformParameterLoadsAreCountedOnceEachThroughTheL1c) {
  // 4 warps × 3 ld.param (no address register: the uniform path, whose L1C hits are answered
  // before the general path and whose misses go on to it): 12 L1C accesses and 12 constant
  // requests whatever hits; every miss (the parameters' first touch of a line) fetches its line
  // through the port once and every other access hits or hits a pending line. An access the
  // shortcut both answers and then passes on would count twice; one it drops, not at all.
  Port port;
  const char *ptx =
      ".version 7.0\n.target sm_70\n.address_size 64\n"
      ".visible .entry k(.param .u64 out, .param .u32 n)\n{\n"
      "  .reg .b32 %r<4>;\n  .reg .b64 %rd<4>;\n"
      "  ld.param.u64 %rd1, [out];\n  ld.param.u32 %r1, [n];\n  ld.param.u32 %r2, [n];\n"
      "  add.u32 %r3, %r1, %r2;\n  st.global.u32 [%rd1], %r3;\n  exit;\n}\n";
  simt_harness *h = harness_behind(port, kQV100, with_model("interval", {"-gpgpu_n_clusters", "1"}), SH_LDST_REAL,
                                   ptx, "params.ptx");
  ASSERT_NE(h, nullptr);
  simtvp_diag d{};
  uint64_t out = sh_alloc(h, 256);
  uint32_t n = 5;
  const void *params[] = {&out, &n};
  uint32_t grid[3] = {1, 1, 1}, cta[3] = {128, 1, 1};
  ASSERT_EQ(sh_launch(h, "k", grid, cta, 0, params, &d), SIMTVP_OK) << d.message;
  int found = 0;
  uint64_t accesses = stats_get(sh_stats(h), "L1C_total_cache_accesses", &found);
  EXPECT_TRUE(found);
  uint64_t misses = stats_get(sh_stats(h), "L1C_total_cache_misses", &found);
  uint64_t requests = stats_get(sh_stats(h), "gpgpu_n_mem_const", &found);
  EXPECT_TRUE(found);
  sh_destroy(h);
  uint64_t fetches = 0;
  for (auto &a : port.log) fetches += a.kind == MEM_ACC_CONST_R;
  EXPECT_EQ(12u, accesses);
  EXPECT_EQ(12u, requests);
  EXPECT_GE(misses, 1u);
  EXPECT_LE(misses, 2u);  // the two parameters sit in one or two L1C lines
  EXPECT_EQ(misses, fetches);
  // A fill of a cache without sectors reads its whole line, as the CA caches' fill requests do:
  // QV100's L1C has 64-byte lines (two sectors of the 128-byte line), its L1I 128-byte ones.
  uint64_t code = 0;
  for (auto &a : port.log) {
    if (a.kind == MEM_ACC_CONST_R) {
      EXPECT_TRUE(a.sectors == 0x3 || a.sectors == 0xC) << int(a.sectors);
    }
    if (a.kind == MEM_ACC_INST_R) {
      code++;
      EXPECT_EQ(a.sectors, 0xFu);
    }
  }
  EXPECT_GE(code, 1u);
}
