#!/usr/bin/python3
"""Braid vs PyTorch on the fused RNN operator: forward + backward of LSTM, GRU and tanh-RNN
layers over a time-major sequence, float32, from Python (mx.nd.RNN with autograd against
torch.nn.LSTM/GRU/RNN), same thread count, same sizes.

Each side runs in a process of its own, in alternating rounds (side_by_side.py); the table shows
each case's best repetition and the Braid/PyTorch ratio.
Usage: PYTHONPATH=build/python /usr/bin/python3 bench/rnn_vs_torch.py [--threads N]
"""
import sys

import side_by_side
from repetitions import time_repetitions

GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1}
# name: (label, mode, layers, bidirectional, T, N, input, hidden)
CASES = {
    "lstm": ("LSTM T=50 N=32 256->256", "lstm", 1, False, 50, 32, 256, 256),
    "lstm2bi": ("LSTM 2 layers bidir. T=35 N=32 128->256", "lstm", 2, True, 35, 32, 128, 256),
    "gru": ("GRU T=50 N=32 256->256", "gru", 1, False, 50, 32, 256, 256),
    "tanh": ("RNN tanh T=100 N=64 128->128", "rnn_tanh", 1, False, 100, 64, 128, 128),
}


def param_size(mode, layers, directions, inputs, hidden):
    return sum(directions * GATES[mode] * hidden * ((inputs if l == 0 else directions * hidden) + hidden + 2)
               for l in range(layers))


def braid_step(case):
    import braid as mx
    _, mode, layers, bidirectional, T, N, I, H = case
    D = 2 if bidirectional else 1
    args = [mx.nd.random.uniform(-1, 1, (T, N, I)),
            mx.nd.random.uniform(-0.1, 0.1, (param_size(mode, layers, D, I, H),)),
            mx.nd.zeros((layers * D, N, H))]
    if mode == "lstm":
        args.append(mx.nd.zeros((layers * D, N, H)))
    for a in args:
        a.attach_grad()

    def step():
        with mx.autograd.record():
            y = mx.nd.RNN(*args, state_size=H, num_layers=layers, bidirectional=bidirectional, mode=mode)
        y.backward(mx.nd.ones_like(y))
        mx.nd.waitall()
    return step


def torch_step(case):
    import torch
    _, mode, layers, bidirectional, T, N, I, H = case
    kinds = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU, "rnn_tanh": torch.nn.RNN}
    net = kinds[mode](I, H, num_layers=layers, bidirectional=bidirectional)
    x = (torch.rand(T, N, I) * 2 - 1).requires_grad_()

    def step():
        y = net(x)[0]
        y.backward(torch.ones_like(y))
        net.zero_grad(set_to_none=True)
    return step


def measure(side, threads, repetitions, min_time):
    if side == "torch":
        import torch
        torch.set_num_threads(threads)
    return {name: time_repetitions((braid_step if side == "braid" else torch_step)(case), repetitions, min_time)
            for name, case in CASES.items()}


if __name__ == "__main__":
    sys.exit(side_by_side.run(__file__, __doc__, {name: case[0] for name, case in CASES.items()}, measure))
