#!/bin/sh
# sweep.sh BUILD_DIR PROGRAM [simtvp options…] — runs PROGRAM under simtvp with its heap moved by
# 0…511 pages (one 2 MiB region), address-space randomisation off, and counts the distinct
# stats.json files (md5) it gave: 1 when where the heap lies changes nothing.
#   bench/heap_shift/sweep.sh build tests/kernels/bin/zerocopy --set '-simt_model interval'
set -e
build=$1 program=$2
shift 2
out=$(mktemp -d)
cc -shared -fPIC -O2 -o "$out/heap_shift.so" "$(dirname "$0")/heap_shift.c"
k=0
while [ $k -lt 512 ]; do
  env -u SIMTVP_CONFIG -u SIMTVP_OPTIONS -u SIMTVP_OUTDIR HEAP_SHIFT_PAGES=$k LD_PRELOAD="$out/heap_shift.so" \
    setarch -R "$build/bin/simtvp" -q -o "$out/run" "$@" "$program" > /dev/null 2>&1
  md5sum < "$out/run/stats.json" | cut -c1-8
  k=$((k + 1))
done | sort | uniq -c
rm -rf "$out"
