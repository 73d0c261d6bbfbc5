"""`cmake --install` puts a working package where Debian's python3 finds it."""
import os
import subprocess
import sys

from conftest import BUILD_DIR


def test_installed_package_imports_and_computes(tmp_path):
    done = subprocess.run(["cmake", "--install", BUILD_DIR, "--prefix", str(tmp_path)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    site = tmp_path / "lib" / ("python%d.%d" % sys.version_info[:2]) / "dist-packages"
    assert (site / "braid" / "gluon" / "nn" / "__init__.py").exists()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site)
    code = "import braid as mx; print(mx.__file__); print(mx.nd.dot(mx.nd.ones((2, 3)), mx.nd.ones((3, 1))).sum().asscalar())"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.split()
    assert lines[0].startswith(str(site)) and float(lines[1]) == 6.0
    # MXNet's name comes with it (BRAID_INSTALL_MXNET, on by default).
    run = subprocess.run([sys.executable, "-c", "import mxnet as mx; from mxnet.gluon import nn; print(mx.__file__, nn.__name__)"],
                         capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert (site / "mxnet" / "__init__.py").exists() and run.stdout.split()[1] == "braid.gluon.nn"
    assert run.stdout.split()[0].startswith(str(site))
