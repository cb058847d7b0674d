"""python/pyproject.toml: the wheel pip builds offline with the installed setuptools
(`pip install --no-build-isolation ./python`, as where no package index is reachable)."""

import glob
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULES = sorted(f for f in os.listdir(os.path.join(PYTHON_DIR, "squeeze_checkpoint"))
                 if f.endswith(".py"))


def pip(*args, cwd):
    """Runs this interpreter's pip with no index (nothing may be downloaded)."""
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return subprocess.run([sys.executable, "-m", "pip", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@unittest.skipIf(subprocess.run([sys.executable, "-m", "pip", "--version"],
                                capture_output=True).returncode != 0,
                 "this Python has no pip (Debian: python3-pip)")
class PackagingTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        # A copy, so that the build's files (build/, *.egg-info) stay out of the checkout.
        self.src = os.path.join(self.tmp, "python")
        shutil.copytree(PYTHON_DIR, self.src,
                        ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_the_wheel_holds_every_module_and_the_metadata(self):
        out = os.path.join(self.tmp, "dist")
        r = pip("wheel", "--no-build-isolation", "--no-deps", "-w", out, self.src, cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        wheels = glob.glob(os.path.join(out, "squeeze_checkpoint-*-py3-none-any.whl"))
        self.assertEqual(len(wheels), 1, os.listdir(out))
        with zipfile.ZipFile(wheels[0]) as z:
            names = set(z.namelist())
            for module in MODULES:
                self.assertIn(f"squeeze_checkpoint/{module}", names)
            self.assertFalse([n for n in names if n.startswith("tests/")], names)
            info = [n for n in names if n.endswith(".dist-info/METADATA")]
            self.assertEqual(len(info), 1, names)
            metadata = z.read(info[0]).decode()
        self.assertIn("Name: squeeze-checkpoint", metadata)
        self.assertIn("Version: 0.1.0", metadata)
        self.assertIn("Requires-Python: >=3.8", metadata)
        self.assertIn("Provides-Extra: torch", metadata)

    def test_an_installed_copy_imports_from_where_it_was_installed(self):
        site = os.path.join(self.tmp, "site")
        r = pip("install", "--no-build-isolation", "--quiet", "--target", site, self.src,
                cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        probe = subprocess.run(
            [sys.executable, "-c", "import squeeze_checkpoint as s; print(s.__file__, s.__version__)"],
            cwd=self.tmp, env=dict(os.environ, PYTHONPATH=site), capture_output=True, text=True)
        self.assertEqual(probe.returncode, 0, probe.stderr)
        path, version = probe.stdout.split()
        self.assertTrue(path.startswith(site), path)
        self.assertEqual(version, "0.1.0")


if __name__ == "__main__":
    unittest.main()
