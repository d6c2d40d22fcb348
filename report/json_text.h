// json_text — a small JSON text builder for the report's embedded data (strings escaped as in
// stats_json: control characters as \u00XX, invalid UTF-8 as U+FFFD; non-finite numbers as null).
#ifndef SIMTVP_REPORT_JSON_TEXT_H
#define SIMTVP_REPORT_JSON_TEXT_H

#include <cstdint>
#include <string>
#include <vector>

namespace simtvp::report {

class json_text {
 public:
  json_text &begin_object();
  json_text &end_object();
  json_text &begin_array();
  json_text &end_array();
  json_text &key(const std::string &k);
  json_text &str(const std::string &s);
  json_text &num(double v);
  json_text &num(uint64_t v);
  json_text &num(int64_t v) { return num(static_cast<double>(v)); }
  json_text &num(uint32_t v) { return num(static_cast<uint64_t>(v)); }
  json_text &boolean(bool v);
  json_text &null();
  const std::string &text() const { return out_; }
  static std::string quote(const std::string &s);

 private:
  void comma();
  std::string out_;
  std::vector<bool> first_{true};
  bool after_key_ = false;
};

}  // namespace simtvp::report

#endif  // SIMTVP_REPORT_JSON_TEXT_H
