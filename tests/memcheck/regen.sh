#!/usr/bin/env bash
# regen.sh — rebuilds the committed memory-checker test program (needs the CUDA toolkit):
#   tests/memcheck/bin/memcheck_cases   nvcc -cudart shared -lineinfo, sm_75 SASS + compute_75 PTX,
#                                       stripped (a real nvcc program loading libcudart.so.13)
#   tests/memcheck/memcheck_cases.ptx   nvcc -ptx -lineinfo -arch=compute_75 (what the GPU runs)
# The build and the test suite never run this; CI uses the committed files.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$(command -v nvcc || echo "$cuda/bin/nvcc")}
[[ -x $NVCC ]] || { echo "regen.sh: $NVCC not found (set CUDA_HOME or NVCC)" >&2; exit 1; }
cd "$here"
"$NVCC" -cudart shared -lineinfo -gencode 'arch=compute_75,code=[sm_75,compute_75]' \
  -o bin/memcheck_cases memcheck_cases.cu
strip bin/memcheck_cases
"$NVCC" -ptx -lineinfo -arch=compute_75 -o memcheck_cases.ptx memcheck_cases.cu
