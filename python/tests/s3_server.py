"""A real S3-protocol server for tests: s3rver (the npm package tests/s3-server pins, fetched
by scripts/setup.sh's `npm ci`) run by the `node` on PATH, on a free port of 127.0.0.1, with
its objects in a folder of its own. Its only account is S3RVER / S3RVER.

    from s3_server import S3Server          # sys.path: python/tests of the repository
    with S3Server() as server:              # started; stopped (and its folder removed) after
        server.create_bucket("checkpoints")
        env = server.store_env("s3://checkpoints/job-1", credentials_file)
        server.stop(); server.start(server.port)   # down and back, same port and objects

From a shell (an end-to-end test): `python3 python/tests/s3_server.py --bucket NAME` prints
`endpoint http://127.0.0.1:PORT` once the bucket exists and serves until SIGTERM or SIGINT.
"""

import argparse
import ctypes
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROJECT = os.path.join(REPO, "tests", "s3-server")
SCRIPT = os.path.join(PROJECT, "node_modules", "s3rver", "bin", "s3rver.js")
ACCESS_KEY = SECRET_KEY = "S3RVER"
SETUP = "run scripts/setup.sh (it installs python3-boto3 and runs npm ci in tests/s3-server)"


def missing():
    """Why the server cannot run here (a sentence naming the fix), or None."""
    try:
        import boto3  # noqa: F401
    except ImportError:
        return f"boto3 is not installed for {sys.executable}: {SETUP}"
    if shutil.which("node") is None:
        return f"node is not on PATH: {SETUP}"
    if not os.path.exists(SCRIPT):
        return f"{SCRIPT} is missing: {SETUP}"
    return None


class S3Server:
    """One s3rver process. `directory`: where it keeps its objects (default: a new temporary
    folder, removed by close())."""

    def __init__(self, directory=None):
        why = missing()
        if why:
            raise RuntimeError(why)
        self._own = directory is None
        self.root = tempfile.mkdtemp(prefix="s3rver-") if self._own else directory
        self.data = os.path.join(self.root, "objects")
        os.makedirs(self.data, exist_ok=True)
        self.log_path = os.path.join(self.root, "s3rver.log")
        self.proc = None
        self.port = None
        self._client = None

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self, port=0, timeout=30):
        """Starts the server (port 0: a free one) and waits until it listens."""
        log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            ["node", SCRIPT, "-d", self.data, "-a", "127.0.0.1", "-p", str(port), "--silent"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, cwd=PROJECT,
            preexec_fn=_end_with_parent)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with open(self.log_path) as f:
                m = re.search(r"listening on [^:\s]+:(\d+)", f.read())
            if m:
                self.port = int(m.group(1))
                return self
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        with open(self.log_path) as f:
            raise RuntimeError(f"s3rver did not start on port {port} within {timeout}s: "
                               f"{f.read()[-2000:]}")

    def stop(self):
        """Stops the server (its objects stay in its folder)."""
        if self._client is not None:
            self._client.close()
            self._client = None
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def close(self):
        self.stop()
        if self._own:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self):
        return self.start() if self.proc is None else self

    def __exit__(self, *exc):
        self.close()

    def client(self):
        """A boto3 client of the server's account (one per start)."""
        if self._client is None:
            self._client = self._new_client()
        return self._client

    def _new_client(self):
        import boto3
        import botocore.config
        return boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=ACCESS_KEY,
                            aws_secret_access_key=SECRET_KEY, region_name="us-east-1",
                            config=botocore.config.Config(s3={"addressing_style": "path"}))

    def create_bucket(self, name):
        self.client().create_bucket(Bucket=name)

    def keys(self, bucket, prefix=""):
        """{key: size} of the objects under `prefix`."""
        found = {}
        for page in self.client().get_paginator("list_objects_v2").paginate(Bucket=bucket,
                                                                             Prefix=prefix):
            found.update((o["Key"], o["Size"]) for o in page.get("Contents", []))
        return found

    def store_env(self, url, credentials_file, **more):
        """The environment squeeze gives a job whose checkpoints go to `url` on this server."""
        return {"SQUEEZE_CHECKPOINT_STORE": url, "SQUEEZE_CHECKPOINT_STORE_ENDPOINT": self.endpoint,
                "SQUEEZE_CHECKPOINT_STORE_CREDENTIALS": credentials_file, **more}


def _end_with_parent():
    """In the server's process before node starts: SIGTERM when the test process ends, even
    killed (Linux's PR_SET_PDEATHSIG), so that no server outlives its test. (Also when the
    thread that started it ends: start it from one that lasts.)"""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass


def write_credentials(path, profile="default", key=ACCESS_KEY, secret=SECRET_KEY):
    """An AWS-style shared credentials file with the server's account (or other keys)."""
    with open(path, "w") as f:
        f.write(f"[{profile}]\naws_access_key_id = {key}\naws_secret_access_key = {secret}\n")
    os.chmod(path, 0o600)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bucket", action="append", default=[], help="a bucket to create")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--directory", help="where the objects are kept (default: temporary)")
    args = parser.parse_args()
    why = missing()
    if why:
        sys.exit(f"s3_server: {why}")
    server = S3Server(args.directory).start(args.port)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        for bucket in args.bucket:
            server.create_bucket(bucket)
        print(f"endpoint {server.endpoint}", flush=True)
        while server.proc.poll() is None:
            time.sleep(0.5)
        sys.exit(f"s3_server: s3rver exited ({server.proc.returncode})")
    except KeyboardInterrupt:
        pass
    finally:
        server.close()


if __name__ == "__main__":
    main()
