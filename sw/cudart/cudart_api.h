/* cudart_api.h — the CUDA 13 runtime API functions libcudart.so.13 implements, declared by simtvp
 * (with cudart_types.h, no CUDA headers are needed). The library's sources include it, so the
 * compiler checks every definition against it; tests and programs that want to avoid NVIDIA's
 * headers can include it too. Every other function of CUDA 13's runtime exists in the library as
 * an entry point that returns cudaErrorNotSupported (cudart_unsupported.cc). */
#ifndef SIMTVP_CUDART_API_H
#define SIMTVP_CUDART_API_H

#include "cudart_types.h"

#ifdef __cplusplus
extern "C" {
#endif
/* BEGIN GENERATED DECLARATIONS */
/* ---- errors ------------------------------------------------------------------------------------ */
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorName(cudaError_t error);
const char *cudaGetErrorString(cudaError_t error);

/* ---- registration (nvcc-generated code), launches, kernels ------------------------------------- */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **fatCubinHandle);
void __cudaUnregisterFatBinary(void **fatCubinHandle);
void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
    const char *deviceName, int thread_limit, void *tid, void *bid, void *bDim, void *gDim,
    int *wSize);
void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
    const char *deviceName, int ext, size_t size, int constant, int global);
void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress,
    const char *deviceName, int ext, size_t size, int constant, int global);
char __cudaInitModule(void **fatCubinHandle);
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
    struct CUstream_st *stream);
cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
    void *stream);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun);
cudaError_t cudaGetKernel(cudaKernel_t *kernel, const void *entryFuncAddr);
cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr);
cudaError_t cudaFuncGetName(const char **name, const void *func);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
    size_t sharedMem, cudaStream_t stream);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
    size_t sharedMem, cudaStream_t stream);
cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
    size_t sharedMem, cudaStream_t stream);
cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim, void **args,
    size_t sharedMem, cudaStream_t stream);
cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
    size_t sharedMem, cudaStream_t stream);
cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
    void **args, size_t sharedMem, cudaStream_t stream);
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args);
cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func,
    void **args);
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func);
cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value);
cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig);
cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func,
    int blockSize, size_t dynamicSMemSize, unsigned int flags);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
    int blockSize, size_t dynamicSMemSize);
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *func,
    int numBlocks, int blockSize);

/* ---- devices ----------------------------------------------------------------------------------- */
cudaError_t cudaRuntimeGetVersion(int *runtimeVersion);
cudaError_t cudaDriverGetVersion(int *driverVersion);
cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr, unsigned long long flags,
    int *driverStatus);
cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr,
    unsigned long long flags, int *driverStatus);
cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr,
    unsigned int cudaVersion, unsigned long long flags, int *driverStatus);
cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char *symbol, void **funcPtr,
    unsigned int cudaVersion, unsigned long long flags, int *driverStatus);
cudaError_t cudaGetExportTable(const void **ppExportTable, const cudaUUID_t *pExportTableId);
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags);
cudaError_t cudaSetValidDevices(int *device_arr, int len);
cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop);
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaGetDeviceFlags(unsigned int *flags);
cudaError_t cudaDeviceGetAttribute(int *value, int attr_id, int device);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device);
cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId);
cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value);
cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit);
cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority);
cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig);
cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig);
cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config);
cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig);
cudaError_t cudaDeviceGetTexture1DLinearMaxWidth(size_t *maxWidthInElements,
    const struct cudaChannelFormatDesc *fmtDesc, int device);
cudaError_t cudaMemGetInfo(size_t *free, size_t *total);
cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);

/* ---- memory ------------------------------------------------------------------------------------ */
cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaFree(void *devPtr);
cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags);
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost);
cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);
cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags);
cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);
cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy_ptds(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
    cudaStream_t stream);
cudaError_t cudaMemcpyAsync_ptsz(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
    cudaStream_t stream);
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
    size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2D_ptds(void *dst, size_t dpitch, const void *src, size_t spitch,
    size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
    size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpy2DAsync_ptsz(void *dst, size_t dpitch, const void *src, size_t spitch,
    size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
    enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count,
    size_t offset, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
    size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src, size_t count,
    size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
    enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count, size_t offset,
    enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
    enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count,
    size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol);
cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol);
cudaError_t cudaMemset(void *devPtr, int value, size_t count);
cudaError_t cudaMemset_ptds(void *devPtr, int value, size_t count);
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream);
cudaError_t cudaMemsetAsync_ptsz(void *devPtr, int value, size_t count, cudaStream_t stream);
cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaMemset2D_ptds(void *devPtr, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height,
    cudaStream_t stream);
cudaError_t cudaMemset2DAsync_ptsz(void *devPtr, size_t pitch, int value, size_t width,
    size_t height, cudaStream_t stream);
cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent);
cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value,
    struct cudaExtent extent, cudaStream_t stream);
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr);
cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location,
    unsigned int flags, cudaStream_t stream);
cudaError_t cudaMemAdvise(const void *devPtr, size_t count, int advice,
    struct cudaMemLocation location);
cudaError_t cudaMemRangeGetAttribute(void *data, size_t dataSize, int attribute, const void *devPtr, size_t count);
cudaError_t cudaMemRangeGetAttributes(void **data, size_t *dataSizes, int *attributes, size_t numAttributes,
                                      const void *devPtr, size_t count);
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
    unsigned int flags);
cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags);
cudaError_t cudaHostUnregister(void *ptr);
cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream);
cudaError_t cudaMallocAsync_ptsz(void **devPtr, size_t size, cudaStream_t hStream);
cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream);
cudaError_t cudaFreeAsync_ptsz(void *devPtr, cudaStream_t hStream);
cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count);
cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
    size_t count, cudaStream_t stream);
cudaError_t cudaMemPrefetchAsync_ptsz(const void *devPtr, size_t count,
    struct cudaMemLocation location, unsigned int flags, cudaStream_t stream);
cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *devPtr, size_t length,
    unsigned int flags);

/* ---- streams and events ------------------------------------------------------------------------ */
cudaError_t cudaStreamCreate(cudaStream_t *pStream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags);
cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags);
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
    void *userData, unsigned int flags);
cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback,
    void *userData, unsigned int flags);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData);
cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void *userData);
cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags);
cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int *flags);
cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority);
cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int *priority);
cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device);
cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t hStream, int *device);
cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags);
cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream,
    unsigned int flags);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaStreamGetId_ptsz(cudaStream_t hStream, unsigned long long *streamId);

/* ---- arrays, textures, surfaces ---------------------------------------------------------------- */
struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
    enum cudaChannelFormatKind f);
cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
    size_t width, size_t height, unsigned int flags);
cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
    struct cudaExtent extent, unsigned int flags);
cudaError_t cudaFreeArray(cudaArray_t array);
cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent,
    unsigned int *flags, cudaArray_t array);
cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array);
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
    size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
    const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind,
    cudaStream_t stream);
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
    size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src,
    size_t wOffset, size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind,
    cudaStream_t stream);
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
    size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
    size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
    cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc, size_t width, size_t height,
    enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p);
cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream);
cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
    const struct cudaResourceDesc *pResDesc, const struct cudaTextureDesc *pTexDesc,
    const struct cudaResourceViewDesc *pResViewDesc);
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject,
    const struct cudaResourceDesc *pResDesc);
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject);
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject);
cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc,
    cudaTextureObject_t texObject);
cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc,
    cudaTextureObject_t texObject);
cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc *pResDesc,
    cudaSurfaceObject_t surfObject);
cudaError_t cudaMemcpy2DToArray_ptds(cudaArray_t dst, size_t wOffset, size_t hOffset,
    const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DToArrayAsync_ptsz(cudaArray_t dst, size_t wOffset, size_t hOffset,
    const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind,
    cudaStream_t stream);
cudaError_t cudaMemcpy2DFromArray_ptds(void *dst, size_t dpitch, cudaArray_const_t src,
    size_t wOffset, size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DFromArrayAsync_ptsz(void *dst, size_t dpitch, cudaArray_const_t src,
    size_t wOffset, size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind,
    cudaStream_t stream);
cudaError_t cudaMemcpy3D_ptds(const struct cudaMemcpy3DParms *p);
cudaError_t cudaMemcpy3DAsync_ptsz(const struct cudaMemcpy3DParms *p, cudaStream_t stream);

/* ---- graphs and stream capture ----------------------------------------------------------------- */
cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph);
cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *pNode, cudaGraphNode_t originalNode,
    cudaGraph_t clonedGraph);
cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path, unsigned int flags);
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies,
    const struct cudaKernelNodeParams *pNodeParams);
cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node,
    struct cudaKernelNodeParams *pNodeParams);
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
    const struct cudaKernelNodeParams *pNodeParams);
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
    const struct cudaKernelNodeParams *pNodeParams);
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies,
    const struct cudaMemcpy3DParms *pCopyParams);
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies, void *dst, const void *src,
    size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies, const void *symbol,
    const void *src, size_t count, size_t offset, enum cudaMemcpyKind kind);
cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies, void *dst, const void *symbol,
    size_t count, size_t offset, enum cudaMemcpyKind kind);
cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node,
    struct cudaMemcpy3DParms *pNodeParams);
cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node,
    const struct cudaMemcpy3DParms *pNodeParams);
cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst, const void *src,
    size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t node, const void *symbol,
    const void *src, size_t count, size_t offset, enum cudaMemcpyKind kind);
cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t node, void *dst,
    const void *symbol, size_t count, size_t offset, enum cudaMemcpyKind kind);
cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
    const struct cudaMemcpy3DParms *pNodeParams);
cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
    void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(cudaGraphExec_t hGraphExec,
    cudaGraphNode_t node, const void *symbol, const void *src, size_t count, size_t offset,
    enum cudaMemcpyKind kind);
cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t hGraphExec,
    cudaGraphNode_t node, void *dst, const void *symbol, size_t count, size_t offset,
    enum cudaMemcpyKind kind);
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies,
    const struct cudaMemsetParams *pMemsetParams);
cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node,
    struct cudaMemsetParams *pNodeParams);
cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node,
    const struct cudaMemsetParams *pNodeParams);
cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
    const struct cudaMemsetParams *pNodeParams);
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies,
    const struct cudaHostNodeParams *pNodeParams);
cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node,
    struct cudaHostNodeParams *pNodeParams);
cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node,
    const struct cudaHostNodeParams *pNodeParams);
cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
    const struct cudaHostNodeParams *pNodeParams);
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies);
cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies, cudaEvent_t event);
cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies, cudaEvent_t event);
cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out);
cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out);
cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event);
cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event);
cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
    cudaEvent_t event);
cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
    cudaEvent_t event);
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, size_t numDependencies, cudaGraph_t childGraph);
cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t *pGraph);
cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
    cudaGraph_t childGraph);
cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
    const cudaGraphNode_t *pDependencies, const cudaGraphEdgeData *dependencyData,
    size_t numDependencies, struct cudaGraphNodeParams *nodeParams);
cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node, struct cudaGraphNodeParams *nodeParams);
cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t graphExec, cudaGraphNode_t node,
    struct cudaGraphNodeParams *nodeParams);
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType);
cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node);
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes);
cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes,
    size_t *pNumRootNodes);
cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
    cudaGraphEdgeData *edgeData, size_t *numEdges);
cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *pDependencies,
    cudaGraphEdgeData *edgeData, size_t *pNumDependencies);
cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t *pDependentNodes,
    cudaGraphEdgeData *edgeData, size_t *pNumDependentNodes);
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
    const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData, size_t numDependencies);
cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
    const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData, size_t numDependencies);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
    unsigned long long flags);
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
    unsigned long long flags);
cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
    cudaGraphInstantiateParams *instantiateParams);
cudaError_t cudaGraphInstantiateWithParams_ptsz(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
    cudaGraphInstantiateParams *instantiateParams);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec);
cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t graphExec, unsigned long long *flags);
cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream);
cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream);
cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream);
cudaError_t cudaGraphUpload_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream);
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
    cudaGraphExecUpdateResultInfo *resultInfo);
cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
    unsigned int isEnabled);
cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode,
    unsigned int *isEnabled);
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
    const cudaGraphNode_t *dependencies, const cudaGraphEdgeData *dependencyData,
    size_t numDependencies, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph,
    const cudaGraphNode_t *dependencies, const cudaGraphEdgeData *dependencyData,
    size_t numDependencies, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph);
cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
    enum cudaStreamCaptureStatus *pCaptureStatus);
cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
    enum cudaStreamCaptureStatus *pCaptureStatus);
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
    enum cudaStreamCaptureStatus *captureStatus_out, unsigned long long *id_out,
    cudaGraph_t *graph_out, const cudaGraphNode_t **dependencies_out,
    const cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out);
cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream,
    enum cudaStreamCaptureStatus *captureStatus_out, unsigned long long *id_out,
    cudaGraph_t *graph_out, const cudaGraphNode_t **dependencies_out,
    const cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out);
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t *dependencies,
    const cudaGraphEdgeData *dependencyData, size_t numDependencies, unsigned int flags);
cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t stream,
    cudaGraphNode_t *dependencies, const cudaGraphEdgeData *dependencyData, size_t numDependencies,
    unsigned int flags);
cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode);

/* END GENERATED DECLARATIONS */

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_CUDART_API_H */
