// timing_harness — runs PTX programs on the simulated platform (libsimtvp.so + sw/driver, as
// tests/platform does) in a forked child process, so one test can compare a run on the timing GPU
// with a run on the functional GPU (SystemC simulates once per process).
//
// A scenario names a PTX file, the device buffers it needs (size and deterministic initial
// contents), optional writes into module variables, and the launches (kernel, grid, block,
// dynamic shared memory, arguments). The child opens the platform with the given options, runs
// the launches in order, reads every buffer (and the module variables) back and sends them, the
// device printf text and the statistics the parent asks for through a pipe.
#ifndef SIMTVP_TESTS_GPU_TIMING_HARNESS_H
#define SIMTVP_TESTS_GPU_TIMING_HARNESS_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

extern "C" {
#include "func_tex.h"
#include "simtvp_diag.h"
}

namespace gt {

// Initial contents of a device buffer. Values come from a xorshift generator seeded per buffer.
enum class fill {
  zero,          // all zero bytes
  bytes,         // random bytes
  int_mod,       // int32 in [lo, lo + k)
  float_dyadic,  // float32 (n - 32) / 8, n random in [0, 64): sums are exact in any order
  double_dyadic, // the same as float64
  half_small,    // float16 small integers 0..7 (wmma inputs)
  u32_pattern,   // uint32 value i * 2654435761 (for words written by the test itself)
  tex_desc,      // a func_tex_desc (tex) whose data is buffer `data_buf`'s address
};

struct buffer {
  uint64_t bytes = 0;
  fill how = fill::zero;
  int64_t lo = 0, k = 1;       // int_mod range
  int data_buf = -1;           // tex_desc: texel buffer
  func_tex_desc tex{};         // tex_desc: template (data filled in)
  std::vector<uint8_t> init;   // explicit contents (overrides `how` when not empty)
  // How the parent compares it with the reference run.
  enum class compare { exact, sorted_u32, ignore } cmp = compare::exact;
  uint64_t ignore_from = UINT64_MAX, ignore_bytes = 0;  // a byte range not compared
};

// An argument: a buffer's device address, or an immediate of the parameter's size.
struct arg {
  int buf = -1;        // >= 0: address of that buffer
  uint64_t bits = 0;   // immediate (little-endian, as many bytes as the parameter has)
};
inline arg B(int i) { return arg{i, 0}; }
inline arg U(uint64_t v) { return arg{-1, v}; }
arg F(float v);
arg D(double v);

struct launch {
  std::string kernel;  // mangled name as in the PTX
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  uint32_t smem = 0;
  std::vector<arg> args;
};

// A module-scope variable written before the first launch and read back after the last.
struct global_var {
  std::string name;
  std::vector<uint8_t> init;  // empty: not written
  bool compare = true;
};

struct scenario {
  std::string ptx;  // file under tests/kernels/ptx/ (or an absolute path)
  std::vector<buffer> buffers;
  std::vector<global_var> globals;
  std::vector<launch> launches;
  uint64_t stack_bytes = 0;       // drv limit (0: default)
  bool sort_printf_lines = true;  // device printf order depends on the interleaving of warps
  bool same_instructions = true;  // false when the instruction count depends on races
};

// What a run produced.
struct result {
  int exit_code = -1;               // 0 when the child ran every launch
  std::string error;                // why not
  int launch_status = 0;            // simtvp_status of the last sync
  std::vector<std::vector<uint8_t>> buffers;
  std::vector<std::vector<uint8_t>> globals;
  std::string printed;              // device printf (stdout of the child)
  std::vector<uint64_t> stats;      // values of the requested statistics (after the run)
  std::vector<std::vector<uint64_t>> kernel_stats;  // per completed kernel, the requested ones
  std::vector<double> ratios;       // requested ratios over the totals
  std::string messages;             // stderr of the child (warnings, fault reports, dumps)
  std::string fault;                // simtvp_host_last_fault message
  std::string fault_place;          // its structured fields (place()), "" when there is none
};

struct options {
  std::vector<std::string> overrides;  // "-option", "value", ...
  std::string config;                  // option file; empty: the built-in default
  std::string out_dir;                 // statistics JSON goes here when set
  std::vector<std::string> stats;      // statistics to read back (stats_get)
  std::vector<std::string> kernel_stats; // per completed kernel (stats_kernel_get)
  std::vector<std::string> ratios;     // ratios over the totals (stats_get_ratio)
  bool quiet = true;
};

// Runs the scenario in a child process.
result run(const scenario &s, const options &o);
// Runs an arbitrary body in a child process with the platform open: body gets the driver and
// returns a status; its text goes into result.error.
result run_body(const options &o, const std::function<int(void *drv, std::string &out)> &body);

// The initial contents of buffer `index` of a scenario (tex_desc buffers: zeros).
std::vector<uint8_t> initial(const buffer &b, int index);

// Compares two runs' buffers, globals and printf text by the scenario's rules; "" when equal.
std::string compare(const scenario &s, const result &want, const result &got);

// The structured fields of a fault report, each only when its SIMTVP_WHERE_* bit is set:
// "kernel fault: kernel bad CTA (0,0,0) thread (5,0,0) pc 4 control.ptx:14 address 0x10".
std::string place(const simtvp_diag &d);

}  // namespace gt

#endif  // SIMTVP_TESTS_GPU_TIMING_HARNESS_H
