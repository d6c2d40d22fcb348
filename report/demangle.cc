// demangle — see demangle.h.
#include "demangle.h"

#include <cxxabi.h>

#include <cstdlib>

namespace simtvp::report {

namespace {

const char kEllipsis[] = "\xe2\x80\xa6";  // U+2026

// Index of the bracket that closes the one at `open` (same kind), or npos.
std::size_t matching(const std::string &s, std::size_t open) {
  char o = s[open], c = o == '(' ? ')' : '>';
  int depth = 0;
  for (std::size_t i = open; i < s.size(); i++) {
    if (s[i] == o) depth++;
    if (s[i] == c && --depth == 0) return i;
  }
  return std::string::npos;
}

// Template argument lists nested deeper than one level become "<…>".
std::string fold_templates(const std::string &s) {
  std::string out;
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); i++) {
    char c = s[i];
    // "operator<" and "operator<<" are names, not brackets.
    if ((c == '<' || c == '>') && out.size() >= 8 && out.compare(out.size() - 8, 8, "operator") == 0) {
      out += c;
      continue;
    }
    if (c == '<') {
      if (depth == 1) out += std::string("<") + kEllipsis;
      else if (depth == 0) out += c;
      depth++;
    } else if (c == '>' && depth > 0) {
      depth--;
      if (depth <= 1) out += c;
    } else if (depth <= 1) {
      out += c;
    }
  }
  return out;
}

// Cuts UTF-8 text to max characters, the last being "…" when something was cut.
std::string cut(const std::string &s, std::size_t max) {
  if (display_width(s) <= max) return s;
  if (max == 0) return "";
  std::string out;
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.size() && n + 1 < max; i++) {
    out += s[i];
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) n++;
    // keep whole UTF-8 sequences
    while (i + 1 < s.size() && (static_cast<unsigned char>(s[i + 1]) & 0xC0) == 0x80) out += s[++i];
  }
  return out + kEllipsis;
}

}  // namespace

std::size_t display_width(const std::string &text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;
  return n;
}

std::string demangle(const std::string &name) {
  if (name.size() < 3 || name.compare(0, 2, "_Z") != 0) return name;
  int status = 0;
  char *d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) {
    std::free(d);
    return name;
  }
  std::string out(d);
  std::free(d);
  return out;
}

std::string short_name(const std::string &demangled, std::size_t max_chars, bool drop_params) {
  std::string s = fold_templates(demangled);
  // The parameter list: the last top-level "(...)" (a function's; "(anonymous namespace)" comes
  // before the name and is followed by "::").
  std::size_t open = std::string::npos;
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); i++) {
    if (s[i] == '<') depth++;
    if (s[i] == '>' && depth > 0) depth--;
    if (s[i] == '(' && depth == 0) {
      std::size_t close = matching(s, i);
      if (close == std::string::npos) break;
      if (s.compare(close + 1, 2, "::") != 0) open = i;
      i = close;
    }
  }
  if (open != std::string::npos) {
    std::size_t close = matching(s, open);
    std::string head = s.substr(0, open), tail = s.substr(close + 1);  // tail: " const" etc.
    if (drop_params) return cut(head, max_chars);
    if (display_width(s) > max_chars) {
      std::string params = s.substr(open, close + 1 - open);
      s = head + (params == "()" ? "()" : std::string("(") + kEllipsis + ")") + tail;
    }
  }
  return cut(s, max_chars);
}

}  // namespace simtvp::report
