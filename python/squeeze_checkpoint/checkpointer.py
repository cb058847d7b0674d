"""Checkpointer: squeeze's checkpoint protocol for a step-by-step training loop.

    ckpt = Checkpointer(save=save_fn, load=load_fn)   # or Checkpointer(state=a_json_dict)
    start = ckpt.resume(default=0)
    for step in ckpt.steps(start, total):
        ...one step...

It resumes from SQUEEZE_CHECKPOINT_DIR when SQUEEZE_RESUME is set, saves atomically between
steps (every `interval` seconds or SQUEEZE_CHECKPOINT_INTERVAL, whichever is shorter, and
when squeeze sends SIGUSR1), writes the COMPLETE marker after each save, and leaves after the
save squeeze asked for (exit 0) or after SIGTERM (a save, then exit 143). With
SQUEEZE_CHECKPOINT_STORE each checkpoint is also uploaded to object storage before its marker,
and a resumed run fetches the newest complete one from there (object_store.py). One per
process, used from the main thread. See docs/python-checkpoint.md.
"""

import json
import os
import signal
import sys
import threading
import time

from . import marker as _marker
from . import object_store as _object_store
from .elastic import StepRate
from .marker import CheckpointError
from .signals import Requests
from .store_config import STORE, store_from_env
from .writer import DATA_PREFIX, Writer  # noqa: F401 - DATA_PREFIX is part of the module's API
EXIT_AFTER_SIGTERM = 128 + 15


def _stop_watching_children():
    """Once the job leaves after this save: SIGCHLD back to its default. squeeze sends the
    job's process group SIGTERM once the checkpoint it asked for is on disk, which ends the
    job's helper processes too (PyTorch's DataLoader workers); PyTorch's SIGCHLD handler would
    turn their end into an exception in the middle of the save or of the wait for it, and the
    job would exit 1 instead of leaving cleanly."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)


def _guard_children(requests, log):
    """Wraps the SIGCHLD handler a library installed (PyTorch's DataLoader raises from it when
    a worker ends): once squeeze has asked the job to checkpoint or stop, the end of a helper
    process is squeeze's SIGTERM to the process group (sent as soon as a checkpoint is on disk,
    maybe a periodic one the job saved before it saw the request), not a failure. The job then
    saves and leaves at its next boundary instead of dying of an exception mid-step."""
    if threading.current_thread() is not threading.main_thread():
        return
    current = signal.getsignal(signal.SIGCHLD)
    if not callable(current) or getattr(current, "_squeeze_guard", False):
        return

    def guarded(signum, frame):
        try:
            current(signum, frame)
        except Exception as e:  # noqa: BLE001 - whatever the library raises for a dead child
            if not (requests.stop or requests.checkpoint):
                raise
            log(f"a helper process ended after squeeze's request ({e}); leaving at the "
                f"next step boundary")

    guarded._squeeze_guard = True
    signal.signal(signal.SIGCHLD, guarded)


def env_interval(environ=None):
    """SQUEEZE_CHECKPOINT_INTERVAL in seconds, or None when unset or empty."""
    value = (environ if environ is not None else os.environ).get("SQUEEZE_CHECKPOINT_INTERVAL", "")
    if not value.strip():
        return None
    try:
        seconds = float(value)
    except ValueError:
        raise CheckpointError(
            f"SQUEEZE_CHECKPOINT_INTERVAL={value!r} is not a number of seconds") from None
    return seconds if seconds > 0 else None


def shortest(*intervals):
    given = [i for i in intervals if i is not None and i > 0]
    return min(given) if given else None


class Checkpointer:
    """Saves, resumes and answers squeeze's signals for one training loop.

    save(path) writes the whole training state to `path` (a file or a folder it creates);
    load(path) restores it. Or pass `state`, a dict of JSON values, which is saved as JSON and
    restored in place. `interval`: seconds between periodic saves (None: only when asked;
    SQUEEZE_CHECKPOINT_INTERVAL shortens it). `directory`: where checkpoints go when
    SQUEEZE_CHECKPOINT_DIR is not set (outside squeeze); with neither, nothing is saved.
    `exit_on_request`: leave (exit 0) after the save SIGUSR1 asked for; False keeps training
    until SIGTERM. `log`: a function for one-line messages (default: to stderr).

    `asynchronous=True`: a save captures the state at the step boundary (save.capture(), a
    copy in memory: the only pause of training) and a background thread writes it
    (save.write(snapshot, path)), then the marker once the files are on disk. The saves of
    torch_save_load() and of state= have both steps; make others with two_phase_save(). One
    write runs at a time: a save due while the last is still being written waits for it. A
    save squeeze asked for is waited for before the job leaves; wait() waits for the last one.

    `collective`: the ranks of a distributed job (squeeze_checkpoint.distributed.
    TorchDistributed() for torch.distributed): at every boundary they agree (an all-reduce) on
    whether any rank was asked to save or stop or is due to save, so all save at the same step;
    rank 0 writes the checkpoint and the marker, and every rank leaves after a barrier.

    `store` is the object_store.ObjectStore SQUEEZE_CHECKPOINT_STORE names (None without one):
    each save uploads the checkpoint's files and then its manifest before writing the marker,
    and resume() takes the newest complete checkpoint of the store.

    Each marker reports the run's speed for squeeze to learn how the job scales: `world_size`
    (the collective's, or `world_size=`, else 1), and over the steps since the run's resume()
    or the last save, the time of saves left out, `steps_per_s` and, given
    `samples_per_step=` (the global batch: the samples of one step, all ranks together) or
    boundary(step, samples=n), `samples_per_s`."""

    def __init__(self, save=None, load=None, *, state=None, interval=None, directory=None,
                 exit_on_request=True, install_signals=True, log=None, environ=None,
                 clock=time.monotonic, asynchronous=False, collective=None,
                 samples_per_step=None, world_size=None):
        if state is not None and (save is not None or load is not None):
            raise ValueError("give either save= and load= or state=, not both")
        if state is not None:
            if not isinstance(state, dict):
                raise TypeError(f"state= must be a dict of JSON values, not {type(state).__name__}")
            save, load = _json_functions(state)
        if save is None or load is None:
            raise ValueError("give save= and load= (functions of a path), or state= (a dict)")
        if asynchronous and not (callable(getattr(save, "capture", None))
                                 and callable(getattr(save, "write", None))):
            raise ValueError("asynchronous=True needs a save in two steps, capture() and "
                             "write(snapshot, path): torch_save_load()'s, state=, or "
                             "two_phase_save(capture, write)")
        self._save, self._load = save, load
        self.asynchronous = asynchronous
        self.collective = collective
        self.rank = collective.rank if collective is not None else 0
        ranks = getattr(collective, "world_size", None)  # a collective of one's own may not say
        if world_size is None:
            world_size = ranks or 1
        elif ranks is not None and world_size != ranks:
            raise ValueError(f"world_size={world_size!r}, but the collective has {ranks} ranks")
        self.rate = StepRate(clock, world_size, samples_per_step)  # ValueError naming a value
        self.world_size = world_size
        self._env = environ if environ is not None else os.environ
        self.directory = self._env.get("SQUEEZE_CHECKPOINT_DIR") or directory
        self.interval = shortest(interval, env_interval(self._env))
        self.exit_on_request = exit_on_request
        self._log = log or (lambda text: print(f"squeeze_checkpoint: {text}", file=sys.stderr,
                                               flush=True))
        self.store = store_from_env(self._env, self._log)  # None unless squeeze names one
        if self.store is not None and not self.directory:
            raise CheckpointError(f"{STORE}={self._env[STORE]!r} needs a local folder too: "
                                  f"SQUEEZE_CHECKPOINT_DIR or directory=")
        self._clock = clock
        self._last_save = clock()
        self.rate.start()
        self.requests = Requests()
        if install_signals and not self.requests.install():
            self._log("not in the main thread: SIGUSR1 and SIGTERM are not handled")
        self.step = None           # the next step to run, as of the last boundary
        self.saved_step = None     # the step of the last checkpoint (saved or resumed)
        self._seq = 0
        self._writer = (Writer(self.directory, self._log, self.store, self._env)
                        if self.directory else None)
        if self.directory:
            os.makedirs(self.directory, exist_ok=True)
        else:
            self._log("no SQUEEZE_CHECKPOINT_DIR and no directory=: checkpoints are not saved")
        if self.store is not None:
            cap = (f", transfers capped at {self.store.max_gbps:g} Gbit/s"
                   if self.store.max_gbps else "")
            self._log(f"checkpoints are uploaded to {self.store.url} (keeping the newest "
                      f"{self.store.keep}{cap})")
        if self.interval is not None:
            self._log(f"periodic saves every {self.interval:g}s")
        if asynchronous:
            self._log("asynchronous saves: written in the background")

    @property
    def resuming(self):
        """Whether squeeze asked this run to continue from the checkpoint (SQUEEZE_RESUME)."""
        return bool(self._env.get("SQUEEZE_RESUME")) and bool(self.directory)

    def resume(self, default=0):
        """Loads the last checkpoint when squeeze says to resume and returns its step (the next
        step to run); otherwise returns `default` and loads nothing. CheckpointError, naming
        the file, when the checkpoint is missing or cannot be read."""
        if not self.resuming:
            self.step = default
            self.rate.start(default)
            return default
        if self.store is not None:
            found = _object_store.newest_complete(self.store, self.directory, self._log)
        else:
            found = _marker.read_marker(self.directory)
        if found is None:
            raise CheckpointError(
                f"SQUEEZE_RESUME is set but there is no checkpoint marker "
                f"{os.path.join(self.directory, _marker.MARKER)}: the checkpoint folder was "
                f"emptied; resubmit the job to start over")
        path = _marker.data_path(self.directory, found)
        if not os.path.exists(path):
            raise CheckpointError(f"the checkpoint {path} named by "
                                  f"{os.path.join(self.directory, _marker.MARKER)} is missing")
        try:
            self._load(path)
        except Exception as e:  # noqa: BLE001 - any failure of the user's load names the file
            raise CheckpointError(f"cannot load the checkpoint {path}: "
                                  f"{type(e).__name__}: {e}") from e
        self._seq = found["seq"]
        self.step = self.saved_step = found["step"]
        self._last_save = self._clock()
        self.rate.start(found["step"])
        self._log(f"resumed from {path} at step {found['step']} "
                  f"(attempt {self._env.get('SQUEEZE_ATTEMPT', '?')})")
        return found["step"]

    def steps(self, start, stop):
        """Yields start, start + 1, ..., stop - 1. After each step (at the boundary) it saves
        when a save is due or asked for, and leaves when squeeze asked it to."""
        step = start
        self.step = step
        if self.rate.started and self.rate.start_step is None:
            self.rate.start(start)
        self.requests.tracking = True
        while step < stop:
            self.requests.in_step = step
            yield step
            self.requests.in_step = None
            step += 1
            self.boundary(step)
        if self.requests.pending() or self.collective is not None:
            self.boundary(step)  # a request during the last step is answered too
        self.wait()

    def boundary(self, step, samples=None):
        """Call between two steps with the next step to run (steps() does it for you): saves
        if due or asked for, then exits if squeeze asked the job to leave. Returns whether it
        saved. With a collective, every rank must call it at every boundary. `samples`: the
        samples the step took, all ranks together (default: samples_per_step)."""
        self.step = step
        self.rate.count(step, samples)
        _guard_children(self.requests, self._log)
        due = self.interval is not None and self._clock() - self._last_save >= self.interval
        if self.collective is not None:
            checkpoint, stopped, due = self._agree(due)
        else:
            checkpoint, stopped = self.requests.checkpoint, self.requests.stop
        # Decided on the flags as they are now: a request that comes during the save is
        # answered at the next boundary, and a SIGTERM that comes once this save is written
        # (squeeze's follow-up to the checkpoint it asked for) does not change the exit.
        if not (checkpoint or stopped or due):
            return False
        if checkpoint or stopped:
            self._log(f"{self.requests.describe()}: saving at the step boundary (step {step})")
        leaving = stopped or (checkpoint and self.exit_on_request)
        if leaving:
            _stop_watching_children()
        self.save(step)
        if leaving:
            self.wait()  # the checkpoint squeeze waits for is on disk before the job leaves
            if self.collective is not None:
                self.collective.barrier()  # every rank leaves once rank 0's marker is written
        if stopped:
            self._log(f"leaving after SIGTERM (exit {EXIT_AFTER_SIGTERM})")
            self.requests.ignore_stop()
            sys.exit(EXIT_AFTER_SIGTERM)
        if checkpoint:
            self.requests.clear_checkpoint()
            if self.exit_on_request:
                self._log("leaving after the checkpoint squeeze asked for (exit 0)")
                self.requests.ignore_stop()
                sys.exit(0)
        return True

    def _agree(self, due):
        """The ranks' requests and due saves, combined (any rank's counts for all): returns
        (checkpoint asked, stop asked, save due), the same on every rank. A request another
        rank got becomes this rank's."""
        checkpoint, stop, due = self.collective.agree(
            [int(self.requests.checkpoint), int(self.requests.stop), int(due)])
        relayed = (checkpoint and not self.requests.checkpoint) or (stop and not self.requests.stop)
        self.requests.checkpoint = self.requests.checkpoint or bool(checkpoint)
        self.requests.stop = self.requests.stop or bool(stop)
        if relayed:
            self.requests.during_step = None
            self.requests.elsewhere = True
        return bool(checkpoint), bool(stop), bool(due)

    def save(self, step):
        """Saves a checkpoint at `step` now (the next step to run): the data to a temporary
        name, renamed into place, then the COMPLETE marker; older checkpoints are removed after.
        Asynchronous: captures the state now and writes it in the background (returns before
        it is on disk). Nothing is saved without a directory, or on a rank other than 0.
        Returns the data's path, or None."""
        self.rate.count(step)
        rate = self.rate.fields()
        if not self.directory or self.rank != 0:
            self._last_save = self._clock()
            if self.directory:
                self.saved_step = step  # rank 0 saved it
            self.rate.start(step)
            return None
        self._writer.wait()
        seq = self._writer.next_seq(self._seq)
        started = time.monotonic()
        if self.asynchronous:
            snapshot = self._save.capture()
            stall = time.monotonic() - started
            self._seq, self.saved_step = seq, step
            self._last_save = self._clock()
            self._writer.start(seq, step, lambda path: self._save.write(snapshot, path),
                               started, stall, rate)
            self.rate.start(step)
            return os.path.join(self.directory, f"{DATA_PREFIX}{seq}")
        final = self._writer.write(seq, step, self._save, started, extra=rate)
        self._seq, self.saved_step = seq, step
        self._last_save = self._clock()
        self.rate.start(step)
        return final

    def wait(self):
        """Waits until the last save is on disk with its marker (asynchronous saves; returns
        at once otherwise). CheckpointError if a background save failed."""
        if self._writer is not None:
            self._writer.wait()


def two_phase_save(capture, write):
    """A save for asynchronous checkpoints: capture() returns a copy of the state (taken at the
    step boundary, while training waits), write(snapshot, path) writes it (in the background).
    Called as save(path) it does both at once."""

    def save(path):
        write(capture(), path)

    save.capture, save.write = capture, write
    return save


def _json_functions(state):
    def write(text, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    save = two_phase_save(lambda: json.dumps(state), write)

    def load(path):
        with open(path, encoding="utf-8") as f:
            loaded = json.load(f)
        if not isinstance(loaded, dict):
            raise ValueError("not a JSON object")
        state.clear()
        state.update(loaded)

    return save, load
