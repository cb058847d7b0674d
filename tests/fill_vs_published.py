#!/usr/bin/env python3
"""Compares `squeeze simulate --protocol fill --json` outputs with the published FGD figures.

  fill_vs_published.py PUBLISHED.txt OUT_cpu050.json [OUT_default.json ...]

Prints, per trace and column, the published BestFit and FGD means next to squeeze's bestfit,
fgd and squeeze placements, then checks the issue's bars and exits 1 if one fails:
  1. squeeze's bestfit and fgd within 0.5 points of the published means at @100..@130;
  2. the squeeze placement above the published FGD at @110, @120, @130, and never more than
     0.1 points below squeeze's own fgd at any column.
Standard library only.
"""
import json
import os
import re
import sys

PUBLISHED_NAMES = {"05-BestFit": "bestfit", "06-FGD": "fgd"}
REPRO_COLUMNS = ["100", "110", "120", "130"]
BEAT_COLUMNS = ["110", "120", "130"]
REPRO_TOLERANCE = 0.5
OWN_FGD_SLACK = 0.1


def read_published(path):
    """{trace: {placement: {column: value}}} for BestFit and FGD."""
    out, trace = {}, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            if not line.startswith(" "):
                trace = line.strip()
                out[trace] = {}
                continue
            parts = line.split()
            name = PUBLISHED_NAMES.get(parts[0])
            if name is None:
                continue
            cols = dict(re.findall(r"@(\d+)=([\d.]+)", line))
            out[trace][name] = {k: float(v) for k, v in cols.items()}
    return out


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    published = read_published(argv[1])
    failures = []
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            run = json.load(f)
        trace = os.path.splitext(os.path.basename(run["trace"]))[0]
        if trace not in published:
            failures.append(f"{path}: no published figures for {trace}")
            continue
        ours = {r["placement"]: r["alloc_at"] for r in run["results"]}
        for needed in ("bestfit", "fgd", "squeeze"):
            if needed not in ours:
                failures.append(f"{path}: placement {needed} missing")
        if failures:
            continue
        pub = published[trace]
        print(f"{trace}")
        print(f"  {'col':>4} {'pub BF':>7} {'bestfit':>7} {'pub FGD':>7} {'fgd':>7} {'squeeze':>7}")
        for col in sorted(ours["fgd"], key=int):
            print(f"  @{col:>3} {pub['bestfit'].get(col, float('nan')):7.2f} "
                  f"{ours['bestfit'][col]:7.2f} {pub['fgd'].get(col, float('nan')):7.2f} "
                  f"{ours['fgd'][col]:7.2f} {ours['squeeze'][col]:7.2f}")
        for name in ("bestfit", "fgd"):
            for col in REPRO_COLUMNS:
                diff = ours[name][col] - pub[name][col]
                if abs(diff) > REPRO_TOLERANCE:
                    failures.append(f"{trace} {name} @{col}: {ours[name][col]:.2f} vs published "
                                    f"{pub[name][col]:.2f} ({diff:+.2f})")
        for col in BEAT_COLUMNS:
            if not ours["squeeze"][col] > pub["fgd"][col]:
                failures.append(f"{trace} squeeze @{col}: {ours['squeeze'][col]:.2f} does not "
                                f"beat the published FGD {pub['fgd'][col]:.2f}")
        for col, own in ours["fgd"].items():
            if ours["squeeze"][col] < own - OWN_FGD_SLACK:
                failures.append(f"{trace} squeeze @{col}: {ours['squeeze'][col]:.2f} is more than "
                                f"{OWN_FGD_SLACK} below its own fgd {own:.2f}")
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    if not failures:
        print("ok: bestfit and fgd reproduce the published means within 0.5 points at @100..@130; "
              "squeeze beats the published FGD at @110..@130 and stays within 0.1 of its own fgd")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
