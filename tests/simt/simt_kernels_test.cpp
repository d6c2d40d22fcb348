// Every whole-kernel check of tests/support/kernel_checks (the functional tests' expectations: host
// computations of the programs in tests/kernels) run through cycle-accurate SIMT cores
// (QV100-class configuration, LDST unit, fixed-latency memory): the results must be the functional
// engine's, since values never depend on timing (DESIGN.md §3).
//
// tests/simt_at compiles this file again behind at_kernels_variant.h, which gives simttest::Gpu
// other model options and renames the suite token SimtCaKernels: the same checks through AT cores
// and a CA/AT mix.
#include "kernel_checks.h"
#include "simt_test_util.h"

namespace {

#define SIMT_KERNELS_SUITE_NAME(suite) SIMT_KERNELS_SUITE_NAME_(suite)
#define SIMT_KERNELS_SUITE_NAME_(suite) #suite

// The QV100-class core (configs/SM7_QV100.config) on 4 clusters, with the LDST unit of
// models/simt/ldst and a 100-cycle memory behind the clusters.
class simt_device : public kernel_checks::device {
 public:
  explicit simt_device(uint32_t stack_bytes)
      : g_("configs/SM7_QV100.config", {"-gpgpu_n_clusters", "4"}, SH_LDST_REAL, 100, 20, stack_bytes) {}
  simtvp_status load(const std::string &ptx, const char *name) override { return g_.load(ptx, name); }
  simtvp_status alloc(uint64_t bytes, uint64_t *addr) override {
    *addr = g_.alloc(bytes);
    return *addr ? SIMTVP_OK : SIMTVP_ERR_NOMEM;
  }
  simtvp_status write(uint64_t addr, const void *src, uint64_t bytes) override {
    return sh_write(g_.h, addr, src, bytes, &g_.diag);
  }
  simtvp_status read(uint64_t addr, void *dst, uint64_t bytes) override {
    return sh_read(g_.h, addr, dst, bytes, &g_.diag);
  }
  simtvp_status launch(const char *kernel, const uint32_t grid[3], const uint32_t block[3], uint32_t smem,
                       const void **args) override {
    return sh_launch(g_.h, kernel, grid, block, smem, args, &g_.diag);
  }
  bool symbol(const char *name, uint64_t *addr, uint64_t *bytes) override { return sh_symbol(g_.h, name, addr, bytes); }
  std::string printed() const override { return g_.printed(); }
  const simtvp_diag &diag() const override { return g_.diag; }

 private:
  simttest::Gpu g_;
};

const bool registered = (kernel_checks::register_all(
                             SIMT_KERNELS_SUITE_NAME(SimtCaKernels),
                             [](uint32_t stack_bytes) -> std::unique_ptr<kernel_checks::device> {
                               return std::make_unique<simt_device>(stack_bytes);
                             },
                             __FILE__, __LINE__),
                         true);

}  // namespace
