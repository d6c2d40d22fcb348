// Every whole-kernel test of tests/simt/simt_kernels_test.cpp through interval cores that time a
// CTA's warps as one group (-simt_model interval -interval_runs 1 -interval_fold 1,
// docs/simt-interval.md §13): the results must be the functional engine's — every warp of a group
// executes its own instructions in models/func, and values never depend on timing (DESIGN.md §3).
#define AT_KERNEL_MODEL_ARGS "-simt_model", "interval", "-interval_runs", "1", "-interval_fold", "1"
#define AT_KERNEL_SUITE SimtIntervalFoldKernels
#include "at_kernels_variant.h"

#include "simt_kernels_test.cpp"
