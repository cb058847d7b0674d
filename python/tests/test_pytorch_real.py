"""squeeze_checkpoint.pytorch against the real PyTorch (Debian's python3-torch, CPU): a
training loop whose every step draws from the random number generators (dropout, PyTorch's
and Python's generators for its batches) is saved part way, loaded into fresh objects after
the generators were disturbed, and must go on exactly as the uninterrupted run: the same loss
at every step and the same weights, optimizer and LR scheduler state, bit for bit. Skipped
where PyTorch is not installed (scripts/setup.sh installs it)."""

import os
import random
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

try:
    import torch
except ImportError:
    torch = None

STEPS, SAVE_AT = 40, 15


def build(seed):
    torch.manual_seed(seed)
    model = torch.nn.Sequential(torch.nn.Linear(8, 32), torch.nn.ReLU(), torch.nn.Dropout(0.3),
                                torch.nn.Linear(32, 1))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.5)
    return model, optimizer, scheduler


def step(model, optimizer, scheduler):
    x = torch.randn(16, 8)                     # PyTorch's global generator
    keep = random.sample(range(16), 12)        # Python's generator
    x = x[keep]
    y = x.sum(dim=1, keepdim=True)
    loss = torch.nn.functional.mse_loss(model(x), y)  # dropout: PyTorch's generator again
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
    return loss.item()


def same_tensors(a, b):
    """Whether two state_dict()s hold the same values, bit for bit."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_tensors(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_tensors(x, y) for x, y in zip(a, b))
    if torch.is_tensor(a):
        return torch.equal(a, b)
    return a == b


@unittest.skipIf(torch is None, "PyTorch is not installed (scripts/setup.sh installs it)")
class RealPyTorchTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "ckpt.pt")

    def tearDown(self):
        self.tmp.cleanup()

    def straight(self):
        random.seed(1)
        objects = build(0)
        losses = [step(*objects) for _ in range(STEPS)]
        return losses, objects

    def interrupted(self, rng):
        from squeeze_checkpoint.pytorch import torch_save_load
        random.seed(1)
        model, optimizer, scheduler = build(0)
        losses = [step(model, optimizer, scheduler) for _ in range(SAVE_AT)]
        save, _ = torch_save_load(model=model, optimizer=optimizer, scheduler=scheduler, rng=rng)
        save(self.path)
        # A new process: other initial weights, the generators elsewhere.
        model, optimizer, scheduler = build(123)
        random.seed(99)
        torch.randn(100)
        _, load = torch_save_load(model=model, optimizer=optimizer, scheduler=scheduler, rng=rng)
        load(self.path)
        losses += [step(model, optimizer, scheduler) for _ in range(STEPS - SAVE_AT)]
        return losses, (model, optimizer, scheduler)

    def test_a_resumed_run_equals_an_uninterrupted_one_bit_for_bit(self):
        losses, objects = self.straight()
        resumed_losses, resumed = self.interrupted(rng=True)
        self.assertEqual(resumed_losses, losses)
        for a, b in zip(objects, resumed):
            self.assertTrue(same_tensors(a.state_dict(), b.state_dict()), type(a).__name__)
        self.assertEqual(resumed[2].get_last_lr(), objects[2].get_last_lr())

    def test_without_the_generators_the_run_goes_elsewhere(self):
        # What the generators' states are for: the same save and load without them resumes
        # the weights but not the draws, and the losses part at the first step after the load.
        losses, _ = self.straight()
        resumed_losses, _ = self.interrupted(rng=False)
        self.assertEqual(resumed_losses[:SAVE_AT], losses[:SAVE_AT])
        self.assertNotEqual(resumed_losses[SAVE_AT], losses[SAVE_AT])

    def test_a_checkpoint_from_before_the_generators_loads(self):
        from squeeze_checkpoint.pytorch import torch_save_load
        model, optimizer, scheduler = build(0)
        save, _ = torch_save_load(model=model, rng=False)
        save(self.path)
        fresh = build(5)[0]
        state = torch.get_rng_state()
        _, load = torch_save_load(model=fresh)
        load(self.path)
        self.assertTrue(same_tensors(fresh.state_dict(), model.state_dict()))
        self.assertTrue(torch.equal(torch.get_rng_state(), state))

    def test_the_generators_name_is_refused_for_an_object(self):
        from squeeze_checkpoint.pytorch import torch_save_load
        with self.assertRaises(ValueError) as e:
            torch_save_load(squeeze_rng=build(0)[0])
        self.assertIn("squeeze_rng", str(e.exception))


if __name__ == "__main__":
    unittest.main()
