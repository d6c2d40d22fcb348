// timeline — what happened when during a run, recorded for the timeline trace (--trace) and the
// HTML report: kernels, CTAs on each SM, copy-engine operations, command-processor work and
// packets, interrupt edges and DRAM channels' busy intervals, in simulated picoseconds.
//
// The platform feeds it from the GPU module's passive observers (gpu_top::add_observer,
// dram_shell::on_busy_change); nothing here reads a clock or touches the simulation, so recording
// changes no statistic. Intervals are assigned lanes (the lowest lane free at their begin), which
// is also how the hardware places them: CTA slots on an SM, engines of the copy engine.
#ifndef SIMTVP_REPORT_TIMELINE_H
#define SIMTVP_REPORT_TIMELINE_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace simtvp::report {

struct kernel_span {
  uint64_t uid = 0;
  std::string name;              // mangled, as in the PTX
  uint32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  uint32_t smem_bytes = 0, regs_per_thread = 0, stream_id = 0;
  uint64_t n_ctas = 0, ctas_done = 0;
  uint64_t begin_ps = 0, end_ps = 0;
  uint64_t cycles = 0;           // gpu_sim_cycle of the kernel (set at its end)
  bool ended = false;
  uint32_t lane = 0;             // kernels running at once get different lanes
};

// One interval on a track (an SM, the copy engine, the command processor, a DRAM channel).
struct span {
  uint64_t begin_ps = 0, end_ps = 0;
  uint32_t lane = 0;
  uint64_t ref = 0;              // CTA: kernel uid; copy: bytes; CP work: what
  uint32_t a = 0, b = 0;         // CTA: status; copy: kind | src << 8 | dst << 16 (gpu_hw.h); CP: register
};

struct instant {
  uint64_t at_ps = 0;
  uint32_t a = 0, b = 0;         // packet: channel, opcode; irq: level
};

class timeline {
 public:
  // At most this many CTA and DRAM intervals are kept (a run of millions of CTAs would otherwise
  // take gigabytes); beyond it they are counted in dropped() and the trace says so.
  explicit timeline(uint64_t max_spans = 2000000) : max_spans_(max_spans) {}

  void kernel_begin(const kernel_span &k);                  // uid, name, shape, begin_ps
  void kernel_end(uint64_t uid, uint64_t at_ps, uint64_t cycles);
  void cta_begin(uint64_t uid, uint32_t sm, uint64_t at_ps);
  void cta_end(uint64_t uid, uint32_t sm, uint64_t at_ps, uint32_t status);
  void copy(uint64_t begin_ps, uint64_t end_ps, uint64_t bytes, uint32_t kind, uint32_t src_aperture,
            uint32_t dst_aperture);
  void cp_work(uint64_t begin_ps, uint64_t end_ps, uint32_t what, uint32_t reg);
  void packet(uint64_t at_ps, uint32_t channel, uint32_t opcode);
  void irq(uint64_t at_ps, bool level);
  void dram_busy(uint32_t channel, bool busy, uint64_t at_ps);
  // The end of the run: whatever is still open ends here.
  void close(uint64_t at_ps);

  const std::vector<kernel_span> &kernels() const { return kernels_; }
  const kernel_span *kernel(uint64_t uid) const;
  // CTAs of core sm, in begin order.
  const std::map<uint32_t, std::vector<span>> &ctas() const { return ctas_; }
  const std::vector<span> &copies() const { return copies_; }
  const std::vector<span> &cp_work() const { return cp_; }
  const std::vector<instant> &packets() const { return packets_; }
  const std::vector<instant> &irqs() const { return irqs_; }
  const std::map<uint32_t, std::vector<span>> &dram() const { return dram_; }
  uint64_t dropped() const { return dropped_; }
  uint64_t end_ps() const { return end_ps_; }
  // Kernels that began (ended or not), CTAs done of the most recent running kernel …
  uint32_t kernels_begun() const { return static_cast<uint32_t>(kernels_.size()); }

 private:
  // Lane bookkeeping for one track: end time of the last interval in each lane (open = UINT64_MAX).
  struct lanes {
    std::vector<uint64_t> busy_until;
    uint32_t take(uint64_t at);           // lowest lane free at `at`, marked open
    void release(uint32_t lane, uint64_t at) { if (lane < busy_until.size()) busy_until[lane] = at; }
  };
  bool room() {
    if (n_spans_ < max_spans_) return true;
    dropped_++;
    return false;
  }

  uint64_t max_spans_, n_spans_ = 0, dropped_ = 0, end_ps_ = 0;
  std::vector<kernel_span> kernels_;
  std::map<uint64_t, size_t> kernel_index_;  // uid -> kernels_
  lanes kernel_lanes_;
  std::map<uint32_t, std::vector<span>> ctas_;
  std::map<uint32_t, lanes> cta_lanes_;
  // Open CTAs per (sm, uid), oldest first: a CTA end closes the oldest (the dispatcher does not say
  // which CTA ended, and same-kernel CTAs on one SM are alike on a timeline).
  std::map<std::pair<uint32_t, uint64_t>, std::vector<size_t>> open_ctas_;
  std::vector<span> copies_;
  lanes copy_lanes_;
  std::vector<span> cp_;
  std::vector<instant> packets_, irqs_;
  std::map<uint32_t, std::vector<span>> dram_;
  std::map<uint32_t, uint64_t> dram_open_;   // channel -> begin of its open busy interval
};

}  // namespace simtvp::report

#endif  // SIMTVP_REPORT_TIMELINE_H
