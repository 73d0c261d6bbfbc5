"""mxnet.callback: Module.fit callbacks (Speedometer prints progress, do_checkpoint saves)."""
from ._core.callback import BatchEndParam, Speedometer, do_checkpoint

__all__ = ["BatchEndParam", "Speedometer", "do_checkpoint"]
