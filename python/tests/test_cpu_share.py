"""Compute threads on a busy machine (src/device/cpu_share.cc): a Python program measures when the
braid package is imported, before OpenMP starts, and waits passively when other processes keep
every core busy (saying so once on stderr); when OpenMP started earlier (another library
imported first), it runs one thread instead."""
import os
import select
import subprocess
import sys

import pytest


@pytest.fixture
def busy_cores():
    """One spinning process per core, each running (it has said so on its pipe) before the test;
    killed after."""
    script = "import sys; sys.stdout.write('spinning'); sys.stdout.flush()\nwhile True: pass"
    spinners = [subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
                for _ in os.sched_getaffinity(0)]
    try:
        for p in spinners:
            ready, _, _ = select.select([p.stdout], [], [], 10)  # the state, with a deadline
            assert ready and p.stdout.read(8) == b"spinning", "a spinning process did not start"
        yield
    finally:
        for p in spinners:
            p.kill()
        for p in spinners:
            p.wait()
            p.stdout.close()


def run_python(script):
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "BRAID_CPU_SHARE")}
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stderr.splitlines() if line.startswith("braid: ")]
    assert len(lines) == 1, out.stderr
    return out.stdout, lines[0]


def test_a_python_program_waits_passively_beside_busy_cores(busy_cores):
    out, said = run_python("import os, mxnet as mx; print(mx.nd.ones((64, 64)).sum().asscalar(), "
                           "os.environ['OMP_WAIT_POLICY'])")
    assert out == "4096.0 PASSIVE\n"
    assert "busy with other processes: OpenMP waits passively, %d compute thread" % len(os.sched_getaffinity(0)) in said


def test_with_openmp_started_first_it_runs_one_thread(busy_cores):
    # torch loads its OpenMP runtime at import: too late to choose its wait policy
    out, said = run_python("import torch, ctypes, mxnet as mx; getenv = ctypes.CDLL(None).getenv; "
                           "getenv.restype = ctypes.c_char_p; "
                           "print(mx.nd.ones((8, 8)).sum().asscalar(), getenv(b'OMP_WAIT_POLICY') is not None)")
    assert out == "64.0 False\n"
    assert "busy with other processes: 1 compute thread" in said and "passively" not in said


def test_the_users_threads_are_kept_silently(busy_cores):
    env = dict(os.environ, OMP_NUM_THREADS="2")
    out = subprocess.run([sys.executable, "-c", "import mxnet as mx; mx.nd.ones((8, 8)).sum().asscalar()"],
                         env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "braid: " not in out.stderr
