/* cudart_types.h — the types, constants and structure layouts of the CUDA 13 runtime API that
 * libcudart.so.13 implements, declared by simtvp (no CUDA headers are needed to build or use it).
 *
 * Names and numbers are the public ABI of libcudart.so.13 (CUDA 13.0, Linux x86-64): programs
 * compiled against NVIDIA's headers pass these structures by pointer and read their fields by
 * offset, so every layout here must match field for field. tests/cudart checks each offset and
 * size against the values of CUDA 13.0's headers. Only what simtvp's runtime reads or fills is
 * spelled out; the rest of a structure is kept as reserved bytes of the right size. */
#ifndef SIMTVP_CUDART_TYPES_H
#define SIMTVP_CUDART_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors ---------------------------------------------------------------------------------- */

/* X(name, value, description): cudaError_t (CUDA 13.0 numbering); descriptions are simtvp's. */
#define CUDART_ERROR_TABLE(X)                                                                       \
  X(cudaSuccess, 0, "no error")                                                                    \
  X(cudaErrorInvalidValue, 1, "invalid argument")                                                  \
  X(cudaErrorMemoryAllocation, 2, "out of memory")                                                 \
  X(cudaErrorInitializationError, 3, "initialization error")                                       \
  X(cudaErrorCudartUnloading, 4, "driver shutting down")                                           \
  X(cudaErrorProfilerDisabled, 5, "profiler disabled while using external profiling tool")         \
  X(cudaErrorProfilerNotInitialized, 6, "profiler not initialized")                                \
  X(cudaErrorProfilerAlreadyStarted, 7, "profiler already started")                                \
  X(cudaErrorProfilerAlreadyStopped, 8, "profiler already stopped")                                \
  X(cudaErrorInvalidConfiguration, 9, "invalid configuration argument")                            \
  X(cudaErrorInvalidPitchValue, 12, "invalid pitch argument")                                      \
  X(cudaErrorInvalidSymbol, 13, "invalid device symbol")                                           \
  X(cudaErrorInvalidHostPointer, 16, "invalid host pointer")                                       \
  X(cudaErrorInvalidDevicePointer, 17, "invalid device pointer")                                   \
  X(cudaErrorInvalidTexture, 18, "invalid texture reference")                                      \
  X(cudaErrorInvalidTextureBinding, 19, "texture is not bound to a pointer")                       \
  X(cudaErrorInvalidChannelDescriptor, 20, "invalid channel descriptor")                           \
  X(cudaErrorInvalidMemcpyDirection, 21, "invalid copy direction for memcpy")                      \
  X(cudaErrorAddressOfConstant, 22, "invalid address of constant")                                 \
  X(cudaErrorTextureFetchFailed, 23, "fetch from texture failed")                                  \
  X(cudaErrorTextureNotBound, 24, "cannot fetch from a texture that is not bound")                 \
  X(cudaErrorSynchronizationError, 25, "incorrect use of __syncthreads()")                         \
  X(cudaErrorInvalidFilterSetting, 26, "linear filtering not supported for non-float type")        \
  X(cudaErrorInvalidNormSetting, 27, "read as normalized float not supported for 32-bit non float type") \
  X(cudaErrorMixedDeviceExecution, 28, "device emulation mode and device execution mode cannot be mixed") \
  X(cudaErrorNotYetImplemented, 31, "feature not yet implemented")                                 \
  X(cudaErrorMemoryValueTooLarge, 32, "memory size or pointer value too large to fit in 32 bit")   \
  X(cudaErrorStubLibrary, 34, "CUDA driver is a stub library")                                     \
  X(cudaErrorInsufficientDriver, 35, "CUDA driver version is insufficient for CUDA runtime version") \
  X(cudaErrorCallRequiresNewerDriver, 36, "API call is not supported in the installed CUDA driver") \
  X(cudaErrorInvalidSurface, 37, "invalid surface reference")                                      \
  X(cudaErrorDuplicateVariableName, 43, "duplicate global variable looked up by string name")      \
  X(cudaErrorDuplicateTextureName, 44, "duplicate texture looked up by string name")               \
  X(cudaErrorDuplicateSurfaceName, 45, "duplicate surface looked up by string name")               \
  X(cudaErrorDevicesUnavailable, 46, "CUDA-capable device(s) is/are busy or unavailable")         \
  X(cudaErrorIncompatibleDriverContext, 49, "incompatible driver context")                         \
  X(cudaErrorMissingConfiguration, 52, "__global__ function call is not configured")               \
  X(cudaErrorPriorLaunchFailure, 53, "unspecified launch failure in prior launch")                 \
  X(cudaErrorLaunchMaxDepthExceeded, 65, "launch would exceed maximum depth of nested launches")   \
  X(cudaErrorLaunchFileScopedTex, 66, "launch failed because kernel uses unsupported, file-scoped textures") \
  X(cudaErrorLaunchFileScopedSurf, 67, "launch failed because kernel uses unsupported, file-scoped surfaces") \
  X(cudaErrorSyncDepthExceeded, 68, "cudaDeviceSynchronize failed because caller's grid depth exceeds cudaLimitDevRuntimeSyncDepth") \
  X(cudaErrorLaunchPendingCountExceeded, 69, "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount") \
  X(cudaErrorInvalidDeviceFunction, 98, "invalid device function")                                 \
  X(cudaErrorNoDevice, 100, "no CUDA-capable device is detected")                                  \
  X(cudaErrorInvalidDevice, 101, "invalid device ordinal")                                         \
  X(cudaErrorDeviceNotLicensed, 102, "device doesn't have valid Grid license")                     \
  X(cudaErrorSoftwareValidityNotEstablished, 103, "integrity checks failed")                      \
  X(cudaErrorStartupFailure, 127, "startup failure in cuda runtime")                               \
  X(cudaErrorInvalidKernelImage, 200, "device kernel image is invalid")                            \
  X(cudaErrorDeviceUninitialized, 201, "invalid device context")                                   \
  X(cudaErrorMapBufferObjectFailed, 205, "mapping of buffer object failed")                        \
  X(cudaErrorUnmapBufferObjectFailed, 206, "unmapping of buffer object failed")                    \
  X(cudaErrorArrayIsMapped, 207, "array is mapped")                                                \
  X(cudaErrorAlreadyMapped, 208, "resource already mapped")                                        \
  X(cudaErrorNoKernelImageForDevice, 209, "no kernel image is available for execution on the device") \
  X(cudaErrorAlreadyAcquired, 210, "resource already acquired")                                    \
  X(cudaErrorNotMapped, 211, "resource not mapped")                                                \
  X(cudaErrorNotMappedAsArray, 212, "resource not mapped as array")                                \
  X(cudaErrorNotMappedAsPointer, 213, "resource not mapped as pointer")                            \
  X(cudaErrorECCUncorrectable, 214, "uncorrectable ECC error encountered")                         \
  X(cudaErrorUnsupportedLimit, 215, "limit is not supported on this architecture")                 \
  X(cudaErrorDeviceAlreadyInUse, 216, "exclusive-thread device already in use by a different thread") \
  X(cudaErrorPeerAccessUnsupported, 217, "peer access is not supported between these two devices") \
  X(cudaErrorInvalidPtx, 218, "a PTX JIT compilation failed")                                      \
  X(cudaErrorInvalidGraphicsContext, 219, "invalid OpenGL or DirectX context")                     \
  X(cudaErrorNvlinkUncorrectable, 220, "uncorrectable NVLink error detected during the execution") \
  X(cudaErrorJitCompilerNotFound, 221, "PTX JIT compiler library not found")                       \
  X(cudaErrorUnsupportedPtxVersion, 222, "the provided PTX was compiled with an unsupported toolchain") \
  X(cudaErrorJitCompilationDisabled, 223, "PTX JIT compilation was disabled")                      \
  X(cudaErrorUnsupportedExecAffinity, 224, "the provided execution affinity is not supported by the device") \
  X(cudaErrorUnsupportedDevSideSync, 225, "device-side synchronization is not supported")          \
  X(cudaErrorContained, 226, "a contained error was encountered")                                  \
  X(cudaErrorInvalidSource, 300, "device kernel image source is invalid")                          \
  X(cudaErrorFileNotFound, 301, "file not found")                                                  \
  X(cudaErrorSharedObjectSymbolNotFound, 302, "shared object symbol not found")                    \
  X(cudaErrorSharedObjectInitFailed, 303, "shared object initialization failed")                   \
  X(cudaErrorOperatingSystem, 304, "OS call failed or operation not supported on this OS")         \
  X(cudaErrorInvalidResourceHandle, 400, "invalid resource handle")                                \
  X(cudaErrorIllegalState, 401, "the operation cannot be performed in the present state")          \
  X(cudaErrorLossyQuery, 402, "attempted introspection would be semantically lossy")               \
  X(cudaErrorSymbolNotFound, 500, "named symbol not found")                                        \
  X(cudaErrorNotReady, 600, "device not ready")                                                    \
  X(cudaErrorIllegalAddress, 700, "an illegal memory access was encountered")                      \
  X(cudaErrorLaunchOutOfResources, 701, "too many resources requested for launch")                 \
  X(cudaErrorLaunchTimeout, 702, "the launch timed out and was terminated")                        \
  X(cudaErrorLaunchIncompatibleTexturing, 703, "launch uses incompatible texturing mode")          \
  X(cudaErrorPeerAccessAlreadyEnabled, 704, "peer access is already enabled")                      \
  X(cudaErrorPeerAccessNotEnabled, 705, "peer access has not been enabled")                        \
  X(cudaErrorSetOnActiveProcess, 708, "cannot set while device is active in this process")         \
  X(cudaErrorContextIsDestroyed, 709, "context is destroyed")                                      \
  X(cudaErrorAssert, 710, "device-side assert triggered")                                          \
  X(cudaErrorTooManyPeers, 711, "peer mapping resources exhausted")                                \
  X(cudaErrorHostMemoryAlreadyRegistered, 712, "part or all of the requested memory range is already mapped") \
  X(cudaErrorHostMemoryNotRegistered, 713, "pointer does not correspond to a registered memory region") \
  X(cudaErrorHardwareStackError, 714, "hardware stack error")                                      \
  X(cudaErrorIllegalInstruction, 715, "an illegal instruction was encountered")                    \
  X(cudaErrorMisalignedAddress, 716, "misaligned address")                                         \
  X(cudaErrorInvalidAddressSpace, 717, "operation not supported on global/shared address space")   \
  X(cudaErrorInvalidPc, 718, "invalid program counter")                                            \
  X(cudaErrorLaunchFailure, 719, "unspecified launch failure")                                     \
  X(cudaErrorCooperativeLaunchTooLarge, 720, "too many blocks in cooperative launch")              \
  X(cudaErrorTensorMemoryLeak, 721, "tensor memory not completely freed")                          \
  X(cudaErrorNotPermitted, 800, "operation not permitted")                                         \
  X(cudaErrorNotSupported, 801, "operation not supported")                                         \
  X(cudaErrorSystemNotReady, 802, "system not yet initialized")                                    \
  X(cudaErrorSystemDriverMismatch, 803, "system has unsupported display driver / cuda driver combination") \
  X(cudaErrorCompatNotSupportedOnDevice, 804, "forward compatibility was attempted on non supported HW") \
  X(cudaErrorMpsConnectionFailed, 805, "MPS client failed to connect to the MPS control daemon or the MPS server") \
  X(cudaErrorMpsRpcFailure, 806, "the remote procedural call between the MPS server and the MPS client failed") \
  X(cudaErrorMpsServerNotReady, 807, "MPS server is not ready to accept new MPS client requests")   \
  X(cudaErrorMpsMaxClientsReached, 808, "the hardware resources required to create MPS client have been exhausted") \
  X(cudaErrorMpsMaxConnectionsReached, 809, "the hardware resources required to support device connections have been exhausted") \
  X(cudaErrorMpsClientTerminated, 810, "the MPS client has been terminated by the server")          \
  X(cudaErrorCdpNotSupported, 811, "the module is using CUDA Dynamic Parallelism, but the current configuration does not support it") \
  X(cudaErrorCdpVersionMismatch, 812, "CUDA Dynamic Parallelism is not supported across toolchain versions") \
  X(cudaErrorStreamCaptureUnsupported, 900, "operation not permitted when stream is capturing")    \
  X(cudaErrorStreamCaptureInvalidated, 901, "operation failed due to a previous error during capture") \
  X(cudaErrorStreamCaptureMerge, 902, "operation would result in a merge of separate capture sequences") \
  X(cudaErrorStreamCaptureUnmatched, 903, "capture was not ended in the same stream as it began")   \
  X(cudaErrorStreamCaptureUnjoined, 904, "capturing stream has unjoined work")                     \
  X(cudaErrorStreamCaptureIsolation, 905, "dependency created on uncaptured work in another stream") \
  X(cudaErrorStreamCaptureImplicit, 906, "operation would make the legacy stream depend on a capturing blocking stream") \
  X(cudaErrorCapturedEvent, 907, "operation not permitted on an event last recorded in a capturing stream") \
  X(cudaErrorStreamCaptureWrongThread, 908, "attempt to terminate a thread-local capture sequence from another thread") \
  X(cudaErrorTimeout, 909, "wait operation timed out")                                             \
  X(cudaErrorGraphExecUpdateFailure, 910, "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update") \
  X(cudaErrorExternalDevice, 911, "an async error has occurred in an external entity outside of CUDA") \
  X(cudaErrorInvalidClusterSize, 912, "a kernel launch error has occurred due to cluster misconfiguration") \
  X(cudaErrorFunctionNotLoaded, 913, "the function handle is not loaded when calling an API that requires a loaded function") \
  X(cudaErrorInvalidResourceType, 914, "one or more resources passed in are not valid resource types for the operation") \
  X(cudaErrorInvalidResourceConfiguration, 915, "one or more resources are insufficient or non-applicable for the operation") \
  X(cudaErrorUnknown, 999, "unknown error")

#define CUDART_ERROR_ENUM_(name, value, text) name = value,
typedef enum cudaError { CUDART_ERROR_TABLE(CUDART_ERROR_ENUM_) cudaErrorApiFailureBase = 10000 } cudaError_t;
#undef CUDART_ERROR_ENUM_

/* ---- handles and small types ------------------------------------------------------------------ */

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;
typedef struct cudaMipmappedArray *cudaMipmappedArray_t;
typedef struct CUfunc_st *cudaFunction_t;
typedef struct CUkern_st *cudaKernel_t;
typedef struct CUlib_st *cudaLibrary_t;
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;
#define CUDART_CB
typedef void (*cudaHostFn_t)(void *userData);
typedef void (*cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void *userData);

#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)

typedef struct dim3 {
  unsigned int x, y, z;
} dim3;

typedef struct CUuuid_st {
  char bytes[16];
} cudaUUID_t;

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};

enum cudaMemoryType {
  cudaMemoryTypeUnregistered = 0,
  cudaMemoryTypeHost = 1,
  cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3
};

enum cudaLimit {
  cudaLimitStackSize = 0,
  cudaLimitPrintfFifoSize = 1,
  cudaLimitMallocHeapSize = 2,
  cudaLimitDevRuntimeSyncDepth = 3,
  cudaLimitDevRuntimePendingLaunchCount = 4,
  cudaLimitMaxL2FetchGranularity = 5,
  cudaLimitPersistingL2CacheSize = 6
};

enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
  cudaFuncAttributeClusterDimMustBeSet = 10,
  cudaFuncAttributeRequiredClusterWidth = 11,
  cudaFuncAttributeRequiredClusterHeight = 12,
  cudaFuncAttributeRequiredClusterDepth = 13,
  cudaFuncAttributeNonPortableClusterSizeAllowed = 14,
  cudaFuncAttributeClusterSchedulingPolicyPreference = 15
};

enum cudaFuncCache {
  cudaFuncCachePreferNone = 0,
  cudaFuncCachePreferShared = 1,
  cudaFuncCachePreferL1 = 2,
  cudaFuncCachePreferEqual = 3
};

enum cudaSharedMemConfig {
  cudaSharedMemBankSizeDefault = 0,
  cudaSharedMemBankSizeFourByte = 1,
  cudaSharedMemBankSizeEightByte = 2
};

/* Flags (driver_types.h). */
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaHostRegisterIoMemory 0x04
#define cudaHostRegisterReadOnly 0x08
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaEventInterprocess 0x04
#define cudaEventRecordDefault 0x00
#define cudaEventRecordExternal 0x01 /* inside a capture: an event record node */
#define cudaEventWaitDefault 0x00
#define cudaEventWaitExternal 0x01   /* inside a capture: an event wait node */
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceMapHost 0x08
#define cudaDeviceLmemResizeToMax 0x10
#define cudaArrayDefault 0x00
#define cudaArrayLayered 0x01
#define cudaArraySurfaceLoadStore 0x02
#define cudaArrayCubemap 0x04
#define cudaArrayTextureGather 0x08
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaMemAttachSingle 0x04
#define cudaOccupancyDefault 0x00
#define cudaOccupancyDisableCachingOverride 0x01
#define cudaCpuDeviceId (-1)
#define cudaInvalidDeviceId (-2)

/* ---- device properties (CUDA 13 layout: 1008 bytes) ------------------------------------------ */

struct cudaDeviceProp {
  char name[256];
  cudaUUID_t uuid;
  char luid[8];
  unsigned int luidDeviceNodeMask;
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  size_t texturePitchAlignment;
  int multiProcessorCount;
  int integrated;
  int canMapHostMemory;
  int maxTexture1D;
  int maxTexture1DMipmap;
  int maxTexture2D[2];
  int maxTexture2DMipmap[2];
  int maxTexture2DLinear[3];
  int maxTexture2DGather[2];
  int maxTexture3D[3];
  int maxTexture3DAlt[3];
  int maxTextureCubemap;
  int maxTexture1DLayered[2];
  int maxTexture2DLayered[3];
  int maxTextureCubemapLayered[2];
  int maxSurface1D;
  int maxSurface2D[2];
  int maxSurface3D[3];
  int maxSurface1DLayered[2];
  int maxSurface2DLayered[3];
  int maxSurfaceCubemap;
  int maxSurfaceCubemapLayered[2];
  size_t surfaceAlignment;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int tccDriver;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryBusWidth;
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported;
  int globalL1CacheSupported;
  int localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int multiGpuBoardGroupID;
  int hostNativeAtomicSupported;
  int pageableMemoryAccess;
  int concurrentManagedAccess;
  int computePreemptionSupported;
  int canUseHostPointerForRegisteredMem;
  int cooperativeLaunch;
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables;
  int directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor;
  int accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
  int hostRegisterSupported;
  int sparseCudaArraySupported;
  int hostRegisterReadOnlySupported;
  int timelineSemaphoreInteropSupported;
  int memoryPoolsSupported;
  int gpuDirectRDMASupported;
  unsigned int gpuDirectRDMAFlushWritesOptions;
  int gpuDirectRDMAWritesOrdering;
  unsigned int memoryPoolSupportedHandleTypes;
  int deferredMappingCudaArraySupported;
  int ipcEventSupported;
  int clusterLaunch;
  int unifiedFunctionPointers;
  int deviceNumaConfig;
  int deviceNumaId;
  int mpsEnabled;
  int hostNumaId;
  unsigned int gpuPciDeviceID;
  unsigned int gpuPciSubsystemID;
  int hostNumaMultinodeIpcSupported;
  int reserved[56];
};

/* ---- kernels ---------------------------------------------------------------------------------- */

struct cudaFuncAttributes {
  size_t sharedSizeBytes;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int cacheModeCA;
  int maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
  int clusterDimMustBeSet;
  int requiredClusterWidth;
  int requiredClusterHeight;
  int requiredClusterDepth;
  int clusterSchedulingPolicyPreference;
  int nonPortableClusterSizeAllowed;
  int reserved[16];
};

typedef enum cudaLaunchAttributeID {
  cudaLaunchAttributeIgnore = 0,
  cudaLaunchAttributeAccessPolicyWindow = 1,
  cudaLaunchAttributeCooperative = 2,
  cudaLaunchAttributeSynchronizationPolicy = 3,
  cudaLaunchAttributeClusterDimension = 4,
  cudaLaunchAttributeClusterSchedulingPolicyPreference = 5,
  cudaLaunchAttributeProgrammaticStreamSerialization = 6,
  cudaLaunchAttributeProgrammaticEvent = 7,
  cudaLaunchAttributePriority = 8
} cudaLaunchAttributeID;

typedef union cudaLaunchAttributeValue {
  char pad[64];
  int cooperative;
  int priority;
  struct {
    unsigned int x, y, z;
  } clusterDim;
} cudaLaunchAttributeValue;

typedef struct cudaLaunchAttribute_st {
  cudaLaunchAttributeID id;
  char pad[8 - sizeof(cudaLaunchAttributeID)];
  cudaLaunchAttributeValue val;
} cudaLaunchAttribute;

typedef struct cudaLaunchConfig_st {
  dim3 gridDim;
  dim3 blockDim;
  size_t dynamicSmemBytes;
  cudaStream_t stream;
  cudaLaunchAttribute *attrs;
  unsigned int numAttrs;
} cudaLaunchConfig_t;

/* ---- memory ------------------------------------------------------------------------------------ */

struct cudaPointerAttributes {
  enum cudaMemoryType type;
  int device;
  void *devicePointer;
  void *hostPointer;
  long reserved[8];
};

/* CUDA 13: where managed memory should live (cudaMemPrefetchAsync, cudaMemAdvise). */
struct cudaMemLocation {
  int type; /* enum cudaMemLocationType */
  int id;
};

struct cudaPitchedPtr {
  void *ptr;
  size_t pitch;
  size_t xsize;
  size_t ysize;
};

struct cudaExtent {
  size_t width, height, depth;
};

struct cudaPos {
  size_t x, y, z;
};

struct cudaMemcpy3DParms {
  cudaArray_t srcArray;
  struct cudaPos srcPos;
  struct cudaPitchedPtr srcPtr;
  cudaArray_t dstArray;
  struct cudaPos dstPos;
  struct cudaPitchedPtr dstPtr;
  struct cudaExtent extent;
  enum cudaMemcpyKind kind;
};

/* ---- arrays, textures, surfaces ---------------------------------------------------------------- */

enum cudaChannelFormatKind {
  cudaChannelFormatKindSigned = 0,
  cudaChannelFormatKindUnsigned = 1,
  cudaChannelFormatKindFloat = 2,
  cudaChannelFormatKindNone = 3
};

struct cudaChannelFormatDesc {
  int x, y, z, w;
  enum cudaChannelFormatKind f;
};

enum cudaResourceType {
  cudaResourceTypeArray = 0,
  cudaResourceTypeMipmappedArray = 1,
  cudaResourceTypeLinear = 2,
  cudaResourceTypePitch2D = 3
};

struct cudaResourceDesc {
  enum cudaResourceType resType;
  union {
    struct {
      cudaArray_t array;
    } array;
    struct {
      cudaMipmappedArray_t mipmap;
    } mipmap;
    struct {
      void *devPtr;
      struct cudaChannelFormatDesc desc;
      size_t sizeInBytes;
    } linear;
    struct {
      void *devPtr;
      struct cudaChannelFormatDesc desc;
      size_t width;
      size_t height;
      size_t pitchInBytes;
    } pitch2D;
    struct {
      int reserved[32];
    } reserved;
  } res;
  unsigned int flags;
};

struct cudaResourceViewDesc {
  int format;
  size_t width, height, depth;
  unsigned int firstMipmapLevel, lastMipmapLevel, firstLayer, lastLayer;
  unsigned int reserved[16];
};

enum cudaTextureAddressMode {
  cudaAddressModeWrap = 0,
  cudaAddressModeClamp = 1,
  cudaAddressModeMirror = 2,
  cudaAddressModeBorder = 3
};
enum cudaTextureFilterMode { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };

struct cudaTextureDesc {
  enum cudaTextureAddressMode addressMode[3];
  enum cudaTextureFilterMode filterMode;
  enum cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned int maxAnisotropy;
  enum cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias;
  float minMipmapLevelClamp;
  float maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int seamlessCubemap;
};

/* ---- graphs and stream capture ------------------------------------------------------------------ */

typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphNode_st *cudaGraphNode_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;

enum cudaStreamCaptureStatus {
  cudaStreamCaptureStatusNone = 0,
  cudaStreamCaptureStatusActive = 1,
  cudaStreamCaptureStatusInvalidated = 2
};
enum cudaStreamCaptureMode {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2
};
enum cudaStreamUpdateCaptureDependenciesFlags { cudaStreamAddCaptureDependencies = 0, cudaStreamSetCaptureDependencies = 1 };

enum cudaGraphNodeType {
  cudaGraphNodeTypeKernel = 0,
  cudaGraphNodeTypeMemcpy = 1,
  cudaGraphNodeTypeMemset = 2,
  cudaGraphNodeTypeHost = 3,
  cudaGraphNodeTypeGraph = 4,
  cudaGraphNodeTypeEmpty = 5,
  cudaGraphNodeTypeWaitEvent = 6,
  cudaGraphNodeTypeEventRecord = 7,
  cudaGraphNodeTypeExtSemaphoreSignal = 8,
  cudaGraphNodeTypeExtSemaphoreWait = 9,
  cudaGraphNodeTypeMemAlloc = 10,
  cudaGraphNodeTypeMemFree = 11,
  cudaGraphNodeTypeConditional = 13,
  cudaGraphNodeTypeCount
};

enum cudaGraphExecUpdateResult {
  cudaGraphExecUpdateSuccess = 0,
  cudaGraphExecUpdateError = 1,
  cudaGraphExecUpdateErrorTopologyChanged = 2,
  cudaGraphExecUpdateErrorNodeTypeChanged = 3,
  cudaGraphExecUpdateErrorFunctionChanged = 4,
  cudaGraphExecUpdateErrorParametersChanged = 5,
  cudaGraphExecUpdateErrorNotSupported = 6,
  cudaGraphExecUpdateErrorUnsupportedFunctionChange = 7,
  cudaGraphExecUpdateErrorAttributesChanged = 8
};

typedef enum cudaGraphInstantiateResult {
  cudaGraphInstantiateSuccess = 0,
  cudaGraphInstantiateError = 1,
  cudaGraphInstantiateInvalidStructure = 2,
  cudaGraphInstantiateNodeOperationNotSupported = 3,
  cudaGraphInstantiateMultipleDevicesNotSupported = 4,
  cudaGraphInstantiateConditionalHandleUnused = 5
} cudaGraphInstantiateResult;

struct cudaKernelNodeParams {
  void *func;
  dim3 gridDim;
  dim3 blockDim;
  unsigned int sharedMemBytes;
  void **kernelParams;
  void **extra;
};

struct cudaMemsetParams {
  void *dst;
  size_t pitch;
  unsigned int value;
  unsigned int elementSize;
  size_t width;
  size_t height;
};

struct cudaHostNodeParams {
  cudaHostFn_t fn;
  void *userData;
};

typedef struct cudaGraphEdgeData_st {
  unsigned char from_port;
  unsigned char to_port;
  unsigned char type;
  unsigned char reserved[5];
} cudaGraphEdgeData;

typedef struct cudaGraphInstantiateParams_st {
  unsigned long long flags;
  cudaStream_t uploadStream;
  cudaGraphNode_t errNode_out;
  cudaGraphInstantiateResult result_out;
} cudaGraphInstantiateParams;

typedef struct cudaGraphExecUpdateResultInfo_st {
  enum cudaGraphExecUpdateResult result;
  cudaGraphNode_t errorNode;
  cudaGraphNode_t errorFromNode;
} cudaGraphExecUpdateResultInfo;

/* cudaGraphAddNode / cudaGraphNodeSetParams: the node types simtvp has, in CUDA 13's layout
 * (256 bytes: type, 3 reserved ints, a 232-byte union, a reserved long long). */
struct cudaMemcpyNodeParams {
  int flags;
  int reserved[3];
  struct cudaMemcpy3DParms copyParams;
};
struct cudaChildGraphNodeParams {
  cudaGraph_t graph;
  int ownership; /* enum cudaGraphChildGraphNodeOwnership: 0 clone */
};
struct cudaGraphNodeParams {
  enum cudaGraphNodeType type;
  int reserved0[3];
  union {
    long long reserved1[29];
    struct cudaKernelNodeParams kernel;    /* cudaKernelNodeParamsV2: the same fields */
    struct cudaMemcpyNodeParams memcpy;
    struct cudaMemsetParams memset;        /* cudaMemsetParamsV2 */
    struct cudaHostNodeParams host;        /* cudaHostNodeParamsV2 */
    struct cudaChildGraphNodeParams graph;
    cudaEvent_t event;                     /* cudaEventWaitNodeParams, cudaEventRecordNodeParams */
  };
  long long reserved2;
};

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_CUDART_TYPES_H */
