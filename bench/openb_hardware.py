#!/usr/bin/python3
"""Alibaba's openb gpuspec trace replayed through time, squeeze aware of the cards against
squeeze blind to them (issue 38; docs/policies.md, "Cards of several kinds").

openb's pod lists are made for the fill protocol (docs/fragmentation.md): pods that arrive and
never leave. Replayed through time (each pod from its creation_time for deletion_time minus
creation_time) on the whole 1,213-node cluster they barely queue (the cluster is 0.2% busy), so
this script also shrinks the cluster: every model's nodes divided by --divide (at least one
node each), the first ones of the node list. That set-up is this script's, not the trace's.
The trace gives no speeds and no job types: every card goes at speed 1, and the card memory is
NVIDIA's for P100, T4, V100M16, V100M32 and A10; G2 and G3, which the trace leaves anonymous,
have none, and a card of no stated memory is tried first among cards that are good enough
(the hardware rule sorts by memory, 0 first). A pod's gpu_spec is its gpu_models; pods of no
GPU, or without a deletion time after their creation, are left out.

  /usr/bin/python3 bench/openb_hardware.py --squeeze build/squeeze [--divide 1,20,50,100]
      [--trace ../shared/traces/openb/openb_pod_list_gpuspec10.csv] [--out DIR]

Prints one row per cluster size and mode: jobs, mean queue, p95 queue, mean JCT, occupancy.
"""

import argparse
import collections
import csv
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OPENB = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "traces", "openb"))
MEMORY_MIB = {"P100": 16384, "T4": 16384, "V100M16": 16384, "V100M32": 32768, "A10": 24576}


def write_jobs(trace, path):
    """The pods as a job-profile CSV (docs/job-profile-csv.md); returns how many."""
    kept = 0
    with open(trace, newline="") as f, open(path, "w", newline="") as out:
        w = csv.writer(out)
        w.writerow(["id", "submit_time", "duration", "gpus", "pool", "gpu_milli", "gpu_models",
                    "cpu_milli", "memory_mib"])
        for i, pod in enumerate(csv.DictReader(f)):
            if not pod["deletion_time"] or int(pod["num_gpu"]) == 0:
                continue
            start, end = int(pod["creation_time"]), int(pod["deletion_time"])
            if end <= start:
                continue
            gpus = int(pod["num_gpu"])
            milli = int(pod["gpu_milli"]) if gpus == 1 else 1000
            w.writerow([i + 1, start, end - start, gpus, "openb", milli, pod["gpu_spec"],
                        pod["cpu_milli"], pod["memory_mib"]])
            kept += 1
    return kept


def write_cluster(nodes_csv, divide, path):
    """The node list, each model's nodes divided by `divide`; returns the node count."""
    by_model = collections.defaultdict(list)
    with open(nodes_csv, newline="") as f:
        for node in csv.DictReader(f):
            by_model[node["model"]].append(node)
    lines = ["gpu_models:"] + [f"  {m}: {{memory_mib: {v}}}" for m, v in MEMORY_MIB.items()]
    lines += ["pools:", "  - name: openb", "    nodes:"]
    count = 0
    for model, nodes in sorted(by_model.items()):
        for n in nodes[:max(1, round(len(nodes) / divide))]:
            lines.append(f"      - {{name: {n['sn']}, gpus: {n['gpu']}, gpu_model: {model}, "
                         f"cpu_milli: {n['cpu_milli']}, memory_mib: {n['memory_mib']}}}")
            count += 1
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return count


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--squeeze", required=True)
    p.add_argument("--trace", default=os.path.join(OPENB, "openb_pod_list_gpuspec10.csv"))
    p.add_argument("--nodes", default=os.path.join(OPENB, "openb_node_list_gpu_node.csv"))
    p.add_argument("--divide", default="1,20,50,100")
    p.add_argument("--out", default=None)
    a = p.parse_args()
    out = a.out or tempfile.mkdtemp(prefix="openb-hardware-")
    os.makedirs(out, exist_ok=True)
    jobs = os.path.join(out, "jobs.csv")
    print(f"{write_jobs(a.trace, jobs)} pods with GPUs from {a.trace}; files in {out}")
    print(f"{'nodes':>6} {'squeeze':>8} {'jobs':>6} {'mean queue':>11} {'p95 queue':>10} "
          f"{'mean JCT':>9} {'occupancy':>9}")
    for divide in [int(d) for d in a.divide.split(",")]:
        cluster = os.path.join(out, f"openb-1in{divide}.yaml")
        nodes = write_cluster(a.nodes, divide, cluster)
        for aware in ("true", "false"):
            result = os.path.join(out, f"1in{divide}-{aware}.json")
            run = subprocess.run([a.squeeze, "simulate", "--trace", jobs, "--cluster", cluster,
                                  "--policy", "squeeze", "--set", f"hardware_aware={aware}",
                                  "--json", result], capture_output=True, text=True)
            if run.returncode != 0:
                sys.exit(f"openb_hardware: squeeze simulate failed:\n{run.stderr}")
            r = json.load(open(result))["results"][0]
            print(f"{nodes:>6} {'aware' if aware == 'true' else 'blind':>8} {r['jobs']:>6} "
                  f"{r['avg_queue_s']:>10.0f}s {r['p95_queue_s']:>9.0f}s {r['avg_jct_s']:>8.0f}s "
                  f"{r['gpu_utilization']:>9.3f}")


if __name__ == "__main__":
    main()
