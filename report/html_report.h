// html_report — OUTDIR/report.html: one self-contained page (data, CSS and script inline; nothing
// loaded from the network) with the run's facts, a kernel table, the kernel timeline (kernels,
// copies, command processor, interrupts, DRAM channels, CTAs per SM), IPC / occupancy / DRAM
// bandwidth / cache hit rates over time, the stall breakdown per kernel, heat maps per SM and per
// memory partition (over time and per kernel), the PTX/source-line hot spots with stall cycles
// (with -enable_ptx_file_line_stats 1) and the configuration with its fidelity map.
//
// The page's script (report.js) draws SVG from the embedded JSON; docs/statistics.md describes
// the sections.
#ifndef SIMTVP_REPORT_HTML_REPORT_H
#define SIMTVP_REPORT_HTML_REPORT_H

#include <array>
#include <cstdio>
#include <string>
#include <vector>

#include "series.h"
#include "stats.h"
#include "timeline.h"

namespace simtvp::report {

struct html_info {
  std::string title, gpu, config, simt_model, version;
  double wall_s = 0;
  uint64_t sim_ps = 0;
  double core_mhz = 0, dram_peak_gbs = 0;
  uint32_t warp_size = 32, max_warps_per_sm = 0;
  std::vector<std::string> sm_model, dram_model;        // per SM / DRAM channel: "ca", "at", "func"
  std::vector<std::pair<std::string, std::string>> params;        // label, value
  std::vector<std::array<std::string, 3>> options;                // name, value, where it was set
  std::vector<std::string> not_modelled;                          // options set but not modelled
};

// The embedded data (JSON text), exposed for tests.
std::string report_data_json(const stats *s, const timeline &t, const series *ser, const html_info &info);
// Writes the page; false (errno set) when the stream fails.
bool write_html_report(FILE *out, const stats *s, const timeline &t, const series *ser, const html_info &info);

}  // namespace simtvp::report

#endif  // SIMTVP_REPORT_HTML_REPORT_H
