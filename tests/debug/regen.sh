#!/usr/bin/env bash
# regen.sh — rebuilds tests/debug/bin/vector_add_lineinfo: tests/kernels/vector_add.cu built as
# tests/kernels/regen.sh builds bin/vector_add (nvcc -cudart shared, sm_75 SASS + compute_75 PTX,
# stripped) plus -lineinfo, so its PTX carries the .loc/.file source lines the debugger's
# source-line breakpoints use. The build and the tests never run this; CI uses the committed file.
#
# Environment: CUDA_HOME (default /usr/local/cuda), or NVCC pointing at nvcc.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$(command -v nvcc || echo "$cuda/bin/nvcc")}
[[ -x $NVCC ]] || { echo "regen.sh: $NVCC not found (set CUDA_HOME or NVCC)" >&2; exit 1; }
mkdir -p "$here/bin"
cd "$here/../kernels"
"$NVCC" -cudart shared -lineinfo -gencode 'arch=compute_75,code=[sm_75,compute_75]' -Xlinker --strip-all \
  -o "$here/bin/vector_add_lineinfo" vector_add.cu
echo "regen.sh: $(ls -l "$here/bin/vector_add_lineinfo" | awk '{ print $5 }') bytes, tests/debug/bin/vector_add_lineinfo"
