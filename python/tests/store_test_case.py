"""What the checkpoint store's tests share (test_object_store.py, test_object_store_settings.py):
one real S3 server per test process (s3rver, python/tests/s3_server.py) and a test case of a
job's store, its nodes' folders and what it holds."""

import atexit
import hashlib
import json
import os
import sys
import tempfile
import unittest

from squeeze_checkpoint import Checkpointer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import s3_server  # noqa: E402

BUCKET = "squeeze-checkpoints"
_server = None


def shared_server():
    """The server of the test process (started by the first test that needs it, stopped when
    the process exits), with BUCKET. RuntimeError, saying what to run, where it cannot run."""
    global _server
    if _server is None:
        why = s3_server.missing()
        if why:
            raise RuntimeError(f"the checkpoint store tests need a real S3 server: {why}")
        _server = s3_server.S3Server().start()
        atexit.register(_server.close)
        _server.create_bucket(BUCKET)
    return _server


def folder_save(files):
    """save and load functions for a checkpoint folder of `files` ({name: bytes}, changed by
    the test between saves); load returns what it read into `files`."""
    def save(path):
        for name, data in files.items():
            os.makedirs(os.path.dirname(os.path.join(path, name)), exist_ok=True)
            with open(os.path.join(path, name), "wb") as f:
                f.write(data)

    def load(path):
        files.clear()
        for root, _, names in os.walk(path):
            for n in names:
                with open(os.path.join(root, n), "rb") as f:
                    files[os.path.relpath(os.path.join(root, n), path)] = f.read()

    return save, load


def digests(files):
    return {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}


class StoreTestCase(unittest.TestCase):
    """A test of one job's store (`self.url`, a prefix of its own) on the shared server, with
    nodes as folders ("a", "b", ...) and the store's variables as squeeze sets them."""

    def setUp(self):
        self.server = shared_server()
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.prefix = f"team/{self.id().rsplit('.', 1)[-1]}"
        self.url = f"s3://{BUCKET}/{self.prefix}"
        self.cred = s3_server.write_credentials(os.path.join(self.tmp.name, "credentials"))
        self.logs = []

    def dir(self, node):
        return os.path.join(self.tmp.name, node)

    def env(self, node="a", resume=False, **more):
        env = self.server.store_env(self.url, self.cred, SQUEEZE_CHECKPOINT_DIR=self.dir(node),
                                    SQUEEZE_ATTEMPT="2" if resume else "1")
        if resume:
            env["SQUEEZE_RESUME"] = "1"
        env.update(more)
        return {k: v for k, v in env.items() if v is not None}

    def make(self, state=None, node="a", resume=False, env=None, **kw):
        if state is not None:
            kw["state"] = state
        c = Checkpointer(environ=env or self.env(node, resume), log=self.logs.append,
                         install_signals=False, **kw)
        if c.store is not None:
            self.addCleanup(c.store.client.close)
        return c

    def marker(self, node="a"):
        try:
            with open(os.path.join(self.dir(node), "COMPLETE")) as f:
                return json.load(f)
        except FileNotFoundError:
            return None

    def listdir(self, node):
        """The local folder's names, without the lock file of resumes."""
        return sorted(n for n in os.listdir(self.dir(node)) if n != ".squeeze-resume.lock")

    def keys(self, under=""):
        return self.server.keys(BUCKET, f"{self.prefix}/{under}")

    def manifest_key(self, seq):
        return f"{self.prefix}/manifests/{seq:012d}.json"

    def manifest(self, seq):
        body = self.server.client().get_object(Bucket=BUCKET, Key=self.manifest_key(seq))
        return json.loads(body["Body"].read())

    def stored(self):
        """(manifest seqs, data seqs) in the store."""
        keys = self.keys()
        return (sorted(int(k.rsplit("/", 1)[1][:-5]) for k in keys if "/manifests/" in k),
                sorted({int(k.split("/data/")[1].split("/")[0]) for k in keys if "/data/" in k}))

    def on_put(self, checkpointer, handler):
        """Calls handler(key) before each PutObject the checkpointer's store makes."""
        checkpointer.store.client.meta.events.register(
            "before-parameter-build.s3.PutObject",
            lambda params, **_: handler(params["Key"]))

    def own_server(self):
        """A server of this test alone (stopped and started by it)."""
        server = s3_server.S3Server().start()
        self.addCleanup(server.close)
        server.create_bucket(BUCKET)
        return server
