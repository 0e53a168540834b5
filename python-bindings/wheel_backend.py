"""A PEP 517 backend that assembles the `recurrence` wheel from a build tree.

The package is pure Python over a prebuilt, self-contained libRecurrence.so,
so a wheel is a zip of the sources, the library (stripped when llvm-strip is
found) and libomp.so.5, plus the dist-info files. It needs no build tools.
"""

import base64
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
TAG = "py3-none-linux_x86_64"


def _project():
    text = open(os.path.join(HERE, "pyproject.toml")).read()
    section = text.split("[project]", 1)[1]
    field = lambda key: re.search(rf'^{key} = "([^"]*)"', section,
                                  re.M).group(1)
    return field("name"), field("version"), field("requires-python"), \
        field("description")


def _build_dir():
    return os.environ.get("RECURRENCE_BUILD_DIR",
                          os.path.join(HERE, os.pardir, "build"))


def get_requires_for_build_wheel(config_settings=None):
    return []


def _stripped(path, scratch):
    strip = shutil.which("llvm-strip-22") or shutil.which("llvm-strip") or \
        shutil.which("strip")
    if not strip:
        return path
    target = os.path.join(scratch, os.path.basename(path))
    subprocess.run([strip, "-o", target, path], check=True)
    return target


def build_wheel(wheel_directory, config_settings=None,
                metadata_directory=None):
    name, version, python, summary = _project()
    package = os.path.join(HERE, "recurrence")
    built = os.path.join(_build_dir(), "python", "recurrence")
    library = os.path.join(built, "libRecurrence.so")
    openmp = os.path.join(built, "libomp.so.5")
    for path in (library, openmp):
        if not os.path.isfile(path):
            raise RuntimeError(f"{path} not found: build first (scripts/"
                               f"test.sh), or set RECURRENCE_BUILD_DIR")
    dist_info = f"{name}-{version}.dist-info"
    wheel_name = f"{name}-{version}-{TAG}.whl"
    records = []

    def add(archive, arcname, data):
        archive.writestr(zipfile.ZipInfo(arcname, (2024, 1, 1, 0, 0, 0)),
                         data, compress_type=zipfile.ZIP_DEFLATED)
        digest = base64.urlsafe_b64encode(
            hashlib.sha256(data).digest()).rstrip(b"=").decode()
        records.append(f"{arcname},sha256={digest},{len(data)}")

    os.makedirs(wheel_directory, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch, zipfile.ZipFile(
            os.path.join(wheel_directory, wheel_name), "w") as archive:
        for file in sorted(os.listdir(package)):
            if file.endswith(".py"):
                with open(os.path.join(package, file), "rb") as f:
                    add(archive, f"recurrence/{file}", f.read())
        for path in (_stripped(library, scratch), openmp):
            with open(path, "rb") as f:
                add(archive, f"recurrence/{os.path.basename(path)}",
                    f.read())
        add(archive, f"{dist_info}/METADATA", (
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
            f"Summary: {summary}\nRequires-Python: {python}\n"
            f"Requires-Dist: numpy\n").encode())
        add(archive, f"{dist_info}/WHEEL", (
            f"Wheel-Version: 1.0\nGenerator: recurrence wheel_backend\n"
            f"Root-Is-Purelib: false\nTag: {TAG}\n").encode())
        record = f"{dist_info}/RECORD"
        archive.writestr(record, "\n".join(records + [f"{record},,"]) + "\n")
    return wheel_name
