#!/usr/bin/python3
"""Braid vs PyTorch on elementwise operators over 1M-element arrays, from Python (mx.nd against
torch), same thread count: arithmetic with a scalar and between arrays, sqrt and clip, the
backward of a product, float16 arithmetic and conversions (sampling: sampling_vs_torch.py).

Each side runs in a process of its own, in alternating rounds (side_by_side.py); the table shows
each op's best repetition and the Braid/PyTorch ratio.
Usage: PYTHONPATH=build/python /usr/bin/python3 bench/elementwise_vs_torch.py [--threads N]
"""
import sys

import side_by_side
from repetitions import time_repetitions

SHAPE = (1024, 1024)
# name: (label, dtype of the inputs)
CASES = {
    "mul_scalar": ("x * 0.9, float32", "float32"),
    "add": ("x + y, float32", "float32"),
    "sqrt": ("sqrt(x), float32", "float32"),
    "clip": ("clip(x, -0.4, 0.4), float32", "float32"),
    "mul_backward": ("x * y forward + backward, float32", "float32"),
    "add_f16": ("x + y, float16", "float16"),
    "f16_to_f32": ("float16 -> float32", "float16"),
    "f32_to_f16": ("float32 -> float16", "float32"),
}


def braid_step(name, x, y):
    import braid as mx
    a, b = mx.nd.array(x, dtype=x.dtype), mx.nd.array(y, dtype=y.dtype)
    if name == "mul_backward":
        a.attach_grad()
        b.attach_grad()

        def product():
            with mx.autograd.record():
                out = a * b
            out.backward()
        op = product
    else:
        op = {"mul_scalar": lambda: a * 0.9,
              "add": lambda: a + b,
              "sqrt": lambda: mx.nd.sqrt(a),
              "clip": lambda: mx.nd.clip(a, -0.4, 0.4),
              "add_f16": lambda: a + b,
              "f16_to_f32": lambda: a.astype("float32"),
              "f32_to_f16": lambda: a.astype("float16")}[name]

    def step():
        op()
        mx.nd.waitall()
    return step


def torch_step(name, x, y):
    import torch
    a, b = torch.from_numpy(x), torch.from_numpy(y)
    if name == "mul_backward":
        a.requires_grad_()
        b.requires_grad_()

        def product():
            (a * b).backward(torch.ones(SHAPE))
            a.grad = b.grad = None
        return product
    return {"mul_scalar": lambda: a * 0.9,
            "add": lambda: a + b,
            "sqrt": lambda: torch.sqrt(a),
            "clip": lambda: torch.clamp(a, -0.4, 0.4),
            "add_f16": lambda: a + b,
            "f16_to_f32": lambda: a.float(),
            "f32_to_f16": lambda: a.half()}[name]


def measure(side, threads, repetitions, min_time):
    """Microseconds per step of each repetition, by case (run in a child process)."""
    import numpy as np
    if side == "torch":
        import torch
        torch.set_num_threads(threads)
    rng = np.random.RandomState(1)
    result = {}
    for name, (_, dtype) in CASES.items():
        x, y = (rng.uniform(0.1, 1, SHAPE).astype(dtype) for _ in range(2))
        step = (braid_step if side == "braid" else torch_step)(name, x, y)
        result[name] = time_repetitions(step, repetitions, min_time)
    return result


if __name__ == "__main__":
    sys.exit(side_by_side.run(__file__, __doc__, {name: case[0] for name, case in CASES.items()}, measure,
                              what="1M elements"))
