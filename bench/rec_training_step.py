"""Is the data pipeline the bottleneck? ResNet-18 (thumbnail, 10 classes, hybridized) training
steps on CIFAR-shaped data, fed by mx.io.ImageRecordIter from a .rec file of 32 x 32 JPEGs (random
mirror, mean/std) against the same steps on one batch held in memory; rounds alternate, medians
reported. Target (issue 27): the step with data within 5% of the step on in-memory batches.

    PYTHONPATH=build/python python3 bench/rec_training_step.py [--batch 128] [--steps 20] [--rounds 3]
"""
import argparse
import os
import statistics
import tempfile
import time

import numpy as np

import mxnet as mx
from mxnet import autograd, gluon


def write_records(path, count, seed=0):
    rng = np.random.RandomState(seed)
    writer = mx.recordio.MXRecordIO(path, "w")
    y, x = np.mgrid[0:32, 0:32]
    for i in range(count):
        base = np.stack([x * 6, y * 7, (x + y) * 3], -1) + rng.randint(0, 40, (32, 32, 3))
        writer.write(mx.recordio.pack_img((0, float(i % 10), i, 0), np.clip(base, 0, 255).astype(np.uint8),
                                          quality=90))
    writer.close()


def make_model():
    net = gluon.model_zoo.vision.resnet18_v1(classes=10, thumbnail=True)
    net.initialize(mx.init.Xavier())
    net.hybridize(static_alloc=True, static_shape=True)
    return net, gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.05, "momentum": 0.9})


def step(net, trainer, loss_fn, data, label):
    with autograd.record():
        loss = loss_fn(net(data), label)
    loss.backward()
    trainer.step(data.shape[0])
    loss.wait_to_read()


def timed_steps(net, trainer, loss_fn, batches, steps):
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        data, label = next(batches)
        step(net, trainer, loss_fn, data, label)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--batch", type=int, default=128)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=1, help="ImageRecordIter's preprocess_threads")
    args = p.parse_args()
    folder = tempfile.mkdtemp()
    rec = os.path.join(folder, "cifar.rec")
    write_records(rec, args.batch * args.steps)
    it = mx.io.ImageRecordIter(path_imgrec=rec, data_shape=(3, 32, 32), batch_size=args.batch, rand_mirror=True,
                               shuffle=True, mean_r=125.3, mean_g=123.0, mean_b=113.9, std_r=63.0, std_g=62.1,
                               std_b=66.7, preprocess_threads=args.threads)

    def from_records():
        while True:
            for b in it:
                yield b.data[0], b.label[0]
            it.reset()

    fixed = next(from_records())
    fixed = (fixed[0].copy(), fixed[1].copy())

    def in_memory():
        while True:
            yield fixed

    net, trainer = make_model()
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    step(net, trainer, loss_fn, *fixed)  # compile the graph
    memory, records = [], []
    pipeline = from_records()
    for _ in range(args.rounds):
        memory.append(timed_steps(net, trainer, loss_fn, in_memory(), args.steps))
        records.append(timed_steps(net, trainer, loss_fn, pipeline, args.steps))
    m, r = statistics.median(memory), statistics.median(records)
    print("ResNet-18 (thumbnail) batch %d, %d steps x %d rounds, ImageRecordIter with %d thread(s)" % (
        args.batch, args.steps, args.rounds, args.threads))
    print("%-40s %8.1f ms" % ("step on a batch in memory", m * 1e3))
    print("%-40s %8.1f ms" % ("step on ImageRecordIter's batches", r * 1e3))
    print("ratio %.3f (target <= 1.05)" % (r / m))


if __name__ == "__main__":
    main()
