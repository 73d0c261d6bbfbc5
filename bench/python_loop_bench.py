"""The Python training loop's overhead over the C++ one (issue: Python package): LeNet at batch 64
on Fashion-MNIST held in memory, Gluon's loop (record, forward, loss, backward, Trainer SGD lr 0.05
momentum 0.9), written in Python with `import braid as mx` and run in this process, next to
bench/train_bench.cc's same loop in C++ (build/bin/train_bench), alternately, several rounds.
Prints each round and the ratio of time per batch Python / C++ (target <= 1.1).

    OMP_NUM_THREADS=2 PYTHONPATH=build/python python3 bench/python_loop_bench.py [--rounds 3] [--batches 200]
        [--hybridize]
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

import braid as mx
from braid import autograd, gluon
from braid.gluon import nn


def training_set():
    d = mx.io.fashion_mnist_dir()
    x = mx.io.load_idx_images(d + "/train-images-idx3-ubyte.gz").asnumpy()
    y = mx.io.load_idx_labels(d + "/train-labels-idx1-ubyte.gz").asnumpy()
    order = np.random.RandomState(0).permutation(len(x))
    return mx.nd.array(x[order]), mx.nd.array(y[order])


def lenet():  # gluon.model_zoo's simple LeNet, as bench/train_bench.cc builds it
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Conv2D(20, 5, activation="relu"), nn.MaxPool2D(2), nn.Conv2D(50, 5, activation="relu"),
                nn.MaxPool2D(2), nn.Dense(128, activation="relu"), nn.Dense(10))
    return net


def python_loop(images, labels, batch, warmup, batches, hybridize):
    mx.random.seed(0)
    net = lenet()
    net.initialize(mx.init.Xavier())
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    if hybridize:
        net.hybridize()
        loss_fn.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.05, "momentum": 0.9})
    steps = images.shape[0] // batch
    start = time.perf_counter()
    for i in range(warmup + batches):
        if i == warmup:
            loss.wait_to_read()
            start = time.perf_counter()
        k = i % steps
        x, y = images[k * batch:(k + 1) * batch], labels[k * batch:(k + 1) * batch]
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(batch)
    last = loss.mean().asscalar()
    mx.nd.waitall()
    return batches * batch / (time.perf_counter() - start), last


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--batches", type=int, default=200)
    p.add_argument("--hybridize", action="store_true")
    p.add_argument("--braid-bench", default=os.path.join(os.path.dirname(mx.__file__), "..", "..", "bin", "train_bench"))
    a = p.parse_args()
    images, labels = training_set()
    cpp_argv = [a.braid_bench, "--model", "lenet", "--batch", str(a.batch), "--warmup", str(a.warmup),
                "--batches", str(a.batches)] + (["--hybridize"] if a.hybridize else [])
    ratios = []
    for r in range(a.rounds):
        cpp = json.loads(subprocess.run(cpp_argv, capture_output=True, text=True, check=True).stdout)
        py, loss = python_loop(images, labels, a.batch, a.warmup, a.batches, a.hybridize)
        ratio = cpp["samples_per_sec"] / py  # time per batch, Python / C++
        ratios.append(ratio)
        print("round %d: C++ %.0f samples/s (loss %.3f), Python %.0f samples/s (loss %.3f): Python/C++ time per "
              "batch %.3f" % (r + 1, cpp["samples_per_sec"], cpp["loss"], py, loss, ratio), flush=True)
    print("median Python/C++ time per batch: %.3f (target <= 1.1)" % sorted(ratios)[len(ratios) // 2])


if __name__ == "__main__":
    sys.exit(main())
