// cudart_test_util.cc — see cudart_test_util.h.
#include "cudart_test_util.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

namespace cudart_test {

namespace {
// The tests' environment, set before any test runs (nothing opens the platform at load time).
struct Environment {
  Environment() {
    setenv("SIMTVP_CONFIG", SIMTVP_SOURCE_DIR "/configs/SM75_RTX2060.config", 0);
    setenv("SIMTVP_QUIET", "1", 0);
  }
} environment;
}  // namespace

std::string fixture_path(const std::string &name) { return SIMTVP_SOURCE_DIR "/tests/cudart/fixtures/" + name; }

Registration::Registration(const std::string &fixture, const std::vector<const char *> &kernels,
                           const std::vector<Var> &vars, const std::vector<Var> &managed) {
  std::ifstream in(fixture_path(fixture), std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.empty()) {
    std::fprintf(stderr, "cannot read fixture %s\n", fixture.c_str());
    std::abort();
  }
  words_.resize((bytes.size() + 7) / 8);
  std::memcpy(words_.data(), bytes.data(), bytes.size());
  wrapper_ = Wrapper{0x466243B1, 1, words_.data(), nullptr};
  handle_ = __cudaRegisterFatBinary(&wrapper_);
  stubs_.resize(kernels.size() + 1);
  for (size_t i = 0; i < kernels.size(); i++) {
    kernel_index_[kernels[i]] = i;
    __cudaRegisterFunction(handle_, &stubs_[i], const_cast<char *>(kernels[i]), kernels[i], -1, nullptr, nullptr,
                           nullptr, nullptr, nullptr);
  }
  for (const Var &v : vars) {
    shadows_[v.name].resize(v.size);
    __cudaRegisterVar(handle_, shadows_[v.name].data(), const_cast<char *>(v.name), v.name, 0, v.size, v.constant, 0);
  }
  for (const Var &v : managed) {
    managed_ptrs_[v.name] = nullptr;
    __cudaRegisterManagedVar(handle_, &managed_ptrs_[v.name], const_cast<char *>(v.name), v.name, 0, v.size, 0, 0);
  }
  __cudaRegisterFatBinaryEnd(handle_);
}

const void *Registration::kernel(const char *name) const {
  auto it = kernel_index_.find(name);
  return it == kernel_index_.end() ? nullptr : &stubs_[it->second];
}

const void *Registration::var(const char *name) const {
  auto it = shadows_.find(name);
  if (it != shadows_.end()) return it->second.data();
  auto m = managed_ptrs_.find(name);
  return m == managed_ptrs_.end() ? nullptr : &m->second;
}

void **Registration::managed_ptr(const char *name) { return &managed_ptrs_[name]; }

Registration &kernels() {
  static Registration *r = new Registration(
      "cudart_test_kernels.fatbin",
      {"add_one", "use_symbols", "bump_managed", "many_params", "fault", "trap_kernel", "assert_kernel", "big_static_smem",
       "dyn_reverse", "bounded64", "tex_linear", "tex_2d", "surf_write", "busy"},
      {{"dev_counter", 4, 0}, {"const_table", 64, 1}, {"init_table", 16, 0}}, {{"managed_value", 4, 0}});
  return *r;
}

}  // namespace cudart_test
