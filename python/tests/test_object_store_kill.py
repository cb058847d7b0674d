"""A node taken back in the middle of an upload (issue 24): a real training process saves a
64 MiB checkpoint to a real S3 server (s3rver, python/tests/s3_server.py), then a second one,
and is killed with SIGKILL once the second's first objects are in the store. The next run, on
another node (an empty folder), resumes from the first checkpoint, never from the partial one,
and its first save removes what the killed upload left. Prints what the uploads took. Fails,
saying to run scripts/setup.sh, where boto3 or the server is missing.
"""

import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

from squeeze_checkpoint import Checkpointer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import s3_server  # noqa: E402

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUCKET, PREFIX = "squeeze-checkpoints", "team/job-7"
FILES, FILE_BYTES = 32, 2 << 20          # 64 MiB in 32 objects, uploaded one after the other

CHILD = textwrap.dedent(f"""
    import os, random, sys
    sys.path.insert(0, {PYTHON_DIR!r})
    from squeeze_checkpoint import Checkpointer

    def save(path):
        os.makedirs(path)
        for i in range({FILES}):
            with open(os.path.join(path, "part-%02d.bin" % i), "wb") as f:
                f.write(random.Random(step * 1000 + i).randbytes({FILE_BYTES}))

    c = Checkpointer(save=save, load=lambda path: None)
    for step in (100, 200):
        c.save(step)
        print("saved", step, flush=True)
    """)


def content_step(path):
    """The step whose data the checkpoint folder `path` holds (every part checked)."""
    steps = set()
    for i in range(FILES):
        with open(os.path.join(path, "part-%02d.bin" % i), "rb") as f:
            data = f.read()
        steps.add(next((s for s in (100, 200, 300) if data ==
                        random.Random(s * 1000 + i).randbytes(FILE_BYTES)), None))
    return steps.pop() if len(steps) == 1 else None


def figure(text):
    print(f"\n  figures: {text}", file=sys.stderr, end="", flush=True)


class KillMidUploadTest(unittest.TestCase):
    def setUp(self):
        why = s3_server.missing()
        if why:
            self.fail(f"the checkpoint store tests need a real S3 server: {why}")
        self.server = s3_server.S3Server().start()
        self.addCleanup(self.server.close)
        self.server.create_bucket(BUCKET)
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        cred = s3_server.write_credentials(os.path.join(self.tmp.name, "credentials"))
        self.store_env = self.server.store_env(f"s3://{BUCKET}/{PREFIX}", cred)

    def keys(self, under):
        return self.server.keys(BUCKET, f"{PREFIX}/{under}")

    def marker(self, node):
        with open(os.path.join(self.tmp.name, node, "COMPLETE")) as f:
            return json.load(f)

    def run_until_the_second_upload_starts(self):
        """Starts the job on node a; SIGKILLs it once checkpoint 2 has objects in the store.
        Returns (objects of checkpoint 2 in the store at the kill, seconds it had uploaded)."""
        env = dict(os.environ, **self.store_env, SQUEEZE_CHECKPOINT_DIR=os.path.join(
            self.tmp.name, "a"), SQUEEZE_ATTEMPT="1")
        with open(os.path.join(self.tmp.name, "a.log"), "w+") as log:
            proc = subprocess.Popen([sys.executable, "-c", CHILD], env=env, stdout=log,
                                    stderr=subprocess.STDOUT)
            try:
                deadline, first_object = time.monotonic() + 120, None
                while time.monotonic() < deadline and proc.poll() is None:
                    partial = self.keys("data/000000000002/")
                    if partial and first_object is None:
                        first_object = time.monotonic()
                    if len(partial) >= 4:
                        break
                    time.sleep(0.01)
                proc.kill()
            finally:
                proc.wait()
            log.seek(0)
            output = log.read()
        self.assertEqual(proc.returncode, -signal.SIGKILL, output)
        self.assertIn("saved 100", output)
        self.assertNotIn("saved 200", output)
        return self.keys("data/000000000002/"), time.monotonic() - first_object

    def test_the_next_run_on_another_node_resumes_from_the_last_complete_checkpoint(self):
        partial, uploading = self.run_until_the_second_upload_starts()
        self.assertNotIn(f"{PREFIX}/manifests/000000000002.json", self.keys("manifests/"),
                         "the upload ended before the kill: make the checkpoint bigger")
        self.assertLess(len(partial), FILES)
        first = self.marker("a")
        self.assertEqual((first["seq"], first["step"]), (1, 100))   # no marker for seq 2
        self.assertEqual(first["upload_bytes"], FILES * FILE_BYTES)
        figure(f"a complete checkpoint: {first['upload_bytes']} bytes uploaded in "
               f"{first['upload_s']:.3f}s ({first['upload_bytes'] / first['upload_s'] / 2**20:.0f}"
               f" MiB/s), the whole save {first['save_s']:.3f}s")
        figure(f"killed {uploading:.3f}s into the second upload, with {len(partial)} of {FILES} "
               f"objects ({sum(partial.values())} bytes) and no manifest in the store")

        loaded, logs = [], []
        b_env = dict(self.store_env, SQUEEZE_CHECKPOINT_DIR=os.path.join(self.tmp.name, "b"),
                     SQUEEZE_RESUME="1", SQUEEZE_ATTEMPT="2")
        state = {"step": None}

        def save(path):
            os.makedirs(path)
            for i in range(FILES):
                with open(os.path.join(path, "part-%02d.bin" % i), "wb") as f:
                    f.write(random.Random(state["step"] * 1000 + i).randbytes(FILE_BYTES))

        c = Checkpointer(save=save, load=lambda path: loaded.append(content_step(path)),
                         environ=b_env, log=logs.append, install_signals=False)
        self.addCleanup(c.store.client.close)
        started = time.monotonic()
        self.assertEqual(c.resume(), 100)
        took = time.monotonic() - started
        self.assertEqual(loaded, [100])                   # checkpoint 1's data, all of it
        self.assertTrue(any("downloaded" in line and "manifests/000000000001.json" in line
                            for line in logs), logs)
        figure(f"the resume on another node: {FILES * FILE_BYTES} bytes listed, checked, "
               f"downloaded and verified in {took:.3f}s")

        state["step"] = 300
        c.save(300)
        second = self.marker("b")
        self.assertEqual((second["seq"], second["step"]), (3, 300))   # 2 is never reused
        self.assertEqual(self.keys("data/000000000002/"), {})         # the partial upload pruned
        self.assertEqual(sorted(self.keys("manifests/")),
                         [f"{PREFIX}/manifests/000000000001.json",
                          f"{PREFIX}/manifests/000000000003.json"])
        self.assertTrue(any("1 partial upload(s)" in line for line in logs), logs)
        figure(f"the next save on node b: {second['upload_bytes']} bytes uploaded in "
               f"{second['upload_s']:.3f}s, the whole save {second['save_s']:.3f}s\n")


if __name__ == "__main__":
    unittest.main()
