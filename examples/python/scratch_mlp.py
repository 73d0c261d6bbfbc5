"""'Dive into Deep Learning' §4.2, a multilayer perceptron from scratch: the Python twin of
examples/scratch_mlp.cc (same numbers).

    PYTHONPATH=build/python python3 examples/python/scratch_mlp.py [--epochs 10] [--lr 0.5] [--limit N]
"""
import argparse

import braid as mx
from braid import autograd, gluon, nd
from braid.gluon.data.vision import transforms


def load_data_fashion_mnist(batch_size, train, limit):
    ds = gluon.data.vision.FashionMNIST(train=train)
    if 0 < limit < len(ds):
        ds = ds.take(limit)
    return gluon.data.DataLoader(ds.transform_first(transforms.ToTensor()), batch_size, shuffle=train, num_workers=2)


def net(X, params):
    W1, b1, W2, b2 = params
    H = nd.relu(nd.dot(X.reshape((-1, 784)), W1) + b1)
    return nd.dot(H, W2) + b2


def sgd(params, lr, batch_size):
    for param in params:
        param -= param.grad * (lr / batch_size)  # the book's param[:] = param - lr * param.grad / batch_size


def evaluate_accuracy(data_iter, params):
    correct, n = 0.0, 0.0
    for X, y in data_iter:
        y = y.astype('float32')
        correct += nd.sum(nd.argmax(net(X, params), axis=1) == y).asscalar()
        n += y.size
    return correct / n


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--lr", type=float, default=0.5)
    p.add_argument("--limit", type=int, default=0)
    a = p.parse_args()
    batch_size, num_inputs, num_outputs, num_hiddens = 256, 784, 10, 256
    train_iter = load_data_fashion_mnist(batch_size, True, a.limit)
    test_iter = load_data_fashion_mnist(batch_size, False, a.limit)

    mx.random.seed(0)
    W1 = nd.random.normal(scale=0.01, shape=(num_inputs, num_hiddens))
    b1 = nd.zeros(num_hiddens)
    W2 = nd.random.normal(scale=0.01, shape=(num_hiddens, num_outputs))
    b2 = nd.zeros(num_outputs)
    params = [W1, b1, W2, b2]
    for param in params:
        param.attach_grad()
    loss = gluon.loss.SoftmaxCrossEntropyLoss()

    for epoch in range(a.epochs):
        train_l_sum, train_acc_sum, n = 0.0, 0.0, 0.0
        for X, y in train_iter:
            y = y.astype('float32')
            with autograd.record():
                y_hat = net(X, params)
                l = nd.sum(loss(y_hat, y))
            l.backward()
            sgd(params, a.lr, X.shape[0])
            train_l_sum += l.asscalar()
            train_acc_sum += nd.sum(nd.argmax(y_hat, axis=1) == y).asscalar()
            n += y.size
        print("epoch %d, loss %.4f, train acc %.3f, test acc %.3f"
              % (epoch + 1, train_l_sum / n, train_acc_sum / n, evaluate_accuracy(test_iter, params)), flush=True)


if __name__ == "__main__":
    main()
