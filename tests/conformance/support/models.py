"""The small networks MXNet's unit tests build with ``common.models`` (MXNet keeps this module in
tests/python/common/, which is not part of the shared unit-test folder): written for Braid."""
import mxnet as mx


def mlp2():
    """data -> fc1 (1000) -> relu -> fc2 (10)."""
    data = mx.symbol.Variable("data")
    out = mx.symbol.FullyConnected(data=data, name="fc1", num_hidden=1000)
    out = mx.symbol.Activation(data=out, act_type="relu")
    out = mx.symbol.FullyConnected(data=out, name="fc2", num_hidden=10)
    return out


def conv():
    """data -> conv1 -> batch norm -> relu -> max pool -> conv2 -> batch norm -> relu -> max pool
    -> flatten -> fc (10) -> softmax."""
    data = mx.symbol.Variable("data")
    out = data
    for i, filters in ((1, 32), (2, 32)):
        out = mx.symbol.Convolution(data=out, name="conv%d" % i, num_filter=filters, kernel=(3, 3), stride=(2, 2))
        out = mx.symbol.BatchNorm(data=out, name="bn%d" % i)
        out = mx.symbol.Activation(data=out, name="relu%d" % i, act_type="relu")
        out = mx.symbol.Pooling(data=out, name="pool%d" % i, kernel=(2, 2), stride=(1, 1), pool_type="max")
    out = mx.symbol.Flatten(data=out, name="flatten")
    out = mx.symbol.FullyConnected(data=out, name="fc", num_hidden=10)
    return mx.symbol.SoftmaxOutput(data=out, name="softmax")
