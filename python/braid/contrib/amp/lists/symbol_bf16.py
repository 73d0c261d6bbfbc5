"""AMP's operator lists for bfloat16 (MXNet's mx.contrib.amp.lists.symbol_bf16)."""
from ._from_core import load

BF16_FUNCS, BF16_FP32_FUNCS, FP32_FUNCS, CONDITIONAL_FP32_FUNCS, WIDEST_TYPE_CASTS, LOSS_OUTPUT_FUNCTIONS = load("bfloat16")
