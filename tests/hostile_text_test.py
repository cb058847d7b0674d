#!/usr/bin/env python3
"""Safe text on a shared server (issue 34, point 5; label serve, hostile): what one user writes
never draws on another's terminal, no private field reaches another user through a reason,
and text that is not UTF-8 is answered with U+FFFD, never a 500. A root daemon with the test
accounts (the CTest fixture test_accounts: tests/test_accounts.sh); skipped (77) without them.

    python3 tests/hostile_text_test.py CASE SQUEEZE SOURCE_DIR WORK_DIR

Cases:
  text_refused   sqz-bob's job named, -o-pathed or #SBATCH-pathed with ESC or CR is refused
                 (the CLI on the socket, and JSON over HTTP), the message naming the field and
                 showing the value escaped; nothing is stored; a tab and a newline in a
                 python -c program are kept
  text_private   a run of bob's that fails on a private path (its -o file's folder is
                 missing), and a checkpoint marker holding a secret: sqz-alice's queue, show,
                 why and GET /v1/jobs hold neither; bob's own show and why do
  text_old_rows  a store row an older squeeze might have left (control characters and bytes
                 that are not UTF-8 written straight into the SQLite file) prints escaped in
                 queue, show and history, and the API answers 200 with U+FFFD
  text_logs      a log and a marker that are not UTF-8: `logs` and `show` answer (200), with
                 U+FFFD
"""

import json
import os
import pwd
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_lib  # noqa: E402
from serve_lib import ALICE, BOB, check, expect_error, log, wait_until  # noqa: E402
from serve_users_test import accounts, owners_daemon  # noqa: E402

ESC = "\x1b"
REPLACEMENT = "\ufffd"


def squeeze_as(h, user, squeeze, args, sock):
    """`squeeze ARGS` as Unix user `user` on the daemon's socket; (exit code, stdout bytes,
    stderr bytes), kept as bytes so that what reaches a terminal is checked byte for byte."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SQUEEZE_")}
    pw = pwd.getpwnam(user)
    env.update({"SQUEEZE_SOCKET": sock, "HOME": pw.pw_dir})
    proc = subprocess.run(["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}",
                           "--init-groups", squeeze] + args, env=env, cwd="/tmp",
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    return proc.returncode, proc.stdout, proc.stderr


def terminal_safe(what, raw):
    """`raw` (bytes a command printed) holds no control but newlines and no broken UTF-8;
    returns it as text."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise serve_lib.TestFailure(f"{what} printed bytes that are not UTF-8 ({e}): {raw!r}")
    bad = [c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f]
    check(not bad, f"{what} printed control characters {bad!r} to the terminal: {raw!r}")
    return text


def socket_of(d):
    return os.path.join(d.data_dir, "squeeze.sock")


def case_refused(squeeze, source, h):
    accounts()
    d, alice, bob = owners_daemon(squeeze, h)
    sock = socket_of(d)
    attacks = [
        (["--name", ESC + "[2Jhi"], "--name", "'\\x1b[2Jhi' holds a control character (\\x1b)"),
        (["-o", f"/tmp/out\r{ESC}[1A12  fake  {ALICE}  running"], "--output",
         "holds a control character (\\r)"),
        (["--team", "ml" + ESC], "--team", "holds a control character (\\x1b)"),
        (["--dependency", "afterok:1\r"], "--dependency", "holds a control character (\\r)"),
        (["--array", "0-3\x9b"], "--array", "holds a control character"),
    ]
    for flags, field, words in attacks:
        code, out, err = squeeze_as(h, BOB, squeeze, ["submit"] + flags + ["--", "true"], sock)
        text = terminal_safe(f"the refusal of {flags!r}", err)
        check(code != 0 and field in text and words in text,
              f"bob's submit {flags!r} should be refused naming {field}: {code} {text}")
    # A batch script's directive: refused with its line.
    fd, script = tempfile.mkstemp(suffix=".sbatch", dir="/tmp")
    with os.fdopen(fd, "w") as f:
        f.write(f"#!/bin/bash\n#SBATCH -J fine\n#SBATCH -o /tmp/x{ESC}]0;owned\x07.log\n"
                "echo hi\n")
    os.chmod(script, 0o644)
    try:
        code, out, err = squeeze_as(h, BOB, squeeze, ["submit", script], sock)
        text = terminal_safe("the refusal of a batch script", err)
        check(code != 0 and f"{script}:3: #SBATCH -o" in text and "\\x1b]0;owned\\x07" in text,
              f"the script's -o line should be refused with its line: {code} {text}")
    finally:
        os.remove(script)
    # JSON over HTTP: 400, the error naming the field; the JSON escapes it, the value is shown.
    for field, value in (("name", ESC + "[31mred"), ("output", "/tmp/a\rb"),
                         ("workdir", "/tmp/\x7f"), ("regions", ["eu" + ESC])):
        expect_error(d, "POST", "/v1/jobs", 400, [field, "control character"],
                     body={"command": ["true"], field: value}, token=bob)
    expect_error(d, "POST", "/v1/jobs", 400, ["not utf-8"],
                 raw=b'{"command": ["true"], "name": "a\xc0\xafb"}', token=bob)
    check(d.jobs(token=bob) == [], f"a refused job was stored: {d.jobs(token=bob)}")
    # What a program legitimately holds (a python -c with a tab and a newline) is kept.
    program = "import sys\nfor a in ['x']:\n\tprint('ok', a)"
    code, out, err = squeeze_as(h, BOB, squeeze, ["submit", "--gpus", "0", "--", "python3", "-c",
                                                  program], sock)
    check(code == 0, f"a python -c program with a tab and a newline: {err!r}")
    job = int(out.split()[-1])
    d.wait_state(job, "done", timeout=60)
    check(d.job(job, token=bob)["command"][2] == program, "the program as given")
    code, out, err = squeeze_as(h, BOB, squeeze, ["show", str(job)], sock)
    text = terminal_safe("bob's show of his python -c", out)
    check("\\n\\tprint" in text, f"show prints its newline and tab escaped: {text}")


def case_private(squeeze, source, h):
    accounts()
    d, alice, bob = owners_daemon(squeeze, h)
    sock = socket_of(d)
    hidden = f"/home/{BOB}/secret-project-x9/missing/out.txt"
    failed = d.submit({"name": "train", "command": ["true"], "gpus": 0, "output": hidden,
                       "max_retries": 0},
                      token=bob)
    d.wait_state(failed, "failed", timeout=60)
    marker = d.submit({"name": "saves", "gpus": 0, "checkpointable": True, "command": [
        "bash", "-c", 'echo "token-4b1d-secret" > "$SQUEEZE_CHECKPOINT_DIR/COMPLETE.tmp" && '
                      'mv "$SQUEEZE_CHECKPOINT_DIR/COMPLETE.tmp" "$SQUEEZE_CHECKPOINT_DIR/COMPLETE"'
                      '; sleep 3']}, token=bob)
    d.wait_job(marker, lambda j: j["last_checkpoint"], 60, "to checkpoint")
    d.wait_state(marker, "done", timeout=60)
    secrets = ("secret-project-x9", "token-4b1d-secret")

    def none_in(what, text):
        for s in secrets:
            check(s not in text, f"{what} shows bob's private {s!r}:\n{text}")

    for args in (["queue", "--all"], ["history"], ["show", str(failed)], ["why", str(failed)],
                 ["show", str(marker)]):
        code, out, err = squeeze_as(h, ALICE, squeeze, args, sock)
        text = terminal_safe(f"alice's {args}", out)
        check(code == 0, f"alice's {args}: {err!r}")
        none_in(f"alice's squeeze {' '.join(args)}", text)
    code, out, _ = squeeze_as(h, ALICE, squeeze, ["show", str(failed)], sock)
    check("the output file could not be opened (exit 127)" in out.decode(),
          f"alice is told which step failed: {out.decode()}")
    for path in ("/v1/jobs?state=failed,done", f"/v1/jobs/{failed}", f"/v1/jobs/{failed}/why",
                 f"/v1/jobs/{marker}"):
        status, body = d.call("GET", path, token=alice)
        check(status == 200, f"alice's GET {path}: {status} {body}")
        none_in(f"alice's GET {path}", json.dumps(body))
    # bob (and an admin) are told all of it.
    code, out, _ = squeeze_as(h, BOB, squeeze, ["show", str(failed)], sock)
    text = terminal_safe("bob's show", out)
    check(f"cannot open the output file '{hidden}'" in text, f"bob's own show: {text}")
    code, out, _ = squeeze_as(h, BOB, squeeze, ["why", str(failed)], sock)
    check(hidden in out.decode(), f"bob's own why: {out.decode()}")
    code, out, _ = squeeze_as(h, BOB, squeeze, ["show", str(marker)], sock)
    check("checkpoint saved: token-4b1d-secret" in out.decode(), f"bob's marker: {out.decode()}")
    check(hidden in d.job(failed)["reason"], f"the admin's view: {d.job(failed)['reason']}")


def case_old_rows(squeeze, source, h):
    accounts()
    d, alice, bob = owners_daemon(squeeze, h)
    sock = socket_of(d)
    job = d.submit({"name": "plain", "command": ["true"], "gpus": 0}, token=bob)
    d.wait_state(job, "done", timeout=60)
    d.stop()
    # As an older squeeze (no check at the time) or a hand might have left it.
    db = sqlite3.connect(os.path.join(d.data_dir, "squeeze.db"))
    with db:
        request = json.loads(db.execute("SELECT request FROM jobs WHERE id=?", (job,)).fetchone()[0])
        request["spec"]["name"] = ESC + "[2J" + ESC + "[31mevil\r"
        db.execute("UPDATE jobs SET request=?, reason=CAST(? AS TEXT) WHERE id=?",
                   (json.dumps(request), b"\x1b[1A\rfake row \xff\xfe", job))
        db.execute("UPDATE events SET text=CAST(? AS TEXT) WHERE job_id=?",
                   (b"\x1b]0;title\x07 \xc0\xaf", job))
    db.close()
    d.start()
    for user in (ALICE, BOB):
        for args in (["queue", "--all"], ["show", str(job)], ["history"], ["why", str(job)]):
            code, out, err = squeeze_as(h, user, squeeze, args, sock)
            check(code == 0, f"{user}'s {args} of the old row: {err!r}")
            text = terminal_safe(f"{user}'s squeeze {' '.join(args)} of the old row", out)
            if args[0] in ("queue", "show"):
                check("\\x1b[2J\\x1b[31mevil\\r" in text, f"the name escaped: {text}")
            if args[0] in ("show", "why"):
                check("\\x1b[1A\\rfake row " + REPLACEMENT * 2 in text, f"the reason: {text}")
    for path in ("/v1/jobs?state=done", f"/v1/jobs/{job}"):
        status, body = d.call("GET", path, token=alice)
        check(status == 200, f"GET {path} of the old row: {status} {body}")
        check(REPLACEMENT in json.dumps(body, ensure_ascii=False), f"U+FFFD in {body}")


def case_logs(squeeze, source, h):
    accounts()
    d, alice, bob = owners_daemon(squeeze, h)
    sock = socket_of(d)
    job = d.submit({"name": "bytes", "gpus": 0, "checkpointable": True, "command": [
        "bash", "-c", r"printf 'before \377\376 after\n'; printf 'step \376\n' > "
                      r'"$SQUEEZE_CHECKPOINT_DIR/COMPLETE.tmp" && mv "$SQUEEZE_CHECKPOINT_DIR/'
                      r'COMPLETE.tmp" "$SQUEEZE_CHECKPOINT_DIR/COMPLETE"; sleep 3']}, token=bob)
    d.wait_job(job, lambda j: j["last_checkpoint"], 60, "to checkpoint")
    d.wait_state(job, "done", timeout=60)
    status, body = d.call("GET", f"/v1/jobs/{job}/log", token=bob)
    check(status == 200 and f"before {REPLACEMENT}{REPLACEMENT} after" in body["text"],
          f"GET its log: {status} {body}")
    check(body["next_from_byte"] == body["size"], f"next_from_byte: {body}")
    code, out, err = squeeze_as(h, BOB, squeeze, ["logs", str(job)], sock)
    check(code == 0 and f"before {REPLACEMENT}{REPLACEMENT} after".encode() in out,
          f"squeeze logs: {code} {out!r} {err!r}")
    code, out, err = squeeze_as(h, BOB, squeeze, ["logs", "-f", str(job)], sock)
    check(code == 0 and out.count(b"after") == 1, f"squeeze logs -f: {code} {out!r} {err!r}")
    for token in (bob, "admin"):
        status, one = d.call("GET", f"/v1/jobs/{job}", token=token)
        check(status == 200, f"GET the job with a marker that is not UTF-8: {status} {one}")
        texts = [e["text"] for e in one["history"] if e["kind"] == "checkpoint"]
        check(texts and f"step {REPLACEMENT}" in texts[0], f"its checkpoint event: {texts}")
    code, out, err = squeeze_as(h, BOB, squeeze, ["show", str(job)], sock)
    terminal_safe("bob's show of a marker that is not UTF-8", out)
    check(code == 0, f"squeeze show: {err!r}")
    log("every answer was 200, with U+FFFD")


if __name__ == "__main__":
    sys.exit(serve_lib.main({"text_refused": case_refused, "text_private": case_private,
                             "text_old_rows": case_old_rows, "text_logs": case_logs}, sys.argv))
