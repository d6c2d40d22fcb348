// func_test_util — helpers for the functional-engine tests: a runner with captured printf output,
// tiny PTX kernels built around a body of instructions, and per-thread input/output slots.
#ifndef SIMTVP_FUNC_TEST_UTIL_H
#define SIMTVP_FUNC_TEST_UTIL_H

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "func_runner.h"

namespace functest {

inline std::string read_file(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::string kernels_dir() { return std::string(SIMTVP_SOURCE_DIR) + "/tests/kernels/ptx/"; }

// A runner whose device printf output lands in `printed`.
struct Gpu {
  func_runner *r = nullptr;
  std::string printed;
  simtvp_diag diag{};

  explicit Gpu(func_config engine = func_config{}) {
    func_runner_config cfg{};
    cfg.engine = engine;
    cfg.print = [](void *ctx, const char *text, size_t len) {
      static_cast<Gpu *>(ctx)->printed.append(text, len);
    };
    cfg.print_ctx = this;
    r = func_runner_create(&cfg, &diag);
  }
  ~Gpu() { func_runner_destroy(r); }
  Gpu(const Gpu &) = delete;
  Gpu &operator=(const Gpu &) = delete;

  simtvp_status load(const std::string &ptx, const char *name = "test.ptx") {
    simtvp_diag_clear(&diag);
    return func_runner_load_ptx(r, ptx.data(), ptx.size(), name, &diag);
  }
  uint64_t alloc(uint64_t bytes) {
    uint64_t d = 0;
    EXPECT_EQ(func_runner_alloc(r, bytes, &d, &diag), SIMTVP_OK) << diag.message;
    return d;
  }
  template <class T> uint64_t upload(const std::vector<T> &v) {
    uint64_t d = alloc(v.size() * sizeof(T));
    EXPECT_EQ(func_runner_write(r, d, v.data(), v.size() * sizeof(T), &diag), SIMTVP_OK);
    return d;
  }
  template <class T> std::vector<T> download(uint64_t d, size_t n) {
    std::vector<T> v(n);
    EXPECT_EQ(func_runner_read(r, d, v.data(), n * sizeof(T), &diag), SIMTVP_OK) << diag.message;
    return v;
  }
  // Launch with a list of parameter values given as 64-bit slots (each parameter takes the size
  // the PTX declares, from the start of its slot).
  simtvp_status launch(const char *kernel, uint32_t gx, uint32_t bx, std::vector<uint64_t> params,
                       uint32_t smem = 0, uint32_t gy = 1, uint32_t by = 1, uint32_t gz = 1,
                       uint32_t bz = 1) {
    std::vector<const void *> args;
    for (auto &p : params) args.push_back(&p);
    uint32_t grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
    simtvp_diag_clear(&diag);
    return func_runner_launch(r, kernel, grid, block, smem, args.data(), &diag);
  }
};

// A kernel `k(out, in)` in which thread t has 32 input bytes at %rd4 = in + 32 t and 32 output
// bytes at %rd5 = out + 32 t; %r1 = %tid.x. Registers for the body: %p0-7, %h0-15 (.b16),
// %r2-31, %f0-31, %rd6-31, %fd0-31, %q0-3 (.b128 not declared).
inline std::string lane_kernel(const std::string &body, const std::string &extra_decls = "") {
  return ".version 8.0\n.target sm_80\n.address_size 64\n" + extra_decls +
         "\n.visible .entry k(.param .u64 out, .param .u64 in)\n{\n"
         "  .reg .pred %p<8>;\n  .reg .b16 %h<16>;\n  .reg .b32 %r<32>;\n  .reg .f32 %f<32>;\n"
         "  .reg .b64 %rd<32>;\n  .reg .f64 %fd<32>;\n"
         "  ld.param.u64 %rd1, [out];\n  ld.param.u64 %rd2, [in];\n"
         "  mov.u32 %r1, %tid.x;\n  mul.wide.u32 %rd3, %r1, 32;\n"
         "  add.s64 %rd4, %rd2, %rd3;\n  add.s64 %rd5, %rd1, %rd3;\n" +
         body + "\n  ret;\n}\n";
}

// Per-thread 32-byte slot viewed as 4 u64 / 8 u32.
struct Slot {
  uint64_t q[4] = {0, 0, 0, 0};
  uint32_t u32(int i) const { uint32_t v; std::memcpy(&v, reinterpret_cast<const char *>(q) + 4 * i, 4); return v; }
  float f32(int i) const { float v; std::memcpy(&v, reinterpret_cast<const char *>(q) + 4 * i, 4); return v; }
  double f64(int i) const { double v; std::memcpy(&v, &q[i], 8); return v; }
  void set_u32(int i, uint32_t v) { std::memcpy(reinterpret_cast<char *>(q) + 4 * i, &v, 4); }
  void set_f32(int i, float v) { std::memcpy(reinterpret_cast<char *>(q) + 4 * i, &v, 4); }
  void set_f64(int i, double v) { std::memcpy(&q[i], &v, 8); }
};

// Runs `body` on inputs.size() threads (one CTA of up to 1024) and returns the output slots.
inline std::vector<Slot> run_lanes(const std::string &body, const std::vector<Slot> &inputs,
                                   std::string *error = nullptr, const std::string &decls = "") {
  Gpu g;
  std::vector<Slot> out(inputs.size());
  if (g.load(lane_kernel(body, decls)) != SIMTVP_OK) {
    if (error) *error = g.diag.message;
    else ADD_FAILURE() << g.diag.message;
    return out;
  }
  uint64_t din = g.upload(inputs), dout = g.upload(out);
  simtvp_status st = g.launch("k", 1, (uint32_t)inputs.size(), {dout, din});
  if (st != SIMTVP_OK) {
    if (error) *error = g.diag.message;
    else ADD_FAILURE() << g.diag.message;
    return out;
  }
  return g.download<Slot>(dout, inputs.size());
}

inline uint32_t f2u(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float u2f(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
inline uint64_t d2u(double f) { uint64_t u; std::memcpy(&u, &f, 8); return u; }
inline double u2d(uint64_t u) { double f; std::memcpy(&f, &u, 8); return f; }


// Runs launch l warp by warp as a per-warp driver (func_runner_config.run_launch) would: CTAs in
// batches of 16 (with clusters, every CTA at once), each ready warp given one slice in turn until
// every CTA is done; a warp waiting at a barrier that has completed is released first.
// slice(cta_index, cta, warp, warp_index, diag) runs one slice and returns false when the launch
// faulted (or the driver found a broken contract: then SIMTVP_ERR_STATE). No warp to run while a
// CTA is live is a deadlock.
template <class Slice>
simtvp_status run_launch_in_slices(func_launch *l, Slice &&slice, simtvp_diag *diag) {
  func_launch_params lp;
  func_launch_get_params(l, &lp);
  const uint32_t *g = lp.grid;
  const uint64_t n_ctas = (uint64_t)g[0] * g[1] * g[2];
  const uint64_t batch = func_launch_cluster_size(l) > 1 ? n_ctas : 16;
  simtvp_status st = SIMTVP_OK;
  for (uint64_t first = 0; first < n_ctas && st == SIMTVP_OK; first += batch) {
    std::vector<func_cta *> ctas;
    for (uint64_t i = first; i < first + batch && i < n_ctas; i++) {
      uint32_t id[3] = {(uint32_t)(i % g[0]), (uint32_t)(i / g[0] % g[1]), (uint32_t)(i / ((uint64_t)g[0] * g[1]))};
      func_cta *c = nullptr;
      st = func_cta_start(l, id, (uint32_t)(i % 4), 0, &c, diag);
      if (st != SIMTVP_OK) break;
      ctas.push_back(c);
    }
    bool live = st == SIMTVP_OK;
    while (live) {
      live = false;
      bool progress = false;
      for (size_t ci = 0; ci < ctas.size() && st == SIMTVP_OK; ci++) {
        func_cta *c = ctas[ci];
        if (func_cta_done(c)) continue;
        live = true;
        for (uint32_t wi = 0; wi < func_cta_warp_count(c); wi++) {
          func_warp *w = func_cta_warp(c, wi);
          // cluster barriers and the like complete elsewhere: a waiting warp's barrier may be
          // released whenever it has completed
          if (func_warp_get_state(w) == FUNC_WARP_BARRIER && func_cta_release_barrier(c, func_warp_barrier(w)))
            progress = true;
          if (func_warp_get_state(w) != FUNC_WARP_READY) continue;
          progress = true;
          if (!slice(first + ci, c, w, wi, diag)) {
            st = func_launch_fault(l, diag);
            if (st == SIMTVP_OK) st = SIMTVP_ERR_STATE;
            break;
          }
        }
      }
      if (st != SIMTVP_OK) break;
      if (live && !progress) {
        st = simtvp_diag_set(diag, SIMTVP_ERR_DEADLOCK, "the test driver found no warp to run");
        break;
      }
    }
    for (func_cta *c : ctas) func_cta_finish(c);
  }
  return st;
}

// A small engine in per-warp mode for the per-warp tests (func_step, func_plain, func_run): one
// program on its own device memory (segments placed and written), allocations page by page, and
// launches driven by the test. `file` names the PTX in error messages.
struct Engine {
  devmem *mem = devmem_create();
  func_engine *e = nullptr;
  ptx_module *m = nullptr;
  func_program *p = nullptr;
  simtvp_diag d{};
  uint64_t next = 0x100000000ull;

  explicit Engine(const std::string &ptx, const func_ports *ports = nullptr, const char *file = "test.ptx") {
    e = func_create(nullptr, ports, mem, nullptr, &d);
    m = ptx_parse(ptx.data(), ptx.size(), file, nullptr, &d);
    EXPECT_NE(m, nullptr) << d.message;
    if (!m) return;
    uint64_t g = alloc(m->global_segment_bytes + 16), c = alloc(m->const_segment_bytes + 16);
    func_placement pl = {g, c, nullptr, 0x7000000};
    EXPECT_EQ(func_program_load(e, m, &pl, &p, &d), SIMTVP_OK) << d.message;
    if (p) {
      EXPECT_EQ(func_program_write_segments(p, &d), SIMTVP_OK);
    }
  }
  ~Engine() {
    func_program_destroy(p);
    ptx_module_destroy(m);
    func_destroy(e);
    devmem_destroy(mem);
  }
  Engine(const Engine &) = delete;
  Engine &operator=(const Engine &) = delete;
  uint64_t alloc(uint64_t bytes) {
    uint64_t a = next, sz = (bytes + 4095) & ~4095ull;
    if (!sz) sz = 4096;
    EXPECT_EQ(devmem_map(mem, a, sz, &d), SIMTVP_OK);
    next += sz + 4096;
    return a;
  }
  // A launch of `kernel` on a gx x gy grid of bx x by blocks with 64-bit parameter values.
  func_launch *launch(const char *kernel, uint32_t gx, uint32_t bx, std::vector<uint64_t> params, uint32_t gy = 1,
                      uint32_t by = 1) {
    uint32_t k = func_program_kernel(p, kernel);
    EXPECT_NE(k, PTX_NONE);
    std::vector<uint8_t> buf(func_program_param_bytes(p, k) + 8);
    for (uint32_t i = 0; i < params.size(); i++) {
      uint32_t off, n;
      EXPECT_TRUE(func_program_param(p, k, i, &off, &n));
      std::memcpy(buf.data() + off, &params[i], n);
    }
    func_launch_params lp = {k, {gx, gy, 1}, {bx, by, 1}, 0, buf.data(), (uint32_t)buf.size(), 1, {0, 0, 0}, 1, nullptr};
    func_launch *l = nullptr;
    EXPECT_EQ(func_launch_create(e, p, &lp, &l, &d), SIMTVP_OK) << d.message;
    return l;
  }
  std::vector<uint32_t> read32(uint64_t a, size_t n) {
    std::vector<uint32_t> v(n);
    EXPECT_EQ(devmem_read(mem, a, v.data(), n * 4, &d), SIMTVP_OK);
    return v;
  }
};

}  // namespace functest

#endif
