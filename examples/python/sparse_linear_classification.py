"""Sparse linear classification, as MXNet's example/sparse/linear_classification: a softmax
classifier over LibSVM data with many features, of which each example uses few. The weight is a
row_sparse parameter: each batch reads only the rows of the features it uses (row_sparse_pull
from the store), and its gradient holds only those rows, which the optimizer updates lazily.

One process:
    python3 sparse_linear_classification.py --data train.libsvm --num-features 1000000
A parameter-server job, each worker reading its part of the file:
    braid launch -n 2 -s 2 -- python3 sparse_linear_classification.py --data train.libsvm \\
        --num-features 1000000 --kvstore dist_sync
Without --data it writes (and trains on) synthetic data: --make-data ROWS.
"""
import argparse
import logging
import time

import numpy as np

import mxnet as mx
from mxnet import autograd, gluon

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
parser.add_argument("--data", help="training data in LibSVM format (feature indices from 0)")
parser.add_argument("--val", help="validation data in LibSVM format")
parser.add_argument("--num-features", type=int, default=1000, help="features per example (the data's width)")
parser.add_argument("--num-epoch", type=int, default=5, help="passes over the data")
parser.add_argument("--batch-size", type=int, default=64, help="examples per batch and worker")
parser.add_argument("--kvstore", default="local", help="local, dist_sync or dist_async")
parser.add_argument("--optimizer", default="sgd", choices=["sgd", "adam", "adagrad", "ftrl"])
parser.add_argument("--lr", type=float, default=0.5, help="learning rate")
parser.add_argument("--make-data", type=int, metavar="ROWS", default=4096,
                    help="without --data: write ROWS synthetic examples to synthetic.libsvm and train on them")
parser.add_argument("--save", metavar="FILE", help="write the trained weight and bias (dense) to FILE (.params)")


def write_synthetic(path, rows, features, seed=0):
    """Examples of 5-20 features each, labelled by the sign of a hidden sparse linear rule."""
    rs = np.random.RandomState(seed)
    rule = rs.randn(features) * (rs.rand(features) < 0.1)
    with open(path, "w") as f:
        for _ in range(rows):
            used = np.sort(rs.choice(features, rs.randint(5, 21), replace=False))
            values = rs.rand(len(used)) + 0.5
            label = int(values @ rule[used] > 0)
            f.write("%d %s\n" % (label, " ".join("%d:%.4f" % (i, v) for i, v in zip(used, values))))


def evaluate(data, weight, bias, num_features):
    """(mean negative log-likelihood, accuracy) of the model on `data`."""
    every_row = mx.nd.arange(num_features, dtype="int64")
    dense = weight.row_sparse_data(every_row).tostype("default")
    nll, correct, seen = 0.0, 0, 0
    data.reset()
    for batch in data:
        real = batch.data[0].shape[0] - batch.pad
        logits = mx.nd.sparse.dot(batch.data[0], dense) + bias.data()
        p = mx.nd.softmax(logits).asnumpy()[:real]
        label = batch.label[0].asnumpy()[:real].astype(int)
        nll -= np.log(np.maximum(p[np.arange(real), label], 1e-12)).sum()
        correct += int((p.argmax(axis=1) == label).sum())
        seen += real
    return nll / seen, correct / seen


def main():
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    kv = mx.kv.create(args.kvstore)
    if args.data is None:
        args.data = "synthetic.libsvm"
        if kv.rank == 0:
            write_synthetic(args.data, args.make_data, args.num_features)
        kv.barrier()
    train = mx.io.LibSVMIter(data_libsvm=args.data, data_shape=(args.num_features,), batch_size=args.batch_size,
                             num_parts=kv.num_workers, part_index=kv.rank)
    val = mx.io.LibSVMIter(data_libsvm=args.val or args.data, data_shape=(args.num_features,),
                           batch_size=args.batch_size)

    weight = gluon.Parameter("weight", shape=(args.num_features, 2), stype="row_sparse", grad_stype="row_sparse",
                             init=mx.init.Zero())
    bias = gluon.Parameter("bias", shape=(2,), init=mx.init.Zero())
    for p in (weight, bias):
        p.initialize(ctx=mx.cpu())
    trainer = gluon.Trainer([weight, bias], args.optimizer, {"learning_rate": args.lr}, kvstore=kv)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()

    for epoch in range(args.num_epoch):
        train.reset()
        start, batches = time.time(), 0
        for batch in train:
            x, y = batch.data[0], batch.label[0]
            rows = weight.row_sparse_data(x.indices)  # the rows this batch's features use
            with autograd.record():
                loss = loss_fn(mx.nd.sparse.dot(x, rows) + bias.data(), y)
            loss.backward()
            trainer.step(args.batch_size * kv.num_workers)  # the workers' gradients are summed
            batches += 1
        nll, accuracy = evaluate(val, weight, bias, args.num_features)
        logging.info("worker %d epoch %d: %d batches in %.1f s, nll %.4f, accuracy %.4f", kv.rank, epoch + 1,
                     batches, time.time() - start, nll, accuracy)
    if args.save and kv.rank == 0:
        every_row = mx.nd.arange(args.num_features, dtype="int64")
        mx.nd.save(args.save, {"weight": weight.row_sparse_data(every_row).tostype("default"),
                               "bias": bias.data()})


if __name__ == "__main__":
    main()
