"""Estimator: trains and evaluates a Gluon network with a loss, metrics and a Trainer, running the
training loop for the caller and calling event handlers at each step of it.

The loop itself is short: for each epoch, for each batch, the batch processor runs the forward and
backward pass, then the BatchEnd handlers step the trainer, update the metrics, log, validate and
save checkpoints. Everything but the forward/backward pass is an event handler, so behaviour is
changed by passing handlers (see ``event_handler``) or a BatchProcessor."""
import copy
import logging
import sys
import warnings

from ...data import DataLoader
from ...loss import Loss as _GluonLoss
from ...trainer import Trainer
from .... import metric as _metric
from ....context import Context, cpu, gpu, num_gpus
from .batch_processor import BatchProcessor
from .events import _categorize_handlers
from .event_handler import (MetricHandler, ValidationHandler, LoggingHandler, StoppingHandler,
                            GradientUpdateHandler, _check_event_handlers)
from .utils import _check_metrics, _suggest_metric_for_loss, _check_handler_metric_ref

__all__ = ['Estimator']


class Estimator(object):
    """Trains ``net`` on a DataLoader with ``fit`` and evaluates it with ``evaluate``.

    Parameters
    ----------
    net : gluon.Block
        The network to train.
    loss : gluon.loss.Loss
        The loss minimized during training.
    train_metrics : EvalMetric or list of EvalMetric, default None
        Metrics computed on the training data. When none are given, the estimator uses accuracy
        (for a SoftmaxCrossEntropyLoss) and the mean loss. Their names get the prefix 'training '.
    val_metrics : EvalMetric or list of EvalMetric, default None
        Metrics computed on the validation data; by default copies of the training metrics. Their
        names get the prefix 'validation ' (replacing 'training').
    initializer : Initializer, default None
        Initializer of the parameters not initialized yet; when every parameter already is, it
        is not used (and a warning says so).
    trainer : gluon.Trainer, default None
        The trainer that updates the parameters; by default SGD with learning rate 0.001 (with a
        warning).
    context : Context or list of Context, default None
        The device(s) to run on; by default gpu(0) when there is a GPU, else cpu(). Each batch is
        split over the contexts along ``batch_axis``.
    val_net : gluon.Block, default None
        The network used for validation, by default ``net``. It typically shares ``net``'s
        parameters (``params=net.collect_params()``); the parameter names must then match, which
        for a Sequential network means adding its layers inside ``with net.name_scope():``.
    val_loss : gluon.loss.Loss, default None
        The loss computed during validation, by default ``loss``.
    batch_processor : BatchProcessor, default None
        Runs the network on each batch (``fit_batch`` and ``evaluate_batch``); by default a
        BatchProcessor.

    Attributes
    ----------
    logger : logging.Logger
        Where the handlers log. Each estimator has its own logger (level INFO) writing to the
        ``sys.stdout`` of the time it was made; add handlers to it to log elsewhere too, e.g.
        ``est.logger.addHandler(logging.FileHandler('train.log'))``.
    max_epoch, max_batch : int or None
        The number of epochs or batches ``fit`` trains for (set by ``fit``).
    """

    logger = None

    def __init__(self, net, loss, train_metrics=None, val_metrics=None, initializer=None, trainer=None,
                 context=None, val_net=None, val_loss=None, batch_processor=None):
        self.net = net
        self.loss = self._check_loss(loss)
        self._train_metrics = _check_metrics(train_metrics)
        self._val_metrics = _check_metrics(val_metrics)
        self._add_default_training_metrics()
        self._add_validation_metrics()
        self.val_loss = self.loss if val_loss is None else self._check_loss(val_loss)
        self.val_net = self.net if val_net is None else val_net

        # A Logger made directly (not logging.getLogger) belongs to this estimator alone: adding
        # handlers to it does not affect other estimators or the root logger.
        self.logger = logging.Logger(name='Estimator', level=logging.INFO)
        self.logger.addHandler(logging.StreamHandler(sys.stdout))

        self.context = self._check_context(context)
        self._initialize(initializer)
        self.trainer = self._check_trainer(trainer)
        self.batch_processor = self._check_batch_processor(batch_processor)
        self.max_epoch = None
        self.max_batch = None
        self.batch_axis = 0

    # --- checks of the constructor's arguments

    @staticmethod
    def _check_loss(loss):
        if not isinstance(loss, _GluonLoss):
            raise ValueError("loss must be a Loss, refer to gluon.loss.Loss:{}".format(loss))
        return loss

    @staticmethod
    def _check_context(context):
        """``context`` as a list of contexts that exist here; the default is one device."""
        gpus = num_gpus()
        available_gpus = [gpu(i) for i in range(gpus)]
        if not context:
            if gpus > 1:
                warnings.warn("You have multiple GPUs, gpu(0) will be used by default. To utilize all your GPUs, "
                              "specify context as a list of gpus, e.g. context=[mx.gpu(0), mx.gpu(1)] ")
            return [gpu(0)] if gpus > 0 else [cpu()]
        if isinstance(context, Context):
            context = [context]
        elif not (isinstance(context, list) and all(isinstance(c, Context) for c in context)):
            raise ValueError("context must be a Context or a list of Context, for example mx.cpu() or "
                             "[mx.gpu(0), mx.gpu(1)], refer to mxnet.Context:{}".format(context))
        for ctx in context:
            assert ctx in available_gpus or str(ctx).startswith('cpu'), \
                "%s is not available, please make sure your context is in one of: mx.cpu(), %s" % (
                    ctx, ", ".join(str(c) for c in available_gpus))
        return context

    def _is_initialized(self):
        """Whether every parameter of the network is initialized (deferred initialization counts)."""
        params = self.net.collect_params()
        for name in params:
            try:
                params[name].list_ctx()
            except RuntimeError:
                return False
        return True

    def _initialize(self, initializer):
        # Only a network with uninitialized parameters is initialized, so that pretrained or
        # partly initialized networks (fine-tuning) keep their values.
        if not self._is_initialized():
            if initializer:
                self.net.initialize(init=initializer, ctx=self.context)
            else:
                self.net.initialize(ctx=self.context)
        elif initializer:
            warnings.warn("Network already fully initialized, skipping initialization. You don't need to pass "
                          "initializer if you already initialized your net. You can use "
                          "net.initialize(init=your_initializer, force_reinit=True)to force re-initialize.")

    def _check_trainer(self, trainer):
        if not trainer:
            warnings.warn("No trainer specified, default SGD optimizer with learning rate 0.001 is used.")
            return Trainer(self.net.collect_params(), 'sgd', {'learning_rate': 0.001})
        if not isinstance(trainer, Trainer):
            raise ValueError("Trainer must be a Gluon Trainer instance, refer to gluon.Trainer:{}".format(trainer))
        return trainer

    @staticmethod
    def _check_batch_processor(batch_processor):
        if batch_processor is None:
            return BatchProcessor()
        if not (callable(getattr(batch_processor, 'fit_batch', None)) and
                callable(getattr(batch_processor, 'evaluate_batch', None))):
            raise ValueError('Customized Batch Processor must contain fit_batch() and evaluate_batch() methods')
        return batch_processor

    # --- metrics

    def _add_default_training_metrics(self):
        if not self._train_metrics:
            suggested = _suggest_metric_for_loss(self.loss)
            if suggested:
                self._train_metrics = [suggested]
            # The loss metric is named after the loss block without its instance number
            # ('l2loss0' -> 'l2loss').
            self._train_metrics.append(_metric.Loss(self.loss.name.rstrip('1234567890')))
        # The prefixes tell handlers (logging) training metrics from validation ones.
        for metric in self._train_metrics:
            metric.name = 'training ' + metric.name

    def _add_validation_metrics(self):
        if not self._val_metrics:
            self._val_metrics = [copy.deepcopy(metric) for metric in self._train_metrics]
        for metric in self._val_metrics:
            if 'training' in metric.name:
                metric.name = metric.name.replace('training', 'validation')
            else:
                metric.name = 'validation ' + metric.name

    @property
    def train_metrics(self):
        """The training metrics (a list of EvalMetric), updated during ``fit``."""
        return self._train_metrics

    @property
    def val_metrics(self):
        """The validation metrics (a list of EvalMetric), updated by ``evaluate``."""
        return self._val_metrics

    # --- evaluation and training

    @staticmethod
    def _check_data_loader(data, what):
        if not isinstance(data, DataLoader):
            raise ValueError("Estimator only support input as Gluon DataLoader. Alternatively, you can transform "
                             "your DataIter or any NDArray into Gluon DataLoader. Refer to gluon.data.%s" % what)

    def evaluate(self, val_data, batch_axis=0, event_handlers=None):
        """Runs ``val_net`` over ``val_data`` once and updates the validation metrics.

        For each batch, ``batch_processor.evaluate_batch`` computes the predictions and the
        validation loss; the handlers' EpochBegin, BatchBegin, BatchEnd and EpochEnd methods are
        called around the pass.

        Parameters
        ----------
        val_data : DataLoader
            The validation data (batches of data and label).
        batch_axis : int, default 0
            The axis along which batches are split over the contexts.
        event_handlers : EventHandler or list of EventHandler, default None
            Handlers of this pass. A MetricHandler and a LoggingHandler over the validation
            metrics are added unless one of that kind is given.
        """
        self._check_data_loader(val_data, "DataLoader")
        for metric in self.val_metrics:
            metric.reset()
        handlers = self._prepare_default_validation_handlers(event_handlers)
        _, epoch_begin, batch_begin, batch_end, epoch_end, _ = self._categorize_handlers(handlers)

        for handler in epoch_begin:
            handler.epoch_begin(self)
        for batch in val_data:
            for handler in batch_begin:
                handler.batch_begin(self, batch=batch)
            _, label, pred, loss = self.batch_processor.evaluate_batch(self, batch, batch_axis)
            for handler in batch_end:
                handler.batch_end(self, batch=batch, pred=pred, label=label, loss=loss)
        for handler in epoch_end:
            handler.epoch_end(self)

    def fit(self, train_data, val_data=None, epochs=None, event_handlers=None, batches=None, batch_axis=0):
        """Trains the network on ``train_data`` for ``epochs`` epochs or ``batches`` batches
        (exactly one of the two).

        For each batch, ``batch_processor.fit_batch`` runs the forward and backward pass; the
        handlers do the rest (the trainer step, metrics, logging, validation, checkpoints). An
        EpochEnd or BatchEnd handler returning True stops training.

        Parameters
        ----------
        train_data : DataLoader
            The training data (batches of data and label).
        val_data : DataLoader, default None
            Validation data, evaluated at the end of every epoch by a default ValidationHandler.
        epochs : int, default None
            Number of epochs to train.
        event_handlers : EventHandler or list of EventHandler, default None
            Handlers of the training. A StoppingHandler is always added; a GradientUpdateHandler,
            a MetricHandler, a LoggingHandler and (with ``val_data``) a ValidationHandler are
            added unless one of that kind is given.
        batches : int, default None
            Number of batches to train (epochs restart the data as needed).
        batch_axis : int, default 0
            The axis along which batches are split over the contexts.
        """
        self._check_data_loader(train_data, "dataloader")
        if (not epochs) == (not batches):
            raise ValueError("Fit only support exactly one type of iteration, train by number of epochs or number "
                             "of batches.Please specify one and only one of: epochs or batches.")
        self.max_epoch = epochs
        self.max_batch = batches
        self.batch_axis = batch_axis

        handlers = self._prepare_default_handlers(val_data, event_handlers)
        train_begin, epoch_begin, batch_begin, batch_end, epoch_end, train_end = self._categorize_handlers(handlers)

        for handler in train_begin:
            handler.train_begin(self)
        stop = False
        while not stop:
            for handler in epoch_begin:
                handler.epoch_begin(self)
            for batch in train_data:
                for handler in batch_begin:
                    handler.batch_begin(self, batch=batch)
                _, label, pred, loss = self.batch_processor.fit_batch(self, batch, batch_axis)
                # Every handler sees the batch even when an earlier one asks to stop.
                results = [handler.batch_end(self, batch=batch, pred=pred, label=label, loss=loss)
                           for handler in batch_end]
                if any(results):
                    break
            results = [handler.epoch_end(self) for handler in epoch_end]
            stop = any(results)
        for handler in train_end:
            handler.train_end(self)

    # --- event handlers

    def _add_default_handlers(self, handlers, defaults, known_metrics, always=()):
        """The caller's ``handlers``, the ``always`` ones, and the ``defaults`` (kind, factory) whose
        kind is not among the caller's, sorted by priority. When the caller's handlers and defaults
        are mixed, every metric a handler refers to must be one of ``known_metrics``: a handler
        holding another metric would log or monitor values nobody updates."""
        added = list(always) + [make() for kind, make in defaults
                                if not any(isinstance(h, kind) for h in handlers)]
        mixing = bool(handlers) and bool(added)
        handlers = handlers + added
        if mixing:
            for handler in handlers:
                _check_handler_metric_ref(handler, known_metrics)
        # sort is stable: handlers of equal priority keep the order given, the caller's first.
        handlers.sort(key=lambda handler: getattr(handler, 'priority', 0))
        return handlers

    def _prepare_default_handlers(self, val_data, event_handlers):
        """The handlers of ``fit``: the caller's plus the default ones, sorted by priority."""
        defaults = [(GradientUpdateHandler, GradientUpdateHandler),
                    (MetricHandler, lambda: MetricHandler(metrics=self.train_metrics))]
        if val_data:
            defaults.append((ValidationHandler, lambda: ValidationHandler(val_data=val_data, eval_fn=self.evaluate)))
        defaults.append((LoggingHandler, lambda: LoggingHandler(metrics=self.train_metrics)))
        # The StoppingHandler that ends fit after max_epoch/max_batch is always added.
        return self._add_default_handlers(_check_event_handlers(event_handlers), defaults,
                                          set(self.train_metrics + self.val_metrics),
                                          always=[StoppingHandler(self.max_epoch, self.max_batch)])

    def _prepare_default_validation_handlers(self, event_handlers):
        """The handlers of ``evaluate``: the caller's plus the default ones, sorted by priority."""
        handlers = _check_event_handlers(event_handlers)
        defaults = [(MetricHandler, lambda: MetricHandler(metrics=self.val_metrics)),
                    (LoggingHandler, lambda: LoggingHandler(metrics=self.val_metrics))]
        return self._add_default_handlers(handlers, defaults, set(self.val_metrics))

    def _categorize_handlers(self, event_handlers):
        """(train_begin, epoch_begin, batch_begin, batch_end, epoch_end, train_end): the handlers
        of each event, so that each event calls only the handlers that implement it."""
        return _categorize_handlers(event_handlers)
