"""Checkpointer: squeeze's checkpoint protocol for a step-by-step training loop.

    ckpt = Checkpointer(save=save_fn, load=load_fn)   # or Checkpointer(state=a_json_dict)
    start = ckpt.resume(default=0)
    for step in ckpt.steps(start, total):
        ...one step...

It resumes from SQUEEZE_CHECKPOINT_DIR when SQUEEZE_RESUME is set, saves atomically between
steps (every `interval` seconds or SQUEEZE_CHECKPOINT_INTERVAL, whichever is shorter, and
when squeeze sends SIGUSR1), writes the COMPLETE marker after each save, and leaves after the
save squeeze asked for (exit 0) or after SIGTERM (a save, then exit 143). One per process,
used from the main thread. See docs/python-checkpoint.md.
"""

import json
import os
import sys
import time

from . import marker as _marker
from .marker import CheckpointError
from .signals import Requests

DATA_PREFIX = "checkpoint-"
EXIT_AFTER_SIGTERM = 128 + 15


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
    until SIGTERM. `log`: a function for one-line messages (default: to stderr)."""

    def __init__(self, save=None, load=None, *, state=None, interval=None, directory=None,
                 exit_on_request=True, install_signals=True, log=None, environ=None,
                 clock=time.monotonic):
        if state is not None and (save is not None or load is not None):
            raise ValueError("give either save= and load= or state=, not both")
        if state is not None:
            if not isinstance(state, dict):
                raise TypeError(f"state= must be a dict of JSON values, not {type(state).__name__}")
            save, load = _json_functions(state)
        if save is None or load is None:
            raise ValueError("give save= and load= (functions of a path), or state= (a dict)")
        self._save, self._load = save, load
        self._env = environ if environ is not None else os.environ
        self.directory = self._env.get("SQUEEZE_CHECKPOINT_DIR") or directory
        self.interval = shortest(interval, env_interval(self._env))
        self.exit_on_request = exit_on_request
        self._log = log or (lambda text: print(f"squeeze_checkpoint: {text}", file=sys.stderr,
                                               flush=True))
        self._clock = clock
        self._last_save = clock()
        self.requests = Requests()
        if install_signals and not self.requests.install():
            self._log("not in the main thread: SIGUSR1 and SIGTERM are not handled")
        self.step = None           # the next step to run, as of the last boundary
        self.saved_step = None     # the step of the last checkpoint (saved or resumed)
        self._seq = 0
        if self.directory:
            os.makedirs(self.directory, exist_ok=True)
        else:
            self._log("no SQUEEZE_CHECKPOINT_DIR and no directory=: checkpoints are not saved")
        if self.interval is not None:
            self._log(f"periodic saves every {self.interval:g}s")

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
            return default
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
        self._log(f"resumed from {path} at step {found['step']} "
                  f"(attempt {self._env.get('SQUEEZE_ATTEMPT', '?')})")
        return found["step"]

    def steps(self, start, stop):
        """Yields start, start + 1, ..., stop - 1. After each step (at the boundary) it saves
        when a save is due or asked for, and leaves when squeeze asked it to."""
        step = start
        self.step = step
        self.requests.tracking = True
        while step < stop:
            self.requests.in_step = step
            yield step
            self.requests.in_step = None
            step += 1
            self.boundary(step)
        if self.requests.pending():  # asked while the last boundary saved: answer it too
            self.boundary(step)

    def boundary(self, step):
        """Call between two steps with the next step to run (steps() does it for you): saves
        if due or asked for, then exits if squeeze asked the job to leave. Returns whether it
        saved."""
        self.step = step
        asked = self.requests.pending()
        due = self.interval is not None and self._clock() - self._last_save >= self.interval
        if not (asked or due):
            return False
        if asked:
            self._log(f"{self.requests.describe()}: saving at the step boundary (step {step})")
        self.save(step)
        if self.requests.stop:
            self._log(f"leaving after SIGTERM (exit {EXIT_AFTER_SIGTERM})")
            sys.exit(EXIT_AFTER_SIGTERM)
        # A request that came during a periodic save is answered by the next boundary's save,
        # so squeeze sees a marker written after it asked.
        if asked and self.requests.checkpoint:
            self.requests.clear_checkpoint()
            if self.exit_on_request:
                self._log("leaving after the checkpoint squeeze asked for (exit 0)")
                sys.exit(0)
        return True

    def save(self, step):
        """Saves a checkpoint at `step` now (the next step to run): the data to a temporary
        name, renamed into place, then the COMPLETE marker; older checkpoints are removed after.
        Nothing is saved without a directory."""
        if not self.directory:
            self._last_save = self._clock()
            return None
        seq = max(self._seq, self._seq_on_disk()) + 1
        name = f"{DATA_PREFIX}{seq}"
        final = os.path.join(self.directory, name)
        tmp = final + ".tmp"
        _marker.remove(tmp)
        self._save(tmp)
        if not os.path.exists(tmp):
            raise CheckpointError(f"save() did not write anything to {tmp}")
        _marker.fsync_path(tmp)
        _marker.remove(final)  # a leftover of a crash before its marker; never the current one
        os.replace(tmp, final)
        _marker.fsync_dir(self.directory)
        _marker.write_marker(self.directory, seq, step, name)
        self._seq, self.saved_step = seq, step
        self._last_save = self._clock()
        self._remove_old(name)
        self._log(f"saved {final} at step {step}")
        return final

    def _seq_on_disk(self):
        try:
            found = _marker.read_marker(self.directory)
        except CheckpointError:
            return 0
        return found["seq"] if found else 0

    def _remove_old(self, keep):
        for name in os.listdir(self.directory):
            if name.startswith(DATA_PREFIX) and name != keep:
                _marker.remove(os.path.join(self.directory, name))


def _json_functions(state):
    def save(path):
        with open(path, "w", encoding="utf-8") as f:
            json.dump(state, f)

    def load(path):
        with open(path, encoding="utf-8") as f:
            loaded = json.load(f)
        if not isinstance(loaded, dict):
            raise ValueError("not a JSON object")
        state.clear()
        state.update(loaded)

    return save, load
