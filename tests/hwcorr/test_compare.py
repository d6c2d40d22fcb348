#!/usr/bin/env python3
"""Tests of bench/hwcorr/compare on small synthetic hardware and simtvp results (no GPU, no simtvp
run). Each CTest case runs one method: test_compare.py CompareTest.<method>.

The synthetic data, and the figures the tests expect, computed by hand:

  GPU side: program alpha, size 64, clock_calib 4000 cycles in 2000 ns -> 2000 MHz.
  simtvp side: the same program, clock_calib 1000 cycles in 1000 ns -> 1000 MHz.
  Grid spans (ns) per kernel, repetition 0 (cold) deliberately far off on both sides:

    kernel  GPU reps 1,2 -> median -> cycles (x 2.0)   simtvp rep 1 -> cycles (x 1.0)   error
    k1      50, 50       -> 50     -> 100               110 -> 110                     +10 %
    k2      90, 110      -> 100    -> 200               180 -> 180                     -10 %
    k3      200, 200     -> 200    -> 400               400 -> 400                       0 %
    k4      400, 400     -> 400    -> 800               1000 -> 1000                   +25 %
    k5      300, 300 (GPU only: not compared)

  MAE over k1..k4 = (10 + 10 + 0 + 25) / 4 = 11.25 %.
  Pearson r of x = (100, 200, 400, 800), y = (110, 180, 400, 1000):
    mean x = 375, mean y = 422.5; dx = (-275, -175, 25, 425), dy = (-312.5, -242.5, -22.5, 577.5)
    sum dx dy = 85937.5 + 42437.5 - 562.5 + 245437.5 = 373250
    sum dx^2 = 287500, sum dy^2 = 490475
    r = 373250 / sqrt(287500 x 490475) = 373250 / 375515.1 = 0.99397

  tests/kernels program tk_demo (cudaEvent only, every run used): GPU 3000, 3100, 3200 ns -> median
  3100 ns at the GPU side's clock (2000 MHz, the median of its calibrations) = 6200 cycles; simtvp
  9300 ns at 1000 MHz = 9300 cycles: error +50 %. All five: MAE = (10 + 10 + 0 + 25 + 50) / 5 = 19 %.

  Microbenchmarks (size s): l1d_hit_latency GPU 40, 40, 41 -> 40, simtvp 25 -> -37.5 % (outside
  15 %); l2_hit_latency GPU 200, simtvp 190 -> -5 % (inside); the GPU's size-l row has no simtvp
  counterpart.
"""
import contextlib
import csv
import importlib.machinery
import importlib.util
import io
import json
import os
import sys
import tempfile
import unittest

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMPARE = os.path.join(SRC, "bench", "hwcorr", "compare")


def load_compare():
    loader = importlib.machinery.SourceFileLoader("hwcorr_compare", COMPARE)
    spec = importlib.util.spec_from_loader("hwcorr_compare", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


compare = load_compare()

KERNEL_HEADER = compare.KERNEL_FIELDS


def kernel_row(gpu, program, kernel, size, launch, rep, event_ns, span_ns, cycles_sum=0, ns_sum=0):
    return {"gpu": gpu, "cuda_driver": "13000", "cuda_runtime": "13000", "program": program, "kernel": kernel,
            "size": size, "launch": launch, "rep": rep, "ctas": 1, "block": 32, "event_ns": event_ns,
            "span_ns": span_ns, "cta_cycles_max": cycles_sum, "cta_cycles_sum": cycles_sum, "cta_ns_sum": ns_sum,
            "sm_clock_mhz": ""}


def write_csv(path, fields, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow(r)


def micro_row(quantity, value, rep, size="s"):
    return {"gpu": "g", "cuda_driver": "1", "cuda_runtime": "1", "size": size, "quantity": quantity,
            "unit": "cycles", "value": value, "rep": rep}


def make_sides(tmp):
    hw, sim = os.path.join(tmp, "hw"), os.path.join(tmp, "sim")
    os.makedirs(hw)
    os.makedirs(sim)
    rows = [kernel_row("GPU", "alpha", "clock_calib", "64", 0, 1, 2100, 2000, 4000, 2000)]
    spans = {"k1": (50, 50), "k2": (90, 110), "k3": (200, 200), "k4": (400, 400), "k5": (300, 300)}
    for k, (a, b) in spans.items():
        rows.append(kernel_row("GPU", "alpha", k, "64", 0, 0, 99999, 99999))  # cold: left out
        rows.append(kernel_row("GPU", "alpha", k, "64", 0, 1, a + 1000, a))
        rows.append(kernel_row("GPU", "alpha", k, "64", 0, 2, b + 1000, b))
    for rep, ns in enumerate((3000, 3100, 3200)):
        rows.append(kernel_row("GPU", "tk_demo", "_Z4demov", "-", 0, rep, ns, 0))
    write_csv(os.path.join(hw, "kernels.csv"), KERNEL_HEADER, rows)
    write_csv(os.path.join(hw, "micro.csv"), compare.MICRO_FIELDS,
              [micro_row("l1d_hit_latency", v, r) for r, v in enumerate((40, 40, 41))] +
              [micro_row("l2_hit_latency", 200, 0), micro_row("l2_hit_latency", 260, 0, "l")])
    write_csv(os.path.join(hw, "machine.csv"), ["key", "value"], [{"key": "gpu_name", "value": "Synthetic GPU"}])

    rows = [kernel_row("sim", "alpha", "clock_calib", "64", 0, 1, 1500, 1000, 1000, 1000)]
    for k, ns in {"k1": 110, "k2": 180, "k3": 400, "k4": 1000}.items():
        rows.append(kernel_row("sim", "alpha", k, "64", 0, 0, 77777, 77777))  # cold: left out
        rows.append(kernel_row("sim", "alpha", k, "64", 0, 1, ns + 9000, ns))
    rows.append(kernel_row("sim", "tk_demo", "_Z4demov", "-", 0, 0, 9300, 0))
    write_csv(os.path.join(sim, "kernels.csv"), KERNEL_HEADER, rows)
    write_csv(os.path.join(sim, "micro.csv"), compare.MICRO_FIELDS,
              [micro_row("l1d_hit_latency", 25, 0), micro_row("l2_hit_latency", 190, 0)])
    return hw, sim


class CompareTest(unittest.TestCase):
    def setUp(self):
        self.tmpdir = tempfile.TemporaryDirectory()
        self.tmp = self.tmpdir.name
        self.hw, self.sim = make_sides(self.tmp)
        self.out = os.path.join(self.tmp, "out")

    def tearDown(self):
        self.tmpdir.cleanup()

    def run_compare(self):
        return compare.compare(self.hw, self.sim, self.out)

    def by_kernel(self, records):
        return {r["kernel"]: r for r in records}

    def test_mae_and_correlation_match_the_hand_computation(self):
        _, summary, _ = self.run_compare()
        s = dict(summary)
        self.assertEqual(s["suite kernels"]["n"], 4)
        self.assertAlmostEqual(s["suite kernels"]["mae"], 0.1125, places=12)
        self.assertAlmostEqual(s["suite kernels"]["r"], 373250 / (287500 * 490475) ** 0.5, places=12)
        self.assertAlmostEqual(s["suite kernels"]["r"], 0.99397, places=5)
        self.assertEqual(s["all"]["n"], 5)
        self.assertAlmostEqual(s["all"]["mae"], 0.19, places=12)
        self.assertAlmostEqual(s["suite kernels"]["within20"], 0.75)  # k4 (+25 %) is outside
        self.assertAlmostEqual(s["suite kernels"]["within30"], 1.0)

    def test_cold_repetition_is_left_out_and_the_warm_median_kept(self):
        k = self.by_kernel(self.run_compare()[0])
        self.assertEqual(k["k2"]["hw_ns"], 100)  # median of 90 and 110; rep 0 (99999) left out
        self.assertEqual(k["k2"]["hw_reps"], 2)
        self.assertEqual(k["k1"]["sim_ns"], 110)  # rep 0 (77777) left out
        self.assertEqual(k["k1"]["sim_reps"], 1)

    def test_cycles_use_the_clock_each_side_measured(self):
        k = self.by_kernel(self.run_compare()[0])
        self.assertEqual(k["k4"]["hw_mhz"], 2000)
        self.assertEqual(k["k4"]["sim_mhz"], 1000)
        self.assertEqual(k["k4"]["hw_cycles"], 800)
        self.assertEqual(k["k4"]["sim_cycles"], 1000)
        self.assertAlmostEqual(k["k4"]["error"], 0.25)

    def test_tests_kernels_programs_use_the_event_time_of_every_run(self):
        k = self.by_kernel(self.run_compare()[0])
        demo = k["_Z4demov"]
        self.assertEqual(demo["source"], "event")
        self.assertEqual(demo["hw_reps"], 3)
        self.assertEqual(demo["hw_cycles"], 6200)
        self.assertEqual(demo["sim_cycles"], 9300)
        self.assertAlmostEqual(demo["error"], 0.5)

    def test_event_metric_times_every_kernel_by_its_events(self):
        records, _, _ = compare.compare(self.hw, self.sim, self.out, metric="event")
        k = self.by_kernel(records)
        self.assertEqual(k["k1"]["source"], "event")
        self.assertEqual(k["k1"]["hw_ns"], 1050)  # 50 + 1000 in both warm repetitions

    def test_kernels_on_one_side_only_are_counted_not_compared(self):
        records, _, _ = self.run_compare()
        self.assertNotIn("k5", self.by_kernel(records))
        with open(os.path.join(self.out, "comparison.md")) as f:
            self.assertIn("1 kernel launch(es) only on the GPU, 0 only on simtvp", f.read())

    def test_microbenchmarks_get_their_error_and_the_15_percent_verdict(self):
        _, _, micro = self.run_compare()
        m = {r["quantity"]: r for r in micro}
        self.assertEqual(m["l1d_hit_latency"]["hw"], 40)
        self.assertAlmostEqual(m["l1d_hit_latency"]["error"], -0.375)
        self.assertAlmostEqual(m["l2_hit_latency"]["error"], -0.05)
        with open(os.path.join(self.out, "comparison.md")) as f:
            md = f.read()
        self.assertIn("| l1d_hit_latency | s | cycles | 40.00 | 25.00 | -37.5% | no |", md)
        self.assertIn("| l2_hit_latency | s | cycles | 200.00 | 190.00 | -5.0% | yes |", md)
        self.assertEqual(len(micro), 2)  # the GPU-only size l is not compared

    def test_tables_and_scatter_plot_are_written(self):
        self.run_compare()
        with open(os.path.join(self.out, "comparison.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 5)
        with open(os.path.join(self.out, "scatter.svg")) as f:
            svg = f.read()
        self.assertTrue(svg.startswith("<svg") and svg.rstrip().endswith("</svg>"))
        self.assertEqual(svg.count("<title>"), 5)  # one point per compared kernel
        self.assertIn("MAE 19.0%", svg)

    def test_a_stats_json_side_is_compared_on_gpu_sim_cycle(self):
        stats_dir = os.path.join(self.tmp, "stats_only", "stats")
        os.makedirs(stats_dir)
        # -r 2: each kernel twice (cold, warm), the clock calibration once at the end.
        kernels = []
        for rep in (0, 1):
            for name, cycles in (("k1", 130), ("k2", 150), ("k3", 420), ("k4", 900)):
                kernels.append({"kernel_name": f"_ZN12_GLOBAL__N_1{len(name)}{name}EPN3hwc5stampE",
                                "counters": {"gpu_sim_cycle": cycles if rep else 5 * cycles}})
        kernels.append({"kernel_name": "_ZN3hwc11clock_calibEPNS_5stampEy", "counters": {"gpu_sim_cycle": 9}})
        with open(os.path.join(stats_dir, "alpha.64.json"), "w") as f:
            json.dump({"kernels": kernels}, f)
        records, summary, _ = compare.compare(self.hw, os.path.dirname(stats_dir), self.out)
        k = self.by_kernel(records)
        self.assertEqual(set(k), {"k1", "k2", "k3", "k4"})
        self.assertEqual(k["k1"]["source"], "span/gpu_sim_cycle")
        self.assertEqual(k["k1"]["sim_cycles"], 130)  # the warm launch, not 650
        self.assertAlmostEqual(k["k1"]["error"], 0.30)
        self.assertAlmostEqual(k["k2"]["error"], -0.25)

    def test_a_missing_hardware_file_is_a_clear_error(self):
        empty = os.path.join(self.tmp, "empty")
        os.makedirs(empty)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = compare.main(["--hw", empty, "--sim", self.sim, "--out", self.out])
        self.assertEqual(rc, 2)
        self.assertIn(os.path.join(empty, "kernels.csv") + ": no such file", err.getvalue())

    def test_a_malformed_number_names_the_file_line_and_column(self):
        path = os.path.join(self.hw, "kernels.csv")
        with open(path) as f:
            lines = f.readlines()
        lines[3] = lines[3].replace(",1050,", ",ten,", 1)
        with open(path, "w") as f:
            f.writelines(lines)
        with self.assertRaises(compare.Error) as e:
            self.run_compare()
        self.assertIn(f"{path}:4: column event_ns: 'ten' is not a number", str(e.exception))

    def test_a_gpu_of_another_shape_than_the_configuration_is_flagged(self):
        write_csv(os.path.join(self.hw, "machine.csv"), ["key", "value"],
                  [{"key": "gpu_name", "value": "Synthetic GPU"}, {"key": "sm_count", "value": "114"}])
        write_csv(os.path.join(self.sim, "machine.csv"), ["key", "value"], [{"key": "sm_count", "value": "132"}])
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.run_compare()
        with open(os.path.join(self.out, "comparison.md")) as f:
            self.assertIn("the GPU has 114 SMs, the simulated configuration 132", f.read())
        self.assertIn("the GPU has 114 SMs", err.getvalue())

    def test_a_malformed_program_output_line_is_rejected(self):
        with self.assertRaises(compare.Error):
            compare.hwc_row("HWC,alpha,k1,64,0".split(","), {})

    def test_fidelity_choices_become_simtvp_options(self):
        self.assertEqual(compare.fidelity_options("ca"), "-simt_model ca -dram_model ca")
        self.assertEqual(compare.fidelity_options("simt=at,dram=ca"), "-dram_model ca -simt_model at")
        self.assertEqual(compare.fidelity_options("interval"),
                         "-simt_model interval -icnt_model at -mempart_model at -dram_model at")
        self.assertEqual(compare.fidelity_options("interval-runs"),
                         "-simt_model interval -icnt_model at -mempart_model at -dram_model at -interval_runs 1")
        self.assertEqual(compare.fidelity_options("simt=interval,icnt=at"), "-icnt_model at -simt_model interval")
        with self.assertRaises(compare.Error):
            compare.fidelity_options("simt=fast")

    def test_the_suite_names_existing_programs_and_simulates_each(self):
        runs = compare.read_suite(os.path.join(SRC, "bench", "hwcorr", "suite.txt"), "all")
        programs = {p for _, p, _, _ in runs}
        for p in programs:
            source = (os.path.join(SRC, "tests", "kernels", p[3:] + ".cu") if p.startswith("tk_")
                      else os.path.join(SRC, "bench", "hwcorr", "src", p + ".cu"))
            self.assertTrue(os.path.exists(source), f"{p}: no {source}")
        self.assertEqual(programs, {p for t, p, _, _ in runs if t == "sim"})
        tk = {p[3:] for p in programs if p.startswith("tk_")}
        on_disk = {f[:-3] for f in os.listdir(os.path.join(SRC, "tests", "kernels")) if f.endswith(".cu")}
        self.assertEqual(tk, on_disk, "every tests/kernels program is in the suite")


if __name__ == "__main__":
    unittest.main()
