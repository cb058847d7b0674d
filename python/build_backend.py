"""A PEP 517 build backend in the standard library, so `pip install ./python` needs nothing
from a package index (no setuptools, no wheel): it packs squeeze_checkpoint/ into a pure-Python
wheel (and an sdist, and PEP 660 editable installs). pyproject.toml names it.
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

NAME = "squeeze_checkpoint"
DIST = "squeeze-checkpoint"
HERE = os.path.dirname(os.path.abspath(__file__))
SUMMARY = ("squeeze's checkpoint protocol for training loops: resume, atomic saves, SIGUSR1 "
           "and SIGTERM")


def _version():
    with open(os.path.join(HERE, NAME, "__init__.py"), encoding="utf-8") as f:
        return re.search(r'^__version__ = "([^"]+)"', f.read(), re.M).group(1)


def _metadata():
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return (f"Metadata-Version: 2.1\nName: {DIST}\nVersion: {_version()}\nSummary: {SUMMARY}\n"
            f"Requires-Python: >=3.8\nProvides-Extra: torch\nProvides-Extra: transformers\n"
            f"Requires-Dist: torch ; extra == 'torch'\n"
            f"Requires-Dist: transformers ; extra == 'transformers'\n"
            f"Description-Content-Type: text/markdown\n\n{readme}")


def _sources():
    """(path in the archive, bytes) of every module of the package."""
    out = []
    for name in sorted(os.listdir(os.path.join(HERE, NAME))):
        if name.endswith(".py"):
            with open(os.path.join(HERE, NAME, name), "rb") as f:
                out.append((f"{NAME}/{name}", f.read()))
    return out


def _dist_info_files():
    wheel = ("Wheel-Version: 1.0\nGenerator: squeeze_checkpoint build_backend\n"
             "Root-Is-Purelib: true\nTag: py3-none-any\n")
    return [("METADATA", _metadata().encode()), ("WHEEL", wheel.encode())]


def _write_wheel(directory, files):
    info = f"{NAME}-{_version()}.dist-info"
    filename = f"{NAME}-{_version()}-py3-none-any.whl"
    files = files + [(f"{info}/{n}", data) for n, data in _dist_info_files()]
    record = []
    with zipfile.ZipFile(os.path.join(directory, filename), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files:
            z.writestr(path, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            record.append(f"{path},sha256={digest.decode()},{len(data)}")
        record.append(f"{info}/RECORD,,")
        z.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return filename


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = f"{NAME}-{_version()}.dist-info"
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    for name, data in _dist_info_files():
        with open(os.path.join(metadata_directory, info, name), "wb") as f:
            f.write(data)
    return info


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, _sources())


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """A wheel with one .pth file that puts this folder on sys.path."""
    return _write_wheel(wheel_directory, [(f"{NAME}.pth", (HERE + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    base = f"{NAME}-{_version()}"
    filename = base + ".tar.gz"
    files = [(p, d) for p, d in _sources()]
    for name in ("pyproject.toml", "README.md", "build_backend.py"):
        with open(os.path.join(HERE, name), "rb") as f:
            files.append((name, f.read()))
    files.append(("PKG-INFO", _metadata().encode()))
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz") as tar:
        for path, data in files:
            entry = tarfile.TarInfo(f"{base}/{path}")
            entry.size = len(data)
            entry.mode = 0o644
            tar.addfile(entry, io.BytesIO(data))
    return filename
