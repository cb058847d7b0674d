"""Unit tests of squeeze_checkpoint.Checkpointer (standard library only).

    python3 -m unittest discover -s python/tests -t python -v
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
from unittest import mock

import squeeze_checkpoint
from squeeze_checkpoint import Checkpointer, CheckpointError
from squeeze_checkpoint import marker as marker_module

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(PYTHON_DIR)


class FakeClock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = os.path.join(self.tmp.name, "ckpt")
        self.logs = []
        self.made = []

    def tearDown(self):
        for c in reversed(self.made):  # each puts back the handler before it
            c.requests.uninstall()
        self.tmp.cleanup()

    def env(self, resume=False, **more):
        e = {"SQUEEZE_CHECKPOINT_DIR": self.dir, "SQUEEZE_ATTEMPT": "1"}
        if resume:
            e["SQUEEZE_RESUME"] = "1"
        e.update(more)
        return e

    def make(self, state, resume=False, environ=None, **kw):
        c = Checkpointer(state=state, environ=environ if environ is not None else self.env(resume),
                         log=self.logs.append, **kw)
        self.made.append(c)
        return c

    def marker(self):
        with open(os.path.join(self.dir, "COMPLETE")) as f:
            return json.loads(f.read())


class ResumeTest(Base):
    def test_first_run_starts_at_default_and_loads_nothing(self):
        loads = []
        c = Checkpointer(save=lambda p: None, load=loads.append, environ=self.env(),
                         log=self.logs.append)
        self.made.append(c)
        self.assertFalse(c.resuming)
        self.assertEqual(c.resume(default=5), 5)
        self.assertEqual(loads, [])

    def test_a_checkpoint_without_squeeze_resume_is_not_loaded(self):
        self.make({"x": 1}).save(3)
        state = {"x": 0}
        self.assertEqual(self.make(state).resume(default=0), 0)
        self.assertEqual(state, {"x": 0})

    def test_squeeze_resume_without_a_checkpoint_names_the_marker(self):
        c = self.make({"x": 0}, resume=True)
        with self.assertRaises(CheckpointError) as e:
            c.resume()
        self.assertIn(os.path.join(self.dir, "COMPLETE"), str(e.exception))
        self.assertIn("SQUEEZE_RESUME", str(e.exception))

    def test_outside_squeeze_without_a_directory_nothing_is_saved(self):
        c = self.make({"x": 0}, environ={"SQUEEZE_RESUME": "1"})
        self.assertFalse(c.resuming)
        self.assertEqual(c.resume(default=0), 0)
        self.assertIsNone(c.save(4))
        self.assertFalse(os.path.exists(self.dir))

    def test_directory_argument_is_used_outside_squeeze(self):
        c = self.make({"x": 7}, environ={}, directory=self.dir)
        c.save(2)
        self.assertEqual(self.marker()["step"], 2)

    def test_save_then_resume_restores_state_and_step(self):
        state = {"x": 0, "history": []}
        c = self.make(state)
        for step in c.steps(c.resume(), 10):
            state["x"] += step
            state["history"].append(step)
            if step == 5:
                c.save(step + 1)
        restored = {"x": -1}
        r = self.make(restored, resume=True)
        self.assertTrue(r.resuming)
        self.assertEqual(r.resume(), 6)
        self.assertEqual(restored, {"x": 15, "history": [0, 1, 2, 3, 4, 5]})
        self.assertTrue(any("resumed from" in line and "at step 6" in line for line in self.logs))


class AtomicSaveTest(Base):
    def test_marker_changes_with_every_save_and_old_data_goes(self):
        c = self.make({"x": 1})
        c.save(4)
        first = self.marker()
        c.save(4)  # the same step again: squeeze must still see a new marker
        second = self.marker()
        self.assertNotEqual(first, second)
        self.assertEqual((first["seq"], second["seq"]), (1, 2))
        self.assertEqual(sorted(os.listdir(self.dir)), ["COMPLETE", second["path"]])

    def test_seq_continues_across_runs(self):
        self.make({"x": 1}).save(1)
        c = self.make({"x": 1}, resume=True)
        c.resume()
        c.save(2)
        self.assertEqual(self.marker()["seq"], 2)

    def test_crash_between_the_tmp_write_and_the_rename_keeps_the_old_checkpoint(self):
        child = textwrap.dedent(f"""
            import os, sys
            sys.path.insert(0, {PYTHON_DIR!r})
            from squeeze_checkpoint import Checkpointer
            state = {{"x": 0}}
            crash = []
            def save(path):
                with open(path, "w") as f:
                    f.write('{{"x": %d}}' % state["x"])
                if crash:
                    os._exit(9)  # killed after the data is written, before it is renamed
            def load(path):
                pass
            c = Checkpointer(save=save, load=load)
            state["x"] = 3
            c.save(3)
            state["x"] = 7
            crash.append(1)
            c.save(7)
            """)
        r = subprocess.run([sys.executable, "-c", child], env=dict(os.environ, **self.env()),
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 9, r.stderr)
        self.assertIn("checkpoint-2.tmp", os.listdir(self.dir))
        self.assertEqual(self.marker()["step"], 3)
        state = {}
        c = self.make(state, resume=True)
        self.assertEqual(c.resume(), 3)
        self.assertEqual(state, {"x": 3})
        c.save(4)  # the next save clears what the crash left
        self.assertEqual(sorted(os.listdir(self.dir)), ["COMPLETE", "checkpoint-2"])

    def test_crash_before_the_marker_keeps_the_old_checkpoint(self):
        state = {"x": 1}
        c = self.make(state)
        c.save(1)
        state["x"] = 2
        with mock.patch.object(marker_module, "write_marker", side_effect=OSError("disk gone")):
            with self.assertRaises(OSError):
                c.save(2)
        restored = {}
        r = self.make(restored, resume=True)
        self.assertEqual(r.resume(), 1)
        self.assertEqual(restored, {"x": 1})
        r.save(5)  # the unreferenced data of the failed save is replaced, not trusted
        self.assertEqual(self.marker()["step"], 5)
        self.assertEqual(sorted(os.listdir(self.dir)), ["COMPLETE", self.marker()["path"]])

    def test_a_save_function_that_writes_nothing_is_an_error(self):
        c = Checkpointer(save=lambda p: None, load=lambda p: None, environ=self.env(),
                         log=self.logs.append)
        self.made.append(c)
        with self.assertRaises(CheckpointError) as e:
            c.save(1)
        self.assertIn("checkpoint-1.tmp", str(e.exception))
        self.assertFalse(os.path.exists(os.path.join(self.dir, "COMPLETE")))

    def test_save_may_write_a_folder(self):
        def save(path):
            os.makedirs(path)
            with open(os.path.join(path, "weights"), "w") as f:
                f.write("w")
        got = []
        c = Checkpointer(save=save, load=got.append, environ=self.env(), log=self.logs.append)
        self.made.append(c)
        c.save(3)
        r = Checkpointer(save=save, load=got.append, environ=self.env(resume=True),
                         log=self.logs.append)
        self.made.append(r)
        self.assertEqual(r.resume(), 3)
        self.assertTrue(os.path.isfile(os.path.join(got[0], "weights")))


class BrokenCheckpointTest(Base):
    def write(self, name, text):
        os.makedirs(self.dir, exist_ok=True)
        with open(os.path.join(self.dir, name), "w") as f:
            f.write(text)

    def test_a_garbled_marker_names_the_marker(self):
        self.write("COMPLETE", "120\n")  # e.g. a bash job's marker
        with self.assertRaises(CheckpointError) as e:
            self.make({}, resume=True).resume()
        self.assertIn(os.path.join(self.dir, "COMPLETE"), str(e.exception))
        self.assertIn("'120\\n'", str(e.exception))

    def test_a_missing_data_file_is_named(self):
        self.write("COMPLETE", '{"seq": 2, "step": 9, "path": "checkpoint-2"}\n')
        with self.assertRaises(CheckpointError) as e:
            self.make({}, resume=True).resume()
        self.assertIn(os.path.join(self.dir, "checkpoint-2"), str(e.exception))
        self.assertIn("missing", str(e.exception))

    def test_corrupt_data_names_the_file_and_the_cause(self):
        self.write("COMPLETE", '{"seq": 1, "step": 9, "path": "checkpoint-1"}\n')
        self.write("checkpoint-1", '{"x": 1, "trunc')
        with self.assertRaises(CheckpointError) as e:
            self.make({}, resume=True).resume()
        message = str(e.exception)
        self.assertIn(f"cannot load the checkpoint {os.path.join(self.dir, 'checkpoint-1')}",
                      message)
        self.assertIn("JSONDecodeError", message)
        self.assertIsNotNone(e.exception.__cause__)


class IntervalTest(Base):
    def test_the_shorter_of_the_argument_and_squeeze_checkpoint_interval(self):
        self.assertEqual(self.make({}, interval=10).interval, 10)
        env = self.env(SQUEEZE_CHECKPOINT_INTERVAL="5")
        self.assertEqual(self.make({}, environ=env, interval=10).interval, 5)
        self.assertEqual(self.make({}, environ=env).interval, 5)
        env = self.env(SQUEEZE_CHECKPOINT_INTERVAL="30")
        self.assertEqual(self.make({}, environ=env, interval=10).interval, 10)
        self.assertIsNone(self.make({}).interval)

    def test_a_bad_squeeze_checkpoint_interval_is_an_error(self):
        with self.assertRaises(CheckpointError) as e:
            self.make({}, environ=self.env(SQUEEZE_CHECKPOINT_INTERVAL="soon"))
        self.assertIn("SQUEEZE_CHECKPOINT_INTERVAL='soon'", str(e.exception))

    def test_saves_at_the_first_boundary_after_the_interval(self):
        clock = FakeClock()
        state = {"x": 0}
        c = self.make(state, environ=self.env(SQUEEZE_CHECKPOINT_INTERVAL="5"), clock=clock)
        saved_at = []
        for step in c.steps(0, 20):
            state["x"] = step
            clock.now += 1
            if os.path.exists(os.path.join(self.dir, "COMPLETE")):
                m = self.marker()
                if not saved_at or saved_at[-1] != m["step"]:
                    saved_at.append(m["step"])
        self.assertEqual(saved_at, [5, 10, 15])


class SignalTest(Base):
    def test_sigusr1_mid_step_saves_the_finished_step_and_exits_0(self):
        state = {"a": 0, "b": 0}
        c = self.make(state)
        with self.assertRaises(SystemExit) as e:
            for step in c.steps(c.resume(), 100):
                state["a"] += 1
                if step == 4:
                    os.kill(os.getpid(), signal.SIGUSR1)  # in the middle of step 4
                    time.sleep(0.05)
                    self.assertTrue(c.requests.checkpoint)
                    self.assertFalse(os.path.exists(os.path.join(self.dir, "COMPLETE")))
                state["b"] = 2 * state["a"]
        self.assertEqual(e.exception.code, 0)
        restored = {}
        self.assertEqual(self.make(restored, resume=True).resume(), 5)
        self.assertEqual(restored, {"a": 5, "b": 10})
        self.assertIn("SIGUSR1 during step 4: saving at the step boundary (step 5)", self.logs)

    def test_sigterm_saves_and_exits_143(self):
        state = {"a": 0}
        c = self.make(state)
        with self.assertRaises(SystemExit) as e:
            for step in c.steps(0, 100):
                state["a"] = step + 1
                if step == 2:
                    os.kill(os.getpid(), signal.SIGTERM)
                    time.sleep(0.05)
        self.assertEqual(e.exception.code, 143)
        self.assertEqual(self.marker()["step"], 3)

    def raise_on_sigchld_as_pytorch_does(self):
        """PyTorch's DataLoader raises from its SIGCHLD handler when a worker dies."""
        def torch_like_handler(signum, frame):
            raise RuntimeError("DataLoader worker is killed by signal: Terminated")

        previous = signal.signal(signal.SIGCHLD, torch_like_handler)
        self.addCleanup(signal.signal, signal.SIGCHLD, previous)

    def asked_to_checkpoint(self, save):
        """A Checkpointer with `save`, to which squeeze has sent SIGUSR1."""
        c = Checkpointer(save=save, load=lambda p: None, environ=self.env(), log=self.logs.append)
        self.made.append(c)
        c.requests.checkpoint = True
        return c

    def test_a_sigterm_after_the_requested_save_still_leaves_with_exit_0(self):
        # squeeze sends SIGTERM as soon as the marker it asked for is written, which may be
        # before the job has left: the job answered the request and leaves with exit 0.
        def save(path):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)  # the handler runs
            with open(path, "w") as f:
                f.write("{}")

        c = self.asked_to_checkpoint(save)
        with self.assertRaises(SystemExit) as e:
            c.boundary(4)
        self.assertEqual(e.exception.code, 0)
        self.assertTrue(c.requests.stop)  # seen, and left for a later boundary

    def test_that_sigterm_while_the_interpreter_exits_does_not_kill_the_job(self):
        # squeeze's SIGTERM may land after sys.exit, while Python shuts down and puts its
        # handlers back to the default (CPython's _PySignal_Fini leaves SIG_IGN alone): a job
        # that had left with 0 was then recorded as `signal 15` (a clean-clone CI run). The
        # atexit hook does what that shutdown does, then takes the SIGTERM.
        child = textwrap.dedent(f"""
            import atexit, os, signal, sys, time
            sys.path.insert(0, {PYTHON_DIR!r})
            from squeeze_checkpoint import Checkpointer
            def shutting_down():
                if signal.getsignal(signal.SIGTERM) is not signal.SIG_IGN:
                    signal.signal(signal.SIGTERM, signal.SIG_DFL)
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.2)
            atexit.register(shutting_down)
            c = Checkpointer(state={{"x": 1}})
            os.kill(os.getpid(), signal.SIGUSR1)
            time.sleep(0.05)
            c.boundary(3)
        """)
        r = subprocess.run([sys.executable, "-c", child], env=dict(os.environ, **self.env()),
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("leaving after the checkpoint squeeze asked for (exit 0)", r.stderr)

    def test_workers_ended_by_that_sigterm_do_not_fail_the_leaving_job(self):
        # PyTorch's DataLoader raises from its SIGCHLD handler when a worker dies; squeeze's
        # SIGTERM after the requested save goes to the whole group, workers included.
        self.raise_on_sigchld_as_pytorch_does()
        worker = os.fork()
        if worker == 0:
            time.sleep(30)
            os._exit(0)

        def reap():
            os.kill(worker, signal.SIGKILL)  # gone already, unless the test failed early
            os.waitpid(worker, 0)
        self.addCleanup(reap)

        def save(path):
            os.kill(worker, signal.SIGTERM)  # what squeeze's group SIGTERM does to it
            time.sleep(0.2)  # its SIGCHLD comes in the middle of the save
            with open(path, "w") as f:
                f.write("{}")

        c = self.asked_to_checkpoint(save)
        with self.assertRaises(SystemExit) as e:
            c.boundary(4)
        self.assertEqual(e.exception.code, 0)
        self.assertEqual(self.marker()["step"], 4)

    def test_a_worker_ended_by_that_sigterm_mid_step_leaves_at_the_next_boundary(self):
        # squeeze's SIGTERM may come while the job still trains (after a periodic save that
        # came first): PyTorch's handler must not fail the job; it saves and leaves.
        self.raise_on_sigchld_as_pytorch_does()
        c = self.make({"a": 0})
        c.boundary(0)  # wraps the handler the library installed
        # Without a request, the library's error is the job's error.
        other = os.fork()
        if other == 0:
            os._exit(0)
        with self.assertRaises(RuntimeError):
            os.waitpid(other, 0)
            time.sleep(0.2)
        worker = os.fork()
        if worker == 0:
            time.sleep(30)
            os._exit(0)
        os.kill(os.getpid(), signal.SIGUSR1)
        time.sleep(0.05)
        os.kill(worker, signal.SIGTERM)  # the group's SIGTERM, mid-step
        os.kill(os.getpid(), signal.SIGTERM)
        os.waitpid(worker, 0)
        time.sleep(0.1)  # the handlers run here, in the middle of the step
        with self.assertRaises(SystemExit) as e:
            c.boundary(1)
        self.assertEqual(e.exception.code, 143)
        self.assertEqual(self.marker()["step"], 1)
        self.assertTrue(any("a helper process ended" in line for line in self.logs))

    def test_without_exit_on_request_it_saves_and_goes_on(self):
        state = {"a": 0}
        c = self.make(state, exit_on_request=False)
        for step in c.steps(0, 10):
            state["a"] = step + 1
            if step == 3:
                os.kill(os.getpid(), signal.SIGUSR1)
                time.sleep(0.05)
        self.assertEqual(state["a"], 10)
        self.assertEqual(self.marker()["step"], 4)

    def test_a_request_during_the_last_step_is_still_answered(self):
        state = {"a": 0}
        c = self.make(state)
        with self.assertRaises(SystemExit) as e:
            for step in c.steps(0, 3):
                state["a"] = step + 1
                if step == 2:
                    os.kill(os.getpid(), signal.SIGUSR1)
                    time.sleep(0.05)
        self.assertEqual(e.exception.code, 0)
        self.assertEqual(self.marker()["step"], 3)

    def test_a_forked_worker_keeps_the_default_sigterm(self):
        self.make({"a": 0})
        pid = os.fork()
        if pid == 0:  # a DataLoader-like worker forked after the handlers were installed
            time.sleep(10)
            os._exit(0)
        time.sleep(0.2)
        os.kill(pid, signal.SIGTERM)
        _, status = os.waitpid(pid, 0)
        self.assertTrue(os.WIFSIGNALED(status))
        self.assertEqual(os.WTERMSIG(status), signal.SIGTERM)

    def test_a_forked_worker_ignores_sigusr1(self):
        # Slurm passes a job's signals to every process of a task, DataLoader workers included:
        # a checkpoint request must not kill them (it is the main process's business).
        self.make({"a": 0})
        pid = os.fork()
        if pid == 0:
            for _ in range(100):
                time.sleep(0.01)  # Python runs the handler between two sleeps
            os._exit(7)
        time.sleep(0.2)
        os.kill(pid, signal.SIGUSR1)
        time.sleep(0.1)
        os.kill(pid, signal.SIGUSR1)
        _, status = os.waitpid(pid, 0)
        self.assertTrue(os.WIFEXITED(status), f"the worker died of signal {status & 0x7f}")
        self.assertEqual(os.WEXITSTATUS(status), 7)

    def test_a_request_during_a_periodic_save_is_answered_by_a_later_save(self):
        clock = FakeClock()
        state = {"a": 0}
        signalled = []

        def save(path):  # the periodic save at the boundary before step 3
            if state["a"] == 3 and not signalled:
                signalled.append(1)
                os.kill(os.getpid(), signal.SIGUSR1)
                time.sleep(0.05)
            with open(path, "w") as f:
                json.dump(state, f)

        c = Checkpointer(save=save, load=lambda p: None, interval=5, clock=clock,
                         environ=self.env(), log=self.logs.append)
        self.made.append(c)
        with self.assertRaises(SystemExit) as e:
            for step in c.steps(0, 10):
                state["a"] = step + 1
                clock.now += 5 if step == 2 else 0
        self.assertEqual(e.exception.code, 0)
        self.assertEqual((self.marker()["seq"], self.marker()["step"]), (2, 4))

    def test_boundary_without_steps_does_not_claim_where_the_signal_came(self):
        c = self.make({"a": 0})
        os.kill(os.getpid(), signal.SIGUSR1)
        time.sleep(0.05)
        with self.assertRaises(SystemExit):
            c.boundary(7)
        self.assertIn("SIGUSR1: saving at the step boundary (step 7)", self.logs)

    def test_a_real_process_preempted_mid_step_ends_like_an_uninterrupted_one(self):
        script = os.path.join(REPO, "examples", "python", "plain_loop.py")
        args = [sys.executable, script, "--steps", "120", "--print-every", "10"]
        base = {k: v for k, v in os.environ.items() if not k.startswith("SQUEEZE_")}
        base["PYTHONPATH"] = PYTHON_DIR
        straight = os.path.join(self.tmp.name, "straight.json")
        subprocess.run(args + ["--step-seconds", "0", "--result", straight], env=base,
                       check=True, capture_output=True, timeout=60)
        result = os.path.join(self.tmp.name, "result.json")
        env = dict(base, **self.env())
        p = subprocess.Popen(args + ["--step-seconds", "0.04", "--result", result], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertTrue(p.stdout.readline().startswith("attempt 1: starting at step 0"))
        self.assertTrue(p.stdout.readline().startswith("step 10/120"))
        p.send_signal(signal.SIGUSR1)
        out, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, err)
        self.assertIn("SIGUSR1 during step", err)
        self.assertFalse(os.path.exists(result))
        r = subprocess.run(args + ["--step-seconds", "0", "--result", result],
                           env=dict(env, SQUEEZE_RESUME="1", SQUEEZE_ATTEMPT="2"),
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(f"attempt 2: resuming at step {self.marker()['step']}", r.stdout)
        with open(result) as a, open(straight) as b:
            self.assertEqual(json.load(a), json.load(b))


class ApiTest(unittest.TestCase):
    def test_arguments_are_checked(self):
        with self.assertRaises(ValueError):
            Checkpointer(environ={}, log=lambda s: None, install_signals=False)
        with self.assertRaises(ValueError):
            Checkpointer(save=print, load=print, state={}, environ={}, install_signals=False)
        with self.assertRaises(TypeError):
            Checkpointer(state=[1], environ={}, install_signals=False)

    def test_the_package_exports(self):
        for name in ("Checkpointer", "CheckpointError", "read_marker", "env_interval"):
            self.assertTrue(hasattr(squeeze_checkpoint, name), name)


if __name__ == "__main__":
    unittest.main()
