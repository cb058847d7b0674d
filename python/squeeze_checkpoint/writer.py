"""Writes a checkpoint into its folder so that a crash at any point leaves the last complete one
usable: the data under a temporary name, synced and renamed into place, uploaded to the
checkpoint store when squeeze names one (object_store.py: the files, then the manifest), then
the COMPLETE marker (the commit point), then the removal of older data (and the store's prune).
A write runs in the caller's thread or, for asynchronous checkpoints, in one background thread
at a time; the marker of a background write is written by that thread, only once the data is
on disk (and in the store)."""

import os
import threading
import time

from . import marker as _marker
from .marker import CheckpointError

DATA_PREFIX = "checkpoint-"


class Writer:
    """The checkpoints of one folder. `log`: a function for one-line messages. `store`: an
    object_store.ObjectStore each checkpoint is uploaded to before its marker, or None."""

    def __init__(self, directory, log, store=None, environ=None):
        self.directory = directory
        self._log = log
        self.store = store
        self._env = environ if environ is not None else {}
        self._thread = None
        self._error = None

    def next_seq(self, seq):
        """The seq of the next checkpoint: one more than `seq` and than the marker on disk."""
        try:
            found = _marker.read_marker(self.directory)
        except CheckpointError:
            found = None
        highest = self.store.highest_seq() if self.store is not None else 0
        return max(seq, found["seq"] if found else 0, highest) + 1

    def write(self, seq, step, save, started, stall=None, extra=None):
        """Writes checkpoint `seq` at `step` now: save(tmp_path), sync, rename, marker, removal
        of older data. `started`: time.monotonic() when the save began (capture included);
        `stall`: seconds training paused for an asynchronous save (None: synchronous);
        `extra`: more fields for the marker (the step rate). Returns the data's path."""
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
        uploaded = upload(self.store, seq, step, self.directory, name, self._env)
        took = time.monotonic() - started
        timing = {"save_s": round(took, 4)}
        if stall is not None:
            timing["stall_s"] = round(stall, 4)
        _marker.write_marker(self.directory, seq, step, name, **timing, **(extra or {}),
                             **uploaded)
        self._remove_old(name)
        sent = uploaded_words(uploaded)
        if stall is None:
            self._log(f"saved {final} at step {step} in {took:.3f}s{sent}")
        else:
            self._log(f"saved {final} at step {step} in {took:.3f}s in the background "
                      f"(training paused {stall:.3f}s){sent}")
        prune(self.store, self._log)
        return final

    def start(self, seq, step, save, started, stall, extra=None):
        """Runs write() in a background thread (after waiting for the one before)."""
        self.wait()

        def run():
            try:
                self.write(seq, step, save, started, stall, extra)
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


def upload(store, seq, step, folder, name, environ):
    """Uploads checkpoint `name` of `folder` to the store (nothing without one); returns the
    marker's fields for it. CheckpointError, before any marker, when the upload fails."""
    if store is None:
        return {}
    try:
        done = store.upload(seq, step, folder, name, environ)
    except CheckpointError as e:
        raise CheckpointError(f"the checkpoint {seq} at step {step} was not saved (no "
                              f"marker; the last complete one stays): {e}") from e
    return {"store": store.url, "manifest": done["manifest"],
            "upload_bytes": done["bytes"], "upload_s": round(done["seconds"], 4)}


def uploaded_words(uploaded):
    """What upload() returned, for a log line: ", uploaded N bytes to URL in S" ("" if none)."""
    if not uploaded:
        return ""
    return (f", uploaded {uploaded['upload_bytes']} bytes to {uploaded['store']} in "
            f"{uploaded['upload_s']:.3f}s")


def prune(store, log):
    """Removes the store's checkpoints beyond its `keep` newest and partial uploads. A failure
    is logged: the checkpoint just saved is complete all the same."""
    if store is None:
        return
    try:
        removed, partial = store.prune()
    except CheckpointError as e:
        log(f"pruning {store.url} failed (tried again after the next save): {e}")
        return
    if removed or partial:
        log(f"pruned {store.url}: {removed} old checkpoint(s) beyond the newest "
            f"{store.keep}, {partial} partial upload(s)")
