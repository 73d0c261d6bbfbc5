"""mxnet.gluon: blocks, parameters, losses, the Trainer and data loading (MXNet's layout)."""
from .parameter import Parameter, Constant, ParameterDict, DeferredInitializationError
from .block import Block, HybridBlock, SymbolBlock
from .trainer import Trainer
from . import nn, loss, utils, data, model_zoo, contrib, rnn
from .. import metric
