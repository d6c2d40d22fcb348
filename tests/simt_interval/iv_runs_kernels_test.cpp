// Every whole-kernel test of tests/simt/simt_kernels_test.cpp through interval cores that time
// straight runs as one step (-simt_model interval -interval_runs 1, docs/simt-interval.md §11): the
// results must be the functional engine's — a run executes its instructions in models/func like
// any other, and values never depend on timing (DESIGN.md §3).
#define AT_KERNEL_MODEL_ARGS "-simt_model", "interval", "-interval_runs", "1"
#define AT_KERNEL_SUITE SimtIntervalRunsKernels
#include "at_kernels_variant.h"

#include "simt_kernels_test.cpp"
