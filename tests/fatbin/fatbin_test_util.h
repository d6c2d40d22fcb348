// fatbin_test_util.h — helpers shared by the fatbin reader's tests: fixture files, RAII owners,
// PTX normalisation and the parser of recorded `ptxas -v` reports.
#ifndef SIMTVP_FATBIN_TEST_UTIL_H
#define SIMTVP_FATBIN_TEST_UTIL_H

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "fatbin.h"

namespace fatbin_test {

inline std::string source_path(const std::string &relative) {
  return std::string(SIMTVP_SOURCE_DIR) + "/" + relative;
}
inline std::string fixture(const std::string &name) {
  return source_path("tests/fatbin/fixtures/" + name);
}

// A file's bytes, kept 8-byte aligned (fatbins are read as arrays of 64-bit words by the runtime).
struct bytes {
  std::vector<uint64_t> words;
  size_t size = 0;
  const uint8_t *data() const { return reinterpret_cast<const uint8_t *>(words.data()); }
  uint8_t *data() { return reinterpret_cast<uint8_t *>(words.data()); }
  std::vector<uint8_t> vector() const { return std::vector<uint8_t>(data(), data() + size); }
};

inline bytes read_bytes(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  bytes b;
  b.size = raw.size();
  b.words.assign((raw.size() + 7) / 8 + 1, 0);
  if (!raw.empty()) std::copy(raw.begin(), raw.end(), reinterpret_cast<char *>(b.words.data()));
  return b;
}

inline std::string read_text(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

struct fatbin_deleter {
  void operator()(fatbin *f) const { fatbin_destroy(f); }
};
struct cubin_deleter {
  void operator()(fatbin_cubin *c) const { fatbin_cubin_destroy(c); }
};
struct free_deleter {
  void operator()(void *p) const { std::free(p); }
};
using fatbin_ptr = std::unique_ptr<fatbin, fatbin_deleter>;
using cubin_ptr = std::unique_ptr<fatbin_cubin, cubin_deleter>;

// PTX as a list of lines with comments removed and white space collapsed, one element per source
// line: nvcc stores PTX in a fatbin that way (comments blanked, indentation dropped, line numbers
// kept), so a fatbin's PTX and `nvcc -ptx` output compare equal line by line after this.
inline std::vector<std::string> normalized_ptx_lines(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    size_t comment = line.find("//");
    if (comment != std::string::npos) line.resize(comment);
    std::istringstream words(line);
    std::string word, out;
    while (words >> word) out += (out.empty() ? "" : " ") + word;
    lines.push_back(out);
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

// What `ptxas -v` reported for one entry function.
struct ptxas_kernel {
  int registers = -1;
  int barriers = 0;
  int shared_bytes = 0;
  int frame_bytes = -1;
  int cumulative_stack_bytes = 0;  // 0 when ptxas prints none
};

// Number before `suffix` in `line` ("Used 12 registers" -> 12), or -1.
inline int number_before(const std::string &line, const std::string &suffix) {
  size_t at = line.find(suffix);
  if (at == std::string::npos || at == 0) return -1;
  size_t start = line.rfind(' ', at - 2);
  start = start == std::string::npos ? 0 : start + 1;
  return std::atoi(line.substr(start, at - start).c_str());
}

// Parses a recorded ptxas -v report: entry functions by mangled name.
inline std::map<std::string, ptxas_kernel> parse_ptxas_report(const std::string &path) {
  std::map<std::string, ptxas_kernel> kernels;
  std::map<std::string, int> frames;
  std::istringstream in(read_text(path));
  std::string line, current, properties_of;
  while (std::getline(in, line)) {
    const std::string compiling = "Compiling entry function '", properties = "Function properties for ";
    size_t at;
    if ((at = line.find(compiling)) != std::string::npos) {
      size_t start = at + compiling.size();
      current = line.substr(start, line.find('\'', start) - start);
      kernels[current];
    } else if ((at = line.find(properties)) != std::string::npos) {
      properties_of = line.substr(at + properties.size());
    } else if (line.find("bytes stack frame") != std::string::npos && !properties_of.empty()) {
      frames[properties_of] = number_before(line, " bytes stack frame");
      properties_of.clear();
    } else if (line.find(": Used ") != std::string::npos && !current.empty()) {
      ptxas_kernel &k = kernels[current];
      k.registers = number_before(line, " registers");
      k.barriers = number_before(line, " barriers");
      int smem = number_before(line, " bytes smem");
      k.shared_bytes = smem < 0 ? 0 : smem;
      int stack = number_before(line, " bytes cumulative stack size");
      k.cumulative_stack_bytes = stack < 0 ? 0 : stack;
    }
  }
  for (auto &entry : kernels) {
    auto frame = frames.find(entry.first);
    if (frame != frames.end()) entry.second.frame_bytes = frame->second;
  }
  return kernels;
}

}  // namespace fatbin_test

#endif  // SIMTVP_FATBIN_TEST_UTIL_H
