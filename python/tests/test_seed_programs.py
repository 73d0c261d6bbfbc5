"""The programs of the seed articles (../shared/seeds), unchanged but for ``import braid as mx`` and
a smaller slice of Fashion-MNIST so that the suite stays fast."""
import braid as mx
from braid import autograd, gluon, nd
from braid.gluon import nn
from braid.gluon.data.vision import transforms


def fashion_mnist(train, count):
    dataset = gluon.data.vision.FashionMNIST(train=train).take(count)
    return dataset.transform_first(transforms.ToTensor())


def evaluate(net, loader, ctx):
    metric_correct, total = 0, 0
    for data, label in loader:
        out = net(data.as_in_context(ctx))
        metric_correct += int((out.argmax(axis=1) == label.astype("float32").as_in_context(ctx)).sum().asscalar())
        total += data.shape[0]
    return metric_correct / total


def test_gluon_lenet_with_split_and_load_over_two_contexts():
    """Seed 003, section 3.2.1: LeNet trained data-parallel with split_and_load (cpu(0), cpu(1)
    standing in for the GPUs)."""
    net = nn.Sequential()
    with net.name_scope():
        net.add(nn.Conv2D(channels=20, kernel_size=5, activation='relu'))
        net.add(nn.MaxPool2D(pool_size=2, strides=2))
        net.add(nn.Conv2D(channels=50, kernel_size=5, activation='relu'))
        net.add(nn.MaxPool2D(pool_size=2, strides=2))
        net.add(nn.Flatten())
        net.add(nn.Dense(128, activation='relu'))
        net.add(nn.Dense(10))
    ctx = [mx.cpu(0), mx.cpu(1)]
    net.initialize(mx.init.Xavier(magnitude=2.24), ctx=ctx)
    net.hybridize(static_alloc=True, static_shape=True)
    batch_size = 128
    train_data = gluon.data.DataLoader(fashion_mnist(True, 7680), batch_size=batch_size, shuffle=True)
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    for epoch in range(2):
        for i, (data, label) in enumerate(train_data):
            data_parts = gluon.utils.split_and_load(data, ctx)
            label_parts = gluon.utils.split_and_load(label, ctx)
            with autograd.record():
                losses = [loss_fn(net(x), y) for x, y in zip(data_parts, label_parts)]
            for l in losses:
                l.backward()
            trainer.step(batch_size)
    # both contexts hold the same weights after the summed-gradient updates
    for p in net.collect_params().values():
        d0, d1 = p.list_data()
        assert (d0.asnumpy() == d1.asnumpy()).all(), p.name
    test_data = gluon.data.DataLoader(fashion_mnist(False, 2000), batch_size=500)
    accuracy = evaluate(net, test_data, mx.cpu(0))
    # chance is 0.10; 2 epochs over 7680 images reached 0.64 to over 0.70 depending on the seed
    # and the threads (eight seeds tried): far above chance, short of the plateau
    assert accuracy > 0.5, accuracy


def test_d2l_hand_written_allreduce_and_split_and_load():
    """Seed 004: the book's allreduce over devices and split_and_load of a batch (the whole program,
    LeNet from scratch on two devices, is examples/python/d2l_multi_device_lenet.py, checked against
    its C++ twin by test_examples.py)."""
    def allreduce(data):
        for i in range(1, len(data)):
            data[0][:] += data[i].copyto(data[0].context)
        for i in range(1, len(data)):
            data[0].copyto(data[i])

    data = [nd.ones((1, 2), ctx=mx.cpu(i)) * (i + 1) for i in range(2)]
    allreduce(data)
    assert data[0].asnumpy().tolist() == [[3.0, 3.0]] and data[1].asnumpy().tolist() == [[3.0, 3.0]]
    assert data[1].context == mx.cpu(1)

    batch = nd.arange(24).reshape((6, 4))
    ctx = [mx.cpu(0), mx.cpu(1)]
    splitted = gluon.utils.split_and_load(batch, ctx)
    assert [s.context for s in splitted] == ctx
    assert splitted[1].asnumpy().tolist() == batch[3:].asnumpy().tolist()
