// kernel_checks — see kernel_checks.h. Each check launches a tests/kernels program with that
// program's launch configuration and compares with the host's computation of the same thing.
#include "kernel_checks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <vector>

#include "test_files.h"

extern "C" {
#include "func_tensormap.h"
#include "func_tex.h"
#include "ptx.h"
#include "half_float.h"
}

namespace kernel_checks {

namespace {

// The surface the checks use: typed uploads and downloads, launches with 64-bit parameter slots
// (each parameter takes the size the PTX declares, from the start of its slot).
struct KernelGpu {
  device &dev;
  const simtvp_diag &diag;

  KernelGpu(device &d, const char *file) : dev(d), diag(d.diag()) {
    EXPECT_EQ(dev.load(test_support::kernel_ptx(file), file), SIMTVP_OK) << diag.message;
  }
  uint64_t alloc(uint64_t bytes) {
    uint64_t a = 0;
    EXPECT_EQ(dev.alloc(bytes, &a), SIMTVP_OK) << diag.message;
    return a;
  }
  template <class T> uint64_t upload(const std::vector<T> &v) {
    uint64_t a = alloc(v.size() * sizeof(T));
    EXPECT_EQ(dev.write(a, v.data(), v.size() * sizeof(T)), SIMTVP_OK) << diag.message;
    return a;
  }
  template <class T> std::vector<T> download(uint64_t a, size_t n) {
    std::vector<T> v(n);
    EXPECT_EQ(dev.read(a, v.data(), n * sizeof(T)), SIMTVP_OK) << diag.message;
    return v;
  }
  simtvp_status write(uint64_t a, const void *src, uint64_t bytes) { return dev.write(a, src, bytes); }
  bool symbol(const char *name, uint64_t *addr, uint64_t *bytes) { return dev.symbol(name, addr, bytes); }
  std::string printed() const { return dev.printed(); }
  simtvp_status launch(const char *kernel, uint32_t gx, uint32_t bx, std::vector<uint64_t> params, uint32_t smem = 0,
                       uint32_t gy = 1, uint32_t by = 1, uint32_t gz = 1, uint32_t bz = 1) {
    std::vector<const void *> args;
    for (auto &p : params) args.push_back(&p);
    uint32_t grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
    return dev.launch(kernel, grid, block, smem, args.data());
  }
};

uint64_t fbits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
uint64_t dbits(double d) {
  uint64_t u;
  std::memcpy(&u, &d, 8);
  return u;
}

// ---- the checks --------------------------------------------------------------------------------

void vector_add_matches_host(KernelGpu &g) {
  const int n = 5000;
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (int i = 0; i < n; i++) a[i] = (float)i * 0.5f, b[i] = (float)(n - i);
  uint64_t da = g.upload(a), db = g.upload(b), dc = g.upload(c);
  ASSERT_EQ(g.launch("_Z10vector_addPKfS0_Pfi", 10, 128, {da, db, dc, (uint64_t)n}), SIMTVP_OK) << g.diag.message;
  auto out = g.download<float>(dc, n);
  for (int i = 0; i < n; i++) ASSERT_EQ(out[i], a[i] + b[i]) << i;
}

void tree_and_shuffle_reductions_sum_exactly(KernelGpu &g) {
  const int n = 10000, threads = 256, blocks = (n + 2 * threads - 1) / (2 * threads);
  std::vector<int32_t> in(n);
  std::vector<float> fin(n);
  int64_t want = 0;
  for (int i = 0; i < n; i++) {
    in[i] = (i * 37) % 101 - 50;
    fin[i] = (float)in[i];
    want += in[i];
  }
  uint64_t din = g.upload(in), dout = g.alloc(blocks * 4);
  ASSERT_EQ(g.launch("_Z11reduce_treePKiPii", blocks, threads, {din, dout, (uint64_t)n}, threads * 4), SIMTVP_OK)
      << g.diag.message;
  auto part = g.download<int32_t>(dout, blocks);
  int64_t got = 0;
  for (int b = 0; b < blocks; b++) {
    int64_t s = 0;
    for (int i = b * 2 * threads; i < std::min(n, (b + 1) * 2 * threads); i++) s += in[i];
    EXPECT_EQ(part[b], s) << b;
    got += part[b];
  }
  EXPECT_EQ(got, want);
  uint64_t dfin = g.upload(fin), dres = g.upload(std::vector<float>{0.0f});
  ASSERT_EQ(g.launch("_Z14reduce_shufflePKfPfi", 8, 128, {dfin, dres, (uint64_t)n}), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.download<float>(dres, 1)[0], (float)want);
}

void blelloch_and_warp_scans_are_exclusive_and_inclusive_prefix_sums(KernelGpu &g) {
  const int threads = 128, width = 2 * threads, n = 1000, blocks = (n + width - 1) / width;
  std::vector<int32_t> in(n);
  for (int i = 0; i < n; i++) in[i] = (i * 7) % 13 - 3;
  uint64_t din = g.upload(in), dout = g.alloc(n * 4), dtot = g.alloc(blocks * 4);
  ASSERT_EQ(g.launch("_Z13scan_blellochPKiPiS1_i", blocks, threads, {din, dout, dtot, (uint64_t)n}, width * 4),
            SIMTVP_OK)
      << g.diag.message;
  auto tot = g.download<int32_t>(dtot, blocks);
  std::vector<int32_t> offs(blocks, 0);
  for (int b = 1; b < blocks; b++) offs[b] = offs[b - 1] + tot[b - 1];
  uint64_t doffs = g.upload(offs);
  ASSERT_EQ(g.launch("_Z17add_block_offsetsPiPKii", blocks, threads, {dout, doffs, (uint64_t)n}), SIMTVP_OK)
      << g.diag.message;
  auto ex = g.download<int32_t>(dout, n);
  int32_t run = 0;
  for (int i = 0; i < n; i++) {
    ASSERT_EQ(ex[i], run) << i;
    run += in[i];
  }
  uint64_t dinc = g.alloc(n * 4);
  ASSERT_EQ(g.launch("_Z19scan_warp_inclusivePKiPii", (n + 255) / 256, 256, {din, dinc, (uint64_t)n}), SIMTVP_OK)
      << g.diag.message;
  auto inc = g.download<int32_t>(dinc, n);
  for (int i = 0; i < n; i++) {
    int32_t s = 0;
    for (int j = i / 256 * 256; j <= i; j++) s += in[j];
    ASSERT_EQ(inc[i], s) << i;
  }
}

void histograms_with_shared_and_global_atomics_count_every_byte(KernelGpu &g) {
  const int n = 20000, bins = 64;
  std::vector<uint8_t> data(n);
  std::vector<uint32_t> want(bins, 0);
  for (int i = 0; i < n; i++) {
    data[i] = (uint8_t)((i * 131 + (i >> 3)) & 0xff);
    want[data[i] % bins]++;
  }
  uint64_t dd = g.upload(data), b1 = g.upload(std::vector<uint32_t>(bins, 0)), b2 = g.upload(std::vector<uint32_t>(bins, 0));
  ASSERT_EQ(g.launch("_Z16histogram_sharedPKhPji", 16, 128, {dd, b1, (uint64_t)n}), SIMTVP_OK) << g.diag.message;
  ASSERT_EQ(g.launch("_Z16histogram_globalPKhPji", 16, 128, {dd, b2, (uint64_t)n}), SIMTVP_OK) << g.diag.message;
  EXPECT_EQ(g.download<uint32_t>(b1, bins), want);
  EXPECT_EQ(g.download<uint32_t>(b2, bins), want);
}

void transposes_naive_and_tiled_with_and_without_padding(KernelGpu &g) {
  const int rows = 70, cols = 45;
  std::vector<float> in(rows * cols);
  for (int i = 0; i < rows * cols; i++) in[i] = (float)i;
  uint64_t din = g.upload(in);
  const char *kernels[] = {"_Z15transpose_naivePKfPfii", "_Z14transpose_tileILi0EEvPKfPfii",
                           "_Z14transpose_tileILi1EEvPKfPfii"};
  for (const char *k : kernels) {
    uint64_t dout = g.upload(std::vector<float>(rows * cols, -1.0f));
    ASSERT_EQ(g.launch(k, (cols + 31) / 32, 32, {din, dout, (uint64_t)rows, (uint64_t)cols}, 0, (rows + 31) / 32, 8),
              SIMTVP_OK)
        << k << ": " << g.diag.message;
    auto out = g.download<float>(dout, rows * cols);
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < cols; c++) ASSERT_EQ(out[c * rows + r], in[r * cols + c]) << k;
  }
}

void bitonic_sort_sorts_with_shared_and_global_merges(KernelGpu &g) {
  const unsigned n = 4096, threads = 128, width = 2 * threads, chunks = n / width;
  std::vector<uint32_t> keys(n);
  uint32_t x = 7;
  for (auto &k : keys) k = (x = x * 1664525u + 1013904223u) >> 8;
  uint64_t dk = g.upload(keys);
  ASSERT_EQ(g.launch("_Z19bitonic_sort_sharedPj", chunks, threads, {dk}, width * 4), SIMTVP_OK) << g.diag.message;
  for (unsigned size = 2 * width; size <= n; size *= 2) {
    for (unsigned stride = size / 2; stride >= width; stride /= 2)
      ASSERT_EQ(g.launch("_Z20bitonic_merge_globalPjjj", n / 2 / threads, threads, {dk, size, stride}), SIMTVP_OK)
          << g.diag.message;
    ASSERT_EQ(g.launch("_Z20bitonic_merge_sharedPjj", chunks, threads, {dk, size}, width * 4), SIMTVP_OK)
        << g.diag.message;
  }
  auto got = g.download<uint32_t>(dk, n);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(got, keys);
}

void warp_vote_shuffle_and_match_intrinsics(KernelGpu &g) {
  const int threads = 64, blocks = 2, n = threads * blocks, R = 13;
  std::vector<int32_t> in(n);
  for (int i = 0; i < n; i++) in[i] = (i * 7919) % 10007;
  uint64_t din = g.upload(in), dout = g.alloc(n * R * 4);
  ASSERT_EQ(g.launch("_Z9warp_votePKiPi", blocks, threads, {din, dout}), SIMTVP_OK) << g.diag.message;
  auto out = g.download<int32_t>(dout, n * R);
  for (int w = 0; w < n / 32; w++) {
    const int *v = &in[w * 32];
    bool all_odd = true, any_big = false;
    uint32_t ballot = 0, b2 = 0;
    for (int l = 0; l < 32; l++) {
      all_odd = all_odd && (v[l] & 1);
      any_big = any_big || v[l] > 5000;
      ballot |= (uint32_t)(v[l] & 1) << l;
      if (l < 16) b2 |= (uint32_t)((v[l] & 2) != 0) << l;
    }
    for (int l = 0; l < 32; l++) {
      const int *r = &out[(w * 32 + l) * R];
      ASSERT_EQ(r[0], all_odd ? 1 : 0);
      ASSERT_EQ(r[1], any_big ? 1 : 0);
      ASSERT_EQ((uint32_t)r[2], ballot);
      ASSERT_EQ(r[3], v[(l + 3) % 32]);
      ASSERT_EQ(r[4], v[l < 16 ? 0 : 16]);
      ASSERT_EQ(r[5], l >= 2 ? v[l - 2] : v[l]);
      ASSERT_EQ(r[6], l + 5 < 32 ? v[l + 5] : v[l]);
      ASSERT_EQ(r[7], v[l ^ 7]);
      uint32_t same = 0, same_k = 0;
      bool all_eq = true;
      for (int u = 0; u < 32; u++) {
        same |= (uint32_t)(v[u] % 4 == v[l] % 4) << u;
        all_eq = all_eq && v[u] / 1000 == v[0] / 1000;
      }
      (void)same_k;
      ASSERT_EQ((uint32_t)r[8], same);
      ASSERT_EQ((uint32_t)r[9], all_eq ? 0xffffffffu : 0u);
      ASSERT_EQ(r[10], all_eq ? 1 : 0);
      ASSERT_EQ(r[11], l < 16 ? (int32_t)b2 : -1);
      ASSERT_EQ((uint32_t)r[12], l % 3 == 0 ? 0x49249249u : 0u);
    }
  }
}

void device_printf_produces_the_hosts_text(KernelGpu &g) {
  const int blocks = 2, threads = 4, base = 1234;
  const double scale = 0.125;
  ASSERT_EQ(g.launch("_Z13device_printfid", blocks, threads, {(uint64_t)base, dbits(scale)}), SIMTVP_OK) << g.diag.message;
  // Each block's lines come in thread order (one warp's printf); the blocks may come in either
  // order (CUDA does not order blocks, and an approximately-timed core may run either first).
  std::string block_text[blocks];
  char line[256];
  for (int b = 0; b < blocks; ++b)
    for (unsigned t = 0; t < (unsigned)threads; ++t) {
      std::snprintf(line, sizeof line, "b%d t%u: %5d|%-4u|%lld|%#x|%c|%s|%.3f|%.2e|%g\n", b, t, base - (int)t, t * 7,
                    (long long)base << 33, 0xbeef + t, 'a' + (int)t % 26, t % 2 ? "odd" : "even", scale * t,
                    scale * 1000.0 * t, 0.5 + t);
      block_text[b] += line;
    }
  std::string got = g.printed();
  EXPECT_TRUE(got == block_text[0] + block_text[1] || got == block_text[1] + block_text[0]) << got;
}

void recursion_and_indirect_calls(KernelGpu &g) {
  const int n = 100, max_fib = 12;
  std::vector<int32_t> a(n), b(n), sel(n);
  for (int i = 0; i < n; i++) a[i] = (i * 613) % 2000 - 1000, b[i] = (i * 389) % 2000 - 1000, sel[i] = (i * 5) % 4;
  uint64_t da = g.upload(a), db = g.upload(b), ds = g.upload(sel);
  uint64_t df = g.alloc(n * 4), dd = g.alloc(n * 4), dp = g.alloc(n * 4);
  ASSERT_EQ(g.launch("_Z9recursionPKiS0_S0_iPiS1_S1_i", (n + 31) / 32, 32,
                     {da, db, ds, (uint64_t)max_fib, df, dd, dp, (uint64_t)n}),
            SIMTVP_OK)
      << g.diag.message;
  auto fibs = g.download<int32_t>(df, n), digits = g.download<int32_t>(dd, n), applied = g.download<int32_t>(dp, n);
  auto fib = [](int k) {
    int x = 0, y = 1;
    for (int i = 0; i < k; i++) std::swap(x, y), y += x;
    return x;
  };
  for (int i = 0; i < n; i++) {
    EXPECT_EQ(fibs[i], fib(i % (max_fib + 1))) << i;
    int s = 0;
    for (unsigned v = (unsigned)a[i] * 7919u; v; v /= 10) s += (int)(v % 10);
    EXPECT_EQ(digits[i], s) << i;
    int want = sel[i] == 0 ? a[i] + b[i] : sel[i] == 1 ? a[i] - b[i] : sel[i] == 2 ? a[i] * b[i] : std::max(a[i], b[i]);
    EXPECT_EQ(applied[i], want) << i;
  }
}

void constant_and_global_module_variables(KernelGpu &g) {
  const int n = 1000, ntaps = 7;
  float taps[31];
  for (int t = 0; t < ntaps; t++) taps[t] = (float)(t + 1) / 8.0f;
  uint64_t dtaps, dbias, dcalls, dtable, bytes;
  ASSERT_TRUE(g.symbol("taps", &dtaps, &bytes));
  EXPECT_EQ(bytes, 31u * 4);
  ASSERT_TRUE(g.symbol("bias", &dbias, nullptr));
  ASSERT_TRUE(g.symbol("calls", &dcalls, nullptr));
  ASSERT_TRUE(g.symbol("scale_table", &dtable, nullptr));
  EXPECT_EQ(g.download<float>(dtable, 4), (std::vector<float>{1.0f, 0.5f, 0.25f, 2.0f})) << "initialiser";
  g.write(dtaps, taps, ntaps * 4);
  int32_t bias = -3, calls = 100;
  g.write(dbias, &bias, 4);
  g.write(dcalls, &calls, 4);
  std::vector<float> in(n);
  for (int i = 0; i < n; i++) in[i] = (float)((i * 29) % 64 - 32);
  uint64_t din = g.upload(in), dout = g.alloc(n * 4);
  ASSERT_EQ(g.launch("_Z8convolvePKfPfii", (n + 127) / 128, 128, {din, dout, (uint64_t)n, (uint64_t)ntaps}), SIMTVP_OK)
      << g.diag.message;
  auto out = g.download<float>(dout, n);
  const float table[4] = {1.0f, 0.5f, 0.25f, 2.0f};
  for (int i = 0; i < n; i++) {
    float acc = 0.0f;
    for (int t = 0; t < ntaps; ++t) {
      int j = i + t - ntaps / 2;
      if (j >= 0 && j < n) acc += taps[t] * in[j];
    }
    ASSERT_EQ(out[i], acc * table[i & 3] + (float)bias + taps[i % ntaps]) << i;
  }
  EXPECT_EQ(g.download<int32_t>(dcalls, 1)[0], calls + n);
}

void dynamic_shared_memory_beside_static_shared_variables(KernelGpu &g) {
  const int n = 3000;
  std::vector<float> in(n);
  for (int i = 0; i < n; i++) in[i] = (float)((i * 53) % 40) / 10.0f - 1.0f;
  for (int threads : {128, 96}) {
    const int blocks = (n + threads - 1) / threads;
    uint64_t din = g.upload(in), dout = g.alloc(n * 4), dneg = g.alloc(blocks * 4);
    ASSERT_EQ(g.launch("_Z14reverse_chunksPKfPfPii", blocks, threads, {din, dout, dneg, (uint64_t)n}, threads * 8),
              SIMTVP_OK)
        << g.diag.message;
    auto out = g.download<float>(dout, n);
    auto neg = g.download<int32_t>(dneg, blocks);
    for (int b = 0; b < blocks; b++) {
      int base = b * threads, valid = std::min(threads, n - base), want = 0;
      for (int t = 0; t < valid; t++) {
        want += in[base + t] < 0.0f;
        ASSERT_EQ(out[base + t], in[base + valid - 1 - t]);
      }
      ASSERT_EQ(neg[b], want);
    }
  }
}

void atomics_of_every_kind_agree_with_a_sequential_host(KernelGpu &g) {
  const int n = 2048;
  struct counters {
    float f32_sum;
    int pad0;
    double f64_sum;
    unsigned long long u64_sum, u64_max_cas;
    int i32_min, i32_max;
    unsigned and_bits, or_bits, xor_bits, inc_wrap, dec_wrap;
    int exch_slot;
  } init{};
  init.i32_min = 1 << 30;
  init.i32_max = -(1 << 30);
  init.and_bits = 0xffffffffu;
  init.dec_wrap = 50u;
  init.exch_slot = -1;
  std::vector<counters> c0{init};
  uint64_t dc = g.upload(c0), dx = g.alloc(n * 4);
  ASSERT_EQ(g.launch("_Z7atomicsP8countersPii", (n + 127) / 128, 128, {dc, dx, (uint64_t)n}), SIMTVP_OK) << g.diag.message;
  counters got = g.download<counters>(dc, 1)[0], want = init;
  for (int i = 0; i < n; ++i) {
    want.f32_sum += (float)(i % 13) * 0.25f;
    want.f64_sum += (double)(i % 29) * 0.5;
    want.u64_sum += (unsigned long long)i << 32 | 1ull;
    unsigned long long m = ((unsigned long long)i * 7919u % (unsigned)n) << 20;
    want.u64_max_cas = std::max(want.u64_max_cas, m);
    int v = (int)((long long)i * 37 % n) - n / 2;
    want.i32_min = std::min(want.i32_min, v);
    want.i32_max = std::max(want.i32_max, v);
    want.and_bits &= ~(1u << (i % 32)) | (i % 64 >= 32 ? 0xffffffffu : 0u);
    want.or_bits |= 1u << (i % 31);
    want.xor_bits ^= (unsigned)i * 2654435761u;
    want.inc_wrap = want.inc_wrap >= 99u ? 0u : want.inc_wrap + 1;
    want.dec_wrap = (want.dec_wrap == 0u || want.dec_wrap > 99u) ? 99u : want.dec_wrap - 1;
  }
  EXPECT_EQ(got.f32_sum, want.f32_sum);
  EXPECT_EQ(got.f64_sum, want.f64_sum);
  EXPECT_EQ(got.u64_sum, want.u64_sum);
  EXPECT_EQ(got.u64_max_cas, want.u64_max_cas);
  EXPECT_EQ(got.i32_min, want.i32_min);
  EXPECT_EQ(got.i32_max, want.i32_max);
  EXPECT_EQ(got.and_bits, want.and_bits);
  EXPECT_EQ(got.or_bits, want.or_bits);
  EXPECT_EQ(got.xor_bits, want.xor_bits);
  EXPECT_EQ(got.inc_wrap, want.inc_wrap);
  EXPECT_EQ(got.dec_wrap, want.dec_wrap);
  auto ex = g.download<int32_t>(dx, n);
  std::set<int32_t> seen(ex.begin(), ex.end());
  EXPECT_EQ(seen.size(), (size_t)n);
  EXPECT_TRUE(seen.count(-1));
  EXPECT_FALSE(seen.count(got.exch_slot));
}

void daxpy_uses_a_fused_multiply_add(KernelGpu &g) {
  const int n = 1000;
  const double a = 1.0 / 3.0;
  std::vector<double> x(n), y(n);
  for (int i = 0; i < n; i++) x[i] = -3.0 + 6.0 * i / n + 1e-9 * i, y[i] = 50.0 - 0.1 * i;
  uint64_t dx = g.upload(x), dy = g.upload(y), dz = g.alloc(n * 8);
  ASSERT_EQ(g.launch("_Z5daxpyidPKdPd", (n + 127) / 128, 128, {(uint64_t)n, dbits(a), dx, dy}), SIMTVP_OK) << g.diag.message;
  auto got = g.download<double>(dy, n);
  for (int i = 0; i < n; i++) ASSERT_EQ(got[i], std::fma(a, x[i], y[i])) << i;
  ASSERT_EQ(g.launch("_Z14transcendentaliPKdS0_Pd", (n + 127) / 128, 128, {(uint64_t)n, dx, dy, dz}), SIMTVP_OK)
      << g.diag.message;
  auto z = g.download<double>(dz, n);
  for (int i = 0; i < n; i++) {
    double want = std::sin(x[i]) * std::exp(-x[i] * x[i]) + std::sqrt(std::fabs(got[i]));
    ASSERT_NEAR(z[i], want, 1e-13 * (1 + std::fabs(want))) << i << " (CUDA's libdevice is within 2 ulp)";
  }
}

void naive_and_tiled_sgemm_are_exact(KernelGpu &g) {
  const int m = 64, n = 48, k = 80;
  const float alpha = 2.0f, beta = 0.5f;
  std::vector<float> A(m * k), B(k * n), C0(m * n);
  for (int i = 0; i < m * k; i++) A[i] = (float)((i * 5) % 9 - 4);
  for (int i = 0; i < k * n; i++) B[i] = (float)((i * 7) % 9 - 4);
  for (int i = 0; i < m * n; i++) C0[i] = (float)((i * 3) % 9 - 4);
  uint64_t dA = g.upload(A), dB = g.upload(B);
  for (const char *kern : {"_Z11sgemm_naiveiiifPKfS0_fPf", "_Z11sgemm_tilediiifPKfS0_fPf"}) {
    uint64_t dC = g.upload(C0);
    ASSERT_EQ(g.launch(kern, (n + 15) / 16, 16, {(uint64_t)m, (uint64_t)n, (uint64_t)k, fbits(alpha), dA, dB, fbits(beta), dC},
                       0, (m + 15) / 16, 16),
              SIMTVP_OK)
        << g.diag.message;
    auto C = g.download<float>(dC, m * n);
    for (int r = 0; r < m; r++)
      for (int c = 0; c < n; c++) {
        float acc = 0.0f;
        for (int p = 0; p < k; p++) acc += A[r * k + p] * B[p * n + c];
        ASSERT_EQ(C[r * n + c], alpha * acc + beta * C0[r * n + c]) << kern;
      }
  }
}

void wmma_tensor_core_gemm_is_exact(KernelGpu &g) {
  const int M = 32, N = 48, K = 64;
  std::vector<uint16_t> A(M * K), B(K * N);
  std::vector<float> Af(M * K), Bf(K * N), C(M * N);
  auto h = [](float f) {  // binary16 bits of f (the values here are small integers: exact)
    uint32_t b;
    std::memcpy(&b, &f, 4);
    uint32_t sign = (b >> 16) & 0x8000u, exp = (b >> 23) & 0xffu, man = b & 0x7fffffu;
    if (exp == 0) return (uint16_t)sign;  // zero (no denormals among the inputs)
    return (uint16_t)(sign | ((exp - 127 + 15) << 10) | (man >> 13));
  };
  for (int i = 0; i < M * K; i++) Af[i] = (float)(i * 5 % 7) - 3, A[i] = h(Af[i]);
  for (int i = 0; i < K * N; i++) Bf[i] = (float)(i * 3 % 7) - 3, B[i] = h(Bf[i]);
  for (int i = 0; i < M * N; i++) C[i] = (float)(i % 100 - 50) * 0.25f;
  uint64_t dA = g.upload(A), dB = g.upload(B), dC = g.upload(C), dD = g.alloc(M * N * 4);
  const int warps = (M / 16) * (N / 16), threads = 64;
  ASSERT_EQ(g.launch("_Z9wmma_gemmPK6__halfS1_PKfPfiii", (warps * 32 + threads - 1) / threads, threads,
                     {dA, dB, dC, dD, (uint64_t)M, (uint64_t)N, (uint64_t)K}),
            SIMTVP_OK)
      << g.diag.message;
  auto D = g.download<float>(dD, M * N);
  for (int r = 0; r < M; r++)
    for (int c = 0; c < N; c++) {
      float want = C[r * N + c];
      for (int p = 0; p < K; p++) want += Af[r * K + p] * Bf[c * K + p];  // B is column-major
      ASSERT_EQ(D[r * N + c], want) << r << "," << c;
    }
}

// async_copy.cu (sm_80): the two-stage cp.async pipeline, the block-wide memcpy_async on an
// mbarrier with arrive_and_wait phases, and redux.sync over full and partial masks; the host
// model is the program's own.
void async_copies_mbarriers_and_redux_are_exact(KernelGpu &g) {
  const int n = 1500, blocks = 3, tile = 256;
  std::vector<float> in((n + 3) / 4 * 4, 0.0f);
  for (int i = 0; i < n; i++) in[i] = (float)(i * 7 % 201) - 100.0f;
  uint64_t din = g.upload(in), dout = g.alloc(n * 4);
  ASSERT_EQ(g.launch("_Z15pipelined_scalePKfPfi", blocks, 64, {din, dout, (uint64_t)n}), SIMTVP_OK) << g.diag.message;
  auto out = g.download<float>(dout, n);
  for (int i = 0; i < n; i++) ASSERT_EQ(out[i], 2.0f * in[i] + in[i / tile * tile]) << i;

  const int rounds = 3, m = blocks * 256;
  std::vector<int32_t> hi(m), want(m);
  for (int i = 0; i < m; i++) hi[i] = i * 37 % 1000;
  for (int b = 0; b < blocks; b++) {
    std::vector<int32_t> cur(256), nxt(256);
    for (int t = 0; t < 256; t++) cur[t] = hi[(size_t)b * 256 + t];
    for (int r = 0; r < rounds; r++) {
      for (int t = 0; t < 256; t++) nxt[t] = cur[t] + cur[(t + 1) % 256];
      cur = nxt;
    }
    for (int t = 0; t < 256; t++) want[(size_t)b * 256 + t] = cur[t];
  }
  uint64_t dii = g.upload(hi), dio = g.alloc(m * 4);
  ASSERT_EQ(g.launch("_Z12barrier_copyPKiPii", blocks, 256, {dii, dio, (uint64_t)rounds}), SIMTVP_OK)
      << g.diag.message;
  auto got = g.download<int32_t>(dio, m);
  for (int i = 0; i < m; i++) ASSERT_EQ(got[i], want[i]) << i;

  std::vector<uint32_t> v(64);
  for (int i = 0; i < 64; i++) v[i] = (uint32_t)(i * 2654435761u % 4096) | (i == 5 ? 0x80000000u : 0u);
  uint64_t dv = g.upload(v), dr = g.alloc(24 * 4);
  ASSERT_EQ(g.launch("_Z11warp_reducePKjPj", 1, 64, {dv, dr}), SIMTVP_OK) << g.diag.message;
  auto r = g.download<uint32_t>(dr, 24);
  for (int w = 0; w < 2; w++) {
    uint32_t add = 0, a = ~0u, o = 0, x = 0, umin = ~0u, umax = 0, eadd = 0, ea = ~0u, eo = 0, ex = 0;
    int32_t smin = INT32_MAX, smax = INT32_MIN;
    for (int l = 0; l < 32; l++) {
      uint32_t e = v[w * 32 + l];
      add += e, a &= e, o |= e, x ^= e;
      smin = std::min(smin, (int32_t)e), smax = std::max(smax, (int32_t)e);
      if (l % 2 == 0) eadd += e, ea &= e, eo |= e, ex ^= e, umin = std::min(umin, e), umax = std::max(umax, e);
    }
    const uint32_t expect[12] = {add, (uint32_t)smin, (uint32_t)smax, a, o, x, eadd, umin, umax, ea, eo, ex};
    for (int k = 0; k < 12; k++) EXPECT_EQ(r[w * 12 + k], expect[k]) << "warp " << w << " result " << k;
  }
}

// mma_tensor.cu (sm_80): the ldmatrix + mma.sync m16n8k16 GEMM (f16 in, f32 accumulate), one mma
// per further type (bf16, tf32, s8 .satfinite, f64) and movmatrix; the host model is the
// program's own (small integers: exact).
void mma_sync_and_ldmatrix_are_exact(KernelGpu &g) {
  const int m = 32, n = 16, k = 48;
  auto h = [](float f) {
    return half_bits(f);
  };
  std::vector<uint16_t> A(m * k), B(n * k);
  std::vector<float> Af(m * k), Bf(n * k), D(m * n);
  for (int i = 0; i < m * k; i++) Af[i] = (float)(i * 5 % 9 - 4), A[i] = h(Af[i]);
  for (int i = 0; i < n * k; i++) Bf[i] = (float)(i * 7 % 9 - 4), B[i] = h(Bf[i]);
  for (int i = 0; i < m * n; i++) D[i] = (float)(i % 21 - 10);
  uint64_t dA = g.upload(A), dB = g.upload(B), dD = g.upload(D);
  const int tiles = (m / 16) * (n / 8);
  ASSERT_EQ(g.launch("_Z9hgemm_mmaPK6__halfS1_Pfiii", (tiles + 3) / 4, 128,
                     {dA, dB, dD, (uint64_t)m, (uint64_t)n, (uint64_t)k}),
            SIMTVP_OK)
      << g.diag.message;
  auto got = g.download<float>(dD, m * n);
  for (int r = 0; r < m; r++)
    for (int c = 0; c < n; c++) {
      float want = D[r * n + c];
      for (int p = 0; p < k; p++) want += Af[r * k + p] * Bf[c * k + p];
      ASSERT_EQ(got[r * n + c], want) << r << "," << c;
    }

  struct Mats {
    int32_t a[16 * 32], b[32 * 8], c[16 * 8];
  } mm;
  for (int i = 0; i < 16 * 32; i++) mm.a[i] = i * 37 % 201 - 100;
  for (int i = 0; i < 32 * 8; i++) mm.b[i] = i * 53 % 201 - 100;
  for (int i = 0; i < 16 * 8; i++) mm.c[i] = i * 11 % 101 - 50;
  const int32_t c_base = INT32_MAX - 150000;
  uint64_t dm = g.upload(std::vector<Mats>{mm}), dout = g.alloc(32 * 20 * 4);
  ASSERT_EQ(g.launch("_Z9mma_typesPK4MatsPji", 1, 32, {dm, dout, (uint64_t)(uint32_t)c_base}), SIMTVP_OK)
      << g.diag.message;
  auto o = g.download<uint32_t>(dout, 32 * 20);
  auto dot = [&](int r, int c, int K) {
    int64_t s = 0;
    for (int p = 0; p < K; p++) s += (int64_t)mm.a[r * 32 + p] * mm.b[p * 8 + c];
    return s;
  };
  for (int l = 0; l < 32; l++) {
    const uint32_t *w = &o[l * 20];
    const int gr = l / 4, t = l % 4;
    for (int i = 0; i < 4; i++) {
      const int r = gr + 8 * (i / 2), c = 2 * t + i % 2;
      float bf, tf;
      std::memcpy(&bf, &w[i], 4);
      std::memcpy(&tf, &w[4 + i], 4);
      EXPECT_EQ(bf, (float)(mm.c[r * 8 + c] + dot(r, c, 16))) << "bf16 lane " << l << " d" << i;
      EXPECT_EQ(tf, (float)(mm.c[r * 8 + c] + dot(r, c, 8))) << "tf32 lane " << l << " d" << i;
      int64_t s8 = (int64_t)c_base + mm.c[r * 8 + c] + dot(r, c, 32);
      EXPECT_EQ((int32_t)w[8 + i], (int32_t)std::min<int64_t>(std::max<int64_t>(s8, INT32_MIN), INT32_MAX))
          << "s8 lane " << l << " d" << i;
    }
    for (int i = 0; i < 2; i++) {
      uint64_t bits = (uint64_t)w[12 + 2 * i] | (uint64_t)w[13 + 2 * i] << 32;
      double d;
      std::memcpy(&d, &bits, 8);
      EXPECT_EQ(d, (double)(mm.c[gr * 8 + 2 * t + i] + dot(gr, 2 * t + i, 4))) << "f64 lane " << l;
    }
    EXPECT_EQ(w[16], (uint32_t)(10 * (2 * t) + gr) | (uint32_t)(10 * (2 * t + 1) + gr) << 16) << "movmatrix lane " << l;
  }
}

// Texture and surface objects as the runtime creates them: a func_tex_desc in device memory, the
// handle being its address (func_tex.h); the host model is texture.cu's.
uint64_t make_desc(KernelGpu &g, uint64_t data, int w, int h, uint8_t addr_mode, uint8_t filter, uint8_t normalized) {
  func_tex_desc d{};
  d.magic = FUNC_TEX_MAGIC;
  d.resource = FUNC_TEX_RES_ARRAY;
  d.dims = 2;
  d.channels = 1;
  d.channel_type = PTX_TYPE_F32;
  d.normalized_coords = normalized;
  d.filter = filter;
  d.address[0] = d.address[1] = d.address[2] = addr_mode;
  d.width = (uint32_t)w;
  d.height = (uint32_t)h;
  d.depth = d.layers = 1;
  d.data = data;
  d.pitch = (uint64_t)w * 4;
  std::vector<func_tex_desc> v{d};
  return g.upload(v);
}

void texture_objects_filter_and_surfaces_store(KernelGpu &g) {
  const int width = 16, height = 8, per_axis = 16, n = per_axis * per_axis;
  std::vector<float> texels(width * height);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) texels[y * width + x] = std::sin(0.3f * x) + 0.25f * y;
  std::vector<float> coords(2 * n);
  for (int j = 0; j < per_axis; ++j)
    for (int i = 0; i < per_axis; ++i) {
      float tx = -2.0f + (width + 4.0f) * i / (per_axis - 1), ty = -2.0f + (height + 4.0f) * j / (per_axis - 1);
      tx = std::floor(tx) + 0.5f + (float)((i * 3) % 8) / 8.0f;
      ty = std::floor(ty) + 0.5f + (float)((j * 5) % 8) / 8.0f;
      coords[2 * (j * per_axis + i)] = tx / width;
      coords[2 * (j * per_axis + i) + 1] = ty / height;
    }
  uint64_t image = g.upload(texels), surf_image = g.alloc(width * height * 4);
  uint64_t clamp_tex = make_desc(g, image, width, height, FUNC_TEX_ADDR_CLAMP, FUNC_TEX_FILTER_LINEAR, 1);
  uint64_t wrap_tex = make_desc(g, image, width, height, FUNC_TEX_ADDR_WRAP, FUNC_TEX_FILTER_LINEAR, 1);
  uint64_t dcoords = g.upload(coords), dcl = g.alloc(n * 4), dwr = g.alloc(n * 4);
  ASSERT_EQ(g.launch("_Z14sample_textureyyPK6float2PfS2_i", (n + 63) / 64, 64,
                     {clamp_tex, wrap_tex, dcoords, dcl, dwr, (uint64_t)n}),
            SIMTVP_OK)
      << g.diag.message;
  auto clamped = g.download<float>(dcl, n), wrapped = g.download<float>(dwr, n);
  auto at = [&](int x, int y, bool wrap) {
    if (wrap) {
      x = ((x % width) + width) % width;
      y = ((y % height) + height) % height;
    } else {
      x = x < 0 ? 0 : x >= width ? width - 1 : x;
      y = y < 0 ? 0 : y >= height ? height - 1 : y;
    }
    return texels[y * width + x];
  };
  auto model = [&](float u, float v, bool wrap) {
    if (wrap) u -= std::floor(u), v -= std::floor(v);
    double x = (double)u * width - 0.5, y = (double)v * height - 0.5;
    int i = (int)std::floor(x), j = (int)std::floor(y);
    double a = x - i, b = y - j;
    return (1 - a) * (1 - b) * at(i, j, wrap) + a * (1 - b) * at(i + 1, j, wrap) + (1 - a) * b * at(i, j + 1, wrap) +
           a * b * at(i + 1, j + 1, wrap);
  };
  for (int i = 0; i < n; i++) {
    EXPECT_NEAR(clamped[i], model(coords[2 * i], coords[2 * i + 1], false), 1e-4) << i;
    EXPECT_NEAR(wrapped[i], model(coords[2 * i], coords[2 * i + 1], true), 1e-4) << i;
  }
  uint64_t surface = make_desc(g, surf_image, width, height, FUNC_TEX_ADDR_CLAMP, FUNC_TEX_FILTER_POINT, 0);
  ASSERT_EQ(g.launch("_Z13write_surfaceyii", (width + 7) / 8, 8, {surface, (uint64_t)width, (uint64_t)height}, 0,
                     (height + 7) / 8, 8),
            SIMTVP_OK)
      << g.diag.message;
  uint64_t dfetch = g.alloc(width * height * 4);
  ASSERT_EQ(g.launch("_Z12fetch_texelsyPfii", (width + 7) / 8, 8, {surface, dfetch, (uint64_t)width, (uint64_t)height}, 0,
                     (height + 7) / 8, 8),
            SIMTVP_OK)
      << g.diag.message;
  auto back = g.download<float>(surf_image, width * height), fetched = g.download<float>(dfetch, width * height);
  for (int y = 0; y < height; y++)
    for (int x = 0; x < width; x++) {
      EXPECT_EQ(back[y * width + x], 100.0f * x + y);
      EXPECT_EQ(fetched[y * width + x], 100.0f * x + y);
    }
}

void texture_handle_that_is_not_a_descriptor_faults(KernelGpu &g) {
  uint64_t junk = g.alloc(256), out = g.alloc(64);
  EXPECT_EQ(g.launch("_Z12fetch_texelsyPfii", 1, 4, {junk, out, 4, 4}, 0, 1, 4), SIMTVP_ERR_FAULT);
  EXPECT_NE(std::strstr(g.diag.message, "is not a texture or surface object"), nullptr) << g.diag.message;
  EXPECT_EQ(g.diag.address, junk);
}

// ---- registration ------------------------------------------------------------------------------

// hopper.cu (sm_90): cluster_exchange (__cluster_dims__(2,1,1): distributed shared memory and
// barrier.cluster), bulk_scale (cp.async.bulk both ways on an mbarrier, elect.sync), tma_tile
// (cp.async.bulk.tensor through tensor maps encoded here as cuTensorMapEncodeTiled would, with
// out-of-bounds zero fill) and stmatrix_transpose; the host model is the program's own.
// (cluster_histogram needs a launch-time cluster attribute: tests/kernels runs it.)
void clusters_bulk_and_tensor_copies_are_exact(KernelGpu &g) {
  const int blocks = 8;
  uint64_t dout = g.alloc(blocks * 64 * 4);
  ASSERT_EQ(g.launch("_Z16cluster_exchangePi", blocks, 64, {dout}), SIMTVP_OK) << g.diag.message;
  auto out = g.download<int32_t>(dout, blocks * 64);
  for (int b = 0; b < blocks; b++)
    for (int t = 0; t < 64; t++) {
      const int rank = b % 2, want = (rank ^ 1) * 100 + t + 2000 + 10000 * rank + 100000 * (b / 2);
      ASSERT_EQ(out[b * 64 + t], want) << "cluster_exchange block " << b << " thread " << t;
    }

  const int bb = 4;
  std::vector<int32_t> in(bb * 256);
  for (int i = 0; i < bb * 256; i++) in[i] = i * 37 % 1000 - 500;
  uint64_t din = g.upload(in), dbo = g.alloc(bb * 256 * 4), del = g.upload(std::vector<int32_t>(bb, -1));
  ASSERT_EQ(g.launch("_Z10bulk_scalePKiPiS1_", bb, 256, {din, dbo, del}), SIMTVP_OK) << g.diag.message;
  auto bo = g.download<int32_t>(dbo, bb * 256);
  for (int i = 0; i < bb * 256; i++) ASSERT_EQ(bo[i], 2 * in[i]) << "bulk_scale " << i;
  auto el = g.download<int32_t>(del, bb);
  for (int b = 0; b < bb; b++) EXPECT_EQ(el[b], 0) << "elect.sync picks the lowest lane, block " << b;

  // a 40 x 24 int tensor, rows 48 ints apart; 3 x 2 tiles of 16 x 16 read at (+4, +3)
  const int w = 40, h = 24, pitch = 48, gx = 3, gy = 2, ox = 4, oy = 3;
  std::vector<int32_t> t(pitch * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < pitch; x++) t[y * pitch + x] = x < w ? 1000 * y + x : -1;
  uint64_t dt = g.upload(t), dback = g.upload(std::vector<int32_t>(pitch * h, 0)), dtiles = g.alloc(gx * gy * 256 * 4);
  alignas(64) func_tensor_map src, dst;  // CUtensorMap is 64-byte aligned (the encoder checks)
  uint64_t dims[2] = {(uint64_t)w, (uint64_t)h}, strides[1] = {pitch * 4};
  uint32_t box[2] = {16, 16}, estr[2] = {1, 1};
  simtvp_diag diag;
  ASSERT_EQ(func_tensor_map_encode_tiled(&src, FUNC_TMAP_S32, 2, dt, dims, strides, box, estr, 0, 0, 0, 0, &diag),
            SIMTVP_OK) << diag.message;
  ASSERT_EQ(func_tensor_map_encode_tiled(&dst, FUNC_TMAP_S32, 2, dback, dims, strides, box, estr, 0, 0, 0, 0, &diag),
            SIMTVP_OK) << diag.message;
  int32_t px = ox, py = oy;
  const void *args[] = {&src, &dst, &dtiles, &px, &py};
  uint32_t grid[3] = {gx, gy, 1}, block[3] = {256, 1, 1};
  ASSERT_EQ(g.dev.launch("_Z8tma_tile14CUtensorMap_stS_Piii", grid, block, 0, args), SIMTVP_OK) << g.diag.message;
  auto tiles = g.download<int32_t>(dtiles, gx * gy * 256);
  auto back = g.download<int32_t>(dback, pitch * h);
  for (int by = 0; by < gy; by++)
    for (int bx = 0; bx < gx; bx++)
      for (int e = 0; e < 256; e++) {
        const int x = 16 * bx + ox + e % 16, y = 16 * by + oy + e / 16;
        const int want = x < w && y < h ? 1000 * y + x : 0;
        ASSERT_EQ(tiles[(by * gx + bx) * 256 + e], want) << "tma_tile (" << bx << "," << by << ") element " << e;
        const int sx = 16 * bx + e % 16, sy = 16 * by + e / 16;  // where the tile + 1 went back
        if (sx < w && sy < h) {
          ASSERT_EQ(back[sy * pitch + sx], want + 1) << "stored back at " << sx << "," << sy;
        }
      }
  for (int y = 0; y < h; y++)
    for (int x = w; x < pitch; x++) ASSERT_EQ(back[y * pitch + x], 0) << "the row padding stays untouched";

  uint64_t dm = g.alloc(64 * 2);
  ASSERT_EQ(g.launch("_Z18stmatrix_transposePt", 1, 32, {dm}), SIMTVP_OK) << g.diag.message;
  auto m = g.download<uint16_t>(dm, 64);
  for (int i = 0; i < 64; i++) ASSERT_EQ(m[i], 10 * (i % 8) + i / 8) << "stmatrix.trans " << i;
}

// warpgroup_mma.cu (sm_90a): wgmma m64n64k16 f16 from 128-byte-swizzled shared memory (CUTLASS's
// K-major SW128 tiles) and m64n32k16 bf16 with A in registers and B interleaved; the host model is
// the program's own (small integers: exact).
void warpgroup_mma_is_exact(KernelGpu &g) {
  const int K = 128;
  std::vector<int> ai(64 * K), bi(64 * K);
  std::vector<uint16_t> ha(64 * K), hb(64 * K), ba(64 * K), bb(64 * K);
  for (int i = 0; i < 64 * K; i++) {
    ai[i] = (i * 7 + 3) % 9 - 4, bi[i] = (i * 5 + 1) % 7 - 3;
    ha[i] = half_bits(ai[i]);
    hb[i] = half_bits(bi[i]);
    ba[i] = (uint16_t)(fbits((float)ai[i]) >> 16), bb[i] = (uint16_t)(fbits((float)bi[i]) >> 16);
  }
  uint64_t da = g.upload(ha), db = g.upload(hb), dba = g.upload(ba), dbb = g.upload(bb), dc = g.alloc(64 * 64 * 4);
  ASSERT_EQ(g.launch("_Z10gemm_sw128PK6__halfS1_Pfi", 1, 128, {da, db, dc, (uint64_t)K}), SIMTVP_OK) << g.diag.message;
  auto c = g.download<float>(dc, 64 * 64);
  for (int r = 0; r < 64; r++)
    for (int n = 0; n < 64; n++) {
      int want = 0;
      for (int k = 0; k < K; k++) want += ai[r * K + k] * bi[n * K + k];
      ASSERT_EQ(c[r * 64 + n], (float)want) << "gemm_sw128 C[" << r << "][" << n << "]";
    }
  ASSERT_EQ(g.launch("_Z15gemm_interleavePK13__nv_bfloat16S1_Pfi", 1, 128, {dba, dbb, dc, (uint64_t)K}), SIMTVP_OK)
      << g.diag.message;
  c = g.download<float>(dc, 64 * 32);
  for (int r = 0; r < 64; r++)
    for (int n = 0; n < 32; n++) {
      int want = 1;
      for (int k = 0; k < K; k++) want += ai[r * K + k] * bi[n * K + k];
      ASSERT_EQ(c[r * 32 + n], (float)want) << "gemm_interleave C[" << r << "][" << n << "]";
    }  // reg_rebalance: setmaxnreg.dec 40 / .inc 232 by warpgroup; out[t] = 3 in[t] + in[255 - t] per CTA
  std::vector<int> rin(ai.begin(), ai.begin() + 512);
  uint64_t dri = g.upload(rin), dro = g.alloc(512 * 4);
  ASSERT_EQ(g.launch("_Z13reg_rebalancePKiPi", 2, 384, {dri, dro}), SIMTVP_OK) << g.diag.message;
  auto ro = g.download<int>(dro, 512);
  for (int i = 0; i < 512; i++)
    ASSERT_EQ(ro[i], 3 * rin[i] + rin[i / 256 * 256 + 255 - i % 256]) << "reg_rebalance out[" << i << "]";
}

// early_exit.cu: whole and partial warps return before __syncthreads in a tree reduction (the
// barrier counts only warps that have not exited), warps that exit after the others wait at the
// barrier (the last exit completes it), and warpSize (PTX WARP_SZ) with a shared pointer that
// starts before the array, read at [p + 64] while p holds a negative 32-bit address.
void early_exits_before_barriers_warp_size_and_shared_wrap(KernelGpu &g) {
  const int threads = 256, n = 1000, blocks = 4, total = blocks * threads;  // last block: 232 threads
  std::vector<int32_t> in(total);
  for (int i = 0; i < total; i++) in[i] = (i * 37) % 101;
  uint64_t din = g.upload(in), dout = g.upload(std::vector<int32_t>(total, -1));
  ASSERT_EQ(g.launch("_Z14exit_then_syncPKiPii", blocks, threads, {din, dout, (uint64_t)n}), SIMTVP_OK)
      << g.diag.message;
  auto sums = g.download<int32_t>(dout, blocks);
  for (int b = 0; b < blocks; b++) {
    int32_t want = 0;
    for (int i = b * threads; i < std::min(n, (b + 1) * threads); i++) want += in[i];
    EXPECT_EQ(sums[b], want) << "block " << b;
  }
  // 40 threads stay (a full warp and 8 lanes of the next); the others sum 64 inputs, then exit.
  const int live = 40, work = 64;
  ASSERT_EQ(g.launch("_Z14late_exit_syncPKiPiii", blocks, threads, {din, dout, (uint64_t)live, (uint64_t)work}),
            SIMTVP_OK)
      << g.diag.message;
  auto late = g.download<int32_t>(dout, total);
  for (int i = 0; i < total; i++) {
    const int t = i % threads;
    int32_t want = 0;
    if (t >= live)
      for (int k = 0; k < work; k++) want += in[(i + k) % total];
    else
      want = in[i - t + (t ^ 1)];
    ASSERT_EQ(late[i], want) << "thread " << i;
  }
  // out[i] = s[t] + 2 * s[t + 1] (s[256] = 0) + 32 * (t / 32), through p = s + t - 16 (2 taps).
  ASSERT_EQ(g.launch("_Z14halo_warp_sizePKiPiii", blocks, threads, {din, dout, 16, 2}), SIMTVP_OK) << g.diag.message;
  auto halo = g.download<int32_t>(dout, total);
  for (int i = 0; i < total; i++) {
    const int t = i % threads;
    ASSERT_EQ(halo[i], in[i] + 2 * (t + 1 < threads ? in[i + 1] : 0) + 32 * (t / 32)) << "thread " << i;
  }
}

struct check {
  const char *name;  // the test's name
  const char *ptx;   // file under tests/kernels/ptx
  uint32_t stack_bytes;
  void (*run)(KernelGpu &g);
};

const check kChecks[] = {
    {"VectorAddMatchesHost", "vector_add.ptx", 0, vector_add_matches_host},
    {"TreeAndShuffleReductionsSumExactly", "reduction.ptx", 0, tree_and_shuffle_reductions_sum_exactly},
    {"BlellochAndWarpScansAreExclusiveAndInclusivePrefixSums", "scan.ptx", 0,
     blelloch_and_warp_scans_are_exclusive_and_inclusive_prefix_sums},
    {"HistogramsWithSharedAndGlobalAtomicsCountEveryByte", "histogram.ptx", 0,
     histograms_with_shared_and_global_atomics_count_every_byte},
    {"TransposesNaiveAndTiledWithAndWithoutPadding", "transpose.ptx", 0,
     transposes_naive_and_tiled_with_and_without_padding},
    {"BitonicSortSortsWithSharedAndGlobalMerges", "bitonic_sort.ptx", 0, bitonic_sort_sorts_with_shared_and_global_merges},
    {"WarpVoteShuffleAndMatchIntrinsics", "warp_vote.ptx", 0, warp_vote_shuffle_and_match_intrinsics},
    {"DevicePrintfProducesTheHostsText", "printf.ptx", 0, device_printf_produces_the_hosts_text},
    {"RecursionAndIndirectCalls", "recursion.ptx", 4096, recursion_and_indirect_calls},
    {"ConstantAndGlobalModuleVariables", "const_globals.ptx", 0, constant_and_global_module_variables},
    {"DynamicSharedMemoryBesideStaticSharedVariables", "dynamic_smem.ptx", 0,
     dynamic_shared_memory_beside_static_shared_variables},
    {"AtomicsOfEveryKindAgreeWithASequentialHost", "atomics.ptx", 0, atomics_of_every_kind_agree_with_a_sequential_host},
    {"DaxpyUsesAFusedMultiplyAdd", "daxpy.ptx", 0, daxpy_uses_a_fused_multiply_add},
    {"NaiveAndTiledSgemmAreExact", "sgemm.ptx", 0, naive_and_tiled_sgemm_are_exact},
    {"WmmaTensorCoreGemmIsExact", "wmma.ptx", 0, wmma_tensor_core_gemm_is_exact},
    {"TextureObjectsFilterAndSurfacesStore", "texture.ptx", 0, texture_objects_filter_and_surfaces_store},
    {"TextureHandleThatIsNotADescriptorFaults", "texture.ptx", 0, texture_handle_that_is_not_a_descriptor_faults},
    {"AsyncCopiesMbarriersAndReduxAreExact", "async_copy.ptx", 0, async_copies_mbarriers_and_redux_are_exact},
    {"MmaSyncAndLdmatrixAreExact", "mma_tensor.ptx", 0, mma_sync_and_ldmatrix_are_exact},
    {"ClustersBulkAndTensorCopiesAreExact", "hopper.ptx", 0, clusters_bulk_and_tensor_copies_are_exact},
    {"WarpgroupMmaIsExact", "warpgroup_mma.ptx", 0, warpgroup_mma_is_exact},
    {"EarlyExitsBeforeBarriersWarpSizeAndSharedWrap", "early_exit.ptx", 0,
     early_exits_before_barriers_warp_size_and_shared_wrap},
};

class check_test : public ::testing::Test {
 public:
  check_test(const check &c, const factory &make) : c_(c), make_(make) {}
  void TestBody() override {
    std::unique_ptr<device> dev = make_(c_.stack_bytes);
    ASSERT_NE(dev, nullptr);
    KernelGpu g(*dev, c_.ptx);
    c_.run(g);
  }

 private:
  const check &c_;
  factory make_;
};

}  // namespace

void register_all(const char *suite, factory make, const char *file, int line) {
  for (const check &c : kChecks)
    ::testing::RegisterTest(suite, c.name, nullptr, nullptr, file, line,
                            [&c, make]() -> ::testing::Test * { return new check_test(c, make); });
}

}  // namespace kernel_checks
