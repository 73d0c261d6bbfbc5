"""mxnet.executor: the Executor a Symbol's bind / simple_bind returns (implemented in C++), with
MXNet's Python-side behaviour added here."""
from ._core.symbol import Executor

__all__ = ["Executor"]


def copy_params_from(self, arg_params, aux_params=None, allow_extra_params=False):
    """Copies parameters into the executor's arrays by name. A name the executor does not have
    raises ValueError unless allow_extra_params."""
    for given, own in ((arg_params, self.arg_dict), (aux_params or {}, self.aux_dict)):
        for name, array in given.items():
            if name in own:
                dst = own[name]
                array.astype(dst.dtype).copyto(dst)
            elif not allow_extra_params:
                raise ValueError("Find name \"%s\" that is not in the %s" % (
                    name, "arguments" if given is arg_params else "auxiliary states"))


Executor.copy_params_from = copy_params_from
