// Every PTX program of tests/kernels/ptx run through the whole platform (libsimtvp.so + sw/driver)
// on the timing GPU gives exactly the results of the functional GPU: the same launches with the
// same inputs, every output buffer compared byte for byte (outputs whose value depends on the
// order in which threads reach an atomic are excluded or compared as multisets, as a real GPU's
// would vary), device printf compared line by line. Also per-core fidelity mixes (CA + func
// cores in one GPU) and per-channel DRAM mixes (CA + AT controllers) give the same results.
//
// Each run happens in a forked child (one SystemC simulation per process): the reference with
// -simt_model func, the run under test with the timing side.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "test_files.h"
#include "timing_harness.h"

extern "C" {
#include "ptx.h"
}

namespace {

using gt::B;
using gt::buffer;
using gt::D;
using gt::F;
using gt::fill;
using gt::launch;
using gt::scenario;
using gt::U;

buffer buf(uint64_t bytes, fill how = fill::zero) {
  buffer b;
  b.bytes = bytes;
  b.how = how;
  return b;
}

buffer ints(uint64_t count, int64_t lo, int64_t k) {
  buffer b = buf(count * 4, fill::int_mod);
  b.lo = lo;
  b.k = k;
  return b;
}

launch L(const char *kernel, std::vector<uint32_t> grid, std::vector<uint32_t> block, uint32_t smem,
         std::vector<gt::arg> args) {
  launch l;
  l.kernel = kernel;
  for (size_t i = 0; i < 3; i++) {
    l.grid[i] = i < grid.size() ? grid[i] : 1;
    l.block[i] = i < block.size() ? block[i] : 1;
  }
  l.smem = smem;
  l.args = std::move(args);
  return l;
}

template <class T>
std::vector<uint8_t> bytes_of(const std::vector<T> &v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// ---- the programs ------------------------------------------------------------------------------

scenario vector_add() {
  scenario s;
  s.ptx = "vector_add.ptx";
  const uint32_t n = 4096;
  s.buffers = {buf(n * 4, fill::float_dyadic), buf(n * 4, fill::float_dyadic), buf(n * 4)};
  s.launches = {L("_Z10vector_addPKfS0_Pfi", {16}, {128}, 0, {B(0), B(1), B(2), U(n)})};
  return s;
}

scenario atomics() {
  scenario s;
  s.ptx = "atomics.ptx";
  const uint32_t n = 2048;
  // struct counters: f32 sum, pad, f64 sum, u64 sum, u64 CAS max, i32 min/max, and/or/xor,
  // inc/dec wrap, exchange slot (64 bytes).
  struct counters {
    float f32;
    int pad;
    double f64;
    unsigned long long u64, cas;
    int mn, mx;
    unsigned a, o, x, inc, dec;
    int exch;
  } init{};
  init.mn = 1 << 30;
  init.mx = -(1 << 30);
  init.a = 0xffffffffu;
  init.dec = 50;
  init.exch = -1;
  buffer c = buf(sizeof init);
  c.init.assign(reinterpret_cast<uint8_t *>(&init), reinterpret_cast<uint8_t *>(&init) + sizeof init);
  c.ignore_from = offsetof(counters, exch);  // the last thread to exchange: order-dependent
  c.ignore_bytes = 4;
  buffer old = buf(n * 4);
  old.cmp = buffer::compare::ignore;  // atomicExch's old values depend on the order of arrival
  s.buffers = {c, old};
  s.launches = {L("_Z7atomicsP8countersPii", {n / 128}, {128}, 0, {B(0), B(1), U(n)})};
  s.same_instructions = false;  // the CAS loop runs as often as it loses races
  return s;
}

scenario bitonic_sort() {
  scenario s;
  s.ptx = "bitonic_sort.ptx";
  const uint32_t n = 2048, threads = 128, width = 2 * threads, chunks = n / width, smem = width * 4;
  s.buffers = {ints(n, 0, 1000)};
  s.launches.push_back(L("_Z19bitonic_sort_sharedPj", {chunks}, {threads}, smem, {B(0)}));
  for (uint32_t size = 2 * width; size <= n; size *= 2) {
    for (uint32_t stride = size / 2; stride >= width; stride /= 2)
      s.launches.push_back(L("_Z20bitonic_merge_globalPjjj", {n / 2 / threads}, {threads}, 0, {B(0), U(size), U(stride)}));
    s.launches.push_back(L("_Z20bitonic_merge_sharedPjj", {chunks}, {threads}, smem, {B(0), U(size)}));
  }
  return s;
}

scenario const_globals() {
  scenario s;
  s.ptx = "const_globals.ptx";
  const uint32_t n = 1000, ntaps = 7;
  std::vector<float> taps(ntaps);
  for (uint32_t t = 0; t < ntaps; t++) taps[t] = static_cast<float>(t + 1) / 8.0f;
  s.globals = {{"taps", bytes_of(taps), true}, {"bias", bytes_of(std::vector<int>{-3}), true},
               {"calls", bytes_of(std::vector<int>{100}), true}, {"scale_table", {}, true}};
  s.buffers = {buf(n * 4, fill::float_dyadic), buf(n * 4)};
  s.launches = {L("_Z8convolvePKfPfii", {(n + 127) / 128}, {128}, 0, {B(0), B(1), U(n), U(ntaps)}),
                L("_Z8convolvePKfPfii", {(n + 127) / 128}, {128}, 0, {B(1), B(0), U(n), U(ntaps)})};
  return s;
}

scenario daxpy() {
  scenario s;
  s.ptx = "daxpy.ptx";
  const uint32_t n = 2048;
  s.buffers = {buf(n * 8, fill::double_dyadic), buf(n * 8, fill::double_dyadic), buf(n * 8)};
  s.launches = {L("_Z5daxpyidPKdPd", {n / 128}, {128}, 0, {U(n), D(2.5), B(0), B(1)}),
                L("_Z14transcendentaliPKdS0_Pd", {n / 128}, {128}, 0, {U(n), B(0), B(1), B(2)})};
  return s;
}

scenario dynamic_smem() {
  scenario s;
  s.ptx = "dynamic_smem.ptx";
  const uint32_t n = 3000;
  s.buffers = {buf(n * 4, fill::float_dyadic), buf(n * 4), buf(32 * 4), buf(n * 4), buf(32 * 4)};
  s.launches = {L("_Z14reverse_chunksPKfPfPii", {(n + 127) / 128}, {128}, 128 * 8, {B(0), B(1), B(2), U(n)}),
                L("_Z14reverse_chunksPKfPfPii", {(n + 95) / 96}, {96}, 96 * 8, {B(0), B(3), B(4), U(n)})};
  return s;
}

scenario histogram() {
  scenario s;
  s.ptx = "histogram.ptx";
  const uint32_t n = 16384;
  s.buffers = {buf(n, fill::bytes), buf(64 * 4), buf(64 * 4)};
  s.launches = {L("_Z16histogram_sharedPKhPji", {8}, {128}, 0, {B(0), B(1), U(n)}),
                L("_Z16histogram_globalPKhPji", {8}, {128}, 0, {B(0), B(2), U(n)})};
  return s;
}

scenario printf_kernel() {
  scenario s;
  s.ptx = "printf.ptx";
  s.launches = {L("_Z13device_printfid", {2}, {4}, 0, {U(1234), D(0.125)})};
  return s;
}

scenario recursion() {
  scenario s;
  s.ptx = "recursion.ptx";
  const uint32_t n = 64;
  s.buffers = {ints(n, -1000, 2000), ints(n, -1000, 2000), ints(n, 0, 4), buf(n * 4), buf(n * 4), buf(n * 4)};
  s.launches = {L("_Z9recursionPKiS0_S0_iPiS1_S1_i", {n / 32}, {32}, 0,
                  {B(0), B(1), B(2), U(12), B(3), B(4), B(5), U(n)})};
  s.stack_bytes = 4096;
  return s;
}

scenario reduction() {
  scenario s;
  s.ptx = "reduction.ptx";
  const uint32_t n = 8192, threads = 256, blocks = n / (threads * 2);
  s.buffers = {ints(n, -8, 17), buf(blocks * 4), buf(blocks * 4), buf(n * 4, fill::float_dyadic), buf(4)};
  s.launches = {L("_Z11reduce_treePKiPii", {blocks}, {threads}, threads * 4, {B(0), B(1), U(n)}),
                L("_Z11reduce_treePKiPii", {1}, {threads}, threads * 4, {B(1), B(2), U(blocks)}),
                L("_Z14reduce_shufflePKfPfi", {4}, {threads}, 0, {B(3), B(4), U(n)})};
  return s;
}

scenario scan() {
  scenario s;
  s.ptx = "scan.ptx";
  const uint32_t n = 4096, threads = 128, width = 2 * threads, blocks = n / width;
  s.buffers = {ints(n, -100, 201), buf(n * 4), buf(blocks * 4), buf(n * 4)};
  s.launches = {L("_Z13scan_blellochPKiPiS1_i", {blocks}, {threads}, width * 4, {B(0), B(1), B(2), U(n)}),
                L("_Z13scan_blellochPKiPiS1_i", {1}, {threads}, width * 4, {B(2), B(2), U(0), U(blocks)}),
                L("_Z17add_block_offsetsPiPKii", {blocks}, {threads}, 0, {B(1), B(2), U(n)}),
                L("_Z19scan_warp_inclusivePKiPii", {n / threads}, {threads}, 0, {B(0), B(3), U(n)})};
  return s;
}

scenario sgemm() {
  scenario s;
  s.ptx = "sgemm.ptx";
  const uint32_t m = 64, n = 48, k = 80;
  s.buffers = {buf(m * k * 4, fill::float_dyadic), buf(k * n * 4, fill::float_dyadic),
               buf(m * n * 4, fill::float_dyadic), buf(m * n * 4, fill::float_dyadic)};
  std::vector<uint32_t> grid = {(n + 15) / 16, (m + 15) / 16}, block = {16, 16};
  s.launches = {L("_Z11sgemm_naiveiiifPKfS0_fPf", grid, block, 0, {U(m), U(n), U(k), F(2.0f), B(0), B(1), F(0.5f), B(2)}),
                L("_Z11sgemm_tilediiifPKfS0_fPf", grid, block, 0, {U(m), U(n), U(k), F(2.0f), B(0), B(1), F(0.5f), B(3)})};
  return s;
}

scenario streams_events() {
  scenario s;
  s.ptx = "streams_events.ptx";
  const uint32_t n = 4096;
  s.buffers = {buf(n * 4, fill::float_dyadic), buf(n * 4, fill::float_dyadic)};
  s.launches = {L("_Z5scalePffi", {n / 256}, {256}, 0, {B(0), F(2.0f), U(n)}),
                L("_Z10accumulatePfPKfi", {n / 256}, {256}, 0, {B(1), B(0), U(n)})};
  return s;
}

scenario texture() {
  scenario s;
  s.ptx = "texture.ptx";
  const uint32_t w = 16, h = 8, n = 256;
  func_tex_desc t{};
  t.resource = FUNC_TEX_RES_ARRAY;
  t.dims = 2;
  t.channels = 1;
  t.channel_type = PTX_TYPE_F32;
  t.width = w;
  t.height = h;
  t.depth = 1;
  t.layers = 1;
  t.pitch = w * 4;
  t.slice_pitch = w * h * 4;
  buffer clamp = buf(sizeof t, fill::tex_desc), wrap = clamp, point = clamp, surf = clamp;
  clamp.tex = t;
  clamp.tex.normalized_coords = 1;
  clamp.tex.filter = FUNC_TEX_FILTER_LINEAR;
  clamp.tex.address[0] = clamp.tex.address[1] = FUNC_TEX_ADDR_CLAMP;
  clamp.data_buf = 0;
  wrap.tex = clamp.tex;
  wrap.tex.address[0] = wrap.tex.address[1] = FUNC_TEX_ADDR_WRAP;
  wrap.data_buf = 0;
  surf.tex = t;
  surf.data_buf = 3;
  point.tex = t;
  point.tex.address[0] = point.tex.address[1] = FUNC_TEX_ADDR_CLAMP;
  point.data_buf = 3;
  // 0 image, 1 clamp, 2 wrap, 3 surface image, 4 surface, 5 point, 6 coords, 7 clamped, 8 wrapped,
  // 9 fetched
  s.buffers = {buf(w * h * 4, fill::float_dyadic), clamp, wrap, buf(w * h * 4), surf, point,
               buf(n * 8, fill::float_dyadic), buf(n * 4), buf(n * 4), buf(w * h * 4)};
  s.launches = {L("_Z14sample_textureyyPK6float2PfS2_i", {n / 64}, {64}, 0, {B(1), B(2), B(6), B(7), B(8), U(n)}),
                L("_Z13write_surfaceyii", {2, 1}, {8, 8}, 0, {B(4), U(w), U(h)}),
                L("_Z12fetch_texelsyPfii", {2, 1}, {8, 8}, 0, {B(5), B(9), U(w), U(h)})};
  return s;
}

scenario transpose() {
  scenario s;
  s.ptx = "transpose.ptx";
  const uint32_t rows = 96, cols = 64;
  s.buffers = {buf(rows * cols * 4, fill::float_dyadic), buf(rows * cols * 4), buf(rows * cols * 4),
               buf(rows * cols * 4)};
  std::vector<uint32_t> grid = {cols / 32, rows / 32}, block = {32, 8};
  s.launches = {L("_Z15transpose_naivePKfPfii", grid, block, 0, {B(0), B(1), U(rows), U(cols)}),
                L("_Z14transpose_tileILi0EEvPKfPfii", grid, block, 0, {B(0), B(2), U(rows), U(cols)}),
                L("_Z14transpose_tileILi1EEvPKfPfii", grid, block, 0, {B(0), B(3), U(rows), U(cols)})};
  return s;
}

scenario warp_vote() {
  scenario s;
  s.ptx = "warp_vote.ptx";
  const uint32_t blocks = 2, threads = 128, n = blocks * threads;
  s.buffers = {ints(n, 1, 1000), buf(n * 13 * 4)};
  s.launches = {L("_Z9warp_votePKiPi", {blocks}, {threads}, 0, {B(0), B(1)})};
  return s;
}

scenario wmma() {
  scenario s;
  s.ptx = "wmma.ptx";
  const uint32_t m = 32, n = 32, k = 48, warps = (m / 16) * (n / 16), threads = 64;
  s.buffers = {buf(m * k * 2, fill::half_small), buf(k * n * 2, fill::half_small), buf(m * n * 4, fill::float_dyadic),
               buf(m * n * 4)};
  s.launches = {L("_Z9wmma_gemmPK6__halfS1_PKfPfiii", {(warps * 32 + threads - 1) / threads}, {threads}, 0,
                  {B(0), B(1), B(2), B(3), U(m), U(n), U(k)})};
  return s;
}

// ---- running ------------------------------------------------------------------------------------

gt::options with(std::vector<std::string> words, const scenario &s) {
  gt::options o;
  o.overrides = {"-device_memory_mb", "256"};
  if (s.stack_bytes) {
    o.overrides.push_back("-gpgpu_stack_size_limit");
    o.overrides.push_back(std::to_string(s.stack_bytes));
  }
  o.overrides.insert(o.overrides.end(), words.begin(), words.end());
  o.stats = {"gpu_sim_cycle", "gpu_sim_insn"};
  return o;
}

// The timing run equals the functional run; the timing run took GPU cycles.
void expect_same_as_functional(const scenario &s, std::vector<std::string> timing_words) {
  gt::result want = gt::run(s, with({"-simt_model", "func"}, s));
  ASSERT_EQ(want.exit_code, 0) << want.error << "\n" << want.messages;
  gt::result got = gt::run(s, with(timing_words, s));
  ASSERT_EQ(got.exit_code, 0) << got.error << "\n" << got.messages;
  // The reference computed something (a run whose copies failed would compare equal vacuously).
  bool changed = !want.printed.empty();
  for (size_t i = 0; i < s.buffers.size() && i < want.buffers.size(); i++)
    changed = changed || (s.buffers[i].how != fill::tex_desc && want.buffers[i] != gt::initial(s.buffers[i], static_cast<int>(i)));
  EXPECT_TRUE(changed) << "the kernels changed no buffer";
  std::string diff = gt::compare(s, want, got);
  EXPECT_EQ(diff, "") << got.messages;
  ASSERT_EQ(got.stats.size(), 2u);
  EXPECT_GT(got.stats[0], 0u) << "gpu_sim_cycle";
  EXPECT_EQ(want.stats[0], 0u) << "the functional GPU takes no cycles";
  if (s.same_instructions) {
    EXPECT_EQ(got.stats[1], want.stats[1]) << "gpu_sim_insn: the same thread instructions";
  }
}

const std::vector<std::string> kCa = {"-simt_model", "ca"};

#define TIMING_KERNEL_TEST(name)                                                                   \
  TEST(GpuTimingKernels, name##MatchesTheFunctionalGpu) { expect_same_as_functional(name(), kCa); }

TIMING_KERNEL_TEST(vector_add)
TIMING_KERNEL_TEST(atomics)
TIMING_KERNEL_TEST(bitonic_sort)
TIMING_KERNEL_TEST(const_globals)
TIMING_KERNEL_TEST(daxpy)
TIMING_KERNEL_TEST(dynamic_smem)
TIMING_KERNEL_TEST(histogram)
TIMING_KERNEL_TEST(recursion)
TIMING_KERNEL_TEST(reduction)
TIMING_KERNEL_TEST(scan)
TIMING_KERNEL_TEST(sgemm)
TIMING_KERNEL_TEST(streams_events)
TIMING_KERNEL_TEST(texture)
TIMING_KERNEL_TEST(transpose)
TIMING_KERNEL_TEST(warp_vote)
TIMING_KERNEL_TEST(wmma)

TEST(GpuTimingKernels, printfMatchesTheFunctionalGpu) {
  scenario s = printf_kernel();
  expect_same_as_functional(s, kCa);
  gt::result got = gt::run(s, with(kCa, s));
  EXPECT_NE(got.printed.find("1234"), std::string::npos) << got.printed;
}

// Cores 0, 2, 5 run functionally (their CTAs take no time), the rest cycle-accurately; the
// results are the same.
TEST(GpuTimingKernels, MixOfCaAndFuncCoresGivesTheSameResults) {
  expect_same_as_functional(sgemm(), {"-simt_model", "ca", "-simt_model_override", "0:func,2:func,5:func"});
  expect_same_as_functional(reduction(), {"-simt_model", "ca", "-simt_model_override", "0:func,2:func,5:func"});
}

// Cores 0-3 approximately timed, 4-7 cycle-accurate.
TEST(GpuTimingKernels, MixOfCaAndAtCoresGivesTheSameResults) {
  expect_same_as_functional(sgemm(), {"-simt_model", "ca", "-simt_model_override", "0-3:at"});
  expect_same_as_functional(scan(), {"-simt_model", "ca", "-simt_model_override", "0-3:at"});
}

// DRAM channel 0 cycle-accurate, the others approximately timed.
TEST(GpuTimingKernels, MixOfCaAndAtDramChannelsGivesTheSameResults) {
  expect_same_as_functional(transpose(), {"-simt_model", "ca", "-dram_model", "at", "-dram_model_override", "0:ca"});
  expect_same_as_functional(histogram(), {"-simt_model", "ca", "-dram_model", "at", "-dram_model_override", "0:ca"});
}

// The full-size Volta part: 80 clusters and 64 L2 slices (144 interconnect nodes) build and run,
// with the file's random partition indexing and BookSim network falling back with warnings.
TEST(GpuTimingKernels, FullQv100BuildsAndRunsWithClearFallbackWarnings) {
  scenario s = sgemm();
  gt::options o = with(kCa, s);
  o.config = test_support::source_path("configs/SM7_QV100.config");
  gt::result got = gt::run(s, o);
  ASSERT_EQ(got.exit_code, 0) << got.error << "\n" << got.messages;
  EXPECT_NE(got.messages.find("-gpgpu_memory_partition_indexing 4 (random) is not modelled"), std::string::npos)
      << got.messages;
  EXPECT_NE(got.messages.find("-network_mode 1"), std::string::npos) << got.messages;
  gt::result want = gt::run(s, with({"-simt_model", "func"}, s));
  EXPECT_EQ(gt::compare(s, want, got), "");
  EXPECT_GT(got.stats[0], 0u);
}

}  // namespace
