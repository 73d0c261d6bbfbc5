"""The PEP 517 build backend of `pip install .`: builds Braid's Python module and the braid
command with CMake, then writes a wheel holding the braid package, the mxnet alias (unless
BRAID_INSTALL_MXNET=0) and the command. Standard library only, so pip needs no network.

Environment: BRAID_BUILD_DIR, a CMake build folder to use (default: build-wheel-pyXY in the source
tree; an existing folder is built incrementally); BRAID_CMAKE_FLAGS, more -D options for a new
folder; BRAID_INSTALL_MXNET=0, no `mxnet` package.
"""
import base64
import csv
import hashlib
import io
import os
import re
import shlex
import subprocess
import sys
import sysconfig
import zipfile

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NAME = "braid"


def _version():
    with open(os.path.join(SOURCE, "CMakeLists.txt")) as f:
        return re.search(r"project\(braid VERSION ([0-9.]+)", f.read()).group(1)


def _tag():
    python = "cp%d%d" % sys.version_info[:2]
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return "%s-%s-%s" % (python, python + sys.abiflags, platform)


def _run(command):
    print("braid_wheel: " + " ".join(shlex.quote(c) for c in command), flush=True)
    subprocess.run(command, check=True, cwd=SOURCE)


def _build(build_dir):
    """The Python module and the braid command, built for this interpreter."""
    if not os.path.exists(os.path.join(build_dir, "build.ninja")):
        configure = ["cmake", "-S", SOURCE, "-B", build_dir, "-G", "Ninja", "-DPython3_EXECUTABLE=" + sys.executable,
                     "-DBRAID_BUILD_TESTS=OFF", "-DBRAID_BUILD_BENCH=OFF"]
        configure += shlex.split(os.environ.get("BRAID_CMAKE_FLAGS", ""))
        _run(configure)
        _run(configure)  # the second run settles the compile commands (the Makefile's note)
    _run(["cmake", "--build", build_dir, "-j", str(os.cpu_count() or 2), "--target", "braid_python", "braid_cli"])


def _package_files(build_dir):
    """(path in the wheel, file on disk) of the packages and the command."""
    packages = ["braid"] + ([] if os.environ.get("BRAID_INSTALL_MXNET", "1") == "0" else ["mxnet"])
    for package in packages:
        root = os.path.join(build_dir, "python", package)
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith((".py", ".so")):
                    path = os.path.join(folder, name)
                    yield os.path.relpath(path, os.path.join(build_dir, "python")).replace(os.sep, "/"), path
    yield "%s-%s.data/scripts/braid" % (NAME, _version()), os.path.join(build_dir, "bin", "braid")


def _metadata():
    return ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: Deep learning in C++ that speaks MXNet: "
            "import braid (or mxnet) as mx\nRequires-Python: >=3.9\nRequires-Dist: numpy\n" % (NAME, _version()))


def _wheel_info():
    return "Wheel-Version: 1.0\nGenerator: braid_wheel\nRoot-Is-Purelib: false\nTag: %s\n" % _tag()


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return [path, "sha256=" + digest, str(len(data))]


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    info = "%s-%s.dist-info" % (NAME, _version())
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    with open(os.path.join(metadata_directory, info, "METADATA"), "w") as f:
        f.write(_metadata())
    with open(os.path.join(metadata_directory, info, "WHEEL"), "w") as f:
        f.write(_wheel_info())
    return info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    tag = "py%d%d" % sys.version_info[:2]
    build_dir = os.environ.get("BRAID_BUILD_DIR") or os.path.join(SOURCE, "build-wheel-" + tag)
    _build(os.path.abspath(build_dir))
    info = "%s-%s.dist-info" % (NAME, _version())
    wheel_name = "%s-%s-%s.whl" % (NAME, _version(), _tag())
    final = os.path.join(wheel_directory, wheel_name)
    records = []
    with zipfile.ZipFile(final + ".part", "w", zipfile.ZIP_DEFLATED) as wheel:
        def add(path, data, mode=0o644):
            entry = zipfile.ZipInfo(path, date_time=(2026, 1, 1, 0, 0, 0))
            entry.external_attr = (0o100000 | mode) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(entry, data)
            records.append(_record_line(path, data))

        for path, source in _package_files(os.path.abspath(build_dir)):
            with open(source, "rb") as f:
                add(path, f.read(), 0o755 if os.access(source, os.X_OK) else 0o644)
        add(info + "/METADATA", _metadata().encode())
        add(info + "/WHEEL", _wheel_info().encode())
        record = io.StringIO()
        csv.writer(record, lineterminator="\n").writerows(records + [[info + "/RECORD", "", ""]])
        wheel.writestr(zipfile.ZipInfo(info + "/RECORD", date_time=(2026, 1, 1, 0, 0, 0)), record.getvalue())
    os.replace(final + ".part", final)
    return wheel_name
