// Every whole-kernel test of tests/simt/simt_kernels_test.cpp through approximately-timed cores
// (-simt_model at, QV100-class, LDST unit, 100-cycle memory): the results must be the functional
// engine's, as through CA cores — values never depend on timing (DESIGN.md §3).
#define AT_KERNEL_MODEL_ARGS "-simt_model", "at"
#define AT_KERNEL_SUITE SimtAtKernels
#include "at_kernels_variant.h"

#include "simt_kernels_test.cpp"
