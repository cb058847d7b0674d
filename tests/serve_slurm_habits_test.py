"""A Slurm user's habits against `squeeze serve` (issue 23), through the `squeeze` command as a
user types it, with SQUEEZE_DATA set and no URL or token (the client finds the daemon):

- script: `squeeze submit train.sbatch` reads the #SBATCH lines and runs the script from the
  copy taken at submission; an unsupported directive is refused with its line (a warning with
  --ignore-unsupported); --wrap; `logs -n`;
- limit: a job with -t stops at its limit, after a checkpoint, and ends `timeout`;
- control: hold/release (REASON JobHeld), requeue of a running job (it resumes from its
  checkpoint), update of a waiting job, cancel of several ids, REASON codes (Resources,
  Priority), `queue --me`, `history`, `token list/revoke`, `logs -f` to the end of a job,
  and the nearest command or flag for a typo.

Usage: python3 serve_slurm_habits_test.py CASE SQUEEZE SOURCE_DIR WORK_DIR
       (CASE: script, limit, control)
"""

import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_lib  # noqa: E402
from serve_lib import check, log  # noqa: E402


def start(squeeze, h, gpus="2", extra=()):
    d = h.start_daemon(squeeze, "data", ["--virtual-gpus", gpus, "--set", "min_runtime=0s",
                                         "--checkpoint-grace", "4s", *extra])
    # What a user's shell has: the data directory only (no URL, no token: found there).
    env = {k: v for k, v in os.environ.items() if not k.startswith("SQUEEZE_")}
    env["SQUEEZE_DATA"] = d.data_dir

    def sq(*args, ok=True, timeout=60):
        r = h.run([squeeze, *args], timeout=timeout, env=env, cwd=h.work_dir)
        if ok:
            check(r.returncode == 0, f"squeeze {' '.join(args)}: exit {r.returncode}: {r.stderr}")
        return r

    return d, sq


def submitted_id(out):
    m = re.search(r"submitted job (\d+)", out)
    check(m is not None, f"no job id in {out!r}")
    return int(m.group(1))


def case_script(squeeze, source, h):
    d, sq = start(squeeze, h)
    script = h.path("hello.sbatch")
    with open(script, "w") as f:
        f.write("#!/bin/bash\n#SBATCH -J hello\n#SBATCH --gres=gpu:1\n#SBATCH -t 2:00\n"
                "#SBATCH --export=NONE,GREETING=hi\n"
                "echo \"$GREETING from $0 on $CUDA_VISIBLE_DEVICES\"\necho line2\necho line3\n")
    job = submitted_id(sq("submit", script).stdout)
    # Changing the file after the submission changes nothing: the job runs the copy.
    with open(script, "a") as f:
        f.write("echo edited\n")
    j = d.wait_state(job, ["done", "failed"], timeout=60)
    check(j["state"] == "done" and j["name"] == "hello" and j["time_limit_s"] == 120,
          f"the script's job: {j}")
    text = sq("logs", str(job)).stdout
    check(f"hi from {script} on 0" in text and "edited" not in text, f"its log: {text!r}")
    last = sq("logs", str(job), "-n", "2").stdout.splitlines()  # line3 and squeeze's end line
    check(len(last) == 2 and last[0] == "line3" and "ended: exit 0" in last[1], f"-n 2: {last}")
    # An unsupported directive: refused with its line, or left out with a warning.
    with open(h.path("mail.sbatch"), "w") as f:
        f.write("#!/bin/bash\n#SBATCH -J m\n#SBATCH --mail-type=END\ntrue\n")
    r = sq("submit", h.path("mail.sbatch"), ok=False)
    check(r.returncode != 0 and "mail.sbatch:3: #SBATCH --mail-type=END: not supported" in r.stderr,
          f"an unsupported directive: {r.stderr}")
    r = sq("submit", "--ignore-unsupported", h.path("mail.sbatch"))
    check("warning: " in r.stderr and "--mail-type=END" in r.stderr, f"the warning: {r.stderr}")
    wrapped = submitted_id(sq("submit", "--wrap", "echo wrapped $((6*7))", "-J", "w").stdout)
    j = d.wait_state(wrapped, ["done", "failed"], timeout=60)
    check(j["state"] == "done" and j["name"] == "w", f"--wrap: {j}")
    check("wrapped 42" in sq("logs", str(wrapped)).stdout, "--wrap's log")


def case_limit(squeeze, source, h):
    d, sq = start(squeeze, h)
    train = os.path.join(source, "examples", "jobs", "train-like.sh")
    # 300 steps of 0.1 s: 30 s of work in a limit of 10 s (the checkpoint is asked 4 s before).
    r = sq("submit", "-J", "limited", "--checkpointable", "-t", "0:10", "--env", "STEPS=300",
           "--env", "STEP_SECONDS=0.1", "--env", "CHECKPOINT_EVERY=1000", "--", "bash", train)
    job = submitted_id(r.stdout)
    j = d.wait_state(job, ["done", "failed", "timeout", "cancelled"], timeout=60)
    check(j["state"] == "timeout", f"the limited job: {j}")
    check(j["reason"] == "time limit 10s reached; its last checkpoint is kept" and
          j["last_checkpoint"] is not None, f"its reason and checkpoint: {j}")
    check(j["run_s"] <= 12, f"it ran past its limit: {j['run_s']} s")
    check("checkpoint at step" in sq("logs", str(job)).stdout, "its log shows the checkpoint")
    shown = sq("history").stdout
    check(re.search(rf"^{job}\s+limited\s+\S+\s+timeout\s", shown, re.M), f"history: {shown}")


def case_control(squeeze, source, h):
    d, sq = start(squeeze, h, gpus="1")
    # A typo names the nearest command and flag.
    r = sq("quue", ok=False)
    check(r.returncode != 0 and "did you mean 'queue'" in r.stderr, f"quue: {r.stderr}")
    r = sq("queue", "--mee", ok=False)
    check(r.returncode != 0 and "did you mean --me" in r.stderr, f"--mee: {r.stderr}")
    train = os.path.join(source, "examples", "jobs", "train-like.sh")
    runner = submitted_id(sq("submit", "-J", "runner", "--checkpointable", "--urgency", "low",
                             "--env", "STEPS=100",
                             "--env", "STEP_SECONDS=0.1", "--env", "CHECKPOINT_EVERY=1000",
                             "--", "bash", train).stdout)
    d.wait_state(runner, "running", timeout=30)
    first = submitted_id(sq("submit", "-J", "first", "--", "true").stdout)
    second = submitted_id(sq("submit", "-J", "second", "--", "true").stdout)
    held = submitted_id(sq("submit", "-J", "held", "-H", "--", "true").stdout)

    def reasons():
        rows = {}
        for line in sq("queue").stdout.splitlines()[1:]:
            cells = line.split()
            rows[int(cells[0])] = cells[6] if len(cells) > 6 else ""
        return rows

    got = serve_lib.wait_until(
        lambda: (lambda r: r if r.get(first) == "Resources" else None)(reasons()), 15,
        "the REASON codes")
    check(got.get(second) == "Priority" and got.get(held) == "JobHeld", f"REASON: {got}")
    # update: the second job asks for more GPUs than there are: refused; then for high urgency.
    r = sq("update", str(second), "--gpus", "4", ok=False)
    check(r.returncode != 0 and "GPU" in r.stderr, f"update to 4 GPUs: {r.stderr}")
    sq("update", str(second), "--urgency", "high", "-t", "5:00")
    j = d.job(second)
    check(j["urgency"] == "high" and j["time_limit_s"] == 300, f"updated: {j}")
    # requeue: the runner checkpoints and waits again (behind the others: it is low), and
    # resumes from its checkpoint later.
    time.sleep(2)
    sq("requeue", str(runner))
    d.wait_job(runner, lambda j: j["state"] == "pending" and j["last_checkpoint"], 30,
               "the requeued runner to wait again")
    # The high job goes first, then the first one; the held one stays held.
    for job in (second, first):
        check(d.wait_state(job, ["done", "failed"], timeout=60)["state"] == "done", f"job {job}")
    check(d.job(held)["state"] == "pending", "the held job ran")
    sq("release", str(held))
    # The runner (low) and the released job run one after the other on the one GPU; the
    # runner's second run resumed from its checkpoint.
    check(d.wait_state(held, ["done", "failed"], timeout=60)["state"] == "done", "released")
    check(d.wait_state(runner, ["done", "failed"], timeout=60)["state"] == "done", "runner")
    check(re.search(r"resuming from step [1-9]", serve_lib.log_of(d, runner, 2)),
          "the requeued runner did not resume from its checkpoint")
    # cancel of several ids (one of them unknown): the others go, the exit says one failed.
    late = submitted_id(sq("submit", "-J", "late", "--", "sleep", "100").stdout)
    queued = submitted_id(sq("submit", "-J", "queued", "--", "sleep", "100").stdout)
    d.wait_state(late, "running", timeout=30)
    r = sq("cancel", str(late), str(queued), "999", ok=False)
    check(r.returncode != 0 and "no job 999" in r.stderr, f"cancel: {r.stderr}")
    for job in (late, queued):
        check(d.wait_state(job, ["cancelled"], timeout=30)["state"] == "cancelled", f"job {job}")
    # logs -f follows a job to its end.
    follow = submitted_id(sq("submit", "--wrap", "for i in 1 2 3; do echo tick $i; sleep 1; done")
                          .stdout)
    out = sq("logs", "-f", str(follow), timeout=60).stdout
    check(out.count("tick") == 3 and out.index("tick 1") < out.index("tick 3"), f"-f: {out!r}")
    # queue --me, history, tokens.
    mine = sq("queue", "--me", "--all").stdout
    check(re.search(rf"^{follow}\s", mine, re.M), f"queue --me: {mine}")
    check(re.search(rf"^{first}\s+first\s.*\sdone\s", sq("history").stdout, re.M), "history")
    listed = sq("token", "list").stdout
    check("admin" in listed and d.admin_token not in listed, f"token list: {listed}")


CASES = {"script": case_script, "limit": case_limit, "control": case_control}

if __name__ == "__main__":
    sys.exit(serve_lib.main(CASES, sys.argv))
