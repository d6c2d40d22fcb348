// Every whole-kernel test of tests/simt/simt_kernels_test.cpp on a GPU whose SMs 0 and 2 are
// cycle-accurate and SMs 1 and 3 approximately timed (-simt_model at -simt_model_override
// "0:ca,2:ca"): CTAs of one launch run on both models side by side and the results are still the
// functional engine's.
#define AT_KERNEL_MODEL_ARGS "-simt_model", "at", "-simt_model_override", "0:ca,2:ca"
#define AT_KERNEL_SUITE SimtMixKernels
#include "at_kernels_variant.h"

#include "simt_kernels_test.cpp"
