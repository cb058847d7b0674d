#!/usr/bin/env python3
"""A Slurm and PyTorch user's first day (issue 36), replayed as the real account sqz-alice on a
root daemon's local pool, with her own shell's environment. Needs root and the test accounts
(tests/test_accounts.sh); skipped (77) without them.

    python3 tests/serve_first_day_test.py CASE SQUEEZE SOURCE_DIR WORK_DIR

Cases:
  environment  a plain `submit -- python` runs her venv's python (sbatch's --export=ALL), sees
               $SLURM_JOB_ID and the launcher's variables; two runs at once get different
               master ports; --export=NONE sends none of her variables
  srun         a `-N 2` batch script that calls srun runs its two tasks on the local pool
  requeue      a job that timed out, requeued, resumes from its checkpoint at its step
  why          `why` of a job behind a dependency and of an array task behind its %limit names
               them and forecasts a start; `queue --start` gives them a START_TIME
  daemon       `squeeze status` and `squeeze stop` of the daemon's data directory
"""

import os
import pwd
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_lib  # noqa: E402
from serve_lib import ALICE, check, log, wait_until  # noqa: E402


def alice():
    if not serve_lib.is_root():
        raise serve_lib.SkipTest("needs root (a root daemon runs each job as its owner)")
    serve_lib.need_test_accounts()
    return pwd.getpwnam(ALICE)


def as_alice(h, a, argv, env=None, cwd=None, timeout=60):
    """argv as sqz-alice, from a login-like shell environment plus `env`."""
    base = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": a.pw_dir, "USER": ALICE,
            "LANG": "C.UTF-8"}
    base.update(env or {})
    return h.run(["setpriv", f"--reuid={a.pw_uid}", f"--regid={a.pw_gid}", "--init-groups"] + argv,
                 env=base, cwd=cwd or a.pw_dir, timeout=timeout)


def submit(h, a, squeeze, sock, args, env=None, cwd=None):
    r = as_alice(h, a, [squeeze, "submit"] + args, dict(env or {}, SQUEEZE_SOCKET=sock), cwd)
    check(r.returncode == 0 and "submitted" in r.stdout, f"submit {args}: {r.stdout}{r.stderr}")
    return int(re.search(r"(\d+)", r.stdout.split("job", 1)[1]).group(1))


def squeeze_as(h, a, squeeze, sock, args):
    return as_alice(h, a, [squeeze] + args, {"SQUEEZE_SOCKET": sock})


def start(squeeze, h, gpus=2):
    d = h.start_daemon(squeeze, "data", ["--virtual-gpus", str(gpus)], allow_root_jobs=False)
    return d, os.path.join(d.data_dir, "squeeze.sock")


def own_file(a, path, text, mode=0o644):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, mode)
    os.chown(path, a.pw_uid, a.pw_gid)


def case_environment(squeeze, source, h):
    a = alice()
    d, sock = start(squeeze, h)
    venv = os.path.join(a.pw_dir, "first-day-venv")
    subprocess.run(["rm", "-rf", venv], check=True)
    r = as_alice(h, a, ["/usr/bin/python3", "-m", "venv", "--without-pip", venv])
    check(r.returncode == 0, f"alice's venv: {r.stdout}{r.stderr}")
    shell = {"PATH": f"{venv}/bin:/usr/local/bin:/usr/bin:/bin", "VIRTUAL_ENV": venv,
             "HF_TOKEN": "hf_alices"}
    probe = ("import os, sys; print('prefix', sys.prefix); "
             "print('slurm', os.environ.get('SLURM_JOB_ID'), os.environ.get('SLURM_JOB_NAME'), "
             "os.environ.get('SLURM_NTASKS'), os.environ.get('SLURM_SUBMIT_DIR')); "
             "print('port', os.environ.get('SQUEEZE_MASTER_PORT'), os.environ.get('MASTER_PORT')); "
             "print('token', os.environ.get('HF_TOKEN')); import time; time.sleep(3)")
    jobs = [submit(h, a, squeeze, sock, ["--gpus", "1", "--name", f"probe{n}", "--", "python",
                                          "-c", probe], shell) for n in range(2)]
    ports = []
    for job in jobs:
        d.wait_state(job, "done", timeout=60)
        text = serve_lib.log_of(d, job, 1)
        check(f"prefix {venv}" in text, f"job {job} should run her venv's python: {text}")
        check(f"slurm {job} probe" in text and f" 1 {a.pw_dir}" in text,
              f"job {job}'s SLURM_* variables: {text}")
        check("token hf_alices" in text, f"her exported HF_TOKEN: {text}")
        m = re.search(r"port (\d+) (\d+)", text)
        check(m and m.group(1) == m.group(2), f"the master port: {text}")
        ports.append(m.group(1))
    log(f"two runs at once: master ports {ports}")
    check(ports[0] != ports[1], f"two local runs share a master port: {ports}")
    # --export=NONE: none of her shell's variables (the daemon's base PATH instead).
    job = submit(h, a, squeeze, sock, ["--gpus", "0", "--export=NONE", "--", "sh", "-c",
                                       "echo token=${HF_TOKEN:-none} venv=${VIRTUAL_ENV:-none}"],
                 shell)
    d.wait_state(job, "done", timeout=30)
    text = serve_lib.log_of(d, job, 1)
    check("token=none venv=none" in text, f"--export=NONE: {text}")


SRUN_SCRIPT = """#!/bin/bash
#SBATCH --job-name=two-tasks
#SBATCH -N 2
#SBATCH --ntasks-per-node=1
#SBATCH --gres=gpu:1
#SBATCH --time=5:00
echo "batch job=$SLURM_JOB_ID ntasks=$SLURM_NTASKS nodelist=$SLURM_JOB_NODELIST"
head=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)
srun bash -c 'echo "task $SLURM_PROCID of $SLURM_NTASKS on $(hostname -s) head='$head'"'
echo "srun exit $?"
"""


def case_srun(squeeze, source, h):
    a = alice()
    d, sock = start(squeeze, h)
    script = os.path.join(a.pw_dir, "two-tasks.sbatch")
    own_file(a, script, SRUN_SCRIPT, 0o755)
    job = submit(h, a, squeeze, sock, [script])
    d.wait_state(job, ["done", "failed"], timeout=60)
    shown = d.job(job)
    text = serve_lib.log_of(d, job, 1)
    log(f"the script's log:\n{text}")
    host = subprocess.run(["hostname", "-s"], capture_output=True, text=True).stdout.strip()
    check(shown["state"] == "done" and shown["attempts"] == 1,
          f"the -N 2 script should run once and end done: {shown['state']}, "
          f"{shown['attempts']} attempts; {text}")
    check(f"batch job={job} ntasks=2 nodelist={host}" in text, f"its SLURM_* variables: {text}")
    for task in (0, 1):
        check(f"task {task} of 2 on {host} head={host}" in text, f"srun's task {task}: {text}")
    check("srun exit 0" in text, f"srun's exit: {text}")


# Checkpoints every 5 steps and when asked (SIGUSR1); attempt 1 would run forever (its time
# limit ends it), a later one ends 3 steps after it resumed.
RESUMING = r"""
d=$SQUEEZE_CHECKPOINT_DIR; step=0; begun=0
save() { echo $step > "$d/state"; echo $step > "$d/COMPLETE"; echo "checkpoint at step $step"; }
trap 'save; exit 0' USR1
trap 'exit 143' TERM
if [[ -n ${SQUEEZE_RESUME:-} && -f $d/state ]]; then step=$(<"$d/state"); begun=$step;
  echo "attempt $SQUEEZE_ATTEMPT resumed at step $step"; fi
while :; do
  sleep 0.1; step=$((step + 1))
  (( step % 5 == 0 )) && save
  if (( SQUEEZE_ATTEMPT > 1 && step >= begun + 3 )); then echo "finished at step $step"; exit 0; fi
done
"""


def case_requeue(squeeze, source, h):
    a = alice()
    d, sock = start(squeeze, h)
    job = submit(h, a, squeeze, sock, ["--gpus", "1", "--checkpointable", "--time", "3s",
                                       "--", "bash", "-c", RESUMING])
    d.wait_state(job, "timeout", timeout=60)
    first = serve_lib.log_of(d, job, 1)
    saved = re.findall(r"checkpoint at step (\d+)", first)
    check(saved, f"attempt 1 saved no checkpoint before its time limit: {first}")
    r = squeeze_as(h, a, squeeze, sock, ["requeue", str(job)])
    check(r.returncode == 0, f"requeue of the timed-out job: {r.stdout}{r.stderr}")
    d.wait_state(job, "done", timeout=60)
    second = serve_lib.log_of(d, job, 2)
    log(f"attempt 1 saved steps {saved}; attempt 2:\n{second}")
    check(f"attempt 2 resumed at step {saved[-1]}" in second,
          f"attempt 2 should resume at step {saved[-1]}: {second}")
    shown = d.job(job)
    kinds = [(e["kind"], e["text"]) for e in shown["history"]]
    check(shown["attempts"] == 2 and any(k == "requeue" and "resumes from its checkpoint" in t
                                         for k, t in kinds), f"its history: {kinds}")
    # sacct's way of asking: a window, the jobs named, the columns.
    r = squeeze_as(h, a, squeeze, sock, ["history", "-S", "now-1hour", "-j", str(job),
                                         "-o", "JobID,State,Elapsed,NodeList"])
    check(r.returncode == 0 and re.search(rf"^{job}\s+done\s+\S+\s+\S+$", r.stdout, re.M) and
          r.stdout.startswith("ID  STATE  TIME"), f"history -S -j -o: {r.stdout}{r.stderr}")
    r = squeeze_as(h, a, squeeze, sock, ["history", "-E", "2000-01-01"])
    check(r.returncode == 0 and "no ended jobs" in r.stdout, f"history -E 2000-01-01: {r.stdout}")
    r = squeeze_as(h, a, squeeze, sock, ["history", "-S", "yesterday-ish"])
    check(r.returncode != 0 and "-S/--starttime" in r.stderr, f"a bad -S: {r.stdout}{r.stderr}")
    # bob may not requeue her job.
    r = h.run(["setpriv", f"--reuid={pwd.getpwnam(serve_lib.BOB).pw_uid}",
               f"--regid={pwd.getpwnam(serve_lib.BOB).pw_gid}", "--init-groups", squeeze,
               "requeue", str(job)], env={"SQUEEZE_SOCKET": sock, "PATH": "/usr/bin:/bin"})
    check(r.returncode != 0 and "only its owner or an admin" in r.stderr,
          f"bob's requeue of her job: {r.stdout}{r.stderr}")


def case_why(squeeze, source, h):
    a = alice()
    d, sock = start(squeeze, h)
    first = submit(h, a, squeeze, sock, ["--gpus", "1", "--estimate", "1m", "--", "sleep", "60"])
    after = submit(h, a, squeeze, sock, ["--gpus", "1", "--estimate", "1m",
                                         f"--dependency=afterok:{first}", "--", "true"])
    array = submit(h, a, squeeze, sock, ["--gpus", "1", "--estimate", "1m", "--array", "0-2%1",
                                         "--", "sleep", "60"])
    d.wait_state(first, "running", timeout=30)
    wait_until(lambda: d.job(array)["state"] == "running", 30, "the array's first task")
    for ref, words in ((str(after), [f"waits on its dependencies: afterok:{first}",
                                     "at the earliest"]),
                       (f"{array}_1", ["its array", "limit (%1)", "at the earliest"])):
        r = squeeze_as(h, a, squeeze, sock, ["why", ref])
        log(f"why {ref}:\n{r.stdout}")
        check(r.returncode == 0 and all(w in r.stdout for w in words) and
              "has no estimate" not in r.stdout, f"why {ref}: {r.stdout}{r.stderr}")
    r = squeeze_as(h, a, squeeze, sock, ["queue", "-j", str(array), "-t", "PD,R", "-o", "%i %t %R"])
    check(r.returncode == 0 and r.stdout.splitlines()[0].split() == ["ID", "ST", "NODELIST(REASON)"]
          and f"{array}_0" in r.stdout and f"{array}_[1-2]" in r.stdout and
          f"\n{after} " not in r.stdout, f"queue -j -t -o: {r.stdout}{r.stderr}")
    r = squeeze_as(h, a, squeeze, sock, ["queue", "--start"])
    log(f"queue --start:\n{r.stdout}")
    rows = {line.split()[0]: line for line in r.stdout.splitlines()[1:] if line.strip()}
    for ref in (str(after), f"{array}_1", f"{array}_2"):
        check(ref in rows and "N/A" not in rows[ref], f"queue --start of {ref}: {r.stdout}")


def case_daemon(squeeze, source, h):
    a = alice()
    d, sock = start(squeeze, h)
    r = h.run([squeeze, "status", "--data", d.data_dir])
    check(r.returncode == 0 and f"running in {d.data_dir} (pid {d.proc.pid}" in r.stdout and
          "GPUs free" in r.stdout, f"status: {r.stdout}{r.stderr}")
    # alice may ask, not stop root's daemon.
    r = as_alice(h, a, [squeeze, "stop", "--data", d.data_dir])
    check(r.returncode != 0 and "only the user it runs as" in r.stderr and d.alive(),
          f"alice's stop of root's daemon: {r.stdout}{r.stderr}")
    job = submit(h, a, squeeze, sock, ["--gpus", "1", "--", "sleep", "30"])
    d.wait_state(job, "running", timeout=30)
    r = h.run([squeeze, "stop", "--data", d.data_dir])
    check(r.returncode == 0 and "stopped squeeze serve" in r.stdout, f"stop: {r.stdout}{r.stderr}")
    # Its lock goes as it exits; the process itself a moment after.
    wait_until(lambda: not d.alive(), 10, "the daemon to exit after squeeze stop")
    r = h.run([squeeze, "status", "--data", d.data_dir])
    check(r.returncode == 3 and "not running" in r.stdout, f"status after stop: {r.stdout}")
    d.start()
    d.wait_state(job, "running", timeout=30)  # taken back, still running
    status, body = d.call("POST", f"/v1/jobs/{job}/cancel")
    check(status == 200, f"{status} {body}")


if __name__ == "__main__":
    sys.exit(serve_lib.main({"environment": case_environment, "srun": case_srun,
                             "requeue": case_requeue, "why": case_why, "daemon": case_daemon},
                            sys.argv))
