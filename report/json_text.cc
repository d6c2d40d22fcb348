// json_text — see json_text.h.
#include "json_text.h"

#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "stats_json.h"

namespace simtvp::report {

namespace {

// Whether s goes out as it is between quotes: printable ASCII other than the quote and the
// backslash (stats_json's rule; anything else takes the escaping path).
bool plain(const std::string &s) {
  for (unsigned char c : s)
    if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') return false;
  return true;
}

// s quoted onto out: names and labels are plain, so the escaper runs only for the rest.
void append_quoted(std::string &out, const std::string &s) {
  if (!plain(s)) {
    out += json_text::quote(s);
    return;
  }
  out += '"';
  out += s;
  out += '"';
}

// The decimal digits of v onto out (std::to_string's, without a temporary string).
template <typename T>
void append_integer(std::string &out, T v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

}  // namespace

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
  append_quoted(out_, k);
  out_ += ':';
  after_key_ = true;
  return *this;
}
json_text &json_text::str(const std::string &s) {
  comma();
  append_quoted(out_, s);
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
      append_integer(out_, static_cast<int64_t>(v));
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
  append_integer(out_, v);
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
  if (plain(s)) return '"' + s + '"';
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
