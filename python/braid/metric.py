"""mxnet.metric (also gluon.metric): evaluation metrics, as in MXNet 1.x: each keeps the running
sum and count since reset_local() (get()) and since reset() (get_global()); create() builds one
from a name, a config dict or its JSON, a list (composite) or a function (CustomMetric)."""
import json
import math
from collections import OrderedDict

import numpy

from . import ndarray as _nd
from .ndarray import NDArray

__all__ = ["EvalMetric", "CompositeEvalMetric", "Accuracy", "TopKAccuracy", "F1", "MCC", "Perplexity", "MAE",
           "MSE", "RMSE", "CrossEntropy", "NegativeLogLikelihood", "PearsonCorrelation", "PCC", "Loss", "Torch",
           "Caffe", "CustomMetric", "np", "create", "register", "alias", "check_label_shapes"]

_registry = {}


def register(klass):
    """Makes the metric class known to create() by its lower-case name."""
    _registry[klass.__name__.lower()] = klass
    return klass


def alias(*names):
    """Further names create() knows the decorated class by."""
    def decorate(klass):
        for name in names:
            _registry[name.lower()] = klass
        return klass
    return decorate


def check_label_shapes(labels, preds, wrap=False, shape=False):
    """Raises ValueError unless labels and preds have as many entries (or, with shape, one shape);
    with wrap, single arrays become lists."""
    label_shape, pred_shape = (labels.shape, preds.shape) if shape else (len(labels), len(preds))
    if label_shape != pred_shape:
        raise ValueError("Shape of labels {} does not match shape of predictions {}".format(label_shape, pred_shape))
    if wrap:
        labels = [labels] if isinstance(labels, NDArray) else labels
        preds = [preds] if isinstance(preds, NDArray) else preds
    return labels, preds


def _as_list(x):
    return x if isinstance(x, list) else [x]


class EvalMetric(object):
    """The base of metrics: name, output_names and label_names (for update_dict), and the local
    (sum_metric, num_inst) and global (global_sum_metric, global_num_inst) tallies."""

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self._has_global_stats = kwargs.pop("has_global_stats", False)
        self._kwargs = kwargs
        self.reset()

    def __str__(self):
        return "EvalMetric: {}".format(dict(self.get_name_value()))

    def get_config(self):
        """What create() needs to make this metric again."""
        config = self._kwargs.copy()
        config.update({"metric": self.__class__.__name__, "name": self.name, "output_names": self.output_names,
                       "label_names": self.label_names})
        return config

    def update_dict(self, label, pred):
        """update() with the arrays picked by output_names/label_names from dicts by name."""
        pred = [pred[n] for n in self.output_names] if self.output_names is not None else list(pred.values())
        label = [label[n] for n in self.label_names] if self.label_names is not None else list(label.values())
        self.update(label, pred)

    def update(self, labels, preds):
        raise NotImplementedError()

    def _add(self, value, count):
        self.sum_metric += value
        self.global_sum_metric += value
        self.num_inst += count
        self.global_num_inst += count

    def reset(self):
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self):
        self.num_inst = 0
        self.sum_metric = 0.0

    def get(self):
        if self.num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, self.sum_metric / self.num_inst)

    def get_global(self):
        if not self._has_global_stats:
            return self.get()
        if self.global_num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, self.global_sum_metric / self.global_num_inst)

    def get_name_value(self):
        name, value = self.get()
        return list(zip(_as_list(name), _as_list(value)))

    def get_global_name_value(self):
        if not self._has_global_stats:
            return self.get_name_value()
        name, value = self.get_global()
        return list(zip(_as_list(name), _as_list(value)))


def _create(metric, *args, **kwargs):
    if isinstance(metric, EvalMetric):
        return metric
    if isinstance(metric, dict):
        config = dict(metric)
    else:
        try:
            config = json.loads(metric)
        except (TypeError, ValueError):
            config = None
        if not isinstance(config, dict):
            key = str(metric).lower()
            if key not in _registry:
                raise ValueError("Cannot find metric %s; known metrics: %s" % (metric, ", ".join(sorted(_registry))))
            return _registry[key](*args, **kwargs)
    name = config.pop("metric")
    if name.lower() == "compositeevalmetric":
        config["metrics"] = [_create(m) for m in config.get("metrics", [])]
    config.update(kwargs)
    return _registry[name.lower()](*args, **config)


def create(metric, *args, **kwargs):
    """A metric from a name ('acc'), an EvalMetric, a config (dict or JSON from get_config()), a
    list of these (a CompositeEvalMetric) or a function feval(label, pred) (a CustomMetric)."""
    if callable(metric) and not isinstance(metric, EvalMetric):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, list):
        composite = CompositeEvalMetric()
        for child in metric:
            composite.add(create(child, *args, **kwargs))
        return composite
    return _create(metric, *args, **kwargs)


@register
@alias("composite")
class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; get() lists every child's names and values."""

    def __init__(self, metrics=None, name="composite", output_names=None, label_names=None):
        super(CompositeEvalMetric, self).__init__(name, output_names=output_names, label_names=label_names,
                                                  has_global_stats=True)
        self.metrics = [create(m) for m in (metrics or [])]

    def add(self, metric):
        self.metrics.append(create(metric))

    def get_metric(self, index):
        try:
            return self.metrics[index]
        except IndexError:
            return ValueError("Metric index {} is out of range 0 and {}".format(index, len(self.metrics)))

    def update_dict(self, labels, preds):
        if self.label_names is not None:
            labels = OrderedDict([i for i in labels.items() if i[0] in self.label_names])
        if self.output_names is not None:
            preds = OrderedDict([i for i in preds.items() if i[0] in self.output_names])
        for metric in self.metrics:
            metric.update_dict(labels, preds)

    def update(self, labels, preds):
        for metric in self.metrics:
            metric.update(labels, preds)

    def reset(self):
        for metric in getattr(self, "metrics", []):
            metric.reset()

    def reset_local(self):
        for metric in getattr(self, "metrics", []):
            metric.reset_local()

    def _gather(self, getter):
        names, values = [], []
        for metric in self.metrics:
            name, value = getter(metric)
            names.extend(_as_list(name) if not isinstance(name, str) else [name])
            values.extend(value if isinstance(value, list) else [value])
        return names, values

    def get(self):
        return self._gather(lambda m: m.get())

    def get_global(self):
        return self._gather(lambda m: m.get_global())

    def get_config(self):
        config = super(CompositeEvalMetric, self).get_config()
        config.update({"metrics": [m.get_config() for m in self.metrics]})
        return config


from ._metrics import *  # noqa: E402,F401,F403 (the metrics register themselves)
from ._metrics import CustomMetric, np  # noqa: E402,F401
