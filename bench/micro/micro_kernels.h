// micro_kernels — the PTX microbenchmarks of bench_micro (and tests/micro) and the small harness
// that runs them on the simulated platform (libsimtvp.so + sw/driver, as a CUDA program would).
//
// The kernels are hand-written PTX (one module, micro_module()), in the style of the published
// microbenchmarks they are compared with (Jia et al. 2018/2019, Accel-Sim's GPU_Microbenchmark):
// one thread chases pointers or runs a chain of dependent instructions between two reads of
// %clock64; bandwidth kernels keep many warps busy and are timed with %clock64 (per SM, or from
// the first CTA's start to the last CTA's end for the whole GPU). Unrolled bodies are generated (16 to 64 copies of one
// line), so every loop iteration has the same small overhead the papers' unrolled loops have.
//
// Every measurement runs in a forked child process (one SystemC simulation per process).
#ifndef SIMTVP_BENCH_MICRO_KERNELS_H
#define SIMTVP_BENCH_MICRO_KERNELS_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "driver.h"
#include "simtvp_host.h"

extern "C" {
#include "dram_addrdec.h"
#include "gpu_config.h"
}

namespace micro {

// Loads per loop iteration of the chase kernels and dependent operations per iteration of the
// ALU chains.
constexpr uint32_t kChaseUnroll = 16;
constexpr uint32_t kAluUnroll = 64;
// %clock64 deltas a timed kernel can record (one per pass); out[kMaxPasses] keeps the result.
constexpr uint32_t kMaxPasses = 8;

// The whole benchmark module (PTX text). Kernels:
//   chase_ca(start, iters, passes, out)     ld.global.u64 chain (through the L1D)
//   chase_cg(start, iters, passes, out)     ld.global.cg.u64 chain (L2 only)
//   chase_atom(start, iters, passes, out)   atom.global.exch.b64 chain (executed at the L2)
//   chase_const(start, iters, passes, out)  ld.const.u64 chain over the module's `cchain`
//   const_addr(out)                         writes the address `cchain` has in the kernel
//   chase_shared(n, stride, iters, passes, out)  ld.shared.u32 chain the kernel builds itself
//   alu_<cls>(out, iters, passes)           64 dependent operations per iteration, cls one of
//                                           iadd imad fadd ffma dfma sfu
//   stream_ca / stream_cg(in, out, clk, n4, reps)  grid-stride float4 reads, 4 in flight per
//                                           thread; clk[2c], clk[2c+1] = CTA c's start and end
//   stream_ca_gt / stream_cg_gt(...)        the same with %globaltimer (ns) instead of %clock64:
//                                           whole-GPU spans on real GPUs, whose SMs' %clock64
//                                           counters are not synchronised (bench/hwcorr)
//   smem_bw(out, iters)                     16 conflict-free ld.shared.u32 per thread and iteration
//   l1_bw(in, out, n4, iters)               float4 reads of a small per-CTA window (L1D hits)
//   empty()                                 nothing (launch overhead)
//   alu_st, alu_st_membar_cta/_gl/_sys, alu_st_fence_gpu, alu_st_syncwarp (out, iters, passes)
//                                           64 x (store, fence of that scope, add) per iteration
const std::string &micro_module();

// Names of the ALU chains and what they run.
struct alu_class {
  const char *name;     // kernel alu_<name>
  const char *insn;     // the PTX instruction of the chain
  const char *what;     // row label
};
const std::vector<alu_class> &alu_classes();
// The fence chains (kernels alu_<name>, appended at the module's end): store, fence, add.
const std::vector<alu_class> &fence_classes();

// ---- the harness ----------------------------------------------------------------------------

// Inside a run: the driver of the open platform and helpers that record the first error.
class session {
 public:
  session(simtvp_host *h, drv *d) : h_(h), d_(d) {}
  drv *driver() const { return d_; }
  simtvp_host *host() const { return h_; }
  bool ok() const { return error_.empty(); }
  const std::string &error() const { return error_; }
  void fail(const std::string &why) {
    if (error_.empty()) error_ = why;
  }

  // Loads micro_module() once; false on error.
  bool load();
  drv_module *module() const { return mod_; }
  uint64_t alloc(uint64_t bytes);
  void write(uint64_t dptr, const void *src, uint64_t bytes);
  void read(void *dst, uint64_t dptr, uint64_t bytes);
  // Device address of a module variable (drv_module_global).
  uint64_t global(const char *name);
  // Launches kernel `name` with arguments (pointers to each parameter's value) and waits; returns
  // the kernel's gpu_sim_cycle (0 on error).
  uint64_t launch(const char *name, std::vector<const void *> args, uint32_t grid, uint32_t block);
  // Simulated time so far, in picoseconds.
  uint64_t time_ps() const { return simtvp_host_time_ps(h_); }

 private:
  simtvp_host *h_;
  drv *d_;
  drv_module *mod_ = nullptr;
  std::string error_;
};

// What a run sends back: up to 32 numbers (their meaning is the body's) or an error.
struct values {
  bool ok = false;
  std::string error;
  std::vector<double> v;
};

// Opens the platform with `config` (empty: the built-in default) and `overrides` ("-option",
// "value", …) in a forked child, runs body inside one host call and returns what it pushed.
values run(const std::string &config, const std::vector<std::string> &overrides,
           const std::function<void(session &, std::vector<double> &)> &body);

// ---- the measurements -----------------------------------------------------------------------
// Each returns cycles per operation (latencies) or bytes per cycle (bandwidths), measured with
// %clock64 inside the kernel on the last (warm) pass unless said otherwise. They run inside a
// session and report errors through it.

// Pointer chase of `n` elements `stride` bytes apart (circular), `passes` passes of `loads`
// loads each; returns the cycles per load of the last pass. kernel: chase_ca / chase_cg /
// chase_atom.
double chase_global(session &s, const char *kernel, uint32_t n, uint32_t stride, uint32_t loads,
                    uint32_t passes);
// Pointer chase through an explicit list of device addresses inside [buffer, buffer + bytes)
// (visited in order, then back to the first; the whole buffer is written once): `passes` passes
// of `loads` loads each (a multiple of 16); returns the cycles per load of every pass (pass 0 is
// the first, with cold code and data).
std::vector<double> chase_list(session &s, const char *kernel, uint64_t buffer, uint64_t bytes,
                               const std::vector<uint64_t> &addrs, uint32_t loads, uint32_t passes);
// Constant-cache chase of n elements `stride` bytes apart in `cchain` (device memory at the
// same address the kernel sees); warm_l2 first reads all of cchain into the L2 (not the L1C).
double chase_const(session &s, uint32_t n, uint32_t stride, uint32_t loads, uint32_t passes, bool warm_l2);
// Shared-memory chase of n words `stride` bytes apart.
double chase_shared(session &s, uint32_t n, uint32_t stride, uint32_t loads, uint32_t passes);
// Dependent-ALU chain of class `cls`: cycles per operation.
double alu_chain(session &s, const char *cls, uint32_t iters, uint32_t passes);

// The %clock64 span of a stream kernel's grid from its clk array: max end - min start.
uint64_t grid_span(session &s, uint64_t clk, uint32_t grid);

// Clock readings of one pass of a chase: the raw %clock64 delta (for the tests).
uint64_t chase_global_cycles(session &s, const char *kernel, uint32_t n, uint32_t stride,
                             uint32_t loads, uint32_t passes);
uint64_t alu_chain_cycles(session &s, const char *cls, uint32_t iters, uint32_t passes);

// ---- the configuration a run uses -----------------------------------------------------------

// A configuration as the platform reads it (file, then overrides) and the memory system's address
// map built from it (partition indexing 3-5 fall back to 2, as docs/timing.md says).
struct gpu_setup {
  gpu_setup() = default;
  gpu_setup(const gpu_setup &) = delete;
  gpu_setup &operator=(const gpu_setup &) = delete;
  ~gpu_setup();
  gpu_config g{};
  dram_addrmap *map = nullptr;
};
// config empty: configs/default.config.
bool load_gpu(const std::string &config, const std::vector<std::string> &overrides, gpu_setup *out,
              std::string *error);
// Channels x chips x bus bytes x transfers per command clock x command clock, GB/s.
double peak_dram_gbs(const gpu_config &g);

// DRAM chains placed with the address decoder, inside [buf, buf + bytes) (32-byte sectors):
// row_hit_chain — the 64 sectors of one row of channel 0, in a non-sequential order (the first
// access opens the row, the other 63 are row-buffer hits);
// row_miss_chain — 64 sectors alternating between two rows of one bank of channel 0 (after the
// first, every access closes the other row: PRE + ACT + RD).
// Empty (and *why set) when the buffer has no such rows.
std::vector<uint64_t> row_hit_chain(const dram_addrmap *map, uint64_t buf, uint64_t bytes, std::string *why);
std::vector<uint64_t> row_miss_chain(const dram_addrmap *map, uint64_t buf, uint64_t bytes, std::string *why);

}  // namespace micro

#endif  // SIMTVP_BENCH_MICRO_KERNELS_H
