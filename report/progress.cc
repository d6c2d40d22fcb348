// progress — see progress.h.
#include "progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cinttypes>
#include <cmath>
#include <cstdlib>

#include "demangle.h"

namespace simtvp::report {

namespace {

constexpr double kTtyFirst = 0.5;    // nothing for short runs
constexpr double kTtyPeriod = 0.25;  // redraws per second: 4

std::string si(double v) {
  char buf[32];
  if (v >= 1e9)
    std::snprintf(buf, sizeof buf, "%.2fG", v / 1e9);
  else if (v >= 1e6)
    std::snprintf(buf, sizeof buf, "%.2fM", v / 1e6);
  else if (v >= 1e3)
    std::snprintf(buf, sizeof buf, "%.1fk", v / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

}  // namespace

progress::progress(mode_t mode, FILE *out, double period_s, std::function<double()> clock)
    : mode_(mode), out_(out), period_s_(period_s), clock_(std::move(clock)) {
  if (mode_ == lines && !(period_s_ > 0)) mode_ = off;
  start_ = clock_ ? clock_() : 0;
  next_ = start_ + (mode_ == tty ? kTtyFirst : period_s_);
}

bool progress::due() {
  if (mode_ == off) return false;
  return clock_() >= next_;
}

void progress::print(const progress_state &s) {
  if (mode_ == off) return;
  double now = clock_();
  if (now < next_) return;
  double elapsed = now - start_;
  if (mode_ == tty) {
    std::fprintf(out_, "\r%s\033[K", tty_line(s, elapsed, terminal_width(out_)).c_str());
    std::fflush(out_);
    shown_ = true;
    next_ = now + kTtyPeriod;
  } else {
    std::fprintf(out_, "%s\n", liveness_line(s, elapsed).c_str());
    std::fflush(out_);
    // The next line at the first period boundary after now (no burst after a long poll-free
    // stretch, and no loop over periods however small the period).
    next_ += period_s_ * (std::floor((now - next_) / period_s_) + 1);
    if (next_ <= now) next_ = now + period_s_;
  }
}

void progress::clear() {
  if (!shown_) return;
  std::fputs("\r\033[K", out_);
  std::fflush(out_);
  shown_ = false;
  // A line erased for other output is redrawn at the next due poll, not at once.
}

std::string progress::tty_line(const progress_state &s, double elapsed_s, size_t width) {
  char head[64];
  if (s.running)
    std::snprintf(head, sizeof head, "[kernel %u", s.kernel_index);
  else
    std::snprintf(head, sizeof head, "[after kernel %u", s.kernel_index);
  double rate = elapsed_s > 0 ? static_cast<double>(s.total_insn) / elapsed_s : 0;
  std::string figures = " " + si(static_cast<double>(s.kernel_cycles)) + " cycles";
  if (s.kernel_cycles) {
    char ipc[32];
    std::snprintf(ipc, sizeof ipc, "  IPC %.1f", static_cast<double>(s.kernel_insn) / static_cast<double>(s.kernel_cycles));
    figures += ipc;
  }
  figures += "  " + si(rate) + " insn/s";
  std::string ctas;
  if (s.running && s.ctas_total) {
    const int bar = 20;
    int filled = static_cast<int>(static_cast<double>(s.ctas_done) * bar / static_cast<double>(s.ctas_total));
    if (filled > bar) filled = bar;
    ctas = "  CTAs [" + std::string(filled, '#') + std::string(bar - filled, '-') + "] " + std::to_string(s.ctas_done) +
           "/" + std::to_string(s.ctas_total);
  }
  // The kernel's name gets what the width leaves (at least 8 characters).
  size_t fixed = display_width(head) + 2 + display_width(figures) + display_width(ctas) + 1;
  size_t room = width > fixed + 8 ? width - fixed : 8;
  std::string name = s.running && !s.kernel.empty() ? " " + short_name(s.kernel, room, true) : "";
  std::string line = std::string(head) + name + "]" + figures + ctas;
  if (display_width(line) >= width && width > 1) line = short_name(line, width - 1);
  return line;
}

std::string progress::liveness_line(const progress_state &s, double elapsed_s) {
  uint64_t secs = elapsed_s > 0 ? static_cast<uint64_t>(elapsed_s) : 0;
  double ipc = s.total_cycles ? static_cast<double>(s.total_insn) / static_cast<double>(s.total_cycles) : 0;
  uint64_t rate = elapsed_s > 0 ? static_cast<uint64_t>(static_cast<double>(s.total_insn) / elapsed_s) : 0;
  char buf[512];
  int n = std::snprintf(buf, sizeof buf,
                        "simtvp: cycles simulated: %" PRIu64 "  inst.: %" PRIu64 " (ipc=%4.1f) sim_rate=%" PRIu64
                        " (inst/sec) elapsed = %" PRIu64 ":%" PRIu64 ":%02" PRIu64 ":%02" PRIu64 " / ",
                        s.total_cycles, s.total_insn, ipc, rate, secs / 86400, secs / 3600 % 24, secs / 60 % 60,
                        secs % 60);
  std::string line(buf, n > 0 ? static_cast<size_t>(n) : 0);
  if (s.running) {
    line += "kernel " + std::to_string(s.kernel_index) + " " + short_name(s.kernel, 60, true);
    if (s.ctas_total) line += ", CTAs " + std::to_string(s.ctas_done) + "/" + std::to_string(s.ctas_total);
  } else {
    line += "between kernels (" + std::to_string(s.kernel_index) + " so far)";
  }
  return line;
}

progress::mode_t progress_mode_for(FILE *stream, bool quiet) {
  if (quiet) return progress::off;
  return isatty(fileno(stream)) ? progress::tty : progress::lines;
}

size_t terminal_width(FILE *stream) {
  if (const char *c = std::getenv("COLUMNS")) {
    long v = std::strtol(c, nullptr, 10);
    if (v > 20 && v < 10000) return static_cast<size_t>(v);
  }
  struct winsize ws {};
  if (ioctl(fileno(stream), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20) return ws.ws_col;
  return 80;
}

}  // namespace simtvp::report
