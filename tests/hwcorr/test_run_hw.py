#!/usr/bin/env python3
"""Tests of bench/hwcorr/run_hw.sh's argument and toolkit checks: the paths that stop before
anything is built or run (no GPU and no CUDA toolkit needed). Each CTest case runs one method:
test_run_hw.py RunHwTest.<method>."""
import os
import subprocess
import tempfile
import unittest

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN_HW = os.path.join(SRC, "bench", "hwcorr", "run_hw.sh")


def run(args, **env):
    e = dict(os.environ, **env)
    p = subprocess.run(["bash", RUN_HW] + args, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    return p.returncode, p.stdout.decode() + p.stderr.decode()


class RunHwTest(unittest.TestCase):
    def test_no_output_folder_prints_the_usage(self):
        rc, out = run([])
        self.assertEqual(rc, 2)
        self.assertIn("run_hw.sh [--dry-run]", out)

    def test_an_unknown_option_is_named(self):
        rc, out = run(["--fast", "/tmp/x"])
        self.assertEqual(rc, 2)
        self.assertIn("unknown option --fast", out)

    def test_a_bad_tier_is_refused(self):
        rc, out = run(["--tier", "everything", "/tmp/x"])
        self.assertEqual(rc, 2)
        self.assertIn("--tier sim|all", out)

    def test_a_missing_nvcc_stops_before_anything_is_written(self):
        with tempfile.TemporaryDirectory() as tmp:
            out_dir = os.path.join(tmp, "out")
            rc, out = run([out_dir], NVCC=os.path.join(tmp, "no-such-nvcc"))
            self.assertEqual(rc, 2)
            self.assertIn("nvcc not found (set CUDA_HOME or NVCC)", out)
            self.assertFalse(os.path.exists(out_dir))


if __name__ == "__main__":
    unittest.main()
