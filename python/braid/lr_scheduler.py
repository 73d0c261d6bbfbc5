"""mxnet.lr_scheduler: learning-rate schedules given to an optimizer (``lr_scheduler=``)."""
from ._core.lr_scheduler import (LRScheduler, FactorScheduler, MultiFactorScheduler, PolyScheduler,
                                 CosineScheduler)

__all__ = ["LRScheduler", "FactorScheduler", "MultiFactorScheduler", "PolyScheduler", "CosineScheduler"]
