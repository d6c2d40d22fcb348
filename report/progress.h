// progress — what a long simulation says while it runs, on stderr (never stdout):
//
//   - on a terminal, one line redrawn in place (at most every 0.25 s, from 0.5 s into the run):
//       [kernel 2/2 sgemm_tiled] 1.23M cycles  IPC 312.4  2.1 M insn/s  CTAs [#####-----] 34/64
//     erased before anything else is printed (clear()), so the program's own output and the
//     statistics never mix with it;
//   - otherwise, GPGPU-Sim-style lines every `period` seconds (-liveness_message_freq):
//       simtvp: cycles simulated: 1234567  inst.: 98765432 (ipc=312.4) sim_rate=2134567 (inst/sec)
//       elapsed = 0:0:00:12 / kernel 2 sgemm_tiled, CTAs 34/64
//
// The wall clock is injected (tests drive it by hand) and only decides whether a poll prints; the
// caller polls from the simulation at points that do not depend on it, so progress output never
// changes what is simulated.
#ifndef SIMTVP_REPORT_PROGRESS_H
#define SIMTVP_REPORT_PROGRESS_H

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace simtvp::report {

struct progress_state {
  uint32_t kernel_index = 0;   // launches begun so far (the current one is this number)
  uint32_t running = 0;        // kernels running now (0: between kernels)
  std::string kernel;          // short name of the most recently begun running kernel
  uint64_t kernel_cycles = 0;  // its cycles so far
  uint64_t kernel_insn = 0;    // its thread instructions so far
  uint64_t ctas_done = 0, ctas_total = 0;
  uint64_t total_cycles = 0, total_insn = 0;  // the run so far (gpu_tot_sim_*)
};

class progress {
 public:
  enum mode_t { off, tty, lines };
  // clock: seconds since any fixed point (steady). period_s: seconds between lines in `lines` mode
  // (<= 0: none).
  progress(mode_t mode, FILE *out, double period_s, std::function<double()> clock);

  mode_t mode() const { return mode_; }
  // Cheap test whether a poll would print now (reads the clock once).
  bool due();
  // Prints when due; `state` is built by the caller only when due() said so.
  void print(const progress_state &state);
  // Erases the terminal line if one is shown (before other output on the terminal).
  void clear();

  // The texts themselves (tests): the terminal line (without the leading "\r"), the periodic line.
  static std::string tty_line(const progress_state &s, double elapsed_s, size_t width);
  static std::string liveness_line(const progress_state &s, double elapsed_s);

 private:
  mode_t mode_;
  FILE *out_;
  double period_s_;
  std::function<double()> clock_;
  double start_, next_;
  bool shown_ = false;  // a terminal line is on the screen
};

// The mode for stderr: tty when it is a terminal, else lines; off when quiet.
progress::mode_t progress_mode_for(FILE *stream, bool quiet);
// The terminal's width (COLUMNS, else the tty's, else 80).
size_t terminal_width(FILE *stream);

}  // namespace simtvp::report

#endif  // SIMTVP_REPORT_PROGRESS_H
