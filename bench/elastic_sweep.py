#!/usr/bin/python3
"""Elastic jobs against oracle SRTF (issue 37): squeeze with elastic jobs on the Philly set-ups,
under a stated scaling model and resize cost and a sweep around it, beside oracle SRTF and
squeeze with fixed allocations.

Set-ups (each on the half and the full Philly cluster, two months of philly_oct_nov.csv):
  all       every checkpointable job elastic between 1 GPU and its trace width
            (--assume-elastic 1: all Philly jobs wider than 1 GPU; 1-GPU jobs stay as they are)
  half      half of them (--assume-elastic 0.5, picked by a hash of the job id)
  all-2x    every job elastic between 1 GPU and twice its trace width (--assume-elastic-max 2:
            1-GPU jobs become 1-2), its duration still that of its trace width
The stated model: Amdahl's law with P = 0.95 and 60 s per resize (--assume-scaling amdahl:0.95
--assume-resize-cost 60). The sweep: P of 0.8, 0.9, 0.95, 0.99 and 1.0 at 60 s, and 0, 60, 120
and 300 s at P = 0.95.

Usage: /usr/bin/python3 bench/elastic_sweep.py --squeeze build/squeeze [--clusters half,full]
           [--setups all,half,all-2x] [--jobs 2] [--json out.json]
Prints one table per cluster: each run's mean queue and mean JCT (seconds), resizes per elastic
job, and whether it is below oracle SRTF's mean queue and mean JCT ("yes"/"no").
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
SETUPS = {
    "all": ["--assume-elastic", "1"],
    "half": ["--assume-elastic", "0.5"],
    "all-2x": ["--assume-elastic", "1", "--assume-elastic-max", "2"],
}
PARALLEL = ["0.8", "0.9", "0.95", "0.99", "1"]
COSTS = ["0", "60", "120", "300"]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--squeeze", required=True)
    shared = os.environ.get("SQUEEZE_SHARED", os.path.join(SOURCE, "..", "shared"))
    p.add_argument("--trace", default=os.path.join(shared, "traces", "philly", "philly_oct_nov.csv"))
    p.add_argument("--clusters", default="half,full")
    p.add_argument("--setups", default="all,half,all-2x")
    p.add_argument("--jobs", type=int, default=2, help="simulations run at once")
    p.add_argument("--json", help="write every run's figures here")
    a = p.parse_args(argv)
    for s in a.setups.split(","):
        if s not in SETUPS:
            p.error(f"--setups: '{s}' is not one of {', '.join(SETUPS)}")
    for c in a.clusters.split(","):
        if c not in ("half", "full"):
            p.error(f"--clusters: '{c}' is not half or full")
    return a


def simulate(a, cluster, policy, extra):
    """One `squeeze simulate` run: its JSON result for `policy`."""
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        argv = [a.squeeze, "simulate", "-q", "--trace", a.trace, "--cluster",
                os.path.join(SOURCE, "examples", "clusters", f"philly-{cluster}.yaml"),
                "--policy", policy, "--json", out.name] + extra
        run = subprocess.run(argv, capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)}: exit {run.returncode}: {run.stderr.strip()}")
        return json.load(open(out.name))["results"][0]


def runs_for(a):
    """(cluster, label, policy, extra) of every run: the baselines, then the sweeps."""
    out = []
    for cluster in a.clusters.split(","):
        out.append((cluster, ("srtf", "fixed", "-", "-"), "srtf", []))
        out.append((cluster, ("squeeze", "fixed", "-", "-"), "squeeze", []))
        for setup in a.setups.split(","):
            points = [(p, "60") for p in PARALLEL] + [("0.95", c) for c in COSTS if c != "60"]
            for p, cost in points:
                extra = SETUPS[setup] + ["--assume-scaling", f"amdahl:{p}",
                                         "--assume-resize-cost", cost]
                out.append((cluster, ("squeeze", setup, p, cost), "squeeze", extra))
    return out


def main(argv):
    a = parse_args(argv)
    runs = runs_for(a)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        results = list(pool.map(lambda r: simulate(a, r[0], r[2], r[3]), runs))
    rows = []
    for (cluster, label, _, extra), r in zip(runs, results):
        rows.append({"cluster": cluster, "policy": label[0], "setup": label[1], "P": label[2],
                     "resize_cost_s": label[3], "avg_queue_s": r["avg_queue_s"],
                     "avg_jct_s": r["avg_jct_s"], "elastic_jobs": r["elastic_jobs"],
                     "resizes": r["resizes"], "shrinks": r["shrinks"],
                     "preemptions": r["preemptions"], "args": extra})
    for cluster in a.clusters.split(","):
        mine = [r for r in rows if r["cluster"] == cluster]
        srtf = next(r for r in mine if r["policy"] == "srtf")
        print(f"Philly {cluster}: oracle SRTF (fixed) mean queue {srtf['avg_queue_s']:.0f} s, "
              f"mean JCT {srtf['avg_jct_s']:.0f} s")
        print(f"{'policy':<8} {'setup':<7} {'P':>5} {'cost':>5} {'queue_s':>8} {'jct_s':>8} "
              f"{'resizes/job':>11} {'preempt':>7}  below SRTF: queue jct")
        for r in mine:
            per = r["resizes"] / r["elastic_jobs"] if r["elastic_jobs"] else 0
            q = "yes" if r["avg_queue_s"] < srtf["avg_queue_s"] else "no"
            j = "yes" if r["avg_jct_s"] < srtf["avg_jct_s"] else "no"
            if r["policy"] == "srtf":
                q = j = "-"
            print(f"{r['policy']:<8} {r['setup']:<7} {r['P']:>5} {r['resize_cost_s']:>5} "
                  f"{r['avg_queue_s']:>8.0f} {r['avg_jct_s']:>8.0f} {per:>11.2f} "
                  f"{r['preemptions']:>7}  {q:>16} {j:>3}")
        print()
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
