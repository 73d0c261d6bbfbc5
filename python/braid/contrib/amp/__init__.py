"""Automatic mixed precision (MXNet's mx.contrib.amp): ``amp.init()`` before building the model
casts each operator's inputs by its category (the big products in float16 or bfloat16, the
numerically sensitive ops in float32, mixed inputs to their widest type), and ``init_trainer`` /
``scale_loss`` scale the loss dynamically so that float16 gradients do not underflow.

    amp.init()
    net = ...; net.initialize(ctx=mx.gpu(0)); net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {...})
    amp.init_trainer(trainer)
    with autograd.record():
        loss = loss_fn(net(x), y)
        with amp.scale_loss(loss, trainer) as scaled:
            autograd.backward(scaled)
    trainer.step(batch_size)      # skipped, with a smaller scale, when a gradient overflowed

``convert_symbol``, ``convert_model``, ``convert_hybrid_block`` and ``convert_bucketing_module`` convert a float32 model ahead of
time instead, with casts in its graph (convert.py).
"""
from . import lists
from .amp import *  # noqa: F401,F403
from .amp import __all__ as _amp_all
from .convert import convert_symbol, convert_model, convert_hybrid_block, convert_bucketing_module
from .loss_scaler import LossScaler
from . import amp  # noqa: F401 (MXNet's mx.contrib.amp.amp module)

__all__ = list(_amp_all) + ["convert_symbol", "convert_model", "convert_hybrid_block", "convert_bucketing_module",
                            "LossScaler", "lists"]
