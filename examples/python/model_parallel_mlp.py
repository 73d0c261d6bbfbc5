"""Model parallelism with a micro-batch pipeline: a four-layer MLP whose first half lives on cpu(0)
and second half on cpu(1), trained unpipelined (one slice) and pipelined (--micro-batches slices).
The Python twin of examples/model_parallel_mlp.cc (same losses; speeds are measured).

    PYTHONPATH=build/python python3 examples/python/model_parallel_mlp.py [--batches 60] [--batch 1024]
        [--micro-batches 2] [--hidden 1024]
"""
import argparse
import time

import braid as mx
from braid import autograd, gluon, nd
from braid.gluon import nn


def two_stage_mlp(hidden):
    net = nn.Sequential()
    with net.name_scope():
        first, second = nn.HybridSequential(), nn.HybridSequential()
        first.add(nn.Dense(hidden, activation='relu'))
        first.add(nn.Dense(hidden, activation='relu'))
        second.add(nn.Dense(hidden, activation='relu'))
        second.add(nn.Dense(10))
        net.add(first)
        net.add(second)
    mx.random.seed(1)
    first.initialize(mx.init.Xavier(), ctx=mx.cpu(0))
    second.initialize(mx.init.Xavier(), ctx=mx.cpu(1))
    return net


def train(images, labels, o, micro):
    net = two_stage_mlp(o.hidden)
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    per_epoch = images.shape[0] // o.batch
    start = time.time()
    for i in range(o.batches):
        if i == 5:  # after warming up
            nd.waitall()
            start = time.time()
        k = i % per_epoch
        xs = gluon.utils.split_data(images[k * o.batch:(k + 1) * o.batch], micro, 0, False)
        ys = gluon.utils.split_data(labels[k * o.batch:(k + 1) * o.batch], micro, 0, False)
        with autograd.record():
            losses = [loss_fn(net(x), y.as_in_context(mx.cpu(1))) for x, y in zip(xs, ys)]
        autograd.backward(losses)
        trainer.step(o.batch)
        last = losses[-1]
    loss = last.mean().asscalar()
    nd.waitall()
    return (o.batches - 5) * o.batch / (time.time() - start), loss


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--batches", type=int, default=60)
    p.add_argument("--batch", type=int, default=1024)
    p.add_argument("--micro-batches", dest="micro", type=int, default=2)
    p.add_argument("--hidden", type=int, default=1024)
    o = p.parse_args()
    d = mx.io.fashion_mnist_dir()
    images = mx.io.load_idx(d + "/train-images-idx3-ubyte.gz").astype('float32')
    images = images.reshape((images.shape[0], -1))
    images *= 1.0 / 255.0
    labels = mx.io.load_idx_labels(d + "/train-labels-idx1-ubyte.gz")
    plain, plain_loss = train(images, labels, o, 1)
    print("unpipelined (1 slice): %.0f samples/s, loss %.4f" % (plain, plain_loss))
    piped, piped_loss = train(images, labels, o, o.micro)
    print("pipelined (%d micro-batches): %.0f samples/s, loss %.4f" % (o.micro, piped, piped_loss))
    print("speed-up %.2fx" % (piped / plain))


if __name__ == "__main__":
    main()
