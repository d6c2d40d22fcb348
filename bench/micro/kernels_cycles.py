#!/usr/bin/env python3
"""kernels_cycles — simulated cycles of the tests/kernels programs under several timing setups.

Runs every committed nvcc program of tests/kernels/bin (unmodified CUDA programs on simtvp's
libcudart.so.13) with the statistics JSON switched on, and prints one Markdown table: the kernels'
total gpu_sim_cycle per setup and, for the variants of the default configuration, the difference
from its all-CA run. docs/correlation.md §5 shows its output.

    bench/micro/kernels_cycles.py BUILD_DIR [program ...]

BUILD_DIR is a build directory with lib/libcudart.so.13 (target simtvp_cudart). `kernels` is the
number of kernel launches (each pays -gpgpu_kernel_launch_latency: 5000 cycles in the RTX2060 and
default files, none in the QV100 file). Setups:
default CA cores + CA DRAM (the reference), default with AT DRAM, default with AT cores, the full
RTX2060 and the full QV100 (CA/CA). Not a test: nothing is asserted.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROGRAMS = ["atomics", "bitonic_sort", "const_globals", "daxpy", "dynamic_smem", "histogram", "printf",
            "recursion", "reduction", "scan", "sgemm", "streams_events", "texture", "transpose",
            "vector_add", "warp_vote", "wmma"]
SETUPS = [
    ("default CA/CA", "configs/default.config", "-simt_model ca -dram_model ca"),
    ("default CA/AT-DRAM", "configs/default.config", "-simt_model ca -dram_model at"),
    ("default AT-SIMT/CA", "configs/default.config", "-simt_model at -dram_model ca"),
    ("RTX2060 CA/CA", "configs/SM75_RTX2060.config", "-simt_model ca -dram_model ca"),
    ("QV100 CA/CA", "configs/SM7_QV100.config", "-simt_model ca -dram_model ca"),
]


def run(build, program, config, options):
    """Total gpu_sim_cycle and gpu_sim_insn of the program's kernels, host seconds; None on failure."""
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(build, "lib"),
                   SIMTVP_CONFIG=os.path.join(SRC, config), SIMTVP_OPTIONS=options,
                   SIMTVP_QUIET="1", SIMTVP_OUTDIR=out)
        t0 = time.time()
        p = subprocess.run([os.path.join(SRC, "tests/kernels/bin", program)], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=900)
        seconds = time.time() - t0
        if p.returncode != 0:
            return None
        with open(os.path.join(out, "stats.json")) as f:
            stats = json.load(f)
    cycles = sum(k["counters"].get("gpu_sim_cycle", 0) for k in stats["kernels"])
    insn = sum(k["counters"].get("gpu_sim_insn", 0) for k in stats["kernels"])
    return cycles, insn, seconds, len(stats["kernels"])


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    build = os.path.abspath(sys.argv[1])
    programs = sys.argv[2:] or PROGRAMS
    print("| program | kernels | " + " | ".join(s[0] for s in SETUPS) + " |")
    print("|---|---:|" + "---:|" * len(SETUPS))
    for prog in programs:
        cells, ref, kernels = [], None, "?"
        for i, (label, config, options) in enumerate(SETUPS):
            r = run(build, prog, config, options)
            if r is None:
                cells.append("failed")
                continue
            cycles = r[0]
            kernels = str(r[3])
            if i == 0:
                ref = cycles
                cells.append(f"{cycles:,}")
            elif label.startswith("default") and ref:
                cells.append(f"{cycles:,} ({100.0 * (cycles - ref) / ref:+.1f}%)")
            else:
                cells.append(f"{cycles:,}")
        print(f"| {prog} | {kernels} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
