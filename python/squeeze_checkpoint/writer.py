"""Writes a checkpoint into its folder so that a crash at any point leaves the last complete one
usable: the data under a temporary name, synced and renamed into place, then the COMPLETE
marker (the commit point), then the removal of older data. A write runs in the caller's thread
or, for asynchronous checkpoints, in one background thread at a time; the marker of a
background write is written by that thread, only once the data is on disk."""

import os
import threading
import time

from . import marker as _marker
from .marker import CheckpointError

DATA_PREFIX = "checkpoint-"


class Writer:
    """The checkpoints of one folder. `log`: a function for one-line messages."""

    def __init__(self, directory, log):
        self.directory = directory
        self._log = log
        self._thread = None
        self._error = None

    def next_seq(self, seq):
        """The seq of the next checkpoint: one more than `seq` and than the marker on disk."""
        try:
            found = _marker.read_marker(self.directory)
        except CheckpointError:
            found = None
        return max(seq, found["seq"] if found else 0) + 1

    def write(self, seq, step, save, started, stall=None):
        """Writes checkpoint `seq` at `step` now: save(tmp_path), sync, rename, marker, removal
        of older data. `started`: time.monotonic() when the save began (capture included);
        `stall`: seconds training paused for an asynchronous save (None: synchronous).
        Returns the data's path."""
        name = f"{DATA_PREFIX}{seq}"
        final = os.path.join(self.directory, name)
        tmp = final + ".tmp"
        _marker.remove(tmp)
        save(tmp)
        if not os.path.exists(tmp):
            raise CheckpointError(f"save() did not write anything to {tmp}")
        _marker.fsync_path(tmp)
        _marker.remove(final)  # a leftover of a crash before its marker; never the current one
        os.replace(tmp, final)
        _marker.fsync_dir(self.directory)
        took = time.monotonic() - started
        timing = {"save_s": round(took, 4)}
        if stall is not None:
            timing["stall_s"] = round(stall, 4)
        _marker.write_marker(self.directory, seq, step, name, **timing)
        self._remove_old(name)
        if stall is None:
            self._log(f"saved {final} at step {step} in {took:.3f}s")
        else:
            self._log(f"saved {final} at step {step} in {took:.3f}s in the background "
                      f"(training paused {stall:.3f}s)")
        return final

    def start(self, seq, step, save, started, stall):
        """Runs write() in a background thread (after waiting for the one before)."""
        self.wait()

        def run():
            try:
                self.write(seq, step, save, started, stall)
            except BaseException as e:  # noqa: BLE001 - handed to the main thread by wait()
                self._error = (step, e)

        # Not a daemon: the interpreter waits for a write in progress before it exits.
        self._thread = threading.Thread(target=run, name=f"squeeze-checkpoint-{seq}",
                                        daemon=False)
        self._thread.start()

    def wait(self):
        """Waits for the background write, if any; raises CheckpointError if it failed."""
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._error is not None:
            step, e = self._error
            self._error = None
            if isinstance(e, CheckpointError):
                raise e
            raise CheckpointError(f"the background save at step {step} into {self.directory} "
                                  f"failed: {type(e).__name__}: {e}") from e

    def _remove_old(self, keep):
        for name in os.listdir(self.directory):
            if name.startswith(DATA_PREFIX) and name != keep:
                _marker.remove(os.path.join(self.directory, name))
