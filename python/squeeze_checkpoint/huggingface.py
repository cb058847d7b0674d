"""squeeze's checkpoint protocol for Hugging Face's Trainer: a TrainerCallback.

    callback = SqueezeCallback()
    trainer = Trainer(..., args=TrainingArguments(output_dir=..., save_total_limit=2),
                      callbacks=[callback])
    trainer.train(resume_from_checkpoint=resume_path())

When squeeze sends SIGUSR1 (or SIGTERM) the callback asks the Trainer, at the end of the
current step, to save a checkpoint and stop; after each checkpoint the Trainer saves, it
writes the COMPLETE marker naming it; when training stopped for squeeze it leaves from
on_train_end (exit 0 after SIGUSR1, 143 after SIGTERM), so the code after train() that
expects finished training does not run. It also asks for a save every
SQUEEZE_CHECKPOINT_INTERVAL (or `interval`) seconds. With SQUEEZE_CHECKPOINT_STORE each
checkpoint the Trainer saves is uploaded to object storage (its files, then its manifest) before
its marker, and resume_path() fetches the newest complete one from there into
SQUEEZE_CHECKPOINT_DIR (object_store.py). transformers is imported when present; without it the
class still imports (on object), for tests.
"""

import os
import sys
import time

from . import marker as _marker
from . import object_store as _object_store
from .checkpointer import EXIT_AFTER_SIGTERM, env_interval, shortest
from .marker import CheckpointError
from .signals import Requests
from .store_config import STORE, store_from_env
from .writer import prune, upload, uploaded_words

try:
    from transformers import TrainerCallback as _Base
    HAVE_TRANSFORMERS = True
except ImportError:
    _Base = object
    HAVE_TRANSFORMERS = False


def _stderr(text):
    print(f"squeeze_checkpoint: {text}", file=sys.stderr, flush=True)


def resume_path(environ=None, log=None):
    """The checkpoint folder to give trainer.train(resume_from_checkpoint=...) when squeeze
    says to resume (SQUEEZE_RESUME), else None. With a checkpoint store: the newest complete
    checkpoint of the store, downloaded into SQUEEZE_CHECKPOINT_DIR, or the local one when it
    is newer. CheckpointError when there is none or it is missing."""
    env = environ if environ is not None else os.environ
    log = log or _stderr
    directory = env.get("SQUEEZE_CHECKPOINT_DIR")
    if not (env.get("SQUEEZE_RESUME") and directory):
        return None
    store = store_from_env(env, log)
    if store is not None:
        os.makedirs(directory, exist_ok=True)
        try:
            found = _object_store.newest_complete(store, directory, log)
        finally:
            store.client.close()
    else:
        found = _marker.read_marker(directory)
        if found is None:
            raise CheckpointError(f"SQUEEZE_RESUME is set but there is no checkpoint marker "
                                  f"{os.path.join(directory, _marker.MARKER)}")
    path = _marker.data_path(directory, found)
    if not os.path.isdir(path):
        raise CheckpointError(f"the checkpoint {path} named by "
                              f"{os.path.join(directory, _marker.MARKER)} is missing (keep "
                              f"save_total_limit at 2 or more)")
    return path


class SqueezeCallback(_Base):
    """Saves and stops the Trainer when squeeze asks, reports each checkpoint to squeeze.
    `interval`: seconds between periodic saves (SQUEEZE_CHECKPOINT_INTERVAL shortens it).
    `exit_on_request`: leave from on_train_end after a stop squeeze asked for."""

    def __init__(self, interval=None, exit_on_request=True, install_signals=True, environ=None,
                 clock=time.monotonic, log=None):
        super().__init__()
        env = environ if environ is not None else os.environ
        self.directory = env.get("SQUEEZE_CHECKPOINT_DIR")
        self.interval = shortest(interval, env_interval(env))
        self.exit_on_request = exit_on_request
        self.requests = Requests()
        self.stopped_for_squeeze = False
        self._clock = clock
        self._last_save = clock()
        self._seq = 0
        self._env = env
        self._log = log or _stderr
        self.store = store_from_env(env, self._log)  # None unless squeeze names one
        if self.directory:
            os.makedirs(self.directory, exist_ok=True)
        if self.store is not None:
            if not self.directory:
                raise CheckpointError(f"{STORE}={env[STORE]!r} needs SQUEEZE_CHECKPOINT_DIR too")
            self._log(f"the Trainer's checkpoints are uploaded to {self.store.url} (keeping the "
                      f"newest {self.store.keep})")
        if install_signals:
            self.requests.install()

    def on_step_begin(self, args, state, control, **kwargs):
        self.requests.in_step = state.global_step
        return control

    def on_step_end(self, args, state, control, **kwargs):
        self.requests.in_step = None
        if self.requests.pending():
            self._log(f"{self.requests.describe()}: the Trainer saves and stops at step "
                      f"{state.global_step}")
            control.should_save = True
            control.should_training_stop = True
            self.stopped_for_squeeze = True
        elif self.interval is not None and self._clock() - self._last_save >= self.interval:
            control.should_save = True
        return control

    def on_save(self, args, state, control, **kwargs):
        """The Trainer has written output_dir/checkpoint-<global_step>: upload it to the store
        (if any), then report it. CheckpointError, with no marker, when the upload fails."""
        self._last_save = self._clock()
        if not self.directory or not getattr(state, "is_world_process_zero", True):
            return control
        path = os.path.abspath(os.path.join(args.output_dir, f"checkpoint-{state.global_step}"))
        if not os.path.isdir(path):
            self._log(f"the Trainer saved no {path}; no checkpoint reported")
            return control
        found = _marker.read_marker(self.directory)
        highest = self.store.highest_seq() if self.store is not None else 0
        self._seq = max(self._seq, found["seq"] if found else 0, highest) + 1
        _marker.fsync_path(path)
        uploaded = upload(self.store, self._seq, state.global_step, os.path.dirname(path),
                          os.path.basename(path), self._env)
        _marker.write_marker(self.directory, self._seq, state.global_step, path, **uploaded)
        self._log(f"reported {path} (step {state.global_step}) to squeeze"
                  f"{uploaded_words(uploaded)}")
        prune(self.store, self._log)
        return control

    def on_train_end(self, args, state, control, **kwargs):
        if self.stopped_for_squeeze and self.exit_on_request:
            code = EXIT_AFTER_SIGTERM if self.requests.stop else 0
            self._log(f"leaving after the checkpoint squeeze asked for (exit {code})")
            self.requests.ignore_stop()
            sys.exit(code)
        return control
