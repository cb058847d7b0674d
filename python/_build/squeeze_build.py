"""The build backend of python/pyproject.toml (PEP 517 and PEP 660), standard library only.

Why not setuptools: pip installs by building a wheel, and setuptools before 70.1 (pyenv's
Python 3.9 has 58, 3.10 and 3.11 have 65, and so have their venvs and many conda
environments) cannot without the separate `wheel` package ("invalid command 'bdist_wheel'"),
while Python 3.12's venvs have no setuptools at all. Where no package index is reachable
neither can be fetched. This backend needs nothing: pip runs it from this folder
(`backend-path`), with `requires = []`, so `pip install ./python` works offline on any
Python 3.8+ with pip, with or without build isolation.

It builds one pure-Python package: the folder named after the project (squeeze_checkpoint/),
its version from `__version__` in its __init__.py, the rest of the metadata from [project].
"""

import ast
import base64
import gzip
import hashlib
import io
import os
import re
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The [project] keys this backend writes into the metadata ([project.optional-dependencies]
# is a table of its own here).
KNOWN = {"name", "dynamic", "description", "readme", "requires-python", "dependencies"}
# Fixed file dates: the same source gives byte-identical wheels and sdists.
DATE = (1980, 1, 1, 0, 0, 0)


def _strip_comment(line):
    """`line` without its `# comment` (a # inside a string is kept)."""
    quote, escaped = None, False
    for i, c in enumerate(line):
        if quote:
            if escaped:
                escaped = False
            elif c == "\\" and quote == '"':  # only "basic" strings have escapes
                escaped = True
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == "#":
            return line[:i]
    return line


def _value(text, where):
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    try:  # the strings and arrays of strings used here are Python literals too
        return ast.literal_eval(text)
    except (SyntaxError, ValueError):
        raise ValueError(f"{where}: squeeze_build reads only strings, arrays of strings and "
                         f"booleans, not {text!r}") from None


def read_pyproject(path):
    """The tables of pyproject.toml as dicts ({"project": {...}, "project.optional-dependencies":
    {...}}). Only the TOML that file uses: [tables], key = "string" | [array] | true/false,
    arrays over several lines. (tomllib is 3.11+; tests compare this with it.) Anything else
    stops the build, naming the line."""
    table, pending = {}, None
    tables = {"": table}  # "": the keys before any [table]
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for number, raw in enumerate(lines, 1):
        line = _strip_comment(raw).strip()
        if pending:  # an array continued from an earlier line
            pending[2] += " " + line
            if pending[2].count("[") > pending[2].count("]"):
                continue
            key, first, text = pending
            table[key] = _value(text, f"{path}:{first}")
            pending = None
        elif not line:
            continue
        elif line.startswith("[") and line.endswith("]") and "=" not in line:
            table = tables.setdefault(line.strip("[] "), {})
        elif "=" in line:
            key, text = (s.strip() for s in line.split("=", 1))
            key = key.strip('"')
            if text.count("[") > text.count("]"):
                pending = [key, number, text]
            else:
                table[key] = _value(text, f"{path}:{number}")
        else:
            raise ValueError(f"{path}:{number}: squeeze_build cannot read {raw!r}")
    if pending:
        raise ValueError(f"{path}:{pending[1]}: an array with no closing ]")
    return tables


class Project:
    """What the wheel and the sdist are built from."""

    def __init__(self, root=ROOT):
        self.root = root
        tables = read_pyproject(os.path.join(root, "pyproject.toml"))
        project = tables["project"]
        unknown = set(project) - KNOWN
        if unknown:  # rather than a wheel whose metadata silently lacks them
            raise ValueError(f"squeeze_build does not write [project] {sorted(unknown)}")
        self.name = project["name"]
        self.package = re.sub(r"[-.]+", "_", self.name).lower()
        self.dist = self.package  # the file-name form of the name (PEP 427, PEP 625)
        self.version = self._version()
        if project.get("dynamic", []) != ["version"] or "version" in project:
            raise ValueError("squeeze_build takes the version from __version__ only "
                             "(dynamic = [\"version\"])")
        self.dependencies = project.get("dependencies", [])
        self.summary = project.get("description", "")
        self.requires_python = project.get("requires-python")
        self.extras = tables.get("project.optional-dependencies", {})
        self.readme = project.get("readme")

    def _version(self):
        with open(os.path.join(self.root, self.package, "__init__.py"), encoding="utf-8") as f:
            found = re.search(r'^__version__\s*=\s*["\']([^"\']+)["\']', f.read(), re.M)
        if not found:
            raise ValueError(f"squeeze_build: no __version__ = \"...\" in "
                             f"{self.package}/__init__.py")
        return found.group(1)

    def metadata(self):
        """The core metadata (METADATA in the wheel, PKG-INFO in the sdist)."""
        lines = ["Metadata-Version: 2.1", f"Name: {self.name}", f"Version: {self.version}"]
        if self.summary:
            lines.append(f"Summary: {self.summary}")
        if self.requires_python:
            lines.append(f"Requires-Python: {self.requires_python}")
        lines += [f"Requires-Dist: {r}" for r in self.dependencies]
        for extra, requirements in self.extras.items():
            lines.append(f"Provides-Extra: {extra}")
            lines += [f'Requires-Dist: {r}; extra == "{extra}"' for r in requirements]
        body = ""
        if self.readme:
            kind = "markdown" if self.readme.endswith(".md") else "plain"
            lines.append(f"Description-Content-Type: text/{kind}")
            with open(os.path.join(self.root, self.readme), encoding="utf-8") as f:
                body = f.read()
        return "\n".join(lines) + "\n\n" + body

    def files(self, folder):
        """The files of `folder` (relative to the root) the package ships, sorted: no caches."""
        found = []
        for top, dirs, names in os.walk(os.path.join(self.root, folder)):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(names):
                if not name.endswith((".pyc", ".pyo")):
                    path = os.path.join(top, name)
                    found.append(os.path.relpath(path, self.root).replace(os.sep, "/"))
        return found

    def read(self, relative):
        with open(os.path.join(self.root, relative), "rb") as f:
            return f.read()


def _wheel(project, directory, contents):
    """Writes the wheel of `contents` ([(path in the wheel, bytes)]) with its dist-info:
    METADATA, WHEEL and RECORD (what pip checks on install and removes on uninstall)."""
    info = f"{project.dist}-{project.version}.dist-info"
    wheel_file = ("Wheel-Version: 1.0\nGenerator: squeeze_build\nRoot-Is-Purelib: true\n"
                  "Tag: py3-none-any\n")
    contents = contents + [(f"{info}/METADATA", project.metadata().encode()),
                           (f"{info}/WHEEL", wheel_file.encode())]
    record = []
    for path, data in contents:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    record.append(f"{info}/RECORD,,")
    contents.append((f"{info}/RECORD", ("\n".join(record) + "\n").encode()))
    name = f"{project.dist}-{project.version}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in contents:
            entry = zipfile.ZipInfo(path, DATE)
            entry.external_attr = 0o644 << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(entry, data)
    return name


# The PEP 517 hooks pip calls. The optional ones (get_requires_*, prepare_metadata_*) are left
# out: nothing is required, and pip then reads the metadata from the wheel itself.

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = Project()
    return _wheel(project, wheel_directory,
                  [(path, project.read(path)) for path in project.files(project.package)])


EDITABLE_FINDER = '''"""{name}, installed editable: imported from {root}."""
import importlib.machinery
import sys


class Finder:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name == {package!r}:
            return importlib.machinery.PathFinder.find_spec(name, [{root!r}])
        return None


if Finder not in sys.meta_path:
    sys.meta_path.append(Finder)
'''


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 660 (pip install -e, pip 21.3+): a wheel whose .pth imports a finder for this one
    package in the source folder. Not a plain path .pth: that would also make this folder's
    other entries (tests, _build) importable from everywhere."""
    project = Project()
    finder = f"_{project.package}_editable"
    code = EDITABLE_FINDER.format(name=project.name, package=project.package, root=project.root)
    return _wheel(project, wheel_directory, [(f"{finder}.py", code.encode()),
                                             (f"{finder}.pth", f"import {finder}\n".encode())])


def build_sdist(sdist_directory, config_settings=None):
    project = Project()
    base = f"{project.dist}-{project.version}"
    paths = ["pyproject.toml", project.readme] + project.files("_build") \
        + project.files(project.package)
    contents = [("PKG-INFO", project.metadata().encode())] + \
        [(path, project.read(path)) for path in paths if path]
    name = f"{base}.tar.gz"
    # gzip's own header holds a date and a file name too: fixed, for the same bytes each time.
    with open(os.path.join(sdist_directory, name), "wb") as f, \
            gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0) as gz, \
            tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as t:
        for path, data in contents:
            entry = tarfile.TarInfo(f"{base}/{path}")
            entry.size, entry.mode, entry.mtime = len(data), 0o644, 315532800  # DATE
            t.addfile(entry, io.BytesIO(data))
    return name
