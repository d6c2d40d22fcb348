// Every whole-kernel test of tests/simt/simt_kernels_test.cpp through interval cores
// (-simt_model interval, QV100-class): the results must be the functional engine's, as through
// CA and AT cores — values never depend on timing (DESIGN.md §3).
#define AT_KERNEL_MODEL_ARGS "-simt_model", "interval"
#define AT_KERNEL_SUITE SimtIntervalKernels
#include "at_kernels_variant.h"

#include "simt_kernels_test.cpp"
