#!/usr/bin/env bash
# run_hw.sh — the hardware side of the correlation suite (docs/correlation.md §11): builds the
# suite with nvcc for sm_90 (plus the GPU's own architecture when it is not sm_90), runs every
# program of suite.txt on the GPU several times and writes CSV files.
#
#   bench/hwcorr/run_hw.sh [--dry-run] [--quick] [--tier sim|all] [--timeout S] [--jobs N] OUTDIR
#
#   --dry-run   build only (no GPU needed): checks the sources compile with this toolkit
#   --quick     fewest repetitions (kernels -r 2, hw_micro -r 1, tests/kernels once) and no warm-up:
#               a check of the whole pipeline, e.g. against simtvp's libraries instead of a GPU
#   --tier      sim: only the runs simtvp is compared on; all (default): the larger hw sizes too
#   --timeout   seconds per program run (default 60)
#   --jobs      parallel nvcc invocations (default: the number of CPUs)
#
# Needs bash, nvcc (CUDA_HOME or PATH; /usr/local/cuda by default), a C++ compiler for the launch
# timer (nvcc's host compiler), coreutils. Nothing is downloaded. nvidia-smi is used when present.
# Exit status: 0 all runs passed their checks; 1 some run failed or timed out (the CSV files hold
# what did run); 2 usage or build error; 3 no usable GPU (nothing run).
#
# OUTDIR gets:
#   machine.csv   key,value: GPU, clocks, driver and CUDA versions, nvidia-smi state before/after
#   kernels.csv   one row per kernel launch (our kernels, with %globaltimer and %clock64 stamps;
#                 tests/kernels programs, cudaEvent only)
#   micro.csv     one row per microbenchmark quantity, size (hw_micro's label) and repetition
#   checks.csv    program,size,verdict,detail per program run (PASS, FAIL, TIMEOUT, NOTIMED: a
#                 tests/kernels program whose launches the launch timer did not see)
#   summary.txt   durations and counts;  logs/  every run's output;  bin/  the binaries built
#                 (so simtvp can run exactly these: compare --bin OUTDIR/bin)
set -uo pipefail

usage() {
  sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed -e '/^set -uo/d' -e 's/^# \{0,1\}//' >&2
  exit 2
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
dry=0 quick=0 tier=all per_run=60 jobs=$(nproc 2>/dev/null || echo 4) out=
while (($#)); do
  case $1 in
    --dry-run) dry=1 ;;
    --quick) quick=1 ;;
    --tier) tier=${2:-}; shift ;;
    --timeout) per_run=${2:-}; shift ;;
    --jobs) jobs=${2:-}; shift ;;
    -h|--help) usage ;;
    -*) echo "run_hw.sh: unknown option $1" >&2; usage ;;
    *) [[ -z $out ]] || { echo "run_hw.sh: one OUTDIR only" >&2; usage; }; out=$1 ;;
  esac
  shift
done
[[ -n $out ]] || usage
[[ $tier == sim || $tier == all ]] || { echo "run_hw.sh: --tier sim|all" >&2; exit 2; }
[[ $per_run =~ ^[0-9]+$ && $jobs =~ ^[0-9]+$ && $jobs -gt 0 ]] || { echo "run_hw.sh: bad --timeout/--jobs" >&2; exit 2; }

t_start=$(date +%s)
cuda=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$(command -v nvcc || echo "$cuda/bin/nvcc")}
[[ -x $NVCC ]] || { echo "run_hw.sh: nvcc not found (set CUDA_HOME or NVCC)" >&2; exit 2; }
cuda=$(cd "$(dirname "$NVCC")/.." && pwd)
mkdir -p "$out/bin" "$out/logs" || exit 2
out=$(cd "$out" && pwd)
bin=$out/bin logs=$out/logs
log() { echo "run_hw.sh: [$(($(date +%s) - t_start)) s] $*"; }
log "nvcc: $("$NVCC" --version | grep -i release | head -n 1)"

# ---- build ------------------------------------------------------------------------------------
gencode=(-gencode 'arch=compute_90,code=[sm_90,compute_90]')
nvflags=(-O3 -std=c++17 -cudart shared -I"$here/src" -Xcompiler -Wall)
build_one() { # <output> <source> [extra flags...]
  local o=$1 s=$2
  shift 2
  local l=$logs/build.$(basename "$o").txt
  local -a gc=("${gencode[@]}")
  # a program of Hopper's arch-specific features (`// simtvp-arch: 90a`: wgmma, setmaxnreg) is
  # built for sm_90a alone (compute_90 cannot express it)
  grep -q '^// simtvp-arch: 90a$' "$s" && gc=(-gencode 'arch=compute_90a,code=[sm_90a,compute_90a]')
  timeout 300 "$NVCC" "${nvflags[@]}" "${gc[@]}" -o "$o" "$s" "$@" >"$l" 2>&1 && return 0
  echo "build failed: $(basename "$o") (log: $l)" | tee -a "$logs/build.failed"
  tail -n 20 "$l"
  return 1
}

# hw_info first: without a GPU the script stops before building the rest.
build_one "$bin/hw_info" "$here/src/hw_info.cu" || exit 2
native=
if ((!dry)); then
  if ! timeout 120 "$bin/hw_info" >"$logs/hw_info.txt" 2>&1; then
    echo "run_hw.sh: no usable CUDA GPU on this machine:" >&2
    sed 's/^/  /' "$logs/hw_info.txt" >&2
    exit 3
  fi
  cc=$(awk -F, '$2 == "compute_capability" { print $3 }' "$logs/hw_info.txt")
  log "GPU: $(awk -F, '$2 == "gpu_name" { print $3 }' "$logs/hw_info.txt"), compute capability $cc"
  native=${cc/./}
  if [[ -n $native && $native != 90 ]]; then
    # Not an sm_90 GPU: add its own SASS (the sm_90 build would not load) and PTX.
    gencode+=(-gencode "arch=compute_$native,code=[sm_$native,compute_$native]")
    log "adding sm_$native code to every program (the GPU is not sm_90)"
    build_one "$bin/hw_info" "$here/src/hw_info.cu" || exit 2
  fi
fi

mapfile -t runs < <(grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$here/suite.txt")
declare -A programs=()
for line in "${runs[@]}"; do
  read -r t p _ <<<"$line"
  [[ $tier == all || $t == sim ]] && programs[$p]=1
done
log "building ${#programs[@]} programs with $jobs parallel nvcc"
rm -f "$logs/build.failed"
for p in "${!programs[@]}"; do
  case $p in
    hw_micro) build_one "$bin/hw_micro" "$here/src/hw_micro.cu" -lcuda -L"$cuda/lib64/stubs" -L"$cuda/lib64" & ;;
    tk_*) build_one "$bin/$p" "$root/tests/kernels/${p#tk_}.cu" -I"$root/tests/kernels" & ;;
    *) build_one "$bin/$p" "$here/src/$p.cu" & ;;
  esac
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n; done
done
# The launch timer's definitions must carry the version node of this toolkit's libcudart (the
# programs' references name it: libcudart.so.13 for CUDA 13).
rt=$(cd "$cuda/lib64" 2>/dev/null && ls libcudart.so.[0-9]* 2>/dev/null | head -n 1)
rt=${rt:-libcudart.so.13}
rt=$(sed -E 's/^(libcudart\.so\.[0-9]+).*/\1/' <<<"$rt")
sed "s/^libcudart\.so\.13 {/$rt {/" "$here/src/launch_timer.map" >"$logs/launch_timer.map"
timeout 300 "$NVCC" -O2 -std=c++17 -Xcompiler -fPIC -Xcompiler -Wall -shared -o "$bin/libhwcorr_launch_timer.so" \
  "$here/src/launch_timer.cc" -Xlinker --version-script="$logs/launch_timer.map" -cudart shared -ldl \
  >"$logs/build.launch_timer.txt" 2>&1 || { echo "build failed: launch timer"; cat "$logs/build.launch_timer.txt"; exit 2; }
wait
[[ -e $logs/build.failed ]] && { echo "run_hw.sh: build failed" >&2; exit 2; }
cp "$here/micro/micro.ptx" "$bin/micro.ptx"
cp "$here/suite.txt" "$bin/suite.txt"
log "build done"
if ((dry)); then
  log "dry run: built into $bin, nothing run"
  exit 0
fi

# ---- machine ------------------------------------------------------------------------------------
export CUDA_MODULE_LOADING=EAGER  # a lazily loaded module would be loaded inside the first timed launch
machine=$out/machine.csv
{
  echo "key,value"
  echo "date_utc,$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host_cpu,$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//; s/,/ /g')"
  echo "nvcc,$("$NVCC" --version | grep -i release | head -n 1 | sed 's/,/ /g')"
  echo "suite_commit,$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)"
  awk -F, '$1 == "INFO" { print $2 "," $3 }' "$logs/hw_info.txt"
} >"$machine"
smi() { # <prefix>: nvidia-smi's view of clocks and limits, when it exists (field by field: a
  # field this driver's nvidia-smi does not know is skipped, not the whole query)
  command -v nvidia-smi >/dev/null || return 0
  local f v
  for f in name driver_version pstate clocks.sm clocks.mem clocks.max.sm clocks.max.mem \
    clocks.applications.graphics power.draw power.limit temperature.gpu persistence_mode \
    clocks_event_reasons.active clocks_throttle_reasons.active ecc.mode.current; do
    v=$(timeout 10 nvidia-smi --query-gpu="$f" --format=csv,noheader,nounits -i 0 2>/dev/null) || continue
    echo "$1$f,$(tr ',\n' '  ' <<<"$v" | sed 's/ *$//')" >>"$machine"
  done
}
smi smi_before_

# ---- runs ---------------------------------------------------------------------------------------
raw=$out/raw.txt
: >"$raw"
checks=$out/checks.csv
echo "program,size,verdict,detail" >"$checks"
n_runs=0 n_fail=0
run_one() { # <program> <label> <rep> <args...>: one process, its lines appended to raw.txt
  local p=$1 label=$2 rep=$3
  shift 3
  local logf=$logs/$p.$label.$rep.txt env=() rc
  if [[ $p == tk_* ]]; then
    env=(LD_PRELOAD="$bin/libhwcorr_launch_timer.so" HWCORR_OUT="$logf.hwc" HWCORR_PROGRAM="$p" HWCORR_SIZE="$label"
      HWCORR_REP="$rep")
    : >"$logf.hwc"
  fi
  (cd "$bin" && env ${env[@]+"${env[@]}"} timeout -k 5 "$per_run" "./$p" "$@") >"$logf" 2>&1
  rc=$?
  [[ $p == tk_* ]] && cat "$logf.hwc" >>"$logf"
  # HWM lines (hw_micro) get the run's label as their second field: hw_micro runs at two sizes.
  sed -n -e '/^HWC,/p' -e "s/^HWM,/HWM,$label,/p" "$logf" >>"$raw"
  n_runs=$((n_runs + 1))
  local verdict detail=-
  if ((rc == 124 || rc == 137)); then
    verdict=TIMEOUT detail="killed after $per_run s"
  elif [[ $p == tk_* && ! -s $logf.hwc ]]; then
    verdict=NOTIMED detail="exit status $rc; the launch timer saw no launch"
  elif ((rc != 0)); then
    verdict=FAIL detail=$(grep -m1 -E '^HWC_CHECK' "$logf" | cut -d, -f5- | tr ',' ' ')
    [[ -n $detail ]] || detail="exit status $rc: $(grep -v -E '^(HWC|HWM)' "$logf" | tail -n 1 | tr ',' ' ')"
  else
    verdict=PASS
  fi
  [[ $verdict == PASS ]] || { n_fail=$((n_fail + 1)); log "$p $label rep $rep: $verdict ($detail)"; }
  echo "$p,$label,$verdict,$detail" >>"$checks"
}

# Bring the GPU out of its idle clocks before anything is timed (its first repetition is discarded
# anyway; this keeps the clock ramp out of the small programs' warm ones).
reps_kernel=6 reps_micro=3 runs_tk=3
if ((quick)); then
  reps_kernel=2 reps_micro=1 runs_tk=1
else
  (cd "$bin" && timeout 60 ./gemm -n 1024 -r 2 >/dev/null 2>&1)
fi
for line in "${runs[@]}"; do
  read -r t p label args <<<"$line"
  [[ $tier == all || $t == sim ]] || continue
  read -r -a argv <<<"${args:-}"
  case $p in
    tk_*) for ((rep = 0; rep < runs_tk; rep++)); do run_one "$p" "$label" "$rep"; done ;;
    hw_micro) run_one "$p" "$label" 0 ${argv[@]+"${argv[@]}"} -r "$reps_micro" ;;
    *) run_one "$p" "$label" 0 ${argv[@]+"${argv[@]}"} -r "$reps_kernel" ;;
  esac
done
smi smi_after_

# ---- CSV files ----------------------------------------------------------------------------------
gpu=$(awk -F, '$1 == "gpu_name" { print $2 }' "$machine")
drv=$(awk -F, '$1 == "cuda_driver_version" { print $2 }' "$machine")
rtv=$(awk -F, '$1 == "cuda_runtime_version" { print $2 }' "$machine")
# The SM clock of each program run: its clock_calib row (cycles / ns), joined onto its rows.
awk -F, -v gpu="$gpu" -v drv="$drv" -v rtv="$rtv" '
  BEGIN { print "gpu,cuda_driver,cuda_runtime,program,kernel,size,launch,rep,ctas,block,event_ns,span_ns," \
                "cta_cycles_max,cta_cycles_sum,cta_ns_sum,sm_clock_mhz" }
  $1 == "HWC" { rows[++n] = $0; if ($3 == "clock_calib" && $13 > 0) mhz[$2 "," $4] = sprintf("%.1f", 1000 * $12 / $13) }
  END {
    for (i = 1; i <= n; i++) {
      split(rows[i], f, ",")
      k = f[2] "," f[4]
      printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", gpu, drv, rtv, f[2], f[3], f[4], f[5], f[6], f[7], \
        f[8], f[9], f[10], f[11], f[12], f[13], (k in mhz ? mhz[k] : "")
    }
  }' "$raw" >"$out/kernels.csv"
awk -F, -v gpu="$gpu" -v drv="$drv" -v rtv="$rtv" '
  BEGIN { print "gpu,cuda_driver,cuda_runtime,size,quantity,unit,value,rep" }
  $1 == "HWM" { printf "%s,%s,%s,%s,%s,%s,%s,%s\n", gpu, drv, rtv, $2, $3, $4, $5, $6 }' "$raw" >"$out/micro.csv"

t_end=$(date +%s)
{
  echo "run_hw.sh on $(hostname 2>/dev/null || echo ?), $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "GPU: $gpu; CUDA driver $drv, runtime $rtv; tier $tier; timeout $per_run s per run"
  echo "program runs: $n_runs, not passed: $n_fail"
  echo "kernel rows: $(($(wc -l <"$out/kernels.csv") - 1)), micro rows: $(($(wc -l <"$out/micro.csv") - 1))"
  echo "wall time: $((t_end - t_start)) s"
} | tee "$out/summary.txt"
((n_fail == 0))
