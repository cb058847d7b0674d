"""Asynchronous checkpoints (Checkpointer(asynchronous=True)) and the ranks' agreement
(collective=), standard library only: the state is captured at the boundary and written by a
background thread, whose marker comes only once the data is on disk; a request makes the job
wait for the write before it leaves; a failed background write is reported; the ranks of a
collective save at the same step, and only rank 0 writes. (A real torch.distributed job of two
processes is in test_pytorch_real.py.)
"""

import json
import os
import tempfile
import threading
import unittest

from squeeze_checkpoint import Checkpointer, CheckpointError, two_phase_save


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = os.path.join(self.tmp.name, "ckpt")
        self.logs = []
        self.made = []

    def tearDown(self):
        for c in reversed(self.made):
            c.wait()
            c.requests.uninstall()
        self.tmp.cleanup()

    def make(self, resume=False, **kw):
        env = {"SQUEEZE_CHECKPOINT_DIR": self.dir}
        if resume:
            env["SQUEEZE_RESUME"] = "1"
        c = Checkpointer(environ=env, log=self.logs.append, **kw)
        self.made.append(c)
        return c

    def marker(self):
        try:
            with open(os.path.join(self.dir, "COMPLETE")) as f:
                return json.loads(f.read())
        except FileNotFoundError:
            return None


class GatedSave:
    """A two-step save whose write waits until the test opens the gate."""

    def __init__(self, state):
        self.state = state
        self.gate = threading.Event()
        self.writing = threading.Event()
        self.save = two_phase_save(self.capture, self.write)

    def capture(self):
        return json.dumps(self.state)

    def write(self, snapshot, path):
        self.writing.set()
        self.gate.wait(10)
        with open(path, "w") as f:
            f.write(snapshot)

    def load(self, path):
        with open(path) as f:
            self.state.clear()
            self.state.update(json.load(f))


class AsynchronousTest(Base):
    def test_the_state_of_the_boundary_is_written_after_save_returns_and_marked_only_then(self):
        state = {"x": 1}
        g = GatedSave(state)
        c = self.make(save=g.save, load=g.load, asynchronous=True)
        c.save(5)
        self.assertTrue(g.writing.wait(10))
        state["x"] = 2                       # training goes on while the write waits
        self.assertIsNone(self.marker())     # no marker before the data is on disk
        self.assertFalse(os.path.exists(os.path.join(self.dir, "checkpoint-1")))
        g.gate.set()
        c.wait()
        m = self.marker()
        self.assertEqual((m["seq"], m["step"], m["path"]), (1, 5, "checkpoint-1"))
        self.assertIn("stall_s", m)
        self.assertGreaterEqual(m["save_s"], m["stall_s"])
        with open(os.path.join(self.dir, "checkpoint-1")) as f:
            self.assertEqual(json.load(f), {"x": 1})  # what it was at the boundary
        self.assertTrue(any("in the background (training paused" in line for line in self.logs))

    def test_a_save_waits_for_the_write_before_it(self):
        g = GatedSave({"x": 1})
        c = self.make(save=g.save, load=g.load, asynchronous=True)
        c.save(1)
        self.assertTrue(g.writing.wait(10))
        second = threading.Thread(target=c.save, args=(2,))
        second.start()
        second.join(0.3)
        self.assertTrue(second.is_alive())   # held back while the first is written
        g.gate.set()
        second.join(10)
        c.wait()
        self.assertEqual((self.marker()["seq"], self.marker()["step"]), (2, 2))
        self.assertEqual(sorted(os.listdir(self.dir)), ["COMPLETE", "checkpoint-2"])

    def test_a_request_waits_for_the_write_then_leaves_with_exit_0(self):
        g = GatedSave({"x": 1})
        c = self.make(save=g.save, load=g.load, asynchronous=True)
        c.requests.checkpoint = True
        threading.Timer(0.3, g.gate.set).start()
        with self.assertRaises(SystemExit) as e:
            c.boundary(9)
        self.assertEqual(e.exception.code, 0)
        self.assertEqual(self.marker()["step"], 9)  # on disk before it left

    def test_json_state_resumes(self):
        state = {"x": 3}
        c = self.make(state=state, asynchronous=True)
        c.save(4)
        c.wait()
        state2 = {}
        self.assertEqual(self.make(state=state2, resume=True).resume(), 4)
        self.assertEqual(state2, {"x": 3})

    def test_a_failed_background_write_is_raised_with_its_step(self):
        def write(snapshot, path):
            raise OSError("disk full")

        c = self.make(save=two_phase_save(lambda: "s", write), load=lambda p: None,
                      asynchronous=True)
        c.save(7)
        with self.assertRaises(CheckpointError) as e:
            c.wait()
        self.assertIn("step 7", str(e.exception))
        self.assertIn("disk full", str(e.exception))
        self.assertIsNone(self.marker())
        c.wait()  # reported once

    def test_a_save_in_one_step_is_refused(self):
        with self.assertRaises(ValueError) as e:
            self.make(save=lambda p: None, load=lambda p: None, asynchronous=True)
        self.assertIn("two_phase_save", str(e.exception))


class Ranks:
    """The ranks of a job as threads: agree() is the element-wise maximum of every rank's
    flags once all have given theirs, as an all-reduce; barrier() waits for all."""

    def __init__(self, n):
        self.n = n
        self._barrier = threading.Barrier(n)
        self._flags = {}

    def member(self, rank):
        ranks = self

        class Member:
            def __init__(self):
                self.rank = rank

            def agree(self, flags):
                ranks._flags[rank] = flags
                ranks._barrier.wait(10)
                out = [max(f[i] for f in ranks._flags.values()) for i in range(len(flags))]
                ranks._barrier.wait(10)
                return out

            def barrier(self):
                ranks._barrier.wait(10)

        return Member()


class CollectiveTest(Base):
    def test_a_request_to_one_rank_makes_both_save_at_the_same_step_and_rank_0_writes(self):
        ranks = Ranks(2)
        made = [self.make(state={"rank": r}, collective=ranks.member(r), install_signals=False)
                for r in (0, 1)]
        exits, saved = {}, {}

        def run(rank):
            c = made[rank]
            try:
                for step in c.steps(0, 100):
                    if rank == 1 and step == 6:
                        c.requests.checkpoint = True  # as a SIGUSR1 to rank 1 only
            except SystemExit as e:
                exits[rank] = e.code
            saved[rank] = c.saved_step

        threads = [threading.Thread(target=run, args=(r,)) for r in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(20)
        self.assertEqual(exits, {0: 0, 1: 0})
        self.assertEqual(saved, {0: 7, 1: 7})
        m = self.marker()
        self.assertEqual((m["seq"], m["step"]), (1, 7))
        with open(os.path.join(self.dir, m["path"])) as f:
            self.assertEqual(json.load(f), {"rank": 0})  # rank 0's state, written once
        self.assertIn("SIGUSR1 on another rank: saving at the step boundary (step 7)", self.logs)


if __name__ == "__main__":
    unittest.main()
