#!/usr/bin/env bash
# SweepSlurm: simtvp-sweep's Slurm back end against a real single-node Slurm cluster on localhost
# (slurm_cluster.sh): a small sweep (2 programs × 2 cluster counts × 2 fidelities = 8 jobs; the AT
# fidelity runs on 2 simulation threads and so asks for 2 CPUs: four resource requests → four
# array jobs) runs through sbatch and its collected table must equal the local back end's byte for
# byte; a second run submits nothing; a job made half-written is the only
# one submitted again; a cancelled task is reported with Slurm's verdict. Exit 77 (skipped) when
# Debian's slurm-wlm and munge are not installed.
#
#   slurm_test.sh BIN_DIR SOURCE_DIR       (BIN_DIR holds simtvp and simtvp-sweep)
set -u
bin=$1
src=$2
here=$(cd "$(dirname "$0")" && pwd)
sweep="$bin/simtvp-sweep"
# Short paths: munge's and Slurm's sockets live under the cluster folder.
work=$(mktemp -d "${TMPDIR:-/tmp}/simtvp-slurm.XXXXXX")
chmod 0755 "$work"

cleanup() {
  "$here/slurm_cluster.sh" stop "$work/cluster"
  rm -rf "$work"
}
fail() {
  echo "FAIL: $*" >&2
  for f in "$work"/cluster/log/*.log; do [ -f "$f" ] && { echo "--- $f" >&2; tail -n 15 "$f" >&2; }; done
  cleanup
  exit 1
}

conf=$("$here/slurm_cluster.sh" start "$work/cluster")
rc=$?
if [ $rc -eq 77 ]; then rm -rf "$work"; exit 77; fi
[ $rc -eq 0 ] || { rm -rf "$work"; echo "FAIL: the test cluster did not start" >&2; exit 1; }
export SLURM_CONF=$conf
trap cleanup INT TERM
# The AT jobs run with -sim_threads 2 (a CPU per thread) where the node has two CPUs.
threads=2
[ "$(nproc)" -ge 2 ] || threads=1

cat > "$work/small.toml" <<SPEC
name = "slurm-test"

[[program]]
path = "$src/tests/kernels/bin/vector_add"
args = ["4096"]

[[program]]
path = "$src/tests/kernels/bin/streams_events"
slurm = { mem = "300M" }     # another resource request: a second array job

[options]
"-gpgpu_n_clusters" = [2, 4]

[[fidelity]]
name = "ca"
set = ["-simt_model ca"]

[[fidelity]]
name = "at"
set = ["-simt_model at", "-dram_model at", "-sim_threads $threads"]

[table]
statistics = ["gpu_sim_cycle", "gpu_sim_insn", "gpu_ipc", "L2_total_cache_misses", "DRAM[*].dram_eff"]

[slurm]
time = "00:05:00"
mem = "500M"
SPEC

# 1. The same sweep on both back ends.
timeout 120 "$sweep" run "$work/small.toml" -o "$work/local" -j 2 || fail "local back end"
timeout 240 "$sweep" run "$work/small.toml" --backend slurm -o "$work/slurm" --poll 0.2 ||
  fail "slurm back end"
cmp "$work/local/table.csv" "$work/slurm/table.csv" || fail "table.csv differs between local and slurm"
python3 - "$work" "$threads" <<'PY' || fail "table.json / job records"
import json, sys
w, threads = sys.argv[1], int(sys.argv[2])
loc, slu = (json.load(open(f"{w}/{b}/table.json")) for b in ("local", "slurm"))
assert loc == slu, "table.json differs between the back ends"
assert len(loc["rows"]) == 12, f"expected 12 rows (4 vector_add jobs x 1 kernel + 4 streams_events x 2), got {len(loc['rows'])}"
subs = json.load(open(f"{w}/slurm/slurm/submissions.json"))
arrays = 4 if threads > 1 else 2
assert len(subs) == arrays, f"expected {arrays} array jobs (resource requests), got {len(subs)}"
for job in json.load(open(f"{w}/slurm/plan.json"))["jobs"]:
    st = json.load(open(job["dir"] + "/status.json"))
    assert st["state"] == "ok", job["name"]
    mem = "300" if job["name"].startswith("streams_events") else "500"
    assert st["slurm"].get("mem_per_node_mb") == mem, f"{job['name']}: ran with {st['slurm']}, wanted mem {mem}M"
    if job["name"].endswith(".at") and threads > 1:
        assert st["slurm"].get("cpus_per_task") == "2", f"{job['name']}: ran with {st['slurm']}, wanted 2 CPUs"
        assert st["threads"] == 2, job["name"]
print(f"tables equal; {arrays} array jobs; every task ran with its resources")
PY

# 2. Run again: everything finished, nothing submitted.
out=$(timeout 60 "$sweep" run "$work/small.toml" --backend slurm -o "$work/slurm" --poll 0.2 2>&1) ||
  fail "second slurm run: $out"
echo "$out" | grep -q "8 finished earlier (skipped).*0 to run" || fail "second run did not skip: $out"
arrays=$([ "$threads" -gt 1 ] && echo 4 || echo 2)
[ "$(python3 -c "import json;print(len(json.load(open('$work/slurm/slurm/submissions.json'))))")" = "$arrays" ] ||
  fail "the second run submitted something"

# 3. A half-written job (no status, stats.json cut short) is the only one submitted again.
job="$work/slurm/jobs/vector_add.gpgpu_n_clusters=4.at"
rm "$job/status.json"
head -c 100 "$job/stats.json" > "$job/stats.tmp" && mv "$job/stats.tmp" "$job/stats.json"
out=$(timeout 120 "$sweep" run "$work/small.toml" --backend slurm -o "$work/slurm" --poll 0.2 2>&1) ||
  fail "resumed slurm run: $out"
echo "$out" | grep -q "7 finished earlier (skipped).*1 to run" || fail "resume did not redo one job: $out"
echo "$out" | grep -q "array job [0-9]*, 1 tasks" || fail "resume did not submit exactly one task: $out"
cmp "$work/local/table.csv" "$work/slurm/table.csv" || fail "table.csv differs after the resumed run"

# 4. A task cancelled in the queue: reported with Slurm's verdict, the job stays pending.
cat > "$work/gate.sh" <<'GATE'
#!/bin/sh
# Waits until the test lets it go, then runs the real program.
touch "$GATE_DIR/started"
while [ ! -e "$GATE_DIR/release" ]; do sleep 0.1; done
exec "$@"
GATE
chmod +x "$work/gate.sh"
cat > "$work/gate.toml" <<SPEC
name = "gate"
[[program]]
name = "gated"
path = "$work/gate.sh"
args = ["$src/tests/kernels/bin/vector_add", "4096"]
env = { GATE_DIR = "$work" }
[slurm]
time = "00:05:00"
SPEC
timeout 60 "$sweep" run "$work/gate.toml" --backend slurm -o "$work/gate" --no-wait || true
for _ in $(seq 300); do [ -e "$work/started" ] && break; sleep 0.1; done
[ -e "$work/started" ] || fail "the gated task never started"
scancel "$(python3 -c "import json;print(json.load(open('$work/gate/slurm/submissions.json'))[0]['array_id'])")"
for _ in $(seq 100); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.2; done
out=$("$sweep" status "$work/gate.toml" -o "$work/gate" 2>&1)
echo "$out" | grep -q "^pending  gated  Slurm task [0-9]*_0 ended CANCELLED" ||
  fail "the cancelled task is not reported with Slurm's state: $out"
touch "$work/release"
out=$(timeout 120 "$sweep" run "$work/gate.toml" --backend slurm -o "$work/gate" --poll 0.2 2>&1) ||
  fail "the cancelled job did not run again: $out"

echo "PASS: slurm and local tables equal; resume and cancellation behave"
cleanup
exit 0
