"""The six moments of training an event handler can act on, one base class each.

An event handler is an object of a class derived from one or more of TrainBegin, TrainEnd,
EpochBegin, EpochEnd, BatchBegin and BatchEnd; the Estimator calls the matching method of every
handler at that moment, passing itself as ``estimator``. ``epoch_end`` and ``batch_end`` may
return True to ask the Estimator to stop training. Handlers run in ascending order of their
``priority`` attribute (0 when they have none)."""

__all__ = ['TrainBegin', 'TrainEnd', 'EpochBegin', 'EpochEnd', 'BatchBegin', 'BatchEnd']


class EventHandler(object):
    """The common base of all event handlers."""


class TrainBegin(EventHandler):
    """Called once before the first epoch of ``Estimator.fit``."""

    def train_begin(self, estimator, *args, **kwargs):
        pass


class TrainEnd(EventHandler):
    """Called once when ``Estimator.fit`` has finished training."""

    def train_end(self, estimator, *args, **kwargs):
        pass


class EpochBegin(EventHandler):
    """Called at the start of every epoch (and of every ``Estimator.evaluate`` pass)."""

    def epoch_begin(self, estimator, *args, **kwargs):
        pass


class EpochEnd(EventHandler):
    """Called at the end of every epoch; returning True stops training."""

    def epoch_end(self, estimator, *args, **kwargs):
        return False


class BatchBegin(EventHandler):
    """Called before every batch, with the keyword argument ``batch``."""

    def batch_begin(self, estimator, *args, **kwargs):
        pass


class BatchEnd(EventHandler):
    """Called after every batch, with the keyword arguments ``batch``, ``pred``, ``label`` and
    ``loss`` (the last three lists with one NDArray per context); returning True ends the epoch
    early and stops training."""

    def batch_end(self, estimator, *args, **kwargs):
        return False


def _check_event_handlers(handlers):
    """``handlers`` as a new list of event handlers (None gives [], one handler a one-item list);
    ValueError when something in it is not an event handler. The caller's list is not changed."""
    if isinstance(handlers, EventHandler):
        return [handlers]
    handlers = list(handlers) if handlers else []
    if not all(isinstance(h, EventHandler) for h in handlers):
        raise ValueError("handlers must be an EventHandler or a list of EventHandler, "
                         "got: {}".format(handlers))
    return handlers


def _categorize_handlers(handlers):
    """The handlers of each event, in the order given: (train_begin, epoch_begin, batch_begin,
    batch_end, epoch_end, train_end). A handler is listed under an event only when it derives
    from that event's class, so that no empty method is called."""
    kinds = (TrainBegin, EpochBegin, BatchBegin, BatchEnd, EpochEnd, TrainEnd)
    return tuple([h for h in handlers if isinstance(h, kind)] for kind in kinds)
