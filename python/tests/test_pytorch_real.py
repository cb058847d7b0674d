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


@unittest.skipIf(torch is None, "PyTorch is not installed (scripts/setup.sh installs it)")
class CaptureTest(unittest.TestCase):
    def test_a_capture_keeps_the_state_of_its_step_while_training_goes_on(self):
        from squeeze_checkpoint.pytorch import torch_save_load
        model, optimizer, scheduler = build(0)
        step(model, optimizer, scheduler)
        save, load = torch_save_load(model=model, optimizer=optimizer)
        snapshot = save.capture()
        want = {k: v.clone() for k, v in model.state_dict().items()}
        step(model, optimizer, scheduler)  # the weights and Adam's moments change in place
        with tempfile.TemporaryDirectory() as d:
            save.write(snapshot, os.path.join(d, "c.pt"))
            fresh, fresh_opt, _ = build(9)
            _, load = torch_save_load(model=fresh, optimizer=fresh_opt)
            load(os.path.join(d, "c.pt"))
        self.assertTrue(same_tensors(fresh.state_dict(), want))
        self.assertFalse(same_tensors(fresh.state_dict(), model.state_dict()))


@unittest.skipIf(torch is None, "PyTorch is not installed (scripts/setup.sh installs it)")
class ResumableSamplerTest(unittest.TestCase):
    def data(self, n=100):
        return torch.utils.data.TensorDataset(torch.arange(n))

    def loader(self, sampler, data, workers=2):
        return torch.utils.data.DataLoader(data, batch_size=8, sampler=sampler,
                                           num_workers=workers, generator=torch.Generator())

    def run_epochs(self, sampler, loader, epochs, stop_after=None):
        """The batches (as lists) until `epochs` are done or `stop_after` were taken."""
        seen = []
        while sampler.epoch < epochs:
            for (batch,) in sampler.batches(loader):
                seen.append(batch.tolist())
                if stop_after is not None and len(seen) == stop_after:
                    return seen
        return seen

    def test_a_loader_with_workers_resumes_at_the_next_batch_taken(self):
        from squeeze_checkpoint.pytorch import ResumableSampler
        data = self.data()
        s = ResumableSampler(len(data), seed=3)
        straight = self.run_epochs(s, self.loader(s, data), 3)
        self.assertEqual(len(straight), 3 * 13)
        self.assertNotEqual(straight[:13], straight[13:26])  # a new order each epoch
        self.assertEqual(sorted(sum(straight[:13], [])), list(range(100)))
        for stop in (5, 13, 20):  # mid-epoch, at the end of an epoch, in the second epoch
            s = ResumableSampler(len(data), seed=3)
            first = self.run_epochs(s, self.loader(s, data), 3, stop_after=stop)
            state = s.state_dict()  # the workers have fetched batches beyond these
            again = ResumableSampler(data, seed=3)
            again.load_state_dict(state)
            rest = self.run_epochs(again, self.loader(again, data), 3)
            self.assertEqual(first + rest, straight, f"stopped after {stop} batches")

    def test_ranks_take_disjoint_equal_shares(self):
        from squeeze_checkpoint.pytorch import ResumableSampler
        shares = [list(ResumableSampler(10, seed=1, rank=r, world_size=3)) for r in range(3)]
        self.assertEqual([len(s) for s in shares], [3, 3, 3])
        self.assertEqual(len(set(sum(shares, []))), 9)
        self.assertEqual(list(ResumableSampler(5, shuffle=False)), [0, 1, 2, 3, 4])

    def test_a_position_of_another_data_set_is_refused(self):
        from squeeze_checkpoint.pytorch import ResumableSampler
        s = ResumableSampler(100, seed=3)
        for state, words in (({**s.state_dict(), "size": 90}, "size 90"),
                             ({**s.state_dict(), "seed": 4}, "seed 4"),
                             ({**s.state_dict(), "consumed": 101}, "consumed 101"),
                             ({**s.state_dict(), "epoch": "x"}, "epoch 'x'")):
            with self.assertRaises(ValueError) as e:
                ResumableSampler(100, seed=3).load_state_dict(state)
            self.assertIn(words, str(e.exception))
        with self.assertRaises(ValueError):
            ResumableSampler(10, rank=2, world_size=2)

    def test_batches_needs_a_loader_made_with_it_and_warns_without_a_generator(self):
        from squeeze_checkpoint.pytorch import ResumableSampler
        data = self.data(16)
        s = ResumableSampler(16)
        with self.assertRaises(ValueError) as e:
            next(s.batches(self.loader(ResumableSampler(16), data, workers=0)))
        self.assertIn("not made with this sampler", str(e.exception))
        plain = torch.utils.data.DataLoader(data, batch_size=4, sampler=s)
        with self.assertWarns(UserWarning) as w:
            next(s.batches(plain))
        self.assertIn("generator=torch.Generator()", str(w.warning))
