// libsimtvp-gpu.so — the GPU module for SoC integrators as a shared library (target simtvp_gpu,
// exported as simtvp::gpu; tlm/gpu/CMakeLists.txt). The code comes whole from the static
// libraries (gpu_top, the TLM common parts, statistics, diagnostics) and, as they need it, the
// model cores; libsimtvp-gpu.map exports namespace simtvp and the C sink and diagnostics.
#include "simtvp_version.h"

// The version this library was built as, for `strings` and debuggers.
extern "C" const char simtvp_gpu_library_version[] = "libsimtvp-gpu " SIMTVP_VERSION_STRING;
