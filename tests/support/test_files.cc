// test_files — see test_files.h.
#include "test_files.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace test_support {

std::string read_file(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string source_path(const std::string &rel) { return std::string(SIMTVP_SOURCE_DIR) + "/" + rel; }

std::string kernel_ptx(const std::string &name) { return read_file(source_path("tests/kernels/ptx/" + name)); }

std::string scratch_dir(const std::string &folder, const std::string &name, bool create) {
  std::string d = std::string(SIMTVP_BINARY_DIR) + "/" + folder + "/scratch-" + name + "-" + std::to_string(getpid());
  std::string cmd = "rm -rf '" + d + "'" + (create ? " && mkdir -p '" + d + "'" : std::string());
  if (std::system(cmd.c_str()) != 0) return "";
  return d;
}

}  // namespace test_support
