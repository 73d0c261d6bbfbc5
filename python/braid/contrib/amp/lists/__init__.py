"""The operator lists of AMP, per target dtype (symbol_fp16, symbol_bf16)."""
from . import symbol_bf16, symbol_fp16

__all__ = ["symbol_fp16", "symbol_bf16"]
