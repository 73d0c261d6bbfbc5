"""pip install . from the source tree, offline, into fresh virtual environments: the wheel holds
the braid package, its mxnet alias (left out with BRAID_INSTALL_MXNET=0) and the braid command.
The build reuses this test run's CMake folder (BRAID_BUILD_DIR), so nothing is compiled again."""
import os
import subprocess
import sys

import braid

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(braid.__file__))))


def _venv_with_braid(path, **env):
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(path)], check=True)
    subprocess.run([str(path / "bin" / "pip"), "install", "--no-index", "--quiet", SOURCE], check=True,
                   env=dict(os.environ, BRAID_BUILD_DIR=BUILD, **env), cwd=str(path))
    return path / "bin"


def _python(bin_dir, code, cwd):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # only what the venv has
    return subprocess.run([str(bin_dir / "python"), "-c", code], capture_output=True, text=True, env=env,
                          cwd=str(cwd))


def test_the_wheel_gives_mxnet_braid_and_the_command(tmp_path):
    bin_dir = _venv_with_braid(tmp_path / "venv")
    r = _python(bin_dir, "import mxnet as mx; print(mx.nd.ones((2,2)).sum().asscalar()); print(mx.__file__)",
                tmp_path)
    assert r.returncode == 0, r.stderr
    total, where = r.stdout.split()
    assert float(total) == 4.0
    assert where.startswith(str(tmp_path / "venv")), where  # the installed copy, not the build tree's
    version = subprocess.run([str(bin_dir / "braid"), "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("braid " + braid.__version__), version


def test_the_mxnet_alias_can_be_left_out(tmp_path):
    bin_dir = _venv_with_braid(tmp_path / "venv", BRAID_INSTALL_MXNET="0")
    assert _python(bin_dir, "import braid", tmp_path).returncode == 0
    r = _python(bin_dir, "import mxnet", tmp_path)
    assert r.returncode != 0 and "No module named 'mxnet'" in r.stderr, r.stderr
