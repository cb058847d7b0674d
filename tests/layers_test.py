"""The layers of src/ as drawn (docs/architecture.md, "Layers"): each folder's code (tests and
testing/ helpers aside) includes only the folders below it. The scheduling core is pure and
stands alone; the daemon (serve) never reaches into the simulator (sim). A new include across
the drawing fails here, naming the file, the line and what it may use.

Usage: python3 layers_test.py SOURCE_DIR
"""

import os
import re
import sys

# What each layer may include, besides itself.
ALLOWED = {
    "core": set(),
    "config": {"core"},
    "exec": {"core"},
    "store": {"core"},
    "sim": {"core", "config"},
    "advise": {"core", "config", "sim"},
    "slurm": {"core", "config", "exec"},
    "serve": {"core", "config", "exec", "slurm", "store"},
    "inventory": {"core", "config", "slurm"},
    "export": {"core", "config"},
    "cli": {"core", "config", "exec", "store", "slurm", "sim", "advise", "serve", "inventory",
            "export"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')


def main(source):
    src = os.path.join(source, "src")
    layers = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
    unknown = [d for d in layers if d not in ALLOWED]
    wrong = [f"src/{d}/: a layer this test does not know; add it to ALLOWED" for d in unknown]
    checked = 0
    for layer in layers:
        for root, dirs, files in os.walk(os.path.join(src, layer)):
            dirs[:] = [d for d in dirs if d != "testing"]
            for name in files:
                if not name.endswith((".cc", ".h")) or name.endswith("_test.cc"):
                    continue
                path = os.path.join(root, name)
                checked += 1
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m or m.group(1) == layer or m.group(1) not in ALLOWED:
                            continue
                        if m.group(1) not in ALLOWED.get(layer, set()):
                            may = ", ".join(sorted(ALLOWED.get(layer, set()))) or "nothing else"
                            wrong.append(f"{os.path.relpath(path, source)}:{number}: {layer} "
                                         f"includes {m.group(1)} ({line.strip()}); {layer} may "
                                         f"use {may}")
    if checked == 0:
        wrong.append(f"no source file found under {src}")
    for w in wrong:
        print("FAIL:", w)
    if not wrong:
        print(f"PASS: {checked} files of {len(layers)} layers include only what their layer may")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
