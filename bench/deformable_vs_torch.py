#!/usr/bin/python3
"""Braid vs PyTorch on deformable convolution: forward + backward of
contrib.DeformableConvolution and contrib.ModulatedDeformableConvolution, float32, from Python
(mx.nd with autograd). Debian's PyTorch has no torchvision (whose deform_conv2d would be the
reference), so the PyTorch side is the usual composition: each tap's bilinear samples by
grid_sample, stacked into columns, one matmul with the weights.

Each side runs in a process of its own, in alternating rounds (side_by_side.py); the table shows
each case's best repetition and the Braid/PyTorch ratio.
Usage: PYTHONPATH=build/python /usr/bin/python3 bench/deformable_vs_torch.py [--threads N]
"""
import sys

import side_by_side
from repetitions import time_repetitions

N, C, H, W, F, K = 4, 32, 28, 28, 32, 3
CASES = {
    "deformable": (f"DeformableConvolution {N}x{C}x{H}x{W}, {F} filters {K}x{K}, pad 1", False),
    "modulated": (f"ModulatedDeformableConvolution, same shapes", True),
}


def make_inputs(np, modulated, seed):
    r = np.random.RandomState(seed)
    xs = [r.uniform(-1, 1, (N, C, H, W)), r.uniform(-1, 1, (N, 2 * K * K, H, W))]
    if modulated:
        xs.append(r.uniform(0, 1, (N, K * K, H, W)))
    xs += [r.uniform(-0.1, 0.1, (F, C, K, K)), r.uniform(-0.1, 0.1, F)]
    return [x.astype(np.float32) for x in xs]


def braid_step(modulated, xs):
    import braid as mx
    a = [mx.nd.array(x) for x in xs]
    for v in a:
        v.attach_grad()
    op = mx.nd.contrib.ModulatedDeformableConvolution if modulated else mx.nd.contrib.DeformableConvolution

    def step():
        with mx.autograd.record():
            out = op(*a, kernel=(K, K), pad=(1, 1), num_filter=F)
        out.backward(mx.nd.ones_like(out))
        mx.nd.waitall()
    return step


def torch_step(modulated, xs):
    import torch
    import torch.nn.functional as tf
    a = [torch.tensor(x, requires_grad=True) for x in xs]
    data, offset = a[0], a[1]
    mask = a[2] if modulated else None
    weight, bias = a[-2], a[-1]
    ys, xs_ = torch.meshgrid(torch.arange(H, dtype=torch.float32), torch.arange(W, dtype=torch.float32),
                             indexing="ij")

    def forward():
        columns = []
        for i in range(K):
            for j in range(K):
                tap = i * K + j
                h = ys - 1 + i + offset[:, 2 * tap]
                w = xs_ - 1 + j + offset[:, 2 * tap + 1]
                grid = torch.stack([2 * w / (W - 1) - 1, 2 * h / (H - 1) - 1], dim=-1)
                sample = tf.grid_sample(data, grid, mode="bilinear", padding_mode="zeros", align_corners=True)
                columns.append(sample * mask[:, tap:tap + 1] if modulated else sample)
        cols = torch.stack(columns, dim=2).reshape(N, C * K * K, H * W)  # rows c·K² + tap
        out = torch.matmul(weight.reshape(F, C * K * K), cols) + bias.reshape(1, F, 1)
        return out.reshape(N, F, H, W)

    def step():
        out = forward()
        out.backward(torch.ones_like(out))
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
    for name, (_, modulated) in CASES.items():
        xs = make_inputs(np, modulated, 1)
        step = (braid_step if side == "braid" else torch_step)(modulated, xs)
        result[name] = time_repetitions(step, repetitions, min_time)
    return result


if __name__ == "__main__":
    sys.exit(side_by_side.run(__file__, __doc__, {name: case[0] for name, case in CASES.items()}, measure))
