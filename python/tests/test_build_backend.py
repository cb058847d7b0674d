"""python/build_backend.py: the wheel and the sdist `pip install ./python` builds offline."""

import importlib.util
import os
import tarfile
import tempfile
import unittest
import zipfile

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def backend():
    spec = importlib.util.spec_from_file_location(
        "build_backend", os.path.join(PYTHON_DIR, "build_backend.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildBackendTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.b = backend()

    def tearDown(self):
        self.tmp.cleanup()

    def test_nothing_is_needed_to_build(self):
        self.assertEqual(self.b.get_requires_for_build_wheel(), [])
        self.assertEqual(self.b.get_requires_for_build_sdist(), [])

    def test_the_wheel_holds_every_module_and_a_complete_record(self):
        name = self.b.build_wheel(self.tmp.name)
        self.assertRegex(name, r"^squeeze_checkpoint-[\d.]+-py3-none-any\.whl$")
        with zipfile.ZipFile(os.path.join(self.tmp.name, name)) as z:
            names = set(z.namelist())
            info = name.split("-py3")[0] + ".dist-info"
            for module in os.listdir(os.path.join(PYTHON_DIR, "squeeze_checkpoint")):
                if module.endswith(".py"):
                    self.assertIn(f"squeeze_checkpoint/{module}", names)
            record = z.read(f"{info}/RECORD").decode().splitlines()
            self.assertEqual({line.split(",")[0] for line in record}, names)
            self.assertIn("Name: squeeze-checkpoint", z.read(f"{info}/METADATA").decode())

    def test_the_sdist_can_build_again(self):
        name = self.b.build_sdist(self.tmp.name)
        with tarfile.open(os.path.join(self.tmp.name, name)) as t:
            names = t.getnames()
        base = name[: -len(".tar.gz")]
        for path in ("pyproject.toml", "build_backend.py", "PKG-INFO",
                     "squeeze_checkpoint/checkpointer.py"):
            self.assertIn(f"{base}/{path}", names)


if __name__ == "__main__":
    unittest.main()
