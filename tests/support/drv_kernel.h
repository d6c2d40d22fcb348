// drv_kernel — kernel runs through sw/driver as the tests and benchmarks do them: load PTX, find
// the kernel, pack its arguments (drv_function_pack_params), launch, synchronise; and device
// buffers filled from host vectors. Works on any drv (the C harness, a SystemC testbench, the
// platform inside simtvp_host_call); the program links the driver itself (simtvp_driver, or
// libsimtvp.so through simtvp_host).
#ifndef SIMTVP_TESTS_SUPPORT_DRV_KERNEL_H
#define SIMTVP_TESTS_SUPPORT_DRV_KERNEL_H

#include <cstdint>
#include <string>
#include <vector>

#include "driver.h"

namespace test_support {

// A grid or block shape; a single number is (x, 1, 1).
struct dims {
  uint32_t v[3];
  dims(uint32_t x = 1, uint32_t y = 1, uint32_t z = 1) : v{x, y, z} {}
};

// Packs args (args[i] points to parameter i's value) in f's layout and launches f on `stream`
// (nullptr: the default stream).
simtvp_status launch(drv *d, drv_function *f, dims grid, dims block, const std::vector<void *> &args,
                     simtvp_diag *diag, uint32_t smem = 0, drv_stream *stream = nullptr);

// Loads `ptx` as module `name` (*mod gets it when given) and launches its `kernel` (launch()); a
// kernel the module lacks is SIMTVP_ERR_ARG naming it.
simtvp_status load_and_launch(drv *d, const std::string &ptx, const char *name, const char *kernel, dims grid,
                              dims block, const std::vector<void *> &args, simtvp_diag *diag, uint32_t smem = 0,
                              drv_module **mod = nullptr);

// One kernel run in three steps, each with its status: load, launch, drv_sync.
struct kernel_run {
  simtvp_status load = SIMTVP_OK, launch = SIMTVP_OK, sync = SIMTVP_OK;
  simtvp_diag diag{};
  drv_module *mod = nullptr;
  // The first step that failed, SIMTVP_OK when none did.
  simtvp_status status() const { return load != SIMTVP_OK ? load : launch != SIMTVP_OK ? launch : sync; }
};
// load_and_launch() and drv_sync(); a step runs only when the one before it succeeded.
kernel_run run_kernel(drv *d, const std::string &ptx, const char *name, const char *kernel, dims grid, dims block,
                      const std::vector<void *> &args, uint32_t smem = 0);

// drv_mem_alloc of `bytes` and, when src is given, a copy of src's `bytes` into it.
simtvp_status alloc_copy(drv *d, uint64_t bytes, const void *src, uint64_t *addr, simtvp_diag *diag);
template <class T>
simtvp_status upload(drv *d, const std::vector<T> &v, uint64_t *addr, simtvp_diag *diag) {
  return alloc_copy(d, v.size() * sizeof(T), v.data(), addr, diag);
}
// Queues the copy of v.size() elements at addr into v (it lands at the next synchronisation).
template <class T>
simtvp_status download(drv *d, uint64_t addr, std::vector<T> *v, simtvp_diag *diag) {
  return drv_memcpy(d, nullptr, drv_host_ptr(v->data()), drv_device_ptr(addr), v->size() * sizeof(T), diag);
}

// tests/kernels' vector_add (tests/kernels/ptx/vector_add.ptx) over n elements of three fresh
// buffers, one CTA of 256 threads per 256 elements, then drv_sync.
simtvp_status run_vector_add(drv *d, uint32_t n, simtvp_diag *diag);

}  // namespace test_support

#endif  // SIMTVP_TESTS_SUPPORT_DRV_KERNEL_H
