#!/usr/bin/python3
"""Braid vs PyTorch on the linalg operators: forward + backward of batched products, triangular
solves, Cholesky, symmetric eigendecomposition, LQ/QR, inverse and determinant, float32, from
Python (mx.nd.linalg with autograd against torch.linalg), same thread count.

Each side runs in a process of its own, in alternating rounds (side_by_side.py); the table shows
each op's best repetition and the Braid/PyTorch ratio.
Usage: PYTHONPATH=build/python /usr/bin/python3 bench/linalg_vs_torch.py [--threads N]
"""
import sys

import side_by_side
from repetitions import time_repetitions

BATCH, N = 16, 128
# name: (label, input shapes, kind of inputs)
CASES = {
    "gemm2": (f"gemm2 {BATCH}x({N}x{N} @ {N}x{N})", [(BATCH, N, N), (BATCH, N, N)], "general"),
    "trsm": (f"trsm {BATCH}x{N}x{N}, {N} right sides", [(BATCH, N, N), (BATCH, N, N)], "triangular"),
    "potrf": (f"potrf (Cholesky) {BATCH}x{N}x{N}", [(BATCH, N, N)], "spd"),
    "syevd": (f"syevd (eigh) {BATCH}x64x64", [(BATCH, 64, 64)], "symmetric"),
    "gelqf": (f"gelqf (LQ) {BATCH}x64x{N}", [(BATCH, 64, N)], "general"),
    "inverse": (f"inverse {BATCH}x{N}x{N}", [(BATCH, N, N)], "spd"),
    "det": (f"det {BATCH}x{N}x{N}", [(BATCH, N, N)], "spd"),
}


def make_inputs(np, shapes, kind, seed):
    r = np.random.RandomState(seed)
    xs = [r.uniform(-1, 1, s).astype(np.float32) for s in shapes]
    n = shapes[0][-1]
    if kind == "triangular":
        xs[0] = np.tril(xs[0]) + 2 * np.eye(n, dtype=np.float32)
    elif kind == "spd":
        xs[0] = (xs[0] @ xs[0].transpose(0, 2, 1) / n + np.eye(n, dtype=np.float32)).astype(np.float32)
    elif kind == "symmetric":
        xs[0] = (xs[0] + xs[0].transpose(0, 2, 1)) / 2
    return xs


def braid_step(name, xs):
    import braid as mx
    a = [mx.nd.array(x) for x in xs]
    for v in a:
        v.attach_grad()
    op = {"gemm2": lambda: [mx.nd.linalg.gemm2(a[0], a[1])],
          "trsm": lambda: [mx.nd.linalg.trsm(a[0], a[1])],
          "potrf": lambda: [mx.nd.linalg.potrf(a[0])],
          "syevd": lambda: list(mx.nd.linalg.syevd(a[0])),
          "gelqf": lambda: list(mx.nd.linalg.gelqf(a[0])),
          "inverse": lambda: [mx.nd.linalg.inverse(a[0])],
          "det": lambda: [mx.nd.linalg.det(a[0])]}[name]

    def step():
        with mx.autograd.record():
            outs = op()
        mx.autograd.backward(outs, [mx.nd.ones_like(o) for o in outs])
        mx.nd.waitall()
    return step


def torch_step(name, xs):
    import torch
    a = [torch.tensor(x, requires_grad=True) for x in xs]
    op = {"gemm2": lambda: [a[0] @ a[1]],
          "trsm": lambda: [torch.linalg.solve_triangular(a[0], a[1], upper=False)],
          "potrf": lambda: [torch.linalg.cholesky(a[0])],
          "syevd": lambda: list(torch.linalg.eigh(a[0])),
          "gelqf": lambda: list(torch.linalg.qr(a[0].transpose(1, 2))),
          "inverse": lambda: [torch.linalg.inv(a[0])],
          "det": lambda: [torch.linalg.det(a[0])]}[name]

    def step():
        outs = op()
        torch.autograd.backward(outs, [torch.ones_like(o) for o in outs])
        for v in a:
            v.grad = None
    return step


def measure(side, threads, repetitions, min_time):
    """Microseconds per step of each repetition, by case (run in a child process)."""
    import numpy as np
    if side == "torch":
        import torch
        torch.set_num_threads(threads)
    result = {}
    for name, (_, shapes, kind) in CASES.items():
        xs = make_inputs(np, shapes, kind, 1)
        step = (braid_step if side == "braid" else torch_step)(name, xs)
        per_rep = time_repetitions(step, repetitions, min_time)
        result[name] = per_rep
    return result


if __name__ == "__main__":
    sys.exit(side_by_side.run(__file__, __doc__, {name: case[0] for name, case in CASES.items()}, measure))
