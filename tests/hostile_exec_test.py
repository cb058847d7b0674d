#!/usr/bin/env python3
"""A hostile user against what runs their jobs (label serve): a root daemon, the test accounts,
sqz-bob attacking through the values he chooses (environment, checkpoint marker, log, output
path, processes) while sqz-alice uses the queue. Needs root and the test accounts; skipped (77)
without them.

    python3 tests/hostile_exec_test.py CASE SQUEEZE SOURCE_DIR WORK_DIR

Cases:
  loader     LD_PRELOAD, LD_AUDIT and LD_LIBRARY_PATH given with --env, and a batch script
             submitted from a shell that has LD_PRELOAD set: the library runs in bob's job as
             bob, never as root (neither at the submit-time check nor in the supervisor); the
             root supervisor's environment and command line hold none of bob's values
  marker     bob's checkpoint marker made a link to the admin token, a FIFO, /dev/zero, a 1 GB
             file: nothing is read as root, no token reaches the job's history, the daemon goes
             on scheduling (alice's job starts and ends meanwhile) and its memory stays
             bounded; bob cannot replace his checkpoint folder with a link
  logs       bob's job cannot rewrite its log; output past --max-log-size is dropped with a
             note and `squeeze logs` stays bounded; an output file in a folder bob cannot
             search gives the same message as one that is not there; bob's command is not in
             the process title of his run's root supervisor
  escapees   a setsid child that ignores SIGTERM (and a double fork) ends with its run, and with
             a cancel: no process of bob's is left
  held_room  bob's preemptible job ignores its checkpoint request (SIGUSR1) and SIGTERM; the
             room held for alice's more urgent job that evicts it (its free GPU, then bob's) stays
             held only until the checkpoint and stop graces have run out: alice's job starts
             then, on both GPUs, and bob's next job does not take the free GPU meanwhile
  priority   the daemon's threads run at nice -5, ahead of bob's busy loops (one per core
             here), while alice's `squeeze queue` is answered; bob's job and its root
             supervisor run at the nice the daemon was started with
  checks     the submit-time check of a workdir and command that passed for alice (kept 10 s)
             is not bob's: his submission of the same private workdir and command, right
             after, is refused; alice's next one is taken without a new check
"""

import json
import os
import pwd
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_lib  # noqa: E402
from serve_lib import ALICE, BOB, check, log, wait_until  # noqa: E402

EVIL_C = r"""
#include <stdio.h>
#include <unistd.h>
static void mark(void) {
  char path[512];
  snprintf(path, sizeof path, "%s/loaded-as-uid-%d", MARK_DIR, (int)geteuid());
  FILE *f = fopen(path, "a");
  if (f) { fputs("loaded\n", f); fclose(f); }
}
__attribute__((constructor)) static void at_load(void) { mark(); }
unsigned int la_version(unsigned int v) { mark(); return v; }
"""


def accounts():
    if not serve_lib.is_root():
        raise serve_lib.SkipTest("needs root (a root daemon runs each job as its owner)")
    serve_lib.need_test_accounts()
    return pwd.getpwnam(ALICE), pwd.getpwnam(BOB)


def hostile_daemon(squeeze, h, args=()):
    d = h.start_daemon(squeeze, "data", ["--virtual-gpus", "2"] + list(args),
                       allow_root_jobs=False)
    sock = os.path.join(d.data_dir, "squeeze.sock")
    return d, sock


def as_user(h, user, argv, env=None, timeout=60, cwd=None):
    """ARGV as Unix user `user`, with a login-like environment plus `env`."""
    pw = pwd.getpwnam(user)
    base = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": pw.pw_dir, "USER": user,
            "LANG": "C.UTF-8"}
    base.update(env or {})
    return h.run(["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--init-groups"]
                 + argv, env=base, cwd=cwd or pw.pw_dir, timeout=timeout)


def squeeze_as(h, user, squeeze, sock, args, env=None, cwd=None):
    env = dict(env or {})
    env["SQUEEZE_SOCKET"] = sock
    return as_user(h, user, [squeeze] + args, env=env, cwd=cwd)


def submitted_id(r):
    check(r.returncode == 0 and "submitted job" in r.stdout, f"submit: {r.stdout}{r.stderr}")
    return int(r.stdout.split()[-1])


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def bobs_processes(marker):
    """Live processes of sqz-bob whose command line holds `marker`."""
    uid = pwd.getpwnam(BOB).pw_uid
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            st = os.stat(f"/proc/{entry}")
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read()
            with open(f"/proc/{entry}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if st.st_uid == uid and marker.encode() in cmd and state != "Z":
            found.append(int(entry))
    return found


def supervisor_of(d, job):
    for name, pid, _, _ in serve_lib.read_run_files(d.data_dir):
        if name == f"{job}.1.run":
            return pid
    return None


def build_evil(h, b):
    """bob's preload library (and a fake libstdc++ for LD_LIBRARY_PATH) in his home; each
    records the uid it was loaded as in MARKS."""
    marks = os.path.join(b.pw_dir, "marks")
    src = os.path.join(b.pw_dir, "evil.c")
    shutil.rmtree(marks, ignore_errors=True)  # an earlier run's
    os.makedirs(marks, exist_ok=True)
    os.makedirs(os.path.join(b.pw_dir, "fakelib"), exist_ok=True)
    with open(src, "w") as f:
        f.write(EVIL_C)
    for out in ("evil.so", "fakelib/libstdc++.so.6"):
        r = h.run(["cc", "-shared", "-fPIC", f'-DMARK_DIR="{marks}"', "-o",
                   os.path.join(b.pw_dir, out), src])
        check(r.returncode == 0, f"cc: {r.stderr}")
    for path in (marks, os.path.join(b.pw_dir, "fakelib"), os.path.join(b.pw_dir, "evil.so"),
                 os.path.join(b.pw_dir, "fakelib/libstdc++.so.6")):
        os.chown(path, b.pw_uid, b.pw_gid)
    os.chmod(marks, 0o777)  # so that root, were it to load the library, could leave its mark
    return marks


def case_loader(squeeze, source, h):
    a, b = accounts()
    d, sock = hostile_daemon(squeeze, h)
    marks = build_evil(h, b)
    evil = os.path.join(b.pw_dir, "evil.so")
    for var, value in (("LD_PRELOAD", evil), ("LD_AUDIT", evil),
                       ("LD_LIBRARY_PATH", os.path.join(b.pw_dir, "fakelib"))):
        r = squeeze_as(h, BOB, squeeze, sock, ["submit", "--gpus", "0", "--env", f"{var}={value}",
                                               "--", "sh", "-c", "id -u; sleep 3"])
        job = submitted_id(r)
        d.wait_state(job, "running", timeout=30)
        sup = wait_until(lambda: supervisor_of(d, job), 15, "the run's supervisor")
        with open(f"/proc/{sup}/environ", "rb") as f:
            sup_env = f.read()
        with open(f"/proc/{sup}/cmdline", "rb") as f:
            sup_cmd = f.read()
        check(var.encode() not in sup_env and b"evil" not in sup_env,
              f"the root supervisor's environment holds bob's {var}: {sup_env!r}")
        check(b"sleep 3" not in sup_cmd, f"the supervisor's title shows bob's command: {sup_cmd!r}")
        d.wait_state(job, "done", timeout=30)
    # A batch script submitted from a shell that has LD_PRELOAD set (scripts take the
    # submitter's environment).
    script = os.path.join(b.pw_dir, "job.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\n#SBATCH --job-name=preloaded\necho \"preload=$LD_PRELOAD\"\n")
    os.chown(script, b.pw_uid, b.pw_gid)
    made = sorted(os.listdir(marks))
    check("loaded-as-uid-0" not in made, f"bob's library ran as root (--env): {made}")
    # (set once the shell is bob's: setpriv itself runs as root)
    r = as_user(h, BOB, ["env", f"LD_PRELOAD={evil}", f"SQUEEZE_SOCKET={sock}", squeeze,
                         "submit", script])
    job = submitted_id(r)
    d.wait_state(job, "done", timeout=30)
    text = serve_lib.log_of(d, job, 1)
    check(f"preload={evil}" in text, f"the script ran with bob's LD_PRELOAD: {text}")
    made = sorted(os.listdir(marks))
    log(f"the library left: {made}")
    check("loaded-as-uid-0" not in made, f"bob's library ran as root: {made}")
    check(f"loaded-as-uid-{b.pw_uid}" in made, f"bob's library should run in his job as him: {made}")
    # A plain submit takes the submitter's environment too (sbatch's --export=ALL): his own
    # python first on his PATH (a venv's), his LD_PRELOAD, a token; all applied only in the
    # job, as him, and its values never shown to alice.
    venv = os.path.join(b.pw_dir, "venv", "bin")
    os.makedirs(venv, exist_ok=True)
    with open(os.path.join(venv, "python3"), "w") as f:
        f.write("#!/bin/sh\necho \"venv-python uid=$(id -u) preload=$LD_PRELOAD\"\n")
    os.chmod(os.path.join(venv, "python3"), 0o755)
    for path in (os.path.join(b.pw_dir, "venv"), venv, os.path.join(venv, "python3")):
        os.chown(path, b.pw_uid, b.pw_gid)
    for name in os.listdir(marks):
        os.unlink(os.path.join(marks, name))
    r = as_user(h, BOB, ["env", f"LD_PRELOAD={evil}", f"PATH={venv}:/usr/bin:/bin",
                         "HF_TOKEN=hf_bobs_secret", f"SQUEEZE_SOCKET={sock}", squeeze,
                         "submit", "--gpus", "0", "--", "python3"])
    job = submitted_id(r)
    d.wait_state(job, "done", timeout=30)
    text = serve_lib.log_of(d, job, 1)
    check(f"venv-python uid={b.pw_uid} preload={evil}" in text,
          f"a plain submit should run bob's own python with his environment: {text}")
    made = sorted(os.listdir(marks))
    check("loaded-as-uid-0" not in made and f"loaded-as-uid-{b.pw_uid}" in made,
          f"bob's library (plain submit) ran as: {made}")
    r = squeeze_as(h, ALICE, squeeze, sock, ["show", str(job), "--env"])
    check(r.returncode != 0 and "hf_bobs_secret" not in r.stdout + r.stderr and
          "owner or an admin" in r.stderr, f"alice's show --env of bob's job: {r.stdout}{r.stderr}")
    r = squeeze_as(h, ALICE, squeeze, sock, ["show", str(job), "--json"])
    shown = json.loads(r.stdout) if r.returncode == 0 else {}
    check(shown.get("env", 1) is None and shown.get("env_count", 1) is None and
          "hf_bobs_secret" not in r.stdout, f"alice's show of bob's job: {r.stdout}{r.stderr}")
    r = squeeze_as(h, BOB, squeeze, sock, ["show", str(job)])
    check(r.returncode == 0 and "hf_bobs_secret" not in r.stdout and "values hidden" in r.stdout,
          f"bob's own show hides the values unless asked: {r.stdout}{r.stderr}")
    r = squeeze_as(h, BOB, squeeze, sock, ["show", str(job), "--env"])
    check(r.returncode == 0 and "HF_TOKEN=hf_bobs_secret" in r.stdout,
          f"bob's show --env: {r.stdout}{r.stderr}")


def case_marker(squeeze, source, h):
    a, b = accounts()
    d, sock = hostile_daemon(squeeze, h)
    with open(os.path.join(d.data_dir, "admin.token")) as f:
        admin_token = f.read().strip()
    rss_before = rss_kib(d.proc.pid)
    attacks = {
        "token": f"ln -s {d.data_dir}/admin.token COMPLETE",
        "tokens": f"ln -s {d.data_dir}/tokens COMPLETE",
        "fifo": "mkfifo COMPLETE",
        "device": "ln -s /dev/zero COMPLETE",
        "huge": "truncate -s 1G COMPLETE",
        "folder": "cd .. && mv \"$SQUEEZE_CHECKPOINT_DIR\" x 2>&1; "
                  "ln -s /root \"$SQUEEZE_CHECKPOINT_DIR\" 2>&1; cd \"$SQUEEZE_CHECKPOINT_DIR\"",
    }
    jobs = {}
    for name, attack in attacks.items():
        r = squeeze_as(h, BOB, squeeze, sock, [
            "submit", "--gpus", "0", "--name", f"marker-{name}", "--checkpointable", "--",
            "sh", "-c", f"cd \"$SQUEEZE_CHECKPOINT_DIR\" && {{ {attack}; }}; sleep 4; echo end"])
        jobs[name] = submitted_id(r)
    # While bob's markers sit there, the daemon goes on: alice's job starts and ends.
    r = squeeze_as(h, ALICE, squeeze, sock, ["submit", "--gpus", "1", "--", "echo", "alice-ran"])
    alices = submitted_id(r)
    d.wait_state(alices, "done", timeout=30)
    r = squeeze_as(h, ALICE, squeeze, sock, ["queue", "--all"])
    check(r.returncode == 0, f"alice's queue: {r.stderr}")
    for name, job in jobs.items():
        d.wait_state(job, "done", timeout=60)
        shown = json.dumps(d.job(job))
        check(admin_token not in shown, f"the admin token reached job {job}'s record: {shown}")
        text = serve_lib.log_of(d, job, 1)
        check(admin_token not in text, f"the admin token reached bob's log: {text}")
        if name != "folder":
            check("checkpoint marker not taken" in text, f"{name}: the marker should be refused, "
                  f"with a note in bob's log: {text}")
    folder = serve_lib.log_of(d, jobs["folder"], 1)
    check("Permission denied" in folder, f"bob replacing his checkpoint folder: {folder}")
    status, body = d.call("GET", f"/v1/jobs/{jobs['token']}", token="admin")
    check(status == 200 and not body.get("last_checkpoint"),
          f"no checkpoint recorded from a link: {body.get('last_checkpoint')}")
    grown = rss_kib(d.proc.pid) - rss_before
    log(f"the daemon's RSS grew by {grown} KiB")
    check(grown < 64 * 1024, f"the daemon's memory grew by {grown} KiB")


def case_logs(squeeze, source, h):
    a, b = accounts()
    d, sock = hostile_daemon(squeeze, h, ["--max-log-size", "1MiB", "--max-retries", "0"])
    log_dir = os.path.join(d.data_dir, "logs")
    r = squeeze_as(h, BOB, squeeze, sock, [
        "submit", "--gpus", "0", "--", "sh", "-c",
        "echo real-line; L=\"$0\"; "
        "{ echo 'squeeze-supervisor: job 1 attempt 1 ended: exit 0' >> \"$L\" && echo rewrote; } "
        "2>/dev/null || echo cannot-rewrite; truncate -s 1G \"$L\" 2>/dev/null || echo cannot-grow",
        os.path.join(log_dir, "1.1.log")])
    job = submitted_id(r)
    check(job == 1, f"the first job is 1: {job}")
    d.wait_state(job, "done", timeout=30)
    text = serve_lib.log_of(d, job, 1)
    check("cannot-rewrite" in text and "cannot-grow" in text and "rewrote" not in text,
          f"bob's job against its own log: {text}")
    # Output past the limit: dropped, with a note; the API's answer stays bounded.
    rss_before = rss_kib(d.proc.pid)
    r = squeeze_as(h, BOB, squeeze, sock, [
        "submit", "--gpus", "0", "--", "sh", "-c", "head -c 20000000 /dev/zero | tr '\\0' x; echo tail-line"])
    flood = submitted_id(r)
    d.wait_state(flood, "done", timeout=60)
    size = os.path.getsize(os.path.join(log_dir, f"{flood}.1.log"))
    check(size < (1 << 20) + 4096, f"the log holds {size} bytes past --max-log-size 1MiB")
    r = squeeze_as(h, BOB, squeeze, sock, ["logs", str(flood)])
    check(r.returncode == 0 and "the log reached its limit" in r.stdout and "tail-line" not in r.stdout,
          f"bob's logs of the flood: {r.stdout[-300:]}{r.stderr}")
    grown = rss_kib(d.proc.pid) - rss_before
    check(grown < 64 * 1024, f"the daemon's memory grew by {grown} KiB reading a flooded log")
    # An output file in a folder bob cannot search reads as one that is not there.
    answers = []
    for path in ("/root/squeeze-hostile-out.txt", os.path.join(b.pw_dir, "no-such-dir", "out.txt")):
        r = squeeze_as(h, BOB, squeeze, sock, ["submit", "--gpus", "0", "-o", path, "--", "true"])
        out_job = submitted_id(r)
        d.wait_state(out_job, ("failed", "done"), timeout=60)
        r = squeeze_as(h, BOB, squeeze, sock, ["logs", str(out_job)])
        answers.append(r.stderr.replace(path, "PATH").replace(f"job {out_job} ", "job N "))
    log(f"logs of the two output files: {answers}")
    check(answers[0] == answers[1] and "no file that user" in answers[0],
          f"one message for a file bob cannot reach and one that is not there: {answers}")
    # bob's command is not in his root supervisor's process title, which alice can read.
    r = squeeze_as(h, BOB, squeeze, sock, ["submit", "--gpus", "0", "--", "sleep", "30.123"])
    sleeper = submitted_id(r)
    d.wait_state(sleeper, "running", timeout=30)
    sup = wait_until(lambda: supervisor_of(d, sleeper), 15, "the supervisor")
    r = as_user(h, ALICE, ["cat", f"/proc/{sup}/cmdline"])
    check(r.returncode == 0 and "30.123" not in r.stdout and "--run" in r.stdout,
          f"alice reads bob's supervisor's title: {r.stdout!r}")
    d.call("POST", f"/v1/jobs/{sleeper}/cancel")


def escapees_in(squeeze, h, mode):
    d = h.start_daemon(squeeze, f"data-{mode}", ["--virtual-gpus", "2", "--stop-grace", "2s",
                                                 "--process-tracking", mode],
                       allow_root_jobs=False)
    sock = os.path.join(d.data_dir, "squeeze.sock")
    tracking = next(line for line in d.log_text().splitlines() if "processes:" in line)
    log(f"--process-tracking {mode}: {tracking}")
    escape = ("setsid sh -c 'trap \"\" TERM; exec sleep 3001.{n}' & "
              "sh -c '(trap \"\" TERM; exec sleep 3002.{n}) &' ; sleep 1; {then}")
    r = squeeze_as(h, BOB, squeeze, sock, ["submit", "--gpus", "0", "--", "sh", "-c",
                                           escape.format(n=1, then="exit 0")])
    ended = submitted_id(r)
    d.wait_state(ended, "done", timeout=30)
    wait_until(lambda: not bobs_processes("300") or None, 20, "bob's escapees to end",
               interval=0.5)
    r = squeeze_as(h, BOB, squeeze, sock, ["submit", "--gpus", "0", "--", "sh", "-c",
                                           escape.format(n=2, then="exec sleep 600")])
    running = submitted_id(r)
    d.wait_state(running, "running", timeout=30)
    wait_until(lambda: len(bobs_processes("300")) >= 2 or None, 15, "the escapees to start")
    r = squeeze_as(h, BOB, squeeze, sock, ["cancel", str(running)])
    check(r.returncode == 0, f"bob's cancel: {r.stderr}")
    d.wait_state(running, "cancelled", timeout=30)
    wait_until(lambda: not bobs_processes("300") or None, 20, "the cancelled run's escapees",
               interval=0.5)
    d.stop()


def case_escapees(squeeze, source, h):
    accounts()
    for mode in ("auto", "subreaper"):
        escapees_in(squeeze, h, mode)


def case_checks(squeeze, source, h):
    a, b = accounts()
    d, sock = hostile_daemon(squeeze, h)
    private = os.path.join(a.pw_dir, "private-work")
    os.makedirs(private, exist_ok=True)
    os.chown(private, a.pw_uid, a.pw_gid)
    os.chmod(private, 0o700)
    os.chmod(a.pw_dir, 0o711)  # bob may pass through alice's home, not into her folder
    args = ["submit", "--gpus", "0", "--hold", "--workdir", private, "--", "true"]
    submitted_id(squeeze_as(h, ALICE, squeeze, sock, args))
    # Within alice's 10 s: bob asks for the same workdir, command and PATH.
    r = squeeze_as(h, BOB, squeeze, sock, args)
    check(r.returncode != 0 and f"workdir '{private}': user '{BOB}' cannot enter it" in r.stderr,
          f"bob's job in alice's private folder was taken on her check: {r.stdout}{r.stderr}")
    started = time.monotonic()
    submitted_id(squeeze_as(h, ALICE, squeeze, sock, args))
    log(f"alice's second submission answered in {time.monotonic() - started:.3f} s")


def case_held_room(squeeze, source, h):
    accounts()
    graces = 4 + 2  # --checkpoint-grace, then --stop-grace
    d, sock = hostile_daemon(squeeze, h, ["--set", "min_runtime=0s", "--set",
                                          "preempt_by_order=false", "--checkpoint-grace", "4s",
                                          "--stop-grace", "2s"])
    deaf = ("trap '' USR1 TERM; echo started; i=0; "
            "while [ $i -lt 600 ]; do sleep 1; i=$((i+1)); done")
    r = squeeze_as(h, BOB, squeeze, sock, ["submit", "--gpus", "1", "--urgency", "low",
                                           "--preemptible", "--checkpointable", "--",
                                           "sh", "-c", deaf])
    victim = submitted_id(r)
    d.wait_state(victim, "running", timeout=30)
    time.sleep(1)  # its shell has set its traps
    asked = time.monotonic()
    r = squeeze_as(h, ALICE, squeeze, sock, ["submit", "--gpus", "2", "--urgency", "normal",
                                             "--", "sleep", "3"])
    urgent = submitted_id(r)
    d.wait_job(victim, lambda j: j["state"] != "running", 30, "to be asked to stop")
    r = squeeze_as(h, BOB, squeeze, sock, ["submit", "--gpus", "1", "--urgency", "low", "--",
                                           "sleep", "60"])
    passer = submitted_id(r)
    time.sleep(2)
    check(d.job(passer)["state"] == "pending" and d.job(urgent)["state"] == "pending",
          f"while bob's deaf job stops: his next job {d.job(passer)['state']}, alice's "
          f"{d.job(urgent)['state']} (the free GPU is held for alice's)")
    d.wait_state(urgent, ["running", "done"], timeout=graces + 30)
    waited = time.monotonic() - asked
    log(f"alice's job started {waited:.1f} s after it was submitted (graces {graces} s)")
    check(waited < graces + 20, f"alice's job waited {waited:.1f} s for a deaf victim")
    check(d.job(passer)["state"] == "pending",
          f"bob's next job is {d.job(passer)['state']} while alice's holds both GPUs")
    d.wait_state(passer, "running", timeout=60)
    d.call("POST", f"/v1/jobs/{passer}/cancel")
    d.call("POST", f"/v1/jobs/{victim}/cancel")
    d.stop()


def nice_of(pid, task=None):
    path = f"/proc/{pid}/task/{task}/stat" if task else f"/proc/{pid}/stat"
    with open(path) as f:
        return int(f.read().rsplit(")", 1)[1].split()[16])


def case_priority(squeeze, source, h):
    accounts()
    starting = os.nice(0)
    d, sock = hostile_daemon(squeeze, h, ["--nice", str(starting - 5)])
    check(f"CPU priority: nice {starting - 5}; the processes it starts run at {starting}"
          in d.log_text(), f"the start-up line: {d.log_text()}")
    hog = "for i in 1 2; do (while :; do :; done) & done; cut -d' ' -f19 /proc/self/stat; wait"
    victim = submitted_id(squeeze_as(h, BOB, squeeze, sock, ["submit", "--gpus", "1", "--",
                                                             "sh", "-c", hog]))
    d.wait_state(victim, "running", timeout=60)
    wait_until(lambda: serve_lib.log_of(d, victim, 1).strip() != "", 30, "bob's job's nice")
    check(int(serve_lib.log_of(d, victim, 1).split()[0]) == starting,
          f"bob's job runs at nice {serve_lib.log_of(d, victim, 1).strip()}, not {starting}")
    supervisor = supervisor_of(d, victim)
    check(supervisor is not None and nice_of(supervisor) == starting,
          f"bob's run's root supervisor runs at nice {supervisor and nice_of(supervisor)}")
    for task in os.listdir(f"/proc/{d.proc.pid}/task"):
        n = nice_of(d.proc.pid, task)
        # the background forecasts of `why` lower themselves by 10 from the daemon's
        check(n in (starting - 5, starting + 5), f"the daemon's thread {task} runs at nice {n}")
    started = time.monotonic()
    r = squeeze_as(h, ALICE, squeeze, sock, ["queue"])
    check(r.returncode == 0 and str(victim) in r.stdout, f"alice's queue: {r.stdout}{r.stderr}")
    log(f"alice's queue answered in {time.monotonic() - started:.3f} s beside bob's busy loops")
    d.call("POST", f"/v1/jobs/{victim}/cancel")
    d.wait_state(victim, "cancelled", timeout=60)
    d.stop()


CASES = {"priority": case_priority, "held_room": case_held_room, "checks": case_checks, "loader": case_loader, "marker": case_marker, "logs": case_logs,
         "escapees": case_escapees}

if __name__ == "__main__":
    sys.exit(serve_lib.main(CASES, sys.argv))
