"""mx.nd.CachedOp: a Symbol run as one operation from imperative code, recorded by autograd as one
node (what hybridized Gluon blocks run)."""
from .. import _core
from ..base import MXNetError

__all__ = ["CachedOp"]


class CachedOp:
    """``CachedOp(sym, flags=())``; call it with one array per ``sym.list_inputs()``, in that order
    (``out=`` an array or a list of them receives the outputs). Flag ``static_alloc`` reuses one
    set of buffers per input shape."""

    def __init__(self, sym, flags=()):
        flags = dict(flags)
        static_alloc = str(flags.get("static_alloc", False)).lower() in ("true", "1")
        self._op = _core.symbol.CachedOp(sym, static_alloc)
        self._inputs = sym.list_inputs()
        aux = set(sym.list_auxiliary_states())
        self._args = [i for i, name in enumerate(self._inputs) if name not in aux]
        self._aux = [i for i, name in enumerate(self._inputs) if name in aux]

    def __call__(self, *args, out=None, **kwargs):
        if len(args) != len(self._inputs):
            raise MXNetError("CachedOp: %d inputs given, the symbol takes %d: %s"
                             % (len(args), len(self._inputs), ", ".join(self._inputs)))
        outputs = self._op([args[i] for i in self._args], [args[i] for i in self._aux])
        if out is None:
            return outputs[0] if len(outputs) == 1 else outputs
        targets = out if isinstance(out, (list, tuple)) else [out]
        if len(targets) != len(outputs):
            raise MXNetError("CachedOp: out= has %d arrays for %d outputs" % (len(targets), len(outputs)))
        for result, target in zip(outputs, targets):
            result.copyto(target)
        return out
