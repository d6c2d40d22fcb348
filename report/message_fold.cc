// message_fold — see message_fold.h.
#include "message_fold.h"

#include <cstring>

namespace simtvp::report {

namespace {

// "SIMT core 3: kernel K CTA (3,0,0): barrier deadlock at cycle …" -> core, kernel, CTA.
bool parse_headline(const std::string &l, std::string *core, std::string *kernel, std::string *id) {
  static const char kCore[] = "SIMT core ", kKernel[] = ": kernel ", kCta[] = " CTA (", kWhat[] = "): barrier deadlock";
  if (l.compare(0, sizeof kCore - 1, kCore) != 0) return false;
  size_t k = l.find(kKernel), c = l.find(kCta), w = l.find(kWhat);
  if (k == std::string::npos || c == std::string::npos || w == std::string::npos || !(k < c && c < w)) return false;
  *core = l.substr(sizeof kCore - 1, k - (sizeof kCore - 1));
  *kernel = l.substr(k + sizeof kKernel - 1, c - k - (sizeof kKernel - 1));
  *id = l.substr(c + sizeof kCta - 2, w - c - (sizeof kCta - 2) + 1);  // "(3,0,0)"
  return true;
}

// What identifies how a warp is stuck: "barrier N (pc M" of a warp line (else the whole line).
std::string warp_signature(const std::string &l) {
  size_t b = l.find("barrier ");
  if (b == std::string::npos) return l;
  size_t e = l.find(')', b);
  return l.substr(b, e == std::string::npos ? std::string::npos : e - b);
}

}  // namespace

void message_fold::summary(std::vector<std::string> &out) {
  if (folded_.empty()) return;
  std::string cores = folded_.front().core, ids = folded_.front().id;
  if (folded_.size() > 1) {
    cores += "-" + folded_.back().core;  // in report order; a range reads well for the usual spread
    ids += " .. " + folded_.back().id;
  }
  out.push_back("... and " + std::to_string(folded_.size()) + " more CTA" + (folded_.size() == 1 ? "" : "s") + " of " +
                shown_kernel_ + " deadlocked the same way (SIMT core" + (folded_.size() == 1 ? " " : "s ") + cores +
                ", CTA" + (folded_.size() == 1 ? " " : "s ") + ids + ")");
  folded_.clear();
}

void message_fold::end_block(std::vector<std::string> &out) {
  if (!in_block_) return;
  in_block_ = false;
  if (block_kernel_ == shown_kernel_ && block_signature_ == shown_signature_) {
    folded_.push_back(block_cta_);
    return;
  }
  summary(out);
  out.push_back(block_headline_);
  out.insert(out.end(), block_lines_.begin(), block_lines_.end());
  shown_kernel_ = block_kernel_;
  shown_signature_ = block_signature_;
}

std::vector<std::string> message_fold::feed(const std::string &line) {
  std::vector<std::string> out;
  std::string core, kernel, id;
  if (in_block_ && line.compare(0, 7, "  warp ") == 0) {
    block_lines_.push_back(line);
    block_signature_ += warp_signature(line) + "|";
    return out;
  }
  end_block(out);
  if (parse_headline(line, &core, &kernel, &id)) {
    in_block_ = true;
    block_kernel_ = kernel;
    block_cta_ = cta{core, id};
    block_headline_ = line;
    block_signature_.clear();
    block_lines_.clear();
    last_.clear();
    return out;
  }
  summary(out);
  shown_kernel_.clear();
  shown_signature_.clear();
  if (line == last_) {
    repeats_++;
    return out;
  }
  if (repeats_) out.push_back("(the message above " + std::to_string(repeats_) + " more time" + (repeats_ == 1 ? "" : "s") + ")");
  repeats_ = 0;
  last_ = line;
  out.push_back(line);
  return out;
}

std::vector<std::string> message_fold::flush() {
  std::vector<std::string> out;
  end_block(out);
  summary(out);
  if (repeats_) out.push_back("(the message above " + std::to_string(repeats_) + " more time" + (repeats_ == 1 ? "" : "s") + ")");
  repeats_ = 0;
  last_.clear();
  shown_kernel_.clear();
  shown_signature_.clear();
  return out;
}

}  // namespace simtvp::report
