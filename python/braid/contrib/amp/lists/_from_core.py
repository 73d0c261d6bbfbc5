"""Braid's AMP operator lists for one target dtype, as MXNet's list modules hold them."""
from ...._core import amp as _amp


def load(dtype):
    """(target-dtype ops, float32 ops, conditional float32 ops, widest-type casts, loss outputs)."""
    lists = _amp.default_lists(dtype)
    return (list(lists.target_dtype_ops), list(lists.fp32_ops),
            [(op, attr, list(values)) for op, attr, values in lists.conditional_fp32_ops],
            list(lists.widest_type_casts), list(lists.loss_output_functions))
