"""The package's build backend (PEP 517, PEP 660), standard library only.

``pip install ./sdk/python`` builds a wheel first, and with a backend from the package index it
would need that index (setuptools also needs ``wheel``). This project's machines reach no Python
index, so the package builds itself: a pure-Python wheel of ``src/media_jobs``, an sdist, and an
editable wheel for ``pip install -e``. Metadata comes from pyproject.toml's ``[project]`` table.
"""

from __future__ import annotations

import base64
import hashlib
import io
import tarfile
import tomllib
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
PACKAGE = "media_jobs"
WHEEL = b"Wheel-Version: 1.0\nGenerator: media-jobs build_backend\nRoot-Is-Purelib: true\nTag: py3-none-any\n"


def _project() -> dict[str, Any]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        project: dict[str, Any] = tomllib.load(f)["project"]
    return project


def _dist_name(project: dict[str, Any]) -> str:
    return f"{project['name'].replace('-', '_')}-{project['version']}"


def _metadata(project: dict[str, Any]) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project.get('description', '')}",
        f"Requires-Python: {project.get('requires-python', '>=3')}",
        *(f"Classifier: {c}" for c in project.get("classifiers", [])),
        "Description-Content-Type: text/markdown",
    ]
    readme = ROOT / project.get("readme", "README.md")
    return "\n".join(lines) + "\n\n" + (readme.read_text("utf-8") if readme.exists() else "")


def _package_files() -> list[Path]:
    base = ROOT / "src" / PACKAGE
    return sorted(p for p in base.rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _write_wheel(directory: str, files: dict[str, bytes]) -> str:
    project = _project()
    dist = _dist_name(project)
    info = f"{dist}.dist-info"
    files = {
        **files,
        f"{info}/METADATA": _metadata(project).encode(),
        f"{info}/WHEEL": WHEEL,
    }
    record = [_record_line(name, data) for name, data in files.items()] + [f"{info}/RECORD,,"]
    name = f"{dist}-py3-none-any.whl"
    with zipfile.ZipFile(Path(directory) / name, "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files.items():
            wheel.writestr(path, data)
        wheel.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return name


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    return []


def get_requires_for_build_sdist(config_settings: dict[str, Any] | None = None) -> list[str]:
    return []


def get_requires_for_build_editable(config_settings: dict[str, Any] | None = None) -> list[str]:
    return []


def build_wheel(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    base = ROOT / "src"
    return _write_wheel(wheel_directory, {p.relative_to(base).as_posix(): p.read_bytes() for p in _package_files()})


def build_editable(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    # A .pth line puts src/ on sys.path: edits to the sources take effect without reinstalling.
    return _write_wheel(wheel_directory, {f"__editable__.{PACKAGE}.pth": f"{ROOT / 'src'}\n".encode()})


def build_sdist(sdist_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    project = _project()
    dist = _dist_name(project)
    name = f"{dist}.tar.gz"
    sources = [ROOT / "pyproject.toml", ROOT / "README.md", ROOT / "build_backend.py", *_package_files()]
    with tarfile.open(Path(sdist_directory) / name, "w:gz") as sdist:
        for path in sources:
            sdist.add(path, arcname=f"{dist}/{path.relative_to(ROOT).as_posix()}")
        info = _metadata(project).encode()
        entry = tarfile.TarInfo(f"{dist}/PKG-INFO")
        entry.size = len(info)
        sdist.addfile(entry, io.BytesIO(info))
    return name
