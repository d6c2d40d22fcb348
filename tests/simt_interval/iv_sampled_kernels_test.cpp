// Every whole-kernel test of tests/simt/simt_kernels_test.cpp through sampled interval cores
// (-simt_model interval -at_sample 512,1024: every other 512 cycles of a warp's timeline
// fast-forward once its core measured its kernel): the results must be the functional engine's —
// values never depend on timing (DESIGN.md §3), fast-forwarded instructions execute like any other.
#define AT_KERNEL_MODEL_ARGS "-simt_model", "interval", "-at_sample", "512,1024"
#define AT_KERNEL_SUITE SimtIntervalSampledKernels
#include "at_kernels_variant.h"

#include "simt_kernels_test.cpp"
