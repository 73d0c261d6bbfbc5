"""Distributed training from Python with real processes on 127.0.0.1: a parameter-server job
started by `braid launch` and an allreduce job started by `mpirun`, both compared with the same
SGD computed by NumPy on the global batches."""
import json
import os
import re
import signal
import socket
import subprocess
import sys

import numpy as np
import pytest

from conftest import BUILD_DIR

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "programs", "dist_linear.py")
BRAID = os.path.join(BUILD_DIR, "bin", "braid")


def expected_weights():
    rs = np.random.RandomState(0)
    X = rs.randn(64, 5).astype(np.float32).astype(np.float64)
    Y = X @ np.arange(1, 6) + 0.5
    w, b = np.zeros(5), 0.0
    for _ in range(3):
        for s in range(0, 64, 16):
            r = X[s:s + 16] @ w + b - Y[s:s + 16]  # L2Loss: 0.5 r^2 per sample
            w, b = w - 0.1 * (X[s:s + 16].T @ r) / 16, b - 0.1 * r.sum() / 16
    return w, b


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(argv, env, timeout=120):
    """Runs the job in its own process group; kills that group if it outlives `timeout`."""
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        pytest.fail("the job did not finish in %d s:\n%s" % (timeout, out))
    return proc.returncode, out


def results(out):
    """The workers' JSON results wherever they are in the output: mpirun may forward one process's
    line and its newline as separate pieces, so two results can share a line."""
    found = []
    for m in re.finditer(r'\{"rank"[^{}]*\}', out):
        try:
            found.append(json.loads(m.group(0)))
        except ValueError:
            pytest.fail("a worker's result is malformed: %r in\n%s" % (m.group(0), out))
    return sorted(found, key=lambda r: r["rank"])


def check(out):
    w, b = expected_weights()
    found = results(out)
    assert [r["rank"] for r in found] == [0, 1], out
    for r in found:
        assert r["workers"] == 2
        np.testing.assert_allclose(r["weight"], w, rtol=1e-5, atol=1e-5)
        assert abs(r["bias"] - b) < 1e-5


def test_dist_sync_script_under_braid_launch():
    env = dict(os.environ, DMLC_PS_ROOT_PORT=str(free_port()), OMP_NUM_THREADS="1")
    code, out = run([BRAID, "launch", "-n", "2", "-s", "1", "--", sys.executable, SCRIPT, "dist_sync"], env)
    assert code == 0, out
    check(out)
    # The scheduler and the server ran the same script: importing braid ran their roles, which
    # exited cleanly when the workers finished, before any line of the script's body.
    assert "[server 0] load:" in out and "[scheduler] every worker finished" in out, out
    assert out.count("script body runs") == 2, out


def test_float16_weights_with_float32_master_copies_on_the_servers():
    env = dict(os.environ, DMLC_PS_ROOT_PORT=str(free_port()), OMP_NUM_THREADS="1")
    code, out = run([BRAID, "launch", "-n", "2", "-s", "1", "--", sys.executable, SCRIPT, "dist_sync", "float16"], env)
    assert code == 0, out
    found = results(out)
    code, reference_out = run([sys.executable, SCRIPT, "local", "float16"], env)
    assert code == 0, reference_out
    [reference] = results(reference_out)
    assert [r["rank"] for r in found] == [0, 1] and reference["dtype"] == "float16", out
    w, b = expected_weights()
    for r in found:
        assert r["dtype"] == "float16"
        np.testing.assert_array_equal(r["weight"], reference["weight"])  # as one process, to the bit
        assert r["bias"] == reference["bias"]
        np.testing.assert_allclose(r["weight"], w, rtol=2e-2, atol=2e-2)  # and close to float64's


def test_horovod_script_under_mpirun():
    argv = ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", "2"]
    if os.getuid() == 0:
        argv.insert(1, "--allow-run-as-root")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    code, out = run(argv + ["-x", "PYTHONPATH", sys.executable, SCRIPT, "horovod"], env)
    assert code == 0, out
    check(out)


SPARSE_SCRIPT = os.path.join(HERE, "programs", "dist_sparse.py")


def test_sparse_model_with_a_users_optimizer_on_two_servers():
    # Keys of 100 elements or more are split by rows over the two servers; the embedding's
    # gradients travel as rows, the row_sparse parameter is read with row_sparse_pull, and the
    # user's optimizer (a pickle, rebuilt by the servers) updates them.
    env = dict(os.environ, DMLC_PS_ROOT_PORT=str(free_port()), OMP_NUM_THREADS="1",
               MXNET_KVSTORE_BIGARRAY_BOUND="100")
    code, out = run([BRAID, "launch", "-n", "2", "-s", "2", "--", sys.executable, SPARSE_SCRIPT, "dist_sync"], env)
    assert code == 0, out
    found = results(out)
    assert [r["rank"] for r in found] == [0, 1], out
    assert "[server 1] load:" in out, out  # both servers held values
    code, reference_out = run([sys.executable, SPARSE_SCRIPT, "local"], env)
    assert code == 0, reference_out
    [reference] = results(reference_out)
    for r in found:
        for name in ("emb", "bias_rows", "out"):
            np.testing.assert_allclose(r[name], reference[name], rtol=1e-5, atol=1e-6, err_msg=name)
    for name in ("emb", "bias_rows", "out"):  # the training moved every part of the model
        assert np.abs(np.subtract(reference[name], reference[name + "_start"])).max() > 1e-3, name


def test_an_optimizer_defined_in_the_script_itself_gets_a_clear_error(tmp_path):
    # The servers run the script only up to `import mxnet`, as MXNet's, so they cannot find a class
    # the script defines after it: the workers' set_optimizer says so instead of hanging.
    script = tmp_path / "own_optimizer.py"
    script.write_text(
        "import mxnet as mx\n"
        "@mx.optimizer.register\n"
        "class Mine(mx.optimizer.Optimizer):\n"
        "    def update(self, index, weight, grad, state):\n"
        "        weight[:] -= grad\n"
        "kv = mx.kv.create('dist_sync')\n"
        "try:\n"
        "    kv.set_optimizer(mx.optimizer.create('mine'))\n"
        "except mx.base.MXNetError as e:\n"
        "    print('refused:', e)\n")
    env = dict(os.environ, DMLC_PS_ROOT_PORT=str(free_port()), OMP_NUM_THREADS="1")
    code, out = run([BRAID, "launch", "-n", "1", "-s", "1", "--", sys.executable, str(script)], env)
    assert code == 0, out
    assert "refused:" in out and "define the optimizer's class in a module that the script imports" in out, out


def test_braids_own_optimizers_keep_their_settings_on_the_servers():
    # mx.optimizer.SGD(momentum=0.9) and the others travel to the servers as the core's optimizer
    # of the same name with every setting; the servers' updates equal a local store's.
    env = dict(os.environ, DMLC_PS_ROOT_PORT=str(free_port()), OMP_NUM_THREADS="1")
    script = os.path.join(HERE, "programs", "dist_optimizers.py")
    code, out = run([BRAID, "launch", "-n", "1", "-s", "1", "--", sys.executable, script], env)
    assert code == 0, out
    found = re.search(r'\{"optimizers".*\}', out)
    assert found, out
    optimizers = json.loads(found.group(0))["optimizers"]
    assert len(optimizers) == 7, optimizers
    for label, weights in optimizers.items():
        assert weights["local"] != [1.0] * 4, label  # the settings moved the weights
        np.testing.assert_allclose(weights["dist_sync"], weights["local"], rtol=1e-6, atol=1e-7, err_msg=label)
