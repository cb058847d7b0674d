"""Checks of `squeeze advise`'s reports (tests/cli_advise_test.sh):
python3 advise_checks.py OUT.json OUT.md OUT.html [--jobs N] [--what-ifs N]."""
import argparse
import json
import sys


def fail(msg):
    print("advise_checks: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json")
    ap.add_argument("markdown")
    ap.add_argument("html")
    ap.add_argument("--jobs", type=int)
    ap.add_argument("--what-ifs", type=int, default=0)
    a = ap.parse_args()
    with open(a.json) as f:
        r = json.load(f)
    if a.jobs is not None and r["jobs"] != a.jobs:
        fail(f"jobs {r['jobs']} != {a.jobs}")
    s = r["reserve_split"]
    if s is None:
        fail("no reserve_split")
    hours = s["hours_per_month_by_gpu"]
    if len(hours) != s["peak_gpus"] or any(b > a_ + 1e-9 for a_, b in zip(hours, hours[1:])):
        fail("hours_per_month_by_gpu is not a non-increasing list of peak_gpus values")
    owned = min(s["owned_gpus_on_curve"], s["peak_gpus"])
    k = s["reserved_gpus"]
    be = s["break_even_hours_per_month"]
    if abs(be - s["reserved_per_gpu_month"] / s["on_demand_per_gpu_hour"]) > 1e-6:
        fail("break-even != R / P")
    reserved_h = sum(hours[owned:owned + k])
    on_demand_h = sum(hours[owned + k:])
    if any(h < be for h in hours[owned:owned + k]) or any(h >= be for h in hours[owned + k:owned + k + 1]):
        fail("reserved GPUs are not exactly those busy at least the break-even hours")
    for name, want in (("reserved_gpu_hours_per_month", reserved_h),
                       ("on_demand_gpu_hours_per_month", on_demand_h)):
        if abs(s[name] - want) > 1e-6 * max(1, want):
            fail(f"{name} {s[name]} != {want} from the curve")
    split = k * s["reserved_per_gpu_month"] + on_demand_h * s["on_demand_per_gpu_hour"]
    if abs(s["cost_split_per_month"] - split) > 0.01:
        fail(f"cost of the split {s['cost_split_per_month']} != {split}")
    if s["cost_split_per_month"] > min(s["cost_all_on_demand_per_month"],
                                       s["cost_all_reserved_per_month"]) + 0.01:
        fail("the split costs more than all on demand or all reserved")
    spot = r["spot"]
    if spot is None or not spot["classes"]:
        fail("no spot classes")
    if sum(c["jobs"] for c in spot["classes"]) != r["jobs"]:
        fail("the spot classes do not hold every job")
    if len(r["what_ifs"]) != (a.what_ifs + 1 if a.what_ifs else 0):
        fail(f"{len(r['what_ifs'])} what-if runs, expected {a.what_ifs} and the cluster as is")
    with open(a.markdown) as f:
        md = f.read()
    for text in ("## Reserve vs on demand", "## Spot", "## Region", "| split (advice) |"):
        if text not in md:
            fail(f"'{text}' not in the Markdown report")
    with open(a.html) as f:
        html = f.read()
    wanted = ['<svg', 'class="load-curve"', 'class="break-even"']
    if a.what_ifs:
        wanted.append('class="wait-bar"')
    for text in wanted:
        if text not in html:
            fail(f"'{text}' not in the HTML report")
    print(f"advise_checks: ok: reserve {k} GPUs, split {s['cost_split_per_month']:.0f} a month")


main()
