// message_fold — keeps long error dumps short. A barrier deadlock is reported CTA by CTA: a
// headline ("SIMT core 3: kernel K CTA (3,0,0): barrier deadlock at cycle C: …; warps:") and one
// line per warp. When every CTA of a kernel deadlocks the same way (its warps wait at the same
// barriers and instructions), the first CTA's dump is shown in full and the others become one
// line: "… and 39 more CTAs of K deadlocked the same way (SIMT cores 1-39, CTAs (1,0,0) ..
// (39,0,0))". Any other message is passed through; a line identical to the one before it is
// counted instead of repeated.
#ifndef SIMTVP_REPORT_MESSAGE_FOLD_H
#define SIMTVP_REPORT_MESSAGE_FOLD_H

#include <cstdint>
#include <string>
#include <vector>

namespace simtvp::report {

class message_fold {
 public:
  // The lines to print now, for one more error line (possibly none while a dump is being folded,
  // possibly a summary of what was folded before it).
  std::vector<std::string> feed(const std::string &line);
  // Whatever is folded and not yet said (call before other output and at the end).
  std::vector<std::string> flush();

 private:
  struct cta {
    std::string core, id;  // "3", "(3,0,0)"
  };
  void end_block(std::vector<std::string> &out);
  void summary(std::vector<std::string> &out);

  // The deadlock dump being read: its headline's kernel, the warps' barrier/pc signature.
  bool in_block_ = false;
  std::string block_kernel_, block_signature_, block_headline_;
  cta block_cta_;
  std::vector<std::string> block_lines_;
  // The last dump shown in full, and the CTAs folded into it since.
  std::string shown_kernel_, shown_signature_;
  std::vector<cta> folded_;
  // Plain repeats.
  std::string last_;
  uint64_t repeats_ = 0;
};

}  // namespace simtvp::report

#endif  // SIMTVP_REPORT_MESSAGE_FOLD_H
