// simt_test_util — helpers for the SIMT core tests: a GPU on the harness with the same surface as
// the functional tests' runner (load, alloc, upload, download, launch with 64-bit parameter slots),
// option lists, statistics lookups and tiny PTX kernels.
#ifndef SIMTVP_SIMT_TEST_UTIL_H
#define SIMTVP_SIMT_TEST_UTIL_H

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
#include "simt_harness.h"
}

namespace simttest {

inline std::string read_file(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::string source(const char *rel) { return std::string(SIMTVP_SOURCE_DIR) + "/" + rel; }
inline std::string kernels_dir() { return source("tests/kernels/ptx/"); }

struct Gpu {
  simt_harness *h = nullptr;
  simtvp_diag diag{};
  std::vector<std::string> args;  // owned copies of the option overrides
  std::string config;

  // `file` relative to the source tree ("" = built-in defaults); overrides "-opt value ...".
  struct Issue {
    uint32_t sm, warp, pc, active;
    uint64_t cycle;
  };
  std::vector<Issue> issues;  // with trace = true

  Gpu(const char *file, const std::vector<const char *> &overrides, uint8_t ldst = SH_LDST_REAL,
      uint32_t mem_latency = 100, uint32_t fake_latency = 20, uint32_t stack_bytes = 0, bool trace = false,
      bool every_cycle = false, uint64_t max_cycles = 0) {
    for (const char *a : overrides) args.push_back(a);
    std::vector<const char *> argv;
    for (auto &a : args) argv.push_back(a.c_str());
    sh_options o{};
    if (file && *file) {
      config = source(file);
      o.config_file = config.c_str();
    }
    o.args = argv.data();
    o.n_args = (int)argv.size();
    o.mem_latency = mem_latency;
    o.ldst = ldst;
    o.fake_ldst_latency = fake_latency;
    o.stack_bytes = stack_bytes;
    o.quiet = true;
    o.every_cycle = every_cycle;
    o.max_cycles = max_cycles ? max_cycles : 2000000;
    if (trace) {
      o.trace.ctx = this;
      o.trace.issue = [](void *ctx, uint32_t sm, uint32_t warp, uint32_t pc, uint32_t active, uint64_t cycle) {
        static_cast<Gpu *>(ctx)->issues.push_back({sm, warp, pc, active, cycle});
      };
    }
    EXPECT_EQ(sh_create(&o, &h, &diag), SIMTVP_OK) << diag.message;
  }
  ~Gpu() { sh_destroy(h); }
  Gpu(const Gpu &) = delete;
  Gpu &operator=(const Gpu &) = delete;

  simtvp_status load(const std::string &ptx, const char *name = "test.ptx") {
    simtvp_diag_clear(&diag);
    return sh_load_ptx(h, ptx.data(), ptx.size(), name, &diag);
  }
  uint64_t alloc(uint64_t bytes) { return sh_alloc(h, bytes); }
  template <class T> uint64_t upload(const std::vector<T> &v) {
    uint64_t d = alloc(v.size() * sizeof(T));
    EXPECT_EQ(sh_write(h, d, v.data(), v.size() * sizeof(T), &diag), SIMTVP_OK);
    return d;
  }
  template <class T> std::vector<T> download(uint64_t d, size_t n) {
    std::vector<T> v(n);
    EXPECT_EQ(sh_read(h, d, v.data(), n * sizeof(T), &diag), SIMTVP_OK) << diag.message;
    return v;
  }
  simtvp_status launch(const char *kernel, uint32_t gx, uint32_t bx, std::vector<uint64_t> params,
                       uint32_t smem = 0, uint32_t gy = 1, uint32_t by = 1, uint32_t gz = 1, uint32_t bz = 1) {
    std::vector<const void *> a;
    for (auto &p : params) a.push_back(&p);
    uint32_t grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
    return sh_launch(h, kernel, grid, block, smem, a.data(), &diag);
  }
  uint64_t cycles() const { return sh_last_cycles(h); }
  std::string printed() const { return sh_printed(h); }
  std::string messages() const { return sh_messages(h); }
  uint64_t stat(const char *name) const {
    int found = 0;
    uint64_t v = stats_get(sh_stats(h), name, &found);
    EXPECT_TRUE(found) << name;
    return v;
  }
};

// A kernel `k(out)` around `body`; %rd1 = out + 8 * (global thread index). Registers for the body:
// %p1-7, %r0-31 (b32), %f0-31, %rd2-31. Without predicates declared the b32 registers %rN are
// scoreboard/register-bank ids N (.pred registers come first in the numbering).
inline std::string kernel(const std::string &body, bool preds = false) {
  return std::string(".version 7.0\n.target sm_70\n.address_size 64\n.visible .entry k(.param .u64 out)\n{\n") +
         (preds ? "  .reg .pred %p<8>;\n" : "") +
         "  .reg .b32 %r<32>;\n  .reg .f32 %f<32>;\n  .reg .b64 %rd<32>;\n" + body + "\n  exit;\n}\n";
}

// The thread's output slot: %rd1 = out + 8 * (ctaid.x * ntid.x + tid.x). Uses %r28-%r31, %rd28-%rd29.
inline const char *kOutSlot =
    "  ld.param.u64 %rd28, [out];\n  mov.u32 %r28, %tid.x;\n  mov.u32 %r29, %ctaid.x;\n  mov.u32 %r30, %ntid.x;\n"
    "  mad.lo.u32 %r31, %r29, %r30, %r28;\n  mul.wide.u32 %rd29, %r31, 8;\n  add.s64 %rd1, %rd28, %rd29;\n";

// The place fields of a structured fault report, each only when its SIMTVP_WHERE_* bit is set:
// "kernel fault: kernel k CTA (1,0,0) thread (5,0,0) pc 10 fault.ptx:20 address 0x10"; "none" for NULL.
inline std::string place(const simtvp_diag *d) {
  if (!d) return "none";
  std::ostringstream o;
  o << simtvp_status_name(d->status) << ":";
  if (d->where & SIMTVP_WHERE_THREAD)
    o << " kernel " << d->kernel << " CTA (" << d->cta[0] << "," << d->cta[1] << "," << d->cta[2] << ") thread ("
      << d->thread[0] << "," << d->thread[1] << "," << d->thread[2] << ")";
  if (d->where & SIMTVP_WHERE_PC) o << " pc " << d->pc;
  if (d->where & SIMTVP_WHERE_FILE) o << " " << d->file << ":" << d->line;
  if (d->where & SIMTVP_WHERE_ADDRESS) o << " address 0x" << std::hex << d->address;
  return o.str();
}

// A harness on `config` (options `args`, LDST `ldst`) whose interval cores' memory beyond the L1
// is `port` (Port::access as their memory hook), `ptx` loaded: the harness, or null (the failure
// reported). Tests that count or shape what reaches memory put their own Port behind it.
template <typename Port>
simt_harness *harness_behind(Port &port, const char *config, std::vector<const char *> args, sh_ldst_kind ldst,
                             const std::string &ptx, const char *file) {
  std::string path = source(config);
  sh_options o{};
  o.config_file = path.c_str();
  o.args = args.data();
  o.n_args = static_cast<int>(args.size());
  o.ldst = ldst;
  o.quiet = true;
  o.interval_mem = {&port, Port::access};
  simt_harness *h = nullptr;
  simtvp_diag d{};
  EXPECT_EQ(sh_create(&o, &h, &d), SIMTVP_OK) << d.message;
  if (!h) return nullptr;
  EXPECT_EQ(sh_load_ptx(h, ptx.data(), ptx.size(), file, &d), SIMTVP_OK) << d.message;
  return h;
}

inline std::string repeat(const std::string &line, int n) {
  std::string s;
  for (int i = 0; i < n; i++) s += line;
  return s;
}

}  // namespace simttest

#endif
