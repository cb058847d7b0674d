"""Elastic jobs without processes: ResumableSampler resumed at another world size goes on with
the next items of the same global order, none skipped or repeated (ranks stood in for by
samplers taken in lockstep; in order without PyTorch, shuffled with it), positions of the older
helper load, wrong ones are refused naming the value; grouped() gives an optimizer step's
micro-batches; accumulation_steps() keeps the global batch; and the COMPLETE marker reports
world_size, steps_per_s and samples_per_s measured over the steps since the resume or the last
save, the save's own time left out (a fake clock). The real multi-process run is
test_elastic_real.py."""

import json
import os
import tempfile
import unittest

from squeeze_checkpoint import Checkpointer, read_marker
from squeeze_checkpoint.elastic import StepRate, accumulation_steps
from squeeze_checkpoint.sampler import ResumableSampler

try:
    import torch
except ImportError:
    torch = None


class Loader:
    """A stand-in for a DataLoader made with `sampler`: batches of its indices."""

    def __init__(self, sampler, batch_size):
        self.sampler, self.batch_size, self.generator = sampler, batch_size, object()

    def __iter__(self):
        items = list(self.sampler)
        return iter([items[i:i + self.batch_size] for i in range(0, len(items), self.batch_size)])


class Ranks:
    """`world` samplers taken in lockstep, as the ranks of a job: each step every rank takes
    one batch. `taken[epoch]` lists what the ranks took together, in the global order (step by
    step, the ranks' batches dealt back in turn)."""

    def __init__(self, world, batch, state=None, size=100, shuffle=False):
        self.samplers = [ResumableSampler(size, shuffle=shuffle, seed=3, rank=r,
                                          world_size=world) for r in range(world)]
        for s in self.samplers:
            if state is not None:
                s.load_state_dict(state)
        self.batch = batch
        self.taken = {}

    def run(self, steps=None):
        """Takes `steps` steps, epoch after epoch (None: to the end of the current epoch);
        returns the position."""
        done = 0
        while True:
            gens = [s.batches(Loader(s, self.batch)) for s in self.samplers]
            epoch = self.samplers[0].epoch
            while steps is None or done < steps:
                batches = [next(g, None) for g in gens]
                if all(b is None for b in batches):
                    break  # the epoch is over on every rank; the next begins
                if None in batches:
                    raise AssertionError(f"the ranks' shares differ: {batches}")
                width = max(map(len, batches))
                self.taken.setdefault(epoch, []).extend(
                    b[i] for i in range(width) for b in batches if i < len(b))
                done += 1
            else:
                break
            if steps is None:
                break
        states = [s.state_dict() for s in self.samplers]
        if any(s != states[0] for s in states):
            raise AssertionError(f"the ranks' positions differ: {states}")
        return states[0]


def order(epoch, size=100, shuffle=False):
    return ResumableSampler(size, shuffle=shuffle, seed=3).global_order(epoch)


class SamplerResizeTest(unittest.TestCase):
    shuffle = False

    def elastic(self, phases, size=100, batch=4):
        """Runs the phases [(world_size, steps or None)], each resumed from the one before;
        returns what they took, per epoch."""
        taken, state = {}, None
        for world, steps in phases:
            ranks = Ranks(world, batch, state, size, self.shuffle)
            state = ranks.run(steps)
            for epoch, items in ranks.taken.items():
                taken.setdefault(epoch, []).extend(items)
        return taken, state

    def test_resized_mid_epoch_it_goes_on_with_the_next_items_of_the_same_order(self):
        # 2 ranks x 4 for 5 steps (40 items), 1 rank for 3 (12), 3 ranks to the end of the
        # epoch: 48 left, 16 each, none left out.
        taken, state = self.elastic([(2, 5), (1, 3), (3, None)])
        self.assertEqual(taken[0], order(0, shuffle=self.shuffle))
        self.assertEqual((state["epoch"], state["consumed"]), (1, 0))

    def test_the_few_items_that_do_not_divide_among_the_ranks_are_left_out_at_the_end(self):
        # 2 ranks x 4 for 3 steps (24), 3 ranks: 76 left, 25 each, the last 1 left out.
        taken, _ = self.elastic([(2, 3), (3, None)])
        self.assertEqual(taken[0], order(0, shuffle=self.shuffle)[:99])

    def test_an_epoch_ended_at_the_checkpoint_resumes_with_the_next_epoch(self):
        # 2 ranks x 4: 13 steps take 100 (the last batch 2 a rank); at 1 rank it is over.
        taken, state = self.elastic([(2, 13), (1, 2)])
        self.assertEqual(taken[0], order(0, shuffle=self.shuffle))
        self.assertEqual(taken[1], order(1, shuffle=self.shuffle)[:8])
        self.assertEqual((state["epoch"], state["consumed"]), (1, 8))

    def test_at_one_world_size_the_ranks_take_what_they_always_took(self):
        s = [ResumableSampler(100, shuffle=self.shuffle, seed=3, rank=r, world_size=3)
             for r in range(3)]
        for r in range(3):
            self.assertEqual(list(s[r]), order(0, shuffle=self.shuffle)[r:99:3])
            self.assertEqual(s[r].order(0), list(s[r]))
        ranks = Ranks(3, 4, shuffle=self.shuffle)
        state = ranks.run(2)
        self.assertEqual((state["consumed"], state["world_size"]), (24, 3))
        again = ResumableSampler(100, shuffle=self.shuffle, seed=3, rank=1, world_size=3)
        again.load_state_dict(state)
        self.assertEqual((again.taken, len(again)), (8, 25))
        self.assertEqual(list(again), order(0, shuffle=self.shuffle)[25:99:3])


@unittest.skipIf(torch is None, "PyTorch is not installed (scripts/setup.sh installs it)")
class ShuffledSamplerResizeTest(SamplerResizeTest):
    shuffle = True


class SamplerPositionTest(unittest.TestCase):
    def test_a_position_of_the_older_helper_loads_at_another_world_size(self):
        s = ResumableSampler(100, shuffle=False, rank=2, world_size=3)
        s.load_state_dict({"epoch": 1, "taken": 5, "size": 100, "seed": 0, "shuffle": False,
                           "world_size": 2})   # 5 a rank at 2 ranks: 10 in all
        self.assertEqual((s.epoch, s.consumed), (1, 10))
        self.assertEqual(list(s), list(range(12, 100, 3)))

    def test_a_wrong_position_is_refused_naming_the_value(self):
        state = ResumableSampler(100, shuffle=False).state_dict()
        for wrong, words in (({"consumed": 101}, "consumed 101"),
                             ({"consumed": -1}, "consumed -1"),
                             ({"consumed": "3"}, "consumed '3'"),
                             ({"epoch": -2}, "epoch -2"),
                             ({"size": 90}, "size 90")):
            with self.assertRaises(ValueError) as e:
                ResumableSampler(100, shuffle=False).load_state_dict({**state, **wrong})
            self.assertIn(words, str(e.exception))
        old = {"epoch": 0, "taken": 51, "world_size": 2}
        with self.assertRaises(ValueError) as e:
            ResumableSampler(100, shuffle=False).load_state_dict(old)
        self.assertIn("taken 51 per rank of world_size 2, so consumed 102", str(e.exception))

    def test_grouped_gives_an_optimizer_steps_micro_batches(self):
        s = ResumableSampler(40, shuffle=False, rank=0, world_size=2)   # 20 a rank
        groups = s.grouped(Loader(s, 4), 3)
        self.assertEqual(next(groups), [[0, 2, 4, 6], [8, 10, 12, 14], [16, 18, 20, 22]])
        self.assertEqual(s.consumed, 24)
        self.assertEqual(list(groups), [[[24, 26, 28, 30], [32, 34, 36, 38]]])  # the last: 2
        self.assertEqual((s.epoch, s.consumed), (1, 0))
        with self.assertRaises(ValueError) as e:
            next(s.grouped(Loader(s, 4), 0))
        self.assertIn("per_step=0", str(e.exception))


class AccumulationTest(unittest.TestCase):
    def test_the_global_batch_is_kept_at_every_world_size(self):
        self.assertEqual([accumulation_steps(24, 4, w) for w in (1, 2, 3, 6)], [6, 3, 2, 1])

    def test_a_global_batch_that_does_not_divide_is_refused_naming_the_values(self):
        with self.assertRaises(ValueError) as e:
            accumulation_steps(24, 4, 4)
        self.assertIn("global_batch 24 is not a multiple of world_size 4 x batch_size 4 = 16",
                      str(e.exception))
        for args, words in (((0, 4, 1), "global_batch: 0"), ((24, 2.0, 1), "batch_size: 2.0"),
                            ((24, 4, True), "world_size: True")):
            with self.assertRaises(ValueError) as e:
                accumulation_steps(*args)
            self.assertIn(words, str(e.exception))


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class FakeCollective:
    rank, world_size = 0, 4

    def agree(self, flags):
        return flags

    def barrier(self):
        pass


class RateTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.env = {"SQUEEZE_CHECKPOINT_DIR": self.tmp.name}
        self.clock = Clock()

    def tearDown(self):
        self.tmp.cleanup()

    def make(self, **kw):
        def save(path):  # a save that takes 100 s
            self.clock.now += 100
            with open(path, "w") as f:
                f.write("{}")

        c = Checkpointer(save=save, load=lambda p: None, environ=self.env, clock=self.clock,
                         install_signals=False, log=lambda s: None, **kw)
        self.addCleanup(c.requests.uninstall)
        return c

    def steps(self, c, start, stop, seconds, samples=None):
        for step in range(start + 1, stop + 1):
            self.clock.now += seconds
            c.boundary(step, samples)

    def marker(self):
        with open(os.path.join(self.tmp.name, "COMPLETE")) as f:
            return json.load(f)

    def test_the_marker_reports_the_world_size_and_the_rates_without_the_saves_time(self):
        c = self.make(samples_per_step=32, collective=FakeCollective())
        self.clock.now = 50                   # building the model: before resume(), not counted
        self.assertEqual(c.resume(default=0), 0)
        self.steps(c, 0, 10, 0.5)
        c.save(10)
        m = self.marker()
        self.assertEqual((m["world_size"], m["steps_per_s"], m["samples_per_s"]), (4, 2.0, 64.0))
        self.steps(c, 10, 14, 0.25)           # after a save of 100 s
        c.save(14)
        m = self.marker()
        self.assertEqual((m["steps_per_s"], m["samples_per_s"]), (4.0, 128.0))
        self.assertEqual(read_marker(self.tmp.name)["step"], 14)  # a reader of the old fields

    def test_samples_given_at_each_boundary_and_none_given(self):
        c = self.make(world_size=2)
        c.resume()
        self.steps(c, 0, 4, 1.0, samples=10)
        c.save(4)
        self.assertEqual(self.marker()["samples_per_s"], 10.0)
        self.steps(c, 4, 6, 1.0)              # the steps' samples unknown: no samples_per_s
        c.save(6)
        m = self.marker()
        self.assertEqual((m["world_size"], m["steps_per_s"]), (2, 1.0))
        self.assertNotIn("samples_per_s", m)

    def test_a_save_before_any_step_reports_no_rate(self):
        c = self.make(samples_per_step=8)
        c.resume()
        self.clock.now += 3
        c.save(0)
        self.assertEqual(self.marker()["world_size"], 1)
        self.assertNotIn("steps_per_s", self.marker())

    def test_asynchronous_saves_report_them_too(self):
        c = Checkpointer(state={"x": 1}, environ=self.env, clock=self.clock, asynchronous=True,
                         samples_per_step=16, install_signals=False, log=lambda s: None)
        self.addCleanup(c.requests.uninstall)
        for step in c.steps(c.resume(), 5):
            self.clock.now += 2
        c.save(5)
        c.wait()
        m = self.marker()
        self.assertEqual((m["steps_per_s"], m["samples_per_s"]), (0.5, 8.0))

    def test_wrong_values_are_refused_naming_them(self):
        for kw, words in (({"samples_per_step": 0}, "samples_per_step: 0"),
                          ({"world_size": 0}, "world_size: 0"),
                          ({"world_size": 2, "collective": FakeCollective()},
                           "world_size=2, but the collective has 4 ranks")):
            with self.assertRaises(ValueError) as e:
                self.make(**kw)
            self.assertIn(words, str(e.exception))

    def test_a_rate_counts_from_the_first_known_step(self):
        clock = Clock()
        rate = StepRate(clock)
        rate.start()                          # the step not known yet
        clock.now = 2
        rate.count(8)                         # taken as one step
        clock.now = 4
        rate.count(9)
        self.assertEqual(rate.fields(), {"world_size": 1, "steps_per_s": 0.5})


if __name__ == "__main__":
    unittest.main()
