#!/usr/bin/env python3
"""Checks on the files `squeeze simulate` writes, for the end-to-end tests in this folder.

Standard library only. Each subcommand prints what it checked and exits 1 with a message
naming the file and the figure on the first failure.

  shape JSON [--jobs N] [--policies a,b]   the JSON report has exactly the documented shape
  svg SVG [--policies a,b]                 the SVG parses as XML and has one curve per policy
  fidelity JSON REFERENCE_CSV_GZ           fifo and sjf are within 2% of the Helios reference
  same-json A B                            A and B are byte-identical once "wall_s" is removed
  scenario JSON --name N --variants a,b [--policies "p,q;p"] [--gpus 24,40]
                                           a --scenario report: the shape, the variants in order,
                                           each variant's policies and its cluster's GPUs
"""

import argparse
import collections
import csv
import gzip
import json
import math
import re
import sys
import xml.etree.ElementTree as ET

# The report's keys, in the order FormatJson (src/sim/report.cc) writes them and
# docs/simulate.md documents them. A key added or removed there must be added or removed here.
TOP_KEYS = ["trace", "cluster", "jobs", "results"]
RESULT_KEYS = [
    "policy", "jobs", "avg_queue_s", "p50_queue_s", "p95_queue_s", "p99_queue_s",
    "avg_jct_s", "avg_bounded_slowdown", "gpu_utilization", "preemptions", "slice_yields",
    "borrowed_starts", "defrag_moves", "region_moves", "data_moved_gb", "data_transfer_cost",
    "spot_starts", "spot_long_bridges", "spot_long_every", "colocated_starts", "reclaims",
    "inference_evictions", "inference_violations", "elastic_jobs", "resizes", "shrinks",
    "widened_starts", "elastic_gpu_hours_by_width", "returned_home", "hardware_moves", "multi_node_starts",
    "one_block_starts", "cost", "pool_use",
    "lost_gpu_hours", "frag_blocked_gpu_hours", "by_length", "by_urgency", "makespan_s", "deadlines", "deadline_misses",
    "rejected", "timed_out", "dependency_never_satisfied", "most_array_tasks_running", "wall_s",
    "per_pool",
]
INT_KEYS = {"jobs", "preemptions", "slice_yields", "borrowed_starts", "defrag_moves", "region_moves",
            "spot_starts", "spot_long_bridges", "spot_long_every", "colocated_starts", "reclaims",
            "inference_evictions", "inference_violations", "elastic_jobs", "resizes", "shrinks",
            "widened_starts", "returned_home", "hardware_moves", "multi_node_starts",
            "one_block_starts", "makespan_s", "deadlines", "deadline_misses", "rejected",
            "timed_out", "dependency_never_satisfied", "most_array_tasks_running"}
POOL_KEYS = ["jobs", "avg_queue_s", "avg_jct_s", "frag_blocked_gpu_hours"]
# A --scenario report (FormatScenarioJson): the variants hold results of RESULT_KEYS.
SCENARIO_KEYS = ["scenario", "trace", "variants"]
VARIANT_KEYS = ["name", "cluster", "gpus", "inference_load", "results"]

# Fidelity: the policies compared with the reference, the tolerance, and which VCs count.
FIDELITY_POLICIES = ["fifo", "sjf"]
FIDELITY_TOLERANCE = 0.02
FIDELITY_MIN_VC_JOBS = 500


class CheckError(Exception):
    pass


def fail(message):
    raise CheckError(message)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v):
    return (is_int(v) or isinstance(v, float)) and math.isfinite(v)


def load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: not readable as JSON: {e}")


def check_keys(where, obj, expected):
    if not isinstance(obj, dict):
        fail(f"{where}: expected an object, got {type(obj).__name__}")
    got = list(obj.keys())
    missing = [k for k in expected if k not in obj]
    extra = [k for k in got if k not in expected]
    if missing or extra:
        fail(f"{where}: keys differ from the documented shape: missing {missing}, "
             f"unexpected {extra}")
    if got != expected:
        fail(f"{where}: keys out of the documented order: {got}")


def check_result(where, r):
    check_keys(where, r, RESULT_KEYS)
    if not isinstance(r["policy"], str) or not r["policy"]:
        fail(f"{where}.policy: {r['policy']!r} is not a policy name")
    for key in RESULT_KEYS:
        if key in ("policy", "per_pool", "pool_use", "by_length", "by_urgency",
                   "elastic_gpu_hours_by_width"):
            continue
        v = r[key]
        if key in INT_KEYS and not is_int(v):
            fail(f"{where}.{key}: {v!r} is not an integer")
        if not is_number(v) or v < 0:
            fail(f"{where}.{key}: {v!r} is not a non-negative number")
    widths = r["elastic_gpu_hours_by_width"]
    if not isinstance(widths, dict) or any(
            not k.isdigit() or int(k) < 1 or not is_number(v) or v < 0 for k, v in widths.items()):
        fail(f"{where}.elastic_gpu_hours_by_width: {widths!r} is not an object of width: GPU-hours")
    if r["shrinks"] > r["resizes"] or (r["elastic_jobs"] == 0 and (r["resizes"] or widths)):
        fail(f"{where}: {r['resizes']} resizes, {r['shrinks']} shrinks, {r['elastic_jobs']} "
             "elastic jobs do not agree")
    if not 0 <= r["gpu_utilization"] <= 1:
        fail(f"{where}.gpu_utilization: {r['gpu_utilization']} is not in [0, 1]")
    if not r["p50_queue_s"] <= r["p95_queue_s"] <= r["p99_queue_s"]:
        fail(f"{where}: percentiles are not ordered: p50 {r['p50_queue_s']}, "
             f"p95 {r['p95_queue_s']}, p99 {r['p99_queue_s']}")
    if r["jobs"] > 0 and r["avg_bounded_slowdown"] < 1:
        fail(f"{where}.avg_bounded_slowdown: {r['avg_bounded_slowdown']} is below 1")
    if r["avg_jct_s"] < r["avg_queue_s"]:
        fail(f"{where}: avg_jct_s {r['avg_jct_s']} is below avg_queue_s {r['avg_queue_s']}")
    lengths = r["by_length"]
    if list(lengths) != ["<1h", "1h-12h", ">=12h"]:
        fail(f"{where}.by_length: classes {list(lengths)}, expected <1h, 1h-12h, >=12h")
    if sum(c["jobs"] for c in lengths.values()) != r["jobs"]:
        fail(f"{where}.by_length: the classes hold {sum(c['jobs'] for c in lengths.values())} "
             f"jobs, not {r['jobs']}")
    urgencies = r["by_urgency"]
    order = ["critical", "high", "normal", "low"]
    if [u for u in order if u in urgencies] != list(urgencies):
        fail(f"{where}.by_urgency: classes {list(urgencies)} are not known ones, most urgent first")
    if sum(c["jobs"] for c in urgencies.values()) != r["jobs"]:
        fail(f"{where}.by_urgency: the classes hold {sum(c['jobs'] for c in urgencies.values())} "
             f"jobs, not {r['jobs']}")
    pools = r["per_pool"]
    if not isinstance(pools, dict) or not pools:
        fail(f"{where}.per_pool: expected a non-empty object, got {pools!r}")
    total = 0
    for name, p in pools.items():
        pwhere = f"{where}.per_pool[{name!r}]"
        check_keys(pwhere, p, POOL_KEYS)
        if not is_int(p["jobs"]) or p["jobs"] <= 0:
            fail(f"{pwhere}.jobs: {p['jobs']!r} is not a positive integer")
        for key in ("avg_queue_s", "avg_jct_s", "frag_blocked_gpu_hours"):
            if not is_number(p[key]) or p[key] < 0:
                fail(f"{pwhere}.{key}: {p[key]!r} is not a non-negative number")
        total += p["jobs"]
    if total != r["jobs"]:
        fail(f"{where}.per_pool: pools hold {total} jobs, the result {r['jobs']}")
    use = r["pool_use"]
    if not isinstance(use, dict):
        fail(f"{where}.pool_use: expected an object, got {use!r}")
    for name, u in use.items():
        check_keys(f"{where}.pool_use[{name!r}]", u, ["gpu_hours", "usage_cost", "fixed_cost", "cost"])
        if not all(is_number(u[k]) and u[k] >= 0 for k in u):
            fail(f"{where}.pool_use[{name!r}]: {u!r} has a value that is not a non-negative number")
    if r["jobs"] > 0 and sum(u["gpu_hours"] for u in use.values()) <= 0:
        fail(f"{where}.pool_use: no GPU-hours held although {r['jobs']} jobs ran")
    for name, u in use.items():
        if not math.isclose(u["usage_cost"] + u["fixed_cost"], u["cost"], rel_tol=1e-9, abs_tol=1e-9):
            fail(f"{where}.pool_use[{name!r}]: usage_cost + fixed_cost is not cost: {u!r}")
    if not math.isclose(sum(u["cost"] for u in use.values()), r["cost"], rel_tol=1e-9, abs_tol=1e-6):
        fail(f"{where}.pool_use: the pools' costs do not add up to cost {r['cost']}")
    frag = sum(p["frag_blocked_gpu_hours"] for p in pools.values())
    if not math.isclose(frag, r["frag_blocked_gpu_hours"], rel_tol=1e-9, abs_tol=1e-6):
        fail(f"{where}.per_pool: pools' frag_blocked_gpu_hours add up to {frag}, "
             f"the result's is {r['frag_blocked_gpu_hours']}")


def cmd_shape(args):
    doc = load_json(args.json)
    check_keys(args.json, doc, TOP_KEYS)
    for key in ("trace", "cluster"):
        if not isinstance(doc[key], str) or not doc[key]:
            fail(f"{args.json}: {key}: {doc[key]!r} is not a path")
    if not is_int(doc["jobs"]):
        fail(f"{args.json}: jobs: {doc['jobs']!r} is not an integer")
    if args.jobs is not None and doc["jobs"] != args.jobs:
        fail(f"{args.json}: jobs is {doc['jobs']}, expected {args.jobs}")
    results = doc["results"]
    if not isinstance(results, list) or not results:
        fail(f"{args.json}: results: expected a non-empty list")
    for i, r in enumerate(results):
        check_result(f"{args.json}: results[{i}]", r)
        if r["jobs"] != doc["jobs"]:
            fail(f"{args.json}: results[{i}].jobs is {r['jobs']}, the report's {doc['jobs']}")
    if args.policies:
        got = [r["policy"] for r in results]
        want = args.policies.split(",")
        if got != want:
            fail(f"{args.json}: policies are {got}, expected {want} in that order")
    print(f"shape: {args.json}: {len(results)} results of {doc['jobs']} jobs, "
          f"{len(results[0]['per_pool'])} pools: OK")


def cmd_scenario(args):
    doc = load_json(args.json)
    check_keys(args.json, doc, SCENARIO_KEYS)
    if doc["scenario"] != args.name:
        fail(f"{args.json}: scenario is {doc['scenario']!r}, expected {args.name!r}")
    variants = doc["variants"]
    names = [v.get("name") for v in variants] if isinstance(variants, list) else None
    if names != args.variants.split(","):
        fail(f"{args.json}: variants are {names}, expected {args.variants.split(',')}")
    policies = args.policies.split(";") if args.policies else None
    gpus = [int(g) for g in args.gpus.split(",")] if args.gpus else None
    for i, v in enumerate(variants):
        where = f"{args.json}: variants[{i}]"
        check_keys(where, v, VARIANT_KEYS)
        if not isinstance(v["cluster"], str) or not v["cluster"]:
            fail(f"{where}.cluster: {v['cluster']!r} is not a path")
        if v["inference_load"] is not None and not isinstance(v["inference_load"], str):
            fail(f"{where}.inference_load: {v['inference_load']!r} is neither null nor a path")
        if gpus and v["gpus"] != gpus[i]:
            fail(f"{where}.gpus is {v['gpus']!r}, expected {gpus[i]}")
        if not isinstance(v["results"], list) or not v["results"]:
            fail(f"{where}.results: expected a non-empty list")
        for j, r in enumerate(v["results"]):
            check_result(f"{where}.results[{j}]", r)
        got = [r["policy"] for r in v["results"]]
        if policies and got != policies[i].split(","):
            fail(f"{where}: policies are {got}, expected {policies[i].split(',')}")
    print(f"scenario: {args.json}: {len(variants)} variants: OK")


def cmd_svg(args):
    try:
        root = ET.parse(args.svg).getroot()
    except (OSError, ET.ParseError) as e:
        fail(f"{args.svg}: not well-formed XML: {e}")
    ns = "{http://www.w3.org/2000/svg}"
    if root.tag != ns + "svg":
        fail(f"{args.svg}: the root element is {root.tag}, not an SVG <svg>")
    for dim in ("width", "height"):
        try:
            if float(root.get(dim, "0")) <= 0:
                raise ValueError
        except ValueError:
            fail(f"{args.svg}: <svg> {dim}={root.get(dim)!r} is not a positive size")
    curves = root.findall(f".//{ns}polyline")
    texts = ["".join(t.itertext()) for t in root.iter(ns + "text")]
    if args.policies:
        want = args.policies.split(",")
        if len(curves) != len(want):
            fail(f"{args.svg}: {len(curves)} curves, expected one per policy ({len(want)})")
        for name in want:
            if name not in texts:
                fail(f"{args.svg}: no legend entry for policy {name!r}")
    for i, c in enumerate(curves):
        points = c.get("points", "").split()
        if not points:
            fail(f"{args.svg}: curve {i} has no points")
        for pt in points:
            try:
                x, y = (float(v) for v in pt.split(","))
            except ValueError:
                fail(f"{args.svg}: curve {i} has a bad point {pt!r}")
            if not (math.isfinite(x) and math.isfinite(y)):
                fail(f"{args.svg}: curve {i} has a non-finite point {pt!r}")
    print(f"svg: {args.svg}: {len(curves)} curves, {len(texts)} labels: OK")


def reference_means(path, policies):
    """{policy: {"all": (jobs, mean_jct, mean_queue), vc: (...)}} from a per-job reference."""
    sums = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0.0, 0.0]))
    try:
        with gzip.open(path, "rt", newline="") as f:
            for row in csv.DictReader(f):
                if row["policy"] not in policies:
                    continue
                jct, queue = float(row["jct_s"]), float(row["queue_s"])
                for key in ("all", row["vc"]):
                    s = sums[row["policy"]][key]
                    s[0] += 1
                    s[1] += jct
                    s[2] += queue
    except (OSError, EOFError, KeyError, ValueError) as e:
        fail(f"{path}: cannot read the per-job reference: {e!r}")
    out = {}
    for policy, by_key in sums.items():
        out[policy] = {k: (n, jct / n, queue / n) for k, (n, jct, queue) in by_key.items()}
    return out


def within(ours, ref):
    # 2% of the reference; the 1 s floor only matters for references near zero.
    return abs(ours - ref) <= max(FIDELITY_TOLERANCE * abs(ref), 1.0)


def cmd_fidelity(args):
    doc = load_json(args.json)
    ref = reference_means(args.reference, FIDELITY_POLICIES)
    results = {r["policy"]: r for r in doc.get("results", [])}
    failures = []
    lines = []
    for policy in FIDELITY_POLICIES:
        if policy not in ref:
            fail(f"{args.reference}: no rows for policy {policy}")
        if policy not in results:
            fail(f"{args.json}: no result for policy {policy}")
        r = results[policy]
        rows = [("all", r["jobs"], r["avg_jct_s"], r["avg_queue_s"])]
        for vc in sorted(k for k in ref[policy] if k != "all"):
            if ref[policy][vc][0] < FIDELITY_MIN_VC_JOBS:
                continue
            p = r["per_pool"].get(vc)
            if p is None:
                failures.append(f"{policy} {vc}: no per_pool entry in {args.json}")
                continue
            rows.append((vc, p["jobs"], p["avg_jct_s"], p["avg_queue_s"]))
        for key, jobs, jct, queue in rows:
            ref_jobs, ref_jct, ref_queue = ref[policy][key]
            status = "ok"
            if jobs != ref_jobs:
                failures.append(f"{policy} {key}: {jobs} jobs, the reference {ref_jobs}")
                status = "JOBS"
            for what, ours, theirs in (("mean JCT", jct, ref_jct),
                                       ("mean queue", queue, ref_queue)):
                if not within(ours, theirs):
                    rel = (ours - theirs) / theirs if theirs else float("inf")
                    failures.append(f"{policy} {key}: {what} {ours:.1f} s vs reference "
                                    f"{theirs:.1f} s ({rel:+.2%}, allowed "
                                    f"±{FIDELITY_TOLERANCE:.0%})")
                    status = "FAIL"
            lines.append(f"  {policy:<5} {key:<7} {jobs:>6} jobs  JCT {jct:>10.1f} "
                         f"(ref {ref_jct:>10.1f})  queue {queue:>9.1f} (ref {ref_queue:>9.1f})"
                         f"  {status}")
    print("fidelity: squeeze vs the Helios reference (per_pool = VC), "
          f"tolerance {FIDELITY_TOLERANCE:.0%}, VCs with >= {FIDELITY_MIN_VC_JOBS} jobs:")
    print("\n".join(lines))
    if failures:
        fail("fidelity: " + str(len(failures)) + " figures off:\n  " + "\n  ".join(failures))
    print("fidelity: OK")


def cmd_beats(args):
    """Our policy's overall mean queue and JCT are below the reference policy's."""
    doc = load_json(args.json)
    ref = reference_means(args.reference, {args.reference_policy})
    if args.reference_policy not in ref:
        fail(f"{args.reference}: no rows for policy {args.reference_policy}")
    results = {r["policy"]: r for r in doc.get("results", [])}
    if args.policy not in results:
        fail(f"{args.json}: no result for policy {args.policy}")
    ours = results[args.policy]
    _, ref_jct, ref_queue = ref[args.reference_policy]["all"]
    print(f"beats: {args.policy} queue {ours['avg_queue_s']:.1f} s, JCT {ours['avg_jct_s']:.1f} s; "
          f"reference {args.reference_policy} queue {ref_queue:.1f} s, JCT {ref_jct:.1f} s")
    if not (ours["avg_queue_s"] < ref_queue and ours["avg_jct_s"] < ref_jct):
        fail(f"beats: {args.policy} is not below the reference {args.reference_policy}")
    print("beats: OK")


WALL_LINE = re.compile(rb'^\s*"wall_s": [^\n]*\n', re.MULTILINE)


def strip_wall(path):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        fail(f"{path}: {e}")
    stripped, n = WALL_LINE.subn(b"", data)
    if n == 0:
        fail(f"{path}: no \"wall_s\" line found (has the JSON layout changed?)")
    return stripped, n


def cmd_same_json(args):
    a, na = strip_wall(args.a)
    b, nb = strip_wall(args.b)
    if a != b:
        la, lb = a.splitlines(), b.splitlines()
        for i, (x, y) in enumerate(zip(la, lb)):
            if x != y:
                fail(f"{args.a} and {args.b} differ (wall_s removed) at line {i + 1}:\n"
                     f"  {x.decode(errors='replace')}\n  {y.decode(errors='replace')}")
        fail(f"{args.a} and {args.b} differ in length ({len(la)} vs {len(lb)} lines)")
    print(f"same-json: {args.a} == {args.b} byte for byte, {na} wall_s lines removed: OK")


def subcommand_parser(doc):
    """A parser with `doc` as its help and the subparsers to add the subcommands to."""
    parser = argparse.ArgumentParser(description=doc,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    return parser, parser.add_subparsers(dest="command", required=True)


def main():
    parser, sub = subcommand_parser(__doc__)
    p = sub.add_parser("shape")
    p.add_argument("json")
    p.add_argument("--jobs", type=int)
    p.add_argument("--policies")
    p.set_defaults(run=cmd_shape)
    p = sub.add_parser("svg")
    p.add_argument("svg")
    p.add_argument("--policies")
    p.set_defaults(run=cmd_svg)
    p = sub.add_parser("fidelity")
    p.add_argument("json")
    p.add_argument("reference")
    p.set_defaults(run=cmd_fidelity)
    p = sub.add_parser("beats")
    p.add_argument("json")
    p.add_argument("reference")
    p.add_argument("--policy", required=True)
    p.add_argument("--reference-policy", required=True)
    p.set_defaults(run=cmd_beats)
    p = sub.add_parser("same-json")
    p.add_argument("a")
    p.add_argument("b")
    p.set_defaults(run=cmd_same_json)
    p = sub.add_parser("scenario")
    p.add_argument("json")
    p.add_argument("--name", required=True)
    p.add_argument("--variants", required=True)
    p.add_argument("--policies")
    p.add_argument("--gpus")
    p.set_defaults(run=cmd_scenario)
    run_subcommand(parser)


def run_subcommand(parser):
    """Runs the subcommand the arguments name; a failed check exits 1 with its message."""
    args = parser.parse_args()
    try:
        args.run(args)
    except CheckError as e:
        print(f"FAIL {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
