"""The checkpoint folder's files: the COMPLETE marker squeeze reads, and atomic renames.

The marker is the commit point of a checkpoint (docs/checkpoint-protocol.md): one JSON line,
written to COMPLETE.tmp and renamed to COMPLETE, that names the checkpoint's data and changes
with every checkpoint (its `seq` grows by one each time, across runs):

    {"seq": 7, "step": 120, "path": "checkpoint-7", "time": 1764537000.25}

`path` is relative to the folder (or absolute, for data kept elsewhere, as the Hugging Face
Trainer's). Data named by the marker is never removed or replaced before a newer marker
names newer data, so a crash at any point leaves the last complete checkpoint usable.
"""

import json
import os
import shutil
import time

MARKER = "COMPLETE"


class CheckpointError(Exception):
    """A checkpoint that cannot be read or written; the message names the file."""


def fsync_path(path):
    """Flushes a file, or every file of a folder and the folder itself, to disk."""
    if os.path.isdir(path):
        for root, _, files in os.walk(path):
            for name in files:
                fsync_path(os.path.join(root, name))
        fsync_dir(path)
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_dir(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot sync a folder; the rename is still atomic
    finally:
        os.close(fd)


def remove(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    elif os.path.lexists(path):
        os.remove(path)


def read_marker(directory):
    """The marker of `directory` as a dict, or None when there is none. A marker that is not
    this helper's JSON line (a bash job's step number, garbage) is a CheckpointError."""
    path = os.path.join(directory, MARKER)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise CheckpointError(f"cannot read the checkpoint marker {path}: {e}") from e
    try:
        marker = json.loads(text)
    except ValueError:
        marker = None
    if (not isinstance(marker, dict) or not isinstance(marker.get("seq"), int)
            or not isinstance(marker.get("step"), int) or not isinstance(marker.get("path"), str)):
        raise CheckpointError(
            f"the checkpoint marker {path} is not one written by squeeze_checkpoint (expected "
            f'a line like {{"seq": 1, "step": 10, "path": "checkpoint-1"}}, found '
            f"{text[:120]!r}); remove it to start over")
    return marker


def data_path(directory, marker):
    return os.path.join(directory, marker["path"])


def write_marker(directory, seq, step, path, **extra):
    """Atomically replaces `directory`/COMPLETE by a new marker (COMPLETE.tmp, then rename).
    `extra`: more JSON fields (the helper adds how long the save took)."""
    line = json.dumps({"seq": seq, "step": step, "path": path, "time": round(time.time(), 3),
                       **extra})
    tmp = os.path.join(directory, MARKER + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(line + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, os.path.join(directory, MARKER))
    fsync_dir(directory)
