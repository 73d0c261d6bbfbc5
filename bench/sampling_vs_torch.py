#!/usr/bin/python3
"""Braid vs PyTorch sampling 1M values from Python (mx.nd.random against torch), same thread
count: uniform, normal, randint, exponential, poisson and gamma.

Each side runs in a process of its own, in alternating rounds (side_by_side.py); the table shows
each distribution's best repetition and the Braid/PyTorch ratio.
Usage: PYTHONPATH=build/python /usr/bin/python3 bench/sampling_vs_torch.py [--threads N]
"""
import sys

import side_by_side
from repetitions import time_repetitions

SHAPE = (1024, 1024)
CASES = {
    "uniform": "uniform(0, 1), float32",
    "normal": "normal(0, 1), float32",
    "randint": "randint(0, 1000), int64",
    "exponential": "exponential(2), float32",
    "poisson": "poisson(4), float32",
    "gamma": "gamma(2, 1), float32",
}


def braid_step(name):
    import braid as mx
    r = mx.nd.random
    return {"uniform": lambda: r.uniform(0, 1, shape=SHAPE),
            "normal": lambda: r.normal(0, 1, shape=SHAPE),
            "randint": lambda: r.randint(0, 1000, shape=SHAPE, dtype="int64"),
            "exponential": lambda: r.exponential(0.5, shape=SHAPE),  # MXNet's scale: 1 / rate
            "poisson": lambda: r.poisson(4, shape=SHAPE),
            "gamma": lambda: r.gamma(2, 1, shape=SHAPE)}[name]


def torch_step(name):
    import torch
    rate, shape_param = torch.full(SHAPE, 4.0), torch.full(SHAPE, 2.0)
    return {"uniform": lambda: torch.rand(SHAPE),
            "normal": lambda: torch.randn(SHAPE),
            "randint": lambda: torch.randint(0, 1000, SHAPE),
            "exponential": lambda: torch.empty(SHAPE).exponential_(2.0),
            "poisson": lambda: torch.poisson(rate),
            "gamma": lambda: torch._standard_gamma(shape_param)}[name]  # what Gamma(2, 1).sample() runs


def measure(side, threads, repetitions, min_time):
    """Microseconds per sample of 1M values in each repetition, by distribution (in a child process)."""
    if side == "torch":
        import torch
        torch.set_num_threads(threads)
    else:
        import braid as mx
    result = {}
    for name in CASES:
        sample = (braid_step if side == "braid" else torch_step)(name)

        def step():
            sample()
            if side == "braid":
                mx.nd.waitall()
        result[name] = time_repetitions(step, repetitions, min_time)
    return result


if __name__ == "__main__":
    sys.exit(side_by_side.run(__file__, __doc__, CASES, measure, what="1M samples"))
