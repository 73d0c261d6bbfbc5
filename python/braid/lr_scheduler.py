"""mxnet.lr_scheduler: learning-rate schedules given to an optimizer (``lr_scheduler=``)."""
from ._core.lr_scheduler import (LRScheduler, FactorScheduler, MultiFactorScheduler, PolyScheduler,
                                 CosineScheduler, _deserialize)


def _from_serialized(json):
    return _deserialize(json)


def _reduce(self):
    """Pickled as its serialization: type, parameters and the state reached (so an optimizer of
    the user's, which the parameter server's servers get as a pickle, keeps its schedule)."""
    return (_from_serialized, (self._serialize(),))


LRScheduler.__reduce__ = _reduce

__all__ = ["LRScheduler", "FactorScheduler", "MultiFactorScheduler", "PolyScheduler", "CosineScheduler"]
