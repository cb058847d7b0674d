"""Checks of `squeeze idle-report` output (tests/cli_idle_test.sh).

usage: idle_checks.py REPORT.json HEATMAP.svg NODE:GPUS:LINE...

The JSON's GPU-group lines must be exactly the expected ones (GPUS as "0-7"), and the SVG must be
well-formed XML with a 7 x 24 grid per node and per pool.
"""
import json
import sys
import xml.etree.ElementTree as ET


def gpu_range(gpus):
    return f"{gpus[0]}-{gpus[-1]}" if len(gpus) > 1 else str(gpus[0])


def main():
    report_path, svg_path, *expected = sys.argv[1:]
    with open(report_path) as f:
        report = json.load(f)
    found = []
    for node in report["nodes"]:
        for group in node["gpu_groups"]:
            assert group["gpus"] == list(range(group["gpus"][0], group["gpus"][-1] + 1)), group
            for line in group["lines"]:
                found.append(f"{node['name']}:{gpu_range(group['gpus'])}:{line}")
        assert len(node["idle_probability"]) == 168
    if sorted(found) != sorted(expected):
        sys.exit(f"GPU-group windows {found}, expected {expected}")
    for pool in report["pools"]:
        assert len(pool["mean_gpu_idle_probability"]) == 168
    ns = {"svg": "http://www.w3.org/2000/svg"}
    root = ET.parse(svg_path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
    cells = [r for r in root.findall("svg:rect", ns) if r.find("svg:title", ns) is not None]
    panels = len(report["nodes"]) + len(report["pools"])
    if len(cells) != panels * 7 * 24:
        sys.exit(f"{len(cells)} heatmap cells in the SVG, expected {panels * 7 * 24}")
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    for label in ("Mon", "Sun", "idle probability", "0", "12", "24"):
        assert label in texts, f"label {label!r} missing from the SVG"
    print(f"ok: {len(found)} windows, {panels} heatmaps")


if __name__ == "__main__":
    main()
