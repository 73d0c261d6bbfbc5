"""mx.np.einsum: Einstein summation, NumPy's subscripts (implicit and explicit output, '...'),
computed from operators so it differentiates and hybridizes: each operand's repeated indices
become diagonals, every operand is laid out over all the indices (size 1 where it has none),
the broadcast product is summed over the indices the output drops."""
import string

from . import _op
from ._arranging import diagonal
from ._ufunc import write_out

__all__ = ["einsum"]


def _parse(subscripts, arrays):
    """(one index string per operand, the output's) with '...' spelled out as letters not used."""
    subscripts = subscripts.replace(" ", "")
    inputs, arrow, output = subscripts.partition("->")
    specs = inputs.split(",")
    if len(specs) != len(arrays):
        raise ValueError("einsum: %d operands for subscripts '%s' naming %d" % (len(arrays), subscripts, len(specs)))
    spare = [c for c in string.ascii_letters if c not in subscripts]
    ellipsis_ndim = max([a.ndim - (len(s) - 3) for s, a in zip(specs, arrays) if "..." in s] + [0])
    ellipsis = "".join(spare[:ellipsis_ndim])
    expanded = []
    for spec, a in zip(specs, arrays):
        if "..." in spec:
            own = a.ndim - (len(spec) - 3)
            spec = spec.replace("...", ellipsis[ellipsis_ndim - own:] if own else "")
        if len(spec) != a.ndim:
            raise ValueError("einsum: subscripts '%s' name %d axes of an operand of shape %s" % (spec, len(spec), a.shape))
        expanded.append(spec)
    if arrow:
        output = output.replace("...", ellipsis)
    else:
        counts = {}
        for c in "".join(expanded):
            counts[c] = counts.get(c, 0) + 1
        output = ellipsis + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ellipsis))
    return expanded, output


def _without_repeats(a, spec):
    """``a`` with each index that its spec repeats taken along its diagonal (moved to the end)."""
    while len(set(spec)) != len(spec):
        c = next(c for c in spec if spec.count(c) > 1)
        first = spec.index(c)
        second = spec.index(c, first + 1)
        a = diagonal(a, 0, first, second)
        spec = spec[:first] + spec[first + 1:second] + spec[second + 1:] + c
    return a, spec


def einsum(*operands, **kwargs):
    """einsum(subscripts, *arrays, optimize=False, out=None): NumPy's Einstein summation."""
    kwargs.pop("optimize", None)  # one broadcast product: there is no contraction order to choose
    out = kwargs.pop("out", None)
    if kwargs:
        raise TypeError("einsum() got unexpected keyword arguments: %s" % ", ".join(kwargs))
    subscripts, arrays = operands[0], [_op._arr(a) for a in operands[1:]]
    specs, output = _parse(subscripts, arrays)
    laid_out = []
    everything = output + "".join(sorted(set("".join(specs)) - set(output)))
    for a, spec in zip(arrays, specs):
        a, spec = _without_repeats(a, spec)
        order = sorted(range(len(spec)), key=lambda i: everything.index(spec[i]))
        if order != list(range(len(spec))):
            a = _op.transpose(a, order)
        spec = "".join(spec[i] for i in order)
        laid_out.append(a.reshape(tuple(a.shape[spec.index(c)] if c in spec else 1 for c in everything)))
    product = laid_out[0]
    for a in laid_out[1:]:
        product = _op.multiply(product, a)
    dropped = tuple(range(len(output), len(everything)))
    if dropped:
        product = product.sum(axis=dropped)
    sizes = {}
    for a, spec in zip(arrays, specs):
        for c, n in zip(spec, a.shape):
            sizes[c] = max(sizes.get(c, 1), n)
    shape = tuple(sizes[c] for c in output)
    return write_out("einsum", product if product.shape == shape else _op.broadcast_to(product, shape), out)

