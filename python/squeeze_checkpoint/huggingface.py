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

Elastic jobs (resumed at another world size): the Trainer maps its global step back to an epoch
and a number of batches to skip with the new run's batches per epoch, which is right only when
an optimizer step takes as many samples as before: the global batch (per-device batch x
gradient accumulation x world size) must stay the same. Each checkpoint gets squeeze_batch.json
(its world size, batch, accumulation and global batch); a run resumed with another global batch
stops at on_train_begin with a CheckpointError saying which accumulation keeps it
(`allow_batch_change=True`: a warning instead). Each marker reports world_size, steps_per_s and
samples_per_s (elastic.StepRate).
"""

import json
import os
import sys
import time

from . import marker as _marker
from . import object_store as _object_store
from .checkpointer import EXIT_AFTER_SIGTERM, env_interval, shortest
from .elastic import StepRate
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


BATCH_FILE = "squeeze_batch.json"


def trainer_batch(args):
    """The batch of a Trainer's run from its TrainingArguments: {"world_size", "batch_size"
    (per device), "accumulation", "global_batch"} (global_batch None when the batch is not
    known)."""
    world = getattr(args, "world_size", 1) or 1
    per_device = getattr(args, "train_batch_size", None) or \
        getattr(args, "per_device_train_batch_size", None)
    accumulation = getattr(args, "gradient_accumulation_steps", 1) or 1
    total = per_device * accumulation * world if per_device else None
    return {"world_size": world, "batch_size": per_device, "accumulation": accumulation,
            "global_batch": total}


def _words(batch):
    return (f"{batch['global_batch']} (world_size {batch['world_size']} x batch "
            f"{batch['batch_size']} x accumulation {batch['accumulation']})")


class SqueezeCallback(_Base):
    """Saves and stops the Trainer when squeeze asks, reports each checkpoint to squeeze.
    `interval`: seconds between periodic saves (SQUEEZE_CHECKPOINT_INTERVAL shortens it).
    `exit_on_request`: leave from on_train_end after a stop squeeze asked for.
    `allow_batch_change`: resume a checkpoint of another global batch with a warning instead of
    a CheckpointError (the Trainer then skips the wrong number of samples in that epoch)."""

    def __init__(self, interval=None, exit_on_request=True, install_signals=True, environ=None,
                 clock=time.monotonic, log=None, allow_batch_change=False):
        super().__init__()
        self.allow_batch_change = allow_batch_change
        self.rate = StepRate(clock)
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

    def on_train_begin(self, args, state, control, **kwargs):
        """A resumed run (the Trainer has loaded the checkpoint's state): refuses another global
        batch than the checkpoint's, whose data position would be wrong."""
        if getattr(state, "global_step", 0) > 0:
            self._check_batch(args, state)
        return control

    def _check_batch(self, args, state):
        folders = [os.path.join(d, f"checkpoint-{state.global_step}")
                   for d in (args.output_dir, self.directory) if d]
        for folder in folders:
            try:
                with open(os.path.join(folder, BATCH_FILE), encoding="utf-8") as f:
                    saved = json.load(f)
                break
            except (OSError, ValueError):
                continue
        else:
            return  # a checkpoint of an older helper, or not this callback's: nothing to check
        now = trainer_batch(args)
        if not saved.get("global_batch") or not now["global_batch"] or \
                saved["global_batch"] == now["global_batch"]:
            return
        fix = (f"gradient_accumulation_steps = {saved['global_batch']} // ({now['world_size']} "
               f"x {now['batch_size']})" if saved["global_batch"] %
               (now["world_size"] * now["batch_size"]) == 0 else
               "a global batch that every world size divides")
        text = (f"the checkpoint {folder} was saved with a global batch of {_words(saved)}, "
                f"this run's is {_words(now)}: the Trainer would resume at another place in "
                f"the data (it skips global_step x accumulation batches of the new size) and "
                f"change the steps per epoch; keep the global batch with {fix} "
                f"(squeeze_checkpoint.elastic.accumulation_steps)")
        if not self.allow_batch_change:
            raise CheckpointError(text + ", or pass SqueezeCallback(allow_batch_change=True)")
        self._log("warning: " + text)

    def on_step_begin(self, args, state, control, **kwargs):
        self.requests.in_step = state.global_step
        if not self.rate.started:
            self.rate.start(state.global_step)
        return control

    def on_step_end(self, args, state, control, **kwargs):
        self.requests.in_step = None
        batch = trainer_batch(args)
        self.rate.world_size = batch["world_size"]
        self.rate.samples_per_step = batch["global_batch"]
        self.rate.count(state.global_step)
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
        batch = trainer_batch(args)
        self.rate.world_size = batch["world_size"]
        rate = self.rate.fields()
        self.rate.stop()  # the next window begins with the next step, after this save
        if not self.directory or not getattr(state, "is_world_process_zero", True):
            return control
        path = os.path.abspath(os.path.join(args.output_dir, f"checkpoint-{state.global_step}"))
        if not os.path.isdir(path):
            self._log(f"the Trainer saved no {path}; no checkpoint reported")
            return control
        found = _marker.read_marker(self.directory)
        highest = self.store.highest_seq() if self.store is not None else 0
        self._seq = max(self._seq, found["seq"] if found else 0, highest) + 1
        with open(os.path.join(path, BATCH_FILE), "w", encoding="utf-8") as f:
            json.dump({**batch, "step": state.global_step}, f)
        _marker.fsync_path(path)
        uploaded = upload(self.store, self._seq, state.global_step, os.path.dirname(path),
                          os.path.basename(path), self._env)
        _marker.write_marker(self.directory, self._seq, state.global_step, path, **rate,
                             **uploaded)
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
