"""Checks shared by the Estimator and its event handlers: what counts as a list of metrics, the
metric a loss suggests by default, whether a handler refers only to the estimator's metrics, and
how a monitored metric's improvement is judged."""
import warnings

import numpy as np

from ... import loss as _loss
from .... import metric as _metric

__all__ = []


def _check_metrics(metrics):
    """``metrics`` as a flat list of EvalMetric: None gives [], a single metric a one-item list,
    and a CompositeEvalMetric the metrics inside it (recursively). Anything else: ValueError."""
    if isinstance(metrics, _metric.CompositeEvalMetric):
        return [leaf for inner in metrics.metrics for leaf in _check_metrics(inner)]
    if isinstance(metrics, _metric.EvalMetric):
        return [metrics]
    metrics = list(metrics) if metrics else []
    if not all(isinstance(m, _metric.EvalMetric) for m in metrics):
        raise ValueError("metrics must be a Metric or a list of Metric, "
                         "refer to mxnet.metric.EvalMetric: {}".format(metrics))
    return metrics


def _suggest_metric_for_loss(loss):
    """The metric worth reporting next to ``loss`` when the user gave none: accuracy for a softmax
    cross-entropy loss, nothing otherwise."""
    if isinstance(loss, _loss.SoftmaxCrossEntropyLoss):
        return _metric.Accuracy()
    return None


def _check_handler_metric_ref(handler, known_metrics):
    """Raises ValueError when ``handler`` holds a metric that is not one of ``known_metrics``.

    A handler's metrics are found by attribute name, as in MXNet 1.9: every attribute whose name
    contains 'metric' (a metric or a list of them). Handlers that hold a ``monitor`` are not
    checked, so that code written for MXNet keeps working unchanged."""
    for attribute in dir(handler):
        if 'metric' not in attribute:
            continue
        reference = getattr(handler, attribute, None)
        if not reference or callable(reference):  # an empty list, None, or a method
            continue
        for metric in reference if isinstance(reference, (list, tuple)) else [reference]:
            if metric not in known_metrics:
                raise ValueError(
                    'Event handler {} refers to a metric instance {} outside of the known training '
                    'and validation metrics. Please use the metrics from estimator.train_metrics and '
                    'estimator.val_metrics instead.'.format(type(handler).__name__, metric))


def _monitor_op(mode, monitor, who):
    """The comparison (np.greater or np.less) by which a new value of ``monitor`` is an improvement.

    ``mode`` is 'min', 'max' or 'auto'. 'auto' takes 'max' for every metric, losses included, as
    MXNet 1.9 does (its test for accuracy and F1 names is always true), and says so in a warning
    that asks for mode='min' where lower is better. An unknown mode warns (``who`` names the
    handler) and falls back to 'auto'."""
    if mode not in ('auto', 'min', 'max'):
        warnings.warn('%s mode %s is unknown, fallback to auto mode. %s will use max mode for f1 and '
                      'accuracy metric comparison and use min mode otherwise' % (who, mode, who),
                      RuntimeWarning)
        mode = 'auto'
    if mode == 'min':
        return np.less
    if mode == 'max':
        return np.greater
    warnings.warn("`greater` operator will be used to determine if {} has improved. Please specify "
                  "`mode='min'` to use the `less` operator. Specify `mode='max'` to disable this "
                  "warning.".format(monitor.get()[0]))
    return np.greater
    if mode == 'max':
        return np.greater
    name = monitor.get()[0]
    if 'acc' in name.lower() or 'f1' in name.lower():
        warnings.warn("`greater` operator will be used to determine if {} has improved. Please specify "
                      "`mode='min'` to use the `less` operator. Specify `mode='max'` to disable this "
                      "warning.".format(name))
        return np.greater
    warnings.warn("`less` operator will be used to determine if {} has improved. Please specify "
                  "`mode='max'` to use the `greater` operator. Specify `mode='min'` to disable this "
                  "warning.".format(name))
    return np.less
