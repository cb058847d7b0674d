"""Elastic jobs: squeeze resizes a job at its checkpoints (it saves, stops, and the next run starts
with another number of GPUs, so another world size). What the helper gives such a job:

- accumulation_steps(): the gradient accumulation that keeps the global batch (the samples of
  one optimizer step, all ranks together) the same at every world size, so the learning rate,
  the schedule and the steps per epoch stay those of a run that was never resized;
- StepRate: the job's steps and samples per second, which each checkpoint's marker reports
  (world_size, steps_per_s, samples_per_s) so that squeeze learns how the job scales.

ResumableSampler (sampler.py) keeps the data position in a form that does not depend on the
world size. Standard library only.
"""


def _positive_int(name, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name}: {value!r} is not a positive integer")
    return value


def accumulation_steps(global_batch, batch_size, world_size):
    """The micro-batches of `batch_size` (per rank) each rank accumulates per optimizer step so
    that one step takes `global_batch` samples over `world_size` ranks:
    global_batch / (world_size * batch_size). ValueError, naming the values, when that is not
    a whole number (choose a global batch that every world size the job may get divides)."""
    _positive_int("global_batch", global_batch)
    _positive_int("batch_size", batch_size)
    _positive_int("world_size", world_size)
    per_micro_step = world_size * batch_size
    if global_batch % per_micro_step:
        raise ValueError(
            f"global_batch {global_batch} is not a multiple of world_size {world_size} x "
            f"batch_size {batch_size} = {per_micro_step}: no whole number of accumulation steps "
            f"keeps it (choose a global batch that batch_size x every world size divides, "
            f"e.g. {batch_size} x 12 for 1, 2, 3, 4 or 6 ranks)")
    return global_batch // per_micro_step


def _figure(value):
    """A rate for the marker: six significant digits."""
    return float(f"{value:.6g}")


class StepRate:
    """Steps and samples per second of training over a window: from start() (the run's start,
    after its resume, or the end of the last save) to the last count() (the last step
    boundary), so the time of saves is left out. `samples_per_step`: the samples of one step,
    all ranks together (the global batch), or None; count(step, samples=n) gives a step's own.
    Used from one thread."""

    def __init__(self, clock, world_size=1, samples_per_step=None):
        if samples_per_step is not None and (isinstance(samples_per_step, bool) or
                                             not isinstance(samples_per_step, (int, float)) or
                                             samples_per_step <= 0):
            raise ValueError(f"samples_per_step: {samples_per_step!r} is not a positive number")
        self._clock = clock
        self.world_size = _positive_int("world_size", world_size)
        self.samples_per_step = samples_per_step
        self.stop()

    def stop(self):
        """No window until the next start()."""
        self._start_time = self._last_time = None
        self._start_step = self._last_step = None
        self._samples = 0
        self._samples_known = True

    @property
    def started(self):
        return self._start_time is not None

    @property
    def start_step(self):
        """The step the window began at (None: not known yet)."""
        return self._start_step

    def start(self, step=None):
        """A new window from now, at `step` (the next step to run; None: not known yet, then
        the first count() is taken as one step)."""
        self.stop()
        self._start_time = self._last_time = self._clock()
        self._start_step = self._last_step = step

    def count(self, step, samples=None):
        """A step boundary: `step` is the next step to run. `samples`: what the steps since
        the last count took (all ranks); default samples_per_step for each step."""
        if not self.started:
            self.start(step)
            return
        if self._start_step is None:
            self._start_step = self._last_step = step - 1
        steps = step - self._last_step
        if steps < 0:
            self.start(step)  # the loop went back (a reload): a new window
            return
        if samples is not None:
            self._samples += samples
        elif steps and self.samples_per_step is not None:
            self._samples += steps * self.samples_per_step
        elif steps:
            self._samples_known = False
        self._last_step = step
        self._last_time = self._clock()

    def fields(self):
        """The marker's fields: world_size, and steps_per_s and samples_per_s when a step was
        counted in the window (samples_per_s only when every step's samples are known)."""
        found = {"world_size": self.world_size}
        if not self.started or self._start_step is None:
            return found
        steps = self._last_step - self._start_step
        seconds = self._last_time - self._start_time
        if steps <= 0 or seconds <= 0:
            return found
        found["steps_per_s"] = _figure(steps / seconds)
        if self._samples_known and self._samples > 0:
            found["samples_per_s"] = _figure(self._samples / seconds)
        return found
