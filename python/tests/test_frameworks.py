"""Unit tests of the PyTorch and Hugging Face parts, run without those libraries: imports are
guarded, torch_save_load runs against a stand-in `torch` module (pickle), and SqueezeCallback
against stand-in Trainer arguments, state and control objects. Where torch or transformers is
installed, the checks that need their absence are skipped.
"""

import importlib
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import types
import unittest
from unittest import mock

from squeeze_checkpoint import Checkpointer, CheckpointError

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(PYTHON_DIR)


def installed(name):
    try:
        importlib.import_module(name)
        return True
    except ImportError:
        return False


def fake_torch():
    """A stand-in for the three functions torch_save_load uses."""
    t = types.ModuleType("torch")
    t.is_tensor = lambda value: False
    t.save = lambda obj, f: pickle.dump(obj, f)
    t.load = lambda f, map_location=None: pickle.load(f)
    return t


class Stateful:
    def __init__(self, value):
        self.value = value

    def state_dict(self):
        return {"value": self.value}

    def load_state_dict(self, d):
        self.value = d["value"]


class PyTorchTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.env = {"SQUEEZE_CHECKPOINT_DIR": self.tmp.name}

    def tearDown(self):
        self.tmp.cleanup()

    def test_imports_without_torch(self):
        from squeeze_checkpoint import pytorch
        self.assertTrue(callable(pytorch.torch_save_load))

    def test_saving_without_torch_says_what_is_missing(self):
        from squeeze_checkpoint.pytorch import torch_save_load
        save, _ = torch_save_load(model=Stateful(1))
        # None in sys.modules makes `import torch` fail, as where PyTorch is not installed.
        with mock.patch.dict(sys.modules, {"torch": None}), self.assertRaises(ImportError) as e:
            save(os.path.join(self.tmp.name, "x"))
        self.assertIn("needs PyTorch", str(e.exception))

    def test_objects_without_state_dict_are_refused(self):
        from squeeze_checkpoint.pytorch import torch_save_load
        with self.assertRaises(TypeError) as e:
            torch_save_load(model=object())
        self.assertIn("model", str(e.exception))
        with self.assertRaises(ValueError):
            torch_save_load()

    def test_model_and_optimizer_round_trip_through_the_checkpointer(self):
        from squeeze_checkpoint.pytorch import torch_save_load
        with mock.patch.dict(sys.modules, {"torch": fake_torch()}):
            model, optimizer = Stateful([1.0, 2.0]), Stateful({"lr": 0.1, "step": 7})
            save, load = torch_save_load(model=model, optimizer=optimizer, rng=False)
            c = Checkpointer(save=save, load=load, environ=self.env, install_signals=False,
                             log=lambda s: None)
            c.save(7)
            model2, optimizer2 = Stateful(None), Stateful(None)
            save2, load2 = torch_save_load(model=model2, optimizer=optimizer2, rng=False)
            r = Checkpointer(save=save2, load=load2, environ=dict(self.env, SQUEEZE_RESUME="1"),
                             install_signals=False, log=lambda s: None)
            self.assertEqual(r.resume(), 7)
            self.assertEqual((model2.value, optimizer2.value), ([1.0, 2.0], {"lr": 0.1, "step": 7}))

    def test_a_checkpoint_without_an_object_names_it(self):
        from squeeze_checkpoint.pytorch import torch_save_load
        with mock.patch.dict(sys.modules, {"torch": fake_torch()}):
            save, _ = torch_save_load(model=Stateful(1), rng=False)
            c = Checkpointer(save=save, load=lambda p: None, environ=self.env,
                             install_signals=False, log=lambda s: None)
            c.save(1)
            _, load = torch_save_load(model=Stateful(1), scaler=Stateful(2), rng=False)
            r = Checkpointer(save=save, load=load, environ=dict(self.env, SQUEEZE_RESUME="1"),
                             install_signals=False, log=lambda s: None)
            with self.assertRaises(CheckpointError) as e:
                r.resume()
            self.assertIn("has no scaler", str(e.exception))
            self.assertIn(os.path.join(self.tmp.name, "checkpoint-1"), str(e.exception))


class Control:
    """A stand-in for transformers.TrainerControl."""

    def __init__(self):
        self.should_save = False
        self.should_training_stop = False


class HuggingFaceTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.squeeze_dir = os.path.join(self.tmp.name, "squeeze")
        self.output_dir = os.path.join(self.tmp.name, "out")
        os.makedirs(self.squeeze_dir)
        self.env = {"SQUEEZE_CHECKPOINT_DIR": self.squeeze_dir}
        self.args = types.SimpleNamespace(output_dir=self.output_dir)
        self.state = types.SimpleNamespace(global_step=0, is_world_process_zero=True)
        self.callbacks = []

    def tearDown(self):
        for c in reversed(self.callbacks):
            c.requests.uninstall()
        self.tmp.cleanup()

    def callback(self, **kw):
        from squeeze_checkpoint.huggingface import SqueezeCallback
        c = SqueezeCallback(environ=self.env, log=lambda s: None, **kw)
        self.callbacks.append(c)
        return c

    def trainer_saves(self, cb, control):
        """What the Trainer does when control.should_save: checkpoint-N, then on_save."""
        os.makedirs(os.path.join(self.output_dir, f"checkpoint-{self.state.global_step}"))
        control.should_save = False
        return cb.on_save(self.args, self.state, control)

    def step(self, cb, control, signum=None):
        cb.on_step_begin(self.args, self.state, control)
        if signum is not None:
            os.kill(os.getpid(), signum)  # in the middle of the step
            time.sleep(0.05)
        self.state.global_step += 1
        return cb.on_step_end(self.args, self.state, control)

    def test_imports_without_transformers(self):
        from squeeze_checkpoint import huggingface
        self.assertEqual(huggingface.HAVE_TRANSFORMERS, installed("transformers"))
        if huggingface.HAVE_TRANSFORMERS:
            from transformers import TrainerCallback
            self.assertTrue(issubclass(huggingface.SqueezeCallback, TrainerCallback))

    def test_nothing_asked_nothing_changes(self):
        cb, control = self.callback(), Control()
        for _ in range(3):
            control = self.step(cb, control)
        self.assertFalse(control.should_save or control.should_training_stop)

    def test_sigusr1_asks_the_trainer_to_save_and_stop_then_reports_and_leaves(self):
        from squeeze_checkpoint.huggingface import resume_path
        cb, control = self.callback(), Control()
        self.step(cb, control)
        control = self.step(cb, control, signal.SIGUSR1)
        self.assertTrue(control.should_save and control.should_training_stop)
        self.trainer_saves(cb, control)
        checkpoint = os.path.join(self.output_dir, "checkpoint-2")
        with open(os.path.join(self.squeeze_dir, "COMPLETE")) as f:
            self.assertIn(f'"path": "{checkpoint}"', f.read())
        self.assertEqual(resume_path(dict(self.env, SQUEEZE_RESUME="1")), checkpoint)
        self.assertIsNone(resume_path(self.env))
        with self.assertRaises(SystemExit) as e:
            cb.on_train_end(self.args, self.state, control)
        self.assertEqual(e.exception.code, 0)

    def test_sigterm_leaves_with_143(self):
        cb, control = self.callback(), Control()
        control = self.step(cb, control, signal.SIGTERM)
        self.assertTrue(control.should_save and control.should_training_stop)
        self.trainer_saves(cb, control)
        with self.assertRaises(SystemExit) as e:
            cb.on_train_end(self.args, self.state, control)
        self.assertEqual(e.exception.code, 143)

    def test_training_that_ends_on_its_own_does_not_exit(self):
        cb, control = self.callback(), Control()
        self.step(cb, control)
        self.assertIs(cb.on_train_end(self.args, self.state, control), control)

    def test_every_trainer_save_is_a_new_marker(self):
        cb, control = self.callback(), Control()
        seqs = []
        for _ in range(2):
            self.step(cb, control)
            self.trainer_saves(cb, control)
            with open(os.path.join(self.squeeze_dir, "COMPLETE")) as f:
                seqs.append(f.read())
        self.assertNotEqual(seqs[0], seqs[1])

    def test_interval_asks_for_a_save(self):
        now = [0.0]
        cb = self.callback(interval=10, clock=lambda: now[0])
        control = self.step(cb, Control())
        self.assertFalse(control.should_save)
        now[0] = 11
        control = self.step(cb, control)
        self.assertTrue(control.should_save)
        self.assertFalse(control.should_training_stop)
        self.trainer_saves(cb, control)
        control = self.step(cb, control)
        self.assertFalse(control.should_save)

    def test_resume_with_a_missing_checkpoint_names_it(self):
        from squeeze_checkpoint.huggingface import resume_path
        cb, control = self.callback(), Control()
        self.step(cb, control)
        self.trainer_saves(cb, control)
        shutil.rmtree(os.path.join(self.output_dir, "checkpoint-1"))
        with self.assertRaises(CheckpointError) as e:
            resume_path(dict(self.env, SQUEEZE_RESUME="1"))
        self.assertIn(os.path.join(self.output_dir, "checkpoint-1"), str(e.exception))


class ExamplesTest(unittest.TestCase):
    def run_example(self, name, without=()):
        path = PYTHON_DIR
        if without:  # a folder whose modules of those names fail to import, found first
            hide = tempfile.mkdtemp()
            self.addCleanup(shutil.rmtree, hide)
            for module in without:
                with open(os.path.join(hide, module + ".py"), "w") as f:
                    f.write(f"raise ImportError('No module named {module} (hidden by the test)')\n")
            path = os.pathsep.join([hide, PYTHON_DIR])
        return subprocess.run([sys.executable, os.path.join(REPO, "examples", "python", name),
                               "--help"], capture_output=True, text=True, timeout=60,
                              env=dict(os.environ, PYTHONPATH=path))

    def test_pytorch_examples_skip_cleanly_without_torch(self):
        for name in ("pytorch_loop.py", "pytorch_train.py"):
            r = self.run_example(name, without=["torch"])
            self.assertEqual(r.returncode, 77, f"{name}: {r.stderr}")
            self.assertIn("PyTorch is not installed", r.stderr)

    def test_hf_example_skips_cleanly_without_transformers(self):
        r = self.run_example("hf_trainer.py", without=["transformers"])
        self.assertEqual(r.returncode, 77, r.stderr)
        self.assertIn("transformers are not installed", r.stderr)

    def test_plain_example_runs(self):
        r = self.run_example("plain_loop.py")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("--step-seconds", r.stdout)


if __name__ == "__main__":
    unittest.main()
