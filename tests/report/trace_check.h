// trace_check — validates a Chrome trace-event file (the JSON object form) against the
// trace-event format as Chrome's and Perfetto's importers read it ("Trace Event Format", Google):
// a top-level object with a "traceEvents" array; every event an object with a known phase "ph";
// "name", "pid", "tid" and a non-negative "ts" (µs) where the phase needs them; complete events
// ("X") with a non-negative "dur"; instant events ("i") with a scope "s" of g, p or t; counter
// events ("C") with numeric args; metadata ("M") of the five known names with their argument; and
// complete events of one thread that nest or follow each other, never overlap partly (Chrome
// draws such slices wrongly). Returns "" when valid, else what is wrong.
#ifndef SIMTVP_TESTS_TRACE_CHECK_H
#define SIMTVP_TESTS_TRACE_CHECK_H

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "json_reader.h"

namespace trace_check {

using json_reader::Value;

inline std::string check(const Value &doc) {
  if (doc.kind != Value::Object) return "the document is not an object";
  if (!doc.has("traceEvents") || doc["traceEvents"].kind != Value::Array) return "no traceEvents array";
  if (doc.has("displayTimeUnit")) {
    const Value &u = doc["displayTimeUnit"];
    if (u.kind != Value::String || (u.text != "ms" && u.text != "ns")) return "displayTimeUnit is not ms or ns";
  }
  static const std::set<std::string> phases = {"B", "E", "X", "i", "I", "C", "M", "b", "e", "n", "s",
                                               "t", "f", "P", "O", "N", "D", "R", "c"};
  static const std::set<std::string> meta = {"process_name", "process_labels", "process_sort_index", "thread_name",
                                             "thread_sort_index"};
  std::map<std::pair<double, double>, std::vector<std::pair<double, double>>> slices;  // (pid, tid) -> [ts, end)
  const Value &ev = doc["traceEvents"];
  for (size_t i = 0; i < ev.size(); i++) {
    const Value &e = ev[i];
    std::string at = "event " + std::to_string(i) + ": ";
    if (e.kind != Value::Object) return at + "not an object";
    if (!e.has("ph") || e["ph"].kind != Value::String || !phases.count(e["ph"].text)) return at + "no known ph";
    const std::string ph = e["ph"].text;
    for (const char *k : {"pid", "tid"})
      if (!e.has(k) || e[k].kind != Value::Number) return at + "no numeric " + k;
    if (!e.has("name") || e["name"].kind != Value::String) return at + "no name";
    if (ph == "M") {
      if (!meta.count(e["name"].text)) return at + "unknown metadata " + e["name"].text;
      if (!e.has("args") || e["args"].kind != Value::Object) return at + "metadata without args";
      bool sort = e["name"].text.find("sort_index") != std::string::npos;
      const char *key = sort ? "sort_index" : "name";
      if (!e["args"].has(key) || e["args"][key].kind != (sort ? Value::Number : Value::String))
        return at + "metadata without args." + key;
      continue;
    }
    if (!e.has("ts") || e["ts"].kind != Value::Number || e["ts"].number < 0) return at + "no ts >= 0";
    if (e.has("args") && e["args"].kind != Value::Object) return at + "args is not an object";
    if (ph == "X") {
      if (!e.has("dur") || e["dur"].kind != Value::Number || e["dur"].number < 0) return at + "X without dur >= 0";
      slices[{e["pid"].number, e["tid"].number}].push_back({e["ts"].number, e["ts"].number + e["dur"].number});
    } else if (ph == "i" || ph == "I") {
      if (e.has("s") && (e["s"].kind != Value::String || (e["s"].text != "g" && e["s"].text != "p" && e["s"].text != "t")))
        return at + "instant scope is not g, p or t";
    } else if (ph == "C") {
      if (!e.has("args") || e["args"].size() == 0) return at + "counter without args";
      for (const auto &m : e["args"].members)
        if (m.second.kind != Value::Number) return at + "counter arg " + m.first + " is not a number";
    }
  }
  for (auto &t : slices) {
    std::vector<std::pair<double, double>> v = t.second;
    std::sort(v.begin(), v.end(), [](const std::pair<double, double> &a, const std::pair<double, double> &b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    std::vector<double> open;  // ends of the enclosing slices
    for (auto &s : v) {
      while (!open.empty() && open.back() <= s.first + 1e-9) open.pop_back();
      if (!open.empty() && s.second > open.back() + 1e-9)
        return "slices overlap partly on pid " + std::to_string(t.first.first) + " tid " + std::to_string(t.first.second);
      open.push_back(s.second);
    }
  }
  return "";
}

}  // namespace trace_check

#endif  // SIMTVP_TESTS_TRACE_CHECK_H
