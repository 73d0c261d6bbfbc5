"""mxnet.model: checkpoints of a symbol and its parameters (prefix-symbol.json, prefix-%04d.params),
and FeedForward, the estimator of older MXNet scripts (``FeedForward.load(prefix, epoch).predict(X)``),
run by a Module."""
import os
from collections import namedtuple

import numpy as np

from ._core.module import save_checkpoint, load_checkpoint
from ._core.module import Module
from ._core import NDArray
from ._core.io import DataIter
from .io import NDArrayIter
from .context import Context, cpu
from . import metric as _metric

__all__ = ["save_checkpoint", "load_checkpoint", "FeedForward", "BatchEndParam"]

# What a batch-end callback receives (Module.fit, Module.score).
BatchEndParam = namedtuple("BatchEndParams", ["epoch", "nbatch", "eval_metric", "locals"])


def _create_kvstore(kvstore, num_device, arg_params):
    """(the KVStore to use or None, whether it runs the optimizer) for ``kvstore`` (a name, a
    KVStore or None): one device without a distributed store needs none. MXNET_UPDATE_ON_KVSTORE=0
    keeps the updates on the devices."""
    from . import kvstore as kvs
    update_on_kvstore = bool(int(os.getenv("MXNET_UPDATE_ON_KVSTORE", "1")))
    if kvstore is None:
        kv = None
    elif isinstance(kvstore, kvs.KVStore):
        kv = kvstore
    elif isinstance(kvstore, str):
        if num_device == 1 and "dist" not in kvstore:
            kv = None
        else:
            kv = kvs.create(kvstore)
            if kvstore == "local":
                # big arrays are updated on their devices rather than copied to the store's
                largest = max((int(np.prod(p.shape)) for p in arg_params.values()), default=0)
                if largest > 1024 * 1024 * 16:
                    update_on_kvstore = False
    else:
        raise TypeError("kvstore must be a KVStore, a str or None, got %r" % (kvstore,))
    if kv is None:
        update_on_kvstore = False
    return kv, update_on_kvstore


def _initialize_kvstore(kvstore, param_arrays, arg_params, param_names, update_on_kvstore):
    """Puts each parameter in the store (and, when the store updates, pulls it to every device)."""
    for idx, param_on_devs in enumerate(param_arrays):
        name = param_names[idx]
        kvstore.init(name, arg_params[name])
        if update_on_kvstore:
            kvstore.pull(name, param_on_devs, priority=-idx)


def _update_params_on_kvstore(param_arrays, grad_arrays, kvstore, param_names):
    """Pushes the gradients (the store sums and updates) and pulls the new weights."""
    for index, (arg_list, grad_list) in enumerate(zip(param_arrays, grad_arrays)):
        if grad_list[0] is None:
            continue
        name = param_names[index]
        kvstore.push(name, grad_list, priority=-index)
        kvstore.pull(name, arg_list, priority=-index)


def _update_params(param_arrays, grad_arrays, updater, num_device, kvstore=None, param_names=None):
    """Sums the gradients through ``kvstore`` (when given), then updates each device's weights
    with ``updater(index, grad, weight)``, index = parameter * num_device + device."""
    for i, (arg_list, grad_list) in enumerate(zip(param_arrays, grad_arrays)):
        if grad_list[0] is None:
            continue
        if kvstore:
            name = param_names[i]
            kvstore.push(name, grad_list, priority=-i)
            kvstore.pull(name, grad_list, priority=-i)
        for k, (w, g) in enumerate(zip(arg_list, grad_list)):
            updater(i * num_device + k, g, w)


def _contexts(ctx):
    if ctx is None:
        return [cpu()]
    return [ctx] if isinstance(ctx, Context) else list(ctx)


class FeedForward(object):
    """A symbol with its parameters, trained with ``fit`` and run with ``predict`` and ``score``.

    ``ctx``: a Context or a list of them; ``numpy_batch_size``: the batch size for NumPy or NDArray
    inputs; further keyword arguments (``learning_rate``, ``momentum``, ``wd``...) go to the optimizer.
    """

    def __init__(self, symbol, ctx=None, num_epoch=None, epoch_size=None, optimizer='sgd',
                 initializer=None, numpy_batch_size=128, arg_params=None, aux_params=None,
                 allow_extra_params=False, begin_epoch=0, **kwargs):
        self.symbol = symbol
        self.ctx = _contexts(ctx)
        self.num_epoch = num_epoch
        self.epoch_size = epoch_size
        self.optimizer = optimizer
        self.initializer = initializer
        self.numpy_batch_size = numpy_batch_size
        self.arg_params = arg_params
        self.aux_params = aux_params
        self.allow_extra_params = allow_extra_params
        self.begin_epoch = begin_epoch
        self.kwargs = kwargs.copy()

    def _label_names(self, data_names):
        return [n for n in self.symbol.list_arguments() if n.endswith('label') and n not in data_names]

    def _as_iter(self, X, y, is_train):
        """NumPy or NDArray inputs as an NDArrayIter (labels default to zeros outside training)."""
        if isinstance(X, DataIter) or hasattr(X, 'provide_data'):
            return X
        if isinstance(X, NDArray):
            X = X.asnumpy()
        if isinstance(y, NDArray):
            y = y.asnumpy()
        if not isinstance(X, np.ndarray):
            raise TypeError("FeedForward: X must be a DataIter, a NumPy array or an NDArray, got %s" % type(X).__name__)
        if y is None:
            if is_train:
                raise ValueError("FeedForward.fit: y (the labels) is needed when X is an array")
            y = np.zeros(X.shape[0], dtype=np.float32)
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = y.flatten()
        if y.ndim != 1:
            raise ValueError("FeedForward: labels must be 1-D (or 2-D with one column), got shape %s" % (y.shape,))
        if X.shape[0] != y.shape[0]:
            raise ValueError("FeedForward: X has %d samples but y has %d" % (X.shape[0], y.shape[0]))
        batch_size = min(X.shape[0], self.numpy_batch_size)
        return NDArrayIter(X.astype(np.float32), y.astype(np.float32), batch_size, shuffle=is_train,
                           last_batch_handle='roll_over' if is_train else 'pad')

    def _bound_module(self, data, for_training):
        data_names = [d.name for d in data.provide_data]
        mod = Module(self.symbol, data_names=data_names, label_names=self._label_names(data_names),
                     context=self.ctx)
        labels = data.provide_label if for_training else None
        mod.bind(data.provide_data, labels, for_training=for_training)
        return mod

    def _predictor(self, data):
        if self.arg_params is None:
            raise ValueError("FeedForward: the model has no parameters; fit it or load it first")
        mod = self._bound_module(data, False)
        mod.init_params(arg_params=self.arg_params, aux_params=self.aux_params,
                        allow_missing=False)
        return mod

    def _batches(self, data, num_batch, reset):
        if reset:
            data.reset()
        for i, batch in enumerate(data):
            if num_batch is not None and i == num_batch:
                break
            yield batch

    def predict(self, X, num_batch=None, return_data=False, reset=True):
        """The outputs for X as NumPy arrays (one array, or a list for several outputs), padding
        dropped; with ``return_data`` also the data and labels they came from."""
        data = self._as_iter(X, None, False)
        mod = self._predictor(data)
        outputs, inputs, labels = [], [], []
        for batch in self._batches(data, num_batch, reset):
            mod.forward(batch, is_train=False)
            rows = batch.data[0].shape[0] - (batch.pad or 0)
            outputs.append([o.asnumpy()[:rows] for o in mod.get_outputs()])
            if return_data:
                inputs.append([d.asnumpy()[:rows] for d in batch.data])
                labels.append([l.asnumpy()[:rows] for l in (batch.label or [])])
        if not outputs:
            raise ValueError("FeedForward.predict: the data gave no batch")
        out = [np.concatenate(parts) for parts in zip(*outputs)]
        out = out[0] if len(out) == 1 else out
        if not return_data:
            return out
        data_out = [np.concatenate(parts) for parts in zip(*inputs)]
        label_out = [np.concatenate(parts) for parts in zip(*labels)] if labels and labels[0] else []
        return (out, data_out[0] if len(data_out) == 1 else data_out,
                label_out[0] if len(label_out) == 1 else label_out)

    def score(self, X, eval_metric='acc', num_batch=None, batch_end_callback=None, reset=True):
        """The metric's value over X (its labels against output 0...)."""
        data = self._as_iter(X, None, False)
        mod = self._predictor(data)
        metric = _metric.create(eval_metric) if isinstance(eval_metric, str) else eval_metric
        metric.reset()
        for batch in self._batches(data, num_batch, reset):
            mod.forward(batch, is_train=False)
            metric.update(batch.label, mod.get_outputs())  # mx.metric is Python: update it here
        return metric.get()[1]

    def fit(self, X, y=None, eval_data=None, eval_metric='acc', epoch_end_callback=None,
            batch_end_callback=None, kvstore='local', logger=None, work_load_list=None, monitor=None,
            eval_end_callback=None, eval_batch_end_callback=None):
        """Trains for num_epoch epochs from begin_epoch; the parameters are kept on the model."""
        if self.num_epoch is None:
            raise ValueError("FeedForward.fit: give num_epoch when creating the model")
        data = self._as_iter(X, y, True)
        if eval_data is not None and not isinstance(eval_data, DataIter) and not hasattr(eval_data, 'provide_data'):
            eval_data = self._as_iter(eval_data[0], eval_data[1], False)
        mod = self._bound_module(data, True)
        mod.fit(data, eval_data=eval_data, eval_metric=eval_metric, epoch_end_callback=epoch_end_callback,
                batch_end_callback=batch_end_callback, kvstore=kvstore, optimizer=self.optimizer,
                optimizer_params=self.kwargs, initializer=self.initializer,
                arg_params=self.arg_params, aux_params=self.aux_params, allow_missing=True,
                begin_epoch=self.begin_epoch, num_epoch=self.num_epoch)
        self.arg_params, self.aux_params = mod.get_params()

    def save(self, prefix, epoch=None):
        """prefix-symbol.json and prefix-%04d.params (epoch: num_epoch by default)."""
        save_checkpoint(prefix, self.num_epoch if epoch is None else epoch, self.symbol,
                        self.arg_params, self.aux_params)

    @staticmethod
    def load(prefix, epoch, ctx=None, **kwargs):
        """The model of a checkpoint (a Module's or FeedForward's), ready to predict."""
        symbol, arg_params, aux_params = load_checkpoint(prefix, epoch)
        return FeedForward(symbol, ctx=ctx, arg_params=arg_params, aux_params=aux_params,
                           begin_epoch=epoch, **kwargs)

    @staticmethod
    def create(symbol, X, y=None, ctx=None, num_epoch=None, epoch_size=None, optimizer='sgd',
               initializer=None, eval_data=None, eval_metric='acc', epoch_end_callback=None,
               batch_end_callback=None, kvstore='local', logger=None, work_load_list=None,
               eval_end_callback=None, eval_batch_end_callback=None, **kwargs):
        """A new model, fitted on X."""
        model = FeedForward(symbol, ctx=ctx, num_epoch=num_epoch, epoch_size=epoch_size,
                            optimizer=optimizer, initializer=initializer, **kwargs)
        model.fit(X, y, eval_data=eval_data, eval_metric=eval_metric, epoch_end_callback=epoch_end_callback,
                  batch_end_callback=batch_end_callback, kvstore=kvstore, logger=logger)
        return model
