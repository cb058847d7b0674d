"""python/pyproject.toml: what pip builds offline with the package's own backend
(python/_build/squeeze_build.py): the wheel, and installs into a venv that has neither
setuptools nor wheel (pyenv's and conda's Pythons often lack wheel, 3.12's venvs both), with
and without build isolation, editable and from the sdist, each imported, shown and
uninstalled."""

import base64
import glob
import hashlib
import importlib.util
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


def pip(*args, cwd, python=sys.executable):
    """Runs `python`'s pip with no index (nothing may be downloaded)."""
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return subprocess.run([python, "-m", "pip", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def run_python(python, code, cwd):
    """`python -c code` with no PYTHONPATH: it imports only what is installed in it."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([python, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=60)


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
        r = pip("wheel", "--no-deps", "-w", out, self.src, cwd=self.tmp)
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
            self.assertFalse([n for n in names if n.startswith("_build")], names)
            metadata = z.read(info[0]).decode()
            # RECORD names every other file with its hash and size (pip uninstall reads it).
            record = z.read(info[0].replace("METADATA", "RECORD")).decode().splitlines()
            rows = {line.split(",")[0]: line.split(",")[1:] for line in record}
            self.assertEqual(set(rows), names)
            for name in names - {info[0].replace("METADATA", "RECORD")}:
                data = z.read(name)
                digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
                self.assertEqual(rows[name], [f"sha256={digest.decode()}", str(len(data))], name)
        self.assertIn("Name: squeeze-checkpoint", metadata)
        self.assertIn("Version: 0.1.0", metadata)
        self.assertIn("Requires-Python: >=3.8", metadata)
        self.assertIn("Provides-Extra: torch", metadata)
        self.assertIn('Requires-Dist: boto3; extra == "s3"', metadata)
        self.assertIn("Description-Content-Type: text/markdown", metadata)
        self.assertIn("\n\n# squeeze-checkpoint\n", metadata)  # the readme, after the fields
        # Nothing written next to the source (setuptools left build/ and *.egg-info there).
        self.assertFalse([n for n in os.listdir(self.src) if n == "build" or "egg-info" in n])

    @unittest.skipIf(sys.version_info < (3, 11), "tomllib is Python 3.11+")
    def test_the_backend_reads_pyproject_toml_as_tomllib_does(self):
        import tomllib
        sys.path.insert(0, os.path.join(PYTHON_DIR, "_build"))
        try:
            import squeeze_build
        finally:
            sys.path.pop(0)
        path = os.path.join(PYTHON_DIR, "pyproject.toml")
        with open(path, "rb") as f:
            toml = tomllib.load(f)
        ours = squeeze_build.read_pyproject(path)
        self.assertEqual(ours["build-system"], toml["build-system"])
        extras = toml["project"].pop("optional-dependencies")
        self.assertEqual(ours["project"], toml["project"])
        self.assertEqual(ours["project.optional-dependencies"], extras)

    @unittest.skipIf(importlib.util.find_spec("ensurepip") is None,
                     "this Python cannot make a venv with pip (Debian: python3-venv)")
    def test_installs_offline_in_a_venv_without_setuptools_or_wheel(self):
        venv = os.path.join(self.tmp, "venv")
        r = subprocess.run([sys.executable, "-m", "venv", venv], capture_output=True, text=True,
                           timeout=300)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        python = os.path.join(venv, "bin", "python")
        r = pip("uninstall", "-y", "setuptools", "wheel", python=python, cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        for missing in ("setuptools", "wheel"):  # as on pyenv's and conda's Pythons
            self.assertNotEqual(run_python(python, f"import {missing}", self.tmp).returncode, 0)
        # The sdist, built by the backend itself, must hold all a build needs (the backend too).
        dist = os.path.join(self.tmp, "dist")
        os.mkdir(dist)
        r = run_python(python, "import sys; sys.path.insert(0, '_build'); import squeeze_build; "
                               f"print(squeeze_build.build_sdist({dist!r}))", self.src)
        self.assertEqual(r.returncode, 0, r.stderr)
        sdist = os.path.join(dist, r.stdout.strip())
        probe = "import squeeze_checkpoint as s; print(s.__file__, s.__version__)"
        for how, args, home in [("isolated", [self.src], venv),
                                ("no isolation", ["--no-build-isolation", self.src], venv),
                                ("editable", ["-e", self.src], self.src),
                                ("sdist", [sdist], venv)]:
            with self.subTest(how):
                r = pip("install", *args, python=python, cwd=self.tmp)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                r = run_python(python, probe, self.tmp)
                self.assertEqual(r.returncode, 0, r.stderr)
                path, version = r.stdout.split()
                self.assertTrue(path.startswith(home + os.sep), path)
                self.assertEqual(version, "0.1.0")
                r = pip("show", "squeeze-checkpoint", python=python, cwd=self.tmp)
                self.assertIn("Version: 0.1.0", r.stdout, r.stderr)
                r = pip("uninstall", "-y", "squeeze-checkpoint", python=python, cwd=self.tmp)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertNotEqual(run_python(python, probe, self.tmp).returncode, 0)
                left = glob.glob(os.path.join(venv, "lib", "python*", "site-packages", "*squeeze*"))
                self.assertEqual(left, [])

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
