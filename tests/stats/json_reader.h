// json_reader — a strict RFC 8259 parser for tests: reads back what simtvp writes so a test can
// check both that the document is valid JSON and what it says. Not for production use (recursive,
// keeps the whole document in memory).
#ifndef SIMTVP_TESTS_JSON_READER_H
#define SIMTVP_TESTS_JSON_READER_H

#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace json_reader {

struct Value {
  enum Kind { Null, Bool, Number, String, Array, Object } kind = Null;
  bool boolean = false;
  double number = 0;
  std::string text;    // String; for Number, the literal as written
  std::vector<Value> items;                           // Array
  std::vector<std::pair<std::string, Value>> members; // Object, in document order

  bool has(const std::string &key) const {
    for (const auto &m : members)
      if (m.first == key) return true;
    return false;
  }
  const Value &operator[](const std::string &key) const {
    for (const auto &m : members)
      if (m.first == key) return m.second;
    throw std::runtime_error("no member " + key);
  }
  const Value &operator[](size_t i) const { return items.at(i); }
  size_t size() const { return kind == Array ? items.size() : members.size(); }
  uint64_t u64() const { return std::strtoull(text.c_str(), nullptr, 10); }
};

class Parser {
 public:
  explicit Parser(const std::string &s) : s_(s) {}

  Value parse() {
    Value v = value();
    ws();
    if (i_ != s_.size()) fail("trailing characters");
    return v;
  }

 private:
  const std::string &s_;
  size_t i_ = 0;

  [[noreturn]] void fail(const std::string &what) {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(i_));
  }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) i_++;
  }
  char peek() { return i_ < s_.size() ? s_[i_] : '\0'; }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    i_++;
  }
  void literal(const char *word) {
    for (const char *p = word; *p; p++) expect(*p);
  }

  Value value() {
    ws();
    Value v;
    char c = peek();
    if (c == '{') {
      v.kind = Value::Object;
      i_++;
      ws();
      if (peek() == '}') {
        i_++;
        return v;
      }
      for (;;) {
        ws();
        std::string key = string();
        for (const auto &m : v.members)
          if (m.first == key) fail("duplicate key " + key);
        ws();
        expect(':');
        v.members.emplace_back(key, value());
        ws();
        if (peek() == ',') {
          i_++;
          continue;
        }
        expect('}');
        return v;
      }
    }
    if (c == '[') {
      v.kind = Value::Array;
      i_++;
      ws();
      if (peek() == ']') {
        i_++;
        return v;
      }
      for (;;) {
        v.items.push_back(value());
        ws();
        if (peek() == ',') {
          i_++;
          continue;
        }
        expect(']');
        return v;
      }
    }
    if (c == '"') {
      v.kind = Value::String;
      v.text = string();
      return v;
    }
    if (c == 't') {
      literal("true");
      v.kind = Value::Bool;
      v.boolean = true;
      return v;
    }
    if (c == 'f') {
      literal("false");
      v.kind = Value::Bool;
      return v;
    }
    if (c == 'n') {
      literal("null");
      return v;
    }
    return number();
  }

  Value number() {
    size_t start = i_;
    if (peek() == '-') i_++;
    if (peek() == '0') {
      i_++;
    } else if (peek() >= '1' && peek() <= '9') {
      while (peek() >= '0' && peek() <= '9') i_++;
    } else {
      fail("bad value");
    }
    if (peek() == '.') {
      i_++;
      if (!(peek() >= '0' && peek() <= '9')) fail("bad fraction");
      while (peek() >= '0' && peek() <= '9') i_++;
    }
    if (peek() == 'e' || peek() == 'E') {
      i_++;
      if (peek() == '+' || peek() == '-') i_++;
      if (!(peek() >= '0' && peek() <= '9')) fail("bad exponent");
      while (peek() >= '0' && peek() <= '9') i_++;
    }
    Value v;
    v.kind = Value::Number;
    v.text = s_.substr(start, i_ - start);
    v.number = std::strtod(v.text.c_str(), nullptr);
    return v;
  }

  static void put_utf8(std::string &out, uint32_t cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }

  uint32_t hex4() {
    uint32_t v = 0;
    for (int k = 0; k < 4; k++) {
      char c = peek();
      i_++;
      v <<= 4;
      if (c >= '0' && c <= '9') v |= uint32_t(c - '0');
      else if (c >= 'a' && c <= 'f') v |= uint32_t(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= uint32_t(c - 'A' + 10);
      else fail("bad \\u escape");
    }
    return v;
  }

  std::string string() {
    expect('"');
    std::string out;
    for (;;) {
      if (i_ >= s_.size()) fail("unterminated string");
      unsigned char c = (unsigned char)s_[i_++];
      if (c == '"') return out;
      if (c < 0x20) fail("control character in string");
      if (c != '\\') {
        out += char(c);
        continue;
      }
      char e = peek();
      i_++;
      switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'u': put_utf8(out, hex4()); break;
      default: fail("bad escape");
      }
    }
  }
};

inline Value parse(const std::string &text) { return Parser(text).parse(); }

}  // namespace json_reader

#endif  // SIMTVP_TESTS_JSON_READER_H
