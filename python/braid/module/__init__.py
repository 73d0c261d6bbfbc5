"""mxnet.module (``mod``): the symbolic training API. Module trains a symbol on one or several
devices; BucketingModule switches between symbols of one family (sequence lengths) sharing their
parameters; BaseModule is what both offer (fit, score, predict)."""
from .base_module import BaseModule
from .module import Module
from .bucketing_module import BucketingModule
from .executor_group import DataParallelExecutorGroup

__all__ = ["BaseModule", "Module", "BucketingModule", "DataParallelExecutorGroup"]
