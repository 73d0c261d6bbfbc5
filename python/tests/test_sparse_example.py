"""examples/python/sparse_linear_classification.py, as its users run it: on LibSVM data the test
writes, one process and a parameter-server job of 2 workers and 2 servers (`braid launch -n 2 -s 2`,
the weight split by rows over the servers), each ending with the weights NumPy computes for the
same global batches (each worker reads its half of the file; a step sums both workers' batches)."""
import os
import socket
import subprocess
import sys

import numpy as np

import braid as mx
from conftest import BUILD_DIR

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "python",
                       "sparse_linear_classification.py")
BRAID = os.path.join(BUILD_DIR, "bin", "braid")
ROWS, FEATURES, BATCH, EPOCHS, LR = 256, 300, 16, 2, 0.5


def write_data(path):
    rs = np.random.RandomState(3)
    X = np.zeros((ROWS, FEATURES))
    labels = rs.randint(0, 2, ROWS)
    with open(path, "w") as f:
        for r in range(ROWS):
            used = np.sort(rs.choice(FEATURES, rs.randint(3, 12), replace=False))
            X[r, used] = np.round(rs.rand(len(used)) + 0.5, 4)
            f.write("%d %s\n" % (labels[r], " ".join("%d:%.4f" % (i, X[r, i]) for i in used)))
    return X, labels


def reference(X, labels, workers):
    """SGD on the softmax classifier over the global batches of `workers` workers (float64)."""
    W, b = np.zeros((FEATURES, 2)), np.zeros(2)
    part = ROWS // workers
    for _ in range(EPOCHS):
        for s in range(0, part, BATCH):
            rows = np.concatenate([np.arange(k * part + s, k * part + s + BATCH) for k in range(workers)])
            logits = X[rows] @ W + b
            p = np.exp(logits - logits.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            p[np.arange(len(rows)), labels[rows]] -= 1
            W -= LR * X[rows].T @ p / len(rows)
            b -= LR * p.sum(axis=0) / len(rows)
    return W, b


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def train(argv, tmp_path, env):
    proc = subprocess.run(argv, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout
    return proc.stdout


def example_args(data, kvstore, save):
    return [sys.executable, EXAMPLE, "--data", data, "--num-features", str(FEATURES), "--num-epoch", str(EPOCHS),
            "--batch-size", str(BATCH), "--lr", str(LR), "--kvstore", kvstore, "--save", save]


def check_saved(path, W, b):
    saved = mx.nd.load(path)
    np.testing.assert_allclose(saved["weight"].asnumpy(), W, rtol=1e-4, atol=1e-6)
    # float32 softmax sums to 1 within ~1e-6 per example, which the bias gathers over every step
    np.testing.assert_allclose(saved["bias"].asnumpy(), b, rtol=1e-4, atol=5e-5)


def test_one_process(tmp_path):
    X, labels = write_data(str(tmp_path / "train.libsvm"))
    out = train(example_args("train.libsvm", "local", "one.params"), tmp_path, dict(os.environ, OMP_NUM_THREADS="1"))
    assert "epoch 2:" in out and "accuracy" in out, out
    check_saved(str(tmp_path / "one.params"), *reference(X, labels, 1))


def test_two_workers_two_servers_under_braid_launch(tmp_path):
    X, labels = write_data(str(tmp_path / "train.libsvm"))
    env = dict(os.environ, DMLC_PS_ROOT_PORT=str(free_port()), OMP_NUM_THREADS="1",
               MXNET_KVSTORE_BIGARRAY_BOUND="200")  # the 300 x 2 weight is split by rows over the servers
    out = train([BRAID, "launch", "-n", "2", "-s", "2", "--"] + example_args("train.libsvm", "dist_sync", "two.params"),
                tmp_path, env)
    assert "[server 0] load: 1 keys" in out and "[server 1] load: 2 keys" in out, out
    W, b = reference(X, labels, 2)
    assert np.abs(W).max() > 0.05  # the training moved the weights
    check_saved(str(tmp_path / "two.params"), W, b)
