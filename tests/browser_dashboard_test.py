#!/usr/bin/env python3
"""The web dashboard in headless Chromium against a real `squeeze serve` (label browser).

    python3 tests/browser_dashboard_test.py dashboard SQUEEZE_BINARY SOURCE_DIR WORK_DIR

Starts the daemon on 4 virtual GPUs with a cluster of an owned, a spot and a colocated pool
(tests/data/browser/cluster.yaml), serving the dashboard built beside the binary (build/web,
made by the build's `web` target), writes a simulate and an advise report, and runs
web/tests/dashboard.test.mjs (playwright-core driving /usr/bin/chromium, or $CHROMIUM), which
logs in, watches the queue, cancels, reads the charts and saves screenshots into
$SQUEEZE_SCREENSHOTS (default WORK_DIR/screenshots). The daemon is stopped at the end, even on
a failure. Skipped (77) only when chromium or node is not installed.
"""

import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_lib  # noqa: E402
from serve_lib import check, log, wait_until  # noqa: E402


def case_dashboard(squeeze, source, h):
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    node = shutil.which("node")
    if not os.access(chromium, os.X_OK) or node is None:
        raise serve_lib.SkipTest(f"needs {chromium} and node (scripts/setup.sh installs them)")
    web = os.path.join(source, "web")
    check(os.path.isdir(os.path.join(web, "node_modules", "playwright-core")),
          f"{web}/node_modules has no playwright-core: build first (scripts/build.sh runs npm ci)")
    built = os.path.join(os.path.dirname(squeeze), "web", "index.html")
    check(os.path.isfile(built), f"{built} is missing: build the dashboard (ninja -C build web)")

    sim_json, advise_json = h.path("simulate.json"), h.path("advise.json")
    r = h.run([squeeze, "simulate", "--scenario",
               os.path.join(source, "tests", "data", "scenario", "lab.yaml"), "--json", sim_json])
    check(r.returncode == 0, f"simulate: {r.returncode} {r.stderr}")
    r = h.run([squeeze, "advise", "--history",
               os.path.join(source, "examples", "jobs", "profile-example.csv"), "--cluster",
               os.path.join(source, "examples", "clusters", "philly-half-prices.yaml"),
               "--what-if", "spot+16", "--json", advise_json, "-q"])
    check(r.returncode == 0, f"advise: {r.returncode} {r.stderr}")

    config = os.path.join(source, "tests", "data", "browser", "cluster.yaml")
    d = h.start_daemon(squeeze, "data", ["--config", config, "--virtual-gpus", "4",
                                         "--stop-grace", "2s"])
    check("dashboard at " in d.log_text(), f"the daemon should say where the dashboard is:\n"
                                           f"{d.log_text()}")
    alice = h.add_token("data", "alice", "ml")
    wait_until(lambda: d.call("GET", "/v1/pools", token=alice)[0] == 200, 15,
               "the daemon to accept alice's token")
    blocker = d.submit({"name": "blocker", "command": ["sleep", "600"], "gpus": 2,
                        "pool": "owned", "estimate": "1h"})
    d.wait_state(blocker, "running", timeout=30)
    status, body = d.call("POST", "/v1/telemetry",
                          {"gpus": [{"node": "inf-0", "gpu": 0, "inference_load": 0.35}]})
    check(status == 200, f"telemetry: {status} {body}")

    # The static files need no token and carry no data.
    for path in ("/ui/", "/ui/assets/app.js"):
        status, text = serve_lib.http("GET", d.url + path)
        check(status == 200, f"GET {path} without a token: {status}")
        check("blocker" not in text and d.admin_token not in text, f"{path} holds data")

    shots = os.environ.get("SQUEEZE_SCREENSHOTS") or h.path("screenshots")
    env = dict(os.environ, SQUEEZE_URL=d.url, SQUEEZE_TOKEN=d.admin_token,
               SQUEEZE_USER_TOKEN=alice, SQUEEZE_BLOCKER_ID=str(blocker),
               SQUEEZE_SIM_JSON=sim_json, SQUEEZE_ADVISE_JSON=advise_json,
               SQUEEZE_SCREENSHOTS=shots, CHROMIUM=chromium)
    log("running web/tests/dashboard.test.mjs in headless Chromium")
    r = h.run([node, os.path.join(web, "tests", "dashboard.test.mjs")], timeout=150, env=env,
              cwd=web)
    print(r.stdout, end="", flush=True)
    print(r.stderr, end="", file=sys.stderr, flush=True)
    check(r.returncode == 0, f"the browser test failed (exit {r.returncode})")
    for name in ("queue", "gpus", "history", "report-simulate", "report-advise"):
        path = os.path.join(shots, f"{name}.png")
        check(os.path.isfile(path) and os.path.getsize(path) > 5000, f"no screenshot {path}")
    log(f"screenshots in {shots}")


if __name__ == "__main__":
    sys.exit(serve_lib.main({"dashboard": case_dashboard}, sys.argv))
