"""The checkpoint store (SQUEEZE_CHECKPOINT_STORE, squeeze_checkpoint.object_store) against a
real S3-protocol server, s3rver, started by the tests (python/tests/s3_server.py): a save
uploads the files, then the manifest, and writes the marker only once the manifest is stored;
a manifest that cannot be stored leaves no marker and the previous checkpoint resumable; prune
keeps the newest KEEP; seq goes on across runs; a damaged newest checkpoint is skipped for the
one before; asynchronous saves upload in the background. The kill in the middle of an upload is
in test_object_store_kill.py, the variables' checks in test_object_store_settings.py. They
fail, saying to run scripts/setup.sh, where boto3 or the server is missing.
"""

import hashlib
import os
import threading
import unittest

from squeeze_checkpoint import Checkpointer, CheckpointError

from .store_test_case import BUCKET, StoreTestCase, digests, folder_save


class SaveTest(StoreTestCase):
    def test_the_files_then_the_manifest_are_uploaded_and_only_then_the_marker_written(self):
        files = {"model.bin": os.urandom(300_000), "opt/state.bin": b"adam"}
        save, load = folder_save(files)
        c = self.make(save=save, load=load)
        puts = []
        self.on_put(c, lambda key: puts.append((key, self.marker())))
        c.save(7)
        manifest_key = self.manifest_key(1)
        self.assertEqual([k for k, _ in puts][-1], manifest_key)       # the manifest last
        self.assertEqual(len(puts), 3)
        self.assertTrue(all(m is None for _, m in puts))               # no marker before it
        marker = self.marker()
        self.assertEqual((marker["seq"], marker["step"]), (1, 7))
        self.assertEqual(marker["store"], self.url)
        self.assertEqual(marker["manifest"], manifest_key)
        self.assertEqual(marker["upload_bytes"], 300_004)
        self.assertGreater(marker["upload_s"], 0)
        m = self.manifest(1)
        self.assertEqual((m["format"], m["seq"], m["step"], m["attempt"], m["kind"], m["bytes"]),
                         ("squeeze-checkpoint-manifest/1", 1, 7, "1", "folder", 300_004))
        stored = self.keys("data/")
        for f in m["files"]:
            data = files[f["path"].split("/", 1)[1]]
            self.assertEqual(stored[f["key"]], len(data))
            self.assertEqual(f["sha256"], hashlib.sha256(data).hexdigest())
        self.assertTrue(any(f"uploaded 300004 bytes to {self.url} in" in line
                            for line in self.logs), self.logs)
        puts.clear()
        files["model.bin"] = b"second"
        c.save(8)
        self.assertEqual(puts[-1], (self.manifest_key(2), marker))    # still the first marker
        self.assertEqual(self.marker()["seq"], 2)

    def test_a_manifest_that_cannot_be_stored_leaves_no_marker_and_the_last_one_resumable(self):
        server = self.server = self.own_server()
        state = {"x": 1}
        c = self.make(state)
        c.save(10)
        state["x"] = 2

        def stop_at_the_manifest(key):
            if "/manifests/" in key:
                server.stop()       # the manifest's PUT meets a server that is gone

        self.on_put(c, stop_at_the_manifest)
        with self.assertRaises(CheckpointError) as e:
            c.save(20)
        message = str(e.exception)
        self.assertIn("the checkpoint 2 at step 20 was not saved", message)
        self.assertIn(f"s3://{BUCKET}/{self.manifest_key(2)}", message)
        self.assertEqual(self.marker()["seq"], 1)
        server.start(server.port)
        self.assertEqual(self.stored(), ([1], [1, 2]))   # checkpoint 2's data, no manifest
        restored = {}
        r = self.make(restored, node="b", resume=True)   # another node, an empty folder
        self.assertEqual(r.resume(), 10)
        self.assertEqual(restored, {"x": 1})
        r.save(11)
        self.assertEqual(self.marker("b")["seq"], 3)      # 2 is not used again
        self.assertEqual(self.stored(), ([1, 3], [1, 3]))  # the partial upload is pruned

    def test_a_resumed_run_on_the_same_node_downloads_nothing(self):
        self.make({"x": 5}).save(3)
        state = {}
        self.assertEqual(self.make(state, resume=True).resume(), 3)
        self.assertEqual(state, {"x": 5})
        self.assertTrue(any("nothing to download" in line for line in self.logs), self.logs)

    def test_a_single_file_checkpoint_resumes_on_another_node(self):
        self.make({"x": [1, 2, 3]}).save(4)
        state = {}
        self.assertEqual(self.make(state, node="b", resume=True).resume(), 4)
        self.assertEqual(state, {"x": [1, 2, 3]})
        self.assertEqual(self.listdir("b"), ["checkpoint-1"])

    def test_the_processes_of_a_node_resuming_together_download_once(self):
        files = {f"shard-{i}.bin": os.urandom(200_000) for i in range(4)}
        save, _ = folder_save(files)
        self.make(save=save, load=lambda path: None).save(9)
        got, errors = [], []

        def rank():
            mine = {}
            try:
                c = self.make(save=save, load=folder_save(mine)[1], node="b", resume=True)
                got.append((c.resume(), digests(mine)))
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=rank) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        self.assertEqual(errors, [])
        self.assertEqual(got, [(9, digests(files))] * 4)
        self.assertEqual(len([line for line in self.logs if line.startswith("downloaded")]), 1)
        self.assertEqual(len([line for line in self.logs if "nothing to download" in line]), 3)


class PruneTest(StoreTestCase):
    def test_the_newest_keep_stay_and_seq_goes_on_across_runs_and_nodes(self):
        env = self.env(SQUEEZE_CHECKPOINT_STORE_KEEP="2")
        c = self.make({"x": 1}, env=env)
        for step in (10, 20, 30):
            c.save(step)
        self.assertEqual(self.stored(), ([2, 3], [2, 3]))
        self.assertTrue(any("1 old checkpoint(s) beyond the newest 2" in line
                            for line in self.logs))
        state = {}
        r = self.make(state, env=self.env("b", True, SQUEEZE_CHECKPOINT_STORE_KEEP="2"))
        self.assertEqual(r.resume(), 30)
        r.save(40)
        self.assertEqual(self.marker("b")["seq"], 4)
        self.assertEqual(self.stored(), ([3, 4], [3, 4]))
        fresh = self.make({"x": 0}, env=self.env("c", SQUEEZE_CHECKPOINT_STORE_KEEP="1"))
        fresh.save(1)                                     # not resuming: still after the store's
        self.assertEqual(self.marker("c")["seq"], 5)
        self.assertEqual(self.stored(), ([5], [5]))


class BrokenStoreTest(StoreTestCase):
    def three_checkpoints(self):
        state = {"x": 0}
        c = self.make(state, env=self.env(SQUEEZE_CHECKPOINT_STORE_KEEP="5"))
        for step in (10, 20, 30):
            state["x"] = step
            c.save(step)
        return self.manifest(3)["files"][0]["key"]

    def put(self, key, body):
        self.server.client().put_object(Bucket=BUCKET, Key=key, Body=body)

    def resumes_the_one_before(self, reason):
        state = {}
        self.assertEqual(self.make(state, node="b", resume=True).resume(), 20)
        self.assertEqual(state, {"x": 20})
        skipped = [line for line in self.logs if line.startswith("skipping checkpoint 3")]
        self.assertEqual(len(skipped), 1, self.logs)
        self.assertIn(reason, skipped[0])
        return skipped[0]

    def test_a_garbled_manifest_is_skipped(self):
        self.three_checkpoints()
        self.put(self.manifest_key(3), b'{"format": "squeeze-checkpoint-manif')
        self.assertIn(self.manifest_key(3), self.resumes_the_one_before("is not JSON"))

    def test_a_manifest_of_something_else_is_skipped(self):
        self.three_checkpoints()
        self.put(self.manifest_key(3), b'{"seq": 3}')
        self.resumes_the_one_before("is not a checkpoint manifest of seq 3")

    def test_a_missing_object_is_skipped(self):
        key = self.three_checkpoints()
        self.server.client().delete_object(Bucket=BUCKET, Key=key)
        self.assertIn(key, self.resumes_the_one_before("which is not in the store"))

    def test_an_object_of_another_size_is_skipped(self):
        key = self.three_checkpoints()
        self.put(key, b'{"x": 3000}')
        self.assertIn(key, self.resumes_the_one_before("bytes, the store has 11"))

    def test_an_object_whose_sha256_differs_is_skipped_and_not_left_behind(self):
        key = self.three_checkpoints()
        self.put(key, b'{"x": 31}')                    # the size of {"x": 30}, not its content
        self.assertIn(key, self.resumes_the_one_before("has sha256"))
        self.assertEqual(self.listdir("b"), ["checkpoint-2"])

    def test_no_complete_checkpoint_anywhere_names_the_store_each_skipped_one_and_the_marker(self):
        self.three_checkpoints()
        for seq in (1, 2, 3):
            self.put(self.manifest_key(seq), b"garbage")
        with self.assertRaises(CheckpointError) as e:
            self.make({}, node="b", resume=True).resume()
        message = str(e.exception)
        for seq in (1, 2, 3):
            self.assertIn(self.manifest_key(seq), message)
        self.assertIn(f"neither the checkpoint store {self.url}", message)
        self.assertIn(os.path.join(self.dir("b"), "COMPLETE"), message)

    def test_an_empty_store_with_a_local_checkpoint_resumes_from_the_local_one(self):
        Checkpointer(state={"x": 4}, environ={"SQUEEZE_CHECKPOINT_DIR": self.dir("a")},
                     log=self.logs.append, install_signals=False).save(4)
        state = {}
        self.assertEqual(self.make(state, resume=True).resume(), 4)
        self.assertEqual(state, {"x": 4})
        self.assertTrue(any(f"{self.url} holds no complete checkpoint: resuming from the local"
                            in line for line in self.logs), self.logs)

    def test_a_local_checkpoint_newer_than_the_stores_is_used(self):
        self.make({"x": 1}).save(1)
        Checkpointer(state={"x": 2}, environ={"SQUEEZE_CHECKPOINT_DIR": self.dir("a")},
                     log=self.logs.append, install_signals=False).save(2)
        state = {}
        self.assertEqual(self.make(state, resume=True).resume(), 2)
        self.assertEqual(state, {"x": 2})
        self.assertTrue(any("(seq 2) is newer than the store's newest" in line
                            for line in self.logs), self.logs)

    def test_a_store_that_cannot_be_reached_at_resume_is_an_error(self):
        server = self.server = self.own_server()
        self.make({"x": 1}).save(1)
        server.stop()
        with self.assertRaises(CheckpointError) as e:
            self.make({}, node="b", resume=True).resume()
        self.assertIn(f"cannot list s3://{BUCKET}/{self.prefix}/manifests/", str(e.exception))
        self.assertIn(server.endpoint, str(e.exception))


class AsynchronousTest(StoreTestCase):
    def test_the_upload_runs_in_the_background_and_the_marker_comes_after_the_manifest(self):
        state = {"x": 1}
        c = self.make(state, asynchronous=True)
        at_manifest, gate, seen = threading.Event(), threading.Event(), []

        def hold_the_manifest(key):
            if "/manifests/" in key:
                seen.append(self.marker())
                at_manifest.set()
                gate.wait(20)

        self.on_put(c, hold_the_manifest)
        c.save(5)                                    # returns with the upload still to come
        state["x"] = 2                               # training goes on
        self.assertTrue(at_manifest.wait(20))
        self.assertEqual(self.stored(), ([], [1]))   # the data is up, the manifest not yet
        self.assertIsNone(self.marker())
        gate.set()
        c.wait()
        self.assertEqual(seen, [None])
        self.assertEqual((self.marker()["seq"], self.marker()["manifest"]),
                         (1, self.manifest_key(1)))
        restored = {}
        self.assertEqual(self.make(restored, node="b", resume=True).resume(), 5)
        self.assertEqual(restored, {"x": 1})         # the state of the boundary

    def test_a_failed_background_upload_is_reported_with_its_step_and_leaves_no_marker(self):
        server = self.server = self.own_server()
        c = self.make({"x": 1}, asynchronous=True)
        c.save(5)
        c.wait()
        server.stop()
        c.save(6)                                    # returns; the upload fails behind it
        with self.assertRaises(CheckpointError) as e:
            c.wait()
        self.assertIn("the checkpoint 2 at step 6 was not saved", str(e.exception))
        self.assertIn(server.endpoint, str(e.exception))
        self.assertEqual(self.marker()["seq"], 1)


if __name__ == "__main__":
    unittest.main()
