#!/usr/bin/env python3
"""End-to-end test of `squeeze serve`'s GPU utilization telemetry: samples kept in its store,
held-but-idle jobs (GET /v1/held-idle, `squeeze held-idle`, the job's history, /metrics), and
`squeeze idle-report --store` on the store once the daemon has stopped.

    python3 tests/serve_samples_test.py CASE SQUEEZE_BINARY SOURCE_DIR WORK_DIR

CASE: held_idle, history, sampling, agent. Registered in CTest as e2e.serve_samples.CASE.
"""

import calendar
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_lib  # noqa: E402
from serve_lib import check, expect_error, log, wait_until  # noqa: E402

FOREVER = ["sleep", "600"]  # a job that runs until it is stopped (the teardown kills it)
WINDOW_S = 5


def unix(text):
    return calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ"))


def case_held_idle(squeeze, source, h):
    d = h.start_daemon(squeeze, "data", ["--virtual-gpus", "4:A100",
                                         "--held-idle-window", f"{WINDOW_S}s",
                                         "--held-idle-threshold", "0.1"])
    env = dict(os.environ, SQUEEZE_URL=d.url, SQUEEZE_TOKEN=d.admin_token)
    alice = h.add_token("data", serve_lib.ALICE, "ml")
    wait_until(lambda: d.call("GET", "/v1/held-idle", token=alice)[0] == 200, 15,
               "the daemon to accept alice's token")

    def cli(*args):
        r = h.run([squeeze, *args], timeout=60, env=env, cwd=source)
        check(r.returncode == 0, f"squeeze {' '.join(args)}: exit {r.returncode}\n"
                                 f"stdout: {r.stdout}\nstderr: {r.stderr}")
        return r.stdout

    status, nodes = d.call("GET", "/v1/nodes")
    check(status == 200, f"GET /v1/nodes: {status} {nodes}")
    node = nodes["nodes"][0]["name"]
    idler = d.submit({"name": "idler", "command": FOREVER, "gpus": 2, "estimate": "1h"},
                     token=alice)
    busy = d.submit({"name": "busy", "command": FOREVER, "gpus": 1, "estimate": "1h"})
    d.wait_state(idler, ["running"])
    d.wait_state(busy, ["running"])
    idle_gpus = d.job(idler)["run_gpus"]
    busy_gpus = d.job(busy)["run_gpus"]
    check(len(idle_gpus) == 2 and len(busy_gpus) == 1, f"GPUs: {idle_gpus} {busy_gpus}")
    idler_started = unix(d.job(idler)["started_at"])
    started = max(idler_started, unix(d.job(busy)["started_at"]))

    def report(at, with_memory=False):
        gpus = [{"node": node, "gpu": g, "utilization": 0.02} for g in idle_gpus]
        gpus += [{"node": node, "gpu": g, "utilization": 0.8} for g in busy_gpus]
        if with_memory:
            gpus[0]["memory_used_mib"] = 1024
        status, body = d.call("POST", "/v1/telemetry", {"time": at, "gpus": gpus})
        check(status == 200, f"telemetry at {at}: {status} {body}")
        check(body["utilizations"] == len(gpus) and body["stored"] == len(gpus), f"{body}")

    # Broken reports are refused whole, naming the entry, field and value.
    expect_error(d, "POST", "/v1/telemetry", 400, ["gpus[1].utilization", "1.5"],
                 body={"gpus": [{"node": node, "gpu": 0, "utilization": 0.1},
                                {"node": node, "gpu": 1, "utilization": 1.5}]})
    expect_error(d, "POST", "/v1/telemetry", 400, ["gpus[0].node", "nowhere"],
                 body={"gpus": [{"node": "nowhere", "gpu": 0, "utilization": 0.1}]})
    expect_error(d, "POST", "/v1/telemetry", 400, ["gpus[0]", "no reading"],
                 body={"gpus": [{"node": node, "gpu": 0}]})
    expect_error(d, "POST", "/v1/telemetry", 400, ["time", "in the future"],
                 body={"time": int(time.time()) + 86400,
                       "gpus": [{"node": node, "gpu": 0, "utilization": 0.1}]})
    expect_error(d, "POST", "/v1/telemetry", 400, ["gpus[0].inference_load", "old"],
                 body={"time": int(time.time()) - 3600,
                       "gpus": [{"node": node, "gpu": 0, "inference_load": 0.1}]})
    expect_error(d, "POST", "/v1/telemetry", 403, ["only an admin"], token=alice,
                 body={"gpus": [{"node": node, "gpu": 0, "utilization": 0.1}]})

    # A replay of a sample from before the runs: stored, but no part of their spells.
    report(started - 3600)
    # At the idler's start its spell is 0 s long, whenever the busy job started (on a loaded
    # machine a step or more later: a sample at the later start could already span the window).
    report(idler_started, with_memory=True)
    check(d.call("GET", "/v1/held-idle")[1]["jobs"] == [], "held idle before the window")
    wait_until(lambda: time.time() >= started + WINDOW_S + 1, WINDOW_S + 5, "the window to pass")
    report(int(time.time()))  # no time field would mean now as well
    held = wait_until(lambda: d.call("GET", "/v1/held-idle", token=alice)[1]["jobs"] or None,
                      15, "job {idler} to be listed held but idle")
    check([j["id"] for j in held] == [idler], f"only job {idler} is held idle: {held}")
    j = held[0]
    check(j["name"] == "idler" and j["user"] == serve_lib.ALICE and j["team"] == "ml", f"{j}")
    check(sorted(g["gpu"] for g in j["gpus"]) == sorted(idle_gpus) and
          all(g["node"] == node for g in j["gpus"]), f"its GPUs: {j['gpus']} vs {idle_gpus}")
    check(abs(j["mean_utilization"] - 0.02) < 1e-6, f"mean: {j}")
    check(unix(j["idle_since"]) == idler_started,
          f"idle since {j['idle_since']}, its run started {idler_started}")

    listed = json.loads(cli("held-idle", "--json"))
    check([x["id"] for x in listed["jobs"]] == [idler], f"squeeze held-idle --json: {listed}")
    text = cli("held-idle")
    check("idler" in text and serve_lib.ALICE in text and "busy" not in text, f"held-idle:\n{text}")
    shown = wait_until(lambda: (lambda t: t if "held but idle" in t else None)(
        cli("show", str(idler))), 10, "the held-idle event in squeeze show")
    check("held but idle: its GPUs averaged 2% since" in shown, f"squeeze show:\n{shown}")
    check("held but idle" not in cli("show", str(busy)), "the busy job has no held-idle event")
    # Once per spell: another idle report adds no second event.
    report(int(time.time()))
    time.sleep(1.5)
    events = [e for e in d.job(idler)["history"] if e["kind"] == "held-idle"]
    check(len(events) == 1, f"one held-idle event per spell: {events}")
    metrics = d.metrics()
    check("squeeze_held_idle_jobs 1" in metrics, "squeeze_held_idle_jobs 1 on /metrics:\n" +
          "\n".join(line for line in metrics.splitlines() if "held_idle" in line))

    check(d.stop() == 0, "the daemon stops cleanly")
    for store in (d.data_dir, os.path.join(d.data_dir, "squeeze.db")):
        r = h.run([squeeze, "idle-report", "--store", store, "--json"], timeout=60)
        check(r.returncode == 0, f"idle-report --store {store}: exit {r.returncode}\n"
                                 f"{r.stdout}\n{r.stderr}")
        out = json.loads(r.stdout)
        log(f"idle-report --store {store}: {json.dumps(out)[:300]}")
        # Every sample the daemon kept: the replayed one first, the three GPUs reported.
        check(unix(out["first_sample"]) == started - 3600, f"first sample: {out['first_sample']}")
        check(unix(out["last_sample"]) >= started + WINDOW_S, f"last sample: {out['last_sample']}")
        check([n["gpu_count"] for n in out["nodes"]] == [3], f"nodes: {out['nodes']}")
    r = h.run([squeeze, "idle-report", "--store", h.path("nowhere")], timeout=60)
    check(r.returncode != 0 and "no squeeze store at" in r.stderr,
          f"idle-report on no store: {r.returncode} {r.stderr}")


def case_history(squeeze, source, h):
    """GET /v1/history, /v1/cost and /v1/idle-windows from real runs and stored telemetry."""
    config = os.path.join(source, "tests", "data", "serve", "priced.yaml")
    d = h.start_daemon(squeeze, "data", ["--config", config, "--virtual-gpus", "4:A100"])
    # Four 1-GPU jobs of 3 s: two on the owned GPUs, two on spot (the owned ones are taken).
    jobs = [d.submit({"name": f"short-{i}", "command": ["sleep", "3"], "gpus": 1,
                      "estimate": "1m", "preemptible": True})
            for i in range(4)]
    for j in jobs:
        d.wait_state(j, ["done"], timeout=60)
    runs = {j: d.job(j) for j in jobs}
    held = sum(unix(r["ended_at"]) - unix(r["started_at"]) for r in runs.values())

    # Utilization of GPU 0 of each node, as telemetry a minute apart: 20% and 60%.
    now = int(time.time())
    for at, util in ((now - 120, 0.2), (now - 60, 0.6)):
        status, body = d.call("POST", "/v1/telemetry", {"time": at, "gpus": [
            {"node": "own-0", "gpu": 0, "utilization": util},
            {"node": "spot-0", "gpu": 0, "utilization": util}]})
        check(status == 200, f"telemetry: {status} {body}")

    status, hist = d.call("GET", "/v1/history?since=1h&step=1h")
    check(status == 200, f"history: {status} {hist}")
    points = hist["points"]
    check(hist["step_s"] == 3600 and 1 <= len(points) <= 2, f"history: {hist}")
    check(sum(p["jobs_started"] for p in points) == 4, f"4 runs started: {points}")
    check(all(p["gpus"] == 4 for p in points), f"4 GPUs: {points}")
    busy_seconds = sum(p["gpus_busy"] * (min(hist["to"], p["time"] + 3600) - p["time"])
                       for p in points)
    check(abs(busy_seconds - held) <= 4, f"GPU-seconds busy {busy_seconds} vs the runs' {held}")
    utils = [p["utilization"] for p in points if p["utilization"] is not None]
    # Both samples in one hour: their mean; either side of an hour's start: one each.
    check([round(u, 6) for u in utils] in ([40.0], [20.0, 60.0]), f"utilization: {points}")
    log(f"history: {len(points)} points, {busy_seconds:.0f} GPU-s busy, utilization {utils}")

    status, cost = d.call("GET", "/v1/cost?since=1h")
    check(status == 200, f"cost: {status} {cost}")
    pools = {p["pool"]: p for p in cost["pools"]}
    check(set(pools) == {"owned", "spot"}, f"pools: {cost}")
    spot_hours = pools["spot"]["gpu_hours"]
    owned_hours = pools["owned"]["gpu_hours"]
    check(abs((spot_hours + owned_hours) * 3600 - held) <= 4,
          f"GPU-hours {owned_hours} + {spot_hours} vs the runs' {held} s")
    check(spot_hours > 0 and owned_hours > 0, f"both pools ran jobs: {cost}")
    check(abs(pools["spot"]["cost"] - spot_hours * 1.2) < 1e-9, f"spot cost: {pools['spot']}")
    check(abs(pools["owned"]["cost"] - 3000 * 3600 / (30 * 86400)) < 1e-6,
          f"owned: an hour of 3000 a month: {pools['owned']}")
    check(abs(cost["total_cost"] - pools["spot"]["cost"] - pools["owned"]["cost"]) < 1e-9,
          f"total: {cost}")

    status, idle = d.call("GET", "/v1/idle-windows?since=1d")
    check(status == 200, f"idle-windows: {status} {idle}")
    keys = sorted((g["node"], g["index"], g["pool"]) for g in idle["gpus"])
    check(keys == [("own-0", 0, "owned"), ("spot-0", 0, "spot")], f"sampled GPUs: {keys}")
    check(all(len(g["idle_share"]) == 168 for g in idle["gpus"]), "168 hours of the week")

    # Broken queries name the field and the value.
    expect_error(d, "GET", "/v1/history?since=soon", 400, ["since", "soon"])
    expect_error(d, "GET", "/v1/history?step=5s", 400, ["step", "5s"])
    expect_error(d, "GET", "/v1/cost?sinse=1d", 400, ["sinse", "did you mean 'since'"])
    # The cost and the idle windows are not drawn over time: a long range is fine.
    for path in ("/v1/cost?since=400d", "/v1/idle-windows?since=400d"):
        status, body = d.call("GET", path)
        check(status == 200, f"{path}: {status} {body}")
    expect_error(d, "GET", "/v1/idle-windows?threshold=2", 400, ["threshold", "2"])
    # The windows' zone: minutes east of UTC, bounded; anything else named back.
    for east in ("900", "-721", "5h", "99999999999999999999", ""):
        expect_error(d, "GET", f"/v1/idle-windows?east={east}", 400, ["east", f"'{east}'"])
    status, body = d.call("GET", "/v1/idle-windows?since=1d&east=-180")
    check(status == 200 and body["windows_zone"] == "UTC-03:00", f"east=-180: {status} {body}")


# What nvidia-smi prints for the two queries squeeze makes, on a machine with two GPUs. There is
# no GPU here, so a script stands in for nvidia-smi (--nvidia-smi): it answers discovery's query
# with two L4s and the utilization query with the lines of VALUES, which the test rewrites.
NVIDIA_SMI = """#!/bin/sh
case "$1" in
  --query-gpu=index,uuid,name,memory.total)
    printf '0, GPU-6b1c, NVIDIA L4, 23034\\n1, GPU-0e2f, NVIDIA L4, 23034\\n' ;;
  --query-gpu=index,utilization.gpu,memory.used)
    cat "VALUES" ;;
  *) echo "unexpected query: $*" >&2; exit 2 ;;
esac
"""


def case_sampling(squeeze, source, h):
    """The daemon reads its GPUs' utilization itself (--gpu-sample-interval): samples reach the
    store and /v1/history, an idle job is reported held but idle, and stops being when busy."""
    values = h.path("values")

    def utilization(line0, line1):
        with open(values + ".tmp", "w") as f:
            f.write(f"{line0}\n{line1}\n")
        os.replace(values + ".tmp", values)

    utilization("0, 3, 700", "1, 2, 0")
    smi = h.path("nvidia-smi")
    with open(smi, "w") as f:
        f.write(NVIDIA_SMI.replace("VALUES", values))
    os.chmod(smi, 0o755)
    d = h.start_daemon(squeeze, "data", ["--nvidia-smi", smi, "--gpu-sample-interval", "1s",
                                         "--held-idle-window", "3s"])
    started_log = d.log_text()
    if "(nvml)" in started_log:
        log("NVML found a real driver here: the stand-in nvidia-smi is not used")
        sys.exit(77)
    check("2 GPUs (nvidia-smi)" in started_log and
          "reading the GPUs' utilization every 1 s (nvidia-smi)" in started_log,
          f"the daemon found the GPUs through nvidia-smi and samples them:\n{started_log}")
    job = d.submit({"name": "stalled", "command": FOREVER, "gpus": 1, "estimate": "1h"})
    d.wait_state(job, ["running"])
    held = wait_until(lambda: d.call("GET", "/v1/held-idle")[1]["jobs"] or None, 20,
                      "the job on an idle GPU to be reported held but idle")
    check([j["id"] for j in held] == [job], f"held idle: {held}")
    gpu = held[0]["gpus"][0]["gpu"]
    check(abs(held[0]["mean_utilization"] - (0.03 if gpu == 0 else 0.02)) < 1e-9, f"{held}")

    status, hist = d.call("GET", "/v1/history?since=1h&step=1h")
    check(status == 200, f"history: {status} {hist}")
    utils = [p["utilization"] for p in hist["points"] if p["utilization"] is not None]
    check(utils and all(abs(u - 2.5) < 1e-6 for u in utils), f"mean of 3% and 2%: {hist}")

    # The job's GPU gets busy: the next samples end its idle spell.
    busy = "90, 20000"
    utilization(f"0, {busy}" if gpu == 0 else "0, 3, 700", f"1, {busy}" if gpu == 1 else "1, 2, 0")
    wait_until(lambda: d.call("GET", "/v1/held-idle")[1]["jobs"] == [] or None, 20,
               "the job to stop being held idle once its GPU is busy")

    # Broken output is said once in the log, and sampling goes on when it is right again.
    utilization("0, 3", "1, 2, 0")
    wait_until(lambda: "GPU sampling failed" in d.log_text() or None, 20, "the failure in the log")
    check("nvidia-smi output line 1: expected 3 fields" in d.log_text(), d.log_text())
    utilization("0, 3, 700", "1, 2, 0")
    wait_until(lambda: "GPU sampling works again" in d.log_text() or None, 20, "the recovery")
    check(d.log_text().count("GPU sampling failed") == 1, "the failure said once")
    check(d.stop() == 0, "the daemon stops cleanly")
    r = h.run([squeeze, "idle-report", "--store", d.data_dir, "--json"], timeout=60)
    check(r.returncode == 0, f"idle-report --store: {r.returncode} {r.stderr}")
    out = json.loads(r.stdout)
    check([n["gpu_count"] for n in out["nodes"]] == [2], f"both GPUs sampled: {out['nodes']}")


def case_agent(squeeze, source, h):
    """`squeeze gpu-agent` sends another node's GPU readings as telemetry (nvidia-smi stood in
    for by a script, as in case_sampling); a refused report makes --once fail, naming why."""
    values = h.path("values")
    with open(values, "w") as f:
        f.write("0, 40, 1000\n1, [N/A], 2000\n")
    smi = h.path("nvidia-smi")
    with open(smi, "w") as f:
        f.write(NVIDIA_SMI.replace("VALUES", values))
    os.chmod(smi, 0o755)
    config = os.path.join(source, "tests", "data", "serve", "spot.yaml")
    d = h.start_daemon(squeeze, "data", ["--config", config, "--virtual-gpus", "4:A100"])
    env = dict(os.environ, SQUEEZE_URL=d.url, SQUEEZE_TOKEN=d.admin_token)
    r = h.run([squeeze, "gpu-agent", "--node", "spot-0", "--once", "--nvidia-smi", smi],
              timeout=60, env=env)
    check(r.returncode == 0, f"gpu-agent: {r.returncode}\n{r.stdout}\n{r.stderr}")
    check("sent 1 report of node spot-0" in r.stdout, r.stdout)
    gpus = [n for n in d.call("GET", "/v1/nodes")[1]["nodes"] if n["name"] == "spot-0"][0]
    detail = gpus["gpu_detail"]
    check(abs(detail[0].get("utilization", -1) - 0.4) < 1e-9, f"GPU 0 at 40%: {detail}")
    check("utilization" not in detail[1], f"GPU 1 gave [N/A]: {detail}")
    status, hist = d.call("GET", "/v1/history?since=1h&step=1h")
    check([p["utilization"] for p in hist["points"] if p["utilization"] is not None] == [40.0],
          f"the reading stored: {hist['points']}")
    # A node the daemon does not know: refused, said, exit 1.
    r = h.run([squeeze, "gpu-agent", "--node", "nowhere", "--once", "--nvidia-smi", smi],
              timeout=60, env=env)
    check(r.returncode == 1 and "gpus[0].node" in r.stderr and "nowhere" in r.stderr,
          f"unknown node: {r.returncode} {r.stderr}")
    # A user's token may not send telemetry.
    alice = h.add_token("data", serve_lib.ALICE, "ml")
    wait_until(lambda: d.call("GET", "/v1/nodes", token=alice)[0] == 200, 15, "alice's token")
    r = h.run([squeeze, "gpu-agent", "--node", "spot-0", "--once", "--nvidia-smi", smi],
              timeout=60, env=dict(env, SQUEEZE_TOKEN=alice))
    check(r.returncode == 1 and "only an admin" in r.stderr, f"user token: {r.stderr}")
    # No daemon there: the report is kept, and --once says so.
    check(d.stop() == 0, "the daemon stops")
    r = h.run([squeeze, "gpu-agent", "--node", "spot-0", "--once", "--nvidia-smi", smi],
              timeout=60, env=env)
    check(r.returncode == 1 and "cannot reach squeeze" in r.stderr and
          "1 reports kept to send later" in r.stderr, f"no daemon: {r.stderr}")


CASES = {"held_idle": case_held_idle, "history": case_history, "sampling": case_sampling,
         "agent": case_agent}

if __name__ == "__main__":
    sys.exit(serve_lib.main(CASES, sys.argv))
