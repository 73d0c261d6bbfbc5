"""'Dive into Deep Learning', multi-device training written by hand (the seed article
004_f8323131855a6f37): LeNet of NDArray operators, parameters copied to each device with
attach_grad, the batch split across the devices, a hand-written allreduce, SGD by hand. The Python
twin of examples/d2l_multi_device_lenet.cc (same numbers but the times); devices are cpu(0), cpu(1).

    PYTHONPATH=build/python python3 examples/python/d2l_multi_device_lenet.py [--devices 2] [--epochs 4]
        [--batch 256] [--lr 0.2] [--limit N]
"""
import argparse
import time

import braid as mx
from braid import autograd, nd

scale = 0.01


def init_params():
    W1 = nd.random.normal(scale=scale, shape=(20, 1, 3, 3))
    b1 = nd.zeros(shape=20)
    W2 = nd.random.normal(scale=scale, shape=(50, 20, 5, 5))
    b2 = nd.zeros(shape=50)
    W3 = nd.random.normal(scale=scale, shape=(800, 128))
    b3 = nd.zeros(shape=128)
    W4 = nd.random.normal(scale=scale, shape=(128, 10))
    b4 = nd.zeros(shape=10)
    return [W1, b1, W2, b2, W3, b3, W4, b4]


def lenet(X, params):
    h1_conv = nd.Convolution(data=X, weight=params[0], bias=params[1], kernel=(3, 3), num_filter=20)
    h1_activation = nd.relu(h1_conv)
    h1 = nd.Pooling(data=h1_activation, pool_type='avg', kernel=(2, 2), stride=(2, 2))
    h2_conv = nd.Convolution(data=h1, weight=params[2], bias=params[3], kernel=(5, 5), num_filter=50)
    h2_activation = nd.relu(h2_conv)
    h2 = nd.Pooling(data=h2_activation, pool_type='avg', kernel=(2, 2), stride=(2, 2))
    h2 = nd.flatten(h2)
    h3_linear = nd.dot(h2, params[4]) + params[5]
    h3 = nd.relu(h3_linear)
    y_hat = nd.dot(h3, params[6]) + params[7]
    return y_hat


def loss(y_hat, y):  # gluon.loss.SoftmaxCrossEntropyLoss with sparse labels
    return -nd.pick(nd.log_softmax(y_hat), y, axis=-1)


def get_params(params, ctx):
    new_params = [p.copyto(ctx) for p in params]
    for p in new_params:
        p.attach_grad()
    return new_params


def allreduce(data):
    for i in range(1, len(data)):
        data[0][:] += data[i].copyto(data[0].context)
    for i in range(1, len(data)):
        data[0].copyto(data[i])


def split_and_load(data, ctx):
    n, k = data.shape[0], len(ctx)
    m = n // k
    return [data[i * m: (i + 1) * m].as_in_context(ctx[i]) for i in range(k)]


def sgd(params, lr, batch_size):
    for param in params:
        param -= param.grad * (lr / batch_size)  # the book's param[:] = param - lr * param.grad / batch_size


def train_batch(X, y, gpu_params, ctx, lr):
    gpu_Xs, gpu_ys = split_and_load(X, ctx), split_and_load(y, ctx)
    with autograd.record():
        ls = [loss(lenet(gpu_X, gpu_W), gpu_y) for gpu_X, gpu_y, gpu_W in zip(gpu_Xs, gpu_ys, gpu_params)]
    for l in ls:
        l.backward()
    for i in range(len(gpu_params[0])):
        allreduce([gpu_params[c][i].grad for c in range(len(ctx))])
    for param in gpu_params:
        sgd(param, lr, X.shape[0])  # the whole batch size


def evaluate_accuracy(images, labels, params, batch):
    correct, n = 0, images.shape[0]
    for b in range(0, n - batch + 1, batch):
        pred = nd.argmax(lenet(images[b:b + batch], params), axis=1)
        correct += int(nd.sum(pred == labels[b:b + batch]).asscalar())
    return correct / (n // batch * batch)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--devices", type=int, default=2)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=0.2)
    p.add_argument("--limit", type=int, default=0)
    a = p.parse_args()
    d = mx.io.fashion_mnist_dir()
    train_x = mx.io.load_idx_images(d + "/train-images-idx3-ubyte.gz")
    train_y = mx.io.load_idx_labels(d + "/train-labels-idx1-ubyte.gz")
    test_x = mx.io.load_idx_images(d + "/t10k-images-idx3-ubyte.gz")
    test_y = mx.io.load_idx_labels(d + "/t10k-labels-idx1-ubyte.gz")
    if a.limit > 0:
        train_x, train_y = train_x[:a.limit], train_y[:a.limit]
        test_x, test_y = test_x[:a.limit], test_y[:a.limit]
    ctx = [mx.cpu(i) for i in range(a.devices)]
    print("running on:", " ".join(str(c) for c in ctx))

    mx.random.seed(0)
    params = init_params()
    gpu_params = [get_params(params, c) for c in ctx]
    n = train_x.shape[0]
    for epoch in range(a.epochs):
        start = time.time()
        for b in range(0, n - a.batch + 1, a.batch):
            train_batch(train_x[b:b + a.batch], train_y[b:b + a.batch], gpu_params, ctx, a.lr)
            nd.waitall()
        secs = time.time() - start
        print("epoch %d, test acc %.4f, time %.1f sec"
              % (epoch + 1, evaluate_accuracy(test_x, test_y, gpu_params[0], a.batch), secs), flush=True)


if __name__ == "__main__":
    main()
