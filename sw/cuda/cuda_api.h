/* cuda_api.h — the CUDA 13 driver API functions libcuda.so.1 implements, declared by simtvp (no
 * CUDA headers needed). Names are the exported symbols, i.e. what cuda.h maps the API names to
 * (cuMemAlloc -> cuMemAlloc_v2, cuCtxCreate -> cuCtxCreate_v4 …). cuda_api.cc includes it, so
 * every definition is checked against it. Every other function of CUDA 13's libcuda exists as an
 * entry point returning CUDA_ERROR_NOT_SUPPORTED (cuda_unsupported.cc). Result codes: cu_result.h. */
#ifndef SIMTVP_CUDA_API_H
#define SIMTVP_CUDA_API_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUlib_st *CUlibrary;
typedef struct CUkern_st *CUkernel;
typedef struct CUarray_st *CUarray;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphNode_st *CUgraphNode;
typedef struct CUgraphExec_st *CUgraphExec;
typedef unsigned long long CUdeviceptr;
typedef void (*CUhostFn)(void *userData);
typedef void (*CUstreamCallback)(CUstream hStream, CUresult status, void *userData);

#define CU_LAUNCH_PARAM_END ((void *)0x00)
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void *)0x01)
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void *)0x02)

/* BEGIN GENERATED DECLARATIONS */
/* ---- driver API -------------------------------------------------------------------------------- */
CUresult cuInit(unsigned int Flags);
CUresult cuDriverGetVersion(int *driverVersion);
CUresult cuGetErrorString(CUresult error, const char **pStr);
CUresult cuGetErrorName(CUresult error, const char **pStr);
CUresult cuDeviceGetCount(int *count);
CUresult cuDeviceGet(CUdevice *device, int ordinal);
CUresult cuDeviceGetName(char *name, int len, CUdevice dev);
CUresult cuDeviceGetUuid(void *uuid, CUdevice dev);
CUresult cuDeviceGetUuid_v2(void *uuid, CUdevice dev);
CUresult cuDeviceGetAttribute(int *pi, int attrib, CUdevice dev);
CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev);
CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev);
CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev);
CUresult cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId);
CUresult cuCtxCreate(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuCtxCreate_v3(CUcontext *pctx, void *paramsArray, int numParams, unsigned int flags,
    CUdevice dev);
CUresult cuCtxCreate_v4(CUcontext *pctx, void *ctxCreateParams, unsigned int flags, CUdevice dev);
CUresult cuCtxDestroy_v2(CUcontext ctx);
CUresult cuCtxDestroy(CUcontext ctx);
CUresult cuCtxGetCurrent(CUcontext *pctx);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuCtxPushCurrent_v2(CUcontext ctx);
CUresult cuCtxPushCurrent(CUcontext ctx);
CUresult cuCtxPopCurrent_v2(CUcontext *pctx);
CUresult cuCtxPopCurrent(CUcontext *pctx);
CUresult cuCtxGetDevice(CUdevice *device);
CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version);
CUresult cuCtxSynchronize(void);
CUresult cuCtxSetLimit(int limit, size_t value);
CUresult cuCtxGetLimit(size_t *pvalue, int limit);
CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx);
CUresult cuCtxSynchronize_v2(CUcontext ctx);
CUresult cuCtxGetId(CUcontext ctx, unsigned long long *ctxId);
CUresult cuCtxGetFlags(unsigned int *flags);
CUresult cuCtxSetFlags(unsigned int flags);
CUresult cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority);
CUresult cuCtxGetCacheConfig(int *pconfig);
CUresult cuCtxSetCacheConfig(int config);
CUresult cuCtxGetSharedMemConfig(int *pConfig);
CUresult cuCtxSetSharedMemConfig(int config);
CUresult cuCtxResetPersistingL2Cache(void);
CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev);
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev);
CUresult cuDevicePrimaryCtxRelease(CUdevice dev);
CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev);
CUresult cuDevicePrimaryCtxReset(CUdevice dev);
CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active);
CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags);
CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags);
CUresult cuModuleLoad(CUmodule *module, const char *fname);
CUresult cuModuleLoadData(CUmodule *module, const void *image);
CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
    int *options, void **optionValues);
CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin);
CUresult cuModuleGetLoadingMode(int *mode);
CUresult cuModuleUnload(CUmodule hmod);
CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name);
CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name);
CUresult cuFuncGetAttribute(int *pi, int attrib, CUfunction hfunc);
CUresult cuFuncSetAttribute(CUfunction hfunc, int attrib, int value);
CUresult cuFuncSetCacheConfig(CUfunction hfunc, int config);
CUresult cuFuncGetName(const char **name, CUfunction hfunc);
CUresult cuFuncGetModule(CUmodule *hmod, CUfunction hfunc);
CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
    unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
    unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra);
CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
    unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
    unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra);
CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
    unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
    unsigned int sharedMemBytes, CUstream hStream, void **kernelParams);
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, CUfunction func,
    int blockSize, size_t dynamicSMemSize, unsigned int flags);
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize,
    size_t dynamicSMemSize);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuMemGetInfo_v2(size_t *free, size_t *total);
CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes, size_t Height,
    unsigned int ElementSizeBytes);
CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr);
CUresult cuMemAllocHost_v2(void **pp, size_t bytesize);
CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags);
CUresult cuMemFreeHost(void *p);
CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags);
CUresult cuMemHostGetFlags(unsigned int *pFlags, void *p);
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags);
CUresult cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p, unsigned int Flags);
CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags);
CUresult cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags);
CUresult cuMemHostUnregister(void *p);
CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream);
CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream);
CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream);
CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream);
CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount);
CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount);
CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount);
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
    CUstream hStream);
CUresult cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
    CUstream hStream);
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
    CUstream hStream);
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount);
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream);
CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N);
CUresult cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N);
CUresult cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N);
CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream);
CUresult cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream);
CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream);
CUresult cuMemsetD2D8_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width,
    size_t Height);
CUresult cuMemsetD2D16_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width,
    size_t Height);
CUresult cuMemsetD2D32_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width,
    size_t Height);
CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr ptr);
CUresult cuPointerGetAttributes(unsigned int numAttributes, int *attributes, void **data,
    CUdeviceptr ptr);
CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags);
CUresult cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority);
CUresult cuStreamDestroy_v2(CUstream hStream);
CUresult cuStreamDestroy(CUstream hStream);
CUresult cuStreamSynchronize(CUstream hStream);
CUresult cuStreamQuery(CUstream hStream);
CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags);
CUresult cuStreamGetFlags(CUstream hStream, unsigned int *flags);
CUresult cuStreamGetPriority(CUstream hStream, int *priority);
CUresult cuStreamGetCtx(CUstream hStream, CUcontext *pctx);
CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData);
CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void *userData,
    unsigned int flags);
CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags);
CUresult cuEventDestroy_v2(CUevent hEvent);
CUresult cuEventDestroy(CUevent hEvent);
CUresult cuEventRecord(CUevent hEvent, CUstream hStream);
CUresult cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags);
CUresult cuEventQuery(CUevent hEvent);
CUresult cuEventSynchronize(CUevent hEvent);
CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd);
CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd);
CUresult cuStreamGetId(CUstream hStream, unsigned long long *streamId);
CUresult cuStreamGetId_ptsz(CUstream hStream, unsigned long long *streamId);
CUresult cuStreamGetDevice(CUstream hStream, CUdevice *device);
CUresult cuStreamGetDevice_ptsz(CUstream hStream, CUdevice *device);
CUresult cuStreamGetCtx_v2(CUstream hStream, CUcontext *pCtx, void **pGreenCtx);
CUresult cuStreamGetCtx_ptsz(CUstream hStream, CUcontext *pctx);
CUresult cuStreamGetCtx_v2_ptsz(CUstream hStream, CUcontext *pCtx, void **pGreenCtx);
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount);
CUresult cuMemcpyDtoH_v2_ptds(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount);
CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount);
CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount,
    CUstream hStream);
CUresult cuMemcpyDtoHAsync_v2_ptsz(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount,
    CUstream hStream);
CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount,
    CUstream hStream);
CUresult cuMemcpy_ptds(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount);
CUresult cuMemcpyAsync_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream);
CUresult cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc, size_t N);
CUresult cuMemsetD16_v2_ptds(CUdeviceptr dstDevice, unsigned short us, size_t N);
CUresult cuMemsetD32_v2_ptds(CUdeviceptr dstDevice, unsigned int ui, size_t N);
CUresult cuMemsetD8Async_ptsz(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream);
CUresult cuMemsetD16Async_ptsz(CUdeviceptr dstDevice, unsigned short us, size_t N,
    CUstream hStream);
CUresult cuMemsetD32Async_ptsz(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream);
CUresult cuMemsetD2D8_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
    size_t Width, size_t Height);
CUresult cuMemsetD2D16_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us,
    size_t Width, size_t Height);
CUresult cuMemsetD2D32_v2_ptds(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui,
    size_t Width, size_t Height);
CUresult cuMemsetD2D8Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width,
    size_t Height, CUstream hStream);
CUresult cuMemsetD2D16Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width,
    size_t Height, CUstream hStream);
CUresult cuMemsetD2D32Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width,
    size_t Height, CUstream hStream);
CUresult cuMemsetD2D8Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc,
    size_t Width, size_t Height, CUstream hStream);
CUresult cuMemsetD2D16Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us,
    size_t Width, size_t Height, CUstream hStream);
CUresult cuMemsetD2D32Async_ptsz(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui,
    size_t Width, size_t Height, CUstream hStream);
CUresult cuStreamSynchronize_ptsz(CUstream hStream);
CUresult cuStreamQuery_ptsz(CUstream hStream);
CUresult cuStreamWaitEvent_ptsz(CUstream hStream, CUevent hEvent, unsigned int Flags);
CUresult cuStreamGetFlags_ptsz(CUstream hStream, unsigned int *flags);
CUresult cuStreamGetPriority_ptsz(CUstream hStream, int *priority);
CUresult cuStreamAddCallback_ptsz(CUstream hStream, CUstreamCallback callback, void *userData,
    unsigned int flags);
CUresult cuLaunchHostFunc_ptsz(CUstream hStream, CUhostFn fn, void *userData);
CUresult cuEventRecord_ptsz(CUevent hEvent, CUstream hStream);
CUresult cuEventRecordWithFlags_ptsz(CUevent hEvent, CUstream hStream, unsigned int flags);
CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
    unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
    unsigned int sharedMemBytes, CUstream hStream, void **kernelParams);

/* ---- entry points by name ---------------------------------------------------------------------- */
CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
    unsigned long long flags, int *symbolStatus);
CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
    unsigned long long flags);

/* ---- private tables of the runtime ------------------------------------------------------------- */
CUresult cuGetExportTable(const void **ppExportTable, const void *pExportTableId);

/* ---- libraries and kernels --------------------------------------------------------------------- */
CUresult cuLibraryLoadData(CUlibrary *library, const void *code, void *jitOptions,
    void **jitOptionsValues, unsigned int numJitOptions, void *libraryOptions,
    void **libraryOptionValues, unsigned int numLibraryOptions);
CUresult cuLibraryLoadFromFile(CUlibrary *library, const char *fileName, void *jitOptions,
    void **jitOptionsValues, unsigned int numJitOptions, void *libraryOptions,
    void **libraryOptionValues, unsigned int numLibraryOptions);
CUresult cuLibraryUnload(CUlibrary library);
CUresult cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name);
CUresult cuLibraryGetKernelCount(unsigned int *count, CUlibrary lib);
CUresult cuLibraryEnumerateKernels(CUkernel *kernels, unsigned int numKernels, CUlibrary lib);
CUresult cuLibraryGetModule(CUmodule *pMod, CUlibrary library);
CUresult cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel);
CUresult cuKernelGetLibrary(CUlibrary *pLib, CUkernel kernel);
CUresult cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name);
CUresult cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name);
CUresult cuKernelGetName(const char **name, CUkernel hfunc);
CUresult cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t *paramOffset,
    size_t *paramSize);
CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset,
    size_t *paramSize);
CUresult cuKernelGetAttribute(int *pi, int attrib, CUkernel kernel, CUdevice dev);
CUresult cuKernelSetAttribute(int attrib, int val, CUkernel kernel, CUdevice dev);
CUresult cuKernelSetCacheConfig(CUkernel kernel, int config, CUdevice dev);

/* ---- arrays, copies with arrays, texture and surface objects ----------------------------------- */
CUresult cuArray3DCreate_v2(CUarray *pHandle, const void *pAllocateArray);
CUresult cuArrayCreate_v2(CUarray *pHandle, const void *pAllocateArray);
CUresult cuArrayDestroy(CUarray hArray);
CUresult cuArray3DGetDescriptor_v2(void *pArrayDescriptor, CUarray hArray);
CUresult cuArrayGetDescriptor_v2(void *pArrayDescriptor, CUarray hArray);
CUresult cuMemcpy2D_v2(const void *pCopy);
CUresult cuMemcpy2DUnaligned_v2(const void *pCopy);
CUresult cuMemcpy2DAsync_v2(const void *pCopy, CUstream hStream);
CUresult cuMemcpy3D_v2(const void *pCopy);
CUresult cuMemcpy3DAsync_v2(const void *pCopy, CUstream hStream);
CUresult cuMemcpy2D_v2_ptds(const void *pCopy);
CUresult cuMemcpy2DUnaligned_v2_ptds(const void *pCopy);
CUresult cuMemcpy2DAsync_v2_ptsz(const void *pCopy, CUstream hStream);
CUresult cuMemcpy3D_v2_ptds(const void *pCopy);
CUresult cuMemcpy3DAsync_v2_ptsz(const void *pCopy, CUstream hStream);
CUresult cuMemcpyHtoA_v2(CUarray dstArray, size_t dstOffset, const void *srcHost, size_t ByteCount);
CUresult cuMemcpyAtoH_v2(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount);
CUresult cuMemcpyDtoA_v2(CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice,
    size_t ByteCount);
CUresult cuMemcpyAtoD_v2(CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset,
    size_t ByteCount);
CUresult cuMemcpyAtoA_v2(CUarray dstArray, size_t dstOffset, CUarray srcArray, size_t srcOffset,
    size_t ByteCount);
CUresult cuMemcpyHtoAAsync_v2(CUarray dstArray, size_t dstOffset, const void *srcHost,
    size_t ByteCount, CUstream hStream);
CUresult cuMemcpyAtoHAsync_v2(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount,
    CUstream hStream);
CUresult cuTexObjectCreate(unsigned long long *pTexObject, const void *pResDesc,
    const void *pTexDesc, const void *pResViewDesc);
CUresult cuSurfObjectCreate(unsigned long long *pSurfObject, const void *pResDesc);
CUresult cuTexObjectDestroy(unsigned long long texObject);
CUresult cuSurfObjectDestroy(unsigned long long surfObject);
CUresult cuTexObjectGetResourceDesc(void *pResDesc, unsigned long long texObject);
CUresult cuTexObjectGetTextureDesc(void *pTexDesc, unsigned long long texObject);
CUresult cuSurfObjectGetResourceDesc(void *pResDesc, unsigned long long surfObject);

/* ---- graphs and stream capture ----------------------------------------------------------------- */
CUresult cuGraphCreate(CUgraph *phGraph, unsigned int flags);
CUresult cuGraphDestroy(CUgraph hGraph);
CUresult cuGraphClone(CUgraph *phGraphClone, CUgraph originalGraph);
CUresult cuGraphNodeFindInClone(CUgraphNode *phNode, CUgraphNode hOriginalNode,
    CUgraph hClonedGraph);
CUresult cuGraphDebugDotPrint(CUgraph hGraph, const char *path, unsigned int flags);
CUresult cuGraphAddKernelNode(CUgraphNode *phGraphNode, CUgraph hGraph,
    const CUgraphNode *dependencies, size_t numDependencies, const void *nodeParams);
CUresult cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
    const CUgraphNode *dependencies, size_t numDependencies, const void *nodeParams);
CUresult cuGraphKernelNodeGetParams(CUgraphNode hNode, void *nodeParams);
CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode hNode, void *nodeParams);
CUresult cuGraphKernelNodeSetParams(CUgraphNode hNode, const void *nodeParams);
CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode hNode, const void *nodeParams);
CUresult cuGraphExecKernelNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
    const void *nodeParams);
CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec hGraphExec, CUgraphNode hNode,
    const void *nodeParams);
CUresult cuGraphAddMemcpyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
    const CUgraphNode *dependencies, size_t numDependencies, const void *copyParams, CUcontext ctx);
CUresult cuGraphMemcpyNodeGetParams(CUgraphNode hNode, void *nodeParams);
CUresult cuGraphMemcpyNodeSetParams(CUgraphNode hNode, const void *nodeParams);
CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
    const void *copyParams, CUcontext ctx);
CUresult cuGraphAddMemsetNode(CUgraphNode *phGraphNode, CUgraph hGraph,
    const CUgraphNode *dependencies, size_t numDependencies, const void *memsetParams,
    CUcontext ctx);
CUresult cuGraphMemsetNodeGetParams(CUgraphNode hNode, void *nodeParams);
CUresult cuGraphMemsetNodeSetParams(CUgraphNode hNode, const void *nodeParams);
CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
    const void *memsetParams, CUcontext ctx);
CUresult cuGraphAddHostNode(CUgraphNode *phGraphNode, CUgraph hGraph,
    const CUgraphNode *dependencies, size_t numDependencies, const void *nodeParams);
CUresult cuGraphHostNodeGetParams(CUgraphNode hNode, void *nodeParams);
CUresult cuGraphHostNodeSetParams(CUgraphNode hNode, const void *nodeParams);
CUresult cuGraphExecHostNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
    const void *nodeParams);
CUresult cuGraphAddEmptyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
    const CUgraphNode *dependencies, size_t numDependencies);
CUresult cuGraphAddEventRecordNode(CUgraphNode *phGraphNode, CUgraph hGraph,
    const CUgraphNode *dependencies, size_t numDependencies, CUevent event);
CUresult cuGraphAddEventWaitNode(CUgraphNode *phGraphNode, CUgraph hGraph,
    const CUgraphNode *dependencies, size_t numDependencies, CUevent event);
CUresult cuGraphEventRecordNodeGetEvent(CUgraphNode hNode, CUevent *event_out);
CUresult cuGraphEventWaitNodeGetEvent(CUgraphNode hNode, CUevent *event_out);
CUresult cuGraphEventRecordNodeSetEvent(CUgraphNode hNode, CUevent event);
CUresult cuGraphEventWaitNodeSetEvent(CUgraphNode hNode, CUevent event);
CUresult cuGraphExecEventRecordNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode,
    CUevent event);
CUresult cuGraphExecEventWaitNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode, CUevent event);
CUresult cuGraphAddChildGraphNode(CUgraphNode *phGraphNode, CUgraph hGraph,
    const CUgraphNode *dependencies, size_t numDependencies, CUgraph childGraph);
CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode hNode, CUgraph *phGraph);
CUresult cuGraphExecChildGraphNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
    CUgraph childGraph);
CUresult cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
    size_t numDependencies, void *nodeParams);
CUresult cuGraphAddNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
    const CUgraphNode *dependencies, const void *dependencyData, size_t numDependencies,
    void *nodeParams);
CUresult cuGraphNodeSetParams(CUgraphNode hNode, void *nodeParams);
CUresult cuGraphExecNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, void *nodeParams);
CUresult cuGraphNodeGetType(CUgraphNode hNode, int *type);
CUresult cuGraphDestroyNode(CUgraphNode hNode);
CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes);
CUresult cuGraphGetRootNodes(CUgraph hGraph, CUgraphNode *rootNodes, size_t *numRootNodes);
CUresult cuGraphGetEdges_v2(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, void *edgeData,
    size_t *numEdges);
CUresult cuGraphGetEdges(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, size_t *numEdges);
CUresult cuGraphNodeGetDependencies(CUgraphNode hNode, CUgraphNode *dependencies,
    size_t *numDependencies);
CUresult cuGraphNodeGetDependencies_v2(CUgraphNode hNode, CUgraphNode *dependencies, void *edgeData,
    size_t *numDependencies);
CUresult cuGraphNodeGetDependentNodes(CUgraphNode hNode, CUgraphNode *dependentNodes,
    size_t *numDependentNodes);
CUresult cuGraphNodeGetDependentNodes_v2(CUgraphNode hNode, CUgraphNode *dependentNodes,
    void *edgeData, size_t *numDependentNodes);
CUresult cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
    size_t numDependencies);
CUresult cuGraphAddDependencies_v2(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
    const void *edgeData, size_t numDependencies);
CUresult cuGraphRemoveDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
    size_t numDependencies);
CUresult cuGraphRemoveDependencies_v2(CUgraph hGraph, const CUgraphNode *from,
    const CUgraphNode *to, const void *edgeData, size_t numDependencies);
CUresult cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
    char *logBuffer, size_t bufferSize);
CUresult cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
    char *logBuffer, size_t bufferSize);
CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph,
    unsigned long long flags);
CUresult cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph,
    void *instantiateParams);
CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec, CUgraph hGraph,
    void *instantiateParams);
CUresult cuGraphExecDestroy(CUgraphExec hGraphExec);
CUresult cuGraphExecGetFlags(CUgraphExec hGraphExec, unsigned long long *flags);
CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream);
CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream);
CUresult cuGraphUpload(CUgraphExec hGraphExec, CUstream hStream);
CUresult cuGraphUpload_ptsz(CUgraphExec hGraphExec, CUstream hStream);
CUresult cuGraphExecUpdate_v2(CUgraphExec hGraphExec, CUgraph hGraph, void *resultInfo);
CUresult cuGraphExecUpdate(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphNode *hErrorNode_out,
    int *updateResult_out);
CUresult cuGraphNodeSetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int isEnabled);
CUresult cuGraphNodeGetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int *isEnabled);
CUresult cuStreamBeginCapture(CUstream hStream);
CUresult cuStreamBeginCapture_ptsz(CUstream hStream);
CUresult cuStreamBeginCapture_v2(CUstream hStream, int mode);
CUresult cuStreamBeginCapture_v2_ptsz(CUstream hStream, int mode);
CUresult cuStreamBeginCaptureToGraph(CUstream hStream, CUgraph hGraph,
    const CUgraphNode *dependencies, const void *dependencyData, size_t numDependencies, int mode);
CUresult cuStreamBeginCaptureToGraph_ptsz(CUstream hStream, CUgraph hGraph,
    const CUgraphNode *dependencies, const void *dependencyData, size_t numDependencies, int mode);
CUresult cuStreamEndCapture(CUstream hStream, CUgraph *phGraph);
CUresult cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph);
CUresult cuStreamIsCapturing(CUstream hStream, int *captureStatus);
CUresult cuStreamIsCapturing_ptsz(CUstream hStream, int *captureStatus);
CUresult cuStreamGetCaptureInfo_v3(CUstream hStream, int *captureStatus_out,
    unsigned long long *id_out, CUgraph *graph_out, const CUgraphNode **dependencies_out,
    const void **edgeData_out, size_t *numDependencies_out);
CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream, int *captureStatus_out,
    unsigned long long *id_out, CUgraph *graph_out, const CUgraphNode **dependencies_out,
    const void **edgeData_out, size_t *numDependencies_out);
CUresult cuStreamGetCaptureInfo_v2(CUstream hStream, int *captureStatus_out,
    unsigned long long *id_out, CUgraph *graph_out, const CUgraphNode **dependencies_out,
    size_t *numDependencies_out);
CUresult cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream, int *captureStatus_out,
    unsigned long long *id_out, CUgraph *graph_out, const CUgraphNode **dependencies_out,
    size_t *numDependencies_out);
CUresult cuStreamGetCaptureInfo(CUstream hStream, int *captureStatus_out,
    unsigned long long *id_out);
CUresult cuStreamGetCaptureInfo_ptsz(CUstream hStream, int *captureStatus_out,
    unsigned long long *id_out);
CUresult cuStreamUpdateCaptureDependencies_v2(CUstream hStream, CUgraphNode *dependencies,
    const void *dependencyData, size_t numDependencies, unsigned int flags);
CUresult cuStreamUpdateCaptureDependencies_v2_ptsz(CUstream hStream, CUgraphNode *dependencies,
    const void *dependencyData, size_t numDependencies, unsigned int flags);
CUresult cuStreamUpdateCaptureDependencies(CUstream hStream, CUgraphNode *dependencies,
    size_t numDependencies, unsigned int flags);
CUresult cuStreamUpdateCaptureDependencies_ptsz(CUstream hStream, CUgraphNode *dependencies,
    size_t numDependencies, unsigned int flags);
CUresult cuThreadExchangeStreamCaptureMode(int *mode);

/* END GENERATED DECLARATIONS */

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_CUDA_API_H */
