"""mxnet.numpy_dispatch_protocol: NumPy's dispatch protocols (``__array_function__``,
``__array_ufunc__``) as MXNet's ``mx.np`` arrays take part in them.

The two lists name the NumPy functions and ufuncs that MXNet's ``mx.np`` arrays hand to MXNet when
NumPy is called on them (``numpy.sum(x)`` runs ``mx.np.sum``). Braid's arrays do not implement the
protocols: NumPy converts them (``__array__``) and computes on the host, returning NumPy arrays.
"""
import functools

_NUMPY_ARRAY_FUNCTION_LIST = """
    all any sometrue argmin argmax around round round_ argsort sort append broadcast_arrays
    broadcast_to clip concatenate copy cumsum diag diagonal diagflat dot expand_dims fix flip
    flipud fliplr inner insert max amax mean min amin nonzero ones_like atleast_1d atleast_2d
    atleast_3d prod product ravel repeat reshape roll split array_split hsplit vsplit dsplit
    squeeze stack std sum swapaxes take tensordot tile transpose unique unravel_index
    diag_indices_from delete var vdot vstack column_stack hstack dstack zeros_like linalg.norm
    linalg.cholesky linalg.inv linalg.solve linalg.tensorinv linalg.tensorsolve linalg.pinv
    linalg.eigvals linalg.eig linalg.eigvalsh linalg.eigh shape trace tril meshgrid outer einsum
    polyval shares_memory may_share_memory quantile percentile diff ediff1d resize where
    full_like bincount empty_like nan_to_num isnan isfinite isposinf isneginf isinf pad
""".split()

_NUMPY_ARRAY_UFUNC_LIST = """
    abs fabs add arctan2 copysign degrees hypot lcm subtract multiply true_divide negative power
    mod matmul absolute rint sign exp log log2 log10 expm1 sqrt square cbrt reciprocal invert
    bitwise_not remainder sin cos tan sinh cosh tanh arcsin arccos arctan arcsinh arccosh
    arctanh maximum minimum ceil trunc floor bitwise_and bitwise_xor bitwise_or logical_not
    equal not_equal less less_equal greater greater_equal
""".split()


def _run_reporting(func, protocol):
    @functools.wraps(func)
    def run(*args, **kwargs):
        try:
            func(*args, **kwargs)
        except Exception as e:
            raise RuntimeError("Running function %s with NumPy %s protocol failed with exception %s"
                               % (func.__name__, protocol, e)) from e
    return run


def with_array_function_protocol(func):
    """Decorator: runs func; any exception is raised again as RuntimeError naming func and the protocol."""
    return _run_reporting(func, "array function")


def with_array_ufunc_protocol(func):
    """Decorator: runs func; any exception is raised again as RuntimeError naming func and the protocol."""
    return _run_reporting(func, "array ufunc")
