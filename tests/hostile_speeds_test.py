#!/usr/bin/env python3
"""A job's GPU memory and its own speeds against a root daemon (label serve, hostile; issue
38): what a user claims about the cards chooses their job's cards and nothing else. Needs root
and the test accounts (the CTest fixture test_accounts: tests/test_accounts.sh); skipped (77)
without them.

    python3 tests/hostile_speeds_test.py CASE SQUEEZE SOURCE_DIR WORK_DIR

Cases:
  speeds_values  sqz-bob's broken gpu_speeds and gpu_memory (absurd, zero, NaN, too many, a
              control character, Slurm's 40G) are refused over HTTP, by `squeeze submit`'s
              flags and on a script's #SQUEEZE line, each naming the field and the value, and
              nothing is stored; more GPU memory than any card has is refused naming the
              largest cards; broken topology requests (no level for required, a long or
              control-character level, a requirement on a cluster without topology) likewise;
              the same values in an update of his waiting job are refused in the same words
              and change nothing; a job within the bounds runs, and `squeeze show` and the
              job's JSON give its GPU memory and speeds
  speeds_rank    two users' jobs on the one GPU, under the default sliced policy: sqz-bob's
              (first, 10 minutes by its estimate) claims to train 100 times as fast, which
              would make it look done after its first slice and keep it on the GPU; it yields
              at its slice end to sqz-alice's shorter job as an honest job does, and hers ends
              while his still waits
"""

import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_lib  # noqa: E402
from serve_lib import ALICE, BOB, check, log  # noqa: E402
from serve_users_test import squeeze_as  # noqa: E402

CLUSTER = """pools:
  - name: lab
    nodes: [{{name: gpu-1, gpus: {gpus}, gpu_model: V100}}]
gpu_models:
  V100: {{memory_mib: 16384, speed: 1}}
"""


def accounts():
    if not serve_lib.is_root():
        raise serve_lib.SkipTest("needs root (a root daemon runs each job as its owner)")
    serve_lib.need_test_accounts()


def public_dir():
    """A folder under /tmp the test accounts can read (a batch script, the training job)."""
    d = tempfile.mkdtemp(prefix="sqz-speeds-")
    os.chmod(d, 0o755)
    return d


def public_file(folder, name, text, mode=0o644):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)
    return path


def cards_daemon(squeeze, h, gpus, args=()):
    """A root daemon on one node of `gpus` V100 cards of 16 GiB, and bob's and alice's tokens
    (one team, so that fair share does not order them)."""
    os.makedirs(h.path("data"), exist_ok=True)
    config = h.path("cluster.yaml")
    with open(config, "w") as f:
        f.write(CLUSTER.format(gpus=gpus))
    bob = h.add_token("data", BOB, "ml")
    alice = h.add_token("data", ALICE, "ml")
    d = h.start_daemon(squeeze, "data", ["--config", config, "--virtual-gpus", f"{gpus}:V100"]
                       + list(args), allow_root_jobs=False)
    return d, bob, alice, os.path.join(d.data_dir, "squeeze.sock")


def refused_cli(r, words):
    out = r.stdout + r.stderr
    check(r.returncode != 0, f"expected a refusal, got exit 0: {out}")
    for w in words:
        check(w in out, f"'{w}' not in the refusal: {out}")


def case_speeds_values(squeeze, source, h):
    accounts()
    d, bob, _, sock = cards_daemon(squeeze, h, 1)
    many = {f"M{i}": 1 for i in range(65)}
    attempts = [
        ({"gpu_speeds": {"V100": 1e9}}, "is not a speed from 0.001 to 100"),
        ({"gpu_speeds": {"V100": 0}}, "gpu_speeds.V100: value '0' is not a speed"),
        ({"gpu_speeds": {"V100": -5}}, "gpu_speeds.V100: value '-5' is not a speed"),
        ({"gpu_speeds": {"V100": "nan"}}, "gpu_speeds.V100: value 'nan' is not a speed"),
        ({"gpu_speeds": {"V100": "Infinity"}}, "gpu_speeds.V100: value 'Infinity' is not a speed"),
        ({"gpu_speeds": "V100:1,V100:100"}, "gpu_speeds.V100: the model is given twice"),
        ({"gpu_speeds": many}, "gpu_speeds: 65 models; the limit is 64"),
        ({"gpu_speeds": {"V100\u001b[2J": 1}}, "control character"),
        ({"gpu_speeds": ["V100", 100]}, "gpu_speeds: expected a map of MODEL: SPEED"),
        ({"gpu_memory": "40G"}, "gpu_memory: '40G' is not a memory size"),
        ({"gpu_memory": "-1GiB"}, "gpu_memory: '-1GiB' is not a memory size"),
        ({"gpu_memory": "65TiB"}, "gpu_memory: '65TiB' is outside 1MiB..64TiB"),
        ({"gpu_memory": "32GiB"}, "no node has its GPU memory (at least 32768 MiB); models: V100; "
                                  "the largest cards have 16384 MiB (V100)"),
        # Where its nodes go (topology): a mode and a bounded, plain level.
        ({"topology": "required"}, "topology: topology 'required': required needs a level"),
        ({"topology": "everywhere"}, "'everywhere' is not preferred, required or unconstrained"),
        ({"topology": "preferred:" + "x" * 65}, "the level must be a name of 1 to 64 characters"),
        ({"topology": "preferred:r\u001b[2J"}, "control character"),
        ({"topology": "required:rack"}, "required:rack cannot be met: the cluster has no topology"),
    ]
    for extra, words in attempts:
        status, body = d.call("POST", "/v1/jobs", dict({"command": ["true"]}, **extra), token=bob)
        error = body.get("error", "") if isinstance(body, dict) else str(body)
        check(status == 400 and words in error, f"{extra}: expected 400 with '{words}', got "
                                                f"{status} {error[:300]}")
    files = public_dir()
    try:
        script = public_file(files, "big.sbatch", "#!/bin/bash\n#SBATCH --gres=gpu:1\n"
                             "#SQUEEZE --gpu-speeds=V100:1000\ntrue\n")
        for args, words in (
                (["submit", "--gpu-speeds", "V100:101", "--", "true"],
                 ["--gpu-speeds: value '101' is not a speed from 0.001 to 100"]),
                (["submit", "--gpu-memory", "16G", "--", "true"],
                 ["--gpu-memory: '16G' is not a memory size"]),
                (["submit", script],
                 [f"{script}:3: #SQUEEZE --gpu-speeds=V100:1000: value '1000' is not a speed"])):
            r = squeeze_as(h, BOB, squeeze, args, sock)
            refused_cli(r, words)
            log(f"bob: squeeze {' '.join(args)} -> {r.stderr.strip()}")
        check(d.jobs() == [], f"a refused job was stored: {d.jobs()}")
        # The same values sent to `squeeze update` of his waiting job: refused in the same
        # words, the job left as it was.
        status, held = d.call("POST", "/v1/jobs", {"command": ["true"], "hold": True}, token=bob)
        check(status == 201, f"bob's held job: {status} {held}")
        for extra, words in attempts:
            status, body = d.call("POST", f"/v1/jobs/{held['id']}/update", extra, token=bob)
            error = body.get("error", "") if isinstance(body, dict) else str(body)
            check(status == 400 and words in error, f"update {extra}: expected 400 with "
                                                    f"'{words}', got {status} {error[:300]}")
        j = d.job(held["id"])
        check(j["gpu_speeds"] is None and j["gpu_memory_mib"] is None and j["topology"] == "preferred",
              f"a refused update changed the job: {j}")
        d.call("POST", f"/v1/jobs/{held['id']}/cancel", token=bob)
        # Within the bounds: it runs, and its card needs are shown.
        ok = public_file(files, "ok.sbatch",
                         "#!/bin/bash\n#SBATCH --gres=gpu:V100:1 --mem-per-gpu=1G\n"
                         "#SQUEEZE --gpu-memory=8GiB --gpu-speeds=V100:1,K80:0.24\necho ran\n")
        r = squeeze_as(h, BOB, squeeze, ["submit", ok], sock)
        check(r.returncode == 0 and "submitted job" in r.stdout,
              f"bob's script: {r.stdout}{r.stderr}")
        job = int(r.stdout.split()[-1])
        j = d.wait_state(job, "done", timeout=60)
        check(j["gpu_memory_mib"] == 8192 and j["gpu_speeds"] == {"K80": 0.24, "V100": 1}
              and j["memory_mib"] == 1024, f"job {job}'s JSON: {j}")
        shown = squeeze_as(h, BOB, squeeze, ["show", str(job)], sock).stdout
        check("GpuMemory=8G GpuSpeeds=K80:0.24,V100:1" in shown, f"squeeze show {job}:\n{shown}")
    finally:
        shutil.rmtree(files, ignore_errors=True)


def case_speeds_rank(squeeze, source, h):
    accounts()
    d, bob, alice, _ = cards_daemon(squeeze, h, 1, [
        "--set", "slice=6s", "--set", "min_runtime=0s", "--set", "preempt_by_order=false",
        "--checkpoint-grace", "10s", "--stop-grace", "3s"])
    files = public_dir()
    try:
        train = public_file(files, "train-like.sh",
                            open(os.path.join(source, "examples", "jobs", "train-like.sh")).read(),
                            0o755)

        def trainer(token, name, steps, estimate, **extra):
            return d.submit(dict({
                "name": name, "command": ["bash", train], "gpus": 1, "estimate": estimate,
                "preemptible": True, "checkpointable": True,
                "env": {"STEPS": str(steps), "STEP_SECONDS": "0.1", "CHECKPOINT_EVERY": "1000"}},
                **extra), token=token)

        # Bob's job: 10 minutes by its estimate (15 s of steps in truth), and a claim that it
        # trains 100 times as fast on the cluster's V100 cards than on the card its estimate is
        # for. Counted at his claim, 6 s of run would be all of its 10 minutes: done.
        his = trainer(bob, "fast-claim", 150, "10m", gpu_speeds={"V100": 100})
        d.wait_state(his, "running", timeout=30)
        # Alice's: 5 minutes by its estimate (2 s of steps), submitted a moment later.
        hers = trainer(alice, "honest", 20, "5m")
        # At his slice end (6 s) his job has 9m54s left, hers 5m: it yields, hers runs and ends
        # while his waits again (9 s of steps left). Counted at his claim, his would run its
        # 15 s to the end first.
        began = time.monotonic()
        j = d.wait_state(hers, ["done", "failed"], timeout=60)
        check(j["state"] == "done", f"alice's job {hers}: {j['state']} {j['reason']}")
        his_now = d.job(his)
        # A slice's yield is no preemption: his job's second run is what says it yielded.
        check(his_now["state"] != "done" and his_now["attempts"] >= 2,
              f"bob's job {his} should have yielded to alice's at its slice end and still run: "
              f"{his_now['state']}, {his_now['attempts']} runs, {his_now['reason']}")
        log(f"alice's job ended {time.monotonic() - began:.1f} s after she submitted it; bob's "
            f"has run {his_now['attempts']} times and is {his_now['state']}")
        d.wait_state(his, "done", timeout=60)
    finally:
        shutil.rmtree(files, ignore_errors=True)


CASES = {"speeds_values": case_speeds_values, "speeds_rank": case_speeds_rank}

if __name__ == "__main__":
    sys.exit(serve_lib.main(CASES, sys.argv))
