// trace_json — the timeline trace (`simtvp --trace FILE.json`) in the Chrome trace-event format
// (the JSON object form: {"traceEvents": [...], "displayTimeUnit": "ns", ...}), which Perfetto
// (ui.perfetto.dev) and chrome://tracing open. Timestamps are simulated time in microseconds with
// picosecond digits.
//
// Processes and threads (tracks):
//   GPU                 kernels (one thread per lane of concurrently running kernels)
//   SM n                one thread per CTA slot in use: the CTAs the core held
//   Copy engine         one thread per engine: copies and memsets with bytes and direction
//   Command processor   "firmware" (each handled event as a slice), "packets" (instants)
//   Interrupt           the interrupt line as a counter (0/1)
//   DRAM                one thread per channel: intervals with requests held
//   Counters            IPC and DRAM bandwidth utilisation from the report's
//                       series (when sampled)
#ifndef SIMTVP_REPORT_TRACE_JSON_H
#define SIMTVP_REPORT_TRACE_JSON_H

#include <cstdio>
#include <string>

#include "series.h"
#include "timeline.h"

namespace simtvp::report {

struct trace_info {
  std::string gpu, config, simt_model;
  double core_mhz = 0;        // for IPC from the series (0: no IPC counter)
};

// Writes the trace; false (errno set) when the stream fails.
bool write_trace_json(FILE *out, const timeline &t, const series *s, const trace_info &info);

// Text of a picosecond time as trace microseconds ("12.000345").
std::string trace_us(uint64_t ps);

}  // namespace simtvp::report

#endif  // SIMTVP_REPORT_TRACE_JSON_H
