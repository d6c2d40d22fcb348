// Whole-kernel tests on the functional runner: every check of tests/support/kernel_checks (the
// tests/kernels programs with the launch configurations of the programs, expectations computed on
// the host as the programs themselves compute them), as suite FuncKernels.
#include "func_test_util.h"
#include "kernel_checks.h"

namespace {

// functest::Gpu (a func_runner with captured printf output) as a kernel_checks device.
class func_device : public kernel_checks::device {
 public:
  explicit func_device(uint32_t stack_bytes) : g_(engine(stack_bytes)) {}
  simtvp_status load(const std::string &ptx, const char *name) override { return g_.load(ptx, name); }
  simtvp_status alloc(uint64_t bytes, uint64_t *addr) override {
    return func_runner_alloc(g_.r, bytes, addr, &g_.diag);
  }
  simtvp_status write(uint64_t addr, const void *src, uint64_t bytes) override {
    return func_runner_write(g_.r, addr, src, bytes, &g_.diag);
  }
  simtvp_status read(uint64_t addr, void *dst, uint64_t bytes) override {
    return func_runner_read(g_.r, addr, dst, bytes, &g_.diag);
  }
  simtvp_status launch(const char *kernel, const uint32_t grid[3], const uint32_t block[3], uint32_t smem,
                       const void **args) override {
    simtvp_diag_clear(&g_.diag);
    return func_runner_launch(g_.r, kernel, grid, block, smem, args, &g_.diag);
  }
  bool symbol(const char *name, uint64_t *addr, uint64_t *bytes) override {
    return func_runner_symbol(g_.r, name, addr, bytes);
  }
  std::string printed() const override { return g_.printed; }
  const simtvp_diag &diag() const override { return g_.diag; }

 private:
  static func_config engine(uint32_t stack_bytes) {
    func_config c{};
    c.stack_bytes = stack_bytes;
    return c;
  }
  functest::Gpu g_;
};

const bool registered = (kernel_checks::register_all(
                             "FuncKernels",
                             [](uint32_t stack_bytes) -> std::unique_ptr<kernel_checks::device> {
                               return std::make_unique<func_device>(stack_bytes);
                             },
                             __FILE__, __LINE__),
                         true);

}  // namespace
