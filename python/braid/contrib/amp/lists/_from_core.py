"""Braid's AMP operator lists for one target dtype, as MXNet's list modules hold them."""
from .... import _core
from ...._core import amp as _amp


def load(dtype):
    """(target-dtype ops, ops run in either precision, float32 ops, conditional float32 ops,
    widest-type casts, loss outputs). The ops of either precision are every other operator (by
    its registered name), as they leave their inputs' dtype alone."""
    lists = _amp.default_lists(dtype)
    conditional = [(op, attr, list(values)) for op, attr, values in lists.conditional_fp32_ops]
    listed = set(lists.target_dtype_ops) | set(lists.fp32_ops) | {op for op, _, _ in conditional} | \
        set(lists.widest_type_casts)
    either = sorted(op for op in _core.list_operators() if op not in listed and not op.startswith("_backward"))
    return (list(lists.target_dtype_ops), either, list(lists.fp32_ops), conditional, list(lists.widest_type_casts),
            list(lists.loss_output_functions))
