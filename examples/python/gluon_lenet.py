"""MXNet's Gluon crash course ("Train the neural network"): LeNet on Fashion-MNIST. The Python twin
of examples/gluon_lenet.cc (same numbers but the times).

    PYTHONPATH=build/python python3 examples/python/gluon_lenet.py [--epochs 10] [--limit N]
"""
import argparse
import time

from braid import autograd, gluon, init
from braid.gluon import nn
from braid.gluon.data.vision import datasets, transforms


def acc(output, label):
    return (output.argmax(axis=1) == label.astype('float32')).mean().asscalar()


def fashion_mnist(train, limit):
    ds = datasets.FashionMNIST(train=train)
    if 0 < limit < len(ds):
        ds = ds.take(limit)
    transformer = transforms.Compose([transforms.ToTensor(), transforms.Normalize(0.13, 0.31)])
    return ds.transform_first(transformer)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--limit", type=int, default=0)
    a = p.parse_args()
    batch_size = 256
    train_data = gluon.data.DataLoader(fashion_mnist(True, a.limit), batch_size=batch_size, shuffle=True, num_workers=2)
    valid_data = gluon.data.DataLoader(fashion_mnist(False, a.limit), batch_size=batch_size, num_workers=2)

    net = nn.Sequential()
    with net.name_scope():
        net.add(nn.Conv2D(channels=6, kernel_size=5, activation='relu'),
                nn.MaxPool2D(pool_size=2, strides=2),
                nn.Conv2D(channels=16, kernel_size=3, activation='relu'),
                nn.MaxPool2D(pool_size=2, strides=2),
                nn.Flatten(),
                nn.Dense(120, activation="relu"),
                nn.Dense(84, activation="relu"),
                nn.Dense(10))
    net.initialize(init=init.Xavier())
    softmax_cross_entropy = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})

    for epoch in range(a.epochs):
        train_loss, train_acc, valid_acc = 0., 0., 0.
        tic = time.time()
        for data, label in train_data:
            with autograd.record():
                output = net(data)
                loss = softmax_cross_entropy(output, label)
            loss.backward()
            trainer.step(batch_size)
            train_loss += loss.mean().asscalar()
            train_acc += acc(output, label)
        for data, label in valid_data:
            valid_acc += acc(net(data), label)
        print("Epoch %d: loss %.3f, train acc %.3f, test acc %.3f, in %.1f sec" % (
            epoch, train_loss / len(train_data), train_acc / len(train_data), valid_acc / len(valid_data),
            time.time() - tic), flush=True)
    net.save_parameters('net.params')


if __name__ == "__main__":
    main()
