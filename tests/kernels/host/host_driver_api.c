/* host_driver_api.c — a CUDA driver-API program in plain C (no CUDA headers: cuda_driver_abi.h).
 * It covers what a cuda.h program does: cuInit, device queries, an explicit context, a module from
 * the fatbin in host_kernels_fatbin.h (cuModuleLoadData) and another from PTX text on disk
 * (cuModuleLoad, path in argv[1]), functions and a module variable, allocations, synchronous and
 * asynchronous copies, memsets, launches with kernelParams and with a packed parameter buffer
 * (CU_LAUNCH_PARAM_BUFFER_POINTER), a stream with a host function, timing events, error names.
 * Prints PASS/FAIL and exits 0 (pass), 1 (wrong result) or 2 (a call failed), like tests/kernels.
 * Usage: host_driver_api PTX_FILE [n=1000] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_driver_abi.h"
#include "host_kernels_fatbin.h"

static void check(CUresult r, const char *what) {
  if (r != CUDA_SUCCESS) {
    const char *name = "?";
    cuGetErrorName(r, &name);
    fprintf(stderr, "host_driver_api: %s failed: %s (%d)\n", what, name, r);
    exit(2);
  }
}

static void mark(void *flag) { *(volatile int *)flag = 1; }

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: host_driver_api PTX_FILE [n]\n");
    return 2;
  }
  const int n = argc > 2 ? atoi(argv[2]) : 1000;
  if (n <= 0) return 2;

  /* Before cuInit every call is refused. */
  int count = -1;
  if (cuDeviceGetCount(&count) != CUDA_ERROR_NOT_INITIALIZED) {
    printf("FAIL host_driver_api: cuDeviceGetCount before cuInit did not report CUDA_ERROR_NOT_INITIALIZED\n");
    return 1;
  }
  check(cuInit(0), "cuInit");
  int version = 0;
  check(cuDriverGetVersion(&version), "cuDriverGetVersion");
  check(cuDeviceGetCount(&count), "cuDeviceGetCount");
  CUdevice dev;
  check(cuDeviceGet(&dev, 0), "cuDeviceGet");
  char name[128];
  int major = 0, minor = 0, sms = 0;
  size_t total = 0;
  check(cuDeviceGetName(name, sizeof name, dev), "cuDeviceGetName");
  check(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), "cuDeviceGetAttribute");
  check(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev), "cuDeviceGetAttribute");
  check(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev), "cuDeviceGetAttribute");
  check(cuDeviceTotalMem_v2(&total, dev), "cuDeviceTotalMem");

  CUcontext ctx = NULL, current = NULL;
  check(cuCtxCreate_v2(&ctx, 0, dev), "cuCtxCreate");
  check(cuCtxGetCurrent(&current), "cuCtxGetCurrent");
  if (current != ctx) {
    printf("FAIL host_driver_api: the new context is not current\n");
    return 1;
  }

  /* Module 1: the fatbin nvcc made of host_kernels.cu (PTX picked for the device). */
  CUmodule fat_module, ptx_module;
  check(cuModuleLoadData(&fat_module, host_kernels_fatbin), "cuModuleLoadData(fatbin)");
  /* Module 2: the same kernels as PTX text from a file. */
  check(cuModuleLoad(&ptx_module, argv[1]), "cuModuleLoad(ptx)");
  CUfunction saxpy, scale;
  check(cuModuleGetFunction(&saxpy, fat_module, "saxpy"), "cuModuleGetFunction(saxpy)");
  check(cuModuleGetFunction(&scale, ptx_module, "_Z16scale_and_offsetPiii"), "cuModuleGetFunction(scale)");
  CUfunction missing;
  if (cuModuleGetFunction(&missing, fat_module, "no_such_kernel") != CUDA_ERROR_NOT_FOUND) {
    printf("FAIL host_driver_api: a missing kernel was not CUDA_ERROR_NOT_FOUND\n");
    return 1;
  }
  int regs = 0;
  check(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, saxpy), "cuFuncGetAttribute");

  /* saxpy with kernelParams: y = a*x + y. */
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *out = malloc(n * sizeof *out);
  for (int i = 0; i < n; i++) {
    x[i] = (float)(i % 13) - 6.0f;
    y[i] = (float)(i % 7) * 0.25f;
  }
  CUdeviceptr dx, dy, dy2;
  check(cuMemAlloc_v2(&dx, n * sizeof(float)), "cuMemAlloc");
  check(cuMemAlloc_v2(&dy, n * sizeof(float)), "cuMemAlloc");
  check(cuMemAlloc_v2(&dy2, n * sizeof(float)), "cuMemAlloc");
  check(cuMemcpyHtoD_v2(dx, x, n * sizeof(float)), "cuMemcpyHtoD");
  check(cuMemcpyHtoD_v2(dy, y, n * sizeof(float)), "cuMemcpyHtoD");
  float a = 1.5f;
  int nn = n;
  void *params[] = {&nn, &a, &dx, &dy};
  unsigned blocks = (unsigned)(n + 127) / 128;
  check(cuLaunchKernel(saxpy, blocks, 1, 1, 128, 1, 1, 0, NULL, params, NULL), "cuLaunchKernel(saxpy)");
  check(cuMemcpyDtoD_v2(dy2, dy, n * sizeof(float)), "cuMemcpyDtoD");

  /* saxpy again on dy2 through a packed parameter buffer (int, float, 2 pointers: offsets 0, 4, 8, 16). */
  struct {
    int n;
    float a;
    CUdeviceptr x, y;
  } packed = {n, 2.0f, dx, dy2};
  size_t packed_bytes = sizeof packed;
  void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &packed_bytes,
                   CU_LAUNCH_PARAM_END};
  CUstream stream;
  CUevent start, stop;
  check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  check(cuEventCreate(&start, 0), "cuEventCreate");
  check(cuEventCreate(&stop, 0), "cuEventCreate");
  check(cuCtxSynchronize(), "cuCtxSynchronize");  /* dy2 is complete before the stream uses it */
  check(cuEventRecord(start, stream), "cuEventRecord");
  check(cuLaunchKernel(saxpy, blocks, 1, 1, 128, 1, 1, 0, stream, NULL, extra), "cuLaunchKernel(extra)");
  volatile int host_fn_ran = 0;
  check(cuMemcpyDtoHAsync_v2(out, dy2, n * sizeof(float), stream), "cuMemcpyDtoHAsync");
  check(cuLaunchHostFunc(stream, mark, (void *)&host_fn_ran), "cuLaunchHostFunc");
  check(cuEventRecord(stop, stream), "cuEventRecord");
  check(cuStreamSynchronize(stream), "cuStreamSynchronize");
  check(cuEventSynchronize(stop), "cuEventSynchronize");
  float ms = -1.0f;
  check(cuEventElapsedTime_v2(&ms, start, stop), "cuEventElapsedTime");
  if (cuStreamQuery(stream) != CUDA_SUCCESS) {
    printf("FAIL host_driver_api: stream not idle after cuStreamSynchronize\n");
    return 1;
  }
  float *first = malloc(n * sizeof *first);
  check(cuMemcpyDtoH_v2(first, dy, n * sizeof(float)), "cuMemcpyDtoH");

  /* scale_and_offset on the PTX module with its __device__ variable `offset`. */
  CUdeviceptr offset_ptr, launches_ptr, ddata;
  size_t offset_bytes = 0;
  check(cuModuleGetGlobal_v2(&offset_ptr, &offset_bytes, ptx_module, "offset"), "cuModuleGetGlobal(offset)");
  check(cuModuleGetGlobal_v2(&launches_ptr, NULL, ptx_module, "launches"), "cuModuleGetGlobal(launches)");
  int offset = -4;
  check(cuMemcpyHtoD_v2(offset_ptr, &offset, sizeof offset), "cuMemcpyHtoD(offset)");
  check(cuMemsetD8_v2(launches_ptr, 0, 4), "cuMemsetD8");
  check(cuMemAlloc_v2(&ddata, n * sizeof(int)), "cuMemAlloc");
  check(cuMemsetD32_v2(ddata, 7, (size_t)n), "cuMemsetD32");
  int factor = 3;
  void *params2[] = {&ddata, &nn, &factor};
  check(cuLaunchKernel(scale, blocks, 1, 1, 128, 1, 1, 0, NULL, params2, NULL), "cuLaunchKernel(scale)");
  int *data = malloc(n * sizeof *data);
  unsigned launches = 0;
  check(cuMemcpyDtoH_v2(data, ddata, n * sizeof(int)), "cuMemcpyDtoH");
  check(cuMemcpyDtoH_v2(&launches, launches_ptr, sizeof launches), "cuMemcpyDtoH");

  int status = 0;
  for (int i = 0; i < n && !status; i++) {
    float want1 = 1.5f * x[i] + y[i], want2 = 2.0f * x[i] + want1;
    if (first[i] != want1) {
      printf("FAIL host_driver_api: saxpy y[%d]=%g, want %g\n", i, first[i], want1);
      status = 1;
    } else if (out[i] != want2) {
      printf("FAIL host_driver_api: packed-buffer saxpy y[%d]=%g, want %g\n", i, out[i], want2);
      status = 1;
    } else if (data[i] != 7 * 3 - 4) {
      printf("FAIL host_driver_api: scale_and_offset data[%d]=%d, want 17\n", i, data[i]);
      status = 1;
    }
  }
  if (!status && (launches != 1 || offset_bytes != 4 || !host_fn_ran || !(ms >= 0.0f))) {
    printf("FAIL host_driver_api: launches=%u offset size=%zu host function %s, %g ms\n", launches, offset_bytes,
           host_fn_ran ? "ran" : "did not run", ms);
    status = 1;
  }
  if (!status)
    printf("PASS host_driver_api: %s (cc %d.%d, %d SMs, %zu MiB), n=%d, 3 launches (params, buffer, PTX file), "
           "%.3f ms\n",
           name, major, minor, sms, total >> 20, n, ms);

  check(cuEventDestroy_v2(start), "cuEventDestroy");
  check(cuEventDestroy_v2(stop), "cuEventDestroy");
  check(cuStreamDestroy_v2(stream), "cuStreamDestroy");
  check(cuMemFree_v2(dx), "cuMemFree");
  check(cuMemFree_v2(dy), "cuMemFree");
  check(cuMemFree_v2(dy2), "cuMemFree");
  check(cuMemFree_v2(ddata), "cuMemFree");
  check(cuModuleUnload(fat_module), "cuModuleUnload");
  check(cuModuleUnload(ptx_module), "cuModuleUnload");
  check(cuCtxDestroy_v2(ctx), "cuCtxDestroy");
  free(x);
  free(y);
  free(out);
  free(first);
  free(data);
  return status;
}
