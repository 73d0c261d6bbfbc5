"""mxnet.callback: callbacks for Module.fit and FeedForward.fit. Batch-end callbacks receive a
BatchEndParam (epoch, nbatch, eval_metric, locals): Speedometer logs the speed and the metric
every `frequent` batches, ProgressBar draws a bar, log_train_metric logs the metric.
Epoch-end callbacks: do_checkpoint and module_checkpoint save the model every `period` epochs.
Messages go to the `logging` module at INFO level, as MXNet's."""
import logging
import math
import sys
import time

from ._core.callback import do_checkpoint

__all__ = ["Speedometer", "ProgressBar", "LogValidationMetricsCallback", "log_train_metric", "do_checkpoint",
           "module_checkpoint"]


def _metric_text(name_values):
    return "".join("\t%s=%f" % (name, value) for name, value in name_values)


class Speedometer:
    """Logs the samples per second and the training metric every `frequent` batches; with
    `auto_reset` the metric's local tally restarts after each report (the reported value covers
    the last `frequent` batches)."""

    def __init__(self, batch_size, frequent=50, auto_reset=True):
        self.batch_size = batch_size
        self.frequent = frequent
        self.auto_reset = auto_reset
        self.init = False
        self.tic = 0.0
        self.last_count = 0

    def __call__(self, param):
        count = param.nbatch
        if self.last_count > count:  # a new epoch began
            self.init = False
        self.last_count = count
        if not self.init:
            self.init = True
            self.tic = time.time()
            return
        if count % self.frequent != 0:
            return
        elapsed = time.time() - self.tic
        speed = self.frequent * self.batch_size / elapsed if elapsed > 0 else math.inf
        if param.eval_metric is not None:
            name_values = param.eval_metric.get_name_value()
            if self.auto_reset:
                param.eval_metric.reset_local()
            logging.info("Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec%s", param.epoch, count - self.frequent,
                         count, speed, _metric_text(name_values))
        else:
            logging.info("Iter[%d] Batch [%d]\tSpeed: %.2f samples/sec", param.epoch, count, speed)
        self.tic = time.time()


class ProgressBar:
    """Draws `[====----] 50%` on stderr for batch nbatch of `total`, `length` characters wide."""

    def __init__(self, total, length=80):
        self.total = total
        self.bar_len = length

    def __call__(self, param):
        done = min(param.nbatch, self.total)
        filled = int(round(self.bar_len * done / float(self.total))) if self.total else self.bar_len
        percent = int(math.ceil(100.0 * done / float(self.total))) if self.total else 100
        sys.stderr.write("[%s] %s%%\r" % ("=" * filled + "-" * (self.bar_len - filled), percent))
        sys.stderr.flush()


class LogValidationMetricsCallback:
    """Logs the validation metric at the end of each epoch (an eval_end_callback)."""

    def __call__(self, param):
        if param.eval_metric is None:
            return
        for name, value in param.eval_metric.get_name_value():
            logging.info("Epoch[%d] Validation-%s=%f", param.epoch, name, value)


def log_train_metric(period, auto_reset=False):
    """A batch-end callback logging the training metric every `period` batches."""
    def _callback(param):
        if param.nbatch % period == 0 and param.eval_metric is not None:
            for name, value in param.eval_metric.get_name_value():
                logging.info("Iter[%d] Batch[%d] Train-%s=%f", param.epoch, param.nbatch, name, value)
            if auto_reset:
                param.eval_metric.reset_local()
    return _callback


def module_checkpoint(mod, prefix, period=1, save_optimizer_states=False):
    """An epoch-end callback saving `mod` as `prefix-symbol.json` and `prefix-<epoch>.params` (and
    `.states`) every `period` epochs."""
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            mod.save_checkpoint(prefix, iter_no + 1, save_optimizer_states)
    return _callback
