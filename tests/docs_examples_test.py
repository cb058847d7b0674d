"""Runs the command examples of README.md and docs/*.md, so the documentation cannot drift.

    python3 tests/docs_examples_test.py --squeeze BUILD/squeeze [--source DIR] [--shared DIR]
                                        [--work DIR] [--only docs/x.md]... [--keep-going]
                                        [--slurm]

The convention (docs/README.md, "Writing examples"): a fenced block tagged ```console is an
example. Its lines that start with `$ ` are commands (a trailing backslash continues one onto
the next line); every other line is expected output: each one that is not blank and not `...`
must appear in the command's output (stdout and stderr together), in order, with runs of
spaces counted as one, and `...` inside a line matching anything. Every command must exit 0.

HTML comments right before a fence, `<!-- docs-test: DIRECTIVE [ARGS] -->` (several may
follow each other, or be joined with ` ; `), change how the block is checked:

    skip REASON      do not run it (a real GPU, Kubernetes, apt-get); printed and counted
    slurm            it needs the Slurm test clusters (scripts/slurm-clusters.sh): run only with
                     --slurm (CTest's docs.slurm_examples, under the clusters' fixture), which
                     runs only such blocks
    fail             every command of the block must exit non-zero
    timeout SECONDS  per command (default 60)
    serve ARGS...    start `squeeze serve --data DIR ARGS` for the rest of the file and export
                     SQUEEZE_URL, SQUEEZE_TOKEN and SQUEEZE_DATA to the commands
    as USER          run the block's commands as root, or as one of the test accounts
                     (tests/test_accounts.sh): a shared server's administrator and its users;
                     only when the test runs as root, else the block is skipped
    file PATH        (any block) its text must appear, line for line, in the repository's PATH
    write PATH       (any block) write its text to PATH in the working directory, for later
                     blocks of the same file

The examples of one file run in order in one fresh working directory that looks like the
repository: `build` is the folder of --squeeze (so `build/squeeze` and a bare `squeeze` both
run it), examples/, tests/, scripts/, docs/ are links to the source's, out/ is empty, and
`../shared` is the shared traces. HOME is a fresh folder (so `~/.squeeze` is a new one), and
`export`s and `cd`s carry over from one command to the next. A command ending in `&` runs in
the background (its output goes to bg-N.log) until the file is done; when it has `--data DIR`
the test waits for DIR/serve.url. A block whose commands read ../shared is skipped when the
shared traces are missing.

Run as root, every command runs as the unprivileged account sqz-docs (made by
tests/test_accounts.sh), as a user reading the docs would type it: a daemon it starts runs
every job as that user. Without the account, as root, the test skips (77).

The extractor is unit-tested first (broken documents must give an error naming file and line).
Exit status: 0 when every example that ran passed, 1 otherwise.
"""

import argparse
import glob
import os
import pwd
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree for docs_extract
from docs_extract import DocError, contains_lines, extract, match_expected

DEFAULT_TIMEOUT = 60


DOCS_USER = "sqz-docs"  # tests/test_accounts.sh makes it


class Runner:
    def __init__(self, args):
        self.squeeze = os.path.abspath(args.squeeze)
        self.source = os.path.abspath(args.source)
        self.shared = os.path.abspath(args.shared or os.path.join(self.source, "..", "shared"))
        self.work_root = args.work
        self.keep_going = args.keep_going
        self.run = 0
        self.passed = 0
        self.commands = 0
        self.skipped = []
        self.deferred = []  # Slurm blocks, run by --slurm
        self.slurm = args.slurm
        self.failures = []
        # As root: the commands run as this account (DOCS_USER), through setpriv.
        self.user = None
        self.as_user = []
        if os.geteuid() == 0:
            self.user = pwd.getpwnam(DOCS_USER)
            self.as_user = ["setpriv", f"--reuid={self.user.pw_uid}",
                            f"--regid={self.user.pw_gid}", "--init-groups"]

    def as_account(self, name):
        """The prefix that runs a command as `name` (root: none)."""
        if name == "root":
            return []
        pw = pwd.getpwnam(name)
        return ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--init-groups"]

    def give(self, path):
        """`path` (and what is under it) to the account the commands run as."""
        if self.user is not None:
            subprocess.run(["chown", "-R", "-h", f"{self.user.pw_uid}:{self.user.pw_gid}", path],
                           check=True)

    def setup_dir(self, name):
        root = os.path.join(self.work_root, re.sub(r"[^A-Za-z0-9_.-]", "_", name))
        shutil.rmtree(root, ignore_errors=True)
        repo = os.path.join(root, "repo")
        os.makedirs(repo)
        os.makedirs(os.path.join(root, "home"))
        os.makedirs(os.path.join(repo, "out"))
        if os.path.isdir(self.shared):
            os.symlink(self.shared, os.path.join(root, "shared"))
        for entry in os.listdir(self.source):
            if entry in ("build", "out", ".git") or entry.startswith("build-"):
                continue
            if entry == "python":  # pip may write beside the source (__pycache__): a copy
                shutil.copytree(os.path.join(self.source, entry), os.path.join(repo, entry),
                                ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
                continue
            os.symlink(os.path.join(self.source, entry), os.path.join(repo, entry))
        os.symlink(os.path.dirname(self.squeeze), os.path.join(repo, "build"))
        return root, repo

    def run_file(self, path, blocks):
        rel = os.path.relpath(path, self.source)
        root, repo = self.setup_dir(rel)
        env = {k: v for k, v in os.environ.items() if not k.startswith("SQUEEZE_")}
        env["HOME"] = os.path.join(root, "home")
        # `python3` in an example is the Python this test runs on (Debian's, as CMake chose it),
        # whatever other one is first on PATH.
        own_bin = os.path.join(root, "bin")
        os.makedirs(own_bin, exist_ok=True)
        os.symlink(sys.executable, os.path.join(own_bin, "python3"))
        env["PATH"] = os.pathsep.join([os.path.join(repo, "build"), own_bin, env.get("PATH", "")])
        env["LC_ALL"] = "C.UTF-8"
        if self.user is not None:
            env["USER"] = env["LOGNAME"] = self.user.pw_name
        state = {"env_file": os.path.join(root, "env.sh"), "cwd_file": os.path.join(root, "cwd"),
                 "bg": [], "root": root, "repo": repo, "env": env}
        with open(state["env_file"], "w"):
            pass
        with open(state["cwd_file"], "w") as f:
            f.write(repo)
        self.give(root)
        # Blocks may run as other accounts ("as"): they all carry the exports and the cwd on.
        os.chmod(state["env_file"], 0o666)
        os.chmod(state["cwd_file"], 0o666)
        state["as_user"] = self.as_user
        try:
            for block in blocks:
                if not self.run_block(rel, block, state) and not self.keep_going:
                    return False
        finally:
            for p in state["bg"]:
                stop(p)
            kill_leftovers(root)
        return True

    def run_block(self, rel, block, state):
        where = f"{rel}:{block.line}"
        want = block.directive("file")
        if want is not None:
            self.run += 1
            target = os.path.join(self.source, want)
            try:
                with open(target, encoding="utf-8") as f:
                    text = f.read()
            except OSError as e:
                return self.fail(where, f"docs-test: file {want}: {e}")
            if not contains_lines(text.split("\n"), block.body):
                return self.fail(where, f"the block is not (a part of) {want} line for line; "
                                        f"copy the file's text into the doc again")
            self.passed += 1
        dest = block.directive("write")
        if dest is not None:
            full = os.path.join(state["repo"], dest)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write("\n".join(block.body) + "\n")
            self.give(full)
        if block.lang != "console":
            return True
        if (block.directive("slurm") is not None) != self.slurm:
            if not self.slurm:
                self.deferred.append(where)
            return True
        reason = block.directive("skip")
        if reason is not None:
            self.skipped.append((where, reason))
            return True
        if not os.path.isdir(self.shared) and any("../shared" in c.text for c in block.commands):
            self.skipped.append((where, f"the shared traces are missing ({self.shared})"))
            return True
        who = block.directive("as")
        if who is not None and self.user is None:
            self.skipped.append((where, f"runs as {who}: only when the test runs as root"))
            return True
        state["as_user"] = self.as_account(who) if who is not None else self.as_user
        serve = block.directive("serve")
        if serve is not None:
            err = self.start_daemon(serve, state)
            if err:
                self.run += 1
                return self.fail(where, err)
        timeout = int(block.directive("timeout") or DEFAULT_TIMEOUT)
        expect_fail = block.directive("fail") is not None
        self.run += 1
        for cmd in block.commands:
            self.commands += 1
            if cmd.text.rstrip().endswith("&") and not cmd.text.rstrip().endswith("&&"):
                self.start_background(cmd, state)
                continue
            rc, out = run_shell(cmd.text, state, timeout)
            cwhere = f"{rel}:{cmd.line}"
            if rc is None:
                return self.fail(cwhere, f"$ {cmd.text}\ntimed out after {timeout} s\n{out}")
            if expect_fail and rc == 0:
                return self.fail(cwhere, f"$ {cmd.text}\nexited 0 but the block says it fails\n{out}")
            if not expect_fail and rc != 0:
                return self.fail(cwhere, f"$ {cmd.text}\nexited {rc}\n{out}")
            missing = match_expected(cmd.expected, out)
            if missing is not None:
                return self.fail(cwhere, f"$ {cmd.text}\nexpected (in order) the line\n    "
                                         f"{missing.strip()}\nbut the output was:\n{out}")
        self.passed += 1
        return True

    def start_background(self, cmd, state):
        n = len(state["bg"])
        log = open(os.path.join(state["root"], f"bg-{n}.log"), "w")
        text = cmd.text.rstrip()[:-1]
        p = subprocess.Popen(state["as_user"] + ["bash", "-c", wrap(text, state, save=False)],
                             stdout=log,
                             stderr=subprocess.STDOUT, env=state["env"], start_new_session=True)
        state["bg"].append(p)
        m = re.search(r"--data[ =](\S+)", text)
        if m:
            data = os.path.expanduser(m.group(1).replace("~", state["env"]["HOME"], 1))
            if not os.path.isabs(data):
                data = os.path.join(state["repo"], data)
            wait_for(os.path.join(data, "serve.url"), p)
        else:
            time.sleep(0.5)

    def start_daemon(self, args, state):
        data = os.path.join(state["root"], f"serve-{len(state['bg'])}")
        argv = [os.path.join(state["repo"], "build", "squeeze"), "serve", "--data", data,
                "--listen", "127.0.0.1:0"] + shlex.split(args)
        log = open(data + ".log", "w")
        p = subprocess.Popen(state["as_user"] + argv, stdout=log, stderr=subprocess.STDOUT,
                             cwd=state["repo"],
                             env=state["env"], start_new_session=True)
        state["bg"].append(p)
        if not wait_for(os.path.join(data, "serve.url"), p):
            with open(data + ".log") as f:
                return f"docs-test: serve {args}: the daemon did not start:\n{f.read()}"
        with open(os.path.join(data, "serve.url")) as f:
            url = f.read().strip()
        with open(os.path.join(data, "admin.token")) as f:
            token = f.read().strip()
        with open(state["env_file"], "a") as f:
            f.write(f"export SQUEEZE_URL={shlex.quote(url)} SQUEEZE_TOKEN={shlex.quote(token)} "
                    f"SQUEEZE_DATA={shlex.quote(data)}\n")
        return None

    def fail(self, where, message):
        self.failures.append((where, message))
        print(f"FAIL {where}\n{indent(message)}", flush=True)
        return False


def wrap(text, state, save=True):
    script = (f'set -a; . {shlex.quote(state["env_file"])}; set +a\n'
              f'cd "$(cat {shlex.quote(state["cwd_file"])})"\n'
              f'{text}\n')
    if save:
        script += (f'__rc=$?; export -p > {shlex.quote(state["env_file"])}; '
                   f'pwd > {shlex.quote(state["cwd_file"])}; exit $__rc\n')
    return script


def run_shell(text, state, timeout):
    p = subprocess.Popen(state["as_user"] + ["bash", "-c", wrap(text, state)],
                         stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=state["env"],
                         start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        stop(p)
        out, _ = p.communicate()
        return None, out.decode("utf-8", "replace")


def wait_for(path, p, seconds=15):
    end = time.time() + seconds
    while time.time() < end:
        if os.path.exists(path) and os.path.getsize(path) > 0:
            return True
        if p.poll() is not None:
            return False
        time.sleep(0.05)
    return False


def stop(p):
    if p.poll() is not None:
        return
    try:
        os.killpg(p.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def kill_leftovers(root):
    """Kills what the daemons of one file left running (a stopped daemon leaves its jobs to be
    taken back at its next start): supervisors of a data directory under `root`, and processes
    whose SQUEEZE_CHECKPOINT_DIR is under it. Only processes of this file's daemons match."""
    root = os.path.realpath(root)
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            with open(f"/proc/{pid}/environ", "rb") as f:
                environ = f.read().split(b"\0")
        except OSError:
            continue
        mine = (argv and argv[0].endswith(b"squeeze-supervisor") and len(argv) > 1
                and os.path.realpath(argv[1].decode(errors="replace")).startswith(root + "/"))
        for e in environ:
            if e.startswith(b"SQUEEZE_CHECKPOINT_DIR="):
                d = os.path.realpath(e.split(b"=", 1)[1].decode(errors="replace"))
                mine = mine or d.startswith(root + "/")
        if mine:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass


def indent(text):
    return "\n".join("    " + l for l in text.rstrip().split("\n"))


def doc_files(source):
    files = [os.path.join(source, "README.md")]
    files += sorted(glob.glob(os.path.join(source, "docs", "*.md")))
    return [f for f in files if os.path.isfile(f)]


class ExtractorTest(unittest.TestCase):
    def test_commands_output_and_continuations(self):
        text = ("intro\n<!-- docs-test: timeout 5 -->\n```console\n$ echo a \\\n  b\na b\n...\n"
                "$ true\n```\n```yaml\nx: 1\n```\n")
        blocks = extract("d.md", text)
        self.assertEqual(len(blocks), 2)
        b = blocks[0]
        self.assertEqual((b.line, b.lang, b.directive("timeout")), (3, "console", "5"))
        self.assertEqual([c.text for c in b.commands], ["echo a \\\n  b", "true"])
        self.assertEqual(b.commands[0].expected, ["a b", "..."])
        self.assertEqual(b.commands[0].line, 4)

    def test_unterminated_fence(self):
        with self.assertRaisesRegex(DocError, r"^d\.md:2: .*never closed"):
            extract("d.md", "text\n```console\n$ true\n")

    def test_console_block_without_commands(self):
        with self.assertRaisesRegex(DocError, r"^d\.md:3: a ```console block with no"):
            extract("d.md", "a\n\n```console\njust output\n```\n")

    def test_unknown_directive_and_stray_directive(self):
        with self.assertRaisesRegex(DocError, r"^d\.md:1: unknown docs-test directive 'skp'"):
            extract("d.md", "<!-- docs-test: skp no -->\n```console\n$ true\n```\n")
        with self.assertRaisesRegex(DocError, r"^d\.md:1: a docs-test directive must come"):
            extract("d.md", "<!-- docs-test: fail -->\ntext\n```console\n$ false\n```\n")

    def test_matching(self):
        out = "policy   jobs\nfifo     20    6840\nsqueeze  20   1360\n"
        self.assertIsNone(match_expected(["fifo 20 ...", "...", "squeeze 20 1360"], out))
        self.assertEqual(match_expected(["squeeze 20 1360", "fifo 20 6840"], out),
                         "fifo 20 6840")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--squeeze", required=True, help="the squeeze binary (build/squeeze)")
    ap.add_argument("--source", default=os.path.dirname(here), help="the repository root")
    ap.add_argument("--shared", help="the shared traces folder (default SOURCE/../shared)")
    ap.add_argument("--work", help="where to make the working directories (default: a temp dir)")
    ap.add_argument("--only", action="append", help="run only this doc (repeatable)")
    ap.add_argument("--keep-going", action="store_true", help="go on after a failure")
    ap.add_argument("--slurm", action="store_true",
                    help="run only the blocks marked 'docs-test: slurm' (the Slurm test clusters "
                         "must be up: exit 77 otherwise)")
    args = ap.parse_args()

    suite = unittest.defaultTestLoader.loadTestsFromTestCase(ExtractorTest)
    if not unittest.TextTestRunner(verbosity=0).run(suite).wasSuccessful():
        return 1

    if args.slurm and not slurm_clusters_up():
        print("the Slurm test clusters are not up (scripts/slurm-clusters.sh start, as root): "
              "skipped")
        return 77
    files = doc_files(os.path.abspath(args.source))
    if args.only:
        wanted = {os.path.abspath(os.path.join(args.source, o)) for o in args.only}
        files = [f for f in files if os.path.abspath(f) in wanted]
    parsed = []
    for f in files:
        with open(f, encoding="utf-8") as fh:
            try:
                parsed.append((f, extract(os.path.relpath(f, args.source), fh.read())))
            except DocError as e:
                print(f"FAIL {e}")
                return 1
    made = args.work is None
    args.work = args.work or tempfile.mkdtemp(prefix="squeeze-docs-")
    os.makedirs(args.work, exist_ok=True)
    if os.geteuid() == 0:
        try:
            pwd.getpwnam(DOCS_USER)
        except KeyError:
            print(f"SKIP: run as root, the examples run as {DOCS_USER}, which does not exist "
                  f"(bash tests/test_accounts.sh create)")
            return 77
        subprocess.run(["chmod", "a+rx", args.work], check=True)
    runner = Runner(args)
    started = time.time()
    try:
        for f, blocks in parsed:
            t = time.time()
            ok = runner.run_file(f, blocks)
            n = sum(1 for b in blocks if b.lang == "console")
            print(f"{os.path.relpath(f, args.source)}: {n} console block(s) "
                  f"({time.time() - t:.1f} s){'' if ok else ' FAILED'}", flush=True)
            if not ok and not args.keep_going:
                break
    finally:
        if made and not runner.failures:
            shutil.rmtree(args.work, ignore_errors=True)
    print(f"\n{runner.run} examples run ({runner.commands} commands), {runner.passed} passed, "
          f"{len(runner.failures)} failed, {len(runner.skipped)} skipped "
          f"in {time.time() - started:.0f} s")
    for where, reason in runner.skipped:
        print(f"  skipped {where}: {reason}")
    if runner.deferred:
        print(f"  {len(runner.deferred)} Slurm block(s) left to --slurm (docs.slurm_examples): "
              f"{', '.join(runner.deferred)}")
    if runner.failures:
        print(f"failed: {', '.join(w for w, _ in runner.failures)} (work dir {args.work})")
    return 1 if runner.failures else 0


def slurm_clusters_up():
    """True when the `east` test cluster answers sinfo."""
    conf = "/tmp/squeeze-slurm/east/etc/slurm.conf"
    if not os.path.isfile(conf) or shutil.which("sinfo") is None:
        return False
    r = subprocess.run(["sinfo", "-h"], env=dict(os.environ, SLURM_CONF=conf),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
    return r.returncode == 0


if __name__ == "__main__":
    sys.exit(main())
