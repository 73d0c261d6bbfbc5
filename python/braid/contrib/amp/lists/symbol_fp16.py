"""AMP's operator lists for float16 (MXNet's mx.contrib.amp.lists.symbol_fp16)."""
from ._from_core import load

FP16_FUNCS, FP16_FP32_FUNCS, FP32_FUNCS, CONDITIONAL_FP32_FUNCS, WIDEST_TYPE_CASTS, LOSS_OUTPUT_FUNCTIONS = load("float16")
