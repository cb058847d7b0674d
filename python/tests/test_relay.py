"""squeeze_checkpoint.relay with real processes: SIGUSR1 to the relay reaches the processes of
its command's tree that handle it (a Checkpointer's, under a shell that does not), and not a
process that does not handle it, nor the children of one that does; its exit status is the
command's. (With a real torchrun: test_pytorch_real.py's TorchrunTest.)"""

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# A training-like loop with a Checkpointer, and a forked child of it that only sleeps; it
# writes "ready" once both exist, then "leaving" when it exits after a requested checkpoint.
LOOP = textwrap.dedent("""
    import os, sys, time
    from squeeze_checkpoint import Checkpointer
    out = sys.argv[1]
    c = Checkpointer(state={"x": 0}, directory=os.path.join(os.path.dirname(out), "ckpt"))
    worker = os.fork()
    if worker == 0:
        time.sleep(30)
        os._exit(5)
    open(out, "w").write(f"ready {os.getpid()} {worker}")
    try:
        for step in c.steps(0, 3000):
            time.sleep(0.01)
    except SystemExit as e:
        open(out, "w").write(f"leaving {e.code}")
        os.kill(worker, 9)
        raise
""")


class RelayTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def wait_for(self, path, text, timeout=20):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                with open(path) as f:
                    if f.read().startswith(text):
                        return
            except OSError:
                pass
            time.sleep(0.05)
        self.fail(f"{path} never said {text!r}")

    def test_sigusr1_reaches_the_handlers_under_a_shell_and_nothing_else(self):
        out = os.path.join(self.tmp.name, "loop")
        bystander = os.path.join(self.tmp.name, "bystander")
        script = os.path.join(self.tmp.name, "loop.py")
        with open(script, "w") as f:
            f.write(LOOP)
        # bash runs a sleeper (no handler: SIGUSR1 would kill it) and the loop, and waits.
        shell = (f"{sys.executable} -c 'import time; open(\"{bystander}\", \"w\").write(\"up\");"
                 f" time.sleep(30)' & {sys.executable} {script} {out}; rc=$?; kill %1; wait %1;"
                 f" echo $? > {bystander}.status; exit $rc")
        relay = subprocess.Popen([sys.executable, "-m", "squeeze_checkpoint.relay", "bash", "-c",
                                  shell], env=dict(os.environ, PYTHONPATH=PYTHON_DIR),
                                 stderr=subprocess.PIPE, text=True)
        try:
            self.wait_for(out, "ready")
            self.wait_for(bystander, "up")
            with open(out) as f:
                loop, worker = map(int, f.read().split()[1:])
            from squeeze_checkpoint.relay import children_map, handlers_below
            shell_pid = children_map()[relay.pid][0]
            # The worker handles SIGUSR1 too (inherited), but sits below the loop.
            self.assertEqual(handlers_below(shell_pid, signal.SIGUSR1), [loop])
            relay.send_signal(signal.SIGUSR1)
            self.assertEqual(relay.wait(30), 0)  # the loop saved and left with exit 0
        finally:
            if relay.poll() is None:
                relay.kill()
            self.addCleanup(relay.stderr.close)
        with open(out) as f:
            self.assertEqual(f.read(), "leaving 0")
        with open(bystander + ".status") as f:
            self.assertEqual(f.read().strip(), str(128 + signal.SIGTERM))  # not SIGUSR1's 138
        self.assertIn(f"SIGUSR1 passed on to {loop}\n", relay.stderr.read())

    def test_the_exit_status_is_the_commands(self):
        env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
        r = subprocess.run([sys.executable, "-m", "squeeze_checkpoint.relay", "--", "bash", "-c",
                            "exit 7"], env=env, timeout=30)  # "--" before the command is allowed
        self.assertEqual(r.returncode, 7)
        r = subprocess.run([sys.executable, "-m", "squeeze_checkpoint.relay", "bash", "-c",
                            "kill -TERM $$"], env=env, timeout=30)
        self.assertEqual(r.returncode, 128 + signal.SIGTERM)
        r = subprocess.run([sys.executable, "-m", "squeeze_checkpoint.relay", "no-such-cmd-x"],
                           env=env, timeout=30, capture_output=True, text=True)
        self.assertEqual(r.returncode, 127)
        self.assertIn("cannot start no-such-cmd-x", r.stderr)

    def test_nothing_to_pass_it_to_is_said_and_survived(self):
        env = dict(os.environ, PYTHONPATH=PYTHON_DIR)
        relay = subprocess.Popen([sys.executable, "-m", "squeeze_checkpoint.relay", "sleep", "2"],
                                 env=env, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        relay.send_signal(signal.SIGUSR1)
        self.assertEqual(relay.wait(30), 0)  # sleep was not killed by a SIGUSR1
        self.assertIn("no process under sleep", relay.stderr.read())
        relay.stderr.close()


if __name__ == "__main__":
    unittest.main()
