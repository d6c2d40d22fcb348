#!/usr/bin/env python3
# simtvp-sweep — simulation campaigns: runs every combination of a sweep file's programs,
# configurations, --set options and fidelity assignments through `simtvp -o`, each job in its own
# folder, on a local process pool or as Slurm array jobs, resumes after an interruption, and
# collects every job's stats.json into one table (CSV, JSON) and a self-contained HTML summary with
# plots. Python 3 standard library only (TOML sweep files need Python 3.11's tomllib; JSON works
# everywhere). `simtvp-sweep --help` is the manual; docs/sweep.md has the long form.
import argparse
import concurrent.futures
import csv
import datetime
import hashlib
import html
import io
import json
import math
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

TOOL = "simtvp-sweep"
PLAN_FORMAT = "simtvp-sweep-plan"
TABLE_FORMAT = "simtvp-sweep-table"

USAGE = """\
simtvp-sweep — simulation campaigns with simtvp

  simtvp-sweep run SPEC [-o OUT] [--backend local|slurm] [-j N] [--retry-failed] [--no-check]
                        [--no-wait] [--poll SECONDS]
  simtvp-sweep status SPEC [-o OUT]      what is finished, failed, pending, queued in Slurm
  simtvp-sweep collect SPEC [-o OUT]     (re)build the table and summary from finished jobs
  simtvp-sweep list SPEC [-o OUT]        every job with its folder and simtvp command

SPEC is a sweep file (TOML, or JSON with the same structure): programs with their arguments ×
configurations × --set options × fidelity assignments; every combination is one job, run as
`simtvp -q -o OUT/jobs/<job> [-c CONFIG] [--set ...] -- PROGRAM ARGS`. A job whose folder holds a
finished status is skipped when the sweep runs again; a half-written one is run again from scratch.
When every job has run, OUT/table.csv and OUT/table.json hold one row per job x kernel (the
sweep's dimensions, then the chosen statistics) and OUT/summary.html plots them.

Exit status: 0 when every job finished fine, 1 when some failed or are still pending,
2 on a bad sweep file or bad usage, 130 when interrupted. docs/sweep.md has the sweep-file format.
"""


class SweepError(Exception):
    """A mistake in the sweep file or the command line: reported as one line, exit status 2."""


# ---------------------------------------------------------------------------------------------
# The sweep file
# ---------------------------------------------------------------------------------------------

TOP_KEYS = ("name", "output", "simtvp", "strict", "timeout", "program", "config", "options", "fidelity",
            "table", "plot", "local", "slurm")
PROGRAM_KEYS = ("name", "path", "args", "variants", "env", "timeout", "slurm")
CONFIG_KEYS = ("name", "file", "set", "slurm")
FIDELITY_KEYS = ("name", "set", "slurm")
TABLE_KEYS = ("statistics",)
PLOT_KEYS = ("statistic", "x", "title", "log")
LOCAL_KEYS = ("jobs",)
SLURM_RESOURCE_KEYS = ("partition", "time", "mem", "cpus_per_task", "account", "qos",
                       "constraint", "sbatch_args")
SLURM_KEYS = SLURM_RESOURCE_KEYS + ("max_parallel", "poll_seconds", "python", "job_name")
# A job ended by one of these was stopped from outside, not failed by itself.
INTERRUPTING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGKILL, signal.SIGHUP)
DEFAULT_STATISTICS = ["gpu_sim_cycle", "gpu_sim_insn", "gpu_ipc"]
NAME_RE = re.compile(r"^[A-Za-z0-9_.+=,@%-]+$")


def load_spec_file(path):
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise SweepError(f"{path}: cannot read the sweep file: {e.strerror}")
    if path.endswith(".json"):
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise SweepError(f"{path}: not valid JSON: {e}")
    try:
        import tomllib
    except ImportError:
        raise SweepError(f"{path}: TOML sweep files need Python 3.11 or newer (tomllib); "
                         "write the sweep as JSON (same structure, a .json file) instead")
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise SweepError(f"{path}: not valid TOML: {e}")


class Spec:
    """A checked sweep file. Every error names the file and the key path."""

    def __init__(self, path, doc, simtvp_override=None):
        self.path = os.path.abspath(path)
        self.dir = os.path.dirname(self.path)
        self.file = path
        if not isinstance(doc, dict):
            self.fail("", "the sweep file must be a table of keys")
        self.known(doc, "", TOP_KEYS)
        self.name = self.string(doc, "name", "",
                                os.path.splitext(os.path.basename(path))[0])
        self.output = self.string(doc, "output", "", "")
        self.timeout = self.number(doc, "timeout", "", 0)
        # A misspelt option in a sweep would be ignored with a warning in every job: by default
        # the jobs run with --strict (unknown options are errors, found by the check before any
        # job runs).
        self.strict = doc.get("strict", True)
        if not isinstance(self.strict, bool):
            self.fail("strict", "expected true or false")
        self.simtvp = self.find_simtvp(simtvp_override or self.string(doc, "simtvp", "", ""))
        self.programs = self.parse_programs(doc.get("program"))
        self.configs = self.parse_named_list(doc.get("config"), "config", CONFIG_KEYS,
                                             self.parse_config)
        self.fidelities = self.parse_named_list(doc.get("fidelity"), "fidelity", FIDELITY_KEYS,
                                                self.parse_fidelity)
        self.options = self.parse_options(doc.get("options"))
        table = self.table(doc, "table", "")
        self.known(table, "table", TABLE_KEYS)
        self.statistics = self.string_list(table, "statistics", "table", DEFAULT_STATISTICS)
        if not self.statistics:
            self.fail("table.statistics", "name at least one statistic")
        self.plots = self.parse_plots(doc.get("plot"))
        local = self.table(doc, "local", "")
        self.known(local, "local", LOCAL_KEYS)
        self.local_jobs = int(self.number(local, "jobs", "local", 0))
        slurm = self.table(doc, "slurm", "")
        self.known(slurm, "slurm", SLURM_KEYS)
        self.slurm_resources = self.parse_resources(slurm, "slurm")
        self.slurm_max_parallel = int(self.number(slurm, "max_parallel", "slurm", 0))
        self.slurm_poll = self.number(slurm, "poll_seconds", "slurm", 10)
        self.slurm_python = self.string(slurm, "python", "slurm", sys.executable or "python3")
        self.slurm_job_name = self.string(slurm, "job_name", "slurm", "simtvp-" + self.name)

    # -- helpers that name the place of a mistake --
    def fail(self, where, what):
        raise SweepError(f"{self.file}: {where + ': ' if where else ''}{what}")

    def known(self, table, where, keys):
        for k in table:
            if k not in keys:
                self.fail(where, f"unknown key '{k}' (known here: {', '.join(keys)})")

    @staticmethod
    def place(where, key):
        return f"{where}.{key}" if where else key

    def string(self, table, key, where, default):
        v = table.get(key, default)
        if not isinstance(v, str):
            self.fail(self.place(where, key), f"expected a string, found {json.dumps(v)}")
        return v

    def number(self, table, key, where, default):
        v = table.get(key, default)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            self.fail(self.place(where, key), f"expected a number >= 0, found {json.dumps(v)}")
        return v

    def table(self, doc, key, where):
        v = doc.get(key, {})
        if not isinstance(v, dict):
            self.fail(self.place(where, key), "expected a table")
        return v

    def scalar_text(self, v, where):
        if isinstance(v, bool):
            return "1" if v else "0"
        if isinstance(v, (int, float, str)):
            return str(v)
        self.fail(where, f"expected a string or a number, found {json.dumps(v)}")

    def string_list(self, table, key, where, default):
        v = table.get(key, default)
        if not isinstance(v, list):
            self.fail(self.place(where, key), f"expected a list, found {json.dumps(v)}")
        return [self.scalar_text(x, f"{self.place(where, key)}[{i}]") for i, x in enumerate(v)]

    def label(self, text, where):
        if not NAME_RE.match(text):
            self.fail(where, f"'{text}' cannot name a job folder: use letters, digits and _ . + = , @ % -")
        return text

    def find_simtvp(self, given):
        if given:
            p = given if os.path.isabs(given) else os.path.join(self.dir, given)
            if not os.access(p, os.X_OK):
                self.fail("simtvp", f"'{given}' is not an executable program")
            return os.path.abspath(p)
        here = os.path.join(os.path.dirname(os.path.realpath(__file__)), "simtvp")
        if os.access(here, os.X_OK):
            return here
        found = shutil.which("simtvp")
        if not found:
            raise SweepError("cannot find simtvp: not beside simtvp-sweep and not in PATH "
                             "(give its path with --simtvp or the sweep file's 'simtvp' key)")
        return os.path.abspath(found)

    def parse_resources(self, table, where):
        res = {}
        for k in SLURM_RESOURCE_KEYS:
            if k not in table:
                continue
            if k == "sbatch_args":
                res[k] = self.string_list(table, k, where, [])
            else:
                res[k] = self.scalar_text(table[k], self.place(where, k))
        return res

    def parse_slurm_override(self, entry, where):
        t = self.table(entry, "slurm", where)
        self.known(t, self.place(where, "slurm"), SLURM_RESOURCE_KEYS)
        return self.parse_resources(t, self.place(where, "slurm"))

    def parse_programs(self, v):
        if v is None:
            self.fail("program", "the sweep has no programs: add at least one [[program]] with a path")
        if not isinstance(v, list) or not v:
            self.fail("program", "expected a list of tables ([[program]] entries)")
        out, names = [], set()
        for i, p in enumerate(v):
            where = f"program[{i}]"
            if not isinstance(p, dict):
                self.fail(where, "expected a table")
            self.known(p, where, PROGRAM_KEYS)
            if "path" not in p:
                self.fail(where, "needs a 'path' (the program to run)")
            given = self.string(p, "path", where, "")
            path = given if os.path.isabs(given) else os.path.join(self.dir, given)
            if not os.path.exists(path) and "/" not in given and shutil.which(given):
                path = shutil.which(given)
            if not (os.path.isfile(path) and os.access(path, os.X_OK)):
                self.fail(where + ".path", f"'{given}' is not an executable file "
                          f"(relative paths start at {self.dir})")
            name = self.label(self.string(p, "name", where, os.path.basename(given)),
                              where + ".name")
            if "args" in p and "variants" in p:
                self.fail(where, "give 'args' or 'variants', not both")
            variants = []
            if "variants" in p:
                t = self.table(p, "variants", where)
                if not t:
                    self.fail(where + ".variants", "name at least one variant")
                for label, args in t.items():
                    vw = f"{where}.variants.{label}"
                    self.label(label, vw)
                    if not isinstance(args, list):
                        self.fail(vw, "expected a list of arguments")
                    variants.append((f"{name}-{label}",
                                     [self.scalar_text(a, f"{vw}[{k}]") for k, a in enumerate(args)]))
            else:
                variants.append((name, self.string_list(p, "args", where, [])))
            env = self.table(p, "env", where)
            env = {k: self.scalar_text(x, f"{where}.env.{k}") for k, x in env.items()}
            timeout = self.number(p, "timeout", where, self.timeout)
            slurm = self.parse_slurm_override(p, where)
            for label, args in variants:
                if label in names:
                    self.fail(where, f"the program name '{label}' is used twice: give each entry a "
                              "distinct 'name'")
                names.add(label)
                out.append({"name": label, "path": os.path.abspath(path), "args": args,
                            "env": env, "timeout": timeout, "slurm": slurm})
        return out

    def parse_named_list(self, v, key, keys, parse_one):
        if v is None:
            return [None]  # the dimension is absent: one implicit value, not in the job's name
        if not isinstance(v, list) or not v:
            self.fail(key, f"expected a list of tables ([[{key}]] entries)")
        out, names = [], set()
        for i, e in enumerate(v):
            where = f"{key}[{i}]"
            if not isinstance(e, dict):
                self.fail(where, "expected a table")
            self.known(e, where, keys)
            item = parse_one(e, where)
            if item["name"] in names:
                self.fail(where + ".name", f"'{item['name']}' is used twice")
            names.add(item["name"])
            out.append(item)
        return out

    def parse_sets(self, e, where):
        sets = self.string_list(e, "set", where, [])
        for i, s in enumerate(sets):
            if not s.strip().startswith("-") or len(s.replace("=", " ").split(None, 1)) < 2:
                self.fail(f"{where}.set[{i}]", f"'{s}': expected '-option value'")
        return sets

    def parse_config(self, e, where):
        if "file" not in e and "name" not in e:
            self.fail(where, "needs a 'file' (a configs/ name or a GPGPU-Sim option file) or a 'name'")
        file = self.string(e, "file", where, "")
        if file and ("/" in file or file.endswith(".config") or
                     os.path.exists(os.path.join(self.dir, file))):
            p = file if os.path.isabs(file) else os.path.join(self.dir, file)
            if os.path.exists(p):
                file = os.path.abspath(p)
            elif "/" in file:
                self.fail(where + ".file", f"'{file}' does not exist (relative paths start at {self.dir})")
        default_name = os.path.splitext(os.path.basename(file))[0] if file else ""
        name = self.label(self.string(e, "name", where, default_name), where + ".name")
        return {"name": name, "file": file, "set": self.parse_sets(e, where),
                "slurm": self.parse_slurm_override(e, where)}

    def parse_fidelity(self, e, where):
        if "name" not in e:
            self.fail(where, "needs a 'name'")
        name = self.label(self.string(e, "name", where, ""), where + ".name")
        return {"name": name, "set": self.parse_sets(e, where),
                "slurm": self.parse_slurm_override(e, where)}

    def parse_options(self, v):
        if v is None:
            return []
        if not isinstance(v, dict):
            self.fail("options", "expected a table: option name = list of values")
        dims = []
        for opt, values in v.items():
            where = f"options.{json.dumps(opt) if not re.match(r'^[A-Za-z0-9_-]+$', opt) else opt}"
            if not opt.startswith("-") or len(opt) < 2 or any(c.isspace() for c in opt):
                self.fail(where, f"'{opt}' is not an option name (they start with '-', e.g. "
                          "\"-gpgpu_n_clusters\")")
            pairs = []
            if isinstance(values, list):
                for i, x in enumerate(values):
                    text = self.scalar_text(x, f"{where}[{i}]")
                    pairs.append((self.short_label(text), text))
            elif isinstance(values, dict):
                for label, x in values.items():
                    self.label(label, f"{where}.{label}")
                    pairs.append((label, self.scalar_text(x, f"{where}.{label}")))
            else:
                self.fail(where, "expected a list of values or a table of label = value")
            if not pairs:
                self.fail(where, "give at least one value")
            labels = [p[0] for p in pairs]
            if len(set(labels)) != len(labels):
                self.fail(where, "two values give the same folder label: use a table of "
                          "label = value to name them")
            dims.append({"option": opt, "column": opt.lstrip("-"), "values": pairs})
        return dims

    def short_label(self, text):
        # A value's label in folder names: itself when it is short and plain, else a digest.
        if len(text) <= 24 and NAME_RE.match(text):
            return text
        return "h" + hashlib.sha1(text.encode()).hexdigest()[:8]

    def parse_plots(self, v):
        if v is None:
            return [{"statistic": s, "x": "", "title": "", "log": False} for s in self.statistics[:6]
                    if "*" not in s]
        if not isinstance(v, list):
            self.fail("plot", "expected a list of tables ([[plot]] entries)")
        out = []
        for i, p in enumerate(v):
            where = f"plot[{i}]"
            if not isinstance(p, dict):
                self.fail(where, "expected a table")
            self.known(p, where, PLOT_KEYS)
            if "statistic" not in p:
                self.fail(where, "needs a 'statistic' (one of the table's statistics)")
            stat = self.string(p, "statistic", where, "")
            log = p.get("log", False)
            if not isinstance(log, bool):
                self.fail(where + ".log", "expected true or false")
            out.append({"statistic": stat, "x": self.string(p, "x", where, ""),
                        "title": self.string(p, "title", where, ""), "log": log})
        return out

    def dimension_columns(self):
        cols = ["program"]
        if self.configs != [None]:
            cols.append("config")
        cols += [d["column"] for d in self.options]
        if self.fidelities != [None]:
            cols.append("fidelity")
        return cols

    def check_plots(self):
        dims = self.dimension_columns()
        for i, p in enumerate(self.plots):
            if p["x"] and p["x"] not in dims and p["x"].lstrip("-") not in dims:
                self.fail(f"plot[{i}].x", f"'{p['x']}' is not a dimension of this sweep "
                          f"(one of: {', '.join(dims)})")
            if not any(stat_matches(s, p["statistic"]) for s in self.statistics):
                self.fail(f"plot[{i}].statistic", f"'{p['statistic']}' is not in table.statistics")


def stat_matches(pattern, name):
    """'*' in a statistic pattern matches any run of characters; everything else is literal
    (statistic names contain brackets: dram[3].bwutil)."""
    if "*" not in pattern:
        return pattern == name
    rx = "^" + ".*".join(re.escape(part) for part in pattern.split("*")) + "$"
    return re.match(rx, name) is not None


# ---------------------------------------------------------------------------------------------
# Jobs
# ---------------------------------------------------------------------------------------------

def sim_threads_of(sets):
    """The host threads a job's simtvp uses: the last `-sim_threads N` among its --set strings
    (later ones win, as in simtvp), else 1. A bad value counts as 1 (simtvp --check rejects it)."""
    threads = 1
    for s in sets:
        words = s.split()
        for i, w in enumerate(words[:-1]):
            if w == "-sim_threads":
                threads = int(words[i + 1]) if words[i + 1].isdigit() and int(words[i + 1]) > 0 else 1
    return threads


def plan_jobs(spec, out):
    """Every combination, in a fixed order: program, config, options (in file order), fidelity."""
    combos = [[]]
    for d in spec.options:
        combos = [c + [(d, label, value)] for c in combos for (label, value) in d["values"]]
    jobs, folders = [], {}
    for prog in spec.programs:
        for cfg in spec.configs:
            for combo in combos:
                for fid in spec.fidelities:
                    parts = [prog["name"]]
                    dims = {"program": prog["name"]}
                    sets = []
                    slurm = dict(spec.slurm_resources)
                    slurm.update(prog["slurm"])
                    if cfg is not None:
                        parts.append(cfg["name"])
                        dims["config"] = cfg["name"]
                        sets += cfg["set"]
                        slurm.update(cfg["slurm"])
                    for d, label, value in combo:
                        parts.append(f"{d['column']}={label}")
                        dims[d["column"]] = label
                        sets.append(f"{d['option']} {value}")
                    if fid is not None:
                        parts.append(fid["name"])
                        dims["fidelity"] = fid["name"]
                        sets += fid["set"]
                        slurm.update(fid["slurm"])
                    threads = sim_threads_of(sets)
                    if threads > 1 and "cpus_per_task" not in slurm:
                        slurm["cpus_per_task"] = str(threads)  # a core per simulation thread
                    name = ".".join(parts)
                    folder = name if len(name) <= 150 else (
                        name[:140] + "." + hashlib.sha1(name.encode()).hexdigest()[:8])
                    if folder in folders:
                        raise SweepError(f"{spec.file}: jobs '{folders[folder]}' and '{name}' would "
                                         "share a folder: give the entries distinct names")
                    folders[folder] = name
                    job_dir = os.path.join(out, "jobs", folder)
                    gpu_args = ["--strict"] if spec.strict else []
                    if cfg is not None and cfg["file"]:
                        gpu_args += ["-c", cfg["file"]]
                    for s in sets:
                        gpu_args += ["--set", s]
                    cmd = [spec.simtvp, "-q", "-o", job_dir] + gpu_args + ["--", prog["path"]] + prog["args"]
                    job = {"index": len(jobs), "name": name, "dir": job_dir, "dims": dims,
                           "args": prog["args"], "command": cmd, "env": prog["env"],
                           "timeout": prog["timeout"], "slurm": slurm, "threads": threads,
                           "gpu_args": gpu_args}
                    job["fingerprint"] = hashlib.sha256(json.dumps(
                        {"command": cmd, "env": prog["env"]}, sort_keys=True).encode()).hexdigest()
                    jobs.append(job)
    return jobs


def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def write_json_atomic(path, value):
    tmp = f"{path}.tmp.{os.getpid()}.{threading.get_ident()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=2, sort_keys=True)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def job_state(job):
    """'ok' / 'failed' (finished, with the same command), else 'pending' (never run, half-written,
    or run with another command)."""
    st = read_json(os.path.join(job["dir"], "status.json"))
    if not st or st.get("fingerprint") != job["fingerprint"] or st.get("state") not in ("ok", "failed"):
        return "pending", st
    return st["state"], st


def job_env(job):
    # The sweep file is the only source of the job's GPU settings: the caller's SIMTVP_*
    # variables (SIMTVP_CONFIG, SIMTVP_OPTIONS, ...) would change runs behind the table's back.
    env = {k: v for k, v in os.environ.items() if not k.startswith("SIMTVP_")}
    env.update(job["env"])
    return env


def run_job(job, procs=None, lock=None, stopping=None):
    """Runs one job from scratch in its folder; its status.json (written last, atomically) is what
    marks it finished. Returns the status."""
    d = job["dir"]
    state, st = job_state(job)
    if state == "ok":
        return st
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    write_json_atomic(os.path.join(d, "job.json"),
                      {k: job[k] for k in ("name", "dims", "command", "env", "timeout", "fingerprint")})
    started = time.time()
    reason, rc = "", None
    with open(os.path.join(d, "stdout.txt"), "wb") as out, \
            open(os.path.join(d, "stderr.txt"), "wb") as err:
        try:
            if lock is not None:
                lock.acquire()  # so that an interruption sees every process started
            if stopping is not None and stopping.is_set():
                raise InterruptedError(f"{job['name']}: not started (interrupted)")
            p = subprocess.Popen(job["command"], stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                                 env=job_env(job), cwd=d)
            if procs is not None:
                procs.add(p)
        except OSError as e:
            p, reason = None, f"cannot start {job['command'][0]}: {e.strerror}"
        finally:
            if lock is not None:
                lock.release()
        if p is not None:
            try:
                rc = p.wait(timeout=job["timeout"] or None)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                reason = f"timed out after {job['timeout']} s (the sweep file's timeout)"
            finally:
                if procs is not None:
                    with lock:
                        procs.discard(p)
    if rc is not None and -rc in INTERRUPTING_SIGNALS:
        # Stopped from outside (Ctrl-C, the sweep's own SIGTERM, Slurm's time limit): not
        # finished, no status: the job runs again next time.
        raise InterruptedError(f"{job['name']}: simtvp ended by {signal_name(-rc)}")
    if rc is not None and rc < 0:
        reason = (f"killed by {signal_name(-rc)}: "
                  f"{last_line(os.path.join(d, 'stderr.txt'))}")
    elif rc is not None and rc != 0:
        reason = f"exit status {rc}: {last_line(os.path.join(d, 'stderr.txt'))}"
    if not reason:
        stats = read_json(os.path.join(d, "stats.json"))
        if not isinstance(stats, dict) or "kernels" not in stats:
            reason = "no readable stats.json (did the program run a kernel through simtvp's runtime?)"
    status = {"fingerprint": job["fingerprint"], "state": "failed" if reason else "ok",
              "returncode": rc, "reason": reason, "wall_s": round(time.time() - started, 3),
              "threads": job.get("threads", 1),
              "start_unix": round(started, 3), "end_unix": round(time.time(), 3),
              "host": socket.gethostname(), "slurm": slurm_task_info(),
              "finished": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    write_json_atomic(os.path.join(d, "status.json"), status)
    return status


def slurm_task_info():
    """Where a Slurm task ran and what it was given (empty outside Slurm)."""
    keys = (("SLURM_ARRAY_JOB_ID", "array_job_id"), ("SLURM_ARRAY_TASK_ID", "array_task_id"),
            ("SLURM_JOB_ID", "job_id"), ("SLURM_JOB_PARTITION", "partition"),
            ("SLURM_CPUS_PER_TASK", "cpus_per_task"), ("SLURM_MEM_PER_NODE", "mem_per_node_mb"),
            ("SLURM_JOB_NODELIST", "nodes"))
    return {name: os.environ[k] for k, name in keys if k in os.environ}


def signal_name(n):
    try:
        return signal.Signals(n).name
    except ValueError:
        return f"signal {n}"


def last_line(path, limit=300):
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 4096))
            lines = [l for l in f.read().decode("utf-8", "replace").splitlines() if l.strip()]
    except OSError:
        return ""
    return lines[-1][:limit] if lines else "(no message)"


def check_configurations(spec, jobs):
    """`simtvp --check` once per distinct configuration + option set, before any job runs: a bad
    option fails the sweep at once, naming the option, instead of in every job."""
    seen = {}
    for job in jobs:
        key = tuple(job["gpu_args"])
        if key in seen:
            continue
        seen[key] = job
        p = subprocess.run([spec.simtvp, "--check", "-q"] + job["gpu_args"], env=job_env(job),
                           stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if p.returncode != 0:
            msg = (p.stderr.strip().splitlines() or ["(no message)"])[-1]
            msg = msg[len("simtvp: "):] if msg.startswith("simtvp: ") else msg
            raise SweepError(f"{spec.file}: job {job['name']}: simtvp refuses its configuration: {msg}")


def write_plan(out, spec, jobs):
    os.makedirs(os.path.join(out, "jobs"), exist_ok=True)
    write_json_atomic(os.path.join(out, "plan.json"),
                      {"format": PLAN_FORMAT, "version": 1, "sweep": spec.name, "spec": spec.path,
                       "jobs": jobs})


# ---------------------------------------------------------------------------------------------
# Local back end: a pool of N simtvp processes
# ---------------------------------------------------------------------------------------------

def run_local(spec, jobs, n_workers, log):
    """A pool of n_workers host cores: a job takes as many as its simtvp has simulation threads
    (-sim_threads, at most n_workers), so -j 4 runs four one-thread jobs or two 2-thread ones at
    once; jobs start in plan order as cores come free."""
    procs, lock, stopping = set(), threading.Lock(), threading.Event()
    done = [0]
    total = len(jobs)
    n_workers = max(1, n_workers)
    free = [n_workers]
    cores = threading.Condition()

    def one(job):
        need = min(max(1, job.get("threads", 1)), n_workers)
        with cores:
            cores.wait_for(lambda: free[0] >= need or stopping.is_set())
            free[0] -= need
        try:
            st = run_job(job, procs, lock, stopping)
        finally:
            with cores:
                free[0] += need
                cores.notify_all()
        with lock:
            done[0] += 1
            what = "ok" if st["state"] == "ok" else f"FAILED ({st['reason']})"
            log(f"[{done[0]}/{total}] {job['name']}: {what}, {st['wall_s']:.1f} s")
        return st

    def stop(signum, frame):
        raise KeyboardInterrupt
    old = signal.signal(signal.SIGTERM, stop)
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=n_workers)
    try:
        futures = [pool.submit(one, j) for j in jobs]
        for f in concurrent.futures.as_completed(futures):
            f.result()
    except (KeyboardInterrupt, InterruptedError) as e:
        pool.shutdown(wait=False, cancel_futures=True)
        with lock:
            stopping.set()
            with cores:
                cores.notify_all()
            for p in list(procs):
                try:
                    p.terminate()
                except OSError:
                    pass
        for p in list(procs):
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        pool.shutdown(wait=True)
        msg = f" ({e})" if isinstance(e, InterruptedError) else ""
        log(f"interrupted{msg}: finished jobs are kept; run the same command again to resume")
        raise SystemExit(130)
    finally:
        signal.signal(signal.SIGTERM, old)
        pool.shutdown(wait=True)


# ---------------------------------------------------------------------------------------------
# Slurm back end: array jobs via sbatch, polled with squeue, states from sacct (or scontrol)
# ---------------------------------------------------------------------------------------------

def slurm_cmd(args, check=True):
    try:
        p = subprocess.run(args, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    except OSError as e:
        raise SweepError(f"cannot run {args[0]}: {e.strerror} (is Slurm's client installed and in PATH?)")
    if check and p.returncode != 0:
        raise SweepError(f"{' '.join(args[:2])} failed (exit status {p.returncode}): "
                         f"{p.stderr.strip() or p.stdout.strip()}")
    return p


def slurm_submissions(out):
    return read_json(os.path.join(out, "slurm", "submissions.json")) or []


def slurm_active(array_ids):
    """Per array job id: {task index: state} of the tasks squeue still lists."""
    if not array_ids:
        return {}
    p = slurm_cmd(["squeue", "-h", "-r", "-j", ",".join(array_ids), "-o", "%F|%K|%T"], check=False)
    if p.returncode != 0:
        if "Invalid job id" in p.stderr:
            # Every id is gone from the controller (finished and purged).
            return {}
        raise SweepError(f"squeue failed (exit status {p.returncode}): {p.stderr.strip()}")
    active = {}
    for line in p.stdout.splitlines():
        parts = line.strip().split("|")
        if len(parts) == 3 and parts[0] in array_ids:
            active.setdefault(parts[0], {})[parts[1]] = parts[2]
    return active


def slurm_final_states(array_id):
    """{task index: (state, exit code)} from sacct, or from scontrol where accounting is disabled
    (a cluster without slurmdbd); {} when neither knows the job any more."""
    p = slurm_cmd(["sacct", "-n", "-P", "-X", "-j", array_id, "-o", "JobID,State,ExitCode"], check=False)
    states = {}
    if p.returncode == 0:
        for line in p.stdout.splitlines():
            parts = line.split("|")
            if len(parts) == 3 and "_" in parts[0]:
                task = parts[0].split("_", 1)[1]
                if task.isdigit():
                    states[task] = (parts[1].split()[0], parts[2])
        if states:
            return states
    p = slurm_cmd(["scontrol", "show", "job", "-o", array_id], check=False)
    if p.returncode == 0:
        for line in p.stdout.splitlines():
            f = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
            if f.get("ArrayJobId") == array_id and f.get("ArrayTaskId", "").isdigit():
                states[f["ArrayTaskId"]] = (f.get("JobState", "?"), f.get("ExitCode", "?"))
    return states


def sbatch_resources(res):
    args = []
    for key, flag in (("partition", "--partition"), ("time", "--time"), ("mem", "--mem"),
                      ("cpus_per_task", "--cpus-per-task"), ("account", "--account"),
                      ("qos", "--qos"), ("constraint", "--constraint")):
        if key in res and res[key] != "":
            args.append(f"{flag}={res[key]}")
    return args + list(res.get("sbatch_args", []))


def submit_slurm(spec, out, jobs, log):
    """One array job per distinct resource request; each task runs `simtvp-sweep run-job` on the
    job at its index in the submission's own job list (immutable, so a later run of the sweep with
    another plan cannot confuse tasks still queued)."""
    groups = {}
    for j in jobs:
        groups.setdefault(json.dumps(j["slurm"], sort_keys=True), []).append(j)
    subs = slurm_submissions(out)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    me = os.path.realpath(__file__)
    for g, (key, members) in enumerate(groups.items()):
        d = os.path.join(out, "slurm", f"{stamp}-{len(subs)}")
        os.makedirs(d, exist_ok=True)
        write_json_atomic(os.path.join(d, "jobs.json"), members)
        res = json.loads(key)
        array = f"0-{len(members) - 1}"
        if spec.slurm_max_parallel:
            array += f"%{spec.slurm_max_parallel}"
        lines = ["#!/bin/sh", f"#SBATCH --job-name={spec.slurm_job_name}",
                 f"#SBATCH --array={array}", f"#SBATCH --output={d}/task-%a.log"]
        lines += [f"#SBATCH {a}" for a in sbatch_resources(res)]
        lines += ["# Written by simtvp-sweep: one array task per job of jobs.json (beside this file).",
                  "exec " + " ".join(shlex.quote(x) for x in
                                     [spec.slurm_python, me, "run-job", "--jobs",
                                      os.path.join(d, "jobs.json")]) + ' --index "$SLURM_ARRAY_TASK_ID"',
                  ""]
        script = os.path.join(d, "sweep.sbatch")
        with open(script, "w") as f:
            f.write("\n".join(lines))
        p = slurm_cmd(["sbatch", "--parsable", script])
        array_id = p.stdout.strip().split(";")[0]
        if not array_id.isdigit():
            raise SweepError(f"sbatch answered '{p.stdout.strip()}', not a job id")
        subs.append({"array_id": array_id, "dir": d, "jobs": [j["name"] for j in members],
                     "resources": res,
                     "submitted": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")})
        write_json_atomic(os.path.join(out, "slurm", "submissions.json"), subs)
        log(f"sbatch: array job {array_id}, {len(members)} tasks"
            f"{' (' + ' '.join(sbatch_resources(res)) + ')' if res else ''}")
    return subs


def queued_jobs(out):
    """Names of jobs whose Slurm task is still pending or running (from earlier submissions)."""
    subs = slurm_submissions(out)
    if not subs or not shutil.which("squeue"):
        return {}, subs
    active = slurm_active([s["array_id"] for s in subs])
    queued = {}
    for s in subs:
        for task, state in active.get(s["array_id"], {}).items():
            if task.isdigit() and int(task) < len(s["jobs"]):
                queued[s["jobs"][int(task)]] = f"{state} (Slurm {s['array_id']}_{task})"
    return queued, subs


def wait_slurm(spec, out, jobs, array_ids, poll, log):
    last = None
    by_name = {j["name"]: j for j in jobs}
    while True:
        active = slurm_active(array_ids)
        counts = {}
        for tasks in active.values():
            for state in tasks.values():
                counts[state] = counts.get(state, 0) + 1
        finished = sum(1 for j in by_name.values() if job_state(j)[0] != "pending")
        line = (f"slurm: {finished}/{len(by_name)} jobs finished; in the queue: " +
                (", ".join(f"{n} {s.lower()}" for s, n in sorted(counts.items())) or "nothing"))
        if line != last:
            log(line)
            last = line
        if not active:
            return
        time.sleep(poll)


def report_lost(out, jobs, log, queued=()):
    """Jobs of our submissions that left the queue without a status: Slurm's verdict on them
    (a time limit, memory, a cancellation, a node failure). They stay pending: the next run
    submits them again."""
    by_name = {j["name"]: j for j in jobs}
    lost = {}
    if not shutil.which("squeue"):
        return lost
    for s in slurm_submissions(out):
        missing = [(i, n) for i, n in enumerate(s["jobs"])
                   if n in by_name and n not in queued and job_state(by_name[n])[0] == "pending"]
        if not missing:
            continue
        states = slurm_final_states(s["array_id"])
        for i, n in missing:
            state, code = states.get(str(i), ("unknown to sacct/scontrol", "?"))
            lost[n] = f"Slurm task {s['array_id']}_{i} ended {state} (exit code {code}) " \
                      f"without finishing; its log: {s['dir']}/task-{i}.log"
    if log:
        for n, why in lost.items():
            log(f"{n}: {why}")
    return lost


# ---------------------------------------------------------------------------------------------
# Collecting: one table row per job x kernel
# ---------------------------------------------------------------------------------------------

def natural_key(s):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]


def kernel_values(kernel):
    """Every scalar of one kernel's record: counters, ratios, histogram summaries (name.mean …)."""
    vals = {}
    vals.update(kernel.get("counters", {}))
    vals.update(kernel.get("ratios", {}))
    for name, h in kernel.get("histograms", {}).items():
        if isinstance(h, dict):
            for k in ("count", "sum", "min", "max", "mean"):
                if k in h:
                    vals[f"{name}.{k}"] = h[k]
    return vals


def collect(spec, out, jobs, lost=None, queued=None):
    lost, queued = lost or {}, queued or {}
    dims = spec.dimension_columns()
    records, job_rows = [], []
    for job in jobs:
        state, st = job_state(job)
        if state == "pending" and job["name"] in queued:
            state, reason = "queued", queued[job["name"]]
        else:
            reason = (st or {}).get("reason", "") if state != "pending" else lost.get(job["name"], "")
        job_rows.append({"job": job["name"], "state": state, "reason": reason,
                         "wall_s": (st or {}).get("wall_s") if state != "pending" else None,
                         "host": (st or {}).get("host", "") if state != "pending" else "",
                         "folder": os.path.relpath(job["dir"], out)})
        if state != "ok":
            continue
        stats = read_json(os.path.join(job["dir"], "stats.json")) or {}
        for i, k in enumerate(stats.get("kernels", [])):
            records.append((job, i, k, kernel_values(k)))
    # Statistic columns: the names in file order, a '*' pattern expanded to every matching name
    # (natural order: dram[2] before dram[10]).
    columns = []
    for pat in spec.statistics:
        if "*" in pat:
            names = sorted({n for r in records for n in r[3] if stat_matches(pat, n)}, key=natural_key)
            columns += [n for n in names if n not in columns]
        elif pat not in columns:
            columns.append(pat)
    unmatched = [pat for pat in spec.statistics if records and
                 not any(stat_matches(pat, n) for r in records for n in r[3])]
    for pat in unmatched:
        log(f"warning: table.statistics: '{pat}' is not a statistic of any finished job "
            "(names as in stats.json: counters, ratios, <histogram>.mean/.count/.sum/.min/.max)")
    head = ["job"] + dims + ["args", "kernel_index", "kernel_name", "kernel_launch_uid"]
    rows = []
    for job, i, k, vals in records:
        row = {"job": job["name"]}
        for d in dims:
            row[d] = job["dims"].get(d, "")
        row["args"] = " ".join(job["args"])
        row["kernel_index"] = i
        row["kernel_name"] = k.get("kernel_name", "")
        row["kernel_launch_uid"] = k.get("kernel_launch_uid")
        for c in columns:
            row[c] = vals.get(c)
        rows.append(row)
    table = {"format": TABLE_FORMAT, "version": 1, "sweep": spec.name, "dimensions": dims,
             "statistics": columns, "columns": head + columns, "rows": rows}
    write_json_atomic(os.path.join(out, "table.json"), table)
    write_csv(os.path.join(out, "table.csv"), head + columns, rows)
    write_csv(os.path.join(out, "jobs.csv"), ["job", "state", "reason", "wall_s", "host", "folder"],
              job_rows)
    write_json_atomic(os.path.join(out, "jobs.json"), {"sweep": spec.name, "jobs": job_rows})
    page = summary_html(spec, table, job_rows)
    tmp = os.path.join(out, f"summary.html.tmp.{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(page)
    os.replace(tmp, os.path.join(out, "summary.html"))
    return table, job_rows


def csv_text(v):
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v)  # shortest text that reads back to the same double
    return str(v)


def write_csv(path, head, rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(head)
    for r in rows:
        w.writerow([csv_text(r.get(c)) for c in head])
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(buf.getvalue())
    os.replace(tmp, path)


# ---------------------------------------------------------------------------------------------
# The summary page: hand-written SVG, no scripts, no external files
# ---------------------------------------------------------------------------------------------

PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1",
           "#ff9da7", "#9c755f", "#bab0ac"]


def esc(s):
    return html.escape(str(s), quote=True)


def fmt_num(v):
    if v is None:
        return ""
    if isinstance(v, float):
        if v != 0 and (abs(v) >= 1e6 or abs(v) < 1e-3):
            return f"{v:.4g}"
        return f"{v:.4f}".rstrip("0").rstrip(".")
    return f"{v:,}"


def nice_ticks(lo, hi, n=5):
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step) * step
    ticks, t = [], start
    while t <= hi + step * 1e-9:
        ticks.append(round(t, 12))
        t += step
    if ticks[-1] < hi:
        ticks.append(round(t, 12))
    return ticks


def is_number(s):
    try:
        float(s)
        return True
    except (TypeError, ValueError):
        return False


def choose_x(spec, table, plot):
    dims = table["dimensions"]
    if plot["x"]:
        return plot["x"] if plot["x"] in dims else plot["x"].lstrip("-")
    varying = [d for d in dims if len({r[d] for r in table["rows"]}) > 1]
    for prefer in [d["column"] for d in spec.options] + ["config", "fidelity", "program"]:
        if prefer in varying:
            return prefer
    return "job"


def plot_svg(spec, table, plot):
    stat = plot["statistic"]
    cols = [c for c in table["statistics"] if stat_matches(stat, c)]
    rows = table["rows"]
    if not cols or not rows:
        return "<p>(nothing to plot yet)</p>"
    col = cols[0]
    x = choose_x(spec, table, plot)
    dims = [d for d in table["dimensions"] if d != x and len({r[d] for r in rows}) > 1]
    kernels_of = {}
    for r in rows:
        kernels_of[r["job"]] = kernels_of.get(r["job"], 0) + 1

    def series_of(r):
        parts = [f"{d}={r[d]}" if d not in ("program", "config", "fidelity") else f"{r[d]}"
                 for d in dims]
        if kernels_of[r["job"]] > 1:  # a program with several kernels: one series per kernel
            parts.append(f"k{r['kernel_index']}:{r['kernel_name'][:24]}")
        return " · ".join(parts) or col

    xs, series, points = [], [], {}
    for r in rows:
        xv = r["job"] if x == "job" else r[x]
        s = series_of(r)
        if xv not in xs:
            xs.append(xv)
        if s not in series:
            series.append(s)
        v = r.get(col)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
            points[(s, xv)] = v
    values = list(points.values())
    if not values:
        return f"<p>({esc(col)}: no values)</p>"
    log = plot["log"] and min(values) > 0
    numeric_x = x != "job" and all(is_number(v) for v in xs) and len(xs) > 1
    if numeric_x:
        xs.sort(key=float)

    most = max(sum(1 for s in series if (s, v) in points) for v in xs)
    W_PLOT = 640 if numeric_x else max(480, min(1400, len(xs) * most * 14 + 40))
    H_PLOT, ML, MR, MT = 300, 80, 20, 20
    MB = 50 if numeric_x else 40 + 6 * min(28, max(len(str(v)) for v in xs))
    width, height = ML + W_PLOT + MR, MT + H_PLOT + MB

    if log:
        lo, hi = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
        if hi == lo:
            hi += 1
        ticks = list(range(lo, hi + 1))
        ymap = lambda v: MT + H_PLOT - (math.log10(v) - lo) / (hi - lo) * H_PLOT
        tick_label = lambda t: fmt_num(10 ** t if t >= 0 else 10.0 ** t)
        tick_pos = ticks
    else:
        lo = min(0, min(values))
        ticks = nice_ticks(lo, max(values))
        lo, hi = ticks[0], ticks[-1]
        ymap = lambda v: MT + H_PLOT - (v - lo) / (hi - lo) * H_PLOT
        tick_label = fmt_num
        tick_pos = ticks

    svg = []
    for t in tick_pos:
        y = ymap(10 ** t) if log else ymap(t)
        svg.append(f'<line x1="{ML}" y1="{y:.1f}" x2="{ML + W_PLOT}" y2="{y:.1f}" stroke="#ddd"/>')
        svg.append(f'<text x="{ML - 6}" y="{y + 4:.1f}" text-anchor="end">{esc(tick_label(t))}</text>')
    svg.append(f'<line x1="{ML}" y1="{MT}" x2="{ML}" y2="{MT + H_PLOT}" stroke="#333"/>')
    svg.append(f'<line x1="{ML}" y1="{MT + H_PLOT}" x2="{ML + W_PLOT}" y2="{MT + H_PLOT}" stroke="#333"/>')
    svg.append(f'<text x="16" y="{MT + H_PLOT / 2:.0f}" transform="rotate(-90 16 {MT + H_PLOT / 2:.0f})" '
               f'text-anchor="middle">{esc(col)}{" (log)" if log else ""}</text>')
    svg.append(f'<text x="{ML + W_PLOT / 2:.0f}" y="{height - 8}" text-anchor="middle">{esc(x)}</text>')
    color = {s: PALETTE[i % len(PALETTE)] for i, s in enumerate(series)}
    dash = {s: "" if i < len(PALETTE) else ' stroke-dasharray="5 3"' for i, s in enumerate(series)}
    if numeric_x:
        fx = [float(v) for v in xs]
        x0, x1 = min(fx), max(fx)
        xmap = lambda v: ML + 10 + (float(v) - x0) / ((x1 - x0) or 1) * (W_PLOT - 20)
        for v in xs:
            X = xmap(v)
            svg.append(f'<text x="{X:.1f}" y="{MT + H_PLOT + 16}" text-anchor="middle">{esc(v)}</text>')
        for s in series:
            pts = [(xmap(v), ymap(points[(s, v)]), v) for v in xs if (s, v) in points]
            if len(pts) > 1:
                path = " ".join(f"{px:.1f},{py:.1f}" for px, py, _ in pts)
                svg.append(f'<polyline points="{path}" fill="none" stroke="{color[s]}" '
                           f'stroke-width="2"{dash[s]}/>')
            for px, py, v in pts:
                svg.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3.5" fill="{color[s]}">'
                           f'<title>{esc(s)} @ {esc(x)}={esc(v)}: {esc(fmt_num(points[(s, v)]))}</title></circle>')
    else:
        # Each group holds the bars of the series that have a value there, side by side.
        in_group = {v: [s for s in series if (s, v) in points] for v in xs}
        group_w = W_PLOT / len(xs)
        bar_w = max(2.0, (group_w - 8) / max(1, max(len(g) for g in in_group.values())))
        base = ymap(max(lo, 0)) if not log else MT + H_PLOT
        for gi, v in enumerate(xs):
            gx = ML + gi * group_w + 4 + (group_w - 8 - bar_w * len(in_group[v])) / 2
            for si, s in enumerate(in_group[v]):
                val = points[(s, v)]
                y = ymap(val)
                top, h = min(y, base), abs(base - y)
                svg.append(f'<rect x="{gx + si * bar_w:.1f}" y="{top:.1f}" width="{bar_w - 1:.1f}" '
                           f'height="{max(h, 0.5):.1f}" fill="{color[s]}"><title>{esc(s)} @ {esc(v)}: '
                           f'{esc(fmt_num(val))}</title></rect>')
            cx = ML + (gi + 0.5) * group_w
            label = str(v) if len(str(v)) <= 28 else str(v)[:27] + "…"
            svg.append(f'<text x="{cx:.1f}" y="{MT + H_PLOT + 12}" text-anchor="end" '
                       f'transform="rotate(-35 {cx:.1f} {MT + H_PLOT + 12})">{esc(label)}</text>')
    # The legend inside the picture (so the SVG stands alone), in rows as wide as the plot.
    if len(series) > 1 or series[0] != col:
        lx, ly = ML, height + 4
        for s in series:
            w = 18 + 6.5 * len(s) + 14
            if lx + w > width - MR and lx > ML:
                lx, ly = ML, ly + 16
            svg.append(f'<rect x="{lx:.0f}" y="{ly:.0f}" width="10" height="10" fill="{color[s]}"/>'
                       f'<text x="{lx + 14:.0f}" y="{ly + 9:.0f}">{esc(s)}</text>')
            lx += w
        height = ly + 20
    title = plot["title"] or f"{col} by {x}"
    svg.insert(0, f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
                  f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">'
                  f'<title>{esc(title)}</title><rect width="100%" height="100%" fill="white"/>')
    svg.append("</svg>")
    return f"<h3>{esc(title)}</h3>\n" + "\n".join(svg)


def summary_html(spec, table, job_rows):
    counts = {}
    for j in job_rows:
        counts[j["state"]] = counts.get(j["state"], 0) + 1
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{esc(spec.name)} — simtvp sweep</title>",
        "<style>body{font-family:sans-serif;margin:2em;color:#222}"
        "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px}"
        "td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f3f3}"
        ".failed{color:#b00}.pending{color:#a60}</style></head><body>",
        f"<h1>{esc(spec.name)}</h1>",
        f"<p>{len(job_rows)} jobs: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) +
        f"; {len(table['rows'])} rows (job × kernel). Dimensions: {esc(', '.join(table['dimensions']))}."
        " Sweep file: <code>" + esc(spec.path) + "</code>.</p>",
    ]
    spec.check_plots()
    for p in spec.plots:
        parts.append(plot_svg(spec, table, p))
    bad = [j for j in job_rows if j["state"] != "ok"]
    if bad:
        parts.append("<h2>Jobs not finished</h2><table><tr><th>job</th><th>state</th><th>why</th>"
                     "<th>folder</th></tr>")
        for j in bad:
            parts.append(f'<tr class="{esc(j["state"])}"><td>{esc(j["job"])}</td><td>{esc(j["state"])}'
                         f'</td><td>{esc(j["reason"])}</td><td>{esc(j["folder"])}</td></tr>')
        parts.append("</table>")
    parts.append("<h2>Table</h2><table><tr>" + "".join(f"<th>{esc(c)}</th>" for c in table["columns"]) +
                 "</tr>")
    for r in table["rows"]:
        cells = []
        for c in table["columns"]:
            v = r.get(c)
            num = isinstance(v, (int, float)) and not isinstance(v, bool)
            cells.append(f'<td class="n">{esc(fmt_num(v))}</td>' if num else f"<td>{esc(v if v is not None else '')}</td>")
        parts.append("<tr>" + "".join(cells) + "</tr>")
    parts.append("</table><p>Written by simtvp-sweep; the same data: table.csv, table.json, jobs.csv.</p>"
                 "</body></html>\n")
    return "\n".join(parts)


# ---------------------------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------------------------

def log(msg):
    print(f"{TOOL}: {msg}", file=sys.stderr, flush=True)


def output_dir(spec, given):
    if given:
        return os.path.abspath(given)
    if spec.output:
        return os.path.abspath(os.path.join(spec.dir, spec.output))
    return os.path.abspath(spec.name + ".sweep")


def summary_line(job_rows, out):
    counts = {}
    for j in job_rows:
        counts[j["state"]] = counts.get(j["state"], 0) + 1
    log(f"{len(job_rows)} jobs: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())) +
        f"; table: {os.path.join(out, 'table.csv')} (and table.json), summary: "
        f"{os.path.join(out, 'summary.html')}")
    return 0 if counts.get("ok", 0) == len(job_rows) else 1


def cmd_run(a):
    spec = Spec(a.spec, load_spec_file(a.spec), a.simtvp)
    spec.check_plots()
    out = output_dir(spec, a.output)
    jobs = plan_jobs(spec, out)
    if not a.no_check:
        check_configurations(spec, jobs)
    write_plan(out, spec, jobs)
    backend = a.backend
    states = {j["name"]: job_state(j)[0] for j in jobs}
    queued, _ = queued_jobs(out) if backend == "slurm" else ({}, None)
    todo = [j for j in jobs if j["name"] not in queued and
            (states[j["name"]] == "pending" or (a.retry_failed and states[j["name"]] == "failed"))]
    skipped = sum(1 for s in states.values() if s == "ok")
    failed_kept = sum(1 for j in jobs if states[j["name"]] == "failed" and not a.retry_failed)
    log(f"{spec.name}: {len(jobs)} jobs, {skipped} finished earlier (skipped)"
        f"{f', {failed_kept} failed earlier (kept; --retry-failed runs them again)' if failed_kept else ''}"
        f"{f', {len(queued)} still in the Slurm queue' if queued else ''}, {len(todo)} to run; "
        f"output {out}")
    if backend == "local":
        n = a.jobs or spec.local_jobs or os.cpu_count() or 1
        run_local(spec, todo, n, log)
        table, job_rows = collect(spec, out, jobs)
        return summary_line(job_rows, out)
    # Slurm
    for tool in ("sbatch", "squeue"):
        if not shutil.which(tool):
            raise SweepError(f"the slurm back end needs '{tool}' in PATH (Slurm's client commands)")
    if todo:
        submit_slurm(spec, out, todo, log)
    if a.no_wait:
        log(f"submitted; later: '{TOOL} status {a.spec}' and '{TOOL} collect {a.spec}'"
            f"{' -o ' + a.output if a.output else ''} (or run this command again to wait and collect)")
        return 1 if todo or queued else 0
    subs = slurm_submissions(out)
    wait_slurm(spec, out, jobs, [s["array_id"] for s in subs], a.poll or spec.slurm_poll, log)
    lost = report_lost(out, jobs, log)
    table, job_rows = collect(spec, out, jobs, lost)
    return summary_line(job_rows, out)


def cmd_status(a):
    spec = Spec(a.spec, load_spec_file(a.spec), a.simtvp)
    out = output_dir(spec, a.output)
    jobs = plan_jobs(spec, out)
    queued, _ = queued_jobs(out)
    lost = report_lost(out, jobs, None, queued)
    counts = {}
    for j in jobs:
        state, st = job_state(j)
        if state == "pending" and j["name"] in queued:
            state = "queued"
        counts[state] = counts.get(state, 0) + 1
        extra = {"failed": (st or {}).get("reason", ""), "queued": queued.get(j["name"], ""),
                 "pending": lost.get(j["name"], "")}.get(state, "")
        print(f"{state:8} {j['name']}{'  ' + extra if extra else ''}")
    log(f"{len(jobs)} jobs: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
    return 0 if counts.get("ok", 0) == len(jobs) else 1


def cmd_collect(a):
    spec = Spec(a.spec, load_spec_file(a.spec), a.simtvp)
    spec.check_plots()
    out = output_dir(spec, a.output)
    jobs = plan_jobs(spec, out)
    if not os.path.isdir(out):
        raise SweepError(f"{out}: no such folder: run the sweep first ('{TOOL} run {a.spec}')")
    queued, _ = queued_jobs(out)
    table, job_rows = collect(spec, out, jobs, report_lost(out, jobs, None, queued), queued)
    return summary_line(job_rows, out)


def cmd_list(a):
    spec = Spec(a.spec, load_spec_file(a.spec), a.simtvp)
    out = output_dir(spec, a.output)
    for j in plan_jobs(spec, out):
        res = " ".join(sbatch_resources(j["slurm"]))
        print(f"{j['name']}\n    {' '.join(shlex.quote(x) for x in j['command'])}\n"
              f"    host threads: {j['threads']}; slurm: {res or '(defaults)'}")
    return 0


def cmd_run_job(a):
    jobs = read_json(a.jobs)
    if not isinstance(jobs, list) or not (0 <= a.index < len(jobs)):
        raise SweepError(f"{a.jobs}: no job {a.index} in this list")
    st = run_job(jobs[a.index])
    log(f"{jobs[a.index]['name']}: {st['state']}{' (' + st['reason'] + ')' if st['reason'] else ''}")
    return 0 if st["state"] == "ok" else 1


def main(argv=None):
    ap = argparse.ArgumentParser(prog=TOOL, description=USAGE,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")

    def common(p):
        p.add_argument("spec", metavar="SPEC", help="the sweep file (.toml or .json)")
        p.add_argument("-o", "--output", help="output folder (default: the file's 'output', "
                       "relative to the file, else <name>.sweep in the current folder)")
        p.add_argument("--simtvp", help="the simtvp command to run (default: the one beside "
                       "simtvp-sweep, else the file's 'simtvp', else PATH)")
    r = sub.add_parser("run", help="run the jobs not finished yet, then collect")
    common(r)
    r.add_argument("--backend", choices=("local", "slurm"), default="local",
                   help="local: a process pool on this host (default); slurm: array jobs via sbatch")
    r.add_argument("-j", "--jobs", type=int, default=0,
                   help="local: jobs at once (default: the file's local.jobs, else the CPU count)")
    r.add_argument("--retry-failed", action="store_true", help="run failed jobs again too")
    r.add_argument("--no-check", action="store_true",
                   help="do not check each configuration with 'simtvp --check' first")
    r.add_argument("--no-wait", action="store_true", help="slurm: submit and return")
    r.add_argument("--poll", type=float, default=0,
                   help="slurm: seconds between squeue polls (default: slurm.poll_seconds, 10)")
    for name, helptext in (("status", "show every job's state"),
                           ("collect", "rebuild table.csv/json and summary.html"),
                           ("list", "print the jobs and their commands")):
        common(sub.add_parser(name, help=helptext))
    j = sub.add_parser("run-job", help="(internal) run one job of a job list; what a Slurm task runs")
    j.add_argument("--jobs", required=True)
    j.add_argument("--index", type=int, required=True)
    a = ap.parse_args(argv)
    if not a.command:
        ap.print_help()
        return 2
    if a.command == "run" and a.jobs < 0:
        ap.error("-j needs a positive number")
    try:
        return {"run": cmd_run, "status": cmd_status, "collect": cmd_collect, "list": cmd_list,
                "run-job": cmd_run_job}[a.command](a)
    except SweepError as e:
        print(f"{TOOL}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
