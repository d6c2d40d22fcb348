#!/usr/bin/env python3
"""trace_svg — draws a Chrome trace-event file (simtvp --trace) as an SVG picture, tracks laid out
as Perfetto shows them: one group per process (in process_sort_index order), one row per thread,
complete events as boxes, instants as ticks, counters as step lines. For documentation pictures
(docs/images/trace.png); Perfetto itself (ui.perfetto.dev) is the viewer to use.

  python3 docs/images/trace_svg.py trace.json [--from US] [--to US] > trace.svg
"""
import argparse
import hashlib
import html
import json
import sys

PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
           "#9c755f", "#bab0ac"]


def color(name):
    return PALETTE[int(hashlib.md5(name.encode()).hexdigest(), 16) % len(PALETTE)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--from", dest="t0", type=float, default=None, help="first microsecond shown")
    ap.add_argument("--to", dest="t1", type=float, default=None, help="last microsecond shown")
    ap.add_argument("--width", type=int, default=1400)
    a = ap.parse_args()
    events = json.load(open(a.trace))["traceEvents"]
    pname, psort, tname, tsort = {}, {}, {}, {}
    rows = {}  # (pid, tid) -> list of events
    for e in events:
        pid, tid = e["pid"], e["tid"]
        if e["ph"] == "M":
            n = e["name"]
            if n == "process_name":
                pname[pid] = e["args"]["name"]
            elif n == "process_sort_index":
                psort[pid] = e["args"]["sort_index"]
            elif n == "thread_name":
                tname[(pid, tid)] = e["args"]["name"]
            elif n == "thread_sort_index":
                tsort[(pid, tid)] = e["args"]["sort_index"]
            continue
        key = (pid, e["name"]) if e["ph"] == "C" else (pid, tid)
        rows.setdefault(key, []).append(e)
    kernels = [e for e in events if e.get("cat") == "kernel"]
    t0 = a.t0 if a.t0 is not None else (min(k["ts"] for k in kernels) if kernels else 0)
    t1 = a.t1 if a.t1 is not None else (max(k["ts"] + k["dur"] for k in kernels) if kernels else 1)
    pad = (t1 - t0) * 0.02
    t0, t1 = max(0.0, t0 - pad), t1 + pad
    order = sorted(rows, key=lambda k: (psort.get(k[0], 99), k[0], tsort.get(k, 0),
                                        k[1] if isinstance(k[1], int) else 0))
    L, W, RH, GH = 190, a.width, 18, 20
    out, y = [], 30
    x = lambda t: L + (t - t0) / (t1 - t0) * (W - L - 10)
    last_pid = None
    for key in order:
        pid = key[0]
        if pid != last_pid:
            y += 6
            out.append(f'<rect x="0" y="{y}" width="{W}" height="{GH}" fill="#eef1f6"/>')
            out.append(f'<text x="8" y="{y + 14}" font-weight="bold">{html.escape(pname.get(pid, str(pid)))}</text>')
            y += GH
            last_pid = pid
        label = key[1] if isinstance(key[1], str) else tname.get(key, f"thread {key[1]}")
        out.append(f'<text x="20" y="{y + 13}" fill="#444">{html.escape(label)}</text>')
        out.append(f'<line x1="{L}" x2="{W - 10}" y1="{y + RH}" y2="{y + RH}" stroke="#f0f0f0"/>')
        evs = rows[key]
        if evs[0]["ph"] == "C":
            pts, vals = [], [list(e["args"].values())[0] for e in evs]
            top = max(vals) or 1
            prev = None
            for e, v in zip(evs, vals):
                if e["ts"] > t1:
                    break
                yy = y + RH - 2 - v / top * (RH - 4)
                xx = x(max(e["ts"], t0))
                if prev is not None:
                    pts.append(f"{xx:.1f},{prev:.1f}")
                pts.append(f"{xx:.1f},{yy:.1f}")
                prev = yy
            if prev is not None:
                pts.append(f"{W - 10:.1f},{prev:.1f}")
                out.append(f'<polyline points="{" ".join(pts)}" fill="none" stroke="{color(key[1])}" stroke-width="1.2"/>')
        for e in evs:
            if e["ph"] == "X":
                b, d = e["ts"], e["dur"]
                if b + d < t0 or b > t1:
                    continue
                xb, xe = x(max(b, t0)), x(min(b + d, t1))
                out.append(f'<rect x="{xb:.2f}" y="{y + 2}" width="{max(0.8, xe - xb):.2f}" height="{RH - 4}" '
                           f'fill="{color(e["name"])}" stroke="#fff" stroke-width="0.3"/>')
                if xe - xb > 8 * len(e["name"]):
                    out.append(f'<text x="{xb + 3:.1f}" y="{y + 13}" fill="#fff">{html.escape(e["name"])}</text>')
            elif e["ph"] in ("i", "I") and t0 <= e["ts"] <= t1:
                xx = x(e["ts"])
                out.append(f'<path d="M{xx:.1f} {y + 3} l3 6 l-6 0 z" fill="{color(e["name"])}"/>')
        y += RH
    # time axis
    span = t1 - t0
    step = 10 ** len(str(int(span / 8))) / 10 if span >= 8 else 1
    while span / step > 10:
        step *= 2
    axis = [f'<line x1="{L}" x2="{W - 10}" y1="{y + 4}" y2="{y + 4}" stroke="#999"/>']
    t = (int(t0 / step) + 1) * step
    while t < t1:
        axis.append(f'<text x="{x(t):.1f}" y="{y + 18}" text-anchor="middle">{t:g}</text>')
        t += step
    axis.append(f'<text x="{W - 10}" y="{y + 32}" text-anchor="end" fill="#666">simulated time (us)</text>')
    head = (f'<text x="8" y="18" font-size="14" font-weight="bold">simtvp --trace: '
            f'{html.escape(sys.argv[1].split("/")[-1])}</text>')
    H = y + 40
    sys.stdout.write(f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="DejaVu Sans, sans-serif" '
                     f'font-size="11"><rect width="100%" height="100%" fill="#fff"/>{head}{"".join(out)}{"".join(axis)}</svg>\n')


if __name__ == "__main__":
    main()
