"""A checkpoint store in S3-protocol object storage (docs/python-checkpoint.md#object-storage).

When squeeze names one (SQUEEZE_CHECKPOINT_STORE=s3://BUCKET/PREFIX), each checkpoint saved in
the local folder is uploaded, its data objects first and its manifest last:

    PREFIX/data/000000000007/checkpoint-7[/file ...]   the checkpoint's files
    PREFIX/manifests/000000000007.json                 seq, step, each file's key, bytes, sha256

A checkpoint is complete when its manifest is stored and every object it names is there with
its size; objects without a manifest (an upload cut short) are never used, and are removed by
the next save's prune. store_config.py makes an ObjectStore from squeeze's environment.
"""

import fcntl
import hashlib
import json
import os
import re
import time

from . import marker as _marker
from .marker import CheckpointError

FORMAT = "squeeze-checkpoint-manifest/1"
LOCK = ".squeeze-resume.lock"
_SEQ = re.compile(r"^(\d{1,18})$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


class StoreProblem(Exception):
    """A checkpoint in the store that is not complete or not intact (the message says why)."""


class ObjectStore:
    """One job's checkpoints in a bucket, under `prefix`, through a boto3 S3 client. Used by
    one writer at a time. `max_gbps`: the cap of its uploads and downloads (None: none)."""

    def __init__(self, client, bucket, prefix, keep, log, max_gbps=None):
        self.client, self.bucket, self.prefix, self.keep = client, bucket, prefix, keep
        self.max_gbps = max_gbps
        self._transfer = {}
        if max_gbps is not None:
            import boto3.s3.transfer
            self._transfer["Config"] = boto3.s3.transfer.TransferConfig(
                max_bandwidth=max(1, int(max_gbps * 1e9 / 8)))
        self.url = f"s3://{bucket}/{prefix}" if prefix else f"s3://{bucket}"
        self._log = log
        self._highest = None

    def key(self, *parts):
        return "/".join([self.prefix, *parts] if self.prefix else parts)

    def manifest_key(self, seq):
        return self.key("manifests", f"{seq:012d}.json")

    def data_prefix(self, seq):
        return self.key("data", f"{seq:012d}") + "/"

    def _call(self, what, key, fn, **kw):
        """fn(**kw); a failure of the library becomes a CheckpointError naming the object."""
        try:
            return fn(**kw)
        except CheckpointError:
            raise
        except Exception as e:  # noqa: BLE001 - botocore, s3transfer and OSError alike
            raise CheckpointError(f"cannot {what} s3://{self.bucket}/{key}: "
                                  f"{type(e).__name__}: {e}") from e

    def _list(self, prefix):
        """{key: size} of the objects under `prefix`."""
        objects = {}

        def run():
            pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket,
                                                                          Prefix=prefix)
            for page in pages:
                objects.update((o["Key"], o["Size"]) for o in page.get("Contents", []))

        self._call("list", prefix, run)
        return objects

    def manifests(self):
        """{seq: key} of the manifests in the store."""
        found = {}
        for key in self._list(self.key("manifests") + "/"):
            m = _SEQ.match(key.rsplit("/", 1)[-1][:-len(".json")])
            if m and key.endswith(".json"):
                found[int(m.group(1))] = key
        return found

    def data_seqs(self):
        """The seqs with data in the store. Every key is listed, not common prefixes: s3rver
        (the tests' server) leaves out the prefixes of keys more than one level below."""
        seqs, top = set(), self.key("data") + "/"
        for key in self._list(top):
            m = _SEQ.match(key[len(top):].split("/", 1)[0])
            if m:
                seqs.add(int(m.group(1)))
        return seqs

    def highest_seq(self):
        """The highest seq the store holds (manifest or data) or this writer used; 0 if none."""
        if self._highest is None:
            self._highest = max([0, *self.manifests(), *self.data_seqs()])
        return self._highest

    def upload(self, seq, step, directory, name, environ):
        """Uploads checkpoint `name` of `directory` (a file or a folder) as `seq`: its files,
        then the manifest. Returns {"manifest", "bytes", "seconds"}. CheckpointError if any
        upload fails (the checkpoint is then not complete in the store)."""
        started = time.monotonic()
        self._highest = max(self.highest_seq(), seq)
        stale = self._list(self.data_prefix(seq))
        if stale:  # not expected (a seq is never used twice): not mixed into this checkpoint
            self._delete(sorted(stale))
        files, total = [], 0
        for rel, path in _files(directory, name):
            size, sha = _digest(path)
            key = self.data_prefix(seq) + rel
            self._call("upload to", key, self.client.upload_file, Filename=path,
                       Bucket=self.bucket, Key=key, **self._transfer)
            files.append({"path": rel, "key": key, "bytes": size, "sha256": sha})
            total += size
        manifest = {"format": FORMAT, "seq": seq, "step": step, "path": name,
                    "kind": "folder" if os.path.isdir(os.path.join(directory, name)) else "file",
                    "attempt": environ.get("SQUEEZE_ATTEMPT"), "job": environ.get("SQUEEZE_JOB_ID"),
                    "time": round(time.time(), 3), "bytes": total, "files": files}
        key = self.manifest_key(seq)
        self._call("store the manifest", key, self.client.put_object, Bucket=self.bucket,
                   Key=key, Body=json.dumps(manifest, indent=1).encode(),
                   ContentType="application/json")
        return {"manifest": key, "bytes": total, "seconds": time.monotonic() - started}

    def read_manifest(self, seq, key):
        """The manifest `key` of checkpoint `seq`, checked against the objects in the store.
        StoreProblem when it is not a manifest or an object is missing or of another size."""
        body = self._call("read", key, lambda: self.client.get_object(
            Bucket=self.bucket, Key=key)["Body"].read())
        try:
            manifest = json.loads(body)
        except ValueError as e:
            raise StoreProblem(f"{key} is not JSON ({e})") from None
        _check_manifest(manifest, seq, key, self.data_prefix(seq))
        stored = self._list(self.data_prefix(seq))
        for f in manifest["files"]:
            if f["key"] not in stored:
                raise StoreProblem(f"{key} names {f['key']}, which is not in the store")
            if stored[f["key"]] != f["bytes"]:
                raise StoreProblem(f"{key} says {f['key']} has {f['bytes']} bytes, the store "
                                   f"has {stored[f['key']]}")
        return manifest

    def download(self, manifest, directory):
        """Downloads a checkpoint's files into `directory`/PATH (through a temporary folder,
        renamed into place) and checks their sha256. Returns the path. StoreProblem when a
        file's content is not the manifest's."""
        name = manifest["path"]
        tmp = os.path.join(directory, f"{name}.download")  # removed by the next save if left
        _marker.remove(tmp)
        os.makedirs(os.path.join(tmp, name) if manifest["kind"] == "folder" else tmp)
        try:
            for f in manifest["files"]:
                dest = os.path.join(tmp, f["path"])
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                self._call("download", f["key"], self.client.download_file,
                           Bucket=self.bucket, Key=f["key"], Filename=dest, **self._transfer)
                sha = _digest(dest)[1]
                if sha != f["sha256"]:
                    raise StoreProblem(f"{f['key']} has sha256 {sha}, its manifest "
                                       f"{self.manifest_key(manifest['seq'])} says {f['sha256']}")
            _marker.fsync_path(tmp)
            final = os.path.join(directory, name)
            _marker.remove(final)
            os.replace(os.path.join(tmp, name), final)
            _marker.fsync_dir(directory)
            return final
        finally:
            _marker.remove(tmp)

    def prune(self):
        """Keeps the newest `keep` manifests: older manifests are deleted first, then their
        data, then the data of seqs without a manifest older than the newest (uploads cut
        short). Returns (checkpoints removed, partial uploads removed)."""
        manifests = self.manifests()
        if not manifests:
            return 0, 0
        newest = sorted(manifests)
        old = newest[:-self.keep]
        self._delete([manifests[s] for s in old])
        partial = sorted(s for s in self.data_seqs() - set(manifests) if s < newest[-1])
        for seq in old + partial:
            self._delete(sorted(self._list(self.data_prefix(seq))))
        return len(old), len(partial)

    def _delete(self, keys):
        for i in range(0, len(keys), 1000):
            batch = keys[i:i + 1000]
            reply = self._call("delete", batch[0], self.client.delete_objects, Bucket=self.bucket,
                               Delete={"Objects": [{"Key": k} for k in batch], "Quiet": True})
            if reply.get("Errors"):
                e = reply["Errors"][0]
                raise CheckpointError(f"cannot delete s3://{self.bucket}/{e.get('Key')}: "
                                      f"{e.get('Code')}: {e.get('Message')}")


def resume_from_store(store, directory, log):
    """The checkpoint a resumed run loads: the newest complete one in the store (downloaded
    into `directory`, unless it is already there), or the local one when it is newer or the
    store has none. Returns (marker-like dict or None, why checkpoints were skipped). A
    checkpoint of the store that is not complete or not intact is skipped for an older one; a
    store that cannot be reached is a CheckpointError. The processes of a node that share the
    folder (torchrun's) take turns (a lock file): the first downloads, the others find it."""
    with open(os.path.join(directory, LOCK), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return _choose(store, directory, log)


def newest_complete(store, directory, log):
    """resume_from_store()'s checkpoint (a marker-like dict), or CheckpointError naming the
    store, what was skipped and the folder's marker when neither holds a complete one."""
    found, skipped = resume_from_store(store, directory, log)
    if found is None:
        why = f" (skipped: {'; '.join(skipped)})" if skipped else ""
        raise CheckpointError(
            f"SQUEEZE_RESUME is set but neither the checkpoint store {store.url}{why} nor "
            f"{os.path.join(directory, _marker.MARKER)} holds a complete checkpoint; resubmit "
            f"the job to start over")
    return found


def _choose(store, directory, log):
    marker_path = os.path.join(directory, _marker.MARKER)
    try:
        local = _marker.read_marker(directory)
    except CheckpointError as e:
        log(f"{e}; ignored: resuming from the store")
        local = None
    if local is not None and not os.path.exists(_marker.data_path(directory, local)):
        local = None
    skipped = []
    for seq, key in sorted(store.manifests().items(), reverse=True):
        if local is not None and local["seq"] > seq:
            log(f"the local checkpoint {marker_path} (seq {local['seq']}) is newer than the "
                f"store's newest, s3://{store.bucket}/{key}: resuming from the local one")
            return local, skipped
        try:
            manifest = store.read_manifest(seq, key)
            found = {"seq": seq, "step": manifest["step"], "path": manifest["path"]}
            path = os.path.join(directory, manifest["path"])
            if _same_files(directory, manifest):
                log(f"{path} is already s3://{store.bucket}/{key}'s: nothing to download")
                return found, skipped
            mine = _local_copy(directory, local, seq)  # a Trainer's, outside the folder
            if mine is not None and _same_files(mine, manifest):
                log(f"{_marker.data_path(directory, local)} is already s3://{store.bucket}/"
                    f"{key}'s: nothing to download")
                return local, skipped
            started = time.monotonic()
            store.download(manifest, directory)
        except StoreProblem as p:
            log(f"skipping checkpoint {seq} of {store.url}: {p}")
            skipped.append(str(p))
            continue
        log(f"downloaded s3://{store.bucket}/{key} ({manifest['bytes']} bytes) into {path} "
            f"in {time.monotonic() - started:.3f}s")
        return found, skipped
    if local is not None:
        log(f"{store.url} holds no complete checkpoint: resuming from the local one, "
            f"{marker_path}")
    return local, skipped


def _local_copy(directory, local, seq):
    """The folder holding the local marker's checkpoint when it is checkpoint `seq` and lives
    outside `directory` (a Hugging Face Trainer's output_dir), else None."""
    if local is None or local["seq"] != seq:
        return None
    folder = os.path.dirname(_marker.data_path(directory, local))
    return None if os.path.abspath(folder) == os.path.abspath(directory) else folder


def _same_files(directory, manifest):
    for f in manifest["files"]:
        path = os.path.join(directory, f["path"])
        if not os.path.isfile(path) or (os.path.getsize(path), _digest(path)[1]) != (
                f["bytes"], f["sha256"]):
            return False
    return os.path.isdir(os.path.join(directory, manifest["path"])) == (
        manifest["kind"] == "folder")


def _check_manifest(m, seq, key, data_prefix):
    def bad(why):
        return StoreProblem(f"{key} is not a checkpoint manifest of seq {seq}: {why}")

    if not isinstance(m, dict) or m.get("format") != FORMAT:
        raise bad(f"its format is not {FORMAT!r}")
    if m.get("seq") != seq or not isinstance(m.get("step"), int):
        raise bad(f"seq {m.get('seq')!r}, step {m.get('step')!r}")
    name = m.get("path")
    if not isinstance(name, str) or not name or "/" in name or name.startswith("."):
        raise bad(f"path {name!r}")
    if m.get("kind") not in ("file", "folder") or not isinstance(m.get("files"), list):
        raise bad("no kind or no list of files")
    for f in m["files"]:
        rel = f.get("path") if isinstance(f, dict) else None
        if (not isinstance(rel, str) or not (rel == name or rel.startswith(name + "/"))
                or ".." in rel.split("/") or f.get("key") != data_prefix + rel
                or not isinstance(f.get("bytes"), int) or not isinstance(f.get("sha256"), str)
                or not _SHA256.match(f["sha256"])):
            raise bad(f"file entry {f!r}")
    if m["kind"] == "file" and [f["path"] for f in m["files"]] != [name]:
        raise bad("a file checkpoint must list exactly its one file")


def _files(directory, name):
    """(path relative to `directory`, absolute path) of every file of checkpoint `name`."""
    top = os.path.join(directory, name)
    if not os.path.isdir(top):
        return [(name, top)]
    found = []
    for root, dirs, files in os.walk(top):
        dirs.sort()
        for f in sorted(files):
            path = os.path.join(root, f)
            found.append((os.path.relpath(path, directory).replace(os.sep, "/"), path))
    return found


def _digest(path):
    h, size = hashlib.sha256(), 0
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
            size += len(chunk)
    return size, h.hexdigest()
