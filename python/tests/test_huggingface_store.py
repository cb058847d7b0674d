"""The Hugging Face callback with a checkpoint store (SQUEEZE_CHECKPOINT_STORE) against the real
S3 server of the store tests: each checkpoint the Trainer saves is uploaded, its manifest last,
before the marker; resume_path() on another node (an empty folder) downloads the newest
complete one; an upload that fails reports nothing; the store keeps the newest KEEP. The Trainer
is stood in for as in test_frameworks.py (transformers is not packaged by Debian)."""

import os
import types

from squeeze_checkpoint import CheckpointError

from .store_test_case import BUCKET, StoreTestCase
from .test_frameworks import Control


class HuggingFaceStoreTest(StoreTestCase):
    def setUp(self):
        super().setUp()
        self.state = types.SimpleNamespace(global_step=0, is_world_process_zero=True)
        self.weights = {}

    def callback(self, node="a", **env):
        from squeeze_checkpoint.huggingface import SqueezeCallback
        cb = SqueezeCallback(environ=self.env(node, **env), log=self.logs.append,
                             install_signals=False)
        self.addCleanup(cb.store.client.close)
        return cb

    def args(self, node="a"):
        return types.SimpleNamespace(output_dir=self.dir(node) + "-out")

    def train_and_save(self, cb, node="a", steps=10):
        """Steps, then what the Trainer does to save: output_dir/checkpoint-<step>, on_save."""
        self.state.global_step += steps
        path = os.path.join(self.args(node).output_dir, f"checkpoint-{self.state.global_step}")
        os.makedirs(path)
        self.weights = {"model.safetensors": os.urandom(200_000),
                        "trainer_state.json": b'{"global_step": %d}' % self.state.global_step}
        for name, data in self.weights.items():
            with open(os.path.join(path, name), "wb") as f:
                f.write(data)
        try:
            return cb.on_save(self.args(node), self.state, Control())
        finally:
            self.weights = self.read_folder(path)  # with the callback's squeeze_batch.json

    def read_folder(self, path):
        found = {}
        for name in os.listdir(path):
            with open(os.path.join(path, name), "rb") as f:
                found[name] = f.read()
        return found

    def test_each_trainer_checkpoint_is_uploaded_manifest_last_then_reported(self):
        cb = self.callback()
        puts = []
        self.on_put(cb, lambda key: puts.append((key, self.marker())))
        self.train_and_save(cb)
        self.assertEqual(puts[-1][0], self.manifest_key(1))
        self.assertEqual(len(puts), 4)         # the Trainer's two files, the callback's
        self.assertIn("squeeze_batch.json", self.weights)   # squeeze_batch.json, the manifest
        self.assertTrue(all(m is None for _, m in puts))     # no marker before the manifest
        marker = self.marker()
        self.assertEqual((marker["seq"], marker["step"]), (1, 10))
        self.assertEqual(marker["path"], os.path.join(self.args().output_dir, "checkpoint-10"))
        self.assertEqual((marker["store"], marker["manifest"]), (self.url, self.manifest_key(1)))
        self.assertEqual(marker["upload_bytes"], sum(map(len, self.weights.values())))
        m = self.manifest(1)
        self.assertEqual((m["path"], m["kind"], m["step"]), ("checkpoint-10", "folder", 10))
        self.assertTrue(any(f"uploaded {marker['upload_bytes']} bytes to {self.url}" in line
                            for line in self.logs), self.logs)

    def test_a_run_on_another_node_resumes_from_the_newest_checkpoint_in_the_store(self):
        from squeeze_checkpoint.huggingface import resume_path
        cb = self.callback()
        self.train_and_save(cb)
        self.train_and_save(cb)
        newest = dict(self.weights)
        logs = []
        path = resume_path(self.env("b", resume=True), log=logs.append)
        self.assertEqual(path, os.path.join(self.dir("b"), "checkpoint-20"))
        self.assertEqual(self.read_folder(path), newest)
        self.assertTrue(any("downloaded" in line for line in logs), logs)
        # The node that saved it resumes from its own copy, with nothing downloaded.
        logs.clear()
        path = resume_path(self.env("a", resume=True), log=logs.append)
        self.assertEqual(self.read_folder(path), newest)
        self.assertFalse(any("downloaded" in line for line in logs), logs)
        # The next save after that resume goes on with the store's seq.
        again = self.callback("b")
        self.state.global_step = 20
        self.train_and_save(again, node="b")
        self.assertEqual(self.marker("b")["seq"], 3)

    def test_an_upload_that_fails_reports_nothing_and_the_last_one_stays(self):
        from squeeze_checkpoint.huggingface import resume_path
        server = self.server = self.own_server()
        cb = self.callback()
        self.train_and_save(cb)
        first = dict(self.weights)

        def stop_at_the_manifest(key):
            if "/manifests/" in key:
                server.stop()

        self.on_put(cb, stop_at_the_manifest)
        with self.assertRaises(CheckpointError) as e:
            self.train_and_save(cb)
        self.assertIn("the checkpoint 2 at step 20 was not saved", str(e.exception))
        self.assertIn(f"s3://{BUCKET}/{self.manifest_key(2)}", str(e.exception))
        self.assertEqual(self.marker()["seq"], 1)
        server.start(server.port)
        path = resume_path(self.env("b", resume=True), log=self.logs.append)
        self.assertEqual(self.read_folder(path), first)      # not the partial upload

    def test_the_store_keeps_the_newest_keep(self):
        cb = self.callback(SQUEEZE_CHECKPOINT_STORE_KEEP="2")
        for _ in range(4):
            self.train_and_save(cb)
        self.assertEqual(self.stored(), ([3, 4], [3, 4]))

    def test_resume_with_an_empty_store_and_no_marker_names_both(self):
        from squeeze_checkpoint.huggingface import resume_path
        with self.assertRaises(CheckpointError) as e:
            resume_path(self.env("b", resume=True), log=self.logs.append)
        self.assertIn(f"neither the checkpoint store {self.url}", str(e.exception))
        self.assertIn(os.path.join(self.dir("b"), "COMPLETE"), str(e.exception))
