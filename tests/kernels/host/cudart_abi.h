/* cudart_abi.h — the part of libcudart.so.13's ABI that nvcc-generated host code uses, declared by
 * hand so the programs in this folder build with a plain C++ compiler and no CUDA headers.
 *
 * Learned from what nvcc 13.0 generates (`nvcc -cudart shared --keep`: *.cudafe1.stub.c,
 * *.fatbin.c, crt/host_runtime.h, fatbinary_section.h, crt/device_functions.h) and from the
 * symbols an nvcc-built program imports (`nm -D --undefined-only`). docs/fixtures.md ("Host-side
 * registration ABI") walks through the sequence. Layouts and signatures must match the real
 * runtime bit for bit: these programs are meant to run against simtvp's libcudart.so.13 and
 * NVIDIA's alike. */
#ifndef SIMTVP_CUDART_ABI_H
#define SIMTVP_CUDART_ABI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int simtvp_cuda_error; /* cudaError_t: 0 is cudaSuccess */
typedef struct CUstream_st *simtvp_cuda_stream;  /* cudaStream_t */
typedef struct CUkern_st *simtvp_cuda_kernel;    /* cudaKernel_t */

/* dim3 / uint3: three 32-bit unsigned integers. Passed by value, it is a 12-byte aggregate of
 * INTEGER class (two registers on x86-64 SysV), exactly like CUDA's dim3. */
typedef struct simtvp_dim3 {
  unsigned x, y, z;
} simtvp_dim3;

enum { SIMTVP_MEMCPY_HOST_TO_DEVICE = 1, SIMTVP_MEMCPY_DEVICE_TO_HOST = 2 }; /* cudaMemcpyKind */

/* The fatbin wrapper (fatbinary_section.h: __fatBinC_Wrapper_t) that nvcc emits in section
 * .nvFatBinSegment and passes to __cudaRegisterFatBinary. `data` points at the fatbin container
 * (magic 0xBA55ED50) in section .nv_fatbin, 8-byte aligned. */
#define SIMTVP_FATBINC_MAGIC 0x466243B1
#define SIMTVP_FATBINC_VERSION 1
typedef struct simtvp_fatbin_wrapper {
  int magic;
  int version;
  const unsigned long long *data;
  void *filename_or_fatbins; /* version 1: NULL (offline file name); version 2: prelinked fatbins */
} simtvp_fatbin_wrapper;

/* Registration, called from a static constructor before main (nvcc: __sti____cudaRegisterAll). */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void __cudaUnregisterFatBinary(void **fatCubinHandle);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, simtvp_dim3 *tid,
                            simtvp_dim3 *bid, simtvp_dim3 *bDim, simtvp_dim3 *gDim, int *wSize);
void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                       const char *deviceName, int ext, size_t size, int constant, int global);

/* Launch: `k<<<g, b, shmem, stream>>>(args)` becomes
 *   __cudaPushCallConfiguration(g, b, shmem, stream) ? (void)0 : k(args);
 * where k is the host stub, which pops the configuration and launches. */
unsigned __cudaPushCallConfiguration(simtvp_dim3 gridDim, simtvp_dim3 blockDim, size_t sharedMem,
                                     struct CUstream_st *stream);
simtvp_cuda_error __cudaPopCallConfiguration(simtvp_dim3 *gridDim, simtvp_dim3 *blockDim,
                                             size_t *sharedMem, void *stream);
/* CUDA 13 stubs: a kernel handle looked up once per stub, then __cudaLaunchKernel. */
simtvp_cuda_error __cudaGetKernel(simtvp_cuda_kernel *kernel, const void *hostFun);
simtvp_cuda_error __cudaLaunchKernel(simtvp_cuda_kernel kernel, simtvp_dim3 gridDim,
                                     simtvp_dim3 blockDim, void **args, size_t sharedMem,
                                     simtvp_cuda_stream stream);
/* Stubs compiled with -D__NV_LEGACY_LAUNCH (and every toolkit before 13) call cudaLaunchKernel. */
simtvp_cuda_error cudaLaunchKernel(const void *func, simtvp_dim3 gridDim, simtvp_dim3 blockDim,
                                   void **args, size_t sharedMem, simtvp_cuda_stream stream);

/* The ordinary runtime API the programs use. */
simtvp_cuda_error cudaMalloc(void **devPtr, size_t size);
simtvp_cuda_error cudaFree(void *devPtr);
simtvp_cuda_error cudaMemcpy(void *dst, const void *src, size_t count, int kind);
simtvp_cuda_error cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                                     size_t offset, int kind);
simtvp_cuda_error cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                       int kind);
simtvp_cuda_error cudaDeviceSynchronize(void);
simtvp_cuda_error cudaGetLastError(void);
const char *cudaGetErrorString(simtvp_cuda_error error);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_CUDART_ABI_H */
