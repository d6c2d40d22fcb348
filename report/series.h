// series — the time series the HTML report plots: a few counters of the statistics sink (thread
// instructions, L1D/L2 accesses and misses, per-SM instructions, per-channel DRAM data-bus cycles)
// sampled at a period of simulated time. (Occupancy over time comes from the CTAs on the timeline:
// the occupancy counters are added in bulk, not cycle by cycle.)
//
// The period adapts to the run without knowing its length: sampling starts fine and, whenever
// max_points samples are held, every other sample is dropped and the period doubles (the
// counters are cumulative, so dropping samples loses resolution, never counts). Driven by
// simulated time only, so the samples are the same on every run. Separate from the sink's own
// time series (-stats_series_period_ns), which go into stats.json.
#ifndef SIMTVP_REPORT_SERIES_H
#define SIMTVP_REPORT_SERIES_H

#include <cstdint>
#include <string>
#include <vector>

#include "stats.h"

namespace simtvp::report {

class series {
 public:
  struct column {
    std::string name;                      // "insn", "sm[3].insn", "dram[1].bwutil" …
    std::vector<const uint64_t *> members; // summed
    std::vector<uint64_t> values;          // one per sample
  };

  explicit series(uint64_t first_period_ps = 100000, uint32_t max_points = 512)
      : period_ps_(first_period_ps), max_points_(max_points < 4 ? 4 : max_points) {}

  // Picks the columns from the counters registered in s (call once, after the GPU was built):
  //   insn                gpu_sim_insn
  //   l1d_access, l1d_miss      L1D_cache_core[*].access / .miss
  //   l2_access, l2_miss        L2_cache_bank[*].access / .miss
  //   sm[i].insn          simt_core[i].thread_insn
  //   dram[i].busy, dram[i].cmd DRAM[i].bwutil, DRAM[i].n_cmd
  // Columns whose counters do not exist (functional mode) are left out.
  void attach(const stats *s);

  // Records the counters at simulated time t_ps (call with non-decreasing times).
  void sample(uint64_t t_ps);
  // When the next sample is due (a multiple of the current period after the last sample).
  uint64_t period_ps() const { return period_ps_; }

  const std::vector<uint64_t> &times_ps() const { return times_; }
  const std::vector<column> &columns() const { return columns_; }
  const column *find(const std::string &name) const;

 private:
  void add(const std::string &name, std::vector<const uint64_t *> members);
  void halve();

  uint64_t period_ps_;
  uint32_t max_points_;
  std::vector<uint64_t> times_;
  std::vector<column> columns_;
};

}  // namespace simtvp::report

#endif  // SIMTVP_REPORT_SERIES_H
