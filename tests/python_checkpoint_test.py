"""End-to-end test of the Python checkpoint helper (python/squeeze_checkpoint, issue 8) under a
real `squeeze serve` on one virtual GPU, with real Python processes:

- examples/python/plain_loop.py, a deterministic loop (a fixed recurrence, 30 ms steps, each
  step updated in two halves), runs as a low-urgency preemptible, checkpointable job with a
  checkpoint_interval (so it gets SQUEEZE_CHECKPOINT_INTERVAL);
- three times, once it has made progress, a critical job that needs the GPU is submitted: the
  loop gets SIGUSR1 in the middle of a step, saves at the step boundary, exits 0, waits, and
  resumes (SQUEEZE_RESUME) from its checkpoint;
- the API says 3 preemptions and 4 attempts, the history has the stops, each run's log and
  exit file say what happened, and the final state is identical to that of the same script
  run straight through, outside squeeze.

`torch` and `torch_async` do the same with examples/python/pytorch_train.py, a real PyTorch
training (model, AdamW, cosine schedule, dropout, a DataLoader with two workers and the
helper's ResumableSampler) with synchronous or asynchronous checkpoints: the weights,
optimizer, scheduler and loss curve must equal an uninterrupted run's, bit for bit; each
prints the time its checkpoints took.

Usage: python3 python_checkpoint_test.py CASE SQUEEZE SOURCE_DIR WORK_DIR
"""

import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_lib  # noqa: E402
from serve_lib import check, log  # noqa: E402

STEPS = 900
STEP_SECONDS = 0.03
PREEMPTIONS = 3


def last_step(text):
    """The last `step N/M` progress line of a run's log, or 0."""
    found = re.findall(r"^step (\d+)/", text, re.M)
    return int(found[-1]) if found else 0


def preempt(d, job, log_of, step_gap):
    """Preempts `job` PREEMPTIONS times by critical one-GPU jobs, each once its run has made
    `step_gap` steps; checks every next run resumed after the step the one before resumed at."""
    resumed_at = 0
    for n in range(1, PREEMPTIONS + 1):
        d.wait_job(job, lambda j: j["state"] == "running" and j["attempts"] == n, 90,
                   f"to run its attempt {n}")
        target = resumed_at + step_gap  # some progress in this attempt before it is preempted
        serve_lib.wait_until(lambda: last_step(log_of(n)) >= target, 90,
                             f"attempt {n} of job {job} to reach step {target}")
        urgent = d.submit({"name": f"urgent-{n}", "urgency": "critical", "gpus": 1,
                           "estimate": "2s", "command": ["sleep", "1"]})
        log(f"attempt {n} at step {last_step(log_of(n))}: submitted urgent job {urgent}")
        d.wait_state(urgent, "done", timeout=90)
        j = d.wait_job(job, lambda j: j["attempts"] == n + 1, 90, f"to start attempt {n + 1}")
        m = re.search(r"resumed from \S+ at step (\d+)", log_of(n + 1)) or \
            serve_lib.wait_until(lambda: re.search(r"resumed from \S+ at step (\d+)",
                                                   log_of(n + 1)), 60,
                                 f"attempt {n + 1} to say it resumed")
        step = int(m.group(1))
        check(step > resumed_at, f"attempt {n + 1} resumed at step {step}, not after "
                                 f"{resumed_at}:\n{log_of(n + 1)[:600]}")
        log(f"attempt {n + 1} resumed at step {step}; job now: {j['state']}, {j['reason']}")
        resumed_at = step


def case_preemptions(squeeze, source, h):
    d = h.start_daemon(squeeze, "data", [
        "--virtual-gpus", "1", "--set", "min_runtime=0s",
        "--checkpoint-grace", "30s", "--stop-grace", "5s"])
    script = os.path.join(source, "examples", "python", "plain_loop.py")
    result = h.path("result.json")
    os.makedirs(h.path("job"))
    job = d.submit({
        "name": "py-loop", "urgency": "low", "gpus": 1, "preemptible": True,
        "checkpointable": True, "checkpoint_interval": "2s", "estimate": "30s",
        "workdir": h.path("job"),
        "env": {"PYTHONPATH": os.path.join(source, "python")},
        "command": [sys.executable, script, "--steps", str(STEPS),
                    "--step-seconds", str(STEP_SECONDS), "--print-every", "10",
                    "--result", result]})

    def log_of(attempt):
        try:
            with open(os.path.join(d.data_dir, "logs", f"{job}.{attempt}.log")) as f:
                return f.read()
        except OSError:
            return ""

    preempt(d, job, log_of, step_gap=60)

    j = d.wait_state(job, ["done", "failed"], timeout=120)
    log("job: " + json.dumps({k: j[k] for k in ("state", "exit_code", "attempts", "failures",
                                                "preemptions", "last_checkpoint")}))
    check(j["state"] == "done" and j["exit_code"] == 0, f"job {job} ended {j['state']} "
          f"(exit {j['exit_code']}): {j['reason']}\n{log_of(j['attempts'])[-1500:]}")
    check(j["preemptions"] == PREEMPTIONS and j["attempts"] == PREEMPTIONS + 1
          and j["failures"] == 0, f"job {job}: expected {PREEMPTIONS} preemptions, "
          f"{PREEMPTIONS + 1} attempts and no failure: {j}")
    check(j["last_checkpoint"] is not None, f"job {job}: squeeze saw no checkpoint: {j}")
    history = j["history"]
    log("history: " + "; ".join(f"{e['kind']}: {e['text']}" for e in history))
    stops = [e for e in history if e["kind"] == "end" and "pending: preempted for" in e["text"]]
    check(len(stops) == PREEMPTIONS and all("resumes from its checkpoint" in e["text"]
                                            for e in stops),
          f"job {job}: expected {PREEMPTIONS} preempted runs in its history: {history}")
    reported = [e for e in history if e["kind"] == "checkpoint"]
    check(len(reported) > PREEMPTIONS, f"job {job}: squeeze saw only {len(reported)} "
                                       f"checkpoints: {history}")

    mid_step = 0
    for n in range(1, PREEMPTIONS + 2):
        text = log_of(n)
        log(f"attempt {n} log (squeeze_checkpoint lines):\n  " + "\n  ".join(
            line for line in text.splitlines() if line.startswith(("squeeze_checkpoint",
                                                                   "attempt", "done"))))
        check("periodic saves every 2s" in text, f"attempt {n} did not get "
              f"SQUEEZE_CHECKPOINT_INTERVAL=2:\n{text[:600]}")
        with open(os.path.join(d.data_dir, "runs", f"{job}.{n}.exit")) as f:
            exit_line = f.read().splitlines()[0]
        # A periodic save that ends just after squeeze's SIGUSR1 counts as the checkpoint it
        # asked for (LiveQueue::OnCheckpoint); its SIGTERM then reaches the job before its
        # next boundary, where it saves again and leaves with 143 (as the torch case allows).
        sigterm_leave = "leaving after SIGTERM (exit 143)" in text
        expected = "exit 143" if n <= PREEMPTIONS and sigterm_leave else "exit 0"
        check(exit_line == expected, f"attempt {n} ended `{exit_line}`, expected `{expected}`")
        if n > 1:
            check(f"attempt {n}: resuming at step" in text, f"attempt {n} did not run with "
                  f"SQUEEZE_RESUME:\n{text[:600]}")
        if n <= PREEMPTIONS:
            m = re.search(r"(?:SIGUSR1|SIGTERM) (during step \d+|between steps): saving at the "
                          r"step boundary \(step (\d+)\)", text)
            check(m, f"attempt {n} did not save when asked:\n{text[-1500:]}")
            mid_step += m.group(1).startswith("during")
            check(f"saved {os.path.join(d.data_dir, 'checkpoints', str(job))}" in text
                  and ("leaving after the checkpoint squeeze asked for (exit 0)" in text
                       or sigterm_leave),
                  f"attempt {n} did not save and leave:\n{text[-1500:]}")
            check(re.search(rf"resumed from \S+ at step {m.group(2)}\b", log_of(n + 1)),
                  f"attempt {n + 1} did not resume at the step attempt {n} saved "
                  f"({m.group(2)}):\n{log_of(n + 1)[:600]}")
    check(mid_step >= 1, "no checkpoint request came in the middle of a step")
    log(f"{mid_step} of {PREEMPTIONS} requests came in the middle of a step")

    ckpt_dir = os.path.join(d.data_dir, "checkpoints", str(job))
    with open(os.path.join(ckpt_dir, "COMPLETE")) as f:
        marker = json.loads(f.read())
    files = sorted(os.listdir(ckpt_dir))
    log(f"checkpoint folder: {files}; marker {marker}")
    check(files == ["COMPLETE", marker["path"]], f"{ckpt_dir} holds {files}")
    check(marker["seq"] > PREEMPTIONS, f"expected periodic saves besides the {PREEMPTIONS} "
                                       f"requested ones: {marker}")

    straight = h.path("straight.json")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SQUEEZE_")}
    r = h.run([sys.executable, script, "--steps", str(STEPS), "--step-seconds", "0",
               "--result", straight], timeout=120, env=env)
    check(r.returncode == 0, f"the straight run failed: {r.stdout}\n{r.stderr}")
    with open(result) as f:
        got = json.load(f)
    with open(straight) as f:
        want = json.load(f)
    log(f"preempted {PREEMPTIONS} times: {got}")
    log(f"uninterrupted:       {want}")
    check(got == want, f"the preempted run's result {got} differs from the uninterrupted "
                       f"run's {want}")


# 6 epochs of 128 steps: a resumed run may not be preempted before its restart overhead has
# passed (7 s for one GPU, core/job.cc), so at its fastest (25 steps a second, --step-seconds
# 0.04) the job must outlast three preemptions: with 2 epochs an idle machine finished it
# during its third run.
TORCH_ARGS = ["--epochs", "6", "--samples", "8192", "--print-every", "10"]


def torch_case(asynchronous):
    """examples/python/pytorch_train.py, real PyTorch (model, AdamW, scheduler, dropout, a
    DataLoader with two workers), preempted three times under squeeze serve, with synchronous
    or asynchronous checkpoints: the weights, optimizer, scheduler and the loss of every step
    equal those of an uninterrupted run, bit for bit."""

    def case(squeeze, source, h):
        if subprocess.run([sys.executable, "-c", "import torch"],
                          capture_output=True).returncode != 0:
            raise serve_lib.SkipTest("PyTorch is not installed (scripts/setup.sh installs it)")
        d = h.start_daemon(squeeze, "data", [
            "--virtual-gpus", "1", "--set", "min_runtime=0s",
            "--checkpoint-grace", "60s", "--stop-grace", "5s"])
        script = os.path.join(source, "examples", "python", "pytorch_train.py")
        result = h.path("result.json")
        mode = ["--asynchronous"] if asynchronous else []
        job = d.submit({
            "name": "torch-train", "urgency": "low", "gpus": 1, "preemptible": True,
            "checkpointable": True, "checkpoint_interval": "2s", "estimate": "1m",
            "env": {"PYTHONPATH": os.path.join(source, "python")},
            "command": [sys.executable, script, *TORCH_ARGS, *mode, "--step-seconds", "0.04",
                        "--result", result]})

        def log_of(attempt):
            return serve_lib.log_of(d, job, attempt)

        # The uninterrupted run, outside squeeze, meanwhile.
        straight = h.path("straight.json")
        env = {k: v for k, v in os.environ.items() if not k.startswith("SQUEEZE_")}
        with open(h.path("straight.log"), "w") as out:
            straight_run = subprocess.Popen([sys.executable, script, *TORCH_ARGS, "--result",
                                             straight], env=env, stdout=out,
                                            stderr=subprocess.STDOUT)
        h.other_procs.append(straight_run)
        preempt(d, job, log_of, step_gap=25)
        j = d.wait_state(job, ["done", "failed"], timeout=180)
        check(j["state"] == "done" and j["preemptions"] == PREEMPTIONS
              and j["attempts"] == PREEMPTIONS + 1 and j["failures"] == 0,
              f"job {job}: expected done after {PREEMPTIONS} preemptions: {j}\n"
              f"{log_of(j['attempts'])[-1500:]}")
        saves = []
        for n in range(1, PREEMPTIONS + 2):
            text = log_of(n)
            saves += [(float(t), p) for t, p in re.findall(
                r"^squeeze_checkpoint: saved \S+ at step \d+ in ([0-9.]+)s(.*)$", text, re.M)]
            if n <= PREEMPTIONS:
                # SIGTERM when squeeze took a periodic save that came first as the one it
                # asked for: the job saves again at its next boundary and leaves with 143.
                m = re.search(r"(?:SIGUSR1|SIGTERM)[^:\n]*: saving at the step boundary "
                              r"\(step (\d+)\)", text)
                check(m and ("leaving after the checkpoint squeeze asked for (exit 0)" in text
                             or "leaving after SIGTERM (exit 143)" in text),
                      f"attempt {n} did not save and leave when asked:\n{text[-1500:]}")
                check(re.search(rf"resumed from \S+ at step {m.group(1)} ", log_of(n + 1)),
                      f"attempt {n + 1} did not resume at step {m.group(1)}:\n"
                      f"{log_of(n + 1)[:800]}")
        background = [p for _, p in saves if "in the background" in p]
        check(len(background) == (len(saves) if asynchronous else 0) and saves,
              f"expected {'only' if asynchronous else 'no'} background saves: {saves}")
        took = sorted(t for t, _ in saves)
        stalls = sorted(float(x) for x in re.findall(r"training paused ([0-9.]+)s",
                                                      " ".join(background)))
        log(f"{len(saves)} checkpoints took {took[0]:.3f}..{took[-1]:.3f}s (median "
            f"{took[len(took) // 2]:.3f}s)" + (f"; training paused {stalls[0]:.3f}.."
                                               f"{stalls[-1]:.3f}s (median "
                                               f"{stalls[len(stalls) // 2]:.3f}s)"
                                               if stalls else ""))
        with open(os.path.join(d.data_dir, "checkpoints", str(job), "COMPLETE")) as f:
            marker = json.loads(f.read())
        check("save_s" in marker and ("stall_s" in marker) == asynchronous,
              f"the marker does not say how long the save took: {marker}")

        if straight_run.wait(300) != 0:
            with open(h.path("straight.log")) as f:
                check(False, f"the straight run failed: {f.read()[-1500:]}")
        with open(result) as f:
            got = json.load(f)
        with open(straight) as f:
            want = json.load(f)
        log(f"preempted {PREEMPTIONS} times: " + json.dumps(
            {k: v for k, v in got.items() if k != "loss_curve"}))
        log(f"uninterrupted:       " + json.dumps(
            {k: v for k, v in want.items() if k != "loss_curve"}))
        check(len(got["loss_curve"]) == got["steps"],
              f"the loss curve has {len(got['loss_curve'])} points for {got['steps']} steps")
        check(got == want, "the preempted run differs from the uninterrupted one in " +
              ", ".join(k for k in want if got.get(k) != want[k]))

    return case


CASES = {"preemptions": case_preemptions, "torch": torch_case(False),
         "torch_async": torch_case(True)}

if __name__ == "__main__":
    sys.exit(serve_lib.main(CASES, sys.argv))
