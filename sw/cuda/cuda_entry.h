// cuda_entry.h — what cuda_entry.cc (cuGetProcAddress), cuda_private_tables.cc (cuGetExportTable)
// and cuda_api.cc share inside libcuda.so.1 (docs/cudart.md "The static runtime").
#ifndef SIMTVP_CUDA_ENTRY_H
#define SIMTVP_CUDA_ENTRY_H

#include "cuda_api.h"

namespace cuentry {

// What cuDriverGetVersion reports: the CUDA version whose driver API libcuda.so.1 follows.
constexpr int kDriverVersion = 13000;

// SIMTVP_CUDA_TRACE_ENTRY: print every cuGetProcAddress / cuGetExportTable request and every call
// of a private table's function.
bool trace_enabled();

// Context-local storage of the private tables: runs the destructor callbacks the runtime
// registered for ctx (NULL: every context) and forgets its entries. Called before a context goes
// away (cuCtxDestroy, cuDevicePrimaryCtxReset), outside the core's lock.
void context_storage_release(CUcontext ctx);

}  // namespace cuentry

#endif  // SIMTVP_CUDA_ENTRY_H
