/* at_workloads — one workload per PTX program of tests/kernels (at_workloads.h). The kernels,
 * block shapes and sizes are those of tests/simt/simt_kernels_test.cpp (scale 1); inputs are
 * deterministic. */
#define _POSIX_C_SOURCE 200809L
#include "at_workloads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "func_tex.h"

static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fail(at_run *r, simtvp_status st, const char *what, const char *msg) {
  if (r->status != SIMTVP_OK) return;
  r->status = st;
  snprintf(r->message, sizeof r->message, "%.100s: %.900s", what, msg);
}

static uint64_t up(simt_harness *h, at_run *r, const void *data, uint64_t bytes) {
  uint64_t d = sh_alloc(h, bytes);
  simtvp_diag diag = {0};
  if (!d) fail(r, SIMTVP_ERR_NOMEM, "alloc", "device memory");
  else if (data && sh_write(h, d, data, bytes, &diag) != SIMTVP_OK) fail(r, diag.status, "upload", diag.message);
  return d;
}

static void launch(simt_harness *h, at_run *r, const char *kernel, uint32_t gx, uint32_t gy, uint32_t bx,
                   uint32_t by, uint32_t smem, const void *const *args) {
  if (r->status != SIMTVP_OK) return;
  uint32_t grid[3] = {gx, gy, 1}, block[3] = {bx, by, 1};
  simtvp_diag d = {0};
  double t0 = cpu_now();
  simtvp_status st = sh_launch(h, kernel, grid, block, smem, args, &d);
  r->seconds += cpu_now() - t0;
  r->cycles += sh_last_cycles(h);
  r->launches++;
  if (st != SIMTVP_OK) fail(r, st, kernel, d.message);
}

static uint32_t *ints(uint32_t n, uint32_t mul, uint32_t mod, int32_t off) {
  uint32_t *v = malloc((size_t)(n ? n : 1) * sizeof *v);
  for (uint32_t i = 0; v && i < n; i++) v[i] = (uint32_t)((int32_t)((i * mul) % mod) + off);
  return v;
}

static float *floats(uint32_t n, uint32_t mul, uint32_t mod, float scale, float off) {
  float *v = malloc((size_t)(n ? n : 1) * sizeof *v);
  for (uint32_t i = 0; v && i < n; i++) v[i] = (float)((i * mul) % mod) * scale + off;
  return v;
}

/* ---- the programs ----------------------------------------------------------------------------- */

static void w_vector_add(simt_harness *h, uint32_t s, at_run *r) {
  int32_t n = 5000 * (int32_t)s;
  float *a = floats((uint32_t)n, 1, 1u << 30, 0.5f, 0), *b = floats((uint32_t)n, 3, 1000, 1, 0);
  uint64_t da = up(h, r, a, (uint64_t)n * 4), db = up(h, r, b, (uint64_t)n * 4), dc = up(h, r, NULL, (uint64_t)n * 4);
  const void *args[] = {&da, &db, &dc, &n};
  launch(h, r, "_Z10vector_addPKfS0_Pfi", ((uint32_t)n + 127) / 128, 1, 128, 1, 0, args);
  free(a), free(b);
}

static void w_reduction(simt_harness *h, uint32_t s, at_run *r) {
  int32_t n = 10000 * (int32_t)s, threads = 256, blocks = (n + 2 * threads - 1) / (2 * threads);
  uint32_t *in = ints((uint32_t)n, 37, 101, -50);
  float *fin = floats((uint32_t)n, 37, 101, 1, -50);
  uint64_t din = up(h, r, in, (uint64_t)n * 4), dout = up(h, r, NULL, (uint64_t)blocks * 4);
  const void *a1[] = {&din, &dout, &n};
  launch(h, r, "_Z11reduce_treePKiPii", (uint32_t)blocks, 1, (uint32_t)threads, 1, (uint32_t)threads * 4, a1);
  float zero = 0;
  uint64_t dfin = up(h, r, fin, (uint64_t)n * 4), dres = up(h, r, &zero, 4);
  const void *a2[] = {&dfin, &dres, &n};
  launch(h, r, "_Z14reduce_shufflePKfPfi", 8 * s, 1, 128, 1, 0, a2);
  free(in), free(fin);
}

static void w_scan(simt_harness *h, uint32_t s, at_run *r) {
  int32_t threads = 128, width = 2 * threads, n = 1000 * (int32_t)s, blocks = (n + width - 1) / width;
  uint32_t *in = ints((uint32_t)n, 7, 13, -3), *offs = ints((uint32_t)blocks, 5, 97, 0);
  uint64_t din = up(h, r, in, (uint64_t)n * 4), dout = up(h, r, NULL, (uint64_t)n * 4);
  uint64_t dtot = up(h, r, NULL, (uint64_t)blocks * 4), doffs = up(h, r, offs, (uint64_t)blocks * 4);
  uint64_t dinc = up(h, r, NULL, (uint64_t)n * 4);
  const void *a1[] = {&din, &dout, &dtot, &n}, *a2[] = {&dout, &doffs, &n}, *a3[] = {&din, &dinc, &n};
  launch(h, r, "_Z13scan_blellochPKiPiS1_i", (uint32_t)blocks, 1, (uint32_t)threads, 1, (uint32_t)width * 4, a1);
  launch(h, r, "_Z17add_block_offsetsPiPKii", (uint32_t)blocks, 1, (uint32_t)threads, 1, 0, a2);
  launch(h, r, "_Z19scan_warp_inclusivePKiPii", ((uint32_t)n + 255) / 256, 1, 256, 1, 0, a3);
  free(in), free(offs);
}

static void w_histogram(simt_harness *h, uint32_t s, at_run *r) {
  int32_t n = 20000 * (int32_t)s;
  uint8_t *data = malloc((size_t)n);
  for (int32_t i = 0; data && i < n; i++) data[i] = (uint8_t)((i * 131 + (i >> 3)) & 0xff);
  uint32_t zeros[64] = {0};
  uint64_t dd = up(h, r, data, (uint64_t)n), b1 = up(h, r, zeros, sizeof zeros), b2 = up(h, r, zeros, sizeof zeros);
  const void *a1[] = {&dd, &b1, &n}, *a2[] = {&dd, &b2, &n};
  launch(h, r, "_Z16histogram_sharedPKhPji", 16 * s, 1, 128, 1, 0, a1);
  launch(h, r, "_Z16histogram_globalPKhPji", 16 * s, 1, 128, 1, 0, a2);
  free(data);
}

static void w_transpose(simt_harness *h, uint32_t s, at_run *r) {
  int32_t rows = 70 * (int32_t)s, cols = 45;
  float *in = floats((uint32_t)(rows * cols), 1, 1u << 30, 1, 0);
  uint64_t din = up(h, r, in, (uint64_t)rows * cols * 4), dout = up(h, r, NULL, (uint64_t)rows * cols * 4);
  const char *k[] = {"_Z15transpose_naivePKfPfii", "_Z14transpose_tileILi0EEvPKfPfii", "_Z14transpose_tileILi1EEvPKfPfii"};
  const void *args[] = {&din, &dout, &rows, &cols};
  for (int i = 0; i < 3; i++)
    launch(h, r, k[i], ((uint32_t)cols + 31) / 32, ((uint32_t)rows + 31) / 32, 32, 8, 0, args);
  free(in);
}

static void w_bitonic_sort(simt_harness *h, uint32_t s, at_run *r) {
  uint32_t n = 4096, threads = 128, width = 2 * threads;
  while (n * 2 <= 4096 * s) n *= 2;
  uint32_t chunks = n / width, x = 7;
  uint32_t *keys = malloc(n * sizeof *keys);
  for (uint32_t i = 0; keys && i < n; i++) keys[i] = (x = x * 1664525u + 1013904223u) >> 8;
  uint64_t dk = up(h, r, keys, (uint64_t)n * 4);
  const void *a1[] = {&dk};
  launch(h, r, "_Z19bitonic_sort_sharedPj", chunks, 1, threads, 1, width * 4, a1);
  for (uint32_t size = 2 * width; size <= n; size *= 2) {
    for (uint32_t stride = size / 2; stride >= width; stride /= 2) {
      const void *a2[] = {&dk, &size, &stride};
      launch(h, r, "_Z20bitonic_merge_globalPjjj", n / 2 / threads, 1, threads, 1, 0, a2);
    }
    const void *a3[] = {&dk, &size};
    launch(h, r, "_Z20bitonic_merge_sharedPjj", chunks, 1, threads, 1, width * 4, a3);
  }
  free(keys);
}

static void w_warp_vote(simt_harness *h, uint32_t s, at_run *r) {
  uint32_t threads = 64, blocks = 2 * s, n = threads * blocks;
  uint32_t *in = ints(n, 7919, 10007, 0);
  uint64_t din = up(h, r, in, (uint64_t)n * 4), dout = up(h, r, NULL, (uint64_t)n * 13 * 4);
  const void *args[] = {&din, &dout};
  launch(h, r, "_Z9warp_votePKiPi", blocks, 1, threads, 1, 0, args);
  free(in);
}

static void w_printf(simt_harness *h, uint32_t s, at_run *r) {
  (void)s;
  int32_t base = 1234;
  double scale = 0.125;
  const void *args[] = {&base, &scale};
  launch(h, r, "_Z13device_printfid", 2, 1, 4, 1, 0, args);
}

static void w_recursion(simt_harness *h, uint32_t s, at_run *r) {
  int32_t n = 100 * (int32_t)s, max_fib = 12;
  uint32_t *a = ints((uint32_t)n, 613, 2000, -1000), *b = ints((uint32_t)n, 389, 2000, -1000);
  uint32_t *sel = ints((uint32_t)n, 5, 4, 0);
  uint64_t da = up(h, r, a, (uint64_t)n * 4), db = up(h, r, b, (uint64_t)n * 4), ds = up(h, r, sel, (uint64_t)n * 4);
  uint64_t df = up(h, r, NULL, (uint64_t)n * 4), dd = up(h, r, NULL, (uint64_t)n * 4), dp = up(h, r, NULL, (uint64_t)n * 4);
  const void *args[] = {&da, &db, &ds, &max_fib, &df, &dd, &dp, &n};
  launch(h, r, "_Z9recursionPKiS0_S0_iPiS1_S1_i", ((uint32_t)n + 31) / 32, 1, 32, 1, 0, args);
  free(a), free(b), free(sel);
}

static void w_const_globals(simt_harness *h, uint32_t s, at_run *r) {
  int32_t n = 1000 * (int32_t)s, ntaps = 7, bias = -3, calls = 100;
  float taps[7];
  for (int t = 0; t < ntaps; t++) taps[t] = (float)(t + 1) / 8.0f;
  uint64_t dtaps, dbias, dcalls;
  simtvp_diag d = {0};
  if (!sh_symbol(h, "taps", &dtaps, NULL) || !sh_symbol(h, "bias", &dbias, NULL) || !sh_symbol(h, "calls", &dcalls, NULL)) {
    fail(r, SIMTVP_ERR_ARG, "const_globals", "module variables not found");
    return;
  }
  sh_write(h, dtaps, taps, sizeof taps, &d);
  sh_write(h, dbias, &bias, 4, &d);
  sh_write(h, dcalls, &calls, 4, &d);
  float *in = floats((uint32_t)n, 29, 64, 1, -32);
  uint64_t din = up(h, r, in, (uint64_t)n * 4), dout = up(h, r, NULL, (uint64_t)n * 4);
  const void *args[] = {&din, &dout, &n, &ntaps};
  launch(h, r, "_Z8convolvePKfPfii", ((uint32_t)n + 127) / 128, 1, 128, 1, 0, args);
  free(in);
}

static void w_dynamic_smem(simt_harness *h, uint32_t s, at_run *r) {
  int32_t n = 3000 * (int32_t)s;
  float *in = floats((uint32_t)n, 53, 40, 0.1f, -1);
  uint64_t din = up(h, r, in, (uint64_t)n * 4);
  for (int32_t threads = 128; threads >= 96; threads -= 32) {
    int32_t blocks = (n + threads - 1) / threads;
    uint64_t dout = up(h, r, NULL, (uint64_t)n * 4), dneg = up(h, r, NULL, (uint64_t)blocks * 4);
    const void *args[] = {&din, &dout, &dneg, &n};
    launch(h, r, "_Z14reverse_chunksPKfPfPii", (uint32_t)blocks, 1, (uint32_t)threads, 1, (uint32_t)threads * 8, args);
  }
  free(in);
}

typedef struct counters {
  float f32_sum;
  int32_t pad0;
  double f64_sum;
  uint64_t u64_sum, u64_max_cas;
  int32_t i32_min, i32_max;
  uint32_t and_bits, or_bits, xor_bits, inc_wrap, dec_wrap;
  int32_t exch_slot;
} counters;

static void w_atomics(simt_harness *h, uint32_t s, at_run *r) {
  int32_t n = 2048 * (int32_t)s;
  counters c0;
  memset(&c0, 0, sizeof c0);
  c0.i32_min = 1 << 30;
  c0.i32_max = -(1 << 30);
  c0.and_bits = 0xffffffffu;
  c0.dec_wrap = 50u;
  c0.exch_slot = -1;
  uint64_t dc = up(h, r, &c0, sizeof c0), dx = up(h, r, NULL, (uint64_t)n * 4);
  const void *args[] = {&dc, &dx, &n};
  launch(h, r, "_Z7atomicsP8countersPii", ((uint32_t)n + 127) / 128, 1, 128, 1, 0, args);
}

static void w_daxpy(simt_harness *h, uint32_t s, at_run *r) {
  int32_t n = 1000 * (int32_t)s;
  double a = 1.0 / 3.0, *x = malloc((size_t)n * 8), *y = malloc((size_t)n * 8);
  for (int32_t i = 0; x && y && i < n; i++) x[i] = -3.0 + 6.0 * i / n + 1e-9 * i, y[i] = 50.0 - 0.1 * i;
  uint64_t dx = up(h, r, x, (uint64_t)n * 8), dy = up(h, r, y, (uint64_t)n * 8), dz = up(h, r, NULL, (uint64_t)n * 8);
  const void *a1[] = {&n, &a, &dx, &dy}, *a2[] = {&n, &dx, &dy, &dz};
  launch(h, r, "_Z5daxpyidPKdPd", ((uint32_t)n + 127) / 128, 1, 128, 1, 0, a1);
  launch(h, r, "_Z14transcendentaliPKdS0_Pd", ((uint32_t)n + 127) / 128, 1, 128, 1, 0, a2);
  free(x), free(y);
}

static void w_sgemm(simt_harness *h, uint32_t s, at_run *r) {
  int32_t m = 64 * (int32_t)s, n = 48 * (int32_t)s, k = 80;
  float alpha = 2.0f, beta = 0.5f;
  float *A = floats((uint32_t)(m * k), 5, 9, 1, -4), *B = floats((uint32_t)(k * n), 7, 9, 1, -4);
  float *C = floats((uint32_t)(m * n), 3, 9, 1, -4);
  uint64_t dA = up(h, r, A, (uint64_t)m * k * 4), dB = up(h, r, B, (uint64_t)k * n * 4);
  const char *kern[] = {"_Z11sgemm_naiveiiifPKfS0_fPf", "_Z11sgemm_tilediiifPKfS0_fPf"};
  for (int i = 0; i < 2; i++) {
    uint64_t dC = up(h, r, C, (uint64_t)m * n * 4);
    const void *args[] = {&m, &n, &k, &alpha, &dA, &dB, &beta, &dC};
    launch(h, r, kern[i], ((uint32_t)n + 15) / 16, ((uint32_t)m + 15) / 16, 16, 16, 0, args);
  }
  free(A), free(B), free(C);
}

static void w_wmma(simt_harness *h, uint32_t s, at_run *r) {
  int32_t M = 32 * (int32_t)s, N = 48, K = 64, warps = (M / 16) * (N / 16), threads = 64;
  uint16_t *A = malloc((size_t)M * K * 2), *B = malloc((size_t)K * N * 2);
  for (int32_t i = 0; A && i < M * K; i++) A[i] = (uint16_t)(0x3c00u + (uint32_t)(i % 5)); /* fp16 near 1 */
  for (int32_t i = 0; B && i < K * N; i++) B[i] = (uint16_t)(0xbc00u + (uint32_t)(i % 3));
  float *C = floats((uint32_t)(M * N), 1, 100, 0.25f, -12.5f);
  uint64_t dA = up(h, r, A, (uint64_t)M * K * 2), dB = up(h, r, B, (uint64_t)K * N * 2);
  uint64_t dC = up(h, r, C, (uint64_t)M * N * 4), dD = up(h, r, NULL, (uint64_t)M * N * 4);
  const void *args[] = {&dA, &dB, &dC, &dD, &M, &N, &K};
  launch(h, r, "_Z9wmma_gemmPK6__halfS1_PKfPfiii", ((uint32_t)(warps * 32 + threads - 1)) / (uint32_t)threads, 1,
         (uint32_t)threads, 1, 0, args);
  free(A), free(B), free(C);
}

static uint64_t tex_desc(simt_harness *h, at_run *r, uint64_t data, uint32_t w, uint32_t ht, uint8_t mode,
                         uint8_t filter, uint8_t normalized) {
  func_tex_desc d;
  memset(&d, 0, sizeof d);
  d.magic = FUNC_TEX_MAGIC;
  d.resource = FUNC_TEX_RES_ARRAY;
  d.dims = 2;
  d.channels = 1;
  d.channel_type = PTX_TYPE_F32;
  d.normalized_coords = normalized;
  d.filter = filter;
  d.address[0] = d.address[1] = d.address[2] = mode;
  d.width = w;
  d.height = ht;
  d.depth = d.layers = 1;
  d.data = data;
  d.pitch = (uint64_t)w * 4;
  return up(h, r, &d, sizeof d);
}

static void w_texture(simt_harness *h, uint32_t s, at_run *r) {
  int32_t width = 16, height = 8, per_axis = 16, n = per_axis * per_axis * (int32_t)s;
  float *texels = floats((uint32_t)(width * height), 7, 23, 0.125f, -1);
  float *coords = malloc((size_t)n * 8);
  for (int32_t i = 0; coords && i < n; i++) {
    coords[2 * i] = ((float)(i % per_axis) - 2.0f + 0.375f) / (float)(width - 4);
    coords[2 * i + 1] = ((float)((i / per_axis) % per_axis) - 2.0f + 0.625f) / (float)(height + 4);
  }
  uint64_t image = up(h, r, texels, (uint64_t)width * height * 4), surf = up(h, r, NULL, (uint64_t)width * height * 4);
  uint64_t clamp = tex_desc(h, r, image, (uint32_t)width, (uint32_t)height, FUNC_TEX_ADDR_CLAMP, FUNC_TEX_FILTER_LINEAR, 1);
  uint64_t wrap = tex_desc(h, r, image, (uint32_t)width, (uint32_t)height, FUNC_TEX_ADDR_WRAP, FUNC_TEX_FILTER_LINEAR, 1);
  uint64_t surface = tex_desc(h, r, surf, (uint32_t)width, (uint32_t)height, FUNC_TEX_ADDR_CLAMP, FUNC_TEX_FILTER_POINT, 0);
  uint64_t dco = up(h, r, coords, (uint64_t)n * 8), dcl = up(h, r, NULL, (uint64_t)n * 4), dwr = up(h, r, NULL, (uint64_t)n * 4);
  uint64_t dfetch = up(h, r, NULL, (uint64_t)width * height * 4);
  const void *a1[] = {&clamp, &wrap, &dco, &dcl, &dwr, &n}, *a2[] = {&surface, &width, &height};
  const void *a3[] = {&surface, &dfetch, &width, &height};
  launch(h, r, "_Z14sample_textureyyPK6float2PfS2_i", ((uint32_t)n + 63) / 64, 1, 64, 1, 0, a1);
  launch(h, r, "_Z13write_surfaceyii", ((uint32_t)width + 7) / 8, ((uint32_t)height + 7) / 8, 8, 8, 0, a2);
  launch(h, r, "_Z12fetch_texelsyPfii", ((uint32_t)width + 7) / 8, ((uint32_t)height + 7) / 8, 8, 8, 0, a3);
  free(texels), free(coords);
}

static void w_streams_events(simt_harness *h, uint32_t s, at_run *r) {
  int32_t n = 4096 * (int32_t)s;
  float f = 1.5f, *p = floats((uint32_t)n, 1, 1000, 1, 0);
  uint64_t dp = up(h, r, p, (uint64_t)n * 4), dq = up(h, r, p, (uint64_t)n * 4);
  const void *a1[] = {&dp, &f, &n}, *a2[] = {&dp, &dq, &n};
  launch(h, r, "_Z5scalePffi", ((uint32_t)n + 255) / 256, 1, 256, 1, 0, a1);
  launch(h, r, "_Z10accumulatePfPKfi", ((uint32_t)n + 255) / 256, 1, 256, 1, 0, a2);
  free(p);
}

const at_workload at_workloads[] = {
    {"atomics", "atomics", 0, w_atomics},
    {"bitonic_sort", "sort_shared, merge_global, merge_shared", 0, w_bitonic_sort},
    {"const_globals", "convolve", 0, w_const_globals},
    {"daxpy", "daxpy, transcendental", 0, w_daxpy},
    {"dynamic_smem", "reverse_chunks x2", 0, w_dynamic_smem},
    {"histogram", "histogram_shared, histogram_global", 0, w_histogram},
    {"printf", "device_printf", 0, w_printf},
    {"recursion", "recursion", 4096, w_recursion},
    {"reduction", "reduce_tree, reduce_shuffle", 0, w_reduction},
    {"scan", "scan_blelloch, add_block_offsets, scan_warp", 0, w_scan},
    {"sgemm", "sgemm_naive, sgemm_tiled", 0, w_sgemm},
    {"streams_events", "scale, accumulate", 0, w_streams_events},
    {"texture", "sample_texture, write_surface, fetch_texels", 0, w_texture},
    {"transpose", "naive, tile, tile padded", 0, w_transpose},
    {"vector_add", "vector_add", 0, w_vector_add},
    {"warp_vote", "warp_vote", 0, w_warp_vote},
    {"wmma", "wmma_gemm", 0, w_wmma},
};
const uint32_t at_n_workloads = sizeof at_workloads / sizeof at_workloads[0];

const at_workload *at_workload_find(const char *name) {
  for (uint32_t i = 0; i < at_n_workloads; i++)
    if (!strcmp(at_workloads[i].name, name)) return &at_workloads[i];
  return NULL;
}

void at_workload_run(const at_workload *w, const sh_options *o, const char *source_dir, uint32_t scale, at_run *r) {
  memset(r, 0, sizeof *r);
  sh_options opt = *o;
  if (!opt.stack_bytes) opt.stack_bytes = w->stack_bytes;
  simt_harness *h = NULL;
  simtvp_diag d = {0};
  if (sh_create(&opt, &h, &d) != SIMTVP_OK) {
    fail(r, d.status, "harness", d.message);
    return;
  }
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/kernels/ptx/%s.ptx", source_dir, w->name);
  if (sh_load_ptx_file(h, path, &d) != SIMTVP_OK) fail(r, d.status, path, d.message);
  else w->run(h, scale ? scale : 1, r);
  int found = 0;
  r->warp_insns = stats_get(sh_stats(h), "gpgpu_n_tot_w_icount", &found);
  sh_destroy(h);
}
