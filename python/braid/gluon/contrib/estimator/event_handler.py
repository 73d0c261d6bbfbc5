"""The event handlers of the Estimator: the event base classes and the handlers that ship with it.

Estimator.fit always adds a StoppingHandler, and adds a GradientUpdateHandler, a MetricHandler, a
LoggingHandler and (with validation data) a ValidationHandler unless the caller passes one of that
kind; CheckpointHandler and EarlyStoppingHandler are added by the caller. The base classes and their
calling convention are described in ``events``; CheckpointHandler lives in ``checkpoint``."""
import time
import warnings

import numpy as np

from .... import metric as _metric
# Re-exported: MXNet's event_handler module holds these names too.
from .events import (EventHandler, TrainBegin, TrainEnd, EpochBegin, EpochEnd, BatchBegin, BatchEnd,
                     _check_event_handlers)
from .utils import _check_metrics, _monitor_op
from .checkpoint import CheckpointHandler

__all__ = ['TrainBegin', 'TrainEnd', 'EpochBegin', 'EpochEnd', 'BatchBegin', 'BatchEnd',
           'StoppingHandler', 'MetricHandler', 'ValidationHandler',
           'LoggingHandler', 'CheckpointHandler', 'EarlyStoppingHandler', 'GradientUpdateHandler']


class StoppingHandler(TrainBegin, BatchEnd, EpochEnd):
    """Stops training once ``max_epoch`` epochs or ``max_batch`` batches have run.

    At train begin both limits are taken from the estimator (``fit``'s ``epochs`` and
    ``batches``, possibly reduced by a CheckpointHandler that resumed training).

    Parameters
    ----------
    max_epoch : int, default None
        Number of epochs to train.
    max_batch : int, default None
        Number of batches to train.
    """

    def __init__(self, max_epoch=None, max_batch=None):
        self.max_epoch = max_epoch
        self.max_batch = max_batch
        self.current_batch = 0
        self.current_epoch = 0
        self.stop_training = False

    def train_begin(self, estimator, *args, **kwargs):
        self.max_epoch = estimator.max_epoch
        self.max_batch = estimator.max_batch
        self.current_batch = 0
        self.current_epoch = 0

    def batch_end(self, estimator, *args, **kwargs):
        self.current_batch += 1
        if self.current_batch == self.max_batch:
            self.stop_training = True
        return self.stop_training

    def epoch_end(self, estimator, *args, **kwargs):
        self.current_epoch += 1
        if self.current_epoch == self.max_epoch:
            self.stop_training = True
        return self.stop_training


class MetricHandler(EpochBegin, BatchEnd):
    """Resets its metrics at every epoch begin and updates them at every batch end.

    A ``mx.metric.Loss`` metric is updated with the batch's loss values; every other metric with
    the labels and the network's predictions.

    Parameters
    ----------
    metrics : EvalMetric or list of EvalMetric
        The metrics to update.
    priority : scalar, default -1000
        Handlers run in ascending order of priority: this one runs before the handlers that read
        the metrics (validation, logging, checkpoints).
    """

    def __init__(self, metrics, priority=-1000):
        self.metrics = _check_metrics(metrics)
        self.priority = priority

    def epoch_begin(self, estimator, *args, **kwargs):
        for metric in self.metrics:
            metric.reset()

    def batch_end(self, estimator, *args, **kwargs):
        pred, label, loss = kwargs['pred'], kwargs['label'], kwargs['loss']
        for metric in self.metrics:
            if isinstance(metric, _metric.Loss):
                metric.update(0, loss)  # the loss metric averages the loss values; no label
            else:
                metric.update(label, pred)


class ValidationHandler(TrainBegin, BatchEnd, EpochEnd):
    """Runs ``eval_fn`` (typically ``Estimator.evaluate``) on the validation data every
    ``epoch_period`` epochs and/or every ``batch_period`` batches.

    Parameters
    ----------
    val_data : DataLoader
        The validation data.
    eval_fn : callable
        Called as ``eval_fn(val_data=..., batch_axis=..., event_handlers=...)``.
    epoch_period : int, default 1
        Validate after every this many epochs (None: never at epoch end).
    batch_period : int, default None
        Validate after every this many batches (None: never at batch end).
    priority : scalar, default -1000
        Handlers run in ascending order of priority: this one runs early, so that the validation
        metrics are fresh for logging, checkpoints and early stopping.
    event_handlers : EventHandler or list of EventHandler
        Handlers passed on to ``eval_fn`` for the validation pass.
    """

    def __init__(self, val_data, eval_fn, epoch_period=1, batch_period=None, priority=-1000,
                 event_handlers=None):
        self.val_data = val_data
        self.eval_fn = eval_fn
        self.epoch_period = epoch_period
        self.batch_period = batch_period
        self.current_batch = 0
        self.current_epoch = 0
        self.priority = priority
        self.event_handlers = event_handlers

    def train_begin(self, estimator, *args, **kwargs):
        self.current_batch = 0
        self.current_epoch = 0

    def _validate(self, estimator):
        self.eval_fn(val_data=self.val_data, batch_axis=estimator.batch_axis,
                     event_handlers=self.event_handlers)

    def batch_end(self, estimator, *args, **kwargs):
        self.current_batch += 1
        if self.batch_period and self.current_batch % self.batch_period == 0:
            self._validate(estimator)

    def epoch_end(self, estimator, *args, **kwargs):
        self.current_epoch += 1
        if self.epoch_period and self.current_epoch % self.epoch_period == 0:
            self._validate(estimator)


def _metrics_text(metrics):
    """'name: value, name: value' of the metrics' current values."""
    return ', '.join('%s: %.4f' % metric.get() for metric in metrics)


def _optimizer_name(trainer):
    """The class name of the trainer's optimizer as MXNet reports it ('SGD', 'Adam', ...). An
    optimizer Braid made from a name in C++ has the generic class 'Optimizer': its registered
    Python class gives the name."""
    optimizer = trainer.optimizer
    name = type(optimizer).__name__
    if name == 'Optimizer' and isinstance(getattr(optimizer, 'name', None), str):
        from ....optimizer import Optimizer
        registered = getattr(Optimizer, 'opt_registry', {}).get(optimizer.name.lower())
        if registered is not None:
            name = registered.__name__
    return name


class LoggingHandler(TrainBegin, TrainEnd, EpochBegin, EpochEnd, BatchBegin, BatchEnd):
    """Logs the optimizer and learning rate at train begin, the metrics at every epoch end (and,
    with an integer ``log_interval``, every that many batches) and a summary at train end, to
    ``estimator.logger``.

    Messages mention an epoch only for training metrics (names starting with 'training');
    with validation metrics the epoch begin reads "Validation Begin".

    Parameters
    ----------
    log_interval : int or 'epoch', default 'epoch'
        'epoch' logs the metrics at each epoch end; an integer k logs them also every k batches,
        with the number of samples processed and the time taken.
    metrics : EvalMetric or list of EvalMetric
        The metrics to log.
    priority : scalar, default inf
        Handlers run in ascending order of priority: this one runs last, once every value it
        logs is up to date.
    """

    def __init__(self, log_interval='epoch', metrics=None, priority=float('inf')):
        super(LoggingHandler, self).__init__()
        if not isinstance(log_interval, int) and log_interval != 'epoch':
            raise ValueError("log_interval must be either an integer or string 'epoch'")
        self.metrics = _check_metrics(metrics)
        self.log_interval = log_interval
        self.priority = priority
        self.batch_index = 0
        self.current_epoch = 0
        self.processed_samples = 0
        self.log_interval_time = 0
        self.train_start = self.epoch_start = self.batch_start = time.time()

    def train_begin(self, estimator, *args, **kwargs):
        self.train_start = time.time()
        estimator.logger.info("Training begin: using optimizer %s with current learning rate %.4f ",
                              _optimizer_name(estimator.trainer), estimator.trainer.learning_rate)
        if estimator.max_epoch:
            estimator.logger.info("Train for %d epochs.", estimator.max_epoch)
        else:
            estimator.logger.info("Train for %d batches.", estimator.max_batch)
        self.current_epoch = 0
        self.batch_index = 0
        self.processed_samples = 0
        self.log_interval_time = 0

    def train_end(self, estimator, *args, **kwargs):
        msg = 'Train finished using total %ds with %d epochs. ' % (time.time() - self.train_start,
                                                                    self.current_epoch)
        estimator.logger.info((msg + _metrics_text(self.metrics)).rstrip(', '))

    def batch_begin(self, estimator, *args, **kwargs):
        if isinstance(self.log_interval, int):
            self.batch_start = time.time()

    def batch_end(self, estimator, *args, **kwargs):
        if isinstance(self.log_interval, int):
            self.log_interval_time += time.time() - self.batch_start
            self.processed_samples += kwargs['batch'][0].shape[0]
            if self.batch_index % self.log_interval == 0:
                msg = '[Epoch %d][Batch %d][Samples %s] time/interval: %.3fs ' % (
                    self.current_epoch, self.batch_index, self.processed_samples, self.log_interval_time)
                self.log_interval_time = 0
                estimator.logger.info((msg + _metrics_text(self.metrics)).rstrip(', '))
        self.batch_index += 1

    def epoch_begin(self, estimator, *args, **kwargs):
        self.epoch_start = time.time()
        # The Estimator prefixes its metric names with 'training'/'validation': that tells a
        # training epoch from a validation pass.
        if any('training' in metric.name for metric in self.metrics):
            estimator.logger.info("[Epoch %d] Begin, current learning rate: %.4f",
                                  self.current_epoch, estimator.trainer.learning_rate)
        else:
            estimator.logger.info("Validation Begin")

    def epoch_end(self, estimator, *args, **kwargs):
        msg = '[Epoch %d] Finished in %.3fs, ' % (self.current_epoch, time.time() - self.epoch_start)
        estimator.logger.info((msg + _metrics_text(self.metrics)).rstrip(', '))
        self.current_epoch += 1
        self.batch_index = 0


class EarlyStoppingHandler(TrainBegin, EpochEnd, TrainEnd):
    """Stops training when the monitored metric has not improved for ``patience`` epochs.

    Parameters
    ----------
    monitor : EvalMetric
        The metric to watch: one of ``estimator.train_metrics`` or ``estimator.val_metrics``
        (not a CompositeEvalMetric).
    min_delta : float, default 0
        The least change of the metric that counts as an improvement.
    patience : int, default 0
        Number of epochs without improvement to wait before stopping.
    mode : {'auto', 'min', 'max'}, default 'auto'
        Whether lower ('min') or higher ('max') values are better; 'auto' takes 'max' for
        every metric, as MXNet 1.9 does: give 'min' for a loss.
    baseline : float, default None
        The value the metric must improve on; by default the best value seen so far.
    """

    def __init__(self, monitor, min_delta=0, patience=0, mode='auto', baseline=None):
        super(EarlyStoppingHandler, self).__init__()
        if not isinstance(monitor, _metric.EvalMetric):
            raise ValueError("Please provide one of the metric objects from estimator.train_metrics and "
                             "estimator.val_metrics as monitor.")
        if isinstance(monitor, _metric.CompositeEvalMetric):
            raise ValueError("CompositeEvalMetric is not supported for EarlyStoppingHandler, "
                             "please specify a simple metric instead.")
        self.monitor = monitor
        self.baseline = baseline
        self.patience = patience
        self.monitor_op = _monitor_op(mode, monitor, 'EarlyStopping')
        # Improvement means monitor_op(value - min_delta, best): the delta's sign follows the mode.
        self.min_delta = min_delta if self.monitor_op is np.greater else -min_delta
        self.wait = 0
        self.stopped_epoch = 0
        self.current_epoch = 0
        self.stop_training = False
        self.best = None

    def train_begin(self, estimator, *args, **kwargs):
        self.wait = 0
        self.stopped_epoch = 0
        self.current_epoch = 0
        self.stop_training = False
        if self.baseline is not None:
            self.best = self.baseline
        else:
            self.best = np.inf if self.monitor_op is np.less else -np.inf

    def epoch_end(self, estimator, *args, **kwargs):
        name, value = self.monitor.get()
        if np.isnan(value):
            warnings.warn(RuntimeWarning(
                '%s is not updated, make sure you pass one of the metric objects from '
                'estimator.train_metrics and estimator.val_metrics as monitor.' % name))
        elif self.monitor_op(value - self.min_delta, self.best):
            self.best = value
            self.wait = 0
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = self.current_epoch
                self.stop_training = True
        self.current_epoch += 1
        return self.stop_training

    def train_end(self, estimator, *args, **kwargs):
        if self.stopped_epoch > 0:
            estimator.logger.info('[Epoch %d] EarlyStoppingHandler: early stopping due to %s not improving',
                                  self.stopped_epoch, self.monitor.get()[0])


class GradientUpdateHandler(BatchEnd):
    """Applies the gradients at every batch end: ``estimator.trainer.step(batch_size)``, the batch
    size being the number of loss values over all contexts.

    Parameters
    ----------
    priority : scalar, default -2000
        Handlers run in ascending order of priority: this one runs first.
    """

    def __init__(self, priority=-2000):
        self.priority = priority

    def batch_end(self, estimator, *args, **kwargs):
        loss = kwargs['loss']
        losses = loss if isinstance(loss, list) else [loss]
        estimator.trainer.step(sum(l.shape[0] for l in losses))
