// Whole-kernel tests: PTX that nvcc made from tests/kernels/*.cu, run on the functional runner with
// host-computed expectations.
#include "func_test_util.h"

using namespace functest;

namespace {

TEST(FuncKernels, VectorAddMatchesHost) {
  Gpu g;
  ASSERT_EQ(g.load(read_file(kernels_dir() + "vector_add.ptx"), "vector_add.ptx"), SIMTVP_OK) << g.diag.message;
  const int n = 5000;
  std::vector<float> a(n), b(n), c(n, -1.0f);
  for (int i = 0; i < n; i++) a[i] = (float)i * 0.5f, b[i] = (float)(n - i);
  uint64_t da = g.upload(a), db = g.upload(b), dc = g.upload(c);
  ASSERT_EQ(g.launch("_Z10vector_addPKfS0_Pfi", 10, 128, {da, db, dc, (uint64_t)n}), SIMTVP_OK) << g.diag.message;
  auto out = g.download<float>(dc, n);
  for (int i = 0; i < n; i++) ASSERT_EQ(out[i], a[i] + b[i]) << i;
}

}  // namespace
