"""A real torch.distributed job (gloo, CPU) of two processes on this machine, as squeeze starts
one of two nodes (SQUEEZE_NNODES, SQUEEZE_NODE_RANK, SQUEEZE_MASTER_ADDR/PORT):
examples/python/pytorch_train.py with DistributedDataParallel. SIGUSR1 to one rank makes both
save at the same step (rank 0 writes) and exit 0, and the run resumed from that checkpoint ends
with the weights, optimizer, scheduler and loss curve of an uninterrupted run, bit for bit. A
rank killed with SIGKILL makes the other fail at once, not hang. The same job under torchrun
(two processes on one node) and squeeze_checkpoint.relay checkpoints when the relay gets
SIGUSR1 and resumes identically. Skipped without PyTorch."""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

try:
    import torch
except ImportError:
    torch = None

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, "examples", "python", "pytorch_train.py")
ARGS = ["--samples", "1024", "--batch-size", "16", "--epochs", "2", "--hidden", "32",
        "--workers", "1", "--print-every", "5"]


def read(path):
    with open(path) as f:
        return f.read()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Base(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.procs = []

    def tearDown(self):
        for p, _ in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        self.tmp.cleanup()

    def finish(self, ranks, timeout=120):
        codes = [p.wait(timeout) for p, _ in ranks]
        return codes, [read(log) for _, log in ranks]

    def wait_for_step(self, log, step, timeout=60):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            found = re.findall(r"^step (\d+)/", read(log), re.M)
            if found and int(found[-1]) >= step:
                return
            time.sleep(0.05)
        self.fail(f"{log} did not reach step {step}:\n{read(log)[-1500:]}")

    def result(self, name):
        with open(os.path.join(self.tmp.name, name)) as f:
            return json.load(f)


@unittest.skipIf(torch is None, "PyTorch is not installed (scripts/setup.sh installs it)")
class TwoRanksTest(Base):
    def start(self, name, extra=(), checkpoints=None, resume=False):
        """Starts both ranks; returns [(process, log path)]."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("SQUEEZE_")}
        env.update(SQUEEZE_NNODES="2", SQUEEZE_MASTER_ADDR="127.0.0.1",
                   SQUEEZE_MASTER_PORT=str(free_port()))
        if checkpoints:
            env["SQUEEZE_CHECKPOINT_DIR"] = checkpoints
        if resume:
            env["SQUEEZE_RESUME"] = "1"
        ranks = []
        for rank in (0, 1):
            log = os.path.join(self.tmp.name, f"{name}.{rank}.log")
            with open(log, "w") as out:
                p = subprocess.Popen([sys.executable, SCRIPT, *ARGS, *extra],
                                     env={**env, "SQUEEZE_NODE_RANK": str(rank)},
                                     stdout=out, stderr=subprocess.STDOUT)
            ranks.append((p, log))
        self.procs += ranks
        return ranks

    def test_a_request_to_one_rank_checkpoints_both_and_the_resumed_run_is_identical(self):
        codes, logs = self.finish(self.start(
            "straight", ["--result", os.path.join(self.tmp.name, "straight.json")]))
        self.assertEqual(codes, [0, 0], logs)
        ckpt = os.path.join(self.tmp.name, "ckpt")
        out = ["--result", os.path.join(self.tmp.name, "resumed.json"), "--step-seconds", "0.05"]
        ranks = self.start("first", out, checkpoints=ckpt)
        self.wait_for_step(ranks[0][1], 20)
        ranks[1][0].send_signal(signal.SIGUSR1)  # one rank only: the other learns it
        codes, logs = self.finish(ranks)
        self.assertEqual(codes, [0, 0], logs)
        saved = [re.search(r"saving at the step boundary \(step (\d+)\)", t) for t in logs]
        self.assertTrue(all(saved), logs)
        self.assertEqual(saved[0].group(1), saved[1].group(1))
        self.assertIn("SIGUSR1 on another rank", logs[0])
        self.assertIn("saved ", logs[0])
        self.assertNotIn("saved ", logs[1])  # rank 0 writes
        with open(os.path.join(ckpt, "COMPLETE")) as f:
            self.assertEqual(json.load(f)["step"], int(saved[0].group(1)))
        codes, logs = self.finish(self.start("second", out, checkpoints=ckpt, resume=True))
        self.assertEqual(codes, [0, 0], logs)
        for text in logs:
            self.assertIn(f"at step {saved[0].group(1)} (attempt", text)
        self.assertEqual(self.result("resumed.json"), self.result("straight.json"))

    def test_a_killed_rank_ends_the_other_instead_of_a_hang(self):
        ranks = self.start("killed", ["--step-seconds", "0.05"])
        self.wait_for_step(ranks[0][1], 10)
        ranks[1][0].send_signal(signal.SIGKILL)
        started = time.monotonic()
        codes, logs = self.finish(ranks, timeout=90)
        self.assertEqual(codes[1], -signal.SIGKILL)
        self.assertNotEqual(codes[0], 0, logs[0][-1500:])
        self.assertLess(time.monotonic() - started, 90)
        self.assertRegex(logs[0], r"Connection (reset|closed)|Broken pipe|RuntimeError")


@unittest.skipIf(torch is None, "PyTorch is not installed (scripts/setup.sh installs it)")
class TorchrunTest(Base):
    """The same job started by torchrun (two processes on one node) under
    squeeze_checkpoint.relay, which passes SIGUSR1 on to the two training processes (torchrun
    itself would die of it)."""

    def start(self, name, extra=(), checkpoints=None, resume=False):
        env = {k: v for k, v in os.environ.items() if not k.startswith("SQUEEZE_")}
        env["PYTHONPATH"] = os.path.join(REPO, "python")
        if checkpoints:
            env["SQUEEZE_CHECKPOINT_DIR"] = checkpoints
        if resume:
            env["SQUEEZE_RESUME"] = "1"
        log = os.path.join(self.tmp.name, f"{name}.log")
        # -r/-t for a local rank that does not exist: Debian 12's torchrun (PyTorch 1.13 on
        # Python 3.11) cannot start with its defaults (docs/serve.md, "Distributed jobs").
        argv = [sys.executable, "-m", "squeeze_checkpoint.relay", "torchrun", "--nnodes=1",
                "--nproc_per_node=2", f"--master_port={free_port()}", "-r", "9:1", "-t", "9:1",
                SCRIPT, *ARGS, *extra]
        with open(log, "w") as out:
            p = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT)
        self.procs.append((p, log))
        return [(p, log)]

    def test_a_request_to_one_rank_checkpoints_both_and_the_resumed_run_is_identical(self):
        codes, logs = self.finish(self.start(
            "straight", ["--result", os.path.join(self.tmp.name, "straight.json")]))
        self.assertEqual(codes, [0], logs)
        ckpt = os.path.join(self.tmp.name, "ckpt")
        out = ["--result", os.path.join(self.tmp.name, "resumed.json"), "--step-seconds", "0.05"]
        ranks = self.start("first", out, checkpoints=ckpt)
        self.wait_for_step(ranks[0][1], 20)
        ranks[0][0].send_signal(signal.SIGUSR1)  # to the relay, as squeeze sends it
        codes, logs = self.finish(ranks)
        self.assertEqual(codes, [0], logs)  # the ranks saved and left; torchrun ended with 0
        self.assertRegex(logs[0], r"SIGUSR1 passed on to \d+, \d+\n")
        saved = re.findall(r"saving at the step boundary \(step (\d+)\)", logs[0])
        self.assertEqual(len(saved), 2, logs[0])
        self.assertEqual(saved[0], saved[1])
        codes, logs = self.finish(self.start("second", out, checkpoints=ckpt, resume=True))
        self.assertEqual(codes, [0], logs)
        self.assertEqual(logs[0].count(f"at step {saved[0]} (attempt"), 2, logs[0])
        self.assertEqual(self.result("resumed.json"), self.result("straight.json"))


if __name__ == "__main__":
    unittest.main()
