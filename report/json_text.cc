// json_text — see json_text.h.
#include "json_text.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "stats_json.h"

namespace simtvp::report {

void json_text::comma() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.back()) out_ += ',';
  first_.back() = false;
}

json_text &json_text::begin_object() {
  comma();
  out_ += '{';
  first_.push_back(true);
  return *this;
}
json_text &json_text::end_object() {
  out_ += '}';
  if (first_.size() > 1) first_.pop_back();
  return *this;
}
json_text &json_text::begin_array() {
  comma();
  out_ += '[';
  first_.push_back(true);
  return *this;
}
json_text &json_text::end_array() {
  out_ += ']';
  if (first_.size() > 1) first_.pop_back();
  return *this;
}
json_text &json_text::key(const std::string &k) {
  comma();
  out_ += quote(k);
  out_ += ':';
  after_key_ = true;
  return *this;
}
json_text &json_text::str(const std::string &s) {
  comma();
  out_ += quote(s);
  return *this;
}
json_text &json_text::num(double v) {
  comma();
  if (!std::isfinite(v)) {
    out_ += "null";
    return *this;
  }
  if (v == std::floor(v) && std::fabs(v) < 9e15) {
    // An integral value (most of a report's numbers): its digits as "%.0f" would print them,
    // without printf's cost (-0 keeps its sign as "%.0f" does).
    if (v == 0 && std::signbit(v)) {
      out_ += "-0";
    } else {
      const int64_t i = static_cast<int64_t>(v);
      out_ += std::to_string(i);
    }
    return *this;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  stats_json_c_decimal_point(buf);
  out_ += buf;
  return *this;
}
json_text &json_text::num(uint64_t v) {
  comma();
  out_ += std::to_string(v);
  return *this;
}
json_text &json_text::boolean(bool v) {
  comma();
  out_ += v ? "true" : "false";
  return *this;
}
json_text &json_text::null() {
  comma();
  out_ += "null";
  return *this;
}

std::string json_text::quote(const std::string &s) {
  char *buf = nullptr;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return "\"\"";
  stats_json_write_escaped(f, s.c_str());
  std::fclose(f);
  std::string r(buf, len);
  std::free(buf);
  return r;
}

}  // namespace simtvp::report
