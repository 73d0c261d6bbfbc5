"""CheckpointHandler: saves the model and trainer during training, keeps the best one, and resumes
an interrupted training from the last checkpoint.

Files, in ``model_dir``:

- ``{prefix}-epoch{E}batch{B}.params`` / ``.states``: the parameters (``net.save_parameters``)
  and trainer states (``trainer.save_states``) after epoch E, B batches into training (both
  counted from 0; B counts the batches done at an epoch-end save, the batch's index at a
  batch-end save);
- ``{prefix}-best.params`` / ``.states``: the checkpoint with the best monitored value;
- ``{prefix}-symbol.json``: the graph of a hybridized network, written after the first batch.
"""
import os
import re
import warnings

import numpy as np

from .... import metric as _metric
from .events import TrainBegin, BatchEnd, EpochEnd
from .utils import _monitor_op

__all__ = ['CheckpointHandler']


def _traced_graph(net):
    """The symbol a hybridized ``net`` traced on its first call, or None (not hybridized, or a
    plain Block)."""
    cached = getattr(net, '_cached_graph', None)  # MXNet's (inputs, outputs)
    if cached:
        return cached[1]
    if getattr(net, '_hybridized', False) and hasattr(net, '_traced_symbol'):
        graph = net._traced_symbol()
        if graph is not None and graph.list_outputs():
            return graph
    return None


class CheckpointHandler(TrainBegin, BatchEnd, EpochEnd):
    """Saves the network's parameters and the trainer's states every ``epoch_period`` epochs and/or
    every ``batch_period`` batches, keeps the latest ``max_checkpoints`` of them and, with
    ``save_best``, the one with the best ``monitor`` value.

    Parameters
    ----------
    model_dir : str
        Folder of the checkpoint files; created when missing.
    model_prefix : str, default 'model'
        Start of every checkpoint file name.
    monitor : EvalMetric, default None
        The metric that tells the best model: one of ``estimator.train_metrics`` or
        ``estimator.val_metrics``.
    verbose : int, default 0
        1 logs every save.
    save_best : bool, default False
        Also save ``{prefix}-best.params``/``.states`` whenever ``monitor`` improves.
    mode : {'auto', 'min', 'max'}, default 'auto'
        With ``save_best``: whether lower ('min') or higher ('max') values are better; 'auto'
        takes 'max' for every metric, as MXNet 1.9 does: give 'min' for a loss.
    epoch_period : int, default 1
        Save after every this many epochs (None: never at epoch end).
    batch_period : int, default None
        Save after every this many batches (None: never at batch end).
    max_checkpoints : int, default 5
        How many epoch/batch checkpoints to keep; older ones are deleted. The best one does
        not count.
    resume_from_checkpoint : bool, default False
        At train begin, load the latest ``{prefix}-epoch{E}batch{B}`` checkpoint in ``model_dir``
        and train only the remaining epochs (or batches) of ``fit``. The checkpoints must have
        been saved with the same kind of period (epochs or batches) that ``fit`` counts.
    """

    def __init__(self, model_dir, model_prefix='model', monitor=None, verbose=0, save_best=False,
                 mode='auto', epoch_period=1, batch_period=None, max_checkpoints=5,
                 resume_from_checkpoint=False):
        if save_best and not isinstance(monitor, _metric.EvalMetric):
            raise ValueError("To save best model only, please provide one of the metric objects "
                             "from estimator.train_metrics and estimator.val_metrics as monitor.")
        os.makedirs(model_dir, exist_ok=True)
        self.model_dir = model_dir
        self.model_prefix = model_prefix
        self.monitor = monitor
        self.verbose = verbose
        self.save_best = save_best
        self.epoch_period = epoch_period
        self.batch_period = batch_period
        self.max_checkpoints = max_checkpoints
        self.resume_from_checkpoint = resume_from_checkpoint
        self.current_batch = 0
        self.current_epoch = 0
        self.trained_epoch = -1
        self.trained_batch = -1
        self.saved_checkpoints = []
        if save_best:
            self.monitor_op = _monitor_op(mode, monitor, 'ModelCheckpoint')
            self.best = self._worst()

    def _worst(self):
        return np.inf if self.monitor_op is np.less else -np.inf

    # --- events

    def train_begin(self, estimator, *args, **kwargs):
        self.current_epoch = 0
        self.current_batch = 0
        if self.save_best:
            self.best = self._worst()
        if self.resume_from_checkpoint:
            # The file names count epochs or batches; resuming needs the same count fit uses.
            error_msg = "To use resume from checkpoint, you must only specify the same type of period you " \
                        "used for training. For example, if you are training based on number of epochs, you " \
                        "must save only based on epochs, and set batch_period to None."
            if estimator.max_batch:
                assert self.batch_period, error_msg
                assert not self.epoch_period, error_msg
            if estimator.max_epoch:
                assert self.epoch_period, error_msg
                assert not self.batch_period, error_msg
            self._resume(estimator)

    def batch_end(self, estimator, *args, **kwargs):
        if self.current_batch == 0:
            self._save_symbol(estimator)
        if self.batch_period and (self.current_batch + 1) % self.batch_period == 0:
            self._save_checkpoint(estimator)
        self.current_batch += 1

    def epoch_end(self, estimator, *args, **kwargs):
        if self.epoch_period and (self.current_epoch + 1) % self.epoch_period == 0:
            self._save_checkpoint(estimator)
        self.current_epoch += 1

    # --- saving

    def _checkpoint_numbers(self, estimator):
        """(epoch, batch) of the checkpoint saved now, counted over the resumed training too."""
        if not self.resume_from_checkpoint:
            return self.current_epoch, self.current_batch
        epoch = self.current_epoch + self.trained_epoch + 1
        # An epoch-end save comes after the batch counter moved on; a batch-end save before.
        batch = self.current_batch + self.trained_batch + (0 if estimator.max_epoch else 1)
        return epoch, batch

    def _save_checkpoint(self, estimator):
        prefix = "%s-epoch%dbatch%d" % ((self.model_prefix,) + self._checkpoint_numbers(estimator))
        self._save_params_and_trainer(estimator, prefix)
        self.saved_checkpoints.append(prefix)
        while len(self.saved_checkpoints) > self.max_checkpoints:
            self._remove_checkpoint(self.saved_checkpoints.pop(0))
        if self.verbose > 0:
            estimator.logger.info('[Epoch %d] CheckpointHandler: trained total %d batches, '
                                  'saving model at %s with prefix: %s',
                                  self.current_epoch, self.current_batch + 1, self.model_dir, prefix)
        if self.save_best:
            self._save_if_best(estimator)

    def _save_if_best(self, estimator):
        name, value = self.monitor.get()
        if np.isnan(value):
            warnings.warn(RuntimeWarning(
                'Skipping save best because %s is not updated, make sure you pass one of the metric '
                'objects estimator.train_metrics and estimator.val_metrics as monitor' % name))
        elif self.monitor_op(value, self.best):
            prefix = self.model_prefix + '-best'
            self._save_params_and_trainer(estimator, prefix)
            if self.verbose > 0:
                estimator.logger.info('[Epoch %d] CheckpointHandler: %s improved from %0.5f to %0.5f, '
                                      'updating best model at %s with prefix: %s',
                                      self.current_epoch, name, self.best, value, self.model_dir, prefix)
            self.best = value
        elif self.verbose > 0:
            estimator.logger.info('[Epoch %d] CheckpointHandler: %s did not improve from %0.5f, '
                                  'skipping updating best model', self.current_epoch, name, self.best)

    def _save_symbol(self, estimator):
        symbol_file = os.path.join(self.model_dir, self.model_prefix + '-symbol.json')
        graph = _traced_graph(estimator.net)
        if graph is not None:
            graph.save(symbol_file)
        else:
            estimator.logger.info(
                "Model architecture(symbol file) is not saved, please use HybridBlock to construct your "
                "model, and call net.hybridize() before passing to Estimator in order to save model "
                "architecture as %s.", symbol_file)

    def _save_params_and_trainer(self, estimator, prefix):
        path = os.path.join(self.model_dir, prefix)
        estimator.net.save_parameters(path + '.params')
        estimator.trainer.save_states(path + '.states')

    def _remove_checkpoint(self, prefix):
        for ext in ('.params', '.states'):
            path = os.path.join(self.model_dir, prefix + ext)
            if os.path.exists(path):
                os.remove(path)

    # --- resuming

    def _find_checkpoints(self):
        """[(epoch, batch)] of the checkpoints of this prefix in model_dir, oldest first."""
        pattern = re.compile(re.escape(self.model_prefix) + r'-epoch(\d+)batch(\d+)\.params$')
        start = self.model_prefix + '-epoch'
        found = []
        for fname in os.listdir(self.model_dir):
            if not (fname.startswith(start) and fname.endswith('.params')):
                continue
            match = pattern.match(fname)
            if not match:
                raise ValueError("Error parsing checkpoint file, please check your checkpoints have the format: "
                                 "{model_name}-epoch{epoch_number}batch{batch_number}.params, there should also "
                                 "be a .states file for each .params file ")
            found.append((int(match.group(1)), int(match.group(2))))
        return sorted(found)

    def _resume(self, estimator):
        checkpoints = self._find_checkpoints()
        # The checkpoints found count towards max_checkpoints, so that old ones are cleaned up too.
        self.saved_checkpoints = ["%s-epoch%dbatch%d" % (self.model_prefix, e, b) for e, b in checkpoints]
        if not checkpoints:
            self.trained_epoch = self.trained_batch = -1
            estimator.logger.info("CheckpointHandler: No checkpoint found, training from scratch for %s",
                                  "%d batches" % estimator.max_batch if estimator.max_batch
                                  else "%d epochs" % estimator.max_epoch)
            return
        self.trained_epoch, self.trained_batch = checkpoints[-1]
        msg = "CheckpointHandler: Checkpoint resumed from epoch %d batch %d, continue to train for " % (
            self.trained_epoch, self.trained_batch)
        for unit, units, trained in (("epoch", "epochs", self.trained_epoch), ("batch", "batches", self.trained_batch)):
            limit = getattr(estimator, "max_" + unit)
            if not limit:
                continue
            if trained >= limit - 1:
                raise ValueError("Found checkpoint with maximum number of %s %d reached, please specify "
                                 "resume_from_checkpoint=False (default value) if you want to train from scratch."
                                 % (unit, limit))
            setattr(estimator, "max_" + unit, limit - trained - 1)
            msg += "%d %s " % (limit - trained - 1, units)
        path = os.path.join(self.model_dir, self.saved_checkpoints[-1])
        for ext in ('.params', '.states'):
            assert os.path.exists(path + ext), "Failed to load checkpoint, %s does not exist" % (path + ext)
        estimator.net.load_parameters(path + '.params', ctx=estimator.context)
        estimator.trainer.load_states(path + '.states')
        estimator.logger.warning(msg)
