#!/usr/bin/env python3
"""Many users, one daemon (label serve): every job runs as its owner, local users are known by
the kernel, and what is private stays so. Needs root and the test accounts (the CTest fixture
test_accounts: tests/test_accounts.sh); skipped (77) without them.

    python3 tests/serve_users_test.py CASE SQUEEZE SOURCE_DIR WORK_DIR

Cases:
  owners       a root daemon runs alice's job as sqz-alice (uid, groups, HOME, umask 077); the
               job cannot read the database, the tokens, the admin token, bob's log or
               checkpoint folder, nor signal bob's job; root's own jobs are refused without
               --allow-root-jobs; a workdir or command the owner cannot use is refused at once
  privacy      bob sees alice's job in the queue but not its log, env, command or checkpoint
               folder, and cannot cancel it; an admin can
  socket       squeeze commands on the Unix socket need no token and act as the calling user;
               the admin group's members are admins there; a forged token is refused
  single_user  a daemon run by sqz-alice runs every job as sqz-alice and says so; bob cannot
               reach its socket; `token add` for another user needs --single-user
"""

import json
import os
import pwd
import grp
import stat
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_lib  # noqa: E402
from serve_lib import ALICE, BOB, CAROL, check, expect_error, log, wait_until  # noqa: E402

LONG = ["sleep", "600"]

# What alice's job tries; each line "NAME errno" (0 = it worked). Argument 1 is DIR, 2 bob's
# job id, 3 bob's job pid.
PROBE = r"""
import errno, os, sys
data, bob, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
print("uid", os.getuid(), os.geteuid(), "gid", os.getgid(), "groups", sorted(os.getgroups()))
print("home", os.environ.get("HOME"), "user", os.environ.get("USER"), os.environ.get("LOGNAME"))
mask = os.umask(0); os.umask(mask); print("umask", oct(mask))
def attempt(name, fn):
    try:
        fn(); print(name, 0)
    except OSError as e:
        print(name, errno.errorcode.get(e.errno, e.errno))
attempt("db", lambda: open(os.path.join(data, "squeeze.db"), "rb").read(1))
attempt("tokens", lambda: open(os.path.join(data, "tokens")).read(1))
attempt("admin_token", lambda: open(os.path.join(data, "admin.token")).read(1))
attempt("list_data", lambda: os.listdir(data))
attempt("bob_log", lambda: open(os.path.join(data, "logs", bob + ".1.log")).read(1))
attempt("bob_checkpoints", lambda: os.listdir(os.path.join(data, "checkpoints", bob)))
attempt("kill_bob", lambda: os.kill(pid, 0))
attempt("own_checkpoint", lambda: open(os.path.join(os.environ["SQUEEZE_CHECKPOINT_DIR"], "x"), "w").write("x"))
"""


def accounts():
    if not serve_lib.is_root():
        raise serve_lib.SkipTest("needs root (a root daemon runs each job as its owner)")
    serve_lib.need_test_accounts()
    return pwd.getpwnam(ALICE), pwd.getpwnam(BOB)


def log_of(d, job, token="admin"):
    status, body = d.call("GET", f"/v1/jobs/{job}/log", token=token)
    check(status == 200, f"log of job {job}: {status} {body}")
    return body["text"]


def job_pid(d, job):
    for name, _, _, pid in serve_lib.read_run_files(d.data_dir):
        if name == f"{job}.1.run":
            return pid
    return None


def owners_daemon(squeeze, h, args=()):
    d = h.start_daemon(squeeze, "data", ["--virtual-gpus", "2"] + list(args),
                       allow_root_jobs=False)
    alice = h.add_token("data", ALICE, "ml")
    bob = h.add_token("data", BOB, "ml")
    wait_until(lambda: d.call("GET", "/v1/jobs", token=bob)[0] == 200, 15, "the new tokens")
    return d, alice, bob


def case_owners(squeeze, source, h):
    a, b = accounts()
    d, alice, bob = owners_daemon(squeeze, h)
    check("each job runs as its owner's Unix account; root's are refused" in d.log_text(),
          f"the daemon should say who jobs run as:\n{d.log_text()}")
    bobs = d.submit({"name": "bobs", "command": ["sh", "-c", "echo bob > \"$SQUEEZE_CHECKPOINT_DIR/mine\"; exec sleep 600"],
                     "gpus": 1}, token=bob)
    d.wait_state(bobs, "running", timeout=30)
    pid = wait_until(lambda: job_pid(d, bobs), 15, "bob's job pid")
    probe = d.submit({"name": "probe", "command": ["python3", "-c", PROBE, d.data_dir, str(bobs),
                                                   str(pid)], "gpus": 1}, token=alice)
    d.wait_state(probe, "done", timeout=60)
    text = log_of(d, probe, token=alice)
    log(f"alice's job printed:\n{text}")
    lines = {ln.split()[0]: ln.split()[1:] for ln in text.splitlines() if ln.strip()}
    groups = sorted({g.gr_gid for g in grp.getgrall() if ALICE in g.gr_mem} | {a.pw_gid})
    check(lines["uid"][:2] == [str(a.pw_uid), str(a.pw_uid)] and lines["uid"][3] == str(a.pw_gid),
          f"alice's job should run as uid/gid {a.pw_uid}/{a.pw_gid}: {lines['uid']}")
    check(" ".join(lines["uid"][5:]) == str(groups),
          f"alice's job should have her groups {groups}: {lines['uid']}")
    check(lines["home"] == [a.pw_dir, "user", ALICE, ALICE], f"HOME/USER/LOGNAME: {lines['home']}")
    check(lines["umask"] == ["0o77"], f"umask should be 077: {lines['umask']}")
    for name in ("db", "tokens", "admin_token", "list_data", "bob_log", "bob_checkpoints"):
        check(lines[name] == ["EACCES"], f"alice's job on {name}: {lines[name]} (want EACCES)")
    check(lines["kill_bob"] == ["EPERM"], f"alice's job signalling bob's: {lines['kill_bob']}")
    check(lines["own_checkpoint"] == ["0"], f"her own checkpoint folder: {lines['own_checkpoint']}")
    # Her log is written by her run's supervisor (root's, 0600: she reads it through squeeze
    # logs, and cannot rewrite squeeze's lines in it); her checkpoint folder is hers alone.
    st = os.stat(os.path.join(d.data_dir, "logs", f"{probe}.1.log"))
    check(st.st_uid == 0 and stat.S_IMODE(st.st_mode) == 0o600, f"her log: {st}")
    st = os.stat(os.path.join(d.data_dir, "checkpoints", str(probe)))
    check(st.st_uid == a.pw_uid and stat.S_IMODE(st.st_mode) == 0o700, f"her checkpoints: {st}")
    check(os.stat(os.path.join(d.data_dir, "checkpoints", str(bobs), "mine")).st_uid == b.pw_uid,
          "what bob's job writes is bob's")
    # Root's own jobs (the admin token's) would run as root: refused.
    expect_error(d, "POST", "/v1/jobs", 403, ["root", "--allow-root-jobs"],
                 body={"command": ["true"]})
    # What the owner cannot use is refused at once, naming the path and the user.
    expect_error(d, "POST", "/v1/jobs", 400, ["workdir", "/root", ALICE, "cannot enter"],
                 body={"command": ["true"], "workdir": "/root"}, token=alice)
    os.makedirs(h.path("private"), exist_ok=True)
    script = h.path("private", "run.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\necho hi\n")
    os.chmod(script, 0o700)  # root's alone
    expect_error(d, "POST", "/v1/jobs", 400, ["command", script, ALICE, "cannot run"],
                 body={"command": [script]}, token=alice)
    expect_error(d, "POST", "/v1/jobs", 400, ["command", "no-such-command-x9", "not found", ALICE],
                 body={"command": ["no-such-command-x9"]}, token=alice)
    # A root daemon allowed root's jobs runs them as root.
    d.stop()
    d2 = h.start_daemon(squeeze, "data", ["--virtual-gpus", "2", "--allow-root-jobs"])
    rooted = d2.submit({"command": ["id", "-u"]})
    d2.wait_state(rooted, "done", timeout=30)
    check(log_of(d2, rooted).splitlines()[0] == "0", "root's job with --allow-root-jobs: uid 0")
    d2.call("POST", f"/v1/jobs/{bobs}/cancel")


def case_privacy(squeeze, source, h):
    accounts()
    d, alice, bob = owners_daemon(squeeze, h)
    secret = {"name": "secret", "command": ["sh", "-c", "echo the-log-line; exec sleep 600"],
              "gpus": 1, "env": {"API_KEY": "s3cr3t"}}
    job = d.submit(secret, token=alice)
    d.wait_state(job, "running", timeout=30)
    wait_until(lambda: "the-log-line" in log_of(d, job, token=alice), 15, "her log")
    # bob sees the queue row, not what is hers.
    status, listing = d.call("GET", "/v1/jobs", token=bob)
    row = [j for j in listing["jobs"] if j["id"] == job]
    check(status == 200 and row, f"bob should see alice's job in the queue: {listing}")
    row = row[0]
    check(row["owner"] == ALICE and row["state"] == "running" and row["gpus"] == 1, f"{row}")
    check(row["private"] is True and row["command"] is None and row["env"] is None and
          row["workdir"] is None, f"bob should not see her command, env or workdir: {row}")
    one = d.job(job, token=bob)
    check(one["command"] is None and one["env"] is None and one["env_count"] is None and
          one["checkpoint_dir"] is None, f"bob's view of her job: {one}")
    check("s3cr3t" not in json.dumps(one) and "s3cr3t" not in json.dumps(listing),
          "her API key reached bob")
    expect_error(d, "GET", f"/v1/jobs/{job}/log", 403, [ALICE, "owner or an admin"], token=bob)
    expect_error(d, "GET", f"/v1/jobs/{job}/env", 403, [ALICE, "owner or an admin"], token=bob)
    expect_error(d, "POST", f"/v1/jobs/{job}/cancel", 403, [ALICE], token=bob)
    # She and the admin see all of it.
    # The job's JSON counts its environment; its values come only from /env (a listing, a
    # cancel's answer or a `show` never carries a token).
    mine = d.job(job, token=alice)
    check(mine["env"] is None and mine["env_count"] == 1 and mine["command"][0] == "sh" and
          mine["checkpoint_dir"] == os.path.join(d.data_dir, "checkpoints", str(job)),
          f"her own view: {mine}")
    check("s3cr3t" not in json.dumps(mine), f"the job's JSON carries a value: {mine}")
    status, values = d.call("GET", f"/v1/jobs/{job}/env", token=alice)
    check(status == 200 and values["env"] == {"API_KEY": "s3cr3t"}, f"her /env: {status} {values}")
    status, values = d.call("GET", f"/v1/jobs/{job}/env")
    check(status == 200 and values["env"] == {"API_KEY": "s3cr3t"}, "the admin's view")
    check("the-log-line" in log_of(d, job), "the admin reads her log")
    status, reply = d.call("POST", f"/v1/jobs/{job}/cancel")
    check(status == 200, f"the admin cancels it: {status} {reply}")
    # Ended, its listing is kept written, one text per view: listed by the admin and her
    # first, it still shows bob nothing of hers, each time.
    d.wait_state(job, "cancelled", timeout=30)
    for token, sees in (("admin", True), (alice, True), (bob, False), (bob, False), (alice, True)):
        status, listing = d.call("GET", "/v1/jobs", token=token)
        row = [j for j in listing["jobs"] if j["id"] == job]
        check(status == 200 and len(row) == 1 and row[0]["state"] == "cancelled", f"{listing}")
        check(("the-log-line" in json.dumps(row)) == sees and "s3cr3t" not in json.dumps(row) and
              row[0]["private"] is not sees,
              f"{'her or the admin' if sees else 'bob'} listed her ended job as: {row}")


def squeeze_as(h, user, squeeze, args, sock, env=None):
    """`squeeze ARGS` as Unix user `user` on the daemon's socket (no URL, no token)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("SQUEEZE_")}
    base.update(env or {})
    base["SQUEEZE_SOCKET"] = sock
    pw = pwd.getpwnam(user)
    base["HOME"] = pw.pw_dir
    return h.run(["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--init-groups",
                  squeeze] + args, env=base, cwd="/tmp")


def case_socket(squeeze, source, h):
    a, b = accounts()
    d, alice, bob = owners_daemon(squeeze, h, ["--admin-group", serve_lib.ADMIN_GROUP])
    sock = os.path.join(d.data_dir, "squeeze.sock")
    check(f"local users: unix:{sock}" in d.log_text(), f"the socket should be told:\n{d.log_text()}")
    with open(os.path.join(d.data_dir, "serve.socket")) as f:
        check(f.read().strip() == sock, "DIR/serve.socket should hold the socket's path")
    check(stat.S_ISSOCK(os.stat(sock).st_mode), f"{sock} is no socket")
    r = squeeze_as(h, ALICE, squeeze, ["submit", "--gpus", "0", "--", "id", "-u"], sock)
    check(r.returncode == 0 and "submitted job" in r.stdout, f"alice's submit: {r.stdout}{r.stderr}")
    job = int(r.stdout.split()[-1])
    d.wait_state(job, "done", timeout=30)
    check(d.job(job)["owner"] == ALICE, f"recorded as alice: {d.job(job)}")
    check(log_of(d, job).splitlines()[0] == str(a.pw_uid), "it ran as alice")
    r = squeeze_as(h, ALICE, squeeze, ["queue", "--all"], sock)
    check(r.returncode == 0 and ALICE in r.stdout, f"alice's queue: {r.stdout}{r.stderr}")
    r = squeeze_as(h, BOB, squeeze, ["logs", str(job)], sock)
    check(r.returncode != 0 and "only its owner or an admin" in r.stderr,
          f"bob reading alice's log on the socket: {r.stdout}{r.stderr}")
    # A forged token over HTTP is refused; on the socket it is checked as well.
    forged = serve_lib.random_token()
    expect_error(d, "GET", "/v1/jobs", 401, ["unknown token"], token=forged)
    r = squeeze_as(h, ALICE, squeeze, ["queue"], sock, env={"SQUEEZE_TOKEN": forged})
    check(r.returncode != 0 and "unknown token" in r.stderr, f"a forged token on the socket: {r.stderr}")
    # The admin group's member may cancel bob's job; alice may not.
    bobs = d.submit({"name": "bobs", "command": LONG, "gpus": 1}, token=bob)
    d.wait_state(bobs, "running", timeout=30)
    r = squeeze_as(h, ALICE, squeeze, ["cancel", str(bobs)], sock)
    check(r.returncode != 0 and BOB in r.stderr, f"alice cancelling bob's: {r.stdout}{r.stderr}")
    r = squeeze_as(h, CAROL, squeeze, ["cancel", str(bobs)], sock)
    check(r.returncode == 0, f"carol (group {serve_lib.ADMIN_GROUP}) cancelling: {r.stdout}{r.stderr}")
    d.wait_state(bobs, "cancelled", timeout=30)
    check(CAROL in d.job(bobs)["reason"], f"cancelled by carol: {d.job(bobs)['reason']}")
    status, me = d.call("GET", "/v1/whoami", token=alice)
    check(status == 200 and me["user"] == ALICE and not me["admin"], f"whoami: {me}")


def case_single_user(squeeze, source, h):
    a, b = accounts()
    data = h.path("alices")
    os.makedirs(data, exist_ok=True)
    os.chown(data, a.pw_uid, a.pw_gid)
    log_path = h.path("alices.log")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SQUEEZE_")}
    env["HOME"] = a.pw_dir
    with open(log_path, "wb") as out:
        proc = subprocess.Popen(["setpriv", f"--reuid={a.pw_uid}", f"--regid={a.pw_gid}",
                                 "--init-groups", squeeze, "serve", "--data", data, "--listen",
                                 "127.0.0.1:0", "--virtual-gpus", "1"],
                                stdout=out, stderr=subprocess.STDOUT, env=env)
    h.other_procs.append(proc)
    h.data_dirs.add(data)
    try:
        url = wait_until(lambda: open(os.path.join(data, "serve.url")).read().strip()
                         if os.path.exists(os.path.join(data, "serve.url")) else None,
                         30, "alice's daemon to listen")
        with open(os.path.join(data, "admin.token")) as f:
            token = f.read().strip()
        text = open(log_path).read()
        check(f"every job runs as user '{ALICE}' (the daemon's own" in text,
              f"the daemon should say whom jobs run as:\n{text}")
        status, nodes = serve_lib.http("GET", url + "/v1/nodes", token=token)
        check(status == 200 and nodes["jobs_run_as"] == ALICE, f"/v1/nodes: {nodes}")
        r = h.run([squeeze, "nodes", "--url", url, "--token", token])
        check(f"jobs: every job runs as user '{ALICE}'" in r.stdout, f"squeeze nodes:\n{r.stdout}")
        status, body = serve_lib.http("POST", url + "/v1/jobs", token=token,
                                      body={"command": ["id", "-u"]})
        check(status == 201, f"submit: {status} {body}")
        wait_until(lambda: serve_lib.http("GET", f"{url}/v1/jobs/{body['id']}", token=token)[1]
                   ["state"] == "done", 30, "the job to end")
        status, got = serve_lib.http("GET", f"{url}/v1/jobs/{body['id']}/log", token=token)
        check(got["text"].splitlines()[0] == str(a.pw_uid), f"runs as alice: {got}")
        # bob cannot even reach its socket: the directory is alice's alone.
        sock = os.path.join(data, "squeeze.sock")
        r = squeeze_as(h, BOB, squeeze, ["queue"], sock)
        check(r.returncode != 0 and "Permission denied" in r.stderr, f"bob on alice's socket: {r.stderr}")
        # A token for bob would run his jobs as alice: only with --single-user.
        def token_add(*extra):
            return h.run(["setpriv", f"--reuid={a.pw_uid}", f"--regid={a.pw_gid}", "--init-groups",
                          squeeze, "token", "add", BOB, "ml", "--data", data, *extra], env=env)
        r = token_add()
        check(r.returncode == 1 and "--single-user" in r.stderr and
              f"{BOB}'s jobs would run as {ALICE}" in r.stderr, f"token add for bob: {r.stderr}")
        r = token_add("--single-user")
        check(r.returncode == 0 and len(r.stdout.strip()) == 64, f"with --single-user: {r.stderr}")
        r = h.run([squeeze, "token", "add", "no-such-user-x9", "ml", "--data", data])
        check(r.returncode == 1 and "no Unix account 'no-such-user-x9'" in r.stderr, r.stderr)
    finally:
        proc.terminate()
        proc.wait(timeout=20)


if __name__ == "__main__":
    sys.exit(serve_lib.main({"owners": case_owners, "privacy": case_privacy,
                             "socket": case_socket, "single_user": case_single_user}, sys.argv))
