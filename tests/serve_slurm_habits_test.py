"""A Slurm user's habits against `squeeze serve` (issue 23), through the `squeeze` command as a
user types it, with SQUEEZE_DATA set and no URL or token (the client finds the daemon):

- script: `squeeze submit train.sbatch` reads the #SBATCH lines and runs the script from the
  copy taken at submission; an unsupported directive is refused with its line (a warning with
  --ignore-unsupported); --wrap; `logs -n`;
- limit: a job with -t stops at its limit, after a checkpoint, and ends `timeout`;
- output: `#SBATCH -o out_%j.txt` and `-e err_%x.txt`: the script's stdout and stderr go to
  those files in the submit directory, a second run (requeue) appends to them, `squeeze logs`
  shows the output file (and `-n`), the run's own log says where it went; a pattern squeeze
  cannot fill in is refused;
- control: hold/release (REASON JobHeld), requeue of a running job (it resumes from its
  checkpoint), update of a waiting job, cancel of several ids, REASON codes (Resources,
  Priority), `queue --me`, `history`, `token list/revoke`, `logs -f` to the end of a job,
  and the nearest command or flag for a typo.

- pipeline: preprocess -> an array of train tasks (--array 0-3%2) -> eval with afterok, as
  sbatch scripts: they run in that order, the array never above its limit, `queue` shows the
  waiting tasks in one row with REASON Dependency; `squeeze simulate` of the same pipeline as a
  job-profile trace starts them in the same order.

Usage: python3 serve_slurm_habits_test.py CASE SQUEEZE SOURCE_DIR WORK_DIR
       (CASE: script, output, limit, control, pipeline)
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


def case_output(squeeze, source, h):
    d, sq = start(squeeze, h, gpus="1")
    script = h.path("writer.sbatch")
    with open(script, "w") as f:
        f.write("#!/bin/bash\n#SBATCH -J writer\n#SBATCH -o out_%j.txt\n#SBATCH -e err_%x.txt\n"
                "echo \"run $SQUEEZE_ATTEMPT\"\necho \"oops $SQUEEZE_ATTEMPT\" >&2\n"
                "[ \"$SQUEEZE_ATTEMPT\" -ge 2 ] || sleep 60\n")
    job = submitted_id(sq("submit", script).stdout)
    out = os.path.join(h.work_dir, f"out_{job}.txt")
    err = os.path.join(h.work_dir, "err_writer.txt")

    def read(path):
        try:
            with open(path) as f:
                return f.read()
        except FileNotFoundError:
            return ""

    serve_lib.wait_until(lambda: read(out) == "run 1\n", 30, "the first run's output")
    check(sq("logs", str(job)).stdout == "run 1\n", "logs of the first run")
    # A second run appends: nothing of the first is lost.
    sq("requeue", str(job))
    j = d.wait_job(job, lambda j: j["state"] in ("done", "failed") and j["attempts"] == 2, 60,
                   "the requeued writer to end")
    check(j["state"] == "done" and j["output"] == "out_%j.txt" and j["error"] == "err_%x.txt",
          f"the writer: {j}")
    check(read(out) == "run 1\nrun 2\n", f"{out}: {read(out)!r}")
    check(read(err) == "oops 1\noops 2\n", f"{err}: {read(err)!r}")
    text = sq("logs", str(job)).stdout
    check(text == "run 1\nrun 2\n", f"squeeze logs: {text!r}")
    last = sq("logs", str(job), "-n", "1").stdout
    check(last == "run 2\n", f"logs -n 1: {last!r}")
    run_log = serve_lib.log_of(d, job, 2)
    check(f"stdout goes to {out}, stderr to {err} (appended to)" in run_log, f"the log: {run_log!r}")
    # A pattern squeeze cannot fill in is refused, naming it.
    r = sq("submit", "-o", "out_%Q.txt", "--", "true", ok=False)
    check(r.returncode != 0 and "--output=out_%Q.txt: '%Q' is not a pattern" in r.stderr,
          f"-o out_%Q.txt: {r.stderr}")


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
        for line in sq("queue", "-o", "id,reason").stdout.splitlines()[1:]:
            cells = line.split()
            rows[int(cells[0])] = cells[1] if len(cells) > 1 else ""
        return rows

    got = serve_lib.wait_until(
        lambda: (lambda r: r if r.get(first) == "Resources" else None)(reasons()), 15,
        "the REASON codes")
    check(got.get(second) == "Priority" and got.get(held) == "JobHeld", f"REASON: {got}")
    why_held = sq("why", str(held)).stdout
    check("submitted held" in why_held and f"squeeze release {held}" in why_held
          and "expected" not in why_held,
          f"squeeze why of a held job:\n{why_held}")
    # update: the second job asks for more GPUs than there are: refused; then for high urgency.
    r = sq("update", str(second), "--gpus", "4", ok=False)
    check(r.returncode != 0 and "GPU" in r.stderr, f"update to 4 GPUs: {r.stderr}")
    sq("update", str(second), "--urgency", "high", "-t", "5:00")
    j = d.job(second)
    check(j["urgency"] == "high" and j["time_limit_s"] == 300, f"updated: {j}")
    # Its cards and topology request, as scontrol update changes Gres and Switches: a model no
    # node has is refused naming the models there are; speeds and a request are taken, and
    # `none` puts them back.
    r = sq("update", str(second), "--gpu-models", "H100,B200", ok=False)
    check(r.returncode != 0 and "H100" in r.stderr and "models:" in r.stderr,
          f"update to H100,B200: {r.stderr}")
    sq("update", str(second), "--gpu-speeds", "gpu:1,K80:0.5", "--topology", "unconstrained")
    j = d.job(second)
    check(j["gpu_speeds"] == {"K80": 0.5, "gpu": 1} and j["topology"] == "unconstrained",
          f"updated cards: {j}")
    sq("update", str(second), "--gpu-speeds", "none", "--topology", "none")
    j = d.job(second)
    check(j["gpu_speeds"] is None and j["topology"] == "preferred", f"cards put back: {j}")
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


def case_pipeline(squeeze, source, h):
    """preprocess -> an array of train tasks (%2) -> eval, with afterok, as sbatch scripts: live
    they run in that order (never more than 2 train tasks at once), and `squeeze simulate` of
    the same pipeline as a job-profile trace starts them in the same order."""
    d, sq = start(squeeze, h, gpus="4")
    order = h.path("order.txt")
    steps = {
        "preprocess": "sleep 2",
        "train": "mkdir -p running; touch running/$SLURM_ARRAY_TASK_ID; "
                 "echo \"train $SLURM_ARRAY_TASK_ID $(ls running | wc -l)\" >> " + order +
                 "; sleep 2; rm running/$SLURM_ARRAY_TASK_ID",
        "eval": "true",
    }
    for name, body in steps.items():
        with open(h.path(name + ".sbatch"), "w") as f:
            f.write(f"#!/bin/bash\n#SBATCH -J {name}\n#SBATCH --gres=gpu:1\n")
            if name == "train":
                f.write("#SBATCH --array=0-3%2\n")
            f.write(f"echo {name} start >> {order}\n{body}\necho {name} end >> {order}\n")
    pre = submitted_id(sq("submit", h.path("preprocess.sbatch")).stdout)
    out = sq("submit", "-d", f"afterok:{pre}", h.path("train.sbatch")).stdout
    m = re.search(r"submitted array job (\d+) \(4 tasks\)", out)
    check(m is not None, f"no array job in {out!r}")
    train = int(m.group(1))
    ev = submitted_id(sq("submit", "--dependency", f"afterok:{train}",
                         h.path("eval.sbatch")).stdout)
    # Waiting: the array's tasks in one row with their reason, eval on its dependency.
    q = sq("queue").stdout
    check(re.search(rf"{train}_\[0-3\]\s.*Dependency", q) is not None, q)
    check(re.search(rf"^{ev}\s.*Dependency", q, re.M) is not None, q)
    starts = sq("queue", "--start").stdout
    check("START_TIME" in starts and re.search(rf"^{ev}\s.*N/A\s+Dependency", starts, re.M),
          starts)
    why = sq("why", str(ev)).stdout
    check(f"afterok:{train}" in why, why)
    show = sq("show", f"{train}_2").stdout
    check("ArrayJobId=" in show and "ArrayTaskId=2 " in show and "ArrayProgress=" in show, show)
    d.wait_state(ev, ("done",), timeout=90)
    lines = [l.split() for l in open(order).read().splitlines()]
    names = [l[0] for l in lines if l[1] == "start"]
    check(names == ["preprocess"] + ["train"] * 4 + ["eval"], f"live order: {names}")
    ends = [i for i, l in enumerate(lines) if l[0] == "preprocess" and l[1] == "end"]
    first_train = next(i for i, l in enumerate(lines) if l[0] == "train")
    check(ends and ends[0] < first_train, f"a train task started before preprocess ended: {lines}")
    beside = [int(l[2]) for l in lines if l[0] == "train" and l[1] not in ("start", "end")]
    check(len(beside) == 4 and max(beside) <= 2, f"more than 2 train tasks at once: {beside}")
    # The same pipeline in the simulator.
    trace = h.path("pipeline.csv")
    with open(trace, "w") as f:
        f.write("id,submit_time,duration,gpus,pool,name,array,dependency\n"
                "1,0,2,1,,preprocess,,\n2,0,2,1,,train,0-3%2,afterok:1\n"
                "3,0,1,1,,eval,,afterok:2\n")
    cluster = h.path("four.yaml")
    with open(cluster, "w") as f:
        f.write("pools:\n  - name: owned\n    nodes: [{name: gpu-0, gpus: 4}]\n")
    jobs_csv = h.path("sim-jobs.csv")
    r = h.run([squeeze, "simulate", "--trace", trace, "--cluster", cluster, "--policy",
               "backfill", "--jobs-csv", jobs_csv, "-q"], timeout=60)
    check(r.returncode == 0, f"simulate: {r.stderr}")
    names_by_id = {1: "preprocess", 3: "eval"}
    rows = [l.split(",") for l in open(jobs_csv).read().splitlines()[1:]]
    sim = sorted((int(row[5]), names_by_id.get(int(row[1]), "train")) for row in rows)
    sim_names = [n for _, n in sim]
    check(sim_names == names, f"simulated order {sim} differs from the live one {names}")
    starts = sorted(int(row[5]) for row in rows if int(row[1]) not in names_by_id)
    check(starts == [2, 2, 4, 4], f"simulated train starts (two at a time after preprocess): {starts}")
    log(f"pipeline: live and simulated order {names}; train tasks at once <= 2")


CASES = {"script": case_script, "output": case_output, "limit": case_limit,
         "control": case_control, "pipeline": case_pipeline}

if __name__ == "__main__":
    sys.exit(serve_lib.main(CASES, sys.argv))
