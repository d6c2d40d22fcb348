// trace_vcd — the run's timeline as waveforms (`simtvp --vcd FILE.vcd`): a Value Change Dump
// (IEEE 1364 §18) that GTKWave, Surfer and other waveform viewers open, timescale 1 ps, simulated
// time. The signals are those of the timeline (timeline.h) seen at the GPU's boundary and at its
// blocks, one scope each:
//
//   gpu                 irq (the interrupt line), kernels (how many run), kernel<L> (the launch
//                       number running in kernel lane L, 0 when none)
//   gpu.sm              sm<N>_ctas: CTAs resident on SM N
//   gpu.copy_engine     ce<L>_busy and ce<L>_bytes: copy/memset operations of engine lane L
//   gpu.command_processor  busy (firmware handling an event), packets (count so far), opcode
//                       (of the last packet, gpu_abi.h)
//   gpu.dram            ch<N>_busy: DRAM channel N holds requests
//
// It is written from the same record as the JSON trace at the end of the run (the record is
// completed after the fact: a copy's or a CTA's interval is known when it ends), not with
// sc_trace during it, so it costs nothing while simulating and changes no statistic.
#ifndef SIMTVP_REPORT_TRACE_VCD_H
#define SIMTVP_REPORT_TRACE_VCD_H

#include <cstdio>
#include <string>

#include "timeline.h"

namespace simtvp::report {

struct vcd_info {
  std::string gpu, config, simt_model;  // for the header's $comment
};

// Writes the dump; false (errno set) when the stream fails.
bool write_trace_vcd(FILE *out, const timeline &t, const vcd_info &info);

}  // namespace simtvp::report

#endif  // SIMTVP_REPORT_TRACE_VCD_H
