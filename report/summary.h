// summary — simtvp's default statistics text: per kernel a short block (demangled name, grid and
// block, cycles, IPC, warp instructions, occupancy, the main stall reasons, L1D and L2 hit rates,
// DRAM bandwidth utilisation) and at the end a table of every kernel. The full GPGPU-Sim
// `name = value` dump is still there (`--stats full`, and always in OUTDIR/stats.txt).
//
// Everything is read from the statistics sink by GPGPU-Sim/simtvp counter names, so the figures
// are the ones in stats.json; undefined values (a cache without accesses, a kernel without
// cycles in functional mode) print as "-", never nan.
#ifndef SIMTVP_REPORT_SUMMARY_H
#define SIMTVP_REPORT_SUMMARY_H

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "stats.h"
#include "timeline.h"

namespace simtvp::report {

// The headline figures of one completed kernel (stats index k).
struct kernel_figures {
  uint32_t index = 0;           // stats kernel index
  uint64_t uid = 0;
  std::string name, display;    // mangled; demangled
  bool has_shape = false;
  uint32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  uint64_t n_ctas = 0;
  uint64_t cycles = 0, thread_insn = 0, warp_insn = 0;
  double ipc = -1;              // < 0: undefined
  double occupancy = -1;        // 0..1
  double l1d_hit = -1, l2_hit = -1, dram_util = -1;
  uint64_t sched_cycles = 0;    // scheduler cycles: issue + every stall reason
  uint64_t issue_cycles = 0;
  std::vector<std::pair<std::string, uint64_t>> stalls;  // reason, cycles; largest first
  double time_us = -1;          // simulated duration (from the timeline)
};

// Reads kernel k's figures; shape and duration from the timeline when it knows the kernel.
kernel_figures kernel_figures_of(const stats *s, uint32_t k, const timeline *t);

// The per-kernel block (ends with a newline).
std::string kernel_block(const kernel_figures &f);
// The table of all kernels (several launches of one kernel become one row when there are more
// than max_rows kernels), with a total line.
std::string kernel_table(const std::vector<kernel_figures> &all, size_t max_rows = 30);

// "12.3%" or "-" for an undefined fraction.
std::string percent(double fraction);

}  // namespace simtvp::report

#endif  // SIMTVP_REPORT_SUMMARY_H
