"""The checkpoint store's settings (SQUEEZE_CHECKPOINT_STORE and SQUEEZE_CHECKPOINT_STORE_*)
against a real S3 server (store_test_case.py): without a store nothing changes and boto3 is not
needed; a store without boto3, a wrong value of each variable, a credentials file without the
profile or a key or not INI are named (never a secret); a profile of the file, the owner's
AWS_* variables and keys the server refuses; MAX_GBPS caps uploads and downloads.
"""

import os
import sys
import time
import unittest
from unittest import mock

from squeeze_checkpoint import CheckpointError

from .store_test_case import StoreTestCase, folder_save, s3_server


class BandwidthTest(StoreTestCase):
    def test_max_gbps_caps_the_uploads_and_the_downloads(self):
        files = {"weights.bin": os.urandom(3 << 20)}
        save, load = folder_save(files)
        env = self.env(SQUEEZE_CHECKPOINT_STORE_MAX_GBPS="0.016")      # 2 MB/s
        self.make(save=save, load=load, env=env).save(1)
        self.assertGreater(self.marker()["upload_s"], 1.2)             # 3 MiB: 1.6 s
        self.assertTrue(any("transfers capped at 0.016 Gbit/s" in line for line in self.logs))
        b = self.make(save=save, load=load,
                      env=self.env("b", True, SQUEEZE_CHECKPOINT_STORE_MAX_GBPS="0.016"))
        started = time.monotonic()
        self.assertEqual(b.resume(), 1)
        self.assertGreater(time.monotonic() - started, 1.2)
        uncapped = self.make(save=save, load=load, env=self.env("c"))
        uncapped.save(2)
        self.assertLess(self.marker("c")["upload_s"], 1.0)


class SettingsTest(StoreTestCase):
    def error(self, **env):
        with self.assertRaises(CheckpointError) as e:
            self.make({}, env=self.env(**env))
        return str(e.exception)

    def test_without_a_store_nothing_changes_and_boto3_is_not_needed(self):
        with mock.patch.dict(sys.modules, {"boto3": None}):
            c = self.make({"x": 1}, env={"SQUEEZE_CHECKPOINT_DIR": self.dir("a")})
            c.save(1)
        self.assertIsNone(c.store)
        marker = self.marker()
        self.assertLessEqual({"path", "save_s", "seq", "step", "time", "world_size"}, set(marker))
        self.assertFalse({"store", "manifest", "upload_bytes", "upload_s"} & set(marker), marker)

    def test_a_store_without_boto3_says_what_to_install(self):
        with mock.patch.dict(sys.modules, {"boto3": None}):
            message = self.error()
        self.assertIn(f"SQUEEZE_CHECKPOINT_STORE={self.url!r}", message)
        self.assertIn("boto3 is not installed", message)
        self.assertIn("python3-boto3", message)

    def test_bad_values_name_the_variable_and_the_value(self):
        cases = [("SQUEEZE_CHECKPOINT_STORE", "http://bucket/prefix", "is not an s3:// URL"),
                 ("SQUEEZE_CHECKPOINT_STORE", "s3://", "names no bucket"),
                 ("SQUEEZE_CHECKPOINT_STORE", "s3:///prefix", "names no bucket"),
                 ("SQUEEZE_CHECKPOINT_STORE", "s3://b/x", "is not a bucket name"),
                 ("SQUEEZE_CHECKPOINT_STORE", "s3://bucket/a//b", "has an empty"),
                 ("SQUEEZE_CHECKPOINT_STORE", "s3://bucket/a/../b", "'..' part"),
                 ("SQUEEZE_CHECKPOINT_STORE_KEEP", "0", "is not a positive integer"),
                 ("SQUEEZE_CHECKPOINT_STORE_KEEP", "-3", "is not a positive integer"),
                 ("SQUEEZE_CHECKPOINT_STORE_KEEP", "two", "is not a positive integer"),
                 ("SQUEEZE_CHECKPOINT_STORE_ENDPOINT", "127.0.0.1:9000", "not an http://"),
                 ("SQUEEZE_CHECKPOINT_STORE_MAX_GBPS", "fast", "not a positive number"),
                 ("SQUEEZE_CHECKPOINT_STORE_MAX_GBPS", "0", "not a positive number"),
                 ("SQUEEZE_CHECKPOINT_STORE_CREDENTIALS", "/nonexistent/creds", "cannot read"),
                 ("SQUEEZE_CHECKPOINT_STORE_CREDENTIALS", "/", "cannot read")]
        for name, value, why in cases:
            with self.subTest(name=name, value=value):
                message = self.error(**{name: value})
                self.assertIn(f"{name}={value!r}", message)
                self.assertIn(why, message)

    def test_a_credentials_file_without_the_profile_or_a_key_is_named_without_its_secrets(self):
        path = os.path.join(self.tmp.name, "creds")
        s3_server.write_credentials(path, profile="ci", secret="TOP-SECRET")
        message = self.error(SQUEEZE_CHECKPOINT_STORE_CREDENTIALS=path)
        self.assertIn(f"{path!r} has no profile [default] (its profiles: ci;", message)
        with open(path, "w") as f:
            f.write("[default]\naws_secret_access_key = TOP-SECRET\n")
        self.assertIn("has no aws_access_key_id",
                      self.error(SQUEEZE_CHECKPOINT_STORE_CREDENTIALS=path))
        with open(path, "w") as f:
            f.write("aws_secret_access_key = TOP-SECRET\n[default\n")
        message = self.error(SQUEEZE_CHECKPOINT_STORE_CREDENTIALS=path)
        self.assertIn("is not an AWS-style credentials file", message)
        self.assertNotIn("TOP-SECRET", message)

    def test_a_named_profile_of_the_file_is_used(self):
        path = s3_server.write_credentials(os.path.join(self.tmp.name, "creds"), profile="ci")
        self.make({"x": 1}, env=self.env(SQUEEZE_CHECKPOINT_STORE_CREDENTIALS=path,
                                         SQUEEZE_CHECKPOINT_STORE_PROFILE="ci")).save(1)
        self.assertEqual(self.stored(), ([1], [1]))

    def test_keys_the_server_refuses_fail_the_save_with_its_answer(self):
        path = s3_server.write_credentials(os.path.join(self.tmp.name, "creds"),
                                           key="NOBODY", secret="TOP-SECRET")
        c = self.make({"x": 1}, env=self.env(SQUEEZE_CHECKPOINT_STORE_CREDENTIALS=path))
        with self.assertRaises(CheckpointError) as e:
            c.save(1)
        self.assertIn("InvalidAccessKeyId", str(e.exception))
        self.assertNotIn("TOP-SECRET", str(e.exception))
        self.assertIsNone(self.marker())

    def test_without_a_file_the_owners_environment_is_used(self):
        clean = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        clean.update(AWS_SHARED_CREDENTIALS_FILE="/nonexistent", AWS_CONFIG_FILE="/nonexistent",
                     AWS_EC2_METADATA_DISABLED="true")
        with mock.patch.dict(os.environ, clean, clear=True):
            message = self.error(SQUEEZE_CHECKPOINT_STORE_CREDENTIALS=None)
            self.assertIn("no credentials for the store", message)
            os.environ.update(AWS_ACCESS_KEY_ID=s3_server.ACCESS_KEY,
                              AWS_SECRET_ACCESS_KEY=s3_server.SECRET_KEY)
            self.make({"x": 1}, env=self.env(SQUEEZE_CHECKPOINT_STORE_CREDENTIALS=None)).save(1)
        self.assertEqual(self.stored(), ([1], [1]))


if __name__ == "__main__":
    unittest.main()
