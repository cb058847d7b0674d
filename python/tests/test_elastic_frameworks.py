"""Elastic jobs with the frameworks: the Hugging Face callback (against stand-in Trainer
arguments, state and control, as test_frameworks.py) records each checkpoint's batch, refuses a
resume with another global batch (the Trainer would skip the wrong number of samples) unless
told otherwise, and reports world_size and the step rate in its marker; torch_save_load saves a
wrapped model as the model inside, so a checkpoint loads wrapped or bare (an older wrapped one
too), and restores the CUDA generators of only the devices a run has (a stand-in torch.cuda)."""

import json
import os
import tempfile
import types
import unittest

from squeeze_checkpoint import CheckpointError

from .test_frameworks import Control

try:
    import torch
except ImportError:
    torch = None


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def trainer_args(output_dir, world, batch=8, accumulation=1):
    return types.SimpleNamespace(output_dir=output_dir, world_size=world,
                                 per_device_train_batch_size=batch, train_batch_size=batch,
                                 gradient_accumulation_steps=accumulation)


class HuggingFaceElasticTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.squeeze_dir = os.path.join(self.tmp.name, "squeeze")
        self.output_dir = os.path.join(self.tmp.name, "out")
        self.env = {"SQUEEZE_CHECKPOINT_DIR": self.squeeze_dir}
        self.clock = Clock()
        self.logs = []

    def tearDown(self):
        self.tmp.cleanup()

    def callback(self, **kw):
        from squeeze_checkpoint.huggingface import SqueezeCallback
        return SqueezeCallback(environ=self.env, log=self.logs.append, install_signals=False,
                               clock=self.clock, **kw)

    def train_and_save(self, cb, args, state, steps, seconds):
        """`steps` steps of `seconds` each, then a save of 100 s as the Trainer makes it."""
        for _ in range(steps):
            cb.on_step_begin(args, state, Control())
            self.clock.now += seconds
            state.global_step += 1
            cb.on_step_end(args, state, Control())
        self.clock.now += 100
        os.makedirs(os.path.join(self.output_dir, f"checkpoint-{state.global_step}"))
        cb.on_save(args, state, Control())
        with open(os.path.join(self.squeeze_dir, "COMPLETE")) as f:
            return json.load(f)

    def saved_run(self):
        """Two ranks of 8, accumulation 2 (a global batch of 32): 10 steps, saved at 10."""
        state = types.SimpleNamespace(global_step=0, is_world_process_zero=True)
        marker = self.train_and_save(self.callback(), trainer_args(self.output_dir, 2,
                                                                   accumulation=2),
                                     state, 10, 0.5)
        return marker, state

    def test_the_marker_reports_the_world_size_and_the_rate_without_the_saves_time(self):
        marker, state = self.saved_run()
        self.assertEqual((marker["world_size"], marker["steps_per_s"], marker["samples_per_s"]),
                         (2, 2.0, 64.0))
        with open(os.path.join(marker["path"], "squeeze_batch.json")) as f:
            self.assertEqual(json.load(f), {"world_size": 2, "batch_size": 8, "accumulation": 2,
                                            "global_batch": 32, "step": 10})
        # The next window begins with the next step, after the save's 100 s.
        cb = self.callback()
        marker = self.train_and_save(cb, trainer_args(self.output_dir, 4), state, 4, 0.25)
        self.assertEqual((marker["world_size"], marker["steps_per_s"], marker["samples_per_s"]),
                         (4, 4.0, 128.0))

    def test_a_resume_at_another_world_size_with_the_same_global_batch_goes_on(self):
        _, state = self.saved_run()
        for world, accumulation in ((1, 4), (4, 1)):
            cb = self.callback()
            args = trainer_args(self.output_dir, world, accumulation=accumulation)
            self.assertIsInstance(cb.on_train_begin(args, state, Control()), Control)

    def test_a_resume_with_another_global_batch_is_refused_saying_what_keeps_it(self):
        _, state = self.saved_run()
        args = trainer_args(self.output_dir, 4, accumulation=2)   # 64
        with self.assertRaises(CheckpointError) as e:
            self.callback().on_train_begin(args, state, Control())
        text = str(e.exception)
        self.assertIn("saved with a global batch of 32 (world_size 2 x batch 8 x accumulation "
                      "2), this run's is 64 (world_size 4 x batch 8 x accumulation 2)", text)
        self.assertIn("gradient_accumulation_steps = 32 // (4 x 8)", text)
        self.assertIn(os.path.join(self.output_dir, "checkpoint-10"), text)
        args = trainer_args(self.output_dir, 3, accumulation=1)   # 24: 32 does not divide
        with self.assertRaises(CheckpointError) as e:
            self.callback().on_train_begin(args, state, Control())
        self.assertIn("a global batch that every world size divides", str(e.exception))
        self.callback(allow_batch_change=True).on_train_begin(args, state, Control())
        self.assertTrue(any(line.startswith("warning: the checkpoint") for line in self.logs))

    def test_a_first_run_and_a_checkpoint_without_the_record_are_not_checked(self):
        cb = self.callback()
        args = trainer_args(self.output_dir, 4)
        cb.on_train_begin(args, types.SimpleNamespace(global_step=0), Control())
        os.makedirs(os.path.join(self.output_dir, "checkpoint-7"))
        cb.on_train_begin(args, types.SimpleNamespace(global_step=7), Control())


@unittest.skipIf(torch is None, "PyTorch is not installed (scripts/setup.sh installs it)")
class WrappedModelTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "c.pt")

    def tearDown(self):
        self.tmp.cleanup()

    def model(self, seed):
        torch.manual_seed(seed)
        return torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))

    def same(self, a, b):
        return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)

    def test_a_wrapped_models_checkpoint_loads_bare_and_the_other_way(self):
        from squeeze_checkpoint.pytorch import torch_save_load
        saved = self.model(0)
        save, _ = torch_save_load(model=torch.nn.DataParallel(saved), rng=False)
        save(self.path)
        self.assertFalse(any(k.startswith("module.") for k in torch.load(self.path)["model"]))
        bare = self.model(1)
        torch_save_load(model=bare, rng=False)[1](self.path)
        self.assertTrue(self.same(bare.state_dict(), saved.state_dict()))
        save, _ = torch_save_load(model=self.model(2), rng=False)
        save(self.path)
        wrapped = torch.nn.DataParallel(self.model(3))
        torch_save_load(model=wrapped, rng=False)[1](self.path)
        self.assertTrue(self.same(wrapped.module.state_dict(), self.model(2).state_dict()))

    def test_an_older_checkpoint_of_a_wrapped_model_loads_bare(self):
        from squeeze_checkpoint.pytorch import torch_save_load
        wrapped = torch.nn.DataParallel(self.model(4))
        torch.save({"model": wrapped.state_dict()}, self.path)   # as the older helper saved it
        bare = self.model(5)
        torch_save_load(model=bare, rng=False)[1](self.path)
        self.assertTrue(self.same(bare.state_dict(), wrapped.module.state_dict()))


class CudaGeneratorsTest(unittest.TestCase):
    def test_only_the_devices_this_run_has_are_restored(self):
        from squeeze_checkpoint.pytorch import set_rng_state
        restored = {}
        cuda = types.SimpleNamespace(is_available=lambda: True, device_count=lambda: 1,
                                     set_rng_state=lambda s, d: restored.__setitem__(d, s))
        fake = types.SimpleNamespace(set_rng_state=lambda s: None, cuda=cuda)
        import random
        state = {"torch": None, "python": random.getstate(), "cuda": ["gpu0", "gpu1"]}
        set_rng_state(fake, state)   # saved with two GPUs, resumed with one
        self.assertEqual(restored, {0: "gpu0"})
        cuda.device_count = lambda: 3
        restored.clear()
        set_rng_state(fake, state)   # with three: the third keeps its own
        self.assertEqual(restored, {0: "gpu0", 1: "gpu1"})


if __name__ == "__main__":
    unittest.main()
