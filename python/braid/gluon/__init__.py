"""mxnet.gluon: blocks, parameters, losses, the Trainer and data loading."""
from .parameter import Parameter, ParameterDict
from .block import Block, HybridBlock, SymbolBlock
from .trainer import Trainer
from . import nn, loss, utils, data
from .. import metric
