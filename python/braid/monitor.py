"""mxnet.monitor (``mx.mon``): statistics of every array an executor computes, for debugging.

``Monitor(interval, stat_func, pattern, sort, monitor_all)`` is installed on executors (Module's
``install_monitor`` does it); between ``tic()`` and ``toc()`` of every ``interval``-th batch it
collects ``stat_func(array)`` for each node output (and each node input with ``monitor_all``) whose
name matches ``pattern``, then for the executors' arguments. ``toc()`` returns
``[(batch, name, text)]``; ``toc_print()`` logs the same.
"""
import logging
import math
import re

from . import ndarray
from .ndarray import NDArray

__all__ = ["Monitor"]


def _default_stat(x):
    """The norm of the array scaled by the square root of its size: an RMS value."""
    return ndarray.norm(x) / math.sqrt(x.size)


class Monitor(object):
    """Collects ``stat_func`` of the arrays whose names match ``pattern``, every ``interval``
    batches (see the module's docstring)."""

    def __init__(self, interval, stat_func=None, pattern='.*', sort=False, monitor_all=False):
        self.interval = interval
        self.stat_func = stat_func if stat_func is not None else _default_stat
        self.re_prog = re.compile(pattern)
        self.sort = sort
        self.monitor_all = monitor_all
        self.activated = False
        self.queue = []
        self.step = 0
        self.exes = []

    def stat_helper(self, name, array):
        """The executors' callback: records the statistic of ``array`` while active."""
        if not isinstance(name, str):
            name = name.decode()
        if self.activated and self.re_prog.match(name):
            self.queue.append((self.step, name, self.stat_func(array)))

    def install(self, exe):
        """Makes ``exe`` report its arrays to this monitor."""
        exe.set_monitor_callback(self.stat_helper, self.monitor_all)
        self.exes.append(exe)

    def _wait_for_arguments(self):
        for exe in self.exes:
            for array in list(exe.arg_arrays) + list(exe.aux_arrays):
                array.wait_to_read()

    def tic(self):
        """Starts collecting, if this batch is one of every ``interval``."""
        if self.step % self.interval == 0:
            self._wait_for_arguments()
            self.queue = []
            self.activated = True
        self.step += 1

    def toc(self):
        """Stops collecting; returns ``[(batch, name, text)]``, the arguments' statistics last."""
        if not self.activated:
            return []
        self._wait_for_arguments()
        for exe in self.exes:
            for name, array in zip(exe._symbol.list_arguments(), exe.arg_arrays):
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
        self.activated = False
        collected, self.queue = self.queue, []
        if self.sort:
            collected.sort(key=lambda entry: entry[1])
        return [(step, name, _describe(stats)) for step, name, stats in collected]

    def toc_print(self):
        """``toc()``, logged one line per array."""
        for step, name, text in self.toc():
            logging.info('Batch: {:7d} {:30s} {:s}'.format(step, name, text))


def _describe(stats):
    """The statistic(s) as text: a scalar as a number, anything else as its NumPy form, each
    followed by a tab."""
    arrays = stats if isinstance(stats, list) else [stats]
    text = ''
    for value in arrays:
        if not isinstance(value, NDArray):
            raise TypeError("Monitor: stat_func must return an NDArray or a list of them, got %r" % (value,))
        text += (str(value.asscalar()) if value.shape == (1,) else str(value.asnumpy())) + '\t'
    return text
