/* cu_result — CUresult, the driver API's result codes (CUDA 13 numbering), with their names and
 * a one-line description each (simtvp's own wording). The numbers and names are the public ABI of
 * libcuda.so.1; cuGetErrorName/cuGetErrorString read this table. */
#ifndef SIMTVP_CU_RESULT_H
#define SIMTVP_CU_RESULT_H

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, value, description) */
#define CU_RESULT_TABLE(X)                                                                          \
  X(CUDA_SUCCESS, 0, "no error")                                                                   \
  X(CUDA_ERROR_INVALID_VALUE, 1, "invalid argument")                                               \
  X(CUDA_ERROR_OUT_OF_MEMORY, 2, "out of memory")                                                  \
  X(CUDA_ERROR_NOT_INITIALIZED, 3, "initialization error (cuInit not called or failed)")           \
  X(CUDA_ERROR_DEINITIALIZED, 4, "driver shutting down")                                           \
  X(CUDA_ERROR_PROFILER_DISABLED, 5, "profiler disabled")                                          \
  X(CUDA_ERROR_PROFILER_NOT_INITIALIZED, 6, "profiler not initialized")                            \
  X(CUDA_ERROR_PROFILER_ALREADY_STARTED, 7, "profiler already started")                            \
  X(CUDA_ERROR_PROFILER_ALREADY_STOPPED, 8, "profiler already stopped")                            \
  X(CUDA_ERROR_STUB_LIBRARY, 34, "stub library loaded instead of a driver")                        \
  X(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, 36, "call requires a newer driver")                     \
  X(CUDA_ERROR_DEVICE_UNAVAILABLE, 46, "device unavailable")                                       \
  X(CUDA_ERROR_NO_DEVICE, 100, "no CUDA-capable device is detected")                               \
  X(CUDA_ERROR_INVALID_DEVICE, 101, "invalid device ordinal")                                      \
  X(CUDA_ERROR_DEVICE_NOT_LICENSED, 102, "device not licensed")                                    \
  X(CUDA_ERROR_INVALID_IMAGE, 200, "device kernel image is invalid")                               \
  X(CUDA_ERROR_INVALID_CONTEXT, 201, "invalid device context")                                     \
  X(CUDA_ERROR_CONTEXT_ALREADY_CURRENT, 202, "context already current")                            \
  X(CUDA_ERROR_MAP_FAILED, 205, "mapping of buffer object failed")                                 \
  X(CUDA_ERROR_UNMAP_FAILED, 206, "unmapping of buffer object failed")                             \
  X(CUDA_ERROR_ARRAY_IS_MAPPED, 207, "array is mapped")                                            \
  X(CUDA_ERROR_ALREADY_MAPPED, 208, "resource already mapped")                                     \
  X(CUDA_ERROR_NO_BINARY_FOR_GPU, 209, "no kernel image is available for execution on the device") \
  X(CUDA_ERROR_ALREADY_ACQUIRED, 210, "resource already acquired")                                 \
  X(CUDA_ERROR_NOT_MAPPED, 211, "resource not mapped")                                             \
  X(CUDA_ERROR_NOT_MAPPED_AS_ARRAY, 212, "resource not mapped as array")                           \
  X(CUDA_ERROR_NOT_MAPPED_AS_POINTER, 213, "resource not mapped as pointer")                       \
  X(CUDA_ERROR_ECC_UNCORRECTABLE, 214, "uncorrectable ECC error encountered")                      \
  X(CUDA_ERROR_UNSUPPORTED_LIMIT, 215, "limit is not supported on this device")                    \
  X(CUDA_ERROR_CONTEXT_ALREADY_IN_USE, 216, "context already in use")                              \
  X(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, 217, "peer access is not supported between these devices") \
  X(CUDA_ERROR_INVALID_PTX, 218, "a PTX JIT compilation failed")                                   \
  X(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, 219, "invalid OpenGL or DirectX context")                 \
  X(CUDA_ERROR_NVLINK_UNCORRECTABLE, 220, "uncorrectable NVLink error detected")                   \
  X(CUDA_ERROR_JIT_COMPILER_NOT_FOUND, 221, "PTX JIT compiler library not found")                  \
  X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, 222, "the PTX was compiled with an unsupported toolchain")  \
  X(CUDA_ERROR_JIT_COMPILATION_DISABLED, 223, "PTX JIT compilation was disabled")                  \
  X(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, 224, "the execution affinity type is not supported")      \
  X(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC, 225, "device-side synchronisation is not supported")      \
  X(CUDA_ERROR_CONTAINED, 226, "a contained error was encountered")                                \
  X(CUDA_ERROR_INVALID_SOURCE, 300, "device kernel image source is invalid")                       \
  X(CUDA_ERROR_FILE_NOT_FOUND, 301, "file not found")                                              \
  X(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, 302, "shared object symbol not found")              \
  X(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, 303, "shared object initialization failed")              \
  X(CUDA_ERROR_OPERATING_SYSTEM, 304, "OS call failed or operation not supported on this OS")      \
  X(CUDA_ERROR_INVALID_HANDLE, 400, "invalid resource handle")                                     \
  X(CUDA_ERROR_ILLEGAL_STATE, 401, "the operation is not valid in the current state")              \
  X(CUDA_ERROR_LOSSY_QUERY, 402, "attribute query would lose information")                         \
  X(CUDA_ERROR_NOT_FOUND, 500, "named symbol not found")                                           \
  X(CUDA_ERROR_NOT_READY, 600, "device not ready")                                                 \
  X(CUDA_ERROR_ILLEGAL_ADDRESS, 700, "an illegal memory access was encountered")                   \
  X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, 701, "too many resources requested for launch")            \
  X(CUDA_ERROR_LAUNCH_TIMEOUT, 702, "the launch timed out and was terminated")                     \
  X(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, 703, "launch uses an incompatible texturing mode")   \
  X(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, 704, "peer access is already enabled")                 \
  X(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, 705, "peer access has not been enabled")                   \
  X(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, 708, "the primary context is already active")               \
  X(CUDA_ERROR_CONTEXT_IS_DESTROYED, 709, "context is destroyed")                                  \
  X(CUDA_ERROR_ASSERT, 710, "device-side assert triggered")                                        \
  X(CUDA_ERROR_TOO_MANY_PEERS, 711, "peer mapping resources exhausted")                            \
  X(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, 712, "host memory already registered")              \
  X(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, 713, "host memory not registered")                      \
  X(CUDA_ERROR_HARDWARE_STACK_ERROR, 714, "hardware stack error")                                  \
  X(CUDA_ERROR_ILLEGAL_INSTRUCTION, 715, "an illegal instruction was encountered")                 \
  X(CUDA_ERROR_MISALIGNED_ADDRESS, 716, "misaligned address")                                      \
  X(CUDA_ERROR_INVALID_ADDRESS_SPACE, 717, "operation not supported on global/shared address space") \
  X(CUDA_ERROR_INVALID_PC, 718, "invalid program counter")                                         \
  X(CUDA_ERROR_LAUNCH_FAILED, 719, "unspecified launch failure")                                   \
  X(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, 720, "too many blocks in cooperative launch")         \
  X(CUDA_ERROR_TENSOR_MEMORY_LEAK, 721, "tensor memory not released before kernel exit")           \
  X(CUDA_ERROR_NOT_PERMITTED, 800, "operation not permitted")                                      \
  X(CUDA_ERROR_NOT_SUPPORTED, 801, "operation not supported")                                      \
  X(CUDA_ERROR_SYSTEM_NOT_READY, 802, "system not yet initialized")                                \
  X(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, 803, "system has unsupported display driver / cuda driver combination") \
  X(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, 804, "forward compatibility was attempted on non supported hardware") \
  X(CUDA_ERROR_MPS_CONNECTION_FAILED, 805, "MPS client failed to connect to the MPS server")        \
  X(CUDA_ERROR_MPS_RPC_FAILURE, 806, "the remote procedural call between the MPS server and client failed") \
  X(CUDA_ERROR_MPS_SERVER_NOT_READY, 807, "MPS server is not ready")                               \
  X(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED, 808, "the hardware resources for MPS clients are exhausted") \
  X(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED, 809, "MPS connection resources are exhausted")         \
  X(CUDA_ERROR_MPS_CLIENT_TERMINATED, 810, "the MPS client was terminated by the server")          \
  X(CUDA_ERROR_CDP_NOT_SUPPORTED, 811, "dynamic parallelism is not supported by this module")      \
  X(CUDA_ERROR_CDP_VERSION_MISMATCH, 812, "dynamic parallelism version mismatch")                  \
  X(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, 900, "operation not permitted when stream is capturing") \
  X(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, 901, "operation failed due to a previous error during capture") \
  X(CUDA_ERROR_STREAM_CAPTURE_MERGE, 902, "operation would result in a merge of separate capture sequences") \
  X(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, 903, "capture was not ended in the same stream as it began") \
  X(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, 904, "capturing stream has unjoined work")                 \
  X(CUDA_ERROR_STREAM_CAPTURE_ISOLATION, 905, "dependency created on uncaptured work in another stream") \
  X(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, 906, "operation would make the legacy stream depend on a capturing blocking stream") \
  X(CUDA_ERROR_CAPTURED_EVENT, 907, "operation not permitted on an event last recorded in a capturing stream") \
  X(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, 908, "a stream capture sequence was not ended by the thread that began it") \
  X(CUDA_ERROR_TIMEOUT, 909, "wait operation timed out")                                           \
  X(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, 910, "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update") \
  X(CUDA_ERROR_EXTERNAL_DEVICE, 911, "an async error has occurred in an external entity")          \
  X(CUDA_ERROR_INVALID_CLUSTER_SIZE, 912, "a kernel launch error has occurred due to cluster misconfiguration") \
  X(CUDA_ERROR_FUNCTION_NOT_LOADED, 913, "the function handle is not loaded")                      \
  X(CUDA_ERROR_INVALID_RESOURCE_TYPE, 914, "invalid resource type")                                \
  X(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, 915, "invalid resource configuration")              \
  X(CUDA_ERROR_KEY_ROTATION, 916, "key rotation error")                                            \
  X(CUDA_ERROR_UNKNOWN, 999, "unknown error")

#define CU_RESULT_ENUM_(name, value, text) name = value,
typedef enum cu_result { CU_RESULT_TABLE(CU_RESULT_ENUM_) } cu_result;
#undef CU_RESULT_ENUM_

/* Name ("CUDA_ERROR_INVALID_VALUE") and description of a code; NULL for an unknown value. */
const char *cu_result_name(int code);
const char *cu_result_string(int code);

#ifdef __cplusplus
}
#endif

#endif /* SIMTVP_CU_RESULT_H */
