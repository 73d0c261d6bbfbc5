"""mx.contrib.amp's functions: init, init_trainer, scale_loss, unscale and the op lists."""
import contextlib
import logging

import numpy as _np

from ... import _core
from ...gluon import trainer as _trainer
from . import lists as _lists
from .loss_scaler import LossScaler

__all__ = ["init", "init_trainer", "scale_loss", "unscale", "list_lp16_ops", "list_fp32_ops",
           "list_conditional_fp32_ops", "list_widest_type_cast", "list_loss_output_functions"]

_state = {"initialized": False, "loss_scaler": None, "scaler_taken": False}


def _dtype_name(target_dtype):
    name = target_dtype if isinstance(target_dtype, str) else _np.dtype(target_dtype).name
    if name not in ("float16", "bfloat16"):
        raise ValueError("AMP currently supports only float16 or bfloat16 as a target_dtype, got %r"
                         % (target_dtype,))
    return name


def init(target_dtype="float16", target_precision_ops=None, conditional_fp32_ops=None, fp32_ops=None):
    """Turns AMP on for every later operator call (call it before building the model). The
    lists override Braid's: ops run in ``target_dtype``, ``(op, attribute, [values])`` run in
    float32 for those values, ops run in float32. Later calls do nothing, as in MXNet."""
    if _state["initialized"]:
        return
    name = _dtype_name(target_dtype)
    lists = _core.amp.default_lists(name)
    if target_precision_ops is not None:
        lists.target_dtype_ops = list(target_precision_ops)
    if conditional_fp32_ops is not None:
        lists.conditional_fp32_ops = [(op, attr, list(values)) for op, attr, values in conditional_fp32_ops]
    if fp32_ops is not None:
        lists.fp32_ops = list(fp32_ops)
    _core.amp.init(name, lists)
    _state.update(initialized=True, loss_scaler=LossScaler(), scaler_taken=False)
    logging.info("Using AMP")


def _reset():
    """Turns AMP off again (for tests; MXNet cannot)."""
    _core.amp.reset()
    _state.update(initialized=False, loss_scaler=None, scaler_taken=False)


def init_trainer(optimizer_or_trainer):
    """Gives a Gluon Trainer dynamic loss scaling: scale_loss multiplies the loss, and step()
    divides the gradients by the same scale, or skips the update when one overflowed."""
    if not _state["initialized"]:
        raise AssertionError("AMP not initialized, did you forget to call amp.init()?")
    if not isinstance(optimizer_or_trainer, _trainer.Trainer):
        raise TypeError("AMP is currently only compatible with Gluon Trainer, got %s" % type(optimizer_or_trainer))
    if _state["scaler_taken"]:
        scaler = LossScaler()
    else:
        scaler, _state["scaler_taken"] = _state["loss_scaler"], True
    optimizer_or_trainer._amp_loss_scaler = scaler
    optimizer_or_trainer._amp_original_scale = optimizer_or_trainer._scale


@contextlib.contextmanager
def scale_loss(loss, optimizer_or_trainer):
    """Yields the loss (or list of losses) multiplied by the trainer's loss scale; the trainer's
    next step divides the gradients by it."""
    scaler = getattr(optimizer_or_trainer, "_amp_loss_scaler", None)
    if scaler is None:
        raise AssertionError("Loss scaler is not initialized, did you forget to call amp.init_trainer()?")
    optimizer_or_trainer._scale = optimizer_or_trainer._amp_original_scale / scaler.loss_scale
    if isinstance(loss, (list, tuple)):
        yield [l * scaler.loss_scale for l in loss]
    else:
        yield scaler.loss_scale * loss


def unscale(optimizer_or_trainer):
    """Divides the gradients by the loss scale now (to clip them, for instance); the next step
    then does not."""
    if not isinstance(optimizer_or_trainer, _trainer.Trainer):
        raise TypeError("AMP is currently only compatible with Gluon Trainer, got %s" % type(optimizer_or_trainer))
    for p in optimizer_or_trainer._params:
        if p.grad_req == "null":
            continue
        for g in p.list_grad():
            g[:] *= optimizer_or_trainer._scale
    optimizer_or_trainer._scale = 1.


def _list_module(target_dtype):
    return _lists.symbol_fp16 if _dtype_name(target_dtype) == "float16" else _lists.symbol_bf16


def list_lp16_ops(target_dtype):
    """Ops run in target_dtype."""
    module = _list_module(target_dtype)
    return list(module.FP16_FUNCS if module is _lists.symbol_fp16 else module.BF16_FUNCS)


def list_fp32_ops(target_dtype):
    """Ops run in float32."""
    return list(_list_module(target_dtype).FP32_FUNCS)


def list_conditional_fp32_ops(target_dtype):
    """(op, attribute, values) run in float32 for those values."""
    return list(_list_module(target_dtype).CONDITIONAL_FP32_FUNCS)


def list_widest_type_cast(target_dtype):
    """Ops whose inputs are cast to their widest dtype."""
    return list(_list_module(target_dtype).WIDEST_TYPE_CASTS)


def list_loss_output_functions(target_dtype):
    """Loss outputs (their gradient is scaled)."""
    return list(_list_module(target_dtype).LOSS_OUTPUT_FUNCTIONS)
