#!/usr/bin/env python3
"""Checks on the JSON `squeeze simulate --protocol fill` writes, for tests/cli_fill_test.sh.

Standard library only. Each subcommand prints what it checked and exits 1 with a message
naming the file and the figure on the first failure. (The SVG is checked by
simulate_checks.py svg.)

  shape JSON --placements a,b --seeds N   the documented keys, the six columns, sane values
  ranking JSON                            fgd > bestfit at @130; squeeze >= fgd - 0.1 at each column
"""

from simulate_checks import (fail, is_int, is_number, load_json, run_subcommand,
                             subcommand_parser)

# The report's keys (src/sim/fill_report.h); the order is not part of the contract.
TOP_KEYS = {"trace", "nodes", "fill", "results"}
RESULT_KEYS = {"placement", "alloc_at", "frag_at", "alloc_by_seed", "seeds", "failed_pods",
               "wall_s"}
COLUMNS = [80, 90, 100, 110, 120, 130]
SQUEEZE_SLACK = 0.1  # squeeze may trail fgd by this much at a column (percentage points)


def check_key_set(where, obj, expected):
    if not isinstance(obj, dict):
        fail(f"{where}: expected an object, got {type(obj).__name__}")
    missing = sorted(expected - obj.keys())
    extra = sorted(obj.keys() - expected)
    if missing or extra:
        fail(f"{where}: keys differ from the documented shape: missing {missing}, "
             f"unexpected {extra}")


def check_columns(where, at, lo, hi):
    """`at` has exactly the six columns, each a number in [lo, hi(X)]."""
    check_key_set(where, at, {str(x) for x in COLUMNS})
    for x in COLUMNS:
        v = at[str(x)]
        if not is_number(v) or not lo <= v <= hi(x):
            fail(f"{where}[{x}] = {v!r} is not a number in [{lo}, {hi(x)}]")


def check_alloc(where, at):
    """Pods never leave, so the allocation ratio never falls, and it cannot pass what arrived
    (column X holds events with arrival in [X - 0.5, X + 0.5]%)."""
    check_columns(where, at, 0, lambda x: min(100, x + 0.5))
    alloc = [at[str(x)] for x in COLUMNS]
    if alloc != sorted(alloc):
        fail(f"{where} falls somewhere: {alloc}")


def check_result(where, r, seeds):
    check_key_set(where, r, RESULT_KEYS)
    if r["seeds"] != len(seeds) or not is_int(r["seeds"]):
        fail(f"{where}.seeds = {r['seeds']!r}, expected {len(seeds)}")
    check_key_set(f"{where}.alloc_by_seed", r["alloc_by_seed"], {str(s) for s in seeds})
    for s in seeds:
        check_alloc(f"{where}.alloc_by_seed[{s}]", r["alloc_by_seed"][str(s)])
    check_alloc(f"{where}.alloc_at", r["alloc_at"])  # means of the seeds': the same holds
    check_columns(f"{where}.frag_at", r["frag_at"], 0, lambda x: 100)
    for key in ("failed_pods", "wall_s"):
        if not is_number(r[key]) or r[key] < 0:
            fail(f"{where}.{key} = {r[key]!r} is not a number >= 0")


def cmd_shape(args):
    report = load_json(args.json)
    check_key_set(args.json, report, TOP_KEYS)
    results = report["results"]
    placements = [r.get("placement") for r in results] if isinstance(results, list) else None
    if placements != args.placements.split(","):
        fail(f"{args.json}: placements {placements}, expected {args.placements}")
    first, _, last = args.seeds.partition("-")
    seeds = list(range(int(first), int(last or first) + 1))
    for r in results:
        check_result(f"{args.json}: {r['placement']}", r, seeds)
    print(f"shape: {args.json}: {len(results)} placements x {len(seeds)} seeds: OK")


def cmd_ranking(args):
    results = {r["placement"]: r["alloc_at"] for r in load_json(args.json)["results"]}
    for name in ("bestfit", "fgd", "squeeze"):
        if name not in results:
            fail(f"{args.json}: no results for {name}")
    fgd, bestfit, squeeze = results["fgd"], results["bestfit"], results["squeeze"]
    if not fgd["130"] > bestfit["130"]:
        fail(f"{args.json}: fgd {fgd['130']} does not beat bestfit {bestfit['130']} at @130")
    for x in COLUMNS:
        if squeeze[str(x)] < fgd[str(x)] - SQUEEZE_SLACK:
            fail(f"{args.json}: squeeze {squeeze[str(x)]} trails fgd {fgd[str(x)]} at @{x} "
                 f"by more than {SQUEEZE_SLACK}")
    print(f"ranking: {args.json}: @130 bestfit {bestfit['130']} < fgd {fgd['130']}, "
          f"squeeze {squeeze['130']}: OK")


def main():
    parser, sub = subcommand_parser(__doc__)
    p = sub.add_parser("shape")
    p.add_argument("json")
    p.add_argument("--placements", required=True)
    p.add_argument("--seeds", required=True, help="FIRST-LAST or one seed, as given to squeeze")
    p.set_defaults(run=cmd_shape)
    p = sub.add_parser("ranking")
    p.add_argument("json")
    p.set_defaults(run=cmd_ranking)
    run_subcommand(parser)


if __name__ == "__main__":
    main()
