"""mx.contrib.io.DataLoaderIter: a Gluon DataLoader's batches as DataBatches, the last one padded."""
import numpy as np

import mxnet as mx
from mxnet.contrib.io import DataLoaderIter
from mxnet.gluon.data import ArrayDataset, DataLoader


def loader(last_batch):
    data = np.arange(10 * 3, dtype=np.int32).reshape(10, 3)
    return DataLoader(ArrayDataset(data, np.arange(10)), batch_size=4, last_batch=last_batch)


def test_batches_carry_the_loaders_samples_in_the_iterators_dtype():
    it = DataLoaderIter(loader("keep"), data_name="x", label_name="y", dtype="float64")
    assert [(d.name, d.shape) for d in it.provide_data] == [("x", (4, 3))]
    assert [(d.name, d.shape) for d in it.provide_label] == [("y", (4,))]
    batches = list(it)
    assert [b.pad for b in batches] == [0, 0, 2]
    assert batches[1].data[0].dtype == np.float64
    np.testing.assert_array_equal(batches[1].data[0].asnumpy(), np.arange(12, 24).reshape(4, 3))
    np.testing.assert_array_equal(batches[2].data[0].asnumpy()[:2], np.arange(24, 30).reshape(2, 3))
    np.testing.assert_array_equal(batches[2].label[0].asnumpy()[:2], [8, 9])
    assert batches[2].data[0].shape == (4, 3)  # filled up to the batch size


def test_reset_starts_again_and_discard_drops_the_short_batch():
    it = DataLoaderIter(loader("discard"))
    assert len(list(it)) == 2
    assert len(list(it)) == 0  # exhausted until reset
    it.reset()
    first = next(it)
    np.testing.assert_array_equal(first.label[0].asnumpy(), [0, 1, 2, 3])


def test_module_trains_on_it():
    x = np.random.RandomState(0).rand(64, 5).astype(np.float32)
    y = (x.sum(axis=1) > 2.5).astype(np.float32)
    it = DataLoaderIter(DataLoader(ArrayDataset(x, y), batch_size=16))
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.Variable("data"), num_hidden=2), name="softmax")
    mod = mx.mod.Module(net)
    mod.fit(it, num_epoch=30, optimizer_params={"learning_rate": 0.5})
    assert mod.score(it, "acc")[0][1] > 0.8
