#!/usr/bin/env python3
"""End-to-end test of checkpoints in object storage (job field checkpoint_store) under
`squeeze serve`: a real S3-protocol server (s3rver, python/tests/s3_server.py), the real
daemon and a real training process (examples/python/plain_loop.py with 96 MB of weights in
each checkpoint) on a spot node that is taken back in the middle of an upload.

    python3 tests/serve_checkpoint_store_test.py CASE SQUEEZE_BINARY SOURCE_DIR WORK_DIR

CASE: reclaim_mid_upload. Registered in CTest as e2e.serve_checkpoint_store.CASE.
"""

import json
import os
import re
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python", "tests"))
import serve_lib  # noqa: E402
from serve_lib import check, log, wait_until  # noqa: E402

BUCKET = "checkpoints"
BALLAST_MB = 96
UPLOAD_GBPS = 0.25  # 96 MiB take about 3.2 s: a reclaim lands in the middle of one


def store_keys(client, prefix):
    keys = {}
    for page in client.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix):
        for o in page.get("Contents", []):
            keys[o["Key"]] = o["Size"]
    return keys


def seqs(keys, prefix):
    """(sequence numbers with a manifest, sequence numbers with data objects)."""
    manifests = {int(m.group(1)) for k in keys
                 if (m := re.match(re.escape(prefix) + r"/manifests/0*(\d+)\.json$", k))}
    data = {int(m.group(1)) for k in keys
            if (m := re.match(re.escape(prefix) + r"/data/0*(\d+)/", k))}
    return manifests, data


def node_of(d, job):
    status, body = d.call("GET", "/v1/nodes")
    check(status == 200, f"GET /v1/nodes: {status} {body}")
    return [n["name"] for n in body["nodes"] if job in n["jobs"]]


def case_reclaim_mid_upload(squeeze, source, h):
    try:
        from s3_server import S3Server, missing, write_credentials
    except ImportError as e:
        raise serve_lib.TestFailure(f"python/tests/s3_server.py: {e}")
    if missing():
        raise serve_lib.TestFailure(missing())
    server = S3Server(directory=h.path("s3"))
    server.start()
    h.other_procs.append(server.proc)  # stopped with the case
    server.create_bucket(BUCKET)
    client = server.client()
    credentials = h.path("aws-credentials")
    write_credentials(credentials)

    config = os.path.join(source, "tests", "data", "serve", "spot-two.yaml")
    d = h.start_daemon(squeeze, "data", ["--config", config, "--virtual-gpus", "2:A100",
                                         "--checkpoint-grace", "30s", "--stop-grace", "3s"])
    # spot-1 is away until the test brings it back: the job starts on spot-0, and after
    # spot-0 is taken back it can start again only once the test has emptied its folder.
    status, reply = d.call("POST", "/v1/nodes/spot-1/reclaim", body={"warning_s": 0})
    check(status == 200, f"reclaim spot-1: {status} {reply}")
    script = os.path.join(source, "examples", "python", "plain_loop.py")
    result = h.path("result.json")
    steps = 600
    job = d.submit({
        "name": "stored", "gpus": 1, "preemptible": True, "checkpointable": True,
        "fault_tolerant": True, "estimate": "1m", "checkpoint_interval": "4s",
        "env": {"PYTHONPATH": os.path.join(source, "python")},
        "checkpoint_store": {"url": f"s3://{BUCKET}/e2e", "endpoint": server.endpoint,
                             "credentials": credentials, "keep": 2,
                             "checkpoint_size": f"{BALLAST_MB}MiB",
                             "upload_gbps": UPLOAD_GBPS, "max_upload_gbps": UPLOAD_GBPS},
        "command": [sys.executable, script, "--steps", str(steps), "--step-seconds", "0.05",
                    "--ballast-mb", str(BALLAST_MB), "--print-every", "50",
                    "--result", result]})
    shown = d.job(job)
    check(shown["checkpoint_store"]["url"] == f"s3://{BUCKET}/e2e"
          and "secret" not in json.dumps(shown).lower(),
          f"job {job} should show its store and no secret: {shown['checkpoint_store']}")
    upload_s = shown["checkpoint_store"]["upload_s"]
    check(upload_s == 4, f"96 MiB at 0.25 Gbit/s is 4 s of upload (rounded up): {shown}")
    d.wait_state(job, "running", timeout=30)
    wait_until(lambda: node_of(d, job) == ["spot-0"], 10, f"job {job} on spot-0")
    prefix = f"e2e/{job}"

    # A first complete checkpoint in the store, then the node taken back while the next one
    # is being uploaded (its data objects there, its manifest not yet).
    wait_until(lambda: seqs(store_keys(client, prefix), prefix)[0], 60,
               "a complete checkpoint (its manifest) in the store")
    complete_before = max(seqs(store_keys(client, prefix), prefix)[0])

    def uploading():  # the state and two of the eight weight files of the next one are there
        keys = store_keys(client, prefix)
        manifests, data = seqs(keys, prefix)
        later = [s for s in data if s > max(manifests)]
        return later and max(manifests) == complete_before and len(
            [k for k in keys if re.search(rf"/data/0*{later[0]}/", k)]) >= 3
    wait_until(uploading, 60, "the next checkpoint's upload to begin")
    t0 = time.monotonic()
    status, reply = d.call("POST", "/v1/nodes/spot-0/reclaim", body={"warning_s": 0})
    check(status == 200 and reply["jobs"] == [job], f"reclaim: {status} {reply}")
    d.wait_job(job, lambda j: j["state"] == "pending" and j["attempts"] == 1, 20,
               "to be taken off spot-0")
    log(f"job {job} was off spot-0 {time.monotonic() - t0:.1f}s after the reclaim")
    keys = store_keys(client, prefix)
    manifests, data = seqs(keys, prefix)
    partial = sorted(s for s in data if s not in manifests)
    check(partial and max(manifests) == complete_before,
          f"the upload should have been cut: manifests {sorted(manifests)}, data {sorted(data)}")
    cut = {k: v for k, v in keys.items() if re.search(rf"/data/0*{partial[-1]}/", k)}
    log(f"store after the reclaim: complete checkpoints {sorted(manifests)}, partial upload "
        f"{partial}: {len(cut)} of 9 files, {sum(cut.values())} bytes of about "
        f"{BALLAST_MB * 2**20} stored")

    # spot-0's disk goes with it: a one-machine test empties the job's checkpoint folder
    # instead, so the next run can only resume from the store.
    folder = os.path.join(d.data_dir, "checkpoints", str(job))
    shutil.rmtree(folder, ignore_errors=True)
    status, reply = d.call("POST", "/v1/nodes/spot-1/return")
    check(status == 200, f"return spot-1: {status} {reply}")
    wait_until(lambda: node_of(d, job) == ["spot-1"], 30, f"job {job} to start again on spot-1")
    done = d.wait_state(job, ["done", "failed"], timeout=240)
    check(done["state"] == "done", f"job {job}: {done}\n{serve_lib.log_of(d, job, done['attempts'])[-1500:]}")
    runs = done["attempts"]
    second = serve_lib.log_of(d, job, 2)
    check(f"downloaded s3://{BUCKET}/{prefix}/manifests/{complete_before:012d}.json" in second,
          f"attempt 2 should resume from the store's complete checkpoint {complete_before}, not "
          f"the partial {partial}:\n{second[:1500]}")
    log(f"attempt 2 (of {runs}) resumed from checkpoint {complete_before}: "
        f"{second.splitlines()[0] if second else ''}")
    for line in second.splitlines():
        if "squeeze_checkpoint: downloaded" in line:
            log(f"  {line.strip()}")
            break

    # The same result as a run that never stopped.
    straight = h.path("straight.json")
    r = h.run([sys.executable, script, "--steps", str(steps), "--step-seconds", "0",
               "--result", straight],
              timeout=120, env={k: v for k, v in os.environ.items() if not k.startswith("SQUEEZE_")})
    check(r.returncode == 0, f"the straight run: {r.stdout}\n{r.stderr}")
    with open(result) as f, open(straight) as g:
        got, want = json.load(f), json.load(g)
    check(got == want, f"the resumed run's result {got} differs from the uninterrupted {want}")
    # The partial upload was pruned by a later save; at most `keep` complete ones are left.
    manifests, data = seqs(store_keys(client, prefix), prefix)
    check(not [s for s in data if s not in manifests] and 1 <= len(manifests) <= 2,
          f"after the run: manifests {sorted(manifests)}, data {sorted(data)}")


CASES = {"reclaim_mid_upload": case_reclaim_mid_upload}

if __name__ == "__main__":
    sys.exit(serve_lib.main(CASES, sys.argv))
